/* SPDX-License-Identifier: MIT */
/* test_topo_parse.c - every accepted syntax form of the topology parser:
 * Slurm topology.conf lines and hostlists, comments, case, walk order,
 * tleaf, the identity, and loading from a file. */
#include "topo_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

Test(topo_parse, reads_a_two_level_tree_with_counts_levels_and_speeds)
{
    topo *t = parse_ok("SwitchName=s0 Nodes=n[00-03]\n"
                       "SwitchName=s1 Nodes=n[04-07] LinkSpeed=100\n"
                       "SwitchName=top Switches=s[0-1] LinkSpeed=200\n");
    static const char *const names[] = {"n00", "n01", "n02", "n03", "n04", "n05", "n06", "n07"};
    expect_names(t, names, 8);
    cr_expect_eq(topo_num_switches(t), 3);
    cr_expect_eq(topo_num_leaves(t), 2);
    cr_expect_eq(topo_num_levels(t), 2);
    cr_expect_str_eq(topo_switch_name(t, 0), "top", "switch 0 is the root");
    cr_expect_eq(topo_switch_parent(t, 0), -1);
    cr_expect_str_eq(topo_switch_name(t, 1), "s0");
    cr_expect_str_eq(topo_switch_name(t, 2), "s1");
    cr_expect_eq(topo_switch_link_speed(t, 0), 200);
    cr_expect_eq(topo_switch_link_speed(t, 1), -1, "no LinkSpeed given");
    cr_expect_eq(topo_switch_link_speed(t, 2), 100);
    cr_expect_eq(topo_switch_line(t, 0), 3, "root defined at line 3");
    cr_expect_eq(topo_node_switch(t, 5), 2, "n05 is under s1");
    cr_expect_eq(topo_node_index(t, "n08"), -1, "unknown node");
    cr_expect_eq(topo_node_index(t, "n0"), -1, "prefix of a name is not a name");
    cr_expect_str_eq(topo_source(t), "t.conf");
    topo_free(&t);
    cr_expect_null(t, "topo_free clears the pointer");
    topo_free(&t);
    topo_free(NULL);
}

Test(topo_parse, expands_every_hostlist_form)
{
    topo *t = parse_ok("SwitchName=s Nodes=tux[0-3,12,18-20],n1,n2,x[08-10],y[8-10],r[1-2]c[0-1],z\n");
    static const char *const names[] = {"tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19",
                                        "tux20", "n1", "n2", "x08", "x09", "x10", "y8", "y9",
                                        "y10", "r1c0", "r1c1", "r2c0", "r2c1", "z"};
    expect_names(t, names, 21);
    topo_free(&t);
}

Test(topo_parse, keeps_suffix_text_after_a_bracket)
{
    topo *t = parse_ok("SwitchName=s Nodes=rack[1-2]-ib\n");
    static const char *const names[] = {"rack1-ib", "rack2-ib"};
    expect_names(t, names, 2);
    topo_free(&t);
}

Test(topo_parse, ignores_case_of_keys_comments_blank_lines_tabs_and_crlf)
{
    topo *t = parse_ok("# a comment line\r\n"
                       "\r\n"
                       "  switchname=a\tNODES=a[1-2]   # trailing comment Nodes=zzz\r\n"
                       "SWITCHNAME=b nodes=b1 linkspeed=10\r\n"
                       "\t\n"
                       "SwitchName=top sWiTcHeS=a,b\r\n"
                       "# end");
    static const char *const names[] = {"a1", "a2", "b1"};
    expect_names(t, names, 3);
    cr_expect_eq(topo_switch_link_speed(t, 2), 10);
    cr_expect_eq(topo_switch_line(t, 1), 3, "line numbers count comment and blank lines");
    topo_free(&t);
}

Test(topo_parse, numbers_nodes_in_walk_order_with_children_in_file_order)
{
    /* the root lists b before a, and the leaves come after inner switches */
    topo *t = parse_ok("SwitchName=root Switches=mid,b\n"
                       "SwitchName=mid Switches=a2,a1\n"
                       "SwitchName=a1 Nodes=x1\n"
                       "SwitchName=b Nodes=y1,y2\n"
                       "SwitchName=a2 Nodes=x2,x3\n");
    static const char *const names[] = {"x2", "x3", "x1", "y1", "y2"};
    static const char *const sw[] = {"root", "mid", "a2", "a1", "b"};
    expect_names(t, names, 5);
    for (int s = 0; s < 5; s++)
        cr_expect_str_eq(topo_switch_name(t, s), sw[s], "switch %d in pre-order", s);
    int first, count;
    cr_assert_eq(topo_switch_nodes(t, 1, &first, &count), G5_OK);
    cr_expect(first == 0 && count == 3, "mid covers nodes 0..2, got %d+%d", first, count);
    cr_assert_eq(topo_switch_nodes(t, 4, &first, &count), G5_OK);
    cr_expect(first == 3 && count == 2, "b covers nodes 3..4, got %d+%d", first, count);
    cr_expect_eq(topo_switch_nodes(t, 5, &first, &count), G5_ERR_ARG, "no switch 5");
    cr_expect_eq(topo_num_levels(t), 3);
    cr_expect_eq(topo_switch_depth(t, 3), 2);
    cr_expect_eq(topo_switch_num_children(t, 0), 2);
    topo_free(&t);
}

Test(topo_parse, reads_tleaf_with_generated_names)
{
    topo *t = parse_ok("tleaf 2 4 1 4 1\n");
    cr_expect_eq(topo_num_nodes(t), 16);
    cr_expect_eq(topo_num_switches(t), 5);
    cr_expect_eq(topo_num_leaves(t), 4);
    cr_expect_eq(topo_num_levels(t), 2);
    cr_expect(topo_is_tleaf(t));
    cr_expect_str_eq(topo_node_name(t, 0), "node000");
    cr_expect_str_eq(topo_node_name(t, 15), "node015");
    for (int n = 0; n < 16; n++)
        cr_expect_eq(topo_node_switch(t, n), 1 + n / 4, "node %d under leaf %d", n, n / 4);
    topo_free(&t);
}

Test(topo_parse, reads_tleaf_after_comment_lines_and_with_other_shapes)
{
    topo *t = parse_ok("# generated\n\n  # indented comment\nTLEAF 3 2 1 3 10 2 100  \n# after\n\n");
    cr_expect_eq(topo_num_nodes(t), 12);
    cr_expect_eq(topo_num_switches(t), 1 + 2 + 6);
    cr_expect_eq(topo_num_levels(t), 3);
    topo_free(&t);
    t = parse_ok("tleaf 1 8 1");
    cr_expect_eq(topo_num_nodes(t), 8);
    cr_expect_eq(topo_num_switches(t), 1);
    cr_expect_eq(topo_num_levels(t), 1);
    topo_free(&t);
    t = parse_ok("tleaf 2 10 1 100 1");
    cr_expect_str_eq(topo_node_name(t, 999), "node999", "width 3 for 1000 nodes");
    topo_free(&t);
    t = parse_ok("tleaf 2 10 1 101 1");
    cr_expect_str_eq(topo_node_name(t, 5), "node0005", "width 4 for 1010 nodes");
    topo_free(&t);
}

Test(topo_parse, identity_follows_the_tree_not_the_layout)
{
    topo *a = parse_ok("SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Nodes=n[2-3]\nSwitchName=t Switches=s[0-1]\n");
    topo *b = parse_ok("# same tree, other layout\nswitchname=t switches=s0,s1\n"
                       "SwitchName=s1   Nodes=n2,n3\nSwitchName=s0 Nodes=n[0-1] # c\n");
    topo *c = parse_ok("SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Nodes=n[2-4]\nSwitchName=t Switches=s[0-1]\n");
    topo *d = parse_ok("SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Nodes=n[2-3]\nSwitchName=t Switches=s1,s0\n");
    cr_expect_eq(topo_id(a), topo_id(b), "layout, case and comments do not change the id");
    cr_expect_neq(topo_id(a), topo_id(c), "one more node changes the id");
    cr_expect_neq(topo_id(a), topo_id(d), "another child order changes the id");
    topo_free(&a);
    topo_free(&b);
    topo_free(&c);
    topo_free(&d);
}

Test(topo_parse, accepts_names_of_exactly_64_characters)
{
    char text[512];
    char name[65];
    memset(name, 'x', 64);
    name[64] = '\0';
    snprintf(text, sizeof text, "SwitchName=%s Nodes=%s\n", name, name);
    topo *t = parse_ok(text);
    cr_expect_str_eq(topo_switch_name(t, 0), name);
    cr_expect_str_eq(topo_node_name(t, 0), name);
    topo_free(&t);
}

Test(topo_parse, loads_every_shipped_config)
{
    static const struct { const char *path; int nodes, switches, levels; } cfg[] = {
        {"configs/single-switch.conf", 8, 1, 1},
        {"configs/fat-tree-4x4.conf", 16, 5, 2},
        {"configs/three-level-4x4x4.conf", 64, 21, 3},
        {"configs/irregular.conf", 17, 10, 4},
        {"configs/tleaf-4x4.conf", 16, 5, 2},
    };
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        topo *t = NULL;
        cr_assert_eq(topo_load(cfg[i].path, &t), G5_OK, "%s", g5_error_msg());
        cr_expect_eq(topo_check(t), G5_OK, "%s", g5_error_msg());
        cr_expect_eq(topo_num_nodes(t), cfg[i].nodes, "%s nodes", cfg[i].path);
        cr_expect_eq(topo_num_switches(t), cfg[i].switches, "%s switches", cfg[i].path);
        cr_expect_eq(topo_num_levels(t), cfg[i].levels, "%s levels", cfg[i].path);
        cr_expect_str_eq(topo_source(t), cfg[i].path);
        topo_free(&t);
    }
}

Test(topo_parse, load_reports_a_missing_file_and_binary_content)
{
    topo *t = NULL;
    char path[] = "/tmp/g500-topo-XXXXXX";
    int fd;
    cr_expect_eq(topo_load("/nonexistent/topology.conf", &t), G5_ERR_IO);
    cr_expect(strstr(g5_error_msg(), "/nonexistent/topology.conf") != NULL, "%s", g5_error_msg());
    cr_expect_null(t);
    fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "SwitchName=a Nodes=b\0\n", 22), 22);
    close(fd);
    cr_expect_eq(topo_load(path, &t), G5_ERR_TOPO);
    cr_expect(strstr(g5_error_msg(), "NUL") != NULL, "%s", g5_error_msg());
    unlink(path);
}

Test(topo_parse, load_names_a_directory_or_a_device_instead_of_a_size)
{
    topo *t = (topo *)1;
    char dir[] = "/tmp/g500-topo-dir-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    cr_expect_eq(topo_load(dir, &t), G5_ERR_IO, "%s", g5_error_msg());
    cr_expect(strstr(g5_error_msg(), dir) && strstr(g5_error_msg(), "is a directory"), "%s", g5_error_msg());
    cr_expect_null(t);
    rmdir(dir);
    t = (topo *)1;
    cr_expect_eq(topo_load("/dev/null", &t), G5_ERR_IO, "%s", g5_error_msg());
    cr_expect(strstr(g5_error_msg(), "/dev/null: is not a regular file"), "%s", g5_error_msg());
    cr_expect_null(t);
}

Test(topo_parse, handles_a_ten_thousand_node_file)
{
    /* 25 pods x 25 leaves x 16 nodes = 10,000 nodes */
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    for (int p = 0; p < 25; p++) {
        for (int l = 0; l < 25; l++) {
            int n0 = (p * 25 + l) * 16;
            len += (size_t)snprintf(text + len, cap - len, "SwitchName=p%dl%d Nodes=cn[%05d-%05d]\n",
                                    p, l, n0, n0 + 15);
        }
        len += (size_t)snprintf(text + len, cap - len, "SwitchName=p%d Switches=p%dl[0-24]\n", p, p);
    }
    snprintf(text + len, cap - len, "SwitchName=core Switches=p[0-24]\n");
    topo *t = parse_ok(text);
    cr_expect_eq(topo_num_nodes(t), 10000);
    cr_expect_eq(topo_num_switches(t), 25 * 26 + 1);
    cr_expect_eq(topo_num_levels(t), 3);
    cr_expect_eq(topo_node_index(t, "cn09999"), 9999);
    cr_expect_eq(topo_hops_between(t, 0, 9999), 5);
    cr_expect_eq(topo_hops_between(t, 0, 16), 3);
    cr_expect_eq(topo_hops_between(t, 0, 15), 1);
    topo_free(&t);
    free(text);
}
