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
    cct_skewed_graph(n, m, e, &rng_state);
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
