/* SPDX-License-Identifier: MIT */
/*
 * mpi_cc.c - connected components over ranks: cc_compute at P ranks,
 * 1 and 2 threads and both merge paths (tree of merges; distributed
 * union-find over owner ranks, where each rank holds its block of labels)
 * gives exactly the labels, component sizes, edge counts and statistics of
 * an independent serial BFS labelling computed here on every rank (so runs
 * at 1, 2 and 4 ranks and both paths agree with each other); auto picks the
 * path by the documented rule; the components file round-trips from either
 * path; one rank's bad slab fails every rank with one message on either
 * path; the slab is left as it was (the distributed path renames copies of
 * its pieces). Edge lists are made in memory (skewed R-MAT-like with a giant,
 * self-loops, duplicates and isolated vertices; many small components;
 * fewer vertices than ranks), each rank taking its block.
 */
#include "cc_internal.h"
#include "common.h"
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nranks;
static int64_t batch;  /* cc_opts.dist_batch of every call (0: the default) */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Edge i of a skewed graph on 2^scale vertices: R-MAT quadrant choices,
 * then a fixed scramble of ids (odd multiplier mod 2^scale). */
static void make_edges(int scale, int64_t m, uint64_t seed, int64_t *e)
{
    const int64_t n = (int64_t)1 << scale;
    for (int64_t i = 0; i < m; i++) {
        int64_t u = 0, v = 0;
        for (int b = 0; b < scale; b++) {
            uint64_t r = mix(seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 64 + (uint64_t)b) % 100;
            int qu = r >= 76, qv = (r >= 57 && r < 76) || r >= 95;
            u = 2 * u + qu;
            v = 2 * v + qv;
        }
        e[2 * i] = (u * 0x5bd1e995LL + 7) & (n - 1);
        e[2 * i + 1] = (v * 0x5bd1e995LL + 7) & (n - 1);
    }
}

/* Many small components: vertex ids scrambled, groups of g consecutive
 * scrambled ids joined by random edges inside the group (a group may be
 * split or get duplicates), every 7th tuple a self-loop, a quarter of the
 * ids never used (isolated). */
static void make_small_components(int scale, int64_t m, int g, uint64_t seed, int64_t *e)
{
    const int64_t n = (int64_t)1 << scale, used = n - n / 4;
    for (int64_t i = 0; i < m; i++) {
        uint64_t z = mix(seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
        int64_t grp = (int64_t)(z % (uint64_t)(used / g)), a = grp * g + (int64_t)((z >> 32) % g);
        int64_t b = i % 7 == 3 ? a : grp * g + (int64_t)((z >> 48) % g);
        e[2 * i] = (a * 0x5bd1e995LL + 3) & (n - 1);
        e[2 * i + 1] = (b * 0x5bd1e995LL + 3) & (n - 1);
    }
}

static void block(int64_t m, int r, int p, int64_t *first, int64_t *count)
{
    *first = m * r / p;
    *count = m * (r + 1) / p - *first;
}

/* Serial reference: BFS components ordered by size, ties by smallest vertex. */
static void reference(int64_t n, const int64_t *e, int64_t m, int64_t *label, int64_t *nc,
                      int64_t *sizes, int64_t *cedges)
{
    int64_t *off = calloc(n + 2, 8), *adj = malloc((2 * m + 1) * 8), *fill = calloc(n + 1, 8);
    int64_t *comp = malloc(n * 8), *q = malloc(n * 8), *csz = calloc(n + 1, 8);
    int64_t *order = malloc((n + 1) * 8), *id = malloc((n + 1) * 8), c = 0;
    for (int64_t i = 0; i < m; i++)
        if (e[2 * i] != e[2 * i + 1]) {
            off[e[2 * i] + 1]++;
            off[e[2 * i + 1] + 1]++;
        }
    for (int64_t v = 0; v < n; v++)
        off[v + 1] += off[v];
    for (int64_t i = 0; i < m; i++)
        if (e[2 * i] != e[2 * i + 1]) {
            adj[off[e[2 * i]] + fill[e[2 * i]]++] = e[2 * i + 1];
            adj[off[e[2 * i + 1]] + fill[e[2 * i + 1]]++] = e[2 * i];
        }
    for (int64_t v = 0; v < n; v++)
        comp[v] = -1;
    for (int64_t s = 0; s < n; s++) {
        if (comp[s] >= 0 || off[s] == off[s + 1])
            continue;
        int64_t h = 0, t = 0;
        q[t++] = s;
        comp[s] = c;
        while (h < t)
            for (int64_t x = q[h++], j = off[x]; j < off[x + 1]; j++)
                if (comp[adj[j]] < 0) {
                    comp[adj[j]] = c;
                    q[t++] = adj[j];
                }
        csz[c++] = t;
    }
    for (int64_t i = 0; i < c; i++)
        order[i] = i;
    for (int64_t i = 1; i < c; i++) { /* stable insertion sort by size */
        int64_t x = order[i], j = i;
        for (; j > 0 && csz[order[j - 1]] < csz[x]; j--)
            order[j] = order[j - 1];
        order[j] = x;
    }
    for (int64_t i = 0; i < c; i++) {
        id[order[i]] = i;
        sizes[i] = csz[order[i]];
        cedges[i] = 0;
    }
    for (int64_t v = 0; v < n; v++)
        label[v] = comp[v] < 0 ? -1 : id[comp[v]];
    for (int64_t i = 0; i < m; i++)
        if (e[2 * i] != e[2 * i + 1])
            cedges[label[e[2 * i]]]++;
    *nc = c;
    free(off); free(adj); free(fill); free(comp); free(q); free(csz); free(order); free(id);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The labels rows [first, first + count) of /label at p ranks: the first
 * n mod p ranks one row more (what components_cmd.c writes). */
static void label_block(int64_t n, int r, int p, int64_t *first, int64_t *count)
{
    int64_t q = n / p, rem = n % p;
    *first = r * q + (r < rem ? r : rem);
    *count = q + (r < rem);
}

/* Both paths at 1 and 2 threads against the BFS reference on the n-vertex
 * graph e (m tuples); kind names the graph in messages. */
static int check_edges(const char *kind, int64_t n, int64_t *e, int64_t m)
{
    int ok = 1;
    int64_t *lab = malloc(n * 8), *sz = malloc((n + 1) * 8);
    int64_t *ce = malloc((n + 1) * 8), nc, first, count, *keys = malloc((m + 1) * 8), nk = 0, distinct = 0, loops = 0;
    reference(n, e, m, lab, &nc, sz, ce);
    for (int64_t i = 0; i < m; i++) {
        int64_t u = e[2 * i], v = e[2 * i + 1];
        if (u == v)
            loops++;
        else
            keys[nk++] = (u < v ? u : v) * n + (u < v ? v : u);
    }
    qsort(keys, nk, 8, cmp_i64);
    for (int64_t i = 0; i < nk; i++)
        distinct += i == 0 || keys[i] != keys[i - 1];
    block(m, rank, nranks, &first, &count);
    /* runs 4 and 5: labels only (kernel 1), same labels and counts, no statistics */
    for (int run = 0; run < 6; run++) {
        const int threads = 1 + run % 2, merge = run % 4 < 2 ? CC_MERGE_TREE : CC_MERGE_DISTRIBUTED;
        const int labels_only = run >= 4;
        const char *how = cc_merge_name(merge);
        cc_result *r = NULL;
        int64_t lf, lc;
        int64_t *copy = malloc((2 * count + 1) * 8);
        memcpy(copy, e + 2 * first, 2 * count * 8);
        int rc = cc_compute(MPI_COMM_WORLD, n, e + 2 * first, count, first,
                   &(cc_opts){.nthreads = threads, .merge = merge, .dist_batch = batch,
                              .labels_only = labels_only}, &r);
        MT_CHECK(rc == G5_OK, "cc_compute: %s", g5_error_msg());
        MT_CHECK(memcmp(copy, e + 2 * first, 2 * count * 8) == 0, "%s, %s: the slab was changed", kind, how);
        free(copy);
        if (rc != G5_OK)
            break;
        MT_CHECK(r->merge == merge, "%s: took the %s path", how, cc_merge_name(r->merge));
        if (merge == CC_MERGE_TREE) {
            lf = 0;
            lc = n;
        } else {
            label_block(n, rank, nranks, &lf, &lc);
        }
        MT_CHECK(r->label_first == lf && r->label_count == lc, "%s, %s: labels [%lld, +%lld), want [%lld, +%lld)",
                 kind, how, (long long)r->label_first, (long long)r->label_count, (long long)lf, (long long)lc);
        MT_CHECK(r->ncomp == nc, "%s, %s, %d threads: %lld components, BFS finds %lld", kind, how,
                 threads, (long long)r->ncomp, (long long)nc);
        if (r->ncomp == nc && r->label_first == lf && r->label_count == lc) {
            int64_t bad = -1;
            for (int64_t v = lf; v < lf + lc && bad < 0; v++)
                if (r->label[v - lf] != lab[v])
                    bad = v;
            MT_CHECK(bad < 0, "%s, %s, %d threads: label[%lld] = %d, BFS says %lld", kind, how, threads,
                     (long long)bad, bad < 0 ? 0 : r->label[bad - lf], (long long)(bad < 0 ? 0 : lab[bad]));
            MT_CHECK(memcmp(r->comp_vertices, sz, nc * 8) == 0, "component sizes differ");
            MT_CHECK(memcmp(r->comp_edges, ce, nc * 8) == 0, "component edge counts differ");
        }
        if (labels_only) {
            MT_CHECK(r->meta.distinct_edges == 0 && r->meta.giant_vertices == 0,
                     "%s, %s, labels only: statistics filled (distinct %lld)", kind, how,
                     (long long)r->meta.distinct_edges);
            cc_result_free(&r);
            continue;
        }
        MT_CHECK(r->meta.self_loops == loops, "self-loops %lld, want %lld", (long long)r->meta.self_loops, (long long)loops);
        MT_CHECK(r->meta.distinct_edges == distinct, "distinct %lld, want %lld",
                 (long long)r->meta.distinct_edges, (long long)distinct);
        MT_CHECK(r->meta.duplicate_edges == nk - distinct, "duplicates");
        MT_CHECK(r->meta.giant_vertices == (nc ? sz[0] : 0), "giant vertices");
        cc_result_free(&r);
    }
    free(lab); free(sz); free(ce); free(keys);
    return ok;
}

static int check_graph(int scale, int64_t m, uint64_t seed)
{
    int64_t *e = malloc((2 * m + 2) * 8);
    char kind[64];
    snprintf(kind, sizeof kind, "skewed scale %d seed %llu", scale, (unsigned long long)seed);
    make_edges(scale, m, seed, e);
    int ok = check_edges(kind, (int64_t)1 << scale, e, m);
    free(e);
    return ok;
}

static int check_small(int scale, int64_t m, int g, uint64_t seed)
{
    int64_t *e = malloc((2 * m + 2) * 8);
    char kind[64];
    snprintf(kind, sizeof kind, "groups of %d, scale %d seed %llu", g, scale, (unsigned long long)seed);
    make_small_components(scale, m, g, seed, e);
    int ok = check_edges(kind, (int64_t)1 << scale, e, m);
    free(e);
    return ok;
}

static int labels_match_bfs_on_a_skewed_graph(void) { return check_graph(12, 16 << 12, 1); }
/* the distributed path's exchanges in batches of 100 pairs: every gather,
 * hook, jump and count, and the gather plan, over many batches */
static int labels_match_bfs_in_small_exchange_batches(void)
{
    batch = 100;
    int ok = check_graph(12, 16 << 12, 9) & check_graph(11, 1 << 10, 10);
    batch = 0;
    return ok;
}
static int labels_match_bfs_on_a_sparse_graph(void) { return check_graph(11, 1 << 10, 2); }
/* sparse at every P (2 m < n: the distributed path's endpoint hash set)
 * and, at 1 and 2 ranks, more than one of its 2^16-tuple pieces: the set
 * grows and rehashes between pieces */
static int labels_match_bfs_on_a_sparse_graph_in_pieces(void) { return check_graph(19, 3 << 16, 8); }
static int fewer_edges_than_ranks(void) { return check_graph(4, 3, 3); }
static int no_edges_at_all(void) { return check_graph(3, 0, 4); }
static int labels_match_bfs_with_many_small_components(void)
{
    return check_small(12, 3 << 12, 2, 5) & check_small(12, 3 << 12, 5, 6) & check_small(13, 1 << 13, 40, 7);
}
static int labels_match_bfs_on_a_long_path(void)
{
    /* a path whose vertex order is scrambled: the most hooking rounds */
    const int64_t n = 1 << 12, m = n - 1;
    int64_t *e = malloc(2 * m * 8);
    for (int64_t i = 0; i < m; i++) {
        e[2 * i] = (i * 0x5bd1e995LL + 1) & (n - 1);
        e[2 * i + 1] = ((i + 1) * 0x5bd1e995LL + 1) & (n - 1);
    }
    int ok = check_edges("scrambled path", n, e, m);
    free(e);
    return ok;
}
static int fewer_vertices_than_ranks(void)
{
    /* n = 3: at 4 ranks one rank owns no vertex */
    int64_t e[10] = {0, 2, 2, 2, 1, 1, 2, 0, 1, 1};
    return check_edges("three vertices", 3, e, 5);
}

static int auto_follows_the_documented_rule(void)
{
    int ok = 1;
    const int scale = 10;
    const int64_t n = 1 << scale;
    /* dense: 16 tuples per vertex, 4 M / P <= n only from 64 ranks;
     * sparse: M = n / 2, so 4 M / P <= n at every P > 1 */
    for (int dense = 0; dense <= 1; dense++) {
        const int64_t m = dense ? 16 * n : n / 2;
        int64_t *e = malloc(2 * m * 8), first, count;
        cc_result *r = NULL;
        make_edges(scale, m, 11, e);
        block(m, rank, nranks, &first, &count);
        int rc = cc_compute(MPI_COMM_WORLD, n, e + 2 * first, count, first,
                   &(cc_opts){.nthreads = 1, .merge = CC_MERGE_AUTO, .dist_batch = batch}, &r);
        MT_CHECK(rc == G5_OK, "%s", g5_error_msg());
        if (rc == G5_OK) {
            int64_t maxc = (m + nranks - 1) / nranks;
            int want = nranks > 1 && (nranks >= CC_AUTO_RANKS || 4 * maxc <= n) ? CC_MERGE_DISTRIBUTED
                                                                                     : CC_MERGE_TREE;
            MT_CHECK(r->merge == want, "%s graph at %d ranks: auto took %s, want %s", dense ? "dense" : "sparse",
                     nranks, cc_merge_name(r->merge), cc_merge_name(want));
            if (nranks > 1 && nranks < CC_AUTO_RANKS)
                MT_CHECK(r->merge == (dense ? CC_MERGE_TREE : CC_MERGE_DISTRIBUTED), "auto at %d ranks", nranks);
        }
        cc_result_free(&r);
        free(e);
    }
    return ok;
}

static int one_bad_rank_fails_every_rank(void)
{
    int ok = 1, rc;
    for (int merge = CC_MERGE_TREE; merge <= CC_MERGE_DISTRIBUTED; merge++) {
        int64_t e[4] = {0, 1, 2, 3};
        cc_result *r = NULL;
        if (rank == nranks - 1)
            e[3] = 99; /* outside [0, 16) */
        g5_error_clear();
        rc = cc_compute(MPI_COMM_WORLD, 16, e, 2, 2 * rank,
                   &(cc_opts){.nthreads = 1, .merge = merge, .dist_batch = batch}, &r);
        MT_CHECK(rc == G5_ERR_FORMAT, "%s: every rank must see the format error, got %d", cc_merge_name(merge), rc);
        MT_CHECK(r == NULL, "no result on failure");
        char want[128];
        snprintf(want, sizeof want, "edge %d = (2, 99) has a vertex outside [0, 16)", 2 * (nranks - 1) + 1);
        MT_CHECK(strstr(g5_error_msg(), want) != NULL, "%s: message '%s' should name %s", cc_merge_name(merge),
                 g5_error_msg(), want);
    }
    return ok;
}

static int an_unknown_merge_path_is_refused(void)
{
    int ok = 1;
    int64_t e[2] = {0, 1};
    cc_result *r = NULL;
    int rc = cc_compute(MPI_COMM_WORLD, 4, e, rank == 0, 0,
               &(cc_opts){.nthreads = 1, .merge = 7, .dist_batch = batch}, &r);
    MT_CHECK(rc == G5_ERR_ARG && r == NULL, "merge 7 must be an argument error, got %d", rc);
    return ok;
}

static int file_round_trips(int merge)
{
    int ok = 1, rc;
    const int scale = 10;
    const int64_t n = 1 << scale, m = 8 << scale;
    int64_t *e = malloc(2 * m * 8), first, count, lfirst, lcount;
    char path[256];
    cc_result *r = NULL;
    io_components_writer *w = NULL;
    io_components *c = NULL;
    long pid = getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/g500-mpi-cc-%ld.h5", pid);
    make_edges(scale, m, 9, e);
    block(m, rank, nranks, &first, &count);
    rc = cc_compute(MPI_COMM_WORLD, n, e + 2 * first, count, first,
               &(cc_opts){.nthreads = 2, .merge = merge, .dist_batch = batch}, &r);
    MT_CHECK(rc == G5_OK, "%s", g5_error_msg());
    if (rc != G5_OK)
        return ok;
    /* every rank's labels, whatever it holds, to compare what is read back */
    int64_t *full = malloc(n * 8);
    int *cnt = malloc(nranks * sizeof *cnt), *dsp = malloc(nranks * sizeof *dsp);
    {
        int64_t *mine = malloc((r->label_count + 1) * 8);
        int c = (int)(merge == CC_MERGE_TREE ? 0 : r->label_count);
        for (int64_t i = 0; i < r->label_count; i++)
            mine[i] = r->label[i];
        if (merge == CC_MERGE_TREE) {
            memcpy(full, mine, n * 8);
        } else {
            MPI_Allgather(&c, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
            dsp[0] = 0;
            for (int i = 1; i < nranks; i++)
                dsp[i] = dsp[i - 1] + cnt[i - 1];
            MPI_Allgatherv(mine, c, MPI_INT64_T, full, cnt, dsp, MPI_INT64_T, MPI_COMM_WORLD);
        }
        free(mine);
    }
    r->meta.scale = scale;
    r->meta.nedges = m;
    r->meta.seed = 9;
    r->meta.edges_content_id = 0x1234abcdULL;
    block(n, rank, nranks, &lfirst, &lcount);
    rc = io_components_create(MPI_COMM_WORLD, path, &r->meta, r->ncomp, 1, &w);
    if (rc == G5_OK)
        rc = io_components_write_labels(w, lfirst, lcount, r->label + (lfirst - r->label_first));
    if (rc == G5_OK)
        rc = io_components_write_sizes(w, r->comp_vertices, r->comp_edges);
    if (rc == G5_OK)
        rc = io_components_commit(&w);
    else
        io_components_abort(&w);
    MT_CHECK(rc == G5_OK, "write: %s", g5_error_msg());
    rc = io_components_open(MPI_COMM_WORLD, path, &c);
    MT_CHECK(rc == G5_OK, "open: %s", g5_error_msg());
    if (rc == G5_OK) {
        const io_components_meta *m2 = io_components_get_meta(c);
        int64_t *lab = malloc((n + 1) * 8), *cv = malloc((r->ncomp + 1) * 8), *cedg = malloc((r->ncomp + 1) * 8);
        /* read a different block split than the one written */
        block(n, nranks - 1 - rank, nranks, &lfirst, &lcount);
        MT_CHECK(io_components_read_labels(c, lfirst, lcount, lab) == G5_OK, "%s", g5_error_msg());
        int same = 1;
        for (int64_t i = 0; i < lcount; i++)
            same &= lab[i] == full[lfirst + i];
        MT_CHECK(same, "labels read back differ");
        MT_CHECK(io_components_read_sizes(c, cv, cedg) == G5_OK, "%s", g5_error_msg());
        MT_CHECK(memcmp(cv, r->comp_vertices, r->ncomp * 8) == 0, "sizes read back differ");
        MT_CHECK(memcmp(cedg, r->comp_edges, r->ncomp * 8) == 0, "edge counts read back differ");
        MT_CHECK(m2->edges_content_id == 0x1234abcdULL && m2->seed == 9 && m2->scale == scale, "identity");
        MT_CHECK(memcmp(m2->size_hist, r->meta.size_hist, sizeof m2->size_hist) == 0, "histogram");
        MT_CHECK(m2->giant_edge_share == r->meta.giant_edge_share, "shares");
        MT_CHECK(m2->duplicate_edges == r->meta.duplicate_edges, "duplicates");
        free(lab); free(cv); free(cedg);
        io_components_close(&c);
    }
    /* refused without force */
    rc = io_components_create(MPI_COMM_WORLD, path, &r->meta, r->ncomp, 0, &w);
    MT_CHECK(rc == G5_ERR_EXISTS, "an existing file must be refused, got %d", rc);
    io_components_abort(&w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    cc_result_free(&r);
    free(e); free(full); free(cnt); free(dsp);
    return ok;
}

static int components_file_round_trips(void) { return file_round_trips(CC_MERGE_TREE); }
static int components_file_round_trips_from_the_distributed_path(void)
{
    return file_round_trips(CC_MERGE_DISTRIBUTED);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MT_RUN(labels_match_bfs_on_a_skewed_graph);
    MT_RUN(labels_match_bfs_on_a_sparse_graph);
    MT_RUN(labels_match_bfs_on_a_sparse_graph_in_pieces);
    MT_RUN(labels_match_bfs_in_small_exchange_batches);
    MT_RUN(fewer_edges_than_ranks);
    MT_RUN(no_edges_at_all);
    MT_RUN(labels_match_bfs_with_many_small_components);
    MT_RUN(labels_match_bfs_on_a_long_path);
    MT_RUN(fewer_vertices_than_ranks);
    MT_RUN(auto_follows_the_documented_rule);
    MT_RUN(one_bad_rank_fails_every_rank);
    MT_RUN(an_unknown_merge_path_is_refused);
    MT_RUN(components_file_round_trips);
    MT_RUN(components_file_round_trips_from_the_distributed_path);
    return mt_finish();
}
