/* SPDX-License-Identifier: MIT */
/*
 * cc_link.c - linking edges into the forest: the patent's four cases
 * (link_mark), the giant filter, and the scan path for a forest that
 * already holds sets (the next piece of an edge list read piece by
 * piece); cc_forest_link_edges picks the path per call.
 *
 * Two paths behind one rule, with no option: a whole list (an empty
 * forest, or a call of at least CC_PARALLEL_EDGES x n edges) is linked by
 * all threads (cc_link_parallel.c, after Afforest: M. Sutton, T. Ben-Nun,
 * A. Barak, "Optimizing Parallel Graph Connectivity Computation via
 * Subgraph Sampling", IPDPS 2018), 1.09-1.29x the scan path's speed there
 * at 2 threads (docs/performance.md); a smaller call on a forest with sets takes the
 * scan path, as the parallel path's passes over all n vertices would
 * cost O(n) per piece.
 *
 * The scan path: the edges are filtered against a bitmap of the giant set
 * kept in the forest (both ends marked: dropped on two bit tests, branch-
 * free), then against the root vector (kept when an end is unseen or the
 * roots differ), and the few kept are linked one by one with the four
 * cases, which keep the bitmap equal to the marked set as it grows, so it
 * is built once. The scan runs in blocks taken in chunks by all threads;
 * the links of block b run on thread 0 while the others scan block b + 1
 * (the scan may read roots and bits while they are written: a stale value
 * only keeps an edge for nothing). The giant is elected again (an O(n)
 * pass) only when a block sent more than an eighth of its edges down the
 * slow path (an unshuffled list).
 *
 * The result (the partition) does not depend on the order, so it is the
 * same for any thread count.
 */
#include "cc_internal.h"
#include "common.h"

#include <assert.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Edges per block of the scan path, and per chunk of a block (the unit a
 * thread takes). The pending edges of a block (8 bytes per edge) are
 * linked by one thread while the others scan the next block, so two
 * pending buffers are live: 2 x 16 MiB. The first block is shorter: its
 * links grow the giant, so later blocks keep fewer edges. */
#define CC_FIRST_BLOCK ((int64_t)1 << 20)
#define CC_BLOCK ((int64_t)1 << 21)
#define CC_CHUNK ((int64_t)1 << 16)
/* A call with at least this many edges per vertex takes the parallel path
 * even on a forest that already holds sets: its O(n) passes are then
 * small against the edges. */
#define CC_PARALLEL_EDGES 2
/* Only the linking thread writes the bitmap: load, or, store. */
#define SETBIT(bits, x) ST((bits)[(x) >> 6], LD((bits)[(x) >> 6]) | UINT64_C(1) << ((x) & 63))

/* One edge through the patent's four cases. giant (may be NULL): a bitmap
 * kept equal to the members of the set rooted at *groot, updated for
 * every vertex that joins that set (a joining vertex, a moved list, or,
 * when that set is itself moved into a larger one, the larger one's old
 * members), so it never needs to be rebuilt. */
static inline int link_mark(cc_forest *f, int32_t u, int32_t v, uint64_t *giant, int32_t *groot)
{
    int32_t *restrict root = f->root, *restrict next = f->next;
    int32_t ru, rv, big, small;

    if (u == v)
        return CC_SELF_LOOP;
    ru = root[u];
    rv = root[v];
    if (ru == rv) {
        if (ru >= 0)
            return CC_SAME;
        ST(root[u], u);
        ST(root[v], u);
        next[u] = v;
        next[v] = -1;
        f->size[u] = 2;
        return CC_NEW_SET;
    }
    if (ru < 0 || rv < 0) {
        int32_t r = ru < 0 ? rv : ru, x = ru < 0 ? u : v;
        /* inserted right after the root: no tail to keep */
        ST(root[x], r);
        next[x] = next[r];
        next[r] = x;
        f->size[r]++;
        if (giant && r == *groot)
            SETBIT(giant, x);
        return CC_JOINED;
    }
    if (f->size[ru] >= f->size[rv]) {
        big = ru;
        small = rv;
    } else {
        big = rv;
        small = ru;
    }
    /* the walk that rewrites the moved roots ends at the small list's last
     * member, which is spliced in right after big */
    int32_t last = small;
    if (giant && big == *groot) {
        for (int32_t x = small; x >= 0; x = next[x]) {
            ST(root[x], big);
            SETBIT(giant, x);
            last = x;
        }
    } else {
        for (int32_t x = small; x >= 0; x = next[x]) {
            ST(root[x], big);
            last = x;
        }
        if (giant && small == *groot) {
            /* the marked set moved into a larger one: mark the rest */
            for (int32_t x = big; x >= 0; x = next[x])
                SETBIT(giant, x);
            *groot = big;
        }
    }
    next[last] = next[big];
    next[big] = small;
    f->size[big] += f->size[small];
    return CC_MERGED;
}

/* Every link keeps the forest's giant bitmap (if it has one) up to date,
 * so a later cc_forest_link_edges call can filter with it at once. */
static inline int link_one(cc_forest *f, int32_t u, int32_t v)
{
    return link_mark(f, u, v, f->giant, &f->groot);
}

int cc_forest_link(cc_forest *f, int64_t u, int64_t v)
{
    assert(u >= 0 && u < f->n && v >= 0 && v < f->n);
    f->empty = 0;
    return link_one(f, (int32_t)u, (int32_t)v);
}

int cc_bad_edge(const int64_t *edges, int64_t i, int64_t first_index, int64_t n)
{
    return g5_error(G5_ERR_FORMAT, "edge %lld = (%lld, %lld) has a vertex outside [0, %lld)",
                    (long long)(first_index + i), (long long)edges[2 * i],
                    (long long)edges[2 * i + 1], (long long)n);
}

/* Words of the giant bitmap: a power of two (the filter's prefetches mask
 * ids into it), at least (n + 63) / 64; the words past those stay 0. */
static uint64_t giant_words(uint64_t n)
{
    uint64_t w = 1;
    while (w < (n + 63) / 64)
        w *= 2;
    return w;
}

/* From this many vertices up (a bitmap of 1 MiB, beyond a core's L2) the
 * filter prefetches the bitmap words of the edge CC_FILTER_AHEAD places
 * ahead: the words then come from L3 or memory, and the two loads of each
 * edge, issued in order, would leave that latency exposed. Below, the
 * bitmap stays in L2 and the prefetches would only cost instructions. */
#define CC_FILTER_AHEAD_N ((uint64_t)1 << 23)
#define CC_FILTER_AHEAD 16

/* The bitmap filter of both scans (scan_union, scan_chunk): the edges
 * [lo, hi) of e whose ends are not both marked in giant are written to out
 * (int32 pairs, in order; out has room for hi - lo pairs); returns their
 * number. *bad: the smallest index of an edge with a vertex outside
 * [0, n), if below (such an edge is not written). Branch-free (the test
 * fails for a few percent of the edges, at random: as a branch it cost a
 * misprediction each): every edge is written at out[k] and k advances only
 * when it is kept; the bound test stays a branch, never taken on good
 * input. With an edge tally (loops = 1) self-loops are kept too (then
 * skipped by the links), so that every edge dropped is a non-loop edge of
 * the marked set, which the tally counts in bulk; without one the loop
 * test is left out (it costs time in the hottest loop). The bitmap may be
 * written meanwhile (relaxed loads; a stale word only keeps an edge for
 * nothing). Its speed is that of the two bitmap loads per edge. The
 * variants below are not inlined: inlined into the parallel path's thread
 * function, the loop spills a bitmap word to the stack (register pressure
 * of the enclosing function). */
static inline __attribute__((always_inline)) int64_t filter_loop(const int64_t *e, int64_t lo, int64_t hi,
                                                                 uint64_t n, const uint64_t *giant,
                                                                 int32_t *restrict out, int64_t *bad,
                                                                 const int loops, const int ahead)
{
    int64_t k = 0;
    const uint64_t mask = giant_words(n) - 1;
    for (int64_t j = lo; j < hi; j++) {
        const uint64_t u = (uint64_t)e[2 * j], v = (uint64_t)e[2 * j + 1];
        if (ahead && j + CC_FILTER_AHEAD < hi) {
            /* masked into the bitmap's power-of-two words: an id out of
             * range prefetches some word of it (and fails below) */
            const uint64_t pu = (uint64_t)e[2 * (j + CC_FILTER_AHEAD)], pv = (uint64_t)e[2 * (j + CC_FILTER_AHEAD) + 1];
            __builtin_prefetch(&giant[(pu >> 6) & mask]);
            __builtin_prefetch(&giant[(pv >> 6) & mask]);
        }
        if ((u >= n) | (v >= n)) {
            if (j < *bad)
                *bad = j;
            continue;
        }
        const uint64_t both = (LD(giant[u >> 6]) >> (u & 63)) & (LD(giant[v >> 6]) >> (v & 63));
        out[2 * k] = (int32_t)u;
        out[2 * k + 1] = (int32_t)v;
        if (loops)
            k += (int64_t)(~both & 1) | (u == v);
        else
            k += (int64_t)(~both & 1);
    }
    return k;
}

#define FILTER_VARIANT(name, loops, ahead)                                                                     \
    __attribute__((noinline)) static int64_t name(const int64_t *e, int64_t lo, int64_t hi, uint64_t n,       \
                                                  const uint64_t *giant, int32_t *restrict out, int64_t *bad) \
    {                                                                                                      \
        return filter_loop(e, lo, hi, n, giant, out, bad, loops, ahead);                                    \
    }
FILTER_VARIANT(filter_near, 0, 0)
FILTER_VARIANT(filter_far, 0, 1)
FILTER_VARIANT(filter_near_loops, 1, 0)
FILTER_VARIANT(filter_far_loops, 1, 1)

/* The filter without self-loops (no tally) or with them (a tally), its
 * bitmap in L2 (near) or beyond (far: prefetched). */
int64_t cc_filter_giant(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, const uint64_t *giant,
                        int32_t *restrict out, int64_t *bad, int loops)
{
    if (loops)
        return n >= CC_FILTER_AHEAD_N ? filter_far_loops(e, lo, hi, n, giant, out, bad)
                                      : filter_near_loops(e, lo, hi, n, giant, out, bad);
    return n >= CC_FILTER_AHEAD_N ? filter_far(e, lo, hi, n, giant, out, bad)
                                  : filter_near(e, lo, hi, n, giant, out, bad);
}


/* giant: bit v set when v is in the largest set (ties: the smallest root).
 * Sets only merge, so a set bit stays true however the forest grows: the
 * scan may use it as a one-bit filter, n / 8 bytes that stay in cache where
 * the root vector (4 n bytes) does not. */
static int32_t mark_giant(const cc_forest *f, uint64_t *giant, int nt)
{
    const int64_t n = f->n, words = (n + 63) / 64;
    const int32_t *restrict root = f->root;
    int64_t best = -1;
    int32_t best_size = 0;
#pragma omp parallel num_threads(nt)
    {
        int64_t b = -1;
        int32_t bs = 0;
#pragma omp for schedule(static) nowait
        for (int64_t v = 0; v < n; v++)
            if (root[v] == v && f->size[v] > bs) {
                bs = f->size[v];
                b = v;
            }
#pragma omp critical
        if (bs > best_size || (bs == best_size && b >= 0 && b < best)) {
            best_size = bs;
            best = b;
        }
#pragma omp barrier
        const int32_t g = (int32_t)best;
#pragma omp for schedule(static)
        for (int64_t w = 0; w < words; w++) {
            uint64_t bits = 0;
            const int64_t lo = 64 * w, hi = lo + 64 < n ? lo + 64 : n;
            if (g >= 0)
                for (int64_t v = lo; v < hi; v++)
                    bits |= (uint64_t)(root[v] == g) << (v - lo);
            giant[w] = bits;
        }
    }
    return (int32_t)best;
}

/* Scan edges [lo, hi) of a block e: out[] (pairs) receives those whose
 * ends are unseen or have different roots; edges with both ends in the
 * giant bitmap are dropped on two bit tests. Another thread may be linking
 * meanwhile, so root and giant are read with relaxed loads; a stale value
 * can only keep an edge that is no longer needed (a root value r always
 * means "in r's component", sets only merge, and a set bit stays true), never drop
 * one whose ends are apart. Returns the number kept; *bad: the smallest
 * index of an edge with a vertex outside [0, n), if below; *dropped: plus
 * the edges the giant filter dropped; t (may be NULL): the others are
 * tallied in l (before the root test, which drops edges of any set). */
static int64_t scan_chunk(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, const int32_t *root,
                          const uint64_t *giant, int32_t *restrict out, int64_t *bad, cc_tally *t,
                          tally_list *l, int64_t *dropped)
{
    int64_t kk = 0;
    /* Two branch-free passes (the giant test fails for a few percent of
     * the edges, at random: as a branch it cost a misprediction each).
     * First the giant filter (filter_giant, the parallel path's too). */
    const int64_t k = cc_filter_tally(e, lo, hi, n, giant, out, bad, t, l);
    *dropped += hi - lo - k;
    /* Then the candidates, in place: keep unseen ends and different
     * roots; self-loops drop here only when already seen, link_mark skips
     * the rest. */
    for (int64_t j = 0; j < k; j++) {
        const int32_t u = out[2 * j], v = out[2 * j + 1];
        cc_prefetch_ends(root, out, j, k);
        const int32_t ru = LD(root[u]), rv = LD(root[v]);
        out[2 * kk] = u;
        out[2 * kk + 1] = v;
        kk += (ru != rv) | (ru < 0);
    }
    return kk;
}

/* Link a scanned block's kept edges (chunk c's kept[c] pairs start at
 * p + 2 c CC_CHUNK), in order, marking joiners of the giant. */
static void link_pending(cc_forest *f, const int32_t *p, const int64_t *kept, int64_t nch,
                         uint64_t *giant, int32_t *groot)
{
    for (int64_t c = 0; c < nch; c++) {
        const int32_t *q = p + 2 * c * CC_CHUNK;
        for (int64_t k = 0; k < kept[c]; k++) {
            cc_prefetch_ends_w(f->root, q, k, kept[c]);
            link_mark(f, q[2 * k], q[2 * k + 1], giant, groot);
        }
    }
}

/* The scan path (see the file comment): a forest that already holds sets
 * and fewer than CC_PARALLEL_EDGES x n edges, e.g. the next piece of an
 * edge list read piece by piece: the edges are filtered against the
 * forest's bitmap at once (no sample) and the few kept are linked one by
 * one with the patent's four cases. */
static int link_scan(cc_forest *f, const int64_t *edges, int64_t count, int64_t first_index, int nt)
{
    const uint64_t n = (uint64_t)f->n;
    int64_t b, len, kept, cap, carry_nch = 0;
    int32_t groot = f->groot;
    int32_t *pend[2] = {NULL, NULL};
    uint64_t *giant = f->giant;
    int cur = 0, carry = -1, rc = G5_OK;
    int64_t ckept[2][CC_BLOCK / CC_CHUNK];
    cc_tally *t = f->tally;

    cap = count < CC_BLOCK ? count : CC_BLOCK;
    pend[0] = g5_malloc((size_t)cap * 4 * sizeof(int32_t), "pending edges");
    if (!pend[0])
        return G5_ERR_NOMEM;
    if (t && !cc_tally_lists(t, nt)) {
        free(pend[0]);
        return g5_error(G5_ERR_NOMEM, "out of memory for the edge tally");
    }
    pend[1] = pend[0] + 2 * cap;
    if (groot < 0)
        groot = mark_giant(f, giant, nt);
    for (b = 0; b < count; b += len, cur ^= 1) {
        /* The first block is short: its pending edges grow the giant (and
         * its bitmap, kept by link_mark), so later blocks take the slow
         * path less. */
        len = b == 0 ? CC_FIRST_BLOCK : CC_BLOCK;
        len = count - b < len ? count - b : len;
        const int64_t *e = edges + 2 * b, nch = (len + CC_CHUNK - 1) / CC_CHUNK;
        int64_t bad = len, taken = 0, dropped = 0;
        /* Thread 0 first links the previous block's pending edges (if it
         * left them), then joins the scan; the chunks go to whichever
         * thread is free. */
#pragma omp parallel num_threads(nt) reduction(min : bad) reduction(+ : dropped)
        {
            tally_list *tl = t ? &t->list[omp_get_thread_num()] : NULL;
            if (carry >= 0 && omp_get_thread_num() == 0)
                link_pending(f, pend[carry], ckept[carry], carry_nch, giant, &groot);
            for (;;) {
                const int64_t c = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
                if (c >= nch)
                    break;
                const int64_t lo = c * CC_CHUNK, hi = lo + CC_CHUNK < len ? lo + CC_CHUNK : len;
                ckept[cur][c] = scan_chunk(e, lo, hi, n, f->root, giant, pend[cur] + 2 * lo, &bad, t, tl,
                                           &dropped);
            }
        }
        /* the dropped edges are in the marked set's component, which
         * groot (moved on by the links, if at all, to a set it joined)
         * still names */
        if (t)
            cc_tally_bulk(t, groot, dropped);
        carry = -1;
        kept = 0;
        for (int64_t c = 0; c < nch; c++)
            kept += ckept[cur][c];
        if (bad < len) {
            /* the edges kept so far are linked: the forest stays valid */
            link_pending(f, pend[cur], ckept[cur], nch, giant, &groot);
            rc = cc_bad_edge(edges, b + bad, first_index, f->n);
            break;
        }
        /* The bitmap follows its set through the links. Rebuild it
         * (electing the largest set again, an O(n) pass) only when the
         * filter did poorly: no set yet, or more than an eighth of the
         * block took the slow path (an unshuffled list, whose first edges
         * were no sample of the rest). A rebuild must not overlap a scan
         * (the scan would mix bits of two sets), so those pending edges
         * are linked at once, as are the last block's. */
        if (b + len < count && groot >= 0 && 8 * kept <= len) {
            carry = cur;
            carry_nch = nch;
            continue;
        }
        link_pending(f, pend[cur], ckept[cur], nch, giant, &groot);
        if (b + len < count)
            groot = mark_giant(f, giant, nt);
    }
    f->groot = groot;
    free(pend[0]);
    return rc;
}

int cc_forest_link_edges(cc_forest *f, const int64_t *edges, int64_t count,
                         int64_t first_index, int nthreads)
{
    int nt = nthreads > 0 ? nthreads : omp_get_max_threads(), rc;

    if (nt > 256)
        nt = 256;
    if (count <= 0)
        return G5_OK;
    if (!f->giant) {
        f->giant = g5_calloc((size_t)giant_words((uint64_t)f->n), sizeof *f->giant, "giant bitmap");
        if (!f->giant)
            return G5_ERR_NOMEM;
        f->groot = -1;
    }
    if (f->empty || count >= CC_PARALLEL_EDGES * f->n) {
        const int64_t bad = cc_link_parallel(f, edges, count, nt);
        if (bad < 0)
            return g5_error(G5_ERR_NOMEM, "out of memory for the scan buffers or the edge tally");
        f->empty = 0;
        rc = bad < count ? cc_bad_edge(edges, bad, first_index, f->n) : G5_OK;
    } else {
        rc = link_scan(f, edges, count, first_index, nt);
    }
    if (rc == G5_OK && f->tally) {
        cc_tally_squeeze(f->tally);
        if (f->tally->failed)
            rc = g5_error(G5_ERR_NOMEM, "out of memory for the edge tally");
    }
    return rc;
}

void cc_forest_merge_roots(cc_forest *f, const int32_t *other_root)
{
    /* Each seen vertex joined to its root in the other forest carries that
     * forest's sets over; link_one skips the pairs already together. */
    f->empty = 0;
    for (int64_t v = 0; v < f->n; v++) {
        const int32_t r = other_root[v];
        if (r >= 0 && r != v)
            link_one(f, (int32_t)v, r);
    }
}
