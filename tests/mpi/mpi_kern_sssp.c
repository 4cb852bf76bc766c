/* SPDX-License-Identifier: MIT */
/*
 * mpi_kern_sssp.c - kernel 3 (SSSP) beyond mpi_kern.c: the row sort by
 * weight (csr_sort.c) keeps every row's entries, and the light/heavy
 * delta-stepping gives the distances of an independent serial Dijkstra
 * (written below) for any delta: tiny (almost every edge heavy, many
 * buckets), middle, and larger than every weight (no heavy edge), on a
 * skewed random graph and on one whose weights are 0 or few repeated values
 * (ties and zero-weight edges: parents must still form a tree whose edges
 * give each distance exactly), and on one with a hub of degree ~2000, whose
 * single expansion improves more targets than a thread defers in one batch
 * and whose heavy edges span many eight-edge vector blocks with local and
 * remote targets mixed; at P > 1 with the remote bound bytes both by pid
 * and by ghost slot. Runs at 1, 2 and 4 ranks, cyclic and block.
 * The ghost index: each rank indexes exactly the distinct remote targets of
 * its rows (counted here from the edge list), on a path-like graph whose
 * block distribution leaves a handful of remote targets and whose cyclic one
 * makes most targets remote, and on the skewed graph; distances stay those
 * of Dijkstra on both. The buckets: many searches on one workspace, with a
 * tiny delta (thousands of buckets), give bit-identical results to a fresh
 * workspace per search, and between searches the workspace holds no more
 * than it did when created plus a 64 KiB reserve per list (four per thread).
 */
#include "common.h"
#include "kern.h"
#include "kern_impl.h"
#include "kern_testgraph.h"
#include "mpitest.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct tg {
    int64_t n, m;
    int64_t *e;      /* [m][2] */
    float *w;        /* [m] */
    int64_t *off, *adj;
    float *aw;
} tg;


/* skewed endpoints (squared uniform), weights uniform in [0, 1) or, when
 * `coarse` is 1, one of {0, 0.25, 0.5}; when `coarse` is 2, uniform weights
 * and every other edge joins vertex 0 (a hub) to a uniform vertex; when
 * `coarse` is 3, path-like: uniform weights, each edge joins a uniform
 * vertex u to u + 1..4 (no wrap), so under block a rank's remote targets are
 * the few vertices within 4 of its range */
static void tg_make(tg *t, int64_t n, int64_t m, int coarse, uint64_t seed)
{
    t->n = n; t->m = m;
    t->e = malloc(m * 2 * sizeof(int64_t));
    t->w = malloc(m * sizeof(float));
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int64_t i = 0; i < m; i++) {
        double a = (double)(rng(&s) >> 11) / 9007199254740992.0;
        double b = (double)(rng(&s) >> 11) / 9007199254740992.0;
        t->e[2 * i] = coarse == 2 && i % 2 ? 0 : (int64_t)(a * a * n);
        t->e[2 * i + 1] = (int64_t)(b * n);
        if (coarse == 3) {
            t->e[2 * i] = (int64_t)(a * (n - 4));
            t->e[2 * i + 1] = t->e[2 * i] + 1 + (int64_t)(rng(&s) % 4);
        }
        t->w[i] = coarse == 1 ? 0.25f * (float)(rng(&s) % 3) : (float)((rng(&s) >> 40) / 16777216.0);
    }
    kt_index(n, m, t->e, t->w, &t->off, &t->adj, &t->aw);
}

static void tg_free(tg *t) { free(t->e); free(t->w); free(t->off); free(t->adj); free(t->aw); }

/* Dijkstra in float sums (the kernel's arithmetic), O(n^2) selection: the
 * test graphs are small */
static void dijkstra(const tg *t, int64_t root, float *dist)
{
    char *done = calloc(t->n, 1);
    for (int64_t v = 0; v < t->n; v++) dist[v] = INFINITY;
    dist[root] = 0;
    for (;;) {
        int64_t u = -1;
        for (int64_t v = 0; v < t->n; v++)
            if (!done[v] && !isinf(dist[v]) && (u < 0 || dist[v] < dist[u])) u = v;
        if (u < 0) break;
        done[u] = 1;
        for (int64_t k = t->off[u]; k < t->off[u + 1]; k++) {
            float nd = dist[u] + t->aw[k];
            if (nd < dist[t->adj[k]]) dist[t->adj[k]] = nd;
        }
    }
    free(done);
}

static int build(const tg *t, int kind, kern_dist **d, kern_graph **g)
{
    return kt_build(kind, t->n, t->m, t->e, t->w, NULL, NULL, 0, d, g);
}

/* ---- the row sort ---------------------------------------------------------- */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int rows_sorted_by_weight_keep_their_entries(void)
{
    int ok = 1;
    tg t;
    tg_make(&t, 700, 9000, 0, 3);
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    int rc = g5_agree(MPI_COMM_WORLD, build(&t, KERN_DIST_CYCLIC, &d, &g));
    MT_CHECK(rc == G5_OK, "build failed: %s", g5_error_msg());
    if (rc == G5_OK) {
        int64_t nnz = g->nnz;
        uint64_t *before = malloc((nnz + 1) * 8), *after = malloc((nnz + 1) * 8);
        for (int64_t e = 0; e < nnz; e++) {
            before[e] = (uint64_t)g->col[e] << 32 | kern_wkey(g, e);
        }
        MT_CHECK(kern_graph_sort_rows_by_weight(g) == G5_OK, "sort failed: %s", g5_error_msg());
        MT_CHECK(g->rows_by_weight == 1, "the graph does not record its sorted rows");
        for (int64_t v = 0; v < g->nlocal && ok; v++) {
            int64_t e0 = g->rowptr[v], e1 = g->rowptr[v + 1];
            for (int64_t e = e0 + 1; e < e1 && ok; e++)
                MT_CHECK(kern_w(g, e - 1) < kern_w(g, e) ||
                         (kern_w(g, e - 1) == kern_w(g, e) && g->col[e - 1] < g->col[e]),
                         "row %lld: entry %lld (col %u, w %g) after (col %u, w %g)", (long long)v,
                         (long long)(e - e0), g->col[e], kern_w(g, e), g->col[e - 1], kern_w(g, e - 1));
            for (int64_t e = e0; e < e1; e++) {
                after[e] = (uint64_t)g->col[e] << 32 | kern_wkey(g, e);
            }
            qsort(before + e0, (size_t)(e1 - e0), 8, cmp_u64);
            qsort(after + e0, (size_t)(e1 - e0), 8, cmp_u64);
            MT_CHECK(memcmp(before + e0, after + e0, (size_t)(e1 - e0) * 8) == 0,
                     "row %lld: the sort changed the row's (column, weight) entries", (long long)v);
        }
        free(before); free(after);
    }
    kern_graph_free(&g);
    kern_dist_free(&d);
    tg_free(&t);
    return ok;
}

/* What the SSSP tests set up alike: the graph of t on distribution `kind`,
 * up to `want` (at most 8) keys sampled with `seed`, and with delta > 0 a
 * workspace. Returns the first failure's status (build agreed, as the
 * others are collective); sfix_free frees whatever was made. */
typedef struct sfix {
    kern_dist *d;
    kern_graph *g;
    kern_sssp *s;
    int64_t roots[8];
    int nroots;
} sfix;

static int sfix_make(sfix *x, const tg *t, int kind, uint64_t seed, int want, double delta)
{
    *x = (sfix){0};
    int rc = g5_agree(MPI_COMM_WORLD, build(t, kind, &x->d, &x->g));
    if (rc == G5_OK && delta > 0) rc = kern_sssp_create(x->g, delta, &x->s);
    if (rc == G5_OK) rc = kern_roots_sample(x->g, seed, want, x->roots, &x->nroots);
    return rc;
}

static void sfix_free(sfix *x)
{
    kern_sssp_free(&x->s);
    kern_graph_free(&x->g);
    kern_dist_free(&x->d);
}

/* ---- SSSP against Dijkstra for several deltas ------------------------------ */
/* bound-byte layouts sssp_matches ran: [0] by ghost slot, [1] by pid */
static int layouts_seen[2];

/* from 4 sampled roots, or from `root` alone when it is >= 0 */
static int sssp_matches_from(const tg *t, int kind, const double *deltas, int nd, int64_t root,
                             const char *what)
{
    int ok = 1, me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    kern_sssp *s = NULL;
    sfix x;
    int rc = sfix_make(&x, t, kind, 11, 4, 0);
    kern_graph *g = x.g;
    const int64_t *roots = root >= 0 ? &root : x.roots;
    int nroots = root >= 0 ? 1 : x.nroots;
    MT_CHECK(rc == G5_OK, "%s: build or roots failed: %s", what, g5_error_msg());
    int64_t N = t->n, bf, bc, nl = rc == G5_OK ? kern_graph_nlocal(g) : 0;
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    g5_range_split(N, me, P, &bf, &bc);
    int64_t *pl = malloc((nl + 1) * 8), *po = malloc((bc + 1) * 8), *par = malloc(N * 8);
    float *dl = malloc((nl + 1) * 4), *dout = malloc((bc + 1) * 4), *dist = malloc(N * 4);
    float *ref = malloc(N * sizeof(float));
    for (int j = 0; j < nd && ok && rc == G5_OK; j++) {
        rc = kern_sssp_create(g, deltas[j], &s);
        MT_CHECK(rc == G5_OK, "%s: create with delta %g failed: %s", what, deltas[j], g5_error_msg());
        if (rc == G5_OK && s->P > 1) layouts_seen[s->gdirect] = 1;
        for (int i = 0; i < nroots && ok && rc == G5_OK; i++) {
            rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(s, roots[i]));
            MT_CHECK(rc == G5_OK, "%s: delta %g root %lld failed: %s", what, deltas[j],
                     (long long)roots[i], g5_error_msg());
            if (rc) break;
            kern_sssp_result(s, pl, dl);
            rc = kern_to_original(g, pl, dl, po, dout);
            if (rc) break;
            kt_gather_block(MPI_COMM_WORLD, N, dout, dist, MPI_FLOAT);
            kt_gather_block(MPI_COMM_WORLD, N, po, par, MPI_INT64_T);
            dijkstra(t, roots[i], ref);
            MT_CHECK(par[roots[i]] == roots[i] && dist[roots[i]] == 0,
                     "%s delta %g: root %lld has parent %lld, distance %g", what, deltas[j],
                     (long long)roots[i], (long long)par[roots[i]], dist[roots[i]]);
            for (int64_t v = 0; v < N && ok; v++) {
                MT_CHECK((isinf(ref[v]) && isinf(dist[v])) || dist[v] == (double)ref[v],
                         "%s delta %g root %lld: dist[%lld] = %.9g, Dijkstra says %.9g", what,
                         deltas[j], (long long)roots[i], (long long)v, dist[v], (double)ref[v]);
                if (v == roots[i] || isinf(dist[v])) continue;
                /* the parent edge gives the distance exactly, and parents
                 * lead to the root (no cycle through zero weights) */
                int64_t p = par[v];
                int found = 0;
                for (int64_t k = t->off[v]; p >= 0 && k < t->off[v + 1]; k++)
                    if (t->adj[k] == p && (float)dist[p] + t->aw[k] == (float)dist[v]) found = 1;
                MT_CHECK(found, "%s delta %g root %lld: parent %lld of %lld does not give d = %.9g",
                         what, deltas[j], (long long)roots[i], (long long)p, (long long)v, dist[v]);
                int64_t u = v, steps = 0;
                while (u != roots[i] && u >= 0 && steps <= N) { u = par[u]; steps++; }
                MT_CHECK(u == roots[i], "%s delta %g root %lld: parents from %lld do not reach the root",
                         what, deltas[j], (long long)roots[i], (long long)v);
            }
        }
        kern_sssp_free(&s);
    }
    free(pl); free(po); free(par); free(dl); free(dout); free(dist); free(ref);
    sfix_free(&x);
    return ok && rc == G5_OK;
}

static int sssp_matches(const tg *t, int kind, const double *deltas, int nd, const char *what)
{
    return sssp_matches_from(t, kind, deltas, nd, -1, what);
}

static const double deltas[] = {0.004, 0.05, 0.3, 1.5};

/* sssp_matches for every delta, cyclic then block, on tg_make(n, m, coarse,
 * seed) */
static int sssp_matches_cyclic_and_block(int64_t n, int64_t m, int coarse, uint64_t seed,
                                         const char *what)
{
    tg t;
    char wc[128], wb[128];
    snprintf(wc, sizeof wc, "%s, cyclic", what);
    snprintf(wb, sizeof wb, "%s, block", what);
    tg_make(&t, n, m, coarse, seed);
    int ok = sssp_matches(&t, KERN_DIST_CYCLIC, deltas, 4, wc) &&
             sssp_matches(&t, KERN_DIST_BLOCK, deltas, 4, wb);
    tg_free(&t);
    return ok;
}

static int light_heavy_sssp_equals_dijkstra_for_any_delta(void)
{
    return sssp_matches_cyclic_and_block(600, 5000, 0, 5, "uniform weights");
}

static int zero_and_tied_weights_keep_a_parent_tree(void)
{
    return sssp_matches_cyclic_and_block(500, 3000, 1, 9, "weights 0/0.25/0.5");
}

static int a_hub_expansion_larger_than_a_batch_is_exact(void)
{
    return sssp_matches_cyclic_and_block(2500, 4000, 2, 13, "hub");
}

/* A row of one entry is never expanded (its edge leads back to the
 * vertex's parent), except the root's: from a root with one neighbour
 * (whose own row is longer) the search reaches the rest of the graph. */
static int a_root_with_one_neighbour_is_expanded(void)
{
    tg t;
    tg_make(&t, 600, 900, 0, 17);
    int64_t root = -1;
    for (int64_t v = 0; v < t.n && root < 0; v++)
        if (t.off[v + 1] - t.off[v] == 1) {
            int64_t u = t.adj[t.off[v]];
            if (u != v && t.off[u + 1] - t.off[u] >= 3) root = v;
        }
    int ok = 1;
    MT_CHECK(root >= 0, "the test graph has no vertex of one neighbour");
    ok = ok && sssp_matches_from(&t, KERN_DIST_CYCLIC, deltas, 4, root, "root of one neighbour, cyclic") &&
         sssp_matches_from(&t, KERN_DIST_BLOCK, deltas, 4, root, "root of one neighbour, block");
    tg_free(&t);
    return ok;
}

/* dense: 40 CSR entries per vertex, so at 4 ranks too every rank holds more
 * than 4 per pid and keeps the remote bound bytes by pid */
static int a_dense_graph_is_exact(void)
{
    return sssp_matches_cyclic_and_block(300, 6000, 0, 31, "dense, uniform weights");
}

/* At P > 1 the graphs above cover both layouts of the remote bound bytes
 * on every rank: by pid (the dense graph, many CSR entries per pid) and by
 * ghost slot (the hub graph, fewer than 4 entries per pid), so both filters
 * were checked against Dijkstra. */
static int both_bound_byte_layouts_were_checked(void)
{
    int ok = 1, P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MT_CHECK(P == 1 || (layouts_seen[0] && layouts_seen[1]),
             "bound bytes by ghost slot %s, by pid %s", layouts_seen[0] ? "run" : "never run",
             layouts_seen[1] ? "run" : "never run");
    return ok;
}

/* ---- the ghost index --------------------------------------------------------- */
/* distinct vertices owned elsewhere that an edge joins to a vertex owned here */
static int64_t remote_targets(const tg *t, const kern_dist *d)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    char *mark = calloc(t->n, 1);
    int64_t count = 0, l;
    for (int64_t i = 0; i < t->m; i++) {
        int64_t u = t->e[2 * i], v = t->e[2 * i + 1];
        int ou, ov;
        if (!kern_dist_locate(d, u, &ou, &l) || !kern_dist_locate(d, v, &ov, &l)) continue;
        if (ou == me && ov != me && !mark[v]) { mark[v] = 1; count++; }
        if (ov == me && ou != me && !mark[u]) { mark[u] = 1; count++; }
    }
    free(mark);
    return count;
}

/* stats.ghosts == the remote targets counted from the edges; `few` (block on
 * the path-like graph) also checks that the case is the intended one */
static int ghosts_counted(const tg *t, int kind, int few, const char *what)
{
    int ok = 1, P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    sfix x;
    int rc = sfix_make(&x, t, kind, 5, 1, 0.05);
    if (rc == G5_OK && x.nroots == 1) rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(x.s, x.roots[0]));
    MT_CHECK(rc == G5_OK && x.nroots == 1, "%s: build, create or run failed: %s", what, g5_error_msg());
    if (rc == G5_OK) {
        int64_t want = remote_targets(t, x.d), got = kern_sssp_get_stats(x.s)->ghosts;
        MT_CHECK(got == want, "%s: %lld ghost slots, the rows have %lld distinct remote targets",
                 what, (long long)got, (long long)want);
        if (P > 1 && few)
            MT_CHECK(want > 0 && want <= 8, "%s: %lld remote targets, expected 1-8", what,
                     (long long)want);
        if (P > 1 && !few)
            MT_CHECK(want > t->n / (2 * P), "%s: only %lld remote targets", what, (long long)want);
    }
    sfix_free(&x);
    return ok && rc == G5_OK;
}

static int ghosts_are_the_distinct_remote_targets_few_or_many(void)
{
    tg path, skew;
    tg_make(&path, 800, 3000, 3, 17);
    tg_make(&skew, 600, 5000, 0, 5);
    int ok = ghosts_counted(&path, KERN_DIST_BLOCK, 1, "path-like, block (few remote)");
    ok &= ghosts_counted(&path, KERN_DIST_CYCLIC, 0, "path-like, cyclic (many remote)");
    ok &= ghosts_counted(&skew, KERN_DIST_CYCLIC, 0, "skewed, cyclic");
    ok &= ghosts_counted(&skew, KERN_DIST_BLOCK, 0, "skewed, block");
    static const double dl[] = {0.01, 0.05, 0.3};
    ok = ok && sssp_matches(&path, KERN_DIST_BLOCK, dl, 3, "path-like, block") &&
         sssp_matches(&path, KERN_DIST_CYCLIC, dl, 3, "path-like, cyclic");
    tg_free(&path);
    tg_free(&skew);
    return ok;
}

/* ---- one workspace, many searches ------------------------------------------- */
static int reused_workspace(const tg *t, int kind, double delta, const char *what)
{
    int ok = 1;
    kern_sssp *f = NULL;
    sfix x;
    int rc = sfix_make(&x, t, kind, 23, 8, delta);
    kern_graph *g = x.g;
    kern_sssp *s = x.s;
    const int64_t *roots = x.roots;
    int nroots = x.nroots;
    MT_CHECK(rc == G5_OK && nroots == 8, "%s: build, create or roots failed: %s", what, g5_error_msg());
    int64_t nl = rc == G5_OK ? kern_graph_nlocal(g) : 0;
    int64_t held0 = rc == G5_OK ? kern_sssp_get_stats(s)->held : 0;
    /* kept between searches: per thread the settled list, the fusion scratch
     * and two frontier segments, each at most 64 KiB (kern.h) */
    int64_t reserve = (int64_t)omp_get_max_threads() * 4 * 65536;
    int64_t *pa = malloc((nl + 1) * 8), *pb = malloc((nl + 1) * 8);
    float *da = malloc((nl + 1) * 4), *db = malloc((nl + 1) * 4);
    int64_t buckets = 0;
    /* the first root again at the end: the same search after seven others */
    for (int i = 0; i <= nroots && rc == G5_OK; i++) {
        int64_t root = roots[i % nroots];
        rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(s, root));
        if (rc == G5_OK) {
            const kern_sssp_stats *st = kern_sssp_get_stats(s);
            kern_sssp_result(s, pa, da);
            if (st->buckets > buckets) buckets = st->buckets;
            MT_CHECK(st->held <= held0 + reserve, "%s search %d: %lld bytes held, created with %lld",
                     what, i, (long long)st->held, (long long)held0);
            MT_CHECK(st->lists_peak > 0, "%s search %d: no list bytes counted", what, i);
            rc = kern_sssp_create(g, delta, &f);
        }
        if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(f, root));
        if (rc == G5_OK) {
            kern_sssp_result(f, pb, db);
            MT_CHECK(memcmp(pa, pb, nl * 8) == 0 && memcmp(da, db, nl * 4) == 0,
                     "%s search %d (root %lld): results differ from a fresh workspace's", what, i,
                     (long long)root);
        }
        kern_sssp_free(&f);
        MT_CHECK(rc == G5_OK, "%s search %d failed: %s", what, i, g5_error_msg());
    }
    MT_CHECK(buckets >= 1000, "%s: only %lld buckets, the case needs many", what, (long long)buckets);
    free(pa); free(pb); free(da); free(db);
    sfix_free(&x);
    return ok && rc == G5_OK;
}

static int many_searches_on_one_workspace_equal_fresh_ones(void)
{
    tg t;
    tg_make(&t, 800, 3000, 3, 29);
    int ok = reused_workspace(&t, KERN_DIST_CYCLIC, 0.004, "path-like, cyclic") &&
             reused_workspace(&t, KERN_DIST_BLOCK, 0.004, "path-like, block");
    tg_free(&t);
    return ok;
}

int main(int argc, char **argv)
{
    int provided, P;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    omp_set_num_threads(P <= 2 ? 2 : 1);   /* threaded paths at 1 and 2 ranks */
    MT_RUN(rows_sorted_by_weight_keep_their_entries);
    MT_RUN(light_heavy_sssp_equals_dijkstra_for_any_delta);
    MT_RUN(zero_and_tied_weights_keep_a_parent_tree);
    MT_RUN(a_hub_expansion_larger_than_a_batch_is_exact);
    MT_RUN(a_dense_graph_is_exact);
    MT_RUN(a_root_with_one_neighbour_is_expanded);
    MT_RUN(both_bound_byte_layouts_were_checked);
    MT_RUN(ghosts_are_the_distinct_remote_targets_few_or_many);
    MT_RUN(many_searches_on_one_workspace_equal_fresh_ones);
    return mt_finish();
}
