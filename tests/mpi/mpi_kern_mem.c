/* SPDX-License-Identifier: MIT */
/*
 * mpi_kern_mem.c - the memory-saving representations of the kernels.
 * 1. The two weight layouts of the CSR (kern_impl.h):
 * weights that are all multiples of 2^-24 in [0, 1) (the generator's) are
 * stored as 3-byte integers, anything else as floats, decided on all ranks
 * together. The same graph is built both ways (the float build gets one
 * extra edge, with weight 1/3, between two vertices of their own, which
 * forces the fallback on every rank without touching the other vertices'
 * paths) and SSSP must give bit-identical distances and the same parents
 * from the same roots, and the rows the same (column, weight) entries. Also:
 * the layout is the same on every rank, and -0.0 or 1.0 force the floats.
 * The layout depends on the kept entries only: odd weights on a self-loop
 * or on duplicates heavier than the kept copy leave the 24-bit layout and
 * the same rows (kernel 1 decides the layout from the input weights, then
 * converts), and the raw degrees still count the dropped duplicates; an
 * odd weight on the lighter copy is kept, in floats.
 * 2. Results converted to original ids in rounds of a few local vertices
 * (convert.c) equal the conversion in one round, for BFS parents and SSSP
 * distances, under cyclic, block and a placement; kern_ids_are_original
 * holds exactly at one rank without a placement, where the conversion is
 * the identity.
 * 3. Results without copies: kern_sssp_take_result (state words unpacked in
 * place into parents) gives exactly kern_sssp_result's parents and float
 * distances, and overwriting that array (the driver lends it to the
 * validator) or BFS's scratch (kern_bfs_scratch) between searches does not
 * change the next search, nor does overwriting SSSP's scratch
 * (kern_sssp_scratch, the ghost words at P > 1).
 * Runs at 1, 2 and 4 ranks.
 */
#include "common.h"
#include "kern.h"
#include "kern_impl.h"
#include "kern_validate.h"
#include "kern_testgraph.h"
#include "mpitest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tg {
    int64_t n, m;
    int64_t *e;      /* [m][2] */
    float *w;        /* [m] */
} tg;


/* n vertices, the last two reserved (no edge yet); m edges among the first
 * n - 2 with skewed endpoints and weights k * 2^-24 (k uniform in [0, 2^24),
 * including duplicates and self-loops) */
static void tg_make(tg *t, int64_t n, int64_t m, uint64_t seed)
{
    t->n = n; t->m = m;
    t->e = malloc((m + 1) * 2 * sizeof(int64_t));
    t->w = malloc((m + 1) * sizeof(float));
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int64_t i = 0; i < m; i++) {
        double a = (double)(rng(&s) >> 11) / 9007199254740992.0;
        t->e[2 * i] = (int64_t)(a * a * (n - 2));
        t->e[2 * i + 1] = (int64_t)(rng(&s) % (uint64_t)(n - 2));
        t->w[i] = (float)(rng(&s) >> 40) * 0x1p-24f;
    }
}

static void tg_free(tg *t) { free(t->e); free(t->w); }

/* Build from this rank's block of t's edges, plus (extra != 0, last rank
 * only) the edge (n-2, n-1) of weight extra_w. */
static int build(const tg *t, int kind, int extra, float extra_w, kern_dist **d, kern_graph **g)
{
    const int64_t xe[2] = {t->n - 2, t->n - 1};
    return kt_build(kind, t->n, t->m, t->e, t->w, xe, &extra_w, extra ? 1 : 0, d, g);
}

/* every rank holds the layout `want` (checked on every rank) */
static int layout_is(const kern_graph *g, int want, const char *what)
{
    int ok = 1, lo = g->w24, hi = g->w24;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_CHECK(lo == hi, "%s: the ranks hold different weight layouts", what);
    MT_CHECK(g->w24 == want, "%s: w24 = %d, expected %d", what, g->w24, want);
    MT_CHECK(want ? g->w3 != NULL && g->w == NULL : g->w != NULL && g->w3 == NULL,
             "%s: the arrays do not match the layout", what);
    MT_CHECK(kern_graph_bytes(g) == (g->nlocal + 1) * 8 + g->nlocal + g->ndup_big * 8 + g->nnz * (want ? 7 : 8),
             "%s: kern_graph_bytes %lld", what, (long long)kern_graph_bytes(g));
    return ok;
}

static int packed_and_float_weights_give_identical_sssp(void)
{
    int ok = 1;
    const int kinds[2] = {KERN_DIST_CYCLIC, KERN_DIST_BLOCK};
    for (int ki = 0; ki < 2; ki++) {
        tg t;
        tg_make(&t, 1500, 12000, 11 + ki);
        kern_dist *da = NULL, *db = NULL;
        kern_graph *ga = NULL, *gb = NULL;
        int rc = g5_agree(MPI_COMM_WORLD, build(&t, kinds[ki], 0, 0, &da, &ga));
        if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, build(&t, kinds[ki], 1, 1.0f / 3.0f, &db, &gb));
        MT_CHECK(rc == G5_OK, "build failed: %s", g5_error_msg());
        if (rc == G5_OK) {
            ok &= layout_is(ga, 1, "generator-like weights");
            ok &= layout_is(gb, 0, "one weight 1/3");
            /* the same rows, in the same (weight, column) order, except the
             * two extra vertices' */
            int64_t nl = ga->nlocal;
            for (int64_t l = 0; l < nl && ok; l++) {
                int64_t v = kern_dist_orig_of_pid(da, ga->base + l);
                if (v >= t.n - 2) continue;
                int64_t a0 = ga->rowptr[l], b0 = gb->rowptr[l], n = ga->rowptr[l + 1] - a0;
                MT_CHECK(gb->rowptr[l + 1] - b0 == n, "vertex %lld: row lengths differ", (long long)v);
                for (int64_t i = 0; ok && i < n; i++)
                    MT_CHECK(ga->col[a0 + i] == gb->col[b0 + i] && kern_w(ga, a0 + i) == kern_w(gb, b0 + i),
                             "vertex %lld entry %lld: (%u, %.9g) packed, (%u, %.9g) float", (long long)v,
                             (long long)i, ga->col[a0 + i], kern_w(ga, a0 + i), gb->col[b0 + i],
                             kern_w(gb, b0 + i));
            }
            kern_sssp *sa = NULL, *sb = NULL;
            rc = g5_agree(MPI_COMM_WORLD, kern_sssp_create(ga, 0.05, &sa));
            if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, kern_sssp_create(gb, 0.05, &sb));
            MT_CHECK(rc == G5_OK, "sssp create failed: %s", g5_error_msg());
            int64_t *pa = malloc((nl + 1) * 8), *pb = malloc((nl + 1) * 8);
            float *xa = malloc((nl + 1) * 4), *xb = malloc((nl + 1) * 4);
            const int64_t roots[3] = {0, 1, 700};
            for (int r = 0; rc == G5_OK && r < 3; r++) {
                rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(sa, roots[r]));
                if (rc == G5_OK) kern_sssp_result(sa, pa, xa);
                if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(sb, roots[r]));
                if (rc == G5_OK) kern_sssp_result(sb, pb, xb);
                MT_CHECK(rc == G5_OK, "sssp failed: %s", g5_error_msg());
                int64_t diff = 0, reached = 0;
                for (int64_t l = 0; rc == G5_OK && l < nl; l++) {
                    if (kern_dist_orig_of_pid(da, ga->base + l) >= t.n - 2) continue;
                    if (memcmp(&xa[l], &xb[l], sizeof(float)) != 0 || pa[l] != pb[l]) diff++;
                    if (pa[l] >= 0) reached++;
                }
                MPI_Allreduce(MPI_IN_PLACE, &diff, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
                MPI_Allreduce(MPI_IN_PLACE, &reached, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
                MT_CHECK(diff == 0, "root %lld: %lld vertices with another distance or parent",
                         (long long)roots[r], (long long)diff);
                MT_CHECK(reached > 1000, "root %lld reaches only %lld vertices", (long long)roots[r],
                         (long long)reached);
            }
            free(pa); free(pb); free(xa); free(xb);
            kern_sssp_free(&sa);
            kern_sssp_free(&sb);
        }
        kern_graph_free(&ga); kern_graph_free(&gb);
        kern_dist_free(&da); kern_dist_free(&db);
        tg_free(&t);
    }
    return ok;
}

/* Weights that look like the generator's but are not exactly k * 2^-24 in
 * [0, 1): each forces the float layout, and its value survives. */
static int odd_weights_fall_back_to_floats(void)
{
    int ok = 1;
    const float odd[4] = {-0.0f, 1.0f, 0x1p-25f, 0.25f + 0x1p-25f};
    for (int i = 0; i < 4; i++) {
        tg t;
        tg_make(&t, 300, 2000, 5 + i);
        kern_dist *d = NULL;
        kern_graph *g = NULL;
        int rc = g5_agree(MPI_COMM_WORLD, build(&t, KERN_DIST_BLOCK, 1, odd[i], &d, &g));
        MT_CHECK(rc == G5_OK, "build failed: %s", g5_error_msg());
        if (rc == G5_OK) {
            char what[64];
            snprintf(what, sizeof what, "one weight %a", (double)odd[i]);
            ok &= layout_is(g, 0, what);
            int own;
            int64_t l;
            if (kern_dist_locate(d, t.n - 2, &own, &l) && own == g->rank) {
                MT_CHECK(kern_graph_degree(g, l) == 1, "the extra edge is missing");
                float got = kern_w(g, g->rowptr[l]);
                MT_CHECK(memcmp(&got, &odd[i], 4) == 0, "weight %a stored as %a", (double)odd[i],
                         (double)got);
            }
        }
        kern_graph_free(&g);
        kern_dist_free(&d);
        tg_free(&t);
    }
    return ok;
}

/* Build (cyclic) from this rank's block of t's edges plus, on the last
 * rank, the nx edges xe[2 nx] with weights xw[nx]. */
static int build_plus(const tg *t, const int64_t *xe, const float *xw, int nx, kern_dist **d,
                      kern_graph **g)
{
    return kt_build(KERN_DIST_CYCLIC, t->n, t->m, t->e, t->w, xe, xw, nx, d, g);
}

/* The entry of column pid c in local row l of g, -1 when absent. */
static int64_t entry_of(const kern_graph *g, int64_t l, uint32_t c)
{
    for (int64_t i = g->rowptr[l]; i < g->rowptr[l + 1]; i++)
        if (g->col[i] == c) return i;
    return -1;
}

static int odd_weights_on_dropped_entries_keep_the_24_bit_layout(void)
{
    int ok = 1;
    tg t;
    tg_make(&t, 400, 3000, 21);
    int64_t j = 0;
    while (t.e[2 * j] == t.e[2 * j + 1]) j++;
    const int64_t u = t.e[2 * j], v = t.e[2 * j + 1];
    float w0 = t.w[j];   /* the kept weight: the lightest copy of (u, v) */
    for (int64_t i = 0; i < t.m; i++)
        if (((t.e[2 * i] == u && t.e[2 * i + 1] == v) || (t.e[2 * i] == v && t.e[2 * i + 1] == u)) && t.w[i] < w0)
            w0 = t.w[i];
    /* A: a self-loop and two heavier copies of (u, v), all with weights
     * outside the 24-bit set; B: a lighter copy of (u, v), also outside */
    const int64_t xa[6] = {7, 7, u, v, v, u}, xb[2] = {v, u};
    const float wa[3] = {1.0f / 3.0f, 1.0f + 0x1p-23f, 2.0f}, wb[1] = {0x1p-25f};
    kern_dist *d0 = NULL, *da = NULL, *db = NULL;
    kern_graph *g0 = NULL, *ga = NULL, *gb = NULL;
    int rc = g5_agree(MPI_COMM_WORLD, build_plus(&t, NULL, NULL, 0, &d0, &g0));
    if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, build_plus(&t, xa, wa, 3, &da, &ga));
    if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, build_plus(&t, xb, wb, 1, &db, &gb));
    MT_CHECK(rc == G5_OK, "build failed: %s", g5_error_msg());
    if (rc == G5_OK) {
        ok &= layout_is(g0, 1, "generator-like weights");
        ok &= layout_is(ga, 1, "odd weights on a self-loop and heavier duplicates");
        ok &= layout_is(gb, 0, "an odd weight on the lighter duplicate");
        MT_CHECK(ga->nnz_global == g0->nnz_global && gb->nnz_global == g0->nnz_global,
                 "nnz %lld / %lld / %lld: the extra tuples should all merge", (long long)g0->nnz_global,
                 (long long)ga->nnz_global, (long long)gb->nnz_global);
        for (int64_t l = 0; ok && l < g0->nlocal; l++) {
            int64_t x = kern_dist_orig_of_pid(d0, g0->base + l);
            int64_t raw = kern_rawdeg(g0, l) + 2 * (x == u || x == v);
            MT_CHECK(kern_rawdeg(ga, l) == raw, "vertex %lld: raw degree %lld, expected %lld", (long long)x,
                     (long long)kern_rawdeg(ga, l), (long long)raw);
            MT_CHECK(ga->rowptr[l] == g0->rowptr[l] && ga->rowptr[l + 1] == g0->rowptr[l + 1] &&
                     gb->rowptr[l + 1] - gb->rowptr[l] == g0->rowptr[l + 1] - g0->rowptr[l],
                     "vertex %lld: row lengths differ", (long long)x);
            for (int64_t i = g0->rowptr[l]; ok && i < g0->rowptr[l + 1]; i++)
                MT_CHECK(ga->col[i] == g0->col[i] && kern_w(ga, i) == kern_w(g0, i),
                         "vertex %lld entry %lld: (%u, %a), expected (%u, %a)", (long long)x,
                         (long long)(i - g0->rowptr[l]), ga->col[i], (double)kern_w(ga, i), g0->col[i],
                         (double)kern_w(g0, i));
            if (x != u && x != v) continue;
            int64_t other;
            int own;
            kern_dist_locate(d0, x == u ? v : u, &own, &other);
            uint32_t c = (uint32_t)(d0->base[own] + other);
            int64_t i0 = entry_of(g0, l, c), ib = entry_of(gb, l, c);
            MT_CHECK(i0 >= 0 && ib >= 0, "vertex %lld: the edge to %lld is missing", (long long)x,
                     (long long)(x == u ? v : u));
            if (i0 >= 0 && ib >= 0) {
                MT_CHECK(kern_w(g0, i0) == w0, "vertex %lld: weight %a, expected %a", (long long)x,
                         (double)kern_w(g0, i0), (double)w0);
                MT_CHECK(kern_w(gb, ib) == 0x1p-25f, "vertex %lld: the lighter copy's weight %a was "
                         "not kept", (long long)x, (double)kern_w(gb, ib));
                MT_CHECK(ib == gb->rowptr[l], "vertex %lld: the lightest entry is not first in its row",
                         (long long)x);
            }
        }
    }
    kern_graph_free(&g0); kern_graph_free(&ga); kern_graph_free(&gb);
    kern_dist_free(&d0); kern_dist_free(&da); kern_dist_free(&db);
    tg_free(&t);
    return ok;
}

/* a placement that reverses the vertex order, split evenly */
static int make_reversed(int64_t n, kern_dist **d)
{
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t *label = malloc(n * sizeof(int64_t)), *off = malloc((P + 1) * sizeof(int64_t));
    for (int64_t v = 0; v < n; v++) label[v] = n - 1 - v;
    for (int r = 0; r <= P; r++) off[r] = n * r / P;
    int rc = kern_dist_create_placement(MPI_COMM_WORLD, n, label, off, "reversed", d);
    free(label); free(off);
    return rc;
}

static int conversion_in_rounds_equals_one_round(void)
{
    int ok = 1, P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int kind = 0; kind < 3; kind++) {
        tg t;
        tg_make(&t, 1000, 6000, 21 + kind);
        /* every vertex has an edge, so the placement may hold them all */
        for (int64_t v = 0; v < t.n; v++) { t.e[2 * v] = v; t.e[2 * v + 1] = (v + 1) % t.n; }
        kern_dist *d = NULL;
        kern_graph *g = NULL;
        int64_t first, count;
        g5_range_split(t.m, me, P, &first, &count);
        int rc = kind == 0 ? kern_dist_create_cyclic(MPI_COMM_WORLD, t.n, &d)
                 : kind == 1 ? kern_dist_create_block(MPI_COMM_WORLD, t.n, &d)
                             : make_reversed(t.n, &d);
        rc = g5_agree(MPI_COMM_WORLD, rc);
        if (rc == G5_OK)
            rc = g5_agree(MPI_COMM_WORLD, kern_graph_build(MPI_COMM_WORLD, d, t.e + 2 * first,
                                                           t.w + first, count, &g));
        MT_CHECK(rc == G5_OK, "build failed: %s", g5_error_msg());
        if (rc == G5_OK) {
            MT_CHECK(kern_ids_are_original(g) == (P == 1 && kind < 2),
                     "kind %d at %d ranks: kern_ids_are_original = %d", kind, P, kern_ids_are_original(g));
            int64_t nl = g->nlocal, bf, bc;
            g5_range_split(t.n, me, P, &bf, &bc);
            kern_sssp *s = NULL;
            int64_t *pl = malloc((nl + 1) * 8), *pa = malloc((bc + 1) * 8), *pb = malloc((bc + 1) * 8);
            float *dl = malloc((nl + 1) * 4), *xa = malloc((bc + 1) * 4), *xb = malloc((bc + 1) * 4);
            rc = g5_agree(MPI_COMM_WORLD, kern_sssp_create(g, 0.05, &s));
            if (rc == G5_OK) rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(s, 3));
            if (rc == G5_OK) {
                kern_sssp_result(s, pl, dl);
                rc = kern_to_original_ex(g, pl, dl, pa, xa, 0);
                if (rc == G5_OK) rc = kern_to_original_ex(g, pl, dl, pb, xb, 7);
            }
            MT_CHECK(rc == G5_OK, "kind %d: %s", kind, g5_error_msg());
            int64_t reached = 0;
            for (int64_t i = 0; rc == G5_OK && i < bc; i++) {
                MT_CHECK(pa[i] == pb[i] && memcmp(&xa[i], &xb[i], 4) == 0,
                         "kind %d vertex %lld: (%lld, %g) in one round, (%lld, %g) in rounds of 7", kind,
                         (long long)(bf + i), (long long)pa[i], xa[i], (long long)pb[i], xb[i]);
                if (!ok) break;
                reached += pa[i] >= 0;
                if (kern_ids_are_original(g))
                    MT_CHECK(pa[i] == pl[i] && memcmp(&xa[i], &dl[i], 4) == 0,
                             "vertex %lld: the conversion is not the identity", (long long)i);
            }
            MPI_Allreduce(MPI_IN_PLACE, &reached, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            MT_CHECK(reached == t.n, "kind %d: %lld of %lld vertices reached", kind, (long long)reached,
                     (long long)t.n);
            kern_sssp_free(&s);
            free(pl); free(pa); free(pb); free(dl); free(xa); free(xb);
        }
        kern_graph_free(&g);
        kern_dist_free(&d);
        tg_free(&t);
    }
    return ok;
}

static int results_in_place_equal_copies(void)
{
    int ok = 1, P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    tg t;
    tg_make(&t, 1000, 6000, 77);
    kern_dist *d = NULL;
    kern_graph *g = NULL;
    kern_sssp *s = NULL;
    kern_bfs *b = NULL;
    int rc = g5_agree(MPI_COMM_WORLD, build_plus(&t, NULL, NULL, 0, &d, &g));
    if (rc == G5_OK) rc = kern_sssp_create(g, 0.05, &s);
    if (rc == G5_OK) rc = kern_bfs_create(g, &b);
    MT_CHECK(rc == G5_OK, "setup failed: %s", g5_error_msg());
    int64_t nl = rc == G5_OK ? g->nlocal : 0;
    int64_t *pc = malloc((nl + 1) * 8), *bp = malloc((nl + 1) * 8);
    float *dc = malloc((nl + 1) * 4), *dt = malloc((nl + 1) * 4);
    const int64_t roots[3] = {0, 5, 0};
    for (int r = 0; rc == G5_OK && ok && r < 3; r++) {
        rc = g5_agree(MPI_COMM_WORLD, kern_sssp_run(s, roots[r]));
        MT_CHECK(rc == G5_OK, "sssp root %lld: %s", (long long)roots[r], g5_error_msg());
        if (rc) break;
        kern_sssp_result(s, pc, dc);
        int64_t *pt = kern_sssp_take_result(s, dt), reached = 0;
        for (int64_t l = 0; l < nl && ok; l++) {
            MT_CHECK(pt[l] == pc[l] && memcmp(&dt[l], &dc[l], 4) == 0,
                     "root %lld vertex %lld: taken (%lld, %.9g), copied (%lld, %.9g)",
                     (long long)roots[r], (long long)l, (long long)pt[l], dt[l], (long long)pc[l], dc[l]);
            reached += pc[l] >= 0;
        }
        MPI_Allreduce(MPI_IN_PLACE, &reached, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MT_CHECK(reached > 1, "root %lld: only %lld vertices reached", (long long)roots[r],
                 (long long)reached);
        /* the driver lends the taken array to the validator: garbage in it
         * must not leak into the next search (root 0 twice: same result) */
        memset(pt, 0x5A, (size_t)nl * 8);
        size_t sbytes = 0;
        void *scratch = kern_sssp_scratch(s, &sbytes);
        /* the scratch is the ghost words: one per distinct remote target
         * (+1), or one per remote pid (+1) when the bound bytes are by pid
         * (gdirect); none at one rank */
        const int64_t nghost = kern_sssp_get_stats(s)->ghosts;
        const size_t want = ((size_t)(s->gdirect ? s->npid - s->nl : nghost) + 1) * 8;
        MT_CHECK((P > 1) == (scratch != NULL && sbytes == want),
                 "%d ranks: SSSP scratch of %zu bytes for %lld ghosts (gdirect %d)", P, sbytes,
                 (long long)nghost, s->gdirect);
        if (scratch) memset(scratch, 0x5A, sbytes);
        if (r == 0) memcpy(bp, pc, (size_t)nl * 8);
        if (r == 2)
            for (int64_t l = 0; l < nl && ok; l++)
                MT_CHECK(pc[l] == bp[l], "vertex %lld: parent %lld after a lent array, %lld before",
                         (long long)l, (long long)pc[l], (long long)bp[l]);
    }
    /* BFS: scratch overwritten between searches, same parents */
    for (int r = 0; rc == G5_OK && ok && r < 2; r++) {
        rc = g5_agree(MPI_COMM_WORLD, kern_bfs_run(b, 5, NULL));
        MT_CHECK(rc == G5_OK, "bfs: %s", g5_error_msg());
        if (rc) break;
        size_t bytes = 0;
        void *w = kern_bfs_scratch(b, &bytes);
        MT_CHECK(w != NULL && bytes >= (size_t)nl * 8, "scratch of %zu bytes for %lld vertices", bytes,
                 (long long)nl);
        MT_CHECK(bytes >= kern_validate_work_bytes(t.n, me, P),
                 "cyclic: the scratch (%zu bytes) holds the validator's words (%zu)", bytes,
                 kern_validate_work_bytes(t.n, me, P));
        if (r == 0) memcpy(bp, kern_bfs_parent(b), (size_t)nl * 8);
        else
            for (int64_t l = 0; l < nl && ok; l++)
                MT_CHECK(kern_bfs_parent(b)[l] == bp[l], "vertex %lld: BFS parent %lld after "
                         "scratch use, %lld before", (long long)l, (long long)kern_bfs_parent(b)[l],
                         (long long)bp[l]);
        memset(w, 0x5A, bytes);
    }
    free(pc); free(bp); free(dc); free(dt);
    kern_bfs_free(&b);
    kern_sssp_free(&s);
    kern_graph_free(&g);
    kern_dist_free(&d);
    tg_free(&t);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MT_RUN(packed_and_float_weights_give_identical_sssp);
    MT_RUN(odd_weights_fall_back_to_floats);
    MT_RUN(odd_weights_on_dropped_entries_keep_the_24_bit_layout);
    MT_RUN(conversion_in_rounds_equals_one_round);
    MT_RUN(results_in_place_equal_copies);
    return mt_finish();
}
