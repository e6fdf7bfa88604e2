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
