/* SPDX-License-Identifier: MIT */
/*
 * kern_testgraph.h - pieces the kernel MPI tests share (tests/mpi/mpi_kern*.c):
 * the xorshift64 generator of their random graphs, the serial adjacency
 * that their reference BFS and Dijkstra walk, the graph build from a global
 * edge list (each rank takes its block of the edges, as the driver reads
 * them), and the gather of block-distributed results onto every rank.
 * Header-only (static), test code.
 */
#ifndef G5_KERN_TESTGRAPH_H
#define G5_KERN_TESTGRAPH_H

#include "kern.h"

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64 step (s != 0). */
static inline uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

/* The serial undirected adjacency of m edges e[2 m] with weights w[m] over
 * n vertices: self-loops dropped, duplicates kept, each edge in both rows.
 * Out (malloc'ed, caller frees): *off [n+1] row starts, *adj and *aw the
 * neighbours and weights in edge order. */
static inline void kt_index(int64_t n, int64_t m, const int64_t *e, const float *w,
                            int64_t **off, int64_t **adj, float **aw)
{
    int64_t *o = calloc((size_t)n + 1, sizeof(int64_t));
    for (int64_t i = 0; i < m; i++)
        if (e[2 * i] != e[2 * i + 1]) { o[e[2 * i] + 1]++; o[e[2 * i + 1] + 1]++; }
    for (int64_t v = 0; v < n; v++) o[v + 1] += o[v];
    int64_t *pos = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    memcpy(pos, o, (size_t)n * sizeof(int64_t));
    int64_t *a = malloc((size_t)(o[n] + 1) * sizeof(int64_t));
    float *aw_ = malloc((size_t)(o[n] + 1) * sizeof(float));
    for (int64_t i = 0; i < m; i++) {
        int64_t u = e[2 * i], v = e[2 * i + 1];
        if (u == v) continue;
        a[pos[u]] = v; aw_[pos[u]++] = w[i];
        a[pos[v]] = u; aw_[pos[v]++] = w[i];
    }
    free(pos);
    *off = o; *adj = a; *aw = aw_;
}

/* Collective on MPI_COMM_WORLD. Creates *d, the distribution `kind`
 * (KERN_DIST_CYCLIC or KERN_DIST_BLOCK) of n vertices, and builds *g from
 * this rank's block of the m edges e[2 m] with weights w[m]
 * (g5_range_split(m, rank, P)), plus, on the last rank only, the nx edges
 * xe[2 nx] with weights xw[nx]. Returns this rank's status (the caller
 * agrees); the caller frees *d and *g. */
static inline int kt_build(int kind, int64_t n, int64_t m, const int64_t *e, const float *w,
                           const int64_t *xe, const float *xw, int nx, kern_dist **d,
                           kern_graph **g)
{
    int P, me, rc;
    int64_t first, count;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    g5_range_split(m, me, P, &first, &count);
    rc = kind == KERN_DIST_CYCLIC ? kern_dist_create_cyclic(MPI_COMM_WORLD, n, d)
                                  : kern_dist_create_block(MPI_COMM_WORLD, n, d);
    if (rc)
        return rc;
    if (me != P - 1 || nx == 0)
        return kern_graph_build(MPI_COMM_WORLD, *d, e + 2 * first, w + first, count, g);
    int64_t *ce = malloc((size_t)(count + nx) * 2 * sizeof(int64_t));
    float *cw = malloc((size_t)(count + nx) * sizeof(float));
    memcpy(ce, e + 2 * first, (size_t)count * 2 * sizeof(int64_t));
    memcpy(cw, w + first, (size_t)count * sizeof(float));
    memcpy(ce + 2 * count, xe, (size_t)nx * 2 * sizeof(int64_t));
    memcpy(cw + count, xw, (size_t)nx * sizeof(float));
    rc = kern_graph_build(MPI_COMM_WORLD, *d, ce, cw, count + nx, g);
    free(ce);
    free(cw);
    return rc;
}

/* Collective on comm. Gathers the block-distributed array of n values
 * (this rank's g5_range_split(n, rank, P) part in `mine`) into all[n] on
 * every rank. */
static inline void kt_gather_block(MPI_Comm comm, int64_t n, const void *mine, void *all,
                                   MPI_Datatype type)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int *c = malloc((size_t)P * sizeof(int)), *o = malloc((size_t)P * sizeof(int));
    for (int r = 0; r < P; r++) {
        int64_t f, k;
        g5_range_split(n, r, P, &f, &k);
        c[r] = (int)k;
        o[r] = (int)f;
    }
    MPI_Allgatherv(mine, c[me], type, all, c, o, type, comm);
    free(c);
    free(o);
}

#endif
