/* gen_model: writes a HuggingFace model directory with seeded random weights.

   build/gen_model OUT_DIR --variant NAME [--dtype f32|f16|bf16] [--seed S]
   build/gen_model OUT_DIR --shape NAME   [--dtype f32|f16|bf16] [--seed S]
   build/gen_model --list

   OUT_DIR gets config.json, generation_config.json and model.safetensors. A variant is a
   tiny model of one supported configuration (the tests run every one through the
   converter and compare with a reference forward pass); a shape has the dimensions of a
   real model (bf16 by default, for benchmarks). The same seed gives the same bytes on
   every platform: the generator is integer-only and each weight is one exactly rounded
   product.

   The weight scales make attention far from uniform (q.k / sqrt(head_dim) has a standard
   deviation of about 4) and the logits peaked, so that mistakes in RoPE, masks or the
   GQA head mapping change the output visibly. The router's logits have a standard deviation
   of about 1.5, so that tokens spread over the experts and their weights differ. */
#define _POSIX_C_SOURCE 200809L
#include "../llm.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#if defined(_WIN32)
#include <direct.h>
#define mkdir(path, mode) _mkdir(path)
#endif

typedef struct spec {
    const char *name, *model_type, *note;
    int vocab, hidden, ff, layers, heads, kv_heads;
    int head_dim;            /* written when > 0 */
    int max_pos;
    double eps, theta;
    int tied, attention_bias;
    const char *rope_scaling; /* JSON object, or NULL for null */
    int sliding_window;       /* -1: key omitted, 0: null */
    int use_sliding_window;   /* -1: key omitted */
    int max_window_layers;    /* -1: key omitted */
    int bos, eos, eos2;       /* eos2 >= 0: eos_token_id is a list */
    llm_dtype dtype;
    const char *extra;        /* more config.json lines, each `"key": value,` (a family's own keys) */
    int base;                 /* saved as the base model (AutoModel): names without "model.", no LM
                                 head, and sentence-transformers' modules.json (last-token pooling,
                                 Normalize), as embedding models often are */
} spec;

#define TINY 128, 64, 96, 2, 4 /* vocab, hidden, intermediate, layers, heads */
#define LLAMA3_SCALING "{\"factor\": 8.0, \"high_freq_factor\": 4.0, \"low_freq_factor\": 1.0, " \
                       "\"original_max_position_embeddings\": 256, \"rope_type\": \"llama3\"}"

static const spec variants[] = {
    { "llama", "llama", "multi-head attention, untied head",
      TINY, 4, 0, 2048, 1e-5, 10000.0, 0, 0, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "llama-gqa-tied", "llama", "2 kv heads for 4 query heads, tied head",
      TINY, 2, 0, 2048, 1e-5, 10000.0, 1, 0, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "llama-mqa", "llama", "one kv head, explicit head_dim",
      TINY, 1, 16, 2048, 1e-6, 10000.0, 0, 0, NULL, -1, -1, -1, 1, 2, 3, LLM_DTYPE_F32, NULL, 0 },
    { "llama3-rope", "llama", "llama3 rope scaling with all three frequency bands in use",
      TINY, 2, 16, 131072, 1e-5, 500000.0, 1, 0, LLAMA3_SCALING, -1, -1, -1, 0, 1, 2, LLM_DTYPE_F32, NULL, 0 },
    { "llama-linear", "llama", "linear rope scaling",
      TINY, 2, 0, 8192, 1e-5, 10000.0, 0, 0, "{\"factor\": 4.0, \"type\": \"linear\"}", -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "llama-bias", "llama", "attention_bias: q, k, v and o biases",
      TINY, 2, 0, 2048, 1e-5, 10000.0, 0, 1, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "mistral", "mistral", "sliding_window 5, shorter than the test sequence",
      128, 64, 96, 3, 4, 2, 0, 32768, 1e-5, 1000000.0, 0, 0, NULL, 5, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "mistral-default-window", "mistral", "no sliding_window key: the config class default (4096)",
      TINY, 2, 0, 32768, 1e-5, 10000.0, 0, 0, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "qwen2", "qwen2", "q/k/v biases, tied head",
      TINY, 2, 0, 32768, 1e-6, 1000000.0, 1, 0, NULL, 32768, 0, 2, 0, 0, -1, LLM_DTYPE_F32, NULL, 0 },
    { "qwen2-swa", "qwen2", "use_sliding_window: layer 0 full, layers 1-2 window 6",
      128, 64, 96, 3, 4, 2, 0, 32768, 1e-6, 1000000.0, 0, 0, NULL, 6, 1, 1, 0, 0, -1, LLM_DTYPE_F32, NULL, 0 },
    { "qwen3", "qwen3", "q/k RMSNorm, head_dim 24 != hidden/heads",
      TINY, 2, 24, 40960, 1e-6, 1000000.0, 1, 0, NULL, 0, 0, 2, 0, 1, -1, LLM_DTYPE_F32, NULL, 0 },
    { "qwen3-embedding", "qwen3", "an embedding model: the base model's tensor names, no LM head (tied), last-token pooling and Normalize",
      TINY, 2, 24, 40960, 1e-6, 1000000.0, 1, 0, NULL, 0, 0, 2, 0, 1, -1, LLM_DTYPE_F32, NULL, 1 },
    { "qwen3-default-head-dim", "qwen3", "no head_dim key: the config class default (128)",
      96, 32, 64, 2, 2, 1, 0, 40960, 1e-6, 1000000.0, 0, 0, NULL, -1, -1, -1, 0, 1, -1, LLM_DTYPE_F32, NULL, 0 },
    { "gemma3", "gemma3_text", "sandwich and (1 + w) norms, q/k norm, GELU-tanh, sqrt(hidden) embeddings, local/global theta, window 6",
      128, 64, 96, 3, 4, 2, 16, 32768, 1e-6, 1000000.0, 1, 0, NULL, 6, -1, -1, 2, 1, -1, LLM_DTYPE_F32,
      "\"layer_types\": [\"sliding_attention\", \"sliding_attention\", \"full_attention\"],\n"
      "  \"query_pre_attn_scalar\": 24,\n  \"rope_local_base_freq\": 100.0,\n"
      "  \"attn_logit_softcapping\": null,\n  \"final_logit_softcapping\": null,\n", 0 },
    { "gemma3-pattern", "gemma3_text", "no layer_types: sliding_window_pattern 2, default query_pre_attn_scalar, rope_scaling linear",
      TINY, 2, 16, 32768, 1e-6, 1000000.0, 0, 1, "{\"factor\": 8.0, \"rope_type\": \"linear\"}", 5, -1, -1, 2, 1, -1, LLM_DTYPE_F32,
      "\"sliding_window_pattern\": 2,\n", 0 },
    { "gemma2", "gemma2", "soft-capped scores (3) and logits (10), alternate sliding layers (window 5), hidden 48 (sqrt not exact)",
      128, 48, 96, 3, 4, 2, 16, 8192, 1e-6, 10000.0, 1, 0, NULL, 5, -1, -1, 2, 1, -1, LLM_DTYPE_F32,
      "\"query_pre_attn_scalar\": 16,\n  \"attn_logit_softcapping\": 3.0,\n  \"final_logit_softcapping\": 10.0,\n", 0 },
    { "gemma", "gemma", "Gemma 1: pre-norm, (1 + w) norms, sqrt(hidden) embeddings, hidden_act gelu (the exact GELU) beside "
      "hidden_activation gelu_pytorch_tanh, as google/gemma-7b's config has them, one kv head",
      128, 48, 96, 2, 4, 1, 16, 8192, 1e-6, 10000.0, 1, 0, NULL, -1, -1, -1, 2, 1, -1, LLM_DTYPE_F32, "\"hidden_act\": \"gelu\",\n", 0 },
    { "olmo2", "olmo2", "post-norms on attention and MLP outputs, q/k RMSNorm over all heads",
      TINY, 2, 0, 4096, 1e-6, 500000.0, 0, 0, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "granite", "granite", "embedding, attention, residual multipliers and logits_scaling",
      TINY, 2, 0, 4096, 1e-5, 10000.0, 1, 0, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32,
      "\"embedding_multiplier\": 12.0,\n  \"attention_multiplier\": 0.125,\n  \"residual_multiplier\": 0.22,\n"
      "  \"logits_scaling\": 4.0,\n", 0 },
    { "smollm3", "smollm3", "no_rope_layers: layer 1 without RoPE",
      128, 64, 96, 3, 4, 2, 0, 65536, 1e-6, 5000000.0, 1, 0, NULL, 0, 0, 3, 1, 2, -1, LLM_DTYPE_F32,
      "\"no_rope_layers\": [1, 0, 1],\n", 0 },
    { "smollm3-interval", "smollm3", "no no_rope_layers key: every 2nd layer without RoPE (no_rope_layer_interval 2)",
      TINY, 2, 0, 65536, 1e-6, 5000000.0, 1, 0, NULL, 0, 0, 2, 1, 2, -1, LLM_DTYPE_F32,
      "\"no_rope_layer_interval\": 2,\n", 0 },
    { "phi3", "phi3", "fused qkv_proj and gate_up_proj, partial rotary 0.5, LongRoPE (short factors in use)",
      TINY, 2, 0, 131072, 1e-5, 10000.0, 1, 0,
      "{\"long_factor\": [1.5, 4.0, 9.0, 17.0], \"short_factor\": [1.0, 1.25, 2.0, 3.5], \"type\": \"longrope\"}",
      0, -1, -1, 1, 2, -1, LLM_DTYPE_F32, "\"partial_rotary_factor\": 0.5,\n  \"original_max_position_embeddings\": 4096,\n", 0 },
    { "phi3-long", "phi3", "LongRoPE past an original context of 8: the long factors once a call's sequence passes it",
      TINY, 2, 0, 64, 1e-5, 10000.0, 1, 0,
      "{\"long_factor\": [1.5, 4.0, 9.0, 17.0], \"short_factor\": [1.0, 1.25, 2.0, 3.5], \"type\": \"longrope\"}",
      0, -1, -1, 1, 2, -1, LLM_DTYPE_F32, "\"partial_rotary_factor\": 0.5,\n  \"original_max_position_embeddings\": 8,\n", 0 },
    { "qwen2-yarn", "qwen2", "YaRN factor 4 from an original context of 64: the ramp over pairs 0-3",
      TINY, 2, 0, 256, 1e-6, 10000.0, 0, 0,
      "{\"factor\": 4.0, \"original_max_position_embeddings\": 64, \"rope_type\": \"yarn\"}", 256, 0, 2, 0, 0, -1, LLM_DTYPE_F32, NULL, 0 },
    { "mixtral", "mixtral", "8 experts, 2 per token, Mixtral's tensor names",
      TINY, 2, 16, 32768, 1e-5, 1000000.0, 0, 0, NULL, 0, -1, -1, 1, 2, -1, LLM_DTYPE_F32, NULL, 0 },
    { "qwen3-moe", "qwen3_moe", "8 experts, 2 per token, norm_topk_prob, layer 1 dense (mlp_only_layers)",
      128, 64, 96, 3, 4, 2, 16, 40960, 1e-6, 1000000.0, 0, 0, NULL, -1, 0, 3, 0, 1, -1, LLM_DTYPE_F32, NULL, 0 },
    { "qwen3-moe-step2", "qwen3_moe", "6 experts, 3 per token, no renormalisation, decoder_sparse_step 2",
      TINY, 2, 0, 40960, 1e-6, 1000000.0, 1, 0, NULL, -1, -1, -1, 0, 1, -1, LLM_DTYPE_F32, NULL, 0 },
    { "qwen2-moe", "qwen2_moe", "4 experts, 2 per token, a shared expert with its sigmoid gate, q/k/v biases",
      TINY, 2, 0, 32768, 1e-6, 1000000.0, 0, 0, NULL, 32768, 0, 2, 0, 0, -1, LLM_DTYPE_F32, NULL, 0 },
    { "olmoe", "olmoe", "8 experts, 3 per token, no renormalisation, q/k RMSNorm over all heads, pre-norm blocks",
      TINY, 2, 0, 4096, 1e-5, 10000.0, 0, 0, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_F32, "\"clip_qkv\": null,\n", 0 },
};

static const spec shapes[] = {
    { "tinyllama-1.1b", "llama", "TinyLlama-1.1B",
      32000, 2048, 5632, 22, 32, 4, 0, 2048, 1e-5, 10000.0, 0, 0, NULL, -1, -1, -1, 1, 2, -1, LLM_DTYPE_BF16, NULL, 0 },
    { "smollm2-135m", "llama", "SmolLM2-135M",
      49152, 576, 1536, 30, 9, 3, 0, 8192, 1e-5, 100000.0, 1, 0, NULL, -1, -1, -1, 0, 0, -1, LLM_DTYPE_BF16, NULL, 0 },
    { "llama3.2-1b", "llama", "Llama-3.2-1B",
      128256, 2048, 8192, 16, 32, 8, 64, 131072, 1e-5, 500000.0, 1, 0,
      "{\"factor\": 32.0, \"high_freq_factor\": 4.0, \"low_freq_factor\": 1.0, "
      "\"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}",
      -1, -1, -1, 128000, 128001, -1, LLM_DTYPE_BF16, NULL, 0 },
    { "qwen2.5-0.5b", "qwen2", "Qwen2.5-0.5B",
      151936, 896, 4864, 24, 14, 2, 0, 32768, 1e-6, 1000000.0, 1, 0, NULL, 32768, 0, 24, 151643, 151643, -1,
      LLM_DTYPE_BF16, NULL, 0 },
    { "qwen3-embedding-0.6b", "qwen3", "Qwen3-Embedding-0.6B (saved as its base model, with sentence-transformers' files)",
      151669, 1024, 3072, 28, 16, 8, 128, 32768, 1e-6, 1000000.0, 1, 0, NULL, 0, 0, 28, 151643, 151643, -1, LLM_DTYPE_BF16, NULL, 1 },
    { "gemma3-1b", "gemma3_text", "Gemma-3-1B",
      262144, 1152, 6912, 26, 4, 1, 256, 32768, 1e-6, 1000000.0, 1, 0, NULL, 512, -1, -1, 2, 1, 106, LLM_DTYPE_BF16,
      "\"sliding_window_pattern\": 6,\n  \"query_pre_attn_scalar\": 256,\n  \"rope_local_base_freq\": 10000.0,\n"
      "  \"attn_logit_softcapping\": null,\n  \"final_logit_softcapping\": null,\n", 0 },
    { "gemma3-270m", "gemma3_text", "Gemma-3-270M",
      262144, 640, 2048, 18, 4, 1, 256, 32768, 1e-6, 1000000.0, 1, 0, NULL, 512, -1, -1, 2, 1, 106, LLM_DTYPE_BF16,
      "\"sliding_window_pattern\": 6,\n  \"query_pre_attn_scalar\": 256,\n  \"rope_local_base_freq\": 10000.0,\n"
      "  \"attn_logit_softcapping\": null,\n  \"final_logit_softcapping\": null,\n", 0 },
    { "phi4-mini", "phi3", "Phi-4-mini-instruct",
      200064, 3072, 8192, 32, 24, 8, 0, 131072, 1e-5, 10000.0, 1, 0,
      "{\"long_factor\": [1, 1.118320672, 1.250641126, 1.398617824, 1.564103225, 1.74916897, 1.956131817, 2.187582649, "
      "2.446418898, 2.735880826, 3.059592084, 3.421605075, 3.826451687, 4.279200023, 4.785517845, 5.351743533, "
      "5.984965424, 6.693110555, 7.485043894, 8.370679318, 9.36110372, 10.4687158, 11.70738129, 13.09260651, "
      "14.64173252, 16.37415215, 18.31155283, 20.47818807, 22.90118105, 25.61086418, 28.64115884, 32.03, 32.1, "
      "32.13, 32.23, 32.6, 32.61, 32.64, 32.66, 32.7, 32.71, 32.93, 32.97, 33.28, 33.49, 33.5, 44.16, 47.77], "
      "\"short_factor\": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, "
      "1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, "
      "1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], \"type\": \"longrope\"}",
      262144, -1, -1, 199999, 200020, 199999, LLM_DTYPE_BF16,
      "\"partial_rotary_factor\": 0.75,\n  \"original_max_position_embeddings\": 4096,\n", 0 },
    { "smollm3-3b", "smollm3", "SmolLM3-3B",
      128256, 2048, 11008, 36, 16, 4, 0, 65536, 1e-6, 5000000.0, 1, 0, NULL, 0, 0, 28, 128000, 128012, -1, LLM_DTYPE_BF16,
      "\"no_rope_layer_interval\": 4,\n", 0 },
    { "granite-3.3-2b", "granite", "granite-3.3-2b-instruct",
      49159, 2048, 8192, 40, 32, 8, 0, 131072, 1e-5, 10000000.0, 1, 0, NULL, -1, -1, -1, 0, 0, -1, LLM_DTYPE_BF16,
      "\"embedding_multiplier\": 12.0,\n  \"attention_multiplier\": 0.015625,\n  \"residual_multiplier\": 0.22,\n"
      "  \"logits_scaling\": 8.0,\n", 0 },
    { "olmoe-1b-7b", "olmoe", "OLMoE-1B-7B-0924: 64 experts, 8 per token (7B weights, 1.3B active)",
      50304, 2048, 1024, 16, 16, 16, 0, 4096, 1e-5, 10000.0, 0, 0, NULL, -1, -1, -1, -1, 50279, -1, LLM_DTYPE_BF16,
      "\"clip_qkv\": null,\n  \"pad_token_id\": 1,\n", 0 },
    { "qwen3-30b-a3b", "qwen3_moe", "Qwen3-30B-A3B: 128 experts, 8 per token (30B weights, 3B active)",
      151936, 2048, 6144, 48, 32, 4, 128, 40960, 1e-6, 1000000.0, 0, 0, NULL, -1, 0, 48, 151643, 151645, -1, LLM_DTYPE_BF16, NULL, 0 },
};

/* The mixture of experts of a variant or shape, by its name: experts, chosen per token,
   each expert's width (0: intermediate_size, as Mixtral's and OLMoE's), norm_topk_prob, the shared expert's
   width, decoder_sparse_step and mlp_only_layers (a JSON list or NULL). */
typedef struct moe_spec {
    const char *name;
    int experts, used, moe_ff, norm_topk, shared_ff, sparse_step;
    const char *mlp_only;
} moe_spec;

static const moe_spec moe_specs[] = {
    { "mixtral", 8, 2, 0, 1, 0, 1, NULL },
    { "qwen3-moe", 8, 2, 32, 1, 0, 1, "[1]" },
    { "qwen3-moe-step2", 6, 3, 48, 0, 0, 2, NULL },
    { "qwen2-moe", 4, 2, 32, 0, 48, 1, NULL },
    { "olmoe", 8, 3, 0, 0, 0, 1, NULL },
    { "olmoe-1b-7b", 64, 8, 0, 0, 0, 1, NULL },
    { "qwen3-30b-a3b", 128, 8, 768, 1, 0, 1, NULL },
};

static const moe_spec *moe_of(const spec *s) {
    size_t i;
    for (i = 0; i < sizeof moe_specs / sizeof moe_specs[0]; i++) if (!strcmp(moe_specs[i].name, s->name)) return &moe_specs[i];
    return NULL;
}

/* Whether layer il has experts, as Qwen3MoeDecoderLayer decides (Mixtral: every layer). */
static int moe_layer(const moe_spec *m, int il) {
    char n[16];
    if (!m) return 0;
    snprintf(n, sizeof n, "%d", il);
    if (m->mlp_only) {
        const char *p = m->mlp_only;
        while ((p = strstr(p, n)) != NULL) {
            if ((p[-1] == '[' || p[-1] == ' ' || p[-1] == ',') && (p[strlen(n)] == ']' || p[strlen(n)] == ',')) return 0;
            p++;
        }
    }
    return (il + 1) % m->sparse_step == 0;
}

/* ---- random numbers ------------------------------------------------------------------- */
/* splitmix64's output function over a counter: integer-only, so the stream is the same
   on every platform, and any element can be generated without the ones before it. */
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A stream per tensor, from the seed and the name, so tensors do not depend on the order
   in which they are written. */
static uint64_t tensor_seed(uint64_t seed, const char *name) {
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (; *name; name++) h = (h ^ (uint8_t)*name) * 0x100000001b3ULL;
    return h;
}

/* ---- tensors -------------------------------------------------------------------------- */
typedef struct gen_tensor {
    char name[96];
    int n_dims;
    int64_t shape[2];
    float center, half_width; /* uniform in [center - half_width, center + half_width] */
} gen_tensor;

typedef struct tensor_list {
    gen_tensor *t;
    int n, cap;
} tensor_list;

/* A uniform distribution with standard deviation sd has half-width sd * sqrt(3). */
static void add(tensor_list *l, const char *name, int64_t d0, int64_t d1, float center, float sd) {
    gen_tensor *t;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->t = (gen_tensor *)realloc(l->t, (size_t)l->cap * sizeof *l->t);
        if (!l->t) { fprintf(stderr, "gen_model: out of memory\n"); exit(1); }
    }
    t = &l->t[l->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = d1 ? 2 : 1;
    t->shape[0] = d0;
    t->shape[1] = d1;
    t->center = center;
    t->half_width = (float)(sd * 1.7320508075688772);
}

static int is_gemma(const spec *s) { return !strcmp(s->model_type, "gemma") || !strcmp(s->model_type, "gemma2") || !strcmp(s->model_type, "gemma3_text"); }

static int head_dim_of(const spec *s) {
    return s->head_dim > 0 ? s->head_dim : !strcmp(s->model_type, "qwen3") ? 128 : is_gemma(s) ? 256 : s->hidden / s->heads;
}

/* A sparse layer's router, experts and shared expert, in the family's names. */
static void add_experts(tensor_list *l, const spec *s, const moe_spec *m, int il) {
    int mixtral = !strcmp(s->model_type, "mixtral"), e, F = m->moe_ff ? m->moe_ff : s->ff, S = m->shared_ff;
    const char *block = mixtral ? "block_sparse_moe" : "mlp";
    float inv_d = (float)(1.0 / sqrt((double)s->hidden));
    char n[128];
    snprintf(n, sizeof n, "model.layers.%d.%s.gate.weight", il, block);
    add(l, n, m->experts, s->hidden, 0.0f, 1.5f * inv_d);
    for (e = 0; e < m->experts; e++) {
        snprintf(n, sizeof n, "model.layers.%d.%s.experts.%d.%s.weight", il, block, e, mixtral ? "w1" : "gate_proj");
        add(l, n, F, s->hidden, 0.0f, 1.5f * inv_d);
        snprintf(n, sizeof n, "model.layers.%d.%s.experts.%d.%s.weight", il, block, e, mixtral ? "w3" : "up_proj");
        add(l, n, F, s->hidden, 0.0f, 1.5f * inv_d);
        snprintf(n, sizeof n, "model.layers.%d.%s.experts.%d.%s.weight", il, block, e, mixtral ? "w2" : "down_proj");
        add(l, n, s->hidden, F, 0.0f, (float)(1.0 / sqrt((double)F)));
    }
    if (S == 0) return;
    snprintf(n, sizeof n, "model.layers.%d.mlp.shared_expert.gate_proj.weight", il);
    add(l, n, S, s->hidden, 0.0f, 1.5f * inv_d);
    snprintf(n, sizeof n, "model.layers.%d.mlp.shared_expert.up_proj.weight", il);
    add(l, n, S, s->hidden, 0.0f, 1.5f * inv_d);
    snprintf(n, sizeof n, "model.layers.%d.mlp.shared_expert.down_proj.weight", il);
    add(l, n, s->hidden, S, 0.0f, (float)(1.0 / sqrt((double)S)));
    snprintf(n, sizeof n, "model.layers.%d.mlp.shared_expert_gate.weight", il);
    add(l, n, 1, s->hidden, 0.0f, inv_d);
}

static void plan_tensors(const spec *s, tensor_list *l) {
    int64_t D = s->hidden, F = s->ff, hd = head_dim_of(s), qd = (int64_t)s->heads * hd, kvd = (int64_t)s->kv_heads * hd;
    float inv_d = (float)(1.0 / sqrt((double)D));
    int qwen2 = !strcmp(s->model_type, "qwen2") || !strcmp(s->model_type, "qwen2_moe");
    int qwen3 = !strcmp(s->model_type, "qwen3") || !strcmp(s->model_type, "qwen3_moe") || !strcmp(s->model_type, "gemma3_text");
    int olmo2 = !strcmp(s->model_type, "olmo2"), olmoe = !strcmp(s->model_type, "olmoe"), phi3 = !strcmp(s->model_type, "phi3"), gemma = is_gemma(s);
    int sandwich = gemma && strcmp(s->model_type, "gemma"); /* Gemma 2 and 3; Gemma 1 is pre-norm */
    float norm_center = gemma ? 0.0f : 1.0f; /* Gemma's norms multiply by 1 + w */
    const moe_spec *moe = moe_of(s);
    int il;
    char n[96];
    /* Embeddings: the tied head reads them too, where sd 0.5 gives logits of sd 0.5 sqrt(D). */
    add(l, "model.embed_tokens.weight", s->vocab, D, 0.0f, 0.5f);
    for (il = 0; il < s->layers; il++) {
#define NAME(suffix) (snprintf(n, sizeof n, "model.layers.%d.%s", il, suffix), n)
        if (!olmo2) add(l, NAME("input_layernorm.weight"), D, 0, norm_center, 0.15f);
        /* q and k elements of sd 2 make q.k / sqrt(head_dim) of sd 4: peaked attention. Phi-3
           holds the three as one matrix, q rows then k then v. */
        if (phi3) {
            add(l, NAME("self_attn.qkv_proj.weight"), qd + 2 * kvd, D, 0.0f, 1.5f * inv_d);
        } else {
            add(l, NAME("self_attn.q_proj.weight"), qd, D, 0.0f, 2.0f * inv_d);
            add(l, NAME("self_attn.k_proj.weight"), kvd, D, 0.0f, 2.0f * inv_d);
            add(l, NAME("self_attn.v_proj.weight"), kvd, D, 0.0f, inv_d);
        }
        add(l, NAME("self_attn.o_proj.weight"), D, qd, 0.0f, (float)(1.0 / sqrt((double)qd)));
        if (qwen2 || s->attention_bias) {
            add(l, NAME("self_attn.q_proj.bias"), qd, 0, 0.0f, 0.5f);
            add(l, NAME("self_attn.k_proj.bias"), kvd, 0, 0.0f, 0.5f);
            add(l, NAME("self_attn.v_proj.bias"), kvd, 0, 0.0f, 0.5f);
        }
        if (s->attention_bias) add(l, NAME("self_attn.o_proj.bias"), D, 0, 0.0f, 0.5f);
        if (qwen3) { /* normalised q and k: weights near 2 keep the scores at sd ~4 */
            add(l, NAME("self_attn.q_norm.weight"), hd, 0, 2.0f - (1.0f - norm_center), 0.3f);
            add(l, NAME("self_attn.k_norm.weight"), hd, 0, 2.0f - (1.0f - norm_center), 0.3f);
        }
        if (olmo2 || olmoe) { /* over all heads at once */
            add(l, NAME("self_attn.q_norm.weight"), qd, 0, 2.0f, 0.3f);
            add(l, NAME("self_attn.k_norm.weight"), kvd, 0, 2.0f, 0.3f);
        }
        add(l, NAME("post_attention_layernorm.weight"), D, 0, norm_center, 0.15f);
        if (sandwich) add(l, NAME("pre_feedforward_layernorm.weight"), D, 0, norm_center, 0.15f);
        if (sandwich || olmo2) add(l, NAME("post_feedforward_layernorm.weight"), D, 0, norm_center, 0.15f);
        if (moe_layer(moe, il)) {
            add_experts(l, s, moe, il);
            continue;
        }
        if (phi3) {
            add(l, NAME("mlp.gate_up_proj.weight"), 2 * F, D, 0.0f, 1.5f * inv_d);
        } else {
            add(l, NAME("mlp.gate_proj.weight"), F, D, 0.0f, 1.5f * inv_d);
            add(l, NAME("mlp.up_proj.weight"), F, D, 0.0f, 1.5f * inv_d);
        }
        add(l, NAME("mlp.down_proj.weight"), D, F, 0.0f, (float)(1.0 / sqrt((double)F)));
#undef NAME
    }
    add(l, "model.norm.weight", D, 0, norm_center, 0.15f);
    if (!s->tied) add(l, "lm_head.weight", s->vocab, D, 0.0f, 4.0f * inv_d); /* logits of sd ~4 */
}

/* ---- files ---------------------------------------------------------------------------- */
static const char *st_dtype(llm_dtype t) { return t == LLM_DTYPE_F32 ? "F32" : t == LLM_DTYPE_F16 ? "F16" : "BF16"; }
static size_t elem_size(llm_dtype t) { return t == LLM_DTYPE_F32 ? 4 : 2; }

static void die_io(const char *path) {
    fprintf(stderr, "gen_model: %s: %s\n", path, strerror(errno));
    exit(1);
}

/* The shortest decimal that reads back as the same double, as Python's json writes it. */
static void put_number(FILE *f, double v) {
    char buf[40];
    int p;
    if (v == floor(v) && fabs(v) < 1e15) snprintf(buf, sizeof buf, "%.1f", v);
    else
        for (p = 1; p <= 17; p++) {
            snprintf(buf, sizeof buf, "%.*g", p, v);
            if (strtod(buf, NULL) == v) break;
        }
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    fputs(buf, f);
}

/* The config.json keys of the mixture, in the family's spelling. */
static void write_moe_config(FILE *f, const spec *s) {
    const moe_spec *m = moe_of(s);
    if (!m) return;
    if (!strcmp(s->model_type, "mixtral")) {
        fprintf(f, "  \"num_local_experts\": %d,\n  \"num_experts_per_tok\": %d,\n", m->experts, m->used);
        return;
    }
    if (!strcmp(s->model_type, "olmoe")) {
        fprintf(f, "  \"num_experts\": %d,\n  \"num_experts_per_tok\": %d,\n  \"norm_topk_prob\": %s,\n", m->experts, m->used,
                m->norm_topk ? "true" : "false");
        return;
    }
    fprintf(f, "  \"num_experts\": %d,\n  \"num_experts_per_tok\": %d,\n  \"moe_intermediate_size\": %d,\n", m->experts, m->used,
            m->moe_ff);
    fprintf(f, "  \"norm_topk_prob\": %s,\n  \"decoder_sparse_step\": %d,\n", m->norm_topk ? "true" : "false", m->sparse_step);
    if (m->mlp_only) fprintf(f, "  \"mlp_only_layers\": %s,\n", m->mlp_only);
    if (m->shared_ff) fprintf(f, "  \"shared_expert_intermediate_size\": %d,\n", m->shared_ff);
}

static void write_config(const char *dir, const spec *s) {
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (!(f = fopen(path, "w"))) die_io(path);
    static const char *const classes[][2] = {
        { "llama", "Llama" }, { "mistral", "Mistral" }, { "qwen2", "Qwen2" }, { "qwen3", "Qwen3" }, { "gemma", "Gemma" }, { "gemma2", "Gemma2" },
        { "gemma3_text", "Gemma3" }, { "phi3", "Phi3" }, { "smollm3", "SmolLM3" }, { "granite", "Granite" }, { "olmo2", "Olmo2" },
        { "mixtral", "Mixtral" }, { "qwen3_moe", "Qwen3Moe" }, { "qwen2_moe", "Qwen2Moe" }, { "olmoe", "Olmoe" },
    };
    const char *cls = "Llama";
    size_t i;
    for (i = 0; i < sizeof classes / sizeof classes[0]; i++) if (!strcmp(classes[i][0], s->model_type)) cls = classes[i][1];
    fprintf(f, "{\n  \"architectures\": [\"%sForCausalLM\"],\n", cls);
    fprintf(f, "  \"model_type\": \"%s\",\n", s->model_type);
    fprintf(f, "  \"vocab_size\": %d,\n  \"hidden_size\": %d,\n  \"intermediate_size\": %d,\n", s->vocab, s->hidden, s->ff);
    fprintf(f, "  \"num_hidden_layers\": %d,\n  \"num_attention_heads\": %d,\n  \"num_key_value_heads\": %d,\n",
            s->layers, s->heads, s->kv_heads);
    if (s->head_dim > 0) fprintf(f, "  \"head_dim\": %d,\n", s->head_dim);
    fprintf(f, "  \"%s\",\n  \"max_position_embeddings\": %d,\n",
            is_gemma(s) ? "hidden_activation\": \"gelu_pytorch_tanh" : "hidden_act\": \"silu", s->max_pos);
    if (s->extra) fprintf(f, "  %s", s->extra);
    fputs("  \"rms_norm_eps\": ", f); put_number(f, s->eps);
    fputs(",\n  \"rope_theta\": ", f); put_number(f, s->theta);
    fprintf(f, ",\n  \"rope_scaling\": %s,\n", s->rope_scaling ? s->rope_scaling : "null");
    if (strcmp(s->model_type, "mistral") != 0 && strcmp(s->model_type, "qwen2") != 0)
        fprintf(f, "  \"attention_bias\": %s,\n", s->attention_bias ? "true" : "false");
    if (s->sliding_window > 0) fprintf(f, "  \"sliding_window\": %d,\n", s->sliding_window);
    else if (s->sliding_window == 0) fputs("  \"sliding_window\": null,\n", f);
    if (s->use_sliding_window >= 0) fprintf(f, "  \"use_sliding_window\": %s,\n", s->use_sliding_window ? "true" : "false");
    if (s->max_window_layers >= 0) fprintf(f, "  \"max_window_layers\": %d,\n", s->max_window_layers);
    write_moe_config(f, s);
    if (s->bos >= 0) fprintf(f, "  \"bos_token_id\": %d,\n", s->bos);
    else fputs("  \"bos_token_id\": null,\n", f);
    fprintf(f, "  \"eos_token_id\": %d,\n", s->eos);
    fprintf(f, "  \"tie_word_embeddings\": %s,\n  \"torch_dtype\": \"%s\"\n}\n", s->tied ? "true" : "false",
            s->dtype == LLM_DTYPE_F32 ? "float32" : s->dtype == LLM_DTYPE_F16 ? "float16" : "bfloat16");
    if (fclose(f) != 0) die_io(path);

    snprintf(path, sizeof path, "%s/generation_config.json", dir);
    if (!(f = fopen(path, "w"))) die_io(path);
    fputs("{\n  \"_from_model_config\": true,\n", f);
    if (s->bos >= 0) fprintf(f, "  \"bos_token_id\": %d,\n", s->bos);
    if (s->eos2 >= 0) fprintf(f, "  \"eos_token_id\": [%d, %d]\n}\n", s->eos, s->eos2);
    else fprintf(f, "  \"eos_token_id\": %d\n}\n", s->eos);
    if (fclose(f) != 0) die_io(path);
}

/* Fills out[0..n) with elements [first, first + n) of tensor t: 16 random bits each, four
   to a 64-bit word. (k - 32767.5) * step is one rounding, adding the center another; the
   volatile keeps any compiler from fusing them into an FMA (-ffp-contract=fast would). */
static void fill(const gen_tensor *t, uint64_t seed, uint64_t first, size_t n, llm_dtype dtype, void *out) {
    uint64_t base = tensor_seed(seed, t->name), word = 0;
    uint8_t *o = (uint8_t *)out;
    float step = t->half_width / 32768.0f;
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t e = first + i;
        int k;
        volatile float x;
        float v;
        if (i == 0 || e % 4 == 0) word = mix64(base + (e / 4 + 1) * 0x9E3779B97F4A7C15ULL);
        k = (int)((word >> (16 * (e % 4))) & 0xffff);
        x = ((float)k - 32767.5f) * step;
        v = t->center + x;
        if (dtype == LLM_DTYPE_F32) { /* little-endian bytes, as safetensors stores them */
            uint32_t u;
            memcpy(&u, &v, 4);
            o[4 * i] = (uint8_t)u; o[4 * i + 1] = (uint8_t)(u >> 8); o[4 * i + 2] = (uint8_t)(u >> 16); o[4 * i + 3] = (uint8_t)(u >> 24);
        } else {
            uint16_t h = dtype == LLM_DTYPE_F16 ? llm_f32_to_f16(v) : llm_f32_to_bf16(v);
            o[2 * i] = (uint8_t)h; o[2 * i + 1] = (uint8_t)(h >> 8);
        }
    }
}

/* A base model's name: without "model." (the values stay those of the full name). */
static const char *saved_name(const spec *s, const char *name) { return s->base && !strncmp(name, "model.", 6) ? name + 6 : name; }

static void write_safetensors(const char *dir, const spec *s, const tensor_list *l, llm_dtype dtype, uint64_t seed) {
    char path[4096], *hdr;
    size_t cap = 256 + (size_t)l->n * 256, len = 0, chunk = (size_t)1 << 20;
    uint64_t off = 0, hlen;
    uint8_t lenb[8];
    void *buf = malloc(chunk * 4);
    FILE *f;
    int i, b;
    hdr = (char *)malloc(cap);
    if (!hdr || !buf) { fprintf(stderr, "gen_model: out of memory\n"); exit(1); }
    len += (size_t)snprintf(hdr + len, cap - len, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (i = 0; i < l->n; i++) {
        const gen_tensor *t = &l->t[i];
        uint64_t count = (uint64_t)t->shape[0] * (uint64_t)(t->n_dims == 2 ? t->shape[1] : 1), size = count * elem_size(dtype);
        len += (size_t)snprintf(hdr + len, cap - len, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%lld", saved_name(s, t->name), st_dtype(dtype),
                                (long long)t->shape[0]);
        if (t->n_dims == 2) len += (size_t)snprintf(hdr + len, cap - len, ",%lld", (long long)t->shape[1]);
        len += (size_t)snprintf(hdr + len, cap - len, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off,
                                (unsigned long long)(off + size));
        off += size;
    }
    len += (size_t)snprintf(hdr + len, cap - len, "}");
    while (len % 8) hdr[len++] = ' '; /* the data starts 8-byte aligned, as safetensors writes it */
    hlen = len;
    for (b = 0; b < 8; b++) lenb[b] = (uint8_t)(hlen >> (8 * b));
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (!(f = fopen(path, "wb"))) die_io(path);
    if (fwrite(lenb, 1, 8, f) != 8 || fwrite(hdr, 1, len, f) != len) die_io(path);
    for (i = 0; i < l->n; i++) {
        const gen_tensor *t = &l->t[i];
        uint64_t count = (uint64_t)t->shape[0] * (uint64_t)(t->n_dims == 2 ? t->shape[1] : 1), done;
        for (done = 0; done < count; done += chunk) {
            size_t n = count - done < chunk ? (size_t)(count - done) : chunk;
            fill(t, seed, done, n, dtype, buf);
            if (fwrite(buf, elem_size(dtype), n, f) != n) die_io(path);
        }
    }
    if (fclose(f) != 0) die_io(path);
    free(hdr);
    free(buf);
}

static void make_dirs(const char *dir);

/* Writes text to the file dir/name. */
static void write_text(const char *dir, const char *name, const char *text) {
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "w")) || fputs(text, f) < 0 || fclose(f) != 0) die_io(path);
}

/* sentence-transformers' files: the transformer, last-token pooling, then Normalize; a query
   prompt and an empty document one, in the form of Qwen3-Embedding's. */
static void write_modules(const char *dir, int hidden) {
    char path[4096], pooling[512];
    write_text(dir, "modules.json",
               "[\n  {\"idx\": 0, \"name\": \"0\", \"path\": \"\", \"type\": \"sentence_transformers.models.Transformer\"},\n"
               "  {\"idx\": 1, \"name\": \"1\", \"path\": \"1_Pooling\", \"type\": \"sentence_transformers.models.Pooling\"},\n"
               "  {\"idx\": 2, \"name\": \"2\", \"path\": \"2_Normalize\", \"type\": \"sentence_transformers.models.Normalize\"}\n]\n");
    write_text(dir, "config_sentence_transformers.json",
               "{\n  \"prompts\": {\"query\": \"Instruct: find the verse\\nQuery:\", \"document\": \"\"},\n  \"default_prompt_name\": null,\n"
               "  \"similarity_fn_name\": \"cosine\"\n}\n");
    snprintf(path, sizeof path, "%s/1_Pooling", dir);
    make_dirs(path);
    snprintf(path, sizeof path, "%s/2_Normalize", dir);
    make_dirs(path);
    snprintf(pooling, sizeof pooling,
             "{\n  \"word_embedding_dimension\": %d,\n  \"pooling_mode_cls_token\": false,\n  \"pooling_mode_mean_tokens\": false,\n"
             "  \"pooling_mode_max_tokens\": false,\n  \"pooling_mode_mean_sqrt_len_tokens\": false,\n"
             "  \"pooling_mode_weightedmean_tokens\": false,\n  \"pooling_mode_lasttoken\": true,\n  \"include_prompt\": true\n}\n", hidden);
    write_text(dir, "1_Pooling/config.json", pooling);
}

/* mkdir -p */
static void make_dirs(const char *dir) {
    char p[4096];
    size_t i;
    snprintf(p, sizeof p, "%s", dir);
    for (i = 1; p[i]; i++) {
        if (p[i] != '/') continue;
        p[i] = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) die_io(p);
        p[i] = '/';
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST) die_io(p);
}

static const spec *find_spec(const spec *list, size_t n, const char *name) {
    size_t i;
    for (i = 0; i < n; i++) if (!strcmp(list[i].name, name)) return &list[i];
    return NULL;
}

static void usage(FILE *f) {
    fprintf(f, "usage: gen_model OUT_DIR (--variant NAME | --shape NAME) [--dtype f32|f16|bf16] [--seed S]\n"
               "       gen_model --list\n");
}

int main(int argc, char **argv) {
    const char *dir = NULL, *variant = NULL, *shape = NULL, *dtype_arg = NULL;
    uint64_t seed = 1;
    spec s;
    const spec *base;
    tensor_list l;
    size_t i;
    int a;
    for (a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--list")) {
            for (i = 0; i < sizeof variants / sizeof variants[0]; i++) printf("variant %-24s %s\n", variants[i].name, variants[i].note);
            for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) printf("shape   %-24s %s\n", shapes[i].name, shapes[i].note);
            return 0;
        }
        if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) { usage(stdout); return 0; }
        if (argv[a][0] != '-') { if (dir) { usage(stderr); return 2; } dir = argv[a]; continue; }
        if (!v) { fprintf(stderr, "gen_model: %s needs a value\n", argv[a]); return 2; }
        a++;
        if (!strcmp(argv[a - 1], "--variant")) variant = v;
        else if (!strcmp(argv[a - 1], "--shape")) shape = v;
        else if (!strcmp(argv[a - 1], "--dtype")) dtype_arg = v;
        else if (!strcmp(argv[a - 1], "--seed")) seed = strtoull(v, NULL, 10);
        else { fprintf(stderr, "gen_model: unknown option '%s'\n", argv[a - 1]); usage(stderr); return 2; }
    }
    if (!dir || !variant == !shape) { usage(stderr); return 2; }
    base = variant ? find_spec(variants, sizeof variants / sizeof variants[0], variant)
                   : find_spec(shapes, sizeof shapes / sizeof shapes[0], shape);
    if (!base) { fprintf(stderr, "gen_model: unknown %s '%s' (see --list)\n", variant ? "variant" : "shape", variant ? variant : shape); return 2; }
    s = *base;
    if (dtype_arg) {
        if (!strcmp(dtype_arg, "f32")) s.dtype = LLM_DTYPE_F32;
        else if (!strcmp(dtype_arg, "f16")) s.dtype = LLM_DTYPE_F16;
        else if (!strcmp(dtype_arg, "bf16")) s.dtype = LLM_DTYPE_BF16;
        else { fprintf(stderr, "gen_model: unknown --dtype '%s'\n", dtype_arg); return 2; }
    }
    make_dirs(dir);
    memset(&l, 0, sizeof l);
    plan_tensors(&s, &l);
    write_config(dir, &s);
    write_safetensors(dir, &s, &l, s.dtype, seed);
    if (s.base) write_modules(dir, s.hidden);
    printf("gen_model: wrote %s (%s, %s, seed %llu)\n", dir, s.name, st_dtype(s.dtype), (unsigned long long)seed);
    free(l.t);
    return 0;
}
