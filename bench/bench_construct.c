/* SPDX-License-Identifier: MIT */
/*
 * bench_construct.c - kernel 1 (construction) alone, on an edges file:
 *
 *   mpirun -np P bench_construct EDGES.h5 [file|memory] [reps] [chunk] [DIST]
 *
 * DIST: cyclic (default), block, or a placement file from `g500 partition`
 * made for P ranks (its relabelling is part of the timed routing).
 * file:   kern_graph_build_file, streaming the file twice per build (the
 *         way `g500 run` builds);
 * memory: this rank's block is read once (untimed), then kern_graph_build.
 * Each build is preceded by a barrier; per build it prints (rank 0) the
 * elapsed time without the reads (max over ranks), the phases of rank 0
 * (count, fill, merge), the process CPU seconds without the reads summed
 * over ranks (a figure that does not grow when the machine is shared), and
 * at the end the peak RSS per rank (max) and per input edge.
 */
#include "common.h"
#include "io.h"
#include "kern.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int provided, P, me, rc;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    if (argc < 2) {
        if (me == 0)
            fprintf(stderr, "usage: bench_construct EDGES.h5 [file|memory] [reps] [chunk] "
                    "[cyclic|block|PLACEMENT.h5]\n");
        MPI_Finalize();
        return 2;
    }
    int memory = argc > 2 && strcmp(argv[2], "memory") == 0;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    int64_t chunk = argc > 4 ? atoll(argv[4]) : 0;
    const char *dist = argc > 5 ? argv[5] : "cyclic";
    io_edges *ef = NULL;
    kern_dist *d = NULL;
    int64_t *edges = NULL;
    float *weights = NULL;
    if ((rc = io_edges_open(comm, argv[1], &ef))) goto out;
    const io_edges_meta *meta = io_edges_get_meta(ef);
    if (strcmp(dist, "cyclic") == 0) rc = kern_dist_create_cyclic(comm, meta->nvertices, &d);
    else if (strcmp(dist, "block") == 0) rc = kern_dist_create_block(comm, meta->nvertices, &d);
    else rc = kern_dist_load_placement(comm, dist, meta->nvertices, &d, NULL, NULL, NULL);
    if ((rc = g5_agree(comm, rc))) goto out;
    int64_t first, count;
    g5_range_split(meta->nedges, me, P, &first, &count);
    if (memory) {
        edges = malloc(((size_t)count + 1) * 2 * sizeof(int64_t));
        weights = malloc(((size_t)count + 1) * sizeof(float));
        rc = g5_agree(comm, edges && weights ? G5_OK : g5_error(G5_ERR_NOMEM, "cannot allocate"));
        if (rc || (rc = io_edges_read_slab(ef, first, count, edges, weights))) goto out;
    }
    if (me == 0)
        printf("# SCALE %d, %d ranks x %d threads, %s, chunk %lld, distribution %s\n"
               "# rep  elapsed_s  count_s  fill_s  merge_s  cpu_s(all ranks)  read_s\n",
               meta->scale, P, omp_get_max_threads(), memory ? "memory" : "file", (long long)chunk, dist);
    for (int r = 0; r < reps; r++) {
        kern_graph *g = NULL;
        double rd = 0, ph[6] = {0};
        MPI_Barrier(comm);
        double t0 = g5_now();
        if (memory) rc = kern_graph_build_ex(comm, d, edges, weights, count, chunk, -1, &g);
        else rc = kern_graph_build_file(comm, d, ef, chunk, &rd, &g);
        double t = g5_now() - t0 - rd, tm, cpu;
        MPI_Allreduce(&t, &tm, 1, MPI_DOUBLE, MPI_MAX, comm);
        if ((rc = g5_agree(comm, rc))) goto out;
        kern_graph_build_times(g, ph);
        MPI_Allreduce(&ph[4], &cpu, 1, MPI_DOUBLE, MPI_SUM, comm);
        if (me == 0)
            printf("%5d  %9.3f  %7.3f  %6.3f  %7.3f  %16.3f  %6.2f\n", r, tm, ph[0], ph[1], ph[2], cpu, ph[3]);
        if (r == reps - 1) {
            /* entries before merging: twice the non-self-loop tuples */
            int64_t nl = kern_graph_nlocal(g), tuples = 0;
            int64_t *all = calloc((size_t)nl + 1, sizeof(int64_t));
            rc = g5_agree(comm, all ? kern_reached_edges(g, all, &tuples) : G5_ERR_NOMEM);
            free(all);
            if (rc) goto out;
            if (me == 0)
                printf("# entries per input edge: %.4f before merging, %.4f after; graph %.2f bytes "
                       "per input edge on rank 0 x %d ranks\n", 2.0 * tuples / meta->nedges,
                       (double)kern_graph_nnz_global(g) / meta->nedges,
                       (double)kern_graph_bytes(g) * P / meta->nedges, P);
        }
        kern_graph_free(&g);
    }
    int64_t rss = g5_peak_rss(), mx;
    MPI_Allreduce(&rss, &mx, 1, MPI_INT64_T, MPI_MAX, comm);
    if (me == 0)
        printf("# peak RSS %.1f MiB per rank (max) = %.2f bytes per input edge\n", mx / 1048576.0,
               (double)mx * P / (double)meta->nedges);
out:
    if (rc && me == 0) fprintf(stderr, "bench_construct: %s\n", g5_error_msg());
    free(edges);
    free(weights);
    kern_dist_free(&d);
    io_edges_close(&ef);
    MPI_Finalize();
    return rc ? 1 : 0;
}
