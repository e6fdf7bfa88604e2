/* tool_gguf_write: a converted model (a .llm made from a HuggingFace checkpoint, of any tensor
   type) as the GGUF llama.cpp's convert_hf_to_gguf.py writes for its architecture: to test the
   GGUF import of families there are no llama.cpp files of here (tests/test_gguf_families.sh),
   and to run llama.cpp (llama-bench) on the shapes of our own models.

   tool_gguf_write ARCH MODEL.llm OUT.gguf [WINDOW] [--type f32|f16|bf16|q8_0] [--vocab]
   tool_gguf_write --tokenizer VOCAB.llm OUT.gguf PRE

   As the converter lays them out: the hyper-parameters under "ARCH." (llama.cpp's key names),
   general.file_type, bos and eos ids, the tensors under their GGUF names (blk.N.attn_q.weight
   ...), the rows of Q and K permuted for the interleaved RoPE of the architectures whose
   LlamaModel.permute applies (llama, granite, smollm3), and the experts of a layer stacked
   into one [n_expert, rows, cols] tensor (blk.N.ffn_gate_exps.weight ...), Gemma's norm
   weights plus one (Gemma2Model.modify_tensors; in float32, as for a float32 checkpoint) and
   its sandwich norms under llama.cpp's names, a linear rope scaling as rope.scaling.type and
   factor, and a llama3 one as the factors of rope_freqs.weight. phi3 (Phi3MiniModel): Q, K and V fused again into blk.N.attn_qkv.weight,
   gate and up into blk.N.ffn_up.weight (gate first: llama.cpp's LLM_FFN_SWIGLU splits it so),
   LongRoPE as rope_factors_long/short.weight with rope.scaling.original_context_length and
   rope.scaling.attn_factor, and attention.sliding_window (0 when WINDOW is not given). An
   embedding model's pooling other than the mean as pooling_type.

   WINDOW: the sliding window to record (Gemma, Phi-3). --type: the type of the matrices and
   stacked experts (default f32; q8_0 with llm.h's scales and codes, put_q8_0_block, F32 where
   the columns are not a multiple of 32); norms, biases, routers and other 1-D tensors stay F32,
   as the converter keeps them. The weights are read through llm.h's dequantization (llm__get_row, as
   the embedding lookup reads a row), so a .llm of any type will do. --vocab: a placeholder
   SentencePiece vocabulary for llama.cpp to load the file (tokens "<0>", "<1>" ... of score 0
   and type normal; bos and eos the model's, else 1 and 2); without it, no tokenizer.

   --tokenizer: the tokenizer of VOCAB.llm (converted from a tokenizer.json) alone, as
   convert_hf_to_gguf.py --vocab-only writes it from that tokenizer.json: a byte-level vocabulary
   as gpt2 (_set_vocab_gpt2: model tokens in the GPT-2 byte-to-character spelling and type
   normal, added tokens as their text, control when special, else user-defined; the merges as
   "a b"; tokenizer.ggml.pre PRE), a SentencePiece-style one as llama, as _set_vocab_sentencepiece
   writes it from tokenizer.model: the pieces, <0xHH> pieces of type byte, the added tokens
   control when special, else user-defined; no merges, and scores in the order of
   tokenizer.model's, from which HF drew tokenizer.json's merges: a piece scores minus the rank
   of the first merge that makes it (LlamaHfVocab, the fallback without tokenizer.model, scores
   every piece -1000 and so loses the order of the merges). Then the bos, eos and unk ids and
   add_bos_token / add_space_prefix.

   The tensor infos are planned first and the header written, then the tensors one by one, row
   by row, the mapped pages of the source dropped as its rows are written (Linux): the memory
   needed is the header and a few rows whatever the size of the model (28 MB for a 2 GB Gemma 3
   1B). The file is written beside OUT.gguf and renamed over it when complete. */
#define _POSIX_C_SOURCE 200809L
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#define LLM_IMPLEMENTATION
#include "../llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

enum { GT_F32 = 0, GT_F16 = 1, GT_Q8_0 = 8, GT_BF16 = 30 }; /* ggml_type */
enum { GV_U32 = 4, GV_I32 = 5, GV_F32 = 6, GV_STRING = 8, GV_ARRAY = 9 }; /* gguf_type */

static void die(const char *what, const char *name) { fprintf(stderr, "tool_gguf_write: %s %s\n", what, name); exit(2); }

typedef struct { uint8_t *p; size_t n, cap; } gw_buf;
static void gw_put(gw_buf *b, const void *s, size_t n) {
    if (b->n + n > b->cap) { b->cap = (b->n + n) * 2; b->p = (uint8_t *)realloc(b->p, b->cap); if (!b->p) die("out of", "memory"); }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void gw_put32(gw_buf *b, uint32_t v) { uint8_t x[4]; int i; for (i = 0; i < 4; i++) x[i] = (uint8_t)(v >> 8 * i); gw_put(b, x, 4); }
static void gw_put64(gw_buf *b, uint64_t v) { gw_put32(b, (uint32_t)v); gw_put32(b, (uint32_t)(v >> 32)); }
static void gw_putstr(gw_buf *b, const char *s) { gw_put64(b, strlen(s)); gw_put(b, s, strlen(s)); }

static gw_buf meta;
static int n_kv;
static const char *arch;
static void key_raw(const char *k, uint32_t type) { gw_putstr(&meta, k); gw_put32(&meta, type); n_kv++; }
static void key(const char *k, uint32_t type) { char s[160]; snprintf(s, sizeof s, "%s.%s", arch, k); key_raw(s, type); }
static void gw_kv_u32(const char *k, uint32_t v) { key(k, GV_U32); gw_put32(&meta, v); }
static void gw_kv_f32(const char *k, float v) { uint32_t u; memcpy(&u, &v, 4); key(k, GV_F32); gw_put32(&meta, u); }
static void kv_raw_u32(const char *k, uint32_t v) { key_raw(k, GV_U32); gw_put32(&meta, v); }

/* One GGUF tensor and where its rows come from: the rows of up to three .llm tensors one after
   another (Phi-3's fused projections), the n_expert experts of a layer stacked (proj), or
   values computed here (data). ne in ggml order: ne[0] the columns. */
typedef struct {
    char name[96];
    int n_dims;
    uint64_t ne[3];
    uint32_t type;
    const llm_tensor *part[3];
    int n_parts;
    int heads;        /* > 0: the rows (a bias: its elements) in llama.cpp's interleaved order */
    int plus_one;     /* Gemma's norm weights */
    int layer;        /* experts: model.layers.<layer>.mlp.experts.<e>.<proj>.weight */
    const char *proj;
    float *data;
} gt;
#define MAX_TENSORS 8192
static gt ts[MAX_TENSORS];
static int n_ts;
static int gemma;
static uint32_t wtype = GT_F32; /* --type */

static uint64_t rows_of(const llm_tensor *w) { return w->n_dims == 1 ? 1 : (uint64_t)w->shape[0]; }
static uint64_t cols_of(const llm_tensor *w) { return (uint64_t)w->shape[w->n_dims - 1]; }

/* HF row of GGUF row r: llama.cpp stores HF row h*hd + j*(hd/2) + i at h*hd + 2i + j. */
static uint64_t gw_hf_row(uint64_t r, uint64_t hd) { return r / hd * hd + (r % hd % 2) * (hd / 2) + r % hd / 2; }

/* The converter keeps 1-D tensors and the routers (FFN_GATE_INP) in F32. */
static gt *new_tensor(const char *gname, int n_dims, uint64_t cols, uint64_t rows, uint64_t n_expert) {
    gt *t;
    if (n_ts == MAX_TENSORS) die("too many tensors at", gname);
    t = &ts[n_ts++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", gname);
    t->n_dims = n_dims;
    t->ne[0] = cols; t->ne[1] = rows; t->ne[2] = n_expert;
    t->type = n_dims >= 2 && !strstr(gname, "ffn_gate_inp") && (wtype != GT_Q8_0 || cols % 32 == 0) ? wtype : (uint32_t)GT_F32;
    return t;
}

/* The rows of the n tensors hf[] (absent: no tensor) as GGUF tensor gname. */
static void add_parts(const llm_model *m, const char *gname, int heads, int n, const char *const *hf) {
    const llm_tensor *w[3] = {NULL, NULL, NULL};
    uint64_t rows = 0;
    int i;
    gt *t;
    if (n < 1 || n > 3) die("one to three parts make", gname);
    for (i = 0; i < n; i++) {
        if (!(w[i] = llm_model_tensor(m, hf[i]))) { if (i) die("missing tensor", hf[i]); return; }
        if (cols_of(w[i]) != cols_of(w[0])) die("column count differs in", hf[i]);
        rows += rows_of(w[i]);
    }
    t = new_tensor(gname, strstr(gname, "ffn_gate_inp_shexp") ? 1 : w[0]->n_dims, cols_of(w[0]), rows, 1); /* llama.cpp's {n_embd} for HF's [1, hidden] */
    for (i = 0; i < n; i++) t->part[i] = w[i];
    t->n_parts = n;
    t->heads = heads;
    t->plus_one = gemma && strlen(hf[0]) > 11 && !strcmp(hf[0] + strlen(hf[0]) - 11, "norm.weight");
}
static void add(const llm_model *m, const char *hf, const char *gname, int heads) { add_parts(m, gname, heads, 1, &hf); }

static const llm_tensor *gw_expert(const llm_model *m, int l, int e, const char *proj) {
    char hf[160];
    snprintf(hf, sizeof hf, "model.layers.%d.mlp.experts.%d.%s.weight", l, e, proj);
    return llm_model_tensor(m, hf);
}

static void add_experts(const llm_model *m, int l, const char *proj, const char *gname, int n_expert) {
    const llm_tensor *w0 = n_expert ? gw_expert(m, l, 0, proj) : NULL;
    char name[96];
    int e;
    gt *t;
    if (!w0) return; /* a dense layer */
    for (e = 1; e < n_expert; e++) {
        const llm_tensor *w = gw_expert(m, l, e, proj);
        if (!w || w->n_dims != 2 || rows_of(w) != rows_of(w0) || cols_of(w) != cols_of(w0)) die("missing or misshapen expert of", gname);
    }
    snprintf(name, sizeof name, "blk.%d.%s", l, gname);
    t = new_tensor(name, 3, cols_of(w0), rows_of(w0), (uint64_t)n_expert);
    t->layer = l;
    t->proj = proj;
}

static gt *add_values(const char *gname, uint64_t n) {
    gt *t = new_tensor(gname, 1, n, 1, 1);
    if (!(t->data = (float *)calloc((size_t)n, sizeof(float)))) die("out of memory for", gname);
    return t;
}

/* ---- writing ---- */
static FILE *out;
static float *row, *tmp;
static uint8_t *row16;
static size_t row_cap;

static uint64_t row_bytes(uint32_t type, uint64_t cols) { return type == GT_Q8_0 ? cols / 32 * 34 : cols * (type == GT_F32 ? 4 : 2); }
static uint64_t tensor_bytes(const gt *t) { return row_bytes(t->type, t->ne[0]) * t->ne[1] * t->ne[2]; }

/* A Q8_0 block of 32 values (f16 scale, 32 codes) with the scale and codes of llm.h's q8_0
   (the converter's: max|x| / 127 rounded to f16, the codes at that rounded scale, halves away
   from zero), so that a q8_0 model's values come back unchanged. */
static void put_q8_0_block(const float *x, uint8_t *b) {
    float amax = 0.0f, d, id;
    uint16_t h;
    int i;
    for (i = 0; i < 32; i++) amax = fabsf(x[i]) > amax ? fabsf(x[i]) : amax;
    h = llm_f32_to_f16(amax / 127.0f);
    d = llm_f16_to_f32(h);
    id = d > 0.0f ? 1.0f / d : 0.0f;
    b[0] = (uint8_t)h; b[1] = (uint8_t)(h >> 8);
    for (i = 0; i < 32; i++) {
        float v = x[i] * id;
        b[2 + i] = (uint8_t)(int8_t)roundf(v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v);
    }
}

static void put_file(const void *p, size_t n) { if (fwrite(p, 1, n, out) != n) die("cannot write", "the output"); }
static void pad_file(uint64_t n) { static const uint8_t zero[32] = { 0 }; if (n % 32) put_file(zero, (size_t)(32 - n % 32)); }

static void put_row(const float *x, uint64_t n, uint32_t type) {
    uint64_t i;
    if (type == GT_F32) { put_file(x, (size_t)n * 4); return; } /* little-endian hosts */
    if (type == GT_Q8_0) {
        for (i = 0; i < n / 32; i++) put_q8_0_block(x + 32 * i, row16 + 34 * i);
        put_file(row16, (size_t)(n / 32 * 34));
        return;
    }
    for (i = 0; i < n; i++) {
        uint16_t h = type == GT_F16 ? llm_f32_to_f16(x[i]) : llm_f32_to_bf16(x[i]);
        row16[2 * i] = (uint8_t)h; row16[2 * i + 1] = (uint8_t)(h >> 8);
    }
    put_file(row16, (size_t)n * 2);
}

/* The pages of the first n bytes of w leave the process once their rows are written: a
   mapped page read stays resident (and counted) until the mapping goes, and the .llm may be as
   big as the RAM. Neighbours' pages that go too are read again if needed. */
static int mapped;
static void release(const llm_tensor *w, size_t n) {
#if defined(__linux__)
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)w->data / page * page;
    if (mapped && n) madvise((void *)a, (uintptr_t)w->data + n - a, MADV_DONTNEED); /* not a read copy: that would be lost */
#else
    (void)w; (void)n;
#endif
}

/* Every type stores rows in groups of at most 16 (llm_dtype_row_group), group after group, so
   the rows before r's group lie in the first size / rows x (r rounded down to 16) bytes. */
static void write_rows(const llm_tensor *w, const gt *t) {
    uint64_t rows = rows_of(w), cols = t->ne[0], r, i;
    for (r = 0; r < rows; r++) {
        llm__get_row(w, (int64_t)(t->heads && w->n_dims > 1 ? gw_hf_row(r, rows / (uint64_t)t->heads) : r), row, (int)cols);
        if (t->heads && w->n_dims == 1) { /* a bias: permute its elements */
            memcpy(tmp, row, (size_t)cols * sizeof(float));
            for (i = 0; i < cols; i++) row[i] = tmp[gw_hf_row(i, cols / (uint64_t)t->heads)];
        }
        if (t->plus_one)
            for (i = 0; i < cols; i++) row[i] = row[i] + 1.0f;
        put_row(row, cols, t->type);
        if (!t->heads && r % 256 == 255) release(w, w->size / rows * (size_t)(r / 16 * 16));
    }
    release(w, w->size);
}

static void write_tensor(const llm_model *m, const gt *t) {
    int i;
    if ((size_t)t->ne[0] > row_cap) {
        row_cap = (size_t)t->ne[0];
        row = (float *)realloc(row, row_cap * sizeof(float));
        tmp = (float *)realloc(tmp, row_cap * sizeof(float));
        row16 = (uint8_t *)realloc(row16, row_cap * 2); /* also a Q8_0 row's 34 bytes a 32 */
        if (!row || !tmp || !row16) die("out of memory for", t->name);
    }
    if (t->data) put_row(t->data, t->ne[0], t->type);
    for (i = 0; i < t->n_parts; i++) write_rows(t->part[i], t);
    if (t->proj)
        for (i = 0; i < (int)t->ne[2]; i++) write_rows(gw_expert(m, t->layer, i, t->proj), t);
    pad_file(tensor_bytes(t));
}

/* tokenizer.ggml.*: a placeholder SentencePiece vocabulary of n tokens. */
static void placeholder_vocab(int32_t n) {
    char s[32];
    int32_t i;
    key_raw("tokenizer.ggml.model", GV_STRING); gw_putstr(&meta, "llama");
    key_raw("tokenizer.ggml.tokens", GV_ARRAY); gw_put32(&meta, GV_STRING); gw_put64(&meta, (uint64_t)n);
    for (i = 0; i < n; i++) { snprintf(s, sizeof s, "<%d>", (int)i); gw_putstr(&meta, s); }
    key_raw("tokenizer.ggml.scores", GV_ARRAY); gw_put32(&meta, GV_F32); gw_put64(&meta, (uint64_t)n);
    for (i = 0; i < n; i++) gw_put32(&meta, 0); /* 0.0f */
    key_raw("tokenizer.ggml.token_type", GV_ARRAY); gw_put32(&meta, GV_I32); gw_put64(&meta, (uint64_t)n);
    for (i = 0; i < n; i++) gw_put32(&meta, 1); /* LLAMA_TOKEN_TYPE_NORMAL */
}

/* GPT-2's bytes_to_unicode: the printable Latin-1 bytes stand for themselves, the others for
   U+0100 on, in byte order. */
static int byte_printable(unsigned c) { return (c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174; }
static void byte_level_text(gw_buf *t, const uint8_t *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned cp = s[i], k;
        uint8_t u[2];
        if (!byte_printable(cp)) for (k = 0, cp = 256; k < s[i]; k++) cp += !byte_printable(k);
        if (cp < 0x80) { u[0] = (uint8_t)cp; gw_put(t, u, 1); }
        else { u[0] = (uint8_t)(0xC0 | cp >> 6); u[1] = (uint8_t)(0x80 | (cp & 0x3F)); gw_put(t, u, 2); }
    }
}
static void put_text(gw_buf *b, gw_buf *t) { gw_put64(b, t->n); gw_put(b, t->p, t->n); free(t->p); t->p = NULL; t->n = t->cap = 0; }

static int tokenizer_only(const char *vocab_path, const char *out_path, const char *pre) {
    llm_model *m;
    const llm_tokenizer_info *ti;
    const llm__meta *text, *off, *flags, *merges;
    gw_buf b = { NULL, 0, 0 };
    int32_t i, n, n_merges, bos, eos;
    int byte_level;
    llm_model_desc d;
    memset(&d, 0, sizeof d);
    d.vocab_only = 1;
    if (llm_model_open(&m, vocab_path, &d) != LLM_OK) die("cannot open", vocab_path);
    if (!(ti = llm_tokenizer_info_get(m))) die("no tokenizer in", vocab_path);
    text = llm__meta_find(m, LLM_KEY_TOK_TOKENS); off = llm__meta_find(m, LLM_KEY_TOK_OFFSETS);
    flags = llm__meta_find(m, LLM_KEY_TOK_FLAGS); merges = llm__meta_find(m, LLM_KEY_TOK_MERGES);
    n = ti->n_tokens; byte_level = ti->byte_level;
    n_merges = merges ? (int32_t)(merges->size / 12) : 0;
    arch = "llama";
    key_raw("general.architecture", GV_STRING); gw_putstr(&meta, arch);
    key_raw("tokenizer.ggml.model", GV_STRING); gw_putstr(&meta, byte_level ? "gpt2" : "llama");
    if (byte_level) { key_raw("tokenizer.ggml.pre", GV_STRING); gw_putstr(&meta, pre); }
    key_raw("tokenizer.ggml.tokens", GV_ARRAY); gw_put32(&meta, GV_STRING); gw_put64(&meta, (uint64_t)n);
    for (i = 0; i < n; i++) {
        uint32_t a = llm__rd32(off->data + 4 * (size_t)i), e = llm__rd32(off->data + 4 * (size_t)i + 4);
        gw_buf t = { NULL, 0, 0 };
        if (byte_level && flags->data[i] == LLM_TF_MODEL) byte_level_text(&t, text->data + a, e - a);
        else gw_put(&t, text->data + a, e - a);
        put_text(&meta, &t);
    }
    key_raw("tokenizer.ggml.token_type", GV_ARRAY); gw_put32(&meta, GV_I32); gw_put64(&meta, (uint64_t)n);
    for (i = 0; i < n; i++) {
        uint32_t a = llm__rd32(off->data + 4 * (size_t)i), e = llm__rd32(off->data + 4 * (size_t)i + 4);
        uint8_t f = flags->data[i];
        int byte_piece = !byte_level && e - a == 6 && !memcmp(text->data + a, "<0x", 3) && text->data[a + 5] == '>';
        gw_put32(&meta, f & LLM_TF_SPECIAL ? 3 : f & LLM_TF_ADDED ? 4 : byte_piece ? 6 : !f ? 5 : 1);
    }
    if (!byte_level) { /* score: minus the rank of the first merge that makes the piece */
        float *score = (float *)malloc((size_t)n * sizeof *score);
        if (!score) die("out of", "memory");
        for (i = 0; i < n; i++) score[i] = -(float)n_merges - 1;
        for (i = n_merges - 1; i >= 0; i--) score[llm__rd32(merges->data + 12 * (size_t)i + 8)] = -(float)i;
        key_raw("tokenizer.ggml.scores", GV_ARRAY); gw_put32(&meta, GV_F32); gw_put64(&meta, (uint64_t)n);
        for (i = 0; i < n; i++) { uint32_t u; memcpy(&u, &score[i], 4); gw_put32(&meta, u); }
        free(score);
    } else {
        key_raw("tokenizer.ggml.merges", GV_ARRAY); gw_put32(&meta, GV_STRING); gw_put64(&meta, (uint64_t)n_merges);
        for (i = 0; i < n_merges; i++) {
            gw_buf t = { NULL, 0, 0 };
            int k;
            for (k = 0; k < 2; k++) {
                int32_t id = (int32_t)llm__rd32(merges->data + 12 * (size_t)i + 4 * (size_t)k);
                uint32_t a = llm__rd32(off->data + 4 * (size_t)id), e = llm__rd32(off->data + 4 * (size_t)id + 4);
                if (k) gw_put(&t, " ", 1);
                byte_level_text(&t, text->data + a, e - a);
            }
            put_text(&meta, &t);
        }
    }
    /* SpecialVocab takes them from tokenizer_config.json: without config.json, the ids the
       post-processor puts around the text stand for them */
    bos = llm_model_info_get(m)->bos_id >= 0 ? llm_model_info_get(m)->bos_id : ti->n_prefix == 1 ? ti->prefix[0] : -1;
    eos = llm_model_info_get(m)->n_stop_ids ? llm_model_info_get(m)->stop_ids[0] : ti->n_suffix == 1 ? ti->suffix[0] : -1;
    if (bos >= 0) kv_raw_u32("tokenizer.ggml.bos_token_id", (uint32_t)bos);
    if (eos >= 0) kv_raw_u32("tokenizer.ggml.eos_token_id", (uint32_t)eos);
    if (ti->unk_id >= 0) kv_raw_u32("tokenizer.ggml.unk_token_id", (uint32_t)ti->unk_id);
    key_raw("tokenizer.ggml.add_bos_token", 7); gw_put(&meta, ti->n_prefix ? "\1" : "", 1); /* GGUF bool */
    if (!byte_level) { key_raw("tokenizer.ggml.add_space_prefix", 7); gw_put(&meta, m->tok->ms_prepend || m->tok->normalizer == LLM_NORM_SPM ? "\1" : "", 1); }
    gw_put(&b, "GGUF", 4); gw_put32(&b, 3); gw_put64(&b, 0); gw_put64(&b, (uint64_t)n_kv);
    gw_put(&b, meta.p, meta.n);
    if (!(out = fopen(out_path, "wb"))) die("cannot create", out_path);
    put_file(b.p, b.n);
    if (fclose(out) != 0) die("cannot write", out_path);
    printf("%s: the tokenizer of %s, %d tokens, %d merges\n", out_path, vocab_path, (int)n, (int)n_merges);
    llm_model_close(m);
    free(meta.p); free(b.p);
    return 0;
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
    const char *pos[4] = { NULL }, *model_path, *out_path, *window = NULL;
    char tmp_path[4096];
    llm_model *m;
    const llm_model_info *in;
    gw_buf b = { NULL, 0, 0 };
    uint64_t off = 0;
    int l, i, n_pos = 0, permute, phi3, vocab = 0;
    int32_t bos, eos;
    char hf[3][160], gname[160];
    if (argc == 5 && !strcmp(argv[1], "--tokenizer")) return tokenizer_only(argv[2], argv[3], argv[4]);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--vocab")) vocab = 1;
        else if (!strcmp(argv[i], "--type") && i + 1 < argc) {
            const char *t = argv[++i];
            if (!strcmp(t, "f32")) wtype = GT_F32;
            else if (!strcmp(t, "f16")) wtype = GT_F16;
            else if (!strcmp(t, "bf16")) wtype = GT_BF16;
            else if (!strcmp(t, "q8_0")) wtype = GT_Q8_0;
            else die("--type must be f32, f16, bf16 or q8_0, not", t);
        } else if (n_pos < 4 && argv[i][0] != '-') pos[n_pos++] = argv[i];
        else n_pos = 5;
    }
    if (n_pos != 3 && n_pos != 4) {
        fprintf(stderr, "usage: tool_gguf_write ARCH MODEL.llm OUT.gguf [WINDOW] [--type f32|f16|bf16|q8_0] [--vocab]\n");
        return 2;
    }
    arch = pos[0]; model_path = pos[1]; out_path = pos[2];
    if (n_pos == 4) window = pos[3];
    gemma = !strncmp(arch, "gemma", 5);
    phi3 = !strcmp(arch, "phi3");
    permute = !strcmp(arch, "llama") || !strcmp(arch, "granite") || !strcmp(arch, "smollm3");
    if (llm_model_open(&m, model_path, NULL) != LLM_OK) die("cannot open", model_path);
    in = llm_model_info_get(m);
    mapped = m->view.mapped;
    /* llama.cpp's Gemma graphs run GELU-tanh, the others SiLU */
    if (in->activation != (gemma ? LLM_ACT_GELU_TANH : LLM_ACT_SILU)) die("llama.cpp runs another activation for the architecture of", model_path);
    gw_kv_u32("block_count", (uint32_t)in->n_layer); gw_kv_u32("embedding_length", (uint32_t)in->n_embd);
    gw_kv_u32("feed_forward_length", (uint32_t)in->n_ff); gw_kv_u32("attention.head_count", (uint32_t)in->n_head);
    gw_kv_u32("attention.head_count_kv", (uint32_t)in->n_head_kv);
    if (!phi3) { gw_kv_u32("attention.key_length", (uint32_t)in->head_dim); gw_kv_u32("attention.value_length", (uint32_t)in->head_dim); } /* Phi3MiniModel: n_embd / n_head */
    gw_kv_u32("context_length", (uint32_t)in->n_ctx_train);
    /* an embedding model's pooling other than the mean, as _try_set_pooling_type writes it from
       modules.json (llama.cpp's pooling types: 2 cls, 3 last) */
    if (in->pooling != LLM_POOLING_MEAN) gw_kv_u32("pooling_type", in->pooling == LLM_POOLING_FIRST ? 2u : 3u);
    gw_kv_f32("attention.layer_norm_rms_epsilon", in->rms_eps); gw_kv_f32("rope.freq_base", (float)in->rope_theta);
    gw_kv_u32("rope.dimension_count", (uint32_t)in->rope_dim);
    if (window || phi3) gw_kv_u32("attention.sliding_window", window ? (uint32_t)atoi(window) : 0);
    if (!strcmp(arch, "gemma2")) { gw_kv_f32("attn_logit_softcapping", in->attn_softcap); gw_kv_f32("final_logit_softcapping", in->final_softcap); }
    if (!strcmp(arch, "granite")) {
        gw_kv_f32("embedding_scale", in->embd_scale); gw_kv_f32("residual_scale", in->residual_scale);
        gw_kv_f32("attention.scale", in->attn_scale); gw_kv_f32("logit_scale", in->logits_divisor);
    }
    if (in->n_expert) {
        gw_kv_u32("expert_count", (uint32_t)in->n_expert); gw_kv_u32("expert_used_count", (uint32_t)in->n_expert_used);
        if (strcmp(arch, "llama") && strcmp(arch, "olmoe")) gw_kv_u32("expert_feed_forward_length", (uint32_t)in->n_ff_expert);
        if (in->n_ff_shared) gw_kv_u32("expert_shared_feed_forward_length", (uint32_t)in->n_ff_shared);
    }
    key_raw("general.architecture", GV_STRING); gw_putstr(&meta, arch);
    kv_raw_u32("general.file_type", wtype == GT_F32 ? 0 : wtype == GT_F16 ? 1 : wtype == GT_Q8_0 ? 7 : 32); /* LLAMA_FTYPE_ALL_F32, MOSTLY_F16, MOSTLY_Q8_0, MOSTLY_BF16 */
    bos = in->bos_id >= 0 ? in->bos_id : vocab ? 1 : -1;
    eos = in->n_stop_ids ? in->stop_ids[0] : vocab ? 2 : -1;
    if (vocab) placeholder_vocab(in->n_vocab);
    if (bos >= 0) kv_raw_u32("tokenizer.ggml.bos_token_id", (uint32_t)bos);
    if (eos >= 0) kv_raw_u32("tokenizer.ggml.eos_token_id", (uint32_t)eos);
    if (in->rope_scaling == LLM_ROPE_LLAMA3) { /* LlamaModel.generate_extra_tensors: rope_freqs.weight */
        int k, half = in->rope_dim / 2;
        double lo_wl = in->rope_original_max_pos / in->rope_low_freq_factor, hi_wl = in->rope_original_max_pos / in->rope_high_freq_factor;
        gt *t = add_values("rope_freqs.weight", (uint64_t)half);
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
    if (in->rope_scaling == LLM_ROPE_LINEAR) { /* TextModel.set_gguf_parameters */
        key("rope.scaling.type", GV_STRING); gw_putstr(&meta, "linear");
        gw_kv_f32("rope.scaling.factor", in->rope_factor);
    }
    if (in->rope_scaling == LLM_ROPE_YARN) { /* TextModel.set_gguf_parameters: the factor, the original context, and the
                                                  ramp and attention factor where config.json gave them (here: where they are
                                                  not transformers' defaults) */
        key("rope.scaling.type", GV_STRING); gw_putstr(&meta, "yarn");
        gw_kv_f32("rope.scaling.factor", in->rope_factor);
        gw_kv_u32("rope.scaling.original_context_length", (uint32_t)in->rope_original_max_pos);
        if (in->rope_beta_fast != 32.0f) gw_kv_f32("rope.scaling.yarn_beta_fast", in->rope_beta_fast);
        if (in->rope_beta_slow != 1.0f) gw_kv_f32("rope.scaling.yarn_beta_slow", in->rope_beta_slow);
        if (in->rope_attn_factor != (float)(0.1 * log(in->rope_factor) + 1.0)) gw_kv_f32("rope.scaling.yarn_attn_factor", in->rope_attn_factor);
        if (!in->rope_truncate) die("yarn without truncation (gpt-oss) has no GGUF key, in", model_path);
    }
    if (phi3) gw_kv_u32("rope.scaling.original_context_length", (uint32_t)(in->rope_original_max_pos ? in->rope_original_max_pos : in->n_ctx_train));
    if (phi3 && in->rope_scaling == LLM_ROPE_LONGROPE) { /* Phi3MiniModel.generate_extra_tensors */
        static const char *const keys[2][2] = { { LLM_KEY_ROPE_LONG, "rope_factors_long.weight" }, { LLM_KEY_ROPE_SHORT, "rope_factors_short.weight" } };
        int k;
        gw_kv_f32("rope.scaling.attn_factor", in->rope_attn_factor);
        for (k = 0; k < 2; k++) {
            const llm__meta *e = llm__meta_find(m, keys[k][0]);
            gt *t = add_values(keys[k][1], (uint64_t)in->rope_dim / 2);
            memcpy(t->data, e->data, (size_t)in->rope_dim / 2 * sizeof(float)); /* checked at open: rope_dim / 2 f32 */
        }
    } else if (phi3 && in->rope_scaling != LLM_ROPE_NONE) die("phi3: a rope scaling other than longrope in", model_path);
    add(m, "model.embed_tokens.weight", "token_embd.weight", 0);
    add(m, "model.norm.weight", "output_norm.weight", 0);
    if (!in->tied_embeddings) add(m, "lm_head.weight", "output.weight", 0);
    for (l = 0; l < in->n_layer; l++) {
        for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
            int heads = !permute ? 0 : i == 1 ? in->n_head : i == 2 ? in->n_head_kv : 0;
            if (phi3 && (i == 1 || i == 2 || i == 3 || i == 7 || i == 8)) continue; /* fused below */
            snprintf(hf[0], sizeof hf[0], "model.layers.%d.%s.weight", l, names[i][0]);
            snprintf(gname, sizeof gname, "blk.%d.%s.weight", l, names[i][1]);
            add(m, hf[0], gname, heads);
        }
        if (phi3) { /* Phi-3's qkv_proj and gate_up_proj, as the checkpoint has them */
            const char *const part[3] = { hf[0], hf[1], hf[2] };
            static const char *const qkv[3] = { "q_proj", "k_proj", "v_proj" }, *const gate_up[2] = { "gate_proj", "up_proj" };
            for (i = 0; i < 3; i++) snprintf(hf[i], sizeof hf[i], "model.layers.%d.self_attn.%s.weight", l, qkv[i]);
            snprintf(gname, sizeof gname, "blk.%d.attn_qkv.weight", l);
            add_parts(m, gname, 0, 3, part);
            for (i = 0; i < 2; i++) snprintf(hf[i], sizeof hf[i], "model.layers.%d.mlp.%s.weight", l, gate_up[i]);
            snprintf(gname, sizeof gname, "blk.%d.ffn_up.weight", l);
            add_parts(m, gname, 0, 2, part);
        }
        /* post_attention_layernorm: before the feed-forward of a pre-norm block, after the
           attention of a post-norm one (OLMo 2) */
        snprintf(hf[0], sizeof hf[0], "model.layers.%d.post_attention_layernorm.weight", l);
        snprintf(gname, sizeof gname, "blk.%d.%s.weight", l, in->block_norms == LLM_BLOCK_PRE ? "ffn_norm" : "post_attention_norm");
        /* (a sandwich block's ffn_norm is its pre_feedforward_layernorm, above) */
        add(m, hf[0], gname, 0);
        for (i = 0; i < 4; i++) { /* biases: a row each, permuted as their matrix */
            static const char *const bias[4][2] = { { "q_proj", "attn_q" }, { "k_proj", "attn_k" }, { "v_proj", "attn_v" }, { "o_proj", "attn_output" } };
            snprintf(hf[0], sizeof hf[0], "model.layers.%d.self_attn.%s.bias", l, bias[i][0]);
            snprintf(gname, sizeof gname, "blk.%d.%s.bias", l, bias[i][1]);
            if (phi3 && llm_model_tensor(m, hf[0])) die("phi3: llama.cpp has no attention biases, found", hf[0]);
            add(m, hf[0], gname, !permute || i >= 2 ? 0 : i == 0 ? in->n_head : in->n_head_kv);
        }
        add_experts(m, l, "gate_proj", "ffn_gate_exps.weight", in->n_expert);
        add_experts(m, l, "up_proj", "ffn_up_exps.weight", in->n_expert);
        add_experts(m, l, "down_proj", "ffn_down_exps.weight", in->n_expert);
    }

    /* the header: counts, metadata, the tensor infos with their data offsets */
    gw_put(&b, "GGUF", 4); gw_put32(&b, 3); gw_put64(&b, (uint64_t)n_ts); gw_put64(&b, (uint64_t)n_kv);
    gw_put(&b, meta.p, meta.n);
    for (i = 0; i < n_ts; i++) {
        int d;
        gw_putstr(&b, ts[i].name); gw_put32(&b, (uint32_t)ts[i].n_dims);
        for (d = 0; d < ts[i].n_dims; d++) gw_put64(&b, ts[i].ne[d]);
        gw_put32(&b, ts[i].type); gw_put64(&b, off);
        off += (tensor_bytes(&ts[i]) + 31) / 32 * 32;
    }
    while (b.n % 32) gw_put(&b, "", 1);
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp", out_path);
    if (!(out = fopen(tmp_path, "wb"))) die("cannot create", tmp_path);
    setvbuf(out, NULL, _IOFBF, 1 << 20);
    put_file(b.p, b.n);
    for (i = 0; i < n_ts; i++) write_tensor(m, &ts[i]);
    if (fclose(out) != 0) die("cannot write", tmp_path);
    remove(out_path); /* rename does not replace a file on Windows */
    if (rename(tmp_path, out_path) != 0) die("cannot rename the output to", out_path);
    printf("%s: %d tensors, %d metadata entries (%s, %s), %llu bytes\n", out_path, n_ts, n_kv, arch,
           wtype == GT_F32 ? "f32" : wtype == GT_F16 ? "f16" : wtype == GT_Q8_0 ? "q8_0" : "bf16", (unsigned long long)(b.n + off));
    for (i = 0; i < n_ts; i++) free(ts[i].data);
    llm_model_close(m);
    free(meta.p); free(b.p); free(row); free(tmp); free(row16);
    return 0;
}
