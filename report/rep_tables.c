/* SPDX-License-Identifier: MIT */
/*
 * rep_tables.c - the report's tables: placements compared over their
 * alternated runs, the kernel runs, provenance, the graph, the component
 * statistics and the placement metrics.
 *
 * Comparison rule: each run's figure is its harmonic-mean TEPS over its
 * keys; a placement's figure is the median of its runs' figures, shown with
 * their range (min - max). A difference between two placements is stated
 * only when both have at least two runs and their ranges do not overlap;
 * otherwise the page says that no difference can be stated. With ranks x
 * threads above a host's cores every summary says the times are not
 * representative (rep_report.c decides).
 *
 * Attributes are shown under human labels in a fixed order; ids are 64-bit
 * hexadecimal as the stages print them (read as uint64, never through a
 * double); `format` and `version` are the files' schema, not statistics.
 */
#include "rep_report_int.h"

#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rep_fmt_num(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.4g", v);
}

/* A numeric attribute of any integer or float type; 0 if absent. */
int rep_attr_number(io_file *f, const char *obj, const char *name, double *v)
{
    int64_t i;
    uint64_t u;
    if (!io_attr_exists(f, obj, name))
        return 0;
    if (io_attr_read_double(f, obj, name, v) == G5_OK)
        return 1;
    if (io_attr_read_int64(f, obj, name, &i) == G5_OK) {
        *v = (double)i;
        return 1;
    }
    if (io_attr_read_uint64(f, obj, name, &u) == G5_OK) {
        *v = (double)u;
        return 1;
    }
    return 0;
}

/* ---- labelled attribute tables ------------------------------------------- */

typedef enum { A_NUM, A_SHARE, A_ID, A_TEXT } attr_kind;
typedef struct attr_label {
    const char *group;       /* a new group starts a new table */
    const char *name, *label;
    attr_kind kind;
} attr_label;

static const attr_label graph_attrs[] = {
    {"graph", "scale", "SCALE (log2 of the vertex count)", A_NUM},
    {"graph", "edgefactor", "edge factor", A_NUM},
    {"graph", "nvertices", "vertices", A_NUM},
    {"graph", "nedges", "edge tuples", A_NUM},
    {"graph", "seed", "seed", A_NUM},
    {"graph", "rmat_a", "R-MAT A", A_NUM},
    {"graph", "rmat_b", "R-MAT B", A_NUM},
    {"graph", "rmat_c", "R-MAT C", A_NUM},
    {"graph", "content_id", "content id", A_ID},
    {"graph", "generator", "generator", A_TEXT},
    {"graph", "generation_seconds", "generation time (s)", A_NUM},
    {"graph", "elapsed_seconds", "stage wall time (s)", A_NUM},
    {"graph", "ranks", "ranks", A_NUM},
};

static const attr_label comp_attrs[] = {
    {"vertices", "nvertices", "all vertices", A_NUM},
    {"vertices", "giant_vertices", "in the giant component", A_NUM},
    {"vertices", "giant_vertex_share", "giant component, share of all vertices", A_SHARE},
    {"vertices", "giant_active_share", "giant component, share of non-isolated vertices", A_SHARE},
    {"vertices", "second_vertices", "in the largest other component", A_NUM},
    {"vertices", "isolated_vertices", "isolated (no edge but self-loops)", A_NUM},
    {"components", "ncomponents", "components (isolated vertices not counted)", A_NUM},
    {"components", "ncomponents_all", "components, each isolated vertex counted as one", A_NUM},
    {"edge tuples", "nedges", "all edge tuples", A_NUM},
    {"edge tuples", "self_loops", "self-loops", A_NUM},
    {"edge tuples", "nonloop_edges", "non-loop tuples", A_NUM},
    {"edge tuples", "giant_edges", "in the giant component", A_NUM},
    {"edge tuples", "giant_edge_share", "giant component, share of non-loop tuples", A_SHARE},
    {"edge tuples", "second_edges", "in the largest other component", A_NUM},
    {"edge tuples", "distinct_edges", "distinct pairs {u, v}", A_NUM},
    {"edge tuples", "duplicate_edges", "duplicate tuples", A_NUM},
    {"stage and input", "edges_content_id", "edges file content id", A_ID},
    {"stage and input", "scale", "SCALE", A_NUM},
    {"stage and input", "seed", "seed", A_NUM},
    {"stage and input", "elapsed_seconds", "stage wall time (s)", A_NUM},
    {"stage and input", "ranks", "ranks", A_NUM},
};

/* Attributes never listed: the schema, and what has its own table. */
static const char *unlisted[] = {"format", "version", "size_hist_log2"};

/* One table row from attribute a; 0 when the file lacks it. */
static int attr_row(report *r, io_file *f, const attr_label *a)
{
    char val[256];
    double v;
    uint64_t u;
    int64_t i;
    if (!io_attr_exists(f, "/", a->name))
        return 0;
    if (a->kind == A_ID && io_attr_read_uint64(f, "/", a->name, &u) == G5_OK)
        snprintf(val, sizeof val, "%016llx", (unsigned long long)u);
    else if (a->kind == A_ID && io_attr_read_int64(f, "/", a->name, &i) == G5_OK)
        snprintf(val, sizeof val, "%016llx", (unsigned long long)(uint64_t)i);
    else if (a->kind == A_SHARE && rep_attr_number(f, "/", a->name, &v))
        snprintf(val, sizeof val, "%.2f%%", 100.0 * v);
    else if (rep_attr_number(f, "/", a->name, &v))
        rep_fmt_num(val, sizeof val, v);
    else if (io_attr_read_string(f, "/", a->name, val, sizeof val) != G5_OK)
        return 0;
    rep_md(r, "| %s | %s |\n", a->label, val);
    return 1;
}

static herr_t collect_name(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    char (*names)[64] = data;
    int k = 0;
    (void)loc; (void)info;
    while (k < 127 && names[k][0])
        k++;
    if (k < 127 && strlen(name) < 64)
        snprintf(names[k], 64, "%s", name);
    return 0;
}

/* Tables of the labelled attributes by group, then any other attribute
 * under its own name. */
static void attr_tables(report *r, io_file *f, const attr_label *labels, int n)
{
    static char names[128][64];
    hsize_t idx = 0;
    const char *group = NULL;
    int other = 0;
    for (int i = 0; i < n; i++) {
        if (!io_attr_exists(f, "/", labels[i].name))
            continue;
        if (!group || strcmp(group, labels[i].group) != 0) {
            group = labels[i].group;
            rep_md(r, "\n| %s | |\n| --- | ---: |\n", group);
        }
        attr_row(r, f, &labels[i]);
    }
    memset(names, 0, sizeof names);
    H5Aiterate2(io_file_hid(f), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, names);
    for (int k = 0; k < 128 && names[k][0]; k++) {
        int known = 0;
        for (int i = 0; i < n && !known; i++)
            known = strcmp(names[k], labels[i].name) == 0;
        for (size_t i = 0; i < sizeof unlisted / sizeof *unlisted && !known; i++)
            known = strcmp(names[k], unlisted[i]) == 0;
        if (known)
            continue;
        if (!other++)
            rep_md(r, "\n| other attributes | |\n| --- | ---: |\n");
        attr_label a = {"", names[k], names[k], A_NUM};
        attr_row(r, f, &a);
    }
    g5_error_clear();
}

int rep_section_graph(report *r)
{
    char path[REP_PATH];
    io_file *f = NULL;
    int rc;
    G5_TRY(rep_pathf(path, "%s/edges.h5", r->o->dir));
    rep_md(r, "\n## Graph\n");
    if (access(path, F_OK) != 0) {
        rep_md(r, "\nNo edges.h5 in this directory.\n");
        return G5_OK;
    }
    G5_TRY(io_file_open(MPI_COMM_SELF, path, IO_EDGES_FORMAT, IO_EDGES_VERSION, &f));
    attr_tables(r, f, graph_attrs, (int)(sizeof graph_attrs / sizeof *graph_attrs));
out:
    io_file_close(&f);
    return rc;
}

/* Components per log2 size bin, as a table and a plot. */
static int size_distribution(report *r, io_file *f)
{
    int64_t dims[1] = {-1}, *sizes = NULL, bins[64] = {0};
    int rc, maxbin = 0;
    if (io_dataset_check(f, "/component_vertices", H5T_INTEGER, 8, 1, dims) != G5_OK) {
        g5_error_clear();
        rep_md(r, "\n(no /component_vertices dataset: no size distribution)\n");
        return G5_OK;
    }
    sizes = g5_malloc((size_t)(dims[0] ? dims[0] : 1) * sizeof *sizes, "component sizes");
    if (!sizes)
        return G5_ERR_NOMEM;
    G5_TRY(io_read_rows(f, "/component_vertices", H5T_NATIVE_INT64, 0, dims[0], sizes));
    for (int64_t i = 0; i < dims[0]; i++) {
        int b = 0;
        while (b < 62 && ((int64_t)1 << (b + 1)) <= sizes[i]) b++;
        bins[b]++;
        if (b > maxbin) maxbin = b;
    }
    rep_md(r, "\n| component size (vertices) | components |\n| ---: | ---: |\n");
    for (int b = 0; b <= maxbin; b++)
        if (bins[b])
            rep_md(r, "| %lld-%lld | %lld |\n", (long long)1 << b,
                   ((long long)1 << (b + 1)) - 1, (long long)bins[b]);
    rc = rep_plot_components(r, bins, maxbin);
out:
    free(sizes);
    return rc;
}

int rep_section_components(report *r)
{
    char path[REP_PATH];
    io_file *f = NULL;
    int rc;
    G5_TRY(rep_pathf(path, "%s/components.h5", r->o->dir));
    rep_md(r, "\n## Connected components\n");
    if (access(path, F_OK) != 0) {
        rep_md(r, "\nNo components.h5 in this directory.\n");
        return G5_OK;
    }
    G5_TRY(io_file_open(MPI_COMM_SELF, path, "g500-components", 1, &f));
    attr_tables(r, f, comp_attrs, (int)(sizeof comp_attrs / sizeof *comp_attrs));
    rc = size_distribution(r, f);
out:
    io_file_close(&f);
    return rc;
}

/* The placement metrics: every placement file, the three schemes. */
int rep_section_placement(report *r)
{
    static const char *schemes[] = {"placement", "cyclic", "block"};
    static const char *metrics[] = {"cut_edges", "hop_cut", "edge_imbalance", "vertex_imbalance",
                                    "bytes_per_vertex"};
    int rc = G5_OK;
    rep_both(r, "\n## Placement metrics\n\n");
    if (r->nplacements == 0) {
        rep_both(r, "No placement-*.h5 in this directory.\n");
        return G5_OK;
    }
    rep_both(r, "| file | scheme | cut edges | hop-weighted cut | edge imbalance | vertex imbalance "
                "| bytes/vertex |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int p = 0; p < r->nplacements; p++) {
        char path[REP_PATH];
        io_file *f = NULL;
        G5_TRY(rep_pathf(path, "%s/%s", r->o->dir, r->placements[p]));
        G5_TRY(io_file_open(MPI_COMM_SELF, path, "g500-placement", 1, &f));
        for (int s = 0; s < 3; s++) {
            char obj[64], line[1024];
            int k = snprintf(line, sizeof line, "| %s | %s |", r->placements[p], schemes[s]);
            snprintf(obj, sizeof obj, "/metrics/%s", schemes[s]);
            for (int m = 0; m < 5; m++) {
                double v = NAN;
                char num[64];
                if (H5Lexists(io_file_hid(f), "/metrics", H5P_DEFAULT) > 0 &&
                    H5Lexists(io_file_hid(f), obj, H5P_DEFAULT) > 0)
                    rep_attr_number(f, obj, metrics[m], &v);
                rep_fmt_num(num, sizeof num, v);
                k += snprintf(line + k, sizeof line - (size_t)k, " %s |", num);
            }
            rep_both(r, "%s\n", line);
        }
        io_file_close(&f);
    }
    g5_error_clear();
    rep_md(r, "\nComputed by `g500 partition` before any run. Cut edges count input tuples "
              "whose endpoints live on different ranks; the hop-weighted cut weights each by "
              "the switches crossed between the two ranks' nodes. Imbalance is max/mean over "
              "ranks.\n");
out:
    return rc;
}

/* ---- runs ---------------------------------------------------------------- */

static void fmt_range(char *buf, size_t len, const rep_stats *s, int n)
{
    char a[64], b[64];
    if (n <= 0) {
        snprintf(buf, len, "n/a");
        return;
    }
    rep_fmt_num(a, sizeof a, s->min);
    rep_fmt_num(b, sizeof b, s->max);
    snprintf(buf, len, "%s - %s", a, b);
}

/* The series that is the cyclic baseline of components series s, or -1:
 * "components-X" pairs with "cyclic-X". */
static int baseline_of(const report *r, int s)
{
    const char *nm = r->ser[s].name;
    char want[300];
    if (strncmp(nm, "components-", 11) != 0)
        return -1;
    snprintf(want, sizeof want, "cyclic-%s", nm + 11);
    for (int t = 0; t < r->nser; t++)
        if (strcmp(r->ser[t].name, want) == 0)
            return t;
    return -1;
}

/* One kernel's verdict between series a (placed) and b (baseline). */
static void verdict(report *r, const char *kernel, const rep_series *a, const rep_series *b,
                    const rep_stats *sa, const rep_stats *sb, int na, int nb)
{
    char ma[64], mb[64];
    if (na == 0 || nb == 0)
        return;
    rep_fmt_num(ma, sizeof ma, sa->median);
    rep_fmt_num(mb, sizeof mb, sb->median);
    if (na < 2 || nb < 2) {
        rep_both(r, "- %s: %d and %d run%s: no difference can be stated (medians %s and %s; "
                    "REPEATS=3 alternates three runs of each).\n", kernel, na, nb,
                 na + nb == 2 ? "" : "s", ma, mb);
    } else if (sa->min > sb->max || sb->min > sa->max) {
        rep_both(r, "- %s: %s / %s = %.2f (medians %s and %s); the ranges of %d and %d alternated "
                    "runs do not overlap, so the difference held in every run.\n",
                 kernel, a->name, b->name, sa->median / sb->median, ma, mb, na, nb);
    } else {
        rep_both(r, "- %s: the ranges of %d and %d alternated runs overlap (medians %s and %s): "
                    "no difference can be stated from these runs.\n", kernel, na, nb, ma, mb);
    }
}

int rep_section_compare(report *r)
{
    int pairs = 0;
    rep_both(r, "\n## Placements compared\n\n");
    if (r->nser == 0) {
        rep_both(r, "No run-*.json in this directory.\n");
        return G5_OK;
    }
    rep_md(r, "The pipeline alternates the runs of the placements (components 1, cyclic 1, "
              "components 2, ...). A run's figure is its harmonic-mean TEPS over its keys; "
              "a placement's is the median over its runs, with their range (min - max).\n\n");
    rep_both(r, "| placement | runs | BFS TEPS median | BFS TEPS range | SSSP TEPS median | "
                "SSSP TEPS range |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int s = 0; s < r->nser; s++) {
        rep_series *se = &r->ser[s];
        char bm[64], br[160], sm[64], sr[160];
        rep_fmt_num(bm, sizeof bm, se->bfs.median);
        rep_fmt_num(sm, sizeof sm, se->sssp.median);
        fmt_range(br, sizeof br, &se->bfs, se->nbfs);
        fmt_range(sr, sizeof sr, &se->sssp, se->nsssp);
        rep_both(r, "| %s | %d | %s | %s | %s | %s |\n", se->name, se->nruns, bm, br, sm, sr);
    }
    rep_both(r, "\n");
    for (int s = 0; s < r->nser; s++) {
        int t = baseline_of(r, s);
        if (t < 0)
            continue;
        rep_series *a = &r->ser[s], *b = &r->ser[t];
        if (!pairs++)
            rep_both(r, "Components-aware placement against the cyclic baseline:\n");
        verdict(r, "BFS", a, b, &a->bfs, &b->bfs, a->nbfs, b->nbfs);
        verdict(r, "SSSP", a, b, &a->sssp, &b->sssp, a->nsssp, b->nsssp);
    }
    if (r->oversub[0])
        rep_both(r, "%s%s\n", pairs ? "\n" : "", r->oversub);
    return G5_OK;
}

/* "0.125", or "0.125 (strict 0.5)" for a run from a cached placement. */
static void fmt_construction(char *buf, size_t len, const rep_json *j)
{
    char a[64], b[64];
    const rep_json *strict = rep_json_get(j, "strict_construction_time");
    rep_fmt_num(a, sizeof a, rep_json_number(rep_json_get(j, "construction_time"), NAN));
    if (rep_json_type_of(strict) != REP_JSON_NUMBER) {
        snprintf(buf, len, "%s", a);
        return;
    }
    rep_fmt_num(b, sizeof b, rep_json_number(strict, NAN));
    snprintf(buf, len, "%s (strict %s)", a, b);
}

static double matrix_sum(const double *m, int64_t n)
{
    double t = 0;
    if (!m)
        return NAN;
    for (int64_t k = 0; k < n * n; k++)
        t += m[k];
    return t;
}

int rep_section_runs(report *r)
{
    rep_both(r, "\n## Kernel runs\n\n");
    if (r->nruns == 0) {
        rep_both(r, "No run-*.json in this directory.\n");
        return G5_OK;
    }
    rep_both(r, "| run | ranks x threads | BFS harmonic mean TEPS | SSSP harmonic mean TEPS | "
                "construction (s) | bytes sent | hop-weighted bytes | validated | official | "
                "made (UTC) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |\n");
    for (int i = 0; i < r->nruns; i++) {
        run_info *ri = &r->runs[i];
        char num[4][64], rt[64], made[64], con[160];
        const rep_json *val = rep_json_get(ri->json, "validated");
        const rep_json *off = rep_json_get(ri->json, "official");
        rep_fmt_num(num[0], 64, ri->bfs_hmean);
        rep_fmt_num(num[1], 64, ri->sssp_hmean);
        rep_fmt_num(num[2], 64, matrix_sum(ri->bytes, ri->nranks));
        rep_fmt_num(num[3], 64, matrix_sum(ri->hop_bytes, ri->nranks));
        fmt_construction(con, sizeof con, ri->json);
        if (ri->nthreads > 0)
            snprintf(rt, sizeof rt, "%lld x %d", (long long)ri->nranks, ri->nthreads);
        else
            snprintf(rt, sizeof rt, "%lld", (long long)ri->nranks);
        strftime(made, sizeof made, "%Y-%m-%d %H:%M:%S", gmtime(&ri->made));
        rep_both(r, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", ri->name, rt, num[0],
                 num[1], con, num[2], num[3],
                 !val ? "n/a" : rep_json_number(val, 0) != 0 ? "yes" : "NO",
                 !off ? "n/a" : rep_json_number(off, 0) != 0 ? "yes" : "no", made);
    }
    for (int i = 0; i < r->nruns; i++) {
        const rep_json *wt = rep_json_get(r->runs[i].json, "waited_for_other_run");
        if (rep_json_type_of(wt) == REP_JSON_OBJECT)
            rep_both(r, "\n%s waited %g s for another g500 kernel run of this checkout (%s) before it "
                        "started, and did not overlap it.\n", r->runs[i].name,
                     rep_json_number(rep_json_get(wt, "seconds"), NAN),
                     rep_json_string(rep_json_get(wt, "holder"), "holder unknown"));
    }
    rep_md(r, "\nHarmonic means are recomputed from the per-root times and edge counts "
              "(1 / mean(time/nedge)), as the Graph500 reference does. NAME.rI is the I-th "
              "alternated run of NAME. A Graph500 figure is a run marked official: 64 "
              "validated keys and all work derived from the edge list, the components and "
              "the placement included, timed in kernel 1. A run from a cached placement file "
              "did part of that work before its timer; its strict construction time adds the "
              "recorded times of the stages that made the placement.\n");
    for (int s = 0; s < r->nser; s++) {
        const rep_json *why = rep_json_get(r->runs[r->ser[s].first].json, "not_official_reasons");
        if (rep_json_len(why) == 0)
            continue;
        rep_md(r, "\n%s is not an official result:", r->runs[r->ser[s].first].name);
        for (int k = 0; k < rep_json_len(why); k++)
            rep_md(r, "%s %s", k ? ";" : "", rep_json_text(rep_json_at(why, k), "?"));
        rep_md(r, ".\n");
    }
    for (int s = 0; s < r->nser; s++) {
        run_info *ri = &r->runs[r->ser[s].first];
        rep_md(r, "\n### Graph500 output: %s\n\n", ri->name);
        if (ri->block)
            rep_md(r, "```\n%s%s```\n", ri->block, rep_has_suffix(ri->block, "\n") ? "" : "\n");
        else
            rep_md(r, "(no run-%s.txt beside the JSON)\n", ri->name);
    }
    if (r->nruns > r->nser)
        rep_md(r, "\nThe other runs' blocks are in their run-NAME.rI.txt files.\n");
    return G5_OK;
}

/* A JSON value on one table cell: arrays "a, b", objects "k: v, ...",
 * nested ones in parentheses; numbers and ids as written. */
static void md_value(report *r, const rep_json *v, int depth)
{
    rep_json_type t = rep_json_type_of(v);
    int n = rep_json_len(v);
    if (t == REP_JSON_ARRAY || t == REP_JSON_OBJECT) {
        rep_md(r, "%s", depth ? "(" : "");
        for (int k = 0; k < n && depth < 4; k++) {
            rep_md(r, "%s", k ? ", " : "");
            if (t == REP_JSON_OBJECT)
                rep_md(r, "%s: ", rep_json_key_at(v, k));
            md_value(r, rep_json_at(v, k), depth + 1);
        }
        rep_md(r, "%s", depth ? ")" : "");
    } else if (t == REP_JSON_TRUE || t == REP_JSON_FALSE) {
        rep_md(r, "%s", t == REP_JSON_TRUE ? "true" : "false");
    } else {
        rep_md(r, "%s", rep_json_text(v, "null"));
    }
}

/* The provenance object of the first run, one row per key; ids and other
 * numbers as written in the JSON. */
int rep_section_provenance(report *r)
{
    const run_info *ri;
    const rep_json *p;
    if (r->nser == 0)
        return G5_OK;
    ri = &r->runs[r->ser[0].first];
    p = rep_json_get(ri->json, "provenance");
    rep_md(r, "\n## Provenance\n\n");
    if (rep_json_type_of(p) != REP_JSON_OBJECT) {
        rep_md(r, "run-%s.json records no provenance.\n", ri->name);
        return G5_OK;
    }
    rep_md(r, "Of run-%s.json (every run's is in its JSON).\n\n| key | value |\n| --- | --- |\n",
           ri->name);
    for (int i = 0; i < rep_json_len(p); i++) {
        rep_md(r, "| %s | ", rep_json_key_at(p, i));
        md_value(r, rep_json_at(p, i), 0);
        rep_md(r, " |\n");
    }
    return G5_OK;
}
