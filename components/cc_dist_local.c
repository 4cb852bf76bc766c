/* SPDX-License-Identifier: MIT */
/*
 * cc_dist_local.c - the local step of the distributed merge (cc_dist.c):
 * each rank's slab reduced to a forest over compact ids, piece by piece,
 * so no rank holds an array of N entries (nor its slab).
 *
 * The distinct endpoints of the slab's non-self-loop tuples (at most
 * min(N, 2 M/P)) get local ids 0, 1, ... as they are first seen: from a
 * direct map of N int32 when N <= 2 x the slab's tuples, else from an
 * open addressing hash set of 64-bit slots ((original id + 1) << 32 |
 * local id, 0 empty) grown between pieces, at most 2/3 full. All threads
 * number with compare-and-swap; a slot's id is written after its key, and
 * a thread that meets a key without its id yet waits for it. gid[] maps a
 * local id back to the original one. Each piece is rewritten in place in
 * local ids (self-loops as (0, 0), so their vertex gets no id) and linked
 * into the root/son forest (cc_forest.c) over min(N, 2 M/P) local ids,
 * which tallies its edges (cc_tally.c) as on the tree path.
 *
 * Memory: the endpoint map (4 B * N <= 8 B per tuple) or hash set (8 B
 * per slot, 1.5-3 slots per local id), gid (8 B per local id, faulted in
 * as ids grow), the forest (4 B per id at creation, 8 B more per id seen)
 * and the tally; cc_dist_local_end keeps only gid, the local roots (4 B)
 * and the edges per local set (8 B per local id).
 */
#include "cc_internal.h"
#include "common.h"

#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* tuples ahead whose map entries or hash slots are prefetched */
#define RENAME_AHEAD 16
#define ID_PENDING UINT32_MAX  /* a slot's id while its numbering thread writes it */
/* The local step (cc_internal.h, cc_dist_local): endpoints numbered as first seen,
 * each piece rewritten in local ids and linked into a forest over them. */
struct cc_dist_local {
    int64_t n, bound;      /* vertices; bound >= local ids: min(n, 2 count) */
    int64_t nloc;          /* local ids handed out (atomic while renaming) */
    int32_t *map;          /* dense (n <= 2 count): [n] local id, -1 unseen, -2 being numbered */
    uint64_t *slot;        /* sparse: [cap] 0 empty, else (v + 1) << 32 | id */
    int64_t cap;
    int shift;
    int64_t *gid;          /* [bound] local id -> original id (faulted in as ids grow) */
    cc_forest *f;          /* over bound local ids, tallying */
    cc_tally *t;
};

int cc_dist_local_create(int64_t n, int64_t count, cc_dist_local **out)
{
    int rc = G5_OK;
    cc_dist_local *l = g5_calloc(1, sizeof *l, "components: local step");
    *out = NULL;
    if (!l)
        return G5_ERR_NOMEM;
    l->n = n;
    l->bound = 2 * count < n ? 2 * count : n;
    if (l->bound < 1)
        l->bound = 1;
    /* malloc'd large blocks are mmapped: gid's pages are faulted in only
     * as the ids reach them */
    l->gid = g5_malloc((size_t)l->bound * sizeof *l->gid, "components: local vertex ids");
    if (!l->gid)
        rc = G5_ERR_NOMEM;
    if (rc == G5_OK && n <= 2 * count) {
        l->map = g5_malloc((size_t)n * sizeof *l->map, "components: endpoint ids");
        if (l->map)
            memset(l->map, 0xff, (size_t)n * sizeof *l->map);
        else
            rc = G5_ERR_NOMEM;
    }
    if (rc == G5_OK)
        rc = cc_forest_create(l->bound, &l->f);
    if (rc == G5_OK)
        rc = cc_tally_create(l->bound, &l->t);
    if (rc == G5_OK)
        cc_forest_set_tally(l->f, l->t);
    if (rc != G5_OK)
        cc_dist_local_free(&l);
    *out = l;
    return rc;
}

void cc_dist_local_free(cc_dist_local **l)
{
    if (!l || !*l)
        return;
    cc_forest_free(&(*l)->f);
    cc_tally_free(&(*l)->t);
    free((*l)->map);
    free((*l)->slot);
    free((*l)->gid);
    free(*l);
    *l = NULL;
}

const int64_t *cc_dist_local_ids(const cc_dist_local *l, int64_t *nloc)
{
    *nloc = l->nloc;
    return l->gid;
}

/* A thread that finds v being numbered by another waits for the id (the
 * other thread is between two of its own stores). */
static void wait_turn(void) { sched_yield(); }

/* The local id of v, numbered now if v is new. Thread-safe. */
static inline int32_t id_dense(cc_dist_local *l, int64_t v)
{
    int32_t id = __atomic_load_n(&l->map[v], __ATOMIC_ACQUIRE), unseen = -1;
    if (id >= 0)
        return id;
    if (id == -1 && __atomic_compare_exchange_n(&l->map[v], &unseen, -2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        id = (int32_t)__atomic_fetch_add(&l->nloc, 1, __ATOMIC_RELAXED);
        l->gid[id] = v;
        __atomic_store_n(&l->map[v], id, __ATOMIC_RELEASE);
        return id;
    }
    while ((id = __atomic_load_n(&l->map[v], __ATOMIC_ACQUIRE)) < 0)
        wait_turn();
    return id;
}

static inline int32_t id_sparse(cc_dist_local *l, int64_t v)
{
    const uint64_t key = (uint64_t)(v + 1) << 32, mask = (uint64_t)l->cap - 1;
    for (uint64_t s = cc_hslot((uint32_t)v, l->shift);; s = (s + 1) & mask) {
        uint64_t w = __atomic_load_n(&l->slot[s], __ATOMIC_ACQUIRE);
        if (w == 0) {
            if (__atomic_compare_exchange_n(&l->slot[s], &w, key | ID_PENDING, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                const int32_t id = (int32_t)__atomic_fetch_add(&l->nloc, 1, __ATOMIC_RELAXED);
                l->gid[id] = v;
                __atomic_store_n(&l->slot[s], key | (uint32_t)id, __ATOMIC_RELEASE);
                return id;
            }
            /* w: what another thread put there first */
        }
        if ((w & ~(uint64_t)UINT32_MAX) == key) {
            while ((uint32_t)w == ID_PENDING) {
                wait_turn();
                w = __atomic_load_n(&l->slot[s], __ATOMIC_ACQUIRE);
            }
            return (int32_t)(uint32_t)w;
        }
    }
}

/* Room in the sparse set for the endpoints of len more tuples: at most
 * 2/3 full after them (cap a power of two, doubled at least, rehashed
 * here, between pieces). Not thread-safe. */
static int reserve(cc_dist_local *l, int64_t len)
{
    int64_t need = l->nloc + 2 * len, cap = l->cap > 0 ? l->cap : 1024;
    if (need > l->bound)
        need = l->bound;
    if (3 * need <= 2 * l->cap)
        return G5_OK;
    while (3 * need > 2 * cap || cap <= l->cap)
        cap *= 2;
    uint64_t *slot = g5_calloc((size_t)cap, sizeof *slot, "components: endpoint hash");
    if (!slot)
        return G5_ERR_NOMEM;
    int shift = 64;
    for (int64_t c = cap; c > 1; c /= 2)
        shift--;
    for (int64_t i = 0; i < l->cap; i++) {
        const uint64_t w = l->slot[i];
        if (w == 0)
            continue;
        uint64_t s = cc_hslot((uint32_t)((w >> 32) - 1), shift);
        while (slot[s])
            s = (s + 1) & (uint64_t)(cap - 1);
        slot[s] = w;
    }
    free(l->slot);
    l->slot = slot;
    l->cap = cap;
    l->shift = shift;
    return G5_OK;
}

int cc_dist_local_take(cc_dist_local *l, int64_t *edges, int64_t len, int64_t first_index, int nthreads)
{
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    int rc = G5_OK;
    if (len <= 0)
        return G5_OK;
    if (!l->map)
        rc = reserve(l, len);
    if (rc != G5_OK)
        return rc;
    /* self-loops as (0, 0): the link skips them and the tally counts them
     * apart, and their vertex gets no id (a vertex with only self-loops
     * stays isolated, as on the tree path) */
    if (l->map) {
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && len >= 65536)
        for (int64_t i = 0; i < len; i++) {
            const int64_t u = edges[2 * i], v = edges[2 * i + 1];
            if (i + RENAME_AHEAD < len) {
                __builtin_prefetch(&l->map[edges[2 * (i + RENAME_AHEAD)]]);
                __builtin_prefetch(&l->map[edges[2 * (i + RENAME_AHEAD) + 1]]);
            }
            edges[2 * i] = u == v ? 0 : id_dense(l, u);
            edges[2 * i + 1] = u == v ? 0 : id_dense(l, v);
        }
    } else {
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && len >= 65536)
        for (int64_t i = 0; i < len; i++) {
            const int64_t u = edges[2 * i], v = edges[2 * i + 1];
            if (i + RENAME_AHEAD < len) {
                __builtin_prefetch(&l->slot[cc_hslot((uint32_t)edges[2 * (i + RENAME_AHEAD)], l->shift)]);
                __builtin_prefetch(&l->slot[cc_hslot((uint32_t)edges[2 * (i + RENAME_AHEAD) + 1], l->shift)]);
            }
            edges[2 * i] = u == v ? 0 : id_sparse(l, u);
            edges[2 * i + 1] = u == v ? 0 : id_sparse(l, v);
        }
    }
    return cc_forest_link_edges(l->f, edges, len, first_index, nthreads);
}


int cc_dist_local_end(cc_dist_local **lp, int nthreads, int64_t *nloc, int64_t **gid, int32_t **lroot,
                      int64_t **ecnt, int64_t *self_loops, int64_t *nonloop)
{
    cc_dist_local *l = *lp;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    const size_t nl = (size_t)(l->nloc ? l->nloc : 1);
    int rc = G5_OK;

    *nloc = l->nloc;
    *lroot = g5_malloc(nl * sizeof **lroot, "components: local roots");
    *ecnt = g5_calloc(nl, sizeof **ecnt, "components: edges per local set");
    if (!*lroot || !*ecnt) {
        rc = G5_ERR_NOMEM;
    } else {
        memcpy(*lroot, cc_forest_roots(l->f), (size_t)l->nloc * sizeof **lroot);
        cc_forest_free(&l->f);
        free(l->map);
        free(l->slot);
        l->map = NULL;
        l->slot = NULL;
        cc_tally_fold(l->t, *lroot, nt, *ecnt, self_loops, nonloop);
        *gid = l->gid;
        l->gid = NULL;
    }
    cc_dist_local_free(lp);
    return rc;
}
