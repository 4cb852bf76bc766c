/* SPDX-License-Identifier: MIT */
/*
 * mpi_validate_keys.c - the validators (kernels/validate_core.c) at 1, 2
 * and 4 ranks on the in-memory graph of validate_testgraph.h: a tree as
 * deep as the graph, and several keys validated in one pass over the edges
 * giving each key what one-key validation gives. Correct trees and planted
 * errors: mpi_validate.c.
 */
#include "validate_testgraph.h"

/* ---- a deep tree ------------------------------------------------------------ */
/* A path through all N vertices (scrambled ids, so the chain crosses the
 * ranks at almost every step) is a BFS tree of depth N - 1 and, with unit
 * weights, an SSSP tree: about log2(N) jump rounds, each in batches of 5
 * words, with every ancestor answered by another rank or in place from the
 * own bucket. At 1, 2 and 3 threads: both trees pass with N - 1 edges; an
 * extra edge between depths 50 and 53 is caught with the depths in the
 * message, so the depths rebuilt by the jump are exact; a cycle at the far
 * end is reported with the same message as at one thread. */
static int t_deep_path_tree(void)
{
    int ok = 1, keep = omp_get_max_threads();
    static int64_t saved_e[MAXE][2];
    static float saved_w[MAXE];
    int saved_m = M;
    int64_t saved_root = ROOT;
    memcpy(saved_e, E, sizeof E);
    memcpy(saved_w, W, sizeof W);
    M = 0;
    int64_t path[N];
    float dist[N];
    for (int64_t i = 0; i < N; i++) {
        path[perm(i)] = i ? perm(i - 1) : perm(0);
        dist[perm(i)] = (float)i;
        if (i)
            add(perm(i - 1), perm(i), 1.0f);
    }
    ROOT = perm(0);
    int64_t cyc[N];
    memcpy(cyc, path, sizeof cyc);
    cyc[perm(90)] = perm(95);           /* 90 -> 95 -> ... -> 90 */
    char msg1[1024] = "";
    for (int nt = 1; nt <= 3; nt++) {
        omp_set_num_threads(nt);
        for (int c = 0; c < 2; c++) {
            chunk = c ? 1 << 20 : 5;
            int64_t nedge = -1;
            int rc = run_validate(path, NULL, &nedge, -1);
            MT_CHECK(rc == G5_OK && nedge == N - 1, "%d threads, chunk %lld: BFS status %d, "
                     "nedge %lld (%s)", nt, (long long)chunk, rc, (long long)nedge, g5_error_msg());
            nedge = -1;
            rc = run_validate(path, dist, &nedge, -1);
            MT_CHECK(rc == G5_OK && nedge == N - 1, "%d threads, chunk %lld: SSSP status %d, "
                     "nedge %lld (%s)", nt, (long long)chunk, rc, (long long)nedge, g5_error_msg());
            add(perm(50), perm(53), 1.0f);
            rc = run_validate(path, NULL, NULL, -1);
            char want[128];
            snprintf(want, sizeof want, "check 'edge levels differ by at most one' failed: edge "
                     "(%lld, %lld) joins levels 50 and 53", (long long)perm(50), (long long)perm(53));
            MT_CHECK(rc == G5_ERR_VALIDATE && strstr(g5_error_msg(), want), "%d threads, chunk "
                     "%lld: '%s', expected '%s'", nt, (long long)chunk, g5_error_msg(), want);
            M--;
            rc = run_validate(cyc, NULL, NULL, -1);
            MT_CHECK(rc == G5_ERR_VALIDATE && strstr(g5_error_msg(), "parent chain reaches root"),
                     "%d threads, chunk %lld: cycle: status %d, '%s'", nt, (long long)chunk, rc,
                     g5_error_msg());
            if (nt == 1 && c == 0)
                snprintf(msg1, sizeof msg1, "%s", g5_error_msg());
            MT_CHECK(strcmp(g5_error_msg(), msg1) == 0, "%d threads, chunk %lld: cycle: '%s', "
                     "at 1 thread '%s'", nt, (long long)chunk, g5_error_msg(), msg1);
        }
    }
    chunk = 5;
    omp_set_num_threads(keep);
    memcpy(E, saved_e, sizeof E);
    memcpy(W, saved_w, sizeof W);
    M = saved_m;
    ROOT = saved_root;
    return ok;
}

/* ---- several keys per pass ---------------------------------------------------- */
#define BK 6
/* The keys of a batch: trees of four roots (the big component, the small
 * one, a vertex with only a self-loop, another of the big component), and
 * two of them again with a planted fault: key 4 a cycle (found before the
 * edge pass) and key 5 a wrong tree edge (BFS) or a distance too long
 * (SSSP), found by the edge pass. */
static int64_t bk_root[BK], bk_parent[BK][N];
static float bk_dist[BK][N];

static void batch_keys(int sssp)
{
    const int64_t roots[4] = {perm(0), perm(75), perm(95), perm(10)};
    int64_t keep = ROOT;
    for (int k = 0; k < 4; k++) {
        ROOT = roots[k];
        serial_trees();
        bk_root[k] = ROOT;
        memcpy(bk_parent[k], sssp ? sp_parent : bfs_parent, sizeof bk_parent[k]);
        memcpy(bk_dist[k], sp_dist, sizeof bk_dist[k]);
    }
    ROOT = keep;
    serial_trees();
    for (int k = 4; k < BK; k++) {
        bk_root[k] = ROOT;
        memcpy(bk_parent[k], sssp ? sp_parent : bfs_parent, sizeof bk_parent[k]);
        memcpy(bk_dist[k], sp_dist, sizeof bk_dist[k]);
    }
    bk_parent[4][perm(10)] = perm(10);                       /* a cycle */
    if (sssp) {
        bk_dist[5][sssp_leaf()] += 0.5f;                     /* too long */
    } else {
        for (int64_t x = 0; x < N; x++)                      /* a non-edge parent */
            if (bfs_depth[x] >= 2) {
                for (int64_t y = 0; y < N; y++)
                    if (y != bfs_parent[x] && bfs_depth[y] == bfs_depth[x] - 1 && !adjacent(x, y)) {
                        bk_parent[5][x] = y;
                        break;
                    }
                if (bk_parent[5][x] != bfs_parent[x])
                    break;
            }
    }
}

/* Validate the keys [0, BK) in batches of kmax; per key the status, the
 * message and the edge count. */
static int run_batch(int sssp, int kmax, int *st, char msg[][1024], int64_t *nedge)
{
    int rank, p, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int64_t first, count;
    g5_range_split(N, rank, p, &first, &count);
    memsrc src = {.fail_rank = -1};
    kern_edge_reader rd = {.nvertices = N, .nedges = M, .chunk = chunk, .read = mem_read, .ctx = &src};
    kern_vbatch *b = NULL;
    if ((rc = kern_vbatch_create(MPI_COMM_WORLD, N, kmax, sssp, &b)) != G5_OK)
        return rc;
    for (int lo = 0; lo < BK && rc == G5_OK; lo += kmax) {
        int hi = lo + kmax < BK ? lo + kmax : BK;
        for (int k = lo; k < hi && rc == G5_OK; k++)
            rc = kern_vbatch_add(b, bk_root[k], bk_parent[k] + first,
                                 sssp ? bk_dist[k] + first : NULL, NULL, 0);
        if (rc == G5_OK && kern_vbatch_keys(b) != hi - lo)
            rc = G5_ERR_ARG;
        if (rc == G5_OK)
            rc = kern_vbatch_check(b, &rd, st + lo, nedge + lo);
        for (int k = lo; k < hi && rc == G5_OK; k++)
            snprintf(msg[k], sizeof msg[k], "%s", kern_vbatch_message(b, k - lo));
    }
    kern_vbatch_free(&b);
    return rc;
}

/* A batch gives every key the status, message and edge count that one-key
 * validation gives; the planted faults of keys 4 and 5 are reported for
 * those keys alone (named by their root), the other keys pass; batches of
 * 1, 4 (a full batch, then one of 2) and 6 keys; both chunk sizes. */
static int t_batch_equals_one_key_validation(void)
{
    int ok = 1;
    int64_t keep = ROOT;
    for (int sssp = 0; sssp < 2; sssp++) {
        batch_keys(sssp);
        for (int c = 0; c < 2; c++) {
            chunk = c ? 1 << 20 : 5;
            int rc1[BK];
            int64_t n1[BK];
            static char m1[BK][1024], mb[BK][1024];
            for (int k = 0; k < BK; k++) {
                ROOT = bk_root[k];
                n1[k] = -1;
                rc1[k] = run_validate(bk_parent[k], sssp ? bk_dist[k] : NULL, &n1[k], -1);
                snprintf(m1[k], sizeof m1[k], "%s", rc1[k] == G5_OK ? "" : g5_error_msg());
                MT_CHECK((rc1[k] == G5_OK) == (k < 4), "%s key %d: one-key status %d (%s)",
                         sssp ? "SSSP" : "BFS", k, rc1[k], g5_error_msg());
            }
            ROOT = keep;
            MT_CHECK(n1[0] == serial_teps_count(bfs_parent) && n1[1] > 0 && n1[2] == 0,
                     "one-key edge counts %lld %lld %lld", (long long)n1[0], (long long)n1[1],
                     (long long)n1[2]);
            const int sizes[3] = {1, 4, BK};
            for (int z = 0; z < 3; z++) {
                int st[BK];
                int64_t nb[BK];
                for (int k = 0; k < BK; k++) {
                    st[k] = -99;
                    nb[k] = -7;
                    mb[k][0] = '\0';
                }
                int rc = run_batch(sssp, sizes[z], st, mb, nb);
                MT_CHECK(rc == G5_OK, "%s batch of %d: %s", sssp ? "SSSP" : "BFS", sizes[z],
                         g5_error_msg());
                for (int k = 0; k < BK; k++) {
                    MT_CHECK(st[k] == rc1[k] && strcmp(mb[k], m1[k]) == 0,
                             "%s batch of %d, chunk %lld, key %d: status %d '%s', one key %d '%s'",
                             sssp ? "SSSP" : "BFS", sizes[z], (long long)chunk, k, st[k], mb[k],
                             rc1[k], m1[k]);
                    MT_CHECK(rc1[k] != G5_OK ? nb[k] == -1 : nb[k] == n1[k],
                             "%s batch of %d, key %d: nedge %lld, one key %lld",
                             sssp ? "SSSP" : "BFS", sizes[z], k, (long long)nb[k], (long long)n1[k]);
                }
                char want[64];
                snprintf(want, sizeof want, "%s root %lld: check '", sssp ? "SSSP" : "BFS",
                         (long long)bk_root[4]);
                MT_CHECK(strncmp(mb[4], want, strlen(want)) == 0 && strstr(mb[4], "parent chain"),
                         "key 4: '%s'", mb[4]);
                MT_CHECK(strncmp(mb[5], want, strlen(want)) == 0
                         && strstr(mb[5], sssp ? "no edge shortens" : "tree edge is an input edge"),
                         "key 5: '%s'", mb[5]);
                /* the same messages on every rank */
                uint64_t h = 1469598103934665603ULL, h0;
                for (int k = 0; k < BK; k++)
                    for (const char *q = mb[k]; *q; q++)
                        h = (h ^ (unsigned char)*q) * 1099511628211ULL;
                h0 = h;
                MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
                MT_CHECK(h == h0, "batch of %d: ranks disagree on the messages", sizes[z]);
            }
        }
    }
    chunk = 5;
    ROOT = keep;
    serial_trees();
    return ok;
}

int main(int argc, char **argv)
{
    validate_test_init(&argc, &argv);
    MT_RUN(t_deep_path_tree);
    MT_RUN(t_batch_equals_one_key_validation);
    return mt_finish();
}
