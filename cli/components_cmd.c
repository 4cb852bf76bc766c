/* SPDX-License-Identifier: MIT */
/*
 * components_cmd.c - `mpirun -np P g500 components EDGES.h5 -o COMPONENTS.h5`:
 * each rank reads its block of the edge list in pieces (collective
 * parallel HDF5) and the connected components are computed as it streams
 * by (cc_compute_file); components.h5 is written atomically with the
 * edges file's identity and the statistics (each rank its block of rows
 * of /label), and the statistics are printed. The phase times and peak
 * RSS (max over ranks) go to the progress log on stderr. Allocations
 * below 32 MiB come from a heap that is never trimmed (keep_freed_memory),
 * so buffers that come and go per piece are recycled, not faulted in
 * again. Memory per rank: docs/components.md.
 */
#include "cc.h"
#include "cli.h"
#include "common.h"
#include "report.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --json's writer: the statistics of the file just written */
struct stats_ctx {
    const char *path;
    const io_components_meta *m;
};

static void stats_json(FILE *f, const void *ctx)
{
    const struct stats_ctx *c = ctx;
    rep_components_print(f, c->path, c->m, 1);
}

struct components_cfg {
    const char *out;
    int threads;
    int force;
    int quiet;
    const char *json;       /* --json PATH, NULL: none */
    int64_t piece;
    int force_size;        /* skip the free-space check (IO_FORCE_SIZE) */
};

/* Keep the allocator from handing back and faulting in again the buffers
 * that come and go per piece (HDF5's per-read buffers of the collective
 * chunked read, the link's temporaries): every allocation below 32 MiB
 * (glibc's largest mmap threshold) comes from the heap, and the heap is
 * never trimmed, so such a buffer is faulted in once and recycled: fresh
 * memory costs about as much as reading it. The arrays above 32 MiB are
 * still mmapped and returned, and the heap's high-water mark is what was
 * live at once. */
static void keep_freed_memory(void)
{
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, INT32_MAX);
}

static int run(const struct components_cfg *cfg, const char *in)
{
    int rc = G5_OK, rank, p;
    io_edges *e = NULL;
    io_components_writer *w = NULL;
    cc_result *res = NULL;
    int64_t first, count, lfirst, lcount;
    io_components_meta m;
    double t0, t;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    keep_freed_memory();
    t0 = g5_now();
    G5_TRY(io_edges_open(MPI_COMM_WORLD, in, &e));
    const io_edges_meta *em = io_edges_get_meta(e);
    if (em->nvertices > CC_MAX_VERTICES)
        rc = g5_error(G5_ERR_ARG, "%s: SCALE %d is above what components handles (30)", in, em->scale);
    g5_range_split(em->nedges, rank, p, &first, &count);
    G5_TRY(g5_agree(MPI_COMM_WORLD, rc));
    /* refuse an output it could not write now, not after the work */
    G5_TRY(io_file_check_output(MPI_COMM_WORLD, cfg->out, cfg->force, in));
    m = (io_components_meta){.scale = em->scale, .nvertices = em->nvertices};
    G5_TRY(io_components_check_space(MPI_COMM_WORLD, cfg->out, &m, 0, cfg->force_size ? IO_FORCE_SIZE : 0));
    G5_TRY(g5_memory_check(MPI_COMM_WORLD, cli_mem_what(in, em->scale, em->nedges),
                           cli_mem_components(em->nvertices, em->nedges, p), cfg->force_size));
    g5_progress("components: reading %lld edges of SCALE %d from %s on %d ranks",
                (long long)em->nedges, em->scale, in, p);
    t = g5_now();
    const cc_opts o = {.nthreads = cfg->threads, .piece_rows = cfg->piece};
    G5_TRY(cc_compute_file(MPI_COMM_WORLD, e, first, count, &o, &res));
    /* "read in" is the read phase (with the pieces' link and hashing);
     * "computed in" what is left after it: bench/bench-cc.sh parses both */
    g5_progress("components: read in %.2fs (%.3g edges/s, %lld pieces, HDF5 %.2fs); linked and tallied in "
                "%.3fs and hashed in %.3fs between the reads", res->t_read, (double)em->nedges / res->t_read,
                (long long)res->npieces, res->t_read_io, res->t_link, res->t_hash);
    g5_progress("components: computed in %.2fs after the read, %s merge (merge %.3fs, label %.3fs, "
                "count %.3fs, duplicates %.3fs): %lld components",
                g5_now() - t - res->t_read, cc_merge_name(res->merge), res->t_merge, res->t_label,
                res->t_count, res->t_distinct, (long long)res->ncomp);
    if (res->rounds > 0)
        g5_progress("components: distributed merge took %lld hooking rounds", (long long)res->rounds);
    g5_progress("components: peak RSS %.1f MiB (max over ranks) when labelled, before the duplicate count",
                (double)res->rss_labelled / 1048576.0);
    if (res->reread)
        g5_progress("components: the slab was read again for the duplicate count (its pairs are not spread)");

    m = res->meta;
    m.version = IO_COMPONENTS_VERSION;
    m.scale = em->scale;
    m.nvertices = em->nvertices;
    m.nedges = em->nedges;
    m.seed = em->seed;
    m.edges_content_id = em->content_id;
    m.elapsed_seconds = g5_now() - t0;
    m.ranks = p;
    t = g5_now();
    G5_TRY(io_components_create(MPI_COMM_WORLD, cfg->out, &m, res->ncomp,
                                cfg->force | (cfg->force_size ? IO_FORCE_SIZE : 0), &w));
    g5_range_split(em->nvertices, rank, p, &lfirst, &lcount);
    /* both paths hold at least this rank's block of rows */
    if (lfirst < res->label_first || lfirst + lcount > res->label_first + res->label_count)
        rc = g5_error(G5_ERR_INTERNAL, "components: rows [%lld, %lld) are not in this rank's labels",
                      (long long)lfirst, (long long)(lfirst + lcount));
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc == G5_OK)
        rc = io_components_write_labels(w, lfirst, lcount, res->label + (lfirst - res->label_first));
    if (rc == G5_OK)
        rc = io_components_write_sizes(w, res->comp_vertices, res->comp_edges);
    if (rc == G5_OK)
        rc = io_components_commit(&w);
    if (rc != G5_OK)
        goto out;
    int64_t rss = g5_peak_rss();
    MPI_Allreduce(MPI_IN_PLACE, &rss, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    g5_progress("components: wrote %s in %.2fs; whole stage %.2fs, peak RSS %.1f MiB (max over ranks)",
                cfg->out, g5_now() - t, g5_now() - t0, (double)rss / 1048576.0);
    if (rank == 0 && !cfg->quiet && !cli_json_stdout(cfg->json))
        rep_components_print(stdout, cfg->out, &m, 0);
    if (cfg->json)
        rc = cli_json_write(MPI_COMM_WORLD, cfg->json, stats_json, &(struct stats_ctx){cfg->out, &m});
out:
    io_components_abort(&w);
    cc_result_free(&res);
    io_edges_close(&e);
    return rc;
}

int components_cmd(int argc, char **argv)
{
    struct components_cfg cfg = {NULL, 0, 0, 0, 0, 0, 0};
    const g5_opt opts[] = {
        {"output", 'o', G5_OPT_STRING, &cfg.out, "FILE", "components file to write (required)"},
        {"threads", 0, G5_OPT_INT, &cfg.threads, "T", "OpenMP threads per rank (0: OMP_NUM_THREADS or all cores)"},
        {"force", 'f', G5_OPT_FLAG, &cfg.force, "", "replace an existing output file"},
        {"force-size", 0, G5_OPT_FLAG, &cfg.force_size, "", "go on even if the output looks larger than the free disk space or the run than the memory"},
        {"piece", 0, G5_OPT_INT64, &cfg.piece, "E",
         "edges per read piece, 16 B each (0: 2^18, cut to whole chunks of the file)"},
        {"json", 'j', G5_OPT_STRING, &cfg.json, "PATH",
         "write the statistics as JSON to PATH ('-': standard output, instead of the table)"},
        {"quiet", 'q', G5_OPT_FLAG, &cfg.quiet, "", "print no statistics and no progress"},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int npos = 0, rc;

    rc = cli_parse(argc, argv, opts, nopts, pos, 1, &npos,
                   "mpirun -np P g500 components EDGES.h5 -o COMPONENTS.h5",
                   "Connected components of the edge list: the component id of every vertex\n"
                   "(largest component 0, isolated -1), the vertices and edges of each\n"
                   "component, and the statistics `g500 stats` prints. Identical output for\n"
                   "any number of ranks, threads and piece size.",
                   1, "give one edges file (see --help)");
    if (rc == 1)
        return 0;
    if (rc == G5_OK && !cfg.out)
        rc = g5_error(G5_ERR_ARG, "-o COMPONENTS.h5 is required");
    if (rc == G5_OK && cfg.piece < 0)
        rc = g5_error(G5_ERR_ARG, "--piece must be >= 0");
    if (rc == G5_OK && cfg.threads < 0)
        rc = g5_error(G5_ERR_ARG, "--threads must be >= 0");
    if (rc == G5_OK)
        rc = g5_threads_check(cfg.threads, "--threads");
    if (rc == G5_OK)
        rc = cli_json_check(MPI_COMM_WORLD, cfg.json, pos[0]);
    if (rc != G5_OK)
        return g5_cmd_fail("components", rc);
    if (cfg.quiet)
        g5_log_init(MPI_COMM_WORLD, 1);
    rc = run(&cfg, pos[0]);
    return rc == G5_OK ? 0 : g5_cmd_fail("components", rc);
}
