/* SPDX-License-Identifier: MIT */
/*
 * rep_cache.c - the check `make pipeline` runs on a run directory before Make
 * decides what to rebuild (`g500 report --check DIR ...`).
 *
 * Make trusts a file by its presence and time stamp. Every stage writes a
 * temporary name and renames it when complete (io_file, rep_write_run_json), so
 * presence already means "complete when written"; this check adds what Make
 * cannot see: one open, a few attributes and a full read of every dataset
 * through its checksums per file (--no-data: attributes only):
 *   - the file opens as HDF5 with the expected format and version (a file
 *     copied in half, truncated by a full disk or damaged is caught);
 *   - its identity matches the run: edges.h5 has the scale, edgefactor and
 *     seed the directory stands for; components.h5 and every placement-*.h5
 *     record the content_id of this edges.h5 (so a components file from
 *     another graph is not reused); a placement named "...-npR-rpnK.h5"
 *     holds R ranks and K ranks per node, and (--topology FILE) the
 *     topology_id of FILE's content, so an edited topology under the same
 *     name is caught whatever its time stamp;
 *   - every chunk passes its Fletcher32 checksum (a flipped byte in a
 *     cached file is caught; the read costs about what the stage that reads
 *     the file spends reading it);
 *   - a run-*.json parses as JSON and records this edges.h5's content_id
 *     and (--topology) FILE's topology_id for the topology it ran with and
 *     its placement's: an edited topology redoes the cyclic runs too.
 * A file that fails is removed, so Make rebuilds it, and so is everything
 * made from it (edges -> components -> placements -> runs -> report): an
 * output derived from a file found untrustworthy is not trusted either,
 * whatever the time stamps say (a damaged input may be older than the
 * outputs that were made from its earlier, sound version). Temporary files "NAME.tmp.<pid>" whose
 * writer is gone (no such process, a zombie, or a process started after the
 * file last changed: the pid was reused) are removed as well.
 */
#include "rep_report_int.h"

#include "common.h"
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct checker {
    const rep_cache_expect *e;
    int removed;
    int have_id;
    uint64_t edges_id;
} checker;

static int drop(checker *c, const char *path, const char *why)
{
    fprintf(stderr, "g500 report --check: %s %s: %s\n", c->e->dry_run ? "would remove" : "removing",
            path, why);
    c->removed++;
    if (c->e->dry_run)
        return G5_OK;
    if (rep_rm_tree(path) != 0 && errno != ENOENT)
        return g5_error(G5_ERR_IO, "%s: cannot remove: %s", path, strerror(errno));
    return G5_OK;
}

/* An id attribute written as uint64 or int64. */
static int read_id(io_file *f, const char *name, uint64_t *v)
{
    int64_t i;
    if (io_attr_read_uint64(f, "/", name, v) == G5_OK)
        return G5_OK;
    if (io_attr_read_int64(f, "/", name, &i) == G5_OK) {
        *v = (uint64_t)i;
        return G5_OK;
    }
    return g5_error(G5_ERR_FORMAT, "%s: no attribute %s", io_file_path(f), name);
}

static int expect_attr(io_file *f, const char *name, int64_t want, char *why, size_t len)
{
    int64_t v;
    uint64_t u;
    if (want < 0)
        return 1;
    if (io_attr_read_int64(f, "/", name, &v) != G5_OK) {
        if (io_attr_read_uint64(f, "/", name, &u) != G5_OK) {
            snprintf(why, len, "%s", g5_error_msg());
            return 0;
        }
        v = (int64_t)u;
    }
    if (v != want) {
        snprintf(why, len, "%s is %lld, this run needs %lld", name, (long long)v, (long long)want);
        return 0;
    }
    return 1;
}

/* Every dataset read through its checksums (unless no_data): a damaged
 * chunk of a cached file is found here, before Make reuses the file. */
static int read_data(checker *c, io_file *f, char *why, size_t len)
{
    if (c->e->no_data || io_file_read_all(f) == G5_OK)
        return 1;
    snprintf(why, len, "%s", g5_error_msg());
    return 0;
}

static int check_edges(checker *c, const char *path)
{
    io_file *f = NULL;
    char why[1200] = "";
    int ok;
    if (io_file_open(MPI_COMM_SELF, path, IO_EDGES_FORMAT, IO_EDGES_VERSION, &f) != G5_OK)
        return drop(c, path, g5_error_msg());
    ok = expect_attr(f, "scale", c->e->scale, why, sizeof why) &&
         expect_attr(f, "edgefactor", c->e->edgefactor, why, sizeof why) &&
         expect_attr(f, "seed", c->e->seed, why, sizeof why);
    if (ok && read_id(f, "content_id", &c->edges_id) != G5_OK) {
        snprintf(why, sizeof why, "%s", g5_error_msg());
        ok = 0;
    }
    ok = ok && read_data(c, f, why, sizeof why);
    io_file_close(&f);
    if (!ok)
        return drop(c, path, why);
    c->have_id = 1;
    return G5_OK;
}

/* Rank count and ranks per node encoded in "placement-TOPO-npR-rpnK.h5". */
static void name_ranks(const char *name, int64_t *np, int64_t *rpn)
{
    const char *p = strstr(name, "-np");
    long long a, b;
    *np = *rpn = -1;
    while (p) {
        if (sscanf(p, "-np%lld-rpn%lld", &a, &b) == 2) {
            *np = a;
            *rpn = b;
        }
        p = strstr(p + 1, "-np");
    }
}

static int check_downstream(checker *c, const char *path, const char *name, const char *format)
{
    io_file *f = NULL;
    char why[1200] = "";
    uint64_t id;
    int ok = 1;
    if (io_file_open(MPI_COMM_SELF, path, format, 1, &f) != G5_OK)
        return drop(c, path, g5_error_msg());
    if (c->have_id) {
        if (read_id(f, "edges_content_id", &id) != G5_OK) {
            snprintf(why, sizeof why, "%s", g5_error_msg());
            ok = 0;
        } else if (id != c->edges_id) {
            snprintf(why, sizeof why, "made from another edges file (edges_content_id %llx, "
                     "edges.h5 has %llx)", (unsigned long long)id, (unsigned long long)c->edges_id);
            ok = 0;
        }
    }
    if (ok && strcmp(format, "g500-placement") == 0) {
        int64_t np, rpn;
        name_ranks(name, &np, &rpn);
        ok = expect_attr(f, "nranks", np, why, sizeof why) &&
             expect_attr(f, "ranks_per_node", rpn, why, sizeof why);
        /* A topology changed under the same name is told by its content. */
        if (ok && c->e->have_topology) {
            if (read_id(f, "topology_id", &id) != G5_OK) {
                snprintf(why, sizeof why, "%s", g5_error_msg());
                ok = 0;
            } else if (id != c->e->topology_id) {
                snprintf(why, sizeof why, "made from another topology than %s (topology_id %016llx, "
                         "the file now %016llx)", c->e->topology, (unsigned long long)id,
                         (unsigned long long)c->e->topology_id);
                ok = 0;
            }
        }
    }
    ok = ok && read_data(c, f, why, sizeof why);
    io_file_close(&f);
    return ok ? G5_OK : drop(c, path, why);
}

/* The id a run JSON records for one of its inputs (provenance.inputs.<input>.<key>,
 * a hex string): 1 and *id when present, 0 when that input was not given. */
static int run_input_id(const rep_json *j, const char *input, const char *key, uint64_t *id)
{
    const rep_json *in = rep_json_get(rep_json_get(rep_json_get(j, "provenance"), "inputs"), input);
    const char *s = rep_json_string(rep_json_get(in, key), NULL);
    char *end = NULL;
    if (!s)
        return 0;
    *id = strtoull(s, &end, 16);
    return 1;
}

/* A run JSON parses, and the inputs it records are the directory's: the
 * edges file's content_id, and with --topology the topology's content (the
 * run's own topology and its placement's), so a run made with a topology
 * edited since, whatever its time stamp, is not kept. */
static int check_run(checker *c, const char *path)
{
    rep_json *j = NULL;
    char why[1200] = "";
    uint64_t id;
    if (rep_json_load(path, &j) != G5_OK)
        return drop(c, path, g5_error_msg());
    if (c->have_id && run_input_id(j, "edges", "content_id", &id) && id != c->edges_id)
        snprintf(why, sizeof why, "made from another edges file (content_id %016llx, edges.h5 has "
                 "%016llx)", (unsigned long long)id, (unsigned long long)c->edges_id);
    else if (c->e->have_topology && ((run_input_id(j, "topology", "topology_id", &id) && id != c->e->topology_id) ||
                                     (run_input_id(j, "placement", "topology_id", &id) && id != c->e->topology_id)))
        snprintf(why, sizeof why, "made with another topology than %s (topology_id %016llx, the file now "
                 "%016llx)", c->e->topology, (unsigned long long)id, (unsigned long long)c->e->topology_id);
    rep_json_free(&j);
    return why[0] ? drop(c, path, why) : G5_OK;
}

/* Index of entry `name` in ents[0..n-1], or -1. */
static int find_entry(struct dirent **ents, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(ents[i]->d_name, name) == 0)
            return i;
    return -1;
}

/* Why entry nm must go because something it was made from went, or NULL.
 * gone[i]: entry i was removed. */
static const char *dependent_of_gone(struct dirent **ents, int n, const char *gone, const char *nm)
{
    static char why[800];
    int e = find_entry(ents, n, "edges.h5"), c = find_entry(ents, n, "components.h5");
    int edges_gone = e >= 0 && gone[e], comp_gone = c >= 0 && gone[c];
    const char *stem = NULL;
    size_t len;
    if (strcmp(nm, "components.h5") == 0 ||
        (strncmp(nm, "placement-", 10) == 0 && rep_has_suffix(nm, ".h5")) ||
        (strncmp(nm, "run-", 4) == 0 && (rep_has_suffix(nm, ".json") || rep_has_suffix(nm, ".txt")))) {
        if (edges_gone)
            return "made from the removed edges.h5";
    }
    if (strncmp(nm, "placement-", 10) == 0 && rep_has_suffix(nm, ".h5") && comp_gone)
        return "made from the removed components.h5";
    if (strncmp(nm, "run-components-", 15) == 0) {
        stem = nm + 15;
        len = rep_has_suffix(nm, ".json") ? strlen(stem) - 5 : rep_has_suffix(nm, ".txt") ? strlen(stem) - 4 : 0;
        /* "PLACE.rI": the I-th alternated run on placement-PLACE.h5 */
        size_t d = len;
        while (d > 0 && stem[d - 1] >= '0' && stem[d - 1] <= '9')
            d--;
        if (d < len && d >= 2 && stem[d - 1] == 'r' && stem[d - 2] == '.')
            len = d - 2;
        if (len > 0 && len < 500) {
            char pl[600];
            snprintf(pl, sizeof pl, "placement-%.*s.h5", (int)len, stem);
            int k = find_entry(ents, n, pl);
            if (comp_gone || k < 0 || gone[k]) {
                snprintf(why, sizeof why, "made with %s %s", k < 0 ? "the missing" : "the removed",
                         comp_gone ? "components.h5" : pl);
                return why;
            }
        }
    }
    return NULL;
}

int rep_cache_check(const rep_cache_expect *e, int *nremoved)
{
    checker c = {e, 0, 0, 0};
    struct dirent **ents = NULL;
    char path[4096], *gone = NULL;
    int n, rc = G5_OK;
    *nremoved = 0;
    if (!e || !e->dir)
        return g5_error(G5_ERR_ARG, "no run directory given");
    n = scandir(e->dir, &ents, NULL, alphasort);
    if (n < 0) {
        if (errno == ENOENT)
            return G5_OK;   /* a new run: nothing cached */
        return g5_error(G5_ERR_IO, "%s: cannot list: %s", e->dir, strerror(errno));
    }
    gone = g5_calloc((size_t)n + 1, 1, "cache check flags");
    if (!gone) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
    /* edges.h5 first: the others are checked against its content_id. */
    snprintf(path, sizeof path, "%s/edges.h5", e->dir);
    int ie = find_entry(ents, n, "edges.h5");
    if (ie >= 0) {
        rc = check_edges(&c, path);
        gone[ie] = c.removed > 0;
    }
    for (int i = 0; i < n && rc == G5_OK; i++) {
        const char *nm = ents[i]->d_name;
        int before = c.removed;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", e->dir, nm) >= sizeof path)
            continue;
        if (strstr(nm, ".tmp.")) {
            if (g5_tmp_stale(path))
                rc = drop(&c, path, "left by an interrupted writer");
        } else if (strcmp(nm, "components.h5") == 0) {
            rc = check_downstream(&c, path, nm, "g500-components");
        } else if (strncmp(nm, "placement-", 10) == 0 && rep_has_suffix(nm, ".h5")) {
            rc = check_downstream(&c, path, nm, "g500-placement");
        } else if (strncmp(nm, "run-", 4) == 0 && rep_has_suffix(nm, ".json")) {
            rc = check_run(&c, path);
        }
        gone[i] |= c.removed > before;
    }
    /* What was made from a removed file goes too (see the header). Repeat
     * until nothing more goes (edges -> components -> placement -> run). */
    for (int changed = 1; changed && rc == G5_OK;) {
        changed = 0;
        for (int i = 0; i < n && rc == G5_OK; i++) {
            const char *nm = ents[i]->d_name, *why;
            if (gone[i] || !(why = dependent_of_gone(ents, n, gone, nm)))
                continue;
            snprintf(path, sizeof path, "%s/%s", e->dir, nm);
            rc = drop(&c, path, why);
            gone[i] = changed = 1;
        }
    }
    /* The report summarises everything: it goes with anything removed. */
    int ir = find_entry(ents, n, "report"), any = 0;
    for (int i = 0; i < n; i++)
        any |= gone[i] && !strstr(ents[i]->d_name, ".tmp.");
    if (rc == G5_OK && ir >= 0 && any) {
        snprintf(path, sizeof path, "%s/report", e->dir);
        rc = drop(&c, path, "made from a removed file");
    }
out:
    for (int i = 0; i < n; i++)
        free(ents[i]);
    free(ents);
    free(gone);
    if (rc == G5_OK)
        g5_error_clear();
    *nremoved = c.removed;
    return rc;
}
