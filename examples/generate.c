/* generate: one-shot generation from token ids.

   build/generate -m model.llm [-p TEXT | --ids "1 2 3" | --ids-file F] [-n N] [--temp T] [--seed S]
                  [-t threads] [-c n_ctx] [--print-ids] [--dump-logits F]

   With -p the text is tokenized by the model's tokenizer (BOS/EOS as it adds them, special
   tokens written in the text parsed) and, unless --print-ids, the prompt and the generated
   text are printed.

   With --temp 0 (the default) decoding is greedy; ties go to the lowest id. */
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#endif

static void usage(FILE *f) {
    fprintf(f,
            "usage: generate -m model.llm [options]\n"
            "  -m FILE          model file (.llm)\n"
            "  -p TEXT          prompt text, tokenized by the model's tokenizer\n"
            "  --ids \"1 2 3\"    prompt token ids (default: the model's BOS)\n"
            "  --ids-file F     read prompt token ids from a file\n"
            "  -n N             tokens to generate (default 64)\n"
            "  --temp T         temperature; 0 is greedy (default 0)\n"
            "  --seed S         random seed (default 1)\n"
            "  -t N             threads\n"
            "  -c N             context size\n"
            "  --print-ids      print prompt and generated ids on stdout\n"
            "  --dump-logits F  write float32 logits for every prompt position to F\n");
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

static int32_t argmax(const float *x, int n) {
    int32_t best = 0;
    int i;
    for (i = 1; i < n; i++) if (x[i] > x[best]) best = i;
    return best;
}

/* xorshift64*: a small RNG whose sequence is the same everywhere. */
static double next_uniform(uint64_t *s) {
    *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
    return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static int32_t sample_temp(const float *logits, int n, float temp, uint64_t *rng) {
    double mx = logits[argmax(logits, n)], sum = 0, r, acc = 0;
    int i;
    for (i = 0; i < n; i++) sum += exp((logits[i] - mx) / temp);
    r = next_uniform(rng) * sum;
    for (i = 0; i < n; i++) {
        acc += exp((logits[i] - mx) / temp);
        if (acc > r) return i;
    }
    return n - 1;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *ids_str = NULL, *ids_file = NULL, *dump = NULL, *prompt = NULL;
    int n_gen = 64, print_ids = 0, i;
    float temp = 0.0f;
    uint64_t seed = 1;
    llm_ctx_desc cd;
    llm_model_desc md;
    llm_model *model;
    llm_ctx *ctx;
    int32_t *ids = NULL;
    size_t n_ids = 0, cap = 0, n_prompt;
    const llm_model_info *info;
    llm_result r;
    clock_t t0, t1, t2;
    memset(&cd, 0, sizeof cd);
    memset(&md, 0, sizeof md);
    md.log = log_stderr;
#if defined(_WIN32)
    /* Bytes out as they are: UTF-8 text on the console, no \n -> \r\n in pipes and files. */
    SetConsoleOutputCP(65001);
    _setmode(_fileno(stdout), _O_BINARY);
#endif
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "--print-ids")) { print_ids = 1; continue; }
        if (!v) { fprintf(stderr, "generate: %s needs a value\n", a); return 2; }
        i++;
        if (!strcmp(a, "-m")) model_path = v;
        else if (!strcmp(a, "--ids")) ids_str = v;
        else if (!strcmp(a, "-p")) prompt = v;
        else if (!strcmp(a, "--ids-file")) ids_file = v;
        else if (!strcmp(a, "-n")) n_gen = atoi(v);
        else if (!strcmp(a, "--temp")) temp = (float)atof(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "-t")) cd.n_threads = atoi(v);
        else if (!strcmp(a, "-c")) cd.n_ctx = atoi(v);
        else if (!strcmp(a, "--dump-logits")) dump = v;
        else { fprintf(stderr, "generate: unknown option '%s'\n", a); usage(stderr); return 2; }
    }
    if (!model_path) { usage(stderr); return 2; }
    if (n_gen < 0 || cd.n_threads < 0 || cd.n_ctx < 0) { fprintf(stderr, "generate: negative value\n"); return 2; }
    if ((r = llm_model_open(&model, model_path, &md)) != LLM_OK) {
        fprintf(stderr, "generate: cannot open %s: %s\n", model_path, llm_result_string(r));
        return 1;
    }
    info = llm_model_info_get(model);
    if (prompt) { /* the count first, then the ids */
        llm_tokenize(model, prompt, strlen(prompt), LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL, NULL, 0, &cap);
        ids = (int32_t *)malloc((cap + 1) * sizeof *ids);
        if (!ids || (r = llm_tokenize(model, prompt, strlen(prompt), LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL, ids,
                                      cap + 1, &n_ids)) != LLM_OK) {
            fprintf(stderr, "generate: cannot tokenize the prompt: %s\n", ids ? llm_result_string(r) : "out of memory");
            return 1;
        }
        cap++;
    } else if (ids_file) {
        char *text = read_file(ids_file);
        if (!text) { fprintf(stderr, "generate: cannot read %s\n", ids_file); return 1; }
        if (parse_ids(text, &ids, &n_ids, &cap)) { fprintf(stderr, "generate: bad ids in %s\n", ids_file); return 1; }
        free(text);
    } else if (ids_str && parse_ids(ids_str, &ids, &n_ids, &cap)) {
        fprintf(stderr, "generate: bad --ids\n");
        return 1;
    }
    if (n_ids == 0) {
        if (info->bos_id < 0) { fprintf(stderr, "generate: the model has no BOS token; give --ids\n"); return 1; }
        if (parse_ids("0", &ids, &n_ids, &cap)) return 1;
        ids[0] = info->bos_id;
    }
    n_prompt = n_ids;
    if ((r = llm_ctx_open(&ctx, model, &cd)) != LLM_OK) { fprintf(stderr, "generate: cannot create context: %s\n", llm_result_string(r)); return 1; }
    t0 = clock();
    if (dump) {
        FILE *f = fopen(dump, "wb");
        size_t p;
        if (!f) { fprintf(stderr, "generate: cannot create %s\n", dump); return 1; }
        for (p = 0; p < n_prompt; p++) {
            if ((r = llm_eval(ctx, &ids[p], 1)) != LLM_OK) { fprintf(stderr, "generate: %s\n", llm_ctx_error(ctx)); return 1; }
            if (fwrite(llm_logits(ctx), sizeof(float), (size_t)info->n_vocab, f) != (size_t)info->n_vocab) {
                fprintf(stderr, "generate: write to %s failed\n", dump);
                return 1;
            }
        }
        if (fclose(f) != 0) { fprintf(stderr, "generate: write to %s failed\n", dump); return 1; }
    } else if ((r = llm_eval(ctx, ids, n_prompt)) != LLM_OK) {
        fprintf(stderr, "generate: %s\n", llm_ctx_error(ctx));
        return 1;
    }
    t1 = clock();
    for (i = 0; i < n_gen; i++) {
        const float *logits = llm_logits(ctx);
        int32_t next = temp <= 0.0f ? argmax(logits, info->n_vocab) : sample_temp(logits, info->n_vocab, temp, &seed);
        if (n_ids == cap) { cap *= 2; ids = (int32_t *)realloc(ids, cap * sizeof *ids); if (!ids) return 1; }
        ids[n_ids++] = next;
        if (i + 1 == n_gen) break;
        if ((r = llm_eval(ctx, &next, 1)) != LLM_OK) {
            fprintf(stderr, "generate: stopped after %d tokens: %s\n", i + 1, llm_ctx_error(ctx));
            break;
        }
    }
    t2 = clock();
    if (print_ids) {
        size_t k;
        for (k = 0; k < n_ids; k++) printf(k ? " %d" : "%d", ids[k]);
        printf("\n");
    } else if (prompt) { /* the whole sequence through the streaming detokenizer */
        llm_decoder dec;
        char piece[4096];
        size_t k, got;
        llm_decoder_init(&dec, model);
        dec.flags = LLM_DETOKENIZE_SKIP_SPECIAL;
        for (k = 0; k < n_ids; k++)
            if (llm_decoder_push(&dec, ids[k], piece, sizeof piece, &got) == LLM_OK) fwrite(piece, 1, got, stdout);
        if (llm_decoder_flush(&dec, piece, sizeof piece, &got) == LLM_OK) fwrite(piece, 1, got, stdout);
        printf("\n");
    }
    fprintf(stderr, "generate: prompt %lu tokens (%.1f tok/s), generated %d tokens (%.1f tok/s), KV cache %.1f MB\n",
            (unsigned long)n_prompt, n_prompt / ((double)(t1 - t0) / CLOCKS_PER_SEC + 1e-9), (int)(n_ids - n_prompt),
            (n_ids - n_prompt) / ((double)(t2 - t1) / CLOCKS_PER_SEC + 1e-9), (double)llm_ctx_kv_bytes(ctx) / 1e6);
    llm_ctx_close(ctx);
    llm_model_close(model);
    free(ids);
    return 0;
}
