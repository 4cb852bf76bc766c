/* SPDX-License-Identifier: MIT */
/*
 * part_exchange.c - record exchange and sample sort for the partitioner.
 *
 * px_exchange: the counted all-to-all of common.h (g5_exchange_counts and
 * g5_exchange_data) on records described by a contiguous datatype of
 * `width` int64, so counts are records, not bytes (callers bound records per round by PX_CHUNK).
 *
 * px_sort_pairs: sample sort by regular sampling (Shi & Schaeffer, "Parallel
 * sorting by regular sampling", JPDC 14(4), 1992): each process sorts its
 * records, contributes P-1 evenly spaced samples, every process sorts the
 * gathered samples and takes P-1 evenly spaced splitters, records are routed
 * to the process whose splitter interval holds them and sorted there. The
 * global order is the lexicographic order of (key, id), so it is the same
 * for any number of processes; only who holds which slice changes.
 */
#include "part_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

int px_exchange(MPI_Comm comm, int status, int width, const int64_t *sendcounts,
                const int64_t *sendbuf, int64_t **recvbuf, int64_t *nrecv,
                int64_t *recvcounts)
{
    int P, rc;
    int64_t stotal = 0;

    *recvbuf = NULL;
    *nrecv = 0;
    MPI_Comm_size(comm, &P);
    /* A rank that failed before the exchange, or cannot hold the counts,
     * must not leave the others waiting in MPI_Alltoall: agree first. */
    int *sc = g5_malloc(4 * (size_t)P * sizeof(int), "exchange counts");
    rc = g5_agree(comm, status != G5_OK ? status : sc ? G5_OK : G5_ERR_NOMEM);
    if (rc != G5_OK) {
        free(sc);
        return rc;
    }
    int *rcnt = sc + P, *sd = sc + 2 * P, *rd = sc + 3 * P;
    for (int p = 0; p < P; p++) {
        if (sendcounts[p] > INT_MAX || stotal + sendcounts[p] > INT_MAX) {
            rc = g5_error(G5_ERR_INTERNAL, "exchange: too many records in one round");
            break;
        }
        sc[p] = (int)sendcounts[p];
        sd[p] = (int)stotal;
        stotal += sendcounts[p];
    }
    int64_t total;
    rc = g5_exchange_counts(comm, rc, sc, rcnt, rd, &total, "exchange");
    if (recvcounts)
        for (int p = 0; p < P; p++)
            recvcounts[p] = rcnt[p];
    if (rc == G5_OK) {
        *recvbuf = g5_malloc((size_t)(total ? total : 1) * width * sizeof(int64_t), "exchange receive buffer");
        if (!*recvbuf)
            rc = G5_ERR_NOMEM;
    }
    MPI_Datatype rec;
    MPI_Type_contiguous(width, MPI_INT64_T, &rec);
    MPI_Type_commit(&rec);
    rc = g5_exchange_data(comm, rc, rec, sendbuf, sc, sd, *recvbuf, rcnt, rd, "exchange");
    MPI_Type_free(&rec);
    if (rc == G5_OK) {
        *nrecv = total;
    } else {
        free(*recvbuf);
        *recvbuf = NULL;
    }
    free(sc);
    return rc;
}

static int cmp2(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

void px_sort2(int64_t *recs, int64_t n)
{
    if (n > 1)
        qsort(recs, (size_t)n, 2 * sizeof(int64_t), cmp2);
}

static int less2(const int64_t *a, const int64_t *b)
{
    return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]);
}

int px_sort_pairs(MPI_Comm comm, int status, int64_t *recs, int64_t n, int64_t **sorted,
                  int64_t *nsorted, int64_t *first)
{
    int P, rc = G5_OK;
    int64_t ns = 0, *samples = NULL, *all = NULL, *split = NULL, *counts = NULL;
    int *scount = NULL, *sdisp = NULL;
    int64_t nall = 0;

    *sorted = NULL;
    *nsorted = 0;
    *first = 0;
    MPI_Comm_size(comm, &P);
    if (P == 1 && status != G5_OK)
        return status;
    if (status == G5_OK)
        px_sort2(recs, n);
    if (P == 1) {
        *sorted = g5_malloc((size_t)(n ? n : 1) * 2 * sizeof(int64_t), "sorted records");
        if (!*sorted)
            return G5_ERR_NOMEM;
        memcpy(*sorted, recs, (size_t)n * 2 * sizeof(int64_t));
        *nsorted = n;
        return G5_OK;
    }

    samples = g5_malloc((size_t)2 * P * sizeof(int64_t), "sort samples");
    scount = g5_malloc(2 * (size_t)P * sizeof(int), "sort sample counts");
    split = g5_malloc((size_t)2 * P * sizeof(int64_t), "sort splitters");
    counts = g5_calloc((size_t)P, sizeof(int64_t), "sort counts");
    /* The caller's failure (recs then unread) or ours, agreed before the
     * first collective. */
    if (status == G5_OK && !(samples && scount && split && counts))
        status = G5_ERR_NOMEM;
    rc = g5_agree(comm, status);
    if (rc != G5_OK)
        goto out;
    sdisp = scount + P;
    if (n > 0)
        for (int i = 1; i < P; i++) {
            int64_t k = (int64_t)i * n / P;
            samples[2 * ns] = recs[2 * k];
            samples[2 * ns + 1] = recs[2 * k + 1];
            ns++;
        }
    {
        int mine = (int)(2 * ns);
        if (MPI_Allgather(&mine, 1, MPI_INT, scount, 1, MPI_INT, comm) != MPI_SUCCESS)
            rc = g5_error(G5_ERR_MPI, "sort: MPI_Allgather failed");
    }
    for (int p = 0; rc == G5_OK && p < P; p++) {
        sdisp[p] = (int)nall;
        nall += scount[p];
    }
    if (rc == G5_OK) {
        all = g5_malloc((size_t)(nall ? nall : 1) * sizeof(int64_t), "sort samples");
        if (!all)
            rc = G5_ERR_NOMEM;
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    if (MPI_Allgatherv(samples, (int)(2 * ns), MPI_INT64_T, all, scount, sdisp,
                       MPI_INT64_T, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "sort: MPI_Allgatherv failed");
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        goto out;
    nall /= 2;
    px_sort2(all, nall);
    /* Splitter i (1..P-1) bounds process i-1's interval from above. */
    {
        int64_t j = 0;
        int nsplit = nall > 0 ? P - 1 : 0;
        int64_t *sendbuf = NULL, *recvbuf = NULL, nrecv = 0;
        for (int i = 0; i < nsplit; i++) {
            int64_t k = (int64_t)(i + 1) * nall / P;
            split[2 * i] = all[2 * k];
            split[2 * i + 1] = all[2 * k + 1];
        }
        for (int64_t r = 0; r < n; r++) {
            while (j < nsplit && !less2(&recs[2 * r], &split[2 * j]))
                j++;
            counts[j]++;
        }
        /* recs is sorted, so grouping by destination keeps it in place. */
        sendbuf = recs;
        rc = px_exchange(comm, G5_OK, 2, counts, sendbuf, &recvbuf, &nrecv, NULL);
        if (rc != G5_OK)
            goto out;
        px_sort2(recvbuf, nrecv);
        *sorted = recvbuf;
        *nsorted = nrecv;
    }
    {
        int64_t mine = *nsorted, before = 0;
        if (MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
            rc = g5_error(G5_ERR_MPI, "sort: MPI_Exscan failed");
        rc = g5_agree(comm, rc);
        if (rc != G5_OK)
            goto out;
        int me;
        MPI_Comm_rank(comm, &me);
        *first = me == 0 ? 0 : before;
    }
out:
    if (rc != G5_OK) {
        free(*sorted);
        *sorted = NULL;
        *nsorted = 0;
    }
    free(samples);
    free(scount);
    free(split);
    free(counts);
    free(all);
    return rc;
}
