/* SPDX-License-Identifier: MIT */
/*
 * cli.c - option parsing with getopt_long from a subcommand's g5_opt
 * table, its help table, a command's failure line and the --json output
 * (cli.h).
 */
#include "cli.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "common.h"
#include "io.h"

#define CLI_MAXOPTS 64

static int set_value(const g5_opt *o, const char *val)
{
    int64_t i;
    double d;
    switch (o->type) {
    case G5_OPT_INT:
        if (g5_parse_int64(val, &i) || i < -2147483647LL || i > 2147483647LL)
            return g5_error(G5_ERR_ARG, "--%s: '%s' is not an integer", o->name, val);
        *(int *)o->dest = (int)i;
        return G5_OK;
    case G5_OPT_INT64:
        if (g5_parse_int64(val, &i))
            return g5_error(G5_ERR_ARG, "--%s: '%s' is not an integer", o->name, val);
        *(int64_t *)o->dest = i;
        return G5_OK;
    case G5_OPT_DOUBLE:
        if (g5_parse_double(val, &d))
            return g5_error(G5_ERR_ARG, "--%s: '%s' is not a number", o->name, val);
        *(double *)o->dest = d;
        return G5_OK;
    case G5_OPT_STRING:
        *(const char **)o->dest = val;
        return G5_OK;
    case G5_OPT_FLAG:
        *(int *)o->dest = 1;
        return G5_OK;
    }
    return g5_error(G5_ERR_INTERNAL, "option --%s has an unknown type", o->name);
}

/* The argument getopt_long stopped at, for messages. */
static const char *bad_arg(int argc, char **argv)
{
    return optind - 1 > 0 && optind - 1 < argc ? argv[optind - 1] : "?";
}

int g5_opts_parse(int argc, char **argv, const g5_opt *opts, int nopts,
                  const char **pos, int maxpos, int *npos)
{
    struct option lo[CLI_MAXOPTS + 2];
    char so[3 * CLI_MAXOPTS + 4];
    int ns = 0;
    *npos = 0;
    if (nopts > CLI_MAXOPTS)
        return g5_error(G5_ERR_INTERNAL, "more than %d options in one table", CLI_MAXOPTS);
    /* ':' first: a missing value is reported as ':', not printed by getopt */
    so[ns++] = ':';
    for (int i = 0; i < nopts; i++) {
        int arg = opts[i].type == G5_OPT_FLAG ? no_argument : required_argument;
        lo[i] = (struct option){opts[i].name, arg, NULL, 256 + i};
        if (opts[i].short_name) {
            so[ns++] = opts[i].short_name;
            if (arg == required_argument)
                so[ns++] = ':';
        }
    }
    so[ns++] = 'h';
    so[ns] = '\0';
    lo[nopts] = (struct option){"help", no_argument, NULL, 'h'};
    lo[nopts + 1] = (struct option){NULL, 0, NULL, 0};

    /* every call parses from the start (commands run more than once in one
     * process in the tests); getopt prints nothing, we say what is wrong */
    optind = 0;
    opterr = 0;
    int c, li;
    while ((c = getopt_long(argc, argv, so, lo, &li)) != -1) {
        const g5_opt *o = NULL;
        if (c == 'h')
            return 1;
        if (c >= 256)
            o = &opts[c - 256];
        for (int i = 0; !o && c > 0 && c < 256 && i < nopts; i++)
            if (opts[i].short_name == c)
                o = &opts[i];
        if (c == ':') {
            for (int i = 0; !o && i < nopts; i++)
                if (optopt ? opts[i].short_name == optopt || 256 + i == optopt
                           : strncmp(bad_arg(argc, argv), "--", 2) == 0 &&
                                 strcmp(bad_arg(argc, argv) + 2, opts[i].name) == 0)
                    o = &opts[i];
            return o ? g5_error(G5_ERR_ARG, "--%s needs a value", o->name)
                     : g5_error(G5_ERR_ARG, "'%s' needs a value", bad_arg(argc, argv));
        }
        if (c == '?' || !o) {
            const char *a = bad_arg(argc, argv);
            const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
            for (int i = 0; eq && i < nopts; i++)
                if (opts[i].type == G5_OPT_FLAG && strlen(opts[i].name) == (size_t)(eq - a - 2) &&
                    strncmp(a + 2, opts[i].name, (size_t)(eq - a - 2)) == 0)
                    return g5_error(G5_ERR_ARG, "--%s takes no value", opts[i].name);
            if (strncmp(a, "--", 2) != 0 && optopt > 0 && optopt < 256)
                return g5_error(G5_ERR_ARG, "unknown option '-%c' (see --help)", optopt);
            return g5_error(G5_ERR_ARG, "unknown option '%s' (see --help)", a);
        }
        if (set_value(o, optarg) != G5_OK)
            return G5_ERR_ARG;
    }
    for (int i = optind; i < argc; i++) {
        if (*npos >= maxpos)
            return g5_error(G5_ERR_ARG, "unexpected argument '%s' (see --help)", argv[i]);
        pos[(*npos)++] = argv[i];
    }
    return G5_OK;
}

void g5_opts_help(FILE *f, const char *usage, const char *summary,
                  const g5_opt *opts, int nopts)
{
    fprintf(f, "usage: %s\n\n%s\n\noptions:\n", usage, summary);
    for (int i = 0; i < nopts; i++) {
        const g5_opt *o = &opts[i];
        char left[64], def[96] = "";
        const char *sp = o->type == G5_OPT_FLAG ? "" : " ";
        const char *meta = o->type == G5_OPT_FLAG || !o->meta ? "" : o->meta;
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, sp, meta);
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, sp, meta);
        switch (o->type) {
        case G5_OPT_INT: snprintf(def, sizeof def, " (default %d)", *(int *)o->dest); break;
        case G5_OPT_INT64: snprintf(def, sizeof def, " (default %lld)", (long long)*(int64_t *)o->dest); break;
        case G5_OPT_DOUBLE: snprintf(def, sizeof def, " (default %g)", *(double *)o->dest); break;
        case G5_OPT_STRING:
            if (*(const char **)o->dest)
                snprintf(def, sizeof def, " (default %s)", *(const char **)o->dest);
            break;
        case G5_OPT_FLAG: break;
        }
        fprintf(f, "  %-28s %s%s\n", left, o->help, def);
    }
    fprintf(f, "  %-28s %s\n", "-h, --help", "show this help");
}

int cli_parse(int argc, char **argv, const g5_opt *opts, int nopts, const char **pos, int maxpos,
              int *npos, const char *usage, const char *summary, int want, const char *want_error)
{
    int rc = g5_opts_parse(argc, argv, opts, nopts, pos, maxpos, npos);
    if (rc == 1 && g5_log_rank())
        g5_opts_help(stdout, usage, summary, opts, nopts);
    if (rc == G5_OK && want >= 0 && *npos != want)
        rc = g5_error(G5_ERR_ARG, "%s", want_error);
    if (rc == G5_OK)
        rc = cli_threads_env_check();
    return rc;
}

int cli_threads_env_check(void)
{
    /* OMP_NUM_THREADS is a list ("8,2": nesting levels); the first level
     * is what a parallel region creates. */
    const char *env = getenv("OMP_NUM_THREADS");
    int64_t n;
    char first[32];
    if (!env || !*env)
        return G5_OK;
    snprintf(first, sizeof first, "%.*s", (int)strcspn(env, ","), env);
    if (g5_parse_int64(first, &n) || n < 1)
        return g5_error(G5_ERR_ARG, "OMP_NUM_THREADS='%s' is not a positive number of threads", env);
    return g5_threads_check(n > 2147483647 ? 2147483647 : (int)n, "OMP_NUM_THREADS");
}

int g5_cmd_fail(const char *cmd, int status)
{
    /* A stuck rank prints its own message: the others cannot hear it. */
    if (g5_log_rank() || g5_stuck()) {
        const char *msg = g5_error_msg();
        fprintf(stderr, "g500 %s: error: %s\n", cmd, msg[0] ? msg : g5_status_name(status));
        fflush(stderr);
    }
    return status == G5_ERR_ARG ? 2 : 1;
}

int cli_json_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

int cli_json_check(MPI_Comm comm, const char *path, const char *input)
{
    if (!path || cli_json_stdout(path))
        return G5_OK;
    return io_file_check_output(comm, path, 1, input);
}

int cli_json_write(MPI_Comm comm, const char *path, void (*emit)(FILE *f, const void *ctx),
                   const void *ctx)
{
    int rank, rc = G5_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && cli_json_stdout(path)) {
        emit(stdout, ctx);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = g5_error(G5_ERR_IO, "standard output: write failed");
    } else if (rank == 0) {
        g5_atomic a;
        rc = g5_atomic_open(&a, path);
        if (rc == G5_OK) {
            emit(a.f, ctx);
            rc = g5_atomic_commit(&a);
        }
    }
    return g5_agree(comm, rc);
}
