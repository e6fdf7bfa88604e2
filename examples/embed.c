/* embed: text embeddings, and how alike texts are, from an embedding model (Qwen3-Embedding
   and the like) or any model file.

   build/embed -m model.llm [--pooling mean|last|first] [--normalize | --no-normalize]
               [--prompt-name NAME | --prompt TEXT] [--vectors] [--ids] [-t N] TEXT...

   Each text is tokenized with the tokenizer's own special tokens and evaluated alone
   (llm_embed): its final hidden states pooled the model file's way (the converter takes it
   from the checkpoint's sentence-transformers modules.json; the mean where there is none),
   unless --pooling or --normalize says otherwise. A prompt goes before each text, as
   sentence-transformers' encode(prompt_name=...) puts it: one of the model's (its
   config_sentence_transformers.json, "query" for Qwen3-Embedding's instruction) by name, the
   model's default one, or --prompt's text. --vectors prints each embedding as a line
   of numbers; otherwise, for two or more texts, the cosine similarity of every pair. With
   --ids each TEXT is a list of token ids ("1 415 1000"), for a model without a tokenizer. */
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f, "usage: embed -m model.llm [--pooling mean|last|first] [--normalize | --no-normalize]\n"
               "             [--prompt-name NAME | --prompt TEXT] [--vectors] [--ids] [-t N] TEXT...\n");
}

/* A list of ids in decimal, separated by spaces, into *ids (allocated); 0 if it is not one. */
static int parse_ids(const char *s, int32_t **ids, size_t *n) {
    size_t cap = strlen(s) / 2 + 1;
    char *end;
    *n = 0;
    if (!(*ids = (int32_t *)malloc(cap * sizeof **ids))) return 0;
    for (;;) {
        long v;
        while (*s == ' ') s++;
        if (!*s) return *n > 0;
        v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 0x7FFFFFFF || *n == cap) return 0;
        (*ids)[(*n)++] = (int32_t)v;
        s = end;
    }
}

/* Keeps the library's detail message of a failed open. */
static void keep_error(void *user, const char *message) { snprintf((char *)user, 256, "%s", message); }

static double cosine(const float *a, const float *b, int n) {
    double ab = 0, aa = 0, bb = 0;
    int i;
    for (i = 0; i < n; i++) { ab += (double)a[i] * b[i]; aa += (double)a[i] * a[i]; bb += (double)b[i] * b[i]; }
    return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0.0;
}

int main(int argc, char **argv) {
    const char *path = NULL, **texts = (const char **)argv; /* the texts, gathered at the front of argv */
    const char *prompt = NULL, *prompt_name = NULL;
    size_t prompt_len = 0;
    char *text = NULL;
    llm_pooling pooling = LLM_POOLING_MODEL;
    int normalize = -1, vectors = 0, as_ids = 0, n_texts = 0, rc = 1, a, i, j, D;
    llm_model *model = NULL;
    llm_model_desc md;
    llm_ctx *ctx = NULL;
    llm_ctx_desc cd;
    int32_t **ids = NULL;
    size_t *n_ids = NULL, longest = 1;
    float *emb = NULL;
    char error[256] = "";
    llm_result r;
    memset(&cd, 0, sizeof cd);
    for (a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) { usage(stdout); return 0; }
        if (!strcmp(argv[a], "--vectors")) vectors = 1;
        else if (!strcmp(argv[a], "--ids")) as_ids = 1;
        else if (!strcmp(argv[a], "--normalize")) normalize = 1;
        else if (!strcmp(argv[a], "--no-normalize")) normalize = 0;
        else if (!strcmp(argv[a], "-m") || !strcmp(argv[a], "--pooling") || !strcmp(argv[a], "-t") || !strcmp(argv[a], "--prompt") ||
                 !strcmp(argv[a], "--prompt-name")) {
            if (!v) { fprintf(stderr, "embed: %s needs a value\n", argv[a]); return 2; }
            a++;
            if (!strcmp(argv[a - 1], "-m")) path = v;
            else if (!strcmp(argv[a - 1], "-t")) cd.n_threads = atoi(v);
            else if (!strcmp(argv[a - 1], "--prompt")) prompt = v, prompt_len = strlen(v);
            else if (!strcmp(argv[a - 1], "--prompt-name")) prompt_name = v;
            else if (!strcmp(v, "mean")) pooling = LLM_POOLING_MEAN;
            else if (!strcmp(v, "last")) pooling = LLM_POOLING_LAST;
            else if (!strcmp(v, "first")) pooling = LLM_POOLING_FIRST;
            else { fprintf(stderr, "embed: --pooling '%s': mean, last or first\n", v); return 2; }
        } else if (argv[a][0] == '-' && argv[a][1]) { fprintf(stderr, "embed: unknown option '%s' (see embed --help)\n", argv[a]); return 2; }
        else texts[n_texts++] = argv[a];
    }
    if (!path) { usage(stderr); return 2; }
    ids = (int32_t **)calloc((size_t)argc, sizeof *ids);
    n_ids = (size_t *)calloc((size_t)argc, sizeof *n_ids);
    if (!ids || !n_ids) { fprintf(stderr, "embed: out of memory\n"); free(ids); free(n_ids); return 1; }
    memset(&md, 0, sizeof md);
    md.log = keep_error;
    md.log_user = error;
    errno = 0;
    if ((r = llm_model_open(&model, path, &md)) != LLM_OK) {
        fprintf(stderr, "embed: cannot open %s: %s\n", path, r == LLM_ERR_IO && errno ? strerror(errno) : error);
        goto done;
    }
    D = llm_model_info_get(model)->n_embd;
    if (n_texts == 0) { usage(stderr); rc = 2; goto done; }
    { /* the model's prompt named by --prompt-name, else its default one unless --prompt gave a text */
        size_t name_len = prompt_name ? strlen(prompt_name) : 0;
        const char *name = prompt_name ? prompt_name : prompt ? NULL : llm_model_meta_string(model, LLM_KEY_EMBD_DEFAULT_PROMPT, &name_len);
        char key[96];
        if (name) {
            prompt = NULL;
            if (name_len <= 64) {
                snprintf(key, sizeof key, "%s%.*s", LLM_KEY_EMBD_PROMPT, (int)name_len, name);
                prompt = llm_model_meta_string(model, key, &prompt_len);
            }
            if (!prompt) { fprintf(stderr, "embed: the model has no prompt '%.*s'\n", (int)(name_len < 64 ? name_len : 64), name); rc = 2; goto done; }
        }
    }
    for (i = 0; i < n_texts; i++) { /* the prompt and the text; ask the count, then tokenize */
        const char *t = texts[i];
        size_t len = strlen(t), n = 0;
        if (as_ids) {
            if (!parse_ids(t, &ids[i], &n_ids[i])) { fprintf(stderr, "embed: --ids: '%s' is not a list of ids\n", t); rc = 2; goto done; }
            if (n_ids[i] > longest) longest = n_ids[i];
            continue;
        }
        if (prompt) {
            free(text);
            if (!(text = (char *)malloc(prompt_len + len + 1))) { fprintf(stderr, "embed: out of memory\n"); goto done; }
            memcpy(text, prompt, prompt_len);
            memcpy(text + prompt_len, t, len + 1);
            t = text;
            len += prompt_len;
        }
        r = llm_tokenize(model, t, len, LLM_TOKENIZE_ADD_SPECIAL, NULL, 0, &n);
        if (r != LLM_OK && r != LLM_ERR_BUFFER_TOO_SMALL) { fprintf(stderr, "embed: cannot tokenize text %d: %s\n", i + 1, llm_result_string(r)); goto done; }
        if (n == 0) { fprintf(stderr, "embed: text %d gives no tokens\n", i + 1); goto done; }
        if (!(ids[i] = (int32_t *)malloc(n * sizeof *ids[i])) || llm_tokenize(model, t, len, LLM_TOKENIZE_ADD_SPECIAL, ids[i], n, &n_ids[i]) != LLM_OK) {
            fprintf(stderr, "embed: cannot tokenize text %d\n", i + 1);
            goto done;
        }
        if (n_ids[i] > longest) longest = n_ids[i];
    }
    cd.n_ctx = (int32_t)longest;
    if (!(emb = (float *)malloc((size_t)n_texts * (size_t)D * sizeof *emb))) { fprintf(stderr, "embed: out of memory\n"); goto done; }
    if ((r = llm_ctx_open(&ctx, model, &cd)) != LLM_OK) { fprintf(stderr, "embed: cannot create a context: %s\n", llm_result_string(r)); goto done; }
    for (i = 0; i < n_texts; i++)
        if (llm_embed(ctx, ids[i], n_ids[i], pooling, normalize, emb + (size_t)i * D) != LLM_OK) {
            fprintf(stderr, "embed: %s\n", llm_ctx_error(ctx));
            goto done;
        }
    for (i = 0; i < n_texts && vectors; i++)
        for (j = 0; j < D; j++) printf("%.9g%c", emb[(size_t)i * D + j], j + 1 < D ? ' ' : '\n');
    for (i = 0; i < n_texts && !vectors; i++)
        for (j = i + 1; j < n_texts; j++) printf("%d %d %.6f\n", i + 1, j + 1, cosine(emb + (size_t)i * D, emb + (size_t)j * D, D));
    rc = 0;
done:
    for (i = 0; i < n_texts; i++) free(ids[i]);
    free(ids); free(n_ids); free(emb); free(text);
    llm_ctx_close(ctx);
    llm_model_close(model);
    return rc;
}
