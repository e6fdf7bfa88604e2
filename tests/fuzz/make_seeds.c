/* Writes the fuzz seed corpora (run from the repository root; the output is committed):
     cc -std=c99 -Itests -o build/make_seeds tests/fuzz/make_seeds.c -lm
     build/make_seeds models/kjv-tiny/model.safetensors ../shared/testdata/...-hf/model.safetensors
   tests/fuzz/corpus/fuzz_model: tiny models of each family, dtype and option;
   tests/fuzz/corpus/fuzz_safetensors: the file size and header of each safetensors file
   named on the command line (the input format of fuzz_safetensors.c);
   tests/fuzz/corpus/fuzz_json is copied by hand from real config files. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../../llm.h"
#include "../tiny_model.h"

static int write_file(const char *path, const void *a, size_t na, const void *b, size_t nb) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(a, 1, na, f) == na && (!nb || fwrite(b, 1, nb, f) == nb);
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "make_seeds: cannot write %s\n", path);
    return ok;
}

/* A one-layer mixture (Qwen3-MoE's names): 4 experts of width 8, 2 per token, and the
   shared expert, so that mutations reach the expert keys, the expert tensors and the routed
   forward pass. */
static void *moe_seed(size_t *size) {
    static const char *const names[] = { "model.embed_tokens.weight", "model.layers.0.input_layernorm.weight",
        "model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight",
        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.post_attention_layernorm.weight", "model.layers.0.mlp.gate.weight",
        "model.layers.0.mlp.shared_expert.gate_proj.weight", "model.layers.0.mlp.shared_expert.up_proj.weight",
        "model.layers.0.mlp.shared_expert.down_proj.weight", "model.layers.0.mlp.shared_expert_gate.weight", "model.norm.weight" };
    static const int64_t shapes[][2] = { { 16, 8 }, { 8, 0 }, { 8, 8 }, { 4, 8 }, { 4, 8 }, { 8, 8 }, { 8, 0 }, { 4, 8 },
                                         { 8, 8 }, { 8, 8 }, { 8, 8 }, { 1, 8 }, { 8, 0 } };
    tiny__tensor t[32];
    int n = 0, e, i, sparse = 1;
    size_t k, idx;
    uint32_t st = 99;
    char name[96];
    llm_builder *b = NULL;
    const void *hdr;
    size_t hdr_size;
    uint8_t *file = NULL;
    for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) tiny__add(t, &n, names[i], shapes[i][0], shapes[i][1], LLM_DTYPE_F32);
    for (e = 0; e < 4; e++) {
        snprintf(name, sizeof name, "model.layers.0.mlp.experts.%d.gate_proj.weight", e); tiny__add(t, &n, name, 8, 8, LLM_DTYPE_F32);
        snprintf(name, sizeof name, "model.layers.0.mlp.experts.%d.up_proj.weight", e); tiny__add(t, &n, name, 8, 8, LLM_DTYPE_F32);
        snprintf(name, sizeof name, "model.layers.0.mlp.experts.%d.down_proj.weight", e); tiny__add(t, &n, name, 8, 8, LLM_DTYPE_F32);
    }
    if (llm_builder_create(&b) != LLM_OK || llm_builder_set_string(b, LLM_KEY_ARCH, "qwen2_moe", 9) ||
        llm_builder_set_i32(b, LLM_KEY_N_VOCAB, 16) || llm_builder_set_i32(b, LLM_KEY_N_EMBD, 8) ||
        llm_builder_set_i32(b, LLM_KEY_N_FF, 8) || llm_builder_set_i32(b, LLM_KEY_N_LAYER, 1) ||
        llm_builder_set_i32(b, LLM_KEY_N_HEAD, 2) || llm_builder_set_i32(b, LLM_KEY_N_HEAD_KV, 1) ||
        llm_builder_set_i32(b, LLM_KEY_HEAD_DIM, 4) || llm_builder_set_i32(b, LLM_KEY_N_CTX_TRAIN, 16) ||
        llm_builder_set_f64(b, LLM_KEY_RMS_EPS, 1e-5) || llm_builder_set_f64(b, LLM_KEY_ROPE_THETA, 10000.0) ||
        llm_builder_set_i32(b, LLM_KEY_TIED_EMBEDDINGS, 1) || llm_builder_set_i32(b, LLM_KEY_N_EXPERT, 4) ||
        llm_builder_set_i32(b, LLM_KEY_N_EXPERT_USED, 2) || llm_builder_set_i32(b, LLM_KEY_EXPERT_FF, 8) ||
        llm_builder_set_i32(b, LLM_KEY_EXPERT_NORM_TOPK, 1) || llm_builder_set_i32(b, LLM_KEY_SHARED_EXPERT_FF, 8) ||
        llm_builder_set_i32_array(b, LLM_KEY_EXPERT_LAYERS, &sparse, 1))
        goto done;
    for (i = 0; i < n; i++)
        if (llm_builder_add_tensor(b, t[i].name, t[i].dtype, t[i].n_dims, t[i].shape, &idx)) goto done;
    if (llm_builder_header(b, &hdr, &hdr_size) || !(file = (uint8_t *)calloc(1, (size_t)llm_builder_file_size(b)))) goto done;
    memcpy(file, hdr, hdr_size);
    for (i = 0; i < n; i++)
        for (k = 0; k < (size_t)(t[i].shape[0] * (t[i].n_dims == 2 ? t[i].shape[1] : 1)); k++) {
            float v = tiny__value(&st);
            tiny__store(file + llm_builder_tensor_offset(b, (size_t)i), t[i].dtype, k, t[i].norm ? 1.0f + v / 4.0f : v);
        }
    *size = (size_t)llm_builder_file_size(b);
done:
    llm_builder_destroy(b);
    return file;
}

static void small(tiny_desc *d) {
    d->n_vocab = 16; d->n_embd = 8; d->n_ff = 8; d->n_layer = 1; d->n_head = 2; d->n_head_kv = 1; d->head_dim = 4; d->n_ctx = 16;
}

int main(int argc, char **argv) {
    struct { const char *name; const char *arch; llm_dtype dtype; int tied, bias, qk_norm, window, layers; } v[] = {
        { "llama-f32", "llama", LLM_DTYPE_F32, 0, 0, 0, 0, 1 }, { "llama-f16-tied", "llama", LLM_DTYPE_F16, 1, 0, 0, 0, 2 },
        { "mistral-bf16-window", "mistral", LLM_DTYPE_BF16, 0, 0, 0, 2, 1 }, { "qwen2-bias", "qwen2", LLM_DTYPE_F32, 1, 1, 0, 0, 1 },
        { "qwen3-qknorm", "qwen3", LLM_DTYPE_BF16, 1, 0, 1, 0, 1 },
    };
    char path[512];
    size_t i, size;
    int a;
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        tiny_desc d = tiny_default();
        void *file;
        small(&d);
        d.arch = v[i].arch; d.dtype = v[i].dtype; d.tied = v[i].tied; d.bias = v[i].bias; d.qk_norm = v[i].qk_norm;
        d.window = v[i].window; d.n_layer = v[i].layers; d.seed = (uint32_t)i + 1;
        if (!(file = tiny_model(&d, &size))) return 1;
        snprintf(path, sizeof path, "tests/fuzz/corpus/fuzz_model/%s.model", v[i].name);
        if (!write_file(path, file, size, NULL, 0)) return 1;
        free(file);
    }
    {
        void *file = moe_seed(&size);
        if (!file || !write_file("tests/fuzz/corpus/fuzz_model/qwen2-moe-shared.model", file, size, NULL, 0)) return 1;
        free(file);
    }
    for (a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        uint8_t head[16], *hdr;
        uint64_t fsize, hlen = 0;
        const char *base = strrchr(argv[a], '/');
        if (!f || fseek(f, 0, SEEK_END) != 0) { fprintf(stderr, "make_seeds: cannot read %s\n", argv[a]); return 1; }
        fsize = (uint64_t)ftell(f);
        rewind(f);
        for (i = 0; i < 8; i++) head[i] = (uint8_t)(fsize >> (8 * i));
        if (fread(head + 8, 1, 8, f) != 8) return 1;
        for (i = 0; i < 8; i++) hlen |= (uint64_t)head[8 + i] << (8 * i);
        if (hlen > 1 << 20 || !(hdr = (uint8_t *)malloc((size_t)hlen)) || fread(hdr, 1, (size_t)hlen, f) != hlen) return 1;
        fclose(f);
        { /* name the seed after the model directory */
            char dir[256];
            const char *slash;
            snprintf(dir, sizeof dir, "%.*s", base ? (int)(base - argv[a]) : 0, argv[a]);
            slash = strrchr(dir, '/');
            snprintf(path, sizeof path, "tests/fuzz/corpus/fuzz_safetensors/%s.bin", slash ? slash + 1 : dir);
        }
        if (!write_file(path, head, 16, hdr, (size_t)hlen)) return 1;
        free(hdr);
    }
    return 0;
}
