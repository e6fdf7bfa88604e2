/* test_convert_inputs: HuggingFace directories the converter must refuse, each with a
   message naming the file and what is wrong, and no output or temporary file left behind:
   JSON the reader would misread (a key twice, U+0000 in a string or key, an integer out
   of range, a non-object config, a directory in place of a file, a missing file),
   safetensors tensors that share bytes or a name, tokenizer ids past config.json's
   vocab_size. A tokenizer with fewer ids than vocab_size converts, and a tokenizer.json
   with 40k added tokens converts in well under 5 s (the added-token check once compared
   every pair); tokenizers with a vocabulary token U+0000 or one outside the byte-level
   alphabet before its byte-level spelling convert and tokenize as HF does. Runs
   $BUILD/convert (BUILD: build) on directories in $BUILD/tests. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#if !defined(_WIN32)
#include <sys/wait.h>
#endif

static const char *ci_build_dir = "build";
static char root[256];

static void ci_write_text(const char *dir, const char *name, const char *text) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "wb")) || fputs(text, f) < 0 || fclose(f) != 0) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
}

/* A safetensors tensor of F32 values; start < 0 places it after the previous one. */
typedef struct st { const char *name; int64_t d0, d1; long start; } st;

static void ci_write_safetensors(const char *dir, const char *name, const st *t, int n) {
    char path[512], hdr[8192];
    size_t len = 0, total = 0, end, i;
    unsigned char lenb[8];
    float *data;
    FILE *f;
    len += (size_t)snprintf(hdr + len, sizeof hdr - len, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (i = 0; i < (size_t)n; i++) {
        size_t size = (size_t)(t[i].d0 * (t[i].d1 ? t[i].d1 : 1)) * 4, start = t[i].start >= 0 ? (size_t)t[i].start : total;
        end = start + size;
        len += (size_t)snprintf(hdr + len, sizeof hdr - len, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[%lld", t[i].name, (long long)t[i].d0);
        if (t[i].d1) len += (size_t)snprintf(hdr + len, sizeof hdr - len, ",%lld", (long long)t[i].d1);
        len += (size_t)snprintf(hdr + len, sizeof hdr - len, "],\"data_offsets\":[%lu,%lu]}", (unsigned long)start, (unsigned long)end);
        if (end > total) total = end;
    }
    len += (size_t)snprintf(hdr + len, sizeof hdr - len, "}");
    for (i = 0; i < 8; i++) lenb[i] = (unsigned char)((uint64_t)len >> (8 * i));
    data = (float *)calloc(total / 4 + 1, sizeof(float));
    for (i = 0; i < total / 4; i++) data[i] = 0.01f * (float)(i % 13) - 0.05f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!data || !f || fwrite(lenb, 1, 8, f) != 8 || fwrite(hdr, 1, len, f) != len || fwrite(data, 1, total, f) != total || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    free(data);
}

/* A one-layer llama with a 16-token vocabulary. */
#define CFG "{\"model_type\": \"llama\", \"vocab_size\": 16, " CFG_TAIL
#define CFG_TAIL "\"hidden_size\": 8, \"intermediate_size\": 12, " \
            "\"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"num_key_value_heads\": 1, \"rope_theta\": 10000.0, " \
            "\"max_position_embeddings\": 64, \"bos_token_id\": 1, \"eos_token_id\": 2"
static const st tensors[] = {
    { "model.embed_tokens.weight", 16, 8, -1 }, { "model.layers.0.input_layernorm.weight", 8, 0, -1 },
    { "model.layers.0.self_attn.q_proj.weight", 8, 8, -1 }, { "model.layers.0.self_attn.k_proj.weight", 4, 8, -1 },
    { "model.layers.0.self_attn.v_proj.weight", 4, 8, -1 }, { "model.layers.0.self_attn.o_proj.weight", 8, 8, -1 },
    { "model.layers.0.post_attention_layernorm.weight", 8, 0, -1 }, { "model.layers.0.mlp.gate_proj.weight", 12, 8, -1 },
    { "model.layers.0.mlp.up_proj.weight", 12, 8, -1 }, { "model.layers.0.mlp.down_proj.weight", 8, 12, -1 },
    { "model.norm.weight", 8, 0, -1 }, { "lm_head.weight", 16, 8, -1 },
};
#define N_TENSORS ((int)(sizeof tensors / sizeof tensors[0]))

/* A byte-level BPE tokenizer: vocab "a" "b" "ab" (ids 0-2), then `added`. */
static char *tokenizer_json(const char *vocab_extra, const char *added) {
    static const char fmt[] =
        "{\"added_tokens\": [%s], \"decoder\": {\"type\": \"ByteLevel\"}, "
        "\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false}, "
        "\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2%s}, \"merges\": [\"a b\"]}}\n";
    size_t n = strlen(fmt) + strlen(vocab_extra) + strlen(added) + 1;
    char *s = (char *)malloc(n);
    if (!s) exit(2);
    snprintf(s, n, fmt, added, vocab_extra);
    return s;
}

enum { DIR_CONFIG = 1, NO_CONFIG = 2, SHARDS = 4, OVERLAP = 8, DUP_NAME = 16, DUP_SHARD = 32 };

typedef struct tcase {
    const char *name;
    const char *config;             /* config.json (NULL: CFG "}"); with DIR_CONFIG a directory */
    const char *vocab_extra, *added; /* tokenizer.json additions */
    int flags;
    const char *msg1, *msg2;        /* substrings of the last stderr line; NULL: must succeed */
} tcase;

static const tcase cases[] = {
    { "tokenizer with fewer ids than vocab_size", NULL, "", "", 0, NULL, NULL },
    { "a key twice in config.json", CFG ", \"rope_theta\": 500000}", "", "", 0, "config.json: bad JSON: duplicate key \"rope_theta\"", NULL },
    { "U+0000 in model_type", "{\"model_type\": \"llama\\u0000evil\", \"vocab_size\": 16, " CFG_TAIL "}", "", "", 0, "config.json: bad JSON: U+0000", "\"llama\"" },
    { "U+0000 in a key", "{\"x\\u0000\": 1, \"model_type\": \"llama\", \"vocab_size\": 16, " CFG_TAIL "}", "", "", 0, "config.json: bad JSON: U+0000 (\\u0000) in a key", NULL },
    { "vocab_size past int32", "{\"model_type\": \"llama\", \"vocab_size\": 30000000000, " CFG_TAIL "}", "", "", 0, "config.json: 'vocab_size' is out of range", "30000000000" },
    { "config.json an array", "[1, 2]", "", "", 0, "config.json: not a JSON object", NULL },
    { "config.json a directory", NULL, "", "", DIR_CONFIG, "config.json", "Is a directory" },
    { "config.json missing", NULL, "", "", NO_CONFIG, "cannot open ", "config.json: No such file or directory" },
    { "two tensors sharing bytes", NULL, "", "", OVERLAP, "model.safetensors: tensors 'model.layers.0.self_attn.k_proj.weight' and "
      "'model.layers.0.self_attn.v_proj.weight' overlap", NULL },
    { "a tensor name twice in one file", NULL, "", "", DUP_NAME, "model.safetensors: bad safetensors header JSON: duplicate key", "\"model.norm.weight\"" },
    { "a tensor name in two shards", NULL, "", "", SHARDS | DUP_SHARD, "tensor 'model.norm.weight' is in both", "model-00002-of-00002.safetensors" },
    { "an added token past vocab_size", NULL, ", \"c\": 3, \"d\": 4, \"e\": 5, \"f\": 6, \"g\": 7, \"h\": 8, \"i\": 9, "
      "\"j\": 10, \"k\": 11, \"l\": 12, \"m\": 13, \"n\": 14, \"o\": 15", "{\"id\": 16, \"content\": \"<extra>\", \"special\": true}", 0,
      "tokenizer.json: token \"<extra>\" has id 16", "vocab_size is 16" },
    { "a vocabulary entry past vocab_size", NULL, ", \"z\": 20", "", 0, "tokenizer.json: token \"z\" has id 20", "vocab_size is 16" },
};

static void make_dir(const char *dir, const tcase *c) {
    char cmd[700];
    st t[N_TENSORS + 1];
    char *tok;
    int n = N_TENSORS, half = N_TENSORS / 2;
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    if (system(cmd) != 0) exit(2);
    if (c->flags & DIR_CONFIG) {
        snprintf(cmd, sizeof cmd, "mkdir %s/config.json", dir);
        if (system(cmd) != 0) exit(2);
    } else if (!(c->flags & NO_CONFIG)) {
        ci_write_text(dir, "config.json", c->config ? c->config : CFG "}");
    }
    tok = tokenizer_json(c->vocab_extra, c->added);
    ci_write_text(dir, "tokenizer.json", tok);
    free(tok);
    memcpy(t, tensors, sizeof tensors);
    if (c->flags & OVERLAP) t[4].start = 16 * 8 * 4 + 8 * 4 + 8 * 8 * 4; /* v_proj on k_proj's bytes */
    if (c->flags & DUP_NAME) { t[n] = t[n - 2]; n++; }
    if (!(c->flags & SHARDS)) { ci_write_safetensors(dir, "model.safetensors", t, n); return; }
    ci_write_safetensors(dir, "model-00002-of-00002.safetensors", t + half, n - half);
    if (c->flags & DUP_SHARD) t[half] = tensors[N_TENSORS - 2]; /* model.norm.weight in both shards */
    ci_write_safetensors(dir, "model-00001-of-00002.safetensors", t, half + ((c->flags & DUP_SHARD) ? 1 : 0));
    ci_write_text(dir, "model.safetensors.index.json",
               "{\"weight_map\": {\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\", "
               "\"lm_head.weight\": \"model-00002-of-00002.safetensors\"}}");
}

/* The last line of a file, without its newline. */
static void last_line(const char *path, char *out, size_t size) {
    static char text[65536];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    char *p;
    if (f) fclose(f);
    text[n] = 0;
    while (n && text[n - 1] == '\n') text[--n] = 0;
    p = strrchr(text, '\n');
    snprintf(out, size, "%s", p ? p + 1 : text);
}

/* Runs convert; returns its exit status (128 + n: killed), the last stderr line in msg. */
static int run_convert(const char *args, const char *log, char *msg, size_t msg_size) {
    char cmd[1200];
    int status;
    snprintf(cmd, sizeof cmd, "%s/convert %s >/dev/null 2>%s", ci_build_dir, args, log);
    status = system(cmd);
    last_line(log, msg, msg_size);
#if defined(_WIN32)
    return status;
#else
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
#endif
}

/* Anything named out* in dir: the output or a temporary. */
static int output_left(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q '^out'", dir);
    return system(cmd) == 0;
}

static void test_cases(void) {
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tcase *c = &cases[i];
        char dir[300], args[700], log[320], msg[2048];
        int rc;
        snprintf(dir, sizeof dir, "%s/case-%lu", root, (unsigned long)i);
        snprintf(args, sizeof args, "%s %s/out.llm", dir, dir);
        snprintf(log, sizeof log, "%s/stderr.txt", dir);
        make_dir(dir, c);
        rc = run_convert(args, log, msg, sizeof msg);
        if (!c->msg1) {
            char out[320];
            llm_model *m = NULL;
            int opened;
            snprintf(out, sizeof out, "%s/out.llm", dir);
            opened = llm_model_open(&m, out, NULL) == LLM_OK;
            llm_model_close(m);
            check(rc == 0 && opened, "%-40s exit %d, the output opens (%s)", c->name, rc, rc ? msg : "");
        } else {
            int left = output_left(dir);
            check(rc == 1 && strncmp(msg, "convert: ", 9) == 0 && strstr(msg, c->msg1) && (!c->msg2 || strstr(msg, c->msg2)) && !left,
                  "%-40s exit %d: %s%s", c->name, rc, msg, left ? " (an output file was left behind)" : "");
        }
    }
}

/* 40k added tokens: the ids HF gives them, in well under 5 s (it took 10-20 s). */
static void test_many_added(void) {
    char dir[300], args[700], log[320], msg[2048], *added, *tok;
    size_t n = 40000, cap = n * 64, len = 0, i;
    double t0, dt;
    llm_model *m = NULL;
    int rc, ok;
    snprintf(dir, sizeof dir, "%s/many-added", root);
    snprintf(args, sizeof args, "--vocab-only %s %s/out.llm", dir, dir);
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    snprintf(msg, sizeof msg, "rm -rf %s && mkdir -p %s", dir, dir);
    if (system(msg) != 0 || !(added = (char *)malloc(cap))) exit(2);
    for (i = 0; i < n; i++)
        len += (size_t)snprintf(added + len, cap - len, "%s{\"id\": %lu, \"content\": \"<extra_%lu>\", \"special\": true}", i ? ", " : "",
                                (unsigned long)(i + 3), (unsigned long)i);
    tok = tokenizer_json("", added);
    ci_write_text(dir, "tokenizer.json", tok);
    free(tok);
    free(added);
    t0 = llm__seconds();
    rc = run_convert(args, log, msg, sizeof msg);
    dt = llm__seconds() - t0;
    snprintf(msg, sizeof msg, "%s/out.llm", dir);
    {
        llm_model_desc d;
        memset(&d, 0, sizeof d);
        d.vocab_only = 1;
        ok = rc == 0 && llm_model_open(&m, msg, &d) == LLM_OK && llm_model_info_get(m)->n_vocab == (int32_t)n + 3;
    }
    llm_model_close(m);
    check(ok && dt < 5.0, "40000 added tokens: exit %d, %.2f s (under 5 s), %lu tokens", rc, dt, (unsigned long)n + 3);
}

/* Converts a tokenizer.json (text) alone into DIR/out.llm under root and opens it; NULL
   (after a failed check) if either fails. */
static llm_model *convert_tokenizer(const char *name, const char *json) {
    char dir[300], args[700], log[320], msg[2048];
    llm_model *m = NULL;
    llm_model_desc d;
    int rc;
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    snprintf(args, sizeof args, "--vocab-only %s %s/out.llm", dir, dir);
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    snprintf(msg, sizeof msg, "rm -rf %s && mkdir -p %s", dir, dir);
    if (system(msg) != 0) exit(2);
    ci_write_text(dir, "tokenizer.json", json);
    rc = run_convert(args, log, msg, sizeof msg);
    memset(&d, 0, sizeof d);
    d.vocab_only = 1;
    snprintf(args, sizeof args, "%s/out.llm", dir);
    if (rc == 0 && llm_model_open(&m, args, &d) == LLM_OK) return m;
    check(0, "%s: the tokenizer converts and opens (exit %d: %s)", name, rc, rc ? msg : "");
    return NULL;
}

/* A tokenizer.json alone that must convert and then give HF's ids for text and text for
   the ids dec. */
typedef struct tok_case {
    const char *name, *why, *json, *text;
    size_t text_len;
    int32_t ids[4], dec[4];
    size_t n_ids, n_dec;
    const char *dec_text;
    size_t dec_len;
} tok_case;

static const tok_case tok_cases[] = {
    /* U+0000 as a vocabulary token (InternLM2 has one): the key is kept with its length */
    { "nul-token", "a vocabulary token U+0000",
      "{\"added_tokens\": [], \"pre_tokenizer\": null, \"decoder\": {\"type\": \"Sequence\", \"decoders\": [{\"type\": \"Replace\", "
      "\"pattern\": {\"String\": \"\\u2581\"}, \"content\": \" \"}, {\"type\": \"ByteFallback\"}, {\"type\": \"Fuse\"}]}, \"model\": {\"type\": \"BPE\", "
      "\"vocab\": {\"a\": 0, \"\\u0000\": 1, \"b\": 2, \"a\\u0000\": 3}, \"merges\": []}}\n",
      "a\0b", 3, { 0, 1, 2 }, { 0, 1, 2 }, 3, 3, "a\0b", 3 },
    /* A byte-level entry with a character outside the byte-level alphabet (a raw tab here;
       Command R has emoji beside their byte-level spellings): BPE never produces it, so the
       entry spelled in the alphabet ("\u0109"), with the same byte and a higher id, is the
       one found, and the raw one decodes to its text. */
    { "unmapped-token", "a vocabulary entry outside the byte-level alphabet",
      "{\"added_tokens\": [], \"decoder\": {\"type\": \"ByteLevel\"}, "
      "\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false}, \"model\": {\"type\": \"BPE\", "
      "\"vocab\": {\"a\": 0, \"\\t\": 1, \"\\u0109\": 2}, \"merges\": []}}\n",
      "a\t", 2, { 0, 2 }, { 1 }, 2, 1, "\t", 1 },
};

static void test_tok_cases(void) {
    size_t i;
    for (i = 0; i < sizeof tok_cases / sizeof tok_cases[0]; i++) {
        const tok_case *c = &tok_cases[i];
        int32_t ids[16];
        char out[16];
        size_t n = 0, n_out = 0;
        int ok;
        llm_model *m = convert_tokenizer(c->name, c->json);
        if (!m) continue;
        ok = llm_tokenize(m, c->text, c->text_len, 0, ids, 16, &n) == LLM_OK && n == c->n_ids && !memcmp(ids, c->ids, n * sizeof *ids);
        check(ok, "%s: the text gives HF's %lu ids (%lu)", c->why, (unsigned long)c->n_ids, (unsigned long)n);
        ok = llm_detokenize(m, c->dec, c->n_dec, 0, out, sizeof out, &n_out) == LLM_OK && n_out == c->dec_len && !memcmp(out, c->dec_text, n_out);
        check(ok, "%s: and decodes to HF's %lu bytes (%lu)", c->why, (unsigned long)c->dec_len, (unsigned long)n_out);
        llm_model_close(m);
    }
}

int main(void) {
#if defined(_WIN32)
    printf("SKIP: the converter cases need a POSIX shell\n");
    return 0;
#endif
    if (getenv("BUILD")) ci_build_dir = getenv("BUILD");
    snprintf(root, sizeof root, "%s/tests/convert_inputs", ci_build_dir);
    test_cases();
    test_many_added();
    test_tok_cases();
    return check_summary("converter inputs: all checks passed");
}
