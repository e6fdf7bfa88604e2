/* test_reference: llm.h's forward pass against a slow, obviously correct reference.

   For every variant of build/gen_model: generate the HuggingFace directory, convert it
   with build/convert (f32, f16 and bf16 weights), run llm.h on a sequence longer than
   any sliding window (token by token, as whole prefixes in one batch, and in chunks of 7),
   and compare every logit with a double-precision forward pass written here from
   transformers' modeling code. The reference reads config.json and model.safetensors
   itself and shares no code with llm.h's forward pass; for f16/bf16 files it rounds the
   matrices the way the converter must (tests/refnum.h). Then every combination of the model
   switches (block norm placement, q/k norm, activation, (1 + w) norms, with scales, soft-caps,
   partial rotary, NoPE and local-theta layers among them), in files written directly
   (tests/tiny_model.h), against the same reference.

   Tolerance: llm.h computes in float32 (unit roundoff u = 2^-24 = 6e-8). A dot product of
   n terms accumulated in order is off by at most about n u sum|terms|; with n <= 128 and
   terms of mixed sign that is ~1e-6 relative to the logit scale per matrix product, and
   the few dozen products, norms and softmaxes of a 2-3 layer model compound it to a few
   1e-6 (measured: the worst case is printed). We allow 5e-5 of the logit scale (the
   largest |logit| of the sequence), an order of magnitude above what float32 gives and
   far below what a wrong RoPE layout, mask, window, bias, head mapping or scaling does
   (1e-2 to 1 of the scale; tests/test_reference.c was checked against such breakages).

   With an f16 KV cache each cached element carries a relative error of up to 2^-12;
   scores of standard deviation ~4 move by ~1e-3 and the logits by a few 1e-3 of their
   scale (measured up to 4.4e-3), so that check allows 1e-2: it catches a broken f16
   path, not rounding details. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define JSON_IMPLEMENTATION
#include "../tools/json.h"
#include "refnum.h"
#include "tiny_model.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 5e-5            /* of the logit scale, float32 against double (see above) */
#define TOL_KV_F16 1e-2     /* with an f16 KV cache (see the top comment) */
#define SEQ 20              /* longer than the windows of the mistral (5) and qwen2-swa (6) variants */
#define REF_OUT "build/tests/reference"

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
    return p;
}

/* ---- the reference: configuration ------------------------------------------------------ */
typedef struct ref_config {
    char model_type[32];
    int vocab, hidden, ff, layers, heads, kv_heads, head_dim;
    double eps, theta;
    int tied, qk_norm, bias_qkv, bias_o;
    char rope_type[32];
    double rope_factor, low_freq_factor, high_freq_factor, original_max_pos;
    int *window; /* per layer; 0: full attention */
    /* the families beyond Llama's anatomy */
    int block;              /* 0 pre-norm, 1 post-norm (Olmo2), 2 sandwich (Gemma2/3) */
    int plus_one, gelu;     /* Gemma: norms times (1 + w); the gate: 0 silu, 1 gelu_pytorch_tanh, 2 gelu (llm_activation) */
    int fused;              /* Phi3: qkv_proj, gate_up_proj */
    double embed_scale, scaling, residual, logits_scaling, attn_cap, final_cap;
    int rotary_dim;         /* Phi3: int(head_dim * partial_rotary_factor) */
    int *use_rope;          /* per layer: 0 none (SmolLM3), 1 the model's, 2 Gemma3's local */
    double local_theta, attention_factor, beta_fast, beta_slow;
    double short_factor[64], long_factor[64];
    /* mixtures of experts (experts 0: dense) */
    int experts, used, moe_ff, norm_topk, shared_ff, mixtral_names;
    int *sparse; /* per layer */
} ref_config;

static const json_value *get(const json_value *o, const char *key) {
    const json_value *v = json_get(o, key);
    return v && v->type != JSON_NULL ? v : NULL;
}

static double num(const json_value *o, const char *key, double dflt) {
    const json_value *v = get(o, key);
    return v ? v->number : dflt;
}

static int flag(const json_value *o, const char *key) {
    const json_value *v = get(o, key);
    return v && v->type == JSON_TRUE;
}

/* Gemma 1/2/3, Phi3, Granite, Olmo2, SmolLM3: their config classes' numbers and the modeling
   code's choices (GemmaConfig, Gemma2Config, Gemma3TextConfig, Phi3Config, GraniteConfig, ...). */
static void ref_read_family(const json_value *j, ref_config *c, int gemma, int gemma3) {
    const json_value *rs = get(j, "rope_scaling"), *act;
    int i, gemma1 = !strcmp(c->model_type, "gemma");
    c->block = gemma ? 2 : !strcmp(c->model_type, "olmo2") ? 1 : 0;
    c->plus_one = gemma || gemma1;
    /* GemmaMLP: ACT2FN[hidden_act], GemmaConfig's default gelu_pytorch_tanh; Gemma 2/3's MLP:
       hidden_activation; the others: hidden_act, silu */
    act = get(j, gemma ? "hidden_activation" : "hidden_act");
    c->gelu = !act ? gemma || gemma1 : !strcmp(act->str, "gelu_pytorch_tanh") ? 1 : !strcmp(act->str, "gelu") ? 2 : 0;
    c->embed_scale = gemma || gemma1 ? sqrt((double)c->hidden) : 1.0;
    c->scaling = 1.0 / sqrt((double)c->head_dim);
    c->residual = 1.0;
    c->logits_scaling = 1.0;
    c->attention_factor = 1.0;
    if (gemma) { /* absent softcapping keys: Gemma2Config's 50 and 30; null: none */
        c->scaling = 1.0 / sqrt(num(j, "query_pre_attn_scalar", 256));
        c->attn_cap = json_get(j, "attn_logit_softcapping") ? num(j, "attn_logit_softcapping", 0) : gemma3 ? 0 : 50.0;
        c->final_cap = json_get(j, "final_logit_softcapping") ? num(j, "final_logit_softcapping", 0) : gemma3 ? 0 : 30.0;
    }
    if (!strcmp(c->model_type, "granite")) {
        c->embed_scale = num(j, "embedding_multiplier", 1.0);
        c->scaling = num(j, "attention_multiplier", 1.0);
        c->residual = num(j, "residual_multiplier", 1.0);
        c->logits_scaling = num(j, "logits_scaling", 1.0);
    }
    c->local_theta = num(j, "rope_local_base_freq", 10000.0);
    c->rotary_dim = (int)(c->head_dim * (c->fused ? num(j, "partial_rotary_factor", 1.0) : 1.0));
    if (rs && !strcmp(c->rope_type, "yarn")) { /* _compute_yarn_parameters */
        c->original_max_pos = num(rs, "original_max_position_embeddings", num(j, "max_position_embeddings", 0));
        c->beta_fast = num(rs, "beta_fast", 32);
        c->beta_slow = num(rs, "beta_slow", 1);
        c->attention_factor = num(rs, "attention_factor", c->rope_factor > 1 ? 0.1 * log(c->rope_factor) + 1.0 : 1.0);
    }
    if (rs && !strcmp(c->rope_type, "longrope")) { /* _compute_longrope_parameters, Phi3 */
        double orig = num(j, "original_max_position_embeddings", 0), factor = num(j, "max_position_embeddings", 0) / orig;
        for (i = 0; i < c->rotary_dim / 2; i++) {
            c->short_factor[i] = get(rs, "short_factor")->items[i].number;
            c->long_factor[i] = get(rs, "long_factor")->items[i].number;
        }
        c->original_max_pos = orig;
        c->attention_factor = num(rs, "attention_factor", factor <= 1 ? 1.0 : sqrt(1 + log(factor) / log(orig)));
    }
}

/* Per layer: Gemma's sliding layers (layer_types, else the pattern), SmolLM3's no_rope_layers,
   Gemma3's local rope on its sliding layers. */
static void ref_read_layers(const json_value *j, ref_config *c, int window, int gemma, int gemma3) {
    const json_value *types = get(j, "layer_types"), *nope = get(j, "no_rope_layers");
    int i, interval = (int)num(j, "no_rope_layer_interval", 4), pattern = (int)num(j, "sliding_window_pattern", gemma3 ? 6 : 2);
    int smol = !strcmp(c->model_type, "smollm3");
    c->use_rope = (int *)xcalloc((size_t)c->layers, sizeof(int));
    for (i = 0; i < c->layers; i++) {
        int sliding = types ? !strcmp(types->items[i].str, "sliding_attention") : (i + 1) % pattern != 0;
        if (gemma) c->window[i] = sliding ? window : 0;
        c->use_rope[i] = gemma3 && sliding ? 2 : 1;
        if (smol) c->use_rope[i] = nope ? (int)nope->items[i].number : (i + 1) % interval != 0;
    }
}

/* MixtralConfig, Qwen3MoeConfig, Qwen2MoeConfig and OlmoeConfig: the experts and which layers
   have them (Qwen: not in mlp_only_layers and (layer + 1) % decoder_sparse_step == 0; OLMoE:
   every layer, OlmoeMLP of intermediate_size), and the attention they share with Mistral,
   Qwen3 and Qwen2. */
static void ref_read_moe_config(const json_value *j, ref_config *c) {
    int mixtral = !strcmp(c->model_type, "mixtral"), q3 = !strcmp(c->model_type, "qwen3_moe"), q2 = !strcmp(c->model_type, "qwen2_moe");
    int olmoe = !strcmp(c->model_type, "olmoe");
    const json_value *dense = get(j, "mlp_only_layers"), *sw = json_get(j, "sliding_window");
    int step = (int)num(j, "decoder_sparse_step", 1), i;
    size_t k;
    c->sparse = (int *)xcalloc((size_t)c->layers, sizeof(int));
    if (!mixtral && !q3 && !q2 && !olmoe) return;
    if (olmoe) step = 1, dense = NULL;
    c->experts = (int)num(j, mixtral ? "num_local_experts" : "num_experts", mixtral ? 8 : q2 ? 60 : olmoe ? 64 : 128);
    c->used = (int)num(j, "num_experts_per_tok", mixtral ? 2 : q2 ? 4 : 8);
    c->moe_ff = mixtral || olmoe ? c->ff : (int)num(j, "moe_intermediate_size", q2 ? 1408 : 768);
    c->norm_topk = mixtral || flag(j, "norm_topk_prob");
    c->shared_ff = q2 ? (int)num(j, "shared_expert_intermediate_size", 5632) : 0;
    c->mixtral_names = mixtral;
    for (i = 0; i < c->layers; i++) c->sparse[i] = mixtral || (i + 1) % step == 0;
    for (k = 0; dense && k < dense->len; k++) c->sparse[(int)dense->items[k].number] = 0;
    if (mixtral) { /* MistralConfig's window, but MixtralConfig defaults it to None */
        c->bias_qkv = c->bias_o = 0;
        for (i = 0; i < c->layers; i++) c->window[i] = sw && sw->type != JSON_NULL ? (int)sw->number : 0;
    }
    if (q3) { c->qk_norm = 1; c->head_dim = (int)num(j, "head_dim", c->hidden / c->heads); }
    if (q2) { c->bias_qkv = !get(j, "qkv_bias") || flag(j, "qkv_bias"); c->bias_o = 0; }
    if (q2 || q3) { /* Qwen2's sliding-window rule */
        int w = !sw ? 4096 : sw->type == JSON_NULL ? 0 : (int)sw->number, first = (int)num(j, "max_window_layers", 28);
        for (i = 0; i < c->layers; i++) c->window[i] = flag(j, "use_sliding_window") && i >= first ? w : 0;
    }
}

/* The numbers transformers' config classes (LlamaConfig, MistralConfig, Qwen2Config,
   Qwen3Config) and attention modules derive from config.json, defaults included. */
static void ref_read_config(const char *dir, ref_config *c) {
    char path[512], err[256];
    json_value *j;
    const json_value *rs, *sw;
    int i, is_qwen, window = 0, first_window_layer = 0, gemma, gemma3;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (!(j = json_parse_file(path, err, sizeof err))) { fprintf(stderr, "%s\n", err); exit(2); }
    memset(c, 0, sizeof *c);
    snprintf(c->model_type, sizeof c->model_type, "%s", get(j, "model_type")->str);
    is_qwen = !strcmp(c->model_type, "qwen2") || !strcmp(c->model_type, "qwen3");
    c->vocab = (int)num(j, "vocab_size", 0);
    c->hidden = (int)num(j, "hidden_size", 0);
    c->ff = (int)num(j, "intermediate_size", 0);
    c->layers = (int)num(j, "num_hidden_layers", 0);
    c->heads = (int)num(j, "num_attention_heads", 0);
    c->kv_heads = (int)num(j, "num_key_value_heads", c->heads);
    gemma3 = !strcmp(c->model_type, "gemma3_text");
    gemma = gemma3 || !strcmp(c->model_type, "gemma2");
    c->head_dim = (int)num(j, "head_dim", !strcmp(c->model_type, "qwen3") ? 128 : gemma || !strcmp(c->model_type, "gemma") ? 256 : c->hidden / c->heads);
    c->eps = num(j, "rms_norm_eps", 1e-6);
    c->theta = num(j, "rope_theta", 10000.0);
    c->tied = flag(j, "tie_word_embeddings");
    /* OlmoeAttention, like Olmo2's, normalises all of q and all of k */
    c->qk_norm = !strcmp(c->model_type, "qwen3") || gemma3 ? 1 : !strcmp(c->model_type, "olmo2") || !strcmp(c->model_type, "olmoe") ? 2 : 0;
    /* q/k/v biases: qwen2 always, mistral and phi3 never, the others with attention_bias; o:
       the others with attention_bias. */
    c->fused = !strcmp(c->model_type, "phi3");
    c->bias_qkv = !strcmp(c->model_type, "qwen2") || (strcmp(c->model_type, "mistral") && !c->fused && flag(j, "attention_bias"));
    c->bias_o = strcmp(c->model_type, "qwen2") && strcmp(c->model_type, "mistral") && !c->fused && flag(j, "attention_bias");
    strcpy(c->rope_type, "default");
    if ((rs = get(j, "rope_scaling")) != NULL) {
        const json_value *t = get(rs, "rope_type") ? get(rs, "rope_type") : get(rs, "type");
        snprintf(c->rope_type, sizeof c->rope_type, "%s", t->str);
        c->rope_factor = num(rs, "factor", 1.0);
        c->low_freq_factor = num(rs, "low_freq_factor", 0);
        c->high_freq_factor = num(rs, "high_freq_factor", 0);
        c->original_max_pos = num(rs, "original_max_position_embeddings", 0);
    }
    ref_read_family(j, c, gemma, gemma3);
    /* Mistral: one window for every layer. Qwen2/3: only with use_sliding_window, and only
       from layer max_window_layers on. A missing sliding_window key means 4096, null none. */
    sw = json_get(j, "sliding_window");
    window = !sw ? 4096 : sw->type == JSON_NULL ? 0 : (int)sw->number;
    if (!sw && (!strcmp(c->model_type, "phi3") || !strcmp(c->model_type, "smollm3"))) window = 0;
    is_qwen |= !strcmp(c->model_type, "smollm3");
    if (!strcmp(c->model_type, "llama") || !strcmp(c->model_type, "granite") || !strcmp(c->model_type, "olmo2") || !strcmp(c->model_type, "gemma") ||
        !strcmp(c->model_type, "olmoe") || (is_qwen && !flag(j, "use_sliding_window")))
        window = 0;
    if (is_qwen) first_window_layer = (int)num(j, "max_window_layers", 28);
    c->window = (int *)xcalloc((size_t)c->layers, sizeof(int));
    for (i = 0; i < c->layers; i++) c->window[i] = i >= first_window_layer ? window : 0;
    ref_read_layers(j, c, window, gemma, gemma3);
    ref_read_moe_config(j, c);
    json_free(j);
}

/* ---- the reference: weights ------------------------------------------------------------- */
typedef struct ref_tensor {
    char name[128];
    int n_dims;
    long shape[2];
    double *data;
} ref_tensor;

typedef struct ref_weights {
    ref_tensor *t;
    int n;
} ref_weights;

static void ref_read_safetensors(const char *dir, ref_weights *w) {
    char path[512], err[256], *hdr;
    FILE *f;
    unsigned char lenb[8];
    uint64_t hlen = 0;
    json_value *j;
    size_t i, k;
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (!(f = fopen(path, "rb")) || fread(lenb, 1, 8, f) != 8) { fprintf(stderr, "%s: cannot read\n", path); exit(2); }
    for (i = 0; i < 8; i++) hlen |= (uint64_t)lenb[i] << (8 * i);
    hdr = (char *)xcalloc((size_t)hlen, 1);
    if (fread(hdr, 1, (size_t)hlen, f) != hlen || !(j = json_parse(hdr, (size_t)hlen, err, sizeof err))) {
        fprintf(stderr, "%s: bad header\n", path);
        exit(2);
    }
    w->t = (ref_tensor *)xcalloc(j->len, sizeof *w->t);
    w->n = 0;
    for (i = 0; i < j->len; i++) {
        const json_value *e = &j->items[i], *shape = get(e, "shape"), *offs = get(e, "data_offsets");
        const char *dt;
        ref_tensor *t;
        long count;
        size_t es;
        unsigned char *raw;
        if (!strcmp(e->key, "__metadata__")) continue;
        t = &w->t[w->n++];
        /* a base model's checkpoint (qwen3-embedding) names its tensors without the "model."
           that transformers' ...ForCausalLM puts before them (its base_model_prefix) */
        snprintf(t->name, sizeof t->name, "%s%s", strncmp(e->key, "model.", 6) && strcmp(e->key, "lm_head.weight") ? "model." : "", e->key);
        dt = get(e, "dtype")->str;
        t->n_dims = (int)shape->len;
        t->shape[0] = (long)shape->items[0].number;
        t->shape[1] = t->n_dims == 2 ? (long)shape->items[1].number : 1;
        count = t->shape[0] * t->shape[1];
        es = !strcmp(dt, "F32") ? 4 : 2;
        raw = (unsigned char *)xcalloc((size_t)count, es);
        t->data = (double *)xcalloc((size_t)count, sizeof(double));
        if (fseek(f, (long)(8 + hlen + (uint64_t)offs->items[0].number), SEEK_SET) != 0 ||
            fread(raw, es, (size_t)count, f) != (size_t)count) {
            fprintf(stderr, "%s: cannot read %s\n", path, t->name);
            exit(2);
        }
        for (k = 0; k < (size_t)count; k++) {
            const unsigned char *b = raw + k * es;
            if (es == 4) {
                uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
                float v;
                memcpy(&v, &u, 4);
                t->data[k] = v;
            } else {
                uint16_t h = (uint16_t)(b[0] | b[1] << 8);
                t->data[k] = ref_decode(!strcmp(dt, "F16") ? REF_F16 : REF_BF16, h);
            }
        }
        free(raw);
    }
    json_free(j);
    free(hdr);
    fclose(f);
}

/* The weights a --dtype f16/bf16 file holds: every matrix rounded, vectors kept. */
static void ref_round_matrices(ref_weights *w, const ref_format *fmt) {
    int i;
    long k;
    for (i = 0; i < w->n && fmt; i++)
        if (w->t[i].n_dims == 2)
            for (k = 0; k < w->t[i].shape[0] * w->t[i].shape[1]; k++) w->t[i].data[k] = ref_round(*fmt, w->t[i].data[k]);
}

static void ref_free_weights(ref_weights *w) {
    int i;
    for (i = 0; i < w->n; i++) free(w->t[i].data);
    free(w->t);
}

static const double *W(const ref_weights *w, const char *fmt, int layer) {
    char name[128];
    int i;
    snprintf(name, sizeof name, fmt, layer);
    for (i = 0; i < w->n; i++)
        if (!strcmp(w->t[i].name, name)) return w->t[i].data;
    fprintf(stderr, "reference: no tensor %s\n", name);
    exit(2);
}

/* ---- the reference: forward pass, transformers' LlamaModel / Qwen2Model / Qwen3Model --------- */
/* y[rows] = A[rows][cols] x[cols] (+ bias): nn.Linear with weight [out, in]. */
static void linear(double *y, const double *A, const double *bias, const double *x, int rows, int cols) {
    int r, c;
    for (r = 0; r < rows; r++) {
        double s = bias ? bias[r] : 0.0;
        for (c = 0; c < cols; c++) s += A[(long)r * cols + c] * x[c];
        y[r] = s;
    }
}

/* LlamaRMSNorm: weight * x / sqrt(mean(x^2) + eps); Gemma's multiplies by (1 + weight). */
static int g_plus_one; /* the model's kind, set by ref_forward */
static void rms_norm(double *y, const double *x, const double *weight, int n, double eps) {
    double ms = 0;
    int i;
    for (i = 0; i < n; i++) ms += x[i] * x[i];
    ms /= n;
    for (i = 0; i < n; i++) y[i] = (g_plus_one ? 1.0 + weight[i] : weight[i]) * (x[i] / sqrt(ms + eps));
}

/* _compute_yarn_parameters: inv_freq_interpolation * (1 - e) + inv_freq_extrapolation * e, e
   = 1 - ramp(i) between the dimensions where beta_fast and beta_slow rotations fit. */
static double yarn_inv_freq(const ref_config *c, int i) {
    int d = c->rotary_dim;
    double pos_freq = pow(c->theta, (double)(2 * i) / d);
    double low = floor(d * log(c->original_max_pos / (c->beta_fast * 2 * 3.14159265358979323846)) / (2 * log(c->theta)));
    double high = ceil(d * log(c->original_max_pos / (c->beta_slow * 2 * 3.14159265358979323846)) / (2 * log(c->theta)));
    double ramp, e;
    if (low < 0) low = 0;
    if (high > d - 1) high = d - 1;
    if (low == high) high += 0.001;
    ramp = (i - low) / (high - low);
    ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
    e = 1 - ramp;
    return 1.0 / (c->rope_factor * pos_freq) * (1 - e) + 1.0 / pos_freq * e;
}

/* LongRoPE: Phi3's rotary embedding takes the long factors in a forward call whose sequence
   (the largest position + 1) passes original_max_position_embeddings. Token by token each
   position is its own call, so position p uses them when p + 1 > original; a prefix in one
   call uses them everywhere or nowhere. Positions >= g_long_from use them. */
static int g_long_from = 1 << 30;
static int g_long; /* set by rope() for inv_freq() */

/* inv_freq[i] = 1 / theta^(2i/d), then the rope_scaling rule (modeling_rope_utils). */
static double inv_freq(const ref_config *c, int i) {
    double f = 1.0 / pow(c->theta, (double)(2 * i) / c->rotary_dim);
    if (!strcmp(c->rope_type, "yarn")) return yarn_inv_freq(c, i);
    if (!strcmp(c->rope_type, "longrope")) return f / (g_long ? c->long_factor[i] : c->short_factor[i]);
    if (!strcmp(c->rope_type, "linear")) return f / c->rope_factor;
    if (!strcmp(c->rope_type, "llama3")) {
        double low_wl = c->original_max_pos / c->low_freq_factor, high_wl = c->original_max_pos / c->high_freq_factor;
        double wl = 2 * 3.14159265358979323846 / f, smooth;
        if (wl < high_wl) return f;
        if (wl > low_wl) return f / c->rope_factor;
        smooth = (c->original_max_pos / wl - c->low_freq_factor) / (c->high_freq_factor - c->low_freq_factor);
        return (1 - smooth) * f / c->rope_factor + smooth * f;
    }
    return f;
}

/* apply_rotary_pos_emb on one head: x * cos + rotate_half(x) * sin, where
   rotate_half(x) = cat(-x[d/2:], x[:d/2]) and cos, sin = cos/sin(cat(freqs, freqs)) times the
   attention factor, over the first rotary_dim dimensions (Phi3 passes the rest); kind 2 is
   Gemma3's local rope (rope_local_base_freq, no scaling). */
static void rope(double *x, const ref_config *c, int pos, int kind) {
    int d = c->rotary_dim, half = d / 2, i;
    double out[1024], af = kind == 2 ? 1.0 : c->attention_factor;
    g_long = pos >= g_long_from;
    for (i = 0; i < d; i++) {
        double f = kind == 2 ? 1.0 / pow(c->local_theta, (double)(2 * (i % half)) / d) : inv_freq(c, i % half);
        double angle = pos * f;
        double rotated = i < half ? -x[i + half] : x[i - half];
        out[i] = x[i] * cos(angle) * af + rotated * sin(angle) * af;
    }
    memcpy(x, out, (size_t)d * sizeof *x);
}

/* gelu(approximate="tanh") */
static double gelu_tanh(double x) { return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x))); }

/* gelu(approximate="none") */
static double gelu_erf(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }

static double silu(double x) { return x / (1.0 + exp(-x)); }

/* One expert (or the shared one): y[D] = down(silu(gate(x)) * up(x)), from weights named
   PREFIX.{gate,up,down}_proj.weight (Mixtral: w1, w3, w2). */
static void expert(const ref_config *c, const ref_weights *w, const char *prefix, int F, const double *x, double *y) {
    char name[160];
    double *g = (double *)xcalloc((size_t)F, sizeof(double)), *u = (double *)xcalloc((size_t)F, sizeof(double));
    int k;
    snprintf(name, sizeof name, "%s.%s.weight", prefix, c->mixtral_names ? "w1" : "gate_proj");
    linear(g, W(w, name, 0), NULL, x, F, c->hidden);
    snprintf(name, sizeof name, "%s.%s.weight", prefix, c->mixtral_names ? "w3" : "up_proj");
    linear(u, W(w, name, 0), NULL, x, F, c->hidden);
    for (k = 0; k < F; k++) g[k] = silu(g[k]) * u[k];
    snprintf(name, sizeof name, "%s.%s.weight", prefix, c->mixtral_names ? "w2" : "down_proj");
    linear(y, W(w, name, 0), NULL, g, c->hidden, F);
    free(g); free(u);
}

/* MixtralSparseMoeBlock / Qwen3MoeSparseMoeBlock / Qwen2MoeSparseMoeBlock on one token:
   p = softmax(gate(x)), the used largest p (torch.topk; equal ones by lower index), divided
   by their sum when norm_topk_prob, out = sum p_e expert_e(x) (+ sigmoid(shared_expert_gate(x))
   shared_expert(x)). */
static void moe(const ref_config *c, const ref_weights *w, int l, const double *x, double *out) {
    const char *block = c->mixtral_names ? "block_sparse_moe" : "mlp";
    char name[160];
    double *p = (double *)xcalloc((size_t)c->experts, sizeof(double)), *y = (double *)xcalloc((size_t)c->hidden, sizeof(double));
    double mx = -INFINITY, sum = 0, chosen = 0, wt[64];
    int e, j, k, sel[64], taken[1024] = { 0 };
    snprintf(name, sizeof name, "model.layers.%d.%s.gate.weight", l, block);
    linear(p, W(w, name, 0), NULL, x, c->experts, c->hidden);
    for (e = 0; e < c->experts; e++) if (p[e] > mx) mx = p[e];
    for (e = 0; e < c->experts; e++) { p[e] = exp(p[e] - mx); sum += p[e]; }
    for (e = 0; e < c->experts; e++) p[e] /= sum;
    for (j = 0; j < c->used; j++) {
        int best = -1;
        for (e = 0; e < c->experts; e++) if (!taken[e] && (best < 0 || p[e] > p[best])) best = e;
        taken[best] = 1;
        sel[j] = best;
        wt[j] = p[best];
        chosen += p[best];
    }
    memset(out, 0, (size_t)c->hidden * sizeof *out);
    for (j = 0; j < c->used; j++) {
        snprintf(name, sizeof name, "model.layers.%d.%s.experts.%d", l, block, sel[j]);
        expert(c, w, name, c->moe_ff, x, y);
        for (k = 0; k < c->hidden; k++) out[k] += (c->norm_topk ? wt[j] / chosen : wt[j]) * y[k];
    }
    if (c->shared_ff) {
        double gate;
        snprintf(name, sizeof name, "model.layers.%d.mlp.shared_expert", l);
        expert(c, w, name, c->shared_ff, x, y);
        linear(&gate, W(w, "model.layers.%d.mlp.shared_expert_gate.weight", l), NULL, x, 1, c->hidden);
        for (k = 0; k < c->hidden; k++) out[k] += y[k] / (1.0 + exp(-gate));
    }
    free(p); free(y);
}

/* logits[n][vocab] for tokens[0..n), every position, computed from scratch. */
/* logits[n][vocab]; hidden[n][hidden] (may be NULL): the final-normed hidden states, what
   transformers' base model returns as last_hidden_state. */
static void ref_forward(const ref_config *c, const ref_weights *w, const int32_t *tokens, int n, double *logits, double *hidden) {
    int D = c->hidden, hd = c->head_dim, QD = c->heads * hd, KVD = c->kv_heads * hd, F = c->ff;
    int n_rep = c->heads / c->kv_heads, l, i, j, h, k;
    double *x = (double *)xcalloc((size_t)n * D, sizeof(double)), *h1 = (double *)xcalloc((size_t)D, sizeof(double));
    double *q = (double *)xcalloc((size_t)n * QD, sizeof(double)), *kk = (double *)xcalloc((size_t)n * KVD, sizeof(double));
    double *v = (double *)xcalloc((size_t)n * KVD, sizeof(double)), *att = (double *)xcalloc((size_t)n * QD, sizeof(double));
    double *o = (double *)xcalloc((size_t)D, sizeof(double)), *g = (double *)xcalloc((size_t)F, sizeof(double));
    double *u = (double *)xcalloc((size_t)F, sizeof(double)), *p = (double *)xcalloc((size_t)n, sizeof(double));
    const double *embed = W(w, "model.embed_tokens.weight", 0);
    g_plus_one = c->plus_one;
    for (i = 0; i < n * D; i++) x[i] = embed[(long)tokens[i / D] * D + i % D] * c->embed_scale;
    for (l = 0; l < c->layers; l++) {
        /* Phi3's fused matrices: q, k, v rows of qkv_proj; gate then up rows of gate_up_proj */
        const double *wq = c->fused ? W(w, "model.layers.%d.self_attn.qkv_proj.weight", l) : W(w, "model.layers.%d.self_attn.q_proj.weight", l);
        const double *wk = c->fused ? wq + (long)QD * D : W(w, "model.layers.%d.self_attn.k_proj.weight", l);
        const double *wv = c->fused ? wq + (long)(QD + KVD) * D : W(w, "model.layers.%d.self_attn.v_proj.weight", l);
        const double *wg = c->sparse[l] ? NULL : c->fused ? W(w, "model.layers.%d.mlp.gate_up_proj.weight", l) : W(w, "model.layers.%d.mlp.gate_proj.weight", l);
        const double *wu = c->sparse[l] ? NULL : c->fused ? wg + (long)F * D : W(w, "model.layers.%d.mlp.up_proj.weight", l);
        const double *bq = c->bias_qkv ? W(w, "model.layers.%d.self_attn.q_proj.bias", l) : NULL;
        const double *bk = c->bias_qkv ? W(w, "model.layers.%d.self_attn.k_proj.bias", l) : NULL;
        const double *bv = c->bias_qkv ? W(w, "model.layers.%d.self_attn.v_proj.bias", l) : NULL;
        const double *bo = c->bias_o ? W(w, "model.layers.%d.self_attn.o_proj.bias", l) : NULL;
        /* self-attention on the input-normalised hidden states (Olmo2: on x itself) */
        for (i = 0; i < n; i++) {
            if (c->block == 1) memcpy(h1, x + (long)i * D, (size_t)D * sizeof(double));
            else rms_norm(h1, x + (long)i * D, W(w, "model.layers.%d.input_layernorm.weight", l), D, c->eps);
            linear(q + (long)i * QD, wq, bq, h1, QD, D);
            linear(kk + (long)i * KVD, wk, bk, h1, KVD, D);
            linear(v + (long)i * KVD, wv, bv, h1, KVD, D);
            if (c->qk_norm == 2) { /* Olmo2: q_norm over all of q, k_norm over all of k */
                rms_norm(q + (long)i * QD, q + (long)i * QD, W(w, "model.layers.%d.self_attn.q_norm.weight", l), QD, c->eps);
                rms_norm(kk + (long)i * KVD, kk + (long)i * KVD, W(w, "model.layers.%d.self_attn.k_norm.weight", l), KVD, c->eps);
            }
            for (h = 0; h < c->heads; h++) {
                double *qh = q + (long)i * QD + h * hd;
                if (c->qk_norm == 1) rms_norm(qh, qh, W(w, "model.layers.%d.self_attn.q_norm.weight", l), hd, c->eps);
                if (c->use_rope[l]) rope(qh, c, i, c->use_rope[l]);
            }
            for (h = 0; h < c->kv_heads; h++) {
                double *kh = kk + (long)i * KVD + h * hd;
                if (c->qk_norm == 1) rms_norm(kh, kh, W(w, "model.layers.%d.self_attn.k_norm.weight", l), hd, c->eps);
                if (c->use_rope[l]) rope(kh, c, i, c->use_rope[l]);
            }
        }
        for (i = 0; i < n; i++)
            for (h = 0; h < c->heads; h++) {
                int kvh = h / n_rep; /* repeat_kv: kv head j serves query heads j*n_rep .. j*n_rep+n_rep-1 */
                double mx = -INFINITY, sum = 0;
                for (j = 0; j < n; j++) {
                    int visible = j <= i && (c->window[l] == 0 || i - j < c->window[l]);
                    double s = 0;
                    for (k = 0; k < hd; k++) s += q[(long)i * QD + h * hd + k] * kk[(long)j * KVD + kvh * hd + k];
                    s *= c->scaling;
                    if (c->attn_cap > 0) s = tanh(s / c->attn_cap) * c->attn_cap; /* Gemma2, before the mask */
                    p[j] = visible ? s : -INFINITY;
                    if (p[j] > mx) mx = p[j];
                }
                for (j = 0; j < n; j++) { p[j] = exp(p[j] - mx); sum += p[j]; }
                for (k = 0; k < hd; k++) {
                    double s = 0;
                    for (j = 0; j < n; j++) s += p[j] / sum * v[(long)j * KVD + kvh * hd + k];
                    att[(long)i * QD + h * hd + k] = s;
                }
            }
        for (i = 0; i < n; i++) {
            double *xi = x + (long)i * D;
            linear(o, W(w, "model.layers.%d.self_attn.o_proj.weight", l), bo, att + (long)i * QD, D, QD);
            /* Gemma and Olmo2 normalise the attention output (their post_attention_layernorm);
               Granite scales it by residual_multiplier */
            if (c->block) rms_norm(o, o, W(w, "model.layers.%d.post_attention_layernorm.weight", l), D, c->eps);
            for (k = 0; k < D; k++) xi[k] += o[k] * c->residual;
            /* MLP: down(act(gate(h)) * up(h)), h the post-attention-normalised hidden states
               (Gemma: pre_feedforward_layernorm; Olmo2: x itself); a sparse layer's experts */
            if (c->block == 0) rms_norm(h1, xi, W(w, "model.layers.%d.post_attention_layernorm.weight", l), D, c->eps);
            else if (c->block == 2) rms_norm(h1, xi, W(w, "model.layers.%d.pre_feedforward_layernorm.weight", l), D, c->eps);
            else memcpy(h1, xi, (size_t)D * sizeof(double));
            if (c->sparse[l]) {
                moe(c, w, l, h1, o);
            } else {
                linear(g, wg, NULL, h1, F, D);
                linear(u, wu, NULL, h1, F, D);
                for (k = 0; k < F; k++) g[k] = (c->gelu == 1 ? gelu_tanh(g[k]) : c->gelu == 2 ? gelu_erf(g[k]) : silu(g[k])) * u[k];
                linear(o, W(w, "model.layers.%d.mlp.down_proj.weight", l), NULL, g, D, F);
            }
            if (c->block) rms_norm(o, o, W(w, "model.layers.%d.post_feedforward_layernorm.weight", l), D, c->eps);
            for (k = 0; k < D; k++) xi[k] += o[k] * c->residual;
        }
    }
    for (i = 0; i < n; i++) {
        rms_norm(h1, x + (long)i * D, W(w, "model.norm.weight", 0), D, c->eps);
        if (hidden) memcpy(hidden + (long)i * D, h1, (size_t)D * sizeof(double));
        linear(logits + (long)i * c->vocab, c->tied ? embed : W(w, "lm_head.weight", 0), NULL, h1, c->vocab, D);
        for (k = 0; k < c->vocab; k++) { /* Granite's logits_scaling, Gemma2's final soft-capping */
            double *z = &logits[(long)i * c->vocab + k];
            *z /= c->logits_scaling;
            if (c->final_cap > 0) *z = tanh(*z / c->final_cap) * c->final_cap;
        }
    }
    free(x); free(h1); free(q); free(kk); free(v); free(att); free(o); free(g); free(u); free(p);
}

/* ---- the comparison -------------------------------------------------------------------- */
static int run_program(const char *cmd) {
    int rc = system(cmd);
    if (rc != 0) check(0, "command failed: %s", cmd);
    return rc == 0;
}

/* Largest |llm - ref| over one position's logits. */
static double row_diff(const float *got, const double *want, int vocab) {
    double worst = 0;
    int k;
    for (k = 0; k < vocab; k++) {
        double d = fabs((double)got[k] - want[k]);
        if (!(d <= worst)) worst = d; /* NaN counts as the worst */
    }
    return worst;
}

static llm_ctx *open_ctx(const llm_model *m, int n_batch, int n_threads, llm_kv_type kv) {
    llm_ctx_desc d;
    llm_ctx *c = NULL;
    memset(&d, 0, sizeof d);
    d.n_ctx = SEQ;
    d.n_batch = n_batch;
    d.n_threads = n_threads;
    d.kv_type = kv;
    if (llm_ctx_open(&c, m, &d) != LLM_OK) { fprintf(stderr, "llm_ctx_open failed\n"); exit(2); }
    return c;
}

/* Token by token: the logits after each llm_eval of one token. */
static double diff_token_by_token(const llm_model *m, const int32_t *tokens, const double *ref, int n_threads,
                                  llm_kv_type kv, float *keep) {
    llm_ctx *c = open_ctx(m, 0, n_threads, kv);
    int vocab = llm_model_info_get(m)->n_vocab, i;
    double worst = 0, d;
    for (i = 0; i < SEQ; i++) {
        if (llm_eval(c, &tokens[i], 1) != LLM_OK) { worst = INFINITY; break; }
        d = row_diff(llm_logits(c), ref + (long)i * vocab, vocab);
        if (!(d <= worst)) worst = d;
        if (keep) memcpy(keep + (long)i * vocab, llm_logits(c), (size_t)vocab * sizeof(float));
    }
    llm_ctx_close(c);
    return worst;
}

/* Every prefix evaluated in one llm_eval call (chunks of n_batch), after a rewind to 0. */
static double diff_prefixes(const llm_model *m, const int32_t *tokens, const double *ref, int n_batch) {
    llm_ctx *c = open_ctx(m, n_batch, 1, LLM_KV_F32);
    int vocab = llm_model_info_get(m)->n_vocab, p;
    double worst = 0, d;
    for (p = 1; p <= SEQ; p++) {
        if (llm_ctx_rewind(c, 0) != LLM_OK || llm_eval(c, tokens, (size_t)p) != LLM_OK || llm_ctx_pos(c) != p) {
            worst = INFINITY;
            break;
        }
        d = row_diff(llm_logits(c), ref + (long)(p - 1) * vocab, vocab);
        if (!(d <= worst)) worst = d;
    }
    llm_ctx_close(c);
    return worst;
}

/* LongRoPE past the original context: each prefix p evaluated in one call (in chunks of
   n_batch) against a reference forward of p tokens that uses the long factors everywhere when
   p passes the original context. */
static double diff_longrope_prefixes(const llm_model *m, const ref_config *c, const ref_weights *w, const int32_t *tokens,
                                     int n_batch) {
    llm_ctx *ctx = open_ctx(m, n_batch, 1, LLM_KV_F32);
    int vocab = c->vocab, p;
    double worst = 0, d, *ref = (double *)xcalloc((size_t)SEQ * (size_t)vocab, sizeof(double));
    for (p = 1; p <= SEQ; p++) {
        g_long_from = p > c->original_max_pos ? 0 : 1 << 30;
        ref_forward(c, w, tokens, p, ref, NULL);
        if (llm_ctx_rewind(ctx, 0) != LLM_OK || llm_eval(ctx, tokens, (size_t)p) != LLM_OK) { worst = INFINITY; break; }
        d = row_diff(llm_logits(ctx), ref + (long)(p - 1) * vocab, vocab);
        if (!(d <= worst)) worst = d;
    }
    g_long_from = 1 << 30;
    free(ref);
    llm_ctx_close(ctx);
    return worst;
}

/* The last position's logits after evaluating the whole sequence in one call. */
static void batch_logits(const llm_model *m, const int32_t *tokens, int n_threads, float *out) {
    llm_ctx *c = open_ctx(m, 0, n_threads, LLM_KV_F32);
    int vocab = llm_model_info_get(m)->n_vocab;
    if (llm_eval(c, tokens, SEQ) == LLM_OK) memcpy(out, llm_logits(c), (size_t)vocab * sizeof(float));
    else memset(out, 0xff, (size_t)vocab * sizeof(float));
    llm_ctx_close(c);
}

/* Largest |got - want| over a vector, over the largest |want|. */
static double vec_diff(const float *got, const double *want, int n) {
    double worst = 0, scale = 0, d;
    int k;
    for (k = 0; k < n; k++) if (fabs(want[k]) > scale) scale = fabs(want[k]);
    for (k = 0; k < n; k++) {
        d = fabs((double)got[k] - want[k]) / scale;
        if (!(d <= worst)) worst = d;
    }
    return worst;
}

/* llm_embed against the reference's final hidden states: the last token's of every prefix
   (in chunks of 7; a LongRoPE prefix past the original context takes the long factors, one
   call), then the whole sequence pooled each way (mean, last, first), L2-normalized or not,
   in one batch and in chunks of 7. The largest difference over the vector's scale; *state
   is 0 when a call left the context other than holding the tokens without logits. */
static double diff_embeddings(const llm_model *m, const ref_config *c, const ref_weights *w, const int32_t *tokens, int long_switch,
                              int *state) {
    int D = c->hidden, p, k, pool, norm, b;
    double *logits = (double *)xcalloc((size_t)SEQ * (size_t)c->vocab, sizeof(double));
    double *hid = (double *)xcalloc((size_t)SEQ * (size_t)D, sizeof(double)), *want = (double *)xcalloc((size_t)D, sizeof(double));
    double worst = 0, d, sq;
    float *got = (float *)xcalloc((size_t)D, sizeof(float));
    llm_ctx *ctx[2];
    ctx[0] = open_ctx(m, 0, 1, LLM_KV_F32);
    ctx[1] = open_ctx(m, 7, 1, LLM_KV_F32);
    *state = 1;
    for (p = 1; p <= SEQ; p++) {
        g_long_from = long_switch && p > c->original_max_pos ? 0 : 1 << 30;
        ref_forward(c, w, tokens, p, logits, hid);
        d = llm_embed(ctx[1], tokens, (size_t)p, LLM_POOLING_LAST, 0, got) == LLM_OK ? vec_diff(got, hid + (long)(p - 1) * D, D) : INFINITY;
        if (!(d <= worst)) worst = d;
    }
    g_long_from = 1 << 30;
    for (pool = LLM_POOLING_MEAN; pool <= LLM_POOLING_FIRST; pool++)
        for (norm = 0; norm < 2; norm++) {
            for (k = 0, sq = 0; k < D; k++) {
                want[k] = 0;
                if (pool == LLM_POOLING_MEAN)
                    for (p = 0; p < SEQ; p++) want[k] += hid[(long)p * D + k] / SEQ;
                else want[k] = hid[(long)(pool == LLM_POOLING_LAST ? SEQ - 1 : 0) * D + k];
                sq += want[k] * want[k];
            }
            for (k = 0; k < D && norm; k++) want[k] /= sqrt(sq);
            for (b = 0; b < 2; b++) {
                d = llm_embed(ctx[b], tokens, SEQ, (llm_pooling)pool, norm, got) == LLM_OK ? vec_diff(got, want, D) : INFINITY;
                if (!(d <= worst)) worst = d;
                *state &= llm_ctx_pos(ctx[b]) == SEQ && llm_logits(ctx[b]) == NULL;
            }
        }
    llm_ctx_close(ctx[0]);
    llm_ctx_close(ctx[1]);
    free(logits); free(hid); free(want); free(got);
    return worst;
}

typedef struct variant {
    const char *name;
    const char *src_dtype; /* what gen_model writes */
} variant;

static const variant variants[] = {
    { "llama", "f32" }, { "llama-gqa-tied", "f32" }, { "llama-mqa", "f32" }, { "llama3-rope", "f32" },
    { "llama-linear", "f32" }, { "llama-bias", "f32" }, { "mistral", "f32" }, { "mistral-default-window", "f32" },
    { "qwen2", "f32" }, { "qwen2-swa", "f32" }, { "qwen3", "f32" }, { "qwen3-default-head-dim", "f32" }, { "qwen3-embedding", "f32" },
    { "qwen2", "bf16" }, { "llama-gqa-tied", "f16" }, { "qwen3", "bf16" },
    { "gemma3", "f32" }, { "gemma3-pattern", "f32" }, { "gemma2", "f32" }, { "olmo2", "f32" }, { "granite", "f32" },
    { "smollm3", "f32" }, { "smollm3-interval", "f32" }, { "phi3", "f32" }, { "phi3-long", "f32" }, { "qwen2-yarn", "f32" },
    { "gemma2", "bf16" }, { "phi3", "bf16" }, { "gemma", "f32" }, { "gemma", "bf16" },
    { "mixtral", "f32" }, { "qwen3-moe", "f32" }, { "qwen3-moe-step2", "f32" }, { "qwen2-moe", "f32" }, { "qwen3-moe", "bf16" },
    { "olmoe", "f32" }, { "olmoe", "bf16" },
};

/* The model's hyper-parameters as llm.h read them, against the reference's reading. */
static void check_config(const char *label, const llm_model *m, const ref_config *c) {
    const llm_model_info *h = llm_model_info_get(m);
    int i, ok = h->n_vocab == c->vocab && h->n_embd == c->hidden && h->n_ff == c->ff && h->n_layer == c->layers &&
                h->n_head == c->heads && h->n_head_kv == c->kv_heads && h->head_dim == c->head_dim &&
                h->tied_embeddings == c->tied && h->qk_norm == c->qk_norm && fabs(h->rms_eps - c->eps) <= 1e-6 * c->eps;
    for (i = 0; i < c->layers; i++) ok &= m->layers[i].window == c->window[i] && m->layers[i].rope == c->use_rope[i] &&
                                        (m->layers[i].experts != NULL) == c->sparse[i];
    ok &= h->n_expert == c->experts && h->n_expert_used == c->used && h->n_ff_expert == c->moe_ff &&
          h->expert_norm_topk == c->norm_topk && h->n_ff_shared == c->shared_ff;
    ok &= (m->layers[0].bq != NULL) == c->bias_qkv && (m->layers[0].bo != NULL) == c->bias_o;
    ok &= (int)h->block_norms == c->block && h->norm_plus_one == c->plus_one && (int)h->activation == c->gelu &&
          h->rope_dim == c->rotary_dim && fabs(h->embd_scale - c->embed_scale) <= 1e-6 * c->embed_scale &&
          fabs((h->attn_scale > 0 ? h->attn_scale : 1 / sqrt((double)h->head_dim)) - c->scaling) <= 1e-6 * c->scaling &&
          fabs(h->residual_scale - c->residual) <= 1e-6 && fabs(h->logits_divisor - c->logits_scaling) <= 1e-6 * c->logits_scaling &&
          fabs(h->attn_softcap - c->attn_cap) <= 1e-6 && fabs(h->final_softcap - c->final_cap) <= 1e-6 &&
          fabs(h->rope_attn_factor - c->attention_factor) <= 1e-6;
    check(ok, "%-34s hyper-parameters, biases, per-layer windows and experts as transformers reads config.json (window[last] %d)",
          label, c->window[c->layers - 1]);
}

static void test_variant(const variant *v, const char *conv_dtype, double *worst_all) {
    char dir[256], file[300], cmd[1024], label[96];
    ref_config c;
    ref_weights w;
    llm_model *m;
    int32_t tokens[SEQ];
    double *ref, scale = 0, d_tok, d_batch, d_chunk, d_f16kv, top1 = 0;
    int long_switch;
    float *a, *b;
    size_t i, n;
    uint64_t s = 0x2545F4914F6CDD1DULL;
    snprintf(dir, sizeof dir, REF_OUT "/%s-%s", v->name, v->src_dtype);
    snprintf(file, sizeof file, "%s/model-%s.llm", dir, conv_dtype);
    snprintf(label, sizeof label, "%s (%s -> %s)", v->name, v->src_dtype, conv_dtype);
    snprintf(cmd, sizeof cmd, "build/gen_model %s --variant %s --dtype %s --seed 7 >/dev/null && "
             "build/convert %s %s%s%s >/dev/null", dir, v->name, v->src_dtype, dir, file,
             strcmp(conv_dtype, "as-stored") ? " --dtype " : "", strcmp(conv_dtype, "as-stored") ? conv_dtype : "");
    if (!run_program(cmd)) return;
    if (llm_model_open(&m, file, NULL) != LLM_OK) { check(0, "%s: llm_model_open", label); return; }

    ref_read_config(dir, &c);
    /* Gemma's sqrt(hidden_size) is a tensor of the embeddings' dtype */
    if (c.plus_one && strcmp(v->src_dtype, "f32")) c.embed_scale = ref_round(!strcmp(v->src_dtype, "f16") ? REF_F16 : REF_BF16, c.embed_scale);
    ref_read_safetensors(dir, &w);
    ref_round_matrices(&w, !strcmp(conv_dtype, "f16") ? &REF_F16 : !strcmp(conv_dtype, "bf16") ? &REF_BF16 : NULL);
    for (i = 0; i < SEQ; i++) { /* a fixed pseudo-random sequence with a repeat */
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        tokens[i] = i == 11 ? tokens[3] : (int32_t)(s % (uint64_t)c.vocab);
    }
    n = (size_t)SEQ * (size_t)c.vocab;
    ref = (double *)xcalloc(n, sizeof(double));
    /* a LongRoPE model whose original context the sequence passes: token by token (one call
       per position) its positions from the original context on take the long factors */
    long_switch = !strcmp(c.rope_type, "longrope") && c.original_max_pos < SEQ;
    g_long_from = long_switch ? (int)c.original_max_pos : 1 << 30;
    ref_forward(&c, &w, tokens, SEQ, ref, NULL);
    g_long_from = 1 << 30;
    for (i = 0; i < n; i++) if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
    for (i = 0; i < SEQ; i++) { /* how peaked: the mean top-1 probability */
        double mx = -INFINITY, sum = 0;
        int k;
        for (k = 0; k < c.vocab; k++) if (ref[i * c.vocab + k] > mx) mx = ref[i * c.vocab + k];
        for (k = 0; k < c.vocab; k++) sum += exp(ref[i * c.vocab + k] - mx);
        top1 += 1.0 / sum / SEQ;
    }
    if (!strcmp(conv_dtype, "f32") || !strcmp(conv_dtype, "as-stored")) check_config(label, m, &c);

    a = (float *)xcalloc(n, sizeof(float));
    b = (float *)xcalloc(n, sizeof(float));
    d_tok = diff_token_by_token(m, tokens, ref, 1, LLM_KV_F32, a) / scale;
    d_batch = (long_switch ? diff_longrope_prefixes(m, &c, &w, tokens, 0) : diff_prefixes(m, tokens, ref, 0)) / scale;
    d_chunk = (long_switch ? diff_longrope_prefixes(m, &c, &w, tokens, 7) : diff_prefixes(m, tokens, ref, 7)) / scale;
    d_f16kv = diff_token_by_token(m, tokens, ref, 1, LLM_KV_F16, NULL) / scale;
    check(d_tok <= TOL && d_batch <= TOL && d_chunk <= TOL,
          "%-34s max |diff| / %.1f (logit scale): %.1e token by token, %.1e batched, %.1e chunks of 7 (tol %.0e; top-1 p %.2f)",
          label, scale, d_tok, d_batch, d_chunk, TOL, top1);
    check(d_f16kv <= TOL_KV_F16, "%-34s f16 KV cache: %.1e (tol %.0e)", label, d_f16kv, TOL_KV_F16);
    {
        const llm_model_info *h = llm_model_info_get(m);
        int embedding = !strcmp(v->name, "qwen3-embedding"), state;
        double d_embd = diff_embeddings(m, &c, &w, tokens, long_switch, &state);
        check(d_embd <= TOL && state, "%-34s llm_embed: %.1e of the vector's scale (every prefix's last token; the whole sequence "
              "pooled mean, last, first, normalized or not, batched and in chunks of 7)", label, d_embd);
        /* gen_model writes sentence-transformers' files (last-token pooling, Normalize) for this
           variant only: the others take the defaults, the mean and no normalization */
        check(h->pooling == (embedding ? LLM_POOLING_LAST : LLM_POOLING_MEAN) && h->embd_normalize == embedding,
              "%-34s the model's pooling %d and normalization %d", label, h->pooling, h->embd_normalize);
        if (d_embd > *worst_all) *worst_all = d_embd;
    }
    if (d_tok > *worst_all) *worst_all = d_tok;
    if (d_batch > *worst_all) *worst_all = d_batch;
    if (d_chunk > *worst_all) *worst_all = d_chunk;

    /* The same logits, bit for bit, with 1 and 2 threads: the whole sequence in one batch
       for every f32 file, and token by token for two variants (threads are slow to test on
       a busy machine). */
    if (!strcmp(conv_dtype, "f32")) {
        int each = !strcmp(v->name, "mistral") || !strcmp(v->name, "qwen3") || !strcmp(v->name, "qwen2-moe");
        float *one = (float *)xcalloc((size_t)c.vocab * 2, sizeof(float)), *two = one + c.vocab;
        batch_logits(m, tokens, 1, one);
        batch_logits(m, tokens, 2, two);
        if (each) diff_token_by_token(m, tokens, ref, 2, LLM_KV_F32, b);
        check(memcmp(one, two, (size_t)c.vocab * sizeof(float)) == 0 && (!each || memcmp(a, b, n * sizeof(float)) == 0),
              "%-34s bitwise identical logits with 1 and 2 threads (%s)", label, each ? "batch and token by token" : "batch");
        free(one);
    }
    {
        llm_ctx *ctx = open_ctx(m, 0, 1, LLM_KV_F32);
        check(llm_ctx_kv_bytes(ctx) == llm_kv_cache_bytes(c.layers, c.kv_heads, c.head_dim, SEQ, 4),
              "%-34s llm_ctx_kv_bytes = 2 x layers x kv heads x head_dim x n_ctx x 4", label);
        llm_ctx_close(ctx);
    }
    free(a); free(b); free(ref); free(c.window); free(c.use_rope); free(c.sparse);
    ref_free_weights(&w);
    llm_model_close(m);
}

/* ---- every combination of the switches --------------------------------------------------
   No family has them all together, and config.json spells only a family's own, so these
   files are written directly (tests/tiny_model.h) with the switches set; the reference takes
   the same description and the file's f32 weights. */
static void ref_weights_of(const llm_model *m, ref_weights *w) {
    size_t i;
    long k;
    w->t = (ref_tensor *)xcalloc(m->n_tensors, sizeof *w->t);
    w->n = (int)m->n_tensors;
    for (i = 0; i < m->n_tensors; i++) {
        const llm_tensor *t = &m->tensors[i];
        ref_tensor *r = &w->t[i];
        snprintf(r->name, sizeof r->name, "%s", t->name);
        r->n_dims = t->n_dims;
        r->shape[0] = (long)t->shape[0];
        r->shape[1] = t->n_dims == 2 ? (long)t->shape[1] : 1;
        r->data = (double *)xcalloc((size_t)(r->shape[0] * r->shape[1]), sizeof(double));
        for (k = 0; k < r->shape[0] * r->shape[1]; k++) r->data[k] = ((const float *)t->data)[k];
    }
}

static void ref_config_of(const tiny_desc *d, ref_config *c) {
    int l;
    memset(c, 0, sizeof *c);
    snprintf(c->model_type, sizeof c->model_type, "tiny");
    strcpy(c->rope_type, "default");
    c->vocab = d->n_vocab; c->hidden = d->n_embd; c->ff = d->n_ff; c->layers = d->n_layer;
    c->heads = d->n_head; c->kv_heads = d->n_head_kv; c->head_dim = d->head_dim;
    c->eps = 1e-5; c->theta = 10000.0; c->tied = d->tied; c->qk_norm = d->qk_norm; c->bias_qkv = d->bias;
    c->block = d->block_norms; c->plus_one = d->norm_plus_one; c->gelu = d->activation;
    c->embed_scale = d->embd_scale > 0 ? d->embd_scale : 1.0;
    c->scaling = d->attn_scale > 0 ? d->attn_scale : 1.0 / sqrt((double)d->head_dim);
    c->residual = d->residual_scale > 0 ? d->residual_scale : 1.0;
    c->logits_scaling = d->logits_divisor > 0 ? d->logits_divisor : 1.0;
    c->attn_cap = d->attn_softcap; c->final_cap = d->final_softcap;
    c->rotary_dim = d->rope_dim ? d->rope_dim : d->head_dim;
    c->local_theta = d->rope_theta_local; c->attention_factor = 1.0;
    c->window = (int *)xcalloc((size_t)c->layers, sizeof(int));
    c->sparse = (int *)xcalloc((size_t)c->layers, sizeof(int));
    c->use_rope = (int *)xcalloc((size_t)c->layers, sizeof(int));
    for (l = 0; l < c->layers; l++) {
        c->window[l] = d->window;
        c->use_rope[l] = d->nope_every > 0 && (l + 1) % d->nope_every == 0 ? 0 : d->rope_theta_local > 0 && d->window ? 2 : 1;
    }
}

static void test_combinations(double *worst_all) {
    int k, n_fail = 0, n = 0;
    double worst = 0;
    for (k = 0; k < 3 * 3 * 2 * 2; k++) {
        tiny_desc d = tiny_default();
        ref_config c;
        ref_weights w;
        llm_model *m = NULL;
        int32_t tokens[SEQ];
        double *ref, scale = 0, e;
        size_t size, i;
        void *file;
        d.n_layer = 3; d.seed = (uint32_t)k + 11;
        d.block_norms = k % 3; d.qk_norm = k / 3 % 3; d.activation = k / 9 % 3; d.norm_plus_one = k / 18 % 2;
        if (k % 2) { d.embd_scale = 3.0; d.attn_scale = 0.2; d.residual_scale = 0.5; d.logits_divisor = 2.0; }
        if (k % 3 == 0) { d.attn_softcap = 2.0; d.final_softcap = 5.0; }
        if (k % 4 == 1) d.rope_dim = 4;
        if (k % 5 == 2) d.nope_every = 2;
        if (k % 3 != 0) d.window = 5;
        if (k % 3 == 1) d.rope_theta_local = 50.0;
        d.bias = k % 7 == 3;
        if (!(file = tiny_model(&d, &size)) || llm_model_open_memory(&m, file, size, NULL) != LLM_OK) {
            check(0, "combination %d: the file does not open", k);
            free(file);
            continue;
        }
        ref_config_of(&d, &c);
        ref_weights_of(m, &w);
        for (i = 0; i < SEQ; i++) tokens[i] = (int32_t)((i * 37 + (size_t)k * 11 + 5) % (size_t)d.n_vocab);
        ref = (double *)xcalloc((size_t)SEQ * (size_t)c.vocab, sizeof(double));
        ref_forward(&c, &w, tokens, SEQ, ref, NULL);
        for (i = 0; i < (size_t)SEQ * (size_t)c.vocab; i++) if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
        e = diff_token_by_token(m, tokens, ref, 1, LLM_KV_F32, NULL) / scale;
        if (!(diff_prefixes(m, tokens, ref, 7) / scale <= e)) e = diff_prefixes(m, tokens, ref, 7) / scale;
        if (!(e <= TOL)) {
            n_fail++;
            check(0, "combination %d (block norms %d, qk norm %d, activation %d, plus one %d, scales %d, caps %d, rope_dim %d, nope %d, "
                  "window %d, local theta %g): %.1e of the logit scale %.1f", k, d.block_norms, d.qk_norm, d.activation,
                  d.norm_plus_one, k % 2, k % 3 == 0, d.rope_dim, d.nope_every, d.window, d.rope_theta_local, e, scale);
        }
        if (!(e <= worst)) worst = e;
        n++;
        free(ref); free(c.window); free(c.use_rope); free(c.sparse);
        ref_free_weights(&w);
        llm_model_close(m);
        free(file);
    }
    check(n_fail == 0, "%d combinations of block norms x q/k norm x activation x (1 + w), with scales, soft-caps, partial rotary, "
          "NoPE layers, windows and local theta among them: worst %.1e of the logit scale (tol %.0e)", n, worst, TOL);
    if (worst > *worst_all) *worst_all = worst;
}

int main(void) {
    static const char *const conv_dtypes[] = { "f32", "f16", "bf16" };
    double worst = 0;
    size_t i, k;
    if (system("mkdir -p " REF_OUT) != 0) return 2;
    test_combinations(&worst);
    for (i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        if (strcmp(variants[i].src_dtype, "f32") != 0) { test_variant(&variants[i], "as-stored", &worst); continue; }
        for (k = 0; k < 3; k++) test_variant(&variants[i], conv_dtypes[k], &worst);
    }
    printf("worst difference against the double reference: %.2e of the logit scale (tolerance %.0e)\n", worst, TOL);
    return check_summary("forward pass against the reference: all checks passed");
}
