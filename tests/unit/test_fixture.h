/* SPDX-License-Identifier: MIT */
/*
 * test_fixture.h - the fixture shared by Criterion suites that write files:
 * one-rank MPI (each Criterion test is its own process) and a fresh
 * temporary directory per test, removed afterwards.
 *
 * Use: TEST_FIXTURE("g500-test-io") once, then
 * TestSuite(name, .init = fixture_setup, .fini = fixture_teardown) and
 * fixture_path("a.h5") for a path inside the directory (the last 4 results
 * stay valid).
 */
#ifndef G500_TEST_FIXTURE_H
#define G500_TEST_FIXTURE_H

#include <criterion/criterion.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_FIXTURE(prefix)                                                 \
    static char dir[256];                                                    \
    static void fixture_setup(void)                                          \
    {                                                                        \
        MPI_Init(NULL, NULL);                                                \
        snprintf(dir, sizeof dir, "/tmp/" prefix "-XXXXXX");                 \
        cr_assert_not_null(mkdtemp(dir));                                    \
    }                                                                        \
    static void fixture_teardown(void)                                       \
    {                                                                        \
        char cmd[300];                                                       \
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);                         \
        (void)system(cmd);                                                   \
        MPI_Finalize();                                                      \
    }                                                                        \
    static const char *fixture_path(const char *name)                       \
    {                                                                        \
        static char buf[4][512];                                             \
        static int k;                                                        \
        k = (k + 1) % 4;                                                     \
        snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);                 \
        return buf[k];                                                       \
    }

#endif
