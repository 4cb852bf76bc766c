/* SPDX-License-Identifier: MIT */
/*
 * cc_stats.c - the statistics of components.h5: edges per component,
 * self-loops, distinct and duplicate edges, giant share, largest non-giant
 * component, log2 size histogram.
 *
 * Duplicates: a non-self-loop tuple (u, v) is keyed by its unordered pair,
 * key = min(u,v) * n + max(u,v). Each key goes to the rank chosen by a hash
 * of it (splitmix64's finaliser), so equal keys meet on one rank and every
 * rank receives about M/P keys whatever the graph's skew; each rank sorts
 * its keys (parallel MSD bucket pass on the top 11 bits, then LSD radix
 * passes of 11 bits per bucket, buckets shared among threads) and counts
 * distinct ones. duplicate_edges = non-self-loop tuples - distinct pairs.
 *
 * Histogram: bin k counts components with 2^k <= vertices < 2^(k+1);
 * isolated vertices count as components of one vertex (bin 0).
 */
#include "cc.h"
#include "common.h"

#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

void cc_count_edges(const int64_t *label, int64_t ncomp, const int64_t *edges,
                    int64_t count, int nthreads, int64_t *comp_edges,
                    int64_t *self_loops, int64_t *nonloop)
{
    int64_t loops = 0, giant = 0, other = 0;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    (void)ncomp;
    /* The giant takes nearly every edge: count it in a register, the rare
     * others with atomics. */
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : loops, giant, other)
    for (int64_t i = 0; i < count; i++) {
        const int64_t u = edges[2 * i], v = edges[2 * i + 1];
        if (u == v) {
            loops++;
            continue;
        }
        const int64_t c = label[u];
        if (c == 0) {
            giant++;
        } else {
            other++;
#pragma omp atomic
            comp_edges[c]++;
        }
    }
    if (giant)
        comp_edges[0] += giant;
    *self_loops += loops;
    *nonloop += giant + other;
}

void cc_stats_fill(io_components_meta *m, int64_t ncomp, const int64_t *comp_vertices,
                   const int64_t *comp_edges, int64_t self_loops, int64_t nonloop,
                   int64_t distinct)
{
    int64_t active = 0;
    memset(m->size_hist, 0, sizeof m->size_hist);
    for (int64_t c = 0; c < ncomp; c++) {
        int k = 63 - __builtin_clzll((unsigned long long)comp_vertices[c]);
        active += comp_vertices[c];
        m->size_hist[k < IO_HIST_BINS ? k : IO_HIST_BINS - 1]++;
    }
    m->ncomponents = ncomp;
    m->isolated_vertices = m->nvertices - active;
    m->ncomponents_all = ncomp + m->isolated_vertices;
    m->size_hist[0] += m->isolated_vertices;
    m->self_loops = self_loops;
    m->nonloop_edges = nonloop;
    m->distinct_edges = distinct;
    m->duplicate_edges = nonloop - distinct;
    m->giant_vertices = ncomp > 0 ? comp_vertices[0] : 0;
    m->giant_edges = ncomp > 0 ? comp_edges[0] : 0;
    m->giant_vertex_share = m->nvertices ? (double)m->giant_vertices / (double)m->nvertices : 0.0;
    m->giant_active_share = active ? (double)m->giant_vertices / (double)active : 0.0;
    m->giant_edge_share = nonloop ? (double)m->giant_edges / (double)nonloop : 0.0;
    m->second_vertices = ncomp > 1 ? comp_vertices[1] : 0;
    m->second_edges = ncomp > 1 ? comp_edges[1] : 0;
}

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

#define RADIX_BITS 11
#define RADIX (1 << RADIX_BITS)

/* Sort a[0..len) by the low `bits` bits (the rest are equal), using tmp;
 * returns the buffer holding the result. */
static uint64_t *lsd_sort(uint64_t *a, uint64_t *tmp, int64_t len, int bits)
{
    int64_t cnt[RADIX];
    if (len < 48) {
        for (int64_t i = 1; i < len; i++) {
            uint64_t x = a[i];
            int64_t j = i;
            for (; j > 0 && a[j - 1] > x; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return a;
    }
    for (int shift = 0; shift < bits; shift += RADIX_BITS) {
        int64_t sum = 0;
        memset(cnt, 0, sizeof cnt);
        for (int64_t i = 0; i < len; i++)
            cnt[(a[i] >> shift) & (RADIX - 1)]++;
        for (int d = 0; d < RADIX; d++) {
            int64_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < len; i++)
            tmp[cnt[(a[i] >> shift) & (RADIX - 1)]++] = a[i];
        uint64_t *s = a;
        a = tmp;
        tmp = s;
    }
    return a;
}

/* Distinct values among keys[0..len) (keys is reordered, tmp scratch). */
static int64_t count_distinct_local(uint64_t *keys, uint64_t *tmp, int64_t len, int nt)
{
    uint64_t maxkey = 0;
    int64_t distinct = 0;
    int bits, top, shift, nb;
    int64_t *cnt = NULL, *start = NULL;

    if (len == 0)
        return 0;
    for (int64_t i = 0; i < len; i++)
        maxkey = keys[i] > maxkey ? keys[i] : maxkey;
    bits = maxkey ? 64 - __builtin_clzll(maxkey) : 1;
    top = bits < RADIX_BITS ? bits : RADIX_BITS;
    shift = bits - top;
    nb = 1 << top;
    cnt = calloc((size_t)nt * (size_t)nb, sizeof *cnt);
    start = calloc((size_t)nb + 1, sizeof *start);
    if (!cnt || !start) {
        free(cnt);
        free(start);
        return -1;
    }
    /* Parallel bucket pass on the top bits into tmp. */
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), tn = omp_get_num_threads();
        const int64_t lo = len * t / tn, hi = len * (t + 1) / tn;
        int64_t *c = cnt + (size_t)t * (size_t)nb;
        for (int64_t i = lo; i < hi; i++)
            c[keys[i] >> shift]++;
#pragma omp barrier
#pragma omp single
        {
            int64_t sum = 0;
            for (int b = 0; b < nb; b++) {
                start[b] = sum;
                for (int s = 0; s < tn; s++) {
                    int64_t x = cnt[(size_t)s * (size_t)nb + (size_t)b];
                    cnt[(size_t)s * (size_t)nb + (size_t)b] = sum;
                    sum += x;
                }
            }
            start[nb] = sum;
        }
        for (int64_t i = lo; i < hi; i++)
            tmp[c[keys[i] >> shift]++] = keys[i];
    }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(+ : distinct)
    for (int b = 0; b < nb; b++) {
        const int64_t lo = start[b], blen = start[b + 1] - start[b];
        if (blen == 0)
            continue;
        uint64_t *s = lsd_sort(tmp + lo, keys + lo, blen, shift);
        int64_t d = 1;
        for (int64_t i = 1; i < blen; i++)
            d += s[i] != s[i - 1];
        distinct += d;
    }
    free(cnt);
    free(start);
    return distinct;
}

int cc_count_distinct(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                      int nthreads, int64_t *distinct)
{
    int rank, p, rc = G5_OK;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    int64_t *scount = NULL, *rcount = NULL, *pos = NULL, nrecv = 0, local;
    int *sc = NULL, *rc_ = NULL, *sd = NULL, *rd = NULL;
    uint64_t *send = NULL, *recv = NULL;
    int64_t nsend = 0;

    *distinct = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    scount = calloc((size_t)p, sizeof *scount);
    rcount = calloc((size_t)p, sizeof *rcount);
    pos = calloc((size_t)p, sizeof *pos);
    sc = calloc((size_t)p, sizeof *sc);
    rc_ = calloc((size_t)p, sizeof *rc_);
    sd = calloc((size_t)p, sizeof *sd);
    rd = calloc((size_t)p, sizeof *rd);
    if (!scount || !rcount || !pos || !sc || !rc_ || !sd || !rd)
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate %d counters", p);
    if (rc == G5_OK) {
        for (int64_t i = 0; i < count; i++) {
            const int64_t u = edges[2 * i], v = edges[2 * i + 1];
            if (u != v) {
                const uint64_t key = u < v ? (uint64_t)u * (uint64_t)n + (uint64_t)v
                                           : (uint64_t)v * (uint64_t)n + (uint64_t)u;
                scount[mix64(key) % (uint64_t)p]++;
                nsend++;
            }
        }
        send = g5_malloc((size_t)nsend * sizeof *send, "duplicate count: send buffer");
        if (!send)
            rc = G5_ERR_NOMEM;
    }
    if (rc == G5_OK) {
        int64_t sum = 0;
        for (int r = 0; r < p; r++) {
            if (sum > INT_MAX || scount[r] > INT_MAX)
                rc = g5_error(G5_ERR_ARG, "duplicate count: %lld edges per rank exceed one exchange; use more ranks",
                              (long long)count);
            pos[r] = sum;
            sd[r] = (int)sum;
            sc[r] = (int)scount[r];
            sum += scount[r];
        }
        for (int64_t i = 0; i < count && rc == G5_OK; i++) {
            const int64_t u = edges[2 * i], v = edges[2 * i + 1];
            if (u != v) {
                const uint64_t key = u < v ? (uint64_t)u * (uint64_t)n + (uint64_t)v
                                           : (uint64_t)v * (uint64_t)n + (uint64_t)u;
                send[pos[mix64(key) % (uint64_t)p]++] = key;
            }
        }
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Alltoall(scount, 1, MPI_INT64_T, rcount, 1, MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Alltoall failed");
    for (int r = 0; r < p && rc == G5_OK; r++) {
        if (nrecv > INT_MAX || rcount[r] > INT_MAX)
            rc = g5_error(G5_ERR_ARG, "duplicate count: too many keys for one exchange; use more ranks");
        rd[r] = (int)nrecv;
        rc_[r] = (int)rcount[r];
        nrecv += rcount[r];
    }
    if (rc == G5_OK) {
        recv = g5_malloc((size_t)nrecv * sizeof *recv, "duplicate count: receive buffer");
        if (!recv)
            rc = G5_ERR_NOMEM;
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Alltoallv(send, sc, sd, MPI_UINT64_T, recv, rc_, rd, MPI_UINT64_T, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Alltoallv failed");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    /* The send buffer is no longer needed: reuse it as sort scratch when it
     * is large enough (it usually is: M/P keys each way). */
    if (nsend < nrecv) {
        free(send);
        send = g5_malloc((size_t)nrecv * sizeof *send, "duplicate count: sort buffer");
        if (!send)
            rc = G5_ERR_NOMEM;
    }
    local = rc == G5_OK ? count_distinct_local(recv, send, nrecv, nt) : 0;
    if (local < 0)
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate sort counters");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Allreduce(&local, distinct, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Allreduce failed");
    rc = g5_agree(comm, rc);
out:
    free(scount);
    free(rcount);
    free(pos);
    free(sc);
    free(rc_);
    free(sd);
    free(rd);
    free(send);
    free(recv);
    return rc;
}
