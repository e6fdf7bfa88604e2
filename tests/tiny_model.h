/* tiny_model.h - small seeded random models written in memory with the file writer
   (tools/llm_convert.h, whose implementation this includes), for tests and fuzz seeds that
   must not depend on files. Include after llm.h's implementation, in a file that defines
   _POSIX_C_SOURCE 200809L first.

       tiny_desc d = tiny_default();     (then change fields)
       size_t size; void *file = tiny_model(&d, &size);   (malloc'ed; NULL on failure)

   The same description and seed give the same bytes on every platform. */
#ifndef LLM_TESTS_TINY_MODEL_H
#define LLM_TESTS_TINY_MODEL_H
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tiny_desc {
    const char *arch;                 /* llama, mistral, qwen2, qwen3 */
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, n_ctx;
    llm_dtype dtype;                  /* of the matrices; norms and biases are f32 */
    int tied, bias, qk_norm, window;  /* bias: q, k, v biases; qk_norm: an llm_qk_norm; window: sliding window of every layer */
    uint32_t seed;
    /* the model switches (docs/FORMAT.md); zero is Llama's value */
    int block_norms, norm_plus_one, activation, rope_dim; /* rope_dim 0: head_dim */
    int nope_every;                   /* > 0: layers l with (l + 1) % nope_every == 0 have no RoPE */
    double rope_theta_local;          /* > 0: the layers with a window take this theta */
    double embd_scale, attn_scale, residual_scale, logits_divisor, attn_softcap, final_softcap; /* 0: not written */
} tiny_desc;

static tiny_desc tiny_default(void) {
    tiny_desc d;
    memset(&d, 0, sizeof d);
    d.arch = "llama";
    d.n_vocab = 64; d.n_embd = 32; d.n_ff = 48; d.n_layer = 2; d.n_head = 4; d.n_head_kv = 2; d.head_dim = 8;
    d.n_ctx = 64; d.dtype = LLM_DTYPE_F32; d.seed = 1;
    return d;
}

/* Integer-only generator: values are k / 64 for k in [-32, 32), exact in every dtype. */
static float tiny__value(uint32_t *s) {
    *s ^= *s << 13; *s ^= *s >> 17; *s ^= *s << 5;
    return (float)((int)(*s >> 26) - 32) / 64.0f;
}

static void tiny__store(void *dst, llm_dtype t, size_t i, float v) {
    uint16_t h;
    if (t == LLM_DTYPE_F32) { memcpy((char *)dst + 4 * i, &v, 4); return; }
    h = t == LLM_DTYPE_F16 ? llm_f32_to_f16(v) : llm_f32_to_bf16(v);
    memcpy((char *)dst + 2 * i, &h, 2);
}

typedef struct tiny__tensor { char name[96]; int n_dims; int64_t shape[2]; llm_dtype dtype; int norm; } tiny__tensor;

static int tiny__add(tiny__tensor *t, int *n, const char *name, int64_t d0, int64_t d1, llm_dtype dtype) {
    tiny__tensor *e = &t[(*n)++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->n_dims = d1 ? 2 : 1;
    e->shape[0] = d0; e->shape[1] = d1;
    e->dtype = d1 ? dtype : LLM_DTYPE_F32;
    e->norm = strstr(name, "norm") != NULL;
    return 0;
}

static void *tiny_model(const tiny_desc *d, size_t *size) {
    static const char *const proj[] = { "q", "k", "v" };
    tiny__tensor *t = (tiny__tensor *)calloc((size_t)d->n_layer * 20 + 4, sizeof *t);
    int n = 0, l, i, q_dim = d->n_head * d->head_dim, kv_dim = d->n_head_kv * d->head_dim, *windows = NULL, *ropes = NULL;
    int full = d->qk_norm == LLM_QK_NORM_FULL, pre = d->block_norms == LLM_BLOCK_PRE;
    llm_builder *b = NULL;
    const void *hdr;
    size_t hdr_size, idx, k;
    uint8_t *file = NULL;
    uint32_t s = d->seed * 2654435761u + 1;
    char name[96];
    if (!t || llm_builder_create(&b) != LLM_OK) goto done;
    tiny__add(t, &n, "model.embed_tokens.weight", d->n_vocab, d->n_embd, d->dtype);
    for (l = 0; l < d->n_layer; l++) {
#define TINY_ADD(suffix, d0, d1) snprintf(name, sizeof name, "model.layers.%d.%s", l, suffix); tiny__add(t, &n, name, d0, d1, d->dtype);
        if (d->block_norms != LLM_BLOCK_POST) { TINY_ADD("input_layernorm.weight", d->n_embd, 0) }
        TINY_ADD("self_attn.q_proj.weight", q_dim, d->n_embd)
        TINY_ADD("self_attn.k_proj.weight", kv_dim, d->n_embd)
        TINY_ADD("self_attn.v_proj.weight", kv_dim, d->n_embd)
        TINY_ADD("self_attn.o_proj.weight", d->n_embd, q_dim)
        for (i = 0; i < 3 && d->bias; i++) {
            char suffix[32];
            snprintf(suffix, sizeof suffix, "self_attn.%s_proj.bias", proj[i]);
            TINY_ADD(suffix, i ? kv_dim : q_dim, 0)
        }
        if (d->qk_norm) {
            TINY_ADD("self_attn.q_norm.weight", full ? q_dim : d->head_dim, 0)
            TINY_ADD("self_attn.k_norm.weight", full ? kv_dim : d->head_dim, 0)
        }
        TINY_ADD("post_attention_layernorm.weight", d->n_embd, 0)
        if (d->block_norms == LLM_BLOCK_SANDWICH) { TINY_ADD("pre_feedforward_layernorm.weight", d->n_embd, 0) }
        if (!pre) { TINY_ADD("post_feedforward_layernorm.weight", d->n_embd, 0) }
        TINY_ADD("mlp.gate_proj.weight", d->n_ff, d->n_embd)
        TINY_ADD("mlp.up_proj.weight", d->n_ff, d->n_embd)
        TINY_ADD("mlp.down_proj.weight", d->n_embd, d->n_ff)
#undef TINY_ADD
    }
    tiny__add(t, &n, "model.norm.weight", d->n_embd, 0, d->dtype);
    if (!d->tied) tiny__add(t, &n, "lm_head.weight", d->n_vocab, d->n_embd, d->dtype);
    if (llm_builder_set_string(b, "general.architecture", d->arch, strlen(d->arch)) ||
        llm_builder_set_i32(b, "llm.vocab_size", d->n_vocab) || llm_builder_set_i32(b, "llm.hidden_size", d->n_embd) ||
        llm_builder_set_i32(b, "llm.intermediate_size", d->n_ff) || llm_builder_set_i32(b, "llm.num_layers", d->n_layer) ||
        llm_builder_set_i32(b, "llm.num_heads", d->n_head) || llm_builder_set_i32(b, "llm.num_kv_heads", d->n_head_kv) ||
        llm_builder_set_i32(b, "llm.head_dim", d->head_dim) || llm_builder_set_i32(b, "llm.max_position_embeddings", d->n_ctx) ||
        llm_builder_set_f64(b, "llm.rms_norm_eps", 1e-5) || llm_builder_set_f64(b, "llm.rope_theta", 10000.0) ||
        llm_builder_set_i32(b, "llm.tie_word_embeddings", d->tied) || llm_builder_set_i32(b, "llm.qk_norm", d->qk_norm) ||
        llm_builder_set_i32(b, "llm.bos_token_id", 1))
        goto done;
    if (d->window) {
        if (!(windows = (int *)malloc((size_t)d->n_layer * sizeof *windows))) goto done;
        for (l = 0; l < d->n_layer; l++) windows[l] = d->window;
        if (llm_builder_set_i32_array(b, "llm.sliding_window", windows, (size_t)d->n_layer)) goto done;
    }
    if (d->nope_every > 0 || d->rope_theta_local > 0) {
        if (!(ropes = (int *)malloc((size_t)d->n_layer * sizeof *ropes))) goto done;
        for (l = 0; l < d->n_layer; l++)
            ropes[l] = d->nope_every > 0 && (l + 1) % d->nope_every == 0 ? LLM_LAYER_ROPE_NONE
                     : d->rope_theta_local > 0 && d->window ? LLM_LAYER_ROPE_LOCAL : LLM_LAYER_ROPE_GLOBAL;
        if (llm_builder_set_i32_array(b, LLM_KEY_LAYER_ROPE, ropes, (size_t)d->n_layer) ||
            (d->rope_theta_local > 0 && llm_builder_set_f64(b, LLM_KEY_ROPE_THETA_LOCAL, d->rope_theta_local)))
            goto done;
    }
    if ((d->block_norms && llm_builder_set_i32(b, LLM_KEY_BLOCK_NORMS, d->block_norms)) ||
        (d->norm_plus_one && llm_builder_set_i32(b, LLM_KEY_NORM_PLUS_ONE, 1)) ||
        (d->activation && llm_builder_set_i32(b, LLM_KEY_ACTIVATION, d->activation)) ||
        (d->rope_dim && llm_builder_set_i32(b, LLM_KEY_ROPE_DIM, d->rope_dim)) ||
        (d->embd_scale > 0 && llm_builder_set_f64(b, LLM_KEY_EMBD_SCALE, d->embd_scale)) ||
        (d->attn_scale > 0 && llm_builder_set_f64(b, LLM_KEY_ATTN_SCALE, d->attn_scale)) ||
        (d->residual_scale > 0 && llm_builder_set_f64(b, LLM_KEY_RESIDUAL_SCALE, d->residual_scale)) ||
        (d->logits_divisor > 0 && llm_builder_set_f64(b, LLM_KEY_LOGITS_DIVISOR, d->logits_divisor)) ||
        (d->attn_softcap > 0 && llm_builder_set_f64(b, LLM_KEY_ATTN_SOFTCAP, d->attn_softcap)) ||
        (d->final_softcap > 0 && llm_builder_set_f64(b, LLM_KEY_FINAL_SOFTCAP, d->final_softcap)))
        goto done;
    for (i = 0; i < n; i++)
        if (llm_builder_add_tensor(b, t[i].name, t[i].dtype, t[i].n_dims, t[i].shape, &idx)) goto done;
    if (llm_builder_header(b, &hdr, &hdr_size) || !(file = (uint8_t *)calloc(1, (size_t)llm_builder_file_size(b)))) goto done;
    memcpy(file, hdr, hdr_size);
    for (i = 0; i < n; i++) {
        size_t count = (size_t)t[i].shape[0] * (size_t)(t[i].n_dims == 2 ? t[i].shape[1] : 1);
        uint8_t *dst = file + llm_builder_tensor_offset(b, (size_t)i);
        for (k = 0; k < count; k++) {
            float v = tiny__value(&s);
            tiny__store(dst, t[i].dtype, k, t[i].norm ? 1.0f + v / 4.0f : v);
        }
    }
    *size = (size_t)llm_builder_file_size(b);
done:
    llm_builder_destroy(b);
    free(windows);
    free(ropes);
    free(t);
    return file;
}

#endif
