/* SPDX-License-Identifier: MIT */
/*
 * part.h - placement of a graph's connected components on R ranks and their
 * nodes by switch hops, vertex relabelling, and placement quality metrics.
 *
 * What it does (DESIGN.md, partition): Graph500 graphs have one giant
 * component, a few hundred pairs and triples, and 38-51% isolated vertices.
 *   compact    non-isolated vertices get new ids [0, n_active), isolated ones
 *              [n_active, N) in original id order, so kernels size per-vertex
 *              state by n_active;
 *   keep whole every component except the giant goes whole to the rank whose
 *              edge load is lowest (ties: fewer vertices, lower rank);
 *   giant      split over the ranks: a vertex order (enum part_order) cut
 *              into R contiguous pieces of balanced edge load; if a heavy
 *              vertex on a boundary breaks the tolerance, the hubs (degree
 *              above max(tolerance, 1%) of half a rank's share) are taken
 *              out and placed by LPT first. Piece k goes to the k-th rank of
 *              the switch-tree walk (ranks sorted by node, nodes numbered in
 *              walk order), so consecutive pieces sit under one leaf
 *              switch.
 * Rank r owns new ids [rank_offsets[r], rank_offsets[r+1]): its giant
 * vertices first (in order, then its hubs), then its small components (in component id
 * order, members by original id).
 * The giant is split only when it does not fit on one rank (its load exceeds
 * (1 + tolerance) * total load / R); otherwise it is kept whole like the rest.
 *
 * Distribution: the stage runs on P processes for any R; no process holds
 * all M edges or an N-length array. Process p holds
 *   - a slab of edges (any split: the caller's choice),
 *   - the labels of vertex block g5_range_split(N, p, P) (the first N % P
 *     blocks one longer), and receives new_label and owner for that block.
 * The output depends only on the inputs and R, never on P.
 *
 * Load model: a rank's edge load is the number of adjacency entries it
 * stores in a 1-D CSR, i.e. the degree sum of its vertices, counting every
 * non-self-loop input tuple at both endpoints, duplicates included (the
 * TEPS edge rule). Self-loops are ignored everywhere.
 *
 * Errors: G5_OK or a negative G5_ERR_* with a message (common.h).
 * Inconsistent inputs (labels that disagree with the edges or with the
 * component sizes) are G5_ERR_MISMATCH.
 */

/*
 * Metrics (for this placement and for the cyclic v mod R and block
 * baselines, which distribute all N vertices as the reference code does):
 *   cut_edges      non-self-loop tuples whose endpoints have different owners
 *   hop_cut        sum over cut tuples of node_hops[node(owner u)][node(owner v)]
 *                  (0 when both ranks share a node)
 *   rank_edges[r], rank_vertices[r] (vertex slots a rank allocates)
 *   edge_imbalance, vertex_imbalance = max / mean over ranks
 *   bytes_per_vertex  kernel state per original vertex. Model: every vertex
 *                  slot a rank allocates holds a CSR row pointer (8 B), a
 *                  BFS parent (8 B), an SSSP distance (4 B float) and an
 *                  SSSP parent (8 B), plus a frontier bitmap bit and a
 *                  visited bitmap bit, and every rank holds one replicated
 *                  bottom-up frontier bitmap of (allocated slots) bits:
 *                  bytes = slots * (28 + 2/8) + R * slots/8, divided by N.
 *                  The placement allocates n_active slots, baselines N.
 */
#ifndef G500_PART_H
#define G500_PART_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#define PART_DEFAULT_TOLERANCE 0.05

/* Vertex order in which the giant is cut (part_input.order):
 *   BFS     Cuthill-McKee-like BFS order from the highest-degree vertex
 *   ID      original ids (random for Graph500's scrambled labels)
 *   DEGREE  highest degree first
 *   LEAVES  original ids, each degree-1 vertex right after its neighbour
 * The command's default is LEAVES (it cuts the fewest edges for one more
 * pass; docs/partition.md); the others are there to measure what the order
 * buys. */
enum part_order { PART_ORDER_BFS = 0, PART_ORDER_ID = 1, PART_ORDER_DEGREE = 2, PART_ORDER_LEAVES = 3 };
const char *part_order_name(int order);   /* "bfs", "id", "degree", "leaves" */

enum part_scheme { PART_PLACEMENT = 0, PART_CYCLIC = 1, PART_BLOCK = 2, PART_NSCHEMES = 3 };
/* "placement", "cyclic", "block" */
const char *part_scheme_name(int scheme);

/* The state-bytes model above, per vertex slot and per rank. */
double part_state_bytes(int64_t slots, int nranks);

typedef struct part_input {
    int64_t nvertices;             /* N                                       */
    int64_t nedges_local;          /* tuples in this process's slab           */
    const int64_t *edges;          /* [nedges_local][2], ids in [0, N)        */
    const int64_t *label;          /* [block], component id or -1 (isolated) */
    int64_t ncomponents;           /* C, replicated                          */
    const int64_t *comp_vertices;  /* [C], replicated                        */
    const int64_t *comp_edges;     /* [C], replicated                        */
    int nranks;                    /* R >= 1                                  */
    const int *rank_node;          /* [R] node index in [0, nnodes)           */
    int nnodes;
    const int *node_hops;          /* [nnodes][nnodes], row major, 0 diagonal */
    double tolerance;              /* edge balance tolerance, e.g. 0.05       */
    int order;                     /* enum part_order; 0 = BFS               */
    int skip_metrics;              /* 1: metrics left zero (a run needs only
                                    * the labels and owners)                 */
    int64_t exchange_records;      /* records per process per exchange round
                                    * (<= 0: 2^21); tests lower it to run many
                                    * rounds; results never depend on it      */
} part_input;

typedef struct part_metrics {
    int64_t cut_edges;
    int64_t hop_cut;
    int64_t total_edges;           /* non-self-loop tuples                    */
    double edge_imbalance, vertex_imbalance;
    double bytes_per_vertex;
    int64_t *rank_edges;           /* [R] */
    int64_t *rank_vertices;        /* [R] */
} part_metrics;

typedef struct part_result {
    int nranks;
    int64_t nvertices;
    int64_t n_active;              /* non-isolated vertices                  */
    int64_t n_giant;               /* vertices of component 0 (0 if C = 0)    */
    int giant_split;               /* 1 if component 0 was split over ranks  */
    int64_t giant_root;            /* BFS root (original id), -1 if none      */
    int64_t giant_hubs;            /* giant vertices placed by LPT, not order */
    int bfs_levels;
    int64_t *rank_offsets;         /* [R+1], replicated                       */
    int64_t block_first, block_count;   /* this process's vertex block       */
    int64_t *new_label;            /* [block_count]                           */
    int32_t *owner;                /* [block_count], -1 for isolated          */
    part_metrics metrics[PART_NSCHEMES];  /* replicated */
} part_result;

/* Collective on comm. Place, relabel and measure. in: this process's slab
 * and label block (see above); every replicated field equal on all ranks.
 * out: a new result owned by the caller (part_result_free). Returns the same
 * status on every rank. */
int part_place(MPI_Comm comm, const part_input *in, part_result **out);
void part_result_free(part_result **r);   /* accepts NULL and *r == NULL */

/* Not collective. Print the comparison table (placement vs cyclic vs block)
 * of a result, or JSON when json != 0. n_active, N, R come from the arrays
 * given; rank_edges/rank_vertices of each scheme may be NULL (not printed). */
void part_print_table(FILE *out, int json, int64_t nvertices, int64_t n_active,
                      int nranks, const part_metrics m[PART_NSCHEMES]);

/* Not collective. Write the Open MPI rankfile ("rank r=host slot=s", slots
 * counted per node in rank order), the SLURM_HOSTFILE (one host per line
 * in rank order) or the MPICH machinefile ("host:n" for each run of n
 * consecutive ranks on one host) atomically (temporary name, then rename).
 * host_of_rank: [R]. Returns G5_ERR_IO naming the file on failure. */
int part_write_rankfile(const char *path, int nranks, const char *const *host_of_rank);
int part_write_hostfile(const char *path, int nranks, const char *const *host_of_rank);
int part_write_machinefile(const char *path, int nranks, const char *const *host_of_rank);

/* Collective on comm. Write a placement file atomically: meta (its nranks,
 * nnodes, nvertices, n_active, n_giant must agree with res), rank_node [R]
 * (indices into node_names), node_names [nnodes][IO_NODE_NAME_MAX],
 * node_hops [nnodes][nnodes], each process its vertex block of res. */
struct io_placement_meta;
int part_save(MPI_Comm comm, const char *path, int force, const part_result *res,
              const struct io_placement_meta *meta, const int *rank_node,
              const char *node_names, const int *node_hops);

/* Collective on the file's communicator. Print the comparison table of a
 * placement file (g500-placement), or JSON when json != 0, on `out` (rank 0
 * of the communicator prints; others print nothing). Used by `g500 stats`. */
struct io_file;
int part_stats_print(struct io_file *f, FILE *out, int json);
/* The same from a path (collective on comm: opens, checks, prints, closes);
 * the form `g500 stats` dispatches to. */
int part_stats_print_path(MPI_Comm comm, const char *path, FILE *out, int json);

/* The `partition` subcommand (partition_cmd.c). Collective on
 * MPI_COMM_WORLD; returns the process exit code. */
int partition_cmd(int argc, char **argv);

#endif
