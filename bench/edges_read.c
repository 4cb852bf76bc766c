/* SPDX-License-Identifier: MIT */
/*
 * edges_read.c - time to read a whole edges file with the checked reader
 * (io_edges_open + io_edges_read_slab of each rank's g5_range_split slab in
 * batches of 2^20 rows, edges and weights), as every later stage reads it.
 * Prints "seconds edges/s" on rank 0. Used by bench/bench-gen.sh.
 *   mpirun -np P build/bench/edges_read FILE
 */
#include "common.h"
#include "io.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, rc;
    io_edges *e = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    rc = io_edges_open(MPI_COMM_WORLD, argc > 1 ? argv[1] : "", &e);
    if (rc == G5_OK) {
        int64_t m = io_edges_get_meta(e)->nedges, first, count, batch = (int64_t)1 << 20, rounds;
        g5_range_split(m, rank, size, &first, &count);
        int64_t *ed = malloc(sizeof(int64_t) * 2 * batch);
        float *w = malloc(sizeof(float) * batch);
        rounds = (m / size + 1 + batch - 1) / batch;
        for (int64_t k = 0; k < rounds && rc == G5_OK; k++) {
            int64_t off = k * batch < count ? k * batch : count;
            int64_t n = count - off < batch ? count - off : batch;
            rc = io_edges_read_slab(e, n ? first + off : 0, n, ed, w);
        }
        free(ed);
        free(w);
        io_edges_close(&e);
    }
    t = MPI_Wtime() - t;
    if (rank == 0) {
        if (rc != G5_OK)
            fprintf(stderr, "edges_read: %s\n", g5_error_msg());
        else
            printf("%.3f\n", t);
    }
    MPI_Finalize();
    return rc == G5_OK ? 0 : 1;
}
