/* SPDX-License-Identifier: MIT */
/*
 * validate_testgraph.h - the graph, the serial reference trees and the
 * validator harness the validation MPI tests share (tests/mpi/mpi_validate*.c).
 *
 * The graph (every rank builds the same list): a random component on 70
 * vertices, a second one on 20, 10 isolated vertices, self-loops (also on an
 * isolated vertex), duplicate edges in both orientations with larger
 * weights, ids scrambled by v -> (37 v + 11) mod 100 so every rank owns part
 * of each component. The validators read it in chunks of 5 edges (many
 * chunks, uneven per rank) and in one chunk. Header-only (static), test code.
 */
#ifndef G5_VALIDATE_TESTGRAPH_H
#define G5_VALIDATE_TESTGRAPH_H

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "kern_validate.h"
#include "mpitest.h"

#define N 100
#define MAXE 800

static int64_t E[MAXE][2];
static float W[MAXE];
static int M;
static int64_t ROOT;
static int64_t bfs_parent[N], bfs_depth[N];
static int64_t sp_parent[N];
static float sp_dist[N];            /* float32 sums, as the kernel's */
static int64_t chunk = 5;
/* memory lent to the validators (kern_validate.h `work`); NULL: none */
static void *work;
static size_t work_bytes;

static uint64_t lcg = 12345;
static inline uint64_t rnd(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return lcg >> 33;
}
static inline int64_t perm(int64_t v) { return (37 * v + 11) % N; }

static inline void add(int64_t u, int64_t v, float w)
{
    E[M][0] = u;
    E[M][1] = v;
    W[M] = w;
    M++;
}

static inline float rndw(void) { return (float)(rnd() % 16777216) / 16777216.0f; }

static inline void build_graph(void)
{
    M = 0;
    for (int i = 0; i < 69; i++) /* a spanning path keeps the first component whole */
        add(perm(i), perm(i + 1), rndw());
    for (int i = 0; i < 150; i++)
        add(perm((int64_t)(rnd() % 70)), perm((int64_t)(rnd() % 70)), rndw());
    for (int i = 70; i < 89; i++)
        add(perm(i), perm(i + 1), rndw());
    for (int i = 0; i < 20; i++)
        add(perm(70 + (int64_t)(rnd() % 20)), perm(70 + (int64_t)(rnd() % 20)), rndw());
    add(perm(95), perm(95), 0.5f); /* self-loop on an isolated vertex */
    add(perm(3), perm(3), 0.25f);
    int base = M;
    for (int i = 0; i < 40; i++) { /* duplicates, reversed, heavier */
        int j = (int)(rnd() % (uint64_t)base);
        add(E[j][1], E[j][0], W[j] + 0.25f);
    }
    ROOT = perm(0);
}

/* The test graph (edges, weights, root), set aside while a test builds a
 * graph of its own in E, W and M, then put back. */
typedef struct saved_graph {
    int64_t e[MAXE][2];
    float w[MAXE];
    int m;
    int64_t root;
} saved_graph;

static inline void graph_save(saved_graph *g)
{
    memcpy(g->e, E, sizeof E);
    memcpy(g->w, W, sizeof W);
    g->m = M;
    g->root = ROOT;
}

static inline void graph_restore(const saved_graph *g)
{
    memcpy(E, g->e, sizeof E);
    memcpy(W, g->w, sizeof W);
    M = g->m;
    ROOT = g->root;
}

/* Serial BFS and Dijkstra on the whole list (every rank computes the same). */
static inline void serial_trees(void)
{
    for (int v = 0; v < N; v++) {
        bfs_parent[v] = -1;
        bfs_depth[v] = -1;
        sp_parent[v] = -1;
        sp_dist[v] = INFINITY;
    }
    int64_t queue[N], qh = 0, qt = 0;
    bfs_parent[ROOT] = ROOT;
    bfs_depth[ROOT] = 0;
    queue[qt++] = ROOT;
    while (qh < qt) {
        int64_t u = queue[qh++];
        for (int e = 0; e < M; e++)
            for (int s = 0; s < 2; s++) {
                int64_t a = E[e][s], b = E[e][1 - s];
                if (a == u && bfs_parent[b] == -1) {
                    bfs_parent[b] = u;
                    bfs_depth[b] = bfs_depth[u] + 1;
                    queue[qt++] = b;
                }
            }
    }
    int done[N] = {0};
    sp_dist[ROOT] = 0;
    sp_parent[ROOT] = ROOT;
    for (;;) {
        int64_t u = -1;
        for (int v = 0; v < N; v++)
            if (!done[v] && isfinite(sp_dist[v]) && (u < 0 || sp_dist[v] < sp_dist[u]))
                u = v;
        if (u < 0)
            break;
        done[u] = 1;
        for (int e = 0; e < M; e++)
            for (int s = 0; s < 2; s++) {
                int64_t a = E[e][s], b = E[e][1 - s];
                if (a == u && a != b && sp_dist[u] + W[e] < sp_dist[b]) {
                    sp_dist[b] = sp_dist[u] + W[e];
                    sp_parent[b] = u;
                }
            }
    }
}

static inline int64_t serial_teps_count(const int64_t *parent)
{
    int64_t c = 0;
    for (int e = 0; e < M; e++)
        if (E[e][0] != E[e][1] && parent[E[e][0]] != -1 && parent[E[e][1]] != -1)
            c++;
    return c;
}

static inline int adjacent(int64_t a, int64_t b)
{
    for (int e = 0; e < M; e++)
        if ((E[e][0] == a && E[e][1] == b) || (E[e][0] == b && E[e][1] == a))
            return 1;
    return 0;
}

static inline int has_child(const int64_t *parent, int64_t v)
{
    for (int x = 0; x < N; x++)
        if (x != v && parent[x] == v)
            return 1;
    return 0;
}

/* ---- in-memory reader ---------------------------------------------------- */
typedef struct memsrc {
    int fail_rank; /* this rank's read fails (tests agreement), -1: none */
} memsrc;

static inline int mem_read(void *ctx, int64_t first, int64_t count, int64_t *edges, float *weights)
{
    memsrc *s = ctx;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (s->fail_rank == rank)
        return g5_error(G5_ERR_IO, "memory edges: planted read failure on rank %d", rank);
    memcpy(edges, E[first], (size_t)count * 2 * sizeof(int64_t));
    if (weights)
        memcpy(weights, W + first, (size_t)count * sizeof(float));
    return G5_OK;
}

/* Run a validator on full (global) arrays: each rank passes its block. */
static inline int run_validate(const int64_t *parent, const float *dist, int64_t *nedge, int fail_rank)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int64_t first, count;
    g5_range_split(N, rank, p, &first, &count);
    memsrc src = {.fail_rank = fail_rank};
    kern_edge_reader rd = {.nvertices = N, .nedges = M, .chunk = chunk, .read = mem_read, .ctx = &src};
    g5_error_clear();
    return kern_validate_reader(MPI_COMM_WORLD, &rd, ROOT, parent + first, dist ? dist + first : NULL,
                                work, work_bytes, nedge);
}

/* Same status everywhere and the same message on every rank. */
static inline int same_message_everywhere(void)
{
    char msg[1024], root_msg[1024];
    snprintf(msg, sizeof msg, "%s", g5_error_msg());
    memcpy(root_msg, msg, sizeof msg);
    MPI_Bcast(root_msg, sizeof root_msg, MPI_CHAR, 0, MPI_COMM_WORLD);
    return strcmp(msg, root_msg) == 0;
}

static inline int expect_failure(const char *what, const int64_t *parent, const float *dist,
                          const char *check)
{
    int ok = 1;
    int64_t nedge = -7;
    int rc = run_validate(parent, dist, &nedge, -1);
    MT_CHECK(rc == G5_ERR_VALIDATE, "%s: status %d (%s), expected a validation failure", what, rc,
             g5_error_msg());
    char want[128];
    snprintf(want, sizeof want, "check '%s' failed", check);
    MT_CHECK(strstr(g5_error_msg(), want) != NULL, "%s: message '%s' does not name %s", what,
             g5_error_msg(), want);
    char rootstr[64];
    snprintf(rootstr, sizeof rootstr, "%s root %lld:", dist ? "SSSP" : "BFS", (long long)ROOT);
    MT_CHECK(strncmp(g5_error_msg(), rootstr, strlen(rootstr)) == 0, "%s: message '%s' does not start with '%s'",
             what, g5_error_msg(), rootstr);
    MT_CHECK(same_message_everywhere(), "%s: ranks disagree on the message", what);
    MT_CHECK(nedge == -7, "%s: nedge written on failure", what);
    return ok;
}


static inline int64_t sssp_leaf(void)
{
    for (int64_t x = 0; x < N; x++)
        if (x != ROOT && sp_parent[x] >= 0 && !has_child(sp_parent, x))
            return x;
    return -1;
}

/* MPI with the thread level of cli/main.c, the graph and its serial trees. */
static inline void validate_test_init(int *argc, char ***argv)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    build_graph();
    serial_trees();
}

#endif
