/* jsoncmp: compares one field of two JSON Lines files, line by line.

   tool_jsoncmp EXPECTED.jsonl FIELD ACTUAL.jsonl FIELD [LABEL]

   Values are compared exactly (numbers by value, strings byte for byte, arrays and objects
   member by member). Prints the first differing lines and "LABEL: N/M lines match"; exits
   1 unless every line matches and both files have the same number of lines. */
#define JSON_IMPLEMENTATION
#include "../tools/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, got;
    *n = 0;
    if (!f) { fprintf(stderr, "jsoncmp: cannot open %s\n", path); exit(2); }
    do {
        if (cap - *n < 65536) { cap = cap * 2 + 65536; buf = (char *)realloc(buf, cap + 1); if (!buf) exit(2); }
        got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
    } while (got > 0);
    fclose(f);
    buf[*n] = 0;
    return buf;
}

/* Splits text into lines in place; returns the count. */
static size_t split_lines(char *text, size_t n, char ***lines) {
    size_t count = 0, cap = 0, i, start = 0;
    *lines = NULL;
    for (i = 0; i <= n; i++) {
        if (i < n && text[i] != '\n') continue;
        if (i == n && start == n) break;
        if (count == cap) { cap = cap * 2 + 256; *lines = (char **)realloc(*lines, cap * sizeof **lines); }
        text[i] = 0;
        (*lines)[count++] = text + start;
        start = i + 1;
    }
    return count;
}

static int equal(const json_value *a, const json_value *b) {
    size_t i;
    if (!a || !b) return a == b;
    if (a->type != b->type) return 0;
    switch (a->type) {
    case JSON_NUMBER: return a->number == b->number;
    case JSON_STRING: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case JSON_ARRAY:
    case JSON_OBJECT:
        if (a->len != b->len) return 0;
        for (i = 0; i < a->len; i++) {
            if (a->type == JSON_OBJECT && (a->items[i].key_len != b->items[i].key_len ||
                                           memcmp(a->items[i].key, b->items[i].key, a->items[i].key_len) != 0))
                return 0;
            if (!equal(&a->items[i], &b->items[i])) return 0;
        }
        return 1;
    default: return 1;
    }
}

int main(int argc, char **argv) {
    size_t ne, na, i, n, ok = 0, shown = 0;
    char *te, *ta, **le, **la, err[256];
    if (argc != 5 && argc != 6) { fprintf(stderr, "usage: tool_jsoncmp EXPECTED FIELD ACTUAL FIELD [LABEL]\n"); return 2; }
    te = read_all(argv[1], &ne);
    ta = read_all(argv[3], &na);
    ne = split_lines(te, ne, &le);
    na = split_lines(ta, na, &la);
    n = ne < na ? ne : na;
    for (i = 0; i < n; i++) {
        json_value *a = json_parse(le[i], strlen(le[i]), err, sizeof err), *b = json_parse(la[i], strlen(la[i]), err, sizeof err);
        const json_value *va = a ? json_get(a, argv[2]) : NULL, *vb = b ? json_get(b, argv[4]) : NULL;
        if (va && vb && equal(va, vb)) ok++;
        else if (shown++ < 5) {
            printf("  line %lu differs:\n    expected: %.300s\n    got:      %.300s\n", (unsigned long)i + 1, le[i], la[i]);
        }
        json_free(a);
        json_free(b);
    }
    printf("%s: %lu/%lu lines match\n", argc == 6 ? argv[5] : argv[3], (unsigned long)ok, (unsigned long)ne);
    if (ne != na) printf("  %lu expected lines, %lu lines of output\n", (unsigned long)ne, (unsigned long)na);
    free(le); free(la); free(te); free(ta);
    return ok == ne && ne == na ? 0 : 1;
}
