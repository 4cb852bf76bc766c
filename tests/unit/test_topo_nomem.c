/* SPDX-License-Identifier: MIT */
/* test_topo_nomem.c - failure paths on purpose: make the k-th allocation
 * inside topo_parse fail, for every k until the parse succeeds, and check a
 * clean G5_ERR_NOMEM (or, for a failed name copy, the same code) with *out
 * left NULL and no crash or double free. The allocator is interposed in
 * this test binary only (glibc's __libc_* entry points); under
 * AddressSanitizer, which owns malloc, the test is skipped. */
#include "topo_test_util.h"

#include <stdlib.h>

#if !defined(__SANITIZE_ADDRESS__)
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t s);
extern void *__libc_realloc(void *p, size_t n);

static long fail_countdown = -1; /* -1: never fail */

static int should_fail(void)
{
    if (fail_countdown < 0)
        return 0;
    return fail_countdown-- == 0;
}
void *malloc(size_t n) { return should_fail() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t s) { return should_fail() ? NULL : __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { return should_fail() ? NULL : __libc_realloc(p, n); }
#endif

static void every_allocation_failure(const char *text)
{
#if defined(__SANITIZE_ADDRESS__)
    (void)text;
    cr_skip_test("the allocator cannot be interposed under AddressSanitizer");
#else
    int k, rc = G5_ERR_NOMEM;
    for (k = 0; k < 10000 && rc != G5_OK; k++) {
        topo *t = (topo *)1;
        fail_countdown = k;
        rc = topo_parse(text, "t.conf", &t);
        fail_countdown = -1;
        if (rc != G5_OK) {
            cr_assert_eq(rc, G5_ERR_NOMEM, "allocation %d failing gave %d: %s", k, rc, g5_error_msg());
            cr_assert_null(t, "allocation %d failing left a tree", k);
        } else {
            cr_assert_eq(topo_check(t), G5_OK, "%s", g5_error_msg());
            topo_free(&t);
        }
    }
    cr_expect_eq(rc, G5_OK, "the parse succeeds once allocations stop failing");
    cr_expect_gt(k, 5, "several allocation points were exercised (%d)", k);
#endif
}

Test(topo_nomem, slurm_parse_fails_cleanly_at_every_allocation)
{
    every_allocation_failure("SwitchName=l0 Nodes=n[00-03]\nSwitchName=l1 Nodes=n[04-07],x\n"
                             "SwitchName=top Switches=l[0-1]\n");
}

Test(topo_nomem, tleaf_parse_fails_cleanly_at_every_allocation)
{
    every_allocation_failure("tleaf 3 2 1 3 1 4 1\n");
}
