/* SPDX-License-Identifier: MIT */
/* test_cli.c - option parsing with getopt_long from a g5_opt table
 * (cli/cli.h): every accepted form, the errors, and the help table; and the
 * run's memory estimate under a placement (cli_memory.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"

struct cfg { int scale; int64_t seed; double tol; const char *out; int force; };

static g5_opt opts_for(struct cfg *c, int i)
{
    const g5_opt all[] = {
        {"scale", 's', G5_OPT_INT, &c->scale, "S", "log2 of vertices"},
        {"seed", 0, G5_OPT_INT64, &c->seed, "N", "seed"},
        {"tolerance", 0, G5_OPT_DOUBLE, &c->tol, "X", "tolerance"},
        {"output", 'o', G5_OPT_STRING, &c->out, "FILE", "output"},
        {"force", 'f', G5_OPT_FLAG, &c->force, "", "overwrite"},
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

/* getopt_long's forms: a value glued to its short option (gen -s10),
 * bundled flags, options after positional arguments, "--" ending options;
 * and a second parse in the same process starts from the beginning. */
Test(opts, glued_values_bundles_any_order_and_reparse)
{
    struct cfg c = {16, 1, 0.05, NULL, 0};
    const char *pos[4];
    int npos;
    char *a1[] = {"gen", "-s10", "in.h5", "-fo", "x.h5", "--tolerance", "-0.5"};
    cr_assert_eq(parse(&c, 7, a1, pos, &npos), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(c.scale, 10, "-s10");
    cr_expect_eq(c.force, 1, "-f bundled with -o");
    cr_expect_str_eq(c.out, "x.h5", "-o's value after the bundle");
    cr_expect_float_eq(c.tol, -0.5, 1e-12, "a value starting with '-'");
    cr_expect(npos == 1 && strcmp(pos[0], "in.h5") == 0, "the positional argument among options");
    struct cfg d = {16, 1, 0.05, NULL, 0};
    char *a2[] = {"gen", "--scale=12", "--", "-not-an-option"};
    cr_assert_eq(parse(&d, 4, a2, pos, &npos), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(d.scale, 12, "a second parse reads its own argv");
    cr_expect(npos == 1 && strcmp(pos[0], "-not-an-option") == 0, "after --, arguments are positional");
}

Test(opts, says_what_is_wrong)
{
    struct cfg c = {16, 1, 0.05, NULL, 0};
    const char *pos[4];
    int npos;
    char *a1[] = {"gen", "--force=yes"};
    cr_expect_eq(parse(&c, 2, a1, pos, &npos), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "--force takes no value") != NULL, "%s", g5_error_msg());
    char *a2[] = {"gen", "-x"};
    cr_expect_eq(parse(&c, 2, a2, pos, &npos), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "unknown option '-x'") != NULL, "%s", g5_error_msg());
    char *a3[] = {"gen", "-o"};
    cr_expect_eq(parse(&c, 2, a3, pos, &npos), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "--output needs a value") != NULL, "%s", g5_error_msg());
    char *a4[] = {"gen", "--seed"};
    cr_expect_eq(parse(&c, 2, a4, pos, &npos), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "--seed needs a value") != NULL, "%s", g5_error_msg());
    char *a5[] = {"gen", "a", "b", "c", "d", "e"};
    cr_expect_eq(parse(&c, 6, a5, pos, &npos), G5_ERR_ARG, "more positional arguments than allowed");
    cr_expect(strstr(g5_error_msg(), "unexpected argument 'e'") != NULL, "%s", g5_error_msg());
    char *a6[] = {"gen", "-h"};
    cr_expect_eq(parse(&c, 2, a6, pos, &npos), 1, "-h is help");
}

/* A placement (a file or in process) holds its relabelling of all N
 * vertices on every rank: the run's estimate grows by 8 bytes per vertex;
 * on many ranks a file's labels loading (17 bytes per vertex) is the peak. */
Test(memory, a_placement_adds_its_relabelling_on_every_rank)
{
    const int64_t N = (int64_t)1 << 26, M = 16 * N;
    cr_expect(fabs(cli_mem_run(N, M, 1, 0, 1) - cli_mem_run(N, M, 1, 0, 0) - 8.0 * (double)N) < 1.0,
              "one rank, a file: 8 bytes per vertex more");
    double in = cli_mem_run(N, M, 64, 1, 0), in_placed = cli_mem_run(N, M, 64, 1, 1);
    cr_expect(fabs(in_placed - in - 8.0 * (double)N) < 1.0, "64 ranks, components: %.0f more bytes",
              in_placed - in);
    double cyclic = cli_mem_run(N, M, 64, 0, 0), placed = cli_mem_run(N, M, 64, 0, 1);
    cr_expect(fabs(placed - 17.0 * (double)N) < 1.0 && placed > 3 * cyclic,
              "64 ranks, a file: the labels' load (%.0f) outweighs the rank's graph (%.0f)", placed,
              cyclic);
}
