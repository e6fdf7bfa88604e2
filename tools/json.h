/* json.h - a small JSON reader for llm.h's tools and examples (not part of llm.h).

   Parses a whole document into a tree whose strings are decoded to UTF-8 (with an
   explicit length, so "\u0000" survives). Objects keep their members in file order and
   answer lookups by key with a linear scan: the documents the tools read are either small
   (config.json) or walked in order (tokenizer.json's vocabulary and merges).

   Do this in exactly one C file:  #define JSON_IMPLEMENTATION  before  #include "json.h".
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

const json_value *json_get(const json_value *obj, const char *key); /* NULL if absent or not an object */
int json_is_int(const json_value *v);                                 /* a number with no fraction */
const char *json_type_name(json_type t);

#endif

#ifdef JSON_IMPLEMENTATION
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct json__parser {
    const char *p, *end, *start;
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
   (\uXXXX is 6 bytes in, at most 4 out; a surrogate pair 12 in, 4 out). */
static char *json__string(json__parser *ps, size_t *len) {
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
            if (!(it->key = json__string(ps, &it->key_len))) return 0;
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
    return 1;
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
    case '"': ps->p++; v->type = JSON_STRING; return (v->str = json__string(ps, &v->len)) != NULL;
    case 't': v->type = JSON_TRUE; return json__literal(ps, "true");
    case 'f': v->type = JSON_FALSE; return json__literal(ps, "false");
    case 'n': v->type = JSON_NULL; return json__literal(ps, "null");
    case 'N': v->type = JSON_NUMBER; v->number = NAN; return json__literal(ps, "NaN"); /* Python's json writes these */
    case 'I': v->type = JSON_NUMBER; v->number = INFINITY; return json__literal(ps, "Infinity");
    default: return json__number(ps, v);
    }
}

json_value *json_parse(const char *text, size_t n, char *err, size_t err_size) {
    json__parser ps;
    json_value *v = (json_value *)calloc(1, sizeof *v);
    if (!v) return NULL;
    ps.p = ps.start = text;
    ps.end = text + n;
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

json_value *json_parse_file(const char *path, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long size;
    json_value *v;
    char sub[200];
    if (!f) { snprintf(err, err_size, "%s: cannot open", path); return NULL; }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        snprintf(err, err_size, "%s: cannot read", path);
        return NULL;
    }
    buf = (char *)malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        fclose(f);
        snprintf(err, err_size, "%s: cannot read", path);
        return NULL;
    }
    fclose(f);
    v = json_parse(buf, (size_t)size, sub, sizeof sub);
    free(buf);
    if (!v) snprintf(err, err_size, "%s: bad JSON: %s", path, sub);
    return v;
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
