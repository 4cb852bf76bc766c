/* SPDX-License-Identifier: MIT */
/*
 * rep_plots.c - the report's plots: each writes its data under data/, its
 * lines in plots.gp (gnuplot, pngcairo) and links its PNG in the page.
 *
 *   teps-placements.png  harmonic-mean TEPS of every run per placement, the
 *                        median with the range (min - max) of the runs
 *   teps-bfs.png, teps-sssp.png  TEPS per key of each placement's first run
 *   heatmap-NAME.png     bytes sent and hop-weighted bytes between ranks;
 *                        one colour scale for all placements (per panel
 *                        kind), so they compare by eye; past 64 ranks the
 *                        matrix is summed by node, past 64 nodes by leaf
 *                        switch (from the placement file's rank -> node map
 *                        and node hops: nodes one hop apart share a leaf)
 *   hops.png             bytes by hop level: a rank pair's hop count is
 *                        hop_bytes / bytes (the kernels weight each byte
 *                        by the switches between the two ranks' nodes)
 *   bfs-levels.png       time per BFS level of each placement's first run
 *   components.png       components per log2 size bin
 */
#include "rep_report_int.h"

#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HEAT_MAX 64   /* rows of a heat map before it is grouped */

static FILE *open_data(report *r, const char *name)
{
    char path[REP_PATH];
    FILE *f;
    if (rep_pathf(path, "%s/data/%s", r->tmp, name) != G5_OK)
        return NULL;
    f = fopen(path, "w");
    if (!f)
        g5_error(G5_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static int close_data(FILE *f, const char *name)
{
    if (ferror(f) | fclose(f))
        return g5_error(G5_ERR_IO, "report data %s: write failed", name);
    return G5_OK;
}

static void gp_begin(report *r, const char *png, const char *title, int w, int h)
{
    fprintf(r->gp, "\nreset\nset terminal pngcairo size %d,%d noenhanced font 'sans,10'\n"
                   "set output '%s'\nset title '%s'\nset grid\nset key below\n",
            w, h, png, title);
}

static void md_image(report *r, const char *png, const char *alt)
{
    rep_md(r, "\n![%s](%s)\n", alt, png);
}

/* A plot of one data file: close the file (name); when it is whole, the
 * plot's lines in plots.gp (gp_begin, then the printf format script with
 * its arguments) and its image in the page (alt). */
__attribute__((format(printf, 9, 10)))
static int plot_file(report *r, FILE *d, const char *name, const char *png, const char *title,
                     const char *alt, int w, int h, const char *script, ...)
{
    int rc = close_data(d, name);
    if (rc != G5_OK)
        return rc;
    gp_begin(r, png, title, w, h);
    va_list ap;
    va_start(ap, script);
    vfprintf(r->gp, script, ap);
    va_end(ap);
    md_image(r, png, alt);
    return G5_OK;
}

int rep_plot_components(report *r, const int64_t *bins, int maxbin)
{
    FILE *d = open_data(r, "components.dat");
    if (!d)
        return G5_ERR_IO;
    fprintf(d, "# log2_bin size_low size_high components\n");
    for (int b = 0; b <= maxbin; b++)
        fprintf(d, "%d %lld %lld %lld\n", b, (long long)1 << b, ((long long)1 << (b + 1)) - 1,
                (long long)bins[b]);
    return plot_file(r, d, "components.dat", "components.png",
                     "Component size distribution (non-isolated components)",
                     "component size distribution", 800, 500,
                     "set logscale y\nset xlabel 'component size (vertices, log2 bin)'\n"
                     "set ylabel 'components'\nset style fill solid 0.6\nset boxwidth 0.8\n"
                     "set xrange [-0.5:%d.5]\nset yrange [0.5:*]\nunset key\n"
                     "plot 'data/components.dat' using 1:($4 > 0 ? $4 : 1/0):xtic(sprintf('2^%%d', $1)) "
                     "with boxes\n", maxbin);
}

/* ---- TEPS ------------------------------------------------------------------ */

int rep_plot_spread(report *r)
{
    FILE *d;
    int rc;
    if (r->nser == 0)
        return G5_OK;
    if (!(d = open_data(r, "spread.dat")))
        return G5_ERR_IO;
    fprintf(d, "# index placement runs bfs_median bfs_min bfs_max sssp_median sssp_min sssp_max\n");
    for (int s = 0; s < r->nser; s++) {
        const rep_series *se = &r->ser[s];
        fprintf(d, "%d %s %d %.6g %.6g %.6g %.6g %.6g %.6g\n", s, se->name, se->nruns,
                se->bfs.median, se->bfs.min, se->bfs.max, se->sssp.median, se->sssp.min,
                se->sssp.max);
    }
    if ((rc = close_data(d, "spread.dat")) != G5_OK)
        return rc;
    if (!(d = open_data(r, "spread-runs.dat")))
        return G5_ERR_IO;
    fprintf(d, "# placement_index bfs_hmean sssp_hmean run\n");
    for (int i = 0; i < r->nruns; i++)
        for (int s = 0; s < r->nser; s++)
            if (strcmp(r->runs[i].series, r->ser[s].name) == 0)
                fprintf(d, "%d %.6g %.6g %s\n", s, r->runs[i].bfs_hmean, r->runs[i].sssp_hmean,
                        r->runs[i].name);
    if ((rc = close_data(d, "spread-runs.dat")) != G5_OK)
        return rc;
    int has[2] = {0, 0};
    for (int s = 0; s < r->nser; s++) {
        has[0] |= r->ser[s].nbfs > 0;
        has[1] |= r->ser[s].nsssp > 0;
    }
    if (!has[0] && !has[1])
        return G5_OK;
    gp_begin(r, "teps-placements.png", "", has[0] && has[1] ? 1100 : 600, 520);
    fprintf(r->gp, "unset title\nset multiplot layout 1,%d title 'Harmonic-mean TEPS of each run: "
                   "median and range (min - max) per placement'\n"
                   "set xrange [-0.5:%d.5]\nset yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\nset ylabel 'TEPS'\n"
                   "set xtics rotate by 15 right\nset bmargin 8\n", has[0] + has[1], r->nser - 1);
    for (int k = 0; k < 2; k++)
        if (has[k])
            fprintf(r->gp, "set title '%s'\nplot 'data/spread.dat' using 1:%d:%d:%d:xtic(2) with yerrorbars "
                       "pt 5 ps 1.5 lw 2 title 'median, min - max', \\\n"
                       "     'data/spread-runs.dat' using 1:%d with points pt 6 ps 1 title 'each run'\n",
                k ? "SSSP" : "BFS", k ? 7 : 4, k ? 8 : 5, k ? 9 : 6, k ? 3 : 2);
    fprintf(r->gp, "unset multiplot\n");
    md_image(r, "teps-placements.png", "TEPS per placement, median and range over the runs");
    return G5_OK;
}

int rep_plot_teps(report *r)
{
    int rc, any[2] = {0, 0}, maxroots = 1;
    for (int s = 0; s < r->nser; s++) {
        run_info *ri = &r->runs[r->ser[s].first];
        char name[300];
        FILE *d;
        if (!ri->bfs_teps && !ri->sssp_teps)
            continue;
        snprintf(name, sizeof name, "teps-%s.dat", ri->name);
        if (!(d = open_data(r, name)))
            return G5_ERR_IO;
        fprintf(d, "# root_index bfs_teps sssp_teps\n");
        for (int k = 0; k < ri->nroots; k++)
            fprintf(d, "%d %.6g %.6g\n", k, ri->bfs_teps ? ri->bfs_teps[k] : NAN,
                    ri->sssp_teps ? ri->sssp_teps[k] : NAN);
        if ((rc = close_data(d, name)) != G5_OK)
            return rc;
        any[0] |= ri->bfs_teps != NULL;
        any[1] |= ri->sssp_teps != NULL;
        maxroots = ri->nroots > maxroots ? ri->nroots : maxroots;
    }
    for (int kind = 0; kind < 2; kind++) {
        const char *title = kind ? "SSSP TEPS per key (first run of each placement)"
                                 : "BFS TEPS per key (first run of each placement)";
        char png[64];
        int first = 1;
        if (!any[kind])
            continue;
        snprintf(png, sizeof png, "teps-%s.png", kind ? "sssp" : "bfs");
        gp_begin(r, png, title, 900, 500);
        fprintf(r->gp, "set logscale y\nset xlabel 'key index'\nset ylabel 'TEPS'\n"
                       "set xrange [-0.5:%d.5]\nset xtics %d\nplot ", maxroots - 1,
                maxroots > 16 ? 8 : 1);
        for (int s = 0; s < r->nser; s++) {
            run_info *ri = &r->runs[r->ser[s].first];
            if (!(kind ? ri->sssp_teps : ri->bfs_teps))
                continue;
            fprintf(r->gp, "%s'data/teps-%s.dat' using 1:%d with linespoints pt 7 ps 0.5 title '%s'",
                    first ? "" : ", \\\n     ", ri->name, kind ? 3 : 2, ri->name);
            first = 0;
        }
        fprintf(r->gp, "\n");
        md_image(r, png, title);
    }
    return G5_OK;
}

/* ---- heat maps --------------------------------------------------------------- */

typedef struct heat {
    int64_t n;               /* rows after grouping */
    char unit[48];           /* "rank", "node", "leaf switch", "group of K ranks" */
    double *bytes, *hop;     /* [n*n]; hop may be NULL */
} heat;

/* group[rank] for series nm: by node past HEAT_MAX ranks, by leaf switch
 * past HEAT_MAX nodes, from the placement file whose PLACE ends nm; without
 * one, runs of consecutive ranks. Returns the group count. */
static int64_t rank_groups(report *r, const char *nm, int64_t nranks, int32_t *group,
                           char *unit, size_t ulen)
{
    int64_t ng = 0;
    for (int p = 0; p < r->nplacements && nranks > HEAT_MAX; p++) {
        const char *stem = r->placements[p] + strlen("placement-");
        size_t len = strlen(stem) - strlen(".h5"), nl = strlen(nm);
        char path[REP_PATH];
        io_file *f = NULL;
        io_placement_meta m;
        int32_t *hops = NULL;
        if (nl < len || strncmp(nm + nl - len, stem, len) != 0 ||
            rep_pathf(path, "%s/%s", r->o->dir, r->placements[p]) != G5_OK ||
            io_placement_open(MPI_COMM_SELF, path, &f, &m) != G5_OK || m.nranks != nranks ||
            !(hops = malloc((size_t)m.nnodes * (size_t)m.nnodes * sizeof *hops)) ||
            io_placement_read_ranks(f, &m, NULL, group, NULL, hops) != G5_OK) {
            free(hops);
            io_file_close(&f);
            continue;
        }
        io_file_close(&f);
        snprintf(unit, ulen, "node");
        ng = m.nnodes;
        if (m.nnodes > HEAT_MAX) {
            /* leaf[v]: the first node one hop or less from v */
            int32_t *leaf = malloc((size_t)m.nnodes * sizeof *leaf);
            if (leaf) {
                ng = 0;
                for (int v = 0; v < m.nnodes; v++) {
                    int u = 0;
                    while (hops[(int64_t)v * m.nnodes + u] > 1) u++;
                    leaf[v] = u == v ? (int32_t)ng++ : leaf[u];
                }
                for (int64_t i = 0; i < nranks; i++)
                    group[i] = leaf[group[i]];
                snprintf(unit, ulen, "leaf switch");
                free(leaf);
            }
        }
        free(hops);
        g5_error_clear();
        if (ng <= HEAT_MAX)
            return ng;
    }
    g5_error_clear();
    int64_t per = (nranks + HEAT_MAX - 1) / HEAT_MAX;
    for (int64_t i = 0; i < nranks; i++)
        group[i] = (int32_t)(i / per);
    if (per > 1)
        snprintf(unit, ulen, "group of %lld ranks", (long long)per);
    else
        snprintf(unit, ulen, "rank");
    return (nranks + per - 1) / per;
}

static double *group_sum(const double *m, int64_t n, const int32_t *g, int64_t ng)
{
    double *out;
    if (!m || !(out = calloc((size_t)(ng * ng), sizeof *out)))
        return NULL;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++)
            out[g[i] * ng + g[j]] += m[i * n + j];
    return out;
}

static int write_matrix(report *r, const char *name, const double *m, int64_t n)
{
    FILE *d = open_data(r, name);
    if (!d)
        return G5_ERR_IO;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < n; j++)
            fprintf(d, "%s%.6g", j ? " " : "", m[i * n + j]);
        fprintf(d, "\n");
    }
    return close_data(d, name);
}

static void heat_script(report *r, const char *nm, const heat *h, double max_b, double max_h)
{
    char png[300];
    int64_t step = h->n <= 16 ? 1 : (h->n + 15) / 16;
    snprintf(png, sizeof png, "heatmap-%s.png", nm);
    gp_begin(r, png, "", h->hop ? 1250 : 650, 560);
    fprintf(r->gp, "unset title\nunset grid\nunset key\nset xlabel 'to %s'\nset ylabel 'from %s'\n"
                   "set xrange [-0.5:%lld-0.5]\nset yrange [%lld-0.5:-0.5]\nset xtics %lld\n"
                   "set ytics %lld\nset palette rgb 21,22,23\nset format cb '%%.1s%%c'\n",
            h->unit, h->unit, (long long)h->n, (long long)h->n, (long long)step, (long long)step);
    if (h->hop)
        fprintf(r->gp, "set multiplot layout 1,2 title '%s: %s x %s traffic (colour scales shared "
                       "by all placements)'\n", nm, h->unit, h->unit);
    fprintf(r->gp, "set title 'bytes sent%s'\nset cbrange [0:%.6g]\n"
                   "plot 'data/bytes-%s.dat' matrix with image\n",
            h->hop ? "" : " (colour scale shared by all placements)", max_b > 0 ? max_b : 1, nm);
    if (h->hop)
        fprintf(r->gp, "set title 'hop-weighted bytes (bytes x switch hops)'\nset cbrange [0:%.6g]\n"
                       "plot 'data/hopbytes-%s.dat' matrix with image\nunset multiplot\n",
                max_h > 0 ? max_h : 1, nm);
    md_image(r, png, "rank x rank communication");
}

int rep_plot_heatmaps(report *r)
{
    heat h[REP_MAX_FILES];
    double max_b = 0, max_h = 0;
    int rc = G5_OK;
    memset(h, 0, sizeof h);
    for (int s = 0; s < r->nser && rc == G5_OK; s++) {
        run_info *ri = &r->runs[r->ser[s].first];
        int32_t *g;
        if (!ri->bytes || !(g = malloc((size_t)ri->nranks * sizeof *g)))
            continue;
        h[s].n = rank_groups(r, ri->name, ri->nranks, g, h[s].unit, sizeof h[s].unit);
        h[s].bytes = group_sum(ri->bytes, ri->nranks, g, h[s].n);
        h[s].hop = group_sum(ri->hop_bytes, ri->nranks, g, h[s].n);
        free(g);
        if (!h[s].bytes)
            rc = g5_error(G5_ERR_NOMEM, "report: out of memory for a heat map");
        for (int64_t k = 0; h[s].bytes && k < h[s].n * h[s].n; k++) {
            max_b = fmax(max_b, h[s].bytes[k]);
            max_h = h[s].hop ? fmax(max_h, h[s].hop[k]) : max_h;
        }
    }
    for (int s = 0; s < r->nser && rc == G5_OK; s++) {
        const char *nm = r->runs[r->ser[s].first].name;
        char name[300];
        if (!h[s].bytes)
            continue;
        snprintf(name, sizeof name, "bytes-%s.dat", nm);
        rc = write_matrix(r, name, h[s].bytes, h[s].n);
        snprintf(name, sizeof name, "hopbytes-%s.dat", nm);
        if (rc == G5_OK && h[s].hop)
            rc = write_matrix(r, name, h[s].hop, h[s].n);
        if (rc == G5_OK)
            heat_script(r, nm, &h[s], max_b, max_h);
    }
    for (int s = 0; s < r->nser; s++) {
        free(h[s].bytes);
        free(h[s].hop);
    }
    return rc;
}

/* ---- hop levels ---------------------------------------------------------------- */

int rep_hop_levels(const run_info *ri, double *out)
{
    int top = -1;
    memset(out, 0, REP_MAX_HOPS * sizeof *out);
    if (!ri->bytes || !ri->hop_bytes)
        return -1;
    for (int64_t k = 0; k < ri->nranks * ri->nranks; k++) {
        if (ri->bytes[k] <= 0)
            continue;
        long long hop = llround(ri->hop_bytes[k] / ri->bytes[k]);
        if (hop < 0 || hop >= REP_MAX_HOPS)
            continue;
        out[hop] += ri->bytes[k];
        top = hop > top ? (int)hop : top;
    }
    return top;
}

int rep_plot_hops(report *r)
{
    double lv[REP_MAX_FILES][REP_MAX_HOPS];
    int top = -1, n = 0;
    FILE *d;
    for (int s = 0; s < r->nser; s++) {
        int t = rep_hop_levels(&r->runs[r->ser[s].first], lv[s]);
        top = t > top ? t : top;
        n += t >= 0;
    }
    if (top < 0)
        return G5_OK;
    rep_md(r, "\nBytes sent by hop level (switches between the two ranks' nodes; 0: same node), "
              "first run of each placement:\n\n| run |");
    for (int h = 0; h <= top; h++)
        rep_md(r, " %d hop%s |", h, h == 1 ? "" : "s");
    rep_md(r, "\n| --- |");
    for (int h = 0; h <= top; h++)
        rep_md(r, " ---: |");
    rep_md(r, "\n");
    if (!(d = open_data(r, "hops.dat")))
        return G5_ERR_IO;
    fprintf(d, "hops");
    for (int s = 0; s < r->nser; s++)
        if (r->runs[r->ser[s].first].hop_bytes) {
            char num[64];
            fprintf(d, " %s", r->runs[r->ser[s].first].name);
            rep_md(r, "| %s |", r->runs[r->ser[s].first].name);
            for (int h = 0; h <= top; h++) {
                rep_fmt_num(num, sizeof num, lv[s][h]);
                rep_md(r, " %s |", num);
            }
            rep_md(r, "\n");
        }
    fprintf(d, "\n");
    for (int h = 0; h <= top; h++) {
        fprintf(d, "%d", h);
        for (int s = 0; s < r->nser; s++)
            if (r->runs[r->ser[s].first].hop_bytes)
                fprintf(d, " %.6g", lv[s][h]);
        fprintf(d, "\n");
    }
    return plot_file(r, d, "hops.dat", "hops.png", "Bytes sent by hop level (first run of each placement)",
                     "bytes by hop level", 900, 500,
                     "set style data histograms\nset style histogram clustered gap 1\n"
                     "set style fill solid 0.7 border -1\nset xlabel 'switch hops between the ranks'' nodes'\n"
                     "set ylabel 'bytes'\nset yrange [0:*]\nset grid noxtics ytics\n"
                     "plot for [i=2:%d] 'data/hops.dat' using i:xtic(1) title columnheader(i)\n", n + 1);
}

/* ---- BFS levels ------------------------------------------------------------------ */

int rep_plot_levels(report *r)
{
    int rc, any = 0, first = 1;
    for (int s = 0; s < r->nser; s++) {
        run_info *ri = &r->runs[r->ser[s].first];
        char name[300];
        FILE *d;
        if (!ri->level_time)
            continue;
        snprintf(name, sizeof name, "levels-%s.dat", ri->name);
        if (!(d = open_data(r, name)))
            return G5_ERR_IO;
        fprintf(d, "# level seconds frontier direction\n");
        for (int k = 0; k < ri->nlevels; k++)
            fprintf(d, "%d %.6g %.0f %s\n", k, ri->level_time[k],
                    ri->level_front ? ri->level_front[k] : NAN, ri->level_dir ? ri->level_dir[k] : "-");
        if ((rc = close_data(d, name)) != G5_OK)
            return rc;
        any = 1;
    }
    if (!any)
        return G5_OK;
    gp_begin(r, "bfs-levels.png", "BFS time per level (first key, first run of each placement)", 900, 500);
    fprintf(r->gp, "set logscale y\nset xlabel 'level'\nset ylabel 'seconds'\nset xtics 1\nplot ");
    for (int s = 0; s < r->nser; s++) {
        run_info *ri = &r->runs[r->ser[s].first];
        if (!ri->level_time)
            continue;
        fprintf(r->gp, "%s'data/levels-%s.dat' using 1:2 with linespoints pt 7 title '%s'",
                first ? "" : ", \\\n     ", ri->name, ri->name);
        first = 0;
    }
    fprintf(r->gp, "\n");
    md_image(r, "bfs-levels.png", "BFS time per level");
    return G5_OK;
}
