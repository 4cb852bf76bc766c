/* SPDX-License-Identifier: MIT */
/*
 * io_components.c - components.h5 (format in io.h): the canonical label of
 * every vertex, the vertices and edges of every component, the identity of
 * the edges file it was computed from, and the statistics as root
 * attributes, on top of the generic io_file layer (atomic write, checked
 * open, collective row slabs).
 *
 * /label is chunked with Fletcher32 checksums (a damaged chunk is found on
 * read); the two small per-component arrays are contiguous. Every attribute
 * is a plain scalar or array, so h5dump and h5py show the statistics with no
 * project code.
 */
#include "io.h"

#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_CHUNK_ROWS ((hsize_t)1 << 16)

struct io_components_writer {
    io_file *f;
    int64_t ncomp;
};

struct io_components {
    io_file *f;
    io_components_meta meta;
    int64_t ncomp;
};

/* The scalar int64 attributes, in file order: name and field. */
#define META_I64(X)                                      \
    X(nvertices) X(nedges) X(ncomponents) X(ncomponents_all) \
    X(isolated_vertices) X(self_loops) X(nonloop_edges)  \
    X(distinct_edges) X(duplicate_edges) X(giant_vertices) \
    X(giant_edges) X(second_vertices) X(second_edges)
#define META_F64(X) X(giant_vertex_share) X(giant_active_share) X(giant_edge_share)

static int write_meta(io_file *f, const io_components_meta *m)
{
    int rc = G5_OK;
#define W_I64(name) if (rc == G5_OK) rc = io_attr_write_int64(f, "/", #name, m->name);
#define W_F64(name) if (rc == G5_OK) rc = io_attr_write_double(f, "/", #name, m->name);
    if (rc == G5_OK)
        rc = io_attr_write_int64(f, "/", "scale", m->scale);
    META_I64(W_I64)
    META_F64(W_F64)
    if (rc == G5_OK)
        rc = io_attr_write_uint64(f, "/", "seed", m->seed);
    if (rc == G5_OK)
        rc = io_attr_write_uint64(f, "/", "edges_content_id", m->edges_content_id);
    if (rc == G5_OK)
        rc = io_attr_write_int64_array(f, "/", "size_hist_log2", m->size_hist, IO_HIST_BINS);
    if (rc == G5_OK && m->ranks > 0)
        rc = io_stage_write(f, "", m->elapsed_seconds, m->ranks);
#undef W_I64
#undef W_F64
    return rc;
}

static int read_meta(io_file *f, io_components_meta *m)
{
    int rc = G5_OK;
    int64_t scale = 0, nh = IO_HIST_BINS, version = 0;
#define R_I64(name) if (rc == G5_OK) rc = io_attr_read_int64(f, "/", #name, &m->name);
#define R_F64(name) if (rc == G5_OK) rc = io_attr_read_double(f, "/", #name, &m->name);
    rc = io_attr_read_int64(f, "/", "version", &version);
    if (rc == G5_OK)
        rc = io_attr_read_int64(f, "/", "scale", &scale);
    META_I64(R_I64)
    META_F64(R_F64)
    if (rc == G5_OK)
        rc = io_attr_read_uint64(f, "/", "seed", &m->seed);
    if (rc == G5_OK)
        rc = io_attr_read_uint64(f, "/", "edges_content_id", &m->edges_content_id);
    if (rc == G5_OK)
        rc = io_attr_read_int64_array(f, "/", "size_hist_log2", m->size_hist, &nh);
    if (rc == G5_OK && nh != IO_HIST_BINS)
        rc = g5_error(G5_ERR_FORMAT, "%s: size_hist_log2 has %lld bins, expected %d",
                      io_file_path(f), (long long)nh, IO_HIST_BINS);
    if (rc == G5_OK)
        rc = io_stage_read(f, "", &m->elapsed_seconds, &m->ranks);
#undef R_I64
#undef R_F64
    m->version = (int)version;
    m->scale = (int)scale;
    return rc;
}

int io_components_check_space(MPI_Comm comm, const char *path, const io_components_meta *m,
                              int64_t ncomp, int force)
{
    /* /label in whole chunks of 8-byte rows, two contiguous arrays. */
    int64_t nch = (m->nvertices + (int64_t)LABEL_CHUNK_ROWS - 1) / (int64_t)LABEL_CHUNK_ROWS;
    int64_t cr = m->nvertices < (int64_t)LABEL_CHUNK_ROWS ? m->nvertices : (int64_t)LABEL_CHUNK_ROWS;
    char what[64];
    snprintf(what, sizeof what, "SCALE %d", m->scale);
    return io_file_check_space(comm, path ? path : "", what,
                               (double)nch * ((double)cr * 8.0 + 4.0) + 16.0 * (double)ncomp, force);
}

int io_components_create(MPI_Comm comm, const char *path, const io_components_meta *m,
                         int64_t ncomp, int force, io_components_writer **out)
{
    int rc;
    io_file *f = NULL;
    io_components_writer *w = NULL;
    hsize_t nd[1] = {(hsize_t)m->nvertices}, cd[1] = {(hsize_t)ncomp};

    *out = NULL;
    rc = io_components_check_space(comm, path, m, ncomp, force);
    if (rc != G5_OK)
        return rc;
    rc = io_file_create(comm, path, IO_COMPONENTS_FORMAT, IO_COMPONENTS_VERSION, force, &f);
    if (rc != G5_OK)
        return rc;
    w = g5_calloc(1, sizeof *w, "components writer");
    rc = w ? G5_OK : G5_ERR_NOMEM;
    if (rc == G5_OK)
        rc = write_meta(f, m);
    if (rc == G5_OK)
        rc = io_dataset_create(f, "/label", H5T_STD_I64LE, 1, nd, LABEL_CHUNK_ROWS);
    if (rc == G5_OK)
        rc = io_dataset_create(f, "/component_vertices", H5T_STD_I64LE, 1, cd, 0);
    if (rc == G5_OK)
        rc = io_dataset_create(f, "/component_edges", H5T_STD_I64LE, 1, cd, 0);
    rc = io_file_agree(f, rc);
    if (rc != G5_OK) {
        io_file_abort(&f);
        free(w);
        return rc;
    }
    w->f = f;
    w->ncomp = ncomp;
    *out = w;
    return G5_OK;
}

int io_components_write_labels(io_components_writer *w, int64_t first, int64_t count,
                               const int32_t *label)
{
    /* Parallel HDF5 does not convert types on filtered (checksummed)
     * datasets: widen here, 8 bytes per row of this rank's block. */
    int rc;
    int64_t *wide = g5_malloc((size_t)(count > 0 ? count : 1) * sizeof *wide, "label block");
    rc = g5_agree(io_file_comm(w->f), wide ? G5_OK : G5_ERR_NOMEM);
    if (rc == G5_OK) {
        for (int64_t i = 0; i < count; i++)
            wide[i] = label[i];
        rc = io_write_rows(w->f, "/label", H5T_NATIVE_INT64, first, count, wide);
    }
    free(wide);
    return rc;
}

int io_components_write_sizes(io_components_writer *w, const int64_t *comp_vertices,
                              const int64_t *comp_edges)
{
    int rank, rc;
    int64_t cnt;
    MPI_Comm_rank(io_file_comm(w->f), &rank);
    cnt = rank == 0 ? w->ncomp : 0;
    rc = io_write_rows(w->f, "/component_vertices", H5T_NATIVE_INT64, 0, cnt, comp_vertices);
    if (rc == G5_OK)
        rc = io_write_rows(w->f, "/component_edges", H5T_NATIVE_INT64, 0, cnt, comp_edges);
    return rc;
}

int io_components_commit(io_components_writer **w)
{
    int rc = io_file_commit(&(*w)->f);
    free(*w);
    *w = NULL;
    return rc;
}

void io_components_abort(io_components_writer **w)
{
    if (!w || !*w)
        return;
    io_file_abort(&(*w)->f);
    free(*w);
    *w = NULL;
}

int io_components_open(MPI_Comm comm, const char *path, io_components **out)
{
    int rc;
    io_file *f = NULL;
    io_components *c = NULL;
    int64_t dl[1] = {-1}, dv[1] = {-1}, de[1] = {-1};
    const char *p = path;

    *out = NULL;
    rc = io_file_open(comm, path, IO_COMPONENTS_FORMAT, IO_COMPONENTS_VERSION, &f);
    if (rc != G5_OK)
        return rc;
    c = g5_calloc(1, sizeof *c, "components reader");
    rc = c ? G5_OK : G5_ERR_NOMEM;
    if (rc == G5_OK)
        rc = read_meta(f, &c->meta);
    if (rc == G5_OK && (c->meta.scale < 0 || c->meta.scale > 62 ||
                        c->meta.nvertices != ((int64_t)1 << c->meta.scale)))
        rc = g5_error(G5_ERR_FORMAT, "%s: nvertices %lld is not 2^scale (scale %d)", p,
                      (long long)c->meta.nvertices, c->meta.scale);
    if (rc == G5_OK)
        dl[0] = c->meta.nvertices;
    if (rc == G5_OK)
        rc = io_dataset_check(f, "/label", H5T_INTEGER, 8, 1, dl);
    if (rc == G5_OK)
        dv[0] = c->meta.ncomponents;
    if (rc == G5_OK)
        rc = io_dataset_check(f, "/component_vertices", H5T_INTEGER, 8, 1, dv);
    if (rc == G5_OK)
        de[0] = c->meta.ncomponents;
    if (rc == G5_OK)
        rc = io_dataset_check(f, "/component_edges", H5T_INTEGER, 8, 1, de);
    if (rc == G5_OK && (c->meta.isolated_vertices < 0 || c->meta.isolated_vertices > c->meta.nvertices ||
                        c->meta.ncomponents_all != c->meta.ncomponents + c->meta.isolated_vertices ||
                        c->meta.duplicate_edges != c->meta.nonloop_edges - c->meta.distinct_edges ||
                        c->meta.nonloop_edges + c->meta.self_loops != c->meta.nedges))
        rc = g5_error(G5_ERR_FORMAT, "%s: the statistics attributes contradict each other "
                      "(isolated, component or edge counts)", p);
    rc = g5_agree(comm, rc);
    if (rc != G5_OK) {
        io_file_close(&f);
        free(c);
        return rc;
    }
    c->f = f;
    c->ncomp = c->meta.ncomponents;
    *out = c;
    return G5_OK;
}

const io_components_meta *io_components_get_meta(const io_components *c) { return &c->meta; }
int64_t io_components_ncomp(const io_components *c) { return c->ncomp; }
const char *io_components_path(const io_components *c) { return io_file_path(c->f); }

int io_components_read_labels(io_components *c, int64_t first, int64_t count, int64_t *label)
{
    int rc = io_read_rows(c->f, "/label", H5T_NATIVE_INT64, first, count, label);
    /* The labels must be ids of components or -1: a wrong value here would
     * index out of bounds downstream. */
    for (int64_t i = 0; rc == G5_OK && i < count; i++)
        if (label[i] < -1 || label[i] >= c->ncomp)
            rc = g5_error(G5_ERR_FORMAT, "%s: /label[%lld] = %lld is not a component id (%lld components)",
                          io_file_path(c->f), (long long)(first + i), (long long)label[i],
                          (long long)c->ncomp);
    return g5_agree(io_file_comm(c->f), rc);
}

int io_components_read_sizes(io_components *c, int64_t *comp_vertices, int64_t *comp_edges)
{
    int rc = G5_OK;
    if (comp_vertices)
        rc = io_read_rows(c->f, "/component_vertices", H5T_NATIVE_INT64, 0, c->ncomp, comp_vertices);
    if (rc == G5_OK && comp_edges)
        rc = io_read_rows(c->f, "/component_edges", H5T_NATIVE_INT64, 0, c->ncomp, comp_edges);
    return rc;
}

void io_components_close(io_components **c)
{
    if (!c || !*c)
        return;
    io_file_close(&(*c)->f);
    free(*c);
    *c = NULL;
}
