/* SPDX-License-Identifier: MIT */
/*
 * mpi_cc_stats.c - the edge counts and the duplicate count over ranks
 * (cc_count_edges, cc_count_distinct) against a serial brute force of the
 * whole list, at 1, 2 and 4 ranks and 1 and 2 threads: each rank passes
 * its block of a skewed random list with self-loops and repeated pairs
 * (in one case half the list one pair, so the duplicate count's one-pass
 * regions overflow on the owner rank); the duplicate count in pieces
 * (cc_dup_*) with the same lists, with one rank's pieces short of its
 * slab (that rank then places its slab again by the exact scatter), and
 * added one at a time from the threads of a parallel region, with one
 * rank's create announcing half its slab. And lists with vertex ids near
 * n - 1 at each stored record width (n = 2^20: 4 bytes, 2^24 + 1: 5,
 * 2^28: 6, 2^32: 7), and at n = 2 and 3 (2 classes: owners without one),
 * on every rank count and on a communicator of 3 ranks (at 4: owners of
 * uneven class ranges, 85 or 86 classes of 256).
 */
#include "cc_internal.h"
#include "common.h"
#include "mpitest.h"
#include "../cc_tuples.h"

#include <omp.h>
#include <stdlib.h>

/* The whole list (the same on every rank), labels = smallest vertex of a
 * component by repeated relaxation (independent of cc_forest; -1 isolated). */
static int check_list(int64_t m, int repeated)
{
    int ok = 1, rank, p;
    const int64_t n = m / 3 + 5;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int64_t *e = malloc((size_t)(m + 1) * 16), want_loops = 0;
    int64_t *mn = malloc((size_t)n * 8), *want_ce = calloc((size_t)n, 8);
    int32_t *label = malloc((size_t)n * 4);
    uint64_t state = 99 + (uint64_t)m + (uint64_t)repeated;
    cct_skewed(e, m, n, &state, 41, 3, repeated, 4);
    const int64_t want_d = cct_distinct(e, m, n, &want_loops), nk = m - want_loops;
    for (int64_t v = 0; v < n; v++)
        mn[v] = v;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int64_t i = 0; i < m; i++) {
            int64_t a = e[2 * i], b = e[2 * i + 1], x = mn[a] < mn[b] ? mn[a] : mn[b];
            if (mn[a] != x || mn[b] != x)
                changed = 1;
            mn[a] = mn[b] = x;
        }
    }
    for (int64_t v = 0; v < n; v++)
        label[v] = (int32_t)mn[v];  /* a component id in [0, n): any ids will do */
    for (int64_t i = 0; i < m; i++)
        if (e[2 * i] != e[2 * i + 1])
            want_ce[label[e[2 * i]]]++;
    const int64_t first = m * rank / p, count = m * (rank + 1) / p - first;
    for (int t = 1; t <= 2; t++) {
        int64_t *ce = calloc((size_t)n, 8), c[2] = {0, 0};
        int64_t d = -1;
        cc_count_edges(label, n, e + 2 * first, count, t, ce, &c[0], &c[1]);
        MT_CHECK(cc_count_distinct(MPI_COMM_WORLD, n, e + 2 * first, count, t, &d) == G5_OK, "%s",
                 g5_error_msg());
        MPI_Allreduce(MPI_IN_PLACE, c, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, ce, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MT_CHECK(d == want_d, "m=%lld repeated=%d threads=%d: distinct %lld, want %lld", (long long)m, repeated, t,
                 (long long)d, (long long)want_d);
        MT_CHECK(c[0] == want_loops && c[1] == nk, "self-loops %lld want %lld, non-loop %lld want %lld",
                 (long long)c[0], (long long)want_loops, (long long)c[1], (long long)nk);
        for (int64_t v = 0; v < n && ok; v++)
            MT_CHECK(ce[v] == want_ce[v], "component %lld: %lld edges, want %lld", (long long)v,
                     (long long)ce[v], (long long)want_ce[v]);
        free(ce);
        /* in pieces: three, the last left out on rank 0 when short */
        for (int shortp = 0; shortp < 2; shortp++) {
            cc_dup *dp = NULL;
            int64_t d3 = -3;
            const int64_t a = count / 3, b = 2 * count / 3;
            MT_CHECK(cc_dup_create(MPI_COMM_WORLD, n, count, t, &dp) == G5_OK, "%s", g5_error_msg());
            cc_dup_add(dp, e + 2 * (first + a), b - a);
            cc_dup_add(dp, e + 2 * first, a);
            if (!(shortp && rank == 0))
                cc_dup_add(dp, e + 2 * (first + b), count - b);
            MT_CHECK(cc_dup_finish(MPI_COMM_WORLD, dp, e + 2 * first, count, &d3) == G5_OK, "%s", g5_error_msg());
            MT_CHECK(d3 == want_d, "m=%lld repeated=%d threads=%d short=%d: %lld distinct in pieces, want %lld",
                     (long long)m, repeated, t, shortp, (long long)d3, (long long)want_d);
            cc_dup_free(&dp);
        }
        /* one at a time from the threads of a parallel region; with the
         * create announcing half the slab on rank 0 (that rank alone then
         * places its slab again) */
        for (int half = 0; half < 2; half++) {
            cc_dup *dp = NULL;
            int64_t d4 = -4;
            const int64_t piece = 777;
            MT_CHECK(cc_dup_create(MPI_COMM_WORLD, n, half && rank == 0 ? count / 2 : count, t, &dp) == G5_OK, "%s",
                     g5_error_msg());
#pragma omp parallel num_threads(t)
            {
                const int w = omp_get_thread_num(), nw = omp_get_num_threads();
                for (int64_t k = w; k * piece < count; k += nw) {
                    const int64_t lo = k * piece, len = count - lo < piece ? count - lo : piece;
#pragma omp critical
                    cc_dup_add(dp, e + 2 * (first + lo), len);
                }
            }
            MT_CHECK(cc_dup_finish(MPI_COMM_WORLD, dp, e + 2 * first, count, &d4) == G5_OK, "%s", g5_error_msg());
            MT_CHECK(d4 == want_d, "m=%lld repeated=%d threads=%d half=%d: %lld distinct added by threads, want %lld",
                     (long long)m, repeated, t, half, (long long)d4, (long long)want_d);
            cc_dup_free(&dp);
        }
    }
    free(e); free(mn); free(want_ce); free(label);
    return ok;
}

/* Distinct pairs by a sort of unsigned keys (injective for n <= 2^32). */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The whole list of m tuples with ids near n - 1 (and some near 0), a
 * third of them earlier pairs again (reversed or not), on comm: each
 * rank passes its block, whole and in two pieces. */
static int check_high(MPI_Comm comm, int64_t m, int64_t n)
{
    int ok = 1, rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int64_t *e = malloc((size_t)m * 16), want = 0, nk = 0;
    uint64_t *k = malloc((size_t)m * 8), s = 7 + (uint64_t)n;
    const int64_t span = n < 3000 ? n : 3000;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t r = cct_rnd(&s);
        int64_t u = n - 1 - (int64_t)((r >> 8) % (uint64_t)span), v = n - 1 - (int64_t)((r >> 32) % (uint64_t)span);
        if (r % 5 == 0)
            u = (int64_t)((r >> 20) % (uint64_t)span);
        if (i > 0 && i % 3 == 1) {
            const int64_t j = (int64_t)((r >> 4) % (uint64_t)i);
            u = e[2 * j + (r & 1)];
            v = e[2 * j + 1 - (r & 1)];
        }
        e[2 * i] = u;
        e[2 * i + 1] = i % 101 == 7 ? u : v;
        if (u != e[2 * i + 1])
            k[nk++] = (uint64_t)(u < v ? u : v) * (uint64_t)n + (uint64_t)(u < v ? v : u);
    }
    qsort(k, (size_t)nk, sizeof *k, cmp_u64);
    for (int64_t i = 0; i < nk; i++)
        want += i == 0 || k[i] != k[i - 1];
    const int64_t first = m * rank / p, count = m * (rank + 1) / p - first, half = count / 2;
    for (int t = 1; t <= 2; t++) {
        int64_t d = -1, d2 = -2;
        cc_dup *dp = NULL;
        MT_CHECK(cc_count_distinct(comm, n, e + 2 * first, count, t, &d) == G5_OK, "%s", g5_error_msg());
        MT_CHECK(cc_dup_create(comm, n, count, t, &dp) == G5_OK, "%s", g5_error_msg());
        cc_dup_add(dp, e + 2 * (first + half), count - half);
        cc_dup_add(dp, e + 2 * first, half);
        MT_CHECK(cc_dup_finish(comm, dp, e + 2 * first, count, &d2) == G5_OK, "%s", g5_error_msg());
        cc_dup_free(&dp);
        MT_CHECK(d == want && d2 == want, "n=%lld, %d ranks, %d threads: %lld distinct (in pieces %lld), want %lld",
                 (long long)n, p, t, (long long)d, (long long)d2, (long long)want);
    }
    free(e);
    free(k);
    return ok;
}

static int high_ids_at_every_record_width(void)
{
    /* n = 2: 2 classes, fewer than 3 or 4 ranks (owners without a
     * class); n = 3: 8 classes */
    const int64_t ns[] = {2, 3, (int64_t)1 << 20, ((int64_t)1 << 24) + 1, (int64_t)1 << 28, (int64_t)1 << 32};
    int ok = 1, rank;
    MPI_Comm three;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 3 ? 0 : 1, rank, &three);
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        ok &= check_high(MPI_COMM_WORLD, 30000, ns[i]);
        ok &= check_high(three, 30000, ns[i]);
    }
    MPI_Comm_free(&three);
    return ok;
}

static int counts_equal_brute_force_on_a_spread_list(void) { return check_list(300000, 0); }
static int counts_equal_brute_force_with_one_pair_repeated(void) { return check_list(300000, 1); }
static int counts_with_fewer_tuples_than_ranks(void) { return check_list(3, 0); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MT_RUN(counts_equal_brute_force_on_a_spread_list);
    MT_RUN(counts_equal_brute_force_with_one_pair_repeated);
    MT_RUN(counts_with_fewer_tuples_than_ranks);
    MT_RUN(high_ids_at_every_record_width);
    return mt_finish();
}
