/* SPDX-License-Identifier: MIT */
/*
 * gen_write.c - generate the whole edge list in parallel and write edges.h5.
 *
 * Work split: the M output positions are cut into HDF5 chunks of
 * chunk_rows rows and each rank takes a contiguous run of whole chunks
 * (rank r: chunks [r*C/P, (r+1)*C/P) of C), so no chunk is shared between
 * ranks: parallel HDF5 then writes each filtered chunk from its owner
 * without exchanging pieces. A rank produces its run in batches of whole
 * chunks (about 1 Mi rows, 20 MiB of buffer) with OpenMP threads
 * (gen_slab), and every batch is one collective write; all ranks make the
 * same number of write calls (ranks with less work pass empty slabs). The
 * content is a pure function of (seed, position), so the split does not
 * change a byte of the file.
 *
 * content_id: the sum mod 2^64 over positions of gen_content_term, summed
 * per rank by gen_slab and all-reduced.
 */
#include "gen_internal.h"

#include "common.h"
#include "io.h"

#include <omp.h>
#include <stdlib.h>

#define GEN_BATCH_ROWS ((int64_t)1 << 20)

void gen_write_opts_default(gen_write_opts *o)
{
    o->chunk_rows = IO_EDGES_CHUNK_ROWS;
    o->checksums = 1;
    o->quiet = 0;
    o->fail_rank = -1;
}

int gen_write(MPI_Comm comm, const gen_params *p, const char *path, int force,
              gen_result *result)
{
    gen_write_opts o;
    gen_write_opts_default(&o);
    return gen_write_ex(comm, p, path, force, &o, result);
}

int gen_write_ex(MPI_Comm comm, const gen_params *p, const char *path, int force,
                 const gen_write_opts *o, gen_result *result)
{
    int rc, rank, nranks;
    gen g;
    io_edges_meta meta = {0};
    io_edges_writer *w = NULL;
    int64_t *edges = NULL;
    float *weights = NULL;
    uint64_t content = 0, content_all = 0;
    double t0, last_note;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    rc = g5_agree(comm, gen_params_check(p));
    if (rc != G5_OK)
        return rc;
    if (o->chunk_rows < 0)
        return g5_agree(comm, g5_error(G5_ERR_ARG, "chunk rows %lld must be >= 0",
                                       (long long)o->chunk_rows));
    gen_init(&g, p);
    MPI_Barrier(comm);
    t0 = last_note = g5_now();

    meta.version = IO_EDGES_VERSION;
    meta.scale = p->scale;
    meta.edgefactor = p->edgefactor;
    meta.nvertices = g.nvertices;
    meta.nedges = g.nedges;
    meta.seed = p->seed;
    meta.rmat_a = p->a;
    meta.rmat_b = p->b;
    meta.rmat_c = p->c;
    snprintf(meta.generator, sizeof meta.generator, "%s", GEN_NAME);
    rc = io_edges_create_ex(comm, path, &meta, force, o->chunk_rows, o->checksums, &w);
    if (rc != G5_OK)
        return rc;

    /* Whole chunks per rank, batches of whole chunks. */
    int64_t unit = o->chunk_rows > 0 ? o->chunk_rows : GEN_BATCH_ROWS;
    int64_t nunits = (g.nedges + unit - 1) / unit;
    int64_t u0 = nunits * rank / nranks, u1 = nunits * (rank + 1) / nranks;
    int64_t first = u0 * unit, end = u1 * unit < g.nedges ? u1 * unit : g.nedges;
    int64_t count = end > first ? end - first : 0, maxcount;
    /* The same batch on every rank, so the round count follows from the
     * largest run; the buffers only need the smaller of batch and run. */
    int64_t batch = unit >= GEN_BATCH_ROWS ? unit : GEN_BATCH_ROWS / unit * unit;
    MPI_Allreduce(&count, &maxcount, 1, MPI_INT64_T, MPI_MAX, comm);
    int64_t rounds = (maxcount + batch - 1) / batch;
    size_t buf_rows = (size_t)(count < batch ? (count > 0 ? count : 1) : batch);

    edges = g5_malloc(sizeof(int64_t) * 2 * buf_rows, "edge batch");
    weights = g5_malloc(sizeof(float) * buf_rows, "weight batch");
    rc = g5_agree(comm, edges && weights ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    if (!o->quiet)
        g5_progress("gen: SCALE %d, edgefactor %d, %lld edges on %d ranks x %d threads -> %s",
                    p->scale, p->edgefactor, (long long)g.nedges, nranks, omp_get_max_threads(), path);

    for (int64_t k = 0; k < rounds; k++) {
        int64_t b0 = 0, n = 0; /* ranks out of work pass empty slabs */
        if (k * batch < count) {
            b0 = first + k * batch;
            n = count - k * batch < batch ? count - k * batch : batch;
        }
        gen_slab(&g, b0, n, edges, weights, &content);
        if (rank == o->fail_rank && k == 0)
            b0 = g.nedges + 1; /* test only: this rank's write fails */
        rc = io_edges_write_slab(w, b0, n, edges, weights);
        if (rc != G5_OK)
            goto out;
        double now = g5_now();
        if (!o->quiet && now - last_note >= 2.0) {
            g5_progress("gen: %3.0f%% written", 100.0 * (double)(k + 1) / (double)rounds);
            last_note = now;
        }
    }
    MPI_Allreduce(&content, &content_all, 1, MPI_UINT64_T, MPI_SUM, comm);
    io_edges_set_seconds(w, g5_now() - t0);
    rc = io_edges_commit(&w, content_all);
    if (rc != G5_OK)
        goto out;
    if (result) {
        int64_t rss = g5_peak_rss();
        result->seconds = g5_now() - t0;
        MPI_Bcast(&result->seconds, 1, MPI_DOUBLE, 0, comm);
        result->content_id = content_all;
        MPI_Allreduce(&rss, &result->peak_rss_max, 1, MPI_INT64_T, MPI_MAX, comm);
    }
out:
    io_edges_abort(&w);
    free(edges);
    free(weights);
    return rc;
}
