/* SPDX-License-Identifier: MIT */
/*
 * construct.c - kernel 1 of Graph500: build the distributed undirected graph
 * from this rank's slab of the edge list.
 *
 * Algorithm. The slab is routed in rounds of at most KERN_ROUND edges per
 * rank (a bounded send buffer): every non-self-loop edge (u, v, w) becomes
 * two 12-byte records, (local(u), pid(v), w) for owner(u) and (local(v),
 * pid(u), w) for owner(v); threads count records per destination, take
 * disjoint offsets and fill one send buffer; one kern_exchange
 * (MPI_Alltoallv) per round delivers them. The received records are then
 * counted per row (atomic increments), scattered into a packed array of
 * (column << 32 | weight bits) words, each row sorted (insertion sort for
 * short rows, an inlined quicksort for long ones) and duplicates merged keeping the first,
 * that is the smallest weight (non-negative float bits order like the
 * values). The final CSR is rowptr int64 [nlocal+1], col uint32 [nnz], w
 * float [nnz]: 8 bytes per directed entry, about 14 bytes per input edge
 * once self-loops and duplicates are gone.
 *
 * Peak memory during construction, per input edge on this rank: the caller's
 * slab (20 bytes) + received records (24) + packed words (16); the records
 * are freed before the final arrays are allocated. rawdeg uint32 [nlocal]
 * keeps each row's length before merging (input tuples, duplicates
 * included), so the TEPS edge count of a search is sum(rawdeg of reached
 * vertices) / 2 without the edge list.
 */
#include "kern_impl.h"

#include <omp.h>

#define KERN_ROUND ((int64_t)1 << 22)

typedef struct rec { uint32_t row, col; float w; } rec;

static void insertion_u64(uint64_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        uint64_t x = a[i];
        int64_t j = i - 1;
        while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

/* Quicksort of 64-bit keys with the comparison inlined (libc qsort's
 * callback was a third of construction): median-of-three pivot, Hoare
 * partition, recursion on the smaller side, insertion sort below 32. */
static void sort_row(uint64_t *a, int64_t n)
{
    while (n > 32) {
        uint64_t x = a[0], y = a[n / 2], z = a[n - 1];
        uint64_t p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = -1, j = n;
        for (;;) {
            do i++; while (a[i] < p);
            do j--; while (a[j] > p);
            if (i >= j) break;
            uint64_t t = a[i]; a[i] = a[j]; a[j] = t;
        }
        int64_t left = j + 1;
        if (left < n - left) { sort_row(a, left); a += left; n -= left; }
        else { sort_row(a + left, n - left); n = left; }
    }
    insertion_u64(a, n);
}

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* Route [lo, hi) of the slab: count or fill records. Returns 0 on a bad edge
 * (first one recorded in *bad). */
static int route(const kern_dist *d, const int64_t *edges, const float *weights,
                 int64_t lo, int64_t hi, int64_t *cnt, int64_t *pos, rec *out,
                 int64_t *bad)
{
    for (int64_t i = lo; i < hi; i++) {
        int64_t u = edges[2 * i], v = edges[2 * i + 1];
        if (u == v) continue;
        int ou, ov;
        int64_t lu, lv;
        if (!kern_dist_locate(d, u, &ou, &lu) || !kern_dist_locate(d, v, &ov, &lv)) {
            *bad = i;
            return 0;
        }
        if (out) {
            float w = weights[i];
            rec *a = &out[pos[ou]++], *b = &out[pos[ov]++];
            a->row = (uint32_t)lu; a->col = (uint32_t)(d->base[ov] + lv); a->w = w;
            b->row = (uint32_t)lv; b->col = (uint32_t)(d->base[ou] + lu); b->w = w;
        } else {
            cnt[ou]++;
            cnt[ov]++;
        }
    }
    return 1;
}

int kern_graph_build(MPI_Comm comm, const kern_dist *d, const int64_t *edges,
                     const float *weights, int64_t count, kern_graph **out)
{
    int P = d->nranks, me = d->rank, ok = 1, rc = G5_OK;
    int nt = omp_get_max_threads();
    int64_t bad = -1;
    rec *sendbuf = NULL;
    void *recv = NULL, *rbuf = NULL;
    size_t rbufcap = 0;
    size_t recvcap = 0;
    int64_t nrecv_total = 0;
    uint64_t *packed = NULL;
    int64_t *cnt = calloc((size_t)nt * P * 2 + 2 * (size_t)P, sizeof(int64_t));
    kern_graph *g = calloc(1, sizeof *g);
    *out = NULL;
    if (!cnt || !g) ok = 0;
    int lfail = !ok;

    int64_t rounds = (count + KERN_ROUND - 1) / KERN_ROUND, maxr;
    MPI_Allreduce(&rounds, &maxr, 1, MPI_INT64_T, MPI_MAX, comm);
    if (ok) sendbuf = malloc((size_t)2 * (count < KERN_ROUND ? count : KERN_ROUND) * sizeof(rec) + 1);
    if (!sendbuf) ok = 0;
    lfail = !ok;

    for (int64_t r = 0; r < maxr; r++) {
        int64_t lo = r * KERN_ROUND, hi = lo + KERN_ROUND;
        if (lo > count) lo = count;
        if (hi > count) hi = count;
        int64_t *tc = cnt, *dest = cnt + (size_t)nt * P * 2;
        if (ok) {
            memset(cnt, 0, ((size_t)nt * P * 2 + 2 * (size_t)P) * sizeof(int64_t));
            int lok = 1;
#pragma omp parallel num_threads(nt) reduction(&& : lok)
            {
                int t = omp_get_thread_num(), T = omp_get_num_threads();
                int64_t a = lo + (hi - lo) * t / T, b = lo + (hi - lo) * (t + 1) / T;
                int64_t mybad = -1;
                lok = route(d, edges, weights, a, b, tc + (size_t)t * P, NULL, NULL, &mybad);
                if (!lok) {
#pragma omp critical
                    if (bad < 0 || mybad < bad) bad = mybad;
                }
#pragma omp barrier
#pragma omp single
                {
                    /* offsets: destination-major, thread-minor */
                    int64_t o = 0;
                    for (int p = 0; p < P; p++) {
                        dest[p] = 0;
                        for (int q = 0; q < T; q++) {
                            tc[(size_t)nt * P + (size_t)q * P + p] = o;
                            o += tc[(size_t)q * P + p];
                            dest[p] += tc[(size_t)q * P + p];
                        }
                    }
                }
                if (lok)
                    route(d, edges, weights, a, b, NULL, tc + (size_t)nt * P + (size_t)t * P,
                          sendbuf, &mybad);
            }
            ok = lok;
            if (!lok && bad < 0) lfail = 1;
        }
        int64_t nrecv = 0;
        int all = kern_exchange(comm, sizeof(rec), sendbuf, dest, &rbuf, &rbufcap, &nrecv,
                                NULL, ok);
        if (!all) { ok = 0; break; }
        if (maxr == 1) {
            /* one round (the common case below 4 Mi edges per rank): keep
             * the exchange buffer itself */
            recv = rbuf; rbuf = NULL; rbufcap = 0;
            nrecv_total = nrecv;
            continue;
        }
        if ((size_t)(nrecv_total + nrecv) > recvcap) {
            size_t cap = (size_t)(nrecv_total + nrecv) * 2;
            void *p = realloc(recv, cap * sizeof(rec));
            if (!p) { ok = 0; lfail = 1; continue; }   /* agreed below, before any use */
            recv = p; recvcap = cap;
        }
        memcpy((rec *)recv + nrecv_total, rbuf, (size_t)nrecv * sizeof(rec));
        nrecv_total += nrecv;
    }
    free(rbuf);
    free(sendbuf);
    sendbuf = NULL;
    {
        int lo_ok = ok, all;
        MPI_Allreduce(&lo_ok, &all, 1, MPI_INT, MPI_MIN, comm);
        if (!all) {
            /* The run is dead: spread the failing rank's message now (the
             * timing of a failed construction does not matter). */
            int st = G5_OK;
            if (bad >= 0)
                st = g5_error(kern_dist_kind_of(d) == KERN_DIST_PLACEMENT &&
                                      edges[2 * bad] >= 0 && edges[2 * bad] < d->nvertices &&
                                      edges[2 * bad + 1] >= 0 && edges[2 * bad + 1] < d->nvertices
                                  ? G5_ERR_MISMATCH : G5_ERR_FORMAT,
                              "edge (%lld, %lld): %s", (long long)edges[2 * bad],
                              (long long)edges[2 * bad + 1],
                              kern_dist_kind_of(d) == KERN_DIST_PLACEMENT
                                  ? "an endpoint is out of range or isolated in the placement"
                                  : "an endpoint is out of range");
            else if (lfail)
                st = g5_error(G5_ERR_NOMEM, "construction: cannot allocate the routing buffers");
            rc = g5_agree(comm, st);
            if (rc == G5_OK)
                rc = g5_error(G5_ERR_NOMEM, "construction: cannot allocate the exchange buffers");
            goto fail;
        }
    }

    /* CSR: counts, scatter into packed words, sort and merge rows. */
    int64_t nl = d->nlocal[me];
    rec *R = recv;
    g->comm = comm; g->rank = me; g->nranks = P; g->dist = d; g->nlocal = nl;
    g->base = d->base[me];
    g->rowptr = calloc((size_t)nl + 1, sizeof(int64_t));
    g->bytes_to = calloc((size_t)P, sizeof(int64_t));
    int64_t *cur = calloc((size_t)nl + 1, sizeof(int64_t));
    packed = malloc(((size_t)nrecv_total + 1) * sizeof(uint64_t));
    g->rawdeg = malloc(((size_t)nl + 1) * sizeof(uint32_t));
    ok = g->rowptr && g->bytes_to && cur && packed && g->rawdeg;
    if (ok) {
        int64_t *deg = g->rowptr + 1;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < nrecv_total; i++)
            __atomic_fetch_add(&deg[R[i].row], 1, __ATOMIC_RELAXED);
        for (int64_t v = 0; v < nl; v++) g->rowptr[v + 1] += g->rowptr[v];
        memcpy(cur, g->rowptr, (size_t)nl * sizeof(int64_t));
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < nrecv_total; i++) {
            int64_t p = __atomic_fetch_add(&cur[R[i].row], 1, __ATOMIC_RELAXED);
            packed[p] = (uint64_t)R[i].col << 32 | f2u(R[i].w);
        }
        free(recv);
        recv = NULL;
        /* sort, merge duplicates; cur[v] = kept entries of row v */
#pragma omp parallel for schedule(dynamic, 256)
        for (int64_t v = 0; v < nl; v++) {
            uint64_t *a = packed + g->rowptr[v];
            int64_t n = g->rowptr[v + 1] - g->rowptr[v], k = 0;
            g->rawdeg[v] = (uint32_t)n;
            sort_row(a, n);
            for (int64_t i = 0; i < n; i++)
                if (k == 0 || (a[i] >> 32) != (a[k - 1] >> 32)) a[k++] = a[i];
            cur[v] = k;
        }
        int64_t nnz = 0;
        for (int64_t v = 0; v < nl; v++) nnz += cur[v];
        g->col = malloc(((size_t)nnz + 1) * sizeof(uint32_t));
        g->w = malloc(((size_t)nnz + 1) * sizeof(float));
        ok = g->col && g->w;
        if (ok) {
            /* new row starts: exclusive scan of kept counts, done in place */
            int64_t o = 0;
            for (int64_t v = 0; v < nl; v++) {
                int64_t k = cur[v];
                cur[v] = o;
                o += k;
            }
            cur[nl] = nnz;
#pragma omp parallel for schedule(dynamic, 256)
            for (int64_t v = 0; v < nl; v++) {
                const uint64_t *a = packed + g->rowptr[v];
                int64_t k = cur[v + 1] - cur[v];
                for (int64_t i = 0; i < k; i++) {
                    g->col[cur[v] + i] = (uint32_t)(a[i] >> 32);
                    g->w[cur[v] + i] = u2f((uint32_t)a[i]);
                }
            }
            memcpy(g->rowptr, cur, ((size_t)nl + 1) * sizeof(int64_t));
            g->nnz = nnz;
        }
    }
    free(cur);
    free(packed);
    packed = NULL;
    {
        int64_t v[2] = {ok ? 1 : 0, ok ? g->nnz : 0}, s[2];
        v[0] = ok ? 0 : 1;
        MPI_Allreduce(v, s, 2, MPI_INT64_T, MPI_SUM, comm);
        if (s[0]) {
            rc = g5_agree(comm, ok ? G5_OK
                          : g5_error(G5_ERR_NOMEM, "construction: cannot allocate the CSR (%lld entries)",
                                     (long long)nrecv_total));
            goto fail;
        }
        g->nnz_global = s[1];
    }
    free(cnt);
    *out = g;
    return G5_OK;
fail:
    free(cnt);
    free(sendbuf);
    free(recv);
    free(packed);
    kern_graph_free(&g);
    return rc;
}

void kern_graph_free(kern_graph **gp)
{
    if (!gp || !*gp) return;
    kern_graph *g = *gp;
    free(g->rowptr); free(g->col); free(g->w); free(g->bytes_to); free(g->rawdeg);
    free(g);
    *gp = NULL;
}

int64_t kern_graph_nlocal(const kern_graph *g) { return g->nlocal; }
int64_t kern_graph_nnz_local(const kern_graph *g) { return g->nnz; }
int64_t kern_graph_nnz_global(const kern_graph *g) { return g->nnz_global; }
int64_t kern_graph_bytes(const kern_graph *g)
{
    return (g->nlocal + 1) * 12 + g->nnz * 8;
}

int kern_reached_edges(kern_graph *g, const int64_t *parent, int64_t *nedge)
{
    int64_t s = 0, t = 0;
#pragma omp parallel for reduction(+ : s)
    for (int64_t v = 0; v < g->nlocal; v++)
        if (parent[v] >= 0) s += g->rawdeg[v];
    MPI_Allreduce(&s, &t, 1, MPI_INT64_T, MPI_SUM, g->comm);
    *nedge = t / 2;
    return G5_OK;
}
int64_t kern_graph_degree(const kern_graph *g, int64_t l) { return g->rowptr[l + 1] - g->rowptr[l]; }
const kern_dist *kern_graph_dist(const kern_graph *g) { return g->dist; }
MPI_Comm kern_graph_comm(const kern_graph *g) { return g->comm; }
