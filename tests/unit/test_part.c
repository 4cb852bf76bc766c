/* SPDX-License-Identifier: MIT */
/*
 * test_part.c - the placement on one process (MPI_COMM_SELF): hand-made
 * graphs whose right answer is known, and every property of the result
 * checked against a direct count made here, independently of partition/.
 * Multi-process behaviour (identical output for any P) is in
 * tests/mpi/mpi_part.c.
 */
#include <criterion/criterion.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "part.h"
#include "part_test_util.h"

static void setup(void) { MPI_Init(NULL, NULL); }
static void teardown(void) { MPI_Finalize(); }
TestSuite(part, .init = setup, .fini = teardown);

Test(part, relabelling_is_a_bijection_with_isolated_last_in_id_order)
{
    struct graph g;
    struct machine m;
    random_graph(&g, 1024, 600, 4000);
    part_result *r = place_ok(&g, &m, 8, 2, 2);
    char *seen = calloc(g.N, 1);
    int64_t n_active = 0, next_iso;
    for (int64_t v = 0; v < g.N; v++)
        n_active += g.label[v] >= 0;
    cr_assert_eq(r->n_active, n_active, "n_active %lld, direct count %lld", (long long)r->n_active, (long long)n_active);
    next_iso = n_active;
    for (int64_t v = 0; v < g.N; v++) {
        int64_t nl = r->new_label[v];
        cr_assert(nl >= 0 && nl < g.N, "vertex %lld has new label %lld out of range", (long long)v, (long long)nl);
        cr_assert(!seen[nl], "new label %lld given twice", (long long)nl);
        seen[nl] = 1;
        if (g.label[v] < 0) {
            cr_assert_eq(nl, next_iso++, "isolated vertex %lld must get the next id after n_active in id order", (long long)v);
            cr_assert_eq(r->owner[v], -1, "isolated vertex %lld has an owner", (long long)v);
        } else {
            cr_assert(nl < n_active, "active vertex %lld got %lld >= n_active", (long long)v, (long long)nl);
            cr_assert(r->owner[v] >= 0 && r->owner[v] < 8, "owner of %lld is %d", (long long)v, r->owner[v]);
        }
    }
    free(seen);
    place_done(&g, &m, &r);
}

Test(part, ranks_own_contiguous_ranges_with_giant_vertices_first)
{
    struct graph g;
    struct machine m;
    random_graph(&g, 1024, 600, 4000);
    part_result *r = place_ok(&g, &m, 8, 2, 2);
    cr_assert(r->giant_split, "a 600-vertex giant over 8 ranks must be split");
    cr_assert_eq(r->rank_offsets[0], 0);
    cr_assert_eq(r->rank_offsets[8], r->n_active, "offsets must end at n_active");
    for (int64_t v = 0; v < g.N; v++) {
        int o = r->owner[v];
        if (o < 0)
            continue;
        cr_assert(r->new_label[v] >= r->rank_offsets[o] && r->new_label[v] < r->rank_offsets[o + 1],
                  "vertex %lld owned by %d has label %lld outside its range", (long long)v, o, (long long)r->new_label[v]);
    }
    /* Giant first: every giant label on a rank is below every small one. */
    for (int k = 0; k < 8; k++) {
        int64_t max_giant = -1, min_small = INT64_MAX;
        for (int64_t v = 0; v < g.N; v++) {
            if (r->owner[v] != k)
                continue;
            if (g.label[v] == 0 && r->new_label[v] > max_giant)
                max_giant = r->new_label[v];
            if (g.label[v] > 0 && r->new_label[v] < min_small)
                min_small = r->new_label[v];
        }
        cr_assert(max_giant < min_small, "rank %d: a giant vertex (%lld) after a small one (%lld)",
                  k, (long long)max_giant, (long long)min_small);
    }
    place_done(&g, &m, &r);
}

Test(part, never_splits_a_small_component)
{
    struct graph g;
    struct machine m;
    random_graph(&g, 1024, 600, 4000);
    part_result *r = place_ok(&g, &m, 8, 1, 4);
    cr_assert_gt(g.C, 8, "the graph must have small components (has %lld)", (long long)g.C);
    for (int64_t c = 1; c < g.C; c++) {
        int owner = -2;
        int64_t lo = INT64_MAX, hi = -1;
        for (int64_t v = 0; v < g.N; v++)
            if (g.label[v] == c) {
                cr_assert(owner == -2 || owner == r->owner[v], "component %lld split between ranks %d and %d",
                          (long long)c, owner, r->owner[v]);
                owner = r->owner[v];
                lo = r->new_label[v] < lo ? r->new_label[v] : lo;
                hi = r->new_label[v] > hi ? r->new_label[v] : hi;
            }
        cr_assert_eq(hi - lo + 1, g.cv[c], "component %lld's labels are not contiguous", (long long)c);
    }
    place_done(&g, &m, &r);
}

Test(part, metrics_equal_a_direct_count_for_all_three_schemes)
{
    struct graph g;
    struct machine m;
    int R = 8;
    random_graph(&g, 1024, 600, 4000);
    part_result *r = place_ok(&g, &m, R, 2, 2);
    for (int s = 0; s < PART_NSCHEMES; s++) {
        int64_t cut = 0, hop = 0, tot = 0, *re = calloc(R, sizeof *re), *rv = calloc(R, sizeof *rv);
        for (int64_t v = 0; v < g.N; v++) {
            int64_t o = s == 0 ? r->owner[v] : s == 1 ? v % R : v / (g.N / R);
            if (o >= 0)
                rv[o]++;
        }
        for (int64_t e = 0; e < g.M; e++) {
            int64_t u = g.E[2 * e], v = g.E[2 * e + 1], ou, ov;
            if (u == v)
                continue;
            ou = s == 0 ? r->owner[u] : s == 1 ? u % R : u / (g.N / R);
            ov = s == 0 ? r->owner[v] : s == 1 ? v % R : v / (g.N / R);
            tot++;
            re[ou]++, re[ov]++;
            if (ou != ov)
                cut++, hop += m.hops[m.rank_node[ou] * m.nnodes + m.rank_node[ov]];
        }
        const part_metrics *M = &r->metrics[s];
        cr_expect_eq(M->total_edges, tot, "%s total", part_scheme_name(s));
        cr_expect_eq(M->cut_edges, cut, "%s cut %lld vs direct %lld", part_scheme_name(s), (long long)M->cut_edges, (long long)cut);
        cr_expect_eq(M->hop_cut, hop, "%s hop cut %lld vs direct %lld", part_scheme_name(s), (long long)M->hop_cut, (long long)hop);
        int64_t emax = 0, vmax = 0, vs = 0;
        for (int k = 0; k < R; k++) {
            cr_expect_eq(M->rank_edges[k], re[k], "%s rank %d edges", part_scheme_name(s), k);
            cr_expect_eq(M->rank_vertices[k], rv[k], "%s rank %d vertices", part_scheme_name(s), k);
            emax = re[k] > emax ? re[k] : emax;
            vmax = rv[k] > vmax ? rv[k] : vmax;
            vs += rv[k];
        }
        cr_expect_float_eq(M->edge_imbalance, (double)emax * R / (2.0 * tot), 1e-12, "%s edge imbalance", part_scheme_name(s));
        cr_expect_float_eq(M->vertex_imbalance, (double)vmax * R / (double)vs, 1e-12, "%s vertex imbalance", part_scheme_name(s));
        double slots = s == 0 ? (double)r->n_active : (double)g.N;
        cr_expect_float_eq(M->bytes_per_vertex, (slots * 28.25 + R * slots / 8) / g.N, 1e-9, "%s bytes per vertex", part_scheme_name(s));
        free(re), free(rv);
    }
    cr_expect_lt(r->metrics[0].bytes_per_vertex, r->metrics[1].bytes_per_vertex, "compaction must save state bytes");
    place_done(&g, &m, &r);
}

Test(part, balances_edges_within_tolerance_on_a_grid)
{
    /* A 40 x 40 grid: degrees <= 4, so a 5% tolerance is reachable. */
    int W = 40, R = 8;
    int64_t N = 2048, *E = malloc(2 * 2 * W * W * sizeof *E), m = 0;
    for (int i = 0; i < W; i++)
        for (int j = 0; j < W; j++) {
            if (j + 1 < W)
                E[2 * m] = scatter(i * W + j, N), E[2 * m + 1] = scatter(i * W + j + 1, N), m++;
            if (i + 1 < W)
                E[2 * m] = scatter(i * W + j, N), E[2 * m + 1] = scatter((i + 1) * W + j, N), m++;
        }
    struct graph g;
    struct machine mc;
    graph_init(&g, N, m, E);
    part_result *r = place_ok(&g, &mc, R, 1, 4);
    cr_expect_leq(r->metrics[0].edge_imbalance, 1.05, "edge imbalance %.4f over 5%%", r->metrics[0].edge_imbalance);
    /* A BFS order on a grid cuts far fewer edges than a scattered one. */
    cr_expect_lt(r->metrics[0].cut_edges * 3, r->metrics[1].cut_edges,
                 "BFS-order cut %lld should be far below cyclic %lld",
                 (long long)r->metrics[0].cut_edges, (long long)r->metrics[1].cut_edges);
    place_done(&g, &mc, &r);
    free(E);
}

/* Two 8-cliques joined by one bridge (a, b), b's id above all of A: the
 * BFS from a (highest degree, smallest id) puts all of A before b, and the
 * equal-weight cut separates A from B: exactly one cut edge. */
static void two_cliques(struct graph *g, int64_t *a_out)
{
    int64_t E[2 * 57], m = 0, A[8] = {3, 5, 9, 12, 20, 21, 30, 31}, B[8] = {33, 40, 41, 50, 51, 55, 60, 63};
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++) {
            E[2 * m] = A[i], E[2 * m + 1] = A[j], m++;
            E[2 * m] = B[j], E[2 * m + 1] = B[i], m++;
        }
    E[2 * m] = A[7], E[2 * m + 1] = B[0], m++;   /* bridge 31 - 33 */
    graph_init(g, 64, m, E);
    *a_out = A[7];
}

Test(part, cuts_two_cliques_at_their_bridge)
{
    struct graph g;
    struct machine mc;
    int64_t a;
    two_cliques(&g, &a);
    part_result *r = place_ok(&g, &mc, 2, 1, 1);   /* two nodes under different leaves: 3 hops */
    cr_expect_eq(r->giant_root, a, "root must be the highest-degree vertex %lld, got %lld", (long long)a, (long long)r->giant_root);
    cr_expect_eq(r->metrics[0].cut_edges, 1, "only the bridge should be cut, cut %lld", (long long)r->metrics[0].cut_edges);
    cr_expect_eq(r->metrics[0].hop_cut, 3, "the bridge crosses 3 switches");
    cr_expect_float_eq(r->metrics[0].edge_imbalance, 1.0, 1e-12, "both halves carry 57 endpoints");
    place_done(&g, &mc, &r);
}

Test(part, orders_pieces_along_the_switch_tree_walk)
{
    struct graph g;
    struct machine mc;
    part_result *r = NULL;
    int64_t a;
    two_cliques(&g, &a);
    machine_init(&mc, 4, 1, 2);
    /* Ranks 0 and 2 on node 1, ranks 1 and 3 on node 0: the walk is 1, 3, 0, 2. */
    mc.rank_node[0] = 1, mc.rank_node[1] = 0, mc.rank_node[2] = 1, mc.rank_node[3] = 0;
    cr_assert_eq(place(&g, &mc, 0.05, &r), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(r->owner[a], 1, "the first piece (holding the root) must go to rank 1, the first of the walk, not %d", r->owner[a]);
    cr_expect_eq(r->new_label[a], r->rank_offsets[1], "the root is the first vertex of its rank");
    place_done(&g, &mc, &r);
}

Test(part, keeps_a_small_largest_component_whole)
{
    /* Three triangles and a pair: component 0 fits one rank's share, so
     * nothing is split and LPT spreads the components. */
    int64_t E[] = {0, 1, 1, 2, 2, 0, 10, 11, 11, 12, 12, 10, 20, 21, 21, 22, 22, 20, 30, 31};
    struct graph g;
    struct machine mc;
    graph_init(&g, 32, 10, E);
    part_result *r = place_ok(&g, &mc, 2, 1, 2);
    cr_expect_eq(r->giant_split, 0, "a triangle must not be split over 2 ranks");
    cr_expect_eq(r->metrics[0].cut_edges, 0, "whole components cut nothing");
    cr_expect_eq(r->rank_offsets[1], 6, "triangles 0 and 2 on rank 0, triangle 1 and the pair on rank 1 -> 6, got %lld",
                 (long long)r->rank_offsets[1]);
    cr_expect_eq(r->metrics[0].rank_edges[0], 12);
    cr_expect_eq(r->metrics[0].rank_edges[1], 8);
    place_done(&g, &mc, &r);
}

Test(part, rejects_labels_that_disagree_with_the_edges)
{
    struct graph g;
    struct machine mc;
    part_result *r = NULL;
    int64_t a;
    two_cliques(&g, &a);
    machine_init(&mc, 2, 1, 1);
    /* Component table off by one vertex. */
    g.cv[0]++;
    cr_expect_eq(place(&g, &mc, 0.05, &r), G5_ERR_MISMATCH, "a wrong vertex count must be a mismatch");
    cr_expect(strstr(g5_error_msg(), "component 0") != NULL, "message: %s", g5_error_msg());
    g.cv[0]--;
    /* A vertex with edges labelled isolated. */
    g.label[3] = -1;
    cr_expect_eq(place(&g, &mc, 0.05, &r), G5_ERR_MISMATCH, "an isolated label on a vertex with edges");
    cr_expect(strstr(g5_error_msg(), "vertex 3") != NULL, "message: %s", g5_error_msg());
    g.label[3] = 0;
    /* An endpoint beyond N. */
    g.E[0] = 64;
    cr_expect_eq(place(&g, &mc, 0.05, &r), G5_ERR_MISMATCH, "an endpoint out of range");
    cr_expect(strstr(g5_error_msg(), "outside") != NULL, "message: %s", g5_error_msg());
    cr_expect_null(r, "no result on failure");
    machine_free(&mc);
    graph_free(&g);
}

Test(part, rejects_an_edge_between_two_components)
{
    /* Components {0,1} and {2,3}, but the edges say 0-2 and 1-3: degrees and
     * per-component sums still match, only the edge check can see it. */
    int64_t E[] = {0, 1, 2, 3};
    struct graph g;
    struct machine mc;
    part_result *r = NULL;
    graph_init(&g, 8, 2, E);
    machine_init(&mc, 2, 1, 1);
    g.E[1] = 2, g.E[2] = 1;
    cr_expect_eq(place(&g, &mc, 0.05, &r), G5_ERR_MISMATCH, "edges that join two components");
    cr_expect(strstr(g5_error_msg(), "joins components") != NULL, "message: %s", g5_error_msg());
    machine_free(&mc);
    graph_free(&g);
}

Test(part, a_graph_of_self_loops_is_all_isolated)
{
    int64_t E[] = {3, 3, 5, 5};
    struct graph g;
    struct machine mc;
    part_result *r = NULL;
    graph_init(&g, 8, 2, E);
    machine_init(&mc, 2, 1, 1);
    cr_assert_eq(g.C, 0, "self-loops make no component");
    cr_assert_eq(place(&g, &mc, 0.05, &r), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(r->n_active, 0);
    cr_expect_eq(r->rank_offsets[2], 0, "no rank owns anything");
    for (int v = 0; v < 8; v++) {
        cr_expect_eq(r->new_label[v], v, "isolated vertices keep id order");
        cr_expect_eq(r->owner[v], -1);
    }
    cr_expect_eq(r->metrics[0].total_edges, 0, "self-loops are not counted");
    cr_expect_eq(r->metrics[1].cut_edges, 0);
    place_done(&g, &mc, &r);
}

Test(part, leaves_order_keeps_each_leaf_with_its_neighbour)
{
    struct graph g;
    struct machine m;
    part_result *r = NULL, *plain = NULL;
    int R = 8;
    int64_t *deg, *nb, apart = 0, leaves = 0;
    random_graph(&g, 1024, 600, 1200);   /* sparse: many degree-1 vertices */
    machine_init(&m, R, 1, 4);
    order_ = PART_ORDER_LEAVES;
    cr_assert_eq(place(&g, &m, 0.05, &r), G5_OK, "%s", g5_error_msg());
    order_ = PART_ORDER_ID;
    cr_assert_eq(place(&g, &m, 0.05, &plain), G5_OK, "%s", g5_error_msg());
    order_ = PART_ORDER_BFS;
    cr_assert_eq(r->giant_hubs, 0, "this graph balances without moving hubs, so the order is kept whole");
    deg = calloc(g.N, sizeof *deg);
    nb = calloc(g.N, sizeof *nb);
    for (int64_t e = 0; e < g.M; e++)
        if (g.E[2 * e] != g.E[2 * e + 1])
            deg[g.E[2 * e]]++, deg[g.E[2 * e + 1]]++, nb[g.E[2 * e]] = g.E[2 * e + 1], nb[g.E[2 * e + 1]] = g.E[2 * e];
    for (int64_t v = 0; v < g.N; v++)
        if (g.label[v] == 0 && deg[v] == 1) {
            leaves++;
            if (r->owner[v] != r->owner[nb[v]])
                apart++;
            else
                cr_expect_gt(r->new_label[v], r->new_label[nb[v]], "leaf %lld must follow its neighbour", (long long)v);
        }
    cr_assert_gt(leaves, 50, "the graph must have leaves (%lld)", (long long)leaves);
    cr_expect_leq(apart, R - 1, "%lld of %lld leaves apart from their neighbour; only piece boundaries may split them",
                  (long long)apart, (long long)leaves);
    cr_expect_lt(r->metrics[0].cut_edges, plain->metrics[0].cut_edges,
                 "attaching leaves must cut fewer edges than plain id order (%lld vs %lld)",
                 (long long)r->metrics[0].cut_edges, (long long)plain->metrics[0].cut_edges);
    free(deg), free(nb);
    part_result_free(&r);
    part_result_free(&plain);
    machine_free(&m);
    graph_free(&g);
}

/* A ring of 600 vertices and three hubs of degree 250, 250 and 100 joined
 * to it: W = 2400, so at R = 8 a rank's share (300) is barely above a hub.
 * The degree order puts the hubs side by side and a contiguous cut lands
 * one piece at 350 (17% over); the hubs must then go by LPT, and every
 * order must end within the 5% tolerance. */
Test(part, balances_edges_within_tolerance_around_hubs_in_every_order)
{
    int64_t N = 1024, E[2 * 1200], m = 0, hub[3] = {scatter(700, N), scatter(701, N), scatter(702, N)};
    for (int64_t i = 0; i < 600; i++) {
        E[2 * m] = scatter(i, N), E[2 * m + 1] = scatter((i + 1) % 600, N), m++;
        E[2 * m] = hub[i < 250 ? 0 : i < 500 ? 1 : 2], E[2 * m + 1] = scatter(i, N), m++;
    }
    struct graph g;
    struct machine mc;
    graph_init(&g, N, m, E);
    machine_init(&mc, 8, 1, 4);
    for (int o = PART_ORDER_BFS; o <= PART_ORDER_LEAVES; o++) {
        part_result *r = NULL;
        order_ = o;
        cr_assert_eq(place(&g, &mc, 0.05, &r), G5_OK, "%s", g5_error_msg());
        cr_expect_leq(r->metrics[0].edge_imbalance, 1.05, "order %s: edge imbalance %.4f over 5%%",
                      part_order_name(o), r->metrics[0].edge_imbalance);
        if (o == PART_ORDER_DEGREE)
            cr_expect_eq(r->giant_hubs, 3, "degree order: the 3 hubs must go by LPT (%lld)", (long long)r->giant_hubs);
        int64_t seen_hub_rank[3];
        for (int h = 0; h < 3; h++)
            seen_hub_rank[h] = r->owner[hub[h]];
        if (o == PART_ORDER_DEGREE)
            cr_expect(seen_hub_rank[0] != seen_hub_rank[1], "LPT puts the two big hubs on different ranks");
        part_result_free(&r);
    }
    order_ = PART_ORDER_BFS;
    machine_free(&mc);
    graph_free(&g);
}
