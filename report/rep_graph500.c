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
 * Unvalidated keys carry validate time -1, as in the reference.
 *
 * After the block (rep_print_run_notes; Graph500 parsers stop at the
 * block's last key): for a cached placement the strict figure first, then
 * kernel 1's parts, whether the result is official and why not, and the
 * provenance, as "key: value" lines.
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
    fflush(out);
    if (ferror(out))
        return g5_error(G5_ERR_IO, "Graph500 output block: write failed");
    return G5_OK;
}

void rep_run_judge(rep_run *r)
{
    r->nreasons = 0;
#define REASON(cond, text)                                   \
    if ((cond) && r->nreasons < REP_MAX_REASONS)             \
        r->reasons[r->nreasons++] = (text)
    REASON(r->nroots < 64, "fewer than 64 search keys");
    REASON(!r->validated, "validation skipped (--no-validate)");
    REASON(!r->bfs_done, "BFS not run");
    REASON(!r->sssp_done, "SSSP not run (--skip-sssp)");
    REASON(r->placement_cached && r->strict_construction_time >= 0,
           "placement from a cached file: its stages ran outside kernel 1 "
           "(strict_construction_time adds their recorded times)");
    REASON(r->placement_cached && r->strict_construction_time < 0,
           "placement from a cached file whose stage times are not recorded (no strict figure)");
#undef REASON
    r->official = r->nreasons == 0;
}

int rep_print_run_notes(FILE *out, const rep_run *r)
{
    if (r->placement_cached) {
        if (r->strict_construction_time >= 0)
            fprintf(out, "strict_construction_time: %g\n", r->strict_construction_time);
        fprintf(out, "cached placement: %s; components stage %g s on %d ranks, partition stage %g s "
                     "on %d ranks (recorded in the files; -1: not recorded)\n",
                r->placement, r->stage_components_seconds, r->stage_components_ranks,
                r->stage_partition_seconds, r->stage_partition_ranks);
    }
    fprintf(out, "construction_parts: components %g s, placement %g s, build %g s, "
                 "search structures %g s (sum: construction_time; reads excluded: %g s)\n",
            r->k1_components, r->k1_placement, r->k1_build, r->k1_search, r->read_time);
    if (r->waited)
        fprintf(out, "note: this run waited %g s for another g500 kernel run of this checkout (%s) "
                     "and did not overlap it\n", r->waited_seconds, r->waited_for ? r->waited_for : "holder unknown");
    if (r->official) {
        fprintf(out, "official result: %d validated keys, BFS and SSSP, all work from the edge "
                     "list inside kernel 1%s\n", r->nroots,
                r->placement_in_process ? " (components and placement included)" : "");
    } else {
        fprintf(out, "This is not an official result: ");
        for (int i = 0; i < r->nreasons; i++)
            fprintf(out, "%s%s", i ? "; " : "", r->reasons[i]);
        if (r->nroots < 64)
            fprintf(out, " (%d keys)", r->nroots);
        fputc('\n', out);
    }
    const rep_provenance *p = r->provenance;
    if (p) {
        fprintf(out, "version: %s (commit %s)\n", p->version, p->commit);
        fprintf(out, "compiler: %s\n", p->compiler);
        fprintf(out, "mpi_library: %s\n", p->mpi_library);
        fprintf(out, "hdf5_version: %s\n", p->hdf5_version);
        fprintf(out, "hosts:");
        for (int i = 0; i < p->nhosts; i++)
            fprintf(out, " %s", p->hosts[i]);
        fprintf(out, "\nranks x threads: %d x %d, binding: %s\n", p->ranks, p->threads_per_rank,
                p->binding);
        fprintf(out, "date_utc: %s\n", p->date_utc);
        fprintf(out, "command_line: %s\n", p->command_line);
        fprintf(out, "edges_content_id: %016llx\n", (unsigned long long)r->edges_content_id);
        if (r->placement_path)
            fprintf(out, "placement_file: %s (edges_content_id %016llx, topology_id %016llx)\n",
                    r->placement_path, (unsigned long long)r->placement_edges_content_id,
                    (unsigned long long)r->placement_topology_id);
        if (r->topology_path)
            fprintf(out, "topology: %s (topology_id %016llx)\n", r->topology_path,
                    (unsigned long long)r->topology_id);
    }
    fflush(out);
    if (ferror(out))
        return g5_error(G5_ERR_IO, "run notes: write failed");
    return G5_OK;
}
