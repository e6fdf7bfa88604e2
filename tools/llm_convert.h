/* llm_convert.h - v0.1 - write llm.h model files: a HuggingFace directory -> one .llm file.

   The writer beside the reader (as stb_image_write.h sits beside stb_image.h): llm.h reads
   and runs a model file; this header makes one. Do this in *one* C or C++ file:
       #define _POSIX_C_SOURCE 200809L     (before any include: fdopen, fseeko)
       #define LLM_IMPLEMENTATION          (this header reuses llm.h's UTF-8, byte-level,
       #include "llm.h"                     number and checksum code rather than a copy)
       #define LLM_CONVERT_IMPLEMENTATION
       #include "llm_convert.h"
   The implementation includes json.h's (tools/json.h, beside this file), so that file needs
   no JSON_IMPLEMENTATION of its own.

   API
     llm_convert          a HuggingFace directory -> OUT (written to a temporary beside it,
                          validated with llm_model_open, renamed over OUT); also a GGUF file
                          (tools/llm_gguf.h) or, with desc.has_dtype, a .llm file in another
                          type (tools/llm_retype.h), both by path in place of the directory
     llm_builder_*        any file layout: metadata entries and a tensor table; the caller
                          writes the header bytes and then each tensor at its offset
     llm_quantize         an f32 matrix in a tensor type's file layout (docs/FORMAT.md)

   llm_convert reads config.json, generation_config.json, model.safetensors (or the shards of
   model.safetensors.index.json), tokenizer.json (+ tokenizer_config.json), the chat
   template (chat_template.jinja, else tokenizer_config.json's chat_template) and, for an
   embedding model, sentence-transformers' modules.json (with its Pooling module's
   config.json) and config_sentence_transformers.json (the prompts). Every number
   comes from those files; what llm.h cannot run is refused with a message that names the
   field. A temporary file is created exclusively (OUT.tmp.PID.N: a planted file or link is
   never written through) and removed on failure. The library installs no signal handler:
   desc.on_temp tells the caller the temporary's name so that its own handler can remove it.

   Supported tokenizer.json, as HuggingFace tokenizers runs it:
     model          BPE (byte_fallback, fuse_unk, ignore_merges, unk_token; merges as "a b" or
                    ["a", "b"]); no dropout, continuing_subword_prefix or end_of_word_suffix
     normalizer     none, NFC, Sequence[Prepend("▁"), Replace(" ", "▁")] or the Replace alone
     pre_tokenizer  none, Metaspace("▁"), ByteLevel, Digits, Split (any behaviour, invert; a
                    Regex llm.h's matcher compiles, or a String), and Sequences of these; the
                    GPT-2, Llama 3 and Qwen2 regexes (by their exact text) get llm.h's scanners
     decoder        ByteLevel, Metaspace("▁"), Sequence[Replace("▁", " "), ByteFallback,
                    Fuse, Strip(" ", n, 0)] (the last three optional, Strip only after Fuse)
     post_processor none, ByteLevel, TemplateProcessing, Sequence of these
   The chat template is stored as it is, for llm.h's Jinja interpreter, whatever it says; one
   that does not parse is stored too, with a warning that names the error (llm_chat_render then
   reports it). Ordered substring rules also name the built-in template it matches, if any
   (family and variant, docs/FORMAT.md; "raw" when none does).

   Every llm_convert call and builder is independent: there is no global or static state. */
#ifndef LLM_CONVERT_H
#define LLM_CONVERT_H

#ifndef LLM_H
#error "include llm.h before llm_convert.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- llm_convert: quantizers ------------------------------------------------------------ */
#define LLM_QUANTIZE_REFERENCE 1 /* q4_0: ggml's reference rounding (scale = -max/8), no search */
/* In llm_quantize's flags: run kernel set k (tests and benchmarks; a set llm_kernels_supported
   says is there), not llm_kernels_best(). Every set writes the same bytes. */
#define LLM_QUANTIZE_KERNELS(k) ((int)(k) << 8)
#define LLM_RECIPE_K_M 1         /* llm_convert_desc.recipe: q4_k_m, q5_k_m */
/* Writes a [rows, cols] f32 matrix as type t in the file layout (docs/FORMAT.md): rows in
   multiples of llm_dtype_row_group(t), cols a whole number of blocks. */
LLMDEF llm_result llm_quantize(llm_dtype t, const float *src, int64_t rows, int64_t cols, void *dst, int flags);
/* ggml's Q4_K, Q5_K or Q6_K blocks of a [rows, cols] matrix (row-major, cols / 256 blocks a
   row, as a GGUF file holds them) in the file layout of q4_k, q5_k or q6_k: the same values
   bit for bit. rows a multiple of 16, cols of 256. */
LLMDEF llm_result llm_q4_k_from_ggml(const void *blocks, int64_t rows, int64_t cols, void *dst);
LLMDEF llm_result llm_q5_k_from_ggml(const void *blocks, int64_t rows, int64_t cols, void *dst);
LLMDEF llm_result llm_q6_k_from_ggml(const void *blocks, int64_t rows, int64_t cols, void *dst);

/* ---- llm_convert: builder ----------------------------------------------------------------
   Describe metadata and tensors, then write llm_builder_header() followed by each tensor's
   bytes at llm_builder_tensor_offset(), up to llm_builder_file_size(). One thread at a time;
   llm_builder_destroy(NULL) does nothing. */
typedef struct llm_builder llm_builder;

LLMDEF llm_result llm_builder_create(llm_builder **out);
LLMDEF void llm_builder_destroy(llm_builder *b);
LLMDEF llm_result llm_builder_set_i32(llm_builder *b, const char *key, int32_t v);
LLMDEF llm_result llm_builder_set_f64(llm_builder *b, const char *key, double v);
LLMDEF llm_result llm_builder_set_string(llm_builder *b, const char *key, const char *s, size_t len);
LLMDEF llm_result llm_builder_set_i32_array(llm_builder *b, const char *key, const int32_t *v, size_t n);
LLMDEF llm_result llm_builder_set_blob(llm_builder *b, const char *key, const void *data, size_t size);
/* Returns the tensor's index through idx. size is computed from dtype and shape. A name
   already added is LLM_ERR_INVALID_ARGUMENT. */
LLMDEF llm_result llm_builder_add_tensor(llm_builder *b, const char *name, llm_dtype dtype, int n_dims,
                                         const int64_t *shape, size_t *idx);
/* Lays out the file; the bytes before the first tensor (header, metadata, table, padding). */
LLMDEF llm_result llm_builder_header(llm_builder *b, const void **bytes, size_t *size);
LLMDEF uint64_t llm_builder_tensor_offset(const llm_builder *b, size_t idx);
LLMDEF uint64_t llm_builder_tensor_size(const llm_builder *b, size_t idx);
LLMDEF uint64_t llm_builder_file_size(const llm_builder *b);

/* ---- llm_convert: HuggingFace directory -> model file ----------------------------------- */
/* One tensor written (name set), or, last, the whole file (name NULL, info set). */
typedef struct llm_convert_progress {
    const char *name;             /* the checkpoint's tensor name; NULL: the file is done */
    llm_dtype src_dtype, dtype;   /* in the checkpoint, in the file */
    int n_dims;
    const int64_t *shape;
    uint64_t bytes;               /* this tensor's size in the file */
    int n_done, n_total;          /* tensors */
    uint64_t bytes_done, bytes_total;
    const llm_model_info *info;   /* the written file as llm_model_open read it (done only) */
    uint64_t file_size;           /* done only */
} llm_convert_progress;

/* Zero means default. */
typedef struct llm_convert_desc {
    int has_dtype;                /* 0: weight matrices keep the checkpoint's type */
    llm_dtype dtype;              /* with has_dtype: their type (norms and biases stay f32;
                                     q4_0 keeps the embedding/output matrices of vocabularies up
                                     to 64k q8_0; a shape the blocks do not fit is f16) */
    int quantize_flags;           /* LLM_QUANTIZE_REFERENCE */
    llm_kernels kernels;          /* the quantizer's kernel set (tests): 0 (AUTO) the best, another
                                     one a set llm_kernels_supported says is there; every set
                                     writes the same bytes */
    int recipe;                   /* LLM_RECIPE_K_M with dtype q4_k or q5_k: llama.cpp's _M mix (q6_k
                                     for the output matrix and for attn_v and ffn_down in the
                                     layers its use_more_bits picks) */
    int vocab_only;               /* only the tokenizer (and config.json's ids), no tensors */
    void (*progress)(void *user, const llm_convert_progress *p);
    /* What the converter says besides the error: "reading DIR" once the output is known to
       be writable, "warning: ...", "note: ...", or a line describing what is written (the
       tokenizer, the chat template). */
    llm_log_fn log;
    /* The temporary file's name just before it is created, and NULL once it is gone or
       renamed: a signal handler of the caller may remove the file in between. */
    void (*on_temp)(void *user, const char *path);
    void *user;                   /* passed to progress, log and on_temp */
} llm_convert_desc;

/* Converts the HuggingFace directory hf_dir into the model file out. On failure out is
   untouched, no temporary is left, and err (when err_cap > 0) holds a message that names the
   file and what is wrong. NULL desc: all defaults. */
LLMDEF llm_result llm_convert(const char *hf_dir, const char *out, const llm_convert_desc *desc, char *err,
                              size_t err_cap);

#ifdef __cplusplus
}
#endif
#endif /* LLM_CONVERT_H */

/* ========================================================================================= */
#ifdef LLM_CONVERT_IMPLEMENTATION
#ifndef LLM_CONVERT_IMPLEMENTATION_DONE
#define LLM_CONVERT_IMPLEMENTATION_DONE

#ifndef LLM_IMPLEMENTATION_DONE
#error "llm_convert.h's implementation needs llm.h's in the same file (#define LLM_IMPLEMENTATION first)"
#endif
#ifndef JSON_IMPLEMENTATION
#define JSON_IMPLEMENTATION
#endif
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#if defined(_WIN32)
#include <io.h>
#include <process.h>
#define llm__cv_getpid _getpid
#else
#include <unistd.h>
#define llm__cv_getpid getpid
#endif
#if !defined(S_ISREG)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#endif

/* One group of 16 rows of a quantized type, f16 or bf16 into the file layout, as one kernel
   set writes it (llm_quantize). */
typedef void (*llm__cv_group_fn)(llm_dtype t, const float *src, int64_t n, uint8_t *dst, int flags);

/* One conversion's state: everything a message or the temporary file needs. */
typedef struct llm__cv {
    const llm_convert_desc *desc; /* never NULL */
    llm__cv_group_fn qgroup;      /* desc->kernels' quantizer, found at its first use */
    const char *out;              /* the output's name, for messages */
    char msg[1024];               /* the error */
    llm_result rc;
    char quote[2][320];           /* llm__cv_tok_quote's results: two may be used in one message */
    int quote_which;
    char tmp[4096];               /* the temporary file, while tmp_live */
    int tmp_live;
    llm_convert_progress pg;
} llm__cv;

/* A failure with its message; llm__cv_fail's is LLM_ERR_BAD_FILE (the input is wrong), the
   others say which other kind it is. Each returns -1 for the caller to pass on. */
static int llm__cv_vfail(llm__cv *cv, llm_result rc, const char *fmt, va_list ap) {
    vsnprintf(cv->msg, sizeof cv->msg, fmt, ap);
    cv->rc = rc;
    return -1;
}

static int llm__cv_fail(llm__cv *cv, const char *fmt, ...) {
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = llm__cv_vfail(cv, LLM_ERR_BAD_FILE, fmt, ap);
    va_end(ap);
    return r;
}

static int llm__cv_fail_as(llm__cv *cv, llm_result rc, const char *fmt, ...) {
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = llm__cv_vfail(cv, rc, fmt, ap);
    va_end(ap);
    return r;
}

static int llm__cv_oom(llm__cv *cv) { return llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory"); }

/* json.h's message for a file it could not parse: "cannot open/read PATH: reason" when the
   file could not be read, the place and the problem otherwise. */
static int llm__cv_json_failed(llm__cv *cv, const char *err) {
    return llm__cv_fail_as(cv, strncmp(err, "cannot ", 7) ? LLM_ERR_BAD_FILE : LLM_ERR_IO, "%s", err);
}

static void llm__cv_log(llm__cv *cv, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    if (!cv->desc->log) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cv->desc->log(cv->desc->user, buf);
}

static void llm__cv_path_join(char *out, size_t n, const char *dir, const char *file) {
    snprintf(out, n, "%s/%s", dir, file);
}

static char *llm__cv_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* ---- llm: model file writer ---------------------------------------------------------------- */
typedef struct llm__cv_bytes {
    uint8_t *p;
    size_t n, cap;
    int oom;
} llm__cv_bytes;

static void llm__cv_put(llm__cv_bytes *b, const void *src, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *p;
        while (cap < b->n + n) cap *= 2;
        p = (uint8_t *)LLM_MALLOC(cap);
        if (!p) { b->oom = 1; return; }
        if (b->n) memcpy(p, b->p, b->n);
        LLM_FREE(b->p);
        b->p = p;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void llm__cv_put32(llm__cv_bytes *b, uint32_t v) {
    uint8_t t[4];
    t[0] = (uint8_t)v; t[1] = (uint8_t)(v >> 8); t[2] = (uint8_t)(v >> 16); t[3] = (uint8_t)(v >> 24);
    llm__cv_put(b, t, 4);
}

static void llm__cv_put64(llm__cv_bytes *b, uint64_t v) { llm__cv_put32(b, (uint32_t)v); llm__cv_put32(b, (uint32_t)(v >> 32)); }

struct llm_builder {
    llm__cv_bytes meta, table, out;
    uint64_t n_meta, n_tensors, data_size, file_size, data_off;
    uint64_t *offsets, *sizes; /* per tensor, relative offsets until llm_builder_header */
    size_t cap;
};

LLMDEF llm_result llm_builder_create(llm_builder **out) {
    if (!out) return LLM_ERR_INVALID_ARGUMENT;
    *out = (llm_builder *)LLM_MALLOC(sizeof **out);
    if (!*out) return LLM_ERR_OUT_OF_MEMORY;
    memset(*out, 0, sizeof **out);
    return LLM_OK;
}

LLMDEF void llm_builder_destroy(llm_builder *b) {
    if (!b) return;
    LLM_FREE(b->meta.p); LLM_FREE(b->table.p); LLM_FREE(b->out.p);
    LLM_FREE(b->offsets); LLM_FREE(b->sizes);
    LLM_FREE(b);
}

static llm_result llm__cv_builder_meta(llm_builder *b, const char *key, uint32_t type, const void *data, size_t size) {
    size_t kl;
    if (!b || !key || (!data && size)) return LLM_ERR_INVALID_ARGUMENT;
    kl = strlen(key);
    if (kl == 0 || kl > LLM__MAX_NAME) return LLM_ERR_INVALID_ARGUMENT;
    llm__cv_put32(&b->meta, (uint32_t)kl);
    llm__cv_put(&b->meta, key, kl);
    llm__cv_put32(&b->meta, type);
    llm__cv_put64(&b->meta, size);
    llm__cv_put(&b->meta, data, size);
    b->n_meta++;
    return b->meta.oom ? LLM_ERR_OUT_OF_MEMORY : LLM_OK;
}

LLMDEF llm_result llm_builder_set_i32(llm_builder *b, const char *key, int32_t v) {
    uint8_t t[4];
    t[0] = (uint8_t)v; t[1] = (uint8_t)((uint32_t)v >> 8); t[2] = (uint8_t)((uint32_t)v >> 16); t[3] = (uint8_t)((uint32_t)v >> 24);
    return llm__cv_builder_meta(b, key, LLM_META_I32, t, 4);
}

LLMDEF llm_result llm_builder_set_f64(llm_builder *b, const char *key, double v) {
    uint64_t u;
    uint8_t t[8];
    int i;
    memcpy(&u, &v, 8);
    for (i = 0; i < 8; i++) t[i] = (uint8_t)(u >> (8 * i));
    return llm__cv_builder_meta(b, key, LLM_META_F64, t, 8);
}

LLMDEF llm_result llm_builder_set_string(llm_builder *b, const char *key, const char *s, size_t len) {
    return llm__cv_builder_meta(b, key, LLM_META_STRING, s, len);
}

LLMDEF llm_result llm_builder_set_blob(llm_builder *b, const char *key, const void *data, size_t size) {
    return llm__cv_builder_meta(b, key, LLM_META_BLOB, data, size);
}

LLMDEF llm_result llm_builder_set_i32_array(llm_builder *b, const char *key, const int32_t *v, size_t n) {
    llm__cv_bytes t;
    size_t i;
    llm_result r;
    memset(&t, 0, sizeof t);
    for (i = 0; i < n; i++) llm__cv_put32(&t, (uint32_t)v[i]);
    r = t.oom ? LLM_ERR_OUT_OF_MEMORY : llm__cv_builder_meta(b, key, LLM_META_I32_ARRAY, t.p, t.n);
    LLM_FREE(t.p);
    return r;
}

static uint64_t llm__cv_align_up(uint64_t v) { return (v + LLM__ALIGN - 1) / LLM__ALIGN * LLM__ALIGN; }

/* Whether the table already has a tensor of this name (entries: u32 length, name, u32 dtype,
   u32 dims, u64 x dims, u64 offset, u64 size). */
static int llm__cv_builder_has_tensor(const llm_builder *b, const char *name, size_t nl) {
    size_t p = 0, len;
    while (!b->table.oom && p < b->table.n) {
        len = llm__rd32(b->table.p + p);
        if (len == nl && memcmp(b->table.p + p + 4, name, nl) == 0) return 1;
        p += 4 + len + 8 + 8 * (size_t)llm__rd32(b->table.p + p + 4 + len + 4) + 16;
    }
    return 0;
}

LLMDEF llm_result llm_builder_add_tensor(llm_builder *b, const char *name, llm_dtype dtype, int n_dims,
                                         const int64_t *shape, size_t *idx) {
    size_t nl, size, rows = 1;
    int d;
    if (!b || !name || !shape || n_dims < 1 || n_dims > 4 || (unsigned)dtype >= LLM_DTYPE_COUNT) return LLM_ERR_INVALID_ARGUMENT;
    nl = strlen(name);
    if (nl == 0 || nl > LLM__MAX_NAME || llm__cv_builder_has_tensor(b, name, nl)) return LLM_ERR_INVALID_ARGUMENT;
    for (d = 0; d < n_dims; d++)
        if (shape[d] < 1 || (d < n_dims - 1 && !llm__mul_ok(rows, (size_t)shape[d], &rows))) return LLM_ERR_INVALID_ARGUMENT;
    size = llm_dtype_row_bytes(dtype, shape[n_dims - 1]);
    if (size == 0 || rows % (size_t)llm_dtype_row_group(dtype) || !llm__mul_ok(size, rows, &size)) return LLM_ERR_INVALID_ARGUMENT;
    if (b->n_tensors == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        uint64_t *o = (uint64_t *)LLM_MALLOC(cap * 8), *s = (uint64_t *)LLM_MALLOC(cap * 8);
        if (!o || !s) { LLM_FREE(o); LLM_FREE(s); return LLM_ERR_OUT_OF_MEMORY; }
        if (b->n_tensors) { memcpy(o, b->offsets, b->n_tensors * 8); memcpy(s, b->sizes, b->n_tensors * 8); }
        LLM_FREE(b->offsets); LLM_FREE(b->sizes);
        b->offsets = o; b->sizes = s; b->cap = cap;
    }
    b->data_size = llm__cv_align_up(b->data_size);
    b->offsets[b->n_tensors] = b->data_size;
    b->sizes[b->n_tensors] = size;
    b->data_size += size;
    llm__cv_put32(&b->table, (uint32_t)nl);
    llm__cv_put(&b->table, name, nl);
    llm__cv_put32(&b->table, (uint32_t)dtype);
    llm__cv_put32(&b->table, (uint32_t)n_dims);
    for (d = 0; d < n_dims; d++) llm__cv_put64(&b->table, (uint64_t)shape[d]);
    llm__cv_put64(&b->table, b->offsets[b->n_tensors]);
    llm__cv_put64(&b->table, size);
    if (idx) *idx = (size_t)b->n_tensors;
    b->n_tensors++;
    return b->table.oom ? LLM_ERR_OUT_OF_MEMORY : LLM_OK;
}

LLMDEF llm_result llm_builder_header(llm_builder *b, const void **bytes, size_t *size) {
    uint64_t meta_off = LLM__HEADER_SIZE, meta_size, tab_off, data_off;
    static const uint8_t zeros[LLM__ALIGN] = { 0 };
    if (!b || !bytes || !size) return LLM_ERR_INVALID_ARGUMENT;
    meta_size = 8 + b->meta.n;
    tab_off = meta_off + meta_size;
    data_off = llm__cv_align_up(tab_off + b->table.n);
    b->file_size = data_off + llm__cv_align_up(b->data_size);
    b->out.n = 0;
    llm__cv_put(&b->out, LLM_FILE_MAGIC, 4);
    llm__cv_put32(&b->out, LLM_FILE_VERSION);
    llm__cv_put64(&b->out, b->file_size);
    llm__cv_put64(&b->out, meta_off); llm__cv_put64(&b->out, meta_size);
    llm__cv_put64(&b->out, tab_off); llm__cv_put64(&b->out, b->table.n);
    llm__cv_put64(&b->out, b->n_tensors); llm__cv_put64(&b->out, data_off);
    llm__cv_put64(&b->out, 0); /* the checksum, once the bytes it covers are there */
    llm__cv_put64(&b->out, b->n_meta);
    llm__cv_put(&b->out, b->meta.p, b->meta.n);
    llm__cv_put(&b->out, b->table.p, b->table.n);
    llm__cv_put(&b->out, zeros, (size_t)(data_off - b->out.n));
    if (b->out.oom) return LLM_ERR_OUT_OF_MEMORY;
    llm__wr64(b->out.p + LLM__CHECKSUM_AT, llm__file_checksum(b->out.p, data_off));
    *bytes = b->out.p;
    *size = b->out.n;
    b->data_off = data_off;
    return LLM_OK;
}

LLMDEF uint64_t llm_builder_tensor_offset(const llm_builder *b, size_t idx) { return b->data_off + b->offsets[idx]; }
LLMDEF uint64_t llm_builder_tensor_size(const llm_builder *b, size_t idx) { return b->sizes[idx]; }
LLMDEF uint64_t llm_builder_file_size(const llm_builder *b) { return b->file_size; }

/* ---- llm_convert: quantizers --------------------------------------------------------------
   The reference functions, one block of one row at a time (plain C: the LLM_KERNELS_SCALAR
   set), then the vector kernels (tools/llm_quant_vec.h), which run the same operations on
   several rows at once; llm_quantize runs the set llm_kernels_best() names. A multiply and an
   add are never fused into an FMA here, whose single rounding would make the bytes depend on
   the compiler and the set: clang fuses within an expression by default and gcc across
   statements outside the ISO C modes. (x87 arithmetic, 32-bit x86 without SSE2, rounds twice,
   so there a byte can differ.) No call into libm per weight either: floorf and roundf are
   calls on baseline x86-64. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

/* a > b ? a : b and a < b ? a : b, as SSE's MAXPS and MINPS compute them (a NaN a gives b),
   the instructions the vector kernels use. */
static float llm__cv_max(float a, float b) { return a > b ? a : b; }
static float llm__cv_min(float a, float b) { return a < b ? a : b; }

/* floorf of a v already clamped to a small range. */
static float llm__cv_floor(float v) {
    float t = (float)(int32_t)v;
    return t > v ? t - 1.0f : t;
}

/* roundf(v) (halves away from zero) clamped to [-lim, lim]; NaN gives 0. */
static float llm__cv_round_away(float v, float lim) {
    float t, f;
    v = v == v ? v : 0.0f;
    v = llm__cv_min(llm__cv_max(v, -lim), lim);
    t = (float)(int32_t)v;
    f = v - t; /* exact */
    return f >= 0.5f ? t + 1.0f : f <= -0.5f ? t - 1.0f : t;
}

/* q8_0: scale = max|x| / 127 (rounded to f16), codes = round(x / scale) with that scale. */
static uint16_t llm__cv_quant_block_q8(const float *x, int8_t *q) {
    float amax = 0.0f, d, id;
    uint16_t h;
    int i;
    for (i = 0; i < LLM__QK; i++) amax = llm__cv_max(fabsf(x[i]), amax);
    h = llm_f32_to_f16(amax / 127.0f);
    d = llm_f16_to_f32(h);
    id = d > 0.0f ? 1.0f / d : 0.0f;
    for (i = 0; i < LLM__QK; i++) q[i] = (int8_t)llm__cv_round_away(x[i] * id, 127.0f);
    return h;
}

/* The nearest 4-bit code of x for 1 / scale id: floor(x id + 8.5) in 0..15 (NaN: 0). */
static float llm__cv_q4_code(float x, float id) {
    return llm__cv_floor(llm__cv_min(llm__cv_max(x * id + 8.5f, 0.0f), 15.0f));
}

/* q4_0's codes at scale d with their squared error, and the sums whose quotient num / den is
   the least-squares scale of those codes. */
static float llm__cv_q4_fit(const float *x, float d, uint8_t *q, float *num, float *den) {
    float id = d != 0.0f ? 1.0f / d : 0.0f, err = 0.0f, sn = 0.0f, sd = 0.0f;
    int i;
    for (i = 0; i < LLM__QK; i++) {
        float v = llm__cv_q4_code(x[i], id), c = v - 8.0f, e = x[i] - c * d;
        q[i] = (uint8_t)v;
        err += e * e;
        sn += x[i] * c;
        sd += c * c;
    }
    *num = sn;
    *den = sd;
    return err;
}

/* The least-squares scale of the codes that scale d gives (d when they are all 8), rounded to
   f16; *key gets the squared error of those codes at that scale less sum x^2, d (d den - 2 num),
   an upper bound of the error once the codes are taken again for it. */
static float llm__cv_q4_ls(const float *x, float d, float *key) {
    float id = d != 0.0f ? 1.0f / d : 0.0f, num = 0.0f, den = 0.0f;
    int i;
    for (i = 0; i < LLM__QK; i++) {
        float c = llm__cv_q4_code(x[i], id) - 8.0f;
        num += x[i] * c;
        den += c * c;
    }
    if (den > 0.0f) d = num / den;
    d = llm_f16_to_f32(llm_f32_to_f16(d));
    *key = d * (d * den - 2.0f * num);
    return d;
}

/* The divisor of q4_0's candidate s: the value m of largest magnitude maps to code 0 (scale
   m / -(6.25..9)) or to code 15 (scale m / (6.25..9)). */
static float llm__cv_q4_div(int s) { return (s & 1 ? 1.0f : -1.0f) * (6.25f + 0.25f * (float)(s >> 1)); }

#define LLM__CV_Q4_TRIES 24 /* candidate scales, each refined once by least squares */
#define LLM__CV_Q4_KEEP 2   /* of those, tried */

/* Keeps scale d (codes q, sums num, den) where it reconstructs x better than the best so far. */
static void llm__cv_q4_try(const float *x, float d, float *best, float *best_err, uint8_t *q, float *num, float *den) {
    uint8_t tmp[LLM__QK];
    float n, dn, err = llm__cv_q4_fit(x, d, tmp, &n, &dn);
    if (err < *best_err) { *best_err = err; *best = d; *num = n; *den = dn; memcpy(q, tmp, sizeof tmp); }
}

/* q4_0. ggml's reference rounding takes scale = m / -8 where m is the value of largest
   magnitude. We start from that scale; of 24 others, each refined once by least squares and
   rounded to f16, the LLM__CV_Q4_KEEP with the least error bound (llm__cv_q4_ls) are tried,
   and the best scale so far is refined once more. A scale replaces the best when its codes
   reconstruct the block with a smaller squared error, so a block is never reconstructed worse
   than by ggml's rule. (Against trying each of the 24: a lower total squared error, 0.04% on
   kjv-tiny and 0.09% on Gaussian weights, for half the work.) */
static uint16_t llm__cv_quant_block_q4(const float *x, uint8_t *q, int flags) {
    float amax = 0.0f, m = 0.0f, best, best_err, num, den;
    int i, s;
    for (i = 0; i < LLM__QK; i++)
        if (fabsf(x[i]) > amax) { amax = fabsf(x[i]); m = x[i]; }
    if (flags & LLM_QUANTIZE_REFERENCE) { /* ggml quantize_row_q4_0_ref */
        float d = m / -8.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
        for (i = 0; i < LLM__QK; i++) { /* clamped before the conversion: a non-finite weight is no UB */
            float v = x[i] * id + 8.5f;
            q[i] = (uint8_t)(int)(v >= 0.0f ? (v < 15.0f ? v : 15.0f) : 0.0f);
        }
        return llm_f32_to_f16(d);
    }
    best = llm_f16_to_f32(llm_f32_to_f16(m / -8.0f));
    best_err = llm__cv_q4_fit(x, best, q, &num, &den);
    if (amax > 0.0f) {
        float key[LLM__CV_Q4_KEEP], ds[LLM__CV_Q4_KEEP], k, d;
        int j;
        for (j = 0; j < LLM__CV_Q4_KEEP; j++) { key[j] = HUGE_VALF; ds[j] = best; }
        for (s = 0; s < LLM__CV_Q4_TRIES; s++) { /* the LLM__CV_Q4_KEEP least keys, in order (ties: the first) */
            d = llm__cv_q4_ls(x, m / llm__cv_q4_div(s), &k);
            for (j = LLM__CV_Q4_KEEP - 1; j >= 0 && k < key[j]; j--) {
                if (j + 1 < LLM__CV_Q4_KEEP) { key[j + 1] = key[j]; ds[j + 1] = ds[j]; }
                key[j] = k; ds[j] = d;
            }
        }
        for (j = 0; j < LLM__CV_Q4_KEEP; j++) llm__cv_q4_try(x, ds[j], &best, &best_err, q, &num, &den);
        if (den > 0.0f) llm__cv_q4_try(x, llm_f16_to_f32(llm_f32_to_f16(num / den)), &best, &best_err, q, &num, &den);
    }
    return llm_f32_to_f16(best);
}

static void llm__cv_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

/* One group of 16 rows x n columns. Per group: the codes of block 0, 1, ... then the
   16 f16 scales of block 0, 1, .... Within a block, 64-byte chunk j holds bytes
   [row l][4j .. 4j+3] at 4l (q8_0: int8 codes of columns 4j..4j+3; q4_0: the low nibble is
   column 4j+i, the high nibble column 16+4j+i, both unsigned codes). */
static void llm__cv_quantize_group(llm_dtype t, const float *src, int64_t n, uint8_t *dst, int flags) {
    int64_t nb = n / LLM__QK, b;
    size_t qbytes = t == LLM_DTYPE_Q8_0 ? 512 : 256;
    uint8_t *scales = dst + (size_t)nb * qbytes;
    int l, k;
    for (b = 0; b < nb; b++) {
        uint8_t *qb = dst + (size_t)b * qbytes;
        for (l = 0; l < LLM__QG; l++) {
            const float *x = src + (size_t)l * (size_t)n + (size_t)b * LLM__QK;
            uint16_t h;
            if (t == LLM_DTYPE_Q8_0) {
                int8_t q[LLM__QK];
                h = llm__cv_quant_block_q8(x, q);
                for (k = 0; k < LLM__QK; k++) qb[(k / 4) * 64 + 4 * l + k % 4] = (uint8_t)q[k];
            } else {
                uint8_t q[LLM__QK];
                h = llm__cv_quant_block_q4(x, q, flags);
                for (k = 0; k < 16; k++) qb[(k / 4) * 64 + 4 * l + k % 4] = (uint8_t)(q[k] | q[k + 16] << 4);
            }
            llm__cv_put16(scales + (size_t)b * 32 + 2 * (size_t)l, h);
        }
    }
}

/* ---- k-quants (q4_k, q5_k, q6_k): ggml's Q4_K, Q5_K and Q6_K values in llm.h's layout ---- */
/* One row's super-block, unpacked: codes (unsigned: q4_k 0..15, q5_k 0..31, q6_k 0..63),
   sub-block scales (q6_k: 16 int8 in sc6) and mins, and the f16 scales. */
typedef struct llm__cv_kq_row {
    uint8_t q[256], sc[8], mn[8];
    int8_t sc6[16];
    uint16_t d, dmin;
} llm__cv_kq_row;

/* Writes row l of a group's super-block SB (the inverse of llm.h's llm__kq_code,
   llm__kq_scale_min and llm__kq_d; docs/FORMAT.md, "k-quant tensors"). */
static void llm__cv_kq_put_row(llm_dtype t, uint8_t *SB, int ns, int l, const llm__cv_kq_row *r) {
    uint8_t *H = SB + llm__kq_hi_at(ns), *S = SB + llm__kq_scales_at(t, ns);
    int j, k, i, jj;
    for (j = 0; j < ns; j++) {
        for (k = 0; k < 16; k++) SB[256 * j + (k / 4) * 64 + 4 * l + k % 4] = (uint8_t)((r->q[32 * j + k] & 15) | (r->q[32 * j + 16 + k] & 15) << 4);
        for (i = 0; i < 4 && t == LLM_DTYPE_Q5_K; i++) {
            unsigned v = 0;
            for (jj = 0; jj < 4; jj++) v |= (unsigned)(r->q[32 * j + 4 * jj + i] >> 4 & 1) << jj | (unsigned)(r->q[32 * j + 16 + 4 * jj + i] >> 4 & 1) << (4 + jj);
            H[64 * j + 4 * l + i] = (uint8_t)v;
        }
        for (i = 0; i < 4 && t == LLM_DTYPE_Q6_K; i++) {
            unsigned a = 0, b = 0;
            for (jj = 0; jj < 4; jj++) {
                a |= (unsigned)(r->q[32 * j + 4 * jj + i] >> 4 & 3) << (2 * jj);
                b |= (unsigned)(r->q[32 * j + 16 + 4 * jj + i] >> 4 & 3) << (2 * jj);
            }
            H[128 * j + 4 * l + i] = (uint8_t)a;
            H[128 * j + 64 + 4 * l + i] = (uint8_t)b;
        }
    }
    if (t == LLM_DTYPE_Q6_K) {
        for (k = 0; k < 16; k++) S[16 * k + l] = (uint8_t)r->sc6[k];
        llm__cv_put16(S + 256 + 2 * l, r->d);
        return;
    }
    {
        for (j = 0; j < 8; j++) S[16 * j + l] = (uint8_t)((r->sc[j] & 15) | (r->mn[j] & 15) << 4);
        for (i = 0; i < 4; i++)
            S[128 + 16 * i + l] = (uint8_t)((r->sc[2 * i] >> 4 | (r->mn[2 * i] >> 4) << 2) | (r->sc[2 * i + 1] >> 4 | (r->mn[2 * i + 1] >> 4) << 2) << 4);
        llm__cv_put16(S + 192 + 2 * l, r->d);
        llm__cv_put16(S + 224 + 2 * l, r->dmin);
    }
}

/* Importance of each weight of a sub-block for the fits below: the block's RMS plus the
   magnitude (ggml's choice for Q4_K), so large weights are rounded more carefully. */
static void llm__cv_kq_weights(const float *x, int n, float *w) {
    float s2 = 0.0f, av;
    int i;
    for (i = 0; i < n; i++) s2 += x[i] * x[i];
    av = sqrtf(s2 / (float)n);
    for (i = 0; i < n; i++) w[i] = av + fabsf(x[i]);
}

/* floor(v + 0.5) clamped to lo..hi (NaN: lo). */
static int llm__cv_round_clamp(float v, int lo, int hi) {
    return (int)llm__cv_floor(llm__cv_min(llm__cv_max(v + 0.5f, (float)lo), (float)hi));
}

/* The k-quant fits below sum in 8 partial sums (element i into sum i % 8, the eight added
   pairwise at the end) and round a code by truncating value + 0.5 after the clamp (floor for
   what is left): the order of operations of every kernel set. */
#define LLM__CV_LANES 8

static float llm__cv_lanes_sum(const float *v) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

/* The nearest code in 0..nmax of v (NaN: 0). */
static float llm__cv_code(float v, float nmax) {
    v = llm__cv_min(llm__cv_max(v, 0.0f), nmax);
    return (float)(int32_t)(v + 0.5f);
}

/* value = a q - m with codes 0..nmax, a >= 0, m >= 0: tries 21 grid densities around nmax /
   (max - min), each fitted by weighted least squares for a and m (m clipped at 0), and
   keeps the fit of least weighted squared error. Returns a; *m_out gets m. */
static float llm__cv_kq_fit_min(const float *x, const float *w, int nmax, float *m_out) {
    float mn = x[0], mx = x[0], best_a, best_b, best_e = -1.0f, sw = 0.0f, sx = 0.0f, fmax = (float)nmax;
    int i, k, step;
    for (i = 1; i < LLM__QK; i++) { mn = x[i] < mn ? x[i] : mn; mx = x[i] > mx ? x[i] : mx; }
    if (mn > 0.0f) mn = 0.0f;
    if (mx <= mn) { *m_out = -mn; return 0.0f; }
    for (i = 0; i < LLM__QK; i++) { sw += w[i]; sx += w[i] * x[i]; }
    best_a = (mx - mn) / fmax;
    best_b = mn;
    for (step = -1; step <= 20; step++) {
        float is = step < 0 ? fmax / (mx - mn) : (fmax - 1.0f + 0.1f * (float)step) / (mx - mn);
        float sl[LLM__CV_LANES] = { 0 }, sl2[LLM__CV_LANES] = { 0 }, sxl[LLM__CV_LANES] = { 0 }, ev[LLM__CV_LANES] = { 0 };
        float L[LLM__QK], a, b, D, tl, tl2, txl;
        for (i = 0; i < LLM__QK; i += LLM__CV_LANES)
            for (k = 0; k < LLM__CV_LANES; k++) {
                float q = llm__cv_code(is * (x[i + k] - mn), fmax), wq = w[i + k] * q;
                L[i + k] = q;
                sl[k] += wq; sl2[k] += wq * q; sxl[k] += wq * x[i + k];
            }
        tl = llm__cv_lanes_sum(sl); tl2 = llm__cv_lanes_sum(sl2); txl = llm__cv_lanes_sum(sxl);
        D = sw * tl2 - tl * tl;
        if (D <= 0.0f) continue;
        a = (sw * txl - sx * tl) / D;
        b = (tl2 * sx - tl * txl) / D;
        if (b > 0.0f) { b = 0.0f; a = tl2 > 0.0f ? txl / tl2 : 0.0f; }
        if (a <= 0.0f) continue;
        for (i = 0; i < LLM__QK; i += LLM__CV_LANES)
            for (k = 0; k < LLM__CV_LANES; k++) { float r = a * L[i + k] + b - x[i + k]; ev[k] += w[i + k] * r * r; }
        tl = llm__cv_lanes_sum(ev);
        if (best_e < 0.0f || tl < best_e) { best_e = tl; best_a = a; best_b = b; }
    }
    *m_out = -best_b;
    return best_a;
}

/* value = a q with codes -32..31 over 16 weights: the weight of largest magnitude mapped to
   -32 or to 31 at 19 densities each, every one refined by weighted least squares. */
static float llm__cv_q6_fit(const float *x, const float *w) {
    float amax = 0.0f, m = 0.0f, best_a = 0.0f, best_e = -1.0f;
    int i, k, s;
    for (i = 0; i < 16; i++)
        if (fabsf(x[i]) > amax) { amax = fabsf(x[i]); m = x[i]; }
    if (amax == 0.0f) return 0.0f;
    for (s = 0; s < 38; s++) {
        float is = (s < 19 ? -(32.0f + 0.1f * (float)(s - 9)) : 31.0f + 0.1f * (float)(s - 28)) / m;
        float slx[LLM__CV_LANES] = { 0 }, sl2[LLM__CV_LANES] = { 0 }, ev[LLM__CV_LANES] = { 0 }, L[16], a, t2;
        for (i = 0; i < 16; i += LLM__CV_LANES)
            for (k = 0; k < LLM__CV_LANES; k++) {
                float q = llm__cv_code(is * x[i + k] + 32.0f, 63.0f) - 32.0f, wq = w[i + k] * q;
                L[i + k] = q;
                slx[k] += wq * x[i + k]; sl2[k] += wq * q;
            }
        t2 = llm__cv_lanes_sum(sl2);
        if (t2 <= 0.0f) continue;
        a = llm__cv_lanes_sum(slx) / t2;
        for (i = 0; i < 16; i += LLM__CV_LANES)
            for (k = 0; k < LLM__CV_LANES; k++) { float r = a * L[i + k] - x[i + k]; ev[k] += w[i + k] * r * r; }
        t2 = llm__cv_lanes_sum(ev);
        if (best_e < 0.0f || t2 < best_e) { best_e = t2; best_a = a; }
    }
    return best_a;
}

/* Codes of a sub-block for the stored scale ds = d sc and min dm = dmin m; returns the
   weighted squared error. */
static float llm__cv_kq_codes(const float *x, const float *w, float ds, float dm, int nmax, uint8_t *q) {
    float id = ds > 0.0f ? 1.0f / ds : 0.0f, ev[LLM__CV_LANES] = { 0 };
    int i, k;
    for (i = 0; i < LLM__QK; i += LLM__CV_LANES)
        for (k = 0; k < LLM__CV_LANES; k++) {
            float c = llm__cv_code((x[i + k] + dm) * id, (float)nmax), r = ds * c - dm - x[i + k];
            q[i + k] = (uint8_t)c;
            ev[k] += w[i + k] * r * r;
        }
    return llm__cv_lanes_sum(ev);
}

/* q4_k / q5_k, after the first pass: each sub-block's 6-bit scale and min moved by one step
   where that lowers its error, then d and dmin fitted again by least squares to the codes
   (kept when the row's error drops), twice. */
static void llm__cv_kq_refine(llm_dtype t, const float *x, const float *w, int ns, llm__cv_kq_row *r) {
    int nmax = t == LLM_DTYPE_Q4_K ? 15 : 31, it, j, a, b, i;
    for (it = 0; it < 2; it++) {
        float d = llm_f16_to_f32(r->d), dmin = llm_f16_to_f32(r->dmin), e0 = 0.0f, e1 = 0.0f;
        double saa = 0, sab = 0, sbb = 0, sax = 0, sbx = 0, det;
        llm__cv_kq_row n = *r;
        uint8_t q[LLM__QK];
        for (j = 0; j < ns; j++) {
            float best = -1.0f;
            int bs = r->sc[j], bm = r->mn[j];
            for (a = -1; a <= 1; a++)
                for (b = -1; b <= 1; b++) {
                    int sc = r->sc[j] + a, mn = r->mn[j] + b;
                    float e;
                    if (sc < 0 || sc > 63 || mn < 0 || mn > 63) continue;
                    e = llm__cv_kq_codes(x + 32 * j, w + 32 * j, d * (float)sc, dmin * (float)mn, nmax, q);
                    if (best < 0.0f || e < best) { best = e; bs = sc; bm = mn; memcpy(r->q + 32 * j, q, LLM__QK); }
                }
            r->sc[j] = (uint8_t)bs; r->mn[j] = (uint8_t)bm;
            e0 += best;
            for (i = 0; i < LLM__QK; i++) {
                double u = (double)bs * r->q[32 * j + i], v = (double)bm, wi = w[32 * j + i], xi = x[32 * j + i];
                saa += wi * u * u; sab += wi * u * v; sbb += wi * v * v; sax += wi * u * xi; sbx += wi * v * xi;
            }
        }
        /* x ~ d u - dmin v: the normal equations of d and dmin */
        det = sab * sab - saa * sbb;
        if (det == 0.0) continue;
        n.d = llm_f32_to_f16((float)((sab * sbx - sax * sbb) / det));
        n.dmin = llm_f32_to_f16((float)((saa * sbx - sab * sax) / det));
        d = llm_f16_to_f32(n.d); dmin = llm_f16_to_f32(n.dmin);
        if (!(d > 0.0f) || !(dmin >= 0.0f)) continue;
        for (j = 0; j < ns; j++) e1 += llm__cv_kq_codes(x + 32 * j, w + 32 * j, d * (float)n.sc[j], dmin * (float)n.mn[j], nmax, n.q + 32 * j);
        if (e1 < e0) *r = n;
    }
}

/* One row's 256 weights: a scale (and min) per sub-block fitted, the scales quantized to 6
   bits (q6_k: 8) against the super-block's f16 d and dmin, then the codes taken again with
   the scales as stored. */
static void llm__cv_kq_quantize_row(llm_dtype t, const float *x, int ns, llm__cv_kq_row *r) {
    float w[LLM__QKK], a[16], mins[8], amax = 0.0f, mmax = 0.0f, d, dmin;
    int j, k, nmax = t == LLM_DTYPE_Q4_K ? 15 : 31;
    memset(r, 0, sizeof *r);
    if (t == LLM_DTYPE_Q6_K) {
        float sa = 0.0f;
        for (j = 0; j < 16; j++) a[j] = 0.0f;
        for (j = 0; j < 2 * ns; j++) {
            llm__cv_kq_weights(x + 16 * j, 16, w);
            a[j] = llm__cv_q6_fit(x + 16 * j, w);
            if (fabsf(a[j]) > amax) { amax = fabsf(a[j]); sa = a[j]; }
        }
        r->d = llm_f32_to_f16(sa / -128.0f);
        d = llm_f16_to_f32(r->d);
        for (j = 0; j < 2 * ns; j++) {
            float ds;
            r->sc6[j] = (int8_t)(d != 0.0f ? llm__cv_round_clamp(a[j] / d, -128, 127) : 0);
            ds = d * (float)r->sc6[j];
            for (k = 0; k < 16; k++) r->q[16 * j + k] = (uint8_t)(ds != 0.0f ? llm__cv_round_clamp(x[16 * j + k] / ds, -32, 31) + 32 : 32);
        }
        r->dmin = 0;
        return;
    }
    for (j = 0; j < 8; j++) a[j] = mins[j] = 0.0f;
    for (j = 0; j < ns; j++) {
        llm__cv_kq_weights(x + 32 * j, LLM__QK, w + 32 * j);
        a[j] = llm__cv_kq_fit_min(x + 32 * j, w + 32 * j, nmax, &mins[j]);
        amax = a[j] > amax ? a[j] : amax;
        mmax = mins[j] > mmax ? mins[j] : mmax;
    }
    r->d = llm_f32_to_f16(amax / 63.0f);
    r->dmin = llm_f32_to_f16(mmax / 63.0f);
    d = llm_f16_to_f32(r->d);
    dmin = llm_f16_to_f32(r->dmin);
    for (j = 0; j < ns; j++) {
        float ds, dm;
        r->sc[j] = (uint8_t)(d > 0.0f ? llm__cv_round_clamp(a[j] / d, 0, 63) : 0);
        r->mn[j] = (uint8_t)(dmin > 0.0f ? llm__cv_round_clamp(mins[j] / dmin, 0, 63) : 0);
        ds = d * (float)r->sc[j];
        dm = dmin * (float)r->mn[j];
        for (k = 0; k < LLM__QK; k++) r->q[32 * j + k] = (uint8_t)(ds > 0.0f ? llm__cv_round_clamp((x[32 * j + k] + dm) / ds, 0, nmax) : 0);
    }
    llm__cv_kq_refine(t, x, w, ns, r);
}

/* One group of 16 rows x n columns of a k-quant type. */
static void llm__cv_quantize_kgroup(llm_dtype t, const float *src, int64_t n, uint8_t *dst) {
    size_t sbytes = LLM__QG * llm__kq_block_bytes(t, 8);
    int64_t s;
    int l;
    llm__cv_kq_row r;
    memset(&r, 0, sizeof r);
    for (s = 0; s * LLM__QKK < n; s++)
        for (l = 0; l < LLM__QG; l++) {
            llm__cv_kq_quantize_row(t, src + (size_t)l * (size_t)n + (size_t)s * LLM__QKK, llm__kq_subs(n, s), &r);
            llm__cv_kq_put_row(t, dst + (size_t)s * sbytes, llm__kq_subs(n, s), l, &r);
        }
}

/* One group of 16 rows x n columns of f16 or bf16 (llm__w16_index: column c of the 16 rows
   together). */
static void llm__cv_w16_group(llm_dtype t, const float *src, int64_t n, uint8_t *dst) {
    int64_t c;
    int r;
    for (c = 0; c < n; c++)
        for (r = 0; r < LLM__QG; r++) {
            float v = src[(size_t)r * (size_t)n + (size_t)c];
            llm__cv_put16(dst + 2 * ((size_t)c * LLM__QG + (size_t)r), t == LLM_DTYPE_F16 ? llm_f32_to_f16(v) : llm_f32_to_bf16(v));
        }
}

/* One group of 16 rows of a quantized type, f16 or bf16: the LLM_KERNELS_SCALAR set. */
static void llm__cv_quantize_group_ref(llm_dtype t, const float *src, int64_t n, uint8_t *dst, int flags) {
    if (t == LLM_DTYPE_F16 || t == LLM_DTYPE_BF16) llm__cv_w16_group(t, src, n, dst);
    else if (llm__is_kquant(t)) llm__cv_quantize_kgroup(t, src, n, dst);
    else llm__cv_quantize_group(t, src, n, dst, flags);
}

/* -- the vector kernels, one width per instruction set -------------------------------------
   GCC (9 and later: __builtin_convertvector) and Clang, on x86-64 and aarch64: AVX-512 16
   floats, AVX2 8, NEON 4. Each op below is the reference's: MAXPS/MINPS (a > b ? a : b,
   a < b ? a : b), a floor, an IEEE square root, and a multiply-add for sums of whole numbers
   (exact whether it rounds once or twice). */
#if !defined(LLM_NO_SIMD) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 9)) && \
    (defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#if defined(LLM__AVX512)
#define LLM__CV_VEC16 1
LLM__TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx2,fma")
#define LLM__CV_W 16
#define LLM__CV_VFMA_INT(a, b, c) ((LLM__CV_VF)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#define LLM__CV_VMAX(a, b) ((LLM__CV_VF)_mm512_max_ps((__m512)(a), (__m512)(b)))
#define LLM__CV_VMIN(a, b) ((LLM__CV_VF)_mm512_min_ps((__m512)(a), (__m512)(b)))
#define LLM__CV_VFLOOR(v) ((LLM__CV_VF)_mm512_roundscale_ps((__m512)(v), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC))
#define LLM__CV_VSQRT(v) ((LLM__CV_VF)_mm512_sqrt_ps((__m512)(v)))
#include "llm_quant_vec.h" /* which undefines LLM__CV_W and the macros above */
LLM__TARGET_END
#endif
#if defined(LLM__AVX2)
#define LLM__CV_VEC8 1
LLM__TARGET_BEGIN("avx2,fma")
#define LLM__CV_W 8
#define LLM__CV_VFMA_INT(a, b, c) ((LLM__CV_VF)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define LLM__CV_VMAX(a, b) ((LLM__CV_VF)_mm256_max_ps((__m256)(a), (__m256)(b)))
#define LLM__CV_VMIN(a, b) ((LLM__CV_VF)_mm256_min_ps((__m256)(a), (__m256)(b)))
#define LLM__CV_VFLOOR(v) ((LLM__CV_VF)_mm256_floor_ps((__m256)(v)))
#define LLM__CV_VSQRT(v) ((LLM__CV_VF)_mm256_sqrt_ps((__m256)(v)))
#include "llm_quant_vec.h" /* which undefines LLM__CV_W and the macros above */
LLM__TARGET_END
#endif
#if defined(LLM__NEON)
#define LLM__CV_VEC4 1
#define LLM__CV_W 4
#define LLM__CV_VFMA_INT(a, b, c) ((LLM__CV_VF)vfmaq_f32((float32x4_t)(c), (float32x4_t)(a), (float32x4_t)(b)))
#define LLM__CV_VMAX(a, b) LLM__CV_SEL((a) > (b), (a), (b))
#define LLM__CV_VMIN(a, b) LLM__CV_SEL((a) < (b), (a), (b))
#define LLM__CV_VFLOOR(v) ((LLM__CV_VF)vrndmq_f32((float32x4_t)(v)))
#define LLM__CV_VSQRT(v) ((LLM__CV_VF)vsqrtq_f32((float32x4_t)(v)))
#include "llm_quant_vec.h" /* which undefines LLM__CV_W and the macros above */
#endif
#endif

/* The group quantizer of kernel set k (any set the CPU runs; AUTO: the best). */
static llm__cv_group_fn llm__cv_group_kernel(llm_kernels k) {
    switch (k == LLM_KERNELS_AUTO ? llm_kernels_best() : k) {
#if defined(LLM__CV_VEC16)
    case LLM_KERNELS_AVX512: return llm__cv_quantize_group16;
#endif
#if defined(LLM__CV_VEC8)
    case LLM_KERNELS_AVX2: case LLM_KERNELS_AVX2_VNNI: return llm__cv_quantize_group8;
#endif
#if defined(LLM__CV_VEC4)
    case LLM_KERNELS_NEON: case LLM_KERNELS_NEON_DOTPROD: return llm__cv_quantize_group4;
#endif
    default: return llm__cv_quantize_group_ref;
    }
}

/* ggml's blocks (docs/FORMAT.md, "k-quant tensors", as ggml-quants.h declares them):
   block_q4_K { f16 d, dmin; u8 scales[12]; u8 qs[128]; }, block_q5_K { f16 d, dmin;
   u8 scales[12]; u8 qh[32]; u8 qs[128]; }, block_q6_K { u8 ql[128]; u8 qh[64]; i8 scales[16];
   f16 d; }, unpacked into one row's super-block. */
static void llm__cv_kq_from_ggml_block(llm_dtype t, const uint8_t *g, llm__cv_kq_row *r) {
    int j, l, c;
    if (t == LLM_DTYPE_Q6_K) {
        for (c = 0; c < 2; c++) {
            const uint8_t *ql = g + 64 * c, *qh = g + 128 + 32 * c;
            uint8_t *q = r->q + 128 * c;
            for (l = 0; l < 32; l++) {
                q[l] = (uint8_t)((ql[l] & 15) | (qh[l] & 3) << 4);
                q[l + 32] = (uint8_t)((ql[l + 32] & 15) | (qh[l] >> 2 & 3) << 4);
                q[l + 64] = (uint8_t)((ql[l] >> 4) | (qh[l] >> 4 & 3) << 4);
                q[l + 96] = (uint8_t)((ql[l + 32] >> 4) | (qh[l] >> 6 & 3) << 4);
            }
        }
        for (j = 0; j < 16; j++) r->sc6[j] = (int8_t)g[192 + j];
        r->d = (uint16_t)(g[208] | g[209] << 8);
        r->dmin = 0;
        return;
    }
    {
        const uint8_t *sc = g + 4, *qh = g + 16, *qs = g + (t == LLM_DTYPE_Q5_K ? 48 : 16);
        r->d = (uint16_t)(g[0] | g[1] << 8);
        r->dmin = (uint16_t)(g[2] | g[3] << 8);
        for (j = 0; j < 8; j++) { /* ggml's get_scale_min_k4 */
            r->sc[j] = (uint8_t)(j < 4 ? sc[j] & 63 : (sc[j + 4] & 15) | (sc[j - 4] >> 6) << 4);
            r->mn[j] = (uint8_t)(j < 4 ? sc[j + 4] & 63 : (sc[j + 4] >> 4) | (sc[j] >> 6) << 4);
        }
        for (c = 0; c < 4; c++)
            for (l = 0; l < 32; l++) {
                int lo = qs[32 * c + l] & 15, hi = qs[32 * c + l] >> 4;
                if (t == LLM_DTYPE_Q5_K) { lo |= (qh[l] >> (2 * c) & 1) << 4; hi |= (qh[l] >> (2 * c + 1) & 1) << 4; }
                r->q[64 * c + l] = (uint8_t)lo;
                r->q[64 * c + 32 + l] = (uint8_t)hi;
            }
    }
}

static llm_result llm__cv_kq_from_ggml(llm_dtype t, const void *blocks, int64_t rows, int64_t cols, void *dst) {
    size_t gb = t == LLM_DTYPE_Q4_K ? LLM__Q4K_BLOCK : t == LLM_DTYPE_Q5_K ? LLM__Q5K_BLOCK : LLM__Q6K_BLOCK;
    size_t rb = llm_dtype_row_bytes(t, cols), sbytes = LLM__QG * gb, ns;
    int64_t r;
    llm__cv_kq_row kr;
    if (!blocks || !dst || rows < 1 || cols % LLM__QKK || rb == 0 || rows % LLM__QG) return LLM_ERR_INVALID_ARGUMENT;
    ns = (size_t)cols / LLM__QKK;
    memset(&kr, 0, sizeof kr);
    for (r = 0; r < rows; r++) {
        size_t s;
        for (s = 0; s < ns; s++) {
            llm__cv_kq_from_ggml_block(t, (const uint8_t *)blocks + (size_t)r * rb + s * gb, &kr);
            llm__cv_kq_put_row(t, (uint8_t *)dst + (size_t)(r / LLM__QG) * LLM__QG * rb + s * sbytes, 8, (int)(r % LLM__QG), &kr);
        }
    }
    return LLM_OK;
}

LLMDEF llm_result llm_q4_k_from_ggml(const void *blocks, int64_t rows, int64_t cols, void *dst) {
    return llm__cv_kq_from_ggml(LLM_DTYPE_Q4_K, blocks, rows, cols, dst);
}
LLMDEF llm_result llm_q5_k_from_ggml(const void *blocks, int64_t rows, int64_t cols, void *dst) {
    return llm__cv_kq_from_ggml(LLM_DTYPE_Q5_K, blocks, rows, cols, dst);
}
LLMDEF llm_result llm_q6_k_from_ggml(const void *blocks, int64_t rows, int64_t cols, void *dst) {
    return llm__cv_kq_from_ggml(LLM_DTYPE_Q6_K, blocks, rows, cols, dst);
}

/* -- threads ---------------------------------------------------------------------------------
   The loops below are OpenMP worksharing loops without a parallel construct of their own: the
   threads of the caller's parallel region share them (the one thread when there is none).
   Each unit of work, 16 rows, is done the same way whichever thread takes it, so the bytes do
   not depend on the thread count. */
static int llm__cv_thread(void) {
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int llm__cv_max_threads(void) {
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* bf16 bits to f32 (their top half), in chunks of a fixed length: a loop the compiler
   vectorises. */
static void llm__cv_bf16_to_f32(const uint8_t *p, size_t n, float *f) {
    uint16_t h[1024];
    uint32_t u[1024];
    size_t i, j;
    for (i = 0; i + 1024 <= n; i += 1024) {
        memcpy(h, p + 2 * i, sizeof h);
        for (j = 0; j < 1024; j++) u[j] = (uint32_t)h[j] << 16;
        memcpy(f + i, u, sizeof u);
    }
    for (; i < n; i++) {
        memcpy(h, p + 2 * i, 2);
        f[i] = llm_bf16_to_f32(h[0]);
    }
}

/* Rows [r0, r0 + n) of a row-major matrix of a checkpoint's type dt (f32, f16, bf16) as f32:
   f32 rows where they are, the others converted into buf. */
static const float *llm__cv_rows_f32(llm_dtype dt, const void *src, int64_t cols, int64_t r0, int64_t n, float *buf) {
    size_t off = (size_t)r0 * (size_t)cols, cnt = (size_t)n * (size_t)cols, i;
    const uint8_t *p = (const uint8_t *)src + 2 * off;
    if (dt == LLM_DTYPE_F32) return (const float *)src + off;
    if (dt == LLM_DTYPE_BF16) { llm__cv_bf16_to_f32(p, cnt, buf); return buf; }
    for (i = 0; i < cnt; i++) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        buf[i] = llm_f16_to_f32(h);
    }
    return buf;
}

/* Whether type t fits a rows x cols matrix (llm_quantize's rules). */
static int llm__cv_shape_ok(llm_dtype t, int64_t rows, int64_t cols) {
    size_t rb = llm_dtype_row_bytes(t, cols), n;
    return rows >= 1 && cols >= 1 && rb != 0 && rows % llm_dtype_row_group(t) == 0 && llm__mul_ok((size_t)rows, (size_t)cols, &n) &&
           llm__mul_ok(rb, (size_t)rows, &n) && llm__mul_ok((size_t)cols, LLM__QG * 4, &n);
}

static int llm__cv_quantize_ok(llm_dtype t, const void *src, int64_t rows, int64_t cols, const void *dst) {
    return src && dst && llm__cv_shape_ok(t, rows, cols);
}

/* n rows (from a multiple of 16; fewer than a multiple of 16 only at the matrix's end) of a
   matrix of cols columns and type sdt (f32, f16 or bf16) as type t, 16 at a time: src points
   at the first row, dst at its place in t's layout. buf: 16 cols floats, when sdt is not f32. */
static void llm__cv_convert_rows(llm__cv_group_fn group, llm_dtype sdt, const void *src, llm_dtype t, int64_t n, int64_t cols, void *dst,
                                 int flags, float *buf) {
    size_t rb = llm_dtype_row_bytes(t, cols);
    int64_t g, r, c;
    for (g = 0; g < n; g += LLM__QG) {
        int64_t m = n - g < LLM__QG ? n - g : LLM__QG;
        const float *x = llm__cv_rows_f32(sdt, src, cols, g, m, buf);
        if (t == LLM_DTYPE_F32) {
            memcpy((float *)dst + (size_t)g * (size_t)cols, x, (size_t)m * (size_t)cols * 4);
        } else if (!llm__is_quant(t) && m == LLM__QG) {
            group(t, x, cols, (uint8_t *)dst + 2 * (size_t)g * (size_t)cols, flags);
        } else if (!llm__is_quant(t)) { /* the last group, m < 16 rows: column c of them together (llm__w16_index) */
            uint8_t *o = (uint8_t *)dst + 2 * (size_t)g * (size_t)cols;
            for (c = 0; c < cols; c++)
                for (r = 0; r < m; r++) {
                    float v = x[(size_t)r * (size_t)cols + (size_t)c];
                    llm__cv_put16(o + 2 * ((size_t)c * (size_t)m + (size_t)r), t == LLM_DTYPE_F16 ? llm_f32_to_f16(v) : llm_f32_to_bf16(v));
                }
        } else {
            group(t, x, cols, (uint8_t *)dst + (size_t)g * rb, flags);
        }
    }
}

/* llm_quantize's work, for the threads of the caller's parallel region: a rows x cols matrix
   src of type sdt (f32, f16 or bf16) as type t into dst (arguments llm__cv_quantize_ok takes),
   16 rows at a time. bufs: 16 cols floats for each thread, when sdt is not f32. */
static void llm__cv_quantize_team(llm__cv_group_fn group, llm_dtype sdt, const void *src, llm_dtype t, int64_t rows, int64_t cols, void *dst,
                                  int flags, float *bufs) {
    int64_t ng = (rows + LLM__QG - 1) / LLM__QG, g;
    size_t rb = llm_dtype_row_bytes(t, cols), sb = sdt == LLM_DTYPE_F32 ? 4 : 2;
    float *buf = bufs ? bufs + (size_t)llm__cv_thread() * LLM__QG * (size_t)cols : NULL;
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp for schedule(dynamic, 1)
#endif
    for (g = 0; g < ng; g++) {
        int64_t r0 = g * LLM__QG;
        llm__cv_convert_rows(group, sdt, (const char *)src + (size_t)r0 * (size_t)cols * sb, t, rows - r0 < LLM__QG ? rows - r0 : LLM__QG, cols,
                             (uint8_t *)dst + (size_t)r0 * rb, flags, buf);
    }
}

LLMDEF llm_result llm_quantize(llm_dtype t, const float *src, int64_t rows, int64_t cols, void *dst, int flags) {
    llm_kernels k = (llm_kernels)((unsigned)flags >> 8 & 0xff);
    llm__cv_group_fn group;
    if (!llm__cv_quantize_ok(t, src, rows, cols, dst) || (unsigned)k >= LLM_KERNELS_COUNT) return LLM_ERR_INVALID_ARGUMENT;
    if (!llm_kernels_supported(k)) return LLM_ERR_UNSUPPORTED;
    group = llm__cv_group_kernel(k);
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp parallel
#endif
    llm__cv_quantize_team(group, LLM_DTYPE_F32, src, t, rows, cols, dst, flags & 0xff, NULL);
    return LLM_OK;
}

/* The conversion's kernel set, found at its first use. */
static llm__cv_group_fn llm__cv_qgroup(llm__cv *cv) {
    if (!cv->qgroup) cv->qgroup = llm__cv_group_kernel(cv->desc->kernels);
    return cv->qgroup;
}

/* llm_quantize for a conversion: its flags and kernel set. */
static llm_result llm__cv_quantize(llm__cv *cv, llm_dtype t, const float *src, int64_t rows, int64_t cols, void *dst) {
    llm__cv_group_fn group = llm__cv_qgroup(cv);
    if (!llm__cv_quantize_ok(t, src, rows, cols, dst)) return LLM_ERR_INVALID_ARGUMENT;
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp parallel
#endif
    llm__cv_quantize_team(group, LLM_DTYPE_F32, src, t, rows, cols, dst, cv->desc->quantize_flags & 0xff, NULL);
    return LLM_OK;
}

#if defined(__clang__)
#pragma STDC FP_CONTRACT DEFAULT
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

/* ---- llm_convert: files ---- */
/* rename() that replaces an existing file on Windows too (where rename refuses to). */
static int llm__cv_replace_file(const char *from, const char *to) {
#if defined(_WIN32)
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING)) return 0;
    errno = EEXIST;
    return -1;
#else
    return rename(from, to);
#endif
}


/* Present, though perhaps unreadable: opening it then says why. */
static int llm__cv_file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL || errno != ENOENT;
}

/* A JSON file the converter reads: an object whose strings hold no U+0000 (they are used
   as C strings: a "model_type" of "llama\u0000evil" must not pass for "llama"). flags adds
   JSON_NUL_KEYS for tokenizer.json: InternLM2's vocabulary has a token "\u0000". */
static int llm__cv_read_json_object(llm__cv *cv, const char *path, unsigned flags, json_value **out) {
    char err[1024];
    if (!(*out = json_parse_file_ex(path, JSON_NO_NUL | flags, err, sizeof err))) return llm__cv_json_failed(cv, err);
    if ((*out)->type == JSON_OBJECT) return 0;
    llm__cv_fail(cv, "%s: not a JSON object (found %s)", path, json_type_name((*out)->type));
    json_free(*out);
    *out = NULL;
    return -1;
}


/* ---- llm_convert: tokenizer.json ---- */
typedef struct llm__cv_tok_data {
    int32_t n;                  /* tokens: the highest id + 1 */
    uint8_t *bytes;             /* every token's raw bytes, back to back */
    size_t n_bytes, cap_bytes;
    int32_t *offsets;           /* n + 1 */
    uint8_t *flags;
    int32_t *merges;            /* (left, right, result) per rank */
    size_t n_merges;
    int32_t unk_id, bpe_opts, byte_level, normalizer, n_steps, steps[LLM__MAX_STEPS];
    int32_t ms_prepend, ms_split, decoder, dec_byte_fallback, dec_strip;
    int32_t prefix[64], n_prefix, suffix[64], n_suffix;
    int32_t n_model, n_added;
    char *regexes;              /* the LLM_PRE_SPLIT steps' regexes, each ended by NUL */
    size_t n_regex_bytes;
    int32_t split_modes[LLM__MAX_STEPS], n_splits;
} llm__cv_tok_data;

/* The exact split regexes we scan by hand (llm.h, llm__regex_match). */
static const char *const llm__cv_tok_regex_gpt2 =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char *const llm__cv_tok_regex_llama3 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char *const llm__cv_tok_regex_qwen2 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/* ---- small helpers ---- */

/* Compact JSON text of v (cut at about 300 bytes), for messages that quote the input. */
static void llm__cv_tok_quote_rec(const json_value *v, char *buf, size_t cap, size_t *n) {
    size_t i;
#define LLM__CV_PUT(s) do { size_t l_ = strlen(s); if (*n + l_ < cap) { memcpy(buf + *n, s, l_); *n += l_; buf[*n] = 0; } } while (0)
    switch (v->type) {
    case JSON_NULL: LLM__CV_PUT("null"); break;
    case JSON_TRUE: LLM__CV_PUT("true"); break;
    case JSON_FALSE: LLM__CV_PUT("false"); break;
    case JSON_NUMBER: { char t[32]; snprintf(t, sizeof t, "%g", v->number); LLM__CV_PUT(t); break; }
    case JSON_STRING:
        LLM__CV_PUT("\"");
        for (i = 0; i < v->len && *n + 8 < cap; i++) {
            char t[8];
            unsigned char c = (unsigned char)v->str[i];
            if (c == '"' || c == '\\') { t[0] = '\\'; t[1] = (char)c; t[2] = 0; }
            else if (c < 0x20) snprintf(t, sizeof t, "\\u%04x", c);
            else { t[0] = (char)c; t[1] = 0; }
            LLM__CV_PUT(t);
        }
        LLM__CV_PUT("\"");
        break;
    default:
        LLM__CV_PUT(v->type == JSON_ARRAY ? "[" : "{");
        for (i = 0; i < v->len && *n + 8 < cap; i++) {
            if (i) LLM__CV_PUT(",");
            if (v->type == JSON_OBJECT) {
                json_value k;
                memset(&k, 0, sizeof k);
                k.type = JSON_STRING; k.str = v->items[i].key; k.len = v->items[i].key_len;
                llm__cv_tok_quote_rec(&k, buf, cap, n);
                LLM__CV_PUT(":");
            }
            llm__cv_tok_quote_rec(&v->items[i], buf, cap, n);
        }
        LLM__CV_PUT(v->type == JSON_ARRAY ? "]" : "}");
    }
#undef LLM__CV_PUT
}

static const char *llm__cv_tok_quote(llm__cv *cv, const json_value *v) {
    size_t n = 0;
    char *b = cv->quote[cv->quote_which ^= 1];
    b[0] = 0;
    if (!v) return "null";
    llm__cv_tok_quote_rec(v, b, sizeof cv->quote[0] - 4, &n);
    if (n >= sizeof cv->quote[0] - 12) strcpy(b + n, "...");
    return b;
}

static int llm__cv_tok_is_type(const json_value *v, const char *type) {
    const json_value *t = json_get(v, "type");
    return t && t->type == JSON_STRING && strcmp(t->str, type) == 0;
}

static int llm__cv_tok_str_is(const json_value *v, const char *s) {
    return v && v->type == JSON_STRING && v->len == strlen(s) && memcmp(v->str, s, v->len) == 0;
}

static int llm__cv_tok_bool(const json_value *obj, const char *key, int dflt) {
    const json_value *v = json_get(obj, key);
    if (!v || v->type == JSON_NULL) return dflt;
    return v->type == JSON_TRUE;
}

/* A string -> id map for the vocabulary (open addressing). */
typedef struct llm__cv_tok_map { const char **key; size_t *len; int32_t *id; size_t mask; } llm__cv_tok_map;

static int llm__cv_tok_map_init(llm__cv *cv, llm__cv_tok_map *m, size_t n) {
    size_t size = 16;
    while (size < 2 * n) size *= 2;
    m->mask = size - 1;
    m->key = (const char **)calloc(size, sizeof *m->key);
    m->len = (size_t *)calloc(size, sizeof *m->len);
    m->id = (int32_t *)calloc(size, sizeof *m->id);
    return m->key && m->len && m->id ? 0 : llm__cv_oom(cv);
}

static void llm__cv_tok_map_free(llm__cv_tok_map *m) { free((void *)m->key); free(m->len); free(m->id); }

static size_t llm__cv_tok_map_slot(const llm__cv_tok_map *m, const char *s, size_t n) {
    size_t h = llm__hash_bytes((const uint8_t *)s, n) & m->mask;
    while (m->key[h] && !(m->len[h] == n && memcmp(m->key[h], s, n) == 0)) h = (h + 1) & m->mask;
    return h;
}

static int32_t llm__cv_tok_map_get(const llm__cv_tok_map *m, const char *s, size_t n) {
    size_t h = llm__cv_tok_map_slot(m, s, n);
    return m->key[h] ? m->id[h] : -1;
}

/* A byte-level vocabulary string as raw bytes, as the ByteLevel decoder turns it back:
   every character through GPT-2's table, or the text as is when one is not in it (then
   *mapped is 0: BPE, which starts from the table's characters, cannot produce the token). */
static size_t llm__cv_tok_byte_level_raw(const char *s, size_t n, uint8_t *out, int *mapped) {
    size_t i, len, m = 0;
    uint32_t cp;
    *mapped = 1;
    for (i = 0; i < n; i += len) {
        int b;
        len = llm__utf8_char((const uint8_t *)s + i, n - i, &cp);
        if (!len || (b = llm__byte_level_byte(cp)) < 0) { memcpy(out, s, n); *mapped = 0; return n; }
        out[m++] = (uint8_t)b;
    }
    return m;
}

/* llm.h looks a byte-level token up by its bytes and keeps the lowest id when two share
   them. That must be the one BPE can produce. Entries outside the alphabet are left out of
   the lookup (LLM_TF_BYTE_LEVEL_TEXT), unless they are added tokens too, whose flag says
   something else: those must not come first. */
static int llm__cv_tok_check_duplicates(llm__cv *cv, const llm__cv_tok_data *td, char **text, const size_t *len, const uint8_t *unmapped) {
    llm__cv_tok_map seen;
    int32_t id;
    if (llm__cv_tok_map_init(cv, &seen, (size_t)td->n)) return -1;
    for (id = 0; id < td->n; id++) {
        size_t slot;
        if (!llm__tok_found_by_bytes(td->flags[id])) continue;
        slot = llm__cv_tok_map_slot(&seen, text[id] ? text[id] : "", len[id]);
        if (!seen.key[slot]) { seen.key[slot] = text[id] ? text[id] : ""; seen.len[slot] = len[id]; seen.id[slot] = id; continue; }
        if (unmapped[seen.id[slot]] && !unmapped[id]) {
            int32_t first = seen.id[slot];
            llm__cv_tok_map_free(&seen);
            return llm__cv_fail(cv, "tokenizer.json: tokens %d and %d stand for the same bytes and the first, an added token, is not in "
                        "the byte-level alphabet; not supported", first, id);
        }
    }
    llm__cv_tok_map_free(&seen);
    return 0;
}

/* ---- model ---- */

static int llm__cv_tok_read_vocab(llm__cv *cv, const json_value *model, llm__cv_tok_data *td, llm__cv_tok_map *map, const json_value **vocab_out) {
    const json_value *vocab = json_get(model, "vocab");
    size_t i;
    if (!vocab || vocab->type != JSON_OBJECT || vocab->len == 0) return llm__cv_fail(cv, "tokenizer.json: model.vocab is not an object of tokens");
    if (llm__cv_tok_map_init(cv, map, vocab->len)) return -1;
    td->n = 0;
    for (i = 0; i < vocab->len; i++) {
        const json_value *e = &vocab->items[i];
        size_t slot;
        if (!json_is_int(e) || e->number < 0 || e->number >= (1 << 24))
            return llm__cv_fail(cv, "tokenizer.json: vocab entry \"%s\" has id %s", e->key, llm__cv_tok_quote(cv, e));
        slot = llm__cv_tok_map_slot(map, e->key, e->key_len);
        if (map->key[slot]) return llm__cv_fail(cv, "tokenizer.json: vocab lists \"%s\" twice", e->key);
        map->key[slot] = e->key; map->len[slot] = e->key_len; map->id[slot] = (int32_t)e->number;
        if ((int32_t)e->number + 1 > td->n) td->n = (int32_t)e->number + 1;
    }
    td->n_model = (int32_t)vocab->len;
    *vocab_out = vocab;
    return 0;
}

static int llm__cv_tok_read_model(llm__cv *cv, const json_value *model, llm__cv_tok_data *td) {
    const json_value *v;
    if (!model || model->type != JSON_OBJECT) return llm__cv_fail(cv, "tokenizer.json: no 'model' object");
    if ((v = json_get(model, "type")) && !llm__cv_tok_str_is(v, "BPE"))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: model type %s is not supported (only BPE)", llm__cv_tok_quote(cv, v));
    if (!json_get(model, "merges")) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: the model has no merges (only BPE is supported)");
    if ((v = json_get(model, "dropout")) && v->type != JSON_NULL && !(v->type == JSON_NUMBER && v->number == 0))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: BPE dropout %s is not supported", llm__cv_tok_quote(cv, v));
    if ((v = json_get(model, "continuing_subword_prefix")) && v->type != JSON_NULL && !llm__cv_tok_str_is(v, ""))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: continuing_subword_prefix %s is not supported", llm__cv_tok_quote(cv, v));
    if ((v = json_get(model, "end_of_word_suffix")) && v->type != JSON_NULL && !llm__cv_tok_str_is(v, ""))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: end_of_word_suffix %s is not supported", llm__cv_tok_quote(cv, v));
    td->bpe_opts = (llm__cv_tok_bool(model, "byte_fallback", 0) ? LLM_BPE_BYTE_FALLBACK : 0) |
                   (llm__cv_tok_bool(model, "fuse_unk", 0) ? LLM_BPE_FUSE_UNK : 0) |
                   (llm__cv_tok_bool(model, "ignore_merges", 0) ? LLM_BPE_IGNORE_MERGES : 0);
    return 0;
}

/* Merges in rank order, as ids: "a b" strings or ["a", "b"] pairs; the merged token must be
   in the vocabulary (HF: MergeTokenOutOfVocabulary). */
static int llm__cv_tok_read_merges(llm__cv *cv, const json_value *model, const llm__cv_tok_map *map, llm__cv_tok_data *td) {
    const json_value *merges = json_get(model, "merges");
    size_t i;
    char *buf = NULL;
    size_t buf_cap = 0;
    if (!merges || merges->type != JSON_ARRAY) return llm__cv_fail(cv, "tokenizer.json: model.merges is not an array");
    td->merges = (int32_t *)malloc((merges->len ? merges->len : 1) * 3 * sizeof(int32_t));
    if (!td->merges) return llm__cv_oom(cv);
    for (i = 0; i < merges->len; i++) {
        const json_value *e = &merges->items[i];
        const char *a, *b;
        size_t la, lb;
        int32_t ia, ib, ic;
        if (e->type == JSON_STRING) {
            const char *sp = (const char *)memchr(e->str, ' ', e->len);
            if (!sp || memchr(sp + 1, ' ', e->len - (size_t)(sp + 1 - e->str))) {
                free(buf);
                return llm__cv_fail(cv, "tokenizer.json: merge %s is not two tokens separated by one space", llm__cv_tok_quote(cv, e));
            }
            a = e->str; la = (size_t)(sp - e->str); b = sp + 1; lb = e->len - la - 1;
        } else if (e->type == JSON_ARRAY && e->len == 2 && e->items[0].type == JSON_STRING && e->items[1].type == JSON_STRING) {
            a = e->items[0].str; la = e->items[0].len; b = e->items[1].str; lb = e->items[1].len;
        } else {
            free(buf);
            return llm__cv_fail(cv, "tokenizer.json: merge %s is neither \"a b\" nor [\"a\", \"b\"]", llm__cv_tok_quote(cv, e));
        }
        if (la + lb > buf_cap) { buf_cap = 2 * (la + lb) + 64; free(buf); if (!(buf = (char *)malloc(buf_cap))) return llm__cv_oom(cv); }
        memcpy(buf, a, la);
        memcpy(buf + la, b, lb);
        ia = llm__cv_tok_map_get(map, a, la);
        ib = llm__cv_tok_map_get(map, b, lb);
        ic = llm__cv_tok_map_get(map, buf, la + lb);
        if (ia < 0 || ib < 0 || ic < 0) { free(buf); return llm__cv_fail(cv, "tokenizer.json: merge %s: a token of it is not in the vocabulary", llm__cv_tok_quote(cv, e)); }
        td->merges[3 * i] = ia; td->merges[3 * i + 1] = ib; td->merges[3 * i + 2] = ic;
    }
    free(buf);
    td->n_merges = merges->len;
    return 0;
}

/* ---- normalizer, pre-tokenizer, decoder, post-processor ---- */

static int llm__cv_tok_read_normalizer(llm__cv *cv, const json_value *n, llm__cv_tok_data *td) {
    const json_value *list = n, *first, *second;
    size_t count;
    td->normalizer = LLM_NORM_NONE;
    if (!n || n->type == JSON_NULL) return 0;
    if (llm__cv_tok_is_type(n, "Sequence")) list = json_get(n, "normalizers");
    count = list == n ? 1 : list && list->type == JSON_ARRAY ? list->len : (size_t)-1;
    first = list == n ? n : count >= 1 && count != (size_t)-1 ? &list->items[0] : NULL;
    second = count == 2 ? &list->items[1] : NULL;
    if (count == 0) return 0;
    if (count == 1 && llm__cv_tok_is_type(first, "NFC")) { td->normalizer = LLM_NORM_NFC; return 0; }
#define LLM__CV_IS_REPLACE(v) (llm__cv_tok_is_type(v, "Replace") && llm__cv_tok_str_is(json_get(json_get(v, "pattern"), "String"), " ") && \
                           llm__cv_tok_str_is(json_get(v, "content"), "\xE2\x96\x81"))
    if (count == 1 && LLM__CV_IS_REPLACE(first)) { td->normalizer = LLM_NORM_SPM_REPLACE; return 0; }
    if (count == 2 && llm__cv_tok_is_type(first, "Prepend") && llm__cv_tok_str_is(json_get(first, "prepend"), "\xE2\x96\x81") &&
        LLM__CV_IS_REPLACE(second)) {
        td->normalizer = LLM_NORM_SPM;
        return 0;
    }
#undef LLM__CV_IS_REPLACE
    return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: normalizer %s is not supported (supported: NFC, Prepend(\"\xE2\x96\x81\") + "
                "Replace(\" \", \"\xE2\x96\x81\"))", llm__cv_tok_quote(cv, n));
}

/* prepend_scheme, with the older add_prefix_space spelling (metaspace.rs Deserialize). */
static int llm__cv_tok_prepend_scheme(llm__cv *cv, const json_value *v, int32_t *scheme) {
    const json_value *ps = json_get(v, "prepend_scheme"), *aps = json_get(v, "add_prefix_space");
    *scheme = 2;
    if (ps && ps->type != JSON_NULL) {
        if (llm__cv_tok_str_is(ps, "first")) *scheme = 1;
        else if (llm__cv_tok_str_is(ps, "never")) *scheme = 0;
        else if (!llm__cv_tok_str_is(ps, "always")) return llm__cv_fail(cv, "tokenizer.json: Metaspace prepend_scheme %s is not known", llm__cv_tok_quote(cv, ps));
    }
    if (aps && aps->type == JSON_FALSE) {
        if (*scheme != 0 && ps && ps->type != JSON_NULL) return llm__cv_fail(cv, "tokenizer.json: Metaspace add_prefix_space does not match prepend_scheme");
        *scheme = 0;
    }
    if (!llm__cv_tok_str_is(json_get(v, "replacement"), "\xE2\x96\x81"))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: Metaspace replacement %s is not supported (only \"\xE2\x96\x81\")", llm__cv_tok_quote(cv, json_get(v, "replacement")));
    return 0;
}

static int llm__cv_tok_add_step(llm__cv *cv, llm__cv_tok_data *td, int32_t step, const json_value *what) {
    if (td->byte_level) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: pre-tokenizer %s after ByteLevel is not supported", llm__cv_tok_quote(cv, what));
    if (td->n_steps == LLM__MAX_STEPS) return llm__cv_fail(cv, "tokenizer.json: too many pre-tokenizer steps");
    if (td->n_steps && (step == LLM_PRE_METASPACE || td->steps[0] == LLM_PRE_METASPACE))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: Metaspace combined with other pre-tokenizers is not supported (%s)", llm__cv_tok_quote(cv, what));
    td->steps[td->n_steps++] = step;
    return 0;
}

/* A String pattern as a regex that matches it literally (HF escapes it the same way). */
static char *llm__cv_tok_escape(const json_value *str, size_t *len) {
    char *out = (char *)malloc(2 * str->len + 1);
    size_t i, n = 0;
    if (!out) return NULL;
    for (i = 0; i < str->len; i++) {
        unsigned char c = (unsigned char)str->str[i];
        if (c < 0x80 && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9')) out[n++] = '\\';
        out[n++] = (char)c;
    }
    out[n] = 0;
    *len = n;
    return out;
}

/* Split: the three regexes llm.h scans by hand (Isolated) become their own step; any other
   regex, or a String, is stored with its behaviour for llm.h's regex matcher, which must
   compile it here or the tokenizer is refused with what it cannot match. */
/* A split step of regex text (len bytes, malloc'ed; freed here) in behaviour mode: the hand
   scanner where the regex is GPT-2's, Llama 3's or Qwen2's in Isolated mode, else llm.h's
   matcher, refused, naming the construct, where it cannot run the regex exactly. what is the
   tokenizer.json step that messages quote (NULL: none). */
static int llm__cv_tok_add_split(llm__cv *cv, llm__cv_tok_data *td, char *text, size_t len, int32_t mode, const json_value *what) {
    int32_t step = 0;
    char why[128], *grown;
    llm__re compiled;
    if (mode == LLM_SPLIT_ISOLATED && strlen(text) == len)
        step = !strcmp(text, llm__cv_tok_regex_gpt2) ? LLM_PRE_GPT2 : !strcmp(text, llm__cv_tok_regex_llama3) ? LLM_PRE_LLAMA3 :
               !strcmp(text, llm__cv_tok_regex_qwen2) ? LLM_PRE_QWEN2 : 0;
    if (step) { free(text); return llm__cv_tok_add_step(cv, td, step, what); }
    if (strlen(text) != len) strcpy(why, "a NUL character");
    else if (llm__re_compile(NULL, &compiled, text, len, why, sizeof why) == 0) why[0] = 0;
    llm__re_free(NULL, &compiled);
    if (why[0]) {
        free(text);
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: split pattern %s is not supported: llm.h's regex matcher does not take %s",
                               llm__cv_tok_quote(cv, json_get(what, "pattern")), why);
    }
    if (!(grown = (char *)realloc(td->regexes, td->n_regex_bytes + len + 1))) { free(text); return llm__cv_oom(cv); }
    td->regexes = grown;
    memcpy(td->regexes + td->n_regex_bytes, text, len + 1);
    td->n_regex_bytes += len + 1;
    free(text);
    if (llm__cv_tok_add_step(cv, td, LLM_PRE_SPLIT, what)) return -1;
    td->split_modes[td->n_splits++] = mode;
    return 0;
}

static int llm__cv_tok_read_split(llm__cv *cv, const json_value *p, llm__cv_tok_data *td) {
    static const char *const modes[] = { "Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous" };
    const json_value *pat = json_get(p, "pattern"), *re = json_get(pat, "Regex"), *str = json_get(pat, "String");
    int32_t mode = -1, k;
    char *text;
    size_t len;
    for (k = 0; k < 5; k++) if (llm__cv_tok_str_is(json_get(p, "behavior"), modes[k])) mode = k;
    if (mode < 0) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: Split behavior %s is not known", llm__cv_tok_quote(cv, json_get(p, "behavior")));
    if (llm__cv_tok_bool(p, "invert", 0)) mode |= LLM_SPLIT_INVERT;
    if (re && re->type == JSON_STRING) { text = llm__cv_strdup(re->str); len = re->len; }
    else if (str && str->type == JSON_STRING && str->len) text = llm__cv_tok_escape(str, &len);
    else return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: split pattern %s is not supported (a Regex or a non-empty String)", llm__cv_tok_quote(cv, pat));
    if (!text) return llm__cv_oom(cv);
    return llm__cv_tok_add_split(cv, td, text, len, mode, p);
}

static int llm__cv_tok_read_pre_tokenizer(llm__cv *cv, const json_value *p, llm__cv_tok_data *td) {
    size_t i;
    if (!p || p->type == JSON_NULL) return 0;
    if (llm__cv_tok_is_type(p, "Sequence")) {
        const json_value *list = json_get(p, "pretokenizers");
        if (!list || list->type != JSON_ARRAY) return llm__cv_fail(cv, "tokenizer.json: pre_tokenizer %s has no 'pretokenizers' list", llm__cv_tok_quote(cv, p));
        for (i = 0; i < list->len; i++)
            if (llm__cv_tok_read_pre_tokenizer(cv, &list->items[i], td)) return -1;
        return 0;
    }
    if (llm__cv_tok_is_type(p, "Metaspace")) {
        if (llm__cv_tok_add_step(cv, td, LLM_PRE_METASPACE, p) || llm__cv_tok_prepend_scheme(cv, p, &td->ms_prepend)) return -1;
        td->ms_split = llm__cv_tok_bool(p, "split", 1);
        return 0;
    }
    if (llm__cv_tok_is_type(p, "Digits"))
        return llm__cv_tok_add_step(cv, td, llm__cv_tok_bool(p, "individual_digits", 0) ? LLM_PRE_DIGITS : LLM_PRE_DIGIT_RUNS, p);
    if (llm__cv_tok_is_type(p, "Split")) return llm__cv_tok_read_split(cv, p, td);
    if (llm__cv_tok_is_type(p, "ByteLevel")) {
        if (llm__cv_tok_bool(p, "add_prefix_space", 1) && llm__cv_tok_add_step(cv, td, LLM_PRE_PREFIX_SPACE, p)) return -1;
        if (llm__cv_tok_bool(p, "use_regex", 1) && llm__cv_tok_add_step(cv, td, LLM_PRE_GPT2, p)) return -1;
        td->byte_level = 1;
        return 0;
    }
    return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: pre_tokenizer %s is not supported", llm__cv_tok_quote(cv, p));
}

static int llm__cv_tok_read_decoder(llm__cv *cv, const json_value *d, llm__cv_tok_data *td) {
    const json_value *list;
    size_t i = 0;
    if (!d || d->type == JSON_NULL) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: no decoder (HF would join tokens with spaces); not supported");
    if (llm__cv_tok_is_type(d, "ByteLevel")) { td->decoder = LLM_DEC_BYTE_LEVEL; return 0; }
    if (llm__cv_tok_is_type(d, "Metaspace")) {
        int32_t scheme;
        if (llm__cv_tok_prepend_scheme(cv, d, &scheme)) return -1;
        td->decoder = scheme ? LLM_DEC_METASPACE : LLM_DEC_SENTENCEPIECE; /* "never" only replaces */
        return 0;
    }
    list = llm__cv_tok_is_type(d, "Sequence") ? json_get(d, "decoders") : NULL;
    if (list && list->type == JSON_ARRAY && list->len == 1 && llm__cv_tok_is_type(&list->items[0], "ByteLevel")) { td->decoder = LLM_DEC_BYTE_LEVEL; return 0; }
    if (!list || list->type != JSON_ARRAY || list->len == 0 || !llm__cv_tok_is_type(&list->items[0], "Replace") ||
        !llm__cv_tok_str_is(json_get(json_get(&list->items[0], "pattern"), "String"), "\xE2\x96\x81") ||
        !llm__cv_tok_str_is(json_get(&list->items[0], "content"), " "))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: decoder %s is not supported", llm__cv_tok_quote(cv, d));
    td->decoder = LLM_DEC_SENTENCEPIECE;
    i = 1;
    if (i < list->len && llm__cv_tok_is_type(&list->items[i], "ByteFallback")) { td->dec_byte_fallback = 1; i++; }
    if (i < list->len && llm__cv_tok_is_type(&list->items[i], "Fuse")) {
        const json_value *strip;
        i++;
        if (i < list->len && llm__cv_tok_is_type(strip = &list->items[i], "Strip")) {
            const json_value *start = json_get(strip, "start"), *stop = json_get(strip, "stop");
            if (!llm__cv_tok_str_is(json_get(strip, "content"), " ") || !json_is_int(start) || start->number < 0 || start->number > 1000 ||
                (stop && !(json_is_int(stop) && stop->number == 0)))
                return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: decoder step %s is not supported (only Strip(\" \", n, 0))", llm__cv_tok_quote(cv, strip));
            td->dec_strip = (int32_t)start->number;
            i++;
        }
    }
    if (i != list->len) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: decoder %s is not supported (step %s)", llm__cv_tok_quote(cv, d), llm__cv_tok_quote(cv, &list->items[i]));
    return 0;
}

/* TemplateProcessing's "single" template: the special tokens before and after $A. */
static int llm__cv_tok_read_template(llm__cv *cv, const json_value *p, llm__cv_tok_data *td) {
    const json_value *single = json_get(p, "single"), *specials = json_get(p, "special_tokens");
    size_t i, k;
    int seen_a = 0;
    if (!single || single->type != JSON_ARRAY) return llm__cv_fail(cv, "tokenizer.json: TemplateProcessing without a 'single' template");
    for (i = 0; i < single->len; i++) {
        const json_value *it = &single->items[i], *sp = json_get(it, "SpecialToken"), *seq = json_get(it, "Sequence"), *ids;
        if (seq) {
            if (!llm__cv_tok_str_is(json_get(seq, "id"), "A") || seen_a)
                return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: TemplateProcessing single %s is not supported (one $A only)", llm__cv_tok_quote(cv, single));
            seen_a = 1;
            continue;
        }
        sp = sp ? json_get(sp, "id") : NULL;
        ids = sp && sp->type == JSON_STRING ? json_get(json_get(specials, sp->str), "ids") : NULL;
        if (!ids || ids->type != JSON_ARRAY)
            return llm__cv_fail(cv, "tokenizer.json: TemplateProcessing item %s has no special_tokens entry", llm__cv_tok_quote(cv, it));
        for (k = 0; k < ids->len; k++) {
            int32_t *list = seen_a ? td->suffix : td->prefix, *count = seen_a ? &td->n_suffix : &td->n_prefix;
            if (!json_is_int(&ids->items[k]) || ids->items[k].number < 0 || *count == 64)
                return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: TemplateProcessing ids %s are not supported", llm__cv_tok_quote(cv, ids));
            list[(*count)++] = (int32_t)ids->items[k].number;
        }
    }
    if (!seen_a) return llm__cv_fail(cv, "tokenizer.json: TemplateProcessing single %s has no $A", llm__cv_tok_quote(cv, single));
    return 0;
}

static int llm__cv_tok_read_post_processor(llm__cv *cv, const json_value *p, llm__cv_tok_data *td) {
    size_t i;
    if (!p || p->type == JSON_NULL || llm__cv_tok_is_type(p, "ByteLevel")) return 0; /* ByteLevel only trims offsets */
    if (llm__cv_tok_is_type(p, "TemplateProcessing")) {
        if (td->n_prefix || td->n_suffix) return llm__cv_fail(cv, "tokenizer.json: more than one TemplateProcessing");
        return llm__cv_tok_read_template(cv, p, td);
    }
    if (llm__cv_tok_is_type(p, "Sequence")) {
        const json_value *list = json_get(p, "processors");
        if (!list || list->type != JSON_ARRAY) return llm__cv_fail(cv, "tokenizer.json: post_processor %s has no 'processors'", llm__cv_tok_quote(cv, p));
        for (i = 0; i < list->len; i++)
            if (llm__cv_tok_read_post_processor(cv, &list->items[i], td)) return -1;
        return 0;
    }
    return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "tokenizer.json: post_processor %s is not supported", llm__cv_tok_quote(cv, p));
}

/* ---- the token table ---- */

static int llm__cv_tok_set_text(llm__cv *cv, int32_t id, const void *s, size_t n, char **text, size_t *len) {
    free(text[id]);
    if (!(text[id] = (char *)malloc(n ? n : 1))) return llm__cv_oom(cv);
    memcpy(text[id], s, n);
    len[id] = n;
    return 0;
}

/* Added tokens, with the ids HF gives them (AddedVocabulary::add_tokens): the id of the same
   text if it is already known (an earlier added token, else the vocabulary), else the next
   id after the vocabulary and earlier additions. */
static int llm__cv_tok_read_added(llm__cv *cv, const json_value *added, const llm__cv_tok_map *vocab, llm__cv_tok_data *td, char **text, size_t *len) {
    llm__cv_tok_map seen; /* content -> id of the added tokens so far */
    size_t i;
    int32_t max_added = -1;
    int rc = -1;
    if (!added || added->type == JSON_NULL) return 0;
    if (added->type != JSON_ARRAY) return llm__cv_fail(cv, "tokenizer.json: 'added_tokens' is not an array");
    if (llm__cv_tok_map_init(cv, &seen, added->len)) { llm__cv_tok_map_free(&seen); return -1; }
    for (i = 0; i < added->len; i++) {
        const json_value *a = &added->items[i], *content = json_get(a, "content"), *jid = json_get(a, "id");
        int32_t id;
        size_t slot;
        unsigned f = LLM_TF_ADDED;
        if (!content || content->type != JSON_STRING) { llm__cv_fail(cv, "tokenizer.json: added token %s has no content", llm__cv_tok_quote(cv, a)); goto done; }
        if (content->len == 0) continue;
        slot = llm__cv_tok_map_slot(&seen, content->str, content->len);
        id = seen.key[slot] ? seen.id[slot] : llm__cv_tok_map_get(vocab, content->str, content->len);
        if (id < 0) id = max_added < 0 ? td->n_model : (max_added >= td->n_model ? max_added + 1 : td->n_model);
        if (id >= (1 << 24)) { llm__cv_fail(cv, "tokenizer.json: too many added tokens"); goto done; }
        if (!seen.key[slot]) { seen.key[slot] = content->str; seen.len[slot] = content->len; seen.id[slot] = id; }
        if (!json_is_int(jid) || (int32_t)jid->number != id)
            llm__cv_log(cv, "note: added token %s gets id %d as in HF tokenizers, not %s", llm__cv_tok_quote(cv, content), id, llm__cv_tok_quote(cv, jid));
        if (id >= td->n) {
            int32_t k;
            for (k = td->n; k <= id; k++) { td->flags[k] = 0; text[k] = NULL; len[k] = 0; }
            td->n = id + 1;
        }
        if (id > max_added) max_added = id;
        if (td->byte_level && (td->flags[id] & LLM_TF_MODEL) && (len[id] != content->len || memcmp(text[id], content->str, len[id]) != 0))
            f |= LLM_TF_BYTE_LEVEL_TEXT; /* keeps the vocabulary's bytes; its text is their byte-level spelling */
        else if (llm__cv_tok_set_text(cv, id, content->str, content->len, text, len))
            goto done;
        if (llm__cv_tok_bool(a, "special", 0)) f |= LLM_TF_SPECIAL;
        if (llm__cv_tok_bool(a, "lstrip", 0)) f |= LLM_TF_LSTRIP;
        if (llm__cv_tok_bool(a, "rstrip", 0)) f |= LLM_TF_RSTRIP;
        if (llm__cv_tok_bool(a, "single_word", 0)) f |= LLM_TF_SINGLE_WORD;
        if (llm__cv_tok_bool(a, "normalized", !(f & LLM_TF_SPECIAL))) f |= LLM_TF_NORMALIZED;
        /* special-ness belongs to the text (special_tokens_set): once special, always */
        td->flags[id] = (uint8_t)((td->flags[id] & (LLM_TF_MODEL | LLM_TF_SPECIAL | LLM_TF_BYTE_LEVEL_TEXT)) | f);
        td->n_added++;
    }
    rc = 0;
done:
    llm__cv_tok_map_free(&seen);
    return rc;
}

static void llm__cv_tok_data_free(llm__cv_tok_data *td) {
    free(td->bytes); free(td->offsets); free(td->flags); free(td->merges); free(td->regexes);
    memset(td, 0, sizeof *td);
}

/* Reads DIR/tokenizer.json into td. Returns 1 when there is none (a warning is printed),
   0 on success, -1 with the message set. */
static int llm__cv_tok_read(llm__cv *cv, const char *dir, llm__cv_tok_data *td) {
    char path[4096], err[512];
    json_value *j, *cfg = NULL;
    const json_value *model, *vocab = NULL, *v;
    llm__cv_tok_map map;
    char **text = NULL;
    uint8_t *unmapped = NULL;
    size_t *len = NULL, i, cap;
    int rc = -1;
    memset(td, 0, sizeof *td);
    memset(&map, 0, sizeof map);
    td->unk_id = -1;
    llm__cv_path_join(path, sizeof path, dir, "tokenizer.json");
    if (!llm__cv_file_exists(path)) {
        llm__cv_log(cv, "warning: %s is missing; the model file gets no tokenizer", path);
        return 1;
    }
    if (llm__cv_read_json_object(cv, path, JSON_NUL_KEYS, &j)) return -1;
    model = json_get(j, "model");
    if (llm__cv_tok_read_model(cv, model, td) || llm__cv_tok_read_normalizer(cv, json_get(j, "normalizer"), td) ||
        llm__cv_tok_read_pre_tokenizer(cv, json_get(j, "pre_tokenizer"), td) || llm__cv_tok_read_decoder(cv, json_get(j, "decoder"), td) ||
        llm__cv_tok_read_vocab(cv, model, td, &map, &vocab))
        goto done;
    if (td->byte_level != (td->decoder == LLM_DEC_BYTE_LEVEL)) {
        llm__cv_fail(cv, "tokenizer.json: a ByteLevel pre-tokenizer needs the ByteLevel decoder and the other way round");
        goto done;
    }
    if ((v = json_get(j, "truncation")) && v->type != JSON_NULL) llm__cv_log(cv, "note: tokenizer.json truncation is ignored");
    if ((v = json_get(j, "padding")) && v->type != JSON_NULL) llm__cv_log(cv, "note: tokenizer.json padding is ignored");
    /* the token table, with room for every added token */
    v = json_get(j, "added_tokens");
    cap = (size_t)td->n + (v && v->type == JSON_ARRAY ? v->len : 0) + (size_t)td->n_model + 1;
    text = (char **)calloc(cap, sizeof *text);
    len = (size_t *)calloc(cap, sizeof *len);
    td->flags = (uint8_t *)calloc(cap, 1);
    unmapped = (uint8_t *)calloc(cap, 1);
    if (!text || !len || !td->flags || !unmapped) { llm__cv_oom(cv); goto done; }
    for (i = 0; i < vocab->len; i++) {
        const json_value *e = &vocab->items[i];
        int32_t id = (int32_t)e->number;
        uint8_t *raw = (uint8_t *)malloc(e->key_len + 1);
        size_t n = e->key_len;
        if (!raw) { llm__cv_oom(cv); goto done; }
        if (text[id]) { free(raw); llm__cv_fail(cv, "tokenizer.json: two vocabulary entries have id %d", id); goto done; }
        if (td->byte_level) {
            int mapped;
            n = llm__cv_tok_byte_level_raw(e->key, e->key_len, raw, &mapped);
            unmapped[id] = (uint8_t)!mapped;
        } else {
            memcpy(raw, e->key, n);
        }
        text[id] = (char *)raw;
        len[id] = n;
        td->flags[id] = LLM_TF_MODEL;
    }
    if (llm__cv_tok_read_added(cv, v, &map, td, text, len) || llm__cv_tok_read_merges(cv, model, &map, td) ||
        llm__cv_tok_read_post_processor(cv, json_get(j, "post_processor"), td))
        goto done;
    if ((v = json_get(model, "unk_token")) && v->type == JSON_STRING) {
        td->unk_id = llm__cv_tok_map_get(&map, v->str, v->len);
        if (td->unk_id < 0) { llm__cv_fail(cv, "tokenizer.json: unk_token %s is not in the vocabulary", llm__cv_tok_quote(cv, v)); goto done; }
    }
    for (i = 0; i < (size_t)td->n_prefix; i++) if (td->prefix[i] >= td->n || !td->flags[td->prefix[i]]) { llm__cv_fail(cv, "tokenizer.json: template id %d has no token", td->prefix[i]); goto done; }
    for (i = 0; i < (size_t)td->n_suffix; i++) if (td->suffix[i] >= td->n || !td->flags[td->suffix[i]]) { llm__cv_fail(cv, "tokenizer.json: template id %d has no token", td->suffix[i]); goto done; }
    if (td->byte_level) {
        for (i = 0; i < (size_t)td->n; i++) /* never produced by BPE: out of llm.h's lookup by bytes */
            if (unmapped[i] && !(td->flags[i] & LLM_TF_ADDED)) td->flags[i] |= LLM_TF_BYTE_LEVEL_TEXT;
        if (llm__cv_tok_check_duplicates(cv, td, text, len, unmapped)) goto done;
    }
    td->offsets = (int32_t *)malloc(((size_t)td->n + 1) * sizeof(int32_t));
    for (i = 0, td->n_bytes = 0; i < (size_t)td->n; i++) td->n_bytes += len[i];
    td->bytes = (uint8_t *)malloc(td->n_bytes ? td->n_bytes : 1);
    if (!td->offsets || !td->bytes || td->n_bytes > 0x7FFFFFFF) { llm__cv_oom(cv); goto done; }
    for (i = 0, td->n_bytes = 0; i < (size_t)td->n; i++) {
        td->offsets[i] = (int32_t)td->n_bytes;
        if (len[i]) memcpy(td->bytes + td->n_bytes, text[i], len[i]);
        td->n_bytes += len[i];
    }
    td->offsets[td->n] = (int32_t)td->n_bytes;
    /* tokenizer_config.json only informs: the ids come from tokenizer.json, as in tokenizers */
    llm__cv_path_join(path, sizeof path, dir, "tokenizer_config.json");
    if (llm__cv_file_exists(path) && (cfg = json_parse_file_ex(path, JSON_NO_NUL, err, sizeof err)) != NULL) {
        const json_value *abos = json_get(cfg, "add_bos_token"), *aeos = json_get(cfg, "add_eos_token");
        if (abos && (abos->type == JSON_TRUE) != (td->n_prefix > 0))
            llm__cv_log(cv, "note: tokenizer_config.json add_bos_token is %s but the post-processor adds %d ids "
                            "before the text; following the post-processor", llm__cv_tok_quote(cv, abos), td->n_prefix);
        if (aeos && (aeos->type == JSON_TRUE) != (td->n_suffix > 0))
            llm__cv_log(cv, "note: tokenizer_config.json add_eos_token is %s but the post-processor adds %d ids "
                            "after the text; following the post-processor", llm__cv_tok_quote(cv, aeos), td->n_suffix);
    }
    rc = 0;
done:
    if (text) for (i = 0; i < cap; i++) free(text[i]);
    free(text);
    free(len);
    free(unmapped);
    llm__cv_tok_map_free(&map);
    json_free(cfg);
    json_free(j);
    if (rc) llm__cv_tok_data_free(td);
    return rc;
}

/* Every token needs a row of the embedding matrix: config.json's vocab_size may exceed the
   tokenizer's ids (matrices padded to a round size), never fall short of them. */
static int llm__cv_tok_check_vocab_size(llm__cv *cv, const llm__cv_tok_data *td, int32_t n_vocab) {
    int32_t id;
    for (id = n_vocab < 0 ? 0 : n_vocab; id < td->n; id++) {
        json_value s;
        if (!td->flags[id]) continue; /* an unused id in a gap */
        memset(&s, 0, sizeof s);
        s.type = JSON_STRING;
        s.str = (char *)td->bytes + td->offsets[id];
        s.len = (size_t)(td->offsets[id + 1] - td->offsets[id]);
        return llm__cv_fail(cv, "tokenizer.json: token %s has id %d, but config.json's vocab_size is %d (ids 0 to %d)", llm__cv_tok_quote(cv, &s), id,
                    n_vocab, n_vocab - 1);
    }
    return 0;
}

static int llm__cv_tok_write(llm__cv *cv, llm_builder *b, const llm__cv_tok_data *td) {
    int r = 0;
    r |= llm_builder_set_blob(b, LLM_KEY_TOK_TOKENS, td->bytes, td->n_bytes);
    r |= llm_builder_set_i32_array(b, LLM_KEY_TOK_OFFSETS, td->offsets, (size_t)td->n + 1);
    r |= llm_builder_set_blob(b, LLM_KEY_TOK_FLAGS, td->flags, (size_t)td->n);
    r |= llm_builder_set_i32_array(b, LLM_KEY_TOK_MERGES, td->merges, 3 * td->n_merges);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_UNK_ID, td->unk_id);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_BPE_OPTIONS, td->bpe_opts);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_BYTE_LEVEL, td->byte_level);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_NORMALIZER, td->normalizer);
    r |= llm_builder_set_i32_array(b, LLM_KEY_TOK_PRE, td->steps, (size_t)td->n_steps);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_MS_PREPEND, td->ms_prepend);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_MS_SPLIT, td->ms_split);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_DECODER, td->decoder);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_DEC_FALLBACK, td->dec_byte_fallback);
    r |= llm_builder_set_i32(b, LLM_KEY_TOK_DEC_STRIP, td->dec_strip);
    r |= llm_builder_set_i32_array(b, LLM_KEY_TOK_PREFIX_IDS, td->prefix, (size_t)td->n_prefix);
    r |= llm_builder_set_i32_array(b, LLM_KEY_TOK_SUFFIX_IDS, td->suffix, (size_t)td->n_suffix);
    if (td->n_splits) { /* only then, so that files without a regex step stay as they were */
        r |= llm_builder_set_blob(b, LLM_KEY_TOK_SPLIT_REGEXES, td->regexes, td->n_regex_bytes);
        r |= llm_builder_set_i32_array(b, LLM_KEY_TOK_SPLIT_MODES, td->split_modes, (size_t)td->n_splits);
    }
    return r ? llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "cannot build the tokenizer metadata (out of memory)") : 0;
}

static void llm__cv_tok_describe(llm__cv *cv, const llm__cv_tok_data *td) {
    static const char *const norms[] = { "none", "NFC", "Prepend+Replace", "Replace" };
    static const char *const steps[] = { "", "Metaspace", "Digits", "Digits(runs)", "GPT-2 regex", "Llama 3 regex",
                                         "Qwen2 regex", "prefix space", "Split regex" };
    char pre[256];
    size_t n = 0;
    int i;
    pre[0] = 0;
    for (i = 0; i < td->n_steps && n < sizeof pre; i++)
        n += (size_t)snprintf(pre + n, sizeof pre - n, "%s%s", i ? " + " : " ", steps[td->steps[i]]);
    llm__cv_log(cv, "tokenizer: BPE, %d tokens (%d in the vocabulary, %d added), %lu merges, %s, normalizer %s, pre-tokenizer%s, "
                "adds %d id(s) before and %d after the text", td->n, td->n_model, td->n_added, (unsigned long)td->n_merges,
                td->byte_level ? "byte-level" : "SentencePiece-style", norms[td->normalizer], td->n_steps ? pre : " none",
                td->n_prefix, td->n_suffix);
}

/* ---- llm_convert: chat template ---- */
typedef struct llm__cv_chat_rule {
    const char *variant, *family;
    const char *all[4];   /* every one must occur */
    const char *none[4];  /* none may occur */
} llm__cv_chat_rule;

/* First match wins; later rules may rely on earlier ones having failed. */
static const llm__cv_chat_rule llm__cv_chat_rules[] = {
    { "llama3.2", "llama3", { "<|start_header_id|>", "Cutting Knowledge Date", "strftime_now", "date_string" }, { 0 } },
    { "llama3.1", "llama3", { "<|start_header_id|>", "Cutting Knowledge Date", "set date_string = \"" }, { "strftime_now" } },
    { "llama3", "llama3", { "<|start_header_id|>", "<|eot_id|>", "bos_token + content", "add_generation_prompt" }, { "Cutting Knowledge", "tools" } },
    { "llama3-base", "llama3", { "<|start_header_id|>", "<|eot_id|>", "bos_token + content" }, { "add_generation_prompt", "Cutting Knowledge", "tools" } },
    { "qwen3", "chatml", { "<|im_start|>", "<think>", "last_query_index", "enable_thinking" }, { 0 } },
    { "qwen2.5", "chatml", { "<|im_start|>", "<tool_response>", "messages[0]['role'] == 'system'" }, { "<think>" } },
    { "smollm2", "chatml", { "<|im_start|>", "loop.first and messages[0]['role'] != 'system'" }, { "tools", "<think>" } },
    { "chatml", "chatml", { "'<|im_start|>' + message['role'] + '", "message['content'] + '<|im_end|>'", "add_generation_prompt" },
      { "tools", "<think>", "messages[0]", "loop.first" } },
    { "gemma2", "gemma", { "<start_of_turn>", "System role not supported", "'model'" }, { 0 } },
    { "gemma3", "gemma", { "<start_of_turn>", "first_user_prefix", "\"model\"" }, { 0 } },
    { "llama2", "llama2", { "[INST]", "<<SYS>>", "bos_token + '[INST] '", "content.strip()" }, { 0 } },
    { "mistral-v3", "mistral", { "[AVAILABLE_TOOLS]", "\"[INST] \" + system_message", "loop.last and system_message is defined" }, { "<<SYS>>" } },
    { "mistral-v1", "mistral", { "' [INST] ' + system_message", "loop.first and system_message is defined" }, { "<<SYS>>", "[AVAILABLE_TOOLS]" } },
    { "mistral-v0.1-legacy", "mistral", { "'[INST] ' + message['content'] + ' [/INST]'", "eos_token + ' '", "Only user and assistant roles are supported!" }, { "system_message" } },
    { "mistral-v0.2-legacy", "mistral", { "'[INST] ' + message['content'] + ' [/INST]'", "message['content'] + eos_token", "Only user and assistant roles are supported!" }, { "system_message", "eos_token + ' '" } },
    { "zephyr", "zephyr", { "'<|user|>", "'<|assistant|>'", "eos_token", "loop.last and add_generation_prompt" }, { 0 } },
};

typedef struct llm__cv_chat_info {
    const char *variant, *family;
    char *default_system;  /* chatml templates that add a system turn (smollm2, qwen2.5) */
    char *date;            /* llama3.1's fixed date_string */
} llm__cv_chat_info;

/* Text from p up to the delimiter, with the Jinja string escapes \n \t \\ \' \" decoded. */
static char *llm__cv_chat_literal(const char *p, const char *delim) {
    const char *end = strstr(p, delim);
    char *s, *o;
    if (!end || !(s = o = (char *)malloc((size_t)(end - p) + 1))) return NULL;
    for (; p < end; p++) {
        if (*p == '\\' && p + 1 < end) {
            p++;
            *o++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return s;
}

/* The default system text: a literal "<|im_start|>system\n..." that is not followed by a
   quote (which would mean the text comes from the messages). */
static char *llm__cv_chat_default_system(const char *t) {
    const char *p = t;
    while ((p = strstr(p, "<|im_start|>system")) != NULL) {
        p += strlen("<|im_start|>system");
        if (*p == '\n') p++;
        else if (p[0] == '\\' && p[1] == 'n') p += 2;
        else continue;
        if (*p != '\'' && *p != '"') return llm__cv_chat_literal(p, "<|im_end|>");
    }
    return NULL;
}

/* Returns 0 and fills ci when a rule matches; -1 leaves family raw. */
static int llm__cv_chat_recognise(const char *t, llm__cv_chat_info *ci) {
    size_t r, k;
    memset(ci, 0, sizeof *ci);
    ci->variant = ci->family = "raw";
    for (r = 0; r < sizeof llm__cv_chat_rules / sizeof llm__cv_chat_rules[0]; r++) {
        const llm__cv_chat_rule *rule = &llm__cv_chat_rules[r];
        int ok = 1;
        for (k = 0; k < 4 && ok; k++) {
            if (rule->all[k] && !strstr(t, rule->all[k])) ok = 0;
            if (rule->none[k] && strstr(t, rule->none[k])) ok = 0;
        }
        if (!ok) continue;
        if (!strcmp(rule->variant, "smollm2") || !strcmp(rule->variant, "qwen2.5")) {
            if (!(ci->default_system = llm__cv_chat_default_system(t))) continue;
        }
        if (!strcmp(rule->variant, "llama3.1") && !(ci->date = llm__cv_chat_literal(strstr(t, "set date_string = \"") + 19, "\"")))
            continue;
        ci->variant = rule->variant;
        ci->family = rule->family;
        return 0;
    }
    return -1;
}

static void llm__cv_chat_info_free(llm__cv_chat_info *ci) {
    free(ci->default_system);
    free(ci->date);
}

/* tokenizer_config.json's chat_template: a string, or HF's list of named templates. */
static const char *llm__cv_chat_pick_template(const json_value *v) {
    size_t i;
    if (!v) return NULL;
    if (v->type == JSON_STRING) return v->str;
    if (v->type != JSON_ARRAY) return NULL;
    for (i = 0; i < v->len; i++) {
        const json_value *name = json_get(&v->items[i], "name"), *tmpl = json_get(&v->items[i], "template");
        if (name && name->type == JSON_STRING && !strcmp(name->str, "default") && tmpl && tmpl->type == JSON_STRING)
            return tmpl->str;
    }
    return NULL;
}

/* A special token in tokenizer_config.json: a string, or an AddedToken {"content": ...}. */
static const char *llm__cv_chat_token_string(const json_value *v) {
    if (v && v->type == JSON_OBJECT) v = json_get(v, "content");
    return v && v->type == JSON_STRING ? v->str : NULL;
}

static int llm__cv_chat_set_string(llm_builder *b, const char *key, const char *s) {
    return s ? llm_builder_set_string(b, key, s, strlen(s)) != LLM_OK : 0;
}

/* Writes the chat.* keys for a template (NULL: none). Returns 0, or -1 when out of memory. */
static int llm__cv_chat_set_meta(llm_builder *b, const char *tmpl, const char *bos, const char *eos, llm__cv_chat_info *ci) {
    int r = 0;
    if (tmpl) llm__cv_chat_recognise(tmpl, ci);
    else { memset(ci, 0, sizeof *ci); ci->variant = ci->family = "raw"; }
    r |= llm__cv_chat_set_string(b, LLM_KEY_CHAT_TEMPLATE, tmpl);
    r |= llm__cv_chat_set_string(b, LLM_KEY_CHAT_FAMILY, ci->family);
    r |= llm__cv_chat_set_string(b, LLM_KEY_CHAT_VARIANT, ci->variant);
    r |= llm__cv_chat_set_string(b, LLM_KEY_CHAT_BOS, bos);
    r |= llm__cv_chat_set_string(b, LLM_KEY_CHAT_EOS, eos);
    r |= llm__cv_chat_set_string(b, LLM_KEY_CHAT_SYSTEM, ci->default_system);
    r |= llm__cv_chat_set_string(b, LLM_KEY_CHAT_DATE, ci->date);
    return r ? -1 : 0;
}

/* 0 when llm.h's Jinja interpreter parses the template, else -1 with its message. */
static int llm__cv_chat_parses(const char *tmpl, char *err, size_t err_size) {
    llm_jinja *t;
    llm_result r = llm_jinja_open(&t, tmpl, strlen(tmpl), NULL, err, err_size);
    if (r == LLM_OK) { llm_jinja_close(t); return 0; }
    if (!err[0]) snprintf(err, err_size, "%s", llm_result_string(r));
    return -1;
}

/* Absent is no error; present but unreadable (a directory, no permission) is. */
static int llm__cv_chat_file_missing(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return !f && errno == ENOENT;
}

/* Says what became of the chat template (rc: llm__cv_chat_set_meta's), from either input. */
static void llm__cv_chat_report(llm__cv *cv, int rc, const char *tmpl, const llm__cv_chat_info *ci) {
    char err[512];
    if (rc) llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "cannot build chat metadata (out of memory)");
    else if (!tmpl) llm__cv_log(cv, "no chat template (family raw)");
    else if (llm__cv_chat_parses(tmpl, err, sizeof err) != 0)
        llm__cv_log(cv, "warning: the chat template does not parse (%s); stored as it is", err);
    else if (!strcmp(ci->family, "raw")) llm__cv_log(cv, "chat template stored (Jinja; no built-in template matches it)");
    else llm__cv_log(cv, "chat template stored (Jinja; built-in template %s, family %s)", ci->variant, ci->family);
}

/* The converter's one call: reads dir's template files and adds the chat keys to b.
   Returns 0, or -1 with a message in err. */
static int llm__cv_convert_chat(llm__cv *cv, llm_builder *b, const char *dir) {
    char err[1024];
    char path[4096];
    json_value *cfg = NULL;
    const json_value *ct = NULL;
    char *jinja = NULL;
    const char *tmpl = NULL;
    size_t n;
    llm__cv_chat_info ci;
    int rc;
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    if (!llm__cv_chat_file_missing(path)) {
        if (!(cfg = json_parse_file_ex(path, JSON_NO_NUL, err, sizeof err))) return llm__cv_json_failed(cv, err);
        if (cfg->type != JSON_OBJECT) {
            llm__cv_fail(cv, "%.900s: not a JSON object (found %s)", path, json_type_name(cfg->type));
            json_free(cfg);
            return -1;
        }
    }
    snprintf(path, sizeof path, "%s/chat_template.jinja", dir); /* newer transformers save it here */
    if (!llm__cv_chat_file_missing(path)) {
        if (!(jinja = json_read_file(path, &n, err, sizeof err))) { json_free(cfg); return llm__cv_json_failed(cv, err); }
        if (strlen(jinja) != n) { /* the template is text and is used as a C string */
            llm__cv_fail(cv, "%.900s: holds a NUL byte at byte %lu", path, (unsigned long)strlen(jinja));
            free(jinja);
            json_free(cfg);
            return -1;
        }
    }
    if (cfg) ct = json_get(cfg, "chat_template");
    tmpl = jinja ? jinja : llm__cv_chat_pick_template(ct);
    if (!tmpl && ct && ct->type != JSON_NULL)
        llm__cv_log(cv, "warning: tokenizer_config.json's chat_template has no \"default\" template; no chat template stored");
    rc = llm__cv_chat_set_meta(b, tmpl, cfg ? llm__cv_chat_token_string(json_get(cfg, "bos_token")) : NULL,
                       cfg ? llm__cv_chat_token_string(json_get(cfg, "eos_token")) : NULL, &ci);
    llm__cv_chat_report(cv, rc, tmpl, &ci);
    llm__cv_chat_info_free(&ci);
    free(jinja);
    json_free(cfg);
    return rc;
}


/* ---- config.json ---------------------------------------------------------------------- */
/* How a family's config class and modeling code differ from Llama's: one row per model_type
   (llm__cv_families), so a family that shares the anatomy is a new row. */
enum { LLM__CV_BIAS_ALL = 0,   /* q, k, v and o biases with attention_bias (Llama) */
       LLM__CV_BIAS_QKV = 1,   /* q, k, v biases always (Qwen2) */
       LLM__CV_BIAS_NONE = 2 };
enum { LLM__CV_WIN_NONE = 0,   /* no sliding window (Llama) */
       LLM__CV_WIN_ALL = 1,    /* sliding_window on every layer (Mistral, Phi-3) */
       LLM__CV_WIN_QWEN = 2,   /* with use_sliding_window, from layer max_window_layers on */
       LLM__CV_WIN_TYPES = 3 };/* layer_types, else every pattern-th layer global (Gemma) */
enum { LLM__CV_KEYS_GEMMA = 1,   /* query_pre_attn_scalar, soft-capping, hidden_activation */
       LLM__CV_KEYS_GRANITE = 2, /* the four multipliers */
       LLM__CV_KEYS_NOPE = 4,    /* no_rope_layers */
       LLM__CV_KEYS_LOCAL = 8,   /* rope_local_base_freq on the sliding layers */
       LLM__CV_KEYS_PARTIAL = 16,/* partial_rotary_factor */
       LLM__CV_FUSED = 32,       /* qkv_proj and gate_up_proj, split by the converter */
       LLM__CV_EMBD_SQRT = 64,   /* embeddings times sqrt(hidden_size) in the weights' dtype */
       LLM__CV_ORIG_CTX = 128,   /* the class has original_max_position_embeddings (Phi3Config: 4096),
                                    and reads rope_scaling type su or yarn as longrope */
       LLM__CV_TIED = 256,       /* the class ties the embeddings by default, so a tied config written
                                    by transformers may leave tie_word_embeddings out */
       LLM__CV_GELU_TANH = 512 };/* hidden_act defaults to gelu_pytorch_tanh (GemmaConfig) */

typedef struct llm__cv_family {
    const char *model_type;
    llm_arch arch;
    int default_ctx;         /* max_position_embeddings of the config class */
    int default_head_dim;    /* 0: hidden_size / num_attention_heads */
    int bias, windows, default_window, window_pattern;
    int block_norms, qk_norm, norm_plus_one, keys;
    double default_qpas, default_attn_cap, default_final_cap; /* Gemma: config class defaults */
} llm__cv_family;

static const llm__cv_family llm__cv_families[] = {
    { "llama", LLM_ARCH_LLAMA, 2048, 0, LLM__CV_BIAS_ALL, LLM__CV_WIN_NONE, 0, 0, LLM_BLOCK_PRE, 0, 0, 0, 0, 0, 0 },
    { "mistral", LLM_ARCH_MISTRAL, 4096 * 32, 0, LLM__CV_BIAS_NONE, LLM__CV_WIN_ALL, 4096, 0, LLM_BLOCK_PRE, 0, 0, 0, 0, 0, 0 },
    { "qwen2", LLM_ARCH_QWEN2, 32768, 0, LLM__CV_BIAS_QKV, LLM__CV_WIN_QWEN, 4096, 0, LLM_BLOCK_PRE, 0, 0, 0, 0, 0, 0 },
    { "qwen3", LLM_ARCH_QWEN3, 32768, 128, LLM__CV_BIAS_ALL, LLM__CV_WIN_QWEN, 4096, 0, LLM_BLOCK_PRE, LLM_QK_NORM_HEAD, 0, 0, 0, 0, 0 },
    /* Gemma 1: today's GemmaMLP reads hidden_act (older releases read hidden_activation), so
       google/gemma-7b's "hidden_act": "gelu" is the exact GELU */
    { "gemma", LLM_ARCH_GEMMA, 8192, 256, LLM__CV_BIAS_ALL, LLM__CV_WIN_NONE, 0, 0, LLM_BLOCK_PRE, 0, 1,
      LLM__CV_EMBD_SQRT | LLM__CV_TIED | LLM__CV_GELU_TANH, 0, 0, 0 },
    { "gemma2", LLM_ARCH_GEMMA2, 8192, 256, LLM__CV_BIAS_ALL, LLM__CV_WIN_TYPES, 4096, 2, LLM_BLOCK_SANDWICH, 0, 1,
      LLM__CV_KEYS_GEMMA | LLM__CV_EMBD_SQRT | LLM__CV_TIED, 256, 50.0, 30.0 },
    { "gemma3_text", LLM_ARCH_GEMMA3, 131072, 256, LLM__CV_BIAS_ALL, LLM__CV_WIN_TYPES, 4096, 6, LLM_BLOCK_SANDWICH,
      LLM_QK_NORM_HEAD, 1, LLM__CV_KEYS_GEMMA | LLM__CV_KEYS_LOCAL | LLM__CV_EMBD_SQRT | LLM__CV_TIED, 256, 0, 0 },
    { "phi3", LLM_ARCH_PHI3, 4096, 0, LLM__CV_BIAS_NONE, LLM__CV_WIN_ALL, 0, 0, LLM_BLOCK_PRE, 0, 0,
      LLM__CV_KEYS_PARTIAL | LLM__CV_FUSED | LLM__CV_ORIG_CTX, 0, 0, 0 },
    { "smollm3", LLM_ARCH_SMOLLM3, 32768, 0, LLM__CV_BIAS_ALL, LLM__CV_WIN_QWEN, 0, 0, LLM_BLOCK_PRE, 0, 0, LLM__CV_KEYS_NOPE | LLM__CV_TIED, 0, 0, 0 },
    { "granite", LLM_ARCH_GRANITE, 2048, 0, LLM__CV_BIAS_ALL, LLM__CV_WIN_NONE, 0, 0, LLM_BLOCK_PRE, 0, 0, LLM__CV_KEYS_GRANITE, 0, 0, 0 },
    { "olmo2", LLM_ARCH_OLMO2, 2048, 0, LLM__CV_BIAS_ALL, LLM__CV_WIN_NONE, 0, 0, LLM_BLOCK_POST, LLM_QK_NORM_FULL, 0, 0, 0, 0, 0 },
    /* mixtures of experts: the experts are read by llm__cv_read_experts */
    { "mixtral", LLM_ARCH_MIXTRAL, 4096 * 32, 0, LLM__CV_BIAS_NONE, LLM__CV_WIN_ALL, 0, 0, LLM_BLOCK_PRE, 0, 0, 0, 0, 0, 0 },
    { "qwen3_moe", LLM_ARCH_QWEN3_MOE, 32768, 0, LLM__CV_BIAS_ALL, LLM__CV_WIN_QWEN, 4096, 0, LLM_BLOCK_PRE, LLM_QK_NORM_HEAD, 0, 0, 0, 0, 0 },
    { "qwen2_moe", LLM_ARCH_QWEN2_MOE, 32768, 0, LLM__CV_BIAS_QKV, LLM__CV_WIN_QWEN, 4096, 0, LLM_BLOCK_PRE, 0, 0, 0, 0, 0, 0 },
    { "olmoe", LLM_ARCH_OLMOE, 4096, 0, LLM__CV_BIAS_ALL, LLM__CV_WIN_NONE, 0, 0, LLM_BLOCK_PRE, LLM_QK_NORM_FULL, 0, 0, 0, 0, 0 },
};

typedef struct llm__cv_hparams {
    llm_arch arch;
    const llm__cv_family *fam;
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, n_ctx_train;
    double rms_eps, rope_theta;
    int rope_scaling, rope_orig;
    double rope_factor, rope_low, rope_high;
    int tied, qk_norm, attn_bias_qkv, attn_bias_o;
    int no_lm_head;             /* a base model's checkpoint without a head (llm__cv_base_model_names) */
    int pooling, embd_normalize; /* sentence-transformers' (llm__cv_read_pooling); pooling 0: none named */
    int bos_id, n_eos, eos[LLM_MAX_STOP_IDS];
    int *window; /* per layer */
    /* the switches (llm.h's llm_model_info) */
    int block_norms, norm_plus_one, activation, rope_dim, rope_truncate;
    double embd_scale, attn_scale, residual_scale, logits_divisor, attn_softcap, final_softcap;
    double rope_theta_local, rope_attn_factor, rope_beta_fast, rope_beta_slow;
    float rope_short[512], rope_long[512]; /* LongRoPE, rope_dim / 2 each */
    int *layer_rope; /* per layer, LLM_LAYER_ROPE_*; NULL: the model's RoPE everywhere */
    /* mixtures of experts (n_expert 0: dense) */
    int n_expert, n_expert_used, n_ff_expert, norm_topk, n_ff_shared;
    int *sparse; /* per layer: 1 when it has experts */
} llm__cv_hparams;

/* Frees the per-layer arrays llm__cv_hparams_from_json allocates (also after it failed). */
static void llm__cv_hparams_free(llm__cv_hparams *h) {
    free(h->window);
    free(h->layer_rope);
    free(h->sparse);
    h->window = h->layer_rope = h->sparse = NULL;
}

static int llm__cv_cfg_int(llm__cv *cv, const json_value *cfg, const char *key, int required, int dflt, int *out) {
    const json_value *v = json_get(cfg, key);
    if (!v || v->type == JSON_NULL) {
        if (required) return llm__cv_fail(cv, "config.json: missing '%s'", key);
        *out = dflt;
        return 0;
    }
    if (v->type != JSON_NUMBER) return llm__cv_fail(cv, "config.json: '%s' must be an integer, found %s", key, json_type_name(v->type));
    if (v->number != floor(v->number)) return llm__cv_fail(cv, "config.json: '%s' must be an integer, found %.17g", key, v->number);
    if (v->number < -2147483647.0 || v->number > 2147483647.0)
        return llm__cv_fail(cv, "config.json: '%s' is out of range: %.17g (at most 2147483647)", key, v->number);
    *out = (int)v->number;
    return 0;
}

static int llm__cv_cfg_num(llm__cv *cv, const json_value *cfg, const char *key, double dflt, double *out) {
    const json_value *v = json_get(cfg, key);
    if (!v || v->type == JSON_NULL) { *out = dflt; return 0; }
    if (v->type != JSON_NUMBER) return llm__cv_fail(cv, "config.json: '%s' must be a number, found %s", key, json_type_name(v->type));
    *out = v->number;
    return 0;
}

static int llm__cv_cfg_bool(llm__cv *cv, const json_value *cfg, const char *key, int dflt, int *out) {
    const json_value *v = json_get(cfg, key);
    if (!v || v->type == JSON_NULL) { *out = dflt; return 0; }
    if (v->type != JSON_TRUE && v->type != JSON_FALSE) return llm__cv_fail(cv, "config.json: '%s' must be true or false", key);
    *out = v->type == JSON_TRUE;
    return 0;
}

static int llm__cv_cfg_str_is(const json_value *v, const char *s) {
    return v && v->type == JSON_STRING && strcmp(v->str, s) == 0;
}

static int llm__cv_read_arch(llm__cv *cv, const json_value *cfg, llm__cv_hparams *h) {
    const json_value *mt = json_get(cfg, "model_type");
    char names[512];
    size_t i, n = 0;
    if (!mt || mt->type != JSON_STRING) return llm__cv_fail(cv, "config.json: missing 'model_type'");
    for (i = 0; i < sizeof llm__cv_families / sizeof llm__cv_families[0]; i++)
        if (strcmp(mt->str, llm__cv_families[i].model_type) == 0) {
            h->fam = &llm__cv_families[i];
            h->arch = h->fam->arch;
            h->n_ctx_train = h->fam->default_ctx; /* the transformers config class default */
            return 0;
        }
    if (strcmp(mt->str, "gemma3") == 0) /* the text model of a multimodal checkpoint is not read */
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: model_type 'gemma3' (Gemma3ForConditionalGeneration, text and vision) "
                               "is not supported: convert a text-only checkpoint (model_type gemma3_text)");
    names[0] = 0;
    for (i = 0; i < sizeof llm__cv_families / sizeof llm__cv_families[0]; i++)
        n += (size_t)snprintf(names + n, n < sizeof names ? sizeof names - n : 0, "%s%s", i ? ", " : "", llm__cv_families[i].model_type);
    return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: model_type '%s' is not supported (supported: %s)", mt->str, names);
}

/* transformers _compute_yarn_parameters: the factor, the original context (rope_scaling's
   original_max_position_embeddings, else max_position_embeddings), the ramp's beta_fast and
   beta_slow, and the attention factor (given, or from mscale and mscale_all_dim, or
   0.1 ln(factor) + 1). */
static int llm__cv_read_yarn(llm__cv *cv, const json_value *cfg, const json_value *rs, llm__cv_hparams *h) {
    double mscale = 0, mscale_all = 0, af = 0;
    (void)cfg;
    h->rope_scaling = LLM_ROPE_YARN;
    if (llm__cv_cfg_int(cv, rs, "original_max_position_embeddings", 0, h->n_ctx_train, &h->rope_orig) ||
        llm__cv_cfg_num(cv, rs, "beta_fast", 32.0, &h->rope_beta_fast) || llm__cv_cfg_num(cv, rs, "beta_slow", 1.0, &h->rope_beta_slow) ||
        llm__cv_cfg_num(cv, rs, "mscale", 0.0, &mscale) || llm__cv_cfg_num(cv, rs, "mscale_all_dim", 0.0, &mscale_all) ||
        llm__cv_cfg_num(cv, rs, "attention_factor", 0.0, &af) || llm__cv_cfg_bool(cv, rs, "truncate", 1, &h->rope_truncate))
        return -1;
    if (h->rope_beta_fast == 0) h->rope_beta_fast = 32.0; /* HF: `or 32` */
    if (h->rope_beta_slow == 0) h->rope_beta_slow = 1.0;
    if (h->rope_orig < 1) return llm__cv_fail(cv, "config.json: yarn needs original_max_position_embeddings >= 1");
#define LLM__CV_MSCALE(s, m) ((s) <= 1.0 ? 1.0 : 0.1 * (m) * log(s) + 1.0)
    if (af > 0) h->rope_attn_factor = af;
    else if (mscale != 0 && mscale_all != 0) h->rope_attn_factor = LLM__CV_MSCALE(h->rope_factor, mscale) / LLM__CV_MSCALE(h->rope_factor, mscale_all);
    else h->rope_attn_factor = LLM__CV_MSCALE(h->rope_factor, 1.0);
#undef LLM__CV_MSCALE
    return 0;
}

/* A LongRoPE factor list: rope_dim / 2 numbers, stored as float32 as HF makes them. */
static int llm__cv_read_factors(llm__cv *cv, const json_value *rs, const char *key, int n, float *out) {
    const json_value *v = json_get(rs, key);
    int i;
    if (!v || v->type != JSON_ARRAY || (int)v->len != n)
        return llm__cv_fail(cv, "config.json: rope_scaling.%s must list %d numbers (rotary dimensions / 2)", key, n);
    for (i = 0; i < n; i++) {
        if (v->items[i].type != JSON_NUMBER || !(v->items[i].number > 0)) return llm__cv_fail(cv, "config.json: rope_scaling.%s[%d] must be a positive number", key, i);
        out[i] = (float)v->items[i].number;
    }
    return 0;
}

/* transformers _compute_longrope_parameters (Phi-3): the short and long factors, the original
   context (config.json's original_max_position_embeddings), and the attention factor: given,
   or sqrt(1 + ln(s) / ln(original)) with s the factor, else max_position_embeddings / original. */
static int llm__cv_read_longrope(llm__cv *cv, const json_value *cfg, const json_value *rs, llm__cv_hparams *h) {
    double af = 0, factor = 0;
    /* HF tests hasattr(config, "original_max_position_embeddings"): true for a class that
       defines it, whatever config.json says */
    int has_orig = h->fam->keys & LLM__CV_ORIG_CTX || json_get(cfg, "original_max_position_embeddings") != NULL;
    h->rope_scaling = LLM_ROPE_LONGROPE;
    if (h->rope_dim / 2 > (int)(sizeof h->rope_short / sizeof h->rope_short[0])) return llm__cv_fail(cv, "config.json: too many rotary dimensions for longrope");
    if (llm__cv_read_factors(cv, rs, "short_factor", h->rope_dim / 2, h->rope_short) ||
        llm__cv_read_factors(cv, rs, "long_factor", h->rope_dim / 2, h->rope_long) ||
        llm__cv_cfg_num(cv, rs, "attention_factor", 0.0, &af) || llm__cv_cfg_num(cv, rs, "factor", 1.0, &factor) ||
        llm__cv_cfg_int(cv, cfg, "original_max_position_embeddings", 0, h->fam->keys & LLM__CV_ORIG_CTX ? 4096 : h->n_ctx_train, &h->rope_orig))
        return -1;
    if (h->rope_orig < 1) return llm__cv_fail(cv, "config.json: longrope needs original_max_position_embeddings >= 1");
    if (has_orig && !json_get(rs, "factor")) factor = (double)h->n_ctx_train / h->rope_orig; /* transformers 5: an explicit factor wins */
    h->rope_attn_factor = af > 0 ? af : factor <= 1.0 ? 1.0 : sqrt(1.0 + log(factor) / log((double)h->rope_orig));
    return 0;
}

/* transformers 5's rope_parameters.sliding_attention: the theta of the layers with a sliding
   window, which the families with a local RoPE (Gemma 3) run unscaled. */
static int llm__cv_read_local_rope(llm__cv *cv, const json_value *sl, llm__cv_hparams *h) {
    const json_value *type;
    if (!sl || sl->type == JSON_NULL) return 0;
    if (sl->type != JSON_OBJECT) return llm__cv_fail(cv, "config.json: rope_parameters.sliding_attention must be an object");
    if (!(h->fam->keys & LLM__CV_KEYS_LOCAL))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: model_type '%s' has one RoPE for every layer; rope_parameters per layer type is not supported for it", h->fam->model_type);
    type = json_get(sl, "rope_type");
    if (!type) type = json_get(sl, "type");
    if (type && !llm__cv_cfg_str_is(type, "default"))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: rope_parameters.sliding_attention.rope_type '%s' is not supported (only default)",
                               type->type == JSON_STRING ? type->str : "?");
    return llm__cv_cfg_num(cv, sl, "rope_theta", h->rope_theta_local, &h->rope_theta_local);
}

static int llm__cv_read_rope_scaling(llm__cv *cv, const json_value *cfg, llm__cv_hparams *h) {
    const json_value *rs = json_get(cfg, "rope_scaling"), *type;
    h->rope_scaling = LLM_ROPE_NONE;
    h->rope_factor = 1.0; h->rope_low = 1.0; h->rope_high = 4.0; h->rope_orig = 0;
    h->rope_attn_factor = 1.0; h->rope_beta_fast = 32.0; h->rope_beta_slow = 1.0; h->rope_truncate = 1;
    /* transformers 5 writes theta and the scaling rule together as rope_parameters, one set
       per layer type where the types differ (Gemma 3: full_attention is the model's RoPE,
       sliding_attention the local one). */
    if (!rs || rs->type == JSON_NULL) {
        rs = json_get(cfg, "rope_parameters");
        if (rs && rs->type == JSON_OBJECT && (json_get(rs, "full_attention") || json_get(rs, "sliding_attention"))) {
            if (llm__cv_read_local_rope(cv, json_get(rs, "sliding_attention"), h)) return -1;
            rs = json_get(rs, "full_attention");
        }
        if (rs && rs->type == JSON_OBJECT && json_get(rs, "rope_theta") && llm__cv_cfg_num(cv, rs, "rope_theta", 0.0, &h->rope_theta)) return -1;
    }
    if (!rs || rs->type == JSON_NULL) return 0;
    if (rs->type != JSON_OBJECT) return llm__cv_fail(cv, "config.json: 'rope_scaling' must be an object or null");
    type = json_get(rs, "rope_type");
    if (!type) type = json_get(rs, "type");
    if (!type || type->type != JSON_STRING) return llm__cv_fail(cv, "config.json: rope_scaling has no 'rope_type'");
    if (strcmp(type->str, "default") == 0) return 0;
    if (strcmp(type->str, "longrope") == 0 || (h->fam->keys & LLM__CV_ORIG_CTX && (strcmp(type->str, "su") == 0 || strcmp(type->str, "yarn") == 0)))
        return llm__cv_read_longrope(cv, cfg, rs, h);
    if (llm__cv_cfg_num(cv, rs, "factor", 0.0, &h->rope_factor)) return -1;
    if (!(h->rope_factor > 0.0)) return llm__cv_fail(cv, "config.json: rope_scaling.factor must be > 0");
    if (strcmp(type->str, "linear") == 0) { h->rope_scaling = LLM_ROPE_LINEAR; return 0; }
    if (strcmp(type->str, "llama3") == 0) {
        h->rope_scaling = LLM_ROPE_LLAMA3;
        if (llm__cv_cfg_num(cv, rs, "low_freq_factor", 1.0, &h->rope_low) || llm__cv_cfg_num(cv, rs, "high_freq_factor", 4.0, &h->rope_high) ||
            llm__cv_cfg_int(cv, rs, "original_max_position_embeddings", 1, 0, &h->rope_orig))
            return -1;
        return 0;
    }
    if (strcmp(type->str, "yarn") == 0) return llm__cv_read_yarn(cv, cfg, rs, h);
    return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: rope_scaling.rope_type '%s' is not supported (supported: linear, llama3, yarn, longrope)", type->str);
}

/* Sliding windows per layer, following each family's config class in transformers. */
static int llm__cv_read_windows(llm__cv *cv, const json_value *cfg, llm__cv_hparams *h) {
    const json_value *sw = json_get(cfg, "sliding_window"), *types = json_get(cfg, "layer_types");
    int window = 0, use = 1, max_window_layers = 0, i, rule = h->fam->windows, pattern = h->fam->window_pattern;
    h->window = (int *)calloc((size_t)h->n_layer, sizeof(int));
    if (!h->window) return llm__cv_oom(cv);
    if (!sw) window = h->fam->default_window; /* the config classes' default; null means none */
    if (sw && sw->type != JSON_NULL) {
        if (!json_is_int(sw) || sw->number < 0 || sw->number > 2147483647.0) return llm__cv_fail(cv, "config.json: 'sliding_window' must be an integer or null");
        window = (int)sw->number;
    }
    if (rule == LLM__CV_WIN_QWEN) {
        if (llm__cv_cfg_bool(cv, cfg, "use_sliding_window", 0, &use) || llm__cv_cfg_int(cv, cfg, "max_window_layers", 0, 28, &max_window_layers)) return -1;
    } else if (rule == LLM__CV_WIN_NONE) {
        use = 0;
    }
    if (rule == LLM__CV_WIN_TYPES && (!types || types->type == JSON_NULL)) {
        /* Gemma 2: every other layer sliding from layer 0; Gemma 3: sliding_window_pattern - 1
           local layers, then a global one. */
        if (llm__cv_cfg_int(cv, cfg, "sliding_window_pattern", 0, pattern, &pattern)) return -1;
        if (pattern < 1) return llm__cv_fail(cv, "config.json: 'sliding_window_pattern' must be >= 1");
        for (i = 0; i < h->n_layer; i++) h->window[i] = (i + 1) % pattern ? window : 0;
        return 0;
    }
    if (types && types->type != JSON_NULL) {
        if (types->type != JSON_ARRAY || types->len != (size_t)h->n_layer) return llm__cv_fail(cv, "config.json: 'layer_types' must list one type per layer");
        for (i = 0; i < h->n_layer; i++) {
            if (llm__cv_cfg_str_is(&types->items[i], "sliding_attention")) h->window[i] = use ? window : 0;
            else if (!llm__cv_cfg_str_is(&types->items[i], "full_attention"))
                return llm__cv_fail(cv, "config.json: layer_types[%d] is not 'full_attention' or 'sliding_attention'", i);
        }
        return 0;
    }
    if (!use || window == 0) return 0;
    for (i = 0; i < h->n_layer; i++)
        h->window[i] = (rule == LLM__CV_WIN_ALL || i >= max_window_layers) ? window : 0;
    return 0;
}

/* A token id: an integer in [0, 2^31). v is FILE's KEY (KEY[index] when index >= 0). */
static int llm__cv_read_id(llm__cv *cv, const json_value *v, const char *file, const char *key, int index, int *out) {
    char name[64];
    if (index >= 0) snprintf(name, sizeof name, "%s[%d]", key, index);
    else snprintf(name, sizeof name, "%s", key);
    if (v->type != JSON_NUMBER) return llm__cv_fail(cv, "%s: '%s' must be a token id (an integer >= 0), found %s", file, name, json_type_name(v->type));
    if (!(v->number >= 0 && v->number <= 2147483647.0) || v->number != floor(v->number))
        return llm__cv_fail(cv, "%s: '%s' must be a token id (an integer in [0, 2147483647]), found %.17g", file, name, v->number);
    *out = (int)v->number;
    return 0;
}

/* bos and eos ids: generation_config.json's when it names them, else config.json's. */
static int llm__cv_read_token_ids(llm__cv *cv, const json_value *gen, const json_value *cfg, llm__cv_hparams *h) {
    const json_value *eos = json_get(gen, "eos_token_id"), *bos = json_get(gen, "bos_token_id");
    const char *eos_file = "generation_config.json", *bos_file = eos_file;
    size_t i;
    if (!eos || eos->type == JSON_NULL) { eos = json_get(cfg, "eos_token_id"); eos_file = "config.json"; }
    if (!bos || bos->type == JSON_NULL) { bos = json_get(cfg, "bos_token_id"); bos_file = "config.json"; }
    h->bos_id = -1;
    h->n_eos = 0;
    if (bos && bos->type != JSON_NULL && llm__cv_read_id(cv, bos, bos_file, "bos_token_id", -1, &h->bos_id)) return -1;
    if (!eos || eos->type == JSON_NULL) return 0;
    if (eos->type != JSON_ARRAY) return llm__cv_read_id(cv, eos, eos_file, "eos_token_id", -1, &h->eos[h->n_eos++]);
    for (i = 0; i < eos->len; i++) {
        if (h->n_eos == LLM_MAX_STOP_IDS) return llm__cv_fail(cv, "%s: more than %d eos_token_id values", eos_file, LLM_MAX_STOP_IDS);
        if (llm__cv_read_id(cv, &eos->items[i], eos_file, "eos_token_id", (int)i, &h->eos[h->n_eos++])) return -1;
    }
    return 0;
}

/* The scales and rotary dimensions the family's config class defines (absent keys take its
   defaults; a key another family's class defines is not read, as transformers ignores it). */
static int llm__cv_read_switches(llm__cv *cv, const json_value *cfg, llm__cv_hparams *h) {
    int keys = h->fam->keys;
    double qpas = h->fam->default_qpas, partial = 1.0, attn_mult = 1.0;
    h->embd_scale = 1.0; h->attn_scale = 0.0; h->residual_scale = 1.0; h->logits_divisor = 1.0;
    h->attn_softcap = 0.0; h->final_softcap = 0.0; h->rope_theta_local = 10000.0;
    if (keys & LLM__CV_KEYS_GEMMA) {
        const json_value *a = json_get(cfg, "attn_logit_softcapping"), *f = json_get(cfg, "final_logit_softcapping");
        h->attn_softcap = a ? 0.0 : h->fam->default_attn_cap; /* a key of null means none */
        h->final_softcap = f ? 0.0 : h->fam->default_final_cap;
        if (llm__cv_cfg_num(cv, cfg, "query_pre_attn_scalar", qpas, &qpas) ||
            (a && llm__cv_cfg_num(cv, cfg, "attn_logit_softcapping", 0.0, &h->attn_softcap)) ||
            (f && llm__cv_cfg_num(cv, cfg, "final_logit_softcapping", 0.0, &h->final_softcap)))
            return -1;
        if (!(qpas > 0)) return llm__cv_fail(cv, "config.json: 'query_pre_attn_scalar' must be > 0");
        h->attn_scale = pow(qpas, -0.5);
        if (h->attn_softcap < 0 || h->final_softcap < 0) return llm__cv_fail(cv, "config.json: soft-capping values must be >= 0");
    }
    if (keys & LLM__CV_KEYS_GRANITE) {
        if (llm__cv_cfg_num(cv, cfg, "embedding_multiplier", 1.0, &h->embd_scale) ||
            llm__cv_cfg_num(cv, cfg, "attention_multiplier", 1.0, &attn_mult) ||
            llm__cv_cfg_num(cv, cfg, "residual_multiplier", 1.0, &h->residual_scale) ||
            llm__cv_cfg_num(cv, cfg, "logits_scaling", 1.0, &h->logits_divisor))
            return -1;
        h->attn_scale = attn_mult;
        if (!(h->embd_scale > 0) || !(attn_mult > 0) || !(h->residual_scale > 0) || !(h->logits_divisor > 0))
            return llm__cv_fail(cv, "config.json: Granite's multipliers must be > 0");
    }
    if (keys & LLM__CV_KEYS_LOCAL && llm__cv_cfg_num(cv, cfg, "rope_local_base_freq", 10000.0, &h->rope_theta_local)) return -1;
    if (keys & LLM__CV_KEYS_PARTIAL) { /* transformers 5 may write it inside rope_parameters */
        const json_value *rp = json_get(cfg, "rope_parameters");
        if (llm__cv_cfg_num(cv, json_get(cfg, "partial_rotary_factor") || !rp ? cfg : rp, "partial_rotary_factor", 1.0, &partial)) return -1;
    }
    if (!(partial > 0 && partial <= 1)) return llm__cv_fail(cv, "config.json: 'partial_rotary_factor' must be in (0, 1]");
    h->rope_dim = (int)(h->head_dim * partial); /* int(), as HF truncates */
    if (h->rope_dim < 2 || h->rope_dim % 2) return llm__cv_fail(cv, "config.json: %d rotary dimensions (head_dim x partial_rotary_factor) is not an even number >= 2", h->rope_dim);
    return 0;
}

/* Which RoPE each layer applies: SmolLM3's no_rope_layers (0: none), Gemma 3's local theta on
   its sliding layers. */
static int llm__cv_read_layer_rope(llm__cv *cv, const json_value *cfg, llm__cv_hparams *h) {
    int i, keys = h->fam->keys, interval = 4, any = 0;
    const json_value *nope = json_get(cfg, "no_rope_layers");
    if (!(keys & (LLM__CV_KEYS_NOPE | LLM__CV_KEYS_LOCAL))) return 0;
    if (!(h->layer_rope = (int *)calloc((size_t)h->n_layer, sizeof(int)))) return llm__cv_oom(cv);
    if (keys & LLM__CV_KEYS_NOPE && llm__cv_cfg_int(cv, cfg, "no_rope_layer_interval", 0, 4, &interval)) return -1;
    if (keys & LLM__CV_KEYS_NOPE && nope && nope->type != JSON_NULL && (nope->type != JSON_ARRAY || nope->len != (size_t)h->n_layer))
        return llm__cv_fail(cv, "config.json: 'no_rope_layers' must list one 0 or 1 per layer");
    if (interval < 1) return llm__cv_fail(cv, "config.json: 'no_rope_layer_interval' must be >= 1");
    for (i = 0; i < h->n_layer; i++) {
        int use = 1;
        if (keys & LLM__CV_KEYS_NOPE) {
            if (nope && nope->type == JSON_ARRAY) {
                const json_value *v = &nope->items[i];
                if (!json_is_int(v) || (v->number != 0 && v->number != 1)) return llm__cv_fail(cv, "config.json: no_rope_layers[%d] must be 0 or 1", i);
                use = v->number == 1;
            } else {
                use = (i + 1) % interval != 0; /* the config class's default */
            }
        }
        h->layer_rope[i] = !use ? LLM_LAYER_ROPE_NONE : keys & LLM__CV_KEYS_LOCAL && h->window[i] ? LLM_LAYER_ROPE_LOCAL : LLM_LAYER_ROPE_GLOBAL;
        any |= h->layer_rope[i] != LLM_LAYER_ROPE_GLOBAL;
    }
    if (!any) { free(h->layer_rope); h->layer_rope = NULL; }
    return 0;
}

/* The mixture-of-experts families, as their config classes and modeling code build them:
   Mixtral (num_local_experts, every layer sparse, the chosen weights always renormalised,
   no biases), Qwen3-MoE (num_experts, moe_intermediate_size, norm_topk_prob, Qwen3's
   attention), Qwen2-MoE (the same with Qwen2's q/k/v biases and a shared expert) and OLMoE
   (num_experts of intermediate_size in every layer, norm_topk_prob default false). A Qwen
   layer is sparse unless listed in mlp_only_layers, when (layer + 1) is a multiple of
   decoder_sparse_step. */
static int llm__cv_read_experts(llm__cv *cv, const json_value *cfg, llm__cv_hparams *h) {
    const json_value *dense = json_get(cfg, "mlp_only_layers"), *clip = json_get(cfg, "clip_qkv");
    int mixtral = h->arch == LLM_ARCH_MIXTRAL, qwen2 = h->arch == LLM_ARCH_QWEN2_MOE, olmoe = h->arch == LLM_ARCH_OLMOE;
    int step = 1, qkv_bias = 1, i;
    size_t k;
    if (!mixtral && !qwen2 && !olmoe && h->arch != LLM_ARCH_QWEN3_MOE) return 0;
    /* OlmoeAttention clamps q, k and v to [-clip_qkv, clip_qkv] when it is set */
    if (olmoe && clip && clip->type != JSON_NULL)
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: clip_qkv %g is not supported (OLMoE's clamping of q, k and v; only null is)",
                               clip->type == JSON_NUMBER ? clip->number : 0.0);
    h->sparse = (int *)calloc((size_t)h->n_layer, sizeof(int));
    if (!h->sparse) return llm__cv_oom(cv);
    /* (transformers 5 may write the Qwen MoE configs' num_experts as num_local_experts) */
    if (llm__cv_cfg_int(cv, cfg, mixtral || !json_get(cfg, "num_experts") ? "num_local_experts" : "num_experts", 0,
                        mixtral ? 8 : qwen2 ? 60 : olmoe ? 64 : 128, &h->n_expert) ||
        llm__cv_cfg_int(cv, cfg, "num_experts_per_tok", 0, mixtral ? 2 : qwen2 ? 4 : 8, &h->n_expert_used))
        return -1;
    if (mixtral) {
        h->n_ff_expert = h->n_ff;
        h->norm_topk = 1;
    } else if (olmoe) {
        h->n_ff_expert = h->n_ff;
        dense = NULL; /* OlmoeConfig has no dense layers */
        if (llm__cv_cfg_bool(cv, cfg, "norm_topk_prob", 0, &h->norm_topk)) return -1;
    } else if (llm__cv_cfg_int(cv, cfg, "moe_intermediate_size", 0, qwen2 ? 1408 : 768, &h->n_ff_expert) ||
               llm__cv_cfg_bool(cv, cfg, "norm_topk_prob", 0, &h->norm_topk) ||
               llm__cv_cfg_int(cv, cfg, "decoder_sparse_step", 0, 1, &step) ||
               (qwen2 && (llm__cv_cfg_int(cv, cfg, "shared_expert_intermediate_size", 0, 5632, &h->n_ff_shared) ||
                          llm__cv_cfg_bool(cv, cfg, "qkv_bias", 1, &qkv_bias))))
        return -1;
    if (qwen2) h->attn_bias_qkv = qkv_bias; /* Qwen2MoeConfig's own key */
    if (h->n_expert < 1 || h->n_expert > LLM_MAX_EXPERTS || h->n_expert_used < 1 || h->n_expert_used > h->n_expert)
        return llm__cv_fail(cv, "config.json: %d experts with %d per token is out of range (at most %d experts)", h->n_expert,
                            h->n_expert_used, LLM_MAX_EXPERTS);
    if (h->n_ff_expert < 1 || h->n_ff_shared < 0 || step < 1)
        return llm__cv_fail(cv, "config.json: moe_intermediate_size, shared_expert_intermediate_size or decoder_sparse_step is out of range");
    for (i = 0; i < h->n_layer; i++) h->sparse[i] = (i + 1) % step == 0;
    if (dense && dense->type != JSON_NULL) {
        if (dense->type != JSON_ARRAY) return llm__cv_fail(cv, "config.json: 'mlp_only_layers' must be a list of layer indices");
        for (k = 0; k < dense->len; k++) {
            const json_value *v = &dense->items[k];
            if (!json_is_int(v) || v->number < 0 || v->number >= h->n_layer)
                return llm__cv_fail(cv, "config.json: mlp_only_layers[%d] is not a layer index", (int)k);
            h->sparse[(int)v->number] = 0;
        }
    }
    return 0;
}

/* An embedding model's sentence-transformers files: modules.json lists the modules run after
   the transformer, each a type and a folder. A Pooling module's mode (its folder's
   config.json) and a Normalize module after it become the file's llm.pooling and
   llm.embedding_normalize, what llm_embed does by default. Pooling modes llm_embed lacks,
   or other modules (Dense, ...), are named in a note and leave the file without a pooling. */
static int llm__cv_read_pooling(llm__cv *cv, const char *dir, llm__cv_hparams *h) {
    static const char *const modes[] = { "pooling_mode_mean_tokens", "pooling_mode_lasttoken", "pooling_mode_cls_token",
                                         "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens" };
    char path[4096], sub[2048], err[1024];
    json_value *mods, *cfg = NULL;
    const char *kind = NULL;
    size_t i, k;
    int on = 0, n_on, rc = 0;
    llm__cv_path_join(path, sizeof path, dir, "modules.json");
    if (!llm__cv_file_exists(path)) return 0;
    if (!(mods = json_parse_file_ex(path, JSON_NO_NUL, err, sizeof err))) return llm__cv_json_failed(cv, err);
    if (mods->type != JSON_ARRAY) rc = llm__cv_fail(cv, "%s: not a JSON array (found %s)", path, json_type_name(mods->type));
    for (i = 0; rc == 0 && i < mods->len; i++) {
        const json_value *type = json_get(&mods->items[i], "type"), *folder = json_get(&mods->items[i], "path");
        const char *name;
        if (!type || type->type != JSON_STRING || (folder && folder->type != JSON_STRING)) { rc = llm__cv_fail(cv, "%s: module %d has no type or path", path, (int)i); break; }
        name = strrchr(type->str, '.') ? strrchr(type->str, '.') + 1 : type->str;
        if (!strcmp(name, "Transformer") && i == 0) continue;
        if (!strcmp(name, "Normalize") && h->pooling) { h->embd_normalize = 1; continue; }
        if (strcmp(name, "Pooling") || h->pooling) { kind = type->str; break; }
        snprintf(sub, sizeof sub, "%s/%s", folder ? folder->str : "", "config.json");
        llm__cv_path_join(path, sizeof path, dir, sub);
        if (llm__cv_read_json_object(cv, path, 0, &cfg)) { rc = -1; break; }
        for (k = n_on = 0; k < sizeof modes / sizeof modes[0] && rc == 0; k++)
            if ((rc = llm__cv_cfg_bool(cv, cfg, modes[k], 0, &on)) == 0 && on && ++n_on == 1) {
                h->pooling = k < 3 ? (int)(LLM_POOLING_MEAN + k) : 0;
                kind = k < 3 ? NULL : modes[k];
            }
        if (rc == 0 && (n_on != 1 || !h->pooling)) { /* the mean, last token and cls modes alone are llm_embed's */
            h->pooling = 0;
            kind = n_on > 1 ? "more than one pooling mode" : n_on ? kind : "no pooling mode";
        }
        else if (rc == 0 && (rc = llm__cv_cfg_bool(cv, cfg, "include_prompt", 1, &on)) == 0 && !on)
            llm__cv_log(cv, "note: the pooling leaves out an instruction prompt's tokens (include_prompt false): llm_embed pools every token it is given");
        json_free(cfg);
        cfg = NULL;
        if (kind) break;
    }
    if (rc == 0 && kind) {
        llm__cv_log(cv, "note: modules.json: %s is not run by llm_embed; the file names no pooling", kind);
        h->pooling = h->embd_normalize = 0;
    }
    json_free(mods);
    return rc;
}

/* sentence-transformers' prompts (config_sentence_transformers.json): texts put before a text
   of their kind ("query", ...) before it is embedded, as encode(prompt_name=...) does. Each
   becomes the string llm.embedding_prompt.NAME, and default_prompt_name, which must be one
   of them, llm.embedding_default_prompt. */
static int llm__cv_embedding_prompts(llm__cv *cv, llm_builder *b, const char *dir) {
    char path[4096], key[128];
    json_value *cfg;
    const json_value *prompts, *dflt;
    size_t i;
    int r = 0, rc = 0;
    llm__cv_path_join(path, sizeof path, dir, "config_sentence_transformers.json");
    if (!llm__cv_file_exists(path)) return 0;
    if (llm__cv_read_json_object(cv, path, 0, &cfg)) return -1;
    prompts = json_get(cfg, "prompts");
    dflt = json_get(cfg, "default_prompt_name");
    if (prompts && prompts->type != JSON_OBJECT && prompts->type != JSON_NULL) rc = llm__cv_fail(cv, "%s: 'prompts' is not an object", path);
    for (i = 0; rc == 0 && prompts && prompts->type == JSON_OBJECT && i < prompts->len; i++) {
        const json_value *v = &prompts->items[i];
        if (v->type != JSON_STRING || v->key_len == 0 || v->key_len > 64) { rc = llm__cv_fail(cv, "%s: prompt %d is not a name of 1 to 64 bytes and a text", path, (int)i); break; }
        snprintf(key, sizeof key, "%s%.*s", LLM_KEY_EMBD_PROMPT, (int)v->key_len, v->key);
        r |= llm_builder_set_string(b, key, v->str, v->len) != LLM_OK;
    }
    if (rc == 0 && dflt && dflt->type != JSON_NULL) {
        if (dflt->type != JSON_STRING || !prompts || prompts->type != JSON_OBJECT || !json_get(prompts, dflt->str))
            rc = llm__cv_fail(cv, "%s: default_prompt_name is not one of the prompts", path);
        else r |= llm_builder_set_string(b, LLM_KEY_EMBD_DEFAULT_PROMPT, dflt->str, dflt->len) != LLM_OK;
    }
    json_free(cfg);
    return rc ? rc : r ? llm__cv_oom(cv) : 0;
}

/* config.json (and generation_config.json, which may be NULL) -> hparams. */
static int llm__cv_hparams_from_json(llm__cv *cv, const json_value *cfg, const json_value *gen, llm__cv_hparams *h) {
    const json_value *act;
    const char *act_key;
    int mlp_bias = 0, attn_bias = 0, bidir = 0;
    memset(h, 0, sizeof *h);
    if (cfg->type != JSON_OBJECT) return llm__cv_fail(cv, "config.json: not a JSON object (found %s), so it has no 'model_type'", json_type_name(cfg->type));
    if (llm__cv_read_arch(cv, cfg, h)) return -1;
    /* Gemma 2 and 3's MLP reads hidden_activation only (their configs keep a hidden_act it
       ignores); the others read hidden_act. */
    act_key = h->fam->keys & LLM__CV_KEYS_GEMMA ? "hidden_activation" : "hidden_act";
    act = json_get(cfg, act_key);
    if (act && llm__cv_cfg_str_is(act, "gelu_pytorch_tanh")) h->activation = LLM_ACT_GELU_TANH;
    else if (act && llm__cv_cfg_str_is(act, "gelu")) h->activation = LLM_ACT_GELU;
    else if (act && !llm__cv_cfg_str_is(act, "silu"))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: %s '%s' is not supported (silu, gelu, gelu_pytorch_tanh)", act_key, act->type == JSON_STRING ? act->str : "?");
    else if (!act && h->fam->keys & (LLM__CV_KEYS_GEMMA | LLM__CV_GELU_TANH)) h->activation = LLM_ACT_GELU_TANH; /* the config classes' default */
    if (llm__cv_cfg_int(cv, cfg, "vocab_size", 1, 0, &h->n_vocab) || llm__cv_cfg_int(cv, cfg, "hidden_size", 1, 0, &h->n_embd) ||
        llm__cv_cfg_int(cv, cfg, "intermediate_size", 1, 0, &h->n_ff) || llm__cv_cfg_int(cv, cfg, "num_hidden_layers", 1, 0, &h->n_layer) ||
        llm__cv_cfg_int(cv, cfg, "num_attention_heads", 1, 0, &h->n_head) ||
        llm__cv_cfg_int(cv, cfg, "num_key_value_heads", 0, h->n_head, &h->n_head_kv) ||
        llm__cv_cfg_int(cv, cfg, "max_position_embeddings", 0, h->n_ctx_train, &h->n_ctx_train) ||
        llm__cv_cfg_num(cv, cfg, "rms_norm_eps", 1e-6, &h->rms_eps) || llm__cv_cfg_num(cv, cfg, "rope_theta", 10000.0, &h->rope_theta) ||
        llm__cv_cfg_bool(cv, cfg, "tie_word_embeddings", (h->fam->keys & LLM__CV_TIED) != 0, &h->tied) || llm__cv_cfg_bool(cv, cfg, "mlp_bias", 0, &mlp_bias) ||
        llm__cv_cfg_bool(cv, cfg, "attention_bias", 0, &attn_bias))
        return -1;
    if (h->n_head <= 0 || h->n_layer <= 0 || h->n_layer > LLM_MAX_LAYERS) return llm__cv_fail(cv, "config.json: num_attention_heads/num_hidden_layers out of range");
    /* Qwen3Config and the Gemma configs default head_dim; the others derive it from hidden_size. */
    if (llm__cv_cfg_int(cv, cfg, "head_dim", 0, h->fam->default_head_dim ? h->fam->default_head_dim : h->n_embd / h->n_head, &h->head_dim)) return -1;
    if (mlp_bias) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: mlp_bias true is not supported");
    if (llm__cv_cfg_bool(cv, cfg, "use_bidirectional_attention", 0, &bidir)) return -1;
    if (bidir) /* EmbeddingGemma: every position sees every other, not a causal model */
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "config.json: use_bidirectional_attention true is not supported (causal models only)");
    /* Which projections carry a bias, as each family's modeling code builds them: qwen2
       always on q/k/v, mistral and phi3 never, the others on all four when attention_bias. */
    if (h->fam->bias == LLM__CV_BIAS_NONE) attn_bias = 0;
    h->attn_bias_qkv = h->fam->bias == LLM__CV_BIAS_QKV || attn_bias;
    h->attn_bias_o = h->fam->bias != LLM__CV_BIAS_QKV && attn_bias;
    h->qk_norm = h->fam->qk_norm;
    h->block_norms = h->fam->block_norms;
    h->norm_plus_one = h->fam->norm_plus_one;
    if (llm__cv_read_switches(cv, cfg, h)) return -1;
    return llm__cv_read_rope_scaling(cv, cfg, h) || llm__cv_read_windows(cv, cfg, h) || llm__cv_read_layer_rope(cv, cfg, h) ||
           llm__cv_read_token_ids(cv, gen, cfg, h) || llm__cv_read_experts(cv, cfg, h) ? -1 : 0;
}

static int llm__cv_read_hparams(llm__cv *cv, const char *dir, llm__cv_hparams *h) {
    char path[4096], err[1024];
    json_value *cfg, *gen = NULL;
    int rc;
    memset(h, 0, sizeof *h);
    llm__cv_path_join(path, sizeof path, dir, "config.json");
    if (!(cfg = json_parse_file_ex(path, JSON_NO_NUL, err, sizeof err))) return llm__cv_json_failed(cv, err);
    llm__cv_path_join(path, sizeof path, dir, "generation_config.json");
    if (llm__cv_file_exists(path) && llm__cv_read_json_object(cv, path, 0, &gen)) { json_free(cfg); return -1; }
    rc = llm__cv_hparams_from_json(cv, cfg, gen, h);
    json_free(cfg);
    json_free(gen);
    return rc ? rc : llm__cv_read_pooling(cv, dir, h);
}

/* ---- safetensors ---------------------------------------------------------------------- */
typedef struct llm__cv_src_tensor {
    char *name;
    llm_dtype dtype;
    int n_dims;
    int64_t shape[4];
    int file;           /* index into the shard list */
    uint64_t offset;    /* absolute, in the shard */
    uint64_t size;
} llm__cv_src_tensor;

typedef struct llm__cv_source {
    char **files;
    int n_files;
    char *index;        /* model.safetensors.index.json, when sharded */
    llm__cv_src_tensor *t;
    int n, cap;
} llm__cv_source;

static int llm__cv_parse_st_dtype(const char *s, llm_dtype *out) {
    if (strcmp(s, "F32") == 0) *out = LLM_DTYPE_F32;
    else if (strcmp(s, "F16") == 0) *out = LLM_DTYPE_F16;
    else if (strcmp(s, "BF16") == 0) *out = LLM_DTYPE_BF16;
    else return -1;
    return 0;
}

/* One tensor entry of a safetensors header: dtype, shape and data_offsets, which must lie
   inside the file (the data section starts at data_start). */
static int llm__cv_st_entry(llm__cv *cv, llm__cv_source *src, int file_idx, const json_value *e, uint64_t data_start, uint64_t fsize) {
    const char *path = src->files[file_idx];
    const json_value *dt = json_get(e, "dtype"), *shape = json_get(e, "shape"), *offs = json_get(e, "data_offsets");
    llm__cv_src_tensor t;
    uint64_t b, en, count = 1;
    size_t d;
    memset(&t, 0, sizeof t);
    if (!dt || dt->type != JSON_STRING || !shape || shape->type != JSON_ARRAY || !offs || offs->type != JSON_ARRAY ||
        offs->len != 2 || !json_is_int(&offs->items[0]) || !json_is_int(&offs->items[1]) ||
        offs->items[0].number < 0 || offs->items[1].number < 0)
        return llm__cv_fail(cv, "%s: tensor '%s' has a malformed entry", path, e->key);
    if (llm__cv_parse_st_dtype(dt->str, &t.dtype)) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: tensor '%s' has dtype %s (supported: F32, F16, BF16)", path, e->key, dt->str);
    if (shape->len > 4) return llm__cv_fail(cv, "%s: tensor '%s' has %d dimensions", path, e->key, (int)shape->len);
    t.n_dims = (int)shape->len;
    for (d = 0; d < shape->len; d++) {
        /* 4 dimensions of at most 2^40 elements each could still overflow the product */
        if (!json_is_int(&shape->items[d]) || shape->items[d].number < 1 || shape->items[d].number > 1e12 ||
            count > ((uint64_t)1 << 53) / (uint64_t)shape->items[d].number)
            return llm__cv_fail(cv, "%s: tensor '%s' has a bad shape", path, e->key);
        t.shape[d] = (int64_t)shape->items[d].number;
        count *= (uint64_t)t.shape[d];
    }
    b = (uint64_t)offs->items[0].number;
    en = (uint64_t)offs->items[1].number;
    if (en < b || en - b != count * (t.dtype == LLM_DTYPE_F32 ? 4 : 2) || data_start + en > fsize)
        return llm__cv_fail(cv, "%s: tensor '%s' data_offsets [%llu, %llu) do not match its shape or the file", path, e->key,
                    (unsigned long long)b, (unsigned long long)en);
    if (src->n == src->cap) {
        int cap = src->cap ? src->cap * 2 : 256;
        llm__cv_src_tensor *grown = (llm__cv_src_tensor *)realloc(src->t, (size_t)cap * sizeof *src->t);
        if (!grown) return llm__cv_oom(cv);
        src->t = grown;
        src->cap = cap;
    }
    if (!(t.name = llm__cv_strdup(e->key))) return llm__cv_oom(cv);
    t.file = file_idx;
    t.offset = data_start + b;
    t.size = en - b;
    src->t[src->n++] = t;
    return 0;
}

static int llm__cv_st_offset_cmp(const void *a, const void *b) {
    const llm__cv_src_tensor *x = *(const llm__cv_src_tensor *const *)a, *y = *(const llm__cv_src_tensor *const *)b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static int llm__cv_st_name_cmp(const void *a, const void *b) {
    return strcmp((*(const llm__cv_src_tensor *const *)a)->name, (*(const llm__cv_src_tensor *const *)b)->name);
}

/* Pointers to src->t[first..n), sorted by cmp; NULL (with the message set) when out of memory. */
static const llm__cv_src_tensor **llm__cv_sorted_tensors(llm__cv *cv, const llm__cv_source *src, int first, int (*cmp)(const void *, const void *)) {
    const llm__cv_src_tensor **order = (const llm__cv_src_tensor **)malloc((size_t)(src->n - first + 1) * sizeof *order);
    int i;
    if (!order) { llm__cv_oom(cv); return NULL; }
    for (i = first; i < src->n; i++) order[i - first] = &src->t[i];
    qsort(order, (size_t)(src->n - first), sizeof *order, cmp);
    return order;
}

/* Two tensors sharing bytes would alias each other's weights; the safetensors library
   refuses such a header. The tensors of the file are src->t[first..n). */
static int llm__cv_check_overlap(llm__cv *cv, const llm__cv_source *src, int first, const char *path) {
    const llm__cv_src_tensor **order = llm__cv_sorted_tensors(cv, src, first, llm__cv_st_offset_cmp);
    int i, rc = 0;
    if (!order) return -1;
    for (i = 1; i < src->n - first && rc == 0; i++)
        if (order[i - 1]->offset + order[i - 1]->size > order[i]->offset)
            rc = llm__cv_fail(cv, "%s: tensors '%s' and '%s' overlap", path, order[i - 1]->name, order[i]->name);
    free(order);
    return rc;
}

/* One name twice (in two shards: the JSON reader refuses it twice in one header) would
   give the model file two tensors of that name. */
static int llm__cv_check_unique_names(llm__cv *cv, const llm__cv_source *src) {
    const llm__cv_src_tensor **order = llm__cv_sorted_tensors(cv, src, 0, llm__cv_st_name_cmp);
    int i, rc = 0;
    if (!order) return -1;
    for (i = 1; i < src->n && rc == 0; i++)
        if (strcmp(order[i - 1]->name, order[i]->name) == 0)
            rc = llm__cv_fail(cv, "tensor '%s' is in both %s and %s", order[i]->name, src->files[order[i - 1]->file], src->files[order[i]->file]);
    free(order);
    return rc;
}

/* The JSON header (hlen bytes at hdr) of shard file_idx, a file of fsize bytes. */
static int llm__cv_parse_safetensors_header(llm__cv *cv, llm__cv_source *src, int file_idx, const char *hdr, uint64_t hlen, uint64_t fsize) {
    char err[256];
    json_value *j = json_parse_ex(hdr, (size_t)hlen, JSON_NO_NUL, err, sizeof err);
    size_t i;
    int rc = 0, first = src->n;
    if (!j) return llm__cv_fail(cv, "%s: bad safetensors header JSON: %s", src->files[file_idx], err);
    if (j->type != JSON_OBJECT) rc = llm__cv_fail(cv, "%s: safetensors header is not an object", src->files[file_idx]);
    for (i = 0; rc == 0 && i < j->len; i++)
        if (strcmp(j->items[i].key, "__metadata__") != 0) rc = llm__cv_st_entry(cv, src, file_idx, &j->items[i], 8 + hlen, fsize);
    json_free(j);
    return rc ? rc : llm__cv_check_overlap(cv, src, first, src->files[file_idx]);
}

static int llm__cv_read_safetensors_header(llm__cv *cv, llm__cv_source *src, int file_idx) {
    const char *path = src->files[file_idx];
    FILE *f = fopen(path, "rb");
    unsigned char lenb[8];
    uint64_t hlen, fsize;
    off_t end;
    char *hdr;
    int i, rc;
    if (!f) return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (fseeko(f, 0, SEEK_END) != 0 || (end = ftello(f)) < 0 || fseeko(f, 0, SEEK_SET) != 0) {
        llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read %s: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    fsize = (uint64_t)end;
    if (fread(lenb, 1, 8, f) != 8) {
        if (ferror(f)) llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read %s: %s", path, strerror(errno)); /* a directory: EISDIR */
        else llm__cv_fail(cv, "%s: too short for a safetensors file", path);
        fclose(f);
        return -1;
    }
    hlen = 0;
    for (i = 0; i < 8; i++) hlen |= (uint64_t)lenb[i] << (8 * i);
    if (hlen > fsize - 8 || hlen > (uint64_t)100 << 20) { fclose(f); return llm__cv_fail(cv, "%s: header length %llu is larger than the file", path, (unsigned long long)hlen); }
    hdr = (char *)malloc((size_t)hlen + 1);
    if (!hdr || fread(hdr, 1, (size_t)hlen, f) != (size_t)hlen) {
        if (!hdr) llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "%s: out of memory for the header", path);
        else if (ferror(f)) llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read %s: %s", path, strerror(errno));
        else llm__cv_fail(cv, "%s: shorter than its header length", path);
        free(hdr);
        fclose(f);
        return -1;
    }
    fclose(f);
    rc = llm__cv_parse_safetensors_header(cv, src, file_idx, hdr, hlen, fsize);
    free(hdr);
    return rc;
}

static int llm__cv_open_source(llm__cv *cv, const char *dir, llm__cv_source *src) {
    char path[4096];
    json_value *idx;
    const json_value *map;
    size_t i;
    int k;
    memset(src, 0, sizeof *src);
    llm__cv_path_join(path, sizeof path, dir, "model.safetensors");
    if (llm__cv_file_exists(path)) {
        if (!(src->files = (char **)malloc(sizeof(char *))) || !(src->files[0] = llm__cv_strdup(path))) return llm__cv_oom(cv);
        src->n_files = 1;
        return llm__cv_read_safetensors_header(cv, src, 0);
    }
    llm__cv_path_join(path, sizeof path, dir, "model.safetensors.index.json");
    if (!llm__cv_file_exists(path)) return llm__cv_fail(cv, "%s: no model.safetensors or model.safetensors.index.json", dir);
    if (llm__cv_read_json_object(cv, path, 0, &idx)) return -1;
    if (!(src->index = llm__cv_strdup(path))) { json_free(idx); return llm__cv_oom(cv); }
    map = json_get(idx, "weight_map");
    if (!map || map->type != JSON_OBJECT) { json_free(idx); return llm__cv_fail(cv, "%s: no 'weight_map' object", path); }
    if (!(src->files = (char **)calloc(map->len ? map->len : 1, sizeof(char *)))) { json_free(idx); return llm__cv_oom(cv); }
    for (i = 0; i < map->len; i++) {
        const json_value *fv = &map->items[i];
        char shard[4096];
        if (fv->type != JSON_STRING || strchr(fv->str, '/')) { llm__cv_fail(cv, "%s: weight_map entry '%s' is not a file name", path, fv->key); json_free(idx); return -1; }
        llm__cv_path_join(shard, sizeof shard, dir, fv->str);
        for (k = 0; k < src->n_files; k++) if (strcmp(src->files[k], shard) == 0) break;
        if (k < src->n_files) continue;
        if (!llm__cv_file_exists(shard)) { llm__cv_fail(cv, "%s: names shard '%s', which is missing", path, fv->str); json_free(idx); return -1; }
        if (!(src->files[src->n_files] = llm__cv_strdup(shard))) { json_free(idx); return llm__cv_oom(cv); }
        src->n_files++;
    }
    json_free(idx);
    for (k = 0; k < src->n_files; k++)
        if (llm__cv_read_safetensors_header(cv, src, k)) return -1;
    return llm__cv_check_unique_names(cv, src);
}

/* The file a message about the checkpoint names: the index of shards, or the one file. */
static const char *llm__cv_src_where(const llm__cv_source *src) {
    return src->index ? src->index : src->n_files ? src->files[0] : "the checkpoint";
}

static void llm__cv_free_source(llm__cv_source *src) {
    int i;
    for (i = 0; i < src->n; i++) free(src->t[i].name);
    for (i = 0; i < src->n_files; i++) free(src->files[i]);
    free(src->t);
    free(src->files);
    free(src->index);
}

static const llm__cv_src_tensor *llm__cv_find_src(const llm__cv_source *src, const char *name) {
    int i;
    for (i = 0; i < src->n; i++) if (strcmp(src->t[i].name, name) == 0) return &src->t[i];
    return NULL;
}

/* A sparse layer's tensors (the part of the name after "model.layers.N."): the router, each
   expert's three matrices and, with one, the shared expert and its gate. */
static int llm__cv_is_expert_tensor(const char *rest, const llm__cv_hparams *h) {
    static const char *const proj[] = { "gate_proj.weight", "up_proj.weight", "down_proj.weight" };
    long e = 0;
    size_t i;
    if (!strcmp(rest, "mlp.gate.weight")) return 1;
    if (h->n_ff_shared > 0 && !strcmp(rest, "mlp.shared_expert_gate.weight")) return 1;
    for (i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "mlp.shared_expert.%s", proj[i]);
        if (h->n_ff_shared > 0 && !strcmp(rest, name)) return 1;
    }
    if (strncmp(rest, "mlp.experts.", 12) != 0) return 0;
    rest += 12;
    if (*rest < '0' || *rest > '9' || (rest[0] == '0' && rest[1] != '.')) return 0;
    while (*rest >= '0' && *rest <= '9' && e <= LLM_MAX_EXPERTS) e = e * 10 + (*rest++ - '0');
    if (*rest++ != '.' || e >= h->n_expert) return 0;
    for (i = 0; i < 3; i++) if (!strcmp(rest, proj[i])) return 1;
    return 0;
}

/* The tensor names the library reads; anything else in the checkpoint is refused. */
static int llm__cv_is_model_tensor(const char *name, const llm__cv_hparams *h) {
    static const char *const layer_suffixes[] = {
        "input_layernorm.weight", "post_attention_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
        "self_attn.v_proj.weight", "self_attn.o_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight",
        "mlp.down_proj.weight", "self_attn.q_proj.bias", "self_attn.k_proj.bias", "self_attn.v_proj.bias",
        "self_attn.o_proj.bias", "self_attn.q_norm.weight", "self_attn.k_norm.weight",
        "pre_feedforward_layernorm.weight", "post_feedforward_layernorm.weight", /* 15, 16 */
        "self_attn.qkv_proj.weight", "mlp.gate_up_proj.weight",                   /* 17, 18 */
    };
    int fused = h->fam && h->fam->keys & LLM__CV_FUSED;
    long layer = 0;
    size_t i;
    const char *rest;
    if (!strcmp(name, "model.embed_tokens.weight") || !strcmp(name, "model.norm.weight")) return 1;
    if (!strcmp(name, "lm_head.weight")) return !h->tied;
    /* model.layers.N.SUFFIX, N in decimal as Python writes it */
    if (strncmp(name, "model.layers.", 13) != 0) return 0;
    rest = name + 13;
    if (*rest < '0' || *rest > '9' || (rest[0] == '0' && rest[1] != '.')) return 0;
    while (*rest >= '0' && *rest <= '9' && layer <= LLM_MAX_LAYERS) layer = layer * 10 + (*rest++ - '0');
    if (*rest++ != '.' || layer >= h->n_layer) return 0;
    if (h->sparse && h->sparse[layer] && strncmp(rest, "mlp.", 4) == 0) return llm__cv_is_expert_tensor(rest, h);
    for (i = 0; i < sizeof layer_suffixes / sizeof layer_suffixes[0]; i++) {
        if (strcmp(rest, layer_suffixes[i]) != 0) continue;
        if (i == 0) return h->block_norms != LLM_BLOCK_POST;
        if ((i >= 2 && i <= 4) || i == 6 || i == 7) return !fused;
        if (i >= 9 && i <= 11) return h->attn_bias_qkv;
        if (i == 12) return h->attn_bias_o;
        if (i == 13 || i == 14) return h->qk_norm != LLM_QK_NORM_NONE;
        if (i == 15) return h->block_norms == LLM_BLOCK_SANDWICH;
        if (i == 16) return h->block_norms != LLM_BLOCK_PRE;
        if (i >= 17) return fused;
        return 1;
    }
    return 0;
}

/* Tensors HF checkpoints carry that the forward pass does not read. */
static int llm__cv_is_ignored_tensor(const char *name, const llm__cv_hparams *h) {
    return strstr(name, "rotary_emb.inv_freq") != NULL || (h->tied && strcmp(name, "lm_head.weight") == 0);
}


/* ---- writing -------------------------------------------------------------------------- */
static int llm__cv_write_zeros(FILE *f, uint64_t n) {
    static const char z[4096] = { 0 };
    while (n) {
        size_t k = n < sizeof z ? (size_t)n : sizeof z;
        if (fwrite(z, 1, k, f) != k) return -1;
        n -= k;
    }
    return 0;
}

/* One tensor of the checkpoint, its t->size bytes, read into buf (*in: the shard open, if any,
   *cur: its index). */
static int llm__cv_read_tensor(llm__cv *cv, const llm__cv_source *src, const llm__cv_src_tensor *t, void *buf, FILE **in, int *cur) {
    if (t->file != *cur) {
        if (*in) fclose(*in);
        *cur = -1;
        if (!(*in = fopen(src->files[t->file], "rb"))) return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot open %s: %s", src->files[t->file], strerror(errno));
        *cur = t->file;
    }
    if (fseeko(*in, (off_t)t->offset, SEEK_SET) != 0 || fread(buf, 1, (size_t)t->size, *in) != t->size)
        return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read tensor '%s' from %s: %s", t->name, src->files[t->file], ferror(*in) ? strerror(errno) : "the file is shorter");
    return 0;
}

/* A checkpoint tensor as a matrix: its last dimension the columns. */
static void llm__cv_matrix_shape(const llm__cv_src_tensor *t, int64_t *rows, int64_t *cols) {
    int64_t count = 1;
    int d;
    for (d = 0; d < t->n_dims; d++) count *= t->shape[d];
    *cols = t->shape[t->n_dims - 1];
    *rows = *cols ? count / *cols : 0;
}

/* The switches, each written only when it differs from Llama's value, so that files of the
   four first families keep their bytes. */
static int llm__cv_set_switches(llm_builder *b, const llm__cv_hparams *h) {
    int r = 0;
    if (h->block_norms != LLM_BLOCK_PRE) r |= llm_builder_set_i32(b, LLM_KEY_BLOCK_NORMS, h->block_norms);
    if (h->norm_plus_one) r |= llm_builder_set_i32(b, LLM_KEY_NORM_PLUS_ONE, 1);
    if (h->activation != LLM_ACT_SILU) r |= llm_builder_set_i32(b, LLM_KEY_ACTIVATION, h->activation);
    if (h->embd_scale != 1.0) r |= llm_builder_set_f64(b, LLM_KEY_EMBD_SCALE, h->embd_scale);
    if (h->attn_scale != 0.0) r |= llm_builder_set_f64(b, LLM_KEY_ATTN_SCALE, h->attn_scale);
    if (h->residual_scale != 1.0) r |= llm_builder_set_f64(b, LLM_KEY_RESIDUAL_SCALE, h->residual_scale);
    if (h->logits_divisor != 1.0) r |= llm_builder_set_f64(b, LLM_KEY_LOGITS_DIVISOR, h->logits_divisor);
    if (h->attn_softcap != 0.0) r |= llm_builder_set_f64(b, LLM_KEY_ATTN_SOFTCAP, h->attn_softcap);
    if (h->final_softcap != 0.0) r |= llm_builder_set_f64(b, LLM_KEY_FINAL_SOFTCAP, h->final_softcap);
    if (h->rope_dim != h->head_dim) r |= llm_builder_set_i32(b, LLM_KEY_ROPE_DIM, h->rope_dim);
    if (h->layer_rope) {
        r |= llm_builder_set_i32_array(b, LLM_KEY_LAYER_ROPE, h->layer_rope, (size_t)h->n_layer);
        r |= llm_builder_set_f64(b, LLM_KEY_ROPE_THETA_LOCAL, h->rope_theta_local);
    }
    if (h->rope_scaling == LLM_ROPE_YARN || h->rope_scaling == LLM_ROPE_LONGROPE)
        r |= llm_builder_set_f64(b, LLM_KEY_ROPE_ATTN_FACTOR, h->rope_attn_factor);
    if (h->rope_scaling == LLM_ROPE_YARN) {
        r |= llm_builder_set_f64(b, LLM_KEY_ROPE_BETA_FAST, h->rope_beta_fast);
        r |= llm_builder_set_f64(b, LLM_KEY_ROPE_BETA_SLOW, h->rope_beta_slow);
        r |= llm_builder_set_i32(b, LLM_KEY_ROPE_TRUNCATE, h->rope_truncate);
    }
    if (h->rope_scaling == LLM_ROPE_LONGROPE) {
        uint8_t bytes[2][4 * 512];
        int i, k;
        for (i = 0; i < h->rope_dim / 2; i++)
            for (k = 0; k < 2; k++) {
                uint32_t u;
                memcpy(&u, k ? &h->rope_long[i] : &h->rope_short[i], 4);
                bytes[k][4 * i] = (uint8_t)u; bytes[k][4 * i + 1] = (uint8_t)(u >> 8);
                bytes[k][4 * i + 2] = (uint8_t)(u >> 16); bytes[k][4 * i + 3] = (uint8_t)(u >> 24);
            }
        r |= llm_builder_set_blob(b, LLM_KEY_ROPE_SHORT, bytes[0], (size_t)h->rope_dim * 2);
        r |= llm_builder_set_blob(b, LLM_KEY_ROPE_LONG, bytes[1], (size_t)h->rope_dim * 2);
    }
    return r;
}

/* The mixture-of-experts keys (docs/FORMAT.md); none for a dense model. */
static int llm__cv_set_experts(llm_builder *b, const llm__cv_hparams *h) {
    int r = 0;
    if (h->n_expert == 0) return 0;
    r |= llm_builder_set_i32(b, LLM_KEY_N_EXPERT, h->n_expert);
    r |= llm_builder_set_i32(b, LLM_KEY_N_EXPERT_USED, h->n_expert_used);
    r |= llm_builder_set_i32(b, LLM_KEY_EXPERT_FF, h->n_ff_expert);
    r |= llm_builder_set_i32(b, LLM_KEY_EXPERT_NORM_TOPK, h->norm_topk);
    r |= llm_builder_set_i32(b, LLM_KEY_SHARED_EXPERT_FF, h->n_ff_shared);
    r |= llm_builder_set_i32_array(b, LLM_KEY_EXPERT_LAYERS, h->sparse, (size_t)h->n_layer);
    return r;
}

static int llm__cv_set_hparams(llm__cv *cv, llm_builder *b, const llm__cv_hparams *h) {
    const char *arch = llm__arch_names[h->arch];
    int r = 0, i;
    r |= llm_builder_set_string(b, LLM_KEY_ARCH, arch, strlen(arch));
    r |= llm_builder_set_i32(b, LLM_KEY_N_VOCAB, h->n_vocab);
    r |= llm_builder_set_i32(b, LLM_KEY_N_EMBD, h->n_embd);
    r |= llm_builder_set_i32(b, LLM_KEY_N_FF, h->n_ff);
    r |= llm_builder_set_i32(b, LLM_KEY_N_LAYER, h->n_layer);
    r |= llm_builder_set_i32(b, LLM_KEY_N_HEAD, h->n_head);
    r |= llm_builder_set_i32(b, LLM_KEY_N_HEAD_KV, h->n_head_kv);
    r |= llm_builder_set_i32(b, LLM_KEY_HEAD_DIM, h->head_dim);
    r |= llm_builder_set_i32(b, LLM_KEY_N_CTX_TRAIN, h->n_ctx_train);
    r |= llm_builder_set_f64(b, LLM_KEY_RMS_EPS, h->rms_eps);
    r |= llm_builder_set_f64(b, LLM_KEY_ROPE_THETA, h->rope_theta);
    r |= llm_builder_set_i32(b, LLM_KEY_TIED_EMBEDDINGS, h->tied);
    if (h->no_lm_head) r |= llm_builder_set_i32(b, LLM_KEY_NO_LM_HEAD, 1);
    if (h->pooling) r |= llm_builder_set_i32(b, LLM_KEY_POOLING, h->pooling);
    if (h->embd_normalize) r |= llm_builder_set_i32(b, LLM_KEY_EMBD_NORMALIZE, 1);
    r |= llm_builder_set_i32(b, LLM_KEY_QK_NORM, h->qk_norm);
    r |= llm_builder_set_i32(b, LLM_KEY_ROPE_SCALING, h->rope_scaling);
    if (h->rope_scaling != LLM_ROPE_NONE) {
        r |= llm_builder_set_f64(b, LLM_KEY_ROPE_FACTOR, h->rope_factor);
        r |= llm_builder_set_f64(b, LLM_KEY_ROPE_LOW_FREQ, h->rope_low);
        r |= llm_builder_set_f64(b, LLM_KEY_ROPE_HIGH_FREQ, h->rope_high);
        r |= llm_builder_set_i32(b, LLM_KEY_ROPE_ORIG_CTX, h->rope_orig);
    }
    for (i = 0; i < h->n_layer; i++)
        if (h->window[i]) break;
    if (i < h->n_layer) r |= llm_builder_set_i32_array(b, LLM_KEY_SLIDING_WINDOW, h->window, (size_t)h->n_layer);
    r |= llm__cv_set_switches(b, h);
    r |= llm_builder_set_i32(b, LLM_KEY_BOS_ID, h->bos_id);
    r |= llm_builder_set_i32_array(b, LLM_KEY_EOS_IDS, h->eos, (size_t)h->n_eos);
    r |= llm__cv_set_experts(b, h);
    return r ? llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "cannot build metadata (out of memory)") : 0;
}


#define LLM__CV_MAX_TENSORS 32768 /* Qwen3-30B-A3B has 18k, with its 128 experts a layer */
typedef struct llm__cv_plan {
    const llm__cv_src_tensor *src[LLM__CV_MAX_TENSORS];
    llm_dtype dst[LLM__CV_MAX_TENSORS];
    int n;
    /* The pieces of fused tensors (Phi-3's qkv_proj, gate_up_proj): rows of a source tensor
       under the name of the unfused one; src[i] points at part[i]. */
    llm__cv_src_tensor part[LLM__CV_MAX_TENSORS];
    char part_name[LLM__CV_MAX_TENSORS][96];
} llm__cv_plan;

static int llm__cv_plan_has(const llm__cv_plan *p, const char *name) {
    int i;
    for (i = 0; i < p->n; i++) if (strcmp(p->src[i]->name, name) == 0) return 1;
    return 0;
}

/* A sparse layer's router, experts and shared expert must all be there. */
static int llm__cv_check_experts(llm__cv *cv, const llm__cv_source *src, const llm__cv_hparams *h, int l) {
    static const char *const proj[] = { "gate_proj", "up_proj", "down_proj" };
    char name[256];
    int e, j;
    for (e = -2; e < h->n_expert; e++)
        for (j = 0; j < 3; j++) {
            if (e == -2 && j) break;
            if (e == -1 && h->n_ff_shared == 0) break;
            if (e == -2) snprintf(name, sizeof name, "model.layers.%d.mlp.gate.weight", l);
            else if (e == -1) snprintf(name, sizeof name, "model.layers.%d.mlp.shared_expert.%s.weight", l, proj[j]);
            else snprintf(name, sizeof name, "model.layers.%d.mlp.experts.%d.%s.weight", l, e, proj[j]);
            if (!llm__cv_find_src(src, name)) return llm__cv_fail(cv, "%s: missing tensor '%s'", llm__cv_src_where(src), name);
        }
    snprintf(name, sizeof name, "model.layers.%d.mlp.shared_expert_gate.weight", l);
    if (h->n_ff_shared > 0 && !llm__cv_find_src(src, name)) return llm__cv_fail(cv, "%s: missing tensor '%s'", llm__cv_src_where(src), name);
    return 0;
}

/* A checkpoint of the base model (what AutoModel saves, as embedding models often are)
   names its tensors without "model." and has no LM head: the names take
   the prefix, and an untied one becomes a file without a head (llm_eval refuses it,
   llm_embed runs it). */
static int llm__cv_base_model_names(llm__cv *cv, llm__cv_source *src, llm__cv_hparams *h) {
    int i;
    if (!llm__cv_find_src(src, "embed_tokens.weight") || llm__cv_find_src(src, "model.embed_tokens.weight")) return 0;
    for (i = 0; i < src->n; i++) {
        char *name = src->t[i].name, *out;
        if (!strncmp(name, "model.", 6) || !strcmp(name, "lm_head.weight")) continue;
        if (!(out = (char *)malloc(strlen(name) + 7))) return llm__cv_oom(cv);
        strcpy(out, "model.");
        strcat(out, name);
        free(name);
        src->t[i].name = out;
    }
    if (!h->tied && !llm__cv_find_src(src, "lm_head.weight")) {
        h->no_lm_head = 1;
        llm__cv_log(cv, "note: a base model's checkpoint without an LM head (an embedding model): the file gives embeddings (llm_embed), no logits");
    }
    return llm__cv_check_unique_names(cv, src);
}

/* Mixtral checkpoints name a layer's mixture block_sparse_moe and an expert's matrices w1
   (gate), w3 (up) and w2 (down); they are stored under the names Qwen-MoE uses (and newer
   transformers versions save), which llm.h reads. */
static int llm__cv_rename_experts(llm__cv *cv, llm__cv_source *src, const llm__cv_hparams *h) {
    static const char *const from[] = { ".w1.weight", ".w3.weight", ".w2.weight" };
    static const char *const to[] = { ".gate_proj.weight", ".up_proj.weight", ".down_proj.weight" };
    int i, renamed = 0;
    size_t j;
    if (h->arch != LLM_ARCH_MIXTRAL) return 0;
    for (i = 0; i < src->n; i++) {
        char *name = src->t[i].name, *moe = strstr(name, ".block_sparse_moe."), *out;
        size_t len;
        if (strncmp(name, "model.layers.", 13) != 0 || !moe) continue;
        len = strlen(name);
        if (!(out = (char *)malloc(len + 16))) return llm__cv_oom(cv);
        memcpy(out, name, (size_t)(moe - name));
        strcpy(out + (moe - name), ".mlp.");
        strcat(out, moe + 18);
        for (j = 0; j < 3; j++) {
            size_t n = strlen(out), k = strlen(from[j]);
            if (n > k && strncmp(out, "model.layers.", 13) == 0 && strstr(out, ".mlp.experts.") && !strcmp(out + n - k, from[j])) {
                strcpy(out + n - k, to[j]);
                break;
            }
        }
        free(name);
        src->t[i].name = out;
        renamed = 1;
    }
    return renamed ? llm__cv_check_unique_names(cv, src) : 0;
}

/* Every tensor the config implies must be in the checkpoint (HF would initialise a missing
   one randomly; we refuse). */
static int llm__cv_check_complete(llm__cv *cv, const llm__cv_source *src, const llm__cv_plan *p, const llm__cv_hparams *h) {
    static const char *const always[] = {
        "self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.o_proj.weight",
        "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight",
    };
    static const char *const norms[] = {
        "input_layernorm.weight", "post_attention_layernorm.weight", "pre_feedforward_layernorm.weight", "post_feedforward_layernorm.weight",
    };
    char name[256];
    int l;
    size_t i;
    if (!llm__cv_find_src(src, "model.embed_tokens.weight")) return llm__cv_fail(cv, "%s: missing tensor 'model.embed_tokens.weight'", llm__cv_src_where(src));
    if (!llm__cv_find_src(src, "model.norm.weight")) return llm__cv_fail(cv, "%s: missing tensor 'model.norm.weight'", llm__cv_src_where(src));
    if (!h->tied && !h->no_lm_head && !llm__cv_find_src(src, "lm_head.weight")) return llm__cv_fail(cv, "%s: missing tensor 'lm_head.weight' (tie_word_embeddings is false)", llm__cv_src_where(src));
    for (l = 0; l < h->n_layer; l++) {
        if (h->sparse && h->sparse[l] && llm__cv_check_experts(cv, src, h, l)) return -1;
        for (i = 0; i < sizeof always / sizeof always[0]; i++) {
            if (h->sparse && h->sparse[l] && strncmp(always[i], "mlp.", 4) == 0) continue;
            snprintf(name, sizeof name, "model.layers.%d.%s", l, always[i]);
            if (!llm__cv_plan_has(p, name))
                return llm__cv_fail(cv, "%s: missing tensor '%s'%s", llm__cv_src_where(src), name,
                                    h->fam->keys & LLM__CV_FUSED ? " (or the fused qkv_proj / gate_up_proj it is cut from)" : "");
        }
        for (i = 0; i < sizeof norms / sizeof norms[0]; i++) {
            int want = i == 0 ? h->block_norms != LLM_BLOCK_POST : i == 2 ? h->block_norms == LLM_BLOCK_SANDWICH
                     : i == 3 ? h->block_norms != LLM_BLOCK_PRE : 1;
            snprintf(name, sizeof name, "model.layers.%d.%s", l, norms[i]);
            if (want && !llm__cv_find_src(src, name)) return llm__cv_fail(cv, "%s: missing tensor '%s'", llm__cv_src_where(src), name);
        }
        for (i = 0; i < 4; i++) {
            static const char *const proj[] = { "q", "k", "v", "o" };
            int want = i < 3 ? h->attn_bias_qkv : h->attn_bias_o;
            snprintf(name, sizeof name, "model.layers.%d.self_attn.%s_proj.bias", l, proj[i]);
            if (want && !llm__cv_find_src(src, name)) return llm__cv_fail(cv, "%s: missing tensor '%s'", llm__cv_src_where(src), name);
        }
        for (i = 0; i < 2 && h->qk_norm; i++) {
            snprintf(name, sizeof name, "model.layers.%d.self_attn.%s_norm.weight", l, i ? "k" : "q");
            if (!llm__cv_find_src(src, name)) return llm__cv_fail(cv, "%s: missing tensor '%s'", llm__cv_src_where(src), name);
        }
    }
    return 0;
}

/* The type of a weight matrix when `want` is asked for. Quantized types need rows in groups of
   16 and columns in blocks of 32 (else f16). With q4_0, the embedding and output matrices of
   vocabularies up to 64k stay q8_0: the output matrix is the most sensitive to rounding and,
   for such vocabularies, a small part of the bytes read per token. */
static llm_dtype llm__cv_matrix_dtype(const llm__cv_src_tensor *t, const llm__cv_hparams *h, llm_dtype want) {
    int64_t rows = 1;
    int d;
    for (d = 0; d < t->n_dims - 1; d++) rows *= t->shape[d];
    /* A router's rows are few, and rounding them to 4 or 8 bits could change which experts
       a token gets: they stay f32 when a quantized type is asked for. */
    if (llm__is_quant(want) && (strstr(t->name, ".mlp.gate.weight") || strstr(t->name, ".mlp.shared_expert_gate.weight")))
        return LLM_DTYPE_F32;
    if (want == LLM_DTYPE_Q4_0 && h->n_vocab <= 65536 &&
        (!strcmp(t->name, "model.embed_tokens.weight") || !strcmp(t->name, "lm_head.weight")))
        want = LLM_DTYPE_Q8_0;
    if (rows % llm_dtype_row_group(want) || llm_dtype_row_bytes(want, t->shape[t->n_dims - 1]) == 0) return LLM_DTYPE_F16;
    return want;
}

/* llama.cpp's use_more_bits (src/llama-quant.cpp): the first and last eighth of the layers
   and every third one between get more bits in its _M mixes. */
static int llm__cv_more_bits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

/* The layer of a "model.layers.N." tensor, else -1. */
static int llm__cv_layer_of(const char *name) {
    int l = 0;
    if (strncmp(name, "model.layers.", 13) || name[13] < '0' || name[13] > '9') return -1;
    for (name += 13; *name >= '0' && *name <= '9' && l < 1000000; name++) l = l * 10 + (*name - '0');
    return *name == '.' ? l : -1;
}

static int llm__cv_ends_with(const char *s, const char *end) {
    size_t n = strlen(s), k = strlen(end);
    return n >= k && !strcmp(s + n - k, end);
}

/* A weight matrix when a k-quant type is asked for, as llama.cpp's k-quant files are made:
   the output matrix (the embedding when tied) q6_k; with the _M recipe attn_v and ffn_down
   q6_k in the layers llm__cv_more_bits picks, and a width that is not a multiple of 256 one
   step up, where llama.cpp's types cannot hold it and it falls back to more bits (Q4_K ->
   Q5_0, Q5_K -> Q5_1): q4_k -> q5_k, q5_k -> q6_k. (llm.h's k-quants hold any multiple of 32,
   so a plain --dtype q4_k keeps them q4_k, and q6_k stays q6_k where llama.cpp takes Q8_0.) */
static llm_dtype llm__cv_kquant_dtype(const llm__cv_src_tensor *t, const llm__cv_hparams *h, llm_dtype want, int recipe) {
    int layer = llm__cv_layer_of(t->name);
    if (!strcmp(t->name, "lm_head.weight") || (h->tied && !strcmp(t->name, "model.embed_tokens.weight"))) want = LLM_DTYPE_Q6_K;
    else if (recipe == LLM_RECIPE_K_M && layer >= 0 && llm__cv_more_bits(layer, h->n_layer) &&
             (llm__cv_ends_with(t->name, ".self_attn.v_proj.weight") || llm__cv_ends_with(t->name, ".mlp.down_proj.weight")))
        want = LLM_DTYPE_Q6_K;
    if (recipe == LLM_RECIPE_K_M && t->shape[t->n_dims - 1] % LLM__QKK)
        want = want == LLM_DTYPE_Q4_K ? LLM_DTYPE_Q5_K : want == LLM_DTYPE_Q5_K ? LLM_DTYPE_Q6_K : want;
    return llm__cv_matrix_dtype(t, h, want);
}

/* The stored type of a weight matrix when a type is asked for. */
static llm_dtype llm__cv_weight_dtype(const llm__cv_src_tensor *t, const llm__cv_hparams *h, llm_dtype want, int recipe) {
    return llm__is_kquant(want) ? llm__cv_kquant_dtype(t, h, want, recipe) : llm__cv_matrix_dtype(t, h, want);
}

/* A fused matrix cut into rows, as Phi-3's modeling code splits its output: qkv_proj into
   q (n_head x head_dim rows), k and v (n_kv_head x head_dim each); gate_up_proj into gate and
   up (intermediate_size each, gate first). Returns the number of pieces, 0 when t is not fused. */
static int llm__cv_split(const llm__cv_src_tensor *t, const llm__cv_hparams *h, const char **suffix, int64_t *rows) {
    if (strstr(t->name, "self_attn.qkv_proj.weight")) {
        suffix[0] = "self_attn.q_proj.weight"; suffix[1] = "self_attn.k_proj.weight"; suffix[2] = "self_attn.v_proj.weight";
        rows[0] = (int64_t)h->n_head * h->head_dim; rows[1] = rows[2] = (int64_t)h->n_head_kv * h->head_dim;
        return 3;
    }
    if (strstr(t->name, "mlp.gate_up_proj.weight")) {
        suffix[0] = "mlp.gate_proj.weight"; suffix[1] = "mlp.up_proj.weight";
        rows[0] = rows[1] = h->n_ff;
        return 2;
    }
    return 0;
}

/* Adds the pieces of fused tensor t to the plan under their unfused names. */
static int llm__cv_plan_split(llm__cv *cv, const llm__cv_source *src, const llm__cv_src_tensor *t, const llm__cv_hparams *h, llm__cv_plan *p,
                              int has_dtype, llm_dtype want, int recipe) {
    const char *suffix[3];
    int64_t rows[3], first = 0, total = 0;
    int k, n = llm__cv_split(t, h, suffix, rows);
    size_t es = t->dtype == LLM_DTYPE_F32 ? 4 : 2, prefix = (size_t)(strstr(t->name, n == 3 ? "self_attn." : "mlp.") - t->name);
    for (k = 0; k < n; k++) total += rows[k];
    if (t->n_dims != 2 || t->shape[0] != total || t->shape[1] != h->n_embd)
        return llm__cv_fail(cv, "%s: tensor '%s' has shape [%lld, %lld], expected [%lld, %d]", src->files[t->file], t->name,
                            (long long)t->shape[0], (long long)(t->n_dims > 1 ? t->shape[1] : 0), (long long)total, h->n_embd);
    for (k = 0; k < n; k++) {
        llm__cv_src_tensor *part = &p->part[p->n];
        if (p->n == (int)(sizeof p->src / sizeof p->src[0])) return llm__cv_fail(cv, "%s: more than %d tensors", llm__cv_src_where(src), (int)(sizeof p->src / sizeof p->src[0]));
        *part = *t;
        snprintf(p->part_name[p->n], sizeof p->part_name[p->n], "%.*s%s", (int)prefix, t->name, suffix[k]);
        part->name = p->part_name[p->n];
        part->shape[0] = rows[k];
        part->offset = t->offset + (uint64_t)first * (uint64_t)t->shape[1] * es;
        part->size = (uint64_t)rows[k] * (uint64_t)t->shape[1] * es;
        first += rows[k];
        p->src[p->n] = part;
        p->dst[p->n] = has_dtype ? llm__cv_weight_dtype(part, h, want, recipe) : t->dtype;
        p->n++;
    }
    return 0;
}

static int llm__cv_plan_tensors(llm__cv *cv, const llm__cv_source *src, const llm__cv_hparams *h, int has_dtype, llm_dtype want, int recipe, llm__cv_plan *p) {
    int i;
    const char *suffix[3];
    int64_t rows[3];
    p->n = 0;
    for (i = 0; i < src->n; i++) {
        const llm__cv_src_tensor *t = &src->t[i];
        if (llm__cv_is_ignored_tensor(t->name, h)) continue;
        if (!llm__cv_is_model_tensor(t->name, h))
            return llm__cv_fail(cv, "%s: tensor '%s' is not part of a %s model with this config.json", src->files[t->file], t->name,
                                h->fam->model_type);
        if (h->fam->keys & LLM__CV_FUSED && llm__cv_split(t, h, suffix, rows)) {
            if (llm__cv_plan_split(cv, src, t, h, p, has_dtype, want, recipe)) return -1;
            continue;
        }
        if (p->n == (int)(sizeof p->src / sizeof p->src[0])) return llm__cv_fail(cv, "%s: more than %d tensors", llm__cv_src_where(src), (int)(sizeof p->src / sizeof p->src[0]));
        p->src[p->n] = t;
        /* Norms and biases stay f32; matrices take the requested type (or keep their own). */
        p->dst[p->n] = t->n_dims == 1 ? LLM_DTYPE_F32 : !has_dtype ? t->dtype :
                       llm__cv_weight_dtype(t, h, want, recipe);
        p->n++;
    }
    return llm__cv_check_complete(cv, src, p, h);
}

/* Gemma multiplies the embeddings by sqrt(hidden_size) rounded to the weights' dtype
   (transformers: torch.tensor(hidden_size ** 0.5, dtype=embedding dtype)). */
static void llm__cv_embd_scale(const llm__cv_source *src, llm__cv_hparams *h) {
    const llm__cv_src_tensor *e = llm__cv_find_src(src, "model.embed_tokens.weight");
    float v;
    if (!(h->fam->keys & LLM__CV_EMBD_SQRT) || !e) return;
    v = (float)sqrt((double)h->n_embd);
    if (e->dtype == LLM_DTYPE_BF16) v = llm_bf16_to_f32(llm_f32_to_bf16(v));
    else if (e->dtype == LLM_DTYPE_F16) v = llm_f16_to_f32(llm_f32_to_f16(v));
    h->embd_scale = v;
}

/* The keys of a vocab-only file: h's bos and eos ids, and the vocabulary size (0: not given). */
static int llm__cv_put_vocab_only(llm__cv *cv, llm_builder *b, const llm__cv_hparams *h, int vocab) {
    int r = llm_builder_set_i32(b, LLM_KEY_VOCAB_ONLY, 1);
    if (vocab > 0) r |= llm_builder_set_i32(b, LLM_KEY_N_VOCAB, vocab);
    r |= llm_builder_set_i32(b, LLM_KEY_BOS_ID, h->bos_id);
    r |= llm_builder_set_i32_array(b, LLM_KEY_EOS_IDS, h->eos, (size_t)h->n_eos);
    return r ? llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "cannot build metadata (out of memory)") : 0;
}

/* A vocab-only file: the tokenizer and what config.json / generation_config.json say of ids. */
static int llm__cv_set_vocab_only(llm__cv *cv, llm_builder *b, const char *dir, const llm__cv_tok_data *td) {
    char path[4096];
    json_value *cfg = NULL, *gen = NULL;
    llm__cv_hparams h;
    int r = 0, vocab = 0;
    memset(&h, 0, sizeof h);
    h.bos_id = -1;
    llm__cv_path_join(path, sizeof path, dir, "config.json");
    if (llm__cv_file_exists(path) && llm__cv_read_json_object(cv, path, 0, &cfg)) return -1;
    llm__cv_path_join(path, sizeof path, dir, "generation_config.json");
    if (llm__cv_file_exists(path) && llm__cv_read_json_object(cv, path, 0, &gen)) { json_free(cfg); return -1; }
    r = llm__cv_read_token_ids(cv, gen, cfg, &h) || llm__cv_cfg_int(cv, cfg, "vocab_size", 0, 0, &vocab) || (td && vocab > 0 && llm__cv_tok_check_vocab_size(cv, td, vocab));
    json_free(cfg);
    json_free(gen);
    return r ? -1 : llm__cv_put_vocab_only(cv, b, &h, vocab);
}


/* ---- llm_convert: the output file ---- */
/* rename() replaces whatever OUT names: a device or a directory is refused before any
   work (a link to a regular file is replaced as a link, its target untouched). */
static int llm__cv_check_target(llm__cv *cv, const char *out) {
    struct stat st;
    if (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) return llm__cv_fail(cv, "%s exists and is not a regular file", out);
    return 0;
}

/* The caller's on_temp learns of the name before the open, so that no signal finds the file
   made and not yet known (one landing right after a refused open removes an entry of this
   process's own temporary name), and of its end. */
static void llm__cv_temp_is(llm__cv *cv, const char *path) {
    cv->tmp_live = path != NULL;
    if (cv->desc->on_temp) cv->desc->on_temp(cv->desc->user, path);
}

static void llm__cv_temp_gone(llm__cv *cv) { llm__cv_temp_is(cv, NULL); }

/* A new file beside out (out.tmp.PID.N), created exclusively: a planted file or link of
   that name is never opened or followed, only skipped. */
static FILE *llm__cv_create_temp(llm__cv *cv, const char *out) {
    FILE *f;
    int n, fd = -1;
    for (n = 0; n < 1000; n++) {
        llm__cv_temp_gone(cv);
        snprintf(cv->tmp, sizeof cv->tmp, "%s.tmp.%ld.%d", out, (long)llm__cv_getpid(), n);
        llm__cv_temp_is(cv, cv->tmp);
#if defined(_WIN32)
        fd = _open(cv->tmp, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
#else
        fd = open(cv->tmp, O_WRONLY | O_CREAT | O_EXCL, 0644); /* less the umask */
#endif
        if (fd >= 0 || errno != EEXIST) break;
    }
    if (fd < 0) { llm__cv_temp_gone(cv); llm__cv_fail_as(cv, LLM_ERR_IO, "cannot create %s: %s", cv->tmp, strerror(errno)); return NULL; }
#if defined(_WIN32)
    f = _fdopen(fd, "wb");
#else
    f = fdopen(fd, "wb");
#endif
    if (!f) {
        llm__cv_fail_as(cv, LLM_ERR_IO, "cannot create %s: %s", cv->tmp, strerror(errno));
        close(fd);
        remove(cv->tmp);
        llm__cv_temp_gone(cv);
    }
    return f;
}

static void llm__cv_remove_temp(llm__cv *cv) {
    if (cv->tmp_live) remove(cv->tmp);
    llm__cv_temp_gone(cv);
}

/* ---- llm_convert: the tensors ----------------------------------------------------------
   The tensors are cut into units of whole 16-row groups (up to LLM__CV_UNIT values each) that
   the threads take in order from one counter; the thread that takes a unit finds its rows in
   the mapped shard (else reads them), converts them and writes them at their place in the
   file. The threads wait for one another only at the end (OpenMP's waiting threads spin, and
   a spinning thread holds a CPU that a preempted one needs), and each unit's bytes are the
   same whichever thread converts it. The caller's thread reports the tensors, in order, as
   they are done. */
#define LLM__CV_UNIT (1 << 18)

typedef struct llm__cv_job {
    llm__cv *cv;
    const llm__cv_source *src;
    const llm__file_view *views;  /* the shards; data NULL: not mapped */
    const llm__cv_plan *p;
    llm_builder *b;
    FILE *out, *in;               /* the output; the shard being read (not mapped) */
    int cur_file;
    int64_t *first;               /* tensor i's units are first[i] .. first[i + 1] - 1 */
    int64_t *unit_rows;           /* rows a unit of tensor i */
    int *done;                    /* tensor i's units finished (atomic) */
    int64_t next;                 /* the next unit (atomic) */
    int failed;                   /* a unit failed: its message is in cv (atomic) */
    int reported;                 /* tensors reported (the caller's thread) */
    int n_threads;
    size_t in_bytes, out_bytes, f32_count; /* each thread's buffers: */
    uint8_t *inb, *outb;
    float *f32;
} llm__cv_job;

static void llm__cv_job_free(llm__cv_job *j) {
    if (j->in) fclose(j->in);
    free(j->first); free(j->unit_rows); free(j->done); free(j->inb); free(j->outb); free(j->f32);
    memset(j, 0, sizeof *j);
}

/* Cuts the tensors into units and allocates each thread's buffers for the largest. */
static int llm__cv_job_init(llm__cv *cv, llm__cv_job *j, const llm__cv_source *src, const llm__file_view *views, const llm__cv_plan *p,
                            llm_builder *b, FILE *out) {
    int i;
    j->cv = cv; j->src = src; j->views = views; j->p = p; j->b = b; j->out = out; j->cur_file = -1;
    j->n_threads = llm__cv_max_threads();
    j->first = (int64_t *)calloc((size_t)p->n + 1, sizeof *j->first);
    j->unit_rows = (int64_t *)calloc((size_t)p->n + 1, sizeof *j->unit_rows);
    j->done = (int *)calloc((size_t)p->n + 1, sizeof *j->done);
    if (!j->first || !j->unit_rows || !j->done) return llm__cv_oom(cv);
    for (i = 0; i < p->n; i++) {
        const llm__cv_src_tensor *t = p->src[i];
        int64_t rows, cols, ur;
        size_t sb = t->dtype == LLM_DTYPE_F32 ? 4 : 2, rb, ib, ob;
        llm__cv_matrix_shape(t, &rows, &cols);
        rb = llm_dtype_row_bytes(p->dst[i], cols);
        if (!llm__cv_shape_ok(p->dst[i], rows, cols) || (uint64_t)rows * (uint64_t)cols * sb != t->size)
            return llm__cv_fail(cv, "tensor '%s': cannot convert %s to %s", t->name, llm_dtype_name(t->dtype), llm_dtype_name(p->dst[i]));
        if (views[t->file].data && (t->offset > views[t->file].size || t->size > views[t->file].size - t->offset))
            return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read tensor '%s' from %s: the file is shorter", t->name, src->files[t->file]);
        ur = LLM__CV_UNIT / (LLM__QG * cols) * LLM__QG;
        ur = ur < LLM__QG ? LLM__QG : ur > rows ? rows : ur;
        j->unit_rows[i] = ur;
        j->first[i + 1] = j->first[i] + (rows + ur - 1) / ur;
        ib = views[t->file].data ? 0 : (size_t)ur * (size_t)cols * sb;
        ob = (size_t)ur * rb;
        j->in_bytes = ib > j->in_bytes ? ib : j->in_bytes;
        j->out_bytes = ob > j->out_bytes ? ob : j->out_bytes;
        j->f32_count = (size_t)(LLM__QG * cols) > j->f32_count ? (size_t)(LLM__QG * cols) : j->f32_count;
    }
    j->inb = (uint8_t *)malloc((size_t)j->n_threads * (j->in_bytes ? j->in_bytes : 1));
    j->outb = (uint8_t *)malloc((size_t)j->n_threads * (j->out_bytes ? j->out_bytes : 1));
    j->f32 = (float *)malloc((size_t)j->n_threads * (j->f32_count ? j->f32_count : 1) * sizeof(float));
    if (!j->inb || !j->outb || !j->f32) return llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory for the tensors");
    return 0;
}

static int64_t llm__cv_atomic_next(int64_t *counter) {
    int64_t v;
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp atomic capture
#endif
    v = (*counter)++;
    return v;
}

static int llm__cv_atomic_get(int *v) {
    int r;
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp atomic read
#endif
    r = *v;
    return r;
}

/* Unit u of tensor i (the u-th of its units), by thread k. */
static int llm__cv_job_unit(llm__cv_job *j, int i, int64_t u, int k) {
    const llm__cv_src_tensor *t = j->p->src[i];
    llm_dtype dt = j->p->dst[i];
    int64_t rows, cols, r0 = u * j->unit_rows[i], n;
    size_t sb = t->dtype == LLM_DTYPE_F32 ? 4 : 2, rb, ib, ob;
    const uint8_t *data;
    uint8_t *o = j->outb + (size_t)k * j->out_bytes;
    int rc = 0;
    llm__cv_matrix_shape(t, &rows, &cols);
    n = rows - r0 < j->unit_rows[i] ? rows - r0 : j->unit_rows[i];
    rb = llm_dtype_row_bytes(dt, cols);
    ib = (size_t)n * (size_t)cols * sb;
    ob = (size_t)n * rb;
    if (j->views[t->file].data) {
        data = (const uint8_t *)j->views[t->file].data + t->offset + (size_t)r0 * (size_t)cols * sb;
    } else {
        uint8_t *in = j->inb + (size_t)k * j->in_bytes;
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp critical(llm__cv_read)
#endif
        {
            llm__cv_src_tensor part = *t;
            part.offset += (uint64_t)r0 * (uint64_t)cols * sb;
            part.size = ib;
            rc = llm__cv_read_tensor(j->cv, j->src, &part, in, &j->in, &j->cur_file);
        }
        if (rc) return rc;
        data = in;
    }
    llm__cv_convert_rows(j->cv->qgroup, t->dtype, data, dt, n, cols, o, j->cv->desc->quantize_flags & 0xff, j->f32 + (size_t)k * j->f32_count);
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp critical(llm__cv_write)
#endif
    {
        uint64_t at = llm_builder_tensor_offset(j->b, (size_t)i) + (uint64_t)r0 * rb;
        if (fseeko(j->out, (off_t)at, SEEK_SET) != 0 || fwrite(o, 1, ob, j->out) != ob)
            rc = llm__cv_fail_as(j->cv, LLM_ERR_IO, "%s: write failed (%s)", j->cv->tmp, strerror(errno));
    }
    return rc;
}

/* Reports the tensors done so far, in order (the caller's thread). */
static void llm__cv_job_report(llm__cv_job *j) {
    llm_convert_progress *pg = &j->cv->pg;
    while (j->reported < j->p->n && llm__cv_atomic_get(&j->done[j->reported]) == (int)(j->first[j->reported + 1] - j->first[j->reported])) {
        const llm__cv_src_tensor *t = j->p->src[j->reported];
        pg->name = t->name; pg->src_dtype = t->dtype; pg->dtype = j->p->dst[j->reported];
        pg->n_dims = t->n_dims; pg->shape = t->shape; pg->bytes = llm_builder_tensor_size(j->b, (size_t)j->reported);
        pg->n_done++; pg->bytes_done += pg->bytes;
        if (j->cv->desc->progress) j->cv->desc->progress(j->cv->desc->user, pg);
        j->reported++;
    }
}

/* Converts and writes every tensor, then the zeros between and after them. */
static int llm__cv_job_run(llm__cv_job *j) {
    int64_t total = j->first[j->p->n];
    int i;
    llm__cv_qgroup(j->cv);
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp parallel
#endif
    {
        int k = llm__cv_thread(), ti = 0;
        int64_t u;
        while ((u = llm__cv_atomic_next(&j->next)) < total) {
            while (j->first[ti + 1] <= u) ti++;
            if (!llm__cv_atomic_get(&j->failed) && llm__cv_job_unit(j, ti, u - j->first[ti], k)) {
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp atomic write
#endif
                j->failed = 1;
            }
#if defined(_OPENMP) && !defined(LLM_NO_THREADS)
#pragma omp atomic update
#endif
            j->done[ti]++;
            if (k == 0 && !llm__cv_atomic_get(&j->failed)) llm__cv_job_report(j);
        }
    }
    if (j->failed) return -1;
    llm__cv_job_report(j);
    for (i = 0; i < j->p->n; i++) { /* the padding after each tensor */
        uint64_t end = llm_builder_tensor_offset(j->b, (size_t)i) + llm_builder_tensor_size(j->b, (size_t)i);
        uint64_t next = i + 1 < j->p->n ? llm_builder_tensor_offset(j->b, (size_t)i + 1) : llm_builder_file_size(j->b);
        if (next > end && (fseeko(j->out, (off_t)end, SEEK_SET) != 0 || llm__cv_write_zeros(j->out, next - end)))
            return llm__cv_fail_as(j->cv, LLM_ERR_IO, "%s: write failed (%s)", j->cv->tmp, strerror(errno));
    }
    return 0;
}

/* Builds the file and writes it to a new temporary beside out (cv->tmp). */
static int llm__cv_write_model(llm__cv *cv, const char *out_path, const char *dir, const llm__cv_source *src, const llm__cv_plan *p, const llm__cv_hparams *h,
                       const llm__cv_tok_data *td, uint64_t *out_bytes) {
    llm_builder *b = NULL;
    FILE *out = NULL;
    const void *hdr;
    size_t hdr_size, idx;
    llm__file_view *views = NULL;
    llm__cv_job job;
    int i, rc = -1;
    const char *tmp = cv->tmp;
    llm_convert_progress *pg = &cv->pg;
    memset(&job, 0, sizeof job);
    if (llm_builder_create(&b) != LLM_OK) { llm__cv_oom(cv); goto done; }
    if ((h ? llm__cv_set_hparams(cv, b, h) : llm__cv_set_vocab_only(cv, b, dir, td)) || (td && llm__cv_tok_write(cv, b, td)) || llm__cv_convert_chat(cv, b, dir) ||
        (h && llm__cv_embedding_prompts(cv, b, dir)))
        goto done;
    for (i = 0; i < p->n; i++)
        if (llm_builder_add_tensor(b, p->src[i]->name, p->dst[i], p->src[i]->n_dims, p->src[i]->shape, &idx) != LLM_OK)
            { llm__cv_fail(cv, "cannot add tensor '%s'", p->src[i]->name); goto done; }
    if (llm_builder_header(b, &hdr, &hdr_size) != LLM_OK) { llm__cv_fail(cv, "cannot lay out the file"); goto done; }
    pg->n_total = p->n;
    for (i = 0; i < p->n; i++) pg->bytes_total += llm_builder_tensor_size(b, (size_t)i);
    if (!(out = llm__cv_create_temp(cv, out_path))) goto done;
    if (fwrite(hdr, 1, hdr_size, out) != hdr_size) { llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", tmp, strerror(errno)); goto done; }
    /* The shards, mapped where the platform can (LLM_NO_MMAP: the rows are read as needed). */
    if (!(views = (llm__file_view *)calloc((size_t)(src->n_files ? src->n_files : 1), sizeof *views))) { llm__cv_oom(cv); goto done; }
#if !defined(LLM_NO_MMAP)
    for (i = 0; i < src->n_files; i++) {
        char err[512];
        if (llm__map_file(src->files[i], NULL, 0, &views[i], err, sizeof err) != LLM_OK) { llm__cv_fail_as(cv, LLM_ERR_IO, "%s", err); goto done; }
    }
#endif
    if (llm__cv_job_init(cv, &job, src, views, p, b, out) || llm__cv_job_run(&job)) goto done;
    if (fflush(out) != 0 || ferror(out)) { llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", tmp, strerror(errno)); goto done; }
    *out_bytes = llm_builder_file_size(b);
    rc = 0;
done:
    if (out && fclose(out) != 0 && rc == 0) rc = llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", tmp, strerror(errno));
    llm__cv_job_free(&job);
    for (i = 0; views && i < src->n_files; i++) llm__unmap_file(&views[i], NULL);
    free(views);
    llm_builder_destroy(b);
    return rc;
}

static void llm__cv_log_to_err(void *user, const char *msg) {
    llm__cv *cv = (llm__cv *)user;
    snprintf(cv->msg, sizeof cv->msg, "%s: the written file does not validate: %s", cv->out, msg);
}

/* Opens the temporary at path as the output (cv->out names it in messages). */
static int llm__cv_validate(llm__cv *cv, const char *path, int vocab_only, llm_model_info *info) {
    llm_model *m;
    llm_model_desc d;
    llm_result r;
    memset(&d, 0, sizeof d);
    d.log = llm__cv_log_to_err;
    d.log_user = cv;
    d.vocab_only = vocab_only;
    if ((r = llm_model_open(&m, path, &d)) != LLM_OK) { cv->rc = r; return -1; }
    *info = *llm_model_info_get(m);
    llm_model_close(m);
    return 0;
}


/* Writes one converted tensor at its offset (zeros up to it) and reports it to the progress
   callback; *pos is where the file ends so far. */
static int llm__cv_put_tensor(llm__cv *cv, FILE *out, uint64_t *pos, uint64_t off, const uint8_t *buf, uint64_t size,
                              const char *name, llm_dtype src, int n_dims, const int64_t *shape, llm_dtype dtype) {
    llm_convert_progress *pg = &cv->pg;
    if (llm__cv_write_zeros(out, off - *pos) || fwrite(buf, 1, (size_t)size, out) != size)
        return llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", cv->tmp, strerror(errno));
    *pos = off + size;
    pg->name = name; pg->src_dtype = src; pg->dtype = dtype;
    pg->n_dims = n_dims; pg->shape = shape; pg->bytes = size;
    pg->n_done++; pg->bytes_done += size;
    if (cv->desc->progress) cv->desc->progress(cv->desc->user, pg);
    return 0;
}

/* After the temporary file is written (written: 0 when that failed; bytes: its size): validates it, puts it in
   place of out and reports the finished file; a failure removes the temporary file. */
static void llm__cv_put_in_place(llm__cv *cv, int written, const char *out, int vocab_only, uint64_t bytes) {
    llm_model_info info;
    if (!written || llm__cv_validate(cv, cv->tmp, vocab_only, &info)) {
        llm__cv_remove_temp(cv);
        return;
    }
    if (llm__cv_replace_file(cv->tmp, out) != 0) {
        llm__cv_fail_as(cv, LLM_ERR_IO, "cannot rename %s to %s: %s", cv->tmp, out, strerror(errno));
        llm__cv_remove_temp(cv);
        return;
    }
    llm__cv_temp_gone(cv);
    cv->pg.name = NULL;
    cv->pg.info = &info;
    cv->pg.file_size = bytes;
    if (cv->desc->progress) cv->desc->progress(cv->desc->user, &cv->pg);
    cv->pg.info = NULL;
}

/* GGUF files (llama.cpp's format) come in through tools/llm_gguf.h, .llm files to be given
   another type through tools/llm_retype.h. */
#include "llm_gguf.h"
#include "llm_retype.h"

/* ---- llm_convert: the one call ---------------------------------------------------------- */
static llm_result llm__cv_finish(llm__cv *cv, char *err, size_t err_cap) {
    if (err && err_cap) snprintf(err, err_cap, "%s", cv->rc ? cv->msg : "");
    return cv->rc;
}

static llm_result llm__cv_run(llm__cv *cv, const char *dir, const char *out) {
    const llm_convert_desc *d = cv->desc;
    llm__cv_hparams h;
    llm__cv_source src;
    llm__cv_plan *p = NULL;
    llm__cv_tok_data td;
    uint64_t bytes = 0;
    int no_tokenizer, written;
    memset(&src, 0, sizeof src);
    memset(&h, 0, sizeof h);
    memset(&td, 0, sizeof td);
    if (llm__gguf_is_file(dir)) return llm__gguf_run(cv, dir, out);
    if (llm__rt_is_llm_file(dir)) return llm__rt_run(cv, dir, out);
    if (llm__cv_check_target(cv, out)) goto done;
    llm__cv_log(cv, "reading %s", dir);
    if ((no_tokenizer = llm__cv_tok_read(cv, dir, &td)) < 0) goto done;
    if (d->vocab_only && no_tokenizer) { llm__cv_fail(cv, "--vocab-only needs %s/tokenizer.json", dir); goto done; }
    if (!no_tokenizer) llm__cv_tok_describe(cv, &td);
    if (!(p = (llm__cv_plan *)calloc(1, sizeof *p))) { llm__cv_oom(cv); goto done; }
    if (!d->vocab_only && (llm__cv_read_hparams(cv, dir, &h) || (!no_tokenizer && llm__cv_tok_check_vocab_size(cv, &td, h.n_vocab)) ||
                           llm__cv_open_source(cv, dir, &src) || llm__cv_base_model_names(cv, &src, &h) || llm__cv_rename_experts(cv, &src, &h) || llm__cv_plan_tensors(cv, &src, &h, d->has_dtype, d->dtype, d->recipe, p)))
        goto done;
    if (!d->vocab_only) llm__cv_embd_scale(&src, &h);
    written = !llm__cv_write_model(cv, out, dir, &src, p, d->vocab_only ? NULL : &h, no_tokenizer ? NULL : &td, &bytes);
    llm__cv_put_in_place(cv, written, out, d->vocab_only, bytes);
done:
    llm__cv_tok_data_free(&td);
    free(p);
    llm__cv_hparams_free(&h);
    llm__cv_free_source(&src);
    return cv->rc;
}

LLMDEF llm_result llm_convert(const char *hf_dir, const char *out, const llm_convert_desc *desc, char *err,
                              size_t err_cap) {
    llm_convert_desc defaults;
    llm__cv *cv = (llm__cv *)calloc(1, sizeof *cv);
    llm_result r;
    if (!cv) {
        if (err && err_cap) snprintf(err, err_cap, "out of memory");
        return LLM_ERR_OUT_OF_MEMORY;
    }
    memset(&defaults, 0, sizeof defaults);
    cv->desc = desc ? desc : &defaults;
    cv->out = out;
    if (!hf_dir || !out) llm__cv_fail(cv, "llm_convert: no %s", hf_dir ? "output file" : "model directory"), cv->rc = LLM_ERR_INVALID_ARGUMENT;
    else if (!llm_kernels_supported(cv->desc->kernels))
        llm__cv_fail_as(cv, (unsigned)cv->desc->kernels < LLM_KERNELS_COUNT ? LLM_ERR_UNSUPPORTED : LLM_ERR_INVALID_ARGUMENT,
                        "llm_convert: the %s kernels are not in this build or this CPU cannot run them (best here: %s)",
                        (unsigned)cv->desc->kernels < LLM_KERNELS_COUNT ? llm_kernels_name(cv->desc->kernels) : "unknown",
                        llm_kernels_name(llm_kernels_best()));
    else llm__cv_run(cv, hf_dir, out);
    r = llm__cv_finish(cv, err, err_cap);
    free(cv);
    return r;
}

#endif /* LLM_CONVERT_IMPLEMENTATION_DONE */
#endif /* LLM_CONVERT_IMPLEMENTATION */

/* MIT License: see llm.h. */
