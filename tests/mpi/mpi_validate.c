/* SPDX-License-Identifier: MIT */
/*
 * mpi_validate.c - the BFS and SSSP validators (kernels/validate_core.c) at
 * 1, 2 and 4 ranks on an in-memory edge list (validate_testgraph.h):
 * correct trees from a serial BFS and a serial Dijkstra pass with the right
 * TEPS edge count, and each planted error or malformed edge is caught by
 * the check meant for it, with the same status and message on every rank,
 * at 1, 2 and 3 threads and in memory lent by the caller. A tree as deep as
 * the graph and batches of keys: mpi_validate_keys.c.
 */
#include "validate_testgraph.h"

/* ---- correct trees --------------------------------------------------------- */
static int t_correct_bfs_passes(void)
{
    int ok = 1;
    int64_t want = serial_teps_count(bfs_parent);
    for (int c = 0; c < 2; c++) {
        chunk = c ? 1 << 20 : 5;
        int64_t nedge = -1;
        int rc = run_validate(bfs_parent, NULL, &nedge, -1);
        MT_CHECK(rc == G5_OK, "chunk %lld: %s", (long long)chunk, g5_error_msg());
        MT_CHECK(nedge == want, "chunk %lld: nedge %lld, serial count %lld", (long long)chunk,
                 (long long)nedge, (long long)want);
    }
    chunk = 5;
    /* the component is not the whole graph, so the count is a real choice */
    MT_CHECK(want > 0 && want < M - 2, "test graph: counted %lld of %d", (long long)want, M);
    return ok;
}

/* Fewer vertices than ranks (3 vertices; at 4 ranks one holds none): the
 * owner routing at P > 1 with N / P = 0 (every vertex on a rank of q + 1). */
static const int64_t TINY_E[4][2] = {{0, 1}, {1, 2}, {2, 1}, {2, 2}};
static const float TINY_W[4] = {0.5f, 0.25f, 0.25f, 0.125f};

static int tiny_read(void *ctx, int64_t first, int64_t count, int64_t *edges, float *weights)
{
    (void)ctx;
    memcpy(edges, TINY_E[first], (size_t)count * 2 * sizeof(int64_t));
    if (weights)
        memcpy(weights, TINY_W + first, (size_t)count * sizeof(float));
    return G5_OK;
}

static int tiny_validate(const int64_t *parent, const float *dist, int64_t *nedge)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int64_t first, count;
    g5_range_split(3, rank, p, &first, &count);
    kern_edge_reader rd = {.nvertices = 3, .nedges = 4, .chunk = 2, .read = tiny_read};
    g5_error_clear();
    return kern_validate_reader(MPI_COMM_WORLD, &rd, 0, parent + first, dist ? dist + first : NULL,
                                NULL, 0, nedge);
}

static int t_fewer_vertices_than_ranks(void)
{
    int ok = 1;
    const int64_t good[3] = {0, 0, 1}, bad[3] = {0, 0, 0};
    const float dist[3] = {0.0f, 0.5f, 0.75f};
    int64_t nedge = -1;
    int rc = tiny_validate(good, NULL, &nedge);
    MT_CHECK(rc == G5_OK && nedge == 3, "BFS: status %d (%s), nedge %lld, expected 3", rc,
             g5_error_msg(), (long long)nedge);
    nedge = -1;
    rc = tiny_validate(good, dist, &nedge);
    MT_CHECK(rc == G5_OK && nedge == 3, "SSSP: status %d (%s), nedge %lld, expected 3", rc,
             g5_error_msg(), (long long)nedge);
    rc = tiny_validate(bad, NULL, &nedge);
    MT_CHECK(rc == G5_ERR_VALIDATE && strstr(g5_error_msg(), "tree edge (0, 2) is not an input edge"),
             "BFS tree edge (0, 2): status %d, message '%s'", rc, g5_error_msg());
    MT_CHECK(same_message_everywhere(), "ranks disagree on the message");
    return ok;
}

static int t_correct_sssp_passes(void)
{
    int ok = 1;
    int64_t nedge = -1;
    int rc = run_validate(sp_parent, sp_dist, &nedge, -1);
    MT_CHECK(rc == G5_OK, "%s", g5_error_msg());
    MT_CHECK(nedge == serial_teps_count(sp_parent), "nedge %lld", (long long)nedge);
    MT_CHECK(serial_teps_count(sp_parent) == serial_teps_count(bfs_parent),
             "BFS and SSSP count the same edges");
    return ok;
}

static int t_other_bfs_tree_passes(void)
{
    /* Any BFS tree is valid: re-parent each vertex on another neighbour one
     * level up where there is one. */
    int ok = 1;
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    int changed = 0;
    for (int e = M - 1; e >= 0; e--)
        for (int s = 0; s < 2; s++) {
            int64_t a = E[e][s], b = E[e][1 - s];
            if (bfs_depth[a] >= 0 && bfs_depth[b] == bfs_depth[a] + 1 && p[b] != a) {
                p[b] = a;
                changed++;
            }
        }
    MT_CHECK(changed > 0, "no alternative parent in the test graph");
    int rc = run_validate(p, NULL, NULL, -1);
    MT_CHECK(rc == G5_OK, "%s", g5_error_msg());
    return ok;
}

/* ---- planted BFS errors --------------------------------------------------- */
static int t_bfs_parent_out_of_range(void)
{
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    p[perm(5)] = N;
    return expect_failure("parent N", p, NULL, "parent range");
}

static int t_bfs_root_not_own_parent(void)
{
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    p[ROOT] = perm(1);
    return expect_failure("root parent", p, NULL, "root is own parent");
}

static int t_bfs_cycle(void)
{
    int ok = 1;
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    /* two adjacent reached vertices below the root point at each other */
    int64_t a = -1, b = -1;
    for (int e = 0; e < M && a < 0; e++) {
        int64_t x = E[e][0], y = E[e][1];
        if (x != y && x != ROOT && y != ROOT && bfs_depth[x] > 0 && bfs_depth[y] > 0)
            a = x, b = y;
    }
    MT_CHECK(a >= 0, "no edge for a cycle");
    p[a] = b;
    p[b] = a;
    return expect_failure("2-cycle", p, NULL, "parent chain reaches root") && ok;
}

static int t_bfs_self_parent_is_a_cycle(void)
{
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    p[perm(10)] = perm(10);
    return expect_failure("self parent", p, NULL, "parent chain reaches root");
}

static int t_bfs_wrong_parent_not_an_edge(void)
{
    /* v's parent replaced by a non-neighbour on the same level as the true
     * parent: depths do not change, only the tree edge is not in the graph */
    int ok = 1;
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    int64_t v = -1, q = -1;
    for (int64_t x = 0; x < N && v < 0; x++) {
        if (bfs_depth[x] < 2)
            continue;
        for (int64_t y = 0; y < N; y++)
            if (y != bfs_parent[x] && bfs_depth[y] == bfs_depth[x] - 1 && !adjacent(x, y)) {
                v = x, q = y;
                break;
            }
    }
    MT_CHECK(v >= 0, "no candidate");
    p[v] = q;
    return expect_failure("wrong parent", p, NULL, "tree edge is an input edge") && ok;
}

static int t_bfs_missed_vertex(void)
{
    int ok = 1;
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    int64_t v = -1;
    for (int64_t x = 0; x < N && v < 0; x++)
        if (bfs_depth[x] > 0 && !has_child(bfs_parent, x))
            v = x;
    MT_CHECK(v >= 0, "no leaf");
    p[v] = -1;
    return expect_failure("missed leaf", p, NULL, "edge joins reached and unreached") && ok;
}

static int t_bfs_extra_vertex(void)
{
    /* a vertex of the other component claims the root as parent */
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    p[perm(75)] = ROOT;
    return expect_failure("extra vertex", p, NULL, "edge joins reached and unreached");
}

static int t_bfs_extra_isolated_vertex(void)
{
    /* an isolated vertex (only a self-loop) claims the root as parent: only
     * the tree edge check can see it */
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    p[perm(95)] = ROOT;
    return expect_failure("extra isolated vertex", p, NULL, "tree edge is an input edge");
}

static int t_bfs_level_skip(void)
{
    /* v re-parented on a neighbour of its own level: the tree edge exists, but
     * v and its subtree drop one level, so v's edge to its old parent spans
     * two levels */
    int ok = 1;
    int64_t p[N];
    memcpy(p, bfs_parent, sizeof p);
    int64_t v = -1, q = -1;
    for (int e = 0; e < M && v < 0; e++) {
        int64_t x = E[e][0], y = E[e][1];
        if (x != y && bfs_depth[x] > 0 && bfs_depth[x] == bfs_depth[y])
            v = x, q = y;
    }
    MT_CHECK(v >= 0, "no same-level edge");
    p[v] = q;
    return expect_failure("level skip", p, NULL, "edge levels differ by at most one") && ok;
}

/* ---- planted SSSP errors -------------------------------------------------- */
static int t_sssp_distance_too_long(void)
{
    int ok = 1;
    float d[N];
    memcpy(d, sp_dist, sizeof d);
    int64_t v = sssp_leaf();
    MT_CHECK(v >= 0, "no leaf");
    d[v] += 0.5;
    return expect_failure("too long", sp_parent, d, "no edge shortens a distance") && ok;
}

/* A tree that holds together but is not shortest: a leaf re-hung from
 * another neighbour y, its distance made tight on (y, x), so only an edge
 * outside the tree (its old parent's) shortens it; the witness is that
 * edge. */
static int t_sssp_longer_tree_path(void)
{
    int ok = 1;
    float d[N];
    int64_t p[N];
    memcpy(d, sp_dist, sizeof d);
    memcpy(p, sp_parent, sizeof p);
    int64_t x = -1, y = -1, old = -1;
    float wy = 0;
    for (int64_t c = 0; c < N && x < 0; c++) {
        if (c == ROOT || sp_parent[c] < 0 || has_child(sp_parent, c))
            continue;
        for (int e = 0; e < M && x < 0; e++) {
            int64_t a = E[e][0], b = E[e][1], o = a == c ? b : b == c ? a : -1;
            if (o < 0 || o == c || o == sp_parent[c])
                continue;
            float wmin = W[e];    /* the lightest (c, o) edge */
            for (int f = 0; f < M; f++)
                if (((E[f][0] == c && E[f][1] == o) || (E[f][0] == o && E[f][1] == c)) && W[f] < wmin)
                    wmin = W[f];
            if (sp_dist[o] + wmin > sp_dist[c] + 1e-3f) {
                x = c, y = o, wy = wmin, old = sp_parent[c];
            }
        }
    }
    MT_CHECK(x >= 0, "no leaf with a longer path through another neighbour");
    if (x < 0)
        return ok;
    p[x] = y;
    d[x] = sp_dist[y] + wy;
    ok &= expect_failure("longer tree path", p, d, "no edge shortens a distance");
    char want[64];
    snprintf(want, sizeof want, "d[%lld]=", (long long)x);
    MT_CHECK(strstr(g5_error_msg(), want) != NULL, "longer tree path: '%s' (x %lld, old parent "
             "%lld, new %lld)", g5_error_msg(), (long long)x, (long long)old, (long long)y);
    return ok;
}

static int t_sssp_distance_too_short(void)
{
    /* lower a leaf's distance by half its slack, so that no edge is violated
     * and only its parent edge stops being tight */
    int ok = 1;
    float d[N];
    memcpy(d, sp_dist, sizeof d);
    int64_t v = -1;
    double delta = 0;
    for (int64_t x = 0; x < N && v < 0; x++) {
        if (x == ROOT || sp_parent[x] < 0 || has_child(sp_parent, x))
            continue;
        double slack = INFINITY;
        for (int e = 0; e < M; e++)
            for (int s = 0; s < 2; s++)
                if (E[e][s] == x && E[e][1 - s] != x)
                    slack = fmin(slack, sp_dist[x] + W[e] - sp_dist[E[e][1 - s]]);
        if (slack > 1e-3)
            v = x, delta = slack / 2;
    }
    MT_CHECK(v >= 0, "no leaf with slack");
    d[v] -= delta;
    return expect_failure("too short", sp_parent, d, "tree edge is a tight input edge") && ok;
}

static int t_sssp_parent_dist_disagree(void)
{
    float d[N];
    int64_t p[N];
    memcpy(d, sp_dist, sizeof d);
    d[perm(7)] = INFINITY;
    int ok = expect_failure("reached with inf", sp_parent, d, "parent and distance agree");
    memcpy(d, sp_dist, sizeof d);
    memcpy(p, sp_parent, sizeof p);
    p[perm(80)] = -1;
    d[perm(80)] = 1.5; /* unreached vertex with a distance */
    ok &= expect_failure("unreached with distance", p, d, "parent and distance agree");
    return ok;
}

static int t_sssp_root(void)
{
    float d[N];
    memcpy(d, sp_dist, sizeof d);
    d[ROOT] = 0.125;
    int ok = expect_failure("root distance", sp_parent, d, "root distance");
    int64_t p[N];
    memcpy(p, sp_parent, sizeof p);
    p[ROOT] = -1;
    ok &= expect_failure("root unreached", p, sp_dist, "root is own parent");
    return ok;
}

static int t_sssp_tree_edge_not_in_graph(void)
{
    int ok = 1;
    int64_t p[N];
    memcpy(p, sp_parent, sizeof p);
    int64_t v = sssp_leaf(), q = -1;
    for (int64_t y = 0; y < N && q < 0; y++)
        if (y != v && sp_parent[y] >= 0 && !adjacent(v, y))
            q = y;
    MT_CHECK(v >= 0 && q >= 0, "no candidate");
    p[v] = q;
    return expect_failure("sssp non-edge parent", p, sp_dist, "tree edge is a tight input edge") && ok;
}

static int t_sssp_cycle(void)
{
    int64_t p[N];
    memcpy(p, sp_parent, sizeof p);
    int64_t a = perm(20), b = perm(21); /* path edge 20-21 */
    p[a] = b;
    p[b] = a;
    return expect_failure("sssp cycle", p, sp_dist, "parent chain reaches root");
}

/* Zero-weight tree edges: a parent at the same distance as its child (a
 * "flat" edge), which the chain check handles apart from the rest. A path
 * through all N vertices (scrambled ids, so flat parents and children sit
 * on different ranks) weighs 0.5 per edge except ten in a row and two more,
 * which weigh 0; an extra zero-weight edge closes a triangle with those
 * two. The path tree passes with every edge counted; re-hung across the
 * triangle, three vertices of equal distance form a cycle of tight tree
 * edges that no edge check sees, and a vertex made its own parent is
 * another: both are reported by the chain check, at 1, 2 and 3 threads and
 * in chunks of 5 edges or all at once. */
static int t_sssp_flat_tree_edges(void)
{
    int ok = 1, keep = omp_get_max_threads();
    static saved_graph saved;
    graph_save(&saved);
    M = 0;
    int64_t path[N];
    float dist[N];
    for (int64_t i = 0; i < N; i++) {
        float w = (i > 30 && i <= 40) || i == 61 || i == 62 ? 0.0f : 0.5f;
        path[perm(i)] = i ? perm(i - 1) : perm(0);
        dist[perm(i)] = i ? dist[perm(i - 1)] + w : 0.0f;
        if (i)
            add(perm(i - 1), perm(i), w);
    }
    add(perm(62), perm(60), 0.0f);
    ROOT = perm(0);
    int64_t cyc[N], self[N];
    memcpy(cyc, path, sizeof cyc);
    cyc[perm(60)] = perm(62);           /* 60 -> 62 -> 61 -> 60, all at one distance */
    memcpy(self, path, sizeof self);
    self[perm(35)] = perm(35);
    for (int nt = 1; nt <= 3; nt++) {
        omp_set_num_threads(nt);
        for (int c = 0; c < 2; c++) {
            chunk = c ? 1 << 20 : 5;
            int64_t nedge = -1;
            int rc = run_validate(path, dist, &nedge, -1);
            MT_CHECK(rc == G5_OK && nedge == M, "%d threads, chunk %lld: status %d, nedge %lld "
                     "of %d (%s)", nt, (long long)chunk, rc, (long long)nedge, M, g5_error_msg());
            ok &= expect_failure("flat cycle", cyc, dist, "parent chain reaches root");
            ok &= expect_failure("flat self-parent", self, dist, "parent chain reaches root");
        }
    }
    chunk = 5;
    omp_set_num_threads(keep);
    graph_restore(&saved);
    return ok;
}

static int t_read_failure_agreed(void)
{
    int ok = 1, p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int rc = run_validate(bfs_parent, NULL, NULL, p - 1);
    MT_CHECK(rc == G5_ERR_IO, "status %d", rc);
    MT_CHECK(strstr(g5_error_msg(), "planted read failure") != NULL, "message %s", g5_error_msg());
    MT_CHECK(same_message_everywhere(), "ranks disagree");
    return ok;
}

/* ---- malformed input ------------------------------------------------------ */
/* An edge with an endpoint outside [0, N) is refused as a format error
 * naming the edge, on every rank, whether the edge is in the first, a
 * middle or the last chunk (the edge checks run one chunk behind the read). */
static int t_edge_outside_range_is_refused(void)
{
    int ok = 1;
    const int at[3] = {0, M / 2 + 1, M - 1};
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 2; c++) {
            int e = at[a];
            int64_t keep = E[e][1];
            E[e][1] = N + 3;
            chunk = c ? 1 << 20 : 5;
            int64_t nedge = -7;
            int rc = run_validate(bfs_parent, NULL, &nedge, -1);
            char want[128];
            snprintf(want, sizeof want, "edge %d = (%lld, %d) has a vertex outside [0, %d)", e,
                     (long long)E[e][0], N + 3, N);
            MT_CHECK(rc == G5_ERR_FORMAT, "edge %d chunk %lld: status %d (%s)", e,
                     (long long)chunk, rc, g5_error_msg());
            MT_CHECK(strstr(g5_error_msg(), want) != NULL, "edge %d chunk %lld: message '%s', "
                     "expected '%s'", e, (long long)chunk, g5_error_msg(), want);
            MT_CHECK(same_message_everywhere(), "edge %d: ranks disagree", e);
            MT_CHECK(nedge == -7, "edge %d: nedge written on failure", e);
            rc = run_validate(sp_parent, sp_dist, NULL, -1);
            MT_CHECK(rc == G5_ERR_FORMAT && strstr(g5_error_msg(), want) != NULL,
                     "SSSP, edge %d chunk %lld: status %d (%s)", e, (long long)chunk, rc,
                     g5_error_msg());
            E[e][1] = keep;
            chunk = 5;
        }
    return ok;
}

/* ---- thread counts ---------------------------------------------------------- */
/* The edge checks run on the threads while the master thread reads the next
 * chunk, and at one rank the jump rounds are parallel passes: correct trees
 * pass with the same count and planted errors are caught by the same check,
 * with the same message, at 1, 2 and 3 threads, and with different thread
 * counts on different ranks. */
static int t_same_results_at_1_2_and_3_threads(void)
{
    int ok = 1, keep = omp_get_max_threads();
    static char msg1[2][2][1024];
    for (int nt = 1; nt <= 3; nt++) {
        omp_set_num_threads(nt);
        MT_CHECK(t_correct_bfs_passes(), "%d threads: correct BFS tree", nt);
        MT_CHECK(t_correct_sssp_passes(), "%d threads: correct SSSP tree", nt);
        MT_CHECK(t_other_bfs_tree_passes(), "%d threads: other BFS tree", nt);
        MT_CHECK(t_bfs_cycle(), "%d threads: BFS cycle", nt);
        MT_CHECK(t_bfs_wrong_parent_not_an_edge(), "%d threads: BFS non-edge parent", nt);
        MT_CHECK(t_bfs_level_skip(), "%d threads: BFS level skip", nt);
        MT_CHECK(t_sssp_distance_too_long(), "%d threads: SSSP distance too long", nt);
        MT_CHECK(t_sssp_distance_too_short(), "%d threads: SSSP distance too short", nt);
        MT_CHECK(t_sssp_tree_edge_not_in_graph(), "%d threads: SSSP non-edge parent", nt);
        MT_CHECK(t_edge_outside_range_is_refused(), "%d threads: edge out of range", nt);
        /* the same message word for word: among failures of one check the
         * one of the smallest vertex or edge index is reported */
        int64_t cyc[N];
        memcpy(cyc, bfs_parent, sizeof cyc);
        cyc[perm(10)] = perm(10);
        float far[N];
        memcpy(far, sp_dist, sizeof far);
        for (int64_t v = 0; v < N; v++)
            if (sp_parent[v] >= 0 && v != ROOT)
                far[v] += 4.0f;    /* every edge from the root's neighbours shortens */
        const int64_t *pp[2] = {cyc, sp_parent};
        const float *dd[2] = {NULL, far};
        for (int k = 0; k < 2; k++)
            for (int c = 0; c < 2; c++) {
                chunk = c ? 1 << 20 : 5;
                int rc = run_validate(pp[k], dd[k], NULL, -1);
                MT_CHECK(rc == G5_ERR_VALIDATE, "%d threads, case %d: status %d", nt, k, rc);
                if (nt == 1)
                    snprintf(msg1[k][c], sizeof msg1[k][c], "%s", g5_error_msg());
                MT_CHECK(strcmp(g5_error_msg(), msg1[k][c]) == 0, "%d threads, case %d, chunk "
                         "%lld: '%s', at 1 thread '%s'", nt, k, (long long)chunk, g5_error_msg(),
                         msg1[k][c]);
            }
        chunk = 5;
    }
    /* ranks with different thread counts (one chunk buffer on rank 0, two
     * elsewhere) still meet in the same collectives */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    omp_set_num_threads(rank == 0 ? 1 : 2);
    MT_CHECK(t_correct_bfs_passes(), "mixed threads: correct BFS tree");
    MT_CHECK(t_correct_sssp_passes(), "mixed threads: correct SSSP tree");
    MT_CHECK(t_sssp_distance_too_short(), "mixed threads: SSSP distance too short");
    MT_CHECK(t_edge_outside_range_is_refused(), "mixed threads: edge out of range");
    omp_set_num_threads(keep);
    return ok;
}

/* ---- validation in borrowed memory ----------------------------------------- */
/* Lend `bytes` of memory filled with 0xA5 and run the correct trees and two
 * planted errors of each kernel through it: the same statuses, messages and
 * edge counts as with the validators' own memory. *touched: out, whether
 * the validators wrote into it. */
static int same_results_in(size_t bytes, int *touched)
{
    int ok = 1;
    int64_t nb0 = -1, ns0 = -1, nb1 = -1, ns1 = -1;
    int64_t bad_bfs[N], bad_sp[N];
    memcpy(bad_bfs, bfs_parent, sizeof bad_bfs);
    bad_bfs[perm(10)] = perm(10);                  /* a cycle */
    memcpy(bad_sp, sp_parent, sizeof bad_sp);
    int64_t v = sssp_leaf(), q = -1;
    for (int64_t y = 0; y < N && q < 0; y++)
        if (y != v && sp_parent[y] >= 0 && !adjacent(v, y))
            q = y;
    MT_CHECK(v >= 0 && q >= 0, "no candidate for a non-edge parent");
    bad_sp[v] = q;
    float far[N];
    memcpy(far, sp_dist, sizeof far);
    far[v] += 0.5f;
    char own[4][1024];
    int rc_own[4];
    /* the validators' own memory */
    work = NULL;
    work_bytes = 0;
    MT_CHECK(run_validate(bfs_parent, NULL, &nb0, -1) == G5_OK, "own memory: %s", g5_error_msg());
    MT_CHECK(run_validate(sp_parent, sp_dist, &ns0, -1) == G5_OK, "own memory: %s", g5_error_msg());
    const int64_t *pp[4] = {bad_bfs, bad_sp, sp_parent, bfs_parent};
    const float *dd[4] = {NULL, sp_dist, far, NULL};
    int64_t root_parent[N];
    memcpy(root_parent, bfs_parent, sizeof root_parent);
    root_parent[ROOT] = perm(1);
    pp[3] = root_parent;
    for (int k = 0; k < 4; k++) {
        rc_own[k] = run_validate(pp[k], dd[k], NULL, -1);
        snprintf(own[k], sizeof own[k], "%s", g5_error_msg());
    }
    /* lent memory */
    unsigned char *buf = malloc(bytes ? bytes : 1);
    MT_CHECK(buf != NULL, "cannot allocate the lent memory");
    if (!buf) return 0;
    memset(buf, 0xA5, bytes);
    work = buf;
    work_bytes = bytes;
    MT_CHECK(run_validate(bfs_parent, NULL, &nb1, -1) == G5_OK, "lent memory: %s", g5_error_msg());
    MT_CHECK(run_validate(sp_parent, sp_dist, &ns1, -1) == G5_OK, "lent memory: %s", g5_error_msg());
    MT_CHECK(nb0 == nb1 && ns0 == ns1, "edge counts: own memory %lld/%lld, lent %lld/%lld",
             (long long)nb0, (long long)ns0, (long long)nb1, (long long)ns1);
    for (int k = 0; k < 4; k++) {
        int rc = run_validate(pp[k], dd[k], NULL, -1);
        MT_CHECK(rc == G5_ERR_VALIDATE && rc == rc_own[k], "planted error %d: status %d lent, %d own",
                 k, rc, rc_own[k]);
        MT_CHECK(strcmp(g5_error_msg(), own[k]) == 0, "planted error %d: '%s' lent, '%s' own", k,
                 g5_error_msg(), own[k]);
        MT_CHECK(same_message_everywhere(), "planted error %d: ranks disagree", k);
    }
    *touched = 0;
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != 0xA5) *touched = 1;
    work = NULL;
    work_bytes = 0;
    free(buf);
    return ok;
}

static int t_lent_memory_gives_the_same_results(void)
{
    int ok = 1, rank, p, touched = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t need = kern_validate_work_bytes(N, rank, p);
    int64_t first, count;
    g5_range_split(N, rank, p, &first, &count);
    MT_CHECK(need == (size_t)count * 8, "work bytes %zu for %lld vertices", need, (long long)count);
    MT_CHECK(same_results_in(need, &touched), "exactly the bytes needed");
    /* the jump words were kept there: reached vertices have words */
    MT_CHECK(touched, "rank %d: the lent memory was not used", rank);
    /* SSSP's words are 4 bytes: half suffices for SSSP (BFS allocates) */
    touched = 0;
    MT_CHECK(same_results_in(need / 2, &touched), "half the bytes");
    MT_CHECK(touched, "rank %d: SSSP did not use half the bytes", rank);
    touched = 0;
    MT_CHECK(same_results_in(need / 2 - 4, &touched), "4 bytes short of SSSP's words");
    MT_CHECK(!touched, "rank %d: memory too small for the words was written", rank);
    return ok;
}

int main(int argc, char **argv)
{
    validate_test_init(&argc, &argv);
    MT_RUN(t_correct_bfs_passes);
    MT_RUN(t_correct_sssp_passes);
    MT_RUN(t_other_bfs_tree_passes);
    MT_RUN(t_bfs_parent_out_of_range);
    MT_RUN(t_bfs_root_not_own_parent);
    MT_RUN(t_bfs_cycle);
    MT_RUN(t_bfs_self_parent_is_a_cycle);
    MT_RUN(t_bfs_wrong_parent_not_an_edge);
    MT_RUN(t_bfs_missed_vertex);
    MT_RUN(t_bfs_extra_vertex);
    MT_RUN(t_bfs_extra_isolated_vertex);
    MT_RUN(t_bfs_level_skip);
    MT_RUN(t_sssp_distance_too_long);
    MT_RUN(t_sssp_distance_too_short);
    MT_RUN(t_sssp_longer_tree_path);
    MT_RUN(t_sssp_parent_dist_disagree);
    MT_RUN(t_sssp_root);
    MT_RUN(t_sssp_tree_edge_not_in_graph);
    MT_RUN(t_sssp_cycle);
    MT_RUN(t_sssp_flat_tree_edges);
    MT_RUN(t_read_failure_agreed);
    MT_RUN(t_edge_outside_range_is_refused);
    MT_RUN(t_same_results_at_1_2_and_3_threads);
    MT_RUN(t_lent_memory_gives_the_same_results);
    MT_RUN(t_fewer_vertices_than_ranks);
    return mt_finish();
}
