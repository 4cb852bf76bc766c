/* SPDX-License-Identifier: MIT */
/*
 * stats_cmd.c - `g500 stats FILE.h5`: what a pipeline file holds, as a table
 * for people (--json for programs, --plot PNG for the component-size
 * distribution on log-log axes, drawn by gnuplot).
 *
 * Dispatch: the file's format attribute selects a printer from `printers`
 * below; supporting another format is one line there. Every printer is
 * collective on the communicator (files are opened collectively), prints
 * on rank 0 only, and returns an agreed status. The layouts are report/'s
 * (rep_components.c, rep_edges.c) and partition/'s (the placement's
 * quality table).
 */
#include "atomic.h"
#include "cli.h"
#include "common.h"
#include "io.h"
#include "part.h"
#include "report.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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
        rep_components_print(out, path, m, cfg->json);
    if (cfg->plot) {
        const int64_t nc = io_components_ncomp(c);
        sizes = g5_malloc((size_t)(nc ? nc : 1) * sizeof *sizes, "component sizes");
        rc = g5_agree(comm, sizes ? G5_OK : G5_ERR_NOMEM);
        if (rc == G5_OK)
            rc = io_components_read_sizes(c, sizes, NULL);
        if (rc == G5_OK) {
            if (rank == 0)
                rc = rep_components_plot(cfg->plot, path, m, sizes, nc);
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
    io_edges_meta m = {0};
    int64_t version = 0, scale = 0, ef = 0, dims[2] = {-1, 2};
    const size_t genlen = 64;  /* the generator's name, cut to 63 bytes */

    MPI_Comm_rank(comm, &rank);
    rc = io_file_open(comm, path, IO_EDGES_FORMAT, IO_EDGES_VERSION, &f);
    if (rc != G5_OK)
        return rc;
    rc = io_attr_read_int64(f, "/", "version", &version);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "scale", &scale);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "edgefactor", &ef);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "nvertices", &m.nvertices);
    if (rc == G5_OK) rc = io_attr_read_int64(f, "/", "nedges", &m.nedges);
    if (rc == G5_OK) rc = io_attr_read_uint64(f, "/", "seed", &m.seed);
    if (rc == G5_OK) rc = io_attr_read_double(f, "/", "rmat_a", &m.rmat_a);
    if (rc == G5_OK) rc = io_attr_read_double(f, "/", "rmat_b", &m.rmat_b);
    if (rc == G5_OK) rc = io_attr_read_double(f, "/", "rmat_c", &m.rmat_c);
    if (rc == G5_OK && io_attr_exists(f, "/", "generator"))
        rc = io_attr_read_string(f, "/", "generator", m.generator, genlen);
    if (rc == G5_OK && io_attr_exists(f, "/", "content_id"))
        rc = io_attr_read_uint64(f, "/", "content_id", &m.content_id);
    if (rc == G5_OK) {
        dims[0] = m.nedges;
        rc = io_dataset_check(f, "/edges", H5T_INTEGER, io_edges_id_bytes((int)version, (int)scale), 2,
                              dims);
    }
    m.version = (int)version;
    m.scale = (int)scale;
    m.edgefactor = (int)ef;
    rc = g5_agree(comm, rc);
    if (rc == G5_OK && rank == 0)
        rep_edges_print(out, path, &m, cfg->json);
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
