/* SPDX-License-Identifier: MIT */
/* test_topo_errors.c - every check of the topology parser: each bad file is
 * rejected with G5_ERR_TOPO and a message naming the file, the line and the
 * problem. */
#include "topo_test_util.h"

#include <stdio.h>

Test(topo_errors, duplicate_switch_name)
{
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\nSwitchName=a Nodes=n3\n"
                "SwitchName=t Switches=a,b\n",
                "t.conf:3:", "duplicate switch name 'a' (first defined at line 1)");
}

Test(topo_errors, both_nodes_and_switches_or_neither)
{
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=t Switches=a Nodes=n2\n", "t.conf:2:",
                "both Nodes= and Switches=");
    parse_fails("SwitchName=a Nodes=n1\n\nSwitchName=t LinkSpeed=5\n", "t.conf:3:",
                "neither Nodes= nor Switches=");
}

Test(topo_errors, unknown_child_switch)
{
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=t Switches=a,b\n", "t.conf:2:",
                "lists unknown switch 'b'");
}

Test(topo_errors, node_under_two_leaf_switches)
{
    parse_fails("SwitchName=a Nodes=n[1-3]\nSwitchName=b Nodes=n[3-4]\nSwitchName=t Switches=a,b\n",
                "t.conf:2:", "node 'n3' is under two leaf switches: 'a' (line 1) and 'b'");
    parse_fails("SwitchName=a Nodes=n[1-3],n2\n", "t.conf:1:", "lists node 'n2' twice");
}

Test(topo_errors, switch_with_two_parents)
{
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=m1 Switches=a\nSwitchName=m2 Switches=a\n"
                "SwitchName=t Switches=m1,m2\n",
                "t.conf:3:", "switch 'a' has two parents: 'm1' (line 2) and 'm2'");
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=t Switches=a,a\n", "t.conf:2:",
                "lists switch 'a' twice");
}

Test(topo_errors, more_than_one_top_switch_is_not_connected)
{
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\n", "t.conf:2:",
                "switches not connected: 'a' (line 1) and 'b' are both top switches");
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\nSwitchName=c Nodes=n3\n"
                "SwitchName=t Switches=a,b\n",
                "t.conf:4:", "not connected: 'c' (line 3) and 't'");
}

Test(topo_errors, cycles)
{
    /* a and b list each other; t is the only top switch */
    parse_fails("SwitchName=t Switches=x\nSwitchName=x Nodes=n1\nSwitchName=a Switches=b\n"
                "SwitchName=b Switches=a\n",
                "t.conf:3:", "cycle");
    parse_fails("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "t.conf:1:",
                "no top switch");
    parse_fails("SwitchName=a Switches=a\n", "t.conf:1:", "lists itself");
}

Test(topo_errors, empty_files)
{
    parse_fails("", "t.conf:1:", "empty topology");
    parse_fails("# only comments\n\n   \n# here\n", "t.conf:", "empty topology");
}

Test(topo_errors, over_long_names)
{
    char text[512], name[66];
    memset(name, 'y', 65);
    name[65] = '\0';
    snprintf(text, sizeof text, "SwitchName=a Nodes=n1\nSwitchName=%s Switches=a\n", name);
    parse_fails(text, "t.conf:2:", "longer than 64");
    snprintf(text, sizeof text, "# c\nSwitchName=a Nodes=n1,%s\n", name);
    parse_fails(text, "t.conf:2:", "longer than 64");
    /* 62 characters of prefix plus three digits of range */
    memset(name, 'z', 62);
    name[62] = '\0';
    snprintf(text, sizeof text, "SwitchName=a Nodes=%s[098-100]\n", name);
    parse_fails(text, "t.conf:1:", "longer than 64");
}

Test(topo_errors, malformed_hostlists)
{
    static const struct { const char *nodes, *what; } bad[] = {
        {"n[0-3", "unbalanced '['"},
        {"n0-3]", "unbalanced ']'"},
        {"n[3-1]", "reversed range '3-1'"},
        {"n[a-b]", "bad range 'a-b'"},
        {"n[1-]", "bad range '1-'"},
        {"n[-2]", "bad range '-2'"},
        {"n[]", "bad range ''"},
        {"n[1,,2]", "bad range ''"},
        {"n[[1]]", "nested '['"},
        {"n1,,n2", "empty element"},
        {"n1,", "empty element"},
        {"n[1-99999999]", "more than"},
        {"n[0-999][0-999999999999999999]", "more than"},
        {"n[0-9999999999999999999]", "bad range"},
        {"[1-2]", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "# x\n\nSwitchName=s Nodes=%s\n", bad[i].nodes);
        if (bad[i].what) {
            parse_fails(text, "t.conf:3:", bad[i].what);
        } else {
            /* a bare range is a valid hostlist of numeric names */
            topo *t = parse_ok(text);
            cr_expect_str_eq(topo_node_name(t, 1), "2");
            topo_free(&t);
        }
    }
    parse_fails("SwitchName=a Nodes=n1\nSwitchName=t Switches=a[0-\n", "t.conf:2:",
                "Switches=: unbalanced");
}

Test(topo_errors, syntax_problems)
{
    parse_fails("SwitchName=a Node=n1\n", "t.conf:1:", "unknown key 'Node'");
    parse_fails("SwitchName=a Nodes=n1 extra\n", "t.conf:1:", "expected KEY=VALUE, got 'extra'");
    parse_fails("SwitchName=a Nodes=n1 nodes=n2\n", "t.conf:1:", "given twice");
    parse_fails("\nNodes=n1\n", "t.conf:2:", "no SwitchName=");
    parse_fails("SwitchName=a Nodes=n1 LinkSpeed=fast\n", "t.conf:1:", "LinkSpeed 'fast'");
    parse_fails("SwitchName=a Nodes=\n", "t.conf:1:", "has no value");
    parse_fails("SwitchName=a[1-2] Nodes=n1\n", "t.conf:1:", "must be one name");
}

Test(topo_errors, tleaf_problems)
{
    parse_fails("# c\ntleaf 2 4 1 4\n", "t.conf:2:", "needs 4 numbers");
    parse_fails("tleaf 0\n", "t.conf:1:", "1 <= L");
    parse_fails("tleaf\n", "t.conf:1:", "1 <= L");
    parse_fails("tleaf 2 0 1 4 1\n", "t.conf:1:", "level 0 has 0 children");
    parse_fails("tleaf 2 4 x 4 1\n", "t.conf:1:", "'x' is not");
    parse_fails("tleaf 2 4 1 4 1\n# ok\nSwitchName=a Nodes=n1\n", "t.conf:3:", "text after the tleaf");
    parse_fails("tleaf 2 2000 1 2000 1\n", "t.conf:1:", "more than");
    parse_fails("tleaf 2 1000 1 999999999999999999 1\n", "t.conf:1:", "more than");
}

Test(topo_errors, too_many_nodes_in_total)
{
    parse_fails("SwitchName=a Nodes=a[0-999999]\nSwitchName=b Nodes=b[0-999999]\n"
                "SwitchName=t Switches=a,b\n",
                "t.conf:2:", "more than 1048576 nodes");
}
