/* SPDX-License-Identifier: MIT */
/*
 * bench_graph.h - the opening the kernel benchmarks share (bench_bfs.c,
 * bench_sssp.c): MPI start and usage line, then the graph
 * built once from an edges file as `g500 run` builds it (each rank reads
 * its block of the tuples with io_edges_read_slab, kern_graph_build on the
 * cyclic or block distribution, the tuples freed) and the Graph500 keys
 * sampled from the file's seed (kern_roots_sample). Header-only, static
 * inline: each benchmark is one program linked against libg500.a.
 */
#ifndef G5_BENCH_GRAPH_H
#define G5_BENCH_GRAPH_H

#include "common.h"
#include "io.h"
#include "kern.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* qsort order of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* MPI_Init, this rank and the number of ranks; with fewer than `need`
 * arguments (the program name counted) rank 0 prints `usage`, MPI is
 * finalized and 0 is returned: main then returns 2. Returns 1 otherwise. */
static inline int bench_start(int *argc, char ***argv, int need, const char *usage, int *me,
                              int *nranks)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    if (*argc >= need)
        return 1;
    if (*me == 0)
        fprintf(stderr, "usage: %s\n", usage);
    MPI_Finalize();
    return 0;
}

/* Collective: build the graph of the edges file `path` on the block
 * distribution (block != 0) or the cyclic one, and sample up to `want` keys
 * (at most 64) into roots[*nroots]. `who` names the program in the
 * out-of-memory message. Out: *d and *g, freed by the caller with
 * kern_graph_free and kern_dist_free (also on failure: what was made is
 * there). The status is agreed on every rank. */
static inline int bench_graph_load(MPI_Comm comm, const char *path, int block, int want,
                                   const char *who, kern_dist **d, kern_graph **g,
                                   int64_t *roots, int *nroots)
{
    int me, p, rc;
    io_edges *ef = NULL;
    int64_t *edges = NULL;
    float *w = NULL;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    *nroots = 0;
    if ((rc = io_edges_open(comm, path, &ef)))
        goto out;
    const io_edges_meta *meta = io_edges_get_meta(ef);
    int64_t first, count;
    g5_range_split(meta->nedges, me, p, &first, &count);
    edges = malloc(((size_t)count + 1) * 2 * sizeof(int64_t));
    w = malloc(((size_t)count + 1) * sizeof(float));
    rc = g5_agree(comm, edges && w ? G5_OK : g5_error(G5_ERR_NOMEM, "%s: no memory", who));
    if (rc)
        goto out;
    if ((rc = io_edges_read_slab(ef, first, count, edges, w)))
        goto out;
    rc = block ? kern_dist_create_block(comm, meta->nvertices, d)
               : kern_dist_create_cyclic(comm, meta->nvertices, d);
    if ((rc = g5_agree(comm, rc)))
        goto out;
    if ((rc = g5_agree(comm, kern_graph_build(comm, *d, edges, w, count, g))))
        goto out;
    free(edges);
    edges = NULL;
    free(w);
    w = NULL;
    rc = kern_roots_sample(*g, meta->seed, want, roots, nroots);
out:
    free(edges);
    free(w);
    io_edges_close(&ef);
    return rc;
}

#endif
