/* SPDX-License-Identifier: MIT */
/*
 * part_file.c - a placement result to and from its file (format in io/io.h):
 * part_save writes it (each process its vertex block, rank 0 the replicated
 * rest), part_stats_print is `g500 stats PLACEMENT.h5`: the comparison
 * table (this placement vs the cyclic and block baselines), as text or
 * JSON, read back from the file's /metrics groups.
 */
#include "part.h"

#include <stdlib.h>

#include "common.h"
#include "io.h"
#include "json.h"
#include "part_internal.h"

int part_save(MPI_Comm comm, const char *path, int force, const part_result *res,
              const io_placement_meta *meta, const int *rank_node,
              const char *node_names, const int *node_hops)
{
    io_file *f = NULL;
    io_placement_metrics im[PART_NSCHEMES];
    int32_t *rn = NULL, *hops = NULL;
    int rc;
    int64_t nn = meta->nnodes;

    rn = g5_malloc((size_t)res->nranks * sizeof(int32_t), "partition: rank nodes");
    hops = g5_malloc((size_t)(nn * nn) * sizeof(int32_t), "partition: hops");
    rc = g5_agree(comm, rn && hops ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    for (int r = 0; r < res->nranks; r++)
        rn[r] = rank_node[r];
    for (int64_t i = 0; i < nn * nn; i++)
        hops[i] = node_hops[i];
    for (int s = 0; s < PART_NSCHEMES; s++) {
        const part_metrics *x = &res->metrics[s];
        im[s].total_edges = x->total_edges;
        im[s].cut_edges = x->cut_edges;
        im[s].hop_cut = x->hop_cut;
        im[s].edge_imbalance = x->edge_imbalance;
        im[s].vertex_imbalance = x->vertex_imbalance;
        im[s].bytes_per_vertex = x->bytes_per_vertex;
        im[s].rank_edges = x->rank_edges;
        im[s].rank_vertices = x->rank_vertices;
    }
    G5_TRY(io_placement_create(comm, path, meta, force, &f));
    G5_TRY(io_placement_write_ranks(f, meta, res->rank_offsets, rn, node_names, hops, im));
    G5_TRY(io_placement_write_vertices(f, res->block_first, res->block_count, res->new_label, res->owner));
    rc = io_file_commit(&f);
out:
    if (f)
        io_file_abort(&f);
    free(rn);
    free(hops);
    return rc;
}

int part_stats_print(io_file *f, FILE *out, int json)
{
    io_placement_meta m;
    io_placement_metrics im[PART_NSCHEMES];
    part_metrics pm[PART_NSCHEMES];
    int rc = G5_OK, me;
    int64_t *arrays = NULL;

    MPI_Comm_rank(io_file_comm(f), &me);
    rc = io_placement_read_meta(f, &m);
    if (rc != G5_OK)
        return rc;
    arrays = g5_malloc((size_t)2 * PART_NSCHEMES * m.nranks * sizeof(int64_t), "stats: rank arrays");
    rc = g5_agree(io_file_comm(f), arrays ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    for (int s = 0; s < PART_NSCHEMES; s++) {
        im[s].rank_edges = arrays + (2 * s) * (int64_t)m.nranks;
        im[s].rank_vertices = arrays + (2 * s + 1) * (int64_t)m.nranks;
    }
    G5_TRY(io_placement_read_metrics(f, &m, im));
    for (int s = 0; s < PART_NSCHEMES; s++) {
        pm[s].total_edges = im[s].total_edges;
        pm[s].cut_edges = im[s].cut_edges;
        pm[s].hop_cut = im[s].hop_cut;
        pm[s].edge_imbalance = im[s].edge_imbalance;
        pm[s].vertex_imbalance = im[s].vertex_imbalance;
        pm[s].bytes_per_vertex = im[s].bytes_per_vertex;
        pm[s].rank_edges = im[s].rank_edges;
        pm[s].rank_vertices = im[s].rank_vertices;
    }
    if (me == 0) {
        if (json) {
            g5_json j;
            g5_json_init(&j, out, 1);
            g5_json_begin_object(&j);
            g5_json_kv_string(&j, "file", io_file_path(f));
            g5_json_kv_string(&j, "topology", m.topology);
            g5_json_kv_int(&j, "ranks_per_node", m.ranks_per_node);
            g5_json_kv_int(&j, "nnodes", m.nnodes);
            g5_json_kv_int(&j, "n_giant", m.n_giant);
            g5_json_kv_double(&j, "tolerance", m.tolerance);
            g5_json_key(&j, "placement");
            part_metrics_json(&j, m.nvertices, m.n_active, m.nranks, pm);
            g5_json_end_object(&j);
            g5_json_finish(&j);
        } else {
            fprintf(out, "%s: placement of SCALE %d on %d ranks, %d nodes of %s",
                    io_file_path(f), m.scale, m.nranks, m.nnodes, m.topology);
            if (m.ranks_per_node > 0)
                fprintf(out, " (%d ranks per node)", m.ranks_per_node);
            fprintf(out, "\n  giant component: %lld vertices; edge tolerance %.1f%%\n",
                    (long long)m.n_giant, 100.0 * m.tolerance);
            part_print_table(out, 0, m.nvertices, m.n_active, m.nranks, pm);
        }
        fflush(out);
    }
out:
    free(arrays);
    return rc;
}

int part_stats_print_path(MPI_Comm comm, const char *path, FILE *out, int json)
{
    io_file *f = NULL;
    io_placement_meta m;
    int rc = io_placement_open(comm, path, &f, &m);
    if (rc != G5_OK)
        return rc;
    rc = part_stats_print(f, out, json);
    io_file_close(&f);
    return rc;
}
