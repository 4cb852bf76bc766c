/* SPDX-License-Identifier: MIT */
/*
 * io_components_check.c - does a components file belong to an edges file?
 * Compares the identity the components file recorded (scale, vertex and
 * edge counts, seed, the edges file's content_id) with the edges file's
 * attributes. Kept apart from io_components.c so that programs that never
 * open an edges file do not link the edges reader.
 */
#include "io.h"

#include "common.h"

int io_components_check_edges(const io_components *c, const io_edges *e)
{
    const io_edges_meta *em = io_edges_get_meta(e);
    const io_components_meta *m = io_components_get_meta(c);
    const char *cp = io_components_path(c), *ep = io_edges_path(e);
    if (m->scale != em->scale)
        return g5_error(G5_ERR_MISMATCH, "%s was computed for SCALE %d, but %s has SCALE %d",
                        cp, m->scale, ep, em->scale);
    if (m->nvertices != em->nvertices || m->nedges != em->nedges)
        return g5_error(G5_ERR_MISMATCH, "%s was computed for %lld vertices and %lld edges, but %s has %lld and %lld",
                        cp, (long long)m->nvertices, (long long)m->nedges, ep,
                        (long long)em->nvertices, (long long)em->nedges);
    if (m->seed != em->seed)
        return g5_error(G5_ERR_MISMATCH, "%s was computed from seed %llu, but %s has seed %llu",
                        cp, (unsigned long long)m->seed, ep, (unsigned long long)em->seed);
    if (m->edges_content_id != em->content_id)
        return g5_error(G5_ERR_MISMATCH, "%s was computed from other edges (content_id %016llx) than %s (%016llx)",
                        cp, (unsigned long long)m->edges_content_id, ep,
                        (unsigned long long)em->content_id);
    return G5_OK;
}
