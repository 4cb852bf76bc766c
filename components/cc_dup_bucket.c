/* SPDX-License-Identifier: MIT */
/*
 * cc_dup_bucket.c - the duplicate count's second pass (cc_dup.c): the
 * distinct values of each class of records, counted in cache. Each class
 * (classes shared among threads) is scattered again into 2^sub
 * sub-buckets of about BUCKET_KEYS values in a per-thread scratch, in one
 * pass with slack or, when a sub-bucket overflows (a pair repeated many
 * times), by the exact two passes (count, then place); each sub-bucket's
 * distinct values are then counted with a linear-probing hash set of 4
 * slots per value that stays in L1. Values are kept as 32-bit words of
 * the bits below the sub-bucket bits when those are at most 31, else as
 * 64-bit words.
 */
#include "cc_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Keys per sub-bucket aimed at: a sub-bucket's hash table (4 slots per
 * key, 4 bytes a slot on the 32-bit path) then fits in a core's L1 cache
 * (32 KiB). */
#define BUCKET_KEYS 2048

typedef cc_dup_seg dup_seg;

/* The low W stored bits of the record at p (8 readable bytes there). */
static inline __attribute__((always_inline)) uint64_t rec_load(const unsigned char *p, uint64_t wmask)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v & wmask;
}

/* Slots of the hash set for len values: the power of two >= 4 len (at
 * most a quarter full, so the first probe mostly decides). */
static int table_bits(int64_t len)
{
    int tb = 1;
    while ((1LL << tb) < 4 * len)
        tb++;
    return tb;
}

/* Scratch values: narrow = 32-bit words holding the bits below the
 * sub-bucket bits (at most 31 of them, so 0xffffffff is never a value),
 * else 64-bit words holding all W stored bits (the sub-bucket's top bit,
 * bit W - 1, is then the same for all, and flipping it gives a value that
 * is not one of them). */
static inline __attribute__((always_inline)) uint64_t scratch_get(const void *s, int64_t i, const int narrow)
{
    return narrow ? ((const uint32_t *)s)[i] : ((const uint64_t *)s)[i];
}

static inline __attribute__((always_inline)) void scratch_put(void *s, int64_t i, uint64_t v, uint64_t low,
                                                              const int narrow)
{
    if (narrow)
        ((uint32_t *)s)[i] = (uint32_t)(v & low);
    else
        ((uint64_t *)s)[i] = v;
}

/* Distinct values among s[lo, lo + len), all of one sub-bucket, with a
 * linear-probing hash set of 2^table_bits(len) slots (*tablep, *cap
 * bytes, grown here when short) indexed by the low bits (the mix's, even).
 * Empty slot: 0xffffffff (narrow), or s[lo] with bit wbits - 1 flipped.
 * -1 when out of memory. */
static inline __attribute__((always_inline)) int64_t hash_distinct(const void *s, int64_t lo, int64_t len,
                                                                   int wbits, void **tablep, int64_t *cap,
                                                                   const int narrow)
{
    const int tb = table_bits(len);
    const int64_t bytes = (narrow ? 4LL : 8LL) << tb;
    int64_t distinct = 0;
    if (len == 0)
        return 0;
    if (bytes > *cap) {
        free(*tablep);
        *tablep = malloc((size_t)bytes);
        *cap = *tablep ? bytes : 0;
        if (!*tablep)
            return -1;
    }
    const uint64_t mask = (1ULL << tb) - 1;
    if (narrow) {
        uint32_t *restrict table = *tablep;
        const uint32_t *restrict h = (const uint32_t *)s + lo;
        memset(table, 0xff, (size_t)bytes);
        for (int64_t i = 0; i < len; i++) {
            uint64_t j = h[i] & mask;
            while (table[j] != UINT32_MAX && table[j] != h[i])
                j = (j + 1) & mask;
            distinct += table[j] == UINT32_MAX;
            table[j] = h[i];
        }
        return distinct;
    }
    uint64_t *restrict table = *tablep;
    const uint64_t *restrict h = (const uint64_t *)s + lo, empty = h[0] ^ (UINT64_C(1) << (wbits - 1));
    for (int64_t i = 0; i <= (int64_t)mask; i++)
        table[i] = empty;
    for (int64_t i = 0; i < len; i++) {
        uint64_t j = h[i] & mask;
        while (table[j] != empty && table[j] != h[i])
            j = (j + 1) & mask;
        distinct += table[j] == empty;
        table[j] = h[i];
    }
    return distinct;
}


/* What a thread of the bucket pass holds: the scratch (ns sub-regions of
 * scap values), fill per sub-region, the offsets of the exact placement
 * and the hash table. */
typedef struct bucket_work {
    void *scratch, *table;
    int64_t *fill, *pos, tcap;
} bucket_work;

/* Distinct values of one bucket sg[0..nseg): scattered into the scratch's
 * ns = 2^(wbits - shift) sub-regions of scap values (by bits shift and
 * up of the W stored bits), in one pass with slack, or, when a
 * sub-region overflows (a pair repeated many times), by the exact two
 * passes (count, then place); then each sub-bucket through the hash set.
 * -1 when out of memory. */
static inline __attribute__((always_inline)) int64_t bucket_distinct(const dup_seg *sg, int nseg, bucket_work *w,
                                                                     int ns, int64_t scap, int shift, int wbits,
                                                                     uint64_t wmask, const int rec,
                                                                     const int narrow)
{
    const uint64_t low = (UINT64_C(1) << shift) - 1;
    int64_t *restrict fill = w->fill, distinct = 0, d;
    void *s = w->scratch;
    int over = 0;
    memset(fill, 0, (size_t)ns * sizeof *fill);
    for (int k = 0; k < nseg && !over; k++) {
        const unsigned char *src = sg[k].v;
        for (int64_t i = 0; i < sg[k].len; i++) {
            const uint64_t h = rec_load(src + i * rec, wmask), b = h >> shift;
            if (fill[b] == scap) {
                over = 1;
                break;
            }
            scratch_put(s, (int64_t)b * scap + fill[b]++, h, low, narrow);
        }
    }
    if (!over) {
        for (int b = 0; b < ns; b++) {
            if ((d = hash_distinct(s, (int64_t)b * scap, fill[b], wbits, &w->table, &w->tcap, narrow)) < 0)
                return -1;
            distinct += d;
        }
        return distinct;
    }
    int64_t *restrict pos = w->pos;
    memset(pos, 0, sizeof(int64_t) * ((size_t)ns + 1));
    for (int k = 0; k < nseg; k++)
        for (int64_t i = 0; i < sg[k].len; i++)
            pos[(rec_load(sg[k].v + i * rec, wmask) >> shift) + 1]++;
    for (int b = 0; b < ns; b++)
        pos[b + 1] += pos[b];
    for (int k = 0; k < nseg; k++)
        for (int64_t i = 0; i < sg[k].len; i++) {
            const uint64_t h = rec_load(sg[k].v + i * rec, wmask);
            scratch_put(s, pos[h >> shift]++, h, low, narrow);
        }
    /* pos[b] is now the end of sub-bucket b */
    for (int b = 0; b < ns; b++) {
        const int64_t lo = b ? pos[b - 1] : 0;
        if ((d = hash_distinct(s, lo, pos[b] - lo, wbits, &w->table, &w->tcap, narrow)) < 0)
            return -1;
        distinct += d;
    }
    return distinct;
}

/* Distinct values of nb buckets (classes), each nseg segments: bucket b
 * is seg[b * nseg .. b * nseg + nseg). Each bucket (buckets shared among
 * threads) is scattered again into 2^sub sub-buckets of about
 * BUCKET_KEYS (bucket_distinct) in a per-thread scratch that stays in
 * cache, and each sub-bucket goes through a hash set that stays in L1/L2.
 * Narrow when the bits below the sub-bucket bits fit 31 (up to SCALE 22 at
 * one rank; sub is raised to make them fit, up to 2^10 sub-buckets): 4
 * bytes per scratch value and per table slot, else 8. -1 when out of
 * memory. */
int64_t cc_dup_bucket_pass(const cc_dup_seg *seg, int nseg, int nb, int wbits, int rec, int nt)
{
    int64_t distinct = 0, maxb = 0;
    int sub = 1, failed = 0;
    const uint64_t wmask = (UINT64_C(1) << wbits) - 1;
    for (int b = 0; b < nb; b++) {
        int64_t blen = 0;
        for (int k = 0; k < nseg; k++)
            blen += seg[(size_t)b * (size_t)nseg + (size_t)k].len;
        maxb = blen > maxb ? blen : maxb;
    }
    /* Sub-buckets per bucket: the same for all (buckets are even); at
     * least one bit (hash_distinct's empty slot on the wide path). */
    while (sub < wbits && ((int64_t)BUCKET_KEYS << sub) < maxb)
        sub++;
    while (sub < wbits && wbits - sub > 31 && wbits - 31 <= 10)
        sub++;
    const int ns = 1 << sub, shift = wbits - sub, narrow = shift <= 31;
    const int64_t per = (maxb + ns - 1) / ns, scap = per + per / 8 + 64;
#pragma omp parallel num_threads(nt) reduction(+ : distinct) reduction(max : failed)
    {
        /* scratch: ns sub-regions of scap (>= maxb, so also room for the
         * exact placement) */
        bucket_work w = {malloc((narrow ? 4 : 8) * (size_t)ns * (size_t)scap), NULL,
                         malloc(sizeof(int64_t) * (size_t)ns), malloc(sizeof(int64_t) * ((size_t)ns + 1)), 0};
        /* (failed is this thread's reduction copy, which starts at INT_MIN) */
        int ok = w.scratch && w.fill && w.pos;
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < nb; b++) {
            const dup_seg *sg = seg + (size_t)b * (size_t)nseg;
            int64_t d;
            if (!ok)
                continue;
            if (narrow && rec == 4)
                d = bucket_distinct(sg, nseg, &w, ns, scap, shift, wbits, wmask, 4, 1);
            else if (narrow && rec == 5)
                d = bucket_distinct(sg, nseg, &w, ns, scap, shift, wbits, wmask, 5, 1);
            else if (narrow)
                d = bucket_distinct(sg, nseg, &w, ns, scap, shift, wbits, wmask, rec, 1);
            else
                d = bucket_distinct(sg, nseg, &w, ns, scap, shift, wbits, wmask, rec, 0);
            ok = d >= 0;
            distinct += ok ? d : 0;
        }
        if (!ok)
            failed = 1;
        free(w.table);
        free(w.scratch);
        free(w.fill);
        free(w.pos);
    }
    return failed ? -1 : distinct;
}

