/* SPDX-License-Identifier: MIT */
/*
 * cc_dist_exchange.c - the exchange of the distributed merge (cc_dist.c):
 * requests keyed by vertex go to the rank owning the vertex's block of
 * [0, N), which applies them to its entry of the owned parents f (or of
 * the counters at roots) and, for a gather, answers.
 *
 * Blocks: the first N mod P ranks own q + 1 vertices, the others q
 * (q = N / P), so the owner of v follows from v without a table. A request
 * list is sent in batches of at most cc_opts.dist_batch (2^18) pairs per
 * rank, every rank taking as many batches as the rank with the most; a
 * batch is packed owner by owner (counting sort), sent through common's
 * counted exchange as records of two int64 and applied in arrival order;
 * a gather's replies travel back by the same counts reversed and land in
 * the caller's order through the send order kept in perm.
 *
 * The gather plan: the hook rounds gather f for the same keys every round.
 * The first gather records per batch the counts and displacements, the
 * send order and on the owner the keys received, so later gathers send no
 * keys: one all-to-all per batch instead of three, no packing.
 *
 * Hooks of one old parent are combined on the sender (cc_kv_combine: LSD
 * radix sort by key, 11 bits a pass, keeping each key's minimum).
 */
#include "cc_internal.h"
#include "common.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define DIST_BATCH ((int64_t)1 << 18) /* pairs per rank and batch: 6 MiB sent */

void cc_dist_plan_free(cc_dist_plan *g)
{
    free(g->cnt);
    free(g->perm);
    free(g->rkey);
    memset(g, 0, sizeof *g);
}

static int owner_of(const cc_dist *d, int64_t v)
{
    const int64_t big = d->rem * (d->q + 1);
    return v < big ? (int)(v / (d->q + 1)) : (int)(d->rem + (v - big) / d->q);
}

/* LSD radix sort of a[0, k) by key (keys in [0, 2^31)), 11 bits a pass,
 * only as many passes as the largest key needs; tmp holds k entries. */
static void radix_kv(cc_kv *a, cc_kv *tmp, int64_t k)
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
int64_t cc_kv_combine(cc_kv *a, int64_t k)
{
    int64_t o = 0;
    if (k == 0)
        return 0;
    cc_kv *tmp = g5_malloc((size_t)k * sizeof *tmp, "components: sort scratch");
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

void cc_dist_free(cc_dist *d)
{
    free(d->f);
    free(d->accv);
    free(d->acce);
    free(d->sbuf);
    free(d->perm);
    free(d->rbuf);
    free(d->sc); /* sd, rc and rd point into it */
}

/* The block geometry; no allocation (cc_dist_alloc does it once the local
 * forest is built, so the two never add up). batch: pairs per batch
 * (<= 0: DIST_BATCH). Not collective. */
void cc_dist_init(cc_dist *d, MPI_Comm comm, int64_t n, int64_t batch)
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
    d->batch = batch > 0 ? batch : DIST_BATCH;
    if (d->batch > INT_MAX / 4 / d->p)
        d->batch = INT_MAX / 4 / d->p;
}

/* Local phase: the owned parents (all unseen) and the exchange buffers.
 * The counters accv and acce come later (cc_dist.c's count_at_roots). Not
 * collective. */
int cc_dist_alloc(cc_dist *d)
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

/* Room for 2 * total int64 in the receive buffer. Not collective. */
static int rbuf_room(cc_dist *d, int64_t total)
{
    int rc = G5_OK;
    if (2 * total > d->rcap) {
        free(d->rbuf);
        d->rcap = 2 * total;
        d->rbuf = g5_malloc((size_t)d->rcap * sizeof *d->rbuf, "components: receive buffer");
        if (!d->rbuf) {
            d->rcap = 0;
            rc = G5_ERR_NOMEM;
        }
    }
    return rc;
}

/* Pack entries [lo, hi) owner by owner into sbuf (send order in perm),
 * exchange their counts and then the pairs, each one record of two int64
 * (common's counted exchange); *total: pairs received. Collective. */
static int send_batch(cc_dist *d, const int64_t *key, const int64_t *val, int64_t stride, int64_t lo, int64_t hi,
                      int64_t *total)
{
    const int p = d->p;
    int rc;
    MPI_Datatype pair;
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
    rc = g5_exchange_counts(d->comm, G5_OK, d->sc, d->rc, d->rd, total, "components");
    if (rc == G5_OK)
        rc = rbuf_room(d, *total);
    MPI_Type_contiguous(2, MPI_INT64_T, &pair);
    MPI_Type_commit(&pair);
    rc = g5_exchange_data(d->comm, rc, pair, d->sbuf, d->sc, d->sd, d->rbuf, d->rc, d->rd, "components");
    MPI_Type_free(&pair);
    return rc;
}

/* The plan's record of batch b (entries [lo, hi), total received): its
 * counts, send order and the keys received. Returns G5_ERR_NOMEM when the
 * keys do not fit (agreed by the caller). Not collective. */
static int plan_batch(const cc_dist *d, cc_dist_plan *plan, int64_t b, int64_t lo, int64_t hi, int64_t total)
{
    int *c = plan->cnt + (size_t)b * 4 * (size_t)d->p;
    memcpy(c, d->sc, (size_t)d->p * 4 * sizeof(int));  /* sc, sd, rc, rd are contiguous */
    for (int64_t j = 0; j < hi - lo; j++)
        plan->perm[lo + j] = (int32_t)(d->perm[j] - lo);
    if (plan->nrecv + total > plan->rcap) {
        const int64_t cap = 2 * (plan->nrecv + total);
        int32_t *rk = realloc(plan->rkey, (size_t)cap * sizeof *rk);
        if (!rk)
            return G5_ERR_NOMEM;
        plan->rkey = rk;
        plan->rcap = cap;
    }
    for (int64_t j = 0; j < total; j++)
        plan->rkey[plan->nrecv + j] = (int32_t)(d->rbuf[2 * j] - d->first);
    plan->nrecv += total;
    return G5_OK;
}

/* Apply op to the total received pairs; CC_DIST_GET leaves the replies in
 * rbuf[0, total). Returns the entries CC_DIST_MIN lowered. Not collective. */
static int64_t apply_batch(cc_dist *d, int op, int64_t total)
{
    int64_t low = 0;
    for (int64_t j = 0; j < total; j++) {
        const int64_t v = d->rbuf[2 * j] - d->first, x = d->rbuf[2 * j + 1];
        switch (op) {
        case CC_DIST_GET:
            if (d->f[v] < 0)
                d->f[v] = v + d->first;
            d->rbuf[j] = d->f[v]; /* j <= 2 j: read before written */
            break;
        case CC_DIST_MIN:
            if (x < d->f[v]) {
                d->f[v] = x;
                low++;
            }
            break;
        case CC_DIST_ADD_V:
            d->accv[v] += x;
            break;
        default:
            d->acce[v] += x;
            break;
        }
    }
    return low;
}

/* Collective. Send (key[i * stride], val[i * stride]) (val NULL: 0) for
 * i < k to the owner of the key, which applies op to its entry:
 * CC_DIST_GET replies f[key] in reply[i] (an unseen key is first set to
 * itself), CC_DIST_MIN lowers f[key] to val and counts the entries it
 * lowered in *changed, CC_DIST_ADD_V / CC_DIST_ADD_E add val to the vertex
 * / edge counter of key. plan (CC_DIST_GET only, may be NULL) records the
 * gather for cc_dist_gather_planned. */
int cc_dist_exchange_plan(cc_dist *d, int op, const int64_t *key, const int64_t *val, int64_t stride,
                          int64_t k, int64_t *reply, int64_t *changed, cc_dist_plan *plan)
{
    int64_t nb = (k + d->batch - 1) / d->batch, maxnb = 0;
    int prc = G5_OK, rc;
    if (MPI_Allreduce(&nb, &maxnb, 1, MPI_INT64_T, MPI_MAX, d->comm) != MPI_SUCCESS)
        return g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
    if (plan) {
        cc_dist_plan_free(plan);
        plan->nb = maxnb;
        plan->cnt = g5_malloc((size_t)(maxnb ? maxnb : 1) * 4 * (size_t)d->p * sizeof(int), "components: gather plan");
        plan->perm = g5_malloc((size_t)(k ? k : 1) * sizeof *plan->perm, "components: gather plan");
        prc = g5_agree(d->comm, plan->cnt && plan->perm ? G5_OK : G5_ERR_NOMEM);
        if (prc != G5_OK) {
            cc_dist_plan_free(plan);
            return prc;
        }
    }
    for (int64_t b = 0; b < maxnb; b++) {
        const int64_t lo = b * d->batch < k ? b * d->batch : k;
        const int64_t hi = lo + d->batch < k ? lo + d->batch : k;
        int64_t total = 0;
        rc = send_batch(d, key, val, stride, lo, hi, &total);
        if (rc != G5_OK)
            return rc;
        if (plan && prc == G5_OK)
            prc = plan_batch(d, plan, b, lo, hi, total);
        const int64_t low = apply_batch(d, op, total);
        if (changed)
            *changed += low;
        if (op != CC_DIST_GET)
            continue;
        rc = g5_exchange_data(d->comm, G5_OK, MPI_INT64_T, d->rbuf, d->rc, d->rd, d->sbuf, d->sc, d->sd,
                              "components: replies");
        if (rc != G5_OK)
            return rc;
        for (int64_t j = 0; j < hi - lo; j++)
            reply[d->perm[j]] = d->sbuf[j];
    }
    if (plan) {
        prc = g5_agree(d->comm, prc == G5_OK ? G5_OK : g5_error(prc, "components: gather plan"));
        if (prc != G5_OK)
            cc_dist_plan_free(plan);
        return prc;
    }
    return G5_OK;
}

int cc_dist_exchange(cc_dist *d, int op, const int64_t *key, const int64_t *val, int64_t stride,
                     int64_t k, int64_t *reply, int64_t *changed)
{
    return cc_dist_exchange_plan(d, op, key, val, stride, k, reply, changed, NULL);
}

/* A gather of f for the keys the plan recorded (reply[i] for key i), no
 * keys sent. Collective. */
int cc_dist_gather_planned(cc_dist *d, const cc_dist_plan *plan, int64_t *reply)
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
int cc_dist_exchange_kv(cc_dist *d, int op, const cc_kv *a, int64_t k, int64_t *changed)
{
    static const cc_kv none = {0, 0};
    if (k == 0)
        a = &none;
    return cc_dist_exchange(d, op, &a->k, &a->v, 2, k, NULL, changed);
}
