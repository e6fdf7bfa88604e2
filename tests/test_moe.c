/* test_moe: the expert feed-forward on small mixtures built in memory (no files).

   - A token reads only its chosen experts: with a router of zeros every probability is
     equal, torch.topk's deterministic order chooses experts 0 .. k-1, and the others are
     filled with NaN; the logits must be finite and bitwise those of the same model with
     finite weights there (an expert computed and weighted by 0 would give NaN, and so
     would a tie broken towards a higher index).
   - Decoding token by token, one batch and batches of 3 give bitwise the same logits, as do
     1 and 2 threads.
   - The router's choice itself (llm__moe_route) on hand-made logits: order, ties, weights.
   - Files whose expert keys or tensors do not agree are moe_refused with a message. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "tiny_model.h"
#include "check.h"

#include <math.h>

#define MOE_SEQ 12

typedef struct moe_desc {
    int n_expert, n_used, n_ff_expert, norm_topk, n_ff_shared;
    int zero_router;        /* every router weight 0: all experts tie */
    int poison_from;        /* experts from this index on hold NaN (-1: none) */
    int used_key;           /* what llm.expert_used_count says (0: n_used) */
    int layers_key_len;     /* entries of llm.expert_layers (0: one per layer) */
    int drop_expert;        /* leave out this expert's down_proj of layer 0 (-1: none) */
    int no_count_key;       /* write the expert keys but not llm.expert_count */
} moe_desc;

static moe_desc moe_default(void) {
    moe_desc d;
    memset(&d, 0, sizeof d);
    d.n_expert = 8; d.n_used = 2; d.n_ff_expert = 32; d.norm_topk = 1;
    d.poison_from = -1; d.drop_expert = -1;
    return d;
}

/* Two layers: layer 0 sparse, layer 1 dense (llm.expert_layers [1, 0]). */
static void *moe_model(const moe_desc *d, size_t *size) {
    enum { V = 64, D = 32, FF = 48, L = 2, H = 4, KV = 2, HD = 8 };
    tiny__tensor *t = (tiny__tensor *)calloc(512, sizeof *t);
    int n = 0, l, e, i, sparse[8] = { 1, 0 };
    llm_builder *b = NULL;
    const void *hdr;
    size_t hdr_size, idx, k;
    uint8_t *file = NULL;
    uint32_t s = 12345;
    char name[96];
    if (!t || llm_builder_create(&b) != LLM_OK) goto done;
    tiny__add(t, &n, "model.embed_tokens.weight", V, D, LLM_DTYPE_F32);
    for (l = 0; l < L; l++) {
#define ADD(d0, d1, ...) snprintf(name, sizeof name, __VA_ARGS__); tiny__add(t, &n, name, d0, d1, LLM_DTYPE_F32);
        ADD(D, 0, "model.layers.%d.input_layernorm.weight", l)
        ADD(H * HD, D, "model.layers.%d.self_attn.q_proj.weight", l)
        ADD(KV * HD, D, "model.layers.%d.self_attn.k_proj.weight", l)
        ADD(KV * HD, D, "model.layers.%d.self_attn.v_proj.weight", l)
        ADD(D, H * HD, "model.layers.%d.self_attn.o_proj.weight", l)
        ADD(D, 0, "model.layers.%d.post_attention_layernorm.weight", l)
        if (!sparse[l]) {
            ADD(FF, D, "model.layers.%d.mlp.gate_proj.weight", l)
            ADD(FF, D, "model.layers.%d.mlp.up_proj.weight", l)
            ADD(D, FF, "model.layers.%d.mlp.down_proj.weight", l)
            continue;
        }
        ADD(d->n_expert, D, "model.layers.%d.mlp.gate.weight", l)
        for (e = 0; e < d->n_expert; e++) {
            ADD(d->n_ff_expert, D, "model.layers.%d.mlp.experts.%d.gate_proj.weight", l, e)
            ADD(d->n_ff_expert, D, "model.layers.%d.mlp.experts.%d.up_proj.weight", l, e)
            if (e != d->drop_expert) { ADD(D, d->n_ff_expert, "model.layers.%d.mlp.experts.%d.down_proj.weight", l, e) }
        }
        if (d->n_ff_shared) {
            ADD(d->n_ff_shared, D, "model.layers.%d.mlp.shared_expert.gate_proj.weight", l)
            ADD(d->n_ff_shared, D, "model.layers.%d.mlp.shared_expert.up_proj.weight", l)
            ADD(D, d->n_ff_shared, "model.layers.%d.mlp.shared_expert.down_proj.weight", l)
            ADD(1, D, "model.layers.%d.mlp.shared_expert_gate.weight", l)
        }
#undef ADD
    }
    tiny__add(t, &n, "model.norm.weight", D, 0, LLM_DTYPE_F32);
    tiny__add(t, &n, "lm_head.weight", V, D, LLM_DTYPE_F32);
    if (llm_builder_set_string(b, LLM_KEY_ARCH, "qwen2_moe", 9) || llm_builder_set_i32(b, LLM_KEY_N_VOCAB, V) ||
        llm_builder_set_i32(b, LLM_KEY_N_EMBD, D) || llm_builder_set_i32(b, LLM_KEY_N_FF, FF) ||
        llm_builder_set_i32(b, LLM_KEY_N_LAYER, L) || llm_builder_set_i32(b, LLM_KEY_N_HEAD, H) ||
        llm_builder_set_i32(b, LLM_KEY_N_HEAD_KV, KV) || llm_builder_set_i32(b, LLM_KEY_HEAD_DIM, HD) ||
        llm_builder_set_i32(b, LLM_KEY_N_CTX_TRAIN, 64) || llm_builder_set_f64(b, LLM_KEY_RMS_EPS, 1e-5) ||
        llm_builder_set_f64(b, LLM_KEY_ROPE_THETA, 10000.0) ||
        (!d->no_count_key && llm_builder_set_i32(b, LLM_KEY_N_EXPERT, d->n_expert)) ||
        llm_builder_set_i32(b, LLM_KEY_N_EXPERT_USED, d->used_key ? d->used_key : d->n_used) ||
        llm_builder_set_i32(b, LLM_KEY_EXPERT_FF, d->n_ff_expert) || llm_builder_set_i32(b, LLM_KEY_EXPERT_NORM_TOPK, d->norm_topk) ||
        llm_builder_set_i32(b, LLM_KEY_SHARED_EXPERT_FF, d->n_ff_shared) ||
        llm_builder_set_i32_array(b, LLM_KEY_EXPERT_LAYERS, sparse, (size_t)(d->layers_key_len ? d->layers_key_len : L)))
        goto done;
    for (i = 0; i < n; i++)
        if (llm_builder_add_tensor(b, t[i].name, t[i].dtype, t[i].n_dims, t[i].shape, &idx)) goto done;
    if (llm_builder_header(b, &hdr, &hdr_size) || !(file = (uint8_t *)calloc(1, (size_t)llm_builder_file_size(b)))) goto done;
    memcpy(file, hdr, hdr_size);
    for (i = 0; i < n; i++) {
        size_t count = (size_t)t[i].shape[0] * (size_t)(t[i].n_dims == 2 ? t[i].shape[1] : 1);
        uint8_t *dst = file + llm_builder_tensor_offset(b, (size_t)i);
        int expert = -1, router = strstr(t[i].name, ".mlp.gate.weight") != NULL;
        const char *x = strstr(t[i].name, ".experts.");
        if (x) expert = atoi(x + 9);
        for (k = 0; k < count; k++) {
            float v = tiny__value(&s); /* drawn for every tensor, so the models differ only where asked */
            if (router && d->zero_router) v = 0.0f;
            if (expert >= 0 && d->poison_from >= 0 && expert >= d->poison_from) v = NAN;
            tiny__store(dst, t[i].dtype, k, t[i].norm ? 1.0f + v / 4.0f : v);
        }
    }
    *size = (size_t)llm_builder_file_size(b);
done:
    llm_builder_destroy(b);
    free(t);
    return file;
}

static llm_model *open_model(const moe_desc *d, void **file) {
    llm_model *m = NULL;
    size_t size = 0;
    *file = moe_model(d, &size);
    if (*file && llm_model_open_memory(&m, *file, size, NULL) != LLM_OK) m = NULL;
    return m;
}

/* logits[MOE_SEQ][V] of a sequence evaluated in chunks of n_batch (1: token by token). */
static void run(llm_model *m, int n_batch, int n_threads, float *out) {
    llm_ctx_desc cd;
    llm_ctx *c = NULL;
    int32_t tok[MOE_SEQ];
    int i, j, V = llm_model_info_get(m)->n_vocab;
    memset(&cd, 0, sizeof cd);
    cd.n_ctx = MOE_SEQ; cd.n_batch = n_batch; cd.n_threads = n_threads; cd.kv_type = LLM_KV_F32; cd.logits_all = 1;
    for (i = 0; i < MOE_SEQ; i++) tok[i] = (int32_t)((i * 37 + 5) % V);
    if (llm_ctx_open(&c, m, &cd) != LLM_OK) { memset(out, 0xff, (size_t)MOE_SEQ * V * sizeof *out); return; }
    for (i = 0; i < MOE_SEQ; i += n_batch) {
        int n = MOE_SEQ - i < n_batch ? MOE_SEQ - i : n_batch;
        if (llm_eval(c, tok + i, (size_t)n) != LLM_OK) break;
        for (j = 0; j < n; j++) memcpy(out + (size_t)(i + j) * V, llm_logits_at(c, i + j), (size_t)V * sizeof *out);
    }
    llm_ctx_close(c);
}

static int all_finite(const float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) if (!isfinite(x[i])) return 0;
    return 1;
}

static void test_paths(void) {
    moe_desc d = moe_default();
    void *file;
    llm_model *m = open_model(&d, &file);
    size_t n = (size_t)MOE_SEQ * 64;
    float *a = (float *)calloc(n, 4), *b = (float *)calloc(n, 4), *c3 = (float *)calloc(n, 4), *t2 = (float *)calloc(n, 4);
    const llm_model_info *h;
    if (!m) { check(0, "a mixture model opens"); return; }
    h = llm_model_info_get(m);
    check(h->n_expert == 8 && h->n_expert_used == 2 && h->n_layer_sparse == 1 && m->layers[0].experts && !m->layers[1].experts &&
          h->expert_params == 8 * 3 * 32 * 32 && h->expert_bytes == (size_t)h->expert_params * 4,
          "info: 8 experts, 2 used, layer 0 sparse and layer 1 dense, %lld expert weights", (long long)h->expert_params);
    run(m, 1, 1, a);
    run(m, MOE_SEQ, 1, b);
    run(m, 3, 1, c3);
    run(m, 1, 2, t2);
    check(all_finite(a, n) && !memcmp(a, b, n * 4) && !memcmp(a, c3, n * 4),
          "token by token, one batch and batches of 3 give bitwise the same logits");
    check(!memcmp(a, t2, n * 4), "1 and 2 threads give bitwise the same logits");
    llm_model_close(m);
    free(file);
    d.n_ff_shared = 48;
    m = open_model(&d, &file);
    if (m) {
        run(m, 1, 1, a);
        run(m, MOE_SEQ, 2, b);
        check(all_finite(a, n) && !memcmp(a, b, n * 4), "with a shared expert: token by token (1 thread) = one batch (2 threads), bitwise");
        llm_model_close(m);
    } else check(0, "a model with a shared expert opens");
    free(file);
    free(a); free(b); free(c3); free(t2);
}

static void test_only_chosen_read(void) {
    moe_desc d = moe_default();
    void *fc, *fp;
    llm_model *clean, *poisoned;
    size_t n = (size_t)MOE_SEQ * 64;
    float *a = (float *)calloc(n, 4), *b = (float *)calloc(n, 4), *c = (float *)calloc(n, 4);
    d.zero_router = 1;
    clean = open_model(&d, &fc);
    d.poison_from = d.n_used;
    poisoned = open_model(&d, &fp);
    if (!clean || !poisoned) { check(0, "the tie models open"); return; }
    run(clean, 1, 1, a);
    run(poisoned, 1, 2, b);
    run(poisoned, MOE_SEQ, 1, c);
    check(all_finite(b, n) && !memcmp(a, b, n * 4) && !memcmp(a, c, n * 4),
          "ties choose experts 0 and 1, and experts 2-7 (NaN) are never read, token by token and in one batch");
    llm_model_close(clean); llm_model_close(poisoned);
    free(fc); free(fp); free(a); free(b); free(c);
}

static void test_route(void) {
    float logits[5] = { 1.0f, 3.0f, 3.0f, 2.0f, -1.0f }, p[5], wt[3], e1, e2, e3;
    int32_t sel[3];
    llm__moe_route(logits, 5, 3, 0, p, sel, wt);
    e1 = expf(1.0f - 3.0f); e2 = expf(0.0f); e3 = expf(2.0f - 3.0f);
    check(sel[0] == 1 && sel[1] == 2 && sel[2] == 3 && wt[0] == wt[1] && fabsf(wt[0] - e2 / (e1 + 2 * e2 + e3 + expf(-4.0f))) < 1e-6f,
          "route: the largest first, equal ones by lower index (1, 2, 3), softmax weights");
    llm__moe_route(logits, 5, 2, 1, p, sel, wt);
    check(sel[0] == 1 && sel[1] == 2 && wt[0] == 0.5f && wt[1] == 0.5f, "route with norm_topk: the chosen weights sum to 1");
}

static void keep_message(void *user, const char *message) { snprintf((char *)user, 256, "%s", message); }

static void moe_refused(const moe_desc *d, const char *what, const char *needle) {
    void *file;
    size_t size = 0;
    llm_model *m = NULL;
    char msg[256] = "";
    llm_model_desc md;
    llm_result r;
    memset(&md, 0, sizeof md);
    md.log = keep_message;
    md.log_user = msg;
    if (!(file = moe_model(d, &size))) { check(0, "%s: the file builds", what); return; }
    r = llm_model_open_memory(&m, file, size, &md);
    check(r == LLM_ERR_BAD_FILE && !m && strstr(msg, needle), "refused: %s (\"%s\")", what, msg);
    llm_model_close(m);
    free(file);
}

int main(void) {
    moe_desc d;
    (void)tiny_model; (void)tiny_default; /* this test builds its own models with tiny_model.h's helpers */
    test_route();
    test_paths();
    test_only_chosen_read();
    d = moe_default(); d.used_key = 9; moe_refused(&d, "expert_used_count 9 of 8 experts", "expert_used_count");
    d = moe_default(); d.layers_key_len = 3; moe_refused(&d, "expert_layers with 3 entries for 2 layers", "expert_layers");
    d = moe_default(); d.drop_expert = 7; moe_refused(&d, "a missing expert matrix", "experts.7.down_proj");
    d = moe_default(); d.no_count_key = 1; moe_refused(&d, "expert keys without llm.expert_count", "expert_count");
    return check_summary("mixture of experts: all checks passed");
}
