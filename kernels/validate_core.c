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
 *     SSSP first tries one round that proves the same from the parents'
 *     distances (chain_by_distance) and jumps only when that fails;
 *  3. (once per batch of keys) per chunk of edges, endpoints owned by other
 *     ranks are sent to their owners, which reply with the endpoints'
 *     records for every key of the batch (parent, depth or distance); the
 *     reading rank checks the edge for each key, counts it for TEPS and
 *     marks the endpoint the edge confirms as a tight tree edge. The master
 *     thread reads chunk k + 1 while the others check chunk k
 *     (MPI_THREAD_FUNNELED).
 *  4. every reached vertex other than the root must be marked, per key.
 * Phases 1 and 2 run when a key is added to a batch (kern_vbatch_add),
 * 3 and 4 when the batch is checked. Every phase ends with an agreement:
 * all ranks return the same status.
 *
 * Memory per vertex of the rank's block and key of the batch: an 8-byte
 * record (a vertex's records for all keys side by side; held from a
 * batch's first key to the end of its check, so none is held while the
 * caller searches for the first key of the next batch) and one bit; while
 * a key is added, its jump words (8 bytes, SSSP 4) in the caller's idle
 * `work` when large enough (kern_validate_work_bytes), else in the record
 * slots of a batch of one, else in their own array. A parking batch
 * (validate_park.c) holds no records: each key goes to its scratch file
 * from the caller's arrays and the jump words. The edge stream's buffers
 * are bounded by the chunk; SSSP's proof from the distances by FLAT_MAX.
 */
#include "kern_validate.h"
#include "kern_impl.h"

#include "common.h"

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define JUMP_AHEAD 16   /* words between an ancestor's prefetch and its use */

static inline void jw_set(jwords j, int64_t i, uint64_t x)
{
    if (j.a)
        __atomic_store_n(&j.a[i], j_anc(x), __ATOMIC_RELAXED);
    else
        __atomic_store_n(&j.w[i], x, __ATOMIC_RELAXED);
}


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


__attribute__((format(printf, 4, 5)))
void vc_fail(vfail *f, int check, int64_t key, const char *fmt, ...)
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
void vc_fail_merge(vfail *f, const vfail *t)
{
    if (t->check < C_NONE && fail_before(t->check, t->key, f))
        *f = *t;
}


int vc_xbuf_need(xbuf *b, size_t bytes, const char *what)
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


/* Exchange counts, then the data (g5_exchange_counts/_data): sbuf holds
 * scount[r] items for rank r at sdispl[r]; the received items land in rb
 * (grown as needed). */
int vc_exchange(vctx *c, const void *sbuf, MPI_Datatype type, size_t size, xbuf *rb,
                    int64_t *nrecv, const char *what)
{
    char w[96];
    snprintf(w, sizeof w, "validation: %s", what);
    int rc = g5_exchange_counts(c->comm, G5_OK, c->scount, c->rcount, c->rdispl, nrecv, w);
    if (rc == G5_OK)
        rc = vc_xbuf_need(rb, (size_t)(*nrecv ? *nrecv : 1) * size, what);
    return g5_exchange_data(c->comm, rc, type, sbuf, c->scount, c->sdispl, rb->p, c->rcount,
                            c->rdispl, w);
}

/* The reply goes back along the reverse pattern: what rank r sent us
 * (rcount[r] items) is answered with rcount[r] items into its sdispl. */
int vc_reply(vctx *c, const void *sbuf, MPI_Datatype type, void *rbuf, const char *what)
{
    char w[96];
    snprintf(w, sizeof w, "validation: %s replies", what);
    return g5_exchange_data(c->comm, G5_OK, type, sbuf, c->rcount, c->rdispl, rbuf, c->scount,
                            c->sdispl, w);
}

void vc_displs_from_counts(vctx *c)
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
                vc_fail(&tf, C_RANGE, i, "vertex %" PRId64 " has parent %" PRId64
                     ", outside [-1, %" PRId64 ")", v, p, c->n);
                continue;
            }
            if (v == root && p != root)
                vc_fail(&tf, C_ROOT, i, "parent of root %" PRId64 " is %" PRId64, v, p);
            if (!dist)
                continue;
            double d = dist[i];
            if (v == root && d != 0.0)
                vc_fail(&tf, C_ROOTDIST, i, "distance of root %" PRId64 " is %.17g", v, d);
            if (p == -1 && !(isinf(d) && d > 0))
                vc_fail(&tf, C_AGREE, i, "vertex %" PRId64 " is unreached (parent -1) but has"
                     " distance %.17g", v, d);
            if (p != -1 && !isfinite(d))
                vc_fail(&tf, C_AGREE, i, "vertex %" PRId64 " has parent %" PRId64
                     " but distance %.17g", v, p, d);
        }
        #pragma omp critical(validate_fail)
        vc_fail_merge(f, &tf);
    }
}


/* The counting sort's offsets, shared by the jump and the edge stream:
 * bcount[b][r] (nb blocks x nranks) holds block b's count for rank r and
 * becomes the index where its first item goes (rank r's items from block
 * 0, then block 1, ...). Sets scount and sdispl for what travels: the own
 * bucket, [*own_lo, *own_lo + *own_n), stays in place (scount[rank] = 0,
 * answered by this rank). Returns the number of items. */
int64_t vc_bucket_offsets(vctx *c, int *bcount, int nb, int64_t *own_lo, int64_t *own_n)
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
    int64_t tot = vc_bucket_offsets(c, bcount, nb, own_lo, own_n);
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

/* The jump's buffers for one batch of words (jump allocates them). */
typedef struct jbufs {
    int64_t *sq;            /* [batch] queries, bucketed by owner */
    uint64_t *ans;          /* [batch] answers, by query slot */
    int32_t *slot;          /* [batch] a word's query slot */
    int *bcount;            /* [nblk][nranks] routing counts */
    int nblk;
    xbuf rq, ra;            /* queries received, answers sent */
} jbufs;

/* P > 1, one batch [lo, hi) of the words: each moving word's ancestor
 * (route_ancestors) is asked of its owner, who answers with the
 * ancestor's word, or with the bits of its distance when dist is given;
 * the own bucket is answered in place. On return jb->ans[jb->slot[i - lo]]
 * holds word i's answer. Collective. */
static int ask_owners(vctx *c, jwords jw, const float *dist, int64_t lo, int64_t hi,
                      uint32_t r32, jbufs *jb, const char *what)
{
    int rc = G5_OK;
    int64_t own_lo, own_n, nrecv;
    route_ancestors(c, jw, lo, hi, r32, jb->slot, jb->bcount, jb->nblk, jb->sq, &own_lo, &own_n);
    G5_TRY(vc_exchange(c, jb->sq, c->t_i64, sizeof(int64_t), &jb->rq, &nrecv, what));
    rc = vc_xbuf_need(&jb->ra, (size_t)(nrecv ? nrecv : 1) * sizeof(uint64_t), what);
    G5_TRY(g5_agree(c->comm, rc));
    const int64_t *q = jb->rq.p, *oq = jb->sq + own_lo;
    uint64_t *aw = jb->ra.p, *own = jb->ans + own_lo;
    #pragma omp parallel
    {
        #pragma omp for schedule(static) nowait
        for (int64_t k = 0; k < nrecv; k++)
            aw[k] = dist ? kc_f2u(dist[q[k] - c->first]) : jw_get(jw, q[k] - c->first);
        #pragma omp for schedule(static) nowait
        for (int64_t k = 0; k < own_n; k++)
            own[k] = dist ? kc_f2u(dist[oq[k] - c->first]) : jw_get(jw, oq[k] - c->first);
    }
    G5_TRY(vc_reply(c, aw, c->t_i64, jb->ans, what));
out:
    return rc;
}

/* Phase 2 for SSSP, before any jumping: a proof that every reached chain
 * reaches the root, from the parents' distances alone. When every reached
 * vertex v other than the root has a reached parent p with d[p] <= d[v],
 * following parents never raises the distance, so a cycle could only join
 * vertices of equal distance, each the child of a "flat" tree edge (d[p] =
 * d[v]: a weight of zero, or one the float sum absorbed); without a cycle
 * every chain ends at the only reached vertex without a parent step, the
 * root. The flat vertices are few (a handful per key), so every rank
 * gathers all of them and looks for a cycle among them. This is what the
 * jump would prove, in one fetch of the parents' distances instead of
 * O(log depth) rounds; when it does not hold (a parent farther than its
 * child, or unreached; more than FLAT_MAX flat vertices; a cycle), *proved
 * is 0 and the key goes through the jump, whose verdicts and messages
 * stand. The words jw hold (parent, 1) (jump's start), so the parents are
 * routed as the ancestors of the first round (route_ancestors) and
 * answered with the distances' bits, batch by batch (nb batches on every
 * rank). Collective; every rank gets the same *proved. */
#define FLAT_MAX 65536          /* flat vertices over all ranks, at most */

/* 1 when the parent links of the flat vertices fv[nf] (v << 32 | parent,
 * sorted) never close a cycle: each chain is followed through flat
 * vertices only, and marked done once it leaves them. */
static int flat_acyclic(const uint64_t *fv, int64_t nf)
{
    uint8_t *state = calloc((size_t)(nf ? nf : 1), 1);     /* 0 new, 1 on the path, 2 done */
    int64_t *path = malloc((size_t)(nf ? nf : 1) * sizeof *path);
    int ok = state && path;
    for (int64_t s = 0; ok && s < nf; s++) {
        int64_t len = 0, i = s;
        while (i >= 0 && state[i] == 0) {
            state[i] = 1;
            path[len++] = i;
            const uint64_t p = fv[i] & 0xffffffffu;   /* the parent's entry, if it is flat */
            int64_t lo = 0, hi = nf;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (fv[mid] >> 32 < p) lo = mid + 1; else hi = mid;
            }
            i = lo < nf && fv[lo] >> 32 == p ? lo : -1;
        }
        if (i >= 0 && state[i] == 1)
            ok = 0;                         /* back on this path: a cycle */
        while (len > 0)
            state[path[--len]] = 2;
    }
    free(state);
    free(path);
    return ok;
}

static int chain_by_distance(vctx *c, const float *dist, jwords jw, uint32_t r32, int64_t batch,
                             int64_t nb, jbufs *jb, int *proved)
{
    int rc = G5_OK;
    const int multi = c->nranks > 1;
    int ok = 1;
    int64_t nflat = 0;
    uint64_t *flat = malloc(FLAT_MAX * sizeof *flat), *all = NULL;
    int *cnt = NULL, *dsp = NULL;
    *proved = 0;
    rc = g5_agree(c->comm, flat ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    for (int64_t bt = 0; bt < nb; bt++) {
        int64_t lo = bt * batch < c->count ? bt * batch : c->count;
        int64_t hi = lo + batch < c->count ? lo + batch : c->count;
        if (multi)
            G5_TRY(ask_owners(c, jw, dist, lo, hi, r32, jb, "parent distances"));
        const uint64_t *ans = jb->ans;
        const int32_t *slot = jb->slot;
        int bad = 0;
        #pragma omp parallel for schedule(static) reduction(| : bad)
        for (int64_t i = lo; i < hi; i++) {
            if (!multi && i + JUMP_AHEAD < hi) {
                uint32_t pa = j_anc(jw_get(jw, i + JUMP_AHEAD));
                if (pa < J_BROKEN)
                    __builtin_prefetch(&dist[pa - c->first]);
            }
            const int64_t v = c->first + i;
            uint32_t a = j_anc(jw_get(jw, i));
            if (a >= J_BROKEN || v == (int64_t)r32)
                continue;           /* unreached, or the root (its parent checked in phase 1) */
            /* the parent's distance: the root's is 0 (phase 1); a vertex
             * its own parent is a flat vertex whose link closes a cycle */
            float pd = 0.0f;
            if (a != r32 && multi) {
                uint32_t bits = (uint32_t)ans[slot[i - lo]];
                memcpy(&pd, &bits, sizeof pd);
            } else if (a != r32) {
                pd = dist[a - c->first];
            }
            if (pd < dist[i])
                continue;
            if (pd == dist[i]) {
                int64_t at;
                #pragma omp atomic capture
                at = nflat++;
                if (at < FLAT_MAX) {
                    flat[at] = (uint64_t)v << 32 | a;
                    continue;
                }
            }
            bad = 1;                /* farther (or unreached) parent, or too many flat */
        }
        ok &= !bad;
    }
    /* every rank's flat vertices, on every rank */
    int64_t g[2] = {!ok, nflat < FLAT_MAX ? nflat : FLAT_MAX};
    if (MPI_Allreduce(MPI_IN_PLACE, g, 2, MPI_INT64_T, MPI_SUM, c->comm) != MPI_SUCCESS) {
        rc = g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
        goto out;
    }
    if (g[0] > 0 || g[1] > FLAT_MAX)
        goto out;
    cnt = malloc((size_t)c->nranks * sizeof *cnt);
    dsp = malloc((size_t)c->nranks * sizeof *dsp);
    all = malloc((size_t)(g[1] ? g[1] : 1) * sizeof *all);
    rc = g5_agree(c->comm, cnt && dsp && all ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    int mine = (int)nflat;
    if (MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, c->comm) != MPI_SUCCESS) {
        rc = g5_error(G5_ERR_MPI, "validation: MPI_Allgather failed");
        goto out;
    }
    for (int r = 0, d = 0; r < c->nranks; r++) {
        dsp[r] = d;
        d += cnt[r];
    }
    if (MPI_Allgatherv(flat, mine, MPI_UINT64_T, all, cnt, dsp, MPI_UINT64_T, c->comm) != MPI_SUCCESS) {
        rc = g5_error(G5_ERR_MPI, "validation: MPI_Allgatherv failed");
        goto out;
    }
    kern_sort_u64(all, g[1]);
    int acyclic = flat_acyclic(all, g[1]);  /* the same data on every rank */
    if (MPI_Allreduce(MPI_IN_PLACE, &acyclic, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS) {
        rc = g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
        goto out;
    }
    *proved = acyclic;
out:
    free(flat);
    free(all);
    free(cnt);
    free(dsp);
    return rc;
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
static int jump(vctx *c, int64_t root, const int64_t *parent, const float *dist, jwords jw,
                int64_t batch, vfail *f)
{
    int rc = G5_OK;
    const uint32_t r32 = (uint32_t)root;
    const int multi = c->nranks > 1;
    int64_t nb = (c->count + batch - 1) / batch;
    jbufs jb = {.nblk = multi ? 4 * omp_get_max_threads() : 0};
    if (multi) {
        jb.sq = g5_malloc((size_t)batch * sizeof *jb.sq, "validation queries");
        jb.ans = g5_malloc((size_t)batch * sizeof *jb.ans, "validation answers");
        jb.slot = g5_malloc((size_t)batch * sizeof *jb.slot, "validation query slots");
        jb.bcount = g5_malloc((size_t)jb.nblk * (size_t)c->nranks * sizeof *jb.bcount,
                              "validation routing counts");
    }
    const uint64_t *ans = jb.ans;
    const int32_t *slot = jb.slot;
    rc = g5_agree(c->comm, (jb.sq && jb.ans && jb.slot && jb.bcount) || !multi ? G5_OK : G5_ERR_NOMEM);
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

    if (dist) {
        int proved;
        G5_TRY(chain_by_distance(c, dist, jw, r32, batch, nb, &jb, &proved));
        if (proved) {
            /* every reached chain ends at the root */
            #pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < c->count; i++)
                if (j_anc(jw_get(jw, i)) != J_UNREACHED)
                    jw_set(jw, i, j_word(r32, 0));
            goto out;
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
            if (multi)
                G5_TRY(ask_owners(c, jw, NULL, lo, hi, r32, &jb, "ancestors"));
            /* apply: at P > 1 every answer is in ans (its own part read
             * before this pass), at one rank the ancestors are read in place */
            int64_t pd = 0, nw = 0;
            #pragma omp parallel for schedule(static) reduction(+ : pd, nw)
            for (int64_t i = lo; i < hi; i++) {
                /* one rank: the ancestors' words are random loads; ask for
                 * the one a word further on will read */
                if (!multi && i + JUMP_AHEAD < hi) {
                    uint32_t pa = j_anc(jw_get(jw, i + JUMP_AHEAD));
                    if (pa < J_BROKEN)
                        __builtin_prefetch(jw.a ? (const void *)&jw.a[pa - c->first]
                                                : (const void *)&jw.w[pa - c->first]);
                }
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
            vc_fail(f, C_CHAIN, i, "vertex %" PRId64 " (parent %" PRId64 ") never reaches root %"
                 PRId64 " following parents: a cycle, or an unreached vertex (parent -1) on the"
                 " way", c->first + i, parent[i], root);
            break;
        }
    }
out:
    free(jb.sq);
    free(jb.ans);
    free(jb.slot);
    free(jb.bcount);
    free(jb.rq.p);
    free(jb.ra.p);
    return rc;
}

size_t kern_validate_work_bytes(int64_t nvertices, int rank, int nranks)
{
    int64_t first, count;
    g5_range_split(nvertices, rank, nranks, &first, &count);
    return (size_t)(count ? count : 1) * sizeof(uint64_t);
}

size_t kern_vbatch_key_bytes(int64_t nvertices, int rank, int nranks)
{
    int64_t first, count;
    g5_range_split(nvertices, rank, nranks, &first, &count);
    return (size_t)count * sizeof(vrec) + (size_t)(count + 7) / 8;
}

/* The context of one collective step of batch b (free with ctx_close). */
static int ctx_open(const kern_vbatch *b, vctx *c)
{
    *c = (vctx){.comm = b->comm, .rank = b->rank, .nranks = b->nranks, .n = b->n,
                .first = b->first, .count = b->count, .sssp = b->sssp, .nk = b->nk,
                .stride = b->kmax, .rec = b->rec, .t_i64 = MPI_DATATYPE_NULL,
                .t_info = MPI_DATATYPE_NULL};
    c->scount = calloc((size_t)c->nranks * 5, sizeof(int));
    if (c->scount) {
        c->sdispl = c->scount + c->nranks;
        c->rcount = c->sdispl + c->nranks;
        c->rdispl = c->rcount + c->nranks;
        c->cursor = c->rdispl + c->nranks;
    }
    int rc = g5_agree(c->comm, c->scount ? G5_OK
                      : g5_error(G5_ERR_NOMEM, "validation: cannot allocate exchange counts"));
    if (rc != G5_OK)
        return rc;
    MPI_Type_contiguous(1, MPI_INT64_T, &c->t_i64);
    MPI_Type_commit(&c->t_i64);
    MPI_Type_contiguous((int)sizeof(vrec) * (c->nk > 0 ? c->nk : 1), MPI_BYTE, &c->t_info);
    MPI_Type_commit(&c->t_info);
    return G5_OK;
}

static void ctx_close(vctx *c)
{
    if (c->t_i64 != MPI_DATATYPE_NULL) MPI_Type_free(&c->t_i64);
    if (c->t_info != MPI_DATATYPE_NULL) MPI_Type_free(&c->t_info);
    free(c->scount);
    c->scount = NULL;
}

/* Collective. Key k's verdict on the failure f: a validation failure is
 * kept as the key's status and message (and G5_OK returned, so the batch
 * goes on); any other failure is returned. */
static int key_verdict(kern_vbatch *b, vctx *c, int k, const vfail *f, int rc)
{
    rc = agree_fail(c, f, b->root[k], rc);
    if (rc != G5_ERR_VALIDATE)
        return rc;
    b->status[k] = rc;
    snprintf(b->msg[k], VB_MSG, "%s", g5_error_msg());
    return G5_OK;
}

int kern_vbatch_create(MPI_Comm comm, int64_t nvertices, int kmax, int sssp, kern_vbatch **out)
{
    *out = NULL;
    const char *kind = sssp ? "SSSP" : "BFS";
    if (kmax < 1 || kmax > KERN_VBATCH_MAX)
        return g5_error(G5_ERR_ARG, "%s validation: a batch holds 1 to %d keys, not %d", kind,
                        KERN_VBATCH_MAX, kmax);
    if (nvertices <= 0 || nvertices > J_MAX_N)
        return g5_error(G5_ERR_ARG, "%s validation: %" PRId64 " vertices, at most %" PRId64
                        " supported", kind, nvertices, J_MAX_N);
    kern_vbatch *b = calloc(1, sizeof *b);
    if (b) {
        b->comm = comm;
        b->sssp = sssp != 0;
        b->kmax = kmax;
        b->n = nvertices;
        MPI_Comm_rank(comm, &b->rank);
        MPI_Comm_size(comm, &b->nranks);
        g5_range_split(nvertices, b->rank, b->nranks, &b->first, &b->count);
    }
    int rc = g5_agree(comm, b ? G5_OK : g5_error(G5_ERR_NOMEM, "%s validation: cannot allocate a batch",
                                                 kind));
    if (rc != G5_OK) {
        kern_vbatch_free(&b);
        return rc;
    }
    *out = b;
    return G5_OK;
}

void kern_vbatch_free(kern_vbatch **b)
{
    if (!b || !*b)
        return;
    free((*b)->rec);
    free(*b);
    *b = NULL;
}

int kern_vbatch_keys(const kern_vbatch *b) { return b->nk; }

const char *kern_vbatch_message(const kern_vbatch *b, int k)
{
    return k >= 0 && k < b->nchecked && b->status[k] != G5_OK ? b->msg[k] : "";
}

int vc_batch_alloc(kern_vbatch *b)
{
    b->nchecked = 0;
    /* huge pages where the system gives them: the edge checks load two
     * records at random per edge, a TLB miss each on small pages */
    b->rec = kc_big_malloc((size_t)(b->count ? b->count : 1) * (size_t)b->kmax * sizeof(vrec));
    int rc = g5_agree(b->comm, b->rec ? G5_OK
                      : g5_error(G5_ERR_NOMEM, "%s validation: cannot allocate the records of %d keys",
                                 b->sssp ? "SSSP" : "BFS", b->kmax));
    if (rc != G5_OK) {
        free(b->rec);
        b->rec = NULL;
    }
    return rc;
}

int kern_vbatch_add(kern_vbatch *b, int64_t root, const int64_t *parent, const float *dist,
                    void *work, size_t work_bytes)
{
    const char *kind = b->sssp ? "SSSP" : "BFS";
    if (b->nk >= b->kmax && !b->spill)
        return g5_error(G5_ERR_ARG, "%s validation: the batch is full (%d keys)", kind, b->kmax);
    if ((dist != NULL) != b->sssp)
        return g5_error(G5_ERR_ARG, "%s validation: distances %s", kind,
                        b->sssp ? "missing" : "given for BFS");
    if (root < 0 || root >= b->n)
        return g5_error(G5_ERR_ARG, "%s validation: root %" PRId64 " outside [0, %" PRId64 ")",
                        kind, root, b->n);
    if (b->nk == 0 && !b->spill) {
        int rc = vc_batch_alloc(b);
        if (rc != G5_OK)
            return rc;
    }
    /* a parking batch checks the key in slot 0 and writes it out */
    const int k = b->spill ? 0 : b->nk++;
    b->nchecked = b->spill ? 0 : b->nchecked;
    b->root[k] = root;
    b->status[k] = G5_OK;
    vctx c;
    vfail f = {.check = C_NONE};
    int rc = ctx_open(b, &c);
    if (rc != G5_OK)
        return rc;
    /* the jump words: in the caller's idle memory when it is large enough
     * (kern_validate.h); else in a batch of one in the key's record slots
     * (8 bytes each, replaced by the records once the depths are known);
     * else allocated (contiguous: strided words made the jump 4x slower) */
    size_t wsize = dist ? sizeof(uint32_t) : sizeof(uint64_t);
    void *own_jw = NULL;
    jwords jw = {.w = (uint64_t *)(void *)b->rec, .a = NULL};
    if (work && work_bytes >= (size_t)(c.count ? c.count : 1) * wsize) {
        jw = (jwords){.w = dist ? NULL : work, .a = dist ? work : NULL};
    } else if (b->kmax > 1 || b->spill) {
        own_jw = g5_malloc((size_t)(c.count ? c.count : 1) * wsize, "validation jump words");
        jw = (jwords){.w = dist ? NULL : own_jw, .a = dist ? own_jw : NULL};
        rc = g5_agree(c.comm, own_jw ? G5_OK : G5_ERR_NOMEM);
        if (rc != G5_OK)
            goto out;
    }

    check_local(&c, root, parent, dist, &f);
    G5_TRY(key_verdict(b, &c, k, &f, G5_OK));
    if (b->status[k] == G5_OK) {
        int64_t batch = KERN_VALIDATE_CHUNK;
        rc = jump(&c, root, parent, dist, jw, batch, &f);
        G5_TRY(key_verdict(b, &c, k, &f, rc));
    }
    if (b->spill) {
        rc = g5_agree(c.comm, vc_park_key(b, k, parent, dist, jw));
        goto out;
    }
    /* the key's records: a failed key's read as unreached, so the edge
     * stream finds nothing more for it */
    vrec *r = b->rec + k;
    const int64_t st = b->kmax;
    const int ok = b->status[k] == G5_OK;
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < c.count; i++) {
        vrec x = {.parent = J_UNREACHED, .val = 0};
        if (ok && parent[i] != -1) {
            x.parent = (uint32_t)parent[i];
            if (dist)
                memcpy(&x.val, &dist[i], sizeof x.val);
            else
                x.val = j_hops(jw_get(jw, i));
        }
        r[i * st] = x;
    }
out:
    ctx_close(&c);
    free(own_jw);
    return rc;
}

int kern_vbatch_check(kern_vbatch *b, const kern_edge_reader *rd, int *status, int64_t *nedge)
{
    const int nk = b->nk;
    if (nk == 0)
        return G5_OK;
    if (rd->nvertices != b->n)
        return g5_error(G5_ERR_ARG, "%s validation: the edges have %" PRId64 " vertices, the batch %"
                        PRId64, b->sssp ? "SSSP" : "BFS", rd->nvertices, b->n);
    vctx c;
    vfail f[KERN_VBATCH_MAX];
    int64_t cnt[KERN_VBATCH_MAX], unconf[KERN_VBATCH_MAX];
    uint8_t *confirmed = NULL;
    int rc = ctx_open(b, &c);
    if (rc != G5_OK)
        goto out;
    for (int k = 0; k < nk; k++) {
        f[k].check = C_NONE;
        unconf[k] = INT64_MAX;
    }
    confirmed = g5_calloc(((size_t)c.count * nk + 8) / 8, 1, "validation marks");
    G5_TRY(g5_agree(c.comm, confirmed ? G5_OK : G5_ERR_NOMEM));
    rc = vc_check_edges(&c, rd, confirmed, cnt, f);
    G5_TRY(g5_agree(c.comm, rc));
    /* phase 4: the first reached vertex left unconfirmed, per key */
    const int64_t st = b->kmax;
    const int64_t *root = b->root;
    #pragma omp parallel for schedule(static) reduction(min : unconf[:nk])
    for (int64_t i = 0; i < c.count; i++)
        for (int k = 0; k < nk; k++) {
            vrec x = b->rec[i * st + k];
            if (x.parent != J_UNREACHED && c.first + i != root[k]
                && !bit_get(confirmed, i * nk + k) && i < unconf[k])
                unconf[k] = i;
        }
    for (int k = 0; k < nk; k++) {
        if (unconf[k] != INT64_MAX) {
            int64_t i = unconf[k], v = c.first + i;
            vrec x = b->rec[i * st + k];
            if (c.sssp)
                vc_fail(&f[k], C_TREE, i, "vertex %" PRId64 " (distance %.17g): no input edge (%"
                        PRIu32 ", %" PRId64 ", w) with d[%" PRId64 "] = d[%" PRIu32 "] + w within"
                        " tolerance", v, rec_dist(x), x.parent, v, v, x.parent);
            else
                vc_fail(&f[k], C_TREE, i, "vertex %" PRId64 ": tree edge (%" PRIu32 ", %" PRId64
                        ") is not an input edge", v, x.parent, v);
        }
        if (b->status[k] == G5_OK)
            G5_TRY(key_verdict(b, &c, k, &f[k], G5_OK));
        status[k] = b->status[k];
        nedge[k] = status[k] == G5_OK ? cnt[k] : -1;
    }
out:
    b->nk = 0;             /* the batch is empty for the next keys */
    b->nchecked = nk;      /* their messages stay until the next add */
    free(b->rec);
    b->rec = NULL;
    ctx_close(&c);
    free(confirmed);
    return rc;
}

int kern_validate_reader(MPI_Comm comm, const kern_edge_reader *rd, int64_t root,
                         const int64_t *parent, const float *dist, void *work,
                         size_t work_bytes, int64_t *nedge_out)
{
    kern_vbatch *b = NULL;
    int st = G5_OK;
    int64_t nedge = -1;
    int rc = kern_vbatch_create(comm, rd->nvertices, 1, dist != NULL, &b);
    if (rc == G5_OK)
        rc = kern_vbatch_add(b, root, parent, dist, work, work_bytes);
    if (rc == G5_OK)
        rc = kern_vbatch_check(b, rd, &st, &nedge);
    if (rc == G5_OK && st != G5_OK)
        rc = g5_error(st, "%s", b->msg[0]);
    if (rc == G5_OK && nedge_out)
        *nedge_out = nedge;
    kern_vbatch_free(&b);
    return rc;
}
