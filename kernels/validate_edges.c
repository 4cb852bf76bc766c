/* SPDX-License-Identifier: MIT */
/*
 * validate_edges.c - phase 3 of the validators (validate_core.c has the
 * driver, the local checks and the jump-pointer depths): every input edge
 * is checked once, its far endpoint's (parent, value) answered by the
 * owner, and tree edges confirmed.
 */
#include "kern_impl.h"

#include <inttypes.h>
#include <omp.h>

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
        vc_fail(f, C_REACH, key, "edge (%" PRId64 ", %" PRId64 ") joins reached vertex %" PRId64
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
            vc_fail(f, C_RELAX, key, "edge (%" PRId64 ", %" PRId64 ", w=%.9g) shortens a distance:"
                 " d[%" PRId64 "]=%.17g, d[%" PRId64 "]=%.17g", u, v, w, u, du, v, dv);
        if (is_tight(dv, uw) && parent_of(c, iv, v) == u)
            conf[nc++] = v;
        if (is_tight(du, vw) && parent_of(c, iu, u) == v)
            conf[nc++] = u;
    } else {
        if (dv > du + 1 || du > dv + 1)
            vc_fail(f, C_RELAX, key, "edge (%" PRId64 ", %" PRId64 ") joins levels %.0f and %.0f", u, v,
                 du, dv);
        if (dv == du + 1 && parent_of(c, iv, v) == u)
            conf[nc++] = v;
        if (du == dv + 1 && parent_of(c, iu, u) == v)
            conf[nc++] = u;
    }
    return nc;
}

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
    int64_t tot = vc_bucket_offsets(c, bcount, nb, own_lo, own_n);
    *tot_out = tot;
    int rc = vc_xbuf_need(sq, (size_t)(tot ? tot : 1) * sizeof(int64_t), "validation queries");
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

/* Edge j of the piece starting at edge pfirst has an endpoint out of range. */
static int bad_edge(const vctx *c, int64_t pfirst, const int64_t *ce, int64_t j)
{
    return g5_error(G5_ERR_FORMAT, "edge %" PRId64 " = (%" PRId64 ", %" PRId64
                    ") has a vertex outside [0, %" PRId64 ")", pfirst + j, ce[2 * j], ce[2 * j + 1], c->n);
}

/* P > 1: route the chunk's endpoint queries (ce[0..m)) to their owners and
 * answer them; the answers, in query slot order, land in ans. Collective;
 * agreed status. */
static int answer_queries(vctx *c, const int64_t *ce, int64_t m, int64_t pfirst, int32_t *slot,
                          int *bcount, int nb, const float *dist, const uint64_t *jw, xbuf *sq,
                          xbuf *rq, xbuf *ra, xbuf *ans)
{
    int64_t own_lo = 0, own_n = 0, nsent = 0, bad = -1, nrecv;
    int rc = route_queries(c, ce, m, slot, bcount, nb, sq, &own_lo, &own_n, &nsent, &bad);
    if (rc == G5_OK && bad >= 0)
        rc = bad_edge(c, pfirst, ce, bad);
    G5_TRY(g5_agree(c->comm, rc));
    G5_TRY(vc_exchange(c, sq->p, c->t_i64, sizeof(int64_t), rq, &nrecv, "endpoint queries"));
    rc = vc_xbuf_need(ra, (size_t)(nrecv ? nrecv : 1) * sizeof(vinfo), "endpoint answers");
    if (rc == G5_OK)
        rc = vc_xbuf_need(ans, (size_t)(nsent ? nsent : 1) * sizeof(vinfo), "endpoint answers");
    G5_TRY(g5_agree(c->comm, rc));
    const int64_t *q = rq->p;
    vinfo *a = ra->p;
    vinfo *own = (vinfo *)ans->p + own_lo;
    const int64_t *oq = (const int64_t *)sq->p + own_lo;
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
    G5_TRY(vc_reply(c, ra->p, c->t_info, ans->p, "endpoint"));
out:
    return rc;
}

/* P > 1: bucket the remote confirmations cq[0..nconf) by owner (counting
 * sort into cbuf, the chunk's edge buffer, no longer needed), send them,
 * and mark the ones received. Collective; agreed status. */
static int send_confirmations(vctx *c, int64_t *cbuf, const int64_t *cq, int64_t nconf, xbuf *rcf,
                              uint8_t *confirmed)
{
    int64_t nrecv;
    const vowner o = vowner_of(c);
    int rc;
    memset(c->scount, 0, (size_t)c->nranks * sizeof *c->scount);
    for (int64_t t = 0; t < nconf; t++)
        c->scount[vowner_get(o, cq[t])]++;
    vc_displs_from_counts(c);
    for (int64_t t = 0; t < nconf; t++)
        cbuf[c->cursor[vowner_get(o, cq[t])]++] = cq[t];
    rc = vc_exchange(c, cbuf, c->t_i64, sizeof(int64_t), rcf, &nrecv, "confirmations");
    if (rc != G5_OK)
        return rc;
    const int64_t *cv = rcf->p;
    for (int64_t t = 0; t < nrecv; t++)
        mark(confirmed, cv[t] - c->first);
    return G5_OK;
}

/* This rank's edges [efirst, efirst + ecount) in pieces of chunk, nchunks
 * rounds on every rank; dbl: two chunk buffers when a thread can check one
 * while the master reads the other (with one thread the read follows the
 * checks in one buffer). Agreed: the read's place among the collectives
 * depends on it. Collective; nonzero when an MPI call failed. */
static int edge_plan(vctx *c, const kern_edge_reader *rd, int64_t *chunk, int64_t *efirst,
                     int64_t *ecount, int64_t *nchunks, int *dbl)
{
    *chunk = rd->chunk > 0 ? rd->chunk : KERN_VALIDATE_CHUNK;
    if (*chunk > ((int64_t)1 << 24))
        *chunk = (int64_t)1 << 24;
    g5_range_split(rd->nedges, c->rank, c->nranks, efirst, ecount);
    *nchunks = *ecount ? (*efirst + *ecount - 1) / *chunk - *efirst / *chunk + 1 : 0;
    if (MPI_Allreduce(MPI_IN_PLACE, nchunks, 1, MPI_INT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
        return 1;
    *dbl = omp_get_max_threads() > 1;
    return MPI_Allreduce(MPI_IN_PLACE, dbl, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS;
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
int vc_check_edges(vctx *c, const kern_edge_reader *rd, const float *dist,
                       const uint64_t *jw, uint8_t *confirmed, int64_t *nedge, vfail *f)
{
    int rc = G5_OK;
    const int multi = c->nranks > 1;
    int64_t chunk, efirst, ecount, nchunks;
    int dbl;
    if (edge_plan(c, rd, &chunk, &efirst, &ecount, &nchunks, &dbl) != G5_OK)
        return g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
    /* blocks of the routing sort: a few per thread, fixed for the run */
    int nb = multi ? 4 * omp_get_max_threads() : 0;
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
        int64_t pfirst = (efirst / chunk + k) * chunk; /* first edge of the piece */
        pfirst = pfirst < efirst ? efirst : pfirst;
        if (multi) {
            G5_TRY(answer_queries(c, ce, m, pfirst, slot, bcount, nb, dist, jw, &sq, &rq, &ra, &ans));
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
            vc_fail_merge(f, &tf);
        }
        count_edges += counted;
        if (first_bad != INT64_MAX)
            rc = bad_edge(c, pfirst, ce, first_bad);
        else
            rc = rrc;
        G5_TRY(g5_agree(c->comm, rc));

        if (multi)
            G5_TRY(send_confirmations(c, ce, cq, nconf, &rcf, confirmed));
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
