/* Fuzz target: the converter's GGUF reader (tools/llm_gguf.h). Input: a whole GGUF file. A
   parsed file must have every tensor inside it, none overlapping another, of the size its
   type and shape say; then every tensor is dequantized, and the architecture, the
   hyper-parameters, the tokenizer (tokens, types, scores or merges) and the tensor plan are
   read from it as the converter reads them. Seeds: tests/fuzz/corpus/fuzz_gguf (tiny models
   of both tokenizer kinds and many tensor types, written by test_gguf --seeds DIR). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../../tools/llm_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tensors(const llm__gguf *g) {
    uint64_t i, j;
    for (i = 0; i < g->n_tensors; i++) {
        const llm__gguf_tensor *t = &g->t[i];
        const llm__gguf_type *ty = llm__gguf_type_of(t->type);
        long double n = 1;
        int d;
        for (d = 0; d < t->n_dims; d++) n *= (long double)t->ne[d];
        if (!ty || !ty->blck || n != (long double)t->n_elem || t->ne[0] % ty->blck || t->size != t->n_elem / ty->blck * ty->size) abort();
        if (g->data_offset + t->offset + t->size > g->fsize || t->offset % g->alignment) abort();
        for (j = 0; j < i; j++)
            if (g->t[j].offset < t->offset + t->size && t->offset < g->t[j].offset + g->t[j].size && t->size && g->t[j].size) abort();
    }
}

static void dequantize_all(const llm__gguf *g) {
    uint64_t i;
    for (i = 0; i < g->n_tensors; i++) {
        const llm__gguf_tensor *t = &g->t[i];
        float *f;
        if (t->n_elem > ((uint64_t)1 << 22) || !(f = (float *)malloc((size_t)t->n_elem * sizeof *f))) continue;
        if (llm__gguf_dequantize(t->type, g->buf + g->data_offset + t->offset, t->n_elem, f) != 0) abort();
        free(f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static llm__cv cv; /* zero: no log, no progress */
    static const llm_convert_desc desc = { 0 };
    llm__gguf_file gf;
    llm__cv_hparams h;
    llm__cv_tok_data td;
    llm__gguf_plan *pl;
    cv.desc = &desc;
    memset(&gf, 0, sizeof gf);
    gf.path = "fuzz.gguf";
    if (llm__gguf_parse(&gf.g, data, size, size) != 0) { llm__gguf_free(&gf.g); return 0; }
    check_tensors(&gf.g);
    dequantize_all(&gf.g);
    memset(&h, 0, sizeof h);
    if (llm__gguf_read_arch(&cv, &gf) == 0 && llm__gguf_read_hparams(&cv, &gf, &h) == 0) {
        if (llm__gguf_tok_read(&cv, &gf, &td) == 0) {
            (void)llm__cv_tok_check_vocab_size(&cv, &td, h.n_vocab);
            llm__cv_tok_data_free(&td);
        }
        if ((pl = (llm__gguf_plan *)calloc(1, sizeof *pl)) != NULL) {
            (void)llm__gguf_plan_tensors(&cv, &gf, &h, pl);
            llm__gguf_plan_free(pl);
            free(pl);
        }
    }
    llm__cv_hparams_free(&h);
    llm__gguf_free(&gf.g);
    return 0;
}
