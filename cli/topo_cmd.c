/* SPDX-License-Identifier: MIT */
/*
 * topo_cmd.c - `g500 topo FILE`: parse a topology and print what was
 * understood, so a user can check their file: the switch tree indented in
 * walk order (leaf nodes folded back into hostlist expressions), node,
 * switch and level counts, and the histogram of hops over all node pairs.
 * With --ranks R --ranks-per-node K it prints the emulated rank-to-node map
 * and the histogram of hops over rank pairs; with --by-name it maps the
 * ranks of this very job by processor name.
 *
 * The node-pair histogram is computed per leaf pair (sizes multiply), so it
 * costs O(leaves^2) lookups, not O(nodes^2).
 */
#include "topo.h"
#include "cli.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>

int topo_cmd(int argc, char **argv);

struct topo_cfg {
    int ranks;
    int ranks_per_node;
    int by_name;
    int max_lines;
};

/* Split a name into prefix length and trailing decimal digits. */
static void split_name(const char *s, size_t *plen, long long *num, int *width)
{
    size_t n = strlen(s), i = n;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' && n - i < 17)
        i--;
    *plen = i;
    *width = (int)(n - i);
    *num = *width ? atoll(s + i) : -1;
}

static void append(char *buf, size_t cap, size_t *len, const char *a)
{
    int w;
    if (*len >= cap)
        return;
    w = snprintf(buf + *len, cap - *len, "%s", a);
    if (w > 0)
        *len += (size_t)w;
    if (*len >= cap)
        *len = cap;
}

/* Fold nodes [first, first+count) into a hostlist expression such as
 * n[00-03,12],gpu1 (consecutive numbers with a common prefix and width
 * become one range; runs with a common prefix share brackets). */
static void fold_nodes(const topo *t, int first, int count, char *buf, size_t cap)
{
    size_t len = 0;
    int i = first, end = first + count;
    buf[0] = '\0';
    while (i < end && len + 8 < cap) {
        const char *a = topo_node_name(t, i);
        size_t plen;
        long long num;
        int width, nranges = 0;
        split_name(a, &plen, &num, &width);
        if (len)
            append(buf, cap, &len, ",");
        if (width == 0) {
            append(buf, cap, &len, a);
            i++;
            continue;
        }
        /* ranges that share a's prefix, in order */
        {
            char pre[80];
            size_t mark;
            snprintf(pre, sizeof pre, "%.*s", (int)plen, a);
            append(buf, cap, &len, pre);
            mark = len;
            append(buf, cap, &len, "[");
            while (i < end) {
                const char *b = topo_node_name(t, i);
                size_t bl;
                long long lo, hi, v;
                int w, wv, j = i + 1;
                split_name(b, &bl, &lo, &w);
                if (bl != plen || strncmp(b, a, plen) != 0 || w == 0)
                    break;
                hi = lo;
                while (j < end) {
                    size_t cl;
                    const char *c = topo_node_name(t, j);
                    split_name(c, &cl, &v, &wv);
                    if (cl != plen || strncmp(c, a, plen) != 0 || v != hi + 1 ||
                        (wv != w && c[cl] == '0'))
                        break;
                    hi = v;
                    j++;
                }
                if (nranges++)
                    append(buf, cap, &len, ",");
                append(buf, cap, &len, b + bl);
                if (hi > lo) {
                    append(buf, cap, &len, "-");
                    append(buf, cap, &len, topo_node_name(t, j - 1) + bl);
                }
                i = j;
            }
            if (nranges == 1 && len < cap && strchr(buf + mark, '-') == NULL) {
                /* a single name: no brackets */
                memmove(buf + mark, buf + mark + 1, len - mark);
                len--;
            } else {
                append(buf, cap, &len, "]");
            }
        }
    }
    if (len + 8 >= cap || i < end)
        strcpy(buf + (cap > 8 ? cap - 8 : 0), ",...");
}

static void print_tree(const topo *t, int max_lines)
{
    char nodes[200];
    int nsw = topo_num_switches(t), shown = 0;
    printf("switch tree (walk order; a leaf shows its nodes):\n");
    for (int s = 0; s < nsw && shown < max_lines; s++, shown++) {
        int first, count, depth = topo_switch_depth(t, s), speed = topo_switch_link_speed(t, s);
        topo_switch_nodes(t, s, &first, &count);
        printf("  %*s%s", 2 * depth, "", topo_switch_name(t, s));
        if (topo_switch_is_leaf(t, s)) {
            fold_nodes(t, first, count, nodes, sizeof nodes);
            printf("  %s (%d node%s)", nodes, count, count == 1 ? "" : "s");
        } else {
            printf("  [%d child switch%s, %d nodes below]", topo_switch_num_children(t, s),
                   topo_switch_num_children(t, s) == 1 ? "" : "es", count);
        }
        if (speed >= 0)
            printf("  LinkSpeed=%d", speed);
        printf("\n");
    }
    if (shown < nsw)
        printf("  ... %d more switches (--max-lines to show them)\n", nsw - shown);
}

static void print_hist(const char *what, const int64_t *hist, int maxh, int64_t pairs)
{
    printf("hops between %s (%lld pairs):\n", what, (long long)pairs);
    printf("  %5s %14s %7s\n", "hops", "pairs", "share");
    for (int h = 0; h <= maxh; h++)
        if (hist[h])
            printf("  %5d %14lld %6.2f%%\n", h, (long long)hist[h],
                   pairs ? 100.0 * (double)hist[h] / (double)pairs : 0.0);
}

static int node_pair_hist(const topo *t)
{
    int nl = topo_num_leaves(t), maxh = topo_max_hops(t), nsw = topo_num_switches(t), k = 0;
    int *leaf = g5_malloc((size_t)nl * sizeof *leaf, "leaf list");
    int64_t *hist = g5_calloc((size_t)maxh + 1, sizeof *hist, "hop histogram"), pairs = 0;
    if (!leaf || !hist) {
        free(leaf);
        free(hist);
        return G5_ERR_NOMEM;
    }
    for (int s = 0; s < nsw; s++)
        if (topo_switch_is_leaf(t, s))
            leaf[k++] = s;
    for (int a = 0; a < nl; a++) {
        int fa, ca;
        topo_switch_nodes(t, leaf[a], &fa, &ca);
        hist[ca > 1 ? 1 : 0] += (int64_t)ca * (ca - 1) / 2;
        for (int b = a + 1; b < nl; b++) {
            int fb, cb;
            topo_switch_nodes(t, leaf[b], &fb, &cb);
            hist[topo_hops_between(t, fa, fb)] += (int64_t)ca * cb;
        }
    }
    for (int h = 0; h <= maxh; h++)
        pairs += hist[h];
    print_hist("distinct node pairs", hist, maxh, pairs);
    free(leaf);
    free(hist);
    return G5_OK;
}

static int print_ranks(const topo *t, int nranks, const int *rank_node, int max_lines)
{
    int maxh = topo_max_hops(t), lines = 0;
    int64_t *hist = g5_calloc((size_t)maxh + 1, sizeof *hist, "hop histogram"), pairs = 0;
    if (!hist)
        return G5_ERR_NOMEM;
    printf("rank -> node (runs of ranks on one node):\n");
    for (int r = 0; r < nranks;) {
        int e = r;
        while (e + 1 < nranks && rank_node[e + 1] == rank_node[r])
            e++;
        if (lines++ < max_lines) {
            int leaf = topo_node_switch(t, rank_node[r]);
            if (e > r)
                printf("  ranks %d-%d -> %s (node %d, leaf %s)\n", r, e,
                       topo_node_name(t, rank_node[r]), rank_node[r], topo_switch_name(t, leaf));
            else
                printf("  rank %d -> %s (node %d, leaf %s)\n", r, topo_node_name(t, rank_node[r]),
                       rank_node[r], topo_switch_name(t, leaf));
        }
        r = e + 1;
    }
    if (lines > max_lines)
        printf("  ... %d more runs (--max-lines to show them)\n", lines - max_lines);
    /* ranks per node, then per leaf: O(nodes + leaves^2), not O(ranks^2) */
    {
        int nn = topo_num_nodes(t), nsw = topo_num_switches(t), nl = 0;
        int64_t *per_node = g5_calloc((size_t)nn, sizeof *per_node, "ranks per node");
        int64_t *per_leaf = g5_calloc((size_t)topo_num_leaves(t), sizeof *per_leaf, "ranks per leaf");
        int *leaf_first = g5_malloc((size_t)topo_num_leaves(t) * sizeof *leaf_first, "leaf list");
        if (!per_node || !per_leaf || !leaf_first) {
            free(per_node);
            free(per_leaf);
            free(leaf_first);
            free(hist);
            return G5_ERR_NOMEM;
        }
        for (int r = 0; r < nranks; r++)
            per_node[rank_node[r]]++;
        for (int s = 0; s < nsw; s++) {
            int first, count;
            if (!topo_switch_is_leaf(t, s))
                continue;
            topo_switch_nodes(t, s, &first, &count);
            leaf_first[nl] = first;
            for (int n = first; n < first + count; n++) {
                hist[0] += per_node[n] * (per_node[n] - 1) / 2;
                per_leaf[nl] += per_node[n];
            }
            nl++;
        }
        for (int a = 0; a < nl; a++) {
            int64_t same_node = 0;
            int first, count;
            topo_switch_nodes(t, topo_node_switch(t, leaf_first[a]), &first, &count);
            for (int n = first; n < first + count; n++)
                same_node += per_node[n] * (per_node[n] - 1) / 2;
            if (maxh >= 1)
                hist[1] += per_leaf[a] * (per_leaf[a] - 1) / 2 - same_node;
            for (int b = a + 1; b < nl; b++)
                if (per_leaf[a] && per_leaf[b])
                    hist[topo_hops_between(t, leaf_first[a], leaf_first[b])] += per_leaf[a] * per_leaf[b];
        }
        free(per_node);
        free(per_leaf);
        free(leaf_first);
    }
    pairs = (int64_t)nranks * (nranks - 1) / 2;
    print_hist("distinct rank pairs", hist, maxh, pairs);
    free(hist);
    return G5_OK;
}

int topo_cmd(int argc, char **argv)
{
    struct topo_cfg cfg = {0, 1, 0, 64};
    const g5_opt opts[] = {
        {"ranks", 'r', G5_OPT_INT, &cfg.ranks, "R", "also map R ranks to nodes (0: no map)"},
        {"ranks-per-node", 'k', G5_OPT_INT, &cfg.ranks_per_node, "K",
         "with --ranks: rank r on node r/K in walk order"},
        {"by-name", 0, G5_OPT_FLAG, &cfg.by_name, "",
         "map this job's ranks by processor name (host names must be nodes of FILE)"},
        {"max-lines", 0, G5_OPT_INT, &cfg.max_lines, "N", "print at most N tree and map lines"},
    };
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int npos = 0, rc, nprocs;
    topo *t = NULL;
    int *rank_node = NULL;

    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = cli_parse(argc, argv, opts, nopts, pos, 1, &npos,
                   "g500 topo FILE [--ranks R --ranks-per-node K] [--by-name]",
                   "Parse a topology (Slurm topology.conf, topology/tree syntax, or a "
                   "Scotch\ntleaf line) and print the switch tree, counts and hop "
                   "histograms.",
                   1, "expected one topology FILE (see --help)");
    if (rc == 1)
        return 0;
    if (rc == G5_OK && (cfg.ranks < 0 || cfg.max_lines < 0))
        rc = g5_error(G5_ERR_ARG, "--ranks and --max-lines must not be negative");
    if (rc != G5_OK)
        return g5_cmd_fail("topo", g5_agree(MPI_COMM_WORLD, rc));

    rc = topo_load(pos[0], &t);
    if (rc == G5_OK)
        rc = topo_check(t);
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc != G5_OK)
        goto out;

    if (g5_log_rank()) {
        printf("topology %s (%s), id %016llx\n", topo_source(t),
               topo_is_tleaf(t) ? "tleaf" : "Slurm topology.conf", (unsigned long long)topo_id(t));
        print_tree(t, cfg.max_lines);
        printf("nodes %d, switches %d (%d leaf), levels %d, max hops %d\n", topo_num_nodes(t),
               topo_num_switches(t), topo_num_leaves(t), topo_num_levels(t), topo_max_hops(t));
        rc = node_pair_hist(t);
    }
    rc = g5_agree(MPI_COMM_WORLD, rc);
    if (rc != G5_OK)
        goto out;

    if (cfg.ranks > 0) {
        rank_node = g5_malloc((size_t)cfg.ranks * sizeof *rank_node, "rank map");
        rc = rank_node ? topo_map_ranks_per_node(t, cfg.ranks, cfg.ranks_per_node, rank_node)
                       : G5_ERR_NOMEM;
        if (rc == G5_OK && g5_log_rank()) {
            printf("%d ranks at %d per node on %d of %d nodes (rank r on node r/%d):\n", cfg.ranks,
                   cfg.ranks_per_node, cfg.ranks / cfg.ranks_per_node, topo_num_nodes(t),
                   cfg.ranks_per_node);
            rc = print_ranks(t, cfg.ranks, rank_node, cfg.max_lines);
        }
        rc = g5_agree(MPI_COMM_WORLD, rc);
        free(rank_node);
        rank_node = NULL;
        if (rc != G5_OK)
            goto out;
    }
    if (cfg.by_name) {
        rank_node = g5_malloc((size_t)nprocs * sizeof *rank_node, "rank map");
        rc = g5_agree(MPI_COMM_WORLD, rank_node ? G5_OK : G5_ERR_NOMEM);
        if (rc == G5_OK)
            rc = topo_map_ranks_by_name(t, MPI_COMM_WORLD, rank_node);
        if (rc == G5_OK && g5_log_rank()) {
            printf("this job's %d ranks by processor name:\n", nprocs);
            rc = print_ranks(t, nprocs, rank_node, cfg.max_lines);
        }
        rc = g5_agree(MPI_COMM_WORLD, rc);
    }
out:
    fflush(stdout);
    free(rank_node);
    topo_free(&t);
    return rc == G5_OK ? 0 : g5_cmd_fail("topo", rc);
}
