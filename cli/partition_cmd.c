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
    const char *topology, *output;
    int ranks, ranks_per_node, force, quiet, json;
    double tolerance;
    const char *order;
};

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

int partition_cmd(int argc, char **argv)
{
    struct cfg c = {NULL, NULL, 0, 0, 0, 0, 0, PART_DEFAULT_TOLERANCE, "leaves"};
    g5_opt opts[] = {
        {"topology", 't', G5_OPT_STRING, &c.topology, "FILE", "Slurm topology.conf or tleaf line (required)"},
        {"ranks", 'r', G5_OPT_INT, &c.ranks, "R", "ranks the kernels will run with (0: the process count)"},
        {"ranks-per-node", 'k', G5_OPT_INT, &c.ranks_per_node, "K",
         "emulate nodes: rank r on the r/K-th node of the tree walk (0: map by host name, needs R = P)"},
        {"tolerance", 0, G5_OPT_DOUBLE, &c.tolerance, "X", "edge balance tolerance (max/mean - 1)"},
        {"order", 0, G5_OPT_STRING, &c.order, "O",
         "order the giant is cut in: leaves (ids, degree-1 vertices after their neighbour), id, bfs, degree"},
        {"output", 'o', G5_OPT_STRING, &c.output, "FILE", "placement file to write (required)"},
        {"force", 'f', G5_OPT_FLAG, &c.force, "", "replace existing outputs"},
        {"json", 0, G5_OPT_FLAG, &c.json, "", "print the quality table as JSON"},
        {"quiet", 'q', G5_OPT_FLAG, &c.quiet, "", "no progress lines"},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[2];
    int npos = 0, rc, P, me, R, order = -1;
    topo *t = NULL;
    io_edges *ef = NULL;
    io_components *cf = NULL;
    int *rank_node_topo = NULL, *rank_node = NULL, *used = NULL, *hops = NULL, nused = 0;
    char *names = NULL;
    int64_t *edges = NULL, *label = NULL, *cv = NULL, *ce = NULL, C = 0;
    int64_t efirst, ecount, vfirst, vcount, N = 0;
    part_result *res = NULL;
    io_placement_meta meta;
    char rankfile[4200], hostfile[4200], machinefile[4200];
    double t0 = g5_now(), t_read = 0, t_place = 0, t_write = 0;
    int64_t rss = 0;
    double cpu = 0;

    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    rc = g5_opts_parse(argc, argv, opts, nopts, pos, 2, &npos);
    if (rc == 1) {
        if (me == 0)
            g5_opts_help(stdout, USAGE,
                         "Place the graph's components on R ranks by switch hops: compact away isolated\n"
                         "vertices, keep small components whole, cut the giant in a vertex order over\n"
                         "the ranks of a switch-tree walk with balanced edges; write the placement file,\n"
                         "an Open MPI rankfile, an MPICH machinefile and a SLURM_HOSTFILE, and print\n"
                         "the quality table.",
                         opts, nopts);
        return 0;
    }
    if (rc == G5_OK && npos != 2)
        rc = g5_error(G5_ERR_ARG, "expected EDGES.h5 and COMPONENTS.h5 (usage: %s)", USAGE);
    if (rc == G5_OK && !c.topology)
        rc = g5_error(G5_ERR_ARG, "--topology FILE is required");
    if (rc == G5_OK && !c.output)
        rc = g5_error(G5_ERR_ARG, "-o PLACEMENT.h5 is required");
    if (rc == G5_OK && (c.ranks < 0 || c.ranks_per_node < 0))
        rc = g5_error(G5_ERR_ARG, "--ranks and --ranks-per-node must be positive");
    if (rc == G5_OK && !(c.tolerance >= 0 && c.tolerance < 10))
        rc = g5_error(G5_ERR_ARG, "--tolerance must be in [0, 10)");
    for (int o = PART_ORDER_BFS; o <= PART_ORDER_LEAVES; o++)
        if (c.order && strcmp(c.order, part_order_name(o)) == 0)
            order = o;
    if (rc == G5_OK && order < 0)
        rc = g5_error(G5_ERR_ARG, "--order must be leaves, id, bfs or degree, not '%s'", c.order ? c.order : "");
    R = c.ranks > 0 ? c.ranks : P;
    if (rc == G5_OK && c.ranks_per_node == 0 && R != P)
        rc = g5_error(G5_ERR_ARG, "--ranks %d differs from the %d processes running: give --ranks-per-node K "
                      "to place the ranks on the topology's nodes in tree order", R, P);
    if (rc == G5_OK)
        rc = side_path(rankfile, sizeof rankfile, c.output, ".rankfile");
    if (rc == G5_OK)
        rc = side_path(hostfile, sizeof hostfile, c.output, ".hostfile");
    if (rc == G5_OK)
        rc = side_path(machinefile, sizeof machinefile, c.output, ".machinefile");
    /* An existing placement file, an input given as output or a missing
     * directory is refused before any work, not after it (checked again
     * when created). The rankfile and hostfile belong to it and are
     * replaced with it: a stale pair beside a removed placement file (as
     * the pipeline's cache check leaves) is rewritten. */
    rc = g5_agree(MPI_COMM_WORLD, rc);
    for (int i = 0; i < 2 && rc == G5_OK; i++)
        rc = io_file_check_output(MPI_COMM_WORLD, c.output, c.force, pos[i]);
    if (rc != G5_OK)
        return g5_cmd_fail("partition", rc);
    g5_log_init(MPI_COMM_WORLD, c.quiet);

    /* Topology and the rank map, replicated (every rank parses the file). */
    rank_node_topo = g5_malloc((size_t)R * sizeof(int), "partition: rank map");
    rank_node = g5_malloc((size_t)R * sizeof(int), "partition: rank map");
    rc = rank_node_topo && rank_node ? G5_OK : G5_ERR_NOMEM;
    if (rc == G5_OK)
        rc = topo_load(c.topology, &t);
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc == G5_OK) {
        if (c.ranks_per_node > 0)
            rc = g5_agree(MPI_COMM_WORLD, topo_map_ranks_per_node(t, R, c.ranks_per_node, rank_node_topo));
        else
            rc = topo_map_ranks_by_name(t, MPI_COMM_WORLD, rank_node_topo);
    }
    if (rc == G5_OK)
        rc = g5_agree(MPI_COMM_WORLD, used_nodes(t, R, rank_node_topo, rank_node, &used, &nused));
    if (rc == G5_OK) {
        names = g5_calloc((size_t)nused, IO_NODE_NAME_MAX, "partition: node names");
        rc = names ? topo_hop_matrix(t, used, nused, &hops) : G5_ERR_NOMEM;
        for (int a = 0; rc == G5_OK && a < nused; a++) {
            const char *nm = topo_node_name(t, used[a]);
            if (strlen(nm) >= IO_NODE_NAME_MAX)
                rc = g5_error(G5_ERR_TOPO, "%s: node name '%s' is longer than %d characters",
                              c.topology, nm, IO_NODE_NAME_MAX - 1);
            else
                strcpy(names + (size_t)a * IO_NODE_NAME_MAX, nm);
        }
        rc = g5_agree(MPI_COMM_WORLD, rc);
    }
    if (rc != G5_OK)
        goto out;
    g5_progress("partition: %d ranks on %d nodes of %s (%d nodes, %d switch levels)", R, nused,
                c.topology, topo_num_nodes(t), topo_num_levels(t));

    /* Inputs: this process's slab of edges and block of labels. */
    G5_TRY(io_edges_open(MPI_COMM_WORLD, pos[0], &ef));
    G5_TRY(io_components_open(MPI_COMM_WORLD, pos[1], &cf));
    G5_TRY(g5_agree(MPI_COMM_WORLD, io_components_check_edges(cf, ef)));
    N = io_edges_get_meta(ef)->nvertices;
    C = io_components_ncomp(cf);
    if (R > N)
        rc = g5_error(G5_ERR_ARG, "%s: %lld vertices, fewer than the %d ranks to place them on", pos[0],
                      (long long)N, R);
    G5_TRY(g5_agree(MPI_COMM_WORLD, rc));
    g5_range_split(io_edges_get_meta(ef)->nedges, me, P, &efirst, &ecount);
    g5_range_split(N, me, P, &vfirst, &vcount);
    edges = g5_malloc((size_t)(ecount + 1) * 2 * sizeof(int64_t), "partition: edge slab");
    label = g5_malloc((size_t)(vcount + 1) * sizeof(int64_t), "partition: labels");
    cv = g5_malloc((size_t)(C + 1) * sizeof(int64_t), "partition: component sizes");
    ce = g5_malloc((size_t)(C + 1) * sizeof(int64_t), "partition: component edges");
    G5_TRY(g5_agree(MPI_COMM_WORLD, edges && label && cv && ce ? G5_OK : G5_ERR_NOMEM));
    g5_progress("partition: reading %lld edges and %lld labels", (long long)io_edges_get_meta(ef)->nedges, (long long)N);
    G5_TRY(io_edges_read_slab(ef, efirst, ecount, edges, NULL));
    G5_TRY(io_components_read_labels(cf, vfirst, vcount, label));
    G5_TRY(io_components_read_sizes(cf, cv, ce));
    t_read = g5_now() - t0;

    {
        part_input in = {
            .nvertices = N, .nedges_local = ecount, .edges = edges, .label = label,
            .ncomponents = C, .comp_vertices = cv, .comp_edges = ce, .nranks = R,
            .rank_node = rank_node, .nnodes = nused, .node_hops = hops, .tolerance = c.tolerance,
            .order = order,
        };
        double t1 = g5_now();
        rc = part_place(MPI_COMM_WORLD, &in, &res);
        t_place = g5_now() - t1;
        if (rc == G5_ERR_MISMATCH) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", g5_error_msg());
            rc = g5_error(rc, "%s does not belong to %s: %s", pos[1], pos[0], msg);
        }
        if (rc != G5_OK)
            goto out;
    }
    free(edges);
    edges = NULL;
    if (res->giant_split && res->metrics[PART_PLACEMENT].edge_imbalance > 1.0 + c.tolerance)
        g5_progress("partition: warning: edge imbalance %.4f exceeds the tolerance %.3f "
                    "(a vertex's degree is larger than the slack; 1-D placement cannot split it)",
                    res->metrics[PART_PLACEMENT].edge_imbalance, c.tolerance);

    memset(&meta, 0, sizeof meta);
    meta.version = IO_PLACEMENT_VERSION;
    meta.nranks = R;
    meta.ranks_per_node = c.ranks_per_node;
    meta.nnodes = nused;
    meta.scale = io_edges_get_meta(ef)->scale;
    meta.nvertices = N;
    meta.n_active = res->n_active;
    meta.n_giant = res->n_giant;
    meta.topology_id = topo_id(t);
    meta.edges_content_id = io_edges_get_meta(ef)->content_id;
    meta.tolerance = c.tolerance;
    meta.elapsed_seconds = g5_now() - t0;
    meta.ranks = P;
    meta.components_elapsed_seconds = io_components_get_meta(cf)->elapsed_seconds;
    meta.components_ranks = io_components_get_meta(cf)->ranks;
    snprintf(meta.topology, sizeof meta.topology, "%s", c.topology);
    {
        double t1 = g5_now();
        g5_progress("partition: writing %s", c.output);
        G5_TRY(part_save(MPI_COMM_WORLD, c.output, c.force, res, &meta, rank_node, names, hops));
        /* Scheduler files: rank 0 writes, everyone agrees. The three files
         * are one output: if a scheduler file cannot be written, the ones
         * this run already wrote are removed, so no partial set is left. */
        if (me == 0) {
            const char **host = g5_malloc((size_t)R * sizeof(char *), "partition: hosts");
            int wrote_rankfile = 0, wrote_hostfile = 0;
            rc = host ? G5_OK : G5_ERR_NOMEM;
            for (int r = 0; rc == G5_OK && r < R; r++)
                host[r] = names + (size_t)rank_node[r] * IO_NODE_NAME_MAX;
            if (rc == G5_OK)
                rc = part_write_rankfile(rankfile, R, host);
            wrote_rankfile = rc == G5_OK;
            if (rc == G5_OK)
                rc = part_write_hostfile(hostfile, R, host);
            wrote_hostfile = rc == G5_OK;
            if (rc == G5_OK)
                rc = part_write_machinefile(machinefile, R, host);
            free(host);
            if (rc != G5_OK) {
                unlink(c.output);
                if (wrote_rankfile)
                    unlink(rankfile);
                if (wrote_hostfile)
                    unlink(hostfile);
            }
        }
        G5_TRY(g5_agree(MPI_COMM_WORLD, rc));
        t_write = g5_now() - t1;
    }
    {
        /* CPU seconds too: on a shared machine wall time mostly measures
         * the neighbours. */
        int64_t mine = g5_peak_rss();
        struct rusage ru;
        double cpu_mine = 0;
        if (getrusage(RUSAGE_SELF, &ru) == 0)
            cpu_mine = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                       (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
        MPI_Allreduce(&mine, &rss, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&cpu_mine, &cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (me == 0) {
        part_print_table(stdout, c.json, N, res->n_active, R, res->metrics);
        if (!c.json) {
            if (!res->giant_split)
                printf("giant component: %lld vertices, kept whole\n", (long long)res->n_giant);
            else if (order == PART_ORDER_BFS)
                printf("giant component: %lld vertices, split in BFS order (from vertex %lld, %d levels)\n",
                       (long long)res->n_giant, (long long)res->giant_root, res->bfs_levels);
            else
                printf("giant component: %lld vertices, split in %s order\n", (long long)res->n_giant,
                       part_order_name(order));
            printf("wrote %s, %s, %s, %s\n", c.output, rankfile, hostfile, machinefile);
            printf("partition time: %.3f s (read %.3f s, place %.3f s, write %.3f s) on %d processes; "
                   "CPU %.2f s (all processes); peak RSS %.1f MiB per process (max)\n",
                   g5_now() - t0, t_read, t_place, t_write, P, cpu, (double)rss / 1048576.0);
        }
        fflush(stdout);
    }
out:
    part_result_free(&res);
    io_edges_close(&ef);
    io_components_close(&cf);
    topo_free(&t);
    free(rank_node_topo);
    free(rank_node);
    free(used);
    free(hops);
    free(names);
    free(edges);
    free(label);
    free(cv);
    free(ce);
    return rc == G5_OK ? 0 : g5_cmd_fail("partition", rc);
}
