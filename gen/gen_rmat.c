/* SPDX-License-Identifier: MIT */
/*
 * gen_rmat.c - the pure part of the generator: counter-based PRNG, R-MAT
 * edge by index, vertex scramble, edge-order shuffle, weights, content hash.
 *
 * PRNG. gen_rand(key, ctr) = mix64(key + (ctr + 1) * GAMMA): the output
 * function of SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom
 * number generators", OOPSLA 2014), whose state after n steps is
 * seed + n * GAMMA, so word n is available directly: a counter-based
 * generator in the sense of Salmon et al., "Parallel random numbers: as easy
 * as 1, 2, 3", SC 2011. The mixer is Stafford's "Mix13" variant of the
 * MurmurHash3 finaliser. Streams for different purposes use keys derived
 * from the seed by the same mixer; two streams overlap only if their keys
 * differ by a multiple of GAMMA smaller than the counter range (probability
 * about M / 2^64).
 *
 * R-MAT (Chakrabarti, Zhan, Faloutsos, "R-MAT: A recursive model for graph
 * mining", SDM 2004; Graph500 specification section 1.2). Edge e draws one
 * 16-bit number per level: word j = gen_rand(key_rmat, e * GEN_WORDS + j)
 * gives levels 4j..4j+3, low 16 bits first; level l decides bit l of u (row)
 * and v (column) (the levels are independent and identically distributed,
 * so which bit is called the top level does not matter); pieces beyond
 * level SCALE-1 of the last word are unused. With the cumulative thresholds
 * tA = round(A 2^16), tAB, tABC a draw r picks quadrant A (u=0, v=0) if
 * r < tA, B (0, 1) if r < tAB, C (1, 0) if r < tABC, else D (1, 1); so each
 * probability is represented to within 2^-17. The four comparisons of a
 * word are done at once on 32-bit slots of two registers (SWAR). Word GEN_WORDS - 1 is the
 * weight: its top 24 bits times 2^-24, exact in float32, in [0, 1).
 *
 * Permutations. gen_feistel is a keyed bijection of [0, 2^bits): the value
 * is split into a high half of floor(bits/2) bits and a low half of the
 * rest, and four rounds alternately xor one half with a keyed mix of the
 * other half (a reduced splitmix64 finaliser) masked to its width (an unbalanced Feistel network, which is
 * a bijection for any round function: Luby and Rackoff, SIAM J. Comput.
 * 1988; Schneier and Kelsey, FSE 1996). The vertex scramble is
 * gen_feistel(key_scramble, SCALE, x). The shuffle on [0, M) uses the
 * network on the next power of two and cycle-walks (Black and Rogaway,
 * "Ciphers with arbitrary finite domains", CT-RSA 2002): apply it again
 * until the value is below M, at most 2 steps on average since 2^b < 2M.
 */
#include "gen_internal.h"

#include "common.h"

#include <math.h>
#include <string.h>

#define GAMMA UINT64_C(0x9e3779b97f4a7c15)
#define GEN_WORDS 12 /* 11 words of 4 levels (44 >= GEN_SCALE_MAX) + weight */
#define FEISTEL_ROUNDS 4

uint64_t gen_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t gen_rand(uint64_t key, uint64_t ctr)
{
    return gen_mix64(key + (ctr + 1) * GAMMA);
}

void gen_params_default(gen_params *p, int scale)
{
    p->scale = scale;
    p->edgefactor = 16;
    p->seed = 1;
    p->a = GEN_RMAT_A;
    p->b = GEN_RMAT_B;
    p->c = GEN_RMAT_C;
}

int gen_params_check(const gen_params *p)
{
    if (p->scale < 1 || p->scale > GEN_SCALE_MAX)
        return g5_error(G5_ERR_ARG, "SCALE %d is outside 1..%d", p->scale, GEN_SCALE_MAX);
    if (p->edgefactor < 1)
        return g5_error(G5_ERR_ARG, "edgefactor %d must be at least 1", p->edgefactor);
    if ((int64_t)p->edgefactor > (GEN_NEDGES_MAX >> p->scale))
        return g5_error(G5_ERR_ARG, "edgefactor %d at SCALE %d gives more than 2^58 edges",
                        p->edgefactor, p->scale);
    if (!(p->a >= 0 && p->b >= 0 && p->c >= 0 && p->a + p->b + p->c <= 1.0 + 1e-12))
        return g5_error(G5_ERR_ARG, "R-MAT probabilities a=%g b=%g c=%g must be >= 0 with sum <= 1",
                        p->a, p->b, p->c);
    return G5_OK;
}

static uint32_t threshold(double x)
{
    double t = floor(x * 65536.0 + 0.5);
    return t < 0 ? 0 : t > 65536 ? 65536 : (uint32_t)t;
}

void gen_init(gen *g, const gen_params *p)
{
    memset(g, 0, sizeof *g);
    g->p = *p;
    g->nvertices = INT64_C(1) << p->scale;
    g->nedges = (int64_t)p->edgefactor << p->scale;
    uint64_t base = gen_mix64(p->seed ^ UINT64_C(0x6a09e667f3bcc908));
    g->key_rmat = gen_rand(base, 1);
    g->key_scramble = gen_rand(base, 2);
    g->key_shuffle = gen_rand(base, 3);
    g->t_a = threshold(p->a);
    g->t_ab = threshold(p->a + p->b);
    g->t_abc = threshold(p->a + p->b + p->c);
    int b = 1;
    while (b < 63 && (INT64_C(1) << b) < g->nedges)
        b++;
    g->shuffle_bits = b;
}

/* Feistel round function: the top bits of a keyed 64-bit mix (the high
 * bits of the products are the best mixed). */
static inline uint64_t round_fn(uint64_t rk, uint64_t x)
{
    uint64_t t = (x ^ rk) * UINT64_C(0xbf58476d1ce4e5b9);
    t = (t ^ t >> 31) * UINT64_C(0x94d049bb133111eb);
    return t >> 32 ^ t << 32;
}

uint64_t gen_feistel(uint64_t key, int bits, uint64_t x)
{
    int hb = bits / 2, lb = bits - hb;
    uint64_t hmask = (UINT64_C(1) << hb) - 1, lmask = (UINT64_C(1) << lb) - 1;
    uint64_t hi = x >> lb, lo = x & lmask;
    for (int r = 0; r < FEISTEL_ROUNDS; r += 2) {
        hi ^= round_fn(key + (uint64_t)r * GAMMA, lo) & hmask;
        lo ^= round_fn(key + (uint64_t)(r + 1) * GAMMA, hi) & lmask;
    }
    return hi << lb | lo;
}

/* Bit 16 of each 32-bit slot of ((slots | 2^16) - t) is (slot >= t): the
 * slots hold 16-bit draws and t <= 2^16, so no borrow crosses a slot. */
#define SLOT_LO UINT64_C(0x0000ffff0000ffff)
#define SLOT_B16 UINT64_C(0x0001000000010000)
#define GE(x, t) ((((x) | SLOT_B16) - (t)) & SLOT_B16)

/* The four lanes' bits (at 16 and 48 of even, odd) as a nibble: lane k -> bit k. */
static inline uint64_t nibble(uint64_t even, uint64_t odd)
{
    uint64_t x = even | odd << 1;
    return (x >> 16 & 3) | (x >> 46 & 0xc);
}

void gen_rmat_edge(const gen *g, uint64_t e, int64_t *u, int64_t *v)
{
    const uint64_t one = UINT64_C(0x100000001);
    const uint64_t ta = g->t_a * one, tab = g->t_ab * one, tabc = g->t_abc * one;
    const int words = (g->p.scale + 3) / 4;
    uint64_t uu = 0, vv = 0, ctr = e * GEN_WORDS;
    /* Four levels per word, compared in two 64-bit registers of two 32-bit
     * slots each (no branch, no per-level loop). */
    for (int j = 0; j < words; j++) {
        uint64_t w = gen_rand(g->key_rmat, ctr + (uint64_t)j);
        uint64_t ev = w & SLOT_LO, od = w >> 16 & SLOT_LO;
        uint64_t ea = GE(ev, ta), eab = GE(ev, tab), eabc = GE(ev, tabc);
        uint64_t oa = GE(od, ta), oab = GE(od, tab), oabc = GE(od, tabc);
        uu |= nibble(eab, oab) << (4 * j);
        vv |= nibble(ea ^ eab ^ eabc, oa ^ oab ^ oabc) << (4 * j);
    }
    uint64_t mask = ((uint64_t)1 << g->p.scale) - 1;
    *u = (int64_t)(uu & mask);
    *v = (int64_t)(vv & mask);
}

float gen_weight(const gen *g, uint64_t e)
{
    uint64_t w = gen_rand(g->key_rmat, e * GEN_WORDS + (GEN_WORDS - 1));
    return (float)(w >> 40) * (1.0f / 16777216.0f);
}

int64_t gen_scramble(const gen *g, int64_t x)
{
    return (int64_t)gen_feistel(g->key_scramble, g->p.scale, (uint64_t)x);
}

int64_t gen_shuffle(const gen *g, int64_t i)
{
    uint64_t x = (uint64_t)i, m = (uint64_t)g->nedges;
    do
        x = gen_feistel(g->key_shuffle, g->shuffle_bits, x);
    while (x >= m);
    return (int64_t)x;
}

uint64_t gen_content_term(int64_t i, int64_t u, int64_t v, float w)
{
    uint32_t wb;
    memcpy(&wb, &w, sizeof wb);
    uint64_t h = gen_mix64((uint64_t)i * GAMMA + UINT64_C(0x3c6ef372fe94f82b));
    h = gen_mix64(h ^ (uint64_t)u);
    h = gen_mix64(h ^ (uint64_t)v);
    return gen_mix64(h ^ wb);
}

/* The tuple at output position i (the pipeline of gen.h). */
static inline void tuple(const gen *g, int64_t i, int64_t *u, int64_t *v, float *w)
{
    int64_t e = gen_shuffle(g, i);
    gen_rmat_edge(g, (uint64_t)e, u, v);
    *u = gen_scramble(g, *u);
    *v = gen_scramble(g, *v);
    *w = gen_weight(g, (uint64_t)e);
}

void gen_slab(const gen *g, int64_t first, int64_t count, int64_t *edges,
              float *weights, uint64_t *content)
{
    uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int64_t k = 0; k < count; k++) {
        int64_t i = first + k, u, v;
        float w;
        tuple(g, i, &u, &v, &w);
        if (edges) {
            edges[2 * k] = u;
            edges[2 * k + 1] = v;
        }
        if (weights)
            weights[k] = w;
        if (content)
            sum += gen_content_term(i, u, v, w);
    }
    if (content)
        *content += sum;
}

void gen_slab_shared(const gen *g, int64_t first, int64_t count, int64_t *edges,
                     float *weights, uint64_t *content)
{
    uint64_t sum = 0;
    /* Dynamic pieces: a thread that joins late (gen_write's writer) takes
     * what is left instead of a fixed share. */
#pragma omp for schedule(dynamic, GEN_SHARED_PIECE) nowait
    for (int64_t k = 0; k < count; k++) {
        int64_t i = first + k, u, v;
        float w;
        tuple(g, i, &u, &v, &w);
        edges[2 * k] = u;
        edges[2 * k + 1] = v;
        weights[k] = w;
        sum += gen_content_term(i, u, v, w);
    }
#pragma omp atomic
    *content += sum;
#pragma omp barrier
}
