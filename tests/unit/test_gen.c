/* SPDX-License-Identifier: MIT */
/* test_gen.c - the pure generator: PRNG determinism and split independence,
 * bijections (scramble exhaustive for small SCALE, shuffle for several M),
 * R-MAT quadrant frequencies, weights, slab production, parameter checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gen.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static gen make(int scale, int edgefactor, uint64_t seed)
{
    gen_params p;
    gen g;
    gen_params_default(&p, scale);
    p.edgefactor = edgefactor;
    p.seed = seed;
    cr_assert_eq(gen_params_check(&p), G5_OK, "%s", g5_error_msg());
    gen_init(&g, &p);
    return g;
}

Test(gen_prng, is_deterministic_and_keyed)
{
    uint64_t a = gen_rand(42, 7), b = gen_rand(42, 7);
    cr_expect_eq(a, b, "same key and counter give the same word");
    cr_expect_neq(gen_rand(42, 7), gen_rand(43, 7), "the key matters");
    cr_expect_neq(gen_rand(42, 7), gen_rand(42, 8), "the counter matters");
    /* Independent instances built from the same seed agree. */
    gen g1 = make(10, 16, 99), g2 = make(10, 16, 99), g3 = make(10, 16, 100);
    cr_expect_eq(g1.key_rmat, g2.key_rmat);
    cr_expect_neq(g1.key_rmat, g3.key_rmat, "different seeds give different streams");
    cr_expect_neq(g1.key_rmat, g1.key_scramble, "purposes use different streams");
    cr_expect_neq(g1.key_scramble, g1.key_shuffle);
}

Test(gen_prng, bits_are_balanced)
{
    /* Each of the 64 output bits over 2^16 counters: mean 0.5 with sigma
     * 1/512; accept 6 sigma (a failure by chance has probability < 1e-7). */
    enum { N = 1 << 16 };
    int ones[64] = {0};
    for (uint64_t c = 0; c < N; c++) {
        uint64_t w = gen_rand(12345, c);
        for (int b = 0; b < 64; b++)
            ones[b] += (int)(w >> b & 1);
    }
    for (int b = 0; b < 64; b++)
        cr_expect(fabs(ones[b] / (double)N - 0.5) < 6.0 / 512, "bit %d is set in %d of %d words", b,
                  ones[b], N);
}

Test(gen_prng, slabs_do_not_depend_on_the_split_or_threads)
{
    gen g = make(12, 16, 2026);
    int64_t m = g.nedges;
    int64_t *whole = malloc(sizeof(int64_t) * 2 * m), *parts = malloc(sizeof(int64_t) * 2 * m);
    float *ww = malloc(sizeof(float) * m), *wp = malloc(sizeof(float) * m);
    uint64_t c_whole = 0, c_parts = 0;
    omp_set_num_threads(1);
    gen_slab(&g, 0, m, whole, ww, &c_whole);
    /* Uneven pieces, two threads, including empty ones. */
    omp_set_num_threads(2);
    int64_t cuts[] = {0, 1, 1, 777, 4096, 50000, m};
    for (int k = 0; k + 1 < (int)(sizeof cuts / sizeof cuts[0]); k++)
        gen_slab(&g, cuts[k], cuts[k + 1] - cuts[k], parts + 2 * cuts[k], wp + cuts[k], &c_parts);
    cr_expect(memcmp(whole, parts, sizeof(int64_t) * 2 * m) == 0, "edges differ when split");
    cr_expect(memcmp(ww, wp, sizeof(float) * m) == 0, "weights differ when split");
    cr_expect_eq(c_whole, c_parts, "content id depends on the split");
    /* The slab is the composition of the documented pure functions. */
    for (int64_t i = 0; i < m; i += 997) {
        int64_t e = gen_shuffle(&g, i), u, v;
        gen_rmat_edge(&g, (uint64_t)e, &u, &v);
        cr_expect_eq(whole[2 * i], gen_scramble(&g, u), "u at position %lld", (long long)i);
        cr_expect_eq(whole[2 * i + 1], gen_scramble(&g, v), "v at position %lld", (long long)i);
        cr_expect_eq(ww[i], gen_weight(&g, (uint64_t)e), "weight at position %lld", (long long)i);
    }
    free(whole); free(parts); free(ww); free(wp);
}

Test(gen_prng, content_id_sees_every_field)
{
    uint64_t t = gen_content_term(5, 1, 2, 0.5f);
    cr_expect_neq(t, gen_content_term(6, 1, 2, 0.5f), "position");
    cr_expect_neq(t, gen_content_term(5, 2, 1, 0.5f), "u and v swapped");
    cr_expect_neq(t, gen_content_term(5, 1, 2, 0.25f), "weight");
}

static void check_bijection(uint64_t n, const char *what, uint64_t (*f)(void *, uint64_t), void *ctx)
{
    unsigned char *seen = calloc(n, 1);
    cr_assert(seen);
    for (uint64_t x = 0; x < n; x++) {
        uint64_t y = f(ctx, x);
        cr_assert_lt(y, n, "%s of %llu is %llu, outside [0, %llu)", what, (unsigned long long)x,
                     (unsigned long long)y, (unsigned long long)n);
        cr_assert_eq(seen[y], 0, "%s hits %llu twice", what, (unsigned long long)y);
        seen[y] = 1;
    }
    free(seen);
}

static uint64_t scr(void *g, uint64_t x) { return (uint64_t)gen_scramble(g, (int64_t)x); }
static uint64_t shf(void *g, uint64_t x) { return (uint64_t)gen_shuffle(g, (int64_t)x); }

Test(gen_perm, scramble_is_a_bijection_for_every_small_scale)
{
    for (int s = 1; s <= 20; s++) {
        gen g = make(s, 1, (uint64_t)s * 31);
        check_bijection((uint64_t)1 << s, "scramble", scr, &g);
    }
}

Test(gen_perm, scramble_moves_vertices)
{
    /* Not the identity and not close to it: at SCALE 16 a random permutation
     * has about 1 fixed point; accept up to 20. */
    gen g = make(16, 16, 7);
    int fixed = 0;
    for (int64_t x = 0; x < g.nvertices; x++)
        fixed += gen_scramble(&g, x) == x;
    cr_expect_lt(fixed, 20, "%d fixed points", fixed);
}

Test(gen_perm, shuffle_is_a_bijection_for_any_edge_count)
{
    /* Edge factors that make M a power of two and ones that do not (cycle
     * walking). */
    int efs[] = {1, 3, 5, 16, 17};
    for (int k = 0; k < 5; k++)
        for (int s = 1; s <= 14; s += 3) {
            gen g = make(s, efs[k], 11);
            check_bijection((uint64_t)g.nedges, "shuffle", shf, &g);
        }
}

Test(gen_perm, feistel_is_a_bijection_of_every_width)
{
    for (int bits = 1; bits <= 16; bits++) {
        uint64_t n = (uint64_t)1 << bits;
        unsigned char *seen = calloc(n, 1);
        for (uint64_t x = 0; x < n; x++) {
            uint64_t y = gen_feistel(0xabcdef, bits, x);
            cr_assert_lt(y, n, "width %d", bits);
            cr_assert_eq(seen[y], 0, "width %d: %llu hit twice", bits, (unsigned long long)y);
            seen[y] = 1;
        }
        free(seen);
    }
}

Test(gen_rmat, quadrant_frequencies_match_a_b_c_d)
{
    /* 2^20 edges at SCALE 20: the fraction of edges in each top-level
     * quadrant (top bits of the unscrambled u and v), and over all 20 levels
     * together, must be within 5 binomial standard deviations of A, B, C,
     * D = .57, .19, .19, .05 (sigma = sqrt(p(1-p)/n), about 4.9e-4 for A at
     * the top level; a chance failure has probability below 1e-6). */
    gen g = make(20, 1, 5);
    const int64_t n = g.nedges;
    const double want[4] = {GEN_RMAT_A, GEN_RMAT_B, GEN_RMAT_C, 1 - GEN_RMAT_A - GEN_RMAT_B - GEN_RMAT_C};
    int64_t top[4] = {0}, all[4] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t u, v;
        gen_rmat_edge(&g, (uint64_t)e, &u, &v);
        cr_assert(u >= 0 && u < g.nvertices && v >= 0 && v < g.nvertices, "edge %lld out of range",
                  (long long)e);
        top[(u >> 19) * 2 + (v >> 19)]++;
        for (int l = 0; l < 20; l++)
            all[(u >> l & 1) * 2 + (v >> l & 1)]++;
    }
    for (int q = 0; q < 4; q++) {
        double f = top[q] / (double)n, sd = sqrt(want[q] * (1 - want[q]) / n);
        cr_expect(fabs(f - want[q]) < 5 * sd, "top-level quadrant %d: %.5f, expected %.2f +- %.5f", q,
                  f, want[q], 5 * sd);
        double fa = all[q] / (20.0 * n), sda = sqrt(want[q] * (1 - want[q]) / (20.0 * n));
        cr_expect(fabs(fa - want[q]) < 5 * sda, "all levels quadrant %d: %.5f, expected %.2f +- %.5f", q,
                  fa, want[q], 5 * sda);
    }
}

Test(gen_rmat, degenerate_probabilities_are_honoured)
{
    /* a = 1: every edge is (0, 0) before scrambling. */
    gen_params p;
    gen g;
    gen_params_default(&p, 8);
    p.a = 1; p.b = 0; p.c = 0;
    gen_init(&g, &p);
    for (uint64_t e = 0; e < 1000; e++) {
        int64_t u, v;
        gen_rmat_edge(&g, e, &u, &v);
        cr_assert(u == 0 && v == 0, "edge %llu is (%lld, %lld)", (unsigned long long)e, (long long)u,
                  (long long)v);
    }
}

Test(gen_rmat, weights_lie_in_unit_interval_and_are_uniform)
{
    gen g = make(16, 16, 3);
    enum { BINS = 16 };
    int64_t n = g.nedges, hist[BINS] = {0};
    for (int64_t e = 0; e < n; e++) {
        float w = gen_weight(&g, (uint64_t)e);
        cr_assert(w >= 0.0f && w < 1.0f, "weight %g of edge %lld outside [0, 1)", w, (long long)e);
        hist[(int)(w * BINS)]++;
    }
    /* Each bin: n/16 expected, sigma sqrt(n p (1-p)); accept 5 sigma. */
    double mean = n / (double)BINS, sd = sqrt(n * (1.0 / BINS) * (1 - 1.0 / BINS));
    for (int b = 0; b < BINS; b++)
        cr_expect(fabs(hist[b] - mean) < 5 * sd, "bin %d has %lld weights, expected %.0f", b,
                  (long long)hist[b], mean);
}

Test(gen_rmat, keeps_self_loops_and_duplicates)
{
    /* SCALE 10 with 16 Ki edges: R-MAT makes both (the spec wants them in
     * kernel 1's input), so the generator must not filter them. */
    gen g = make(10, 16, 1);
    int64_t *ed = malloc(sizeof(int64_t) * 2 * g.nedges);
    gen_slab(&g, 0, g.nedges, ed, NULL, NULL);
    int64_t loops = 0;
    for (int64_t i = 0; i < g.nedges; i++)
        loops += ed[2 * i] == ed[2 * i + 1];
    cr_expect_gt(loops, 0, "no self-loop in %lld edges", (long long)g.nedges);
    /* Duplicates: sort pair keys and look for neighbours. */
    uint64_t *key = malloc(sizeof(uint64_t) * g.nedges);
    for (int64_t i = 0; i < g.nedges; i++)
        key[i] = (uint64_t)ed[2 * i] << 32 | (uint64_t)ed[2 * i + 1];
    qsort(key, g.nedges, sizeof *key, cmp_u64);
    int64_t dups = 0;
    for (int64_t i = 1; i < g.nedges; i++)
        dups += key[i] == key[i - 1];
    cr_expect_gt(dups, 0, "no duplicate edge in %lld edges", (long long)g.nedges);
    free(key);
    free(ed);
}

Test(gen_rmat, shuffle_removes_locality)
{
    /* Unshuffled, consecutive edge numbers come from consecutive counters;
     * after the shuffle, neighbouring output positions should hold edge
     * numbers about M/3 apart on average. Accept anything above M/4. */
    gen g = make(14, 16, 9);
    double gap = 0;
    for (int64_t i = 0; i + 1 < g.nedges; i++)
        gap += fabs((double)gen_shuffle(&g, i + 1) - (double)gen_shuffle(&g, i));
    gap /= (double)(g.nedges - 1);
    cr_expect_gt(gap, g.nedges / 4.0, "mean gap %.0f of %lld", gap, (long long)g.nedges);
}

Test(gen_params, bad_parameters_get_a_message)
{
    gen_params p;
    gen_params_default(&p, 0);
    cr_expect_eq(gen_params_check(&p), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "SCALE 0") != NULL, "%s", g5_error_msg());
    p.scale = 43;
    cr_expect_eq(gen_params_check(&p), G5_ERR_ARG);
    p.scale = 42;
    cr_expect_eq(gen_params_check(&p), G5_OK, "SCALE 42 is allowed: %s", g5_error_msg());
    p.edgefactor = 0;
    cr_expect_eq(gen_params_check(&p), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "edgefactor") != NULL, "%s", g5_error_msg());
    p.edgefactor = 1 << 20;
    cr_expect_eq(gen_params_check(&p), G5_ERR_ARG, "2^62 edges must be refused");
    p.edgefactor = 16;
    p.a = 0.9;
    cr_expect_eq(gen_params_check(&p), G5_ERR_ARG, "a + b + c > 1 must be refused");
}
