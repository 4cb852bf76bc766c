/* SPDX-License-Identifier: MIT */
/* test_common.c - option parsing, status messages and the range split of
 * the common layer. */
#include <criterion/criterion.h>
#include <string.h>

#include "common.h"

struct cfg { int scale; int64_t seed; double tol; const char *out; int force; };

static g5_opt opts_for(struct cfg *c, int i)
{
    const g5_opt all[] = {
        {"scale", 's', G5_OPT_INT, &c->scale, "S", "log2 of vertices"},
        {"seed", 0, G5_OPT_INT64, &c->seed, "N", "seed"},
        {"tolerance", 0, G5_OPT_DOUBLE, &c->tol, "X", "tolerance"},
        {"output", 'o', G5_OPT_STRING, &c->out, "FILE", "output"},
        {"force", 0, G5_OPT_FLAG, &c->force, "", "overwrite"},
    };
    return all[i];
}

#define NOPTS 5
static int parse(struct cfg *c, int argc, char **argv, const char **pos, int *npos)
{
    g5_opt o[NOPTS];
    for (int i = 0; i < NOPTS; i++) o[i] = opts_for(c, i);
    return g5_opts_parse(argc, argv, o, NOPTS, pos, 4, npos);
}

Test(opts, parses_every_form_and_keeps_defaults)
{
    struct cfg c = {16, 1, 0.05, NULL, 0};
    char *argv[] = {"gen", "-s", "20", "--seed=7", "in.h5", "--output", "x.h5", "--force"};
    const char *pos[4];
    int npos;
    cr_assert_eq(parse(&c, 8, argv, pos, &npos), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(c.scale, 20, "short option with value");
    cr_expect_eq(c.seed, 7, "--name=value form");
    cr_expect_float_eq(c.tol, 0.05, 1e-12, "an absent option keeps its default");
    cr_expect_str_eq(c.out, "x.h5");
    cr_expect_eq(c.force, 1, "flag");
    cr_expect_eq(npos, 1);
    cr_expect_str_eq(pos[0], "in.h5");
}

Test(opts, rejects_unknown_options_and_bad_numbers)
{
    struct cfg c = {16, 1, 0.05, NULL, 0};
    const char *pos[4];
    int npos;
    char *a1[] = {"gen", "--scael", "3"};
    cr_expect_eq(parse(&c, 3, a1, pos, &npos), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "--scael") != NULL, "message names the option: %s", g5_error_msg());
    char *a2[] = {"gen", "--scale", "12x"};
    cr_expect_eq(parse(&c, 3, a2, pos, &npos), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "12x") != NULL, "message names the value: %s", g5_error_msg());
    char *a3[] = {"gen", "--seed"};
    cr_expect_eq(parse(&c, 2, a3, pos, &npos), G5_ERR_ARG, "missing value");
    char *a4[] = {"gen", "--help"};
    cr_expect_eq(parse(&c, 2, a4, pos, &npos), 1, "--help is reported as 1");
}

Test(opts, help_lists_every_option_with_its_default)
{
    struct cfg c = {16, 1, 0.05, "edges.h5", 0};
    g5_opt o[NOPTS];
    for (int i = 0; i < NOPTS; i++) o[i] = opts_for(&c, i);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    g5_opts_help(f, "g500 gen [options]", "Generate.", o, NOPTS);
    fclose(f);
    cr_expect(strstr(buf, "--scale S") && strstr(buf, "(default 16)"), "%s", buf);
    cr_expect(strstr(buf, "(default 0.05)") && strstr(buf, "(default edges.h5)"), "%s", buf);
    cr_expect(strstr(buf, "--force") != NULL, "%s", buf);
    free(buf);
}

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
