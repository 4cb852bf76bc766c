/* SPDX-License-Identifier: MIT */
/*
 * mpitest.h - a tiny harness for MPI test programs run at 1, 2 and 4 ranks.
 *
 * A test case is a function run on every rank that returns 1 (pass) or 0
 * (fail) locally; MT_RUN agrees on the result with an allreduce, so a case
 * passes only if it passed on every rank, and rank 0 prints PASS or FAIL.
 * mt_finish prints "N passed, N failed" (what tests/run-tests.sh counts) and
 * returns the exit code. MT_CHECK records a local failure with a message.
 */
#ifndef G500_MPITEST_H
#define G500_MPITEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int mt_passed, mt_failed;

#define MT_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond)) {                                                        \
            int mt_r_;                                                        \
            MPI_Comm_rank(MPI_COMM_WORLD, &mt_r_);                            \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", mt_r_,      \
                    __FILE__, __LINE__, #cond);                               \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            ok = 0;                                                           \
        }                                                                     \
    } while (0)

static inline void mt_run(const char *name, int (*fn)(void))
{
    int rank, local = fn(), all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all) mt_passed++; else mt_failed++;
    if (rank == 0) {
        printf("%s %s\n", all ? "PASS" : "FAIL", name);
        fflush(stdout);
    }
}
#define MT_RUN(fn) mt_run(#fn, fn)

/* Agreement checks of the fault-injection tests: mt_same_everywhere(v) is 1
 * if v is the same on every rank (checked by min and max); mt_hash(s), an
 * FNV-1a hash of a message, lets them compare error texts across ranks. */
static inline uint64_t mt_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static inline int mt_same_everywhere(int64_t v)
{
    int64_t lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

static inline int mt_finish(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("%d passed, %d failed\n", mt_passed, mt_failed);
        fflush(stdout);
    }
    MPI_Finalize();
    return mt_failed ? 1 : 0;
}

#endif
