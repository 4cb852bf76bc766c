/* SPDX-License-Identifier: MIT */
/*
 * io_edges.c - the edges file (edges.h5, format "g500-edges" version 2):
 * the writer gen uses and the checked reader every later stage uses. Built
 * on the generic io_file layer (io_file.c), which does the HDF5 plumbing,
 * atomic rename and collective transfers.
 *
 * Layout: /edges [M][2] (u, v) and /weights float32 [M], both chunked by
 * IO_EDGES_CHUNK_ROWS rows with Fletcher32 checksums, so a damaged chunk
 * of a cached file is reported on read instead of feeding wrong edges to a
 * kernel. The ids are uint32 when scale <= 32, int64 above (version 1
 * files: int64 at every scale), so every stage that streams the edges
 * reads 12 bytes per edge instead of 20. Readers always get int64 ids.
 * Root attributes: see io.h; generation_seconds (double) and content_id
 * (uint64) are written at commit.
 *
 * Checks on open: format and version (io_file_open); every attribute present
 * with its type; scale in 1..42, edgefactor >= 1, nvertices == 2^scale,
 * nedges == edgefactor * nvertices; datasets of the right class, size (the
 * id width of the version and scale), rank and extents. Each slab read
 * checks that every vertex id lies in [0, N) and every weight in [0, 1), so
 * a file that passes its checksums but was written wrongly cannot crash a
 * later stage.
 */
#include "io.h"

#include "common.h"
#include "io_direct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IO_EDGES_SCALE_MAX 42

struct io_edges_writer {
    io_file *f;
    io_edges_meta meta;
    double seconds;
    uint32_t *narrow;       /* uint32 ids: a slab's ids on their way to the file */
    int64_t narrow_rows;    /* its capacity */
};

size_t io_edges_id_bytes(int version, int scale)
{
    return version >= 2 && scale <= 32 ? 4 : 8;
}

struct io_edges {
    io_file *f;
    io_edges_meta meta;
    int64_t chunk_rows;     /* of /edges; 0: contiguous */
    /* Direct chunk readers (io_chunks.c) of /edges and /weights; NULL where
     * the layout needs the plain collective H5Dread path. */
    io_direct *direct_edges, *direct_weights;
    int verify;             /* checksums verified on read (default 1) */
};

void io_edges_set_checksum_verify(io_edges *f, int verify)
{
    io_file_set_checksum_verify(f->f, verify);
    f->verify = verify;
}

static int check_meta(const char *path, const io_edges_meta *m)
{
    if (m->scale < 1 || m->scale > IO_EDGES_SCALE_MAX)
        return g5_error(G5_ERR_FORMAT, "%s: scale %d is outside 1..%d", path, m->scale,
                        IO_EDGES_SCALE_MAX);
    if (m->edgefactor < 1)
        return g5_error(G5_ERR_FORMAT, "%s: edgefactor %d is below 1", path, m->edgefactor);
    if (m->nvertices != (INT64_C(1) << m->scale))
        return g5_error(G5_ERR_FORMAT, "%s: nvertices %lld is not 2^scale = 2^%d", path,
                        (long long)m->nvertices, m->scale);
    if ((INT64_MAX >> m->scale) < m->edgefactor ||
        m->nedges != (int64_t)m->edgefactor * m->nvertices)
        return g5_error(G5_ERR_FORMAT, "%s: nedges %lld is not edgefactor * nvertices = %d * %lld",
                        path, (long long)m->nedges, m->edgefactor, (long long)m->nvertices);
    return G5_OK;
}

/* ---- writing ------------------------------------------------------------ */

int io_edges_check_space(MPI_Comm comm, const char *path, const io_edges_meta *meta,
                         int64_t chunk_rows, int checksums, int force)
{
    /* Stored size: every chunk at full size plus its checksum, the
     * partial last one too (io_chunks.c); contiguous: the rows. */
    double row = 2.0 * (double)io_edges_id_bytes(IO_EDGES_VERSION, meta->scale) + 4.0;
    double rows = (double)meta->nedges, bytes = rows * row;
    char what[96];
    if (chunk_rows > 0) {
        double cr = (double)(chunk_rows < meta->nedges ? chunk_rows : meta->nedges);
        double nch = cr > 0 ? (double)((meta->nedges + (int64_t)cr - 1) / (int64_t)cr) : 0;
        bytes = nch * (cr * row + (checksums ? 8.0 : 0.0));
    }
    snprintf(what, sizeof what, "SCALE %d, edgefactor %d", meta->scale, meta->edgefactor);
    return io_file_check_space(comm, path ? path : "", what, bytes, force);
}

int io_edges_create_ex(MPI_Comm comm, const char *path, const io_edges_meta *meta,
                       int force, int64_t chunk_rows, int checksums,
                       io_edges_writer **out)
{
    int rc;
    io_edges_writer *w = NULL;
    io_file *f = NULL;

    *out = NULL;
    rc = check_meta(path ? path : "(no path)", meta);
    if (rc != G5_OK)
        rc = g5_error(G5_ERR_ARG, "%s", g5_error_msg());
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        return rc;
    G5_TRY(io_edges_check_space(comm, path, meta, chunk_rows, checksums, force));
    G5_TRY(io_file_create(comm, path, IO_EDGES_FORMAT, IO_EDGES_VERSION, force, &f));
    w = g5_calloc(1, sizeof *w, "edges writer");
    rc = g5_agree(comm, w ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    w->f = f;
    w->meta = *meta;
    w->seconds = -1;

    G5_TRY(io_attr_write_int64(f, "/", "scale", meta->scale));
    G5_TRY(io_attr_write_int64(f, "/", "edgefactor", meta->edgefactor));
    G5_TRY(io_attr_write_int64(f, "/", "nvertices", meta->nvertices));
    G5_TRY(io_attr_write_int64(f, "/", "nedges", meta->nedges));
    G5_TRY(io_attr_write_uint64(f, "/", "seed", meta->seed));
    G5_TRY(io_attr_write_double(f, "/", "rmat_a", meta->rmat_a));
    G5_TRY(io_attr_write_double(f, "/", "rmat_b", meta->rmat_b));
    G5_TRY(io_attr_write_double(f, "/", "rmat_c", meta->rmat_c));
    G5_TRY(io_attr_write_string(f, "/", "generator", meta->generator));
    hsize_t dims[2] = {(hsize_t)meta->nedges, 2};
    G5_TRY(io_dataset_create_ex(f, "/edges",
                                io_edges_id_bytes(IO_EDGES_VERSION, meta->scale) == 4 ? H5T_STD_U32LE : H5T_STD_I64LE,
                                2, dims, (hsize_t)chunk_rows, checksums));
    G5_TRY(io_dataset_create_ex(f, "/weights", H5T_IEEE_F32LE, 1, dims, (hsize_t)chunk_rows, checksums));
out:
    /* The attribute and dataset calls are collective metadata operations:
     * their status is the same on every rank; agree anyway for safety. */
    rc = f ? io_file_agree(f, rc) : g5_agree(comm, rc);
    if (rc != G5_OK) {
        io_file_abort(&f);
        free(w);
        return rc;
    }
    *out = w;
    return G5_OK;
}

int io_edges_create(MPI_Comm comm, const char *path, const io_edges_meta *meta,
                    int force, io_edges_writer **out)
{
    return io_edges_create_ex(comm, path, meta, force, IO_EDGES_CHUNK_ROWS, 1, out);
}

void io_edges_set_seconds(io_edges_writer *w, double seconds)
{
    w->seconds = seconds;
}

int io_edges_write_slab(io_edges_writer *w, int64_t first, int64_t count,
                        const int64_t *edges, const float *weights)
{
    int rc = G5_OK;
    if (io_edges_id_bytes(IO_EDGES_VERSION, w->meta.scale) == 4) {
        /* Narrowed here: HDF5's own conversion would make the collective
         * write independent. One agreement for every rank (some have no
         * rows), on the buffer and on ids that do not fit. */
        if (count > w->narrow_rows) {
            uint32_t *p = realloc(w->narrow, (size_t)count * 2 * sizeof *p);
            if (p) {
                w->narrow = p;
                w->narrow_rows = count;
            } else {
                rc = g5_error(G5_ERR_NOMEM, "%s: cannot allocate %lld rows to write", io_file_path(w->f),
                              (long long)count);
            }
        }
        uint64_t all = 0;
        if (rc == G5_OK) {
#pragma omp parallel for schedule(static) reduction(| : all) if (count > 65536)
            for (int64_t k = 0; k < 2 * count; k++) {
                all |= (uint64_t)edges[k];
                w->narrow[k] = (uint32_t)edges[k];
            }
        }
        if (all >> 32)
            rc = g5_error(G5_ERR_ARG, "%s: rows %lld..%lld hold a vertex id outside [0, 2^32)",
                          io_file_path(w->f), (long long)first, (long long)(first + count));
        rc = io_file_agree(w->f, rc);
        if (rc == G5_OK)
            rc = io_write_rows(w->f, "/edges", H5T_NATIVE_UINT32, first, count,
                               w->narrow ? (const void *)w->narrow : (const void *)edges);
    } else {
        rc = io_write_rows(w->f, "/edges", H5T_NATIVE_INT64, first, count, edges);
    }
    if (rc != G5_OK)
        return rc;
    return io_write_rows(w->f, "/weights", H5T_NATIVE_FLOAT, first, count, weights);
}

int io_edges_commit(io_edges_writer **wp, uint64_t content_id)
{
    io_edges_writer *w = wp ? *wp : NULL;
    if (!w)
        return g5_error(G5_ERR_INTERNAL, "io_edges_commit: no writer");
    MPI_Comm comm = io_file_comm(w->f);
    double s = w->seconds;
    int rc;
    MPI_Bcast(&s, 1, MPI_DOUBLE, 0, comm);
    MPI_Bcast(&content_id, 1, MPI_UINT64_T, 0, comm);
    rc = io_attr_write_uint64(w->f, "/", "content_id", content_id);
    if (rc == G5_OK)
        rc = io_attr_write_double(w->f, "/", "generation_seconds", s);
    if (rc == G5_OK) {
        int P;
        MPI_Comm_size(comm, &P);
        rc = io_stage_write(w->f, "", s, P);
    }
    rc = io_file_agree(w->f, rc);
    if (rc != G5_OK)
        io_file_abort(&w->f);
    else
        rc = io_file_commit(&w->f);
    free(w->narrow);
    free(w);
    *wp = NULL;
    return rc;
}

void io_edges_abort(io_edges_writer **wp)
{
    io_edges_writer *w = wp ? *wp : NULL;
    if (!w)
        return;
    io_file_abort(&w->f);
    free(w->narrow);
    free(w);
    *wp = NULL;
}

/* ---- reading ------------------------------------------------------------ */

static int read_int(io_file *f, const char *name, int64_t lo, int64_t hi, int *out)
{
    int64_t v;
    int rc = io_attr_read_int64(f, "/", name, &v);
    if (rc != G5_OK)
        return rc;
    if (v < lo || v > hi)
        return g5_error(G5_ERR_FORMAT, "%s: attribute %s = %lld is outside %lld..%lld",
                        io_file_path(f), name, (long long)v, (long long)lo, (long long)hi);
    *out = (int)v;
    return G5_OK;
}

/* Rows per chunk of /edges from its creation properties (0: contiguous or
 * unreadable; the value only guides piece sizes, never correctness). The
 * dataset creation properties are file metadata, the same on every rank. */
static int64_t edges_chunk_rows(io_file *f)
{
    int64_t rows = 0;
    hid_t d = H5Dopen2(io_file_hid(f), "/edges", H5P_DEFAULT), dcpl;
    if (d < 0)
        return 0;
    dcpl = H5Dget_create_plist(d);
    if (dcpl >= 0) {
        hsize_t cd[2] = {0, 0};
        if (H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, cd) >= 1)
            rows = (int64_t)cd[0];
        H5Pclose(dcpl);
    }
    H5Dclose(d);
    return rows;
}

int io_edges_open(MPI_Comm comm, const char *path, io_edges **out)
{
    int rc;
    io_file *f = NULL;
    io_edges *e = NULL;
    io_edges_meta *m;
    int64_t version = 0;

    *out = NULL;
    G5_TRY(io_file_open(comm, path, IO_EDGES_FORMAT, IO_EDGES_VERSION, &f));
    e = g5_calloc(1, sizeof *e, "edges reader");
    rc = g5_agree(comm, e ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    e->f = f;
    m = &e->meta;
    G5_TRY(io_attr_read_int64(f, "/", "version", &version));
    m->version = (int)version;
    G5_TRY(read_int(f, "scale", 1, IO_EDGES_SCALE_MAX, &m->scale));
    G5_TRY(read_int(f, "edgefactor", 1, INT32_MAX, &m->edgefactor));
    G5_TRY(io_attr_read_int64(f, "/", "nvertices", &m->nvertices));
    G5_TRY(io_attr_read_int64(f, "/", "nedges", &m->nedges));
    G5_TRY(io_attr_read_uint64(f, "/", "seed", &m->seed));
    G5_TRY(io_attr_read_double(f, "/", "rmat_a", &m->rmat_a));
    G5_TRY(io_attr_read_double(f, "/", "rmat_b", &m->rmat_b));
    G5_TRY(io_attr_read_double(f, "/", "rmat_c", &m->rmat_c));
    G5_TRY(io_attr_read_string(f, "/", "generator", m->generator, sizeof m->generator));
    G5_TRY(io_attr_read_uint64(f, "/", "content_id", &m->content_id));
    m->generation_seconds = -1;
    if (io_attr_exists(f, "/", "generation_seconds"))
        G5_TRY(io_attr_read_double(f, "/", "generation_seconds", &m->generation_seconds));
    G5_TRY(check_meta(path, m));
    int64_t de[2] = {m->nedges, 2}, dw[1] = {m->nedges};
    G5_TRY(io_dataset_check(f, "/edges", H5T_INTEGER, io_edges_id_bytes(m->version, m->scale), 2, de));
    G5_TRY(io_dataset_check(f, "/weights", H5T_FLOAT, 4, 1, dw));
    e->chunk_rows = edges_chunk_rows(f);
    e->verify = 1;
    {
        /* Both opens on every rank (HDF5 metadata reads are collective). */
        int rc_e = io_direct_open(f, "/edges", H5T_NATIVE_INT64, &e->direct_edges);
        int rc_w = io_direct_open(f, "/weights", H5T_NATIVE_FLOAT, &e->direct_weights);
        rc = rc_e != G5_OK ? rc_e : rc_w;
    }
out:
    /* Metadata reads are collective (rank 0 reads, all see the same), so
     * the status is already symmetric; the agreement makes it certain. */
    rc = g5_agree(comm, rc);
    if (rc != G5_OK) {
        if (e) {
            io_direct_close(&e->direct_edges);
            io_direct_close(&e->direct_weights);
        }
        free(e);
        io_file_close(&f);
        return rc;
    }
    *out = e;
    return G5_OK;
}

const io_edges_meta *io_edges_get_meta(const io_edges *f) { return &f->meta; }
const char *io_edges_path(const io_edges *f) { return io_file_path(f->f); }
int64_t io_edges_chunk_rows(const io_edges *f) { return f->chunk_rows; }

/* Whether rows [0, count) may hold a vertex outside [0, n) or a weight
 * outside [0, 1) (weights NULL: not checked). Branch-free and vectorised:
 * the ids are or-ed together, and every id lies in [0, n) when the or, as
 * unsigned, is below n (a negative id sets the top bit); for n = 2^scale,
 * which io_edges_open checks, also only then. About one instruction per
 * edge instead of a compare-and-branch chain per id. */
static int any_bad_row(const int64_t *edges, const float *weights, int64_t count, int64_t n)
{
    uint64_t all = 0;
    int wrong = 0;
#pragma omp parallel for schedule(static) reduction(| : all)
    for (int64_t k = 0; k < 2 * count; k++)
        all |= (uint64_t)edges[k];
    if (weights) {
#pragma omp parallel for schedule(static) reduction(| : wrong)
        for (int64_t k = 0; k < count; k++)
            wrong |= !(weights[k] >= 0.0f && weights[k] < 1.0f);
    }
    return all >= (uint64_t)n || wrong;
}

/* The first row with a vertex outside [0, n) or (weights not NULL) a
 * weight outside [0, 1); INT64_MAX if none. Only after any_bad_row. */
static int64_t first_bad_row(const int64_t *edges, const float *weights, int64_t count, int64_t n)
{
    for (int64_t k = 0; k < count; k++) {
        const uint64_t u = (uint64_t)edges[2 * k], v = (uint64_t)edges[2 * k + 1];
        if (u >= (uint64_t)n || v >= (uint64_t)n || (weights && !(weights[k] >= 0.0f && weights[k] < 1.0f)))
            return k;
    }
    return INT64_MAX;
}

/* Not collective. Rows [first, first+count) of one dataset by direct chunk
 * reads when it has a direct reader; *plain = 1 when the caller must read
 * them the plain way instead. */
static int read_direct(io_direct *d, int verify, int64_t first, int64_t count, void *buf,
                       int *plain)
{
    int handled = 0, rc = G5_OK;
    if (d)
        rc = io_direct_read(d, verify, first, count, buf, &handled);
    *plain = rc == G5_OK && !handled;
    return rc;
}

int io_edges_read_slab(io_edges *f, int64_t first, int64_t count, int64_t *edges,
                       float *weights)
{
    MPI_Comm comm = io_file_comm(f->f);
    int rc, want = weights != NULL;
    int local[3], any[3];   /* wants weights, needs the plain path for edges, for weights */
    int64_t n = f->meta.nvertices, bad = INT64_MAX;

    /* Each rank first reads its own chunks directly (no collective call);
     * only if some rank could not do so do all ranks take the collective
     * plain path for that dataset, the others with empty selections. */
    local[1] = local[2] = 0;
    rc = read_direct(f->direct_edges, f->verify, first, count, edges, &local[1]);
    if (rc == G5_OK && want)
        rc = read_direct(f->direct_weights, f->verify, first, count, weights, &local[2]);
    local[0] = want;
    MPI_Allreduce(local, any, 3, MPI_INT, MPI_MAX, comm);
    if (any[1]) {
        int mine = local[1];
        int prc = io_read_rows(f->f, "/edges", H5T_NATIVE_INT64, mine ? first : 0, mine ? count : 0, edges);
        if (prc != G5_OK)
            return prc;
    }
    /* Weights are read collectively if any rank wants them. */
    if (any[0] && any[2]) {
        int mine = want && local[2];
        int prc = io_read_rows(f->f, "/weights", H5T_NATIVE_FLOAT, mine ? first : 0, mine ? count : 0,
                               weights);
        if (prc != G5_OK)
            return prc;
    }
    if (rc == G5_OK && any_bad_row(edges, want ? weights : NULL, count, n))
        bad = first_bad_row(edges, want ? weights : NULL, count, n);
    /* A reader that asked for no weights is told of the ids only. */
    if (bad != INT64_MAX && want)
        rc = g5_error(G5_ERR_FORMAT, "%s: edge %lld is (%lld, %lld) with weight %g: outside [0, %lld) x [0, 1)",
                      io_edges_path(f), (long long)(first + bad), (long long)edges[2 * bad],
                      (long long)edges[2 * bad + 1], (double)weights[bad], (long long)n);
    else if (bad != INT64_MAX)
        rc = g5_error(G5_ERR_FORMAT, "%s: edge %lld is (%lld, %lld): a vertex id outside [0, %lld)",
                      io_edges_path(f), (long long)(first + bad), (long long)edges[2 * bad],
                      (long long)edges[2 * bad + 1], (long long)n);
    return g5_agree(comm, rc);
}

void io_edges_close(io_edges **fp)
{
    io_edges *f = fp ? *fp : NULL;
    if (!f)
        return;
    io_direct_close(&f->direct_edges);
    io_direct_close(&f->direct_weights);
    io_file_close(&f->f);
    free(f);
    *fp = NULL;
}
