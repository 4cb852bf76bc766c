/* SPDX-License-Identifier: MIT */
/*
 * bench_cc.c - speed of the in-memory connected-components stage against a
 * plain union-find, on a Graph500-shaped edge list made in memory.
 *
 * Graph: the generator's own edge list (gen_slab with the defaults of
 * `g500 gen --scale SCALE`: seed 1, edgefactor 16, A/B/C = .57/.19/.19,
 * Feistel vertex scramble, shuffled edge order), so every measure runs on
 * exactly the tuples the edges file holds, made in memory by each rank for
 * its own block (rank 0 makes the whole list for the plain baseline).
 *
 * Timed, median of --reps runs each:
 *   plain   one thread, union by size with path halving over the edge
 *           stream (int32 parent and size arrays, their allocation and
 *           initialisation timed), at one rank only, all edges; each rep
 *           runs right before a rep of forest, so that the two are timed
 *           side by side: forest's paired= is the median over reps of the
 *           ratio of the two (this machine's shared caches and memory
 *           bandwidth move both by 20-50% from minute to minute, which a
 *           ratio of medians taken minutes apart carries in full);
 *   stream  one read of every edge of this rank's block at THREADS (the
 *           xor of its ends summed): the memory-bandwidth ceiling of any
 *           method that reads the edge list, for orientation;
 *   forest  cc_forest_create + cc_forest_link_edges on this rank's block
 *           at THREADS (creation timed, as plain's initialisation is);
 *   pieces  the same, the block fed in calls of 2^20 edges (as a stage
 *           that links each piece of the edge list as it is read);
 *   stage   cc_compute with the tree merge, without the duplicate count
 *           (its hashing and finish): link with the edge tally + merge +
 *           labelling + broadcast + edges per component, on every rank;
 *   counts  the statistics pass over the slab with the labels of stage:
 *           cc_count_edges then cc_count_distinct (separate=), against
 *           cc_count_edges with the duplicate count in pieces of 1 Mi
 *           tuples, as the stage adds them while reading (pieces=:
 *           create, adds, finish, all timed), alternated per rep.
 * plain and forest are timed alike, as a user of the stage sees them: the
 * arrays are allocated inside each timed rep from a fresh mapping (malloc
 * with a fixed 1 MiB mmap threshold, freed after the rep), so every rep
 * pays the first touch of its pages, as the stage does once per run in a
 * fresh process (about 1 ns per byte on 4 KiB pages on the reference VM;
 * the forest's block asks for huge pages, which fault far faster).
 * Prints one line per measure: "name ranks threads seconds edges_per_s".
 * Usage: mpirun -np P bench_cc SCALE THREADS [REPS]
 *
 * With --file EDGES.h5 tree|distributed instead, it computes the
 * components of the file by cc_compute_file with that merge forced (the
 * command takes it by its rule) and prints the command's phase lines
 * ("computed in", "merge ..., label ...", "peak RSS ... when labelled"):
 * bench/bench-cc-merge.sh compares the two merges so.
 */
#include "bench_graph.h"
#include "cc_internal.h"
#include "common.h"
#include "gen.h"

#include <malloc.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The baseline: a textbook union-find. Returns the number of sets. */
static int64_t plain_uf(int64_t n, const int64_t *e, int64_t m, int32_t *parent, int32_t *size)
{
    int64_t sets = 0;
    for (int64_t v = 0; v < n; v++) {
        parent[v] = (int32_t)v;
        size[v] = 1;
    }
    for (int64_t i = 0; i < m; i++) {
        int32_t a = (int32_t)e[2 * i], b = (int32_t)e[2 * i + 1];
        while (parent[a] != a) {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        while (parent[b] != b) {
            parent[b] = parent[parent[b]];
            b = parent[b];
        }
        if (a == b)
            continue;
        if (size[a] < size[b]) {
            int32_t t = a;
            a = b;
            b = t;
        }
        parent[b] = a;
        size[a] += size[b];
    }
    for (int64_t v = 0; v < n; v++)
        sets += parent[v] == v && size[v] > 1;
    return sets;
}

/* --file EDGES.h5 tree|distributed: see the file comment. */
static int file_mode(const char *path, const char *how)
{
    int rank, p, rc;
    io_edges *e = NULL;
    cc_result *r = NULL;
    int64_t first, count;
    const int merge = !strcmp(how, "distributed") ? CC_MERGE_DISTRIBUTED : CC_MERGE_TREE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    rc = io_edges_open(MPI_COMM_WORLD, path, &e);
    if (rc == G5_OK) {
        g5_range_split(io_edges_get_meta(e)->nedges, rank, p, &first, &count);
        const double t0 = g5_now();
        rc = cc_compute_file(MPI_COMM_WORLD, e, first, count, &(cc_opts){.merge = merge}, &r);
        if (rc == G5_OK && rank == 0)
            fprintf(stderr, "components: computed in %.2fs after the read, %s merge (merge %.3fs, label %.3fs, "
                    "count %.3fs, duplicates %.3fs): %lld components\n"
                    "components: peak RSS %.1f MiB (max over ranks) when labelled, before the duplicate count\n",
                    g5_now() - t0 - r->t_read, cc_merge_name(r->merge), r->t_merge, r->t_label, r->t_count,
                    r->t_distinct, (long long)r->ncomp, (double)r->rss_labelled / 1048576.0);
    }
    if (rc != G5_OK && rank == 0)
        fprintf(stderr, "bench_cc: %s\n", g5_error_msg());
    cc_result_free(&r);
    io_edges_close(&e);
    MPI_Finalize();
    return rc == G5_OK ? 0 : 1;
}

static double median(double *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, bench_cmp_double);
    return t[k / 2];
}

/* One rep of the baseline on all m edges; its time. */
static double plain_rep(int64_t n, const int64_t *e, int64_t m, int64_t *sets)
{
    const double t0 = g5_now();
    int32_t *parent = malloc((size_t)n * 4), *size = malloc((size_t)n * 4);
    if (!parent || !size) {
        fprintf(stderr, "bench_cc: out of memory for the plain union-find\n");
        exit(1);
    }
    *sets = plain_uf(n, e, m, parent, size);
    const double t = g5_now() - t0;
    free(parent);
    free(size);
    return t;
}

/* Median over reps (max over ranks) of cc_forest_create + the link of
 * this rank's count edges fed in calls of piece edges; -1 when the forest
 * cannot be made. plain (one rank only, else NULL): before each rep a rep
 * of the baseline on all count edges, its time in plain[rep] and the
 * ratio of the two in ratio[rep]. Collective. */
static double link_median(int64_t n, const int64_t *e, int64_t count, int64_t first, int threads, int64_t piece,
                          int reps, double *t, double *plain, double *ratio, int64_t *sets)
{
    for (int r = 0; r < reps; r++) {
        cc_forest *f;
        if (plain)
            plain[r] = plain_rep(n, e, count, sets);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = g5_now();
        if (cc_forest_create(n, &f) != G5_OK)
            return -1;
        for (int64_t i = 0; i < count; i += piece)
            cc_forest_link_edges(f, e + 2 * i, count - i < piece ? count - i : piece, first + i, threads);
        t[r] = g5_now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        cc_forest_free(&f);
        if (plain)
            ratio[r] = plain[r] / t[r];
    }
    return median(t, reps);
}

/* One run's setting and this rank's block of the edge list. */
typedef struct bench {
    int rank, p, scale, threads, reps;
    int64_t n, m, first, count;
    const int64_t *e;
} bench;

/* stream: median over reps (max over ranks) of one read of this rank's
 * block, the xor of its ends summed. Collective. */
static double stream_median(const bench *b, double *t)
{
    for (int r = 0; r < b->reps; r++) {
        uint64_t x = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = g5_now();
        const int64_t *e = b->e;
#pragma omp parallel for num_threads(b->threads) schedule(static) reduction(+ : x)
        for (int64_t i = 0; i < b->count; i++)
            x += (uint64_t)(e[2 * i] ^ e[2 * i + 1]);
        t[r] = g5_now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (x == 42)  /* keeps the sum alive */
            printf("#\n");
    }
    return median(t, b->reps);
}

/* plain, forest and pieces; at one rank, plain and forest alternate, rep by
 * rep. Returns 0, or 1 when the forest cannot be made. Collective. */
static int link_lines(const bench *b)
{
    const int p = b->p, threads = b->threads, scale = b->scale, reps = b->reps;
    const double m = (double)b->m;
    double t[32], tp[32], ratio[32];
    int64_t sets = 0;
    double s = link_median(b->n, b->e, b->count, b->first, threads, b->count, reps, t,
                           p == 1 ? tp : NULL, ratio, &sets);
    if (s < 0)
        return 1;
    if (p == 1) {
        const double sp = median(tp, reps);
        printf("plain  ranks=1 threads=1 scale=%d seconds=%.4f edges_per_s=%.3e sets=%lld\n", scale, sp,
               m / sp, (long long)sets);
    }
    if (b->rank == 0 && p == 1) {
        const double pr = median(ratio, reps);  /* sorts ratio */
        printf("forest ranks=%d threads=%d scale=%d seconds=%.4f edges_per_s=%.3e paired=%.2f (link of each "
               "rank's slab; paired: median over reps of plain / forest, each pair timed back to back; "
               "range %.2f-%.2f)\n", p, threads, scale, s, m / s, pr, ratio[0], ratio[reps - 1]);
    }
    else if (b->rank == 0)
        printf("forest ranks=%d threads=%d scale=%d seconds=%.4f edges_per_s=%.3e (link of each rank's slab)\n",
               p, threads, scale, s, m / s);
    s = link_median(b->n, b->e, b->count, b->first, threads, (int64_t)1 << 20, reps, t, NULL, NULL, NULL);
    if (s < 0)
        return 1;
    if (b->rank == 0)
        printf("pieces ranks=%d threads=%d scale=%d seconds=%.4f edges_per_s=%.3e (the link in pieces of 2^20 edges)\n",
               p, threads, scale, s, m / s);
    return 0;
}

/* counts: separate and in pieces, alternated rep by rep, on the labels of
 * res. Returns 0, or 1 when the duplicate count cannot be made. Collective. */
static int counts_line(const bench *b, const cc_result *res)
{
    const int threads = b->threads, reps = b->reps;
    const int64_t n = b->n, count = b->count, *e = b->e;
    double tv[2][32];
    int64_t *ce = calloc((size_t)res->ncomp + 1, sizeof *ce), x[2], d;
    for (int q = 0; q < reps; q++) {
        for (int how = 0; how < 2; how++) {
            x[0] = x[1] = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = g5_now();
            if (how == 0) {
                cc_count_edges(res->label, res->ncomp, e, count, threads, ce, &x[0], &x[1]);
                cc_count_distinct(MPI_COMM_WORLD, n, e, count, threads, &d);
            } else {
                cc_dup *dp = NULL;
                const int64_t piece = (int64_t)1 << 20;
                if (cc_dup_create(MPI_COMM_WORLD, n, count, threads, &dp) != G5_OK)
                    return 1;
                for (int64_t i = 0; i < count; i += piece)
                    cc_dup_add(dp, e + 2 * i, count - i < piece ? count - i : piece);
                cc_count_edges(res->label, res->ncomp, e, count, threads, ce, &x[0], &x[1]);
                cc_dup_finish(MPI_COMM_WORLD, dp, e, count, &d);
                cc_dup_free(&dp);
            }
            tv[how][q] = g5_now() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &tv[how][q], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
    }
    if (b->rank == 0)
        printf("counts ranks=%d threads=%d scale=%d separate=%.4f pieces=%.4f (edges per "
               "component + duplicates, median of %d)\n", b->p, threads, b->scale, median(tv[0], reps),
               median(tv[1], reps), reps);
    free(ce);
    return 0;
}

/* stage: the whole cc_compute minus its duplicate count, then counts on
 * its labels. Returns 0, or 1 on failure. Collective. */
static int stage_lines(const bench *b)
{
    const int p = b->p, threads = b->threads, scale = b->scale, reps = b->reps;
    const int64_t n = b->n;
    double t[32];
    for (int r = 0; r < reps; r++) {
        cc_result *res = NULL;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = g5_now();
        if (cc_compute(MPI_COMM_WORLD, n, b->e, b->count, b->first,
                       &(cc_opts){.nthreads = threads, .merge = CC_MERGE_TREE}, &res) != G5_OK) {
            fprintf(stderr, "%s\n", g5_error_msg());
            return 1;
        }
        t[r] = g5_now() - t0 - res->t_distinct - res->t_hash;
        MPI_Allreduce(MPI_IN_PLACE, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (b->rank == 0 && r == reps - 1)
            printf("stage  ranks=%d threads=%d scale=%d seconds=%.4f edges_per_s=%.3e link=%.4f merge=%.4f "
                   "label=%.4f count=%.4f hash=%.4f distinct=%.4f components=%lld giant=%.4f isolated=%.4f\n",
                   p, threads, scale, median(t, reps), (double)b->m / median(t, reps), res->t_link,
                   res->t_merge, res->t_label, res->t_count, res->t_hash, res->t_distinct, (long long)res->ncomp,
                   res->meta.giant_active_share, (double)res->meta.isolated_vertices / (double)n);
        if (r == reps - 1 && counts_line(b, res))
            return 1;
        cc_result_free(&res);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, p, reps = 3;
    if (!bench_start(&argc, &argv, 3, "mpirun -np P bench_cc SCALE THREADS [REPS]\n"
                     "       mpirun -np P bench_cc --file EDGES.h5 tree|distributed", &rank, &p))
        return 2;
    if (argc == 4 && !strcmp(argv[1], "--file"))
        return file_mode(argv[2], argv[3]);
    const int scale = atoi(argv[1]), threads = atoi(argv[2]);
    if (argc > 3)
        reps = atoi(argv[3]);
    if (reps < 1 || reps > 32)
        reps = reps < 1 ? 1 : 32;
    const int64_t n = (int64_t)1 << scale, m = 16 * n;
    const int64_t first = m * rank / p, count = m * (rank + 1) / p - first;
    /* plain and forest allocate their arrays inside each timed rep, as the
     * stage does once per run in a fresh process: a fixed threshold makes
     * every block of 1 MiB or more a fresh mapping (glibc otherwise raises
     * the threshold after the first free and recycles the pages, so that
     * later reps would skip the first-touch faults a fresh process pays) */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    int64_t *e = malloc((size_t)(rank == 0 && p == 1 ? m : count) * 16);
    omp_set_num_threads(threads);
    gen_params gp;
    gen g;
    gen_params_default(&gp, scale);
    gen_init(&g, &gp);
    /* the exact tuples `g500 gen --scale SCALE` writes at these positions */
    gen_slab(&g, first, count, e, NULL, NULL);
    const bench b = {rank, p, scale, threads, reps, n, m, first, count, e};

    double t[32];
    const double s = stream_median(&b, t);
    if (rank == 0)
        printf("stream ranks=%d threads=%d scale=%d seconds=%.4f edges_per_s=%.3e (one read of the edge list)\n",
               p, threads, scale, s, (double)m / s);
    if (link_lines(&b) || stage_lines(&b))
        return 1;
    free(e);
    MPI_Finalize();
    return 0;
}
