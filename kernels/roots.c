/* SPDX-License-Identifier: MIT */
/*
 * roots.c - the search keys (Graph500 spec: up to 64 distinct roots with
 * degree >= 1 not counting self-loops, chosen at random from a seed).
 *
 * Candidates are perm(0), perm(1), ... where perm is a seeded bijection of
 * [0, 2^b), 2^b the smallest power of two >= N (affine maps and xorshifts
 * modulo 2^b, keys from splitmix64 of the seed); candidates >= N are
 * skipped. So the candidates are distinct, cover every vertex, and depend
 * only on (seed, N): the roots are the same original vertices whatever the
 * distribution and rank count. Candidates are tested in batches of 256: each
 * rank flags those it owns with a non-empty CSR row (self-loops were dropped
 * at construction), an MPI_Allreduce (MAX) merges the flags and every rank
 * accepts the same ones in candidate order.
 */
#include "kern_impl.h"

#define ROOT_BATCH 256

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef struct perm { uint64_t mask, k[4]; int bits; } perm;

static uint64_t perm_apply(const perm *p, uint64_t x)
{
    int s = p->bits / 2 + 1;
    for (int r = 0; r < 2; r++) {
        x = (x * (p->k[2 * r] | 1) + p->k[2 * r + 1]) & p->mask;
        x ^= x >> s;
    }
    return x;
}

int kern_roots_sample(const kern_graph *g, uint64_t seed, int want, int64_t *roots, int *nroots)
{
    const kern_dist *d = g->dist;
    int64_t N = d->nvertices, nonisolated = 0, total;
    *nroots = 0;
    for (int64_t v = 0; v < g->nlocal; v++)
        nonisolated += g->rowptr[v + 1] > g->rowptr[v];
    MPI_Allreduce(&nonisolated, &total, 1, MPI_INT64_T, MPI_SUM, g->comm);
    int64_t target = want < total ? want : total;

    perm p = {0};
    while (((int64_t)1 << p.bits) < N) p.bits++;
    p.mask = p.bits == 64 ? ~0ULL : ((1ULL << p.bits) - 1);
    uint64_t sm = seed ^ 0x5EED0F4007ULL;
    for (int i = 0; i < 4; i++) p.k[i] = splitmix64(&sm);

    int64_t cand[ROOT_BATCH];
    uint8_t mine[ROOT_BATCH], any[ROOT_BATCH];
    uint64_t space = (uint64_t)1 << p.bits, k = 0;
    int n = 0;
    while (n < target && k < space) {
        int nc = 0;
        for (; nc < ROOT_BATCH && k < space; k++) {
            uint64_t v = perm_apply(&p, k);
            if ((int64_t)v < N) cand[nc++] = (int64_t)v;
        }
        for (int i = 0; i < nc; i++) {
            int o;
            int64_t l;
            mine[i] = kern_dist_locate(d, cand[i], &o, &l) && o == g->rank &&
                      g->rowptr[l + 1] > g->rowptr[l];
        }
        MPI_Allreduce(mine, any, nc, MPI_UINT8_T, MPI_MAX, g->comm);
        for (int i = 0; i < nc && n < target; i++)
            if (any[i]) roots[n++] = cand[i];
    }
    *nroots = n;
    return g5_agree(g->comm, G5_OK);
}
