/* SPDX-License-Identifier: MIT */
/*
 * test_part_io.c - the placement file: a placement written with part_save
 * reads back identically through io_placement_*, a file of another format
 * or shape is refused with a message naming it, `stats` prints the table
 * and JSON from the file, and the rankfile and hostfile say what schedulers
 * expect.
 */
#include <criterion/criterion.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "io.h"
#include "part.h"
#include "part_test_util.h"

static char dir[64];
static void setup(void)
{
    MPI_Init(NULL, NULL);
    snprintf(dir, sizeof dir, "/tmp/g500-test-part-io-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "cannot make a temporary directory");
}
static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    MPI_Finalize();
}
TestSuite(part_io, .init = setup, .fini = teardown);

/* A path graph 0-1-...-9 plus a pair {12, 13}, 16 vertices (components
 * by part_test_util.h's union-find: {0..9} is 0, {12, 13} is 1, the rest
 * isolated), on 2 ranks of 2 nodes 3 hops apart. */
static const int64_t E[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 12, 13};
static char NAMES[2][IO_NODE_NAME_MAX] = {"n00", "n01"};
static struct graph G;
static struct machine MC;

static part_result *place_path(void)
{
    graph_init(&G, 16, 10, E);
    cr_assert(G.C == 2 && G.cv[0] == 10 && G.cv[1] == 2 && G.label[11] == -1, "the test graph's components");
    return place_ok(&G, &MC, 2, 1, 1);
}

static void meta_of(const part_result *r, io_placement_meta *m)
{
    memset(m, 0, sizeof *m);
    m->nranks = 2, m->ranks_per_node = 1, m->nnodes = 2, m->scale = 4;
    m->nvertices = 16, m->n_active = r->n_active, m->n_giant = r->n_giant;
    m->topology_id = 0x1234, m->edges_content_id = 0xabcd, m->tolerance = 0.05;
    snprintf(m->topology, sizeof m->topology, "configs/test.conf");
}

static int save(const char *path, int force, const part_result *r, const io_placement_meta *m)
{
    return part_save(MPI_COMM_SELF, path, force, r, m, MC.rank_node, &NAMES[0][0], MC.hops);
}

/* The case most tests start from: the path graph placed and saved to
 * DIR/p.h5. out: path [128], its meta m. The caller ends with place_done. */
static part_result *place_and_save(char *path, io_placement_meta *m)
{
    part_result *r = place_path();
    snprintf(path, 128, "%s/p.h5", dir);
    meta_of(r, m);
    cr_assert_eq(save(path, 0, r, m), G5_OK, "%s", g5_error_msg());
    return r;
}

Test(part_io, a_saved_placement_reads_back_identically)
{
    io_placement_meta m, got;
    io_file *f = NULL;
    char path[128];
    part_result *r = place_and_save(path, &m);
    cr_assert_eq(io_placement_open(MPI_COMM_SELF, path, &f, &got), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(got.nranks, 2);
    cr_expect_eq(got.n_active, 12);
    cr_expect_eq(got.n_giant, 10);
    cr_expect_eq(got.topology_id, 0x1234);
    cr_expect_eq(got.edges_content_id, 0xabcd);
    cr_expect_str_eq(got.topology, "configs/test.conf");
    int64_t nl[16], off[3];
    int32_t ow[16], rn[2], hops[4];
    char names[2][IO_NODE_NAME_MAX];
    cr_assert_eq(io_placement_read_vertices(f, 0, 16, nl, ow), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_placement_read_ranks(f, &got, off, rn, &names[0][0], hops), G5_OK, "%s", g5_error_msg());
    for (int v = 0; v < 16; v++) {
        cr_expect_eq(nl[v], r->new_label[v], "new_label[%d]", v);
        cr_expect_eq(ow[v], r->owner[v], "owner[%d]", v);
    }
    cr_expect_eq(ow[11], -1, "isolated vertex 11 has owner -1 in the file");
    for (int k = 0; k < 3; k++)
        cr_expect_eq(off[k], r->rank_offsets[k], "rank_offsets[%d]", k);
    cr_expect_str_eq(names[1], "n01");
    cr_expect_eq(hops[1], 3);
    int64_t re[3][2], rv[3][2];
    io_placement_metrics im[3];
    for (int s = 0; s < 3; s++)
        im[s].rank_edges = re[s], im[s].rank_vertices = rv[s];
    cr_assert_eq(io_placement_read_metrics(f, &got, im), G5_OK, "%s", g5_error_msg());
    for (int s = 0; s < 3; s++) {
        cr_expect_eq(im[s].cut_edges, r->metrics[s].cut_edges, "%s cut", part_scheme_name(s));
        cr_expect_eq(im[s].hop_cut, r->metrics[s].hop_cut, "%s hop cut", part_scheme_name(s));
        cr_expect_eq(re[s][1], r->metrics[s].rank_edges[1], "%s rank 1 edges", part_scheme_name(s));
        cr_expect_float_eq(im[s].edge_imbalance, r->metrics[s].edge_imbalance, 1e-15);
    }
    io_file_close(&f);
    place_done(&G, &MC, &r);
}

Test(part_io, an_existing_file_is_kept_without_force)
{
    io_placement_meta m;
    char path[128];
    part_result *r = place_and_save(path, &m);
    cr_expect_eq(save(path, 0, r, &m), G5_ERR_EXISTS, "second write without force");
    cr_expect_eq(save(path, 1, r, &m), G5_OK, "%s", g5_error_msg());
    place_done(&G, &MC, &r);
}

Test(part_io, another_format_is_refused_with_its_name)
{
    io_file *f = NULL;
    io_placement_meta m;
    char path[128];
    snprintf(path, sizeof path, "%s/e.h5", dir);
    cr_assert_eq(io_file_create(MPI_COMM_SELF, path, "g500-edges", 1, 0, &f), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(io_placement_open(MPI_COMM_SELF, path, &f, &m), G5_ERR_FORMAT, "an edges file is not a placement");
    cr_expect(strstr(g5_error_msg(), path) != NULL, "the message names the file: %s", g5_error_msg());
    cr_expect_null(f);
}

Test(part_io, a_placement_with_a_wrong_shape_is_refused)
{
    io_placement_meta m, got;
    io_file *f = NULL;
    char path[128];
    part_result *r = place_and_save(path, &m);
    /* Claim more vertices than /new_label holds. */
    cr_assert_eq(io_file_open(MPI_COMM_SELF, path, NULL, 1, &f), G5_OK, "%s", g5_error_msg());
    io_file_close(&f);
    {
        hid_t fid = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t a = H5Aopen(fid, "nvertices", H5P_DEFAULT);
        int64_t v = 32;
        H5Awrite(a, H5T_NATIVE_INT64, &v);
        H5Aclose(a);
        H5Fclose(fid);
    }
    cr_expect_eq(io_placement_open(MPI_COMM_SELF, path, &f, &got), G5_ERR_FORMAT, "a 16-row /new_label for 32 vertices");
    cr_expect(strstr(g5_error_msg(), "/new_label") != NULL, "the message names the dataset: %s", g5_error_msg());
    place_done(&G, &MC, &r);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[8192];
    size_t n;
    cr_assert_not_null(f, "cannot read %s", path);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

Test(part_io, stats_prints_the_table_and_json_from_the_file)
{
    io_placement_meta m, got;
    io_file *f = NULL;
    char path[128], out[128];
    part_result *r = place_and_save(path, &m);
    snprintf(out, sizeof out, "%s/stats.txt", dir);
    cr_assert_eq(io_placement_open(MPI_COMM_SELF, path, &f, &got), G5_OK, "%s", g5_error_msg());
    FILE *o = fopen(out, "w");
    cr_assert_eq(part_stats_print(f, o, 0), G5_OK, "%s", g5_error_msg());
    fclose(o);
    char *t = slurp(out), line[160];
    snprintf(line, sizeof line, "%-10s %14lld", "placement", (long long)r->metrics[0].cut_edges);
    cr_expect(strstr(t, line) != NULL, "table has '%s':\n%s", line, t);
    cr_expect(strstr(t, "cyclic") && strstr(t, "block"), "table has both baselines:\n%s", t);
    o = fopen(out, "w");
    cr_assert_eq(part_stats_print(f, o, 1), G5_OK, "%s", g5_error_msg());
    fclose(o);
    t = slurp(out);
    snprintf(line, sizeof line, "\"cut_edges\": %lld", (long long)r->metrics[1].cut_edges);
    cr_expect(strstr(t, line) != NULL, "JSON has the cyclic cut '%s':\n%s", line, t);
    cr_expect(strstr(t, "\"n_active\": 12") != NULL, "JSON has n_active:\n%s", t);
    io_file_close(&f);
    o = fopen(out, "w");
    cr_assert_eq(part_stats_print_path(MPI_COMM_SELF, path, o, 0), G5_OK, "%s", g5_error_msg());
    fclose(o);
    t = slurp(out);
    cr_expect(strstr(t, "giant component: 10 vertices") != NULL, "by path:\n%s", t);
    place_done(&G, &MC, &r);
}

Test(part_io, rankfile_and_hostfile_list_each_rank_on_its_node)
{
    const char *hosts[4] = {"n00", "n00", "n01", "n01"};
    char rf[128], hf[128];
    snprintf(rf, sizeof rf, "%s/p.rankfile", dir);
    snprintf(hf, sizeof hf, "%s/p.hostfile", dir);
    cr_assert_eq(part_write_rankfile(rf, 4, hosts), G5_OK, "%s", g5_error_msg());
    cr_assert_eq(part_write_hostfile(hf, 4, hosts), G5_OK, "%s", g5_error_msg());
    cr_expect_str_eq(slurp(rf), "rank 0=n00 slot=0\nrank 1=n00 slot=1\nrank 2=n01 slot=0\nrank 3=n01 slot=1\n");
    cr_expect_str_eq(slurp(hf), "n00\nn00\nn01\nn01\n");
    const char *mixed[5] = {"n00", "n00", "n01", "n00", "n02"};
    cr_assert_eq(part_write_machinefile(hf, 5, mixed), G5_OK, "%s", g5_error_msg());
    cr_expect_str_eq(slurp(hf), "n00:2\nn01:1\nn00:1\nn02:1\n",
                     "machinefile: one line per run of ranks on a host, in rank order");
    cr_expect_eq(part_write_hostfile("/nonexistent-dir/x.hostfile", 4, hosts), G5_ERR_IO, "an unwritable directory");
    cr_expect(strstr(g5_error_msg(), "/nonexistent-dir/x.hostfile") != NULL, "message: %s", g5_error_msg());
}
