/* SPDX-License-Identifier: MIT */
/*
 * bfs.c - kernel 2 of Graph500: distributed direction-optimizing
 * breadth-first search with a 1-D vertex distribution and OpenMP inside each
 * rank.
 *
 * Algorithm (Beamer, Asanovic, Patterson, "Direction-Optimizing Breadth-First
 * Search", SC 2012). Each level runs either
 *   top-down: the frontier is a queue of local vertices; threads scan their
 *   rows; a local neighbour is claimed by setting its bit in the visited
 *   bitmap (atomic fetch-or; the thread that flips the bit writes the
 *   parent); a remote one becomes an 8-byte message (pid << 32 | parent pid)
 *   to its owner, exchanged with one MPI_Alltoallv (kern_exchange);
 *   bottom-up: the frontier is a bitmap over the pid space; each thread owns
 *   whole words of unvisited local vertices and scans each row until a
 *   neighbour is in the frontier (no atomics). The frontier reaches every
 *   rank by one MPI_Allgatherv of each rank's words when dense, or as a list
 *   of 4-byte pids when that is smaller (Intel's compressed distributed BFS:
 *   bitmaps when dense, vertex messages when sparse).
 * Switching: Beamer's first test, both ways: bottom-up when the edges out of
 * the frontier m_f exceed m_u / alpha (alpha = 14, m_u the exact unexplored
 * edges), top-down otherwise. His second test (back to top-down below n /
 * beta) is left out: on these graphs it sends the last big level top-down
 * although bottom-up only has the few unreached vertices to examine. All
 * counts come from one MPI_Allgather per level (new vertices, their edges, a
 * failure flag), so every rank takes the same branch.
 *
 * Work avoided: at P == 1 no MPI call inside the levels; parent is not
 * cleared per search (the visited bitmap decides, one pass writes -1 for the
 * unreached at the end); a top-down claim tests the visited bit first; m_f
 * is summed while claiming; a top-down level with few vertices but many
 * edges is still spread over the team; row starts are prefetched ahead where
 * the hardware cannot guess them (bottom-up 64 unvisited vertices ahead,
 * top-down 16 columns ahead).
 *
 * Data: parent int64 [nlocal] (pid, -1 unreached); visited and zero-degree
 * bitmaps [nlocal bits]; queue and next queue uint32 [nlocal] (lent between
 * searches as scratch: kern_bfs_scratch); next-frontier and global frontier
 * bitmaps [pid space / 8 bytes]; at P > 1 two frontier lists of at most
 * pid-space/32 uint32. About 8 + 8 + 1/4 + 3 pid-space/(8 nlocal) bytes per
 * vertex.
 */
#include "kern_impl.h"

#include <math.h>
#include <omp.h>

/* Direction rule and prefetch distances, chosen by the CPU time per search
 * at SCALE 20 on one thread. */
#define BFS_ALPHA 14
#define TD_AHEAD 16             /* top-down: columns ahead */
#define BU_AHEAD 64             /* bottom-up: unvisited vertices ahead */

struct kern_bfs {
    kern_graph *g;
    int nt;
    int64_t nl, nwl, nwg;       /* local vertices, local words, global words */
    int64_t *parent;
    uint64_t *visited, *zero_deg, *front, *next;
    uint32_t *queue, *nextq;    /* the two halves of qmem, swapped per level */
    uint32_t *qmem;             /* [2 (nl + 1)]: scratch between searches (kern_bfs_scratch) */
    uint32_t *slist;            /* [2 nwg] this rank's frontier as a list (P > 1) */
    uint32_t *glist;            /* [2 nwg] all ranks' lists (P > 1) */
    kvec *tsend;                /* [nt * P] uint64 messages */
    kvec *tnext;                /* [nt] uint32 local vertices */
    uint64_t *sendbuf;
    size_t sendcap;
    void *recv;
    size_t recvcap;
    int64_t zroot;              /* a zero-degree root's local index, or -1 */
    int64_t *cnt;               /* [P] */
    int64_t *lvcnt;             /* [4P] every rank's (new, edges, failed, reached edges) of a level */
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
        b->zroot = -1;
        b->nl = g->nlocal;
        b->nwl = (g->nlocal + 63) / 64;
        b->nwg = d->base[P] / 64;
        b->parent = malloc(((size_t)b->nl + 1) * sizeof(int64_t));
        b->visited = calloc((size_t)b->nwl + 1, 8);
        b->zero_deg = calloc((size_t)b->nwl + 1, 8);
        /* at one rank front and next swap roles: same size */
        size_t nwmax = (size_t)(b->nwg > b->nwl ? b->nwg : b->nwl) + 1;
        b->next = calloc(P == 1 ? nwmax : (size_t)b->nwl + 1, 8);
        b->front = calloc(nwmax, 8);
        if (P > 1) {
            /* a frontier goes as a list only when it has fewer than 2 nwg
             * vertices (cheaper than the bitmap): the lists' bound */
            b->slist = malloc((size_t)(2 * b->nwg + 1) * 4);
            b->glist = malloc((size_t)(2 * b->nwg + 1) * 4);
        }
        /* one block, so that between searches it is one 8-byte-per-vertex
         * scratch (the validator's words: kern_bfs_scratch) */
        b->qmem = malloc(((size_t)b->nl + 1) * 8);
        b->queue = b->qmem;
        b->nextq = b->qmem ? b->qmem + b->nl + 1 : NULL;
        b->tsend = calloc((size_t)b->nt * P, sizeof(kvec));
        b->tnext = calloc((size_t)b->nt, sizeof(kvec));
        b->cnt = calloc((size_t)P, sizeof(int64_t));
        b->lvcnt = calloc(4 * (size_t)P, sizeof(int64_t));
        b->gcounts = calloc((size_t)P, sizeof(int));
        b->gdispls = calloc((size_t)P, sizeof(int));
        ok = b->parent && b->visited && b->zero_deg && b->next && b->front && b->queue &&
             b->nextq && b->tsend && b->tnext && b->cnt && b->lvcnt && b->gcounts && b->gdispls &&
             (P == 1 || (b->slist && b->glist));
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
        /* cleared once: kern_bfs_run writes only claimed and unreached rows */
        for (int64_t v = 0; v < b->nl; v++) b->parent[v] = -1;
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
    free(b->qmem); free(b->sendbuf); free(b->recv);
    free(b->slist); free(b->glist);
    free(b->cnt); free(b->lvcnt); free(b->gcounts); free(b->gdispls);
    free(b);
    *bp = NULL;
}

const int64_t *kern_bfs_parent(const kern_bfs *b) { return b->parent; }

void *kern_bfs_scratch(kern_bfs *b, size_t *bytes)
{
    *bytes = ((size_t)b->nl + 1) * 8;
    return b->qmem;
}

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

/* Claim local vertex l (not yet known visited): set its visited bit; the
 * caller owns l when this returns 1. `shared`: other threads of the team
 * claim concurrently, so the bit is set by an atomic fetch-or and the old
 * word decides; alone, a plain read-modify-write. */
static inline int claim(uint64_t *visited, uint64_t l, int shared)
{
    uint64_t bit = 1ULL << (l & 63), *w = &visited[l >> 6];
    if (__atomic_load_n(w, __ATOMIC_RELAXED) & bit) return 0;
    if (shared) return !(__atomic_fetch_or(w, bit, __ATOMIC_RELAXED) & bit);
    *w |= bit;
    return 1;
}

/* dynamic chunk for n items of skewed cost over nt threads */
static inline int td_chunk(int64_t n, int nt)
{
    int64_t c = n / ((int64_t)nt * 16);
    return c < 1 ? 1 : c > 64 ? 64 : (int)c;
}

/* One top-down level over queue[0, qn) whose rows hold `qm` local entries.
 * On return nextq/nqn hold the new frontier; *mf its local edges. Returns
 * the local ok state after the exchange (agreed at P > 1). */
static int level_top_down(kern_bfs *b, int64_t qn, int64_t qm, int64_t *nqn, int64_t *mf, int ok)
{
    kern_graph *g = b->g;
    const kern_dist *d = g->dist;
    int P = g->nranks, nt = b->nt;
    const int64_t base = g->base, nl = b->nl;
    const int64_t *rowptr = g->rowptr;
    const uint32_t *col = g->col, *queue = b->queue;
    int64_t *parent = b->parent;
    uint64_t *visited = b->visited;
    int fail = 0;
    int64_t m = 0;
    /* reset every thread's buffers here: a level run on one thread (if
     * clause) must not see another thread's leftovers */
    for (int i = 0; i < nt * P; i++) b->tsend[i].n = 0;
    for (int i = 0; i < nt; i++) b->tnext[i].n = 0;
    const int chunk = td_chunk(qn, nt);

#pragma omp parallel num_threads(nt) reduction(| : fail) reduction(+ : m) if (qm > 8192 && qn > 1)
    {
        int t = omp_get_thread_num(), shared = omp_get_num_threads() > 1;
        kvec *sb = &b->tsend[(size_t)t * P], *nq = &b->tnext[t];
#pragma omp for schedule(dynamic, chunk) nowait
        for (int64_t i = 0; i < qn; i++) {
            uint32_t u = queue[i];
            int64_t upid = base + u;
            const int64_t e1 = rowptr[u + 1];
            for (int64_t e = rowptr[u]; e < e1; e++) {
                uint32_t c = col[e];
                uint64_t l = (uint64_t)((int64_t)c - base);
                if (e + TD_AHEAD < e1) {
                    /* an unvisited target ahead will be claimed: fetch its
                     * parent slot and row bounds (the visited bitmap is in
                     * L2, the arrays are not) */
                    uint64_t l2 = (uint64_t)((int64_t)col[e + TD_AHEAD] - base);
                    if (l2 < (uint64_t)nl && !(__atomic_load_n(&visited[l2 >> 6], __ATOMIC_RELAXED) >> (l2 & 63) & 1)) {
                        __builtin_prefetch(&rowptr[l2], 0, 3);
                        __builtin_prefetch(&parent[l2], 1, 3);
                    }
                }
                if (l < (uint64_t)nl) {
                    if (claim(visited, l, shared)) {
                        parent[l] = upid;
                        m += rowptr[l + 1] - rowptr[l];
                        uint32_t *s = kvec_push(nq);
                        if (s) *s = (uint32_t)l; else fail = 1;
                    }
                } else {
                    uint64_t *s = kvec_push(&sb[kern_owner_of_pid(d, c)]);
                    if (s) *s = (uint64_t)c << 32 | (uint64_t)upid; else fail = 1;
                }
            }
        }
    }
    if (P > 1) {
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
#pragma omp parallel num_threads(nt) reduction(| : fail) reduction(+ : m) if (nrecv > 4096)
        {
            kvec *nq = &b->tnext[omp_get_thread_num()];
            int shared = omp_get_num_threads() > 1;
#pragma omp for schedule(static) nowait
            for (int64_t i = 0; i < nrecv; i++) {
                uint64_t l = (uint64_t)((int64_t)(rv[i] >> 32) - base);
                if (claim(visited, l, shared)) {
                    parent[l] = (int64_t)(rv[i] & 0xffffffffu);
                    m += rowptr[l + 1] - rowptr[l];
                    uint32_t *s = kvec_push(nq);
                    if (s) *s = (uint32_t)l; else fail = 1;
                }
            }
        }
    }
    /* gather the threads' new vertices into nextq */
    int64_t n = 0;
    for (int t = 0; t < nt; t++) {
        kvec *nq = &b->tnext[t];
        if (nq->n) memcpy(b->nextq + n, nq->p, nq->n * 4);
        n += (int64_t)nq->n;
    }
    *nqn = n;
    *mf = m;
    return ok && !fail;
}

/* Make the global frontier bitmap `front` from this rank's frontier, which
 * is in the local words `next` (and, when from_queue, also the list
 * queue[0, qn)). nf: the agreed global frontier size; b->lvcnt[4r]: rank r's
 * part of it (from the level's allgather, so a list exchange needs no
 * extra round for its counts). One rank: swap. */
static int frontier_share(kern_bfs *b, int64_t nf, const uint32_t *queue, int64_t qn,
                          int from_queue, int *as_list, int ok)
{
    *as_list = 0;
    kern_graph *g = b->g;
    int P = g->nranks, me = g->rank;
    if (P == 1) {
        uint64_t *t = b->front; b->front = b->next; b->next = t;
        return ok;
    }
    /* a list of 4-byte pids costs 4 nf bytes per rank, the bitmap 8 nwg */
    if (nf * 4 < b->nwg * 8) {
        *as_list = 1;
        const uint32_t *list = queue;
        int64_t n = qn;
        if (!from_queue) {
            n = 0;
            for (int64_t wi = 0; wi < b->nwl; wi++)
                for (uint64_t w = b->next[wi]; w; w &= w - 1)
                    b->slist[n++] = (uint32_t)(wi * 64 + __builtin_ctzll(w));
            list = b->slist;
        }
        int cn = (int)n, counts[P], displs[P], o = 0;
        for (int r = 0; r < P; r++) {
            counts[r] = (int)b->lvcnt[4 * r];
            displs[r] = o;
            o += counts[r];
        }
        int e = MPI_SUCCESS;
        {
            /* send local indices, add each sender's base after receipt */
            e = MPI_Allgatherv(list, cn, MPI_UINT32_T, b->glist, counts, displs, MPI_UINT32_T,
                               g->comm);
            if (e == MPI_SUCCESS) {
                memset(b->front, 0, (size_t)b->nwg * 8);
                const int64_t *base = g->dist->base;
                for (int r = 0; r < P; r++)
                    for (int i = displs[r]; i < displs[r] + counts[r]; i++) {
                        uint64_t p = (uint64_t)base[r] + b->glist[i];
                        b->front[p >> 6] |= 1ULL << (p & 63);
                    }
            }
        }
        if (e != MPI_SUCCESS) ok = 0;
        for (int r = 0; r < P; r++)
            if (r != me) g->bytes_to[r] += 4 + n * 4;
        return ok;
    }
    int e = MPI_Allgatherv(b->next, (int)b->nwl, MPI_UINT64_T, b->front, b->gcounts,
                           b->gdispls, MPI_UINT64_T, g->comm);
    if (e != MPI_SUCCESS) ok = 0;
    for (int r = 0; r < P; r++)
        if (r != me) g->bytes_to[r] += b->nwl * 8;
    return ok;
}

/* Bottom-up prefetch cursor: walks the unvisited vertices BU_AHEAD ahead
 * of the scan and prefetches the start of each one's row. The first levels
 * examine about one column per vertex (the first neighbour is already in
 * the frontier), so each vertex costs one cache miss on its row, at
 * addresses too irregular for the hardware prefetcher. */
typedef struct { int64_t w; uint64_t bits; } bu_cursor;

static inline int64_t bu_cursor_step(bu_cursor *pc, const uint64_t *visited, int64_t nwl)
{
    while (!pc->bits) {
        if (++pc->w >= nwl) { pc->w = nwl; return -1; }
        pc->bits = ~__atomic_load_n(&visited[pc->w], __ATOMIC_RELAXED);
    }
    int64_t v = pc->w * 64 + __builtin_ctzll(pc->bits);
    pc->bits &= pc->bits - 1;
    return v;
}
static inline void bu_prefetch_next(bu_cursor *pc, const uint64_t *visited, int64_t nwl,
                                    const int64_t *rowptr, const uint32_t *col)
{
    int64_t v = bu_cursor_step(pc, visited, nwl);
    if (v >= 0) __builtin_prefetch(&col[rowptr[v]], 0, 3);
}


/* One bottom-up level: frontier in b->front (global), new local frontier
 * words into b->next. Each thread owns the words it is given (visited,
 * next, the 64 parents): no atomics; the cursor's look at words ahead is a
 * relaxed load, paired with relaxed stores. */
static void level_bottom_up(kern_bfs *b, int64_t mu, int64_t *nnew, int64_t *mf)
{
    kern_graph *g = b->g;
    const uint64_t *front = b->front;
    uint64_t *visited = b->visited, *next = b->next;
    int64_t *parent = b->parent;
    const int64_t *rowptr = g->rowptr;
    const uint32_t *col = g->col;
    const int64_t nwl = b->nwl;
    int64_t n = 0, m = 0;
    /* the last levels have few vertices left to examine (mu: the edges of
     * the unreached vertices, all ranks): waking the team costs more */
    const int team = nwl > 65536 || mu / g->nranks > 32768;
#pragma omp parallel reduction(+ : n, m) num_threads(b->nt) if (team)
    {
        bu_cursor pc = {0, 0};
        int64_t last = -2;
#pragma omp for schedule(dynamic, 32) nowait
        for (int64_t wi = 0; wi < nwl; wi++) {
            const uint64_t vis = __atomic_load_n(&visited[wi], __ATOMIC_RELAXED);
            uint64_t todo = ~vis, nw = 0;
            if (wi != last + 1) {
                /* a new chunk: restart the cursor here */
                pc.w = wi;
                pc.bits = todo;
                for (int k = 0; k < BU_AHEAD; k++) bu_prefetch_next(&pc, visited, nwl, rowptr, col);
            }
            last = wi;
            while (todo) {
                int bit = __builtin_ctzll(todo);
                todo &= todo - 1;
                bu_prefetch_next(&pc, visited, nwl, rowptr, col);
                int64_t l = wi * 64 + bit;
                const int64_t e0 = rowptr[l], e1 = rowptr[l + 1];
                for (int64_t k = e0; k < e1; k++) {
                    uint32_t c = col[k];
                    if (front[c >> 6] >> (c & 63) & 1) {
                        parent[l] = c;
                        nw |= 1ULL << bit;
                        m += e1 - e0;
                        break;
                    }
                }
            }
            next[wi] = nw;
            __atomic_store_n(&visited[wi], vis | nw, __ATOMIC_RELAXED);
            n += __builtin_popcountll(nw);
        }
    }
    *nnew = n;
    *mf = m;
}

int kern_bfs_run(kern_bfs *b, int64_t root, kern_levels *levels)
{
    kern_graph *g = b->g;
    const kern_dist *d = g->dist;
    int owner, P = g->nranks;
    int64_t rl;
    if (levels) levels->n = 0;
    if (!kern_dist_locate(d, root, &owner, &rl))
        return g5_error(G5_ERR_ARG, "BFS: root %lld has no owner", (long long)root);
    memcpy(b->visited, b->zero_deg, (size_t)b->nwl * 8);
    /* the end-of-search pass skips zero-degree rows: undo a root there */
    if (b->zroot >= 0) { b->parent[b->zroot] = -1; b->zroot = -1; }
    int64_t qn = 0, qm = 0;
    if (owner == g->rank) {
        if (b->zero_deg[rl >> 6] >> (rl & 63) & 1) b->zroot = rl;
        b->parent[rl] = d->base[owner] + rl;
        b->visited[rl >> 6] |= 1ULL << (rl & 63);
        b->queue[qn++] = (uint32_t)rl;
        qm = kern_graph_degree(g, rl);
    }
    /* level 0 is top-down whatever the root's degree (a one-vertex frontier
     * costs its row top-down, every unvisited row bottom-up), so the root's
     * degree needs no agreement of its own: it travels with level 0's
     * counts as edges reached. mf, mu: agreed edges out of the frontier and
     * of the vertices not reached yet. */
    int64_t st[4] = {0, 0, 0, 0};
    int64_t nf = 1, mf = 0, mu = g->nnz_global, reached_here = qm;
    for (int r = 0; r < P; r++) b->lvcnt[4 * r] = r == owner;
    int bu = 0, ok = 1;
    while (nf > 0) {
        double t0 = g5_now();
        int64_t nnew, mnew;
        int as_list = 0;
        if (!bu && nf > 1 && mf > mu / BFS_ALPHA) {
            /* queue -> local bitmap */
            memset(b->next, 0, (size_t)b->nwl * 8);
            for (int64_t i = 0; i < qn; i++)
                b->next[b->queue[i] >> 6] |= 1ULL << (b->queue[i] & 63);
            ok = frontier_share(b, nf, b->queue, qn, 1, &as_list, ok);
            bu = 1;
        } else if (bu && mf <= mu / BFS_ALPHA) {
            /* local bitmap -> queue */
            qn = 0;
            for (int64_t wi = 0; wi < b->nwl; wi++)
                for (uint64_t w = b->next[wi]; w; w &= w - 1)
                    b->queue[qn++] = (uint32_t)(wi * 64 + __builtin_ctzll(w));
            bu = 0;
        } else if (bu) {
            ok = frontier_share(b, nf, NULL, 0, 0, &as_list, ok);
        }
        if (bu) {
            level_bottom_up(b, mu, &nnew, &mnew);
        } else {
            ok = level_top_down(b, qn, qm, &nnew, &mnew, ok);
            uint32_t *t = b->queue; b->queue = b->nextq; b->nextq = t;
            qn = nnew;
        }
        qm = mnew;
        int64_t loc[4] = {nnew, mnew, ok ? 0 : 1, mnew + reached_here};
        reached_here = 0;
        if (P > 1) {
            /* an allgather rather than an allreduce: the per-rank frontier
             * sizes are the counts of a list exchange next level */
            int e = MPI_Allgather(loc, 4, MPI_INT64_T, b->lvcnt, 4, MPI_INT64_T, g->comm);
            memset(st, 0, sizeof st);
            for (int r = 0; r < P; r++)
                for (int k = 0; k < 4; k++) st[k] += b->lvcnt[4 * r + k];
            if (e != MPI_SUCCESS) st[2] = 1;
            for (int r = 0; r < P; r++)
                if (r != g->rank) g->bytes_to[r] += 32;
        } else {
            memcpy(st, loc, sizeof st);
        }
        levels_add(levels, g5_now() - t0, nf, bu ? 1 + as_list : 0);
        if (st[2]) break;
        nf = st[0];
        mf = st[1];
        mu -= st[3];
    }
    /* unreached vertices with a row get -1 (the others never change) */
    const uint64_t *vis = b->visited, *zd = b->zero_deg;
    int64_t *parent = b->parent;
#pragma omp parallel for schedule(static) if (b->nwl > 65536)
    for (int64_t wi = 0; wi < b->nwl; wi++)
        for (uint64_t w = ~(vis[wi] | zd[wi]); w; w &= w - 1)
            parent[wi * 64 + __builtin_ctzll(w)] = -1;
    if (st[2])
        return g5_error(G5_ERR_NOMEM, "BFS from root %lld: out of memory for messages",
                        (long long)root);
    return G5_OK;
}
