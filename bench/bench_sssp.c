/* SPDX-License-Identifier: MIT */
/*
 * bench_sssp.c - kernel 3 (SSSP) alone on an edges file, for A/B decisions
 * on a shared machine: several delta values are run alternately root by root
 * in one process (same graph, same moment), and besides wall time each root
 * reports the process CPU time (summed over threads and, via an allreduce,
 * over ranks), which moves far less than wall time under load.
 *
 * Reads the file (untimed), builds the graph cyclic (kern_graph_build),
 * samples ROOTS keys from the file's seed, then for root i and every delta d
 * runs kern_sssp_run and prints one line; at the end the median wall time,
 * median CPU time and harmonic-mean TEPS per delta (TEPS: the Graph500 edge
 * count of the search, as g500 run counts it). No validation here: g500 run
 * validates the same kernel.
 *
 * Usage: mpirun -np P bench_sssp EDGES.h5 ROOTS DELTA [DELTA ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "io.h"
#include "kern.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    if (argc < 4) {
        if (me == 0) fprintf(stderr, "usage: bench_sssp EDGES.h5 ROOTS DELTA [DELTA ...]\n");
        MPI_Finalize();
        return 2;
    }
    int want = atoi(argv[2]), nd = argc - 3, nroots = 0, rc;
    if (want < 1) want = 1;
    if (want > 64) want = 64;
    io_edges *ef = NULL;
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_sssp *s[16] = {0};
    int64_t *edges = NULL, *pl = NULL, roots[64];
    float *weights = NULL;
    float *dl = NULL;
    if (nd > 16) nd = 16;
    G5_TRY(io_edges_open(comm, argv[1], &ef));
    const io_edges_meta *meta = io_edges_get_meta(ef);
    int64_t N = meta->nvertices, first, count;
    io_block_range(meta->nedges, me, P, &first, &count);
    edges = malloc(((size_t)count + 1) * 2 * sizeof(int64_t));
    weights = malloc(((size_t)count + 1) * sizeof(float));
    G5_TRY(g5_agree(comm, edges && weights ? G5_OK : g5_error(G5_ERR_NOMEM, "bench: no memory")));
    G5_TRY(io_edges_read_slab(ef, first, count, edges, weights));
    G5_TRY(kern_dist_create_cyclic(comm, N, &d));
    G5_TRY(g5_agree(comm, kern_graph_build(comm, d, edges, weights, count, &g)));
    free(edges); edges = NULL;
    free(weights); weights = NULL;
    G5_TRY(kern_roots_sample(g, meta->seed, want, roots, &nroots));
    for (int j = 0; j < nd; j++) G5_TRY(kern_sssp_create(g, atof(argv[3 + j]), &s[j]));
    int64_t nl = kern_graph_nlocal(g);
    pl = malloc(((size_t)nl + 1) * sizeof(int64_t));
    dl = malloc(((size_t)nl + 1) * sizeof(float));
    G5_TRY(g5_agree(comm, pl && dl ? G5_OK : g5_error(G5_ERR_NOMEM, "bench: no memory")));
    double wall[16][64], cpu[16][64], inv[16] = {0};
    for (int i = 0; i < nroots; i++)
        for (int j = 0; j < nd; j++) {
            MPI_Barrier(comm);
            double c0 = cpu_now(), t0 = g5_now();
            rc = kern_sssp_run(s[j], roots[i]);
            double t = g5_now() - t0, c = cpu_now() - c0, tmax, csum;
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
            MPI_Allreduce(&c, &csum, 1, MPI_DOUBLE, MPI_SUM, comm);
            G5_TRY(g5_agree(comm, rc));
            kern_sssp_result(s[j], pl, dl);
            int64_t ne;
            G5_TRY(kern_reached_edges(g, pl, &ne));
            const kern_sssp_stats *st = kern_sssp_get_stats(s[j]);
            wall[j][i] = tmax;
            cpu[j][i] = csum;
            inv[j] += tmax / (double)ne;
            if (me == 0)
                printf("root %2d delta %-6s wall %.4f s cpu %.4f s  %.1f MTEPS  %lld buckets %lld rounds "
                       "%lld relax %lld msgs  relax %.3f exch %.3f apply %.3f other %.3f\n",
                       i, argv[3 + j], tmax, csum, ne / tmax / 1e6, (long long)st->buckets,
                       (long long)st->phases, (long long)st->relaxations, (long long)st->messages,
                       st->t_relax, st->t_exchange, st->t_apply, st->t_reduce);
        }
    for (int j = 0; j < nd && me == 0; j++)
        printf("delta %-6s median wall %.4f s  median cpu %.4f s  harmonic mean %.1f MTEPS\n",
               argv[3 + j], median(wall[j], nroots), median(cpu[j], nroots),
               nroots / inv[j] / 1e6);
out:
    if (rc && me == 0) fprintf(stderr, "bench_sssp: %s\n", g5_error_msg());
    for (int j = 0; j < nd; j++) kern_sssp_free(&s[j]);
    free(pl); free(dl); free(edges); free(weights);
    kern_graph_free(&g);
    kern_dist_free(&d);
    io_edges_close(&ef);
    MPI_Finalize();
    return rc ? 1 : 0;
}
