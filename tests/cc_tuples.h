/* SPDX-License-Identifier: MIT */
/*
 * cc_tuples.h - test-only helpers shared by the unit and MPI tests of the
 * component statistics (tests/unit/test_cc*.c, tests/mpi/mpi_cc_stats.c):
 * a splitmix64 stream, a skewed random tuple list (a giant, small sets,
 * self-loops, optionally one repeated pair), and the brute-force counts the
 * statistics are checked against (a sort of the normalised pairs).
 * Independent of components/: nothing here calls the code under test.
 */
#ifndef G500_TESTS_CC_TUPLES_H
#define G500_TESTS_CC_TUPLES_H

#include <stdint.h>
#include <stdlib.h>

/* splitmix64 (Steele, Lea, Flood, OOPSLA 2014): the next value of *s. */
static inline uint64_t cct_rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline int cct_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Fill e[m][2] with skewed tuples over [0, n) from *s: tuple i is a
 * self-loop when i % loop_mod == loop_at; with `repeated`, every odd tuple
 * is the pair {lo, lo + 1}, alternating its orientation. */
static inline void cct_skewed(int64_t *e, int64_t m, int64_t n, uint64_t *s, int64_t loop_mod,
                              int64_t loop_at, int repeated, int64_t lo)
{
    for (int64_t i = 0; i < m; i++) {
        uint64_t r = cct_rnd(s);
        int64_t u = (int64_t)((r & 0xffff) * (r >> 48 & 0xffff) % (uint64_t)n);
        int64_t v = (int64_t)((r >> 16 & 0xffff) * (r >> 32 & 0x7ff) % (uint64_t)n);
        if (i % loop_mod == loop_at)
            v = u;
        if (repeated && i % 2) {
            u = lo + (i % 4 == 1);
            v = 2 * lo + 1 - u;
        }
        e[2 * i] = u;
        e[2 * i + 1] = v;
    }
}

/* Brute force over e[m][2] (vertices in [0, n)): the distinct unordered
 * non-loop pairs, returned, and the self-loops (*loops, may be NULL);
 * -1 when out of memory. */
static inline int64_t cct_distinct(const int64_t *e, int64_t m, int64_t n, int64_t *loops)
{
    int64_t *keys = malloc((size_t)(m + 1) * sizeof *keys), nk = 0, d = 0, nl = 0;
    if (!keys)
        return -1;
    for (int64_t i = 0; i < m; i++) {
        int64_t u = e[2 * i], v = e[2 * i + 1];
        if (u == v)
            nl++;
        else
            keys[nk++] = (u < v ? u : v) * n + (u < v ? v : u);
    }
    qsort(keys, (size_t)nk, sizeof *keys, cct_cmp_i64);
    for (int64_t i = 0; i < nk; i++)
        d += i == 0 || keys[i] != keys[i - 1];
    free(keys);
    if (loops)
        *loops = nl;
    return d;
}

/* A skewed random graph over [0, n) from *s: a giant in [0, n/2), small
 * sets (pairs in [n/2, 3n/4)) and isolated vertices ([3n/4, n)). */
static inline void cct_skewed_graph(int64_t n, int64_t m, int64_t *e, uint64_t *s)
{
    for (int64_t i = 0; i < m; i++) {
        uint64_t r = cct_rnd(s);
        if (i % 8 == 0) {
            e[2 * i] = n / 2 + 2 * (int64_t)(r % (uint64_t)(n / 8));
            e[2 * i + 1] = e[2 * i] + 1;
        } else {
            e[2 * i] = (int64_t)((r & 0xffff) * (r >> 48 & 0xffff) % (uint64_t)(n / 2));
            e[2 * i + 1] = (int64_t)((r >> 16 & 0xffff) * (r >> 32 & 0x7ff) % (uint64_t)(n / 2));
        }
    }
}

#endif
