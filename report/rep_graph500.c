/* SPDX-License-Identifier: MIT */
/*
 * report_graph500.c - the official Graph500 output block, printed the way
 * the reference code v3.0.1 (src/main.c) prints it, so that existing parsers
 * read our results: each key left-justified in a 32-character field, then
 * the value; %d for integers, %.11g for edge counts, %g for everything else;
 * the harmonic-mean lines carry "!  " in the last three characters of the
 * key field. Prefixes are "bfs  " and "sssp ". Order: header, bfs times,
 * sssp times, nedge, bfs TEPS, sssp TEPS, bfs validate, sssp validate.
 *
 * The reference prints the edge-count statistics of its last kernel (sssp
 * when built with SSSP); ours are the BFS counts when BFS ran (identical to
 * the SSSP counts: same roots, same component), else the SSSP counts.
 * Additions (after the reference keys, so parsers are unaffected): a line
 * "validation: SKIPPED (--no-validate)" when the run was not validated.
 */
#include "rep_run.h"

#include "common.h"

#include <math.h>
#include <stdlib.h>

#define KEYW 32

static void put_g(FILE *f, const char *prefix, const char *key, double v)
{
    char k[64];
    snprintf(k, sizeof k, "%s%s:", prefix, key);
    fprintf(f, "%-*s%g\n", KEYW, k, v);
}

static void put_harmonic(FILE *f, const char *prefix, const char *key, double v)
{
    char k[64];
    snprintf(k, sizeof k, "%s%s:", prefix, key);
    fprintf(f, "%-*s!  %g\n", KEYW - 3, k, v);
}

static void put_stats(FILE *f, const char *prefix, const char *suffix, const rep_stats *s)
{
    static const char *names[7] = {"min", "firstquartile", "median", "thirdquartile",
                                   "max", "mean", "stddev"};
    const double v[7] = {s->min, s->firstquartile, s->median, s->thirdquartile,
                         s->max, s->mean, s->stddev};
    char key[48];
    for (int i = 0; i < 7; i++) {
        snprintf(key, sizeof key, "%s_%s", names[i], suffix);
        put_g(f, prefix, key, v[i]);
    }
}

static void put_teps(FILE *f, const char *prefix, const double *t, const int64_t *m, int n)
{
    rep_stats s;
    double hm, hs;
    rep_teps_stats(t, m, n, &s, &hm, &hs);
    put_g(f, prefix, "min_TEPS", s.min);
    put_g(f, prefix, "firstquartile_TEPS", s.firstquartile);
    put_g(f, prefix, "median_TEPS", s.median);
    put_g(f, prefix, "thirdquartile_TEPS", s.thirdquartile);
    put_g(f, prefix, "max_TEPS", s.max);
    put_harmonic(f, prefix, "harmonic_mean_TEPS", hm);
    put_g(f, prefix, "harmonic_stddev_TEPS", hs);
}

int rep_print_graph500(FILE *out, const rep_run *r)
{
    const int n = r->nroots;
    rep_stats s;

    fprintf(out, "%-*s%d\n", KEYW, "SCALE:", r->scale);
    fprintf(out, "%-*s%d\n", KEYW, "edgefactor:", r->edgefactor);
    fprintf(out, "%-*s%d\n", KEYW, "NBFS:", n);
    fprintf(out, "%-*s%g\n", KEYW, "graph_generation:", r->generation_time);
    fprintf(out, "%-*s%d\n", KEYW, "num_mpi_processes:", r->nranks);
    fprintf(out, "%-*s%g\n", KEYW, "construction_time:", r->construction_time);
    if (r->bfs_done) {
        rep_stats_of(r->bfs_time, n, &s);
        put_stats(out, "bfs  ", "time", &s);
    }
    if (r->sssp_done) {
        rep_stats_of(r->sssp_time, n, &s);
        put_stats(out, "sssp ", "time", &s);
    }
    const int64_t *nedge = r->bfs_done ? r->bfs_nedge : r->sssp_done ? r->sssp_nedge : NULL;
    if (nedge) {
        double small[128];
        double *m = n <= 128 ? small : g5_malloc((size_t)n * sizeof *m, "nedge statistics");
        if (!m)
            return G5_ERR_NOMEM;
        for (int i = 0; i < n; i++)
            m[i] = (double)nedge[i];
        rep_stats_of(m, n, &s);
        if (m != small)
            free(m);
        static const char *names[7] = {"min", "firstquartile", "median", "thirdquartile",
                                       "max", "mean", "stddev"};
        const double v[7] = {s.min, s.firstquartile, s.median, s.thirdquartile,
                             s.max, s.mean, s.stddev};
        char key[48];
        for (int i = 0; i < 7; i++) {
            snprintf(key, sizeof key, "%s_nedge:", names[i]);
            fprintf(out, "%-*s%.11g\n", KEYW, key, v[i]);
        }
    }
    if (r->bfs_done)
        put_teps(out, "bfs  ", r->bfs_time, r->bfs_nedge, n);
    if (r->sssp_done)
        put_teps(out, "sssp ", r->sssp_time, r->sssp_nedge, n);
    if (r->bfs_done) {
        rep_stats_of(r->bfs_validate_time, n, &s);
        put_stats(out, "bfs  ", "validate", &s);
    }
    if (r->sssp_done) {
        rep_stats_of(r->sssp_validate_time, n, &s);
        put_stats(out, "sssp ", "validate", &s);
    }
    if (!r->validated)
        fprintf(out, "%-*s%s\n", KEYW, "validation:", "SKIPPED (--no-validate)");
    fflush(out);
    if (ferror(out))
        return g5_error(G5_ERR_IO, "Graph500 output block: write failed");
    return G5_OK;
}
