/* SPDX-License-Identifier: MIT */
/*
 * common.c - status messages and their agreement across ranks, progress
 * logging, timers, memory figures, the even split of a range and number
 * parsing.
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
#include <time.h>

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

/* The agreed status; a failure's message (that of the lowest rank holding
 * it, `from`) copied to every rank. Collective on failure only. */
static int spread_failure(MPI_Comm comm, int status, int from)
{
    if (status == G5_OK)
        return G5_OK;
    if (MPI_Bcast(g5_msg, G5_MSG_MAX, MPI_CHAR, from, comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "MPI_Bcast failed while agreeing on a status");
    g5_msg[G5_MSG_MAX - 1] = '\0';
    return status;
}

int g5_agree(MPI_Comm comm, int status)
{
    int rank;
    struct { int status; int rank; } in, out;
    /* A stuck rank waits for nobody: the others cannot come (tmpfiles.c). */
    if (g5_stuck())
        return status != G5_OK ? status : G5_ERR_REMOTE;
    MPI_Comm_rank(comm, &rank);
    in.status = status;
    in.rank = rank;
    if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "MPI_Allreduce failed while agreeing on a status");
    return spread_failure(comm, out.status, out.rank);
}

int g5_agree_within(MPI_Comm comm, int status, double seconds)
{
    int rank, done = 0;
    struct { int status; int rank; } in, out;
    MPI_Request req;
    double t0 = MPI_Wtime();
    /* This rank is back from the library: the wait below is bounded. */
    g5_write_error_clear();
    if (g5_stuck())
        return status != G5_OK ? status : G5_ERR_REMOTE;
    MPI_Comm_rank(comm, &rank);
    in.status = status;
    in.rank = rank;
    if (MPI_Iallreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm, &req) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "MPI_Iallreduce failed while agreeing on a status");
    while (!done) {
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return g5_error(G5_ERR_MPI, "MPI_Test failed while agreeing on a status");
        if (done)
            break;
        if (status != G5_OK && MPI_Wtime() - t0 > seconds) {
            /* The others are held inside the collective this rank left:
             * nothing but MPI_Abort frees them (the request stays pending). */
            g5_set_stuck();
            return status;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return spread_failure(comm, out.status, out.rank);
}

char *g5_format_bytes(char *buf, size_t len, double bytes)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%.0f B", bytes);
    else
        snprintf(buf, len, "%.*f %s", bytes < 10 ? 2 : bytes < 100 ? 1 : 0, bytes, units[u]);
    return buf;
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
