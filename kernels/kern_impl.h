/* SPDX-License-Identifier: MIT */
/*
 * kern_impl.h - private to kernels/: the layouts of kern_dist and kern_graph,
 * the inline id arithmetic used in the hot loops, growable vectors and the
 * counted all-to-all exchange shared by construction, BFS and SSSP.
 */
#ifndef G500_KERN_IMPL_H
#define G500_KERN_IMPL_H

#include "common.h"
#include "kern.h"

#include <stdlib.h>
#include <string.h>

struct kern_dist {
    int kind, nranks, rank;
    int64_t nvertices, n_active;
    int64_t *nlocal;        /* [P] */
    int64_t *first;         /* [P+1]: block: first original id; placement: rank_offsets */
    int64_t *base;          /* [P+1]: first pid of each rank (multiple of 64); base[P] = pid space */
    uint32_t *new_of_old;   /* placement: [N] new label (UINT32_MAX: isolated) */
    uint32_t *old_of_new;   /* placement: [n_active] original id of each new label */
};

struct kern_graph {
    MPI_Comm comm;
    int rank, nranks;
    const kern_dist *dist;
    int64_t nlocal, nnz, nnz_global;
    int64_t base;           /* this rank's first pid */
    int64_t *rowptr;        /* [nlocal+1] */
    uint32_t *col;          /* [nnz] pids */
    /* Weights, read only through kern_w / kern_wkey below. When every weight
     * of the graph (all ranks) is k * 2^-24 with k an integer in [0, 2^24),
     * as the generator makes them (gen_rmat.c: the top 24 bits of a random
     * word times 2^-24), w24 = 1 and w3 holds k in 3 little-endian bytes per
     * entry (exact: 3 bytes per entry instead of 4); otherwise w24 = 0 and
     * w holds the floats (any other edges file). */
    int w24;
    uint8_t *w3;            /* [3 nnz + 8] when w24 (padding: 4- and 32-byte loads) */
    float *w;               /* [nnz] when !w24 */
    /* The raw degree (non-loop input tuples per row, duplicates counted:
     * the TEPS count of kern_reached_edges) is the kept degree plus the
     * duplicates merged away, read through kern_rawdeg below: one byte per
     * row, 255 meaning "look in dup_big", a sorted table of row << 32 |
     * count keys for the rare rows (hubs) that merged 255 or more. */
    uint8_t *dup;           /* [nlocal] duplicates merged away per row, 255: see dup_big */
    uint64_t *dup_big;      /* [ndup_big] row << 32 | count, by increasing row */
    int64_t ndup_big;
    double build_time[6];   /* kern_graph_build_times */
    int64_t *bytes_to;      /* [P] bytes sent to each rank by the kernels */
    int rows_by_weight;     /* 1: every row sorted by (weight, column) (csr_sort.c) */
};

/* Duplicates merged away from local row l when dup[l] is 255 (a binary
 * search of dup_big; construct.c). */
int64_t kern_graph_dup_big(const kern_graph *g, int64_t l);
/* The raw degree of local row l: kept entries + merged duplicates. */
static inline int64_t kern_rawdeg(const kern_graph *g, int64_t l)
{
    int64_t d = g->rowptr[l + 1] - g->rowptr[l];
    return d + (g->dup[l] < 255 ? g->dup[l] : kern_graph_dup_big(g, l));
}

/* The weight arrays by value, for hot loops that keep them in registers
 * (stores through other pointers cannot alias locals), and the weight of
 * entry i (exact in both layouts). */
typedef struct kern_wts {
    int w24;
    const uint8_t *w3;
    const float *w;
} kern_wts;
static inline kern_wts kern_weights(const kern_graph *g)
{
    kern_wts t = {g->w24, g->w3, g->w};
    return t;
}
/* The 24-bit integer of entry i: one unaligned 4-byte load masked (the
 * array has one byte of padding) on little-endian machines. */
static inline uint32_t kern_w3_get(const uint8_t *w3, int64_t i)
{
    const uint8_t *p = w3 + 3 * i;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t u;
    memcpy(&u, p, 4);
    return u & 0xFFFFFFu;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
#endif
}
static inline float kern_wts_get(kern_wts t, int64_t i)
{
    if (t.w24) return (float)(int32_t)kern_w3_get(t.w3, i) * 0x1p-24f;
    return t.w[i];
}
static inline float kern_w(const kern_graph *g, int64_t i) { return kern_wts_get(kern_weights(g), i); }

/* A 32-bit key of entry i's weight that orders like the weight (k in the
 * 24-bit layout, the float's bits otherwise: weights are non-negative), and
 * its inverse: store the weight of key `key` at entry i. */
static inline uint32_t kern_wkey(const kern_graph *g, int64_t i)
{
    if (g->w24) return kern_w3_get(g->w3, i);
    uint32_t u;
    memcpy(&u, &g->w[i], 4);
    return u;
}
static inline void kern_wkey_set(kern_graph *g, int64_t i, uint32_t key)
{
    if (g->w24) {
        uint8_t *p = g->w3 + 3 * i;
        p[0] = (uint8_t)key; p[1] = (uint8_t)(key >> 8); p[2] = (uint8_t)(key >> 16);
    } else {
        memcpy(&g->w[i], &key, 4);
    }
}

/* Owner rank of a pid: the last r with base[r] <= pid (binary search over
 * P+1 entries; P is small next to the work per edge). */
static inline int kern_owner_of_pid(const kern_dist *d, uint64_t pid)
{
    int lo = 0, hi = d->nranks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if ((uint64_t)d->base[mid] <= pid) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/* Not collective. Sort every row of g by increasing (weight, column), in
 * place with OpenMP, and set g->rows_by_weight. G5_OK or G5_ERR_NOMEM (a
 * per-thread scratch of the longest row). Row contents are unchanged as sets. */
int kern_graph_sort_rows_by_weight(kern_graph *g);
/* Sort n 64-bit keys ascending in place (quicksort, insertion sort for short
 * runs; construct.c). Not collective; no allocation. */
void kern_sort_u64(uint64_t *a, int64_t n);

/* kern_to_original with conv_chunk local vertices per round (< 1: the
 * default); the result does not depend on it (convert.c). Collective. */
int kern_to_original_ex(kern_graph *g, const int64_t *parent, const float *dist,
                        int64_t *parent_out, float *dist_out, int64_t conv_chunk);

/* A growable array of fixed-size elements. */
typedef struct kvec {
    char *p;
    size_t n, cap, esize;
    int fail;               /* an allocation failed; contents truncated */
} kvec;

static inline void kvec_init(kvec *v, size_t esize)
{
    v->p = NULL; v->n = v->cap = 0; v->esize = esize; v->fail = 0;
}
static inline void kvec_free(kvec *v) { free(v->p); v->p = NULL; v->n = v->cap = 0; }
static inline int kvec_reserve(kvec *v, size_t want)
{
    if (want <= v->cap) return 1;
    size_t cap = v->cap ? v->cap : 256;
    while (cap < want) cap *= 2;
    char *p = realloc(v->p, cap * v->esize);
    if (!p) { v->fail = 1; return 0; }
    v->p = p; v->cap = cap;
    return 1;
}
static inline void *kvec_push(kvec *v)
{
    if (v->n == v->cap && !kvec_reserve(v, v->n + 1)) return NULL;
    return v->p + (v->n++) * v->esize;
}

/* Collective. Exchange variable-size blocks of `esize`-byte records:
 * sendbuf holds the records for rank 0, then rank 1, ... (sendcounts[P]
 * records each). The received records (all ranks' blocks for this rank in
 * rank order) are placed in *recv (grown as needed, capacity *recvcap
 * records) and their number in *nrecv. Bytes sent to other ranks are added
 * to bytes_to. `ok` is this rank's state on entry (0: it failed earlier and
 * sends nothing); the return value is 1 when every rank is ok after the
 * exchange, 0 otherwise, the same on every rank. */
int kern_exchange(MPI_Comm comm, size_t esize, const void *sendbuf,
                  const int64_t *sendcounts, void **recv, size_t *recvcap,
                  int64_t *nrecv, int64_t *bytes_to, int ok);

#endif
