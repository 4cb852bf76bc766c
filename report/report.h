/* SPDX-License-Identifier: MIT */
/*
 * report.h - the user-facing end of the pipeline: a small JSON reader for the
 * kernels' result files, the report writer behind `g500 report RESULTS_DIR`
 * (Markdown page, data files and gnuplot PNG plots), and the cache check that
 * `make pipeline` runs before it trusts files from an earlier run.
 *
 * Errors: as everywhere in g500 (common.h), functions return G5_OK or a
 * negative G5_ERR_* after recording one message naming the file and the
 * problem. Nothing in this header is collective: the report and the cache
 * check run on one process (the `report` subcommand does the work on rank 0
 * of MPI_COMM_WORLD with MPI_COMM_SELF and agrees on the status after).
 */
#ifndef G500_REPORT_H
#define G500_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- JSON reader (rep_json.c) ---------------------------------------------
 * RFC 8259 JSON into an immutable tree. Numbers are doubles (integers up to
 * 2^53 are exact: byte counts and edge counts fit) and keep their text
 * (rep_json_text). Strings are UTF-8 with
 * escapes decoded (\uXXXX and surrogate pairs); an embedded NUL ends the C
 * string. Object keys keep their file order; a repeated key is kept twice and
 * rep_json_get returns the first. Nesting deeper than REP_JSON_MAX_DEPTH is
 * refused, so hostile input cannot exhaust the stack. */
#define REP_JSON_MAX_DEPTH 128

typedef enum rep_json_type {
    REP_JSON_NULL,
    REP_JSON_FALSE,
    REP_JSON_TRUE,
    REP_JSON_NUMBER,
    REP_JSON_STRING,
    REP_JSON_ARRAY,
    REP_JSON_OBJECT
} rep_json_type;

typedef struct rep_json rep_json;

/* Parse text[0..len-1]. `name` (a path or "<test>") is used in messages,
 * which give the line and column: "NAME:3:14: expected ':' after key".
 * out: a tree the caller frees with rep_json_free. Trailing non-space text
 * is an error. Returns G5_OK, G5_ERR_FORMAT or G5_ERR_NOMEM. */
int rep_json_parse(const char *text, size_t len, const char *name, rep_json **out);
/* Read and parse a file; G5_ERR_IO when it cannot be read. */
int rep_json_load(const char *path, rep_json **out);
/* Accepts NULL and *j == NULL; sets *j to NULL. */
void rep_json_free(rep_json **j);

/* Accessors. Every one accepts NULL (returns NULL / 0 / the default), so
 * chains like rep_json_get(rep_json_get(j, "bfs"), "time") need no checks.
 * Returned pointers live as long as the tree. */
rep_json_type rep_json_type_of(const rep_json *j);         /* NULL: REP_JSON_NULL */
int rep_json_len(const rep_json *j);                       /* array/object size, else 0 */
const rep_json *rep_json_at(const rep_json *j, int i);     /* i-th element or member value */
const char *rep_json_key_at(const rep_json *j, int i);     /* i-th member key of an object */
const rep_json *rep_json_get(const rep_json *obj, const char *key);
/* Depth-first search (file order) for the first member named key anywhere
 * under j, j included: lets the report read a field whether the writer put
 * it at the top level or inside a group. */
const rep_json *rep_json_find(const rep_json *j, const char *key);
double rep_json_number(const rep_json *j, double dflt);    /* number, true=1, false=0 */
const char *rep_json_string(const rep_json *j, const char *dflt);
/* A string, or a number's text exactly as written in the file (so a 64-bit
 * id printed as a number is not rounded through a double); else dflt. */
const char *rep_json_text(const rep_json *j, const char *dflt);
/* Numbers of an array, nested arrays flattened in order ([[1,2],[3]] gives
 * 1 2 3); non-numbers (null) become NaN. Writes at most max into out and
 * returns the total count (so a first call with max 0 sizes the buffer);
 * -1 if j is not an array. */
int64_t rep_json_numbers(const rep_json *j, double *out, int64_t max);

/* ---- report (rep_report.c, rep_tables.c, rep_plots.c) ---------------------
 * Reads what a pipeline run directory holds:
 *   edges.h5, components.h5           (io/io.h formats)
 *   placement-*.h5                    placement metrics (/metrics/...)
 *   run-<name>.json [run-<name>.txt]  kernel results, Graph500 text block;
 *                                     <name>.rI is the I-th alternated run
 *                                     of the placement <name>
 * and writes DIR/report/ atomically (built in DIR/report.tmp.<pid>, renamed
 * when complete): index.md, the data files data/NAME.dat and the PNG plots
 *   teps-placements.png  each placement's runs: median and range of TEPS
 *   teps-bfs.png, teps-sssp.png   per-key TEPS of each placement's first run
 *   heatmap-<name>.png   bytes and hop-weighted bytes between ranks (nodes,
 *                        leaf switches past 64), one colour scale for all
 *   hops.png             bytes by hop level, per placement
 *   bfs-levels.png       per-level BFS time of the first key
 *   components.png       component size distribution (log2 bins)
 * A missing input leaves its section out with a sentence saying so. The
 * placements are compared by the median and range of their runs'
 * harmonic-mean TEPS; a difference is stated only when the ranges do not
 * overlap; ranks x threads above a host's cores is said to make the times
 * unrepresentative. */
typedef struct rep_options {
    const char *dir;          /* in: the run directory                       */
    const char *gnuplot;      /* in: gnuplot command (NULL: "gnuplot")       */
    int plots;                /* in: 0 writes the data and script, no PNGs   */
    int quiet;                /* in: 1 prints nothing on stdout              */
    int summary;              /* in: 1 prints the comparison, the runs and
                                 the placement metrics on stdout and writes
                                 nothing                                     */
} rep_options;

/* Write the report; unless quiet, print the tables and where the files are
 * on stdout. gnuplot not found: the page says how to draw the plots and
 * the PNGs are not made (G5_OK); gnuplot failing is G5_ERR_IO naming the
 * command, and the old report stays. */
int rep_write_report(const rep_options *o);

/* ---- cache check (rep_cache.c) ---------------------------------------------
 * What `make pipeline` checks before it reuses a run directory's files: a
 * file a Make target names is trusted only if it opens with the right format
 * and version, and its identity matches the run (edges: scale, edgefactor,
 * seed; components and placements: the edges file's content_id; placements:
 * the rank count and ranks per node their name encodes; run JSON: parses).
 * A file that fails is removed (it would be taken for complete otherwise),
 * with one line on stderr saying why; so are leftover "*.tmp.<pid>" files
 * whose writer process is gone. A value < 0 in the expectations is not
 * checked. */
typedef struct rep_cache_expect {
    const char *dir;          /* in: the run directory                       */
    int scale, edgefactor;    /* in: expected parameters (-1: any)          */
    int64_t seed;             /* in: (-1: any)                              */
    int dry_run;              /* in: 1 reports but removes nothing          */
    int have_topology;        /* in: 1: placements must record topology_id  */
    uint64_t topology_id;     /* in: the topology file's topo_id             */
    const char *topology;     /* in: its path, for messages                  */
    int no_data;              /* in: 1: attributes only, no full read        */
} rep_cache_expect;

/* *nremoved: out, files removed (or that would be). Returns G5_OK unless
 * the directory cannot be read or a file cannot be removed (G5_ERR_IO). */
int rep_cache_check(const rep_cache_expect *e, int *nremoved);

/* ---- an edges file's metadata (rep_edges.c) ------------------------------
 * As `g500 stats` shows it (json: one JSON object instead); path names the
 * file. Call it on one rank. */
typedef struct io_edges_meta io_edges_meta;
void rep_edges_print(FILE *out, const char *path, const io_edges_meta *m, int json);

/* ---- a components file's statistics (rep_components.c) ------------------
 * rep_components_print: the statistics of m as the table `g500 stats`
 * shows (json: one JSON object instead); path names the file in the
 * heading. rep_components_plot: the component-size distribution (sizes:
 * the ncomp component sizes, largest first) on log-log axes, drawn by
 * gnuplot into png. Call them on one rank. */
typedef struct io_components_meta io_components_meta;
void rep_components_print(FILE *out, const char *path, const io_components_meta *m, int json);
int rep_components_plot(const char *png, const char *path, const io_components_meta *m,
                        const int64_t *sizes, int64_t ncomp);

#endif
