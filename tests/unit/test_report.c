/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - statistics, the Graph500 output block and the JSON result
 * (report/rep_*.c). Expected statistics are worked out by hand in the
 * comments; the output block is parsed back line by line against the key
 * list of the reference code v3.0.1, written out here independently; the
 * JSON is parsed back with a small recursive-descent parser.
 */
#include <criterion/criterion.h>

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "kern_validate.h"
#include "rep_run.h"

#define NEAR(a, b, rel) (fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)) + 1e-300)

/* ---- statistics ---------------------------------------------------------- */

Test(stats, even_count_quartiles_average_two_middle_values)
{
    /* sorted 1 2 3 4: q1 = (x[0]+x[1])/2 = 1.5, median = (2+3)/2 = 2.5,
     * q3 = (x[3]+x[2])/2 = 3.5, mean 2.5, var = (2.25+0.25+0.25+2.25)/3 = 5/3 */
    const double x[] = {4, 1, 3, 2};
    rep_stats s;
    rep_stats_of(x, 4, &s);
    cr_expect_eq(s.min, 1.0, "min %g", s.min);
    cr_expect_eq(s.firstquartile, 1.5, "q1 %g", s.firstquartile);
    cr_expect_eq(s.median, 2.5, "median %g", s.median);
    cr_expect_eq(s.thirdquartile, 3.5, "q3 %g", s.thirdquartile);
    cr_expect_eq(s.max, 4.0, "max %g", s.max);
    cr_expect_eq(s.mean, 2.5, "mean %g", s.mean);
    cr_expect(NEAR(s.stddev, 1.2909944487358056, 1e-14), "stddev %.17g", s.stddev);
}

Test(stats, odd_count_quartiles_pick_order_statistics)
{
    /* sorted 1 3 5 7 9: (n-1)/4 = n/4 = 1 -> q1 = 3; median x[2] = 5;
     * q3 = x[3] = 7; var = (16+4+0+4+16)/4 = 10 */
    const double x[] = {5, 1, 9, 3, 7};
    rep_stats s;
    rep_stats_of(x, 5, &s);
    cr_expect_eq(s.firstquartile, 3.0, "q1 %g", s.firstquartile);
    cr_expect_eq(s.median, 5.0, "median %g", s.median);
    cr_expect_eq(s.thirdquartile, 7.0, "q3 %g", s.thirdquartile);
    cr_expect_eq(s.mean, 5.0, "mean %g", s.mean);
    cr_expect(NEAR(s.stddev, 3.1622776601683795, 1e-14), "stddev %.17g", s.stddev);
}

Test(stats, six_values)
{
    /* 1..6: (n-1)/4 = 1, n/4 = 1 -> q1 = 2; median (3+4)/2 = 3.5;
     * q3: x[5-1] = 5 twice -> 5; var = 17.5/5 = 3.5 */
    const double x[] = {6, 5, 4, 3, 2, 1};
    rep_stats s;
    rep_stats_of(x, 6, &s);
    cr_expect_eq(s.firstquartile, 2.0);
    cr_expect_eq(s.median, 3.5);
    cr_expect_eq(s.thirdquartile, 5.0);
    cr_expect(NEAR(s.stddev, sqrt(3.5), 1e-14), "stddev %.17g", s.stddev);
}

Test(stats, one_value_has_zero_stddev)
{
    const double x[] = {7};
    rep_stats s;
    rep_stats_of(x, 1, &s);
    cr_expect(s.min == 7 && s.firstquartile == 7 && s.median == 7 && s.thirdquartile == 7 &&
              s.max == 7 && s.mean == 7, "every order statistic is the value");
    cr_expect_eq(s.stddev, 0.0, "stddev of one sample %g", s.stddev);
}

Test(stats, input_is_not_reordered)
{
    double x[] = {3, 1, 2};
    rep_stats s;
    rep_stats_of(x, 3, &s);
    cr_expect(x[0] == 3 && x[1] == 1 && x[2] == 2, "rep_stats_of sorted its input");
}

Test(stats, teps_harmonic_mean_and_norris_stddev)
{
    /* TEPS 100, 50, 25 (times 1, 2, 4 for 100 edges). Seconds per edge
     * s = .01 .02 .04, mean .07/3; harmonic mean = 3/.07 = 42.857142857...;
     * var(s) = ((-.04/3)^2 + (-.01/3)^2 + (.05/3)^2)/2 = .0042/9/2 = 7/30000;
     * Norris: sqrt(7/30000) / ((.07/3)^2 sqrt(2)) = 19.839002... */
    const double t[] = {1, 2, 4};
    const int64_t m[] = {100, 100, 100};
    rep_stats s;
    double hm, hs;
    rep_teps_stats(t, m, 3, &s, &hm, &hs);
    cr_expect(NEAR(hm, 42.857142857142857, 1e-13), "harmonic mean %.17g", hm);
    cr_expect(NEAR(hs, 19.839002137983, 1e-11), "harmonic stddev %.17g", hs);
    cr_expect(NEAR(s.min, 25, 1e-13), "min TEPS %g", s.min);
    cr_expect(NEAR(s.firstquartile, 25, 1e-13), "q1 TEPS %g", s.firstquartile);
    cr_expect(NEAR(s.median, 50, 1e-13), "median TEPS %g", s.median);
    cr_expect(NEAR(s.thirdquartile, 100, 1e-13), "q3 TEPS %g", s.thirdquartile);
    cr_expect(NEAR(s.max, 100, 1e-13), "max TEPS %g", s.max);
}

Test(stats, teps_uses_per_root_edge_counts)
{
    /* 200 edges in 1 s and 100 edges in 1 s: s = .005 .01, harmonic mean
     * 2/.015 = 133.33..., not the 150 of the arithmetic mean. */
    const double t[] = {1, 1};
    const int64_t m[] = {200, 100};
    rep_stats s;
    double hm;
    rep_teps_stats(t, m, 2, &s, &hm, NULL);
    cr_expect(NEAR(hm, 133.33333333333333, 1e-13), "harmonic mean %.17g", hm);
    cr_expect(NEAR(s.max, 200, 1e-13) && NEAR(s.min, 100, 1e-13), "min %g max %g", s.min, s.max);
}

/* ---- the Graph500 block --------------------------------------------------- */

static double g_bt[4] = {0.5, 0.25, 1.0, 0.75};
static double g_st[4] = {2.0, 1.5, 3.0, 2.5};
static int64_t g_bn[4] = {1000, 2000, 3000, 12345678901LL};
static int64_t g_roots[4] = {1, 5, 9, 13};
static double g_bv[4] = {0.1, 0.2, 0.3, 0.4};
static double g_sv[4] = {0.5, 0.6, 0.7, 0.8};

static rep_run sample_report(void)
{
    rep_run r;
    memset(&r, 0, sizeof r);
    r.scale = 16; r.edgefactor = 16; r.nranks = 2; r.nthreads = 1; r.nroots = 4;
    r.roots = g_roots;
    r.generation_time = 10.7892; r.construction_time = 6.84661;
    r.bfs_done = 1; r.sssp_done = 1; r.validated = 1;
    r.bfs_time = g_bt; r.sssp_time = g_st;
    r.bfs_nedge = g_bn; r.sssp_nedge = g_bn;
    r.bfs_validate_time = g_bv; r.sssp_validate_time = g_sv;
    r.placement = "cyclic"; r.edges_path = "data/edges \"s16\".h5";
    r.nvertices = 65536; r.nedges = 1048576; r.n_active = 65536;
    r.read_time = 0.5; r.peak_rss_max = 123456789;
    return r;
}

/* The reference v3.0.1 key list (src/main.c), in order, without prefix. */
static const char *ref_keys_head[] = {"SCALE:", "edgefactor:", "NBFS:", "graph_generation:",
                                      "num_mpi_processes:", "construction_time:"};
static const char *stat7[] = {"min", "firstquartile", "median", "thirdquartile",
                              "max", "mean", "stddev"};
static const char *teps7[] = {"min_TEPS", "firstquartile_TEPS", "median_TEPS",
                              "thirdquartile_TEPS", "max_TEPS", "harmonic_mean_TEPS",
                              "harmonic_stddev_TEPS"};

static int expected_keys(int bfs, int sssp, char keys[][40])
{
    int n = 0;
    for (int i = 0; i < 6; i++) snprintf(keys[n++], 40, "%s", ref_keys_head[i]);
    if (bfs) for (int i = 0; i < 7; i++) snprintf(keys[n++], 40, "bfs  %s_time:", stat7[i]);
    if (sssp) for (int i = 0; i < 7; i++) snprintf(keys[n++], 40, "sssp %s_time:", stat7[i]);
    for (int i = 0; i < 7; i++) snprintf(keys[n++], 40, "%s_nedge:", stat7[i]);
    if (bfs) for (int i = 0; i < 7; i++) snprintf(keys[n++], 40, "bfs  %s:", teps7[i]);
    if (sssp) for (int i = 0; i < 7; i++) snprintf(keys[n++], 40, "sssp %s:", teps7[i]);
    if (bfs) for (int i = 0; i < 7; i++) snprintf(keys[n++], 40, "bfs  %s_validate:", stat7[i]);
    if (sssp) for (int i = 0; i < 7; i++) snprintf(keys[n++], 40, "sssp %s_validate:", stat7[i]);
    return n;
}

typedef struct parsed { char key[40]; double v; int harmonic; char raw[64]; } parsed;

static int parse_block(const char *text, parsed *out, int max)
{
    int n = 0;
    const char *p = text;
    while (*p && n < max) {
        const char *e = strchr(p, '\n');
        cr_assert(e, "block line without newline");
        int len = (int)(e - p);
        cr_assert(len > 32, "line shorter than the 32-character key field: '%.*s'", len, p);
        char field[33];
        memcpy(field, p, 32);
        field[32] = 0;
        parsed *q = &out[n++];
        q->harmonic = strncmp(field + 29, "!  ", 3) == 0;
        if (q->harmonic) field[29] = 0;
        char *sp = field + strlen(field);
        while (sp > field && sp[-1] == ' ') *--sp = 0;
        /* left-justified: the key starts in column 0 and the padding is blanks */
        cr_assert(field[0] != ' ', "key not left-justified: '%.*s'", len, p);
        snprintf(q->key, sizeof q->key, "%s", field);
        snprintf(q->raw, sizeof q->raw, "%.*s", len - 32, p + 32);
        char *end;
        q->v = strtod(q->raw, &end);
        if (end == q->raw) q->v = NAN;
        p = e + 1;
    }
    return n;
}

static char *print_block(const rep_run *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    cr_assert_eq(rep_print_graph500(f, r), G5_OK, "print failed: %s", g5_error_msg());
    fclose(f);
    return buf;
}

Test(graph500, every_reference_key_in_order_with_values)
{
    rep_run r = sample_report();
    char *text = print_block(&r);
    char keys[80][40];
    int nk = expected_keys(1, 1, keys);
    parsed got[100];
    int n = parse_block(text, got, 100);
    cr_assert_eq(n, nk, "%d lines, expected %d:\n%s", n, nk, text);
    for (int i = 0; i < nk; i++) {
        cr_expect_str_eq(got[i].key, keys[i], "line %d", i);
        int harm = strstr(keys[i], "harmonic_mean") != NULL;
        cr_expect_eq(got[i].harmonic, harm, "'!  ' marker on line %d (%s)", i, keys[i]);
    }
    /* values: integers, %g (6 significant digits), %.11g for nedge */
    cr_expect_str_eq(got[0].raw, "16");
    cr_expect_str_eq(got[2].raw, "4");
    cr_expect_str_eq(got[4].raw, "2");
    cr_expect_str_eq(got[3].raw, "10.7892");
    cr_expect_str_eq(got[5].raw, "6.84661");
    /* bfs times sorted .25 .5 .75 1: min .25, q1 .375, median .625 */
    cr_expect_str_eq(got[6].raw, "0.25");
    cr_expect_str_eq(got[7].raw, "0.375");
    cr_expect_str_eq(got[8].raw, "0.625");
    /* max_nedge printed with 11 significant digits: 12345678901 */
    int imax = 6 + 14 + 4;
    cr_expect_str_eq(got[imax].key, "max_nedge:");
    cr_expect_str_eq(got[imax].raw, "12345678901", "got %s", got[imax].raw);
    /* bfs harmonic mean: s = .5/1000 .25/2000 1/3000 .75/12345678901 */
    double s = 0.5 / 1000 + 0.25 / 2000 + 1.0 / 3000 + 0.75 / 12345678901.0;
    int ih = 6 + 14 + 7 + 5;
    cr_expect_str_eq(got[ih].key, "bfs  harmonic_mean_TEPS:");
    cr_expect(NEAR(got[ih].v, 4 / s, 1e-5), "harmonic mean %s vs %g", got[ih].raw, 4 / s);
    free(text);
}

Test(graph500, bfs_only_run_has_no_sssp_lines)
{
    rep_run r = sample_report();
    r.sssp_done = 0;
    char *text = print_block(&r);
    char keys[80][40];
    int nk = expected_keys(1, 0, keys);
    parsed got[100];
    int n = parse_block(text, got, 100);
    cr_assert_eq(n, nk, "%d lines, expected %d", n, nk);
    for (int i = 0; i < nk; i++)
        cr_expect_str_eq(got[i].key, keys[i], "line %d", i);
    cr_expect_null(strstr(text, "sssp"), "sssp line in a BFS-only block");
    free(text);
}

static char *print_notes(rep_run *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    rep_run_judge(r);
    cr_assert_eq(rep_print_run_notes(f, r), G5_OK, "print failed: %s", g5_error_msg());
    fclose(f);
    return buf;
}

Test(graph500, unvalidated_run_says_so)
{
    rep_run r = sample_report();
    r.validated = 0;
    char *text = print_notes(&r);
    cr_expect(strstr(text, "not an official result") && strstr(text, "validation skipped"),
              "notes of an unvalidated run: %s", text);
    cr_expect_eq(r.official, 0, "an unvalidated run is not official");
    free(text);
    text = print_block(&r);
    cr_expect_null(strstr(text, "official"), "the block itself stays the reference's: %s", text);
    free(text);
}

Test(graph500, only_64_validated_keys_with_both_kernels_are_official)
{
    rep_run r = sample_report();
    r.validated = 1;
    r.bfs_done = r.sssp_done = 1;
    r.nroots = 64;
    rep_run_judge(&r);
    cr_expect_eq(r.official, 1, "64 validated keys, BFS and SSSP: official (%d reasons)", r.nreasons);
    r.sssp_done = 0;
    rep_run_judge(&r);
    cr_expect_eq(r.official, 0, "--skip-sssp is not official");
    r.sssp_done = 1;
    r.placement_cached = 1;
    r.strict_construction_time = 2.5;
    r.stage_components_seconds = r.stage_partition_seconds = 1;
    char *text = print_notes(&r);
    cr_expect_eq(r.official, 0, "a cached placement is not official");
    cr_expect(strncmp(text, "strict_construction_time: 2.5\n", strlen("strict_construction_time: 2.5\n")) == 0,
              "the strict figure comes first: %s", text);
    free(text);
}

/* ---- JSON ------------------------------------------------------------------
 * A small recursive-descent parser: it validates the syntax (RFC 8259) and
 * lets the tests look up values by path. */
typedef struct jv {
    enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } t;
    double num;
    char *str;
    int n;
    char **keys;
    struct jv **items;
} jv;

static const char *jp;

static void jws(void) { while (*jp == ' ' || *jp == '\n' || *jp == '\t' || *jp == '\r') jp++; }

static jv *jparse(void);

static char *jstring(void)
{
    if (*jp != '"') return NULL;
    jp++;
    char *out = malloc(strlen(jp) + 1), *o = out;
    while (*jp && *jp != '"') {
        unsigned char c = (unsigned char)*jp;
        if (c < 0x20) { free(out); return NULL; }
        if (c == '\\') {
            jp++;
            switch (*jp) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '/': *o++ = '/'; break;
            case 'n': *o++ = '\n'; break;
            case 't': *o++ = '\t'; break;
            case 'r': *o++ = '\r'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'u': {
                unsigned v;
                if (sscanf(jp + 1, "%4x", &v) != 1) { free(out); return NULL; }
                *o++ = (char)v; jp += 4; break;
            }
            default: free(out); return NULL;
            }
            jp++;
        } else {
            *o++ = *jp++;
        }
    }
    if (*jp != '"') { free(out); return NULL; }
    jp++;
    *o = 0;
    return out;
}

static jv *jparse(void)
{
    jws();
    jv *v = calloc(1, sizeof *v);
    if (*jp == '{' || *jp == '[') {
        int obj = *jp == '{';
        v->t = obj ? J_OBJ : J_ARR;
        jp++;
        jws();
        char close = obj ? '}' : ']';
        if (*jp == close) { jp++; return v; }
        for (;;) {
            jws();
            v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
            v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
            v->keys[v->n] = NULL;
            if (obj) {
                v->keys[v->n] = jstring();
                if (!v->keys[v->n]) return NULL;
                jws();
                if (*jp++ != ':') return NULL;
            }
            v->items[v->n] = jparse();
            if (!v->items[v->n]) return NULL;
            v->n++;
            jws();
            if (*jp == ',') { jp++; continue; }
            if (*jp == close) { jp++; return v; }
            return NULL;
        }
    }
    if (*jp == '"') { v->t = J_STR; v->str = jstring(); return v->str ? v : NULL; }
    if (!strncmp(jp, "null", 4)) { jp += 4; v->t = J_NULL; return v; }
    if (!strncmp(jp, "true", 4)) { jp += 4; v->t = J_BOOL; v->num = 1; return v; }
    if (!strncmp(jp, "false", 5)) { jp += 5; v->t = J_BOOL; v->num = 0; return v; }
    /* number: -? int frac? exp? */
    const char *s = jp;
    if (*jp == '-') jp++;
    if (!isdigit((unsigned char)*jp)) return NULL;
    if (*jp == '0') jp++; else while (isdigit((unsigned char)*jp)) jp++;
    if (*jp == '.') { jp++; if (!isdigit((unsigned char)*jp)) return NULL; while (isdigit((unsigned char)*jp)) jp++; }
    if (*jp == 'e' || *jp == 'E') {
        jp++;
        if (*jp == '+' || *jp == '-') jp++;
        if (!isdigit((unsigned char)*jp)) return NULL;
        while (isdigit((unsigned char)*jp)) jp++;
    }
    v->t = J_NUM;
    v->num = strtod(s, NULL);
    return v;
}

static jv *jget(jv *o, const char *key)
{
    if (!o || o->t != J_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return o->items[i];
    return NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc(n + 1);
    size_t got = fread(b, 1, n, f);
    b[got] = 0;
    fclose(f);
    return b;
}

static jv *parse_file(const char *path)
{
    char *text = slurp(path);
    cr_assert(text, "%s not written", path);
    jp = text;
    jv *v = jparse();
    cr_assert(v, "invalid JSON near byte %ld: '%.40s'", (long)(jp - text), jp);
    jws();
    cr_assert_eq(*jp, 0, "trailing text after the JSON value: '%.40s'", jp);
    return v;
}

static void tmpdir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/g5-test-report-XXXXXX");
    cr_assert(mkdtemp(dir));
}

Test(json, valid_with_per_root_arrays_and_stats)
{
    rep_run r = sample_report();
    int64_t cb[4] = {0, 10, 20, 0}, hb[4] = {0, 30, 60, 0};
    double lt[3] = {0.1, 0.2, 0.05};
    int64_t lf[3] = {1, 100, 5};
    char *ld[3] = {"top-down", "bottom-up", "top-down"};
    r.comm_bytes = cb; r.comm_hop_bytes = hb;
    r.bfs_level_time = lt; r.bfs_level_frontier = lf; r.bfs_level_dir = ld; r.bfs_nlevels = 3;
    char dir[64], path[128];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/sub/dir/run.json", dir);
    cr_assert_eq(rep_write_run_json(path, &r), G5_OK, "%s", g5_error_msg());
    jv *v = parse_file(path);
    cr_assert_eq(v->t, J_OBJ);
    cr_expect_str_eq(jget(v, "format")->str, "g500-run");
    cr_expect_eq(jget(v, "scale")->num, 16);
    cr_expect_str_eq(jget(v, "edges_path")->str, "data/edges \"s16\".h5", "escaped string round trip");
    cr_expect_str_eq(jget(v, "placement")->str, "cyclic");
    cr_expect_eq(jget(v, "validated")->t, J_BOOL);
    jv *roots = jget(v, "roots");
    cr_assert(roots && roots->t == J_ARR && roots->n == 4, "roots array");
    cr_expect_eq(roots->items[2]->num, 9);
    const char *kern[2] = {"bfs", "sssp"};
    for (int k = 0; k < 2; k++) {
        jv *b = jget(v, kern[k]);
        cr_assert(b && b->t == J_OBJ, "%s object", kern[k]);
        const char *arrays[4] = {"time", "nedge", "teps", "validate_time"};
        for (int a = 0; a < 4; a++) {
            jv *x = jget(b, arrays[a]);
            cr_assert(x && x->t == J_ARR && x->n == 4, "%s.%s has one entry per root", kern[k], arrays[a]);
        }
        const char *st[4] = {"time_stats", "nedge_stats", "teps_stats", "validate_stats"};
        for (int a = 0; a < 4; a++) {
            jv *x = jget(b, st[a]);
            cr_assert(x && x->t == J_OBJ, "%s.%s", kern[k], st[a]);
            for (int i = 0; i < 7; i++)
                cr_expect(jget(x, stat7[i]), "%s.%s.%s missing", kern[k], st[a], stat7[i]);
        }
        cr_expect(jget(b, "harmonic_mean_teps")->t == J_NUM, "harmonic mean number");
    }
    /* full precision: 0.75 s and 12345678901 edges come back exactly */
    jv *bfs = jget(v, "bfs");
    cr_expect_eq(jget(bfs, "time")->items[3]->num, 0.75);
    cr_expect_eq(jget(bfs, "nedge")->items[3]->num, 12345678901.0);
    cr_expect_eq(jget(bfs, "teps")->items[0]->num, 1000 / 0.5);
    jv *comm = jget(v, "comm");
    cr_expect_eq(jget(comm, "total_bytes")->num, 30);
    cr_expect_eq(jget(comm, "total_hop_bytes")->num, 90);
    cr_expect_eq(jget(comm, "bytes")->items[1]->items[0]->num, 20);
    jv *lv = jget(v, "bfs_levels");
    cr_assert(lv && lv->t == J_ARR && lv->n == 3);
    cr_expect_str_eq(jget(lv->items[1], "direction")->str, "bottom-up");
    /* no temporary file is left beside the result */
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub/dir", dir);
    DIR *d = opendir(sub);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            files++;
            cr_expect_str_eq(e->d_name, "run.json", "stray file %s", e->d_name);
        }
    closedir(d);
    cr_expect_eq(files, 1);
}

Test(json, nan_and_inf_become_null_and_missing_parts_null)
{
    rep_run r = sample_report();
    double bt[4] = {NAN, INFINITY, 1, 2};
    r.bfs_time = bt;
    r.sssp_done = 0;
    r.generation_time = -1;
    char dir[64], path[128];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/run.json", dir);
    cr_assert_eq(rep_write_run_json(path, &r), G5_OK, "%s", g5_error_msg());
    jv *v = parse_file(path);
    jv *t = jget(jget(v, "bfs"), "time");
    cr_expect_eq(t->items[0]->t, J_NULL, "NaN written as null");
    cr_expect_eq(t->items[1]->t, J_NULL, "inf written as null");
    cr_expect_eq(t->items[2]->num, 1);
    cr_expect_eq(jget(v, "sssp")->t, J_NULL, "sssp not run: null");
    cr_expect_eq(jget(v, "generation_time")->t, J_NULL, "absent generation time: null");
    cr_expect_eq(jget(jget(v, "comm"), "bytes")->t, J_NULL);
    cr_expect_eq(jget(v, "bfs_levels")->t, J_NULL);
}

Test(json, a_run_that_waited_says_so_in_json_and_notes)
{
    rep_run r = sample_report();
    char dir[64], path[128];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/run.json", dir);
    cr_assert_eq(rep_write_run_json(path, &r), G5_OK, "%s", g5_error_msg());
    jv *v = parse_file(path);
    cr_expect_eq(jget(v, "waited_for_other_run")->t, J_NULL, "a run that did not wait: null");
    char *text = print_notes(&r);
    cr_expect_null(strstr(text, "waited"), "no note when it did not wait: %s", text);
    free(text);
    r.waited = 1;
    r.waited_seconds = 7;
    r.waited_for = "pid 42 on n1";
    cr_assert_eq(rep_write_run_json(path, &r), G5_OK, "%s", g5_error_msg());
    v = parse_file(path);
    jv *w = jget(v, "waited_for_other_run");
    cr_assert(w && w->t == J_OBJ, "waited_for_other_run is an object");
    cr_expect_eq(jget(w, "seconds")->num, 7);
    cr_expect_str_eq(jget(w, "holder")->str, "pid 42 on n1");
    text = print_notes(&r);
    cr_expect(strstr(text, "note: this run waited 7 s for another g500 kernel run of this checkout "
                           "(pid 42 on n1) and did not overlap it\n") != NULL, "the note: %s", text);
    free(text);
}

Test(json, unwritable_directory_fails_without_output)
{
    rep_run r = sample_report();
    char dir[64], path[160];
    tmpdir(dir, sizeof dir);
    /* a regular file where a directory is needed */
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *f = fopen(path, "w");
    fclose(f);
    snprintf(path, sizeof path, "%s/file/run.json", dir);
    int rc = rep_write_run_json(path, &r);
    cr_expect_eq(rc, G5_ERR_IO, "status %d", rc);
    cr_expect(strstr(g5_error_msg(), "run.json") != NULL, "message names the path: %s", g5_error_msg());
}
