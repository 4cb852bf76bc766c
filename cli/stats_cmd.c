/* SPDX-License-Identifier: MIT */
/*
 * stats_cmd.c - `g500 stats FILE.h5`: what a pipeline file holds, as a table
 * for people (--json for programs, --plot PNG for the component-size
 * distribution on log-log axes, drawn by gnuplot).
 *
 * Dispatch: the file's format attribute selects a printer from `printers`
 * below; supporting another format is one line there. Every printer is
 * collective on the communicator (files are opened collectively), prints
 * on rank 0 only, and returns an agreed status.
 *
 * The components table is laid out so the Graph500 shape shows at a glance:
 * the share of isolated vertices, the giant component's share of vertices
 * (of all and of non-isolated) and of edges, what is left in small
 * components, and a log2 histogram of component sizes with log-scaled bars.
 */
#include "cc.h"
#include "atomic.h"
#include "cli.h"
#include "common.h"
#include "json.h"
#include "part.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct stats_cfg {
    int json;            /* this pass prints JSON (--json PATH sets it) */
    const char *plot;
    const char *edges;   /* components file: check it belongs to this edges file */
};

typedef int (*stats_printer)(MPI_Comm comm, const char *path, const struct stats_cfg *cfg, FILE *out);

static int print_components(MPI_Comm comm, const char *path, const struct stats_cfg *cfg, FILE *out);
static int print_edges(MPI_Comm comm, const char *path, const struct stats_cfg *cfg, FILE *out);
static int print_placement(MPI_Comm comm, const char *path, const struct stats_cfg *cfg, FILE *out);

static const struct {
    const char *format;
    stats_printer fn;
} printers[] = {
    {IO_COMPONENTS_FORMAT, print_components},
    {IO_EDGES_FORMAT, print_edges},
    {IO_PLACEMENT_FORMAT, print_placement},
};

/* Placement files: the comparison of this placement with the cyclic and block
 * baselines, printed by the partition stage that wrote them. */
static int print_placement(MPI_Comm comm, const char *path, const struct stats_cfg *cfg, FILE *out)
{
    if (cfg->plot)
        return g5_agree(comm, g5_error(G5_ERR_ARG, "--plot draws component sizes: %s is a placement file, give a components file", path));
    return part_stats_print_path(comm, path, out, cfg->json);
}

static double pct(int64_t a, int64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void hist_label(int k, char *buf, size_t len)
{
    if (k == 0)
        snprintf(buf, len, "1");
    else if (k < 20)
        snprintf(buf, len, "%lld-%lld", 1LL << k, (2LL << k) - 1);
    else
        snprintf(buf, len, "2^%d-2^%d-1", k, k + 1);
}

static void components_table(FILE *o, const char *path, const io_components_meta *m)
{
    const int64_t n = m->nvertices, active = n - m->isolated_vertices;
    const int64_t others_v = active - m->giant_vertices, others_e = m->nonloop_edges - m->giant_edges;
    int last = 0;
    char lab[64];

    fprintf(o, "%s: connected components (g500-components v%d)\n", path, m->version);
    fprintf(o, "  from edges: SCALE %d, %lld vertices, %lld edges, seed %llu, content_id %016llx\n\n",
            m->scale, (long long)n, (long long)m->nedges, (unsigned long long)m->seed,
            (unsigned long long)m->edges_content_id);
    fprintf(o, "  %-34s %14lld\n", "vertices", (long long)n);
    fprintf(o, "    %-32s %14lld  %7.3f%% of all, %7.3f%% of non-isolated\n", "in the giant component",
            (long long)m->giant_vertices, pct(m->giant_vertices, n), pct(m->giant_vertices, active));
    fprintf(o, "    %-32s %14lld  %7.3f%% of all, %7.3f%% of non-isolated\n", "in other components",
            (long long)others_v, pct(others_v, n), pct(others_v, active));
    fprintf(o, "    %-32s %14lld  %7.3f%% of all\n", "isolated (no edge but self-loops)",
            (long long)m->isolated_vertices, pct(m->isolated_vertices, n));
    fprintf(o, "  %-34s %14lld  (%lld counting isolated vertices)\n", "components",
            (long long)m->ncomponents, (long long)m->ncomponents_all);
    fprintf(o, "    %-32s %14lld vertices %14lld edges\n", "giant", (long long)m->giant_vertices,
            (long long)m->giant_edges);
    fprintf(o, "    %-32s %14lld vertices %14lld edges\n", "largest non-giant",
            (long long)m->second_vertices, (long long)m->second_edges);
    fprintf(o, "  %-34s %14lld\n", "edge tuples", (long long)m->nedges);
    fprintf(o, "    %-32s %14lld  %7.3f%%\n", "self-loops", (long long)m->self_loops,
            pct(m->self_loops, m->nedges));
    fprintf(o, "    %-32s %14lld  %7.3f%%\n", "non-loop", (long long)m->nonloop_edges,
            pct(m->nonloop_edges, m->nedges));
    fprintf(o, "      %-30s %14lld  %7.3f%% of non-loop\n", "in the giant component",
            (long long)m->giant_edges, pct(m->giant_edges, m->nonloop_edges));
    fprintf(o, "      %-30s %14lld  %7.3f%% of non-loop\n", "in other components",
            (long long)others_e, pct(others_e, m->nonloop_edges));
    fprintf(o, "      %-30s %14lld\n", "distinct pairs {u, v}", (long long)m->distinct_edges);
    fprintf(o, "      %-30s %14lld  %7.3f%% of non-loop\n", "duplicates", (long long)m->duplicate_edges,
            pct(m->duplicate_edges, m->nonloop_edges));
    fprintf(o, "\n  component sizes (vertices), log2 bins; bars are log10 of the count\n");
    for (int k = 0; k < IO_HIST_BINS; k++)
        if (m->size_hist[k])
            last = k;
    for (int k = 0; k <= last; k++) {
        int bar = m->size_hist[k] ? 1 + (int)(4.0 * log10((double)m->size_hist[k])) : 0;
        hist_label(k, lab, sizeof lab);
        fprintf(o, "    %-22s %12lld  %.*s%s\n", lab, (long long)m->size_hist[k], bar > 40 ? 40 : bar,
                "########################################", k == 0 ? "  (isolated)" : "");
    }
}

static void components_json(FILE *o, const char *path, const io_components_meta *m)
{
    int last = 0;
    g5_json j;
    g5_json_init(&j, o, 1);
    g5_json_begin_object(&j);
    g5_json_kv_string(&j, "file", path);
    g5_json_kv_string(&j, "format", IO_COMPONENTS_FORMAT);
    g5_json_kv_int(&j, "version", m->version);
    g5_json_kv_int(&j, "scale", m->scale);
    g5_json_kv_int(&j, "nvertices", m->nvertices);
    g5_json_kv_int(&j, "nedges", m->nedges);
    g5_json_key(&j, "seed");
    g5_json_uint(&j, m->seed);
    g5_json_key(&j, "edges_content_id");
    g5_json_hex64(&j, m->edges_content_id);
    g5_json_kv_int(&j, "ncomponents", m->ncomponents);
    g5_json_kv_int(&j, "ncomponents_with_isolated", m->ncomponents_all);
    g5_json_kv_int(&j, "isolated_vertices", m->isolated_vertices);
    g5_json_kv_int(&j, "giant_vertices", m->giant_vertices);
    g5_json_kv_int(&j, "giant_edges", m->giant_edges);
    g5_json_kv_double(&j, "giant_vertex_share", m->giant_vertex_share);
    g5_json_kv_double(&j, "giant_active_share", m->giant_active_share);
    g5_json_kv_double(&j, "giant_edge_share", m->giant_edge_share);
    g5_json_kv_int(&j, "largest_nongiant_vertices", m->second_vertices);
    g5_json_kv_int(&j, "largest_nongiant_edges", m->second_edges);
    g5_json_kv_int(&j, "self_loops", m->self_loops);
    g5_json_kv_int(&j, "nonloop_edges", m->nonloop_edges);
    g5_json_kv_int(&j, "distinct_edges", m->distinct_edges);
    g5_json_kv_int(&j, "duplicate_edges", m->duplicate_edges);
    for (int k = 0; k < IO_HIST_BINS; k++)
        if (m->size_hist[k])
            last = k;
    g5_json_key(&j, "size_hist_log2");
    g5_json_ints(&j, m->size_hist, last + 1);
    g5_json_end_object(&j);
    g5_json_finish(&j);
}

/* Rank 0: component-size distribution (size, number of components of that
 * size) on log-log axes, through a temporary data file and a gnuplot pipe. */
static int plot_sizes(const char *png, const char *path, const io_components_meta *m,
                      const int64_t *sizes, int64_t ncomp)
{
    char data[] = "/tmp/g500-stats-XXXXXX";
    int fd = mkstemp(data), rc = G5_OK, st;
    FILE *d, *gp;

    if (fd < 0)
        return g5_error(G5_ERR_IO, "--plot: cannot create a temporary data file: %s", strerror(errno));
    d = fdopen(fd, "w");
    if (!d) {
        close(fd);
        unlink(data);
        return g5_error(G5_ERR_IO, "--plot: cannot write the temporary data file");
    }
    if (m->isolated_vertices)
        fprintf(d, "1 %lld\n", (long long)m->isolated_vertices);
    /* sizes are sorted by size, largest first: runs of equal sizes */
    for (int64_t i = ncomp - 1; i >= 0;) {
        int64_t j = i;
        while (j >= 0 && sizes[j] == sizes[i])
            j--;
        fprintf(d, "%lld %lld\n", (long long)sizes[i], (long long)(i - j));
        i = j;
    }
    if (fclose(d) != 0) {
        unlink(data);
        return g5_error(G5_ERR_IO, "--plot: cannot write the temporary data file");
    }
    gp = popen("gnuplot", "w");
    if (!gp) {
        unlink(data);
        return g5_error(G5_ERR_IO, "--plot: cannot run gnuplot: %s", strerror(errno));
    }
    fprintf(gp,
            "set terminal pngcairo size 900,600\n"
            "set output '%s'\n"
            "set logscale xy\n"
            "set xlabel 'component size (vertices)'\n"
            "set ylabel 'number of components'\n"
            "set title 'Component sizes: SCALE %d, %lld components, giant %.2f%% of vertices, %.2f%% isolated' noenhanced\n"
            "set grid\n"
            "set xrange [0.7:*]\nset yrange [0.7:*]\n"
            "plot '%s' using 1:2 with points pt 7 ps 1.2 title '%s' noenhanced\n",
            png, m->scale, (long long)m->ncomponents, 100.0 * m->giant_vertex_share,
            pct(m->isolated_vertices, m->nvertices), data, path);
    st = pclose(gp);
    if (st != 0)
        rc = g5_error(G5_ERR_IO, "--plot: gnuplot failed (exit status %d) writing %s", st, png);
    unlink(data);
    return rc;
}

void cc_stats_print(FILE *out, const char *path, const io_components_meta *m, int json)
{
    if (json)
        components_json(out, path, m);
    else
        components_table(out, path, m);
    fflush(out);
}

static int print_components(MPI_Comm comm, const char *path, const struct stats_cfg *cfg, FILE *out)
{
    int rc, rank;
    io_components *c = NULL;
    int64_t *sizes = NULL;

    MPI_Comm_rank(comm, &rank);
    rc = io_components_open(comm, path, &c);
    if (rc != G5_OK)
        return rc;
    const io_components_meta *m = io_components_get_meta(c);
    if (cfg->edges) {
        io_edges *e = NULL;
        rc = io_edges_open(comm, cfg->edges, &e);
        if (rc == G5_OK)
            rc = g5_agree(comm, io_components_check_edges(c, e));
        io_edges_close(&e);
        if (rc != G5_OK) {
            io_components_close(&c);
            return rc;
        }
    }
    if (rank == 0)
        cc_stats_print(out, path, m, cfg->json);
    if (cfg->plot) {
        const int64_t nc = io_components_ncomp(c);
        sizes = g5_malloc((size_t)(nc ? nc : 1) * sizeof *sizes, "component sizes");
        rc = g5_agree(comm, sizes ? G5_OK : G5_ERR_NOMEM);
        if (rc == G5_OK)
            rc = io_components_read_sizes(c, sizes, NULL);
        if (rc == G5_OK) {
            if (rank == 0)
                rc = plot_sizes(cfg->plot, path, m, sizes, nc);
            rc = g5_agree(comm, rc);
        }
        if (rc == G5_OK && rank == 0 && !cfg->json)
            fprintf(out, "\n  plot: %s\n", cfg->plot);
    }
    if (rc == G5_OK && cfg->edges && rank == 0 && !cfg->json)
        fprintf(out, "\n  matches edges file %s\n", cfg->edges);
    free(sizes);
    io_components_close(&c);
    return rc;
}

/* An edges file: its metadata, read through the generic layer (so stats
 * does not need the edges reader). */
static int print_edges(MPI_Comm comm, const char *path, const struct stats_cfg *cfg, FILE *out)
{
    int rc = G5_OK, rank;
    io_file *f = NULL;
    int64_t version = 0, scale = 0, ef = 0, nv = 0, ne = 0, dims[2] = {-1, 2};
    uint64_t seed = 0, cid = 0;
    double a = 0, b = 0, cc = 0;
    char gen[64] = "";

    MPI_Comm_rank(comm, &rank);
    rc = io_file_open(comm, path, IO_EDGES_FORMAT, IO_EDGES_VERSION, &f);
    if (rc != G5_OK)
        return rc;
    rc = io_attr_read_int64(f, "/", "version", &version);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "scale", &scale);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "edgefactor", &ef);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "nvertices", &nv);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "nedges", &ne);
    if (rc == G5_OK) rc = io_attr_read_uint64(f, "/", "seed", &seed);
    if (rc == G5_OK) rc = io_attr_read_double(f, "/", "rmat_a", &a);
    if (rc == G5_OK) rc = io_attr_read_double(f, "/", "rmat_b", &b);
    if (rc == G5_OK) rc = io_attr_read_double(f, "/", "rmat_c", &cc);
    if (rc == G5_OK && io_attr_exists(f, "/", "generator"))
        rc = io_attr_read_string(f, "/", "generator", gen, sizeof gen);
    if (rc == G5_OK && io_attr_exists(f, "/", "content_id"))
        rc = io_attr_read_uint64(f, "/", "content_id", &cid);
    if (rc == G5_OK) {
        dims[0] = ne;
        rc = io_dataset_check(f, "/edges", H5T_INTEGER, 8, 2, dims);
    }
    rc = g5_agree(comm, rc);
    if (rc == G5_OK && rank == 0) {
        if (cfg->json)
        {
            g5_json j;
            g5_json_init(&j, out, 1);
            g5_json_begin_object(&j);
            g5_json_kv_string(&j, "file", path);
            g5_json_kv_string(&j, "format", IO_EDGES_FORMAT);
            g5_json_kv_int(&j, "version", version);
            g5_json_kv_int(&j, "scale", scale);
            g5_json_kv_int(&j, "edgefactor", ef);
            g5_json_kv_int(&j, "nvertices", nv);
            g5_json_kv_int(&j, "nedges", ne);
            g5_json_key(&j, "seed");
            g5_json_uint(&j, seed);
            g5_json_kv_double(&j, "rmat_a", a);
            g5_json_kv_double(&j, "rmat_b", b);
            g5_json_kv_double(&j, "rmat_c", cc);
            g5_json_kv_string(&j, "generator", gen);
            g5_json_key(&j, "content_id");
            g5_json_hex64(&j, cid);
            g5_json_end_object(&j);
            g5_json_finish(&j);
        }
        else
            fprintf(out, "%s: edge list (g500-edges v%lld)\n"
                         "  SCALE %lld, edgefactor %lld: %lld vertices, %lld edge tuples\n"
                         "  seed %llu, R-MAT a=%g b=%g c=%g d=%g, generator '%s'\n"
                         "  content_id %016llx\n"
                         "  (component statistics: g500 components %s -o COMPONENTS.h5; g500 stats COMPONENTS.h5)\n",
                    path, (long long)version, (long long)scale, (long long)ef, (long long)nv,
                    (long long)ne, (unsigned long long)seed, a, b, cc, 1.0 - a - b - cc, gen,
                    (unsigned long long)cid, path);
        fflush(out);
    }
    if (rc == G5_OK && (cfg->plot || cfg->edges))
        rc = g5_error(G5_ERR_ARG, "%s: --plot and --edges apply to a components file", path);
    io_file_close(&f);
    return g5_agree(comm, rc);
}

/* The printer's JSON pass, to standard output or (rank 0) into PATH,
 * written atomically. Collective. */
static int json_pass(MPI_Comm comm, stats_printer fn, const char *path, struct stats_cfg *cfg,
                     const char *json)
{
    int rank, rc = G5_OK;
    g5_atomic a = {.f = stdout};
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && !cli_json_stdout(json))
        rc = g5_atomic_open(&a, json);
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        return rc;
    cfg->json = 1;
    rc = fn(comm, path, cfg, a.f);
    if (rank == 0 && a.f != stdout) {
        if (rc == G5_OK)
            rc = g5_atomic_commit(&a);
        else
            g5_atomic_abort(&a);
    }
    return g5_agree(comm, rc);
}

int stats_cmd(int argc, char **argv)
{
    struct stats_cfg cfg = {0, NULL, NULL};
    const char *json = NULL;
    const g5_opt opts[] = {
        {"json", 'j', G5_OPT_STRING, &json, "PATH",
         "write the statistics as JSON to PATH ('-': standard output, instead of the table)"},
        {"plot", 0, G5_OPT_STRING, &cfg.plot, "PNG", "draw the component-size distribution (log-log) with gnuplot"},
        {"edges", 0, G5_OPT_STRING, &cfg.edges, "EDGES.h5", "check that the components file was computed from this edges file"},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int npos = 0, rc;
    io_file *f = NULL;
    char format[64] = "";
    stats_printer fn = NULL;

    rc = cli_parse(argc, argv, opts, nopts, pos, 1, &npos,
                   "g500 stats FILE.h5 [--json PATH] [--plot PNG]",
                   "Print what a g500 file holds: a components file's statistics (counts,\n"
                   "shares, isolated vertices, self-loops, duplicates, giant and largest\n"
                   "non-giant component, log2 size histogram), an edges file's metadata.",
                   1, "give one file (see --help)");
    if (rc == 1)
        return 0;
    if (rc != G5_OK)
        return g5_cmd_fail("stats", rc);
    /* Open once to learn the format, then hand the path to its printer. */
    rc = io_file_open(MPI_COMM_WORLD, pos[0], NULL, INT_MAX, &f);
    if (rc == G5_OK) {
        snprintf(format, sizeof format, "%s", io_file_format(f));
        io_file_close(&f);
        for (size_t i = 0; i < sizeof printers / sizeof printers[0]; i++)
            if (strcmp(printers[i].format, format) == 0)
                fn = printers[i].fn;
        if (!fn)
            rc = g5_error(G5_ERR_FORMAT, "%s: stats cannot show '%s' files", pos[0], format);
    }
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc == G5_OK)
        rc = cli_json_check(MPI_COMM_WORLD, json, pos[0]);
    if (rc == G5_OK && !cli_json_stdout(json)) {
        rc = fn(MPI_COMM_WORLD, pos[0], &cfg, stdout);
        cfg.plot = cfg.edges = NULL;   /* done by the table's pass */
    }
    if (rc == G5_OK && json)
        rc = json_pass(MPI_COMM_WORLD, fn, pos[0], &cfg, json);
    return rc == G5_OK ? 0 : g5_cmd_fail("stats", rc);
}
