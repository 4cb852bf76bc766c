/* SPDX-License-Identifier: MIT */
/*
 * part_internal.h - helpers shared inside partition/ only: the all-to-all
 * exchange of fixed-width int64 records, a sample sort of (key, id)
 * pairs and the placement's shared state. Not part of the module's public
 * API.
 */
#ifndef G500_PART_INTERNAL_H
#define G500_PART_INTERNAL_H

#include <mpi.h>
#include <stdint.h>

#include "json.h"
#include "part.h"

/* Records sent per process per round are bounded (part_input's
 * exchange_records, default PX_DEFAULT_CHUNK) so that MPI's int counts
 * never overflow and buffers stay small; results never depend on it. */
#define PX_DEFAULT_CHUNK ((int64_t)1 << 21)

/* Block owner by shift when blocks are an equal power of two (N = 2^SCALE
 * over a power-of-two count), by division otherwise: the per-edge hot
 * loops make tens of millions of these. */
typedef struct px_blockdiv {
    int64_t n, q, r, big;
    int shift;   /* >= 0: owner = v >> shift */
} px_blockdiv;

static inline void px_blockdiv_init(px_blockdiv *d, int64_t n, int parts)
{
    d->n = n;
    d->q = n / parts;
    d->r = n % parts;
    d->big = d->r * (d->q + 1);
    d->shift = -1;
    if (d->r == 0 && d->q > 0 && (d->q & (d->q - 1)) == 0)
        d->shift = __builtin_ctzll((unsigned long long)d->q);
}

static inline int px_blockdiv_owner(const px_blockdiv *d, int64_t v)
{
    if (d->shift >= 0)
        return (int)(v >> d->shift);
    if (v < d->big)
        return (int)(v / (d->q + 1));
    return (int)(d->r + (v - d->big) / d->q);
}

/* Collective. Exchange records of `width` int64: sendbuf holds, grouped by
 * destination process in order, sendcounts[p] records for process p. On
 * return *recvbuf (malloc'ed, caller frees; may be NULL when *nrecv == 0)
 * holds the records received, grouped by source in order, and recvcounts[p]
 * (if not NULL) how many came from p. status: the caller's local status
 * so far; every rank calls this even after a local failure (sendbuf and
 * sendcounts are then not read), the exchange agrees on it and on its own
 * allocations before each collective, and every rank returns the same
 * status (G5_ERR_MPI/NOMEM/INTERNAL or the caller's agreed failure), so no
 * rank waits in a collective another one skipped. */
int px_exchange(MPI_Comm comm, int status, int width, const int64_t *sendcounts,
                const int64_t *sendbuf, int64_t **recvbuf, int64_t *nrecv,
                int64_t *recvcounts);

/* Collective. Globally sort the records (key, id) (width 2, lexicographic)
 * held by all processes. On return *sorted (caller frees) holds this
 * process's contiguous share of the global order, *nsorted records, whose
 * first record has global position *first. Ties cannot arise when ids are
 * unique, so the global order does not depend on the number of processes.
 * status: the caller's local status, as for px_exchange (recs is not read
 * after a failure); every rank returns the same status. */
int px_sort_pairs(MPI_Comm comm, int status, int64_t *recs, int64_t n, int64_t **sorted,
                  int64_t *nsorted, int64_t *first);

/* Sort width-2 records lexicographically (in place). */
void px_sort2(int64_t *recs, int64_t n);

/* The quality table as a JSON object value (part_output.c), for
 * part_print_table and the placement file's statistics. */
void part_metrics_json(g5_json *j, int64_t nvertices, int64_t n_active, int nranks,
                       const part_metrics m[PART_NSCHEMES]);

/* The placement's shared state (part_place.c, part_giant.c): process p of
 * P holds its slab of edge tuples and the vertex block [vf, vf + vc). */
struct place_ctx {
    MPI_Comm comm;
    int P, me, R;
    int64_t N, C, vf, vc;
    const part_input *in;
    px_blockdiv vdiv;    /* vertex -> process */
    int64_t chunk;       /* records per process per exchange round */
};

static inline int pl_own(const struct place_ctx *c, int64_t v) { return px_blockdiv_owner(&c->vdiv, v); }

/* The status of a collective MPI call e, agreed: with MPI_ERRORS_RETURN
 * (cli/main.c) a call can fail on one rank only, and that rank must not
 * skip the next collective the others enter. */
int pl_mpi_agreed(MPI_Comm comm, int e, const char *what);
/* Rounds needed to cover `items` in chunks of `chunk`, agreed (max). */
int pl_agreed_rounds(MPI_Comm comm, int64_t items, int64_t chunk, int64_t *rounds);

/* Routes the endpoints of this slab's non-self-loop tuples to their
 * owners, in agreed rounds of half a c->chunk tuples: a record {x}
 * (width 1) or {x, other endpoint} (width 2) per endpoint, and calls
 * visit(arg, records, n) on each round's received records (all with x in
 * this block). Collective; agreed status. */
typedef void (*pl_route_visit)(void *arg, const int64_t *rec, int64_t n);
int pl_route_endpoints(const struct place_ctx *c, int width, pl_route_visit visit, void *arg);

/* The giant component's order and cut (part_giant.c); see there. */
int pl_giant_plain_order(const struct place_ctx *c, const int64_t *deg, const int64_t *nb, int64_t *pos);
int pl_giant_bfs(const struct place_ctx *c, const int64_t *deg, int64_t *pos, int64_t *root_out,
                 int *levels_out);
int pl_giant_cut(const struct place_ctx *c, const int64_t *deg, const int64_t *pos, double thresh,
                 int32_t *piece, int64_t *idx, int64_t *pcount, int64_t *pload, int64_t *nhubs);

#endif
