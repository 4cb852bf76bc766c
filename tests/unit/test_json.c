/* SPDX-License-Identifier: MIT */
/*
 * test_json.c - the JSON emitter (common/json.h): full string escaping,
 * non-finite doubles as null, commas and nesting in both modes, ids as hex,
 * a struct's members through a field table.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "json.h"

static char *emit(void (*body)(g5_json *), int pretty)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    g5_json j;
    g5_json_init(&j, f, pretty);
    body(&j);
    fclose(f);
    return buf;
}

static void strings(g5_json *j)
{
    g5_json_begin_array(j);
    g5_json_string(j, "a\"b\\c\nd\te\x01\x1f/\xc3\xa9");
    g5_json_string(j, NULL);
    g5_json_end_array(j);
}

Test(json, escapes_quotes_backslashes_and_control_characters)
{
    char *s = emit(strings, 0);
    cr_assert_str_eq(s, "[\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f/\xc3\xa9\", null]",
                     "escaped as RFC 8259 asks, UTF-8 passed through: %s", s);
    free(s);
}

static void numbers(g5_json *j)
{
    static const double v[3] = {1.5, NAN, -INFINITY};
    static const int64_t w[2] = {-3, 4};
    g5_json_begin_object(j);
    g5_json_kv_double(j, "nan", NAN);
    g5_json_kv_double(j, "inf", INFINITY);
    g5_json_kv_double(j, "x", 0.1);
    g5_json_kv_int(j, "i", -7);
    g5_json_key(j, "u");
    g5_json_uint(j, UINT64_MAX);
    g5_json_key(j, "id");
    g5_json_hex64(j, 0x9111fc513f0b0476ull);
    g5_json_key(j, "d");
    g5_json_doubles(j, v, 3);
    g5_json_key(j, "n");
    g5_json_ints(j, w, 2);
    g5_json_key(j, "none");
    g5_json_ints(j, NULL, 2);
    g5_json_kv_bool(j, "b", 1);
    g5_json_end_object(j);
}

Test(json, writes_non_finite_doubles_as_null_and_ids_as_hex_strings)
{
    char *s = emit(numbers, 0);
    cr_assert_str_eq(s, "{\"nan\": null, \"inf\": null, \"x\": 0.10000000000000001, \"i\": -7, "
                        "\"u\": 18446744073709551615, \"id\": \"9111fc513f0b0476\", "
                        "\"d\": [1.5, null, null], \"n\": [-3, 4], \"none\": null, \"b\": true}",
                     "compact output: %s", s);
    free(s);
}

static void nested(g5_json *j)
{
    g5_json_begin_object(j);
    g5_json_key(j, "a");
    g5_json_begin_object(j);
    g5_json_end_object(j);
    g5_json_key(j, "b");
    g5_json_begin_array(j);
    g5_json_int(j, 1);
    g5_json_begin_object(j);
    g5_json_kv_string(j, "k", "v");
    g5_json_end_object(j);
    g5_json_end_array(j);
    g5_json_end_object(j);
    g5_json_finish(j);
}

Test(json, nests_with_commas_and_indents_in_pretty_mode)
{
    char *s = emit(nested, 1);
    cr_assert_str_eq(s, "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"k\": \"v\"\n    }\n  ]\n}\n",
                     "pretty output: %s", s);
    free(s);
    s = emit(nested, 0);
    cr_assert_str_eq(s, "{\"a\": {}, \"b\": [1, {\"k\": \"v\"}]}\n", "compact output: %s", s);
    free(s);
}

struct fields_row {
    int i;
    int64_t l;
    uint64_t u;
    double d;
    int b;
    const char *s;
    uint64_t id;
};

static void fields(g5_json *j)
{
    static const g5_json_field table[] = {
        {"l", G5_JSON_INT64, offsetof(struct fields_row, l)},
        {"i", G5_JSON_INT, offsetof(struct fields_row, i)},
        {"u", G5_JSON_UINT64, offsetof(struct fields_row, u)},
        {"d", G5_JSON_DOUBLE, offsetof(struct fields_row, d)},
        {"b", G5_JSON_BOOL, offsetof(struct fields_row, b)},
        {"s", G5_JSON_STRING, offsetof(struct fields_row, s)},
        {"id", G5_JSON_HEX64, offsetof(struct fields_row, id)},
    };
    const struct fields_row r = {-3, -5000000000LL, UINT64_MAX, NAN, 1, "q\"", 0xabcULL};
    g5_json_begin_object(j);
    g5_json_fields(j, &r, table, G5_JSON_NFIELDS(table));
    g5_json_end_object(j);
}

Test(json, writes_a_struct_through_its_field_table_in_table_order)
{
    char *s = emit(fields, 0);
    cr_assert_str_eq(s, "{\"l\": -5000000000, \"i\": -3, \"u\": 18446744073709551615, \"d\": null, "
                        "\"b\": true, \"s\": \"q\\\"\", \"id\": \"0000000000000abc\"}",
                     "compact output: %s", s);
    free(s);
}
