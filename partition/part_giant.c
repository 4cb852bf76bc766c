/* SPDX-License-Identifier: MIT */
/*
 * part_giant.c - the giant component's vertex order and its edge-balanced
 * cut into R pieces, steps 3 and 4 of the placement (part_place.c):
 *  3. the order of component 0 (if it is split): plain orders (id, leaves
 *     after their neighbour, degree) by one global sort of (key, id);
 *     or a BFS from its highest-degree vertex (ties: smallest id). Positions are assigned level by level in the
 *     order (position of the first parent, id) - the Cuthill-McKee order
 *     (Cuthill & McKee, "Reducing the bandwidth of sparse symmetric
 *     matrices", ACM 1969) - with a sample sort per level, so the order is
 *     independent of P. Every giant vertex must be reached.
 *  4. the cut (giant_cut): vertices in position order go to the piece that
 *     holds their weight's midpoint. If a heavy vertex on a boundary breaks
 *     the tolerance, the cut is redone with the hubs (weight > max(tol, 1%)
 *     W / 2R) taken out and placed by LPT, piece k's share of the rest being
 *     W / R minus its hub load: each piece then ends within one non-hub
 *     weight of W / R.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "part_internal.h"

/* Collective. Sort the records {key, id} (recs, n; freed here) globally,
 * give them positions base, base + 1, ... in that order, and send each
 * position to the vertex's owner: pos[] is set, and the block's vertices
 * that got one are listed in position order in got[0..*ngot) (if got is
 * not NULL). *total: records over all processes. Agreed status. */
static int assign_positions(const struct place_ctx *c, int64_t *recs, int64_t n, int64_t base,
                            int64_t *pos, int64_t *got, int64_t *ngot, int64_t *total)
{
    int64_t *sorted = NULL, nsorted = 0, first = 0, *counts = NULL, *cur = NULL, *buf = NULL;
    int64_t *rbuf = NULL, nr = 0;
    int rc;

    rc = px_sort_pairs(c->comm, G5_OK, recs, n, &sorted, &nsorted, &first);
    free(recs);
    G5_TRY(rc);
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Allreduce(&nsorted, total, 1, MPI_INT64_T, MPI_SUM, c->comm), "MPI_Allreduce"));
    counts = g5_calloc((size_t)c->P, sizeof(int64_t), "partition: counts");
    cur = g5_malloc((size_t)c->P * sizeof(int64_t), "partition: cursors");
    buf = g5_malloc((size_t)(nsorted + 1) * 2 * sizeof(int64_t), "partition: positions");
    rc = counts && cur && buf ? G5_OK : G5_ERR_NOMEM;
    G5_TRY(g5_agree(c->comm, rc));
    for (int64_t k = 0; k < nsorted; k++)
        counts[pl_own(c, sorted[2 * k + 1])]++;
    for (int p = 0, s = 0; p < c->P; p++)
        cur[p] = s, s += (int)counts[p];
    for (int64_t k = 0; k < nsorted; k++) {
        int64_t i = cur[pl_own(c, sorted[2 * k + 1])]++;
        buf[2 * i] = sorted[2 * k + 1];
        buf[2 * i + 1] = base + first + k;
    }
    rc = px_exchange(c->comm, rc, 2, counts, buf, &rbuf, &nr, NULL);
    G5_TRY(g5_agree(c->comm, rc));
    /* Sources send increasing slices, so rbuf is in position order. */
    if (ngot)
        *ngot = 0;
    for (int64_t i = 0; i < nr; i++) {
        int64_t li = rbuf[2 * i] - c->vf;
        pos[li] = rbuf[2 * i + 1];
        if (got)
            got[(*ngot)++] = li;
    }
out:
    free(sorted);
    free(counts);
    free(cur);
    free(buf);
    free(rbuf);
    return rc;
}

/* Positions of component 0 in a plain order: by id (PART_ORDER_ID: random
 * for Graph500's scrambled labels), by id with every degree-1 vertex right
 * after its neighbour (PART_ORDER_LEAVES: sort key 2 v for v, 2 v + 1 for
 * v's leaves, so a leaf's one edge is cut only where a piece boundary falls
 * between them), or by degree, highest first, then id (PART_ORDER_DEGREE). */
int pl_giant_plain_order(const struct place_ctx *c, const int64_t *deg, const int64_t *nb, int64_t *pos)
{
    const int64_t *L = c->in->label;
    int64_t n = 0, total = 0, *recs = NULL;
    int rc, order = c->in->order;
    recs = g5_malloc((size_t)(c->vc + 1) * 2 * sizeof(int64_t), "partition: order records");
    if (order == PART_ORDER_LEAVES && !nb && recs)
        rc = g5_error(G5_ERR_INTERNAL, "partition: the leaves order without the leaves' neighbours");
    else
        rc = recs ? G5_OK : G5_ERR_NOMEM;
    rc = g5_agree(c->comm, rc);
    if (rc != G5_OK) {
        free(recs);
        return rc;
    }
    for (int64_t i = 0; i < c->vc; i++) {
        pos[i] = -1;
        if (L[i] == 0) {
            int64_t v = c->vf + i;
            if (order == PART_ORDER_DEGREE)
                recs[2 * n] = -deg[i];
            else if (order == PART_ORDER_LEAVES)
                recs[2 * n] = deg[i] == 1 ? 2 * nb[i] + 1 : 2 * v;
            else
                recs[2 * n] = 0;
            recs[2 * n + 1] = v;
            n++;
        }
    }
    return assign_positions(c, recs, n, 0, pos, NULL, NULL, &total);
}

struct ctx_adj {
    const struct place_ctx *c;
    int64_t *fill, *adj;
};

/* Appends {x, other end} to x's adjacency when x is in component 0. */
static void fill_adjacency(void *arg, const int64_t *rec, int64_t n)
{
    struct ctx_adj *a = arg;
    const int64_t *L = a->c->in->label;
    for (int64_t i = 0; i < n; i++) {
        int64_t li = rec[2 * i] - a->c->vf;
        if (L[li] == 0)
            a->adj[a->fill[li]++] = rec[2 * i + 1];
    }
}

/* Component 0's adjacency in this block, CSR: rowptr[vc + 1], adj (the
 * other endpoints); pos[] and cand[] set to -1. status: the caller's
 * local status. Collective; agreed status. */
static int giant_adjacency(const struct place_ctx *c, int status, const int64_t *deg, int64_t *pos,
                           int64_t *cand, int64_t **rowptr_out, int64_t **adj_out)
{
    const int64_t *L = c->in->label;
    int64_t *rowptr = NULL, *fill = NULL, *adj = NULL;
    int rc = status;

    rowptr = g5_malloc((size_t)(c->vc + 1) * sizeof(int64_t), "partition: giant row pointers");
    fill = g5_malloc((size_t)(c->vc + 1) * sizeof(int64_t), "partition: giant fill");
    if (!rowptr || !fill)
        rc = G5_ERR_NOMEM;
    if (rc == G5_OK) {
        rowptr[0] = 0;
        for (int64_t i = 0; i < c->vc; i++) {
            rowptr[i + 1] = rowptr[i] + (L[i] == 0 ? deg[i] : 0);
            pos[i] = -1;
            cand[i] = -1;
        }
        memcpy(fill, rowptr, (size_t)c->vc * sizeof(int64_t));
        adj = g5_malloc((size_t)rowptr[c->vc] * sizeof(int64_t), "partition: giant adjacency");
        if (!adj)
            rc = G5_ERR_NOMEM;
    }
    rc = g5_agree(c->comm, rc);
    if (rc == G5_OK) {
        struct ctx_adj arg = {c, fill, adj};
        rc = pl_route_endpoints(c, 2, fill_adjacency, &arg);
    }
    free(fill);
    *rowptr_out = rowptr;
    *adj_out = adj;
    return rc;
}

/* The BFS root: highest degree in component 0, then smallest id; it gets
 * position 0 and is the first frontier on its owner. Collective. */
static int giant_root(const struct place_ctx *c, const int64_t *deg, int64_t *pos, int64_t *front,
                      int64_t *nfront, int64_t *root_out)
{
    const int64_t *L = c->in->label;
    int64_t best = -1, gbest = -1, id = INT64_MAX, gid = INT64_MAX;
    int rc;

    for (int64_t i = 0; i < c->vc; i++)
        if (L[i] == 0 && deg[i] > best)
            best = deg[i], id = c->vf + i;
    rc = pl_mpi_agreed(c->comm, MPI_Allreduce(&best, &gbest, 1, MPI_INT64_T, MPI_MAX, c->comm), "MPI_Allreduce");
    if (rc != G5_OK)
        return rc;
    if (best != gbest)
        id = INT64_MAX;
    rc = pl_mpi_agreed(c->comm, MPI_Allreduce(&id, &gid, 1, MPI_INT64_T, MPI_MIN, c->comm), "MPI_Allreduce");
    if (rc != G5_OK)
        return rc;
    *root_out = gid;
    if (pl_own(c, gid) == c->me) {
        pos[gid - c->vf] = 0;
        front[(*nfront)++] = gid - c->vf;
    }
    return G5_OK;
}

/* One BFS level's expansion: {neighbour, position of this parent} to the
 * neighbour's owner, in agreed rounds of at most c->chunk records; each
 * unplaced neighbour enters newl[0..*nnew) once with cand[] its smallest
 * parent position. An edge leaving component 0 sets *bad. Collective;
 * agreed status. */
static int bfs_expand(const struct place_ctx *c, const int64_t *rowptr, const int64_t *adj,
                      const int64_t *front, int64_t nfront, const int64_t *pos, int64_t *cand,
                      int64_t *newl, int64_t *nnew, int64_t *counts, int *bad)
{
    const int64_t *L = c->in->label;
    int64_t rounds = 0, CH = c->chunk, fi = 0, fj = 0, tot = 0, *buf = NULL, *rbuf = NULL, nr = 0;
    int rc;

    for (int64_t k = 0; k < nfront; k++)
        tot += rowptr[front[k] + 1] - rowptr[front[k]];
    rc = pl_agreed_rounds(c->comm, tot, CH, &rounds);
    if (rc != G5_OK)
        return rc;
    *nnew = 0;
    for (int64_t r = 0; rc == G5_OK && r < rounds; r++) {
        int64_t si = fi, sj = fj, n = 0, *cur = NULL;
        memset(counts, 0, (size_t)c->P * sizeof(int64_t));
        while (fi < nfront && n < CH) {
            int64_t u = front[fi], d = rowptr[u + 1] - rowptr[u];
            while (fj < d && n < CH) {
                counts[pl_own(c, adj[rowptr[u] + fj])]++;
                fj++, n++;
            }
            if (fj == d)
                fi++, fj = 0;
        }
        buf = g5_malloc((size_t)n * 2 * sizeof(int64_t), "partition: BFS records");
        cur = g5_malloc((size_t)c->P * sizeof(int64_t), "partition: cursors");
        if (!buf || !cur)
            rc = G5_ERR_NOMEM;
        if (rc == G5_OK) {
            for (int p = 0, s = 0; p < c->P; p++)
                cur[p] = s, s += (int)counts[p];
            /* Replay the same range. */
            for (int64_t k = 0; k < n; k++) {
                int64_t u = front[si], d = rowptr[u + 1] - rowptr[u];
                while (sj >= d)
                    si++, sj = 0, u = front[si], d = rowptr[u + 1] - rowptr[u];
                int64_t v = adj[rowptr[u] + sj], i = cur[pl_own(c, v)]++;
                buf[2 * i] = v;
                buf[2 * i + 1] = pos[u];
                sj++;
            }
        }
        rc = px_exchange(c->comm, rc, 2, counts, buf, &rbuf, &nr, NULL);
        free(cur);
        free(buf);
        buf = NULL;
        for (int64_t i = 0; rc == G5_OK && i < nr; i++) {
            int64_t li = rbuf[2 * i] - c->vf, p = rbuf[2 * i + 1];
            if (L[li] != 0) {
                if (*bad == G5_OK)
                    *bad = g5_error(G5_ERR_MISMATCH, "an edge joins component 0 to vertex %lld of component %lld",
                                    (long long)rbuf[2 * i], (long long)L[li]);
                continue;
            }
            if (pos[li] >= 0)
                continue;
            if (cand[li] < 0)
                newl[(*nnew)++] = li, cand[li] = p;
            else if (p < cand[li])
                cand[li] = p;
        }
        free(rbuf);
        rbuf = NULL;
        rc = g5_agree(c->comm, rc);
    }
    return rc;
}

/* Step 3: BFS positions of component 0. pos[i] = -1 outside it. */
int pl_giant_bfs(const struct place_ctx *c, const int64_t *deg, int64_t *pos, int64_t *root_out,
                 int *levels_out)
{
    int64_t *rowptr = NULL, *adj = NULL, *cand = NULL, *counts = NULL;
    int64_t *front = NULL, *newl = NULL, nfront = 0, nnew = 0, assigned = 0, *buf = NULL;
    int rc = G5_OK, bad = G5_OK, levels = 0;

    cand = g5_malloc((size_t)(c->vc + 1) * sizeof(int64_t), "partition: BFS candidates");
    front = g5_malloc((size_t)(c->vc + 1) * sizeof(int64_t), "partition: BFS frontier");
    newl = g5_malloc((size_t)(c->vc + 1) * sizeof(int64_t), "partition: BFS next level");
    counts = g5_malloc((size_t)c->P * sizeof(int64_t), "partition: counts");
    if (!cand || !front || !newl || !counts)
        rc = G5_ERR_NOMEM;
    G5_TRY(giant_adjacency(c, rc, deg, pos, cand, &rowptr, &adj));
    G5_TRY(giant_root(c, deg, pos, front, &nfront, root_out));
    assigned = 1;

    for (;;) {
        int64_t gfront = 0, tot_new = 0;
        G5_TRY(pl_mpi_agreed(c->comm, MPI_Allreduce(&nfront, &gfront, 1, MPI_INT64_T, MPI_SUM, c->comm), "MPI_Allreduce"));
        if (gfront == 0)
            break;
        levels++;
        G5_TRY(bfs_expand(c, rowptr, adj, front, nfront, pos, cand, newl, &nnew, counts, &bad));
        /* Order the new level by (first parent's position, id). */
        buf = g5_malloc((size_t)(nnew + 1) * 2 * sizeof(int64_t), "partition: level records");
        G5_TRY(g5_agree(c->comm, buf ? G5_OK : G5_ERR_NOMEM));
        for (int64_t k = 0; k < nnew; k++) {
            buf[2 * k] = cand[newl[k]];
            buf[2 * k + 1] = c->vf + newl[k];
            cand[newl[k]] = -1;
        }
        rc = assign_positions(c, buf, nnew, assigned, pos, front, &nfront, &tot_new);
        buf = NULL;
        G5_TRY(rc);
        assigned += tot_new;
    }
    G5_TRY(g5_agree(c->comm, bad));
    if (assigned != c->in->comp_vertices[0])
        rc = g5_error(G5_ERR_MISMATCH, "component 0 is not connected in the edges: a BFS from vertex %lld reaches %lld of its %lld vertices",
                      (long long)*root_out, (long long)assigned, (long long)c->in->comp_vertices[0]);
    *levels_out = levels;
out:
    free(rowptr);
    free(adj);
    free(cand);
    free(front);
    free(newl);
    free(counts);
    free(buf);
    return rc;
}

/* Hubs in LPT order: degree descending, then id. */
static const int64_t *g_hubs; /* qsort context; set with no threads running */
static int cmp_hub(const void *x, const void *y)
{
    const int64_t *a = g_hubs + 3 * *(const int *)x, *b = g_hubs + 3 * *(const int *)y;
    if (a[0] != b[0])
        return a[0] > b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* The cut's working state on one process: it owns positions [pf, pf + pc)
 * of the order, with their weights w[] and ids[]. */
struct cut {
    double thresh;
    int64_t ng, pf, pc;
    int64_t *counts, *cur, *buf, *rbuf, nr, *w, *ids;
    int64_t *loc, *glob, *hubs, *allhubs, nhub, nall, hub0;
    int64_t *hub_piece, *hub_idx, nh_before, wn_before, nh_local, wn_local;
    int32_t *lp;
    int *hcount, *hdisp, *perm;
    double *cum;
};

/* Weights to the position owners ({pos, degree, id}); this process's
 * hubs (weight > thresh) in hubs[] as {weight, id, local index}. */
static int cut_weights(const struct place_ctx *c, struct cut *s, const int64_t *deg, const int64_t *pos)
{
    int P = c->P, rc = G5_OK;
    for (int64_t i = 0; i < c->vc; i++)
        if (pos[i] >= 0)
            s->counts[g5_range_owner(s->ng, P, pos[i])]++;
    for (int p = 0, t = 0; p < P; p++)
        s->cur[p] = t, t += (int)s->counts[p];
    for (int64_t i = 0; i < c->vc; i++)
        if (pos[i] >= 0) {
            int64_t k = s->cur[g5_range_owner(s->ng, P, pos[i])]++;
            s->buf[3 * k] = pos[i];
            s->buf[3 * k + 1] = deg[i];
            s->buf[3 * k + 2] = c->vf + i;
        }
    rc = px_exchange(c->comm, rc, 3, s->counts, s->buf, &s->rbuf, &s->nr, NULL);
    G5_TRY(g5_agree(c->comm, rc));
    s->w = g5_malloc((size_t)(s->pc + 1) * sizeof(int64_t), "partition: weights");
    s->ids = g5_malloc((size_t)(s->pc + 1) * sizeof(int64_t), "partition: ids");
    s->lp = g5_malloc((size_t)(s->pc + 1) * sizeof(int32_t), "partition: local pieces");
    s->hubs = g5_malloc((size_t)(s->pc + 1) * 3 * sizeof(int64_t), "partition: hubs");
    rc = s->w && s->ids && s->lp && s->hubs
             ? (s->nr == s->pc ? G5_OK : g5_error(G5_ERR_INTERNAL, "positions are not a permutation"))
             : G5_ERR_NOMEM;
    G5_TRY(g5_agree(c->comm, rc));
    for (int64_t i = 0; i < s->nr; i++) {
        s->w[s->rbuf[3 * i] - s->pf] = s->rbuf[3 * i + 1];
        s->ids[s->rbuf[3 * i] - s->pf] = s->rbuf[3 * i + 2];
    }
    for (int64_t i = 0; i < s->pc; i++) {
        if ((double)s->w[i] > s->thresh) {
            s->hubs[3 * s->nhub] = s->w[i];
            s->hubs[3 * s->nhub + 1] = s->ids[i];
            s->hubs[3 * s->nhub + 2] = i;
            s->nhub++;
        } else {
            s->nh_local++;
            s->wn_local += s->w[i];
        }
    }
out:
    return rc;
}

/* Every process gets every hub (in position order) and runs the same LPT:
 * glob[2R..3R) hub load, glob[3R..4R) hub count per piece; replicated. */
static int cut_hubs(const struct place_ctx *c, struct cut *s)
{
    int R = c->R, P = c->P, mine = (int)(3 * s->nhub), rc;
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Allgather(&mine, 1, MPI_INT, s->hcount, 1, MPI_INT, c->comm), "MPI_Allgather"));
    for (int p = 0; p < P; p++) {
        s->hdisp[p] = (int)s->nall;
        s->nall += s->hcount[p];
    }
    s->hub0 = s->hdisp[c->me] / 3;
    s->allhubs = g5_malloc((size_t)(s->nall + 3) * sizeof(int64_t), "partition: all hubs");
    s->nall /= 3;
    s->hub_piece = g5_malloc((size_t)(s->nall + 1) * sizeof(int64_t), "partition: hub pieces");
    s->hub_idx = g5_malloc((size_t)(s->nall + 1) * sizeof(int64_t), "partition: hub indices");
    s->perm = g5_malloc((size_t)(s->nall + 1) * sizeof(int), "partition: hub order");
    G5_TRY(g5_agree(c->comm, s->allhubs && s->hub_piece && s->hub_idx && s->perm ? G5_OK : G5_ERR_NOMEM));
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Allgatherv(s->hubs, mine, MPI_INT64_T, s->allhubs, s->hcount, s->hdisp,
                                                 MPI_INT64_T, c->comm), "MPI_Allgatherv"));
    for (int64_t h = 0; h < s->nall; h++)
        s->perm[h] = (int)h;
    g_hubs = s->allhubs;
    qsort(s->perm, (size_t)s->nall, sizeof(int), cmp_hub);
    for (int64_t j = 0; j < s->nall; j++) {
        int64_t h = s->perm[j], best = 0;
        for (int k = 1; k < R; k++)
            if (s->glob[2 * R + k] < s->glob[2 * R + best])
                best = k;
        s->hub_piece[h] = best;
        s->hub_idx[h] = s->glob[3 * R + best]++;
        s->glob[2 * R + best] += s->allhubs[3 * h];
    }
out:
    return rc;
}

/* Non-hub targets: piece k's share is proportional to W/R - hub load
 * (cum[], R + 1 prefix sums over the non-hub weight). */
static int cut_targets(const struct place_ctx *c, struct cut *s)
{
    int R = c->R, rc;
    int64_t W = 2 * c->in->comp_edges[0], wn_all = 0;
    double tsum = 0, wn = 0;
    rc = pl_mpi_agreed(c->comm, MPI_Allreduce(&s->wn_local, &wn_all, 1, MPI_INT64_T, MPI_SUM, c->comm), "MPI_Allreduce");
    if (rc != G5_OK)
        return rc;
    wn = (double)wn_all;
    for (int k = 0; k < R; k++) {
        double t = (double)W / R - (double)s->glob[2 * R + k];
        tsum += t > 0 ? t : 0;
    }
    s->cum[0] = 0;
    for (int k = 0; k < R; k++) {
        double t = (double)W / R - (double)s->glob[2 * R + k];
        s->cum[k + 1] = s->cum[k] + (tsum > 0 ? (t > 0 ? t : 0) * wn / tsum : wn / R);
    }
    return G5_OK;
}

/* Each non-hub vertex to the piece holding its weight's midpoint: lp[i]
 * (-1 for hubs); loc[0..R) non-hub count, loc[R..2R) non-hub load,
 * loc[2R..3R) first non-hub index per piece (min-reduced in place). */
static int cut_nonhubs(const struct place_ctx *c, struct cut *s)
{
    int R = c->R, rc;
    int64_t nh, wb;
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Exscan(&s->nh_local, &s->nh_before, 1, MPI_INT64_T, MPI_SUM, c->comm), "MPI_Exscan"));
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Exscan(&s->wn_local, &s->wn_before, 1, MPI_INT64_T, MPI_SUM, c->comm), "MPI_Exscan"));
    if (c->me == 0)
        s->nh_before = s->wn_before = 0;
    for (int k = 0; k < R; k++)
        s->loc[2 * R + k] = INT64_MAX;
    nh = s->nh_before, wb = s->wn_before;
    for (int64_t i = 0; i < s->pc; i++) {
        double mid;
        int lo = 0, hi = R - 1;
        if ((double)s->w[i] > s->thresh) {
            s->lp[i] = -1;
            continue;
        }
        mid = (double)wb + 0.5 * (double)s->w[i];
        /* The last k with cum[k] <= mid. */
        while (lo < hi) {
            int m = (lo + hi + 1) / 2;
            if (s->cum[m] <= mid)
                lo = m;
            else
                hi = m - 1;
        }
        s->lp[i] = lo;
        s->loc[lo]++;
        s->loc[R + lo] += s->w[i];
        if (nh < s->loc[2 * R + lo])
            s->loc[2 * R + lo] = nh;
        nh++;
        wb += s->w[i];
    }
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Allreduce(s->loc, s->glob, 2 * R, MPI_INT64_T, MPI_SUM, c->comm), "MPI_Allreduce"));
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Allreduce(MPI_IN_PLACE, s->loc + 2 * R, R, MPI_INT64_T, MPI_MIN, c->comm), "MPI_Allreduce"));
out:
    return rc;
}

/* Reply {id, piece, index in piece} to the owners: piece[] and idx[]. */
static int cut_reply(const struct place_ctx *c, struct cut *s, int32_t *piece, int64_t *idx)
{
    int R = c->R, P = c->P, rc;
    int64_t nh = s->nh_before, hj = s->hub0;
    free(s->buf);
    s->buf = g5_malloc((size_t)(s->pc + 1) * 3 * sizeof(int64_t), "partition: piece records");
    G5_TRY(g5_agree(c->comm, s->buf ? G5_OK : G5_ERR_NOMEM));
    memset(s->counts, 0, (size_t)P * sizeof(int64_t));
    for (int64_t i = 0; i < s->pc; i++)
        s->counts[pl_own(c, s->ids[i])]++;
    for (int p = 0, t = 0; p < P; p++)
        s->cur[p] = t, t += (int)s->counts[p];
    for (int64_t i = 0; i < s->pc; i++) {
        int64_t j = s->cur[pl_own(c, s->ids[i])]++, k, x;
        if (s->lp[i] < 0) {
            k = s->hub_piece[hj];
            x = s->glob[k] + s->hub_idx[hj];
            hj++;
        } else {
            k = s->lp[i];
            x = nh - s->loc[2 * R + k];
            nh++;
        }
        s->buf[3 * j] = s->ids[i];
        s->buf[3 * j + 1] = k;
        s->buf[3 * j + 2] = x;
    }
    free(s->rbuf);
    s->rbuf = NULL;
    rc = px_exchange(c->comm, rc, 3, s->counts, s->buf, &s->rbuf, &s->nr, NULL);
    G5_TRY(g5_agree(c->comm, rc));
    for (int64_t i = 0; i < c->vc; i++)
        piece[i] = -1;
    for (int64_t i = 0; i < s->nr; i++) {
        int64_t li = s->rbuf[3 * i] - c->vf;
        piece[li] = (int32_t)s->rbuf[3 * i + 1];
        idx[li] = s->rbuf[3 * i + 2];
    }
out:
    return rc;
}

/* Step 4: the piece of every vertex of component 0 (piece[i] = -1 outside)
 * and its index inside the piece idx[i]; replicated, each piece's vertex
 * count and edge load, and the number of hubs.
 *
 * Hubs - vertices heavier than thresh - leave the order (none when thresh
 * is infinite): every process learns all hubs (part_place uses
 * max(tolerance, 1%) * W / (2R), so there are fewer than 200 R of them),
 * and they go to the pieces by LPT (heaviest first
 * to the lightest piece). The other vertices are cut contiguously with
 * piece k's share of them proportional to W / R - hub load of k, each to
 * the piece holding its weight's midpoint, so every piece ends within one
 * non-hub vertex weight of W / R (unless a single hub exceeds W / R). Inside
 * a piece: its non-hub vertices in order, then its hubs in LPT order. */
int pl_giant_cut(const struct place_ctx *c, const int64_t *deg, const int64_t *pos, double thresh,
                 int32_t *piece, int64_t *idx, int64_t *pcount, int64_t *pload, int64_t *nhubs)
{
    int R = c->R, P = c->P, rc = G5_OK;
    struct cut s = {.thresh = thresh, .ng = c->in->comp_vertices[0]};

    g5_range_split(s.ng, c->me, P, &s.pf, &s.pc);
    s.counts = g5_calloc((size_t)P, sizeof(int64_t), "partition: counts");
    s.cur = g5_malloc((size_t)P * sizeof(int64_t), "partition: cursors");
    s.buf = g5_malloc((size_t)(c->vc + 1) * 3 * sizeof(int64_t), "partition: weight records");
    s.loc = g5_calloc((size_t)4 * R, sizeof(int64_t), "partition: piece sums");
    s.glob = g5_calloc((size_t)4 * R, sizeof(int64_t), "partition: piece sums");
    s.hcount = g5_malloc((size_t)2 * P * sizeof(int), "partition: hub counts");
    s.cum = g5_malloc((size_t)(R + 1) * sizeof(double), "partition: piece targets");
    rc = s.counts && s.cur && s.buf && s.loc && s.glob && s.hcount && s.cum ? G5_OK : G5_ERR_NOMEM;
    G5_TRY(g5_agree(c->comm, rc));
    s.hdisp = s.hcount + P;

    G5_TRY(cut_weights(c, &s, deg, pos));
    G5_TRY(cut_hubs(c, &s));
    G5_TRY(cut_targets(c, &s));
    G5_TRY(cut_nonhubs(c, &s));
    for (int k = 0; k < R; k++) {
        pcount[k] = s.glob[k] + s.glob[3 * R + k];
        pload[k] = s.glob[R + k] + s.glob[2 * R + k];
    }
    G5_TRY(cut_reply(c, &s, piece, idx));
    *nhubs = s.nall;
out:
    free(s.counts);
    free(s.cur);
    free(s.buf);
    free(s.rbuf);
    free(s.w);
    free(s.ids);
    free(s.lp);
    free(s.loc);
    free(s.glob);
    free(s.hubs);
    free(s.allhubs);
    free(s.hub_piece);
    free(s.hub_idx);
    free(s.hcount);
    free(s.perm);
    free(s.cum);
    return rc;
}
