/* SPDX-License-Identifier: MIT */
/*
 * test_io_spill.c - the raw scratch files (io/io_spill.c): bytes come back
 * as written, the file leaves nothing in its directory, and every failure
 * (a directory that is not there, too little space, a write the system
 * refuses, a read past the end) is a status with the file or directory
 * named.
 */
#include "test_fixture.h"

#include "common.h"
#include "io.h"

#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>

TEST_FIXTURE("g500-test-spill")
TestSuite(io_spill, .init = fixture_setup, .fini = fixture_teardown);

static int entries(const char *d)
{
    int n = 0;
    DIR *x = opendir(d);
    for (struct dirent *e; x && (e = readdir(x));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (x)
        closedir(x);
    return n;
}

Test(io_spill, bytes_come_back_and_nothing_is_left)
{
    io_spill *s = NULL;
    cr_assert_eq(io_spill_open(MPI_COMM_WORLD, dir, 1e6, "test data", &s), G5_OK, "%s",
                 g5_error_msg());
    cr_assert_eq(entries(dir), 0, "the scratch file is unlinked at once");
    cr_assert(strstr(io_spill_path(s), "/g500-spill-"));
    static uint32_t a[300000], b[300000];
    for (int i = 0; i < 300000; i++)
        a[i] = (uint32_t)i * 2654435761u;
    int64_t at1, at2;
    cr_assert_eq(io_spill_write(s, a, 1000, &at1), G5_OK);
    cr_assert_eq(io_spill_write(s, a, sizeof a, &at2), G5_OK);
    cr_assert(at1 == 0 && at2 == 1000 && io_spill_size(s) == 1000 + (int64_t)sizeof a);
    cr_assert_eq(io_spill_read(s, at2, b, sizeof b), G5_OK);
    cr_assert(memcmp(a, b, sizeof a) == 0);
    cr_assert_eq(io_spill_read(s, at1 + 4, b, 8), G5_OK);
    cr_assert(memcmp((char *)a + 4, b, 8) == 0);
    /* past the end: refused with the file named */
    cr_assert_eq(io_spill_read(s, at2, b, sizeof b + 1), G5_ERR_ARG);
    cr_assert(strstr(g5_error_msg(), "g500-spill-"), "%s", g5_error_msg());
    io_spill_close(&s);
    cr_assert_null(s);
    io_spill_close(&s);
    cr_assert_eq(entries(dir), 0);
}

Test(io_spill, missing_directory_and_no_space_are_named)
{
    io_spill *s = NULL;
    const char *missing = fixture_path("no-such-directory");
    cr_assert_eq(io_spill_open(MPI_COMM_WORLD, missing, 0, "test data", &s), G5_ERR_IO);
    cr_assert_null(s);
    cr_assert(strstr(g5_error_msg(), missing), "%s", g5_error_msg());
    /* more than any disk holds: refused before anything is written */
    cr_assert_eq(io_spill_open(MPI_COMM_WORLD, dir, 1e18, "the test's records", &s), G5_ERR_IO);
    cr_assert_null(s);
    cr_assert(strstr(g5_error_msg(), dir) && strstr(g5_error_msg(), "the test's records need")
              && strstr(g5_error_msg(), "free"), "%s", g5_error_msg());
    cr_assert_eq(entries(dir), 0);
}

/* A write the system refuses (here the file size limit, as a full disk
 * would) is G5_ERR_IO with the file and the OS error. */
Test(io_spill, refused_write_is_named)
{
    io_spill *s = NULL;
    cr_assert_eq(io_spill_open(MPI_COMM_WORLD, dir, 0, "test data", &s), G5_OK);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {.rlim_cur = 65536, .rlim_max = RLIM_INFINITY};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    static char big[200000];
    cr_assert_eq(io_spill_write(s, big, sizeof big, NULL), G5_ERR_IO);
    cr_assert(strstr(g5_error_msg(), "g500-spill-") && strstr(g5_error_msg(), "File too large"),
              "%s", g5_error_msg());
    io_spill_close(&s);
}

/* A RAM file system is told apart (the run warns: the records take memory). */
Test(io_spill, ram_file_system_is_told)
{
    io_spill *s = NULL;
    struct stat st;
    if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode))
        cr_skip_test("no /dev/shm here");
    cr_assert_eq(io_spill_open(MPI_COMM_WORLD, "/dev/shm", 0, "test data", &s), G5_OK, "%s",
                 g5_error_msg());
    cr_assert(io_spill_in_memory(s));
    io_spill_close(&s);
    cr_assert_eq(io_spill_open(MPI_COMM_WORLD, dir, 0, "test data", &s), G5_OK);
    struct statfs fs;
    cr_assert_eq(statfs(dir, &fs), 0);
    cr_assert_eq(io_spill_in_memory(s), fs.f_type == 0x01021994 || fs.f_type == 0x858458f6);
    io_spill_close(&s);
}
