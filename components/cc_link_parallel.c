/* SPDX-License-Identifier: MIT */
/*
 * cc_link_parallel.c - the parallel path of cc_forest_link_edges, for a
 * whole edge list (an empty forest, or a call of at least 2 n edges),
 * after Afforest (M. Sutton, T. Ben-Nun, A. Barak, "Optimizing Parallel
 * Graph Connectivity Computation via Subgraph Sampling", IPDPS 2018).
 *
 * All edges are linked by all threads in a temporary parent-pointer
 * forest kept in the root array itself (a root is hooked under a smaller
 * id by compare-and-swap, finds halve their paths; every pointer goes to
 * a smaller id, so no cycle can form, and a stale read only costs a
 * retry), starting from the sets the forest holds:
 *   1. sample: a prefix of n / 4 edges (Graph500 lists are shuffled, so a
 *      random sample) is linked unfiltered; it builds most of the giant;
 *   2. the giant's root is elected as the most frequent root of 4096
 *      probes, every vertex pointed straight at its root, and the giant's
 *      members marked in a bitmap (n / 8 bytes: it stays in L2 where the
 *      4 n-byte arrays do not);
 *   3. the rest is scanned in chunks: an edge with both ends marked is
 *      dropped on two bit tests, the others linked at once by the thread
 *      that read them, and a vertex that joins a marked one gets its bit;
 *   4. build_sets turns the parent forest into the root vector, the son
 *      lists and an exact bitmap for later calls.
 * Every pass hands out chunks to threads as they come free, so a thread
 * slowed by another process does less of the work rather than holding
 * the others at a barrier; what a chunk produces depends on the chunk
 * alone, so the result is the same for any thread count.
 */
#include "cc_internal.h"
#include "common.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- the parallel sample ------------------------------------------------
 * On an empty forest the sample is linked by all threads at once in a
 * temporary parent-pointer forest kept in the next array (Afforest's
 * lock-free union: a root is hooked under a smaller root by compare-and-swap,
 * finds halve their paths; every pointer goes to a smaller id, so no cycle
 * can form, and a stale read only costs a retry). The parent forest is then
 * turned into the root vector and son lists, which hold the result from
 * there on. Parent entries are read and written with relaxed atomics: the
 * races are benign by construction but must not be undefined behaviour. */
static inline int32_t uf_find(int32_t *parent, int32_t x)
{
    for (;;) {
        const int32_t p = LD(parent[x]);
        if (p == x)
            return x;
        const int32_t g = LD(parent[p]);
        if (g == p)
            return p;
        ST(parent[x], g);
        x = g;
    }
}

static inline void uf_union(int32_t *parent, int32_t u, int32_t v)
{
    for (;;) {
        int32_t ru = uf_find(parent, u), rv = uf_find(parent, v);
        if (ru == rv)
            return;
        if (ru < rv) {
            const int32_t t = ru;
            ru = rv;
            rv = t;
        }
        if (__atomic_compare_exchange_n(&parent[ru], &ru, rv, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
        u = ru;  /* hooked meanwhile: retry from the new position */
        v = rv;
    }
}

/* Root of x without writing: for passes that run while no union does. */
static inline int32_t uf_root(const int32_t *parent, int32_t x)
{
    int32_t p;
    while ((p = LD(parent[x])) != x)
        x = p;
    return x;
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The giant's root, guessed as the most frequent root of 4096 evenly
 * spaced vertices (after the sample the giant holds about half of all
 * vertices, every other set a vanishing share); -1 when no root is met
 * twice. Only a guess: it picks which set the filter tests, never what is
 * linked. */
static int32_t elect_giant(const int32_t *parent, int64_t n)
{
    const int64_t probes = n < 4096 ? n : 4096;
    int32_t r[4096], best = -1;
    int64_t run = 0, best_run = 1;
    for (int64_t i = 0; i < probes; i++)
        r[i] = uf_root(parent, (int32_t)(i * n / probes));
    qsort(r, (size_t)probes, sizeof *r, cmp_i32);
    for (int64_t i = 0; i < probes; i++) {
        run = i > 0 && r[i] == r[i - 1] ? run + 1 : 1;
        if (run > best_run) {
            best_run = run;
            best = r[i];
        }
    }
    return best;
}


/* The root vector, the son lists and the giant bitmap of a parent forest
 * just built by the parallel path (in root; next all -1), by all threads
 * of the enclosing parallel region, in three passes over chunks of
 * vertices. First: root[v] = v's root, in place (no union runs, so each write stores
 * the true root and a concurrent find reads an ancestor either way), and
 * bit v = (v's root is G). The members of G (the elected giant: most of the
 * seen vertices) of a chunk are chained through next in vertex order, and
 * so are the members of every other set: no shared write, and no branch
 * (every vertex is written where the next member of either chain goes,
 * and only a member moves that place on; roots, a third of them never
 * seen, come at random, and a test of v's kind mispredicted on each).
 * The caller splices the chunks' giant chains after G in chunk order, from
 * chain[3 c .. 3 c + 2] (head, last, length). Then each chunk's other
 * chain (rare: sets other than G are small) is walked and each member
 * pushed right after its root by an atomic exchange on next[root] (the
 * sets are far apart, so the threads rarely meet on one), its size
 * counted by an atomic add; the order inside a small set's list is
 * therefore arbitrary, which nothing depends on. Last, a root left without
 * members was never seen (self-loops are skipped, as link_one skips them)
 * and goes back to -1. */
static void build_sets(cc_forest *f, int32_t G, int64_t vc, int64_t nvc, int64_t *chain, int32_t *small)
{
    const int64_t n = f->n;
    int32_t *restrict root = f->root, *restrict next = f->next, *restrict size = f->size;
    uint64_t *giant = f->giant;
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < nvc; c++) {
        const int64_t lo = c * vc, hi = lo + vc < n ? lo + vc : n;
        int32_t h = -1, l = -1, *link = &h, sh = -1, *slink = &sh;
        int64_t cnt = 0;
        for (int64_t wlo = lo; wlo < hi; wlo += 64) {
            const int64_t whi = wlo + 64 < hi ? wlo + 64 : hi;
            uint64_t bits = 0;
            for (int64_t v = wlo; v < whi; v++) {
                /* nearly every vertex is a root or points at one (the pass
                 * before the scan flattened the forest): two loads */
                const int32_t p = LD(root[v]), gp = LD(root[p]);
                const int32_t r = gp == p ? p : uf_root(root, gp);
                ST(root[v], r);
                size[v] = 1;
                const int in_g = (r == G) & (r != v), in_s = (r != G) & (r != v);
                const uintptr_t m = -(uintptr_t)in_g, ms = -(uintptr_t)in_s;
                *link = (int32_t)v;
                *slink = (int32_t)v;
                link = (int32_t *)(((uintptr_t)&next[v] & m) | ((uintptr_t)link & ~m));
                slink = (int32_t *)(((uintptr_t)&next[v] & ms) | ((uintptr_t)slink & ~ms));
                l ^= (l ^ (int32_t)v) & -in_g;
                cnt += in_g;
                bits |= (uint64_t)(r == G) << (v - wlo);
            }
            giant[wlo / 64] = bits;
        }
        *link = -1;
        *slink = -1;
        chain[3 * c] = h;
        chain[3 * c + 1] = l;
        chain[3 * c + 2] = cnt;
        small[c] = sh;
    }
    /* (the loop's barrier: every root and size known before the pushes) */
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < nvc; c++)
        for (int32_t x = small[c], nx; x >= 0; x = nx) {
            const int32_t r = root[x];
            nx = next[x];
            next[x] = __atomic_exchange_n(&next[r], x, __ATOMIC_RELAXED);
            __atomic_fetch_add(&size[r], 1, __ATOMIC_RELAXED);
        }
    /* (and every push before the unseen are told apart; the enclosing
     * region's end is the last barrier) */
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t c = 0; c < nvc; c++) {
        const int64_t lo = c * vc, hi = lo + vc < n ? lo + vc : n;
        for (int64_t v = lo; v < hi; v++) {
            const int32_t r = root[v];
            root[v] = r | -((r == v) & (v != G) & (next[v] < 0));
        }
    }
}

/* Scan edges [lo, hi) of the parallel path: an edge with both ends in the
 * giant bitmap is dropped on two bit tests (filter_giant); the others are
 * linked in the parent forest at once, and a vertex that thereby joins a
 * marked vertex gets its bit (an atomic or: the other threads read and set
 * bits meanwhile; a bit only ever means "in the giant's set", which stays
 * true). *bad: the smallest index of an edge with a vertex outside
 * [0, n), if below. t (may be NULL): the kept edges are tallied in l; the
 * number dropped is returned (the caller tallies them in bulk). */

static int64_t scan_union(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, int32_t *parent,
                          uint64_t *giant, int32_t *restrict buf, int64_t *bad, cc_tally *t, tally_list *l)
{
    const int64_t k = cc_filter_tally(e, lo, hi, n, giant, buf, bad, t, l);
    for (int64_t j = 0; j < k; j++) {
        const int32_t u = buf[2 * j], v = buf[2 * j + 1];
        cc_prefetch_ends_w(parent, buf, j, k);
        if (u == v)
            continue;
        uf_union(parent, u, v);
        const uint64_t bu = (LD(giant[u >> 6]) >> (u & 63)) & 1, bv = (LD(giant[v >> 6]) >> (v & 63)) & 1;
        if (bu != bv) {
            const int32_t x = bu ? v : u;
            __atomic_fetch_or(&giant[x >> 6], UINT64_C(1) << (x & 63), __ATOMIC_RELAXED);
        }
    }
    return hi - lo - k;
}

/* Edges linked unfiltered first by the parallel path: N / 4 leaves the
 * giant smaller than N would, but costs less than the unions it would
 * save (the scan's unions run as fast, on all threads). */
#define CC_SAMPLE(n) ((n) / 4 > 0 ? (n) / 4 : 1)

/* Edges per chunk of the parallel path's scan (the unit a thread takes;
 * its candidates fit a 128 KiB buffer per thread), and of its sample. */
#define CC_UNION_CHUNK ((int64_t)1 << 14)
#define CC_SAMPLE_CHUNK ((int64_t)1 << 12)

/* Vertices per chunk of the parallel path's O(n) passes: a multiple of 64
 * (a chunk writes whole bitmap words), at least 2^15, at most about 1024
 * chunks. Threads take chunks as they come free (as in the scan), so a
 * thread slowed by another process on its core does less of the work
 * instead of holding the others at the next barrier; every result of a
 * chunk depends on the chunk alone, never on which thread ran it. */
static int64_t vertex_chunk(int64_t n)
{
    const int64_t c = (n + 1023) / 1024;
    return c < ((int64_t)1 << 15) ? (int64_t)1 << 15 : (c + 63) / 64 * 64;
}

/* The parent forest starts in root: sets already held become trees of
 * depth one (a root may be any member: hooking a root only under a
 * smaller root keeps the forest acyclic whatever the trees are), an
 * unseen vertex its own root; next starts empty (the son lists are built
 * again at the end). A worksharing loop of the enclosing parallel region. */
static void parents_begin(int32_t *restrict parent, int32_t *restrict next, int64_t n, int64_t vc, int64_t nvc,
                          int empty)
{
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < nvc; c++) {
        const int64_t lo = c * vc, hi = lo + vc < n ? lo + vc : n;
        if (empty)
            for (int64_t v = lo; v < hi; v++)
                parent[v] = (int32_t)v;
        else
            for (int64_t v = lo; v < hi; v++)
                parent[v] = parent[v] < 0 ? (int32_t)v : parent[v];
        memset(next + lo, 0xff, (size_t)(hi - lo) * sizeof *next);
    }
}

/* The sample: edges [0, sample) linked, no filter; *bad lowered to the
 * first edge with a vertex outside [0, n). A worksharing loop. */
static void link_sample(int32_t *parent, const int64_t *edges, int64_t sample, int64_t n, int64_t *bad)
{
#pragma omp for schedule(dynamic, CC_SAMPLE_CHUNK)
    for (int64_t i = 0; i < sample; i++) {
        const uint64_t u = (uint64_t)edges[2 * i], v = (uint64_t)edges[2 * i + 1];
        if (i + CC_AHEAD < sample) {
            const uint64_t pu = (uint64_t)edges[2 * (i + CC_AHEAD)], pv = (uint64_t)edges[2 * (i + CC_AHEAD) + 1];
            if (pu < (uint64_t)n && pv < (uint64_t)n) {
                __builtin_prefetch(&parent[pu], 1);
                __builtin_prefetch(&parent[pv], 1);
            }
        }
        if (u >= (uint64_t)n || v >= (uint64_t)n) {
            if (i < *bad)
                *bad = i;
            continue;
        }
        if (u != v)
            uf_union(parent, (int32_t)u, (int32_t)v);
    }
}

/* Every vertex pointed at its root (no union runs during this pass, so
 * each write stores the true root and a concurrent find reads an ancestor
 * either way), and the members of g's set marked in giant. A worksharing
 * loop. */
static void point_at_roots(int32_t *parent, uint64_t *giant, int64_t n, int64_t vc, int64_t nvc, int32_t g)
{
    const int64_t words = (n + 63) / 64;
#pragma omp for schedule(dynamic, 1)
    for (int64_t c = 0; c < nvc; c++) {
        const int64_t wlo = c * vc / 64, whi = (c * vc + vc + 63) / 64 < words ? (c * vc + vc + 63) / 64 : words;
        for (int64_t w = wlo; w < whi; w++) {
            uint64_t bits = 0;
            const int64_t lo = 64 * w, hi = lo + 64 < n ? lo + 64 : n;
            for (int64_t v = lo; v < hi; v++) {
                const int32_t p = LD(parent[v]), gp = LD(parent[p]);
                const int32_t r = gp == p ? p : uf_root(parent, gp);
                ST(parent[v], r);
                bits |= (uint64_t)(r == g) << (v - lo);
            }
            ST(giant[w], bits);
        }
    }
}

/* G's son list: G, then each chunk's chain (chain[3 c .. 3 c + 2]: head,
 * last member, length) in chunk (= vertex) order. */
static void splice_giant(cc_forest *f, int32_t G, const int64_t *chain, int64_t nvc)
{
    int32_t end = G;
    int64_t members = 1;
    for (int64_t c = 0; c < nvc; c++)
        if (chain[3 * c] >= 0) {
            f->next[end] = (int32_t)chain[3 * c];
            end = (int32_t)chain[3 * c + 1];
            members += chain[3 * c + 2];
        }
    f->size[G] = (int32_t)members; /* >= 2: G was met by two probes */
}

/* The parallel path (see the file comment): link edges [0, count) in a
 * parent-pointer forest kept in the root array itself, starting from the
 * sets the forest holds, then turn it into the root vector, the son lists
 * and an exact giant bitmap in three passes over the vertices (build_sets).
 * Out: the smallest index of an edge with a vertex outside [0, n), or
 * count when there is none; the edges before and after it are linked all
 * the same, so the forest is valid either way; -1: out of memory. */
int64_t cc_link_parallel(cc_forest *f, const int64_t *edges, int64_t count, int nt)
{
    const int64_t n = f->n;
    const int64_t sample = count < CC_SAMPLE(n) ? count : CC_SAMPLE(n);
    const int64_t vc = vertex_chunk(n), nvc = (n + vc - 1) / vc;
    int32_t *restrict parent = f->root;
    uint64_t *giant = f->giant;
    int64_t bad = count, taken = 0;
    int32_t g = -1, G = -1;
    const int empty = f->empty;
    cc_tally *t = f->tally;
    int64_t dropped = 0;
    /* per thread: its scan buffer; per vertex chunk: the head, last member
     * and length of its part of the giant's son list, and the head of the
     * chain of its other sets' members (build_sets) */
    int32_t *buf = g5_malloc((size_t)nt * 2 * CC_UNION_CHUNK * sizeof *buf, "scan buffers");
    int64_t *chain = g5_malloc((size_t)nvc * 4 * sizeof *chain, "son list chains");
    if (!buf || !chain || (t && !cc_tally_lists(t, nt))) {
        free(buf);
        free(chain);
        return -1;
    }
#pragma omp parallel num_threads(nt) reduction(min : bad) reduction(+ : dropped)
    {
        int32_t *tbuf = buf + 2 * CC_UNION_CHUNK * omp_get_thread_num();
        tally_list *tl = t ? &t->list[omp_get_thread_num()] : NULL;
        parents_begin(parent, f->next, n, vc, nvc, empty);
        link_sample(parent, edges, sample, n, &bad);
        /* The sample's edges are tallied one by one (an even share per
         * thread; no id is outside [0, n) unless the call fails). */
        if (t) {
            const int th = omp_get_thread_num(), tn = omp_get_num_threads();
            cc_tally_edges(t, tl, edges, sample * th / tn, sample * (th + 1) / tn);
        }
        /* (the loop's barrier orders the unions before the election) */
#pragma omp single
        g = elect_giant(parent, n);
        if (sample < count) {
            point_at_roots(parent, giant, n, vc, nvc, g);
            for (;;) {
                const int64_t c = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
                const int64_t lo = sample + c * CC_UNION_CHUNK;
                if (lo >= count)
                    break;
                const int64_t hi = lo + CC_UNION_CHUNK < count ? lo + CC_UNION_CHUNK : count;
                dropped += scan_union(edges, lo, hi, (uint64_t)n, parent, giant, tbuf, &bad, t, tl);
            }
#pragma omp barrier
        }
        /* every thread finds G itself (read-only, after the barrier): no
         * further barrier */
        const int32_t Gt = g >= 0 ? uf_root(parent, g) : -1;
#pragma omp master
        G = Gt;
        build_sets(f, Gt, vc, nvc, chain, (int32_t *)(chain + 3 * nvc));
    }
    free(buf);
    if (G >= 0)
        splice_giant(f, G, chain, nvc);
    free(chain);
    f->groot = G;
    if (t)
        cc_tally_bulk(t, g, dropped);  /* dropped: both ends in g's set */
    return bad;
}

