/* SPDX-License-Identifier: MIT */
/*
 * cc_tally.c - the edge tally: the edges per component counted while the
 * forest links them, so that a stage streaming its edge list needs no
 * second pass over it and no counter per vertex.
 *
 * Every tuple given to cc_forest_link_edges is counted at a vertex of its
 * set: a self-loop in its thread's loop count; a tuple the giant filter
 * drops (both ends in the marked set) in one count per call and block at
 * the marked set's root (bulk); the others (the parallel path's sample,
 * the few the filter keeps: about 5% of a Graph500 list) at their first
 * endpoint, appended to the list of the thread that read them. Once the
 * labels exist, cc_tally_fold adds comp_edges[label[x]] for each entry:
 * the same sums as counting each tuple at label[u]. The lists are folded
 * into a counter per vertex (32-bit, 64-bit once a count could pass
 * 2^32 - 1) only when together they outgrow n entries (an unshuffled
 * list, whose filter keeps much), so the tally stays O(n) whatever the
 * input.
 */
#include "cc_internal.h"
#include "common.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int cc_tally_create(int64_t n, cc_tally **out)
{
    cc_tally *t = g5_calloc(1, sizeof *t, "edge tally");
    *out = NULL;
    if (!t)
        return G5_ERR_NOMEM;
    t->n = n;
    t->limit32 = (int64_t)UINT32_MAX;
    *out = t;
    return G5_OK;
}

void cc_tally_set_limit32(cc_tally *t, int64_t limit) { t->limit32 = limit; }

void cc_tally_free(cc_tally **tp)
{
    cc_tally *t = tp ? *tp : NULL;
    if (!t)
        return;
    for (int i = 0; i < t->nlist; i++)
        free(t->list[i].v);
    free(t->list);
    free(t->bulk_v);
    free(t->bulk_w);
    free(t->d32);
    free(t->d64);
    free(t);
    *tp = NULL;
}

int cc_tally_counters(const cc_tally *t) { return t->d64 ? 64 : t->d32 ? 32 : 0; }

/* Lists for nt threads; 0 when out of memory. Not in a parallel region. */
int cc_tally_lists(cc_tally *t, int nt)
{
    if (t->nlist >= nt)
        return 1;
    tally_list *l = realloc(t->list, (size_t)nt * sizeof *l);
    if (!l)
        return 0;
    memset(l + t->nlist, 0, (size_t)(nt - t->nlist) * sizeof *l);
    t->list = l;
    t->nlist = nt;
    return 1;
}

/* Room for k more entries in l (its own thread only); NULL when out of
 * memory (the tally is then marked failed): the entries are not kept. */
static int32_t *tally_room(cc_tally *t, tally_list *l, int64_t k)
{
    if (l->len + k > l->cap) {
        const int64_t cap = l->len + k > 2 * l->cap ? l->len + k : 2 * l->cap;
        int32_t *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v) {
            __atomic_store_n(&t->failed, 1, __ATOMIC_RELAXED);
            return NULL;
        }
        l->v = v;
        l->cap = cap;
    }
    return l->v;
}

/* Count edges [lo, hi) at their first endpoint (self-loops apart) in
 * thread list l; an edge with an id outside [0, n) is left out (the call
 * fails on it). */
void cc_tally_edges(cc_tally *t, tally_list *l, const int64_t *e, int64_t lo, int64_t hi)
{
    int32_t *v = tally_room(t, l, hi - lo);
    int64_t len = l->len, loops = 0;
    const uint64_t n = (uint64_t)t->n;
    if (!v)
        return;
    for (int64_t j = lo; j < hi; j++) {
        const uint64_t a = (uint64_t)e[2 * j], b = (uint64_t)e[2 * j + 1];
        const int ok = (a < n) & (b < n);
        v[len] = (int32_t)a;
        len += ok & (a != b);
        loops += ok & (a == b);
    }
    l->len = len;
    l->loops += loops;
}

/* tally_edges for the int32 pairs p[0 .. k) the giant filter kept. */
void cc_tally_pairs(cc_tally *t, tally_list *l, const int32_t *p, int64_t k)
{
    int32_t *v = tally_room(t, l, k);
    int64_t len = l->len, loops = 0;
    if (!v)
        return;
    for (int64_t j = 0; j < k; j++) {
        const int32_t a = p[2 * j], b = p[2 * j + 1];
        v[len] = a;
        len += a != b;
        loops += a == b;
    }
    l->len = len;
    l->loops += loops;
}

/* k tuples dropped by the giant filter: count them at x, a vertex of the
 * marked set (the entry before is added to when it is the same vertex).
 * Not in a parallel region. */
void cc_tally_bulk(cc_tally *t, int32_t x, int64_t k)
{
    if (k <= 0 || x < 0)
        return;  /* x < 0: no marked set, so nothing was dropped */
    if (t->nbulk > 0 && t->bulk_v[t->nbulk - 1] == x) {
        t->bulk_w[t->nbulk - 1] += k;
        return;
    }
    if (t->nbulk == t->capbulk) {
        const int64_t cap = t->capbulk ? 2 * t->capbulk : 64;
        int32_t *v = realloc(t->bulk_v, (size_t)cap * sizeof *v);
        if (v)
            t->bulk_v = v;
        int64_t *w = realloc(t->bulk_w, (size_t)cap * sizeof *w);
        if (w)
            t->bulk_w = w;
        if (!v || !w) {
            t->failed = 1;
            return;
        }
        t->capbulk = cap;
    }
    t->bulk_v[t->nbulk] = x;
    t->bulk_w[t->nbulk++] = k;
}

/* Once the lists hold more than n entries (as many bytes as the counters;
 * and at least 2^16), fold them into the counters per vertex and free
 * them. A Graph500 list keeps 0.5-0.8 n entries from SCALE 18 up (SCALE
 * 16: more: the sample is a larger share). Not in a parallel region. */
void cc_tally_squeeze(cc_tally *t)
{
    int64_t total = 0;
    for (int i = 0; i < t->nlist; i++)
        total += t->list[i].len;
    if (total <= t->n || total < ((int64_t)1 << 16))
        return;
    if (!t->d64 && t->dtotal + total > t->limit32) {
        /* a count might pass 2^32 - 1: 64-bit counters from here */
        t->d64 = calloc((size_t)t->n, sizeof *t->d64);
        if (!t->d64) {
            t->failed = 1;
            return;
        }
        if (t->d32)
            for (int64_t x = 0; x < t->n; x++)
                t->d64[x] = t->d32[x];
        free(t->d32);
        t->d32 = NULL;
    } else if (!t->d64 && !t->d32) {
        t->d32 = calloc((size_t)t->n, sizeof *t->d32);
        if (!t->d32) {
            t->failed = 1;
            return;
        }
    }
    for (int i = 0; i < t->nlist; i++) {
        tally_list *l = &t->list[i];
        for (int64_t j = 0; j < l->len; j++) {
            if (t->d64)
                t->d64[l->v[j]]++;
            else
                t->d32[l->v[j]]++;
        }
        t->dtotal += l->len;
        free(l->v);
        l->v = NULL;
        l->len = l->cap = 0;
    }
}

void cc_tally_fold(const cc_tally *t, const int32_t *label, int nthreads, int64_t *comp_edges,
                   int64_t *self_loops, int64_t *nonloop)
{
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    int64_t loops = 0, counted = t->dtotal;
    for (int i = 0; i < t->nlist; i++) {
        const tally_list *l = &t->list[i];
        int64_t giant = 0;
        loops += l->loops;
        counted += l->len;
        /* nearly every entry is in the giant (label 0): counted in a
         * register, the others with atomics */
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : giant)
        for (int64_t j = 0; j < l->len; j++) {
            const int32_t c = label[l->v[j]];
            if (c == 0)
                giant++;
            else
#pragma omp atomic
                comp_edges[c]++;
        }
        if (giant)
            comp_edges[0] += giant;
    }
    for (int64_t b = 0; b < t->nbulk; b++) {
        comp_edges[label[t->bulk_v[b]]] += t->bulk_w[b];
        counted += t->bulk_w[b];
    }
    if (t->d32 || t->d64)
        for (int64_t x = 0; x < t->n; x++) {
            const uint64_t c = t->d32 ? t->d32[x] : t->d64[x];
            if (c)
                comp_edges[label[x]] += (int64_t)c;
        }
    *self_loops += loops;
    *nonloop += counted;
}
