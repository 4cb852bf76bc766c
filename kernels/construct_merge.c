/* SPDX-License-Identifier: MIT */
/*
 * construct_merge.c - kernel 1's last phase (construct.c has the passes):
 * the per-block merge of pass 2's records into rows, the split of the
 * records into the graph's col and weight arrays, and the duplicate counts.
 *
 *   Merge, block by block inside the caches: a counting sort by (row, top
 *   bits of the weight), each bucket of about two keys sorted, gives every
 *   row in (weight, column) order, the order kernel 3 wants; a repeated
 *   column is a duplicate with a larger or equal weight and is dropped
 *   (shortest paths unchanged). The number merged away is kept in dup (one
 *   byte per row, an escape table for 255 and more), so the raw degree
 *   behind the TEPS count (kern_reached_edges) costs 1 byte per vertex. The
 *   kept records are copied into col and w3 (or w) from the last block
 *   down; the pages of copied records move under the next parts of col and
 *   w3 (mremap), so the graph's arrays do not fault in fresh zeroed pages..
 */
#include "kern_impl.h"

#include <omp.h>
#include <sys/mman.h>

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

/* After the merge: record i's weight key (k or float bits) and column. */
static inline uint32_t wkey_at(const kc_build *b, int64_t i)
{
    uint32_t u;
    memcpy(&u, b->pk + (size_t)b->rs * i + 4, 4);   /* the padding covers the last */
    return b->wbits == 24 ? u & 0xFFFFFFu : u;
}
static inline uint32_t col_at(const kc_build *b, int64_t i)
{
    uint32_t c;
    memcpy(&c, b->pk + (size_t)b->rs * i, 4);
    return c;
}
static inline void rec_put(kc_build *b, int64_t i, uint32_t c, uint32_t k)
{
    uint8_t *q = b->pk + (size_t)b->rs * i;
    memcpy(q, &c, 4);
    if (b->rs == 7) rec_put3(q + 4, k);
    else memcpy(q + 4, &k, 4);
}
/* Per-thread scratch of the merge (grown on demand): a block's keys in
 * (row, weight bucket) order, the bucket bounds, per row of a block its
 * first bucket and bucket bits, the slots of a row_set, and the rows of
 * 255 or more merged duplicates. */
typedef struct merge_ws {
    uint64_t *sc;
    int64_t *bc, *rcnt, *boff;
    uint8_t *lb;
    size_t sccap, bccap, setcap;
    uint32_t *set;
    kvec big;
} merge_ws;

/* Make *p hold at least n elements of `size` bytes (capacity in *cap); 0
 * when the allocation fails. */
static int ws_grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap) return 1;
    size_t c = n + n / 2;
    void *q = realloc(*p, c * size);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* Pass 2's record i: the rs little-endian bytes as one integer. */
static inline uint64_t rec_get(const kc_build *b, int64_t i)
{
    uint64_t x;
    memcpy(&x, b->pk + (size_t)b->rs * i, 8);   /* the padding covers the last */
    return b->rs == 8 ? x : x & 0xFFFFFFFFFFFFFFull;
}

/* Insertion sort of a row already in bucket order (every key a few places
 * from its own), giving up once the keys moved more than a few places each
 * on average (weights bunched into few buckets): 0 then, the keys still
 * the same multiset, for a quicksort to finish. */
static inline int insertion_bounded(uint64_t *a, int64_t n)
{
    int64_t budget = 4 * n + 32;
    uint64_t prev = n > 0 ? a[0] : 0;
    for (int64_t i = 1; i < n; i++) {
        /* branch-free: the key and its left neighbour in order; only a key
         * below its two left neighbours (a bucket of three or more) walks
         * further left */
        uint64_t x = a[i], lo = x < prev ? x : prev, hi = x < prev ? prev : x;
        int64_t j = i - 1;
        a[i] = hi;
        prev = hi;
        if (j > 0 && lo < a[j - 1]) {
            do { a[j] = a[j - 1]; j--; } while (j > 0 && a[j - 1] > lo);
            budget -= i - 1 - j;
            if (budget < 0) { a[j] = lo; return 0; }
        }
        a[j] = lo;
    }
    return 1;
}

/* The columns seen so far in one row, for the duplicate test: open
 * addressing over 2^lg slots, at least four per entry of the row, each
 * holding column + 1 (0: empty; pids are below 2^32 - 1). Its memory
 * follows the longest row and most rows' sets stay in L1; a bitmap of the
 * pid space per thread, the other way, takes S N / 8 bytes per rank (S P /
 * 2048 times the graph at edgefactor 16, with S P threads in all) and
 * misses L1 at every SCALE. */
typedef struct row_set {
    uint32_t *slot;
    uint32_t mask;
    int shift;
} row_set;

/* An empty set for a row of n entries in ws; 0 when it cannot grow. */
static int row_set_clear(merge_ws *ws, int64_t n, row_set *set)
{
    int lg = 4;
    while (((int64_t)1 << lg) < 4 * n) lg++;
    if (!ws_grow((void **)&ws->set, &ws->setcap, (size_t)1 << lg, sizeof(uint32_t))) return 0;
    memset(ws->set, 0, sizeof(uint32_t) << lg);
    *set = (row_set){.slot = ws->set, .mask = (uint32_t)(((uint64_t)1 << lg) - 1), .shift = 32 - lg};
    return 1;
}

/* Add column c; 1 when it was not in the set. */
static inline uint64_t row_set_add(row_set set, uint32_t c)
{
    uint32_t h = (c * 0x9E3779B1u) >> set.shift;
    for (;;) {
        uint32_t t = set.slot[h];
        if (t == c + 1) return 0;
        if (t == 0) { set.slot[h] = c + 1; return 1; }
        h = (h + 1) & set.mask;
    }
}

/* Store key x (weight key << 32 | column) as record k of the block's n at
 * q; the next record's index: k + fresh. */
static inline int64_t keep(kc_build *b, uint8_t *q, int64_t n, int64_t e0, int64_t k, uint64_t x,
                           uint64_t fresh)
{
    uint64_t y = (uint32_t)x | (x >> 32) << 32;
    if (k + 1 < n) memcpy(q + (size_t)b->rs * k, &y, 8);
    else rec_put(b, e0 + k, (uint32_t)x, (uint32_t)(x >> 32));
    return k + (int64_t)fresh;
}

/* Merge block blk. Its records (in pass 2's arrival order) are sorted by
 * (row, weight, column) inside the caches (a block is ~2^10 rows): a
 * counting pass per row; a counting pass per (row, weight bucket), row r of
 * m entries taking 2^lb buckets (the top lb bits of the weight key, 2^lb
 * about m / 2); a scatter of the keys (weight key << 32 | column) into
 * ws->sc; then each row, its buckets about two keys each, by an insertion
 * sort (bounded: a quicksort finishes a row whose weights bunch). Walking a
 * row in that order, a key whose column came earlier is dropped (the first, smallest
 * weight, stays: the entry a sort by column would keep). The kept entries
 * are written back as (column, weight key) records to the front of the
 * block's stretch; rowptr[v + 1] gets row v's kept length and dup[v] its
 * merged count (255 and more also into ws->big). Returns the block's kept
 * entries, -1 when scratch cannot grow. */
static int64_t merge_block(kc_build *b, int64_t blk, merge_ws *ws)
{
    const int64_t e0 = b->bptr[blk], n = b->bptr[blk + 1] - e0, v0 = blk << b->rb;
    const int64_t nr = b->nl - v0 < ((int64_t)1 << b->rb) ? b->nl - v0 : (int64_t)1 << b->rb;
    const int pbits = b->pbits, wbits = b->wbits, sh = pbits + wbits;
    const uint64_t cmask = ((uint64_t)1 << pbits) - 1, wmask = ((uint64_t)1 << wbits) - 1,
                   rmask = ((uint64_t)1 << b->rb) - 1;
    if (!ws_grow((void **)&ws->sc, &ws->sccap, (size_t)n + 1, sizeof(uint64_t)) ||
        !ws_grow((void **)&ws->bc, &ws->bccap, (size_t)(n + nr) + 2, sizeof(int64_t)))
        return -1;
    int64_t *rc = ws->rcnt, *boff = ws->boff, *bc = ws->bc;
    uint8_t *lb = ws->lb;
    uint64_t *sc = ws->sc;
    memset(rc, 0, ((size_t)nr + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        __builtin_prefetch(b->pk + (size_t)b->rs * (e0 + i) + 1024);
        rc[rec_get(b, e0 + i) >> sh & rmask]++;
    }
    int64_t nbk = 0;
    for (int64_t r = 0; r < nr; r++) {
        int l = 0;
        while (l < 20 && l < wbits && ((int64_t)2 << l) < rc[r]) l++;
        lb[r] = (uint8_t)(wbits - l);        /* the shift that leaves l bits */
        boff[r] = nbk;
        nbk += (int64_t)1 << l;
    }
    boff[nr] = nbk;
    memset(bc, 0, ((size_t)nbk + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = rec_get(b, e0 + i), r = x >> sh & rmask;
        bc[boff[r] + (int64_t)((x >> pbits & wmask) >> lb[r]) + 1]++;
    }
    for (int64_t j = 0; j < nbk; j++) bc[j + 1] += bc[j];
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = rec_get(b, e0 + i), r = x >> sh & rmask, w = x >> pbits & wmask;
        sc[bc[boff[r] + (int64_t)(w >> lb[r])]++] = w << 32 | (x & cmask);
    }
    /* bc[j] is now the end of bucket j */
    uint8_t *q = b->pk + (size_t)b->rs * e0;
    int64_t k = 0, s = 0;
    for (int64_t r = 0; r < nr; r++) {
        const int64_t k0 = k, s0 = s;
        s += rc[r];
        if (!insertion_bounded(sc + s0, s - s0)) kern_sort_u64(sc + s0, s - s0);
        /* every key is stored at k, which moves past it only when its
         * column is new; one 8-byte store per record (its 8th byte lands on
         * the next record, rewritten later, or within the block's stretch:
         * its records are all in sc by now), except where the block's
         * stretch ends */
        row_set set;
        if (!row_set_clear(ws, s - s0, &set)) return -1;
        for (int64_t i = s0; i < s; i++)
            k = keep(b, q, n, e0, k, sc[i], row_set_add(set, (uint32_t)sc[i]));
        const int64_t gone = (s - s0) - (k - k0), v = v0 + r;
        b->dup[v] = (uint8_t)(gone < 255 ? gone : 255);
        if (gone >= 255) {
            uint64_t *e = kvec_push(&ws->big);
            if (e) *e = (uint64_t)v << 32 | (uint64_t)gone;
        }
        b->rowptr[v + 1] = k - k0;
    }
    return k;
}

/* Release the pages of [p, p + bytes) that lie wholly inside it. */
static void release_pages(void *p, size_t bytes)
{
    const uintptr_t pg = 4096;
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), z = ((uintptr_t)p + bytes) & ~(pg - 1);
    if (z > a) madvise((void *)a, z - a, MADV_DONTNEED);
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

/* Merge every block (merge_block), threads taking blocks dynamically;
 * then kept[blk] becomes the block's first kept entry in the graph and
 * rowptr the kept layout. kept: out, [nb + 1]. The escape table big is
 * sorted by row. Returns nnz, -1 when a scratch allocation failed. */
int64_t kc_merge_rows(kc_build *b, int64_t *kept)
{
    const int64_t nb = b->nb;
    int fail = 0;
    /* about 2^10 rows per scheduling chunk, whatever the block size */
    const int64_t per = b->rb < 10 ? (int64_t)1 << (10 - b->rb) : 1;
#pragma omp parallel reduction(| : fail)
    {
        size_t rows = ((size_t)1 << b->rb) + 1;
        merge_ws ws = {.rcnt = malloc(rows * sizeof(int64_t)), .boff = malloc(rows * sizeof(int64_t)),
                       .lb = malloc(rows)};
        kvec_init(&ws.big, sizeof(uint64_t));
        if (!ws.rcnt || !ws.boff || !ws.lb) fail = 1;
        int mine = !fail;
#pragma omp for schedule(dynamic)
        for (int64_t c = 0; c < (nb + per - 1) / per; c++) {
            for (int64_t blk = c * per; mine && blk < nb && blk < (c + 1) * per; blk++) {
                int64_t k = merge_block(b, blk, &ws);
                if (k < 0) mine = 0;
                kept[blk] = k;
            }
        }
        if (!mine || ws.big.fail) fail = 1;
#pragma omp critical(kern_construct_dup_big)
        if (ws.big.n && kvec_reserve(&b->big, b->big.n + ws.big.n)) {
            memcpy(b->big.p + b->big.n * sizeof(uint64_t), ws.big.p, ws.big.n * sizeof(uint64_t));
            b->big.n += ws.big.n;
        }
        kvec_free(&ws.big);
        free(ws.sc); free(ws.bc); free(ws.rcnt); free(ws.boff); free(ws.lb); free(ws.set);
    }
    if (fail || b->big.fail) return -1;
    kern_sort_u64((uint64_t *)b->big.p, (int64_t)b->big.n);
    int64_t nnz = 0;
    for (int64_t blk = 0; blk < nb; blk++) {
        int64_t k = kept[blk];
        kept[blk] = nnz;
        nnz += k;
    }
    kept[nb] = nnz;
    int64_t *rowptr = b->rowptr;
    rowptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t blk = 0; blk < nb; blk++) {
        int64_t v0 = blk << b->rb, v1 = v0 + ((int64_t)1 << b->rb), o = kept[blk];
        if (v1 > b->nl) v1 = b->nl;
        for (int64_t v = v0; v < v1; v++) {
            o += rowptr[v + 1];
            rowptr[v + 1] = o;
        }
    }
    return nnz;
}

/* Page donation: the pages of pk that split has copied move (mremap: no
 * copy, no zeroing) under the parts of col and w3 (or w) it writes next, so
 * the graph's arrays take over the records' memory instead of faulting in
 * fresh pages, which the kernel zeroes first (on a virtual machine that costs
 * as much as writing them twice). Units are KERN_UNIT bytes, aligned (a huge
 * page moves whole); a destination unit must lie wholly inside its array.
 * Where mremap fails, or no dead unit is left, the destination faults in as
 * usual: the result never depends on it. */
#define KERN_UNIT ((uintptr_t)2 << 20)
typedef struct donor {
    uintptr_t *pool;        /* dead, still mapped units of pk */
    int64_t npool;
    uintptr_t pk_lo;        /* first unit wholly inside pk */
    uintptr_t pooled;       /* units of pk >= pooled are in the pool (or moved) */
    uint8_t *dead;          /* without a pool: pk from here up is released */
    uintptr_t lo[2], next[2];   /* per array: first unit inside; units >= next handled */
} donor;

static void donor_init(donor *dn, uint8_t *pk, size_t pk_bytes, void *const arr[2], const size_t bytes[2])
{
    dn->pool = malloc((pk_bytes / KERN_UNIT + 2) * sizeof(uintptr_t));
    dn->npool = 0;
    dn->pk_lo = ((uintptr_t)pk + KERN_UNIT - 1) & ~(KERN_UNIT - 1);
    dn->pooled = ((uintptr_t)pk + pk_bytes) & ~(KERN_UNIT - 1);
    if (dn->pooled < dn->pk_lo) dn->pooled = dn->pk_lo;
    dn->dead = pk + pk_bytes;
    for (int d = 0; d < 2; d++) {
        uintptr_t a = (uintptr_t)arr[d], z = a + bytes[d];
        dn->lo[d] = (a + KERN_UNIT - 1) & ~(KERN_UNIT - 1);
        dn->next[d] = z & ~(KERN_UNIT - 1);
        if (!arr[d] || dn->next[d] < dn->lo[d]) dn->lo[d] = dn->next[d] = 0;
    }
}

/* Back the units of array d from the one holding byte address a up to
 * those already handled. */
static void donor_give(donor *dn, int d, uintptr_t a)
{
    uintptr_t u = a & ~(KERN_UNIT - 1);
    if (u < dn->lo[d]) u = dn->lo[d];
    while (dn->next[d] > u) {
        dn->next[d] -= KERN_UNIT;
#ifdef MREMAP_FIXED
        if (dn->pool && dn->npool > 0 &&
            mremap((void *)dn->pool[dn->npool - 1], KERN_UNIT, KERN_UNIT, MREMAP_MAYMOVE | MREMAP_FIXED,
                   (void *)dn->next[d]) != MAP_FAILED)
            dn->npool--;
#endif
    }
}

/* Every byte of pk from p up is dead: its whole units not yet in the pool
 * go there. */
static void donor_take(donor *dn, uint8_t *p)
{
    if (!dn->pool) {
        release_pages(p, (size_t)(dn->dead - p));
        dn->dead = p;
        return;
    }
    uintptr_t a = ((uintptr_t)p + KERN_UNIT - 1) & ~(KERN_UNIT - 1);
    if (a < dn->pk_lo) a = dn->pk_lo;
    while (dn->pooled > a) {
        dn->pooled -= KERN_UNIT;
        dn->pool[dn->npool++] = dn->pooled;
    }
}

/* Copy the merged records (the front kept[blk + 1] - kept[blk] of each
 * block's stretch) into the graph's col and weights at kept[blk], in
 * groups of blocks from the end; each group's pages of pk are then dead and
 * back the next groups' part of col and weights (donor), so the resident
 * memory stays at about one record per entry (the pages of merged-away
 * records wait in the pool until pk is unmapped). */
/* Entries per group: the first (top) group's destination faults in fresh
 * pages, each later one takes the pages the groups above it freed. */
#define KERN_SPLIT_FIRST ((int64_t)1 << 18)
#define KERN_SPLIT_BLOCK ((int64_t)1 << 20)
int kc_split(kc_build *b, kern_graph *g, const int64_t *kept)
{
    int64_t n = g->nnz;
    const int64_t *bptr = b->bptr;
    const size_t wsz = g->w24 ? 3 : 4;
    g->col = kc_big_malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (g->w24) g->w3 = kc_big_malloc((size_t)n * 3 + 8);   /* 8 padding bytes: sssp_w8 loads 32 */
    else g->w = kc_big_malloc(((size_t)n + 2) * sizeof(float));  /* + 8 bytes: floats_to_w3 */
    if (!g->col || !(g->w3 || g->w)) return G5_ERR_NOMEM;
    uint32_t *col = g->col;
    uint8_t *w3 = g->w3;
    float *w = g->w;
    uint8_t *wb = w3 ? w3 : (uint8_t *)w;
    donor dn;
    void *const arr[2] = {col, wb};
    const size_t bytes[2] = {((size_t)n + 1) * sizeof(uint32_t), (size_t)n * wsz + 8};
    donor_init(&dn, b->pk, b->pkbytes, arr, bytes);
    for (int64_t hi = b->nb, group = KERN_SPLIT_FIRST; hi > 0; group = KERN_SPLIT_BLOCK) {
        int64_t lo = hi - 1;
        while (lo > 0 && bptr[hi] - bptr[lo - 1] <= group) lo--;
        donor_give(&dn, 0, (uintptr_t)(col + kept[lo]));
        donor_give(&dn, 1, (uintptr_t)(wb + wsz * (size_t)kept[lo]));
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t blk = lo; blk < hi; blk++) {
            int64_t s = bptr[blk], o = kept[blk], m = kept[blk + 1] - o;
            if (w3) {
                /* one 8-byte load per record, one 4-byte store per weight
                 * (its 4th byte is the next weight's, rewritten next) but
                 * the block's last */
                for (int64_t i = 0; i + 1 < m; i++) {
                    uint64_t x = rec_get(b, s + i);
                    uint32_t k = (uint32_t)(x >> 32);
                    col[o + i] = (uint32_t)x;
                    memcpy(w3 + 3 * (o + i), &k, 4);
                }
                if (m > 0) {
                    col[o + m - 1] = col_at(b, s + m - 1);
                    w3_put(w3, o + m - 1, wkey_at(b, s + m - 1));
                }
            } else {
                for (int64_t i = 0; i < m; i++) {
                    col[o + i] = col_at(b, s + i);
                    uint32_t k = wkey_at(b, s + i);
                    memcpy(&w[o + i], &k, 4);
                }
            }
        }
        donor_take(&dn, b->pk + (size_t)b->rs * bptr[lo]);
        hi = lo;
    }
    free(dn.pool);
    col[n] = 0;
    memset(wb + wsz * (size_t)n, 0, 8);
    return G5_OK;
}

/* 1 when every weight of the float layout's w[0, n) is k * 2^-24. */
int kc_all_w24(const float *w, int64_t n)
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
void kc_floats_to_w3(kern_graph *g)
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
