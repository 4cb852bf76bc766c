/* SPDX-License-Identifier: MIT */
/* mpi_io_direct.c - the edges reader's direct chunk reads at 1, 2 and 4
 * ranks: slabs that start and end mid-chunk give the generator's rows and
 * the same bytes as plain collective H5Dread; ranks reading different
 * numbers of chunks (some none) do not hang; a damaged chunk read by one
 * rank only fails on every rank with the same message; one rank falling
 * back to the plain path (rows out of range) brings the others along. */
#include "common.h"
#include "gen.h"
#include "gen_internal.h"
#include "io.h"
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCALE 12
#define CHUNK 1000

static char path[256], damaged[256], plain[256];

static void make_file(const char *p, int64_t chunk_rows, int checksums)
{
    gen_params gp;
    gen_write_opts o;
    gen_params_default(&gp, SCALE);
    gp.seed = 11;
    gen_write_opts_default(&o);
    o.chunk_rows = chunk_rows;
    o.checksums = checksums;
    o.quiet = 1;
    if (gen_write_ex(MPI_COMM_WORLD, &gp, p, 1, &o, NULL) != G5_OK) {
        fprintf(stderr, "gen: %s\n", g5_error_msg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Read rank's rows in pieces of `piece` rows through io_edges_read_slab
 * (every rank the same number of calls) and compare with the generator and
 * with a plain collective read of the same rows. */
static int read_matches(const char *p, int64_t first, int64_t count, int64_t piece)
{
    int ok = 1;
    gen_params gp;
    gen g;
    io_edges *e;
    io_file *f;
    gen_params_default(&gp, SCALE);
    gp.seed = 11;
    gen_init(&g, &gp);
    MT_CHECK(io_edges_open(MPI_COMM_WORLD, p, &e) == G5_OK, "%s", g5_error_msg());
    MT_CHECK(io_file_open(MPI_COMM_WORLD, p, IO_EDGES_FORMAT, IO_EDGES_VERSION, &f) == G5_OK, "%s", g5_error_msg());
    int64_t *got = malloc(sizeof(int64_t) * 2 * (size_t)(piece + 1));
    int64_t *want = malloc(sizeof(int64_t) * 2 * (size_t)(piece + 1));
    int64_t *pl = malloc(sizeof(int64_t) * 2 * (size_t)(piece + 1));
    float *gw = malloc(sizeof(float) * (size_t)(piece + 1)), *ww = malloc(sizeof(float) * (size_t)(piece + 1));
    int64_t calls = (count + piece - 1) / piece, maxcalls;
    MPI_Allreduce(&calls, &maxcalls, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    for (int64_t k = 0; k < maxcalls; k++) {
        int64_t off = k * piece < count ? k * piece : count;
        int64_t n = count - off < piece ? count - off : piece;
        int rc = io_edges_read_slab(e, first + off, n, got, gw);
        int rp = io_read_rows(f, "/edges", H5T_NATIVE_INT64, n ? first + off : 0, n, pl);
        MT_CHECK(rc == G5_OK && rp == G5_OK, "rows %lld+%lld: %s", (long long)(first + off), (long long)n,
                 g5_error_msg());
        if (rc != G5_OK || n == 0)
            continue;
        gen_slab(&g, first + off, n, want, ww, NULL);
        MT_CHECK(memcmp(got, want, sizeof(int64_t) * 2 * (size_t)n) == 0, "edges %lld+%lld differ from gen",
                 (long long)(first + off), (long long)n);
        MT_CHECK(memcmp(gw, ww, sizeof(float) * (size_t)n) == 0, "weights %lld+%lld differ from gen",
                 (long long)(first + off), (long long)n);
        MT_CHECK(memcmp(got, pl, sizeof(int64_t) * 2 * (size_t)n) == 0, "edges %lld+%lld differ from H5Dread",
                 (long long)(first + off), (long long)n);
    }
    free(got);
    free(want);
    free(pl);
    free(gw);
    free(ww);
    io_file_close(&f);
    io_edges_close(&e);
    return ok;
}

static int mid_chunk_slabs_read_the_generated_rows(void)
{
    int ok = 1, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t m = (int64_t)16 << SCALE, first, count;
    /* Uneven slabs cut mid-chunk: rank r starts 333 * r + 17 rows in. */
    g5_range_split(m, rank, size, &first, &count);
    if (rank > 0) {
        first += 333 * rank + 17;
        count -= 333 * rank + 17;
    }
    if (rank < size - 1)
        count += 333 * (rank + 1) + 17;
    ok &= read_matches(path, first, count, 2345);
    ok &= read_matches(path, first, count, 999);
    ok &= read_matches(plain, first, count, 2345);
    return ok;
}

static int ranks_reading_different_chunk_counts_do_not_hang(void)
{
    int ok = 1, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Rank r reads r * 7000 rows (rank 0 none) from the end backwards. */
    int64_t m = (int64_t)16 << SCALE, count = (int64_t)rank * 7000 < m ? (int64_t)rank * 7000 : m;
    ok &= read_matches(path, m - count, count, 1500);
    return ok;
}

static int damaged_chunk_on_one_rank_fails_everywhere(void)
{
    int ok = 1, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_edges *e;
    int64_t buf[2 * 3000];
    float w[3000];
    MT_CHECK(io_edges_open(MPI_COMM_WORLD, damaged, &e) == G5_OK, "%s", g5_error_msg());
    /* Only the last rank reads the damaged chunk 40 (rows 40000..41000). */
    int64_t first = rank == size - 1 ? 39500 : 1000 * rank, count = rank == size - 1 ? 2500 : 1000;
    int rc = io_edges_read_slab(e, first, count, buf, w);
    MT_CHECK(rc == G5_ERR_FORMAT, "status %d", rc);
    MT_CHECK(strstr(g5_error_msg(), "damaged.h5: reading rows 40000..41000 of /edges") &&
                 strstr(g5_error_msg(), "checksum"), "%s", g5_error_msg());
    MT_CHECK(mt_same_everywhere((int64_t)mt_hash(g5_error_msg())), "the same message on every rank");
    /* The reader stays usable: undamaged rows read on every rank. */
    MT_CHECK(io_edges_read_slab(e, 1000 * rank, 1000, buf, w) == G5_OK, "%s", g5_error_msg());
    io_edges_close(&e);
    return ok;
}

static int one_rank_falling_back_brings_the_others(void)
{
    int ok = 1, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_edges *e;
    int64_t buf[2 * 3000], m = (int64_t)16 << SCALE;
    MT_CHECK(io_edges_open(MPI_COMM_WORLD, path, &e) == G5_OK, "%s", g5_error_msg());
    /* The last rank asks for rows past the end: the direct path leaves them
     * to the plain path, which reports them on every rank. */
    int64_t first = rank == size - 1 ? m - 10 : 1000 * rank, count = rank == size - 1 ? 20 : 1000;
    int rc = io_edges_read_slab(e, first, count, buf, NULL);
    MT_CHECK(rc == G5_ERR_FORMAT, "status %d", rc);
    MT_CHECK(strstr(g5_error_msg(), "out of range"), "%s", g5_error_msg());
    MT_CHECK(mt_same_everywhere((int64_t)mt_hash(g5_error_msg())), "the same message on every rank");
    io_edges_close(&e);
    return ok;
}

/* Rank 0 flips a byte in the middle of chunk `row / CHUNK` of /edges. */
static void damage(const char *p, int64_t row)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        hid_t fid = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(fid, "/edges", H5P_DEFAULT);
        hsize_t off[2] = {(hsize_t)(row / CHUNK * CHUNK), 0}, size = 0;
        haddr_t addr = 0;
        unsigned mask = 0;
        if (H5Dget_chunk_info_by_coord(d, off, &mask, &addr, &size) < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        H5Dclose(d);
        H5Fclose(fid);
        FILE *fp = fopen(p, "r+b");
        fseek(fp, (long)(addr + size / 3), SEEK_SET);
        int c = fgetc(fp);
        fseek(fp, (long)(addr + size / 3), SEEK_SET);
        fputc(c ^ 0x20, fp);
        fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size;
    long id;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    id = (long)getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/g500-mpi-io-direct-%ld-%d.h5", id, size);
    snprintf(damaged, sizeof damaged, "/tmp/g500-mpi-io-direct-%ld-%d-damaged.h5", id, size);
    snprintf(plain, sizeof plain, "/tmp/g500-mpi-io-direct-%ld-%d-plain.h5", id, size);
    make_file(path, CHUNK, 1);
    make_file(damaged, CHUNK, 1);
    make_file(plain, CHUNK, 0);
    damage(damaged, 40500);
    MT_RUN(mid_chunk_slabs_read_the_generated_rows);
    MT_RUN(ranks_reading_different_chunk_counts_do_not_hang);
    MT_RUN(damaged_chunk_on_one_rank_fails_everywhere);
    MT_RUN(one_rank_falling_back_brings_the_others);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        unlink(damaged);
        unlink(plain);
    }
    return mt_finish();
}
