/* Bad values inside a well-formed file, and bad calls: each gives a specific error code and a
   message, never a crash, and leaves the context usable.
   - NaN or infinity in any norm weight or bias: refused at open (LLM_ERR_BAD_FILE, the
     message names the tensor);
   - a model buffer that is not 4-byte aligned: LLM_ERR_INVALID_ARGUMENT;
   - a failed llm_eval or llm_ctx_rewind leaves the logits as they were (the error codes
     themselves are in tests/test_badfile.c). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "tiny_model.h"
#include "check.h"

#include <math.h>

static char last_log[256];

static void hostile_keep_log(void *user, const char *msg) { (void)user; snprintf(last_log, sizeof last_log, "%s", msg); }

static llm_result open_buf(llm_model **m, const void *buf, size_t size) {
    llm_model_desc md;
    memset(&md, 0, sizeof md);
    md.log = hostile_keep_log;
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

/* What tests/test_badfile.c does not check: a failed call leaves the logits as they were,
   and rewinding then evaluating again gives the same logits. */
static void test_failed_calls_change_nothing(void) {
    tiny_desc d = tiny_default();
    size_t size;
    void *file = tiny_model(&d, &size);
    llm_model *m = NULL;
    llm_ctx *c = NULL;
    llm_ctx_desc cd;
    int32_t ok[3] = { 1, 2, 3 }, bad[3] = { 1, -1, 3 }, many[9] = { 0 };
    float before[64];
    memset(&cd, 0, sizeof cd);
    cd.n_ctx = 8;
    if (open_buf(&m, file, size) != LLM_OK || llm_ctx_open(&c, m, &cd) != LLM_OK) {
        CHECK(0, "tiny model: %s", last_log);
        llm_model_close(m);
        free(file);
        return;
    }
    CHECK(llm_eval(c, ok, 3) == LLM_OK && llm_ctx_pos(c) == 3, "eval");
    memcpy(before, llm_logits(c), sizeof before);
    CHECK(llm_eval(c, many, 6) == LLM_ERR_CONTEXT_FULL && memcmp(before, llm_logits(c), sizeof before) == 0, "logits kept (full)");
    CHECK(llm_eval(c, bad, 3) == LLM_ERR_BAD_TOKEN && memcmp(before, llm_logits(c), sizeof before) == 0, "logits kept (bad token)");
    CHECK(llm_ctx_rewind(c, 4) == LLM_ERR_INVALID_ARGUMENT && memcmp(before, llm_logits(c), sizeof before) == 0, "logits kept (rewind)");
    CHECK(llm_eval(c, many, 5) == LLM_OK && llm_ctx_pos(c) == 8, "fill to n_ctx");
    CHECK(llm_ctx_rewind(c, 2) == LLM_OK && llm_eval(c, ok + 2, 1) == LLM_OK && memcmp(before, llm_logits(c), sizeof before) == 0,
          "rewind + eval differs");
    llm_ctx_close(c);
    llm_model_close(m);
    free(file);
}

int main(void) {
    test_non_finite_norms();
    test_misaligned_buffer();
    test_failed_calls_change_nothing();
    return check_summary("non-finite norms and biases refused, misaligned buffer refused, failed calls change nothing");
}
