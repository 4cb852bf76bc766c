/* SPDX-License-Identifier: MIT */
/*
 * bfs.c - kernel 2 of Graph500: distributed direction-optimizing
 * breadth-first search with a 1-D vertex distribution and OpenMP inside each
 * rank.
 *
 * Algorithm (Beamer, Asanovic, Patterson, "Direction-Optimizing Breadth-First
 * Search", SC 2012). Each level runs either
 *   top-down: the frontier is a queue of local vertices; each thread scans
 *   their rows; a neighbour owned here is claimed by a compare-and-swap on
 *   its parent, a remote one becomes an 8-byte message (pid << 32 | parent
 *   pid) in the thread's buffer for its owner; the buffers are packed by
 *   destination and exchanged with one MPI_Alltoallv (kern_exchange), and the
 *   receivers claim the targets the same way;
 *   bottom-up: the frontier is a bitmap over the pid space, assembled by one
 *   MPI_Allgatherv of every rank's own words (each rank's range starts on a
 *   64-bit word, see kern.h); each thread takes whole words of unvisited
 *   local vertices and scans each one's row until a neighbour is in the
 *   frontier; no atomics and no messages besides the bitmap.
 * Switching follows Beamer: go bottom-up when the edges out of the frontier
 * m_f exceed the unexplored edges m_u / alpha (alpha = 14), come back
 * top-down when the frontier shrinks below n_active / beta (beta = 24). All
 * three counts come from one MPI_Allreduce per level, so every rank takes the
 * same branch. This is the bitmap-when-dense, vertex-messages-when-sparse
 * exchange of Intel's compressed distributed BFS (Ueno et al. style
 * parent/vertex messages, "seeds/intel-energy-efficient-bfs").
 *
 * Data: parent int64 [nlocal] holds the parent's pid, -1 unvisited; visited
 * bitmap [nlocal bits] (zero-degree vertices pre-set so bottom-up skips
 * them); queue and next queue uint32 [nlocal]; the global frontier bitmap
 * [pid space / 8 bytes]. 8 + 8 + 1/8 + pid-space/(8 nlocal) bytes per vertex.
 * Small levels run their loops on one thread (OpenMP if clauses): waking a
 * team costs more than scanning a few rows, more so on a shared machine.
 */
#include "kern_impl.h"

#include <math.h>
#include <omp.h>

#define BFS_ALPHA 14
#define BFS_BETA 24

struct kern_bfs {
    kern_graph *g;
    int nt;
    int64_t nl, nwl, nwg;       /* local vertices, local words, global words */
    int64_t *parent;
    uint64_t *visited, *zero_deg, *front, *next;
    uint32_t *queue, *nextq;
    kvec *tsend;                /* [nt * P] uint64 messages */
    kvec *tnext;                /* [nt] uint32 local vertices */
    uint64_t *sendbuf;
    size_t sendcap;
    void *recv;
    size_t recvcap;
    int64_t *cnt;               /* [P] */
    int *gcounts, *gdispls;     /* allgatherv in words */
};

int kern_bfs_create(kern_graph *g, kern_bfs **out)
{
    const kern_dist *d = g->dist;
    int P = g->nranks;
    kern_bfs *b = calloc(1, sizeof *b);
    int ok = b != NULL;
    if (ok) {
        b->g = g;
        b->nt = omp_get_max_threads();
        b->nl = g->nlocal;
        b->nwl = (g->nlocal + 63) / 64;
        b->nwg = d->base[P] / 64;
        b->parent = malloc(((size_t)b->nl + 1) * sizeof(int64_t));
        b->visited = calloc((size_t)b->nwl + 1, 8);
        b->zero_deg = calloc((size_t)b->nwl + 1, 8);
        b->next = calloc((size_t)b->nwl + 1, 8);
        b->front = calloc((size_t)b->nwg + 1, 8);
        b->queue = malloc(((size_t)b->nl + 1) * 4);
        b->nextq = malloc(((size_t)b->nl + 1) * 4);
        b->tsend = calloc((size_t)b->nt * P, sizeof(kvec));
        b->tnext = calloc((size_t)b->nt, sizeof(kvec));
        b->cnt = calloc((size_t)P, sizeof(int64_t));
        b->gcounts = calloc((size_t)P, sizeof(int));
        b->gdispls = calloc((size_t)P, sizeof(int));
        ok = b->parent && b->visited && b->zero_deg && b->next && b->front && b->queue &&
             b->nextq && b->tsend && b->tnext && b->cnt && b->gcounts && b->gdispls;
        if (b->nwg > 0x7fffffff) ok = 0;
    }
    if (ok) {
        for (int i = 0; i < b->nt * P; i++) kvec_init(&b->tsend[i], 8);
        for (int i = 0; i < b->nt; i++) kvec_init(&b->tnext[i], 4);
        for (int r = 0; r < P; r++) {
            b->gcounts[r] = (int)((d->base[r + 1] - d->base[r]) / 64);
            b->gdispls[r] = (int)(d->base[r] / 64);
        }
        /* vertices with no row are never reached: mark them visited, and the
         * padding bits of the last word too */
        for (int64_t v = 0; v < b->nl; v++)
            if (g->rowptr[v + 1] == g->rowptr[v]) b->zero_deg[v >> 6] |= 1ULL << (v & 63);
        for (int64_t v = b->nl; v < b->nwl * 64; v++) b->zero_deg[v >> 6] |= 1ULL << (v & 63);
    }
    int rc = g5_agree(g->comm, ok ? G5_OK : g5_error(G5_ERR_NOMEM, "BFS: cannot allocate the workspace for %lld vertices", (long long)g->nlocal));
    if (rc) { kern_bfs_free(&b); return rc; }
    *out = b;
    return G5_OK;
}

void kern_bfs_free(kern_bfs **bp)
{
    if (!bp || !*bp) return;
    kern_bfs *b = *bp;
    if (b->tsend)
        for (int i = 0; i < b->nt * b->g->nranks; i++) kvec_free(&b->tsend[i]);
    if (b->tnext)
        for (int i = 0; i < b->nt; i++) kvec_free(&b->tnext[i]);
    free(b->tsend); free(b->tnext);
    free(b->parent); free(b->visited); free(b->zero_deg); free(b->next); free(b->front);
    free(b->queue); free(b->nextq); free(b->sendbuf); free(b->recv);
    free(b->cnt); free(b->gcounts); free(b->gdispls);
    free(b);
    *bp = NULL;
}

const int64_t *kern_bfs_parent(const kern_bfs *b) { return b->parent; }

void kern_levels_free(kern_levels *lv)
{
    if (!lv) return;
    free(lv->time); free(lv->frontier); free(lv->bottom_up);
    memset(lv, 0, sizeof *lv);
}

static void levels_add(kern_levels *lv, double t, int64_t f, int bu)
{
    if (!lv) return;
    if (lv->n == lv->cap) {
        int cap = lv->cap ? 2 * lv->cap : 32;
        double *a = realloc(lv->time, cap * sizeof *a);
        if (a) lv->time = a;
        int64_t *c = realloc(lv->frontier, cap * sizeof *c);
        if (c) lv->frontier = c;
        int *e = realloc(lv->bottom_up, cap * sizeof *e);
        if (e) lv->bottom_up = e;
        if (!a || !c || !e) return;
        lv->cap = cap;
    }
    lv->time[lv->n] = t; lv->frontier[lv->n] = f; lv->bottom_up[lv->n] = bu;
    lv->n++;
}

static inline int claim(int64_t *parent, int64_t l, int64_t p)
{
    int64_t expect = -1;
    if (__atomic_load_n(&parent[l], __ATOMIC_RELAXED) != -1) return 0;
    return __atomic_compare_exchange_n(&parent[l], &expect, p, 0, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
}

/* One top-down level. On return nextq/qn hold the new frontier; *mf its
 * edges. Returns the local ok state after the exchange (agreed). */
static int level_top_down(kern_bfs *b, int64_t qn, int64_t *nqn, int64_t *mf, int ok)
{
    kern_graph *g = b->g;
    const kern_dist *d = g->dist;
    int P = g->nranks, nt = b->nt;
    const int64_t base = g->base, nl = b->nl;
    int64_t *parent = b->parent;
    uint64_t *visited = b->visited;
    int fail = 0;
    /* reset every thread's buffers here: a level run on one thread (if
     * clause) must not see another thread's leftovers */
    for (int i = 0; i < nt * P; i++) b->tsend[i].n = 0;
    for (int i = 0; i < nt; i++) b->tnext[i].n = 0;

#pragma omp parallel num_threads(nt) reduction(| : fail) if (qn > 64)
    {
        int t = omp_get_thread_num();
        kvec *sb = &b->tsend[(size_t)t * P], *nq = &b->tnext[t];
#pragma omp for schedule(dynamic, 64) nowait
        for (int64_t i = 0; i < qn; i++) {
            uint32_t u = b->queue[i];
            uint64_t upid = (uint64_t)(base + u);
            for (int64_t e = g->rowptr[u]; e < g->rowptr[u + 1]; e++) {
                uint32_t c = g->col[e];
                uint64_t l = (uint64_t)((int64_t)c - base);
                if (l < (uint64_t)nl) {
                    if (claim(parent, (int64_t)l, (int64_t)upid)) {
                        __atomic_fetch_or(&visited[l >> 6], 1ULL << (l & 63), __ATOMIC_RELAXED);
                        uint32_t *s = kvec_push(nq);
                        if (s) *s = (uint32_t)l; else fail = 1;
                    }
                } else {
                    uint64_t *s = kvec_push(&sb[kern_owner_of_pid(d, c)]);
                    if (s) *s = (uint64_t)c << 32 | upid; else fail = 1;
                }
            }
        }
    }
    /* pack by destination, thread-minor */
    int64_t tot = 0;
    for (int p = 0; p < P; p++) {
        b->cnt[p] = 0;
        for (int t = 0; t < nt; t++) b->cnt[p] += (int64_t)b->tsend[(size_t)t * P + p].n;
        tot += b->cnt[p];
    }
    if ((size_t)tot > b->sendcap) {
        size_t cap = (size_t)tot + (size_t)tot / 4 + 64;
        uint64_t *s = realloc(b->sendbuf, cap * 8);
        if (s) { b->sendbuf = s; b->sendcap = cap; } else fail = 1;
    }
    if (!fail) {
        int64_t o = 0;
        for (int p = 0; p < P; p++)
            for (int t = 0; t < nt; t++) {
                kvec *v = &b->tsend[(size_t)t * P + p];
                if (v->n) memcpy(b->sendbuf + o, v->p, v->n * 8);
                o += (int64_t)v->n;
            }
    }
    int64_t nrecv = 0;
    ok = kern_exchange(g->comm, 8, b->sendbuf, b->cnt, &b->recv, &b->recvcap, &nrecv,
                       g->bytes_to, ok && !fail);
    const uint64_t *rv = b->recv;
#pragma omp parallel num_threads(nt) reduction(| : fail) if (nrecv > 4096)
    {
        kvec *nq = &b->tnext[omp_get_thread_num()];
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < nrecv; i++) {
            int64_t l = (int64_t)(rv[i] >> 32) - base;
            if (claim(parent, l, (int64_t)(rv[i] & 0xffffffffu))) {
                __atomic_fetch_or(&visited[l >> 6], 1ULL << (l & 63), __ATOMIC_RELAXED);
                uint32_t *s = kvec_push(nq);
                if (s) *s = (uint32_t)l; else fail = 1;
            }
        }
    }
    /* gather the threads' new vertices into nextq */
    int64_t n = 0, m = 0;
    for (int t = 0; t < nt; t++) {
        kvec *nq = &b->tnext[t];
        memcpy(b->nextq + n, nq->p, nq->n * 4);
        n += (int64_t)nq->n;
    }
#pragma omp parallel for reduction(+ : m) if (n > 4096)
    for (int64_t i = 0; i < n; i++) m += g->rowptr[b->nextq[i] + 1] - g->rowptr[b->nextq[i]];
    *nqn = n;
    *mf = m;
    return ok && !fail;
}

/* One bottom-up level: frontier in b->next (local words), result in b->next. */
static int level_bottom_up(kern_bfs *b, int64_t *nnew, int64_t *mf, int ok)
{
    kern_graph *g = b->g;
    int P = g->nranks, me = g->rank;
    int e = MPI_Allgatherv(b->next, (int)b->nwl, MPI_UINT64_T, b->front, b->gcounts,
                           b->gdispls, MPI_UINT64_T, g->comm);
    if (e != MPI_SUCCESS) ok = 0;
    for (int r = 0; r < P; r++)
        if (r != me) g->bytes_to[r] += b->nwl * 8;
    const uint64_t *front = b->front;
    uint64_t *visited = b->visited, *next = b->next;
    int64_t *parent = b->parent;
    const int64_t *rowptr = g->rowptr;
    const uint32_t *col = g->col;
    const int64_t base = g->base;
    int64_t n = 0, m = 0;
#pragma omp parallel for schedule(dynamic, 32) reduction(+ : n, m) num_threads(b->nt)
    for (int64_t wi = 0; wi < b->nwl; wi++) {
        uint64_t todo = ~visited[wi], nw = 0;
        while (todo) {
            int bit = __builtin_ctzll(todo);
            todo &= todo - 1;
            int64_t l = wi * 64 + bit;
            for (int64_t k = rowptr[l]; k < rowptr[l + 1]; k++) {
                uint32_t c = col[k];
                if (front[c >> 6] >> (c & 63) & 1) {
                    parent[l] = c;
                    nw |= 1ULL << bit;
                    m += rowptr[l + 1] - rowptr[l];
                    break;
                }
            }
        }
        next[wi] = nw;
        visited[wi] |= nw;
        n += __builtin_popcountll(nw);
    }
    (void)base;
    *nnew = n;
    *mf = m;
    return ok;
}

int kern_bfs_run(kern_bfs *b, int64_t root, kern_levels *levels)
{
    kern_graph *g = b->g;
    const kern_dist *d = g->dist;
    int owner;
    int64_t rl;
    if (levels) levels->n = 0;
    if (!kern_dist_locate(d, root, &owner, &rl))
        return g5_error(G5_ERR_ARG, "BFS: root %lld has no owner", (long long)root);
    const int64_t nl = b->nl;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < nl; v++) b->parent[v] = -1;
    memcpy(b->visited, b->zero_deg, (size_t)b->nwl * 8);
    int64_t qn = 0, rootdeg = 0;
    if (owner == g->rank) {
        b->parent[rl] = d->base[owner] + rl;
        b->visited[rl >> 6] |= 1ULL << (rl & 63);
        b->queue[qn++] = (uint32_t)rl;
        rootdeg = kern_graph_degree(g, rl);
    }
    int64_t st[3] = {0, 0, 0};
    int64_t nf = 1, mf, mu, prev_nf = 0;
    MPI_Allreduce(&rootdeg, &mf, 1, MPI_INT64_T, MPI_SUM, g->comm);
    mu = g->nnz_global - mf;
    int bu = 0, ok = 1;
    while (nf > 0) {
        double t0 = g5_now();
        if (!bu && mf > mu / BFS_ALPHA) {
            /* queue -> local bitmap */
            memset(b->next, 0, (size_t)b->nwl * 8);
            for (int64_t i = 0; i < qn; i++)
                b->next[b->queue[i] >> 6] |= 1ULL << (b->queue[i] & 63);
            bu = 1;
        } else if (bu && nf < prev_nf && nf < d->n_active / BFS_BETA) {
            /* local bitmap -> queue */
            qn = 0;
            for (int64_t wi = 0; wi < b->nwl; wi++)
                for (uint64_t w = b->next[wi]; w; w &= w - 1)
                    b->queue[qn++] = (uint32_t)(wi * 64 + __builtin_ctzll(w));
            bu = 0;
        }
        int64_t nnew, mnew;
        if (bu) {
            ok = level_bottom_up(b, &nnew, &mnew, ok);
        } else {
            ok = level_top_down(b, qn, &nnew, &mnew, ok);
            uint32_t *t = b->queue; b->queue = b->nextq; b->nextq = t;
            qn = nnew;
        }
        int64_t loc[3] = {nnew, mnew, ok ? 0 : 1};
        MPI_Allreduce(loc, st, 3, MPI_INT64_T, MPI_SUM, g->comm);
        for (int r = 0; r < g->nranks; r++)
            if (r != g->rank) g->bytes_to[r] += 24;
        levels_add(levels, g5_now() - t0, nf, bu);
        if (st[2]) break;
        prev_nf = nf;
        nf = st[0];
        mf = st[1];
        mu -= mf;
    }
    if (st[2])
        return g5_error(G5_ERR_NOMEM, "BFS from root %lld: out of memory for messages",
                        (long long)root);
    return G5_OK;
}
