/* SPDX-License-Identifier: MIT */
/*
 * cc_internal.h - the internals of components/, shared by its files and
 * used by its tests and benches; the stage's public header is cc.h.
 *
 * The forest (cc_forest.c, cc_link.c, cc_link_parallel.c): root[v] is
 * the root of v's set, -1 while v has not been seen; a root r has
 * root[r] == r. son[r], the members of the set rooted at r, is an
 * intrusive singly linked list in flat arrays: the list of r starts at r
 * itself, next[v] is the member after v (-1 at the end) and size[r] the
 * member count (meaningful at roots only). A joining vertex or a moved
 * list goes right after the root, so no tail is kept. Moving the smaller
 * list into the larger costs the smaller's length, splicing is O(1), find
 * is one load, no allocation per set: 12 bytes per vertex, int32 ids.
 *
 * The four cases of an edge (u, v), u != v (self-loops are skipped):
 *   both unseen      -> a new set rooted at u, members {u, v}   CC_NEW_SET
 *   one unseen       -> it joins the other's set                CC_JOINED
 *   same root        -> nothing                                 CC_SAME
 *   different roots  -> smaller list moved into the larger      CC_MERGED
 *                       (equal sizes: u's set is kept)
 */
#ifndef G500_CC_INTERNAL_H
#define G500_CC_INTERNAL_H

#include "cc.h"

/* The merges of the forests (cc_compute.c): AUTO is the rule of the file
 * header of cc_compute.c, the others force one path (tests, benches). */
enum cc_merge { CC_MERGE_AUTO = 0, CC_MERGE_TREE, CC_MERGE_DISTRIBUTED };
/* AUTO takes the distributed merge from this many ranks. */
#define CC_AUTO_RANKS 64

/* ---- the forest --------------------------------------------------------- */
typedef struct cc_forest cc_forest;
typedef struct cc_tally cc_tally;

enum cc_case { CC_SELF_LOOP = 0, CC_NEW_SET, CC_JOINED, CC_SAME, CC_MERGED };

struct cc_forest {
    int64_t n;
    void *mem;       /* one allocation holding the three arrays           */
    int32_t *root;   /* root of v's set, -1 unseen                        */
    int32_t *next;   /* next member of the same son list, -1 at the end   */
    int32_t *size;   /* at a root: number of members                      */
    int empty;       /* no edge linked yet                                */
    uint64_t *giant; /* bit v: v in the set rooted at groot (a subset of  */
    int32_t groot;   /* it, see cc_link_mark); NULL / -1 until needed     */
    cc_tally *tally; /* counts the edges linked per set, or NULL          */
};

/* Create a forest over n vertices, all unseen. n in [1, CC_MAX_VERTICES],
 * otherwise G5_ERR_ARG. Caller frees with cc_forest_free (accepts NULL
 * and *f == NULL). Not collective. */
int cc_forest_create(int64_t n, cc_forest **out);
void cc_forest_free(cc_forest **f);
int64_t cc_forest_nvertices(const cc_forest *f);

/* Link one edge; returns which case applied (enum cc_case). u and v must
 * be in [0, n) (asserted: an internal step). */
int cc_forest_link(cc_forest *f, int64_t u, int64_t v);

/* Link count edges (edges[count][2], original ids) on up to nthreads
 * OpenMP threads (<= 0: the OpenMP default). The forest may already hold
 * sets, so a list may be linked piece by piece. On an empty forest or a
 * call of at least 2 n edges all threads link it (cc_link_parallel.c),
 * else its edges are filtered against the giant set and the few left
 * linked one by one (cc_link.c). A vertex outside [0, n) is
 * G5_ERR_FORMAT naming the first such edge (index first_index + i); the
 * forest is then still valid, holding some of the call's other edges.
 * Not collective. */
int cc_forest_link_edges(cc_forest *f, const int64_t *edges, int64_t count, int64_t first_index, int nthreads);

/* Union into f the sets of another forest's root vector (same n). */
void cc_forest_merge_roots(cc_forest *f, const int32_t *other_root);

/* Read access: the root vector itself (n entries, -1 unseen, owned by
 * the forest); find is one load; the members of the set rooted at r are
 * r, then cc_forest_next until -1. */
const int32_t *cc_forest_roots(const cc_forest *f);
int64_t cc_forest_find(const cc_forest *f, int64_t v);
int64_t cc_forest_next(const cc_forest *f, int64_t v);
int64_t cc_forest_set_size(const cc_forest *f, int64_t r);   /* r a root */
/* Check every invariant (each seen vertex's root is a root; each root's
 * list holds exactly its vertices and has its size; sizes add up):
 * G5_ERR_INTERNAL naming the first broken one. O(n). */
int cc_forest_check(const cc_forest *f);

/* Canonical labelling. Out: label[v] (n entries, caller's buffer) = the
 * component id of v, ids ordered by size (largest 0, ties by smallest
 * member vertex), -1 for unseen vertices; *ncomp; *comp_vertices (caller
 * frees with free()) their sizes. Depends only on the partition. */
int cc_forest_label(const cc_forest *f, int32_t *label, int64_t *ncomp, int64_t **comp_vertices);

/* ---- linking (cc_link.c, cc_link_parallel.c) ---------------------------- */
/* Relaxed atomic loads and stores: threads read root and the giant
 * bitmap while another links; those races are benign by construction
 * (sets only merge) but must not be undefined behaviour. On x86-64 these
 * are plain moves. */
#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* Candidates ahead at which the parent or root entries of both ends are
 * prefetched: each find starts with a miss, and one union at a time those
 * misses form a dependent chain. */
#define CC_AHEAD 16

/* Prefetch a[] at both ends of pair j + CC_AHEAD of the k int32 pairs p,
 * for reading (the scan's root tests) or for writing (the unions). */
static inline void cc_prefetch_ends(const int32_t *a, const int32_t *p, int64_t j, int64_t k)
{
    if (j + CC_AHEAD < k) {
        __builtin_prefetch(&a[p[2 * (j + CC_AHEAD)]]);
        __builtin_prefetch(&a[p[2 * (j + CC_AHEAD) + 1]]);
    }
}
static inline void cc_prefetch_ends_w(const int32_t *a, const int32_t *p, int64_t j, int64_t k)
{
    if (j + CC_AHEAD < k) {
        __builtin_prefetch(&a[p[2 * (j + CC_AHEAD)]], 1);
        __builtin_prefetch(&a[p[2 * (j + CC_AHEAD) + 1]], 1);
    }
}

/* The parallel path; returns the smallest index of an edge with a vertex
 * outside [0, n), or count; -1: out of memory. */
int64_t cc_link_parallel(cc_forest *f, const int64_t *edges, int64_t count, int nt);
/* The giant filter of both paths: the edges [lo, hi) of e whose ends are
 * not both marked in giant go to out (int32 pairs); returns their number;
 * *bad: the smallest index of an edge with a vertex outside [0, n), if
 * below. loops: keep self-loops too (for the tally). */
int64_t cc_filter_giant(const int64_t *e, int64_t lo, int64_t hi, uint64_t n, const uint64_t *giant,
                        int32_t *restrict out, int64_t *bad, int loops);
int cc_bad_edge(const int64_t *edges, int64_t i, int64_t first_index, int64_t n);

/* ---- the edge tally (cc_tally.c) -----------------------------------------
 * The edges per component counted while they are linked: attached to a
 * forest (cc_forest_set_tally; NULL detaches), it counts every tuple
 * later given to cc_forest_link_edges, each at a vertex of its set (the
 * giant filter's drops in one count per block at the marked set's root,
 * the others at their first endpoint, in per-thread lists folded into a
 * counter per vertex only past n entries). cc_tally_fold adds
 * comp_edges[label[x]] += the count at x, the self-loops to *self_loops
 * and the other tuples to *nonloop. Not collective. */
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

int cc_tally_create(int64_t n, cc_tally **out);
void cc_tally_free(cc_tally **t);   /* accepts NULL and *t == NULL */
void cc_forest_set_tally(cc_forest *f, cc_tally *t);
void cc_tally_fold(const cc_tally *t, const int32_t *label, int nthreads, int64_t *comp_edges,
                   int64_t *self_loops, int64_t *nonloop);
/* The width of the per-vertex counters the lists were folded into: 0
 * (none yet), 32 or 64 bits. */
int cc_tally_counters(const cc_tally *t);
/* For tests: folded entries past which the counters become 64-bit
 * (default 2^32 - 1), so the switch can be run on a small list. */
void cc_tally_set_limit32(cc_tally *t, int64_t limit);
/* For the links: lists for nt threads (0: out of memory; not in a
 * parallel region); edges [lo, hi) of e, or k int32 pairs, tallied at
 * their first endpoint in list l; k edges counted at x in bulk; the lists
 * folded into counters once past n entries. */
int cc_tally_lists(cc_tally *t, int nt);
void cc_tally_edges(cc_tally *t, tally_list *l, const int64_t *e, int64_t lo, int64_t hi);
void cc_tally_pairs(cc_tally *t, tally_list *l, const int32_t *p, int64_t k);
void cc_tally_bulk(cc_tally *t, int32_t x, int64_t k);
void cc_tally_squeeze(cc_tally *t);
/* The giant filter of both link paths and the tally of what it keeps: with
 * t (may be NULL), self-loops are kept and the kept pairs tallied in l. */
static inline int64_t cc_filter_tally(const int64_t *e, int64_t lo, int64_t hi, uint64_t n,
                                      const uint64_t *giant, int32_t *restrict out, int64_t *bad,
                                      cc_tally *t, tally_list *l)
{
    const int64_t k = cc_filter_giant(e, lo, hi, n, giant, out, bad, t != NULL);
    if (t)
        cc_tally_pairs(t, l, out, k);
    return k;
}

/* ---- statistics (cc_stats.c) -------------------------------------------- */
/* comp_edges[label[u]] += 1 for each non-self-loop tuple (comp_edges has
 * ncomp entries), self-loops and non-loop tuples added to *self_loops and
 * *nonloop. OpenMP inside. Not collective. The reference the tally is
 * tested against. */
void cc_count_edges(const int32_t *label, int64_t ncomp, const int64_t *edges, int64_t count, int nthreads,
                    int64_t *comp_edges, int64_t *self_loops, int64_t *nonloop);
/* Fill the statistics of m (ncomponents ... size_hist) from the component
 * arrays and edge counts; m->nvertices must be set. Not collective. */
void cc_stats_fill(io_components_meta *m, int64_t ncomp, const int64_t *comp_vertices,
                   const int64_t *comp_edges, int64_t self_loops, int64_t nonloop, int64_t distinct);

/* ---- the duplicate count (cc_dup.c) --------------------------------------
 * Distinct unordered non-self-loop pairs {u, v} over the union of every
 * rank's slab. Create with the slab's tuple count, add pieces as they
 * arrive (any order; each add hashes its tuples into regions sized for
 * evenly spread hashes), finish with the whole slab: the finish only
 * counts (one rank) or exchanges and counts (several), unless a region
 * overflowed or the pieces do not add up to the slab: then it places the
 * rank's whole slab again by an exact two-pass scatter (same result).
 * cc_dup_create: n vertices, count tuples in this rank's slab, nthreads
 * threads per add and finish (<= 0: the OpenMP default; an add inside a
 * parallel region runs on the calling thread alone unless nesting is
 * active). Not collective. cc_dup_add: one add at a time on a d.
 * cc_dup_finish: collective; edges[count][2] is the whole slab (read only
 * on the exact path; may be NULL when cc_dup_needs_slab says no);
 * *distinct is the same on every rank. */
typedef struct cc_dup cc_dup;
int cc_dup_create(MPI_Comm comm, int64_t n, int64_t count, int nthreads, cc_dup **out);
void cc_dup_add(cc_dup *d, const int64_t *edges, int64_t len);
int cc_dup_finish(MPI_Comm comm, cc_dup *d, const int64_t *edges, int64_t count, int64_t *distinct);
/* Whether cc_dup_finish with this count will read the slab. */
int cc_dup_needs_slab(const cc_dup *d, int64_t count);
void cc_dup_free(cc_dup **d);   /* accepts NULL and *d == NULL */
/* The second pass (cc_dup_bucket.c): the distinct values among nb
 * classes of records of rec bytes (the low wbits bits stored; 8 bytes
 * readable past each), class b being the nseg segments seg[b * nseg ..];
 * on nt threads. -1 when out of memory. Not collective. */
typedef struct cc_dup_seg {
    const unsigned char *v;
    int64_t len;  /* records */
} cc_dup_seg;
int64_t cc_dup_bucket_pass(const cc_dup_seg *seg, int nseg, int nb, int wbits, int rec, int nt);
/* Collective: the same over a whole slab (create, add, finish). */
int cc_count_distinct(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count, int nthreads,
                      int64_t *distinct);

/* ---- the distributed merge (cc_dist_local.c, cc_dist.c) ------------------
 * The local step: the endpoints of the slab's non-loop tuples get local
 * ids 0, 1, ... as first seen; cc_dist_local_take rewrites a piece in
 * place in local ids (self-loops as (0, 0)) and links it into a tallying
 * forest over min(n, 2 count) local ids. The ids must lie in [0, n).
 * Not collective. cc_dist_local_end ends the step (local roots, edges per
 * local set, gid; adds the self-loops and non-loop tuples) and frees *l.
 * cc_dist_local_finish (collective; status: the agreed outcome of the
 * pieces) ends it and runs the union-find over owner ranks and the
 * labels: r gets its block of labels, ncomp, comp_vertices, comp_edges,
 * rounds and the merge and label times. batch: cc_opts.dist_batch. */
typedef struct cc_dist_local cc_dist_local;
int cc_dist_local_create(int64_t n, int64_t count, cc_dist_local **out);
int cc_dist_local_take(cc_dist_local *l, int64_t *edges, int64_t len, int64_t first_index, int nthreads);
void cc_dist_local_free(cc_dist_local **l);  /* accepts NULL and *l == NULL */
/* The local ids handed out so far (*nloc) and gid[id], their original ids. */
const int64_t *cc_dist_local_ids(const cc_dist_local *l, int64_t *nloc);
int cc_dist_local_end(cc_dist_local **l, int nthreads, int64_t *nloc, int64_t **gid, int32_t **lroot,
                      int64_t **ecnt, int64_t *self_loops, int64_t *nonloop);
int cc_dist_local_finish(MPI_Comm comm, int status, cc_dist_local **l, int nthreads, int64_t batch,
                         cc_result *r, int64_t *self_loops, int64_t *nonloop);

/* ---- the distributed merge's exchange (cc_dist_exchange.c) --------------
 * cc_dist: the owner blocks of [0, N) (the first N mod P ranks own q + 1
 * vertices, the others q), this rank's owned parents f and counters, and
 * the exchange buffers. A request is applied by the owner of its key:
 * CC_DIST_GET answers f[key] (an unseen key is first set to itself),
 * CC_DIST_MIN lowers f[key] to the value, CC_DIST_ADD_V / CC_DIST_ADD_E
 * add the value to the vertex / edge counter of key. */
enum { CC_DIST_GET, CC_DIST_MIN, CC_DIST_ADD_V, CC_DIST_ADD_E };

typedef struct cc_dist {
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
} cc_dist;

typedef struct cc_kv {
    int64_t k, v;
} cc_kv;

/* A recorded gather: the hook rounds ask the owners for f of the same keys
 * every round; later gathers send no keys (cc_dist_gather_planned). 8 B
 * per key (4 B of send order, about 4 B of kept keys on the owner). */
typedef struct cc_dist_plan {
    int64_t nb;      /* batches recorded (the max over ranks) */
    int *cnt;        /* [nb][4][p]: sc, sd, rc, rd (in pairs of int64) */
    int32_t *perm;   /* [k]: position in the batch's send order -> offset of the key in the batch */
    int32_t *rkey;   /* [nrecv]: keys received, as offsets in the owner's block */
    int64_t nrecv, rcap;
} cc_dist_plan;

/* Not collective. The block geometry of n vertices over comm's ranks, no
 * allocation; batch: pairs per rank and batch (<= 0: 2^18). */
void cc_dist_init(cc_dist *d, MPI_Comm comm, int64_t n, int64_t batch);
/* Not collective. The owned parents (all unseen) and the exchange buffers;
 * G5_ERR_NOMEM (to be agreed by the caller). The counters are the
 * caller's to allocate. */
int cc_dist_alloc(cc_dist *d);
void cc_dist_free(cc_dist *d);  /* frees every array of d, counters included */
/* Collective. Send (key[i * stride], val[i * stride]) (val NULL: 0), i < k,
 * to the owner of each key, which applies op; CC_DIST_GET's answers land in
 * reply[i], CC_DIST_MIN adds the entries it lowered to *changed (may be
 * NULL). cc_dist_exchange_plan with a plan (CC_DIST_GET only) also records
 * the gather; the plan is freed by cc_dist_plan_free. */
int cc_dist_exchange(cc_dist *d, int op, const int64_t *key, const int64_t *val, int64_t stride,
                     int64_t k, int64_t *reply, int64_t *changed);
int cc_dist_exchange_plan(cc_dist *d, int op, const int64_t *key, const int64_t *val, int64_t stride,
                          int64_t k, int64_t *reply, int64_t *changed, cc_dist_plan *plan);
/* Collective. The same (key, value) pairs as a list, no copy. */
int cc_dist_exchange_kv(cc_dist *d, int op, const cc_kv *a, int64_t k, int64_t *changed);
/* Collective. A gather of f for the keys plan recorded, into reply. */
int cc_dist_gather_planned(cc_dist *d, const cc_dist_plan *plan, int64_t *reply);
void cc_dist_plan_free(cc_dist_plan *plan);
/* Not collective. Sort a[0, k) by key (keys < 2^31) and keep one entry per
 * key with the least value; the new count, or -1 when out of memory (the
 * error is recorded). */
int64_t cc_kv_combine(cc_kv *a, int64_t k);

/* Fibonacci hashing of a vertex id (< 2^31) to one of 2^(64 - shift)
 * slots: the jump's targets and the local step's endpoint set. */
static inline uint64_t cc_hslot(uint32_t v, int shift)
{
    return ((uint64_t)v * 0x9e3779b97f4a7c15ULL) >> shift;
}

#endif
