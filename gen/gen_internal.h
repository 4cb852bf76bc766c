/* SPDX-License-Identifier: MIT */
/*
 * gen_internal.h - the generator's writer with its layout and test knobs,
 * shared by gen_cmd.c, the benchmarks and the tests. Not part of the public
 * interface (gen.h): gen_write is gen_write_ex with the defaults.
 */
#ifndef G500_GEN_INTERNAL_H
#define G500_GEN_INTERNAL_H

#include "gen.h"

typedef struct gen_write_opts {
    int64_t chunk_rows;  /* rows per HDF5 chunk; 0 = contiguous (no checksums) */
    int checksums;       /* Fletcher32 on chunked datasets                      */
    int quiet;           /* no progress lines                                   */
    /* Rows per batch (rounded down to whole chunks, at least one chunk);
     * default GEN_BATCH_ROWS. Two batches are in memory per rank. Tests use
     * small batches to run many rounds of the double buffer. */
    int64_t batch_rows;
    /* Test only: this rank (-1: none) hands the io layer a slab outside the
     * dataset in its write of round fail_round, as if its write failed. */
    int fail_rank;
    int64_t fail_round;
} gen_write_opts;

#define GEN_BATCH_ROWS ((int64_t)1 << 20)
/* Rows per dynamically scheduled piece of gen_slab_shared. */
#define GEN_SHARED_PIECE 8192

/* Defaults: IO_EDGES_CHUNK_ROWS, checksums on, progress on, GEN_BATCH_ROWS,
 * no fault. */
void gen_write_opts_default(gen_write_opts *o);

/* Collective on comm; as gen_write, with explicit options. */
int gen_write_ex(MPI_Comm comm, const gen_params *p, const char *path, int force,
                 const gen_write_opts *o, gen_result *result);

/* gen_slab for the threads of an enclosing OpenMP parallel region: every
 * thread of the team must call it (the same arguments, shared buffers);
 * the rows are shared out in dynamic pieces, so a thread may arrive late
 * and still help. All three outputs are required; the slab's content terms
 * are added atomically to the shared *content. Ends with a barrier, after
 * which the slab is complete. Not collective; cannot fail. */
void gen_slab_shared(const gen *g, int64_t first, int64_t count, int64_t *edges,
                     float *weights, uint64_t *content);

#endif
