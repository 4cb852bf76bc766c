/* SPDX-License-Identifier: MIT */
/*
 * partition_cmd.c - `g500 partition EDGES.h5 COMPONENTS.h5 --topology FILE
 * [--ranks R] [--ranks-per-node K] -o PLACEMENT.h5`: plan the placement of
 * the graph on R ranks of the machine the topology describes, on however
 * many processes run the command (a 2-core machine plans a 64-rank
 * placement; the output is identical for any process count at fixed R).
 *
 * Every process reads its slab of edges and its block of component labels;
 * no process holds all M edges (partition/part.h). Outputs, each written to
 * a temporary name and renamed when complete: PLACEMENT.h5 (io/io.h),
 * PLACEMENT.rankfile (Open MPI: `mpirun --rankfile`), PLACEMENT.hostfile
 * (SLURM_HOSTFILE for `srun --distribution=arbitrary`) and
 * PLACEMENT.machinefile (MPICH: `mpiexec -f`), where PLACEMENT is the
 * output path without its .h5 suffix. The four are one output: an
 * existing placement file without --force stops the command before any
 * work (the others follow it), and if a scheduler file cannot be
 * written the files this run already wrote are removed.
 *
 * Failures: every local step (parse, allocation, check) ends in g5_agree
 * before the next collective, so a failure on one rank ends the command
 * on every rank with that rank's message and one exit code
 * (tests/mpi/mpi_part_faults.c makes each allocation fail in turn).
 */
#include "part.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "io.h"
#include "topo.h"

struct cfg {
    const char *topology, *output, *json;
    int ranks, ranks_per_node, force, quiet;
    int force_size;        /* skip the free-space check (IO_FORCE_SIZE) */
    double tolerance;
    const char *order;
};

/* One run of the command: its options, inputs, the rank map, the result
 * and the times of its phases. */
typedef struct pcmd {
    struct cfg c;
    const char *edges_path, *comp_path;
    int P, me, R, order;
    char rankfile[4200], hostfile[4200], machinefile[4200];
    topo *t;
    int *rank_node_topo, *rank_node, *used, *hops, nused;
    char *names;                   /* [nused][IO_NODE_NAME_MAX] */
    io_edges *ef;
    io_components *cf;
    int64_t *edges, *label, *cv, *ce, C, N, ecount;
    part_result *res;
    double t0, t_read, t_place, t_write;
} pcmd;

#define USAGE "[mpirun -np P] g500 partition EDGES.h5 COMPONENTS.h5 --topology FILE [--ranks R] [--ranks-per-node K] -o PLACEMENT.h5"

/* "<output without .h5><suffix>" */
static int side_path(char *buf, size_t len, const char *output, const char *suffix)
{
    size_t n = strlen(output);
    if (n > 3 && strcmp(output + n - 3, ".h5") == 0)
        n -= 3;
    if (n + strlen(suffix) + 1 > len)
        return g5_error(G5_ERR_ARG, "%s: output path too long", output);
    memcpy(buf, output, n);
    strcpy(buf + n, suffix);
    return G5_OK;
}

/* rank_node (topology node numbers) to the nodes used, in walk order: out
 * used[] = topology node of each used node, local[r] = its index. */
static int used_nodes(const topo *t, int R, const int *rank_node, int *local, int **used_out, int *nused)
{
    int nn = topo_num_nodes(t), *map = NULL, *used = NULL, k = 0;
    map = g5_malloc((size_t)nn * sizeof(int), "partition: node map");
    used = g5_malloc((size_t)(R < nn ? R : nn) * sizeof(int), "partition: used nodes");
    if (!map || !used) {
        free(map);
        free(used);
        return G5_ERR_NOMEM;
    }
    for (int i = 0; i < nn; i++)
        map[i] = -1;
    for (int r = 0; r < R; r++)
        map[rank_node[r]] = 0;
    for (int i = 0; i < nn; i++)
        if (map[i] == 0) {
            map[i] = k;
            used[k++] = i;
        }
    for (int r = 0; r < R; r++)
        local[r] = map[rank_node[r]];
    free(map);
    *used_out = used;
    *nused = k;
    return G5_OK;
}

/* The options, checked; the side files' names; outputs that could not be
 * written refused before any work. 1: --help printed. Collective. */
static int parse_args(int argc, char **argv, pcmd *x)
{
    struct cfg *c = &x->c;
    g5_opt opts[] = {
        {"topology", 't', G5_OPT_STRING, &c->topology, "FILE", "Slurm topology.conf or tleaf line (required)"},
        {"ranks", 'r', G5_OPT_INT, &c->ranks, "R", "ranks the kernels will run with (0: the process count)"},
        {"ranks-per-node", 'k', G5_OPT_INT, &c->ranks_per_node, "K",
         "emulate nodes: rank r on the r/K-th node of the tree walk (0: map by host name, needs R = P)"},
        {"tolerance", 0, G5_OPT_DOUBLE, &c->tolerance, "X", "edge balance tolerance (max/mean - 1)"},
        {"order", 0, G5_OPT_STRING, &c->order, "O",
         "order the giant is cut in: leaves (ids, degree-1 vertices after their neighbour), id, bfs, degree"},
        {"output", 'o', G5_OPT_STRING, &c->output, "FILE", "placement file to write (required)"},
        {"force", 'f', G5_OPT_FLAG, &c->force, "", "replace existing outputs"},
        {"force-size", 0, G5_OPT_FLAG, &c->force_size, "", "go on even if the output looks larger than the free disk space or the run than the memory"},
        {"json", 'j', G5_OPT_STRING, &c->json, "PATH",
         "write the quality table as JSON to PATH ('-': standard output, instead of the table)"},
        {"quiet", 'q', G5_OPT_FLAG, &c->quiet, "", "no progress lines"},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[2];
    int npos = 0;
    int rc = cli_parse(argc, argv, opts, nopts, pos, 2, &npos,
                       USAGE,
                       "Place the graph's components on R ranks by switch hops: compact away isolated\n"
                       "vertices, keep small components whole, cut the giant in a vertex order over\n"
                       "the ranks of a switch-tree walk with balanced edges; write the placement file,\n"
                       "an Open MPI rankfile, an MPICH machinefile and a SLURM_HOSTFILE, and print\n"
                       "the quality table.",
                       2, "expected EDGES.h5 and COMPONENTS.h5 (usage: " USAGE ")");
    if (rc == 1)
        return 1;
    if (rc == G5_OK && !c->topology)
        rc = g5_error(G5_ERR_ARG, "--topology FILE is required");
    if (rc == G5_OK && !c->output)
        rc = g5_error(G5_ERR_ARG, "-o PLACEMENT.h5 is required");
    if (rc == G5_OK && (c->ranks < 0 || c->ranks_per_node < 0))
        rc = g5_error(G5_ERR_ARG, "--ranks and --ranks-per-node must be positive");
    if (rc == G5_OK && !(c->tolerance >= 0 && c->tolerance < 10))
        rc = g5_error(G5_ERR_ARG, "--tolerance must be in [0, 10)");
    x->order = -1;
    for (int o = PART_ORDER_BFS; o <= PART_ORDER_LEAVES; o++)
        if (c->order && strcmp(c->order, part_order_name(o)) == 0)
            x->order = o;
    if (rc == G5_OK && x->order < 0)
        rc = g5_error(G5_ERR_ARG, "--order must be leaves, id, bfs or degree, not '%s'", c->order ? c->order : "");
    x->R = c->ranks > 0 ? c->ranks : x->P;
    if (rc == G5_OK && c->ranks_per_node == 0 && x->R != x->P)
        rc = g5_error(G5_ERR_ARG, "--ranks %d differs from the %d processes running: give --ranks-per-node K "
                      "to place the ranks on the topology's nodes in tree order", x->R, x->P);
    if (rc == G5_OK)
        rc = side_path(x->rankfile, sizeof x->rankfile, c->output, ".rankfile");
    if (rc == G5_OK)
        rc = side_path(x->hostfile, sizeof x->hostfile, c->output, ".hostfile");
    if (rc == G5_OK)
        rc = side_path(x->machinefile, sizeof x->machinefile, c->output, ".machinefile");
    x->edges_path = npos > 0 ? pos[0] : NULL;
    x->comp_path = npos > 1 ? pos[1] : NULL;
    /* An existing placement file, an input given as output or a missing
     * directory is refused before any work, not after it (checked again
     * when created). The side files belong to it and are replaced with it:
     * a stale set beside a removed placement file (as the pipeline's cache
     * check leaves) is rewritten. */
    rc = g5_agree(MPI_COMM_WORLD, rc);
    for (int i = 0; i < 2 && rc == G5_OK; i++)
        rc = io_file_check_output(MPI_COMM_WORLD, c->output, c->force, pos[i]);
    if (rc == G5_OK)
        rc = cli_json_check(MPI_COMM_WORLD, c->json, pos[0]);
    return rc;
}

/* The topology and the rank map, replicated (every rank parses the file):
 * the nodes the R ranks use, their names and hop matrix. Collective. */
static int load_topology(pcmd *x)
{
    const int R = x->R;
    x->rank_node_topo = g5_malloc((size_t)R * sizeof(int), "partition: rank map");
    x->rank_node = g5_malloc((size_t)R * sizeof(int), "partition: rank map");
    int rc = x->rank_node_topo && x->rank_node ? G5_OK : G5_ERR_NOMEM;
    if (rc == G5_OK)
        rc = topo_load(x->c.topology, &x->t);
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc == G5_OK)
        rc = topo_map_ranks(x->t, MPI_COMM_WORLD, R, x->c.ranks_per_node, x->rank_node_topo);
    if (rc == G5_OK)
        rc = g5_agree(MPI_COMM_WORLD, used_nodes(x->t, R, x->rank_node_topo, x->rank_node, &x->used, &x->nused));
    if (rc != G5_OK)
        return rc;
    x->names = g5_calloc((size_t)x->nused, IO_NODE_NAME_MAX, "partition: node names");
    rc = x->names ? topo_hop_matrix(x->t, x->used, x->nused, &x->hops) : G5_ERR_NOMEM;
    for (int a = 0; rc == G5_OK && a < x->nused; a++) {
        const char *nm = topo_node_name(x->t, x->used[a]);
        if (strlen(nm) >= IO_NODE_NAME_MAX)
            rc = g5_error(G5_ERR_TOPO, "%s: node name '%s' is longer than %d characters",
                          x->c.topology, nm, IO_NODE_NAME_MAX - 1);
        else
            strcpy(x->names + (size_t)a * IO_NODE_NAME_MAX, nm);
    }
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc == G5_OK)
        g5_progress("partition: %d ranks on %d nodes of %s (%d nodes, %d switch levels)", R, x->nused,
                    x->c.topology, topo_num_nodes(x->t), topo_num_levels(x->t));
    return rc;
}

/* This process's slab of edges and block of labels, and the component
 * sizes. Collective. */
static int read_inputs(pcmd *x)
{
    int rc;
    int64_t efirst, vfirst, vcount;
    G5_TRY(io_edges_open(MPI_COMM_WORLD, x->edges_path, &x->ef));
    G5_TRY(io_components_open(MPI_COMM_WORLD, x->comp_path, &x->cf));
    G5_TRY(g5_agree(MPI_COMM_WORLD, io_components_check_edges(x->cf, x->ef)));
    x->N = io_edges_get_meta(x->ef)->nvertices;
    x->C = io_components_ncomp(x->cf);
    if (x->R > x->N)
        rc = g5_error(G5_ERR_ARG, "%s: %lld vertices, fewer than the %d ranks to place them on",
                      x->edges_path, (long long)x->N, x->R);
    G5_TRY(g5_agree(MPI_COMM_WORLD, rc));
    G5_TRY(g5_memory_check(MPI_COMM_WORLD,
                           cli_mem_what(x->edges_path, io_edges_get_meta(x->ef)->scale,
                                        io_edges_get_meta(x->ef)->nedges),
                           cli_mem_partition(x->N, io_edges_get_meta(x->ef)->nedges, x->C, x->P,
                                             x->order == PART_ORDER_BFS),
                           x->c.force_size));
    g5_range_split(io_edges_get_meta(x->ef)->nedges, x->me, x->P, &efirst, &x->ecount);
    g5_range_split(x->N, x->me, x->P, &vfirst, &vcount);
    x->edges = g5_malloc((size_t)(x->ecount + 1) * 2 * sizeof(int64_t), "partition: edge slab");
    x->label = g5_malloc((size_t)(vcount + 1) * sizeof(int64_t), "partition: labels");
    x->cv = g5_malloc((size_t)(x->C + 1) * sizeof(int64_t), "partition: component sizes");
    x->ce = g5_malloc((size_t)(x->C + 1) * sizeof(int64_t), "partition: component edges");
    G5_TRY(g5_agree(MPI_COMM_WORLD, x->edges && x->label && x->cv && x->ce ? G5_OK : G5_ERR_NOMEM));
    g5_progress("partition: reading %lld edges and %lld labels",
                (long long)io_edges_get_meta(x->ef)->nedges, (long long)x->N);
    G5_TRY(io_edges_read_slab(x->ef, efirst, x->ecount, x->edges, NULL));
    G5_TRY(io_components_read_labels(x->cf, vfirst, vcount, x->label));
    G5_TRY(io_components_read_sizes(x->cf, x->cv, x->ce));
out:
    return rc;
}

/* part_place on the inputs; the edge slab is freed after. Collective. */
static int place(pcmd *x)
{
    part_input in = {
        .nvertices = x->N, .nedges_local = x->ecount, .edges = x->edges, .label = x->label,
        .ncomponents = x->C, .comp_vertices = x->cv, .comp_edges = x->ce, .nranks = x->R,
        .rank_node = x->rank_node, .nnodes = x->nused, .node_hops = x->hops,
        .tolerance = x->c.tolerance, .order = x->order,
    };
    int rc = part_place(MPI_COMM_WORLD, &in, &x->res);
    if (rc == G5_ERR_MISMATCH) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", g5_error_msg());
        rc = g5_error(rc, "%s does not belong to %s: %s", x->comp_path, x->edges_path, msg);
    }
    if (rc != G5_OK)
        return rc;
    free(x->edges);
    x->edges = NULL;
    const part_metrics *m = &x->res->metrics[PART_PLACEMENT];
    if (x->res->giant_split && m->edge_imbalance > 1.0 + x->c.tolerance)
        g5_progress("partition: warning: edge imbalance %.4f exceeds the tolerance %.3f "
                    "(a vertex's degree is larger than the slack; 1-D placement cannot split it)",
                    m->edge_imbalance, x->c.tolerance);
    return G5_OK;
}

/* Rank 0: the rankfile, hostfile and machinefile. They and the placement
 * file are one output: if one cannot be written, the ones this run
 * already wrote are removed, so no partial set is left. */
static int write_scheduler_files(pcmd *x)
{
    const int R = x->R;
    const char **host = g5_malloc((size_t)R * sizeof(char *), "partition: hosts");
    int wrote_rankfile = 0, wrote_hostfile = 0;
    int rc = host ? G5_OK : G5_ERR_NOMEM;
    for (int r = 0; rc == G5_OK && r < R; r++)
        host[r] = x->names + (size_t)x->rank_node[r] * IO_NODE_NAME_MAX;
    if (rc == G5_OK)
        rc = part_write_rankfile(x->rankfile, R, host);
    wrote_rankfile = rc == G5_OK;
    if (rc == G5_OK)
        rc = part_write_hostfile(x->hostfile, R, host);
    wrote_hostfile = rc == G5_OK;
    if (rc == G5_OK)
        rc = part_write_machinefile(x->machinefile, R, host);
    free(host);
    if (rc != G5_OK) {
        unlink(x->c.output);
        if (wrote_rankfile)
            unlink(x->rankfile);
        if (wrote_hostfile)
            unlink(x->hostfile);
    }
    return rc;
}

/* The placement file with its record of how it was made, then the
 * scheduler files. Collective. */
static int write_outputs(pcmd *x)
{
    const io_edges_meta *em = io_edges_get_meta(x->ef);
    const io_components_meta *cm = io_components_get_meta(x->cf);
    io_placement_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.version = IO_PLACEMENT_VERSION;
    meta.nranks = x->R;
    meta.ranks_per_node = x->c.ranks_per_node;
    meta.nnodes = x->nused;
    meta.scale = em->scale;
    meta.nvertices = x->N;
    meta.n_active = x->res->n_active;
    meta.n_giant = x->res->n_giant;
    meta.topology_id = topo_id(x->t);
    meta.edges_content_id = em->content_id;
    meta.tolerance = x->c.tolerance;
    meta.elapsed_seconds = g5_now() - x->t0;
    meta.ranks = x->P;
    meta.components_elapsed_seconds = cm->elapsed_seconds;
    meta.components_ranks = cm->ranks;
    snprintf(meta.topology, sizeof meta.topology, "%s", x->c.topology);
    g5_progress("partition: writing %s", x->c.output);
    int rc = part_save(MPI_COMM_WORLD, x->c.output,
                       x->c.force | (x->c.force_size ? IO_FORCE_SIZE : 0), x->res, &meta, x->rank_node, x->names,
                       x->hops);
    if (rc != G5_OK)
        return rc;
    return g5_agree(MPI_COMM_WORLD, x->me == 0 ? write_scheduler_files(x) : G5_OK);
}

/* --json's writer: the quality table */
static void table_json(FILE *f, const void *ctx)
{
    const pcmd *x = ctx;
    part_print_table(f, 1, x->N, x->res->n_active, x->R, x->res->metrics);
}

/* The quality table, how the giant was cut, the files and the times (CPU
 * seconds too: on a shared machine wall time mostly measures the
 * neighbours); the JSON where --json sends it. Collective. */
static int print_summary(pcmd *x)
{
    int64_t rss = 0, mine = g5_peak_rss();
    double cpu = 0, cpu_mine = 0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        cpu_mine = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                   (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    MPI_Allreduce(&mine, &rss, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cpu_mine, &cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const part_result *res = x->res;
    if (x->me == 0 && !cli_json_stdout(x->c.json)) {
        part_print_table(stdout, 0, x->N, res->n_active, x->R, res->metrics);
        if (!res->giant_split)
            printf("giant component: %lld vertices, kept whole\n", (long long)res->n_giant);
        else if (x->order == PART_ORDER_BFS)
            printf("giant component: %lld vertices, split in BFS order (from vertex %lld, %d levels)\n",
                   (long long)res->n_giant, (long long)res->giant_root, res->bfs_levels);
        else
            printf("giant component: %lld vertices, split in %s order\n", (long long)res->n_giant,
                   part_order_name(x->order));
        printf("wrote %s, %s, %s, %s\n", x->c.output, x->rankfile, x->hostfile, x->machinefile);
        printf("partition time: %.3f s (read %.3f s, place %.3f s, write %.3f s) on %d processes; "
               "CPU %.2f s (all processes); peak RSS %.1f MiB per process (max)\n",
               g5_now() - x->t0, x->t_read, x->t_place, x->t_write, x->P, cpu, (double)rss / 1048576.0);
        fflush(stdout);
    }
    return x->c.json ? cli_json_write(MPI_COMM_WORLD, x->c.json, table_json, x) : G5_OK;
}

static void pcmd_free(pcmd *x)
{
    part_result_free(&x->res);
    io_edges_close(&x->ef);
    io_components_close(&x->cf);
    topo_free(&x->t);
    free(x->rank_node_topo);
    free(x->rank_node);
    free(x->used);
    free(x->hops);
    free(x->names);
    free(x->edges);
    free(x->label);
    free(x->cv);
    free(x->ce);
}

int partition_cmd(int argc, char **argv)
{
    pcmd x = {.c = {NULL, NULL, NULL, 0, 0, 0, 0, 0, PART_DEFAULT_TOLERANCE, "leaves"}};
    x.t0 = g5_now();
    MPI_Comm_size(MPI_COMM_WORLD, &x.P);
    MPI_Comm_rank(MPI_COMM_WORLD, &x.me);
    int rc = parse_args(argc, argv, &x);
    if (rc == 1)
        return 0;
    if (rc != G5_OK)
        return g5_cmd_fail("partition", rc);
    g5_log_init(MPI_COMM_WORLD, x.c.quiet);
    double t;
    G5_TRY(load_topology(&x));
    G5_TRY(read_inputs(&x));
    x.t_read = g5_now() - x.t0;
    t = g5_now();
    G5_TRY(place(&x));
    x.t_place = g5_now() - t;
    t = g5_now();
    G5_TRY(write_outputs(&x));
    x.t_write = g5_now() - t;
    rc = print_summary(&x);
out:
    pcmd_free(&x);
    return rc == G5_OK ? 0 : g5_cmd_fail("partition", rc);
}
