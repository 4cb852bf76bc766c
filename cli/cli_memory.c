/* SPDX-License-Identifier: MIT */
/*
 * cli_memory.c - each stage's estimate of its peak memory per rank, from
 * the sizes its parameters or input file imply, for the check every stage
 * makes before its heavy work (g5_memory_check). The formulas are the ones
 * the stages' docs pages state in their memory sections; they leave out
 * what does not grow with the graph (the check adds G5_MEM_PROCESS).
 * They are estimates to refuse the impossible, not to budget: a stage that
 * is refused can still be run with --force-size.
 */
#include "cli.h"

#include "gen_internal.h"

/* HDF5's chunk index for a chunked dataset written collectively: about
 * 256 bytes per chunk on every rank (measured: gen at SCALE 20 with 128 to
 * 2^18 rows per chunk, 1 and 2 ranks). */
#define HDF5_BYTES_PER_CHUNK 256.0

static double per_rank(int64_t n, int P)
{
    return ((double)n + P - 1) / P;
}

double cli_mem_gen(int scale, int edgefactor, int64_t chunk_rows, int P)
{
    /* docs/gen.md: two batches of rows at 20 bytes (edge and weight), the
     * writer's narrowed ids (8 bytes per row of a batch) and the chunk
     * index of /edges and /weights */
    double m = (double)((int64_t)edgefactor << scale), rows = per_rank((int64_t)m, P);
    double batch = rows < (double)GEN_BATCH_ROWS ? rows : (double)GEN_BATCH_ROWS;
    double chunks = chunk_rows > 0 ? 2.0 * (m / (double)chunk_rows + 1) : 0;
    return (2 * 20 + 8) * batch + HDF5_BYTES_PER_CHUNK * chunks;
}

/* docs/components.md, "Memory per rank": the tree merge's 20 N + N/8
 * (forest, merge buffer, labels, giant bitmap), the duplicate regions
 * and their receive buffer (4-7 bytes per slab tuple each: 6), the piece
 * buffer and the tally (0.2 bytes per tuple); the distributed merge's 48
 * per distinct endpoint of the slab and 28 N/P instead of the N terms.
 * The automatic choice takes the distributed merge where it is smaller,
 * so the smaller of the two (at one rank the tree). dup = 0: labels only
 * (kernel 1's components), no duplicate count. */
static double mem_cc(int64_t N, int64_t M, int P, int dup_count)
{
    double n = (double)N, m = per_rank(M, P);
    double dup = dup_count ? 1.02 * 6 * m + 6 * m * (P - 1) / P + 16.0 * (1 << 18) + 0.2 * m : 0;
    double tree = 20.125 * n + dup;
    double ends = 2 * m < n ? 2 * m : n;
    double dist = 48 * ends + 28 * per_rank(N, P) + dup;
    return P > 1 && dist < tree ? dist : tree;
}

double cli_mem_components(int64_t N, int64_t M, int P)
{
    return mem_cc(N, M, P, 1);
}

double cli_mem_partition(int64_t N, int64_t M, int64_t C, int P, int bfs)
{
    /* docs/partition.md: the edge slab (16 B per edge), labels and degrees
     * of the vertex block (8 + 8 per vertex), the component sizes (16 per
     * component), exchange buffers of 2^21 records (24 bytes, both ways),
     * and for the bfs order a CSR of the block's rows (8 per entry) */
    double m = per_rank(M, P), nl = per_rank(N, P);
    return 16 * m + 16 * nl + 16 * (double)C + 2.0 * 24 * (1 << 21) + (bfs ? 16 * m : 0);
}

double cli_mem_run(int64_t N, int64_t M, int P, int in_process, int placed)
{
    /* docs/kernels.md, "Memory": kernel 1 peaks in its merge at 16.56
     * bytes per input edge of the rank (with float weights) + rowptr and
     * duplicate flags (9 per local vertex) and round buffers (at least 5
     * MiB, 20 at P > 1); the searches then hold the graph (14.1 per edge)
     * and 17 bytes per local vertex (BFS) or 13 + a ghost index of N/4
     * bytes (SSSP, P > 1). Components and placement inside kernel 1 hold
     * the slab with its weights (20 per edge) under the components' labels
     * and then the build. With G5_MEM_PROCESS, per input edge at SCALE 20
     * (docs/performance.md): cyclic on one rank measured 17.8, this 19.4;
     * inside kernel 1 on two ranks 46.8, this 43.6. Components at SCALE 26
     * on one rank: 7.3 GiB measured, this 7.6. */
    double m = per_rank(M, P), nl = per_rank(N, P);
    double k1 = 16.56 * m + 9 * nl + (P > 1 ? 20.0 : 5.0) * 1048576;
    double sssp = 13 * nl + (P > 1 ? (double)N / 4 : 0);
    double search = 14.1 * m + (sssp > 17 * nl ? sssp : 17 * nl);
    double peak = k1 > search ? k1 : search;
    if (in_process) {
        double cc = mem_cc(N, M, P, 0);
        peak = 20 * m + (cc > k1 ? cc : k1);
    }
    /* a placement's relabelling of all N vertices on every rank (8 bytes
     * each), and 17 while a placement file's labels load, before kernel 1
     * (docs/kernels.md, "Memory") */
    if (placed) {
        peak += 8 * (double)N;
        if (!in_process && 17 * (double)N > peak) peak = 17 * (double)N;
    }
    return peak;
}

const char *cli_mem_what(const char *path, int scale, int64_t nedges)
{
    static char what[4200];
    snprintf(what, sizeof what, "%s (SCALE %d, %lld edges)", path, scale, (long long)nedges);
    return what;
}
