/* test_badfile: bad model files, API misuse and broken HuggingFace directories.

   Every case must give its specific error code and a message (printed here), never a
   crash or a read outside the buffer: the file cases are opened from an allocation of
   exactly the file's size, so valgrind or a sanitizer sees any overread. The converter
   cases build small broken HF directories and run build/convert on them: each must exit
   non-zero with a message naming what is wrong and leave no output file. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(_WIN32)
#include <direct.h>
#define WIFEXITED(status) 1
#define WEXITSTATUS(status) (status)
#else
#include <sys/wait.h>
#endif

/* $BUILD/tests/badfile, and the converter under test is $BUILD/convert (BUILD: build) */
static char out_dir[200];
static const char *build_dir = "build";

/* out_dir + name, in one of a few static buffers */
static const char *outp(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s%s", out_dir, name);
    return buf[k];
}

static char last_msg[512];

static void capture(void *user, const char *msg) {
    (void)user;
    snprintf(last_msg, sizeof last_msg, "%s", msg);
}

/* Opens a copy of buf[0..size) in an allocation of exactly that size. */
static llm_result open_copy(const uint8_t *buf, size_t size, llm_model **m) {
    llm_model_desc d;
    uint8_t *copy = (uint8_t *)malloc(size ? size : 1);
    llm_result r;
    memset(&d, 0, sizeof d);
    d.log = capture;
    last_msg[0] = 0;
    if (size) memcpy(copy, buf, size);
    r = llm_model_open_memory(m, copy, size, &d);
    if (r == LLM_OK) {
        /* the model uses the buffer in place: run it once, then release both */
        llm_ctx *c;
        int32_t t[3] = { 0, 1, 2 };
        llm_ctx_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.n_threads = 1;
        if (llm_ctx_open(&c, *m, &cd) == LLM_OK) {
            llm_eval(c, t, 3);
            llm_ctx_close(c);
        }
        llm_model_close(*m);
        *m = NULL;
    }
    free(copy);
    return r;
}

/* ---- a valid small model, and variations of it ------------------------------------------- */
typedef struct recipe {
    const char *omit_key;        /* a metadata key left out */
    const char *omit_tensor;     /* a tensor left out */
    const char *reshape_tensor;  /* a tensor whose first dimension is one larger */
    const char *f16_tensor;      /* a tensor stored as f16 */
    void (*first)(llm_builder *b); /* entries written before the standard ones take precedence */
} recipe;

enum { VOCAB = 16, HIDDEN = 8, FF = 12, LAYERS = 2, HEADS = 2, KV_HEADS = 1, HEAD_DIM = 4 };

static void meta_i32(llm_builder *b, const recipe *r, const char *key, int32_t v) {
    if (!r->omit_key || strcmp(r->omit_key, key)) llm_builder_set_i32(b, key, v);
}

static void meta_f64(llm_builder *b, const recipe *r, const char *key, double v) {
    if (!r->omit_key || strcmp(r->omit_key, key)) llm_builder_set_f64(b, key, v);
}

typedef struct spec_tensor { char name[64]; int n_dims; int64_t shape[2]; llm_dtype dtype; size_t idx; } spec_tensor;

static int add_tensor(llm_builder *b, const recipe *r, spec_tensor *list, int n, const char *name, int64_t d0, int64_t d1) {
    spec_tensor *t = &list[n];
    if (r->omit_tensor && !strcmp(r->omit_tensor, name)) return n;
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = d1 ? 2 : 1;
    t->shape[0] = d0 + (r->reshape_tensor && !strcmp(r->reshape_tensor, name));
    t->shape[1] = d1;
    t->dtype = r->f16_tensor && !strcmp(r->f16_tensor, name) ? LLM_DTYPE_F16 : LLM_DTYPE_F32;
    if (llm_builder_add_tensor(b, t->name, t->dtype, t->n_dims, t->shape, &t->idx) != LLM_OK) {
        fprintf(stderr, "builder refused %s\n", name);
        exit(2);
    }
    return n + 1;
}

/* A 2-layer llama: vocab 16, hidden 8, 2 heads of 4, 1 kv head, intermediate 12. */
static uint8_t *build(const recipe *r, size_t *size) {
    static const int32_t eos[1] = { 2 };
    llm_builder *b;
    spec_tensor t[64];
    const void *hdr;
    size_t hdr_size, i, k;
    int n = 0, l;
    uint8_t *buf;
    char name[64];
    llm_builder_create(&b);
    if (r->first) r->first(b);
    if (!r->omit_key || strcmp(r->omit_key, "general.architecture")) llm_builder_set_string(b, "general.architecture", "llama", 5);
    meta_i32(b, r, "llm.vocab_size", VOCAB);
    meta_i32(b, r, "llm.hidden_size", HIDDEN);
    meta_i32(b, r, "llm.intermediate_size", FF);
    meta_i32(b, r, "llm.num_layers", LAYERS);
    meta_i32(b, r, "llm.num_heads", HEADS);
    meta_i32(b, r, "llm.num_kv_heads", KV_HEADS);
    meta_i32(b, r, "llm.head_dim", HEAD_DIM);
    meta_i32(b, r, "llm.max_position_embeddings", 64);
    meta_f64(b, r, "llm.rms_norm_eps", 1e-5);
    meta_f64(b, r, "llm.rope_theta", 10000.0);
    meta_i32(b, r, "llm.tie_word_embeddings", 0);
    meta_i32(b, r, "llm.bos_token_id", 1);
    llm_builder_set_i32_array(b, "llm.eos_token_ids", eos, 1);
    n = add_tensor(b, r, t, n, "model.embed_tokens.weight", VOCAB, HIDDEN);
    for (l = 0; l < LAYERS; l++) {
#define LAYER(suffix) (snprintf(name, sizeof name, "model.layers.%d.%s", l, suffix), name)
        n = add_tensor(b, r, t, n, LAYER("input_layernorm.weight"), HIDDEN, 0);
        n = add_tensor(b, r, t, n, LAYER("self_attn.q_proj.weight"), HEADS * HEAD_DIM, HIDDEN);
        n = add_tensor(b, r, t, n, LAYER("self_attn.k_proj.weight"), KV_HEADS * HEAD_DIM, HIDDEN);
        n = add_tensor(b, r, t, n, LAYER("self_attn.v_proj.weight"), KV_HEADS * HEAD_DIM, HIDDEN);
        n = add_tensor(b, r, t, n, LAYER("self_attn.o_proj.weight"), HIDDEN, HEADS * HEAD_DIM);
        n = add_tensor(b, r, t, n, LAYER("post_attention_layernorm.weight"), HIDDEN, 0);
        n = add_tensor(b, r, t, n, LAYER("mlp.gate_proj.weight"), FF, HIDDEN);
        n = add_tensor(b, r, t, n, LAYER("mlp.up_proj.weight"), FF, HIDDEN);
        n = add_tensor(b, r, t, n, LAYER("mlp.down_proj.weight"), HIDDEN, FF);
#undef LAYER
    }
    n = add_tensor(b, r, t, n, "model.norm.weight", HIDDEN, 0);
    n = add_tensor(b, r, t, n, "lm_head.weight", VOCAB, HIDDEN);
    if (llm_builder_header(b, &hdr, &hdr_size) != LLM_OK) { fprintf(stderr, "builder failed\n"); exit(2); }
    *size = (size_t)llm_builder_file_size(b);
    buf = (uint8_t *)calloc(*size, 1);
    memcpy(buf, hdr, hdr_size);
    for (i = 0; i < (size_t)n; i++) {
        uint8_t *p = buf + llm_builder_tensor_offset(b, t[i].idx);
        size_t count = (size_t)(t[i].shape[0] * (t[i].n_dims == 2 ? t[i].shape[1] : 1));
        for (k = 0; k < count; k++) {
            float v = t[i].n_dims == 1 ? 1.0f : 0.05f * (float)((int)((k * 7 + i) % 11) - 5);
            if (t[i].dtype == LLM_DTYPE_F32) memcpy(p + 4 * k, &v, 4);
            else { uint16_t h = llm_f32_to_f16(v); memcpy(p + 2 * k, &h, 2); }
        }
    }
    llm_builder_destroy(b);
    return buf;
}

/* ---- where things are in a built file -------------------------------------------------- */
static uint64_t rd64(const uint8_t *p) { uint64_t v = 0; int i; for (i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr64(uint8_t *p, uint64_t v) { int i; for (i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void wr32(uint8_t *p, uint32_t v) { int i; for (i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }

enum { H_VERSION = 4, H_FILE_SIZE = 8, H_META_OFF = 16, H_META_SIZE = 24, H_TAB_OFF = 32, H_TAB_SIZE = 40,
       H_N_TENSORS = 48, H_DATA_OFF = 56, H_CHECKSUM = 64, H_END = 72 };

/* The hash H of docs/FORMAT.md ("Hash"), written here from the text rather than taken from
   llm.h, so that the file format is checked against its description. */
static uint64_t fmt_hash(uint64_t h, const uint8_t *p, size_t n) {
    for (; n >= 8; p += 8, n -= 8) {
        h = (h ^ rd64(p)) * 0x100000001B3ull;
        h ^= h >> 31;
    }
    for (; n; p++, n--) h = (h ^ *p) * 0x100000001B3ull;
    return h;
}

/* Writes the header checksum again after a patch, so that a crafted file reaches the check it
   was made for instead of stopping at the checksum. Nothing to do when the header's tensor
   data offset is outside the buffer (the header's own checks refuse that first). */
static void reseal(uint8_t *b, size_t n) {
    uint64_t data_off;
    if (n < H_END) return;
    data_off = rd64(b + H_DATA_OFF);
    if (data_off < H_END || data_off > n) return;
    wr64(b + H_CHECKSUM, fmt_hash(fmt_hash(0xCBF29CE484222325ull, b, 64), b + H_END, (size_t)data_off - H_END));
}
enum { T_DTYPE, T_NDIMS, T_DIM0, T_DIM1, T_OFFSET, T_SIZE };

/* Byte position of a field of tensor table entry i. */
static size_t tensor_field(const uint8_t *buf, int i, int field) {
    size_t p = (size_t)rd64(buf + H_TAB_OFF);
    uint32_t nd;
    int k;
    for (k = 0;; k++) {
        size_t name_end = p + 4 + rd32(buf + p);
        nd = rd32(buf + name_end + 4);
        if (k == i) {
            switch (field) {
            case T_DTYPE: return name_end;
            case T_NDIMS: return name_end + 4;
            case T_DIM0: return name_end + 8;
            case T_DIM1: return name_end + 16;
            case T_OFFSET: return name_end + 8 + 8 * nd;
            default: return name_end + 16 + 8 * nd;
            }
        }
        p = name_end + 8 + 8 * nd + 16;
    }
}

/* Byte position of the value-size field of metadata entry i. */
static size_t meta_entry(const uint8_t *buf, int i) {
    size_t p = (size_t)rd64(buf + H_META_OFF) + 8;
    int k;
    for (k = 0; k < i; k++) {
        size_t key_end = p + 4 + rd32(buf + p);
        p = key_end + 12 + (size_t)rd64(buf + key_end + 4);
    }
    return p;
}

/* ---- the bad files ---------------------------------------------------------------------- */
static void p_magic(uint8_t *b, size_t n) { (void)n; memcpy(b, "LLMX", 4); }
static void p_gguf(uint8_t *b, size_t n) { (void)n; memcpy(b, "GGUF", 4); }
static void p_version(uint8_t *b, size_t n) { (void)n; wr32(b + H_VERSION, 1); }
static void p_version2(uint8_t *b, size_t n) { (void)n; wr32(b + H_VERSION, 2); }
static void p_version4(uint8_t *b, size_t n) { (void)n; wr32(b + H_VERSION, 4); }
/* entry 3 (k_proj) renamed to entry 2's name (q_proj, the same length) */
static void p_duplicate_name(uint8_t *b, size_t n) {
    size_t q = tensor_field(b, 2, T_DTYPE), k = tensor_field(b, 3, T_DTYPE), len = strlen("model.layers.0.self_attn.q_proj.weight");
    (void)n;
    memcpy(b + k - len, b + q - len, len);
}
static void p_size_long(uint8_t *b, size_t n) { wr64(b + H_FILE_SIZE, n + 64); }
static void p_size_short(uint8_t *b, size_t n) { wr64(b + H_FILE_SIZE, n - 64); }
static void p_meta_past_end(uint8_t *b, size_t n) { wr64(b + H_META_OFF, n + 1); }
static void p_meta_in_header(uint8_t *b, size_t n) { (void)n; wr64(b + H_META_OFF, 8); }
static void p_meta_size_huge(uint8_t *b, size_t n) { (void)n; wr64(b + H_META_SIZE, UINT64_MAX - 8); }
static void p_tab_past_end(uint8_t *b, size_t n) { wr64(b + H_TAB_OFF, n); }
static void p_tab_size_huge(uint8_t *b, size_t n) { (void)n; wr64(b + H_TAB_SIZE, (uint64_t)1 << 63); }
static void p_n_tensors_huge(uint8_t *b, size_t n) { (void)n; wr64(b + H_N_TENSORS, (uint64_t)1 << 40); }
static void p_n_tensors_more(uint8_t *b, size_t n) { (void)n; wr64(b + H_N_TENSORS, rd64(b + H_N_TENSORS) + 1); }
static void p_data_misaligned(uint8_t *b, size_t n) { (void)n; wr64(b + H_DATA_OFF, rd64(b + H_DATA_OFF) + 8); }
static void p_data_past_end(uint8_t *b, size_t n) { wr64(b + H_DATA_OFF, (n + 64) / 64 * 64); }
static void p_data_over_table(uint8_t *b, size_t n) { (void)n; wr64(b + H_DATA_OFF, rd64(b + H_DATA_OFF) - 64); }
static void p_meta_count_huge(uint8_t *b, size_t n) { (void)n; wr64(b + rd64(b + H_META_OFF), (uint64_t)1 << 60); }
static void p_meta_value_huge(uint8_t *b, size_t n) {
    size_t p = meta_entry(b, 1);
    (void)n;
    wr64(b + p + 4 + rd32(b + p) + 4, UINT64_MAX);
}
static void p_meta_key_empty(uint8_t *b, size_t n) { (void)n; wr32(b + meta_entry(b, 2), 0); }
static void p_tensor_offset_past_end(uint8_t *b, size_t n) { wr64(b + tensor_field(b, 3, T_OFFSET), n); }
static void p_tensor_offset_huge(uint8_t *b, size_t n) { (void)n; wr64(b + tensor_field(b, 3, T_OFFSET), UINT64_MAX - 63); }
static void p_tensor_misaligned(uint8_t *b, size_t n) { size_t p = tensor_field(b, 3, T_OFFSET); (void)n; wr64(b + p, rd64(b + p) + 4); }
static void p_tensor_overlap(uint8_t *b, size_t n) { (void)n; wr64(b + tensor_field(b, 3, T_OFFSET), rd64(b + tensor_field(b, 2, T_OFFSET))); }
static void p_tensor_size(uint8_t *b, size_t n) { size_t p = tensor_field(b, 3, T_SIZE); (void)n; wr64(b + p, rd64(b + p) + 4); }
static void p_tensor_dtype(uint8_t *b, size_t n) { (void)n; wr32(b + tensor_field(b, 3, T_DTYPE), 77); }
static void p_tensor_ndims0(uint8_t *b, size_t n) { (void)n; wr32(b + tensor_field(b, 3, T_NDIMS), 0); }
static void p_tensor_ndims5(uint8_t *b, size_t n) { (void)n; wr32(b + tensor_field(b, 3, T_NDIMS), 5); }
static void p_dim_zero(uint8_t *b, size_t n) { (void)n; wr64(b + tensor_field(b, 3, T_DIM0), 0); }
static void p_dim_huge(uint8_t *b, size_t n) { (void)n; wr64(b + tensor_field(b, 3, T_DIM0), UINT64_MAX); }
static void p_dims_overflow(uint8_t *b, size_t n) { /* 2^33 x 2^33 = 2^66 elements */
    (void)n;
    wr64(b + tensor_field(b, 3, T_DIM0), (uint64_t)1 << 33);
    wr64(b + tensor_field(b, 3, T_DIM1), (uint64_t)1 << 33);
}
static void p_dims_size_wraps(uint8_t *b, size_t n) { /* 2^31 x 2^31 f32 = 2^64 bytes: wraps to the real size 0 */
    (void)n;
    wr64(b + tensor_field(b, 3, T_DIM0), (uint64_t)1 << 31);
    wr64(b + tensor_field(b, 3, T_DIM1), (uint64_t)1 << 31);
}
static void p_name_nul(uint8_t *b, size_t n) { (void)n; b[tensor_field(b, 3, T_DTYPE) - 3] = 0; }
static void p_name_long(uint8_t *b, size_t n) { (void)n; wr32(b + rd64(b + H_TAB_OFF), 100000); }

static void m_vocab_zero(llm_builder *b) { llm_builder_set_i32(b, "llm.vocab_size", 0); }
static void m_vocab_f64(llm_builder *b) { llm_builder_set_f64(b, "llm.vocab_size", 16.0); }
static void m_kv_heads_3(llm_builder *b) { llm_builder_set_i32(b, "llm.num_kv_heads", 3); }
static void m_kv_heads_0(llm_builder *b) { llm_builder_set_i32(b, "llm.num_kv_heads", 0); }
static void m_head_dim_odd(llm_builder *b) { llm_builder_set_i32(b, "llm.head_dim", 5); }
static void m_hidden_huge(llm_builder *b) { llm_builder_set_i32(b, "llm.hidden_size", 0x7fffffff); }
static void m_layers_negative(llm_builder *b) { llm_builder_set_i32(b, "llm.num_layers", -1); }
static void m_layers_huge(llm_builder *b) { llm_builder_set_i32(b, "llm.num_layers", 1 << 20); }
static void m_theta_nan(llm_builder *b) { llm_builder_set_f64(b, "llm.rope_theta", NAN); }
static void m_eps_negative(llm_builder *b) { llm_builder_set_f64(b, "llm.rms_norm_eps", -1.0); }
static void m_arch_gpt2(llm_builder *b) { llm_builder_set_string(b, "general.architecture", "gpt2", 4); }
static void m_rope_scaling_9(llm_builder *b) { llm_builder_set_i32(b, "llm.rope_scaling", 9); }
static void m_llama3_no_params(llm_builder *b) { llm_builder_set_i32(b, "llm.rope_scaling", LLM_ROPE_LLAMA3); }
static void m_bos_outside(llm_builder *b) { llm_builder_set_i32(b, "llm.bos_token_id", 16); }
static void m_eos_outside(llm_builder *b) { const int32_t e[2] = { 2, 99 }; llm_builder_set_i32_array(b, "llm.eos_token_ids", e, 2); }
static void m_eos_too_many(llm_builder *b) { const int32_t e[9] = { 0 }; llm_builder_set_i32_array(b, "llm.eos_token_ids", e, 9); }
static void m_window_short(llm_builder *b) { const int32_t w[1] = { 4 }; llm_builder_set_i32_array(b, "llm.sliding_window", w, 1); }
static void m_window_negative(llm_builder *b) { const int32_t w[2] = { 4, -4 }; llm_builder_set_i32_array(b, "llm.sliding_window", w, 2); }
static void m_qk_norm(llm_builder *b) { llm_builder_set_i32(b, "llm.qk_norm", 1); }
static void m_qk_norm_full(llm_builder *b) { llm_builder_set_i32(b, "llm.qk_norm", LLM_QK_NORM_FULL); }
static void m_qk_norm_3(llm_builder *b) { llm_builder_set_i32(b, "llm.qk_norm", 3); }
static void m_block_norms_3(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_BLOCK_NORMS, 3); }
static void m_sandwich(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_BLOCK_NORMS, LLM_BLOCK_SANDWICH); }
static void m_activation_3(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_ACTIVATION, 3); }
static void m_rope_dim_odd(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_ROPE_DIM, 3); }
static void m_rope_dim_big(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_ROPE_DIM, 6); }
static void m_softcap_negative(llm_builder *b) { llm_builder_set_f64(b, LLM_KEY_ATTN_SOFTCAP, -1.0); }
static void m_logits_divisor_0(llm_builder *b) { llm_builder_set_f64(b, LLM_KEY_LOGITS_DIVISOR, 0.0); }
static void m_pooling_4(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_POOLING, 4); }
static void m_pooling_model(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_POOLING, LLM_POOLING_MODEL); }
static void m_normalize_2(llm_builder *b) { llm_builder_set_i32(b, LLM_KEY_EMBD_NORMALIZE, 2); }
static void m_layer_rope_3(llm_builder *b) { const int32_t r[2] = { 1, 3 }; llm_builder_set_i32_array(b, LLM_KEY_LAYER_ROPE, r, 2); }
static void m_layer_rope_short(llm_builder *b) { const int32_t r[1] = { 1 }; llm_builder_set_i32_array(b, LLM_KEY_LAYER_ROPE, r, 1); }
static void m_longrope_no_factors(llm_builder *b) {
    llm_builder_set_i32(b, "llm.rope_scaling", LLM_ROPE_LONGROPE);
    llm_builder_set_i32(b, "llm.rope_original_max_position_embeddings", 16);
}
static void m_longrope_zero_factor(llm_builder *b) {
    const float f[2] = { 1.0f, 0.0f };
    m_longrope_no_factors(b);
    llm_builder_set_blob(b, LLM_KEY_ROPE_SHORT, f, sizeof f);
    llm_builder_set_blob(b, LLM_KEY_ROPE_LONG, f, sizeof f);
}
static void m_yarn_no_orig(llm_builder *b) { llm_builder_set_i32(b, "llm.rope_scaling", LLM_ROPE_YARN); llm_builder_set_f64(b, "llm.rope_factor", 4.0); }

typedef struct file_case {
    const char *name;
    recipe r;
    void (*patch)(uint8_t *buf, size_t size);
    llm_result expect;
    const char *in_message; /* the message must contain this */
} file_case;

#define R0 { NULL, NULL, NULL, NULL, NULL }
static const file_case file_cases[] = {
    { "wrong magic", R0, p_magic, LLM_ERR_BAD_MAGIC, "magic" },
    { "a GGUF file", R0, p_gguf, LLM_ERR_BAD_MAGIC, "a GGUF file, not a .llm model file: convert it first" },
    { "wrong version", R0, p_version, LLM_ERR_BAD_VERSION, "version 1" },
    { "version 2 (no checksum)", R0, p_version2, LLM_ERR_BAD_VERSION, "version 2, this header reads version 3: convert the model again" },
    { "version 4", R0, p_version4, LLM_ERR_BAD_VERSION, "version 4" },
    { "two tensors of one name", R0, p_duplicate_name, LLM_ERR_BAD_FILE, "tensor 'model.layers.0.self_attn.q_proj.weight' is in the tensor table twice" },
    { "header file size larger than the file", R0, p_size_long, LLM_ERR_TRUNCATED, "bytes" },
    { "header file size smaller than the file", R0, p_size_short, LLM_ERR_BAD_FILE, "bytes" },
    { "metadata offset past the end", R0, p_meta_past_end, LLM_ERR_BAD_FILE, "metadata section" },
    { "metadata inside the header", R0, p_meta_in_header, LLM_ERR_BAD_FILE, "metadata section" },
    { "metadata size 2^64 - 9", R0, p_meta_size_huge, LLM_ERR_BAD_FILE, "metadata section" },
    { "tensor table offset at the end", R0, p_tab_past_end, LLM_ERR_BAD_FILE, "tensor table" },
    { "tensor table size 2^63", R0, p_tab_size_huge, LLM_ERR_BAD_FILE, "tensor table" },
    { "2^40 tensors", R0, p_n_tensors_huge, LLM_ERR_BAD_FILE, "tensors cannot fit" },
    { "one tensor more than the table holds", R0, p_n_tensors_more, LLM_ERR_BAD_FILE, "tensor" },
    { "tensor data offset misaligned", R0, p_data_misaligned, LLM_ERR_BAD_FILE, "aligned" },
    { "tensor data offset past the end", R0, p_data_past_end, LLM_ERR_BAD_FILE, "tensor data offset" },
    { "tensor data overlapping the table", R0, p_data_over_table, LLM_ERR_BAD_FILE, "tensor data" },
    { "metadata count 2^60", R0, p_meta_count_huge, LLM_ERR_BAD_FILE, "metadata" },
    { "metadata value size 2^64 - 1", R0, p_meta_value_huge, LLM_ERR_BAD_FILE, "metadata entry 1" },
    { "metadata key of length 0", R0, p_meta_key_empty, LLM_ERR_BAD_FILE, "metadata entry 2" },
    { "tensor offset past the end", R0, p_tensor_offset_past_end, LLM_ERR_BAD_FILE, "outside the file" },
    { "tensor offset 2^64 - 64", R0, p_tensor_offset_huge, LLM_ERR_BAD_FILE, "outside the file" },
    { "tensor offset misaligned", R0, p_tensor_misaligned, LLM_ERR_BAD_FILE, "unaligned" },
    { "tensor overlapping the one before", R0, p_tensor_overlap, LLM_ERR_BAD_FILE, "overlaps" },
    { "tensor size not matching its shape", R0, p_tensor_size, LLM_ERR_BAD_FILE, "does not match" },
    { "unknown tensor dtype", R0, p_tensor_dtype, LLM_ERR_UNSUPPORTED, "dtype 77" },
    { "tensor with 0 dimensions", R0, p_tensor_ndims0, LLM_ERR_BAD_FILE, "0 dimensions" },
    { "tensor with 5 dimensions", R0, p_tensor_ndims5, LLM_ERR_BAD_FILE, "5 dimensions" },
    { "tensor dimension 0", R0, p_dim_zero, LLM_ERR_BAD_FILE, "dimension 0 is 0" },
    { "tensor dimension 2^64 - 1", R0, p_dim_huge, LLM_ERR_BAD_FILE, "dimension 0 is 18446744073709551615" },
    { "tensor dimensions whose product overflows 64 bits", R0, p_dims_overflow, LLM_ERR_BAD_FILE, "dimension 1" },
    { "tensor whose byte size overflows 64 bits", R0, p_dims_size_wraps, LLM_ERR_BAD_FILE, "model.layers.0.self_attn.k_proj.weight" },
    { "tensor name with a NUL byte", R0, p_name_nul, LLM_ERR_BAD_FILE, "tensor 3: bad name" },
    { "tensor name length 100000", R0, p_name_long, LLM_ERR_BAD_FILE, "tensor 0: bad name" },
    { "vocab size 0", { NULL, NULL, NULL, NULL, m_vocab_zero }, NULL, LLM_ERR_BAD_FILE, "vocab_size 0" },
    { "vocab size stored as f64", { NULL, NULL, NULL, NULL, m_vocab_f64 }, NULL, LLM_ERR_BAD_FILE, "'llm.vocab_size' is not an i32" },
    { "vocab size missing", { "llm.vocab_size", NULL, NULL, NULL, NULL }, NULL, LLM_ERR_BAD_FILE, "missing key 'llm.vocab_size'" },
    { "architecture missing", { "general.architecture", NULL, NULL, NULL, NULL }, NULL, LLM_ERR_BAD_FILE, "general.architecture" },
    { "architecture gpt2", { NULL, NULL, NULL, NULL, m_arch_gpt2 }, NULL, LLM_ERR_UNSUPPORTED, "'gpt2'" },
    { "3 kv heads for 2 heads", { NULL, NULL, NULL, NULL, m_kv_heads_3 }, NULL, LLM_ERR_BAD_FILE, "num_kv_heads 3 does not divide num_heads 2" },
    { "0 kv heads", { NULL, NULL, NULL, NULL, m_kv_heads_0 }, NULL, LLM_ERR_BAD_FILE, "num_kv_heads 0" },
    { "odd head_dim", { NULL, NULL, NULL, NULL, m_head_dim_odd }, NULL, LLM_ERR_BAD_FILE, "head_dim 5" },
    { "hidden size 2^31 - 1", { NULL, NULL, NULL, NULL, m_hidden_huge }, NULL, LLM_ERR_BAD_FILE, "hidden_size 2147483647" },
    { "-1 layers", { NULL, NULL, NULL, NULL, m_layers_negative }, NULL, LLM_ERR_BAD_FILE, "num_layers -1" },
    { "2^20 layers", { NULL, NULL, NULL, NULL, m_layers_huge }, NULL, LLM_ERR_BAD_FILE, "num_layers 1048576" },
    { "rope theta NaN", { NULL, NULL, NULL, NULL, m_theta_nan }, NULL, LLM_ERR_BAD_FILE, "llm.rope_theta" },
    { "rms eps -1", { NULL, NULL, NULL, NULL, m_eps_negative }, NULL, LLM_ERR_BAD_FILE, "rms_norm_eps" },
    { "rope scaling type 9", { NULL, NULL, NULL, NULL, m_rope_scaling_9 }, NULL, LLM_ERR_UNSUPPORTED, "rope scaling type 9" },
    { "llama3 rope scaling without its parameters", { NULL, NULL, NULL, NULL, m_llama3_no_params }, NULL, LLM_ERR_BAD_FILE, "llama3" },
    { "bos id outside the vocabulary", { NULL, NULL, NULL, NULL, m_bos_outside }, NULL, LLM_ERR_BAD_FILE, "bos_token_id 16" },
    { "eos id outside the vocabulary", { NULL, NULL, NULL, NULL, m_eos_outside }, NULL, LLM_ERR_BAD_FILE, "eos token id 99" },
    { "9 eos ids", { NULL, NULL, NULL, NULL, m_eos_too_many }, NULL, LLM_ERR_BAD_FILE, "llm.eos_token_ids" },
    { "sliding window for 1 of 2 layers", { NULL, NULL, NULL, NULL, m_window_short }, NULL, LLM_ERR_BAD_FILE, "llm.sliding_window" },
    { "negative sliding window", { NULL, NULL, NULL, NULL, m_window_negative }, NULL, LLM_ERR_BAD_FILE, "layer 1: negative sliding window" },
    { "missing tensor", { NULL, "model.layers.1.mlp.up_proj.weight", NULL, NULL, NULL }, NULL, LLM_ERR_BAD_FILE, "missing tensor 'model.layers.1.mlp.up_proj.weight'" },
    { "missing lm_head", { NULL, "lm_head.weight", NULL, NULL, NULL }, NULL, LLM_ERR_BAD_FILE, "missing tensor 'lm_head.weight'" },
    { "qk_norm without q_norm tensors", { NULL, NULL, NULL, NULL, m_qk_norm }, NULL, LLM_ERR_BAD_FILE, "self_attn.q_norm.weight" },
    { "full-width qk_norm without its tensors", { NULL, NULL, NULL, NULL, m_qk_norm_full }, NULL, LLM_ERR_BAD_FILE, "self_attn.q_norm.weight" },
    { "qk_norm 3", { NULL, NULL, NULL, NULL, m_qk_norm_3 }, NULL, LLM_ERR_UNSUPPORTED, "q/k norm kind 3" },
    { "block norm placement 3", { NULL, NULL, NULL, NULL, m_block_norms_3 }, NULL, LLM_ERR_UNSUPPORTED, "block norm placement 3" },
    { "sandwich norms without their tensors", { NULL, NULL, NULL, NULL, m_sandwich }, NULL, LLM_ERR_BAD_FILE, "post_feedforward_layernorm" },
    { "activation 3", { NULL, NULL, NULL, NULL, m_activation_3 }, NULL, LLM_ERR_UNSUPPORTED, "activation 3" },
    { "odd rope_dim", { NULL, NULL, NULL, NULL, m_rope_dim_odd }, NULL, LLM_ERR_BAD_FILE, "rope_dim 3" },
    { "rope_dim past head_dim", { NULL, NULL, NULL, NULL, m_rope_dim_big }, NULL, LLM_ERR_BAD_FILE, "rope_dim 6" },
    { "negative soft-cap", { NULL, NULL, NULL, NULL, m_softcap_negative }, NULL, LLM_ERR_BAD_FILE, "soft-cap" },
    { "logits divisor 0", { NULL, NULL, NULL, NULL, m_logits_divisor_0 }, NULL, LLM_ERR_BAD_FILE, "logits" },
    { "pooling 4", { NULL, NULL, NULL, NULL, m_pooling_4 }, NULL, LLM_ERR_BAD_FILE, "pooling 4" },
    { "pooling 0 written", { NULL, NULL, NULL, NULL, m_pooling_model }, NULL, LLM_ERR_BAD_FILE, "pooling 0" },
    { "embedding_normalize 2", { NULL, NULL, NULL, NULL, m_normalize_2 }, NULL, LLM_ERR_BAD_FILE, "embedding_normalize 2" },
    { "layer rope kind 3", { NULL, NULL, NULL, NULL, m_layer_rope_3 }, NULL, LLM_ERR_BAD_FILE, "layer 1: unknown rope kind 3" },
    { "layer rope for 1 of 2 layers", { NULL, NULL, NULL, NULL, m_layer_rope_short }, NULL, LLM_ERR_BAD_FILE, "llm.layer_rope" },
    { "longrope without factors", { NULL, NULL, NULL, NULL, m_longrope_no_factors }, NULL, LLM_ERR_BAD_FILE, "llm.rope_short_factor" },
    { "longrope factor 0", { NULL, NULL, NULL, NULL, m_longrope_zero_factor }, NULL, LLM_ERR_BAD_FILE, "factor 1 is not a positive number" },
    { "yarn without the original context", { NULL, NULL, NULL, NULL, m_yarn_no_orig }, NULL, LLM_ERR_BAD_FILE, "yarn" },
    { "wrong shape of a matrix", { NULL, NULL, "model.layers.0.self_attn.k_proj.weight", NULL, NULL }, NULL, LLM_ERR_BAD_FILE, "has shape [5, 8], expected [4, 8]" },
    { "wrong shape of a norm", { NULL, NULL, "model.norm.weight", NULL, NULL }, NULL, LLM_ERR_BAD_FILE, "has shape [9], expected [8]" },
    { "wrong shape of the embeddings", { NULL, NULL, "model.embed_tokens.weight", NULL, NULL }, NULL, LLM_ERR_BAD_FILE, "model.embed_tokens.weight" },
    { "a norm stored as f16", { NULL, NULL, NULL, "model.layers.1.input_layernorm.weight", NULL }, NULL, LLM_ERR_BAD_FILE, "must be f32" },
};

static void test_file_cases(void) {
    size_t i, size;
    llm_model *m;
    uint8_t *good = build(&(recipe)R0, &size);
    llm_result r = open_copy(good, size, &m);
    check(r == LLM_OK, "the valid file opens (%s%s%s)", llm_result_string(r), last_msg[0] ? ": " : "", last_msg);
    free(good);
    for (i = 0; i < sizeof file_cases / sizeof file_cases[0]; i++) {
        const file_case *c = &file_cases[i];
        uint8_t *buf = build(&c->r, &size);
        if (c->patch) c->patch(buf, size);
        reseal(buf, size);
        r = open_copy(buf, size, &m);
        check(r == c->expect && last_msg[0] && strstr(last_msg, c->in_message), "%-50s %-22s %s", c->name,
              llm_result_string(r), last_msg);
        free(buf);
    }
}

/* Every prefix of the header region (header, metadata, table, padding) is a truncated
   file; with the header's size field rewritten to match the prefix, the section parsers
   must find the cut themselves. Both through memory and through files (mmap and read). */
static void test_prefixes(void) {
    size_t size, len, region, n_trunc = 0, n_cut = 0, n_files = 0, bad = 0;
    uint8_t *good = build(&(recipe)R0, &size), *buf = (uint8_t *)malloc(size);
    llm_model *m;
    char path[64];
    region = (size_t)rd64(good + H_DATA_OFF);
    snprintf(path, sizeof path, "%s", outp("/prefix.llm"));
    for (len = 0; len < region; len++) {
        llm_result r = open_copy(good, len, &m), r2;
        n_trunc++;
        if (r != LLM_ERR_TRUNCATED || !last_msg[0]) {
            if (bad++ < 5) printf("     prefix %zu: %s (%s)\n", len, llm_result_string(r), last_msg);
        }
        if (len >= H_FILE_SIZE + 8) {
            memcpy(buf, good, len);
            wr64(buf + H_FILE_SIZE, len);
            reseal(buf, len);
            r2 = open_copy(buf, len, &m);
            n_cut++;
            if ((r2 != LLM_ERR_BAD_FILE && r2 != LLM_ERR_TRUNCATED) || !last_msg[0])
                if (bad++ < 5) printf("     prefix %zu with its size in the header: %s (%s)\n", len, llm_result_string(r2), last_msg);
        }
        if (len % 7 == 0 || len < 70) {
            FILE *f = fopen(path, "wb");
            llm_model_desc d;
            int k;
            if (!f || fwrite(good, 1, len, f) != len || fclose(f) != 0) { check(0, "cannot write %s", path); return; }
            memset(&d, 0, sizeof d);
            d.log = capture;
            for (k = 0; k < 2; k++) {
                d.no_mmap = k;
                r = llm_model_open(&m, path, &d);
                n_files++;
                if (r != LLM_ERR_TRUNCATED && bad++ < 5) printf("     file prefix %zu (no_mmap %d): %s\n", len, k, llm_result_string(r));
                if (r == LLM_OK) llm_model_close(m);
            }
        }
    }
    check(bad == 0, "%zu prefixes of the %zu-byte header region: truncated; %zu with the size rewritten: bad file; "
          "%zu opened as files: truncated", n_trunc, region, n_cut, n_files);
    free(good);
    free(buf);
}

/* Every byte of the first 4 KB before the tensor data set to 0, 0xff and flipped in its low
   and high bit: each such file is refused with a message (the header checksum, if nothing
   before it). Then the same mutations with the checksum written again, so that they reach
   the section parsers: the open succeeds (then the model runs) or fails with a message.
   Never a crash. */
static void test_byte_mutations(void) {
    size_t size, region, p, n = 0, opened = 0, no_msg = 0, counts[2] = { 0, 0 }, no_msg2 = 0;
    uint8_t *good = build(&(recipe)R0, &size), *buf = (uint8_t *)malloc(size);
    llm_model *m;
    int k, shown = 0;
    region = (size_t)rd64(good + H_DATA_OFF);
    if (region > 4096) region = 4096;
    for (p = 0; p < region; p++)
        for (k = 0; k < 4; k++) {
            llm_result r;
            uint8_t v = k == 0 ? 0 : k == 1 ? 0xff : k == 2 ? (uint8_t)(good[p] ^ 1) : (uint8_t)(good[p] ^ 0x80);
            if (v == good[p]) continue;
            memcpy(buf, good, size);
            buf[p] = v;
            r = open_copy(buf, size, &m);
            n++;
            if (r == LLM_OK && shown++ < 5) printf("     byte %zu set to 0x%02x: the file opens\n", p, v);
            opened += r == LLM_OK;
            if (r != LLM_OK && !last_msg[0]) no_msg++;
            reseal(buf, size);
            r = open_copy(buf, size, &m);
            counts[r != LLM_OK]++;
            if (r != LLM_OK && !last_msg[0]) no_msg2++;
        }
    check(n > 1000 && opened == 0 && no_msg == 0, "%zu one-byte corruptions of the first %zu bytes (all before the tensor data): "
          "%zu open, every other one is refused with a message", n, region, opened);
    check(no_msg2 == 0, "the same %zu mutations with the checksum written again: %zu open (and run), %zu refused with a message",
          counts[0] + counts[1], counts[0], counts[1]);
    {
        llm_result r;
        memcpy(buf, good, size);
        buf[meta_entry(buf, 1) + 4] ^= 0x20; /* a letter of the second metadata key */
        r = open_copy(buf, size, &m);
        check(r == LLM_ERR_BAD_FILE && strstr(last_msg, "header checksum mismatch") && strstr(last_msg, "(the file is damaged)"),
              "a changed metadata key: %s (%s)", llm_result_string(r), last_msg);
        memcpy(buf, good, size);
        buf[size - 1] ^= 1; /* the last weight byte: not covered */
        r = open_copy(buf, size, &m);
        check(r == LLM_OK, "a changed weight byte is not checked at open: %s", llm_result_string(r));
    }
    free(good);
    free(buf);
}

/* ---- API misuse ---------------------------------------------------------------------------- */
typedef struct counting_alloc { long live, count, fail_at; } counting_alloc;
static void *c_alloc(void *user, size_t size) {
    counting_alloc *a = (counting_alloc *)user;
    if (a->count++ == a->fail_at) return NULL;
    a->live++;
    return malloc(size);
}
static void c_free(void *user, void *p) { ((counting_alloc *)user)->live--; free(p); }

static void test_api_misuse(void) {
    size_t size;
    uint8_t *good = build(&(recipe)R0, &size);
    llm_model *m = NULL, *m2;
    llm_ctx *c = NULL;
    llm_ctx_desc cd;
    int32_t toks[4] = { 1, 2, 3, 4 }, bad_hi = VOCAB, bad_lo = -1;
    llm_result r;
    char path[64];
    int ok;
    check(llm_model_open_memory(NULL, good, size, NULL) == LLM_ERR_INVALID_ARGUMENT, "llm_model_open_memory(NULL out): invalid argument");
    check(llm_model_open_memory(&m, NULL, size, NULL) == LLM_ERR_INVALID_ARGUMENT && m == NULL, "llm_model_open_memory(NULL data, size): invalid argument, *out = NULL");
    check(llm_model_open_memory(&m, NULL, 0, NULL) == LLM_ERR_TRUNCATED && m == NULL, "llm_model_open_memory(NULL, 0): truncated");
    check(llm_model_open(NULL, "x", NULL) == LLM_ERR_INVALID_ARGUMENT, "llm_model_open(NULL out): invalid argument");
    check(llm_model_open(&m, NULL, NULL) == LLM_ERR_INVALID_ARGUMENT && m == NULL, "llm_model_open(NULL path): invalid argument");
    r = llm_model_open(&m, outp("/does-not-exist.llm"), &(llm_model_desc){ .log = capture });
    check(r == LLM_ERR_IO && strstr(last_msg, "does-not-exist.llm"), "llm_model_open of a missing file: %s (%s)", llm_result_string(r), last_msg);
    r = llm_model_open(&m, out_dir, &(llm_model_desc){ .log = capture });
    check(r != LLM_OK && m == NULL, "llm_model_open of a directory: %s (%s)", llm_result_string(r), last_msg);
    llm_model_close(NULL);
    llm_ctx_close(NULL);
    check(llm_model_info_get(NULL) == NULL && llm_model_tensor(NULL, "x") == NULL && llm_model_meta_string(NULL, "x", NULL) == NULL &&
          llm_logits(NULL) == NULL && llm_ctx_pos(NULL) == 0 && llm_ctx_kv_bytes(NULL) == 0 && llm_ctx_error(NULL) != NULL,
          "NULL model / context to the getters and close functions: no crash");
    check(strcmp(llm_result_string((llm_result)-999), "unknown result") == 0 && strcmp(llm_result_string(LLM_ERR_BAD_TOKEN), "token outside the vocabulary") == 0,
          "llm_result_string names every code and an unknown one");
    check(llm_dtype_name((llm_dtype)99)[0] != 0, "llm_dtype_name of an unknown type");
    {
        llm_builder *b;
        const int64_t shape[2] = { 16, 8 };
        size_t idx = 99;
        llm_builder_create(&b);
        r = llm_builder_add_tensor(b, "a.weight", LLM_DTYPE_F32, 2, shape, &idx);
        check(r == LLM_OK && idx == 0 && llm_builder_add_tensor(b, "b.weight", LLM_DTYPE_F32, 2, shape, &idx) == LLM_OK && idx == 1 &&
              llm_builder_add_tensor(b, "a.weight", LLM_DTYPE_F32, 1, shape, &idx) == LLM_ERR_INVALID_ARGUMENT && idx == 1 &&
              llm_builder_add_tensor(b, "b.weight", LLM_DTYPE_F16, 2, shape, &idx) == LLM_ERR_INVALID_ARGUMENT &&
              llm_builder_add_tensor(b, "a.weigh", LLM_DTYPE_F32, 2, shape, &idx) == LLM_OK && idx == 2,
              "llm_builder_add_tensor refuses a name it already has: invalid argument");
        llm_builder_destroy(b);
        llm_builder_destroy(NULL);
    }

    snprintf(path, sizeof path, "%s", outp("/good.llm"));
    {
        FILE *f = fopen(path, "wb");
        ok = f && fwrite(good, 1, size, f) == size && fclose(f) == 0;
    }
    r = ok ? llm_model_open(&m, path, NULL) : LLM_ERR_IO;
    check(r == LLM_OK, "the valid file opens from disk");
    if (r != LLM_OK) return;
    check(llm_model_tensor(m, NULL) == NULL && llm_model_tensor(m, "nope") == NULL && llm_model_meta_string(m, NULL, NULL) == NULL,
          "llm_model_tensor / llm_model_meta_string with a NULL or unknown name");
    check(llm_ctx_open(NULL, m, NULL) == LLM_ERR_INVALID_ARGUMENT, "llm_ctx_open(NULL out): invalid argument");
    check(llm_ctx_open(&c, NULL, NULL) == LLM_ERR_INVALID_ARGUMENT && c == NULL, "llm_ctx_open(NULL model): invalid argument");
    memset(&cd, 0, sizeof cd);
    cd.n_ctx = -1;
    check(llm_ctx_open(&c, m, &cd) == LLM_ERR_INVALID_ARGUMENT && c == NULL, "llm_ctx_open with n_ctx -1: invalid argument");
    cd.n_ctx = 0; cd.n_batch = -5;
    check(llm_ctx_open(&c, m, &cd) == LLM_ERR_INVALID_ARGUMENT, "llm_ctx_open with n_batch -5: invalid argument");
    cd.n_batch = 0; cd.kv_type = (llm_kv_type)42;
    check(llm_ctx_open(&c, m, &cd) == LLM_ERR_INVALID_ARGUMENT, "llm_ctx_open with kv_type 42: invalid argument");
    memset(&cd, 0, sizeof cd);
    cd.n_ctx = 4;
    if (llm_ctx_open(&c, m, &cd) != LLM_OK) { check(0, "llm_ctx_open"); return; }
    check(llm_eval(NULL, toks, 1) == LLM_ERR_INVALID_ARGUMENT, "llm_eval(NULL ctx): invalid argument");
    r = llm_eval(c, NULL, 1);
    check(r == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 0, "llm_eval(NULL tokens): %s (%s)", llm_result_string(r), llm_ctx_error(c));
    r = llm_eval(c, toks, 0);
    check(r == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 0, "llm_eval(n = 0): %s (%s)", llm_result_string(r), llm_ctx_error(c));
    r = llm_eval(c, &bad_hi, 1);
    check(r == LLM_ERR_BAD_TOKEN && llm_ctx_pos(c) == 0, "llm_eval(token = vocab size): %s (%s)", llm_result_string(r), llm_ctx_error(c));
    r = llm_eval(c, &bad_lo, 1);
    check(r == LLM_ERR_BAD_TOKEN && llm_ctx_pos(c) == 0, "llm_eval(token -1): %s (%s)", llm_result_string(r), llm_ctx_error(c));
    r = llm_eval(c, toks, 5);
    check(r == LLM_ERR_CONTEXT_FULL && llm_ctx_pos(c) == 0, "llm_eval of 5 tokens into n_ctx 4: %s (%s)", llm_result_string(r), llm_ctx_error(c));
    r = llm_eval(c, toks, (size_t)-1);
    check(r == LLM_ERR_CONTEXT_FULL && llm_ctx_pos(c) == 0, "llm_eval of SIZE_MAX tokens: %s", llm_result_string(r));
    check(llm_eval(c, toks, 4) == LLM_OK && llm_ctx_pos(c) == 4, "llm_eval fills n_ctx exactly");
    r = llm_eval(c, toks, 1);
    check(r == LLM_ERR_CONTEXT_FULL && llm_ctx_pos(c) == 4, "llm_eval past n_ctx: %s (%s)", llm_result_string(r), llm_ctx_error(c));
    r = llm_ctx_rewind(c, 5);
    check(r == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 4, "llm_ctx_rewind past the end: %s (%s)", llm_result_string(r), llm_ctx_error(c));
    r = llm_ctx_rewind(c, -1);
    check(r == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 4, "llm_ctx_rewind(-1): %s", llm_result_string(r));
    check(llm_ctx_rewind(NULL, 0) == LLM_ERR_INVALID_ARGUMENT, "llm_ctx_rewind(NULL): invalid argument");
    check(llm_ctx_rewind(c, 2) == LLM_OK && llm_ctx_pos(c) == 2 && llm_eval(c, toks, 2) == LLM_OK, "rewind to 2, evaluate 2 more");
    {
        float e[HIDDEN];
        check(llm_embed(NULL, toks, 1, LLM_POOLING_MEAN, 0, e) == LLM_ERR_INVALID_ARGUMENT, "llm_embed(NULL ctx): invalid argument");
        r = llm_embed(c, toks, 1, LLM_POOLING_MEAN, 0, NULL);
        check(r == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 4, "llm_embed(NULL out): %s (%s)", llm_result_string(r), llm_ctx_error(c));
        r = llm_embed(c, toks, 1, (llm_pooling)7, 0, e);
        check(r == LLM_ERR_INVALID_ARGUMENT && llm_ctx_pos(c) == 4, "llm_embed(pooling 7): %s (%s)", llm_result_string(r), llm_ctx_error(c));
        r = llm_embed(c, &bad_hi, 1, LLM_POOLING_MEAN, 0, e);
        check(r == LLM_ERR_BAD_TOKEN && llm_ctx_pos(c) == 4, "llm_embed(token = vocab size): %s (%s)", llm_result_string(r), llm_ctx_error(c));
        r = llm_embed(c, toks, 5, LLM_POOLING_MEAN, 0, e);
        check(r == LLM_ERR_CONTEXT_FULL && llm_ctx_pos(c) == 4 && llm_logits(c) != NULL, "llm_embed of 5 tokens into n_ctx 4: %s (%s), the context unchanged",
              llm_result_string(r), llm_ctx_error(c));
        r = llm_embed(c, toks, 4, LLM_POOLING_MODEL, -1, e);
        check(r == LLM_OK && llm_ctx_pos(c) == 4 && llm_logits(c) == NULL, "llm_embed of n_ctx tokens from a full context: %s, it holds them and no logits",
              llm_result_string(r));
    }
    llm_ctx_close(c);

    /* A second model on the same file and several contexts at once. */
    check(llm_model_open(&m2, path, &(llm_model_desc){ .no_mmap = 1 }) == LLM_OK, "the same file opens again (read into memory)");
    llm_model_close(m2);
    llm_model_close(m);

    /* Allocation failures: every allocation of open and context creation fails in turn. */
    {
        counting_alloc a;
        llm_model_desc md;
        long k, oom_ok = 1, steps = 0;
        for (k = 0;; k++) {
            memset(&a, 0, sizeof a);
            a.fail_at = k;
            memset(&md, 0, sizeof md);
            md.allocator.alloc = c_alloc; md.allocator.free = c_free; md.allocator.user = &a;
            md.no_mmap = 1;
            r = llm_model_open(&m, path, &md);
            if (r == LLM_OK) {
                llm_ctx_desc d2;
                memset(&d2, 0, sizeof d2);
                d2.allocator = md.allocator;
                r = llm_ctx_open(&c, m, &d2);
                if (r == LLM_OK) { llm_eval(c, toks, 2); llm_ctx_close(c); }
                llm_model_close(m);
                if (r == LLM_OK) { oom_ok &= a.live == 0; break; }
            }
            steps++;
            oom_ok &= r == LLM_ERR_OUT_OF_MEMORY && a.live == 0;
        }
        check(oom_ok, "each of %ld allocations of open + llm_ctx_open failing: out of memory, nothing leaked", steps);
    }
    free(good);
}

/* ---- the converter ------------------------------------------------------------------------- */
typedef struct st_tensor { const char *name; const char *dtype; int64_t d0, d1; } st_tensor;

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
}

/* A safetensors file; data_end_extra shifts the last tensor's end offset. */
static void write_safetensors(const char *path, const st_tensor *t, int n, long data_end_extra) {
    char hdr[16384];
    size_t len = 0, i;
    uint64_t off = 0, total;
    unsigned char lenb[8], *data;
    FILE *f;
    len += (size_t)snprintf(hdr + len, sizeof hdr - len, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (i = 0; i < (size_t)n; i++) {
        uint64_t size = (uint64_t)(t[i].d0 * (t[i].d1 ? t[i].d1 : 1)) * (strcmp(t[i].dtype, "F32") && strcmp(t[i].dtype, "I32") ? 2 : 4);
        uint64_t end = off + size + (i + 1 == (size_t)n ? (uint64_t)data_end_extra : 0);
        len += (size_t)snprintf(hdr + len, sizeof hdr - len, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%lld", t[i].name, t[i].dtype, (long long)t[i].d0);
        if (t[i].d1) len += (size_t)snprintf(hdr + len, sizeof hdr - len, ",%lld", (long long)t[i].d1);
        len += (size_t)snprintf(hdr + len, sizeof hdr - len, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)end);
        off += size;
    }
    len += (size_t)snprintf(hdr + len, sizeof hdr - len, "}");
    total = off;
    for (i = 0; i < 8; i++) lenb[i] = (unsigned char)((uint64_t)len >> (8 * i));
    data = (unsigned char *)calloc((size_t)total + 1, 1);
    for (i = 0; i < total; i += 4) { float v = 0.01f * (float)(i % 13); memcpy(data + i, &v, total - i < 4 ? total - i : 4); }
    f = fopen(path, "wb");
    if (!f || fwrite(lenb, 1, 8, f) != 8 || fwrite(hdr, 1, len, f) != len || fwrite(data, 1, (size_t)total, f) != total || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    free(data);
}

#define CV_LAYER(n) { "model.layers." #n ".input_layernorm.weight", "F32", 8, 0 }, \
    { "model.layers." #n ".self_attn.q_proj.weight", "F32", 8, 8 }, { "model.layers." #n ".self_attn.k_proj.weight", "F32", 4, 8 }, \
    { "model.layers." #n ".self_attn.v_proj.weight", "F32", 4, 8 }, { "model.layers." #n ".self_attn.o_proj.weight", "F32", 8, 8 }, \
    { "model.layers." #n ".post_attention_layernorm.weight", "F32", 8, 0 }, { "model.layers." #n ".mlp.gate_proj.weight", "F32", 12, 8 }, \
    { "model.layers." #n ".mlp.up_proj.weight", "F32", 12, 8 }, { "model.layers." #n ".mlp.down_proj.weight", "F32", 8, 12 }
static const st_tensor cv_tensors[] = {
    { "model.embed_tokens.weight", "F32", 16, 8 }, CV_LAYER(0), CV_LAYER(1), { "model.norm.weight", "F32", 8, 0 },
    { "lm_head.weight", "F32", 16, 8 },
};
#define CV_N ((int)(sizeof cv_tensors / sizeof cv_tensors[0]))

enum { ST_PLAIN, ST_SHARDED, ST_SHARD_MISSING, ST_PAST_END, ST_BAD_HEADER_JSON, ST_TRUNCATED, ST_BAD_ENTRY, ST_INDEX_NUMBER };

typedef struct convert_case {
    const char *name;
    const char *cfg_key, *cfg_value;  /* replace (or add) one config.json entry; value NULL removes it */
    const char *raw_config;           /* the whole config.json instead */
    const char *omit, *reshape, *dtype_of, *new_dtype, *extra; /* tensor changes */
    int st_mode;
    const char *gen_config;           /* generation_config.json text, NULL for a valid one */
    const char *msg1, *msg2;          /* the message must contain both; NULL: must succeed */
} convert_case;

static const char *const cfg_base[][2] = {
    { "model_type", "\"llama\"" }, { "vocab_size", "16" }, { "hidden_size", "8" }, { "intermediate_size", "12" },
    { "num_hidden_layers", "2" }, { "num_attention_heads", "2" }, { "num_key_value_heads", "1" }, { "hidden_act", "\"silu\"" },
    { "rms_norm_eps", "1e-05" }, { "rope_theta", "10000.0" }, { "max_position_embeddings", "64" },
    { "tie_word_embeddings", "false" }, { "bos_token_id", "1" }, { "eos_token_id", "2" },
};

static const convert_case convert_cases[] = {
    { "valid directory", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, NULL, NULL },
    { "valid sharded directory", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_SHARDED, NULL, NULL, NULL },
    { "missing tensor", NULL, NULL, NULL, "model.layers.1.mlp.up_proj.weight", NULL, NULL, NULL, NULL, ST_PLAIN, NULL,
      "missing tensor", "model.layers.1.mlp.up_proj.weight" },
    { "missing lm_head (untied)", NULL, NULL, NULL, "lm_head.weight", NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "lm_head.weight", "tie_word_embeddings" },
    { "wrong shape", NULL, NULL, NULL, NULL, "model.layers.0.self_attn.k_proj.weight", NULL, NULL, NULL, ST_PLAIN, NULL,
      "model.layers.0.self_attn.k_proj.weight", "expected [4, 8]" },
    { "unknown dtype", NULL, NULL, NULL, NULL, NULL, "model.layers.0.mlp.up_proj.weight", "I32", NULL, ST_PLAIN, NULL,
      "model.layers.0.mlp.up_proj.weight", "I32" },
    { "tensor the model does not use", NULL, NULL, NULL, NULL, NULL, NULL, NULL, "model.layers.0.mlp.extra.weight", ST_PLAIN, NULL,
      "model.layers.0.mlp.extra.weight", "not part of" },
    { "malformed config.json", NULL, NULL, "{\"model_type\": \"llama\", \"vocab_size\": 16,", NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL,
      "config.json", "bad JSON" },
    { "config.json not an object", NULL, NULL, "[1, 2]", NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "config.json", "model_type" },
    { "malformed generation_config.json", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, "{\"eos_token_id\": [2,", "generation_config.json", "bad JSON" },
    { "model_type gpt2", "model_type", "\"gpt2\"", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "model_type", "'gpt2'" },
    { "model_type missing", "model_type", NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "model_type", NULL },
    { "rope type yarn without a factor", "rope_scaling", "{\"rope_type\": \"yarn\"}", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL,
      "rope_scaling.factor", "> 0" },
    { "bidirectional attention (EmbeddingGemma)", "use_bidirectional_attention", "true", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL,
      "use_bidirectional_attention", "not supported" },
    { "rope type dynamic (old 'type' key)", "rope_scaling", "{\"type\": \"dynamic\", \"factor\": 2.0}", NULL, NULL, NULL, NULL, NULL, NULL,
      ST_PLAIN, NULL, "rope_type", "'dynamic'" },
    { "model_type phi3 with unfused projections", "model_type", "\"phi3\"", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL,
      "not part of a phi3 model", "_proj.weight" },
    { "model_type olmo2 with input norms", "model_type", "\"olmo2\"", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL,
      "not part of a olmo2 model", "layernorm.weight" },
    { "longrope with one factor for two pairs", "rope_scaling",
      "{\"type\": \"longrope\", \"short_factor\": [1.0], \"long_factor\": [1.0, 2.0]}", NULL, NULL, NULL, NULL, NULL, NULL,
      ST_PLAIN, NULL, "short_factor", "must list 2 numbers" },
    { "hidden_act gelu_new", "hidden_act", "\"gelu_new\"", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "hidden_act", "'gelu_new'" },
    { "hidden_size a string", "hidden_size", "\"8\"", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "hidden_size", "string" },
    { "vocab_size missing", "vocab_size", NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "vocab_size", "missing" },
    { "3 kv heads for 2 heads", "num_key_value_heads", "3", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "num_kv_heads 3", "num_heads 2" },
    { "mlp_bias", "mlp_bias", "true", NULL, NULL, NULL, NULL, NULL, NULL, ST_PLAIN, NULL, "mlp_bias", "not supported" },
    { "sharded index naming a missing file", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_SHARD_MISSING, NULL,
      "model-00002-of-00002.safetensors", "missing" },
    { "data_offsets past the end of the file", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_PAST_END, NULL, "lm_head.weight", "data_offsets" },
    { "malformed safetensors header", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_BAD_HEADER_JSON, NULL, "model.safetensors", "JSON" },
    { "tensor entry without shape or offsets", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_BAD_ENTRY, NULL, "model.norm.weight", "malformed" },
    { "index whose weight_map holds a number", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_INDEX_NUMBER, NULL, "lm_head.weight", "not a file name" },
    { "safetensors shorter than its header length", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ST_TRUNCATED, NULL, "model.safetensors", "header length" },
};

static void write_config(const char *dir, const convert_case *c) {
    char path[512], text[4096];
    size_t i, len = 0;
    int replaced = 0;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (c->raw_config) { write_text(path, c->raw_config); return; }
    len += (size_t)snprintf(text + len, sizeof text - len, "{");
    for (i = 0; i < sizeof cfg_base / sizeof cfg_base[0]; i++) {
        const char *v = cfg_base[i][1];
        if (c->cfg_key && !strcmp(c->cfg_key, cfg_base[i][0])) { v = c->cfg_value; replaced = 1; }
        if (v) len += (size_t)snprintf(text + len, sizeof text - len, "%s\"%s\": %s", len > 1 ? ", " : "", cfg_base[i][0], v);
    }
    if (c->cfg_key && !replaced && c->cfg_value)
        len += (size_t)snprintf(text + len, sizeof text - len, ", \"%s\": %s", c->cfg_key, c->cfg_value);
    snprintf(text + len, sizeof text - len, "}\n");
    write_text(path, text);
}

static void make_hf_dir(const char *dir, const convert_case *c) {
    char path[512], cmd[600];
    st_tensor t[CV_N + 1];
    int n = 0, i;
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    if (system(cmd) != 0) exit(2);
    write_config(dir, c);
    snprintf(path, sizeof path, "%s/generation_config.json", dir);
    write_text(path, c->gen_config ? c->gen_config : "{\"bos_token_id\": 1, \"eos_token_id\": [2, 3]}\n");
    for (i = 0; i < CV_N; i++) {
        if (c->omit && !strcmp(c->omit, cv_tensors[i].name)) continue;
        t[n] = cv_tensors[i];
        if (c->reshape && !strcmp(c->reshape, t[n].name)) t[n].d0++;
        if (c->dtype_of && !strcmp(c->dtype_of, t[n].name)) t[n].dtype = c->new_dtype;
        n++;
    }
    if (c->extra) { t[n].name = c->extra; t[n].dtype = "F32"; t[n].d0 = 4; t[n].d1 = 8; n++; }
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (c->st_mode == ST_PLAIN) write_safetensors(path, t, n, 0);
    else if (c->st_mode == ST_PAST_END) write_safetensors(path, t, n, 4);
    else if (c->st_mode == ST_BAD_HEADER_JSON) {
        const char text[] = "\x10\0\0\0\0\0\0\0{\"a\": {\"dtype\": ";
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(text, 1, sizeof text - 1, f) != sizeof text - 1 || fclose(f) != 0) exit(2);
    } else if (c->st_mode == ST_BAD_ENTRY) {
        const char text[] = "\x21\0\0\0\0\0\0\0{\"model.norm.weight\":{\"dtype\":1}}";
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(text, 1, sizeof text - 1, f) != sizeof text - 1 || fclose(f) != 0) exit(2);
    } else if (c->st_mode == ST_INDEX_NUMBER) {
        snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
        write_text(path, "{\"weight_map\": {\"lm_head.weight\": 7}}");
    } else if (c->st_mode == ST_TRUNCATED) {
        const char text[] = "\xff\xff\0\0\0\0\0\0{}";
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(text, 1, sizeof text - 1, f) != sizeof text - 1 || fclose(f) != 0) exit(2);
    } else {
        /* two shards: the first half of the tensors and the rest, with an index */
        char text[8192];
        size_t len = 0;
        int half = n / 2;
        snprintf(path, sizeof path, "%s/model-00001-of-00002.safetensors", dir);
        write_safetensors(path, t, half, 0);
        if (c->st_mode == ST_SHARDED) {
            snprintf(path, sizeof path, "%s/model-00002-of-00002.safetensors", dir);
            write_safetensors(path, t + half, n - half, 0);
        }
        len += (size_t)snprintf(text + len, sizeof text - len, "{\"metadata\": {\"total_size\": 0}, \"weight_map\": {");
        for (i = 0; i < n; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "%s\"%s\": \"model-0000%d-of-00002.safetensors\"", i ? ", " : "",
                                    t[i].name, i < half ? 1 : 2);
        snprintf(text + len, sizeof text - len, "}}\n");
        snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
        write_text(path, text);
    }
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_converter(void) {
#if defined(_WIN32)
    printf("converter cases: not run on Windows (they need a POSIX shell)\n");
    return;
#endif
    size_t i;
    for (i = 0; i < sizeof convert_cases / sizeof convert_cases[0]; i++) {
        const convert_case *c = &convert_cases[i];
        char dir[256], out[300], tmp[310], err[300], cmd[1200], msg[2048] = "";
        FILE *f;
        int rc, status;
        size_t n;
        snprintf(dir, sizeof dir, "%s/hf-%zu", out_dir, i);
        snprintf(out, sizeof out, "%s/out.llm", dir);
        snprintf(tmp, sizeof tmp, "%s.tmp", out);
        snprintf(err, sizeof err, "%s/stderr.txt", dir);
        make_hf_dir(dir, c);
        snprintf(cmd, sizeof cmd, "%s/convert %s %s >/dev/null 2>%s", build_dir, dir, out, err);
        status = system(cmd);
        rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        if ((f = fopen(err, "r")) != NULL) {
            n = fread(msg, 1, sizeof msg - 1, f);
            msg[n] = 0;
            fclose(f);
            if (n && msg[n - 1] == '\n') msg[n - 1] = 0;
        }
        if (!c->msg1) {
            llm_model *m = NULL;
            int opened = llm_model_open(&m, out, NULL) == LLM_OK;
            llm_model_close(m);
            check(rc == 0 && opened, "convert: %-40s exit %d, the output opens", c->name, rc);
        } else {
            check(rc != 0 && rc < 128 && strstr(msg, c->msg1) && (!c->msg2 || strstr(msg, c->msg2)) && !file_exists(out) &&
                  !file_exists(tmp), "convert: %-40s exit %d, %s%s", c->name, rc, msg,
                  file_exists(out) || file_exists(tmp) ? " (an output file was left behind)" : "");
        }
    }
    {
        char cmd[1200];
        int status;
        snprintf(cmd, sizeof cmd, "%s/convert %s/hf-0 %s/hf-0/q.llm --dtype q3 >/dev/null 2>&1", build_dir, out_dir, out_dir);
        status = system(cmd);
        check(WIFEXITED(status) && WEXITSTATUS(status) == 2 && !file_exists(outp("/hf-0/q.llm")), "convert: --dtype q3: exit 2");
    }
    {
        /* an output path that cannot be created */
        char cmd[1200];
        int status;
        snprintf(cmd, sizeof cmd, "%s/convert %s/hf-0 %s/no/such/dir/out.llm >/dev/null 2>&1", build_dir, out_dir, out_dir);
        status = system(cmd);
        check(WIFEXITED(status) && WEXITSTATUS(status) == 1 && !file_exists(outp("/no/such/dir/out.llm.tmp")),
              "convert: an output directory that does not exist: exit 1");
    }
}

int main(void) {
    if (getenv("BUILD")) build_dir = getenv("BUILD");
    snprintf(out_dir, sizeof out_dir, "%s/tests/badfile", build_dir);
#if defined(_WIN32)
    if (_mkdir(out_dir) != 0 && errno != EEXIST) return 2;
#else
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) return 2;
#endif
    test_file_cases();
    test_prefixes();
    test_byte_mutations();
    test_api_misuse();
    test_converter();
    return check_summary("bad files, API misuse and broken directories: all checks passed");
}
