/* SPDX-License-Identifier: MIT */
/*
 * cc_stats.c - the statistics of components.h5 from the component
 * arrays: edges per component (cc_count_edges, the plain count the edge
 * tally is checked against), self-loops, duplicates, giant shares, the
 * largest non-giant component and the log2 size histogram (bin k counts
 * components with 2^k <= vertices < 2^(k+1); isolated vertices count as
 * components of one vertex, bin 0). duplicate_edges = non-self-loop
 * tuples - distinct pairs (cc_dup.c).
 */
#include "cc_internal.h"

#include <omp.h>
#include <string.h>

void cc_count_edges(const int32_t *label, int64_t ncomp, const int64_t *edges,
                    int64_t count, int nthreads, int64_t *comp_edges,
                    int64_t *self_loops, int64_t *nonloop)
{
    int64_t loops = 0, giant = 0, other = 0;
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    (void)ncomp;
    /* The giant takes nearly every edge: count it in a register, the rare
     * others with atomics. */
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : loops, giant, other)
    for (int64_t i = 0; i < count; i++) {
        const int64_t u = edges[2 * i], v = edges[2 * i + 1];
        if (u == v) {
            loops++;
            continue;
        }
        const int32_t c = label[u];
        if (c == 0) {
            giant++;
        } else {
            other++;
#pragma omp atomic
            comp_edges[c]++;
        }
    }
    if (giant)
        comp_edges[0] += giant;
    *self_loops += loops;
    *nonloop += giant + other;
}

void cc_stats_fill(io_components_meta *m, int64_t ncomp, const int64_t *comp_vertices,
                   const int64_t *comp_edges, int64_t self_loops, int64_t nonloop,
                   int64_t distinct)
{
    int64_t active = 0;
    memset(m->size_hist, 0, sizeof m->size_hist);
    for (int64_t c = 0; c < ncomp; c++) {
        int k = 63 - __builtin_clzll((unsigned long long)comp_vertices[c]);
        active += comp_vertices[c];
        m->size_hist[k < IO_HIST_BINS ? k : IO_HIST_BINS - 1]++;
    }
    m->ncomponents = ncomp;
    m->isolated_vertices = m->nvertices - active;
    m->ncomponents_all = ncomp + m->isolated_vertices;
    m->size_hist[0] += m->isolated_vertices;
    m->self_loops = self_loops;
    m->nonloop_edges = nonloop;
    m->distinct_edges = distinct;
    m->duplicate_edges = nonloop - distinct;
    m->giant_vertices = ncomp > 0 ? comp_vertices[0] : 0;
    m->giant_edges = ncomp > 0 ? comp_edges[0] : 0;
    m->giant_vertex_share = m->nvertices ? (double)m->giant_vertices / (double)m->nvertices : 0.0;
    m->giant_active_share = active ? (double)m->giant_vertices / (double)active : 0.0;
    m->giant_edge_share = nonloop ? (double)m->giant_edges / (double)nonloop : 0.0;
    m->second_vertices = ncomp > 1 ? comp_vertices[1] : 0;
    m->second_edges = ncomp > 1 ? comp_edges[1] : 0;
}
