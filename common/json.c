/* SPDX-License-Identifier: MIT */
/*
 * json.c - the streaming JSON emitter of json.h: escaping per RFC 8259,
 * comma and indentation bookkeeping by a nesting stack.
 */
#include "json.h"

#include <inttypes.h>
#include <math.h>

void g5_json_init(g5_json *j, FILE *f, int pretty)
{
    j->f = f;
    j->pretty = pretty;
    j->depth = 0;
    j->after_key = 0;
}

static void newline(g5_json *j)
{
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* Before a value or a key: the comma and, pretty, the line break. */
static void sep(g5_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth == 0)
        return;
    int first = j->depth > G5_JSON_MAXDEPTH || j->count[j->depth - 1]++ == 0;
    if (!first)
        fputs(j->pretty ? "," : ", ", j->f);
    if (j->pretty)
        newline(j);
}

static void raw_string(g5_json *j, const char *s)
{
    fputc('"', j->f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", j->f); break;
        case '\\': fputs("\\\\", j->f); break;
        case '\b': fputs("\\b", j->f); break;
        case '\f': fputs("\\f", j->f); break;
        case '\n': fputs("\\n", j->f); break;
        case '\r': fputs("\\r", j->f); break;
        case '\t': fputs("\\t", j->f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(j->f, "\\u%04x", *p);
            else
                fputc(*p, j->f);
        }
    }
    fputc('"', j->f);
}

static void open_level(g5_json *j, char c)
{
    sep(j);
    fputc(c, j->f);
    if (j->depth < G5_JSON_MAXDEPTH)
        j->count[j->depth] = 0;
    j->depth++;
}

static void close_level(g5_json *j, char c)
{
    int had = j->depth <= G5_JSON_MAXDEPTH && j->count[j->depth - 1] > 0;
    j->depth--;
    if (had && j->pretty)
        newline(j);
    fputc(c, j->f);
}

void g5_json_begin_object(g5_json *j) { open_level(j, '{'); }
void g5_json_end_object(g5_json *j) { close_level(j, '}'); }
void g5_json_begin_array(g5_json *j) { open_level(j, '['); }
void g5_json_end_array(g5_json *j) { close_level(j, ']'); }

void g5_json_key(g5_json *j, const char *key)
{
    sep(j);
    raw_string(j, key ? key : "");
    fputs(": ", j->f);
    j->after_key = 1;
}

void g5_json_string(g5_json *j, const char *s)
{
    sep(j);
    if (s)
        raw_string(j, s);
    else
        fputs("null", j->f);
}

void g5_json_int(g5_json *j, int64_t v)
{
    sep(j);
    fprintf(j->f, "%" PRId64, v);
}

void g5_json_uint(g5_json *j, uint64_t v)
{
    sep(j);
    fprintf(j->f, "%" PRIu64, v);
}

static void put_double(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

void g5_json_double(g5_json *j, double v)
{
    sep(j);
    put_double(j->f, v);
}

void g5_json_bool(g5_json *j, int v)
{
    sep(j);
    fputs(v ? "true" : "false", j->f);
}

void g5_json_null(g5_json *j)
{
    sep(j);
    fputs("null", j->f);
}

void g5_json_hex64(g5_json *j, uint64_t v)
{
    sep(j);
    fprintf(j->f, "\"%016" PRIx64 "\"", v);
}

void g5_json_doubles(g5_json *j, const double *v, int64_t n)
{
    sep(j);
    if (!v) {
        fputs("null", j->f);
        return;
    }
    fputc('[', j->f);
    for (int64_t i = 0; i < n; i++) {
        if (i)
            fputs(", ", j->f);
        put_double(j->f, v[i]);
    }
    fputc(']', j->f);
}

void g5_json_ints(g5_json *j, const int64_t *v, int64_t n)
{
    sep(j);
    if (!v) {
        fputs("null", j->f);
        return;
    }
    fputc('[', j->f);
    for (int64_t i = 0; i < n; i++)
        fprintf(j->f, "%s%" PRId64, i ? ", " : "", v[i]);
    fputc(']', j->f);
}

void g5_json_kv_string(g5_json *j, const char *key, const char *s) { g5_json_key(j, key); g5_json_string(j, s); }
void g5_json_kv_int(g5_json *j, const char *key, int64_t v) { g5_json_key(j, key); g5_json_int(j, v); }
void g5_json_kv_double(g5_json *j, const char *key, double v) { g5_json_key(j, key); g5_json_double(j, v); }
void g5_json_kv_bool(g5_json *j, const char *key, int v) { g5_json_key(j, key); g5_json_bool(j, v); }

void g5_json_fields(g5_json *j, const void *obj, const g5_json_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const void *at = (const char *)obj + f[i].offset;
        g5_json_key(j, f[i].key);
        switch (f[i].kind) {
        case G5_JSON_INT:
            g5_json_int(j, *(const int *)at);
            break;
        case G5_JSON_INT64:
            g5_json_int(j, *(const int64_t *)at);
            break;
        case G5_JSON_UINT64:
            g5_json_uint(j, *(const uint64_t *)at);
            break;
        case G5_JSON_DOUBLE:
            g5_json_double(j, *(const double *)at);
            break;
        case G5_JSON_BOOL:
            g5_json_bool(j, *(const int *)at);
            break;
        case G5_JSON_STRING:
            g5_json_string(j, *(const char *const *)at);
            break;
        case G5_JSON_HEX64:
            g5_json_hex64(j, *(const uint64_t *)at);
            break;
        }
    }
}

void g5_json_finish(g5_json *j)
{
    fputc('\n', j->f);
}
