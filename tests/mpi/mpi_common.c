/* SPDX-License-Identifier: MIT */
/* mpi_common.c - g5_agree across ranks: one failing rank's status and
 * message reach every rank, and no rank hangs; the counted all-to-all
 * exchange (g5_exchange_counts/_data): records arrive from every rank in
 * rank order, the reply goes back along the reverse pattern, and one
 * rank's failure before or between the two steps is every rank's. */
#include "common.h"
#include "mpitest.h"

#include <stdlib.h>
#include <string.h>

static int agree_ok_when_all_ok(void)
{
    int ok = 1;
    g5_error_clear();
    MT_CHECK(g5_agree(MPI_COMM_WORLD, G5_OK) == G5_OK, "all ranks ok must agree on ok");
    return ok;
}

static int agree_spreads_one_ranks_failure(void)
{
    int ok = 1, rank, size, st = G5_OK, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    g5_error_clear();
    if (rank == size - 1)
        st = g5_error(G5_ERR_IO, "slab of rank %d cannot be written", rank);
    rc = g5_agree(MPI_COMM_WORLD, st);
    MT_CHECK(rc == G5_ERR_IO, "expected G5_ERR_IO on every rank, got %d", rc);
    char want[64];
    snprintf(want, sizeof want, "slab of rank %d cannot be written", size - 1);
    MT_CHECK(strcmp(g5_error_msg(), want) == 0, "message '%s' should be '%s'", g5_error_msg(), want);
    return ok;
}

static int agree_picks_most_negative_status(void)
{
    int ok = 1, rank, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int st = rank % 2 == 0 ? g5_error(G5_ERR_ARG, "arg") : g5_error(G5_ERR_FORMAT, "format");
    rc = g5_agree(MPI_COMM_WORLD, st);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MT_CHECK(rc == (size > 1 ? G5_ERR_FORMAT : G5_ERR_ARG), "got %d", rc);
    return ok;
}

/* Rank r sends r + d + 1 records (r, d, k) to rank d; pairs of int64 as one
 * record type. */
static int exchange_delivers_in_rank_order_and_replies(void)
{
    int ok = 1, me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int sc[P], sd[P], rc[P], rd[P];
    int64_t n = 0, nrecv = -1;
    for (int d = 0; d < P; d++) {
        sc[d] = me + d + 1;
        sd[d] = (int)n;
        n += sc[d];
    }
    int64_t *send = malloc((size_t)n * 2 * sizeof *send), *back = malloc((size_t)n * 2 * sizeof *back);
    for (int d = 0, j = 0; d < P; d++)
        for (int k = 0; k < sc[d]; k++, j++) {
            send[2 * j] = me * 1000 + d;
            send[2 * j + 1] = k;
        }
    int st = g5_exchange_counts(MPI_COMM_WORLD, G5_OK, sc, rc, rd, &nrecv, "test");
    MT_CHECK(st == G5_OK, "counts: status %d", st);
    int64_t want = 0;
    for (int r = 0; r < P; r++) {
        MT_CHECK(rc[r] == r + me + 1 && rd[r] == want, "from rank %d: %d at %d, want %lld at %lld",
                 r, rc[r], rd[r], (long long)(r + me + 1), (long long)want);
        want += r + me + 1;
    }
    MT_CHECK(nrecv == want, "received %lld, want %lld", (long long)nrecv, (long long)want);
    int64_t *recv = malloc((size_t)(nrecv ? nrecv : 1) * 2 * sizeof *recv);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT64_T, &pair);
    MPI_Type_commit(&pair);
    st = g5_exchange_data(MPI_COMM_WORLD, G5_OK, pair, send, sc, sd, recv, rc, rd, "test");
    MT_CHECK(st == G5_OK, "data: status %d", st);
    int good = 1;
    for (int r = 0, j = 0; r < P; r++)
        for (int k = 0; k < rc[r]; k++, j++)
            good &= recv[2 * j] == r * 1000 + me && recv[2 * j + 1] == k;
    MT_CHECK(good, "records arrive grouped by source in rank order, in send order");
    /* the reply: every record back to its sender, unchanged */
    st = g5_exchange_data(MPI_COMM_WORLD, G5_OK, pair, recv, rc, rd, back, sc, sd, "test");
    MT_CHECK(st == G5_OK && memcmp(back, send, (size_t)n * 2 * sizeof *send) == 0,
             "the reverse pattern returns every record to its sender (status %d)", st);
    MPI_Type_free(&pair);
    free(send);
    free(back);
    free(recv);
    return ok;
}

/* The last rank fails before the exchange (it sends nothing) or between
 * the steps (no room for what arrives): every rank returns its status and
 * message, and nobody waits in a collective. */
static int exchange_spreads_one_ranks_failure(void)
{
    int ok = 1, me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int sc[P], sd[P], rc[P], rd[P];
    int64_t send[1], recv[1], nrecv;
    for (int when = 0; when < 2; when++) {
        for (int d = 0; d < P; d++) {
            sc[d] = 0;
            sd[d] = 0;
        }
        g5_error_clear();
        int st = G5_OK;
        if (me == P - 1 && when == 0) {
            st = g5_error(G5_ERR_NOMEM, "rank %d: no memory before", me);
            sc[0] = 5; /* never read: a failed rank sends nothing */
        }
        st = g5_exchange_counts(MPI_COMM_WORLD, st, sc, rc, rd, &nrecv, "test");
        MT_CHECK(me == P - 1 && when == 0 ? st == G5_ERR_NOMEM && sc[0] == 0 : st == G5_OK,
                 "case %d: counts status %d", when, st);
        if (me == P - 1 && when == 1)
            st = g5_error(G5_ERR_NOMEM, "rank %d: no room", me);
        st = g5_exchange_data(MPI_COMM_WORLD, st, MPI_INT64_T, send, sc, sd, recv, rc, rd, "test");
        char want[64];
        snprintf(want, sizeof want, when ? "rank %d: no room" : "rank %d: no memory before", P - 1);
        MT_CHECK(st == G5_ERR_NOMEM, "case %d: every rank returns G5_ERR_NOMEM, got %d", when, st);
        MT_CHECK(strcmp(g5_error_msg(), want) == 0, "case %d: message '%s', want '%s'", when,
                 g5_error_msg(), want);
    }
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MT_RUN(agree_ok_when_all_ok);
    MT_RUN(agree_spreads_one_ranks_failure);
    MT_RUN(agree_picks_most_negative_status);
    MT_RUN(exchange_delivers_in_rank_order_and_replies);
    MT_RUN(exchange_spreads_one_ranks_failure);
    return mt_finish();
}
