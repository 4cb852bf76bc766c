/* SPDX-License-Identifier: MIT */
/*
 * kern.h - the timed Graph500 kernels: the vertex distribution, kernel 1
 * (graph construction), root sampling, kernel 2 (direction-optimizing BFS),
 * kernel 3 (delta-stepping SSSP), communication accounting and the
 * conversion of results to original vertex ids for validation. The report
 * half of this folder (validation, statistics, output) is kern_validate.h.
 *
 * Errors: as everywhere in g500 (common.h): G5_OK or a negative G5_ERR_*
 * with a one-line message. Every function marked collective returns the same
 * status on every rank. The timed functions (kern_graph_build, kern_bfs_run,
 * kern_sssp_run) never call g5_agree: failures are folded into allreduces
 * the algorithm makes anyway, so all ranks leave together; the caller spreads
 * the message with g5_agree after stopping its timer.
 *
 * ---- Vertex ids -----------------------------------------------------------
 * original id  v in [0, N): what the edges file holds and what validation,
 *              roots and the JSON speak.
 * owner, local rank r = owner(v) holds v as local index l in [0, nlocal[r]).
 *              cyclic: r = v mod P, l = v / P (the reference code's layout);
 *              block:  r, l from the even split of [0, N) (g5_range_split);
 *              placement file: g = new_label[v] in [0, n_active), r is the
 *              rank with rank_offsets[r] <= g < rank_offsets[r+1], l = g -
 *              rank_offsets[r]; isolated vertices (g >= n_active) have no
 *              owner, no CSR row and no bitmap bit.
 * pid          the kernels' internal global id: base[r] + l, where base[r]
 *              is rank r's first bit in the frontier bitmap, a multiple of
 *              64, so the concatenation of the ranks' bitmap words is the
 *              global bitmap and a CSR column is directly a bit index. pids
 *              are < 2^32 (checked), so CSR columns are uint32.
 */
#ifndef G500_KERN_H
#define G500_KERN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* ---- distribution -------------------------------------------------------- */
enum kern_dist_kind { KERN_DIST_CYCLIC, KERN_DIST_BLOCK, KERN_DIST_PLACEMENT };

typedef struct kern_dist kern_dist;

/* Collective on comm (sizes only; no communication beyond the comm size).
 * nvertices: N. Caller frees with kern_dist_free. */
int kern_dist_create_cyclic(MPI_Comm comm, int64_t nvertices, kern_dist **out);
int kern_dist_create_block(MPI_Comm comm, int64_t nvertices, kern_dist **out);
/* Collective. new_label: in, [N], identical on every rank (copied, as
 * 32-bit); rank_offsets: in, [P+1] with rank_offsets[0] = 0 and
 * rank_offsets[P] = n_active, nondecreasing. new_label must be a bijection
 * of [0, N) (checked: G5_ERR_FORMAT naming `what`, e.g. the file path). */
int kern_dist_create_placement(MPI_Comm comm, int64_t nvertices,
                               const int64_t *new_label, const int64_t *rank_offsets,
                               const char *what, kern_dist **out);
/* Collective. Read /new_label and /rank_offsets of a placement file (io.h
 * format) and build the distribution; the file's nranks must equal the
 * communicator size and its nvertices N (G5_ERR_MISMATCH otherwise).
 * rank_node (out, may be NULL): [P] node of each rank, malloc'ed, caller
 * frees; node_hops (out, may be NULL): [nnodes*nnodes] malloc'ed; nnodes out. */
int kern_dist_load_placement(MPI_Comm comm, const char *path, int64_t nvertices,
                             kern_dist **out, int **rank_node, int **node_hops,
                             int *nnodes);
void kern_dist_free(kern_dist **d);              /* accepts NULL, *d == NULL */
int kern_dist_kind_of(const kern_dist *d);
int64_t kern_dist_n_active(const kern_dist *d);   /* N for cyclic/block */
/* Not collective. Owner and local index of original vertex v; returns 0 (and
 * leaves the outputs alone) if v has no owner (isolated under a placement,
 * or out of range), 1 otherwise. Any rank can ask about any vertex. */
int kern_dist_locate(const kern_dist *d, int64_t v, int *owner, int64_t *local);
/* Not collective. pid <-> original id, on any rank. pid_of returns -1 for a
 * vertex with no owner; orig_of_pid returns -1 for a pid in padding. */
int64_t kern_dist_pid_of(const kern_dist *d, int64_t v);
int64_t kern_dist_orig_of_pid(const kern_dist *d, int64_t pid);

/* ---- kernel 1: construction ---------------------------------------------- */
typedef struct kern_graph kern_graph;

/* Collective, timed. Build this rank's CSR of the undirected graph from
 * this rank's `count` edges in memory (edges: in, [count][2] original ids in
 * [0, N); weights: in, [count]): rows are local vertices, columns uint32
 * pids, float weights. Self-loops are dropped; duplicate (u, v) pairs are
 * merged keeping the smallest weight (shortest paths unchanged). Rows are
 * ordered by (weight, column). Two passes over the edges in rounds of a
 * bounded number of edges (count entries per block of rows, then fill),
 * routing each entry to the owner of its row with MPI_Alltoallv; see
 * construct.c. The inputs are only
 * read; the caller may free them afterwards. The graph borrows d (keep it
 * alive). Edges out of range are G5_ERR_FORMAT; an endpoint without owner
 * under a placement is G5_ERR_MISMATCH (the edge is named). Caller frees
 * with kern_graph_free. */
int kern_graph_build(MPI_Comm comm, const kern_dist *d, const int64_t *edges,
                     const float *weights, int64_t count, kern_graph **out);
/* The same with `chunk` edges per rank per round (<= 0: the default, 2^20,
 * less at one rank on a small graph) and blocks of 2^rows_log rows (< 0:
 * the default; at most what an 8-byte record carries; construct.c); the
 * result depends on neither. */
int kern_graph_build_ex(MPI_Comm comm, const kern_dist *d, const int64_t *edges,
                        const float *weights, int64_t count, int64_t chunk, int rows_log,
                        kern_graph **out);
/* Collective, timed except for the reads. The same construction streaming
 * this rank's block of the edges file (g5_range_split of the file's nedges)
 * in chunks of `chunk` edges (<= 0: default), read twice (once per pass),
 * so the edge list is never held in memory. ef: in, open (io.h), borrowed;
 * its nvertices must equal d's (G5_ERR_MISMATCH). read_seconds: out, the
 * seconds this rank spent in io_edges_read_slab (untimed by the spec: the
 * driver subtracts them from the elapsed time). A read error (damaged
 * chunk, edge out of range) is the reader's status, on every rank. */
typedef struct io_edges io_edges;
int kern_graph_build_file(MPI_Comm comm, const kern_dist *d, io_edges *ef, int64_t chunk,
                          double *read_seconds, kern_graph **out);
void kern_graph_free(kern_graph **g);            /* accepts NULL, *g == NULL */
/* Not collective. Free the graph's rows (its memory), keeping its sizes and
 * communication counters: afterwards only kern_graph_nlocal,
 * kern_graph_nnz_global, kern_comm_gather and kern_graph_free apply. */
void kern_graph_release(kern_graph *g);
int64_t kern_graph_nlocal(const kern_graph *g);
int64_t kern_graph_nnz_global(const kern_graph *g);
/* Not collective. This rank's construction phases in elapsed seconds: t[0]
 * pass 1 (count), t[1] pass 2 (fill), t[2] sort, merge and compaction (reads
 * excluded from all three), t[3] reads (0 when built from memory); and in
 * CPU seconds of the process (all threads, insensitive to a shared
 * machine): t[4] construction without the reads, t[5] the reads. */
void kern_graph_build_times(const kern_graph *g, double t[6]);
int64_t kern_graph_bytes(const kern_graph *g);       /* memory of the CSR here (rowptr, dup counts, col, w) */
/* Collective. The Graph500 TEPS edge count of a search: input tuples that
 * are not self-loops with both endpoints reached (duplicates counted), from
 * the row lengths before merging; parent: in, [nlocal], -1 = unreached. The
 * validator counts the same from the file; the driver checks they agree. */
int kern_reached_edges(kern_graph *g, const int64_t *parent, int64_t *nedge);
/* Local degree of local vertex l (CSR row length). */
int64_t kern_graph_degree(const kern_graph *g, int64_t l);

/* ---- communication accounting ------------------------------------------- *
 * Every exchange made by kern_bfs_run and kern_sssp_run adds the bytes this
 * rank sends to each other rank (alltoallv payloads, allgather'ed bitmap
 * segments, 8 bytes per allreduce element sent to the reduction) into a
 * counter array of the graph: counters, not structure. */
void kern_comm_reset(kern_graph *g);
/* Collective. Gather every rank's counters on rank 0 into matrix[i*P + j] =
 * bytes rank i sent to rank j (out, [P*P] on rank 0, which reports them;
 * ignored and may be NULL elsewhere: P^2 words are too many for every rank
 * of a large job). */
int kern_comm_gather(kern_graph *g, int64_t *matrix);

/* ---- search keys ---------------------------------------------------------- */
/* Collective. Choose up to `want` distinct roots with degree >= 1 not
 * counting self-loops, from `seed`, as original ids (roots: out, [want],
 * identical on every rank; *nroots: out). Candidates are a seeded bijection
 * of [0, 2^ceil(log2 N)) walked in order, so the roots do not depend on the
 * distribution or the rank count. Fewer than `want` only when the graph has
 * fewer non-isolated vertices. */
int kern_roots_sample(const kern_graph *g, uint64_t seed, int want,
                      int64_t *roots, int *nroots);

/* ---- kernel 2: BFS --------------------------------------------------------- */
typedef struct kern_bfs kern_bfs;

/* Per-level record of one search (levels: in/out, filled by kern_bfs_run
 * when non-NULL; kern_bfs_run sizes the arrays, kern_levels_free frees). */
typedef struct kern_levels {
    int n;                 /* levels recorded */
    int cap;
    double *time;          /* [n] seconds of each level (max over ranks) */
    int64_t *frontier;     /* [n] vertices in the frontier the level expanded */
    int *bottom_up;        /* [n] 0 top-down; bottom-up with the frontier shared
                            * as a bitmap: 1, as a list of vertices: 2 */
} kern_levels;
void kern_levels_free(kern_levels *lv);

/* Collective, untimed: allocate the BFS workspace for graph g (the graph is
 * borrowed, read only). Caller frees with kern_bfs_free. */
int kern_bfs_create(kern_graph *g, kern_bfs **out);
void kern_bfs_free(kern_bfs **b);
/* Collective, timed. Breadth-first search from original vertex root (must
 * have an owner). Afterwards kern_bfs_parent gives, for each local vertex,
 * the parent's pid (root: its own pid; unreached: -1). */
int kern_bfs_run(kern_bfs *b, int64_t root, kern_levels *levels);
const int64_t *kern_bfs_parent(const kern_bfs *b);  /* [nlocal], owned by b */
/* Not collective, untimed. Memory of b that only kern_bfs_run uses (the two
 * vertex queues, 8 bytes per local vertex; *bytes: out, its size): between
 * searches the caller may use it as scratch, e.g. the validator's `work`
 * (kern_validate.h). The next kern_bfs_run overwrites it; the parent array
 * is not part of it. Owned by b. */
void *kern_bfs_scratch(kern_bfs *b, size_t *bytes);

/* ---- kernel 3: SSSP -------------------------------------------------------- */
typedef struct kern_sssp kern_sssp;

/* Phase breakdown of the last kern_sssp_run on this rank. */
typedef struct kern_sssp_stats {
    int64_t buckets;        /* distinct buckets processed */
    int64_t phases;         /* relaxation rounds (one exchange each) */
    int64_t relaxations;    /* edges relaxed here */
    int64_t messages;       /* remote relaxations sent from here */
    double t_relax, t_exchange, t_apply, t_reduce;   /* seconds here */
    int64_t ghosts;         /* remote vertices adjacent to this rank (ghost slots) */
    int64_t lists_peak;     /* most bytes held by buckets and lists in a round here */
    int64_t held;           /* workspace bytes held here after the run (or the
                             * create): fixed arrays, no bucket or queue
                             * storage, 4 lists per thread of <= 64 KiB */
} kern_sssp_stats;

/* Collective, untimed. delta > 0: bucket width (weights are in [0, 1)).
 * Needs rows ordered by weight: kernel 1 leaves them so; a graph built
 * otherwise is sorted here in place. */
int kern_sssp_create(kern_graph *g, double delta, kern_sssp **out);
void kern_sssp_free(kern_sssp **s);
/* Collective, timed. Shortest paths from original vertex root. */
int kern_sssp_run(kern_sssp *s, int64_t root);
/* Not collective. Unpack the local result: parent (out, [nlocal], parent
 * pid, root its own, unreached -1), dist (out, [nlocal], the float32 sums
 * of the search, +INFINITY when unreached). */
void kern_sssp_result(const kern_sssp *s, int64_t *parent, float *dist);
/* Not collective, untimed. The same result without a parent copy: the
 * state words of s are unpacked in place into the parent array, which is
 * returned ([nlocal] int64, owned by s); dist as above (may be NULL).
 * Valid until the next kern_sssp_run, which reinitialises the words and
 * never reads what was there: so the caller may also overwrite the array
 * once done with it (e.g. as the validator's `work`, kern_validate.h; its
 * size is 8 (nlocal + 1) bytes). Call once per search: the words are
 * results afterwards, not state. */
int64_t *kern_sssp_take_result(kern_sssp *s, float *dist);
/* Not collective, untimed. Memory of s that only kern_sssp_run uses and
 * reinitialises (at P > 1 the ghost words; *bytes: out, its size, 0 and
 * NULL at one rank): between searches the caller may use it as scratch,
 * e.g. for the results in original ids. Owned by s; not the array
 * kern_sssp_take_result returns. */
void *kern_sssp_scratch(kern_sssp *s, size_t *bytes);
const kern_sssp_stats *kern_sssp_get_stats(const kern_sssp *s);

/* ---- results in original ids ----------------------------------------------- */

/* Collective, untimed. Convert local results (parent: in, [nlocal] pids or
 * -1; dist: in, [nlocal] or NULL) into original ids block-distributed over
 * N (parent_out: out, [count of g5_range_split(N, rank, P)], -1 for
 * unreached; dist_out: out, same size, +INFINITY for unreached, ignored when
 * dist is NULL). */
int kern_to_original(kern_graph *g, const int64_t *parent, const float *dist,
                     int64_t *parent_out, float *dist_out);
/* Not collective. 1 when every pid is its original id and this rank's block
 * is all of [0, N) (one rank, cyclic or block): the local results are then
 * already what kern_to_original would produce, and the driver passes them
 * to the validators without a copy. */
int kern_ids_are_original(const kern_graph *g);

#endif
