/* SPDX-License-Identifier: MIT */
/*
 * rep_run.h - a run's results after the timed kernels: the statistics the
 * Graph500 reference code prints, the official text block and the JSON
 * result file.
 *
 * Errors: as everywhere in g500 (common.h): G5_OK or a negative G5_ERR_*
 * with a one-line message. Nothing here is collective: rank 0 calls it.
 */
#ifndef G500_REP_RUN_H
#define G500_REP_RUN_H

#include <stdint.h>
#include <stdio.h>

/* ---- provenance: what made the result ---------------------------------- */
typedef struct rep_provenance {
    const char *version;        /* git describe --always --dirty at build time */
    const char *commit;         /* full commit id at build time ("unknown" outside git) */
    const char *compiler;       /* compiler version and flags */
    char *mpi_library;          /* MPI_Get_library_version, first line */
    char *hdf5_version;
    char **hosts;               /* [nhosts] distinct processor names */
    int nhosts;
    int ranks, threads_per_rank;
    char *binding;              /* "none" or each rank's CPU list */
    char date_utc[32];          /* ISO 8601, at the start of the run */
    char *command_line;
} rep_provenance;

/* ---- the run's results --------------------------------------------------- */
#define REP_MAX_REASONS 8
typedef struct rep_run {
    int scale, edgefactor, nranks, nthreads;
    int nroots;
    int64_t *roots;                      /* [nroots], original ids */
    double generation_time;              /* edges file attribute generation_seconds, or -1 if absent */
    double construction_time;
    int bfs_done, sssp_done, validated;  /* validated=0 only with --no-validate; printed and in JSON */
    double *bfs_time, *sssp_time;        /* [nroots] seconds */
    int64_t *bfs_nedge, *sssp_nedge;     /* [nroots] */
    int64_t *sssp_rounds;                /* [nroots] rounds of each SSSP search (one
                                          * exchange and agreement each at P > 1), may be NULL */
    double *bfs_validate_time, *sssp_validate_time;  /* [nroots] */
    int bfs_validate_batch, sssp_validate_batch;     /* keys per validation pass (0: none) */
    int64_t validate_spill_bytes;   /* largest rank's scratch file of parked keys (0: none) */
    const char *placement;               /* "cyclic", "block" or the placement file path */
    const char *edges_path;
    int64_t nvertices, nedges, n_active; /* n_active: vertices with rows (all N for cyclic/block) */
    int64_t *comm_bytes;                 /* [nranks*nranks] bytes sent i->j in the timed kernels (bfs+sssp), may be NULL */
    int64_t *comm_hop_bytes;             /* [nranks*nranks] the same weighted by switch hops between the ranks' nodes, may be NULL */
    double *bfs_level_time; int64_t *bfs_level_frontier; int bfs_nlevels; /* per-level breakdown of root 0's BFS, may be NULL */
    char **bfs_level_dir;                /* per level "top-down" or "bottom-up", may be NULL */
    double read_time;                    /* untimed reads of the edge file (barrier-bracketed phases) */
    /* Kernel 1's parts (seconds; construction_time is their sum):
     * components and placement (in-process placement only, else 0), the
     * CSR build, and the search structures built from the graph
     * (kern_bfs_create, kern_sssp_create). */
    double k1_components, k1_placement, k1_build, k1_search;
    int placement_in_process;
    /* A run from a cached placement file: the recorded wall times and
     * rank counts of the components and partition stages that made it
     * (-1: not recorded) and strict_construction_time = construction_time
     * + both (-1 when either is unknown). */
    int placement_cached;
    double stage_components_seconds, stage_partition_seconds;
    int stage_components_ranks, stage_partition_ranks;
    double strict_construction_time;
    /* official: 64 validated keys, BFS and SSSP, all work from the edge
     * list inside kernel 1; otherwise the reasons, one phrase each. */
    int official;
    int nreasons;
    const char *reasons[REP_MAX_REASONS];
    uint64_t edges_content_id;
    /* the other inputs' ids: a placement file (cached) and the topology
     * (in-process placement or hop weights); NULL paths when not given */
    const char *placement_path, *topology_path;
    uint64_t placement_edges_content_id, placement_topology_id, topology_id;
    /* The run waited waited_seconds for another g500 kernel run of the same
     * checkout before it started (scripts/g500-lock), held by waited_for;
     * waited = 0: it did not wait. In the notes and the JSON. */
    int waited;
    double waited_seconds;
    const char *waited_for;
    const rep_provenance *provenance;    /* may be NULL */
    int64_t peak_rss_max;                /* max over ranks, bytes */
} rep_run;

/* ---- statistics ----------------------------------------------------------
 * As the reference code computes them (REFERENCE-NOTES.md section 1): min,
 * first quartile, median, third quartile, max, mean, stddev with n-1;
 * quartiles as the mean of the two middle order statistics
 * (x[(n-1)/4] + x[n/4]) / 2 on the sorted copy. n < 2: stddev 0. n <= 0:
 * every field NaN. x is only read. Not collective. */
typedef struct rep_stats { double min, firstquartile, median, thirdquartile, max, mean, stddev; } rep_stats;
void rep_stats_of(const double *x, int n, rep_stats *out);

/* TEPS statistics on the per-root seconds per edge s_i = time_i / nedge_i:
 * out->min = 1/max(s), firstquartile = 1/thirdquartile(s), median =
 * 1/median(s), thirdquartile = 1/firstquartile(s), max = 1/min(s); out->mean
 * and *hmean = 1/mean(s) (the harmonic mean of the TEPS); out->stddev and
 * *hstddev = stddev(s) / (mean(s)^2 sqrt(n-1)) (Norris 1940; 0 when n < 2).
 * hmean, hstddev may be NULL. Not collective. */
void rep_teps_stats(const double *time, const int64_t *nedge, int n, rep_stats *out,
                     double *hmean, double *hstddev);

/* ---- output ------------------------------------------------------------
 * The Graph500 output block: key names, order and number formats exactly as
 * the reference code v3.0.1 prints them (each key left-justified in 32
 * characters; %g, %.11g for nedge, %d for integers, "!  " before harmonic
 * means), the sssp lines only when r->sssp_done, the bfs lines only when
 * r->bfs_done. Unvalidated keys carry validate time -1, as the reference
 * prints them. Not collective (rank 0 calls it). Returns G5_OK or G5_ERR_IO. */
int rep_print_graph500(FILE *out, const rep_run *r);

/* The lines printed right after the block (not parsed by Graph500
 * tools): for a cached placement "strict_construction_time: <s>" first and
 * the stage times; kernel 1's parts; that the run waited for another
 * (r->waited); whether this is an official result
 * ("... not an official result: <reasons>"); the provenance. Not
 * collective. Returns G5_OK or G5_ERR_IO. */
int rep_print_run_notes(FILE *out, const rep_run *r);
/* Set r->official and r->reasons from the other fields (nroots,
 * validated, bfs_done, sssp_done, placement_cached,
 * strict_construction_time). Not collective. */
void rep_run_judge(rep_run *r);

/* The JSON result: every field of rep_run, the statistics of each
 * series, the per-root arrays (schema in docs/validation.md).
 * Written to "<path>.tmp.<pid>" and renamed to path when complete (a failure
 * leaves no file); path "-" is standard output. Missing parent directories
 * are created. Not collective (rank 0). Returns G5_OK, G5_ERR_IO or
 * G5_ERR_ARG. */
int rep_write_run_json(const char *path, const rep_run *r);

#endif
