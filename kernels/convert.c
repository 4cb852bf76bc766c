/* SPDX-License-Identifier: MIT */
/*
 * convert.c - results of the kernels (per-rank arrays indexed by local
 * vertex, parents as pids) into what the validator reads: original ids,
 * block-distributed over [0, N) by g5_range_split. Untimed.
 *
 * Each reached local vertex becomes one 16-byte record (original id and
 * original parent id as 32-bit words: N < 2^32 as for pids, float32
 * distance) sent to the block owner of its id with
 * kern_exchange; the receiver fills its block, which starts as unreached
 * (-1, +INFINITY). Every rank can translate any pid (kern_dist keeps the
 * relabelling), so one exchange per round suffices. The local vertices go
 * in rounds of CONV_CHUNK (every rank makes the same number of rounds), so
 * the records in flight are bounded (16 CONV_CHUNK bytes sent per rank)
 * instead of 48 bytes per reached vertex next to the result arrays.
 * Distances are the kernel's float32 sums and stay float32 (exact).
 */
#include "kern_impl.h"

#include <math.h>

typedef struct crec { uint32_t v, p; float d; } crec;

static int block_owner(int64_t n, int P, int64_t v)
{
    int64_t q = n / P, r = n % P, big = r * (q + 1);
    return v < big ? (int)(v / (q + 1)) : (int)(r + (v - big) / q);
}

#define CONV_CHUNK ((int64_t)1 << 20)

int kern_to_original(kern_graph *g, const int64_t *parent, const float *dist,
                     int64_t *parent_out, float *dist_out)
{
    return kern_to_original_ex(g, parent, dist, parent_out, dist_out, CONV_CHUNK);
}

int kern_to_original_ex(kern_graph *g, const int64_t *parent, const float *dist,
                        int64_t *parent_out, float *dist_out, int64_t conv_chunk)
{
    const kern_dist *d = g->dist;
    int P = g->nranks, me = g->rank, ok = 1, all = 1;
    int64_t N = d->nvertices, first, count, nl = g->nlocal;
    g5_range_split(N, me, P, &first, &count);
    int64_t *cnt = calloc((size_t)P * 2, sizeof(int64_t)), *pos = cnt + P;
    if (conv_chunk < 1) conv_chunk = CONV_CHUNK;
    int64_t chunk = nl < conv_chunk ? nl : conv_chunk;
    crec *sb = malloc(((size_t)chunk + 1) * sizeof(crec));
    void *recv = NULL;
    size_t recvcap = 0;
    int64_t nrecv = 0, rounds = (nl + conv_chunk - 1) / conv_chunk;
    if (!cnt || !sb) ok = 0;
    MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_INT64_T, MPI_MAX, g->comm);
    for (int64_t i = 0; i < count; i++) {
        parent_out[i] = -1;
        if (dist) dist_out[i] = INFINITY;
    }
    int64_t zero[P];
    memset(zero, 0, sizeof zero);
    for (int64_t rd = 0; rd < rounds; rd++) {
        int64_t lo = rd * conv_chunk < nl ? rd * conv_chunk : nl;
        int64_t hi = lo + conv_chunk < nl ? lo + conv_chunk : nl;
        if (ok && all) {
            memset(cnt, 0, (size_t)P * 2 * sizeof(int64_t));
            for (int64_t l = lo; l < hi; l++)
                if (parent[l] >= 0)
                    cnt[block_owner(N, P, kern_dist_orig_of_pid(d, g->base + l))]++;
            for (int r = 1; r < P; r++) pos[r] = pos[r - 1] + cnt[r - 1];
            for (int64_t l = lo; l < hi; l++) {
                if (parent[l] < 0) continue;
                int64_t v = kern_dist_orig_of_pid(d, g->base + l);
                crec *c = &sb[pos[block_owner(N, P, v)]++];
                c->v = (uint32_t)v;
                c->p = (uint32_t)kern_dist_orig_of_pid(d, parent[l]);
                c->d = dist ? dist[l] : 0;
            }
        }
        int mine = ok && all;
        all = kern_exchange(g->comm, sizeof(crec), sb, mine ? cnt : zero, &recv, &recvcap,
                            &nrecv, NULL, mine);
        if (all) {
            const crec *rv = recv;
            for (int64_t i = 0; i < nrecv; i++) {
                parent_out[rv[i].v - first] = (int64_t)rv[i].p;
                if (dist) dist_out[rv[i].v - first] = rv[i].d;
            }
        }
    }
    free(cnt); free(sb); free(recv);
    return g5_agree(g->comm, all ? G5_OK
                    : ok ? g5_error(G5_ERR_REMOTE, "result conversion failed on another rank")
                         : g5_error(G5_ERR_NOMEM, "result conversion: cannot allocate %lld records",
                                    (long long)chunk));
}

int kern_ids_are_original(const kern_graph *g)
{
    return g->nranks == 1 && g->dist->kind != KERN_DIST_PLACEMENT;
}
