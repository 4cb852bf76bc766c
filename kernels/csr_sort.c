/* SPDX-License-Identifier: MIT */
/*
 * csr_sort.c - reorder every CSR row of a kern_graph by increasing weight
 * (ties by column), so that the light edges of a row (w < delta) are a
 * prefix for any delta: delta-stepping SSSP (sssp.c) relaxes the prefix
 * inside a bucket and the rest once when the bucket settles, and finds the
 * split by binary search instead of testing every weight. Kernel 1
 * (construct.c) already merges rows into this order and records it
 * (rows_by_weight), so kern_sssp_create skips this pass for its graphs; it
 * stays for graphs whose rows were reordered otherwise (tests).
 *
 * Algorithm: rows are independent; OpenMP threads take rows dynamically.
 * Each row's (column, weight) pairs are packed into 64-bit keys (weight key
 * << 32 | column, kern_wkey: the 24-bit integer of a packed weight or the
 * bits of a float, both ordering like the values), sorted
 * with kern_sort_u64 (construct.c) and unpacked in place. A
 * per-thread scratch buffer holds the keys of the longest row.
 *
 * Only the order inside rows changes: rowptr, dup (the raw degrees) and the set of
 * (column, weight) pairs of each row are untouched, so BFS, the TEPS edge
 * count and validation see the same graph.
 */
#include "kern_impl.h"

#include <omp.h>

int kern_graph_sort_rows_by_weight(kern_graph *g)
{
    const int64_t nl = g->nlocal;
    int64_t maxdeg = 0;
#pragma omp parallel for reduction(max : maxdeg) schedule(static)
    for (int64_t v = 0; v < nl; v++) {
        int64_t dg = g->rowptr[v + 1] - g->rowptr[v];
        if (dg > maxdeg) maxdeg = dg;
    }
    int fail = 0;
#pragma omp parallel reduction(| : fail)
    {
        uint64_t *key = malloc(((size_t)maxdeg + 1) * sizeof *key);
        if (!key) fail = 1;
#pragma omp for schedule(dynamic, 1024)
        for (int64_t v = 0; v < nl; v++) {
            if (!key) continue;
            int64_t e0 = g->rowptr[v], n = g->rowptr[v + 1] - e0;
            if (n < 2) continue;
            uint32_t *c = g->col + e0;
            for (int64_t i = 0; i < n; i++)
                key[i] = (uint64_t)kern_wkey(g, e0 + i) << 32 | c[i];
            kern_sort_u64(key, n);
            for (int64_t i = 0; i < n; i++) {
                c[i] = (uint32_t)key[i];
                kern_wkey_set(g, e0 + i, (uint32_t)(key[i] >> 32));
            }
        }
        free(key);
    }
    if (!fail) g->rows_by_weight = 1;
    return fail ? g5_error(G5_ERR_NOMEM, "sorting rows by weight: cannot allocate %lld keys "
                           "per thread", (long long)maxdeg + 1) : G5_OK;
}
