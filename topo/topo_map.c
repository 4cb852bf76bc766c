/* SPDX-License-Identifier: MIT */
/*
 * topo_map.c - rank-to-node maps: by a ranks-per-node count (emulating
 * nodes on one machine: rank r on node r / K in walk order, so consecutive
 * ranks share a node and then a leaf switch), and by processor name on a
 * real cluster (MPI_Get_processor_name looked up in the node table; the
 * short name before the first '.' is tried when the full name is absent,
 * since Slurm files usually hold short host names).
 */
#include "topo.h"
#include "topo_internal.h"
#include "common.h"

#include <string.h>

int topo_map_ranks_per_node(const topo *t, int nranks, int ranks_per_node, int *rank_node)
{
    int need;
    if (!t || !rank_node)
        return g5_error(G5_ERR_ARG, "topo_map_ranks_per_node: NULL argument");
    if (nranks < 1)
        return g5_error(G5_ERR_TOPO, "%s: %d ranks: need at least one", t->source, nranks);
    if (ranks_per_node < 1)
        return g5_error(G5_ERR_TOPO, "%s: ranks per node must be at least 1, got %d", t->source,
                        ranks_per_node);
    if (nranks % ranks_per_node != 0)
        return g5_error(G5_ERR_TOPO, "%s: %d ranks is not a multiple of %d ranks per node",
                        t->source, nranks, ranks_per_node);
    need = nranks / ranks_per_node;
    if (need > t->nnodes)
        return g5_error(G5_ERR_TOPO, "%s: %d ranks at %d per node need %d nodes, the topology "
                        "has only %d", t->source, nranks, ranks_per_node, need, t->nnodes);
    for (int r = 0; r < nranks; r++)
        rank_node[r] = r / ranks_per_node;
    return G5_OK;
}

int topo_map_ranks_by_name(const topo *t, MPI_Comm comm, int *rank_node)
{
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0, rank, node = -1, rc = G5_OK;

    MPI_Comm_rank(comm, &rank);
    if (!t || !rank_node) {
        rc = g5_error(G5_ERR_ARG, "topo_map_ranks_by_name: NULL argument on rank %d", rank);
    } else if (MPI_Get_processor_name(host, &len) != MPI_SUCCESS) {
        rc = g5_error(G5_ERR_MPI, "rank %d: MPI_Get_processor_name failed", rank);
    } else {
        host[len] = '\0';
        node = topo_node_index(t, host);
        if (node < 0) {
            char *dot = strchr(host, '.');
            if (dot) {
                *dot = '\0';
                node = topo_node_index(t, host);
                *dot = '.';
            }
        }
        if (node < 0)
            rc = g5_error(G5_ERR_TOPO, "%s: host '%s' (rank %d) is not a node of the topology",
                          t->source, host, rank);
    }
    rc = g5_agree(comm, rc);
    if (rc != G5_OK)
        return rc;
    if (MPI_Allgather(&node, 1, MPI_INT, rank_node, 1, MPI_INT, comm) != MPI_SUCCESS)
        rc = g5_error(G5_ERR_MPI, "%s: MPI_Allgather of the rank-to-node map failed", t->source);
    return g5_agree(comm, rc);
}

int topo_hop_matrix(const topo *t, const int *nodes, int n, int **out)
{
    int *h = g5_malloc((size_t)n * (size_t)n * sizeof(int), "topology: hop matrix");
    *out = h;
    if (!h)
        return G5_ERR_NOMEM;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            h[(size_t)a * n + b] = topo_hops_between(t, nodes ? nodes[a] : a, nodes ? nodes[b] : b);
    return G5_OK;
}

int topo_map_ranks(const topo *t, MPI_Comm comm, int nranks, int ranks_per_node, int *rank_node)
{
    if (ranks_per_node > 0)
        return g5_agree(comm, topo_map_ranks_per_node(t, nranks, ranks_per_node, rank_node));
    return topo_map_ranks_by_name(t, comm, rank_node);
}
