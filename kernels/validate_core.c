/* SPDX-License-Identifier: MIT */
/*
 * validate_core.c - collective validation of a BFS or SSSP tree against the
 * input edge list, streamed in bounded chunks (Graph500 specification,
 * validation; the reference code's validate.c makes the same checks another
 * way). Results are in original vertex ids, block-distributed
 * (g5_range_owner): parent[v] in [0, N) or -1, parent[root] = root; SSSP
 * adds dist[v] (+INFINITY when unreached). Self-loops are ignored.
 *
 * Checks, in the order a failure is reported (the first across ranks, with a
 * vertex or edge showing it): 'parent range'; 'root is own parent';
 * (SSSP) 'root distance', 'parent and distance agree'; 'parent chain reaches
 * root'; 'edge joins reached and unreached' (so the reached set is exactly
 * the root's component); 'edge levels differ by at most one' (BFS) or 'no
 * edge shortens a distance' (SSSP); 'tree edge is an input edge' (BFS) or
 * 'tree edge is a tight input edge' (SSSP). BFS depths are rebuilt from the
 * tree. SSSP compares in double: a ~ b means |a - b| <= 1e-6 + 1e-6 |b|.
 * TEPS edge count: non-self-loop input tuples with both ends reached,
 * duplicates counted (the reference code's rule), the same for BFS and SSSP.
 *
 * Algorithm:
 *  1. local checks of each rank's block (range, root, parent/dist);
 *  2. depth by pointer jumping (Wyllie's list ranking): each reached vertex
 *     keeps (hops << 32 | ancestor) in one word (SSSP the ancestor alone) and
 *     replaces it with its ancestor's word each round, in batches of one
 *     chunk (one MPI_Alltoallv of queries and one of answers), until the
 *     ancestor is the root; a round that finishes nobody means the pending
 *     vertices hang from a cycle or an unreached parent. O(log depth)
 *     rounds; ancestors in the rank's own block are answered in place.
 *  3. per chunk of edges, endpoints owned by other ranks are sent to their
 *     owners, which reply with (parent, depth or distance); the reading rank
 *     checks the edge, counts it for TEPS and marks the endpoint the edge
 *     confirms as a tight tree edge. The master thread reads chunk k + 1
 *     while the others check chunk k (MPI_THREAD_FUNNELED).
 *  4. every reached vertex other than the root must be marked.
 * Every phase ends with an agreement: all ranks return the same status.
 *
 * Memory per vertex of the rank's block, besides parent (and dist): the jump
 * word (8 bytes; 4 for SSSP, freed before the edge stream) and one bit; the
 * edge stream's buffers are bounded by the chunk. The jump words use the
 * caller's idle `work` memory when it is large enough
 * (kern_validate_work_bytes).
 */
#include "kern_validate.h"

#include "common.h"

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TOL_ABS 1e-6
#define TOL_REL 1e-6
#define MAX_JUMP_ROUNDS 62

/* The jump word: ancestor in the low 32 bits, hops in the high 32. */
#define J_UNREACHED 0xFFFFFFFFu      /* ancestor of a vertex with parent -1 */
#define J_BROKEN 0xFFFFFFFEu         /* its chain was found broken */
#define J_MAX_N ((int64_t)0xFFFFFFFD)
static inline uint32_t j_anc(uint64_t x) { return (uint32_t)x; }
static inline uint32_t j_hops(uint64_t x) { return (uint32_t)(x >> 32); }
static inline uint64_t j_word(uint32_t anc, uint64_t hops)
{
    return (hops > 0xFFFFFFFFu ? 0xFFFFFFFFu : hops) << 32 | anc;   /* cycles may saturate */
}
/* Where the words live: 8 bytes each for BFS (w), whose depths are the
 * hops; SSSP needs only the ancestor, so 4 bytes each (a), read back with
 * 0 hops. */
typedef struct jwords {
    uint64_t *w;
    uint32_t *a;
} jwords;
/* Relaxed atomics: a round's parallel pass reads words other threads are
 * replacing (either value is a correct answer; plain moves on x86-64). */
static inline uint64_t jw_get(jwords j, int64_t i)
{
    return j.a ? (uint64_t)__atomic_load_n(&j.a[i], __ATOMIC_RELAXED)
               : __atomic_load_n(&j.w[i], __ATOMIC_RELAXED);
}
static inline void jw_set(jwords j, int64_t i, uint64_t x)
{
    if (j.a)
        __atomic_store_n(&j.a[i], j_anc(x), __ATOMIC_RELAXED);
    else
        __atomic_store_n(&j.w[i], x, __ATOMIC_RELAXED);
}

enum check {
    C_RANGE,
    C_ROOT,
    C_ROOTDIST,
    C_AGREE,
    C_CHAIN,
    C_REACH,
    C_RELAX,
    C_TREE,
    C_NONE
};

static const char *check_name(int c, int sssp)
{
    switch (c) {
    case C_RANGE: return "parent range";
    case C_ROOT: return "root is own parent";
    case C_ROOTDIST: return "root distance";
    case C_AGREE: return "parent and distance agree";
    case C_CHAIN: return "parent chain reaches root";
    case C_REACH: return "edge joins reached and unreached";
    case C_RELAX: return sssp ? "no edge shortens a distance" : "edge levels differ by at most one";
    case C_TREE: return sssp ? "tree edge is a tight input edge" : "tree edge is an input edge";
    default: return "none";
    }
}

/* The failure of the highest priority seen on this rank, and among those
 * the one of the smallest key (the vertex or the global edge index), so the
 * report does not depend on the thread count or on timing. */
typedef struct vfail {
    int check;
    int64_t key;
    char detail[400];
} vfail;

static inline int fail_before(int check, int64_t key, const vfail *f)
{
    return check < f->check || (check == f->check && key < f->key);
}

__attribute__((format(printf, 4, 5)))
static void fail(vfail *f, int check, int64_t key, const char *fmt, ...)
{
    if (!fail_before(check, key, f))
        return;
    f->check = check;
    f->key = key;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    va_end(ap);
}

/* Merge a thread's record into the rank's (inside a critical section). */
static void fail_merge(vfail *f, const vfail *t)
{
    if (t->check < C_NONE && fail_before(t->check, t->key, f))
        *f = *t;
}

/* Reusable buffers for one all-to-all exchange pattern. */
typedef struct xbuf {
    void *p;
    size_t cap; /* bytes */
} xbuf;

static int xbuf_need(xbuf *b, size_t bytes, const char *what)
{
    if (bytes <= b->cap)
        return G5_OK;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < bytes)
        cap *= 2;
    void *q = realloc(b->p, cap);
    if (!q)
        return g5_error(G5_ERR_NOMEM, "validation: cannot allocate %zu bytes for %s", cap, what);
    b->p = q;
    b->cap = cap;
    return G5_OK;
}

/* Answer to a query for vertex a: its parent and value. */
typedef struct vinfo {
    int64_t parent;
    double val;             /* BFS depth, or the float distance widened exactly */
} vinfo;

/* Answers travel as one 16-byte MPI type (jump answers are the 8-byte
 * words themselves). */
_Static_assert(sizeof(vinfo) == 16, "answer records are 16 bytes");

typedef struct vctx {
    MPI_Comm comm;
    int rank, nranks;
    int64_t n, first, count;
    int sssp;
    const int64_t *parent;  /* this rank's block of parents (lazy look-ups) */
    int *scount, *sdispl, *rcount, *rdispl, *cursor; /* [nranks] each */
    MPI_Datatype t_i64, t_info;
} vctx;

/* Exchange counts, then the data (g5_exchange_counts/_data): sbuf holds
 * scount[r] items for rank r at sdispl[r]; the received items land in rb
 * (grown as needed). */
static int exchange(vctx *c, const void *sbuf, MPI_Datatype type, size_t size, xbuf *rb,
                    int64_t *nrecv, const char *what)
{
    char w[96];
    snprintf(w, sizeof w, "validation: %s", what);
    int rc = g5_exchange_counts(c->comm, G5_OK, c->scount, c->rcount, c->rdispl, nrecv, w);
    if (rc == G5_OK)
        rc = xbuf_need(rb, (size_t)(*nrecv ? *nrecv : 1) * size, what);
    return g5_exchange_data(c->comm, rc, type, sbuf, c->scount, c->sdispl, rb->p, c->rcount,
                            c->rdispl, w);
}

/* The reply goes back along the reverse pattern: what rank r sent us
 * (rcount[r] items) is answered with rcount[r] items into its sdispl. */
static int reply(vctx *c, const void *sbuf, MPI_Datatype type, void *rbuf, const char *what)
{
    char w[96];
    snprintf(w, sizeof w, "validation: %s replies", what);
    return g5_exchange_data(c->comm, G5_OK, type, sbuf, c->rcount, c->rdispl, rbuf, c->scount,
                            c->sdispl, w);
}

static void displs_from_counts(vctx *c)
{
    int64_t s = 0;
    for (int r = 0; r < c->nranks; r++) {
        c->sdispl[r] = (int)s;
        c->cursor[r] = (int)s;
        s += c->scount[r];
    }
}

/* Agree on the failure of the highest priority across ranks and turn it
 * into the status and message every rank returns. */
static int agree_fail(vctx *c, const vfail *f, int64_t root, int rc)
{
    int best = f->check;
    if (MPI_Allreduce(MPI_IN_PLACE, &best, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
    if (rc == G5_OK && best < C_NONE && f->check == best)
        rc = g5_error(G5_ERR_VALIDATE, "%s root %" PRId64 ": check '%s' failed: %s",
                      c->sssp ? "SSSP" : "BFS", root, check_name(best, c->sssp), f->detail);
    return g5_agree(c->comm, rc);
}

static inline int is_tight(double dv, double du_w)
{
    return fabs(dv - du_w) <= TOL_ABS + TOL_REL * fabs(du_w);
}

/* Phase 1: checks of each rank's own block. */
static void check_local(vctx *c, int64_t root, const int64_t *parent, const float *dist,
                        vfail *f)
{
    #pragma omp parallel
    {
        vfail tf = {.check = C_NONE};
        #pragma omp for schedule(static)
        for (int64_t i = 0; i < c->count; i++) {
            int64_t v = c->first + i, p = parent[i];
            if (p < -1 || p >= c->n) {
                fail(&tf, C_RANGE, i, "vertex %" PRId64 " has parent %" PRId64
                     ", outside [-1, %" PRId64 ")", v, p, c->n);
                continue;
            }
            if (v == root && p != root)
                fail(&tf, C_ROOT, i, "parent of root %" PRId64 " is %" PRId64, v, p);
            if (!dist)
                continue;
            double d = dist[i];
            if (v == root && d != 0.0)
                fail(&tf, C_ROOTDIST, i, "distance of root %" PRId64 " is %.17g", v, d);
            if (p == -1 && !(isinf(d) && d > 0))
                fail(&tf, C_AGREE, i, "vertex %" PRId64 " is unreached (parent -1) but has"
                     " distance %.17g", v, d);
            if (p != -1 && !isfinite(d))
                fail(&tf, C_AGREE, i, "vertex %" PRId64 " has parent %" PRId64
                     " but distance %.17g", v, p, d);
        }
        #pragma omp critical(validate_fail)
        fail_merge(f, &tf);
    }
}

/* Vertex v (known to be in [0, N)) is in this rank's block. */
static inline int is_mine(const vctx *c, int64_t v)
{
    return (uint64_t)(v - c->first) < (uint64_t)c->count;
}

/* Owner of vertex v (in [0, N), N < 2^32) under the block distribution,
 * with the divisions by P hoisted: one 32-bit division per vertex. */
typedef struct vowner {
    uint32_t q, big;       /* N / P, and the vertices held by the ranks with q + 1 */
    int rem;               /* N % P */
} vowner;

static vowner vowner_of(const vctx *c)
{
    int64_t q = c->n / c->nranks, rem = c->n % c->nranks;
    return (vowner){.q = (uint32_t)q, .big = (uint32_t)(rem * (q + 1)), .rem = (int)rem};
}

static inline int vowner_get(vowner o, int64_t v)
{
    uint32_t x = (uint32_t)v;
    return x < o.big ? (int)(x / (o.q + 1)) : o.rem + (int)((x - o.big) / o.q);
}

/* The counting sort's offsets, shared by the jump and the edge stream:
 * bcount[b][r] (nb blocks x nranks) holds block b's count for rank r and
 * becomes the index where its first item goes (rank r's items from block
 * 0, then block 1, ...). Sets scount and sdispl for what travels: the own
 * bucket, [*own_lo, *own_lo + *own_n), stays in place (scount[rank] = 0,
 * answered by this rank). Returns the number of items. */
static int64_t bucket_offsets(vctx *c, int *bcount, int nb, int64_t *own_lo, int64_t *own_n)
{
    const int p = c->nranks;
    int64_t tot = 0;
    for (int r = 0; r < p; r++) {
        c->sdispl[r] = (int)tot;
        for (int b = 0; b < nb; b++) {
            int k = bcount[(size_t)b * p + r];
            bcount[(size_t)b * p + r] = (int)tot;
            tot += k;
        }
        c->scount[r] = (int)(tot - c->sdispl[r]);
    }
    *own_lo = c->sdispl[c->rank];
    *own_n = c->scount[c->rank];
    c->scount[c->rank] = 0;
    return tot;
}

/* P > 1, one batch of the jump: the ancestors of the words [lo, hi) that
 * still move (not broken, not the root) are bucketed by owner into sq,
 * this rank's own included, with no branch on the owner (random, so
 * mispredicted at every other vertex, as in the edge stream); slot[i - lo]
 * gets the ancestor's index in sq, -1 when the word does not move. The
 * same parallel counting sort over nb fixed blocks as route_queries (the
 * order does not depend on the thread count). Returns the length of sq. */
static int64_t route_ancestors(vctx *c, jwords jw, int64_t lo, int64_t hi, uint32_t r32,
                               int32_t *slot, int *bcount, int nb, int64_t *sq, int64_t *own_lo,
                               int64_t *own_n)
{
    const int p = c->nranks;
    const vowner o = vowner_of(c);
    const int64_t m = hi - lo;
    #pragma omp parallel for schedule(static, 1)
    for (int b = 0; b < nb; b++) {
        int *cnt = bcount + (size_t)b * p;
        memset(cnt, 0, (size_t)p * sizeof *cnt);
        for (int64_t i = m * b / nb; i < m * (b + 1) / nb; i++) {
            uint32_t a = j_anc(jw_get(jw, lo + i));
            if (a >= J_BROKEN || a == r32) {
                slot[i] = -1;
                continue;
            }
            int r = vowner_get(o, a);
            slot[i] = r;
            cnt[r]++;
        }
    }
    int64_t tot = bucket_offsets(c, bcount, nb, own_lo, own_n);
    #pragma omp parallel for schedule(static, 1)
    for (int b = 0; b < nb; b++) {
        int *off = bcount + (size_t)b * p;
        for (int64_t i = m * b / nb; i < m * (b + 1) / nb; i++)
            if (slot[i] >= 0) {
                int32_t s = off[slot[i]]++;
                sq[s] = j_anc(jw_get(jw, lo + i));
                slot[i] = s;
            }
    }
    return tot;
}

/* Phase 2: pointer jumping over the words jw[count] (see the top). On
 * return jw[i] holds (hops = depth, root) for every reached vertex whose
 * chain reaches the root; failures are recorded in f. At one rank nothing
 * travels: a round is one parallel pass reading the ancestors' words in
 * place (an answer may already include the ancestor's jump of this round,
 * as a remote one may). At P > 1 each batch buckets its ancestors by owner
 * (route_ancestors), the remote ones are asked for, the own bucket is
 * answered in place before the words change, and the words are then
 * replaced in one parallel pass reading every answer from one array, so
 * no pass branches on an owner. */
static int jump(vctx *c, int64_t root, const int64_t *parent, jwords jw, int64_t batch,
                vfail *f)
{
    int rc = G5_OK;
    const uint32_t r32 = (uint32_t)root;
    const int multi = c->nranks > 1;
    int64_t nb = (c->count + batch - 1) / batch;
    int nblk = multi ? 4 * omp_get_max_threads() : 0;
    int64_t *sq = multi ? g5_malloc((size_t)batch * sizeof *sq, "validation queries") : NULL;
    uint64_t *ans = multi ? g5_malloc((size_t)batch * sizeof *ans, "validation answers") : NULL;
    int32_t *slot = multi ? g5_malloc((size_t)batch * sizeof *slot, "validation query slots") : NULL;
    int *bcount = multi ? g5_malloc((size_t)nblk * (size_t)c->nranks * sizeof *bcount,
                                    "validation routing counts") : NULL;
    xbuf rq = {0}, ra = {0};
    rc = g5_agree(c->comm, (sq && ans && slot && bcount) || !multi ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    if (MPI_Allreduce(MPI_IN_PLACE, &nb, 1, MPI_INT64_T, MPI_MAX, c->comm) != MPI_SUCCESS) {
        rc = g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
        goto out;
    }

    int64_t pending = 0, newly = 0;
    #pragma omp parallel for schedule(static) reduction(+ : pending, newly)
    for (int64_t i = 0; i < c->count; i++) {
        int64_t v = c->first + i, p = parent[i];
        if (p == -1) {
            jw_set(jw, i, j_word(J_UNREACHED, 0));
        } else if (v == root) {
            jw_set(jw, i, j_word(r32, 0));
        } else {
            jw_set(jw, i, j_word((uint32_t)p, 1));
            if (p == root) newly++; else pending++;
        }
    }

    for (int round = 0; round < MAX_JUMP_ROUNDS; round++) {
        int64_t g[2] = {pending, newly};
        if (MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_INT64_T, MPI_SUM, c->comm) != MPI_SUCCESS) {
            rc = g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
            goto out;
        }
        if (g[0] == 0 || (round > 0 && g[1] == 0))
            break;
        pending = newly = 0;
        for (int64_t bt = 0; bt < nb; bt++) {
            int64_t lo = bt * batch < c->count ? bt * batch : c->count;
            int64_t hi = lo + batch < c->count ? lo + batch : c->count;
            if (multi) {
                int64_t own_lo, own_n, nrecv;
                route_ancestors(c, jw, lo, hi, r32, slot, bcount, nblk, sq, &own_lo, &own_n);
                G5_TRY(exchange(c, sq, c->t_i64, sizeof(int64_t), &rq, &nrecv, "ancestor queries"));
                rc = xbuf_need(&ra, (size_t)(nrecv ? nrecv : 1) * sizeof(uint64_t), "ancestor answers");
                G5_TRY(g5_agree(c->comm, rc));
                const int64_t *q = rq.p, *oq = sq + own_lo;
                uint64_t *aw = ra.p, *own = ans + own_lo;
                #pragma omp parallel
                {
                    #pragma omp for schedule(static) nowait
                    for (int64_t k = 0; k < nrecv; k++)
                        aw[k] = jw_get(jw, q[k] - c->first);
                    #pragma omp for schedule(static) nowait
                    for (int64_t k = 0; k < own_n; k++)
                        own[k] = jw_get(jw, oq[k] - c->first);
                }
                G5_TRY(reply(c, aw, c->t_i64, ans, "ancestor"));
            }
            /* apply: at P > 1 every answer is in ans (its own part read
             * before this pass), at one rank the ancestors are read in place */
            int64_t pd = 0, nw = 0;
            #pragma omp parallel for schedule(static) reduction(+ : pd, nw)
            for (int64_t i = lo; i < hi; i++) {
                uint64_t y = jw_get(jw, i);
                uint32_t a = j_anc(y);
                if (a >= J_BROKEN || a == r32)
                    continue;
                uint64_t x = multi ? ans[slot[i - lo]] : jw_get(jw, a - c->first);
                if (j_anc(x) >= J_BROKEN) {
                    jw_set(jw, i, j_word(J_BROKEN, 0)); /* stop following a broken chain */
                    continue;
                }
                jw_set(jw, i, j_word(j_anc(x), (uint64_t)j_hops(y) + j_hops(x)));
                if (j_anc(x) == r32) nw++; else pd++;
            }
            pending += pd;
            newly += nw;
        }
    }
    /* one message for a chain that hit an unreached vertex (J_BROKEN) and
     * one still pending (a cycle, or a broken chain not yet followed to its
     * end: which of the two a vertex is at the end depends on timing) */
    for (int64_t i = 0; i < c->count; i++) {
        uint32_t a = j_anc(jw_get(jw, i));
        if (a != J_UNREACHED && a != r32) {
            fail(f, C_CHAIN, i, "vertex %" PRId64 " (parent %" PRId64 ") never reaches root %"
                 PRId64 " following parents: a cycle, or an unreached vertex (parent -1) on the"
                 " way", c->first + i, parent[i], root);
            break;
        }
    }
out:
    free(sq);
    free(ans);
    free(slot);
    free(bcount);
    free(rq.p);
    free(ra.p);
    return rc;
}

/* An answer's parent; P_LAZY (a reached vertex of this rank's block whose
 * parent was not read yet) is looked up now: only an edge that could be its
 * tree edge needs it, so most edges touch one array per endpoint. */
#define P_LAZY ((int64_t)-2)
static inline int64_t parent_of(const vctx *c, const vinfo *x, int64_t v)
{
    return x->parent == P_LAZY ? c->parent[v - c->first] : x->parent;
}

/* Check one edge between u and v given both endpoints' answers; returns the
 * number of endpoints confirmed (written to conf[0..1]). */
static inline int check_edge(const vctx *c, int64_t key, int64_t u, int64_t v, double w,
                             const vinfo *iu,
                             const vinfo *iv, int64_t *conf, vfail *f, int64_t *counted)
{
    int ru = iu->parent != -1, rv = iv->parent != -1, nc = 0;
    if (ru != rv) {
        fail(f, C_REACH, key, "edge (%" PRId64 ", %" PRId64 ") joins reached vertex %" PRId64
             " and unreached vertex %" PRId64, u, v, ru ? u : v, ru ? v : u);
        return 0;
    }
    if (!ru)
        return 0;
    (*counted)++;
    double du = iu->val, dv = iv->val;
    if (c->sssp) {
        double uw = du + w, vw = dv + w;
        if (dv > uw + TOL_ABS + TOL_REL * fabs(uw) || du > vw + TOL_ABS + TOL_REL * fabs(vw))
            fail(f, C_RELAX, key, "edge (%" PRId64 ", %" PRId64 ", w=%.9g) shortens a distance:"
                 " d[%" PRId64 "]=%.17g, d[%" PRId64 "]=%.17g", u, v, w, u, du, v, dv);
        if (is_tight(dv, uw) && parent_of(c, iv, v) == u)
            conf[nc++] = v;
        if (is_tight(du, vw) && parent_of(c, iu, u) == v)
            conf[nc++] = u;
    } else {
        if (dv > du + 1 || du > dv + 1)
            fail(f, C_RELAX, key, "edge (%" PRId64 ", %" PRId64 ") joins levels %.0f and %.0f", u, v,
                 du, dv);
        if (dv == du + 1 && parent_of(c, iv, v) == u)
            conf[nc++] = v;
        if (du == dv + 1 && parent_of(c, iu, u) == v)
            conf[nc++] = u;
    }
    return nc;
}

/* The bit of vertex i in a bitmap. */
static inline int bit_get(const uint8_t *b, int64_t i) { return b[i >> 3] >> (i & 7) & 1; }

/* The answer for vertex v of this rank's block, from one array: BFS reads
 * the edge word (depth << 32 | parent, made after the jump), SSSP the
 * distance alone (finite exactly when reached: phase 1 checked it), with
 * the parent left P_LAZY. */
static inline vinfo local_info(const vctx *c, const float *dist, const uint64_t *jw, int64_t v)
{
    int64_t i = v - c->first;
    if (dist) {
        double d = dist[i];
        return (vinfo){.parent = isinf(d) ? -1 : P_LAZY, .val = d};
    }
    uint64_t x = jw[i];
    return (vinfo){.parent = j_anc(x) == J_UNREACHED ? -1 : (int64_t)j_anc(x), .val = (double)j_hops(x)};
}

/* The same, complete, for another rank. */
static inline vinfo answer_info(const vctx *c, const float *dist, const uint64_t *jw, int64_t v)
{
    vinfo a = local_info(c, dist, jw, v);
    if (a.parent == P_LAZY)
        a.parent = c->parent[v - c->first];
    return a;
}

/* Mark vertex i of this rank's block confirmed; threads may share a byte. */
static inline void mark(uint8_t *confirmed, int64_t i)
{
    __atomic_fetch_or(&confirmed[i >> 3], (uint8_t)(1u << (i & 7)), __ATOMIC_RELAXED);
}

/* Piece k of this rank's edge block: pieces are aligned on global multiples
 * of `chunk`, so with the file's chunk rows (validate_file.c) each read is one
 * whole stored chunk. Reads *m edges into ed (and wt). */
static int read_piece(const kern_edge_reader *rd, int64_t chunk, int64_t efirst, int64_t ecount,
                      int64_t k, int64_t *ed, float *wt, int64_t *m)
{
    int64_t eend = efirst + ecount;
    int64_t s0 = (efirst / chunk + k) * chunk, s1 = s0 + chunk;
    s0 = s0 < efirst ? efirst : s0 > eend ? eend : s0;
    s1 = s1 > eend ? eend : s1;
    *m = s1 > s0 ? s1 - s0 : 0;
    return rd->read(rd->ctx, s0, *m, ed, wt);
}

/* P > 1: the queries of one chunk. Every endpoint of every non-self-loop
 * edge is bucketed by its owner, this rank's own included, without a
 * branch on the owner (a random one would be mispredicted about every
 * other endpoint): slot[2j + e] gets its index in sq (grown as needed), -1 for a
 * self-loop. The own bucket, sq[*own_lo .. *own_lo + *own_n), is answered in
 * place (nothing is sent to this rank: scount[rank] = 0, the bucket stays
 * in sq between the others); scount and sdispl describe what travels;
 * *tot is the length of sq. A parallel counting sort over nb blocks of
 * edges (bcount: [nb][nranks]), so the order of sq does not depend on the
 * thread count. Not collective; an out-of-range endpoint is reported in
 * *bad (the first such edge, -1: none) and nothing is routed. */
static int route_queries(vctx *c, const int64_t *ed, int64_t m, int32_t *slot, int *bcount,
                         int nb, xbuf *sq, int64_t *own_lo, int64_t *own_n, int64_t *tot_out,
                         int64_t *bad)
{
    const int p = c->nranks;
    const vowner o = vowner_of(c);
    int64_t first_bad = INT64_MAX;
    #pragma omp parallel for schedule(static, 1) reduction(min : first_bad)
    for (int b = 0; b < nb; b++) {
        int *cnt = bcount + (size_t)b * p;
        memset(cnt, 0, (size_t)p * sizeof *cnt);
        for (int64_t j = m * b / nb; j < m * (b + 1) / nb; j++) {
            int64_t u = ed[2 * j], v = ed[2 * j + 1];
            if ((uint64_t)u >= (uint64_t)c->n || (uint64_t)v >= (uint64_t)c->n) {
                slot[2 * j] = slot[2 * j + 1] = -1;
                first_bad = j < first_bad ? j : first_bad;
                continue;
            }
            if (u == v) {
                slot[2 * j] = slot[2 * j + 1] = -1;
                continue;
            }
            int ru = vowner_get(o, u), rv = vowner_get(o, v);
            slot[2 * j] = ru;
            slot[2 * j + 1] = rv;
            cnt[ru]++;
            cnt[rv]++;
        }
    }
    *bad = first_bad == INT64_MAX ? -1 : first_bad;
    if (*bad >= 0)
        return G5_OK;
    int64_t tot = bucket_offsets(c, bcount, nb, own_lo, own_n);
    *tot_out = tot;
    int rc = xbuf_need(sq, (size_t)(tot ? tot : 1) * sizeof(int64_t), "validation queries");
    if (rc != G5_OK)
        return rc;
    int64_t *q = sq->p;
    #pragma omp parallel for schedule(static, 1)
    for (int b = 0; b < nb; b++) {
        int *off = bcount + (size_t)b * p;
        for (int64_t t = 2 * (m * b / nb); t < 2 * (m * (b + 1) / nb); t++)
            if (slot[t] >= 0) {
                int32_t s = off[slot[t]]++;
                q[s] = ed[t];
                slot[t] = s;
            }
    }
    return G5_OK;
}

/* Phase 3: the edge stream, answering from parent and dist (SSSP) or the
 * jump words jw (BFS: their hops are the depths). Endpoints in this rank's
 * block are answered in place; only the others travel (at one rank nothing
 * does). Per chunk: route the remote endpoints (parallel counting sort), the
 * exchange, their answers (parallel), then the edge checks (parallel,
 * dynamic, thread-local failure records merged by priority) while the
 * master thread reads the next chunk into the second buffer (HDF5 and MPI
 * are called from the master thread only: MPI_THREAD_FUNNELED), then the
 * confirmations: marked in place for this rank's vertices, sent to their
 * owners for the others. */
static int check_edges(vctx *c, const kern_edge_reader *rd, const float *dist,
                       const uint64_t *jw, uint8_t *confirmed, int64_t *nedge, vfail *f)
{
    int rc = G5_OK;
    const int multi = c->nranks > 1;
    int64_t chunk = rd->chunk > 0 ? rd->chunk : KERN_VALIDATE_CHUNK;
    if (chunk > ((int64_t)1 << 24))
        chunk = (int64_t)1 << 24;
    int64_t efirst, ecount;
    g5_range_split(rd->nedges, c->rank, c->nranks, &efirst, &ecount);
    int64_t nchunks = ecount ? (efirst + ecount - 1) / chunk - efirst / chunk + 1 : 0;
    if (MPI_Allreduce(MPI_IN_PLACE, &nchunks, 1, MPI_INT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");

    /* blocks of the routing sort: a few per thread, fixed for the run */
    int nb = multi ? 4 * omp_get_max_threads() : 0;
    /* two chunk buffers when a thread can check one while the master reads
     * the other; with one thread the read follows the checks in one buffer.
     * Agreed: the read's place among the collectives depends on it. */
    int dbl = omp_get_max_threads() > 1;
    if (MPI_Allreduce(MPI_IN_PLACE, &dbl, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
    int64_t *ed[2] = {g5_malloc((size_t)chunk * 2 * sizeof(int64_t), "validation edge chunk"),
                      dbl ? g5_malloc((size_t)chunk * 2 * sizeof(int64_t), "validation edge chunk")
                          : NULL};
    float *wt[2] = {NULL, NULL};
    if (c->sssp) {
        wt[0] = g5_malloc((size_t)chunk * sizeof(float), "validation weight chunk");
        wt[1] = dbl ? g5_malloc((size_t)chunk * sizeof(float), "validation weight chunk") : NULL;
    }
    int32_t *slot = multi ? g5_malloc((size_t)chunk * 2 * sizeof *slot, "validation query slots")
                          : NULL;
    int *bcount = multi ? g5_malloc((size_t)nb * (size_t)c->nranks * sizeof *bcount,
                                    "validation routing counts") : NULL;
    xbuf sq = {0}, ans = {0}, rq = {0}, ra = {0}, rcf = {0};
    int64_t count_edges = 0, m = 0;
    rc = (ed[0] && (ed[1] || !dbl) && (!c->sssp || (wt[0] && (wt[1] || !dbl)))
          && (!multi || (slot && bcount)))
         ? G5_OK : G5_ERR_NOMEM;
    rc = g5_agree(c->comm, rc);
    if (rc != G5_OK)
        goto out;
    if (nchunks > 0) {
        rc = read_piece(rd, chunk, efirst, ecount, 0, ed[0], wt[0], &m);
        G5_TRY(g5_agree(c->comm, rc));
    }

    for (int64_t k = 0; k < nchunks; k++) {
        int64_t *ce = ed[dbl ? k & 1 : 0];
        const float *cw = wt[dbl ? k & 1 : 0];
        const vinfo *av = NULL;
        int64_t bad = -1, pfirst = (efirst / chunk + k) * chunk; /* first edge of the piece */
        pfirst = pfirst < efirst ? efirst : pfirst;
        if (multi) {
            int64_t own_lo = 0, own_n = 0, nsent = 0;
            rc = route_queries(c, ce, m, slot, bcount, nb, &sq, &own_lo, &own_n, &nsent, &bad);
            if (rc == G5_OK && bad >= 0)
                rc = g5_error(G5_ERR_FORMAT, "edge %" PRId64 " = (%" PRId64 ", %" PRId64
                              ") has a vertex outside [0, %" PRId64 ")",
                              pfirst + bad, ce[2 * bad], ce[2 * bad + 1], c->n);
            G5_TRY(g5_agree(c->comm, rc));
            int64_t nrecv;
            G5_TRY(exchange(c, sq.p, c->t_i64, sizeof(int64_t), &rq, &nrecv, "endpoint queries"));
            rc = xbuf_need(&ra, (size_t)(nrecv ? nrecv : 1) * sizeof(vinfo), "endpoint answers");
            if (rc == G5_OK)
                rc = xbuf_need(&ans, (size_t)(nsent ? nsent : 1) * sizeof(vinfo), "endpoint answers");
            G5_TRY(g5_agree(c->comm, rc));
            const int64_t *q = rq.p;
            vinfo *a = ra.p;
            vinfo *own = (vinfo *)ans.p + own_lo;
            const int64_t *oq = (const int64_t *)sq.p + own_lo;
            #pragma omp parallel
            {
                #pragma omp for schedule(static) nowait
                for (int64_t t = 0; t < nrecv; t++)
                    a[t] = answer_info(c, dist, jw, q[t]);
                /* this rank's own endpoints, in place (their parents lazy) */
                #pragma omp for schedule(static) nowait
                for (int64_t t = 0; t < own_n; t++)
                    own[t] = local_info(c, dist, jw, oq[t]);
            }
            G5_TRY(reply(c, ra.p, c->t_info, ans.p, "endpoint"));
            av = ans.p;
        }

        /* check each edge of chunk k while the master reads chunk k + 1;
         * remote confirmed endpoints are gathered into sq (its queries have
         * been answered; one confirmation per remote endpoint at most) */
        int64_t nconf = 0, counted = 0, first_bad = INT64_MAX, mnext = 0;
        int rrc = G5_OK;
        int64_t *cq = sq.p;
        #pragma omp parallel reduction(+ : counted) reduction(min : first_bad)
        {
            vfail tf = {.check = C_NONE};
            #pragma omp master
            if (dbl && k + 1 < nchunks)
                rrc = read_piece(rd, chunk, efirst, ecount, k + 1, ed[(k + 1) & 1],
                                 wt[(k + 1) & 1], &mnext);
            #pragma omp for schedule(dynamic, 4096) nowait
            for (int64_t j = 0; j < m; j++) {
                int64_t u = ce[2 * j], v = ce[2 * j + 1];
                if ((uint64_t)u >= (uint64_t)c->n || (uint64_t)v >= (uint64_t)c->n) {
                    first_bad = j < first_bad ? j : first_bad;
                    continue;
                }
                if (u == v)
                    continue;
                /* P > 1: every answer is in av (no branch on the owner) */
                vinfo iu = multi ? av[slot[2 * j]] : local_info(c, dist, jw, u);
                vinfo iv = multi ? av[slot[2 * j + 1]] : local_info(c, dist, jw, v);
                int64_t cf[2];
                double w = c->sssp ? (double)cw[j] : 1.0;
                int nc = check_edge(c, pfirst + j, u, v, w, &iu, &iv, cf, &tf, &counted);
                for (int x = 0; x < nc; x++) {
                    if (is_mine(c, cf[x])) {
                        mark(confirmed, cf[x] - c->first);
                        continue;
                    }
                    int64_t at;
                    #pragma omp atomic capture
                    at = nconf++;
                    cq[at] = cf[x];
                }
            }
            #pragma omp critical(validate_fail)
            fail_merge(f, &tf);
        }
        count_edges += counted;
        if (first_bad != INT64_MAX)
            rc = g5_error(G5_ERR_FORMAT, "edge %" PRId64 " = (%" PRId64 ", %" PRId64
                          ") has a vertex outside [0, %" PRId64 ")", pfirst + first_bad,
                          ce[2 * first_bad], ce[2 * first_bad + 1], c->n);
        else
            rc = rrc;
        G5_TRY(g5_agree(c->comm, rc));

        if (multi) {
            /* bucket remote confirmations by owner: counting sort from sq
             * into this chunk's edge buffer, no longer needed */
            int64_t *cbuf = ce, nrecv;
            const vowner o = vowner_of(c);
            memset(c->scount, 0, (size_t)c->nranks * sizeof *c->scount);
            for (int64_t t = 0; t < nconf; t++)
                c->scount[vowner_get(o, cq[t])]++;
            displs_from_counts(c);
            for (int64_t t = 0; t < nconf; t++)
                cbuf[c->cursor[vowner_get(o, cq[t])]++] = cq[t];
            G5_TRY(exchange(c, cbuf, c->t_i64, sizeof(int64_t), &rcf, &nrecv, "confirmations"));
            const int64_t *cv = rcf.p;
            for (int64_t t = 0; t < nrecv; t++)
                mark(confirmed, cv[t] - c->first);
        }
        if (!dbl && k + 1 < nchunks) {
            rc = read_piece(rd, chunk, efirst, ecount, k + 1, ed[0], wt[0], &mnext);
            G5_TRY(g5_agree(c->comm, rc));
        }
        m = mnext;
    }
    if (MPI_Allreduce(&count_edges, nedge, 1, MPI_INT64_T, MPI_SUM, c->comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
out:
    free(ed[0]);
    free(ed[1]);
    free(wt[0]);
    free(wt[1]);
    free(slot);
    free(bcount);
    free(sq.p);
    free(ans.p);
    free(rq.p);
    free(ra.p);
    free(rcf.p);
    return rc;
}

size_t kern_validate_work_bytes(int64_t nvertices, int rank, int nranks)
{
    int64_t first, count;
    g5_range_split(nvertices, rank, nranks, &first, &count);
    return (size_t)(count ? count : 1) * sizeof(uint64_t);
}

int kern_validate_reader(MPI_Comm comm, const kern_edge_reader *rd, int64_t root,
                         const int64_t *parent, const float *dist, void *work,
                         size_t work_bytes, int64_t *nedge_out)
{
    int rc = G5_OK;
    vctx c = {.comm = comm, .sssp = dist != NULL, .n = rd->nvertices,
              .t_i64 = MPI_DATATYPE_NULL, .t_info = MPI_DATATYPE_NULL};
    vfail f = {.check = C_NONE};
    void *jmem = NULL, *own_jw = NULL;
    uint8_t *confirmed = NULL;
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.nranks);
    if (rd->nvertices <= 0 || root < 0 || root >= rd->nvertices)
        return g5_error(G5_ERR_ARG, "%s validation: root %" PRId64 " outside [0, %" PRId64 ")",
                        dist ? "SSSP" : "BFS", root, rd->nvertices);
    if (rd->nvertices > J_MAX_N)
        return g5_error(G5_ERR_ARG, "%s validation: %" PRId64 " vertices, at most %" PRId64
                        " supported", dist ? "SSSP" : "BFS", rd->nvertices, J_MAX_N);
    g5_range_split(c.n, c.rank, c.nranks, &c.first, &c.count);
    c.scount = calloc((size_t)c.nranks * 5, sizeof(int));
    if (c.scount) {
        c.sdispl = c.scount + c.nranks;
        c.rcount = c.sdispl + c.nranks;
        c.rdispl = c.rcount + c.nranks;
        c.cursor = c.rdispl + c.nranks;
    }
    /* the caller's idle memory when it is large enough (kern_validate.h) */
    size_t wsize = dist ? sizeof(uint32_t) : sizeof(uint64_t);
    if (work && work_bytes >= (size_t)(c.count ? c.count : 1) * wsize)
        jmem = work;
    else
        jmem = own_jw = g5_malloc((size_t)(c.count ? c.count : 1) * wsize, "validation jump words");
    jwords jw = {.w = dist ? NULL : jmem, .a = dist ? jmem : NULL};
    confirmed = g5_calloc((size_t)(c.count + 8) / 8, 1, "validation marks");
    rc = (c.scount && jmem && confirmed) ? G5_OK
         : g5_error(G5_ERR_NOMEM, "validation: cannot allocate per-vertex arrays");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    MPI_Type_contiguous(1, MPI_INT64_T, &c.t_i64);
    MPI_Type_commit(&c.t_i64);
    MPI_Type_contiguous((int)sizeof(vinfo), MPI_BYTE, &c.t_info);
    MPI_Type_commit(&c.t_info);

    check_local(&c, root, parent, dist, &f);
    G5_TRY(agree_fail(&c, &f, root, G5_OK));
    int64_t batch = rd->chunk > 0 ? rd->chunk : KERN_VALIDATE_CHUNK;
    if (batch > ((int64_t)1 << 24))
        batch = (int64_t)1 << 24;
    rc = jump(&c, root, parent, jw, batch, &f);
    G5_TRY(agree_fail(&c, &f, root, rc));
    c.parent = parent;
    if (!dist) {
        /* every chain reached the root: the ancestor halves are all the
         * root's, so they take the parent (depth << 32 | parent), and
         * answers read one word */
        #pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < c.count; i++)
            jw.w[i] = j_word(parent[i] == -1 ? J_UNREACHED : (uint32_t)parent[i], j_hops(jw.w[i]));
    }
    int64_t nedge = 0;
    if (dist) {             /* SSSP answers from dist: the words are done */
        free(own_jw);
        own_jw = NULL;
    }
    rc = check_edges(&c, rd, dist, jw.w, confirmed, &nedge, &f);
    int64_t unconf = INT64_MAX;       /* the first reached vertex left unconfirmed */
    if (rc == G5_OK) {
        #pragma omp parallel for schedule(static) reduction(min : unconf)
        for (int64_t i = 0; i < c.count; i++)
            if (parent[i] != -1 && c.first + i != root && !bit_get(confirmed, i) && i < unconf)
                unconf = i;
    }
    if (unconf != INT64_MAX) {
        int64_t i = unconf, v = c.first + i;
        if (dist)
            fail(&f, C_TREE, i, "vertex %" PRId64 " (distance %.17g): no input edge (%" PRId64
                 ", %" PRId64 ", w) with d[%" PRId64 "] = d[%" PRId64 "] + w within tolerance",
                 v, dist[i], parent[i], v, v, parent[i]);
        else
            fail(&f, C_TREE, i, "vertex %" PRId64 ": tree edge (%" PRId64 ", %" PRId64
                 ") is not an input edge", v, parent[i], v);
    }
    G5_TRY(agree_fail(&c, &f, root, rc));
    if (nedge_out)
        *nedge_out = nedge;
out:
    if (c.t_i64 != MPI_DATATYPE_NULL) MPI_Type_free(&c.t_i64);
    if (c.t_info != MPI_DATATYPE_NULL) MPI_Type_free(&c.t_info);
    free(c.scount);
    free(own_jw);
    free(confirmed);
    return rc;
}
