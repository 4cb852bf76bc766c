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
 * validates the same kernel. Each root's line also gives SSSP's memory, the
 * maximum over ranks: the most bytes its buckets and lists held in a round
 * ("lists"), what its workspace holds after the search ("held") and its
 * ghost slots (distinct remote targets of a rank's rows).
 *
 * Usage: mpirun -np P bench_sssp EDGES.h5 ROOTS DELTA [DELTA ...]
 */
#include "bench_graph.h"

#include <string.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int me, P;
    if (!bench_start(&argc, &argv, 4, "bench_sssp EDGES.h5 ROOTS DELTA [DELTA ...]", &me, &P))
        return 2;
    MPI_Comm comm = MPI_COMM_WORLD;
    int want = atoi(argv[2]), nd = argc - 3, nroots = 0, rc;
    if (want < 1) want = 1;
    if (want > 64) want = 64;
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_sssp *s[16] = {0};
    int64_t *pl = NULL, roots[64];
    float *dl = NULL;
    if (nd > 16) nd = 16;
    G5_TRY(bench_graph_load(comm, argv[1], 0, want, "bench_sssp", &d, &g, roots, &nroots));
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
            int64_t mem[3] = {st->lists_peak, st->held, st->ghosts}, memmax[3];
            MPI_Allreduce(mem, memmax, 3, MPI_INT64_T, MPI_MAX, comm);
            /* the ranks' relaxation seconds, lowest and highest: a rank
             * that relaxes less waits in the exchange for the others */
            double rx[2] = {-st->t_relax, st->t_relax}, rxm[2];
            MPI_Allreduce(rx, rxm, 2, MPI_DOUBLE, MPI_MAX, comm);
            wall[j][i] = tmax;
            cpu[j][i] = csum;
            inv[j] += tmax / (double)ne;
            if (me == 0)
                printf("root %2d delta %-6s wall %.4f s cpu %.4f s  %.1f MTEPS  %lld buckets %lld rounds "
                       "%lld relax %lld msgs  relax %.3f (ranks %.3f-%.3f) exch %.3f apply %.3f "
                       "other %.3f  lists %.1f MiB held %.1f MiB ghosts %lld\n",
                       i, argv[3 + j], tmax, csum, ne / tmax / 1e6, (long long)st->buckets,
                       (long long)st->phases, (long long)st->relaxations, (long long)st->messages,
                       st->t_relax, -rxm[0], rxm[1], st->t_exchange, st->t_apply, st->t_reduce,
                       memmax[0] / 1048576.0, memmax[1] / 1048576.0, (long long)memmax[2]);
        }
    for (int j = 0; j < nd && me == 0; j++)
        printf("delta %-6s median wall %.4f s  median cpu %.4f s  harmonic mean %.1f MTEPS\n",
               argv[3 + j], median(wall[j], nroots), median(cpu[j], nroots),
               nroots / inv[j] / 1e6);
out:
    if (rc && me == 0) fprintf(stderr, "bench_sssp: %s\n", g5_error_msg());
    for (int j = 0; j < nd; j++) kern_sssp_free(&s[j]);
    free(pl); free(dl);
    kern_graph_free(&g);
    kern_dist_free(&d);
    MPI_Finalize();
    return rc ? 1 : 0;
}
