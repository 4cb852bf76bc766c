/* SPDX-License-Identifier: MIT */
/*
 * rep_report_int.h - what the report's files share inside report/ (not a
 * public header): the loaded run directory and the helpers that write the
 * page (rep_report.c loads and drives, rep_tables.c writes the tables,
 * rep_plots.c the data files and the gnuplot script).
 *
 * A run directory holds run-NAME.json files; NAME may end in ".rI", the
 * I-th of the alternated repeats of one series (the pipeline's REPEATS).
 * A series is every repeat of one NAME: its runs' harmonic-mean TEPS give
 * the median and range the comparison states. Plots of one run per series
 * (per-root TEPS, heat maps, hop levels, BFS levels) use its first repeat.
 */
#ifndef G500_REP_REPORT_INT_H
#define G500_REP_REPORT_INT_H

#include "io.h"
#include "rep_run.h"
#include "report.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define REP_PATH 4096
#define REP_MAX_FILES 64

typedef struct run_info {
    char name[256];          /* NAME of run-NAME.json */
    char series[256];        /* NAME without its ".rI" suffix */
    int repeat;              /* I of ".rI", 1 without one */
    rep_json *json;
    char *block;             /* run-NAME.txt contents, or NULL */
    time_t made;             /* when the JSON was written (its mtime) */
    int nroots;
    double *bfs_teps, *sssp_teps;   /* [nroots], NaN where absent */
    double bfs_hmean, sssp_hmean;
    int64_t nranks;
    int nthreads;                   /* 0 when the JSON does not say */
    double *bytes, *hop_bytes;      /* [nranks*nranks] or NULL */
    double *level_time;             /* [nlevels] or NULL */
    double *level_front;            /* [nlevels] or NULL */
    const char **level_dir;         /* [nlevels] into json, or NULL */
    int nlevels;
} run_info;

typedef struct rep_series {
    char name[256];
    int first;               /* index in runs[] of its lowest repeat */
    int nruns;
    rep_stats bfs, sssp;     /* of the runs' harmonic means (NaN: none) */
    int nbfs, nsssp;         /* runs with a BFS / SSSP figure */
} rep_series;

typedef struct report {
    const rep_options *o;
    char tmp[REP_PATH];      /* DIR/report.tmp.<pid> */
    FILE *md, *gp;           /* NULL in summary mode */
    FILE *also;              /* a copy of the tables on stdout, or NULL */
    run_info runs[REP_MAX_FILES];
    int nruns;
    rep_series ser[REP_MAX_FILES];
    int nser;
    char placements[REP_MAX_FILES][256];
    int nplacements;
    char oversub[512];       /* the oversubscription warning, "" if none */
    int have_gnuplot;        /* plots will be drawn */
} report;

/* rep_report.c */
int rep_pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rep_has_suffix(const char *s, const char *suf);
/* Remove a file or a folder tree; nftw's status (0 ok, -1 errno set). */
int rep_rm_tree(const char *path);
/* printf to the page (skipped in summary mode), and to the page and stdout. */
void rep_md(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rep_both(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* rep_tables.c */
void rep_fmt_num(char *buf, size_t len, double v);
int rep_attr_number(io_file *f, const char *obj, const char *name, double *v);
int rep_section_compare(report *r);
int rep_section_runs(report *r);
int rep_section_graph(report *r);
int rep_section_components(report *r);
int rep_section_placement(report *r);
int rep_section_provenance(report *r);

/* rep_plots.c: each writes its data files and script lines and links its
 * PNG in the page; G5_OK or G5_ERR_IO. */
int rep_plot_components(report *r, const int64_t *bins, int maxbin);
int rep_plot_teps(report *r);
int rep_plot_spread(report *r);
int rep_plot_heatmaps(report *r);
int rep_plot_hops(report *r);
int rep_plot_levels(report *r);
/* Bytes per hop level of one run: out[h] = sum of bytes[i][j] over the
 * pairs whose hop_bytes[i][j] = h * bytes[i][j]; returns the highest level
 * (-1: no data). out has room for REP_MAX_HOPS levels. */
#define REP_MAX_HOPS 32
int rep_hop_levels(const run_info *ri, double *out);

#endif
