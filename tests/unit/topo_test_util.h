/* SPDX-License-Identifier: MIT */
/* topo_test_util.h - helpers shared by the topo unit tests: parse text that
 * must be accepted (and pass topo_check), or must be rejected with a
 * message holding given pieces (file:line and the problem). */
#ifndef G500_TOPO_TEST_UTIL_H
#define G500_TOPO_TEST_UTIL_H

#include <criterion/criterion.h>
#include <string.h>

#include "common.h"
#include "topo.h"

static inline topo *parse_ok(const char *text)
{
    topo *t = NULL;
    int rc = topo_parse(text, "t.conf", &t);
    cr_assert_eq(rc, G5_OK, "parse failed: %s\n--- text:\n%s", g5_error_msg(), text);
    cr_assert_not_null(t);
    cr_assert_eq(topo_check(t), G5_OK, "topo_check failed: %s", g5_error_msg());
    return t;
}

/* The text must fail with G5_ERR_TOPO and a message containing `where`
 * (e.g. "t.conf:3:") and `what`. */
static inline void parse_fails(const char *text, const char *where, const char *what)
{
    topo *t = (topo *)1;
    int rc = topo_parse(text, "t.conf", &t);
    cr_expect_eq(rc, G5_ERR_TOPO, "expected a topology error, got %d (%s)\n--- text:\n%s", rc,
                 g5_error_msg(), text);
    cr_expect_null(t, "a failed parse leaves *out NULL");
    cr_expect(strstr(g5_error_msg(), where) != NULL, "message '%s' lacks '%s'", g5_error_msg(), where);
    cr_expect(strstr(g5_error_msg(), what) != NULL, "message '%s' lacks '%s'", g5_error_msg(), what);
    if (rc == G5_OK)
        topo_free(&t);
}

static inline void expect_names(const topo *t, const char *const *names, int n)
{
    cr_assert_eq(topo_num_nodes(t), n, "node count %d, expected %d", topo_num_nodes(t), n);
    for (int i = 0; i < n; i++) {
        cr_expect_str_eq(topo_node_name(t, i), names[i], "node %d", i);
        cr_expect_eq(topo_node_index(t, names[i]), i, "index of %s", names[i]);
    }
}

#endif
