/* SPDX-License-Identifier: MIT */
/*
 * comm.c - the counted all-to-all exchange of the kernels and the
 * communication accounting (bytes sent per rank pair during the timed
 * kernels, reported in the JSON and weighted by switch hops there).
 *
 * kern_exchange: MPI_Alltoall of the record counts (a count of -1 says "this
 * sender failed"), allocation of the receive buffer, one MPI_Allreduce of the
 * receivers' state, then MPI_Alltoallv of records typed as one contiguous
 * esize-byte MPI datatype (so counts are records, not bytes, and 2^31 records
 * of 12 bytes fit in an int). Every rank takes the same path: the decision to
 * send is made from the allreduced state.
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
    int64_t cnt[P], rcnt[P];
    int sc[P], sd[P], rc[P], rd[P];
    int64_t stot = 0, rtot = 0;
    for (int r = 0; r < P; r++) {
        cnt[r] = ok ? sendcounts[r] : -1;
        stot += ok ? sendcounts[r] : 0;
    }
    if (stot > INT_MAX)
        for (int r = 0; r < P; r++) cnt[r] = -1;
    MPI_Alltoall(cnt, 1, MPI_INT64_T, rcnt, 1, MPI_INT64_T, comm);
    int mine = stot <= INT_MAX && ok;
    for (int r = 0; r < P; r++) {
        if (rcnt[r] < 0) mine = 0;
        else rtot += rcnt[r];
    }
    if (rtot > INT_MAX) mine = 0;
    if (mine && (size_t)rtot > *recvcap) {
        size_t cap = (size_t)rtot + (size_t)rtot / 8 + 64;
        void *p = realloc(*recv, cap * esize);
        if (!p) mine = 0;
        else { *recv = p; *recvcap = cap; }
    }
    int all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    *nrecv = 0;
    if (!all) return 0;
    int64_t so = 0, ro = 0;
    for (int r = 0; r < P; r++) {
        sc[r] = (int)cnt[r]; sd[r] = (int)so; so += cnt[r];
        rc[r] = (int)rcnt[r]; rd[r] = (int)ro; ro += rcnt[r];
        if (bytes_to && r != me) bytes_to[r] += cnt[r] * (int64_t)esize + 16;
    }
    MPI_Datatype t;
    MPI_Type_contiguous((int)esize, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    int e = MPI_Alltoallv(sendbuf, sc, sd, t, *recv, rc, rd, t, comm) == MPI_SUCCESS;
    MPI_Type_free(&t);
    MPI_Allreduce(&e, &all, 1, MPI_INT, MPI_MIN, comm);
    *nrecv = rtot;
    return all;
}

void kern_comm_reset(kern_graph *g)
{
    memset(g->bytes_to, 0, (size_t)g->nranks * sizeof(int64_t));
}

int kern_comm_gather(kern_graph *g, int64_t *matrix)
{
    int err = MPI_Allgather(g->bytes_to, g->nranks, MPI_INT64_T, matrix, g->nranks,
                            MPI_INT64_T, g->comm);
    if (err != MPI_SUCCESS) return g5_agree(g->comm, g5_error(G5_ERR_MPI, "communication counters: MPI_Allgather failed"));
    return g5_agree(g->comm, G5_OK);
}
