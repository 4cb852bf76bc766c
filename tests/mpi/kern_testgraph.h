/* SPDX-License-Identifier: MIT */
/*
 * kern_testgraph.h - pieces the kernel MPI tests share (tests/mpi/mpi_kern*.c):
 * the xorshift64 generator of their random graphs and the serial adjacency
 * that their reference BFS and Dijkstra walk. Header-only (static), test code.
 */
#ifndef G5_KERN_TESTGRAPH_H
#define G5_KERN_TESTGRAPH_H

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

#endif
