/* SPDX-License-Identifier: MIT */
/*
 * cc_stats.c - the statistics of components.h5: edges per component,
 * self-loops, distinct and duplicate edges, giant share, largest non-giant
 * component, log2 size histogram.
 *
 * Duplicates: a non-self-loop tuple (u, v) is keyed by its unordered pair,
 * key = min(u,v) * n + max(u,v). Each key goes to the rank chosen by a hash
 * of it (splitmix64's finaliser), so equal keys meet on one rank and every
 * rank receives about M/P keys whatever the graph's skew; each rank
 * scatters its keys into buckets by other bits of the same hash (about 4096
 * keys a bucket, even sizes) and counts the distinct keys of each bucket
 * with a small linear-probing hash set that stays in cache (buckets shared
 * among threads). On one rank the buckets are filled straight from the
 * edge list in one pass, into regions sized for evenly spread hashes (the
 * exact two-pass counting scatter when one overflows); the owner scatter
 * on several ranks is the exact one. cc_count_edges_distinct also takes
 * the edge counts in that first pass; cc_dup_* takes the first pass piece
 * by piece (while the slab is read). Memory: 8 bytes per local key (send
 * buffer) + 8 per received key twice (receive buffer, buckets); one rank:
 * about 8.25 bytes per tuple.
 * duplicate_edges = non-self-loop tuples - distinct pairs.
 *
 * Histogram: bin k counts components with 2^k <= vertices < 2^(k+1);
 * isolated vertices count as components of one vertex (bin 0).
 */
#include "cc.h"
#include "common.h"

#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

void cc_count_edges(const int32_t *label, int64_t ncomp, const int64_t *edges,
                    int64_t count, int nthreads, int64_t *comp_edges,
                    int64_t *self_loops, int64_t *nonloop)
{
    int64_t loops = 0, giant = 0, other = 0;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    (void)ncomp;
    /* The giant takes nearly every edge: count it in a register, the rare
     * others with atomics. */
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : loops, giant, other)
    for (int64_t i = 0; i < count; i++) {
        const int64_t u = edges[2 * i], v = edges[2 * i + 1];
        if (u == v) {
            loops++;
            continue;
        }
        const int32_t c = label[u];
        if (c == 0) {
            giant++;
        } else {
            other++;
#pragma omp atomic
            comp_edges[c]++;
        }
    }
    if (giant)
        comp_edges[0] += giant;
    *self_loops += loops;
    *nonloop += giant + other;
}

void cc_stats_fill(io_components_meta *m, int64_t ncomp, const int64_t *comp_vertices,
                   const int64_t *comp_edges, int64_t self_loops, int64_t nonloop,
                   int64_t distinct)
{
    int64_t active = 0;
    memset(m->size_hist, 0, sizeof m->size_hist);
    for (int64_t c = 0; c < ncomp; c++) {
        int k = 63 - __builtin_clzll((unsigned long long)comp_vertices[c]);
        active += comp_vertices[c];
        m->size_hist[k < IO_HIST_BINS ? k : IO_HIST_BINS - 1]++;
    }
    m->ncomponents = ncomp;
    m->isolated_vertices = m->nvertices - active;
    m->ncomponents_all = ncomp + m->isolated_vertices;
    m->size_hist[0] += m->isolated_vertices;
    m->self_loops = self_loops;
    m->nonloop_edges = nonloop;
    m->distinct_edges = distinct;
    m->duplicate_edges = nonloop - distinct;
    m->giant_vertices = ncomp > 0 ? comp_vertices[0] : 0;
    m->giant_edges = ncomp > 0 ? comp_edges[0] : 0;
    m->giant_vertex_share = m->nvertices ? (double)m->giant_vertices / (double)m->nvertices : 0.0;
    m->giant_active_share = active ? (double)m->giant_vertices / (double)active : 0.0;
    m->giant_edge_share = nonloop ? (double)m->giant_edges / (double)nonloop : 0.0;
    m->second_vertices = ncomp > 1 ? comp_vertices[1] : 0;
    m->second_edges = ncomp > 1 ? comp_edges[1] : 0;
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* Keys per bucket aimed at by the bucket pass: a bucket's hash table
 * (2 slots per key, 8 bytes a slot) then fits in a core's L2 cache. */
#define BUCKET_KEYS 4096
/* At most 2^8 buckets per scatter pass: one write stream per bucket, and
 * more streams than the TLB holds pages (thousands of 4 KiB pages far
 * apart) made the scatter cost 5x the rest of the count. Larger inputs are
 * scattered twice: into 256 buckets, then each bucket, inside the cache,
 * into sub-buckets of about BUCKET_KEYS. */
#define SCATTER_BITS 8

/* What is scattered is not the pair key but h = mix64(key), a bijection
 * of 64-bit words, so equal pairs give equal h and the distinct h are the
 * distinct pairs; the hash is computed once per tuple and every class is a
 * few bits of it: owner rank = the high half of h scaled to [0, p) (a
 * multiply, not a division); bucket = `bits` bits of the low half after
 * its first `skip` (the first scatter takes the top bits, the second the
 * next ones); hash slot inside a bucket = the low bits of the high half.
 * Owner, buckets and slot use different bits (the slot's and the owner's
 * overlap only with more than 2^(32 - slot bits) ranks, which only makes
 * probing a little longer), so the values an owner receives still fill its
 * buckets evenly. */
static inline int64_t h_class(uint64_t h, int p, int skip, int bits)
{
    if (p > 0)
        return (int64_t)(((h >> 32) * (uint64_t)p) >> 32);
    return (int64_t)(((uint32_t)h << skip) >> (32 - bits));
}

/* Sub-bucket of h inside its first-level bucket (top bits): the next sub
 * bits, or 0 when there are no sub-buckets. */
static inline int64_t sub_class(uint64_t h, int top, int sub)
{
    return sub ? h_class(h, 0, top, sub) : 0;
}

static inline uint64_t pair_hash(uint64_t u, uint64_t v, uint64_t n)
{
    return mix64(u < v ? u * n + v : v * n + u);
}

/* The edge counts of cc_count_edges, taken in the same pass over the edge
 * list as the duplicate count's first scatter (cc_count_edges_distinct):
 * label NULL means no tally. A thread counts the giant (label 0) and the
 * self-loops in registers and the rare other components with atomics,
 * then adds its counts once (tally_add). */
typedef struct edge_tally {
    const int32_t *label;
    const uint64_t *g0;  /* bit v set when label[v] == 0 (the giant) */
    int64_t *comp_edges;
    int64_t loops, giant, other;
} edge_tally;

/* The giant is tested on the bitmap (n / 8 bytes, in L2) and only the
 * rare other edges read label (4 n bytes): random reads over the label
 * array, next to the scatter's write streams, made the fused pass slower
 * than the two passes it replaced (TLB misses). */
static inline void tally_edge(const edge_tally *tl, int64_t u, int64_t *giant, int64_t *other)
{
    if ((tl->g0[u >> 6] >> (u & 63)) & 1) {
        (*giant)++;
        return;
    }
    const int32_t c = tl->label[u];
    if (c == 0) {
        (*giant)++;
    } else {
        (*other)++;
        __atomic_fetch_add(&tl->comp_edges[c], 1, __ATOMIC_RELAXED);
    }
}

static void tally_add(edge_tally *tl, int64_t loops, int64_t giant, int64_t other)
{
    __atomic_fetch_add(&tl->loops, loops, __ATOMIC_RELAXED);
    __atomic_fetch_add(&tl->giant, giant, __ATOMIC_RELAXED);
    __atomic_fetch_add(&tl->other, other, __ATOMIC_RELAXED);
}

/* Counting scatter, in parallel: out[] = the hashes of the source grouped
 * by class (h_class(h, p, 0, bits); nb classes; bits >= 1 unless p > 0),
 * start[c] = where class c begins (start[nb] = the total). Source: the
 * non-self-loop tuples of edges[len][2] when edges != NULL (hashed here),
 * otherwise hashes[len]. Two passes over the source (count, then place),
 * both split statically among the threads so each thread places what it
 * counted; cnt: scratch of nt * nb. */
static void scatter_hashes(const int64_t *edges, const uint64_t *hashes, int64_t len, uint64_t n,
                           int p, int bits, int nb, int nt, int64_t *cnt, int64_t *start, uint64_t *out,
                           edge_tally *tl)
{
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
        const int64_t lo = len * t / tn, hi = len * (t + 1) / tn;
        int64_t *restrict c = cnt + (size_t)t * (size_t)nb;
        memset(c, 0, (size_t)nb * sizeof *c);
        if (edges && tl) {
            int64_t loops = 0, giant = 0, other = 0;
            for (int64_t i = lo; i < hi; i++) {
                const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
                if (u == v) {
                    loops++;
                    continue;
                }
                tally_edge(tl, (int64_t)u, &giant, &other);
                c[h_class(pair_hash(u, v, n), p, 0, bits)]++;
            }
            tally_add(tl, loops, giant, other);
        } else if (edges) {
            for (int64_t i = lo; i < hi; i++) {
                const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
                if (u != v)
                    c[h_class(pair_hash(u, v, n), p, 0, bits)]++;
            }
        } else {
            for (int64_t i = lo; i < hi; i++)
                c[h_class(hashes[i], p, 0, bits)]++;
        }
#pragma omp barrier
#pragma omp single
        {
            int64_t sum = 0;
            for (int b = 0; b < nb; b++) {
                start[b] = sum;
                for (int s = 0; s < tn; s++) {
                    const int64_t x = cnt[(size_t)s * (size_t)nb + (size_t)b];
                    cnt[(size_t)s * (size_t)nb + (size_t)b] = sum;
                    sum += x;
                }
            }
            start[nb] = sum;
        }
        if (edges) {
            for (int64_t i = lo; i < hi; i++) {
                const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
                if (u != v) {
                    const uint64_t h = pair_hash(u, v, n);
                    out[c[h_class(h, p, 0, bits)]++] = h;
                }
            }
        } else {
            for (int64_t i = lo; i < hi; i++)
                out[c[h_class(hashes[i], p, 0, bits)]++] = hashes[i];
        }
    }
}

/* Slots of the hash set for len values: the power of two >= 2 len. */
static int table_bits(int64_t len)
{
    int tb = 1;
    while ((1LL << tb) < 2 * len)
        tb++;
    return tb;
}

/* Distinct values among h[0..len), all of one first-level bucket (same
 * top bit of the low half), with a linear-probing hash set of
 * 2^table_bits(len) slots (*table, *cap slots, grown here when short).
 * Empty slot: h[0] with that bit flipped, which is not in this bucket, so
 * never one of the values. -1 when out of memory. */
static int64_t hash_distinct(const uint64_t *h, int64_t len, uint64_t **tablep, int64_t *cap)
{
    const int tb = table_bits(len);
    int64_t distinct = 0;
    if (len == 0)
        return 0;
    if ((1LL << tb) > *cap) {
        free(*tablep);
        *tablep = malloc(sizeof(uint64_t) << tb);
        *cap = *tablep ? 1LL << tb : 0;
        if (!*tablep)
            return -1;
    }
    uint64_t *restrict table = *tablep;
    const uint64_t mask = (1ULL << tb) - 1, empty = h[0] ^ (UINT64_C(1) << 31);
    for (int64_t i = 0; i <= (int64_t)mask; i++)
        table[i] = empty;
    for (int64_t i = 0; i < len; i++) {
        uint64_t s = (h[i] >> 32) & mask;
        while (table[s] != empty && table[s] != h[i])
            s = (s + 1) & mask;
        if (table[s] == empty) {
            table[s] = h[i];
            distinct++;
        }
    }
    return distinct;
}

/* One pass instead of scatter_hashes' two, for the first-level buckets:
 * the classes of a hash are even (a few bits of a bijective mix), so each
 * thread's share of class c is about its tuples / nb, and each (class,
 * thread) pair gets a region of that size plus a slack (1/32 of it + 1024:
 * dozens of standard deviations, and room for the heaviest repeated pair
 * of a Graph500 list). Regions lie class by class, so a class's values are
 * nt segments next to each other: fill[c * nt + t] values from
 * out + (c * nt + t) * cap. Returns 0, or 1 when a region overflowed (a
 * list whose pairs are not spread, e.g. one pair repeated): the caller
 * then takes the exact two-pass scatter. out has nb * nt * cap slots. */
static int64_t region_cap(int64_t len, int nb, int nt)
{
    const int64_t per = (len + (int64_t)nb * nt - 1) / ((int64_t)nb * nt);
    return per + per / 32 + 1024;
}

static int scatter_regions(const int64_t *edges, const uint64_t *hashes, int64_t len, uint64_t n, int p,
                           int bits, int nb, int nt, int64_t cap, int64_t *fill, uint64_t *out, edge_tally *tl)
{
    int overflow = 0;
#pragma omp parallel num_threads(nt) reduction(max : overflow)
    {
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
        const int64_t lo = len * t / tn, hi = len * (t + 1) / tn;
        int64_t *restrict f = fill + (size_t)t * (size_t)nb;  /* this thread's row */
        uint64_t *restrict o = out + (size_t)t * (size_t)cap;
        const size_t stride = (size_t)nt * (size_t)cap;  /* from class c to c + 1 */
        int64_t loops = 0, giant = 0, other = 0, i = lo;
        for (; i < hi; i++) {
            uint64_t h;
            if (edges) {
                const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
                if (u == v) {
                    loops++;
                    continue;
                }
                if (tl)
                    tally_edge(tl, (int64_t)u, &giant, &other);
                h = pair_hash(u, v, n);
            } else {
                h = hashes[i];
            }
            const int64_t c = h_class(h, p, 0, bits);
            if (f[c] == cap) {
                overflow = 1;
                /* the rest is placed by the exact scatter; the tally
                 * goes on (the tuple that overflowed is counted) */
                i++;
                break;
            }
            o[(size_t)c * stride + (size_t)f[c]++] = h;
        }
        if (tl) {
            for (; i < hi; i++) {
                const int64_t u = edges[2 * i], v = edges[2 * i + 1];
                if (u == v)
                    loops++;
                else
                    tally_edge(tl, u, &giant, &other);
            }
            tally_add(tl, loops, giant, other);
        }
    }
    return overflow;
}

/* Distinct values of nb first-level buckets (classes of `top` bits), each
 * nseg segments: seg_len[b * nseg + k] values from tmp + seg_off[b * nseg
 * + k]. Each bucket (buckets shared among threads) is scattered again into
 * sub-buckets of about BUCKET_KEYS in a per-thread scratch that stays in
 * cache, and each sub-bucket goes through a linear-probing hash set that
 * stays in L2. -1 when out of memory. */
static int64_t bucket_pass(const uint64_t *tmp, const int64_t *seg_off, const int64_t *seg_len, int nseg,
                           int nb, int top, int nt)
{
    int64_t distinct = 0, maxb = 0;
    int sub = 0, failed = 0;
    for (int b = 0; b < nb; b++) {
        int64_t blen = 0;
        for (int k = 0; k < nseg; k++)
            blen += seg_len[b * nseg + k];
        maxb = blen > maxb ? blen : maxb;
    }
    /* Sub-buckets per bucket: the same for all (buckets are even). */
    while (sub < 32 - top && ((int64_t)BUCKET_KEYS << sub) < maxb)
        sub++;
#pragma omp parallel num_threads(nt) reduction(+ : distinct) reduction(max : failed)
    {
        const int ns = 1 << sub;
        /* The hash table (grown by hash_distinct to the largest
         * sub-bucket met, about 2 BUCKET_KEYS slots); scratch (a bucket)
         * and offsets for the second scatter. */
        uint64_t *table = NULL;
        int64_t tcap = 0, d;
        uint64_t *scratch = malloc(sizeof(uint64_t) * (size_t)(maxb > 0 ? maxb : 1));
        int64_t *pos = malloc(sizeof(int64_t) * ((size_t)ns + 1));
        /* (failed is this thread's reduction copy, which starts at INT_MIN) */
        int ok = pos && scratch;
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < nb; b++) {
            const int64_t *so = seg_off + (size_t)b * (size_t)nseg, *sl = seg_len + (size_t)b * (size_t)nseg;
            if (!ok)
                continue;
            memset(pos, 0, sizeof(int64_t) * ((size_t)ns + 1));
            for (int k = 0; k < nseg; k++)
                for (int64_t i = 0; i < sl[k]; i++)
                    pos[sub_class(tmp[so[k] + i], top, sub) + 1]++;
            for (int s = 0; s < ns; s++)
                pos[s + 1] += pos[s];
            for (int k = 0; k < nseg; k++)
                for (int64_t i = 0; i < sl[k]; i++) {
                    const uint64_t h = tmp[so[k] + i];
                    scratch[pos[sub_class(h, top, sub)]++] = h;
                }
            /* pos[s] is now the end of sub-bucket s */
            for (int s = 0; s < ns && ok; s++) {
                const int64_t lo = s ? pos[s - 1] : 0;
                d = hash_distinct(scratch + lo, pos[s] - lo, &table, &tcap);
                ok = d >= 0;
                distinct += ok ? d : 0;
            }
        }
        if (!ok)
            failed = 1;
        free(table);
        free(scratch);
        free(pos);
    }
    return failed ? -1 : distinct;
}

/* First-level bucket bits for len values: about BUCKET_KEYS per bucket
 * after a second scatter, at most 2^SCATTER_BITS buckets. */
static int top_bits(int64_t len)
{
    int top = 1;
    while (top < SCATTER_BITS && ((int64_t)BUCKET_KEYS << top) < len)
        top++;
    return top;
}

/* Segments of the regions of scatter_regions: bucket b's are (b, t) for
 * each thread t: seg_off[b * nt + t] = (b * nt + t) * cap, seg_len from
 * fill[t * nb + b]. */
static void region_segments(const int64_t *fill, int nb, int nt, int64_t cap, int64_t *seg_off, int64_t *seg_len)
{
    for (int b = 0; b < nb; b++)
        for (int t = 0; t < nt; t++) {
            seg_off[b * nt + t] = ((int64_t)b * nt + t) * cap;
            seg_len[b * nt + t] = fill[(size_t)t * (size_t)nb + (size_t)b];
        }
}

/* Distinct pairs among the non-self-loop tuples of edges[len][2] (when
 * edges != NULL) or distinct values among hashes[len]; -1 when out of
 * memory. The hashes are scattered into 2 to 2^SCATTER_BITS buckets (even
 * sizes whatever the graph's skew) in one pass (scatter_regions; the exact
 * two-pass scatter when a region overflows); each bucket (buckets shared
 * among threads) is scattered again into sub-buckets of about BUCKET_KEYS
 * in a per-thread scratch that stays in cache, and each sub-bucket goes
 * through a linear-probing hash set that stays in L2. A bucket is nseg
 * segments: seg_len[b * nseg + k] values from tmp + seg_off[b * nseg + k]. */
static int64_t count_distinct_local(const int64_t *edges, const uint64_t *hashes, int64_t len,
                                    uint64_t n, int nt, edge_tally *tl)
{
    int64_t distinct = -1, *cnt = NULL, *start = NULL, *seg_off = NULL, *seg_len = NULL, *fill = NULL, cap;
    uint64_t *tmp = NULL;
    int top, nb, nseg = nt;

    if (len == 0)
        return 0;
    top = top_bits(len);
    nb = 1 << top;
    cap = region_cap(len, nb, nt);
    cnt = malloc((size_t)nt * (size_t)nb * sizeof *cnt);
    start = malloc(((size_t)nb + 1) * sizeof *start);
    fill = calloc((size_t)nt * (size_t)nb, sizeof *fill);
    seg_off = malloc((size_t)nt * (size_t)nb * sizeof *seg_off);
    seg_len = malloc((size_t)nt * (size_t)nb * sizeof *seg_len);
    tmp = g5_malloc((size_t)nb * (size_t)nt * (size_t)cap * sizeof *tmp, "duplicate count: buckets");
    if (!cnt || !start || !fill || !seg_off || !seg_len || !tmp)
        goto out;
    if (scatter_regions(edges, hashes, len, n, 0, top, nb, nt, cap, fill, tmp, tl) == 0) {
        region_segments(fill, nb, nt, cap, seg_off, seg_len);
    } else {
        /* exact: one contiguous segment per bucket (tmp is large enough:
         * nb * nt * cap >= len) */
        scatter_hashes(edges, hashes, len, n, 0, top, nb, nt, cnt, start, tmp, NULL);
        nseg = 1;
        for (int b = 0; b < nb; b++) {
            seg_off[b] = start[b];
            seg_len[b] = start[b + 1] - start[b];
        }
    }
    distinct = bucket_pass(tmp, seg_off, seg_len, nseg, nb, top, nt);
out:
    free(cnt);
    free(start);
    free(fill);
    free(seg_off);
    free(seg_len);
    free(tmp);
    return distinct;
}

/* The owner exchange of the duplicate count on p > 1 ranks, from a send
 * buffer grouped by owner (*sendp, freed here as soon as it is sent; owner
 * r's values at sstart[r] .. sstart[r + 1]): the counts, then the values,
 * go to their owners, which count their distinct values; *distinct = the
 * sum over ranks. rc: this rank's status so far (agreed here first).
 * Collective. */
static int owner_exchange(MPI_Comm comm, int p, uint64_t n, int nt, uint64_t **sendp, const int64_t *sstart,
                          int rc, int64_t *distinct)
{
    int64_t *scount = calloc((size_t)p, sizeof *scount), *rcount = calloc((size_t)p, sizeof *rcount);
    int64_t nrecv = 0, local = 0;
    int *sc = calloc((size_t)p, sizeof *sc), *rc_ = calloc((size_t)p, sizeof *rc_);
    int *sd = calloc((size_t)p, sizeof *sd), *rd = calloc((size_t)p, sizeof *rd);
    uint64_t *recv = NULL;

    if (rc == G5_OK && (!scount || !rcount || !sc || !rc_ || !sd || !rd))
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
    for (int r = 0; r < p && rc == G5_OK; r++) {
        if (sstart[r + 1] > INT_MAX)
            rc = g5_error(G5_ERR_ARG, "duplicate count: %lld edges per rank exceed one exchange; use more ranks",
                          (long long)sstart[p]);
        sd[r] = (int)sstart[r];
        sc[r] = (int)(sstart[r + 1] - sstart[r]);
        scount[r] = sc[r];
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Alltoall(scount, 1, MPI_INT64_T, rcount, 1, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Alltoall failed");
    for (int r = 0; r < p && rc == G5_OK; r++) {
        if (nrecv > INT_MAX || rcount[r] > INT_MAX)
            rc = g5_error(G5_ERR_ARG, "duplicate count: too many keys for one exchange; use more ranks");
        rd[r] = (int)nrecv;
        rc_[r] = (int)rcount[r];
        nrecv += rcount[r];
    }
    if (rc == G5_OK) {
        recv = g5_malloc((size_t)(nrecv > 0 ? nrecv : 1) * sizeof *recv, "duplicate count: receive buffer");
        if (!recv)
            rc = G5_ERR_NOMEM;
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Alltoallv(*sendp, sc, sd, MPI_UINT64_T, recv, rc_, rd, MPI_UINT64_T, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Alltoallv failed");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    free(*sendp);
    *sendp = NULL;
    local = count_distinct_local(NULL, recv, nrecv, n, nt, NULL);
    if (local < 0)
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Allreduce(&local, distinct, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Allreduce failed");
out:
    rc = g5_agree(comm, rc);
    free(scount);
    free(rcount);
    free(sc);
    free(rc_);
    free(sd);
    free(rd);
    free(recv);
    return rc;
}

/* cc_count_distinct, and with tl the edge counts in its first pass. */
static int count_all(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count, int nthreads,
                     edge_tally *tl, int64_t *distinct)
{
    int p, rc = G5_OK;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    int64_t *scount = NULL, *cnt = NULL, local = 0;
    uint64_t *send = NULL;

    *distinct = 0;
    MPI_Comm_size(comm, &p);
    if (p == 1) {
        /* The keys are already where they belong: bucket them straight from
         * the edge list. */
        local = count_distinct_local(edges, NULL, count, (uint64_t)n, nt, tl);
        if (local < 0)
            rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
        *distinct = local;
        return rc;
    }
    scount = calloc((size_t)p + 1, sizeof *scount);
    cnt = malloc((size_t)nt * (size_t)p * sizeof *cnt);
    send = g5_malloc((size_t)(count > 0 ? count : 1) * sizeof *send, "duplicate count: send buffer");
    if (!scount || !cnt || !send)
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
    /* Each key to the owner rank chosen by its hash; scount holds where
     * each owner's keys start. */
    if (rc == G5_OK)
        scatter_hashes(edges, NULL, count, (uint64_t)n, p, 0, p, nt, cnt, scount, send, tl);
    rc = owner_exchange(comm, p, (uint64_t)n, nt, &send, scount, rc, distinct);
    free(scount);
    free(cnt);
    free(send);
    return rc;
}

int cc_count_distinct(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                      int nthreads, int64_t *distinct)
{
    return count_all(comm, n, edges, count, nthreads, NULL, distinct);
}

int cc_count_edges_distinct(MPI_Comm comm, int64_t n, const int32_t *label, const int64_t *edges,
                            int64_t count, int nthreads, int64_t *comp_edges, int64_t *self_loops,
                            int64_t *nonloop, int64_t *distinct)
{
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    const int64_t words = (n + 63) / 64;
    uint64_t *g0 = g5_malloc((size_t)(words > 0 ? words : 1) * sizeof *g0, "duplicate count: giant bitmap");
    edge_tally tl = {label, g0, comp_edges, 0, 0, 0};
    int rc = g0 ? G5_OK : G5_ERR_NOMEM;
    if (g0) {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t w = 0; w < words; w++) {
            uint64_t bits = 0;
            const int64_t lo = 64 * w, hi = lo + 64 < n ? lo + 64 : n;
            for (int64_t v = lo; v < hi; v++)
                bits |= (uint64_t)(label[v] == 0) << (v - lo);
            g0[w] = bits;
        }
    }
    /* collective: every rank takes part even when its bitmap failed */
    rc = g5_agree(comm, rc);
    if (rc != G5_OK) {
        free(g0);
        return rc;
    }
    rc = count_all(comm, n, edges, count, nthreads, &tl, distinct);
    free(g0);
    if (rc == G5_OK) {
        comp_edges[0] += tl.giant;  /* a giant tuple implies ncomp >= 1 */
        *self_loops += tl.loops;
        *nonloop += tl.giant + tl.other;
    }
    return rc;
}

/* ---- the duplicate count in pieces (cc_dup_*) ---------------------------
 * The first pass of the duplicate count (hash each tuple, place it in its
 * class's region) taken piece by piece as the slab is read, so it runs on
 * data still in cache, or, on a thread of its own, overlaps the read. The
 * regions are those of scatter_regions (classes: 2^top buckets on one rank,
 * owner ranks on several), sized from the announced tuple count; fill[t][c]
 * persists across pieces. cc_dup_finish then runs the bucket pass (one
 * rank) or packs the regions owner by owner and exchanges (several). */
struct cc_dup {
    uint64_t n;
    int p, nt, top, nb;
    int64_t cap, count, added;
    int overflow;
    int64_t *fill;  /* [nt][nb] values in region (c, t) */
    uint64_t *buf;  /* nb * nt * cap */
};

void cc_dup_free(cc_dup **d)
{
    if (!d || !*d)
        return;
    free((*d)->fill);
    free((*d)->buf);
    free(*d);
    *d = NULL;
}

int cc_dup_create(MPI_Comm comm, int64_t n, int64_t count, int nthreads, cc_dup **out)
{
    cc_dup *d;
    int p;
    *out = NULL;
    MPI_Comm_size(comm, &p);
    d = g5_calloc(1, sizeof *d, "duplicate count");
    if (!d)
        return G5_ERR_NOMEM;
    d->n = (uint64_t)n;
    d->p = p;
    d->nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    d->count = count > 0 ? count : 0;
    d->top = p > 1 ? 0 : top_bits(d->count);
    d->nb = p > 1 ? p : 1 << d->top;
    d->cap = region_cap(d->count, d->nb, d->nt);
    d->fill = g5_calloc((size_t)d->nt * (size_t)d->nb, sizeof *d->fill, "duplicate count: region fills");
    d->buf = d->fill ? g5_malloc((size_t)d->nb * (size_t)d->nt * (size_t)d->cap * sizeof *d->buf,
                                 "duplicate count: buckets")
                     : NULL;
    if (!d->buf) {
        cc_dup_free(&d);
        return G5_ERR_NOMEM;
    }
    *out = d;
    return G5_OK;
}

void cc_dup_add(cc_dup *d, const int64_t *edges, int64_t len)
{
    d->added += len;
    if (d->overflow || d->added > d->count || len <= 0)
        return;  /* the exact path at the finish will count everything */
    d->overflow = scatter_regions(edges, NULL, len, d->n, d->p > 1 ? d->p : 0, d->top, d->nb, d->nt, d->cap,
                                  d->fill, d->buf, NULL);
}

int cc_dup_finish(MPI_Comm comm, cc_dup *d, const int64_t *edges, int64_t count, int64_t *distinct)
{
    const int p = d->p, nb = d->nb, nt = d->nt;
    int exact = d->overflow || d->added != count, rc = G5_OK;
    int64_t *seg_off = NULL, *seg_len = NULL, *sstart = NULL, local;

    *distinct = 0;
    /* every rank must take the same path: the exact one if any rank's
     * pieces overflowed or did not add up to its slab */
    if (p > 1 && MPI_Allreduce(MPI_IN_PLACE, &exact, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return g5_agree(comm, g5_error(G5_ERR_MPI, "duplicate count: MPI_Allreduce failed"));
    if (exact) {
        free(d->buf);  /* the exact path makes its own */
        d->buf = NULL;
        return count_all(comm, (int64_t)d->n, edges, count, nt, NULL, distinct);
    }
    if (p == 1) {
        seg_off = malloc((size_t)nt * (size_t)nb * sizeof *seg_off);
        seg_len = malloc((size_t)nt * (size_t)nb * sizeof *seg_len);
        local = -1;
        if (seg_off && seg_len) {
            region_segments(d->fill, nb, nt, d->cap, seg_off, seg_len);
            local = bucket_pass(d->buf, seg_off, seg_len, nt, nb, d->top, nt);
        }
        if (local < 0)
            rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
        else
            *distinct = local;
        free(seg_off);
        free(seg_len);
        return rc;
    }
    /* Pack the regions owner by owner (each segment moves left, never
     * past its own start), then the exchange of cc_count_distinct. */
    sstart = calloc((size_t)p + 1, sizeof *sstart);
    if (!sstart) {
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
    } else {
        int64_t off = 0;
        for (int c = 0; c < nb; c++) {
            sstart[c] = off;
            for (int t = 0; t < nt; t++) {
                const int64_t len = d->fill[(size_t)t * (size_t)nb + (size_t)c];
                memmove(d->buf + off, d->buf + ((int64_t)c * nt + t) * d->cap, (size_t)len * sizeof *d->buf);
                off += len;
            }
        }
        sstart[p] = off;
    }
    rc = owner_exchange(comm, p, d->n, nt, &d->buf, sstart, rc, distinct);
    free(sstart);
    return rc;
}
