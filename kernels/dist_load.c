/* SPDX-License-Identifier: MIT */
/*
 * dist_load.c - read a placement file (io.h: /new_label, /rank_offsets,
 * /rank_node, /node_hops) into a kern_dist. Every rank reads the whole
 * relabelling (untimed; 8 bytes per vertex while reading, 4 kept). /owner
 * is not used (the offsets say who owns a new label), but it is part of the
 * file: each rank reads its block of it and checks it against the
 * relabelling, so a damaged /owner is found like any other dataset.
 */
#include "io.h"
#include "kern_impl.h"

/* Collective. This rank's block of /owner agrees with the relabelling:
 * owner[v] is the rank whose [rank_offsets[r], rank_offsets[r+1]) holds
 * new_label[v], or -1 for a label past the active ones. */
static int check_owner(MPI_Comm comm, io_file *f, const char *path, int64_t n,
                       const int64_t *label, const int64_t *offsets, int P)
{
    int me, rc;
    int64_t first, count, dims[1] = {n};
    MPI_Comm_rank(comm, &me);
    rc = g5_agree(comm, io_dataset_check(f, "/owner", H5T_INTEGER, 4, 1, dims));
    if (rc != G5_OK)
        return rc;
    g5_range_split(n, me, P, &first, &count);
    int32_t *own = malloc((size_t)(count > 0 ? count : 1) * sizeof *own);
    rc = g5_agree(comm, own ? G5_OK : g5_error(G5_ERR_NOMEM, "%s: cannot allocate /owner", path));
    if (rc == G5_OK)
        rc = io_read_rows(f, "/owner", H5T_NATIVE_INT32, first, count, own);
    for (int64_t i = 0; rc == G5_OK && i < count; i++) {
        int64_t nl = label[first + i];
        int lo = 0, hi = P;     /* the r with offsets[r] <= nl < offsets[r+1] */
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (offsets[mid] <= nl) lo = mid; else hi = mid;
        }
        int want = nl >= offsets[P] || nl < offsets[0] ? -1 : lo;
        if (own[i] != want)
            rc = g5_error(G5_ERR_FORMAT, "%s: /owner[%lld] = %d, but new_label %lld lies with rank %d",
                          path, (long long)(first + i), own[i], (long long)nl, want);
    }
    free(own);
    return g5_agree(comm, rc);
}

int kern_dist_load_placement(MPI_Comm comm, const char *path, int64_t nvertices,
                             kern_dist **out, int **rank_node, int **node_hops,
                             int *nnodes)
{
    int P, rc;
    MPI_Comm_size(comm, &P);
    io_file *f = NULL;
    int64_t *label = NULL, *offsets = NULL, nranks = 0, nv = 0, dims[2];
    int *rn = NULL, *hops = NULL;
    *out = NULL;
    if (rank_node) *rank_node = NULL;
    if (node_hops) *node_hops = NULL;
    G5_TRY(io_file_open(comm, path, "g500-placement", 1, &f));
    G5_TRY(io_attr_read_int64(f, "/", "nranks", &nranks));
    G5_TRY(io_attr_read_int64(f, "/", "nvertices", &nv));
    if (nranks != P) {
        rc = g5_agree(comm, g5_error(G5_ERR_MISMATCH, "%s: placement for %lld ranks, run has %d",
                                     path, (long long)nranks, P));
        goto out;
    }
    if (nv != nvertices) {
        rc = g5_agree(comm, g5_error(G5_ERR_MISMATCH, "%s: placement for %lld vertices, edges "
                                     "file has %lld", path, (long long)nv, (long long)nvertices));
        goto out;
    }
    dims[0] = nvertices;
    G5_TRY(io_dataset_check(f, "/new_label", H5T_INTEGER, 8, 1, dims));
    dims[0] = P + 1;
    G5_TRY(io_dataset_check(f, "/rank_offsets", H5T_INTEGER, 8, 1, dims));
    dims[0] = P;
    G5_TRY(io_dataset_check(f, "/rank_node", H5T_INTEGER, 4, 1, dims));
    dims[0] = dims[1] = -1;
    G5_TRY(io_dataset_check(f, "/node_hops", H5T_INTEGER, 4, 2, dims));
    int nn = (int)dims[0];
    label = malloc((size_t)nvertices * sizeof(int64_t));
    offsets = malloc(((size_t)P + 1) * sizeof(int64_t));
    rn = malloc((size_t)P * sizeof(int));
    hops = malloc(((size_t)nn * nn + 1) * sizeof(int));
    rc = g5_agree(comm, label && offsets && rn && hops ? G5_OK
                  : g5_error(G5_ERR_NOMEM, "%s: cannot allocate the relabelling", path));
    if (rc) goto out;
    G5_TRY(io_read_rows(f, "/new_label", H5T_NATIVE_INT64, 0, nvertices, label));
    G5_TRY(io_read_rows(f, "/rank_offsets", H5T_NATIVE_INT64, 0, P + 1, offsets));
    G5_TRY(io_read_rows(f, "/rank_node", H5T_NATIVE_INT, 0, P, rn));
    G5_TRY(io_read_rows(f, "/node_hops", H5T_NATIVE_INT, 0, nn, hops));
    G5_TRY(check_owner(comm, f, path, nvertices, label, offsets, P));
    int bad = 0;
    for (int r = 0; r < P; r++) bad |= rn[r] < 0 || rn[r] >= nn;
    if (bad) {
        rc = g5_agree(comm, g5_error(G5_ERR_FORMAT, "%s: rank_node names a node outside "
                                     "node_hops (%d nodes)", path, nn));
        goto out;
    }
    G5_TRY(g5_agree(comm, kern_dist_create_placement(comm, nvertices, label, offsets, path, out)));
    if (rank_node) { *rank_node = rn; rn = NULL; }
    if (node_hops) { *node_hops = hops; hops = NULL; }
    if (nnodes) *nnodes = nn;
out:
    free(label); free(offsets); free(rn); free(hops);
    io_file_close(&f);
    return rc;
}
