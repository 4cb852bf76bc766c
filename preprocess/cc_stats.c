/* SPDX-License-Identifier: MIT */
/*
 * cc_stats.c - the statistics of components.h5: edges per component,
 * self-loops, distinct and duplicate edges, giant share, largest non-giant
 * component, log2 size histogram.
 *
 * Duplicates: a non-self-loop tuple (u, v) is keyed by its unordered pair,
 * key = min(u,v) * n + max(u,v). Each key goes to the rank chosen by a hash
 * of it (splitmix64's finaliser), so equal keys meet on one rank and every
 * rank receives about M/P keys whatever the graph's skew; each rank
 * scatters its keys into buckets by their top bits (about 4096 keys a
 * bucket) and counts the distinct keys of each bucket with a small
 * linear-probing hash set that stays in cache (buckets shared among
 * threads). duplicate_edges = non-self-loop tuples - distinct pairs.
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

void cc_count_edges(const int32_t *label, int64_t ncomp, const int64_t *edges,
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
        const int32_t c = label[u];
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

/* Owner rank of a key: the high half of the hash scaled to [0, p)
 * (a multiply, not a division). */
static inline int owner(uint64_t key, int p)
{
    return (int)(((mix64(key) >> 32) * (uint64_t)p) >> 32);
}

/* Keys per bucket aimed at by the bucket pass: a bucket's hash table
 * (2 slots per key, 8 bytes a slot) then fits in a core's L2 cache. */
#define BUCKET_KEYS 4096

/* Distinct values among keys[0..len) (tmp: scratch of len keys); -1 when
 * out of memory. Buckets by the top bits (parallel counting scatter), then
 * a linear-probing hash set per bucket, buckets shared among threads. */
static int64_t count_distinct_local(const uint64_t *keys, uint64_t *tmp, int64_t len, int nt)
{
    uint64_t maxkey = 0;
    int64_t distinct = 0, maxb = 0, *cnt = NULL, *start = NULL;
    int bits, top = 1, shift, nb, failed = 0;

    if (len == 0)
        return 0;
    for (int64_t i = 0; i < len; i++)
        maxkey = keys[i] > maxkey ? keys[i] : maxkey;
    bits = maxkey ? 64 - __builtin_clzll(maxkey) : 1;
    while (top < 20 && ((int64_t)BUCKET_KEYS << top) < len)
        top++;
    top = top < bits ? top : bits;
    shift = bits - top;
    nb = 1 << top;
    cnt = calloc((size_t)nt * (size_t)nb, sizeof *cnt);
    start = calloc((size_t)nb + 1, sizeof *start);
    if (!cnt || !start) {
        free(cnt);
        free(start);
        return -1;
    }
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
                maxb = sum - start[b] > maxb ? sum - start[b] : maxb;
            }
            start[nb] = sum;
        }
        for (int64_t i = lo; i < hi; i++)
            tmp[c[keys[i] >> shift]++] = keys[i];
    }
#pragma omp parallel num_threads(nt) reduction(+ : distinct) reduction(max : failed)
    {
        int tbits = 1;
        while ((1LL << tbits) < 2 * maxb)
            tbits++;
        /* Empty slot: UINT64_MAX, never a key (keys are below n^2 < 2^62). */
        uint64_t *table = malloc(sizeof(uint64_t) << tbits);
        if (!table)
            failed = 1;
#pragma omp for schedule(dynamic, 16)
        for (int b = 0; b < nb; b++) {
            const int64_t blen = start[b + 1] - start[b];
            const uint64_t *k = tmp + start[b];
            int tb = 1;
            if (!table || blen == 0)
                continue;
            while ((1LL << tb) < 2 * blen)
                tb++;
            const uint64_t mask = (1ULL << tb) - 1;
            memset(table, 0xff, sizeof(uint64_t) << tb);
            for (int64_t i = 0; i < blen; i++) {
                uint64_t h = (k[i] * 0x9e3779b97f4a7c15ULL) >> (64 - tb);
                while (table[h] != UINT64_MAX && table[h] != k[i])
                    h = (h + 1) & mask;
                if (table[h] == UINT64_MAX) {
                    table[h] = k[i];
                    distinct++;
                }
            }
        }
        free(table);
    }
    free(cnt);
    free(start);
    return failed ? -1 : distinct;
}

int cc_count_distinct(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                      int nthreads, int64_t *distinct)
{
    int p, rc = G5_OK;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    int64_t *scount = NULL, *rcount = NULL, *pos = NULL, nrecv = 0, nkeys = 0, local = 0;
    int *sc = NULL, *rc_ = NULL, *sd = NULL, *rd = NULL;
    uint64_t *keys = NULL, *send = NULL, *recv = NULL;

    *distinct = 0;
    MPI_Comm_size(comm, &p);
    scount = calloc((size_t)p, sizeof *scount);
    rcount = calloc((size_t)p, sizeof *rcount);
    pos = calloc((size_t)p, sizeof *pos);
    sc = calloc((size_t)p, sizeof *sc);
    rc_ = calloc((size_t)p, sizeof *rc_);
    sd = calloc((size_t)p, sizeof *sd);
    rd = calloc((size_t)p, sizeof *rd);
    keys = g5_malloc((size_t)(count > 0 ? count : 1) * sizeof *keys, "duplicate count: keys");
    if (!scount || !rcount || !pos || !sc || !rc_ || !sd || !rd || !keys)
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate its buffers");
    if (rc == G5_OK) {
        for (int64_t i = 0; i < count; i++) {
            const int64_t u = edges[2 * i], v = edges[2 * i + 1];
            if (u != v)
                keys[nkeys++] = u < v ? (uint64_t)u * (uint64_t)n + (uint64_t)v
                                      : (uint64_t)v * (uint64_t)n + (uint64_t)u;
        }
        if (p > 1)
            for (int64_t i = 0; i < nkeys; i++)
                scount[owner(keys[i], p)]++;
        else
            scount[0] = nkeys;
        /* one rank: the keys are already where they belong */
        send = g5_malloc((size_t)(nkeys > 0 ? nkeys : 1) * sizeof *send, "duplicate count: send buffer");
        if (!send)
            rc = G5_ERR_NOMEM;
    }
    if (rc == G5_OK && p > 1) {
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
        for (int64_t i = 0; i < nkeys && rc == G5_OK; i++)
            send[pos[owner(keys[i], p)]++] = keys[i];
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (p == 1) {
        local = count_distinct_local(keys, send, nkeys, nt);
        if (local < 0)
            rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate hash tables");
        *distinct = local;
        goto out;
    }
    free(keys);
    keys = NULL;
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
        recv = g5_malloc((size_t)(nrecv > 0 ? nrecv : 1) * sizeof *recv, "duplicate count: receive buffer");
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
    /* The send buffer is free now: reuse it as scratch when large enough. */
    if (nkeys < nrecv) {
        free(send);
        send = g5_malloc((size_t)nrecv * sizeof *send, "duplicate count: scratch buffer");
        if (!send)
            rc = G5_ERR_NOMEM;
    }
    local = rc == G5_OK ? count_distinct_local(recv, send, nrecv, nt) : 0;
    if (local < 0)
        rc = g5_error(G5_ERR_NOMEM, "duplicate count: cannot allocate hash tables");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Allreduce(&local, distinct, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "duplicate count: MPI_Allreduce failed");
out:
    rc = g5_agree(comm, rc);
    free(scount);
    free(rcount);
    free(pos);
    free(sc);
    free(rc_);
    free(sd);
    free(rd);
    free(keys);
    free(send);
    free(recv);
    return rc;
}
