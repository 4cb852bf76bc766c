/* SPDX-License-Identifier: MIT */
/* test_common.c - status messages, the range split and atomic files of the
 * common layer. */
#include <criterion/criterion.h>
#include <string.h>

#include "common.h"

Test(error, message_and_code_round_trip)
{
    int rc = g5_error(G5_ERR_FORMAT, "%s: dataset /edges missing", "x.h5");
    cr_expect_eq(rc, G5_ERR_FORMAT);
    cr_expect_str_eq(g5_error_msg(), "x.h5: dataset /edges missing");
    cr_expect_str_eq(g5_status_name(G5_ERR_FORMAT), "bad file format");
}

/* The even split of a range (g5_range_split, g5_range_owner): the parts
 * tile [0, n), the first n % p ranks hold one more, and the owner agrees. */
Test(range, ranges_tile_the_vertices_and_owner_agrees)
{
    const int64_t ns[] = {1, 2, 3, 7, 64, 100, 1000, 1023};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (int p = 1; p <= 9; p++) {
            int64_t n = ns[a], next = 0;
            for (int r = 0; r < p; r++) {
                int64_t first, count;
                g5_range_split(n, r, p, &first, &count);
                cr_assert_eq(first, next, "n %lld p %d rank %d starts at %lld, expected %lld",
                             (long long)n, p, r, (long long)first, (long long)next);
                cr_assert_eq(count, n / p + (r < n % p), "n %lld p %d rank %d holds %lld",
                             (long long)n, p, r, (long long)count);
                for (int64_t v = first; v < first + count; v++)
                    cr_assert_eq(g5_range_owner(n, p, v), r, "n %lld p %d: owner of %lld",
                                 (long long)n, p, (long long)v);
                next = first + count;
            }
            cr_assert_eq(next, n, "n %lld p %d: ranges end at %lld", (long long)n, p, (long long)next);
        }
}

/* ---- atomic files (common/atomic.h) ---------------------------------------- */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"

static int exists(const char *p) { struct stat st; return stat(p, &st) == 0; }

/* a fresh directory under /tmp; its path in dir[64] */
static void tmpdir(char *dir)
{
    snprintf(dir, 64, "/tmp/g500-atomic-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

Test(atomic, commit_publishes_the_whole_file_and_leaves_no_temporary)
{
    char dir[64], path[128], line[64] = "";
    tmpdir(dir);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    g5_atomic a;
    cr_assert_eq(g5_atomic_open(&a, path), G5_OK);
    cr_assert(exists(a.tmp), "the temporary exists while writing");
    cr_assert(!exists(path), "the file is not there before the commit");
    fprintf(a.f, "hello\n");
    char tmp[sizeof a.tmp];
    snprintf(tmp, sizeof tmp, "%s", a.tmp);
    cr_assert_eq(g5_atomic_commit(&a), G5_OK, "%s", g5_error_msg());
    cr_assert(!exists(tmp), "no temporary left");
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    cr_assert_str_eq(line, "hello\n");
    unlink(path);
    rmdir(dir);
}

Test(atomic, abort_and_a_failed_write_leave_nothing)
{
    char dir[64], path[128], tmp[G5_PATH_MAX + 32];
    tmpdir(dir);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    g5_atomic a;
    cr_assert_eq(g5_atomic_open(&a, path), G5_OK);
    fprintf(a.f, "half");
    snprintf(tmp, sizeof tmp, "%s", a.tmp);
    g5_atomic_abort(&a);
    cr_assert(!exists(tmp) && !exists(path), "abort removes the temporary");

    /* a write that fails (the disk is full) fails the commit */
    cr_assert_eq(g5_atomic_open(&a, path), G5_OK);
    snprintf(tmp, sizeof tmp, "%s", a.tmp);
    fclose(a.f);
    a.f = fopen("/dev/full", "w");
    cr_assert_not_null(a.f);
    fprintf(a.f, "data that does not fit\n");
    cr_assert_eq(g5_atomic_commit(&a), G5_ERR_IO);
    cr_assert(strstr(g5_error_msg(), path) != NULL, "the message names the file: %s", g5_error_msg());
    cr_assert(!exists(tmp) && !exists(path), "nothing half-written is left");
    rmdir(dir);
}

Test(atomic, a_missing_directory_is_an_io_error_naming_the_file)
{
    g5_atomic a;
    cr_assert_eq(g5_atomic_open(&a, "/nonexistent-g500-dir/out.txt"), G5_ERR_IO);
    cr_assert(strstr(g5_error_msg(), "/nonexistent-g500-dir/out.txt") != NULL, "%s", g5_error_msg());
    cr_assert_null(a.f);
    g5_atomic_abort(&a);   /* harmless after a failed open */
}
