/* SPDX-License-Identifier: MIT */
/*
 * topo_parse.c - reading a topology: Slurm's topology.conf (topology/tree
 * plugin) lines or Scotch's tleaf line into the parser's raw switch list
 * (topo_build.c then checks and numbers it). No MPI call.
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

/* ---- string pool and parser state ------------------------------------- */

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

/* One hostlist element taken apart: bracket groups g[0..ng) over the
 * ranges rg[0..nrg), literal pieces lit[k] before group k (lit[ng] after
 * the last), total names it expands to. */
struct hostlist_elem {
    struct group g[TOPO_MAX_GROUPS];
    struct range rg[TOPO_MAX_RANGES];
    int ng, nrg;
    int64_t total;
    const char *lit[TOPO_MAX_GROUPS + 1];
    size_t litn[TOPO_MAX_GROUPS + 1];
};

/* The bracket group opened at s[*i] == '[': its comma-separated ranges
 * into h->rg; *i left after the ']'. */
static int parse_group(struct parser *p, const char *key, const char *s, size_t n, size_t *ip,
                       struct hostlist_elem *h)
{
    size_t i = *ip + 1, close = i;
    int64_t count = 0;

    h->g[h->ng].r = h->nrg;
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
        if (h->nrg == TOPO_MAX_RANGES)
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
        h->rg[h->nrg++] = r;
        count += r.hi - r.lo + 1;
        if (count > TOPO_MAX_NODES)
            break;
        i = e + 1;
    }
    h->g[h->ng].nr = h->nrg - h->g[h->ng].r;
    if (count <= TOPO_MAX_NODES)
        h->total *= count; /* both at most 2^20: no overflow */
    if (count > TOPO_MAX_NODES || h->total > TOPO_MAX_NODES)
        return g5_error(G5_ERR_TOPO, "%s:%d: %s=: hostlist '%.*s' names more than %d hosts",
                        p->src, p->line, key, (int)(n > 80 ? 80 : n), s, TOPO_MAX_NODES);
    h->ng++;
    *ip = close + 1;
    return G5_OK;
}

/* Every name of the element, in order (an odometer over the groups, the
 * last group fastest), into the pool and the item list. */
static int emit_names(struct parser *p, const char *key, const char *s, size_t n,
                      const struct hostlist_elem *h)
{
    const struct group *g = h->g;
    const struct range *rg = h->rg;
    int ng = h->ng;
    int64_t idx[TOPO_MAX_GROUPS];
    int ri[TOPO_MAX_GROUPS];
    char name[TOPO_NAME_MAX + 32];

    /* ri[k] = range within group k, idx[k] = value */
    for (int k = 0; k < ng; k++) {
        ri[k] = g[k].r;
        idx[k] = rg[ri[k]].lo;
    }
    for (;;) {
        size_t len = 0;
        int rc;
        for (int k = 0; k <= ng; k++) {
            if (len + h->litn[k] > TOPO_NAME_MAX)
                goto too_long;
            memcpy(name + len, h->lit[k], h->litn[k]);
            len += h->litn[k];
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

/* Expand one element (no top-level comma) s[0..n) into names added to the
 * pool and the item list. `key` names the key for messages. */
static int expand_element(struct parser *p, const char *key, const char *s, size_t n)
{
    struct hostlist_elem h;
    size_t i = 0, start = 0;
    int rc;

    h.ng = h.nrg = 0;
    h.total = 1;
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
        if (h.ng == TOPO_MAX_GROUPS)
            return g5_error(G5_ERR_TOPO, "%s:%d: %s=: more than %d bracket groups in '%.*s'",
                            p->src, p->line, key, TOPO_MAX_GROUPS, (int)(n > 80 ? 80 : n), s);
        h.lit[h.ng] = s + start;
        h.litn[h.ng] = i - start;
        if ((rc = parse_group(p, key, s, n, &i, &h)) != G5_OK)
            return rc;
        start = i;
    }
    h.lit[h.ng] = s + start;
    h.litn[h.ng] = n - start;
    if (key[0] == 'N') {
        p->nnode_items += h.total;
        if (p->nnode_items > TOPO_MAX_NODES)
            return g5_error(G5_ERR_TOPO, "%s:%d: more than %d nodes in the file", p->src, p->line,
                            TOPO_MAX_NODES);
    } else if (p->nitems + h.total > TOPO_MAX_NODES + (int64_t)TOPO_MAX_SWITCHES) {
        return g5_error(G5_ERR_TOPO, "%s:%d: more than %d names in the file", p->src, p->line,
                        TOPO_MAX_NODES + TOPO_MAX_SWITCHES);
    }
    return emit_names(p, key, s, n, &h);
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
    G5_TRY(topo_build(&p));
    G5_TRY(topo_fill_matrix(t));
    t->id = topo_compute_id(t);
    G5_TRY(topo_compute_max_hops(t));
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
