/* SPDX-License-Identifier: MIT */
/*
 * io_placement.c - the placement file (format in io.h): writer and checked
 * reader on top of the generic io_file layer.
 *
 * Per-vertex datasets (/new_label, /owner) are written and read by row slabs,
 * each rank its own. Everything else is small and replicated: rank 0 writes
 * it, every rank reads all of it. /node_names is a fixed-length string
 * dataset (IO_NODE_NAME_MAX bytes, NUL-terminated) so h5py and h5dump read
 * it without project code.
 */
#include "io.h"

#include <stdio.h>
#include <string.h>

#include "common.h"

#define NSCHEMES IO_PLACEMENT_NSCHEMES

const char *io_placement_scheme_name(int scheme)
{
    static const char *names[NSCHEMES] = {"placement", "cyclic", "block"};
    return scheme >= 0 && scheme < NSCHEMES ? names[scheme] : "?";
}

static hid_t name_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, IO_NODE_NAME_MAX);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    return t;
}

static int rank0(io_file *f)
{
    int r;
    MPI_Comm_rank(io_file_comm(f), &r);
    return r == 0;
}

int io_placement_create(MPI_Comm comm, const char *path, const io_placement_meta *m,
                        int force, io_file **out)
{
    io_file *f = NULL;
    int rc;
    hsize_t dn[1] = {(hsize_t)m->nvertices}, dr1[1] = {(hsize_t)m->nranks + 1},
            dr[1] = {(hsize_t)m->nranks}, dnn[2] = {(hsize_t)m->nnodes, (hsize_t)m->nnodes},
            dnodes[1] = {(hsize_t)m->nnodes};
    hid_t nt;
    char name[64];

    *out = NULL;
    {
        /* /new_label and /owner in whole chunks of 2^20 rows. */
        int64_t cr = m->nvertices < (1 << 20) ? m->nvertices : (1 << 20);
        int64_t nch = cr > 0 ? (m->nvertices + cr - 1) / cr : 0;
        snprintf(name, sizeof name, "SCALE %d", m->scale);
        rc = io_file_check_space(comm, path ? path : "", name, (double)nch * ((double)cr * 12.0 + 8.0),
                                 force);
        if (rc != G5_OK)
            return rc;
    }
    rc = io_file_create(comm, path, IO_PLACEMENT_FORMAT, IO_PLACEMENT_VERSION, force, &f);
    if (rc != G5_OK)
        return rc;
    G5_TRY(io_attr_write_int64(f, "/", "nranks", m->nranks));
    G5_TRY(io_attr_write_int64(f, "/", "ranks_per_node", m->ranks_per_node));
    G5_TRY(io_attr_write_int64(f, "/", "nnodes", m->nnodes));
    G5_TRY(io_attr_write_int64(f, "/", "scale", m->scale));
    G5_TRY(io_attr_write_int64(f, "/", "nvertices", m->nvertices));
    G5_TRY(io_attr_write_int64(f, "/", "n_active", m->n_active));
    G5_TRY(io_attr_write_int64(f, "/", "n_giant", m->n_giant));
    G5_TRY(io_attr_write_uint64(f, "/", "topology_id", m->topology_id));
    G5_TRY(io_attr_write_uint64(f, "/", "edges_content_id", m->edges_content_id));
    G5_TRY(io_attr_write_double(f, "/", "tolerance", m->tolerance));
    G5_TRY(io_attr_write_string(f, "/", "topology", m->topology));
    if (m->ranks > 0)
        G5_TRY(io_stage_write(f, "", m->elapsed_seconds, m->ranks));
    if (m->components_ranks > 0)
        G5_TRY(io_stage_write(f, "components_", m->components_elapsed_seconds, m->components_ranks));
    /* Chunked with checksums: the kernels trust these labels blindly. */
    G5_TRY(io_dataset_create(f, "/new_label", H5T_STD_I64LE, 1, dn, 1 << 20));
    G5_TRY(io_dataset_create(f, "/owner", H5T_STD_I32LE, 1, dn, 1 << 20));
    G5_TRY(io_dataset_create(f, "/rank_offsets", H5T_STD_I64LE, 1, dr1, 0));
    G5_TRY(io_dataset_create(f, "/rank_node", H5T_STD_I32LE, 1, dr, 0));
    G5_TRY(io_dataset_create(f, "/node_hops", H5T_STD_I32LE, 2, dnn, 0));
    nt = name_type();
    rc = io_dataset_create(f, "/node_names", nt, 1, dnodes, 0);
    H5Tclose(nt);
    if (rc != G5_OK)
        goto out;
    for (int s = 0; s < NSCHEMES; s++) {
        snprintf(name, sizeof name, "/metrics/%s/rank_edges", io_placement_scheme_name(s));
        G5_TRY(io_dataset_create(f, name, H5T_STD_I64LE, 1, dr, 0));
        snprintf(name, sizeof name, "/metrics/%s/rank_vertices", io_placement_scheme_name(s));
        G5_TRY(io_dataset_create(f, name, H5T_STD_I64LE, 1, dr, 0));
    }
out:
    rc = io_file_agree(f, rc);
    if (rc != G5_OK)
        io_file_abort(&f);
    *out = f;
    return rc;
}

int io_placement_write_ranks(io_file *f, const io_placement_meta *m,
                             const int64_t *rank_offsets, const int32_t *rank_node,
                             const char *node_names, const int32_t *node_hops,
                             const io_placement_metrics *metrics)
{
    int rc = G5_OK, w = rank0(f);
    int64_t R = m->nranks, nn = m->nnodes;
    hid_t nt;
    char g[64], name[96];

    G5_TRY(io_write_rows(f, "/rank_offsets", H5T_NATIVE_INT64, 0, w ? R + 1 : 0, rank_offsets));
    G5_TRY(io_write_rows(f, "/rank_node", H5T_NATIVE_INT32, 0, w ? R : 0, rank_node));
    G5_TRY(io_write_rows(f, "/node_hops", H5T_NATIVE_INT32, 0, w ? nn : 0, node_hops));
    nt = name_type();
    rc = io_write_rows(f, "/node_names", nt, 0, w ? nn : 0, node_names);
    H5Tclose(nt);
    if (rc != G5_OK)
        goto out;
    for (int s = 0; s < NSCHEMES; s++) {
        const io_placement_metrics *x = &metrics[s];
        snprintf(g, sizeof g, "/metrics/%s", io_placement_scheme_name(s));
        G5_TRY(io_attr_write_int64(f, g, "total_edges", x->total_edges));
        G5_TRY(io_attr_write_int64(f, g, "cut_edges", x->cut_edges));
        G5_TRY(io_attr_write_int64(f, g, "hop_cut", x->hop_cut));
        G5_TRY(io_attr_write_double(f, g, "edge_imbalance", x->edge_imbalance));
        G5_TRY(io_attr_write_double(f, g, "vertex_imbalance", x->vertex_imbalance));
        G5_TRY(io_attr_write_double(f, g, "bytes_per_vertex", x->bytes_per_vertex));
        snprintf(name, sizeof name, "%s/rank_edges", g);
        G5_TRY(io_write_rows(f, name, H5T_NATIVE_INT64, 0, w ? R : 0, x->rank_edges));
        snprintf(name, sizeof name, "%s/rank_vertices", g);
        G5_TRY(io_write_rows(f, name, H5T_NATIVE_INT64, 0, w ? R : 0, x->rank_vertices));
    }
out:
    return io_file_agree(f, rc);
}

int io_placement_write_vertices(io_file *f, int64_t first, int64_t count,
                                const int64_t *new_label, const int32_t *owner)
{
    int rc;
    rc = io_write_rows(f, "/new_label", H5T_NATIVE_INT64, first, count, new_label);
    if (rc == G5_OK)
        rc = io_write_rows(f, "/owner", H5T_NATIVE_INT32, first, count, owner);
    return rc;
}

static int read_int(io_file *f, const char *name, int64_t lo, int64_t hi, int64_t *v)
{
    int rc = io_attr_read_int64(f, "/", name, v);
    if (rc == G5_OK && (*v < lo || *v > hi))
        rc = g5_error(G5_ERR_FORMAT, "%s: attribute %s = %lld is outside [%lld, %lld]",
                      io_file_path(f), name, (long long)*v, (long long)lo, (long long)hi);
    return rc;
}

int io_placement_open(MPI_Comm comm, const char *path, io_file **out, io_placement_meta *m)
{
    io_file *f = NULL;
    int rc;

    *out = NULL;
    memset(m, 0, sizeof *m);
    rc = io_file_open(comm, path, IO_PLACEMENT_FORMAT, IO_PLACEMENT_VERSION, &f);
    if (rc != G5_OK)
        return rc;
    rc = io_placement_read_meta(f, m);
    if (rc != G5_OK)
        io_file_close(&f);
    *out = f;
    return rc;
}

int io_placement_read_meta(io_file *f, io_placement_meta *m)
{
    int rc = G5_OK;
    int64_t v, d[2];
    char name[96];

    memset(m, 0, sizeof *m);
    if (strcmp(io_file_format(f), IO_PLACEMENT_FORMAT) != 0)
        rc = g5_error(G5_ERR_FORMAT, "%s: a %s file, not a placement file", io_file_path(f), io_file_format(f));
    if (rc != G5_OK)
        goto out;
    m->version = IO_PLACEMENT_VERSION;
    G5_TRY(read_int(f, "nvertices", 1, INT64_MAX, &m->nvertices));
    G5_TRY(read_int(f, "nranks", 1, 1 << 24, &v));
    m->nranks = (int)v;
    G5_TRY(read_int(f, "ranks_per_node", 0, m->nranks, &v));
    m->ranks_per_node = (int)v;
    G5_TRY(read_int(f, "nnodes", 1, m->nranks, &v));
    m->nnodes = (int)v;
    G5_TRY(read_int(f, "scale", 0, 62, &v));
    m->scale = (int)v;
    G5_TRY(read_int(f, "n_active", 0, m->nvertices, &m->n_active));
    G5_TRY(read_int(f, "n_giant", 0, m->n_active, &m->n_giant));
    G5_TRY(io_attr_read_uint64(f, "/", "topology_id", &m->topology_id));
    G5_TRY(io_attr_read_uint64(f, "/", "edges_content_id", &m->edges_content_id));
    G5_TRY(io_attr_read_double(f, "/", "tolerance", &m->tolerance));
    G5_TRY(io_attr_read_string(f, "/", "topology", m->topology, sizeof m->topology));
    G5_TRY(io_stage_read(f, "", &m->elapsed_seconds, &m->ranks));
    G5_TRY(io_stage_read(f, "components_", &m->components_elapsed_seconds, &m->components_ranks));
    d[0] = m->nvertices;
    G5_TRY(io_dataset_check(f, "/new_label", H5T_INTEGER, 8, 1, d));
    d[0] = m->nvertices;
    G5_TRY(io_dataset_check(f, "/owner", H5T_INTEGER, 4, 1, d));
    d[0] = m->nranks + 1;
    G5_TRY(io_dataset_check(f, "/rank_offsets", H5T_INTEGER, 8, 1, d));
    d[0] = m->nranks;
    G5_TRY(io_dataset_check(f, "/rank_node", H5T_INTEGER, 4, 1, d));
    d[0] = m->nnodes, d[1] = m->nnodes;
    G5_TRY(io_dataset_check(f, "/node_hops", H5T_INTEGER, 4, 2, d));
    d[0] = m->nnodes;
    G5_TRY(io_dataset_check(f, "/node_names", H5T_STRING, IO_NODE_NAME_MAX, 1, d));
    for (int s = 0; s < NSCHEMES; s++) {
        snprintf(name, sizeof name, "/metrics/%s/rank_edges", io_placement_scheme_name(s));
        d[0] = m->nranks;
        G5_TRY(io_dataset_check(f, name, H5T_INTEGER, 8, 1, d));
        snprintf(name, sizeof name, "/metrics/%s/rank_vertices", io_placement_scheme_name(s));
        d[0] = m->nranks;
        G5_TRY(io_dataset_check(f, name, H5T_INTEGER, 8, 1, d));
    }
out:
    return g5_agree(io_file_comm(f), rc);
}

int io_placement_read_ranks(io_file *f, const io_placement_meta *m, int64_t *rank_offsets,
                            int32_t *rank_node, char *node_names, int32_t *node_hops)
{
    int rc = G5_OK;
    hid_t nt;
    if (rank_offsets) {
        G5_TRY(io_read_rows(f, "/rank_offsets", H5T_NATIVE_INT64, 0, m->nranks + 1, rank_offsets));
        for (int r = 0; r < m->nranks && rc == G5_OK; r++)
            if (rank_offsets[0] != 0 || rank_offsets[r + 1] < rank_offsets[r] ||
                rank_offsets[m->nranks] != m->n_active)
                rc = g5_error(G5_ERR_FORMAT, "%s: /rank_offsets is not a nondecreasing split of [0, n_active = %lld)",
                              io_file_path(f), (long long)m->n_active);
    }
    if (rank_node && rc == G5_OK) {
        G5_TRY(io_read_rows(f, "/rank_node", H5T_NATIVE_INT32, 0, m->nranks, rank_node));
        for (int r = 0; r < m->nranks && rc == G5_OK; r++)
            if (rank_node[r] < 0 || rank_node[r] >= m->nnodes)
                rc = g5_error(G5_ERR_FORMAT, "%s: /rank_node[%d] = %d is not a node in [0, %d)",
                              io_file_path(f), r, rank_node[r], m->nnodes);
    }
    if (node_hops && rc == G5_OK)
        G5_TRY(io_read_rows(f, "/node_hops", H5T_NATIVE_INT32, 0, m->nnodes, node_hops));
    if (node_names && rc == G5_OK) {
        nt = name_type();
        rc = io_read_rows(f, "/node_names", nt, 0, m->nnodes, node_names);
        H5Tclose(nt);
        for (int i = 0; i < m->nnodes && rc == G5_OK; i++)
            node_names[(int64_t)i * IO_NODE_NAME_MAX + IO_NODE_NAME_MAX - 1] = '\0';
    }
out:
    return rc;
}

int io_placement_read_metrics(io_file *f, const io_placement_meta *m,
                              io_placement_metrics *metrics)
{
    int rc = G5_OK;
    char g[64], name[96];
    for (int s = 0; s < NSCHEMES; s++) {
        io_placement_metrics *x = &metrics[s];
        snprintf(g, sizeof g, "/metrics/%s", io_placement_scheme_name(s));
        G5_TRY(io_attr_read_int64(f, g, "total_edges", &x->total_edges));
        G5_TRY(io_attr_read_int64(f, g, "cut_edges", &x->cut_edges));
        G5_TRY(io_attr_read_int64(f, g, "hop_cut", &x->hop_cut));
        G5_TRY(io_attr_read_double(f, g, "edge_imbalance", &x->edge_imbalance));
        G5_TRY(io_attr_read_double(f, g, "vertex_imbalance", &x->vertex_imbalance));
        G5_TRY(io_attr_read_double(f, g, "bytes_per_vertex", &x->bytes_per_vertex));
        if (x->rank_edges) {
            snprintf(name, sizeof name, "%s/rank_edges", g);
            G5_TRY(io_read_rows(f, name, H5T_NATIVE_INT64, 0, m->nranks, x->rank_edges));
        }
        if (x->rank_vertices) {
            snprintf(name, sizeof name, "%s/rank_vertices", g);
            G5_TRY(io_read_rows(f, name, H5T_NATIVE_INT64, 0, m->nranks, x->rank_vertices));
        }
    }
out:
    return g5_agree(io_file_comm(f), rc);
}

int io_placement_read_vertices(io_file *f, int64_t first, int64_t count,
                               int64_t *new_label, int32_t *owner)
{
    int rc = G5_OK;
    if (new_label)
        rc = io_read_rows(f, "/new_label", H5T_NATIVE_INT64, first, count, new_label);
    if (owner && rc == G5_OK)
        rc = io_read_rows(f, "/owner", H5T_NATIVE_INT32, first, count, owner);
    return rc;
}
