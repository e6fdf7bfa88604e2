/* kq_gguf: llama.cpp's quantized weights of a llama model in an llm.h file, to score them with
   the project's own tools (tool_kl, perplexity --kl-base) on the same positions as ours.

   tool_kq_gguf MODEL.gguf TEMPLATE.llm OUT.llm
   tool_kq_gguf --check MODEL.gguf REF.f32 ROWS

   TEMPLATE is any conversion of the checkpoint the GGUF was made from: its metadata (the
   tokenizer, the hyper-parameters) and tensor names and shapes are kept. Every tensor holds
   the GGUF's values exactly: Q4_K, Q5_K and Q6_K as q4_k, q5_k and q6_k, re-laid out bit for
   bit (llm_q4_k_from_ggml ...); Q8_0 as q8_0 (quantized again from its values: the same codes
   and scales); F32, F16 and Q5_0 as f32. The Q and K rows that llama.cpp's converter permuted
   for its RoPE are put back in HuggingFace order. A small GGUF v3 reader for this measurement
   only: it trusts the file (llama.cpp's own). --check compares the re-laid-out k-quant
   tensors with llama.cpp's dequantized leading rows (../shared/testdata/gguf's tensors.f32). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const uint8_t *p; size_t at; } rd;
static uint64_t rd64(rd *r) { uint64_t v; memcpy(&v, r->p + r->at, 8); r->at += 8; return v; }
static uint32_t rd32(rd *r) { uint32_t v; memcpy(&v, r->p + r->at, 4); r->at += 4; return v; }

static void skip_value(rd *r, uint32_t type) {
    static const int size[13] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
    if (type == 8) { uint64_t n = rd64(r); r->at += (size_t)n; }
    else if (type == 9) {
        uint32_t et = rd32(r);
        uint64_t n = rd64(r), i;
        for (i = 0; i < n; i++) skip_value(r, et);
    } else r->at += (size_t)size[type];
}

typedef struct { char name[96]; uint32_t type; int64_t cols, rows; uint64_t off; int n_dims; } gtensor;

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!f) { fprintf(stderr, "kq_gguf: cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
    buf = (uint8_t *)malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "kq_gguf: cannot read %s\n", path); exit(2); }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* ggml's name of a tensor -> the HuggingFace name the converter writes. */
static int hf_name(const char *g, char *out, size_t cap) {
    static const char *const map[][2] = {
        { "attn_q", "self_attn.q_proj" }, { "attn_k", "self_attn.k_proj" }, { "attn_v", "self_attn.v_proj" },
        { "attn_output", "self_attn.o_proj" }, { "ffn_gate", "mlp.gate_proj" }, { "ffn_up", "mlp.up_proj" },
        { "ffn_down", "mlp.down_proj" }, { "attn_norm", "input_layernorm" }, { "ffn_norm", "post_attention_layernorm" },
    };
    char part[64];
    int layer;
    size_t i;
    if (!strcmp(g, "token_embd.weight")) { snprintf(out, cap, "model.embed_tokens.weight"); return 0; }
    if (!strcmp(g, "output_norm.weight")) { snprintf(out, cap, "model.norm.weight"); return 0; }
    if (!strcmp(g, "output.weight")) { snprintf(out, cap, "lm_head.weight"); return 0; }
    if (sscanf(g, "blk.%d.%63[a-z_].weight", &layer, part) != 2) return -1;
    for (i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(part, map[i][0])) { snprintf(out, cap, "model.layers.%d.%s.weight", layer, map[i][1]); return 0; }
    return -1;
}

static size_t ggml_row_bytes(uint32_t type, int64_t cols) {
    switch (type) {
    case 0: return (size_t)cols * 4;
    case 1: return (size_t)cols * 2;
    case 6: return (size_t)cols / 32 * 22;
    case 8: return (size_t)cols / 32 * 34;
    case 12: return (size_t)cols / 256 * 144;
    case 13: return (size_t)cols / 256 * 176;
    case 14: return (size_t)cols / 256 * 210;
    default: return 0;
    }
}

static float f16(const uint8_t *p) { return llm_f16_to_f32((uint16_t)(p[0] | p[1] << 8)); }

/* One row of GGUF values as f32 (k-quants through llm.h's reading of the re-laid-out block). */
static void dequant_row(uint32_t type, const uint8_t *src, int64_t cols, float *y) {
    int64_t b;
    int j;
    if (type == 0) { memcpy(y, src, (size_t)cols * 4); return; }
    if (type == 1) { for (b = 0; b < cols; b++) y[b] = f16(src + 2 * b); return; }
    if (type == 6 || type == 8) {
        for (b = 0; b < cols / 32; b++) {
            const uint8_t *blk = src + b * (type == 6 ? 22 : 34);
            float d = f16(blk);
            if (type == 8) { for (j = 0; j < 32; j++) y[32 * b + j] = (float)(int8_t)blk[2 + j] * d; continue; }
            {
                uint32_t qh;
                memcpy(&qh, blk + 2, 4);
                for (j = 0; j < 16; j++) {
                    int x0 = ((blk[6 + j] & 15) | ((qh >> j) << 4 & 0x10)) - 16, x1 = ((blk[6 + j] >> 4) | ((qh >> (j + 12)) & 0x10)) - 16;
                    y[32 * b + j] = (float)x0 * d;
                    y[32 * b + j + 16] = (float)x1 * d;
                }
            }
        }
        return;
    }
    { /* k-quants: 16 copies of the row re-laid out, row 0 read back */
        llm_dtype t = type == 12 ? LLM_DTYPE_Q4_K : type == 13 ? LLM_DTYPE_Q5_K : LLM_DTYPE_Q6_K;
        size_t rb = ggml_row_bytes(type, cols);
        uint8_t *g = (uint8_t *)malloc(rb * 16), *l = (uint8_t *)malloc(rb * 16);
        llm_tensor w;
        for (j = 0; j < 16; j++) memcpy(g + (size_t)j * rb, src, rb);
        (type == 12 ? llm_q4_k_from_ggml : type == 13 ? llm_q5_k_from_ggml : llm_q6_k_from_ggml)(g, 16, cols, l);
        memset(&w, 0, sizeof w);
        w.dtype = t; w.n_dims = 2; w.shape[0] = 16; w.shape[1] = cols; w.data = l;
        llm__get_row(&w, 0, y, (int)cols);
        free(g); free(l);
    }
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The llm.h type a GGUF tensor is stored in: k-quants as the same k-quant, Q8_0 as q8_0
   (quantized again: the same codes and scales), the rest (F32, F16, Q5_0) as f32, exactly. */
static llm_dtype stored_type(uint32_t ggml_type, int n_dims) {
    if (n_dims == 1) return LLM_DTYPE_F32;
    switch (ggml_type) {
    case 8: return LLM_DTYPE_Q8_0;
    case 12: return LLM_DTYPE_Q4_K;
    case 13: return LLM_DTYPE_Q5_K;
    case 14: return LLM_DTYPE_Q6_K;
    default: return LLM_DTYPE_F32;
    }
}

/* The tensor infos of a GGUF file and where its data starts. */
static gtensor *parse_gguf(const uint8_t *gg, uint64_t *n_tensors, size_t *data_at) {
    rd r;
    uint64_t n_t, n_kv, i;
    size_t align = 32;
    gtensor *gt;
    r.p = gg; r.at = 8;
    n_t = rd64(&r); n_kv = rd64(&r);
    for (i = 0; i < n_kv; i++) {
        uint64_t kl = rd64(&r);
        const char *key = (const char *)gg + r.at;
        uint32_t type;
        int is_align = kl == 17 && !memcmp(key, "general.alignment", 17);
        r.at += (size_t)kl;
        type = rd32(&r);
        if (is_align && type == 4) { align = rd32(&r); continue; }
        skip_value(&r, type);
    }
    gt = (gtensor *)calloc((size_t)n_t, sizeof *gt);
    for (i = 0; i < n_t; i++) {
        uint64_t nl = rd64(&r), dims[4] = { 1, 1, 1, 1 };
        uint32_t nd, d;
        memcpy(gt[i].name, gg + r.at, nl < 95 ? (size_t)nl : 95);
        r.at += (size_t)nl;
        nd = rd32(&r);
        for (d = 0; d < nd; d++) dims[d] = rd64(&r);
        gt[i].type = rd32(&r);
        gt[i].off = rd64(&r);
        gt[i].cols = (int64_t)dims[0];
        gt[i].rows = (int64_t)(dims[1] * dims[2] * dims[3]);
        gt[i].n_dims = (int)nd;
    }
    *n_tensors = n_t;
    *data_at = (r.at + align - 1) / align * align;
    return gt;
}

/* --check: the first rows of every Q4_K, Q5_K and Q6_K tensor, re-laid out and read back by
   llm.h, against llama.cpp's dequantized values (REF.f32: every 1-D tensor whole and the
   first `rows` rows of every 2-D one, in tensor order), bit for bit. */
static int check_gguf(const char *gguf, const char *ref, int rows) {
    size_t gsize, rsize, data_at, at = 0, i;
    uint8_t *gg = read_file(gguf, &gsize), *rf = read_file(ref, &rsize);
    uint64_t n_t;
    gtensor *gt = parse_gguf(gg, &n_t, &data_at);
    int n_checked = 0, n_bad = 0;
    for (i = 0; i < n_t; i++) {
        size_t count = (size_t)gt[i].cols * (size_t)(gt[i].n_dims == 1 ? 1 : rows), grb = ggml_row_bytes(gt[i].type, gt[i].cols);
        if (gt[i].type >= 12 && gt[i].type <= 14 && gt[i].rows >= LLM__QG && grb) {
            llm_dtype t = gt[i].type == 12 ? LLM_DTYPE_Q4_K : gt[i].type == 13 ? LLM_DTYPE_Q5_K : LLM_DTYPE_Q6_K;
            uint8_t *l = (uint8_t *)malloc(grb * LLM__QG);
            float *y = (float *)malloc((size_t)gt[i].cols * 4);
            llm_tensor w;
            int r, bad = 0;
            (t == LLM_DTYPE_Q4_K ? llm_q4_k_from_ggml : t == LLM_DTYPE_Q5_K ? llm_q5_k_from_ggml : llm_q6_k_from_ggml)(gg + data_at + gt[i].off, LLM__QG, gt[i].cols, l);
            memset(&w, 0, sizeof w);
            w.dtype = t; w.n_dims = 2; w.shape[0] = LLM__QG; w.shape[1] = gt[i].cols; w.data = l;
            for (r = 0; r < rows; r++) {
                llm__get_row(&w, r, y, (int)gt[i].cols);
                bad += at + 4 * ((size_t)r + 1) * (size_t)gt[i].cols > rsize || memcmp(y, rf + at + 4 * (size_t)r * (size_t)gt[i].cols, (size_t)gt[i].cols * 4) != 0;
            }
            if (bad) printf("%s (%s): %d of %d rows differ from llama.cpp's\n", gt[i].name, llm_dtype_name(t), bad, rows);
            n_bad += bad != 0;
            n_checked++;
            free(l); free(y);
        }
        at += 4 * count;
    }
    printf("%s: %d k-quant tensors, %d rows each, %s\n", gguf, n_checked, rows, n_bad ? "DIFFER" : "bitwise equal to llama.cpp's values");
    free(gg); free(rf); free(gt);
    return n_bad || !n_checked || at != rsize;
}

int main(int argc, char **argv) {
    size_t gsize, tsize, i, data_at, table_size = 0, data_size = 0, out_size, meta_off, meta_size, table_off, data_off;
    uint8_t *gg, *tb, *out, *tp;
    uint64_t n_t;
    gtensor *gt;
    llm_model *m;
    const llm_model_info *info;
    const llm_tensor **tt;
    size_t *toff;
    FILE *f;
    if (argc == 5 && !strcmp(argv[1], "--check")) return check_gguf(argv[2], argv[3], atoi(argv[4]));
    if (argc != 4) { fprintf(stderr, "usage: tool_kq_gguf MODEL.gguf TEMPLATE.llm OUT.llm | --check MODEL.gguf REF.f32 ROWS\n"); return 2; }
    gg = read_file(argv[1], &gsize);
    tb = read_file(argv[2], &tsize);
    if (memcmp(gg, "GGUF", 4)) { fprintf(stderr, "kq_gguf: %s is not a GGUF file\n", argv[1]); return 2; }
    gt = parse_gguf(gg, &n_t, &data_at);
    if (llm_model_open_memory(&m, tb, tsize, NULL) != LLM_OK) { fprintf(stderr, "kq_gguf: cannot open %s\n", argv[2]); return 2; }
    info = llm_model_info_get(m);
    /* the file: the template's header fields and metadata, a new tensor table, the tensors */
    tt = (const llm_tensor **)calloc((size_t)n_t, sizeof *tt);
    toff = (size_t *)calloc((size_t)n_t, sizeof *toff);
    for (i = 0; i < n_t; i++) {
        char name[128];
        if (hf_name(gt[i].name, name, sizeof name) || !(tt[i] = llm_model_tensor(m, name))) {
            fprintf(stderr, "kq_gguf: tensor %s has no counterpart in %s\n", gt[i].name, argv[2]); return 1;
        }
        table_size += 4 + strlen(tt[i]->name) + 8 + 8 * (size_t)tt[i]->n_dims + 16;
        toff[i] = data_size;
        data_size += (llm_dtype_row_bytes(stored_type(gt[i].type, tt[i]->n_dims), gt[i].cols) * (size_t)gt[i].rows + 63) / 64 * 64;
    }
    memcpy(&meta_off, tb + 16, 8); memcpy(&meta_size, tb + 24, 8);
    table_off = 72 + meta_size;
    data_off = (table_off + table_size + 63) / 64 * 64;
    out_size = data_off + data_size;
    out = (uint8_t *)calloc(1, out_size);
    memcpy(out, tb, 72);
    put64(out + 8, out_size); put64(out + 16, 72); put64(out + 32, table_off); put64(out + 40, table_size);
    put64(out + 48, n_t); put64(out + 56, data_off);
    memcpy(out + 72, tb + meta_off, meta_size);
    tp = out + table_off;
    for (i = 0; i < n_t; i++) {
        const char *name = tt[i]->name;
        const uint8_t *src = gg + data_at + gt[i].off;
        llm_dtype st = stored_type(gt[i].type, tt[i]->n_dims);
        size_t grb = ggml_row_bytes(gt[i].type, gt[i].cols), nl = strlen(name);
        int64_t row, rows = gt[i].rows, cols = gt[i].cols;
        int perm_heads = 0, hd = info->head_dim, d;
        uint8_t *hf, *dst = out + data_off + toff[i];
        put32(tp, (uint32_t)nl); memcpy(tp + 4, name, nl); tp += 4 + nl;
        put32(tp, (uint32_t)st); put32(tp + 4, (uint32_t)tt[i]->n_dims); tp += 8;
        for (d = 0; d < tt[i]->n_dims; d++) { put64(tp, (uint64_t)tt[i]->shape[d]); tp += 8; }
        put64(tp, toff[i]); put64(tp + 8, llm_dtype_row_bytes(st, cols) * (size_t)rows); tp += 16;
        if (grb == 0) { fprintf(stderr, "kq_gguf: %s: ggml type %u is not handled\n", gt[i].name, gt[i].type); return 1; }
        if (strstr(gt[i].name, ".attn_q.")) perm_heads = info->n_head;
        if (strstr(gt[i].name, ".attn_k.")) perm_heads = info->n_head_kv;
        /* GGUF row h*hd + 2i + a holds HF row h*hd + a*hd/2 + i */
        hf = (uint8_t *)malloc(grb * (size_t)rows);
        for (row = 0; row < rows; row++) {
            int64_t s = row;
            if (perm_heads) { int64_t h = row / hd, rem = row % hd; s = h * hd + 2 * (rem % (hd / 2)) + rem / (hd / 2); }
            memcpy(hf + (size_t)row * grb, src + (size_t)s * grb, grb);
        }
        if (llm__is_kquant(st)) {
            (gt[i].type == 12 ? llm_q4_k_from_ggml : gt[i].type == 13 ? llm_q5_k_from_ggml : llm_q6_k_from_ggml)(hf, rows, cols, dst);
            printf("%-46s %s kept exactly\n", name, llm_dtype_name(st));
        } else {
            float *v = (float *)malloc((size_t)rows * (size_t)cols * 4);
            for (row = 0; row < rows; row++) dequant_row(gt[i].type, hf + (size_t)row * grb, cols, v + (size_t)row * (size_t)cols);
            if (llm_quantize(st, v, rows, cols, dst, 0) != LLM_OK) { fprintf(stderr, "kq_gguf: %s: cannot store\n", name); return 1; }
            printf("%-46s ggml type %u -> %s\n", name, gt[i].type, llm_dtype_name(st));
            free(v);
        }
        free(hf);
    }
    put64(out + 64, llm__file_checksum(out, data_off));
    llm_model_close(m);
    if (!(f = fopen(argv[3], "wb")) || fwrite(out, 1, out_size, f) != out_size || fclose(f)) { fprintf(stderr, "kq_gguf: cannot write %s\n", argv[3]); return 1; }
    free(gg); free(tb); free(gt); free(out); free((void *)tt); free(toff);
    return 0;
}
