/* SPDX-License-Identifier: MIT */
/*
 * topo.c - the switch tree: parsing Slurm's topology.conf (topology/tree
 * plugin) and Scotch's tleaf line, Slurm's checks, node numbering in walk
 * order, hop distances, the tree's identity and the invariant checker.
 * This file makes no MPI call (the fuzz target links it without MPI_Init);
 * the rank-to-node maps are in topo_map.c.
 *
 * Input forms.
 *   Slurm: one switch per line, `SwitchName=NAME Nodes=HOSTLIST` (a leaf) or
 *   `SwitchName=NAME Switches=HOSTLIST` (an inner switch), optional
 *   `LinkSpeed=N`; keys are case-insensitive, `#` starts a comment. Only the
 *   Nodes= and Switches= values are hostlist expressions: comma-separated
 *   elements, each literal text with up to TOPO_MAX_GROUPS bracket groups
 *   `[0-3,12,18-20]` (several groups expand as a cartesian product, the last
 *   group fastest). A range keeps the width of its lower bound, so n[00-03]
 *   gives n00..n03 and n[8-10] gives n8, n9, n10 (Slurm's hostlist rule).
 *   Reference: Slurm topology.conf(5) and src/common/hostlist.c behaviour.
 *   tleaf: `tleaf L s0 c0 ... s(L-1) c(L-1)` (Scotch's target architecture
 *   "tleaf", Scotch 6 user's guide, section on target architectures): level
 *   i, root first, has s_i children per node; the costs c_i are accepted and
 *   ignored, since hops count one switch per level. Switches are named
 *   swI-K (level I, index K); nodes node000, node001, ... in walk order.
 *
 * Checks: Slurm's (syntax, hostlists, names, duplicates, a node under two
 *   leaves, a cycle) and size limits, each reported "FILE:LINE: problem",
 *   the first in file order (the full list: docs/topology.md). More than one
 *   top switch is refused too: Slurm accepts a forest with infinite distance
 *   between its trees, but every hop count here must be finite.
 *
 * Encoding after parsing. Switches are renumbered in pre-order of a depth
 * first walk from the one top switch (children in file order): switch 0 is
 * the root, a parent precedes its children, and the subtree of switch s is
 * the switch range [s, s + nsub). Nodes are numbered as the walk meets them,
 * so the nodes below any switch are the range [first, first + count).
 * Names live in one string pool and are referred to by offset; node names
 * are found through an open-addressing hash table (FNV-1a).
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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- string pool and hash table --------------------------------------- */

static int pool_add(topo *t, const char *s, size_t n)
{
    if (t->pool_len + n + 1 > t->pool_cap) {
        size_t cap = t->pool_cap ? t->pool_cap : 4096;
        char *p;
        while (t->pool_len + n + 1 > cap)
            cap *= 2;
        if (cap > (size_t)INT32_MAX)
            return g5_error(G5_ERR_TOPO, "%s: names too long in total", t->source);
        p = realloc(t->pool, cap);
        if (!p)
            return g5_error(G5_ERR_NOMEM, "%s: cannot allocate %zu bytes of names", t->source, cap);
        t->pool = p;
        t->pool_cap = cap;
    }
    memcpy(t->pool + t->pool_len, s, n);
    t->pool[t->pool_len + n] = '\0';
    t->pool_len += n + 1;
    return (int)(t->pool_len - n - 1);
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}
#define FNV_OFFSET 14695981039346656037ULL

/* Table of ids; the name of id i is pool + name_of[i]. */
struct htab {
    int *slot;
    size_t mask;
};

static int htab_init(struct htab *h, size_t n, const char *what)
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

/* Position of key in the table: the slot holding it or the empty slot
 * where it belongs. */
static size_t htab_pos(const struct htab *h, const char *pool, const int *name_of,
                       const char *key, size_t len)
{
    size_t i = fnv1a(FNV_OFFSET, key, len) & h->mask;
    while (h->slot[i] >= 0) {
        const char *s = pool + name_of[h->slot[i]];
        if (strncmp(s, key, len) == 0 && s[len] == '\0')
            return i;
        i = (i + 1) & h->mask;
    }
    return i;
}

/* ---- parser state ------------------------------------------------------ */

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

static int add_item(struct parser *p, int name)
{
    if (p->nitems == p->capitems) {
        int cap = p->capitems ? 2 * p->capitems : 1024;
        int *n = realloc(p->items, (size_t)cap * sizeof *n);
        if (!n)
            return g5_error(G5_ERR_NOMEM, "%s: cannot allocate the name list", p->src);
        p->items = n;
        p->capitems = cap;
    }
    p->items[p->nitems++] = name;
    return G5_OK;
}

static int add_switch(struct parser *p, struct raw_sw **out)
{
    if (p->nsw >= TOPO_MAX_SWITCHES)
        return g5_error(G5_ERR_TOPO, "%s:%d: more than %d switches", p->src, p->line,
                        TOPO_MAX_SWITCHES);
    if (p->nsw == p->capsw) {
        int cap = p->capsw ? 2 * p->capsw : 64;
        struct raw_sw *n = realloc(p->sw, (size_t)cap * sizeof *n);
        if (!n)
            return g5_error(G5_ERR_NOMEM, "%s: cannot allocate the switch list", p->src);
        p->sw = n;
        p->capsw = cap;
    }
    *out = &p->sw[p->nsw++];
    memset(*out, 0, sizeof **out);
    (*out)->line = p->line;
    (*out)->speed = -1;
    return G5_OK;
}

/* ---- hostlist expressions --------------------------------------------- */

struct group {           /* one bracket group: ranges [r, r + nr) */
    int r, nr;
};
struct range {
    int64_t lo, hi;
    int width;
};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next word of s[*i..n) (white space separated): its start in *b,
 * *i left after it; 0 when only white space is left. */
static int next_word(const char *s, size_t n, size_t *i, size_t *b)
{
    while (*i < n && is_space(s[*i]))
        (*i)++;
    if (*i >= n)
        return 0;
    *b = *i;
    while (*i < n && !is_space(s[*i]))
        (*i)++;
    return 1;
}

static int parse_number(const char *s, size_t n, int64_t *v)
{
    int64_t x = 0;
    if (n == 0 || n > 18)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        x = 10 * x + (s[i] - '0');
    }
    *v = x;
    return 0;
}

/* Expand one element (no top-level comma) s[0..n) into names added to the
 * pool and the item list. `key` names the key for messages. */
static int expand_element(struct parser *p, const char *key, const char *s, size_t n)
{
    struct group g[TOPO_MAX_GROUPS];
    struct range rg[TOPO_MAX_RANGES];
    int ng = 0, nrg = 0;
    int64_t total = 1;
    /* literal pieces: lit[k] precedes group k; lit[ng] follows the last */
    const char *lit[TOPO_MAX_GROUPS + 1];
    size_t litn[TOPO_MAX_GROUPS + 1];
    size_t i = 0, start = 0;
    int64_t idx[TOPO_MAX_GROUPS];
    int ri[TOPO_MAX_GROUPS];
    char name[TOPO_NAME_MAX + 32];

    if (n == 0)
        return g5_error(G5_ERR_TOPO, "%s:%d: %s= has an empty element in its hostlist",
                        p->src, p->line, key);
    while (i < n) {
        if (s[i] == ']')
            return g5_error(G5_ERR_TOPO, "%s:%d: %s=: unbalanced ']' in hostlist '%.*s'",
                            p->src, p->line, key, (int)(n > 80 ? 80 : n), s);
        if (s[i] != '[') {
            i++;
            continue;
        }
        if (ng == TOPO_MAX_GROUPS)
            return g5_error(G5_ERR_TOPO, "%s:%d: %s=: more than %d bracket groups in '%.*s'",
                            p->src, p->line, key, TOPO_MAX_GROUPS, (int)(n > 80 ? 80 : n), s);
        lit[ng] = s + start;
        litn[ng] = i - start;
        g[ng].r = nrg;
        i++;
        {
            size_t close = i;
            int64_t count = 0;
            while (close < n && s[close] != ']') {
                if (s[close] == '[')
                    return g5_error(G5_ERR_TOPO, "%s:%d: %s=: nested '[' in hostlist '%.*s'",
                                    p->src, p->line, key, (int)(n > 80 ? 80 : n), s);
                close++;
            }
            if (close >= n)
                return g5_error(G5_ERR_TOPO, "%s:%d: %s=: unbalanced '[' in hostlist '%.*s'",
                                p->src, p->line, key, (int)(n > 80 ? 80 : n), s);
            /* ranges separated by commas inside [i, close) */
            while (i <= close) {
                size_t e = i, dash;
                struct range r = {0, 0, 0};
                while (e < close && s[e] != ',')
                    e++;
                for (dash = i; dash < e && s[dash] != '-'; dash++)
                    ;
                if (nrg == TOPO_MAX_RANGES)
                    return g5_error(G5_ERR_TOPO, "%s:%d: %s=: more than %d ranges in one element",
                                    p->src, p->line, key, TOPO_MAX_RANGES);
                if (parse_number(s + i, dash - i, &r.lo) != 0 ||
                    (dash < e && parse_number(s + dash + 1, e - dash - 1, &r.hi) != 0))
                    return g5_error(G5_ERR_TOPO, "%s:%d: %s=: bad range '%.*s' in hostlist "
                                    "(expected N or N-M with decimal numbers)",
                                    p->src, p->line, key, (int)(e - i > 40 ? 40 : e - i), s + i);
                if (dash == e)
                    r.hi = r.lo;
                if (r.hi < r.lo)
                    return g5_error(G5_ERR_TOPO, "%s:%d: %s=: reversed range '%.*s' in hostlist",
                                    p->src, p->line, key, (int)(e - i > 40 ? 40 : e - i), s + i);
                r.width = (int)(dash - i);
                rg[nrg++] = r;
                count += r.hi - r.lo + 1;
                if (count > TOPO_MAX_NODES)
                    break;
                i = e + 1;
            }
            g[ng].nr = nrg - g[ng].r;
            if (count <= TOPO_MAX_NODES)
                total *= count; /* both at most 2^20: no overflow */
            if (count > TOPO_MAX_NODES || total > TOPO_MAX_NODES)
                return g5_error(G5_ERR_TOPO, "%s:%d: %s=: hostlist '%.*s' names more than %d hosts",
                                p->src, p->line, key, (int)(n > 80 ? 80 : n), s, TOPO_MAX_NODES);
            ng++;
            i = close + 1;
            start = i;
        }
    }
    lit[ng] = s + start;
    litn[ng] = n - start;
    if (key[0] == 'N') {
        p->nnode_items += total;
        if (p->nnode_items > TOPO_MAX_NODES)
            return g5_error(G5_ERR_TOPO, "%s:%d: more than %d nodes in the file", p->src, p->line,
                            TOPO_MAX_NODES);
    } else if (p->nitems + total > TOPO_MAX_NODES + (int64_t)TOPO_MAX_SWITCHES) {
        return g5_error(G5_ERR_TOPO, "%s:%d: more than %d names in the file", p->src, p->line,
                        TOPO_MAX_NODES + TOPO_MAX_SWITCHES);
    }

    /* odometer over the groups: ri[k] = range within group k, idx[k] = value */
    for (int k = 0; k < ng; k++) {
        ri[k] = g[k].r;
        idx[k] = rg[ri[k]].lo;
    }
    for (;;) {
        size_t len = 0;
        int rc;
        for (int k = 0; k <= ng; k++) {
            if (len + litn[k] > TOPO_NAME_MAX)
                goto too_long;
            memcpy(name + len, lit[k], litn[k]);
            len += litn[k];
            if (k < ng) {
                char num[32];
                int w = snprintf(num, sizeof num, "%0*lld", rg[ri[k]].width, (long long)idx[k]);
                if (len + (size_t)w > TOPO_NAME_MAX)
                    goto too_long;
                memcpy(name + len, num, (size_t)w);
                len += (size_t)w;
            }
        }
        if (len == 0)
            return g5_error(G5_ERR_TOPO, "%s:%d: %s= has an empty name", p->src, p->line, key);
        rc = pool_add(p->t, name, len);
        if (rc < 0)
            return rc;
        if ((rc = add_item(p, rc)) != G5_OK)
            return rc;
        /* advance, last group fastest */
        {
            int k = ng - 1;
            while (k >= 0) {
                if (idx[k] < rg[ri[k]].hi) {
                    idx[k]++;
                    break;
                }
                if (ri[k] + 1 < g[k].r + g[k].nr) {
                    ri[k]++;
                    idx[k] = rg[ri[k]].lo;
                    break;
                }
                ri[k] = g[k].r;
                idx[k] = rg[ri[k]].lo;
                k--;
            }
            if (k < 0)
                break;
        }
    }
    return G5_OK;
too_long:
    return g5_error(G5_ERR_TOPO, "%s:%d: %s=: a name in '%.*s' is longer than %d characters",
                    p->src, p->line, key, (int)(n > 80 ? 80 : n), s, TOPO_NAME_MAX);
}

static int expand_hostlist(struct parser *p, const char *key, const char *s, size_t n)
{
    size_t i = 0, start = 0;
    int depth = 0, rc;
    for (i = 0; i <= n; i++) {
        if (i < n && s[i] == '[')
            depth++;
        else if (i < n && s[i] == ']')
            depth--;
        if (i == n || (s[i] == ',' && depth <= 0)) {
            if ((rc = expand_element(p, key, s + start, i - start)) != G5_OK)
                return rc;
            start = i + 1;
        }
    }
    return G5_OK;
}

/* ---- Slurm lines ------------------------------------------------------- */

static int key_is(const char *k, size_t n, const char *want)
{
    return strlen(want) == n && strncasecmp(k, want, n) == 0;
}

/* One line without its comment: s[0..n). */
static int parse_slurm_line(struct parser *p, const char *s, size_t n)
{
    const char *name = NULL, *nodes = NULL, *sws = NULL, *speed = NULL;
    size_t namen = 0, nodesn = 0, swsn = 0, speedn = 0;
    size_t i = 0;
    struct raw_sw *sw;
    int rc;

    size_t b;
    while (next_word(s, n, &i, &b)) {
        size_t e = i, eq;
        const char **dv;
        size_t *dn;
        for (eq = b; eq < e && s[eq] != '='; eq++)
            ;
        if (eq == e)
            return g5_error(G5_ERR_TOPO, "%s:%d: expected KEY=VALUE, got '%.*s'", p->src, p->line,
                            (int)(e - b > 64 ? 64 : e - b), s + b);
        if (key_is(s + b, eq - b, "SwitchName")) {
            dv = &name; dn = &namen;
        } else if (key_is(s + b, eq - b, "Nodes")) {
            dv = &nodes; dn = &nodesn;
        } else if (key_is(s + b, eq - b, "Switches")) {
            dv = &sws; dn = &swsn;
        } else if (key_is(s + b, eq - b, "LinkSpeed")) {
            dv = &speed; dn = &speedn;
        } else {
            return g5_error(G5_ERR_TOPO, "%s:%d: unknown key '%.*s' (expected SwitchName, Nodes, "
                            "Switches or LinkSpeed)", p->src, p->line,
                            (int)(eq - b > 64 ? 64 : eq - b), s + b);
        }
        if (*dv)
            return g5_error(G5_ERR_TOPO, "%s:%d: key '%.*s' given twice", p->src, p->line,
                            (int)(eq - b > 64 ? 64 : eq - b), s + b);
        if (eq + 1 == e)
            return g5_error(G5_ERR_TOPO, "%s:%d: '%.*s' has no value", p->src, p->line,
                            (int)(e - b > 64 ? 64 : e - b), s + b);
        *dv = s + eq + 1;
        *dn = e - eq - 1;
    }
    if (!name && !nodes && !sws && !speed)
        return G5_OK; /* blank line */
    if (!name)
        return g5_error(G5_ERR_TOPO, "%s:%d: line has no SwitchName=", p->src, p->line);
    if (namen > TOPO_NAME_MAX)
        return g5_error(G5_ERR_TOPO, "%s:%d: switch name '%.32s...' is longer than %d characters",
                        p->src, p->line, name, TOPO_NAME_MAX);
    for (size_t k = 0; k < namen; k++)
        if (name[k] == '[' || name[k] == ']' || name[k] == ',')
            return g5_error(G5_ERR_TOPO, "%s:%d: SwitchName '%.*s' must be one name, not a hostlist",
                            p->src, p->line, (int)namen, name);
    if (nodes && sws)
        return g5_error(G5_ERR_TOPO, "%s:%d: switch '%.*s' has both Nodes= and Switches= "
                        "(a switch holds either nodes or switches)", p->src, p->line, (int)namen, name);
    if (!nodes && !sws)
        return g5_error(G5_ERR_TOPO, "%s:%d: switch '%.*s' has neither Nodes= nor Switches=",
                        p->src, p->line, (int)namen, name);
    if ((rc = add_switch(p, &sw)) != G5_OK)
        return rc;
    if (speed) {
        int64_t v;
        if (parse_number(speed, speedn, &v) != 0 || v > INT32_MAX)
            return g5_error(G5_ERR_TOPO, "%s:%d: LinkSpeed '%.*s' is not a non-negative integer",
                            p->src, p->line, (int)(speedn > 32 ? 32 : speedn), speed);
        sw->speed = (int)v;
    }
    if ((rc = pool_add(p->t, name, namen)) < 0)
        return rc;
    sw->name = rc;
    sw->is_leaf = nodes != NULL;
    sw->lo = p->nitems;
    rc = nodes ? expand_hostlist(p, "Nodes", nodes, nodesn)
               : expand_hostlist(p, "Switches", sws, swsn);
    sw->hi = p->nitems;
    return rc;
}

/* ---- tleaf --------------------------------------------------------------- */

static int parse_tleaf(struct parser *p, const char *s, size_t n)
{
    int64_t v[2 * TOPO_TLEAF_MAX_LEVELS + 2];
    int nv = 0, L, rc;
    int64_t width_at[TOPO_TLEAF_MAX_LEVELS + 1]; /* switches at level i */
    size_t i = 0;

    while (i < n && is_space(s[i]))
        i++;
    i += 5; /* "tleaf" */
    size_t b;
    while (next_word(s, n, &i, &b)) {
        if (nv == (int)(sizeof v / sizeof v[0]))
            return g5_error(G5_ERR_TOPO, "%s:%d: tleaf: too many numbers (at most %d levels)",
                            p->src, p->line, TOPO_TLEAF_MAX_LEVELS);
        if (parse_number(s + b, i - b, &v[nv]) != 0)
            return g5_error(G5_ERR_TOPO, "%s:%d: tleaf: '%.*s' is not a non-negative integer",
                            p->src, p->line, (int)(i - b > 32 ? 32 : i - b), s + b);
        nv++;
    }
    if (nv < 1 || v[0] < 1 || v[0] > TOPO_TLEAF_MAX_LEVELS)
        return g5_error(G5_ERR_TOPO, "%s:%d: tleaf: expected 'tleaf L s0 c0 ... s(L-1) c(L-1)' "
                        "with 1 <= L <= %d", p->src, p->line, TOPO_TLEAF_MAX_LEVELS);
    L = (int)v[0];
    if (nv != 1 + 2 * L)
        return g5_error(G5_ERR_TOPO, "%s:%d: tleaf %d needs %d numbers after L (a size and a cost "
                        "per level), got %d", p->src, p->line, L, 2 * L, nv - 1);
    width_at[0] = 1;
    for (int l = 0; l < L; l++) {
        if (v[1 + 2 * l] < 1)
            return g5_error(G5_ERR_TOPO, "%s:%d: tleaf: level %d has 0 children", p->src, p->line, l);
        if (v[1 + 2 * l] > TOPO_MAX_NODES)
            return g5_error(G5_ERR_TOPO, "%s:%d: tleaf: more than %d nodes", p->src, p->line,
                            TOPO_MAX_NODES);
        width_at[l + 1] = width_at[l] * v[1 + 2 * l]; /* both at most 2^20 */
        if (width_at[l + 1] > TOPO_MAX_NODES)
            return g5_error(G5_ERR_TOPO, "%s:%d: tleaf: more than %d nodes", p->src, p->line,
                            TOPO_MAX_NODES);
    }
    {
        int64_t nn = width_at[L];
        int digits = 1;
        for (int64_t x = nn - 1; x >= 10; x /= 10)
            digits++;
        if (digits < 3)
            digits = 3;
        for (int l = 0; l < L; l++) {
            for (int64_t k = 0; k < width_at[l]; k++) {
                struct raw_sw *sw;
                char name[64];
                int64_t c0 = k * v[1 + 2 * l], nc = v[1 + 2 * l];
                if ((rc = add_switch(p, &sw)) != G5_OK)
                    return rc;
                snprintf(name, sizeof name, "sw%d-%lld", l, (long long)k);
                if ((rc = pool_add(p->t, name, strlen(name))) < 0)
                    return rc;
                sw->name = rc;
                sw->is_leaf = (l == L - 1);
                sw->lo = p->nitems;
                for (int64_t c = c0; c < c0 + nc; c++) {
                    if (sw->is_leaf)
                        snprintf(name, sizeof name, "node%0*lld", digits, (long long)c);
                    else
                        snprintf(name, sizeof name, "sw%d-%lld", l + 1, (long long)c);
                    if ((rc = pool_add(p->t, name, strlen(name))) < 0)
                        return rc;
                    if ((rc = add_item(p, rc)) != G5_OK)
                        return rc;
                }
                sw->hi = p->nitems;
            }
        }
    }
    return G5_OK;
}

/* ---- building the tree -------------------------------------------------- */

#define SWNAME(p, i) ((p)->t->pool + (p)->sw[i].name)

/* Resolve names, run the tree checks, renumber in walk order and fill t. */
static int build(struct parser *p)
{
    topo *t = p->t;
    int rc = G5_OK, nsw = p->nsw, root = -1, nvisit = 0, nnodes = 0;
    struct htab swh = {0}, nodeh = {0};
    int *sw_name_of = NULL, *parent = NULL, *child = NULL, *node_name = NULL, *node_sw = NULL;
    int *order = NULL, *newid = NULL, *stack = NULL, *node_new = NULL;
    int nraw_nodes = 0;

    if (nsw == 0)
        return g5_error(G5_ERR_TOPO, "%s:%d: empty topology: no SwitchName= line", p->src,
                        p->line > 0 ? p->line : 1);

    sw_name_of = g5_malloc((size_t)nsw * sizeof(int), "switch names");
    parent = g5_malloc((size_t)nsw * sizeof(int), "switch parents");
    child = g5_malloc((size_t)p->nitems * sizeof(int) + 1, "child switches");
    node_name = g5_malloc((size_t)p->nitems * sizeof(int) + 1, "node names");
    node_sw = g5_malloc((size_t)p->nitems * sizeof(int) + 1, "node switches");
    if (!sw_name_of || !parent || !child || !node_name || !node_sw) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
    G5_TRY(htab_init(&swh, (size_t)nsw, "switch name table"));
    G5_TRY(htab_init(&nodeh, (size_t)p->nitems, "node name table"));

    for (int i = 0; i < nsw; i++) {
        const char *nm = SWNAME(p, i);
        size_t pos = htab_pos(&swh, t->pool, sw_name_of, nm, strlen(nm));
        if (swh.slot[pos] >= 0) {
            rc = g5_error(G5_ERR_TOPO, "%s:%d: duplicate switch name '%s' (first defined at line %d)",
                          p->src, p->sw[i].line, nm, p->sw[swh.slot[pos]].line);
            goto out;
        }
        sw_name_of[i] = p->sw[i].name;
        swh.slot[pos] = i;
        parent[i] = -1;
    }

    /* children and nodes, checked in file order */
    for (int i = 0; i < nsw; i++) {
        const struct raw_sw *s = &p->sw[i];
        for (int k = s->lo; k < s->hi; k++) {
            const char *nm = t->pool + p->items[k];
            size_t len = strlen(nm), pos;
            if (!s->is_leaf) {
                int c;
                pos = htab_pos(&swh, t->pool, sw_name_of, nm, len);
                c = swh.slot[pos];
                if (c < 0) {
                    rc = g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists unknown switch '%s' "
                                  "(no SwitchName=%s line)", p->src, s->line, SWNAME(p, i), nm, nm);
                    goto out;
                }
                if (c == i) {
                    rc = g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists itself under Switches= "
                                  "(a cycle)", p->src, s->line, nm);
                    goto out;
                }
                if (parent[c] == i) {
                    rc = g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists switch '%s' twice",
                                  p->src, s->line, SWNAME(p, i), nm);
                    goto out;
                }
                if (parent[c] >= 0) {
                    rc = g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' has two parents: '%s' (line %d) "
                                  "and '%s'", p->src, s->line, nm, SWNAME(p, parent[c]),
                                  p->sw[parent[c]].line, SWNAME(p, i));
                    goto out;
                }
                parent[c] = i;
                child[k] = c;
            } else {
                int nd;
                pos = htab_pos(&nodeh, t->pool, node_name, nm, len);
                nd = nodeh.slot[pos];
                if (nd >= 0) {
                    if (node_sw[nd] == i)
                        rc = g5_error(G5_ERR_TOPO, "%s:%d: switch '%s' lists node '%s' twice",
                                      p->src, s->line, SWNAME(p, i), nm);
                    else
                        rc = g5_error(G5_ERR_TOPO, "%s:%d: node '%s' is under two leaf switches: "
                                      "'%s' (line %d) and '%s'", p->src, s->line, nm,
                                      SWNAME(p, node_sw[nd]), p->sw[node_sw[nd]].line, SWNAME(p, i));
                    goto out;
                }
                node_name[nraw_nodes] = p->items[k];
                node_sw[nraw_nodes] = i;
                nodeh.slot[pos] = nraw_nodes++;
                child[k] = -1;
            }
        }
    }
    if (nraw_nodes > TOPO_MAX_NODES) {
        rc = g5_error(G5_ERR_TOPO, "%s: more than %d nodes", p->src, TOPO_MAX_NODES);
        goto out;
    }

    /* one top switch */
    for (int i = 0; i < nsw; i++) {
        if (parent[i] >= 0)
            continue;
        if (root >= 0) {
            rc = g5_error(G5_ERR_TOPO, "%s:%d: switches not connected: '%s' (line %d) and '%s' are "
                          "both top switches (no Switches= lists them); g500 needs one tree so that "
                          "every hop count is finite: add a switch above them", p->src,
                          p->sw[i].line, SWNAME(p, root), p->sw[root].line, SWNAME(p, i));
            goto out;
        }
        root = i;
    }
    if (root < 0) {
        rc = g5_error(G5_ERR_TOPO, "%s:%d: switches form a cycle: every switch has a parent, so "
                      "there is no top switch", p->src, p->sw[0].line);
        goto out;
    }

    /* depth-first walk from the root, children in file order */
    order = g5_malloc((size_t)nsw * sizeof(int), "walk order");
    newid = g5_malloc((size_t)nsw * sizeof(int), "walk order");
    stack = g5_malloc((size_t)nsw * sizeof(int), "walk stack");
    if (!order || !newid || !stack) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < nsw; i++)
        newid[i] = -1;
    {
        int top = 0;
        stack[top++] = root;
        while (top > 0) {
            int s = stack[--top];
            newid[s] = nvisit;
            order[nvisit++] = s;
            if (!p->sw[s].is_leaf)
                for (int k = p->sw[s].hi - 1; k >= p->sw[s].lo; k--)
                    stack[top++] = child[k]; /* each switch has one parent: pushed once */
        }
    }
    if (nvisit < nsw) {
        for (int i = 0; i < nsw; i++)
            if (newid[i] < 0) {
                rc = g5_error(G5_ERR_TOPO, "%s:%d: switches form a cycle: '%s' is not below the "
                              "top switch '%s' (line %d) but has a parent", p->src, p->sw[i].line,
                              SWNAME(p, i), SWNAME(p, root), p->sw[root].line);
                goto out;
            }
    }

    /* fill the tree in walk order */
    t->nsw = nsw;
    t->sw = g5_calloc((size_t)nsw, sizeof *t->sw, "switch table");
    t->node_name = g5_malloc((size_t)nraw_nodes * sizeof(int), "node table");
    t->node_leaf = g5_malloc((size_t)nraw_nodes * sizeof(int), "node table");
    node_new = g5_malloc((size_t)nraw_nodes * sizeof(int) + 1, "node renumbering");
    if (!t->sw || !t->node_name || !t->node_leaf || !node_new) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
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
                size_t pos = htab_pos(&nodeh, t->pool, node_name, t->pool + p->items[k],
                                      strlen(t->pool + p->items[k]));
                node_new[nodeh.slot[pos]] = nnodes;
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
    if (!t->leaf_sw) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
    for (int s = 0; s < nsw; s++)
        if (t->sw[s].leaf >= 0)
            t->leaf_sw[t->sw[s].leaf] = s;
    /* node name table keyed by final node numbers */
    for (size_t i = 0; i <= nodeh.mask; i++)
        if (nodeh.slot[i] >= 0)
            nodeh.slot[i] = node_new[nodeh.slot[i]];
    t->node_hash = nodeh.slot;
    t->node_hash_mask = nodeh.mask;
    nodeh.slot = NULL;

out:
    free(swh.slot);
    free(nodeh.slot);
    free(sw_name_of);
    free(parent);
    free(child);
    free(node_name);
    free(node_sw);
    free(order);
    free(newid);
    free(stack);
    free(node_new);
    return rc;
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

/* Leaf x leaf distances, one pre-order pass per leaf: the distance from
 * leaf a to switch s is depth(a) - depth(s) when s is an ancestor of a
 * (a lies in s's switch range), else the distance to s's parent + 1. */
static int fill_matrix(topo *t)
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
static uint64_t compute_id(const topo *t)
{
    uint64_t h = FNV_OFFSET;
    for (int s = 0; s < t->nsw; s++) {
        const char *nm = t->pool + t->sw[s].name;
        int32_t v[2] = {t->sw[s].parent, t->sw[s].speed};
        h = fnv1a(h, nm, strlen(nm) + 1);
        h = fnv1a(h, v, sizeof v);
    }
    for (int n = 0; n < t->nnodes; n++) {
        const char *nm = t->pool + t->node_name[n];
        int32_t v = t->node_leaf[n];
        h = fnv1a(h, nm, strlen(nm) + 1);
        h = fnv1a(h, &v, sizeof v);
    }
    return h;
}

/* The largest hop count between two nodes: for each switch, its two
 * children with the deepest leaves give the longest path turning there. */
static int compute_max_hops(topo *t)
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

/* Is the first significant line a tleaf line? Returns its line number and
 * the line's bounds, or 0. */
static int find_tleaf(const char *text, const char **ls, size_t *ln)
{
    int line = 0;
    const char *s = text;
    while (*s) {
        const char *e = strchr(s, '\n'), *q = s;
        size_t n = e ? (size_t)(e - s) : strlen(s);
        line++;
        while (q < s + n && is_space(*q))
            q++;
        if (q < s + n && *q != '#') {
            size_t rest = (size_t)(s + n - q);
            if (rest >= 5 && strncasecmp(q, "tleaf", 5) == 0 && (rest == 5 || is_space(q[5]))) {
                *ls = s;
                *ln = n;
                return line;
            }
            return 0;
        }
        if (!e)
            break;
        s = e + 1;
    }
    return 0;
}

int topo_parse(const char *text, const char *name, topo **out)
{
    struct parser p = {0};
    topo *t;
    int rc = G5_OK, tl;
    const char *tls = NULL;
    size_t tln = 0;

    *out = NULL;
    if (!name)
        name = "(topology)";
    if (!text)
        return g5_error(G5_ERR_ARG, "%s: no text to parse", name);
    t = g5_calloc(1, sizeof *t, "topology");
    if (!t)
        return G5_ERR_NOMEM;
    t->source = strdup(name);
    if (!t->source) {
        free(t);
        return g5_error(G5_ERR_NOMEM, "%s: cannot copy the name", name);
    }
    p.t = t;
    p.src = t->source;

    tl = find_tleaf(text, &tls, &tln);
    if (tl > 0) {
        const char *s = tls + tln;
        t->kind = TOPO_KIND_TLEAF;
        p.line = tl;
        G5_TRY(parse_tleaf(&p, tls, tln));
        /* only blank and comment lines may follow */
        while (*s) {
            const char *q;
            if (*s == '\n') {
                s++;
                p.line++;
            }
            for (q = s; *q && *q != '\n' && is_space(*q); q++)
                ;
            if (*q && *q != '\n' && *q != '#') {
                rc = g5_error(G5_ERR_TOPO, "%s:%d: text after the tleaf line (a file holds one "
                              "tleaf line or Slurm lines, not both)", p.src, p.line);
                goto out;
            }
            while (*s && *s != '\n')
                s++;
        }
    } else {
        const char *s = text;
        t->kind = TOPO_KIND_SLURM;
        while (*s) {
            const char *e = strchr(s, '\n'), *h;
            size_t n = e ? (size_t)(e - s) : strlen(s);
            p.line++;
            h = memchr(s, '#', n);
            G5_TRY(parse_slurm_line(&p, s, h ? (size_t)(h - s) : n));
            if (!e)
                break;
            s = e + 1;
        }
    }
    G5_TRY(build(&p));
    G5_TRY(fill_matrix(t));
    t->id = compute_id(t);
    G5_TRY(compute_max_hops(t));
out:
    free(p.sw);
    free(p.items);
    if (rc != G5_OK)
        topo_free(&t);
    *out = t;
    return rc;
}

int topo_load(const char *path, topo **out)
{
    FILE *f;
    char *buf = NULL;
    long size;
    int rc;
    *out = NULL;
    f = fopen(path, "rb");
    if (!f)
        return g5_error(G5_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* A directory opens and "seeks" to a size of LONG_MAX on Linux, which
     * would read as a too-large file: say what it is instead. */
    {
        struct stat st;
        int ok = fstat(fileno(f), &st) == 0;
        if (!ok || !S_ISREG(st.st_mode)) {
            int dir = ok && S_ISDIR(st.st_mode);
            fclose(f);
            return g5_error(G5_ERR_IO, "%s: %s, not a topology file", path,
                            dir ? "is a directory" : "is not a regular file");
        }
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return g5_error(G5_ERR_IO, "%s: cannot read (not a regular file?)", path);
    }
    if (size > TOPO_MAX_FILE) {
        fclose(f);
        return g5_error(G5_ERR_TOPO, "%s: %ld bytes is more than the %d-byte limit for a topology",
                        path, size, TOPO_MAX_FILE);
    }
    buf = g5_malloc((size_t)size + 1, path);
    if (!buf) {
        fclose(f);
        return G5_ERR_NOMEM;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(buf);
        return g5_error(G5_ERR_IO, "%s: read failed", path);
    }
    fclose(f);
    buf[size] = '\0';
    if (memchr(buf, '\0', (size_t)size)) {
        free(buf);
        return g5_error(G5_ERR_TOPO, "%s: contains a NUL byte (not a text file)", path);
    }
    rc = topo_parse(buf, path, out);
    free(buf);
    return rc;
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
    pos = htab_pos(&h, t->pool, t->node_name, name, strlen(name));
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
    CHECK(t->id == compute_id(t), "%s: identity does not match the tree", t->source);
    return G5_OK;
}
