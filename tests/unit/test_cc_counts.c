/* SPDX-License-Identifier: MIT */
/*
 * test_cc_counts.c - what the components stage counts beside the labels:
 * the edge tally (edges per component while linking, its lists, counters
 * and 64-bit switch), the duplicate count against a sort (bucket levels,
 * record widths, regions that overflow, pieces, threads) and the local
 * ids of the distributed merge (a bijection onto the endpoints).
 */
#include <criterion/criterion.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cc_internal.h"
#include "common.h"
#include "gen.h"
#include "../cc_tuples.h"

static void check_ok(const cc_forest *f, const char *when)
{
    int rc = cc_forest_check(f);
    cr_assert_eq(rc, G5_OK, "invariants broken %s: %s", when, g5_error_msg());
}

static uint64_t rng_state;
static uint64_t rnd(void) { return cct_rnd(&rng_state); }

static void mpi_setup(void) { MPI_Init(NULL, NULL); }
static void mpi_teardown(void) { MPI_Finalize(); }

/* ---- the edge tally ---------------------------------------------------- */

/* Link e[m] with a tally attached, fed in pieces of `piece` edges (after
 * `pre` single links, so that the first piece takes the scan path), label,
 * fold, and compare the edges per component, the self-loops and the
 * non-loop tuples with cc_count_edges over the whole list. Returns the
 * width of the tally's counters per vertex (cc_tally_counters). */
static int tally_equals_count_limit(const int64_t *e, int64_t m, int64_t n, int64_t piece, int64_t pre,
                                    int threads, int64_t limit32, const char *ctx)
{
    cc_forest *f;
    cc_tally *t;
    int32_t *label = malloc((size_t)n * 4);
    int64_t nc, *cv, loops = 0, nonloop = 0, wloops = 0, wnonloop = 0;
    cr_assert_eq(cc_forest_create(n, &f), G5_OK);
    cr_assert_eq(cc_tally_create(n, &t), G5_OK);
    if (limit32 > 0)
        cc_tally_set_limit32(t, limit32);
    for (int64_t i = 0; i < pre; i++)
        cc_forest_link(f, e[2 * i], e[2 * i + 1]);  /* not tallied: counted by hand below */
    cc_forest_set_tally(f, t);
    for (int64_t i = pre; i < m; i += piece)
        cr_assert_eq(cc_forest_link_edges(f, e + 2 * i, m - i < piece ? m - i : piece, i, threads), G5_OK,
                     "%s: %s", ctx, g5_error_msg());
    check_ok(f, ctx);
    cr_assert_eq(cc_forest_label(f, label, &nc, &cv), G5_OK);
    int64_t *got = calloc((size_t)nc + 1, sizeof *got), *want = calloc((size_t)nc + 1, sizeof *want);
    cc_count_edges(label, nc, e, pre, 1, got, &loops, &nonloop);
    cc_tally_fold(t, label, threads, got, &loops, &nonloop);
    cc_count_edges(label, nc, e, m, threads, want, &wloops, &wnonloop);
    cr_assert_eq(loops, wloops, "%s: %lld self-loops tallied, %lld in the list", ctx, (long long)loops,
                 (long long)wloops);
    cr_assert_eq(nonloop, wnonloop, "%s: %lld other tuples tallied, %lld in the list", ctx, (long long)nonloop,
                 (long long)wnonloop);
    for (int64_t c = 0; c < nc; c++)
        cr_assert_eq(got[c], want[c], "%s: component %lld: %lld edges tallied, %lld counted", ctx, (long long)c,
                     (long long)got[c], (long long)want[c]);
    const int width = cc_tally_counters(t);
    free(got); free(want); free(cv); free(label);
    cc_tally_free(&t);
    cc_forest_free(&f);
    return width;
}

static int tally_equals_count(const int64_t *e, int64_t m, int64_t n, int64_t piece, int64_t pre, int threads,
                              const char *ctx)
{
    return tally_equals_count_limit(e, m, n, piece, pre, threads, 0, ctx);
}

/* The tally gives cc_count_edges' sums on a skewed graph with self-loops
 * (on vertices of the giant, of small sets, and on vertices seen nowhere
 * else) and duplicates: in one call (the parallel path: sample, filter,
 * kept edges), in pieces (the scan path, the giant filter's drops tallied
 * in bulk), with a first piece on a forest that already holds sets, at 1,
 * 2 and 3 threads. */
Test(cc_tally, edges_per_component_equal_a_count_of_the_list)
{
    rng_state = 21;
    const int64_t n = 1 << 16, m = 12 * n;
    int64_t *e = malloc(2 * m * sizeof *e);
    cct_skewed_graph(n, m, e, &rng_state);
    for (int64_t i = 0; i < m; i += 97) {  /* self-loops: giant side, pairs side, unseen side */
        const int64_t v = (int64_t)(rnd() % (uint64_t)n);
        e[2 * i] = e[2 * i + 1] = v;
    }
    for (int64_t i = 0; i < 200; i++)  /* duplicates of earlier edges */
        memcpy(e + 2 * (m - 1 - i), e + 2 * (i * 31), 16);
    const int64_t piece[] = {m, 5000, 70001, n - 1};
    char ctx[96];
    for (size_t k = 0; k < sizeof piece / sizeof *piece; k++)
        for (int threads = 1; threads <= 3; threads++)
            for (int64_t pre = 0; pre <= 10; pre += 10) {
                snprintf(ctx, sizeof ctx, "pieces of %lld, %d threads, %lld linked first", (long long)piece[k],
                         threads, (long long)pre);
                tally_equals_count(e, m, n, piece[k], pre, threads, ctx);
            }
    free(e);
}

/* On the generator's own list (SCALE 15, shuffled, self-loops and
 * duplicates as they come) the filter drops nearly every edge after the
 * sample: the tally stays in lists (no counter per vertex) and exact, in
 * one call and in pieces as the stage reads them. */
Test(cc_tally, a_graph500_list_keeps_its_tally_in_lists)
{
    const int scale = 15;
    const int64_t n = (int64_t)1 << scale, m = 16 * n;
    int64_t *e = malloc(2 * m * sizeof *e);
    gen_params gp;
    gen g;
    gen_params_default(&gp, scale);
    gen_init(&g, &gp);
    gen_slab(&g, 0, m, e, NULL, NULL);
    const int64_t piece[] = {m, 1 << 13, (1 << 13) - 1};
    char ctx[64];
    for (size_t k = 0; k < sizeof piece / sizeof *piece; k++)
        for (int threads = 1; threads <= 2; threads++) {
            snprintf(ctx, sizeof ctx, "SCALE 15 in pieces of %lld, %d threads", (long long)piece[k], threads);
            cr_assert_eq(tally_equals_count(e, m, n, piece[k], 0, threads, ctx), 0, "%s: tallied in lists", ctx);
        }
    free(e);
}

/* A list the giant filter cannot thin (a perfect matching, each pair
 * repeated: no set grows beyond two vertices, so nearly every edge is
 * kept) grows the tally's lists past n entries: they are folded into
 * 32-bit counters per vertex, still giving exact sums; the unshuffled
 * chains (the giant elected again between blocks) likewise. */
Test(cc_tally, lists_past_half_n_fold_into_counters_and_stay_exact)
{
    rng_state = 8;
    const int64_t n = 1 << 17, m = 3 * (n / 2);
    int64_t *e = malloc(2 * (m > 2 * n ? m : 2 * n) * sizeof *e);
    for (int64_t i = 0; i < m; i++) {
        const int64_t pair = (int64_t)(rnd() % (uint64_t)(n / 2));
        e[2 * i] = 2 * pair + (int64_t)(i & 1);
        e[2 * i + 1] = 2 * pair + 1 - (int64_t)(i & 1);
    }
    for (int threads = 1; threads <= 2; threads++) {
        cr_assert_eq(tally_equals_count(e, m, n, 30000, 0, threads, "matching in pieces"), 32,
                     "the lists were folded into 32-bit counters");
        cr_assert_eq(tally_equals_count(e, m, n, m, 0, threads, "matching in one call"), 32,
                     "the lists were folded into 32-bit counters");
    }
    /* chains of 1024 vertices in vertex order, then edges joining them */
    int64_t k = 0;
    for (int64_t v = 0; v + 1 < n; v++)
        if ((v + 1) % 1024 != 0) {
            e[2 * k] = v;
            e[2 * k + 1] = v + 1;
            k++;
        }
    for (; k < 2 * n; k++) {
        e[2 * k] = (int64_t)(rnd() % (uint64_t)n);
        e[2 * k + 1] = (int64_t)(rnd() % (uint64_t)n);
    }
    for (int threads = 1; threads <= 2; threads++)
        tally_equals_count(e, k, n, 50000, 1, threads, "unshuffled chains in pieces");
    free(e);
}

/* The switch to 64-bit counters (past 2^32 - 1 folded entries, which no
 * test can reach) with the limit lowered to 200,000: a matching of n / 2
 * pairs given twice over (3 n tuples) in pieces of 30,000 folds its lists
 * a first time into 32-bit counters (past n entries), a second time into
 * 64-bit ones, the 32-bit counts carried over, and leaves the last
 * entries in the lists; the sums stay exact. */
Test(cc_tally, the_switch_to_64_bit_counters_carries_the_counts_over)
{
    rng_state = 9;
    const int64_t n = 1 << 17, m = 3 * n;
    int64_t *e = malloc(2 * m * sizeof *e);
    for (int64_t i = 0; i < m / 2; i++) {
        const int64_t pair = (int64_t)(rnd() % (uint64_t)(n / 2));
        e[2 * i] = 2 * pair + (int64_t)(i & 1);
        e[2 * i + 1] = 2 * pair + 1 - (int64_t)(i & 1);
    }
    memcpy(e + m, e, (size_t)m * sizeof *e);  /* the second half repeats the first */
    for (int threads = 1; threads <= 2; threads++) {
        cr_assert_eq(tally_equals_count_limit(e, m, n, 30000, 0, threads, 200000, "matching twice, low limit"), 64,
                     "the counters were made 64-bit");
        cr_assert_eq(tally_equals_count_limit(e, m, n, 30000, 0, threads, 0, "matching twice"), 32,
                     "the default limit keeps 32-bit counters");
    }
    free(e);
}


/* The duplicate count against a sort, at sizes that take each of its
 * paths: one bucket level (up to 2^8 buckets of about 4096 keys) and two
 * (more than 2^20 keys: buckets scattered again into sub-buckets), with
 * heavy duplication, reversed pairs and self-loops, at 1, 2 and 3 threads. */
Test(cc_stats, distinct_pairs_equal_a_sort_at_every_size, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t sizes[] = {0, 1, 2, 700, 4097, 70000, 1500000};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        const int64_t m = sizes[si];
        /* vertex range about m / 4: many repeated pairs */
        const int64_t n = m / 4 + 3;
        int64_t *e = malloc((size_t)(m + 1) * 16), loops = 0;
        uint64_t s = 12345 + (uint64_t)m;
        for (int64_t i = 0; i < m; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int64_t u = (int64_t)((s >> 33) % (uint64_t)n), v = (int64_t)((s >> 13) % (uint64_t)n);
            if (i % 97 == 5)
                v = u;  /* self-loop */
            if (i % 5 == 3 && i > 0) {
                u = e[2 * (i - 1) + 1];  /* the previous pair reversed */
                v = e[2 * (i - 1)];
            }
            e[2 * i] = u;
            e[2 * i + 1] = v;
        }
        const int64_t want = cct_distinct(e, m, n, &loops), nk = m - loops;
        cr_assert(m < 1000 || want < nk * 9 / 10, "the test graph of %lld tuples must hold duplicates", (long long)m);
        for (int t = 1; t <= 3; t++) {
            int64_t got = -1;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got, want, "%lld tuples, %d threads: %lld distinct pairs, a sort finds %lld",
                         (long long)m, t, (long long)got, (long long)want);
        }
        free(e);
    }
}

/* The first-level buckets are filled in one pass into regions sized for
 * evenly spread hashes; a list whose tuples are mostly one pair overflows
 * its region (here 200000 copies of {7, 3}, both orders, against regions
 * of a few thousand) and must be counted exactly by the two-pass scatter,
 * as must the distinct pairs mixed in, at 1, 2 and 3 threads. */
Test(cc_stats, one_pair_repeated_overflows_its_region_and_counts_once, .init = mpi_setup,
     .fini = mpi_teardown)
{
    const int64_t m = 300000, n = 1 << 20;
    int64_t *e = malloc((size_t)m * 16);
    for (int64_t i = 0; i < m; i++) {
        if (i % 3 == 2) { /* 100000 distinct pairs {i, i + 1}, i >= 2 */
            e[2 * i] = i;
            e[2 * i + 1] = i + 1;
        } else {
            e[2 * i] = i % 2 ? 7 : 3;
            e[2 * i + 1] = i % 2 ? 3 : 7;
        }
    }
    for (int t = 1; t <= 3; t++) {
        int64_t got = -1;
        cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
        cr_assert_eq(got, 100000 + 1, "%d threads: %lld distinct pairs, want 100001", t, (long long)got);
    }
    free(e);
}

/* A pair repeated 1000 times among 1.5 M spread pairs: too few copies to
 * overflow a first-level region at one thread (slack 1/32 + 1024), enough
 * to overflow its sub-bucket's region in the bucket pass (slack 1/8 + 64
 * of about 4096), whose bucket is then counted by the exact two-pass
 * sub-scatter (at 1, 2 and 3 threads). Counted against a sort. */
Test(cc_stats, a_pair_repeated_beyond_its_sub_bucket_counts_once, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t m = 1500000, n = (int64_t)1 << 24;
    int64_t *e = malloc((size_t)m * 16);
    rng_state = 77;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t r = rnd();
        e[2 * i] = (int64_t)(r % (uint64_t)n);
        e[2 * i + 1] = (int64_t)((r >> 32) % (uint64_t)n);
        if (i % 1500 == 7) {
            e[2 * i] = i % 2 ? 5 : 9;
            e[2 * i + 1] = i % 2 ? 9 : 5;
        }
    }
    const int64_t want = cct_distinct(e, m, n, NULL);
    for (int t = 1; t <= 3; t++) {
        int64_t got = -1;
        cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
        cr_assert_eq(got, want, "%d threads: %lld distinct pairs, a sort finds %lld", t, (long long)got,
                     (long long)want);
    }
    free(e);
}

/* Adds outside a parallel region (each on its own team of threads), and
 * cc_dup_add called by one thread at a time inside a region (no nested
 * team: it fills the rows in turn), equal a sort of the pairs; on a
 * spread list, on one whose repeated pair overflows a region, and with a
 * slab larger than the create announced (the finish then makes its
 * regions again and places the whole slab by the exact scatter), at 1, 2
 * and 3 rows. */
Test(cc_stats, duplicate_count_added_from_any_thread_equals_a_sort, .init = mpi_setup,
     .fini = mpi_teardown)
{
    const int64_t m = 200000, n = 70000, piece = 9999;
    int64_t *e = malloc((size_t)m * 16);
    for (int repeated = 0; repeated < 2; repeated++) {
        uint64_t st = 5 + (uint64_t)repeated;
        cct_skewed(e, m, n, &st, 53, 2, repeated, 20);
        const int64_t want = cct_distinct(e, m, n, NULL);
        for (int t = 1; t <= 3; t++)
            for (int how = 0; how < 3; how++) {
                /* how: 0 outside a region, 1 inside one, 2 outside with
                 * the create announcing half the slab */
                cc_dup *d = NULL;
                int64_t got = -1;
                cr_assert_eq(cc_dup_create(MPI_COMM_WORLD, n, how == 2 ? m / 2 : m, t, &d), G5_OK, "%s",
                             g5_error_msg());
                for (int64_t k = 0; how != 1 && k * piece < m; k++) {
                    const int64_t lo = k * piece, len = m - lo < piece ? m - lo : piece;
                    cc_dup_add(d, e + 2 * lo, len);
                }
#pragma omp parallel num_threads(t) if (how == 1)
                {
                    const int w = omp_get_thread_num(), nw = omp_get_num_threads();
                    for (int64_t k = 0; how == 1 && k * piece < m; k++) {
                        const int64_t lo = k * piece, len = m - lo < piece ? m - lo : piece;
                        if (k % nw == w) {
#pragma omp critical
                            cc_dup_add(d, e + 2 * lo, len);
                        }
                    }
                }
                cr_assert_eq(cc_dup_finish(MPI_COMM_WORLD, d, e, m, &got), G5_OK, "%s", g5_error_msg());
                cr_assert_eq(got, want, "repeated=%d, %d rows, how %d: %lld distinct, a sort finds %lld", repeated,
                             t, how, (long long)got, (long long)want);
                cc_dup_free(&d);
            }
    }
    free(e);
}

/* The duplicate count in pieces (cc_dup_*) equals cc_count_distinct: the
 * slab added in uneven pieces in order and out of order, on a spread list
 * and on one whose repeated pair overflows a region (the finish then takes
 * the exact path), and with pieces that do not add up to the slab (also the
 * exact path), at 1, 2 and 3 threads. */
Test(cc_stats, duplicate_count_in_pieces_equals_the_whole_count, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t m = 250000, n = 60000;
    int64_t *e = malloc((size_t)m * 16);
    for (int repeated = 0; repeated < 2; repeated++) {
        rng_state = 31 + (uint64_t)repeated;
        for (int64_t i = 0; i < m; i++) {
            uint64_t r = rnd();
            e[2 * i] = (int64_t)((r & 0xffff) * (r >> 48 & 0xffff) % (uint64_t)n);
            e[2 * i + 1] = i % 61 == 1 ? e[2 * i] : (int64_t)((r >> 16 & 0xffff) * (r >> 32 & 0x7ff) % (uint64_t)n);
            if (repeated && i % 3) {
                e[2 * i] = 11;
                e[2 * i + 1] = 12;
            }
        }
        for (int t = 1; t <= 3; t++) {
            int64_t want = -1, got = -2;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &want), G5_OK, "%s", g5_error_msg());
            for (int order = 0; order < 3; order++) {
                /* pieces [0, a), [a, b), [b, m): in order, reversed, or b..m missing */
                const int64_t a = 1000 + 777 * t, b = m / 2 + 13;
                cc_dup *d = NULL;
                cr_assert_eq(cc_dup_create(MPI_COMM_WORLD, n, m, t, &d), G5_OK, "%s", g5_error_msg());
                if (order == 1) {
                    cc_dup_add(d, e + 2 * b, m - b);
                    cc_dup_add(d, e + 2 * a, b - a);
                    cc_dup_add(d, e, a);
                } else {
                    cc_dup_add(d, e, a);
                    cc_dup_add(d, e + 2 * a, b - a);
                    if (order == 0)
                        cc_dup_add(d, e + 2 * b, m - b);
                }
                cr_assert_eq(cc_dup_finish(MPI_COMM_WORLD, d, e, m, &got), G5_OK, "%s", g5_error_msg());
                cr_assert_eq(got, want, "repeated=%d, %d threads, order %d: %lld distinct in pieces, %lld whole",
                             repeated, t, order, (long long)got, (long long)want);
                cc_dup_free(&d);
                cr_assert_null(d, "cc_dup_free clears the handle");
            }
        }
    }
    cc_dup_free(NULL);
    free(e);
}

/* Distinct pairs of a list by a sort of unsigned 64-bit keys (injective
 * for n <= 2^32), independent of the duplicate count's encoding. */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int64_t sort_distinct_u64(const int64_t *e, int64_t m, uint64_t n)
{
    uint64_t *k = malloc((size_t)(m + 1) * sizeof *k);
    int64_t nk = 0, d = 0;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t u = (uint64_t)e[2 * i], v = (uint64_t)e[2 * i + 1];
        if (u != v)
            k[nk++] = (u < v ? u : v) * n + (u < v ? v : u);
    }
    qsort(k, (size_t)nk, sizeof *k, cmp_u64);
    for (int64_t i = 0; i < nk; i++)
        d += i == 0 || k[i] != k[i - 1];
    free(k);
    return d;
}

/* A list of m tuples over n vertices whose ids lie near n - 1 (the top
 * key bits set) and near 0, with reversed and repeated pairs and
 * self-loops: about a third of the tuples repeat an earlier pair. */
static void high_ids_list(int64_t *e, int64_t m, int64_t n)
{
    const int64_t span = n < 3000 ? n : 3000;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t r = rnd();
        int64_t u = n - 1 - (int64_t)((r >> 8) % (uint64_t)span), v = n - 1 - (int64_t)((r >> 32) % (uint64_t)span);
        if (r % 5 == 0)
            u = (int64_t)((r >> 20) % (uint64_t)span);  /* near 0 */
        if (i > 0 && i % 3 == 1) {  /* an earlier pair, reversed or not */
            const int64_t j = (int64_t)((r >> 4) % (uint64_t)i);
            u = e[2 * j + (r & 1)];
            v = e[2 * j + 1 - (r & 1)];
        }
        if (i % 101 == 7)
            v = u;
        e[2 * i] = u;
        e[2 * i + 1] = v;
    }
}

/* The duplicate count stores the low W = 2 ceil(log2 n) - 8 bits of a
 * bijective mix of the pair key, in max(4, ceil(W / 8)) bytes: 4 up to n =
 * 2^20, 5 up to 2^24, 6 up to 2^28, 7 up to 2^32 (the largest n it
 * takes); for tiny n the class bits shrink. At each width and at its
 * edges (n a power of two and one above), on lists with vertex ids near n
 * - 1 (synthetic ids, nothing of size n allocated), against a sort: whole
 * (cc_count_distinct) and in pieces (cc_dup_*), at 1 and 3 threads. */
Test(cc_stats, distinct_pairs_equal_a_sort_at_every_record_width, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t ns[] = {2, 3, 5, 17, 300, (int64_t)1 << 16, ((int64_t)1 << 20) - 1, (int64_t)1 << 20,
                          ((int64_t)1 << 20) + 1, (int64_t)1 << 24, ((int64_t)1 << 24) + 1, (int64_t)1 << 28,
                          ((int64_t)1 << 28) + 3, (int64_t)1 << 29, ((int64_t)1 << 32) - 1, (int64_t)1 << 32};
    const int64_t m = 40000;
    int64_t *e = malloc((size_t)m * 16);
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
        const int64_t n = ns[ni];
        rng_state = 5 + ni;
        high_ids_list(e, m, n);
        const int64_t want = sort_distinct_u64(e, m, (uint64_t)n);
        cr_assert(want < m * 9 / 10, "n=%lld: the list must hold duplicates", (long long)n);
        for (int t = 1; t <= 3; t += 2) {
            int64_t got = -1, got2 = -2;
            cc_dup *d = NULL;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got, want, "n=%lld, %d threads: %lld distinct pairs, a sort finds %lld", (long long)n, t,
                         (long long)got, (long long)want);
            cr_assert_eq(cc_dup_create(MPI_COMM_WORLD, n, m, t, &d), G5_OK, "%s", g5_error_msg());
            for (int64_t i = 0; i < m; i += 7777)
                cc_dup_add(d, e + 2 * i, m - i < 7777 ? m - i : 7777);
            cr_assert_eq(cc_dup_finish(MPI_COMM_WORLD, d, e, m, &got2), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got2, want, "n=%lld, %d threads: %lld distinct in pieces, a sort finds %lld", (long long)n,
                         t, (long long)got2, (long long)want);
            cc_dup_free(&d);
        }
    }
    free(e);
}

/* Every pair of n vertices once, and again reversed: n (n - 1) / 2
 * distinct pairs filling most of the stored values of each class (n =
 * 1024: 2^20 keys, 2^12 values per class), so a stored bit lost or a
 * class misread merges pairs and the count falls short. */
Test(cc_stats, every_pair_of_a_clique_is_distinct, .init = mpi_setup, .fini = mpi_teardown)
{
    const int64_t ns[] = {32, 1024, 1500};
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
        const int64_t n = ns[ni], pairs = n * (n - 1) / 2, m = 2 * pairs;
        int64_t *e = malloc((size_t)m * 16), i = 0;
        for (int64_t u = 0; u < n; u++)
            for (int64_t v = u + 1; v < n; v++, i++) {
                e[2 * i] = u;
                e[2 * i + 1] = v;
                e[2 * (pairs + i)] = v;
                e[2 * (pairs + i) + 1] = u;
            }
        for (int t = 1; t <= 2; t++) {
            int64_t got = -1;
            cr_assert_eq(cc_count_distinct(MPI_COMM_WORLD, n, e, m, t, &got), G5_OK, "%s", g5_error_msg());
            cr_assert_eq(got, pairs, "n=%lld, %d threads: %lld distinct pairs, want %lld", (long long)n, t,
                         (long long)got, (long long)pairs);
        }
        free(e);
    }
}

/* The distributed path's local step numbers each non-loop endpoint once:
 * after every piece the ids handed out are exactly the distinct endpoints
 * seen so far (gid a bijection onto them), each renamed tuple maps back
 * through gid to the original, and self-loops become (0, 0). Sparse (2 m
 * < n: the hash set, grown and rehashed between pieces) and dense (the
 * direct map), one thread and four. */
static void local_ids_are_a_bijection(int64_t n, int64_t m, int64_t piece, int threads)
{
    int64_t *e = malloc((size_t)m * 16), *buf = malloc((size_t)piece * 16);
    unsigned char *seen = calloc((size_t)n, 1), *hit = calloc((size_t)n, 1);
    uint64_t z = 0x243f6a8885a308d3ULL;
    int64_t distinct = 0;
    cc_dist_local *l = NULL;
    for (int64_t i = 0; i < m; i++) {
        z = z * 6364136223846793005ULL + 1442695040888963407ULL;
        const int64_t u = (int64_t)((z >> 20) % (uint64_t)n);
        /* some repeats of earlier endpoints, some self-loops */
        const int64_t v = i % 11 == 0 ? u : i % 3 == 0 && i > 0 ? e[2 * (i / 2)] : (int64_t)((z >> 40) % (uint64_t)n);
        e[2 * i] = u;
        e[2 * i + 1] = v;
    }
    cr_assert_eq(cc_dist_local_create(n, m, &l), G5_OK);
    for (int64_t lo = 0; lo < m; lo += piece) {
        const int64_t len = m - lo < piece ? m - lo : piece;
        memcpy(buf, e + 2 * lo, (size_t)len * 16);
        cr_assert_eq(cc_dist_local_take(l, buf, len, lo, threads), G5_OK, "%s", g5_error_msg());
        for (int64_t i = lo; i < lo + len; i++)
            if (e[2 * i] != e[2 * i + 1])
                for (int k = 0; k < 2; k++)
                    if (!seen[e[2 * i + k]]) {
                        seen[e[2 * i + k]] = 1;
                        distinct++;
                    }
        int64_t nloc = -1;
        const int64_t *gid = cc_dist_local_ids(l, &nloc);
        cr_assert_eq(nloc, distinct, "after tuple %lld: %lld local ids for %lld distinct endpoints", (long long)(lo + len),
                     (long long)nloc, (long long)distinct);
        memset(hit, 0, (size_t)n);
        for (int64_t id = 0; id < nloc; id++) {
            cr_assert(gid[id] >= 0 && gid[id] < n && seen[gid[id]] && !hit[gid[id]],
                      "local id %lld -> %lld: not a new endpoint", (long long)id, (long long)gid[id]);
            hit[gid[id]] = 1;
        }
        for (int64_t i = 0; i < len; i++) {
            const int64_t u = e[2 * (lo + i)], v = e[2 * (lo + i) + 1];
            if (u == v) {
                cr_assert(buf[2 * i] == 0 && buf[2 * i + 1] == 0, "self-loop %lld not (0, 0)", (long long)(lo + i));
            } else {
                cr_assert(buf[2 * i] >= 0 && buf[2 * i] < nloc && buf[2 * i + 1] >= 0 && buf[2 * i + 1] < nloc);
                cr_assert(gid[buf[2 * i]] == u && gid[buf[2 * i + 1]] == v, "tuple %lld renamed wrongly",
                          (long long)(lo + i));
            }
        }
    }
    cc_dist_local_free(&l);
    cr_assert_null(l);
    free(e);
    free(buf);
    free(seen);
    free(hit);
}

Test(cc_dist, local_ids_sparse_one_thread_grow_between_pieces) { local_ids_are_a_bijection(1 << 20, 150000, 1 << 14, 1); }
Test(cc_dist, local_ids_sparse_four_threads) { local_ids_are_a_bijection(1 << 20, 300000, 1 << 17, 4); }
Test(cc_dist, local_ids_dense_one_thread) { local_ids_are_a_bijection(1 << 12, 40000, 5000, 1); }
Test(cc_dist, local_ids_dense_four_threads) { local_ids_are_a_bijection(1 << 16, 200000, 1 << 17, 4); }
