/* SPDX-License-Identifier: MIT */
/*
 * cc_forest.c - the union-find of one rank: the patent's root vector and
 * two-dimensional son vector (CN patent "基于连通分量生成优化的超级计算机
 * 基准测试加速方法", National University of Defense Technology, 2021):
 * root[v] = root of v's set (-1 unseen), son[r] = members of the set
 * rooted at r; merging moves the smaller member list into the larger and
 * rewrites the root of each moved vertex, so find is a single load.
 *
 * Encoding (cc_internal.h): the son lists are intrusive linked lists in
 * flat int32 arrays (next, size), 12 bytes per vertex, no allocation per
 * set; a joining vertex or a moved list goes right after the root, so no
 * tail is kept. A vertex moves only with the smaller of two sets, so the
 * set it lands in is at least twice the size of the one it leaves: each
 * vertex's root is rewritten at most log2(n) times, and a run costs
 * O(m + n log n), two loads per edge when both ends share a root.
 *
 * This file: the forest's arrays, the invariant check and the canonical
 * labelling (ids by size, ties by smallest member, so the labels depend
 * on the partition only). Linking: cc_link.c and cc_link_parallel.c.
 */
#include "cc_internal.h"
#include "common.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The three arrays in one block. From 2 MiB up it is aligned to 2 MiB and
 * asked for transparent huge pages (THP is often in madvise mode): the
 * links read and write the arrays at random, and with 4 KiB pages nearly
 * every such access misses the TLB once the arrays outgrow its reach,
 * and the first touch of each page is a fault. */
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

void cc_forest_set_tally(cc_forest *f, cc_tally *t) { f->tally = t; }

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
