/* SPDX-License-Identifier: MIT */
/*
 * exchange.c - the counted all-to-all exchange (common.h): the counts, then
 * the records, with every rank agreeing on a failure before and after the
 * records travel, so that no rank is left waiting in a collective another
 * one skipped (MPI_ERRORS_RETURN can fail a call on one rank only).
 */
#include "common.h"

#include <limits.h>
#include <string.h>

int g5_exchange_counts(MPI_Comm comm, int status, int *sc, int *rc, int *rd, int64_t *nrecv,
                       const char *what)
{
    int P;
    MPI_Comm_size(comm, &P);
    if (status != G5_OK)
        memset(sc, 0, (size_t)P * sizeof *sc);
    *nrecv = 0;
    if (MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm) != MPI_SUCCESS) {
        memset(rc, 0, (size_t)P * sizeof *rc);
        memset(rd, 0, (size_t)P * sizeof *rd);
        return status != G5_OK ? status
                                : g5_error(G5_ERR_MPI, "%s: MPI_Alltoall of the counts failed", what);
    }
    int64_t tot = 0;
    for (int r = 0; r < P; r++) {
        rd[r] = tot <= INT_MAX ? (int)tot : 0;
        tot += rc[r];
    }
    if (tot > INT_MAX) {
        memset(rc, 0, (size_t)P * sizeof *rc);
        if (status == G5_OK)
            status = g5_error(G5_ERR_INTERNAL, "%s: %lld records for one rank in one exchange",
                              what, (long long)tot);
        return status;
    }
    *nrecv = tot;
    return status;
}

int g5_exchange_data(MPI_Comm comm, int status, MPI_Datatype type, const void *sbuf,
                     const int *sc, const int *sd, void *rbuf, const int *rc, const int *rd,
                     const char *what)
{
    int st = g5_agree(comm, status);
    if (st != G5_OK)
        return st;
    if (MPI_Alltoallv(sbuf, sc, sd, type, rbuf, rc, rd, type, comm) != MPI_SUCCESS)
        st = g5_error(G5_ERR_MPI, "%s: MPI_Alltoallv failed", what);
    return g5_agree(comm, st);
}
