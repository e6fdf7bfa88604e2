/* generate: one-shot generation from text or token ids.

   build/generate -m model.llm [-p TEXT | -f FILE | --ids "1 2 3" | --ids-file F] [-n N]
                  [sampling flags] [-t threads] [-c n_ctx] [-b n_batch] [--kv-type f16|f32]
                  [--print-ids] [--dump-logits F] [--kernels NAME] [--bf16-dot] [--no-mmap] [-v]

   With -p (or -f) the text is tokenized by the model's tokenizer (BOS/EOS as it adds them,
   special tokens written in the text parsed). Unless --print-ids, the prompt (unless
   --no-display-prompt) and the generated text are printed to stdout as they come, decoded by
   the model's tokenizer (prompt ids too), and end with a newline; nothing else goes to stdout.
   With --temp 0 (the default) decoding is greedy; ties go to the lowest id. It always
   generates N tokens (end-of-sequence tokens do not stop it). Timings go to stderr. */
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
            "  -m, --model FILE       model file (.llm)\n"
            "  -p, --prompt TEXT      prompt text, tokenized by the model's tokenizer\n"
            "  -f, --file FILE        read the prompt text from a file\n"
            "  --ids \"1 2 3\"          prompt token ids (default: the model's BOS)\n"
            "  --ids-file F           read prompt token ids from a file\n"
            "  -n, --n-predict N      tokens to generate (default 64; 0: until the context is full)\n"
            SAMPLING_USAGE
            "  -t, --threads N        threads (default: all CPUs)\n"
            "  -c, --ctx-size N       context size (default: the model's, at most 4096)\n"
            "  -b, --batch-size N     prompt tokens per evaluation call (default 64)\n"
            "  --no-display-prompt    print only the generated text\n"
            "  --kv-type T            KV cache type: f16 (default) or f32\n"
            "  --bf16-dot             prompts of bf16 weights with activations rounded to bf16: faster where\n"
            "                         the CPU has bf16 dot products (AVX512-BF16), not exact f32\n"
            "  --no-mmap              read the weights into memory instead of mapping the file\n"
            "  --print-ids            print prompt and generated ids on stdout instead of text\n"
            "  --dump-logits F        write float32 logits for every prompt position to F\n"
            "  --kernels NAME         kernel set (tests): auto (default), scalar, avx2, avx2-vnni, avx512, avx512-amx, neon, neon-dotprod\n"
            "  -v                     say which kernels and threads run, on stderr\n"
            "  -h, --help             this text\n");
}

/* Ids separated by spaces, tabs, newlines or commas; -1 after saying which one is bad. */
static int parse_ids(const char *s, const char *where, int32_t **ids, size_t *n, size_t *cap) {
    char *end;
    for (;;) {
        long v;
        int32_t *grown;
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',') s++;
        if (!*s) return 0;
        v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 0x7fffffffL || (*end && !strchr(" \t\n\r,", *end))) {
            fprintf(stderr, "generate: %s: '%.*s' is not a token id\n", where, (int)strcspn(s, " \t\n\r,"), s);
            return -1;
        }
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            if (!(grown = (int32_t *)realloc(*ids, *cap * sizeof **ids))) { fprintf(stderr, "generate: out of memory\n"); return -1; }
            *ids = grown;
        }
        (*ids)[(*n)++] = (int32_t)v;
        s = end;
    }
}
typedef struct collected {
    int32_t *ids;
    size_t n, cap;
    int print_text;
    int printed; /* text went to stdout: it ends with a newline before anything else is said */
} collected;

static int collect(void *user, const char *piece, size_t len, int32_t id) {
    collected *c = (collected *)user;
    if (c->print_text && piece && len) { fwrite(piece, 1, len, stdout); fflush(stdout); c->printed = 1; }
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
static int tokenize_prompt(const llm_model *m, const char *text, size_t len, collected *out) {
    const int flags = LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL;
    size_t n = 0;
    llm_result r = llm_tokenize(m, text, len, flags, NULL, 0, &n);
    if (r == LLM_ERR_BUFFER_TOO_SMALL || r == LLM_OK) {
        out->cap = n + 64;
        r = (out->ids = (int32_t *)malloc(out->cap * sizeof *out->ids)) != NULL
                ? llm_tokenize(m, text, len, flags, out->ids, out->cap, &out->n) : LLM_ERR_OUT_OF_MEMORY;
    }
    if (r != LLM_OK) fprintf(stderr, "generate: cannot tokenize the prompt: %s\n", llm_result_string(r));
    return r != LLM_OK;
}

/* The prompt's text; the generated pieces follow it (special tokens are not shown). */
static int print_prompt_text(const llm_model *m, const int32_t *ids, size_t n, collected *out) {
    size_t len = 0;
    char *text;
    llm_detokenize(m, ids, n, LLM_DETOKENIZE_SKIP_SPECIAL, NULL, 0, &len);
    if (!(text = (char *)malloc(len + 1)) || llm_detokenize(m, ids, n, LLM_DETOKENIZE_SKIP_SPECIAL, text, len + 1, &len) != LLM_OK) {
        fprintf(stderr, "generate: cannot decode the prompt\n");
        free(text);
        return 1;
    }
    fwrite(text, 1, len, stdout);
    out->printed |= len > 0;
    free(text);
    return 0;
}

static int dump_logits(llm_ctx *ctx, const int32_t *ids, size_t n, int32_t n_vocab, const char *path) {
    FILE *f = fopen(path, "wb");
    size_t p;
    int err = 0;
    if (!f) { fprintf(stderr, "generate: cannot create %s: %s\n", path, strerror(errno)); return 1; }
    for (p = 0; p < n; p++) {
        if (llm_eval(ctx, &ids[p], 1) != LLM_OK) { fprintf(stderr, "generate: %s\n", llm_ctx_error(ctx)); fclose(f); return 1; }
        if (fwrite(llm_logits(ctx), sizeof(float), (size_t)n_vocab, f) != (size_t)n_vocab) { err = errno; break; }
    }
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (p < n || err) { fprintf(stderr, "generate: cannot write %s: %s\n", path, strerror(err ? err : EIO)); return 1; }
    return 0;
}

/* The prompt's ids from -p, -f, --ids or --ids-file, or the model's BOS. */
static int prompt_ids(const llm_model *m, const char *prompt, const char *prompt_file, const char *ids_str, const char *ids_file,
                      collected *out) {
    char *text = NULL;
    size_t len = 0;
    int rc = 0, bos = llm_model_info_get(m)->bos_id;
    if (prompt) return tokenize_prompt(m, prompt, strlen(prompt), out);
    if ((prompt_file || ids_file) && !(text = read_whole_file("generate", prompt_file ? prompt_file : ids_file, &len))) return 1;
    if (prompt_file) rc = tokenize_prompt(m, text, len, out);
    else if (ids_file) rc = parse_ids(text, ids_file, &out->ids, &out->n, &out->cap) != 0;
    else if (ids_str) rc = parse_ids(ids_str, "--ids", &out->ids, &out->n, &out->cap) != 0;
    free(text);
    if (rc || out->n) return rc;
    if (bos < 0) { fprintf(stderr, "generate: the model has no BOS token; give a prompt or --ids\n"); return 1; }
    free(out->ids);
    if (!(out->ids = (int32_t *)malloc(sizeof *out->ids))) { fprintf(stderr, "generate: out of memory\n"); return 1; }
    out->ids[0] = bos;
    out->n = out->cap = 1;
    return 0;
}

/* What the flags ask for, beside the sampler and the context's desc. */
typedef struct options {
    const char *model, *prompt, *prompt_file, *ids, *ids_file, *dump;
    int32_t n_gen;
    int print_ids, hide_prompt, verbose, no_mmap;
} options;

static const char *const flags_known[] = { "-m", "--model", "-p", "--prompt", "-f", "--file", "--ids", "--ids-file", "-n",
                                           "--n-predict", "-t", "--threads", "-c", "--ctx-size", "-b", "--batch-size", "-s",
                                           SAMPLING_FLAGS, "--kv-type", "--no-display-prompt", "--print-ids", "--dump-logits",
                                           "--kernels", "--bf16-dot", "--no-mmap", "-v", "-h", "--help", NULL };
static const char *const flags_valued[] = { "-m", "-p", "-f", "--ids", "--ids-file", "-n", "-t", "-c", "-b", SAMPLING_FLAGS,
                                            "--kv-type", "--dump-logits", "--kernels", NULL };

/* 0 to go on, -1 after --help, else the exit status of bad usage. */
static int parse_flags(int argc, char **argv, options *o, llm_sampler *s, llm_ctx_desc *cd) {
    int i, k;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *a = flag_name(arg), *v;
        if (!strcmp(a, "-h")) { usage(stdout); return -1; }
        if (!strcmp(a, "--print-ids")) { o->print_ids = 1; continue; }
        if (!strcmp(a, "--no-display-prompt")) { o->hide_prompt = 1; continue; }
        if (!strcmp(a, "-v")) { o->verbose = 1; continue; }
        if (!strcmp(a, "--bf16-dot")) { cd->bf16_dot = 1; continue; }
        if (!strcmp(a, "--no-mmap")) { o->no_mmap = 1; continue; }
        if (!flag_is(a, flags_valued)) { flag_unknown("generate", arg, flags_known); return 2; }
        if (!(v = flag_value(argc, argv, &i))) { fprintf(stderr, "generate: %s needs a value\n", arg); return 2; }
        if ((k = sampling_parse("generate", a, v, s)) != 0) { if (k < 0) return 2; }
        else if (!strcmp(a, "-m")) o->model = v;
        else if (!strcmp(a, "-p")) { o->prompt = v; o->prompt_file = NULL; }
        else if (!strcmp(a, "-f")) { o->prompt_file = v; o->prompt = NULL; }
        else if (!strcmp(a, "--ids")) o->ids = v;
        else if (!strcmp(a, "--ids-file")) o->ids_file = v;
        else if (!strcmp(a, "--dump-logits")) o->dump = v;
        else if (!strcmp(a, "--kernels")) { if (!flag_kernels("generate", arg, v, &cd->kernels)) return 2; }
        else if (!strcmp(a, "-n")) { if (!flag_int("generate", arg, v, 0, INT32_MAX, &o->n_gen)) return 2; }
        else if (!strcmp(a, "-t")) { if (!flag_int("generate", arg, v, 0, LLM_MAX_THREADS, &cd->n_threads)) return 2; }
        else if (!strcmp(a, "-c")) { if (!flag_int("generate", arg, v, 0, INT32_MAX, &cd->n_ctx)) return 2; }
        else if (!strcmp(a, "-b")) { if (!flag_int("generate", arg, v, 1, INT32_MAX, &cd->n_batch)) return 2; }
        else if (!strcmp(v, "f16") || !strcmp(v, "f32")) cd->kv_type = !strcmp(v, "f16") ? LLM_KV_F16 : LLM_KV_F32;
        else { fprintf(stderr, "generate: %s: '%s' is neither f16 nor f32\n", arg, v); return 2; }
    }
    sampling_done(s);
    if (!o->model) { fprintf(stderr, "generate: no model: give -m FILE (see generate --help)\n"); return 2; }
    return 0;
}

/* Text that went to stdout ends its line before anything more is said on stderr, which is
   often the same terminal or file. */
static void end_text(collected *out) {
    if (out->printed) { printf("\n"); out->printed = 0; }
    fflush(stdout);
}

/* The generation's log: keeps its message of an error, said after the text's line. */
static void keep_error(void *user, const char *message) { snprintf((char *)user, 256, "%s", message); }

int main(int argc, char **argv) {
    char error[256] = "";
    options o;
    llm_sampler sampler;
    llm_generate_desc gd;
    llm_generate_stats st;
    llm_ctx_desc cd;
    llm_model_desc md;
    llm_model *model = NULL;
    llm_ctx *ctx = NULL;
    collected out;
    size_t n_prompt, k;
    int rc = 1;
    memset(&o, 0, sizeof o);
    memset(&sampler, 0, sizeof sampler);
    memset(&out, 0, sizeof out);
    memset(&cd, 0, sizeof cd);
    memset(&md, 0, sizeof md);
    o.n_gen = 64;
    sampler.seed = 1;
#if defined(_WIN32)
    /* Bytes out as they are: UTF-8 text on the console, no \n -> \r\n in pipes and files. */
    SetConsoleOutputCP(65001);
    _setmode(_fileno(stdout), _O_BINARY);
#endif
    if ((rc = parse_flags(argc, argv, &o, &sampler, &cd)) != 0) return rc < 0 ? 0 : rc;
    rc = 1;
    warn_build("generate");
    md.no_mmap = o.no_mmap;
    if (!(model = open_model("generate", o.model, &md))) goto done;
    if (prompt_ids(model, o.prompt, o.prompt_file, o.ids, o.ids_file, &out)) goto done;
    n_prompt = out.n;
    if (!(ctx = open_context("generate", model, &cd))) goto done;
    if (o.verbose)
        fprintf(stderr, "generate: kernels %s%s (%s)\n", llm_kernels_name(llm_ctx_kernels(ctx)), llm_ctx_bf16_dot(ctx) ? " with bf16 dot products" : "",
                llm_system_info());
    if (o.dump && dump_logits(ctx, out.ids, n_prompt, llm_model_info_get(model)->n_vocab, o.dump)) goto done;
    memset(&gd, 0, sizeof gd);
    gd.sampler = &sampler;
    gd.max_tokens = o.n_gen ? o.n_gen : -1;
    gd.ignore_eos = 1;
    gd.on_token = collect;
    gd.user = &out;
    gd.log = keep_error;
    gd.log_user = error;
    out.print_text = !o.print_ids && llm_tokenizer_info_get(model) != NULL;
    if (out.print_text && !o.hide_prompt && print_prompt_text(model, out.ids, n_prompt, &out)) goto done;
    if (llm_generate_tokens(ctx, out.ids, n_prompt, &gd, &st) != LLM_OK) {
        end_text(&out);
        fprintf(stderr, "generate: %s\n", error);
        goto done;
    }
    if (o.print_ids)
        for (k = 0; k < out.n; k++) printf(k ? " %d" : "%d", out.ids[k]);
    if (o.print_ids || out.print_text) out.printed = 1; /* a line, even an empty one, as before */
    end_text(&out);
    if (st.stop == LLM_STOP_CONTEXT_FULL && st.n_generated < o.n_gen)
        fprintf(stderr, "generate: stopped after %d tokens: the context (%d) is full\n", st.n_generated, llm_ctx_size(ctx));
    fprintf(stderr, "generate: prompt %d tokens (%d evaluated, %.1f tok/s), generated %d tokens (%.1f tok/s), KV cache %llu bytes (context %llu in all)\n",
            st.n_prompt, st.n_evaluated, st.prompt_tokens_per_s, st.n_generated, st.gen_tokens_per_s,
            (unsigned long long)llm_ctx_kv_bytes(ctx), (unsigned long long)llm_ctx_memory_bytes(ctx));
    rc = 0;
done:
    llm_ctx_close(ctx);
    llm_model_close(model);
    free(out.ids);
    return rc;
}
