/* SPDX-License-Identifier: MIT */
/*
 * mpi_part_faults.c - one rank fails, every rank stops: fault injection in
 * the placement (part_place) and, in process, the whole `partition`
 * command (topology, input files, placement, placement file, rankfile,
 * hostfile and machinefile), `stats` of a placement file and `topo`. Run at 1, 2 and 4
 * ranks under a timeout, so a rank left waiting in a collective another
 * one skipped is a failure (with MPI_ERRORS_RETURN, mismatched collectives
 * may also return errors: then the statuses or messages differ, a failure
 * too).
 *
 * Allocation failures: this binary is linked with
 * -Wl,--wrap=g5_malloc,--wrap=g5_calloc (tests/module.mk), so every
 * g5_malloc/g5_calloc call of the library goes through __wrap_* below,
 * which makes the k-th call on one chosen rank fail like the real one (NULL
 * and a G5_ERR_NOMEM message). For k = 0, 1, 2, ... until the run
 * succeeds, each case checks that every rank returns the same failure
 * with the same message, no result, and (for the command) no output file
 * or temporary file left behind. Production code is not changed for this.
 *
 * Bad data on one rank only: a label out of range in one rank's block,
 * and two edges of the last slab crossed so that they join component 0 to
 * another component while every degree and component count stays right
 * (so only the BFS or the metrics pass can see it).
 */
#include "common.h"
#include "mpitest.h"
#include "part.h"
#include "part_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "part_testgraph.h"

int gen_cmd(int argc, char **argv);
int components_cmd(int argc, char **argv);
int stats_cmd(int argc, char **argv);
int topo_cmd(int argc, char **argv);

static int me, P;

/* ---- the allocation wrapper ------------------------------------------- */
void *__real_g5_malloc(size_t bytes, const char *what);
void *__real_g5_calloc(size_t n, size_t size, const char *what);

static int fail_rank = -1;   /* -1: never fail */
static long fail_at = -1, calls = 0;

static int inject(void)
{
    return fail_rank == me && calls++ == fail_at;
}

void *__wrap_g5_malloc(size_t bytes, const char *what)
{
    if (inject()) {
        g5_error(G5_ERR_NOMEM, "%s: cannot allocate %zu bytes (injected: call %ld on rank %d)", what,
                 bytes, fail_at, me);
        return NULL;
    }
    return __real_g5_malloc(bytes, what);
}

void *__wrap_g5_calloc(size_t n, size_t size, const char *what)
{
    if (inject()) {
        g5_error(G5_ERR_NOMEM, "%s: cannot allocate %zu x %zu bytes (injected: call %ld on rank %d)",
                 what, n, size, fail_at, me);
        return NULL;
    }
    return __real_g5_calloc(n, size, what);
}

static void arm(int rank, long k)
{
    fail_rank = rank;
    fail_at = k;
    calls = 0;
}

static void disarm(void) { fail_rank = -1; }

/* The status and the message agree on every rank. */
static int agreed_failure(int rc, int want, const char *label, long k)
{
    int ok = 1;
    MT_CHECK(mt_same_everywhere(rc), "%s, failing call %ld: ranks return different statuses (here %d)", label,
             k, rc);
    MT_CHECK(rc == want, "%s, failing call %ld: status %d, expected %d (%s)", label, k, rc, want,
             g5_error_msg());
    MT_CHECK(mt_same_everywhere((int64_t)mt_hash(g5_error_msg())),
             "%s, failing call %ld: ranks print different messages (here '%s')", label, k, g5_error_msg());
    return ok;
}

/* ---- part_place --------------------------------------------------------- */
static int place(int order, double tol, part_result **res)
{
    int64_t ef, ec, vf, vc;
    g5_range_split(M, me, P, &ef, &ec);
    g5_range_split(N, me, P, &vf, &vc);
    part_input in = {
        .nvertices = N, .nedges_local = ec, .edges = E + 2 * ef, .label = label + vf,
        .ncomponents = C, .comp_vertices = cv, .comp_edges = ce, .nranks = R,
        .rank_node = rank_node, .nnodes = 8, .node_hops = hops, .tolerance = tol, .order = order,
    };
    return part_place(MPI_COMM_WORLD, &in, res);
}

/* Every allocation of part_place failing in turn on rank `victim`: the
 * same G5_ERR_NOMEM and message on every rank and no result, until the
 * allocations run out and the placement succeeds. Returns the number of
 * allocation points exercised (-1 on a check failure). */
static long place_fails_cleanly(int order, double tol, int victim, int64_t *hubs)
{
    int ok = 1;
    char what[64];
    long k;
    snprintf(what, sizeof what, "part_place %s tol %.2f, rank %d", part_order_name(order), tol, victim);
    for (k = 0; ok; k++) {
        part_result *res = (part_result *)&k;
        int rc;
        arm(victim, k);
        rc = place(order, tol, &res);
        disarm();
        if (mt_same_everywhere(rc) && rc == G5_OK) {
            *hubs = res->giant_hubs;
            part_result_free(&res);
            break;
        }
        ok = agreed_failure(rc, G5_ERR_NOMEM, what, k);
        MT_CHECK(strstr(g5_error_msg(), "injected") != NULL, "%s, call %ld: not the injected failure: %s",
                 what, k, g5_error_msg());
        MT_CHECK(res == NULL, "%s, call %ld: a result on failure", what, k);
    }
    if (ok && me == 0)
        printf("  %s: %ld allocation points\n", what, k);
    return ok ? k : -1;
}

static int every_allocation_of_the_placement_can_fail_on_one_rank(void)
{
    int ok = 1;
    const struct { int order; double tol; } v[] = {
        {PART_ORDER_BFS, 0.05}, {PART_ORDER_LEAVES, 0.05}, {PART_ORDER_DEGREE, 0.0},
    };
    int victims[2] = {P - 1, 0};
    for (size_t i = 0; ok && i < sizeof v / sizeof v[0]; i++)
        for (int j = 0; ok && j < (P > 1 ? 2 : 1); j++) {
            int64_t hubs = 0;
            long n = place_fails_cleanly(v[i].order, v[i].tol, victims[j], &hubs);
            MT_CHECK(n > 20, "%s: only %ld allocation points exercised", part_order_name(v[i].order), n);
            if (v[i].tol == 0.0)
                MT_CHECK(hubs > 0, "tolerance 0 must take the hub fallback (a second cut) too");
        }
    return ok;
}

/* ---- bad data on one rank ---------------------------------------------- */
static int a_bad_label_in_one_block_fails_on_every_rank(void)
{
    int ok = 1, rc;
    int64_t vf, vc, v, save;
    part_result *res = NULL;
    g5_range_split(N, P - 1, P, &vf, &vc);
    v = vf + vc - 1;   /* in the last rank's block only */
    save = label[v];
    label[v] = C + 3;
    rc = place(PART_ORDER_LEAVES, 0.05, &res);
    label[v] = save;
    ok = agreed_failure(rc, G5_ERR_MISMATCH, "bad label", 0);
    {
        char want[96];
        snprintf(want, sizeof want, "vertex %lld has component id %lld", (long long)v, (long long)(C + 3));
        MT_CHECK(strstr(g5_error_msg(), want) != NULL, "the message names the vertex: %s", g5_error_msg());
    }
    MT_CHECK(res == NULL, "no result on failure");
    return ok;
}

/* Tuples i (in component 0) and j (in component `other`) become the last
 * two of E, then their second endpoints are crossed. Degrees, component
 * vertex counts and degree sums do not change. Returns 0 if the graph has
 * no such pair. */
static int cross_last_two(int64_t other, int64_t *saved)
{
    int64_t i = -1, j = -1;
    for (int64_t e = 0; e < M && (i < 0 || j < 0); e++) {
        int64_t u = E[2 * e], v = E[2 * e + 1];
        if (u == v)
            continue;
        if (i < 0 && label[u] == 0)
            i = e;
        else if (j < 0 && label[u] == other)
            j = e;
    }
    if (i < 0 || j < 0)
        return 0;
    memcpy(saved, E, (size_t)2 * M * sizeof(int64_t));
    int64_t a[2] = {E[2 * i], E[2 * i + 1]}, b[2] = {E[2 * j], E[2 * j + 1]};
    E[2 * i] = E[2 * (M - 2)], E[2 * i + 1] = E[2 * (M - 2) + 1];
    E[2 * j] = E[2 * (M - 1)], E[2 * j + 1] = E[2 * (M - 1) + 1];
    E[2 * (M - 2)] = a[0], E[2 * (M - 2) + 1] = b[1];
    E[2 * (M - 1)] = b[0], E[2 * (M - 1) + 1] = a[1];
    return 1;
}

static int an_edge_joining_components_in_one_slab_fails_on_every_rank(void)
{
    int ok = 1;
    int64_t *saved = malloc((size_t)2 * M * sizeof(int64_t));
    MT_CHECK(C > 1, "the test graph has small components (%lld)", (long long)C);
    if (ok && cross_last_two(1, saved)) {
        for (int order = PART_ORDER_BFS; order <= PART_ORDER_LEAVES; order += PART_ORDER_LEAVES) {
            part_result *res = NULL;
            int rc = place(order, 0.05, &res);
            ok &= agreed_failure(rc, G5_ERR_MISMATCH, part_order_name(order), 0);
            MT_CHECK(strstr(g5_error_msg(), "join") != NULL, "%s: the message says what is wrong: %s",
                     part_order_name(order), g5_error_msg());
            MT_CHECK(res == NULL, "no result on failure");
        }
        memcpy(E, saved, (size_t)2 * M * sizeof(int64_t));
    } else {
        MT_CHECK(0, "no edge of component 1 in the test graph");
    }
    free(saved);
    return ok;
}

/* ---- the command ------------------------------------------------------- */
static char dir[256];

static int run_cmd(int (*fn)(int, char **), const char *const *args)
{
    char *argv[24];
    int argc = 0;
    for (; args[argc]; argc++)
        argv[argc] = (char *)args[argc];
    argv[argc] = NULL;
    return fn(argc, argv);
}

/* Files in dir besides the two inputs (rank 0 looks; agreed count). */
static int64_t extra_files(char *first, size_t len)
{
    int64_t n = 0;
    first[0] = '\0';
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "e.h5") &&
                strcmp(de->d_name, "c.h5")) {
                if (!n)
                    snprintf(first, len, "%s", de->d_name);
                n++;
            }
        if (d)
            closedir(d);
    }
    MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return n;
}

static void remove_outputs(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        const char *s[] = {"p.h5", "p.rankfile", "p.hostfile", "p.machinefile"};
        char path[300];
        for (int i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, s[i]);
            unlink(path);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Command `fn args` with the k-th allocation failing on rank `victim`,
 * for k = 0, 1, ... until it succeeds: every rank exits 1 with the same
 * injected message and, if check_files, nothing but the inputs is left in
 * dir. Its output and error lines go to /dev/null. Returns the number of
 * allocation points exercised, -1 on a check failure. */
static long command_fails_cleanly(const char *name, int (*fn)(int, char **), const char *const *args,
                                  int victim, int check_files)
{
    int ok = 1;
    long k;
    for (k = 0; ok; k++) {
        char extra[256];
        int code, out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
        fflush(stdout);
        fflush(stderr);
        dup2(null, 1);
        dup2(null, 2);
        arm(victim, k);
        code = run_cmd(fn, args);
        disarm();
        fflush(stdout);
        fflush(stderr);
        dup2(out, 1);
        dup2(err, 2);
        close(out);
        close(err);
        close(null);
        if (mt_same_everywhere(code) && code == 0)
            break;
        MT_CHECK(mt_same_everywhere(code), "%s, rank %d, call %ld: ranks exit with different codes (here %d)", name,
                 victim, k, code);
        MT_CHECK(code == 1, "%s, rank %d, call %ld: exit code %d, expected 1 on every rank", name, victim, k,
                 code);
        MT_CHECK(mt_same_everywhere((int64_t)mt_hash(g5_error_msg())),
                 "%s, rank %d, call %ld: ranks hold different messages (here '%s')", name, victim, k,
                 g5_error_msg());
        MT_CHECK(strstr(g5_error_msg(), "injected") != NULL, "%s, call %ld: not the injected failure: %s", name,
                 k, g5_error_msg());
        if (check_files)
            MT_CHECK(extra_files(extra, sizeof extra) == 0, "%s, rank %d, call %ld: '%s' left behind (%s)", name,
                     victim, k, extra, g5_error_msg());
    }
    if (ok && me == 0)
        printf("  %s, rank %d: %ld allocation points\n", name, victim, k);
    return ok ? k : -1;
}

static int every_allocation_of_the_commands_can_fail_on_one_rank(void)
{
    int ok = 1;
    char e[300], c[300], p[300];
    int victims[2] = {P - 1, 0};
    const char *part[] = {"partition", "-q", e, c, "--topology", "configs/fat-tree-4x4.conf", "--ranks", "8",
                          "--ranks-per-node", "2", "-o", p, NULL};
    const char *topo[] = {"topo", "configs/three-level-4x4x4.conf", "--ranks", "16", "--ranks-per-node", "2",
                          NULL};
    const char *stats[] = {"stats", p, NULL};
    snprintf(e, sizeof e, "%s/e.h5", dir);
    snprintf(c, sizeof c, "%s/c.h5", dir);
    snprintf(p, sizeof p, "%s/p.h5", dir);
    for (int j = 0; ok && j < (P > 1 ? 2 : 1); j++) {
        long n = command_fails_cleanly("partition", partition_cmd, part, victims[j], 1);
        MT_CHECK(n > 50, "partition: only %ld allocation points exercised", n);
        /* The placement file just written, read back by `g500 stats`. */
        if (ok)
            MT_CHECK(command_fails_cleanly("stats", stats_cmd, stats, victims[j], 0) > 0, "stats");
        remove_outputs();
        if (ok)
            MT_CHECK(command_fails_cleanly("topo", topo_cmd, topo, victims[j], 0) > 0, "topo");
    }
    return ok;
}

int main(int argc, char **argv)
{
    int rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    g5_log_init(MPI_COMM_WORLD, 1);
    build_graph();
    MT_RUN(every_allocation_of_the_placement_can_fail_on_one_rank);
    MT_RUN(a_bad_label_in_one_block_fails_on_every_rank);
    MT_RUN(an_edge_joining_components_in_one_slab_fails_on_every_rank);

    if (me == 0) {
        snprintf(dir, sizeof dir, "/tmp/g500-part-faults.XXXXXX");
        if (!mkdtemp(dir))
            dir[0] = '\0';
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    {
        char e[300], c[300];
        const char *gen[] = {"gen", "-q", "--scale", "9", "--seed", "5", "-o", e, NULL};
        const char *cc[] = {"components", "-q", e, "-o", c, NULL};
        snprintf(e, sizeof e, "%s/e.h5", dir);
        snprintf(c, sizeof c, "%s/c.h5", dir);
        rc = dir[0] ? run_cmd(gen_cmd, gen) : 1;
        if (rc == 0)
            rc = run_cmd(components_cmd, cc);
    }
    if (rc == 0) {
        MT_RUN(every_allocation_of_the_commands_can_fail_on_one_rank);
    } else {
        if (me == 0)
            fprintf(stderr, "cannot make the command's inputs in %s\n", dir);
        mt_failed++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && dir[0]) {
        char path[300];
        const char *s[] = {"e.h5", "c.h5"};
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, s[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    free(E), free(label), free(cv), free(ce);
    return mt_finish();
}
