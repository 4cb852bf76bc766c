/* SPDX-License-Identifier: MIT */
/*
 * bench_bfs_ab.c - kernel 2, two versions of bfs.c in one process on one
 * graph: the A/B that a shared machine cannot spoil. `make
 * bench-bfs-ab BFS_BASE=REV` compiles REV's kernels/bfs.c with its public
 * names prefixed A_ and this tree's with B_ (kernels/module.mk) and links
 * both here. The graph is built once (cyclic); for each repetition and each
 * Graph500 key both versions search, in alternating order (A first on even
 * key + repetition), so a burst of load from other processes hits both
 * alike. Prints, on rank 0, both harmonic means of the per-key median time
 * (Graph500 edge counts, which must agree between A and B: a mismatch is
 * reported) and the ratio B/A of the harmonic means.
 *
 *   mpirun -np P build/bench/bench_bfs_ab EDGES.h5 [nroots] [reps]
 *
 * No validation here (`g500 run` validates every key).
 */
#include "bench_graph.h"

int A_kern_bfs_create(kern_graph *g, kern_bfs **out);
void A_kern_bfs_free(kern_bfs **b);
int A_kern_bfs_run(kern_bfs *b, int64_t root, kern_levels *levels);
const int64_t *A_kern_bfs_parent(const kern_bfs *b);
int B_kern_bfs_create(kern_graph *g, kern_bfs **out);
void B_kern_bfs_free(kern_bfs **b);
int B_kern_bfs_run(kern_bfs *b, int64_t root, kern_levels *levels);
const int64_t *B_kern_bfs_parent(const kern_bfs *b);

int main(int argc, char **argv)
{
    int me, P, rc = G5_OK;
    if (!bench_start(&argc, &argv, 2, "bench_bfs_ab EDGES.h5 [nroots] [reps]", &me, &P))
        return 2;
    MPI_Comm comm = MPI_COMM_WORLD;
    int want = argc > 2 ? atoi(argv[2]) : 16, reps = argc > 3 ? atoi(argv[3]) : 5;
    if (want < 1 || want > 64) want = 16;
    if (reps < 1) reps = 1;

    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_bfs *a = NULL, *b = NULL;
    int64_t *nedge = NULL, roots[64];
    double *ta = NULL, *tb = NULL;
    int nroots = 0;
    rc = bench_graph_load(comm, argv[1], 0, want, "bench_bfs_ab", &d, &g, roots, &nroots);
    if (rc) goto out;
    if ((rc = A_kern_bfs_create(g, &a)) || (rc = B_kern_bfs_create(g, &b))) goto out;
    ta = malloc((size_t)reps * nroots * sizeof *ta);
    tb = malloc((size_t)reps * nroots * sizeof *tb);
    nedge = malloc((size_t)nroots * sizeof *nedge);
    rc = g5_agree(comm, ta && tb && nedge ? G5_OK : g5_error(G5_ERR_NOMEM, "bench_bfs_ab: no memory"));
    if (rc) goto out;
    int mismatch = 0;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < nroots; i++)
            for (int s = 0; s < 2; s++) {
                int use_a = (s == 0) == ((r + i) % 2 == 0);
                MPI_Barrier(comm);
                double t0 = g5_now();
                rc = use_a ? A_kern_bfs_run(a, roots[i], NULL) : B_kern_bfs_run(b, roots[i], NULL);
                double el = g5_now() - t0, mx;
                MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
                if ((rc = g5_agree(comm, rc))) goto out;
                (use_a ? ta : tb)[(size_t)i * reps + r] = mx;
                if (r == 0) {
                    int64_t n;
                    rc = kern_reached_edges(g, use_a ? A_kern_bfs_parent(a) : B_kern_bfs_parent(b), &n);
                    if (rc) goto out;
                    if (s == 0) nedge[i] = n;
                    else if (n != nedge[i]) mismatch++;
                }
            }
    double ia = 0, ib = 0;
    for (int i = 0; i < nroots; i++) {
        qsort(ta + (size_t)i * reps, (size_t)reps, sizeof *ta, bench_cmp_double);
        qsort(tb + (size_t)i * reps, (size_t)reps, sizeof *tb, bench_cmp_double);
        ia += ta[(size_t)i * reps + reps / 2] / (double)nedge[i];
        ib += tb[(size_t)i * reps + reps / 2] / (double)nedge[i];
    }
    if (me == 0) {
        printf("A %.1f MTEPS  B %.1f MTEPS  B/A %.3f  (%d keys x %d reps, %d ranks)\n",
               nroots / ia * 1e-6, nroots / ib * 1e-6, ia / ib, nroots, reps, P);
        if (mismatch) printf("MISMATCH: A and B reach different edge counts from %d keys\n", mismatch);
    }
    if (mismatch) rc = G5_ERR_VALIDATE;
out:
    if (rc && me == 0) fprintf(stderr, "bench_bfs_ab: %s\n", g5_error_msg());
    free(ta); free(tb); free(nedge);
    A_kern_bfs_free(&a);
    B_kern_bfs_free(&b);
    kern_graph_free(&g);
    kern_dist_free(&d);
    MPI_Finalize();
    return rc ? 1 : 0;
}
