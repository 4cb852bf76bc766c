/* SPDX-License-Identifier: MIT */
/*
 * common.c - status messages and their agreement across ranks, progress
 * logging, timers, memory figures and command-line option parsing.
 *
 * Agreement (g5_agree) follows the parallel-HDF5 test habit: every rank
 * finishes its local phase, then one MPI_Allreduce(MINLOC) finds the worst
 * status and the lowest rank holding it, and that rank broadcasts its
 * message, so every rank returns the same status and can print the same
 * sentence. Two collectives only on failure paths, one on success.
 */
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define G5_MSG_MAX 1024

static char g5_msg[G5_MSG_MAX];
static int g5_rank_printing = 0;
static int g5_quiet = 0;
static double g5_t0 = 0.0;

int g5_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g5_msg, sizeof g5_msg, fmt, ap);
    va_end(ap);
    return code;
}

const char *g5_error_msg(void) { return g5_msg; }
void g5_error_clear(void) { g5_msg[0] = '\0'; }

const char *g5_status_name(int code)
{
    switch (code) {
    case G5_OK: return "ok";
    case G5_ERR_ARG: return "bad argument";
    case G5_ERR_IO: return "I/O error";
    case G5_ERR_FORMAT: return "bad file format";
    case G5_ERR_NOMEM: return "out of memory";
    case G5_ERR_MPI: return "MPI error";
    case G5_ERR_TOPO: return "bad topology";
    case G5_ERR_MISMATCH: return "files do not match";
    case G5_ERR_VALIDATE: return "validation failed";
    case G5_ERR_INTERNAL: return "internal error";
    case G5_ERR_EXISTS: return "output exists";
    case G5_ERR_REMOTE: return "another rank failed";
    default: return "unknown error";
    }
}

int g5_agree(MPI_Comm comm, int status)
{
    int rank;
    struct { int status; int rank; } in, out;
    MPI_Comm_rank(comm, &rank);
    in.status = status;
    in.rank = rank;
    if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "MPI_Allreduce failed while agreeing on a status");
    if (out.status == G5_OK)
        return G5_OK;
    if (MPI_Bcast(g5_msg, G5_MSG_MAX, MPI_CHAR, out.rank, comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "MPI_Bcast failed while agreeing on a status");
    g5_msg[G5_MSG_MAX - 1] = '\0';
    return out.status;
}

void g5_log_init(MPI_Comm comm, int quiet)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    g5_rank_printing = (rank == 0);
    g5_quiet = quiet;
    g5_t0 = MPI_Wtime();
}

int g5_log_rank(void) { return g5_rank_printing; }

void g5_progress(const char *fmt, ...)
{
    va_list ap;
    char line[G5_MSG_MAX];
    if (!g5_rank_printing || g5_quiet)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%8.2fs] %s\n", MPI_Wtime() - g5_t0, line);
    fflush(stderr);
}

double g5_now(void) { return MPI_Wtime(); }

int64_t g5_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return (int64_t)ru.ru_maxrss * 1024; /* Linux reports KiB */
}

void g5_range_split(int64_t n, int rank, int nranks, int64_t *first, int64_t *count)
{
    int64_t q = n / nranks, r = n % nranks;
    *first = rank * q + (rank < r ? rank : r);
    *count = q + (rank < r ? 1 : 0);
}

int g5_range_owner(int64_t n, int nranks, int64_t v)
{
    int64_t q = n / nranks, r = n % nranks;
    int64_t big = r * (q + 1); /* items held by the ranks with one more */
    if (v < big)
        return (int)(v / (q + 1));
    return (int)(r + (v - big) / q);
}

void *g5_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        g5_error(G5_ERR_NOMEM, "%s: cannot allocate %zu bytes", what, bytes);
    return p;
}

void *g5_calloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        g5_error(G5_ERR_NOMEM, "%s: cannot allocate %zu x %zu bytes", what, n, size);
    return p;
}

int g5_parse_int64(const char *s, int64_t *out)
{
    char *end;
    long long v;
    if (!s || !*s)
        return G5_ERR_ARG;
    errno = 0;
    v = strtoll(s, &end, 0);
    if (errno || *end)
        return G5_ERR_ARG;
    *out = v;
    return G5_OK;
}

int g5_parse_double(const char *s, double *out)
{
    char *end;
    double v;
    if (!s || !*s)
        return G5_ERR_ARG;
    errno = 0;
    v = strtod(s, &end);
    if (errno || *end)
        return G5_ERR_ARG;
    *out = v;
    return G5_OK;
}

static const g5_opt *find_long(const g5_opt *opts, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
            return &opts[i];
    return NULL;
}

static const g5_opt *find_short(const g5_opt *opts, int n, char c)
{
    for (int i = 0; i < n; i++)
        if (opts[i].short_name && opts[i].short_name == c)
            return &opts[i];
    return NULL;
}

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

int g5_opts_parse(int argc, char **argv, const g5_opt *opts, int nopts,
                  const char **pos, int maxpos, int *npos)
{
    int only_pos = 0;
    *npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const g5_opt *o = NULL;
        const char *val = NULL;
        if (!only_pos && strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (!only_pos && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0))
            return 1;
        if (!only_pos && a[0] == '-' && a[1] == '-' && a[2]) {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            o = find_long(opts, nopts, a + 2, len);
            if (!o)
                return g5_error(G5_ERR_ARG, "unknown option '%.*s' (see --help)", (int)(len + 2), a);
            if (eq) {
                if (o->type == G5_OPT_FLAG)
                    return g5_error(G5_ERR_ARG, "--%s takes no value", o->name);
                val = eq + 1;
            }
        } else if (!only_pos && a[0] == '-' && a[1] && a[1] != '-' && !a[2] &&
                   !(a[1] >= '0' && a[1] <= '9')) {
            o = find_short(opts, nopts, a[1]);
            if (!o)
                return g5_error(G5_ERR_ARG, "unknown option '%s' (see --help)", a);
        } else {
            if (*npos >= maxpos)
                return g5_error(G5_ERR_ARG, "unexpected argument '%s' (see --help)", a);
            pos[(*npos)++] = a;
            continue;
        }
        if (o->type != G5_OPT_FLAG && !val) {
            if (i + 1 >= argc)
                return g5_error(G5_ERR_ARG, "--%s needs a value", o->name);
            val = argv[++i];
        }
        if (set_value(o, val) != G5_OK)
            return G5_ERR_ARG;
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
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name,
                     o->type == G5_OPT_FLAG ? "" : " ", o->type == G5_OPT_FLAG ? "" : o->meta);
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name,
                     o->type == G5_OPT_FLAG ? "" : " ", o->type == G5_OPT_FLAG ? "" : o->meta);
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

int g5_cmd_fail(const char *cmd, int status)
{
    if (g5_rank_printing) {
        fprintf(stderr, "g500 %s: error: %s\n", cmd,
                g5_msg[0] ? g5_msg : g5_status_name(status));
        fflush(stderr);
    }
    return status == G5_ERR_ARG ? 2 : 1;
}
