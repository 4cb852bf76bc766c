/* SPDX-License-Identifier: MIT */
/*
 * run_cmd.c - `g500 run`: the timed Graph500 kernels on an edges file.
 *
 *   mpirun -np P g500 run EDGES.h5 [--placement cyclic|block|components|FILE.h5]
 *       [--topology FILE [--ranks-per-node K]] [--roots 64] [--seed N]
 *       [--delta D] [--skip-sssp] [--no-validate] [--spill DIR] [--json PATH]
 *
 * Steps, as the Graph500 reference driver: kernel 1 (run_kernel1.c: the
 * graph and everything built from it before the first search, including
 * the BFS and SSSP structures, timed as the critical path with the reads
 * left out; with --placement components also the components and the
 * placement); the search keys; kernel 2 (BFS) then kernel 3 (SSSP) through
 * one timed loop (run_search.c), validation outside the timer; the
 * official output block on stdout, then the notes (strict figure of a
 * cached placement, kernel 1's parts, official or not and why, provenance)
 * and the JSON result. A failed validation prints the validator's message,
 * "No results printed for invalid run." and exits non-zero on every rank.
 *
 * Threads: OpenMP's own setting (OMP_NUM_THREADS) when given; otherwise the
 * cores of the node divided among the ranks sharing it, so oversubscribed
 * runs do not spin 2x the cores.
 *
 * Memory: one search workspace at a time (BFS's is freed before SSSP's is
 * made). At one rank with cyclic or block ids the local results are the
 * validator's input as they are; otherwise they are converted into block
 * arrays in original ids. Idle kernel memory is lent between searches:
 * BFS's queues hold the validator's words; at P > 1 SSSP's ghost words
 * (kern_sssp_scratch) hold the block results when they fit, and SSSP's
 * parents, once converted, the validator's words. Validated results wait
 * in a batch of compact records sized to the memory left (run_search.c);
 * with --spill DIR they wait in scratch files instead and are validated
 * after the searches, the graph's rows released first.
 */
#include "cli.h"
#include "common.h"
#include "io.h"
#include "kern.h"
#include "kern_validate.h"
#include "rep_run.h"
#include "run.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static void pick_threads(MPI_Comm comm)
{
    if (getenv("OMP_NUM_THREADS")) return;
    int local = g5_node_ranks(comm);
    int cores = omp_get_num_procs() / local;
    omp_set_num_threads(cores < 1 ? 1 : cores);
}

/* 1: --help printed; G5_OK; or a usage error. */
static int parse_opts(int argc, char **argv, run_opts *o, const char **edges_path)
{
    const g5_opt opts[] = {
        {"placement", 'p', G5_OPT_STRING, &o->placement, "cyclic|block|components|FILE",
         "vertex distribution: cyclic (v mod P), block, components (computed inside kernel 1, "
         "needs --topology) or a cached placement file"},
        {"roots", 0, G5_OPT_INT, &o->roots, "K", "number of search keys (at most 64 per the spec)"},
        {"seed", 0, G5_OPT_INT64, &o->seed, "N", "seed of the search keys (-1: the edges file's seed)"},
        {"delta", 0, G5_OPT_DOUBLE, &o->delta, "D", "delta-stepping bucket width"},
        {"skip-sssp", 0, G5_OPT_FLAG, &o->skip_sssp, NULL, "run BFS only (not an official result)"},
        {"no-validate", 0, G5_OPT_FLAG, &o->no_validate, NULL,
         "skip validation (validate times -1, not an official result)"},
        {"json", 'j', G5_OPT_STRING, &o->json, "PATH", "write the JSON result to PATH ('-': standard output, instead of the block)"},
        {"topology", 't', G5_OPT_STRING, &o->topology, "FILE",
         "topology (Slurm topology.conf or tleaf): placement with components, hop-weighted bytes"},
        {"ranks-per-node", 'k', G5_OPT_INT, &o->ranks_per_node, "K",
         "ranks per node with --topology (0: map ranks by host name)"},
        {"force-size", 0, G5_OPT_FLAG, &o->force_size, NULL,
         "go on even if the run looks larger than the memory"},
        {"spill", 0, G5_OPT_STRING, &o->spill, "DIR",
         "park each key's validation records in a scratch file in DIR (a node-local disk; "
         "about 13 bytes per vertex and key, removed at exit) and validate after the searches "
         "with the graph freed: fewer passes over the edges when memory holds few keys"},
    };
    const int nopts = sizeof opts / sizeof opts[0];
    const char *pos[2];
    int npos = 0;
    int rc = cli_parse(argc, argv, opts, nopts, pos, 2, &npos,
                       "mpirun -np P g500 run EDGES.h5 [options]",
                       "Timed Graph500 kernels: construction, BFS and SSSP from up to 64 "
                       "keys, validated, official output block and JSON.",
                       1, "expected one edges file (see --help)");
    if (rc == 1)
        return 1;
    if (rc == G5_OK && (o->roots < 1 || o->roots > 64))
        rc = g5_error(G5_ERR_ARG, "--roots must be in [1, 64], not %d", o->roots);
    if (rc == G5_OK && !(o->delta > 0)) rc = g5_error(G5_ERR_ARG, "--delta must be positive");
    if (rc == G5_OK && o->seed < -1)
        rc = g5_error(G5_ERR_ARG, "--seed must be >= 0, or -1 for the edges file's seed, not %lld",
                      (long long)o->seed);
    if (rc == G5_OK && o->ranks_per_node < 0) rc = g5_error(G5_ERR_ARG, "--ranks-per-node must be >= 0");
    if (rc == G5_OK && strcmp(o->placement, "components") == 0 && !o->topology)
        rc = g5_error(G5_ERR_ARG, "--placement components needs --topology FILE");
    *edges_path = npos > 0 ? pos[0] : NULL;
    return rc;
}

/* ---- the searches as the timed loop drives them ---- */
typedef struct search_state {
    MPI_Comm comm;
    kern_graph *g;
    io_edges *ef;
    int validate;
    int same_ids;          /* local results are already in original ids */
    int64_t nlocal, bcount;
    kern_bfs *bfs;
    kern_levels *levels;   /* BFS key 0's levels */
    kern_sssp *sssp;
    int64_t *block_parent; /* [bcount + 1] results in original ids (!same_ids) */
    float *block_dist;     /* [bcount + 1], after block_parent's words */
    int block_owned;       /* block_parent malloc'ed here (else SSSP's scratch) */
    float *dist;           /* SSSP: local distances of the last search */
    int64_t *parent;       /* SSSP: local parents of the last search */
    int64_t *rounds;       /* [nroots] SSSP rounds of each search */
} search_state;

static int bfs_run(void *ctx, int key, int64_t root)
{
    search_state *s = ctx;
    return kern_bfs_run(s->bfs, root, key == 0 ? s->levels : NULL);
}

static int bfs_reached(void *ctx, int64_t *nedge)
{
    search_state *s = ctx;
    return kern_reached_edges(s->g, kern_bfs_parent(s->bfs), nedge);
}

static int bfs_keep(void *ctx, kern_vbatch *b, int64_t root)
{
    search_state *s = ctx;
    const int64_t *parent = kern_bfs_parent(s->bfs);
    if (!s->same_ids) {
        int rc = kern_to_original(s->g, parent, NULL, s->block_parent, NULL);
        if (rc != G5_OK) return rc;
        parent = s->block_parent;
    }
    size_t wbytes;
    void *work = kern_bfs_scratch(s->bfs, &wbytes);
    return kern_vbatch_add(b, root, parent, NULL, work, wbytes);
}

static int sssp_run(void *ctx, int key, int64_t root)
{
    search_state *s = ctx;
    int rc = kern_sssp_run(s->sssp, root);
    s->rounds[key] = kern_sssp_get_stats(s->sssp)->phases;
    return rc;
}

static int sssp_reached(void *ctx, int64_t *nedge)
{
    search_state *s = ctx;
    free(s->dist);
    s->dist = NULL;
    if (s->validate) {     /* the validator takes the distances */
        s->dist = malloc(((size_t)s->nlocal + 1) * sizeof(float));
        if (g5_agree(s->comm, s->dist ? G5_OK : g5_error(G5_ERR_NOMEM, "run: cannot allocate distances")))
            return G5_ERR_NOMEM;
    }
    s->parent = kern_sssp_take_result(s->sssp, s->dist);
    return kern_reached_edges(s->g, s->parent, nedge);
}

static int sssp_keep(void *ctx, kern_vbatch *b, int64_t root)
{
    search_state *s = ctx;
    int rc;
    if (s->same_ids) {
        rc = kern_vbatch_add(b, root, s->parent, s->dist, NULL, 0);
    } else if ((rc = kern_to_original(s->g, s->parent, s->dist, s->block_parent, s->block_dist)) == G5_OK) {
        free(s->dist);
        s->dist = NULL;
        /* the parents, converted, are idle until the next search */
        rc = kern_vbatch_add(b, root, s->block_parent, s->block_dist, s->parent,
                             ((size_t)s->nlocal + 1) * sizeof(int64_t));
    }
    free(s->dist);         /* kept in the batch's records */
    s->dist = NULL;
    return rc;
}

/* Collective. The result arrays in original ids for validation (none
 * when the local results are already in original ids); SSSP's go in its
 * idle scratch when they fit. */
static int block_arrays(search_state *s, int for_sssp)
{
    if (s->block_owned)
        free(s->block_parent);
    s->block_parent = NULL;
    s->block_dist = NULL;
    s->block_owned = 0;
    if (s->same_ids)
        return G5_OK;
    /* BFS: parents only; SSSP: parents, then distances */
    size_t need = ((size_t)s->bcount + 1) * (sizeof(int64_t) + (for_sssp ? sizeof(float) : 0)), sbytes = 0;
    void *scratch = for_sssp ? kern_sssp_scratch(s->sssp, &sbytes) : NULL;
    if (scratch && sbytes >= need) {
        s->block_parent = scratch;
    } else {
        s->block_parent = malloc(need);
        s->block_owned = 1;
    }
    if (s->block_parent && for_sssp)
        s->block_dist = (float *)(s->block_parent + s->bcount + 1);
    return g5_agree(s->comm, s->block_parent ? G5_OK
                    : g5_error(G5_ERR_NOMEM, "run: cannot allocate the result arrays"));
}

static void progress_rss(MPI_Comm comm, const char *when, int64_t nedges)
{
    int P;
    int64_t rss = g5_peak_rss(), mx;
    MPI_Comm_size(comm, &P);
    MPI_Allreduce(&rss, &mx, 1, MPI_INT64_T, MPI_MAX, comm);
    g5_progress("peak RSS %s (max over ranks) %.1f MiB = %.1f bytes per input edge", when,
                mx / 1048576.0, (double)mx * P / (double)nedges);
}

/* Collective. Kernels 2 and 3 for every key, each search structure built
 * (and timed into kernel 1: rep->k1_search) just before its searches. */
static int run_searches(MPI_Comm comm, const run_opts *o, kern_graph *g, io_edges *ef,
                        const int64_t *roots, kern_levels *levels, io_spill *spill,
                        int64_t (*parked)[64], rep_run *rep, int *invalid)
{
    int P, me, rc;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    const int validate = !o->no_validate;
    int64_t bfirst;
    search_state s = {.comm = comm, .g = g, .ef = ef, .validate = validate,
                      .same_ids = kern_ids_are_original(g),
                      .nlocal = kern_graph_nlocal(g), .levels = levels, .rounds = rep->sssp_rounds};
    g5_range_split(rep->nvertices, me, P, &bfirst, &s.bcount);
    if (!validate)
        s.same_ids = 1;   /* nothing to convert */

    double t0 = run_part_start(comm);
    rc = kern_bfs_create(g, &s.bfs);
    rep->k1_search += run_part_stop(comm, t0);
    G5_TRY(g5_agree(comm, rc));
    G5_TRY(block_arrays(&s, 0));
    kern_comm_reset(g);
    const run_search bfs = {"BFS", 0, rep->nvertices, rep->nedges, ef, bfs_run, bfs_reached,
                            bfs_keep, &s, spill, parked[0]};
    G5_TRY(run_timed_loop(comm, &bfs, roots, rep->nroots, validate, rep->bfs_time, rep->bfs_nedge,
                          rep->bfs_validate_time, invalid, &rep->bfs_validate_batch));
    rep->bfs_done = 1;
    progress_rss(comm, "after the BFS searches", rep->nedges);
    kern_bfs_free(&s.bfs);
    if (o->skip_sssp)
        goto out;

    t0 = run_part_start(comm);
    rc = kern_sssp_create(g, o->delta, &s.sssp);
    rep->k1_search += run_part_stop(comm, t0);
    G5_TRY(g5_agree(comm, rc));
    G5_TRY(block_arrays(&s, 1));
    const run_search sssp = {"SSSP", 1, rep->nvertices, rep->nedges, ef, sssp_run, sssp_reached,
                             sssp_keep, &s, spill, parked[1]};
    G5_TRY(run_timed_loop(comm, &sssp, roots, rep->nroots, validate, rep->sssp_time, rep->sssp_nedge,
                          rep->sssp_validate_time, invalid, &rep->sssp_validate_batch));
    const kern_sssp_stats *st = kern_sssp_get_stats(s.sssp);
    g5_progress("SSSP last key phases (rank 0): %lld buckets, %lld rounds, %lld relaxations, "
                "%lld messages; relax %.4f s, exchange %.4f s, apply %.4f s, reduce %.4f s",
                (long long)st->buckets, (long long)st->phases, (long long)st->relaxations,
                (long long)st->messages, st->t_relax, st->t_exchange, st->t_apply, st->t_reduce);
    rep->sssp_done = 1;
out:
    if (s.block_owned)
        free(s.block_parent);
    free(s.dist);
    kern_sssp_free(&s.sssp);
    kern_bfs_free(&s.bfs);
    return rc;
}

/* hop-weighted copy of the byte matrix */
static void hop_weight(int P, const int64_t *bytes, const int *rank_node, const int *hops,
                       int nnodes, int64_t *out)
{
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            out[i * P + j] = bytes[i * P + j] * hops[rank_node[i] * nnodes + rank_node[j]];
}

/* Collective. The run's record after the searches: statistics inputs,
 * communication matrices, levels, memory; the verdict (rep_run_judge). */
static int fill_report(MPI_Comm comm, const run_opts *o, const io_edges_meta *meta, const run_k1 *k,
                       const kern_levels *lv, const char **dirs, rep_run *rep)
{
    int P;
    MPI_Comm_size(comm, &P);
    rep->scale = meta->scale; rep->edgefactor = meta->edgefactor;
    rep->nranks = P; rep->nthreads = omp_get_max_threads();
    rep->generation_time = meta->generation_seconds;
    rep->validated = !o->no_validate;
    rep->placement = o->placement;
    rep->nvertices = meta->nvertices; rep->nedges = meta->nedges;
    rep->n_active = kern_dist_n_active(k->dist);
    rep->edges_content_id = meta->content_id;
    rep->k1_components = k->t_components;
    rep->k1_placement = k->t_placement;
    rep->k1_build = k->t_build;
    rep->read_time = k->t_read;
    rep->construction_time = k->t_components + k->t_placement + k->t_build + rep->k1_search;
    rep->placement_in_process = k->in_process;
    rep->placement_cached = !k->in_process && strcmp(o->placement, "cyclic") && strcmp(o->placement, "block");
    rep->stage_components_seconds = k->stage_components;
    rep->stage_partition_seconds = k->stage_partition;
    rep->stage_components_ranks = k->stage_components_ranks;
    rep->stage_partition_ranks = k->stage_partition_ranks;
    rep->strict_construction_time = k->stage_components >= 0 && k->stage_partition >= 0
        ? rep->construction_time + k->stage_components + k->stage_partition : -1;
    if (rep->placement_cached) {
        rep->placement_path = o->placement;
        rep->placement_edges_content_id = k->placement_edges_content_id;
        rep->placement_topology_id = k->placement_topology_id;
    }
    if (o->topology && k->topology_id) {
        rep->topology_path = o->topology;
        rep->topology_id = k->topology_id;
    }
    /* scripts/g500-lock --wait: "SECONDS HOLDER" when this run had to wait */
    const char *waited = getenv("G500_WAITED");
    if (waited && *waited) {
        char *end;
        rep->waited_seconds = strtod(waited, &end);
        rep->waited = end != waited;
        rep->waited_for = *end == ' ' ? end + 1 : NULL;
    }
    rep_run_judge(rep);
    if (dirs) {
        rep->bfs_level_time = lv->time; rep->bfs_level_frontier = lv->frontier;
        rep->bfs_nlevels = lv->n; rep->bfs_level_dir = (char **)dirs;
    }
    int64_t rss = g5_peak_rss();
    MPI_Allreduce(&rss, &rep->peak_rss_max, 1, MPI_INT64_T, MPI_MAX, comm);
    return G5_OK;
}

/* Collective. The searches' bytes between ranks (and hop-weighted with a
 * topology), gathered on rank 0 while the graph's counters exist. */
static int gather_comm(MPI_Comm comm, const run_k1 *k, rep_run *rep)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    /* rank 0 alone reports them */
    if (me == 0) rep->comm_bytes = malloc((size_t)P * P * sizeof(int64_t));
    int rc = g5_agree(comm, me != 0 || rep->comm_bytes ? G5_OK
                            : g5_error(G5_ERR_NOMEM, "run: cannot allocate the %d x %d byte counts", P, P));
    if (rc == G5_OK)
        rc = kern_comm_gather(k->graph, rep->comm_bytes);
    if (rc == G5_OK && me == 0 && k->rank_node && k->node_hops) {
        rep->comm_hop_bytes = malloc((size_t)P * P * sizeof(int64_t));
        if (rep->comm_hop_bytes)
            hop_weight(P, rep->comm_bytes, k->rank_node, k->node_hops, k->nnodes, rep->comm_hop_bytes);
    }
    return rc;
}

/* Collective. The keys parked in spill, validated with the graph's rows
 * released (nothing searches any more). */
static int validate_parked(MPI_Comm comm, io_edges *ef, io_spill *spill, int64_t (*parked)[64],
                           kern_graph *g, rep_run *rep, int *invalid)
{
    int P, rc = G5_OK;
    MPI_Comm_size(comm, &P);
    kern_graph_release(g);
    int64_t bytes = io_spill_size(spill), mx;
    MPI_Allreduce(&bytes, &mx, 1, MPI_INT64_T, MPI_MAX, comm);
    rep->validate_spill_bytes = mx;
    char b[32];
    g5_progress("graph released; validating the parked keys (%s in the scratch file of the "
                "largest rank)", g5_format_bytes(b, sizeof b, (double)mx));
    const run_search bfs = {"BFS", 0, rep->nvertices, rep->nedges, ef, NULL, NULL, NULL, NULL,
                            spill, parked[0]};
    const run_search sssp = {"SSSP", 1, rep->nvertices, rep->nedges, ef, NULL, NULL, NULL, NULL,
                             spill, parked[1]};
    if (rep->bfs_done)
        G5_TRY(run_validate_parked(comm, &bfs, rep->roots, rep->nroots, rep->bfs_nedge,
                                   rep->bfs_validate_time, invalid, &rep->bfs_validate_batch));
    if (rep->sssp_done)
        G5_TRY(run_validate_parked(comm, &sssp, rep->roots, rep->nroots, rep->sssp_nedge,
                                   rep->sssp_validate_time, invalid, &rep->sssp_validate_batch));
out:
    return rc;
}

/* Rank 0: the block, the notes and the JSON. */
static int print_results(const run_opts *o, const kern_levels *lv, const rep_run *rep)
{
    for (int l = 0; l < lv->n; l++)
        g5_progress("BFS 0 level %d: %s, frontier %lld, %.6f s", l,
                    lv->bottom_up[l] ? "bottom-up" : "top-down", (long long)lv->frontier[l], lv->time[l]);
    g5_progress("peak RSS (max over ranks) %.1f MiB = %.1f bytes per input edge",
                rep->peak_rss_max / 1048576.0, (double)rep->peak_rss_max * rep->nranks / (double)rep->nedges);
    g5_progress("construction_time %.4f s: components %.4f, placement %.4f, build %.4f, search "
                "structures %.4f (reads excluded: %.4f s)", rep->construction_time, rep->k1_components,
                rep->k1_placement, rep->k1_build, rep->k1_search, rep->read_time);
    int rc = G5_OK;
    if (!cli_json_stdout(o->json)) { /* --json -: the JSON alone on stdout */
        rc = rep_print_graph500(stdout, rep);
        if (rc == G5_OK)
            rc = rep_print_run_notes(stdout, rep);
        fflush(stdout);
    }
    if (rc == G5_OK && o->json)
        rc = rep_write_run_json(o->json, rep);
    return rc;
}

int run_cmd(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int P, me, rc, invalid = 0;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    run_opts o = {.placement = "cyclic", .roots = 64, .seed = -1, .delta = 0.01, .ranks_per_node = 1};
    const char *edges_path = NULL;
    /* the provenance records the command as typed: getopt_long reorders argv */
    char *typed[argc + 1];
    memcpy(typed, argv, sizeof(char *) * (size_t)argc);
    typed[argc] = NULL;
    rc = parse_opts(argc, argv, &o, &edges_path);
    if (rc == 1)
        return 0;
    if (rc != G5_OK)
        return g5_cmd_fail("run", rc);
    pick_threads(comm);

    io_edges *ef = NULL;
    run_k1 k;
    memset(&k, 0, sizeof k);
    kern_levels lv = {0};
    rep_run rep;
    memset(&rep, 0, sizeof rep);
    rep_provenance prov;
    memset(&prov, 0, sizeof prov);
    int64_t roots[64];
    double *times = NULL;
    int64_t *counts = NULL;
    const char **dirs = NULL;
    io_spill *spill = NULL;
    int64_t parked[2][64];

    G5_TRY(run_provenance(comm, argc, typed, &prov));
    G5_TRY(io_edges_open(comm, edges_path, &ef));
    /* a JSON path it could not write is refused now, not after the kernels */
    G5_TRY(cli_json_check(comm, o.json, edges_path));
    /* ... nor onto any other input: the placement or topology it reads */
    if (strcmp(o.placement, "cyclic") && strcmp(o.placement, "block") && strcmp(o.placement, "components"))
        G5_TRY(cli_json_check(comm, o.json, o.placement));
    if (o.topology)
        G5_TRY(cli_json_check(comm, o.json, o.topology));
    const io_edges_meta *meta = io_edges_get_meta(ef);
    G5_TRY(g5_memory_check(comm, cli_mem_what(edges_path, meta->scale, meta->nedges),
                           cli_mem_run(meta->nvertices, meta->nedges, P,
                                       strcmp(o.placement, "components") == 0,
                                       strcmp(o.placement, "cyclic") && strcmp(o.placement, "block")),
                           o.force_size));
    if (o.spill && !o.no_validate) {
        /* refused now, not after kernel 1: sized for o.roots keys */
        double bytes = (double)o.roots * ((double)kern_vbatch_park_bytes(meta->nvertices, me, P, 0)
                                          + (o.skip_sssp ? 0.0
                                             : (double)kern_vbatch_park_bytes(meta->nvertices, me, P, 1)));
        G5_TRY(io_spill_open(comm, o.spill, bytes, "the parked validation records", &spill));
        char b[32];
        g5_progress("validation records are parked in %s (unlinked scratch files, about %s per "
                    "rank)", o.spill, g5_format_bytes(b, sizeof b, bytes));
        if (io_spill_in_memory(spill))
            g5_progress("warning: %s is a RAM file system on rank 0: the parked records take "
                        "memory (give --spill a directory on a local disk)", o.spill);
    }

    G5_TRY(run_kernel1(comm, &o, ef, &k));
    g5_progress("graph built: %lld directed entries, CSR %.1f MiB on rank 0",
                (long long)kern_graph_nnz_global(k.graph), kern_graph_bytes(k.graph) / 1048576.0);
    progress_rss(comm, "after construction", meta->nedges);
    /* Kernel 1 verified every chunk's Fletcher32 checksum; validation
     * streams the list again for every key, unverified (docs/gen.md). */
    io_edges_set_checksum_verify(ef, 0);

    uint64_t seed = o.seed >= 0 ? (uint64_t)o.seed : meta->seed;
    G5_TRY(kern_roots_sample(k.graph, seed, o.roots, roots, &rep.nroots));
    if (rep.nroots == 0) {
        rc = g5_error(G5_ERR_ARG, "%s: no vertex has an edge: nothing to search", edges_path);
        goto out;
    }
    const int n = rep.nroots;
    times = calloc(4 * (size_t)n, sizeof(double));
    counts = calloc(3 * (size_t)n, sizeof(int64_t));
    G5_TRY(g5_agree(comm, times && counts ? G5_OK
                    : g5_error(G5_ERR_NOMEM, "run: cannot allocate the result arrays")));
    rep.roots = roots;
    rep.bfs_time = times; rep.sssp_time = times + n;
    rep.bfs_validate_time = times + 2 * n; rep.sssp_validate_time = times + 3 * n;
    rep.bfs_nedge = counts; rep.sssp_nedge = counts + n; rep.sssp_rounds = counts + 2 * n;
    rep.nedges = meta->nedges;
    rep.nvertices = meta->nvertices;
    rep.edges_path = edges_path;
    rep.provenance = &prov;

    G5_TRY(run_searches(comm, &o, k.graph, ef, roots, &lv, spill, parked, &rep, &invalid));
    G5_TRY(gather_comm(comm, &k, &rep));
    if (spill)
        G5_TRY(validate_parked(comm, ef, spill, parked, k.graph, &rep, &invalid));

    dirs = malloc(((size_t)lv.n + 1) * sizeof(char *));
    for (int l = 0; dirs && l < lv.n; l++)
        dirs[l] = lv.bottom_up[l] ? "bottom-up" : "top-down";
    G5_TRY(fill_report(comm, &o, meta, &k, &lv, dirs, &rep));
    rc = g5_agree(comm, me == 0 ? print_results(&o, &lv, &rep) : G5_OK);
out:
    if (invalid && me == 0) {
        printf("No results printed for invalid run.\n");
        fflush(stdout);
    }
    free(dirs);
    kern_levels_free(&lv);
    free(rep.comm_bytes);
    free(rep.comm_hop_bytes);
    free(times);
    free(counts);
    run_k1_free(&k);
    run_provenance_free(&prov);
    io_spill_close(&spill);
    io_edges_close(&ef);
    return rc == G5_OK ? 0 : g5_cmd_fail("run", rc);
}
