/* SPDX-License-Identifier: MIT */
/*
 * topo_internal.h - the layout of struct topo, shared by the files of the
 * topo module only (topo_parse.c parses, topo_build.c checks and numbers,
 * topo.c queries, topo_map.c maps ranks), and the parser's state.
 * Other modules use the accessors in topo.h.
 */
#ifndef G500_TOPO_INTERNAL_H
#define G500_TOPO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "topo.h"

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

/* Names: FNV-1a, and open-addressing tables of ids whose name of id i is
 * pool + name_of[i] (topo.c). */
#define FNV_OFFSET 14695981039346656037ULL
uint64_t topo_fnv1a(uint64_t h, const void *data, size_t n);

struct htab {
    int *slot;
    size_t mask;
};

int topo_htab_init(struct htab *h, size_t n, const char *what);
/* Position of key in the table: the slot holding it or the empty slot
 * where it belongs. */
size_t topo_htab_pos(const struct htab *h, const char *pool, const int *name_of,
                     const char *key, size_t len);

/* The parser's raw switch list (topo_parse.c fills it, topo_build.c reads
 * it). */
struct raw_sw {
    int name;          /* pool offset */
    int line;
    int speed;         /* LinkSpeed, -1 if absent */
    int is_leaf;
    int lo, hi;        /* its items: [lo, hi) in parser.items */
};

struct parser {
    topo *t;
    const char *src;
    int line;
    struct raw_sw *sw;
    int nsw, capsw;
    int *items;        /* pool offsets of child names (nodes or switches) */
    int nitems, capitems;
    int64_t nnode_items;   /* names under Nodes= so far */
};

/* topo_build.c: resolve names, run the tree checks, renumber in walk
 * order and fill p->t; then the leaf x leaf matrix, the identity and the
 * largest hop count. */
int topo_build(struct parser *p);
int topo_fill_matrix(topo *t);
uint64_t topo_compute_id(const topo *t);
int topo_compute_max_hops(topo *t);

#endif
