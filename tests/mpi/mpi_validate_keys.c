/* SPDX-License-Identifier: MIT */
/*
 * mpi_validate_keys.c - the validators (kernels/validate_core.c) at 1, 2
 * and 4 ranks on the in-memory graph of validate_testgraph.h: a tree as
 * deep as the graph, and several keys validated in one pass over the edges
 * giving each key what one-key validation gives, also when the keys wait
 * in a scratch file between their add and their check (a parking batch),
 * and an SSSP tree of more zero-weight tree edges than the one-round proof
 * of its chains holds.
 * Correct trees and planted errors: mpi_validate.c.
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
    static saved_graph saved;
    graph_save(&saved);
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
    graph_restore(&saved);
    return ok;
}

/* ---- several keys per pass ---------------------------------------------------- */
#define BK 19
/* The keys of a batch: trees of four roots (the big component, the small
 * one, a vertex with only a self-loop, another of the big component) and
 * copies of them, some with a planted fault: key 4 a cycle (found before
 * the edge pass); keys 5 and 13 a wrong tree edge (BFS) or a distance too
 * long (SSSP: a leaf that is the second endpoint of every edge it is on,
 * and one that is the first, so each side of the relaxation test is
 * needed), and key 18 a leaf left unreached (SSSP) or a vertex hung below
 * a deeper neighbour (BFS), found by the edge pass. With
 * batches of 8 keys and more, the faults sit in different lanes of the
 * eight-key groups of the pass (validate_edges.c), 18 in the last,
 * overlapping group of a batch of 19. */
static int64_t bk_root[BK], bk_parent[BK][N];
static float bk_dist[BK][N];

static int bk_faulty(int k) { return k == 4 || k == 5 || k == 13 || k == 18; }

/* Two leaves of the SSSP tree, not adjacent, with every edge they are on
 * turned so that x[0] is its second endpoint and x[1] its first (the
 * graph stays the same). 0 when there are no such leaves. */
static int sssp_leaves_turned(int64_t x[2])
{
    x[0] = x[1] = -1;
    for (int64_t v = 0; v < N && x[1] < 0; v++) {
        if (v == ROOT || sp_parent[v] < 0 || has_child(sp_parent, v))
            continue;
        if (x[0] < 0)
            x[0] = v;
        else if (!adjacent(v, x[0]))
            x[1] = v;
    }
    if (x[1] < 0)
        return 0;
    for (int i = 0; i < M; i++)
        for (int e = 0; e < 2; e++)
            if (E[i][e] == x[e] && E[i][1 - e] != x[e]) {
                E[i][e] = E[i][1 - e];
                E[i][1 - e] = x[e];
            }
    return 1;
}

/* 1 when every fault could be planted. */
static int batch_keys(int sssp)
{
    const int64_t roots[4] = {perm(0), perm(75), perm(95), perm(10)};
    int64_t keep = ROOT;
    for (int k = 0; k < BK; k++) {
        ROOT = k < 4 || (k > 5 && !bk_faulty(k)) ? roots[k % 4] : keep;
        serial_trees();
        bk_root[k] = ROOT;
        memcpy(bk_parent[k], sssp ? sp_parent : bfs_parent, sizeof bk_parent[k]);
        memcpy(bk_dist[k], sp_dist, sizeof bk_dist[k]);
    }
    ROOT = keep;
    serial_trees();
    bk_parent[4][perm(10)] = perm(10);                       /* a cycle */
    int64_t leaf[2];
    if (sssp) {
        if (!sssp_leaves_turned(leaf))
            return 0;
        bk_dist[5][leaf[0]] += 0.5f;                         /* too long */
        bk_dist[13][leaf[1]] += 0.5f;
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
    if (!sssp)
        memcpy(bk_parent[13], bk_parent[5], sizeof bk_parent[13]);
    if (sssp) {                                              /* a leaf, unreached */
        for (int64_t x = 0; x < N; x++)
            if (x != ROOT && sp_parent[x] >= 0 && !has_child(sp_parent, x)) {
                bk_parent[18][x] = -1;
                bk_dist[18][x] = INFINITY;
                return 1;
            }
        return 0;
    }
    /* BFS: a vertex hung below a deeper neighbour outside its subtree, so
     * that the edge to its old parent spans three levels or more */
    for (int64_t x = 0; x < N; x++)
        for (int64_t y = 0; bfs_depth[x] >= 1 && y < N; y++) {
            if (!adjacent(x, y) || bfs_depth[y] < bfs_depth[x] + 1)
                continue;
            int64_t a = y;
            while (a != ROOT && a != x)
                a = bfs_parent[a];
            if (a == x)
                continue;
            bk_parent[18][x] = y;
            return 1;
        }
    return 0;
}

/* Validate the keys [0, BK) in batches of kmax; per key the status, the
 * message and the edge count. park: each key is added to a batch of one and
 * parked in a scratch file, and the batches of kmax are read back from it
 * once every key is parked (as `g500 run --spill` does). */
static int run_batch(int sssp, int kmax, int park, int *st, char msg[][1024], int64_t *nedge)
{
    int rank, p, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int64_t first, count, at[BK];
    g5_range_split(N, rank, p, &first, &count);
    memsrc src = {.fail_rank = -1};
    kern_edge_reader rd = {.nvertices = N, .nedges = M, .chunk = chunk, .read = mem_read, .ctx = &src};
    kern_vbatch *b = NULL, *one = NULL;
    io_spill *sp = NULL;
    if ((rc = kern_vbatch_create(MPI_COMM_WORLD, N, kmax, sssp, &b)) != G5_OK)
        return rc;
    if (park) {
        rc = io_spill_open(MPI_COMM_WORLD, "/tmp", 0, "test keys", &sp);
        if (rc == G5_OK)
            rc = kern_vbatch_create_parking(MPI_COMM_WORLD, N, sssp, sp, &one);
        for (int k = 0; k < BK && rc == G5_OK; k++) {
            rc = kern_vbatch_add(one, bk_root[k], bk_parent[k] + first,
                                 sssp ? bk_dist[k] + first : NULL, NULL, 0);
            at[k] = kern_vbatch_parked_at(one);
            if (rc == G5_OK && (kern_vbatch_keys(one) != 0 || at[k] < 0))
                rc = G5_ERR_ARG;
        }
    }
    for (int lo = 0; lo < BK && rc == G5_OK; lo += kmax) {
        int hi = lo + kmax < BK ? lo + kmax : BK;
        for (int k = lo; k < hi && rc == G5_OK; k++)
            rc = park ? kern_vbatch_unpark(b, sp, at[k])
                      : kern_vbatch_add(b, bk_root[k], bk_parent[k] + first,
                                        sssp ? bk_dist[k] + first : NULL, NULL, 0);
        if (rc == G5_OK && kern_vbatch_keys(b) != hi - lo)
            rc = G5_ERR_ARG;
        if (rc == G5_OK)
            rc = kern_vbatch_check(b, &rd, st + lo, nedge + lo);
        for (int k = lo; k < hi && rc == G5_OK; k++)
            snprintf(msg[k], sizeof msg[k], "%s", kern_vbatch_message(b, k - lo));
    }
    io_spill_close(&sp);
    kern_vbatch_free(&one);
    kern_vbatch_free(&b);
    return rc;
}

/* A batch gives every key the status, message and edge count that one-key
 * validation gives; the planted faults of keys 4 and 5 are reported for
 * those keys alone (named by their root), the other keys pass; batches of
 * 1, 4, 11, 16 (full batches, then a shorter one) and all 19 keys, added
 * directly or parked in a scratch file first (key 4 fails before it is
 * parked); both chunk sizes. */
static int t_batch_equals_one_key_validation(void)
{
    int ok = 1;
    int64_t keep = ROOT;
    static saved_graph saved;
    graph_save(&saved);
    for (int sssp = 0; sssp < 2; sssp++) {
        MT_CHECK(batch_keys(sssp), "%s: a fault could not be planted", sssp ? "SSSP" : "BFS");
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
                MT_CHECK((rc1[k] == G5_OK) == !bk_faulty(k), "%s key %d: one-key status %d (%s)",
                         sssp ? "SSSP" : "BFS", k, rc1[k], g5_error_msg());
            }
            ROOT = keep;
            MT_CHECK(n1[0] == serial_teps_count(bfs_parent) && n1[1] > 0 && n1[2] == 0,
                     "one-key edge counts %lld %lld %lld", (long long)n1[0], (long long)n1[1],
                     (long long)n1[2]);
            const int sizes[10] = {1, 4, 11, 16, BK, 1, 4, 11, 16, BK};
            for (int z = 0; z < 10; z++) {
                const int park = z >= 5;
                int st[BK];
                int64_t nb[BK];
                for (int k = 0; k < BK; k++) {
                    st[k] = -99;
                    nb[k] = -7;
                    mb[k][0] = '\0';
                }
                int rc = run_batch(sssp, sizes[z], park, st, mb, nb);
                MT_CHECK(rc == G5_OK, "%s batch of %d%s: %s", sssp ? "SSSP" : "BFS", sizes[z],
                         park ? " (parked)" : "", g5_error_msg());
                for (int k = 0; k < BK; k++) {
                    MT_CHECK(st[k] == rc1[k] && strcmp(mb[k], m1[k]) == 0,
                             "%s batch of %d%s, chunk %lld, key %d: status %d '%s', one key %d '%s'",
                             sssp ? "SSSP" : "BFS", sizes[z], park ? " (parked)" : "",
                             (long long)chunk, k, st[k], mb[k],
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
                         "key 5 (%s): '%s'", sssp ? "SSSP" : "BFS", mb[5]);
                MT_CHECK(sssp ? strncmp(mb[13], want, strlen(want)) == 0
                                    && strstr(mb[13], "no edge shortens")
                              : strcmp(mb[13], mb[5]) == 0, "key 13: '%s'", mb[13]);
                MT_CHECK(strncmp(mb[18], want, strlen(want)) == 0
                         && strstr(mb[18], sssp ? "unreached" : "levels differ"),
                         "key 18: '%s'", mb[18]);
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
    graph_restore(&saved);
    serial_trees();
    return ok;
}

/* ---- long paths, their edges in memory, all of one weight ---------------------- */
typedef struct one_weight_list {
    const int64_t (*e)[2];
    float w;
} one_weight_list;

static int one_weight_read(void *ctx, int64_t first, int64_t count, int64_t *edges, float *weights)
{
    const one_weight_list *l = ctx;
    memcpy(edges, l->e[first], (size_t)count * 2 * sizeof(int64_t));
    for (int64_t j = 0; weights && j < count; j++)
        weights[j] = l->w;
    return G5_OK;
}

/* ---- parked keys whose depths need two bytes ---------------------------------- */
#define PL 701                       /* path length; prime, so 37 v + 11 permutes it */
static int64_t pl_e[PL + 1][2];
static int pl_m;

static inline int64_t pl_perm(int64_t v) { return (37 * v + 11) % PL; }

/* A path of 701 vertices searched from both ends: BFS depths up to 700
 * park in two bytes per vertex and come back exact (both keys pass with
 * 700 edges in one batch read back from the file; an extra edge between
 * depths 300 and 303 of the first key is reported with those depths). A
 * key read back from an offset where none was parked is refused with the
 * scratch file named, and a scratch directory that does not exist is
 * refused on every rank with its name. */
static int t_parked_deep_depths(void)
{
    int ok = 1, rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int64_t first, count, at[2];
    g5_range_split(PL, rank, p, &first, &count);
    static int64_t par[2][PL];
    for (int64_t i = 0; i < PL; i++) {
        par[0][pl_perm(i)] = i ? pl_perm(i - 1) : pl_perm(0);
        par[1][pl_perm(i)] = i < PL - 1 ? pl_perm(i + 1) : pl_perm(i);
        if (i)
            pl_e[i - 1][0] = pl_perm(i - 1), pl_e[i - 1][1] = pl_perm(i);
    }
    const int64_t roots[2] = {pl_perm(0), pl_perm(PL - 1)};
    one_weight_list list = {pl_e, 1.0f};
    kern_edge_reader rd = {.nvertices = PL, .nedges = PL - 1, .chunk = 64, .read = one_weight_read,
                           .ctx = &list};
    for (int extra = 0; extra < 2; extra++) {
        pl_m = PL - 1;
        if (extra) {
            pl_e[pl_m][0] = pl_perm(300), pl_e[pl_m][1] = pl_perm(303);
            pl_m++;
        }
        rd.nedges = pl_m;
        kern_vbatch *one = NULL, *b = NULL;
        io_spill *sp = NULL;
        int st[2] = {-99, -99};
        int64_t ne[2] = {-7, -7};
        int rc = io_spill_open(MPI_COMM_WORLD, "/tmp", 0, "test keys", &sp);
        if (rc == G5_OK)
            rc = kern_vbatch_create(MPI_COMM_WORLD, PL, 2, 0, &b);
        if (rc == G5_OK)
            rc = kern_vbatch_create_parking(MPI_COMM_WORLD, PL, 0, sp, &one);
        for (int k = 0; k < 2 && rc == G5_OK; k++) {
            rc = kern_vbatch_add(one, roots[k], par[k] + first, NULL, NULL, 0);
            at[k] = kern_vbatch_parked_at(one);
        }
        /* a 32-byte header, then 4 + 2 bytes per vertex */
        if (rc == G5_OK && count)
            MT_CHECK(io_spill_size(sp) == 2 * (32 + 6 * count), "scratch file of %lld bytes for "
                     "%lld vertices", (long long)io_spill_size(sp), (long long)count);
        for (int k = 0; k < 2 && rc == G5_OK; k++)
            rc = kern_vbatch_unpark(b, sp, at[k]);
        if (rc == G5_OK)
            rc = kern_vbatch_check(b, &rd, st, ne);
        MT_CHECK(rc == G5_OK, "parked path keys: %s", g5_error_msg());
        if (!extra) {
            MT_CHECK(st[0] == G5_OK && st[1] == G5_OK && ne[0] == PL - 1 && ne[1] == PL - 1,
                     "path keys: status %d %d, nedge %lld %lld", st[0], st[1], (long long)ne[0],
                     (long long)ne[1]);
        } else {
            char want[160];
            snprintf(want, sizeof want, "BFS root %lld: check 'edge levels differ by at most one' "
                     "failed: edge (%lld, %lld) joins levels 300 and 303", (long long)roots[0],
                     (long long)pl_perm(300), (long long)pl_perm(303));
            MT_CHECK(st[0] == G5_ERR_VALIDATE && strstr(kern_vbatch_message(b, 0), want),
                     "extra edge: status %d '%s', expected '%s'", st[0], kern_vbatch_message(b, 0),
                     want);
            /* an offset inside a key's planes is not a parked key */
            rc = kern_vbatch_unpark(b, sp, at[1] + 8);
            MT_CHECK(rc == G5_ERR_FORMAT && strstr(g5_error_msg(), "g500-spill-")
                     && same_message_everywhere(), "a bad offset: status %d '%s'", rc,
                     g5_error_msg());
        }
        io_spill_close(&sp);
        kern_vbatch_free(&one);
        kern_vbatch_free(&b);
    }
    io_spill *sp = NULL;
    int rc = io_spill_open(MPI_COMM_WORLD, rank == p - 1 ? "/nonexistent/g500" : "/tmp", 0,
                           "test keys", &sp);
    MT_CHECK(rc == G5_ERR_IO && sp == NULL && same_message_everywhere()
             && strstr(g5_error_msg(), "/nonexistent/g500"), "a missing directory: status %d "
             "'%s'", rc, g5_error_msg());
    return ok;
}

/* ---- more equal-distance tree edges than SSSP's one-round proof holds ------ */
#define FL 131101                    /* > 2 x 65,536; 37 v + 11 permutes it */
static int64_t fl_e[FL][2];

static inline int64_t fl_perm(int64_t v) { return (37 * v + 11) % FL; }

/* A path of FL vertices whose edges all weigh 0, so every vertex is at
 * distance 0 from the root: too many equal-distance tree edges for the
 * proof from the distances (validate_core.c, FLAT_MAX), so the key goes
 * through the jump (17 rounds). The path tree passes with FL - 1 edges;
 * ten vertices at its far end re-hung into a cycle, over an extra
 * zero-weight edge so that every tree edge stays a tight input edge, are
 * reported by the chain check. */
static int t_sssp_too_many_flat_edges(void)
{
    int ok = 1, rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int64_t first, count;
    g5_range_split(FL, rank, p, &first, &count);
    static int64_t par[FL], cyc[FL];
    static float dist[FL];
    for (int64_t i = 0; i < FL; i++) {
        par[fl_perm(i)] = i ? fl_perm(i - 1) : fl_perm(0);
        dist[i] = 0.0f;
        if (i)
            fl_e[i - 1][0] = fl_perm(i - 1), fl_e[i - 1][1] = fl_perm(i);
    }
    memcpy(cyc, par, sizeof cyc);
    cyc[fl_perm(FL - 10)] = fl_perm(FL - 1);    /* FL-10 -> FL-1 -> ... -> FL-10 */
    fl_e[FL - 1][0] = fl_perm(FL - 1), fl_e[FL - 1][1] = fl_perm(FL - 10);
    const int64_t root = fl_perm(0);
    one_weight_list list = {fl_e, 0.0f};
    for (int c = 0; c < 2; c++) {
        kern_edge_reader rd = {.nvertices = FL, .nedges = FL - 1 + c, .chunk = 4096,
                               .read = one_weight_read, .ctx = &list};
        int64_t nedge = -1;
        g5_error_clear();
        int rc = kern_validate_reader(MPI_COMM_WORLD, &rd, root, (c ? cyc : par) + first,
                                      dist + first, NULL, 0, &nedge);
        if (!c)
            MT_CHECK(rc == G5_OK && nedge == FL - 1, "zero-weight path: status %d, nedge %lld "
                     "(%s)", rc, (long long)nedge, g5_error_msg());
        else
            MT_CHECK(rc == G5_ERR_VALIDATE && strstr(g5_error_msg(), "parent chain reaches root")
                     && same_message_everywhere(), "zero-weight cycle: status %d, '%s'", rc,
                     g5_error_msg());
    }
    return ok;
}

int main(int argc, char **argv)
{
    validate_test_init(&argc, &argv);
    MT_RUN(t_deep_path_tree);
    MT_RUN(t_batch_equals_one_key_validation);
    MT_RUN(t_parked_deep_depths);
    MT_RUN(t_sssp_too_many_flat_edges);
    return mt_finish();
}
