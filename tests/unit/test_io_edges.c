/* SPDX-License-Identifier: MIT */
/* test_io_edges.c - the edges file on one rank: gen's file round trip, the
 * writer API, atomic output, and every way an edges file can be wrong (not
 * HDF5, truncated, missing dataset, wrong type or shape, wrong format,
 * inconsistent attributes, a corrupted chunk, ids out of range). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "gen_internal.h"
#include "io.h"

#include "test_fixture.h"

TEST_FIXTURE("g500-test-edges")
TestSuite(io_edges, .init = fixture_setup, .fini = fixture_teardown);

static int count_files(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (fscanf(f, "%d", &n) != 1) n = -1;
    pclose(f);
    return n;
}

/* A generated file of SCALE s with small chunks (several per dataset). */
static void gen_file(const char *path, int s, int ef, uint64_t seed)
{
    gen_params gp;
    gen_write_opts o;
    gen_params_default(&gp, s);
    gp.edgefactor = ef;
    gp.seed = seed;
    gen_write_opts_default(&o);
    o.chunk_rows = 1024;
    o.quiet = 1;
    cr_assert_eq(gen_write_ex(MPI_COMM_WORLD, &gp, path, 0, &o, NULL), G5_OK, "%s", g5_error_msg());
}

static int open_fails(const char *path, int code, const char *words)
{
    io_edges *e = NULL;
    int rc = io_edges_open(MPI_COMM_WORLD, path, &e);
    cr_expect_eq(rc, code, "%s: status %d, expected %d (%s)", path, rc, code, g5_error_msg());
    cr_expect_null(e, "no handle on failure");
    cr_expect(strstr(g5_error_msg(), path) != NULL, "message names the file: %s", g5_error_msg());
    cr_expect(strstr(g5_error_msg(), words) != NULL, "message says '%s': %s", words, g5_error_msg());
    io_edges_close(&e);
    return rc == code;
}

Test(io_edges, generated_file_round_trips)
{
    const char *path = fixture_path("g.h5");
    gen_params gp;
    gen g;
    gen_params_default(&gp, 10);
    gp.edgefactor = 5; /* M not a power of two: shuffle cycle-walks */
    gp.seed = 77;
    gen_init(&g, &gp);
    gen_file(path, 10, 5, 77);

    io_edges *e;
    cr_assert_eq(io_edges_open(MPI_COMM_WORLD, path, &e), G5_OK, "%s", g5_error_msg());
    const io_edges_meta *m = io_edges_get_meta(e);
    cr_expect_eq(m->scale, 10);
    cr_expect_eq(m->edgefactor, 5);
    cr_expect_eq(m->nvertices, 1024);
    cr_expect_eq(m->nedges, 5120);
    cr_expect_eq(m->seed, 77);
    cr_expect_float_eq(m->rmat_a, 0.57, 1e-12);
    cr_expect_float_eq(m->rmat_b, 0.19, 1e-12);
    cr_expect_float_eq(m->rmat_c, 0.19, 1e-12);
    cr_expect_str_eq(m->generator, GEN_NAME);
    cr_expect_geq(m->generation_seconds, 0.0, "generation_seconds is stored");
    cr_expect_str_eq(io_edges_path(e), path);

    int64_t *want = malloc(sizeof(int64_t) * 2 * 5120), *got = malloc(sizeof(int64_t) * 2 * 5120);
    float *ww = malloc(sizeof(float) * 5120), *wg = malloc(sizeof(float) * 5120);
    uint64_t content = 0;
    gen_slab(&g, 0, 5120, want, ww, &content);
    cr_expect_eq(m->content_id, content, "content_id is the hash of the whole list");
    /* Read in odd slabs, one without weights. */
    cr_assert_eq(io_edges_read_slab(e, 0, 3000, got, wg), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_edges_read_slab(e, 3000, 2120, got + 6000, NULL), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_edges_read_slab(e, 3000, 2120, got + 6000, wg + 3000), G5_OK, "%s", g5_error_msg());
    cr_expect(memcmp(want, got, sizeof(int64_t) * 2 * 5120) == 0, "edges read back differ");
    cr_expect(memcmp(ww, wg, sizeof(float) * 5120) == 0, "weights read back differ");
    cr_expect_eq(io_edges_read_slab(e, 5000, 200, got, NULL), G5_ERR_FORMAT, "a slab past the end");
    io_edges_close(&e);
    cr_expect_null(e);
    free(want); free(got); free(ww); free(wg);
}

static io_edges_meta small_meta(void)
{
    io_edges_meta m = {0};
    m.version = 1;
    m.scale = 3;
    m.edgefactor = 2;
    m.nvertices = 8;
    m.nedges = 16;
    m.seed = 5;
    m.rmat_a = 0.57; m.rmat_b = 0.19; m.rmat_c = 0.19;
    snprintf(m.generator, sizeof m.generator, "test");
    return m;
}

Test(io_edges, writer_api_round_trips_hand_made_edges)
{
    io_edges_meta m = small_meta();
    io_edges_writer *w;
    int64_t ed[32];
    float wt[16];
    for (int i = 0; i < 16; i++) { ed[2 * i] = i % 8; ed[2 * i + 1] = (i * 3) % 8; wt[i] = i / 16.0f; }
    cr_assert_eq(io_edges_create(MPI_COMM_WORLD, fixture_path("w.h5"), &m, 0, &w), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(access(fixture_path("w.h5"), F_OK), -1, "nothing at the final path before commit");
    cr_assert_eq(io_edges_write_slab(w, 0, 10, ed, wt), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_edges_write_slab(w, 10, 6, ed + 20, wt + 10), G5_OK, "%s", g5_error_msg());
    io_edges_set_seconds(w, 1.5);
    cr_assert_eq(io_edges_commit(&w, 0x1234), G5_OK, "%s", g5_error_msg());
    cr_expect_null(w);
    cr_expect_eq(count_files(), 1, "only the committed file remains");

    io_edges *e;
    int64_t got[32];
    float wg[16];
    cr_assert_eq(io_edges_open(MPI_COMM_WORLD, fixture_path("w.h5"), &e), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(io_edges_get_meta(e)->content_id, 0x1234);
    cr_expect_float_eq(io_edges_get_meta(e)->generation_seconds, 1.5, 1e-12);
    cr_assert_eq(io_edges_read_slab(e, 0, 16, got, wg), G5_OK, "%s", g5_error_msg());
    cr_expect(memcmp(ed, got, sizeof got) == 0 && memcmp(wt, wg, sizeof wg) == 0);
    io_edges_close(&e);
}

Test(io_edges, abort_and_refusals_leave_nothing_behind)
{
    io_edges_meta m = small_meta();
    io_edges_writer *w;
    cr_assert_eq(io_edges_create(MPI_COMM_WORLD, fixture_path("a.h5"), &m, 0, &w), G5_OK, "%s", g5_error_msg());
    io_edges_abort(&w);
    cr_expect_null(w);
    cr_expect_eq(count_files(), 0, "abort removes the temporary file");

    gen_file(fixture_path("x.h5"), 4, 1, 1);
    struct stat before, after;
    stat(fixture_path("x.h5"), &before);
    gen_params gp;
    gen_params_default(&gp, 5);
    cr_expect_eq(gen_write(MPI_COMM_WORLD, &gp, fixture_path("x.h5"), 0, NULL), G5_ERR_EXISTS);
    cr_expect(strstr(g5_error_msg(), "--force"), "%s", g5_error_msg());
    stat(fixture_path("x.h5"), &after);
    cr_expect_eq(before.st_size, after.st_size, "the existing file is untouched");
    cr_expect_eq(gen_write(MPI_COMM_WORLD, &gp, fixture_path("nodir/x.h5"), 0, NULL), G5_ERR_IO);
    cr_expect(strstr(g5_error_msg(), "nodir/x.h5"), "%s", g5_error_msg());
    gp.scale = 43;
    cr_expect_eq(gen_write(MPI_COMM_WORLD, &gp, fixture_path("y.h5"), 0, NULL), G5_ERR_ARG);
    cr_expect_eq(count_files(), 1, "no temporary or partial file remains");

    /* --force replaces it. */
    gp.scale = 5;
    cr_expect_eq(gen_write(MPI_COMM_WORLD, &gp, fixture_path("x.h5"), 1, NULL), G5_OK, "%s", g5_error_msg());
    stat(fixture_path("x.h5"), &after);
    cr_expect_gt(after.st_size, before.st_size, "SCALE 5 replaced SCALE 4");

    /* Bad metadata handed to the writer. */
    m.nedges = 17;
    cr_expect_eq(io_edges_create(MPI_COMM_WORLD, fixture_path("b.h5"), &m, 0, &w), G5_ERR_ARG);
    cr_expect_eq(count_files(), 1);
}

Test(io_edges, not_hdf5_and_wrong_format_are_refused)
{
    FILE *f = fopen(fixture_path("text.h5"), "w");
    fputs("u v\n1 2\n", f);
    fclose(f);
    open_fails(fixture_path("text.h5"), G5_ERR_FORMAT, "not an HDF5 file");
    open_fails(fixture_path("missing.h5"), G5_ERR_IO, "cannot read");

    io_file *x;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, fixture_path("comp.h5"), "g500-components", 1, 0, &x), G5_OK);
    cr_assert_eq(io_file_commit(&x), G5_OK);
    open_fails(fixture_path("comp.h5"), G5_ERR_FORMAT, "'g500-components'");
}

Test(io_edges, truncated_file_is_refused)
{
    gen_file(fixture_path("t.h5"), 10, 16, 3);
    struct stat st;
    stat(fixture_path("t.h5"), &st);
    cr_assert_eq(truncate(fixture_path("t.h5"), st.st_size / 2), 0);
    io_edges *e = NULL;
    int rc = io_edges_open(MPI_COMM_WORLD, fixture_path("t.h5"), &e);
    if (rc == G5_OK) {
        int64_t *buf = malloc(sizeof(int64_t) * 2 * 16384);
        rc = io_edges_read_slab(e, 0, 16384, buf, NULL);
        free(buf);
        io_edges_close(&e);
    }
    cr_expect_eq(rc, G5_ERR_FORMAT, "a truncated file fails to open or to read");
    cr_expect(strstr(g5_error_msg(), "t.h5"), "%s", g5_error_msg());
}

/* A file of format g500-edges with every attribute of small_meta, then the
 * datasets as asked: edges of type et with ecols columns and erows rows
 * (erows < 0: no /edges), weights of type wt (wt < 0: no /weights). */
/* A file of the given version whose datasets have the given types and
 * shapes (erows < 0 or wt < 0: that dataset missing); with ed and wd its
 * rows, given as int64 ids and float weights. */
static void write_version(const char *path, io_edges_meta m, int version, hid_t et, int ecols,
                          int64_t erows, hid_t wt, const int64_t *ed, const float *wd)
{
    io_file *f;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, path, IO_EDGES_FORMAT, version, 1, &f), G5_OK, "%s",
                 g5_error_msg());
    io_attr_write_int64(f, "/", "scale", m.scale);
    io_attr_write_int64(f, "/", "edgefactor", m.edgefactor);
    io_attr_write_int64(f, "/", "nvertices", m.nvertices);
    io_attr_write_int64(f, "/", "nedges", m.nedges);
    io_attr_write_uint64(f, "/", "seed", m.seed);
    io_attr_write_double(f, "/", "rmat_a", m.rmat_a);
    io_attr_write_double(f, "/", "rmat_b", m.rmat_b);
    io_attr_write_double(f, "/", "rmat_c", m.rmat_c);
    io_attr_write_string(f, "/", "generator", "test");
    io_attr_write_uint64(f, "/", "content_id", 1);
    if (erows >= 0) {
        hsize_t d[2] = {(hsize_t)erows, (hsize_t)ecols};
        cr_assert_eq(io_dataset_create(f, "/edges", et, 2, d, 8), G5_OK, "%s", g5_error_msg());
        if (ed)
            cr_assert_eq(io_write_rows(f, "/edges", H5T_NATIVE_INT64, 0, erows, ed), G5_OK, "%s",
                         g5_error_msg());
    }
    if (wt >= 0) {
        hsize_t d[1] = {(hsize_t)m.nedges};
        cr_assert_eq(io_dataset_create(f, "/weights", wt, 1, d, 8), G5_OK, "%s", g5_error_msg());
        if (wd)
            cr_assert_eq(io_write_rows(f, "/weights", H5T_NATIVE_FLOAT, 0, m.nedges, wd), G5_OK, "%s",
                         g5_error_msg());
    }
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
}

/* A version 1 file (int64 ids) without rows. */
static void write_custom(const char *path, io_edges_meta m, hid_t et, int ecols, int64_t erows, hid_t wt)
{
    write_version(path, m, 1, et, ecols, erows, wt, NULL, NULL);
}

Test(io_edges, missing_datasets_and_wrong_types_or_shapes_are_refused)
{
    io_edges_meta m = small_meta();
    write_custom(fixture_path("ok.h5"), m, H5T_STD_I64LE, 2, 16, H5T_IEEE_F32LE);
    io_edges *e;
    cr_expect_eq(io_edges_open(MPI_COMM_WORLD, fixture_path("ok.h5"), &e), G5_OK, "the well-formed control opens: %s",
                 g5_error_msg());
    io_edges_close(&e);
    write_custom(fixture_path("noe.h5"), m, H5T_STD_I64LE, 2, -1, H5T_IEEE_F32LE);
    open_fails(fixture_path("noe.h5"), G5_ERR_FORMAT, "missing dataset /edges");
    write_custom(fixture_path("now.h5"), m, H5T_STD_I64LE, 2, 16, -1);
    open_fails(fixture_path("now.h5"), G5_ERR_FORMAT, "missing dataset /weights");
    write_custom(fixture_path("i32.h5"), m, H5T_STD_I32LE, 2, 16, H5T_IEEE_F32LE);
    open_fails(fixture_path("i32.h5"), G5_ERR_FORMAT, "/edges has type integer of 4 bytes");
    write_custom(fixture_path("wint.h5"), m, H5T_STD_I64LE, 2, 16, H5T_STD_I32LE);
    open_fails(fixture_path("wint.h5"), G5_ERR_FORMAT, "/weights has type integer");
    write_custom(fixture_path("w64.h5"), m, H5T_STD_I64LE, 2, 16, H5T_IEEE_F64LE);
    open_fails(fixture_path("w64.h5"), G5_ERR_FORMAT, "/weights has type float of 8 bytes");
    write_custom(fixture_path("cols.h5"), m, H5T_STD_I64LE, 3, 16, H5T_IEEE_F32LE);
    open_fails(fixture_path("cols.h5"), G5_ERR_FORMAT, "extent 3 in dimension 1");
    write_custom(fixture_path("rows.h5"), m, H5T_STD_I64LE, 2, 15, H5T_IEEE_F32LE);
    open_fails(fixture_path("rows.h5"), G5_ERR_FORMAT, "extent 15 in dimension 0");
    /* version 2: uint32 ids up to scale 32, int64 above */
    write_version(fixture_path("v2.h5"), m, 2, H5T_STD_U32LE, 2, 16, H5T_IEEE_F32LE, NULL, NULL);
    cr_expect_eq(io_edges_open(MPI_COMM_WORLD, fixture_path("v2.h5"), &e), G5_OK, "uint32 ids at version 2: %s",
                 g5_error_msg());
    io_edges_close(&e);
    write_version(fixture_path("v2w.h5"), m, 2, H5T_STD_I64LE, 2, 16, H5T_IEEE_F32LE, NULL, NULL);
    open_fails(fixture_path("v2w.h5"), G5_ERR_FORMAT, "/edges has type integer of 8 bytes, expected integer of 4");
    write_custom(fixture_path("v1n.h5"), m, H5T_STD_U32LE, 2, 16, H5T_IEEE_F32LE);
    open_fails(fixture_path("v1n.h5"), G5_ERR_FORMAT, "/edges has type integer of 4 bytes, expected integer of 8");
}

/* The writer stores ids as uint32 (scale <= 32) and refuses one that does
 * not fit, rather than wrapping it; nothing is left behind. */
Test(io_edges, the_writer_refuses_ids_that_do_not_fit_uint32)
{
    io_edges_meta m = small_meta();
    io_edges_writer *w;
    int64_t ed[32] = {0};
    float wt[16] = {0};
    ed[2 * 12] = INT64_C(1) << 32;   /* row 12 */
    cr_assert_eq(io_edges_create(MPI_COMM_WORLD, fixture_path("big.h5"), &m, 0, &w), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(io_edges_write_slab(w, 0, 8, ed, wt), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(io_edges_write_slab(w, 0, 16, ed, wt), G5_ERR_ARG);
    cr_expect(strstr(g5_error_msg(), "big.h5") && strstr(g5_error_msg(), "outside [0, 2^32)"), "%s", g5_error_msg());
    io_edges_abort(&w);
    cr_expect_eq(count_files(), 0, "nothing left behind");
}

Test(io_edges, inconsistent_attributes_are_refused)
{
    io_edges_meta m = small_meta();
    m.nvertices = 9;
    write_custom(fixture_path("nv.h5"), m, H5T_STD_I64LE, 2, 16, H5T_IEEE_F32LE);
    open_fails(fixture_path("nv.h5"), G5_ERR_FORMAT, "nvertices 9 is not 2^scale");
    m = small_meta();
    m.nedges = 17;
    write_custom(fixture_path("ne.h5"), m, H5T_STD_I64LE, 2, 17, H5T_IEEE_F32LE);
    open_fails(fixture_path("ne.h5"), G5_ERR_FORMAT, "nedges 17 is not edgefactor * nvertices");
    m = small_meta();
    m.scale = 50;
    write_custom(fixture_path("sc.h5"), m, H5T_STD_I64LE, 2, 16, H5T_IEEE_F32LE);
    open_fails(fixture_path("sc.h5"), G5_ERR_FORMAT, "scale = 50 is outside");

    /* A missing attribute. */
    io_file *f;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, fixture_path("na.h5"), IO_EDGES_FORMAT, 1, 0, &f), G5_OK);
    io_attr_write_int64(f, "/", "scale", 3);
    cr_assert_eq(io_file_commit(&f), G5_OK);
    open_fails(fixture_path("na.h5"), G5_ERR_FORMAT, "missing attribute edgefactor");
}

Test(io_edges, corrupted_chunk_is_reported_on_read)
{
    const char *path = fixture_path("c.h5");
    gen_params gp;
    gen g;
    gen_params_default(&gp, 10);
    gen_init(&g, &gp);
    gen_file(path, 10, 16, 1);
    /* Locate edge 9000 (in the 9th of 16 chunks) by its bytes, flip one. */
    int64_t wide[2];
    gen_slab(&g, 9000, 1, wide, NULL, NULL);
    uint32_t pair[2] = {(uint32_t)wide[0], (uint32_t)wide[1]};   /* version 2: uint32 ids */
    FILE *fp = fopen(path, "r+b");
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    unsigned char *all = malloc(size);
    fseek(fp, 0, SEEK_SET);
    cr_assert_eq(fread(all, 1, size, fp), (size_t)size);
    unsigned char *hit = memmem(all, size, pair, sizeof pair);
    cr_assert_not_null(hit, "edge 9000's bytes are in the file");
    fseek(fp, (long)(hit - all), SEEK_SET);
    fputc(hit[0] ^ 0x01, fp);
    fclose(fp);
    free(all);

    io_edges *e;
    int64_t buf[2 * 2048];
    cr_assert_eq(io_edges_open(MPI_COMM_WORLD, path, &e), G5_OK, "damage in data does not stop opening: %s",
                 g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 0, 2048, buf, NULL), G5_OK, "undamaged chunks read: %s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 8500, 1000, buf, NULL), G5_ERR_FORMAT, "the damaged chunk must fail");
    cr_expect(strstr(g5_error_msg(), "checksum") && strstr(g5_error_msg(), "c.h5"), "%s", g5_error_msg());
    io_edges_close(&e);
}

Test(io_edges, vertex_ids_out_of_range_are_refused)
{
    io_edges_meta m = small_meta();
    io_edges_writer *w;
    int64_t ed[32] = {0};
    float wt[16] = {0};
    ed[21] = 8; /* edge 10's v = N */
    cr_assert_eq(io_edges_create(MPI_COMM_WORLD, fixture_path("r.h5"), &m, 0, &w), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_edges_write_slab(w, 0, 16, ed, wt), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_edges_commit(&w, 0), G5_OK, "%s", g5_error_msg());
    io_edges *e;
    int64_t got[32];
    cr_assert_eq(io_edges_open(MPI_COMM_WORLD, fixture_path("r.h5"), &e), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 0, 8, got, NULL), G5_OK, "edges 0..7 are fine");
    cr_expect_eq(io_edges_read_slab(e, 8, 8, got, NULL), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "edge 10 is (0, 8)"), "%s", g5_error_msg());
    io_edges_close(&e);
}

/* The cheap whole-slab test (ids or-ed) must still find every kind of bad
 * row and name the first: a negative id, the largest id, a weight of 1 and
 * a NaN weight, each only where it is in the slab read (weights only when
 * asked for). */
Test(io_edges, the_first_bad_edge_or_weight_of_the_slab_is_named)
{
    io_edges_meta m = small_meta();
    int64_t ed[32] = {0};
    float wt[16] = {0};
    ed[2 * 5] = -1;
    ed[2 * 9 + 1] = INT64_MAX;
    wt[3] = 1.0f;
    wt[12] = NAN;
    /* int64 ids (version 1) can be negative or huge */
    write_version(fixture_path("r2.h5"), m, 1, H5T_STD_I64LE, 2, 16, H5T_IEEE_F32LE, ed, wt);
    io_edges *e;
    int64_t got[32];
    float wg[16];
    cr_assert_eq(io_edges_open(MPI_COMM_WORLD, fixture_path("r2.h5"), &e), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 0, 16, got, NULL), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "r2.h5: edge 5 is (-1, 0)"), "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 0, 16, got, wg), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "edge 3 is (0, 0) with weight 1"), "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 6, 10, got, wg), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "edge 9 is (0, 9223372036854775807)"), "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 10, 6, got, wg), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "edge 12 is (0, 0) with weight nan"), "%s", g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 10, 6, got, NULL), G5_OK, "without weights edges 10..15 are fine: %s",
                 g5_error_msg());
    cr_expect_eq(io_edges_read_slab(e, 0, 3, got, wg), G5_OK, "edges 0..2 are fine: %s", g5_error_msg());
    io_edges_close(&e);
}

Test(io_edges, block_range_covers_every_item_once)
{
    int64_t ms[] = {0, 1, 7, 100, 100003};
    for (int k = 0; k < 5; k++)
        for (int P = 1; P <= 9; P++) {
            int64_t next = 0;
            for (int r = 0; r < P; r++) {
                int64_t f, c;
                g5_range_split(ms[k], r, P, &f, &c);
                cr_expect_eq(f, next, "m=%lld P=%d rank %d starts at %lld", (long long)ms[k], P, r, (long long)f);
                cr_expect(c == ms[k] / P || c == ms[k] / P + 1, "balanced");
                cr_expect_eq(c, ms[k] / P + (r < ms[k] % P), "the first m %% P ranks get one more");
                next = f + c;
            }
            cr_expect_eq(next, ms[k], "all of m covered");
        }
}

Test(io_edges, chunk_rows_are_read_from_the_file)
{
    io_edges_meta m = small_meta();
    int64_t ed[32];
    float wt[16];
    for (int i = 0; i < 16; i++) { ed[2 * i] = i % 8; ed[2 * i + 1] = (i * 5) % 8; wt[i] = 0.25f; }
    /* chunked by 5 rows, default chunks (clamped to the 16 rows), contiguous */
    const int64_t asked[3] = {5, IO_EDGES_CHUNK_ROWS, 0}, want[3] = {5, 16, 0};
    for (int k = 0; k < 3; k++) {
        char name[32];
        io_edges_writer *w;
        io_edges *e;
        snprintf(name, sizeof name, "c%d.h5", k);
        cr_assert_eq(io_edges_create_ex(MPI_COMM_WORLD, fixture_path(name), &m, 0, asked[k], asked[k] > 0, &w),
                     G5_OK, "%s", g5_error_msg());
        cr_assert_eq(io_edges_write_slab(w, 0, 16, ed, wt), G5_OK, "%s", g5_error_msg());
        cr_assert_eq(io_edges_commit(&w, 1), G5_OK, "%s", g5_error_msg());
        cr_assert_eq(io_edges_open(MPI_COMM_WORLD, fixture_path(name), &e), G5_OK, "%s", g5_error_msg());
        cr_expect_eq(io_edges_chunk_rows(e), want[k], "chunks of %lld rows asked: io_edges_chunk_rows says %lld",
                     (long long)asked[k], (long long)io_edges_chunk_rows(e));
        io_edges_close(&e);
    }
}
