/* SPDX-License-Identifier: MIT */
/* mpi_io_file.c - collective slab writes and reads at any rank count, and a
 * failure on one rank returned on every rank without a hang. */
#include "common.h"
#include "io.h"
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[256];

static int slabs_round_trip_across_ranks(void)
{
    int ok = 1, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int64_t m = 100003;
    int64_t first, count;
    /* rows split unevenly on purpose: rank r writes r+1 shares */
    int64_t shares = (int64_t)size * (size + 1) / 2, before = (int64_t)rank * (rank + 1) / 2;
    first = m * before / shares;
    count = m * (before + rank + 1) / shares - first;
    io_file *f;
    int rc = io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 1, &f);
    MT_CHECK(rc == G5_OK, "create: %s", g5_error_msg());
    if (rc != G5_OK) return ok;
    hsize_t dims[2] = {(hsize_t)m, 2};
    MT_CHECK(io_dataset_create(f, "/e", H5T_STD_I64LE, 2, dims, 4096) == G5_OK, "%s", g5_error_msg());
    int64_t *buf = malloc(sizeof(int64_t) * 2 * (count + 1));
    for (int64_t i = 0; i < count; i++) { buf[2 * i] = first + i; buf[2 * i + 1] = -(first + i); }
    MT_CHECK(io_write_rows(f, "/e", H5T_NATIVE_INT64, first, count, buf) == G5_OK, "%s", g5_error_msg());
    MT_CHECK(io_file_commit(&f) == G5_OK, "commit: %s", g5_error_msg());
    free(buf);

    /* read back a different, even split */
    MT_CHECK(io_file_open(MPI_COMM_WORLD, path, "g500-test", 1, &f) == G5_OK, "%s", g5_error_msg());
    first = m * ((rank + 1) % size) / size;
    count = m * ((rank + 1) % size + 1) / size - first;
    buf = malloc(sizeof(int64_t) * 2 * (count + 1));
    MT_CHECK(io_read_rows(f, "/e", H5T_NATIVE_INT64, first, count, buf) == G5_OK, "%s", g5_error_msg());
    for (int64_t i = 0; i < count && ok; i++)
        MT_CHECK(buf[2 * i] == first + i && buf[2 * i + 1] == -(first + i), "row %lld", (long long)(first + i));
    free(buf);
    io_file_close(&f);
    return ok;
}

static int one_ranks_bad_slab_fails_everywhere(void)
{
    int ok = 1, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_file *f;
    MT_CHECK(io_file_open(MPI_COMM_WORLD, path, "g500-test", 1, &f) == G5_OK, "%s", g5_error_msg());
    int64_t buf[8];
    /* the last rank asks for rows past the end */
    int64_t first = rank == size - 1 ? 100002 : 0, count = rank == size - 1 ? 4 : 2;
    int rc = io_read_rows(f, "/e", H5T_NATIVE_INT64, first, count, buf);
    MT_CHECK(rc == G5_ERR_FORMAT, "every rank sees the failure, got %d", rc);
    MT_CHECK(strstr(g5_error_msg(), "out of range") != NULL, "message: %s", g5_error_msg());
    io_file_close(&f);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long pid = getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/g500-mpi-io-%ld.h5", pid);
    MT_RUN(slabs_round_trip_across_ranks);
    MT_RUN(one_ranks_bad_slab_fails_everywhere);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
    return mt_finish();
}
