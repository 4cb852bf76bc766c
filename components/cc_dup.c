/* SPDX-License-Identifier: MIT */
/*
 * cc_dup.c - the duplicate count: distinct unordered non-self-loop pairs
 * over the union of every rank's slab, exactly, in about 4-7 bytes per
 * tuple.
 *
 * A tuple (u, v) is keyed by its unordered pair, key = min(u,v) * n +
 * max(u,v) < n^2, K = 2 ceil(log2 n) bits, and hashed once, h = a
 * bijective mix of K-bit words (distinct h are distinct pairs). The top
 * C = 8 bits of h (more beyond 32 ranks) are its class; class c belongs
 * to rank floor(c P / 2^C), so equal pairs meet on one rank and every
 * rank receives about M/P whatever the graph's skew. Only the low W = K
 * - C bits are stored, in records of max(4, ceil(W / 8)) bytes: 4 up to
 * SCALE 20, 5 up to 24, 6 up to 28, 7 up to n = 2^32 (within a class,
 * distinct records <=> distinct pairs, so the count is exact).
 *
 * Pass 1, piece by piece as the slab streams by (cc_dup_add): each
 * record goes into the region of its class and thread (256 write
 * streams), regions sized for evenly spread hashes plus a slack; when one
 * overflows (pairs not spread, e.g. one pair repeated), the finish places
 * the whole slab again by an exact two-pass counting scatter. On several
 * ranks each owner's classes are packed and sent (MPI_Alltoallv in
 * records; a rank's own classes stay in place), so an owner's receive
 * buffer is already bucketed. Pass 2 (the bucket pass): each class is
 * scattered again, in cache, into sub-buckets of about 2048 values, and
 * each sub-bucket's distinct values are counted with a linear-probing
 * hash set that stays in L1. The big buffers sit on huge pages.
 */
#include "cc_internal.h"
#include "common.h"

#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef cc_dup_seg dup_seg;

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cc_dup.c packs the duplicate count's records little-endian"
#endif

/* 2^8 classes per scatter pass: one write stream per class; more streams
 * than the TLB holds pages (thousands of 4 KiB pages far apart) would
 * make the scatter the bulk of the count. Each class is scattered again,
 * inside the cache, into sub-buckets (cc_dup_bucket.c). */
#define SCATTER_BITS 8
/* Bytes per stored record at least (a 4-byte store; 5 to 7 bytes are
 * stored as 8 overlapping the next record, see place_row). */
#define MIN_REC 4
/* Buffers of at least this size are aligned to it and marked for huge
 * pages (THP in madvise mode): a first touch then faults one 2 MiB page
 * instead of 512 small ones (the regions are fresh memory written at
 * random). */
#define HUGE_PAGE ((size_t)2 << 20)

/* ---- the encoding ---------------------------------------------------------
 * The pair key min(u,v) * n + max(u,v) < n^2 has K = 2 ceil(log2 n) bits
 * (40 at SCALE 20). h = mix(key) is a bijection of K-bit words (xorshift
 * right, multiply by an odd constant mod 2^K, xorshift, multiply,
 * xorshift: each step invertible), so equal pairs give equal h and
 * distinct h are distinct pairs. The class of h is its top C bits (C = 8,
 * more on more than 32 ranks: 2^C >= 8 P); owner rank of class c =
 * floor(c P / 2^C), so owner o holds the classes [cfirst(o), cfirst(o+1))
 * and every rank receives about M / P of the tuples (within one class in
 * 2^C / P: 1.2% at P = 3) whatever the graph's skew. Only the low W = K -
 * C bits of h are stored (the class is where a record lies): B =
 * max(4, ceil(W / 8)) bytes, little-endian, records packed at B bytes. In
 * one class, distinct stored values <=> distinct h <=> distinct pairs, so
 * the count stays exact. B = 4 up to SCALE 20, 5 up to 24, 6 up to 28. */
typedef struct dup_code {
    uint64_t n, kmask, wmask;
    int p, kbits, cbits, wbits, rec;
    int s1, s2, s3;  /* the xorshifts */
} dup_code;

static void code_init(dup_code *k, uint64_t n, int p)
{
    int l = 0, pl = 0;
    while (l < 32 && (UINT64_C(1) << l) < n)
        l++;
    while ((1LL << pl) < p)
        pl++;
    k->n = n;
    k->p = p;
    k->kbits = 2 * l > 2 ? 2 * l : 2;
    k->cbits = pl + 3 > SCATTER_BITS ? pl + 3 : SCATTER_BITS;
    if (k->cbits > k->kbits - 1)
        k->cbits = k->kbits - 1;  /* tiny n: at least one stored bit */
    k->wbits = k->kbits - k->cbits;
    k->rec = (k->wbits + 7) / 8 > MIN_REC ? (k->wbits + 7) / 8 : MIN_REC;
    k->kmask = k->kbits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << k->kbits) - 1;
    k->wmask = (UINT64_C(1) << k->wbits) - 1;
    k->s1 = (k->kbits + 1) / 2;
    k->s2 = (k->kbits * 27 + 63) / 64;
    k->s3 = (k->kbits + 1) / 2;
}

static inline uint64_t pair_hash(const dup_code *k, uint64_t u, uint64_t v)
{
    /* min and max without a branch (a branch on u < v mispredicts on
     * half the tuples of a shuffled list) */
    const uint64_t lo = u < v ? u : v;
    uint64_t x = lo * k->n + (u ^ v ^ lo);
    x ^= x >> k->s1;
    x = (x * 0xbf58476d1ce4e5b9ULL) & k->kmask;
    x ^= x >> k->s2;
    x = (x * 0x94d049bb133111ebULL) & k->kmask;
    x ^= x >> k->s3;
    return x;
}

/* First class of owner o (o = p: the number of classes). */
static inline int cfirst(const dup_code *k, int o)
{
    return (int)((((int64_t)o << k->cbits) + k->p - 1) / k->p);
}

/* A record: the low rec bytes of v at p. The exact store writes rec bytes
 * only; the fast one (rec > 4) writes 8, the bytes past rec landing in
 * the next record or a region's pad record, overwritten later. A load
 * reads 8 bytes: every buffer of records has 8 readable bytes past its
 * last record. */
static inline void rec_store_exact(unsigned char *p, uint64_t v, int rec)
{
    switch (rec) {
    case 4: memcpy(p, &v, 4); break;
    case 5: memcpy(p, &v, 5); break;
    case 6: memcpy(p, &v, 6); break;
    case 7: memcpy(p, &v, 7); break;
    default: memcpy(p, &v, 8); break;
    }
}

static inline __attribute__((always_inline)) void rec_store(unsigned char *p, uint64_t v, int rec)
{
    if (rec == 4)
        memcpy(p, &v, 4);
    else
        memcpy(p, &v, 8);
}


/* A large buffer on huge pages when it spans one (freed with free());
 * NULL with the error recorded when out of memory. */
static void *huge_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    if (bytes < HUGE_PAGE)
        return g5_malloc(bytes, what);
    bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0) {
        g5_error(G5_ERR_NOMEM, "%s: cannot allocate %zu bytes", what, bytes);
        return NULL;
    }
    (void)madvise(p, bytes, MADV_HUGEPAGE);  /* advice only: small pages work too */
    return p;
}


/* ---- the first pass: regions ---------------------------------------------
 * The classes of h are even (the top bits of a bijective mix), so each row
 * (a thread's share of the tuples) places about its tuples / nb records in
 * each class: each (class, row) pair gets a region of that size plus a
 * slack (1/64 of it + 1024: 8 standard deviations at 2^18 values a
 * region, more below and above, and room for the heaviest repeated pair of
 * a Graph500 list; less for tiny inputs; on huge pages the whole slack is
 * resident, 1/64 keeps it below 2% of the regions) and one pad record
 * (for the 8-byte store of its last record), filled in one pass. Regions
 * lie class by class, so a class's records are nt segments next to each
 * other, and an owner's classes are next to each other: fill[t * nb + c]
 * records from record (c * nt + t) * stride. When a region overflows (a
 * list whose pairs are not spread, e.g. one pair repeated) the slab is
 * placed again by the exact two-pass counting scatter (exact_scatter)
 * into the same buffer.
 */
typedef struct dup_regions {
    dup_code k;
    int nb, nt;           /* classes; rows */
    int threads;          /* of the exact scatter and the bucket pass */
    int64_t cap, stride;  /* records a region holds; from one region to the next */
    int64_t *fill;        /* [nt][nb] */
    unsigned char *buf;   /* nb * nt * stride records + 8 bytes */
} dup_regions;

static int64_t region_cap(int64_t len, int nb, int nt)
{
    const int64_t per = (len + (int64_t)nb * nt - 1) / ((int64_t)nb * nt);
    return per + per / 64 + (per + 64 < 1024 ? per + 64 : 1024);
}

static void regions_free(dup_regions *r)
{
    free(r->fill);
    free(r->buf);
    r->fill = NULL;
    r->buf = NULL;
}

/* Regions for count tuples of one rank among p, nt rows, the finish on
 * threads threads. */
static int regions_init(dup_regions *r, int p, uint64_t n, int64_t count, int nt, int threads)
{
    memset(r, 0, sizeof *r);
    code_init(&r->k, n, p);
    r->nt = nt;
    r->threads = threads;
    r->nb = 1 << r->k.cbits;
    r->cap = region_cap(count, r->nb, nt);
    r->stride = r->cap + 1;
    r->fill = g5_calloc((size_t)nt * (size_t)r->nb, sizeof *r->fill, "duplicate count: region fills");
    r->buf = r->fill ? huge_alloc((size_t)r->nb * (size_t)nt * (size_t)r->stride * (size_t)r->k.rec + 8,
                                  "duplicate count: buckets")
                     : NULL;
    if (!r->buf) {
        regions_free(r);
        return G5_ERR_NOMEM;
    }
    return G5_OK;
}

/* Record i of the buffer. */
static inline unsigned char *rec_at(const dup_regions *r, int64_t i)
{
    return r->buf + (size_t)i * (size_t)r->k.rec;
}

/* First record of row t's segment of class c (fill records from there). */
static inline int64_t seg_first(const dup_regions *r, int c, int t)
{
    return ((int64_t)c * r->nt + t) * r->stride;
}

/* Where a region is written: the next byte and the end. */
typedef struct slot_span {
    unsigned char *next, *end;
} slot_span;

/* place_row for records of rec bytes (a constant where inlined). */
static inline __attribute__((always_inline)) int place_row_rec(dup_regions *r, int t, const int64_t *edges,
                                                               int64_t lo, int64_t hi, const int rec)
{
    int64_t *restrict f = r->fill + (size_t)t * (size_t)r->nb;
    const dup_code k = r->k;
    const int nb = r->nb, wbits = k.wbits;
    const size_t cstride = (size_t)r->nt * (size_t)r->stride;  /* records from class c to c + 1 */
    unsigned char *o = rec_at(r, (int64_t)t * r->stride);
    int overflow = 0;
    slot_span *restrict q = malloc((size_t)nb * sizeof *q);

    if (!q)
        return 1;  /* the finish takes the exact path */
    for (int c = 0; c < nb; c++) {
        q[c].next = o + ((size_t)c * cstride + (size_t)f[c]) * rec;
        q[c].end = o + ((size_t)c * cstride + (size_t)r->cap) * rec;
    }
    for (int64_t i = lo; i < hi; i++) {
        const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
        if (u == v)
            continue;
        const uint64_t h = pair_hash(&k, u, v);
        slot_span *qc = q + (h >> wbits);
        if (qc->next == qc->end) {
            overflow = 1;
            break;
        }
        rec_store(qc->next, h, rec);
        qc->next += rec;
    }
    for (int c = 0; c < nb; c++)
        f[c] = (q[c].next - (o + (size_t)c * cstride * rec)) / rec;
    free(q);
    return overflow;
}

/* Row t places the non-self-loop tuples of edges[lo, hi). Returns 1 when
 * a region overflowed (the values from there on are not placed; also
 * when out of memory for the spans). One thread per row at a time. Each
 * class's next byte and end are kept as pointers (a store costs a load, a
 * compare and an increment). Stored: the low rec bytes of h; the bits of
 * those bytes above W (the class's low bits, when W is not a multiple of
 * 8) are masked off at the load. */
static int place_row(dup_regions *r, int t, const int64_t *edges, int64_t lo, int64_t hi)
{
    /* one instance per record width (constants inlined) */
    switch (r->k.rec) {
    case 4: return place_row_rec(r, t, edges, lo, hi, 4);
    case 5: return place_row_rec(r, t, edges, lo, hi, 5);
    case 6: return place_row_rec(r, t, edges, lo, hi, 6);
    case 7: return place_row_rec(r, t, edges, lo, hi, 7);
    default: return place_row_rec(r, t, edges, lo, hi, 8);
    }
}

/* edges[len][2] split evenly among the nt rows; by nt threads, or by the
 * calling thread alone inside a parallel region (unless nesting is
 * active) or with one row. Returns 1 when a region overflowed. */
static int place_rows(dup_regions *r, const int64_t *edges, int64_t len)
{
    const int nt = r->nt;
    int overflow = 0;
    if (nt == 1)
        return place_row(r, 0, edges, 0, len);
#pragma omp parallel num_threads(nt) reduction(| : overflow)
    {
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
        /* a smaller team than asked: its rows take the missing rows' parts */
        for (int row = t; row < nt; row += tn)
            overflow |= place_row(r, row, edges, len * row / nt, len * (row + 1) / nt);
    }
    return overflow;
}

/* The exact scatter, in parallel: the buffer = the records of the
 * non-self-loop tuples of edges[len][2] grouped by class, class c from
 * record start[c] (start[nb] = the total), written with exact stores
 * (threads write next to each other). Two passes over the edges (count,
 * then place), both split statically among the threads so each thread
 * places what it counted. */
static int exact_scatter(dup_regions *r, const int64_t *edges, int64_t len, int64_t *start)
{
    const int nb = r->nb, nt = r->threads, wbits = r->k.wbits, rec = r->k.rec;
    const dup_code k = r->k;
    unsigned char *out = r->buf;
    int64_t *cnt = g5_malloc((size_t)nt * (size_t)nb * sizeof *cnt, "duplicate count: scatter counts");
    if (!cnt)
        return G5_ERR_NOMEM;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
        const int64_t lo = len * t / tn, hi = len * (t + 1) / tn;
        int64_t *restrict c = cnt + (size_t)t * (size_t)nb;
        memset(c, 0, (size_t)nb * sizeof *c);
        for (int64_t i = lo; i < hi; i++) {
            const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
            if (u != v)
                c[pair_hash(&k, u, v) >> wbits]++;
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
        for (int64_t i = lo; i < hi; i++) {
            const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
            if (u != v) {
                const uint64_t h = pair_hash(&k, u, v);
                rec_store_exact(out + (size_t)c[h >> wbits]++ * (size_t)rec, h, rec);
            }
        }
    }
    free(cnt);
    return G5_OK;
}

/* ---- the finish: one rank counts, several exchange ---------------------- */

/* This rank's own records of owner o's classes (all of them on one rank),
 * nloc segments per class written from out[(c - cfirst(o)) * stride]: the
 * regions (nloc = nt), or the classes after the exact scatter (nloc = 1,
 * class c from record start[c]). */
static void own_segments(const dup_regions *r, int exact, const int64_t *start, int o, dup_seg *out, int stride)
{
    const int nt = r->nt, c0 = cfirst(&r->k, o), c1 = cfirst(&r->k, o + 1);
    for (int c = c0; c < c1; c++) {
        dup_seg *sg = out + (size_t)(c - c0) * (size_t)stride;
        if (exact) {
            sg[0].v = rec_at(r, start[c]);
            sg[0].len = start[c + 1] - start[c];
            continue;
        }
        for (int t = 0; t < nt; t++) {
            sg[t].v = rec_at(r, seg_first(r, c, t));
            sg[t].len = r->fill[(size_t)t * (size_t)r->nb + (size_t)c];
        }
    }
}

/* The owner exchange on p > 1 ranks. Owner o's records lie packed in the
 * buffer from record send_off[o], class by class (clen[c] records of
 * class c, owner o's classes cfirst(o) .. cfirst(o + 1) - 1); this rank's
 * own classes stay where they are (own_segments) and are not sent. The
 * class lengths, then the records (an MPI type of rec bytes), go to their
 * owners; an owner's receive buffer is then already bucketed (class c of
 * source s is one segment), so it runs the bucket pass on the received
 * segments and its own; *distinct = the sum over ranks. rc: this rank's
 * status so far (agreed here first). Collective. */
static int owner_exchange(MPI_Comm comm, dup_regions *r, int exact, const int64_t *start,
                          const int64_t *send_off, const int64_t *clen, int rc, int64_t *distinct)
{
    const dup_code *k = &r->k;
    const int p = k->p, nloc = exact ? 1 : r->nt, nseg = p - 1 + nloc;
    int rank;
    MPI_Comm_rank(comm, &rank);
    const int my0 = cfirst(k, rank), mine = cfirst(k, rank + 1) - my0;
    int64_t *rlen = calloc((size_t)p * (size_t)mine + 1, sizeof *rlen), nrecv = 0, local = 0;
    /* counts and displacements: records sent, received; lengths sent, received */
    int *cd = calloc((size_t)p * 8, sizeof *cd);
    int *sc = cd, *sd = cd + p, *rc_ = cd + 2 * p, *rd = cd + 3 * p;
    int *lsc = cd + 4 * p, *lsd = cd + 5 * p, *lrc = cd + 6 * p, *lrd = cd + 7 * p;
    unsigned char *recv = NULL;
    dup_seg *seg = NULL;
    MPI_Datatype rt = MPI_DATATYPE_NULL;

    if (rc == G5_OK && (!rlen || !cd))
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
    for (int o = 0; o < p && rc == G5_OK; o++) {
        const int c0 = cfirst(k, o), c1 = cfirst(k, o + 1);
        int64_t len = 0;
        for (int c = c0; c < c1 && o != rank; c++)
            len += clen[c];
        if (send_off[o] > INT_MAX || len > INT_MAX)
            rc = g5_error(G5_ERR_ARG, "duplicate count: too many edges per rank for one exchange; use more ranks");
        sd[o] = (int)send_off[o];
        sc[o] = (int)len;
        lsd[o] = c0;
        lsc[o] = c1 - c0;
        lrd[o] = o * mine;
        lrc[o] = mine;
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Alltoallv(clen, lsc, lsd, MPI_INT64_T, rlen, lrc, lrd, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Alltoallv of the class lengths failed");
    for (int s = 0; s < p && rc == G5_OK; s++) {
        int64_t len = 0;
        for (int b = 0; b < mine && s != rank; b++)
            len += rlen[(size_t)s * (size_t)mine + (size_t)b];
        if (nrecv > INT_MAX || len > INT_MAX)
            rc = g5_error(G5_ERR_ARG, "duplicate count: too many keys for one exchange; use more ranks");
        rd[s] = (int)nrecv;
        rc_[s] = (int)len;
        nrecv += len;
    }
    if (rc == G5_OK) {
        recv = huge_alloc((size_t)nrecv * (size_t)k->rec + 8, "duplicate count: receive buffer");
        seg = malloc(((size_t)mine * (size_t)nseg + 1) * sizeof *seg);
        if (!recv || !seg)
            rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
        else if (MPI_Type_contiguous(k->rec, MPI_BYTE, &rt) != MPI_SUCCESS || MPI_Type_commit(&rt) != MPI_SUCCESS)
            rc = g5_error(G5_ERR_MPI, "duplicate count: cannot make its record type");
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Alltoallv(r->buf, sc, sd, rt, recv, rc_, rd, rt, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Alltoallv failed");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    /* class b: this rank's own segments, then source s's after the
     * source's earlier classes */
    own_segments(r, exact, start, rank, seg, nseg);
    for (int s = 0, j = nloc; s < p; s++) {
        int64_t off = rd[s];
        if (s == rank)
            continue;
        for (int b = 0; b < mine; b++) {
            dup_seg *sg = seg + (size_t)b * (size_t)nseg + (size_t)j;
            sg->v = recv + (size_t)off * (size_t)k->rec;
            sg->len = rlen[(size_t)s * (size_t)mine + (size_t)b];
            off += sg->len;
        }
        j++;
    }
    local = cc_dup_bucket_pass(seg, nseg, mine, k->wbits, k->rec, r->threads);
    if (local < 0)
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Allreduce(&local, distinct, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Allreduce failed");
out:
    rc = g5_agree(comm, rc);
    if (rt != MPI_DATATYPE_NULL)
        MPI_Type_free(&rt);
    free(rlen);
    free(cd);
    free(recv);
    free(seg);
    return rc;
}

/* The finish of every path. r holds this rank's slab placed in regions,
 * unless exact (a region overflowed, or the pieces did not add up to the
 * slab): then the slab edges[count][2] is placed again by the exact
 * scatter. One rank: the bucket pass on the buffer. Several: each other
 * owner's regions are packed class by class from its first region (each
 * region moves left, never past its own start nor into another owner's
 * span) and exchanged; this rank's own regions stay in place (not copied,
 * not sent: at P = 2 half the records). rc: this rank's status so far.
 * Collective when p > 1. */
static int dup_finish(MPI_Comm comm, dup_regions *r, int exact, const int64_t *edges, int64_t count, int rc,
                      int64_t *distinct)
{
    const int nb = r->nb, nt = r->nt, p = r->k.p, rec = r->k.rec;
    int rank;
    int64_t *start = NULL, *clen = NULL, *send_off = NULL, local = -1;
    dup_seg *seg = NULL;

    *distinct = 0;
    if (rc == G5_OK) {
        start = g5_calloc((size_t)nb + 1, sizeof *start, "duplicate count: class starts");
        clen = g5_calloc((size_t)nb, sizeof *clen, "duplicate count: class lengths");
        send_off = g5_calloc((size_t)p, sizeof *send_off, "duplicate count: send offsets");
        rc = start && clen && send_off ? G5_OK : G5_ERR_NOMEM;
    }
    if (rc == G5_OK && exact)
        rc = exact_scatter(r, edges, count, start);
    if (p == 1) {
        if (rc != G5_OK)
            goto out;
        seg = malloc((size_t)nb * (size_t)(exact ? 1 : nt) * sizeof *seg);
        if (seg) {
            own_segments(r, exact, start, 0, seg, exact ? 1 : nt);
            local = cc_dup_bucket_pass(seg, exact ? 1 : nt, nb, r->k.wbits, r->k.rec, r->threads);
        }
        if (local < 0)
            rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
        else
            *distinct = local;
        goto out;
    }
    MPI_Comm_rank(comm, &rank);
    for (int o = 0; o < p && rc == G5_OK; o++) {
        const int c0 = cfirst(&r->k, o), c1 = cfirst(&r->k, o + 1);
        int64_t off = exact ? start[c0] : (int64_t)c0 * nt * r->stride;
        send_off[o] = off;
        for (int c = c0; c < c1 && o != rank; c++) {
            if (exact) {
                clen[c] = start[c + 1] - start[c];
                continue;
            }
            for (int t = 0; t < nt; t++) {
                const int64_t len = r->fill[(size_t)t * (size_t)nb + (size_t)c];
                memmove(rec_at(r, off), rec_at(r, seg_first(r, c, t)), (size_t)len * rec);
                off += len;
                clen[c] += len;
            }
        }
    }
    rc = owner_exchange(comm, r, exact, start, send_off, clen, rc, distinct);
out:
    free(start);
    free(clen);
    free(send_off);
    free(seg);
    return rc;
}

/* ---- the entry points ----------------------------------------------------
 * The regions are sized from the announced tuple count; fill persists
 * across pieces. added and overflow are updated atomically. */
struct cc_dup {
    dup_regions r;
    int64_t count, added;
    int overflow;
};

void cc_dup_free(cc_dup **d)
{
    if (!d || !*d)
        return;
    regions_free(&(*d)->r);
    free(*d);
    *d = NULL;
}

int cc_dup_create(MPI_Comm comm, int64_t n, int64_t count, int nthreads, cc_dup **out)
{
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    cc_dup *d;
    int p;
    *out = NULL;
    MPI_Comm_size(comm, &p);
    d = g5_calloc(1, sizeof *d, "duplicate count");
    if (!d)
        return G5_ERR_NOMEM;
    d->count = count > 0 ? count : 0;
    if (regions_init(&d->r, p, (uint64_t)n, d->count, nt, nt) != G5_OK) {
        free(d);
        return G5_ERR_NOMEM;
    }
    *out = d;
    return G5_OK;
}

void cc_dup_add(cc_dup *d, const int64_t *edges, int64_t len)
{
    /* pieces beyond the announced count mark the regions overflowed: the
     * finish must not take the added count matching the slab for the
     * slab placed */
    const int64_t added = __atomic_add_fetch(&d->added, len, __ATOMIC_RELAXED);
    if (added > d->count)
        __atomic_store_n(&d->overflow, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&d->overflow, __ATOMIC_RELAXED) || len <= 0)
        return;  /* the exact path at the finish will count everything */
    if (place_rows(&d->r, edges, len))
        __atomic_store_n(&d->overflow, 1, __ATOMIC_RELAXED);
}

int cc_dup_finish(MPI_Comm comm, cc_dup *d, const int64_t *edges, int64_t count, int64_t *distinct)
{
    const int exact = cc_dup_needs_slab(d, count);
    if (exact && count > d->count) {
        /* the regions were sized for fewer tuples: make them again */
        int rc;
        const int p = d->r.k.p, nt = d->r.nt, threads = d->r.threads;
        const uint64_t n = d->r.k.n;
        regions_free(&d->r);
        rc = regions_init(&d->r, p, n, count, nt, threads);
        if (rc != G5_OK && p == 1)
            return rc;
        d->count = count;
        return dup_finish(comm, &d->r, 1, edges, count, rc, distinct);
    }
    return dup_finish(comm, &d->r, exact, edges, count, G5_OK, distinct);
}

int cc_dup_needs_slab(const cc_dup *d, int64_t count)
{
    return __atomic_load_n(&d->overflow, __ATOMIC_RELAXED) || d->added != count;
}

int cc_count_distinct(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count, int nthreads,
                      int64_t *distinct)
{
    cc_dup *d = NULL;
    int rc = cc_dup_create(comm, n, count, nthreads, &d);
    int p;
    MPI_Comm_size(comm, &p);
    if (p > 1)
        rc = g5_agree(comm, rc);
    if (rc == G5_OK) {
        cc_dup_add(d, edges, count);
        rc = cc_dup_finish(comm, d, edges, count, distinct);
    }
    cc_dup_free(&d);
    return rc;
}
