/* SPDX-License-Identifier: MIT */
/*
 * cc.h - connected components of an edge list (the components stage):
 * the component id of every vertex, the vertices and edges of each
 * component, and the statistics of components.h5.
 *
 * The method is the union-find of CN patent "基于连通分量生成优化的超级
 * 计算机基准测试加速方法" (National University of Defense Technology,
 * 2021): a root vector and a two-dimensional son vector per rank, the
 * per-rank forests merged over ranks (docs/components.md). The internals
 * are in cc_internal.h (for this folder, its tests and benches).
 *
 * Errors: as everywhere in g500 (common.h), functions return G5_OK or a
 * negative G5_ERR_* after recording a message. Functions marked
 * "collective" return the same status on every rank of the communicator.
 */
#ifndef G500_CC_H
#define G500_CC_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "io.h"

/* Largest vertex count handled (int32 ids, -1 reserved): SCALE <= 30. */
#define CC_MAX_VERTICES ((int64_t)INT32_MAX)
/* Edges per read piece by default: one chunk of g500 gen's files. */
#define CC_PIECE_ROWS ((int64_t)1 << 18)

/* How to compute. A zeroed struct (or NULL) takes every default. */
typedef struct cc_opts {
    int nthreads;        /* OpenMP threads per rank (<= 0: the OpenMP default) */
    int64_t piece_rows;  /* edges per read piece (<= 0: CC_PIECE_ROWS), cut to
                          * whole chunks of the file; memory 16 B per row */
    int labels_only;     /* 1: labels and per-component counts only, no
                          * duplicate count and no statistics (meta left
                          * zero): what kernel 1's placement needs */
    /* For tests and benches (cc_internal.h); 0 takes the automatic choice: */
    int merge;           /* enum cc_merge: force one merge of the forests */
    int64_t dist_batch;  /* pairs per rank and exchange batch of the
                          * distributed merge (<= 0: 2^18) */
} cc_opts;

typedef struct cc_result {
    int64_t nvertices;
    /* label[i] is the component id of vertex label_first + i, for i in
     * [0, label_count): ids by size (largest 0, ties by smallest member
     * vertex), -1 isolated. This rank holds at least its block of rows of
     * /label (the first N mod P ranks N / P + 1 rows, the others N / P). */
    int64_t label_first, label_count;
    int32_t *label;
    int64_t ncomp;
    int64_t *comp_vertices;  /* [ncomp], on every rank */
    int64_t *comp_edges;     /* [ncomp] non-self-loop tuples, on every rank */
    io_components_meta meta; /* statistics (identity fields left zero) */
    int merge;               /* the merge taken: enum cc_merge */
    int64_t rounds;          /* distributed merge: hooking rounds */
    int64_t rss_labelled;    /* max over ranks of the peak RSS (bytes) when
                              * the labels are done, before the duplicate count */
    /* seconds: the read phase (with the link and hashing of the pieces in
     * it), the reader's time in the reads, the link and hashing of the
     * pieces, then the merge, labels, edge counts and duplicate count */
    double t_read, t_read_io, t_link, t_hash, t_merge, t_label, t_count, t_distinct;
    int64_t npieces;         /* collective piece reads (max over ranks) */
    int reread;              /* the slab was read again, whole, for the
                              * duplicate count's exact path (pairs not spread) */
} cc_result;

/* Collective on comm (the communicator e was opened on). The components
 * of the slab [first, first + count) of the edges file e, each rank its
 * slab, read in pieces and streamed (no slab held). A read that fails
 * (damaged chunk, vertex out of range) stops every rank at the same piece
 * with the read's message. The result is the same for any piece size,
 * thread and rank count. Memory per rank: docs/components.md. Caller
 * frees *out with cc_result_free. */
int cc_compute_file(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, const cc_opts *opts,
                    cc_result **out);

/* Collective on comm. The same from a slab in memory: edges[count][2]
 * (only read), the global index of its first tuple first_index, n
 * vertices. Caller frees *out with cc_result_free. */
int cc_compute(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count, int64_t first_index,
               const cc_opts *opts, cc_result **out);

/* Accepts NULL and *r == NULL; sets *r to NULL. */
void cc_result_free(cc_result **r);

/* The name of a merge ("tree", "distributed"). Not collective. */
const char *cc_merge_name(int merge);

#endif
