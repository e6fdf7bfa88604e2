/* generate: one-shot generation from text or token ids.

   build/generate -m model.llm [-p TEXT | --ids "1 2 3" | --ids-file F] [-n N] [sampling flags]
                  [-t threads] [-c n_ctx] [--kv-type f16|f32] [--print-ids] [--dump-logits F]

   With -p the text is tokenized by the model's tokenizer (BOS/EOS as it adds them, special
   tokens written in the text parsed) and, unless --print-ids, the prompt (unless
   --no-display-prompt) and the generated text are printed to stdout as they come; nothing
   else goes to stdout. With --temp 0 (the default) decoding is greedy; ties go to
   the lowest id. It always generates N tokens (end-of-sequence tokens do not stop it).
   Timings go to stderr. */
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "sampling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#endif

static void usage(FILE *f) {
    fprintf(f,
            "usage: generate -m model.llm [options]\n"
            "  -m FILE                model file (.llm)\n"
            "  -p TEXT                prompt text, tokenized by the model's tokenizer\n"
            "  --ids \"1 2 3\"          prompt token ids (default: the model's BOS)\n"
            "  --ids-file F           read prompt token ids from a file\n"
            "  -n N                   tokens to generate (default 64)\n"
            SAMPLING_USAGE
            "  -t N                   threads\n"
            "  -c N                   context size\n"
            "  --no-display-prompt    with -p: print only the generated text\n"
            "  --kv-type T            KV cache type: f16 (default) or f32\n"
            "  --print-ids            print prompt and generated ids on stdout\n"
            "  --dump-logits F        write float32 logits for every prompt position to F\n");
}

static void log_stderr(void *user, const char *msg) { (void)user; fprintf(stderr, "generate: %s\n", msg); }

static int parse_ids(const char *s, int32_t **ids, size_t *n, size_t *cap) {
    char *end;
    for (;;) {
        long v;
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',') s++;
        if (!*s) return 0;
        v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 0x7fffffffL) return -1;
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *ids = (int32_t *)realloc(*ids, *cap * sizeof **ids);
            if (!*ids) return -1;
        }
        (*ids)[(*n)++] = (int32_t)v;
        s = end;
    }
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    if (!f) return NULL;
    do {
        if (cap - n < 4096) { cap = cap * 2 + 4096; buf = (char *)realloc(buf, cap + 1); if (!buf) { fclose(f); return NULL; } }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = 0;
    return buf;
}

typedef struct collected {
    int32_t *ids;
    size_t n, cap;
    int print_text;
} collected;

static int collect(void *user, const char *piece, size_t len, int32_t id) {
    collected *c = (collected *)user;
    if (c->print_text && piece) { fwrite(piece, 1, len, stdout); fflush(stdout); }
    if (id < 0) return 0; /* the end of an unfinished character */
    if (c->n == c->cap) {
        int32_t *p = (int32_t *)realloc(c->ids, (c->cap *= 2) * sizeof *p);
        if (!p) return 1;
        c->ids = p;
    }
    c->ids[c->n++] = id;
    return 0;
}

/* The prompt's ids as the tokenizer gives them: BOS/EOS as it adds them, special tokens parsed. */
static int tokenize_prompt(const llm_model *m, const char *text, collected *out) {
    const int flags = LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL;
    size_t n = 0;
    llm_result r = llm_tokenize(m, text, strlen(text), flags, NULL, 0, &n);
    if (r == LLM_ERR_BUFFER_TOO_SMALL || r == LLM_OK) {
        out->cap = n + 64;
        r = (out->ids = (int32_t *)malloc(out->cap * sizeof *out->ids)) != NULL
                ? llm_tokenize(m, text, strlen(text), flags, out->ids, out->cap, &out->n) : LLM_ERR_OUT_OF_MEMORY;
    }
    if (r != LLM_OK) fprintf(stderr, "generate: cannot tokenize the prompt: %s\n", llm_result_string(r));
    return r != LLM_OK;
}

/* The prompt's text; the generated pieces follow it (special tokens are not shown). */
static int print_prompt_text(const llm_model *m, const int32_t *ids, size_t n) {
    size_t len = 0;
    char *text;
    llm_detokenize(m, ids, n, LLM_DETOKENIZE_SKIP_SPECIAL, NULL, 0, &len);
    if (!(text = (char *)malloc(len + 1)) || llm_detokenize(m, ids, n, LLM_DETOKENIZE_SKIP_SPECIAL, text, len + 1, &len) != LLM_OK) {
        fprintf(stderr, "generate: cannot decode the prompt\n");
        free(text);
        return 1;
    }
    fwrite(text, 1, len, stdout);
    free(text);
    return 0;
}

static int dump_logits(llm_ctx *ctx, const int32_t *ids, size_t n, int32_t n_vocab, const char *path) {
    FILE *f = fopen(path, "wb");
    size_t p;
    if (!f) { fprintf(stderr, "generate: cannot create %s\n", path); return 1; }
    for (p = 0; p < n; p++) {
        if (llm_eval(ctx, &ids[p], 1) != LLM_OK) { fprintf(stderr, "generate: %s\n", llm_ctx_error(ctx)); fclose(f); return 1; }
        if (fwrite(llm_logits(ctx), sizeof(float), (size_t)n_vocab, f) != (size_t)n_vocab) break;
    }
    if (fclose(f) != 0 || p < n) { fprintf(stderr, "generate: write to %s failed\n", path); return 1; }
    return 0;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *ids_str = NULL, *ids_file = NULL, *dump = NULL, *prompt = NULL;
    int n_gen = 64, print_ids = 0, hide_prompt = 0, i;
    llm_sampler sampler;
    llm_generate_desc gd;
    llm_generate_stats st;
    llm_ctx_desc cd;
    llm_model_desc md;
    llm_model *model;
    llm_ctx *ctx;
    collected out;
    size_t n_prompt;
    const llm_model_info *info;
    llm_result r;
    memset(&sampler, 0, sizeof sampler);
    memset(&out, 0, sizeof out);
    memset(&cd, 0, sizeof cd);
    memset(&md, 0, sizeof md);
    sampler.seed = 1;
    md.log = log_stderr;
#if defined(_WIN32)
    /* Bytes out as they are: UTF-8 text on the console, no \n -> \r\n in pipes and files. */
    SetConsoleOutputCP(65001);
    _setmode(_fileno(stdout), _O_BINARY);
#endif
    for (i = 1; i < argc; i++) {
        const char *a = flag_name(argv[i]), *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k;
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--print-ids")) { print_ids = 1; continue; }
        if (!strcmp(a, "--no-display-prompt")) { hide_prompt = 1; continue; }
        if (!v) { fprintf(stderr, "generate: %s needs a value\n", a); return 2; }
        i++;
        if ((k = sampling_flag(a, v, &sampler)) != 0) {
            if (k < 0) { fprintf(stderr, "generate: bad value '%s' for %s\n", v, a); return 2; }
        } else if (!strcmp(a, "-m")) model_path = v;
        else if (!strcmp(a, "--ids")) ids_str = v;
        else if (!strcmp(a, "-p")) prompt = v;
        else if (!strcmp(a, "--ids-file")) ids_file = v;
        else if (!strcmp(a, "-n")) n_gen = atoi(v);
        else if (!strcmp(a, "-t")) cd.n_threads = atoi(v);
        else if (!strcmp(a, "-c")) cd.n_ctx = atoi(v);
        else if (!strcmp(a, "--dump-logits")) dump = v;
        else if (!strcmp(a, "--kv-type") && (!strcmp(v, "f16") || !strcmp(v, "f32"))) cd.kv_type = !strcmp(v, "f16") ? LLM_KV_F16 : LLM_KV_F32;
        else { fprintf(stderr, "generate: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    sampling_done(&sampler);
    if (!model_path) { usage(stderr); return 2; }
    if (n_gen < 0 || cd.n_threads < 0 || cd.n_ctx < 0) { fprintf(stderr, "generate: negative value\n"); return 2; }
    if ((r = llm_model_open(&model, model_path, &md)) != LLM_OK) {
        fprintf(stderr, "generate: cannot open %s: %s\n", model_path, llm_result_string(r));
        return 1;
    }
    info = llm_model_info_get(model);
    if (prompt) {
        if (tokenize_prompt(model, prompt, &out)) return 1;
    } else if (ids_file) {
        char *text = read_file(ids_file);
        if (!text) { fprintf(stderr, "generate: cannot read %s\n", ids_file); return 1; }
        if (parse_ids(text, &out.ids, &out.n, &out.cap)) { fprintf(stderr, "generate: bad ids in %s\n", ids_file); return 1; }
        free(text);
    } else if (ids_str && parse_ids(ids_str, &out.ids, &out.n, &out.cap)) {
        fprintf(stderr, "generate: bad --ids\n");
        return 1;
    }
    if (out.n == 0) {
        if (info->bos_id < 0) { fprintf(stderr, "generate: the model has no BOS token; give --ids\n"); return 1; }
        if (parse_ids("0", &out.ids, &out.n, &out.cap)) return 1;
        out.ids[0] = info->bos_id;
    }
    n_prompt = out.n;
    if ((r = llm_ctx_open(&ctx, model, &cd)) != LLM_OK) { fprintf(stderr, "generate: cannot create context: %s\n", llm_result_string(r)); return 1; }
    if (dump && dump_logits(ctx, out.ids, n_prompt, info->n_vocab, dump)) return 1;
    memset(&gd, 0, sizeof gd);
    gd.sampler = &sampler;
    gd.max_tokens = n_gen ? n_gen : -1;
    gd.ignore_eos = 1;
    gd.on_token = collect;
    gd.user = &out;
    out.print_text = prompt && !print_ids;
    if (out.print_text && !hide_prompt && print_prompt_text(model, out.ids, n_prompt)) return 1;
    if ((r = llm_generate_tokens(ctx, out.ids, n_prompt, &gd, &st)) != LLM_OK) {
        fprintf(stderr, "generate: %s\n", llm_ctx_error(ctx));
        return 1;
    }
    if (st.stop == LLM_STOP_CONTEXT_FULL && st.n_generated < n_gen)
        fprintf(stderr, "generate: stopped after %d tokens: the context (%d) is full\n", st.n_generated, llm_ctx_size(ctx));
    if (print_ids) {
        size_t k;
        for (k = 0; k < out.n; k++) printf(k ? " %d" : "%d", out.ids[k]);
    }
    if (print_ids || out.print_text) printf("\n");
    fflush(stdout); /* the text before the timings on stderr */
    fprintf(stderr, "generate: prompt %d tokens (%d evaluated, %.1f tok/s), generated %d tokens (%.1f tok/s), KV cache %llu bytes\n",
            st.n_prompt, st.n_evaluated, st.prompt_tokens_per_s, st.n_generated, st.gen_tokens_per_s,
            (unsigned long long)llm_ctx_kv_bytes(ctx));
    llm_ctx_close(ctx);
    llm_model_close(model);
    free(out.ids);
    return 0;
}
