/* SPDX-License-Identifier: MIT */
/*
 * mpi_topo.c - topo_map_ranks_by_name across ranks. On one machine every
 * rank has the same processor name, so rank 0 writes a topology naming this
 * host (read at run time) among made-up nodes; every rank loads it and all
 * must map to that node, with identical maps. A file without this host must
 * give the same error (naming the host) on every rank, and so must a case
 * where only rank 0's tree lacks the host: the failure is agreed, not hung.
 */
#include "common.h"
#include "mpitest.h"
#include "topo.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char host[MPI_MAX_PROCESSOR_NAME + 1];

/* Rank 0 writes text to a temporary file; every rank loads it. */
static int load_shared(const char *text, topo **t)
{
    char path[64] = "/tmp/g500-mpi-topo-XXXXXX";
    int rank, rc, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        int fd = mkstemp(path);
        ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
        if (fd >= 0)
            close(fd);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!ok)
        return G5_ERR_IO;
    rc = g5_agree(MPI_COMM_WORLD, topo_load(path, t));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    return rc;
}

static int maps_every_rank_to_this_host(void)
{
    int ok = 1, size, rc, *map;
    char text[512];
    topo *t = NULL;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(text, sizeof text,
             "# written by mpi_topo\nSwitchName=l0 Nodes=other[1-3]\n"
             "SwitchName=l1 Nodes=zz1,%s,zz2\nSwitchName=top Switches=l[0-1]\n", host);
    rc = load_shared(text, &t);
    MT_CHECK(rc == G5_OK, "load: %s", g5_error_msg());
    if (rc != G5_OK)
        return 0;
    map = calloc((size_t)size, sizeof *map);
    rc = topo_map_ranks_by_name(t, MPI_COMM_WORLD, map);
    MT_CHECK(rc == G5_OK, "map: %s", g5_error_msg());
    for (int r = 0; r < size && rc == G5_OK; r++)
        MT_CHECK(map[r] == 4, "rank %d on node %d, expected 4 (%s)", r, map[r], host);
    MT_CHECK(topo_node_index(t, host) == 4, "host is node 4");
    free(map);
    topo_free(&t);
    return ok;
}

static int missing_host_fails_on_every_rank(void)
{
    int ok = 1, size, rc, *map, len, same;
    topo *t = NULL;
    char msg[1024];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rc = load_shared("SwitchName=l0 Nodes=nothere[0-3]\n", &t);
    MT_CHECK(rc == G5_OK, "load: %s", g5_error_msg());
    if (rc != G5_OK)
        return 0;
    map = calloc((size_t)size, sizeof *map);
    rc = topo_map_ranks_by_name(t, MPI_COMM_WORLD, map);
    MT_CHECK(rc == G5_ERR_TOPO, "expected G5_ERR_TOPO, got %d", rc);
    MT_CHECK(strstr(g5_error_msg(), host) != NULL, "message names the host: %s", g5_error_msg());
    MT_CHECK(strstr(g5_error_msg(), "is not a node of the topology") != NULL, "%s", g5_error_msg());
    /* the same sentence on every rank */
    snprintf(msg, sizeof msg, "%s", g5_error_msg());
    len = (int)strlen(msg);
    {
        char root_msg[1024];
        memcpy(root_msg, msg, sizeof msg);
        MPI_Bcast(root_msg, sizeof root_msg, MPI_CHAR, 0, MPI_COMM_WORLD);
        same = strcmp(root_msg, msg) == 0;
    }
    MT_CHECK(same && len > 0, "message differs from rank 0's: %s", msg);
    free(map);
    topo_free(&t);
    return ok;
}

static int one_failing_rank_fails_all(void)
{
    int ok = 1, size, rank, rc, *map;
    char text[512];
    topo *t = NULL;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* each rank parses its own text: only rank 0's lacks this host */
    if (rank == 0)
        snprintf(text, sizeof text, "SwitchName=l0 Nodes=a,b\n");
    else
        snprintf(text, sizeof text, "SwitchName=l0 Nodes=a,%s\n", host);
    rc = topo_parse(text, rank == 0 ? "rank0.conf" : "other.conf", &t);
    MT_CHECK(rc == G5_OK, "parse: %s", g5_error_msg());
    map = calloc((size_t)size, sizeof *map);
    rc = topo_map_ranks_by_name(t, MPI_COMM_WORLD, map);
    MT_CHECK(rc == G5_ERR_TOPO, "rank %d: expected the agreed error, got %d", rank, rc);
    MT_CHECK(strstr(g5_error_msg(), "rank0.conf") != NULL && strstr(g5_error_msg(), "(rank 0)"),
             "rank 0's message reaches every rank: %s", g5_error_msg());
    free(map);
    topo_free(&t);
    return ok;
}

int main(int argc, char **argv)
{
    int len;
    MPI_Init(&argc, &argv);
    MPI_Get_processor_name(host, &len);
    host[len] = '\0';
    MT_RUN(maps_every_rank_to_this_host);
    MT_RUN(missing_host_fails_on_every_rank);
    MT_RUN(one_failing_rank_fails_all);
    return mt_finish();
}
