/* SPDX-License-Identifier: MIT */
/*
 * rep_edges.c - an edges file's metadata as `g500 stats` prints it: a few
 * lines for people (the R-MAT parameters with d = 1 - a - b - c, and where
 * the component statistics come from), or one JSON object for programs.
 */
#include "report.h"

#include "io.h"
#include "json.h"


void rep_edges_print(FILE *out, const char *path, const io_edges_meta *m, int json)
{
    if (json) {
        g5_json j;
        g5_json_init(&j, out, 1);
        g5_json_begin_object(&j);
        g5_json_kv_string(&j, "file", path);
        g5_json_kv_string(&j, "format", IO_EDGES_FORMAT);
        g5_json_kv_int(&j, "version", m->version);
        g5_json_kv_int(&j, "scale", m->scale);
        g5_json_kv_int(&j, "edgefactor", m->edgefactor);
        g5_json_kv_int(&j, "nvertices", m->nvertices);
        g5_json_kv_int(&j, "nedges", m->nedges);
        g5_json_key(&j, "seed");
        g5_json_uint(&j, m->seed);
        g5_json_kv_double(&j, "rmat_a", m->rmat_a);
        g5_json_kv_double(&j, "rmat_b", m->rmat_b);
        g5_json_kv_double(&j, "rmat_c", m->rmat_c);
        g5_json_kv_string(&j, "generator", m->generator);
        g5_json_key(&j, "content_id");
        g5_json_hex64(&j, m->content_id);
        g5_json_end_object(&j);
        g5_json_finish(&j);
    } else {
        fprintf(out, "%s: edge list (g500-edges v%d)\n"
                     "  SCALE %d, edgefactor %d: %lld vertices, %lld edge tuples\n"
                     "  seed %llu, R-MAT a=%g b=%g c=%g d=%g, generator '%s'\n"
                     "  content_id %016llx\n"
                     "  (component statistics: g500 components %s -o COMPONENTS.h5; g500 stats COMPONENTS.h5)\n",
                path, m->version, m->scale, m->edgefactor, (long long)m->nvertices,
                (long long)m->nedges, (unsigned long long)m->seed, m->rmat_a, m->rmat_b, m->rmat_c,
                1.0 - m->rmat_a - m->rmat_b - m->rmat_c, m->generator,
                (unsigned long long)m->content_id, path);
    }
    fflush(out);
}
