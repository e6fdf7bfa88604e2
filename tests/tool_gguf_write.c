/* tool_gguf_write: a converted model (an f32 .llm made from a HuggingFace checkpoint) as the
   GGUF llama.cpp's convert_hf_to_gguf.py writes for its architecture, to test the GGUF import
   of families there are no llama.cpp files of here (tests/test_gguf_families.sh).

   tool_gguf_write ARCH MODEL.llm OUT.gguf

   As the converter lays them out: the hyper-parameters under "ARCH." (llama.cpp's key names),
   bos and eos ids, the tensors under their GGUF names (blk.N.attn_q.weight ...), every one F32,
   the rows of Q and K permuted for the interleaved RoPE of the architectures whose
   LlamaModel.permute applies (llama, granite, smollm3), and the experts of a layer stacked
   into one [n_expert, rows, cols] tensor (blk.N.ffn_gate_exps.weight ...), Gemma's norm
   weights plus one (Gemma2Model.modify_tensors; in float32, as for a float32 checkpoint) and
   its sandwich norms under llama.cpp's names, and a llama3 rope scaling as the factors of
   rope_freqs.weight. WINDOW: the sliding window to record (Gemma).
   No tokenizer.

   tool_gguf_write ARCH MODEL.llm OUT.gguf [WINDOW] */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct { uint8_t *p; size_t n, cap; } buf;
static void put(buf *b, const void *s, size_t n) {
    if (b->n + n > b->cap) { b->cap = (b->n + n) * 2; b->p = (uint8_t *)realloc(b->p, b->cap); if (!b->p) exit(2); }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void put32(buf *b, uint32_t v) { uint8_t x[4]; int i; for (i = 0; i < 4; i++) x[i] = (uint8_t)(v >> 8 * i); put(b, x, 4); }
static void put64(buf *b, uint64_t v) { put32(b, (uint32_t)v); put32(b, (uint32_t)(v >> 32)); }
static void putstr(buf *b, const char *s) { put64(b, strlen(s)); put(b, s, strlen(s)); }

static buf meta;
static int n_kv;
static const char *arch;
static void key(const char *k, uint32_t type) { char s[160]; snprintf(s, sizeof s, "%s.%s", arch, k); putstr(&meta, s); put32(&meta, type); n_kv++; }
static void kv_u32(const char *k, uint32_t v) { key(k, 4); put32(&meta, v); }
static void kv_f32(const char *k, float v) { uint32_t u; memcpy(&u, &v, 4); key(k, 6); put32(&meta, u); }

/* one tensor: name, ne (ggml order), the f32 values */
typedef struct { char name[96]; int n_dims; uint64_t ne[3]; float *data; } gt;
static gt ts[4096];
static int n_ts;
static int gemma;

static float *tensor_rows(const llm_tensor *w, uint64_t *rows, uint64_t *cols) {
    *cols = (uint64_t)w->shape[w->n_dims - 1];
    *rows = w->n_dims == 1 ? 1 : (uint64_t)w->shape[0];
    if (w->dtype != LLM_DTYPE_F32) { fprintf(stderr, "tool_gguf_write: %s is not f32\n", w->name); exit(2); }
    return (float *)w->data;
}

/* HF row of GGUF row r: llama.cpp stores HF row h*hd + j*(hd/2) + i at h*hd + 2i + j. */
static uint64_t hf_row(uint64_t r, uint64_t hd) { return r / hd * hd + (r % hd % 2) * (hd / 2) + r % hd / 2; }

static void add(const llm_model *m, const char *hf, const char *gname, int permute_heads) {
    const llm_tensor *w = llm_model_tensor(m, hf);
    gt *t;
    uint64_t rows, cols, r;
    float *src;
    if (!w) return;
    t = &ts[n_ts++];
    src = tensor_rows(w, &rows, &cols);
    snprintf(t->name, sizeof t->name, "%s", gname);
    t->n_dims = strstr(gname, "ffn_gate_inp_shexp") ? 1 : w->n_dims; /* llama.cpp's {n_embd} for HF's [1, hidden] */
    t->ne[0] = cols; t->ne[1] = rows;
    t->data = (float *)malloc((size_t)(rows * cols) * sizeof(float));
    for (r = 0; r < rows; r++)
        memcpy(t->data + r * cols, src + (permute_heads ? hf_row(r, rows / (uint64_t)permute_heads) : r) * cols, (size_t)cols * sizeof(float));
    if (gemma && strlen(hf) > 11 && !strcmp(hf + strlen(hf) - 11, "norm.weight"))
        for (r = 0; r < rows * cols; r++) t->data[r] = t->data[r] + 1.0f;
}

static void add_experts(const llm_model *m, int l, const char *proj, const char *gname, int n_expert) {
    gt *t = &ts[n_ts];
    uint64_t rows = 0, cols = 0;
    int e;
    char hf[160];
    if (n_expert == 0) return;
    for (e = 0; e < n_expert; e++) {
        const llm_tensor *w;
        float *src;
        snprintf(hf, sizeof hf, "model.layers.%d.mlp.experts.%d.%s.weight", l, e, proj);
        if (!(w = llm_model_tensor(m, hf))) return;
        src = tensor_rows(w, &rows, &cols);
        if (e == 0) t->data = (float *)malloc((size_t)(n_expert * rows * cols) * sizeof(float));
        memcpy(t->data + (size_t)e * rows * cols, src, (size_t)(rows * cols) * sizeof(float));
    }
    snprintf(t->name, sizeof t->name, "blk.%d.%s", l, gname);
    t->n_dims = 3; t->ne[0] = cols; t->ne[1] = rows; t->ne[2] = (uint64_t)n_expert;
    n_ts++;
}

int main(int argc, char **argv) {
    static const char *const names[][2] = {
        { "input_layernorm", "attn_norm" }, { "self_attn.q_proj", "attn_q" }, { "self_attn.k_proj", "attn_k" },
        { "self_attn.v_proj", "attn_v" }, { "self_attn.o_proj", "attn_output" }, { "self_attn.q_norm", "attn_q_norm" },
        { "self_attn.k_norm", "attn_k_norm" }, { "mlp.gate_proj", "ffn_gate" }, { "mlp.up_proj", "ffn_up" },
        { "mlp.down_proj", "ffn_down" }, { "post_feedforward_layernorm", "post_ffw_norm" }, { "mlp.gate", "ffn_gate_inp" },
        { "pre_feedforward_layernorm", "ffn_norm" },
        { "mlp.shared_expert.gate_proj", "ffn_gate_shexp" }, { "mlp.shared_expert.up_proj", "ffn_up_shexp" },
        { "mlp.shared_expert.down_proj", "ffn_down_shexp" }, { "mlp.shared_expert_gate", "ffn_gate_inp_shexp" },
    };
    llm_model *m;
    const llm_model_info *in;
    buf b = { NULL, 0, 0 };
    uint64_t off = 0;
    int l, i, permute;
    FILE *f;
    char hf[160], gname[160];
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: tool_gguf_write ARCH MODEL.llm OUT.gguf [WINDOW]\n"); return 2; }
    arch = argv[1];
    gemma = !strncmp(arch, "gemma", 5);
    permute = !strcmp(arch, "llama") || !strcmp(arch, "granite") || !strcmp(arch, "smollm3");
    if (llm_model_open(&m, argv[2], NULL) != LLM_OK) { fprintf(stderr, "tool_gguf_write: cannot open %s\n", argv[2]); return 2; }
    in = llm_model_info_get(m);
    kv_u32("block_count", (uint32_t)in->n_layer); kv_u32("embedding_length", (uint32_t)in->n_embd);
    kv_u32("feed_forward_length", (uint32_t)in->n_ff); kv_u32("attention.head_count", (uint32_t)in->n_head);
    kv_u32("attention.head_count_kv", (uint32_t)in->n_head_kv); kv_u32("attention.key_length", (uint32_t)in->head_dim);
    kv_u32("attention.value_length", (uint32_t)in->head_dim); kv_u32("context_length", (uint32_t)in->n_ctx_train);
    kv_f32("attention.layer_norm_rms_epsilon", in->rms_eps); kv_f32("rope.freq_base", (float)in->rope_theta);
    kv_u32("rope.dimension_count", (uint32_t)in->rope_dim);
    if (argc == 5) kv_u32("attention.sliding_window", (uint32_t)atoi(argv[4]));
    if (!strcmp(arch, "gemma2")) { kv_f32("attn_logit_softcapping", in->attn_softcap); kv_f32("final_logit_softcapping", in->final_softcap); }
    if (!strcmp(arch, "granite")) {
        kv_f32("embedding_scale", in->embd_scale); kv_f32("residual_scale", in->residual_scale);
        kv_f32("attention.scale", in->attn_scale); kv_f32("logit_scale", in->logits_divisor);
    }
    if (in->n_expert) {
        kv_u32("expert_count", (uint32_t)in->n_expert); kv_u32("expert_used_count", (uint32_t)in->n_expert_used);
        if (strcmp(arch, "llama") && strcmp(arch, "olmoe")) kv_u32("expert_feed_forward_length", (uint32_t)in->n_ff_expert);
        if (in->n_ff_shared) kv_u32("expert_shared_feed_forward_length", (uint32_t)in->n_ff_shared);
    }
    putstr(&meta, "general.architecture"); put32(&meta, 8); putstr(&meta, arch); n_kv++;
    if (in->bos_id >= 0) { putstr(&meta, "tokenizer.ggml.bos_token_id"); put32(&meta, 4); put32(&meta, (uint32_t)in->bos_id); n_kv++; }
    if (in->n_stop_ids) { putstr(&meta, "tokenizer.ggml.eos_token_id"); put32(&meta, 4); put32(&meta, (uint32_t)in->stop_ids[0]); n_kv++; }
    if (in->rope_scaling == LLM_ROPE_LLAMA3) { /* LlamaModel.generate_extra_tensors: rope_freqs.weight */
        gt *t = &ts[n_ts++];
        int k, half = in->rope_dim / 2;
        double lo_wl = in->rope_original_max_pos / in->rope_low_freq_factor, hi_wl = in->rope_original_max_pos / in->rope_high_freq_factor;
        snprintf(t->name, sizeof t->name, "rope_freqs.weight");
        t->n_dims = 1; t->ne[0] = (uint64_t)half; t->ne[1] = 1;
        t->data = (float *)malloc((size_t)half * sizeof(float));
        for (k = 0; k < half; k++) {
            float freq = 1.0f / powf((float)in->rope_theta, (float)(2 * k) / (float)in->rope_dim);
            double wl = 2 * 3.14159265358979323846 / freq, smooth;
            if (wl < hi_wl) t->data[k] = 1.0f;
            else if (wl > lo_wl) t->data[k] = in->rope_factor;
            else {
                smooth = (in->rope_original_max_pos / wl - in->rope_low_freq_factor) / (in->rope_high_freq_factor - in->rope_low_freq_factor);
                t->data[k] = (float)(1 / ((1 - smooth) / in->rope_factor + smooth));
            }
        }
    }
    add(m, "model.embed_tokens.weight", "token_embd.weight", 0);
    add(m, "model.norm.weight", "output_norm.weight", 0);
    if (!in->tied_embeddings) add(m, "lm_head.weight", "output.weight", 0);
    for (l = 0; l < in->n_layer; l++) {
        for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
            int heads = !permute ? 0 : i == 1 ? in->n_head : i == 2 ? in->n_head_kv : 0;
            snprintf(hf, sizeof hf, "model.layers.%d.%s.weight", l, names[i][0]);
            snprintf(gname, sizeof gname, "blk.%d.%s.weight", l, names[i][1]);
            add(m, hf, gname, heads);
        }
        /* post_attention_layernorm: before the feed-forward of a pre-norm block, after the
           attention of a post-norm one (OLMo 2) */
        snprintf(hf, sizeof hf, "model.layers.%d.post_attention_layernorm.weight", l);
        snprintf(gname, sizeof gname, "blk.%d.%s.weight", l, in->block_norms == LLM_BLOCK_PRE ? "ffn_norm" : "post_attention_norm");
        /* (a sandwich block's ffn_norm is its pre_feedforward_layernorm, above) */
        add(m, hf, gname, 0);
        for (i = 0; i < 4; i++) { /* biases: a row each, permuted as their matrix */
            static const char *const bias[4][2] = { { "q_proj", "attn_q" }, { "k_proj", "attn_k" }, { "v_proj", "attn_v" }, { "o_proj", "attn_output" } };
            snprintf(hf, sizeof hf, "model.layers.%d.self_attn.%s.bias", l, bias[i][0]);
            snprintf(gname, sizeof gname, "blk.%d.%s.bias", l, bias[i][1]);
            add(m, hf, gname, 0);
            if (permute && i < 2 && llm_model_tensor(m, hf)) { /* one column: permute its elements */
                gt *t = &ts[n_ts - 1];
                uint64_t r, n = t->ne[0], hd = n / (uint64_t)(i == 0 ? in->n_head : in->n_head_kv);
                float *c = (float *)malloc((size_t)n * sizeof(float));
                memcpy(c, t->data, (size_t)n * sizeof(float));
                for (r = 0; r < n; r++) t->data[r] = c[hf_row(r, hd)];
                free(c);
            }
        }
        add_experts(m, l, "gate_proj", "ffn_gate_exps.weight", in->n_expert);
        add_experts(m, l, "up_proj", "ffn_up_exps.weight", in->n_expert);
        add_experts(m, l, "down_proj", "ffn_down_exps.weight", in->n_expert);
    }
    put(&b, "GGUF", 4); put32(&b, 3); put64(&b, (uint64_t)n_ts); put64(&b, (uint64_t)n_kv);
    put(&b, meta.p, meta.n);
    for (i = 0; i < n_ts; i++) {
        int d;
        uint64_t n = 1;
        putstr(&b, ts[i].name); put32(&b, (uint32_t)ts[i].n_dims);
        for (d = 0; d < ts[i].n_dims; d++) { put64(&b, ts[i].ne[d]); n *= ts[i].ne[d]; }
        put32(&b, 0); put64(&b, off);
        off = (off + n * 4 + 31) / 32 * 32;
    }
    while (b.n % 32) put(&b, "", 1);
    for (i = 0; i < n_ts; i++) {
        int d;
        uint64_t n = 1;
        for (d = 0; d < ts[i].n_dims; d++) n *= ts[i].ne[d];
        put(&b, ts[i].data, (size_t)n * 4); /* little-endian hosts */
        while (b.n % 32) put(&b, "", 1);
        free(ts[i].data);
    }
    if (!(f = fopen(argv[3], "wb")) || fwrite(b.p, 1, b.n, f) != b.n || fclose(f) != 0) { fprintf(stderr, "tool_gguf_write: cannot write %s\n", argv[3]); return 2; }
    printf("%s: %d tensors, %d metadata entries (%s)\n", argv[3], n_ts, n_kv, arch);
    llm_model_close(m);
    free(meta.p);
    free(b.p);
    return 0;
}
