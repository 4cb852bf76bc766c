/* SPDX-License-Identifier: MIT */
/*
 * gen_rate.c - in-memory generation rate of the edge generator (no I/O):
 * gen_slab over all M edges of SCALE S in batches of 2^20 with the OpenMP
 * threads given by OMP_NUM_THREADS. Prints "edges/s seconds threads". Used
 * by bench/bench-gen.sh to show how generation scales with threads.
 *   build/bench/gen_rate SCALE
 */
#include "gen.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    gen_params p;
    gen g;
    MPI_Init(&argc, &argv);
    gen_params_default(&p, argc > 1 ? atoi(argv[1]) : 20);
    if (gen_params_check(&p) != 0) {
        fprintf(stderr, "usage: gen_rate SCALE (1..42)\n");
        MPI_Finalize();
        return 2;
    }
    gen_init(&g, &p);
    const int64_t batch = (int64_t)1 << 20;
    int64_t *e = malloc(sizeof(int64_t) * 2 * batch);
    float *w = malloc(sizeof(float) * batch);
    uint64_t c = 0;
    double t = MPI_Wtime();
    for (int64_t f = 0; f < g.nedges; f += batch)
        gen_slab(&g, f, g.nedges - f < batch ? g.nedges - f : batch, e, w, &c);
    t = MPI_Wtime() - t;
    printf("%.6g %.4f %d\n", (double)g.nedges / t, t, omp_get_max_threads());
    free(e);
    free(w);
    MPI_Finalize();
    return 0;
}
