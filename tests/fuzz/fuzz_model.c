/* Fuzz target: llm_model_open_memory on arbitrary bytes; when the model opens, a context of
   4 positions and one llm_eval of two tokens. The last input byte picks the KV cache type and
   whether the header's file size is first set to the input's size (so that mutations of a
   seed get past that check and reach the metadata and tensor table).
   Seeds: tests/fuzz/corpus/fuzz_model (tiny models of each family and dtype). */
#define LLM_IMPLEMENTATION
#include "../../llm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    llm_model *m;
    llm_ctx *c;
    llm_ctx_desc cd;
    size_t len;
    uint8_t *copy = NULL;
    int i;
    if (size >= 16 && (data[size - 1] & 2)) {
        if (!(copy = (uint8_t *)malloc(size))) return 0;
        memcpy(copy, data, size);
        for (i = 0; i < 8; i++) copy[8 + i] = (uint8_t)((uint64_t)size >> (8 * i));
        data = copy;
    }
    if (llm_model_open_memory(&m, data, size, NULL) != LLM_OK) { free(copy); return 0; }
    (void)llm_model_meta_string(m, "general.architecture", &len);
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
