/* SPDX-License-Identifier: MIT */
/*
 * report_json.c - the JSON result of a run (schema: "g500-run" version 1,
 * every key documented in docs/validation.md; the report
 * command reads it).
 *
 * A small streaming emitter: a nesting stack remembers whether a comma is
 * due; strings are escaped per RFC 8259 (quote, backslash, control
 * characters as \u00XX; other bytes passed through, so UTF-8 stays UTF-8);
 * doubles are printed with %.17g, which round-trips every binary64 value;
 * NaN and infinities, which JSON cannot express, are written as null.
 *
 * Atomic write: the file is written to "<path>.tmp.<pid>", flushed, synced
 * and closed, and only then renamed to path; any failure removes the
 * temporary file, so a reader never sees half a result.
 */
#include "rep_run.h"

#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JSON_MAXDEPTH 16

typedef struct json {
    FILE *f;
    int depth;
    int count[JSON_MAXDEPTH]; /* items already written at each level */
    int after_key;            /* a key was written: the next value needs no comma */
} json;

static void j_sep(json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0 && j->count[j->depth - 1]++ > 0)
        fputc(',', j->f);
    if (j->depth > 0) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
}

static void j_rawstr(json *j, const char *s)
{
    fputc('"', j->f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", j->f); break;
        case '\\': fputs("\\\\", j->f); break;
        case '\n': fputs("\\n", j->f); break;
        case '\r': fputs("\\r", j->f); break;
        case '\t': fputs("\\t", j->f); break;
        case '\b': fputs("\\b", j->f); break;
        case '\f': fputs("\\f", j->f); break;
        default:
            if (*p < 0x20)
                fprintf(j->f, "\\u%04x", *p);
            else
                fputc(*p, j->f);
        }
    }
    fputc('"', j->f);
}

static void j_open(json *j, char c)
{
    j_sep(j);
    fputc(c, j->f);
    if (j->depth < JSON_MAXDEPTH)
        j->count[j->depth] = 0;
    j->depth++;
}

static void j_close(json *j, char c)
{
    int had = j->count[j->depth - 1];
    j->depth--;
    if (had) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
}

static void j_key(json *j, const char *k)
{
    j_sep(j);
    j_rawstr(j, k);
    fputs(": ", j->f);
    j->after_key = 1;
}

static void j_str(json *j, const char *s)
{
    j_sep(j);
    if (s)
        j_rawstr(j, s);
    else
        fputs("null", j->f);
}

static void j_num(json *j, double v)
{
    j_sep(j);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}

static void j_int(json *j, int64_t v)
{
    j_sep(j);
    fprintf(j->f, "%lld", (long long)v);
}

static void j_bool(json *j, int v)
{
    j_sep(j);
    fputs(v ? "true" : "false", j->f);
}

static void j_null(json *j)
{
    j_sep(j);
    fputs("null", j->f);
}

/* Arrays are written one line each: compact for 64 roots, still readable. */
static void j_num_array(json *j, const double *v, int64_t n)
{
    if (!v) {
        j_null(j);
        return;
    }
    j_sep(j);
    fputc('[', j->f);
    for (int64_t i = 0; i < n; i++) {
        if (i) fputs(", ", j->f);
        if (isfinite(v[i])) fprintf(j->f, "%.17g", v[i]);
        else fputs("null", j->f);
    }
    fputc(']', j->f);
}

static void j_int_array(json *j, const int64_t *v, int64_t n)
{
    if (!v) {
        j_null(j);
        return;
    }
    j_sep(j);
    fputc('[', j->f);
    for (int64_t i = 0; i < n; i++)
        fprintf(j->f, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputc(']', j->f);
}

static void j_stats(json *j, const char *key, const rep_stats *s)
{
    j_key(j, key);
    j_open(j, '{');
    j_key(j, "min"); j_num(j, s->min);
    j_key(j, "firstquartile"); j_num(j, s->firstquartile);
    j_key(j, "median"); j_num(j, s->median);
    j_key(j, "thirdquartile"); j_num(j, s->thirdquartile);
    j_key(j, "max"); j_num(j, s->max);
    j_key(j, "mean"); j_num(j, s->mean);
    j_key(j, "stddev"); j_num(j, s->stddev);
    j_close(j, '}');
}

static void j_kernel(json *j, const char *name, int done, int n, const double *t,
                     const int64_t *m, const double *vt)
{
    j_key(j, name);
    if (!done || !t || !m) {
        j_null(j);
        return;
    }
    rep_stats s;
    double hm, hs;
    j_open(j, '{');
    j_key(j, "time");
    j_num_array(j, t, n);
    j_key(j, "nedge");
    j_int_array(j, m, n);
    j_key(j, "teps");
    j_sep(j);
    fputc('[', j->f);
    for (int i = 0; i < n; i++) {
        double v = (double)m[i] / t[i];
        if (i) fputs(", ", j->f);
        if (isfinite(v)) fprintf(j->f, "%.17g", v);
        else fputs("null", j->f);
    }
    fputc(']', j->f);
    j_key(j, "validate_time");
    j_num_array(j, vt, vt ? n : 0);
    rep_stats_of(t, n, &s);
    j_stats(j, "time_stats", &s);
    double *md = malloc((size_t)(n > 0 ? n : 1) * sizeof *md);
    if (md) {
        for (int i = 0; i < n; i++)
            md[i] = (double)m[i];
        rep_stats_of(md, n, &s);
        free(md);
    } else {
        rep_stats_of(NULL, 0, &s);
    }
    j_stats(j, "nedge_stats", &s);
    rep_teps_stats(t, m, n, &s, &hm, &hs);
    j_stats(j, "teps_stats", &s);
    j_key(j, "harmonic_mean_teps"); j_num(j, hm);
    j_key(j, "harmonic_stddev_teps"); j_num(j, hs);
    if (vt) {
        rep_stats_of(vt, n, &s);
        j_stats(j, "validate_stats", &s);
    } else {
        j_key(j, "validate_stats");
        j_null(j);
    }
    j_close(j, '}');
}

static void j_matrix(json *j, const char *key, const int64_t *m, int n)
{
    j_key(j, key);
    if (!m) {
        j_null(j);
        return;
    }
    j_open(j, '[');
    for (int i = 0; i < n; i++)
        j_int_array(j, m + (int64_t)i * n, n);
    j_close(j, ']');
}

static int64_t matrix_total(const int64_t *m, int n)
{
    int64_t t = 0;
    for (int64_t i = 0; i < (int64_t)n * n; i++)
        t += m[i];
    return t;
}

static void write_report(json *j, const rep_run *r)
{
    j_open(j, '{');
    j_key(j, "format"); j_str(j, "g500-run");
    j_key(j, "version"); j_int(j, 1);
    j_key(j, "scale"); j_int(j, r->scale);
    j_key(j, "edgefactor"); j_int(j, r->edgefactor);
    j_key(j, "nvertices"); j_int(j, r->nvertices);
    j_key(j, "nedges"); j_int(j, r->nedges);
    j_key(j, "n_active"); j_int(j, r->n_active);
    j_key(j, "nranks"); j_int(j, r->nranks);
    j_key(j, "nthreads"); j_int(j, r->nthreads);
    j_key(j, "edges_path"); j_str(j, r->edges_path);
    j_key(j, "placement"); j_str(j, r->placement);
    j_key(j, "validated"); j_bool(j, r->validated);
    j_key(j, "generation_time"); j_num(j, r->generation_time >= 0 ? r->generation_time : NAN);
    j_key(j, "read_time"); j_num(j, r->read_time);
    j_key(j, "construction_time"); j_num(j, r->construction_time);
    j_key(j, "peak_rss_max"); j_int(j, r->peak_rss_max);
    j_key(j, "bytes_per_input_edge");
    j_num(j, r->nedges > 0 ? (double)r->peak_rss_max / (double)r->nedges : NAN);
    j_key(j, "nroots"); j_int(j, r->nroots);
    j_key(j, "roots"); j_int_array(j, r->roots, r->nroots);
    j_kernel(j, "bfs", r->bfs_done, r->nroots, r->bfs_time, r->bfs_nedge, r->bfs_validate_time);
    j_kernel(j, "sssp", r->sssp_done, r->nroots, r->sssp_time, r->sssp_nedge,
             r->sssp_validate_time);

    j_key(j, "bfs_levels");
    if (r->bfs_nlevels > 0 && (r->bfs_level_time || r->bfs_level_frontier || r->bfs_level_dir)) {
        j_open(j, '[');
        for (int l = 0; l < r->bfs_nlevels; l++) {
            j_open(j, '{');
            j_key(j, "level"); j_int(j, l);
            j_key(j, "time");
            if (r->bfs_level_time) j_num(j, r->bfs_level_time[l]); else j_null(j);
            j_key(j, "frontier");
            if (r->bfs_level_frontier) j_int(j, r->bfs_level_frontier[l]); else j_null(j);
            j_key(j, "direction");
            j_str(j, r->bfs_level_dir ? r->bfs_level_dir[l] : NULL);
            j_close(j, '}');
        }
        j_close(j, ']');
    } else {
        j_null(j);
    }

    j_key(j, "comm");
    j_open(j, '{');
    j_key(j, "total_bytes");
    if (r->comm_bytes) j_int(j, matrix_total(r->comm_bytes, r->nranks)); else j_null(j);
    j_key(j, "total_hop_bytes");
    if (r->comm_hop_bytes) j_int(j, matrix_total(r->comm_hop_bytes, r->nranks)); else j_null(j);
    j_matrix(j, "bytes", r->comm_bytes, r->nranks);
    j_matrix(j, "hop_bytes", r->comm_hop_bytes, r->nranks);
    j_close(j, '}');
    j_close(j, '}');
    fputc('\n', j->f);
}

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len >= sizeof buf)
        return g5_error(G5_ERR_ARG, "%s: JSON output path too long", path);
    memcpy(buf, path, len + 1);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return G5_OK;
    *slash = '\0';
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return g5_error(G5_ERR_IO, "%s: cannot create directory %s: %s", path, buf,
                                strerror(errno));
            *p = c;
            if (c == '\0')
                break;
        }
    }
    return G5_OK;
}

int rep_write_run_json(const char *path, const rep_run *r)
{
    if (!path || !*path || !r)
        return g5_error(G5_ERR_ARG, "JSON output: no path or no report");
    int rc = make_parent_dirs(path);
    if (rc != G5_OK)
        return rc;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return g5_error(G5_ERR_IO, "%s: cannot create %s: %s", path, tmp, strerror(errno));
    json j = {.f = f};
    write_report(&j, r);
    int bad = fflush(f) != 0 || ferror(f);
    bad |= fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad) {
        int e = errno;
        unlink(tmp);
        return g5_error(G5_ERR_IO, "%s: write failed: %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return g5_error(G5_ERR_IO, "%s: cannot rename %s into place: %s", path, tmp, strerror(e));
    }
    return G5_OK;
}
