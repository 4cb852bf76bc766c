/* SPDX-License-Identifier: MIT */
/*
 * test_cc_stats.c - the statistics table and JSON that `g500 components`
 * and `g500 stats` print: the Graph500 shape (isolated share, giant share
 * of all and of non-isolated vertices, duplicates, histogram) must be
 * visible, and the JSON must carry the same numbers.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cc_internal.h"
#include "report.h"

/* A SCALE-4 graph: giant of 8 vertices / 20 edges, two pairs, four isolated. */
static io_components_meta sample_meta(void)
{
    io_components_meta m = {.version = 1, .scale = 4, .nvertices = 16, .nedges = 27,
                            .seed = 7, .edges_content_id = 0xabcdef12ULL};
    const int64_t cv[] = {8, 2, 2}, ce[] = {20, 3, 1};
    cc_stats_fill(&m, 3, cv, ce, 3, 24, 21);
    return m;
}

static char *print(const io_components_meta *m, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    rep_components_print(f, "c.h5", m, json);
    fclose(f);
    return buf;
}

Test(cc_stats, fill_derives_shares_isolated_and_histogram)
{
    io_components_meta m = sample_meta();
    cr_expect_eq(m.isolated_vertices, 4, "16 vertices - 12 in components");
    cr_expect_eq(m.ncomponents_all, 7);
    cr_expect_eq(m.duplicate_edges, 3);
    cr_expect_float_eq(m.giant_vertex_share, 0.5, 1e-12);
    cr_expect_float_eq(m.giant_active_share, 8.0 / 12.0, 1e-12);
    cr_expect_float_eq(m.giant_edge_share, 20.0 / 24.0, 1e-12);
    cr_expect_eq(m.second_vertices, 2);
    cr_expect_eq(m.second_edges, 3);
    cr_expect_eq(m.size_hist[0], 4, "isolated vertices are size-1 components");
    cr_expect_eq(m.size_hist[1], 2, "two pairs");
    cr_expect_eq(m.size_hist[3], 1, "the giant (8 vertices) in bin 3");
}

Test(cc_stats, table_shows_the_shape_at_a_glance)
{
    io_components_meta m = sample_meta();
    char *t = print(&m, 0);
    cr_expect(strstr(t, "SCALE 4") != NULL, "names the SCALE:\n%s", t);
    cr_expect(strstr(t, " 50.000% of all,  66.667% of non-isolated") != NULL, "giant shares:\n%s", t);
    cr_expect(strstr(t, "isolated (no edge but self-loops)") != NULL && strstr(t, " 25.000% of all") != NULL,
              "isolated share:\n%s", t);
    cr_expect(strstr(t, "duplicates") != NULL && strstr(t, " 12.500% of non-loop") != NULL, "duplicates:\n%s", t);
    cr_expect(strstr(t, "8-15") != NULL, "histogram row of the giant:\n%s", t);
    cr_expect(strstr(t, "00000000abcdef12") != NULL, "edges identity:\n%s", t);
    free(t);
}

Test(cc_stats, json_carries_the_same_numbers)
{
    io_components_meta m = sample_meta();
    char *j = print(&m, 1);
    cr_expect(j[0] == '{' && j[strlen(j) - 2] == '}', "one object:\n%s", j);
    cr_expect(strstr(j, "\"isolated_vertices\": 4,") != NULL, "%s", j);
    cr_expect(strstr(j, "\"duplicate_edges\": 3") != NULL, "%s", j);
    cr_expect(strstr(j, "\"giant_vertex_share\": 0.5,") != NULL, "%s", j);
    cr_expect(strstr(j, "\"size_hist_log2\": [4, 2, 0, 1]") != NULL, "histogram up to the last bin:\n%s", j);
    free(j);
}
