/* SPDX-License-Identifier: MIT */
/*
 * mpi_search_faults.c - one rank runs out of memory inside a search, every
 * rank stops. kern_bfs_run grows its per-thread message and queue buffers,
 * the packed send buffer and (at P > 1) the receive buffer of its top-down
 * exchange (kern_exchange, comm.c) with realloc while it searches;
 * kern_sssp_run grows its buckets, lists and per-destination queues, and
 * its failure travels in the words every round exchanges (sssp.c). This
 * binary is linked with -Wl,--wrap=realloc (tests/module.mk), so the
 * library's realloc calls go through __wrap_realloc below, which makes the
 * k-th call on one chosen rank fail. For k = 0, 1, 2, ... until a search
 * makes fewer than k + 1 calls there, on a fresh workspace each time
 * (buffers keep their capacity across searches), each case checks that
 * every rank returns the same G5_ERR_NOMEM with the same message (no rank
 * left in a collective: the runner's timeout catches a hang), and that the
 * same workspace then searches correctly again: the reached set and the
 * Graph500 edge count equal those of a clean search (for SSSP: every
 * parent and distance, which do not depend on order). Run at 1, 2 and 4
 * ranks; the failing rank is the last one, so at P > 1 it is both a sender
 * and a receiver of the exchange. Production code is not changed for
 * this.
 */
#include "common.h"
#include "kern.h"
#include "mpitest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern_testgraph.h"

static int me, P;

/* ---- the realloc wrapper ------------------------------------------------ */
void *__real_realloc(void *p, size_t bytes);

static int armed;               /* this rank fails its fail_at-th call */
static long fail_at, calls;     /* calls: atomic, OpenMP threads realloc too */

void *__wrap_realloc(void *p, size_t bytes)
{
    if (armed && __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED) == fail_at) return NULL;
    return __real_realloc(p, bytes);
}

/* ---- the graph ------------------------------------------------------------ */
/* n vertices, a few hubs joined to many vertices (so the first top-down
 * levels send many messages at P > 1) plus random edges; every rank holds
 * the same edge list and builds from its block of it. */
enum { N = 4096, M = 40000, HUBS = 6 };

static void make_edges(int64_t *e, float *w)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (int64_t i = 0; i < M; i++) {
        int64_t u = (int64_t)(rng(&s) % N), v = (int64_t)(rng(&s) % N);
        if (i % 3 == 0) u = (int64_t)(rng(&s) % HUBS) * 97;   /* a hub */
        e[2 * i] = u;
        e[2 * i + 1] = v;
        w[i] = (float)(rng(&s) >> 40) * 0x1p-24f;
    }
}

/* The test graph, built from every rank's block of the list (cyclic).
 * Collective; the build's status, agreed. */
static int build_graph(kern_dist **d, kern_graph **g)
{
    int64_t *e = malloc(2 * (size_t)M * sizeof *e);
    float *w = malloc((size_t)M * sizeof *w);
    int rc = g5_agree(MPI_COMM_WORLD, e && w ? G5_OK : g5_error(G5_ERR_NOMEM, "no memory for the test graph"));
    if (rc == G5_OK) {
        make_edges(e, w);
        int64_t first, count;
        g5_range_split(M, me, P, &first, &count);
        rc = kern_dist_create_cyclic(MPI_COMM_WORLD, N, d);
        if (rc == G5_OK) rc = kern_graph_build(MPI_COMM_WORLD, *d, e + 2 * first, w + first, count, g);
    }
    free(e); free(w);
    return rc;
}

/* After a search with the fail_at-th realloc armed on the last rank
 * (status rc there): returns 1 when the failure was injected, and then
 * every rank must return G5_ERR_NOMEM with the same message; else 0, and
 * the search must have succeeded. Collective; clears *okp on a failed
 * check. */
static int injection_judged(int rc, long k, int *okp)
{
    int ok = 1;
    int injected = me == P - 1 && calls > k, any;
    MPI_Allreduce(&injected, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        MT_CHECK(rc == G5_ERR_NOMEM, "realloc %ld failed on rank %d: status %d, want %d", k,
                 P - 1, rc, G5_ERR_NOMEM);
        MT_CHECK(mt_same_everywhere(rc), "realloc %ld: the ranks return different statuses", k);
        MT_CHECK(mt_same_everywhere((int64_t)mt_hash(g5_error_msg())),
                 "realloc %ld: the ranks report different messages (here: %s)", k, g5_error_msg());
    } else {
        MT_CHECK(rc == G5_OK, "no injection (%ld calls) yet the search failed: %s", calls,
                 g5_error_msg());
    }
    if (!ok) *okp = 0;
    return any;
}

static int out_of_memory_in_a_search_stops_every_rank_and_the_next_search_is_right(void)
{
    int ok = 1;
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_bfs *b = NULL;
    int64_t *ref = NULL;
    int rc = build_graph(&d, &g);
    MT_CHECK(rc == G5_OK, "build: %s", g5_error_msg());
    if (rc) goto out;
    const int64_t root = 97, nl = kern_graph_nlocal(g);   /* hub 1 */

    /* the clean search */
    int64_t ref_nedge = -1;
    ref = malloc(((size_t)nl + 1) * sizeof *ref);
    rc = kern_bfs_create(g, &b);
    if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, kern_bfs_run(b, root, NULL));
    if (rc == G5_OK) rc = kern_reached_edges(g, kern_bfs_parent(b), &ref_nedge);
    MT_CHECK(rc == G5_OK && ref, "clean search: %s", g5_error_msg());
    if (rc || !ref) goto out;
    memcpy(ref, kern_bfs_parent(b), (size_t)nl * sizeof *ref);
    kern_bfs_free(&b);

    int failures = 0;
    for (long k = 0; k < 100000; k++) {
        rc = kern_bfs_create(g, &b);
        MT_CHECK(rc == G5_OK, "create: %s", g5_error_msg());
        if (rc) break;
        armed = me == P - 1;
        fail_at = k;
        calls = 0;
        rc = kern_bfs_run(b, root, NULL);
        armed = 0;
        int any = injection_judged(rc, k, &ok);
        failures += any;
        /* the same workspace searches again, unharmed */
        int rc2 = g5_agree(MPI_COMM_WORLD, kern_bfs_run(b, root, NULL));
        int64_t nedge = -1;
        if (rc2 == G5_OK) rc2 = kern_reached_edges(g, kern_bfs_parent(b), &nedge);
        MT_CHECK(rc2 == G5_OK, "search after realloc %ld failed: %s", k, g5_error_msg());
        if (rc2 == G5_OK) {
            const int64_t *par = kern_bfs_parent(b);
            int64_t wrong = 0;
            for (int64_t v = 0; v < nl; v++) wrong += (par[v] >= 0) != (ref[v] >= 0);
            MT_CHECK(wrong == 0, "after realloc %ld failed: %lld vertices reached differently", k,
                     (long long)wrong);
            MT_CHECK(nedge == ref_nedge, "after realloc %ld failed: %lld edges, clean %lld", k,
                     (long long)nedge, (long long)ref_nedge);
        }
        kern_bfs_free(&b);
        if (!any || !ok) break;
    }
    /* a search that allocates nothing would make this test vacuous */
    MT_CHECK(failures > 0, "no realloc was made inside the search");
out:
    armed = 0;
    kern_bfs_free(&b);
    kern_graph_free(&g);
    kern_dist_free(&d);
    free(ref);
    return ok;
}

/* The SSSP counterpart: the k-th realloc of a search fails on the last
 * rank, for every k, on a fresh workspace each time. */
static int out_of_memory_in_sssp_stops_every_rank_and_the_next_search_is_right(void)
{
    int ok = 1;
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_sssp *s = NULL;
    int64_t *ref = NULL, *par = NULL;
    float *rd = NULL, *dist = NULL;
    int rc = build_graph(&d, &g);
    MT_CHECK(rc == G5_OK, "build: %s", g5_error_msg());
    if (rc) goto out;
    const int64_t root = 97, nl = kern_graph_nlocal(g);
    const double delta = 0.01;
    ref = malloc(((size_t)nl + 1) * sizeof *ref);
    par = malloc(((size_t)nl + 1) * sizeof *par);
    rd = malloc(((size_t)nl + 1) * sizeof *rd);
    dist = malloc(((size_t)nl + 1) * sizeof *dist);
    if (!ref || !par || !rd || !dist) { MT_CHECK(0, "no memory for the results"); goto out; }

    rc = kern_sssp_create(g, delta, &s);
    if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(s, root));
    MT_CHECK(rc == G5_OK, "clean search: %s", g5_error_msg());
    if (rc) goto out;
    kern_sssp_result(s, ref, rd);
    kern_sssp_free(&s);

    int failures = 0;
    for (long k = 0; k < 100000; k++) {
        rc = kern_sssp_create(g, delta, &s);
        MT_CHECK(rc == G5_OK, "create: %s", g5_error_msg());
        if (rc) break;
        armed = me == P - 1;
        fail_at = k;
        calls = 0;
        rc = kern_sssp_run(s, root);
        armed = 0;
        int any = injection_judged(rc, k, &ok);
        failures += any;
        int rc2 = g5_agree(MPI_COMM_WORLD, kern_sssp_run(s, root));
        MT_CHECK(rc2 == G5_OK, "search after realloc %ld failed: %s", k, g5_error_msg());
        if (rc2 == G5_OK) {
            kern_sssp_result(s, par, dist);
            int64_t wrong = 0;
            for (int64_t v = 0; v < nl; v++)
                wrong += par[v] != ref[v] || memcmp(&dist[v], &rd[v], sizeof(float)) != 0;
            MT_CHECK(wrong == 0, "after realloc %ld failed: %lld vertices differ from the clean search",
                     k, (long long)wrong);
        }
        kern_sssp_free(&s);
        if (!any || !ok) break;
    }
    MT_CHECK(failures > 0, "no realloc was made inside the search");
out:
    armed = 0;
    kern_sssp_free(&s);
    kern_graph_free(&g);
    kern_dist_free(&d);
    free(ref); free(par); free(rd); free(dist);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MT_RUN(out_of_memory_in_a_search_stops_every_rank_and_the_next_search_is_right);
    MT_RUN(out_of_memory_in_sssp_stops_every_rank_and_the_next_search_is_right);
    return mt_finish();
}
