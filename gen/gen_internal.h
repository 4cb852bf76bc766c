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
    /* Test only: this rank (-1: none) hands the io layer a slab outside the
     * dataset in its first write, as if its write failed. */
    int fail_rank;
} gen_write_opts;

/* Defaults: IO_EDGES_CHUNK_ROWS, checksums on, progress on, no fault. */
void gen_write_opts_default(gen_write_opts *o);

/* Collective on comm; as gen_write, with explicit options. */
int gen_write_ex(MPI_Comm comm, const gen_params *p, const char *path, int force,
                 const gen_write_opts *o, gen_result *result);

#endif
