/* Bad values inside a well-formed file, and bad calls: each gives a specific error code and a
   message, never a crash, and leaves the context usable.
   - NaN or infinity in any norm weight or bias: refused at open (LLM_ERR_BAD_FILE, the
     message names the tensor);
   - a model buffer that is not 4-byte aligned: LLM_ERR_INVALID_ARGUMENT;
   - NULL handles and outputs, n = 0, token ids out of range, evaluation past n_ctx, rewind
     past the end: error codes, and a failed call changes nothing. */
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "tiny_model.h"

#include <math.h>

static int failures;
static char last_log[256];

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAILED %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); failures++; } } while (0)

static void keep_log(void *user, const char *msg) { (void)user; snprintf(last_log, sizeof last_log, "%s", msg); }

static llm_result open_buf(llm_model **m, const void *buf, size_t size) {
    llm_model_desc md;
    memset(&md, 0, sizeof md);
    md.log = keep_log;
    last_log[0] = 0;
    return llm_model_open_memory(m, buf, size, &md);
}

/* Puts v at element i of the named tensor (found by opening the clean file), then expects the
   open to fail naming the tensor. */
static void expect_refused(const uint8_t *clean, size_t size, const char *tensor, size_t i, float v) {
    llm_model *m;
    size_t off;
    uint8_t *bad = (uint8_t *)malloc(size);
    if (open_buf(&m, clean, size) != LLM_OK || !llm_model_tensor(m, tensor)) { CHECK(0, "no tensor %s", tensor); free(bad); return; }
    off = (size_t)((const uint8_t *)llm_model_tensor(m, tensor)->data - clean) + 4 * i;
    llm_model_close(m);
    memcpy(bad, clean, size);
    memcpy(bad + off, &v, 4);
    CHECK(open_buf(&m, bad, size) == LLM_ERR_BAD_FILE, "%s[%u] = %g was accepted", tensor, (unsigned)i, v);
    CHECK(strstr(last_log, tensor) != NULL, "message does not name %s: %s", tensor, last_log);
    free(bad);
}

static void test_non_finite_norms(void) {
    static const char *const names[] = {
        "model.norm.weight", "model.layers.0.input_layernorm.weight", "model.layers.1.post_attention_layernorm.weight",
        "model.layers.0.self_attn.q_norm.weight", "model.layers.1.self_attn.k_norm.weight", "model.layers.0.self_attn.q_proj.bias",
        "model.layers.1.self_attn.v_proj.bias",
    };
    tiny_desc d = tiny_default();
    size_t size, i;
    uint8_t *clean;
    llm_model *m;
    d.arch = "qwen3"; d.qk_norm = 1; d.bias = 1;
    clean = (uint8_t *)tiny_model(&d, &size);
    CHECK(clean && open_buf(&m, clean, size) == LLM_OK, "clean model does not open: %s", last_log);
    if (!clean) return;
    llm_model_close(m);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        expect_refused(clean, size, names[i], i % 3, NAN);
        expect_refused(clean, size, names[i], 1, INFINITY);
        expect_refused(clean, size, names[i], 0, -INFINITY);
    }
    free(clean);
}

static void test_misaligned_buffer(void) {
    tiny_desc d = tiny_default();
    size_t size;
    uint8_t *file = (uint8_t *)tiny_model(&d, &size), *shifted = (uint8_t *)malloc(size + 8);
    llm_model *m = (llm_model *)&d;
    memcpy(shifted + 2, file, size);
    CHECK(open_buf(&m, shifted + 2, size) == LLM_ERR_INVALID_ARGUMENT && m == NULL, "a misaligned buffer was accepted");
    memcpy(shifted + 4, file, size);
    CHECK(open_buf(&m, shifted + 4, size) == LLM_OK, "a 4-byte aligned buffer was refused: %s", last_log);
    llm_model_close(m);
    free(shifted);
    free(file);
}

static void test_bad_calls(void) {
    tiny_desc d = tiny_default();
    size_t size;
    void *file = tiny_model(&d, &size);
    llm_model *m = NULL;
    llm_ctx *c = NULL;
    llm_ctx_desc cd;
    int32_t ok[3] = { 1, 2, 3 }, bad[3] = { 1, -1, 3 }, big[2] = { 0, 64 }, many[9] = { 0 };
    float before[64];
    memset(&cd, 0, sizeof cd);
    /* NULL everywhere */
    CHECK(llm_model_open_memory(NULL, file, size, NULL) == LLM_ERR_INVALID_ARGUMENT, "NULL out");
    CHECK(llm_model_open_memory(&m, NULL, 10, NULL) == LLM_ERR_INVALID_ARGUMENT && !m, "NULL data");
    CHECK(llm_model_open_memory(&m, file, 0, NULL) == LLM_ERR_BAD_MAGIC && !m, "empty buffer");
#if !defined(LLM_NO_STDIO)
    CHECK(llm_model_open(&m, NULL, NULL) == LLM_ERR_INVALID_ARGUMENT, "NULL path");
    CHECK(llm_model_open(&m, "no/such/file.llm", NULL) == LLM_ERR_IO && !m, "missing file");
#endif
    CHECK(llm_ctx_open(&c, NULL, NULL) == LLM_ERR_INVALID_ARGUMENT && !c, "NULL model");
    CHECK(llm_eval(NULL, ok, 1) == LLM_ERR_INVALID_ARGUMENT, "NULL ctx");
    CHECK(llm_ctx_rewind(NULL, 0) == LLM_ERR_INVALID_ARGUMENT, "NULL ctx rewind");
    CHECK(llm_logits(NULL) == NULL && llm_ctx_pos(NULL) == 0 && llm_model_info_get(NULL) == NULL, "NULL getters");
    CHECK(llm_model_tensor(NULL, "x") == NULL && llm_model_meta_string(NULL, "x", NULL) == NULL, "NULL lookups");
    llm_ctx_close(NULL);
    llm_model_close(NULL);
    if (open_buf(&m, file, size) != LLM_OK) { CHECK(0, "tiny model does not open: %s", last_log); free(file); return; }
    CHECK(llm_model_tensor(m, NULL) == NULL && llm_model_tensor(m, "") == NULL, "NULL/empty tensor name");
    /* bad context descriptions */
    cd.n_ctx = -1;
    CHECK(llm_ctx_open(&c, m, &cd) == LLM_ERR_INVALID_ARGUMENT && !c, "negative n_ctx");
    cd.n_ctx = 8; cd.n_batch = -3;
    CHECK(llm_ctx_open(&c, m, &cd) == LLM_ERR_INVALID_ARGUMENT && !c, "negative n_batch");
    cd.n_batch = 0; cd.kv_type = (llm_kv_type)7;
    CHECK(llm_ctx_open(&c, m, &cd) == LLM_ERR_INVALID_ARGUMENT && !c, "unknown kv type");
    cd.kv_type = LLM_KV_DEFAULT;
    if (llm_ctx_open(&c, m, &cd) != LLM_OK) { CHECK(0, "ctx_open"); llm_model_close(m); free(file); return; }
    /* bad evaluations leave the context as it was */
    CHECK(llm_eval(c, NULL, 1) == LLM_ERR_INVALID_ARGUMENT, "NULL tokens");
    CHECK(llm_eval(c, ok, 0) == LLM_ERR_INVALID_ARGUMENT, "n = 0");
    CHECK(llm_eval(c, bad, 3) == LLM_ERR_BAD_TOKEN && llm_ctx_pos(c) == 0, "negative token");
    CHECK(llm_eval(c, big, 2) == LLM_ERR_BAD_TOKEN && llm_ctx_pos(c) == 0, "token == n_vocab");
    CHECK(strstr(llm_ctx_error(c), "64") != NULL, "message: %s", llm_ctx_error(c));
    CHECK(llm_eval(c, many, 9) == LLM_ERR_CONTEXT_FULL && llm_ctx_pos(c) == 0, "9 tokens in n_ctx 8");
    CHECK(llm_eval(c, ok, 3) == LLM_OK && llm_ctx_pos(c) == 3, "eval after errors");
    memcpy(before, llm_logits(c), sizeof before);
    CHECK(llm_eval(c, many, 6) == LLM_ERR_CONTEXT_FULL && llm_ctx_pos(c) == 3, "past n_ctx");
    CHECK(llm_eval(c, bad, 3) == LLM_ERR_BAD_TOKEN && memcmp(before, llm_logits(c), sizeof before) == 0, "logits kept");
    CHECK(llm_ctx_rewind(c, 4) == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 3, "rewind past the end");
    CHECK(llm_ctx_rewind(c, -1) == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 3, "rewind to -1");
    CHECK(llm_eval(c, many, 5) == LLM_OK && llm_ctx_pos(c) == 8, "fill to n_ctx");
    CHECK(llm_eval(c, ok, 1) == LLM_ERR_CONTEXT_FULL && llm_ctx_pos(c) == 8, "eval when full");
    /* rewinding and evaluating again gives the same logits */
    CHECK(llm_ctx_rewind(c, 2) == LLM_OK && llm_eval(c, ok + 2, 1) == LLM_OK && memcmp(before, llm_logits(c), sizeof before) == 0,
          "rewind + eval differs");
    llm_ctx_close(c);
    llm_model_close(m);
    free(file);
}

int main(void) {
    test_non_finite_norms();
    test_misaligned_buffer();
    test_bad_calls();
    if (failures) { printf("%d checks failed\n", failures); return 1; }
    printf("non-finite norms and biases refused, misaligned buffer refused, bad calls give error codes\n");
    return 0;
}
