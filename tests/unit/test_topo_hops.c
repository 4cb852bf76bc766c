/* SPDX-License-Identifier: MIT */
/* test_topo_hops.c - hop counts on hand-built trees against matrices worked
 * out by hand (switches crossed: same node 0, same leaf 1, else Slurm's
 * switch distance + 1), on both lookup paths (leaf matrix and tree walk),
 * and the emulated rank-to-node map with its errors. */
#include "topo_test_util.h"

#include <stdlib.h>

static void expect_matrix(const topo *t, const int *m, int n)
{
    cr_assert_eq(topo_num_nodes(t), n);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            cr_expect_eq(topo_hops_between(t, a, b), m[a * n + b], "hops(%s, %s) = %d, expected %d",
                         topo_node_name(t, a), topo_node_name(t, b), topo_hops_between(t, a, b),
                         m[a * n + b]);
}

Test(topo_hops, single_switch)
{
    topo *t = parse_ok("SwitchName=s Nodes=a,b,c\n");
    static const int m[] = {0, 1, 1, 1, 0, 1, 1, 1, 0};
    expect_matrix(t, m, 3);
    cr_expect_eq(topo_max_hops(t), 1);
    topo_free(&t);
    t = parse_ok("SwitchName=s Nodes=only\n");
    cr_expect_eq(topo_hops_between(t, 0, 0), 0);
    cr_expect_eq(topo_max_hops(t), 0, "one node: no pair");
    topo_free(&t);
}

Test(topo_hops, two_level_tree)
{
    topo *t = parse_ok("SwitchName=l0 Nodes=a[0-1]\nSwitchName=l1 Nodes=b[0-1]\n"
                       "SwitchName=sp Switches=l[0-1]\n");
    static const int m[] = {
        0, 1, 3, 3,
        1, 0, 3, 3,
        3, 3, 0, 1,
        3, 3, 1, 0,
    };
    expect_matrix(t, m, 4);
    cr_expect_eq(topo_max_hops(t), 3);
    cr_expect_eq(topo_switch_distance(t, 1, 2), 2, "leaf to leaf through the spine");
    cr_expect_eq(topo_switch_distance(t, 0, 2), 1, "spine to leaf");
    cr_expect_eq(topo_switch_distance(t, 1, 1), 0);
    cr_expect_eq(topo_hops_between(t, -1, 0), -1, "bad node");
    cr_expect_eq(topo_hops_between(t, 0, 4), -1, "bad node");
    topo_free(&t);
}

/* root R holds leaf L1 (x), inner I; I holds leaf L2 (y) and inner J; J holds
 * leaf L3 (z1, z2). Depths: L1 1, L2 2, L3 3.
 * dist(L1,L2) = 1 + 2 = 3 -> 4 hops; dist(L1,L3) = 1 + 3 = 4 -> 5;
 * dist(L2,L3) = 1 + 2 = 3 (through I) -> 4; z1-z2 share L3 -> 1. */
static const int irregular_m[] = {
    0, 4, 5, 5,
    4, 0, 4, 4,
    5, 4, 0, 1,
    5, 4, 1, 0,
};

Test(topo_hops, irregular_tree)
{
    topo *t = parse_ok("SwitchName=R Switches=L1,I\nSwitchName=I Switches=L2,J\n"
                       "SwitchName=J Switches=L3\nSwitchName=L1 Nodes=x\nSwitchName=L2 Nodes=y\n"
                       "SwitchName=L3 Nodes=z[1-2]\n");
    static const char *const names[] = {"x", "y", "z1", "z2"};
    expect_names(t, names, 4);
    expect_matrix(t, irregular_m, 4);
    cr_expect_eq(topo_max_hops(t), 5);
    cr_expect_eq(topo_num_levels(t), 4);
    topo_free(&t);
}

/* 2 x 2 x 2: hops 1 within a leaf pair, 3 within a pod, 5 across pods. */
static const int three_level_m[] = {
    0, 1, 3, 3, 5, 5, 5, 5,
    1, 0, 3, 3, 5, 5, 5, 5,
    3, 3, 0, 1, 5, 5, 5, 5,
    3, 3, 1, 0, 5, 5, 5, 5,
    5, 5, 5, 5, 0, 1, 3, 3,
    5, 5, 5, 5, 1, 0, 3, 3,
    5, 5, 5, 5, 3, 3, 0, 1,
    5, 5, 5, 5, 3, 3, 1, 0,
};

Test(topo_hops, three_level_tree_slurm)
{
    topo *t = parse_ok("SwitchName=l0 Nodes=n[0-1]\nSwitchName=l1 Nodes=n[2-3]\n"
                       "SwitchName=l2 Nodes=n[4-5]\nSwitchName=l3 Nodes=n[6-7]\n"
                       "SwitchName=p0 Switches=l[0-1]\nSwitchName=p1 Switches=l[2-3]\n"
                       "SwitchName=core Switches=p[0-1]\n");
    expect_matrix(t, three_level_m, 8);
    cr_expect_eq(topo_max_hops(t), 5);
    topo_free(&t);
}

Test(topo_hops, three_level_tree_tleaf)
{
    topo *t = parse_ok("tleaf 3 2 1 2 1 2 1\n");
    expect_matrix(t, three_level_m, 8);
    topo_free(&t);
}

Test(topo_hops, large_trees_use_the_walk_and_agree_with_the_shape)
{
    /* 3000 leaves: beyond the leaf-matrix limit; hops by walking up */
    topo *t = parse_ok("tleaf 3 30 1 100 1 2 1\n");
    cr_expect_eq(topo_num_nodes(t), 6000);
    cr_expect_eq(topo_num_leaves(t), 3000);
    for (int a = 0; a < 6000; a += 37)
        for (int b = 0; b < 6000; b += 41) {
            int want = a == b ? 0 : a / 2 == b / 2 ? 1 : a / 200 == b / 200 ? 3 : 5;
            cr_assert_eq(topo_hops_between(t, a, b), want, "hops(%d, %d)", a, b);
        }
    cr_expect_eq(topo_max_hops(t), 5);
    topo_free(&t);
}

Test(topo_hops, maps_ranks_per_node_in_walk_order)
{
    topo *t = parse_ok("tleaf 2 4 1 4 1\n");
    int map[64];
    cr_assert_eq(topo_map_ranks_per_node(t, 64, 4, map), G5_OK, "%s", g5_error_msg());
    for (int r = 0; r < 64; r++)
        cr_expect_eq(map[r], r / 4, "rank %d", r);
    cr_assert_eq(topo_map_ranks_per_node(t, 6, 1, map), G5_OK, "%s", g5_error_msg());
    for (int r = 0; r < 6; r++)
        cr_expect_eq(map[r], r);
    cr_expect_eq(topo_hops_between(t, map[0], map[4]), 3, "rank 4 is on the next leaf");
    topo_free(&t);
}

Test(topo_hops, rank_map_errors)
{
    topo *t = parse_ok("SwitchName=s0 Nodes=n[0-3]\n");
    int map[64];
    cr_expect_eq(topo_map_ranks_per_node(t, 10, 4, map), G5_ERR_TOPO);
    cr_expect(strstr(g5_error_msg(), "10 ranks is not a multiple of 4") != NULL, "%s", g5_error_msg());
    cr_expect(strstr(g5_error_msg(), "t.conf") != NULL, "%s", g5_error_msg());
    cr_expect_eq(topo_map_ranks_per_node(t, 10, 2, map), G5_ERR_TOPO);
    cr_expect(strstr(g5_error_msg(), "need 5 nodes, the topology has only 4") != NULL, "%s",
              g5_error_msg());
    cr_expect_eq(topo_map_ranks_per_node(t, 4, 0, map), G5_ERR_TOPO);
    cr_expect_eq(topo_map_ranks_per_node(t, 0, 1, map), G5_ERR_TOPO);
    cr_expect_eq(topo_map_ranks_per_node(t, 16, 4, map), G5_OK, "exactly enough nodes");
    topo_free(&t);
}

/* topo_hop_matrix: all nodes in order, and a chosen subset (rows and
 * columns follow the subset's order). */
Test(topo_hops, hop_matrix_of_all_nodes_and_of_a_subset)
{
    topo *t = parse_ok("SwitchName=l0 Nodes=a[0-1]\nSwitchName=l1 Nodes=b[0-1]\n"
                       "SwitchName=sp Switches=l[0-1]\n");
    int *h = NULL;
    cr_assert_eq(topo_hop_matrix(t, NULL, 4, &h), G5_OK);
    static const int all[] = {0, 1, 3, 3, 1, 0, 3, 3, 3, 3, 0, 1, 3, 3, 1, 0};
    for (int i = 0; i < 16; i++)
        cr_expect_eq(h[i], all[i], "entry %d: %d, expected %d", i, h[i], all[i]);
    free(h);
    const int sub[] = {3, 0, 1};
    static const int want[] = {0, 3, 3, 3, 0, 1, 3, 1, 0};
    cr_assert_eq(topo_hop_matrix(t, sub, 3, &h), G5_OK);
    for (int i = 0; i < 9; i++)
        cr_expect_eq(h[i], want[i], "subset entry %d: %d, expected %d", i, h[i], want[i]);
    free(h);
    topo_free(&t);
}
