/* SPDX-License-Identifier: MIT */
/*
 * validate_edges.c - phase 3 of the validators (validate_core.c has the
 * batch, the local checks and the jump-pointer depths): every input edge
 * is read once for all keys of a batch and checked for each, its far
 * endpoint's records (parent and value per key) answered by the owner, and
 * tree edges confirmed.
 */
#include "kern_impl.h"

#include <inttypes.h>
#include <omp.h>

#define VALIDATE_AHEAD 16  /* endpoints between a record prefetch and its use */

/* Check one edge between u and v for one key given both endpoints'
 * records; sets *cu / *cv when the edge confirms u's / v's tree edge. */
static inline void check_edge(int sssp, int64_t key, int64_t u, int64_t v, double w, vrec iu,
                              vrec iv, int *cu, int *cv, vfail *f, int64_t *counted)
{
    int ru = iu.parent != J_UNREACHED, rv = iv.parent != J_UNREACHED;
    *cu = *cv = 0;
    if (ru != rv) {
        vc_fail(f, C_REACH, key, "edge (%" PRId64 ", %" PRId64 ") joins reached vertex %" PRId64
             " and unreached vertex %" PRId64, u, v, ru ? u : v, ru ? v : u);
        return;
    }
    if (!ru)
        return;
    (*counted)++;
    if (sssp) {
        double du = rec_dist(iu), dv = rec_dist(iv), uw = du + w, vw = dv + w;
        if (dv > uw + TOL_ABS + TOL_REL * fabs(uw) || du > vw + TOL_ABS + TOL_REL * fabs(vw))
            vc_fail(f, C_RELAX, key, "edge (%" PRId64 ", %" PRId64 ", w=%.9g) shortens a distance:"
                 " d[%" PRId64 "]=%.17g, d[%" PRId64 "]=%.17g", u, v, w, u, du, v, dv);
        *cv = iv.parent == (uint32_t)u && is_tight(dv, uw);
        *cu = iu.parent == (uint32_t)v && is_tight(du, vw);
    } else {
        int64_t du = iu.val, dv = iv.val;
        if (dv > du + 1 || du > dv + 1)
            vc_fail(f, C_RELAX, key, "edge (%" PRId64 ", %" PRId64 ") joins levels %" PRId64
                 " and %" PRId64, u, v, du, dv);
        *cv = iv.parent == (uint32_t)u && dv == du + 1;
        *cu = iu.parent == (uint32_t)v && du == dv + 1;
    }
}

/* The keys (bits) for which edge (u, v) with records ru[k], rv[k] needs
 * check_edge: one endpoint reached and not the other, depths more than one
 * apart, or a parent that is the other endpoint (a tree edge, confirmed
 * there when tight). Adds 1 to cnt[k] for every key reaching both ends.
 * The common case, nothing to see for any key, costs no branch per key.
 * With AVX-512 and eight keys or more, eight keys at a time (a vertex's
 * records are side by side: one 64-byte load per endpoint for eight keys;
 * the last eight when the keys do not divide, their lanes already seen
 * masked out, so no load leaves the vertex's records and their lines),
 * with the same tests and the same double arithmetic, term by term, as
 * check_edge (C11 builds do not contract to fused multiply-adds), so a key
 * check_edge would fail is always among the bits. */
#if defined(__AVX512F__) && defined(__AVX512VL__)
#define VALIDATE_AVX512 1
#include <immintrin.h>

/* Records k..k+7 of r as parents and values. */
static inline void rec8(const vrec *r, int k, __m256i *par, __m256i *val)
{
    __m512i x = _mm512_loadu_si512((const void *)(r + k));
    /* even words (parents) to the low half, odd words (values) to the high */
    __m512i y = _mm512_permutexvar_epi32(
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15), x);
    *par = _mm512_castsi512_si256(y);
    *val = _mm512_extracti64x4_epi64(y, 1);
}

/* The group of eight keys for keys k.. of nk (nk >= 8): *at its first key
 * (the last eight when fewer are left), the values of both endpoints and
 * *ra the keys reaching u, among the lanes not yet seen; cnt counted.
 * Returns the group's bits that do not depend on the kind. */
static inline __mmask8 odd8(const vrec *ru, const vrec *rv, int k, int nk, uint32_t u, uint32_t v,
                            int32_t *cnt, int *at, __m256i *va, __m256i *vb, __mmask8 *ra)
{
    *at = k + 8 <= nk ? k : nk - 8;
    const __mmask8 live = (__mmask8)(0xFFu << (k - *at));
    __m256i pa, pb;
    rec8(ru, *at, &pa, va);
    rec8(rv, *at, &pb, vb);
    const __m256i none = _mm256_set1_epi32((int)J_UNREACHED);
    __mmask8 a = _mm256_mask_cmpneq_epu32_mask(live, pa, none);
    __mmask8 b = _mm256_mask_cmpneq_epu32_mask(live, pb, none);
    __m256i c = _mm256_loadu_si256((const void *)(cnt + *at));
    _mm256_storeu_si256((void *)(cnt + *at), _mm256_mask_add_epi32(c, a & b, c, _mm256_set1_epi32(1)));
    *ra = a;
    return (a ^ b) | _mm256_mask_cmpeq_epu32_mask(live, pb, _mm256_set1_epi32((int)u))
           | _mm256_mask_cmpeq_epu32_mask(live, pa, _mm256_set1_epi32((int)v));
}
#endif

static inline uint64_t odd_keys_bfs(const vrec *ru, const vrec *rv, int nk, uint32_t u,
                                    uint32_t v, int32_t *cnt)
{
    uint64_t odd = 0;
#ifdef VALIDATE_AVX512
    if (nk >= 8) {
        for (int k = 0; k < nk; k += 8) {
            int at;
            __m256i va, vb;
            __mmask8 ra, o = odd8(ru, rv, k, nk, u, v, cnt, &at, &va, &vb, &ra);
            /* depths more than one apart: a - b + 1 > 2 unsigned */
            __m256i gap = _mm256_add_epi32(_mm256_sub_epi32(va, vb), _mm256_set1_epi32(1));
            o |= _mm256_mask_cmpgt_epu32_mask(ra, gap, _mm256_set1_epi32(2));
            odd |= (uint64_t)o << at;
        }
        return odd;
    }
#endif
    for (int k = 0; k < nk; k++) {
        vrec a = ru[k], b = rv[k];
        uint32_t ra = a.parent != J_UNREACHED, rb = b.parent != J_UNREACHED;
        cnt[k] += (int32_t)(ra & rb);
        uint32_t o = (ra ^ rb) | (ra & (a.val - b.val + 1u > 2u)) | (b.parent == u)
                     | (a.parent == v);
        odd |= (uint64_t)o << k;
    }
    return odd;
}

static inline uint64_t odd_keys_sssp(const vrec *ru, const vrec *rv, int nk, uint32_t u,
                                     uint32_t v, double w, int32_t *cnt)
{
    uint64_t odd = 0;
#ifdef VALIDATE_AVX512
    if (nk >= 8) {
        const __m512d w8 = _mm512_set1_pd(w), tabs = _mm512_set1_pd(TOL_ABS),
                      trel = _mm512_set1_pd(TOL_REL);
        for (int k = 0; k < nk; k += 8) {
            int at;
            __m256i va, vb;
            __mmask8 ra, o = odd8(ru, rv, k, nk, u, v, cnt, &at, &va, &vb, &ra);
            /* the relaxation test of check_edge; unreached records read 0 */
            __m512d du = _mm512_cvtps_pd(_mm256_castsi256_ps(va));
            __m512d dv = _mm512_cvtps_pd(_mm256_castsi256_ps(vb));
            __m512d uw = _mm512_add_pd(du, w8), vw = _mm512_add_pd(dv, w8);
            __m512d lu = _mm512_add_pd(_mm512_add_pd(uw, tabs), _mm512_mul_pd(trel, _mm512_abs_pd(uw)));
            __m512d lv = _mm512_add_pd(_mm512_add_pd(vw, tabs), _mm512_mul_pd(trel, _mm512_abs_pd(vw)));
            o |= ra & (_mm512_cmp_pd_mask(dv, lu, _CMP_GT_OQ) | _mm512_cmp_pd_mask(du, lv, _CMP_GT_OQ));
            odd |= (uint64_t)o << at;
        }
        return odd;
    }
#endif
    for (int k = 0; k < nk; k++) {
        vrec a = ru[k], b = rv[k];
        uint32_t ra = a.parent != J_UNREACHED, rb = b.parent != J_UNREACHED;
        cnt[k] += (int32_t)(ra & rb);
        double du = rec_dist(a), dv = rec_dist(b), uw = du + w, vw = dv + w;
        /* the relaxation test of check_edge; unreached records read 0 */
        uint32_t bad = (dv > uw + TOL_ABS + TOL_REL * fabs(uw)) | (du > vw + TOL_ABS + TOL_REL * fabs(vw));
        uint32_t o = (ra ^ rb) | (ra & bad) | (b.parent == u) | (a.parent == v);
        odd |= (uint64_t)o << k;
    }
    return odd;
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

/* The records of vertex v (of this rank's block) for the batch's keys. */
static inline const vrec *recs_of(const vctx *c, int64_t v)
{
    return c->rec + (size_t)(v - c->first) * (size_t)c->stride;
}

/* Copy the records of query q[t] (a vertex of this rank's block) to dst,
 * first asking for those of a query further on: the records are random
 * loads from an array of n records per key. */
static inline void answer_one(const vctx *c, char *dst, const int64_t *q, int64_t t, int64_t n,
                              size_t rb)
{
    if (t + VALIDATE_AHEAD < n)
        __builtin_prefetch(recs_of(c, q[t + VALIDATE_AHEAD]));
    memcpy(dst, recs_of(c, q[t]), rb);
}

/* P > 1: route the slice's endpoint queries (ce[0..m)) to their owners and
 * answer them with the vertices' nk records; the answers, in query slot
 * order, land in ans (nk records per query). Collective; agreed status. */
static int answer_queries(vctx *c, const int64_t *ce, int64_t m, int64_t pfirst, int32_t *slot,
                          int *bcount, int nb, xbuf *sq, xbuf *rq, xbuf *ra, xbuf *ans)
{
    int64_t own_lo = 0, own_n = 0, nsent = 0, bad = -1, nrecv;
    const size_t rb = (size_t)c->nk * sizeof(vrec);
    int rc = route_queries(c, ce, m, slot, bcount, nb, sq, &own_lo, &own_n, &nsent, &bad);
    if (rc == G5_OK && bad >= 0)
        rc = bad_edge(c, pfirst, ce, bad);
    G5_TRY(g5_agree(c->comm, rc));
    G5_TRY(vc_exchange(c, sq->p, c->t_i64, sizeof(int64_t), rq, &nrecv, "endpoint queries"));
    rc = vc_xbuf_need(ra, (size_t)(nrecv ? nrecv : 1) * rb, "endpoint answers");
    if (rc == G5_OK)
        rc = vc_xbuf_need(ans, (size_t)(nsent ? nsent : 1) * rb, "endpoint answers");
    G5_TRY(g5_agree(c->comm, rc));
    const int64_t *q = rq->p;
    char *a = ra->p;
    char *own = (char *)ans->p + (size_t)own_lo * rb;
    const int64_t *oq = (const int64_t *)sq->p + own_lo;
    #pragma omp parallel
    {
        #pragma omp for schedule(static) nowait
        for (int64_t t = 0; t < nrecv; t++)
            answer_one(c, a + (size_t)t * rb, q, t, nrecv, rb);
        /* this rank's own endpoints, in place */
        #pragma omp for schedule(static) nowait
        for (int64_t t = 0; t < own_n; t++)
            answer_one(c, own + (size_t)t * rb, oq, t, own_n, rb);
    }
    G5_TRY(vc_reply(c, ra->p, c->t_info, ans->p, "endpoint"));
out:
    return rc;
}

/* A confirmation of key k's tree edge into vertex v, as it travels. */
static inline int64_t conf_word(int64_t v, int k) { return v << 6 | k; }

/* P > 1: bucket the remote confirmations cq[0..nconf) by owner (counting
 * sort into cbuf), send them, and mark the ones received. Collective;
 * agreed status. */
static int send_confirmations(vctx *c, int64_t *cbuf, const int64_t *cq, int64_t nconf, xbuf *rcf,
                              uint8_t *confirmed)
{
    int64_t nrecv;
    const vowner o = vowner_of(c);
    int rc;
    memset(c->scount, 0, (size_t)c->nranks * sizeof *c->scount);
    for (int64_t t = 0; t < nconf; t++)
        c->scount[vowner_get(o, cq[t] >> 6)]++;
    vc_displs_from_counts(c);
    for (int64_t t = 0; t < nconf; t++)
        cbuf[c->cursor[vowner_get(o, cq[t] >> 6)]++] = cq[t];
    rc = vc_exchange(c, cbuf, c->t_i64, sizeof(int64_t), rcf, &nrecv, "confirmations");
    if (rc != G5_OK)
        return rc;
    const int64_t *cv = rcf->p;
    for (int64_t t = 0; t < nrecv; t++)
        mark(confirmed, ((cv[t] >> 6) - c->first) * c->nk + (cv[t] & 63));
    return G5_OK;
}

/* This rank's edges [efirst, efirst + ecount) in pieces of chunk, nchunks
 * rounds on every rank; dbl: two chunk buffers when a thread can check one
 * while the master reads the other (with one thread the read follows the
 * checks in one buffer). Agreed: the read's place among the collectives
 * depends on it. At P > 1 each piece is checked in *nslices slices of
 * *slice edges, so the answers (nk records per endpoint) stay within about
 * the bytes of one key's answers for the whole piece. Collective; nonzero
 * when an MPI call failed. */
static int edge_plan(vctx *c, const kern_edge_reader *rd, int64_t *chunk, int64_t *efirst,
                     int64_t *ecount, int64_t *nchunks, int *dbl, int64_t *slice, int64_t *nslices)
{
    *chunk = rd->chunk > 0 ? rd->chunk : KERN_VALIDATE_CHUNK;
    if (*chunk > ((int64_t)1 << 24))
        *chunk = (int64_t)1 << 24;
    *slice = c->nranks > 1 ? (*chunk + c->nk - 1) / c->nk : *chunk;
    *nslices = (*chunk + *slice - 1) / *slice;
    g5_range_split(rd->nedges, c->rank, c->nranks, efirst, ecount);
    *nchunks = *ecount ? (*efirst + *ecount - 1) / *chunk - *efirst / *chunk + 1 : 0;
    if (MPI_Allreduce(MPI_IN_PLACE, nchunks, 1, MPI_INT64_T, MPI_MAX, c->comm) != MPI_SUCCESS)
        return 1;
    *dbl = omp_get_max_threads() > 1;
    return MPI_Allreduce(MPI_IN_PLACE, dbl, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS;
}

/* Key k's tree edge into vertex x is confirmed: marked when x is in this
 * rank's block, else appended to cq for its owner. */
static inline void confirm(const vctx *c, int64_t x, int k, uint8_t *confirmed, int64_t *cq,
                           int64_t *nconf)
{
    if (is_mine(c, x)) {
        mark(confirmed, (x - c->first) * c->nk + k);
        return;
    }
    int64_t at;
    #pragma omp atomic capture
    at = (*nconf)++;
    cq[at] = conf_word(x, k);
}

/* Per-thread state of the edge checks: a failure record and a TEPS count
 * per key, merged once the stream is done. */
typedef struct vthread {
    vfail *f;               /* [nk] */
    int64_t *counted;       /* [nk] */
} vthread;

/* Check the edges ce[0..m) (global index pfirst + j) for every key of the
 * batch, with the endpoints' records from av (P > 1, nk per query slot) or
 * in place; confirmations of this rank's vertices are marked, the others
 * appended to cq (*nconf). Inside a parallel region (an orphaned loop). */
static void check_slice(const vctx *c, const int64_t *ce, const float *cw, int64_t m,
                        int64_t pfirst, const int32_t *slot, const vrec *av, uint8_t *confirmed,
                        int64_t *cq, int64_t *nconf, vthread *th, int64_t *first_bad)
{
    const int multi = c->nranks > 1, nk = c->nk, sssp = c->sssp;
    vthread t = th[omp_get_thread_num()];
    /* counts on this thread's stack (the threads' arrays share cache lines);
     * 32 bits, as a slice is a piece of one chunk of edges (< 2^31) */
    int64_t fb = INT64_MAX;
    int32_t cnt[KERN_VBATCH_MAX] = {0};
    #pragma omp for schedule(dynamic, 4096) nowait
    for (int64_t j = 0; j < m; j++) {
        int64_t u = ce[2 * j], v = ce[2 * j + 1];
        /* one rank: the endpoints' records are random loads from an array
         * of n records per key; ask for those of an edge further on */
        if (!multi && j + VALIDATE_AHEAD < m) {
            uint64_t pu = (uint64_t)ce[2 * (j + VALIDATE_AHEAD)], pv = (uint64_t)ce[2 * (j + VALIDATE_AHEAD) + 1];
            const char *au = (const char *)recs_of(c, pu < (uint64_t)c->n ? (int64_t)pu : c->first);
            const char *av_ = (const char *)recs_of(c, pv < (uint64_t)c->n ? (int64_t)pv : c->first);
            /* every cache line of the nk records (they need not start a line) */
            const int last = nk * (int)sizeof(vrec) - 1;
            for (int l = 0; l < last; l += 64) {
                __builtin_prefetch(au + l);
                __builtin_prefetch(av_ + l);
            }
            __builtin_prefetch(au + last);
            __builtin_prefetch(av_ + last);
        }
        if ((uint64_t)u >= (uint64_t)c->n || (uint64_t)v >= (uint64_t)c->n) {
            fb = j < fb ? j : fb;
            continue;
        }
        if (u == v)
            continue;
        /* P > 1: every answer is in av (no branch on the owner) */
        const vrec *ru = multi ? av + (size_t)slot[2 * j] * nk : recs_of(c, u);
        const vrec *rv = multi ? av + (size_t)slot[2 * j + 1] * nk : recs_of(c, v);
        double w = sssp ? (double)cw[j] : 1.0;
        /* every key at once, without branches: the TEPS count, and a bit
         * per key whose edge needs a closer look (a failure, or a parent
         * equal to the other endpoint: a tree edge to confirm) */
        uint64_t odd = sssp ? odd_keys_sssp(ru, rv, nk, (uint32_t)u, (uint32_t)v, w, cnt)
                            : odd_keys_bfs(ru, rv, nk, (uint32_t)u, (uint32_t)v, cnt);
        while (odd) {
            int k = __builtin_ctzll(odd), cu, cv;
            int64_t unused = 0;    /* counted above */
            odd &= odd - 1;
            check_edge(sssp, pfirst + j, u, v, w, ru[k], rv[k], &cu, &cv, &t.f[k], &unused);
            if (cv)
                confirm(c, v, k, confirmed, cq, nconf);
            if (cu)
                confirm(c, u, k, confirmed, cq, nconf);
        }
    }
    for (int k = 0; k < nk; k++)
        t.counted[k] += cnt[k];
    if (fb != INT64_MAX) {
        #pragma omp critical(validate_bad)
        *first_bad = fb < *first_bad ? fb : *first_bad;
    }
}

/* Phase 3: the edge stream, answering from the batch's records. Endpoints
 * in this rank's block are answered in place; only the others travel (at
 * one rank nothing does). Per piece of the file (per slice at P > 1):
 * route the remote endpoints (parallel counting sort), the exchange, their
 * answers (parallel), then the edge checks for every key (parallel,
 * dynamic, thread-local failure records merged by priority) while the
 * master thread reads the next piece into the second buffer (HDF5 and MPI
 * are called from the master thread only: MPI_THREAD_FUNNELED), then the
 * confirmations: marked in place for this rank's vertices, sent to their
 * owners for the others. An edge's two endpoints are read once for all
 * keys. */
int vc_check_edges(vctx *c, const kern_edge_reader *rd, uint8_t *confirmed, int64_t *nedge,
                   vfail *f)
{
    int rc = G5_OK;
    const int multi = c->nranks > 1, nk = c->nk, nt = omp_get_max_threads();
    int64_t chunk, efirst, ecount, nchunks, slice, nslices;
    int dbl;
    if (edge_plan(c, rd, &chunk, &efirst, &ecount, &nchunks, &dbl, &slice, &nslices) != G5_OK)
        return g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
    /* blocks of the routing sort: a few per thread, fixed for the run */
    int nb = multi ? 4 * nt : 0;
    int64_t *ed[2] = {g5_malloc((size_t)chunk * 2 * sizeof(int64_t), "validation edge chunk"),
                      dbl ? g5_malloc((size_t)chunk * 2 * sizeof(int64_t), "validation edge chunk")
                          : NULL};
    float *wt[2] = {NULL, NULL};
    if (c->sssp) {
        wt[0] = g5_malloc((size_t)chunk * sizeof(float), "validation weight chunk");
        wt[1] = dbl ? g5_malloc((size_t)chunk * sizeof(float), "validation weight chunk") : NULL;
    }
    int32_t *slot = multi ? g5_malloc((size_t)slice * 2 * sizeof *slot, "validation query slots")
                          : NULL;
    int *bcount = multi ? g5_malloc((size_t)nb * (size_t)c->nranks * sizeof *bcount,
                                    "validation routing counts") : NULL;
    /* remote confirmations of a slice: at most one per endpoint and key */
    int64_t *cq = multi ? g5_malloc((size_t)slice * 2 * (size_t)nk * sizeof *cq,
                                    "validation confirmations") : NULL;
    int64_t *cbuf = multi ? g5_malloc((size_t)slice * 2 * (size_t)nk * sizeof *cbuf,
                                      "validation confirmations") : NULL;
    vthread *th = g5_calloc((size_t)nt, sizeof *th, "validation thread state");
    vfail *tf = g5_malloc((size_t)nt * (size_t)nk * sizeof *tf, "validation thread state");
    int64_t *tcount = g5_calloc((size_t)nt * (size_t)nk, sizeof *tcount, "validation thread state");
    xbuf sq = {0}, ans = {0}, rq = {0}, ra = {0}, rcf = {0};
    int64_t m = 0;
    rc = (ed[0] && (ed[1] || !dbl) && (!c->sssp || (wt[0] && (wt[1] || !dbl)))
          && (!multi || (slot && bcount && cq && cbuf)) && th && tf && tcount)
         ? G5_OK : G5_ERR_NOMEM;
    rc = g5_agree(c->comm, rc);
    if (rc != G5_OK)
        goto out;
    for (int t = 0; t < nt; t++) {
        th[t].f = tf + (size_t)t * nk;
        th[t].counted = tcount + (size_t)t * nk;
        for (int k = 0; k < nk; k++)
            th[t].f[k].check = C_NONE;
    }
    if (nchunks > 0) {
        rc = read_piece(rd, chunk, efirst, ecount, 0, ed[0], wt[0], &m);
        G5_TRY(g5_agree(c->comm, rc));
    }

    for (int64_t k = 0; k < nchunks; k++) {
        int64_t *ce = ed[dbl ? k & 1 : 0];
        const float *cw = wt[dbl ? k & 1 : 0];
        int64_t pfirst = (efirst / chunk + k) * chunk; /* first edge of the piece */
        pfirst = pfirst < efirst ? efirst : pfirst;
        int64_t mnext = 0;
        int rrc = G5_OK;
        for (int64_t sl = 0; sl < nslices; sl++) {
            int64_t lo = sl * slice < m ? sl * slice : m, hi = lo + slice < m ? lo + slice : m;
            const vrec *av = NULL;
            if (multi) {
                G5_TRY(answer_queries(c, ce + 2 * lo, hi - lo, pfirst + lo, slot, bcount, nb,
                                      &sq, &rq, &ra, &ans));
                av = ans.p;
            }
            /* check each edge of the slice while the master reads the
             * next piece (during the first slice) */
            int64_t nconf = 0, first_bad = INT64_MAX;
            #pragma omp parallel
            {
                #pragma omp master
                if (sl == 0 && dbl && k + 1 < nchunks)
                    rrc = read_piece(rd, chunk, efirst, ecount, k + 1, ed[(k + 1) & 1],
                                     wt[(k + 1) & 1], &mnext);
                check_slice(c, ce + 2 * lo, c->sssp ? cw + lo : NULL, hi - lo, pfirst + lo, slot,
                            av, confirmed, cq, &nconf, th, &first_bad);
            }
            rc = first_bad != INT64_MAX ? bad_edge(c, pfirst + lo, ce + 2 * lo, first_bad) : G5_OK;
            G5_TRY(g5_agree(c->comm, rc));
            if (multi)
                G5_TRY(send_confirmations(c, cbuf, cq, nconf, &rcf, confirmed));
        }
        G5_TRY(g5_agree(c->comm, rrc));
        if (!dbl && k + 1 < nchunks) {
            rc = read_piece(rd, chunk, efirst, ecount, k + 1, ed[0], wt[0], &mnext);
            G5_TRY(g5_agree(c->comm, rc));
        }
        m = mnext;
    }
    for (int key = 0; key < nk; key++) {
        nedge[key] = 0;
        for (int t = 0; t < nt; t++) {
            nedge[key] += th[t].counted[key];
            vc_fail_merge(&f[key], &th[t].f[key]);
        }
    }
    if (MPI_Allreduce(MPI_IN_PLACE, nedge, nk, MPI_INT64_T, MPI_SUM, c->comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "validation: MPI_Allreduce failed");
out:
    free(ed[0]);
    free(ed[1]);
    free(wt[0]);
    free(wt[1]);
    free(slot);
    free(bcount);
    free(cq);
    free(cbuf);
    free(th);
    free(tf);
    free(tcount);
    free(sq.p);
    free(ans.p);
    free(rq.p);
    free(ra.p);
    free(rcf.p);
    return rc;
}
