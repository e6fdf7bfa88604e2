/* Fuzz target: llm_model_open_memory on arbitrary bytes (and, when that fails, again with
   vocab_only); when the model opens, its tokenizer and chat template on a fixed text, and with
   the tensors a context of 4 positions and one llm_eval of two tokens. The last input byte picks the KV cache type and
   whether the header's file size is first set to the input's size and its checksum written
   again (so that mutations of a seed get past those checks and reach the metadata and
   tensor table).
   Seeds: tests/fuzz/corpus/fuzz_model (tiny models of each family and dtype). */
#define LLM_IMPLEMENTATION
#include "../../llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a model's tokenizer and chat metadata drive: tokenize, detokenize, stream, render. */
static void use_tokenizer_and_chat(const llm_model *m) {
    static const char text[] = "Hello <s> world</s> 123 \xe2\x98\x83 \xff\xfe<|im_start|>user\n";
    llm_chat_message msgs[2];
    llm_decoder dec;
    int32_t ids[256];
    char out[2048];
    size_t n = 0, n_out, i, len;
    const char *err;
    if (llm_tokenizer_info_get(m) &&
        llm_tokenize(m, text, sizeof text - 1, LLM_TOKENIZE_ADD_SPECIAL | LLM_TOKENIZE_PARSE_SPECIAL, ids, 256, &n) == LLM_OK) {
        (void)llm_detokenize(m, ids, n, 0, out, sizeof out, &n_out);
        llm_decoder_init(&dec, m);
        for (i = 0; i < n; i++) (void)llm_decoder_push(&dec, ids[i], out, sizeof out, &n_out);
        (void)llm_decoder_flush(&dec, out, sizeof out, &n_out);
        for (i = 0; i < n; i++) (void)llm_token_text(m, ids[i], &len);
    }
    msgs[0].role = "system"; msgs[0].content = "Be brief.";
    msgs[1].role = "user"; msgs[1].content = "Hi";
    (void)llm_chat_template(m);
    (void)llm_chat_end_of_turn(m, NULL, &len);
    (void)llm_chat_render(m, msgs, 2, 1, NULL, out, sizeof out, &n_out, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    llm_model *m;
    llm_ctx *c;
    llm_ctx_desc cd;
    llm_model_desc md;
    size_t len;
    uint8_t *copy = NULL;
    int i;
    if (size >= 16 && (data[size - 1] & 2)) {
        if (!(copy = (uint8_t *)malloc(size))) return 0;
        memcpy(copy, data, size);
        for (i = 0; i < 8; i++) copy[8 + i] = (uint8_t)((uint64_t)size >> (8 * i));
        if (size >= LLM__HEADER_SIZE && llm__rd64(copy + 56) >= LLM__HEADER_SIZE && llm__rd64(copy + 56) <= size)
            llm__wr64(copy + LLM__CHECKSUM_AT, llm__file_checksum(copy, llm__rd64(copy + 56)));
        data = copy;
    }
    memset(&md, 0, sizeof md);
    if (llm_model_open_memory(&m, data, size, NULL) != LLM_OK) {
        md.vocab_only = 1;
        if (llm_model_open_memory(&m, data, size, &md) != LLM_OK) { free(copy); return 0; }
    }
    (void)llm_model_meta_string(m, "general.architecture", &len);
    use_tokenizer_and_chat(m);
    if (md.vocab_only) { llm_model_close(m); free(copy); return 0; }
    memset(&cd, 0, sizeof cd);
    cd.n_ctx = 4;
    cd.n_batch = 2;
    cd.n_threads = 1;
    cd.kv_type = data[size - 1] & 1 ? LLM_KV_F16 : LLM_KV_F32;
    if (llm_ctx_open(&c, m, &cd) == LLM_OK) {
        int32_t t[3];
        t[0] = llm_model_info_get(m)->n_vocab - 1;
        t[1] = 0;
        t[2] = llm_model_info_get(m)->bos_id < 0 ? 0 : llm_model_info_get(m)->bos_id;
        if (llm_eval(c, t, 2) == LLM_OK) (void)llm_logits(c);
        (void)llm_eval(c, t + 2, 1);
        llm_ctx_close(c);
    }
    llm_model_close(m);
    free(copy);
    return 0;
}
