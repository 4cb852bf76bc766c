/* SPDX-License-Identifier: MIT */
/*
 * cc_dist.c - the distributed merge: connected components over ranks
 * without an array of N entries on any rank. Each rank's slab is first
 * reduced to local sets over compact ids (cc_dist_local.c); then, with
 * the exchange of cc_dist_exchange.c:
 *
 * Union-find over owner ranks. [0, N) is split in P blocks (the first
 * N mod P ranks one vertex more: the rows of /label each rank writes);
 * the owner of v holds f[v] (-1: v is in no non-loop tuple; otherwise a
 * vertex of v's component with f[v] <= v, so the f[] form a forest whose
 * roots have f[r] == r). Rounds, after Shiloach-Vishkin and FastSV
 * (Zhang, Azad, Hu, "FastSV: a distributed-memory connected component
 * algorithm with fast convergence", SIAM PP 2020):
 *   gather  fl[i] = f[gid[i]] for every local vertex (the first gather
 *           sets f[v] = v, marking v seen, and records a plan so later
 *           gathers send no keys);
 *   hook    per local set the minimum m of its fl; each member i with
 *           fl[i] > m lowers f[gid[i]] and f[fl[i]] (its old parent,
 *           moving its whole tree) to m;
 *   jump    f[v] = f[f[v]] until no owned entry changes anywhere;
 * until no local set has two fl values. Then each component is one star
 * rooted at its smallest vertex (values only fall and stay inside their
 * component), the canonical tie-break.
 *
 * Canonical labels: vertices and edges are counted at their root's owner
 * (one sum per distinct root and rank, through a small hash table), every
 * rank gathers the (vertices, root, edges) list of all components, sorts
 * it (vertices descending, root ascending) and labels its own block.
 *
 * Exchanges go to the key's owner by MPI_Alltoallv in batches of at most
 * cc_opts.dist_batch (2^18) pairs per rank, every rank taking as many
 * batches as the rank with the most; hooks of one old parent are combined
 * on the sender first. Memory per rank, n_b = N/P owned vertices, n_l
 * local ids: fl and a per-set minimum (16 B * n_l), the gather plan (8 B
 * * n_l), f and two counters (24 B * n_b), the labels (4 B * n_b), a
 * round's requests (16 B per hooking local vertex), the jump targets, a
 * batch of 24 B * 2^18 sent, and 40 B per component for the list.
 */
#include "cc_internal.h"
#include "common.h"

#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Distinct keys in the order first met, found through an open addressing
 * table of their indices (int32, -1 empty) that doubles at half full, each
 * with a value: the targets of one jump round (the values their owners
 * answer), or the roots of step 3's counts (the sums). Most entries point
 * at a few roots, so the table stays small and in cache. */
typedef struct targets {
    int64_t *key, *val;   /* [cap_k]: the targets, then what their owners answer */
    int64_t n, cap_k;
    int32_t *slot;        /* [cap] */
    int64_t cap;
    int shift;
} targets;

static void targets_free(targets *t)
{
    free(t->key);
    free(t->val);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

/* Empty the set, keeping (or first making) its arrays. */
static int targets_reset(targets *t)
{
    if (!t->slot) {
        t->cap = 4096;
        t->shift = 64 - 12;
        t->slot = g5_malloc((size_t)t->cap * sizeof *t->slot, "components: jump targets");
        if (!t->slot)
            return G5_ERR_NOMEM;
    }
    memset(t->slot, 0xff, (size_t)t->cap * sizeof *t->slot);
    t->n = 0;
    return G5_OK;
}

/* The index of x in t->key, added if new; -1 when out of memory. */
static int64_t targets_index(targets *t, int64_t x)
{
    const uint64_t mask = (uint64_t)t->cap - 1;
    uint64_t s = cc_hslot((uint32_t)x, t->shift);
    for (; t->slot[s] >= 0; s = (s + 1) & mask)
        if (t->key[t->slot[s]] == x)
            return t->slot[s];
    if (t->n == t->cap_k) {
        const int64_t c = t->cap_k ? 2 * t->cap_k : 1024;
        int64_t *k = realloc(t->key, (size_t)c * sizeof *k), *v;
        if (!k)
            return -1;
        t->key = k;
        v = realloc(t->val, (size_t)c * sizeof *v);
        if (!v)
            return -1;
        t->val = v;
        t->cap_k = c;
    }
    if (2 * (t->n + 1) > t->cap) {
        /* double the table and put the indices back */
        int32_t *ns = g5_malloc((size_t)t->cap * 2 * sizeof *ns, "components: jump targets");
        if (!ns)
            return -1;
        free(t->slot);
        t->slot = ns;
        t->cap *= 2;
        t->shift--;
        memset(t->slot, 0xff, (size_t)t->cap * sizeof *t->slot);
        for (int64_t j = 0; j < t->n; j++) {
            uint64_t q = cc_hslot((uint32_t)t->key[j], t->shift);
            while (t->slot[q] >= 0)
                q = (q + 1) & ((uint64_t)t->cap - 1);
            t->slot[q] = (int32_t)j;
        }
        s = cc_hslot((uint32_t)x, t->shift);
        while (t->slot[s] >= 0)
            s = (s + 1) & ((uint64_t)t->cap - 1);
    }
    t->key[t->n] = x;
    t->val[t->n] = 0;
    t->slot[s] = (int32_t)t->n;
    return t->n++;
}

/* t->val of key x += v (a key first met starts at 0). */
static int targets_add(targets *t, int64_t x, int64_t v)
{
    const int64_t j = targets_index(t, x);
    if (j < 0 || j > INT32_MAX)
        return g5_error(G5_ERR_NOMEM, "components: count requests");
    t->val[j] += v;
    return G5_OK;
}

/* Pointer jumping until no owned entry changes on any rank: an owned
 * target is read in place, the others are asked of their owners once per
 * distinct target and round (idx[i]: entry i's target's index, -1 none).
 * Collective. */
static int jump(cc_dist *d)
{
    int rc = G5_OK;
    targets tg;
    int32_t *idx = g5_malloc((size_t)(d->count ? d->count : 1) * sizeof *idx, "components: jump targets");
    memset(&tg, 0, sizeof tg);
    rc = g5_agree(d->comm, idx ? G5_OK : G5_ERR_NOMEM);
    for (; rc == G5_OK;) {
        int64_t changed = 0, all = 0;
        rc = targets_reset(&tg);
        for (int64_t i = 0; rc == G5_OK && i < d->count; i++) {
            const int64_t x = d->f[i];
            idx[i] = -1;
            if (x < 0 || x == d->first + i)
                continue;
            if (x >= d->first && x < d->first + d->count) {
                const int64_t y = d->f[x - d->first];
                if (y != x) {
                    d->f[i] = y;
                    changed++;
                }
            } else {
                const int64_t j = targets_index(&tg, x);
                if (j < 0 || j > INT32_MAX)
                    rc = g5_error(G5_ERR_NOMEM, "components: jump targets");
                idx[i] = (int32_t)j;
            }
        }
        rc = g5_agree(d->comm, rc);
        if (rc == G5_OK)
            rc = cc_dist_exchange(d, CC_DIST_GET, tg.key, NULL, 1, tg.n, tg.val, NULL);
        if (rc == G5_OK) {
            for (int64_t i = 0; i < d->count; i++) {
                if (idx[i] < 0)
                    continue;
                const int64_t y = tg.val[idx[i]];
                if (y != d->f[i]) {
                    d->f[i] = y;
                    changed++;
                }
            }
            if (MPI_Allreduce(&changed, &all, 1, MPI_INT64_T, MPI_SUM, d->comm) != MPI_SUCCESS)
                rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
        }
        if (rc == G5_OK && all == 0)
            break;
    }
    targets_free(&tg);
    free(idx);
    return rc;
}

typedef struct comp {
    int64_t vertices, root, edges;
} comp;

static int cmp_comp(const void *a, const void *b)
{
    const comp *x = a, *y = b;
    if (x->vertices != y->vertices)
        return x->vertices > y->vertices ? -1 : 1;
    return x->root < y->root ? -1 : x->root > y->root;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The hook requests of a round (*req, *k of them, caller frees): per
 * local set the minimum m of its members' fl (mn, nloc entries of
 * scratch); [0, ka) one aggressive hook per member with fl > m (distinct
 * keys), then the hooks of their old parents, combined (many share one).
 * Collective (agreed status). */
static int hook_requests(MPI_Comm comm, int64_t nloc, const int64_t *gid, const int32_t *lroot,
                         const int64_t *fl, int64_t *mn, cc_kv **req, int64_t *k)
{
    int64_t ka = 0, kh = 0;
    for (int64_t i = 0; i < nloc; i++)
        mn[i] = INT64_MAX;
    for (int64_t i = 0; i < nloc; i++)
        if (fl[i] < mn[lroot[i]])
            mn[lroot[i]] = fl[i];
    for (int64_t i = 0; i < nloc; i++)
        if (fl[i] > mn[lroot[i]]) {
            ka++;
            kh += fl[i] != gid[i];
        }
    *req = g5_malloc((size_t)(ka + kh + 1) * sizeof **req, "components: hook requests");
    int rc = g5_agree(comm, *req ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        return rc;
    cc_kv *q = *req;
    ka = kh = 0;
    for (int64_t i = 0; i < nloc; i++)
        if (fl[i] > mn[lroot[i]])
            q[ka++] = (cc_kv){gid[i], mn[lroot[i]]};
    for (int64_t i = 0; i < nloc; i++)
        if (fl[i] > mn[lroot[i]] && fl[i] != gid[i])
            q[ka + kh++] = (cc_kv){fl[i], mn[lroot[i]]};
    kh = cc_kv_combine(q + ka, kh);
    *k = ka + (kh > 0 ? kh : 0);
    return g5_agree(comm, kh < 0 ? G5_ERR_NOMEM : G5_OK);
}

/* Step 2: rounds of gather, hook and jump until no request is left;
 * fl[i] = f of local vertex i at the end. Collective. */
static int hook_rounds(cc_dist *d, int64_t nloc, const int64_t *gid, const int32_t *lroot, int64_t *fl,
                       int64_t *rounds)
{
    cc_dist_plan plan;
    cc_kv *req = NULL;
    int64_t *mn = g5_malloc((size_t)(nloc ? nloc : 1) * sizeof *mn, "components: per-set scratch");
    int rc = g5_agree(d->comm, mn ? G5_OK : G5_ERR_NOMEM);

    memset(&plan, 0, sizeof plan);
    if (rc == G5_OK)
        rc = cc_dist_exchange_plan(d, CC_DIST_GET, gid, NULL, 1, nloc, fl, NULL, &plan);
    while (rc == G5_OK) {
        int64_t k = 0, nreq = 0, changed = 0;
        rc = hook_requests(d->comm, nloc, gid, lroot, fl, mn, &req, &k);
        if (rc == G5_OK && MPI_Allreduce(&k, &nreq, 1, MPI_INT64_T, MPI_SUM, d->comm) != MPI_SUCCESS)
            rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
        rc = g5_agree(d->comm, rc);
        if (rc != G5_OK || nreq == 0)
            break;
        rc = cc_dist_exchange_kv(d, CC_DIST_MIN, req, k, &changed);
        free(req);
        req = NULL;
        if (rc == G5_OK)
            rc = jump(d);
        if (rc == G5_OK)
            rc = cc_dist_gather_planned(d, &plan, fl);
        if (rc == G5_OK)
            (*rounds)++;
    }
    free(req);
    free(mn);
    cc_dist_plan_free(&plan);
    return rc;
}

/* Step 3's sums: the edges of each local set (ecnt, at its local root)
 * and the vertices of each owned vertex added to the counters of their
 * root's owner, one request per distinct root and rank. Collective. */
static int count_at_roots(cc_dist *d, int64_t nloc, const int32_t *lroot, const int64_t *ecnt, const int64_t *fl)
{
    const size_t nb = (size_t)(d->count ? d->count : 1);
    targets sums;
    int rc;

    memset(&sums, 0, sizeof sums);
    d->accv = g5_calloc(nb, sizeof *d->accv, "components: owned vertex counts");
    d->acce = g5_calloc(nb, sizeof *d->acce, "components: owned edge counts");
    rc = g5_agree(d->comm, d->accv && d->acce ? G5_OK : G5_ERR_NOMEM);
    if (rc == G5_OK)
        rc = targets_reset(&sums);
    /* a set's members share fl: its edges go to that root */
    for (int64_t i = 0; rc == G5_OK && i < nloc; i++)
        if (lroot[i] == i && ecnt[i] > 0)
            rc = targets_add(&sums, fl[i], ecnt[i]);
    rc = g5_agree(d->comm, rc);
    if (rc == G5_OK)
        rc = cc_dist_exchange(d, CC_DIST_ADD_E, sums.key, sums.val, 1, sums.n, NULL, NULL);
    if (rc == G5_OK)
        rc = targets_reset(&sums);
    for (int64_t i = 0; rc == G5_OK && i < d->count; i++)
        if (d->f[i] >= 0)
            rc = targets_add(&sums, d->f[i], 1);
    rc = g5_agree(d->comm, rc);
    if (rc == G5_OK)
        rc = cc_dist_exchange(d, CC_DIST_ADD_V, sums.key, sums.val, 1, sums.n, NULL, NULL);
    targets_free(&sums);
    return rc;
}

/* The component list of all ranks (*all, *ncomp): each rank's roots with
 * their counts, gathered and sorted canonically. Collective. */
static int gather_components(cc_dist *d, comp **all, int64_t *ncomp)
{
    int64_t nmine = 0, nc = 0;
    int rc, *cnts, *displ;
    comp *mine;

    for (int64_t i = 0; i < d->count; i++)
        nmine += d->f[i] == d->first + i;
    mine = g5_malloc((size_t)(nmine ? nmine : 1) * sizeof *mine, "components: own components");
    cnts = g5_malloc((size_t)d->p * 2 * sizeof *cnts, "components: gather counts");
    rc = (mine && cnts) ? G5_OK : G5_ERR_NOMEM;
    if (rc == G5_OK && nmine * 3 > INT_MAX)
        rc = g5_error(G5_ERR_ARG, "components: %lld components on one rank", (long long)nmine);
    rc = g5_agree(d->comm, rc);
    if (rc != G5_OK)
        goto out;
    displ = cnts + d->p;
    nmine = 0;
    for (int64_t i = 0; i < d->count; i++)
        if (d->f[i] == d->first + i)
            mine[nmine++] = (comp){d->accv[i], d->first + i, d->acce[i]};
    int c3 = (int)(3 * nmine);
    if (MPI_Allgather(&c3, 1, MPI_INT, cnts, 1, MPI_INT, d->comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allgather failed");
    for (int i = 0; rc == G5_OK && i < d->p; i++) {
        displ[i] = (int)(nc * 3);
        nc += cnts[i] / 3;
        if (nc * 3 > INT_MAX)
            rc = g5_error(G5_ERR_ARG, "components: %lld components are more than one gather holds", (long long)nc);
    }
    rc = g5_agree(d->comm, rc);
    if (rc == G5_OK) {
        *all = g5_malloc((size_t)(nc ? nc : 1) * sizeof **all, "components: component list");
        rc = g5_agree(d->comm, *all ? G5_OK : G5_ERR_NOMEM);
    }
    if (rc == G5_OK &&
        MPI_Allgatherv(mine, c3, MPI_INT64_T, *all, cnts, displ, MPI_INT64_T, d->comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allgatherv failed");
    rc = g5_agree(d->comm, rc);
    if (rc == G5_OK) {
        qsort(*all, (size_t)nc, sizeof **all, cmp_comp);
        *ncomp = nc;
    }
out:
    free(mine);
    free(cnts);
    return rc;
}

/* Step 3's end: the component arrays of r from the sorted list, and the
 * labels of this rank's block. Collective. */
static int label_block(cc_dist *d, cc_result *r)
{
    comp *all = NULL;
    int64_t ncomp = 0, *byroot = NULL;
    int rc = gather_components(d, &all, &ncomp);

    if (rc != G5_OK)
        return rc;
    r->comp_vertices = g5_malloc((size_t)(ncomp ? ncomp : 1) * sizeof(int64_t), "component sizes");
    r->comp_edges = g5_malloc((size_t)(ncomp ? ncomp : 1) * sizeof(int64_t), "component edges");
    byroot = g5_malloc((size_t)(ncomp ? ncomp : 1) * 2 * sizeof *byroot, "components: root ids");
    r->label = g5_malloc((size_t)(d->count ? d->count : 1) * sizeof *r->label, "components: labels");
    rc = g5_agree(d->comm, (r->comp_vertices && r->comp_edges && byroot && r->label) ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK)
        goto out;
    /* byroot: (root, id) pairs sorted by root, for the label lookups */
    for (int64_t c = 0; c < ncomp; c++) {
        r->comp_vertices[c] = all[c].vertices;
        r->comp_edges[c] = all[c].edges;
        byroot[2 * c] = all[c].root;
        byroot[2 * c + 1] = c;
    }
    qsort(byroot, (size_t)ncomp, 2 * sizeof *byroot, cmp_i64);
    int64_t last_root = -1, last_id = -1;
    for (int64_t i = 0; i < d->count; i++) {
        const int64_t x = d->f[i];
        if (x < 0) {
            r->label[i] = -1;
            continue;
        }
        if (x != last_root) {
            const int64_t *hit = bsearch(&x, byroot, (size_t)ncomp, 2 * sizeof *byroot, cmp_i64);
            last_root = x;
            last_id = hit[1];
        }
        r->label[i] = (int32_t)last_id;
    }
    r->ncomp = ncomp;
    r->label_first = d->first;
    r->label_count = d->count;
out:
    free(all);
    free(byroot);
    return rc;
}

int cc_dist_local_finish(MPI_Comm comm, int status, cc_dist_local **lp, int nthreads, int64_t batch, cc_result *r,
                         int64_t *self_loops, int64_t *nonloop)
{
    int rc = status;
    cc_dist d;
    int64_t *gid = NULL, *fl = NULL, *ecnt = NULL, nloc = 0;
    int32_t *lroot = NULL;
    double t = g5_now();

    cc_dist_init(&d, comm, r->nvertices, batch);
    if (rc == G5_OK && !*lp)
        rc = g5_error(G5_ERR_INTERNAL, "components: no local step to finish");
    /* step 1's end: the local sets and their edges; the forest, tally
     * and endpoint map go, gid stays */
    if (rc == G5_OK)
        rc = cc_dist_local_end(lp, nthreads, &nloc, &gid, &lroot, &ecnt, self_loops, nonloop);
    cc_dist_local_free(lp);
    if (rc == G5_OK) {
        fl = g5_malloc((size_t)(nloc ? nloc : 1) * sizeof *fl, "components: local parents");
        if (!fl)
            rc = G5_ERR_NOMEM;
    }
    if (rc == G5_OK)
        rc = cc_dist_alloc(&d);
    r->t_link += g5_now() - t;
    rc = g5_agree(comm, rc);
    if (rc == G5_OK) {
        t = g5_now();
        rc = hook_rounds(&d, nloc, gid, lroot, fl, &r->rounds);
        r->t_merge = g5_now() - t;
    }
    if (rc == G5_OK) {
        t = g5_now();
        rc = count_at_roots(&d, nloc, lroot, ecnt, fl);
        if (rc == G5_OK)
            rc = label_block(&d, r);
        r->t_label = g5_now() - t;
    }
    cc_dist_free(&d);
    free(gid);
    free(ecnt);
    free(fl);
    free(lroot);
#ifdef __GLIBC__
    /* freed blocks below the raised mmap threshold stay in the heap; hand
     * them back so the duplicate count's finish does not stack on them */
    malloc_trim(0);
#endif
    return rc;
}
