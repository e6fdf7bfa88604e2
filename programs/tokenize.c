/* tokenize: a JSON Lines filter over a model's tokenizer, for scripts and tests.

   build/tokenize -m model.llm [--no-special] [--split-special] [--decode [--skip-special]]

   Encoding: each input line is an object with a "text" string; the output line is
   {"ids": [...]}, with BOS/EOS as the tokenizer's post-processor adds them (not with
   --no-special) and special tokens written in the text parsed (not with --split-special).
   Decoding (--decode): each input line has an "ids" array; the output is {"text": "..."},
   special tokens kept unless --skip-special. Other fields of the input are ignored. A line
   that cannot be read gives {"error": "..."} and the exit status 1; the output is always
   one valid JSON line per input line. The model file may be vocab-only. */
#include "../llm.h"
#define JSON_IMPLEMENTATION
#include "../tools/json.h"
#include "flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: tokenize -m model.llm [--no-special] [--split-special] [--decode [--skip-special]]\n"
            "  -m, --model FILE  model file (.llm; vocab-only will do)\n"
            "  --no-special      do not add BOS/EOS as the tokenizer would\n"
            "  --split-special   tokenize special tokens written in the text as plain text\n"
            "  --decode          ids to text instead\n"
            "  --skip-special    with --decode: leave special tokens out\n"
            "  -h, --help        this text\n"
            "  reads JSON Lines on stdin: {\"text\": ...} (or {\"ids\": [...]} with --decode)\n"
            "  writes one line per input line: {\"ids\": [...]} (or {\"text\": ...})\n");
}

/* Length (1..4) of the well-formed UTF-8 character at s[0..n), or 0 (no overlong forms,
   surrogates or values past U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned lo = 0x80, hi = 0xBF;
    size_t len, i;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) len = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF) { len = 3; if (s[0] == 0xE0) lo = 0xA0; if (s[0] == 0xED) hi = 0x9F; }
    else if (s[0] >= 0xF0 && s[0] <= 0xF4) { len = 4; if (s[0] == 0xF0) lo = 0x90; if (s[0] == 0xF4) hi = 0x8F; }
    else return 0;
    if (n < len) return 0;
    for (i = 1; i < len; i++, lo = 0x80, hi = 0xBF)
        if (s[i] < lo || s[i] > hi) return 0;
    return len;
}

/* A JSON string: quotes, backslashes and control characters escaped, bytes that are not
   UTF-8 written as U+FFFD so the line stays valid JSON whatever the input. */
static void put_json_string(const char *s, size_t n) {
    size_t i = 0;
    putchar('"');
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t len;
        if (c == '"' || c == '\\') { putchar('\\'); putchar(c); i++; continue; }
        if (c == '\n') { fputs("\\n", stdout); i++; continue; }
        if (c == '\t') { fputs("\\t", stdout); i++; continue; }
        if (c == '\r') { fputs("\\r", stdout); i++; continue; }
        if (c < 0x20) { printf("\\u%04x", c); i++; continue; }
        len = utf8_len((const unsigned char *)s + i, n - i);
        if (!len) { fputs("\\ufffd", stdout); i++; continue; }
        fwrite(s + i, 1, len, stdout);
        i += len;
    }
    putchar('"');
}

static void put_error(const char *msg) {
    fputs("{\"error\": ", stdout);
    put_json_string(msg, strlen(msg));
    fputs("}\n", stdout);
}

/* One input line; returns 0 when it was answered with a result. */
static int process(llm_model *m, const char *line, size_t n, int decode, int flags) {
    char err[256];
    json_value *j = json_parse(line, n, err, sizeof err);
    const json_value *v;
    llm_result r;
    size_t i, cap, got;
    int rc = 1;
    if (!j) { put_error(err); return 1; }
    if (!decode) {
        int32_t *ids = NULL;
        v = json_get(j, "text");
        if (!v || v->type != JSON_STRING) { put_error("no \"text\" string"); json_free(j); return 1; }
        for (cap = v->len + 16;; cap = got) {
            free(ids);
            if (!(ids = (int32_t *)malloc(cap * sizeof *ids))) { put_error("out of memory"); break; }
            r = llm_tokenize(m, v->str, v->len, flags, ids, cap, &got);
            if (r == LLM_ERR_BUFFER_TOO_SMALL) continue;
            if (r != LLM_OK) { put_error(llm_result_string(r)); break; }
            fputs("{\"ids\": [", stdout);
            for (i = 0; i < got; i++) printf(i ? ", %d" : "%d", ids[i]);
            fputs("]}\n", stdout);
            rc = 0;
            break;
        }
        free(ids);
    } else {
        int32_t *ids;
        char *text = NULL;
        v = json_get(j, "ids");
        if (!v || v->type != JSON_ARRAY) { put_error("no \"ids\" array"); json_free(j); return 1; }
        ids = (int32_t *)malloc((v->len + 1) * sizeof *ids);
        for (i = 0; ids && i < v->len; i++) {
            if (!json_is_int(&v->items[i]) || v->items[i].number < 0 || v->items[i].number > 2147483647.0) break;
            ids[i] = (int32_t)v->items[i].number;
        }
        if (!ids) put_error("out of memory");
        else if (i < v->len) put_error("\"ids\" holds something that is not a token id");
        else {
            for (cap = 16 * v->len + 16;; cap = got) {
                free(text);
                if (!(text = (char *)malloc(cap ? cap : 1))) { put_error("out of memory"); break; }
                r = llm_detokenize(m, ids, v->len, flags, text, cap, &got);
                if (r == LLM_ERR_BUFFER_TOO_SMALL) continue;
                if (r != LLM_OK) { put_error(llm_result_string(r)); break; }
                fputs("{\"text\": ", stdout);
                put_json_string(text, got);
                fputs("}\n", stdout);
                rc = 0;
                break;
            }
        }
        free(ids);
        free(text);
    }
    json_free(j);
    return rc;
}

static const char *const known[] = { "-m", "--model", "--decode", "--no-special", "--split-special", "--skip-special", "-h", "--help", NULL };

int main(int argc, char **argv) {
    const char *model_path = NULL;
    int decode = 0, no_special = 0, split_special = 0, skip_special = 0, flags, i, status = 0;
    llm_model_desc md;
    llm_model *m;
    char *line = NULL;
    size_t len = 0, cap = 0;
    int c;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *a = flag_name(arg);
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--decode")) decode = 1;
        else if (!strcmp(a, "--no-special")) no_special = 1;
        else if (!strcmp(a, "--split-special")) split_special = 1;
        else if (!strcmp(a, "--skip-special")) skip_special = 1;
        else if (strcmp(a, "-m")) { flag_unknown("tokenize", arg, known); return 2; }
        else if (!(model_path = flag_value(argc, argv, &i))) { fprintf(stderr, "tokenize: %s needs a value\n", arg); return 2; }
    }
    if (!model_path) { fprintf(stderr, "tokenize: no model: give -m FILE (see tokenize --help)\n"); return 2; }
    warn_build("tokenize");
    memset(&md, 0, sizeof md);
    md.vocab_only = 1; /* the weights are not needed */
    if (!(m = open_model("tokenize", model_path, &md))) return 1;
    if (!llm_tokenizer_info_get(m)) { fprintf(stderr, "tokenize: %s has no tokenizer\n", model_path); llm_model_close(m); return 1; }
    flags = decode ? (skip_special ? LLM_DETOKENIZE_SKIP_SPECIAL : 0)
                   : (no_special ? 0 : LLM_TOKENIZE_ADD_SPECIAL) | (split_special ? 0 : LLM_TOKENIZE_PARSE_SPECIAL);
    do { /* lines of any length; a last line without '\n' counts */
        c = getchar();
        if (c != EOF && c != '\n') {
            if (len + 1 >= cap) {
                char *p = (char *)realloc(line, cap = cap * 2 + 4096);
                if (!p) { fprintf(stderr, "tokenize: out of memory\n"); status = 1; break; }
                line = p;
            }
            line[len++] = (char)c;
            continue;
        }
        if (c == '\n' || len > 0) {
            if (len && line[len - 1] == '\r') len--;
            status |= process(m, line ? line : "", len, decode, flags);
            fflush(stdout);
        }
        len = 0;
    } while (c != EOF);
    if (ferror(stdin)) { fprintf(stderr, "tokenize: cannot read the input: %s\n", strerror(errno)); status = 1; }
    free(line);
    llm_model_close(m);
    return status;
}
