/* SPDX-License-Identifier: MIT */
/*
 * cc_dist.c - connected components over ranks without any N-sized array on
 * a rank: the distributed path of cc_compute (--merge distributed).
 *
 * 1. Local forest over compact ids, piece by piece (cc_dist_local; the
 *    file's pieces as they are read, under the read of the next one when
 *    overlapped, or a whole slab's pieces renamed in a copy). The distinct
 *    endpoints of the slab's non-self-loop tuples (at most min(N, 2 M/P))
 *    get local ids 0, 1, ... as they are first seen, from a direct map of
 *    N int32 when N <= 2 x the slab's tuples, else from an open addressing
 *    hash set of 64-bit slots (original id + 1, local id) grown between
 *    pieces (at most 2/3 full); all threads number with compare-and-swap,
 *    a slot's id written after its key (a thread that meets a key without
 *    its id yet waits for it). local id -> original id is gid[]. Each
 *    piece is rewritten in place in local ids (self-loops as (0, 0)) and
 *    linked into the patent's root/son forest (cc_forest.c, unchanged)
 *    over min(N, 2 M/P) local ids, which tallies its edges as the tree
 *    path's does; so each rank holds the partition of its own endpoints
 *    ("local sets") and the edges of each, and no slab.
 *
 * 2. Distributed union-find over owner ranks. [0, N) is split in P blocks
 *    (the first N mod P ranks one vertex more, the same blocks as the rows
 *    of /label each rank writes); the owner of v holds f[v] (-1: v is in no
 *    non-loop tuple; otherwise a vertex of v's component with f[v] <= v,
 *    so the f[] form a forest whose roots have f[r] == r). Rounds, after
 *    Shiloach-Vishkin and FastSV (Zhang, Azad, Hu, "FastSV: a distributed-
 *    memory connected component algorithm with fast convergence", SIAM PP
 *    2020):
 *      gather  fl[i] = f[gid[i]] for every local vertex (first round: the
 *              owners set f[v] = v, which marks v seen);
 *      hook    per local set the minimum m of its fl; for each member i
 *              with fl[i] > m: f[gid[i]] = min(f[gid[i]], m) (aggressive
 *              hooking) and f[fl[i]] = min(f[fl[i]], m) (hooking the old
 *              parent, which moves its whole tree);
 *      jump    pointer jumping f[v] = f[f[v]] until no owned entry
 *              changes anywhere, so f is a forest of stars;
 *    until no local set has two fl values (an allreduce per round). Then
 *    local sets that share a vertex share its one f value, so a whole
 *    component has one value c = f[v] for all its v, and c is one of them
 *    (f values stay inside their component): the component is one star
 *    (the jumps only make the rounds fewer). As f[v0] <= v0 for its
 *    smallest vertex v0, c = v0: the root is the smallest vertex, which is
 *    also the canonical tie-break. Values only fall, so the rounds end.
 *
 * 3. Canonical labels. Vertices are counted at their root's owner (each
 *    rank sends one (root, count) per distinct root of its block, summed
 *    through a small hash table of the roots), edges per local set and
 *    then per root likewise. Every rank then gathers the list of
 *    (vertices, root, edges) of all components - O(number of components),
 *    for Graph500 graphs a few hundred at SCALE 20 - orders it (vertices
 *    descending, ties by root = smallest vertex ascending) and labels its
 *    own block of vertices, so the output is bit-identical to the tree path
 *    for any P and thread count.
 *
 * Exchanges: every request goes to the owner of its vertex by
 * MPI_Alltoallv in batches of at most d->batch (2^18) entries per rank (all ranks
 * take as many batches as the rank with the most). Requests that would hit
 * one vertex many times (the giant's root) are combined on the sending rank
 * first (sort, then one entry per key), so a root receives at most one
 * request per rank and round.
 *
 * Memory per rank, n_b = N/P owned vertices, n_l <= min(N, 2 M/P) local
 * vertices, c = slab tuples (no slab is held: one or two piece buffers).
 * Step 1: the endpoint map (a direct map of 4 B * N <= 8 B * c, or a hash
 * set of 8 B per slot at 1.5-3 slots per local id), gid (8 B * n_l,
 * faulted in as ids grow), the forest over min(N, 2c) ids (its root
 * vector, 4 B per id, filled at creation; 8 B more per id seen) and its
 * edge tally (4 B per tuple the giant filter keeps) while the pieces come;
 * then the local roots (4 B * n_l) and edges per local set (8 B * n_l),
 * the forest, map and tally freed. Step 2 adds fl and a per-set minimum (16 B *
 * n_l), f (8 B * n_b), the requests of a round (16 B per local vertex that
 * hooks, plus a sort scratch for the old-parent hooks), the jump targets
 * (32 B * n_b at most) and per batch 24 B * 2^18 sent plus what arrives.
 * The gather plan of step 2: 4 B per local vertex of send order and 4 B
 * per key received as owner, plus 16 B * P per batch of counts.
 * Step 3: two counters (16 B * n_b), the labels (4 B * n_b), the sums
 * per distinct root (about 24 B each) and the component list (40 B per
 * component). O(N/P + M/P) plus O(components).
 */
#include "cc.h"
#include "common.h"

#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY32 UINT32_MAX
#define DIST_BATCH ((int64_t)1 << 18) /* pairs per rank and batch: 6 MiB sent */

static int64_t batch_pairs = DIST_BATCH;  /* cc_dist_set_batch */

void cc_dist_set_batch(int64_t pairs) { batch_pairs = pairs > 0 ? pairs : DIST_BATCH; }

enum { X_GET, X_MIN, X_ADD_V, X_ADD_E };

typedef struct dist {
    MPI_Comm comm;
    int rank, p;
    int64_t n, q, rem;      /* blocks: rem blocks of q + 1 vertices, then q */
    int64_t first, count;   /* this rank's block */
    int64_t *f;             /* [count] parent, -1 unseen */
    int64_t *accv, *acce;   /* [count] vertices and edges counted at roots */
    int64_t batch;
    int64_t *sbuf, *perm, *rbuf;
    int64_t rcap;
    int *sc, *sd, *rc, *rd; /* [p] counts and displacements */
} dist;

typedef struct kv {
    int64_t k, v;
} kv;

/* The gathers of step 2 ask the owners for f of the same keys (the local
 * vertices' original ids) every round. The first gather records how it
 * went - per batch the counts and displacements, the send order, and on
 * the owner the keys received (as offsets in its block) - so that later
 * ones send no keys: the owners answer from the keys they kept, one
 * all-to-all per batch instead of three, no packing. 8 B per local vertex
 * (4 B of send order, about 4 B of kept keys). */
typedef struct gplan {
    int64_t nb;      /* batches recorded (the max over ranks) */
    int *cnt;        /* [nb][4][p]: sc, sd, rc, rd (in pairs of int64) */
    int32_t *perm;   /* [k]: position in the batch's send order -> offset of the key in the batch */
    int32_t *rkey;   /* [nrecv]: keys received, as offsets in the owner's block */
    int64_t nrecv, rcap;
} gplan;

static void gplan_free(gplan *g)
{
    free(g->cnt);
    free(g->perm);
    free(g->rkey);
    memset(g, 0, sizeof *g);
}

static int owner_of(const dist *d, int64_t v)
{
    const int64_t big = d->rem * (d->q + 1);
    return v < big ? (int)(v / (d->q + 1)) : (int)(d->rem + (v - big) / d->q);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* LSD radix sort of a[0, k) by key (keys in [0, 2^31)), 11 bits a pass,
 * only as many passes as the largest key needs; tmp holds k entries. */
static void radix_kv(kv *a, kv *tmp, int64_t k)
{
    int64_t maxk = 0, cnt[2048];
    for (int64_t i = 0; i < k; i++)
        if (a[i].k > maxk)
            maxk = a[i].k;
    for (int shift = 0; shift < 33 && (maxk >> shift) > 0; shift += 11) {
        memset(cnt, 0, sizeof cnt);
        for (int64_t i = 0; i < k; i++)
            cnt[(a[i].k >> shift) & 2047]++;
        for (int64_t d = 0, sum = 0; d < 2048; d++) {
            const int64_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < k; i++)
            tmp[cnt[(a[i].k >> shift) & 2047]++] = a[i];
        memcpy(a, tmp, (size_t)k * sizeof *a);
    }
}

/* Sort by key and keep one entry per key, with the minimum of its values
 * (the hooks of old parents). Returns the new count, or -1 when the sort's
 * scratch cannot be allocated (the error is recorded). */
static int64_t combine(kv *a, int64_t k)
{
    int64_t o = 0;
    if (k == 0)
        return 0;
    kv *tmp = g5_malloc((size_t)k * sizeof *tmp, "components: sort scratch");
    if (!tmp)
        return -1;
    radix_kv(a, tmp, k);
    free(tmp);
    for (int64_t i = 1; i < k; i++) {
        if (a[i].k == a[o].k) {
            if (a[i].v < a[o].v)
                a[o].v = a[i].v;
        } else {
            a[++o] = a[i];
        }
    }
    return o + 1;
}

static void dist_free(dist *d)
{
    free(d->f);
    free(d->accv);
    free(d->acce);
    free(d->sbuf);
    free(d->perm);
    free(d->rbuf);
    free(d->sc); /* sd, rc and rd point into it */
}

/* The block geometry; no allocation (dist_alloc does it once the local
 * forest is built, so the two never add up). Not collective. */
static void dist_init(dist *d, MPI_Comm comm, int64_t n)
{
    memset(d, 0, sizeof *d);
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->p);
    d->n = n;
    d->q = n / d->p;
    d->rem = n % d->p;
    d->first = d->rank * d->q + (d->rank < d->rem ? d->rank : d->rem);
    d->count = d->q + (d->rank < d->rem);
    /* 2 * batch * p int64 entries must fit an int count and displacement. */
    d->batch = batch_pairs;
    if (d->batch > INT_MAX / 4 / d->p)
        d->batch = INT_MAX / 4 / d->p;
}

/* Local phase: the owned parents (all unseen) and the exchange buffers.
 * The counters accv and acce come later (dist_counters). Not collective. */
static int dist_alloc(dist *d)
{
    d->f = g5_malloc((size_t)(d->count ? d->count : 1) * sizeof *d->f, "components: owned parents");
    d->sbuf = g5_malloc((size_t)d->batch * 2 * sizeof *d->sbuf, "components: send buffer");
    d->perm = g5_malloc((size_t)d->batch * sizeof *d->perm, "components: send order");
    d->sc = g5_malloc((size_t)d->p * 4 * sizeof(int), "components: exchange counts");
    if (!d->f || !d->sbuf || !d->perm || !d->sc)
        return G5_ERR_NOMEM;
    d->sd = d->sc + d->p;
    d->rc = d->sd + d->p;
    d->rd = d->rc + d->p;
    for (int64_t i = 0; i < d->count; i++)
        d->f[i] = -1;
    return G5_OK;
}

/* Collective. Send (key[i * stride], val[i * stride]) (val NULL: 0) for
 * i < k to the owner of the key, which applies op to its entry: X_GET replies f[key] in reply[i]
 * (an unseen key is first set to itself), X_MIN lowers f[key] to val and
 * counts the entries it lowered in *changed, X_ADD_V / X_ADD_E add val to
 * the vertex / edge counter of key. Batches of at most d->batch entries. */
static int exchange_plan(dist *d, int op, const int64_t *key, const int64_t *val, int64_t stride,
                         int64_t k, int64_t *reply, int64_t *changed, gplan *plan)
{
    int64_t nb = (k + d->batch - 1) / d->batch, maxnb = 0;
    const int p = d->p;
    int prc = G5_OK;
    if (MPI_Allreduce(&nb, &maxnb, 1, MPI_INT64_T, MPI_MAX, d->comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
    if (plan) {
        gplan_free(plan);
        plan->nb = maxnb;
        plan->cnt = g5_malloc((size_t)(maxnb ? maxnb : 1) * 4 * (size_t)p * sizeof(int), "components: gather plan");
        plan->perm = g5_malloc((size_t)(k ? k : 1) * sizeof *plan->perm, "components: gather plan");
        if (!plan->cnt || !plan->perm)
            prc = G5_ERR_NOMEM;
        prc = g5_agree(d->comm, prc);
        if (prc != G5_OK) {
            gplan_free(plan);
            return prc;
        }
    }
    for (int64_t b = 0; b < maxnb; b++) {
        const int64_t lo = b * d->batch < k ? b * d->batch : k;
        const int64_t hi = lo + d->batch < k ? lo + d->batch : k;
        int64_t total = 0;
        memset(d->sc, 0, (size_t)p * sizeof(int));
        for (int64_t i = lo; i < hi; i++)
            d->sc[owner_of(d, key[i * stride])]++;
        d->sd[0] = 0;
        for (int r = 1; r < p; r++)
            d->sd[r] = d->sd[r - 1] + d->sc[r - 1];
        for (int64_t i = lo; i < hi; i++) {
            const int o = owner_of(d, key[i * stride]);
            const int64_t j = d->sd[o]++;
            d->sbuf[2 * j] = key[i * stride];
            d->sbuf[2 * j + 1] = val ? val[i * stride] : 0;
            d->perm[j] = i;
        }
        for (int r = 0; r < p; r++)
            d->sd[r] = r ? d->sd[r - 1] + d->sc[r - 1] : 0;
        int grc = g5_exchange_counts(d->comm, G5_OK, d->sc, d->rc, d->rd, &total, "components");
        if (grc == G5_OK && 2 * total > d->rcap) {
            free(d->rbuf);
            d->rcap = 2 * total;
            d->rbuf = g5_malloc((size_t)d->rcap * sizeof *d->rbuf, "components: receive buffer");
            if (!d->rbuf) {
                d->rcap = 0;
                grc = G5_ERR_NOMEM;
            }
        }
        /* a (key, value) pair travels as one record of two int64 */
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_INT64_T, &pair);
        MPI_Type_commit(&pair);
        grc = g5_exchange_data(d->comm, grc, pair, d->sbuf, d->sc, d->sd, d->rbuf, d->rc, d->rd,
                               "components");
        MPI_Type_free(&pair);
        if (grc != G5_OK)
            return grc;
        if (plan) {
            int *c = plan->cnt + (size_t)b * 4 * (size_t)p;
            memcpy(c, d->sc, (size_t)p * 4 * sizeof(int));  /* sc, sd, rc, rd are contiguous */
            for (int64_t j = 0; j < hi - lo; j++)
                plan->perm[lo + j] = (int32_t)(d->perm[j] - lo);
            if (plan->nrecv + total > plan->rcap) {
                const int64_t cap = 2 * (plan->nrecv + total);
                int32_t *rk = realloc(plan->rkey, (size_t)cap * sizeof *rk);
                if (rk) {
                    plan->rkey = rk;
                    plan->rcap = cap;
                } else {
                    prc = G5_ERR_NOMEM;
                }
            }
            for (int64_t j = 0; prc == G5_OK && j < total; j++)
                plan->rkey[plan->nrecv + j] = (int32_t)(d->rbuf[2 * j] - d->first);
            plan->nrecv += total;
        }
        int64_t low = 0;
        for (int64_t j = 0; j < total; j++) {
            const int64_t v = d->rbuf[2 * j] - d->first, x = d->rbuf[2 * j + 1];
            switch (op) {
            case X_GET:
                if (d->f[v] < 0)
                    d->f[v] = v + d->first;
                d->rbuf[j] = d->f[v]; /* j <= 2 j: read before written */
                break;
            case X_MIN:
                if (x < d->f[v]) {
                    d->f[v] = x;
                    low++;
                }
                break;
            case X_ADD_V:
                d->accv[v] += x;
                break;
            default:
                d->acce[v] += x;
                break;
            }
        }
        if (changed)
            *changed += low;
        if (op != X_GET)
            continue;
        int xrc = g5_exchange_data(d->comm, G5_OK, MPI_INT64_T, d->rbuf, d->rc, d->rd, d->sbuf,
                                   d->sc, d->sd, "components: replies");
        if (xrc != G5_OK)
            return xrc;
        for (int64_t j = 0; j < hi - lo; j++)
            reply[d->perm[j]] = d->sbuf[j];
    }
    if (plan) {
        prc = g5_agree(d->comm, prc == G5_OK ? G5_OK : g5_error(prc, "components: gather plan"));
        if (prc != G5_OK)
            gplan_free(plan);
        return prc;
    }
    return G5_OK;
}

static int exchange(dist *d, int op, const int64_t *key, const int64_t *val, int64_t stride,
                    int64_t k, int64_t *reply, int64_t *changed)
{
    return exchange_plan(d, op, key, val, stride, k, reply, changed, NULL);
}

/* A gather of f for the keys the plan recorded (reply[i] for key i), no
 * keys sent. Collective. */
static int gather_planned(dist *d, const gplan *plan, int64_t *reply)
{
    const int p = d->p;
    int64_t off = 0;
    for (int64_t b = 0; b < plan->nb; b++) {
        const int *c = plan->cnt + (size_t)b * 4 * (size_t)p, *sc = c, *sd = c + p, *rc = c + 2 * p, *rd = c + 3 * p;
        int64_t total = 0, sent = 0;
        for (int r = 0; r < p; r++) {
            total += rc[r];
            sent += sc[r];
        }
        for (int64_t j = 0; j < total; j++)
            d->rbuf[j] = d->f[plan->rkey[off + j]];
        off += total;
        int xrc = g5_exchange_data(d->comm, G5_OK, MPI_INT64_T, d->rbuf, rc, rd, d->sbuf, sc, sd,
                                   "components: replies");
        if (xrc != G5_OK)
            return xrc;
        const int64_t lo = b * d->batch;
        for (int64_t j = 0; j < sent; j++)
            reply[lo + plan->perm[lo + j]] = d->sbuf[j];
    }
    return G5_OK;
}

/* Send a (key, value) list with op, no copy. Collective. */
static int exchange_kv(dist *d, int op, const kv *a, int64_t k, int64_t *changed)
{
    static const kv none = {0, 0};
    if (k == 0)
        a = &none;
    return exchange(d, op, &a->k, &a->v, 2, k, NULL, changed);
}

/* Distinct keys in the order first met, found through an open addressing
 * table of their indices (int32, -1 empty) that doubles at half full, each
 * with a value: the targets of one jump round (the values their owners
 * answer), or the roots of step 3's counts (the sums). Most entries point
 * at a few roots, so the table stays small and in cache. */
typedef struct targets {
    int64_t *key, *val;   /* [cap_k]: the targets, then what their owners answer */
    int64_t n, cap_k;
    int32_t *slot;        /* [cap] */
    int64_t cap;
    int shift;
} targets;

static void targets_free(targets *t)
{
    free(t->key);
    free(t->val);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

/* Fibonacci hashing of a vertex id (< 2^31) to one of 2^(64 - shift)
 * slots: the jump's targets and the local step's endpoint set. */
static inline uint64_t hslot(uint32_t v, int shift)
{
    return ((uint64_t)v * 0x9e3779b97f4a7c15ULL) >> shift;
}

/* Empty the set, keeping (or first making) its arrays. */
static int targets_reset(targets *t)
{
    if (!t->slot) {
        t->cap = 4096;
        t->shift = 64 - 12;
        t->slot = g5_malloc((size_t)t->cap * sizeof *t->slot, "components: jump targets");
        if (!t->slot)
            return G5_ERR_NOMEM;
    }
    memset(t->slot, 0xff, (size_t)t->cap * sizeof *t->slot);
    t->n = 0;
    return G5_OK;
}

/* The index of x in t->key, added if new; -1 when out of memory. */
static int64_t targets_index(targets *t, int64_t x)
{
    const uint64_t mask = (uint64_t)t->cap - 1;
    uint64_t s = hslot((uint32_t)x, t->shift);
    for (; t->slot[s] >= 0; s = (s + 1) & mask)
        if (t->key[t->slot[s]] == x)
            return t->slot[s];
    if (t->n == t->cap_k) {
        const int64_t c = t->cap_k ? 2 * t->cap_k : 1024;
        int64_t *k = realloc(t->key, (size_t)c * sizeof *k), *v;
        if (!k)
            return -1;
        t->key = k;
        v = realloc(t->val, (size_t)c * sizeof *v);
        if (!v)
            return -1;
        t->val = v;
        t->cap_k = c;
    }
    if (2 * (t->n + 1) > t->cap) {
        /* double the table and put the indices back */
        int32_t *ns = g5_malloc((size_t)t->cap * 2 * sizeof *ns, "components: jump targets");
        if (!ns)
            return -1;
        free(t->slot);
        t->slot = ns;
        t->cap *= 2;
        t->shift--;
        memset(t->slot, 0xff, (size_t)t->cap * sizeof *t->slot);
        for (int64_t j = 0; j < t->n; j++) {
            uint64_t q = hslot((uint32_t)t->key[j], t->shift);
            while (t->slot[q] >= 0)
                q = (q + 1) & ((uint64_t)t->cap - 1);
            t->slot[q] = (int32_t)j;
        }
        s = hslot((uint32_t)x, t->shift);
        while (t->slot[s] >= 0)
            s = (s + 1) & ((uint64_t)t->cap - 1);
    }
    t->key[t->n] = x;
    t->val[t->n] = 0;
    t->slot[s] = (int32_t)t->n;
    return t->n++;
}

/* t->val of key x += v (a key first met starts at 0). */
static int targets_add(targets *t, int64_t x, int64_t v)
{
    const int64_t j = targets_index(t, x);
    if (j < 0 || j > INT32_MAX)
        return g5_error(G5_ERR_NOMEM, "components: count requests");
    t->val[j] += v;
    return G5_OK;
}

/* Pointer jumping until no owned entry changes on any rank: an owned
 * target is read in place, the others are asked of their owners once per
 * distinct target and round (idx[i]: entry i's target's index, -1 none;
 * before, the targets were sorted and each entry found again by binary
 * search: SCALE 24, 2 ranks, merge 2.1-2.6 s, now 1.5-1.6). Collective. */
static int jump(dist *d)
{
    int rc = G5_OK;
    targets tg;
    int32_t *idx = g5_malloc((size_t)(d->count ? d->count : 1) * sizeof *idx, "components: jump targets");
    memset(&tg, 0, sizeof tg);
    rc = g5_agree(d->comm, idx ? G5_OK : G5_ERR_NOMEM);
    for (; rc == G5_OK;) {
        int64_t changed = 0, all = 0;
        rc = targets_reset(&tg);
        for (int64_t i = 0; rc == G5_OK && i < d->count; i++) {
            const int64_t x = d->f[i];
            idx[i] = -1;
            if (x < 0 || x == d->first + i)
                continue;
            if (x >= d->first && x < d->first + d->count) {
                const int64_t y = d->f[x - d->first];
                if (y != x) {
                    d->f[i] = y;
                    changed++;
                }
            } else {
                const int64_t j = targets_index(&tg, x);
                if (j < 0 || j > INT32_MAX)
                    rc = g5_error(G5_ERR_NOMEM, "components: jump targets");
                idx[i] = (int32_t)j;
            }
        }
        rc = g5_agree(d->comm, rc);
        if (rc == G5_OK)
            rc = exchange(d, X_GET, tg.key, NULL, 1, tg.n, tg.val, NULL);
        if (rc == G5_OK) {
            for (int64_t i = 0; i < d->count; i++) {
                if (idx[i] < 0)
                    continue;
                const int64_t y = tg.val[idx[i]];
                if (y != d->f[i]) {
                    d->f[i] = y;
                    changed++;
                }
            }
            if (MPI_Allreduce(&changed, &all, 1, MPI_INT64_T, MPI_SUM, d->comm) != MPI_SUCCESS)
                rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
        }
        if (rc == G5_OK && all == 0)
            break;
    }
    targets_free(&tg);
    free(idx);
    return rc;
}

/* ---- step 1, piece by piece -------------------------------------------- */

#ifndef RENAME_AHEAD
#define RENAME_AHEAD 16
#endif
#define ID_PENDING UINT32_MAX  /* a slot's id while its numbering thread writes it */

/* The local step (cc.h, cc_dist_local): endpoints numbered as first seen,
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
    for (uint64_t s = hslot((uint32_t)v, l->shift);; s = (s + 1) & mask) {
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
        uint64_t s = hslot((uint32_t)((w >> 32) - 1), shift);
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
                __builtin_prefetch(&l->slot[hslot((uint32_t)edges[2 * (i + RENAME_AHEAD)], l->shift)]);
                __builtin_prefetch(&l->slot[hslot((uint32_t)edges[2 * (i + RENAME_AHEAD) + 1], l->shift)]);
            }
            edges[2 * i] = u == v ? 0 : id_sparse(l, u);
            edges[2 * i + 1] = u == v ? 0 : id_sparse(l, v);
        }
    }
    return cc_forest_link_edges(l->f, edges, len, first_index, nthreads);
}

typedef struct comp {
    int64_t vertices, root, edges;
} comp;

static int cmp_comp(const void *a, const void *b)
{
    const comp *x = a, *y = b;
    if (x->vertices != y->vertices)
        return x->vertices > y->vertices ? -1 : 1;
    return x->root < y->root ? -1 : x->root > y->root;
}

int cc_dist_local_finish(MPI_Comm comm, int status, cc_dist_local **lp, int nthreads, cc_result *r,
                         int64_t *self_loops, int64_t *nonloop)
{
    int rc = status;
    dist d;
    cc_dist_local *l = lp ? *lp : NULL;
    int64_t *gid = NULL, *fl = NULL, *mn = NULL, *ecnt = NULL, nloc = 0;
    int32_t *lroot = NULL;
    kv *req = NULL;
    gplan plan;
    targets sums;
    comp *mine = NULL, *all = NULL;
    int *cnts = NULL, *displ = NULL;
    int64_t *byroot = NULL;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    double t = g5_now();

    memset(&plan, 0, sizeof plan);
    memset(&sums, 0, sizeof sums);
    dist_init(&d, comm, l ? l->n : r->nvertices);
    if (rc == G5_OK && !l)
        rc = g5_error(G5_ERR_INTERNAL, "components: no local step to finish");
    /* Step 1's end: the local sets (roots) and their edges (the tally's
     * fold); the forest, tally and endpoint map go, gid stays. */
    if (rc == G5_OK) {
        nloc = l->nloc;
        lroot = g5_malloc((size_t)(nloc ? nloc : 1) * sizeof *lroot, "components: local roots");
        ecnt = g5_calloc((size_t)(nloc ? nloc : 1), sizeof *ecnt, "components: edges per local set");
        if (!lroot || !ecnt)
            rc = G5_ERR_NOMEM;
    }
    if (rc == G5_OK) {
        memcpy(lroot, cc_forest_roots(l->f), (size_t)nloc * sizeof *lroot);
        cc_forest_free(&l->f);
        free(l->map);
        free(l->slot);
        l->map = NULL;
        l->slot = NULL;
        cc_tally_fold(l->t, lroot, nt, ecnt, self_loops, nonloop);
        cc_tally_free(&l->t);
        gid = l->gid;
        l->gid = NULL;
    }
    cc_dist_local_free(lp);
    if (rc == G5_OK) {
        const size_t nl = (size_t)(nloc ? nloc : 1);
        fl = g5_malloc(nl * sizeof *fl, "components: local parents");
        mn = g5_malloc(nl * sizeof *mn, "components: per-set scratch");
        if (!fl || !mn)
            rc = G5_ERR_NOMEM;
    }
    if (rc == G5_OK)
        rc = dist_alloc(&d);
    r->t_link += g5_now() - t;
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;

    /* Step 2: rounds of gather, hook, jump. */
    t = g5_now();
    G5_TRY(exchange_plan(&d, X_GET, gid, NULL, 1, nloc, fl, NULL, &plan));
    for (;;) {
        int64_t k = 0, nreq = 0, changed = 0;
        for (int64_t i = 0; i < nloc; i++)
            mn[i] = INT64_MAX;
        for (int64_t i = 0; i < nloc; i++)
            if (fl[i] < mn[lroot[i]])
                mn[lroot[i]] = fl[i];
        int64_t ka = 0, kh = 0;
        for (int64_t i = 0; i < nloc; i++)
            if (fl[i] > mn[lroot[i]]) {
                ka++;
                kh += fl[i] != gid[i];
            }
        req = g5_malloc((size_t)(ka + kh + 1) * sizeof *req, "components: hook requests");
        rc = g5_agree(comm, req ? G5_OK : G5_ERR_NOMEM);
        if (rc != G5_OK)
            goto out;
        /* [0, ka): aggressive hooks, one per local vertex, distinct keys;
         * [ka, ka + kh): hooks of old parents, combined (many share one) */
        ka = kh = 0;
        for (int64_t i = 0; i < nloc; i++) {
            const int64_t m = mn[lroot[i]];
            if (fl[i] > m)
                req[ka++] = (kv){gid[i], m};
        }
        for (int64_t i = 0; i < nloc; i++) {
            const int64_t m = mn[lroot[i]];
            if (fl[i] > m && fl[i] != gid[i])
                req[ka + kh++] = (kv){fl[i], m};
        }
        kh = combine(req + ka, kh);
        rc = kh < 0 ? G5_ERR_NOMEM : G5_OK;
        k = ka + kh;
        G5_TRY(g5_agree(comm, rc));
        if (MPI_Allreduce(&k, &nreq, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
            rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
        G5_TRY(g5_agree(comm, rc));
        if (nreq == 0)
            break;
        G5_TRY(exchange_kv(&d, X_MIN, req, k, &changed));
        free(req);
        req = NULL;
        G5_TRY(jump(&d));
        G5_TRY(gather_planned(&d, &plan, fl));
        r->rounds++;
    }
    free(req);
    req = NULL;
    gplan_free(&plan);
    r->t_merge = g5_now() - t;

    /* Step 3: counts at the roots' owners, the component list, labels. */
    t = g5_now();
    {
        const size_t nb = (size_t)(d.count ? d.count : 1);
        d.accv = g5_calloc(nb, sizeof *d.accv, "components: owned vertex counts");
        d.acce = g5_calloc(nb, sizeof *d.acce, "components: owned edge counts");
        G5_TRY(g5_agree(comm, d.accv && d.acce ? G5_OK : G5_ERR_NOMEM));
        /* edges per local set, then per root (a set's members share fl),
         * summed per root here (one request per root and rank), then
         * vertices per root likewise */
        rc = targets_reset(&sums);
        for (int64_t i = 0; rc == G5_OK && i < nloc; i++)
            if (lroot[i] == i && ecnt[i] > 0)
                rc = targets_add(&sums, fl[i], ecnt[i]);
        G5_TRY(g5_agree(comm, rc));
        G5_TRY(exchange(&d, X_ADD_E, sums.key, sums.val, 1, sums.n, NULL, NULL));
        rc = targets_reset(&sums);
        for (int64_t i = 0; rc == G5_OK && i < d.count; i++)
            if (d.f[i] >= 0)
                rc = targets_add(&sums, d.f[i], 1);
        G5_TRY(g5_agree(comm, rc));
        G5_TRY(exchange(&d, X_ADD_V, sums.key, sums.val, 1, sums.n, NULL, NULL));
        targets_free(&sums);
    }
    {
        int64_t nmine = 0, ncomp = 0;
        for (int64_t i = 0; i < d.count; i++)
            nmine += d.f[i] == d.first + i;
        mine = g5_malloc((size_t)(nmine ? nmine : 1) * sizeof *mine, "components: own components");
        cnts = g5_malloc((size_t)d.p * 2 * sizeof *cnts, "components: gather counts");
        rc = (mine && cnts) ? G5_OK : G5_ERR_NOMEM;
        if (rc == G5_OK && nmine * 3 > INT_MAX)
            rc = g5_error(G5_ERR_ARG, "components: %lld components on one rank", (long long)nmine);
        G5_TRY(g5_agree(comm, rc));
        displ = cnts + d.p;
        nmine = 0;
        for (int64_t i = 0; i < d.count; i++)
            if (d.f[i] == d.first + i)
                mine[nmine++] = (comp){d.accv[i], d.first + i, d.acce[i]};
        int c3 = (int)(3 * nmine);
        if (MPI_Allgather(&c3, 1, MPI_INT, cnts, 1, MPI_INT, comm) != MPI_SUCCESS)
            rc = g5_error(G5_ERR_MPI, "components: MPI_Allgather failed");
        G5_TRY(g5_agree(comm, rc));
        for (int i = 0; i < d.p; i++) {
            displ[i] = (int)(ncomp * 3);
            ncomp += cnts[i] / 3;
            if (ncomp * 3 > INT_MAX)
                rc = g5_error(G5_ERR_ARG, "components: %lld components are more than one gather holds",
                              (long long)ncomp);
        }
        G5_TRY(g5_agree(comm, rc));
        all = g5_malloc((size_t)(ncomp ? ncomp : 1) * sizeof *all, "components: component list");
        r->comp_vertices = g5_malloc((size_t)(ncomp ? ncomp : 1) * sizeof(int64_t), "component sizes");
        r->comp_edges = g5_malloc((size_t)(ncomp ? ncomp : 1) * sizeof(int64_t), "component edges");
        byroot = g5_malloc((size_t)(ncomp ? ncomp : 1) * 2 * sizeof *byroot, "components: root ids");
        r->label = g5_malloc((size_t)(d.count ? d.count : 1) * sizeof *r->label, "components: labels");
        rc = (all && r->comp_vertices && r->comp_edges && byroot && r->label) ? G5_OK : G5_ERR_NOMEM;
        G5_TRY(g5_agree(comm, rc));
        if (MPI_Allgatherv(mine, c3, MPI_INT64_T, all, cnts, displ, MPI_INT64_T, comm) != MPI_SUCCESS)
            rc = g5_error(G5_ERR_MPI, "components: MPI_Allgatherv failed");
        G5_TRY(g5_agree(comm, rc));
        qsort(all, (size_t)ncomp, sizeof *all, cmp_comp);
        /* byroot: (root, id) pairs sorted by root, for the label lookups */
        for (int64_t c = 0; c < ncomp; c++) {
            r->comp_vertices[c] = all[c].vertices;
            r->comp_edges[c] = all[c].edges;
            byroot[2 * c] = all[c].root;
            byroot[2 * c + 1] = c;
        }
        qsort(byroot, (size_t)ncomp, 2 * sizeof *byroot, cmp_i64);
        int64_t last_root = -1, last_id = -1;
        for (int64_t i = 0; i < d.count; i++) {
            const int64_t x = d.f[i];
            if (x < 0) {
                r->label[i] = -1;
                continue;
            }
            if (x != last_root) {
                const int64_t *hit = bsearch(&x, byroot, (size_t)ncomp, 2 * sizeof *byroot, cmp_i64);
                last_root = x;
                last_id = hit[1];
            }
            r->label[i] = (int32_t)last_id;
        }
        r->ncomp = ncomp;
        r->label_first = d.first;
        r->label_count = d.count;
    }
    r->t_label = g5_now() - t;
out:
    gplan_free(&plan);
    targets_free(&sums);
    dist_free(&d);
    free(gid);
    free(ecnt);
    free(fl);
    free(mn);
    free(lroot);
    free(req);
    free(mine);
    free(all);
    free(cnts);
    free(byroot);
#ifdef __GLIBC__
    /* glibc keeps freed blocks below its (raised) mmap threshold in the
     * heap; hand them back so the duplicate count's buffers, which follow,
     * do not stack on top of them (55 MiB of peak RSS at SCALE 22, 4 ranks) */
    malloc_trim(0);
#endif
    return rc;
}

int cc_dist_components(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                       int64_t first_index, int nthreads, cc_result *r, int64_t *self_loops,
                       int64_t *nonloop)
{
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    const int64_t piece = (int64_t)1 << 16;
    int rc = G5_OK;
    int64_t b = INT64_MAX, *buf = NULL;
    cc_dist_local *l = NULL;
    double t = g5_now();

    /* range check first: the message the tree path gives */
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : b)
    for (int64_t i = 0; i < count; i++) {
        const int64_t u = edges[2 * i], v = edges[2 * i + 1];
        if ((u < 0 || u >= n || v < 0 || v >= n) && i < b)
            b = i;
    }
    if (b != INT64_MAX)
        rc = g5_error(G5_ERR_FORMAT, "edge %lld = (%lld, %lld) has a vertex outside [0, %lld)",
                      (long long)(first_index + b), (long long)edges[2 * b], (long long)edges[2 * b + 1],
                      (long long)n);
    if (rc == G5_OK)
        rc = cc_dist_local_create(n, count, &l);
    if (rc == G5_OK) {
        buf = g5_malloc((size_t)(count < piece ? (count ? count : 1) : piece) * 16, "components: piece buffer");
        if (!buf)
            rc = G5_ERR_NOMEM;
    }
    /* the slab itself is only read: each piece is renamed in a copy */
    for (int64_t lo = 0; rc == G5_OK && lo < count; lo += piece) {
        const int64_t len = count - lo < piece ? count - lo : piece;
        memcpy(buf, edges + 2 * lo, (size_t)len * 16);
        rc = cc_dist_local_take(l, buf, len, first_index + lo, nthreads);
    }
    free(buf);
    r->t_link = g5_now() - t;
    return cc_dist_local_finish(comm, rc, &l, nthreads, r, self_loops, nonloop);
}
