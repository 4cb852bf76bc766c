/* SPDX-License-Identifier: MIT */
/* mpi_common.c - g5_agree across ranks: one failing rank's status and
 * message reach every rank, and no rank hangs. */
#include "common.h"
#include "mpitest.h"

#include <string.h>

static int agree_ok_when_all_ok(void)
{
    int ok = 1;
    g5_error_clear();
    MT_CHECK(g5_agree(MPI_COMM_WORLD, G5_OK) == G5_OK, "all ranks ok must agree on ok");
    return ok;
}

static int agree_spreads_one_ranks_failure(void)
{
    int ok = 1, rank, size, st = G5_OK, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g5_error_clear();
    if (rank == size - 1)
        st = g5_error(G5_ERR_IO, "slab of rank %d cannot be written", rank);
    rc = g5_agree(MPI_COMM_WORLD, st);
    MT_CHECK(rc == G5_ERR_IO, "expected G5_ERR_IO on every rank, got %d", rc);
    char want[64];
    snprintf(want, sizeof want, "slab of rank %d cannot be written", size - 1);
    MT_CHECK(strcmp(g5_error_msg(), want) == 0, "message '%s' should be '%s'", g5_error_msg(), want);
    return ok;
}

static int agree_picks_most_negative_status(void)
{
    int ok = 1, rank, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int st = rank % 2 == 0 ? g5_error(G5_ERR_ARG, "arg") : g5_error(G5_ERR_FORMAT, "format");
    rc = g5_agree(MPI_COMM_WORLD, st);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(rc == (size > 1 ? G5_ERR_FORMAT : G5_ERR_ARG), "got %d", rc);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MT_RUN(agree_ok_when_all_ok);
    MT_RUN(agree_spreads_one_ranks_failure);
    MT_RUN(agree_picks_most_negative_status);
    return mt_finish();
}
