/* SPDX-License-Identifier: MIT */
/*
 * sssp.c - kernel 3 of Graph500: distributed single-source shortest paths by
 * delta-stepping with light/heavy edge separation, OpenMP inside each rank
 * (docs/searches.md, kernel 3).
 *
 * Algorithm: Meyer and Sanders, "Delta-stepping", J. Algorithms 49(1), 2003,
 * with the bucket fusion of the GAP Benchmark Suite (Beamer et al.,
 * arXiv:1508.03619) and GraphIt (Zhang et al., CGO 2020). Buckets have width
 * delta; light edges have w < delta and are a prefix of each row (rows are
 * sorted by weight, csr_sort.c). A round takes the lowest non-empty bucket k
 * over all ranks and relaxes its light edges (a thread expands its own new
 * bucket-k entries at once: fusion), until bucket k is empty at P == 1, one
 * pass per round at P > 1 (relax_round); then its settled vertices' heavy
 * edges are relaxed once, fused with bucket k+1's light edges: pushed by
 * the settled vertices, or pulled by the vertices still open when the
 * bucket's rows are large (pull_pass; the direction optimization of
 * Chakaravarthy et al., "Scalable single source shortest path algorithms
 * for massively parallel systems", IPDPS 2014). No entry goes below the
 * lowest open bucket, so the result is exact (label-correcting).
 *
 * Filters: ub[l], one byte per vertex, is ceil(64 d) of a past tentative
 * distance (an upper bound even under races): a candidate at or above it
 * never touches the state word; gub[] does the same for remote targets, by
 * pid while P is small (gdirect), else by ghost slot. The loops wait on
 * memory: entries are prefetched ahead (expand_range), rows filtered 16
 * edges at a time with AVX-512 (relax_row16; AVX2: relax_heavy), passing
 * candidates batched with their words prefetched (relax_flush), st and ub
 * on huge pages. Four bits per row (sssp_row_bits), copied into each bucket
 * entry as two flags (ent_flags), skip rows with nothing to relax.
 *
 * Distribution: a remote target gets at most one message per round, only
 * for a distance better than its ghost word (the best sent; by pid with
 * gdirect, else by slot from a rank/select index of one word per 32 pids,
 * Jacobson, FOCS 1989). A round ends with one MPI_Alltoall of three words
 * per rank pair and, when some rank has messages, one MPI_Alltoallv of
 * 12-byte (target, parent, distance) messages. State: one 64-bit word per
 * vertex (float distance bits << 32 | parent pid, all ones when
 * unreached), changed by compare-and-swap only to a strictly smaller
 * distance, so the result does not depend on ranks, threads or order.
 *
 * Memory per rank: 9.75 bytes per local vertex and a bit per pid; at P > 1
 * N/4 bytes of ghost index, 9 per ghost and 12 per message slot (with
 * gdirect, N bound bytes and 8 (N - nl) of ghost words instead), N/16 bytes
 * of bucket counts and 8 per vertex of the largest bucket pulled; 8 bytes
 * per bucket entry during a search, trimmed to 64 KiB per thread afterwards
 * (workspace_trim).
 */
#include "kern_impl.h"

#include <math.h>
#include <omp.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VBMI__) && defined(__AVX512VPOPCNTDQ__)
#define SSSP_AVX512 1
#endif


/* The weight of CSR entry e, and its address for prefetching: every weight
 * access of this file goes through these two, so a change of the CSR's
 * weight storage touches two lines. */
static inline float sssp_w(const kern_graph *g, int64_t e) { return kern_w(g, e); }
static inline const void *sssp_w_addr(const kern_graph *g, int64_t e)
{
    return g->w24 ? (const void *)(g->w3 + 3 * e) : (const void *)&g->w[e];
}
#ifdef __AVX2__
/* Weights of entries e..e+7 (e + 8 <= nnz). 24-bit layout: one 32-byte
 * load of the 24 bytes (the array has 8 padding bytes), dwords 0-3 to the
 * low lane and 3-6 to the high one (bytes 0-15 and 12-27), then a byte
 * shuffle per lane spreads each 3-byte integer into a 32-bit one; converted
 * and scaled by 2^-24, exact as kern_w. (A gather is several times slower
 * on the machines measured.) */
static inline __m256 sssp_w8(const kern_graph *g, int64_t e)
{
    if (!g->w24)
        return _mm256_loadu_ps(&g->w[e]);
    const __m256i raw = _mm256_loadu_si256((const __m256i *)(const void *)(g->w3 + 3 * e));
    const __m256i lanes = _mm256_permutevar8x32_epi32(raw, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
    const __m256i spread = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,
                                            0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    __m256i k = _mm256_shuffle_epi8(lanes, spread);
    return _mm256_mul_ps(_mm256_cvtepi32_ps(k), _mm256_set1_ps(0x1p-24f));
}
#endif

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }



/* A bucket entry is dbits << 32 | l with two flags in the bits that dbits
 * (a non-negative float) and l (< nl < 2^31) leave free: ENT_LWORK when
 * its row's light pass has work (ent_flags), ENT_HEAVY when its row has
 * heavy edges (the entry then joins the settled list). They are taken from
 * the row bits when the entry is pushed (push_if_work), where the state
 * word is being written anyway, so that an expansion never reads the row
 * bits: N/2 bytes, read at random, that miss the caches at large SCALE. */
#define ENT_LWORK ((uint64_t)1 << 63)
#define ENT_HEAVY ((uint64_t)1 << 31)
static inline uint32_t ent_dbits(uint64_t ent) { return (uint32_t)(ent >> 32) & 0x7fffffffu; }
static inline uint32_t ent_l(uint64_t ent) { return (uint32_t)ent & 0x7fffffffu; }

/* push entry dbits << 32 | l | flags into this thread's bucket k */
static inline void bin_push(sssp_tctx *tc, int64_t k, uint32_t l, uint32_t dbits, uint64_t flags)
{
    if (k >= tc->nb) {
        int64_t nb = tc->nb ? tc->nb : 64;
        while (nb <= k) nb *= 2;
        kvec *b = realloc(tc->b, (size_t)nb * sizeof(kvec));
        if (!b) { tc->fail = 1; return; }
        for (int64_t i = tc->nb; i < nb; i++) kvec_init(&b[i], 8);
        tc->b = b;
        tc->nb = nb;
    }
    kvec *v = &tc->b[k];
    if (v->n == v->cap && !kvec_reserve(v, v->n + 1)) { tc->fail = 1; return; }
    ((uint64_t *)v->p)[v->n++] = (uint64_t)dbits << 32 | l | flags;
}

/* Relaxation context of one thread in one round. */
typedef struct rctx {
    kern_sssp *s;
    sssp_tctx *tc;
    uint64_t *st, *ghost;
    const uint64_t *gidx;
    uint8_t *ub, *gub;
    const uint64_t *rbits;
    const kern_graph *g;
    const int64_t *rowptr;
    const uint32_t *col;
    const kern_dist *d;
    int64_t nl, base, minb, nrel;
    int64_t kmin;           /* lowest open bucket: entries never go below it */
    int light;              /* 1 while relaxing light edges (expand_range), else 0 */
    int single;             /* one thread in the rank: plain stores, no compare-and-swap */
    int gdirect;            /* gub indexed by pid, not by ghost slot (kern_impl.h) */
    int ncand, nrcand;      /* relaxations waiting in cl/cp/cnd, rcand (relax_defer) */
    /* local candidates: target, parent, distance; 16 slots of slack for
     * the 16-lane stores of relax_row16 */
    uint32_t cl[NCAND + 16], cp[NCAND + 16];
    float cnd[NCAND + 16];
    struct rcand { uint32_t c, g, p; float nd; } rcand[NCAND];
    double inv_delta;
    float fdelta;
} rctx;

/* row u's bits (sssp_row_bits) */
enum { ROW_LIGHT = 1, ROW_HEAVY = 2, ROW_ONE_LIGHT = 4 };
static inline unsigned row_bits(const rctx *x, uint32_t u) { return x->rbits[u >> 4] >> (4 * (u & 15)) & 15; }

/* The flags of an entry of a row with bits rb (ENT_LWORK, ENT_HEAVY),
 * pushed by a light edge when `light`: light work when the row has light
 * edges that may improve something, which its only light edge is not when
 * it reached the row (that edge leads back to the parent). */
static inline uint64_t ent_flags(unsigned rb, int light)
{
    const int lw = (rb & ROW_LIGHT) && !((rb & ROW_ONE_LIGHT) && light);
    return (lw ? ENT_LWORK : 0) | (rb & ROW_HEAVY ? ENT_HEAVY : 0);
}

/* An improved vertex l joins bucket b only when its entry would relax
 * something (ent_flags). The others (rows of one entry, a fifth of the
 * vertices reached at SCALE 20, and rows whose one light edge reached them
 * and have no heavy one) would cost a state-word miss each when expanded,
 * for nothing. */
static inline void push_if_work(rctx *x, int64_t b, uint32_t l, uint32_t dbits)
{
    const uint64_t f = ent_flags(row_bits(x, l), x->light);
    if (f) bin_push(x->tc, b > x->kmin ? b : x->kmin, l, dbits, f);
}

/* The key a candidate distance nd is tested with: nd < ub / 64 is possible
 * only if ub_key(nd) < ub. Capped at 254 so that the byte 255 ("unknown or
 * >= 254/64") always lets a candidate through: without the cap, no distance
 * >= 255/64 could ever reach an unreached vertex. Exact: a byte below 255
 * is ceil(64 d) <= 254 of a past distance d, so a key of 254 means nd >= d. */
static inline int ub_key(float nd)
{
    /* a compare, not fminf: without -ffinite-math-only GCC calls libm's
     * fminf (NaN rules), ~6% of the instructions of a search; nd is never NaN */
    float q = nd * UB_SCALE;
    return (int)(q < 254.0f ? q : 254.0f);
}

/* strictly smaller distance wins; the improved vertex joins its bucket */
static inline void relax_local(rctx *x, uint64_t l, float nd, uint32_t p)
{
    uint64_t nbits = f2u(nd);
    uint64_t old = __atomic_load_n(&x->st[l], __ATOMIC_RELAXED);
    if (x->single) {
        /* no other thread: the test and the store need no lock (a locked
         * instruction per improvement is most of a relaxation's cost) */
        if ((old >> 32) <= nbits) return;
        __atomic_store_n(&x->st[l], nbits << 32 | p, __ATOMIC_RELAXED);
        float q = ceilf(nd * UB_SCALE);
        __atomic_store_n(&x->ub[l], q < 255.0f ? (uint8_t)q : (uint8_t)255, __ATOMIC_RELAXED);
        push_if_work(x, (int64_t)((double)nd * x->inv_delta), (uint32_t)l, (uint32_t)nbits);
        return;
    }
    while ((old >> 32) > nbits)
        if (__atomic_compare_exchange_n(&x->st[l], &old, nbits << 32 | p, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            float q = ceilf(nd * UB_SCALE);
            __atomic_store_n(&x->ub[l], q < 255.0f ? (uint8_t)q : (uint8_t)255, __ATOMIC_RELAXED);
            push_if_work(x, (int64_t)((double)nd * x->inv_delta), (uint32_t)l, (uint32_t)nbits);
            return;
        }
}

/* a remote target c (ghost word g): queue it only if better than everything
 * sent to it */
static void relax_remote(rctx *x, uint32_t c, uint32_t g, float nd,
                                                    uint32_t p)
{
    uint64_t nbits = f2u(nd);
    uint64_t old = __atomic_load_n(&x->ghost[g], __ATOMIC_RELAXED);
    while (((old >> 32) & 0x7fffffffu) > nbits)
        if (x->single ? (__atomic_store_n(&x->ghost[g], GHOST_QUEUED | nbits << 32 | p, __ATOMIC_RELAXED), 1)
                      : __atomic_compare_exchange_n(&x->ghost[g], &old, GHOST_QUEUED | nbits << 32 | p, 1,
                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            float q = ceilf(nd * UB_SCALE);
            __atomic_store_n(&x->gub[x->gdirect ? c : g], q < 255.0f ? (uint8_t)q : (uint8_t)255, __ATOMIC_RELAXED);
            if (!(old & GHOST_QUEUED)) {
                uint32_t *q = kvec_push(&x->tc->queued[kern_owner_of_pid(x->d, c)]);
                if (q) *q = c; else x->tc->fail = 1;
            }
            int64_t b = (int64_t)((double)nd * x->inv_delta);
            if (b < x->kmin) b = x->kmin;
            if (b < x->minb) x->minb = b;
            return;
        }
}

/* The ghost word of remote pid c when the bound bytes are by pid
 * (gdirect): the ghost words are by pid too, the local range base..base+nl
 * left out, so a remote candidate's word is known without an index lookup
 * (a dependent miss on the way to the word). */
static inline uint32_t ghost_pid(int64_t base, int64_t nl, uint32_t c)
{
    return (uint32_t)((int64_t)c < base ? (int64_t)c : (int64_t)c - nl);
}

/* Relaxations that passed a bound byte wait in x->cl/cp/cnd (local) or
 * x->rcand (remote) with their state or ghost word prefetched (the state
 * words again PF_CAND ahead here, for relax_row16's, which are not, with
 * the row bits that push_if_work reads), and
 * are done in a batch: relax_local's compare-and-swap is a full barrier on
 * x86, so a miss on the word would stall every later load, and the ghost
 * words of a rank's remote targets are as scattered as its state words.
 * The result does not depend on the order. */
static void relax_flush(rctx *x)
{
    const int n = x->ncand;
    for (int i = 0; i < n && i < PF_CAND; i++) {
        __builtin_prefetch(&x->st[x->cl[i]], 1);
        __builtin_prefetch(&x->rbits[x->cl[i] >> 4]);
    }
    for (int i = 0; i < n; i++) {
        if (i + PF_CAND < n) {
            __builtin_prefetch(&x->st[x->cl[i + PF_CAND]], 1);
            __builtin_prefetch(&x->rbits[x->cl[i + PF_CAND] >> 4]);
        }
        relax_local(x, x->cl[i], x->cnd[i], x->cp[i]);
    }
    x->ncand = 0;
    for (int i = 0; i < x->nrcand; i++)
        relax_remote(x, x->rcand[i].c, x->rcand[i].g, x->rcand[i].nd, x->rcand[i].p);
    x->nrcand = 0;
}

static inline void relax_defer(rctx *x, uint64_t l, float nd, uint32_t p)
{
    __builtin_prefetch(&x->st[l], 1);
    const int n = x->ncand++;
    x->cl[n] = (uint32_t)l;
    x->cp[n] = p;
    x->cnd[n] = nd;
    if (x->ncand == NCAND) relax_flush(x);
}

static inline void relax_defer_remote(rctx *x, uint32_t c, uint32_t g, float nd, uint32_t p)
{
    __builtin_prefetch(&x->ghost[g], 1);
    x->rcand[x->nrcand++] = (struct rcand){c, g, p, nd};
    if (x->nrcand == NCAND) relax_flush(x);
}

/* Relax edges e0..e1-1 of a row, stopping at the first weight >= wmax when
 * `light` (rows are sorted by weight). The row arrays and bounds are held in
 * locals because the byte stores into ub may alias anything reached through
 * x. The bound test nd * UB_SCALE < ub is done as ub_key(nd) < ub,
 * the same for non-negative nd and an integer ub. */
static inline void relax_edges(rctx *x, int64_t e0, int64_t e1, int light, float du,
                               uint32_t upid)
{
    const uint32_t *col = x->col;
    const kern_wts wt = kern_weights(x->g);
    const uint8_t *ub = x->ub, *gub = x->gub;
    const uint64_t *gidx = x->gidx;
    const int gdirect = x->gdirect;
    const uint64_t nl = (uint64_t)x->nl;
    const int64_t base = x->base;
    const float wmax = x->fdelta;
    int64_t e = e0;
    for (; e < e1; e++) {
        float we = kern_wts_get(wt, e);
        if (light && !(we < wmax)) break;
        uint32_t c = col[e];
        uint64_t l = (uint64_t)((int64_t)c - base);
        float nd = du + we;
        int q = ub_key(nd);
        if (l < nl) {
            if (q < (int)__atomic_load_n(&ub[l], __ATOMIC_RELAXED)) relax_defer(x, l, nd, upid);
        } else if (gdirect) {
            if (q < (int)__atomic_load_n(&gub[c], __ATOMIC_RELAXED)) relax_defer_remote(x, c, ghost_pid(x->base, x->nl, c), nd, upid);
        } else {
            uint32_t gs = ghost_slot(gidx, c);
            if (q < (int)__atomic_load_n(&gub[gs], __ATOMIC_RELAXED)) relax_defer_remote(x, c, gs, nd, upid);
        }
    }
    x->nrel += e - e0;
}

#ifdef __AVX2__
/* Population count of each 32-bit lane (nibble table, then the byte
 * counts summed per lane). */
static inline __m256i popcount8x32(__m256i v)
{
    const __m256i tab = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    __m256i b = _mm256_add_epi8(_mm256_shuffle_epi8(tab, _mm256_and_si256(v, low)),
                                _mm256_shuffle_epi8(tab, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
    __m256i w = _mm256_maddubs_epi16(b, _mm256_set1_epi8(1));
    return _mm256_madd_epi16(w, _mm256_set1_epi16(1));
}

/* ghost_slot of the lanes of c in mask m (other lanes: 0): the index words
 * gathered four at a time, their halves split into counts and bits. */
static inline __m256i ghost_slot8(const uint64_t *gidx, __m256i c, __m256i m)
{
    const __m256i wi = _mm256_srli_epi32(c, 5);
    const long long *base = (const long long *)(const void *)gidx;
    __m256i a = _mm256_mask_i32gather_epi64(_mm256_setzero_si256(), base, _mm256_castsi256_si128(wi),
                                            _mm256_cvtepi32_epi64(_mm256_castsi256_si128(m)), 8);
    __m256i b = _mm256_mask_i32gather_epi64(_mm256_setzero_si256(), base, _mm256_extracti128_si256(wi, 1),
                                            _mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1)), 8);
    /* in-lane even (bits) and odd (count) dwords of a and b, then the
     * 64-bit quarters back into order 0..7 */
    __m256 lo = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0));
    __m256 hi = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(3, 1, 3, 1));
    __m256i bits = _mm256_permute4x64_epi64(_mm256_castps_si256(lo), _MM_SHUFFLE(3, 1, 2, 0));
    __m256i cnt = _mm256_permute4x64_epi64(_mm256_castps_si256(hi), _MM_SHUFFLE(3, 1, 2, 0));
    __m256i below = _mm256_sub_epi32(
        _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_and_si256(c, _mm256_set1_epi32(31))),
        _mm256_set1_epi32(1));
    return _mm256_add_epi32(cnt, popcount8x32(_mm256_and_si256(bits, below)));
}
#endif

/* The heavy edges e0..e1-1 of a row: relax_edges, eight edges at a time
 * with AVX2: the bound bytes of the local targets gathered as 32-bit words
 * at ub + l and those of the remote ones at gub + ghost slot (ghost_slot8),
 * or all of them at gub + pid when the bytes are by pid (gdirect), of
 * which the low byte is used (the other three bytes may be changing
 * under other threads and are ignored). Same tests, same results. */
static inline void relax_heavy(rctx *x, int64_t e0, int64_t e1, float du, uint32_t upid)
{
#ifdef __AVX2__
    const kern_graph *g = x->g;
    const uint32_t *col = x->col;
    const int *ub = (const int *)(const void *)x->ub;
    const int *gub = (const int *)(const void *)x->gub;
    const int gdirect = x->gdirect;
    const __m256 vdu = _mm256_set1_ps(du), vscale = _mm256_set1_ps(UB_SCALE);
    const __m256 vcap = _mm256_set1_ps(254.0f);
    const __m256i vbase = _mm256_set1_epi32((int)(uint32_t)x->base);
    const __m256i vnl = _mm256_set1_epi32((int)x->nl), vneg = _mm256_set1_epi32(-1);
    const __m256i vbyte = _mm256_set1_epi32(0xff);
    int64_t e = e0;
    for (; e + 8 <= e1; e += 8) {
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)&col[e]);
        __m256 nd = _mm256_add_ps(vdu, sssp_w8(g, e));
        __m256i q = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_mul_ps(nd, vscale), vcap));  /* ub_key */
        __m256i l = _mm256_sub_epi32(c, vbase);   /* local iff 0 <= l < nl (nl < 2^31) */
        __m256i loc = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), l),
                                          _mm256_cmpgt_epi32(vnl, l));
        __m256i b, gs = _mm256_setzero_si256();
        if (gdirect) {      /* bound bytes by pid: one gather for all lanes */
            b = _mm256_i32gather_epi32(gub, c, 1);
        } else {
            b = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), ub, l, loc, 1);
            if (gub) {      /* P > 1: the remote lanes by ghost slot */
                __m256i rem = _mm256_xor_si256(loc, vneg);
                gs = ghost_slot8(x->gidx, c, rem);
                b = _mm256_mask_i32gather_epi32(b, gub, gs, rem, 1);
            }
        }
        __m256i pass = _mm256_cmpgt_epi32(_mm256_and_si256(b, vbyte), q);
        unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(pass));
        if (!m) continue;
        unsigned ml = m & (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(loc));
        float ndv[8];
        uint32_t gsv[8];
        _mm256_storeu_ps(ndv, nd);
        _mm256_storeu_si256((__m256i *)(void *)gsv, gs);
        for (; m; m &= m - 1) {
            int j = __builtin_ctz(m);
            if (ml >> j & 1)
                relax_defer(x, (uint64_t)((int64_t)col[e + j] - x->base), ndv[j], upid);
            else if (gdirect)
                relax_defer_remote(x, col[e + j], ghost_pid(x->base, x->nl, col[e + j]), ndv[j], upid);
            else
                relax_defer_remote(x, col[e + j], gsv[j], ndv[j], upid);
        }
    }
    x->nrel += e - e0;
    relax_edges(x, e, e1, 0, du, upid);
#else
    relax_edges(x, e0, e1, 0, du, upid);
#endif
}

#ifdef SSSP_AVX512
/* Weights of entries e..e+n-1 (1 <= n <= 16) in lanes 0..n-1, the others
 * 0: a masked load of 3n bytes spread into 32-bit lanes by a byte
 * permutation; exact as kern_w. Masked loads never touch bytes past the
 * row, so no padding is needed. */
static inline __m512 sssp_w16(const kern_graph *g, int64_t e, int n)
{
    if (!g->w24) return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1), &g->w[e]);
    static const uint8_t spread[64] = {
        0, 1, 2, 63, 3, 4, 5, 63, 6, 7, 8, 63, 9, 10, 11, 63, 12, 13, 14, 63, 15, 16, 17, 63,
        18, 19, 20, 63, 21, 22, 23, 63, 24, 25, 26, 63, 27, 28, 29, 63, 30, 31, 32, 63,
        33, 34, 35, 63, 36, 37, 38, 63, 39, 40, 41, 63, 42, 43, 44, 63, 45, 46, 47, 63};
    const __m512i raw = _mm512_maskz_loadu_epi8((__mmask64)(((uint64_t)1 << (3 * n)) - 1), g->w3 + 3 * e);
    const __m512i k = _mm512_permutexvar_epi8(_mm512_loadu_si512(spread), raw);   /* byte 63 is 0 */
    return _mm512_mul_ps(_mm512_cvtepi32_ps(k), _mm512_set1_ps(0x1p-24f));
}

/* ghost_slot of the lanes of c in m (others 0): the index words gathered
 * eight at a time, split into bits (even dwords) and counts (odd ones). */
static inline __m512i ghost_slot16(const uint64_t *gidx, __m512i c, __mmask16 m)
{
    const __m512i wi = _mm512_srli_epi32(c, 5);
    const __m512i a = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)m,
                                                  _mm512_castsi512_si256(wi), gidx, 8);
    const __m512i b = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), (__mmask8)(m >> 8),
                                                  _mm512_extracti64x4_epi64(wi, 1), gidx, 8);
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i bits = _mm512_permutex2var_epi32(a, even, b);
    const __m512i cnt = _mm512_permutex2var_epi32(a, _mm512_add_epi32(even, _mm512_set1_epi32(1)), b);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i below = _mm512_sub_epi32(_mm512_sllv_epi32(one, _mm512_and_si512(c, _mm512_set1_epi32(31))), one);
    return _mm512_add_epi32(cnt, _mm512_popcnt_epi32(_mm512_and_si512(bits, below)));
}

/* relax_edges and relax_heavy in one, sixteen entries at a time from the
 * row's start: the lanes with w < delta (light) or w >= delta (heavy;
 * rows are sorted, so no scan for the first heavy entry), the row's tail
 * by masks. The bound bytes are gathered as in relax_heavy, and the local
 * targets that pass are compressed into cl/cnd/cp without a branch per
 * lane, so that no branch waits on a gathered byte and the next rows'
 * gathers overlap this one's misses; relax_flush prefetches their state
 * words. Same tests, same results. */
static inline void relax_row16(rctx *x, int64_t e0, int64_t e1, int light, float du, uint32_t upid)
{
    const kern_graph *g = x->g;
    const uint32_t *col = x->col;
    const uint8_t *ub = x->ub, *gub = x->gub;
    const __m512 vdu = _mm512_set1_ps(du), vlim = _mm512_set1_ps(x->fdelta);
    const __m512 vscale = _mm512_set1_ps(UB_SCALE), vcap = _mm512_set1_ps(254.0f);
    const __m512i vbase = _mm512_set1_epi32((int)(uint32_t)x->base), vnl = _mm512_set1_epi32((int)x->nl);
    const __m512i vbyte = _mm512_set1_epi32(0xff), vp = _mm512_set1_epi32((int)upid);
    int64_t nrel = 0;
    for (int64_t e = e0; e < e1; e += 16) {
        const int n = e1 - e < 16 ? (int)(e1 - e) : 16;
        const __mmask16 in = (__mmask16)((1u << n) - 1);
        const __m512 w = sssp_w16(g, e, n);
        const __mmask16 m = light ? _mm512_mask_cmp_ps_mask(in, w, vlim, _CMP_LT_OQ)
                                  : _mm512_mask_cmp_ps_mask(in, w, vlim, _CMP_NLT_UQ);
        nrel += __builtin_popcount(m);
        if (m) {
            const __m512i c = _mm512_maskz_loadu_epi32(m, &col[e]);
            const __m512 nd = _mm512_add_ps(vdu, w);
            const __m512i q = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_mul_ps(nd, vscale), vcap));  /* ub_key */
            const __m512i l = _mm512_sub_epi32(c, vbase);
            const __mmask16 loc = _mm512_mask_cmplt_epu32_mask(m, l, vnl);
            /* bound bytes by pid (gdirect): one gather for all lanes */
            const __m512i b = x->gdirect ? _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, c, gub, 1)
                                         : _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), loc, l, ub, 1);
            const __mmask16 pm = _mm512_mask_cmpgt_epi32_mask(m, _mm512_and_si512(b, vbyte), q);
            const __mmask16 pass = pm & loc;
            const int k = x->ncand;
            _mm512_storeu_si512(&x->cl[k], _mm512_maskz_compress_epi32(pass, l));
            _mm512_storeu_ps(&x->cnd[k], _mm512_maskz_compress_ps(pass, nd));
            _mm512_storeu_si512(&x->cp[k], vp);
            x->ncand = k + __builtin_popcount(pass);
            if (x->ncand >= NCAND) relax_flush(x);
            const __mmask16 rem = m & (__mmask16)~loc;
            if (rem && x->gdirect) {    /* P > 1, the remote lanes that passed */
                unsigned rp = pm & rem;
                if (rp) {
                    uint32_t cv[16];
                    float ndv[16];
                    _mm512_storeu_si512(cv, c);
                    _mm512_storeu_ps(ndv, nd);
                    for (; rp; rp &= rp - 1) {
                        int j = __builtin_ctz(rp);
                        relax_defer_remote(x, cv[j], ghost_pid(x->base, x->nl, cv[j]), ndv[j], upid);
                    }
                }
            } else if (rem) {           /* P > 1, by ghost slot */
                const __m512i gs = ghost_slot16(x->gidx, c, rem);
                const __m512i gb = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), rem, gs, gub, 1);
                unsigned rp = _mm512_mask_cmpgt_epi32_mask(rem, _mm512_and_si512(gb, vbyte), q);
                if (rp) {
                    uint32_t cv[16], gv[16];
                    float ndv[16];
                    _mm512_storeu_si512(cv, c);
                    _mm512_storeu_si512(gv, gs);
                    _mm512_storeu_ps(ndv, nd);
                    for (; rp; rp &= rp - 1) {
                        int j = __builtin_ctz(rp);
                        relax_defer_remote(x, cv[j], gv[j], ndv[j], upid);
                    }
                }
            }
        }
        if (light && m != in) break;
    }
    x->nrel += nrel;
}
#endif

/* light edges of a bucket entry, if not stale; remembers it as settled
 * when its row has heavy edges */
static inline void expand_light(rctx *x, uint64_t ent)
{
    uint32_t u = ent_l(ent), dbits = ent_dbits(ent);
    const uint64_t w = __atomic_load_n(&x->st[u], __ATOMIC_RELAXED);
    if ((uint32_t)(w >> 32) != dbits) return;
    if (ent & ENT_HEAVY) {
        uint64_t *sp = kvec_push(&x->tc->settled);
        if (sp) *sp = ent; else x->tc->fail = 1;
    }
    if (!(ent & ENT_LWORK)) return;
    /* one light edge, to the vertex's parent: relaxing it back cannot
     * improve (the parent's distance is at most this one's). ent_flags
     * shows this when a light edge pushed the entry; an entry pushed
     * otherwise (a heavy edge, a message) has its row's first column (the
     * light edge, prefetched by expand_range) compared with the parent,
     * and then its second weight (mostly on the same lines) with delta. */
    const int64_t e0 = x->rowptr[u], e1 = x->rowptr[u + 1];
    if (x->col[e0] == (uint32_t)w && (e0 + 1 == e1 || !(sssp_w(x->g, e0 + 1) < x->fdelta))) return;
#ifdef SSSP_AVX512
    relax_row16(x, e0, e1, 1, u2f(dbits), (uint32_t)(x->base + u));
#else
    relax_edges(x, e0, e1, 1, u2f(dbits), (uint32_t)(x->base + u));
#endif
}

/* heavy edges of a settled entry, if it is still the vertex's distance */
static inline void expand_heavy(rctx *x, uint64_t ent)
{
    uint32_t u = ent_l(ent), dbits = ent_dbits(ent);
    if ((uint32_t)(__atomic_load_n(&x->st[u], __ATOMIC_RELAXED) >> 32) != dbits) return;
#ifdef SSSP_AVX512
    relax_row16(x, x->rowptr[u], x->rowptr[u + 1], 0, u2f(dbits), (uint32_t)(x->base + u));
#else
    /* the first weight >= delta, by a forward scan: the light prefix is
     * short (a fraction delta of the row) and its lines are the row's first,
     * prefetched, where a binary search would miss on a farther line */
    int64_t lo = x->rowptr[u], hi = x->rowptr[u + 1];
    while (lo < hi && sssp_w(x->g, lo) < x->fdelta) lo++;
    relax_heavy(x, lo, hi, u2f(dbits), (uint32_t)(x->base + u));
#endif
}

/* 1 when list entry en is still its vertex's distance (not stale). */
static inline int entry_current(const rctx *x, uint64_t en)
{
    return (uint32_t)(__atomic_load_n(&x->st[ent_l(en)], __ATOMIC_RELAXED) >> 32) == ent_dbits(en);
}

/* Expand entries i0..i1-1 of a list of n entries (heavy or light edges).
 * These are the dependent misses of an expansion (the CSR at SCALE 20 far
 * exceeds the last-level cache), prefetched in three stages: the entry's
 * state word PF_STATE entries ahead; its row bound PF_BOUND ahead and its
 * row's first lines PF_NEAR ahead, both only when the state word (cached
 * by then) shows the entry current: a stale entry (about half of a light
 * pass's) costs its state word alone. Prefetches run past i1 (into another
 * thread's chunk, harmlessly) so that short chunks get them. */
static inline void expand_range(rctx *x, const uint64_t *ent, int64_t i0, int64_t i1, int64_t n,
                                int heavy)
{
    const int64_t *rowptr = x->rowptr;
    x->light = !heavy;
    const uint64_t want = heavy ? 0 : ENT_LWORK;   /* entries whose row lines are wanted */
    for (int64_t i = i0; i < i1; i++) {
        if (i + PF_STATE < n) __builtin_prefetch(&x->st[ent_l(ent[i + PF_STATE])]);
        if (i + PF_BOUND < n && (ent[i + PF_BOUND] & want) == want && entry_current(x, ent[i + PF_BOUND]))
            __builtin_prefetch(&rowptr[ent_l(ent[i + PF_BOUND])]);
        if (i + PF_NEAR < n && (ent[i + PF_NEAR] & want) == want && entry_current(x, ent[i + PF_NEAR])) {
            int64_t e = rowptr[ent_l(ent[i + PF_NEAR])];
            __builtin_prefetch(&x->col[e]);
            __builtin_prefetch(sssp_w_addr(x->g, e));
        }
        if (heavy) expand_heavy(x, ent[i]); else expand_light(x, ent[i]);
    }
    relax_flush(x);
}

static void rctx_init(rctx *x, kern_sssp *s, int t)
{
    kern_graph *g = s->g;
    x->s = s; x->tc = &s->tc[t]; x->st = s->st; x->ub = s->ub; x->gub = s->gub; x->ghost = s->ghost;
    x->gidx = s->gidx; x->gdirect = s->gdirect; x->rbits = s->rbits;
    x->g = g; x->rowptr = g->rowptr; x->col = g->col; x->d = g->dist;
    x->nl = s->nl; x->base = g->base; x->minb = INT64_MAX; x->nrel = 0; x->kmin = 0; x->light = 0;
    x->single = s->nt == 1 || omp_get_num_threads() == 1;
    x->ncand = x->nrcand = 0;
    x->inv_delta = s->inv_delta; x->fdelta = s->fdelta;
}

/* Lowest bucket >= k holding an entry on this rank (INT64_MAX: none). */
static int64_t lowest_bucket(const kern_sssp *s, int64_t k)
{
    int64_t next = INT64_MAX;
    for (int t = 0; t < s->nt; t++) {
        const sssp_tctx *tc = &s->tc[t];
        for (int64_t i = k; i < tc->nb && i < next; i++)
            if (tc->b[i].n) { next = i; break; }
    }
    return next;
}

/* The ghost word of remote pid c: ghost_pid when gdirect, else its slot. */
static inline uint32_t ghost_at(const kern_sssp *s, uint32_t c)
{
    return s->gdirect ? ghost_pid(s->g->base, s->nl, c) : ghost_slot(s->gidx, c);
}

/* Gather messages into sendbuf by destination and clear their queued marks;
 * sets the counts sc[] and displacements sd[]. */
static void compose(kern_sssp *s)
{
    int P = s->P, nt = s->nt;
    int64_t o = 0;
    for (int r = 0; r < P; r++) {
        s->sd[r] = (int)o;
        for (int t = 0; t < nt; t++) o += (int64_t)s->tc[t].queued[r].n;
        s->sc[r] = (int)(o - s->sd[r]);
    }
#pragma omp parallel num_threads(nt) if (o > 4096)
    {
        int nth = omp_get_num_threads(), me = omp_get_thread_num();
        for (int r = 0; r < P; r++) {
            int64_t off = s->sd[r];
            for (int t = 0; t < nt; t++) {
                kvec *q = &s->tc[t].queued[r];
                if (t % nth == me) {
                    const uint32_t *c = (const uint32_t *)q->p;
                    for (size_t i = 0; i < q->n; i++) {
                        if (i + PF_FAR < q->n) __builtin_prefetch(&s->ghost[ghost_at(s, c[i + PF_FAR])], 1);
                        uint32_t gs = ghost_at(s, c[i]);
                        uint64_t wd = s->ghost[gs] & ~GHOST_QUEUED;
                        s->ghost[gs] = wd;
                        sssp_msg *m = &s->sendbuf[off + (int64_t)i];
                        m->c = c[i]; m->p = (uint32_t)wd; m->d = u2f((uint32_t)(wd >> 32));
                    }
                }
                off += (int64_t)q->n;
            }
        }
    }
    for (int t = 0; t < nt; t++)
        for (int r = 0; r < P; r++) s->tc[t].queued[r].n = 0;
}

/* Hand every thread's entries of bucket k (heavy == 0) or its settled list
 * (heavy == 1) over to seg[t] (no copy); seg[t]'s old storage, already
 * expanded, is freed rather than recycled into the thread's list, where it
 * would keep the size of a past list (and pass on to the fusion scratch).
 * Returns the count. */
static int64_t gather_list(kern_sssp *s, int heavy, int64_t k, kvec *seg)
{
    int64_t n = 0;
    for (int t = 0; t < s->nt; t++) {
        sssp_tctx *tc = &s->tc[t];
        kvec *v = heavy ? &tc->settled : (k < tc->nb ? &tc->b[k] : NULL);
        kvec_free(&seg[t]);
        if (!v) continue;
        seg[t] = *v;
        kvec_init(v, 8);
        n += (int64_t)seg[t].n;
    }
    return n;
}

/* ck[t] = chunks of ch entries in segments 0..t-1 (ck[nt]: all) */
static void count_chunks(const kvec *seg, int nt, int64_t ch, int64_t *ck)
{
    ck[0] = 0;
    for (int t = 0; t < nt; t++) ck[t + 1] = ck[t] + ((int64_t)seg[t].n + ch - 1) / ch;
}

/* expand chunk c of a segmented list (count_chunks) */
static inline void expand_chunk(rctx *x, const kvec *seg, const int64_t *ck, int nt, int64_t ch,
                                int64_t c, int heavy)
{
    int lo = 0, hi = nt - 1;
    while (lo < hi) {       /* the segment t with ck[t] <= c < ck[t + 1] */
        int mid = (lo + hi + 1) / 2;
        if (ck[mid] <= c) lo = mid; else hi = mid - 1;
    }
    const int64_t n = (int64_t)seg[lo].n, i0 = (c - ck[lo]) * ch;
    expand_range(x, (const uint64_t *)seg[lo].p, i0, i0 + ch < n ? i0 + ch : n, n, heavy);
}

/* chunks of up to CHUNK entries, at least 4 per thread when the list is short */
static int64_t chunk_of(int64_t n, int nt)
{
    int64_t c = n / (4 * (int64_t)nt);
    return c > CHUNK ? CHUNK : c < 16 ? 16 : c;
}

/* One local pass: the heavy list (settled entries of the previous bucket),
 * then the light frontier of bucket k, then each thread's own new bucket-k
 * entries while few (bucket fusion). */
static void local_pass(kern_sssp *s, int64_t k, int64_t kmin, int64_t fn, int64_t hn,
                       int64_t *nrel, int64_t *minb)
{
    int64_t nr = 0, mb = INT64_MAX;
    const int nt = s->nt;
    const int64_t hch = chunk_of(hn, nt), fch = chunk_of(fn, nt);
    count_chunks(s->hseg, nt, hch, s->hck);
    count_chunks(s->fseg, nt, fch, s->fck);
    if (!hn) s->hck[nt] = 0;
    if (!fn) s->fck[nt] = 0;   /* heavy-only round: bucket k's segments are not expanded */
    const int64_t hc = s->hck[nt], fc = s->fck[nt];
#pragma omp parallel num_threads(s->nt) reduction(+ : nr) reduction(min : mb) if (fn + hn >= PAR_MIN)
    {
        rctx x;
        rctx_init(&x, s, omp_get_thread_num());
        x.kmin = kmin;
        sssp_tctx *tc = x.tc;
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t c = 0; c < hc; c++) expand_chunk(&x, s->hseg, s->hck, nt, hch, c, 1);
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t c = 0; c < fc; c++) expand_chunk(&x, s->fseg, s->fck, nt, fch, c, 0);
        while (fn > 0 && k < tc->nb && tc->b[k].n > 0 && tc->b[k].n < FUSE_MAX) {
            kvec tmp = tc->b[k];
            tc->b[k] = tc->cur;
            tc->cur = tmp;
            expand_range(&x, (const uint64_t *)tc->cur.p, 0, (int64_t)tc->cur.n, (int64_t)tc->cur.n, 0);
            tc->cur.n = 0;
        }
        nr += x.nrel;
        mb = x.minb;
    }
    *nrel += nr;
    if (mb < *minb) *minb = mb;
}

/* The heavy edges of a finished bucket (the heavy list, hseg), pulled
 * instead of pushed when that scans less: a vertex v that may still
 * improve (its bit in s->pc) scans its heavy edges in weight order for
 * neighbours in the bucket (s->sbits, by pid) and keeps the best d(u) + w,
 * stopping at the first weight with L + w >= t, where L is the bucket's
 * smallest distance over all ranks and t v's distance so far: no later
 * edge can do better (float addition is monotone, rows are sorted). When
 * even its first heavy edge fails that test, v leaves s->pc for good:
 * every later bucket's distances are at least L (each is d + w of a
 * vertex expanded after this bucket closed, w >= 0) and t only decreases.
 * Pushing scans every heavy edge of the bucket, most of them to vertices
 * already final; a pull scans a few edges per vertex still open, but
 * visits every such vertex, so the ranks pull together when the bucket's
 * rows hold more than PULL_BETA entries per open vertex (sums over all
 * ranks; 2 and 4 did equally well at SCALE 20, 0.5 and 16 worse) and push
 * otherwise (returns 0: local_pass pushes the heavy
 * list). At P > 1 each rank sends its bucket's (pid, distance) pairs in
 * pid order to all (one MPI_Allgatherv); a remote neighbour's distance is
 * then found by rank on the bucket's bitmap (s->scnt: bits below each
 * word), and no message moves. Each thread owns whole words of s->pc, so
 * a vertex has one writer and needs no compare-and-swap; the bucket's
 * state words are final and only read. The same relaxations as the push,
 * so the same distances. */
#define PULL_WORDS 16           /* words of s->pc a thread takes at a time */
#define PULL_BETA 4.0

/* The bucket's pairs from every rank (see pull_pass) into s->sl_recv, their
 * bits into s->sbits and the counts s->scnt; *ntotal pairs. Returns 0 on
 * every rank when an allocation failed on some rank (the search then ends
 * in error). */
static int pull_gather(kern_sssp *s, int64_t *ntotal)
{
    kern_graph *g = s->g;
    const int P = s->P, me = g->rank;
    const int64_t w0 = g->base / 64, nlw = (s->nl + 63) / 64;
    int64_t n = 0;
    for (int64_t i = 0; i < nlw; i++) n += __builtin_popcountll(s->sbits[w0 + i]);
    int ok = kvec_reserve(&s->sl_send, (size_t)n + 1);
    if (ok) {
        uint64_t *o = (uint64_t *)s->sl_send.p;
        int64_t j = 0;
        for (int64_t i = 0; i < nlw; i++)
            for (uint64_t b = s->sbits[w0 + i]; b; b &= b - 1) {
                const int64_t l = 64 * i + __builtin_ctzll(b);
                o[j++] = (uint64_t)(g->base + l) << 32 | (uint32_t)(s->st[l] >> 32);
            }
        s->sl_send.n = (size_t)n;
    }
    int cnt = ok ? (int)n : -1;
    if (MPI_Allgather(&cnt, 1, MPI_INT, s->rc, 1, MPI_INT, g->comm) != MPI_SUCCESS) return 0;
    int64_t tot = 0;
    for (int r = 0; r < P; r++) {
        if (s->rc[r] < 0) ok = 0;
        s->rd[r] = tot < INT32_MAX ? (int)tot : 0;
        tot += s->rc[r] > 0 ? s->rc[r] : 0;
    }
    if (!ok || tot > INT32_MAX) return 0;   /* the same verdict on every rank */
    int mine = kvec_reserve(&s->sl_recv, (size_t)tot + 1), all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, g->comm) != MPI_SUCCESS || !all) return 0;
    if (MPI_Allgatherv(s->sl_send.p, cnt, MPI_UINT64_T, s->sl_recv.p, s->rc, s->rd, MPI_UINT64_T,
                       g->comm) != MPI_SUCCESS)
        return 0;
    for (int r = 0; r < P; r++)
        if (r != me) g->bytes_to[r] += 8 * (int64_t)n;
    s->sl_recv.n = (size_t)tot;
    const uint64_t *in = (const uint64_t *)s->sl_recv.p;
    uint64_t *sb = s->sbits;
#pragma omp parallel for num_threads(s->nt) schedule(static) if (tot >= 4096)
    for (int64_t i = 0; i < tot; i++) {
        const uint64_t bit = (uint64_t)1 << (in[i] >> 32 & 63);
        if (!(__atomic_load_n(&sb[in[i] >> 38], __ATOMIC_RELAXED) & bit))
            __atomic_fetch_or(&sb[in[i] >> 38], bit, __ATOMIC_RELAXED);
    }
    uint32_t c = 0;
    for (int64_t i = 0; i < s->nsw; i++) {
        s->scnt[i] = c;
        c += (uint32_t)__builtin_popcountll(s->sbits[i]);
    }
    *ntotal = tot;
    return 1;
}

static int pull_pass(kern_sssp *s, int64_t kmin, int64_t *nrel, int *fail)
{
    const int nt = s->nt, P = s->P;
    uint64_t *sb = s->sbits, *pc = s->pc, *st = s->st;
    const int64_t nw = s->nl / 64 + 1, base = s->g->base, nl = s->nl;
    int64_t hn = 0;
    for (int t = 0; t < nt; t++) hn += (int64_t)s->hseg[t].n;
    const int64_t *rowptr = s->g->rowptr;
    uint32_t lo = UINT32_MAX;
    int64_t mf = 0;
    /* mark the bucket's current entries (several entries of a vertex: the
     * one that matches its state word) and take them out of s->pc */
#pragma omp parallel num_threads(nt) reduction(min : lo) reduction(+ : mf) if (hn >= PAR_MIN)
    for (int t = 0; t < nt; t++) {
        const uint64_t *en = (const uint64_t *)s->hseg[t].p;
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < (int64_t)s->hseg[t].n; i++) {
            const uint32_t u = ent_l(en[i]), db = ent_dbits(en[i]);
            if ((uint32_t)(__atomic_load_n(&st[u], __ATOMIC_RELAXED) >> 32) != db) continue;
            const uint64_t pid = (uint64_t)(base + u), bit = (uint64_t)1 << (pid & 63);
            if (!(__atomic_load_n(&sb[pid >> 6], __ATOMIC_RELAXED) & bit))
                __atomic_fetch_or(&sb[pid >> 6], bit, __ATOMIC_RELAXED);
            if (__atomic_load_n(&pc[u >> 6], __ATOMIC_RELAXED) & (uint64_t)1 << (u & 63))
                __atomic_fetch_and(&pc[u >> 6], ~((uint64_t)1 << (u & 63)), __ATOMIC_RELAXED);
            if (db < lo) lo = db;
            mf += rowptr[u + 1] - rowptr[u];
        }
    }
    int64_t sums[2] = {mf, s->npc};
    if (P > 1) {
        if (MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, s->g->comm) != MPI_SUCCESS ||
            MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT32_T, MPI_MIN, s->g->comm) != MPI_SUCCESS)
            *fail = 1;
    }
    int pull = !*fail && lo != UINT32_MAX && (double)sums[0] > PULL_BETA * (double)sums[1];
    int64_t ntot = 0;
    if (pull && P > 1 && !pull_gather(s, &ntot)) {
        pull = 0;
        *fail = 1;
    }
    const float L = u2f(lo), fdelta = s->fdelta;
    const uint32_t *col = s->g->col;
    const uint32_t *scnt = s->scnt;
    const uint64_t *sval = (const uint64_t *)s->sl_recv.p;
    int64_t nr = 0, npc = 0;
#pragma omp parallel num_threads(nt) reduction(+ : nr, npc) if (pull)
    if (pull) {
        rctx x;
        rctx_init(&x, s, omp_get_thread_num());
        x.kmin = kmin;
        x.light = 0;
        const kern_wts wt = kern_weights(s->g);
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t c = 0; c < (nw + PULL_WORDS - 1) / PULL_WORDS; c++) {
            const int64_t i0 = c * PULL_WORDS, i1 = i0 + PULL_WORDS < nw ? i0 + PULL_WORDS : nw;
            uint32_t vl[64 * PULL_WORDS];
            int n = 0;
            for (int64_t i = i0; i < i1; i++)
                for (uint64_t b = pc[i]; b; b &= b - 1) vl[n++] = (uint32_t)(64 * i + __builtin_ctzll(b));
            for (int j = 0; j < n; j++) {
                if (j + PF_STATE < n) {
                    __builtin_prefetch(&st[vl[j + PF_STATE]]);
                    __builtin_prefetch(&rowptr[vl[j + PF_STATE]]);
                }
                if (j + PF_NEAR < n) {
                    const int64_t ea = rowptr[vl[j + PF_NEAR]];
                    __builtin_prefetch(&col[ea]);
                    __builtin_prefetch(sssp_w_addr(s->g, ea));
                }
                const uint32_t v = vl[j];
                const uint64_t sv = st[v];
                const float t0 = sv == UINT64_MAX ? INFINITY : u2f((uint32_t)(sv >> 32));
                int64_t e = rowptr[v];
                const int64_t e1 = rowptr[v + 1];
                float w;
                while ((w = kern_wts_get(wt, e)) < fdelta) e++;    /* the row has a heavy edge */
                if (!(L + w < t0)) {
                    pc[v >> 6] &= ~((uint64_t)1 << (v & 63));      /* for good */
                    continue;
                }
                float t = t0;
                uint32_t p = 0;
                for (;;) {
                    const uint32_t u = col[e];
                    nr++;
                    const uint64_t sw = sb[u >> 6];
                    if (sw >> (u & 63) & 1) {
                        const uint64_t l = (uint64_t)((int64_t)u - base);
                        const uint32_t du = l < (uint64_t)nl ? (uint32_t)(st[l] >> 32)
                            : (uint32_t)sval[scnt[u >> 6] + (uint32_t)__builtin_popcountll(sw & (((uint64_t)1 << (u & 63)) - 1))];
                        const float nd = u2f(du) + w;
                        if (nd < t) { t = nd; p = u; }
                    }
                    if (++e == e1) break;
                    w = kern_wts_get(wt, e);
                    if (!(L + w < t)) break;
                }
                if (t < t0) {
                    const uint32_t nbits = f2u(t);
                    st[v] = (uint64_t)nbits << 32 | p;
                    const float q = ceilf(t * UB_SCALE);
                    s->ub[v] = q < 255.0f ? (uint8_t)q : (uint8_t)255;
                    push_if_work(&x, (int64_t)((double)t * x.inv_delta), v, nbits);
                }
            }
            for (int64_t i = i0; i < i1; i++) npc += __builtin_popcountll(pc[i]);
        }
    }
    if (pull) s->npc = npc;
    /* clear the bucket's bits: the local entries, and at P > 1 the gathered ones */
#pragma omp parallel num_threads(nt) if (hn >= PAR_MIN)
    for (int t = 0; t < nt; t++) {
        const uint64_t *en = (const uint64_t *)s->hseg[t].p;
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < (int64_t)s->hseg[t].n; i++)
            __atomic_store_n(&sb[(uint64_t)(base + ent_l(en[i])) >> 6], 0, __ATOMIC_RELAXED);
    }
    const uint64_t *in = (const uint64_t *)s->sl_recv.p;
#pragma omp parallel for num_threads(nt) schedule(static) if (ntot >= 4096)
    for (int64_t i = 0; i < ntot; i++) __atomic_store_n(&sb[in[i] >> 38], 0, __ATOMIC_RELAXED);
    *nrel += nr;
    return pull;
}

/* Every state word, bound byte, ghost word and list back to its start. */
static void search_reset(kern_sssp *s)
{
    const int P = s->P, nt = s->nt;
    uint64_t *st = s->st;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < s->nl; v++) st[v] = UINT64_MAX;
    memset(s->gdirect ? s->gub : s->ub, 255, (size_t)(s->gdirect ? s->npid : s->nl));
    memcpy(s->pc, s->hrows, ((size_t)s->nl / 64 + 1) * 8);
    s->npc = s->nheavy;
    s->heavy_ready = 0;
    if (P > 1) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < s->nghw; i++) s->ghost[i] = GHOST_INIT;
        if (!s->gdirect) memset(s->gub, 255, (size_t)s->nghost);
    }
    for (int t = 0; t < nt; t++) {
        sssp_tctx *tc = &s->tc[t];
        for (int64_t i = 0; i < tc->nb; i++) tc->b[i].n = 0;
        tc->settled.n = 0;
        tc->cur.n = 0;
        for (int r = 0; r < P; r++) tc->queued[r].n = 0;
        tc->fail = 0;
        s->fseg[t].n = s->hseg[t].n = 0;
    }
}

/* 1 when some thread of this rank failed to grow a list. */
static int any_failed(const kern_sssp *s)
{
    int fail = 0;
    for (int t = 0; t < s->nt; t++) fail |= s->tc[t].fail;
    return fail;
}

/* The local part of a round: the heavy list (hn entries) and bucket k's
 * light frontier (fn entries); in a heavy-only round the heavy list alone.
 * At P == 1 the light frontier is relaxed to convergence here. At P > 1 a
 * round makes one pass (with fusion) and the next bucket-k entries wait
 * for the next round: the ranks then advance a bucket's light frontier in
 * step, each rank's messages reaching the others after one pass rather
 * than after its whole local flood (which left the ranks taking turns,
 * one working while the others waited, in the first large buckets).
 * fail: a failure is pending, so no further pass is made. */
static void relax_round(kern_sssp *s, int64_t k, int64_t kmin, int heavy_only, int64_t fn,
                        int64_t hn, int fail, int64_t *nrel, int64_t *minb)
{
    if (s->heavy_ready) {
        s->heavy_ready = 0;
        int pf = fail;
        if (pull_pass(s, kmin, nrel, &pf)) hn = 0;
        if (pf && !fail) s->tc[0].fail = fail = 1;
    }
    local_pass(s, k, kmin, heavy_only ? 0 : fn, hn, nrel, minb);
    while (s->P == 1 && !heavy_only && !fail) {
        fn = gather_list(s, 0, k, s->fseg);
        if (fn == 0) break;
        local_pass(s, k, kmin, fn, 0, nrel, minb);
    }
}

/* Collective, P > 1: three words to each rank (the number of messages for
 * it, this rank's lowest bucket, flags: failure and "has messages"), then
 * the messages. Every rank receives every rank's bucket and flags, so all
 * agree on *next, on a failure (returned on every rank before any message
 * moves) and on whether messages move, with O(P) words per rank. Receive
 * capacity needs no agreement: a round sends at most one message per
 * (ghost, rank) pair, and recvcap counts the pairs that name this rank's
 * vertices (ghost_index_build; the graph is symmetric), so a larger count
 * is an internal error. Sets *next, *nsent and *nrecv. */
static int exchange(kern_sssp *s, int64_t root, int64_t local_next, int fail, int64_t *next,
                    int64_t *nsent, int64_t *nrecv)
{
    enum { FAILED = 1, SENDS = 2 };
    kern_graph *g = s->g;
    const int P = s->P, me = g->rank;
    compose(s);
    int64_t out = 0;
    for (int r = 0; r < P; r++) out += s->sc[r];
    *nsent += out;
    for (int r = 0; r < P; r++) {
        s->hs[3 * r] = s->sc[r];
        s->hs[3 * r + 1] = local_next;
        s->hs[3 * r + 2] = (fail ? FAILED : 0) | (out > 0 ? SENDS : 0);
        if (r != me) g->bytes_to[r] += 24 + s->sc[r] * (int64_t)sizeof(sssp_msg);
    }
    MPI_Alltoall(s->hs, 3, MPI_INT64_T, s->hr, 3, MPI_INT64_T, g->comm);
    int64_t in = 0, flags = 0;
    *next = INT64_MAX;
    for (int q = 0; q < P; q++) {
        s->rc[q] = (int)s->hr[3 * q];
        s->rd[q] = (int)in;
        in += s->hr[3 * q];
        if (s->hr[3 * q + 1] < *next) *next = s->hr[3 * q + 1];
        flags |= s->hr[3 * q + 2];
    }
    if (flags & FAILED)
        return g5_error(G5_ERR_NOMEM, "SSSP from root %lld: out of memory for buckets "
                        "on some rank", (long long)root);
    if (!(flags & SENDS)) return G5_OK;
    if (in > s->recvcap) {
        fprintf(stderr, "g500: internal error: SSSP rank %d receives %lld messages in a round, "
                "more than its %lld (ghost, rank) pairs\n", me, (long long)in, (long long)s->recvcap);
        g5_abort_job(1);
    }
    *nrecv = in;
    MPI_Alltoallv(s->sendbuf, s->sc, s->sd, s->mtype, s->recv, s->rc, s->rd, s->mtype, g->comm);
    return G5_OK;
}

/* Relax the nrecv received messages into the local state words, through the
 * same bound bytes as a local candidate, batched as local candidates are
 * (relax_defer), the bound bytes prefetched a few messages ahead. */
static void apply_messages(kern_sssp *s, int64_t nrecv, int64_t kmin)
{
    const sssp_msg *rv = s->recv;
#pragma omp parallel num_threads(s->nt) if (nrecv > 4096)
    {
        rctx x;
        rctx_init(&x, s, omp_get_thread_num());
        x.kmin = kmin;
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < nrecv; i++) {
            if (i + PF_FAR < nrecv) __builtin_prefetch(&x.ub[rv[i + PF_FAR].c - x.base]);
            uint64_t l = (uint64_t)((int64_t)rv[i].c - x.base);
            if (ub_key(rv[i].d) < (int)__atomic_load_n(&x.ub[l], __ATOMIC_RELAXED))
                relax_defer(&x, l, rv[i].d, rv[i].p);
        }
        relax_flush(&x);
    }
}

/* The lists' size, measured twice a round: after the relaxations (buckets
 * and settled lists full) and after the gathers (frontier and heavy list). */
static void note_lists_peak(kern_sssp *s)
{
    int64_t lb = sssp_lists_bytes(s);
    if (lb > s->stats.lists_peak) s->stats.lists_peak = lb;
}

/* The next round, from agreed values only (next: the lowest bucket over all
 * ranks). After a heavy-only round, bucket next. When bucket k is finished,
 * its settled list becomes the heavy list, and k moves on to k+1 with it
 * (fused) or a heavy-only round comes first. Returns 0 when the search is
 * over. */
static int next_round(kern_sssp *s, int64_t next, int64_t *k, int *heavy_only, int64_t *fn,
                      int64_t *hn)
{
    *hn = 0;
    if (*heavy_only) {
        if (next == INT64_MAX) return 0;
        *k = next;
        *heavy_only = 0;
        s->stats.buckets++;
    } else if (next != *k) {
        *hn = gather_list(s, 1, 0, s->hseg);
        s->heavy_ready = 1;
        sssp_bucket_release(s, *k);
        if (next == *k + 1) {
            *k = next;
            s->stats.buckets++;
        } else {
            *heavy_only = 1;
        }
    }
    if (!*heavy_only) *fn = gather_list(s, 0, *k, s->fseg);
    return 1;
}

int kern_sssp_run(kern_sssp *s, int64_t root)
{
    kern_graph *g = s->g;
    int owner = -1, rc = G5_OK;
    int64_t rl;
    memset(&s->stats, 0, sizeof s->stats);
    s->stats.ghosts = s->nghost;
    if (!kern_dist_locate(g->dist, root, &owner, &rl)) {
        rc = g5_error(G5_ERR_ARG, "SSSP: root %lld has no owner", (long long)root);
        goto out;
    }
    search_reset(s);

    /* A round: bucket k's light edges (relax_round), together with
     * the heavy edges of bucket k-1 when that bucket has just finished
     * (fused); or, when the next bucket is not k+1, the heavy edges of k
     * alone. Entries never go below the lowest open bucket kmin (a heavy
     * edge whose float sum rounds into a finished bucket goes to kmin). */
    int64_t k = 0, fn = 0, hn = 0;
    int heavy_only = 0, fail = 0;
    if (owner == g->rank) {
        s->st[rl] = (uint64_t)(g->base + rl);     /* distance 0.0f, parent itself */
        s->ub[rl] = 0;
        /* the root's row is expanded even when it has one entry (sssp_row_bits) */
        uint64_t *e = kvec_push(&s->fseg[0]);
        if (e) { *e = (uint64_t)rl | ent_flags((unsigned)sssp_row_bits(s, rl, 1), 0); fn = 1; } else fail = 1;
    }
    s->stats.buckets = 1;
    for (;;) {
        double t0 = g5_now();
        int64_t nrel = 0, minb = INT64_MAX;
        const int64_t kmin = heavy_only ? k + 1 : k;
        relax_round(s, k, kmin, heavy_only, fn, hn, fail, &nrel, &minb);
        fail |= any_failed(s);
        double t1 = g5_now();
        int64_t local_next = lowest_bucket(s, kmin), next, nsent = 0, nrecv = 0;
        if (local_next > minb) local_next = minb;
        double t2 = t1, t3 = t1;
        if (s->P == 1) {
            if (fail) {
                rc = g5_error(G5_ERR_NOMEM, "SSSP from root %lld: out of memory for buckets",
                              (long long)root);
                goto out;
            }
            next = local_next;
        } else {
            rc = exchange(s, root, local_next, fail, &next, &nsent, &nrecv);
            if (rc) goto out;
            t2 = g5_now();
            apply_messages(s, nrecv, kmin);
            fail |= any_failed(s);
            t3 = g5_now();
        }
        s->stats.phases++;
        s->stats.relaxations += nrel;
        s->stats.messages += nsent;
        s->stats.t_relax += t1 - t0;
        s->stats.t_exchange += t2 - t1;
        s->stats.t_apply += t3 - t2;
        note_lists_peak(s);
        if (!next_round(s, next, &k, &heavy_only, &fn, &hn)) break;
        note_lists_peak(s);
        s->stats.t_reduce += g5_now() - t3;
    }
    /* No failure can be pending here: local failures travel in the words
     * exchanged in the same round, and a round that applies messages or
     * grows a list is never the last. */
out:
    sssp_workspace_trim(s);
    s->stats.held = sssp_workspace_bytes(s);
    return rc;
}

void kern_sssp_result(const kern_sssp *s, int64_t *parent, float *dist)
{
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < s->nl; v++) {
        uint64_t x = s->st[v];
        if (x == UINT64_MAX) {
            parent[v] = -1;
            dist[v] = INFINITY;
        } else {
            parent[v] = (int64_t)(x & 0xffffffffu);
            dist[v] = u2f((uint32_t)(x >> 32));
        }
    }
}

void *kern_sssp_scratch(kern_sssp *s, size_t *bytes)
{
    *bytes = s->ghost ? ((size_t)s->nghw + 1) * 8 : 0;
    return s->ghost;
}

/* In place: word v is read, then overwritten by parent v only (same index,
 * same thread), so no word is read after another thread rewrote it. */
int64_t *kern_sssp_take_result(kern_sssp *s, float *dist)
{
    int64_t *parent = (int64_t *)s->st;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < s->nl; v++) {
        uint64_t x = s->st[v];
        if (dist) dist[v] = x == UINT64_MAX ? INFINITY : u2f((uint32_t)(x >> 32));
        parent[v] = x == UINT64_MAX ? -1 : (int64_t)(x & 0xffffffffu);
    }
    return parent;
}
