/* SPDX-License-Identifier: MIT */
/*
 * common.h - the small layer every stage shares: status codes, the error
 * message, agreement of a status across ranks, rank-0 progress logging,
 * the even split of a range, the counted all-to-all exchange, number
 * parsing, timers and memory figures.
 *
 * Error convention (the whole project): library functions return an int
 * status, G5_OK (0) on success and a negative G5_ERR_* on failure, after
 * recording a one-line message with g5_error(). They never exit or abort;
 * only main() decides how to die. A collective function returns the same
 * status on every rank: each rank finishes its local phase, then calls
 * g5_agree(), which spreads the worst status and its message to all ranks.
 *
 * The message buffer is per process (like errno): it holds the last error
 * recorded, is overwritten by the next one, and is not thread safe; record
 * errors from the master thread only.
 */
#ifndef G500_COMMON_H
#define G500_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

enum g5_status {
    G5_OK = 0,
    G5_ERR_ARG = -1,      /* bad parameter or command line            */
    G5_ERR_IO = -2,       /* a file cannot be opened, read or written */
    G5_ERR_FORMAT = -3,   /* a file is not what it claims, or damaged */
    G5_ERR_NOMEM = -4,    /* an allocation failed                     */
    G5_ERR_MPI = -5,      /* an MPI call failed                       */
    G5_ERR_TOPO = -6,     /* a topology file is wrong                 */
    G5_ERR_MISMATCH = -7, /* two input files do not belong together   */
    G5_ERR_VALIDATE = -8, /* a kernel result failed validation        */
    G5_ERR_INTERNAL = -9, /* a broken invariant: a bug                */
    G5_ERR_EXISTS = -10,  /* an output exists and --force was not set */
    G5_ERR_REMOTE = -11   /* another rank failed (see the message)    */
};

/* Record an error message (printf format) and return code, so that
 * `return g5_error(G5_ERR_IO, "%s: cannot open", path);` reads naturally. */
int g5_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last recorded message ("" if none). Valid until the next g5_error. */
const char *g5_error_msg(void);
/* Short name of a status code ("I/O error", ...). */
const char *g5_status_name(int code);
/* Forget the recorded message. */
void g5_error_clear(void);

/* Collective on comm. Agree on a status: returns the most negative status of
 * all ranks (G5_OK if all are ok). When some rank failed, its message (the
 * lowest such rank's) is copied to every rank's message buffer. */
int g5_agree(MPI_Comm comm, int status);

/* Collective on comm. g5_agree for a rank that may have failed inside a
 * library collective (HDF5 over MPI-IO) that the other ranks did not leave:
 * a rank whose status is an error waits at most `seconds` for the others;
 * if they do not come, it keeps its own message, marks the process stuck
 * (g5_set_stuck) and returns its status, and main ends the job with
 * MPI_Abort. Ranks without an error wait as long as it takes (a slow rank
 * is not a failure). */
int g5_agree_within(MPI_Comm comm, int status, double seconds);

/* ---- temporary files and stuck ranks (tmpfiles.c) ------------------------
 * A writer registers the temporary name it writes ("NAME.tmp.<pid>") while
 * it may be left behind; g5_tmp_signals (main) makes SIGINT and SIGTERM
 * remove the registered files before dying, and main removes them before
 * MPI_Abort. Not collective; at most 8 at a time. */
void g5_tmp_add(const char *path);
void g5_tmp_forget(const char *path);
/* The registered temporary file in the last used slot ("" if none). */
const char *g5_tmp_current(void);
void g5_tmp_unlink_all(void);
void g5_tmp_signals(void);
/* Ends the whole job from this rank: removes the registered temporary
 * files, flushes stdout and stderr, gives the launcher a moment to forward
 * what this rank printed (MPICH's launcher dropped a message written just
 * before MPI_Abort), then MPI_Abort(MPI_COMM_WORLD, code). Never returns. */
_Noreturn void g5_abort_job(int code);
/* Whether path ("...NAME.tmp.<pid>") was left by a writer that is gone: no
 * such process on this host, a zombie, or one started after the file last
 * changed (pid reused). */
int g5_tmp_stale(const char *path);
/* Remove the stale "FINAL.tmp.<pid>" files next to final_path; returns how
 * many went. Not collective (one rank calls it). */
int g5_tmp_clear_stale(const char *final_path);
/* This rank cannot finish with the others (see g5_agree_within). */
void g5_set_stuck(void);
int g5_stuck(void);
double g5_stuck_since(void);   /* MPI_Wtime when it became stuck, 0 if not */
/* A write failed on this rank inside a library call (recorded by main's
 * MPI-IO error handler, with the OS or MPI error text): *since is when.
 * Returns 1 while the failure is pending, i.e. this rank has not come back
 * to an agreement since (g5_agree_within clears it). Thread safe. */
void g5_write_error_note(const char *why);
int g5_write_error_pending(double *since, char *why, size_t len);
void g5_write_error_clear(void);

/* ---- threads (limits.c) ------------------------------------------------
 * Not collective. G5_OK if this process can run `threads` OpenMP threads
 * (0: the default), else G5_ERR_ARG with the limit that refuses it: the
 * kernel's threads-max, the user's process limit (ulimit -u), or the
 * stacks (the stack limit times the threads beyond the machine's memory).
 * `what` names the option ("--threads"). */
int g5_threads_check(int threads, const char *what);

/* ---- memory per rank (limits.c) ------------------------------------------
 * Bytes this node offers (MemAvailable, or the cgroup's memory limit when
 * lower; -1 if unknown). Not collective. */
double g5_memory_offered(void);
/* Collective. The ranks of comm on this node (MPI_COMM_TYPE_SHARED). */
int g5_node_ranks(MPI_Comm comm);
/* What a process takes besides a stage's own arrays: MPI, HDF5, libraries. */
#define G5_MEM_PROCESS (32.0 * 1048576.0)
/* Collective. Refuse (G5_ERR_NOMEM) a stage whose estimated peak per rank,
 * `bytes` + G5_MEM_PROCESS, exceeds this node's memory divided by the
 * ranks of comm on it (MPI_COMM_TYPE_SHARED), with the figures: "WHAT
 * needs 1.2 TiB of memory per rank, this node offers 21.3 GiB for 2 ranks
 * (--force-size to try anyway)". `what` names what the size follows from
 * ("SCALE 40, edgefactor 16"). A no-op when force is non-zero. */
int g5_memory_check(MPI_Comm comm, const char *what, double bytes, int force);

/* "1.5 GiB", "245 MiB", "12 KiB", "100 B": binary units, 3 significant
 * digits. Returns buf. */
char *g5_format_bytes(char *buf, size_t len, double bytes);

/* Propagation helper: on failure jump to the function's cleanup label. */
#define G5_TRY(expr)                                                         \
    do {                                                                     \
        rc = (expr);                                                         \
        if (rc != G5_OK) goto out;                                           \
    } while (0)

/* Logging. g5_log_init sets the rank that prints (rank 0 of MPI_COMM_WORLD)
 * and the start time; g5_progress prints "[  12.3s] message" on stderr on
 * rank 0 only, unless quiet was set. Not collective. */
void g5_log_init(MPI_Comm comm, int quiet);
void g5_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int g5_log_rank(void);

/* Wall-clock seconds (MPI_Wtime). */
double g5_now(void);
/* Peak resident set size of this process in bytes (getrusage). */
int64_t g5_peak_rss(void);

/* Memory with a recorded error on failure: returns NULL after calling
 * g5_error(G5_ERR_NOMEM, "what: cannot allocate N bytes"). */
void *g5_malloc(size_t bytes, const char *what);
void *g5_calloc(size_t n, size_t size, const char *what);

/* ---- the even split of a range -------------------------------------------
 * [0, n) over nranks: rank r holds [*first, *first + *count), the first
 * n % nranks ranks one item more than the others. Not collective. */
void g5_range_split(int64_t n, int rank, int nranks, int64_t *first, int64_t *count);
/* The rank whose part of g5_range_split(n, ., nranks) holds v (0 <= v < n). */
int g5_range_owner(int64_t n, int nranks, int64_t v);

/* ---- the counted all-to-all exchange (exchange.c) -------------------------
 * Records of one MPI datatype travel between all ranks in two collective
 * steps; the caller makes room for what arrives in between, its own way.
 *
 *   g5_exchange_counts: this rank sends sc[r] records to rank r; every rank
 *     learns how many it receives from each (MPI_Alltoall): rc[r], their
 *     displacements rd[r] (packed in rank order) and the total *nrecv.
 *     status is the caller's status so far: a rank that already failed
 *     sends nothing (its sc is zeroed) but still takes part. Returns status,
 *     or a local error; not agreed: pass it on to g5_exchange_data.
 *   g5_exchange_data: agree on status (say, one rank could not make room),
 *     then the records (MPI_Alltoallv: sc[r] records from sbuf + sd[r] to
 *     rank r, rc[r] from rank r into rbuf + rd[r]), then agree on that.
 *     Returns the agreed status, the same on every rank.
 *
 * An answer goes back along the reverse pattern: g5_exchange_data with
 * (rc, rd) as what is sent and (sc, sd) as what is received. Counts and
 * displacements are in records ([nranks] int each), so a contiguous type
 * of k bytes carries up to INT_MAX records per rank. what names the data in
 * error messages. */
int g5_exchange_counts(MPI_Comm comm, int status, int *sc, int *rc, int *rd, int64_t *nrecv,
                       const char *what);
int g5_exchange_data(MPI_Comm comm, int status, MPI_Datatype type, const void *sbuf,
                     const int *sc, const int *sd, void *rbuf, const int *rc, const int *rd,
                     const char *what);

/* Parse helpers shared by option parsing and file parsers. */
int g5_parse_int64(const char *s, int64_t *out);
int g5_parse_double(const char *s, double *out);

/* ---- what built this binary (version.c) -------------------------------- */
/* git describe --always --dirty at build time ("0-nogit" outside git), the
 * full commit id ("unknown" outside git), the compiler version and flags.
 * Static strings. */
const char *g5_version(void);
const char *g5_commit(void);
const char *g5_compiler(void);

#endif
