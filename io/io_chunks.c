/* SPDX-License-Identifier: MIT */
/*
 * io_chunks.c - reading a Fletcher32-chunked dataset by direct chunk reads
 * (H5Dread_chunk, HDF5 1.10.2+) and verifying each chunk with our own
 * vectorised checksum (io_fletcher32.c) instead of HDF5's filter pipeline
 * (a scalar Fletcher32 over 16-bit words and a copy through a library
 * buffer), which bounds the stages that stream the edge list.
 *
 * Applies only to the layout gen writes: chunked along dim 0 (a chunk holds
 * whole rows), exactly one filter, Fletcher32, file type equal to the
 * memory type asked for, or unsigned 32-bit little-endian integers read as
 * int64 (the edges file's vertex ids: each chunk is read and checked in the
 * kept buffer and its rows widened into the caller's). Everything else
 * (deflate, no checksum, contiguous, other conversions) is left to the
 * plain collective H5Dread path, decided once at open from the dataset's
 * creation properties, which are the same on every rank.
 *
 * Reading rows [first, first+count): for each chunk c overlapping them, the
 * stored size must be the full chunk plus the 4-byte checksum (HDF5 stores
 * every chunk at full size, the partial last chunk of a dataset too, and
 * checksums all of it). A chunk lying wholly inside the rows with at least
 * one row after it is read straight into the caller's buffer: its 4-byte
 * checksum lands on the first bytes of the next chunk's rows, is checked
 * at once and then overwritten by the next chunk. Other chunks (the first
 * and last, cut by the slab) go through the reader's one kept chunk and
 * only their wanted rows are copied; the kept chunk stays for the next call,
 * so a stream of slabs that do not fall on chunk boundaries (every rank's
 * share starts mid-chunk, and the stages read in their own round sizes)
 * reads and checks each boundary chunk once, not once per slab.
 *
 * Parallel use: H5Dread_chunk is documented as unsupported with parallel
 * HDF5, but on HDF5 1.10.8 with the MPI-IO driver (and collective metadata
 * reads on the file) it reads with independent I/O: checked at 1, 2 and 4
 * ranks with ranks reading different chunks in different orders and some
 * reading none (tests/mpi/mpi_io_direct.c). It needs no collective call, so
 * each rank reads only its own chunks.
 */
#include "io_direct.h"

#include "common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct io_direct {
    hid_t dset;
    const char *path;       /* the file's path, for messages (owned by the io_file) */
    char name[64];
    int64_t nrows;          /* dim 0 */
    int64_t chunk_rows;
    size_t rowbytes;        /* in the file */
    size_t chunk_bytes;     /* chunk_rows * rowbytes, without the checksum */
    int widen;              /* file uint32, caller int64: rows go through kept */
    int cols;               /* values per row */
    unsigned char *kept;    /* chunk_bytes + 4: the last boundary chunk read, own mapping */
    int64_t kept_chunk;     /* its index, -1: none */
    int kept_verified;      /* its checksum was checked */
};

/* Whether the dataset's creation properties and type allow the direct path;
 * fills chunk_rows, rowbytes and nrows. */
static int eligible(hid_t d, hid_t memtype, io_direct *x)
{
    int ok = 0, ndims;
    hid_t dcpl = H5Dget_create_plist(d), ftype = H5Dget_type(d), sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 1}, cd[2] = {0, 1};
    unsigned flags = 0, cd_values[8];
    size_t ncd = 8;
    if (dcpl < 0 || ftype < 0 || sp < 0)
        goto out;
    ndims = H5Sget_simple_extent_ndims(sp);
    if (ndims < 1 || ndims > 2 || H5Sget_simple_extent_dims(sp, dims, NULL) < 0)
        goto out;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, ndims, cd) != ndims)
        goto out;
    if (cd[0] < 1 || (ndims == 2 && cd[1] != dims[1]))
        goto out;
    if (H5Pget_nfilters(dcpl) != 1 ||
        H5Pget_filter2(dcpl, 0, &flags, &ncd, cd_values, 0, NULL, NULL) != H5Z_FILTER_FLETCHER32)
        goto out;
    x->widen = H5Tequal(memtype, H5T_NATIVE_INT64) > 0 && H5Tequal(ftype, H5T_STD_U32LE) > 0 &&
               H5Tequal(H5T_NATIVE_UINT32, H5T_STD_U32LE) > 0;
    if (!x->widen && H5Tequal(ftype, memtype) <= 0)
        goto out;
    x->nrows = (int64_t)dims[0];
    x->chunk_rows = (int64_t)cd[0];
    x->cols = ndims == 2 ? (int)dims[1] : 1;
    x->rowbytes = H5Tget_size(ftype) * (size_t)x->cols;
    x->chunk_bytes = (size_t)x->chunk_rows * x->rowbytes;
    ok = x->rowbytes >= 4;   /* the spilled checksum must fit in the next row */
out:
    if (sp >= 0)
        H5Sclose(sp);
    if (ftype >= 0)
        H5Tclose(ftype);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return ok;
}

int io_direct_open(io_file *f, const char *name, hid_t memtype, io_direct **out)
{
    io_direct *x;
    hid_t d;
    *out = NULL;
    if (H5Lexists(io_file_hid(f), name, H5P_DEFAULT) <= 0)
        return G5_OK;
    d = H5Dopen2(io_file_hid(f), name, H5P_DEFAULT);
    if (d < 0)
        return G5_OK;
    x = g5_calloc(1, sizeof *x, "direct chunk reader");
    if (!x) {
        H5Dclose(d);
        return G5_ERR_NOMEM;
    }
    x->dset = d;
    x->kept_chunk = -1;
    x->path = io_file_path(f);
    snprintf(x->name, sizeof x->name, "%s", name);
    if (!eligible(d, memtype, x)) {
        H5Dclose(d);
        free(x);
        return G5_OK;
    }
    *out = x;
    return G5_OK;
}

void io_direct_close(io_direct **dp)
{
    io_direct *d = dp ? *dp : NULL;
    if (!d)
        return;
    H5Dclose(d->dset);
    if (d->kept)
        munmap(d->kept, d->chunk_bytes + 4);
    free(d);
    *dp = NULL;
}

/* Read chunk c into dst (room for chunk_bytes + 4) and verify it. Returns
 * G5_OK, G5_ERR_FORMAT on a checksum mismatch, or 1: not readable here. */
static int read_chunk(io_direct *d, int verify, int64_t c, unsigned char *dst)
{
    hsize_t off[2] = {(hsize_t)(c * d->chunk_rows), 0}, stored = 0;
    uint32_t mask = 0;
    int64_t r0 = c * d->chunk_rows, r1 = r0 + d->chunk_rows;
    if (H5Dget_chunk_storage_size(d->dset, off, &stored) < 0 || stored != d->chunk_bytes + 4)
        return 1;
    if (H5Dread_chunk(d->dset, H5P_DEFAULT, off, &mask, dst) < 0 || mask != 0)
        return 1;
    if (verify && !io_fletcher32_matches(dst, d->chunk_bytes, dst + d->chunk_bytes))
        return g5_error(G5_ERR_FORMAT,
                        "%s: reading rows %lld..%lld of %s failed (damaged chunk %lld: Fletcher32 checksum mismatch)",
                        d->path, (long long)r0, (long long)(r1 < d->nrows ? r1 : d->nrows), d->name,
                        (long long)c);
    return G5_OK;
}

/* Chunk c in the kept buffer, read only when it is not there already
 * (checked when verify asks and it was not). The buffer is a mapping of its
 * own, not the heap's: kept for the reader's life on the heap it would pin
 * a chunk in the middle of it (components never trims it), and the arrays
 * allocated after the reads would grow the heap past it. rc as read_chunk. */
static int read_kept(io_direct *d, int verify, int64_t c)
{
    if (d->kept_chunk == c && (d->kept_verified || !verify))
        return G5_OK;
    if (!d->kept) {
        void *p = mmap(NULL, d->chunk_bytes + 4, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return g5_error(G5_ERR_NOMEM, "%s: cannot map a chunk buffer of %zu bytes for %s",
                            d->path, d->chunk_bytes + 4, d->name);
        d->kept = p;
    }
    d->kept_chunk = -1;
    int rc = read_chunk(d, verify, c, d->kept);
    if (rc == G5_OK) {
        d->kept_chunk = c;
        d->kept_verified = verify;
    }
    return rc;
}

/* Values [lo, hi) of the kept chunk, each uint32 widened to int64 at out. */
static void widen_rows(const io_direct *d, size_t lo, size_t hi, int64_t *out)
{
    const unsigned char *k = d->kept;
    for (size_t i = lo; i < hi; i++) {
        uint32_t x;
        memcpy(&x, k + 4 * i, 4);
        out[i - lo] = (int64_t)x;
    }
}

/* Rows [first, end) chunk by chunk (see the file comment); rc as read_chunk. */
static int read_rows(io_direct *d, int verify, int64_t first, int64_t end, unsigned char *out)
{
    for (int64_t c = first / d->chunk_rows; c * d->chunk_rows < end; c++) {
        int64_t r0 = c * d->chunk_rows, r1 = r0 + d->chunk_rows;
        int64_t lo = r0 > first ? r0 : first, hi = r1 < end ? r1 : end;
        int rc;
        if (d->widen) {
            rc = read_kept(d, verify, c);
            if (rc == G5_OK)
                widen_rows(d, (size_t)(lo - r0) * (size_t)d->cols, (size_t)(hi - r0) * (size_t)d->cols,
                           (int64_t *)out + (size_t)(lo - first) * (size_t)d->cols);
        } else if (r0 >= first && r1 < end) {
            rc = read_chunk(d, verify, c, out + (size_t)(r0 - first) * d->rowbytes);
        } else {
            rc = read_kept(d, verify, c);
            if (rc == G5_OK)
                memcpy(out + (size_t)(lo - first) * d->rowbytes,
                       d->kept + (size_t)(lo - r0) * d->rowbytes, (size_t)(hi - lo) * d->rowbytes);
        }
        if (rc != G5_OK)
            return rc;
    }
    return G5_OK;
}

int io_direct_read(io_direct *d, int verify, int64_t first, int64_t count, void *buf,
                   int *handled)
{
    int rc;
    *handled = 0;
    if (first < 0 || count < 0 || first > d->nrows || count > d->nrows - first)
        return G5_OK;
    if (count == 0) {
        *handled = 1;
        return G5_OK;
    }
    rc = read_rows(d, verify, first, first + count, buf);
    if (rc == 1)
        return G5_OK;
    *handled = rc == G5_OK;
    return rc;
}
