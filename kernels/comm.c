/* SPDX-License-Identifier: MIT */
/*
 * comm.c - the counted all-to-all exchange of the kernels and the
 * communication accounting (bytes sent per rank pair during the timed
 * kernels, reported in the JSON and weighted by switch hops there).
 *
 * kern_exchange: the counted all-to-all of common.h (g5_exchange_counts,
 * then the receive buffer grown, then g5_exchange_data, which agrees before
 * and after the records travel) on records typed as one contiguous
 * esize-byte MPI datatype (so counts are records, not bytes, and 2^31 records
 * of 12 bytes fit in an int).
 */
#include "kern_impl.h"

#include <limits.h>

int kern_exchange(MPI_Comm comm, size_t esize, const void *sendbuf,
                  const int64_t *sendcounts, void **recv, size_t *recvcap,
                  int64_t *nrecv, int64_t *bytes_to, int ok)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    /* P-sized bookkeeping on the stack: a rank that cannot allocate it could
     * not take part in the collectives below and would hang the others. */
    int sc[P], sd[P], rc[P], rd[P];
    int st = ok ? G5_OK : G5_ERR_REMOTE; /* failed earlier: sends nothing */
    int64_t stot = 0;
    for (int r = 0; r < P && st == G5_OK; r++) {
        if (stot + sendcounts[r] > INT_MAX) {
            st = g5_error(G5_ERR_INTERNAL, "kernel exchange: more than 2^31 records from one rank");
            break;
        }
        sc[r] = (int)sendcounts[r];
        sd[r] = (int)stot;
        stot += sendcounts[r];
    }
    st = g5_exchange_counts(comm, st, sc, rc, rd, nrecv, "kernel exchange");
    if (st == G5_OK && (size_t)*nrecv > *recvcap) {
        size_t cap = (size_t)*nrecv + (size_t)*nrecv / 8 + 64;
        void *p = realloc(*recv, cap * esize);
        if (!p)
            st = g5_error(G5_ERR_NOMEM, "kernel exchange: cannot allocate %zu bytes", cap * esize);
        else {
            *recv = p;
            *recvcap = cap;
        }
    }
    MPI_Datatype t;
    MPI_Type_contiguous((int)esize, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    st = g5_exchange_data(comm, st, t, sendbuf, sc, sd, *recv, rc, rd, "kernel exchange");
    MPI_Type_free(&t);
    if (st != G5_OK) {
        *nrecv = 0;
        return 0;
    }
    for (int r = 0; bytes_to && r < P; r++)
        if (r != me) bytes_to[r] += sc[r] * (int64_t)esize + 16;
    return 1;
}

void kern_comm_reset(kern_graph *g)
{
    memset(g->bytes_to, 0, (size_t)g->nranks * sizeof(int64_t));
}

int kern_comm_gather(kern_graph *g, int64_t *matrix)
{
    int err = MPI_Gather(g->bytes_to, g->nranks, MPI_INT64_T, matrix, g->nranks, MPI_INT64_T, 0,
                         g->comm);
    if (err != MPI_SUCCESS) return g5_agree(g->comm, g5_error(G5_ERR_MPI, "communication counters: MPI_Gather failed"));
    return g5_agree(g->comm, G5_OK);
}
