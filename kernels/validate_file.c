/* SPDX-License-Identifier: MIT */
/*
 * validate_file.c - kern_validate_bfs and kern_validate_sssp: the checks of
 * validate_core.c on the edges file, read slab by slab with
 * io_edges_read_slab in pieces of whole stored chunks of the file (one
 * chunk of the default layout, IO_EDGES_CHUNK_ROWS edges), for one key or
 * a batch. BFS passes no distances (every edge counts as weight 1);
 * SSSP passes them and the reader fills the float32 weights too.
 */
#include "kern_validate.h"

#include "common.h"

static int read_edges_file(void *ctx, int64_t first, int64_t count, int64_t *edges, float *weights)
{
    return io_edges_read_slab(ctx, first, count, edges, weights);
}

static kern_edge_reader file_reader(io_edges *edges)
{
    const io_edges_meta *m = io_edges_get_meta(edges);
    /* whole chunks, about IO_EDGES_CHUNK_ROWS edges (a contiguous file: that many) */
    int64_t c = io_edges_chunk_rows(edges), piece = IO_EDGES_CHUNK_ROWS;
    if (c > 0)
        piece = (IO_EDGES_CHUNK_ROWS / c > 0 ? IO_EDGES_CHUNK_ROWS / c : 1) * c;
    return (kern_edge_reader){.nvertices = m->nvertices, .nedges = m->nedges,
                              .chunk = piece, .read = read_edges_file, .ctx = edges};
}

static int validate_file(MPI_Comm comm, io_edges *edges, int64_t root, const int64_t *parent,
                         const float *dist, void *work, size_t work_bytes, int64_t *nedge_out)
{
    kern_edge_reader rd = file_reader(edges);
    return kern_validate_reader(comm, &rd, root, parent, dist, work, work_bytes, nedge_out);
}

int kern_vbatch_check_file(kern_vbatch *b, io_edges *edges, int *status, int64_t *nedge)
{
    kern_edge_reader rd = file_reader(edges);
    return kern_vbatch_check(b, &rd, status, nedge);
}

int kern_validate_bfs(MPI_Comm comm, io_edges *edges, int64_t root, const int64_t *parent,
                      void *work, size_t work_bytes, int64_t *nedge_out)
{
    return validate_file(comm, edges, root, parent, NULL, work, work_bytes, nedge_out);
}

int kern_validate_sssp(MPI_Comm comm, io_edges *edges, int64_t root, const int64_t *parent,
                       const float *dist, void *work, size_t work_bytes, int64_t *nedge_out)
{
    return validate_file(comm, edges, root, parent, dist, work, work_bytes, nedge_out);
}
