/* SPDX-License-Identifier: MIT */
/*
 * rep_components.c - a components file's statistics as `g500 stats` and
 * `g500 components` print them: a table for people, one JSON object for
 * programs, and the component-size distribution as a gnuplot PNG.
 *
 * The table is laid out so the Graph500 shape shows at a glance: the share
 * of isolated vertices, the giant component's share of vertices (of all and
 * of non-isolated) and of edges, what is left in small components, and a
 * log2 histogram of component sizes with log-scaled bars.
 */
#include "report.h"

#include "common.h"
#include "io.h"
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The statistics' members after file and format, in file order (the
 * size histogram last). */
static const g5_json_field stats_fields[] = {
    {"version", G5_JSON_INT, offsetof(io_components_meta, version)},
    {"scale", G5_JSON_INT, offsetof(io_components_meta, scale)},
    {"nvertices", G5_JSON_INT64, offsetof(io_components_meta, nvertices)},
    {"nedges", G5_JSON_INT64, offsetof(io_components_meta, nedges)},
    {"seed", G5_JSON_UINT64, offsetof(io_components_meta, seed)},
    {"edges_content_id", G5_JSON_HEX64, offsetof(io_components_meta, edges_content_id)},
    {"ncomponents", G5_JSON_INT64, offsetof(io_components_meta, ncomponents)},
    {"ncomponents_with_isolated", G5_JSON_INT64, offsetof(io_components_meta, ncomponents_all)},
    {"isolated_vertices", G5_JSON_INT64, offsetof(io_components_meta, isolated_vertices)},
    {"giant_vertices", G5_JSON_INT64, offsetof(io_components_meta, giant_vertices)},
    {"giant_edges", G5_JSON_INT64, offsetof(io_components_meta, giant_edges)},
    {"giant_vertex_share", G5_JSON_DOUBLE, offsetof(io_components_meta, giant_vertex_share)},
    {"giant_active_share", G5_JSON_DOUBLE, offsetof(io_components_meta, giant_active_share)},
    {"giant_edge_share", G5_JSON_DOUBLE, offsetof(io_components_meta, giant_edge_share)},
    {"largest_nongiant_vertices", G5_JSON_INT64, offsetof(io_components_meta, second_vertices)},
    {"largest_nongiant_edges", G5_JSON_INT64, offsetof(io_components_meta, second_edges)},
    {"self_loops", G5_JSON_INT64, offsetof(io_components_meta, self_loops)},
    {"nonloop_edges", G5_JSON_INT64, offsetof(io_components_meta, nonloop_edges)},
    {"distinct_edges", G5_JSON_INT64, offsetof(io_components_meta, distinct_edges)},
    {"duplicate_edges", G5_JSON_INT64, offsetof(io_components_meta, duplicate_edges)},
};

static void components_json(FILE *o, const char *path, const io_components_meta *m)
{
    int last = 0;
    g5_json j;
    g5_json_init(&j, o, 1);
    g5_json_begin_object(&j);
    g5_json_kv_string(&j, "file", path);
    g5_json_kv_string(&j, "format", IO_COMPONENTS_FORMAT);
    g5_json_fields(&j, m, stats_fields, G5_JSON_NFIELDS(stats_fields));
    for (int k = 0; k < IO_HIST_BINS; k++)
        if (m->size_hist[k])
            last = k;
    g5_json_key(&j, "size_hist_log2");
    g5_json_ints(&j, m->size_hist, last + 1);
    g5_json_end_object(&j);
    g5_json_finish(&j);
}

/* Through a temporary data file (size, number of components of that size)
 * and a gnuplot pipe. */
int rep_components_plot(const char *png, const char *path, const io_components_meta *m,
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

void rep_components_print(FILE *out, const char *path, const io_components_meta *m, int json)
{
    if (json)
        components_json(out, path, m);
    else
        components_table(out, path, m);
    fflush(out);
}
