/* SPDX-License-Identifier: MIT */
/*
 * bench_validate.c - throughput of the BFS and SSSP validators
 * (kernels/validate_core.c) on an in-memory R-MAT edge list.
 *
 * Every rank generates the whole list (R-MAT, A=.57 B=C=.19, edgefactor 16,
 * a pure function of the edge index, ids scrambled by an odd multiplier
 * modulo 2^scale), builds a CSR and computes a BFS tree and a Dijkstra tree
 * serially (untimed), then the validators run on the rank's block of
 * vertices and read the rank's block of edges from memory. Prints validated
 * input edges per second. Memory: about 60 bytes per edge per rank, so keep
 * SCALE <= 20 when several ranks share one machine.
 *
 * Usage: mpirun -np P bench_validate [SCALE] [REPEATS]
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
    int scale = argc > 1 ? atoi(argv[1]) : 18, reps = argc > 2 ? atoi(argv[2]) : 3;
    int64_t n = (int64_t)1 << scale, m = 16 * n;
    E = malloc((size_t)m * sizeof *E);
    W = malloc((size_t)m * sizeof *W);
    int64_t *off = calloc((size_t)n + 1, sizeof *off), *adj = malloc((size_t)m * 2 * sizeof *adj);
    float *aw = malloc((size_t)m * 2 * sizeof *aw);
    int64_t *par = malloc((size_t)n * sizeof *par), *q = malloc((size_t)n * sizeof *q);
    float *dist = malloc((size_t)n * sizeof *dist);     /* float32 sums, as the kernel's */
    hitem *heap = malloc((size_t)m * 2 * sizeof *heap);
    rmat(scale, m);
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
    if (!rank)
        printf("SCALE %d ranks %d: M=%lld nedge=%lld  BFS validate %.3f s (%.1f M input edges/s)"
               "  SSSP validate %.3f s (%.1f M input edges/s)\n", scale, p, (long long)m,
               (long long)nedge, tb, m / tb / 1e6, ts, m / ts / 1e6);
    MPI_Finalize();
    return 0;
}
