/* SPDX-License-Identifier: MIT */
/*
 * part_output.c - what the partitioner hands to people and schedulers: the
 * quality table (placement vs cyclic vs block, text or JSON), the Open MPI
 * rankfile ("rank r=host slot=s", Open MPI 4 mpirun --rankfile), the
 * MPICH machinefile ("host:n" per run of ranks on one host, in rank order,
 * for mpiexec -f: hydra fills the lines in order) and the SLURM_HOSTFILE
 * (one host per line in rank order, for srun --distribution=arbitrary).
 * Files are written to "<path>.tmp.<pid>" and renamed when complete, so a
 * reader never sees half a file.
 */
#include "part.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic.h"
#include "common.h"
#include "json.h"
#include "part_internal.h"

/* A scheme's plain members, in file order. */
static const g5_json_field metrics_fields[] = {
    {"total_edges", G5_JSON_INT64, offsetof(part_metrics, total_edges)},
    {"cut_edges", G5_JSON_INT64, offsetof(part_metrics, cut_edges)},
    {"hop_cut", G5_JSON_INT64, offsetof(part_metrics, hop_cut)},
    {"edge_imbalance", G5_JSON_DOUBLE, offsetof(part_metrics, edge_imbalance)},
    {"vertex_imbalance", G5_JSON_DOUBLE, offsetof(part_metrics, vertex_imbalance)},
    {"bytes_per_vertex", G5_JSON_DOUBLE, offsetof(part_metrics, bytes_per_vertex)},
};

void part_metrics_json(g5_json *j, int64_t nvertices, int64_t n_active, int nranks,
                       const part_metrics m[PART_NSCHEMES])
{
    g5_json_begin_object(j);
    g5_json_kv_int(j, "nvertices", nvertices);
    g5_json_kv_int(j, "n_active", n_active);
    g5_json_kv_int(j, "nranks", nranks);
    g5_json_key(j, "schemes");
    g5_json_begin_object(j);
    for (int s = 0; s < PART_NSCHEMES; s++) {
        const part_metrics *M = &m[s];
        g5_json_key(j, part_scheme_name(s));
        g5_json_begin_object(j);
        g5_json_fields(j, M, metrics_fields, G5_JSON_NFIELDS(metrics_fields));
        if (M->rank_edges && M->rank_vertices) {
            g5_json_key(j, "rank_edges");
            g5_json_ints(j, M->rank_edges, nranks);
            g5_json_key(j, "rank_vertices");
            g5_json_ints(j, M->rank_vertices, nranks);
        }
        g5_json_end_object(j);
    }
    g5_json_end_object(j);
    g5_json_end_object(j);
}

void part_print_table(FILE *out, int json, int64_t nvertices, int64_t n_active,
                      int nranks, const part_metrics m[PART_NSCHEMES])
{
    if (json) {
        g5_json j;
        g5_json_init(&j, out, 1);
        part_metrics_json(&j, nvertices, n_active, nranks, m);
        g5_json_finish(&j);
        return;
    }
    fprintf(out, "placement quality: %lld vertices, %lld active (%.1f%% isolated), %d ranks\n",
            (long long)nvertices, (long long)n_active,
            nvertices ? 100.0 * (double)(nvertices - n_active) / (double)nvertices : 0.0, nranks);
    fprintf(out, "  %-10s %14s %7s %14s %9s %9s %9s %11s\n", "scheme", "cut_edges", "cut%",
            "hop_cut", "hops/cut", "edge_imb", "vert_imb", "bytes/vert");
    for (int s = 0; s < PART_NSCHEMES; s++) {
        const part_metrics *M = &m[s];
        fprintf(out, "  %-10s %14lld %6.2f%% %14lld %9.3f %9.4f %9.4f %11.2f\n", part_scheme_name(s),
                (long long)M->cut_edges,
                M->total_edges ? 100.0 * (double)M->cut_edges / (double)M->total_edges : 0.0,
                (long long)M->hop_cut,
                M->cut_edges ? (double)M->hop_cut / (double)M->cut_edges : 0.0,
                M->edge_imbalance, M->vertex_imbalance, M->bytes_per_vertex);
    }
    fprintf(out, "  (%lld non-self-loop edge tuples; imbalance = max/mean over ranks; "
            "bytes/vert = kernel state per original vertex, see partition/part.h)\n",
            (long long)m[0].total_edges);
}

enum { HOSTFILE, RANKFILE, MACHINEFILE };

static int write_atomic(const char *path, int nranks, const char *const *host, int kind)
{
    g5_atomic a;
    int *slot = NULL, rc;

    if (kind == RANKFILE) {
        slot = g5_calloc((size_t)nranks, sizeof(int), "rankfile slots");
        if (!slot)
            return G5_ERR_NOMEM;
    }
    if ((rc = g5_atomic_open(&a, path)) != G5_OK) {
        free(slot);
        return rc;
    }
    FILE *f = a.f;
    for (int r = 0; r < nranks; r++) {
        if (kind == MACHINEFILE) {
            int n = 1;
            while (r + n < nranks && strcmp(host[r + n], host[r]) == 0)
                n++;
            fprintf(f, "%s:%d\n", host[r], n);
            r += n - 1;
        } else if (kind == RANKFILE) {
            /* Slot = how many earlier ranks share this host. */
            int s = 0;
            for (int q = r - 1; q >= 0; q--)
                if (strcmp(host[q], host[r]) == 0) {
                    s = slot[q] + 1;
                    break;
                }
            slot[r] = s;
            fprintf(f, "rank %d=%s slot=%d\n", r, host[r], s);
        } else {
            fprintf(f, "%s\n", host[r]);
        }
    }
    free(slot);
    return g5_atomic_commit(&a);
}

int part_write_rankfile(const char *path, int nranks, const char *const *host_of_rank)
{
    return write_atomic(path, nranks, host_of_rank, RANKFILE);
}

int part_write_hostfile(const char *path, int nranks, const char *const *host_of_rank)
{
    return write_atomic(path, nranks, host_of_rank, HOSTFILE);
}

int part_write_machinefile(const char *path, int nranks, const char *const *host_of_rank)
{
    return write_atomic(path, nranks, host_of_rank, MACHINEFILE);
}
