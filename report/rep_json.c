/* SPDX-License-Identifier: MIT */
/*
 * rep_json.c - a small, strict JSON reader (RFC 8259) for the kernels'
 * result files.
 *
 * Algorithm: recursive descent over the text, one function per grammar rule
 * (value, object, array, string, number), with the nesting depth bounded by
 * REP_JSON_MAX_DEPTH so that no input can overflow the stack. The cursor
 * tracks line and column for messages.
 *
 * Encoding: a node holds its type and either a double, a NUL-terminated
 * UTF-8 string, or its children stored by value in one array (`items`, grown
 * by doubling while parsing, trimmed never: files are small) with, for
 * objects, a parallel array of keys. Freeing walks the tree.
 *
 * Numbers follow the JSON grammar exactly (no leading zeros, no '+', no
 * hex, no NaN/Infinity); the value is converted by strtod on the checked
 * span. Strings reject raw control characters and lone surrogates.
 */
#include "report.h"

#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rep_json {
    rep_json_type type;
    int n;             /* children (array, object) */
    int cap;
    double num;
    char *str;         /* REP_JSON_STRING, or a number's text as written */
    rep_json *items;   /* [n] children by value */
    char **keys;       /* [n] for objects */
};

typedef struct cursor {
    const char *s, *end;
    const char *name;
    const char *line_start;
    int line;
} cursor;

static int fail(const cursor *c, const char *what)
{
    int col = (int)(c->s - c->line_start) + 1;
    if (c->s >= c->end)
        return g5_error(G5_ERR_FORMAT, "%s:%d:%d: %s (at end of input)", c->name, c->line, col, what);
    return g5_error(G5_ERR_FORMAT, "%s:%d:%d: %s (found '%c')", c->name, c->line, col, what,
                    (unsigned char)*c->s >= 32 && (unsigned char)*c->s < 127 ? *c->s : '?');
}

static void skip_space(cursor *c)
{
    while (c->s < c->end) {
        char ch = *c->s;
        if (ch == '\n') {
            c->line++;
            c->line_start = c->s + 1;
        } else if (ch != ' ' && ch != '\t' && ch != '\r') {
            return;
        }
        c->s++;
    }
}

static void node_clear(rep_json *j)
{
    for (int i = 0; i < j->n; i++) {
        node_clear(&j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->str);
    memset(j, 0, sizeof *j);
}

static int parse_value(cursor *c, rep_json *out, int depth);

static int hex4(cursor *c, unsigned *out)
{
    unsigned v = 0;
    if (c->end - c->s < 4)
        return fail(c, "truncated \\u escape");
    for (int i = 0; i < 4; i++) {
        char h = c->s[i];
        v <<= 4;
        if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
        else return fail(c, "bad hex digit in \\u escape");
    }
    c->s += 4;
    *out = v;
    return G5_OK;
}

static size_t put_utf8(char *d, unsigned cp)
{
    if (cp < 0x80) { d[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        d[0] = (char)(0xC0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* c->s at the opening quote. The decoded string is never longer than its
 * source span (an escape of 6 or 12 bytes gives at most 4), so one buffer of
 * the span's length suffices. */
static int parse_string(cursor *c, char **out)
{
    const char *p = c->s + 1;
    while (p < c->end && *p != '"') p += (*p == '\\') ? 2 : 1;
    if (p >= c->end)
        return fail(c, "unterminated string");
    char *buf = g5_malloc((size_t)(p - c->s), "JSON string");
    if (!buf)
        return G5_ERR_NOMEM;
    size_t k = 0;
    c->s++;
    while (*c->s != '"') {
        unsigned char ch = (unsigned char)*c->s;
        if (ch < 0x20) {
            free(buf);
            return fail(c, "control character in string");
        }
        if (ch != '\\') {
            buf[k++] = (char)ch;
            c->s++;
            continue;
        }
        c->s++;
        char e = *c->s++;
        switch (e) {
        case '"': buf[k++] = '"'; break;
        case '\\': buf[k++] = '\\'; break;
        case '/': buf[k++] = '/'; break;
        case 'b': buf[k++] = '\b'; break;
        case 'f': buf[k++] = '\f'; break;
        case 'n': buf[k++] = '\n'; break;
        case 'r': buf[k++] = '\r'; break;
        case 't': buf[k++] = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            int rc = hex4(c, &cp);
            if (rc == G5_OK && cp >= 0xDC00 && cp <= 0xDFFF)
                rc = fail(c, "lone low surrogate in \\u escape");
            if (rc == G5_OK && cp >= 0xD800 && cp <= 0xDBFF) {
                if (c->end - c->s < 2 || c->s[0] != '\\' || c->s[1] != 'u') {
                    rc = fail(c, "high surrogate not followed by a low one");
                } else {
                    c->s += 2;
                    rc = hex4(c, &lo);
                    if (rc == G5_OK && (lo < 0xDC00 || lo > 0xDFFF))
                        rc = fail(c, "high surrogate not followed by a low one");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
            }
            if (rc != G5_OK) {
                free(buf);
                return rc;
            }
            k += put_utf8(buf + k, cp);
            break;
        }
        default:
            c->s--;
            free(buf);
            return fail(c, "bad escape in string");
        }
    }
    c->s++;
    buf[k] = '\0';
    *out = buf;
    return G5_OK;
}

static int parse_number(cursor *c, rep_json *out)
{
    const char *p = c->s;
    if (p < c->end && *p == '-') p++;
    if (p < c->end && *p == '0') {
        p++;
    } else if (p < c->end && *p >= '1' && *p <= '9') {
        while (p < c->end && *p >= '0' && *p <= '9') p++;
    } else {
        return fail(c, "expected a value");
    }
    if (p < c->end && *p == '.') {
        p++;
        if (p >= c->end || *p < '0' || *p > '9') {
            c->s = p;
            return fail(c, "expected a digit after '.'");
        }
        while (p < c->end && *p >= '0' && *p <= '9') p++;
    }
    if (p < c->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < c->end && (*p == '+' || *p == '-')) p++;
        if (p >= c->end || *p < '0' || *p > '9') {
            c->s = p;
            return fail(c, "expected a digit in the exponent");
        }
        while (p < c->end && *p >= '0' && *p <= '9') p++;
    }
    /* strtod needs a terminated copy: the text need not be NUL-terminated. */
    char tmp[64];
    size_t n = (size_t)(p - c->s);
    if (n >= sizeof tmp)
        return fail(c, "number longer than 63 characters");
    memcpy(tmp, c->s, n);
    tmp[n] = '\0';
    errno = 0;
    out->num = strtod(tmp, NULL);
    out->type = REP_JSON_NUMBER;
    if (!(out->str = strdup(tmp)))
        return g5_error(G5_ERR_NOMEM, "%s: out of memory", c->name);
    c->s = p;
    return G5_OK;
}

static int push_child(rep_json *parent, rep_json **slot)
{
    if (parent->n == parent->cap) {
        int cap = parent->cap ? parent->cap * 2 : 4;
        rep_json *items = realloc(parent->items, (size_t)cap * sizeof *items);
        if (!items)
            return g5_error(G5_ERR_NOMEM, "JSON: cannot allocate %d nodes", cap);
        parent->items = items;
        if (parent->type == REP_JSON_OBJECT) {
            char **keys = realloc(parent->keys, (size_t)cap * sizeof *keys);
            if (!keys)
                return g5_error(G5_ERR_NOMEM, "JSON: cannot allocate %d keys", cap);
            parent->keys = keys;
        }
        parent->cap = cap;
    }
    *slot = &parent->items[parent->n];
    memset(*slot, 0, sizeof **slot);
    return G5_OK;
}

static int parse_container(cursor *c, rep_json *out, int depth, int is_object)
{
    char close = is_object ? '}' : ']';
    out->type = is_object ? REP_JSON_OBJECT : REP_JSON_ARRAY;
    c->s++;
    skip_space(c);
    if (c->s < c->end && *c->s == close) {
        c->s++;
        return G5_OK;
    }
    for (;;) {
        rep_json *child = NULL;
        char *key = NULL;
        int rc;
        skip_space(c);
        if (is_object) {
            if (c->s >= c->end || *c->s != '"')
                return fail(c, "expected a string key");
            if ((rc = parse_string(c, &key)) != G5_OK)
                return rc;
            skip_space(c);
            if (c->s >= c->end || *c->s != ':') {
                free(key);
                return fail(c, "expected ':' after key");
            }
            c->s++;
        }
        if ((rc = push_child(out, &child)) != G5_OK) {
            free(key);
            return rc;
        }
        if (is_object)
            out->keys[out->n] = key;
        /* Count the child before parsing it so that a failure frees it. */
        out->n++;
        if ((rc = parse_value(c, child, depth + 1)) != G5_OK)
            return rc;
        skip_space(c);
        if (c->s < c->end && *c->s == ',') {
            c->s++;
            continue;
        }
        if (c->s < c->end && *c->s == close) {
            c->s++;
            return G5_OK;
        }
        return fail(c, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_literal(cursor *c, const char *word, rep_json_type t, rep_json *out)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->s) < n || memcmp(c->s, word, n) != 0)
        return fail(c, "expected a value");
    c->s += n;
    out->type = t;
    return G5_OK;
}

static int parse_value(cursor *c, rep_json *out, int depth)
{
    if (depth > REP_JSON_MAX_DEPTH)
        return fail(c, "nesting deeper than REP_JSON_MAX_DEPTH");
    skip_space(c);
    if (c->s >= c->end)
        return fail(c, "expected a value");
    switch (*c->s) {
    case '{': return parse_container(c, out, depth, 1);
    case '[': return parse_container(c, out, depth, 0);
    case '"':
        out->type = REP_JSON_STRING;
        return parse_string(c, &out->str);
    case 't': return parse_literal(c, "true", REP_JSON_TRUE, out);
    case 'f': return parse_literal(c, "false", REP_JSON_FALSE, out);
    case 'n': return parse_literal(c, "null", REP_JSON_NULL, out);
    default: return parse_number(c, out);
    }
}

int rep_json_parse(const char *text, size_t len, const char *name, rep_json **out)
{
    cursor c = {text, text + len, name ? name : "<json>", text, 1};
    rep_json *root;
    int rc;
    *out = NULL;
    root = g5_calloc(1, sizeof *root, "JSON root");
    if (!root)
        return G5_ERR_NOMEM;
    rc = parse_value(&c, root, 0);
    if (rc == G5_OK) {
        skip_space(&c);
        if (c.s != c.end)
            rc = fail(&c, "text after the JSON value");
    }
    if (rc != G5_OK) {
        rep_json_free(&root);
        return rc;
    }
    *out = root;
    return G5_OK;
}

int rep_json_load(const char *path, rep_json **out)
{
    FILE *f;
    char *buf = NULL;
    long size;
    int rc = G5_OK;
    *out = NULL;
    f = fopen(path, "rb");
    if (!f)
        return g5_error(G5_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        rc = g5_error(G5_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        goto out;
    }
    buf = g5_malloc((size_t)size + 1, path);
    if (!buf) {
        rc = G5_ERR_NOMEM;
        goto out;
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        rc = g5_error(G5_ERR_IO, "%s: short read", path);
        goto out;
    }
    rc = rep_json_parse(buf, (size_t)size, path, out);
out:
    free(buf);
    fclose(f);
    return rc;
}

void rep_json_free(rep_json **j)
{
    if (!j || !*j)
        return;
    node_clear(*j);
    free(*j);
    *j = NULL;
}

rep_json_type rep_json_type_of(const rep_json *j) { return j ? j->type : REP_JSON_NULL; }

int rep_json_len(const rep_json *j)
{
    return j && (j->type == REP_JSON_ARRAY || j->type == REP_JSON_OBJECT) ? j->n : 0;
}

const rep_json *rep_json_at(const rep_json *j, int i)
{
    return i >= 0 && i < rep_json_len(j) ? &j->items[i] : NULL;
}

const char *rep_json_key_at(const rep_json *j, int i)
{
    return j && j->type == REP_JSON_OBJECT && i >= 0 && i < j->n ? j->keys[i] : NULL;
}

const rep_json *rep_json_get(const rep_json *obj, const char *key)
{
    if (!obj || obj->type != REP_JSON_OBJECT || !key)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const rep_json *rep_json_find(const rep_json *j, const char *key)
{
    const rep_json *hit = rep_json_get(j, key);
    if (hit)
        return hit;
    for (int i = 0; i < rep_json_len(j); i++)
        if ((hit = rep_json_find(&j->items[i], key)) != NULL)
            return hit;
    return NULL;
}

double rep_json_number(const rep_json *j, double dflt)
{
    if (!j) return dflt;
    switch (j->type) {
    case REP_JSON_NUMBER: return j->num;
    case REP_JSON_TRUE: return 1.0;
    case REP_JSON_FALSE: return 0.0;
    default: return dflt;
    }
}

const char *rep_json_string(const rep_json *j, const char *dflt)
{
    return j && j->type == REP_JSON_STRING ? j->str : dflt;
}

const char *rep_json_text(const rep_json *j, const char *dflt)
{
    return j && (j->type == REP_JSON_STRING || j->type == REP_JSON_NUMBER) ? j->str : dflt;
}

static int64_t flatten(const rep_json *j, double *out, int64_t max, int64_t k)
{
    for (int i = 0; i < j->n; i++) {
        const rep_json *e = &j->items[i];
        if (e->type == REP_JSON_ARRAY) {
            k = flatten(e, out, max, k);
        } else {
            if (k < max)
                out[k] = e->type == REP_JSON_NUMBER ? e->num : NAN;
            k++;
        }
    }
    return k;
}

int64_t rep_json_numbers(const rep_json *j, double *out, int64_t max)
{
    if (!j || j->type != REP_JSON_ARRAY)
        return -1;
    return flatten(j, out, max, 0);
}
