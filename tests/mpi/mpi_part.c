/* SPDX-License-Identifier: MIT */
/*
 * mpi_part.c - the placement on P processes gives exactly the result of one
 * process (new labels, owners, offsets, metrics) for a fixed R, whatever the
 * slab split and the exchange round size; a bad edge on one rank fails the
 * call on every rank with the same message. Run at 1, 2 and 4 ranks.
 */
#include "common.h"
#include "mpitest.h"
#include "part.h"
#include "part_internal.h"

#include <stdlib.h>
#include <string.h>

#include "part_testgraph.h"

static int me, P, order = PART_ORDER_BFS, skip_metrics;

static int run_rounds(MPI_Comm comm, int64_t efirst, int64_t ecount, int64_t rounds_records, part_result **res)
{
    int pme, pn;
    int64_t vf, vc;
    MPI_Comm_rank(comm, &pme);
    MPI_Comm_size(comm, &pn);
    g5_range_split(N, pme, pn, &vf, &vc);
    part_input in = {
        .nvertices = N, .nedges_local = ecount, .edges = E + 2 * efirst, .label = label + vf,
        .ncomponents = C, .comp_vertices = cv, .comp_edges = ce, .nranks = R,
        .rank_node = rank_node, .nnodes = 8, .node_hops = hops, .tolerance = 0.05, .order = order,
        .exchange_records = rounds_records, .skip_metrics = skip_metrics,
    };
    return part_place(comm, &in, res);
}

static int run(MPI_Comm comm, int64_t efirst, int64_t ecount, part_result **res)
{
    return run_rounds(comm, efirst, ecount, 0, res);
}

static int same(const part_result *a, const part_result *whole)
{
    int ok = 1;
    MT_CHECK(memcmp(a->rank_offsets, whole->rank_offsets, (R + 1) * sizeof(int64_t)) == 0, "rank offsets differ");
    MT_CHECK(a->giant_root == whole->giant_root, "root %lld vs %lld", (long long)a->giant_root, (long long)whole->giant_root);
    for (int64_t i = 0; i < a->block_count; i++) {
        int64_t v = a->block_first + i;
        if (a->new_label[i] != whole->new_label[v] || a->owner[i] != whole->owner[v]) {
            MT_CHECK(0, "vertex %lld: label %lld owner %d, one process says %lld owner %d", (long long)v,
                     (long long)a->new_label[i], a->owner[i], (long long)whole->new_label[v], whole->owner[v]);
            break;
        }
    }
    for (int s = 0; s < PART_NSCHEMES; s++) {
        const part_metrics *x = &a->metrics[s], *y = &whole->metrics[s];
        MT_CHECK(x->cut_edges == y->cut_edges && x->hop_cut == y->hop_cut && x->total_edges == y->total_edges,
                 "%s: cut %lld/%lld hop %lld/%lld", part_scheme_name(s), (long long)x->cut_edges,
                 (long long)y->cut_edges, (long long)x->hop_cut, (long long)y->hop_cut);
        MT_CHECK(memcmp(x->rank_edges, y->rank_edges, R * sizeof(int64_t)) == 0, "%s rank edges differ", part_scheme_name(s));
        MT_CHECK(memcmp(x->rank_vertices, y->rank_vertices, R * sizeof(int64_t)) == 0, "%s rank vertices differ", part_scheme_name(s));
    }
    return ok;
}

static int same_result_for_any_process_count(void)
{
    int ok = 1;
    int64_t ef, ec;
    part_result *whole = NULL, *dist = NULL;
    MT_CHECK(run(MPI_COMM_SELF, 0, M, &whole) == G5_OK, "one process: %s", g5_error_msg());
    g5_range_split(M, me, P, &ef, &ec);
    /* many exchange rounds */
    MT_CHECK(run_rounds(MPI_COMM_WORLD, ef, ec, 777, &dist) == G5_OK, "%d processes: %s", P, g5_error_msg());
    if (ok) {
        ok = same(dist, whole);
        MT_CHECK(whole->giant_split, "the giant must be split over %d ranks", R);
        MT_CHECK(whole->metrics[0].edge_imbalance <= 1.05 + 1e-9, "edge imbalance %.4f", whole->metrics[0].edge_imbalance);
        MT_CHECK(whole->n_active < N, "some vertices are isolated");
    }
    part_result_free(&whole);
    part_result_free(&dist);
    return ok;
}

static int uneven_slabs_give_the_same_result(void)
{
    int ok = 1;
    part_result *whole = NULL, *dist = NULL;
    MT_CHECK(run(MPI_COMM_SELF, 0, M, &whole) == G5_OK, "one process: %s", g5_error_msg());
    /* Everything on the last process; the others read nothing. */
    MT_CHECK(run(MPI_COMM_WORLD, me == P - 1 ? 0 : M, me == P - 1 ? M : 0, &dist) == G5_OK, "%s", g5_error_msg());
    if (ok)
        ok = same(dist, whole);
    part_result_free(&whole);
    part_result_free(&dist);
    return ok;
}

static int id_degree_and_leaves_orders_are_the_same_for_any_process_count(void)
{
    int ok = 1;
    for (order = PART_ORDER_ID; order <= PART_ORDER_LEAVES && ok; order++)
        ok = same_result_for_any_process_count();
    order = PART_ORDER_BFS;
    return ok;
}

/* What kernel 1 asks for (skip_metrics): the same labels, owners and
 * offsets as a measured placement, the metrics left zero. */
static int a_placement_without_metrics_places_the_same(void)
{
    int ok = 1;
    int64_t ef, ec;
    part_result *whole = NULL, *bare = NULL;
    order = PART_ORDER_LEAVES;
    MT_CHECK(run(MPI_COMM_SELF, 0, M, &whole) == G5_OK, "one process: %s", g5_error_msg());
    g5_range_split(M, me, P, &ef, &ec);
    skip_metrics = 1;
    MT_CHECK(run(MPI_COMM_WORLD, ef, ec, &bare) == G5_OK, "%d processes: %s", P, g5_error_msg());
    skip_metrics = 0;
    order = PART_ORDER_BFS;
    if (ok) {
        MT_CHECK(whole->metrics[PART_PLACEMENT].total_edges > 0, "the measured placement has metrics");
        MT_CHECK(memcmp(bare->rank_offsets, whole->rank_offsets, (R + 1) * sizeof(int64_t)) == 0,
                 "rank offsets differ");
        for (int64_t i = 0; i < bare->block_count; i++) {
            int64_t v = bare->block_first + i;
            if (bare->new_label[i] != whole->new_label[v] || bare->owner[i] != whole->owner[v]) {
                MT_CHECK(0, "vertex %lld: label %lld owner %d, measured %lld owner %d", (long long)v,
                         (long long)bare->new_label[i], bare->owner[i], (long long)whole->new_label[v],
                         whole->owner[v]);
                break;
            }
        }
        for (int s = 0; s < PART_NSCHEMES; s++)
            MT_CHECK(bare->metrics[s].total_edges == 0 && bare->metrics[s].cut_edges == 0,
                     "%s measured though skipped", part_scheme_name(s));
    }
    part_result_free(&whole);
    part_result_free(&bare);
    return ok;
}

static int one_bad_edge_fails_on_every_rank(void)
{
    int ok = 1, rc;
    int64_t ef, ec, save;
    part_result *dist = NULL;
    g5_range_split(M, me, P, &ef, &ec);
    save = E[2 * (M - 1)];
    E[2 * (M - 1)] = N + 5;   /* in the last process's slab only */
    rc = run(MPI_COMM_WORLD, ef, ec, &dist);
    E[2 * (M - 1)] = save;
    MT_CHECK(rc == G5_ERR_MISMATCH, "expected a mismatch on every rank, got %d", rc);
    MT_CHECK(strstr(g5_error_msg(), "4101") != NULL, "the message must name the endpoint: %s", g5_error_msg());
    MT_CHECK(dist == NULL, "no result on failure");
    return ok;
}

/* A failure on the last rank before an exchange (here: its status going in)
 * makes every rank return that failure with its message, without a rank
 * waiting in a collective the failing one skipped (the run is under a
 * timeout), and the next exchange works again. */
static int a_failure_before_an_exchange_reaches_every_rank(void)
{
    int ok = 1, rc, st;
    int64_t *counts = calloc((size_t)P, sizeof(int64_t)), rec[2] = {me, me};
    int64_t *rbuf = NULL, nr = -1;
    counts[(me + 1) % P] = 1;
    st = me == P - 1 ? g5_error(G5_ERR_NOMEM, "rank %d could not build its records", me) : G5_OK;
    rc = px_exchange(MPI_COMM_WORLD, st, 2, me == P - 1 ? NULL : counts, me == P - 1 ? NULL : rec,
                     &rbuf, &nr, NULL);
    MT_CHECK(rc == G5_ERR_NOMEM, "every rank returns the failure, got %d", rc);
    MT_CHECK(strstr(g5_error_msg(), "could not build its records") != NULL, "the failing rank's message: %s",
             g5_error_msg());
    MT_CHECK(rbuf == NULL && nr == 0, "nothing received on failure");
    rc = px_exchange(MPI_COMM_WORLD, G5_OK, 2, counts, rec, &rbuf, &nr, NULL);
    MT_CHECK(rc == G5_OK && nr == 1, "the next exchange works: rc %d, %lld records", rc, (long long)nr);
    if (rc == G5_OK && nr == 1)
        MT_CHECK(rbuf[0] == (me + P - 1) % P && rbuf[1] == rbuf[0], "record from the previous rank: {%lld, %lld}",
                 (long long)rbuf[0], (long long)rbuf[1]);
    free(rbuf);
    free(counts);
    return ok;
}

/* The same for the sample sort: the last rank's failure going in (its
 * records are then not read) is every rank's result, and the next sort
 * gives the global order again. */
static int a_failure_before_a_sort_reaches_every_rank(void)
{
    int ok = 1, rc, st;
    int64_t rec[4] = {P - me, me, P - me, me + P}, *sorted = NULL, ns = -1, first = -1;
    st = me == P - 1 ? g5_error(G5_ERR_MISMATCH, "rank %d found a bad record", me) : G5_OK;
    rc = px_sort_pairs(MPI_COMM_WORLD, st, me == P - 1 ? NULL : rec, me == P - 1 ? 0 : 2, &sorted, &ns, &first);
    MT_CHECK(rc == G5_ERR_MISMATCH, "every rank returns the failure, got %d", rc);
    MT_CHECK(strstr(g5_error_msg(), "found a bad record") != NULL, "the failing rank's message: %s", g5_error_msg());
    MT_CHECK(sorted == NULL && ns == 0, "nothing sorted on failure");
    rc = px_sort_pairs(MPI_COMM_WORLD, G5_OK, rec, 2, &sorted, &ns, &first);
    MT_CHECK(rc == G5_OK, "the next sort works: %s", g5_error_msg());
    if (rc == G5_OK) {
        int64_t total = 0;
        MPI_Allreduce(&ns, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MT_CHECK(total == 2 * P, "%lld records sorted, expected %d", (long long)total, 2 * P);
        /* Keys P - r (two per rank): rank r's records are at positions
         * 2 (P - 1 - r) and 2 (P - 1 - r) + 1 of the global order. */
        for (int64_t i = 0; i < ns; i++) {
            int64_t g = first + i, r = P - 1 - g / 2;
            MT_CHECK(sorted[2 * i] == P - r && sorted[2 * i + 1] == r + (g % 2) * P,
                     "position %lld holds {%lld, %lld}", (long long)g, (long long)sorted[2 * i],
                     (long long)sorted[2 * i + 1]);
        }
    }
    free(sorted);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    build_graph();
    MT_RUN(same_result_for_any_process_count);
    MT_RUN(uneven_slabs_give_the_same_result);
    MT_RUN(id_degree_and_leaves_orders_are_the_same_for_any_process_count);
    MT_RUN(a_placement_without_metrics_places_the_same);
    MT_RUN(one_bad_edge_fails_on_every_rank);
    MT_RUN(a_failure_before_an_exchange_reaches_every_rank);
    MT_RUN(a_failure_before_a_sort_reaches_every_rank);
    free(E), free(label), free(cv), free(ce);
    return mt_finish();
}
