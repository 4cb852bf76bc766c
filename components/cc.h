/* SPDX-License-Identifier: MIT */
/*
 * cc.h - connected components of the edge list by the patent's union-find
 * with a root vector and a two-dimensional son vector, the multi-rank merge
 * of per-rank forests, and the component statistics of components.h5.
 *
 * Errors: as everywhere in g500 (common.h), functions return G5_OK or a
 * negative G5_ERR_* after recording a message. Functions marked
 * "collective" return the same status on every rank of the communicator.
 *
 * ---- The forest (one rank, cc_forest.c) ----------------------------------
 * root[v] is the root of v's set, -1 while v has not been seen; a root r has
 * root[r] == r. son[r], the members of the set rooted at r, is stored as an
 * intrusive singly linked list in flat arrays: the list of r starts at r
 * itself, next[v] is the member after v (-1 at the end) and size[r] the
 * member count (only meaningful at roots; a joining vertex or a moved list
 * goes right after the root, so no tail is kept, and the order of the
 * other members is unspecified). So moving the smaller list into the larger
 * costs the smaller's length (every moved vertex's root is rewritten, and
 * the walk finds its last member), splicing is O(1), find is one load, and
 * there is no allocation per set. Vertex ids are int32 inside the forest: a
 * forest holds at most 2^31 - 1 vertices (SCALE <= 30), 12 bytes per
 * vertex.
 *
 * The four cases of an edge (u, v), u != v (self-loops are skipped):
 *   both unseen      -> a new set rooted at u, members {u, v}   CC_NEW_SET
 *   one unseen       -> it joins the other's set                CC_JOINED
 *   same root        -> nothing                                 CC_SAME
 *   different roots  -> smaller list moved into the larger      CC_MERGED
 *                       (equal sizes: u's set is kept)
 */
#ifndef G500_CC_H
#define G500_CC_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "io.h"

/* Largest vertex count a forest holds (int32 ids, -1 reserved). */
#define CC_MAX_VERTICES ((int64_t)INT32_MAX)

typedef struct cc_forest cc_forest;

enum cc_case { CC_SELF_LOOP = 0, CC_NEW_SET, CC_JOINED, CC_SAME, CC_MERGED };

/* Create a forest over n vertices, all unseen. n in [1, CC_MAX_VERTICES],
 * otherwise G5_ERR_ARG. Caller frees with cc_forest_free. Not collective. */
int cc_forest_create(int64_t n, cc_forest **out);
/* Accepts NULL and *f == NULL; sets *f to NULL. */
void cc_forest_free(cc_forest **f);
int64_t cc_forest_nvertices(const cc_forest *f);

/* Link one edge; returns which case of the patent applied (enum cc_case).
 * u and v must be in [0, n) (asserted, not checked: an internal step). */
int cc_forest_link(cc_forest *f, int64_t u, int64_t v);

/* Link `count` edges (edges is [count][2], original ids) using up to
 * nthreads OpenMP threads (<= 0: the OpenMP default). In: the forest may
 * already hold sets, so an edge list may be linked piece by piece (each
 * call a piece, e.g. as it is read). Afforest-style: on an empty forest or
 * a call of at least 2 n edges, all threads link a prefix of the edges (a
 * random sample for Graph500's shuffled lists; correctness does not depend
 * on it) and then the rest, skipping edges with both ends in the giant;
 * a later, smaller call filters its edges against the giant kept in the
 * forest and links the few left one by one. A vertex outside [0, n) is
 * G5_ERR_FORMAT naming the first such edge (index first_index + i); the
 * forest is then still valid and holds the call's other edges or some of
 * them. Not collective. */
int cc_forest_link_edges(cc_forest *f, const int64_t *edges, int64_t count,
                         int64_t first_index, int nthreads);

/* The edge tally (cc_forest.c): the edges per component counted while
 * they are linked, so that a stage that streams its edge list needs no
 * second pass over it and no counter per vertex. Attached to a forest
 * (cc_forest_set_tally; NULL detaches), it counts every tuple later given
 * to cc_forest_link_edges (not cc_forest_link or cc_forest_merge_roots):
 * self-loops apart, each at a vertex of its set (the giant filter's
 * dropped edges in one count per block at the marked set's root, the few
 * others at their first endpoint, in per-thread lists folded into a
 * counter per vertex only past n entries). It outlives the forest:
 * cc_tally_fold adds comp_edges[label[x]] += the count at x (label as
 * cc_forest_label gives it, for a partition that contains the forest's),
 * the self-loops to *self_loops and the other tuples to *nonloop: the
 * same sums as cc_count_edges over the tuples. Out of memory inside the
 * tally fails the cc_forest_link_edges call that met it. Not collective. */
typedef struct cc_tally cc_tally;
int cc_tally_create(int64_t n, cc_tally **out);
void cc_tally_free(cc_tally **t);   /* accepts NULL and *t == NULL */
void cc_forest_set_tally(cc_forest *f, cc_tally *t);
void cc_tally_fold(const cc_tally *t, const int32_t *label, int nthreads, int64_t *comp_edges,
                   int64_t *self_loops, int64_t *nonloop);
/* The width of the counters per vertex the lists were folded into: 0
 * (none yet), 32 or 64 bits. */
int cc_tally_counters(const cc_tally *t);
/* For tests: the number of folded entries past which the counters become
 * 64-bit (default 2^32 - 1, where a 32-bit count could first overflow),
 * so that the switch, with the 32-bit counts carried over, can be run on
 * a small list. */
void cc_tally_set_limit32(cc_tally *t, int64_t limit);

/* Union into f the sets described by another forest's root vector
 * (other_root[v] as cc_forest_roots returns it, same n). Not collective. */
void cc_forest_merge_roots(cc_forest *f, const int32_t *other_root);

/* Read access. cc_forest_roots: the root vector itself (n entries, -1 for
 * unseen), owned by the forest. find is one load. */
const int32_t *cc_forest_roots(const cc_forest *f);
int64_t cc_forest_find(const cc_forest *f, int64_t v);
/* Members of the set rooted at r: first is r, then cc_forest_next until -1. */
int64_t cc_forest_next(const cc_forest *f, int64_t v);
int64_t cc_forest_set_size(const cc_forest *f, int64_t r);   /* r a root */
/* Check every invariant: each seen vertex's root is a root; each root's
 * member list holds exactly the vertices whose root it is and has its
 * size; sizes add up to the seen vertices. G5_ERR_INTERNAL with
 * a message naming the first broken one. O(n). */
int cc_forest_check(const cc_forest *f);

/* Canonical labelling. Out: label[v] (n entries, caller's buffer; int32:
 * ids are below n / 2 < 2^30) = the component id of v, ids ordered by size (largest 0, ties by smallest
 * member vertex), -1 for unseen (isolated) vertices; *ncomp the number of
 * components; *comp_vertices (caller frees with free()) their sizes.
 * Depends only on the partition, not on the order edges were linked. */
int cc_forest_label(const cc_forest *f, int32_t *label, int64_t *ncomp,
                    int64_t **comp_vertices);

/* ---- statistics (cc_stats.c) ------------------------------------------- */
/* Count over a slab of edges: comp_edges[label[u]] += 1 for each
 * non-self-loop tuple (in/out: comp_edges has ncomp entries and is added
 * to), and the self-loops and non-self-loop tuples (added to *self_loops,
 * *nonloop). OpenMP inside. Not collective. */
void cc_count_edges(const int32_t *label, int64_t ncomp, const int64_t *edges,
                    int64_t count, int nthreads, int64_t *comp_edges,
                    int64_t *self_loops, int64_t *nonloop);

/* Fill the statistics of m (everything after the file identity: ncomponents
 * ... size_hist) from the component arrays and edge counts. Not
 * collective; m->nvertices must be set. */
void cc_stats_fill(io_components_meta *m, int64_t ncomp, const int64_t *comp_vertices,
                   const int64_t *comp_edges, int64_t self_loops, int64_t nonloop,
                   int64_t distinct);

/* Collective on comm. Distinct unordered non-self-loop pairs {u, v} over
 * the union of every rank's slab (edges [count][2], n vertices). Each pair
 * is hashed once and the hash placed, in one pass, in the region of its
 * class (owner rank x bucket), sent to the owner chosen by it, which
 * counts its distinct values bucket by bucket in cache, so no rank holds
 * more than its share of the edges (R bytes per slab tuple on one rank,
 * R = the record, 4 up to SCALE 20, 5 up to 24, 6 up to 28, 7 beyond; 2R
 * on several, transiently, plus under 2%: at P = 2 about 1.5R). Out:
 * *distinct, the same on every rank. */
int cc_count_distinct(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                      int nthreads, int64_t *distinct);

/* Collective on comm. cc_count_edges and cc_count_distinct in one: the
 * edge counts are taken in the duplicate count's first pass over the edge
 * list, so the list is read once less. In: label (n entries, as
 * cc_count_edges). Out: comp_edges (ncomp entries, added to), *self_loops
 * and *nonloop (added to) count this rank's slab only, as cc_count_edges
 * does (reduce them over ranks afterwards); *distinct is over all ranks,
 * the same on every rank. On error the edge counts are undefined. */
int cc_count_edges_distinct(MPI_Comm comm, int64_t n, const int32_t *label, const int64_t *edges,
                            int64_t count, int nthreads, int64_t *comp_edges, int64_t *self_loops,
                            int64_t *nonloop, int64_t *distinct);

/* The duplicate count in pieces, e.g. while the slab is read: create with
 * the slab's tuple count, add each piece as it arrives (in any order),
 * finish with the whole slab. Each add hashes its piece's tuples into
 * regions sized for evenly spread hashes (4 to 7 bytes per tuple by
 * SCALE, plus under 2%), so the finish only counts (one rank) or exchanges and counts
 * (several): the edge list is not read again. When a region overflows or
 * the pieces do not add up to the announced count or to the slab, the
 * finish places this rank's whole slab again by an exact two-pass scatter
 * instead (same result; each rank decides alone).
 * cc_dup_create: n vertices, count tuples in this rank's slab, nthreads
 * threads per add and rows of regions (<= 0: the OpenMP default; an add
 * made inside a parallel region runs on a nested team where nesting is
 * active, else on the calling thread alone; to add from several threads
 * at once, see cc_dup_add_row).
 * Not collective (comm gives the rank count). Caller frees with
 * cc_dup_free (accepts NULL). cc_dup_add: not collective, one add at a
 * time on a d. cc_dup_finish: collective on comm; edges[count][2] is the
 * whole slab; *distinct is the same on every rank and equal to
 * cc_count_distinct's. */
typedef struct cc_dup cc_dup;
int cc_dup_create(MPI_Comm comm, int64_t n, int64_t count, int nthreads, cc_dup **out);
void cc_dup_add(cc_dup *d, const int64_t *edges, int64_t len);
/* cc_dup_add_row: cc_dup_add by the calling thread alone, into the
 * regions of row `row` (0 <= row < the create's nthreads, a row being one
 * thread's share of the regions): calls on different rows may run at the
 * same time, e.g. from the threads of a parallel region while the master
 * reads (create with nthreads = the adding threads, each adding into its
 * own row; pieces spread about evenly over the rows, or a region
 * overflows and the finish places the whole slab again). Calls on one row
 * one at a time; cc_dup_add may not run at the same time. */
void cc_dup_add_row(cc_dup *d, int row, const int64_t *edges, int64_t len);
/* cc_dup_create_rows: as cc_dup_create, with `rows` rows (the threads of
 * each add) and nthreads threads for the finish: e.g. adds made by a
 * nested team of the compute threads while the master reads, and a
 * finish on all of them once the read is done. */
int cc_dup_create_rows(MPI_Comm comm, int64_t n, int64_t count, int rows, int nthreads, cc_dup **out);
/* cc_dup_create_pair: as cc_dup_create, but with two rows that share
 * each class's space (row 0 fills it from below, row 1 from above), so
 * the two rows may take any split of the tuples, not only even shares:
 * e.g. a reader thread adding part of each piece it read into row 0
 * (cc_dup_add_row) while a compute thread adds the rest into row 1, the
 * split set per piece to balance the two. nthreads: the finish's threads.
 * Only when the two rows of a class together outgrow its space (pairs not
 * spread) does the finish take the exact path. */
int cc_dup_create_pair(MPI_Comm comm, int64_t n, int64_t count, int nthreads, cc_dup **out);
int cc_dup_finish(MPI_Comm comm, cc_dup *d, const int64_t *edges, int64_t count, int64_t *distinct);
void cc_dup_free(cc_dup **d);

/* Print the statistics of m as the table `g500 stats` shows (json: one
 * JSON object instead). path names the file in the heading. Not collective:
 * call it on one rank. */
void cc_stats_print(FILE *out, const char *path, const io_components_meta *m, int json);

/* ---- the whole computation over ranks (cc_compute.c, cc_dist.c) ------- */
/* How the per-rank forests become one labelling.
 *   CC_MERGE_TREE         the forests (12 B/vertex each, all N vertices) are
 *                         merged along a binary tree of ranks to rank 0,
 *                         which labels and broadcasts: every rank holds all
 *                         N labels; O(N + M/P) memory per rank.
 *   CC_MERGE_DISTRIBUTED  each rank's forest covers only its slab's
 *                         endpoints; a distributed union-find over owner
 *                         ranks (block distribution of [0, N)) merges them;
 *                         each rank holds the labels of its block only;
 *                         O(N/P + M/P + components) memory per rank.
 *   CC_MERGE_AUTO         distributed when P >= CC_AUTO_RANKS or when the
 *                         largest slab holds at most n / 4 tuples (then the
 *                         endpoint arrays, about 48 B for each of up to 2
 *                         endpoints per tuple, are below the tree's 24 B
 *                         per vertex), tree otherwise.
 * Both give the same labels, sizes, edge counts and statistics. */
enum cc_merge { CC_MERGE_AUTO = 0, CC_MERGE_TREE, CC_MERGE_DISTRIBUTED };
#define CC_AUTO_RANKS 64

typedef struct cc_result {
    int64_t nvertices;
    /* label[i] is the component id of vertex label_first + i, for i in
     * [0, label_count). Tree: 0 and nvertices (every rank holds all);
     * distributed: this rank's block (the first N mod P ranks hold
     * N / P + 1 vertices, the others N / P; the rows of /label it writes). */
    int64_t label_first, label_count;
    int32_t *label;
    int64_t ncomp;
    int64_t *comp_vertices;  /* [ncomp], on every rank */
    int64_t *comp_edges;     /* [ncomp] non-self-loop tuples, on every rank */
    io_components_meta meta; /* statistics (identity fields left zero) */
    int merge;               /* the path taken: CC_MERGE_TREE or _DISTRIBUTED */
    int64_t rounds;          /* distributed: hooking rounds */
    int64_t rss_labelled;    /* max over ranks of the peak RSS (bytes) when
                              * the labels are done, before the duplicate count */
    double t_link, t_merge, t_label, t_count, t_distinct;  /* seconds */
    /* cc_compute_file only (zero from cc_compute_merge): the read phase's
     * wall time (with what overlapped it), the reader's time inside
     * io_edges_read_slab, and the streamed pieces' link (with the edge
     * tally) and duplicate hashing (between the reads, or under them when
     * overlapped; t_link above is then the link left after the read, 0).
     * overlapped: 1 when the link and hashing ran under the read; then
     * the reader hashed a share of each piece too (hash_share of the
     * tuples, in t_hash_reader), set per piece to balance the two threads
     * (t_hash_under is the compute thread's part).
     * cpu_reader and cpu_under: CPU times of the reader and (overlapped)
     * of the compute thread over the read phase (their own, not their
     * nested threads'): on an idle machine the phase takes about the
     * larger, whatever the load when measured. */
    double t_read, t_read_io, t_link_under, t_hash_under, cpu_reader, cpu_under;
    double t_hash_reader, hash_share;
    int64_t npieces;         /* collective piece reads (max over ranks) */
    int overlapped;
    int streamed;            /* tree path: pieces taken and dropped, no slab held */
    int reread;              /* streamed: the slab was read again, whole, for the
                              * duplicate count's exact path (a region overflowed) */
} cc_result;

/* Collective on comm. Each rank passes its slab of edges ([count][2], the
 * global edge index of the first being first_index); n vertices; merge one
 * of enum cc_merge (the same on every rank). The slab is only read (the
 * distributed path renames copies of its pieces; non-const for the
 * callers of old). Each rank reduces its slab to
 * a forest (OpenMP, nthreads), the forests are merged (see enum cc_merge)
 * and labelled canonically (ids by size, largest 0, ties by smallest
 * vertex, -1 isolated); edges per component and the statistics are
 * reduced. Identical on every rank and for any number of ranks, threads
 * and merge path. Memory per rank: cc_compute.c and cc_dist.c. Caller
 * frees with cc_result_free. */
int cc_compute_merge(MPI_Comm comm, int64_t n, int64_t *edges, int64_t count,
                     int64_t first_index, int nthreads, int merge, cc_result **out);
/* cc_compute_merge with CC_MERGE_TREE: every rank holds all N labels. */
int cc_compute(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
               int64_t first_index, int nthreads, cc_result **out);
void cc_result_free(cc_result **r);

/* Reading and computing at once. The slab is read in pieces of at most
 * piece_rows edges (<= 0: CC_PIECE_ROWS), cut at multiples of the file's
 * chunk rows when the piece holds at least one chunk, so no chunk is read
 * twice; every rank makes the same number of collective piece reads (some
 * of 0 rows). On the tree path the slab is streamed, never held: each
 * piece is read into a buffer that is reused, linked into the forest,
 * hashed into the duplicate count (cc_dup_add), its edges per set tallied
 * by the link (cc_tally, folded into the edges per component once the
 * labels exist), then dropped. overlap (enum cc_overlap): ON: an OpenMP
 * team where the master thread (the only one that calls HDF5 and MPI; MPI
 * is initialised FUNNELED) reads piece k + 1 into one buffer while the
 * other thread links and hashes piece k from the other (link and hashing
 * on nthreads - 1 nested threads, at least 1; at 2 threads the reader
 * hashes a balancing share of each piece it read too); OFF: pieces are
 * read and taken in turn, one buffer. Either way only the merge, labels, the fold of the
 * tally and the duplicate count's finish remain after the read. AUTO: cc_overlap_auto. The
 * distributed path streams the same way through its local step
 * (cc_dist_local: each piece hashed, renamed in local ids and linked). */
enum cc_overlap { CC_OVERLAP_AUTO = -1, CC_OVERLAP_OFF = 0, CC_OVERLAP_ON = 1 };
/* What AUTO takes. Collective on comm, the same answer on every rank: ON
 * when every rank runs 2 or more threads, or when the node has a CPU to
 * spare for a reader thread (the ranks on this node times their threads
 * fewer than the CPUs this rank may run on: e.g. one rank of one thread,
 * unbound, on 2 cores: 1.2-1.35x faster there, docs/components.md); OFF
 * otherwise (a reader thread would oversubscribe the cores the ranks
 * already fill: 2 ranks x 1 thread on 2 cores measured no faster). */
int cc_overlap_auto(MPI_Comm comm, int nthreads);
/* The share of each piece (after the first) the overlapped stream's
 * reader hashes: f in [0, 1] fixes it (for tests and tuning); negative,
 * the default, lets the stream set it per piece to balance its two
 * threads. Process-wide; set it before cc_compute_file on every rank. */
void cc_set_reader_share(double f);
/* One chunk of g500 gen's files (2^18 - 1 rows, 4 MiB): the piece buffers
 * stay small (RSS) and in cache while a piece is linked and hashed
 * (docs/components.md, "Reading: the streamed slab and the overlap"). */
#define CC_PIECE_ROWS ((int64_t)1 << 18)
/* Piece buffers of the overlapped stream: the reader may run this many
 * pieces ahead of the compute thread (16 MiB at the default piece). */
#define CC_RING 4

/* Collective on comm (the communicator e was opened on). The components
 * of the slab [first, first + count) of the edges file e, read as above.
 * A read that fails (damaged chunk, vertex out of range) stops every rank
 * at the same piece with the read's message; nothing is linked from a
 * piece that failed. Same result as reading the slab with
 * io_edges_read_slab and calling cc_compute_merge, for any piece size,
 * overlap, thread and rank count. Memory per rank on the tree path: the
 * forest, labels and merge buffer (24 B per vertex), the tally (4 B per
 * vertex; 8 when the slab holds 2^32 tuples or more), one or two piece
 * buffers (16 B per piece row) and the duplicate count's regions; when a
 * region overflows (pairs not spread) the slab is read again, whole, for
 * the duplicate count's exact path (r->reread). On the distributed path
 * the local step's arrays (cc_dist.c) replace the vertex arrays. Caller
 * frees *out with cc_result_free. */
int cc_compute_file(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int nthreads, int merge,
                    int64_t piece_rows, int overlap, cc_result **out);
/* Whether cc_dup_finish with this count will read the slab (its exact
 * path: a region overflowed, or the pieces added were not count tuples).
 * Defined in cc_stats.c, for cc_compute_file, which does not keep the
 * slab. Not collective. */
int cc_dup_needs_slab(const cc_dup *d, int64_t count);
/* The name of a merge path ("tree", "distributed", "auto"). Not collective. */
const char *cc_merge_name(int merge);

/* Internal to components/ (cc_dist.c, called by cc_compute_merge): the
 * distributed path up to the edge counts. Fills r's labels (its block),
 * ncomp, comp_vertices, comp_edges, rounds and the link, merge and label
 * times; adds this rank's slab's self-loops and non-loop tuples to
 * *self_loops and *nonloop. The slab is only read (its pieces are renamed
 * in a copy). Collective. */
int cc_dist_components(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                       int64_t first_index, int nthreads, cc_result *r, int64_t *self_loops,
                       int64_t *nonloop);

/* Internal to components/: the distributed path's local step taken piece
 * by piece (cc_dist.c; cc_compute_file streams the slab through it, as
 * the tree path streams through its forest). The endpoints of the slab's
 * non-loop tuples get local ids 0, 1, ... as they are first seen (a direct
 * map of n int32 when n <= 2 count, else a hash set grown between pieces,
 * at most 2/3 full; numbered by all threads with compare-and-swap);
 * cc_dist_local_take rewrites a piece in place in local ids (self-loops as
 * (0, 0)) and links it into a forest over min(n, 2 count) local ids that
 * tallies its edges. The ids must lie in [0, n) (the reader and
 * cc_dist_components check). Not collective; cc_dist_local_finish is:
 * it takes status (the agreed outcome of the pieces on this rank), ends
 * the local step (local sets and their edges), frees *l and runs the
 * union-find over owner ranks and the labels (as cc_dist_components). */
typedef struct cc_dist_local cc_dist_local;
int cc_dist_local_create(int64_t n, int64_t count, cc_dist_local **out);
int cc_dist_local_take(cc_dist_local *l, int64_t *edges, int64_t len, int64_t first_index, int nthreads);
void cc_dist_local_free(cc_dist_local **l);  /* accepts NULL and *l == NULL */
/* For tests: the pairs per rank and batch of the distributed path's
 * exchanges (<= 0: the default, 2^18), so that small graphs take many
 * batches. Process-wide; set it on every rank before the call. */
void cc_dist_set_batch(int64_t pairs);
/* The local ids handed out so far (*nloc) and gid[id], their original ids. */
const int64_t *cc_dist_local_ids(const cc_dist_local *l, int64_t *nloc);
int cc_dist_local_finish(MPI_Comm comm, int status, cc_dist_local **l, int nthreads, cc_result *r,
                         int64_t *self_loops, int64_t *nonloop);

/* ---- subcommands (components_cmd.c, stats_cmd.c) ----------------------- */
int components_cmd(int argc, char **argv);
int stats_cmd(int argc, char **argv);

#endif
