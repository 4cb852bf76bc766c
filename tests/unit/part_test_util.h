/* SPDX-License-Identifier: MIT */
/*
 * part_test_util.h - what the placement unit tests share (test_part.c,
 * test_part_io.c): a graph with its components computed here by a plain
 * union-find (independently of components/ and partition/), a machine of
 * R ranks on two-level switch trees, a reproducible random graph, and the
 * placement of a graph on a machine on one process (MPI_COMM_SELF; the
 * suites call MPI_Init). Header-only (static), test code.
 */
#ifndef G500_PART_TEST_UTIL_H
#define G500_PART_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "part.h"

/* A graph and its components, computed here by a plain union-find. */
struct graph {
    int64_t N, M, C;
    int64_t *E, *label, *cv, *ce;
};

static inline int64_t find(int64_t *p, int64_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

static inline void graph_init(struct graph *g, int64_t N, int64_t M, const int64_t *E)
{
    int64_t *p = malloc(N * sizeof *p), *size = calloc(N, sizeof *size), *minv = malloc(N * sizeof *minv);
    int64_t *roots = malloc(N * sizeof *roots), nr = 0;
    memset(g, 0, sizeof *g);
    g->N = N;
    g->M = M;
    g->E = malloc((M + 1) * 2 * sizeof *g->E);
    memcpy(g->E, E, M * 2 * sizeof *E);
    for (int64_t v = 0; v < N; v++)
        p[v] = v;
    for (int64_t e = 0; e < M; e++) {
        int64_t a = find(p, E[2 * e]), b = find(p, E[2 * e + 1]);
        if (a != b)
            p[a] = b;
    }
    for (int64_t v = 0; v < N; v++)
        minv[v] = -1;
    int64_t *has = calloc(N, sizeof *has);
    for (int64_t e = 0; e < M; e++)
        if (E[2 * e] != E[2 * e + 1])
            has[E[2 * e]] = has[E[2 * e + 1]] = 1;
    for (int64_t v = 0; v < N; v++)
        if (has[v]) {
            int64_t r = find(p, v);
            if (size[r]++ == 0)
                minv[r] = v, roots[nr++] = r;
        }
    /* Order roots by size descending, then smallest member. */
    for (int64_t i = 1; i < nr; i++)
        for (int64_t j = i; j > 0; j--) {
            int64_t a = roots[j - 1], b = roots[j];
            if (size[a] < size[b] || (size[a] == size[b] && minv[a] > minv[b])) {
                roots[j - 1] = b;
                roots[j] = a;
            }
        }
    g->C = nr;
    g->label = malloc(N * sizeof *g->label);
    g->cv = calloc(nr + 1, sizeof *g->cv);
    g->ce = calloc(nr + 1, sizeof *g->ce);
    int64_t *cid = malloc(N * sizeof *cid);
    for (int64_t i = 0; i < nr; i++)
        cid[roots[i]] = i;
    for (int64_t v = 0; v < N; v++) {
        g->label[v] = has[v] ? cid[find(p, v)] : -1;
        if (has[v])
            g->cv[g->label[v]]++;
    }
    for (int64_t e = 0; e < M; e++)
        if (E[2 * e] != E[2 * e + 1])
            g->ce[g->label[E[2 * e]]]++;
    free(p), free(size), free(minv), free(roots), free(has), free(cid);
}

static inline void graph_free(struct graph *g)
{
    free(g->E), free(g->label), free(g->cv), free(g->ce);
}

/* Nodes: K ranks per node, nodes in leaves of `leaf` nodes: hops 0 same
 * node, 1 same leaf, 3 otherwise. */
struct machine {
    int R, nnodes;
    int *rank_node, *hops;
};

static inline void machine_init(struct machine *m, int R, int K, int leaf)
{
    m->R = R;
    m->nnodes = (R + K - 1) / K;
    m->rank_node = malloc(R * sizeof(int));
    m->hops = malloc(m->nnodes * m->nnodes * sizeof(int));
    for (int r = 0; r < R; r++)
        m->rank_node[r] = r / K;
    for (int a = 0; a < m->nnodes; a++)
        for (int b = 0; b < m->nnodes; b++)
            m->hops[a * m->nnodes + b] = a == b ? 0 : (a / leaf == b / leaf ? 1 : 3);
}

static inline void machine_free(struct machine *m) { free(m->rank_node), free(m->hops); }

static int order_ = PART_ORDER_BFS;
static inline int place(const struct graph *g, const struct machine *m, double tol, part_result **res)
{
    part_input in = {
        .nvertices = g->N, .nedges_local = g->M, .edges = g->E, .label = g->label,
        .ncomponents = g->C, .comp_vertices = g->cv, .comp_edges = g->ce,
        .nranks = m->R, .rank_node = m->rank_node, .nnodes = m->nnodes,
        .node_hops = m->hops, .tolerance = tol, .order = order_,
    };
    return part_place(MPI_COMM_SELF, &in, res);
}

/* A reproducible random graph: a heavy-tailed core on `core` vertices, some
 * pairs and triples, the rest isolated; ids scattered by a multiplication. */
static inline int64_t scatter(int64_t v, int64_t N) { return (v * 40503 + 17) % N; } /* N a power of 2 */

static inline void random_graph(struct graph *g, int64_t N, int64_t core, int64_t M)
{
    int64_t *E = malloc((M + 64) * 2 * sizeof *E), m = 0;
    uint64_t s = 12345;
    for (int64_t e = 0; e < M; e++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t a = (int64_t)((s >> 33) % core), b;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        b = (int64_t)((s >> 33) % (core / (1 + (s & 7))));   /* skew toward low ids */
        if (e < core)
            a = e, b = e ? (int64_t)((s >> 40) % e) : 0;       /* a spanning tree */
        E[2 * m] = scatter(a, N), E[2 * m + 1] = scatter(b, N), m++;
    }
    /* 5 pairs, 3 triples, a self-loop on an isolated vertex. */
    for (int64_t k = 0; k < 5; k++)
        E[2 * m] = scatter(core + 2 * k, N), E[2 * m + 1] = scatter(core + 2 * k + 1, N), m++;
    for (int64_t k = 0; k < 3; k++) {
        int64_t b = core + 10 + 3 * k;
        E[2 * m] = scatter(b, N), E[2 * m + 1] = scatter(b + 1, N), m++;
        E[2 * m] = scatter(b + 2, N), E[2 * m + 1] = scatter(b + 1, N), m++;
    }
    E[2 * m] = E[2 * m + 1] = scatter(N - 1, N), m++;
    graph_init(g, N, m, E);
    free(E);
}

/* The case most tests start from: machine_init(m, R, K, leaf), then g
 * placed on it (tolerance 0.05, order_), which must succeed. The caller
 * ends with place_done. */
static inline part_result *place_ok(const struct graph *g, struct machine *m, int R, int K, int leaf)
{
    part_result *r = NULL;
    machine_init(m, R, K, leaf);
    cr_assert_eq(place(g, m, 0.05, &r), G5_OK, "%s", g5_error_msg());
    return r;
}

static inline void place_done(struct graph *g, struct machine *m, part_result **r)
{
    part_result_free(r);
    machine_free(m);
    graph_free(g);
}

#endif
