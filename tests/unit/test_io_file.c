/* SPDX-License-Identifier: MIT */
/* test_io_file.c - the generic HDF5 layer on one rank: atomic create and
 * commit, attributes, datasets, and every way a file read can be wrong. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "io.h"

#include "test_fixture.h"

TEST_FIXTURE("g500-test-io")
TestSuite(io_file, .init = fixture_setup, .fini = fixture_teardown);

static int exists(const char *path) { return access(path, F_OK) == 0; }

static int count_tmp_files(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c '\\.tmp\\.'", dir);
    FILE *f = popen(cmd, "r");
    int n = 0;
    if (fscanf(f, "%d", &n) != 1) n = -1;
    pclose(f);
    return n;
}

/* Write a small file with a 2-D chunked int64 dataset and attributes. */
static void write_sample(const char *path, int64_t rows, hsize_t chunk)
{
    io_file *f;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 0, &f), G5_OK, "%s", g5_error_msg());
    hsize_t dims[2] = {(hsize_t)rows, 2};
    cr_assert_eq(io_dataset_create(f, "/data", H5T_STD_I64LE, 2, dims, chunk), G5_OK, "%s", g5_error_msg());
    int64_t *buf = malloc(sizeof(int64_t) * 2 * rows);
    for (int64_t i = 0; i < 2 * rows; i++) buf[i] = 0x1122334455660000LL + i;
    cr_assert_eq(io_write_rows(f, "/data", H5T_NATIVE_INT64, 0, rows, buf), G5_OK, "%s", g5_error_msg());
    free(buf);
    int64_t arr[3] = {5, 6, 7};
    cr_assert_eq(io_attr_write_int64(f, "/", "scale", 12), G5_OK);
    cr_assert_eq(io_attr_write_uint64(f, "/", "seed", 0xfedcba9876543210ULL), G5_OK);
    cr_assert_eq(io_attr_write_double(f, "/metrics/cyclic", "cut", 0.25), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_attr_write_string(f, "/", "generator", "kronecker"), G5_OK);
    cr_assert_eq(io_attr_write_int64_array(f, "/", "hist", arr, 3), G5_OK);
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
    cr_assert_null(f, "commit frees the handle");
}

Test(io_file, round_trip_of_attributes_and_rows)
{
    const char *path = fixture_path("a.h5");
    write_sample(path, 1000, 256);
    cr_assert(exists(path), "the committed file is in place");
    cr_expect_eq(count_tmp_files(), 0, "no temporary file remains");

    io_file *f;
    cr_assert_eq(io_file_open(MPI_COMM_WORLD, path, "g500-test", 1, &f), G5_OK, "%s", g5_error_msg());
    cr_expect_str_eq(io_file_format(f), "g500-test");
    int64_t s; uint64_t seed; double cut; char gen[32]; int64_t arr[8], n = 8;
    cr_expect_eq(io_attr_read_int64(f, "/", "scale", &s), G5_OK); cr_expect_eq(s, 12);
    cr_expect_eq(io_attr_read_uint64(f, "/", "seed", &seed), G5_OK); cr_expect_eq(seed, 0xfedcba9876543210ULL);
    cr_expect_eq(io_attr_read_double(f, "/metrics/cyclic", "cut", &cut), G5_OK); cr_expect_float_eq(cut, 0.25, 0);
    cr_expect_eq(io_attr_read_string(f, "/", "generator", gen, sizeof gen), G5_OK); cr_expect_str_eq(gen, "kronecker");
    cr_expect_eq(io_attr_read_int64_array(f, "/", "hist", arr, &n), G5_OK);
    cr_expect_eq(n, 3); cr_expect_eq(arr[2], 7);
    int64_t dims[2] = {1000, 2};
    cr_expect_eq(io_dataset_check(f, "/data", H5T_INTEGER, 8, 2, dims), G5_OK, "%s", g5_error_msg());
    int64_t rows[20];
    cr_assert_eq(io_read_rows(f, "/data", H5T_NATIVE_INT64, 500, 10, rows), G5_OK, "%s", g5_error_msg());
    for (int i = 0; i < 20; i++)
        cr_expect_eq(rows[i], 0x1122334455660000LL + 1000 + i, "row value %d", i);
    io_file_close(&f);
    cr_expect_null(f);
}

Test(io_file, refuses_an_existing_output_unless_forced)
{
    const char *path = fixture_path("b.h5");
    write_sample(path, 10, 0);
    io_file *f = NULL;
    cr_expect_eq(io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 0, &f), G5_ERR_EXISTS);
    cr_expect(strstr(g5_error_msg(), "b.h5") && strstr(g5_error_msg(), "--force"), "%s", g5_error_msg());
    cr_expect_eq(io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 1, &f), G5_OK);
    io_file_abort(&f);
    cr_expect(exists(path), "abort of a forced rewrite keeps the old file");
    cr_expect_eq(count_tmp_files(), 0, "abort removes the temporary file");
}

Test(io_file, unwritable_directory_is_an_io_error_naming_the_path)
{
    io_file *f = NULL;
    cr_expect_eq(io_file_create(MPI_COMM_WORLD, "/nonexistent-dir/x.h5", "g500-test", 1, 0, &f), G5_ERR_IO);
    cr_expect(strstr(g5_error_msg(), "/nonexistent-dir/x.h5") != NULL, "%s", g5_error_msg());
}

/* Descriptors open in this process (read in-process: a child's
 * /proc/self would not show close-on-exec descriptors). */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Writes start the kernel's writeback through a descriptor of the
 * temporary file and commit fdatasyncs it: commit and abort close it, so
 * many files in one process do not leak descriptors. */
Test(io_file, writeback_descriptors_are_closed_by_commit_and_abort)
{
    write_sample(fixture_path("w0.h5"), 1000, 64);
    int before = open_fds();
    for (int k = 0; k < 5; k++) {
        char name[32];
        snprintf(name, sizeof name, "w%d.h5", k + 1);
        write_sample(fixture_path(name), 1000, 64);
        io_file *f;
        hsize_t dims[2] = {10, 2};
        int64_t rows[20] = {0};
        snprintf(name, sizeof name, "a%d.h5", k);
        cr_assert_eq(io_file_create(MPI_COMM_WORLD, fixture_path(name), "g500-test", 1, 0, &f), G5_OK);
        cr_assert_eq(io_dataset_create(f, "/data", H5T_STD_I64LE, 2, dims, 4), G5_OK, "%s", g5_error_msg());
        cr_assert_eq(io_write_rows(f, "/data", H5T_NATIVE_INT64, 0, 10, rows), G5_OK, "%s", g5_error_msg());
        io_file_abort(&f);
        cr_expect(!exists(fixture_path(name)), "an aborted file leaves nothing");
    }
    cr_expect_eq(count_tmp_files(), 0, "no temporary file left");
    cr_expect_eq(open_fds(), before, "descriptors after 5 commits and 5 aborts: %d, before %d", open_fds(), before);
}

Test(io_file, nothing_appears_before_commit)
{
    const char *path = fixture_path("c.h5");
    io_file *f;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, path, "g500-test", 1, 0, &f), G5_OK);
    cr_expect(!exists(path), "the final name does not exist while writing");
    cr_expect_eq(count_tmp_files(), 1);
    cr_expect_eq(io_file_commit(&f), G5_OK);
    cr_expect(exists(path));
}

Test(io_file, rejects_files_that_are_not_hdf5_or_not_ours)
{
    io_file *f = NULL;
    FILE *t = fopen(fixture_path("text.h5"), "w");
    fputs("hello, this is not HDF5\n", t);
    fclose(t);
    cr_expect_eq(io_file_open(MPI_COMM_WORLD, fixture_path("text.h5"), NULL, 1, &f), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "not an HDF5 file"), "%s", g5_error_msg());
    cr_expect_eq(io_file_open(MPI_COMM_WORLD, fixture_path("missing.h5"), NULL, 1, &f), G5_ERR_IO);
    cr_expect(strstr(g5_error_msg(), "missing.h5"), "%s", g5_error_msg());

    write_sample(fixture_path("d.h5"), 10, 0);
    cr_expect_eq(io_file_open(MPI_COMM_WORLD, fixture_path("d.h5"), "g500-edges", 1, &f), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "'g500-test'") && strstr(g5_error_msg(), "g500-edges"), "%s", g5_error_msg());

    /* a plain HDF5 file without our attributes */
    hid_t fid = H5Fcreate(fixture_path("plain.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(fid);
    cr_expect_eq(io_file_open(MPI_COMM_WORLD, fixture_path("plain.h5"), NULL, 1, &f), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "no format attribute"), "%s", g5_error_msg());
}

Test(io_file, newer_version_is_refused)
{
    io_file *f = NULL;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, fixture_path("v.h5"), "g500-test", 3, 0, &f), G5_OK);
    cr_assert_eq(io_file_commit(&f), G5_OK);
    cr_expect_eq(io_file_open(MPI_COMM_WORLD, fixture_path("v.h5"), "g500-test", 1, &f), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "version 3"), "%s", g5_error_msg());
}

Test(io_file, truncated_file_is_detected)
{
    write_sample(fixture_path("t.h5"), 4096, 512);
    struct stat st;
    stat(fixture_path("t.h5"), &st);
    cr_assert_eq(truncate(fixture_path("t.h5"), st.st_size / 2), 0);
    io_file *f = NULL;
    int rc = io_file_open(MPI_COMM_WORLD, fixture_path("t.h5"), "g500-test", 1, &f);
    if (rc == G5_OK) {
        int64_t *buf = malloc(4096 * 16);
        rc = io_read_rows(f, "/data", H5T_NATIVE_INT64, 0, 4096, buf);
        free(buf);
        io_file_close(&f);
    }
    cr_expect_eq(rc, G5_ERR_FORMAT, "a truncated file fails to open or to read");
    cr_expect(strstr(g5_error_msg(), "t.h5"), "%s", g5_error_msg());
}

Test(io_file, damaged_chunk_fails_its_checksum)
{
    const char *path = fixture_path("dmg.h5");
    write_sample(path, 4096, 512);
    /* Find the bytes of row 3000 in the file and flip one. */
    FILE *fp = fopen(path, "r+b");
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    unsigned char *all = malloc(size);
    fseek(fp, 0, SEEK_SET);
    cr_assert_eq(fread(all, 1, size, fp), (size_t)size);
    int64_t want = 0x1122334455660000LL + 6000;
    unsigned char *hit = memmem(all, size, &want, sizeof want);
    cr_assert_not_null(hit, "row 3000's bytes are in the file");
    fseek(fp, (long)(hit - all), SEEK_SET);
    fputc(hit[0] ^ 0xff, fp);
    fclose(fp);
    free(all);

    io_file *f;
    cr_assert_eq(io_file_open(MPI_COMM_WORLD, path, "g500-test", 1, &f), G5_OK, "%s", g5_error_msg());
    int64_t buf[2 * 64];
    cr_expect_eq(io_read_rows(f, "/data", H5T_NATIVE_INT64, 0, 64, buf), G5_OK, "an undamaged chunk reads");
    cr_expect_eq(io_read_rows(f, "/data", H5T_NATIVE_INT64, 2990, 20, buf), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "checksum") && strstr(g5_error_msg(), "dmg.h5"), "%s", g5_error_msg());
    /* A reader that already verified every chunk may skip verification on
     * later passes: the damaged bytes then come through unchecked. */
    io_file_set_checksum_verify(f, 0);
    cr_expect_eq(io_read_rows(f, "/data", H5T_NATIVE_INT64, 2990, 20, buf), G5_OK,
                 "without verification the damaged chunk reads: %s", g5_error_msg());
    int changed = 0;
    for (int i = 0; i < 40; i++)
        changed += buf[i] != 0x1122334455660000LL + 2 * 2990 + i;
    cr_expect_eq(changed, 1, "exactly the flipped value differs");
    io_file_set_checksum_verify(f, 1);
    cr_expect_eq(io_read_rows(f, "/data", H5T_NATIVE_INT64, 2990, 20, buf), G5_ERR_FORMAT,
                 "verification switched back on catches it again");
    io_file_close(&f);
}

Test(io_file, dataset_check_names_what_is_wrong)
{
    write_sample(fixture_path("e.h5"), 100, 0);
    io_file *f;
    cr_assert_eq(io_file_open(MPI_COMM_WORLD, fixture_path("e.h5"), NULL, 1, &f), G5_OK);
    int64_t dims[2] = {100, 2};
    cr_expect_eq(io_dataset_check(f, "/weights", H5T_FLOAT, 4, 1, dims), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "missing dataset /weights"), "%s", g5_error_msg());
    cr_expect_eq(io_dataset_check(f, "/data", H5T_FLOAT, 4, 2, dims), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "expected float"), "%s", g5_error_msg());
    int64_t d1[1] = {100};
    cr_expect_eq(io_dataset_check(f, "/data", H5T_INTEGER, 8, 1, d1), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "2 dimensions"), "%s", g5_error_msg());
    int64_t d2[2] = {99, 2};
    cr_expect_eq(io_dataset_check(f, "/data", H5T_INTEGER, 8, 2, d2), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "extent 100"), "%s", g5_error_msg());
    int64_t v;
    cr_expect_eq(io_attr_read_int64(f, "/", "nope", &v), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "missing attribute nope"), "%s", g5_error_msg());
    io_file_close(&f);
}
