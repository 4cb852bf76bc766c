/* SPDX-License-Identifier: MIT */
/*
 * kern_validate.h - validation of every BFS and SSSP tree against the input
 * edge list (untimed, collective), after the timed regions.
 *
 * The driver (cli/run_cmd.c) calls it; the kernels themselves are in kern.h.
 *
 * Errors: as everywhere in g500 (common.h): G5_OK or a negative G5_ERR_*
 * with a one-line message. Collective functions return the same status and
 * message on every rank.
 *
 * Vertex distribution of results handed to validation: ORIGINAL vertex ids,
 * block-distributed: rank r of P holds the entries for v in [first,
 * first+count) where g5_range_split(nvertices, r, P, &first, &count)
 * (common.h): the first N % P ranks get one vertex more. g5_range_owner
 * gives the owner of a vertex under the same rule.
 *
 * The validation rules, the float tolerance and the TEPS edge-count rule are
 * described in kernels/validate_core.c and docs/validation.md.
 */
#ifndef G500_KERN_VALIDATE_H
#define G500_KERN_VALIDATE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "io.h"

/* ---- validation ----------------------------------------------------------
 * Both validators are collective on comm, stream the edge list from the file
 * in bounded chunks (whole stored chunks of the file, about IO_EDGES_CHUNK_ROWS
 * edges, per rank at a time, never all M edges on one rank), and return G5_OK or G5_ERR_VALIDATE with
 * the message
 *   "BFS root R: check 'NAME' failed: vertex/edge ..."
 * (or "SSSP root R: ..."), the same on every rank. Other failures (memory,
 * I/O) return their own status. Inputs are only read; nothing is kept.
 *
 * parent: in, [count] for this rank's block; parent[root] = root, unreached
 *         vertices -1.
 * dist:   in (SSSP), [count] float32 (the kernel's sums); unreached
 *         +INFINITY, dist[root] = 0.
 * work:   in/out, may be NULL: memory the caller lends for the call (its
 *         contents are overwritten and meaningless afterwards; it must not
 *         overlap parent or dist). When work_bytes >=
 *         kern_validate_work_bytes(N, rank, P) the validator keeps its one
 *         jump word per vertex there (SSSP's words are 4 bytes: half of
 *         that suffices); otherwise (on any rank) it uses its own memory.
 *         The checks and the results do not depend on it.
 * nedge_out: out, on every rank: the TEPS edge count, the number of input
 *         tuples that are not self-loops and whose two endpoints are reached
 *         (duplicates counted); the same rule for BFS and SSSP. Set only when
 *         the result is G5_OK. */
int kern_validate_bfs(MPI_Comm comm, io_edges *edges, int64_t root,
                      const int64_t *parent, void *work, size_t work_bytes,
                      int64_t *nedge_out);
int kern_validate_sssp(MPI_Comm comm, io_edges *edges, int64_t root,
                       const int64_t *parent, const float *dist, void *work,
                       size_t work_bytes, int64_t *nedge_out);
/* Not collective. The bytes of `work` the validators use on `rank` of
 * `nranks` for nvertices vertices: 8 per vertex of its block (BFS; SSSP
 * uses 4). */
size_t kern_validate_work_bytes(int64_t nvertices, int rank, int nranks);

/* Default number of edges each rank reads and checks at a time. */
#define KERN_VALIDATE_CHUNK ((int64_t)1 << 19)

/* An edge source for the validators' core, so that they can be run on an
 * in-memory list (tests) as well as on an edges file. read() must behave like
 * io_edges_read_slab: collective, every rank calls it the same number of
 * times with its own [first, first+count) of the global list (count may be
 * 0); edges is [count][2]; weights may be NULL (BFS does not read them).
 * Returns a G5 status (the core agrees on it). With two or more OpenMP
 * threads it is called from the master thread inside a parallel region
 * (the other threads check the previous chunk meanwhile), so it may call
 * MPI and HDF5 (MPI_THREAD_FUNNELED); with nested parallelism off (the
 * default) its own OpenMP loops run on that thread alone. */
typedef struct kern_edge_reader {
    int64_t nvertices;     /* N: vertex ids are in [0, N) */
    int64_t nedges;        /* M: the global list is [0, M) */
    int64_t chunk;         /* edges per rank per read; <= 0: KERN_VALIDATE_CHUNK */
    int (*read)(void *ctx, int64_t first, int64_t count, int64_t *edges, float *weights);
    void *ctx;
} kern_edge_reader;

/* Collective. The validators on any edge source; the io_edges versions above
 * are thin wrappers. dist == NULL selects the BFS checks (depths rebuilt from
 * the tree, unit weights), otherwise the SSSP checks. */
int kern_validate_reader(MPI_Comm comm, const kern_edge_reader *rd, int64_t root,
                         const int64_t *parent, const float *dist, void *work,
                         size_t work_bytes, int64_t *nedge_out);

/* ---- several keys per pass over the edges --------------------------------
 * A batch holds up to kmax keys' results compactly (one 8-byte record per
 * vertex of the rank's block and key: parent and depth or distance, a
 * vertex's records side by side, and one bit) and checks them all in one
 * streamed pass over the edge list: each edge is read once and checked for
 * every key, so the pass costs about the same for 1 key as for many. The
 * one-key functions above are a batch of one.
 *
 * kern_vbatch_add: collective; the key's local checks and its tree depths
 * now (the caller's arrays, with the same meaning and `work` as above, are
 * only read and may be reused once it returns), packed into the batch.
 * kern_vbatch_check(_file): collective; the pass over the edges for every
 * key added since the last check, then the batch is empty. Per key k, in
 * the order added: status[k] is G5_OK or G5_ERR_VALIDATE (its message, the
 * same one-key validation gives, from kern_vbatch_message(b, k) until the
 * next add), nedge[k] the TEPS edge count (-1 when invalid). A key's
 * failure does not stop the others'. The return value is G5_OK, or the
 * status of a failure that is not a validation (memory, I/O, arguments),
 * the same on every rank. */
#define KERN_VBATCH_MAX 64
typedef struct kern_vbatch kern_vbatch;
/* Not collective. Bytes a batch holds per key on `rank` of `nranks`. */
size_t kern_vbatch_key_bytes(int64_t nvertices, int rank, int nranks);
/* Collective. A batch of 1..KERN_VBATCH_MAX keys, BFS (sssp = 0) or SSSP. */
int kern_vbatch_create(MPI_Comm comm, int64_t nvertices, int kmax, int sssp, kern_vbatch **out);
void kern_vbatch_free(kern_vbatch **b);
/* Keys added since the last check. */
int kern_vbatch_keys(const kern_vbatch *b);
int kern_vbatch_add(kern_vbatch *b, int64_t root, const int64_t *parent, const float *dist,
                    void *work, size_t work_bytes);
int kern_vbatch_check(kern_vbatch *b, const kern_edge_reader *rd, int *status, int64_t *nedge);
int kern_vbatch_check_file(kern_vbatch *b, io_edges *edges, int *status, int64_t *nedge);
const char *kern_vbatch_message(const kern_vbatch *b, int k);

/* ---- keys parked in a scratch file ----------------------------------------
 * When memory holds few keys beside the graph (a large graph on few ranks),
 * each key's records can wait in a scratch file (io.h, io_spill) after it
 * is added, and be checked after the searches, with the graph freed, in
 * batches as large as the memory then allows.
 *
 * kern_vbatch_create_parking: collective; a batch that parks each key as
 * it is added (kern_vbatch_add: its local checks and depths as for any
 * batch, then, instead of records in memory, its root, its verdict so far
 * and its values written to s: a parent plane of 4 bytes and a value plane
 * of 1, 2 or 4 bytes per vertex of the rank's block, the smallest that
 * holds the key's BFS depths, 4 for SSSP; a key that already failed keeps
 * only its message). kern_vbatch_parked_at: the last added key's offset.
 * kern_vbatch_unpark: collective; adds the key parked at `at` (by a
 * parking batch of the same kind and vertices on the same ranks) to b, as
 * kern_vbatch_add did. Failures name the scratch file and agree across
 * ranks. */
int kern_vbatch_create_parking(MPI_Comm comm, int64_t nvertices, int sssp, io_spill *s,
                               kern_vbatch **out);
int64_t kern_vbatch_parked_at(const kern_vbatch *b);
int kern_vbatch_unpark(kern_vbatch *b, io_spill *s, int64_t at);
/* Not collective. The bytes a parked key takes on `rank` of `nranks`, with
 * 1-byte BFS depths (a BFS key takes more when its depths reach 256). */
size_t kern_vbatch_park_bytes(int64_t nvertices, int rank, int nranks, int sssp);

#endif
