/* SPDX-License-Identifier: MIT */
/* test_io_direct.c - our Fletcher32 against the checksums HDF5 itself
 * stores (many chunk sizes, odd byte counts, sizes that are not a multiple
 * of the 360-word block, partial last chunks, all-zero and all-0xff data),
 * the direct chunk reader against plain H5Dread, a damaged chunk of a
 * gen-written file caught by the direct path, and the fallback to the plain
 * path for every layout the direct path does not take. One rank; the
 * multi-rank reads are tests/mpi/mpi_io_direct.c. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gen.h"
#include "gen_internal.h"
#include "io.h"
#include "io_direct.h"

#include "test_fixture.h"

TEST_FIXTURE("g500-test-io-direct")
TestSuite(io_direct, .init = fixture_setup, .fini = fixture_teardown);

/* Deterministic bytes: kind 0 pseudo-random, 1 all 0xff (the largest
 * sums), 2 all zero, 3 mostly zero with sparse 0xff. */
static void fill(unsigned char *b, size_t n, int kind, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b[i] = kind == 0 ? (unsigned char)(x >> 24) : kind == 1 ? 0xff : kind == 2 ? 0 : (i % 97 ? 0 : 0xff);
    }
}

/* Write a 1-D uint8 dataset of n bytes in chunks of cb bytes with HDF5's
 * Fletcher32 (serial HDF5, default file driver). */
static void write_bytes(const char *path, const unsigned char *data, hsize_t n, hsize_t cb)
{
    hid_t fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &cb);
    H5Pset_fletcher32(dcpl);
    hid_t d = H5Dcreate2(fid, "/b", H5T_NATIVE_UCHAR, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    cr_assert_geq(d, 0, "create a dataset of %llu bytes, chunks of %llu", (unsigned long long)n,
                  (unsigned long long)cb);
    cr_assert_geq(H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Fclose(fid);
}

Test(io_direct, fletcher32_equals_the_checksum_hdf5_stores)
{
    /* Chunk sizes around the 360-word (720-byte) block, odd sizes, and one
     * large chunk; dataset sizes that leave a partial last chunk. */
    static const hsize_t chunk_bytes[] = {1, 2, 3, 31, 32, 33, 719, 720, 721, 1440, 1441,
                                          8191, 8193, 65537, 1048575};
    const char *path = fixture_path("f.h5");
    int checked = 0;
    for (size_t k = 0; k < sizeof chunk_bytes / sizeof *chunk_bytes; k++) {
        for (int kind = 0; kind < 4; kind++) {
            hsize_t cb = chunk_bytes[k], n = cb * 2 + (cb > 2 ? cb / 2 + 1 : 1);
            unsigned char *data = malloc(n), *raw = malloc(cb + 4);
            fill(data, n, kind, k + 1);
            write_bytes(path, data, n, cb);
            hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(fid, "/b", H5P_DEFAULT);
            for (hsize_t c = 0; c * cb < n; c++) {
                hsize_t off = c * cb, stored = 0;
                uint32_t mask = 1, got, want;
                cr_assert_geq(H5Dget_chunk_storage_size(d, &off, &stored), 0);
                cr_assert_eq(stored, cb + 4, "chunk %llu of %llu bytes is stored at full size plus 4: %llu",
                             (unsigned long long)c, (unsigned long long)cb, (unsigned long long)stored);
                cr_assert_geq(H5Dread_chunk(d, H5P_DEFAULT, &off, &mask, raw), 0);
                cr_assert_eq(mask, 0, "the filter ran");
                want = (uint32_t)raw[cb] | (uint32_t)raw[cb + 1] << 8 | (uint32_t)raw[cb + 2] << 16 |
                       (uint32_t)raw[cb + 3] << 24;
                got = io_fletcher32(raw, cb);
                cr_expect_eq(got, want, "chunk %llu of %llu bytes, data kind %d: ours %08x, HDF5's %08x",
                             (unsigned long long)c, (unsigned long long)cb, kind, got, want);
                cr_expect_eq(io_fletcher32_portable(raw, cb), want, "portable, %llu bytes, kind %d",
                             (unsigned long long)cb, kind);
                cr_expect_eq(io_fletcher32_avx2(raw, cb), want, "AVX2, %llu bytes, kind %d",
                             (unsigned long long)cb, kind);
                cr_expect(io_fletcher32_matches(raw, cb, raw + cb), "the stored suffix matches");
                checked++;
            }
            H5Dclose(d);
            H5Fclose(fid);
            free(data);
            free(raw);
        }
    }
    cr_expect_gt(checked, 150, "%d chunks checked", checked);
}

Test(io_direct, avx2_and_portable_agree_at_every_length_and_alignment)
{
    size_t n = 5000;
    unsigned char *b = malloc(n + 64);
    for (int kind = 0; kind < 4; kind++) {
        fill(b, n + 64, kind, 7);
        for (size_t len = 0; len < n; len += len < 200 ? 1 : 97)
            for (size_t off = 0; off < 4; off++)
                cr_assert_eq(io_fletcher32_avx2(b + off, len), io_fletcher32_portable(b + off, len),
                             "length %zu, offset %zu, kind %d", len, off, kind);
    }
    free(b);
}

Test(io_direct, a_changed_byte_changes_the_checksum)
{
    unsigned char b[4096], stored[4];
    fill(b, sizeof b, 0, 3);
    uint32_t c = io_fletcher32(b, sizeof b);
    for (int i = 0; i < 4; i++)
        stored[i] = (unsigned char)(c >> (8 * i));
    cr_expect(io_fletcher32_matches(b, sizeof b, stored));
    b[2049] ^= 0x10;
    cr_expect_not(io_fletcher32_matches(b, sizeof b, stored), "a flipped bit is caught");
}

/* Write a chunked dataset of n rows of `cols` integers of ftype (int64 or
 * uint32; cols 0: 1-D float) through the io layer, with the given creation
 * properties. */
static void write_rows_dataset(io_file *f, const char *name, int64_t n, int cols, hsize_t chunk_rows,
                               int fletcher, int deflate, hid_t ftype)
{
    int nd = cols ? 2 : 1;
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)(cols ? cols : 1)}, cd[2] = {chunk_rows, dims[1]};
    hid_t sp = H5Screate_simple(nd, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunk_rows) {
        H5Pset_chunk(dcpl, nd, cd);
        if (deflate)
            H5Pset_deflate(dcpl, 1);
        if (fletcher)
            H5Pset_fletcher32(dcpl);
    }
    hid_t d = H5Dcreate2(io_file_hid(f), name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    cr_assert_geq(d, 0, "create %s", name);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    if (cols && H5Tget_size(ftype) == 4) {
        uint32_t *v = malloc(sizeof(uint32_t) * (size_t)(n * cols));
        for (int64_t i = 0; i < n * cols; i++)
            v[i] = (uint32_t)(i * 2654435761u + 5);   /* high bit set in about half */
        cr_assert_eq(io_write_rows(f, name, ftype, 0, n, v), G5_OK, "%s", g5_error_msg());
        free(v);
    } else if (cols) {
        int64_t *v = malloc(sizeof(int64_t) * (size_t)(n * cols));
        for (int64_t i = 0; i < n * cols; i++)
            v[i] = i * 7919 - 3;
        /* In the file's own type: parallel HDF5 cannot convert filtered writes. */
        cr_assert_eq(io_write_rows(f, name, ftype, 0, n, v), G5_OK, "%s", g5_error_msg());
        free(v);
    } else {
        float *v = malloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            v[i] = (float)i / (float)n;
        cr_assert_eq(io_write_rows(f, name, ftype, 0, n, v), G5_OK, "%s", g5_error_msg());
        free(v);
    }
}

/* Rows [first, first+count) through the direct reader and through plain
 * H5Dread (io_read_rows) must be the same bytes. */
static void same_as_plain(io_file *f, io_direct *d, const char *name, hid_t mt, size_t rowbytes,
                          int64_t first, int64_t count)
{
    unsigned char *a = malloc(rowbytes * (size_t)count + 8), *b = malloc(rowbytes * (size_t)count + 8);
    int handled = 0;
    memset(a, 0xa5, rowbytes * (size_t)count + 8);
    cr_assert_eq(io_direct_read(d, 1, first, count, a, &handled), G5_OK, "%s", g5_error_msg());
    cr_assert(handled, "%s rows %lld+%lld read directly", name, (long long)first, (long long)count);
    cr_assert_eq(io_read_rows(f, name, mt, first, count, b), G5_OK, "%s", g5_error_msg());
    cr_expect(memcmp(a, b, rowbytes * (size_t)count) == 0, "%s rows %lld+%lld differ", name,
              (long long)first, (long long)count);
    for (int i = 0; i < 8; i++)
        cr_expect_eq(a[rowbytes * (size_t)count + i], 0xa5, "nothing written past the rows");
    free(a);
    free(b);
}

Test(io_direct, direct_reads_equal_plain_reads_for_any_slab)
{
    const char *path = fixture_path("d.h5");
    static const hsize_t chunks[] = {1, 7, 90, 1000, 2500};
    const int64_t n = 2345;
    io_file *f;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 0, &f), G5_OK, "%s", g5_error_msg());
    for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
        char e[32], u[32], w[32];
        snprintf(e, sizeof e, "/e%zu", k);
        snprintf(u, sizeof u, "/u%zu", k);
        snprintf(w, sizeof w, "/w%zu", k);
        write_rows_dataset(f, e, n, 2, chunks[k] < (hsize_t)n ? chunks[k] : (hsize_t)n, 1, 0, H5T_STD_I64LE);
        write_rows_dataset(f, u, n, 2, chunks[k] < (hsize_t)n ? chunks[k] : (hsize_t)n, 1, 0, H5T_STD_U32LE);
        write_rows_dataset(f, w, n, 0, chunks[k] < (hsize_t)n ? chunks[k] : (hsize_t)n, 1, 0, H5T_IEEE_F32LE);
    }
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_file_open(MPI_COMM_WORLD, path, "g500-test", 1, &f), G5_OK, "%s", g5_error_msg());
    static const int64_t slabs[][2] = {{0, 2345}, {0, 1}, {2344, 1}, {3, 5}, {89, 2}, {90, 90},
                                       {1, 2000}, {999, 1346}, {1000, 1000}, {6, 1500}, {100, 0}};
    for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
        char e[32], u[32], w[32];
        io_direct *de = NULL, *du = NULL, *dw = NULL;
        snprintf(e, sizeof e, "/e%zu", k);
        snprintf(u, sizeof u, "/u%zu", k);
        snprintf(w, sizeof w, "/w%zu", k);
        cr_assert_eq(io_direct_open(f, e, H5T_NATIVE_INT64, &de), G5_OK);
        cr_assert_eq(io_direct_open(f, u, H5T_NATIVE_INT64, &du), G5_OK);
        cr_assert_eq(io_direct_open(f, w, H5T_NATIVE_FLOAT, &dw), G5_OK);
        cr_assert_not_null(de, "Fletcher32 int64 rows take the direct path");
        cr_assert_not_null(du, "Fletcher32 uint32 rows read as int64 take the direct path");
        cr_assert_not_null(dw, "Fletcher32 float rows take the direct path");
        for (size_t s = 0; s < sizeof slabs / sizeof *slabs; s++) {
            same_as_plain(f, de, e, H5T_NATIVE_INT64, 16, slabs[s][0], slabs[s][1]);
            same_as_plain(f, du, u, H5T_NATIVE_INT64, 16, slabs[s][0], slabs[s][1]);
            same_as_plain(f, dw, w, H5T_NATIVE_FLOAT, 4, slabs[s][0], slabs[s][1]);
        }
        io_direct_close(&de);
        io_direct_close(&du);
        io_direct_close(&dw);
    }
    io_file_close(&f);
}

Test(io_direct, other_layouts_fall_back_to_the_plain_path)
{
    const char *path = fixture_path("l.h5");
    io_file *f;
    io_direct *d = (io_direct *)1;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 0, &f), G5_OK, "%s", g5_error_msg());
    write_rows_dataset(f, "/deflate", 3000, 2, 512, 1, 1, H5T_STD_I64LE);
    write_rows_dataset(f, "/deflate_only", 3000, 2, 512, 0, 1, H5T_STD_I64LE);
    write_rows_dataset(f, "/unfiltered", 3000, 2, 512, 0, 0, H5T_STD_I64LE);
    write_rows_dataset(f, "/contiguous", 3000, 2, 0, 0, 0, H5T_STD_I64LE);
    write_rows_dataset(f, "/big_endian", 3000, 2, 512, 1, 0, H5T_STD_I64BE);
    write_rows_dataset(f, "/unfiltered_u32", 3000, 2, 512, 0, 0, H5T_STD_U32LE);
    write_rows_dataset(f, "/ok", 3000, 2, 512, 1, 0, H5T_STD_I64LE);
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_file_open(MPI_COMM_WORLD, path, "g500-test", 1, &f), G5_OK, "%s", g5_error_msg());
    static const char *plain[] = {"/deflate", "/deflate_only", "/unfiltered", "/contiguous", "/big_endian",
                                  "/unfiltered_u32", "/missing"};
    for (size_t k = 0; k < sizeof plain / sizeof *plain; k++) {
        cr_expect_eq(io_direct_open(f, plain[k], H5T_NATIVE_INT64, &d), G5_OK);
        cr_expect_null(d, "%s is left to the plain path", plain[k]);
        io_direct_close(&d);
    }
    /* A type conversion (int64 file rows asked as int32) is the plain path's too. */
    cr_expect_eq(io_direct_open(f, "/ok", H5T_NATIVE_INT32, &d), G5_OK);
    cr_expect_null(d, "a conversion is left to the plain path");
    cr_expect_eq(io_direct_open(f, "/ok", H5T_NATIVE_INT64, &d), G5_OK);
    cr_expect_not_null(d, "the gen layout takes the direct path");
    /* Rows out of range are not handled (the plain path reports them). */
    int64_t buf[8];
    int handled = 1;
    cr_expect_eq(io_direct_read(d, 1, 2999, 2, buf, &handled), G5_OK);
    cr_expect_not(handled, "rows past the end are left to the plain path");
    io_direct_close(&d);
    io_file_close(&f);
}

Test(io_direct, a_chunk_stored_without_its_checksum_falls_back)
{
    /* HDF5 may store a chunk with its filter skipped (filter mask bit 0, as
     * H5Dwrite_chunk allows): it then has no checksum, and the direct path
     * leaves it to HDF5, which reads it right. */
    const char *path = fixture_path("m.h5");
    const int64_t n = 300, cr = 100;
    int64_t raw[2 * 100], got[2 * 300];
    io_file *f;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 0, &f), G5_OK, "%s", g5_error_msg());
    write_rows_dataset(f, "/e", n, 2, (hsize_t)cr, 1, 0, H5T_STD_I64LE);
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
    hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), d = H5Dopen2(fid, "/e", H5P_DEFAULT);
    hsize_t off[2] = {100, 0};
    for (int i = 0; i < 200; i++)
        raw[i] = -1000 - i;
    cr_assert_geq(H5Dwrite_chunk(d, H5P_DEFAULT, 1u, off, sizeof raw, raw), 0, "raw chunk written");
    H5Dclose(d);
    H5Fclose(fid);

    io_direct *dd;
    int handled = 1;
    cr_assert_eq(io_file_open(MPI_COMM_WORLD, path, "g500-test", 1, &f), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_direct_open(f, "/e", H5T_NATIVE_INT64, &dd), G5_OK);
    cr_assert_not_null(dd);
    cr_expect_eq(io_direct_read(dd, 1, 50, 200, got, &handled), G5_OK, "%s", g5_error_msg());
    cr_expect_not(handled, "the unfiltered chunk is left to the plain path");
    /* The plain path then decides: HDF5 1.10.8's own read reports this
     * chunk as a checksum mismatch, so it is refused, never passed on
     * unchecked. */
    cr_expect_eq(io_read_rows(f, "/e", H5T_NATIVE_INT64, 50, 200, got), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "m.h5") && strstr(g5_error_msg(), "damaged chunk"), "%s", g5_error_msg());
    io_direct_close(&dd);
    io_file_close(&f);
}

/* A gen-written file with small chunks (several per dataset). */
static void gen_file(const char *path, int scale, int64_t chunk_rows, int checksums)
{
    gen_params gp;
    gen_write_opts o;
    gen_params_default(&gp, scale);
    gp.seed = 5;
    gen_write_opts_default(&o);
    o.chunk_rows = chunk_rows;
    o.checksums = checksums;
    o.quiet = 1;
    cr_assert_eq(gen_write_ex(MPI_COMM_WORLD, &gp, path, 0, &o, NULL), G5_OK, "%s", g5_error_msg());
}

/* Flip one bit in the middle of the stored chunk holding row `row` of
 * `name`, found through HDF5's chunk index (its file address). */
static void damage_chunk(const char *path, const char *name, int64_t row, int64_t chunk_rows)
{
    hid_t fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(fid, name, H5P_DEFAULT);
    hsize_t off[2] = {(hsize_t)(row / chunk_rows * chunk_rows), 0}, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;
    cr_assert_geq(H5Dget_chunk_info_by_coord(d, off, &mask, &addr, &size), 0, "chunk of row %lld", (long long)row);
    H5Dclose(d);
    H5Fclose(fid);
    FILE *fp = fopen(path, "r+b");
    cr_assert_not_null(fp);
    fseek(fp, (long)(addr + size / 2), SEEK_SET);
    int c = fgetc(fp);
    fseek(fp, (long)(addr + size / 2), SEEK_SET);
    fputc(c ^ 0x04, fp);
    fclose(fp);
}

/* A gen file at path (chunks of 1000 rows) whose chunk 5 of /edges (rows
 * 5000..6000) is damaged, opened with a direct reader of /edges. */
static void open_damaged(const char *path, io_file **f, io_direct **d)
{
    gen_file(path, 10, 1000, 1);
    damage_chunk(path, "/edges", 5500, 1000);
    cr_assert_eq(io_file_open(MPI_COMM_WORLD, path, IO_EDGES_FORMAT, IO_EDGES_VERSION, f), G5_OK, "%s",
                 g5_error_msg());
    cr_assert_eq(io_direct_open(*f, "/edges", H5T_NATIVE_INT64, d), G5_OK);
    cr_assert_not_null(*d, "gen's layout takes the direct path");
}

Test(io_direct, damaged_chunk_of_a_gen_file_is_named_by_the_direct_path)
{
    const char *path = fixture_path("damaged.h5");
    io_file *f;
    io_direct *d;
    int64_t buf[2 * 2000];
    int handled = 0;
    /* The direct reader itself names the file, dataset, rows and chunk. */
    open_damaged(path, &f, &d);
    cr_expect_eq(io_direct_read(d, 1, 3000, 2000, buf, &handled), G5_OK, "chunks 3 and 4 are fine: %s",
                 g5_error_msg());
    cr_expect(handled);
    cr_expect_eq(io_direct_read(d, 1, 4100, 1500, buf, &handled), G5_ERR_FORMAT, "chunk 5 is damaged");
    const char *msg = g5_error_msg();
    cr_expect(strstr(msg, "damaged.h5: reading rows 5000..6000 of /edges") && strstr(msg, "damaged chunk 5") &&
                  strstr(msg, "checksum"), "%s", msg);
    cr_expect_eq(io_direct_read(d, 0, 4100, 1500, buf, &handled), G5_OK, "unverified reads pass");
    io_direct_close(&d);
    io_file_close(&f);

    /* And through the edges reader, whole chunk into the buffer or cut. */
    io_edges *e;
    float w[2000];
    cr_assert_eq(io_edges_open(MPI_COMM_WORLD, path, &e), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 4000, 2000 - 1, buf, w), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "damaged.h5") && strstr(g5_error_msg(), "checksum"), "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 5999, 1, buf, w), G5_ERR_FORMAT, "the chunk's last row");
    cr_expect_eq(io_edges_read_slab(e, 6000, 2000, buf, w), G5_OK, "%s", g5_error_msg());
    io_edges_close(&e);
}

Test(io_direct, a_kept_boundary_chunk_is_checked_when_a_read_asks)
{
    /* Slabs cut chunks at both ends; the reader keeps the last cut chunk
     * for the next slab. A chunk kept from an unverified read must still be
     * checked when a later read verifies, and a failed chunk is never kept. */
    io_file *f;
    io_direct *d;
    int64_t buf[2 * 2000];
    int handled = 0;
    open_damaged(fixture_path("kept.h5"), &f, &d);
    cr_expect_eq(io_direct_read(d, 0, 4500, 1000, buf, &handled), G5_OK, "unverified: %s", g5_error_msg());
    cr_expect_eq(io_direct_read(d, 1, 5500, 100, buf, &handled), G5_ERR_FORMAT,
                 "the kept chunk 5 is checked once a read verifies");
    cr_expect(strstr(g5_error_msg(), "damaged chunk 5"), "%s", g5_error_msg());
    cr_expect_eq(io_direct_read(d, 1, 5600, 100, buf, &handled), G5_ERR_FORMAT, "and again");
    /* Consecutive cut slabs across good chunks equal the plain reads. */
    for (int64_t first = 6100; first + 700 <= 9000; first += 700)
        same_as_plain(f, d, "/edges", H5T_NATIVE_INT64, 16, first, 700);
    io_direct_close(&d);
    io_file_close(&f);
}

/* The whole file through io_edges_read_slab must equal the generator. */
static void edges_equal_generator(const char *path, int scale, int64_t piece)
{
    gen_params gp;
    gen g;
    io_edges *e;
    gen_params_default(&gp, scale);
    gp.seed = 5;
    gen_init(&g, &gp);
    cr_assert_eq(io_edges_open(MPI_COMM_WORLD, path, &e), G5_OK, "%s", g5_error_msg());
    int64_t m = io_edges_get_meta(e)->nedges;
    int64_t *got = malloc(sizeof(int64_t) * 2 * (size_t)piece), *want = malloc(sizeof(int64_t) * 2 * (size_t)piece);
    float *gw = malloc(sizeof(float) * (size_t)piece), *ww = malloc(sizeof(float) * (size_t)piece);
    for (int64_t first = 0; first < m; first += piece) {
        int64_t n = m - first < piece ? m - first : piece;
        cr_assert_eq(io_edges_read_slab(e, first, n, got, gw), G5_OK, "%s", g5_error_msg());
        gen_slab(&g, first, n, want, ww, NULL);
        cr_assert(memcmp(got, want, sizeof(int64_t) * 2 * (size_t)n) == 0, "%s: edges %lld+%lld", path,
                  (long long)first, (long long)n);
        cr_assert(memcmp(gw, ww, sizeof(float) * (size_t)n) == 0, "%s: weights %lld+%lld", path,
                  (long long)first, (long long)n);
    }
    free(got);
    free(want);
    free(gw);
    free(ww);
    io_edges_close(&e);
}

Test(io_direct, every_layout_of_an_edges_file_reads_the_generated_edges)
{
    /* Direct path (Fletcher32, chunks cut by the pieces and whole), and the
     * fallbacks: chunks without checksums, contiguous. */
    gen_file(fixture_path("a.h5"), 10, 1000, 1);
    gen_file(fixture_path("b.h5"), 10, 1000, 0);
    gen_file(fixture_path("c.h5"), 10, 0, 0);
    for (int64_t piece = 777; piece <= 16384; piece *= 7) {
        edges_equal_generator(fixture_path("a.h5"), 10, piece);
        edges_equal_generator(fixture_path("b.h5"), 10, piece);
        edges_equal_generator(fixture_path("c.h5"), 10, piece);
    }
}
