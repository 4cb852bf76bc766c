/* SPDX-License-Identifier: MIT */
/*
 * cc_forest.c - the union-find of one rank: the patent's root vector and
 * two-dimensional son vector, the four cases of an edge, the OpenMP edge
 * scan, the merge of another forest and the canonical labelling.
 *
 * Method: CN patent "基于连通分量生成优化的超级计算机基准测试加速方法"
 * (National University of Defense Technology, 2021; summary in DESIGN.md):
 * root[v] = root of v's set (-1 unseen), son[r] = members of the set rooted
 * at r; merging moves the smaller member list into the larger and rewrites
 * the root of each moved vertex, so find is a single load.
 *
 * Encoding: son lists are intrusive linked lists in flat int32 arrays
 * (next, tail, size; see cc.h), 16 bytes per vertex, no allocation per set.
 * A vertex is moved only into a set at least twice the size of the set it
 * leaves, so each vertex's root is rewritten at most log2(n) times and a
 * whole run costs O(m + n log n), with two loads per edge in the common
 * case (both ends already share a root).
 *
 * Threads (after Afforest: M. Sutton, T. Ben-Nun, A. Barak, "Optimizing
 * Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS
 * 2018). Two paths, chosen per call of cc_forest_link_edges:
 *
 * The parallel path (an empty forest, or a call of at least
 * CC_PARALLEL_EDGES x n edges): all edges are linked by all threads in a
 * temporary parent-pointer forest kept in the next array (lock-free
 * hooking, see uf_union), starting from the sets the forest holds. A
 * prefix of n / 4 edges (Graph500 lists are shuffled, so it is a random
 * sample) is linked unfiltered; it builds most of the giant, whose root is
 * elected from 4096 probes and whose members are marked in a bitmap (n / 8
 * bytes, stays in L2 where the 4 n-byte arrays do not) while every vertex
 * is pointed straight at its root. The rest is scanned in chunks: an edge
 * with both ends marked is dropped on two bit tests (branch-free), the
 * others are linked at once by the thread that read them (the parent
 * entries of the candidate CC_AHEAD places ahead prefetched), and a vertex
 * that joins a marked one gets its bit. The root vector and the son lists
 * are built once, at the end, by all threads (son_lists_parallel), which
 * also make the bitmap exact for later calls. Before, the sample was
 * turned into son lists and the scan's kept edges were linked one by one
 * by thread 0 through the four cases below, while the others scanned.
 *
 * The scan path (a forest that already holds sets and a smaller call, e.g.
 * the next piece of an edge list linked as it is read): no sample; the
 * edges are filtered against the bitmap kept in the forest and then
 * against the root vector, and the few kept are linked one by one with
 * the patent's four cases (link_mark), which keep the bitmap equal to
 * the marked set as it grows, so it is built once (the blocks, the
 * overlap of one block's links with the next block's scan, and the rare
 * re-election are described at CC_BLOCK and in link_scan).
 *
 * Either way the result (the partition) does not depend on the order, so
 * it is identical for any thread count.
 */
#include "cc.h"
#include "common.h"

#include <assert.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct cc_forest {
    int64_t n;
    void *mem;      /* one allocation holding the four arrays            */
    int32_t *root;  /* root of v's set, -1 unseen                        */
    int32_t *next;  /* next member of the same son list, -1 at the end   */
    int32_t *tail;  /* at a root: last member of its son list            */
    int32_t *size;  /* at a root: number of members                      */
    int empty;      /* no edge linked yet                                */
    uint64_t *giant;/* bit v: v in the set rooted at groot (a subset of  */
    int32_t groot;  /* it, see link_mark); NULL / -1 until first needed  */
};

/* Edges per block of the parallel scan, and per chunk of a block (the unit
 * a thread takes). The pending edges of a block (8 bytes per edge) are
 * linked by one thread while the others scan the next block, so two
 * pending buffers are live: 2 x 16 MiB. Few blocks keep the thread team's
 * synchronisation rare, which matters on a shared, oversubscribed node;
 * the pending edges of block b are linked before block b + 2 is scanned,
 * and when a block sends many edges down the slow path (an unshuffled
 * list: an unrepresentative sample) its edges are linked before the next
 * scan, so such a list still converges. */
#define CC_FIRST_BLOCK ((int64_t)1 << 20)
#define CC_BLOCK ((int64_t)1 << 21)
#define CC_CHUNK ((int64_t)1 << 16)
/* A call with at least this many edges per vertex takes the parallel path
 * even on a forest that already holds sets: its O(n) passes are then
 * small against the edges. */
#define CC_PARALLEL_EDGES 2

/* The four arrays in one block. From 2 MiB up it is aligned to 2 MiB and
 * asked for transparent huge pages (THP is often in madvise mode): the
 * links read and write the arrays at random, and with 4 KiB pages nearly
 * every such access missed the TLB once the arrays outgrew its reach
 * (64 MiB at SCALE 22), and the first touch of each page was a fault. */
static void *forest_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    void *p;
    if (bytes < huge)
        return g5_malloc(bytes, "forest arrays");
    bytes = (bytes + huge - 1) / huge * huge;
    p = aligned_alloc(huge, bytes);
    if (!p)
        return g5_malloc(bytes, "forest arrays"); /* records the error */
    madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

int cc_forest_create(int64_t n, cc_forest **out)
{
    cc_forest *f;
    *out = NULL;
    if (n < 1 || n > CC_MAX_VERTICES)
        return g5_error(G5_ERR_ARG, "cc_forest_create: %lld vertices is outside [1, %lld]",
                        (long long)n, (long long)CC_MAX_VERTICES);
    f = g5_calloc(1, sizeof *f, "forest");
    if (!f)
        return G5_ERR_NOMEM;
    f->n = n;
    f->mem = forest_alloc((size_t)n * 4 * sizeof(int32_t));
    if (!f->mem) {
        cc_forest_free(&f);
        return G5_ERR_NOMEM;
    }
    f->root = f->mem;
    f->next = f->root + n;
    f->tail = f->next + n;
    f->size = f->tail + n;
    /* -1 is all ones: memset is the fast fill. next/tail/size are written
     * before they are read (a vertex gets them when it is first seen). */
    memset(f->root, 0xff, (size_t)n * sizeof(int32_t));
    f->empty = 1;
    f->groot = -1;
    *out = f;
    return G5_OK;
}

void cc_forest_free(cc_forest **f)
{
    if (!f || !*f)
        return;
    free((*f)->mem);
    free((*f)->giant);
    free(*f);
    *f = NULL;
}

int64_t cc_forest_nvertices(const cc_forest *f) { return f->n; }
const int32_t *cc_forest_roots(const cc_forest *f) { return f->root; }
int64_t cc_forest_find(const cc_forest *f, int64_t v) { return f->root[v]; }
int64_t cc_forest_next(const cc_forest *f, int64_t v) { return f->next[v]; }
int64_t cc_forest_set_size(const cc_forest *f, int64_t r) { return f->size[r]; }

/* Relaxed atomic loads and stores: while one thread links a block's
 * pending edges, the other threads scan the next block and read root and
 * the giant bitmap (see cc_forest_link_edges). Those races are benign by
 * construction (sets only merge) but must not be undefined behaviour; on
 * x86-64 these are plain moves. The parallel sample uses them too. */
#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
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
        f->tail[u] = v;
        f->size[u] = 2;
        return CC_NEW_SET;
    }
    if (ru < 0 || rv < 0) {
        int32_t r = ru < 0 ? rv : ru, x = ru < 0 ? u : v;
        ST(root[x], r);
        next[x] = -1;
        next[f->tail[r]] = x;
        f->tail[r] = x;
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
    if (giant && big == *groot) {
        for (int32_t x = small; x >= 0; x = next[x]) {
            ST(root[x], big);
            SETBIT(giant, x);
        }
    } else {
        for (int32_t x = small; x >= 0; x = next[x])
            ST(root[x], big);
        if (giant && small == *groot) {
            /* the marked set moved into a larger one: mark the rest */
            for (int32_t x = big; x >= 0; x = next[x])
                SETBIT(giant, x);
            *groot = big;
        }
    }
    next[f->tail[big]] = small;
    f->tail[big] = f->tail[small];
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

static int bad_edge(const int64_t *edges, int64_t i, int64_t first_index, int64_t n)
{
    return g5_error(G5_ERR_FORMAT, "edge %lld = (%lld, %lld) has a vertex outside [0, %lld)",
                    (long long)(first_index + i), (long long)edges[2 * i],
                    (long long)edges[2 * i + 1], (long long)n);
}

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

/* Son lists of a root vector just built by the parallel path (root[v]
 * final, an unseen vertex its own root; next free), by all threads: each thread takes a static range of
 * vertices. The members of the guessed giant g (most of the seen vertices)
 * are chained in vertex order in a list per thread, with no shared write,
 * and the lists are spliced after g in thread order; a member of any other
 * set is pushed at the front of its root's list, right after the root, by
 * an atomic exchange on next[root] (sets other than g are small and far
 * apart, so the threads rarely meet on one), and the first member pushed
 * (it found next[root] == -1) is the tail. The order inside a small set's
 * list is therefore arbitrary, which nothing depends on. g is the
 * elected giant's root (or -1). */
static void son_lists_parallel(cc_forest *f, int32_t g, int nt)
{
    const int64_t n = f->n, words = (n + 63) / 64;
    uint64_t *giant = f->giant;
    int32_t *restrict root = f->root, *restrict next = f->next, *restrict tail = f->tail,
            *restrict size = f->size;
    int32_t head[256], last[256], cnt[256];
    int tn_used = 1;

#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
        /* Every vertex as if it were a root of its own (only roots' values
         * are read; the others' next is written below): a plain fill,
         * where a test per vertex mispredicted on the isolated ones. */
#pragma omp for schedule(static)
        for (int64_t v = 0; v < n; v++) {
            next[v] = -1;
            tail[v] = (int32_t)v;
            size[v] = 1;
        }
        /* (the barrier ending that loop orders the roots' -1 before the
         * exchanges) */
        const int64_t lo = n * t / tn, hi = n * (t + 1) / tn;
        int32_t h = -1, l = -1, c = 0, *link = &h;
        for (int64_t v = lo; v < hi; v++) {
            const int32_t r = root[v];
            /* g's members chain without a branch: every vertex is written
             * where the next member goes, and only a member moves that
             * place on (the last write there is the next member's, or
             * the -1 below). */
            const int in_g = (r == g) & (r >= 0) & (r != v);
            const uintptr_t m = -(uintptr_t)in_g;
            *link = (int32_t)v;
            link = (int32_t *)(((uintptr_t)&next[v] & m) | ((uintptr_t)link & ~m));
            l ^= (l ^ (int32_t)v) & -in_g;
            c += in_g;
            if (r < 0 || r == v || r == g)
                continue;
            const int32_t old = __atomic_exchange_n(&next[r], (int32_t)v, __ATOMIC_RELAXED);
            next[v] = old;
            if (old < 0)
                tail[r] = (int32_t)v;
            __atomic_fetch_add(&size[r], 1, __ATOMIC_RELAXED);
        }
        *link = -1;
        head[t] = h;
        last[t] = l;
        cnt[t] = c;
        if (t == 0)
            tn_used = tn;
        /* Seen vertices are those in a set of two or more (self-loops were
         * skipped, as link_one skips them): a root left alone (size 1;
         * g's size is added below) was never seen and goes back to -1.
         * The same pass makes the giant bitmap exact, g's members, so
         * that a later call filters with it at once and link_mark keeps
         * it. Both without a branch (isolated vertices are a third of
         * all, at random). */
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t w = 0; w < words; w++) {
            uint64_t bits = 0;
            const int64_t wlo = 64 * w, whi = wlo + 64 < n ? wlo + 64 : n;
            for (int64_t v = wlo; v < whi; v++) {
                const int32_t r = root[v];
                const int32_t alone = (r == v) & (size[v] == 1) & (v != g);
                root[v] = r | -alone;
                bits |= (uint64_t)((r == g) & (g >= 0)) << (v - wlo);
            }
            giant[w] = bits;
        }
    }
    if (g < 0)
        return;
    /* g's list: g, then each thread's chain in thread (= vertex) order. */
    int32_t end = g;
    for (int t = 0; t < tn_used; t++)
        if (head[t] >= 0) {
            next[end] = head[t];
            end = last[t];
            size[g] += cnt[t];
        }
    tail[g] = end;
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

/* Scan edges [lo, hi) of the parallel path: an edge with both ends in the
 * giant bitmap is dropped on two bit tests; the others are linked in the
 * parent forest at once, and a vertex that thereby joins a marked vertex
 * gets its bit (an atomic or: the other threads read and set bits
 * meanwhile; a bit only ever means "in the giant's set", which stays true).
 * Two passes: the bit tests first, branch-free into buf (the test fails
 * for a few percent of the edges at random: as a branch it cost a
 * misprediction each), then the unions. *bad: the smallest index of an
 * edge with a vertex outside [0, n), if below. */
/* Candidates ahead of the union at which the parent entries of both ends
 * are prefetched (for writing: the union may hook or halve there). The
 * candidates' ends are random vertices, so each find starts with a miss
 * in the 4 n-byte parent array; issued one union at a time those misses
 * form one dependent chain, prefetched they overlap. The sample's unions
 * prefetch the same distance ahead in the edge list, and the scan path the
 * root entries of its candidates (scan_chunk, link_pending). */
#define CC_AHEAD 16

static void scan_union(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, int32_t *parent,
                       uint64_t *giant, int32_t *restrict buf, int64_t *bad)
{
    int64_t k = 0;
    for (int64_t j = lo; j < hi; j++) {
        const uint64_t u = (uint64_t)e[2 * j], v = (uint64_t)e[2 * j + 1];
        if ((u >= n) | (v >= n)) {
            if (j < *bad)
                *bad = j;
            continue;
        }
        const uint64_t both = (LD(giant[u >> 6]) >> (u & 63)) & (LD(giant[v >> 6]) >> (v & 63));
        buf[2 * k] = (int32_t)u;
        buf[2 * k + 1] = (int32_t)v;
        k += (int64_t)(~both & 1);
    }
    for (int64_t j = 0; j < k; j++) {
        const int32_t u = buf[2 * j], v = buf[2 * j + 1];
        if (j + CC_AHEAD < k) {
            __builtin_prefetch(&parent[buf[2 * (j + CC_AHEAD)]], 1);
            __builtin_prefetch(&parent[buf[2 * (j + CC_AHEAD) + 1]], 1);
        }
        if (u == v)
            continue;
        uf_union(parent, u, v);
        const uint64_t bu = (LD(giant[u >> 6]) >> (u & 63)) & 1, bv = (LD(giant[v >> 6]) >> (v & 63)) & 1;
        if (bu != bv) {
            const int32_t x = bu ? v : u;
            __atomic_fetch_or(&giant[x >> 6], UINT64_C(1) << (x & 63), __ATOMIC_RELAXED);
        }
    }
}

/* Edges linked unfiltered first by the parallel path: N / 4 left the
 * giant smaller but cost less than the unions they saved (the scan's
 * unions run as fast, on both threads): 5-12% less CPU time than N edges
 * at SCALE 20 and 22 in alternated A/B runs. */
#define CC_SAMPLE(n) ((n) / 4 > 0 ? (n) / 4 : 1)

/* Edges per chunk of the parallel path's scan (the unit a thread takes;
 * its candidates fit a 128 KiB buffer per thread). */
#define CC_UNION_CHUNK ((int64_t)1 << 14)

/* The parallel path (see the file comment): link edges [0, count) in a
 * parent-pointer forest kept in the next array, starting from the sets the
 * forest holds, then rebuild the root vector, the son lists and an exact
 * giant bitmap. Out: the smallest index of an edge with a vertex outside
 * [0, n), or count when there is none; the edges before and after it are
 * linked all the same, so the forest is valid either way. */
static int64_t link_parallel(cc_forest *f, const int64_t *edges, int64_t count, int nt)
{
    const int64_t n = f->n, words = (n + 63) / 64;
    const int64_t sample = count < CC_SAMPLE(n) ? count : CC_SAMPLE(n);
    int32_t *restrict parent = f->next, *restrict root = f->root;
    uint64_t *giant = f->giant;
    int64_t bad = count, taken = 0;
    int32_t g = -1, G = -1;
    const int empty = f->empty;
    int32_t *buf = g5_malloc((size_t)nt * 2 * CC_UNION_CHUNK * sizeof *buf, "scan buffers");
    if (!buf)
        return -1;
#pragma omp parallel num_threads(nt) reduction(min : bad)
    {
        int32_t *tbuf = buf + 2 * CC_UNION_CHUNK * omp_get_thread_num();
        /* Sets already held become trees of depth one (a root may be any
         * member: hooking a root only under a smaller root keeps the
         * forest acyclic whatever the trees are). */
        if (empty) {
#pragma omp for schedule(static)
            for (int64_t v = 0; v < n; v++)
                parent[v] = (int32_t)v;
        } else {
#pragma omp for schedule(static)
            for (int64_t v = 0; v < n; v++)
                parent[v] = root[v] < 0 ? (int32_t)v : root[v];
        }
        /* The sample: every edge linked, no filter yet. */
#pragma omp for schedule(static)
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
                if (i < bad)
                    bad = i;
                continue;
            }
            if (u != v)
                uf_union(parent, (int32_t)u, (int32_t)v);
        }
        /* (the loop's barrier orders the unions before the election) */
#pragma omp single
        g = elect_giant(parent, n);
        if (sample < count) {
            /* Every vertex points at its root from here (no union runs
             * during this pass, so each write stores the true root and a
             * concurrent find reads an ancestor either way), and the
             * giant's members get their bits. */
#pragma omp for schedule(static)
            for (int64_t w = 0; w < words; w++) {
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
            for (;;) {
                const int64_t c = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
                const int64_t lo = sample + c * CC_UNION_CHUNK;
                if (lo >= count)
                    break;
                const int64_t hi = lo + CC_UNION_CHUNK < count ? lo + CC_UNION_CHUNK : count;
                scan_union(edges, lo, hi, (uint64_t)n, parent, giant, tbuf, &bad);
            }
#pragma omp barrier
        }
        /* Flatten: root[v] = the root of v, found without writing parent.
         * (Finds that halve paths here raced with this very loop: a thread
         * could overwrite a vertex's stored root with a grandparent it had
         * read before, which need not be a root any more; the set then
         * split in two.) */
#pragma omp for schedule(static)
        for (int64_t v = 0; v < n; v++) {
            /* nearly every vertex is a root or points at one (the pass
             * before the scan flattened the forest): two loads, no loop */
            const int32_t p = LD(parent[v]), gp = LD(parent[p]);
            root[v] = gp == p ? p : uf_root(parent, gp);
        }
    }
    free(buf);
    G = g >= 0 ? root[g] : -1;
    son_lists_parallel(f, G, nt);
    f->groot = G;
    return bad;
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
 * index of an edge with a vertex outside [0, n), if below. */
static int64_t scan_chunk(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, const int32_t *root,
                          const uint64_t *giant, int32_t *restrict out, int64_t *bad)
{
    int64_t k = 0, kk = 0;
    /* Two branch-free passes (the giant test fails for a few percent of
     * the edges, at random: as a branch it cost a misprediction each).
     * First every edge is written at out[k] and k advances only when not
     * both ends are in the giant; the bound test stays a branch, never
     * taken on good input. */
    for (int64_t j = lo; j < hi; j++) {
        const uint64_t u = (uint64_t)e[2 * j], v = (uint64_t)e[2 * j + 1];
        if (u >= n || v >= n) {
            if (j < *bad)
                *bad = j;
            continue;
        }
        const uint64_t both = (LD(giant[u >> 6]) >> (u & 63)) & (LD(giant[v >> 6]) >> (v & 63));
        out[2 * k] = (int32_t)u;
        out[2 * k + 1] = (int32_t)v;
        k += (int64_t)(~both & 1);
    }
    /* Then the candidates, in place: keep unseen ends and different
     * roots; self-loops drop here only when already seen, link_mark skips
     * the rest. */
    for (int64_t j = 0; j < k; j++) {
        const int32_t u = out[2 * j], v = out[2 * j + 1];
        if (j + CC_AHEAD < k) {
            __builtin_prefetch(&root[out[2 * (j + CC_AHEAD)]]);
            __builtin_prefetch(&root[out[2 * (j + CC_AHEAD) + 1]]);
        }
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
            if (k + CC_AHEAD < kept[c]) {
                __builtin_prefetch(&f->root[q[2 * (k + CC_AHEAD)]], 1);
                __builtin_prefetch(&f->root[q[2 * (k + CC_AHEAD) + 1]], 1);
            }
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

    cap = count < CC_BLOCK ? count : CC_BLOCK;
    pend[0] = g5_malloc((size_t)cap * 4 * sizeof(int32_t), "pending edges");
    if (!pend[0])
        return G5_ERR_NOMEM;
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
        int64_t bad = len, taken = 0;
        /* Thread 0 first links the previous block's pending edges (if it
         * left them), then joins the scan; the chunks go to whichever
         * thread is free. */
#pragma omp parallel num_threads(nt) reduction(min : bad)
        {
            if (carry >= 0 && omp_get_thread_num() == 0)
                link_pending(f, pend[carry], ckept[carry], carry_nch, giant, &groot);
            for (;;) {
                const int64_t c = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
                if (c >= nch)
                    break;
                const int64_t lo = c * CC_CHUNK, hi = lo + CC_CHUNK < len ? lo + CC_CHUNK : len;
                ckept[cur][c] = scan_chunk(e, lo, hi, n, f->root, giant, pend[cur] + 2 * lo, &bad);
            }
        }
        carry = -1;
        kept = 0;
        for (int64_t c = 0; c < nch; c++)
            kept += ckept[cur][c];
        if (bad < len) {
            /* the edges kept so far are linked: the forest stays valid */
            link_pending(f, pend[cur], ckept[cur], nch, giant, &groot);
            rc = bad_edge(edges, b + bad, first_index, f->n);
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
    int nt = nthreads > 0 ? nthreads : omp_get_max_threads();

    if (nt > 256)
        nt = 256;
    if (count <= 0)
        return G5_OK;
    if (!f->giant) {
        f->giant = g5_calloc((size_t)((f->n + 63) / 64), sizeof *f->giant, "giant bitmap");
        if (!f->giant)
            return G5_ERR_NOMEM;
        f->groot = -1;
    }
    if (f->empty || count >= CC_PARALLEL_EDGES * f->n) {
        const int64_t bad = link_parallel(f, edges, count, nt);
        if (bad < 0)
            return G5_ERR_NOMEM;
        f->empty = 0;
        return bad < count ? bad_edge(edges, bad, first_index, f->n) : G5_OK;
    }
    return link_scan(f, edges, count, first_index, nt);
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

int cc_forest_check(const cc_forest *f)
{
    int64_t seen = 0, members = 0;
    for (int64_t v = 0; v < f->n; v++) {
        int32_t r = f->root[v];
        if (r < -1 || r >= f->n)
            return g5_error(G5_ERR_INTERNAL, "forest: root[%lld] = %d is not a vertex", (long long)v, r);
        if (r < 0)
            continue;
        seen++;
        if (f->root[r] != r)
            return g5_error(G5_ERR_INTERNAL, "forest: root[%lld] = %d but root[%d] = %d: not a root",
                            (long long)v, r, r, f->root[r]);
    }
    for (int64_t r = 0; r < f->n; r++) {
        int64_t len = 0, last = -1;
        if (f->root[r] != r)
            continue;
        if (f->size[r] < 2)
            return g5_error(G5_ERR_INTERNAL, "forest: set %lld has size %d < 2", (long long)r, f->size[r]);
        for (int64_t x = r; x >= 0; x = f->next[x]) {
            if (f->root[x] != r)
                return g5_error(G5_ERR_INTERNAL, "forest: son list of %lld holds %lld whose root is %d",
                                (long long)r, (long long)x, f->root[x]);
            if (++len > f->size[r])
                return g5_error(G5_ERR_INTERNAL, "forest: son list of %lld is longer than its size %d",
                                (long long)r, f->size[r]);
            last = x;
        }
        if (len != f->size[r])
            return g5_error(G5_ERR_INTERNAL, "forest: son list of %lld has %lld members, size says %d",
                            (long long)r, (long long)len, f->size[r]);
        if (last != f->tail[r])
            return g5_error(G5_ERR_INTERNAL, "forest: son list of %lld ends at %lld, tail says %d",
                            (long long)r, (long long)last, f->tail[r]);
        members += len;
    }
    /* Every list member has this root and the lists are disjoint, so equal
     * totals mean every seen vertex is in its root's list. */
    if (members != seen)
        return g5_error(G5_ERR_INTERNAL, "forest: son lists hold %lld vertices, %lld are seen",
                        (long long)members, (long long)seen);
    return G5_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int cc_forest_label(const cc_forest *f, int32_t *label, int64_t *ncomp,
                    int64_t **comp_vertices)
{
    const int64_t n = f->n;
    const int32_t *root = f->root;
    int64_t c = 0, k = 0;
    uint64_t *key = NULL;
    int64_t *order = NULL, *sizes = NULL;

    *ncomp = 0;
    *comp_vertices = NULL;
    for (int64_t v = 0; v < n; v++)
        c += root[v] == v;
    key = g5_malloc((size_t)(c ? c : 1) * sizeof *key, "component sort keys");
    order = g5_malloc((size_t)(c ? c : 1) * sizeof *order, "component order");
    sizes = g5_malloc((size_t)(c ? c : 1) * sizeof *sizes, "component sizes");
    if (!key || !order || !sizes) {
        free(key);
        free(order);
        free(sizes);
        return G5_ERR_NOMEM;
    }
    /* Scanning vertices upwards meets each set first at its smallest member:
     * label[r] temporarily holds the set's rank k in that order. */
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++)
        label[v] = -1;
    for (int64_t v = 0; v < n; v++) {
        const int32_t r = root[v];
        if (r >= 0 && label[r] < 0) {
            /* Sort key: larger size first, then smaller first member k. */
            key[k] = ((uint64_t)(INT32_MAX - f->size[r]) << 32) | (uint64_t)k;
            order[k] = r;
            label[r] = (int32_t)k++;
        }
    }
    qsort(key, (size_t)c, sizeof *key, cmp_u64);
    for (int64_t id = 0; id < c; id++) {
        const int64_t kk = (int64_t)(key[id] & 0xffffffffu);
        const int32_t r = (int32_t)order[kk];
        label[r] = (int32_t)id;
        sizes[id] = f->size[r];
    }
    /* Roots hold final ids now; other members copy their root's. */
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; v++) {
        const int32_t r = root[v];
        if (r >= 0 && r != v)
            label[v] = label[r];
    }
    free(key);
    free(order);
    *ncomp = c;
    *comp_vertices = sizes;
    return G5_OK;
}
