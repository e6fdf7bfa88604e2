/* build/chat --print-prompt against HuggingFace's renderings: for every template of
   ../shared/testdata/chat a model directory (tiny zero weights written here as
   safetensors, the template and its bos/eos tokens in tokenizer_config.json) goes through
   build/convert, and every conversation of expected.jsonl and tests/data/chat_cases.jsonl
   goes through build/chat as JSON Lines on stdin. stdout must be the rendering byte for
   byte with exit 0; where the template raises, stderr must carry its message and the exit
   status must be non-zero with nothing on stdout. */
#define _POSIX_C_SOURCE 200809L
#define JSON_IMPLEMENTATION
#include "../tools/json.h"
#include "need.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#if defined(_WIN32) /* not run on Windows (POSIX shell commands); builds there */
#define WIFEXITED(status) 1
#define setenv(name, value, overwrite) _putenv_s(name, value)
#define WEXITSTATUS(status) (status)
#else
#include <sys/wait.h>
#endif

#define DIR "build/tests/chat_prompt"

static void put_json_string(FILE *f, const char *s, size_t n) {
    size_t i;
    fputc('"', f);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, got;
    *n = 0;
    if (!f) return NULL;
    do {
        if (cap - *n < 4096) { cap = cap * 2 + 4096; buf = (char *)realloc(buf, cap + 1); }
        got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
    } while (got > 0);
    fclose(f);
    buf[*n] = 0;
    return buf;
}

/* A llama model with vocab 8, hidden 4, one layer; every weight is zero. */
static int write_checkpoint(const char *dir) {
    static const char *const names[] = {
        "model.embed_tokens.weight", "model.norm.weight", "model.layers.0.input_layernorm.weight",
        "model.layers.0.post_attention_layernorm.weight", "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight",
        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.mlp.gate_proj.weight",
        "model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.down_proj.weight",
    };
    static const int shapes[][2] = { { 8, 4 }, { 4, 0 }, { 4, 0 }, { 4, 0 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 8, 4 }, { 8, 4 }, { 4, 8 } };
    char path[640], header[4096];
    size_t i, hn = 0, off = 0;
    unsigned char len8[8];
    FILE *f;
    hn += (size_t)snprintf(header + hn, sizeof header - hn, "{");
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t bytes = 4u * (size_t)shapes[i][0] * (size_t)(shapes[i][1] ? shapes[i][1] : 1);
        hn += (size_t)snprintf(header + hn, sizeof header - hn, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%d%s", i ? "," : "",
                               names[i], shapes[i][0], shapes[i][1] ? "," : "");
        if (shapes[i][1]) hn += (size_t)snprintf(header + hn, sizeof header - hn, "%d", shapes[i][1]);
        hn += (size_t)snprintf(header + hn, sizeof header - hn, "],\"data_offsets\":[%lu,%lu]}", (unsigned long)off,
                               (unsigned long)(off + bytes));
        off += bytes;
    }
    hn += (size_t)snprintf(header + hn, sizeof header - hn, "}");
    while (hn % 8) header[hn++] = ' ';
    for (i = 0; i < 8; i++) len8[i] = (unsigned char)((uint64_t)hn >> (8 * i));
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (!(f = fopen(path, "wb"))) return -1;
    fwrite(len8, 1, 8, f);
    fwrite(header, 1, hn, f);
    for (i = 0; i < off; i++) fputc(0, f);
    if (fclose(f)) return -1;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (!(f = fopen(path, "wb"))) return -1;
    fprintf(f, "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", \"vocab_size\": 8, \"hidden_size\": 4,\n"
               " \"intermediate_size\": 8, \"num_hidden_layers\": 1, \"num_attention_heads\": 1, \"num_key_value_heads\": 1,\n"
               " \"max_position_embeddings\": 64, \"rms_norm_eps\": 1e-5, \"rope_theta\": 10000.0, \"tie_word_embeddings\": true,\n"
               " \"hidden_act\": \"silu\", \"bos_token_id\": 1, \"eos_token_id\": 2}\n");
    return fclose(f) ? -1 : 0;
}

/* tokenizer_config.json with the template's chat_template, bos_token and eos_token. */
static int write_tokenizer_config(const char *dir, const json_value *t) {
    static const char *const keys[] = { "chat_template", "bos_token", "eos_token" };
    char path[640];
    size_t k;
    FILE *f;
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    if (!(f = fopen(path, "wb"))) return -1;
    fputc('{', f);
    for (k = 0; k < 3; k++) {
        const json_value *v = json_get(t, keys[k]);
        fprintf(f, "%s\"%s\": ", k ? ", " : "", keys[k]);
        if (v && v->type == JSON_STRING) put_json_string(f, v->str, v->len);
        else fputs("null", f);
    }
    fputs("}\n", f);
    return fclose(f) ? -1 : 0;
}

static int run(const char *cmd) {
    int st = system(cmd);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* Converts one model per template; returns how many worked. */
static int build_models(const json_value *templates) {
    size_t i;
    int ok = 0;
    char cmd[2048], dir[512];
    for (i = 0; i < templates->len; i++) {
        const json_value *t = &templates->items[i];
        snprintf(dir, sizeof dir, DIR "/%s", t->key);
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        if (run(cmd) != 0 || write_checkpoint(dir) || write_tokenizer_config(dir, t)) { CHECK(0, "%s: cannot write", dir); continue; }
        snprintf(cmd, sizeof cmd, "build/convert '%s' '%s.llm' > '%s.convert.log' 2>&1", dir, dir, dir);
        if (run(cmd) != 0) { CHECK(0, "%s: build/convert failed (see %s.convert.log)", t->key, dir); continue; }
        ok++;
    }
    return ok;
}

/* Runs one case; returns 1 when it matches. */
static int check_case(const json_value *c, const json_value *messages) {
    const char *tname = json_get(c, "template")->str;
    const json_value *err = json_get(c, "error"), *text = json_get(c, "text"), *think = json_get(c, "enable_thinking");
    int agp = json_get(c, "add_generation_prompt")->type == JSON_TRUE, rc;
    char cmd[2048];
    size_t i, n_out, n_err;
    char *out, *errtext;
    FILE *f = fopen(DIR "/in.jsonl", "wb");
    if (!f) return 0;
    for (i = 0; i < messages->len; i++) {
        const json_value *r = json_get(&messages->items[i], "role"), *m = json_get(&messages->items[i], "content");
        fputs("{\"role\": ", f);
        put_json_string(f, r->str, r->len);
        fputs(", \"content\": ", f);
        put_json_string(f, m->str, m->len);
        fputs("}\n", f);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "build/chat -m '" DIR "/%s.llm' --print-prompt%s%s < " DIR "/in.jsonl > " DIR "/out.txt 2> " DIR "/err.txt",
             tname, agp ? "" : " --no-generation-prompt", think && think->type == JSON_FALSE ? " --no-thinking" : "");
    rc = run(cmd);
    out = read_all(DIR "/out.txt", &n_out);
    errtext = read_all(DIR "/err.txt", &n_err);
    if (!out || !errtext) { free(out); free(errtext); return 0; }
    if (err) {
        const char *want = json_get(c, "message")->str;
        rc = rc > 0 && n_out == 0 && strstr(errtext, want) != NULL;
        if (!rc) printf("FAIL %s / %s: expected exit != 0 and \"%s\" on stderr; got stdout %lu bytes, stderr: %s\n", tname,
                        json_get(c, "conversation")->str, want, (unsigned long)n_out, errtext);
    } else {
        int same = n_out == text->len && memcmp(out, text->str, n_out) == 0;
        if (rc != 0 || !same) printf("FAIL %s / %s (generation prompt %d): exit %d, %s; stderr: %s\n", tname,
                                     json_get(c, "conversation")->str, agp, rc, same ? "same text" : "different text", errtext);
        rc = rc == 0 && same;
    }
    free(out);
    free(errtext);
    return rc;
}

/* LLM_TEST_QUICK=1 (an emulated CPU, the sanitizers: a process start costs a tenth of a
   second there): every third case of each file, the same code on less data. */
static int quick_stride(void) {
    const char *q = getenv("LLM_TEST_QUICK");
    return q && !strcmp(q, "1") ? 3 : 1;
}

static void run_file(const char *path, const json_value *conversations) {
    size_t n, i;
    char *text = read_all(path, &n), *p, *end, err[256];
    int ok = 0, total = 0, line = 0, stride = quick_stride();
    if (!text) { CHECK(0, "cannot read %s", path); return; }
    for (p = text; p < text + n; p = end + 1) {
        json_value *c;
        const json_value *messages = NULL;
        if (!(end = strchr(p, '\n'))) end = text + n;
        if (end == p || line++ % stride != 0) continue;
        if (!(c = json_parse(p, (size_t)(end - p), err, sizeof err))) { CHECK(0, "%s: %s", path, err); continue; }
        if (conversations) {
            for (i = 0; i < conversations->len; i++)
                if (!strcmp(json_get(&conversations->items[i], "id")->str, json_get(c, "conversation")->str))
                    messages = json_get(&conversations->items[i], "messages");
        } else {
            messages = json_get(c, "messages");
        }
        total++;
        if (messages && check_case(c, messages)) ok++;
        json_free(c);
    }
    free(text);
    printf("%s: build/chat --print-prompt matches %d of %d\n", path, ok, total);
    CHECK(ok == total && total > 0, "%s: %d mismatches", path, total - ok);
}

/* conversations.jsonl as one JSON array: its lines joined with commas inside brackets. */
static json_value *read_conversations(const char *path) {
    size_t n, o = 0;
    char *text = read_all(path, &n), *buf, *p, *end, err[256];
    json_value *v;
    if (!text || !(buf = (char *)malloc(n + 3))) { free(text); return NULL; }
    buf[o++] = '[';
    for (p = text; p < text + n; p = end + 1) {
        if (!(end = strchr(p, '\n'))) end = text + n;
        if (end == p) continue;
        if (o > 1) buf[o++] = ',';
        memcpy(buf + o, p, (size_t)(end - p));
        o += (size_t)(end - p);
    }
    buf[o++] = ']';
    v = json_parse(buf, o, err, sizeof err);
    free(buf);
    free(text);
    return v;
}

int main(void) {
    const char *data = "../shared/testdata/chat";
    char err[256];
    json_value *templates, *conversations;
    if (!(templates = json_parse_file("../shared/testdata/chat/templates.json", err, sizeof err))) {
        FILE *f = fopen("../shared/testdata/chat/templates.json", "rb");
        if (!f) return skip_test("test_chat_prompt", "../shared/testdata/chat");
        fclose(f);
        printf("FAIL %s\n", err);
        return 1;
    }
    setenv("SOURCE_DATE_EPOCH", "1721952000", 1); /* 26 Jul 2024, the date of the renderings */
    if (run("mkdir -p " DIR) != 0) { printf("FAIL cannot create " DIR "\n"); return 1; }
    CHECK(build_models(templates) == (int)templates->len, "not every template converted");
    conversations = read_conversations("../shared/testdata/chat/conversations.jsonl");
    CHECK(conversations != NULL, "cannot read %s/conversations.jsonl", data);
    if (conversations) run_file("../shared/testdata/chat/expected.jsonl", conversations);
    run_file("tests/data/chat_cases.jsonl", NULL);
    json_free(conversations);
    json_free(templates);
    return check_summary("chat --print-prompt: all renderings match");
}
