/* SPDX-License-Identifier: MIT */
/*
 * run_kernel1.c - kernel 1 of `g500 run` (construction) in its forms:
 *
 *   cyclic, block, FILE.h5  the graph is built streaming this rank's block
 *                           of the edge list from the file twice (count,
 *                           fill), each read between barriers
 *                           (kern_graph_build_file); a placement file is a
 *                           cached placement: its stages ran before, outside
 *                           kernel 1, and their recorded times are read
 *   components              the placement is computed here, from the edge
 *                           list, inside kernel 1 (Graph500 kernel 1: only
 *                           the edge list is given, everything derived from
 *                           it is timed): one read of this rank's slab
 *                           (untimed, between barriers), then on the same
 *                           ranks the connected components
 *                           (cc_compute), the placement on the
 *                           topology (part_place, its labels gathered into
 *                           the distribution) and the CSR build from the
 *                           slab in memory (kern_graph_build)
 *
 * Each part runs between barriers and is timed as the slowest rank's
 * (run.h); the status is agreed after each part's clock stopped. Progress:
 * one stderr line per part on rank 0. Memory of the in-process form: the
 * slab (20 B per edge of this rank's block) lives through all three parts,
 * beside what each part holds (cc.h, part.h, construct.c).
 */
#include "run.h"

#include "cc.h"
#include "common.h"
#include "part.h"
#include "topo.h"

#include <stdlib.h>
#include <string.h>

double run_part_start(MPI_Comm comm)
{
    MPI_Barrier(comm);
    return g5_now();
}

double run_part_stop(MPI_Comm comm, double t0)
{
    MPI_Barrier(comm);
    return g5_now() - t0;
}

/* Collective. The topology's rank-to-node map of the P ranks (K ranks per
 * node in tree order, or by host name when K is 0) and its hop matrix. */
static int load_rank_map(MPI_Comm comm, const run_opts *o, run_k1 *k)
{
    int P, rc;
    topo *tp = NULL;
    MPI_Comm_size(comm, &P);
    rc = topo_load(o->topology, &tp);
    if (rc == G5_OK) {
        k->rank_node = g5_malloc((size_t)P * sizeof(int), "topology: rank map");
        rc = k->rank_node ? G5_OK : G5_ERR_NOMEM;
    }
    rc = g5_agree(comm, rc);
    if (rc == G5_OK)
        rc = topo_map_ranks(tp, comm, P, o->ranks_per_node, k->rank_node);
    if (rc == G5_OK) {
        k->topology_id = topo_id(tp);
        k->nnodes = topo_num_nodes(tp);
        rc = g5_agree(comm, topo_hop_matrix(tp, NULL, k->nnodes, &k->node_hops));
    }
    topo_free(&tp);
    return rc;
}

/* Collective. Components labels of this process's block, as int64 (what
 * part_place takes), from either merge path's labels. */
static int label_block(const cc_result *cc, int64_t first, int64_t count, int64_t **out)
{
    if (first < cc->label_first || first + count > cc->label_first + cc->label_count)
        return g5_error(G5_ERR_INTERNAL, "run: rows [%lld, %lld) are not in this rank's labels",
                        (long long)first, (long long)(first + count));
    int64_t *l = g5_malloc((size_t)(count + 1) * sizeof(int64_t), "run: component labels");
    if (!l)
        return G5_ERR_NOMEM;
    for (int64_t i = 0; i < count; i++)
        l[i] = cc->label[first - cc->label_first + i];
    *out = l;
    return G5_OK;
}

/* Collective. The placement of the graph on this communicator's ranks from
 * the slab and the components, as a distribution. */
static int place(MPI_Comm comm, run_k1 *k, int64_t N, const int64_t *edges, int64_t count,
                 const cc_result *cc)
{
    int P, me, rc;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int64_t vfirst, vcount, *label = NULL, *all = NULL;
    int *counts = NULL, *displs = NULL;
    part_result *pr = NULL;
    g5_range_split(N, me, P, &vfirst, &vcount);
    rc = g5_agree(comm, label_block(cc, vfirst, vcount, &label));
    if (rc != G5_OK)
        return rc;
    part_input in = {
        .nvertices = N, .nedges_local = count, .edges = edges, .label = label,
        .ncomponents = cc->ncomp, .comp_vertices = cc->comp_vertices, .comp_edges = cc->comp_edges,
        .nranks = P, .rank_node = k->rank_node, .nnodes = k->nnodes, .node_hops = k->node_hops,
        .tolerance = PART_DEFAULT_TOLERANCE, .order = PART_ORDER_LEAVES,
        .skip_metrics = 1,   /* the partition stage measures; kernel 1 only places */
    };
    G5_TRY(part_place(comm, &in, &pr));
    /* every rank's new labels, for the distribution (4 B per vertex there) */
    all = g5_malloc((size_t)N * sizeof(int64_t), "run: new labels");
    counts = g5_malloc((size_t)P * sizeof(int), "run: counts");
    displs = g5_malloc((size_t)P * sizeof(int), "run: counts");
    G5_TRY(g5_agree(comm, all && counts && displs ? G5_OK : G5_ERR_NOMEM));
    for (int r = 0; r < P; r++) {
        int64_t f, c;
        g5_range_split(N, r, P, &f, &c);
        counts[r] = (int)c;
        displs[r] = (int)f;
    }
    MPI_Allgatherv(pr->new_label, (int)vcount, MPI_INT64_T, all, counts, displs, MPI_INT64_T, comm);
    rc = kern_dist_create_placement(comm, N, all, pr->rank_offsets, "in-process placement", &k->dist);
out:
    free(all);
    free(counts);
    free(displs);
    free(label);
    part_result_free(&pr);
    return rc;
}

/* Collective. Kernel 1 with the components placement computed here. */
static int build_in_process(MPI_Comm comm, const run_opts *o, io_edges *ef, run_k1 *k)
{
    int P, me, rc;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    const io_edges_meta *meta = io_edges_get_meta(ef);
    int64_t N = meta->nvertices, first, count;
    int64_t *edges = NULL;
    float *weights = NULL;
    cc_result *cc = NULL;
    double t0;

    if (N > CC_MAX_VERTICES)
        return g5_agree(comm, g5_error(G5_ERR_ARG, "%s: SCALE %d is above what components handles",
                                       io_edges_path(ef), meta->scale));
    G5_TRY(load_rank_map(comm, o, k));
    g5_range_split(meta->nedges, me, P, &first, &count);
    edges = g5_malloc(((size_t)count + 1) * 2 * sizeof(int64_t), "run: edge slab");
    weights = g5_malloc(((size_t)count + 1) * sizeof(float), "run: weights");
    G5_TRY(g5_agree(comm, edges && weights ? G5_OK : G5_ERR_NOMEM));

    g5_progress("kernel 1: reading %lld edges of %s (untimed)", (long long)meta->nedges, io_edges_path(ef));
    t0 = run_part_start(comm);
    rc = io_edges_read_slab(ef, first, count, edges, weights);
    k->t_read = run_part_stop(comm, t0);
    G5_TRY(g5_agree(comm, rc));

    t0 = run_part_start(comm);
    rc = cc_compute(comm, N, edges, count, first, &(cc_opts){.labels_only = 1}, &cc);
    k->t_components = run_part_stop(comm, t0);
    G5_TRY(g5_agree(comm, rc));
    k->ncomponents = cc->ncomp;
    g5_progress("kernel 1: components %.4f s (%lld components, %s merge)", k->t_components,
                (long long)cc->ncomp, cc_merge_name(cc->merge));

    t0 = run_part_start(comm);
    rc = place(comm, k, N, edges, count, cc);
    k->t_placement = run_part_stop(comm, t0);
    G5_TRY(g5_agree(comm, rc));
    cc_result_free(&cc);
    g5_progress("kernel 1: placement %.4f s (%lld vertices with edges, %s)", k->t_placement,
                (long long)kern_dist_n_active(k->dist), o->topology);

    t0 = run_part_start(comm);
    rc = kern_graph_build(comm, k->dist, edges, weights, count, &k->graph);
    k->t_build = run_part_stop(comm, t0);
    G5_TRY(g5_agree(comm, rc));
    g5_progress("kernel 1: build %.4f s", k->t_build);
out:
    cc_result_free(&cc);
    free(edges);
    free(weights);
    return rc;
}

/* Collective. The recorded stage times of a cached placement file: its
 * partition stage's and the components stage's it read (-1 unknown). */
static int cached_stage_times(MPI_Comm comm, const char *path, run_k1 *k)
{
    io_file *f = NULL;
    io_placement_meta m;
    int rc = io_placement_open(comm, path, &f, &m);
    if (rc != G5_OK)
        return rc;
    k->stage_partition = m.elapsed_seconds;
    k->stage_partition_ranks = m.ranks;
    k->stage_components = m.components_elapsed_seconds;
    k->stage_components_ranks = m.components_ranks;
    k->placement_edges_content_id = m.edges_content_id;
    k->placement_topology_id = m.topology_id;
    io_file_close(&f);
    return G5_OK;
}

/* Collective. Kernel 1 streamed from the file under a given distribution. */
static int build_streamed(MPI_Comm comm, const run_opts *o, io_edges *ef, run_k1 *k)
{
    int rc;
    const io_edges_meta *meta = io_edges_get_meta(ef);
    if (strcmp(o->placement, "cyclic") == 0)
        rc = kern_dist_create_cyclic(comm, meta->nvertices, &k->dist);
    else if (strcmp(o->placement, "block") == 0)
        rc = kern_dist_create_block(comm, meta->nvertices, &k->dist);
    else {
        /* A placement made for another edges file (same SCALE, another
         * edge factor or seed) is refused by content id, naming both. */
        rc = cached_stage_times(comm, o->placement, k);
        if (rc == G5_OK && k->placement_edges_content_id != meta->content_id)
            rc = g5_error(G5_ERR_MISMATCH, "%s was made for another edges file than %s "
                          "(edges_content_id %016llx, the edges file's content_id %016llx)",
                          o->placement, io_edges_path(ef),
                          (unsigned long long)k->placement_edges_content_id,
                          (unsigned long long)meta->content_id);
        if (rc == G5_OK)
            rc = kern_dist_load_placement(comm, o->placement, meta->nvertices, &k->dist,
                                          &k->rank_node, &k->node_hops, &k->nnodes);
    }
    rc = g5_agree(comm, rc);
    if (rc == G5_OK && !k->rank_node && o->topology)
        rc = load_rank_map(comm, o, k);
    if (rc != G5_OK)
        return rc;
    g5_progress("constructing the graph (%s distribution), streaming %lld edges of %s", o->placement,
                (long long)meta->nedges, io_edges_path(ef));
    double t0 = run_part_start(comm), rd = 0;
    rc = kern_graph_build_file(comm, k->dist, ef, 0, &rd, &k->graph);
    double t[2] = {g5_now() - t0 - rd, rd}, m[2];
    MPI_Allreduce(t, m, 2, MPI_DOUBLE, MPI_MAX, comm);
    k->t_build = m[0];
    k->t_read = m[1];
    return g5_agree(comm, rc);
}

int run_kernel1(MPI_Comm comm, const run_opts *o, io_edges *ef, run_k1 *k)
{
    memset(k, 0, sizeof *k);
    k->stage_components = k->stage_partition = -1;
    k->stage_components_ranks = k->stage_partition_ranks = -1;
    if (strcmp(o->placement, "components") == 0) {
        k->in_process = 1;
        return build_in_process(comm, o, ef, k);
    }
    return build_streamed(comm, o, ef, k);
}

void run_k1_free(run_k1 *k)
{
    kern_graph_free(&k->graph);
    kern_dist_free(&k->dist);
    free(k->rank_node);
    free(k->node_hops);
    k->rank_node = k->node_hops = NULL;
}
