/* SPDX-License-Identifier: MIT */
/*
 * bench_bfs.c - kernel 2 alone, for A/B comparisons and profiles: read an
 * edges file, build the graph once (cyclic or block), sample the Graph500
 * keys as `g500 run` does, then run BFS from every key `reps` times.
 * Prints, on rank 0, one line per key (median time over the repetitions and
 * TEPS with the Graph500 edge count), the harmonic mean TEPS over the keys
 * and the per-level breakdown of key 0 (last repetition).
 *
 *   mpirun -np P build/bench/bench_bfs EDGES.h5 [cyclic|block] [nroots] [reps]
 *
 * No validation here: `g500 run` validates every key; this program only
 * times, so that `valgrind --tool=callgrind --toggle-collect=kern_bfs_run`
 * counts the instructions of the search and nothing else.
 */
#include "bench_graph.h"

#include <string.h>

int main(int argc, char **argv)
{
    int me, P, rc = G5_OK;
    if (!bench_start(&argc, &argv, 2, "bench_bfs EDGES.h5 [cyclic|block] [nroots] [reps]", &me, &P))
        return 2;
    MPI_Comm comm = MPI_COMM_WORLD;
    const char *dist = argc > 2 ? argv[2] : "cyclic";
    int want = argc > 3 ? atoi(argv[3]) : 16, reps = argc > 4 ? atoi(argv[4]) : 3;
    if (want < 1 || want > 64) want = 16;
    if (reps < 1) reps = 1;

    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_bfs *b = NULL;
    kern_levels lv = {0};
    int64_t roots[64];
    double *t = NULL;
    int nroots = 0;
    rc = bench_graph_load(comm, argv[1], strcmp(dist, "block") == 0, want, "bench_bfs", &d, &g,
                          roots, &nroots);
    if (rc) goto out;
    if ((rc = kern_bfs_create(g, &b))) goto out;
    t = malloc((size_t)reps * sizeof *t);
    if (!t) { rc = G5_ERR_NOMEM; goto out; }
    double inv = 0, tsum = 0;
    for (int i = 0; i < nroots; i++) {
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(comm);
            double t0 = g5_now();
            rc = kern_bfs_run(b, roots[i], i == 0 ? &lv : NULL);
            double el = g5_now() - t0;
            MPI_Allreduce(&el, &t[r], 1, MPI_DOUBLE, MPI_MAX, comm);
            if ((rc = g5_agree(comm, rc))) goto out;
        }
        qsort(t, (size_t)reps, sizeof *t, bench_cmp_double);
        int64_t nedge = 0;
        if ((rc = kern_reached_edges(g, kern_bfs_parent(b), &nedge))) goto out;
        double med = t[reps / 2];
        inv += med / (double)nedge;
        tsum += med;
        if (me == 0)
            printf("root %2d %9lld  median %.6f s  min %.6f s  %.1f MTEPS  nedge %lld\n", i,
                   (long long)roots[i], med, t[0], nedge / med * 1e-6, (long long)nedge);
    }
    if (me == 0) {
        printf("harmonic_mean_MTEPS %.1f  total_median_time %.4f s  ranks %d\n",
               nroots / inv * 1e-6, tsum, P);
        for (int l = 0; l < lv.n; l++)
            printf("level %d %s frontier %lld %.6f s\n", l, lv.bottom_up[l] ? "bottom-up" : "top-down",
                   (long long)lv.frontier[l], lv.time[l]);
    }
out:
    if (rc && me == 0) fprintf(stderr, "bench_bfs: %s\n", g5_error_msg());
    kern_levels_free(&lv);
    free(t);
    kern_bfs_free(&b);
    kern_graph_free(&g);
    kern_dist_free(&d);
    MPI_Finalize();
    return rc ? 1 : 0;
}
