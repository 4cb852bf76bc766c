/* SPDX-License-Identifier: MIT */
/*
 * part_place.c - the distributed placement: component checks, the giant's
 * vertex order and its edge-balanced cut, whole small components on the
 * least-loaded ranks, the relabelling, and the quality metrics of this
 * placement and of the cyclic and block baselines (see part.h for the
 * model and the encoding of the result).
 *
 * Data layout on process p of P: its slab of edge tuples (caller's split),
 * and the vertex block B_p = g5_range_split(N, p, P) for which it holds
 * label, degree, BFS position and, at the end, new_label and owner. All
 * work on vertices is done by the block's owner; edge-side work sends
 * records to owners with px_exchange, in rounds of at most part_input.exchange_records records
 * so memory stays bounded by the slab, not by M.
 *
 * Steps (each local phase ends in g5_agree, so every rank takes the same
 * branch; so does the status of every collective MPI call, mpi_agreed,
 * since with MPI_ERRORS_RETURN a call can fail on one rank only; a rank
 * that failed never skips a collective the others enter, which
 * tests/mpi/mpi_part_faults.c checks by failing each allocation in turn):
 *  1. degrees: every non-self-loop tuple (u, v) adds 1 to deg[u] and deg[v]
 *     at their owners; endpoints are range-checked.
 *  2. checks against the components: labels in [-1, C), isolated <=> degree
 *     0, per-component vertex counts and degree sums equal the components'
 *     /component_vertices and 2 * /component_edges.
 *  3. the order of component 0 (if it is split), and
 *  4. its cut: part_giant.c.
 *  5. replicated on every process: pieces to ranks in switch-tree walk
 *     order, small components greedily (in id order = size order, so it is
 *     LPT scheduling, Graham 1969) to the least-loaded rank, rank offsets.
 *  6. labels, by exclusive scans (member order inside a small component and
 *     isolated order are original id order, which the block layout gives).
 *  7. metrics: the slab's endpoints ask their owners for (owner, label); an
 *     edge whose endpoints have different labels is a mismatch.
 */
#include "part.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "part_internal.h"

const char *part_order_name(int order)
{
    static const char *names[] = {"bfs", "id", "degree", "leaves"};
    return order >= 0 && order < 4 ? names[order] : "?";
}

const char *part_scheme_name(int scheme)
{
    static const char *names[PART_NSCHEMES] = {"placement", "cyclic", "block"};
    return scheme >= 0 && scheme < PART_NSCHEMES ? names[scheme] : "?";
}

double part_state_bytes(int64_t slots, int nranks)
{
    return (double)slots * (28.0 + 2.0 / 8.0) + (double)nranks * (double)slots / 8.0;
}

void part_result_free(part_result **r)
{
    if (!r || !*r)
        return;
    for (int s = 0; s < PART_NSCHEMES; s++) {
        free((*r)->metrics[s].rank_edges);
        free((*r)->metrics[s].rank_vertices);
    }
    free((*r)->rank_offsets);
    free((*r)->new_label);
    free((*r)->owner);
    free(*r);
    *r = NULL;
}

/* The status of a collective MPI call e, agreed: with MPI_ERRORS_RETURN
 * (cli/main.c) a call can fail on one rank only, and that rank must not
 * skip the next collective the others enter. */
int pl_mpi_agreed(MPI_Comm comm, int e, const char *what)
{
    return g5_agree(comm, e == MPI_SUCCESS ? G5_OK : g5_error(G5_ERR_MPI, "partition: %s failed", what));
}

/* Rounds needed to cover `items` in chunks of `chunk`, agreed (max). */
int pl_agreed_rounds(MPI_Comm comm, int64_t items, int64_t chunk, int64_t *rounds)
{
    int64_t mine = (items + chunk - 1) / chunk;
    return pl_mpi_agreed(comm, MPI_Allreduce(&mine, rounds, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
}

/* Records for the endpoints of the non-self-loop tuples [a, b) of the slab,
 * grouped by owner process: {x} (width 1) or {x, other endpoint} (width 2).
 * slot (optional, [2 (b - a)]): record index of each endpoint, -1 for loops.
 * Endpoints must be in range (checked by the degree pass). */
static int bucket_endpoints(const struct place_ctx *c, int64_t a, int64_t b, int width,
                            int64_t *counts, int64_t **buf, int64_t *slot)
{
    const int64_t *E = c->in->edges;
    int64_t *cur = NULL, n = 0;
    memset(counts, 0, (size_t)c->P * sizeof(int64_t));
    for (int64_t e = a; e < b; e++) {
        if (E[2 * e] == E[2 * e + 1])
            continue;
        counts[pl_own(c, E[2 * e])]++;
        counts[pl_own(c, E[2 * e + 1])]++;
        n += 2;
    }
    *buf = g5_malloc((size_t)n * width * sizeof(int64_t), "partition: endpoint records");
    cur = g5_malloc((size_t)c->P * sizeof(int64_t), "partition: cursors");
    if (!*buf || !cur) {
        free(*buf);
        *buf = NULL;
        free(cur);
        return G5_ERR_NOMEM;
    }
    for (int p = 0, s = 0; p < c->P; p++) {
        cur[p] = s;
        s += (int)counts[p];
    }
    for (int64_t e = a; e < b; e++) {
        for (int k = 0; k < 2; k++) {
            int64_t x = E[2 * e + k], y = E[2 * e + 1 - k], i;
            if (x == y) {
                if (slot)
                    slot[2 * (e - a) + k] = -1;
                continue;
            }
            i = cur[pl_own(c, x)]++;
            (*buf)[width * i] = x;
            if (width == 2)
                (*buf)[width * i + 1] = y;
            if (slot)
                slot[2 * (e - a) + k] = i;
        }
    }
    free(cur);
    return G5_OK;
}

/* Routes the endpoints of this slab's non-self-loop tuples to their
 * owners, in agreed rounds of half a c->chunk tuples: a record {x}
 * (width 1) or {x, other endpoint} (width 2) per endpoint, and calls
 * visit(arg, records, n) on each round's received records (all with x in
 * this block). Collective; agreed status. */
int pl_route_endpoints(const struct place_ctx *c, int width, pl_route_visit visit, void *arg)
{
    int64_t m = c->in->nedges_local, chunk = (c->chunk + 1) / 2, rounds = 0;
    int64_t *counts = NULL, *buf = NULL, *rbuf = NULL, nr = 0;
    int rc;

    counts = g5_malloc((size_t)c->P * sizeof(int64_t), "partition: counts");
    rc = g5_agree(c->comm, counts ? G5_OK : G5_ERR_NOMEM);
    if (rc == G5_OK)
        rc = pl_agreed_rounds(c->comm, m, chunk, &rounds);
    for (int64_t r = 0; rc == G5_OK && r < rounds; r++) {
        int64_t a = r * chunk < m ? r * chunk : m, b = a + chunk < m ? a + chunk : m;
        rc = bucket_endpoints(c, a, b, width, counts, &buf, NULL);
        rc = px_exchange(c->comm, rc, width, counts, buf, &rbuf, &nr, NULL);
        free(buf);
        buf = NULL;
        if (rc == G5_OK)
            visit(arg, rbuf, nr);
        free(rbuf);
        rbuf = NULL;
    }
    free(counts);
    return rc;
}

struct ctx_deg {
    const struct place_ctx *c;
    int64_t *deg;
    int64_t *nb;
};

static void count_degree(void *arg, const int64_t *rec, int64_t n)
{
    struct ctx_deg *a = arg;
    for (int64_t i = 0; i < n; i++)
        a->deg[rec[i] - a->c->vf]++;
}

/* With the other end of each record: a vertex's last neighbour seen, which
 * for a degree-1 vertex is its one neighbour (the leaves order). */
static void count_degree_nb(void *arg, const int64_t *rec, int64_t n)
{
    struct ctx_deg *a = arg;
    for (int64_t i = 0; i < n; i++) {
        int64_t li = rec[2 * i] - a->c->vf;
        a->deg[li]++;
        a->nb[li] = rec[2 * i + 1];
    }
}

/* Step 1: degrees of this block's vertices; endpoint range check. With nb
 * (not NULL), also each vertex's last neighbour seen, in the same pass. */
static int degree_pass(const struct place_ctx *c, int64_t *deg, int64_t *nb)
{
    const int64_t *E = c->in->edges;
    int64_t m = c->in->nedges_local;
    int rc = G5_OK, bad = G5_OK;
    struct ctx_deg arg = {c, deg, nb};

    for (int64_t e = 0; e < m && bad == G5_OK; e++)
        for (int k = 0; k < 2; k++)
            if (E[2 * e + k] < 0 || E[2 * e + k] >= c->N) {
                bad = g5_error(G5_ERR_MISMATCH,
                               "an edge endpoint %lld is outside [0, %lld), the components' vertex count",
                               (long long)E[2 * e + k], (long long)c->N);
                break;
            }
    rc = g5_agree(c->comm, bad);
    if (rc != G5_OK)
        return rc;
    memset(deg, 0, (size_t)c->vc * sizeof(int64_t));
    if (nb)
        return pl_route_endpoints(c, 2, count_degree_nb, &arg);
    return pl_route_endpoints(c, 1, count_degree, &arg);
}

/* Step 2: labels against degrees and the component tables. */
static int check_components(const struct place_ctx *c, const int64_t *deg)
{
    const int64_t *L = c->in->label;
    int64_t C = c->C, *sums = NULL, *all = NULL;
    int rc = G5_OK;

    sums = g5_calloc((size_t)(2 * C + 1), sizeof(int64_t), "partition: component sums");
    all = g5_calloc((size_t)(2 * C + 1), sizeof(int64_t), "partition: component sums");
    if (!sums || !all)
        rc = G5_ERR_NOMEM;
    for (int64_t i = 0; rc == G5_OK && i < c->vc; i++) {
        int64_t l = L[i], v = c->vf + i;
        if (l < -1 || l >= C)
            rc = g5_error(G5_ERR_MISMATCH, "vertex %lld has component id %lld, outside [-1, %lld)",
                          (long long)v, (long long)l, (long long)C);
        else if (l == -1 && deg[i] > 0)
            rc = g5_error(G5_ERR_MISMATCH, "vertex %lld has %lld edges but is labelled isolated",
                          (long long)v, (long long)deg[i]);
        else if (l >= 0 && deg[i] == 0)
            rc = g5_error(G5_ERR_MISMATCH, "vertex %lld has no edge but is in component %lld",
                          (long long)v, (long long)l);
        else if (l >= 0) {
            sums[l]++;
            sums[C + l] += deg[i];
        }
    }
    rc = g5_agree(c->comm, rc);
    if (rc == G5_OK)
        rc = pl_mpi_agreed(c->comm, MPI_Allreduce(sums, all, (int)(2 * C), MPI_INT64_T, MPI_SUM, c->comm),
                        "MPI_Allreduce");
    for (int64_t l = 0; rc == G5_OK && l < C; l++) {
        if (all[l] != c->in->comp_vertices[l])
            rc = g5_error(G5_ERR_MISMATCH, "component %lld has %lld vertices in the labels but %lld in the component table",
                          (long long)l, (long long)all[l], (long long)c->in->comp_vertices[l]);
        else if (all[C + l] != 2 * c->in->comp_edges[l])
            rc = g5_error(G5_ERR_MISMATCH, "component %lld has %lld edge tuples in the edges but %lld in the component table",
                          (long long)l, (long long)(all[C + l] / 2), (long long)c->in->comp_edges[l]);
    }
    free(sums);
    free(all);
    return rc;
}


/* Binary min-heap of ranks keyed by (load, vertices, rank). */
struct heap {
    int *h, n;
    const int64_t *load, *verts;
};

static int heap_less(const struct heap *H, int a, int b)
{
    if (H->load[a] != H->load[b])
        return H->load[a] < H->load[b];
    if (H->verts[a] != H->verts[b])
        return H->verts[a] < H->verts[b];
    return a < b;
}

static void heap_down(struct heap *H, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i, t;
        if (l < H->n && heap_less(H, H->h[l], H->h[m]))
            m = l;
        if (r < H->n && heap_less(H, H->h[r], H->h[m]))
            m = r;
        if (m == i)
            return;
        t = H->h[i], H->h[i] = H->h[m], H->h[m] = t;
        i = m;
    }
}

static const int *g_rank_node; /* qsort context for walk order; set under no threads */
static int cmp_walk(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (g_rank_node[x] != g_rank_node[y])
        return g_rank_node[x] < g_rank_node[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* Step 7: metrics of the three schemes from this slab's tuples. */
static int measure(const struct place_ctx *c, part_result *res)
{
    const part_input *in = c->in;
    const int64_t *E = in->edges;
    int R = c->R;
    int64_t m = in->nedges_local, chunk = (c->chunk + 1) / 2, rounds = 0;
    int64_t *counts = NULL, *rcounts = NULL, *buf = NULL, *rbuf = NULL, *reply = NULL, *ans = NULL;
    int64_t *slot = NULL, *acc = NULL, *gacc = NULL, nr = 0, na = 0, nacc = 3 * (3 + (int64_t)R);
    int rc = G5_OK, bad = G5_OK;
    int64_t rmask = (R & (R - 1)) == 0 ? R - 1 : -1;
    px_blockdiv bdiv;

    px_blockdiv_init(&bdiv, c->N, R);
    counts = g5_malloc((size_t)c->P * sizeof(int64_t), "partition: counts");
    rcounts = g5_malloc((size_t)c->P * sizeof(int64_t), "partition: counts");
    slot = g5_malloc((size_t)2 * chunk * sizeof(int64_t), "partition: slots");
    acc = g5_calloc((size_t)nacc, sizeof(int64_t), "partition: metric sums");
    gacc = g5_calloc((size_t)nacc, sizeof(int64_t), "partition: metric sums");
    rc = counts && rcounts && slot && acc && gacc ? G5_OK : G5_ERR_NOMEM;
    G5_TRY(g5_agree(c->comm, rc));
    G5_TRY(pl_agreed_rounds(c->comm, m, chunk, &rounds));
    for (int64_t r = 0; r < rounds; r++) {
        int64_t a = r * chunk < m ? r * chunk : m, b = a + chunk < m ? a + chunk : m;
        rc = bucket_endpoints(c, a, b, 1, counts, &buf, slot);
        rc = px_exchange(c->comm, rc, 1, counts, buf, &rbuf, &nr, rcounts);
        free(buf);
        buf = NULL;
        if (rc == G5_OK) {
            reply = g5_malloc((size_t)(nr + 1) * 2 * sizeof(int64_t), "partition: replies");
            rc = reply ? G5_OK : G5_ERR_NOMEM;
        }
        for (int64_t i = 0; rc == G5_OK && i < nr; i++) {
            int64_t li = rbuf[i] - c->vf;
            reply[2 * i] = res->owner[li];
            reply[2 * i + 1] = in->label[li];
        }
        free(rbuf);
        rbuf = NULL;
        G5_TRY(g5_agree(c->comm, rc));
        rc = px_exchange(c->comm, rc, 2, rcounts, reply, &ans, &na, NULL);
        free(reply);
        reply = NULL;
        G5_TRY(g5_agree(c->comm, rc));
        for (int64_t e = a; e < b; e++) {
            int64_t u = E[2 * e], v = E[2 * e + 1], ou, ov;
            const int64_t *au, *av;
            if (u == v)
                continue;
            au = &ans[2 * slot[2 * (e - a)]];
            av = &ans[2 * slot[2 * (e - a) + 1]];
            if (au[1] != av[1] && bad == G5_OK)
                bad = g5_error(G5_ERR_MISMATCH, "edge (%lld, %lld) joins components %lld and %lld",
                               (long long)u, (long long)v, (long long)au[1], (long long)av[1]);
            for (int s = 0; s < PART_NSCHEMES; s++) {
                int64_t *A = acc + s * (3 + R);
                if (s == PART_PLACEMENT)
                    ou = au[0], ov = av[0];
                else if (s == PART_CYCLIC)
                    ou = rmask >= 0 ? (u & rmask) : u % R, ov = rmask >= 0 ? (v & rmask) : v % R;
                else
                    ou = px_blockdiv_owner(&bdiv, u), ov = px_blockdiv_owner(&bdiv, v);
                A[0]++;
                if (ou != ov) {
                    A[1]++;
                    A[2] += in->node_hops[(int64_t)in->rank_node[ou] * in->nnodes + in->rank_node[ov]];
                }
                A[3 + ou]++;
                A[3 + ov]++;
            }
        }
        free(ans);
        ans = NULL;
    }
    G5_TRY(g5_agree(c->comm, bad));
    G5_TRY(pl_mpi_agreed(c->comm, MPI_Allreduce(acc, gacc, (int)nacc, MPI_INT64_T, MPI_SUM, c->comm), "MPI_Allreduce"));
    for (int s = 0; s < PART_NSCHEMES; s++) {
        part_metrics *M = &res->metrics[s];
        const int64_t *A = gacc + s * (3 + R);
        int64_t emax = 0, esum = 0, vmax = 0, vsum = 0;
        M->total_edges = A[0];
        M->cut_edges = A[1];
        M->hop_cut = A[2];
        for (int k = 0; k < R; k++) {
            int64_t f, n;
            M->rank_edges[k] = A[3 + k];
            if (s == PART_PLACEMENT)
                n = res->rank_offsets[k + 1] - res->rank_offsets[k];
            else
                g5_range_split(c->N, k, R, &f, &n);
            M->rank_vertices[k] = n;
            emax = M->rank_edges[k] > emax ? M->rank_edges[k] : emax;
            vmax = n > vmax ? n : vmax;
            esum += M->rank_edges[k];
            vsum += n;
        }
        M->edge_imbalance = esum > 0 ? (double)emax * R / (double)esum : 1.0;
        M->vertex_imbalance = vsum > 0 ? (double)vmax * R / (double)vsum : 1.0;
        M->bytes_per_vertex = c->N > 0 ? part_state_bytes(s == PART_PLACEMENT ? res->n_active : c->N, R) / (double)c->N : 0.0;
    }
out:
    free(counts);
    free(rcounts);
    free(buf);
    free(rbuf);
    free(reply);
    free(ans);
    free(slot);
    free(acc);
    free(gacc);
    return rc;
}

static int check_input(const struct place_ctx *c)
{
    const part_input *in = c->in;
    if (in->nvertices < 1)
        return g5_error(G5_ERR_ARG, "partition: no vertices");
    if (in->nranks < 1)
        return g5_error(G5_ERR_ARG, "partition: the number of ranks must be at least 1 (got %d)", in->nranks);
    if (in->nranks > in->nvertices)
        return g5_error(G5_ERR_ARG, "partition: %d ranks for %lld vertices", in->nranks, (long long)in->nvertices);
    if (in->ncomponents < 0 || in->ncomponents > in->nvertices / 2 + 1)
        return g5_error(G5_ERR_MISMATCH, "partition: %lld components for %lld vertices",
                        (long long)in->ncomponents, (long long)in->nvertices);
    if (in->tolerance < 0 || in->tolerance != in->tolerance)
        return g5_error(G5_ERR_ARG, "partition: the tolerance must be >= 0");
    if (in->order < PART_ORDER_BFS || in->order > PART_ORDER_LEAVES)
        return g5_error(G5_ERR_ARG, "partition: unknown giant order %d", in->order);
    if (in->nnodes < 1)
        return g5_error(G5_ERR_TOPO, "partition: no nodes");
    for (int r = 0; r < in->nranks; r++)
        if (in->rank_node[r] < 0 || in->rank_node[r] >= in->nnodes)
            return g5_error(G5_ERR_TOPO, "partition: rank %d is on node %d, outside [0, %d)",
                            r, in->rank_node[r], in->nnodes);
    for (int64_t i = 0; i < (int64_t)in->nnodes * in->nnodes; i++)
        if (in->node_hops[i] < 0 || (i % (in->nnodes + 1) == 0 && in->node_hops[i] != 0))
            return g5_error(G5_ERR_TOPO, "partition: bad hop matrix entry %lld", (long long)i);
    {
        int64_t sum = 0;
        for (int64_t k = 0; k < in->ncomponents; k++) {
            if (in->comp_vertices[k] < 2 || in->comp_edges[k] < in->comp_vertices[k] - 1 ||
                (k > 0 && in->comp_vertices[k] > in->comp_vertices[k - 1]))
                return g5_error(G5_ERR_MISMATCH, "partition: component %lld has %lld vertices and %lld edges, which is not a valid size-ordered component table",
                                (long long)k, (long long)in->comp_vertices[k], (long long)in->comp_edges[k]);
            sum += in->comp_vertices[k];
        }
        if (sum > in->nvertices)
            return g5_error(G5_ERR_MISMATCH, "partition: the components hold %lld vertices, more than %lld",
                            (long long)sum, (long long)in->nvertices);
    }
    return G5_OK;
}

/* Steps 3 and 4 for a split giant: its order, then the cut. A plain
 * contiguous cut keeps the order whole; only if a heavy vertex on a
 * boundary breaks the tolerance are the hubs taken out and placed by LPT
 * (decided on replicated loads: same on all). Collective. */
static int split_giant(const struct place_ctx *c, const int64_t *deg, const int64_t *nb, int64_t *pos,
                       int32_t *piece, int64_t *idx, int64_t *pcount, int64_t *pload, part_result *res)
{
    const part_input *in = c->in;
    int R = c->R, rc = G5_OK;

    g5_progress("partition: %s order of the giant component (%lld vertices)",
                part_order_name(in->order), (long long)res->n_giant);
    if (in->order == PART_ORDER_BFS)
        G5_TRY(pl_giant_bfs(c, deg, pos, &res->giant_root, &res->bfs_levels));
    else
        G5_TRY(pl_giant_plain_order(c, deg, nb, pos));
    g5_progress("partition: cutting the giant component (%d BFS levels)", res->bfs_levels);
    G5_TRY(pl_giant_cut(c, deg, pos, INFINITY, piece, idx, pcount, pload, &res->giant_hubs));
    {
        int64_t mx = 0;
        double W = 2.0 * (double)in->comp_edges[0];
        for (int k = 0; k < R; k++)
            mx = pload[k] > mx ? pload[k] : mx;
        if ((double)mx * R > (1.0 + in->tolerance) * W) {
            double thresh = (in->tolerance > 0.01 ? in->tolerance : 0.01) * W / (2.0 * R);
            g5_progress("partition: a heavy vertex breaks the balance (%.4f): hubs above degree %.0f go by LPT",
                        (double)mx * R / W, thresh);
            G5_TRY(pl_giant_cut(c, deg, pos, thresh, piece, idx, pcount, pload, &res->giant_hubs));
        }
    }
out:
    return rc;
}

/* Step 5, replicated: pieces along the switch-tree walk (walk[k]: the rank
 * of piece k), then small components on the least-loaded ranks (crank,
 * cbase: rank and first slot of each), and the rank offsets. */
static void place_components(const struct place_ctx *c, part_result *res, const int64_t *pcount,
                             const int64_t *pload, int *walk, int *heap, int64_t *load, int64_t *verts,
                             int64_t *gcnt, int64_t *sfill, int *crank, int64_t *cbase)
{
    const part_input *in = c->in;
    int R = c->R;
    struct heap H = {heap, R, load, verts};

    for (int r = 0; r < R; r++)
        walk[r] = r;
    g_rank_node = in->rank_node;
    qsort(walk, (size_t)R, sizeof(int), cmp_walk);
    if (res->giant_split)
        for (int k = 0; k < R; k++) {
            gcnt[walk[k]] = pcount[k];
            load[walk[k]] = pload[k];
            verts[walk[k]] = pcount[k];
        }
    for (int r = 0; r < R; r++)
        heap[r] = r;
    for (int i = R / 2 - 1; i >= 0; i--)
        heap_down(&H, i);
    for (int64_t k = res->giant_split ? 1 : 0; k < c->C; k++) {
        int r = heap[0];
        crank[k] = r;
        cbase[k] = sfill[r];
        sfill[r] += in->comp_vertices[k];
        load[r] += 2 * in->comp_edges[k];
        verts[r] += in->comp_vertices[k];
        heap_down(&H, 0);
    }
    for (int r = 0; r < R; r++)
        res->rank_offsets[r + 1] = res->rank_offsets[r] + gcnt[r] + sfill[r];
}

/* Step 6: labels. Member rank inside a small component and isolated
 * order follow original ids: count this block, scan over processes.
 * mcount, mbefore: [C + 1], zeroed. Collective. */
static int assign_labels(const struct place_ctx *c, part_result *res, const int *walk, const int32_t *piece,
                         const int64_t *idx, const int64_t *gcnt, const int *crank, const int64_t *cbase,
                         int64_t *mcount, int64_t *mbefore)
{
    const part_input *in = c->in;
    int64_t C = c->C, iso = 0, iso_before = 0;
    int rc;

    for (int64_t i = 0; i < c->vc; i++) {
        if (in->label[i] < 0)
            iso++;
        else
            mcount[in->label[i]]++;
    }
    mcount[C] = iso;
    rc = pl_mpi_agreed(c->comm, MPI_Exscan(mcount, mbefore, (int)(C + 1), MPI_INT64_T, MPI_SUM, c->comm), "MPI_Exscan");
    if (rc != G5_OK)
        return rc;
    if (c->me == 0)
        memset(mbefore, 0, (size_t)(C + 1) * sizeof(int64_t));
    iso_before = mbefore[C];
    memset(mcount, 0, (size_t)(C + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < c->vc; i++) {
        int64_t l = in->label[i];
        if (l < 0) {
            res->new_label[i] = res->n_active + iso_before++;
            res->owner[i] = -1;
        } else if (l == 0 && res->giant_split) {
            int r = walk[piece[i]];
            res->new_label[i] = res->rank_offsets[r] + idx[i];
            res->owner[i] = r;
        } else {
            int r = crank[l];
            res->new_label[i] = res->rank_offsets[r] + gcnt[r] + cbase[l] + mbefore[l] + mcount[l]++;
            res->owner[i] = r;
        }
    }
    return G5_OK;
}

/* Whether component 0 is cut over the ranks: it is, when kept whole its
 * edge tuples would exceed the tolerance over a rank's share. Replicated. */
static int giant_is_split(const part_input *in)
{
    double total = 0;
    for (int64_t k = 0; k < in->ncomponents; k++)
        total += 2.0 * (double)in->comp_edges[k];
    return in->ncomponents > 0 && in->nranks > 1 &&
           2.0 * (double)in->comp_edges[0] * in->nranks > (1.0 + in->tolerance) * total;
}

int part_place(MPI_Comm comm, const part_input *in, part_result **out)
{
    struct place_ctx c;
    part_result *res = NULL;
    int64_t *deg = NULL, *pos = NULL, *idx = NULL, *pcount = NULL, *pload = NULL;
    int64_t *load = NULL, *verts = NULL, *gcnt = NULL, *sfill = NULL, *cbase = NULL;
    int64_t *mcount = NULL, *mbefore = NULL, *nb = NULL;
    int32_t *piece = NULL;
    int *walk = NULL, *crank = NULL, *heap = NULL;
    int rc = G5_OK, R = in->nranks;
    int64_t C = in->ncomponents;

    *out = NULL;
    c.comm = comm;
    c.in = in;
    c.R = R;
    c.N = in->nvertices;
    c.C = C;
    c.chunk = in->exchange_records > 0 ? in->exchange_records : PX_DEFAULT_CHUNK;
    MPI_Comm_size(comm, &c.P);
    MPI_Comm_rank(comm, &c.me);
    rc = check_input(&c);
    G5_TRY(g5_agree(comm, rc));
    g5_range_split(c.N, c.me, c.P, &c.vf, &c.vc);
    px_blockdiv_init(&c.vdiv, c.N, c.P);

    res = g5_calloc(1, sizeof *res, "partition: result");
    if (res) {
        res->rank_offsets = g5_calloc((size_t)R + 1, sizeof(int64_t), "partition: rank offsets");
        res->new_label = g5_malloc((size_t)(c.vc + 1) * sizeof(int64_t), "partition: new labels");
        res->owner = g5_malloc((size_t)(c.vc + 1) * sizeof(int32_t), "partition: owners");
        for (int s = 0; s < PART_NSCHEMES; s++) {
            res->metrics[s].rank_edges = g5_calloc((size_t)R, sizeof(int64_t), "partition: metrics");
            res->metrics[s].rank_vertices = g5_calloc((size_t)R, sizeof(int64_t), "partition: metrics");
        }
    }
    deg = g5_malloc((size_t)(c.vc + 1) * sizeof(int64_t), "partition: degrees");
    pos = g5_malloc((size_t)(c.vc + 1) * sizeof(int64_t), "partition: positions");
    idx = g5_malloc((size_t)(c.vc + 1) * sizeof(int64_t), "partition: piece indices");
    piece = g5_malloc((size_t)(c.vc + 1) * sizeof(int32_t), "partition: pieces");
    pcount = g5_calloc((size_t)2 * R, sizeof(int64_t), "partition: pieces");
    pload = g5_calloc((size_t)R, sizeof(int64_t), "partition: pieces");
    load = g5_calloc((size_t)R, sizeof(int64_t), "partition: loads");
    verts = g5_calloc((size_t)R, sizeof(int64_t), "partition: loads");
    gcnt = g5_calloc((size_t)R, sizeof(int64_t), "partition: loads");
    sfill = g5_calloc((size_t)R, sizeof(int64_t), "partition: loads");
    walk = g5_malloc((size_t)R * sizeof(int), "partition: walk");
    heap = g5_malloc((size_t)R * sizeof(int), "partition: heap");
    crank = g5_malloc((size_t)(C + 1) * sizeof(int), "partition: component ranks");
    cbase = g5_malloc((size_t)(C + 1) * sizeof(int64_t), "partition: component bases");
    mcount = g5_calloc((size_t)(C + 1), sizeof(int64_t), "partition: member counts");
    mbefore = g5_calloc((size_t)(C + 1), sizeof(int64_t), "partition: member counts");
    rc = res && res->rank_offsets && res->new_label && res->owner && deg && pos && idx && piece && pcount &&
         pload && load && verts && gcnt && sfill && walk && heap && crank && cbase &&
         mcount && mbefore ? G5_OK : G5_ERR_NOMEM;
    for (int s = 0; rc == G5_OK && s < PART_NSCHEMES; s++)
        if (!res->metrics[s].rank_edges || !res->metrics[s].rank_vertices)
            rc = G5_ERR_NOMEM;
    G5_TRY(g5_agree(comm, rc));
    res->nranks = R;
    res->nvertices = c.N;
    res->giant_root = -1;
    for (int64_t k = 0; k < C; k++)
        res->n_active += in->comp_vertices[k];
    res->n_giant = C > 0 ? in->comp_vertices[0] : 0;

    res->giant_split = giant_is_split(in);
    /* The leaves order needs each leaf's neighbour: found by the degree pass */
    if (res->giant_split && in->order == PART_ORDER_LEAVES) {
        nb = g5_malloc((size_t)(c.vc + 1) * sizeof(int64_t), "partition: leaf neighbours");
        G5_TRY(g5_agree(comm, nb ? G5_OK : G5_ERR_NOMEM));
    }
    g5_progress("partition: degrees");
    G5_TRY(degree_pass(&c, deg, nb));
    G5_TRY(check_components(&c, deg));
    if (res->giant_split)
        G5_TRY(split_giant(&c, deg, nb, pos, piece, idx, pcount, pload, res));
    free(nb);
    nb = NULL;

    place_components(&c, res, pcount, pload, walk, heap, load, verts, gcnt, sfill, crank, cbase);

    G5_TRY(assign_labels(&c, res, walk, piece, idx, gcnt, crank, cbase, mcount, mbefore));
    res->nranks = R;
    res->block_first = c.vf;
    res->block_count = c.vc;

    if (!in->skip_metrics) {
        g5_progress("partition: measuring placement, cyclic and block");
        G5_TRY(measure(&c, res));
    }
out:
    if (rc == G5_OK)
        *out = res;
    else
        part_result_free(&res);
    free(deg);
    free(pos);
    free(idx);
    free(piece);
    free(pcount);
    free(pload);
    free(load);
    free(verts);
    free(gcnt);
    free(sfill);
    free(walk);
    free(heap);
    free(crank);
    free(cbase);
    free(mcount);
    free(mbefore);
    free(nb);
    return rc;
}
