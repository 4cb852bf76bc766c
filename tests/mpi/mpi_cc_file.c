/* SPDX-License-Identifier: MIT */
/*
 * mpi_cc_file.c - components computed while the edges file is read
 * (cc_compute_file): at P ranks, 1 to 3 threads, both merge paths and
 * piece sizes from below a chunk to more than the slab, the result
 * (labels, component sizes and edge counts, every statistic) is
 * cc_compute's on the slab read at once (itself checked against a BFS in
 * mpi_cc.c); no re-read on a spread list; pieces are cut at whole chunks
 * of the file when they hold one, and every rank makes the same number of
 * piece reads, also when one rank holds the whole slab and the others
 * none; a list whose pairs are not spread (one pair repeated: the
 * duplicate count's regions overflow) gives the same result, the slab
 * read again for the exact count; a damaged chunk in the file's last
 * chunk (a later piece, read after earlier ones were linked) fails every
 * rank with the read's message and no result, at 1 and 2 threads, both
 * merge paths. The edges files are written here with small chunks
 * (io_edges_create_ex) so small graphs have many chunks and pieces.
 */
#include "cc_internal.h"
#include "common.h"
#include "mpitest.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCALE 9
#define EDGEFACTOR 16
#define CHUNK_ROWS 64

static int rank, nranks;
static char path[128], rpath[128];

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Edge i of a skewed graph (R-MAT quadrants, ids scrambled): a giant,
 * small components, self-loops, duplicates and isolated vertices. */
static void make_edge(int64_t i, int64_t *e)
{
    const int64_t n = (int64_t)1 << SCALE;
    int64_t u = 0, v = 0;
    for (int b = 0; b < SCALE; b++) {
        uint64_t r = mix(0x9e3779b97f4a7c15ULL * 3 + (uint64_t)i * 64 + (uint64_t)b) % 100;
        u = 2 * u + (r >= 76);
        v = 2 * v + ((r >= 57 && r < 76) || r >= 95);
    }
    e[0] = (u * 0x5bd1e995LL + 7) & (n - 1);
    e[1] = (v * 0x5bd1e995LL + 7) & (n - 1);
}

/* Write an edges file (chunks of CHUNK_ROWS rows, Fletcher32) to p: the
 * skewed graph, or (repeated) 15 tuples in 16 the pair (3, 5).
 * Collective. */
static int write_file(const char *p, int repeated)
{
    io_edges_meta m;
    io_edges_writer *w = NULL;
    int64_t first, count;
    memset(&m, 0, sizeof m);
    m.version = IO_EDGES_VERSION;
    m.scale = SCALE;
    m.edgefactor = EDGEFACTOR;
    m.nvertices = (int64_t)1 << SCALE;
    m.nedges = m.nvertices * EDGEFACTOR;
    m.seed = 3;
    m.rmat_a = 0.57; m.rmat_b = 0.19; m.rmat_c = 0.19;
    snprintf(m.generator, sizeof m.generator, "mpi_cc_file");
    g5_range_split(m.nedges, rank, nranks, &first, &count);
    int64_t *e = malloc((size_t)(count + 1) * 16);
    float *wt = malloc((size_t)(count + 1) * sizeof *wt);
    for (int64_t i = 0; i < count; i++) {
        make_edge(first + i, e + 2 * i);
        if (repeated && (first + i) % 16 != 0) {
            e[2 * i] = 3;
            e[2 * i + 1] = 5;
        }
        wt[i] = 0.5f;
    }
    int rc = io_edges_create_ex(MPI_COMM_WORLD, p, &m, 1, CHUNK_ROWS, 1, &w);
    if (rc == G5_OK)
        rc = io_edges_write_slab(w, first, count, e, wt);
    if (rc == G5_OK)
        rc = io_edges_commit(&w, 11);
    else
        io_edges_abort(&w);
    free(e);
    free(wt);
    return rc;
}

/* The two results hold the same labels, sizes, edge counts, statistics. */
static int same_result(const char *what, const cc_result *a, const cc_result *b)
{
    int ok = 1;
    MT_CHECK(a->merge == b->merge && a->ncomp == b->ncomp && a->label_first == b->label_first &&
             a->label_count == b->label_count, "%s: merge %d/%d, %lld/%lld components, labels at %lld/%lld",
             what, a->merge, b->merge, (long long)a->ncomp, (long long)b->ncomp,
             (long long)a->label_first, (long long)b->label_first);
    if (!ok)
        return 0;
    MT_CHECK(memcmp(a->label, b->label, (size_t)a->label_count * sizeof *a->label) == 0, "%s: labels differ", what);
    MT_CHECK(memcmp(a->comp_vertices, b->comp_vertices, (size_t)a->ncomp * 8) == 0, "%s: sizes differ", what);
    MT_CHECK(memcmp(a->comp_edges, b->comp_edges, (size_t)a->ncomp * 8) == 0, "%s: edge counts differ", what);
    MT_CHECK(memcmp(&a->meta, &b->meta, sizeof a->meta) == 0,
             "%s: statistics differ (distinct %lld/%lld, self-loops %lld/%lld)", what,
             (long long)a->meta.distinct_edges, (long long)b->meta.distinct_edges,
             (long long)a->meta.self_loops, (long long)b->meta.self_loops);
    return ok;
}

/* Pieces of the slab [first, first + count) of p rows, cut at global
 * multiples of p (the rule of cc.h, written out independently). */
static int64_t pieces_of(int64_t first, int64_t count, int64_t p)
{
    int64_t k = 0;
    for (int64_t b = first - first % p; b < first + count; b += p)
        k++;
    return k;
}

/* cc_compute_file on file fp over every configuration against
 * cc_compute on the slab read at once. whole_on_rank0: rank 0 holds
 * the whole edge list, the others nothing. repeated: the file of
 * write_file(.., 1), whose streamed path must read the slab again. */
static int check_configurations(const char *fp, int whole_on_rank0, int repeated)
{
    int ok = 1, rc;
    io_edges *e = NULL;
    const int64_t m = ((int64_t)1 << SCALE) * EDGEFACTOR, n = (int64_t)1 << SCALE;
    int64_t first, count;
    /* below a chunk (not cut), one chunk, 200 (cut to 3 chunks), the default */
    const int64_t pieces[] = {45, CHUNK_ROWS, 200, 0};

    if (whole_on_rank0) {
        first = 0;
        count = rank == 0 ? m : 0;
    } else {
        g5_range_split(m, rank, nranks, &first, &count);
    }
    int64_t *ref_slab = malloc((size_t)(count + 1) * 16);
    rc = io_edges_open(MPI_COMM_WORLD, fp, &e);
    MT_CHECK(rc == G5_OK, "open %s: %s", fp, g5_error_msg());
    if (rc != G5_OK)
        goto out;
    MT_CHECK(io_edges_chunk_rows(e) == CHUNK_ROWS, "chunk rows %lld, want %d", (long long)io_edges_chunk_rows(e),
             CHUNK_ROWS);
    rc = io_edges_read_slab(e, first, count, ref_slab, NULL);
    MT_CHECK(rc == G5_OK, "read: %s", g5_error_msg());
    for (int merge = CC_MERGE_TREE; rc == G5_OK && merge <= CC_MERGE_DISTRIBUTED; merge++) {
        for (int threads = 1; threads <= 3 && rc == G5_OK; threads++) {
            cc_result *ref = NULL;
            rc = cc_compute(MPI_COMM_WORLD, n, ref_slab, count, first, &(cc_opts){.nthreads = threads, .merge = merge},
                            &ref);
            MT_CHECK(rc == G5_OK, "cc_compute: %s", g5_error_msg());
            for (size_t k = 0; rc == G5_OK && k < sizeof pieces / sizeof pieces[0]; k++) {
                char what[160];
                cc_result *r = NULL;
                /* pieces below a chunk make ~180 collective reads: once */
                if ((pieces[k] < CHUNK_ROWS && threads != 2) || (repeated && pieces[k] != CHUNK_ROWS))
                    continue;
                snprintf(what, sizeof what, "%s merge, %d threads, pieces of %lld%s%s", cc_merge_name(merge),
                         threads, (long long)pieces[k], whole_on_rank0 ? ", whole slab on rank 0" : "",
                         repeated ? ", one pair repeated" : "");
                const cc_opts o = {.nthreads = threads, .piece_rows = pieces[k], .merge = merge};
                rc = cc_compute_file(MPI_COMM_WORLD, e, first, count, &o, &r);
                MT_CHECK(rc == G5_OK, "%s: %s", what, g5_error_msg());
                if (rc != G5_OK)
                    break;
                same_result(what, r, ref);
                MT_CHECK(r->reread == repeated, "%s: reread is %d", what, r->reread);
                /* cut at whole chunks when the piece holds one */
                int64_t p = pieces[k] <= 0 ? CC_PIECE_ROWS : pieces[k];
                if (p >= CHUNK_ROWS)
                    p -= p % CHUNK_ROWS;
                int64_t want = pieces_of(first, count, p);
                MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
                MT_CHECK(r->npieces == want, "%s: %lld piece reads, want %lld", what, (long long)r->npieces,
                         (long long)want);
                cc_result_free(&r);
            }
            cc_result_free(&ref);
        }
    }
out:
    io_edges_close(&e);
    free(ref_slab);
    return ok;
}

static int pieces_give_the_one_piece_result(void) { return check_configurations(path, 0, 0); }
static int pieces_agree_when_one_rank_holds_the_whole_slab(void) { return check_configurations(path, 1, 0); }
static int a_repeated_pair_reads_the_slab_again_for_the_same_result(void)
{
    return check_configurations(rpath, 0, 1);
}

/* Damage the file's last chunk of /edges (rank 0, serial HDF5 to find its
 * address), then read it back in pieces: the failure comes in the last
 * piece, while earlier pieces are linked. */
static int a_damaged_chunk_in_a_later_piece_fails_every_rank(void)
{
    int ok = 1, rc;
    char bad[160];
    long id = rank == 0 ? (long)getpid() : 0;
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(bad, sizeof bad, "/tmp/g500-mpi-cc-file-%ld-damaged.h5", id);
    if (rank == 0) {
        int done = 0;
        char cmd[400];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, bad);
        if (system(cmd) == 0) {
            hid_t f = H5Fopen(bad, H5F_ACC_RDONLY, H5P_DEFAULT), d = f >= 0 ? H5Dopen2(f, "/edges", H5P_DEFAULT) : -1;
            hsize_t nchunks = 0, off[2];
            haddr_t addr = 0;
            hsize_t size = 0;
            unsigned mask;
            hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
            if (sp >= 0 && H5Dget_num_chunks(d, sp, &nchunks) >= 0 && nchunks > 1 &&
                H5Dget_chunk_info(d, sp, nchunks - 1, off, &mask, &addr, &size) >= 0)
                done = 1;
            if (sp >= 0) H5Sclose(sp);
            if (d >= 0) H5Dclose(d);
            if (f >= 0) H5Fclose(f);
            FILE *fp = done ? fopen(bad, "r+b") : NULL;
            done = 0;
            if (fp && fseek(fp, (long)(addr + size / 2), SEEK_SET) == 0) {
                unsigned char junk[16];
                memset(junk, 0x5a, sizeof junk);
                done = fwrite(junk, 1, sizeof junk, fp) == sizeof junk;
            }
            if (fp) fclose(fp);
        }
        MT_CHECK(done, "could not damage the last chunk of %s", bad);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        return 0;
    const int64_t m = ((int64_t)1 << SCALE) * EDGEFACTOR;
    int64_t first, count;
    g5_range_split(m, rank, nranks, &first, &count);
    /* merge x threads */
    const int cfgs[][2] = {{CC_MERGE_TREE, 1}, {CC_MERGE_TREE, 2}, {CC_MERGE_DISTRIBUTED, 1},
                           {CC_MERGE_DISTRIBUTED, 2}};
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        const int merge = cfgs[c][0], threads = cfgs[c][1];
        io_edges *e = NULL;
        cc_result *r = NULL;
        rc = io_edges_open(MPI_COMM_WORLD, bad, &e);
        MT_CHECK(rc == G5_OK, "open: %s", g5_error_msg());
        if (rc != G5_OK)
            break;
        const cc_opts o = {.nthreads = threads, .piece_rows = CHUNK_ROWS, .merge = merge};
        rc = cc_compute_file(MPI_COMM_WORLD, e, first, count, &o, &r);
        MT_CHECK(rc == G5_ERR_FORMAT, "%s, %d threads: status %d, want G5_ERR_FORMAT", cc_merge_name(merge),
                 threads, rc);
        MT_CHECK(r == NULL, "%s, %d threads: a result after a failed read", cc_merge_name(merge), threads);
        MT_CHECK(strstr(g5_error_msg(), bad) && strstr(g5_error_msg(), "damaged chunk"),
                 "%s, %d threads: message '%s' does not name the file and the damage", cc_merge_name(merge),
                 threads, g5_error_msg());
        cc_result_free(&r);
        io_edges_close(&e);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(bad);
    return ok;
}

int main(int argc, char **argv)
{
    int provided, rc;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long id = rank == 0 ? (long)getpid() : 0;
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/g500-mpi-cc-file-%ld.h5", id);
    snprintf(rpath, sizeof rpath, "/tmp/g500-mpi-cc-file-%ld-repeated.h5", id);
    rc = write_file(path, 0);
    if (rc == G5_OK)
        rc = write_file(rpath, 1);
    if (rc != G5_OK) {
        if (rank == 0)
            fprintf(stderr, "writing %s: %s\n", path, g5_error_msg());
        MPI_Finalize();
        return 1;
    }
    MT_RUN(pieces_give_the_one_piece_result);
    MT_RUN(pieces_agree_when_one_rank_holds_the_whole_slab);
    MT_RUN(a_repeated_pair_reads_the_slab_again_for_the_same_result);
    MT_RUN(a_damaged_chunk_in_a_later_piece_fails_every_rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        unlink(rpath);
    }
    return mt_finish();
}
