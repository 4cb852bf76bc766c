/* SPDX-License-Identifier: MIT */
/*
 * bench_topo.c - speed of the topology parser and of hop lookups.
 * For trees of 1e3..1e6 nodes (three levels: pods of leaves of 16 nodes,
 * written as Slurm topology.conf text with one hostlist range per leaf), it
 * reports the median of 5 parses, one topo_check, and hop lookups per
 * second over pseudo-random node pairs (leaf-matrix path when the tree has
 * at most 2048 leaves, tree walk above). Run by `make bench-topo`.
 */
#include "common.h"
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *make_text(int nodes, int per_leaf, int leaves_per_pod)
{
    int nleaves = nodes / per_leaf, npods = (nleaves + leaves_per_pod - 1) / leaves_per_pod;
    size_t cap = (size_t)nleaves * 64 + (size_t)npods * 64 + 1024, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    for (int l = 0; l < nleaves; l++)
        len += (size_t)snprintf(s + len, cap - len, "SwitchName=l%d Nodes=cn[%07d-%07d]\n", l,
                                l * per_leaf, (l + 1) * per_leaf - 1);
    for (int p = 0; p < npods; p++) {
        int lo = p * leaves_per_pod, hi = lo + leaves_per_pod - 1;
        if (hi >= nleaves)
            hi = nleaves - 1;
        len += (size_t)snprintf(s + len, cap - len, "SwitchName=p%d Switches=l[%d-%d]\n", p, lo, hi);
    }
    snprintf(s + len, cap - len, "SwitchName=core Switches=p[0-%d]\n", npods - 1);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1000, 10000, 100000, 1000000};
    MPI_Init(&argc, &argv);
    printf("%9s %7s %7s %12s %12s %14s %10s\n", "nodes", "leaves", "matrix", "parse_ms",
           "check_ms", "hops_per_s", "peak_MiB");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        char *text = make_text(n, 16, 32);
        double t[5], t0, tc, th;
        topo *tp = NULL;
        uint64_t x = 88172645463325252ULL, sum = 0;
        const int lookups = 20000000;
        if (!text)
            return 1;
        for (int r = 0; r < 5; r++) {
            topo_free(&tp);
            t0 = g5_now();
            if (topo_parse(text, "bench", &tp) != G5_OK) {
                fprintf(stderr, "%s\n", g5_error_msg());
                return 1;
            }
            t[r] = g5_now() - t0;
        }
        qsort(t, 5, sizeof t[0], cmp_double);
        t0 = g5_now();
        if (topo_check(tp) != G5_OK) {
            fprintf(stderr, "%s\n", g5_error_msg());
            return 1;
        }
        tc = g5_now() - t0;
        t0 = g5_now();
        for (int k = 0; k < lookups; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            sum += (uint64_t)topo_hops_between(tp, (int)(x % (uint64_t)n), (int)((x >> 32) % (uint64_t)n));
        }
        th = g5_now() - t0;
        printf("%9d %7d %7s %12.2f %12.2f %14.3g %10.1f   (hop sum %llu)\n", topo_num_nodes(tp), topo_num_leaves(tp),
               topo_num_leaves(tp) <= 2048 ? "yes" : "no", 1e3 * t[2], 1e3 * tc, lookups / th,
               (double)g5_peak_rss() / (1 << 20), (unsigned long long)sum);
        topo_free(&tp);
        free(text);
    }
    MPI_Finalize();
    return 0;
}
