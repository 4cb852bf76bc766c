/* SPDX-License-Identifier: MIT */
/*
 * run_search.c - the timed loop of `g500 run`, one for BFS and SSSP (the
 * driver owns trials, timing, validation outside the timer and the
 * per-key records, as GAPBS's BenchmarkKernel does; the kernels only
 * search).
 *
 * Per key: a barrier, the search under MPI_Wtime, the maximum of the
 * elapsed times over ranks (an allreduce after the clock stopped), the
 * status agreed only then; untimed: the TEPS edge count and validation,
 * whose edge count must equal the kernels'. Progress on stderr in the
 * reference's words ("Running BFS i", "Time for BFS i is t", "Validating
 * BFS i", "TEPS for BFS i is x"); with --no-validate "Validation of BFS i
 * skipped" and the validate time -1, as the reference records it.
 */
#include "run.h"

#include "common.h"

static double max_elapsed(MPI_Comm comm, double t0)
{
    double t = g5_now() - t0, m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

int run_timed_loop(MPI_Comm comm, const run_search *s, const int64_t *roots, int nroots,
                   int validate, double *time, int64_t *nedge, double *validate_time, int *invalid)
{
    int rc = G5_OK;
    for (int i = 0; i < nroots; i++) {
        g5_progress("Running %s %d", s->name, i);
        MPI_Barrier(comm);
        double t0 = g5_now();
        rc = s->run(s->ctx, i, roots[i]);
        time[i] = max_elapsed(comm, t0);
        if ((rc = g5_agree(comm, rc)) != G5_OK)
            return rc;
        g5_progress("Time for %s %d is %f", s->name, i, time[i]);
        if ((rc = s->reached(s->ctx, &nedge[i])) != G5_OK)
            return rc;
        validate_time[i] = -1;
        if (validate) {
            g5_progress("Validating %s %d", s->name, i);
            int64_t counted = -1;
            t0 = g5_now();
            rc = s->validate(s->ctx, roots[i], &counted);
            validate_time[i] = max_elapsed(comm, t0);
            if (rc == G5_OK && counted != nedge[i])
                rc = g5_error(G5_ERR_VALIDATE, "%s root %lld: the validator counts %lld edges, the kernels %lld",
                              s->name, (long long)roots[i], (long long)counted, (long long)nedge[i]);
            if ((rc = g5_agree(comm, rc)) != G5_OK) {
                *invalid = rc == G5_ERR_VALIDATE;
                return rc;
            }
        } else {
            g5_progress("Validation of %s %d skipped (--no-validate)", s->name, i);
        }
        g5_progress("TEPS for %s %d is %g", s->name, i, nedge[i] / time[i]);
    }
    return rc;
}
