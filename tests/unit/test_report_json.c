/* SPDX-License-Identifier: MIT */
/* test_report_json.c - the report's JSON reader: every value kind, escapes,
 * nesting, the accessors' NULL tolerance, and the errors it must give. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "report.h"

static rep_json *parse_ok(const char *text)
{
    rep_json *j = NULL;
    int rc = rep_json_parse(text, strlen(text), "<t>", &j);
    cr_assert_eq(rc, G5_OK, "parse of %s failed: %s", text, g5_error_msg());
    cr_assert_not_null(j);
    return j;
}

static void parse_bad(const char *text, const char *needle)
{
    rep_json *j = (rep_json *)1;
    int rc = rep_json_parse(text, strlen(text), "bad.json", &j);
    cr_expect_eq(rc, G5_ERR_FORMAT, "'%s' should be refused", text);
    cr_expect_null(j, "no tree on failure for '%s'", text);
    cr_expect(strstr(g5_error_msg(), "bad.json:") != NULL, "message names the file: %s", g5_error_msg());
    cr_expect(strstr(g5_error_msg(), needle) != NULL, "message for '%s' says '%s': %s", text,
              needle, g5_error_msg());
}

Test(rep_json, reads_every_kind_of_value)
{
    rep_json *j = parse_ok(" {\"a\": 1, \"b\": -2.5e3, \"c\": \"x\", \"d\": true,\n"
                           "  \"e\": false, \"f\": null, \"g\": [], \"h\": {}, \"i\": 0.125} ");
    cr_expect_eq(rep_json_type_of(j), REP_JSON_OBJECT);
    cr_expect_eq(rep_json_len(j), 9);
    cr_expect_float_eq(rep_json_number(rep_json_get(j, "a"), NAN), 1.0, 0);
    cr_expect_float_eq(rep_json_number(rep_json_get(j, "b"), NAN), -2500.0, 0);
    cr_expect_str_eq(rep_json_string(rep_json_get(j, "c"), NULL), "x");
    cr_expect_eq(rep_json_type_of(rep_json_get(j, "d")), REP_JSON_TRUE);
    cr_expect_float_eq(rep_json_number(rep_json_get(j, "e"), 7), 0.0, 0, "false reads as 0");
    cr_expect_eq(rep_json_type_of(rep_json_get(j, "f")), REP_JSON_NULL);
    cr_expect_not_null(rep_json_get(j, "f"), "a null member exists");
    cr_expect_eq(rep_json_type_of(rep_json_get(j, "g")), REP_JSON_ARRAY);
    cr_expect_eq(rep_json_len(rep_json_get(j, "g")), 0);
    cr_expect_eq(rep_json_type_of(rep_json_get(j, "h")), REP_JSON_OBJECT);
    cr_expect_float_eq(rep_json_number(rep_json_get(j, "i"), NAN), 0.125, 0);
    cr_expect_str_eq(rep_json_key_at(j, 8), "i", "keys keep file order");
    cr_expect_null(rep_json_get(j, "zz"));
    rep_json_free(&j);
    cr_expect_null(j, "free clears the pointer");
}

Test(rep_json, keeps_large_integers_exact)
{
    rep_json *j = parse_ok("[9007199254740992, 123456789012, -0, 1E2]");
    double v[4];
    cr_assert_eq(rep_json_numbers(j, v, 4), 4);
    cr_expect_eq((int64_t)v[0], INT64_C(9007199254740992), "2^53 is exact");
    cr_expect_eq((int64_t)v[1], INT64_C(123456789012));
    cr_expect_float_eq(v[3], 100.0, 0);
    rep_json_free(&j);
}

Test(rep_json, keeps_the_text_of_numbers_for_64_bit_ids)
{
    rep_json *j = parse_ok("{\"id\": 10453853446371279990, \"hex\": \"9111fc513f0b0476\", \"x\": 1E2, \"t\": true}");
    cr_expect_str_eq(rep_json_text(rep_json_get(j, "id"), NULL), "10453853446371279990",
                     "a uint64 id above 2^53 as written, not rounded through a double");
    cr_expect_str_eq(rep_json_text(rep_json_get(j, "hex"), NULL), "9111fc513f0b0476");
    cr_expect_str_eq(rep_json_text(rep_json_get(j, "x"), NULL), "1E2");
    cr_expect_str_eq(rep_json_text(rep_json_get(j, "t"), "no"), "no", "true has no text");
    cr_expect_null(rep_json_string(rep_json_get(j, "id"), NULL), "a number is no string");
    rep_json_free(&j);
}

Test(rep_json, decodes_escapes_and_unicode)
{
    rep_json *j = parse_ok("[\"a\\\"b\\\\c\\/d\\n\\t\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\", \"h\xc3\xa9\"]");
    cr_expect_str_eq(rep_json_string(rep_json_at(j, 0), ""), "a\"b\\c/d\n\t");
    cr_expect_str_eq(rep_json_string(rep_json_at(j, 1), ""), "\xc3\xa9\xe2\x82\xac", "2- and 3-byte UTF-8");
    cr_expect_str_eq(rep_json_string(rep_json_at(j, 2), ""), "\xf0\x9f\x98\x80", "surrogate pair to 4 bytes");
    cr_expect_str_eq(rep_json_string(rep_json_at(j, 3), ""), "h\xc3\xa9", "raw UTF-8 passes through");
    rep_json_free(&j);
}

Test(rep_json, flattens_nested_arrays_and_sizes_buffers)
{
    rep_json *j = parse_ok("{\"m\": [[1, 2, 3], [4, null, 6]]}");
    const rep_json *m = rep_json_get(j, "m");
    cr_assert_eq(rep_json_numbers(m, NULL, 0), 6, "a first call counts");
    double v[6];
    cr_assert_eq(rep_json_numbers(m, v, 6), 6);
    cr_expect_float_eq(v[3], 4.0, 0);
    cr_expect(isnan(v[4]), "null becomes NaN");
    cr_expect_float_eq(v[5], 6.0, 0);
    double small[2] = {-1, -1};
    cr_expect_eq(rep_json_numbers(m, small, 2), 6, "total is returned even when max is smaller");
    cr_expect_float_eq(small[1], 2.0, 0);
    cr_expect_eq(rep_json_numbers(rep_json_get(j, "nope"), v, 6), -1, "not an array");
    rep_json_free(&j);
}

Test(rep_json, finds_keys_at_any_depth_in_file_order)
{
    rep_json *j = parse_ok("{\"run\": {\"bfs\": {\"time\": [1]}}, \"list\": [{\"time\": 2}], \"time\": 3}");
    cr_expect_float_eq(rep_json_number(rep_json_get(j, "time"), 0), 3.0, 0, "top level first");
    const rep_json *bfs = rep_json_find(j, "bfs");
    cr_assert_not_null(bfs);
    cr_expect_eq(rep_json_type_of(rep_json_find(bfs, "time")), REP_JSON_ARRAY);
    cr_expect_float_eq(rep_json_number(rep_json_find(rep_json_get(j, "list"), "time"), 0), 2.0, 0,
                       "search goes into arrays");
    cr_expect_null(rep_json_find(j, "absent"));
    rep_json_free(&j);
}

Test(rep_json, accessors_tolerate_null_and_wrong_types)
{
    cr_expect_eq(rep_json_type_of(NULL), REP_JSON_NULL);
    cr_expect_eq(rep_json_len(NULL), 0);
    cr_expect_null(rep_json_at(NULL, 0));
    cr_expect_null(rep_json_get(NULL, "a"));
    cr_expect_null(rep_json_find(NULL, "a"));
    cr_expect_float_eq(rep_json_number(NULL, 42.0), 42.0, 0);
    cr_expect_str_eq(rep_json_string(NULL, "dflt"), "dflt");
    rep_json *j = parse_ok("[\"s\", 1]");
    cr_expect_float_eq(rep_json_number(rep_json_at(j, 0), -1.0), -1.0, 0, "a string is no number");
    cr_expect_str_eq(rep_json_string(rep_json_at(j, 1), "d"), "d", "a number is no string");
    cr_expect_null(rep_json_at(j, 2), "index past the end");
    cr_expect_null(rep_json_at(j, -1), "negative index");
    cr_expect_null(rep_json_key_at(j, 0), "arrays have no keys");
    rep_json_free(&j);
    rep_json_free(&j);
    rep_json_free(NULL);
}

Test(rep_json, refuses_malformed_text_with_line_and_column)
{
    parse_bad("", "expected a value");
    parse_bad("{\"a\" 1}", "expected ':'");
    parse_bad("{\"a\": 1,}", "expected a string key");
    parse_bad("[1, 2", "expected ',' or ']'");
    parse_bad("[1 2]", "expected ',' or ']'");
    parse_bad("{\"a\": 1} x", "text after");
    parse_bad("\"abc", "unterminated string");
    parse_bad("\"a\\qb\"", "bad escape");
    parse_bad("\"\\u12G4\"", "hex digit");
    parse_bad("\"\\ud83d\"", "surrogate");
    parse_bad("\"\\ude00\"", "surrogate");
    parse_bad("\"a\tb\"", "control character");
    parse_bad("01", "text after");
    parse_bad("+1", "expected a value");
    parse_bad("1.", "digit after '.'");
    parse_bad("1e+", "exponent");
    parse_bad("NaN", "expected a value");
    parse_bad("tru", "expected a value");
    rep_json *j = NULL;
    cr_expect_eq(rep_json_parse("{\n  \"a\": [1,\n   ?]}", 18, "pos.json", &j), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "pos.json:3:4:") != NULL, "line 3 column 4: %s", g5_error_msg());
}

Test(rep_json, bounds_the_nesting_depth)
{
    int n = REP_JSON_MAX_DEPTH + 10;
    char *deep = malloc((size_t)2 * n + 1);
    for (int i = 0; i < n; i++) { deep[i] = '['; deep[n + i] = ']'; }
    deep[2 * n] = '\0';
    rep_json *j = NULL;
    cr_expect_eq(rep_json_parse(deep, strlen(deep), "deep", &j), G5_ERR_FORMAT);
    cr_expect(strstr(g5_error_msg(), "nesting") != NULL, "%s", g5_error_msg());
    int ok = REP_JSON_MAX_DEPTH - 1;
    for (int i = 0; i < ok; i++) { deep[i] = '['; deep[ok + i] = ']'; }
    deep[2 * ok] = '\0';
    cr_expect_eq(rep_json_parse(deep, strlen(deep), "deep", &j), G5_OK, "%s", g5_error_msg());
    rep_json_free(&j);
    free(deep);
}

Test(rep_json, does_not_read_past_the_given_length)
{
    /* The text is not NUL-terminated where len ends: "[12" of "[123]". */
    rep_json *j = NULL;
    cr_expect_eq(rep_json_parse("[123]", 3, "<n>", &j), G5_ERR_FORMAT);
    cr_expect_eq(rep_json_parse("123]", 2, "<n>", &j), G5_OK, "%s", g5_error_msg());
    cr_expect_float_eq(rep_json_number(j, 0), 12.0, 0, "the number stops at len");
    rep_json_free(&j);
}

Test(rep_json, loads_files_and_names_missing_ones)
{
    char path[] = "/tmp/test_report_json_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *text = "{\"bfs_time\": [0.5, 0.25]}\n";
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    rep_json *j = NULL;
    cr_assert_eq(rep_json_load(path, &j), G5_OK, "%s", g5_error_msg());
    cr_expect_eq(rep_json_numbers(rep_json_get(j, "bfs_time"), NULL, 0), 2);
    rep_json_free(&j);
    unlink(path);
    cr_expect_eq(rep_json_load(path, &j), G5_ERR_IO);
    cr_expect(strstr(g5_error_msg(), path) != NULL, "message names the file: %s", g5_error_msg());
}
