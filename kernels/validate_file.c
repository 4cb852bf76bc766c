/* SPDX-License-Identifier: MIT */
/*
 * validate_file.c - kern_validate_bfs and kern_validate_sssp: the checks of
 * validate_core.c on the edges file, read slab by slab with
 * io_edges_read_slab, one stored chunk of the file (IO_EDGES_CHUNK_ROWS
 * edges) at a time, for one key or a batch. BFS passes no distances (every edge counts as weight 1);
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
    return (kern_edge_reader){.nvertices = m->nvertices, .nedges = m->nedges,
                              .chunk = IO_EDGES_CHUNK_ROWS, .read = read_edges_file, .ctx = edges};
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
