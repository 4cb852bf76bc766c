/* SPDX-License-Identifier: MIT */
/*
 * topo.c - the switch tree's queries: node names through the hash table,
 * hop distances, and the invariant checker. Parsing is in topo_parse.c,
 * the checks and the walk-order numbering in topo_build.c.
 * This file makes no MPI call (the fuzz target links it without MPI_Init);
 * the rank-to-node maps are in topo_map.c.
 *
 * Hops. Slurm gives parent-child switch links weight 1 and takes all-pairs
 * shortest paths; on a tree (which the checks guarantee) the shortest path
 * between two switches is the one through their lowest common ancestor, so
 * dist(a, b) = depth(a) + depth(b) - 2 depth(lca). Hops between nodes are
 * switches crossed: 0 for one node, 1 under one leaf, dist(leaf a, leaf b)
 * + 1 otherwise. For up to TOPO_MATRIX_LEAVES leaves a leaf x leaf matrix
 * of uint16 distances makes a lookup O(1) (node -> leaf -> matrix); it is
 * filled in O(leaves x switches) by one pre-order pass per leaf. Larger
 * trees answer by walking up to the common ancestor, O(depth).
 */
#include "topo.h"
#include "topo_internal.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>

uint64_t topo_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

int topo_htab_init(struct htab *h, size_t n, const char *what)
{
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    h->slot = g5_malloc(cap * sizeof *h->slot, what);
    if (!h->slot)
        return G5_ERR_NOMEM;
    memset(h->slot, 0xff, cap * sizeof *h->slot);
    h->mask = cap - 1;
    return G5_OK;
}

size_t topo_htab_pos(const struct htab *h, const char *pool, const int *name_of,
                     const char *key, size_t len)
{
    size_t i = topo_fnv1a(FNV_OFFSET, key, len) & h->mask;
    while (h->slot[i] >= 0) {
        const char *s = pool + name_of[h->slot[i]];
        if (strncmp(s, key, len) == 0 && s[len] == '\0')
            return i;
        i = (i + 1) & h->mask;
    }
    return i;
}

/* Distance in links between two switches, walking up to the common ancestor. */
static int sw_distance_walk(const topo *t, int a, int b)
{
    int d = 0;
    while (t->sw[a].depth > t->sw[b].depth) {
        a = t->sw[a].parent;
        d++;
    }
    while (t->sw[b].depth > t->sw[a].depth) {
        b = t->sw[b].parent;
        d++;
    }
    while (a != b) {
        a = t->sw[a].parent;
        b = t->sw[b].parent;
        d += 2;
    }
    return d;
}

void topo_free(topo **tp)
{
    topo *t;
    if (!tp || !*tp)
        return;
    t = *tp;
    free(t->source);
    free(t->pool);
    free(t->sw);
    free(t->node_name);
    free(t->node_leaf);
    free(t->leaf_sw);
    free(t->leafdist);
    free(t->node_hash);
    free(t);
    *tp = NULL;
}

/* ---- queries ------------------------------------------------------------ */

int topo_num_nodes(const topo *t) { return t->nnodes; }
int topo_num_switches(const topo *t) { return t->nsw; }
int topo_num_levels(const topo *t) { return t->levels; }
int topo_num_leaves(const topo *t) { return t->nleaves; }
uint64_t topo_id(const topo *t) { return t->id; }
const char *topo_source(const topo *t) { return t->source; }
int topo_is_tleaf(const topo *t) { return t->kind == TOPO_KIND_TLEAF; }
int topo_max_hops(const topo *t) { return t->max_hops; }

const char *topo_node_name(const topo *t, int node)
{
    if (node < 0 || node >= t->nnodes)
        return NULL;
    return t->pool + t->node_name[node];
}

int topo_node_index(const topo *t, const char *name)
{
    struct htab h = {t->node_hash, t->node_hash_mask};
    size_t pos;
    if (!name)
        return -1;
    pos = topo_htab_pos(&h, t->pool, t->node_name, name, strlen(name));
    return h.slot[pos];
}

int topo_node_switch(const topo *t, int node)
{
    if (node < 0 || node >= t->nnodes)
        return -1;
    return t->node_leaf[node];
}

static int switch_ok(const topo *t, int s) { return s >= 0 && s < t->nsw; }

const char *topo_switch_name(const topo *t, int sw)
{
    return switch_ok(t, sw) ? t->pool + t->sw[sw].name : NULL;
}
int topo_switch_parent(const topo *t, int sw) { return switch_ok(t, sw) ? t->sw[sw].parent : -1; }
int topo_switch_depth(const topo *t, int sw) { return switch_ok(t, sw) ? t->sw[sw].depth : -1; }
int topo_switch_is_leaf(const topo *t, int sw) { return switch_ok(t, sw) && t->sw[sw].leaf >= 0; }
int topo_switch_link_speed(const topo *t, int sw) { return switch_ok(t, sw) ? t->sw[sw].speed : -1; }
int topo_switch_line(const topo *t, int sw) { return switch_ok(t, sw) ? t->sw[sw].line : -1; }
int topo_switch_num_children(const topo *t, int sw) { return switch_ok(t, sw) ? t->sw[sw].nchild : -1; }

int topo_switch_nodes(const topo *t, int sw, int *first, int *count)
{
    if (!switch_ok(t, sw))
        return g5_error(G5_ERR_ARG, "%s: no switch %d", t->source, sw);
    *first = t->sw[sw].first;
    *count = t->sw[sw].count;
    return G5_OK;
}

int topo_switch_distance(const topo *t, int sa, int sb)
{
    if (!switch_ok(t, sa) || !switch_ok(t, sb))
        return -1;
    if (t->leafdist && t->sw[sa].leaf >= 0 && t->sw[sb].leaf >= 0)
        return t->leafdist[(size_t)t->sw[sa].leaf * t->nleaves + t->sw[sb].leaf];
    return sw_distance_walk(t, sa, sb);
}

int topo_hops_between(const topo *t, int a, int b)
{
    int la, lb;
    if (a < 0 || b < 0 || a >= t->nnodes || b >= t->nnodes)
        return -1;
    if (a == b)
        return 0;
    la = t->node_leaf[a];
    lb = t->node_leaf[b];
    if (la == lb)
        return 1;
    if (t->leafdist)
        return 1 + t->leafdist[(size_t)t->sw[la].leaf * t->nleaves + t->sw[lb].leaf];
    return 1 + sw_distance_walk(t, la, lb);
}

/* ---- invariants --------------------------------------------------------- */

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond))                                                         \
            return g5_error(G5_ERR_INTERNAL, __VA_ARGS__);                   \
    } while (0)

int topo_check(const topo *t)
{
    int leaves = 0, nodes_seen = 0;
    CHECK(t && t->nsw >= 1 && t->nnodes >= 1 && t->source, "topo_check: empty or NULL tree");
    CHECK(t->sw[0].parent == -1 && t->sw[0].depth == 0, "%s: switch 0 is not the root", t->source);
    CHECK(t->sw[0].nsub == t->nsw && t->sw[0].count == t->nnodes && t->sw[0].first == 0,
          "%s: the root does not cover the tree", t->source);
    CHECK(t->levels == t->sw[0].height, "%s: levels %d != root height %d", t->source, t->levels,
          t->sw[0].height);
    for (int s = 0; s < t->nsw; s++) {
        const struct topo_switch *w = &t->sw[s];
        const char *nm = t->pool + w->name;
        int nsub = 1, count = 0, nchild = 0, height = 1;
        CHECK(strlen(nm) >= 1 && strlen(nm) <= TOPO_NAME_MAX, "%s: switch %d has a bad name",
              t->source, s);
        if (s > 0) {
            CHECK(w->parent >= 0 && w->parent < s, "%s: switch %d's parent %d does not precede it",
                  t->source, s, w->parent);
            CHECK(w->depth == t->sw[w->parent].depth + 1, "%s: switch %d has a wrong depth",
                  t->source, s);
            CHECK(s + w->nsub <= w->parent + t->sw[w->parent].nsub,
                  "%s: switch %d's subtree leaves its parent's range", t->source, s);
        }
        /* direct children: the switches in (s, s + nsub) whose parent is s */
        for (int c = s + 1; c < s + w->nsub; c++) {
            CHECK(c < t->nsw, "%s: switch %d's range runs past the end", t->source, s);
            if (t->sw[c].parent == s) {
                nchild++;
                nsub += t->sw[c].nsub;
                count += t->sw[c].count;
                if (t->sw[c].height + 1 > height)
                    height = t->sw[c].height + 1;
                CHECK(t->sw[c].first == w->first + count - t->sw[c].count,
                      "%s: switch %d's nodes do not follow its siblings'", t->source, c);
            }
        }
        if (w->leaf >= 0) {
            CHECK(nchild == 0 && w->nsub == 1 && w->count >= 1,
                  "%s: leaf switch %d has child switches or no nodes", t->source, s);
            CHECK(w->leaf == leaves && t->leaf_sw[w->leaf] == s, "%s: leaf numbering broken at %d",
                  t->source, s);
            CHECK(w->first == nodes_seen, "%s: leaf %d's nodes are not next in walk order",
                  t->source, s);
            for (int n = w->first; n < w->first + w->count; n++)
                CHECK(t->node_leaf[n] == s, "%s: node %d is not under its leaf %d", t->source, n, s);
            leaves++;
            nodes_seen += w->count;
        } else {
            CHECK(nchild == w->nchild && nchild >= 1, "%s: inner switch %d has %d children, "
                  "expected %d", t->source, s, nchild, w->nchild);
            CHECK(nsub == w->nsub && count == w->count && height == w->height,
                  "%s: inner switch %d's subtree figures are wrong", t->source, s);
        }
    }
    CHECK(leaves == t->nleaves && nodes_seen == t->nnodes, "%s: leaves or nodes miscounted",
          t->source);
    for (int n = 0; n < t->nnodes; n++) {
        const char *nm = t->pool + t->node_name[n];
        CHECK(strlen(nm) >= 1 && strlen(nm) <= TOPO_NAME_MAX, "%s: node %d has a bad name",
              t->source, n);
        CHECK(topo_node_index(t, nm) == n, "%s: node '%s' is not found by name", t->source, nm);
    }
    if (t->leafdist) {
        for (int a = 0; a < t->nleaves; a++)
            for (int b = 0; b < t->nleaves; b++) {
                int d = t->leafdist[(size_t)a * t->nleaves + b];
                CHECK(d == sw_distance_walk(t, t->leaf_sw[a], t->leaf_sw[b]),
                      "%s: leaf distance (%d, %d) is %d, the walk says %d", t->source, a, b, d,
                      sw_distance_walk(t, t->leaf_sw[a], t->leaf_sw[b]));
            }
    }
    CHECK(t->id == topo_compute_id(t), "%s: identity does not match the tree", t->source);
    return G5_OK;
}

