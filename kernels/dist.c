/* SPDX-License-Identifier: MIT */
/*
 * dist.c - the vertex distributions of the kernels (kern.h): cyclic (v mod P,
 * local v / P, as the Graph500 reference code), block (the even split of
 * [0, N) that g5_range_split makes) and a placement file's relabelling
 * (new_label + rank_offsets: each rank owns a contiguous range of
 * [0, n_active), isolated vertices own nothing).
 *
 * Every distribution is mapped to one internal id space, the pid: rank r's
 * local vertex l is pid base[r] + l with base[r] a multiple of 64, so each
 * rank's frontier bitmap is a whole number of 64-bit words and the
 * concatenation of all ranks' words (one MPI_Allgatherv) is the global
 * bitmap indexed by pid. The padding costs at most 63 bits per rank.
 *
 * A placement keeps new_of_old [N] and old_of_new [n_active] as uint32 on
 * every rank (4 bytes per vertex each, 0.5 byte per input edge at edgefactor
 * 16), so any rank can translate any id without communication.
 */
#include "kern_impl.h"

#include <stdlib.h>
#include <string.h>

static int dist_alloc(MPI_Comm comm, int64_t nvertices, int kind, kern_dist **out)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    *out = NULL;
    if (nvertices < 1)
        return g5_error(G5_ERR_ARG, "distribution: %lld vertices", (long long)nvertices);
    kern_dist *d = calloc(1, sizeof *d);
    if (!d) return g5_error(G5_ERR_NOMEM, "distribution: cannot allocate");
    d->kind = kind; d->nranks = P; d->rank = rank; d->nvertices = nvertices;
    d->n_active = nvertices;
    d->nlocal = calloc((size_t)P, sizeof(int64_t));
    d->first = calloc((size_t)P + 1, sizeof(int64_t));
    d->base = calloc((size_t)P + 1, sizeof(int64_t));
    if (!d->nlocal || !d->first || !d->base) {
        kern_dist_free(&d);
        return g5_error(G5_ERR_NOMEM, "distribution: cannot allocate");
    }
    *out = d;
    return G5_OK;
}

/* bases from nlocal; refuses a pid space beyond 32 bits */
static int dist_finish(kern_dist *d)
{
    d->base[0] = 0;
    for (int r = 0; r < d->nranks; r++)
        d->base[r + 1] = d->base[r] + ((d->nlocal[r] + 63) / 64) * 64;
    if (d->base[d->nranks] > (int64_t)UINT32_MAX)
        return g5_error(G5_ERR_ARG, "distribution: %lld active vertices exceed the "
                        "32-bit ids of the kernels", (long long)d->n_active);
    return G5_OK;
}

int kern_dist_create_cyclic(MPI_Comm comm, int64_t nvertices, kern_dist **out)
{
    int rc = dist_alloc(comm, nvertices, KERN_DIST_CYCLIC, out);
    if (rc) return rc;
    kern_dist *d = *out;
    for (int r = 0; r < d->nranks; r++)
        d->nlocal[r] = nvertices / d->nranks + (r < nvertices % d->nranks ? 1 : 0);
    if ((rc = dist_finish(d))) kern_dist_free(out);
    return rc;
}

int kern_dist_create_block(MPI_Comm comm, int64_t nvertices, kern_dist **out)
{
    int rc = dist_alloc(comm, nvertices, KERN_DIST_BLOCK, out);
    if (rc) return rc;
    kern_dist *d = *out;
    for (int r = 0; r < d->nranks; r++)
        g5_range_split(nvertices, r, d->nranks, &d->first[r], &d->nlocal[r]);
    d->first[d->nranks] = nvertices;
    if ((rc = dist_finish(d))) kern_dist_free(out);
    return rc;
}

int kern_dist_create_placement(MPI_Comm comm, int64_t nvertices,
                               const int64_t *new_label, const int64_t *rank_offsets,
                               const char *what, kern_dist **out)
{
    int rc = dist_alloc(comm, nvertices, KERN_DIST_PLACEMENT, out);
    if (rc) return rc;
    kern_dist *d = *out;
    int P = d->nranks;
    int64_t n_active = rank_offsets[P];
    if (rank_offsets[0] != 0 || n_active < 0 || n_active > nvertices) {
        rc = g5_error(G5_ERR_FORMAT, "%s: rank_offsets run from %lld to %lld, not 0 to "
                      "at most %lld", what, (long long)rank_offsets[0],
                      (long long)n_active, (long long)nvertices);
        goto out;
    }
    for (int r = 0; r < P; r++) {
        if (rank_offsets[r + 1] < rank_offsets[r]) {
            rc = g5_error(G5_ERR_FORMAT, "%s: rank_offsets decrease at rank %d", what, r);
            goto out;
        }
        d->first[r] = rank_offsets[r];
        d->nlocal[r] = rank_offsets[r + 1] - rank_offsets[r];
    }
    d->first[P] = n_active;
    d->n_active = n_active;
    if ((rc = dist_finish(d))) goto out;
    d->new_of_old = malloc((size_t)nvertices * sizeof(uint32_t));
    d->old_of_new = malloc(((size_t)n_active + 1) * sizeof(uint32_t));
    uint8_t *seen = calloc((size_t)nvertices, 1);
    if (!d->new_of_old || !d->old_of_new || !seen) {
        free(seen);
        rc = g5_error(G5_ERR_NOMEM, "%s: cannot allocate the relabelling", what);
        goto out;
    }
    int64_t bad = -1;
    for (int64_t v = 0; v < nvertices; v++) {
        int64_t g = new_label[v];
        if (g < 0 || g >= nvertices || seen[g]) { bad = v; break; }
        seen[g] = 1;
        d->new_of_old[v] = g < n_active ? (uint32_t)g : UINT32_MAX;
        if (g < n_active) d->old_of_new[g] = (uint32_t)v;
    }
    free(seen);
    if (bad >= 0) {
        rc = g5_error(G5_ERR_FORMAT, "%s: new_label is not a permutation of [0, %lld): "
                      "vertex %lld gets %lld", what, (long long)nvertices,
                      (long long)bad, (long long)new_label[bad]);
        goto out;
    }
out:
    if (rc) kern_dist_free(out);
    return rc;
}

void kern_dist_free(kern_dist **dp)
{
    if (!dp || !*dp) return;
    kern_dist *d = *dp;
    free(d->nlocal); free(d->first); free(d->base);
    free(d->new_of_old); free(d->old_of_new);
    free(d);
    *dp = NULL;
}

int kern_dist_kind_of(const kern_dist *d) { return d->kind; }
int64_t kern_dist_n_active(const kern_dist *d) { return d->n_active; }

int kern_dist_locate(const kern_dist *d, int64_t v, int *owner, int64_t *local)
{
    if (v < 0 || v >= d->nvertices) return 0;
    int P = d->nranks;
    switch (d->kind) {
    case KERN_DIST_CYCLIC:
        *owner = (int)(v % P);
        *local = v / P;
        return 1;
    case KERN_DIST_BLOCK: {
        int64_t q = d->nvertices / P, r = d->nvertices % P, big = r * (q + 1);
        int o = v < big ? (int)(v / (q + 1)) : (int)(r + (v - big) / q);
        *owner = o;
        *local = v - d->first[o];
        return 1;
    }
    default: {
        uint32_t g = d->new_of_old[v];
        if (g == UINT32_MAX) return 0;
        int lo = 0, hi = P - 1;
        while (lo < hi) {       /* last rank whose range starts at or before g,
                                   skipping empty ranks */
            int mid = (lo + hi + 1) / 2;
            if (d->first[mid] <= (int64_t)g) lo = mid; else hi = mid - 1;
        }
        while (d->nlocal[lo] == 0) lo--;
        *owner = lo;
        *local = (int64_t)g - d->first[lo];
        return 1;
    }
    }
}

int64_t kern_dist_pid_of(const kern_dist *d, int64_t v)
{
    int o;
    int64_t l;
    if (!kern_dist_locate(d, v, &o, &l)) return -1;
    return d->base[o] + l;
}

int64_t kern_dist_orig_of_pid(const kern_dist *d, int64_t pid)
{
    if (pid < 0 || pid >= d->base[d->nranks]) return -1;
    int o = kern_owner_of_pid(d, (uint64_t)pid);
    int64_t l = pid - d->base[o];
    if (l >= d->nlocal[o]) return -1;
    switch (d->kind) {
    case KERN_DIST_CYCLIC: return l * d->nranks + o;
    case KERN_DIST_BLOCK: return d->first[o] + l;
    default: return d->old_of_new[d->first[o] + l];
    }
}
