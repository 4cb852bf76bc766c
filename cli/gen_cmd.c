/* SPDX-License-Identifier: MIT */
/*
 * gen_cmd.c - `g500 gen`: generate a Graph500 Kronecker edge list and write
 * it to an edges.h5 file with collective parallel HDF5.
 *
 *   mpirun -np P bin/g500 gen --scale S [--edgefactor 16] [--seed N] -o FILE.h5
 *
 * The file is bit-identical for every P and OMP_NUM_THREADS (gen.h).
 */
#include "gen_internal.h"

#include "cli.h"
#include "common.h"
#include "io.h"

#include <inttypes.h>
#include <stdlib.h>

struct gen_cfg {
    int scale;
    int edgefactor;
    int64_t seed;
    const char *output;
    int force;
    int quiet;
    int64_t chunk_rows;
    int no_checksums;
    int force_size;        /* skip the free-space check (IO_FORCE_SIZE) */
};

int gen_cmd(int argc, char **argv)
{
    struct gen_cfg c = {16, 16, 1, NULL, 0, 0, IO_EDGES_CHUNK_ROWS, 0, 0};
    const g5_opt opts[] = {
        {"scale", 's', G5_OPT_INT, &c.scale, "S", "log2 of the number of vertices, 1..42"},
        {"edgefactor", 'e', G5_OPT_INT, &c.edgefactor, "K", "edges per vertex (M = K * 2^S)"},
        {"seed", 0, G5_OPT_INT64, &c.seed, "N", "seed of every random choice (>= 0)"},
        {"output", 'o', G5_OPT_STRING, &c.output, "FILE", "edges file to write (required)"},
        {"force", 'f', G5_OPT_FLAG, &c.force, "", "replace FILE if it exists"},
        {"force-size", 0, G5_OPT_FLAG, &c.force_size, "", "go on even if the output looks larger than the free disk space or the run than the memory"},
        {"quiet", 'q', G5_OPT_FLAG, &c.quiet, "", "no progress lines and no summary"},
        {"chunk-rows", 0, G5_OPT_INT64, &c.chunk_rows, "R",
         "rows per HDF5 chunk; 0 = contiguous, no checksums (for benchmarks)"},
        {"no-checksums", 0, G5_OPT_FLAG, &c.no_checksums, "", "chunks without Fletcher32 (for benchmarks)"},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int npos, rc;
    gen_params p;
    gen_write_opts o;
    gen_result res;

    rc = cli_parse(argc, argv, opts, nopts, pos, 0, &npos,
                   "[mpirun -np P] g500 gen --scale S [options] -o FILE.h5",
                   "Generate the Graph500 Kronecker (R-MAT A=.57 B=.19 C=.19) edge list with\n"
                   "scrambled vertex labels, shuffled order and float32 weights in [0, 1),\n"
                   "and write it to FILE (HDF5: /edges [M][2], uint32 up to SCALE 32 and int64\n"
                   "above, /weights float32 [M]; docs/gen.md). The file is identical for any\n"
                   "number of ranks and threads.", -1, NULL);
    if (rc == 1)
        return 0;
    if (rc == G5_OK && !c.output)
        rc = g5_error(G5_ERR_ARG, "no output file: give -o FILE.h5");
    if (rc == G5_OK && c.seed < 0)
        rc = g5_error(G5_ERR_ARG, "seed %lld must be >= 0", (long long)c.seed);
    if (rc == G5_OK) {
        gen_params_default(&p, c.scale);
        p.edgefactor = c.edgefactor;
        p.seed = (uint64_t)c.seed;
        rc = gen_params_check(&p);
    }
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc == G5_OK) {
        /* disk, then memory per rank, before HDF5 allocates the chunks */
        char what[64];
        int nranks, force = c.force_size ? IO_FORCE_SIZE : 0;
        io_edges_meta m = {.scale = p.scale, .edgefactor = p.edgefactor,
                           .nedges = (int64_t)p.edgefactor << p.scale};
        MPI_Comm_size(MPI_COMM_WORLD, &nranks);
        snprintf(what, sizeof what, "SCALE %d, edgefactor %d", p.scale, p.edgefactor);
        rc = io_edges_check_space(MPI_COMM_WORLD, c.output, &m, c.chunk_rows, !c.no_checksums, force);
        if (rc == G5_OK)
            rc = g5_memory_check(MPI_COMM_WORLD, what,
                                 cli_mem_gen(p.scale, p.edgefactor, c.chunk_rows, nranks), force);
    }
    if (rc != G5_OK)
        return g5_cmd_fail("gen", rc);

    g5_log_init(MPI_COMM_WORLD, c.quiet);
    gen_write_opts_default(&o);
    o.chunk_rows = c.chunk_rows;
    o.checksums = !c.no_checksums;
    o.quiet = c.quiet;
    rc = gen_write_ex(MPI_COMM_WORLD, &p, c.output,
                      c.force | (c.force_size ? IO_FORCE_SIZE : 0), &o, &res);
    if (rc != G5_OK)
        return g5_cmd_fail("gen", rc);
    if (g5_log_rank() && !c.quiet) {
        int64_t m = (int64_t)p.edgefactor << p.scale;
        printf("g500 gen: wrote %s: SCALE %d, edgefactor %d, %" PRId64 " edges in %.3f s "
               "(%.3g edges/s), content_id %016" PRIx64 ", peak memory per rank %.1f MiB\n",
               c.output, p.scale, p.edgefactor, m, res.seconds, (double)m / res.seconds,
               res.content_id, (double)res.peak_rss_max / 1048576.0);
        fflush(stdout);
    }
    return 0;
}
