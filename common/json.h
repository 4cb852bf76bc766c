/* SPDX-License-Identifier: MIT */
/*
 * json.h - the one JSON writer of g500: a streaming emitter every JSON
 * output goes through (run results, `stats --json`, the partition and
 * components tables), so every string is escaped the same way.
 *
 * Encoding (RFC 8259): strings are escaped in full (quote, backslash, the
 * short escapes \b \f \n \r \t, every other control character as \u00XX;
 * other bytes are passed through, so UTF-8 stays UTF-8); integers as
 * decimal; doubles with %.17g (round-trips every binary64); NaN and the
 * infinities, which JSON cannot express, as null. A nesting stack records
 * whether a comma is due. Pretty mode puts each member on its own
 * indented line; compact mode writes one line with ", " and ": ".
 * Arrays of numbers (g5_json_doubles, g5_json_ints) are always one line.
 *
 * Not collective; not thread safe (one emitter per thread). Write errors
 * are left in the FILE's error flag for the caller to check (ferror).
 */
#ifndef G500_JSON_H
#define G500_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define G5_JSON_MAXDEPTH 32

typedef struct g5_json {
    FILE *f;
    int pretty;
    int depth;
    int count[G5_JSON_MAXDEPTH];   /* items written at each open level */
    int after_key;                 /* a key was written: no comma before the value */
} g5_json;

/* Start an emitter on f (pretty: 1 multi-line, 0 one line). */
void g5_json_init(g5_json *j, FILE *f, int pretty);
void g5_json_begin_object(g5_json *j);
void g5_json_end_object(g5_json *j);
void g5_json_begin_array(g5_json *j);
void g5_json_end_array(g5_json *j);
/* A member name inside an object; the next call writes its value. */
void g5_json_key(g5_json *j, const char *key);
void g5_json_string(g5_json *j, const char *s);      /* NULL: null */
void g5_json_int(g5_json *j, int64_t v);
void g5_json_uint(g5_json *j, uint64_t v);
void g5_json_double(g5_json *j, double v);          /* non-finite: null */
void g5_json_bool(g5_json *j, int v);
void g5_json_null(g5_json *j);
/* A 64-bit id as 16 lower-case hex digits in a string: ids are not
 * numbers (a double would round them). */
void g5_json_hex64(g5_json *j, uint64_t v);
/* One-line arrays; v == NULL writes null. */
void g5_json_doubles(g5_json *j, const double *v, int64_t n);
void g5_json_ints(g5_json *j, const int64_t *v, int64_t n);
/* Key and value in one call. */
void g5_json_kv_string(g5_json *j, const char *key, const char *s);
void g5_json_kv_int(g5_json *j, const char *key, int64_t v);
void g5_json_kv_double(g5_json *j, const char *key, double v);
void g5_json_kv_bool(g5_json *j, const char *key, int v);
/* Members read from a struct: a table of (key, kind, offset) rows writes
 * "key": value for each row in table order, the value read at offset in
 * obj as its kind says; a schema's plain members are then one table. */
typedef enum g5_json_kind {
    G5_JSON_INT,      /* int */
    G5_JSON_INT64,    /* int64_t */
    G5_JSON_UINT64,   /* uint64_t */
    G5_JSON_DOUBLE,   /* double (non-finite: null) */
    G5_JSON_BOOL,     /* int, 0: false */
    G5_JSON_STRING,   /* const char * or char * (NULL: null) */
    G5_JSON_HEX64     /* uint64_t, as g5_json_hex64 */
} g5_json_kind;
typedef struct g5_json_field {
    const char *key;
    g5_json_kind kind;
    size_t offset;
} g5_json_field;
#define G5_JSON_NFIELDS(table) (sizeof(table) / sizeof((table)[0]))
void g5_json_fields(g5_json *j, const void *obj, const g5_json_field *f, size_t n);
/* Ends the document with a newline (after the outermost value). */
void g5_json_finish(g5_json *j);

#endif
