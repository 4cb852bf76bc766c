/* SPDX-License-Identifier: MIT */
/*
 * run_search.c - the timed loop of `g500 run`, one for BFS and SSSP (the
 * driver owns trials, timing, validation outside the timer and the
 * per-key records, as GAPBS's BenchmarkKernel does; the kernels only
 * search).
 *
 * Per key: a barrier, the search under MPI_Wtime, the maximum of the
 * elapsed times over ranks (an allreduce after the clock stopped), the
 * status agreed only then; untimed: the TEPS edge count, then the key's
 * result is handed to the validation batch (kern_vbatch: its local checks
 * and tree depths now, kept as compact records). When the batch is full,
 * or after the last key, one pass over the edges validates every key of
 * the batch; each validator's edge count must equal the kernels'. A key's
 * validate time is its own part (conversion, local checks, depths) plus
 * the batch pass divided by the keys in the batch.
 *
 * With a scratch file (run --spill DIR), each key is parked there as it
 * is added (a parking batch) and no pass runs beside the graph: after the
 * searches, with the graph released, run_validate_parked reads the keys
 * back into batches as large as the memory now free allows (at SCALE 26 on
 * one 24 GiB node, a few dozen keys per pass instead of one).
 *
 * The batch size K is chosen once per kernel, after the first search (when
 * its workspace is in memory): the memory left under the lower of
 * the node's memory (g5_memory_offered: MemAvailable or the cgroup limit)
 * divided among its ranks and the higher of RUN_BYTES_PER_EDGE per input
 * edge and the run's peak so far, minus what the run holds, divided by
 * the bytes of one key, agreed as the minimum over ranks; between 1 and
 * min(64, keys), and from 8 up a multiple of 8 unless all keys fit (the
 * records of 8 keys fill a cache line: validate_edges.c).
 *
 * Progress on stderr in the reference's words ("Running BFS i", "Time for
 * BFS i is t", "Validating BFS i", "TEPS for BFS i is x"), plus the batch
 * pass; with --no-validate "Validation of BFS i skipped" and the validate
 * time -1, as the reference records it.
 */
#include "run.h"

#include "common.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static double max_elapsed(MPI_Comm comm, double t0)
{
    double t = g5_now() - t0, m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

/* This process's resident bytes now (-1: unknown). */
static int64_t rss_now(void)
{
    long pages = -1, res = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = -1;
        fclose(f);
    }
    return res < 0 ? -1 : (int64_t)res * sysconf(_SC_PAGESIZE);
}

int run_validate_batch_size(MPI_Comm comm, const char *name, int64_t nvertices, int64_t nedges,
                            int nroots)
{
    int P, me, local = g5_node_ranks(comm);
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int64_t held = rss_now(), avail = (int64_t)g5_memory_offered(), peak = g5_peak_rss();
    int64_t key = (int64_t)kern_vbatch_key_bytes(nvertices, me, P);
    /* the ceiling per input edge, for this rank's share of the edges, or
     * the peak the run already reached when higher: what the graph held is
     * free for keys parked until it was released */
    int64_t ceiling = (int64_t)((double)RUN_BYTES_PER_EDGE * (double)nedges / P);
    int64_t budget = (peak > ceiling ? peak : ceiling) - (held > 0 ? held : 0);
    if (avail >= 0 && avail / local < budget)
        budget = avail / local;
    /* transients besides the records: a key's jump words when no idle
     * memory is lent (at most one record's bytes per vertex), and the edge
     * stream's buffers */
    int64_t room = budget - key - ((int64_t)16 << 20);
    int64_t k = key > 0 && room > 0 ? room / key : 1;
    k = k < 1 ? 1 : k > KERN_VBATCH_MAX ? KERN_VBATCH_MAX : k;
    /* a vertex's records of 8 keys fill one cache line, and the pass is
     * bound by the lines it loads per endpoint: 16 keys (2 lines) cost
     * less per key than 22 (3 or 4 lines, unaligned) */
    k = k >= 8 ? k - k % 8 : k;
    k = k > nroots ? nroots : k;
    MPI_Allreduce(MPI_IN_PLACE, &k, 1, MPI_INT64_T, MPI_MIN, comm);
    g5_progress("%s validation: %d keys per pass over the edges (rank 0: holds %.1f MiB, "
                "%.1f MiB free under the lower of MemAvailable / %d and the higher of %d bytes "
                "per input edge and the peak so far, %.1f MiB per key)", name, (int)k,
                held / 1048576.0, budget / 1048576.0, local, RUN_BYTES_PER_EDGE, key / 1048576.0);
    return (int)k;
}

/* Collective. Validate the keys [lo, hi) held in b in one pass: each key's
 * validate time gets the pass divided by the keys; the first failing key
 * (lowest index) is returned as the run's failure, every failing key is
 * named on stderr. */
static int check_batch(MPI_Comm comm, const run_search *s, kern_vbatch *b, const int64_t *roots,
                       int lo, int hi, const int64_t *nedge, double *validate_time, int *invalid)
{
    int status[KERN_VBATCH_MAX], n = hi - lo, rc, bad = -1;
    int64_t counted[KERN_VBATCH_MAX];
    double t0 = g5_now();
    rc = kern_vbatch_check_file(b, s->ef, status, counted);
    double t = max_elapsed(comm, t0);
    if ((rc = g5_agree(comm, rc)) != G5_OK)
        return rc;
    g5_progress("Validation pass over the edges for %s %d to %d (%d keys): %f s, %f s per key",
                s->name, lo, hi - 1, n, t, t / n);
    for (int k = 0; k < n; k++) {
        int i = lo + k;
        validate_time[i] += t / n;
        if (status[k] == G5_OK && counted[k] != nedge[i]) {
            status[k] = G5_ERR_VALIDATE;
            g5_progress("Validation of %s %d (root %lld) failed: the validator counts %lld edges, "
                        "the kernels %lld", s->name, i, (long long)roots[i], (long long)counted[k],
                        (long long)nedge[i]);
            if (bad < 0)
                rc = g5_error(G5_ERR_VALIDATE, "%s root %lld: the validator counts %lld edges, "
                              "the kernels %lld", s->name, (long long)roots[i],
                              (long long)counted[k], (long long)nedge[i]);
        } else if (status[k] != G5_OK) {
            g5_progress("Validation of %s %d (root %lld) failed: %s", s->name, i,
                        (long long)roots[i], kern_vbatch_message(b, k));
            if (bad < 0)
                rc = g5_error(G5_ERR_VALIDATE, "%s", kern_vbatch_message(b, k));
        } else {
            g5_progress("Validation of %s %d passed (%f s)", s->name, i, validate_time[i]);
        }
        if (status[k] != G5_OK && bad < 0)
            bad = i;
    }
    *invalid = bad >= 0;
    return rc;
}

int run_timed_loop(MPI_Comm comm, const run_search *s, const int64_t *roots, int nroots,
                   int validate, double *time, int64_t *nedge, double *validate_time, int *invalid,
                   int *batch_out)
{
    int rc = G5_OK, kmax = 0, lo = 0;
    kern_vbatch *b = NULL;
    *batch_out = 0;
    for (int i = 0; i < nroots; i++) {
        g5_progress("Running %s %d", s->name, i);
        MPI_Barrier(comm);
        double t0 = g5_now();
        rc = s->run(s->ctx, i, roots[i]);
        time[i] = max_elapsed(comm, t0);
        if ((rc = g5_agree(comm, rc)) != G5_OK)
            goto out;
        g5_progress("Time for %s %d is %f", s->name, i, time[i]);
        if ((rc = s->reached(s->ctx, &nedge[i])) != G5_OK)
            goto out;
        g5_progress("TEPS for %s %d is %g", s->name, i, (double)nedge[i] / time[i]);
        validate_time[i] = -1;
        if (!validate) {
            g5_progress("Validation of %s %d skipped (--no-validate)", s->name, i);
            continue;
        }
        if (!b) {
            kmax = s->spill ? 1 : run_validate_batch_size(comm, s->name, s->nvertices, s->nedges,
                                                          nroots);
            *batch_out = kmax;
            rc = s->spill ? kern_vbatch_create_parking(comm, s->nvertices, s->sssp, s->spill, &b)
                          : kern_vbatch_create(comm, s->nvertices, kmax, s->sssp, &b);
            if (rc != G5_OK)
                goto out;
        }
        g5_progress("Validating %s %d", s->name, i);
        t0 = g5_now();
        rc = s->keep(s->ctx, b, roots[i]);
        validate_time[i] = max_elapsed(comm, t0);
        if ((rc = g5_agree(comm, rc)) != G5_OK)
            goto out;
        if (s->spill)
            s->parked[i] = kern_vbatch_parked_at(b);
        if (!s->spill && (kern_vbatch_keys(b) == kmax || i == nroots - 1)) {
            rc = check_batch(comm, s, b, roots, lo, i + 1, nedge, validate_time, invalid);
            if (rc != G5_OK)
                goto out;
            lo = i + 1;
        }
    }
out:
    kern_vbatch_free(&b);
    return rc;
}

int run_validate_parked(MPI_Comm comm, const run_search *s, const int64_t *roots, int nroots,
                        const int64_t *nedge, double *validate_time, int *invalid, int *batch)
{
    int kmax = run_validate_batch_size(comm, s->name, s->nvertices, s->nedges, nroots);
    int npass = (nroots + kmax - 1) / kmax, per = (nroots + npass - 1) / npass;
    kern_vbatch *b = NULL;
    *batch = per;
    /* room for kmax keys, so that a vertex's records keep starting on a
     * cache line when a pass holds fewer */
    int rc = kern_vbatch_create(comm, s->nvertices, kmax, s->sssp, &b);
    for (int lo = 0; rc == G5_OK && lo < nroots; lo += per) {
        int hi = lo + per < nroots ? lo + per : nroots;
        for (int i = lo; rc == G5_OK && i < hi; i++) {
            double t0 = g5_now();
            rc = kern_vbatch_unpark(b, s->spill, s->parked[i]);
            validate_time[i] += max_elapsed(comm, t0);
        }
        if (rc == G5_OK)
            rc = check_batch(comm, s, b, roots, lo, hi, nedge, validate_time, invalid);
    }
    kern_vbatch_free(&b);
    return rc;
}
