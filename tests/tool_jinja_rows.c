/* jinja_rows: the rows of a chat-template test set (templates.json, conversations.jsonl,
   expected.jsonl, as ../shared/testdata/chat-jinja/README.md describes them) as requests of
   the render line protocol, and the check of the answers.

   tool_jinja_rows requests DIR          one request line per row of DIR/expected.jsonl
   tool_jinja_rows check DIR ANSWERS     compares ANSWERS line by line with the rows
   tool_jinja_rows template DIR NAME     the text of template NAME of DIR/templates.json
   tool_jinja_rows request DIR NAME MESSAGES BOS EOS
                                         a request to render template NAME for the JSON array
                                         MESSAGES with a generation prompt and those tokens
   tool_jinja_rows text ANSWER           the text of the answer in file ANSWER

   Requests copy the JSON text of messages, tools and kwargs as they are (numbers keep their
   spelling). A text row passes on a byte-identical text, an error row on any error. check
   prints the first differences and "N passed, N failed", and exits 1 unless all passed. */
#define JSON_IMPLEMENTATION
#include "../tools/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct span { const char *p; size_t n; } span;

static char *read_all(const char *dir, const char *name, size_t *n) {
    char path[4096], err[512], *text;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(text = json_read_file(path, n, err, sizeof err))) { fprintf(stderr, "jinja_rows: %s\n", err); exit(2); }
    return text;
}

static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

/* The end of the JSON value at p. */
static const char *skip_value(const char *p, const char *end) {
    int depth = 0;
    p = skip_ws(p, end);
    if (p < end && *p != '"' && *p != '[' && *p != '{') {
        while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') p++;
        return p;
    }
    for (; p < end; p++) {
        if (*p == '"') { for (p++; p < end && *p != '"'; p++) if (*p == '\\') p++; }
        else if (*p == '[' || *p == '{') depth++;
        else if (*p == ']' || *p == '}') depth--;
        if (depth == 0) return p + 1;
    }
    fprintf(stderr, "jinja_rows: a value does not end\n");
    exit(2);
}

/* The text of member key of the object at o; n = 0 when absent. */
static span member(span o, const char *key) {
    const char *p = skip_ws(o.p, o.p + o.n), *end = o.p + o.n;
    size_t k = strlen(key);
    span r = { NULL, 0 };
    if (p >= end || *p != '{') return r;
    p++;
    for (;;) {
        const char *ks, *ke, *vs, *ve;
        p = skip_ws(p, end);
        if (p < end && *p == ',') p = skip_ws(p + 1, end);
        if (p >= end || *p != '"') return r;
        ks = p; ke = skip_value(p, end);
        p = skip_ws(ke, end);
        if (p >= end || *p != ':') return r;
        vs = skip_ws(p + 1, end); ve = skip_value(vs, end);
        p = ve;
        if ((size_t)(ke - ks) == k + 2 && !memcmp(ks + 1, key, k)) { r.p = vs; r.n = (size_t)(ve - vs); return r; }
    }
}


/* The line of a JSON Lines text whose member key is the string value. */
static span find_line(const char *text, size_t n, const char *key, span value) {
    const char *p = text, *end = text + n;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        span line, v;
        if (!e) e = end;
        line.p = p; line.n = (size_t)(e - p);
        v = member(line, key);
        if (v.n == value.n && !memcmp(v.p, value.p, v.n)) return line;
        p = e + 1;
    }
    fprintf(stderr, "jinja_rows: no line with %s = %.*s\n", key, (int)value.n, value.p);
    exit(2);
}

static void put(span s) { fwrite(s.p, 1, s.n, stdout); }

/* A kwargs object's members, after the ones written before. */
static void put_members(span obj) {
    const char *p, *e;
    if (!obj.n) return;
    p = skip_ws(obj.p, obj.p + obj.n) + 1;
    e = obj.p + obj.n - 1;
    while (e > p && *e != '}') e--;
    p = skip_ws(p, e);
    if (p < e) { fputs(", ", stdout); fwrite(p, 1, (size_t)(e - p), stdout); }
}

static int requests(const char *dir) {
    size_t nt, nc, ne;
    char *templates = read_all(dir, "templates.json", &nt), *convs = read_all(dir, "conversations.jsonl", &nc);
    char *rows = read_all(dir, "expected.jsonl", &ne);
    const char *p = rows, *end = rows + ne;
    span all = { templates, nt };
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        span row, name, conv, t, c, tools;
        char key[512];
        if (!e) e = end;
        row.p = p; row.n = (size_t)(e - p);
        p = e + 1;
        if (!row.n) continue;
        name = member(row, "template");
        snprintf(key, sizeof key, "%.*s", (int)(name.n - 2), name.p + 1);
        t = member(all, key);
        conv = member(row, "conversation");
        c = find_line(convs, nc, "id", conv);
        fputs("{\"template\": ", stdout); put(member(t, "chat_template"));
        fputs(", \"messages\": ", stdout); put(member(c, "messages"));
        tools = member(c, "tools");
        fputs(", \"tools\": ", stdout); if (tools.n) put(tools); else fputs("null", stdout);
        fputs(", \"add_generation_prompt\": ", stdout); put(member(row, "add_generation_prompt"));
        fputs(", \"bos_token\": ", stdout); put(member(t, "bos_token"));
        fputs(", \"eos_token\": ", stdout); put(member(t, "eos_token"));
        put_members(member(t, "kwargs"));
        put_members(member(c, "kwargs"));
        fputs("}\n", stdout);
    }
    free(templates); free(convs); free(rows);
    return 0;
}

static void show_difference(const json_value *want, const json_value *got) {
    size_t i = 0, from, n;
    while (i < want->len && i < got->len && want->str[i] == got->str[i]) i++;
    from = i > 40 ? i - 40 : 0;
    n = 80;
    fprintf(stderr, "    first difference at byte %lu\n    want: %.*s\n    got:  %.*s\n", (unsigned long)i,
            (int)(want->len - from < n ? want->len - from : n), want->str + from,
            (int)(got->len - from < n ? got->len - from : n), got->str + from);
}

static int check(const char *dir, const char *answers_path) {
    size_t ne, na, passed = 0, failed = 0, shown = 0;
    char *rows = read_all(dir, "expected.jsonl", &ne), err[512];
    char *answers = json_read_file(answers_path, &na, err, sizeof err);
    const char *p = rows, *end = rows + ne, *q = answers, *qend = answers ? answers + na : NULL;
    if (!answers) { fprintf(stderr, "jinja_rows: %s\n", err); return 2; }
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p)), *f;
        json_value *row, *ans = NULL;
        const json_value *want, *got, *gerr;
        int ok = 0;
        if (!e) e = end;
        if (e == p) { p = e + 1; continue; }
        row = json_parse(p, (size_t)(e - p), err, sizeof err);
        f = q < qend ? memchr(q, '\n', (size_t)(qend - q)) : NULL;
        if (q < qend) { if (!f) f = qend; ans = json_parse(q, (size_t)(f - q), err, sizeof err); q = f + 1; }
        want = row ? json_get(row, "text") : NULL;
        got = ans ? json_get(ans, "text") : NULL;
        gerr = ans ? json_get(ans, "error") : NULL;
        if (!row) { fprintf(stderr, "jinja_rows: expected.jsonl: %s\n", err); return 2; }
        if (!want) ok = gerr != NULL;
        else ok = got && got->type == JSON_STRING && got->len == want->len && !memcmp(got->str, want->str, want->len);
        if (ok) passed++;
        else {
            failed++;
            if (shown++ < 10) {
                const json_value *t = json_get(row, "template"), *c = json_get(row, "conversation"), *g = json_get(row, "add_generation_prompt");
                fprintf(stderr, "FAIL %s %s agp=%s: ", t ? t->str : "?", c ? c->str : "?", g && g->type == JSON_TRUE ? "true" : "false");
                if (!ans) fprintf(stderr, "no answer\n");
                else if (!want) fprintf(stderr, "rendered, but transformers raises\n");
                else if (gerr) fprintf(stderr, "error: %s\n", gerr->type == JSON_STRING ? gerr->str : "?");
                else { fprintf(stderr, "text differs\n"); if (got && got->type == JSON_STRING) show_difference(want, got); }
            }
        }
        json_free(row);
        json_free(ans);
        p = e + 1;
    }
    printf("%lu passed, %lu failed\n", (unsigned long)passed, (unsigned long)failed);
    free(rows); free(answers);
    return failed ? 1 : 0;
}

static void put_quoted(const char *s) {
    fputc('"', stdout);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned)*s);
        else fputc(*s, stdout);
    }
    fputc('"', stdout);
}

static int request(const char *dir, const char *name, const char *messages, const char *bos, const char *eos) {
    size_t nt;
    char *templates = read_all(dir, "templates.json", &nt);
    span all = { templates, nt }, t = member(all, name);
    if (!t.n) { fprintf(stderr, "jinja_rows: no template '%s' in %s/templates.json\n", name, dir); free(templates); return 1; }
    fputs("{\"template\": ", stdout); put(member(t, "chat_template"));
    printf(", \"messages\": %s, \"tools\": null, \"add_generation_prompt\": true, \"bos_token\": ", messages);
    put_quoted(bos);
    fputs(", \"eos_token\": ", stdout);
    put_quoted(eos);
    fputs("}\n", stdout);
    free(templates);
    return 0;
}

static int answer_text(const char *path) {
    size_t n;
    char err[512], *text = json_read_file(path, &n, err, sizeof err);
    json_value *ans = text ? json_parse(text, n, err, sizeof err) : NULL;
    const json_value *t = json_get(ans, "text"), *e = json_get(ans, "error");
    int rc = t && t->type == JSON_STRING ? 0 : 1;
    if (!ans) fprintf(stderr, "jinja_rows: %s\n", err);
    else if (rc) fprintf(stderr, "jinja_rows: no text in the answer: %s\n", e && e->type == JSON_STRING ? e->str : "?");
    else fwrite(t->str, 1, t->len, stdout);
    json_free(ans);
    free(text);
    return rc;
}

static int template_text(const char *dir, const char *name) {
    size_t n;
    char *text = read_all(dir, "templates.json", &n), err[512];
    json_value *all = json_parse(text, n, err, sizeof err);
    const json_value *t = all ? json_get(json_get(all, name), "chat_template") : NULL;
    int rc = t && t->type == JSON_STRING ? 0 : 1;
    if (!all) fprintf(stderr, "jinja_rows: templates.json: %s\n", err);
    else if (rc) fprintf(stderr, "jinja_rows: no template '%s' in %s/templates.json\n", name, dir);
    else fwrite(t->str, 1, t->len, stdout);
    json_free(all);
    free(text);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "requests")) return requests(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "check")) return check(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "template")) return template_text(argv[2], argv[3]);
    if (argc == 7 && !strcmp(argv[1], "request")) return request(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if (argc == 3 && !strcmp(argv[1], "text")) return answer_text(argv[2]);
    fprintf(stderr, "usage: tool_jinja_rows requests DIR | check DIR ANSWERS | template DIR NAME | request DIR NAME MESSAGES BOS EOS | text ANSWER\n");
    return 2;
}
