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
 * Memory per rank on the tree path: O(n + m/P): the forest (12 B/vertex),
 * one received root vector (4 B/vertex), the labels (4 B/vertex), and the
 * duplicate count's regions (one record per slab tuple: 4 B up to SCALE
 * 20, 5 to 24, 6 to 28, 7 beyond; at its finish on several ranks about
 * (P-1)/P records more); read from a file (cc_compute_file) the slab is
 * streamed, not held: the edge tally (cc_tally: 4 B per tuple the giant
 * filter keeps, about 5% of a Graph500 list; counters per vertex, 4 n
 * bytes, only when the lists pass n entries) and one or two piece
 * buffers instead. cc_compute_merge's caller holds the slab (16 B/tuple).
 * The distributed path (cc_dist.c) holds O(n/P + m/P + components).
 *
 * Choice (CC_MERGE_AUTO): the distributed path from CC_AUTO_RANKS ranks
 * (the tree's ceil(log2 P) rounds each move 4 n bytes, and every rank holds
 * 24 n bytes), or when the distributed path's arrays, about 48 B per slab
 * endpoint and at most 2 endpoints per tuple, fall below the tree's 24 n:
 * 4 x (largest slab) <= n (measured: docs/components.md; Graph500's 16
 * tuples per vertex reach it at 64 ranks, edge factor 1 at 4).
 * At 2 and 4 ranks on one node the tree path is faster (its merge and
 * labels 4-8x) for about the same peak memory at edge factor 16
 * (docs/components.md, "Memory per rank").
 *
 * Reading and computing at once (cc_compute_file): the slab is read in
 * pieces cut at whole chunks of the file (one chunk by default) and
 * streamed, on both paths: each piece is read into a buffer that is
 * reused, linked into the forest, hashed into the duplicate count
 * (cc_dup_add) and dropped; the link tallies the edges per set as it
 * goes (cc_tally: the giant filter's dropped edges in bulk, the few kept
 * at their first endpoint), so once the labels exist cc_tally_fold gives
 * the edges per component, the same sums as counting each tuple at
 * label[u], with no pass over the tuples of its own. At one thread per
 * rank (or --overlap off) the pieces are read and taken in turn, one
 * buffer; with two or more threads a team of two pipelines them over two
 * buffers: the master thread (the only one that calls HDF5 and MPI: MPI is
 * FUNNELED, HDF5 not thread-safe) reads piece k while the other links
 * and hashes piece k - 1 (the link with nested threads). The
 * allocator keeps what is freed per piece (components_cmd.c), so the loop
 * touches no fresh memory after its first pieces. Either way only the merge,
 * labels, the tally's fold and the duplicate count's finish are left after
 * the read. Every rank makes the same number of collective piece reads; a
 * piece whose read failed is never taken. The duplicate count's finish
 * needs the slab only when a region overflowed (pairs not spread, e.g. one
 * pair repeated): then the ranks that need it read their slab again,
 * whole. The result is the same as cc_compute_merge's on the whole slab
 * for any piece size, overlap, thread and rank count. The distributed
 * path streams the same way through its local step (cc_dist_local: each
 * piece hashed, then renamed in place in local ids and linked into a
 * forest over them; cc_dist.c), and after the read runs the union-find
 * over owner ranks instead of the tree of merges.
 */
#include "cc.h"
#include "common.h"

#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

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

/* Forest over all n vertices and the label array of the tree path. Not
 * collective (the caller agrees). */
static int tree_begin(int64_t n, cc_forest **f, cc_result *r)
{
    int rc = cc_forest_create(n, f);
    if (rc == G5_OK) {
        r->label = g5_malloc((size_t)n * sizeof *r->label, "components: labels");
        if (!r->label)
            rc = G5_ERR_NOMEM;
    }
    r->label_first = 0;
    r->label_count = n;
    return rc;
}

/* Sum the edges per component over ranks. Collective. */
static int sum_comp_edges(MPI_Comm comm, cc_result *r)
{
    int rc = G5_OK;
    /* ncomp <= n / 2 < 2^30 fits an int count. */
    if (r->ncomp > 0 &&
        MPI_Allreduce(MPI_IN_PLACE, r->comp_edges, (int)r->ncomp, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce of edge counts failed");
    return g5_agree(comm, rc);
}

/* The tree path after the link: tree of merges, labels on rank 0,
 * broadcast, and (self_loops not NULL) edges per component, summed over
 * ranks; with self_loops NULL the caller counts them (fused with the
 * duplicate count). Frees *fp. Collective. */
static int tree_label_count(MPI_Comm comm, cc_forest **fp, const int64_t *edges, int64_t count,
                            int nthreads, cc_result *r, int64_t *self_loops, int64_t *nonloop)
{
    int rank, rc = G5_OK;
    const int64_t n = cc_forest_nvertices(*fp);
    int64_t ncomp = 0;
    double t;

    MPI_Comm_rank(comm, &rank);
    t = g5_now();
    G5_TRY(merge_tree(comm, *fp));
    r->t_merge = g5_now() - t;

    t = g5_now();
    if (rank == 0)
        rc = cc_forest_label(*fp, r->label, &ncomp, &r->comp_vertices);
    cc_forest_free(fp);
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

    if (self_loops) {
        t = g5_now();
        cc_count_edges(r->label, ncomp, edges, count, nthreads, r->comp_edges, self_loops, nonloop);
        rc = sum_comp_edges(comm, r);
        r->t_count = g5_now() - t;
    }
out:
    cc_forest_free(fp);
    return rc;
}

/* The tree path: forest over all n vertices, link, then
 * tree_label_count (edge counts too unless self_loops is NULL). Collective. */
static int tree_components(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count,
                           int64_t first_index, int nthreads, cc_result *r, int64_t *self_loops,
                           int64_t *nonloop)
{
    int rc;
    cc_forest *f = NULL;
    double t;

    rc = tree_begin(n, &f, r);
    t = g5_now();
    if (rc == G5_OK)
        rc = cc_forest_link_edges(f, edges, count, first_index, nthreads);
    r->t_link = g5_now() - t;
    rc = g5_agree(comm, rc);
    if (rc == G5_OK)
        rc = tree_label_count(comm, &f, edges, count, nthreads, r, self_loops, nonloop);
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

/* A result for n vertices with the merge path decided (r->merge), or
 * NULL and the agreed error. Collective. */
static int result_begin(MPI_Comm comm, int64_t n, int64_t count, int merge, cc_result **out)
{
    int p, rc = G5_OK;
    cc_result *r = NULL;
    int64_t maxcount = 0;

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
    if (rc != G5_OK) {
        cc_result_free(&r);
        return rc;
    }
    r->nvertices = n;
    r->meta.nvertices = n;
    /* auto: the tree's vertex arrays (forest 12 B, labels 4 B, merge buffer
     * 4 B per vertex) against the distributed path's endpoint arrays (about
     * 48 B for each of up to 2 endpoints per tuple of the largest slab);
     * re-measured with both paths streamed (docs/components.md, Measured
     * peak RSS, eighth session): at edge factor 1, SCALE 22, the
     * distributed path is clearly the smaller from P = 4 (91.3 MiB against
     * 124.7), where 4 maxcount = n, and about equal at 2 (126.4 against
     * 129.2), where the tree computes 2.5x faster after the read;
     * all ranks see the same n, p and maxcount, so they take one path. */
    if (merge == CC_MERGE_AUTO)
        merge = (p >= CC_AUTO_RANKS || 4 * maxcount <= n) && p > 1 ? CC_MERGE_DISTRIBUTED
                                                                       : CC_MERGE_TREE;
    r->merge = merge;
    *out = r;
    return G5_OK;
}

/* Sum the self-loops and non-loop tuples over ranks, and take the max of
 * the peak RSS when labelled (taken here unless the caller took it before
 * its duplicate count). Collective. */
static int reduce_counts(MPI_Comm comm, cc_result *r, int64_t counts[2])
{
    int rc = G5_OK;
    double t;

    if (!r->rss_labelled)
        r->rss_labelled = g5_peak_rss();
    t = g5_now();
    if (MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &r->rss_labelled, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce of edge counts failed");
    rc = g5_agree(comm, rc);
    r->t_count += g5_now() - t;
    return rc;
}

/* Everything after the read, on a whole slab, along r->merge. Collective. */
static int compute_slab(MPI_Comm comm, int64_t n, int64_t *edges, int64_t count, int64_t first_index,
                        int nthreads, cc_result *r)
{
    int64_t counts[2] = {0, 0}, distinct = 0;
    int rc;
    double t;

    if (r->merge == CC_MERGE_TREE) {
        /* the edge counts in the duplicate count's first pass
         * (cc_count_edges_distinct: the slab is read once less) */
        rc = tree_components(comm, n, edges, count, first_index, nthreads, r, NULL, NULL);
        r->rss_labelled = g5_peak_rss();
        t = g5_now();
        if (rc == G5_OK)
            rc = cc_count_edges_distinct(comm, n, r->label, edges, count, nthreads, r->comp_edges, &counts[0],
                                         &counts[1], &distinct);
        if (rc == G5_OK)
            rc = sum_comp_edges(comm, r);
        r->t_distinct = g5_now() - t;
        if (rc == G5_OK)
            rc = reduce_counts(comm, r, counts);
    } else {
        rc = cc_dist_components(comm, n, edges, count, first_index, nthreads, r, &counts[0], &counts[1]);
        if (rc == G5_OK)
            rc = reduce_counts(comm, r, counts);
        t = g5_now();
        if (rc == G5_OK)
            rc = cc_count_distinct(comm, n, edges, count, nthreads, &distinct);
        r->t_distinct = g5_now() - t;
    }
    if (rc == G5_OK)
        cc_stats_fill(&r->meta, r->ncomp, r->comp_vertices, r->comp_edges, counts[0], counts[1], distinct);
    return rc;
}

int cc_compute_merge(MPI_Comm comm, int64_t n, int64_t *edges, int64_t count,
                     int64_t first_index, int nthreads, int merge, cc_result **out)
{
    cc_result *r = NULL;
    int rc = result_begin(comm, n, count, merge, &r);

    if (rc == G5_OK)
        rc = compute_slab(comm, n, edges, count, first_index, nthreads, r);
    if (rc != G5_OK)
        cc_result_free(&r);
    *out = r;
    return rc;
}

/* CPU time of the calling thread (s): with the wall time it tells how
 * much of a phase the thread ran, whatever the load. */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- reading and computing at once ------------------------------------ */

/* Edges per piece: want (<= 0: CC_PIECE_ROWS), cut down to a multiple of
 * the file's chunk rows when it holds at least one chunk. Pieces start at
 * global multiples of it, so they start on chunk boundaries. */
static int64_t piece_rows_of(const io_edges *e, int64_t want)
{
    const int64_t c = io_edges_chunk_rows(e);
    if (want <= 0)
        want = CC_PIECE_ROWS;
    if (c > 0 && want >= c)
        want -= want % c;
    return want;
}

/* Number of pieces of the slab [first, first + count). */
static int64_t piece_count(int64_t first, int64_t count, int64_t piece)
{
    return count > 0 ? (first + count - 1) / piece - first / piece + 1 : 0;
}

/* Piece k of the slab: rows [*lo, *lo + *len) of the file (*len 0 past
 * the slab's last piece). */
static void piece_range(int64_t first, int64_t count, int64_t piece, int64_t k, int64_t *lo, int64_t *len)
{
    const int64_t b = (first / piece + k) * piece, end = first + count;
    const int64_t a = b > first ? b : first, z = b + piece < end ? b + piece : end;
    *lo = a;
    *len = count > 0 && z > a ? z - a : 0;
}

/* The number of collective piece reads every rank makes: the largest
 * piece count over ranks. Collective. */
static int agree_pieces(MPI_Comm comm, int64_t first, int64_t count, int64_t piece, int64_t *maxp)
{
    int64_t np = piece_count(first, count, piece);
    int rc = G5_OK;
    if (MPI_Allreduce(&np, maxp, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce of piece counts failed");
    return g5_agree(comm, rc);
}

/* Read piece k of the slab [first, first + count) to buf, its first row at
 * buf[0]; *lo, *len: the piece's rows of the file (*len 0: this rank reads
 * nothing in this collective read). Collective (the read agrees). */
static int read_piece(io_edges *e, int64_t first, int64_t count, int64_t piece, int64_t k, int64_t *buf,
                      int64_t *lo, int64_t *len)
{
    piece_range(first, count, piece, k, lo, len);
    return io_edges_read_slab(e, *len ? *lo : first, *len, buf, NULL);
}

/* A whole slab of count tuples, with transparent huge pages asked for on
 * its 2 MiB-aligned interior (THP in madvise mode is common): HDF5's
 * copies into the fresh buffer then fault once per 2 MiB instead of once
 * per 4 KiB. Only the distributed path (and the tree path's rare re-read
 * for the duplicate count) holds one. Not collective. */
static int64_t *slab_alloc(int64_t count)
{
    const size_t bytes = (size_t)(count ? count : 1) * 16;
    const uintptr_t H = (uintptr_t)2 << 20;
    int64_t *p = g5_malloc(bytes, "components: edge slab");
    uintptr_t a = ((uintptr_t)p + H - 1) & ~(H - 1), z = ((uintptr_t)p + bytes) & ~(H - 1);
    if (p && z > a)
        madvise((void *)a, z - a, MADV_HUGEPAGE);
    return p;
}

/* All pieces of [first, first + count) into the slab edges[count][2],
 * nothing overlapped; *npieces: the collective reads made. Collective. */
static int read_slab_pieces(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int64_t *edges,
                            int64_t piece, int64_t *npieces)
{
    int64_t maxp = 0, lo, len;
    int rc = agree_pieces(comm, first, count, piece, &maxp);
    *npieces = maxp;
    for (int64_t k = 0; k < maxp && rc == G5_OK; k++) {
        piece_range(first, count, piece, k, &lo, &len);
        rc = read_piece(e, first, count, piece, k, len ? edges + 2 * (lo - first) : edges, &lo, &len);
    }
    return rc;
}

/* What the tree path keeps of the slab as it streams by: the forest, the
 * duplicate count's regions and the edge tally (attached to the forest,
 * which counts the edges per set as it links them). Only the compute
 * thread touches them. */
typedef struct stream {
    cc_forest *f;
    cc_dist_local *l;  /* the distributed path: its local step instead of f */
    cc_dup *d;  /* overlapped: paired rows, row 0 the reader's, row 1 the compute thread's */
    cc_tally *t;
    int nc;     /* link threads */
    int rc;     /* the link's status; after a failure nothing more is taken */
    int paired;
    double t_link, t_hash;
} stream;

/* Link a piece (rows lo .. lo + len of the file) into the forest (which
 * tallies it) and hash its tuples from `from` on into the duplicate count
 * (paired: into row 1; the reader hashed the ones before); then the piece
 * may be dropped. */
static void take_piece(stream *s, int64_t *pe, int64_t len, int64_t lo, int64_t from)
{
    double t0 = g5_now(), t1;
    if (s->rc != G5_OK || len <= 0)
        return;
    if (s->l) {
        /* the distributed path renames the piece in place: hash it first */
        if (s->paired)
            cc_dup_add_row(s->d, 1, pe + 2 * from, len - from);
        else
            cc_dup_add(s->d, pe, len);
        t1 = g5_now();
        s->t_hash += t1 - t0;
        s->rc = cc_dist_local_take(s->l, pe, len, lo, s->nc);
        s->t_link += g5_now() - t1;
        return;
    }
    s->rc = cc_forest_link_edges(s->f, pe, len, lo, s->nc);
    t1 = g5_now();
    s->t_link += t1 - t0;
    if (s->rc != G5_OK)
        return;
    if (s->paired)
        cc_dup_add_row(s->d, 1, pe + 2 * from, len - from);
    else
        cc_dup_add(s->d, pe, len);
    s->t_hash += g5_now() - t1;
}

/* Progress of a long read (rank 0, stderr): a line at each tenth of the
 * pieces once the read has taken 2 s, at most one a second. */
typedef struct read_progress {
    double t0, last;
    int64_t next;
} read_progress;

static void progress_init(read_progress *p)
{
    p->t0 = p->last = g5_now();
    p->next = 1;
}

static void progress_piece(read_progress *p, int64_t k, int64_t maxp, int64_t first, int64_t count, int64_t piece)
{
    const double now = g5_now();
    int64_t lo, len;
    if (maxp < 10 || (k + 1) * 10 < p->next * maxp)
        return;
    while (p->next <= 10 && (k + 1) * 10 >= p->next * maxp)
        p->next++;
    if (now - p->t0 < 2 || now - p->last < 1 || k + 1 == maxp)
        return;
    p->last = now;
    piece_range(first, count, piece, k, &lo, &len);
    g5_progress("components: read %lld of %lld pieces (%.0f%%) in %.1fs, rank 0 at edge %lld of [%lld, %lld)",
                (long long)(k + 1), (long long)maxp, 100.0 * (double)(k + 1) / (double)maxp, now - p->t0,
                (long long)(lo + len), (long long)first, (long long)(first + count));
}

/* One thread per rank (or --overlap off): read piece k into the one
 * buffer, take it, read piece k + 1 into the same buffer. A read agrees
 * its status, so every rank stops at the same piece; the link's status is
 * agreed at the end. Collective. */
static int stream_sequential(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int64_t piece,
                             int64_t *buf, stream *s, cc_result *r)
{
    int64_t maxp = 0, lo, len;
    int rc = agree_pieces(comm, first, count, piece, &maxp);
    const double c0 = thread_cpu();

    read_progress pr;
    progress_init(&pr);
    r->npieces = maxp;
    for (int64_t k = 0; k < maxp && rc == G5_OK; k++) {
        const double t0 = g5_now();
        rc = read_piece(e, first, count, piece, k, buf, &lo, &len);
        r->t_read_io += g5_now() - t0;
        if (rc == G5_OK)
            take_piece(s, buf, len, lo, 0);
        progress_piece(&pr, k, maxp, first, count, piece);
    }
    r->cpu_reader = thread_cpu() - c0;
    if (rc != G5_OK)
        return rc;  /* already agreed by the read */
    return g5_agree(comm, s->rc);
}

/* The share of a piece the reader hashes, from smoothed costs per tuple of
 * the reader's read (rd), the compute thread's link (lk) and the hashing
 * by the reader (hr) and by the compute thread (hc): in a steady step the
 * reader takes rd + f hr and the compute thread lk + (1 - f) hc, equal at
 * f = (lk + hc - rd) / (hr + hc), clamped to [0, 1]. The two hash costs
 * differ (at SCALE 24 the reader's was 9.6 ns a tuple, on a piece it has
 * just read, the compute thread's 16.5, after its link); one not known
 * yet is taken equal to the other; 0 while nothing is known. */
static double reader_share(double rd, double lk, double hr, double hc)
{
    if (hr <= 0)
        hr = hc;
    if (hc <= 0)
        hc = hr;
    if (rd < 0 || lk < 0 || hr <= 0)
        return 0;
    const double f = (lk + hc - rd) / (hr + hc);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* cc_set_reader_share's value: negative, balance. */
static double fixed_share = -1;

void cc_set_reader_share(double f) { fixed_share = f > 1 ? 1 : f; }

/* x smoothed with a new sample y (x < 0: none yet). */
static double smooth(double x, double y) { return x < 0 ? y : 0.75 * x + 0.25 * y; }

/* Wait until *counter >= target (acquire), or *stop is set and the
 * counter stays below it: returns 0 then. Yields, then sleeps 20 us at a
 * time, so a thread that waits long (a slow read) takes no CPU. */
static int wait_for(const int64_t *counter, int64_t target, const int *stop)
{
    for (int spin = 0;; spin++) {
        if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) >= target)
            return 1;
        if (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE) && __atomic_load_n(counter, __ATOMIC_ACQUIRE) < target)
            return 0;
        if (spin < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* The pipeline. A team of two: thread 0 (the master, the only one that
 * calls HDF5 and MPI) reads pieces into a ring of CC_RING buffers, piece k
 * into buffer k % CC_RING once piece k - CC_RING has been taken, while
 * thread 1 takes them in order as they are published (links each and
 * hashes it, with s->nc threads of its own, nested: the link's and a row
 * of the duplicate count per thread). The two meet at no barrier: two
 * counters, nread (pieces read without error, so a piece whose read
 * failed is never taken) and taken, written with release and read with
 * acquire, and a stop flag the reader sets when it is done; a thread with
 * nothing to do waits (wait_for). With the ring a slow read (storage)
 * and a slow piece to compute no longer stall each other step by step:
 * the read phase tends to the larger of the two threads' sums, not the
 * sum of each step's larger. With one compute thread (2 threads in all:
 * s->paired) the reader hashes the first a_k tuples of the piece it read
 * into row 0 and the compute thread the others into row 1 (the rows share
 * each class's space, so any split fits: cc_dup_create_pair); with more,
 * the reader only reads (the compute threads are many, the reader one).
 * a_k balances the two threads: the compute thread leaves its costs of
 * piece j (link and hashing, per tuple) in slot j % CC_RING before it
 * counts j taken, the reader folds them in as they come and gives itself
 * the share reader_share finds (none for the first piece, under which the
 * compute thread has nothing to do). The read agrees its status over
 * ranks, so every rank stops reading at the same piece and all make the
 * same collective calls. Should the runtime give a team of one, thread 0
 * takes each piece after reading it. Collective. */
static int stream_overlapped(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int64_t piece,
                             int64_t *buf[CC_RING], stream *s, cc_result *r)
{
    int64_t maxp = 0, nread = 0, taken = 0, split[CC_RING] = {0}, by_reader = 0;
    int rc_read = agree_pieces(comm, first, count, piece, &maxp), stop = 0;
    const int levels = omp_get_max_active_levels();
    double t_io = 0, cpu_read = 0, cpu_under = 0, t_hash_reader = 0;
    /* the compute thread's link and hash of piece j (slot j % CC_RING),
     * with the tuples each covered */
    double lk_t[CC_RING] = {0}, ch_t[CC_RING] = {0};
    int64_t lk_n[CC_RING] = {0}, ch_n[CC_RING] = {0};
    double c_rd = -1, c_lk = -1, c_hr = -1, c_hc = -1;  /* smoothed costs per tuple */

    if (rc_read != G5_OK)
        return rc_read;
    r->npieces = maxp;
    if (s->nc > 1 && levels < 2)
        omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        const int t = omp_get_thread_num(), worker = omp_get_num_threads() > 1;
        const double c0 = thread_cpu();
        if (t == 0) {
            int64_t learned = 0;  /* pieces whose costs the reader has folded in */
            read_progress pr;
            progress_init(&pr);
            omp_set_num_threads(1);  /* the read's own loops stay on the reader */
            for (int64_t k = 0; k < maxp && rc_read == G5_OK; k++) {
                int64_t lo, len;
                const int slot = (int)(k % CC_RING);
                /* buffer slot is free once piece k - CC_RING was taken */
                if (worker)
                    wait_for(&taken, k - CC_RING + 1, NULL);
                for (const int64_t done = __atomic_load_n(&taken, __ATOMIC_ACQUIRE); learned < done; learned++) {
                    const int j = (int)(learned % CC_RING);
                    if (lk_n[j] > 0 && learned >= 1)  /* piece 0 takes the parallel path: not typical */
                        c_lk = smooth(c_lk, lk_t[j] / (double)lk_n[j]);
                    if (ch_n[j] > 0)
                        c_hc = smooth(c_hc, ch_t[j] / (double)ch_n[j]);
                }
                const double t0 = g5_now();
                rc_read = read_piece(e, first, count, piece, k, buf[slot], &lo, &len);
                const double t1 = g5_now();
                t_io += t1 - t0;
                if (rc_read != G5_OK)
                    break;
                if (len > 0)
                    c_rd = smooth(c_rd, (t1 - t0) / (double)len);
                const double f = fixed_share >= 0 ? fixed_share : reader_share(c_rd, c_lk, c_hr, c_hc);
                const int64_t a = k == 0 || !worker || !s->paired ? 0 : (int64_t)(f * (double)len);
                if (a > 0) {
                    cc_dup_add_row(s->d, 0, buf[slot], a);
                    const double th = g5_now() - t1;
                    c_hr = smooth(c_hr, th / (double)a);
                    t_hash_reader += th;
                }
                split[slot] = a;
                by_reader += a;
                __atomic_store_n(&nread, k + 1, __ATOMIC_RELEASE);
                if (!worker)
                    take_piece(s, buf[slot], len, lo, 0);
                progress_piece(&pr, k, maxp, first, count, piece);
            }
            __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
            cpu_read = thread_cpu() - c0;
        } else {
            for (int64_t k = 0; wait_for(&nread, k + 1, &stop); k++) {
                int64_t lo, len;
                const int slot = (int)(k % CC_RING);
                const double l0 = s->t_link, h0 = s->t_hash;
                piece_range(first, count, piece, k, &lo, &len);
                take_piece(s, buf[slot], len, lo, split[slot]);
                lk_t[slot] = s->t_link - l0;
                lk_n[slot] = len;
                ch_t[slot] = s->t_hash - h0;
                ch_n[slot] = len - split[slot];
                __atomic_store_n(&taken, k + 1, __ATOMIC_RELEASE);
            }
            cpu_under = thread_cpu() - c0;
        }
    }
    omp_set_max_active_levels(levels);
    r->cpu_reader = cpu_read;
    r->cpu_under = cpu_under;
    r->t_read_io = t_io;
    r->t_hash_reader = t_hash_reader;
    r->hash_share = count > 0 ? (double)by_reader / (double)count : 0;
    if (rc_read != G5_OK)
        return rc_read;  /* already agreed by the read */
    return g5_agree(comm, s->rc);
}

/* The duplicate count's finish. It reads the slab only when the pieces
 * did not fill the regions as sized (a region overflowed: pairs not
 * spread, e.g. one pair repeated many times); then each rank that needs
 * it reads its slab again, whole (the others make the same collective
 * reads of nothing): the one case where the tree path holds 16 B per slab
 * tuple. *reread: 1 when it did. Collective. */
static int finish_duplicates(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int64_t piece,
                             cc_dup *d, int64_t *distinct, int *reread)
{
    int need = cc_dup_needs_slab(d, count), any = 0, rc = G5_OK;
    int64_t *slab = NULL, none[2], np;

    if (MPI_Allreduce(&need, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed");
    rc = g5_agree(comm, rc);
    *reread = any;
    if (rc == G5_OK && any) {
        if (need) {
            slab = slab_alloc(count);
            if (!slab)
                rc = G5_ERR_NOMEM;
        }
        rc = g5_agree(comm, rc);
        if (rc == G5_OK)
            rc = read_slab_pieces(comm, e, need ? first : 0, need ? count : 0, need ? slab : none, piece, &np);
    }
    if (rc == G5_OK)
        rc = g5_agree(comm, cc_dup_finish(comm, d, slab, count, distinct));
    free(slab);
    return rc;
}

int cc_overlap_auto(MPI_Comm comm, int nthreads)
{
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    int local = 1, cpus = 1, spare;
    MPI_Comm node;
    cpu_set_t set;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        cpus = CPU_COUNT(&set);
    /* the least over ranks, so that every rank takes the same path */
    spare = nt >= 2 || (int64_t)local * nt < cpus;
    MPI_Allreduce(MPI_IN_PLACE, &spare, 1, MPI_INT, MPI_MIN, comm);
    return spare ? CC_OVERLAP_ON : CC_OVERLAP_OFF;
}

int cc_compute_file(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int nthreads, int merge,
                    int64_t piece_rows, int overlap, cc_result **out)
{
    const int64_t n = io_edges_get_meta(e)->nvertices, piece = piece_rows_of(e, piece_rows);
    const int nt = nthreads > 0 ? nthreads : omp_get_max_threads();
    cc_result *r = NULL;
    stream s;
    int64_t *buf[CC_RING] = {NULL}, counts[2] = {0, 0}, distinct = 0;
    int rc;
    double t;

    memset(&s, 0, sizeof s);
    *out = NULL;
    rc = result_begin(comm, n, count, merge, &r);
    if (rc != G5_OK)
        return rc;
    if (overlap == CC_OVERLAP_AUTO)
        overlap = cc_overlap_auto(comm, nt);
    /* Both paths stream: one piece buffer (two when overlapped), the
     * duplicate count's regions and, on the tree path, the forest and its
     * edge tally and the labels; on the distributed path its local step
     * (endpoint ids, a forest over them that tallies). No slab. */
    const int dist = r->merge != CC_MERGE_TREE;
    const int64_t rows = count < piece ? count : piece;
    const int nbuf = overlap == CC_OVERLAP_ON ? CC_RING : 1;
    /* overlapped: the link and hashing on nt - 1 compute threads under
     * the read; at 2 threads (one compute thread) the reader hashes a
     * share of each piece too */
    s.nc = overlap == CC_OVERLAP_ON ? (nt > 1 ? nt - 1 : 1) : nt;
    s.paired = overlap == CC_OVERLAP_ON && s.nc == 1;
    rc = dist ? cc_dist_local_create(n, count, &s.l) : tree_begin(n, &s.f, r);
    if (rc == G5_OK)
        /* paired: a pair of rows, the reader's and the compute thread's,
         * any split; else a row per adding thread; the finish counts on
         * nt */
        rc = s.paired ? cc_dup_create_pair(comm, n, count, nt, &s.d)
                      : cc_dup_create_rows(comm, n, count, s.nc, nt, &s.d);
    if (rc == G5_OK && !dist) {
        rc = cc_tally_create(n, &s.t);
        if (rc == G5_OK)
            cc_forest_set_tally(s.f, s.t);
    }
    for (int i = 0; i < nbuf && rc == G5_OK; i++) {
        buf[i] = g5_malloc((size_t)(rows > 0 ? rows : 1) * 16, "components: piece buffer");
        if (!buf[i])
            rc = G5_ERR_NOMEM;
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    r->overlapped = overlap == CC_OVERLAP_ON;
    r->streamed = 1;
    t = g5_now();
    rc = r->overlapped ? stream_overlapped(comm, e, first, count, piece, buf, &s, r)
                       : stream_sequential(comm, e, first, count, piece, buf[0], &s, r);
    r->t_read = g5_now() - t;
    r->t_link_under = s.t_link;
    r->t_hash_under = s.t_hash;
    for (int i = 0; i < CC_RING; i++) {
        free(buf[i]);
        buf[i] = NULL;
    }
    if (dist) {
        /* the read agreed its status and the pieces' (above) */
        if (rc == G5_OK)
            rc = cc_dist_local_finish(comm, rc, &s.l, nthreads, r, &counts[0], &counts[1]);
    } else if (rc == G5_OK)
        rc = tree_label_count(comm, &s.f, NULL, 0, nthreads, r, NULL, NULL);
    if (rc == G5_OK && !dist) {
        t = g5_now();
        cc_tally_fold(s.t, r->label, nt, r->comp_edges, &counts[0], &counts[1]);
        rc = sum_comp_edges(comm, r);
        r->t_count = g5_now() - t;
    }
    cc_tally_free(&s.t);
    if (rc == G5_OK)
        rc = reduce_counts(comm, r, counts);
    if (rc == G5_OK) {
        t = g5_now();
        rc = finish_duplicates(comm, e, first, count, piece, s.d, &distinct, &r->reread);
        r->t_distinct = g5_now() - t;
    }
    if (rc == G5_OK)
        cc_stats_fill(&r->meta, r->ncomp, r->comp_vertices, r->comp_edges, counts[0], counts[1], distinct);
out:
    for (int i = 0; i < CC_RING; i++)
        free(buf[i]);
    cc_tally_free(&s.t);
    cc_dist_local_free(&s.l);
    cc_dup_free(&s.d);
    cc_forest_free(&s.f);
    if (rc != G5_OK)
        cc_result_free(&r);
    *out = r;
    return rc;
}
