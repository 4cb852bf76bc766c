/* SPDX-License-Identifier: MIT */
/*
 * rep_run_json.c - the JSON result of a run (schema: "g500-run" version 1,
 * every key documented in docs/validation.md; the report
 * command reads it).
 *
 * Written through common/json.h, the one JSON emitter (escaping, NaN and
 * infinities as null).
 *
 * Atomic write (common/atomic.h): a reader never sees half a result.
 */
#include "rep_run.h"

#include "atomic.h"
#include "common.h"
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The schema's plain members, in file order. */
static const g5_json_field stats_fields[] = {
    {"min", G5_JSON_DOUBLE, offsetof(rep_stats, min)},
    {"firstquartile", G5_JSON_DOUBLE, offsetof(rep_stats, firstquartile)},
    {"median", G5_JSON_DOUBLE, offsetof(rep_stats, median)},
    {"thirdquartile", G5_JSON_DOUBLE, offsetof(rep_stats, thirdquartile)},
    {"max", G5_JSON_DOUBLE, offsetof(rep_stats, max)},
    {"mean", G5_JSON_DOUBLE, offsetof(rep_stats, mean)},
    {"stddev", G5_JSON_DOUBLE, offsetof(rep_stats, stddev)},
};
static const g5_json_field run_fields[] = {
    {"scale", G5_JSON_INT, offsetof(rep_run, scale)},
    {"edgefactor", G5_JSON_INT, offsetof(rep_run, edgefactor)},
    {"nvertices", G5_JSON_INT64, offsetof(rep_run, nvertices)},
    {"nedges", G5_JSON_INT64, offsetof(rep_run, nedges)},
    {"n_active", G5_JSON_INT64, offsetof(rep_run, n_active)},
    {"nranks", G5_JSON_INT, offsetof(rep_run, nranks)},
    {"nthreads", G5_JSON_INT, offsetof(rep_run, nthreads)},
    {"edges_path", G5_JSON_STRING, offsetof(rep_run, edges_path)},
    {"placement", G5_JSON_STRING, offsetof(rep_run, placement)},
    {"validated", G5_JSON_BOOL, offsetof(rep_run, validated)},
};
static const g5_json_field k1_fields[] = {
    {"components", G5_JSON_DOUBLE, offsetof(rep_run, k1_components)},
    {"placement", G5_JSON_DOUBLE, offsetof(rep_run, k1_placement)},
    {"build", G5_JSON_DOUBLE, offsetof(rep_run, k1_build)},
    {"search_structures", G5_JSON_DOUBLE, offsetof(rep_run, k1_search)},
};
static const g5_json_field provenance_fields[] = {
    {"version", G5_JSON_STRING, offsetof(rep_provenance, version)},
    {"commit", G5_JSON_STRING, offsetof(rep_provenance, commit)},
    {"compiler", G5_JSON_STRING, offsetof(rep_provenance, compiler)},
    {"mpi_library", G5_JSON_STRING, offsetof(rep_provenance, mpi_library)},
    {"hdf5_version", G5_JSON_STRING, offsetof(rep_provenance, hdf5_version)},
};
static const g5_json_field host_fields[] = {
    {"ranks", G5_JSON_INT, offsetof(rep_provenance, ranks)},
    {"threads_per_rank", G5_JSON_INT, offsetof(rep_provenance, threads_per_rank)},
    {"binding", G5_JSON_STRING, offsetof(rep_provenance, binding)},
};

static void j_stats(g5_json *j, const char *key, const rep_stats *s)
{
    g5_json_key(j, key);
    g5_json_begin_object(j);
    g5_json_fields(j, s, stats_fields, G5_JSON_NFIELDS(stats_fields));
    g5_json_end_object(j);
}

static void j_kernel(g5_json *j, const char *name, int done, int n, const double *t,
                     const int64_t *m, const double *vt)
{
    g5_json_key(j, name);
    if (!done || !t || !m) {
        g5_json_null(j);
        return;
    }
    rep_stats s;
    double hm, hs;
    g5_json_begin_object(j);
    g5_json_key(j, "time");
    g5_json_doubles(j, t, n);
    g5_json_key(j, "nedge");
    g5_json_ints(j, m, n);
    double *md = malloc((size_t)(n > 0 ? n : 1) * sizeof *md);
    g5_json_key(j, "teps");
    if (md)
        for (int i = 0; i < n; i++)
            md[i] = (double)m[i] / t[i];
    g5_json_doubles(j, md, n);
    g5_json_key(j, "validate_time");
    g5_json_doubles(j, vt, vt ? n : 0);
    rep_stats_of(t, n, &s);
    j_stats(j, "time_stats", &s);
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
    g5_json_key(j, "harmonic_mean_teps"); g5_json_double(j, hm);
    g5_json_key(j, "harmonic_stddev_teps"); g5_json_double(j, hs);
    if (vt) {
        rep_stats_of(vt, n, &s);
        j_stats(j, "validate_stats", &s);
    } else {
        g5_json_key(j, "validate_stats");
        g5_json_null(j);
    }
    g5_json_end_object(j);
}

static void j_matrix(g5_json *j, const char *key, const int64_t *m, int n)
{
    g5_json_key(j, key);
    if (!m) {
        g5_json_null(j);
        return;
    }
    g5_json_begin_array(j);
    for (int i = 0; i < n; i++)
        g5_json_ints(j, m + (int64_t)i * n, n);
    g5_json_end_array(j);
}

static int64_t matrix_total(const int64_t *m, int n)
{
    int64_t t = 0;
    for (int64_t i = 0; i < (int64_t)n * n; i++)
        t += m[i];
    return t;
}

/* "key": {"path": path, "id_key": id, "id2_key": id2 (when id2_key)}, the
 * ids as hex. */
static void input_json(g5_json *j, const char *key, const char *path, const char *id_key,
                       uint64_t id, const char *id2_key, uint64_t id2)
{
    g5_json_key(j, key);
    g5_json_begin_object(j);
    g5_json_kv_string(j, "path", path);
    g5_json_key(j, id_key);
    g5_json_hex64(j, id);
    if (id2_key) {
        g5_json_key(j, id2_key);
        g5_json_hex64(j, id2);
    }
    g5_json_end_object(j);
}

/* Provenance and the inputs' content ids: what made the result. */
static void provenance_json(g5_json *j, const rep_run *r)
{
    const rep_provenance *p = r->provenance;
    g5_json_key(j, "provenance");
    if (!p) {
        g5_json_null(j);
        return;
    }
    g5_json_begin_object(j);
    g5_json_fields(j, p, provenance_fields, G5_JSON_NFIELDS(provenance_fields));
    g5_json_key(j, "hosts");
    g5_json_begin_array(j);
    for (int i = 0; i < p->nhosts; i++)
        g5_json_string(j, p->hosts[i]);
    g5_json_end_array(j);
    g5_json_fields(j, p, host_fields, G5_JSON_NFIELDS(host_fields));
    g5_json_kv_string(j, "date_utc", p->date_utc);
    g5_json_kv_string(j, "command_line", p->command_line);
    g5_json_key(j, "inputs");
    g5_json_begin_object(j);
    input_json(j, "edges", r->edges_path, "content_id", r->edges_content_id, NULL, 0);
    if (r->placement_path)
        input_json(j, "placement", r->placement_path, "edges_content_id",
                   r->placement_edges_content_id, "topology_id", r->placement_topology_id);
    if (r->topology_path)
        input_json(j, "topology", r->topology_path, "topology_id", r->topology_id, NULL, 0);
    g5_json_end_object(j);
    g5_json_end_object(j);
}

static void write_report(g5_json *j, const rep_run *r)
{
    g5_json_begin_object(j);
    g5_json_key(j, "format"); g5_json_string(j, "g500-run");
    g5_json_key(j, "version"); g5_json_int(j, 1);
    g5_json_fields(j, r, run_fields, G5_JSON_NFIELDS(run_fields));
    g5_json_key(j, "generation_time"); g5_json_double(j, r->generation_time >= 0 ? r->generation_time : NAN);
    g5_json_key(j, "read_time"); g5_json_double(j, r->read_time);
    g5_json_key(j, "construction_time"); g5_json_double(j, r->construction_time);
    g5_json_key(j, "construction_parts");
    g5_json_begin_object(j);
    g5_json_fields(j, r, k1_fields, G5_JSON_NFIELDS(k1_fields));
    g5_json_end_object(j);
    g5_json_kv_bool(j, "placement_in_process", r->placement_in_process);
    g5_json_kv_bool(j, "placement_cached", r->placement_cached);
    g5_json_key(j, "strict_construction_time");
    if (r->placement_cached && r->strict_construction_time >= 0)
        g5_json_double(j, r->strict_construction_time);
    else
        g5_json_null(j);
    g5_json_key(j, "placement_stages");
    if (r->placement_cached) {
        g5_json_begin_object(j);
        g5_json_kv_double(j, "components_elapsed_seconds",
                          r->stage_components_seconds >= 0 ? r->stage_components_seconds : NAN);
        g5_json_kv_int(j, "components_ranks", r->stage_components_ranks);
        g5_json_kv_double(j, "partition_elapsed_seconds",
                          r->stage_partition_seconds >= 0 ? r->stage_partition_seconds : NAN);
        g5_json_kv_int(j, "partition_ranks", r->stage_partition_ranks);
        g5_json_end_object(j);
    } else {
        g5_json_null(j);
    }
    g5_json_kv_bool(j, "official", r->official);
    g5_json_key(j, "waited_for_other_run");
    if (r->waited) {
        g5_json_begin_object(j);
        g5_json_kv_double(j, "seconds", r->waited_seconds);
        g5_json_kv_string(j, "holder", r->waited_for);
        g5_json_end_object(j);
    } else {
        g5_json_null(j);
    }
    g5_json_key(j, "not_official_reasons");
    g5_json_begin_array(j);
    for (int i = 0; i < r->nreasons; i++)
        g5_json_string(j, r->reasons[i]);
    g5_json_end_array(j);
    g5_json_key(j, "peak_rss_max"); g5_json_int(j, r->peak_rss_max);
    g5_json_key(j, "bytes_per_input_edge");
    /* the largest rank's peak times the ranks: an upper bound on the whole
     * run's memory per input edge, comparable across rank counts */
    g5_json_double(j, r->nedges > 0 ? (double)r->peak_rss_max * r->nranks / (double)r->nedges : NAN);
    g5_json_key(j, "nroots"); g5_json_int(j, r->nroots);
    g5_json_key(j, "roots"); g5_json_ints(j, r->roots, r->nroots);
    j_kernel(j, "bfs", r->bfs_done, r->nroots, r->bfs_time, r->bfs_nedge, r->bfs_validate_time);
    j_kernel(j, "sssp", r->sssp_done, r->nroots, r->sssp_time, r->sssp_nedge,
             r->sssp_validate_time);
    /* validation in batches: one pass over the edges per batch; each key's
     * validate_time is its own checks plus the pass divided by the batch */
    g5_json_key(j, "validate_batch");
    g5_json_begin_object(j);
    g5_json_kv_int(j, "bfs", r->bfs_validate_batch);
    g5_json_kv_int(j, "sssp", r->sssp_validate_batch);
    g5_json_kv_int(j, "spill_bytes", r->validate_spill_bytes);
    g5_json_key(j, "note");
    g5_json_string(j, "keys per pass over the edge list; a key's validate_time is its own checks "
                   "plus its batch's pass divided by the keys in the batch; spill_bytes > 0: "
                   "the keys waited in scratch files (the largest rank's bytes) and were "
                   "validated after the searches, reading them back counted in validate_time");
    g5_json_end_object(j);
    g5_json_key(j, "sssp_rounds");
    if (r->sssp_done && r->sssp_rounds) g5_json_ints(j, r->sssp_rounds, r->nroots);
    else g5_json_null(j);

    g5_json_key(j, "bfs_levels");
    if (r->bfs_nlevels > 0 && (r->bfs_level_time || r->bfs_level_frontier || r->bfs_level_dir)) {
        g5_json_begin_array(j);
        for (int l = 0; l < r->bfs_nlevels; l++) {
            g5_json_begin_object(j);
            g5_json_key(j, "level"); g5_json_int(j, l);
            g5_json_key(j, "time");
            if (r->bfs_level_time) g5_json_double(j, r->bfs_level_time[l]); else g5_json_null(j);
            g5_json_key(j, "frontier");
            if (r->bfs_level_frontier) g5_json_int(j, r->bfs_level_frontier[l]); else g5_json_null(j);
            g5_json_key(j, "direction");
            g5_json_string(j, r->bfs_level_dir ? r->bfs_level_dir[l] : NULL);
            g5_json_end_object(j);
        }
        g5_json_end_array(j);
    } else {
        g5_json_null(j);
    }

    provenance_json(j, r);

    g5_json_key(j, "comm");
    g5_json_begin_object(j);
    g5_json_key(j, "total_bytes");
    if (r->comm_bytes) g5_json_int(j, matrix_total(r->comm_bytes, r->nranks)); else g5_json_null(j);
    g5_json_key(j, "total_hop_bytes");
    if (r->comm_hop_bytes) g5_json_int(j, matrix_total(r->comm_hop_bytes, r->nranks)); else g5_json_null(j);
    j_matrix(j, "bytes", r->comm_bytes, r->nranks);
    j_matrix(j, "hop_bytes", r->comm_hop_bytes, r->nranks);
    g5_json_end_object(j);
    g5_json_end_object(j);
    g5_json_finish(j);
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
    g5_json j;
    if (strcmp(path, "-") == 0) {
        g5_json_init(&j, stdout, 1);
        write_report(&j, r);
        return fflush(stdout) == 0 && !ferror(stdout) ? G5_OK
                                                      : g5_error(G5_ERR_IO, "standard output: write failed");
    }
    int rc = make_parent_dirs(path);
    if (rc != G5_OK)
        return rc;
    g5_atomic a;
    if ((rc = g5_atomic_open(&a, path)) != G5_OK)
        return rc;
    g5_json_init(&j, a.f, 1);
    write_report(&j, r);
    return g5_atomic_commit(&a);
}
