/* SPDX-License-Identifier: MIT */
/*
 * test_cc.c - the root/son union-find: each case of the patent with the
 * invariants after each step, and a property test against an independent
 * BFS labelling on many random small graphs (sizes, densities, self-loops,
 * duplicates, isolated vertices), statistics included.
 */
#include <criterion/criterion.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cc_internal.h"
#include "common.h"
#include "gen.h"
#include "../cc_tuples.h"

static void check_ok(const cc_forest *f, const char *when)
{
    int rc = cc_forest_check(f);
    cr_assert_eq(rc, G5_OK, "invariants broken %s: %s", when, g5_error_msg());
}

/* Members of the set rooted at r, as a bitmask over the first 64 vertices. */
static uint64_t members(const cc_forest *f, int64_t r)
{
    uint64_t m = 0;
    for (int64_t x = r; x >= 0; x = cc_forest_next(f, x))
        m |= 1ULL << x;
    return m;
}

Test(cc_forest, both_unseen_make_a_set_rooted_at_u)
{
    cc_forest *f;
    cr_assert_eq(cc_forest_create(8, &f), G5_OK);
    for (int v = 0; v < 8; v++)
        cr_expect_eq(cc_forest_find(f, v), -1, "vertex %d is unseen at start", v);
    cr_expect_eq(cc_forest_link(f, 5, 2), CC_NEW_SET);
    check_ok(f, "after a new set");
    cr_expect_eq(cc_forest_find(f, 5), 5, "u is the root");
    cr_expect_eq(cc_forest_find(f, 2), 5, "v's root is u");
    cr_expect_eq(cc_forest_set_size(f, 5), 2);
    cr_expect_eq(members(f, 5), (1ULL << 5) | (1ULL << 2), "son[5] = {5, 2}");
    cr_expect_eq(cc_forest_find(f, 0), -1, "other vertices stay unseen");
    cc_forest_free(&f);
    cr_expect_null(f, "free sets the handle to NULL");
}

Test(cc_forest, one_unseen_joins_the_other_set_from_either_side)
{
    cc_forest *f;
    cr_assert_eq(cc_forest_create(8, &f), G5_OK);
    cc_forest_link(f, 1, 2);
    cr_expect_eq(cc_forest_link(f, 3, 2), CC_JOINED, "u unseen, v seen");
    check_ok(f, "after u joined");
    cr_expect_eq(cc_forest_find(f, 3), 1);
    cr_expect_eq(cc_forest_link(f, 2, 7), CC_JOINED, "u seen, v unseen");
    check_ok(f, "after v joined");
    cr_expect_eq(cc_forest_find(f, 7), 1);
    cr_expect_eq(cc_forest_set_size(f, 1), 4);
    cr_expect_eq(members(f, 1), 0x8eULL, "son[1] = {1, 2, 3, 7}");
    cc_forest_free(&f);
}

Test(cc_forest, same_root_changes_nothing)
{
    cc_forest *f;
    cr_assert_eq(cc_forest_create(6, &f), G5_OK);
    cc_forest_link(f, 0, 1);
    cc_forest_link(f, 1, 2);
    uint64_t before = members(f, 0);
    cr_expect_eq(cc_forest_link(f, 2, 0), CC_SAME);
    cr_expect_eq(cc_forest_link(f, 1, 2), CC_SAME, "a duplicate edge");
    check_ok(f, "after same-root edges");
    cr_expect_eq(members(f, 0), before);
    cr_expect_eq(cc_forest_set_size(f, 0), 3);
    cc_forest_free(&f);
}

Test(cc_forest, self_loops_are_skipped)
{
    cc_forest *f;
    cr_assert_eq(cc_forest_create(4, &f), G5_OK);
    cr_expect_eq(cc_forest_link(f, 3, 3), CC_SELF_LOOP);
    cr_expect_eq(cc_forest_find(f, 3), -1, "a self-loop does not make a vertex seen");
    check_ok(f, "after a self-loop");
    cc_forest_free(&f);
}

Test(cc_forest, different_roots_move_the_smaller_list_into_the_larger)
{
    cc_forest *f;
    cr_assert_eq(cc_forest_create(16, &f), G5_OK);
    cc_forest_link(f, 0, 1);           /* {0,1} */
    cc_forest_link(f, 8, 9);           /* {8,9,10,11} */
    cc_forest_link(f, 9, 10);
    cc_forest_link(f, 11, 8);
    check_ok(f, "before the merge");
    cr_expect_eq(cc_forest_link(f, 1, 10), CC_MERGED);
    check_ok(f, "after the merge");
    for (int v = 0; v < 2; v++)
        cr_expect_eq(cc_forest_find(f, v), 8, "moved vertex %d points at the larger root", v);
    cr_expect_eq(cc_forest_set_size(f, 8), 6, "sizes add up");
    cr_expect_eq(members(f, 8), 0xf03ULL, "son[8] = {8..11, 0, 1}");
    /* Equal sizes: u's set is kept. */
    cc_forest_link(f, 4, 5);
    cc_forest_link(f, 6, 7);
    cr_expect_eq(cc_forest_link(f, 6, 4), CC_MERGED);
    check_ok(f, "after an equal-size merge");
    cr_expect_eq(cc_forest_find(f, 4), 6);
    cr_expect_eq(cc_forest_find(f, 5), 6);
    /* Larger set on the u side. */
    cr_expect_eq(cc_forest_link(f, 9, 5), CC_MERGED);
    check_ok(f, "after the last merge");
    for (int v = 4; v < 8; v++)
        cr_expect_eq(cc_forest_find(f, v), 8, "vertex %d moved into the larger set", v);
    cr_expect_eq(cc_forest_set_size(f, 8), 10);
    cc_forest_free(&f);
}

Test(cc_forest, rejects_bad_sizes_and_vertices_out_of_range)
{
    cc_forest *f = NULL;
    cr_expect_eq(cc_forest_create(0, &f), G5_ERR_ARG);
    cr_expect_null(f);
    cr_expect_eq(cc_forest_create(CC_MAX_VERTICES + 1, &f), G5_ERR_ARG);
    cr_assert_eq(cc_forest_create(10, &f), G5_OK);
    int64_t e[] = {1, 2, 3, 10};
    cr_expect_eq(cc_forest_link_edges(f, e, 2, 100, 1), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "edge 101") != NULL, "message names the edge: %s", g5_error_msg());
    int64_t e2[] = {-1, 2};
    cr_expect_eq(cc_forest_link_edges(f, e2, 1, 0, 1), G5_ERR_FORMAT, "negative vertex");
    cc_forest_free(&f);
    cc_forest_free(&f);
}

/* ---- property test ------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rnd(void) { return cct_rnd(&rng_state); }

/* Independent labelling: adjacency lists, BFS from each vertex in ascending
 * order (so components are found by their smallest vertex), then ids by
 * size descending, ties by discovery order. */
static void bfs_labels(int64_t n, const int64_t *e, int64_t m, int64_t *label,
                       int64_t *ncomp, int64_t *sizes)
{
    int64_t *deg = calloc(n + 1, sizeof *deg), *adj = malloc((2 * m + 1) * sizeof *adj);
    int64_t *fill = calloc(n + 1, sizeof *fill), *queue = malloc((n + 1) * sizeof *queue);
    int64_t *comp = malloc((n + 1) * sizeof *comp), *csize = calloc(n + 1, sizeof *csize);
    int64_t c = 0;
    for (int64_t i = 0; i < m; i++)
        if (e[2 * i] != e[2 * i + 1]) {
            deg[e[2 * i] + 1]++;
            deg[e[2 * i + 1] + 1]++;
        }
    for (int64_t v = 0; v < n; v++)
        deg[v + 1] += deg[v];
    for (int64_t i = 0; i < m; i++) {
        int64_t u = e[2 * i], v = e[2 * i + 1];
        if (u == v)
            continue;
        adj[deg[u] + fill[u]++] = v;
        adj[deg[v] + fill[v]++] = u;
    }
    for (int64_t v = 0; v < n; v++)
        comp[v] = -1;
    for (int64_t s = 0; s < n; s++) {
        if (comp[s] >= 0 || deg[s + 1] == deg[s])
            continue;
        int64_t head = 0, tailq = 0;
        queue[tailq++] = s;
        comp[s] = c;
        while (head < tailq) {
            int64_t x = queue[head++];
            for (int64_t j = deg[x]; j < deg[x + 1]; j++)
                if (comp[adj[j]] < 0) {
                    comp[adj[j]] = c;
                    queue[tailq++] = adj[j];
                }
        }
        csize[c++] = tailq;
    }
    /* Selection of the order: stable sort of discovery ids by size. */
    int64_t *order = malloc((c + 1) * sizeof *order), *id = malloc((c + 1) * sizeof *id);
    for (int64_t i = 0; i < c; i++)
        order[i] = i;
    for (int64_t i = 1; i < c; i++) {
        int64_t x = order[i], j = i;
        for (; j > 0 && csize[order[j - 1]] < csize[x]; j--)
            order[j] = order[j - 1];
        order[j] = x;
    }
    for (int64_t i = 0; i < c; i++) {
        id[order[i]] = i;
        sizes[i] = csize[order[i]];
    }
    for (int64_t v = 0; v < n; v++)
        label[v] = comp[v] < 0 ? -1 : id[comp[v]];
    *ncomp = c;
    free(deg); free(adj); free(fill); free(queue); free(comp); free(csize); free(order); free(id);
}


/* The forest's labelling against the BFS labelling (want, wc components
 * of sizes wsizes; wsizes NULL: sizes not checked); ctx names the case in
 * the failure messages. Returns the component sizes (the caller frees
 * them), the labels in got and their count in *nc. */
static int64_t *labels_equal_bfs(const cc_forest *f, int32_t *got, int64_t n, const int64_t *want, int64_t wc,
                                 const int64_t *wsizes, int64_t *nc, const char *ctx)
{
    int64_t *cv;
    cr_assert_eq(cc_forest_label(f, got, nc, &cv), G5_OK);
    cr_assert_eq(*nc, wc, "%s: %lld components, BFS finds %lld", ctx, (long long)*nc, (long long)wc);
    for (int64_t v = 0; v < n; v++)
        cr_assert_eq(got[v], want[v], "%s: label[%lld] = %d, BFS says %lld", ctx, (long long)v, got[v],
                     (long long)want[v]);
    for (int64_t c = 0; wsizes && c < *nc; c++)
        cr_assert_eq(cv[c], wsizes[c], "%s: size of component %lld", ctx, (long long)c);
    return cv;
}

Test(cc_property, labels_equal_an_independent_bfs_on_random_graphs)
{
    rng_state = 12345;
    for (int trial = 0; trial < 400; trial++) {
        int64_t n = 1 + (int64_t)(rnd() % 300);
        /* densities from very sparse (many isolated vertices) to dense */
        int64_t m = (int64_t)(rnd() % (uint64_t)(4 * n + 1));
        int64_t *e = malloc((2 * m + 2) * sizeof *e);
        int64_t *want = malloc(n * sizeof *want);
        int32_t *got = malloc(n * sizeof *got);
        int64_t *wsizes = malloc((n + 1) * sizeof *wsizes), wc;
        int64_t span = trial % 3 == 0 ? n / 3 + 1 : n; /* leave a tail of isolated vertices */
        for (int64_t i = 0; i < m; i++) {
            e[2 * i] = (int64_t)(rnd() % (uint64_t)span);
            e[2 * i + 1] = rnd() % 8 == 0 ? e[2 * i] : (int64_t)(rnd() % (uint64_t)span);
            if (i > 0 && rnd() % 6 == 0) { /* duplicate, sometimes reversed */
                int64_t j = (int64_t)(rnd() % (uint64_t)i);
                int rev = rnd() & 1;
                e[2 * i] = e[2 * j + rev];
                e[2 * i + 1] = e[2 * j + 1 - rev];
            }
        }
        bfs_labels(n, e, m, want, &wc, wsizes);
        for (int threads = 1; threads <= 3; threads++) {
            cc_forest *f;
            int64_t nc;
            char ctx[96];
            cr_assert_eq(cc_forest_create(n, &f), G5_OK);
            cr_assert_eq(cc_forest_link_edges(f, e, m, 0, threads), G5_OK, "%s", g5_error_msg());
            check_ok(f, "after a random graph");
            snprintf(ctx, sizeof ctx, "trial %d (n=%lld m=%lld, %d threads)", trial, (long long)n, (long long)m,
                     threads);
            int64_t *cv = labels_equal_bfs(f, got, n, want, wc, wsizes, &nc, ctx);

            /* statistics against brute force */
            int64_t *ce = calloc(nc + 1, sizeof *ce), loops = 0, nonloop = 0;
            cc_count_edges(got, nc, e, m, threads, ce, &loops, &nonloop);
            int64_t *we = calloc(nc + 1, sizeof *we), wl = 0, wn = 0;
            for (int64_t i = 0; i < m; i++) {
                int64_t u = e[2 * i], v = e[2 * i + 1];
                if (u == v) { wl++; continue; }
                wn++;
                we[want[u]]++;
            }
            const int64_t distinct = cct_distinct(e, m, n, NULL);
            cr_assert_eq(loops, wl, "self-loops");
            cr_assert_eq(nonloop, wn, "non-loop tuples");
            for (int64_t c = 0; c < nc; c++)
                cr_assert_eq(ce[c], we[c], "trial %d: edges of component %lld", trial, (long long)c);
            io_components_meta meta = {.nvertices = n};
            cc_stats_fill(&meta, nc, cv, ce, loops, nonloop, distinct);
            int64_t active = 0, hist[IO_HIST_BINS] = {0};
            for (int64_t c = 0; c < wc; c++) {
                int k = 0;
                while ((2LL << k) <= wsizes[c]) k++;
                hist[k]++;
                active += wsizes[c];
            }
            hist[0] += n - active;
            cr_assert_eq(meta.isolated_vertices, n - active, "isolated vertices");
            cr_assert_eq(meta.ncomponents_all, wc + n - active);
            cr_assert_eq(meta.duplicate_edges, wn - distinct);
            cr_assert_eq(meta.giant_vertices, wc ? wsizes[0] : 0);
            cr_assert_eq(meta.giant_edges, wc ? we[0] : 0);
            cr_assert_eq(meta.second_vertices, wc > 1 ? wsizes[1] : 0);
            for (int k = 0; k < IO_HIST_BINS; k++)
                cr_assert_eq(meta.size_hist[k], hist[k], "trial %d: histogram bin %d", trial, k);
            free(ce); free(we); free(cv);
            cc_forest_free(&f);
        }
        free(e); free(want); free(got); free(wsizes);
    }
}

/* The parallel path's last passes work on chunks of 2^15 vertices: the
 * giant's son list is chained per chunk and spliced in chunk order, the
 * members of the other sets are pushed onto their roots across chunks, and
 * a root left alone goes back to unseen. Here n (not a multiple of 64)
 * spans four chunks; a giant lives in [0, 40000), pairs and triples in
 * [40000, 90000) (so small sets straddle chunk borders), the rest is
 * isolated except for self-loops, which must leave their vertex unseen.
 * Labels and sizes equal the BFS labelling at 1, 2 and 3 threads, linked
 * in one call, and in two calls whose second (over 2 n edges) takes the
 * parallel path on a forest that already holds sets. */
Test(cc_property, parallel_path_over_several_vertex_chunks_equals_bfs)
{
    rng_state = 31337;
    const int64_t n = 100003, giant = 40000, smalls = 90000, mg = 6 * giant;
    const int64_t m = mg + (smalls - giant) + 1000;
    int64_t *e = malloc(2 * m * sizeof *e), *want = malloc(n * sizeof *want), wc;
    int64_t *wsizes = malloc((n + 1) * sizeof *wsizes), k = 0;
    int32_t *got = malloc(n * sizeof *got);
    for (int64_t i = 0; i < mg; i++, k++) {
        e[2 * k] = (int64_t)(rnd() % (uint64_t)giant);
        e[2 * k + 1] = (int64_t)(rnd() % (uint64_t)giant);
    }
    for (int64_t a = giant; a + 2 < smalls; a += 5) { /* a pair, then a triple */
        e[2 * k] = a;
        e[2 * k + 1] = a + 1;
        k++;
        e[2 * k] = a + 4;
        e[2 * k + 1] = a + 2;
        k++;
        e[2 * k] = a + 3;
        e[2 * k + 1] = a + 4;
        k++;
    }
    for (int64_t i = 0; i < 1000 && k < m; i++, k++)
        e[2 * k] = e[2 * k + 1] = smalls + (int64_t)(rnd() % (uint64_t)(n - smalls));
    for (int64_t i = k - 1; i > 0; i--) { /* shuffled, as Graph500 lists are */
        const int64_t j = (int64_t)(rnd() % (uint64_t)(i + 1)), u = e[2 * i], v = e[2 * i + 1];
        e[2 * i] = e[2 * j];
        e[2 * i + 1] = e[2 * j + 1];
        e[2 * j] = u;
        e[2 * j + 1] = v;
    }
    cr_assert_geq(k - k / 10, 2 * n, "the second call takes the parallel path");
    bfs_labels(n, e, k, want, &wc, wsizes);
    for (int threads = 1; threads <= 3; threads++)
        for (int calls = 1; calls <= 2; calls++) {
            cc_forest *f;
            int64_t nc, *cv;
            cr_assert_eq(cc_forest_create(n, &f), G5_OK);
            if (calls == 1) {
                cr_assert_eq(cc_forest_link_edges(f, e, k, 0, threads), G5_OK, "%s", g5_error_msg());
            } else {
                cr_assert_eq(cc_forest_link_edges(f, e, k / 10, 0, threads), G5_OK, "%s", g5_error_msg());
                cr_assert_eq(cc_forest_link_edges(f, e + 2 * (k / 10), k - k / 10, k / 10, threads), G5_OK,
                             "%s", g5_error_msg());
            }
            check_ok(f, "after the parallel path over several chunks");
            char ctx[64];
            snprintf(ctx, sizeof ctx, "%d threads, %d calls", threads, calls);
            cv = labels_equal_bfs(f, got, n, want, wc, wsizes, &nc, ctx);
            for (int64_t v = smalls; v < n; v++)
                cr_assert_eq(cc_forest_find(f, v), -1, "vertex %lld (self-loops only) is unseen", (long long)v);
            free(cv);
            cc_forest_free(&f);
        }
    cr_assert_gt(wc, 10000, "many small sets (%lld components)", (long long)wc);
    cr_assert_gt(wsizes[0], giant / 2, "and a giant (%lld vertices)", (long long)wsizes[0]);
    free(e); free(want); free(wsizes); free(got);
}

Test(cc_property, merging_forests_of_two_halves_equals_one_forest)
{
    rng_state = 777;
    for (int trial = 0; trial < 50; trial++) {
        int64_t n = 2 + (int64_t)(rnd() % 500), m = (int64_t)(rnd() % (uint64_t)(2 * n));
        int64_t *e = malloc((2 * m + 2) * sizeof *e), nca, ncb, *sa, *sb;
        int32_t *a = malloc(n * 4), *b = malloc(n * 4);
        for (int64_t i = 0; i < 2 * m; i++)
            e[i] = (int64_t)(rnd() % (uint64_t)n);
        cc_forest *whole, *left, *right;
        cr_assert_eq(cc_forest_create(n, &whole), G5_OK);
        cr_assert_eq(cc_forest_create(n, &left), G5_OK);
        cr_assert_eq(cc_forest_create(n, &right), G5_OK);
        cr_assert_eq(cc_forest_link_edges(whole, e, m, 0, 1), G5_OK);
        cr_assert_eq(cc_forest_link_edges(left, e, m / 2, 0, 2), G5_OK);
        cr_assert_eq(cc_forest_link_edges(right, e + 2 * (m / 2), m - m / 2, m / 2, 2), G5_OK);
        cc_forest_merge_roots(left, cc_forest_roots(right));
        check_ok(left, "after merging two forests");
        cc_forest_label(whole, a, &nca, &sa);
        cc_forest_label(left, b, &ncb, &sb);
        cr_assert_eq(nca, ncb);
        cr_assert(memcmp(a, b, n * 4) == 0, "trial %d: merged labels differ from one forest's", trial);
        free(e); free(a); free(b); free(sa); free(sb);
        cc_forest_free(&whole); cc_forest_free(&left); cc_forest_free(&right);
    }
}

/* A large forest is filled by several threads in pieces: every vertex
 * starts unseen, up to the last one. */
Test(cc_forest, a_new_forest_of_any_size_has_every_vertex_unseen)
{
    const int64_t sizes[] = {1, 1000, ((int64_t)1 << 20) + 3};
    for (int i = 0; i < 3; i++) {
        cc_forest *f;
        cr_assert_eq(cc_forest_create(sizes[i], &f), G5_OK);
        const int32_t *root = cc_forest_roots(f);
        for (int64_t v = 0; v < sizes[i]; v++)
            cr_assert_eq(root[v], -1, "n = %lld: root[%lld] = %d", (long long)sizes[i], (long long)v, root[v]);
        check_ok(f, "when new");
        cc_forest_free(&f);
    }
}

Test(cc_forest, labels_of_an_empty_forest_are_all_isolated)
{
    cc_forest *f;
    int32_t lab[5];
    int64_t nc, *cv;
    cr_assert_eq(cc_forest_create(5, &f), G5_OK);
    int64_t e[] = {2, 2, 4, 4};
    cr_assert_eq(cc_forest_link_edges(f, e, 2, 0, 2), G5_OK);
    cr_assert_eq(cc_forest_label(f, lab, &nc, &cv), G5_OK);
    cr_expect_eq(nc, 0, "self-loops only: no component");
    for (int v = 0; v < 5; v++)
        cr_expect_eq(lab[v], -1, "vertex %d isolated", v);
    free(cv);
    cc_forest_free(&f);
}

/* A forest that already holds sets (one cc_forest_link) takes the
 * parallel path for a call of at least 2 n edges, its sets becoming the
 * parent forest's first trees; the labels equal one call's, and one call
 * on a graph large enough for many scan chunks labels the same at 1, 2
 * and 3 threads. */
Test(cc_property, second_call_and_many_blocks_equal_one_call)
{
    rng_state = 4242;
    const int64_t n = 1 << 17, m = 12 * n; /* m - n > CC_BLOCK: four blocks */
    int64_t *e = malloc(2 * m * sizeof *e), nc1, nc2, *s1, *s2;
    int32_t *a = malloc(n * 4), *b = malloc(n * 4);
    for (int64_t i = 0; i < m; i++) {
        /* skewed ends: a giant, small sets and isolated vertices */
        uint64_t r = rnd();
        if (i % 8 == 0) { /* pairs in [n/2, 3n/4); [3n/4, n) stays isolated */
            e[2 * i] = n / 2 + 2 * (int64_t)(r % (uint64_t)(n / 8));
            e[2 * i + 1] = e[2 * i] + 1;
        } else { /* skewed ends in [0, n/2): a giant and a few small sets */
            e[2 * i] = (int64_t)((r & 0xffff) * (r >> 48 & 0xffff) % (uint64_t)(n / 2));
            e[2 * i + 1] = (int64_t)((r >> 16 & 0xffff) * (r >> 32 & 0x7ff) % (uint64_t)(n / 2));
        }
    }
    cc_forest *one, *two;
    cr_assert_eq(cc_forest_create(n, &one), G5_OK);
    cr_assert_eq(cc_forest_link_edges(one, e, m, 0, 1), G5_OK, "%s", g5_error_msg());
    check_ok(one, "after one call");
    cr_assert_eq(cc_forest_label(one, a, &nc1, &s1), G5_OK);
    for (int threads = 1; threads <= 3; threads++) {
        cr_assert_eq(cc_forest_create(n, &two), G5_OK);
        cc_forest_link(two, e[0], e[1]); /* not empty */
        cr_assert_eq(cc_forest_link_edges(two, e + 2, m / 3 - 1, 1, threads), G5_OK);
        cr_assert_eq(cc_forest_link_edges(two, e + 2 * (m / 3), m - m / 3, m / 3, threads), G5_OK);
        check_ok(two, "after three calls");
        cr_assert_eq(cc_forest_label(two, b, &nc2, &s2), G5_OK);
        cr_assert_eq(nc1, nc2, "%d threads: %lld components, one call finds %lld", threads,
                     (long long)nc2, (long long)nc1);
        cr_assert(memcmp(a, b, n * 4) == 0, "%d threads: labels differ from one call's", threads);
        free(s2);
        cc_forest_free(&two);
        cr_assert_eq(cc_forest_create(n, &two), G5_OK);
        cr_assert_eq(cc_forest_link_edges(two, e, m, 0, threads), G5_OK);
        check_ok(two, "after one call on several threads");
        cr_assert_eq(cc_forest_label(two, b, &nc2, &s2), G5_OK);
        cr_assert(memcmp(a, b, n * 4) == 0, "%d threads, one call: labels differ", threads);
        free(s2);
        cc_forest_free(&two);
    }
    cr_assert_gt(nc1, 1, "the graph has several components (%lld)", (long long)nc1);
    cr_assert_gt(s1[0], n / 4, "and a giant (%lld vertices)", (long long)s1[0]);
    free(s1); free(e); free(a); free(b);
    cc_forest_free(&one);
}

/* The scan's giant bitmap is built once and then follows its set through
 * the links: here the marked set (a path over 0..9, the only set the
 * sample builds) is moved into a larger one in the first block, and the
 * second block's edges must be filtered against the larger set. Labels
 * equal the BFS labelling at 1, 2 and 3 threads, in one call (the
 * parallel path) and with the sample in one call and the rest in pieces
 * of 4096 edges (the scan path, where link_mark keeps the bitmap). */
Test(cc_forest, giant_bitmap_follows_its_set_into_a_larger_one)
{
    const int64_t n = 4096, b1 = n + (1 << 20), m = b1 + 200000;
    int64_t *e = malloc(2 * m * sizeof *e), *want = malloc(n * 8), *wsizes = malloc(n * 8), wc, nc, *cv;
    int32_t *got = malloc(n * 4);
    for (int64_t i = 0; i < m; i++) /* filler: self-loops */
        e[2 * i] = e[2 * i + 1] = i < n ? 0 : 1;
    for (int64_t i = 0; i < 9; i++) { /* sample: path 0..9 */
        e[2 * i] = i;
        e[2 * i + 1] = i + 1;
    }
    for (int64_t i = 0; i < 199; i++) { /* block 1: path 100..299, then 150-5 */
        e[2 * (n + i)] = 100 + i;
        e[2 * (n + i) + 1] = 101 + i;
    }
    e[2 * (n + 500)] = 150;
    e[2 * (n + 500) + 1] = 5;
    int64_t k = b1; /* block 2 */
    for (int64_t i = 0; i < 99; i++, k++) { /* path 1000..1099 */
        e[2 * k] = 1000 + i;
        e[2 * k + 1] = 1001 + i;
    }
    const int64_t extra[][2] = {{1050, 250}, {2000, 2001}, {3000, 3001}, {3001, 7}, {120, 9}, {4000, 4001}};
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++, k++) {
        e[2 * k] = extra[i][0];
        e[2 * k + 1] = extra[i][1];
    }
    bfs_labels(n, e, m, want, &wc, wsizes);
    cr_assert_eq(wc, 3, "the graph: one big set, two pairs (BFS finds %lld)", (long long)wc);
    for (int threads = 1; threads <= 3; threads++) {
        cc_forest *f;
        for (int pieces = 0; pieces < 2; pieces++) {
            cr_assert_eq(cc_forest_create(n, &f), G5_OK);
            if (pieces) {
                cr_assert_eq(cc_forest_link_edges(f, e, n, 0, threads), G5_OK, "%s", g5_error_msg());
                for (int64_t i = n; i < m; i += 4096)
                    cr_assert_eq(cc_forest_link_edges(f, e + 2 * i, m - i < 4096 ? m - i : 4096, i, threads),
                                 G5_OK, "%s", g5_error_msg());
            } else {
                cr_assert_eq(cc_forest_link_edges(f, e, m, 0, threads), G5_OK, "%s", g5_error_msg());
            }
            check_ok(f, "after the blocks");
            char ctx[64];
            snprintf(ctx, sizeof ctx, "%d threads, pieces %d", threads, pieces);
            cv = labels_equal_bfs(f, got, n, want, wc, NULL, &nc, ctx);
            free(cv);
            cc_forest_free(&f);
        }
    }
    free(e); free(want); free(wsizes); free(got);
}

/* A skewed random graph: a giant, small sets (pairs in [n/2, 3n/4)) and
 * isolated vertices ([3n/4, n)). */
static void skewed_graph(int64_t n, int64_t m, int64_t *e)
{
    for (int64_t i = 0; i < m; i++) {
        uint64_t r = rnd();
        if (i % 8 == 0) {
            e[2 * i] = n / 2 + 2 * (int64_t)(r % (uint64_t)(n / 8));
            e[2 * i + 1] = e[2 * i] + 1;
        } else {
            e[2 * i] = (int64_t)((r & 0xffff) * (r >> 48 & 0xffff) % (uint64_t)(n / 2));
            e[2 * i + 1] = (int64_t)((r >> 16 & 0xffff) * (r >> 32 & 0x7ff) % (uint64_t)(n / 2));
        }
    }
}

/* The edge list fed piece by piece, as a stage that links while it reads:
 * the first piece takes the parallel path (empty forest), small later
 * pieces the scan path (the forest's bitmap, no sample), a piece of at
 * least 2 n edges the parallel path on a forest that holds sets. Every
 * split gives the labels of one call, at 1, 2 and 3 threads. */
Test(cc_property, edges_fed_in_pieces_equal_one_call)
{
    rng_state = 99;
    const int64_t n = 1 << 16, m = 12 * n;
    const int64_t piece[] = {5000, 70001, n - 1, 3 * n};
    int64_t *e = malloc(2 * m * sizeof *e), nc1, nc2, *s1, *s2;
    int32_t *a = malloc(n * 4), *b = malloc(n * 4);
    skewed_graph(n, m, e);
    cc_forest *one, *f;
    cr_assert_eq(cc_forest_create(n, &one), G5_OK);
    cr_assert_eq(cc_forest_link_edges(one, e, m, 0, 1), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(cc_forest_label(one, a, &nc1, &s1), G5_OK);
    for (size_t k = 0; k < sizeof piece / sizeof *piece; k++)
        for (int threads = 1; threads <= 3; threads++) {
            cr_assert_eq(cc_forest_create(n, &f), G5_OK);
            for (int64_t i = 0; i < m; i += piece[k]) {
                const int64_t len = m - i < piece[k] ? m - i : piece[k];
                cr_assert_eq(cc_forest_link_edges(f, e + 2 * i, len, i, threads), G5_OK, "%s", g5_error_msg());
                if (i == 0 || i + len == m)
                    check_ok(f, "after a piece");
            }
            cr_assert_eq(cc_forest_label(f, b, &nc2, &s2), G5_OK);
            cr_assert_eq(nc1, nc2, "pieces of %lld, %d threads: %lld components, one call finds %lld",
                         (long long)piece[k], threads, (long long)nc2, (long long)nc1);
            cr_assert(memcmp(a, b, n * 4) == 0, "pieces of %lld, %d threads: labels differ from one call's",
                      (long long)piece[k], threads);
            free(s2);
            cc_forest_free(&f);
        }
    cr_assert_gt(nc1, 1, "the graph has several components (%lld)", (long long)nc1);
    free(s1); free(e); free(a); free(b);
    cc_forest_free(&one);
}

/* An unshuffled list (chains of 4096 vertices in vertex order, then
 * random edges joining chains): its first edges are no sample of the
 * rest. In one call, and on a forest that already holds a set, in one
 * piece of two blocks (the scan path: the first block sends nearly every
 * edge down the slow path, so the bitmap is elected again before the
 * second) and in pieces of 10^5 edges; labels equal the BFS labelling. */
Test(cc_property, unshuffled_lists_equal_bfs_in_one_call_and_in_pieces)
{
    rng_state = 5;
    const int64_t n = 1 << 20, chains = n / 4096, cross = 400000;
    int64_t m = 0;
    int64_t *e = malloc(2 * (n + cross + 1) * sizeof *e), *want = malloc(n * 8), *wsizes = malloc(n * 8), wc, nc;
    int32_t *got = malloc(n * 4);
    for (int64_t v = 0; v + 1 < 3 * n / 4; v++)  /* [3n/4, n) stays isolated */
        if ((v + 1) % 4096 != 0) {
            e[2 * m] = v;
            e[2 * m + 1] = v + 1;
            m++;
        }
    for (int64_t i = 0; i < cross; i++, m++) {  /* joins about half the chains */
        e[2 * m] = 4096 * (int64_t)(rnd() % (uint64_t)(chains / 2)) + (int64_t)(rnd() % 4096);
        e[2 * m + 1] = 4096 * (int64_t)(rnd() % (uint64_t)(chains / 2)) + (int64_t)(rnd() % 4096);
    }
    bfs_labels(n, e, m, want, &wc, wsizes);
    cr_assert_gt(wc, 2, "several components (%lld)", (long long)wc);
    for (int threads = 1; threads <= 2; threads++)
        for (int mode = 0; mode < 3; mode++) {
            cc_forest *f;
            int64_t *cv;
            cr_assert_eq(cc_forest_create(n, &f), G5_OK);
            if (mode == 0) {
                cr_assert_eq(cc_forest_link_edges(f, e, m, 0, threads), G5_OK, "%s", g5_error_msg());
            } else {
                cc_forest_link(f, e[0], e[1]); /* not empty: the scan path */
                const int64_t step = mode == 1 ? m : 100000;
                for (int64_t i = 1; i < m; i += step)
                    cr_assert_eq(cc_forest_link_edges(f, e + 2 * i, m - i < step ? m - i : step, i, threads),
                                 G5_OK, "%s", g5_error_msg());
            }
            check_ok(f, "after an unshuffled list");
            char ctx[64];
            snprintf(ctx, sizeof ctx, "%d threads, mode %d", threads, mode);
            cv = labels_equal_bfs(f, got, n, want, wc, NULL, &nc, ctx);
            free(cv);
            cc_forest_free(&f);
        }
    free(e); free(want); free(wsizes); free(got);
}

/* ---- the edge tally ---------------------------------------------------- */

/* Link e[m] with a tally attached, fed in pieces of `piece` edges (after
 * `pre` single links, so that the first piece takes the scan path), label,
 * fold, and compare the edges per component, the self-loops and the
 * non-loop tuples with cc_count_edges over the whole list. Returns the
 * width of the tally's counters per vertex (cc_tally_counters). */
static int tally_equals_count_limit(const int64_t *e, int64_t m, int64_t n, int64_t piece, int64_t pre,
                                    int threads, int64_t limit32, const char *ctx)
{
    cc_forest *f;
    cc_tally *t;
    int32_t *label = malloc((size_t)n * 4);
    int64_t nc, *cv, loops = 0, nonloop = 0, wloops = 0, wnonloop = 0;
    cr_assert_eq(cc_forest_create(n, &f), G5_OK);
    cr_assert_eq(cc_tally_create(n, &t), G5_OK);
    if (limit32 > 0)
        cc_tally_set_limit32(t, limit32);
    for (int64_t i = 0; i < pre; i++)
        cc_forest_link(f, e[2 * i], e[2 * i + 1]);  /* not tallied: counted by hand below */
    cc_forest_set_tally(f, t);
    for (int64_t i = pre; i < m; i += piece)
        cr_assert_eq(cc_forest_link_edges(f, e + 2 * i, m - i < piece ? m - i : piece, i, threads), G5_OK,
                     "%s: %s", ctx, g5_error_msg());
    check_ok(f, ctx);
    cr_assert_eq(cc_forest_label(f, label, &nc, &cv), G5_OK);
    int64_t *got = calloc((size_t)nc + 1, sizeof *got), *want = calloc((size_t)nc + 1, sizeof *want);
    cc_count_edges(label, nc, e, pre, 1, got, &loops, &nonloop);
    cc_tally_fold(t, label, threads, got, &loops, &nonloop);
    cc_count_edges(label, nc, e, m, threads, want, &wloops, &wnonloop);
    cr_assert_eq(loops, wloops, "%s: %lld self-loops tallied, %lld in the list", ctx, (long long)loops,
                 (long long)wloops);
    cr_assert_eq(nonloop, wnonloop, "%s: %lld other tuples tallied, %lld in the list", ctx, (long long)nonloop,
                 (long long)wnonloop);
    for (int64_t c = 0; c < nc; c++)
        cr_assert_eq(got[c], want[c], "%s: component %lld: %lld edges tallied, %lld counted", ctx, (long long)c,
                     (long long)got[c], (long long)want[c]);
    const int width = cc_tally_counters(t);
    free(got); free(want); free(cv); free(label);
    cc_tally_free(&t);
    cc_forest_free(&f);
    return width;
}

static int tally_equals_count(const int64_t *e, int64_t m, int64_t n, int64_t piece, int64_t pre, int threads,
                              const char *ctx)
{
    return tally_equals_count_limit(e, m, n, piece, pre, threads, 0, ctx);
}

/* The tally gives cc_count_edges' sums on a skewed graph with self-loops
 * (on vertices of the giant, of small sets, and on vertices seen nowhere
 * else) and duplicates: in one call (the parallel path: sample, filter,
 * kept edges), in pieces (the scan path, the giant filter's drops tallied
 * in bulk), with a first piece on a forest that already holds sets, at 1,
 * 2 and 3 threads. */
Test(cc_tally, edges_per_component_equal_a_count_of_the_list)
{
    rng_state = 21;
    const int64_t n = 1 << 16, m = 12 * n;
    int64_t *e = malloc(2 * m * sizeof *e);
    skewed_graph(n, m, e);
    for (int64_t i = 0; i < m; i += 97) {  /* self-loops: giant side, pairs side, unseen side */
        const int64_t v = (int64_t)(rnd() % (uint64_t)n);
        e[2 * i] = e[2 * i + 1] = v;
    }
    for (int64_t i = 0; i < 200; i++)  /* duplicates of earlier edges */
        memcpy(e + 2 * (m - 1 - i), e + 2 * (i * 31), 16);
    const int64_t piece[] = {m, 5000, 70001, n - 1};
    char ctx[96];
    for (size_t k = 0; k < sizeof piece / sizeof *piece; k++)
        for (int threads = 1; threads <= 3; threads++)
            for (int64_t pre = 0; pre <= 10; pre += 10) {
                snprintf(ctx, sizeof ctx, "pieces of %lld, %d threads, %lld linked first", (long long)piece[k],
                         threads, (long long)pre);
                tally_equals_count(e, m, n, piece[k], pre, threads, ctx);
            }
    free(e);
}

/* On the generator's own list (SCALE 15, shuffled, self-loops and
 * duplicates as they come) the filter drops nearly every edge after the
 * sample: the tally stays in lists (no counter per vertex) and exact, in
 * one call and in pieces as the stage reads them. */
Test(cc_tally, a_graph500_list_keeps_its_tally_in_lists)
{
    const int scale = 15;
    const int64_t n = (int64_t)1 << scale, m = 16 * n;
    int64_t *e = malloc(2 * m * sizeof *e);
    gen_params gp;
    gen g;
    gen_params_default(&gp, scale);
    gen_init(&g, &gp);
    gen_slab(&g, 0, m, e, NULL, NULL);
    const int64_t piece[] = {m, 1 << 13, (1 << 13) - 1};
    char ctx[64];
    for (size_t k = 0; k < sizeof piece / sizeof *piece; k++)
        for (int threads = 1; threads <= 2; threads++) {
            snprintf(ctx, sizeof ctx, "SCALE 15 in pieces of %lld, %d threads", (long long)piece[k], threads);
            cr_assert_eq(tally_equals_count(e, m, n, piece[k], 0, threads, ctx), 0, "%s: tallied in lists", ctx);
        }
    free(e);
}

/* A list the giant filter cannot thin (a perfect matching, each pair
 * repeated: no set grows beyond two vertices, so nearly every edge is
 * kept) grows the tally's lists past n entries: they are folded into
 * 32-bit counters per vertex, still giving exact sums; the unshuffled
 * chains (the giant elected again between blocks) likewise. */
Test(cc_tally, lists_past_half_n_fold_into_counters_and_stay_exact)
{
    rng_state = 8;
    const int64_t n = 1 << 17, m = 3 * (n / 2);
    int64_t *e = malloc(2 * (m > 2 * n ? m : 2 * n) * sizeof *e);
    for (int64_t i = 0; i < m; i++) {
        const int64_t pair = (int64_t)(rnd() % (uint64_t)(n / 2));
        e[2 * i] = 2 * pair + (int64_t)(i & 1);
        e[2 * i + 1] = 2 * pair + 1 - (int64_t)(i & 1);
    }
    for (int threads = 1; threads <= 2; threads++) {
        cr_assert_eq(tally_equals_count(e, m, n, 30000, 0, threads, "matching in pieces"), 32,
                     "the lists were folded into 32-bit counters");
        cr_assert_eq(tally_equals_count(e, m, n, m, 0, threads, "matching in one call"), 32,
                     "the lists were folded into 32-bit counters");
    }
    /* chains of 1024 vertices in vertex order, then edges joining them */
    int64_t k = 0;
    for (int64_t v = 0; v + 1 < n; v++)
        if ((v + 1) % 1024 != 0) {
            e[2 * k] = v;
            e[2 * k + 1] = v + 1;
            k++;
        }
    for (; k < 2 * n; k++) {
        e[2 * k] = (int64_t)(rnd() % (uint64_t)n);
        e[2 * k + 1] = (int64_t)(rnd() % (uint64_t)n);
    }
    for (int threads = 1; threads <= 2; threads++)
        tally_equals_count(e, k, n, 50000, 1, threads, "unshuffled chains in pieces");
    free(e);
}

/* The switch to 64-bit counters (past 2^32 - 1 folded entries, which no
 * test can reach) with the limit lowered to 200,000: a matching of n / 2
 * pairs given twice over (3 n tuples) in pieces of 30,000 folds its lists
 * a first time into 32-bit counters (past n entries), a second time into
 * 64-bit ones, the 32-bit counts carried over, and leaves the last
 * entries in the lists; the sums stay exact. */
Test(cc_tally, the_switch_to_64_bit_counters_carries_the_counts_over)
{
    rng_state = 9;
    const int64_t n = 1 << 17, m = 3 * n;
    int64_t *e = malloc(2 * m * sizeof *e);
    for (int64_t i = 0; i < m / 2; i++) {
        const int64_t pair = (int64_t)(rnd() % (uint64_t)(n / 2));
        e[2 * i] = 2 * pair + (int64_t)(i & 1);
        e[2 * i + 1] = 2 * pair + 1 - (int64_t)(i & 1);
    }
    memcpy(e + m, e, (size_t)m * sizeof *e);  /* the second half repeats the first */
    for (int threads = 1; threads <= 2; threads++) {
        cr_assert_eq(tally_equals_count_limit(e, m, n, 30000, 0, threads, 200000, "matching twice, low limit"), 64,
                     "the counters were made 64-bit");
        cr_assert_eq(tally_equals_count_limit(e, m, n, 30000, 0, threads, 0, "matching twice"), 32,
                     "the default limit keeps 32-bit counters");
    }
    free(e);
}

/* A vertex out of range in a later piece, on either path (a small piece:
 * the scan; a piece of at least 2 n edges: the parallel path on a forest
 * that holds sets): a format error naming the edge by its global index,
 * and the forest stays valid and usable: the next pieces link, and the
 * ends of every good edge, the bad piece's included, are joined (the bad
 * piece's edges touch vertices the others do not). */
Test(cc_forest, a_bad_vertex_in_a_later_piece_names_the_edge_and_leaves_a_valid_forest)
{
    const int64_t n = 1000;
    int64_t e1[2 * 3000], e2[2 * 2500];
    rng_state = 31;
    for (int64_t i = 0; i < 2 * 3000; i++)
        e1[i] = (int64_t)(rnd() % (uint64_t)(n / 2));
    for (int big = 0; big < 2; big++)
        for (int threads = 1; threads <= 3; threads++) {
            const int64_t len = big ? 2500 : 400, badi = big ? 2100 : 123;
            cc_forest *f;
            for (int64_t i = 0; i < 2 * len; i++)
                e2[i] = n / 2 + (int64_t)(rnd() % (uint64_t)(n / 2));
            e2[2 * badi + 1] = threads == 2 ? -7 : n;
            cr_assert_eq(cc_forest_create(n, &f), G5_OK);
            cr_assert_eq(cc_forest_link_edges(f, e1, 1500, 0, threads), G5_OK);
            cr_assert_eq(cc_forest_link_edges(f, e2, len, 1500, threads), G5_ERR_FORMAT,
                         "piece %lld edges, %d threads: the bad vertex is an error", (long long)len, threads);
            char want[64];
            snprintf(want, sizeof want, "edge %lld ", (long long)(1500 + badi));
            cr_expect(strstr(g5_error_msg(), want) != NULL, "the message names %s: %s", want, g5_error_msg());
            check_ok(f, "after a piece with a bad vertex");
            cr_assert_eq(cc_forest_link_edges(f, e1 + 2 * 1500, 1500, 1500 + len, threads), G5_OK);
            check_ok(f, "after the next piece");
            for (int64_t i = 0; i < 3000; i++)
                cr_assert_eq(cc_forest_find(f, e1[2 * i]), cc_forest_find(f, e1[2 * i + 1]),
                             "edge %lld of the good pieces joins its ends", (long long)i);
            for (int64_t i = 0; i < len; i++)
                if (i != badi && e2[2 * i] != e2[2 * i + 1]) {
                    cr_assert_geq(cc_forest_find(f, e2[2 * i]), 0, "good edge %lld's end is seen", (long long)i);
                    cr_assert_eq(cc_forest_find(f, e2[2 * i]), cc_forest_find(f, e2[2 * i + 1]),
                                 "piece %lld, %d threads: good edge %lld of the bad piece joins its ends",
                                 (long long)len, threads, (long long)i);
                }
            cc_forest_free(&f);
        }
}

static void mpi_setup(void) { MPI_Init(NULL, NULL); }
static void mpi_teardown(void) { MPI_Finalize(); }

/* The duplicate count against a sort, at sizes that take each of its
 * paths: one bucket level (up to 2^8 buckets of about 4096 keys) and two
 * (more than 2^20 keys: buckets scattered again into sub-buckets), with
 * heavy duplication, reversed pairs and self-loops, at 1, 2 and 3 threads. */
Test(cc_stats, distinct_pairs_equal_a_sort_at_every_size, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t sizes[] = {0, 1, 2, 700, 4097, 70000, 1500000};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const int64_t m = sizes[si];
        /* vertex range about m / 4: many repeated pairs */
        const int64_t n = m / 4 + 3;
        int64_t *e = malloc((size_t)(m + 1) * 16), loops = 0;
        uint64_t s = 12345 + (uint64_t)m;
        for (int64_t i = 0; i < m; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t u = (int64_t)((s >> 33) % (uint64_t)n), v = (int64_t)((s >> 13) % (uint64_t)n);
            if (i % 97 == 5)
                v = u;  /* self-loop */
            if (i % 5 == 3 && i > 0) {
                u = e[2 * (i - 1) + 1];  /* the previous pair reversed */
                v = e[2 * (i - 1)];
            }
            e[2 * i] = u;
            e[2 * i + 1] = v;
        }
        const int64_t want = cct_distinct(e, m, n, &loops), nk = m - loops;
        cr_assert(m < 1000 || want < nk * 9 / 10, "the test graph of %lld tuples must hold duplicates", (long long)m);
        for (int t = 1; t <= 3; t++) {
            int64_t got = -1;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got, want, "%lld tuples, %d threads: %lld distinct pairs, a sort finds %lld",
                         (long long)m, t, (long long)got, (long long)want);
        }
        free(e);
    }
}

/* The first-level buckets are filled in one pass into regions sized for
 * evenly spread hashes; a list whose tuples are mostly one pair overflows
 * its region (here 200000 copies of {7, 3}, both orders, against regions
 * of a few thousand) and must be counted exactly by the two-pass scatter,
 * as must the distinct pairs mixed in, at 1, 2 and 3 threads. */
Test(cc_stats, one_pair_repeated_overflows_its_region_and_counts_once, .init = mpi_setup,
     .fini = mpi_teardown)
{
    const int64_t m = 300000, n = 1 << 20;
    int64_t *e = malloc((size_t)m * 16);
    for (int64_t i = 0; i < m; i++) {
        if (i % 3 == 2) { /* 100000 distinct pairs {i, i + 1}, i >= 2 */
            e[2 * i] = i;
            e[2 * i + 1] = i + 1;
        } else {
            e[2 * i] = i % 2 ? 7 : 3;
            e[2 * i + 1] = i % 2 ? 3 : 7;
        }
    }
    for (int t = 1; t <= 3; t++) {
        int64_t got = -1;
        cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
        cr_assert_eq(got, 100000 + 1, "%d threads: %lld distinct pairs, want 100001", t, (long long)got);
    }
    free(e);
}

/* A pair repeated 1000 times among 1.5 M spread pairs: too few copies to
 * overflow a first-level region at one thread (slack 1/32 + 1024), enough
 * to overflow its sub-bucket's region in the bucket pass (slack 1/8 + 64
 * of about 4096), whose bucket is then counted by the exact two-pass
 * sub-scatter (at 1, 2 and 3 threads). Counted against a sort. */
Test(cc_stats, a_pair_repeated_beyond_its_sub_bucket_counts_once, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t m = 1500000, n = (int64_t)1 << 24;
    int64_t *e = malloc((size_t)m * 16);
    rng_state = 77;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t r = rnd();
        e[2 * i] = (int64_t)(r % (uint64_t)n);
        e[2 * i + 1] = (int64_t)((r >> 32) % (uint64_t)n);
        if (i % 1500 == 7) {
            e[2 * i] = i % 2 ? 5 : 9;
            e[2 * i + 1] = i % 2 ? 9 : 5;
        }
    }
    const int64_t want = cct_distinct(e, m, n, NULL);
    for (int t = 1; t <= 3; t++) {
        int64_t got = -1;
        cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
        cr_assert_eq(got, want, "%d threads: %lld distinct pairs, a sort finds %lld", t, (long long)got,
                     (long long)want);
    }
    free(e);
}

/* Adds outside a parallel region (each on its own team of threads), and
 * cc_dup_add called by one thread at a time inside a region (no nested
 * team: it fills the rows in turn), equal a sort of the pairs; on a
 * spread list, on one whose repeated pair overflows a region, and with a
 * slab larger than the create announced (the finish then makes its
 * regions again and places the whole slab by the exact scatter), at 1, 2
 * and 3 rows. */
Test(cc_stats, duplicate_count_added_from_any_thread_equals_a_sort, .init = mpi_setup,
     .fini = mpi_teardown)
{
    const int64_t m = 200000, n = 70000, piece = 9999;
    int64_t *e = malloc((size_t)m * 16);
    for (int repeated = 0; repeated < 2; repeated++) {
        uint64_t st = 5 + (uint64_t)repeated;
        cct_skewed(e, m, n, &st, 53, 2, repeated, 20);
        const int64_t want = cct_distinct(e, m, n, NULL);
        for (int t = 1; t <= 3; t++)
            for (int how = 0; how < 3; how++) {
                /* how: 0 outside a region, 1 inside one, 2 outside with
                 * the create announcing half the slab */
                cc_dup *d = NULL;
                int64_t got = -1;
                cr_assert_eq(cc_dup_create(MPI_COMM_WORLD, n, how == 2 ? m / 2 : m, t, &d), G5_OK, "%s",
                             g5_error_msg());
                for (int64_t k = 0; how != 1 && k * piece < m; k++) {
                    const int64_t lo = k * piece, len = m - lo < piece ? m - lo : piece;
                    cc_dup_add(d, e + 2 * lo, len);
                }
#pragma omp parallel num_threads(t) if (how == 1)
                {
                    const int w = omp_get_thread_num(), nw = omp_get_num_threads();
                    for (int64_t k = 0; how == 1 && k * piece < m; k++) {
                        const int64_t lo = k * piece, len = m - lo < piece ? m - lo : piece;
                        if (k % nw == w) {
#pragma omp critical
                            cc_dup_add(d, e + 2 * lo, len);
                        }
                    }
                }
                cr_assert_eq(cc_dup_finish(MPI_COMM_WORLD, d, e, m, &got), G5_OK, "%s", g5_error_msg());
                cr_assert_eq(got, want, "repeated=%d, %d rows, how %d: %lld distinct, a sort finds %lld", repeated,
                             t, how, (long long)got, (long long)want);
                cc_dup_free(&d);
            }
    }
    free(e);
}

/* cc_compute on one rank (the in-memory slab through the same stream as
 * a file's: the link's edge tally and the duplicate count): its edges per
 * component must equal a brute-force count over its labels, its
 * components the BFS's, its self-loops, non-loop tuples and distinct pairs
 * a sort, on skewed random graphs (a giant, small sets, self-loops,
 * repeated pairs) large enough for the one-pass regions and on one whose
 * repeated pair overflows them, at 1, 2 and 3 threads, both merges. */
Test(cc_stats, edge_counts_and_duplicates_of_a_slab_in_memory_equal_brute_force, .init = mpi_setup,
     .fini = mpi_teardown)
{
    const int64_t sizes[] = {0, 5, 3000, 90000, 400000};
    for (size_t si = 0; si < 2 * sizeof sizes / sizeof *sizes; si++) {
        const int64_t m = sizes[si / 2], n = m / 3 + 5;
        const int repeated = si % 2; /* every other tuple is the pair {1, 2} */
        int64_t *e = malloc((size_t)(m + 1) * 16), *lab = malloc((size_t)n * 8), *sz = malloc((size_t)n * 8);
        int64_t nc, want_loops = 0;
        rng_state = 777 + (uint64_t)si;
        cct_skewed(e, m, n, &rng_state, 53, 7, repeated, 1);
        const int64_t want_d = cct_distinct(e, m, n, &want_loops), nk = m - want_loops;
        bfs_labels(n, e, m, lab, &nc, sz);
        for (int t = 1; t <= 3; t++)
            for (int merge = CC_MERGE_TREE; merge <= CC_MERGE_DISTRIBUTED; merge++) {
                const cc_opts o = {.nthreads = t, .merge = merge};
                cc_result *r = NULL;
                cr_assert_eq(cc_compute(MPI_COMM_WORLD, n, e, m, 0, &o, &r), G5_OK, "%s", g5_error_msg());
                const io_components_meta *x = &r->meta;
                int64_t *want_ce = calloc((size_t)r->ncomp + 1, 8);
                for (int64_t i = 0; i < m; i++)
                    if (e[2 * i] != e[2 * i + 1])
                        want_ce[r->label[e[2 * i]]]++;
                cr_assert_eq(r->ncomp, nc, "%lld tuples: %lld components, BFS finds %lld", (long long)m,
                             (long long)r->ncomp, (long long)nc);
                cr_assert_eq(x->distinct_edges, want_d, "%lld tuples%s, %d threads: %lld distinct, a sort finds %lld",
                             (long long)m, repeated ? " (one pair repeated)" : "", t,
                             (long long)x->distinct_edges, (long long)want_d);
                cr_assert_eq(x->self_loops, want_loops, "%lld tuples, %d threads: self-loops %lld, want %lld",
                             (long long)m, t, (long long)x->self_loops, (long long)want_loops);
                cr_assert_eq(x->nonloop_edges, nk, "%lld tuples, %d threads: non-loop tuples %lld, want %lld",
                             (long long)m, t, (long long)x->nonloop_edges, (long long)nk);
                for (int64_t c = 0; c < r->ncomp; c++)
                    cr_assert_eq(r->comp_edges[c], want_ce[c],
                                 "%lld tuples, %d threads: component %lld has %lld edges, want %lld", (long long)m, t,
                                 (long long)c, (long long)r->comp_edges[c], (long long)want_ce[c]);
                free(want_ce);
                cc_result_free(&r);
            }
        free(e); free(lab); free(sz);
    }
}

/* The duplicate count in pieces (cc_dup_*) equals cc_count_distinct: the
 * slab added in uneven pieces in order and out of order, on a spread list
 * and on one whose repeated pair overflows a region (the finish then takes
 * the exact path), and with pieces that do not add up to the slab (also the
 * exact path), at 1, 2 and 3 threads. */
Test(cc_stats, duplicate_count_in_pieces_equals_the_whole_count, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t m = 250000, n = 60000;
    int64_t *e = malloc((size_t)m * 16);
    for (int repeated = 0; repeated < 2; repeated++) {
        rng_state = 31 + (uint64_t)repeated;
        for (int64_t i = 0; i < m; i++) {
            uint64_t r = rnd();
            e[2 * i] = (int64_t)((r & 0xffff) * (r >> 48 & 0xffff) % (uint64_t)n);
            e[2 * i + 1] = i % 61 == 1 ? e[2 * i] : (int64_t)((r >> 16 & 0xffff) * (r >> 32 & 0x7ff) % (uint64_t)n);
            if (repeated && i % 3) {
                e[2 * i] = 11;
                e[2 * i + 1] = 12;
            }
        }
        for (int t = 1; t <= 3; t++) {
            int64_t want = -1, got = -2;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &want), G5_OK, "%s", g5_error_msg());
            for (int order = 0; order < 3; order++) {
                /* pieces [0, a), [a, b), [b, m): in order, reversed, or b..m missing */
                const int64_t a = 1000 + 777 * t, b = m / 2 + 13;
                cc_dup *d = NULL;
                cr_assert_eq(cc_dup_create(MPI_COMM_WORLD, n, m, t, &d), G5_OK, "%s", g5_error_msg());
                if (order == 1) {
                    cc_dup_add(d, e + 2 * b, m - b);
                    cc_dup_add(d, e + 2 * a, b - a);
                    cc_dup_add(d, e, a);
                } else {
                    cc_dup_add(d, e, a);
                    cc_dup_add(d, e + 2 * a, b - a);
                    if (order == 0)
                        cc_dup_add(d, e + 2 * b, m - b);
                }
                cr_assert_eq(cc_dup_finish(MPI_COMM_WORLD, d, e, m, &got), G5_OK, "%s", g5_error_msg());
                cr_assert_eq(got, want, "repeated=%d, %d threads, order %d: %lld distinct in pieces, %lld whole",
                             repeated, t, order, (long long)got, (long long)want);
                cc_dup_free(&d);
                cr_assert_null(d, "cc_dup_free clears the handle");
            }
        }
    }
    cc_dup_free(NULL);
    free(e);
}

/* Distinct pairs of a list by a sort of unsigned 64-bit keys (injective
 * for n <= 2^32), independent of the duplicate count's encoding. */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int64_t sort_distinct_u64(const int64_t *e, int64_t m, uint64_t n)
{
    uint64_t *k = malloc((size_t)(m + 1) * sizeof *k);
    int64_t nk = 0, d = 0;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t u = (uint64_t)e[2 * i], v = (uint64_t)e[2 * i + 1];
        if (u != v)
            k[nk++] = (u < v ? u : v) * n + (u < v ? v : u);
    }
    qsort(k, (size_t)nk, sizeof *k, cmp_u64);
    for (int64_t i = 0; i < nk; i++)
        d += i == 0 || k[i] != k[i - 1];
    free(k);
    return d;
}

/* A list of m tuples over n vertices whose ids lie near n - 1 (the top
 * key bits set) and near 0, with reversed and repeated pairs and
 * self-loops: about a third of the tuples repeat an earlier pair. */
static void high_ids_list(int64_t *e, int64_t m, int64_t n)
{
    const int64_t span = n < 3000 ? n : 3000;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t r = rnd();
        int64_t u = n - 1 - (int64_t)((r >> 8) % (uint64_t)span), v = n - 1 - (int64_t)((r >> 32) % (uint64_t)span);
        if (r % 5 == 0)
            u = (int64_t)((r >> 20) % (uint64_t)span);  /* near 0 */
        if (i > 0 && i % 3 == 1) {  /* an earlier pair, reversed or not */
            const int64_t j = (int64_t)((r >> 4) % (uint64_t)i);
            u = e[2 * j + (r & 1)];
            v = e[2 * j + 1 - (r & 1)];
        }
        if (i % 101 == 7)
            v = u;
        e[2 * i] = u;
        e[2 * i + 1] = v;
    }
}

/* The duplicate count stores the low W = 2 ceil(log2 n) - 8 bits of a
 * bijective mix of the pair key, in max(4, ceil(W / 8)) bytes: 4 up to n =
 * 2^20, 5 up to 2^24, 6 up to 2^28, 7 up to 2^32 (the largest n it
 * takes); for tiny n the class bits shrink. At each width and at its
 * edges (n a power of two and one above), on lists with vertex ids near n
 * - 1 (synthetic ids, nothing of size n allocated), against a sort: whole
 * (cc_count_distinct) and in pieces (cc_dup_*), at 1 and 3 threads. */
Test(cc_stats, distinct_pairs_equal_a_sort_at_every_record_width, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t ns[] = {2, 3, 5, 17, 300, (int64_t)1 << 16, ((int64_t)1 << 20) - 1, (int64_t)1 << 20,
                          ((int64_t)1 << 20) + 1, (int64_t)1 << 24, ((int64_t)1 << 24) + 1, (int64_t)1 << 28,
                          ((int64_t)1 << 28) + 3, (int64_t)1 << 29, ((int64_t)1 << 32) - 1, (int64_t)1 << 32};
    const int64_t m = 40000;
    int64_t *e = malloc((size_t)m * 16);
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
        const int64_t n = ns[ni];
        rng_state = 5 + ni;
        high_ids_list(e, m, n);
        const int64_t want = sort_distinct_u64(e, m, (uint64_t)n);
        cr_assert(want < m * 9 / 10, "n=%lld: the list must hold duplicates", (long long)n);
        for (int t = 1; t <= 3; t += 2) {
            int64_t got = -1, got2 = -2;
            cc_dup *d = NULL;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got, want, "n=%lld, %d threads: %lld distinct pairs, a sort finds %lld", (long long)n, t,
                         (long long)got, (long long)want);
            cr_assert_eq(cc_dup_create(MPI_COMM_WORLD, n, m, t, &d), G5_OK, "%s", g5_error_msg());
            for (int64_t i = 0; i < m; i += 7777)
                cc_dup_add(d, e + 2 * i, m - i < 7777 ? m - i : 7777);
            cr_assert_eq(cc_dup_finish(MPI_COMM_WORLD, d, e, m, &got2), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got2, want, "n=%lld, %d threads: %lld distinct in pieces, a sort finds %lld", (long long)n,
                         t, (long long)got2, (long long)want);
            cc_dup_free(&d);
        }
    }
    free(e);
}

/* Every pair of n vertices once, and again reversed: n (n - 1) / 2
 * distinct pairs filling most of the stored values of each class (n =
 * 1024: 2^20 keys, 2^12 values per class), so a stored bit lost or a
 * class misread merges pairs and the count falls short. */
Test(cc_stats, every_pair_of_a_clique_is_distinct, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t ns[] = {32, 1024, 1500};
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
        const int64_t n = ns[ni], pairs = n * (n - 1) / 2, m = 2 * pairs;
        int64_t *e = malloc((size_t)m * 16), i = 0;
        for (int64_t u = 0; u < n; u++)
            for (int64_t v = u + 1; v < n; v++, i++) {
                e[2 * i] = u;
                e[2 * i + 1] = v;
                e[2 * (pairs + i)] = v;
                e[2 * (pairs + i) + 1] = u;
            }
        for (int t = 1; t <= 2; t++) {
            int64_t got = -1;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got, pairs, "n=%lld, %d threads: %lld distinct pairs, want %lld", (long long)n, t,
                         (long long)got, (long long)pairs);
        }
        free(e);
    }
}

/* The distributed path's local step numbers each non-loop endpoint once:
 * after every piece the ids handed out are exactly the distinct endpoints
 * seen so far (gid a bijection onto them), each renamed tuple maps back
 * through gid to the original, and self-loops become (0, 0). Sparse (2 m
 * < n: the hash set, grown and rehashed between pieces) and dense (the
 * direct map), one thread and four. */
static void local_ids_are_a_bijection(int64_t n, int64_t m, int64_t piece, int threads)
{
    int64_t *e = malloc((size_t)m * 16), *buf = malloc((size_t)piece * 16);
    unsigned char *seen = calloc((size_t)n, 1), *hit = calloc((size_t)n, 1);
    uint64_t z = 0x243f6a8885a308d3ULL;
    int64_t distinct = 0;
    cc_dist_local *l = NULL;
    for (int64_t i = 0; i < m; i++) {
        z = z * 6364136223846793005ULL + 1442695040888963407ULL;
        const int64_t u = (int64_t)((z >> 20) % (uint64_t)n);
        /* some repeats of earlier endpoints, some self-loops */
        const int64_t v = i % 11 == 0 ? u : i % 3 == 0 && i > 0 ? e[2 * (i / 2)] : (int64_t)((z >> 40) % (uint64_t)n);
        e[2 * i] = u;
        e[2 * i + 1] = v;
    }
    cr_assert_eq(cc_dist_local_create(n, m, &l), G5_OK);
    for (int64_t lo = 0; lo < m; lo += piece) {
        const int64_t len = m - lo < piece ? m - lo : piece;
        memcpy(buf, e + 2 * lo, (size_t)len * 16);
        cr_assert_eq(cc_dist_local_take(l, buf, len, lo, threads), G5_OK, "%s", g5_error_msg());
        for (int64_t i = lo; i < lo + len; i++)
            if (e[2 * i] != e[2 * i + 1])
                for (int k = 0; k < 2; k++)
                    if (!seen[e[2 * i + k]]) {
                        seen[e[2 * i + k]] = 1;
                        distinct++;
                    }
        int64_t nloc = -1;
        const int64_t *gid = cc_dist_local_ids(l, &nloc);
        cr_assert_eq(nloc, distinct, "after tuple %lld: %lld local ids for %lld distinct endpoints", (long long)(lo + len),
                     (long long)nloc, (long long)distinct);
        memset(hit, 0, (size_t)n);
        for (int64_t id = 0; id < nloc; id++) {
            cr_assert(gid[id] >= 0 && gid[id] < n && seen[gid[id]] && !hit[gid[id]],
                      "local id %lld -> %lld: not a new endpoint", (long long)id, (long long)gid[id]);
            hit[gid[id]] = 1;
        }
        for (int64_t i = 0; i < len; i++) {
            const int64_t u = e[2 * (lo + i)], v = e[2 * (lo + i) + 1];
            if (u == v) {
                cr_assert(buf[2 * i] == 0 && buf[2 * i + 1] == 0, "self-loop %lld not (0, 0)", (long long)(lo + i));
            } else {
                cr_assert(buf[2 * i] >= 0 && buf[2 * i] < nloc && buf[2 * i + 1] >= 0 && buf[2 * i + 1] < nloc);
                cr_assert(gid[buf[2 * i]] == u && gid[buf[2 * i + 1]] == v, "tuple %lld renamed wrongly",
                          (long long)(lo + i));
            }
        }
    }
    cc_dist_local_free(&l);
    cr_assert_null(l);
    free(e);
    free(buf);
    free(seen);
    free(hit);
}

Test(cc_dist, local_ids_sparse_one_thread_grow_between_pieces) { local_ids_are_a_bijection(1 << 20, 150000, 1 << 14, 1); }
Test(cc_dist, local_ids_sparse_four_threads) { local_ids_are_a_bijection(1 << 20, 300000, 1 << 17, 4); }
Test(cc_dist, local_ids_dense_one_thread) { local_ids_are_a_bijection(1 << 12, 40000, 5000, 1); }
Test(cc_dist, local_ids_dense_four_threads) { local_ids_are_a_bijection(1 << 16, 200000, 1 << 17, 4); }
