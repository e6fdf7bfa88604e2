/* json.h - a small JSON reader for llm.h's tools and programs (not part of llm.h).

   Parses a whole document into a tree whose strings are decoded to UTF-8 (with an
   explicit length, so "\u0000" survives in values; JSON_NO_NUL refuses it where the text
   is used as a C string). Keys hold U+0000 only under JSON_NUL_KEYS (tokenizer.json, whose
   vocabulary's keys are token texts, read with their lengths). A key twice in one object
   is refused: RFC 8259 leaves it to the reader, and Python keeps the last value where a
   first-match lookup would see the first. Objects keep their members in file order and
   answer lookups by key with a linear scan: the documents the tools read are either small
   (config.json) or walked in order (tokenizer.json's vocabulary and merges).

   Do this in exactly one C file:  #define JSON_IMPLEMENTATION  before  #include "json.h"
   (tools/llm_convert.h's implementation does it for its file).
   Everything not needed by other files is static. Errors name the byte offset. */
#ifndef LLM_TOOLS_JSON_H
#define LLM_TOOLS_JSON_H

#include <stddef.h>

typedef enum json_type {
    JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
} json_type;

typedef struct json_value json_value;
struct json_value {
    json_type type;
    double number;         /* JSON_NUMBER */
    char *str;             /* JSON_STRING (NUL-terminated, may hold NULs; see len), or an object member's key */
    size_t len;            /* string length in bytes; for arrays and objects, the number of items */
    json_value *items;     /* JSON_ARRAY / JSON_OBJECT: items (for objects, each item's key is in key/key_len) */
    char *key;
    size_t key_len;
};

/* Parses text[0..n). Returns NULL on error with a message in err. Free with json_free. */
json_value *json_parse(const char *text, size_t n, char *err, size_t err_size);
void json_free(json_value *v);
/* Reads and parses a file; NULL with a message (naming the path) on error. */
json_value *json_parse_file(const char *path, char *err, size_t err_size);

#define JSON_NO_NUL 1u   /* refuse strings holding U+0000 */
#define JSON_NUL_KEYS 2u /* accept keys holding U+0000 (json_get still finds only whole keys) */
/* json_parse and json_parse_file with flags (JSON_NO_NUL, JSON_NUL_KEYS). */
json_value *json_parse_ex(const char *text, size_t n, unsigned flags, char *err, size_t err_size);
json_value *json_parse_file_ex(const char *path, unsigned flags, char *err, size_t err_size);
/* A whole file (a regular file, a pipe; up to 1 GiB) in a malloc'd buffer with a NUL after
   its *size bytes; NULL with "cannot open PATH: REASON" or "cannot read PATH: REASON". */
char *json_read_file(const char *path, size_t *size, char *err, size_t err_size);

const json_value *json_get(const json_value *obj, const char *key); /* NULL if absent or not an object */
int json_is_int(const json_value *v);                                 /* a number with no fraction */
const char *json_type_name(json_type t);

#endif

#if defined(JSON_IMPLEMENTATION) && !defined(JSON_IMPLEMENTATION_DONE)
#define JSON_IMPLEMENTATION_DONE /* once per file, though tools/llm_convert.h includes it too */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>

typedef struct json__parser {
    const char *p, *end, *start;
    unsigned flags;
    char *err;
    size_t err_size;
    int failed;
    int depth;
} json__parser;

static void json__fail(json__parser *ps, const char *what) {
    if (ps->failed) return;
    ps->failed = 1;
    if (ps->err && ps->err_size)
        snprintf(ps->err, ps->err_size, "%s at byte %lu", what, (unsigned long)(ps->p - ps->start));
}

static void json__skip_ws(json__parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static void json__free_items(json_value *v) {
    size_t i;
    if (v->type == JSON_STRING) free(v->str);
    if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
        for (i = 0; i < v->len; i++) {
            json__free_items(&v->items[i]);
            free(v->items[i].key);
        }
        free(v->items);
    }
}

void json_free(json_value *v) {
    if (!v) return;
    json__free_items(v);
    free(v->key);
    free(v);
}

static int json__hex4(json__parser *ps, unsigned *out) {
    unsigned v = 0;
    int i;
    if (ps->end - ps->p < 4) { json__fail(ps, "truncated \\u escape"); return 0; }
    for (i = 0; i < 4; i++) {
        char c = ps->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else { json__fail(ps, "bad hex digit in \\u escape"); return 0; }
    }
    ps->p += 4;
    *out = v;
    return 1;
}

static size_t json__put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 63)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 63)); o[2] = (char)(0x80 | (cp & 63));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 63));
    o[2] = (char)(0x80 | ((cp >> 6) & 63)); o[3] = (char)(0x80 | (cp & 63));
    return 4;
}

/* Decodes a string starting after the opening quote. Escapes never grow the text
   (\uXXXX is 6 bytes in, at most 4 out; a surrogate pair 12 in, 4 out). A raw NUL byte is
   a control character, so "\u0000" is the one way to U+0000. */
static char *json__string(json__parser *ps, size_t *len, int is_key) {
    const char *s = ps->p;
    char *out, *o;
    while (s < ps->end && *s != '"') s += (*s == '\\' && s + 1 < ps->end) ? 2 : 1;
    if (s >= ps->end) { json__fail(ps, "unterminated string"); return NULL; }
    out = (char *)malloc((size_t)(s - ps->p) + 1);
    if (!out) { json__fail(ps, "out of memory"); return NULL; }
    o = out;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20) { json__fail(ps, "control character in string"); free(out); return NULL; }
        if (c != '\\') { *o++ = (char)c; continue; }
        c = (unsigned char)*ps->p++;
        switch (c) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp, lo;
            if (!json__hex4(ps, &cp)) { free(out); return NULL; }
            if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                const char *save = ps->p;
                ps->p += 2;
                if (!json__hex4(ps, &lo)) { free(out); return NULL; }
                if (lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else ps->p = save;
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* a lone surrogate has no UTF-8 form */
            if (cp == 0 && (is_key ? !(ps->flags & JSON_NUL_KEYS) : (ps->flags & JSON_NO_NUL) != 0)) {
                char what[120];
                *o = 0;
                snprintf(what, sizeof what, "U+0000 (\\u0000) in a %s, after \"%.40s\"", is_key ? "key" : "string", out);
                json__fail(ps, what);
                free(out);
                return NULL;
            }
            o += json__put_utf8(o, cp);
            break;
        }
        default: json__fail(ps, "bad escape in string"); free(out); return NULL;
        }
    }
    ps->p++;
    *o = 0;
    *len = (size_t)(o - out);
    return out;
}

static int json__value(json__parser *ps, json_value *v);

static int json__push(json__parser *ps, json_value *v, size_t *cap) {
    if (v->len == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        json_value *ni = (json_value *)realloc(v->items, nc * sizeof *ni);
        if (!ni) { json__fail(ps, "out of memory"); return 0; }
        v->items = ni;
        *cap = nc;
    }
    memset(&v->items[v->len], 0, sizeof v->items[0]);
    v->len++;
    return 1;
}

static int json__key_cmp(const void *a, const void *b) {
    const json_value *x = *(const json_value *const *)a, *y = *(const json_value *const *)b;
    int c = memcmp(x->key, y->key, x->key_len < y->key_len ? x->key_len : y->key_len);
    return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/* Sorting pointers to the members finds a repeated key in n log n (vocabularies have 200k). */
static int json__unique_keys(json__parser *ps, const json_value *obj) {
    const json_value **order;
    size_t i;
    if (obj->len < 2) return 1;
    if (!(order = (const json_value **)malloc(obj->len * sizeof *order))) { json__fail(ps, "out of memory"); return 0; }
    for (i = 0; i < obj->len; i++) order[i] = &obj->items[i];
    qsort(order, obj->len, sizeof *order, json__key_cmp);
    for (i = 1; i < obj->len && json__key_cmp(&order[i - 1], &order[i]) != 0; i++) {}
    if (i < obj->len) {
        char what[160];
        snprintf(what, sizeof what, "duplicate key \"%.100s\" in the object ending", order[i]->key);
        json__fail(ps, what);
    }
    free(order);
    return i == obj->len;
}

static int json__container(json__parser *ps, json_value *v, char close) {
    size_t cap = 0;
    if (++ps->depth > 512) { json__fail(ps, "nesting too deep"); return 0; }
    json__skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) { ps->p++; ps->depth--; return 1; }
    for (;;) {
        json_value *it;
        if (!json__push(ps, v, &cap)) return 0;
        it = &v->items[v->len - 1];
        json__skip_ws(ps);
        if (close == '}') {
            if (ps->p >= ps->end || *ps->p != '"') { json__fail(ps, "expected a key"); return 0; }
            ps->p++;
            if (!(it->key = json__string(ps, &it->key_len, 1))) return 0;
            json__skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') { json__fail(ps, "expected ':'"); return 0; }
            ps->p++;
        }
        if (!json__value(ps, it)) return 0;
        json__skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
        if (ps->p < ps->end && *ps->p == close) { ps->p++; break; }
        json__fail(ps, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        return 0;
    }
    ps->depth--;
    return close == '}' ? json__unique_keys(ps, v) : 1;
}

static int json__literal(json__parser *ps, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) { json__fail(ps, "unexpected character"); return 0; }
    ps->p += n;
    return 1;
}

static int json__number(json__parser *ps, json_value *v) {
    char buf[64];
    const char *s = ps->p;
    size_t n;
    char *endp;
    while (s < ps->end && (strchr("+-0123456789.eE", *s) != NULL) && *s) s++;
    n = (size_t)(s - ps->p);
    if (n == 0 || n >= sizeof buf) { json__fail(ps, "bad number"); return 0; }
    memcpy(buf, ps->p, n);
    buf[n] = 0;
    v->number = strtod(buf, &endp);
    if (endp != buf + n) { json__fail(ps, "bad number"); return 0; }
    v->type = JSON_NUMBER;
    ps->p = s;
    return 1;
}

static int json__value(json__parser *ps, json_value *v) {
    json__skip_ws(ps);
    if (ps->p >= ps->end) { json__fail(ps, "unexpected end of input"); return 0; }
    switch (*ps->p) {
    case '{': ps->p++; v->type = JSON_OBJECT; return json__container(ps, v, '}');
    case '[': ps->p++; v->type = JSON_ARRAY; return json__container(ps, v, ']');
    case '"': ps->p++; v->type = JSON_STRING; return (v->str = json__string(ps, &v->len, 0)) != NULL;
    case 't': v->type = JSON_TRUE; return json__literal(ps, "true");
    case 'f': v->type = JSON_FALSE; return json__literal(ps, "false");
    case 'n': v->type = JSON_NULL; return json__literal(ps, "null");
    case 'N': v->type = JSON_NUMBER; v->number = NAN; return json__literal(ps, "NaN"); /* Python's json writes these */
    case 'I': v->type = JSON_NUMBER; v->number = INFINITY; return json__literal(ps, "Infinity");
    default: return json__number(ps, v);
    }
}

json_value *json_parse_ex(const char *text, size_t n, unsigned flags, char *err, size_t err_size) {
    json__parser ps;
    json_value *v = (json_value *)calloc(1, sizeof *v);
    if (!v) { if (err && err_size) snprintf(err, err_size, "out of memory"); return NULL; }
    ps.p = ps.start = text;
    ps.end = text + n;
    ps.flags = flags;
    ps.err = err;
    ps.err_size = err_size;
    ps.failed = 0;
    ps.depth = 0;
    if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) ps.p += 3; /* UTF-8 BOM */
    if (json__value(&ps, v)) {
        json__skip_ws(&ps);
        if (ps.p != ps.end) json__fail(&ps, "trailing characters after the value");
    }
    if (ps.failed) { json_free(v); return NULL; }
    return v;
}

json_value *json_parse(const char *text, size_t n, char *err, size_t err_size) {
    return json_parse_ex(text, n, 0, err, err_size);
}

/* Read in growing chunks rather than sized by fseek/ftell: that size is meaningless for a
   directory (where Linux's fopen succeeds and read fails with EISDIR) or a pipe. */
char *json_read_file(const char *path, size_t *size, char *err, size_t err_size) {
    const size_t max = (size_t)1 << 30;
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, k;
    if (!f) { snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno)); return NULL; }
    do {
        if (cap - n < 2) {
            char *grown = cap < max ? (char *)realloc(buf, cap ? 2 * cap : 65536) : NULL;
            if (!grown) {
                snprintf(err, err_size, cap < max ? "cannot read %s: out of memory" : "cannot read %s: larger than 1 GiB", path);
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
            cap = cap ? 2 * cap : 65536;
        }
        k = fread(buf + n, 1, cap - 1 - n, f);
        n += k;
    } while (k > 0);
    if (ferror(f)) {
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *size = n;
    return buf;
}

json_value *json_parse_file_ex(const char *path, unsigned flags, char *err, size_t err_size) {
    size_t size;
    char *buf = json_read_file(path, &size, err, err_size), sub[200];
    json_value *v;
    if (!buf) return NULL;
    v = json_parse_ex(buf, size, flags, sub, sizeof sub);
    free(buf);
    if (!v) snprintf(err, err_size, "%s: bad JSON: %s", path, sub);
    return v;
}

json_value *json_parse_file(const char *path, char *err, size_t err_size) {
    return json_parse_file_ex(path, 0, err, err_size);
}

const json_value *json_get(const json_value *obj, const char *key) {
    size_t i, n = strlen(key);
    if (!obj || obj->type != JSON_OBJECT) return NULL;
    for (i = 0; i < obj->len; i++)
        if (obj->items[i].key_len == n && memcmp(obj->items[i].key, key, n) == 0) return &obj->items[i];
    return NULL;
}

int json_is_int(const json_value *v) {
    return v && v->type == JSON_NUMBER && v->number == floor(v->number) && fabs(v->number) < 9007199254740992.0;
}

const char *json_type_name(json_type t) {
    static const char *names[] = { "null", "false", "true", "number", "string", "array", "object" };
    return names[t];
}
#endif
