/* SPDX-License-Identifier: MIT */
/*
 * rep_report.c - `g500 report RESULTS_DIR`: one self-contained Markdown page
 * with its PNG plots from what a pipeline run directory holds; and
 * `--summary`, the same tables on stdout for `make pipeline`.
 *
 * Inputs (all optional; a missing one leaves its section out and says so):
 *   edges.h5            graph parameters (root attributes)
 *   components.h5       the component statistics (root attributes) and
 *                       /component_vertices for the size distribution
 *   placement-*.h5      /metrics/{placement,cyclic,block} attributes, and
 *                       the rank -> node map and node hops for grouping
 *   run-NAME.json       kernel results; NAME labels the series ("cyclic-...",
 *                       "components-fat-tree-4x4-np4-rpn1", ...), NAME.rI the
 *                       I-th alternated repeat; run-NAME.txt, when present,
 *                       is the Graph500 block the run printed
 * The JSON is the kernels' "g500-run" result: bfs.time / bfs.nedge and
 * sssp.* per root, comm.bytes and comm.hop_bytes as nranks x nranks
 * matrices, bfs_levels as objects {level, time, frontier, direction}. A flat
 * layout with the rep_run field names (bfs_time, comm_bytes,
 * bfs_level_time, ...) at any depth is accepted too. Harmonic-mean TEPS are
 * recomputed from the per-root arrays as 1 / mean(time_i / nedge_i)
 * (Graph500 reference, Norris 1940), so the tables do not depend on the
 * writer's statistics block.
 *
 * Output: DIR/report/ with index.md, plots.gp, data/NAME.dat (gnuplot's
 * plain columns, or a matrix for heat maps) and the PNGs gnuplot makes from
 * them (pngcairo). The whole folder is built as DIR/report.tmp.<pid> and
 * renamed into place when complete, so an interrupted report never looks
 * like a finished one. Without gnuplot the page, data and script are still
 * written and the page says how to draw the plots.
 */
#include "rep_report_int.h"

#include "atomic.h"
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int rep_pathf(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, REP_PATH, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= REP_PATH)
        return g5_error(G5_ERR_ARG, "path too long: %.80s...", buf);
    return G5_OK;
}

int rep_has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

void rep_md(report *r, const char *fmt, ...)
{
    va_list ap;
    if (!r->md)
        return;
    va_start(ap, fmt);
    vfprintf(r->md, fmt, ap);
    va_end(ap);
}

void rep_both(report *r, const char *fmt, ...)
{
    va_list ap;
    FILE *out[2] = {r->md, r->also};
    for (int i = 0; i < 2; i++) {
        if (!out[i])
            continue;
        va_start(ap, fmt);
        vfprintf(out[i], fmt, ap);
        va_end(ap);
    }
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

int rep_rm_tree(const char *path)
{
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
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
        if (strncmp(nm, prefix, strlen(prefix)) == 0 && rep_has_suffix(nm, suffix) &&
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

/* The rank x rank matrices; a square one still shows when the rank count
 * is missing or disagrees. */
static void load_comm(run_info *ri)
{
    int64_t n;
    ri->bytes = json_array(field(ri->json, "comm", "bytes", "comm_bytes"), &n);
    if (ri->bytes && ri->nranks * ri->nranks != n) {
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
}

/* NAME.rI: series NAME, repeat I. */
static void split_repeat(run_info *ri)
{
    const char *dot = strrchr(ri->name, '.');
    size_t digits = dot && dot[1] == 'r' ? strspn(dot + 2, "0123456789") : 0;
    memcpy(ri->series, ri->name, sizeof ri->series);
    ri->repeat = 1;
    if (digits > 0 && dot[2 + digits] == '\0' && digits < 6) {
        ri->repeat = atoi(dot + 2);
        ri->series[dot - ri->name] = '\0';
    }
}

static int load_run(report *r, const char *file, run_info *ri)
{
    char path[REP_PATH];
    int64_t n;
    int rc;
    struct stat st;
    size_t len = strlen(file) - strlen("run-") - strlen(".json");
    snprintf(ri->name, sizeof ri->name, "%.*s", (int)len, file + 4);
    split_repeat(ri);
    G5_TRY(rep_pathf(path, "%s/%s", r->o->dir, file));
    G5_TRY(rep_json_load(path, &ri->json));
    ri->made = stat(path, &st) == 0 ? st.st_mtime : 0;
    G5_TRY(rep_pathf(path, "%s/run-%s.txt", r->o->dir, ri->name));
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
    ri->nthreads = (int)rep_json_number(rep_json_get(ri->json, "nthreads"), 0);
    load_comm(ri);
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

/* Series in the order their first run appears (file names sorted), each
 * with the median and range of its runs' harmonic means. */
static void group_series(report *r)
{
    for (int i = 0; i < r->nruns; i++) {
        run_info *ri = &r->runs[i];
        int s = 0;
        while (s < r->nser && strcmp(r->ser[s].name, ri->series) != 0)
            s++;
        if (s == r->nser) {
            snprintf(r->ser[s].name, sizeof r->ser[s].name, "%s", ri->series);
            r->ser[s].first = i;
            r->nser++;
        } else if (ri->repeat < r->runs[r->ser[s].first].repeat) {
            r->ser[s].first = i;
        }
        r->ser[s].nruns++;
    }
    for (int s = 0; s < r->nser; s++) {
        rep_series *se = &r->ser[s];
        double b[REP_MAX_FILES], q[REP_MAX_FILES];
        se->nbfs = se->nsssp = 0;
        for (int i = 0; i < r->nruns; i++) {
            if (strcmp(r->runs[i].series, se->name) != 0)
                continue;
            if (!isnan(r->runs[i].bfs_hmean))
                b[se->nbfs++] = r->runs[i].bfs_hmean;
            if (!isnan(r->runs[i].sssp_hmean))
                q[se->nsssp++] = r->runs[i].sssp_hmean;
        }
        rep_stats_of(b, se->nbfs, &se->bfs);
        rep_stats_of(q, se->nsssp, &se->sssp);
    }
}

/* Distinct hosts a run's provenance names (1 when it names none). */
static int run_hosts(const run_info *ri)
{
    const rep_json *h = rep_json_find(ri->json, "hosts");
    const char *s = rep_json_string(h, NULL);
    int n = 1;
    if (rep_json_type_of(h) == REP_JSON_ARRAY)
        return rep_json_len(h) > 0 ? rep_json_len(h) : 1;
    for (; s && *s; s++)
        n += *s == ',';
    return n;
}

/* The warning every summary carries when ranks x threads exceed the cores
 * of a host. Cores: the run's own record (cores_per_host) if it has one,
 * else this machine's, where the pipeline ran the ranks. */
static void check_oversubscription(report *r)
{
    long here = sysconf(_SC_NPROCESSORS_ONLN);
    r->oversub[0] = '\0';
    for (int i = 0; i < r->nruns; i++) {
        const run_info *ri = &r->runs[i];
        int hosts = run_hosts(ri);
        int threads = ri->nthreads > 0 ? ri->nthreads : 1;
        long per_host = (long)((ri->nranks + hosts - 1) / hosts);
        long cores = (long)rep_json_number(rep_json_find(ri->json, "cores_per_host"), (double)here);
        if (ri->nranks <= 0 || cores <= 0 || per_host * threads <= cores)
            continue;
        snprintf(r->oversub, sizeof r->oversub,
                 "OVERSUBSCRIBED: run-%s.json ran %ld rank%s x %d thread%s per host on %ld core%s: "
                 "the times are not representative (ranks wait for a core), so neither are the "
                 "TEPS or their comparison.", ri->name, per_host, per_host == 1 ? "" : "s",
                 threads, threads == 1 ? "" : "s", cores, cores == 1 ? "" : "s");
        return;
    }
}

/* ---- gnuplot and the folder ------------------------------------------------ */

/* Is cmd a program on PATH (or a path to one)? */
static int have_program(const char *cmd)
{
    const char *path = getenv("PATH");
    char buf[REP_PATH];
    if (strchr(cmd, '/'))
        return access(cmd, X_OK) == 0;
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, cmd) < (int)sizeof buf &&
            access(buf, X_OK) == 0)
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
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
    G5_TRY(rep_pathf(final, "%s/report", r->o->dir));
    G5_TRY(rep_pathf(old, "%s/report.old.%ld", r->o->dir, (long)getpid()));
    if (access(final, F_OK) == 0 && rename(final, old) != 0)
        return g5_error(G5_ERR_IO, "%s: cannot move the old report aside: %s", final, strerror(errno));
    G5_TRY(g5_rename_into_place(r->tmp, final));
    rep_rm_tree(old);
out:
    return rc;
}

static int load_dir(report *r)
{
    char files[REP_MAX_FILES][256];
    int rc, nfiles;
    G5_TRY(list_files(r->o->dir, "placement-", ".h5", r->placements, REP_MAX_FILES, &r->nplacements));
    G5_TRY(list_files(r->o->dir, "run-", ".json", files, REP_MAX_FILES, &nfiles));
    for (int i = 0; i < nfiles; i++) {
        r->nruns++;
        G5_TRY(load_run(r, files[i], &r->runs[r->nruns - 1]));
    }
    group_series(r);
    check_oversubscription(r);
out:
    return rc;
}

static int open_outputs(report *r)
{
    char path[REP_PATH];
    int rc;
    G5_TRY(rep_pathf(path, "%s/index.md", r->tmp));
    if (!(r->md = fopen(path, "w")))
        return g5_error(G5_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    G5_TRY(rep_pathf(path, "%s/plots.gp", r->tmp));
    if (!(r->gp = fopen(path, "w")))
        return g5_error(G5_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
out:
    return rc;
}

static int close_outputs(report *r)
{
    int bad_md = ferror(r->md) | fclose(r->md), bad_gp = ferror(r->gp) | fclose(r->gp);
    r->md = r->gp = NULL;
    if (bad_md || bad_gp)
        return g5_error(G5_ERR_IO, "%s/%s: write failed", r->tmp, bad_md ? "index.md" : "plots.gp");
    return G5_OK;
}

/* The page: the comparison first (what a reader came for), then the runs,
 * the inputs and the plots. */
static int write_page(report *r)
{
    time_t now = time(NULL);
    char date[64];
    int rc;
    fprintf(r->gp, "# gnuplot script written by g500 report; run it in this folder: gnuplot plots.gp\n");
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    rep_md(r, "# g500 report: %s\n\nWritten by `g500 report %s` on %s. Every figure below "
              "comes from the files in this directory; the plots' data are in `data/` and "
              "`plots.gp` redraws them.\n", r->o->dir, r->o->dir, date);
    if (r->oversub[0])
        rep_md(r, "\n**%s**\n", r->oversub);
    G5_TRY(rep_section_compare(r));
    G5_TRY(rep_section_runs(r));
    G5_TRY(rep_section_provenance(r));
    G5_TRY(rep_section_graph(r));
    G5_TRY(rep_section_components(r));
    G5_TRY(rep_section_placement(r));
    rep_md(r, "\n## Plots\n");
    if (!r->have_gnuplot)
        rep_md(r, "\nThe plots were not drawn: %s. Install gnuplot with the pngcairo terminal "
                  "(Debian/Ubuntu: `apt-get install gnuplot-nox`), then run `gnuplot plots.gp` "
                  "in this folder or `g500 report %s` again.\n",
               r->o->plots ? "gnuplot was not found" : "--no-plots was given", r->o->dir);
    G5_TRY(rep_plot_spread(r));
    G5_TRY(rep_plot_teps(r));
    G5_TRY(rep_plot_heatmaps(r));
    G5_TRY(rep_plot_hops(r));
    G5_TRY(rep_plot_levels(r));
out:
    return rc;
}

static int write_report(report *r)
{
    char path[REP_PATH];
    int rc, made_tmp = 0;
    const rep_options *o = r->o;
    const char *cmd = o->gnuplot ? o->gnuplot : "gnuplot";
    r->have_gnuplot = o->plots && have_program(cmd);
    G5_TRY(rep_pathf(path, "%s/report", o->dir));
    G5_TRY(g5_tmp_path(r->tmp, sizeof r->tmp, path, (long)getpid()));
    G5_TRY(rep_pathf(path, "%s/data", r->tmp));
    if (mkdir(r->tmp, 0777) != 0 || (made_tmp = 1, mkdir(path, 0777) != 0)) {
        rc = g5_error(G5_ERR_IO, "%s: cannot create: %s", r->tmp, strerror(errno));
        goto out;
    }
    G5_TRY(load_dir(r));
    G5_TRY(open_outputs(r));
    G5_TRY(write_page(r));
    G5_TRY(close_outputs(r));
    if (r->have_gnuplot)
        G5_TRY(run_gnuplot(r));
    else if (o->plots)
        fprintf(stderr, "g500 report: %s not found: the page and plots.gp are written, the PNGs "
                        "are not (install gnuplot, then rerun)\n", cmd);
    G5_TRY(commit_dir(r));
    made_tmp = 0;
    if (r->also)
        fprintf(r->also, "Files: %s/ (edges.h5, components.h5, placement-*.h5, run-*.json, run-*.txt)\n"
                         "Report: %s/report/index.md\n", o->dir, o->dir);
out:
    if (r->md) fclose(r->md);
    if (r->gp) fclose(r->gp);
    r->md = r->gp = NULL;
    if (made_tmp)
        rep_rm_tree(r->tmp);
    return rc;
}

/* --summary: the comparison, the runs and the placement table on stdout. */
static int write_summary(report *r)
{
    int rc;
    G5_TRY(load_dir(r));
    G5_TRY(rep_section_compare(r));
    G5_TRY(rep_section_runs(r));
    G5_TRY(rep_section_placement(r));
out:
    return rc;
}

int rep_write_report(const rep_options *o)
{
    report *r;
    struct stat st;
    int rc;
    if (!o || !o->dir || stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return g5_error(G5_ERR_ARG, "%s: not a results directory", o && o->dir ? o->dir : "(none)");
    r = g5_calloc(1, sizeof *r, "report");
    if (!r)
        return G5_ERR_NOMEM;
    r->o = o;
    r->also = o->summary ? stdout : o->quiet ? NULL : stdout;
    rc = o->summary ? write_summary(r) : write_report(r);
    for (int i = 0; i < r->nruns; i++)
        free_run(&r->runs[i]);
    free(r);
    return rc;
}
