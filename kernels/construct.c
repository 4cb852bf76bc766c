/* SPDX-License-Identifier: MIT */
/*
 * construct.c - kernel 1 of Graph500: build the distributed undirected graph
 * (a CSR per rank) from this rank's block of the edge list, streamed from the
 * edges file in bounded chunks or taken from memory.
 *
 * Two passes, each in rounds of `chunk` edges per rank (every rank makes the
 * same number of rounds; one with fewer edges takes part with empty rounds).
 * In a round, threads take slices of the edges and locate both ends (owner
 * and local row: a mask and shift for cyclic with P a power of two; for a
 * placement one prefetched load from new_of_old and a rank table); entries
 * for other ranks go out in one kern_exchange (MPI_Alltoallv) and come back
 * in slices. Rows are grouped in blocks of 2^rb rows (rb <= 10); each slice
 * has its own stretch of every block, so threads never share a cursor.
 *   Pass 1 counts the entries per slice and block, and checks whether every
 *   non-loop weight is k * 2^-24 (the generator's are): the ranks agree on
 *   the flag, which fixes the weight layout (kern_impl.h, kern_w) before
 *   anything is stored.
 *   Pass 2 appends each entry to its slice's stretch of its block as one
 *   record (7 bytes: column, 3-byte weight key k and the row inside the
 *   block; 8 with float bits, or at a large SCALE with many threads, where
 *   floats then take pass 1 again with smaller blocks: kc_block_rows_log):
 *   the stores go to a few thousand sequential
 *   fronts instead of one random cache line per entry. A digest of the
 *   edges seen by each pass must agree (the file cannot change in between
 *   unnoticed).
 *   At one rank with the cyclic distribution (a vertex is its own row)
 *   both passes take a short loop of their own (local_slice): counting is
 *   then two increments per edge, and the fill stores each record with one
 *   8-byte store where its 8th byte stays inside the slice's stretch,
 *   and a prefetch two lines ahead on the same front (the hardware
 *   prefetchers do not follow a thousand interleaved fronts).
 *   Merge: construct_merge.c.
 *
 * Timing: when streaming, the file reads (untimed per the spec) happen here,
 * each between two barriers, and their seconds are returned, so the driver
 * times kernel 1 as elapsed minus reads, waits for other ranks included.
 *
 * Memory per rank (nraw entries before merging, nnz after, nl local
 * vertices, C chunk edges, S threads): pass 1 cursors 16 S nl / 2^rb +
 * buffers ~20-60 C; pass 2 + records 7 nraw (8 with floats, or where
 * larger blocks save more: kc_block_rows_log); merge + rowptr
 * 8 nl + dup nl, per thread scratch for the largest block (16 bytes per
 * entry) and a set of the longest row's columns (16); final graph
 * 8 (nl+1) + nl + 4 nnz + 3 nnz (4 nnz for float weights). The edge list is
 * never held. At edgefactor 16 the peak is about 7 nraw + 9 nl, ~14.6 bytes
 * per input edge plus the chunk buffers.
 */
#include "io.h"
#include "kern_impl.h"

#include <omp.h>
#include <sys/mman.h>
#include <time.h>

/* Edges per rank per round, by default. Each round costs an OpenMP
 * fork/join or two and, at P > 1, an all-to-all whose waits for descheduled
 * ranks add up, so rounds stay 2^20 edges (~20 MiB of file chunk per rank,
 * up to ~70 with the exchange buffers at P > 1). At one rank on a small graph those buffers would be
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


/* An entry on its way to its row: local row, column pid, weight key (the
 * 24-bit integer k when the graph takes the 24-bit layout, the float's bits
 * otherwise; both order like the weights). */
typedef struct rec { uint32_t row, col, wk; } rec;


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
    return w24 ? (uint32_t)(w * 0x1p24f) : kc_f2u(w);
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


static void rank_table_init(kc_rank_table *t, const int64_t *B, int P)
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
static inline int rank_of(const kc_rank_table *t, int64_t x)
{
    int r = t->first[x >> t->shift];
    while (t->B[r + 1] <= x) r++;
    return r;
}


static inline int find(const kc_finder *f, int64_t v, int *o, int64_t *l)
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


static void note_bad(kc_build *b, int64_t i, int64_t u, int64_t v)
{
#pragma omp critical(kern_construct_bad)
    if (b->bad < 0 || i < b->bad) {
        b->bad = i; b->bad_u = u; b->bad_v = v;
        b->bad_code = kern_dist_kind_of(b->d) == KERN_DIST_PLACEMENT && u >= 0 &&
                              u < b->d->nvertices && v >= 0 && v < b->d->nvertices
                          ? G5_ERR_MISMATCH : G5_ERR_FORMAT;
    }
}

/* Where slice s of a round puts the entries for local rows: in pass 1 it
 * counts them per block (cur[s][block]++), in pass 2 it appends each as a
 * record carrying its row inside the block at cur[s][block], the slice's own
 * stretch of the block (the stretches of a block are laid out slice after
 * slice, so no two threads ever write the same cursor or record: no
 * atomics, no sorting of a round by owner thread). A block's records are a
 * contiguous stretch of pk, so a pass writes to S nb fronts (blocks of
 * 2^min(10, 32 - pbits) rows with 7-byte records: a few thousand up to
 * SCALE 22, 64 Ki at 24; kc_block_rows_log)
 * instead of one random line per entry; the stores wait in a small ring after a prefetch of their target,
 * so misses overlap when the fronts outgrow the caches. Slices are the
 * same in both passes (the same edges, the same received records in the
 * same order), so every stretch gets exactly its counted entries when both
 * passes saw the same edges (checked by digest); the bound check keeps
 * memory safe otherwise. */
#define KERN_RING 16
typedef struct sink {
    int64_t *cur;
    uint8_t *pk;
    size_t rs;
    int rb, pbits, sh, fill, overflow;
    uint32_t mask;
    uint64_t nraw;
    unsigned n;
    uint64_t pos[KERN_RING], val[KERN_RING];
} sink;

static sink sink_of(const kc_build *b, int s, int fill)
{
    sink k = {.cur = b->cur + (size_t)s * b->nb, .pk = b->pk, .rs = (size_t)b->rs, .rb = b->rb,
              .pbits = b->pbits, .sh = b->pbits + b->wbits, .fill = fill,
              .mask = ((uint32_t)1 << b->rb) - 1, .nraw = (uint64_t)b->nraw};
    return k;
}

/* Store the low rs bytes of x at q (exact size: the neighbours may be
 * another thread's). */
static inline void rec_store(uint8_t *q, uint64_t x, size_t rs)
{
    if (rs == 8) {
        memcpy(q, &x, 8);
    } else {
        uint32_t lo = (uint32_t)x;
        uint16_t mid = (uint16_t)(x >> 32);
        memcpy(q, &lo, 4);
        memcpy(q + 4, &mid, 2);
        q[6] = (uint8_t)(x >> 48);
    }
}

static inline void sink_put(sink *k, uint32_t row, uint32_t col, uint32_t wk)
{
    int64_t *c = &k->cur[row >> k->rb];
    if (!k->fill) { ++*c; return; }
    uint64_t p = (uint64_t)(*c)++;
    if (p >= k->nraw) { k->overflow = 1; return; }
    __builtin_prefetch(k->pk + k->rs * p, 1);
    unsigned j = k->n++ & (KERN_RING - 1);
    if (k->n > KERN_RING) rec_store(k->pk + k->rs * k->pos[j], k->val[j], k->rs);
    k->pos[j] = p;
    k->val[j] = (uint64_t)col | (uint64_t)wk << k->pbits | (uint64_t)(row & k->mask) << k->sh;
}

/* Store what waits in the ring; report an overflow. */
static void sink_flush(kc_build *b, sink *k)
{
    unsigned m = k->n < KERN_RING ? k->n : KERN_RING;
    for (unsigned j = 0; j < m; j++) rec_store(k->pk + k->rs * k->pos[j], k->val[j], k->rs);
    k->n = 0;
    if (k->overflow) {
#pragma omp atomic write
        b->overflow = 1;
    }
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

/* Aligned on a huge page when at least one long (else on a cache line), so
 * that the advice covers the whole array and an element of a power-of-two
 * size up to 64 bytes (a batch's records of 8 keys) never straddles two
 * cache lines; malloc's large blocks start 16 bytes past a page. */
void *kc_big_malloc(size_t bytes)
{
    const size_t H = (size_t)2 << 20;
    void *p = NULL;
    if (posix_memalign(&p, bytes >= H ? H : 64, bytes ? bytes : 1)) return NULL;
    want_huge_pages(p, bytes);
    return p;
}

/* The records get their own mapping (never the heap's), so that split can
 * move its pages elsewhere (donor) and unmap what is left at the end. */
static uint8_t *pk_alloc(kc_build *b, size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    b->pkbytes = bytes;
    want_huge_pages(p, bytes);
    return p;
}

static void pk_free(kc_build *b)
{
    if (b->pk) munmap(b->pk, b->pkbytes);
    b->pk = NULL;
}

/* One slice of a round at one rank with the cyclic distribution, where
 * every endpoint is local and its row is the vertex itself: the digest in
 * a loop of its own (it vectorizes), then each edge's two entries straight
 * to the sink, with none of the general loop's owner bookkeeping. Returns
 * 0 on a bad edge (noted). */
static int local_slice(kc_build *b, sink *K, const int64_t *e, const float *wt, int64_t a,
                       int64_t z, int64_t lo, uint64_t *hp)
{
    uint64_t h = 0;
    for (int64_t i = a; i < z; i++) h += edge_digest(lo + i, e[2 * i], e[2 * i + 1]);
    *hp = h;
    const uint64_t n = b->find.n;
    if (!K->fill) {
        int64_t *cur = K->cur;
        const int rb = K->rb;
        for (int64_t i = a; i < z; i++) {
            uint64_t u = (uint64_t)e[2 * i], v = (uint64_t)e[2 * i + 1];
            if (u == v) continue;
            if (u >= n || v >= n) { note_bad(b, lo + i, (int64_t)u, (int64_t)v); return 0; }
            cur[u >> rb]++;
            cur[v >> rb]++;
        }
        return 1;
    }
    const int w24 = b->w24, rb = K->rb, sh = K->sh;
    int64_t *cur = K->cur;
    const int64_t *end = cur + (size_t)b->S * b->nb;
    uint8_t *pk = K->pk;
    const size_t rs = K->rs;
    const uint64_t nraw = K->nraw, mask = K->mask;
    for (int64_t i = a; i < z; i++) {
        uint64_t u = (uint64_t)e[2 * i], v = (uint64_t)e[2 * i + 1];
        if (u == v) continue;
        if (u >= n || v >= n) { note_bad(b, lo + i, (int64_t)u, (int64_t)v); return 0; }
        uint32_t w = weight_key(wt[i], w24);
        uint64_t wv = (uint64_t)w << K->pbits;
        uint64_t pu = (uint64_t)cur[u >> rb]++, pv, x;
        if (pu >= nraw) { K->overflow = 1; return 1; }
        __builtin_prefetch(pk + rs * pu + 128, 1);
        x = v | wv | (u & mask) << sh;
        if ((int64_t)pu + 1 < end[u >> rb]) memcpy(pk + rs * pu, &x, 8);
        else rec_store(pk + rs * pu, x, rs);
        pv = (uint64_t)cur[v >> rb]++;
        if (pv >= nraw) { K->overflow = 1; return 1; }
        __builtin_prefetch(pk + rs * pv + 128, 1);
        x = u | wv | (v & mask) << sh;
        if ((int64_t)pv + 1 < end[v >> rb]) memcpy(pk + rs * pv, &x, 8);
        else rec_store(pk + rs * pv, x, rs);
    }
    return 1;
}

#define KERN_AHEAD 16   /* edges between a placement prefetch and its use */
#define KERN_LOCAL 64   /* local entries buffered before they go to the sink */

/* Collective. One round: route this rank's edges e[0, n) (slab indices lo..)
 * with weights wt (pass 1 checks them for the 24-bit layout, pass 2 stores
 * their keys). Entries for this rank are applied directly,
 * the others exchanged and applied by their owners. ok: this rank's state;
 * returns 1 when every rank is still ok (0 on every rank otherwise). At
 * P > 1 the locating loop leaves both endpoints' pids in b->pid, so packing
 * the remote entries does not locate them again. Over 120 lines on
 * purpose: kernel 1's hot loop, one parallel region per phase sharing the
 * round's locals, kept whole so its code generation stays as measured. */
static int route_round(kc_build *b, const int64_t *e, const float *wt, int64_t n, int64_t lo,
                       int fill, int ok)
{
    const kern_dist *d = b->d;
    const kc_finder *f = &b->find;
    int P = b->P, S = b->S, me = b->me;
    size_t esize = fill ? sizeof(rec) : sizeof(uint32_t);
    int64_t *sc = b->scnt, *so = b->scnt + (size_t)S * P;
    uint32_t *pid = b->pid;
    int lok = ok;
    if (ok) {
        /* locate both ends: entries for this rank to the slice's sink, others
         * counted */
        memset(sc, 0, (size_t)S * P * sizeof(int64_t));
#pragma omp parallel for schedule(static, 1) reduction(&& : lok)
        for (int s = 0; s < S; s++) {
            int64_t a = n * s / S, z = n * (s + 1) / S;
            int64_t *c = sc + (size_t)s * P;
            rec L[KERN_LOCAL + 2];
            int k = 0;
            sink K = sink_of(b, s, fill);
            uint64_t h = 0;
            const int w24 = b->w24;
            if (!fill && !slice_w24(e, wt, a, z)) {
#pragma omp atomic write
                b->w24ok = 0;
            }
            if (P == 1 && f->shift == 0) {
                lok = local_slice(b, &K, e, wt, a, z, lo, &h);
                sink_flush(b, &K);
#pragma omp atomic
                b->hash[fill] += h;
                continue;
            }
            /* local copies: the stores below could alias the structs */
            kc_finder F = *f;
            kc_rank_table T;
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
                if (k >= KERN_LOCAL) {
                    for (int j = 0; j < k; j++) sink_put(&K, L[j].row, L[j].col, L[j].wk);
                    k = 0;
                }
            }
            for (int j = 0; j < k; j++) sink_put(&K, L[j].row, L[j].col, L[j].wk);
            sink_flush(b, &K);
#pragma omp atomic
            b->hash[fill] += h;
        }
    }
    if (P == 1) return lok;

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
            const kc_rank_table T = b->by_pid;     /* a copy no store can alias */
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
    /* the received records in slices, each to its slice's sink */
#pragma omp parallel for schedule(static, 1)
    for (int s = 0; s < S; s++) {
        int64_t a = nrecv * s / S, z = nrecv * (s + 1) / S;
        sink K = sink_of(b, s, fill);
        if (fill) {
            const rec *r = b->recv;
            for (int64_t i = a; i < z; i++) sink_put(&K, r[i].row, r[i].col, r[i].wk);
        } else {
            const uint32_t *r = b->recv;
            for (int64_t i = a; i < z; i++) sink_put(&K, r[i], 0, 0);
        }
        sink_flush(b, &K);
    }
    return 1;
}

/* Collective. One pass over this rank's `count` edges in `rounds` rounds;
 * returns 1 when every rank is still ok, 0 on every rank otherwise (or when
 * a read failed: *read_rc, agreed). */
static int pass(kc_build *b, src *sr, int64_t count, int64_t chunk, int64_t rounds, int fill,
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

/* Rows per block, log2 (kern_impl.h). Pass 2's records carry the column
 * (pbits bits), a weight key (24 bits, 32 for floats) and the row inside
 * its block: 7 bytes (8 with floats) leave 32 - pbits row bits, few at a
 * large SCALE, while the cursors of passes 1 and 2 take 16 S bytes per
 * block: with many threads they can outweigh the records (SCALE 30 with
 * 64 threads: 16 bytes per input edge). 8-byte records with 24-bit keys
 * leave 40 - pbits row bits. The layout with the lower peak is taken:
 * pass 2 holds the records (~2 count) and the cursors, the merge the
 * records and 9 bytes per row. Each rank decides alone (only rows and
 * columns travel). */
int kc_block_rows_log(int pbits, int S, int64_t nl, int64_t count)
{
    int r7 = 32 - pbits < KERN_BLOCK_ROWS_LOG ? 32 - pbits : KERN_BLOCK_ROWS_LOG;
    int r8 = 40 - pbits < KERN_BLOCK_ROWS_LOG ? 40 - pbits : KERN_BLOCK_ROWS_LOG;
    double e = 2.0 * (double)count, merge = 9.0 * (double)nl;
    double c7 = 16.0 * S * (double)(nl >> r7), c8 = 16.0 * S * (double)(nl >> r8);
    double p7 = 7 * e + (c7 > merge ? c7 : merge), p8 = 8 * e + (c8 > merge ? c8 : merge);
    return p8 < p7 ? r8 : r7;
}

/* Blocks of 2^rb rows: their starts and the per-slice cursors (zero); 0
 * when an allocation failed. */
static int set_blocks(kc_build *b, int rb)
{
    free(b->bptr);
    free(b->cur);
    b->rb = rb;
    b->nb = (b->nl + ((int64_t)1 << rb) - 1) >> rb;
    b->bptr = malloc(((size_t)b->nb + 1) * sizeof(int64_t));
    b->cur = calloc((size_t)2 * b->S * (size_t)b->nb + 1, sizeof(int64_t));
    return b->bptr && b->cur;
}

/* The construction's buffers, endpoint finder and block geometry; 0 (and
 * b->nomem) when an allocation failed. */
static int build_init(kc_build *b, kern_graph *g, int64_t count, int64_t chunk, int rows_log)
{
    const kern_dist *d = b->d;
    int P = b->P, S = b->S, ok = 1;
    int64_t nl = b->nl;
    int64_t lmax = count < chunk ? count : chunk;
    b->scnt = malloc(((size_t)2 * S * P + P + 1) * sizeof(int64_t));
    if (P > 1) b->pid = malloc(((size_t)2 * lmax + 1) * sizeof(uint32_t));
    b->find = (kc_finder){.d = d, .shift = -1, .n = (uint64_t)d->nvertices};
    rank_table_init(&b->by_pid, d->base, P);
    if (kern_dist_kind_of(d) == KERN_DIST_CYCLIC && (P & (P - 1)) == 0) {
        int sh = 0;
        while ((1 << sh) < P) sh++;
        b->find.shift = sh;
    }
    if (kern_dist_kind_of(d) == KERN_DIST_PLACEMENT) {
        b->find.label = d->new_of_old;
        b->find.first = d->first;
        rank_table_init(&b->by_label, d->first, P);
        b->find.by_label = &b->by_label;
    }
    b->pbits = 1;
    while (b->pbits < 32 && ((uint64_t)1 << b->pbits) < (uint64_t)d->base[P]) b->pbits++;
    int r8 = 40 - b->pbits < KERN_BLOCK_ROWS_LOG ? 40 - b->pbits : KERN_BLOCK_ROWS_LOG;
    int rb = rows_log < 0 ? kc_block_rows_log(b->pbits, S, nl, count)
                          : rows_log < r8 ? rows_log : r8;
    int set = set_blocks(b, rb);
    if (g) g->bytes_to = calloc((size_t)P, sizeof(int64_t));
    if (!g || !b->scnt || (P > 1 && !b->pid) || !set || !g->bytes_to) ok = 0, b->nomem = 1;
    if (ok) b->dest = b->scnt + (size_t)2 * S * P;
    return ok;
}

/* After pass 1: block starts, and each slice's stretch inside each block. */
static void block_starts(kc_build *b)
{
    int64_t *bptr = b->bptr, o = 0;
    for (int64_t j = 0; j < b->nb; j++) {
        bptr[j] = o;
        for (int t = 0; t < b->S; t++) {
            int64_t *c = &b->cur[(size_t)t * b->nb + j], m = *c;
            *c = o;
            o += m;
            c[(size_t)b->S * b->nb] = o;
        }
    }
    bptr[b->nb] = b->nraw = o;
}

/* The merge and the split into the graph's arrays; 0 (and b->nomem) when
 * an allocation failed. *odd: float layout and a kept weight is not
 * k * 2^-24. */
static int merge_into(kc_build *b, kern_graph *g, int *odd)
{
    int ok = 1;
    g->rowptr = b->rowptr = kc_big_malloc(((size_t)b->nl + 1) * sizeof(int64_t));
    int64_t *kept = malloc(((size_t)b->nb + 1) * sizeof(int64_t));
    g->nnz = g->rowptr && kept ? kc_merge_rows(b, kept) : -1;
    g->dup_big = (uint64_t *)b->big.p;
    g->ndup_big = (int64_t)b->big.n;
    kvec_init(&b->big, sizeof(uint64_t));   /* the graph owns the table now */
    if (g->nnz < 0) g->nnz = 0, ok = 0, b->nomem = 1;
    else if (kc_split(b, g, kept) != G5_OK) ok = 0, b->nomem = 1;
    else if (!g->w24) *odd = !kc_all_w24(g->w, g->nnz);
    free(kept);
    pk_free(b);
    return ok;
}

/* Collective, after a failure: every rank returns the failing rank's
 * message. */
static int failure_status(kc_build *b, MPI_Comm comm)
{
    int rc;
    /* The run is dead: spread the failing rank's message now (the timing
     * of a failed construction does not matter). */
    int st = G5_OK;
    if (b->bad >= 0)
        st = g5_error(b->bad_code, "edge (%lld, %lld): %s", (long long)b->bad_u, (long long)b->bad_v,
                      b->bad_code == G5_ERR_MISMATCH
                          ? "an endpoint is isolated in the placement"
                          : "an endpoint is out of range");
    else if (b->overflow)
        st = g5_error(G5_ERR_FORMAT, "construction: the edges changed between the counting "
                      "and the filling pass");
    else if (b->nomem)
        st = g5_error(G5_ERR_NOMEM, "construction: cannot allocate the CSR (%lld local vertices)",
                      (long long)b->nl);
    rc = g5_agree(comm, st);
    if (rc == G5_OK)
        rc = g5_error(G5_ERR_NOMEM, "construction: cannot allocate the exchange buffers");
    return rc;
}

/* Collective: build from src (count edges on this rank, chunk per round,
 * 2^rows_log rows per block or the default when < 0). */
static int build_graph(MPI_Comm comm, const kern_dist *d, src *sr, int64_t count, int64_t chunk,
                       int rows_log, kern_graph **out)
{
    int P = d->nranks, me = d->rank, S = omp_get_max_threads(), ok = 1, read_rc = G5_OK;
    int rc = G5_OK;
    int64_t nl = d->nlocal[me];
    kc_build b = {.comm = comm, .d = d, .P = P, .me = me, .S = S, .nl = nl, .bad = -1,
               .esize_recv = 4, .w24ok = 1};
    kvec_init(&b.big, sizeof(uint64_t));
    kern_graph *g = calloc(1, sizeof *g);
    *out = NULL;
    if (chunk <= 0) chunk = default_chunk(count, P);
    ok = build_init(&b, g, count, chunk, rows_log);
    int64_t rounds = (count + chunk - 1) / chunk, maxr = 0;
    MPI_Allreduce(&rounds, &maxr, 1, MPI_INT64_T, MPI_MAX, comm);

    double t0 = g5_now(), r0 = sr->read_s, t1, r1, t2, r2, c0 = cpu_now(), rc0 = sr->read_cpu;
    /* pass 1: counts */
    int all = pass(&b, sr, count, chunk, maxr, 0, ok, &read_rc);
    if (read_rc != G5_OK) { rc = read_rc; goto fail; }
    if (all) block_starts(&b);
    {
        /* The 24-bit weight layout when every rank saw only such weights
         * (a failed rank votes yes and stops at the agreement below), so
         * all ranks hold the same layout; then the entries are filled
         * straight into it. */
        int mine[2] = {ok && all, b.w24ok || !(ok && all)}, every[2];
        MPI_Allreduce(mine, every, 2, MPI_INT, MPI_MIN, comm);
        if (!every[0]) goto agree;
        b.w24 = g->w24 = every[1];
        b.wbits = g->w24 ? 24 : 32;
        /* floats leave 32 - pbits row bits: blocks sized for 8-byte
         * records with 24-bit keys are counted again, smaller (the ranks
         * agree, as the pass is collective) */
        int again = !g->w24 && b.rb > 32 - b.pbits;
        MPI_Allreduce(MPI_IN_PLACE, &again, 1, MPI_INT, MPI_MAX, comm);
        if (again) {
            int rb = b.rb > 32 - b.pbits ? 32 - b.pbits : b.rb;
            if (!set_blocks(&b, rb)) ok = 0, b.nomem = 1;
            b.hash[0] = 0;
            all = pass(&b, sr, count, chunk, maxr, 0, ok, &read_rc);
            if (read_rc != G5_OK) { rc = read_rc; goto fail; }
            if (!all) goto agree;
            block_starts(&b);
        }
        /* the bytes of pass 2's record, and at least the merged one's:
         * a 4-byte column and the weight key */
        b.rs = (b.pbits + b.wbits + b.rb + 7) / 8;
        if (b.rs < 4 + b.wbits / 8) b.rs = 4 + b.wbits / 8;
        b.pk = pk_alloc(&b, (size_t)b.rs * (size_t)b.nraw + 8);
        g->dup = kc_big_malloc((size_t)nl + 1);
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
        free(b.cur);
        b.cur = NULL;
    }
    t2 = g5_now(); r2 = sr->read_s;
    int odd = 0;   /* float layout, and a kept weight here is not k * 2^-24 */
    if (all && ok) ok = merge_into(&b, g, &odd);
    free(b.bptr);
    b.bptr = NULL;
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
            kc_floats_to_w3(g);
            g->build_time[2] += g5_now() - t3;
        }
    }
    g->comm = comm; g->rank = me; g->nranks = P; g->dist = d; g->nlocal = nl;
    g->base = d->base[me];
    free(b.scnt);
    *out = g;
    return G5_OK;

agree:
    rc = failure_status(&b, comm);
fail:
    free(b.pid); free(b.scnt); free(b.sendbuf); free(b.recv); pk_free(&b); free(b.bptr); free(b.cur);
    kvec_free(&b.big);
    kern_graph_free(&g);
    return rc;
}

int kern_graph_build_ex(MPI_Comm comm, const kern_dist *d, const int64_t *edges,
                        const float *weights, int64_t count, int64_t chunk, int rows_log,
                        kern_graph **out)
{
    src s = {.edges = edges, .weights = weights};
    return build_graph(comm, d, &s, count, chunk, rows_log, out);
}

int kern_graph_build(MPI_Comm comm, const kern_dist *d, const int64_t *edges,
                     const float *weights, int64_t count, kern_graph **out)
{
    return kern_graph_build_ex(comm, d, edges, weights, count, 0, -1, out);
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
    if (rc == G5_OK) rc = build_graph(comm, d, &s, count, chunk, -1, out);
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

void kern_graph_release(kern_graph *g)
{
    free(g->rowptr); free(g->col); free(g->w); free(g->w3); free(g->dup); free(g->dup_big);
    g->rowptr = NULL; g->col = NULL; g->w = NULL; g->w3 = NULL; g->dup = NULL; g->dup_big = NULL;
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
