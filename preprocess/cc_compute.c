/* SPDX-License-Identifier: MIT */
/*
 * cc_compute.c - connected components over ranks: each rank reduces its
 * slab of edges to a root/son forest (cc_forest.c, OpenMP inside), the
 * forests are merged - along a binary tree of ranks here, or by the
 * distributed union-find of cc_dist.c - and labelled canonically, and the
 * statistics are reduced.
 *
 * Tree of merges: in round s = 1, 2, 4, ... rank r with r % 2s == s sends
 * its root vector (4 bytes per vertex) to rank r - s, which unions it into
 * its own forest (cc_forest_merge_roots: one link per seen vertex, O(n)).
 * After ceil(log2 P) rounds rank 0 holds the partition of the whole edge
 * list. A forest is a partition, and the union of partitions does not
 * depend on the order it is taken in, so the labelling (canonical: ids by
 * size, ties by smallest vertex) is the same for any P and thread count,
 * and the same as the distributed path's.
 *
 * Memory per rank on the tree path: O(n + m/P): the forest (16 B/vertex),
 * one received root vector (4 B/vertex), the labels (4 B/vertex), and
 * during the duplicate count 8 B per slab edge on one rank, 16 on several.
 * The distributed path (cc_dist.c) holds O(n/P + m/P + components).
 *
 * Choice (CC_MERGE_AUTO): the distributed path from CC_AUTO_RANKS ranks
 * (the tree's ceil(log2 P) rounds each move 4 n bytes, and every rank holds
 * 24 n bytes), or when the distributed path's arrays, about 48 B per slab
 * endpoint and at most 2 endpoints per tuple, fall below the tree's 24 n:
 * 4 x (largest slab) <= n (measured: docs/components.md; Graph500's 16
 * tuples per vertex reach it at 64 ranks, edge factor 1 at 4).
 * At 2 and 4 ranks on one node the tree path is faster for the same peak
 * memory (docs/components.md, "Memory per rank").
 */
#include "cc.h"
#include "common.h"

#include <stdlib.h>
#include <string.h>

#define CC_BCAST_CHUNK ((int64_t)1 << 27)   /* elements per broadcast */

static int bcast_chunks(void *buf, int64_t n, MPI_Datatype type, size_t size, int root, MPI_Comm comm)
{
    for (int64_t off = 0; off < n; off += CC_BCAST_CHUNK) {
        int64_t len = n - off < CC_BCAST_CHUNK ? n - off : CC_BCAST_CHUNK;
        if (MPI_Bcast((char *)buf + (size_t)off * size, (int)len, type, root, comm) != MPI_SUCCESS)
            return g5_error(G5_ERR_MPI, "components: MPI_Bcast of labels failed");
    }
    return G5_OK;
}

void cc_result_free(cc_result **r)
{
    if (!r || !*r)
        return;
    free((*r)->label);
    free((*r)->comp_vertices);
    free((*r)->comp_edges);
    free(*r);
    *r = NULL;
}

/* The tree of merges to rank 0. Collective. */
static int merge_tree(MPI_Comm comm, cc_forest *f)
{
    int rank, p, rc = G5_OK;
    const int64_t n = cc_forest_nvertices(f);
    int32_t *buf = NULL;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (p == 1)
        return G5_OK;
    if (rank % 2 == 0 && rank + 1 < p) {
        buf = g5_malloc((size_t)n * sizeof *buf, "components: merge buffer");
        if (!buf)
            rc = G5_ERR_NOMEM;
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    for (int s = 1; s < p; s *= 2) {
        if (rank % (2 * s) == s) {
            if (MPI_Send(cc_forest_roots(f), (int)n, MPI_INT32_T, rank - s, s, comm) != MPI_SUCCESS)
                rc = g5_error(G5_ERR_MPI, "components: sending the forest of rank %d failed", rank);
            break;
        }
        if (rank % (2 * s) == 0 && rank + s < p) {
            if (MPI_Recv(buf, (int)n, MPI_INT32_T, rank + s, s, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                rc = g5_error(G5_ERR_MPI, "components: receiving the forest of rank %d failed", rank + s);
                break;
            }
            cc_forest_merge_roots(f, buf);
        }
    }
    rc = g5_agree(comm, rc);
out:
    free(buf);
    return rc;
}

/* The tree path up to the edge counts: forest over all n vertices, tree of
 * merges, labels on rank 0, broadcast, edges per component. Collective. */
static int tree_components(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                           int64_t first_index, int nthreads, cc_result *r, int64_t *self_loops,
                           int64_t *nonloop)
{
    int rank, rc = G5_OK;
    cc_forest *f = NULL;
    int64_t ncomp = 0;
    double t;

    MPI_Comm_rank(comm, &rank);
    rc = cc_forest_create(n, &f);
    if (rc == G5_OK) {
        r->label = g5_malloc((size_t)n * sizeof *r->label, "components: labels");
        if (!r->label)
            rc = G5_ERR_NOMEM;
    }
    r->label_first = 0;
    r->label_count = n;
    t = g5_now();
    if (rc == G5_OK)
        rc = cc_forest_link_edges(f, edges, count, first_index, nthreads);
    r->t_link = g5_now() - t;
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;

    t = g5_now();
    G5_TRY(merge_tree(comm, f));
    r->t_merge = g5_now() - t;

    t = g5_now();
    if (rank == 0)
        rc = cc_forest_label(f, r->label, &ncomp, &r->comp_vertices);
    cc_forest_free(&f);
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Bcast(&ncomp, 1, MPI_INT64_T, 0, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Bcast failed");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    r->ncomp = ncomp;
    if (rank != 0) {
        r->comp_vertices = g5_malloc((size_t)(ncomp ? ncomp : 1) * sizeof(int64_t), "component sizes");
        if (!r->comp_vertices)
            rc = G5_ERR_NOMEM;
    }
    r->comp_edges = g5_calloc((size_t)(ncomp ? ncomp : 1), sizeof(int64_t), "component edges");
    if (!r->comp_edges)
        rc = G5_ERR_NOMEM;
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    rc = bcast_chunks(r->label, n, MPI_INT32_T, sizeof(int32_t), 0, comm);
    if (rc == G5_OK)
        rc = bcast_chunks(r->comp_vertices, ncomp, MPI_INT64_T, sizeof(int64_t), 0, comm);
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    r->t_label = g5_now() - t;

    t = g5_now();
    cc_count_edges(r->label, ncomp, edges, count, nthreads, r->comp_edges, self_loops, nonloop);
    /* ncomp <= n / 2 < 2^30 fits an int count. */
    if (ncomp > 0 &&
        MPI_Allreduce(MPI_IN_PLACE, r->comp_edges, (int)ncomp, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce of edge counts failed");
    rc = g5_agree(comm, rc);
    r->t_count = g5_now() - t;
out:
    cc_forest_free(&f);
    return rc;
}

const char *cc_merge_name(int merge)
{
    return merge == CC_MERGE_TREE ? "tree" : merge == CC_MERGE_DISTRIBUTED ? "distributed" : "auto";
}

int cc_compute(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
               int64_t first_index, int nthreads, cc_result **out)
{
    /* the tree path only reads the slab */
    return cc_compute_merge(comm, n, (int64_t *)edges, count, first_index, nthreads, CC_MERGE_TREE, out);
}

int cc_compute_merge(MPI_Comm comm, int64_t n, int64_t *edges, int64_t count,
                     int64_t first_index, int nthreads, int merge, cc_result **out)
{
    int p, rc = G5_OK;
    cc_result *r = NULL;
    int64_t counts[2] = {0, 0}, distinct = 0, maxcount = 0;
    double t;

    *out = NULL;
    MPI_Comm_size(comm, &p);
    r = g5_calloc(1, sizeof *r, "components result");
    if (!r)
        rc = G5_ERR_NOMEM;
    if (rc == G5_OK && (n < 1 || n > CC_MAX_VERTICES))
        rc = g5_error(G5_ERR_ARG, "components: %lld vertices is outside [1, %lld] (SCALE <= 30)",
                      (long long)n, (long long)CC_MAX_VERTICES);
    if (rc == G5_OK && merge != CC_MERGE_AUTO && merge != CC_MERGE_TREE && merge != CC_MERGE_DISTRIBUTED)
        rc = g5_error(G5_ERR_ARG, "components: unknown merge path %d", merge);
    if (MPI_Allreduce(&count, &maxcount, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS && rc == G5_OK)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    r->nvertices = n;
    r->meta.nvertices = n;
    /* auto: the tree's vertex arrays (forest 16 B, labels 4 B, merge buffer
     * 4 B per vertex) against the distributed path's endpoint arrays (about
     * 48 B for each of up to 2 endpoints per tuple of the largest slab);
     * all ranks see the same n, p and maxcount, so they take one path. */
    if (merge == CC_MERGE_AUTO)
        merge = (p >= CC_AUTO_RANKS || 4 * maxcount <= n) && p > 1 ? CC_MERGE_DISTRIBUTED
                                                                       : CC_MERGE_TREE;
    r->merge = merge;
    if (merge == CC_MERGE_TREE)
        G5_TRY(tree_components(comm, n, edges, count, first_index, nthreads, r, &counts[0], &counts[1]));
    else
        G5_TRY(cc_dist_components(comm, n, edges, count, first_index, nthreads, r, &counts[0], &counts[1]));

    r->rss_labelled = g5_peak_rss();
    t = g5_now();
    if (MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &r->rss_labelled, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce of edge counts failed");
    G5_TRY(g5_agree(comm, rc));
    r->t_count += g5_now() - t;

    t = g5_now();
    G5_TRY(cc_count_distinct(comm, n, edges, count, nthreads, &distinct));
    r->t_distinct = g5_now() - t;
    cc_stats_fill(&r->meta, r->ncomp, r->comp_vertices, r->comp_edges, counts[0], counts[1], distinct);
out:
    if (rc != G5_OK)
        cc_result_free(&r);
    *out = r;
    return rc;
}
