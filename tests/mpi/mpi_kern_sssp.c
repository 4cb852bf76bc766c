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
 * remote targets mixed. Runs at 1, 2 and 4 ranks, cyclic and block.
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
 * and every other edge joins vertex 0 (a hub) to a uniform vertex */
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

static void gather_block(int64_t n, const void *mine, void *all, MPI_Datatype type)
{
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *c = malloc(P * sizeof(int)), *d = malloc(P * sizeof(int));
    for (int r = 0; r < P; r++) {
        int64_t f, k;
        kern_block_range(n, r, P, &f, &k);
        c[r] = (int)k; d[r] = (int)f;
    }
    MPI_Allgatherv(mine, c[me], type, all, c, d, type, MPI_COMM_WORLD);
    free(c); free(d);
}

static int build(const tg *t, int kind, kern_dist **d, kern_graph **g)
{
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int64_t first, count;
    kern_block_range(t->m, me, P, &first, &count);
    int rc = kind == KERN_DIST_CYCLIC ? kern_dist_create_cyclic(MPI_COMM_WORLD, t->n, d)
                                      : kern_dist_create_block(MPI_COMM_WORLD, t->n, d);
    if (rc) return rc;
    return kern_graph_build(MPI_COMM_WORLD, *d, t->e + 2 * first, t->w + first, count, g);
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

/* ---- SSSP against Dijkstra for several deltas ------------------------------ */
static int sssp_matches(const tg *t, int kind, const double *deltas, int nd, const char *what)
{
    int ok = 1, me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_sssp *s = NULL;
    int64_t roots[4];
    int nroots = 0;
    int rc = g5_agree(MPI_COMM_WORLD, build(t, kind, &d, &g));
    if (rc == G5_OK) rc = kern_roots_sample(g, 11, 4, roots, &nroots);
    MT_CHECK(rc == G5_OK, "%s: build or roots failed: %s", what, g5_error_msg());
    int64_t N = t->n, bf, bc, nl = rc == G5_OK ? kern_graph_nlocal(g) : 0;
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    kern_block_range(N, me, P, &bf, &bc);
    int64_t *pl = malloc((nl + 1) * 8), *po = malloc((bc + 1) * 8), *par = malloc(N * 8);
    float *dl = malloc((nl + 1) * 4), *dout = malloc((bc + 1) * 4), *dist = malloc(N * 4);
    float *ref = malloc(N * sizeof(float));
    for (int j = 0; j < nd && ok && rc == G5_OK; j++) {
        rc = kern_sssp_create(g, deltas[j], &s);
        MT_CHECK(rc == G5_OK, "%s: create with delta %g failed: %s", what, deltas[j], g5_error_msg());
        for (int i = 0; i < nroots && ok && rc == G5_OK; i++) {
            rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(s, roots[i]));
            MT_CHECK(rc == G5_OK, "%s: delta %g root %lld failed: %s", what, deltas[j],
                     (long long)roots[i], g5_error_msg());
            if (rc) break;
            kern_sssp_result(s, pl, dl);
            rc = kern_to_original(g, pl, dl, po, dout);
            if (rc) break;
            gather_block(N, dout, dist, MPI_FLOAT);
            gather_block(N, po, par, MPI_INT64_T);
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
    kern_graph_free(&g);
    kern_dist_free(&d);
    return ok && rc == G5_OK;
}

static const double deltas[] = {0.004, 0.05, 0.3, 1.5};

static int light_heavy_sssp_equals_dijkstra_for_any_delta(void)
{
    tg t;
    tg_make(&t, 600, 5000, 0, 5);
    int ok = sssp_matches(&t, KERN_DIST_CYCLIC, deltas, 4, "uniform weights, cyclic") &&
             sssp_matches(&t, KERN_DIST_BLOCK, deltas, 4, "uniform weights, block");
    tg_free(&t);
    return ok;
}

static int zero_and_tied_weights_keep_a_parent_tree(void)
{
    tg t;
    tg_make(&t, 500, 3000, 1, 9);
    int ok = sssp_matches(&t, KERN_DIST_CYCLIC, deltas, 4, "weights 0/0.25/0.5, cyclic") &&
             sssp_matches(&t, KERN_DIST_BLOCK, deltas, 4, "weights 0/0.25/0.5, block");
    tg_free(&t);
    return ok;
}

static int a_hub_expansion_larger_than_a_batch_is_exact(void)
{
    tg t;
    tg_make(&t, 2500, 4000, 2, 13);
    int ok = sssp_matches(&t, KERN_DIST_CYCLIC, deltas, 4, "hub, cyclic") &&
             sssp_matches(&t, KERN_DIST_BLOCK, deltas, 4, "hub, block");
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
    return mt_finish();
}
