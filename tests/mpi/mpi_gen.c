/* SPDX-License-Identifier: MIT */
/* mpi_gen.c - gen_write at 1, 2 and 4 ranks: the datasets equal the
 * one-process in-memory generation whatever the rank and thread counts and
 * however many rounds the double buffer (generate batch k+1 while batch k
 * is written) runs (checked slab by slab and by the content id), and a
 * write failing on one rank only, in the first or a later round, returns
 * the error on every rank, leaves no file and no hang. */
#include "common.h"
#include "gen_internal.h"
#include "io.h"
#include "mpitest.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

/* Read the file back in this rank's g5_range_split slab and compare with
 * gen_slab; also compare the stored content id with the in-memory one. */
static int check_file(const char *path, const gen_params *gp)
{
    int ok = 1, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gen g;
    gen_init(&g, gp);
    io_edges *e;
    int rc = io_edges_open(MPI_COMM_WORLD, path, &e);
    MT_CHECK(rc == G5_OK, "open %s: %s", path, g5_error_msg());
    if (rc != G5_OK)
        return ok;
    int64_t first, count;
    g5_range_split(g.nedges, rank, size, &first, &count);
    int64_t *got = malloc(sizeof(int64_t) * 2 * (count + 1)), *want = malloc(sizeof(int64_t) * 2 * (count + 1));
    float *wg = malloc(sizeof(float) * (count + 1)), *ww = malloc(sizeof(float) * (count + 1));
    rc = io_edges_read_slab(e, first, count, got, wg);
    MT_CHECK(rc == G5_OK, "read: %s", g5_error_msg());
    uint64_t whole = 0;
    gen_slab(&g, first, count, want, ww, NULL);
    gen_slab(&g, 0, g.nedges, NULL, NULL, &whole); /* one process, whole list */
    if (rc == G5_OK) {
        MT_CHECK(memcmp(got, want, sizeof(int64_t) * 2 * count) == 0, "edges of rank %d differ", rank);
        MT_CHECK(memcmp(wg, ww, sizeof(float) * count) == 0, "weights of rank %d differ", rank);
    }
    MT_CHECK(io_edges_get_meta(e)->content_id == whole, "content id %llx, in-memory %llx",
             (unsigned long long)io_edges_get_meta(e)->content_id, (unsigned long long)whole);
    free(got); free(want); free(wg); free(ww);
    io_edges_close(&e);
    return ok;
}

static int write_and_check_batches(int threads, int ef, int64_t chunk_rows, int64_t batch_rows)
{
    int ok = 1;
    char path[300];
    gen_params gp;
    gen_write_opts o;
    gen_params_default(&gp, 11);
    gp.edgefactor = ef;
    gp.seed = 20261122;
    gen_write_opts_default(&o);
    o.chunk_rows = chunk_rows;
    o.batch_rows = batch_rows;
    o.quiet = 1;
    snprintf(path, sizeof path, "%s/g-%d-%d-%lld-%lld.h5", dir, threads, ef, (long long)chunk_rows,
             (long long)batch_rows);
    omp_set_num_threads(threads);
    int rc = gen_write_ex(MPI_COMM_WORLD, &gp, path, 0, &o, NULL);
    MT_CHECK(rc == G5_OK, "gen_write: %s", g5_error_msg());
    if (rc == G5_OK)
        ok &= check_file(path, &gp);
    return ok;
}

static int write_and_check(int threads, int ef, int64_t chunk_rows)
{
    return write_and_check_batches(threads, ef, chunk_rows, GEN_BATCH_ROWS);
}

static int datasets_match_in_memory_generation_one_thread(void) { return write_and_check(1, 16, 1000); }
static int datasets_match_in_memory_generation_two_threads(void) { return write_and_check(2, 16, 1000); }
static int datasets_match_with_uneven_edge_count_and_contiguous_layout(void)
{
    return write_and_check(2, 3, 0) & write_and_check(1, 3, 4096);
}

/* SCALE 11, edgefactor 16: 32768 rows; chunks of 1000 rows and batches of
 * 3 chunks give each rank several rounds (12 at 1 rank, 3 at 4 ranks, the
 * last rank fewer rows than the others). */
static int datasets_match_over_many_double_buffered_rounds(void)
{
    return write_and_check_batches(1, 16, 1000, 3000) & write_and_check_batches(2, 16, 1000, 3500) &
           write_and_check_batches(3, 16, 1000, 3000) & write_and_check_batches(2, 3, 0, 2000);
}

static int one_ranks_failed_write_fails_everywhere_round(int64_t fail_round, int threads)
{
    int ok = 1, rank, size;
    char path[300], cmd[400];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gen_params gp;
    gen_write_opts o;
    gen_params_default(&gp, 12);
    gen_write_opts_default(&o);
    o.chunk_rows = 4096;
    o.quiet = 1;
    o.batch_rows = 4096;
    o.fail_rank = size - 1;
    o.fail_round = fail_round;
    omp_set_num_threads(threads);
    snprintf(path, sizeof path, "%s/fail.h5", dir);
    g5_error_clear();
    int rc = gen_write_ex(MPI_COMM_WORLD, &gp, path, 0, &o, NULL);
    MT_CHECK(rc != G5_OK, "the failure of rank %d must be returned on rank %d", size - 1, rank);
    MT_CHECK(strstr(g5_error_msg(), "fail.h5") != NULL, "every rank has the message: '%s'", g5_error_msg());
    MPI_Barrier(MPI_COMM_WORLD);
    MT_CHECK(access(path, F_OK) != 0, "no file after a failed write");
    snprintf(cmd, sizeof cmd, "ls %s | grep -q 'fail.h5.tmp'", dir);
    if (rank == 0)
        MT_CHECK(system(cmd) != 0, "no temporary file after a failed write");
    /* The communicator is still usable: a good write succeeds afterwards. */
    o.fail_rank = -1;
    rc = gen_write_ex(MPI_COMM_WORLD, &gp, path, 0, &o, NULL);
    MT_CHECK(rc == G5_OK, "a write after the failure: %s", g5_error_msg());
    if (rc == G5_OK)
        ok &= check_file(path, &gp);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    return ok;
}

/* SCALE 12: 65536 rows, batches of one 4096-row chunk: 16 rounds at 1 rank,
 * 4 at 4 ranks; the last rank fails in round 0 or in round 2. */
static int one_ranks_failed_write_fails_everywhere(void)
{
    return one_ranks_failed_write_fails_everywhere_round(0, 1) &
           one_ranks_failed_write_fails_everywhere_round(0, 2);
}

static int a_failed_write_in_a_later_round_fails_everywhere(void)
{
    return one_ranks_failed_write_fails_everywhere_round(2, 1) &
           one_ranks_failed_write_fails_everywhere_round(2, 2);
}

int main(int argc, char **argv)
{
    int rank, provided;
    /* As cli/main.c: gen_write calls MPI from the master thread of its
     * parallel region while the other threads generate. */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        snprintf(dir, sizeof dir, "/tmp/g500-mpi-gen-XXXXXX");
        if (!mkdtemp(dir))
            dir[0] = '\0';
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    MT_RUN(datasets_match_in_memory_generation_one_thread);
    MT_RUN(datasets_match_in_memory_generation_two_threads);
    MT_RUN(datasets_match_with_uneven_edge_count_and_contiguous_layout);
    MT_RUN(datasets_match_over_many_double_buffered_rounds);
    MT_RUN(one_ranks_failed_write_fails_everywhere);
    MT_RUN(a_failed_write_in_a_later_round_fails_everywhere);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void)system(cmd);
    }
    return mt_finish();
}
