/* SPDX-License-Identifier: MIT */
/*
 * topo_internal.h - the layout of struct topo, shared by the files of the
 * topo module only (topo.c parses and queries, topo_map.c maps ranks).
 * Other modules use the accessors in topo.h.
 */
#ifndef G500_TOPO_INTERNAL_H
#define G500_TOPO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define TOPO_NAME_MAX 64              /* Slurm's limit on a switch name     */
#define TOPO_MAX_NODES (1 << 20)      /* nodes in one file                  */
#define TOPO_MAX_SWITCHES (1 << 20)   /* switches in one file               */
#define TOPO_MATRIX_LEAVES 2048       /* leaf x leaf matrix up to this size */
#define TOPO_MAX_GROUPS 8             /* bracket groups in a hostlist name  */
#define TOPO_MAX_RANGES 4096          /* ranges in one hostlist element     */
#define TOPO_TLEAF_MAX_LEVELS 16
#define TOPO_MAX_FILE (256 << 20)     /* bytes                              */

enum { TOPO_KIND_SLURM = 0, TOPO_KIND_TLEAF = 1 };

/* One switch, numbered in pre-order of the walk (root = 0). */
struct topo_switch {
    int name;     /* pool offset                                        */
    int line;     /* line of its SwitchName= (tleaf: the tleaf line)    */
    int speed;    /* LinkSpeed, -1 if not given                         */
    int parent;   /* -1 for the root                                    */
    int depth;    /* root 0                                             */
    int height;   /* leaf 1, else 1 + max over children                 */
    int nsub;     /* switches in its subtree, itself included           */
    int first;    /* its subtree's nodes are [first, first + count)     */
    int count;
    int nchild;   /* direct child switches                              */
    int leaf;     /* leaf index (walk order) or -1 for an inner switch  */
};

struct topo {
    char *source;
    int kind;
    char *pool;               /* NUL-terminated names, back to back */
    size_t pool_len, pool_cap;
    int nsw, nnodes, nleaves, levels, max_depth, max_hops;
    struct topo_switch *sw;   /* [nsw]                               */
    int *node_name;           /* [nnodes] pool offsets               */
    int *node_leaf;           /* [nnodes] switch number of its leaf  */
    int *leaf_sw;             /* [nleaves] switch number of leaf i   */
    uint16_t *leafdist;       /* [nleaves][nleaves] or NULL          */
    int *node_hash;           /* open addressing, node number or -1  */
    size_t node_hash_mask;
    uint64_t id;
};

#endif
