/* SPDX-License-Identifier: MIT */
/*
 * rep_report.c - `g500 report RESULTS_DIR`: one self-contained Markdown page
 * with its PNG plots from what a pipeline run directory holds.
 *
 * Inputs (all optional; a missing one leaves its section out and says so):
 *   edges.h5            graph parameters (root attributes)
 *   components.h5       every root attribute (the component statistics) and
 *                       /component_vertices for the size distribution
 *   placement-*.h5      /metrics/{placement,cyclic,block} attributes
 *   run-NAME.json       kernel results; NAME labels the series ("cyclic",
 *                       "fat-tree-4x4-np4-rpn1", ...); run-NAME.txt, when
 *                       present, is the Graph500 block the run printed
 * The JSON is the kernels' "g500-run" result (report/rep_json.c):
 * bfs.time / bfs.nedge and sssp.* per root, comm.bytes and comm.hop_bytes
 * as nranks x nranks matrices, bfs_levels as objects {level, time,
 * frontier, direction}. A flat layout with the rep_run field names
 * (bfs_time, comm_bytes, bfs_level_time, ...) at any depth is accepted too.
 * Harmonic-mean TEPS are recomputed from the per-root arrays as
 * 1 / mean(time_i / nedge_i) (Graph500 reference, Norris 1940),
 * so the table does not depend on the writer's statistics block.
 *
 * Output: DIR/report/ with index.md, plots.gp, data/NAME.dat (gnuplot's
 * plain columns, or a matrix for heat maps) and the PNGs gnuplot makes from
 * them (pngcairo). The whole folder is built as DIR/report.tmp.<pid> and
 * renamed into place when complete, so an interrupted report never looks
 * like a finished one.
 */
#include "report.h"

#include "atomic.h"
#include "common.h"
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REP_PATH 4096
#define REP_MAX_FILES 64

typedef struct run_info {
    char name[256];          /* NAME of run-NAME.json */
    rep_json *json;
    char *block;             /* run-NAME.txt contents, or NULL */
    int nroots;
    double *bfs_teps, *sssp_teps;   /* [nroots], NaN where absent */
    double bfs_hmean, sssp_hmean;
    int64_t nranks;
    double *bytes, *hop_bytes;      /* [nranks*nranks] or NULL */
    double *level_time;             /* [nlevels] or NULL */
    double *level_front;            /* [nlevels] or NULL */
    const char **level_dir;         /* [nlevels] into json, or NULL */
    int nlevels;
} run_info;

typedef struct report {
    const rep_options *o;
    char tmp[REP_PATH];      /* DIR/report.tmp.<pid> */
    FILE *md, *gp;
    run_info runs[REP_MAX_FILES];
    int nruns;
    char placements[REP_MAX_FILES][256];
    int nplacements;
} report;

static int pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pathf(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, REP_PATH, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= REP_PATH)
        return g5_error(G5_ERR_ARG, "path too long: %.80s...", buf);
    return G5_OK;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

/* Remove a folder tree (the report's own temporary or old folder). */
static void rm_tree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Sorted names in dir that start with prefix and end with suffix. */
static int list_files(const char *dir, const char *prefix, const char *suffix,
                      char names[][256], int max, int *n)
{
    struct dirent **ents = NULL;
    int k = scandir(dir, &ents, NULL, alphasort);
    *n = 0;
    if (k < 0)
        return g5_error(G5_ERR_IO, "%s: cannot list: %s", dir, strerror(errno));
    for (int i = 0; i < k; i++) {
        const char *nm = ents[i]->d_name;
        if (strncmp(nm, prefix, strlen(prefix)) == 0 && has_suffix(nm, suffix) &&
            strlen(nm) < 256 && *n < max && !strstr(nm, ".tmp."))
            snprintf(names[(*n)++], 256, "%s", nm);
        free(ents[i]);
    }
    free(ents);
    return G5_OK;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) != NULL) {
        size_t got = fread(buf, 1, (size_t)n, f);
        buf[got] = '\0';
    }
    fclose(f);
    return buf;
}

/* A numeric root attribute of any integer or float type; 0 if absent. */
static int attr_number(io_file *f, const char *obj, const char *name, double *v)
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

/* Numbers as people read them: integers whole, others with 4 digits. */
static void fmt_num(char *buf, size_t len, double v)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.4g", v);
}

/* ---- runs ---------------------------------------------------------------- */

/* group.key of the g500-run schema, or the flat name anywhere. */
static const rep_json *field(const rep_json *root, const char *group, const char *key,
                             const char *flat)
{
    const rep_json *v = rep_json_get(rep_json_get(root, group), key);
    return v ? v : rep_json_find(root, flat);
}

static double *json_array(const rep_json *a, int64_t *n)
{
    int64_t k = rep_json_numbers(a, NULL, 0);
    double *v;
    *n = 0;
    if (k <= 0)
        return NULL;
    v = malloc((size_t)k * sizeof *v);
    if (!v)
        return NULL;
    rep_json_numbers(a, v, k);
    *n = k;
    return v;
}

/* TEPS per root = nedge / time; harmonic mean = 1 / mean(time / nedge). */
static double *teps_of(const rep_json *root, const char *kernel, int n, double *hmean)
{
    char flat_t[32], flat_m[32];
    int64_t nt, nm;
    snprintf(flat_t, sizeof flat_t, "%s_time", kernel);
    snprintf(flat_m, sizeof flat_m, "%s_nedge", kernel);
    double *t = json_array(field(root, kernel, "time", flat_t), &nt);
    double *m = json_array(field(root, kernel, "nedge", flat_m), &nm), *teps = NULL;
    double sum = 0;
    int cnt = 0;
    *hmean = NAN;
    if (t && m && nt >= n && nm >= n && n > 0 && (teps = malloc((size_t)n * sizeof *teps))) {
        for (int i = 0; i < n; i++) {
            teps[i] = t[i] > 0 && m[i] > 0 ? m[i] / t[i] : NAN;
            if (!isnan(teps[i])) {
                sum += t[i] / m[i];
                cnt++;
            }
        }
        if (cnt)
            *hmean = cnt / sum;
    }
    free(t);
    free(m);
    return teps;
}

/* Per-level BFS data: bfs_levels [{level, time, frontier, direction}], or
 * the flat bfs_level_time / bfs_level_frontier / bfs_level_dir arrays. */
static void load_levels(run_info *ri)
{
    const rep_json *lv = rep_json_get(ri->json, "bfs_levels");
    int64_t n = 0, nf = 0;
    if (rep_json_type_of(lv) == REP_JSON_ARRAY &&
        rep_json_type_of(rep_json_at(lv, 0)) == REP_JSON_OBJECT) {
        n = rep_json_len(lv);
        ri->level_time = malloc((size_t)n * sizeof(double));
        ri->level_front = malloc((size_t)n * sizeof(double));
        ri->level_dir = malloc((size_t)n * sizeof(char *));
        if (!ri->level_time || !ri->level_front || !ri->level_dir)
            n = 0;
        for (int64_t i = 0; i < n; i++) {
            const rep_json *e = rep_json_at(lv, (int)i);
            ri->level_time[i] = rep_json_number(rep_json_get(e, "time"), NAN);
            ri->level_front[i] = rep_json_number(rep_json_get(e, "frontier"), NAN);
            ri->level_dir[i] = rep_json_string(rep_json_get(e, "direction"), "-");
        }
    } else {
        ri->level_time = json_array(rep_json_find(ri->json, "bfs_level_time"), &n);
        ri->level_front = json_array(rep_json_find(ri->json, "bfs_level_frontier"), &nf);
        const rep_json *dir = rep_json_find(ri->json, "bfs_level_dir");
        if (n > 0 && (ri->level_dir = malloc((size_t)n * sizeof(char *))) != NULL)
            for (int64_t i = 0; i < n; i++)
                ri->level_dir[i] = rep_json_string(rep_json_at(dir, (int)i), "-");
        if (ri->level_front && nf < n) {
            free(ri->level_front);
            ri->level_front = NULL;
        }
    }
    ri->nlevels = (int)n;
    if (n == 0) {
        free(ri->level_time);
        free(ri->level_front);
        free(ri->level_dir);
        ri->level_time = ri->level_front = NULL;
        ri->level_dir = NULL;
    }
}

static int load_run(report *r, const char *file, run_info *ri)
{
    char path[REP_PATH];
    int64_t n;
    int rc;
    size_t len = strlen(file) - strlen("run-") - strlen(".json");
    snprintf(ri->name, sizeof ri->name, "%.*s", (int)len, file + 4);
    G5_TRY(pathf(path, "%s/%s", r->o->dir, file));
    G5_TRY(rep_json_load(path, &ri->json));
    G5_TRY(pathf(path, "%s/run-%s.txt", r->o->dir, ri->name));
    ri->block = slurp(path);
    ri->nroots = (int)rep_json_number(rep_json_get(ri->json, "nroots"), -1);
    if (ri->nroots < 0) {
        double *t = json_array(field(ri->json, "bfs", "time", "bfs_time"), &n);
        ri->nroots = (int)n;
        free(t);
    }
    ri->bfs_teps = teps_of(ri->json, "bfs", ri->nroots, &ri->bfs_hmean);
    ri->sssp_teps = teps_of(ri->json, "sssp", ri->nroots, &ri->sssp_hmean);
    ri->nranks = (int64_t)rep_json_number(rep_json_get(ri->json, "nranks"), 0);
    ri->bytes = json_array(field(ri->json, "comm", "bytes", "comm_bytes"), &n);
    if (ri->bytes && ri->nranks * ri->nranks != n) {
        /* No rank count, or one that disagrees: a square matrix still shows. */
        int64_t s = (int64_t)llround(sqrt((double)n));
        if (s * s == n) {
            ri->nranks = s;
        } else {
            free(ri->bytes);
            ri->bytes = NULL;
        }
    }
    ri->hop_bytes = json_array(field(ri->json, "comm", "hop_bytes", "comm_hop_bytes"), &n);
    if (ri->hop_bytes && (!ri->bytes || n != ri->nranks * ri->nranks)) {
        free(ri->hop_bytes);
        ri->hop_bytes = NULL;
    }
    load_levels(ri);
    rc = G5_OK;
out:
    return rc;
}

static void free_run(run_info *ri)
{
    rep_json_free(&ri->json);
    free(ri->block);
    free(ri->bfs_teps);
    free(ri->sssp_teps);
    free(ri->bytes);
    free(ri->hop_bytes);
    free(ri->level_time);
    free(ri->level_front);
    free(ri->level_dir);
    memset(ri, 0, sizeof *ri);
}

/* ---- data files and gnuplot ------------------------------------------------ */

static FILE *open_data(report *r, const char *name)
{
    char path[REP_PATH];
    FILE *f;
    if (pathf(path, "%s/data/%s", r->tmp, name) != G5_OK)
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
    fprintf(r->md, "\n![%s](%s)\n", alt, png);
}

typedef struct attr_names {
    char name[128][64];
    int n;
} attr_names;

static herr_t collect_name(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    attr_names *a = data;
    (void)loc; (void)info;
    if (a->n < 128 && strlen(name) < 64)
        snprintf(a->name[a->n++], 64, "%s", name);
    return 0;
}

/* Component size distribution: number of components per log2 size bin. */
static int section_components(report *r)
{
    char path[REP_PATH], num[64];
    io_file *f = NULL;
    int rc;
    int64_t dims[1] = {-1}, *sizes = NULL, bins[64] = {0};
    FILE *d = NULL;

    G5_TRY(pathf(path, "%s/components.h5", r->o->dir));
    fprintf(r->md, "\n## Connected components\n\n");
    if (access(path, F_OK) != 0) {
        fprintf(r->md, "No components.h5 in this directory.\n");
        return G5_OK;
    }
    G5_TRY(io_file_open(MPI_COMM_SELF, path, "g500-components", 1, &f));
    /* Every root attribute: the statistics the components stage recorded. */
    attr_names names = {0};
    hsize_t idx = 0;
    H5Aiterate2(io_file_hid(f), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_name, &names);
    fprintf(r->md, "| statistic | value |\n| --- | --- |\n");
    for (int i = 0; i < names.n; i++) {
        char sval[256];
        double v;
        if (attr_number(f, "/", names.name[i], &v)) {
            fmt_num(num, sizeof num, v);
            fprintf(r->md, "| %s | %s |\n", names.name[i], num);
        } else if (io_attr_read_string(f, "/", names.name[i], sval, sizeof sval) == G5_OK) {
            fprintf(r->md, "| %s | %s |\n", names.name[i], sval);
        }
    }
    g5_error_clear();
    if (io_dataset_check(f, "/component_vertices", H5T_INTEGER, 8, 1, dims) != G5_OK) {
        fprintf(r->md, "\n(no /component_vertices dataset: no size distribution)\n");
        rc = G5_OK;
        goto out;
    }
    sizes = g5_malloc((size_t)(dims[0] ? dims[0] : 1) * sizeof *sizes, "component sizes");
    if (!sizes) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
    G5_TRY(io_read_rows(f, "/component_vertices", H5T_NATIVE_INT64, 0, dims[0], sizes));
    int maxbin = 0;
    for (int64_t i = 0; i < dims[0]; i++) {
        int b = 0;
        while (b < 62 && ((int64_t)1 << (b + 1)) <= sizes[i]) b++;
        bins[b]++;
        if (b > maxbin) maxbin = b;
    }
    fprintf(r->md, "\n| component size | components |\n| --- | --- |\n");
    if (!(d = open_data(r, "components.dat"))) {
        rc = G5_ERR_IO;
        goto out;
    }
    fprintf(d, "# log2_bin size_low size_high components\n");
    for (int b = 0; b <= maxbin; b++) {
        int64_t lo = (int64_t)1 << b, hi = ((int64_t)1 << (b + 1)) - 1;
        fprintf(d, "%d %lld %lld %lld\n", b, (long long)lo, (long long)hi, (long long)bins[b]);
        if (bins[b])
            fprintf(r->md, "| %lld-%lld | %lld |\n", (long long)lo, (long long)hi, (long long)bins[b]);
    }
    rc = close_data(d, "components.dat");
    d = NULL;
    if (rc != G5_OK)
        goto out;
    gp_begin(r, "components.png", "Component size distribution (non-isolated components)", 800, 500);
    fprintf(r->gp, "set logscale y\nset xlabel 'component size (vertices, log2 bin)'\n"
                   "set ylabel 'components'\nset style fill solid 0.6\nset boxwidth 0.8\n"
                   "set yrange [0.5:*]\nunset key\n"
                   "plot 'data/components.dat' using 1:($4 > 0 ? $4 : 1/0):xtic(sprintf('2^%%d', $1)) with boxes\n");
    md_image(r, "components.png", "component size distribution");
out:
    if (d)
        fclose(d);
    free(sizes);
    io_file_close(&f);
    return rc;
}

static int section_graph(report *r)
{
    char path[REP_PATH], num[64];
    const char *keys[] = {"scale", "edgefactor", "nvertices", "nedges", "seed", "generation_seconds"};
    io_file *f = NULL;
    int rc;
    G5_TRY(pathf(path, "%s/edges.h5", r->o->dir));
    fprintf(r->md, "\n## Graph\n\n");
    if (access(path, F_OK) != 0) {
        fprintf(r->md, "No edges.h5 in this directory.\n");
        return G5_OK;
    }
    G5_TRY(io_file_open(MPI_COMM_SELF, path, "g500-edges", 1, &f));
    fprintf(r->md, "| parameter | value |\n| --- | --- |\n");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double v;
        if (attr_number(f, "/", keys[i], &v)) {
            fmt_num(num, sizeof num, v);
            fprintf(r->md, "| %s | %s |\n", keys[i], num);
        }
    }
    g5_error_clear();
out:
    io_file_close(&f);
    return rc;
}

/* The placement comparison: every placement file, the three schemes. */
static int section_placement(report *r, FILE *also)
{
    static const char *schemes[] = {"placement", "cyclic", "block"};
    static const char *metrics[] = {"cut_edges", "hop_cut", "edge_imbalance", "vertex_imbalance",
                                    "bytes_per_vertex"};
    const char *head = "| file | scheme | cut edges | hop-weighted cut | edge imbalance | "
                       "vertex imbalance | bytes/vertex |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n";
    int rc = G5_OK;
    fprintf(r->md, "\n## Placement comparison\n\n");
    if (r->nplacements == 0) {
        fprintf(r->md, "No placement-*.h5 in this directory.\n");
        return G5_OK;
    }
    fprintf(r->md, "%s", head);
    if (also)
        fprintf(also, "Placement comparison:\n%s", head);
    for (int p = 0; p < r->nplacements; p++) {
        char path[REP_PATH];
        io_file *f = NULL;
        G5_TRY(pathf(path, "%s/%s", r->o->dir, r->placements[p]));
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
                    attr_number(f, obj, metrics[m], &v);
                fmt_num(num, sizeof num, v);
                k += snprintf(line + k, sizeof line - (size_t)k, " %s |", num);
            }
            fprintf(r->md, "%s\n", line);
            if (also)
                fprintf(also, "%s\n", line);
        }
        io_file_close(&f);
    }
    g5_error_clear();
    fprintf(r->md, "\nCut edges count input tuples whose endpoints live on different ranks; the "
                   "hop-weighted cut weights each by the switches crossed between the two ranks' "
                   "nodes. Imbalance is max/mean over ranks.\n");
out:
    return rc;
}

static int section_runs(report *r, FILE *also)
{
    char num[5][64];
    const char *head = "| run | ranks | BFS harmonic mean TEPS | SSSP harmonic mean TEPS | "
                       "construction (s) | bytes sent | hop-weighted bytes | validated |\n"
                       "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
    fprintf(r->md, "\n## Kernel runs\n\n");
    if (r->nruns == 0) {
        fprintf(r->md, "No run-*.json in this directory.\n");
        return G5_OK;
    }
    fprintf(r->md, "%s", head);
    if (also)
        fprintf(also, "Kernel runs:\n%s", head);
    for (int i = 0; i < r->nruns; i++) {
        run_info *ri = &r->runs[i];
        double tot = NAN, hop = NAN;
        int64_t nn = ri->nranks * ri->nranks;
        if (ri->bytes) {
            tot = 0;
            for (int64_t k = 0; k < nn; k++) tot += ri->bytes[k];
        }
        if (ri->hop_bytes) {
            hop = 0;
            for (int64_t k = 0; k < nn; k++) hop += ri->hop_bytes[k];
        }
        fmt_num(num[0], 64, ri->bfs_hmean);
        fmt_num(num[1], 64, ri->sssp_hmean);
        fmt_num(num[2], 64, tot);
        fmt_num(num[3], 64, hop);
        fmt_num(num[4], 64, rep_json_number(rep_json_get(ri->json, "construction_time"), NAN));
        const rep_json *val = rep_json_get(ri->json, "validated");
        char line[1024];
        snprintf(line, sizeof line, "| %s | %lld | %s | %s | %s | %s | %s | %s |", ri->name,
                 (long long)ri->nranks, num[0], num[1], num[4], num[2], num[3],
                 !val ? "n/a" : rep_json_number(val, 0) != 0 ? "yes" : "NO");
        fprintf(r->md, "%s\n", line);
        if (also)
            fprintf(also, "%s\n", line);
    }
    fprintf(r->md, "\nHarmonic means are recomputed from the per-root times and edge counts "
                   "(1 / mean(time/nedge)), as the Graph500 reference does.\n");
    for (int i = 0; i < r->nruns; i++) {
        fprintf(r->md, "\n### Graph500 output: %s\n\n", r->runs[i].name);
        if (r->runs[i].block)
            fprintf(r->md, "```\n%s%s```\n", r->runs[i].block,
                    has_suffix(r->runs[i].block, "\n") ? "" : "\n");
        else
            fprintf(r->md, "(no run-%s.txt beside the JSON)\n", r->runs[i].name);
    }
    return G5_OK;
}

static int plot_teps(report *r)
{
    int rc = G5_OK, any[2] = {0, 0};
    for (int i = 0; i < r->nruns; i++) {
        run_info *ri = &r->runs[i];
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
    }
    for (int kind = 0; kind < 2; kind++) {
        const char *k = kind ? "sssp" : "bfs";
        char png[64];
        if (!any[kind])
            continue;
        snprintf(png, sizeof png, "teps-%s.png", k);
        gp_begin(r, png, kind ? "SSSP TEPS per root" : "BFS TEPS per root", 900, 500);
        fprintf(r->gp, "set logscale y\nset xlabel 'root index'\nset ylabel 'TEPS'\nplot ");
        int first = 1;
        for (int i = 0; i < r->nruns; i++) {
            if (!(kind ? r->runs[i].sssp_teps : r->runs[i].bfs_teps))
                continue;
            fprintf(r->gp, "%s'data/teps-%s.dat' using 1:%d with linespoints pt 7 ps 0.5 title '%s'",
                    first ? "" : ", \\\n     ", r->runs[i].name, kind ? 3 : 2, r->runs[i].name);
            first = 0;
        }
        fprintf(r->gp, "\n");
        md_image(r, png, kind ? "SSSP TEPS per root" : "BFS TEPS per root");
    }
    return rc;
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

static int plot_heatmaps(report *r)
{
    int rc;
    for (int i = 0; i < r->nruns; i++) {
        run_info *ri = &r->runs[i];
        char name[300], png[300];
        if (!ri->bytes)
            continue;
        snprintf(name, sizeof name, "bytes-%s.dat", ri->name);
        if ((rc = write_matrix(r, name, ri->bytes, ri->nranks)) != G5_OK)
            return rc;
        if (ri->hop_bytes) {
            snprintf(name, sizeof name, "hopbytes-%s.dat", ri->name);
            if ((rc = write_matrix(r, name, ri->hop_bytes, ri->nranks)) != G5_OK)
                return rc;
        }
        snprintf(png, sizeof png, "heatmap-%s.png", ri->name);
        gp_begin(r, png, "", ri->hop_bytes ? 1200 : 650, 550);
        fprintf(r->gp, "unset title\nunset grid\nset xlabel 'to rank'\nset ylabel 'from rank'\n"
                       "set xrange [-0.5:%lld-0.5]\nset yrange [%lld-0.5:-0.5]\n"
                       "set palette rgb 21,22,23\nset xtics 1\nset ytics 1\nset cblabel 'bytes'\nunset key\n",
                (long long)ri->nranks, (long long)ri->nranks);
        if (ri->hop_bytes)
            fprintf(r->gp, "set multiplot layout 1,2 title '%s: bytes sent (left), hop-weighted "
                           "bytes (right)'\n", ri->name);
        else
            fprintf(r->gp, "set title '%s: bytes sent'\n", ri->name);
        fprintf(r->gp, "plot 'data/bytes-%s.dat' matrix with image\n", ri->name);
        if (ri->hop_bytes)
            fprintf(r->gp, "set cblabel 'hop-weighted bytes'\n"
                           "plot 'data/hopbytes-%s.dat' matrix with image\nunset multiplot\n",
                    ri->name);
        md_image(r, png, "rank x rank communication");
    }
    return G5_OK;
}

static int plot_levels(report *r)
{
    int rc, any = 0;
    for (int i = 0; i < r->nruns; i++) {
        run_info *ri = &r->runs[i];
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
    gp_begin(r, "bfs-levels.png", "BFS time per level (first root)", 900, 500);
    fprintf(r->gp, "set logscale y\nset xlabel 'level'\nset ylabel 'seconds'\nplot ");
    int first = 1;
    for (int i = 0; i < r->nruns; i++) {
        if (!r->runs[i].level_time)
            continue;
        fprintf(r->gp, "%s'data/levels-%s.dat' using 1:2 with linespoints pt 7 title '%s'",
                first ? "" : ", \\\n     ", r->runs[i].name, r->runs[i].name);
        first = 0;
    }
    fprintf(r->gp, "\n");
    md_image(r, "bfs-levels.png", "BFS time per level");
    return G5_OK;
}

static int run_gnuplot(report *r)
{
    const char *cmd = r->o->gnuplot ? r->o->gnuplot : "gnuplot";
    int status;
    pid_t pid;
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return g5_error(G5_ERR_IO, "cannot start %s: %s", cmd, strerror(errno));
    if (pid == 0) {
        if (chdir(r->tmp) == 0)
            execlp(cmd, cmd, "plots.gp", (char *)NULL);
        fprintf(stderr, "g500 report: cannot run '%s': %s\n", cmd, strerror(errno));
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0)
        return g5_error(G5_ERR_IO, "waiting for %s: %s", cmd, strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return g5_error(G5_ERR_IO, "%s plots.gp failed (exit %d) in %s: is gnuplot with the pngcairo "
                        "terminal installed? (--no-plots skips the plots)",
                        cmd, WIFEXITED(status) ? WEXITSTATUS(status) : -1, r->tmp);
    return G5_OK;
}

/* Swap the finished temporary folder into DIR/report. */
static int commit_dir(report *r)
{
    char final[REP_PATH], old[REP_PATH];
    int rc;
    G5_TRY(pathf(final, "%s/report", r->o->dir));
    G5_TRY(pathf(old, "%s/report.old.%ld", r->o->dir, (long)getpid()));
    if (access(final, F_OK) == 0 && rename(final, old) != 0)
        return g5_error(G5_ERR_IO, "%s: cannot move the old report aside: %s", final, strerror(errno));
    G5_TRY(g5_rename_into_place(r->tmp, final));
    rm_tree(old);
out:
    return rc;
}

int rep_write_report(const rep_options *o)
{
    report *r;
    char path[REP_PATH], files[REP_MAX_FILES][256];
    int rc, nfiles, made_tmp = 0;
    struct stat st;
    FILE *also;
    time_t now = time(NULL);
    char date[64];

    if (!o || !o->dir || stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return g5_error(G5_ERR_ARG, "%s: not a results directory", o && o->dir ? o->dir : "(none)");
    r = g5_calloc(1, sizeof *r, "report");
    if (!r)
        return G5_ERR_NOMEM;
    r->o = o;
    also = o->quiet ? NULL : stdout;
    G5_TRY(pathf(path, "%s/report", o->dir));
    G5_TRY(g5_tmp_path(r->tmp, sizeof r->tmp, path, (long)getpid()));
    G5_TRY(pathf(path, "%s/data", r->tmp));
    if (mkdir(r->tmp, 0777) != 0 || (made_tmp = 1, mkdir(path, 0777) != 0)) {
        rc = g5_error(G5_ERR_IO, "%s: cannot create: %s", r->tmp, strerror(errno));
        goto out;
    }
    G5_TRY(list_files(o->dir, "placement-", ".h5", r->placements, REP_MAX_FILES, &r->nplacements));
    G5_TRY(list_files(o->dir, "run-", ".json", files, REP_MAX_FILES, &nfiles));
    for (int i = 0; i < nfiles; i++) {
        r->nruns++;
        G5_TRY(load_run(r, files[i], &r->runs[r->nruns - 1]));
    }

    G5_TRY(pathf(path, "%s/index.md", r->tmp));
    if (!(r->md = fopen(path, "w"))) {
        rc = g5_error(G5_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        goto out;
    }
    G5_TRY(pathf(path, "%s/plots.gp", r->tmp));
    if (!(r->gp = fopen(path, "w"))) {
        rc = g5_error(G5_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        goto out;
    }
    fprintf(r->gp, "# gnuplot script written by g500 report; run it in this folder: gnuplot plots.gp\n");
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", localtime(&now));
    fprintf(r->md, "# g500 report: %s\n\nWritten by `g500 report %s` on %s. Every figure below "
                   "comes from the files in this directory; the plots' data are in `data/` and "
                   "`plots.gp` redraws them.\n",
            o->dir, o->dir, date);
    G5_TRY(section_runs(r, also));
    G5_TRY(section_graph(r));
    G5_TRY(section_components(r));
    G5_TRY(section_placement(r, also));
    fprintf(r->md, "\n## Plots\n");
    G5_TRY(plot_teps(r));
    G5_TRY(plot_heatmaps(r));
    G5_TRY(plot_levels(r));
    if (ferror(r->md) | fclose(r->md)) {
        r->md = NULL;
        rc = g5_error(G5_ERR_IO, "%s/index.md: write failed", r->tmp);
        goto out;
    }
    r->md = NULL;
    if (ferror(r->gp) | fclose(r->gp)) {
        r->gp = NULL;
        rc = g5_error(G5_ERR_IO, "%s/plots.gp: write failed", r->tmp);
        goto out;
    }
    r->gp = NULL;
    if (o->plots)
        G5_TRY(run_gnuplot(r));
    G5_TRY(commit_dir(r));
    made_tmp = 0;
    if (also)
        fprintf(also, "Files: %s/ (edges.h5, components.h5, placement-*.h5, run-*.json, run-*.txt)\n"
                      "Report: %s/report/index.md\n", o->dir, o->dir);
out:
    if (r->md) fclose(r->md);
    if (r->gp) fclose(r->gp);
    if (made_tmp)
        rm_tree(r->tmp);
    for (int i = 0; i < r->nruns; i++)
        free_run(&r->runs[i]);
    free(r);
    return rc;
}
