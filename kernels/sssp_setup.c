/* SPDX-License-Identifier: MIT */
/*
 * sssp_setup.c - kernel 3's state (sssp.c runs the search): the ghost
 * index, the buffers sized in kern_sssp_create, their release, and the
 * lists trimmed between searches. The encoding and the memory per rank are
 * described in sssp.c's file comment.
 */
#include "kern_impl.h"

#include <omp.h>

/* Builds the ghost index s->gidx (ghost_slot) of the distinct remote
 * columns of this rank's rows and the bounds on one round's traffic (see
 * the file comment): *nsend = the number of ghosts; *nrecv = pairs (local
 * vertex, other rank holding a neighbour), by symmetry of the undirected CSR
 * an upper bound on the distinct local targets all other ranks can address
 * in one round. */
static void ghost_index_build(kern_sssp *s, int64_t *nsend, int64_t *nrecv)
{
    kern_graph *g = s->g;
    const kern_dist *d = g->dist;
    const int64_t nl = s->nl, base = g->base, nw = s->npid / 32 + 1;
    const int P = s->P, me = g->rank;
    uint64_t *gidx = s->gidx;
    int64_t nr = 0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < nw; i++) gidx[i] = 0;
#pragma omp parallel reduction(+ : nr)
    {
        int64_t stamp[P];
        for (int r = 0; r < P; r++) stamp[r] = -1;
#pragma omp for schedule(dynamic, 1024)
        for (int64_t v = 0; v < nl; v++)
            for (int64_t e = g->rowptr[v]; e < g->rowptr[v + 1]; e++) {
                uint32_t c = g->col[e];
                if ((uint64_t)((int64_t)c - base) < (uint64_t)nl) continue;
                uint64_t bit = (uint64_t)1 << (c & 31);
                /* most columns are repeats: test before the atomic */
                if (!(__atomic_load_n(&gidx[c >> 5], __ATOMIC_RELAXED) & bit))
                    __atomic_fetch_or(&gidx[c >> 5], bit, __ATOMIC_RELAXED);
                int r = kern_owner_of_pid(d, c);
                if (r != me && stamp[r] != v) { stamp[r] = v; nr++; }
            }
    }
    uint64_t ns = 0;
    for (int64_t i = 0; i < nw; i++) {
        uint64_t bits = gidx[i];
        gidx[i] = ns << 32 | bits;
        ns += (uint64_t)__builtin_popcountll(bits);
    }
    *nsend = (int64_t)ns;
    *nrecv = nr;
}

/* The four bits of row l in s->rbits (word l / 16, bits 4 (l % 16) up):
 * ROW_LIGHT (1) when the row has a light edge (rows are sorted by weight:
 * its first weight is below delta), ROW_HEAVY (2) when it has a heavy one
 * (its last weight is not), ROW_ONE_LIGHT (4) when it has exactly one
 * light edge. A row of one entry gets none unless `alone` (the root's
 * row): its vertex is reached through that entry's edge, from a distance
 * no larger than its own, so relaxing it back never improves; for the same
 * reason the light pass skips a row whose one light edge reached it
 * (sssp.c, ent_flags). Most rows reached have no light edge and a fifth at
 * SCALE 20 have one entry; their expansions then cost the bits alone, not
 * the state word, the row bound and the row's first lines. */
uint64_t sssp_row_bits(const kern_sssp *s, int64_t l, int alone)
{
    const kern_graph *g = s->g;
    const int64_t e0 = g->rowptr[l], e1 = g->rowptr[l + 1];
    if (e1 - e0 < (alone ? 1 : 2)) return 0;
    const int light = kern_w(g, e0) < s->fdelta;
    const int more = e0 + 1 < e1 && kern_w(g, e0 + 1) < s->fdelta;
    return (uint64_t)light | (uint64_t)!(kern_w(g, e1 - 1) < s->fdelta) << 1 |
           (uint64_t)(light && !more) << 2;
}

/* s->hrows: a bit per row whose last (largest) weight is heavy, one-entry
 * rows included (they receive heavy edges even though they never need to
 * relax their own). */
static void heavy_rows_build(kern_sssp *s)
{
    const kern_graph *g = s->g;
    const int64_t nw = s->nl / 64 + 1;
    int64_t n = 0;
#pragma omp parallel for schedule(static) reduction(+ : n)
    for (int64_t i = 0; i < nw; i++) {
        uint64_t w = 0;
        for (int64_t l = 64 * i; l < 64 * i + 64 && l < s->nl; l++)
            if (g->rowptr[l + 1] > g->rowptr[l] && !(kern_w(g, g->rowptr[l + 1] - 1) < s->fdelta))
                w |= (uint64_t)1 << (l & 63);
        s->hrows[i] = w;
        n += __builtin_popcountll(w);
    }
    s->nheavy = n;
}

static void row_bits_build(kern_sssp *s)
{
    const int64_t nw = s->nl / 16 + 1;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < nw; i++) {
        uint64_t w = 0;
        for (int64_t l = 16 * i; l < 16 * i + 16 && l < s->nl; l++)
            w |= sssp_row_bits(s, l, 0) << (4 * (l & 15));
        s->rbits[i] = w;
    }
}

/* Bytes held by the buckets, the settled lists, the fusion scratch, the
 * queues and the frontier segments (their capacities). */
int64_t sssp_lists_bytes(const kern_sssp *s)
{
    size_t b = 0;
    for (int t = 0; t < s->nt; t++) {
        const sssp_tctx *tc = &s->tc[t];
        b += (s->fseg[t].cap + s->hseg[t].cap) * 8;
        b += (size_t)tc->nb * sizeof(kvec) + tc->settled.cap * 8 + tc->cur.cap * 8;
        if (t == 0) b += (s->sl_send.cap + s->sl_recv.cap) * 8;
        for (int64_t i = 0; i < tc->nb; i++) b += tc->b[i].cap * 8;
        for (int r = 0; r < s->P; r++) b += tc->queued[r].cap * 4;
    }
    return (int64_t)b;
}

/* Bytes of the whole workspace (fixed arrays and lists). */
int64_t sssp_workspace_bytes(const kern_sssp *s)
{
    size_t b = sizeof *s + ((size_t)s->nl + 1) * 8 + ((size_t)s->nl / 16 + 1) * 8 +
               (size_t)(s->gdirect ? s->npid : s->nl) + 4 +
               (size_t)s->nt * (sizeof(sssp_tctx) + (size_t)s->P * sizeof(kvec)) +
               (size_t)6 * s->P * 8 + 4 * (size_t)s->P * sizeof(int) +
               2 * ((size_t)s->nl / 64 + 1) * 8 + (size_t)s->nsw * (s->P > 1 ? 12 : 8);
    if (s->P > 1)
        b += (s->gdirect ? 0 : ((size_t)s->npid / 32 + 1) * 8 + (size_t)s->nghost + 1) +
             ((size_t)s->nghw + 1) * 8 +
             ((size_t)s->sendcap + s->recvcap + 2) * sizeof(sssp_msg);
    return (int64_t)b + sssp_lists_bytes(s);
}

/* Bucket k is finished on every rank (entries never go below the lowest
 * open bucket): its storage goes back to the allocator, so the buckets'
 * capacity follows the entries waiting, not the largest each bucket index
 * ever held. */
void sssp_bucket_release(kern_sssp *s, int64_t k)
{
    for (int t = 0; t < s->nt; t++)
        if (k < s->tc[t].nb) kvec_free(&s->tc[t].b[k]);
}

static void kvec_trim(kvec *v)
{
    if (v->cap * v->esize > RESERVE) kvec_free(v);
}

/* After a search: the buckets (empty by then) and the per-destination queues
 * are freed and the four other lists of a thread keep at most RESERVE bytes
 * each, so between searches (while the driver
 * converts and validates) the workspace is its fixed arrays. */
void sssp_workspace_trim(kern_sssp *s)
{
    for (int t = 0; t < s->nt; t++) {
        sssp_tctx *tc = &s->tc[t];
        for (int64_t i = 0; i < tc->nb; i++) kvec_free(&tc->b[i]);
        free(tc->b);
        tc->b = NULL;
        tc->nb = 0;
        kvec_trim(&tc->settled);
        kvec_trim(&tc->cur);
        for (int r = 0; r < s->P; r++) kvec_free(&tc->queued[r]);   /* P of them: none kept */
        kvec_trim(&s->fseg[t]);
        kvec_trim(&s->hseg[t]);
    }
    kvec_trim(&s->sl_send);
    kvec_trim(&s->sl_recv);
}

int kern_sssp_create(kern_graph *g, double delta, kern_sssp **out)
{
    int P = g->nranks;
    *out = NULL;
    if (!(delta > 0))
        return g5_agree(g->comm, g5_error(G5_ERR_ARG, "SSSP: delta must be positive, not %g", delta));
    /* a local index leaves bit 31 free (the vector loops' signed lanes,
     * sssp.c's entry flags) */
    int rc = g->nlocal < INT32_MAX ? G5_OK
             : g5_error(G5_ERR_ARG, "SSSP: %lld vertices on a rank, at most %d", (long long)g->nlocal,
                        INT32_MAX - 1);
    if ((rc = g5_agree(g->comm, rc))) return rc;
    /* Kernel 1 (construct.c) orders rows by weight as part of the timed
     * construction; this only covers a graph that was built otherwise. */
    rc = g->rows_by_weight ? G5_OK : kern_graph_sort_rows_by_weight(g);
    if ((rc = g5_agree(g->comm, rc))) return rc;
    kern_sssp *s = calloc(1, sizeof *s);
    int ok = s != NULL;
    if (ok) {
        s->g = g;
        s->P = P;
        s->delta = delta;
        s->inv_delta = 1.0 / delta;
        s->fdelta = (float)delta;
        s->nt = omp_get_max_threads();
        s->nl = g->nlocal;
        /* huge pages (kc_big_malloc): every relaxation reads a bound byte
         * at random, and with 4 KiB pages most of those reads at SCALE 24
         * would miss the TLB as well as the caches */
        s->st = kc_big_malloc(((size_t)s->nl + 1) * 8);
        if (P > 1) {
            /* Bound bytes by pid when they cost at most a byte per 4 local
             * CSR entries: a remote target's byte is then one load at its
             * pid, not a ghost-index word and then a ghost slot (two
             * dependent misses per remote edge, most of a heavy pass at
             * P > 1); larger P keep the ghost-slot bytes (nothing N-sized
             * beyond the index). Pids fit the vector gather's signed index. */
            s->npid = g->dist->base[P];
            s->gdirect = s->npid < INT32_MAX && 4 * s->npid <= g->rowptr[s->nl];
        }
        /* + 3: the gathers read 4 bytes at ub + l and gub + slot or pid */
        if (s->gdirect) {
            s->ubx = kc_big_malloc((size_t)s->npid + 4);
            s->ub = s->ubx ? s->ubx + g->base : NULL;
            s->gub = s->ubx;
        } else {
            s->ub = kc_big_malloc((size_t)s->nl + 4);
        }
        s->rbits = malloc(((size_t)s->nl / 16 + 1) * 8);
        s->hrows = malloc(((size_t)s->nl / 64 + 1) * 8);
        s->pc = malloc(((size_t)s->nl / 64 + 1) * 8);
        s->nsw = g->dist->base[P] / 64 + 1;
        s->sbits = calloc((size_t)s->nsw, 8);
        if (P > 1) s->scnt = malloc((size_t)s->nsw * sizeof(uint32_t));
        kvec_init(&s->sl_send, 8);
        kvec_init(&s->sl_recv, 8);
        s->tc = calloc((size_t)s->nt, sizeof(sssp_tctx));
        s->hs = calloc((size_t)3 * P, sizeof(int64_t));
        s->hr = calloc((size_t)3 * P, sizeof(int64_t));
        s->sc = calloc((size_t)P, sizeof(int));
        s->sd = calloc((size_t)P, sizeof(int));
        s->rc = calloc((size_t)P, sizeof(int));
        s->rd = calloc((size_t)P, sizeof(int));
        s->fseg = calloc((size_t)s->nt, sizeof(kvec));
        s->hseg = calloc((size_t)s->nt, sizeof(kvec));
        s->fck = calloc((size_t)s->nt + 1, sizeof(int64_t));
        s->hck = calloc((size_t)s->nt + 1, sizeof(int64_t));
        ok = s->st && s->ub && s->rbits && s->tc && s->hs && s->hr && s->sc && s->sd && s->rc &&
             s->rd && s->fseg && s->hseg && s->fck && s->hck && s->hrows && s->pc && s->sbits &&
             (P == 1 || s->scnt);
    }
    if (ok) row_bits_build(s);
    if (ok) heavy_rows_build(s);
    for (int t = 0; ok && t < s->nt; t++) {
        sssp_tctx *tc = &s->tc[t];
        kvec_init(&tc->settled, 8);
        kvec_init(&tc->cur, 8);
        kvec_init(&s->fseg[t], 8);
        kvec_init(&s->hseg[t], 8);
        tc->queued = calloc((size_t)P, sizeof(kvec));
        if (!tc->queued) { ok = 0; break; }
        for (int r = 0; r < P; r++) kvec_init(&tc->queued[r], 4);
    }
    if (ok && P > 1) {
        s->gidx = malloc(((size_t)s->npid / 32 + 1) * 8);
        ok = s->gidx != NULL;
        if (ok) {
            int64_t ns, nr;
            ghost_index_build(s, &ns, &nr);
            s->nghost = ns;
            /* gdirect: ghost words by pid (ghost_pid), the index only
             * counted the ghosts */
            s->nghw = s->gdirect ? s->npid - s->nl : ns;
            if (s->gdirect) { free(s->gidx); s->gidx = NULL; }
            s->ghost = malloc(((size_t)s->nghw + 1) * 8);
            if (!s->gdirect) s->gub = malloc((size_t)ns + 4);
            s->sendbuf = malloc(((size_t)ns + 1) * sizeof(sssp_msg));
            s->recv = malloc(((size_t)nr + 1) * sizeof(sssp_msg));
            s->sendcap = ns;
            s->recvcap = nr;
            ok = s->ghost && s->gub && s->sendbuf && s->recv;
        }
        if (ok) {
            ok = MPI_Type_contiguous((int)sizeof(sssp_msg), MPI_BYTE, &s->mtype) == MPI_SUCCESS &&
                 MPI_Type_commit(&s->mtype) == MPI_SUCCESS;
            s->mtype_ok = ok;
        }
    }
    rc = g5_agree(g->comm, ok ? G5_OK : g5_error(G5_ERR_NOMEM, "SSSP: cannot allocate the workspace"));
    if (rc) { kern_sssp_free(&s); return rc; }
    s->stats.ghosts = s->nghost;
    s->stats.held = sssp_workspace_bytes(s);
    *out = s;
    return G5_OK;
}

void kern_sssp_free(kern_sssp **sp)
{
    if (!sp || !*sp) return;
    kern_sssp *s = *sp;
    if (s->tc)
        for (int t = 0; t < s->nt; t++) {
            sssp_tctx *tc = &s->tc[t];
            for (int64_t i = 0; i < tc->nb; i++) kvec_free(&tc->b[i]);
            free(tc->b);
            kvec_free(&tc->settled);
            kvec_free(&tc->cur);
            if (tc->queued)
                for (int r = 0; r < s->P; r++) kvec_free(&tc->queued[r]);
            free(tc->queued);
        }
    if (s->mtype_ok) MPI_Type_free(&s->mtype);
    if (s->fseg)
        for (int t = 0; t < s->nt; t++) kvec_free(&s->fseg[t]);
    if (s->hseg)
        for (int t = 0; t < s->nt; t++) kvec_free(&s->hseg[t]);
    free(s->fseg); free(s->hseg); free(s->fck); free(s->hck);
    if (s->gdirect) {
        free(s->ubx);
    } else {
        free(s->ub);
        free(s->gub);
    }
    free(s->rbits); free(s->hrows); free(s->pc); free(s->sbits); free(s->scnt);
    kvec_free(&s->sl_send); kvec_free(&s->sl_recv);
    free(s->tc); free(s->st); free(s->gidx); free(s->ghost); free(s->sendbuf);
    free(s->recv); free(s->hs); free(s->hr); free(s->sc); free(s->sd); free(s->rc);
    free(s->rd);
    free(s);
    *sp = NULL;
}

const kern_sssp_stats *kern_sssp_get_stats(const kern_sssp *s) { return &s->stats; }
