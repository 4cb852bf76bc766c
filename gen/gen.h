/* SPDX-License-Identifier: MIT */
/*
 * gen.h - the Graph500 Kronecker (R-MAT) edge generator: a counter-based
 * PRNG, R-MAT edges by edge index, the seeded vertex scramble, the seeded
 * edge-order shuffle, float32 weights, and the collective writer of edges.h5.
 *
 * Everything is a pure function of (seed, index): the tuple at output
 * position i is
 *
 *     e      = gen_shuffle(g, i)              a bijection of [0, M)
 *     (u, v) = gen_rmat_edge(g, e)            R-MAT in original labels
 *     u, v   = gen_scramble(g, u), (..., v)   a bijection of [0, 2^SCALE)
 *     w      = gen_weight(g, e)               float32 in [0, 1)
 *
 * so any slab can be produced by any rank or thread without communication
 * and the file is bit-identical for every rank and thread count.
 *
 * Errors: as everywhere in g500 (common.h). The pure functions cannot fail;
 * gen_params_check reports bad parameters; gen_write is collective and
 * returns the same status on every rank.
 */
#ifndef G500_GEN_H
#define G500_GEN_H

#include <mpi.h>
#include <stdint.h>

#define GEN_SCALE_MAX 42
#define GEN_NEDGES_MAX (INT64_C(1) << 58)  /* keeps edge counters < 2^64 */
#define GEN_RMAT_A 0.57
#define GEN_RMAT_B 0.19
#define GEN_RMAT_C 0.19
#define GEN_NAME "g500-gen 1 (splitmix64 counters, 16-bit R-MAT levels, Feistel permutations)"

/* Generation parameters (in). */
typedef struct gen_params {
    int scale;           /* N = 2^scale vertices, 1..GEN_SCALE_MAX */
    int edgefactor;      /* M = edgefactor * N edges, >= 1 */
    uint64_t seed;
    double a, b, c;      /* R-MAT quadrant probabilities; d = 1 - a - b - c */
} gen_params;

/* Fill p with the Graph500 defaults (edgefactor 16, A/B/C/D = .57/.19/.19/.05,
 * seed 1) and the given scale. */
void gen_params_default(gen_params *p, int scale);
/* Check p (scale range, edgefactor >= 1, M <= GEN_NEDGES_MAX, probabilities
 * in [0, 1] summing to at most 1). G5_OK or G5_ERR_ARG with a message. Not
 * collective. */
int gen_params_check(const gen_params *p);

/* A generator instance: keys derived from the seed, thresholds, sizes.
 * Plain data (no allocation): initialise with gen_init, copy freely. */
typedef struct gen {
    gen_params p;
    int64_t nvertices, nedges;
    uint64_t key_rmat, key_scramble, key_shuffle;
    uint32_t t_a, t_ab, t_abc;   /* 16-bit cumulative quadrant thresholds */
    int shuffle_bits;            /* ceil(log2(M)) */
} gen;

/* In: checked parameters. Out: *g. Not collective, cannot fail. */
void gen_init(gen *g, const gen_params *p);

/* The counter-based PRNG: 64 random bits for (key, counter). Word `ctr` of
 * the stream `key`; streams of different keys are independent, and any
 * split of a counter range yields the same words. */
uint64_t gen_rand(uint64_t key, uint64_t ctr);
/* The 64-bit finaliser behind gen_rand (a bijection of uint64). */
uint64_t gen_mix64(uint64_t x);
/* A keyed bijection of [0, 2^bits) (bits 1..63): four-round unbalanced
 * Feistel network with gen_rand as round function. */
uint64_t gen_feistel(uint64_t key, int bits, uint64_t x);

/* R-MAT edge number e (0 <= e < M) before scrambling: u, v in [0, N). */
void gen_rmat_edge(const gen *g, uint64_t e, int64_t *u, int64_t *v);
/* Weight of edge number e: float32 uniform on the 2^24 multiples of 2^-24
 * in [0, 1). */
float gen_weight(const gen *g, uint64_t e);
/* Vertex scramble: a bijection of [0, N). */
int64_t gen_scramble(const gen *g, int64_t x);
/* Edge-order shuffle: output position i (0 <= i < M) holds edge number
 * gen_shuffle(g, i); a bijection of [0, M) (Feistel + cycle walking). */
int64_t gen_shuffle(const gen *g, int64_t i);

/* One term of the content id of an edges file: a 64-bit hash of (position,
 * u, v, bits of the weight). The content id is the sum mod 2^64 of the terms
 * of all positions, so it does not depend on how the list is split. */
uint64_t gen_content_term(int64_t i, int64_t u, int64_t v, float w);

/* Produce output positions [first, first+count): edges[k][0..1] = (u, v) and
 * weights[k] (either may be NULL to skip it) for position first+k, with
 * OpenMP threads. If content is not NULL, the sum of gen_content_term over
 * the slab is added to *content. Not collective; cannot fail. */
void gen_slab(const gen *g, int64_t first, int64_t count, int64_t *edges,
              float *weights, uint64_t *content);

/* What gen_write reports (out). */
typedef struct gen_result {
    double seconds;          /* wall time of generation + write (rank 0's) */
    uint64_t content_id;
    int64_t peak_rss_max;    /* bytes, max over ranks */
} gen_result;

/* Collective on comm. Generate the whole edge list of p and write it to
 * `path` (atomically: temporary name, renamed when complete) with the
 * default layout (IO_EDGES_CHUNK_ROWS, Fletcher32), printing progress on
 * rank 0. force: replace an existing file. result (out, may be NULL) is
 * filled on every rank. Returns the same status on every rank; on failure
 * no file is left. */
int gen_write(MPI_Comm comm, const gen_params *p, const char *path, int force,
              gen_result *result);

/* The `g500 gen` subcommand (collective on MPI_COMM_WORLD, returns the exit
 * code). */
int gen_cmd(int argc, char **argv);

#endif
