/* SPDX-License-Identifier: MIT */
/* test_report_page.c - `g500 report` on a run directory built here by hand (edges,
 * components and placement files through io/, kernel JSON and text block),
 * and the cache check that decides which cached files a rerun may trust. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "io.h"
#include "report.h"

#include "test_fixture.h"

TEST_FIXTURE("g500-test-report")
TestSuite(report, .init = fixture_setup, .fini = fixture_teardown);

static int exists(const char *path) { return access(path, F_OK) == 0; }

static int rm_report(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/report'", dir);
    return system(cmd);
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void make_edges(int scale, int64_t seed, uint64_t content_id)
{
    io_file *f;
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, fixture_path("edges.h5"), IO_EDGES_FORMAT, 1, 1, &f), G5_OK,
                 "%s", g5_error_msg());
    cr_assert_eq(io_attr_write_int64(f, "/", "scale", scale), G5_OK);
    cr_assert_eq(io_attr_write_int64(f, "/", "edgefactor", 16), G5_OK);
    cr_assert_eq(io_attr_write_int64(f, "/", "nedges", (int64_t)16 << scale), G5_OK);
    cr_assert_eq(io_attr_write_uint64(f, "/", "seed", (uint64_t)seed), G5_OK);
    cr_assert_eq(io_attr_write_uint64(f, "/", "content_id", content_id), G5_OK);
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
}

/* Components: a giant of 700 vertices, 5 pairs and a triple. */
static void make_components(uint64_t edges_id)
{
    io_file *f;
    int64_t sizes[7] = {700, 3, 2, 2, 2, 2, 2};
    hsize_t dims[1] = {7};
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, fixture_path("components.h5"), "g500-components", 1, 1, &f), G5_OK,
                 "%s", g5_error_msg());
    cr_assert_eq(io_attr_write_uint64(f, "/", "edges_content_id", edges_id), G5_OK);
    cr_assert_eq(io_attr_write_int64(f, "/", "ncomponents", 7), G5_OK);
    cr_assert_eq(io_attr_write_double(f, "/", "giant_vertex_share", 0.6836), G5_OK);
    cr_assert_eq(io_dataset_create(f, "/component_vertices", H5T_STD_I64LE, 1, dims, 0), G5_OK);
    cr_assert_eq(io_write_rows(f, "/component_vertices", H5T_NATIVE_INT64, 0, 7, sizes), G5_OK,
                 "%s", g5_error_msg());
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
}

static void make_placement(const char *name, uint64_t edges_id, int nranks, int rpn)
{
    io_file *f;
    const char *schemes[] = {"/metrics/placement", "/metrics/cyclic", "/metrics/block"};
    cr_assert_eq(io_file_create(MPI_COMM_WORLD, fixture_path(name), "g500-placement", 1, 1, &f), G5_OK,
                 "%s", g5_error_msg());
    cr_assert_eq(io_attr_write_uint64(f, "/", "edges_content_id", edges_id), G5_OK);
    cr_assert_eq(io_attr_write_int64(f, "/", "nranks", nranks), G5_OK);
    cr_assert_eq(io_attr_write_int64(f, "/", "ranks_per_node", rpn), G5_OK);
    for (int s = 0; s < 3; s++) {
        cr_assert_eq(io_attr_write_int64(f, schemes[s], "cut_edges", 1111 * (s + 1)), G5_OK,
                     "%s", g5_error_msg());
        cr_assert_eq(io_attr_write_int64(f, schemes[s], "hop_cut", 3333 * (s + 1)), G5_OK);
        cr_assert_eq(io_attr_write_double(f, schemes[s], "edge_imbalance", 1.25), G5_OK);
    }
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());
}

/* The kernels' "g500-run" schema (report/rep_json.c). Two roots, 2
 * ranks; BFS TEPS 1000/0.5 = 2000 and 1000/0.25 = 4000, so the harmonic mean
 * is 1 / mean(0.0005, 0.00025) = 2666.67; SSSP 1 / mean(0.001, 0.002) = 666.7.
 * The writer's own harmonic_mean_teps is deliberately wrong: the report
 * recomputes. */
static const char *run_json =
    "{\"format\": \"g500-run\", \"version\": 1, \"scale\": 10, \"nranks\": 2,\n"
    " \"validated\": true, \"construction_time\": 0.125, \"nroots\": 2, \"roots\": [5, 9],\n"
    " \"bfs\": {\"time\": [0.5, 0.25], \"nedge\": [1000, 1000], \"teps\": [2000, 4000],\n"
    "         \"time_stats\": {\"min\": 0.25}, \"harmonic_mean_teps\": 1},\n"
    " \"sssp\": {\"time\": [1.0, 2.0], \"nedge\": [1000, 1000]},\n"
    " \"bfs_levels\": [{\"level\": 0, \"time\": 0.1, \"frontier\": 1, \"direction\": \"top-down\"},\n"
    "                {\"level\": 1, \"time\": 0.2, \"frontier\": 50, \"direction\": \"bottom-up\"},\n"
    "                {\"level\": 2, \"time\": 0.05, \"frontier\": 3, \"direction\": \"top-down\"}],\n"
    " \"comm\": {\"total_bytes\": 300, \"total_hop_bytes\": 900,\n"
    "          \"bytes\": [[0, 100], [200, 0]], \"hop_bytes\": [[0, 300], [600, 0]]}}\n";

/* The flat layout with rep_run's field names, also accepted; no SSSP,
 * no communication matrices. */
static const char *flat_json =
    "{\"nranks\": 2, \"bfs_time\": [1.0, 1.0], \"bfs_nedge\": [1000, 1000],\n"
    " \"bfs_level_time\": [0.5, 0.5], \"bfs_level_frontier\": [1, 7]}";

static void make_run_dir(void)
{
    make_edges(10, 7, 0xabcdef);
    make_components(0xabcdef);
    make_placement("placement-tree-np2-rpn1.h5", 0xabcdef, 2, 1);
    write_text(fixture_path("run-tree-np2-rpn1.json"), run_json);
    write_text(fixture_path("run-tree-np2-rpn1.txt"), "SCALE:                          10\nbfs  harmonic_mean_TEPS:     !  2666.67\n");
    write_text(fixture_path("run-cyclic.json"), flat_json);
}

Test(report, writes_every_section_and_plot)
{
    make_run_dir();
    rep_options o = {dir, NULL, 1, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    const char *md = slurp(fixture_path("report/index.md"));
    cr_expect(strstr(md, "## Kernel runs"), "runs section");
    cr_expect(strstr(md, "| tree-np2-rpn1 | 2 | 2667 | 666.7 | 0.125 |"),
              "harmonic means recomputed from the per-root arrays (2667, 666.7):\n%s", md);
    cr_expect(strstr(md, "| 300 | 900 | yes |"), "byte totals and validation: \n%s", md);
    cr_expect(strstr(md, "| cyclic | 2 | 1000 | n/a | n/a |"), "a run without SSSP says n/a:\n%s", md);
    cr_expect(strstr(md, "bfs  harmonic_mean_TEPS:     !  2666.67"), "the run's Graph500 block is quoted");
    cr_expect(strstr(md, "| giant component, share of all vertices | 68.36% |"),
              "component attributes under labels, shares in percent:\n%s", md);
    cr_expect(strstr(md, "| edges file content id | 0000000000abcdef |"), "ids in hex:\n%s", md);
    cr_expect(strstr(md, "| content id | 0000000000abcdef |"), "the edges file's id in hex");
    cr_expect(!strstr(md, "| format |") && !strstr(md, "| version |"), "no schema attributes:\n%s", md);
    cr_expect(strstr(md, "| run | 0 hops | 1 hop | 2 hops | 3 hops |") &&
              strstr(md, "| tree-np2-rpn1 | 0 | 0 | 0 | 300 |"),
              "bytes by hop level (300 bytes, every pair 3 hops):\n%s", md);
    cr_expect(strstr(md, "| 2-3 | 6 |"), "size bins: five pairs and a triple in bin 2-3:\n%s", md);
    cr_expect(strstr(md, "| 512-1023 | 1 |"), "the giant in its bin");
    cr_expect(strstr(md, "| placement-tree-np2-rpn1.h5 | cyclic | 2222 | 6666 | 1.25 | n/a |"),
              "placement table with a missing metric as n/a:\n%s", md);
    cr_expect(strstr(md, "| seed | 7 |"), "graph parameters");
    const char *pngs[] = {"components.png", "teps-bfs.png", "teps-sssp.png", "teps-placements.png",
                          "heatmap-tree-np2-rpn1.png", "hops.png", "bfs-levels.png"};
    for (int i = 0; i < 7; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "report/%s", pngs[i]);
        cr_expect(file_size(fixture_path(rel)) > 1000, "%s drawn (size %lld)", rel, (long long)file_size(fixture_path(rel)));
        cr_expect(strstr(md, pngs[i]) != NULL, "index.md links %s", pngs[i]);
    }
    cr_expect(!exists(fixture_path("report/heatmap-cyclic.png")), "no heat map without comm_bytes");
    const char *lv = slurp(fixture_path("report/data/levels-tree-np2-rpn1.dat"));
    cr_expect(strstr(lv, "1 0.2 50 bottom-up"), "per-level data: %s", lv);
    lv = slurp(fixture_path("report/data/levels-cyclic.dat"));
    cr_expect(strstr(lv, "1 0.5 7 -"), "per-level data from the flat layout: %s", lv);
}

Test(report, replaces_an_old_report_and_leaves_no_temporary)
{
    make_run_dir();
    cr_assert_eq(mkdir(fixture_path("report"), 0777), 0);
    write_text(fixture_path("report/stale.txt"), "old");
    rep_options o = {dir, NULL, 0, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    cr_expect(exists(fixture_path("report/index.md")));
    cr_expect(exists(fixture_path("report/plots.gp")), "the script is written even without plots");
    cr_expect(!exists(fixture_path("report/stale.txt")), "the old report is gone");
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls -a %s | grep -c -E 'tmp|old'", dir);
    FILE *ls = popen(cmd, "r");
    int n = -1;
    cr_assert_eq(fscanf(ls, "%d", &n), 1);
    pclose(ls);
    cr_expect_eq(n, 0, "no report.tmp.* or report.old.* left");
}

Test(report, a_failing_gnuplot_is_an_error_and_leaves_the_old_report)
{
    make_run_dir();
    rep_options ok = {dir, NULL, 0, 1, 0};
    cr_assert_eq(rep_write_report(&ok), G5_OK, "%s", g5_error_msg());
    rep_options o = {dir, "false", 1, 1, 0};
    cr_expect_eq(rep_write_report(&o), G5_ERR_IO);
    cr_expect(strstr(g5_error_msg(), "false plots.gp failed"), "%s", g5_error_msg());
    cr_expect(exists(fixture_path("report/index.md")), "the previous report stays");
}

Test(report, without_gnuplot_writes_the_tables_and_says_how_to_plot)
{
    make_run_dir();
    rep_options o = {dir, "/nonexistent/gnuplot", 1, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "a missing gnuplot is no error: %s", g5_error_msg());
    const char *md = slurp(fixture_path("report/index.md"));
    cr_expect(strstr(md, "gnuplot was not found") && strstr(md, "gnuplot plots.gp"),
              "the page says how to get the plots:\n%s", md);
    cr_expect(strstr(md, "| tree-np2-rpn1 |"), "the tables are there");
    cr_expect(exists(fixture_path("report/plots.gp")), "the script is there");
    cr_expect(!exists(fixture_path("report/teps-bfs.png")), "no PNG");
}

/* A run JSON for series NAME: two keys of 1000 edges each taking t seconds
 * (harmonic mean 1000 / t), 2 ranks x `threads`, on `cores` cores. */
static void write_run(const char *file, double t, int threads, int cores)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"nranks\": 2, \"nthreads\": %d, \"validated\": true, \"nroots\": 2,\n"
             " \"provenance\": {\"version\": \"v1.0-3-gabc\", \"hosts\": [\"n1\"], \"cores_per_host\": %d,\n"
             "   \"input_ids\": {\"edges\": 10453853446371279990}},\n"
             " \"bfs\": {\"time\": [%g, %g], \"nedge\": [1000, 1000]},\n"
             " \"comm\": {\"bytes\": [[0, %g], [10, 0]], \"hop_bytes\": [[0, %g], [30, 0]]}}\n",
             threads, cores, t, t, 1000 * t, 3000 * t);
    write_text(fixture_path(file), text);
}

Test(report, alternated_runs_give_median_and_range_and_a_difference_only_without_overlap)
{
    /* components: 1000/t for t = 0.5, 0.4, 0.25: 2000, 2500, 4000 TEPS;
     * cyclic: 1000, 1250, 1600: the ranges do not overlap. */
    write_run("run-components-t-np2-rpn1.json", 0.5, 1, 64);
    write_run("run-components-t-np2-rpn1.r2.json", 0.4, 1, 64);
    write_run("run-components-t-np2-rpn1.r3.json", 0.25, 1, 64);
    write_run("run-cyclic-t-np2-rpn1.json", 1.0, 1, 64);
    write_run("run-cyclic-t-np2-rpn1.r2.json", 0.8, 1, 64);
    write_run("run-cyclic-t-np2-rpn1.r3.json", 0.625, 1, 64);
    rep_options o = {dir, NULL, 1, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    const char *md = slurp(fixture_path("report/index.md"));
    cr_expect(strstr(md, "| components-t-np2-rpn1 | 3 | 2500 | 2000 - 4000 |"), "median and range:\n%s", md);
    cr_expect(strstr(md, "| cyclic-t-np2-rpn1 | 3 | 1250 | 1000 - 1600 |"), "median and range:\n%s", md);
    cr_expect(strstr(md, "components-t-np2-rpn1 / cyclic-t-np2-rpn1 = 2.00") &&
              strstr(md, "do not overlap"), "the difference is stated:\n%s", md);
    cr_expect(!strstr(md, "OVERSUBSCRIBED"), "2 ranks x 1 thread on 64 cores is not oversubscribed");
    cr_expect(strstr(md, "| components-t-np2-rpn1.r2 | 2 x 1 |"), "every run listed:\n%s", md);
    cr_expect(strstr(md, "| input_ids | edges: 10453853446371279990 |"),
              "an id written as a number is shown as written, not through a double:\n%s", md);
    cr_expect(strstr(md, "| hosts | n1 |"), "provenance arrays listed:\n%s", md);
    cr_expect(file_size(fixture_path("report/teps-placements.png")) > 1000, "spread plot drawn");
    /* One shared colour scale: every heat map has the largest value of all. */
    const char *gp = slurp(fixture_path("report/plots.gp"));
    const char *a = strstr(gp, "set cbrange [0:1000]"), *b = a ? strstr(a + 1, "set cbrange [0:1000]") : NULL;
    cr_expect(a && b, "both placements' byte maps run to the largest value, 1000 (cyclic, first run):\n%s", gp);

    /* A cyclic run as fast as the placed ones: the ranges overlap. */
    write_run("run-cyclic-t-np2-rpn1.r3.json", 0.3, 1, 64);
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    md = slurp(fixture_path("report/index.md"));
    cr_expect(strstr(md, "overlap (medians 2500 and 1250): no difference can be stated"),
              "overlapping ranges state no difference:\n%s", md);
    cr_expect(!strstr(md, "do not overlap"), "and no ratio");
}

Test(report, oversubscribed_runs_are_said_to_be_unrepresentative)
{
    write_run("run-components-t-np2-rpn1.json", 0.5, 2, 2);
    write_run("run-cyclic-t-np2-rpn1.json", 0.5, 2, 2);
    rep_options o = {dir, NULL, 0, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    const char *md = slurp(fixture_path("report/index.md"));
    cr_expect(strstr(md, "OVERSUBSCRIBED") && strstr(md, "2 ranks x 2 threads per host on 2 cores") &&
              strstr(md, "not representative"), "2 x 2 on 2 cores:\n%s", md);
    cr_expect(strstr(md, "1 and 1 run: no difference can be stated"), "one run each states nothing:\n%s", md);
    rep_options s = {dir, NULL, 0, 0, 1};
    cr_assert_eq(rm_report(), 0);
    cr_assert_eq(rep_write_report(&s), G5_OK, "%s", g5_error_msg());
    cr_expect(!exists(fixture_path("report")), "--summary writes nothing");
}

/* 72 ranks on 72 nodes under 9 leaf switches of 8 (hops: 0 same node, 1
 * same leaf, 3 otherwise): past 64 nodes the heat map is summed by leaf. */
Test(report, heat_maps_past_64_nodes_are_grouped_by_leaf_switch)
{
    enum { N = 72, LEAF = 8 };
    io_placement_meta m = {.version = 1, .nranks = N, .ranks_per_node = 1, .nnodes = N,
                           .scale = 7, .nvertices = 128, .n_active = 128, .n_giant = 128,
                           .edges_content_id = 0xabcdef, .tolerance = 0.05};
    static int64_t offsets[N + 1], counts[N];
    static int32_t rank_node[N], hops[N * N];
    static char names[N * IO_NODE_NAME_MAX];
    io_placement_metrics met[IO_PLACEMENT_NSCHEMES] = {{0}};
    io_file *f;
    snprintf(m.topology, sizeof m.topology, "tree.conf");
    for (int i = 0; i <= N; i++)
        offsets[i] = i * 128 / N;
    for (int i = 0; i < N; i++) {
        rank_node[i] = i;
        counts[i] = 1;
        snprintf(names + i * IO_NODE_NAME_MAX, IO_NODE_NAME_MAX, "n%d", i);
        for (int j = 0; j < N; j++)
            hops[i * N + j] = i == j ? 0 : i / LEAF == j / LEAF ? 1 : 3;
    }
    for (int s = 0; s < IO_PLACEMENT_NSCHEMES; s++)
        met[s].rank_edges = met[s].rank_vertices = counts;
    cr_assert_eq(io_placement_create(MPI_COMM_WORLD, fixture_path("placement-tree-np72-rpn1.h5"), &m, 1, &f),
                 G5_OK, "%s", g5_error_msg());
    cr_assert_eq(io_placement_write_ranks(f, &m, offsets, rank_node, names, hops, met), G5_OK,
                 "%s", g5_error_msg());
    cr_assert_eq(io_file_commit(&f), G5_OK, "%s", g5_error_msg());

    static char text[N * N * 4 + 256];
    int k = snprintf(text, sizeof text, "{\"nranks\": %d, \"comm\": {\"bytes\": [", N);
    for (int i = 0; i < N; i++) {
        k += snprintf(text + k, sizeof text - (size_t)k, "%s[", i ? "," : "");
        for (int j = 0; j < N; j++)
            k += snprintf(text + k, sizeof text - (size_t)k, "%s%d", j ? "," : "", i != j);
        k += snprintf(text + k, sizeof text - (size_t)k, "]");
    }
    snprintf(text + k, sizeof text - (size_t)k, "]}}\n");
    write_text(fixture_path("run-components-tree-np72-rpn1.json"), text);
    rep_options o = {dir, NULL, 0, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    const char *mx = slurp(fixture_path("report/data/bytes-components-tree-np72-rpn1.dat"));
    int rows = 0;
    for (const char *p = mx; *p; p++)
        rows += *p == '\n';
    cr_expect_eq(rows, 9, "72 nodes under 9 leaf switches");
    cr_expect(!strncmp(mx, "56 64 ", 6), "8 ranks send 56 bytes inside a leaf, 64 to the next: %.40s", mx);
    cr_expect(strstr(slurp(fixture_path("report/plots.gp")), "'to leaf switch'"), "the axis says so");
}

Test(report, heat_maps_past_64_ranks_are_grouped)
{
    enum { N = 72 };
    static char text[N * N * 4 + 256];
    int k = snprintf(text, sizeof text, "{\"nranks\": %d, \"comm\": {\"bytes\": [", N);
    for (int i = 0; i < N; i++) {
        k += snprintf(text + k, sizeof text - (size_t)k, "%s[", i ? "," : "");
        for (int j = 0; j < N; j++)
            k += snprintf(text + k, sizeof text - (size_t)k, "%s%d", j ? "," : "", i != j);
        k += snprintf(text + k, sizeof text - (size_t)k, "]");
    }
    snprintf(text + k, sizeof text - (size_t)k, "]}}\n");
    write_text(fixture_path("run-big.json"), text);
    rep_options o = {dir, NULL, 0, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    const char *m = slurp(fixture_path("report/data/bytes-big.dat"));
    int rows = 0;
    for (const char *p = m; *p; p++)
        rows += *p == '\n';
    cr_expect_eq(rows, 36, "72 ranks in 36 groups of 2");
    cr_expect(!strncmp(m, "2 4 ", 4), "a group of two ranks sends 2 bytes inside, 4 to the next: %.40s", m);
    cr_expect(strstr(slurp(fixture_path("report/plots.gp")), "'to group of 2 ranks'"), "the axis says so");
}

Test(report, damaged_json_is_named)
{
    make_run_dir();
    write_text(fixture_path("run-bad.json"), "{\"bfs_time\": [1, 2,");
    rep_options o = {dir, NULL, 0, 1, 0};
    cr_expect_eq(rep_write_report(&o), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "run-bad.json:1:"), "%s", g5_error_msg());
    cr_expect(!exists(fixture_path("report")), "no report on failure");
}

Test(report, empty_directory_gives_a_page_that_says_what_is_missing)
{
    rep_options o = {dir, NULL, 0, 1, 0};
    cr_assert_eq(rep_write_report(&o), G5_OK, "%s", g5_error_msg());
    const char *md = slurp(fixture_path("report/index.md"));
    cr_expect(strstr(md, "No run-*.json"));
    cr_expect(strstr(md, "No edges.h5"));
    rep_options bad = {"/nonexistent/dir", NULL, 0, 1, 0};
    cr_expect_eq(rep_write_report(&bad), G5_ERR_ARG);
}

static int check(int scale, int64_t seed, int dry)
{
    rep_cache_expect e = {.dir = dir, .scale = scale, .edgefactor = 16, .seed = seed, .dry_run = dry};
    int removed = -1;
    cr_assert_eq(rep_cache_check(&e, &removed), G5_OK, "%s", g5_error_msg());
    return removed;
}

Test(report, cache_check_keeps_a_consistent_run)
{
    make_run_dir();
    cr_expect_eq(check(10, 7, 0), 0, "nothing to remove");
    cr_expect(exists(fixture_path("edges.h5")) && exists(fixture_path("components.h5")) &&
              exists(fixture_path("placement-tree-np2-rpn1.h5")) && exists(fixture_path("run-cyclic.json")));
    rep_cache_expect none = {.dir = fixture_path("absent"), .scale = 10, .edgefactor = 16, .seed = 7};
    int removed = -1;
    cr_expect_eq(rep_cache_check(&none, &removed), G5_OK, "a new run directory is fine");
    cr_expect_eq(removed, 0);
}

Test(report, cache_check_removes_a_truncated_file_and_what_was_made_from_it)
{
    make_run_dir();
    write_text(fixture_path("run-components-tree-np2-rpn1.json"), "{}");
    cr_assert_eq(mkdir(fixture_path("report"), 0777), 0);
    cr_assert_eq(truncate(fixture_path("components.h5"), 100), 0);
    cr_expect_eq(check(10, 7, 1), 4, "dry run counts components, placement, its run, the report");
    cr_expect(exists(fixture_path("components.h5")), "dry run removes nothing");
    cr_expect_eq(check(10, 7, 0), 4);
    cr_expect(!exists(fixture_path("components.h5")), "truncated file removed");
    cr_expect(!exists(fixture_path("placement-tree-np2-rpn1.h5")), "the placement made from it removed");
    cr_expect(!exists(fixture_path("run-components-tree-np2-rpn1.json")), "the run on that placement removed");
    cr_expect(!exists(fixture_path("report")), "the report removed");
    cr_expect(exists(fixture_path("edges.h5")), "its input stays");
    cr_expect(exists(fixture_path("run-cyclic.json")), "a run that does not use components stays");
}

Test(report, cache_check_removes_files_of_another_graph)
{
    make_run_dir();
    make_placement("placement-tree-np4-rpn1.h5", 0x1234, 4, 1);   /* another edges file */
    make_placement("placement-tree-np8-rpn2.h5", 0xabcdef, 4, 1); /* name says 8 ranks */
    write_text(fixture_path("run-components-tree-np4-rpn1.json"), "{}");
    write_text(fixture_path("run-components-tree-np4-rpn1.txt"), "block");
    cr_expect_eq(check(10, 7, 0), 4);
    cr_expect(!exists(fixture_path("placement-tree-np4-rpn1.h5")), "content id mismatch removed");
    cr_expect(!exists(fixture_path("placement-tree-np8-rpn2.h5")), "rank count mismatch removed");
    cr_expect(!exists(fixture_path("run-components-tree-np4-rpn1.json")), "its run removed");
    cr_expect(!exists(fixture_path("run-components-tree-np4-rpn1.txt")), "and its text block");
    cr_expect(exists(fixture_path("placement-tree-np2-rpn1.h5")));
    cr_expect(exists(fixture_path("components.h5")));
}

Test(report, cache_check_removes_a_run_whose_placement_is_missing)
{
    make_run_dir();
    write_text(fixture_path("run-components-gone-np4-rpn1.json"), "{}");
    write_text(fixture_path("run-components-gone-np4-rpn1.r2.json"), "{}");
    write_text(fixture_path("run-components-tree-np2-rpn1.r2.json"), "{}");
    cr_expect_eq(check(10, 7, 0), 2);
    cr_expect(!exists(fixture_path("run-components-gone-np4-rpn1.json")));
    cr_expect(!exists(fixture_path("run-components-gone-np4-rpn1.r2.json")), "a repeat too");
    cr_expect(exists(fixture_path("run-components-tree-np2-rpn1.r2.json")),
              "a repeat whose placement is there stays");
    cr_expect(exists(fixture_path("run-tree-np2-rpn1.json")), "runs that are no components run stay");
}

Test(report, cache_check_removes_edges_with_other_parameters_and_everything_after)
{
    make_run_dir();
    cr_expect_eq(check(11, 7, 0), 6, "edges, components, placement, two runs and a text block");
    cr_expect(!exists(fixture_path("edges.h5")));
    cr_expect(!exists(fixture_path("components.h5")));
    cr_expect(!exists(fixture_path("run-cyclic.json")), "every run used the edges");
    make_edges(10, 7, 0xabcdef);
    cr_expect_eq(check(10, 8, 0), 1, "seed differs");
    cr_expect(!exists(fixture_path("edges.h5")));
}

Test(report, cache_check_removes_bad_json_and_dead_temporaries)
{
    make_run_dir();
    write_text(fixture_path("run-x.json"), "{\"half\": ");
    write_text(fixture_path("edges.h5.tmp.999999999"), "partial");
    char live[64];
    snprintf(live, sizeof live, "components.h5.tmp.%ld", (long)getpid());
    write_text(fixture_path(live), "being written");
    cr_assert_eq(mkdir(fixture_path("report"), 0777), 0);
    cr_expect_eq(check(10, 7, 0), 3, "the JSON, the dead temporary and the report");
    cr_expect(!exists(fixture_path("run-x.json")), "unparsable JSON removed");
    cr_expect(!exists(fixture_path("edges.h5.tmp.999999999")), "temporary of a dead writer removed");
    cr_expect(exists(fixture_path(live)), "temporary of a live writer kept");
    cr_assert_eq(mkdir(fixture_path("report"), 0777), 0);
    write_text(fixture_path("edges.h5.tmp.999999998"), "partial");
    cr_expect_eq(check(10, 7, 0), 1, "a dead temporary alone");
    cr_expect(exists(fixture_path("report")), "does not take the report with it");
    /* A live process's pid (the test runner that started this test: never
     * this process's own, which g5_tmp_stale never calls stale) on a file
     * last changed in 2020: the pid was reused by a later process, the
     * writer is gone. */
    char reused[64];
    snprintf(reused, sizeof reused, "placement-x.h5.tmp.%ld", (long)getppid());
    write_text(fixture_path(reused), "left in 2020");
    struct timespec old[2] = {{1577836800, 0}, {1577836800, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, fixture_path(reused), old, 0), 0);
    cr_expect_eq(check(10, 7, 0), 1, "a temporary older than the process holding its pid");
    cr_expect(!exists(fixture_path(reused)), "is removed");
}
