/* SPDX-License-Identifier: MIT */
/*
 * mpi_kern.c - the kernels (construction, roots, BFS, SSSP, conversion to
 * original ids) on small random graphs built here, at whatever rank count
 * the runner uses (1, 2, 4), under the cyclic, block and a placement
 * distribution. Checked against an independent serial BFS and Dijkstra
 * written below, and against the same kernels run on MPI_COMM_SELF with the
 * whole edge list (so the results are identical across rank counts).
 */
#include "common.h"
#include "io.h"
#include "kern.h"
#include "kern_impl.h"   /* the CSR layout, checked entry by entry below */
#include "kern_testgraph.h"
#include "mpitest.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank_, nranks_;

/* ---- test graph: skewed (R-MAT-like), with self-loops and duplicates ---- */
typedef struct tgraph {
    int64_t n, m;
    int64_t *e;      /* [m][2] */
    float *w;        /* [m] */
    int64_t *off;    /* serial CSR without self-loops */
    int64_t *adj;
    float *aw;
} tgraph;


static void tgraph_index(tgraph *t);

static void tgraph_make(tgraph *t, int scale, int64_t n, int64_t m, uint64_t seed)
{
    t->n = n; t->m = m;
    t->off = NULL; t->adj = NULL; t->aw = NULL;
    t->e = malloc(m * 2 * sizeof(int64_t));
    t->w = malloc(m * sizeof(float));
    uint64_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < m; i++) {
        int64_t u = 0, v = 0;
        for (int b = 0; b < scale; b++) {
            double r = (double)(rng(&s) >> 11) / 9007199254740992.0;
            int q = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
            u = 2 * u + (q >> 1); v = 2 * v + (q & 1);
        }
        /* scramble ids (odd multiplier mod 2^scale), then fold into [0, n) */
        u = (int64_t)(((uint64_t)u * 0x9E3779B1u) & ((1u << scale) - 1)) % n;
        v = (int64_t)(((uint64_t)v * 0x9E3779B1u) & ((1u << scale) - 1)) % n;
        if (i % 97 == 5) v = u;                        /* self-loops */
        if (i % 89 == 7 && i > 0) { u = t->e[2 * (i - 1) + 1]; v = t->e[2 * (i - 1)]; } /* reversed duplicate */
        t->e[2 * i] = u; t->e[2 * i + 1] = v;
        t->w[i] = (float)((rng(&s) >> 40) / 16777216.0);
    }
    tgraph_index(t);
}

/* The serial adjacency (self-loops dropped, duplicates kept) of t->e. */
static void tgraph_index(tgraph *t)
{
    free(t->off); free(t->adj); free(t->aw);
    kt_index(t->n, t->m, t->e, t->w, &t->off, &t->adj, &t->aw);
}

static void tgraph_free(tgraph *t)
{
    free(t->e); free(t->w); free(t->off); free(t->adj); free(t->aw);
}

static void serial_bfs(const tgraph *t, int64_t root, int64_t *level)
{
    int64_t *q = malloc(t->n * sizeof(int64_t)), h = 0, tl = 0;
    for (int64_t v = 0; v < t->n; v++) level[v] = -1;
    level[root] = 0; q[tl++] = root;
    while (h < tl) {
        int64_t u = q[h++];
        for (int64_t k = t->off[u]; k < t->off[u + 1]; k++)
            if (level[t->adj[k]] < 0) { level[t->adj[k]] = level[u] + 1; q[tl++] = t->adj[k]; }
    }
    free(q);
}

/* Dijkstra with a binary heap of (dist, vertex), lazy deletion, in double */
static void serial_dijkstra(const tgraph *t, int64_t root, double *dist)
{
    int64_t cap = t->off[t->n] + 2, hn = 0;
    double *hd = malloc(cap * sizeof(double));
    int64_t *hv = malloc(cap * sizeof(int64_t));
    for (int64_t v = 0; v < t->n; v++) dist[v] = INFINITY;
    dist[root] = 0; hd[0] = 0; hv[0] = root; hn = 1;
    while (hn) {
        double d = hd[0]; int64_t u = hv[0];
        hn--; hd[0] = hd[hn]; hv[0] = hv[hn];
        for (int64_t i = 0;;) {
            int64_t l = 2 * i + 1, r = l + 1, s = i;
            if (l < hn && hd[l] < hd[s]) s = l;
            if (r < hn && hd[r] < hd[s]) s = r;
            if (s == i) break;
            double td = hd[i]; hd[i] = hd[s]; hd[s] = td;
            int64_t tv = hv[i]; hv[i] = hv[s]; hv[s] = tv;
            i = s;
        }
        if (d > dist[u]) continue;
        for (int64_t k = t->off[u]; k < t->off[u + 1]; k++) {
            double nd = d + t->aw[k];
            int64_t v = t->adj[k];
            if (nd < dist[v]) {
                dist[v] = nd;
                int64_t i = hn++;
                hd[i] = nd; hv[i] = v;
                while (i > 0 && hd[(i - 1) / 2] > hd[i]) {
                    int64_t p = (i - 1) / 2;
                    double td = hd[i]; hd[i] = hd[p]; hd[p] = td;
                    int64_t tv = hv[i]; hv[i] = hv[p]; hv[p] = tv;
                    i = p;
                }
            }
        }
    }
    free(hd); free(hv);
}

/* smallest weight of an edge u-v in the test graph, or -1 */
static double edge_weight(const tgraph *t, int64_t u, int64_t v)
{
    double best = -1;
    for (int64_t k = t->off[u]; k < t->off[u + 1]; k++)
        if (t->adj[k] == v && (best < 0 || t->aw[k] < best)) best = t->aw[k];
    return best;
}

/* a placement: non-isolated vertices shuffled into [0, n_active), isolated
 * ones after in id order; uneven rank ranges, rank 1 empty when P >= 3 */
static void make_placement(const tgraph *t, int P, int64_t *label, int64_t *offsets)
{
    int64_t n = t->n, na = 0, ni = 0;
    for (int64_t v = 0; v < n; v++) na += t->off[v + 1] > t->off[v];
    int64_t *act = malloc(n * sizeof(int64_t));
    for (int64_t v = 0; v < n; v++)
        if (t->off[v + 1] > t->off[v]) act[ni++] = v;
    uint64_t s = 12345;
    for (int64_t i = na - 1; i > 0; i--) {
        int64_t j = (int64_t)(rng(&s) % (uint64_t)(i + 1)), x = act[i];
        act[i] = act[j]; act[j] = x;
    }
    for (int64_t i = 0; i < na; i++) label[act[i]] = i;
    int64_t k = na;
    for (int64_t v = 0; v < n; v++)
        if (t->off[v + 1] == t->off[v]) label[v] = k++;
    int64_t wsum = 0, acc = 0;
    for (int r = 0; r < P; r++) wsum += (P >= 3 && r == 1) ? 0 : r + 1;
    offsets[0] = 0;
    for (int r = 0; r < P; r++) {
        acc += (P >= 3 && r == 1) ? 0 : r + 1;
        offsets[r + 1] = na * acc / wsum;
    }
    free(act);
}

typedef struct result {
    int nroots;
    int64_t roots[8];
    int64_t nedge[8];
    int64_t *parent[8];   /* full [N], original ids */
    float *dist[8];
    int saw_bottom_up, saw_top_down;
    int saw_bitmap_frontier, saw_list_frontier;   /* bottom-up exchange forms */
} result;

/* build + roots + BFS + SSSP on comm under distribution `kind` */
static int run_all(MPI_Comm comm, const tgraph *t, int kind, int want, result *res)
{
    int P, me, rc;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_bfs *b = NULL;
    kern_sssp *s = NULL;
    int64_t first, count;
    g5_range_split(t->m, me, P, &first, &count);
    if (kind == KERN_DIST_CYCLIC) rc = kern_dist_create_cyclic(comm, t->n, &d);
    else if (kind == KERN_DIST_BLOCK) rc = kern_dist_create_block(comm, t->n, &d);
    else {
        int64_t *label = malloc(t->n * sizeof(int64_t)), *off = malloc((P + 1) * sizeof(int64_t));
        make_placement(t, P, label, off);
        rc = kern_dist_create_placement(comm, t->n, label, off, "test placement", &d);
        free(label); free(off);
    }
    if (rc) return rc;
    rc = kern_graph_build(comm, d, t->e + 2 * first, t->w + first, count, &g);
    if (rc) goto out;
    rc = kern_roots_sample(g, 42, want, res->roots, &res->nroots);
    if (rc) goto out;
    if ((rc = kern_bfs_create(g, &b)) || (rc = kern_sssp_create(g, 0.07, &s))) goto out;
    int64_t bf, bc, nl = kern_graph_nlocal(g);
    g5_range_split(t->n, me, P, &bf, &bc);
    int64_t *pl = malloc((nl + 1) * sizeof(int64_t)), *po = malloc((bc + 1) * sizeof(int64_t));
    float *dl = malloc((nl + 1) * sizeof(float)), *dout = malloc((bc + 1) * sizeof(float));
    for (int i = 0; i < res->nroots; i++) {
        kern_levels lv = {0};
        rc = kern_bfs_run(b, res->roots[i], &lv);
        rc = g5_agree(comm, rc);
        if (rc) break;
        for (int k = 0; k < lv.n; k++) {
            if (lv.bottom_up[k]) res->saw_bottom_up = 1; else res->saw_top_down = 1;
            if (lv.bottom_up[k] == 1) res->saw_bitmap_frontier = 1;
            if (lv.bottom_up[k] == 2) res->saw_list_frontier = 1;
        }
        kern_levels_free(&lv);
        kern_reached_edges(g, kern_bfs_parent(b), &res->nedge[i]);
        res->parent[i] = malloc(t->n * sizeof(int64_t));
        res->dist[i] = malloc(t->n * sizeof(float));
        if ((rc = kern_to_original(g, kern_bfs_parent(b), NULL, po, NULL))) break;
        kt_gather_block(comm, t->n, po, res->parent[i], MPI_INT64_T);
        rc = g5_agree(comm, kern_sssp_run(s, res->roots[i]));
        if (rc) break;
        kern_sssp_result(s, pl, dl);
        if ((rc = kern_to_original(g, pl, dl, po, dout))) break;
        kt_gather_block(comm, t->n, dout, res->dist[i], MPI_FLOAT);
    }
    free(pl); free(po); free(dl); free(dout);
out:
    kern_sssp_free(&s);
    kern_bfs_free(&b);
    kern_graph_free(&g);
    kern_dist_free(&d);
    return rc;
}

static void result_free(result *r)
{
    for (int i = 0; i < r->nroots; i++) { free(r->parent[i]); free(r->dist[i]); }
}

/* levels from a parent array (original ids); -2 on a cycle or bad parent */
static void levels_of(const tgraph *t, const int64_t *parent, int64_t root, int64_t *lev)
{
    for (int64_t v = 0; v < t->n; v++) lev[v] = -1;
    lev[root] = 0;
    for (int64_t v = 0; v < t->n; v++) {
        if (parent[v] < 0 || lev[v] >= 0) continue;
        int64_t depth = 0, u = v;
        while (u >= 0 && lev[u] < 0 && depth <= t->n) { u = parent[u]; depth++; }
        if (u < 0 || depth > t->n) { lev[v] = -2; continue; }
        int64_t L = lev[u] + depth;
        for (u = v; lev[u] < 0; u = parent[u]) lev[u] = L--;
    }
}

static int check_against_serial(const tgraph *t, const result *r, const char *what)
{
    int ok = 1;
    int64_t *ref = malloc(t->n * sizeof(int64_t)), *lev = malloc(t->n * sizeof(int64_t));
    double *dref = malloc(t->n * sizeof(double));
    for (int i = 0; i < r->nroots && ok; i++) {
        int64_t root = r->roots[i];
        MT_CHECK(t->off[root + 1] > t->off[root], "%s: root %lld has no edge", what, (long long)root);
        for (int j = 0; j < i; j++)
            MT_CHECK(r->roots[j] != root, "%s: root %lld repeated", what, (long long)root);
        serial_bfs(t, root, ref);
        MT_CHECK(r->parent[i][root] == root, "%s: parent of root %lld is %lld", what,
                 (long long)root, (long long)r->parent[i][root]);
        levels_of(t, r->parent[i], root, lev);
        for (int64_t v = 0; v < t->n && ok; v++) {
            MT_CHECK(lev[v] == ref[v], "%s root %lld: vertex %lld at level %lld, serial BFS says %lld",
                     what, (long long)root, (long long)v, (long long)lev[v], (long long)ref[v]);
            if (v != root && r->parent[i][v] >= 0)
                MT_CHECK(edge_weight(t, v, r->parent[i][v]) >= 0, "%s: tree edge %lld-%lld not in graph",
                         what, (long long)v, (long long)r->parent[i][v]);
        }
        int64_t ne = 0;
        for (int64_t k = 0; k < t->m; k++)
            ne += t->e[2 * k] != t->e[2 * k + 1] && ref[t->e[2 * k]] >= 0 && ref[t->e[2 * k + 1]] >= 0;
        MT_CHECK(r->nedge[i] == ne, "%s root %lld: TEPS edge count %lld, input tuples say %lld", what,
                 (long long)root, (long long)r->nedge[i], (long long)ne);
        serial_dijkstra(t, root, dref);
        for (int64_t v = 0; v < t->n && ok; v++) {
            double a = r->dist[i][v], e = dref[v];
            MT_CHECK((isinf(a) && isinf(e)) || fabs(a - e) <= 1e-5 * (1 + e),
                     "%s root %lld: dist[%lld] = %.9g, Dijkstra says %.9g", what,
                     (long long)root, (long long)v, a, e);
        }
    }
    free(ref); free(lev); free(dref);
    return ok;
}

static const char *kind_name[] = {"cyclic", "block", "placement"};

static int kernels_match_serial_and_one_rank(int scale, int64_t n, int64_t m, int want)
{
    int ok = 1;
    tgraph t;
    tgraph_make(&t, scale, n, m, 7 + scale);
    result one = {0};
    int rc1 = run_all(MPI_COMM_SELF, &t, KERN_DIST_CYCLIC, want, &one);
    MT_CHECK(rc1 == G5_OK, "1-rank run failed: %s", g5_error_msg());
    int any_bu = 0, any_td = 0, any_bitmap = 0, any_list = 0;
    MT_CHECK(!one.saw_list_frontier, "one rank never exchanges a frontier list");
    for (int kind = 0; kind < 3 && ok; kind++) {
        result r = {0};
        int rc = run_all(MPI_COMM_WORLD, &t, kind, want, &r);
        MT_CHECK(rc == G5_OK, "%s run failed: %s", kind_name[kind], g5_error_msg());
        if (rc == G5_OK) {
            ok &= check_against_serial(&t, &r, kind_name[kind]);
            MT_CHECK(r.nroots == one.nroots, "%s: %d roots, 1 rank found %d", kind_name[kind], r.nroots, one.nroots);
            for (int i = 0; i < r.nroots && i < one.nroots; i++) {
                MT_CHECK(r.roots[i] == one.roots[i], "%s: root %d is %lld, on 1 rank %lld",
                         kind_name[kind], i, (long long)r.roots[i], (long long)one.roots[i]);
                for (int64_t v = 0; v < t.n && ok; v++)
                    MT_CHECK(r.dist[i][v] == one.dist[i][v] || (isinf(r.dist[i][v]) && isinf(one.dist[i][v])),
                             "%s root %lld: dist[%lld] %.9g differs from 1 rank's %.9g",
                             kind_name[kind], (long long)r.roots[i], (long long)v, r.dist[i][v], one.dist[i][v]);
            }
            any_bu |= r.saw_bottom_up; any_td |= r.saw_top_down;
            any_bitmap |= r.saw_bitmap_frontier; any_list |= r.saw_list_frontier;
        }
        result_free(&r);
    }
    if (m >= 16 * n) MT_CHECK(any_bu && any_td, "a dense graph should use both directions (bu %d td %d)", any_bu, any_td);
    /* the levels around the peak share a dense bitmap; the last bottom-up
     * levels (few vertices) a list: both forms are exercised at P > 1 */
    if (m >= 16 * n && nranks_ > 1)
        MT_CHECK(any_bitmap && any_list, "bottom-up frontier exchanges: bitmap %d list %d",
                 any_bitmap, any_list);
    MT_CHECK(one.nroots == (want), "expected %d roots, got %d", want, one.nroots);
    result_free(&one);
    tgraph_free(&t);
    return ok;
}

static int small_sparse_graph(void) { return kernels_match_serial_and_one_rank(8, 200, 300, 6); }
static int rmat_graph_uses_both_directions(void) { return kernels_match_serial_and_one_rank(12, 4096, 65536, 4); }
static int odd_vertex_count(void) { return kernels_match_serial_and_one_rank(10, 1000, 8000, 5); }

static int out_of_range_edge_fails_on_every_rank(void)
{
    int ok = 1;
    tgraph t;
    tgraph_make(&t, 8, 256, 512, 3);
    int64_t first, count;
    g5_range_split(t.m, rank_, nranks_, &first, &count);
    if (rank_ == nranks_ - 1 && count > 0) t.e[2 * (first + count - 1)] = 999;
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_dist_create_block(MPI_COMM_WORLD, t.n, &d);
    int rc = kern_graph_build(MPI_COMM_WORLD, d, t.e + 2 * first, t.w + first, count, &g);
    rc = g5_agree(MPI_COMM_WORLD, rc);
    MT_CHECK(rc == G5_ERR_FORMAT, "expected a format error on every rank, got %d (%s)", rc, g5_error_msg());
    MT_CHECK(strstr(g5_error_msg(), "999") != NULL, "message should name the edge: '%s'", g5_error_msg());
    MT_CHECK(g == NULL, "no graph on failure");
    kern_dist_free(&d);
    tgraph_free(&t);
    return ok;
}

static int fewer_roots_than_asked_on_tiny_graph(void)
{
    int ok = 1;
    tgraph t = {0};
    t.n = 50; t.m = 3;
    int64_t e[6] = {3, 4, 4, 4, 10, 3};
    float w[3] = {0.5f, 0.25f, 0.125f};
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    int64_t first, count, roots[64];
    int nroots = -1;
    g5_range_split(t.m, rank_, nranks_, &first, &count);
    kern_dist_create_cyclic(MPI_COMM_WORLD, t.n, &d);
    int rc = kern_graph_build(MPI_COMM_WORLD, d, e + 2 * first, w + first, count, &g);
    MT_CHECK(rc == G5_OK, "build: %s", g5_error_msg());
    if (rc == G5_OK) {
        MT_CHECK(kern_graph_nnz_global(g) == 4, "2 distinct non-loop edges = 4 entries, got %lld",
                 (long long)kern_graph_nnz_global(g));
        rc = kern_roots_sample(g, 1, 64, roots, &nroots);
        MT_CHECK(rc == G5_OK && nroots == 3, "3 non-isolated vertices, got %d roots", nroots);
        for (int i = 0; i < nroots; i++)
            MT_CHECK(roots[i] == 3 || roots[i] == 4 || roots[i] == 10, "root %lld is isolated", (long long)roots[i]);
    }
    kern_graph_free(&g);
    kern_dist_free(&d);
    return ok;
}

/* The workspace is reused between searches without clearing the parent
 * array: a vertex reached by one search and not by the next, and a root
 * without edges, must read -1 afterwards. */
static int bfs_reuse_leaves_no_stale_parent(void)
{
    int ok = 1;
    /* two components {3, 4, 10} and {20, 21}; 7 has no edge */
    int64_t e[8] = {3, 4, 4, 10, 10, 3, 20, 21};
    float w[4] = {0.5f, 0.25f, 0.125f, 0.5f};
    const int64_t n = 50, m = 4;
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_bfs *b = NULL;
    int64_t first, count, bf, bc;
    g5_range_split(m, rank_, nranks_, &first, &count);
    g5_range_split(n, rank_, nranks_, &bf, &bc);
    int64_t *po = malloc((bc + 1) * sizeof(int64_t)), all[50];
    kern_dist_create_cyclic(MPI_COMM_WORLD, n, &d);
    int rc = kern_graph_build(MPI_COMM_WORLD, d, e + 2 * first, w + first, count, &g);
    if (rc == G5_OK) rc = kern_bfs_create(g, &b);
    MT_CHECK(rc == G5_OK, "setup: %s", g5_error_msg());
    const int64_t seq[4] = {3, 7, 20, 4};
    int comp[50];
    for (int v = 0; v < 50; v++) comp[v] = -1;
    comp[3] = comp[4] = comp[10] = 0;
    comp[20] = comp[21] = 1;
    for (int i = 0; i < 4 && rc == G5_OK && ok; i++) {
        rc = g5_agree(MPI_COMM_WORLD, kern_bfs_run(b, seq[i], NULL));
        MT_CHECK(rc == G5_OK, "BFS from %lld: %s", (long long)seq[i], g5_error_msg());
        if (rc) break;
        rc = kern_to_original(g, kern_bfs_parent(b), NULL, po, NULL);
        kt_gather_block(MPI_COMM_WORLD, n, po, all, MPI_INT64_T);
        int64_t root = seq[i];
        for (int64_t v = 0; v < n; v++) {
            int reached = comp[v] >= 0 ? comp[v] == comp[root] : v == root;
            MT_CHECK(reached == (all[v] >= 0), "after BFS %d from %lld: vertex %lld has parent %lld",
                     i, (long long)root, (long long)v, (long long)all[v]);
        }
        MT_CHECK(all[root] == root, "root %lld is its own parent, got %lld", (long long)root,
                 (long long)all[root]);
    }
    free(po);
    kern_bfs_free(&b);
    kern_graph_free(&g);
    kern_dist_free(&d);
    return ok;
}

/* ---- construction, entry by entry ---------------------------------------- */
static int make_dist(MPI_Comm comm, int kind, const tgraph *t, kern_dist **d)
{
    int P;
    MPI_Comm_size(comm, &P);
    if (kind == KERN_DIST_CYCLIC) return kern_dist_create_cyclic(comm, t->n, d);
    if (kind == KERN_DIST_BLOCK) return kern_dist_create_block(comm, t->n, d);
    int64_t *label = malloc(t->n * sizeof(int64_t)), *off = malloc((P + 1) * sizeof(int64_t));
    make_placement(t, P, label, off);
    int rc = kern_dist_create_placement(comm, t->n, label, off, "test placement", d);
    free(label); free(off);
    return rc;
}

typedef struct pw { int64_t pid; float w; } pw;
static int pw_cmp(const void *a, const void *b)
{
    const pw *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return x->w < y->w ? -1 : x->w > y->w;
}

/* Kernel 1's row order: by weight, then by pid (kernels/csr_sort.c). */
static int pw_cmp_weight(const void *a, const void *b)
{
    const pw *x = a, *y = b;
    if (x->w != y->w) return x->w < y->w ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* This rank's CSR equals the one derived here from the serial adjacency:
 * each row the distinct neighbours' pids with the smallest weight among
 * duplicates, ordered by (weight, pid) as kernel 1 leaves them for SSSP,
 * raw degree = incidences with duplicates, no self-loops. */
static int csr_matches_serial(const kern_graph *g, const tgraph *t, const char *what)
{
    int ok = 1;
    const kern_dist *d = g->dist;
    int64_t nnz = 0, bad = 0;
    pw *row = malloc((t->off[t->n] + 1) * sizeof(pw));
    MT_CHECK(g->rowptr[0] == 0, "%s: rowptr[0] = %lld", what, (long long)g->rowptr[0]);
    MT_CHECK(g->rows_by_weight, "%s: kernel 1 leaves rows ordered by weight", what);
    for (int64_t l = 0; l < g->nlocal && bad < 3; l++) {
        int64_t v = kern_dist_orig_of_pid(d, g->base + l), n = 0;
        if (v < 0) { MT_CHECK(0, "%s: local %lld has no original id", what, (long long)l); bad++; continue; }
        for (int64_t k = t->off[v]; k < t->off[v + 1]; k++)
            row[n++] = (pw){kern_dist_pid_of(d, t->adj[k]), t->aw[k]};
        int64_t raw = n;
        qsort(row, n, sizeof(pw), pw_cmp);
        int64_t u = 0;
        for (int64_t i = 0; i < n; i++)
            if (u == 0 || row[i].pid != row[u - 1].pid) row[u++] = row[i];
        qsort(row, u, sizeof(pw), pw_cmp_weight);
        nnz += u;
        int64_t got = g->rowptr[l + 1] - g->rowptr[l];
        int same = got == u && kern_rawdeg(g, l) == raw;
        for (int64_t i = 0; same && i < u; i++)
            same = g->col[g->rowptr[l] + i] == (uint32_t)row[i].pid && kern_w(g, g->rowptr[l] + i) == row[i].w;
        if (!same) {
            bad++;
            MT_CHECK(0, "%s: row of vertex %lld: %lld entries (raw %lld), expected %lld (raw %lld)%s",
                     what, (long long)v, (long long)got, (long long)kern_rawdeg(g, l), (long long)u, (long long)raw,
                     got == u ? ", columns or weights differ" : "");
        }
    }
    MT_CHECK(g->nnz == nnz && g->rowptr[g->nlocal] == nnz, "%s: %lld entries here, expected %lld",
             what, (long long)g->nnz, (long long)nnz);
    free(row);
    return ok;
}

/* A skewed graph plus a hub (vertex 5) with 40 neighbours repeated 15 times
 * each at varied weights: rows long enough for the bucketed sort, many
 * duplicates whose smallest weight must win. */
static void hub_graph(tgraph *t)
{
    tgraph_make(t, 10, 1024, 6144, 11);
    uint64_t s = 99;
    for (int64_t i = 0; i < 600; i++) {
        int64_t j = 3 * i + 1, nb = 100 + (i % 40) * 17;
        t->e[2 * j] = i % 2 ? 5 : nb;
        t->e[2 * j + 1] = i % 2 ? nb : 5;
        t->w[j] = (float)((rng(&s) >> 40) / 16777216.0);
    }
    tgraph_index(t);
}

/* Builds t (each rank its block of the edges) under the cyclic, block and
 * placement distributions with each of the nc chunk sizes (and 2^rows_log
 * rows per block, < 0: the default) and compares every rank's CSR with the
 * serial one; `label` prefixes the messages. */
static int csr_exact_under_each_distribution(const tgraph *t, const int64_t *chunks, int nc,
                                             int rows_log, const char *label)
{
    int ok = 1;
    int64_t first, count;
    g5_range_split(t->m, rank_, nranks_, &first, &count);
    const char *names[] = {"cyclic", "block", "placement"};
    int kinds[] = {KERN_DIST_CYCLIC, KERN_DIST_BLOCK, KERN_DIST_PLACEMENT};
    for (int k = 0; k < 3; k++) {
        kern_dist *d = NULL;
        int rc = g5_agree(MPI_COMM_WORLD, make_dist(MPI_COMM_WORLD, kinds[k], t, &d));
        MT_CHECK(rc == G5_OK, "%s%s distribution: %s", label, names[k], g5_error_msg());
        for (int c = 0; rc == G5_OK && c < nc; c++) {
            char what[96];
            snprintf(what, sizeof what, "%s%s, chunk %lld", label, names[k], (long long)chunks[c]);
            kern_graph *g = NULL;
            rc = kern_graph_build_ex(MPI_COMM_WORLD, d, t->e + 2 * first, t->w + first, count, chunks[c],
                                     rows_log, &g);
            MT_CHECK(rc == G5_OK, "%s: build: %s", what, g5_error_msg());
            if (rc == G5_OK) ok &= csr_matches_serial(g, t, what);
            kern_graph_free(&g);
        }
        kern_dist_free(&d);
    }
    return ok;
}

static int csr_is_exact_for_any_chunk_and_distribution(void)
{
    tgraph t;
    hub_graph(&t);
    const int64_t chunks[] = {0, 61, 777};   /* 61: ~50 rounds per pass at 2 ranks */
    int ok = csr_exact_under_each_distribution(&t, chunks, 3, -1, "");
    tgraph_free(&t);
    return ok;
}

/* Long rows with tied weights: hubs 7, 8 and 9 of a 3000-vertex graph get
 * ~1500 entries each over 600 neighbours (duplicates), weights from {0,
 * 0.25, 0.5} (hub 9: all 0.25), so the merge's weight buckets hold long runs
 * of equal weights, duplicates tie on weight too, and the pid space spans
 * several slices of construction's rank tables. */
static void tied_graph(tgraph *t)
{
    tgraph_make(t, 12, 3000, 12000, 5);
    uint64_t s = 7;
    for (int64_t i = 0; i < 4500; i++) {
        int64_t j = 2 * i + 1, hub = 7 + i % 3, nb = 20 + (int64_t)(rng(&s) % 600);
        t->e[2 * j] = i % 2 ? hub : nb;
        t->e[2 * j + 1] = i % 2 ? nb : hub;
        t->w[j] = hub == 9 ? 0.25f : (float)(rng(&s) % 3) * 0.25f;
    }
    tgraph_index(t);
}

static int csr_is_exact_with_tied_weights_in_long_rows(void)
{
    tgraph t;
    tied_graph(&t);
    const int64_t chunks[] = {0, 333};
    int ok = csr_exact_under_each_distribution(&t, chunks, 2, -1, "tied weights, ");
    tgraph_free(&t);
    return ok;
}

/* The block rule: 7-byte records at this machine's sizes, 8-byte ones
 * where the cursors of small blocks would outweigh them (many threads at a
 * large SCALE, one rank or many). */
static int block_rows_follow_the_peak(void)
{
    int ok = 1;
    const int64_t G = (int64_t)1 << 30;
    MT_CHECK(kc_block_rows_log(20, 2, 1 << 20, 1 << 24) == 10, "SCALE 20, 2 threads");
    MT_CHECK(kc_block_rows_log(26, 2, 1 << 26, G) == 6, "SCALE 26, 2 threads: 7-byte records");
    MT_CHECK(kc_block_rows_log(30, 64, G, 16 * G) == 10, "SCALE 30, 64 threads: 8-byte records");
    MT_CHECK(kc_block_rows_log(32, 64, 1 << 26, G) == 8, "SCALE 32 on 64 ranks of 64 threads");
    MT_CHECK(kc_block_rows_log(28, 8, 1 << 28, 4 * G) == 4, "SCALE 28, 8 threads: 7-byte records");
    return ok;
}

/* Blocks of 2^10 rows on a sparse graph of 2^23 + 3 vertices: columns take
 * 24 bits, so the records are 8 bytes (24-bit weight keys). Then float
 * weights, whose records leave only 32 - 24 row bits: pass 1 runs again
 * with smaller blocks. Both CSRs are exact. */
static int csr_is_exact_with_eight_byte_records(void)
{
    int ok = 1;
    tgraph t;
    tgraph_make(&t, 23, ((int64_t)1 << 23) + 3, (int64_t)1 << 16, 3);
    const int64_t chunks[] = {0, 4099};
    ok &= csr_exact_under_each_distribution(&t, chunks, 2, 10, "8-byte records, ");
    uint64_t s = 5;
    for (int64_t i = 0; i < t.m; i++) t.w[i] = (float)(1 + rng(&s) % 999) / 1000.0f;
    tgraph_index(&t);
    ok &= csr_exact_under_each_distribution(&t, chunks, 2, 10, "float weights, counted again, ");
    tgraph_free(&t);
    return ok;
}

/* Write t as an edges file (scale 10, edgefactor 6) at path, collectively. */
static int write_edges_file(const tgraph *t, const char *path)
{
    io_edges_meta m = {0};
    m.version = 1; m.scale = 10; m.edgefactor = 6;
    m.nvertices = 1024; m.nedges = 6144; m.seed = 11;
    m.rmat_a = 0.57; m.rmat_b = 0.19; m.rmat_c = 0.19;
    snprintf(m.generator, sizeof m.generator, "mpi_kern");
    io_edges_writer *w = NULL;
    int64_t first, count;
    g5_range_split(t->m, rank_, nranks_, &first, &count);
    int rc = io_edges_create(MPI_COMM_WORLD, path, &m, 1, &w);
    if (rc == G5_OK) rc = io_edges_write_slab(w, first, count, t->e + 2 * first, t->w + first);
    if (rc == G5_OK) rc = io_edges_commit(&w, 7);
    else io_edges_abort(&w);
    return rc;
}

static int file_streaming_builds_the_same_csr(void)
{
    int ok = 1;
    tgraph t;
    hub_graph(&t);
    char path[96];
    long id = rank_ == 0 ? (long)getpid() : 0;
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/g500-mpi-kern-%ld.h5", id);
    int rc = write_edges_file(&t, path);
    MT_CHECK(rc == G5_OK, "writing %s: %s", path, g5_error_msg());
    io_edges *ef = NULL;
    if (rc == G5_OK) rc = io_edges_open(MPI_COMM_WORLD, path, &ef);
    for (int k = 0; rc == G5_OK && k < 3; k++) {
        kern_dist *d = NULL;
        rc = g5_agree(MPI_COMM_WORLD, make_dist(MPI_COMM_WORLD, k, &t, &d));
        for (int c = 0; rc == G5_OK && c < 2; c++) {
            int64_t chunk = c ? 300 : 0;
            char what[64];
            snprintf(what, sizeof what, "file, distribution %d, chunk %lld", k, (long long)chunk);
            kern_graph *g = NULL;
            double rd = -1;
            rc = kern_graph_build_file(MPI_COMM_WORLD, d, ef, chunk, &rd, &g);
            MT_CHECK(rc == G5_OK, "%s: %s", what, g5_error_msg());
            if (rc == G5_OK) {
                ok &= csr_matches_serial(g, &t, what);
                double ph[6];
                kern_graph_build_times(g, ph);
                MT_CHECK(rd >= 0 && ph[3] == rd, "%s: read seconds %g, phases say %g", what, rd, ph[3]);
            }
            kern_graph_free(&g);
        }
        kern_dist_free(&d);
    }
    /* a placement whose isolated vertex has an edge in the file */
    if (rc == G5_OK) {
        /* vertex 5 gets the last label, outside every rank's range */
        int64_t *label = malloc(t.n * sizeof(int64_t)), off[65];
        for (int64_t v = 0; v < t.n; v++) label[v] = v < 5 ? v : v == 5 ? t.n - 1 : v - 1;
        for (int r = 0; r <= nranks_; r++) off[r] = (t.n - 1) * r / nranks_;
        kern_dist *d = NULL;
        kern_graph *g = NULL;
        double rd;
        rc = g5_agree(MPI_COMM_WORLD, kern_dist_create_placement(MPI_COMM_WORLD, t.n, label, off, "test", &d));
        free(label);
        if (rc == G5_OK) {
            int st = g5_agree(MPI_COMM_WORLD, kern_graph_build_file(MPI_COMM_WORLD, d, ef, 100, &rd, &g));
            MT_CHECK(st == G5_ERR_MISMATCH, "an edge of an isolated vertex: expected a mismatch, got %d (%s)",
                     st, g5_error_msg());
            MT_CHECK(strstr(g5_error_msg(), "isolated") != NULL, "message names the problem: '%s'", g5_error_msg());
            MT_CHECK(g == NULL, "no graph on failure");
        }
        kern_dist_free(&d);
    }
    io_edges_close(&ef);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) unlink(path);
    tgraph_free(&t);
    return ok && rc == G5_OK;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
    /* Two threads per rank at 1 and 2 ranks (the threaded paths are tested);
     * one at 4 ranks, where 8 spinning threads on this 2-core machine would
     * only measure the scheduler. */
    omp_set_num_threads(nranks_ <= 2 ? 2 : 1);
    MT_RUN(small_sparse_graph);
    MT_RUN(odd_vertex_count);
    MT_RUN(rmat_graph_uses_both_directions);
    MT_RUN(out_of_range_edge_fails_on_every_rank);
    MT_RUN(fewer_roots_than_asked_on_tiny_graph);
    MT_RUN(bfs_reuse_leaves_no_stale_parent);
    MT_RUN(csr_is_exact_for_any_chunk_and_distribution);
    MT_RUN(csr_is_exact_with_tied_weights_in_long_rows);
    MT_RUN(block_rows_follow_the_peak);
    MT_RUN(csr_is_exact_with_eight_byte_records);
    MT_RUN(file_streaming_builds_the_same_csr);
    return mt_finish();
}
