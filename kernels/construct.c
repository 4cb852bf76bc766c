/* SPDX-License-Identifier: MIT */
/*
 * construct.c - kernel 1 of Graph500: build the distributed undirected graph
 * (a CSR per rank) from this rank's block of the edge list, streamed from the
 * edges file in bounded chunks or taken from memory.
 *
 * Two passes, each in rounds of `chunk` edges per rank (every rank makes the
 * same number of rounds; one with fewer edges takes part with empty rounds).
 * In a round, threads locate both ends of each edge (owner and local row: a
 * mask and shift for cyclic with P a power of two; for a placement one
 * prefetched load from new_of_old and a rank table), keep local entries in a
 * round buffer and send the rest in one kern_exchange (MPI_Alltoallv); each
 * thread then applies the entries whose row is in its own row range (no
 * atomics, no per-thread arrays).
 *   Pass 1 counts row lengths in rowptr and checks whether every non-loop
 *   weight is k * 2^-24 (the generator's are): the ranks agree on the flag,
 *   which fixes the weight layout (kern_impl.h, kern_w) before anything is
 *   stored: 7-byte records (uint32 column + 3-byte k), or 8 with float bits.
 *   Pass 2 stores each entry at its row's cursor, in staged blocks so the
 *   random stores' cache misses overlap. A digest of the edges seen by each
 *   pass must agree (the file cannot change in between unnoticed).
 *   Merge: each row is sorted by (weight, column), the order kernel 3 wants;
 *   a repeated column is a duplicate with a larger or equal weight and is
 *   dropped (shortest paths unchanged). The number merged away is kept in
 *   dup (one byte per row, an escape table for 255 and more), so the raw
 *   degree behind the TEPS count (kern_reached_edges) costs 1 byte per
 *   vertex. Rows are compacted in place, freed pages released, and the
 *   records split into col and w3 (or w) from the end without extra memory.
 *
 * Timing: when streaming, the file reads (untimed per the spec) happen here,
 * each between two barriers, and their seconds are returned, so the driver
 * times kernel 1 as elapsed minus reads, waits for other ranks included.
 *
 * Memory per rank (nraw entries before merging, nnz after, nl local
 * vertices, C chunk edges): pass 1 rowptr 8 nl + buffers ~24-60 C; pass 2
 * + records 7 nraw (8 with floats) + dup nl; merge adds per thread a bitmap
 * of the pid space / 8 and scratch for the longest row; final graph
 * 8 (nl+1) + nl + 4 nnz + 3 nnz (4 nnz for float weights). The edge list is
 * never held. At edgefactor 16 the peak is about 7 nraw + 9 nl, ~14.6 bytes
 * per input edge plus the chunk buffers.
 */
#include "io.h"
#include "kern_impl.h"

#include <omp.h>
#include <sys/mman.h>
#include <time.h>

/* Edges per rank per round, by default. Each round costs a few OpenMP
 * fork/joins and, at P > 1, an all-to-all whose waits for descheduled ranks
 * add up, so rounds stay 2^20 edges (~44 MiB of round buffers per rank, up
 * to ~98 at P > 1). At one rank on a small graph those buffers would be
 * several bytes per input edge: there a round is count / KERN_ROUNDS rounded
 * down to a power of two, at least 2^18 (one chunk of the edges file).
 * The rank count decides, not the rank: every rank picks the same way. */
#define KERN_CHUNK_MIN ((int64_t)1 << 18)
#define KERN_CHUNK_MAX ((int64_t)1 << 20)
#define KERN_ROUNDS 64

static int64_t default_chunk(int64_t count, int P)
{
    int64_t c = P > 1 ? KERN_CHUNK_MAX : KERN_CHUNK_MIN;
    while (c < KERN_CHUNK_MAX && 2 * c <= count / KERN_ROUNDS) c *= 2;
    return c;
}

#define KERN_SHORT_ROW 24                        /* insertion sort below this */

/* An entry on its way to its row: local row, column pid, weight key (the
 * 24-bit integer k when the graph takes the 24-bit layout, the float's bits
 * otherwise; both order like the weights). */
typedef struct rec { uint32_t row, col, wk; } rec;

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* 1 when the weight is k * 2^-24 for an integer k in [0, 2^24), exactly
 * (bit for bit: -0.0 and NaN do not qualify). On the bits alone, so the
 * check vectorizes: 0, or a normal float of biased exponent E in
 * [103, 126] (a value in [2^-24, 1); the sign bit makes E larger) whose
 * value (2^23 + mantissa) * 2^(E - 150) has no bit below 2^-24, i.e. whose
 * low 126 - E mantissa bits are zero. */
static inline int weight_is_w24(float f)
{
    uint32_t u = f2u(f), e = u >> 23, m = u & 0x7FFFFFu;
    uint32_t low = ((uint32_t)1 << ((126 - e) & 31)) - 1;
    return (u == 0) | ((e >= 103) & (e <= 126) & ((m & low) == 0));
}

/* 1 when every weight of the edges e[a, z) that is not a self-loop's is
 * k * 2^-24: first all weights at once (a loop the compiler vectorizes),
 * and only when that fails, edge by edge without the self-loops. */
static int slice_w24(const int64_t *e, const float *wt, int64_t a, int64_t z)
{
    int good = 1;
    for (int64_t i = a; i < z; i++) good &= weight_is_w24(wt[i]);
    if (good) return 1;
    for (int64_t i = a; i < z; i++)
        if (e[2 * i] != e[2 * i + 1] && !weight_is_w24(wt[i])) return 0;
    return 1;
}

/* The weight key of w in the graph's layout (w24: weight_is_w24(w)). */
static inline uint32_t weight_key(float w, int w24)
{
    return w24 ? (uint32_t)(w * 0x1p24f) : f2u(w);
}

/* Store the 3 little-endian bytes of k at p (byte stores: the neighbours
 * may belong to another thread's row). */
static inline void rec_put3(uint8_t *p, uint32_t k)
{
    p[0] = (uint8_t)k; p[1] = (uint8_t)(k >> 8); p[2] = (uint8_t)(k >> 16);
}

/* Store the 3 little-endian bytes of k at entry i of a 24-bit weight array. */
static inline void w3_put(uint8_t *w3, int64_t i, uint32_t k)
{
    uint8_t *p = w3 + 3 * i;
    p[0] = (uint8_t)k; p[1] = (uint8_t)(k >> 8); p[2] = (uint8_t)(k >> 16);
}
/* Where the edges come from: memory (edges != NULL) or the file. */
typedef struct src {
    const int64_t *edges;
    const float *weights;
    io_edges *ef;
    MPI_Comm comm;          /* streaming: the read phases are bracketed by barriers */
    int64_t first;          /* this rank's first edge in the file */
    int64_t *ebuf;          /* [chunk][2] */
    float *wbuf;            /* [chunk] */
    double read_s;          /* seconds spent in io_edges_read_slab */
    double read_cpu;        /* process CPU seconds spent there */
} src;

/* CPU seconds of the whole process (all threads): unlike elapsed time, it
 * does not grow when the machine is shared. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Collective when streaming (every rank calls it in every round). Make this
 * rank's edges [lo, lo+n) available in *e, *w (both passes read the
 * weights: pass 1 decides the weight layout from them). */
static int src_get(src *s, int64_t lo, int64_t n, const int64_t **e, const float **w)
{
    if (!s->ef) {
        *e = s->edges + 2 * lo;
        *w = s->weights + lo;
        return G5_OK;
    }
    /* A barrier on each side: the read phase then holds reads only (the
     * slowest rank's), no rank's wait for another's compute, which the
     * read's own allreduce would otherwise charge to the reads
     * (docs/kernels.md, kernel 1 timing). */
    MPI_Barrier(s->comm);
    double t0 = g5_now(), c0 = cpu_now();
    int rc = io_edges_read_slab(s->ef, s->first + lo, n, s->ebuf, s->wbuf);
    MPI_Barrier(s->comm);
    s->read_s += g5_now() - t0;
    s->read_cpu += cpu_now() - c0;
    *e = s->ebuf;
    *w = s->wbuf;
    return rc;
}

/* The rank whose range [B[r], B[r+1]) of a non-decreasing bounds array
 * B[0..P] holds x, in O(1): a table gives the rank holding the first x of
 * each of up to KERN_RANK_TABLE equal slices of [0, B[P]), and a forward
 * walk (skipping empty ranks, or crossing a bound inside the slice) is
 * rarely more than a predicted not-taken branch. A binary search over P+1
 * bounds per endpoint cost ~30 instructions and mispredicted. */
#define KERN_RANK_TABLE 1024
typedef struct rank_table {
    const int64_t *B;
    int shift;
    int32_t first[KERN_RANK_TABLE];
} rank_table;

static void rank_table_init(rank_table *t, const int64_t *B, int P)
{
    t->B = B;
    t->shift = 0;
    while (((B[P] - 1) >> t->shift) >= KERN_RANK_TABLE) t->shift++;
    int r = 0;
    for (int64_t j = 0; j < KERN_RANK_TABLE; j++) {
        int64_t x = j << t->shift;
        while (r < P - 1 && B[r + 1] <= x) r++;
        t->first[j] = r;
    }
}

/* x in [0, B[P]). */
static inline int rank_of(const rank_table *t, int64_t x)
{
    int r = t->first[x >> t->shift];
    while (t->B[r + 1] <= x) r++;
    return r;
}

/* Where the endpoints go, without a call per endpoint: cyclic with a
 * power-of-two P is a mask and a shift; a placement is one load from its
 * new_of_old map (prefetched a few edges ahead by the caller: the map is
 * N entries, far larger than the caches) and a rank table lookup on the new
 * label; block (and cyclic with another P) take kern_dist_locate. Same
 * results as kern_dist_locate. */
typedef struct finder {
    const kern_dist *d;
    int shift;              /* log2 P for cyclic with P a power of two, else -1 */
    uint64_t n;
    const uint32_t *label;  /* placement: new_of_old */
    const int64_t *first;   /* placement: first new label of each rank */
    const rank_table *by_label; /* placement: ranks of new labels */
} finder;

static inline int find(const finder *f, int64_t v, int *o, int64_t *l)
{
    if ((uint64_t)v >= f->n) return 0;
    if (f->shift >= 0) {
        *o = (int)(v & ((1 << f->shift) - 1));
        *l = v >> f->shift;
        return 1;
    }
    if (f->label) {
        uint32_t g = f->label[v];
        if (g == UINT32_MAX) return 0;
        int r = rank_of(f->by_label, g);
        *o = r;
        *l = (int64_t)g - f->first[r];
        return 1;
    }
    return kern_dist_locate(f->d, v, o, l);
}

/* The state of one construction. */
typedef struct build {
    MPI_Comm comm;
    const kern_dist *d;
    int P, me, S;
    int64_t nl;
    int64_t *rowptr;        /* [nl+1] pass 2: next free position of each row */
    int64_t *cnt;           /* = rowptr + 1: pass 1 counts row v's entries in rowptr[v + 1] */
    int64_t *rlo;           /* [S+1] rows [rlo[t], rlo[t+1]) are applied by thread t */
    finder find;            /* where the endpoints go */
    rank_table by_label;    /* placement: owner of a new label */
    rank_table by_pid;      /* owner of a pid */
    uint32_t *pid;          /* P > 1: [2 * chunk] both endpoints' pids (self-loops: unset) */
    rec *lbuf;              /* [2 * chunk] this round's entries for local rows */
    int64_t *lcnt;          /* [S] entries slice s put in lbuf[2a, 2a + lcnt[s]) */
    int64_t nraw;           /* entries before merging */
    uint64_t hash[2];       /* digest of the edges seen by pass 1 and pass 2 */
    int w24ok;              /* pass 1: every non-loop weight seen here is k * 2^-24 */
    int w24;                /* the layout (agreed after pass 1) */
    uint8_t *pk;            /* [rs nraw + 8] entries as records: column (4 bytes), weight
                               key (3 bytes when w24, else 4), at the raw row offsets */
    int rs;                 /* record size: 7 or 8 */
    uint8_t *dup;           /* [nl] the graph's dup: duplicates merged away per row */
    kvec big;               /* the graph's dup_big: row << 32 | count for rows of 255+ */
    int64_t *scnt;          /* [2][S][P] records per destination, then offsets */
    int64_t *dest;          /* [P] records per destination this round */
    char *sendbuf;
    size_t sendcap;         /* bytes */
    void *recv;
    size_t recvcap;         /* records */
    int esize_recv;         /* record size the recv capacity was counted in */
    int64_t bad;            /* first bad edge (slab index), -1 */
    int64_t bad_u, bad_v;
    int bad_code;
    int overflow;           /* pass 2 found more entries for a row than pass 1 */
    int nomem;              /* an allocation failed here */
} build;

static void note_bad(build *b, int64_t i, int64_t u, int64_t v)
{
#pragma omp critical(kern_construct_bad)
    if (b->bad < 0 || i < b->bad) {
        b->bad = i; b->bad_u = u; b->bad_v = v;
        b->bad_code = kern_dist_kind_of(b->d) == KERN_DIST_PLACEMENT && u >= 0 &&
                              u < b->d->nvertices && v >= 0 && v < b->d->nvertices
                          ? G5_ERR_MISMATCH : G5_ERR_FORMAT;
    }
}

/* Apply n entries (rows < nl): count them (pass 1: rowptr[row + 1]) or store them at
 * their rows' next free positions (pass 2: rowptr as cursors). The rows are
 * random, so every entry is a cache miss on the cursor and on pk: the block
 * is processed in stages (prefetch all cursors, then advance them and
 * prefetch all targets, then store) so a block's misses overlap instead of
 * each waiting for the previous one. Only the thread owning a row range
 * calls this for those rows: no atomics. The bound check keeps memory safe;
 * that every row got exactly its counted entries follows from both passes
 * seeing the same edges (checked by digest). */
#define KERN_BLOCK 64
static void apply(build *b, const rec *r, int n, int fill)
{
    if (!fill) {
        int64_t *cnt = b->cnt;
        for (int k = 0; k < n; k++) __builtin_prefetch(&cnt[r[k].row], 1);
        for (int k = 0; k < n; k++) cnt[r[k].row]++;
        return;
    }
    uint64_t p[KERN_BLOCK], nraw = (uint64_t)b->nraw;
    uint8_t *pk = b->pk;
    const size_t rs = (size_t)b->rs;
    int64_t *pos = b->rowptr;
    for (int k = 0; k < n; k++) __builtin_prefetch(&pos[r[k].row], 1);
    for (int k = 0; k < n; k++) {
        p[k] = (uint64_t)pos[r[k].row]++;
        __builtin_prefetch(pk + rs * (p[k] < nraw ? p[k] : 0), 1);
    }
    /* exact-size stores: the neighbours may be another thread's */
    for (int k = 0; k < n; k++) {
        if (p[k] < nraw) {
            uint8_t *q = pk + rs * p[k];
            memcpy(q, &r[k].col, 4);
            if (rs == 7) rec_put3(q + 4, r[k].wk);
            else memcpy(q + 4, &r[k].wk, 4);
        } else {
            b->overflow = 1;
        }
    }
}

/* Apply those of r[0, n) whose row is in [lo, hi), in blocks. */
static void apply_range(build *b, const rec *r, int64_t n, int fill, uint32_t lo, uint32_t hi)
{
    if (lo == 0 && hi == b->nl) {
        /* one thread: every row is its own, no copy */
        for (int64_t i = 0; i < n; i += KERN_BLOCK)
            apply(b, r + i, n - i < KERN_BLOCK ? (int)(n - i) : KERN_BLOCK, fill);
        return;
    }
    rec blk[KERN_BLOCK];
    int nb = 0;
    for (int64_t i = 0; i < n; i++) {
        /* branch-free: half the rows are another thread's, at random */
        blk[nb] = r[i];
        nb += r[i].row - lo < hi - lo;
        if (nb == KERN_BLOCK) { apply(b, blk, nb, fill); nb = 0; }
    }
    apply(b, blk, nb, fill);
}

/* Pass 1's received records are bare rows. */
static void count_range(build *b, const uint32_t *r, int64_t n, uint32_t lo, uint32_t hi)
{
    int64_t *cnt = b->cnt;
    uint32_t blk[KERN_BLOCK];
    int nb = 0;
    for (int64_t i = 0; i < n; i++) {
        blk[nb] = r[i];
        nb += r[i] - lo < hi - lo;
        if (nb == KERN_BLOCK) {
            for (int k = 0; k < nb; k++) __builtin_prefetch(&cnt[blk[k]], 1);
            for (int k = 0; k < nb; k++) cnt[blk[k]]++;
            nb = 0;
        }
    }
    for (int k = 0; k < nb; k++) cnt[blk[k]]++;
}

/* Order-independent digest of an edge (slab index i, u, v). */
static inline uint64_t edge_digest(int64_t i, int64_t u, int64_t v)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)u * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)v * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    return x * 0xBF58476D1CE4E5B9ull;
}

/* Ask for transparent huge pages on a large array: the fill scatters over
 * all of it, and 4 KiB pages would make nearly every store a TLB miss. */
static void want_huge_pages(void *p, size_t bytes)
{
    const uintptr_t H = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + H - 1) & ~(H - 1), z = ((uintptr_t)p + bytes) & ~(H - 1);
    if (p && z > a) madvise((void *)a, z - a, MADV_HUGEPAGE);
}

static void *big_malloc(size_t bytes)
{
    void *p = malloc(bytes);
    want_huge_pages(p, bytes);
    return p;
}

/* Apply this round's entries for local rows: lbuf (slices of the n edges)
 * and the nrecv records received, each thread taking its row range. */
static void apply_local(build *b, int64_t n, int fill, const void *recv, int64_t nrecv)
{
    int S = b->S;
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < S; t++) {
        uint32_t lo = (uint32_t)b->rlo[t], hi = (uint32_t)b->rlo[t + 1];
        for (int s = 0; s < S; s++)
            apply_range(b, b->lbuf + 2 * (n * s / S), b->lcnt[s], fill, lo, hi);
        if (nrecv > 0) {
            if (fill) apply_range(b, recv, nrecv, 1, lo, hi);
            else count_range(b, recv, nrecv, lo, hi);
        }
    }
}

#define KERN_AHEAD 16   /* edges between a placement prefetch and its use */

/* Collective. One round: route this rank's edges e[0, n) (slab indices lo..)
 * with weights wt (pass 1 checks them for the 24-bit layout, pass 2 stores
 * their keys). Entries for this rank are applied directly,
 * the others exchanged and applied by their owners. ok: this rank's state;
 * returns 1 when every rank is still ok (0 on every rank otherwise). At
 * P > 1 the locating loop leaves both endpoints' pids in b->pid, so packing
 * the remote entries does not locate them again. */
static int route_round(build *b, const int64_t *e, const float *wt, int64_t n, int64_t lo,
                       int fill, int ok)
{
    const kern_dist *d = b->d;
    const finder *f = &b->find;
    int P = b->P, S = b->S, me = b->me;
    size_t esize = fill ? sizeof(rec) : sizeof(uint32_t);
    int64_t *sc = b->scnt, *so = b->scnt + (size_t)S * P;
    uint32_t *pid = b->pid;
    int lok = ok;
    if (ok) {
        /* locate both ends: entries for this rank into lbuf, others counted */
        memset(sc, 0, (size_t)S * P * sizeof(int64_t));
#pragma omp parallel for schedule(static, 1) reduction(&& : lok)
        for (int s = 0; s < S; s++) {
            int64_t a = n * s / S, z = n * (s + 1) / S;
            int64_t *c = sc + (size_t)s * P;
            rec *L = b->lbuf + 2 * a;
            int64_t k = 0;
            uint64_t h = 0;
            const int w24 = b->w24;
            if (!fill && !slice_w24(e, wt, a, z)) {
#pragma omp atomic write
                b->w24ok = 0;
            }
            /* local copies: the stores below could alias the structs */
            finder F = *f;
            rank_table T;
            if (F.by_label) { T = *F.by_label; F.by_label = &T; }
            const int64_t *base = d->base;
            uint32_t *pd = pid;
            const int my = me;
            for (int64_t i = a; i < z; i++) {
                int64_t u = e[2 * i], v = e[2 * i + 1], lu, lv;
                int ou, ov;
                if (F.label && i + KERN_AHEAD < z) {
                    uint64_t pu = (uint64_t)e[2 * (i + KERN_AHEAD)], pv = (uint64_t)e[2 * (i + KERN_AHEAD) + 1];
                    __builtin_prefetch(&F.label[pu < F.n ? pu : 0]);
                    __builtin_prefetch(&F.label[pv < F.n ? pv : 0]);
                }
                h += edge_digest(lo + i, u, v);
                if (u == v) continue;
                if (!find(&F, u, &ou, &lu) || !find(&F, v, &ov, &lv)) {
                    note_bad(b, lo + i, u, v);
                    lok = 0;
                    break;
                }
                uint32_t gu = (uint32_t)(base[ou] + lu), gv = (uint32_t)(base[ov] + lv);
                uint32_t w = fill ? weight_key(wt[i], w24) : 0;
                if (pd) { pd[2 * i] = gu; pd[2 * i + 1] = gv; }
                /* branch-free: at P > 1 local or remote is a coin toss */
                L[k] = (rec){(uint32_t)lu, gv, w};
                k += ou == my;
                c[ou] += ou != my;
                L[k] = (rec){(uint32_t)lv, gu, w};
                k += ov == my;
                c[ov] += ov != my;
            }
            b->lcnt[s] = k;
#pragma omp atomic
            b->hash[fill] += h;
        }
    }
    if (P == 1) {
        if (lok) apply_local(b, n, fill, NULL, 0);
        return lok;
    }

    int64_t total = 0;
    if (lok) {
        /* send offsets: destination-major, slice-minor */
        for (int p = 0; p < P; p++) {
            b->dest[p] = 0;
            for (int s = 0; s < S; s++) {
                so[(size_t)s * P + p] = total;
                total += sc[(size_t)s * P + p];
                b->dest[p] += sc[(size_t)s * P + p];
            }
        }
        /* this rank's own "destination" is one sink slot per slice past
         * the records, so packing needs no branch on the owner */
        for (int s = 0; s < S; s++) so[(size_t)s * P + me] = total + s;
        if ((size_t)(total + S) * esize > b->sendcap) {
            size_t cap = (size_t)(total + S) * esize + 64;
            char *p = realloc(b->sendbuf, cap);
            if (p) { b->sendbuf = p; b->sendcap = cap; }
            else { b->nomem = 1; lok = 0; }
        }
    }
    if (lok && total > 0) {
        char *sb = b->sendbuf;
#pragma omp parallel for schedule(static, 1)
        for (int s = 0; s < S; s++) {
            int64_t a = n * s / S, z = n * (s + 1) / S;
            int64_t *o = so + (size_t)s * P;
            const int64_t *base = d->base;
            const rank_table T = b->by_pid;     /* a copy no store can alias */
            const int w24 = b->w24;
            for (int64_t i = a; i < z; i++) {
                if (e[2 * i] == e[2 * i + 1]) continue;
                uint32_t gu = pid[2 * i], gv = pid[2 * i + 1];
                int ou = rank_of(&T, gu), ov = rank_of(&T, gv);
                if (fill) {
                    rec *r = (rec *)sb;
                    uint32_t wk = weight_key(wt[i], w24);
                    r[o[ou]] = (rec){(uint32_t)(gu - base[ou]), gv, wk};
                    o[ou] += ou != me;
                    r[o[ov]] = (rec){(uint32_t)(gv - base[ov]), gu, wk};
                    o[ov] += ov != me;
                } else {
                    uint32_t *r = (uint32_t *)sb;
                    r[o[ou]] = (uint32_t)(gu - base[ou]);
                    o[ou] += ou != me;
                    r[o[ov]] = (uint32_t)(gv - base[ov]);
                    o[ov] += ov != me;
                }
            }
        }
    }
    if ((int)esize != b->esize_recv) {
        /* the receive buffer's capacity is counted in records */
        b->recvcap = b->recvcap * (size_t)b->esize_recv / esize;
        b->esize_recv = (int)esize;
    }
    int64_t nrecv = 0;
    int all = kern_exchange(b->comm, esize, b->sendbuf, b->dest, &b->recv, &b->recvcap, &nrecv,
                            NULL, lok);
    if (!all) return 0;
    apply_local(b, n, fill, b->recv, nrecv);
    return 1;
}

/* Collective. One pass over this rank's `count` edges in `rounds` rounds;
 * returns 1 when every rank is still ok, 0 on every rank otherwise (or when
 * a read failed: *read_rc, agreed). */
static int pass(build *b, src *sr, int64_t count, int64_t chunk, int64_t rounds, int fill,
                int ok, int *read_rc)
{
    int all = 1;
    for (int64_t r = 0; r < rounds; r++) {
        int64_t lo = r * chunk, hi = lo + chunk;
        if (lo > count) lo = count;
        if (hi > count) hi = count;
        const int64_t *e = NULL;
        const float *w = NULL;
        int rc = src_get(sr, lo, hi - lo, &e, &w);   /* agreed when streaming */
        if (rc != G5_OK) { *read_rc = rc; return 0; }
        all = route_round(b, e, w, hi - lo, lo, fill, ok && all);
    }
    return all;
}

static void insertion_u64(uint64_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        uint64_t x = a[i];
        int64_t j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

/* Quicksort of 64-bit keys (here packed entries, column << 32 | weight
 * bits: the order is by column, then by weight, as non-negative float bits
 * order like the values; csr_sort.c sorts weight << 32 | column with it):
 * median-of-three pivot, Hoare partition, recursion on the smaller side,
 * insertion sort below KERN_SHORT_ROW. */
void kern_sort_u64(uint64_t *a, int64_t n)
{
    while (n > KERN_SHORT_ROW) {
        uint64_t x = a[0], y = a[n / 2], z = a[n - 1];
        uint64_t p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = -1, j = n;
        for (;;) {
            do i++; while (a[i] < p);
            do j--; while (a[j] > p);
            if (i >= j) break;
            uint64_t t = a[i]; a[i] = a[j]; a[j] = t;
        }
        int64_t left = j + 1;
        if (left < n - left) { kern_sort_u64(a, left); a += left; n -= left; }
        else { kern_sort_u64(a + left, n - left); n = left; }
    }
    insertion_u64(a, n);
}

/* Rows of KERN_BUCKET_ROW entries or more are bucketed by weight: n /
 * KERN_BUCKET_SIZE buckets of equal width between the row's smallest and
 * largest weight (the bucket of a weight never decreases as the weight
 * grows, so bucket order is weight order), one counting pass and one
 * scatter of the row's keys into scratch, then each bucket sorted as keys
 * (insertion sort when short; a bucket of many equal weights, e.g. weights
 * from a small set, is quicksorted). Uniform weights give buckets of
 * ~KERN_BUCKET_SIZE keys, and no comparison sort runs over the whole row.
 * Shorter rows are gathered as keys on the stack and sorted. */
#define KERN_BUCKET_ROW 64
#define KERN_BUCKET_SIZE 4

/* Entry i's weight key (k or float bits) and the value it stands for, on
 * the scale the buckets divide (k itself for the 24-bit layout: only the
 * order and the spacing matter). */
static inline uint32_t wkey_at(const build *b, int64_t i)
{
    uint32_t u;
    memcpy(&u, b->pk + (size_t)b->rs * i + 4, 4);   /* the padding covers the last */
    return b->rs == 7 ? u & 0xFFFFFFu : u;
}
static inline uint32_t col_at(const build *b, int64_t i)
{
    uint32_t c;
    memcpy(&c, b->pk + (size_t)b->rs * i, 4);
    return c;
}
static inline void rec_put(build *b, int64_t i, uint32_t c, uint32_t k)
{
    uint8_t *q = b->pk + (size_t)b->rs * i;
    memcpy(q, &c, 4);
    if (b->rs == 7) rec_put3(q + 4, k);
    else memcpy(q + 4, &k, 4);
}
static inline double wkey_value(uint32_t k, int w24)
{
    if (w24) return (double)k;
    float f;
    memcpy(&f, &k, 4);
    return (double)f;
}

/* The bucket of a key: its weight's offset from the row's smallest, scaled
 * and truncated, at most top. */
static inline int64_t bucket_of(uint32_t k, int w24, double lo, double scale, double top)
{
    double x = (wkey_value(k, w24) - lo) * scale;
    return (int64_t)(x < top ? x : top);
}

/* Sort the row of n entries at e0 (read from the graph's arrays) into
 * sc[0, n) as keys (weight key << 32 | column), using cnt
 * ([n / KERN_BUCKET_SIZE + 1]) for the bucket starts. */
static void bucket_by_weight(const build *b, int64_t e0, int64_t n, uint64_t *sc, int64_t *cnt)
{
    const int w24 = b->rs == 7;
    int64_t nb = n / KERN_BUCKET_SIZE;
    double lo = wkey_value(wkey_at(b, e0), w24), hi = lo;
    for (int64_t i = 1; i < n; i++) {
        double x = wkey_value(wkey_at(b, e0 + i), w24);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    /* the scale stays finite however close lo and hi are; a NaN falls into
     * the last bucket (x < top is false), so indices stay in range */
    double scale = hi > lo ? (double)nb / (hi - lo) : 0.0, top = (double)(nb - 1);
    memset(cnt, 0, ((size_t)nb + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) cnt[bucket_of(wkey_at(b, e0 + i), w24, lo, scale, top) + 1]++;
    for (int64_t k = 0; k < nb; k++) cnt[k + 1] += cnt[k];
    for (int64_t i = 0; i < n; i++) {
        uint32_t k = wkey_at(b, e0 + i);
        sc[cnt[bucket_of(k, w24, lo, scale, top)]++] = (uint64_t)k << 32 | col_at(b, e0 + i);
    }
    /* cnt[k] is now the end of bucket k */
    int64_t s = 0;
    for (int64_t k = 0; k < nb; k++) {
        if (cnt[k] - s > 1) kern_sort_u64(sc + s, cnt[k] - s);
        s = cnt[k];
    }
}

/* Per-thread scratch of the merge: keys of the longest row, its bucket
 * starts, and one bit per pid of the whole pid space (all clear between
 * rows). */
typedef struct merge_ws {
    uint64_t *sc;
    int64_t *cnt;
    uint64_t *seen;
} merge_ws;

/* Order the row of n entries at e0 by (weight, column) into scratch, drop
 * every entry whose column came earlier in that order (the first, smallest
 * weight, stays: the same entry a sort by column would keep) and write the
 * kept ones back to the row's front; returns the kept length. */
static int64_t merge_row(build *b, int64_t e0, int64_t n, merge_ws *ws)
{
    uint64_t small[KERN_BUCKET_ROW];
    const uint64_t *s = small;
    if (n >= KERN_BUCKET_ROW) {
        bucket_by_weight(b, e0, n, ws->sc, ws->cnt);
        s = ws->sc;
    } else {
        for (int64_t i = 0; i < n; i++) small[i] = (uint64_t)wkey_at(b, e0 + i) << 32 | col_at(b, e0 + i);
        kern_sort_u64(small, n);
    }
    uint64_t *seen = ws->seen;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = s[i];
        uint32_t c = (uint32_t)x;
        uint64_t bit = (uint64_t)1 << (c & 63);
        if (seen[c >> 6] & bit) continue;
        seen[c >> 6] |= bit;
        rec_put(b, e0 + k, c, (uint32_t)(x >> 32));
        k++;
    }
    for (int64_t i = 0; i < k; i++) seen[col_at(b, e0 + i) >> 6] = 0;
    return k;
}

/* Release the pages of [p, p + bytes) that lie wholly inside it. */
static void release_pages(void *p, size_t bytes)
{
    const uintptr_t pg = 4096;
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), z = ((uintptr_t)p + bytes) & ~(pg - 1);
    if (z > a) madvise((void *)a, z - a, MADV_DONTNEED);
}

/* Move n entries from entry s to entry d < s (both arrays). */
static void move_entries(build *b, int64_t d, int64_t s, int64_t n)
{
    memmove(b->pk + (size_t)b->rs * d, b->pk + (size_t)b->rs * s, (size_t)b->rs * n);
}

/* The count of row l in a sorted table of row << 32 | count keys (l is
 * there: its dup byte is 255). */
static int64_t dup_big_find(const uint64_t *t, int64_t n, int64_t l)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if ((int64_t)(t[mid] >> 32) < l) lo = mid + 1; else hi = mid;
    }
    return n > 0 && (int64_t)(t[lo] >> 32) == l ? (int64_t)(uint32_t)t[lo] : 0;
}

int64_t kern_graph_dup_big(const kern_graph *g, int64_t l)
{
    return dup_big_find(g->dup_big, g->ndup_big, l);
}

/* Sort and merge every row, compact the rows in place, release the tail.
 * Each row's merged duplicates go to dup (255 and more: to the escape
 * table big, sorted by row), from which the kept lengths are recomputed
 * while rowptr still holds the raw layout. Returns nnz, -1 when a scratch
 * allocation failed. */
static int64_t merge_rows(build *b)
{
    uint8_t *dup = b->dup;
    int64_t nl = b->nl, *rowptr = b->rowptr, maxrow = 0;
    size_t words = ((size_t)b->d->base[b->P] + 63) / 64 + 1;
    int fail = 0;
#pragma omp parallel for reduction(max : maxrow)
    for (int64_t v = 0; v < nl; v++)
        if (rowptr[v + 1] - rowptr[v] > maxrow) maxrow = rowptr[v + 1] - rowptr[v];
#pragma omp parallel reduction(| : fail)
    {
        merge_ws ws = {NULL, NULL, calloc(words, sizeof(uint64_t))};
        kvec big;
        kvec_init(&big, sizeof(uint64_t));
        if (maxrow >= KERN_BUCKET_ROW) {
            ws.sc = malloc((size_t)maxrow * sizeof(uint64_t));
            ws.cnt = malloc(((size_t)maxrow / KERN_BUCKET_SIZE + 1) * sizeof(int64_t));
            if (!ws.sc || !ws.cnt) fail = 1;
        }
        if (!ws.seen) fail = 1;
        const int mine = !fail;
#pragma omp for schedule(dynamic, 64)
        for (int64_t v = 0; v < nl; v++) {
            if (!mine) continue;
            int64_t n = rowptr[v + 1] - rowptr[v], gone = n - merge_row(b, rowptr[v], n, &ws);
            dup[v] = (uint8_t)(gone < 255 ? gone : 255);
            uint64_t *e = gone >= 255 ? kvec_push(&big) : NULL;
            if (e) *e = (uint64_t)v << 32 | (uint64_t)gone;
        }
        if (big.fail) fail = 1;
#pragma omp critical(kern_construct_dup_big)
        if (big.n && kvec_reserve(&b->big, b->big.n + big.n)) {
            memcpy(b->big.p + b->big.n * sizeof(uint64_t), big.p, big.n * sizeof(uint64_t));
            b->big.n += big.n;
        }
        kvec_free(&big);
        free(ws.sc); free(ws.cnt); free(ws.seen);
    }
    if (fail || b->big.fail) return -1;
    const uint64_t *big = (const uint64_t *)b->big.p;
    const int64_t nbig = (int64_t)b->big.n;
    kern_sort_u64((uint64_t *)b->big.p, nbig);
#define KEPT(v) (rowptr[(v) + 1] - rowptr[v] - (dup[v] < 255 ? dup[v] : dup_big_find(big, nbig, v)))
    /* compact: each block of rows to its own start, then blocks down in order */
    int T = b->S;
    int64_t bcnt[T];
#pragma omp parallel for schedule(static, 1)
    for (int t = 0; t < T; t++) {
        int64_t a = nl * t / T, z = nl * (t + 1) / T, o = rowptr[a];
        for (int64_t v = a; v < z; v++) {
            int64_t k = KEPT(v);
            if (o != rowptr[v]) move_entries(b, o, rowptr[v], k);
            o += k;
        }
        bcnt[t] = o - rowptr[a];
    }
    int64_t o = 0;
    for (int t = 0; t < T; t++) {
        int64_t a = rowptr[nl * t / T];
        if (o != a) move_entries(b, o, a, bcnt[t]);
        o += bcnt[t];
    }
    /* rowptr to the kept layout, in one pass from the last row down (each
     * kept length reads the raw row bounds above it, not yet rewritten) */
    int64_t end = o;
    for (int64_t v = nl - 1; v >= 0; v--) {
        int64_t k = KEPT(v);
        rowptr[v + 1] = end;
        end -= k;
    }
    rowptr[0] = 0;
#undef KEPT
    /* the merged-away tail (w3 keeps its 8 bytes of padding) */
    release_pages(b->pk + (size_t)b->rs * o + 8, (size_t)b->rs * (b->nraw - o));
    return o;
}

/* Split the merged records pk[0, nnz) into the graph's col and weights,
 * walking down from the end in blocks and releasing each block's pages of
 * pk once copied, so the resident memory stays at about one record per
 * entry instead of two. */
#define KERN_SPLIT_BLOCK ((int64_t)1 << 20)
static int split(build *b, kern_graph *g)
{
    int64_t n = g->nnz;
    g->col = big_malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (g->w24) g->w3 = big_malloc((size_t)n * 3 + 8);   /* 8 padding bytes: sssp_w8 loads 32 */
    else g->w = big_malloc(((size_t)n + 2) * sizeof(float));  /* + 8 bytes: floats_to_w3 */
    if (!g->col || !(g->w3 || g->w)) return G5_ERR_NOMEM;
    if (g->w3) memset(g->w3 + 3 * n, 0, 8);
    uint32_t *col = g->col;
    uint8_t *w3 = g->w3;
    float *w = g->w;
    for (int64_t hi = n; hi > 0;) {
        int64_t lo = hi > KERN_SPLIT_BLOCK ? hi - KERN_SPLIT_BLOCK : 0;
#pragma omp parallel for schedule(static)
        for (int64_t i = lo; i < hi; i++) {
            col[i] = col_at(b, i);
            uint32_t k = wkey_at(b, i);
            if (w3) w3_put(w3, i, k);
            else memcpy(&w[i], &k, 4);
        }
        release_pages(b->pk + (size_t)b->rs * lo, (size_t)b->rs * (size_t)(hi - lo));
        hi = lo;
    }
    return G5_OK;
}

/* 1 when every weight of the float layout's w[0, n) is k * 2^-24. */
static int all_w24(const float *w, int64_t n)
{
    int good = 1;
#pragma omp parallel for schedule(static) reduction(& : good)
    for (int64_t i = 0; i < n; i++) good &= weight_is_w24(w[i]);
    return good;
}

/* The float layout's n weights rewritten in place as 3-byte integers (the
 * array was allocated with 4 n + 8 >= 3 n + 8 bytes). Sequential: entry i
 * is read before its bytes 3i..3i+2 are written, and those bytes belong to
 * entries <= i only. Then the array is shrunk (a failed shrink keeps the
 * larger block, still valid). */
static void floats_to_w3(kern_graph *g)
{
    uint8_t *p = (uint8_t *)g->w;
    for (int64_t i = 0; i < g->nnz; i++) {
        float f;
        memcpy(&f, p + 4 * i, 4);
        w3_put(p, i, (uint32_t)(f * 0x1p24f));
    }
    memset(p + 3 * g->nnz, 0, 8);
    uint8_t *q = realloc(p, (size_t)g->nnz * 3 + 8);
    g->w3 = q ? q : p;
    g->w = NULL;
    g->w24 = 1;
}
/* Collective: build from src (count edges on this rank, chunk per round). */
static int build_graph(MPI_Comm comm, const kern_dist *d, src *sr, int64_t count, int64_t chunk,
                       kern_graph **out)
{
    int P = d->nranks, me = d->rank, S = omp_get_max_threads(), ok = 1, read_rc = G5_OK;
    int rc = G5_OK;
    int64_t nl = d->nlocal[me];
    build b = {.comm = comm, .d = d, .P = P, .me = me, .S = S, .nl = nl, .bad = -1,
               .esize_recv = 4, .w24ok = 1};
    kvec_init(&b.big, sizeof(uint64_t));
    kern_graph *g = calloc(1, sizeof *g);
    *out = NULL;
    if (chunk <= 0) chunk = default_chunk(count, P);
    int64_t lmax = count < chunk ? count : chunk;
    b.scnt = malloc(((size_t)2 * S * P + P + 2 * (size_t)S + 1) * sizeof(int64_t));
    b.lbuf = malloc(((size_t)2 * lmax + 1) * sizeof(rec));
    if (P > 1) b.pid = malloc(((size_t)2 * lmax + 1) * sizeof(uint32_t));
    b.find = (finder){.d = d, .shift = -1, .n = (uint64_t)d->nvertices};
    rank_table_init(&b.by_pid, d->base, P);
    if (kern_dist_kind_of(d) == KERN_DIST_CYCLIC && (P & (P - 1)) == 0) {
        int sh = 0;
        while ((1 << sh) < P) sh++;
        b.find.shift = sh;
    }
    if (kern_dist_kind_of(d) == KERN_DIST_PLACEMENT) {
        b.find.label = d->new_of_old;
        b.find.first = d->first;
        rank_table_init(&b.by_label, d->first, P);
        b.find.by_label = &b.by_label;
    }
    if (g) {
        g->rowptr = big_malloc(((size_t)nl + 1) * sizeof(int64_t));
        g->bytes_to = calloc((size_t)P, sizeof(int64_t));
    }
    if (!g || !b.scnt || !b.lbuf || (P > 1 && !b.pid) || !g->rowptr || !g->bytes_to) ok = 0, b.nomem = 1;
    if (ok) {
        b.dest = b.scnt + (size_t)2 * S * P;
        b.lcnt = b.dest + P;
        b.rlo = b.lcnt + S;
        b.rowptr = g->rowptr;
        b.cnt = g->rowptr + 1;
        memset(g->rowptr, 0, ((size_t)nl + 1) * sizeof(int64_t));
        for (int t = 0; t <= S; t++) b.rlo[t] = nl * t / S;   /* pass 1: equal row ranges */
    }
    int64_t rounds = (count + chunk - 1) / chunk, maxr = 0;
    MPI_Allreduce(&rounds, &maxr, 1, MPI_INT64_T, MPI_MAX, comm);

    double t0 = g5_now(), r0 = sr->read_s, t1, r1, t2, r2, c0 = cpu_now(), rc0 = sr->read_cpu;
    /* pass 1: counts */
    int all = pass(&b, sr, count, chunk, maxr, 0, ok, &read_rc);
    if (read_rc != G5_OK) { rc = read_rc; goto fail; }
    if (all) {
        /* row starts; pass 2's row ranges hold equal numbers of entries */
        int64_t *rowptr = g->rowptr;
        for (int64_t v = 0; v < nl; v++) rowptr[v + 1] += rowptr[v];
        b.nraw = rowptr[nl];
        int64_t v = 0;
        for (int t = 1; t < S; t++) {
            while (v < nl && rowptr[v] < b.nraw * t / S) v++;
            b.rlo[t] = v;
        }
    }
    {
        /* The 24-bit weight layout when every rank saw only such weights
         * (a failed rank votes yes and stops at the agreement below), so
         * all ranks hold the same layout; then the entries are filled
         * straight into it. */
        int mine[2] = {ok && all, b.w24ok || !(ok && all)}, every[2];
        MPI_Allreduce(mine, every, 2, MPI_INT, MPI_MIN, comm);
        if (!every[0]) goto agree;
        b.w24 = g->w24 = every[1];
        b.rs = g->w24 ? 7 : 8;
        b.pk = big_malloc((size_t)b.rs * (size_t)b.nraw + 8);
        g->dup = big_malloc((size_t)nl + 1);
        b.dup = g->dup;
        int have = b.pk && g->dup;
        if (!have) ok = 0, b.nomem = 1;
        MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, comm);
        if (!have) goto agree;
    }

    t1 = g5_now(); r1 = sr->read_s;
    /* pass 2: fill */
    all = pass(&b, sr, count, chunk, maxr, 1, ok, &read_rc);
    if (read_rc != G5_OK) { rc = read_rc; goto fail; }
    free(b.sendbuf); b.sendbuf = NULL; b.sendcap = 0;
    free(b.recv); b.recv = NULL; b.recvcap = 0;
    if (all && b.hash[0] != b.hash[1]) b.overflow = 1;
    if (b.overflow) ok = 0;
    if (all && ok) {
        /* the cursors advanced each row start to the next row's: shift back */
        memmove(g->rowptr + 1, g->rowptr, (size_t)nl * sizeof(int64_t));
        g->rowptr[0] = 0;
    }
    t2 = g5_now(); r2 = sr->read_s;
    int odd = 0;   /* float layout, and a kept weight here is not k * 2^-24 */
    if (all && ok) {
        g->nnz = merge_rows(&b);
        g->dup_big = (uint64_t *)b.big.p;
        g->ndup_big = (int64_t)b.big.n;
        kvec_init(&b.big, sizeof(uint64_t));   /* the graph owns the table now */
        if (g->nnz < 0) g->nnz = 0, ok = 0, b.nomem = 1;
        else if (split(&b, g) != G5_OK) ok = 0, b.nomem = 1;
        else if (!g->w24) odd = !all_w24(g->w, g->nnz);
        free(b.pk);
        b.pk = NULL;
    }
    if (all && ok) {
        /* Kernel 3's light/heavy delta-stepping wants every row ordered by
         * weight (its light edges a prefix): merge_rows left them in
         * (weight, column) order, inside the timed region. */
        g->nlocal = nl;
        g->rows_by_weight = ok;
        g->build_time[0] = t1 - t0 - (r1 - r0);
        g->build_time[1] = t2 - t1 - (r2 - r1);
        g->build_time[2] = g5_now() - t2;
        g->build_time[3] = r2 - r0;
        g->build_time[5] = sr->read_cpu - rc0;
        g->build_time[4] = cpu_now() - c0 - g->build_time[5];
    }
    free(b.lbuf); b.lbuf = NULL;
    free(b.pid); b.pid = NULL;
    {
        /* With float weights, the kept entries may all be k * 2^-24 after
         * all (pass 1 also saw the self-loops' and the dropped duplicates'
         * weights): then the graph takes the 24-bit layout as well, so the
         * layout depends only on the kept graph. Rare, so done after this
         * agreement and its time added to the merge phase. */
        int64_t v[3] = {all && ok ? 0 : 1, all && ok ? g->nnz : 0, odd}, s[3];
        MPI_Allreduce(v, s, 3, MPI_INT64_T, MPI_SUM, comm);
        if (s[0]) goto agree;
        g->nnz_global = s[1];
        if (!g->w24 && s[2] == 0) {
            double t3 = g5_now();
            floats_to_w3(g);
            g->build_time[2] += g5_now() - t3;
        }
    }
    g->comm = comm; g->rank = me; g->nranks = P; g->dist = d; g->nlocal = nl;
    g->base = d->base[me];
    free(b.scnt);
    *out = g;
    return G5_OK;

agree: {
        /* The run is dead: spread the failing rank's message now (the timing
         * of a failed construction does not matter). */
        int st = G5_OK;
        if (b.bad >= 0)
            st = g5_error(b.bad_code, "edge (%lld, %lld): %s", (long long)b.bad_u, (long long)b.bad_v,
                          b.bad_code == G5_ERR_MISMATCH
                              ? "an endpoint is isolated in the placement"
                              : "an endpoint is out of range");
        else if (b.overflow)
            st = g5_error(G5_ERR_FORMAT, "construction: the edges changed between the counting "
                          "and the filling pass");
        else if (b.nomem)
            st = g5_error(G5_ERR_NOMEM, "construction: cannot allocate the CSR (%lld local vertices)",
                          (long long)nl);
        rc = g5_agree(comm, st);
        if (rc == G5_OK)
            rc = g5_error(G5_ERR_NOMEM, "construction: cannot allocate the exchange buffers");
    }
fail:
    free(b.lbuf); free(b.pid); free(b.scnt); free(b.sendbuf); free(b.recv); free(b.pk);
    kvec_free(&b.big);
    kern_graph_free(&g);
    return rc;
}

int kern_graph_build_ex(MPI_Comm comm, const kern_dist *d, const int64_t *edges,
                        const float *weights, int64_t count, int64_t chunk, kern_graph **out)
{
    src s = {.edges = edges, .weights = weights};
    return build_graph(comm, d, &s, count, chunk, out);
}

int kern_graph_build(MPI_Comm comm, const kern_dist *d, const int64_t *edges,
                     const float *weights, int64_t count, kern_graph **out)
{
    return kern_graph_build_ex(comm, d, edges, weights, count, 0, out);
}

int kern_graph_build_file(MPI_Comm comm, const kern_dist *d, io_edges *ef, int64_t chunk,
                          double *read_seconds, kern_graph **out)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    *out = NULL;
    *read_seconds = 0;
    const io_edges_meta *meta = io_edges_get_meta(ef);
    int64_t first, count;
    g5_range_split(meta->nedges, me, P, &first, &count);
    if (chunk <= 0) chunk = default_chunk(count, P);
    if (meta->nvertices != d->nvertices)
        return g5_agree(comm, g5_error(G5_ERR_MISMATCH, "%s: %lld vertices, the distribution has %lld",
                                       io_edges_path(ef), (long long)meta->nvertices,
                                       (long long)d->nvertices));
    int64_t c = count < chunk ? count : chunk;
    src s = {.ef = ef, .comm = comm, .first = first};
    s.ebuf = malloc(((size_t)c + 1) * 2 * sizeof(int64_t));
    s.wbuf = malloc(((size_t)c + 1) * sizeof(float));
    int rc = g5_agree(comm, s.ebuf && s.wbuf ? G5_OK
                      : g5_error(G5_ERR_NOMEM, "%s: cannot allocate a chunk of %lld edges",
                                 io_edges_path(ef), (long long)c));
    if (rc == G5_OK) rc = build_graph(comm, d, &s, count, chunk, out);
    *read_seconds = s.read_s;
    free(s.ebuf);
    free(s.wbuf);
    return rc;
}

void kern_graph_free(kern_graph **gp)
{
    if (!gp || !*gp) return;
    kern_graph *g = *gp;
    free(g->rowptr); free(g->col); free(g->w); free(g->w3); free(g->bytes_to); free(g->dup);
    free(g->dup_big);
    free(g);
    *gp = NULL;
}

int64_t kern_graph_nlocal(const kern_graph *g) { return g->nlocal; }
int64_t kern_graph_nnz_global(const kern_graph *g) { return g->nnz_global; }
int64_t kern_graph_bytes(const kern_graph *g)
{
    return (g->nlocal + 1) * 8 + g->nlocal + g->ndup_big * 8 + g->nnz * (g->w24 ? 7 : 8);
}

int kern_reached_edges(kern_graph *g, const int64_t *parent, int64_t *nedge)
{
    int64_t s = 0, t = 0;
#pragma omp parallel for reduction(+ : s)
    for (int64_t v = 0; v < g->nlocal; v++)
        if (parent[v] >= 0) s += kern_rawdeg(g, v);
    MPI_Allreduce(&s, &t, 1, MPI_INT64_T, MPI_SUM, g->comm);
    *nedge = t / 2;
    return G5_OK;
}
void kern_graph_build_times(const kern_graph *g, double t[6])
{
    memcpy(t, g->build_time, sizeof g->build_time);
}
int64_t kern_graph_degree(const kern_graph *g, int64_t l) { return g->rowptr[l + 1] - g->rowptr[l]; }
