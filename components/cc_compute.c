/* SPDX-License-Identifier: MIT */
/*
 * cc_compute.c - connected components over ranks: each rank streams its
 * slab of edges, piece by piece, into a root/son forest (cc_forest.c,
 * cc_link.c) that tallies the edges per set (cc_tally.c) and into the
 * duplicate count (cc_dup.c); the forests are then merged and labelled
 * canonically, and the statistics reduced.
 *
 * Two merges behind one automatic rule (merge_of), both giving the same
 * labels:
 *   tree         every rank's forest covers all N vertices; in round
 *                s = 1, 2, 4, ... rank r with r % 2s == s sends its root
 *                vector (4 B per vertex) to rank r - s, which unions it
 *                into its own (cc_forest_merge_roots). Rank 0 labels and
 *                broadcasts. O(N + M/P) memory per rank, the fastest on a
 *                few ranks (its merge and labels 1.7x faster than the
 *                distributed path's at SCALE 22, 2 ranks).
 *   distributed  cc_dist.c: no N-sized array on any rank, O(N/P + M/P +
 *                components); taken from CC_AUTO_RANKS ranks (the tree's
 *                log2 P rounds each move 4 N bytes and every rank holds
 *                24 N bytes), and when the largest slab holds at most
 *                N / 4 tuples (its endpoint arrays, about 48 B per
 *                endpoint, then fall below the tree's 24 B per vertex: at
 *                edge factor 1, SCALE 22, 8 ranks its peak is 37% below
 *                the tree's). Figures: docs/performance.md, "components".
 * The union of partitions does not depend on the order it is taken in,
 * and the labels (ids by size, ties by smallest vertex) depend on the
 * partition only: the output is the same for any P, thread count, piece
 * size and merge.
 *
 * A file's slab is read in pieces cut at whole chunks of the file (one
 * chunk by default), each read into one reused buffer, taken (linked and
 * hashed) and dropped, so no slab is held; every rank makes the same
 * number of collective piece reads, and a piece whose read failed is
 * never taken. The duplicate count's finish needs the slab only when a
 * region overflowed (pairs not spread): the ranks that need it then read
 * their slab again, whole. An in-memory slab (cc_compute) takes the same
 * steps with the whole slab as one piece (the distributed merge renames
 * copies of it, CC_COPY_ROWS rows at a time).
 */
#include "cc_internal.h"
#include "common.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CC_BCAST_CHUNK ((int64_t)1 << 27)   /* elements per broadcast */
/* rows of a caller's slab renamed at a time on the distributed path */
#define CC_COPY_ROWS ((int64_t)1 << 16)

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

const char *cc_merge_name(int merge)
{
    return merge == CC_MERGE_TREE ? "tree" : merge == CC_MERGE_DISTRIBUTED ? "distributed" : "auto";
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

/* The tree path after the link: tree of merges, labels on rank 0 and
 * their broadcast; comp_edges allocated, zero. Frees *fp. Collective. */
static int tree_label(MPI_Comm comm, cc_forest **fp, cc_result *r)
{
    int rank, rc = G5_OK;
    const int64_t n = cc_forest_nvertices(*fp);
    int64_t ncomp = 0;
    double t;

    MPI_Comm_rank(comm, &rank);
    t = g5_now();
    rc = merge_tree(comm, *fp);
    r->t_merge = g5_now() - t;
    if (rc != G5_OK)
        goto out;
    t = g5_now();
    if (rank == 0)
        rc = cc_forest_label(*fp, r->label, &ncomp, &r->comp_vertices);
    cc_forest_free(fp);
    rc = g5_agree(comm, rc);
    if (rc == G5_OK && MPI_Bcast(&ncomp, 1, MPI_INT64_T, 0, comm) != MPI_SUCCESS)
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
    r->t_label = g5_now() - t;
out:
    cc_forest_free(fp);
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

/* The merge taken: forced by o->merge, else the automatic rule (file
 * header). All ranks see the same n, p and largest slab, so all take one
 * path. Collective. */
static int merge_of(MPI_Comm comm, int64_t n, int64_t count, const cc_opts *o, int *merge)
{
    int p;
    int64_t maxcount = 0;
    MPI_Comm_size(comm, &p);
    if (MPI_Allreduce(&count, &maxcount, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return g5_agree(comm, g5_error(G5_ERR_MPI, "components: MPI_Allreduce failed"));
    *merge = o->merge;
    if (*merge == CC_MERGE_AUTO)
        *merge = (p >= CC_AUTO_RANKS || 4 * maxcount <= n) && p > 1 ? CC_MERGE_DISTRIBUTED : CC_MERGE_TREE;
    return g5_agree(comm, G5_OK);
}

/* A result for n vertices with its merge decided, or NULL and the agreed
 * error. Collective. */
static int result_begin(MPI_Comm comm, int64_t n, int64_t count, const cc_opts *o, cc_result **out)
{
    int rc = G5_OK;
    cc_result *r = g5_calloc(1, sizeof *r, "components result");

    *out = NULL;
    if (!r)
        rc = G5_ERR_NOMEM;
    if (rc == G5_OK && (n < 1 || n > CC_MAX_VERTICES))
        rc = g5_error(G5_ERR_ARG, "components: %lld vertices is outside [1, %lld] (SCALE <= 30)",
                      (long long)n, (long long)CC_MAX_VERTICES);
    if (rc == G5_OK && o->merge != CC_MERGE_AUTO && o->merge != CC_MERGE_TREE &&
        o->merge != CC_MERGE_DISTRIBUTED)
        rc = g5_error(G5_ERR_ARG, "components: unknown merge path %d", o->merge);
    rc = g5_agree(comm, rc);
    if (rc == G5_OK)
        rc = merge_of(comm, n, count, o, &r->merge);
    if (rc != G5_OK) {
        cc_result_free(&r);
        return rc;
    }
    r->nvertices = n;
    r->meta.nvertices = n;
    *out = r;
    return G5_OK;
}

/* What a rank keeps of its slab as it streams by. */
typedef struct stream {
    cc_forest *f;       /* tree: the forest over all n vertices, tallying */
    cc_tally *t;
    cc_dist_local *l;   /* distributed: its local step instead */
    cc_dup *d;
    int nt;             /* threads */
    int rc;             /* the takes' status; after a failure nothing more is taken */
    double t_link, t_hash;
} stream;

static void stream_free(stream *s)
{
    cc_tally_free(&s->t);
    cc_dist_local_free(&s->l);
    cc_dup_free(&s->d);
    cc_forest_free(&s->f);
}

/* The stream of a slab of count tuples over n vertices along r->merge:
 * the duplicate count (if dups) and, on the tree path, the forest with its tally
 * and the labels; on the distributed path its local step. Collective. */
static int stream_begin(MPI_Comm comm, int64_t n, int64_t count, int nt, int dups, cc_result *r,
                        stream *s)
{
    int rc;
    memset(s, 0, sizeof *s);
    s->nt = nt;
    if (r->merge == CC_MERGE_DISTRIBUTED) {
        rc = cc_dist_local_create(n, count, &s->l);
    } else {
        rc = cc_forest_create(n, &s->f);
        if (rc == G5_OK)
            rc = cc_tally_create(n, &s->t);
        if (rc == G5_OK) {
            cc_forest_set_tally(s->f, s->t);
            r->label = g5_malloc((size_t)n * sizeof *r->label, "components: labels");
            if (!r->label)
                rc = G5_ERR_NOMEM;
        }
        r->label_first = 0;
        r->label_count = n;
    }
    if (rc == G5_OK && dups)
        rc = cc_dup_create(comm, n, count, nt, &s->d);
    return g5_agree(comm, rc);
}

/* Take a piece (rows lo .. lo + len of the edge list): on the tree path
 * link it (the forest tallies it) and hash it into the duplicate count;
 * on the distributed path hash it, then rename it in place in local ids
 * and link it (so pe is rewritten there). Not collective. */
static void take_piece(stream *s, int64_t *pe, int64_t len, int64_t lo)
{
    double t0 = g5_now(), t1;
    if (s->rc != G5_OK || len <= 0)
        return;
    if (s->l) {
        if (s->d)
            cc_dup_add(s->d, pe, len);
        t1 = g5_now();
        s->t_hash += t1 - t0;
        s->rc = cc_dist_local_take(s->l, pe, len, lo, s->nt);
        s->t_link += g5_now() - t1;
        return;
    }
    s->rc = cc_forest_link_edges(s->f, pe, len, lo, s->nt);
    t1 = g5_now();
    s->t_link += t1 - t0;
    if (s->rc == G5_OK && s->d)
        cc_dup_add(s->d, pe, len);
    s->t_hash += g5_now() - t1;
}

/* Sum the self-loops and non-loop tuples over ranks, and take the max of
 * the peak RSS when labelled. Collective. */
static int reduce_counts(MPI_Comm comm, cc_result *r, int64_t counts[2])
{
    int rc = G5_OK;
    double t;

    r->rss_labelled = g5_peak_rss();
    t = g5_now();
    if (MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &r->rss_labelled, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "components: MPI_Allreduce of edge counts failed");
    rc = g5_agree(comm, rc);
    r->t_count += g5_now() - t;
    return rc;
}

/* Everything after the last piece but the duplicate count's finish:
 * merge, labels, edges per component; status is the agreed outcome of
 * the pieces. counts: this rank's self-loops and non-loop tuples, then
 * their sums. Collective. */
static int stream_end(MPI_Comm comm, int status, stream *s, const cc_opts *o, cc_result *r, int64_t counts[2])
{
    int rc = status;
    double t;

    if (s->l) {
        rc = cc_dist_local_finish(comm, rc, &s->l, o->nthreads, o->dist_batch, r, &counts[0], &counts[1]);
        return rc == G5_OK ? reduce_counts(comm, r, counts) : rc;
    }
    if (rc == G5_OK)
        rc = tree_label(comm, &s->f, r);
    if (rc == G5_OK) {
        t = g5_now();
        cc_tally_fold(s->t, r->label, s->nt, r->comp_edges, &counts[0], &counts[1]);
        rc = sum_comp_edges(comm, r);
        r->t_count = g5_now() - t;
    }
    cc_tally_free(&s->t);
    if (rc == G5_OK)
        rc = reduce_counts(comm, r, counts);
    return rc;
}

/* Range check of an in-memory slab for the distributed path, whose
 * rename does not check (the tree path's link does, with this message). */
static int check_range(int64_t n, const int64_t *edges, int64_t count, int64_t first_index, int nt)
{
    int64_t b = INT64_MAX;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : b)
    for (int64_t i = 0; i < count; i++) {
        const int64_t u = edges[2 * i], v = edges[2 * i + 1];
        if ((u < 0 || u >= n || v < 0 || v >= n) && i < b)
            b = i;
    }
    if (b == INT64_MAX)
        return G5_OK;
    return g5_error(G5_ERR_FORMAT, "edge %lld = (%lld, %lld) has a vertex outside [0, %lld)",
                    (long long)(first_index + b), (long long)edges[2 * b], (long long)edges[2 * b + 1],
                    (long long)n);
}

/* Take a caller's slab: whole on the tree path (only read, so the
 * parallel link takes it in one call), through a copy of CC_COPY_ROWS
 * rows at a time on the distributed path (which renames what it takes).
 * Not collective. */
static void take_slab(stream *s, int64_t n, const int64_t *edges, int64_t count, int64_t first_index)
{
    int64_t *buf;
    if (!s->l) {
        take_piece(s, (int64_t *)edges, count, first_index);  /* only read on this path */
        return;
    }
    s->rc = check_range(n, edges, count, first_index, s->nt);
    buf = s->rc == G5_OK ? g5_malloc((size_t)CC_COPY_ROWS * 16, "components: piece buffer") : NULL;
    if (s->rc == G5_OK && !buf)
        s->rc = G5_ERR_NOMEM;
    for (int64_t lo = 0; s->rc == G5_OK && lo < count; lo += CC_COPY_ROWS) {
        const int64_t len = count - lo < CC_COPY_ROWS ? count - lo : CC_COPY_ROWS;
        memcpy(buf, edges + 2 * lo, (size_t)len * 16);
        take_piece(s, buf, len, first_index + lo);
    }
    free(buf);
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
    int64_t np = count > 0 ? (first + count - 1) / piece - first / piece + 1 : 0;
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
 * its 2 MiB-aligned interior: HDF5's copies into the fresh buffer then
 * fault once per 2 MiB instead of once per 4 KiB. Not collective. */
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

/* All pieces of [first, first + count) into the slab edges[count][2].
 * Collective. */
static int read_slab_pieces(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int64_t *edges,
                            int64_t piece)
{
    int64_t maxp = 0, lo, len;
    int rc = agree_pieces(comm, first, count, piece, &maxp);
    for (int64_t k = 0; k < maxp && rc == G5_OK; k++) {
        piece_range(first, count, piece, k, &lo, &len);
        rc = read_piece(e, first, count, piece, k, len ? edges + 2 * (lo - first) : edges, &lo, &len);
    }
    return rc;
}

/* Progress of a long read (rank 0, stderr): a line at each tenth of the
 * pieces once the read has taken 2 s, at most one a second. */
typedef struct read_progress {
    double t0, last;
    int64_t next;
} read_progress;

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

/* Read piece k into the buffer, take it, read piece k + 1 into the same
 * buffer. A read agrees its status, so every rank stops at the same
 * piece; the takes' status is agreed at the end. Collective. */
static int stream_file(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int64_t piece, int64_t *buf,
                       stream *s, cc_result *r)
{
    int64_t maxp = 0, lo, len;
    int rc = agree_pieces(comm, first, count, piece, &maxp);
    read_progress pr = {g5_now(), g5_now(), 1};

    r->npieces = maxp;
    for (int64_t k = 0; k < maxp && rc == G5_OK; k++) {
        const double t0 = g5_now();
        rc = read_piece(e, first, count, piece, k, buf, &lo, &len);
        r->t_read_io += g5_now() - t0;
        if (rc == G5_OK)
            take_piece(s, buf, len, lo);
        progress_piece(&pr, k, maxp, first, count, piece);
    }
    if (rc != G5_OK)
        return rc;  /* already agreed by the read */
    return g5_agree(comm, s->rc);
}

/* The duplicate count's finish. It reads the slab only when the pieces
 * did not fill the regions as sized (a region overflowed); then each rank
 * that needs it reads its slab again, whole (the others make the same
 * collective reads of nothing). *reread: 1 when it did. Collective. */
static int finish_duplicates(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, int64_t piece,
                             cc_dup *d, int64_t *distinct, int *reread)
{
    int need = cc_dup_needs_slab(d, count), any = 0, rc = G5_OK;
    int64_t *slab = NULL, none[2];

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
            rc = read_slab_pieces(comm, e, need ? first : 0, need ? count : 0, need ? slab : none, piece);
    }
    if (rc == G5_OK)
        rc = g5_agree(comm, cc_dup_finish(comm, d, slab, count, distinct));
    free(slab);
    return rc;
}

/* Where a rank's slab comes from: the rows [first, first + count) of the
 * edges file e, or (e NULL) edges[count][2] in memory, the first being
 * tuple first of the list. */
typedef struct slab_source {
    io_edges *e;
    const int64_t *edges;
    int64_t first, count;
} slab_source;

/* The whole computation over ranks from either source. Collective. */
static int compute(MPI_Comm comm, int64_t n, const slab_source *src, const cc_opts *opts, cc_result **out)
{
    const cc_opts o = opts ? *opts : (cc_opts){0};
    const int nt = o.nthreads > 0 ? o.nthreads : omp_get_max_threads();
    const int64_t count = src->count, piece = src->e ? piece_rows_of(src->e, o.piece_rows) : count;
    const int64_t rows = count < piece ? count : piece;
    cc_result *r = NULL;
    stream s;
    int64_t *buf = NULL, counts[2] = {0, 0}, distinct = 0;
    int rc;
    double t;

    memset(&s, 0, sizeof s);
    *out = NULL;
    rc = result_begin(comm, n, count, &o, &r);
    if (rc != G5_OK)
        return rc;
    if (src->e) {
        buf = g5_malloc((size_t)(rows > 0 ? rows : 1) * 16, "components: piece buffer");
        rc = buf ? G5_OK : G5_ERR_NOMEM;
    }
    rc = g5_agree(comm, rc);
    if (rc == G5_OK)
        rc = stream_begin(comm, n, count, nt, !o.labels_only, r, &s);
    if (rc != G5_OK)
        goto out;
    t = g5_now();
    if (src->e) {
        rc = stream_file(comm, src->e, src->first, count, piece, buf, &s, r);
    } else {
        take_slab(&s, n, src->edges, count, src->first);
        rc = g5_agree(comm, s.rc);
    }
    r->t_read = g5_now() - t;
    r->t_link = s.t_link;
    r->t_hash = s.t_hash;
    free(buf);
    buf = NULL;
    if (rc == G5_OK)
        rc = stream_end(comm, rc, &s, &o, r, counts);
    if (rc == G5_OK && !o.labels_only) {
        t = g5_now();
        if (src->e)
            rc = finish_duplicates(comm, src->e, src->first, count, piece, s.d, &distinct, &r->reread);
        else
            rc = g5_agree(comm, cc_dup_finish(comm, s.d, src->edges, count, &distinct));
        r->t_distinct = g5_now() - t;
    }
    if (rc == G5_OK && !o.labels_only)
        cc_stats_fill(&r->meta, r->ncomp, r->comp_vertices, r->comp_edges, counts[0], counts[1], distinct);
out:
    free(buf);
    stream_free(&s);
    if (rc != G5_OK)
        cc_result_free(&r);
    *out = r;
    return rc;
}

int cc_compute_file(MPI_Comm comm, io_edges *e, int64_t first, int64_t count, const cc_opts *opts,
                    cc_result **out)
{
    const slab_source src = {e, NULL, first, count};
    return compute(comm, io_edges_get_meta(e)->nvertices, &src, opts, out);
}

int cc_compute(MPI_Comm comm, int64_t n, const int64_t *edges, int64_t count, int64_t first_index,
               const cc_opts *opts, cc_result **out)
{
    const slab_source src = {NULL, edges, first_index, count};
    return compute(comm, n, &src, opts, out);
}
