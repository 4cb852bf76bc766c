/* SPDX-License-Identifier: MIT */
/*
 * topo.h - switch-tree topology: parser for Slurm's topology.conf
 * (topology/tree) and Scotch's tleaf line, hop distances, rank-to-node maps.
 *
 * Errors: G5_OK or negative G5_ERR_* with a message "FILE:LINE: problem"
 * (common.h). Nothing here is collective except topo_map_ranks_by_name.
 *
 * Nodes are numbered 0..nnodes-1 in switch-tree walk order (depth first,
 * children in file order), so nodes under one leaf switch are adjacent and
 * a rank order that follows node numbers follows the tree.
 * Hops between two nodes = switches crossed on the path: same node 0, same
 * leaf switch 1, leaves with a common parent 3, and so on (Slurm's switch
 * distance + 1).
 */
#ifndef G500_TOPO_H
#define G500_TOPO_H

#include <mpi.h>
#include <stdint.h>

typedef struct topo topo;

/* Parse a file: a tleaf line or Slurm topology.conf syntax. Caller frees
 * with topo_free. */
int topo_load(const char *path, topo **out);
/* Parse text; `name` is used in messages in place of a file name. */
int topo_parse(const char *text, const char *name, topo **out);
void topo_free(topo **t);               /* accepts NULL and *t == NULL */
/* Check every invariant (debug builds and tests). */
int topo_check(const topo *t);

int topo_num_nodes(const topo *t);
int topo_num_switches(const topo *t);
int topo_num_levels(const topo *t);     /* switch levels, leaf = 1 */
const char *topo_node_name(const topo *t, int node);
int topo_node_index(const topo *t, const char *name);   /* -1 if unknown */
int topo_hops_between(const topo *t, int node_a, int node_b);
/* A 64-bit identity of the tree (names and structure), for file records. */
uint64_t topo_id(const topo *t);
const char *topo_source(const topo *t); /* the path or name parsed */

/* Emulation: rank r runs on node r / ranks_per_node (node numbers in walk
 * order). rank_node: out, [nranks]. Too few nodes, or nranks not a multiple
 * of ranks_per_node: G5_ERR_TOPO with a clear message. */
int topo_map_ranks_per_node(const topo *t, int nranks, int ranks_per_node, int *rank_node);
/* Real cluster, collective on comm: each rank's processor name is looked up;
 * a host missing from the file is G5_ERR_TOPO naming it, on every rank.
 * rank_node: out, [comm size], identical on every rank. */
int topo_map_ranks_by_name(const topo *t, MPI_Comm comm, int *rank_node);
/* Collective on comm: the first when ranks_per_node > 0, else the second
 * (nranks is then comm's size); the status agreed either way. */
int topo_map_ranks(const topo *t, MPI_Comm comm, int nranks, int ranks_per_node, int *rank_node);
/* The n x n hop matrix between nodes nodes[0..n-1] (NULL: nodes 0..n-1),
 * row-major: (*out)[a * n + b] = topo_hops_between(nodes[a], nodes[b]).
 * *out is allocated (caller frees); G5_ERR_NOMEM if it cannot be. Not
 * collective. */
int topo_hop_matrix(const topo *t, const int *nodes, int n, int **out);

/* ---- additions beyond the first contract (all not collective) ----------
 * Switches are numbered 0..nswitches-1 in the same walk (pre-order, root 0,
 * a parent before its children); the nodes below switch s are the range
 * [first, first + count). Out-of-range arguments give -1 or NULL. */
int topo_num_leaves(const topo *t);         /* leaf switches              */
int topo_max_hops(const topo *t);           /* largest hops between nodes */
int topo_is_tleaf(const topo *t);           /* 1 if parsed from a tleaf   */
int topo_node_switch(const topo *t, int node);          /* its leaf switch */
const char *topo_switch_name(const topo *t, int sw);
int topo_switch_parent(const topo *t, int sw);          /* -1 for the root */
int topo_switch_depth(const topo *t, int sw);           /* root 0          */
int topo_switch_is_leaf(const topo *t, int sw);
int topo_switch_num_children(const topo *t, int sw);    /* child switches  */
int topo_switch_link_speed(const topo *t, int sw);      /* -1 if not given */
int topo_switch_line(const topo *t, int sw);            /* its source line */
/* out: *first, *count = the nodes below sw. G5_ERR_ARG for a bad sw. */
int topo_switch_nodes(const topo *t, int sw, int *first, int *count);
/* Slurm's switch distance (links on the tree path); 0 for one switch. */
int topo_switch_distance(const topo *t, int sw_a, int sw_b);

#endif
