/* SPDX-License-Identifier: MIT */
/*
 * run.h - the parts of `g500 run` (run_cmd.c): kernel 1 in its forms
 * (run_kernel1.c), the timed search loop shared by BFS and SSSP
 * (run_search.c) and the run's provenance (run_provenance.c). Internal to
 * cli/.
 *
 * Kernel 1's clock: each part runs between two barriers and is timed on
 * every rank from the first to the second, so its time is the critical
 * path of that part (the slowest rank, waits included); reads of the edge
 * list run in their own barrier-bracketed phases and are left out (the
 * spec lets reads go untimed; waits for other ranks never count as reads).
 * construction_time is the sum of the parts.
 */
#ifndef G500_CLI_RUN_H
#define G500_CLI_RUN_H

#include <mpi.h>
#include <stdint.h>

#include "io.h"
#include "kern.h"
#include "kern_validate.h"
#include "rep_run.h"

typedef struct run_opts {
    const char *placement, *json, *topology;
    int roots, skip_sssp, no_validate, ranks_per_node;
    int force_size;   /* skip the memory check (g5_memory_check) */
    const char *spill; /* directory of the scratch files keys are parked in (NULL: none) */
    int64_t seed;
    double delta;
} run_opts;

/* Kernel 1's result: the distribution, the graph, the rank-to-node map for
 * hop-weighted bytes (NULL without a topology) and the parts' seconds. */
typedef struct run_k1 {
    kern_dist *dist;
    kern_graph *graph;
    int *rank_node, *node_hops, nnodes;
    int in_process;                /* components and placement computed here */
    int64_t ncomponents;           /* in_process */
    double t_components, t_placement, t_build, t_read;
    /* a cached placement file's recorded stage times (-1: not recorded) */
    double stage_components, stage_partition;
    int stage_components_ranks, stage_partition_ranks;
    /* input ids: the cached placement file's, the topology's (0: none) */
    uint64_t placement_edges_content_id, placement_topology_id, topology_id;
} run_k1;

/* Collective. A part of kernel 1: run_part_start is a barrier, then the
 * clock; run_part_stop a barrier, then the seconds since t0 (the part's
 * critical path, the same on every rank). */
double run_part_start(MPI_Comm comm);
double run_part_stop(MPI_Comm comm, double t0);

/* Collective. Kernel 1 for o->placement: "cyclic", "block" (streamed from
 * the file), "components" (components, placement and construction from
 * the edge list in this process, needs o->topology) or a placement file
 * (streamed). Fills k (free with run_k1_free). */
int run_kernel1(MPI_Comm comm, const run_opts *o, io_edges *ef, run_k1 *k);
void run_k1_free(run_k1 *k);

/* One search kernel as the timed loop drives it. run is timed; reached
 * (the TEPS edge count) and keep are not: keep hands the last search's
 * result, in original ids, to the validation batch (kern_vbatch_add).
 * With spill, each key is parked there once kept (parked[i]: its offset)
 * and validated after the searches (run_validate_parked). */
typedef struct run_search {
    const char *name;                                          /* "BFS", "SSSP" */
    int sssp;
    int64_t nvertices, nedges;
    io_edges *ef;                                              /* the edges validated against */
    int (*run)(void *ctx, int key, int64_t root);
    int (*reached)(void *ctx, int64_t *nedge);
    int (*keep)(void *ctx, kern_vbatch *b, int64_t root);
    void *ctx;
    io_spill *spill;                                           /* NULL: validate beside the graph */
    int64_t *parked;                                           /* [nroots] with spill */
} run_search;

/* The memory ceiling the validation batch is sized under (run_search.c). */
#define RUN_BYTES_PER_EDGE 16

/* Collective. The keys per validation pass of kernel `name` (run_search.c):
 * 1..min(64, nroots), a multiple of 8 from 8 up unless it is nroots, the
 * same on every rank; said on stderr. */
int run_validate_batch_size(MPI_Comm comm, const char *name, int64_t nvertices, int64_t nedges,
                            int nroots);

/* Collective. For each key: barrier, timed run (maximum over ranks), then
 * untimed the edge count and (validate != 0) validation in batches of
 * keys, one pass over the edges per batch, each validator's count equal to
 * the kernels'; progress lines in the reference's words on rank 0. Out:
 * time, nedge, validate_time ([nroots]; a key's own part plus its share
 * of its batch's pass; -1 per key when not validated, as the reference
 * prints), *batch the keys per pass (0: not validated). *invalid = 1 when
 * a validation failed (the status is then G5_ERR_VALIDATE on every rank,
 * with the message of the first failing key). */
int run_timed_loop(MPI_Comm comm, const run_search *s, const int64_t *roots, int nroots,
                   int validate, double *time, int64_t *nedge, double *validate_time, int *invalid,
                   int *batch);

/* Collective. Validate the keys run_timed_loop parked in s->spill, after
 * the searches (the graph released): batches sized as
 * run_validate_batch_size does with the memory now free, as even as the
 * keys allow, one pass over the edges each. validate_time[i] adds the
 * key's reading back and its share of the pass; *batch the keys per pass;
 * *invalid and the status as run_timed_loop. */
int run_validate_parked(MPI_Comm comm, const run_search *s, const int64_t *roots, int nroots,
                        const int64_t *nedge, double *validate_time, int *invalid, int *batch);

/* Collective. Fill p (strings owned by p; free with run_provenance_free):
 * version, compiler, MPI and HDF5 library versions, distinct host names,
 * ranks, threads, binding, UTC date, the command line (argv of the run
 * subcommand, prefixed with "g500"). */
int run_provenance(MPI_Comm comm, int argc, char **argv, rep_provenance *p);
void run_provenance_free(rep_provenance *p);

#endif
