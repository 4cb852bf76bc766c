/* SPDX-License-Identifier: MIT */
/*
 * sssp.c - kernel 3 of Graph500: distributed single-source shortest paths by
 * delta-stepping with OpenMP inside each rank.
 *
 * Algorithm (Meyer and Sanders, "Delta-stepping: a parallelizable shortest
 * path algorithm", J. Algorithms 49(1), 2003), in the bucket-fusion form of
 * the GAP Benchmark Suite (Beamer, Asanovic, Patterson, arXiv:1508.03619):
 * vertices wait in buckets of width delta by tentative distance; the lowest
 * non-empty bucket k is the frontier; every edge of every frontier vertex is
 * relaxed (light and heavy together: with weights in [0, 1) and delta near
 * 0.1 the split saves little and costs a second pass); improved vertices go
 * into the bucket of their new distance, which is k itself for light edges,
 * so bucket k is iterated until empty, then the next non-empty bucket is the
 * global minimum over ranks (empty buckets are skipped, unlike the reference
 * code). One round = local relaxation, one kern_exchange of remote
 * relaxations (12 bytes: target pid, parent pid, float distance), applying
 * the received ones, and one MPI_Allreduce for the next bucket (with the
 * failure flag folded in).
 *
 * Data encoding: the state of local vertex l is one 64-bit word
 * (float32 distance bits << 32 | parent pid), initially all ones
 * (unreached). A relaxation is a compare-and-swap loop that succeeds only
 * for a strictly smaller distance, so distance and parent always change
 * together (no torn pairs between threads) and parent pointers cannot form a
 * cycle through zero-weight edges. Non-negative float bits order like the
 * values. Distances are computed in float32 like the weights and returned as
 * double; d[v] = fl(d[parent] + w) exactly for the kept (smallest) weight.
 * Bucket lists are per thread and per bucket, growable vectors of 64-bit
 * entries (distance bits at push << 32 | local vertex); an entry whose
 * distance is no longer the vertex's is stale and skipped, so each distinct
 * improvement of a vertex is expanded once (without this check, duplicate
 * pushes made a vertex's row be scanned 7x on average at SCALE 18).
 * Memory: 8 bytes per local vertex plus the bucket entries (about one per
 * improvement) and the message buffers.
 */
#include "kern_impl.h"

#include <math.h>
#include <omp.h>

typedef struct msg { uint32_t c, p; float d; } msg;

typedef struct tbins {
    kvec *b;                /* [nb] uint64 (distance bits << 32 | local vertex) per bucket */
    int64_t nb;
} tbins;

struct kern_sssp {
    kern_graph *g;
    double delta;
    int nt;
    int64_t nl;
    uint64_t *st;
    tbins *tb;              /* [nt] */
    kvec *tsend;            /* [nt * P] msg */
    uint64_t *frontier;
    size_t fcap;
    msg *sendbuf;
    size_t sendcap;
    void *recv;
    size_t recvcap;
    int64_t *cnt;
    kern_sssp_stats stats;
};

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

int kern_sssp_create(kern_graph *g, double delta, kern_sssp **out)
{
    int P = g->nranks;
    *out = NULL;
    if (!(delta > 0))
        return g5_agree(g->comm, g5_error(G5_ERR_ARG, "SSSP: delta must be positive, not %g", delta));
    kern_sssp *s = calloc(1, sizeof *s);
    int ok = s != NULL;
    if (ok) {
        s->g = g;
        s->delta = delta;
        s->nt = omp_get_max_threads();
        s->nl = g->nlocal;
        s->st = malloc(((size_t)s->nl + 1) * 8);
        s->tb = calloc((size_t)s->nt, sizeof(tbins));
        s->tsend = calloc((size_t)s->nt * P, sizeof(kvec));
        s->cnt = calloc((size_t)P, sizeof(int64_t));
        ok = s->st && s->tb && s->tsend && s->cnt;
    }
    if (ok)
        for (int i = 0; i < s->nt * P; i++) kvec_init(&s->tsend[i], sizeof(msg));
    int rc = g5_agree(g->comm, ok ? G5_OK : g5_error(G5_ERR_NOMEM, "SSSP: cannot allocate the workspace"));
    if (rc) { kern_sssp_free(&s); return rc; }
    *out = s;
    return G5_OK;
}

void kern_sssp_free(kern_sssp **sp)
{
    if (!sp || !*sp) return;
    kern_sssp *s = *sp;
    if (s->tb)
        for (int t = 0; t < s->nt; t++) {
            for (int64_t i = 0; i < s->tb[t].nb; i++) kvec_free(&s->tb[t].b[i]);
            free(s->tb[t].b);
        }
    if (s->tsend)
        for (int i = 0; i < s->nt * s->g->nranks; i++) kvec_free(&s->tsend[i]);
    free(s->tb); free(s->tsend); free(s->st); free(s->frontier); free(s->sendbuf);
    free(s->recv); free(s->cnt);
    free(s);
    *sp = NULL;
}

const kern_sssp_stats *kern_sssp_get_stats(const kern_sssp *s) { return &s->stats; }

static inline int64_t bucket_of(float d, double delta) { return (int64_t)((double)d / delta); }

/* push local vertex l into this thread's bucket k; 0 on allocation failure */
static int bin_push(tbins *tb, int64_t k, uint32_t l, float d)
{
    if (k >= tb->nb) {
        int64_t nb = tb->nb ? tb->nb : 64;
        while (nb <= k) nb *= 2;
        kvec *b = realloc(tb->b, (size_t)nb * sizeof(kvec));
        if (!b) return 0;
        for (int64_t i = tb->nb; i < nb; i++) kvec_init(&b[i], 8);
        tb->b = b;
        tb->nb = nb;
    }
    uint64_t *p = kvec_push(&tb->b[k]);
    if (!p) return 0;
    *p = (uint64_t)f2u(d) << 32 | l;
    return 1;
}

/* strictly smaller distance wins; 1 if this call improved it */
static inline int relax(uint64_t *st, int64_t l, float nd, uint32_t p)
{
    uint64_t nbits = f2u(nd);
    uint64_t old = __atomic_load_n(&st[l], __ATOMIC_RELAXED);
    while ((old >> 32) > nbits) {
        if (__atomic_compare_exchange_n(&st[l], &old, nbits << 32 | p, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

int kern_sssp_run(kern_sssp *s, int64_t root)
{
    kern_graph *g = s->g;
    const kern_dist *d = g->dist;
    int P = g->nranks, nt = s->nt;
    int owner;
    int64_t rl;
    memset(&s->stats, 0, sizeof s->stats);
    if (!kern_dist_locate(d, root, &owner, &rl))
        return g5_error(G5_ERR_ARG, "SSSP: root %lld has no owner", (long long)root);
    const int64_t nl = s->nl, base = g->base;
    const double delta = s->delta;
    uint64_t *st = s->st;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < nl; v++) st[v] = UINT64_MAX;
    for (int t = 0; t < nt; t++)
        for (int64_t i = 0; i < s->tb[t].nb; i++) s->tb[t].b[i].n = 0;

    int64_t fn = 0, k = 0;
    int fail = 0, ok = 1;
    if (!s->frontier) {
        s->fcap = 1024;
        s->frontier = malloc(s->fcap * 8);
        if (!s->frontier) fail = 1;
    }
    if (owner == g->rank && !fail) {
        st[rl] = (uint64_t)(base + rl);           /* distance 0.0f, parent itself */
        s->frontier[fn++] = (uint64_t)rl;     /* distance bits 0 */
    }
    for (;;) {
        double t0 = g5_now();
        int64_t nrel = 0;
        for (int i = 0; i < nt * P; i++) s->tsend[i].n = 0;
#pragma omp parallel num_threads(nt) reduction(| : fail) reduction(+ : nrel) if (fn > 64)
        {
            int t = omp_get_thread_num();
            kvec *sb = &s->tsend[(size_t)t * P];
            tbins *tb = &s->tb[t];
#pragma omp for schedule(dynamic, 64) nowait
            for (int64_t i = 0; i < fn; i++) {
                uint32_t u = (uint32_t)s->frontier[i];
                uint32_t dbits = (uint32_t)(__atomic_load_n(&st[u], __ATOMIC_RELAXED) >> 32);
                /* stale: improved since this entry was pushed (a newer entry
                 * carries the new distance) */
                if (dbits != (uint32_t)(s->frontier[i] >> 32)) continue;
                float du = u2f(dbits);
                uint32_t upid = (uint32_t)(base + u);
                for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) {
                    uint32_t c = g->col[e];
                    float nd = du + g->w[e];
                    uint64_t l = (uint64_t)((int64_t)c - base);
                    nrel++;
                    if (l < (uint64_t)nl) {
                        if (relax(st, (int64_t)l, nd, upid) && !bin_push(tb, bucket_of(nd, delta), (uint32_t)l, nd))
                            fail = 1;
                    } else {
                        msg *m = kvec_push(&sb[kern_owner_of_pid(d, c)]);
                        if (m) { m->c = c; m->p = upid; m->d = nd; } else fail = 1;
                    }
                }
            }
        }
        double t1 = g5_now();
        int64_t tot = 0;
        for (int p = 0; p < P; p++) {
            s->cnt[p] = 0;
            for (int t = 0; t < nt; t++) s->cnt[p] += (int64_t)s->tsend[(size_t)t * P + p].n;
            tot += s->cnt[p];
        }
        if ((size_t)tot > s->sendcap) {
            size_t cap = (size_t)tot + (size_t)tot / 4 + 64;
            msg *m = realloc(s->sendbuf, cap * sizeof(msg));
            if (m) { s->sendbuf = m; s->sendcap = cap; } else fail = 1;
        }
        if (!fail) {
            int64_t o = 0;
            for (int p = 0; p < P; p++)
                for (int t = 0; t < nt; t++) {
                    kvec *v = &s->tsend[(size_t)t * P + p];
                    if (v->n) memcpy(s->sendbuf + o, v->p, v->n * sizeof(msg));
                    o += (int64_t)v->n;
                }
        }
        int64_t nrecv = 0;
        ok = kern_exchange(g->comm, sizeof(msg), s->sendbuf, s->cnt, &s->recv, &s->recvcap,
                           &nrecv, g->bytes_to, ok && !fail);
        double t2 = g5_now();
        const msg *rv = s->recv;
#pragma omp parallel num_threads(nt) reduction(| : fail) if (nrecv > 4096)
        {
            tbins *tb = &s->tb[omp_get_thread_num()];
#pragma omp for schedule(static) nowait
            for (int64_t i = 0; i < nrecv; i++) {
                int64_t l = (int64_t)rv[i].c - base;
                if (relax(st, l, rv[i].d, rv[i].p) && !bin_push(tb, bucket_of(rv[i].d, delta), (uint32_t)l, rv[i].d))
                    fail = 1;
            }
        }
        double t3 = g5_now();
        /* the next bucket: the smallest non-empty one of any thread and rank */
        int64_t next = INT64_MAX;
        for (int t = 0; t < nt; t++)
            for (int64_t i = k; i < s->tb[t].nb && i < next; i++)
                if (s->tb[t].b[i].n) { next = i; break; }
        int64_t loc[2] = {next, (ok && !fail) ? 0 : -1}, glob[2];
        MPI_Allreduce(loc, glob, 2, MPI_INT64_T, MPI_MIN, g->comm);
        for (int r = 0; r < P; r++)
            if (r != g->rank) g->bytes_to[r] += 16;
        double t4 = g5_now();
        s->stats.phases++;
        s->stats.relaxations += nrel;
        s->stats.messages += tot;
        s->stats.t_relax += t1 - t0;
        s->stats.t_exchange += t2 - t1;
        s->stats.t_apply += t3 - t2;
        s->stats.t_reduce += t4 - t3;
        if (glob[1] < 0) {
            return g5_error(G5_ERR_NOMEM, "SSSP from root %lld: out of memory for buckets or "
                            "messages on some rank", (long long)root);
        }
        if (glob[0] == INT64_MAX) break;
        if (glob[0] != k) s->stats.buckets++;
        k = glob[0];
        /* the new frontier: every thread's bucket k */
        size_t n = 0;
        for (int t = 0; t < nt; t++)
            if (k < s->tb[t].nb) n += s->tb[t].b[k].n;
        if (n > s->fcap) {
            size_t cap = n + n / 2;
            uint64_t *f = realloc(s->frontier, cap * 8);
            if (f) { s->frontier = f; s->fcap = cap; } else { fail = 1; n = 0; }
        }
        fn = 0;
        for (int t = 0; t < nt && !fail; t++)
            if (k < s->tb[t].nb) {
                kvec *v = &s->tb[t].b[k];
                if (v->n) memcpy(s->frontier + fn, v->p, v->n * 8);
                fn += (int64_t)v->n;
                v->n = 0;
            }
    }
    s->stats.buckets++;
    return G5_OK;
}

void kern_sssp_result(const kern_sssp *s, int64_t *parent, double *dist)
{
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < s->nl; v++) {
        uint64_t x = s->st[v];
        if (x == UINT64_MAX) {
            parent[v] = -1;
            dist[v] = INFINITY;
        } else {
            parent[v] = (int64_t)(x & 0xffffffffu);
            dist[v] = (double)u2f((uint32_t)(x >> 32));
        }
    }
}
