/* SPDX-License-Identifier: MIT */
/*
 * run_cmd.c - `g500 run`: the timed Graph500 kernels on an edges file.
 *
 *   mpirun -np P g500 run EDGES.h5 [--placement cyclic|block|FILE.h5]
 *       [--roots 64] [--seed N] [--delta D] [--skip-sssp] [--no-validate]
 *       [--json PATH] [--topology FILE --ranks-per-node K]
 *
 * Steps (as the Graph500 reference driver): kernel 1, construction, which
 * streams this rank's block of the edge list from the file in bounded chunks
 * (twice: count, then fill) so the edge list is never held; it is timed as
 * its elapsed time minus the seconds spent reading (reads are untimed by the
 * spec), maximum over ranks; validation streams the file again; the search
 * keys; for
 * each key, kernel 2 (timed), conversion to original ids and validation
 * (untimed), then the same for kernel 3; the statistics and the official
 * output block on stdout and the JSON result. Progress on stderr, one line
 * per step per key, in the reference's words. A failed validation prints
 * the validator's message, "No results printed for invalid run." and exits
 * non-zero on every rank.
 *
 * Timing: MPI_Barrier, MPI_Wtime, the kernel, then the maximum over ranks of
 * the elapsed times (an allreduce after the clock stopped). Errors are
 * agreed with g5_agree only after the clock stopped.
 *
 * Threads: OpenMP's own setting (OMP_NUM_THREADS) when given; otherwise the
 * cores of the node divided among the ranks sharing it, so oversubscribed
 * runs do not spin 2x the cores.
 */
#include "common.h"
#include "io.h"
#include "kern.h"
#include "kern_validate.h"
#include "rep_run.h"
#include "topo.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct run_opts {
    const char *placement, *json, *topology;
    int roots, skip_sssp, no_validate, ranks_per_node;
    int64_t seed;
    double delta;
} run_opts;

static void pick_threads(MPI_Comm comm)
{
    if (getenv("OMP_NUM_THREADS")) return;
    MPI_Comm node;
    int local = 1;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    int cores = omp_get_num_procs() / local;
    omp_set_num_threads(cores < 1 ? 1 : cores);
}

/* hop-weighted copy of the byte matrix */
static void hop_weight(int P, const int64_t *bytes, const int *rank_node, const int *hops,
                       int nnodes, int64_t *out)
{
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            out[i * P + j] = bytes[i * P + j] * hops[rank_node[i] * nnodes + rank_node[j]];
}

static double max_elapsed(MPI_Comm comm, double t0)
{
    double t = g5_now() - t0, m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

int run_cmd(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int P, me, rc = G5_OK, invalid = 0;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    run_opts o = {.placement = "cyclic", .json = NULL, .topology = NULL, .roots = 64,
                  .seed = -1, .delta = 0.03, .ranks_per_node = 1};
    const g5_opt opts[] = {
        {"placement", 'p', G5_OPT_STRING, &o.placement, "cyclic|block|FILE",
         "vertex distribution: cyclic (v mod P), block, or a placement file"},
        {"roots", 'r', G5_OPT_INT, &o.roots, "K", "number of search keys (at most 64 per the spec)"},
        {"seed", 's', G5_OPT_INT64, &o.seed, "N", "seed of the search keys (-1: the edges file's seed)"},
        {"delta", 0, G5_OPT_DOUBLE, &o.delta, "D", "delta-stepping bucket width"},
        {"skip-sssp", 0, G5_OPT_FLAG, &o.skip_sssp, NULL, "run BFS only"},
        {"no-validate", 0, G5_OPT_FLAG, &o.no_validate, NULL,
         "skip validation (said in the output and the JSON)"},
        {"json", 'j', G5_OPT_STRING, &o.json, "PATH", "write the JSON result here"},
        {"topology", 't', G5_OPT_STRING, &o.topology, "FILE",
         "topology (Slurm topology.conf or tleaf) for hop-weighted bytes with cyclic/block"},
        {"ranks-per-node", 0, G5_OPT_INT, &o.ranks_per_node, "K", "ranks per node with --topology"},
    };
    const int nopts = sizeof opts / sizeof opts[0];
    const char *pos[2];
    int npos = 0;
    const char *usage = "mpirun -np P g500 run EDGES.h5 [options]";
    const char *summary = "Timed Graph500 kernels: construction, BFS and SSSP from up to 64 "
                          "keys, validated, official output block and JSON.";
    rc = g5_opts_parse(argc, argv, opts, nopts, pos, 2, &npos);
    if (rc == 1) {
        if (me == 0) g5_opts_help(stdout, usage, summary, opts, nopts);
        return 0;
    }
    if (rc == G5_OK && npos != 1) rc = g5_error(G5_ERR_ARG, "expected one edges file (see --help)");
    if (rc == G5_OK && (o.roots < 1 || o.roots > 64))
        rc = g5_error(G5_ERR_ARG, "--roots must be in [1, 64], not %d", o.roots);
    if (rc == G5_OK && !(o.delta > 0)) rc = g5_error(G5_ERR_ARG, "--delta must be positive");
    if (rc) return g5_cmd_fail("run", rc);
    pick_threads(comm);

    io_edges *ef = NULL;
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_bfs *bfs = NULL;
    kern_sssp *sssp = NULL;
    topo *tp = NULL;
    int64_t *po = NULL, roots[64];
    float *dl = NULL, *dout = NULL;
    int *rank_node = NULL, *node_hops = NULL, nnodes = 0;
    kern_levels lv = {0};
    rep_run rep;
    memset(&rep, 0, sizeof rep);
    double *arrays = NULL;
    int64_t *iarrays = NULL;
    char **dirs = NULL;

    /* ---- open (the edges are streamed by kernel 1) ---- */
    double t0;
    G5_TRY(io_edges_open(comm, pos[0], &ef));
    /* a JSON path it could not write is refused now, not after the kernels
     * (an existing file is replaced, as before) */
    if (o.json)
        G5_TRY(io_file_check_output(comm, o.json, 1, pos[0]));
    const io_edges_meta *meta = io_edges_get_meta(ef);
    int64_t N = meta->nvertices, M = meta->nedges;

    /* ---- distribution and topology ---- */
    if (strcmp(o.placement, "cyclic") == 0) rc = kern_dist_create_cyclic(comm, N, &d);
    else if (strcmp(o.placement, "block") == 0) rc = kern_dist_create_block(comm, N, &d);
    else rc = kern_dist_load_placement(comm, o.placement, N, &d, &rank_node, &node_hops, &nnodes);
    G5_TRY(g5_agree(comm, rc));
    if (!rank_node && o.topology) {
        int st = topo_load(o.topology, &tp);
        if (st == G5_OK) {
            rank_node = malloc(P * sizeof(int));
            st = rank_node ? topo_map_ranks_per_node(tp, P, o.ranks_per_node, rank_node)
                           : g5_error(G5_ERR_NOMEM, "topology: cannot allocate");
        }
        if (st == G5_OK) {
            nnodes = topo_num_nodes(tp);
            node_hops = malloc((size_t)nnodes * nnodes * sizeof(int));
            if (!node_hops) st = g5_error(G5_ERR_NOMEM, "topology: cannot allocate");
            else
                for (int a = 0; a < nnodes; a++)
                    for (int b = 0; b < nnodes; b++) node_hops[a * nnodes + b] = topo_hops_between(tp, a, b);
        }
        G5_TRY(g5_agree(comm, st));
    }

    /* ---- kernel 1 (timed, minus the reads of the streamed edges) ---- */
    g5_progress("constructing the graph (%s distribution), streaming %lld edges of %s",
                o.placement, (long long)M, pos[0]);
    MPI_Barrier(comm);
    t0 = g5_now();
    double rd = 0;
    rc = kern_graph_build_file(comm, d, ef, 0, &rd, &g);
    {
        double t[2] = {g5_now() - t0 - rd, rd}, m[2];
        MPI_Allreduce(t, m, 2, MPI_DOUBLE, MPI_MAX, comm);
        rep.construction_time = m[0];
        rep.read_time = m[1];
    }
    G5_TRY(g5_agree(comm, rc));
    /* Kernel 1 read every chunk of the edge list with its Fletcher32
     * checksum verified; validation streams the list again for every key,
     * unverified: re-verifying a file kernel 1 has checked would only add
     * to every validation. */
    io_edges_set_checksum_verify(ef, 0);
    {
        double ph[6];
        kern_graph_build_times(g, ph);
        g5_progress("construction_time %.4f s (reads excluded: %.2f s), %lld directed entries, "
                    "CSR %.1f MiB on rank 0; rank 0: count %.3f s, fill %.3f s, merge %.3f s, "
                    "%.3f CPU s",
                    rep.construction_time, rep.read_time, (long long)kern_graph_nnz_global(g),
                    kern_graph_bytes(g) / 1048576.0, ph[0], ph[1], ph[2], ph[4]);
        int64_t rss = g5_peak_rss(), mx;
        MPI_Allreduce(&rss, &mx, 1, MPI_INT64_T, MPI_MAX, comm);
        g5_progress("peak RSS after construction (max over ranks) %.1f MiB = %.1f bytes per input edge",
                    mx / 1048576.0, (double)mx * P / (double)M);
    }

    uint64_t seed = o.seed >= 0 ? (uint64_t)o.seed : meta->seed;
    int nroots = 0;
    G5_TRY(kern_roots_sample(g, seed, o.roots, roots, &nroots));
    if (nroots == 0) {
        rc = g5_error(G5_ERR_ARG, "%s: no vertex has an edge: nothing to search", pos[0]);
        goto out;
    }
    /* Memory: only one kernel's workspace at a time (BFS's is freed before
     * SSSP's is made). At one rank with cyclic or block ids the local
     * results are the validator's input as they are; otherwise they are
     * converted into block arrays (po, dout). The kernels' memory that is
     * idle between searches is lent: BFS's queues hold the validator's
     * words; at P > 1 SSSP's ghost words (kern_sssp_scratch) hold the block
     * results when they fit and SSSP's parents, once converted, the
     * validator's words (at one rank they are the validator's input, so it
     * allocates its words, 4 bytes per vertex for SSSP). SSSP's parents are its
     * state words unpacked in place (kern_sssp_take_result) and its
     * distances float32: 4 bytes per local vertex, only while validating. */
    G5_TRY(kern_bfs_create(g, &bfs));
    int64_t nl = kern_graph_nlocal(g), bfirst, bcount;
    const int same_ids = kern_ids_are_original(g);
    g5_range_split(N, me, P, &bfirst, &bcount);
    if (!same_ids && !o.no_validate) po = malloc(((size_t)bcount + 1) * sizeof(int64_t));
    arrays = calloc(4 * (size_t)nroots, sizeof(double));
    iarrays = calloc(2 * (size_t)nroots, sizeof(int64_t));
    G5_TRY(g5_agree(comm, (po || same_ids || o.no_validate) && arrays && iarrays ? G5_OK
                    : g5_error(G5_ERR_NOMEM, "run: cannot allocate the result arrays")));
    rep.bfs_time = arrays; rep.sssp_time = arrays + nroots;
    rep.bfs_validate_time = arrays + 2 * nroots; rep.sssp_validate_time = arrays + 3 * nroots;
    rep.bfs_nedge = iarrays; rep.sssp_nedge = iarrays + nroots;
    kern_comm_reset(g);

    for (int i = 0; i < nroots; i++) {
        /* ---- kernel 2 (timed) ---- */
        g5_progress("Running BFS %d", i);
        MPI_Barrier(comm);
        t0 = g5_now();
        rc = kern_bfs_run(bfs, roots[i], i == 0 ? &lv : NULL);
        rep.bfs_time[i] = max_elapsed(comm, t0);
        G5_TRY(g5_agree(comm, rc));
        g5_progress("Time for BFS %d is %f", i, rep.bfs_time[i]);
        int64_t nedge;
        G5_TRY(kern_reached_edges(g, kern_bfs_parent(bfs), &nedge));
        if (!o.no_validate) {
            g5_progress("Validating BFS %d", i);
            t0 = g5_now();
            if (!same_ids) G5_TRY(kern_to_original(g, kern_bfs_parent(bfs), NULL, po, NULL));
            int64_t vn = -1;
            size_t wbytes;
            void *work = kern_bfs_scratch(bfs, &wbytes);
            rc = kern_validate_bfs(comm, ef, roots[i], same_ids ? kern_bfs_parent(bfs) : po, work,
                                   wbytes, &vn);
            rep.bfs_validate_time[i] = max_elapsed(comm, t0);
            if (rc == G5_OK && vn != nedge)
                rc = g5_error(G5_ERR_VALIDATE, "BFS root %lld: the validator counts %lld edges, "
                              "the kernels %lld", (long long)roots[i], (long long)vn, (long long)nedge);
            if ((rc = g5_agree(comm, rc)) == G5_ERR_VALIDATE) invalid = 1;
            if (rc) goto out;
        }
        rep.bfs_nedge[i] = nedge;
        g5_progress("TEPS for BFS %d is %g", i, nedge / rep.bfs_time[i]);
    }
    rep.bfs_done = 1;
    {
        int64_t rss = g5_peak_rss(), mx;
        MPI_Allreduce(&rss, &mx, 1, MPI_INT64_T, MPI_MAX, comm);
        g5_progress("peak RSS after the BFS searches (max over ranks) %.1f MiB = %.1f bytes per "
                    "input edge", mx / 1048576.0, (double)mx * P / (double)M);
    }
    kern_bfs_free(&bfs);
    int64_t *spo = po;      /* SSSP's block results: in SSSP's scratch when it fits */
    float *sdout = NULL;
    if (!o.skip_sssp) {
        G5_TRY(kern_sssp_create(g, o.delta, &sssp));
        if (!same_ids && !o.no_validate) {
            size_t sbytes = 0;
            void *scratch = kern_sssp_scratch(sssp, &sbytes);
            if (scratch && sbytes >= ((size_t)bcount + 1) * (sizeof(int64_t) + sizeof(float))) {
                free(po);
                po = NULL;
                spo = scratch;
                sdout = (float *)(spo + bcount + 1);
            } else {
                sdout = dout = malloc(((size_t)bcount + 1) * sizeof(float));
            }
        }
        G5_TRY(g5_agree(comm, sdout || same_ids || o.no_validate ? G5_OK
                        : g5_error(G5_ERR_NOMEM, "run: cannot allocate the result arrays")));
    }
    for (int i = 0; sssp && i < nroots; i++) {
        /* ---- kernel 3 (timed) ---- */
        g5_progress("Running SSSP %d", i);
        MPI_Barrier(comm);
        t0 = g5_now();
        rc = kern_sssp_run(sssp, roots[i]);
        rep.sssp_time[i] = max_elapsed(comm, t0);
        G5_TRY(g5_agree(comm, rc));
        if (i == 0) {
            const kern_sssp_stats *s = kern_sssp_get_stats(sssp);
            g5_progress("SSSP 0 phases (rank 0): %lld buckets, %lld rounds, %lld relaxations, "
                        "%lld messages; relax %.4f s, exchange %.4f s, apply %.4f s, reduce %.4f s",
                        (long long)s->buckets, (long long)s->phases, (long long)s->relaxations,
                        (long long)s->messages, s->t_relax, s->t_exchange, s->t_apply, s->t_reduce);
        }
        g5_progress("Time for SSSP %d is %f", i, rep.sssp_time[i]);
        if (!o.no_validate) dl = malloc(((size_t)nl + 1) * sizeof(float));
        G5_TRY(g5_agree(comm, dl || o.no_validate ? G5_OK
                        : g5_error(G5_ERR_NOMEM, "run: cannot allocate the result arrays")));
        int64_t *pl = kern_sssp_take_result(sssp, dl), nedge;
        G5_TRY(kern_reached_edges(g, pl, &nedge));
        if (!o.no_validate) {
            g5_progress("Validating SSSP %d", i);
            t0 = g5_now();
            void *work = NULL;
            size_t wbytes = 0;
            if (!same_ids) {
                G5_TRY(kern_to_original(g, pl, dl, spo, sdout));
                free(dl);
                dl = NULL;
                work = pl;      /* converted: idle until the next search */
                wbytes = ((size_t)nl + 1) * sizeof(int64_t);
            }
            int64_t vn = -1;
            rc = kern_validate_sssp(comm, ef, roots[i], same_ids ? pl : spo, same_ids ? dl : sdout,
                                    work, wbytes, &vn);
            rep.sssp_validate_time[i] = max_elapsed(comm, t0);
            if (rc == G5_OK && vn != nedge)
                rc = g5_error(G5_ERR_VALIDATE, "SSSP root %lld: the validator counts %lld edges, "
                              "the kernels %lld", (long long)roots[i], (long long)vn, (long long)nedge);
            if ((rc = g5_agree(comm, rc)) == G5_ERR_VALIDATE) invalid = 1;
            if (rc) goto out;
        }
        free(dl);
        dl = NULL;
        rep.sssp_nedge[i] = nedge;
        g5_progress("TEPS for SSSP %d is %g", i, nedge / rep.sssp_time[i]);
    }
    rep.sssp_done = sssp != NULL;

    /* ---- report ---- */
    rep.scale = meta->scale; rep.edgefactor = meta->edgefactor;
    rep.nranks = P; rep.nthreads = omp_get_max_threads();
    rep.nroots = nroots; rep.roots = roots;
    rep.generation_time = meta->generation_seconds;
    rep.validated = !o.no_validate;
    rep.placement = o.placement; rep.edges_path = pos[0];
    rep.nvertices = N; rep.nedges = M; rep.n_active = kern_dist_n_active(d);
    rep.comm_bytes = malloc((size_t)P * P * sizeof(int64_t));
    G5_TRY(g5_agree(comm, rep.comm_bytes ? G5_OK : g5_error(G5_ERR_NOMEM, "run: cannot allocate")));
    G5_TRY(kern_comm_gather(g, rep.comm_bytes));
    if (rank_node && node_hops) {
        rep.comm_hop_bytes = malloc((size_t)P * P * sizeof(int64_t));
        if (rep.comm_hop_bytes) hop_weight(P, rep.comm_bytes, rank_node, node_hops, nnodes, rep.comm_hop_bytes);
    }
    dirs = malloc((lv.n + 1) * sizeof(char *));
    if (dirs) {
        for (int k = 0; k < lv.n; k++) dirs[k] = lv.bottom_up[k] ? "bottom-up" : "top-down";
        rep.bfs_level_time = lv.time; rep.bfs_level_frontier = lv.frontier;
        rep.bfs_nlevels = lv.n; rep.bfs_level_dir = dirs;
    }
    int64_t rss = g5_peak_rss();
    MPI_Allreduce(&rss, &rep.peak_rss_max, 1, MPI_INT64_T, MPI_MAX, comm);
    int st = G5_OK;
    if (me == 0) {
        for (int k = 0; k < lv.n; k++)
            g5_progress("BFS 0 level %d: %s, frontier %lld, %.6f s", k,
                        lv.bottom_up[k] ? "bottom-up" : "top-down", (long long)lv.frontier[k], lv.time[k]);
        g5_progress("peak RSS (max over ranks) %.1f MiB = %.1f bytes per input edge",
                    rep.peak_rss_max / 1048576.0, (double)rep.peak_rss_max * P / (double)M);
        st = rep_print_graph500(stdout, &rep);
        fflush(stdout);
        if (st == G5_OK && o.json) st = rep_write_run_json(o.json, &rep);
    }
    rc = g5_agree(comm, st);
out:
    if (rc == G5_OK) rc = g5_agree(comm, G5_OK);
    if (invalid && me == 0) {
        printf("No results printed for invalid run.\n");
        fflush(stdout);
    }
    free(dirs);
    kern_levels_free(&lv);
    free(rep.comm_bytes); free(rep.comm_hop_bytes);
    free(arrays); free(iarrays);
    free(dl); free(po); free(dout);
    free(rank_node); free(node_hops);
    topo_free(&tp);
    kern_sssp_free(&sssp);
    kern_bfs_free(&bfs);
    kern_graph_free(&g);
    kern_dist_free(&d);
    io_edges_close(&ef);
    return rc == G5_OK ? 0 : g5_cmd_fail("run", rc);
}
