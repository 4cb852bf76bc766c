/* SPDX-License-Identifier: MIT */
/*
 * topo_build.c - from the parser's raw switch list to the tree: name
 * resolution, Slurm's tree checks, the walk-order numbering, the leaf x
 * leaf distance matrix, the identity and the largest hop count.
 *
 * Encoding after parsing. Switches are renumbered in pre-order of a depth
 * first walk from the one top switch (children in file order): switch 0 is
 * the root, a parent precedes its children, and the subtree of switch s is
 * the switch range [s, s + nsub). Nodes are numbered as the walk meets them,
 * so the nodes below any switch are the range [first, first + count).
 * Names live in one string pool and are referred to by offset; node names
 * are found through an open-addressing hash table (FNV-1a).
 *
 */
#include "topo.h"
#include "topo_internal.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>

/* ---- building the tree -------------------------------------------------- */

#define SWNAME(p, i) ((p)->t->pool + (p)->sw[i].name)

/* The build's working arrays, indexed by raw switch (file order), raw item
 * and raw node (first-seen order). */
struct bld {
    struct parser *p;
    struct htab swh, nodeh;
    int *sw_name_of, *parent, *child, *node_name, *node_sw;
    int *order, *newid, *stack, *node_new;
    int nraw_nodes, root;
};

/* Switch names into the table; duplicates refused. */
static int index_switches(struct bld *b)
{
    struct parser *p = b->p;
    topo *t = p->t;
    for (int i = 0; i < p->nsw; i++) {
        const char *nm = SWNAME(p, i);
        size_t pos = topo_htab_pos(&b->swh, t->pool, b->sw_name_of, nm, strlen(nm));
        if (b->swh.slot[pos] >= 0)
            return g5_error(G5_ERR_TOPO, "%s:%d: duplicate switch name '%s' (first defined at line %d)",
                            p->src, p->sw[i].line, nm, p->sw[b->swh.slot[pos]].line);
        b->sw_name_of[i] = p->sw[i].name;
        b->swh.slot[pos] = i;
        b->parent[i] = -1;
    }
    return G5_OK;
}

/* Item k of inner switch i names a child switch: one parent each. */
static int resolve_child(struct bld *b, int i, int k, const char *nm, size_t len)
{
    struct parser *p = b->p;
    const struct raw_sw *s = &p->sw[i];
    size_t pos = topo_htab_pos(&b->swh, p->t->pool, b->sw_name_of, nm, len);
    int c = b->swh.slot[pos];
    if (c < 0)
        return g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists unknown switch '%s' "
                        "(no SwitchName=%s line)", p->src, s->line, SWNAME(p, i), nm, nm);
    if (c == i)
        return g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists itself under Switches= "
                        "(a cycle)", p->src, s->line, nm);
    if (b->parent[c] == i)
        return g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists switch '%s' twice",
                        p->src, s->line, SWNAME(p, i), nm);
    if (b->parent[c] >= 0)
        return g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' has two parents: '%s' (line %d) "
                        "and '%s'", p->src, s->line, nm, SWNAME(p, b->parent[c]),
                        p->sw[b->parent[c]].line, SWNAME(p, i));
    b->parent[c] = i;
    b->child[k] = c;
    return G5_OK;
}

/* Item k of leaf switch i names a node: under one leaf, once. */
static int resolve_node(struct bld *b, int i, int k, const char *nm, size_t len)
{
    struct parser *p = b->p;
    const struct raw_sw *s = &p->sw[i];
    size_t pos = topo_htab_pos(&b->nodeh, p->t->pool, b->node_name, nm, len);
    int nd = b->nodeh.slot[pos];
    if (nd >= 0) {
        if (b->node_sw[nd] == i)
            return g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists node '%s' twice",
                            p->src, s->line, SWNAME(p, i), nm);
        return g5_error(G5_ERR_TOPO, "%s:%d: node '%s' is under two leaf switches: "
                        "'%s' (line %d) and '%s'", p->src, s->line, nm,
                        SWNAME(p, b->node_sw[nd]), p->sw[b->node_sw[nd]].line, SWNAME(p, i));
    }
    b->node_name[b->nraw_nodes] = p->items[k];
    b->node_sw[b->nraw_nodes] = i;
    b->nodeh.slot[pos] = b->nraw_nodes++;
    b->child[k] = -1;
    return G5_OK;
}

/* Children and nodes, checked in file order; then the one top switch. */
static int resolve_items(struct bld *b)
{
    struct parser *p = b->p;
    int rc;
    for (int i = 0; i < p->nsw; i++) {
        const struct raw_sw *s = &p->sw[i];
        for (int k = s->lo; k < s->hi; k++) {
            const char *nm = p->t->pool + p->items[k];
            size_t len = strlen(nm);
            rc = s->is_leaf ? resolve_node(b, i, k, nm, len) : resolve_child(b, i, k, nm, len);
            if (rc != G5_OK)
                return rc;
        }
    }
    if (b->nraw_nodes > TOPO_MAX_NODES)
        return g5_error(G5_ERR_TOPO, "%s: more than %d nodes", p->src, TOPO_MAX_NODES);
    for (int i = 0; i < p->nsw; i++) {
        if (b->parent[i] >= 0)
            continue;
        if (b->root >= 0)
            return g5_error(G5_ERR_TOPO, "%s:%d: switches not connected: '%s' (line %d) and '%s' are "
                            "both top switches (no Switches= lists them); g500 needs one tree so that "
                            "every hop count is finite: add a switch above them", p->src,
                            p->sw[i].line, SWNAME(p, b->root), p->sw[b->root].line, SWNAME(p, i));
        b->root = i;
    }
    if (b->root < 0)
        return g5_error(G5_ERR_TOPO, "%s:%d: switches form a cycle: every switch has a parent, so "
                        "there is no top switch", p->src, p->sw[0].line);
    return G5_OK;
}

/* Depth-first walk from the root, children in file order: order[] and
 * newid[]; a switch not reached is on a cycle. */
static int walk_switches(struct bld *b)
{
    struct parser *p = b->p;
    int nsw = p->nsw, nvisit = 0, top = 0;
    b->order = g5_malloc((size_t)nsw * sizeof(int), "walk order");
    b->newid = g5_malloc((size_t)nsw * sizeof(int), "walk order");
    b->stack = g5_malloc((size_t)nsw * sizeof(int), "walk stack");
    if (!b->order || !b->newid || !b->stack)
        return G5_ERR_NOMEM;
    for (int i = 0; i < nsw; i++)
        b->newid[i] = -1;
    b->stack[top++] = b->root;
    while (top > 0) {
        int s = b->stack[--top];
        b->newid[s] = nvisit;
        b->order[nvisit++] = s;
        if (!p->sw[s].is_leaf)
            for (int k = p->sw[s].hi - 1; k >= p->sw[s].lo; k--)
                b->stack[top++] = b->child[k]; /* each switch has one parent: pushed once */
    }
    if (nvisit < nsw) {
        for (int i = 0; i < nsw; i++)
            if (b->newid[i] < 0)
                return g5_error(G5_ERR_TOPO, "%s:%d: switches form a cycle: '%s' is not below the "
                                "top switch '%s' (line %d) but has a parent", p->src, p->sw[i].line,
                                SWNAME(p, i), SWNAME(p, b->root), p->sw[b->root].line);
    }
    return G5_OK;
}

/* Fill the tree in walk order: switches, nodes, subtree sizes, leaves,
 * and the node name table keyed by final node numbers. */
static int fill_tree(struct bld *b)
{
    struct parser *p = b->p;
    topo *t = p->t;
    int nsw = p->nsw, nnodes = 0, nraw_nodes = b->nraw_nodes;
    const int *order = b->order, *newid = b->newid, *parent = b->parent;

    t->nsw = nsw;
    t->sw = g5_calloc((size_t)nsw, sizeof *t->sw, "switch table");
    t->node_name = g5_malloc((size_t)nraw_nodes * sizeof(int), "node table");
    t->node_leaf = g5_malloc((size_t)nraw_nodes * sizeof(int), "node table");
    b->node_new = g5_malloc((size_t)nraw_nodes * sizeof(int) + 1, "node renumbering");
    if (!t->sw || !t->node_name || !t->node_leaf || !b->node_new)
        return G5_ERR_NOMEM;
    t->nleaves = 0;
    for (int s = 0; s < nsw; s++) {
        const struct raw_sw *r = &p->sw[order[s]];
        struct topo_switch *w = &t->sw[s];
        w->name = r->name;
        w->line = r->line;
        w->speed = r->speed;
        w->parent = parent[order[s]] < 0 ? -1 : newid[parent[order[s]]];
        w->depth = w->parent < 0 ? 0 : t->sw[w->parent].depth + 1;
        w->first = nnodes;
        w->nsub = 1;
        w->height = 1;
        w->leaf = -1;
        w->nchild = r->is_leaf ? 0 : r->hi - r->lo;
        if (r->is_leaf) {
            w->leaf = t->nleaves++;
            for (int k = r->lo; k < r->hi; k++) {
                size_t pos = topo_htab_pos(&b->nodeh, t->pool, b->node_name, t->pool + p->items[k],
                                           strlen(t->pool + p->items[k]));
                b->node_new[b->nodeh.slot[pos]] = nnodes;
                t->node_name[nnodes] = p->items[k];
                t->node_leaf[nnodes] = s;
                nnodes++;
            }
        }
        w->count = nnodes - w->first; /* own nodes so far; subtrees added below */
        if (w->depth > t->max_depth)
            t->max_depth = w->depth;
    }
    t->nnodes = nnodes;
    /* subtree sizes and heights: children follow parents, so go backwards */
    for (int s = nsw - 1; s > 0; s--) {
        struct topo_switch *w = &t->sw[s], *up = &t->sw[w->parent];
        up->nsub += w->nsub;
        up->count += w->count;
        if (w->height + 1 > up->height)
            up->height = w->height + 1;
    }
    t->levels = t->sw[0].height;
    t->leaf_sw = g5_malloc((size_t)t->nleaves * sizeof(int), "leaf table");
    if (!t->leaf_sw)
        return G5_ERR_NOMEM;
    for (int s = 0; s < nsw; s++)
        if (t->sw[s].leaf >= 0)
            t->leaf_sw[t->sw[s].leaf] = s;
    /* node name table keyed by final node numbers */
    for (size_t i = 0; i <= b->nodeh.mask; i++)
        if (b->nodeh.slot[i] >= 0)
            b->nodeh.slot[i] = b->node_new[b->nodeh.slot[i]];
    t->node_hash = b->nodeh.slot;
    t->node_hash_mask = b->nodeh.mask;
    b->nodeh.slot = NULL;
    return G5_OK;
}

/* Resolve names, run the tree checks, renumber in walk order and fill t. */
int topo_build(struct parser *p)
{
    struct bld b = {.p = p, .root = -1};
    int rc = G5_OK, nsw = p->nsw;

    if (nsw == 0)
        return g5_error(G5_ERR_TOPO, "%s:%d: empty topology: no SwitchName= line", p->src,
                        p->line > 0 ? p->line : 1);

    b.sw_name_of = g5_malloc((size_t)nsw * sizeof(int), "switch names");
    b.parent = g5_malloc((size_t)nsw * sizeof(int), "switch parents");
    b.child = g5_malloc((size_t)p->nitems * sizeof(int) + 1, "child switches");
    b.node_name = g5_malloc((size_t)p->nitems * sizeof(int) + 1, "node names");
    b.node_sw = g5_malloc((size_t)p->nitems * sizeof(int) + 1, "node switches");
    if (!b.sw_name_of || !b.parent || !b.child || !b.node_name || !b.node_sw) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
    G5_TRY(topo_htab_init(&b.swh, (size_t)nsw, "switch name table"));
    G5_TRY(topo_htab_init(&b.nodeh, (size_t)p->nitems, "node name table"));
    G5_TRY(index_switches(&b));
    G5_TRY(resolve_items(&b));
    G5_TRY(walk_switches(&b));
    G5_TRY(fill_tree(&b));
out:
    free(b.swh.slot);
    free(b.nodeh.slot);
    free(b.sw_name_of);
    free(b.parent);
    free(b.child);
    free(b.node_name);
    free(b.node_sw);
    free(b.order);
    free(b.newid);
    free(b.stack);
    free(b.node_new);
    return rc;
}

/* Leaf x leaf distances, one pre-order pass per leaf: the distance from
 * leaf a to switch s is depth(a) - depth(s) when s is an ancestor of a
 * (a lies in s's switch range), else the distance to s's parent + 1. */
int topo_fill_matrix(topo *t)
{
    int nl = t->nleaves, nsw = t->nsw;
    int *dist;
    if (nl > TOPO_MATRIX_LEAVES || (int64_t)nl * nsw > ((int64_t)1 << 26) ||
        2 * t->max_depth >= 65535)
        return G5_OK;
    t->leafdist = g5_malloc((size_t)nl * nl * sizeof *t->leafdist, "leaf distance matrix");
    dist = g5_malloc((size_t)nsw * sizeof *dist, "switch distances");
    if (!t->leafdist || !dist) {
        free(dist);
        return G5_ERR_NOMEM;
    }
    for (int la = 0; la < nl; la++) {
        int a = t->leaf_sw[la];
        for (int s = 0; s < nsw; s++) {
            const struct topo_switch *w = &t->sw[s];
            if (a >= s && a < s + w->nsub)
                dist[s] = t->sw[a].depth - w->depth;
            else
                dist[s] = dist[w->parent] + 1;
        }
        for (int lb = 0; lb < nl; lb++)
            t->leafdist[(size_t)la * nl + lb] = (uint16_t)dist[t->leaf_sw[lb]];
    }
    free(dist);
    return G5_OK;
}

/* The identity: FNV-1a over every switch (name, parent, LinkSpeed) and every
 * node (name, leaf) in walk order. */
uint64_t topo_compute_id(const topo *t)
{
    uint64_t h = FNV_OFFSET;
    for (int s = 0; s < t->nsw; s++) {
        const char *nm = t->pool + t->sw[s].name;
        int32_t v[2] = {t->sw[s].parent, t->sw[s].speed};
        h = topo_fnv1a(h, nm, strlen(nm) + 1);
        h = topo_fnv1a(h, v, sizeof v);
    }
    for (int n = 0; n < t->nnodes; n++) {
        const char *nm = t->pool + t->node_name[n];
        int32_t v = t->node_leaf[n];
        h = topo_fnv1a(h, nm, strlen(nm) + 1);
        h = topo_fnv1a(h, &v, sizeof v);
    }
    return h;
}

/* The largest hop count between two nodes: for each switch, its two
 * children with the deepest leaves give the longest path turning there. */
int topo_compute_max_hops(topo *t)
{
    int *deep = g5_malloc((size_t)t->nsw * sizeof *deep, "leaf depths");
    int *second = g5_malloc((size_t)t->nsw * sizeof *second, "leaf depths");
    int best = 0;
    if (!deep || !second) {
        free(deep);
        free(second);
        return G5_ERR_NOMEM;
    }
    for (int s = 0; s < t->nsw; s++) {
        deep[s] = t->sw[s].leaf >= 0 ? t->sw[s].depth : -1;
        second[s] = -1;
        if (t->sw[s].leaf >= 0)
            best = t->sw[s].count > 1 ? 1 : best;
    }
    for (int s = t->nsw - 1; s > 0; s--) {
        int up = t->sw[s].parent;
        if (deep[s] > deep[up]) {
            second[up] = deep[up];
            deep[up] = deep[s];
        } else if (deep[s] > second[up]) {
            second[up] = deep[s];
        }
    }
    for (int s = 0; s < t->nsw; s++)
        if (second[s] >= 0 && deep[s] + second[s] - 2 * t->sw[s].depth + 1 > best)
            best = deep[s] + second[s] - 2 * t->sw[s].depth + 1;
    t->max_hops = best;
    free(deep);
    free(second);
    return G5_OK;
}
