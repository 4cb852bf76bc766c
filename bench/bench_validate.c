/* SPDX-License-Identifier: MIT */
/*
 * bench_validate.c - throughput of the BFS and SSSP validators
 * (kernels/validate_core.c), one key or a batch of keys per pass.
 *
 * Every rank generates the whole list (R-MAT, A=.57 B=C=.19, edgefactor 16,
 * a pure function of the edge index, ids scrambled by an odd multiplier
 * modulo 2^scale) or reads it from an edges file, builds a CSR and computes
 * a BFS tree and a Dijkstra tree serially (untimed), then the validators
 * run on the rank's block of vertices and read the rank's block of edges
 * from memory (generated list) or from the file, as `g500 run` does. With
 * KEYS, each batch size K is timed too: K copies of the tree added to one
 * batch (kern_vbatch_add, the per-key part) and one pass over the edges
 * for all of them; the time per key is (adds + pass) / K. Prints the best
 * of REPEATS. Memory: about 60 bytes per edge per rank plus 8 bytes per
 * vertex and key, so keep SCALE <= 20 when several ranks share one machine.
 *
 * Usage: mpirun -np P bench_validate [SCALE|EDGES.h5] [REPEATS] [KEYS...]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "kern_validate.h"
#include "rep_run.h"

static int64_t (*E)[2];
static float *W;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void rmat(int scale, int64_t m)
{
    int64_t n = (int64_t)1 << scale;
    #pragma omp parallel for schedule(static)
    for (int64_t e = 0; e < m; e++) {
        uint64_t s = (uint64_t)e * 0x9e3779b97f4a7c15ULL;
        int64_t u = 0, v = 0;
        for (int b = 0; b < scale; b++) {
            double r = (double)(mix(s + (uint64_t)b) >> 11) / 9007199254740992.0;
            int q = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
            u = 2 * u + (q >> 1);
            v = 2 * v + (q & 1);
        }
        E[e][0] = (int64_t)(((uint64_t)u * 0x5bd1e995ULL + 12345) & (uint64_t)(n - 1));
        E[e][1] = (int64_t)(((uint64_t)v * 0x5bd1e995ULL + 12345) & (uint64_t)(n - 1));
        W[e] = (float)(mix(s ^ 0xabcdefULL) >> 40) / 16777216.0f;
    }
}

static int file_read(void *ctx, int64_t first, int64_t count, int64_t *edges, float *weights)
{
    return io_edges_read_slab(ctx, first, count, edges, weights);
}

/* Best of reps: K copies of the tree (dist NULL: BFS) in one batch, one
 * pass; the seconds per key, and in *adds and *pass the parts of that best
 * repetition (seconds per batch). */
static double batch_per_key(const kern_edge_reader *rd, int K, int reps, int64_t root,
                            const int64_t *par, const float *dist, int64_t want, double *adds,
                            double *pass)
{
    double best = 1e30;
    kern_vbatch *b = NULL;
    if (kern_vbatch_create(MPI_COMM_WORLD, rd->nvertices, K, dist != NULL, &b) != G5_OK)
        return -1;
    int st[KERN_VBATCH_MAX];
    int64_t ne[KERN_VBATCH_MAX];
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = G5_OK;
        for (int k = 0; k < K && rc == G5_OK; k++)
            rc = kern_vbatch_add(b, root, par, dist, NULL, 0);
        double t1 = MPI_Wtime();
        if (rc == G5_OK)
            rc = kern_vbatch_check(b, rd, st, ne);
        double t = MPI_Wtime() - t0;
        for (int k = 0; k < K && rc == G5_OK; k++)
            if (st[k] != G5_OK || ne[k] != want)
                rc = G5_ERR_VALIDATE;
        if (rc != G5_OK) {
            fprintf(stderr, "batch of %d: %s\n", K, g5_error_msg());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (t < best) {
            best = t;
            *adds = t1 - t0;
            *pass = t - (t1 - t0);
        }
    }
    kern_vbatch_free(&b);
    return best / K;
}

static int mem_read(void *ctx, int64_t first, int64_t count, int64_t *edges, float *weights)
{
    (void)ctx;
    memcpy(edges, E[first], (size_t)count * 2 * sizeof(int64_t));
    if (weights)
        memcpy(weights, W + first, (size_t)count * sizeof(float));
    return G5_OK;
}

/* binary heap of (dist, vertex) with lazy deletion */
typedef struct { double d; int64_t v; } hitem;
static void hpush(hitem *h, int64_t *n, hitem x)
{
    int64_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].d > x.d) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
    h[i] = x;
}
static hitem hpop(hitem *h, int64_t *n)
{
    hitem top = h[0], x = h[--*n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1].d < h[c].d) c++;
        if (h[c].d >= x.d) break;
        h[i] = h[c]; i = c;
    }
    h[i] = x;
    return top;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *path = argc > 1 && strstr(argv[1], ".h5") ? argv[1] : NULL;
    int scale = argc > 1 && !path ? atoi(argv[1]) : 18, reps = argc > 2 ? atoi(argv[2]) : 3;
    io_edges *ef = NULL;
    if (path) {
        if (io_edges_open(MPI_COMM_WORLD, path, &ef) != G5_OK) {
            if (!rank) fprintf(stderr, "%s\n", g5_error_msg());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        scale = io_edges_get_meta(ef)->scale;
    }
    int64_t n = (int64_t)1 << scale, m = path ? io_edges_get_meta(ef)->nedges : 16 * n;
    E = malloc((size_t)m * sizeof *E);
    W = malloc((size_t)m * sizeof *W);
    int64_t *off = calloc((size_t)n + 1, sizeof *off), *adj = malloc((size_t)m * 2 * sizeof *adj);
    float *aw = malloc((size_t)m * 2 * sizeof *aw);
    int64_t *par = malloc((size_t)n * sizeof *par), *q = malloc((size_t)n * sizeof *q);
    float *dist = malloc((size_t)n * sizeof *dist);     /* float32 sums, as the kernel's */
    hitem *heap = malloc((size_t)m * 2 * sizeof *heap);
    if (path) {
        for (int64_t e = 0; e < m; e += IO_EDGES_CHUNK_ROWS) {
            int64_t c = m - e < IO_EDGES_CHUNK_ROWS ? m - e : IO_EDGES_CHUNK_ROWS;
            if (io_edges_read_slab(ef, e, c, E[e], W + e) != G5_OK) {
                if (!rank) fprintf(stderr, "%s\n", g5_error_msg());
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    } else {
        rmat(scale, m);
    }
    for (int64_t e = 0; e < m; e++) { off[E[e][0] + 1]++; off[E[e][1] + 1]++; }
    for (int64_t v = 0; v < n; v++) off[v + 1] += off[v];
    int64_t *pos = malloc((size_t)n * sizeof *pos);
    memcpy(pos, off, (size_t)n * sizeof *pos);
    for (int64_t e = 0; e < m; e++) {
        adj[pos[E[e][0]]] = E[e][1]; aw[pos[E[e][0]]++] = W[e];
        adj[pos[E[e][1]]] = E[e][0]; aw[pos[E[e][1]]++] = W[e];
    }
    int64_t root = E[0][0] != E[0][1] ? E[0][0] : E[1][0];
    /* BFS */
    for (int64_t v = 0; v < n; v++) par[v] = -1;
    int64_t qh = 0, qt = 0;
    par[root] = root; q[qt++] = root;
    while (qh < qt) {
        int64_t u = q[qh++];
        for (int64_t k = off[u]; k < off[u + 1]; k++)
            if (par[adj[k]] == -1) { par[adj[k]] = u; q[qt++] = adj[k]; }
    }
    int64_t first, count;
    g5_range_split(n, rank, p, &first, &count);
    kern_edge_reader rd = {.nvertices = n, .nedges = m, .chunk = 0, .read = mem_read};
    if (path)
        rd = (kern_edge_reader){.nvertices = n, .nedges = m, .chunk = IO_EDGES_CHUNK_ROWS,
                                .read = file_read, .ctx = ef};
    double bk[2][16], ba[2][16], bp[2][16];
    int nk = argc > 3 ? argc - 3 : 0;
    nk = nk > 16 ? 16 : nk;
    double tb = 1e30, ts = 1e30;
    int64_t nedge = 0;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = kern_validate_reader(MPI_COMM_WORLD, &rd, root, par + first, NULL, NULL, 0, &nedge);
        double t = MPI_Wtime() - t0;
        if (rc != G5_OK) { if (!rank) fprintf(stderr, "BFS: %s\n", g5_error_msg()); MPI_Abort(MPI_COMM_WORLD, 1); }
        if (t < tb) tb = t;
    }
    for (int i = 0; i < nk; i++)
        bk[0][i] = batch_per_key(&rd, atoi(argv[3 + i]), reps, root, par + first, NULL, nedge,
                                 &ba[0][i], &bp[0][i]);
    /* Dijkstra */
    for (int64_t v = 0; v < n; v++) { par[v] = -1; dist[v] = INFINITY; }
    int64_t hn = 0;
    dist[root] = 0; par[root] = root;
    hpush(heap, &hn, (hitem){0, root});
    while (hn) {
        hitem x = hpop(heap, &hn);
        if (x.d > dist[x.v]) continue;
        for (int64_t k = off[x.v]; k < off[x.v + 1]; k++) {
            float nd = (float)x.d + aw[k];
            if (adj[k] != x.v && nd < dist[adj[k]]) {
                dist[adj[k]] = nd; par[adj[k]] = x.v;
                hpush(heap, &hn, (hitem){nd, adj[k]});
            }
        }
    }
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = kern_validate_reader(MPI_COMM_WORLD, &rd, root, par + first, dist + first, NULL, 0,
                                      &nedge);
        double t = MPI_Wtime() - t0;
        if (rc != G5_OK) { if (!rank) fprintf(stderr, "SSSP: %s\n", g5_error_msg()); MPI_Abort(MPI_COMM_WORLD, 1); }
        if (t < ts) ts = t;
    }
    for (int i = 0; i < nk; i++)
        bk[1][i] = batch_per_key(&rd, atoi(argv[3 + i]), reps, root, par + first, dist + first, nedge,
                                 &ba[1][i], &bp[1][i]);
    if (!rank) {
        printf("SCALE %d ranks %d %s: M=%lld nedge=%lld  BFS validate %.3f s (%.1f M input edges/s)"
               "  SSSP validate %.3f s (%.1f M input edges/s)\n", scale, p,
               path ? "file" : "memory", (long long)m, (long long)nedge, tb, m / tb / 1e6, ts,
               m / ts / 1e6);
        for (int i = 0; i < nk; i++)
            printf("  batch of %2d keys: per key BFS %.3f s (adds %.3f s, pass %.3f s), SSSP %.3f s"
                   " (adds %.3f s, pass %.3f s)\n", atoi(argv[3 + i]), bk[0][i], ba[0][i], bp[0][i],
                   bk[1][i], ba[1][i], bp[1][i]);
    }
    io_edges_close(&ef);
    MPI_Finalize();
    return 0;
}
