/* SPDX-License-Identifier: MIT */
/*
 * gen_write.c - generate the whole edge list in parallel and write edges.h5.
 *
 * Work split: the M output positions are cut into HDF5 chunks of
 * chunk_rows rows and each rank takes a contiguous run of whole chunks
 * (rank r: chunks [r*C/P, (r+1)*C/P) of C), so no chunk is shared between
 * ranks: parallel HDF5 then writes each filtered chunk from its owner
 * without exchanging pieces. A rank produces its run in batches of whole
 * chunks (about 1 Mi rows, 20 MiB) with OpenMP threads, and every batch is
 * one collective write; all ranks make the same number of write calls
 * (ranks with less work pass empty slabs). The content is a pure function
 * of (seed, position), so the split does not change a byte of the file.
 *
 * Overlap (double buffer): batch k+1 is generated while batch k is written.
 * The library is initialised MPI_THREAD_FUNNELED, so only the master thread
 * may call MPI and HDF5: in one parallel region, thread 0 writes batch k
 * from one buffer and then joins the dynamically scheduled generation of
 * batch k+1 into the other buffer, which the other threads started at once
 * (gen_slab_shared); the barrier that ends the generation of batch k+1
 * also ends the write of batch k, so neither buffer is reused early. With
 * one thread the same code generates and writes in turn. Memory per rank:
 * two batches (40 MiB at the default layout) plus HDF5's chunk buffers,
 * independent of SCALE.
 *
 * Failures: every write is collective and returns the same status on all
 * ranks (io_write_rows agrees), so all ranks and all threads leave the loop
 * after the same round; the file is then removed (io_edges_abort).
 *
 * content_id: the sum mod 2^64 over positions of gen_content_term, summed
 * per rank by gen_slab_shared and all-reduced.
 */
#include "gen_internal.h"

#include "common.h"
#include "io.h"

#include <omp.h>
#include <stdlib.h>

void gen_write_opts_default(gen_write_opts *o)
{
    o->chunk_rows = IO_EDGES_CHUNK_ROWS;
    o->checksums = 1;
    o->quiet = 0;
    o->batch_rows = GEN_BATCH_ROWS;
    o->fail_rank = -1;
    o->fail_round = 0;
}

int gen_write(MPI_Comm comm, const gen_params *p, const char *path, int force,
              gen_result *result)
{
    gen_write_opts o;
    gen_write_opts_default(&o);
    return gen_write_ex(comm, p, path, force, &o, result);
}

/* The file's attributes for parameters p (g: the generator they set up). */
static void edges_meta(const gen_params *p, const gen *g, io_edges_meta *meta)
{
    meta->version = IO_EDGES_VERSION;
    meta->scale = p->scale;
    meta->edgefactor = p->edgefactor;
    meta->nvertices = g->nvertices;
    meta->nedges = g->nedges;
    meta->seed = p->seed;
    meta->rmat_a = p->a;
    meta->rmat_b = p->b;
    meta->rmat_c = p->c;
    snprintf(meta->generator, sizeof meta->generator, "%s", GEN_NAME);
}

/* This rank's share of the file and how it is produced in rounds. */
typedef struct write_plan {
    int64_t first, count;   /* this rank's rows [first, first + count) */
    int64_t batch, rounds;  /* rows per round, rounds on every rank */
    size_t buf_rows;        /* rows per buffer */
    int nbufs;              /* buffers: 2 when this rank has a second batch */
} write_plan;

/* Collective. Whole chunks per rank, batches of whole chunks. The same
 * batch on every rank, so the round count follows from the largest run; the
 * buffers only need the smaller of batch and run, and the second buffer
 * only if this rank has a second batch. */
static void plan_batches(MPI_Comm comm, const gen *g, const gen_write_opts *o, write_plan *pl)
{
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    int64_t want = o->batch_rows > 0 ? o->batch_rows : GEN_BATCH_ROWS;
    int64_t unit = o->chunk_rows > 0 ? o->chunk_rows : want;
    int64_t nunits = (g->nedges + unit - 1) / unit;
    int64_t u0 = nunits * rank / nranks, u1 = nunits * (rank + 1) / nranks;
    int64_t first = u0 * unit, end = u1 * unit < g->nedges ? u1 * unit : g->nedges;
    int64_t count = end > first ? end - first : 0, maxcount;
    int64_t batch = unit >= want ? unit : want / unit * unit;
    MPI_Allreduce(&count, &maxcount, 1, MPI_INT64_T, MPI_MAX, comm);
    pl->first = first;
    pl->count = count;
    pl->batch = batch;
    pl->rounds = (maxcount + batch - 1) / batch;
    pl->buf_rows = (size_t)(count < batch ? (count > 0 ? count : 1) : batch);
    pl->nbufs = count > batch ? 2 : 1;
}

int gen_write_ex(MPI_Comm comm, const gen_params *p, const char *path, int force,
                 const gen_write_opts *o, gen_result *result)
{
    int rc, rank, nranks;
    gen g;
    io_edges_meta meta = {0};
    io_edges_writer *w = NULL;
    int64_t *edges[2] = {NULL, NULL};
    float *weights[2] = {NULL, NULL};
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

    edges_meta(p, &g, &meta);
    rc = io_edges_create_ex(comm, path, &meta, force, o->chunk_rows, o->checksums, &w);
    if (rc != G5_OK)
        return rc;

    write_plan pl;
    plan_batches(comm, &g, o, &pl);
    const int64_t first = pl.first, count = pl.count, batch = pl.batch, rounds = pl.rounds;
    const size_t buf_rows = pl.buf_rows;
    const int nbufs = pl.nbufs;
    for (int b = 0; b < nbufs; b++) {
        edges[b] = g5_malloc(sizeof(int64_t) * 2 * buf_rows, "edge batch");
        weights[b] = g5_malloc(sizeof(float) * buf_rows, "weight batch");
    }
    rc = g5_agree(comm, edges[nbufs - 1] && weights[nbufs - 1] && edges[0] && weights[0]
                            ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    if (!o->quiet)
        g5_progress("gen: SCALE %d, edgefactor %d, %lld edges on %d ranks x %d threads -> %s",
                    p->scale, p->edgefactor, (long long)g.nedges, nranks, omp_get_max_threads(), path);

    /* Round k: batch k (rows [first + k*batch, ...) of this rank, or none)
     * lives in buffer k % nbufs. wrc[k & 1] is round k's write status:
     * written by thread 0 before the barrier that closes round k and read
     * by every thread after it; the slot is written again only in round
     * k+2, after a barrier no thread passes before its read. */
    int wrc[2] = {G5_OK, G5_OK};
#pragma omp parallel
    {
        int64_t n0 = count < batch ? count : batch;
        gen_slab_shared(&g, first, n0, edges[0], weights[0], &content);
        for (int64_t k = 0; k < rounds; k++) {
            if (omp_get_thread_num() == 0) {
                int64_t b0 = 0, n = 0; /* ranks out of work pass empty slabs */
                if (k * batch < count) {
                    b0 = first + k * batch;
                    n = count - k * batch < batch ? count - k * batch : batch;
                }
                if (rank == o->fail_rank && k == o->fail_round)
                    b0 = g.nedges + 1; /* test only: this rank's write fails */
                wrc[k & 1] = io_edges_write_slab(w, b0, n, edges[k % nbufs], weights[k % nbufs]);
                double now = g5_now();
                if (!o->quiet && wrc[k & 1] == G5_OK && now - last_note >= 2.0) {
                    g5_progress("gen: %3.0f%% written", 100.0 * (double)(k + 1) / (double)rounds);
                    last_note = now;
                }
            }
            int64_t r1 = (k + 1) * batch, n1 = 0;
            if (k + 1 < rounds && r1 < count)
                n1 = count - r1 < batch ? count - r1 : batch;
            /* Ends with a barrier, also when n1 is 0. */
            gen_slab_shared(&g, first + r1, n1, edges[(k + 1) % nbufs], weights[(k + 1) % nbufs],
                            &content);
            if (wrc[k & 1] != G5_OK) {
                if (omp_get_thread_num() == 0)
                    rc = wrc[k & 1];
                break;
            }
        }
    }
    if (rc != G5_OK)
        goto out;
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
    for (int b = 0; b < 2; b++) {
        free(edges[b]);
        free(weights[b]);
    }
    return rc;
}
