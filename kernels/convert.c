/* SPDX-License-Identifier: MIT */
/*
 * convert.c - results of the kernels (per-rank arrays indexed by local
 * vertex, parents as pids) into what the validator reads: original ids,
 * block-distributed over [0, N) by kern_block_range. Untimed.
 *
 * Each reached local vertex becomes one 24-byte record (original id,
 * original parent id, distance) sent to the block owner of its id with one
 * kern_exchange; the receiver fills its block, which starts as unreached
 * (-1, +INFINITY). Every rank can translate any pid (kern_dist keeps the
 * relabelling), so one exchange suffices.
 */
#include "kern_impl.h"

#include <math.h>

typedef struct crec { int64_t v, p; double d; } crec;

static int block_owner(int64_t n, int P, int64_t v)
{
    int64_t q = n / P, r = n % P, big = r * (q + 1);
    return v < big ? (int)(v / (q + 1)) : (int)(r + (v - big) / q);
}

int kern_to_original(kern_graph *g, const int64_t *parent, const double *dist,
                     int64_t *parent_out, double *dist_out)
{
    const kern_dist *d = g->dist;
    int P = g->nranks, me = g->rank, ok = 1;
    int64_t N = d->nvertices, first, count;
    kern_block_range(N, me, P, &first, &count);
    int64_t *cnt = calloc((size_t)P * 2, sizeof(int64_t)), *pos = cnt + P;
    int64_t nsend = 0;
    for (int64_t l = 0; l < g->nlocal; l++) nsend += parent[l] >= 0;
    crec *sb = malloc(((size_t)nsend + 1) * sizeof(crec));
    void *recv = NULL;
    size_t recvcap = 0;
    int64_t nrecv = 0;
    if (!cnt || !sb) ok = 0;
    if (ok) {
        for (int64_t l = 0; l < g->nlocal; l++)
            if (parent[l] >= 0)
                cnt[block_owner(N, P, kern_dist_orig_of_pid(d, g->base + l))]++;
        for (int r = 1; r < P; r++) pos[r] = pos[r - 1] + cnt[r - 1];
        for (int64_t l = 0; l < g->nlocal; l++) {
            if (parent[l] < 0) continue;
            int64_t v = kern_dist_orig_of_pid(d, g->base + l);
            crec *c = &sb[pos[block_owner(N, P, v)]++];
            c->v = v;
            c->p = kern_dist_orig_of_pid(d, parent[l]);
            c->d = dist ? dist[l] : 0;
        }
    }
    int64_t zero[P];
    memset(zero, 0, sizeof zero);
    int all = kern_exchange(g->comm, sizeof(crec), sb, ok ? cnt : zero, &recv, &recvcap,
                            &nrecv, NULL, ok);
    if (all) {
        for (int64_t i = 0; i < count; i++) {
            parent_out[i] = -1;
            if (dist) dist_out[i] = INFINITY;
        }
        const crec *rv = recv;
        for (int64_t i = 0; i < nrecv; i++) {
            parent_out[rv[i].v - first] = rv[i].p;
            if (dist) dist_out[rv[i].v - first] = rv[i].d;
        }
    }
    free(cnt); free(sb); free(recv);
    return g5_agree(g->comm, all ? G5_OK
                    : ok ? g5_error(G5_ERR_REMOTE, "result conversion failed on another rank")
                         : g5_error(G5_ERR_NOMEM, "result conversion: cannot allocate %lld records",
                                    (long long)nsend));
}
