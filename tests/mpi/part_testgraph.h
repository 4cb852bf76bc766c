/* SPDX-License-Identifier: MIT */
/*
 * part_testgraph.h - the graph the placement MPI tests share
 * (tests/mpi/mpi_part*.c): a skewed random graph of N = 4096 vertices and
 * M = 8 N tuples (R-MAT-like quadrant choice, scrambled ids), its
 * components by union-find (ids ordered by size, then smallest member),
 * and a rank map of R = 16 ranks, two per node, on 8 nodes of a two-level
 * tree (hops 1 under one leaf switch, 3 across). Every rank builds the
 * same whole graph; tests take slabs of it. Header-only (static), test code.
 */
#ifndef G5_PART_TESTGRAPH_H
#define G5_PART_TESTGRAPH_H

#include <stdint.h>
#include <stdlib.h>

#define R 16
static int64_t N = 4096, M, C, *E, *label, *cv, *ce;
static int rank_node[R], hops[64];

static int64_t find(int64_t *p, int64_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

/* A skewed random graph (R-MAT-like quadrant choice) with a scrambled id
 * map; components by union-find, ids ordered by size then smallest member. */
static void build_graph(void)
{
    uint64_t s = 99;
    int64_t *p = malloc(N * sizeof *p), *size = calloc(N, sizeof *size), *first = malloc(N * sizeof *first);
    int64_t *order = malloc(N * sizeof *order), n = 0, *cid = malloc(N * sizeof *cid);
    M = 8 * N;
    E = malloc(2 * M * sizeof *E);
    for (int64_t e = 0; e < M; e++) {
        int64_t u = 0, v = 0;
        for (int b = 0; b < 12; b++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            double x = (double)(s >> 11) / 9007199254740992.0;
            int q = x < 0.57 ? 0 : x < 0.76 ? 1 : x < 0.95 ? 2 : 3;
            u = 2 * u + (q >> 1), v = 2 * v + (q & 1);
        }
        E[2 * e] = (u * 2654435761LL + 7) % N;
        E[2 * e + 1] = (v * 2654435761LL + 7) % N;
    }
    for (int64_t i = 0; i < N; i++)
        p[i] = i, first[i] = -1;
    for (int64_t e = 0; e < M; e++) {
        int64_t a = find(p, E[2 * e]), b = find(p, E[2 * e + 1]);
        if (a != b)
            p[a < b ? b : a] = a < b ? a : b;
    }
    int64_t *deg = calloc(N, sizeof *deg);
    for (int64_t e = 0; e < M; e++)
        if (E[2 * e] != E[2 * e + 1])
            deg[E[2 * e]]++, deg[E[2 * e + 1]]++;
    for (int64_t v = 0; v < N; v++)
        if (deg[v]) {
            int64_t r = find(p, v);
            if (size[r]++ == 0)
                first[r] = v, order[n++] = r;
        }
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = i; j > 0 && (size[order[j - 1]] < size[order[j]] ||
                                      (size[order[j - 1]] == size[order[j]] && first[order[j - 1]] > first[order[j]])); j--) {
            int64_t t = order[j - 1];
            order[j - 1] = order[j], order[j] = t;
        }
    C = n;
    cv = calloc(C + 1, sizeof *cv);
    ce = calloc(C + 1, sizeof *ce);
    label = malloc(N * sizeof *label);
    for (int64_t i = 0; i < n; i++)
        cid[order[i]] = i;
    for (int64_t v = 0; v < N; v++) {
        label[v] = deg[v] ? cid[find(p, v)] : -1;
        if (deg[v])
            cv[label[v]]++;
    }
    for (int64_t e = 0; e < M; e++)
        if (E[2 * e] != E[2 * e + 1])
            ce[label[E[2 * e]]]++;
    for (int r = 0; r < R; r++)
        rank_node[r] = r / 2;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            hops[a * 8 + b] = a == b ? 0 : a / 4 == b / 4 ? 1 : 3;
    free(p), free(size), free(first), free(order), free(cid), free(deg);
}

#endif
