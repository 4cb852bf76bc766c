/* SPDX-License-Identifier: MIT */
/*
 * io_direct.h - inside the io module only (not part of io.h): the layout
 * of struct io_file, our own
 * Fletcher32 (io_fletcher32.c) and the direct chunk reader (io_chunks.c)
 * that io_edges_read_slab tries before the collective H5Dread path. Tests
 * include it to check both against HDF5 itself.
 *
 * Errors as everywhere (common.h): G5_OK or a negative G5_ERR_* with a
 * message naming the file.
 */
#ifndef G500_IO_DIRECT_H
#define G500_IO_DIRECT_H

#include "io.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "atomic.h"
#include "common.h"

/* An open file (io_file.c; io_attr.c reads and writes its attributes). */
#define IO_PATH_MAX G5_PATH_MAX
struct io_file {
    hid_t fid;
    MPI_Comm comm;
    int writing;
    int skip_checksums;     /* reads do not verify Fletcher32 (see io.h) */
    char path[IO_PATH_MAX];
    char tmp[IO_PATH_MAX + 32];
    char format[64];
    int wb_fd;              /* writer: the temporary file, for writeback (-1: not open) */
    dev_t tmp_dev;          /* writer: the temporary file's identity (0: not created) */
    ino_t tmp_ino;
};

/* Why a write failed: strerror of errno, or HDF5's innermost message
 * (io_file.c). */
const char *io_write_reason(int err);


/* HDF5's Fletcher32 of len bytes (the value its filter appends to a chunk,
 * stored little-endian): bit-identical to the library's, computed with
 * AVX2 when the CPU has it, else portable C. Definition: io_fletcher32.c. */
uint32_t io_fletcher32(const void *data, size_t len);
/* The portable implementation and the AVX2 one (which falls back to the
 * portable one on a CPU without AVX2), for tests and benchmarks. */
uint32_t io_fletcher32_portable(const void *data, size_t len);
uint32_t io_fletcher32_avx2(const void *data, size_t len);
/* Whether a stored 4-byte Fletcher32 suffix (little-endian) matches data,
 * with HDF5's acceptance rule: the checksum or, as HDF5 also accepts for
 * files of releases before 1.6.3, the checksum with the bytes of each
 * 16-bit half swapped. */
int io_fletcher32_matches(const void *data, size_t len, const unsigned char stored[4]);

/* A dataset read by direct chunk reads (H5Dread_chunk) with our own
 * checksum verification. */
typedef struct io_direct io_direct;

/* Collective (HDF5 metadata reads: every rank opens the same datasets in the
 * same order). Opens dataset `name` of f and keeps it open. *out is NULL
 * (status G5_OK) when the direct path does not apply: the dataset is not
 * chunked along dim 0 only with exactly one filter, Fletcher32; its file
 * type is not `memtype` (a conversion would be needed); or it is missing
 * (the plain path then reports it). Free with io_direct_close. */
int io_direct_open(io_file *f, const char *name, hid_t memtype, io_direct **out);
/* Not collective: each rank reads its own chunks (independent I/O). Reads
 * rows [first, first+count) into buf, verifying every chunk touched when
 * verify is set. *handled = 0 (status G5_OK) when the direct path could not
 * read them (rows out of range, a chunk of another size or with its filter
 * skipped, an H5Dread_chunk failure): the caller then reads them the plain
 * way, which reports any real problem in its own words. A checksum mismatch
 * is G5_ERR_FORMAT naming the file, dataset, rows and chunk. */
int io_direct_read(io_direct *d, int verify, int64_t first, int64_t count, void *buf,
                   int *handled);
/* Collective (closes an HDF5 dataset). Accepts *d == NULL. */
void io_direct_close(io_direct **d);

#endif
