/* SPDX-License-Identifier: MIT */
/*
 * io_fletcher32.c - HDF5's Fletcher32 checksum, bit-identical to the
 * library's filter (H5Z_FILTER_FLETCHER32) but vectorised, so the direct
 * chunk reader (io_chunks.c) verifies a 4 MiB chunk at memory speed instead
 * of HDF5's word-at-a-time loop.
 *
 * The definition, as HDF5 computes it (H5_checksum_fletcher32 in HDF5's
 * H5checksum.c, described in the HDF5 reference manual under
 * H5Pset_fletcher32 and in the file format specification's filter
 * pipeline message) and as checked here against chunks HDF5 wrote (tests/
 * unit/test_io_fletcher32.c):
 *   - the data are read as N = ceil(len / 2) 16-bit big-endian words
 *     w_0 .. w_{N-1}; an odd last byte b is the word b << 8 (zero padded);
 *   - sum1 and sum2 start at 0; per word, sum1 += w_i, then sum2 += sum1;
 *   - both are folded, s = (s & 0xffff) + (s >> 16), after every 360 words
 *     and after the odd word, then folded once more at the end;
 *   - the checksum is (sum2 << 16) | sum1, appended to the chunk as 4
 *     little-endian bytes (the chunk is stored at its full size, also the
 *     partial last chunk of a dataset, and the checksum covers all of it).
 * A fold keeps the value modulo 65535 (65536 = 1 mod 65535), never makes a
 * positive value zero, and the sums never wrap 32 bits between folds (360
 * words is the longest run for which they cannot). After the two final
 * folds each sum lies in [0, 0xffff]. So the result depends only on
 *   S1 = sum of w_i,   S2 = sum of (N - i) * w_i   (i from 0),
 * as fold(S) = 0 when every word is 0, else the representative of S mod
 * 65535 in [1, 0xffff] (0xffff standing for 0). We compute S1 and S2 modulo
 * 65535 in any order and grouping that suits the vector unit, keep the exact
 * S1 (64 bits) to tell the all-zero case, and fold at the end.
 *
 * AVX2: 32 bytes (16 words) per step. A byte shuffle makes the words
 * little-endian, they are widened to two vectors of eight 32-bit lanes, and
 * per lane A accumulates the words and B the values of A before each step
 * (Σ over steps of the running lane sums). After T steps of a block, from a
 * running state (s1, s2):
 *   s2 += 16 * T * s1 + 16 * ΣB + Σ_lanes (16 - p) * A_p,   s1 += ΣA,
 * where p is the word's position 0..15 within a step (word p of a step is
 * counted in the running sum after itself and the 15 - p words that follow).
 * Blocks of 256 steps keep every 32-bit lane below 2^32 (B <= 65535 * 256 *
 * 255 / 2). The tail (under 32 bytes) and CPUs without AVX2 use the
 * portable loop, which keeps 64-bit sums over blocks of 2^16 words.
 */
#include "io_direct.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define IO_HAVE_X86 1
#endif

#define MOD 65535u
#define PORTABLE_BLOCK_WORDS ((size_t)1 << 16)
#define AVX2_BLOCK_STEPS 256

/* The running state: s1 and s2 modulo 65535 (below MOD between blocks), and
 * the exact S1, which is zero only when every word is. */
typedef struct f32_state {
    uint64_t s1, s2, total;
} f32_state;

static void words_portable(const unsigned char *p, size_t nwords, f32_state *st)
{
    while (nwords) {
        size_t t = nwords < PORTABLE_BLOCK_WORDS ? nwords : PORTABLE_BLOCK_WORDS;
        uint64_t s1 = st->s1, s2 = st->s2, s1_start = st->s1;
        nwords -= t;
        /* s1 < 2^16 + 2^32 and s2 < 2^16 + 2^48 within a block: no wrap. */
        for (size_t i = 0; i < t; i++, p += 2) {
            s1 += ((uint64_t)p[0] << 8) | p[1];
            s2 += s1;
        }
        st->total += s1 - s1_start;
        st->s1 = s1 % MOD;
        st->s2 = s2 % MOD;
    }
}

static uint32_t fold_final(uint64_t s, uint64_t total)
{
    if (total == 0)
        return 0;
    s %= MOD;
    return s == 0 ? 0xffffu : (uint32_t)s;
}

/* The odd last byte (if any) and the final folds. */
static uint32_t finish(const unsigned char *p, size_t len, f32_state *st)
{
    if (len & 1) {
        uint64_t w = (uint64_t)p[len - 1] << 8;
        st->s1 = (st->s1 + w) % MOD;
        st->s2 = (st->s2 + st->s1) % MOD;
        st->total += w;
    }
    return (fold_final(st->s2, st->total) << 16) | fold_final(st->s1, st->total);
}

uint32_t io_fletcher32_portable(const void *data, size_t len)
{
    f32_state st = {0, 0, 0};
    words_portable(data, len / 2, &st);
    return finish(data, len, &st);
}

#ifdef IO_HAVE_X86
__attribute__((target("avx2")))
static void steps_avx2(const unsigned char *p, size_t nsteps, f32_state *st)
{
    /* Swap the two bytes of every 16-bit word (big-endian to native). */
    const __m256i swap = _mm256_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14,
                                          1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
    const __m256i zero = _mm256_setzero_si256();
    /* Position within the step of each 32-bit lane of the widened vectors:
     * unpacklo takes words 0-3 and 8-11 (one quarter of each 128-bit half),
     * unpackhi words 4-7 and 12-15. Weight 16 - position. */
    static const uint32_t wlo[8] = {16, 15, 14, 13, 8, 7, 6, 5};
    static const uint32_t whi[8] = {12, 11, 10, 9, 4, 3, 2, 1};
    while (nsteps) {
        size_t t = nsteps < AVX2_BLOCK_STEPS ? nsteps : AVX2_BLOCK_STEPS;
        __m256i a0 = zero, a1 = zero, b0 = zero, b1 = zero;
        uint32_t la0[8], la1[8], lb0[8], lb1[8];
        uint64_t sum_a = 0, sum_b = 0, weighted = 0;
        nsteps -= t;
        for (size_t i = 0; i < t; i++, p += 32) {
            __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)p), swap);
            b0 = _mm256_add_epi32(b0, a0);
            b1 = _mm256_add_epi32(b1, a1);
            a0 = _mm256_add_epi32(a0, _mm256_unpacklo_epi16(v, zero));
            a1 = _mm256_add_epi32(a1, _mm256_unpackhi_epi16(v, zero));
        }
        _mm256_storeu_si256((__m256i *)la0, a0);
        _mm256_storeu_si256((__m256i *)la1, a1);
        _mm256_storeu_si256((__m256i *)lb0, b0);
        _mm256_storeu_si256((__m256i *)lb1, b1);
        for (int k = 0; k < 8; k++) {
            sum_a += (uint64_t)la0[k] + la1[k];
            sum_b += (uint64_t)lb0[k] + lb1[k];
            weighted += (uint64_t)wlo[k] * la0[k] + (uint64_t)whi[k] * la1[k];
        }
        st->s2 = (st->s2 + 16 * (uint64_t)t * st->s1 + 16 * sum_b + weighted) % MOD;
        st->s1 = (st->s1 + sum_a) % MOD;
        st->total += sum_a;
    }
}
#endif

uint32_t io_fletcher32_avx2(const void *data, size_t len)
{
#ifdef IO_HAVE_X86
    if (__builtin_cpu_supports("avx2")) {
        const unsigned char *p = data;
        f32_state st = {0, 0, 0};
        size_t nsteps = len / 32;
        steps_avx2(p, nsteps, &st);
        words_portable(p + 32 * nsteps, (len - 32 * nsteps) / 2, &st);
        return finish(p, len, &st);
    }
#endif
    return io_fletcher32_portable(data, len);
}

uint32_t io_fletcher32(const void *data, size_t len)
{
    return io_fletcher32_avx2(data, len);
}

int io_fletcher32_matches(const void *data, size_t len, const unsigned char stored[4])
{
    uint32_t c = io_fletcher32(data, len);
    uint32_t s = (uint32_t)stored[0] | (uint32_t)stored[1] << 8 | (uint32_t)stored[2] << 16 |
                 (uint32_t)stored[3] << 24;
    uint32_t swapped = ((c & 0x00ff00ffu) << 8) | ((c >> 8) & 0x00ff00ffu);
    return s == c || s == swapped;
}
