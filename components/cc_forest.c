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
 * (next, size; see cc.h), 12 bytes per vertex, no allocation per set: a
 * joining vertex or a moved list goes right after the root, so no tail
 * is kept (the walk that rewrites a moved list's roots finds its last
 * member; a fourth array, tail, took 4 more bytes per vertex to fault in).
 * A vertex moves only with the smaller of two sets, so the set it lands in
 * is at least twice the size of the set it leaves, and each vertex's root is rewritten at most log2(n) times and a
 * whole run costs O(m + n log n), with two loads per edge in the common
 * case (both ends already share a root).
 *
 * Threads (after Afforest: M. Sutton, T. Ben-Nun, A. Barak, "Optimizing
 * Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS
 * 2018). Two paths, chosen per call of cc_forest_link_edges:
 *
 * The parallel path (an empty forest, or a call of at least
 * CC_PARALLEL_EDGES x n edges): all edges are linked by all threads in a
 * temporary parent-pointer forest kept in the root array itself (lock-free
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
 * are built once, at the end, by all threads (build_sets: the flatten in
 * place, the lists chained per chunk of vertices, the bitmap made exact
 * for later calls, the unseen vertices sent back to -1). Every pass over
 * the vertices and the sample hand out chunks to threads as they come
 * free, so a thread slowed by another process does less of the work rather
 * than holding the others at the next barrier. Before, the sample was
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
    void *mem;      /* one allocation holding the three arrays           */
    int32_t *root;  /* root of v's set, -1 unseen                        */
    int32_t *next;  /* next member of the same son list, -1 at the end   */
    int32_t *size;  /* at a root: number of members                      */
    int empty;      /* no edge linked yet                                */
    uint64_t *giant;/* bit v: v in the set rooted at groot (a subset of  */
    int32_t groot;  /* it, see link_mark); NULL / -1 until first needed  */
    cc_tally *tally;/* counts the edges linked per set, or NULL           */
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

/* The three arrays in one block. From 2 MiB up it is aligned to 2 MiB and
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
    f->mem = forest_alloc((size_t)n * 3 * sizeof(int32_t));
    if (!f->mem) {
        cc_forest_free(&f);
        return G5_ERR_NOMEM;
    }
    f->root = f->mem;
    f->next = f->root + n;
    f->size = f->next + n;
    /* -1 is all ones: memset is the fast fill, by the default team of
     * threads (the first touch of the block's pages is most of its cost).
     * next/size are written before they are read (a vertex gets them when
     * it is first seen). */
    const int64_t pieces = n < ((int64_t)1 << 20) ? 1 : 64;
#pragma omp parallel for schedule(dynamic, 1) if (pieces > 1)
    for (int64_t c = 0; c < pieces; c++)
        memset(f->root + n * c / pieces, 0xff, (size_t)(n * (c + 1) / pieces - n * c / pieces) * sizeof(int32_t));
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

/* ---- the edge tally -----------------------------------------------------
 * Counts every tuple given to cc_forest_link_edges at a vertex of its set,
 * so that comp_edges[label[x]] += count at x gives the edges per component
 * once labels exist, without a pass over the tuples or a counter per
 * vertex: a self-loop in its thread's loop count; a tuple the giant filter
 * drops (both ends in the marked set) in one count per call and block at
 * the marked set's root (bulk); the others (the parallel path's sample,
 * the few the filter keeps: about 5% of a Graph500 list) at their first
 * endpoint, appended to the list of the thread that read them. The lists
 * are folded into a counter per vertex (32-bit, 64-bit once a count could
 * pass 2^32 - 1) only when together they outgrow n entries (an
 * unshuffled list, whose filter keeps much), so the tally stays within
 * O(n) whatever the input. */
typedef struct tally_list {
    int32_t *v;
    int64_t len, cap, loops;
    char pad[32];  /* one cache line per thread */
} tally_list;

struct cc_tally {
    int64_t n;
    int nlist;
    tally_list *list;
    int32_t *bulk_v;
    int64_t *bulk_w, nbulk, capbulk;
    uint32_t *d32;      /* the folded lists, per vertex (NULL until needed) */
    uint64_t *d64;
    int64_t dtotal;     /* entries folded into d32 / d64 */
    int64_t limit32;    /* folded entries past which the counters are 64-bit */
    int failed;         /* out of memory: the call that met it fails */
};

int cc_tally_create(int64_t n, cc_tally **out)
{
    cc_tally *t = g5_calloc(1, sizeof *t, "edge tally");
    *out = NULL;
    if (!t)
        return G5_ERR_NOMEM;
    t->n = n;
    t->limit32 = (int64_t)UINT32_MAX;
    *out = t;
    return G5_OK;
}

void cc_tally_set_limit32(cc_tally *t, int64_t limit) { t->limit32 = limit; }

void cc_tally_free(cc_tally **tp)
{
    cc_tally *t = tp ? *tp : NULL;
    if (!t)
        return;
    for (int i = 0; i < t->nlist; i++)
        free(t->list[i].v);
    free(t->list);
    free(t->bulk_v);
    free(t->bulk_w);
    free(t->d32);
    free(t->d64);
    free(t);
    *tp = NULL;
}

void cc_forest_set_tally(cc_forest *f, cc_tally *t) { f->tally = t; }

int cc_tally_counters(const cc_tally *t) { return t->d64 ? 64 : t->d32 ? 32 : 0; }

/* Lists for nt threads; 0 when out of memory. Not in a parallel region. */
static int tally_lists(cc_tally *t, int nt)
{
    if (t->nlist >= nt)
        return 1;
    tally_list *l = realloc(t->list, (size_t)nt * sizeof *l);
    if (!l)
        return 0;
    memset(l + t->nlist, 0, (size_t)(nt - t->nlist) * sizeof *l);
    t->list = l;
    t->nlist = nt;
    return 1;
}

/* Room for k more entries in l (its own thread only); NULL when out of
 * memory (the tally is then marked failed): the entries are not kept. */
static int32_t *tally_room(cc_tally *t, tally_list *l, int64_t k)
{
    if (l->len + k > l->cap) {
        const int64_t cap = l->len + k > 2 * l->cap ? l->len + k : 2 * l->cap;
        int32_t *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            __atomic_store_n(&t->failed, 1, __ATOMIC_RELAXED);
            return NULL;
        }
        l->v = v;
        l->cap = cap;
    }
    return l->v;
}

/* Count edges [lo, hi) at their first endpoint (self-loops apart) in
 * thread list l; an edge with an id outside [0, n) is left out (the call
 * fails on it). */
static void tally_edges(cc_tally *t, tally_list *l, const int64_t *e, int64_t lo, int64_t hi)
{
    int32_t *v = tally_room(t, l, hi - lo);
    int64_t len = l->len, loops = 0;
    const uint64_t n = (uint64_t)t->n;
    if (!v)
        return;
    for (int64_t j = lo; j < hi; j++) {
        const uint64_t a = (uint64_t)e[2 * j], b = (uint64_t)e[2 * j + 1];
        const int ok = (a < n) & (b < n);
        v[len] = (int32_t)a;
        len += ok & (a != b);
        loops += ok & (a == b);
    }
    l->len = len;
    l->loops += loops;
}

/* tally_edges for the int32 pairs p[0 .. k) the giant filter kept. */
static void tally_pairs(cc_tally *t, tally_list *l, const int32_t *p, int64_t k)
{
    int32_t *v = tally_room(t, l, k);
    int64_t len = l->len, loops = 0;
    if (!v)
        return;
    for (int64_t j = 0; j < k; j++) {
        const int32_t a = p[2 * j], b = p[2 * j + 1];
        v[len] = a;
        len += a != b;
        loops += a == b;
    }
    l->len = len;
    l->loops += loops;
}

/* k tuples dropped by the giant filter: count them at x, a vertex of the
 * marked set (the entry before is added to when it is the same vertex).
 * Not in a parallel region. */
static void tally_bulk(cc_tally *t, int32_t x, int64_t k)
{
    if (k <= 0 || x < 0)
        return;  /* x < 0: no marked set, so nothing was dropped */
    if (t->nbulk > 0 && t->bulk_v[t->nbulk - 1] == x) {
        t->bulk_w[t->nbulk - 1] += k;
        return;
    }
    if (t->nbulk == t->capbulk) {
        const int64_t cap = t->capbulk ? 2 * t->capbulk : 64;
        int32_t *v = realloc(t->bulk_v, (size_t)cap * sizeof *v);
        if (v)
            t->bulk_v = v;
        int64_t *w = realloc(t->bulk_w, (size_t)cap * sizeof *w);
        if (w)
            t->bulk_w = w;
        if (!v || !w) {
            t->failed = 1;
            return;
        }
        t->capbulk = cap;
    }
    t->bulk_v[t->nbulk] = x;
    t->bulk_w[t->nbulk++] = k;
}

/* Once the lists hold more than n entries (as many bytes as the counters;
 * and at least 2^16), fold them into the counters per vertex and free
 * them. A Graph500 list keeps 0.5-0.8 n entries from SCALE 18 up (SCALE
 * 16: more: the sample is a larger share). Not in a parallel region. */
static void tally_squeeze(cc_tally *t)
{
    int64_t total = 0;
    for (int i = 0; i < t->nlist; i++)
        total += t->list[i].len;
    if (total <= t->n || total < ((int64_t)1 << 16))
        return;
    if (!t->d64 && t->dtotal + total > t->limit32) {
        /* a count might pass 2^32 - 1: 64-bit counters from here */
        t->d64 = calloc((size_t)t->n, sizeof *t->d64);
        if (!t->d64) {
            t->failed = 1;
            return;
        }
        if (t->d32)
            for (int64_t x = 0; x < t->n; x++)
                t->d64[x] = t->d32[x];
        free(t->d32);
        t->d32 = NULL;
    } else if (!t->d64 && !t->d32) {
        t->d32 = calloc((size_t)t->n, sizeof *t->d32);
        if (!t->d32) {
            t->failed = 1;
            return;
        }
    }
    for (int i = 0; i < t->nlist; i++) {
        tally_list *l = &t->list[i];
        for (int64_t j = 0; j < l->len; j++) {
            if (t->d64)
                t->d64[l->v[j]]++;
            else
                t->d32[l->v[j]]++;
        }
        t->dtotal += l->len;
        free(l->v);
        l->v = NULL;
        l->len = l->cap = 0;
    }
}

void cc_tally_fold(const cc_tally *t, const int32_t *label, int nthreads, int64_t *comp_edges,
                   int64_t *self_loops, int64_t *nonloop)
{
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    int64_t loops = 0, counted = t->dtotal;
    for (int i = 0; i < t->nlist; i++) {
        const tally_list *l = &t->list[i];
        int64_t giant = 0;
        loops += l->loops;
        counted += l->len;
        /* nearly every entry is in the giant (label 0): counted in a
         * register, the others with atomics */
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : giant)
        for (int64_t j = 0; j < l->len; j++) {
            const int32_t c = label[l->v[j]];
            if (c == 0)
                giant++;
            else
#pragma omp atomic
                comp_edges[c]++;
        }
        if (giant)
            comp_edges[0] += giant;
    }
    for (int64_t b = 0; b < t->nbulk; b++) {
        comp_edges[label[t->bulk_v[b]]] += t->bulk_w[b];
        counted += t->bulk_w[b];
    }
    if (t->d32 || t->d64)
        for (int64_t x = 0; x < t->n; x++) {
            const uint64_t c = t->d32 ? t->d32[x] : t->d64[x];
            if (c)
                comp_edges[label[x]] += (int64_t)c;
        }
    *self_loops += loops;
    *nonloop += counted;
}

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
 * of the enclosing parallel region, in passes over chunks of vertices (the
 * old version took five: the flatten, a fill of next, tail and size for
 * every vertex, the lists, and the unseen vertices with the bitmap).
 * First: root[v] = v's root, in place (no union runs, so each write stores
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

/* Words of the giant bitmap: a power of two (the filter's prefetches mask
 * ids into it), at least (n + 63) / 64; the words past those stay 0. */
static uint64_t giant_words(uint64_t n)
{
    uint64_t w = 1;
    while (w < (n + 63) / 64)
        w *= 2;
    return w;
}

/* From this many vertices up (a bitmap of 1 MiB: twice this machine's
 * L2 per core) the filter prefetches the bitmap words of the edge
 * CC_FILTER_AHEAD places ahead: the words then come from L3 or memory,
 * and the two loads of each edge, issued in order, left most of that
 * latency exposed. Below, the bitmap stays in L2 and the prefetches only
 * cost instructions. SCALE 24, one thread, the list linked in pieces of
 * 2^20 edges: 1.38-1.62 s against 1.55-1.74 (best of 2, four alternated
 * pairs); SCALE 23 0.67-0.74 against 0.77-1.10 (three). */
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
 * test is left out (it made the in-memory link 8-10% slower at SCALE 20:
 * six alternated pairs of `bench_cc 20 2 7`, forest 32.6-36.1 ms against
 * 30.4-35.2). The bitmap may be written meanwhile (relaxed loads; a stale word
 * only keeps an edge for nothing). Its speed is that of the two bitmap
 * loads per edge (misses of L1, hits of L2): a 64-bit store per pair, an
 * AVX2 version (two gathers per four edges) and dropping the store all
 * measured the same or slower. Not inlined: inlined into the parallel
 * path's thread function, the loop spilled a bitmap word to the stack
 * (register pressure of the enclosing function), 15% slower. */
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
static int64_t filter_giant(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, const uint64_t *giant,
                            int32_t *restrict out, int64_t *bad)
{
    return n >= CC_FILTER_AHEAD_N ? filter_far(e, lo, hi, n, giant, out, bad)
                                  : filter_near(e, lo, hi, n, giant, out, bad);
}

static int64_t filter_giant_loops(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, const uint64_t *giant,
                                  int32_t *restrict out, int64_t *bad)
{
    return n >= CC_FILTER_AHEAD_N ? filter_far_loops(e, lo, hi, n, giant, out, bad)
                                  : filter_near_loops(e, lo, hi, n, giant, out, bad);
}

/* Scan edges [lo, hi) of the parallel path: an edge with both ends in the
 * giant bitmap is dropped on two bit tests (filter_giant); the others are
 * linked in the parent forest at once, and a vertex that thereby joins a
 * marked vertex gets its bit (an atomic or: the other threads read and set
 * bits meanwhile; a bit only ever means "in the giant's set", which stays
 * true). *bad: the smallest index of an edge with a vertex outside
 * [0, n), if below. t (may be NULL): the kept edges are tallied in l; the
 * number dropped is returned (the caller tallies them in bulk). */
/* Candidates ahead of the union at which the parent entries of both ends
 * are prefetched (for writing: the union may hook or halve there). The
 * candidates' ends are random vertices, so each find starts with a miss
 * in the 4 n-byte parent array; issued one union at a time those misses
 * form one dependent chain, prefetched they overlap. The sample's unions
 * prefetch the same distance ahead in the edge list, and the scan path the
 * root entries of its candidates (scan_chunk, link_pending). */
#define CC_AHEAD 16

static int64_t scan_union(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, int32_t *parent,
                          uint64_t *giant, int32_t *restrict buf, int64_t *bad, cc_tally *t, tally_list *l)
{
    const int64_t k = t ? filter_giant_loops(e, lo, hi, n, giant, buf, bad)
                        : filter_giant(e, lo, hi, n, giant, buf, bad);
    if (t)
        tally_pairs(t, l, buf, k);
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
    return hi - lo - k;
}

/* Edges linked unfiltered first by the parallel path: N / 4 left the
 * giant smaller but cost less than the unions they saved (the scan's
 * unions run as fast, on both threads): 5-12% less CPU time than N edges
 * at SCALE 20 and 22 in alternated A/B runs. */
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

/* The parallel path (see the file comment): link edges [0, count) in a
 * parent-pointer forest kept in the root array itself, starting from the
 * sets the forest holds, then turn it into the root vector, the son lists
 * and an exact giant bitmap in three passes over the vertices (build_sets).
 * Out: the smallest index of an edge with a vertex outside [0, n), or
 * count when there is none; the edges before and after it are linked all
 * the same, so the forest is valid either way; -1: out of memory. */
static int64_t link_parallel(cc_forest *f, const int64_t *edges, int64_t count, int nt)
{
    const int64_t n = f->n, words = (n + 63) / 64;
    const int64_t sample = count < CC_SAMPLE(n) ? count : CC_SAMPLE(n);
    const int64_t vc = vertex_chunk(n), nvc = (n + vc - 1) / vc;
    int32_t *restrict parent = f->root, *restrict next = f->next, *restrict size = f->size;
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
    if (!buf || !chain || (t && !tally_lists(t, nt))) {
        free(buf);
        free(chain);
        return -1;
    }
#pragma omp parallel num_threads(nt) reduction(min : bad) reduction(+ : dropped)
    {
        int32_t *tbuf = buf + 2 * CC_UNION_CHUNK * omp_get_thread_num();
        tally_list *tl = t ? &t->list[omp_get_thread_num()] : NULL;
        /* The parent forest lives in root: sets already held become trees
         * of depth one (a root may be any member: hooking a root only under
         * a smaller root keeps the forest acyclic whatever the trees are),
         * an unseen vertex its own root. The son lists are rebuilt from
         * scratch at the end: next starts empty. */
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
        /* The sample: every edge linked, no filter yet. */
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
                if (i < bad)
                    bad = i;
                continue;
            }
            if (u != v)
                uf_union(parent, (int32_t)u, (int32_t)v);
        }
        /* The sample's edges are tallied one by one (an even share per
         * thread; no id is outside [0, n) unless the call fails). */
        if (t) {
            const int th = omp_get_thread_num(), tn = omp_get_num_threads();
            tally_edges(t, tl, edges, sample * th / tn, sample * (th + 1) / tn);
        }
        /* (the loop's barrier orders the unions before the election) */
#pragma omp single
        g = elect_giant(parent, n);
        if (sample < count) {
            /* Every vertex points at its root from here (no union runs
             * during this pass, so each write stores the true root and a
             * concurrent find reads an ancestor either way), and the
             * giant's members get their bits. */
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
    /* G's list: G, then each chunk's chain in chunk (= vertex) order. */
    if (G >= 0) {
        int32_t end = G;
        int64_t members = 1;
        for (int64_t c = 0; c < nvc; c++)
            if (chain[3 * c] >= 0) {
                next[end] = (int32_t)chain[3 * c];
                end = (int32_t)chain[3 * c + 1];
                members += chain[3 * c + 2];
            }
        size[G] = (int32_t)members; /* >= 2: G was met by two probes */
    }
    free(chain);
    f->groot = G;
    if (t)
        tally_bulk(t, g, dropped);  /* dropped: both ends in g's set */
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
    const int64_t k = t ? filter_giant_loops(e, lo, hi, n, giant, out, bad)
                        : filter_giant(e, lo, hi, n, giant, out, bad);
    if (t)
        tally_pairs(t, l, out, k);
    *dropped += hi - lo - k;
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
    cc_tally *t = f->tally;

    cap = count < CC_BLOCK ? count : CC_BLOCK;
    pend[0] = g5_malloc((size_t)cap * 4 * sizeof(int32_t), "pending edges");
    if (!pend[0])
        return G5_ERR_NOMEM;
    if (t && !tally_lists(t, nt)) {
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
            tally_bulk(t, groot, dropped);
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
        const int64_t bad = link_parallel(f, edges, count, nt);
        if (bad < 0)
            return g5_error(G5_ERR_NOMEM, "out of memory for the scan buffers or the edge tally");
        f->empty = 0;
        rc = bad < count ? bad_edge(edges, bad, first_index, f->n) : G5_OK;
    } else {
        rc = link_scan(f, edges, count, first_index, nt);
    }
    if (rc == G5_OK && f->tally) {
        tally_squeeze(f->tally);
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
        int64_t len = 0;
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
        }
        if (len != f->size[r])
            return g5_error(G5_ERR_INTERNAL, "forest: son list of %lld has %lld members, size says %d",
                            (long long)r, (long long)len, f->size[r]);
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
