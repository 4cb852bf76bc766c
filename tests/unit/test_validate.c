/* SPDX-License-Identifier: MIT */
/*
 * test_validate.c - the vertex block distribution the validators assume
 * (kern_vblock_range / kern_vblock_owner, the io_block_range rule: the
 * first n % p ranks hold one vertex more). The validators themselves are
 * tested at 1, 2 and 4 ranks by tests/mpi/mpi_validate.c.
 */
#include <criterion/criterion.h>

#include "kern_validate.h"

Test(vblock, ranges_tile_the_vertices_and_owner_agrees)
{
    const int64_t ns[] = {1, 2, 3, 7, 64, 100, 1000, 1023};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (int p = 1; p <= 9; p++) {
            int64_t n = ns[a], next = 0;
            for (int r = 0; r < p; r++) {
                int64_t first, count;
                kern_vblock_range(n, r, p, &first, &count);
                cr_assert_eq(first, next, "n %lld p %d rank %d starts at %lld, expected %lld",
                             (long long)n, p, r, (long long)first, (long long)next);
                cr_assert_eq(count, n / p + (r < n % p), "n %lld p %d rank %d holds %lld",
                             (long long)n, p, r, (long long)count);
                for (int64_t v = first; v < first + count; v++)
                    cr_assert_eq(kern_vblock_owner(n, p, v), r, "n %lld p %d: owner of %lld",
                                 (long long)n, p, (long long)v);
                next = first + count;
            }
            cr_assert_eq(next, n, "n %lld p %d: ranges end at %lld", (long long)n, p, (long long)next);
        }
}
