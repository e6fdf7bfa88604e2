/* llm.h - v0.1 - run LLaMA-style decoder language models on a CPU, in one C header.

   Do this:
       #define LLM_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.

   QUICK START
       llm_model *model; llm_ctx *ctx;
       if (llm_model_open(&model, "model.llm", NULL) != LLM_OK) return 1;
       if (llm_ctx_open(&ctx, model, NULL) != LLM_OK) return 1;
       int32_t prompt[] = { 1, 415, 2936 };            (token ids)
       llm_eval(ctx, prompt, 3);                      (appends to the KV cache)
       const float *logits = llm_logits(ctx);         (next-token logits, n_vocab floats)
       ... pick a token, llm_eval(ctx, &token, 1), repeat ...
       llm_ctx_close(ctx); llm_model_close(model);

   A model file (.llm) is made from a HuggingFace model directory by tools/convert.c; its
   layout is in docs/FORMAT.md. Supported families: llama, mistral, qwen2, qwen3.

   CONFIG MACROS (define before the implementation include)
       LLM_STATIC        every public function is static
       LLM_DLL           export (with LLM_IMPLEMENTATION) or import the public functions
       LLM_MALLOC/LLM_FREE  the default allocator (malloc/free)
       LLM_NO_MMAP       read the model into memory instead of mapping it
       LLM_NO_STDIO      no file functions (use llm_model_open_memory)

   THREADS AND OWNERSHIP
       A model is read-only after open: share it between any number of contexts and
       threads. A context (KV cache + scratch) belongs to one thread at a time. The library
       has no global state, never prints, never exits. Close contexts before their model.
       llm_model_open_memory uses the caller's buffer in place: keep it alive and unchanged
       until llm_model_close; it must be 4-byte aligned (malloc's buffers are).

   API OVERVIEW
       llm_result_string     name of a result code
       llm_model_open        map (or read) a .llm file and validate it
       llm_model_open_memory the same for a buffer already in memory (zero copies)
       llm_model_close       release a model
       llm_model_info        hyper-parameters and token ids of a model
       llm_model_tensor      look up a tensor by name
       llm_ctx_open          KV cache and scratch for one sequence
       llm_ctx_close         release a context
       llm_ctx_error         the detail message of a context's last error
       llm_eval              append tokens to the sequence; computes the last one's logits
       llm_logits            the logits of the last evaluated token
       llm_ctx_pos           how many tokens the context holds
       llm_ctx_rewind        forget tokens after a position
       llm_ctx_kv_bytes      the size of the context's KV cache
       llm_ctx_tokens        the token ids the context holds
       llm_kv_cache_bytes    the KV cache size formula, for planning
       llm_sample            pick the next token: penalties, temperature, top-k/p, min-p
       llm_sample_logits     the same on any logits, with caller scratch
       llm_sample_scratch_bytes  the scratch llm_sample_logits needs
       llm_chat_render       a conversation as prompt text, as HF apply_chat_template renders it
       llm_chat_template     the name of the model's chat template ("llama3.2", ..., "raw")
       llm_chat_template_name  the known template names, one by one
       llm_chat_end_of_turn  the text of the token that ends an assistant turn
       llm_f32_to_f16 ...    number conversions (round to nearest even)
       llm_builder_*         writes the model file format (used by the converter)
*/
#ifndef LLM_H
#define LLM_H

#include <stddef.h>
#include <stdint.h>

#define LLM_VERSION_MAJOR 0
#define LLM_VERSION_MINOR 1
#define LLM_VERSION_PATCH 0

#ifndef LLMDEF
#  if defined(LLM_STATIC)
#    define LLMDEF static
#  elif defined(LLM_DLL) && defined(_WIN32) && defined(LLM_IMPLEMENTATION)
#    define LLMDEF __declspec(dllexport)
#  elif defined(LLM_DLL) && defined(_WIN32)
#    define LLMDEF __declspec(dllimport)
#  else
#    define LLMDEF extern
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- llm: results ------------------------------------------------------------------- */
typedef enum llm_result {
    LLM_OK = 0,
    LLM_ERR_INVALID_ARGUMENT = -1,  /* NULL pointer, n = 0, bad flag, ... */
    LLM_ERR_IO = -2,                /* a file could not be opened, mapped or read */
    LLM_ERR_OUT_OF_MEMORY = -3,
    LLM_ERR_BAD_MAGIC = -4,         /* not a .llm file */
    LLM_ERR_BAD_VERSION = -5,       /* a .llm file of a version this header does not read */
    LLM_ERR_TRUNCATED = -6,         /* the file ends before a section it announces */
    LLM_ERR_BAD_FILE = -7,          /* inconsistent content: offsets, sizes, shapes, values */
    LLM_ERR_UNSUPPORTED = -8,       /* valid, but uses something this build cannot run */
    LLM_ERR_CONTEXT_FULL = -9,      /* evaluating would pass n_ctx */
    LLM_ERR_BAD_TOKEN = -10,        /* a token id outside the vocabulary */
    LLM_ERR_BUFFER_TOO_SMALL = -11, /* the needed size is reported through the size output */
    LLM_ERR_TEMPLATE = -12          /* a chat template rejected the conversation */
} llm_result;

LLMDEF const char *llm_result_string(llm_result r);

/* ---- llm: numbers --------------------------------------------------------------------- */
typedef enum llm_dtype {
    LLM_DTYPE_F32 = 0,
    LLM_DTYPE_F16 = 1,
    LLM_DTYPE_BF16 = 2,
    LLM_DTYPE_COUNT
} llm_dtype;

LLMDEF const char *llm_dtype_name(llm_dtype t);
LLMDEF uint16_t llm_f32_to_f16(float f);
LLMDEF float llm_f16_to_f32(uint16_t h);
LLMDEF uint16_t llm_f32_to_bf16(float f);
LLMDEF float llm_bf16_to_f32(uint16_t h);

/* ---- llm: model ------------------------------------------------------------------------- */
typedef struct llm_model llm_model;
typedef struct llm_ctx llm_ctx;

typedef void (*llm_log_fn)(void *user, const char *message);

/* An optional allocator; zero means LLM_MALLOC/LLM_FREE. */
typedef struct llm_allocator {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr);
    void *user;
} llm_allocator;

typedef struct llm_model_desc {
    llm_log_fn log;          /* receives the detail message of a failed open */
    void *log_user;
    llm_allocator allocator;
    int no_mmap;             /* read the file into memory even where mmap is available */
} llm_model_desc;

typedef enum llm_arch { LLM_ARCH_LLAMA = 0, LLM_ARCH_MISTRAL = 1, LLM_ARCH_QWEN2 = 2, LLM_ARCH_QWEN3 = 3 } llm_arch;

typedef enum llm_rope_scaling { LLM_ROPE_NONE = 0, LLM_ROPE_LINEAR = 1, LLM_ROPE_LLAMA3 = 2 } llm_rope_scaling;

#define LLM_MAX_LAYERS 1024
#define LLM_MAX_STOP_IDS 8

/* Everything read from config.json and generation_config.json. */
typedef struct llm_model_info {
    llm_arch arch;
    const char *arch_name;
    int32_t n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim;
    int32_t n_ctx_train;         /* max_position_embeddings */
    float rms_eps;
    double rope_theta;
    llm_rope_scaling rope_scaling;
    float rope_factor, rope_low_freq_factor, rope_high_freq_factor;
    int32_t rope_original_max_pos;
    int32_t tied_embeddings;     /* the LM head is the embedding matrix */
    int32_t qk_norm;             /* qwen3: RMSNorm of each q and k head before RoPE */
    int32_t bos_id;              /* -1: none */
    int32_t n_stop_ids;
    int32_t stop_ids[LLM_MAX_STOP_IDS]; /* eos ids of generation_config.json */
    int64_t n_params;
    size_t weight_bytes;         /* bytes of all tensors */
} llm_model_info;

typedef struct llm_tensor {
    const char *name;
    llm_dtype dtype;
    int32_t n_dims;
    int64_t shape[4];            /* row-major, HuggingFace order: a Linear weight is [out, in] */
    const void *data;            /* points into the mapped file */
    size_t size;
} llm_tensor;

LLMDEF llm_result llm_model_open(llm_model **out, const char *path, const llm_model_desc *desc);
LLMDEF llm_result llm_model_open_memory(llm_model **out, const void *data, size_t size,
                                        const llm_model_desc *desc);
LLMDEF void llm_model_close(llm_model *model);
LLMDEF const llm_model_info *llm_model_info_get(const llm_model *model);
LLMDEF const llm_tensor *llm_model_tensor(const llm_model *model, const char *name);
/* A metadata string (e.g. "tokenizer.chat_template"); NULL if absent. Not NUL-terminated. */
LLMDEF const char *llm_model_meta_string(const llm_model *model, const char *key, size_t *len);

/* ---- llm: context ----------------------------------------------------------------------- */
typedef enum llm_kv_type { LLM_KV_DEFAULT = 0, LLM_KV_F32 = 1, LLM_KV_F16 = 2 } llm_kv_type;

typedef struct llm_ctx_desc {
    int32_t n_ctx;           /* 0: min(model's max_position_embeddings, 4096) */
    int32_t n_threads;       /* 0: OpenMP's default, or 1 without OpenMP */
    int32_t n_batch;         /* tokens per prompt chunk; 0: 32 */
    llm_kv_type kv_type;     /* 0: f32 */
    llm_allocator allocator;
} llm_ctx_desc;

LLMDEF llm_result llm_ctx_open(llm_ctx **out, const llm_model *model, const llm_ctx_desc *desc);
LLMDEF void llm_ctx_close(llm_ctx *ctx);
LLMDEF const char *llm_ctx_error(const llm_ctx *ctx);
LLMDEF llm_result llm_eval(llm_ctx *ctx, const int32_t *tokens, size_t n);
LLMDEF const float *llm_logits(const llm_ctx *ctx);
LLMDEF int32_t llm_ctx_pos(const llm_ctx *ctx);
LLMDEF int32_t llm_ctx_size(const llm_ctx *ctx);
LLMDEF llm_result llm_ctx_rewind(llm_ctx *ctx, int32_t pos);
LLMDEF size_t llm_ctx_kv_bytes(const llm_ctx *ctx);
/* The ids the context holds, llm_ctx_pos of them (the penalty window and cache reuse read them). */
LLMDEF const int32_t *llm_ctx_tokens(const llm_ctx *ctx);
/* 2 (K and V) x layers x kv heads x head_dim x n_ctx x bytes per element. */
LLMDEF uint64_t llm_kv_cache_bytes(int64_t n_layer, int64_t n_head_kv, int64_t head_dim, int64_t n_ctx,
                                   int64_t bytes_per_element);

/* ---- llm: tokenizer ---------------------------------------------------------------------- */

/* ---- llm: sampler ------------------------------------------------------------------------
   llm_sample picks the next token from the context's last logits. The steps apply in this
   order (HF's logits processors, then its warpers; llama.cpp's default chain agrees):
     1. penalties, over the last repeat_last_n tokens the context holds (prompt included):
        repetition (HF RepetitionPenaltyLogitsProcessor: a positive logit is divided by
        repeat_penalty, a negative one multiplied, once per distinct id), then frequency
        (minus count x frequency_penalty) and presence (minus presence_penalty), as OpenAI
        defines them;
     2. temperature <= 0: the largest logit wins (ties go to the lowest id); done;
     3. logits / temperature;  4. top-k;  5. top-p: the smallest set of most likely tokens
        whose probability (renormalised after top-k) reaches top_p;  6. min-p: keep tokens
        whose probability is at least min_p x the largest;  7. draw one token from the
        renormalised softmax of what is left, with the sampler's own RNG.
   The cost is O(n_vocab): only tokens above an adaptive cutoff are sorted. The same sampler
   state and logits give the same token on every platform and thread count (the sampler
   uses its own exp and RNG, and sums in a fixed order). Keep the sampler in a variable:
   its RNG state advances with every draw. Nothing is allocated. Any logits give a valid id:
   NaN never wins, an infinite largest logit wins outright (the first one, as in step 2), all
   -inf gives id 0, and a temperature above 1e30 counts as 1e30. */
typedef struct llm_sampler {
    float temperature;        /* 0: greedy */
    int32_t top_k;            /* 0: off */
    float top_p;              /* 0 or >= 1: off */
    float min_p;              /* 0: off */
    float repeat_penalty;     /* 0 or 1: off */
    float frequency_penalty;  /* 0: off */
    float presence_penalty;   /* 0: off */
    int32_t repeat_last_n;    /* how many recent tokens the penalties see; 0: 64; -1: all */
    uint64_t seed;
    uint64_t state;           /* RNG state; 0: start from seed at the next draw */
} llm_sampler;

/* Returns the chosen id, or -1 when ctx or s is NULL or nothing was evaluated yet. */
LLMDEF int32_t llm_sample(llm_ctx *ctx, llm_sampler *s);
/* The same on any logits; recent holds the penalty window (oldest first), scratch
   llm_sample_scratch_bytes(n_vocab) bytes aligned for floats. On return the scratch begins
   with the n_vocab logits after the penalties. */
LLMDEF int32_t llm_sample_logits(llm_sampler *s, const float *logits, int32_t n_vocab, const int32_t *recent,
                                 size_t n_recent, void *scratch);
LLMDEF size_t llm_sample_scratch_bytes(int32_t n_vocab);

/* ---- llm: chat templates -----------------------------------------------------------------
   The converter recognises a model's Jinja chat template (tokenizer_config.json) and stores
   which known template it is plus the literal text it needs (docs/FORMAT.md, keys chat.*);
   llm_chat_render reproduces HuggingFace apply_chat_template for it, byte for byte,
   including the template's own errors. Known templates (llm_chat_template_name):
     zephyr  llama2  mistral-v1  mistral-v3  mistral-v0.1-legacy  mistral-v0.2-legacy  chatml
     smollm2  qwen2.5  qwen3  gemma2  gemma3  llama3  llama3-base  llama3.1  llama3.2  raw
   "raw" (no template, or one not recognised) renders the contents one after another. */
typedef struct llm_chat_message {
    const char *role;        /* "system", "user", "assistant" (templates also know "tool") */
    const char *content;     /* NUL-terminated UTF-8 */
} llm_chat_message;

typedef struct llm_chat_desc {
    const char *template_name; /* NULL: the model's; else a known name, or a family (its first) */
    const char *date;          /* Llama 3.1/3.2 "Today Date" ("26 Jul 2024"); NULL: llama3.1's own,
                                  llama3.2: SOURCE_DATE_EPOCH when set, else today (UTC) */
    int no_thinking;           /* qwen3: enable_thinking=False (an empty think block) */
} llm_chat_desc;

/* Writes the prompt text and a NUL to out. *n_out gets the text's length; when cap is below
   *n_out + 1, LLM_ERR_BUFFER_TOO_SMALL. When the template rejects the conversation:
   LLM_ERR_TEMPLATE and *error (optional) gets its message; an unknown template_name gives
   LLM_ERR_UNSUPPORTED. */
LLMDEF llm_result llm_chat_render(const llm_model *m, const llm_chat_message *msgs, size_t n, int add_generation_prompt,
                                  const llm_chat_desc *desc, char *out, size_t cap, size_t *n_out, const char **error);
LLMDEF const char *llm_chat_template(const llm_model *m);         /* the model's template name, "raw" if none */
LLMDEF const char *llm_chat_template_name(size_t i);              /* the i-th known name; NULL past the end */
/* The text of the token that ends an assistant turn for a template (NULL: the model's),
   e.g. "<|eot_id|>"; NULL for raw or an unknown name. Not NUL-terminated: see len. */
LLMDEF const char *llm_chat_end_of_turn(const llm_model *m, const char *template_name, size_t *len);

/* ---- llm: generation --------------------------------------------------------------------- */

/* ---- llm: model file writer ------------------------------------------------------------
   The converter describes metadata and tensors, then writes llm_builder_header() followed
   by each tensor's bytes at llm_builder_tensor_offset(). See docs/FORMAT.md. */
typedef struct llm_builder llm_builder;

LLMDEF llm_result llm_builder_create(llm_builder **out);
LLMDEF void llm_builder_destroy(llm_builder *b);
LLMDEF llm_result llm_builder_set_i32(llm_builder *b, const char *key, int32_t v);
LLMDEF llm_result llm_builder_set_f64(llm_builder *b, const char *key, double v);
LLMDEF llm_result llm_builder_set_string(llm_builder *b, const char *key, const char *s, size_t len);
LLMDEF llm_result llm_builder_set_i32_array(llm_builder *b, const char *key, const int32_t *v, size_t n);
LLMDEF llm_result llm_builder_set_blob(llm_builder *b, const char *key, const void *data, size_t size);
/* Returns the tensor's index through idx. size is computed from dtype and shape. */
LLMDEF llm_result llm_builder_add_tensor(llm_builder *b, const char *name, llm_dtype dtype, int n_dims,
                                         const int64_t *shape, size_t *idx);
/* Lays out the file; the bytes before the first tensor (header, metadata, table, padding). */
LLMDEF llm_result llm_builder_header(llm_builder *b, const void **bytes, size_t *size);
LLMDEF uint64_t llm_builder_tensor_offset(const llm_builder *b, size_t idx);
LLMDEF uint64_t llm_builder_tensor_size(const llm_builder *b, size_t idx);
LLMDEF uint64_t llm_builder_file_size(const llm_builder *b);
LLMDEF size_t llm_dtype_row_bytes(llm_dtype t, int64_t n); /* bytes of n values; 0 if n is not a whole number of blocks */

#ifdef __cplusplus
}
#endif
#endif /* LLM_H */

/* ========================================================================================= */
#ifdef LLM_IMPLEMENTATION
#ifndef LLM_IMPLEMENTATION_DONE
#define LLM_IMPLEMENTATION_DONE

#include <math.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h> /* snprintf/vsnprintf only, for messages */
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef LLM_MALLOC
#define LLM_MALLOC(sz) malloc(sz)
#define LLM_FREE(p) free(p)
#endif

/* ---- llm: platform ------------------------------------------------------------------------ */
static void *llm__alloc(const llm_allocator *a, size_t size) {
    if (a && a->alloc) return a->alloc(a->user, size);
    return LLM_MALLOC(size);
}

static void llm__free(const llm_allocator *a, void *p) {
    if (!p) return;
    if (a && a->free) a->free(a->user, p);
    else LLM_FREE(p);
}

static void *llm__calloc(const llm_allocator *a, size_t n, size_t size) {
    void *p;
    if (size && n > (size_t)-1 / size) return NULL;
    p = llm__alloc(a, n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

/* size_t products that report overflow instead of wrapping. */
static int llm__mul_ok(size_t a, size_t b, size_t *out) {
    if (a && b > (size_t)-1 / a) return 0;
    *out = a * b;
    return 1;
}

static int llm__is_little_endian(void) {
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static uint32_t llm__rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t llm__rd64(const uint8_t *p) { return (uint64_t)llm__rd32(p) | (uint64_t)llm__rd32(p + 4) << 32; }

#if !defined(LLM_NO_STDIO)
#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <sys/stat.h>
#if !defined(LLM_NO_MMAP)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif
#endif

/* A whole file in memory: mapped where possible, else read into an allocation. */
typedef struct llm__file_view {
    void *data;
    uint64_t size;
    int mapped;
#if defined(_WIN32)
    HANDLE file, mapping;
#endif
} llm__file_view;

static llm_result llm__read_whole_file(const char *path, const llm_allocator *a, llm__file_view *v,
                                       char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    int64_t size;
#if !defined(_WIN32)
    struct stat st;
#endif
    if (!f) { snprintf(err, err_size, "%s: cannot open", path); return LLM_ERR_IO; }
    /* 64-bit sizes: ftell returns a 32-bit long on Windows. */
#if defined(_WIN32)
    if (_fseeki64(f, 0, SEEK_END) != 0 || (size = _ftelli64(f)) < 0 || _fseeki64(f, 0, SEEK_SET) != 0) {
#else
    if (stat(path, &st) != 0 || (size = (int64_t)st.st_size) < 0) {
#endif
        fclose(f);
        snprintf(err, err_size, "%s: cannot seek", path);
        return LLM_ERR_IO;
    }
    if ((uint64_t)size > (uint64_t)(size_t)-1) {
        fclose(f);
        snprintf(err, err_size, "%s: %lld bytes do not fit in this address space", path, (long long)size);
        return LLM_ERR_OUT_OF_MEMORY;
    }
    v->data = llm__alloc(a, size ? (size_t)size : 1);
    if (!v->data) { fclose(f); snprintf(err, err_size, "%s: out of memory", path); return LLM_ERR_OUT_OF_MEMORY; }
    if (fread(v->data, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        llm__free(a, v->data);
        v->data = NULL;
        snprintf(err, err_size, "%s: read failed", path);
        return LLM_ERR_IO;
    }
    fclose(f);
    v->size = (uint64_t)size;
    v->mapped = 0;
    return LLM_OK;
}

static llm_result llm__map_file(const char *path, const llm_allocator *a, int no_mmap, llm__file_view *v,
                                char *err, size_t err_size) {
    memset(v, 0, sizeof *v);
#if defined(_WIN32) && !defined(LLM_NO_MMAP)
    if (!no_mmap) {
        LARGE_INTEGER sz;
        HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
        if (h == INVALID_HANDLE_VALUE) { snprintf(err, err_size, "%s: cannot open", path); return LLM_ERR_IO; }
        if (GetFileSizeEx(h, &sz) && sz.QuadPart > 0 && (uint64_t)sz.QuadPart <= (uint64_t)(size_t)-1) {
            HANDLE m = CreateFileMappingA(h, NULL, PAGE_READONLY, 0, 0, NULL);
            void *p = m ? MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0) : NULL;
            if (p) {
                v->data = p; v->size = (uint64_t)sz.QuadPart; v->mapped = 1; v->file = h; v->mapping = m;
                return LLM_OK;
            }
            if (m) CloseHandle(m);
        }
        CloseHandle(h);
    }
#elif !defined(LLM_NO_MMAP)
    if (!no_mmap) {
        struct stat st;
        int fd = open(path, O_RDONLY);
        if (fd < 0) { snprintf(err, err_size, "%s: cannot open", path); return LLM_ERR_IO; }
        if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= (uint64_t)(size_t)-1) {
            void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
            if (p != MAP_FAILED) {
                close(fd);
                v->data = p; v->size = (uint64_t)st.st_size; v->mapped = 1;
                return LLM_OK;
            }
        }
        close(fd);
    }
#else
    (void)no_mmap;
#endif
    return llm__read_whole_file(path, a, v, err, err_size); /* mmap unavailable or failed */
}

static void llm__unmap_file(llm__file_view *v, const llm_allocator *a) {
    if (!v->data) return;
    if (!v->mapped) { llm__free(a, v->data); return; }
#if defined(_WIN32) && !defined(LLM_NO_MMAP)
    UnmapViewOfFile(v->data);
    CloseHandle(v->mapping);
    CloseHandle(v->file);
#elif !defined(LLM_NO_MMAP)
    munmap(v->data, (size_t)v->size);
#endif
}
#endif /* !LLM_NO_STDIO */

/* ---- llm: numbers ------------------------------------------------------------------------- */
static uint32_t llm__f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float llm__bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

LLMDEF float llm_bf16_to_f32(uint16_t h) { return llm__bits_f32((uint32_t)h << 16); }

LLMDEF uint16_t llm_f32_to_bf16(float f) {
    uint32_t u = llm__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* keep NaN a quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1); /* round to nearest, ties to even */
    return (uint16_t)(u >> 16);
}

LLMDEF float llm_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) return llm__bits_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) { /* zero or subnormal: man * 2^-24 is exact in f32 */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return llm__bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

LLMDEF uint16_t llm_f32_to_f16(float f) {
    uint32_t u = llm__f32_bits(f), sign = (u >> 16) & 0x8000, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00);          /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00);         /* rounds to >= 65520: inf */
    if (a < 0x38800000u) {                                          /* below 2^-14: subnormal */
        /* Adding 0.5 (2^-1) puts the value's 2^-24 units in the low mantissa bits, and the
           FPU's round-to-nearest-even does the rounding. */
        float v = llm__bits_f32(a) + 0.5f;
        return (uint16_t)(sign | ((llm__f32_bits(v) - 0x3f000000u) & 0x7ff));
    }
    a += ((uint32_t)(15 - 127) << 23) + 0xfff + ((a >> 13) & 1);    /* rebias, round to nearest even */
    return (uint16_t)(sign | (a >> 13));
}

static const char *const llm__dtype_names[LLM_DTYPE_COUNT] = { "f32", "f16", "bf16" };

LLMDEF const char *llm_dtype_name(llm_dtype t) {
    return (unsigned)t < LLM_DTYPE_COUNT ? llm__dtype_names[t] : "unknown";
}

LLMDEF size_t llm_dtype_row_bytes(llm_dtype t, int64_t n) {
    if (n < 0) return 0;
    switch (t) {
    case LLM_DTYPE_F32: return (size_t)n * 4;
    case LLM_DTYPE_F16:
    case LLM_DTYPE_BF16: return (size_t)n * 2;
    default: return 0;
    }
}

/* ---- llm: kernels ------------------------------------------------------------------------
   The scalar versions are the reference. A kernel computes out[r] = dot(row r of W, x)
   for a contiguous range of rows, always in the same order, so a row's result does not
   depend on how rows are split between threads. */
static float llm__dot_f32(const float *w, const float *x, int n) {
    float s = 0.0f;
    int i;
    for (i = 0; i < n; i++) s += w[i] * x[i];
    return s;
}

static float llm__dot_f16(const uint16_t *w, const float *x, int n) {
    float s = 0.0f;
    int i;
    for (i = 0; i < n; i++) s += llm_f16_to_f32(w[i]) * x[i];
    return s;
}

static float llm__dot_bf16(const uint16_t *w, const float *x, int n) {
    float s = 0.0f;
    int i;
    for (i = 0; i < n; i++) s += llm_bf16_to_f32(w[i]) * x[i];
    return s;
}

static float llm__dot_row(const llm_tensor *w, int64_t row, const float *x, int n) {
    switch (w->dtype) {
    case LLM_DTYPE_F16: return llm__dot_f16((const uint16_t *)w->data + row * n, x, n);
    case LLM_DTYPE_BF16: return llm__dot_bf16((const uint16_t *)w->data + row * n, x, n);
    default: return llm__dot_f32((const float *)w->data + row * n, x, n);
    }
}

/* Row r of a [rows, n] tensor as f32 (embedding lookup). */
static void llm__get_row(const llm_tensor *w, int64_t row, float *out, int n) {
    int i;
    if (w->dtype == LLM_DTYPE_F32) { memcpy(out, (const float *)w->data + row * n, (size_t)n * 4); return; }
    for (i = 0; i < n; i++) {
        uint16_t h = ((const uint16_t *)w->data)[row * n + i];
        out[i] = w->dtype == LLM_DTYPE_F16 ? llm_f16_to_f32(h) : llm_bf16_to_f32(h);
    }
}

/* out[b][r] = W[r] . x[b] (+ bias[r]) for b < n_tok; W is [n_out, n_in]. */
static void llm__matmul(float *out, const llm_tensor *w, const llm_tensor *bias, const float *x,
                        int n_tok, int n_in, int n_out, int n_threads) {
    int r;
    (void)n_threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(n_threads) schedule(static)
#endif
    for (r = 0; r < n_out; r++) {
        int b;
        float bv = bias ? ((const float *)bias->data)[r] : 0.0f;
        for (b = 0; b < n_tok; b++) out[(size_t)b * n_out + r] = llm__dot_row(w, r, x + (size_t)b * n_in, n_in) + bv;
    }
}

/* ---- llm: ops ------------------------------------------------------------------------------ */

/* HF LlamaRMSNorm: x * rsqrt(mean(x^2) + eps) * weight, eps inside the square root. */
static void llm__rmsnorm(float *out, const float *x, const float *weight, int n, float eps) {
    float ss = 0.0f, scale;
    int i;
    for (i = 0; i < n; i++) ss += x[i] * x[i];
    scale = 1.0f / sqrtf(ss / (float)n + eps);
    for (i = 0; i < n; i++) out[i] = weight[i] * (x[i] * scale);
}

/* The per-pair inverse frequencies, as HF's rope initialisation computes them in float32:
   inv_freq[i] = 1 / theta^(2i/d), then scaled by the rope_scaling rule. */
static void llm__rope_inv_freq(float *inv_freq, const llm_model_info *m) {
    int i, half = m->head_dim / 2;
    for (i = 0; i < half; i++) {
        float expo = (float)(2 * i) / (float)m->head_dim;
        float f = 1.0f / powf((float)m->rope_theta, expo);
        if (m->rope_scaling == LLM_ROPE_LINEAR) {
            f /= m->rope_factor;
        } else if (m->rope_scaling == LLM_ROPE_LLAMA3) {
            /* transformers _compute_llama3_parameters: long wavelengths divided by factor,
               short ones kept, a smooth blend between. */
            double old_len = m->rope_original_max_pos;
            double low_wl = old_len / m->rope_low_freq_factor, high_wl = old_len / m->rope_high_freq_factor;
            double wl = 2.0 * 3.14159265358979323846 / f;
            if (wl > low_wl) {
                f = f / m->rope_factor;
            } else if (wl >= high_wl) {
                float smooth = (float)((old_len / wl - m->rope_low_freq_factor) /
                                       (m->rope_high_freq_factor - m->rope_low_freq_factor));
                f = (1.0f - smooth) * f / m->rope_factor + smooth * f;
            }
        }
        inv_freq[i] = f;
    }
}

/* HF rotate_half layout: element i pairs with element i + d/2 (not adjacent pairs). */
static void llm__rope_rotate_half(float *v, int head_dim, int pos, const float *inv_freq) {
    int i, half = head_dim / 2;
    for (i = 0; i < half; i++) {
        float angle = (float)pos * inv_freq[i];
        float c = cosf(angle), s = sinf(angle);
        float a = v[i], b = v[i + half];
        v[i] = a * c - b * s;
        v[i + half] = b * c + a * s;
    }
}

static float llm__silu(float x) { return x / (1.0f + expf(-x)); }

/* SwiGLU gate: h = silu(gate) * up, in place in gate. */
static void llm__swiglu(float *gate, const float *up, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) gate[i] = llm__silu(gate[i]) * up[i];
}

static void llm__softmax(float *x, int n) {
    float mx = x[0], sum = 0.0f;
    int i;
    for (i = 1; i < n; i++) if (x[i] > mx) mx = x[i];
    for (i = 0; i < n; i++) { x[i] = expf(x[i] - mx); sum += x[i]; }
    for (i = 0; i < n; i++) x[i] /= sum;
}

/* ---- llm: model file ---------------------------------------------------------------------
   Layout (docs/FORMAT.md): a 64-byte header, a metadata section of typed key/value
   entries, a tensor table, then tensor data aligned to LLM__ALIGN. Little-endian. */
#define LLM__MAGIC "LLMF"
#define LLM__VERSION 1u
#define LLM__HEADER_SIZE 64u
#define LLM__ALIGN 64u
#define LLM__MAX_NAME 256u

typedef enum llm__meta_type {
    LLM__META_I32 = 1, LLM__META_F64 = 2, LLM__META_STRING = 3, LLM__META_I32_ARRAY = 4, LLM__META_BLOB = 5
} llm__meta_type;

typedef struct llm__meta {
    const char *key;
    uint32_t key_len;
    uint32_t type;
    const uint8_t *data;
    uint64_t size;
} llm__meta;

typedef struct llm__layer {
    const llm_tensor *attn_norm, *wq, *wk, *wv, *wo, *bq, *bk, *bv, *bo, *q_norm, *k_norm;
    const llm_tensor *ffn_norm, *w_gate, *w_up, *w_down;
    int32_t window; /* sliding-window size, 0 for full attention */
} llm__layer;

struct llm_model {
    llm_allocator alloc;
#if !defined(LLM_NO_STDIO)
    llm__file_view view;
#endif
    const uint8_t *data;
    uint64_t size;
    llm_model_info info;
    char arch_name[16];
    llm__meta *meta;
    size_t n_meta;
    llm_tensor *tensors;
    char *names;      /* NUL-terminated copies of the tensor names */
    size_t n_tensors;
    const llm_tensor *tok_embd, *norm, *output;
    llm__layer *layers;
    float *rope_inv_freq;
};

static llm_result llm__fail(char *err, size_t err_size, llm_result r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return r;
}

/* A bounds-checked cursor over the file's bytes. */
typedef struct llm__reader {
    const uint8_t *p;
    uint64_t pos, end;
    int bad;
} llm__reader;

static const uint8_t *llm__take(llm__reader *r, uint64_t n) {
    const uint8_t *q;
    if (r->bad || n > r->end - r->pos) { r->bad = 1; return NULL; }
    q = r->p + r->pos;
    r->pos += n;
    return q;
}

static uint32_t llm__take32(llm__reader *r) { const uint8_t *q = llm__take(r, 4); return q ? llm__rd32(q) : 0; }
static uint64_t llm__take64(llm__reader *r) { const uint8_t *q = llm__take(r, 8); return q ? llm__rd64(q) : 0; }

static const llm__meta *llm__meta_find(const llm_model *m, const char *key) {
    size_t i, n = strlen(key);
    for (i = 0; i < m->n_meta; i++)
        if (m->meta[i].key_len == n && memcmp(m->meta[i].key, key, n) == 0) return &m->meta[i];
    return NULL;
}

LLMDEF const char *llm_model_meta_string(const llm_model *m, const char *key, size_t *len) {
    const llm__meta *e = m && key ? llm__meta_find(m, key) : NULL;
    if (!e || e->type != LLM__META_STRING) return NULL;
    if (len) *len = (size_t)e->size;
    return (const char *)e->data;
}

/* Reads an i32 entry; a missing optional key leaves *v alone. */
static llm_result llm__meta_i32(const llm_model *m, const char *key, int required, int32_t *v, char *err, size_t es) {
    const llm__meta *e = llm__meta_find(m, key);
    if (!e) return required ? llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: missing key '%s'", key) : LLM_OK;
    if (e->type != LLM__META_I32 || e->size != 4)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' is not an i32", key);
    *v = (int32_t)llm__rd32(e->data);
    return LLM_OK;
}

static llm_result llm__meta_f64(const llm_model *m, const char *key, int required, double *v, char *err, size_t es) {
    const llm__meta *e = llm__meta_find(m, key);
    uint64_t bits;
    if (!e) return required ? llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: missing key '%s'", key) : LLM_OK;
    if (e->type != LLM__META_F64 || e->size != 8)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' is not an f64", key);
    bits = llm__rd64(e->data);
    memcpy(v, &bits, 8);
    if (!(*v == *v) || *v > 1e300 || *v < -1e300)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' is not a finite number", key);
    return LLM_OK;
}

static llm_result llm__parse_header(llm_model *m, uint64_t *meta_off, uint64_t *meta_size, uint64_t *tab_off,
                                    uint64_t *tab_size, uint64_t *n_tensors, uint64_t *data_off,
                                    char *err, size_t es) {
    const uint8_t *h = m->data;
    uint64_t fsize;
    if (m->size < 4 || memcmp(h, LLM__MAGIC, 4) != 0)
        return llm__fail(err, es, LLM_ERR_BAD_MAGIC, "not a .llm model file (magic is not \"LLMF\")");
    if (m->size < 8) return llm__fail(err, es, LLM_ERR_TRUNCATED, "file ends inside the header (%llu bytes)", (unsigned long long)m->size);
    if (llm__rd32(h + 4) != LLM__VERSION)
        return llm__fail(err, es, LLM_ERR_BAD_VERSION, "file format version %u, this header reads version %u",
                         llm__rd32(h + 4), LLM__VERSION);
    if (m->size < LLM__HEADER_SIZE)
        return llm__fail(err, es, LLM_ERR_TRUNCATED, "file ends inside the header (%llu of %u bytes)",
                         (unsigned long long)m->size, LLM__HEADER_SIZE);
    fsize = llm__rd64(h + 8);
    *meta_off = llm__rd64(h + 16); *meta_size = llm__rd64(h + 24);
    *tab_off = llm__rd64(h + 32); *tab_size = llm__rd64(h + 40);
    *n_tensors = llm__rd64(h + 48); *data_off = llm__rd64(h + 56);
    if (fsize != m->size)
        return llm__fail(err, es, fsize > m->size ? LLM_ERR_TRUNCATED : LLM_ERR_BAD_FILE,
                         "header says the file has %llu bytes, it has %llu", (unsigned long long)fsize,
                         (unsigned long long)m->size);
    if (*meta_off < LLM__HEADER_SIZE || *meta_off > fsize || *meta_size > fsize - *meta_off)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata section [%llu, +%llu) outside the file",
                         (unsigned long long)*meta_off, (unsigned long long)*meta_size);
    if (*tab_off < LLM__HEADER_SIZE || *tab_off > fsize || *tab_size > fsize - *tab_off)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor table [%llu, +%llu) outside the file",
                         (unsigned long long)*tab_off, (unsigned long long)*tab_size);
    if (*data_off > fsize || *data_off % LLM__ALIGN != 0)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor data offset %llu is outside the file or not %u-aligned",
                         (unsigned long long)*data_off, LLM__ALIGN);
    if (*n_tensors > *tab_size / 24) /* an entry takes at least 24 bytes */
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "%llu tensors cannot fit in a %llu-byte table",
                         (unsigned long long)*n_tensors, (unsigned long long)*tab_size);
    return LLM_OK;
}

static llm_result llm__parse_meta(llm_model *m, uint64_t off, uint64_t size, char *err, size_t es) {
    llm__reader r;
    uint64_t count, i;
    r.p = m->data; r.pos = off; r.end = off + size; r.bad = 0;
    count = llm__take64(&r);
    if (r.bad || count > size / 16) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: bad entry count");
    m->meta = (llm__meta *)llm__calloc(&m->alloc, (size_t)count ? (size_t)count : 1, sizeof *m->meta);
    if (!m->meta) return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    m->n_meta = (size_t)count;
    for (i = 0; i < count; i++) {
        llm__meta *e = &m->meta[i];
        e->key_len = llm__take32(&r);
        if (e->key_len == 0 || e->key_len > LLM__MAX_NAME) r.bad = 1;
        e->key = (const char *)llm__take(&r, e->key_len);
        e->type = llm__take32(&r);
        e->size = llm__take64(&r);
        e->data = llm__take(&r, e->size);
        if (r.bad) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata entry %llu runs past its section", (unsigned long long)i);
    }
    return LLM_OK;
}

static llm_result llm__parse_tensors(llm_model *m, uint64_t off, uint64_t size, uint64_t n, uint64_t data_off,
                                     char *err, size_t es) {
    llm__reader r;
    uint64_t i;
    char *names;
    size_t names_cap = (size_t)size; /* every name is stored in the table, so this bounds their total */
    r.p = m->data; r.pos = off; r.end = off + size; r.bad = 0;
    m->tensors = (llm_tensor *)llm__calloc(&m->alloc, (size_t)n ? (size_t)n : 1, sizeof *m->tensors);
    m->names = names = (char *)llm__alloc(&m->alloc, names_cap + 1);
    if (!m->tensors || !names) return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    m->n_tensors = (size_t)n;
    for (i = 0; i < n; i++) {
        llm_tensor *t = &m->tensors[i];
        uint32_t name_len = llm__take32(&r), dtype, nd, d;
        const uint8_t *name = llm__take(&r, name_len);
        uint64_t toff, tsize, count = 1;
        size_t expect;
        if (r.bad || name_len == 0 || name_len > LLM__MAX_NAME || memchr(name, 0, name_len))
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor %llu: bad name", (unsigned long long)i);
        memcpy(names, name, name_len);
        names[name_len] = 0;
        t->name = names;
        names += name_len + 1;
        dtype = llm__take32(&r);
        nd = llm__take32(&r);
        if (r.bad || nd < 1 || nd > 4)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s': %u dimensions (1 to 4 allowed)", t->name, nd);
        if (dtype >= LLM_DTYPE_COUNT)
            return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "tensor '%s': unknown dtype %u", t->name, dtype);
        t->dtype = (llm_dtype)dtype;
        t->n_dims = (int32_t)nd;
        for (d = 0; d < nd; d++) {
            uint64_t dim = llm__take64(&r);
            if (dim == 0 || dim > ((uint64_t)1 << 40) || count > ((uint64_t)1 << 62) / dim)
                return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s': dimension %u is %llu", t->name, d,
                                 (unsigned long long)dim);
            t->shape[d] = (int64_t)dim;
            count *= dim;
        }
        toff = llm__take64(&r);
        tsize = llm__take64(&r);
        if (r.bad) return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor table entry %llu runs past its section", (unsigned long long)i);
        expect = llm_dtype_row_bytes(t->dtype, t->shape[nd - 1]);
        if (count > (uint64_t)(size_t)-1 || expect == 0 ||
            !llm__mul_ok(expect, (size_t)(count / (uint64_t)t->shape[nd - 1]), &expect) || tsize != expect)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s': size %llu does not match its %s shape",
                             t->name, (unsigned long long)tsize, llm_dtype_name(t->dtype));
        if (toff % LLM__ALIGN != 0 || toff > m->size - data_off || tsize > m->size - data_off - toff)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s': data [%llu, +%llu) is outside the file or unaligned",
                             t->name, (unsigned long long)(data_off + toff), (unsigned long long)tsize);
        t->data = m->data + data_off + toff;
        t->size = (size_t)tsize;
    }
    return LLM_OK;
}

LLMDEF const llm_tensor *llm_model_tensor(const llm_model *m, const char *name) {
    size_t i;
    if (!m || !name) return NULL;
    for (i = 0; i < m->n_tensors; i++)
        if (strcmp(m->tensors[i].name, name) == 0) return &m->tensors[i];
    return NULL;
}

/* ---- llm: model --------------------------------------------------------------------------- */
static const char *const llm__arch_names[] = { "llama", "mistral", "qwen2", "qwen3" };

static llm_result llm__read_info(llm_model *m, char *err, size_t es) {
    llm_model_info *h = &m->info;
    size_t len, i;
    const char *arch = llm_model_meta_string(m, "general.architecture", &len);
    int32_t scaling = 0, orig = 0;
    double v;
    const llm__meta *stop;
    llm_result r;
    memset(h, 0, sizeof *h);
    if (!arch) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: missing 'general.architecture'");
    for (i = 0; i < sizeof llm__arch_names / sizeof llm__arch_names[0]; i++)
        if (strlen(llm__arch_names[i]) == len && memcmp(llm__arch_names[i], arch, len) == 0) break;
    if (i == sizeof llm__arch_names / sizeof llm__arch_names[0])
        return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "architecture '%.*s' is not supported", (int)(len < 32 ? len : 32), arch);
    h->arch = (llm_arch)i;
    h->arch_name = llm__arch_names[i];
    h->bos_id = -1;
    if ((r = llm__meta_i32(m, "llm.vocab_size", 1, &h->n_vocab, err, es)) ||
        (r = llm__meta_i32(m, "llm.hidden_size", 1, &h->n_embd, err, es)) ||
        (r = llm__meta_i32(m, "llm.intermediate_size", 1, &h->n_ff, err, es)) ||
        (r = llm__meta_i32(m, "llm.num_layers", 1, &h->n_layer, err, es)) ||
        (r = llm__meta_i32(m, "llm.num_heads", 1, &h->n_head, err, es)) ||
        (r = llm__meta_i32(m, "llm.num_kv_heads", 1, &h->n_head_kv, err, es)) ||
        (r = llm__meta_i32(m, "llm.head_dim", 1, &h->head_dim, err, es)) ||
        (r = llm__meta_i32(m, "llm.max_position_embeddings", 1, &h->n_ctx_train, err, es)) ||
        (r = llm__meta_i32(m, "llm.tie_word_embeddings", 0, &h->tied_embeddings, err, es)) ||
        (r = llm__meta_i32(m, "llm.qk_norm", 0, &h->qk_norm, err, es)) ||
        (r = llm__meta_i32(m, "llm.bos_token_id", 0, &h->bos_id, err, es)) ||
        (r = llm__meta_i32(m, "llm.rope_scaling", 0, &scaling, err, es)) ||
        (r = llm__meta_i32(m, "llm.rope_original_max_position_embeddings", 0, &orig, err, es)))
        return r;
    if ((r = llm__meta_f64(m, "llm.rms_norm_eps", 1, &v, err, es))) return r;
    h->rms_eps = (float)v;
    if ((r = llm__meta_f64(m, "llm.rope_theta", 1, &h->rope_theta, err, es))) return r;
    h->rope_scaling = (llm_rope_scaling)scaling;
    h->rope_original_max_pos = orig;
    v = 1.0; if ((r = llm__meta_f64(m, "llm.rope_factor", 0, &v, err, es))) return r;
    h->rope_factor = (float)v;
    v = 1.0; if ((r = llm__meta_f64(m, "llm.rope_low_freq_factor", 0, &v, err, es))) return r;
    h->rope_low_freq_factor = (float)v;
    v = 4.0; if ((r = llm__meta_f64(m, "llm.rope_high_freq_factor", 0, &v, err, es))) return r;
    h->rope_high_freq_factor = (float)v;
    stop = llm__meta_find(m, "llm.eos_token_ids");
    if (stop) {
        if (stop->type != LLM__META_I32_ARRAY || stop->size % 4 || stop->size / 4 > LLM_MAX_STOP_IDS)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: 'llm.eos_token_ids' is not an array of at most %d ids", LLM_MAX_STOP_IDS);
        h->n_stop_ids = (int32_t)(stop->size / 4);
        for (i = 0; i < (size_t)h->n_stop_ids; i++) h->stop_ids[i] = (int32_t)llm__rd32(stop->data + 4 * i);
    }
    return LLM_OK;
}

/* Limits that keep every product below 2^62 and reject nonsense before it is used. */
static llm_result llm__check_info(const llm_model_info *h, char *err, size_t es) {
    int i;
    if (h->n_vocab < 1 || h->n_vocab > (1 << 24)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "vocab_size %d is out of range", h->n_vocab);
    if (h->n_embd < 1 || h->n_embd > (1 << 20)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "hidden_size %d is out of range", h->n_embd);
    if (h->n_ff < 1 || h->n_ff > (1 << 22)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "intermediate_size %d is out of range", h->n_ff);
    if (h->n_layer < 1 || h->n_layer > LLM_MAX_LAYERS) return llm__fail(err, es, LLM_ERR_BAD_FILE, "num_layers %d is out of range", h->n_layer);
    if (h->n_head < 1 || h->n_head > 4096) return llm__fail(err, es, LLM_ERR_BAD_FILE, "num_heads %d is out of range", h->n_head);
    if (h->n_head_kv < 1 || h->n_head % h->n_head_kv != 0)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "num_kv_heads %d does not divide num_heads %d", h->n_head_kv, h->n_head);
    if (h->head_dim < 2 || h->head_dim > 4096 || h->head_dim % 2)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "head_dim %d is not an even number in [2, 4096]", h->head_dim);
    if (h->n_ctx_train < 1) return llm__fail(err, es, LLM_ERR_BAD_FILE, "max_position_embeddings %d is out of range", h->n_ctx_train);
    if (!(h->rms_eps >= 0.0f && h->rms_eps < 1.0f)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "rms_norm_eps is out of range");
    if (!(h->rope_theta > 1.0)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "rope_theta must be > 1");
    if ((unsigned)h->rope_scaling > LLM_ROPE_LLAMA3) return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "unknown rope scaling type %d", (int)h->rope_scaling);
    if (h->rope_scaling != LLM_ROPE_NONE && !(h->rope_factor > 0.0f)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "rope factor must be > 0");
    if (h->rope_scaling == LLM_ROPE_LLAMA3 && (h->rope_original_max_pos < 1 || !(h->rope_low_freq_factor > 0.0f) ||
                                               !(h->rope_high_freq_factor > h->rope_low_freq_factor)))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "llama3 rope scaling parameters are out of range");
    if (h->bos_id < -1 || h->bos_id >= h->n_vocab) return llm__fail(err, es, LLM_ERR_BAD_FILE, "bos_token_id %d is outside the vocabulary", h->bos_id);
    for (i = 0; i < h->n_stop_ids; i++)
        if (h->stop_ids[i] < 0 || h->stop_ids[i] >= h->n_vocab)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "eos token id %d is outside the vocabulary", h->stop_ids[i]);
    return LLM_OK;
}

/* Norm weights and biases are small, and one NaN or infinity in them turns every logit into
   NaN, so they are checked at open (HF would load them and compute NaN). Weight matrices are
   not scanned: that would read the whole file. */
static llm_result llm__check_finite(const llm_tensor *t, char *err, size_t es) {
    const uint8_t *p = (const uint8_t *)t->data;
    size_t i;
    for (i = 0; i < t->size / 4; i++)
        if ((llm__rd32(p + 4 * i) & 0x7f800000u) == 0x7f800000u)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s' holds a NaN or infinity at index %llu", t->name,
                             (unsigned long long)i);
    return LLM_OK;
}

/* Finds a tensor and checks its shape; optional ones may be absent. 1-D tensors (norms,
   biases) must be f32 so the ops can read them directly, and finite. */
static llm_result llm__bind(llm_model *m, const llm_tensor **out, const char *name, int64_t d0, int64_t d1,
                            int optional, char *err, size_t es) {
    const llm_tensor *t = llm_model_tensor(m, name);
    *out = t;
    if (!t) return optional ? LLM_OK : llm__fail(err, es, LLM_ERR_BAD_FILE, "missing tensor '%s'", name);
    if (d1 == 0 && (t->n_dims != 1 || t->shape[0] != d0))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s' has shape [%lld%s], expected [%lld]", name,
                         (long long)t->shape[0], t->n_dims > 1 ? ", ..." : "", (long long)d0);
    if (d1 == 0 && t->dtype != LLM_DTYPE_F32)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s' is %s, norms and biases must be f32", name, llm_dtype_name(t->dtype));
    if (d1 == 0) return llm__check_finite(t, err, es);
    if (d1 != 0 && (t->n_dims != 2 || t->shape[0] != d0 || t->shape[1] != d1))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s' has shape [%lld, %lld], expected [%lld, %lld]", name,
                         (long long)t->shape[0], (long long)(t->n_dims > 1 ? t->shape[1] : 0), (long long)d0, (long long)d1);
    return LLM_OK;
}

static llm_result llm__bind_layer(llm_model *m, int il, char *err, size_t es) {
    const llm_model_info *h = &m->info;
    llm__layer *L = &m->layers[il];
    int64_t q_dim = (int64_t)h->n_head * h->head_dim, kv_dim = (int64_t)h->n_head_kv * h->head_dim;
    char n[96];
    llm_result r;
#define LLM__BIND(field, suffix, d0, d1, opt) \
    snprintf(n, sizeof n, "model.layers.%d.%s", il, suffix); \
    if ((r = llm__bind(m, &L->field, n, d0, d1, opt, err, es)) != LLM_OK) return r;
    LLM__BIND(attn_norm, "input_layernorm.weight", h->n_embd, 0, 0)
    LLM__BIND(wq, "self_attn.q_proj.weight", q_dim, h->n_embd, 0)
    LLM__BIND(wk, "self_attn.k_proj.weight", kv_dim, h->n_embd, 0)
    LLM__BIND(wv, "self_attn.v_proj.weight", kv_dim, h->n_embd, 0)
    LLM__BIND(wo, "self_attn.o_proj.weight", h->n_embd, q_dim, 0)
    LLM__BIND(bq, "self_attn.q_proj.bias", q_dim, 0, 1)
    LLM__BIND(bk, "self_attn.k_proj.bias", kv_dim, 0, 1)
    LLM__BIND(bv, "self_attn.v_proj.bias", kv_dim, 0, 1)
    LLM__BIND(bo, "self_attn.o_proj.bias", h->n_embd, 0, 1)
    LLM__BIND(q_norm, "self_attn.q_norm.weight", h->head_dim, 0, !h->qk_norm)
    LLM__BIND(k_norm, "self_attn.k_norm.weight", h->head_dim, 0, !h->qk_norm)
    LLM__BIND(ffn_norm, "post_attention_layernorm.weight", h->n_embd, 0, 0)
    LLM__BIND(w_gate, "mlp.gate_proj.weight", h->n_ff, h->n_embd, 0)
    LLM__BIND(w_up, "mlp.up_proj.weight", h->n_ff, h->n_embd, 0)
    LLM__BIND(w_down, "mlp.down_proj.weight", h->n_embd, h->n_ff, 0)
#undef LLM__BIND
    return LLM_OK;
}

static llm_result llm__bind_model(llm_model *m, char *err, size_t es) {
    const llm_model_info *h = &m->info;
    const llm__meta *win = llm__meta_find(m, "llm.sliding_window");
    llm_result r;
    size_t i;
    int il;
    if ((r = llm__bind(m, &m->tok_embd, "model.embed_tokens.weight", h->n_vocab, h->n_embd, 0, err, es)) ||
        (r = llm__bind(m, &m->norm, "model.norm.weight", h->n_embd, 0, 0, err, es)))
        return r;
    if (h->tied_embeddings) m->output = m->tok_embd;
    else if ((r = llm__bind(m, &m->output, "lm_head.weight", h->n_vocab, h->n_embd, 0, err, es))) return r;
    if (win && (win->type != LLM__META_I32_ARRAY || win->size != (uint64_t)h->n_layer * 4))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: 'llm.sliding_window' must hold one i32 per layer");
    m->layers = (llm__layer *)llm__calloc(&m->alloc, (size_t)h->n_layer, sizeof *m->layers);
    m->rope_inv_freq = (float *)llm__calloc(&m->alloc, (size_t)h->head_dim / 2, sizeof(float));
    if (!m->layers || !m->rope_inv_freq) return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    for (il = 0; il < h->n_layer; il++) {
        if ((r = llm__bind_layer(m, il, err, es)) != LLM_OK) return r;
        m->layers[il].window = win ? (int32_t)llm__rd32(win->data + 4 * (size_t)il) : 0;
        if (m->layers[il].window < 0) return llm__fail(err, es, LLM_ERR_BAD_FILE, "layer %d: negative sliding window", il);
    }
    llm__rope_inv_freq(m->rope_inv_freq, h);
    m->info.weight_bytes = 0;
    m->info.n_params = 0;
    for (i = 0; i < m->n_tensors; i++) {
        int64_t c = 1;
        int d;
        for (d = 0; d < m->tensors[i].n_dims; d++) c *= m->tensors[i].shape[d];
        m->info.n_params += c;
        m->info.weight_bytes += m->tensors[i].size;
    }
    return LLM_OK;
}

static llm_result llm__model_load(llm_model *m, char *err, size_t es) {
    uint64_t meta_off = 0, meta_size = 0, tab_off = 0, tab_size = 0, n_tensors = 0, data_off = 0;
    llm_result r;
    if (!llm__is_little_endian())
        return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "big-endian hosts are not supported");
    if ((uintptr_t)m->data % 4 != 0)
        return llm__fail(err, es, LLM_ERR_INVALID_ARGUMENT, "the model's bytes must start at a 4-byte aligned address");
    if ((r = llm__parse_header(m, &meta_off, &meta_size, &tab_off, &tab_size, &n_tensors, &data_off, err, es)) ||
        (r = llm__parse_meta(m, meta_off, meta_size, err, es)) ||
        (r = llm__parse_tensors(m, tab_off, tab_size, n_tensors, data_off, err, es)) ||
        (r = llm__read_info(m, err, es)) || (r = llm__check_info(&m->info, err, es)) ||
        (r = llm__bind_model(m, err, es)))
        return r;
    return LLM_OK;
}

static void llm__model_free(llm_model *m) {
    llm_allocator a;
    if (!m) return;
    a = m->alloc;
    llm__free(&a, m->meta);
    llm__free(&a, m->tensors);
    llm__free(&a, m->names);
    llm__free(&a, m->layers);
    llm__free(&a, m->rope_inv_freq);
#if !defined(LLM_NO_STDIO)
    llm__unmap_file(&m->view, &a);
#endif
    llm__free(&a, m);
}

static llm_result llm__model_open_common(llm_model **out, llm_model *m, const llm_model_desc *desc) {
    char err[256];
    llm_result r = llm__model_load(m, err, sizeof err);
    if (r != LLM_OK) {
        if (desc && desc->log) desc->log(desc->log_user, err);
        llm__model_free(m);
        return r;
    }
    *out = m;
    return LLM_OK;
}

static llm_model *llm__model_new(const llm_model_desc *desc) {
    llm_allocator a;
    llm_model *m;
    memset(&a, 0, sizeof a);
    if (desc) a = desc->allocator;
    m = (llm_model *)llm__calloc(&a, 1, sizeof *m);
    if (m) m->alloc = a;
    return m;
}

LLMDEF llm_result llm_model_open_memory(llm_model **out, const void *data, size_t size, const llm_model_desc *desc) {
    llm_model *m;
    if (!out) return LLM_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!data && size) return LLM_ERR_INVALID_ARGUMENT;
    if (!(m = llm__model_new(desc))) return LLM_ERR_OUT_OF_MEMORY;
    m->data = (const uint8_t *)data;
    m->size = size;
    return llm__model_open_common(out, m, desc);
}

#if !defined(LLM_NO_STDIO)
LLMDEF llm_result llm_model_open(llm_model **out, const char *path, const llm_model_desc *desc) {
    llm_model *m;
    char err[256];
    llm_result r;
    if (!out) return LLM_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!path) return LLM_ERR_INVALID_ARGUMENT;
    if (!(m = llm__model_new(desc))) return LLM_ERR_OUT_OF_MEMORY;
    r = llm__map_file(path, &m->alloc, desc ? desc->no_mmap : 0, &m->view, err, sizeof err);
    if (r != LLM_OK) {
        if (desc && desc->log) desc->log(desc->log_user, err);
        llm__model_free(m);
        return r;
    }
    m->data = (const uint8_t *)m->view.data;
    m->size = m->view.size;
    return llm__model_open_common(out, m, desc);
}
#endif

LLMDEF void llm_model_close(llm_model *m) { llm__model_free(m); }

LLMDEF const llm_model_info *llm_model_info_get(const llm_model *m) { return m ? &m->info : NULL; }

/* ---- llm: context and forward pass -------------------------------------------------------- */
struct llm_ctx {
    const llm_model *model;
    llm_allocator alloc;
    int32_t n_ctx, n_threads, n_batch, pos;
    llm_kv_type kv_type;
    void *k_cache, *v_cache;   /* [layer][kv_head][n_ctx][head_dim] */
    size_t kv_bytes;
    /* scratch, sized for n_batch tokens */
    float *x, *xb, *q, *k, *v, *att_out, *hb, *hb2, *scores, *logits;
    int32_t *tokens;           /* the ids at positions [0, pos) */
    void *sample_scratch;      /* llm_sample_scratch_bytes(n_vocab) */
    int has_logits;
    char error[256];
};

LLMDEF uint64_t llm_kv_cache_bytes(int64_t n_layer, int64_t n_head_kv, int64_t head_dim, int64_t n_ctx,
                                   int64_t bytes_per_element) {
    return 2u * (uint64_t)n_layer * (uint64_t)n_head_kv * (uint64_t)head_dim * (uint64_t)n_ctx * (uint64_t)bytes_per_element;
}

static void llm__ctx_free(llm_ctx *c) {
    llm_allocator a = c->alloc;
    llm__free(&a, c->k_cache); llm__free(&a, c->v_cache);
    llm__free(&a, c->x); llm__free(&a, c->xb); llm__free(&a, c->q); llm__free(&a, c->k); llm__free(&a, c->v);
    llm__free(&a, c->att_out); llm__free(&a, c->hb); llm__free(&a, c->hb2); llm__free(&a, c->scores);
    llm__free(&a, c->logits); llm__free(&a, c->tokens); llm__free(&a, c->sample_scratch);
    llm__free(&a, c);
}

LLMDEF llm_result llm_ctx_open(llm_ctx **out, const llm_model *model, const llm_ctx_desc *desc) {
    llm_ctx_desc d;
    llm_ctx *c;
    const llm_model_info *h;
    size_t B, q_dim, kv_dim, kv_elems, es;
    if (!out) return LLM_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!model) return LLM_ERR_INVALID_ARGUMENT;
    h = &model->info;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.n_ctx < 0 || d.n_threads < 0 || d.n_batch < 0 || (unsigned)d.kv_type > LLM_KV_F16) return LLM_ERR_INVALID_ARGUMENT;
    if (d.n_ctx == 0) d.n_ctx = h->n_ctx_train < 4096 ? h->n_ctx_train : 4096;
    if (d.n_batch == 0) d.n_batch = 32;
    if (d.n_batch > d.n_ctx) d.n_batch = d.n_ctx;
#ifdef _OPENMP
    if (d.n_threads == 0) d.n_threads = omp_get_max_threads();
#else
    d.n_threads = 1;
#endif
    if (d.kv_type == LLM_KV_DEFAULT) d.kv_type = LLM_KV_F32;
    c = (llm_ctx *)llm__calloc(&d.allocator, 1, sizeof *c);
    if (!c) return LLM_ERR_OUT_OF_MEMORY;
    c->model = model; c->alloc = d.allocator;
    c->n_ctx = d.n_ctx; c->n_threads = d.n_threads; c->n_batch = d.n_batch; c->kv_type = d.kv_type;
    B = (size_t)d.n_batch;
    q_dim = (size_t)h->n_head * (size_t)h->head_dim;
    kv_dim = (size_t)h->n_head_kv * (size_t)h->head_dim;
    es = d.kv_type == LLM_KV_F16 ? 2 : 4;
    if (!llm__mul_ok((size_t)h->n_layer * kv_dim, (size_t)d.n_ctx, &kv_elems) || !llm__mul_ok(kv_elems, es, &c->kv_bytes)) {
        llm__ctx_free(c);
        return LLM_ERR_OUT_OF_MEMORY;
    }
    c->k_cache = llm__alloc(&c->alloc, c->kv_bytes);
    c->v_cache = llm__alloc(&c->alloc, c->kv_bytes);
    c->kv_bytes *= 2;
    c->x = (float *)llm__calloc(&c->alloc, B * (size_t)h->n_embd, 4);
    c->xb = (float *)llm__calloc(&c->alloc, B * (size_t)h->n_embd, 4);
    c->q = (float *)llm__calloc(&c->alloc, B * q_dim, 4);
    c->k = (float *)llm__calloc(&c->alloc, B * kv_dim, 4);
    c->v = (float *)llm__calloc(&c->alloc, B * kv_dim, 4);
    c->att_out = (float *)llm__calloc(&c->alloc, B * q_dim, 4);
    c->hb = (float *)llm__calloc(&c->alloc, B * (size_t)h->n_ff, 4);
    c->hb2 = (float *)llm__calloc(&c->alloc, B * (size_t)h->n_ff, 4);
    c->scores = (float *)llm__calloc(&c->alloc, (size_t)h->n_head * (size_t)d.n_ctx, 4);
    c->logits = (float *)llm__calloc(&c->alloc, (size_t)h->n_vocab, 4);
    c->tokens = (int32_t *)llm__calloc(&c->alloc, (size_t)d.n_ctx, 4);
    c->sample_scratch = llm__alloc(&c->alloc, llm_sample_scratch_bytes(h->n_vocab));
    if (!c->tokens || !c->sample_scratch || !c->k_cache || !c->v_cache || !c->x || !c->xb || !c->q || !c->k || !c->v || !c->att_out || !c->hb ||
        !c->hb2 || !c->scores || !c->logits) {
        llm__ctx_free(c);
        return LLM_ERR_OUT_OF_MEMORY;
    }
    *out = c;
    return LLM_OK;
}

LLMDEF void llm_ctx_close(llm_ctx *c) { if (c) llm__ctx_free(c); }
LLMDEF const char *llm_ctx_error(const llm_ctx *c) { return c ? c->error : "no context"; }
LLMDEF const float *llm_logits(const llm_ctx *c) { return c ? c->logits : NULL; }
LLMDEF int32_t llm_ctx_pos(const llm_ctx *c) { return c ? c->pos : 0; }
LLMDEF int32_t llm_ctx_size(const llm_ctx *c) { return c ? c->n_ctx : 0; }
LLMDEF size_t llm_ctx_kv_bytes(const llm_ctx *c) { return c ? c->kv_bytes : 0; }
LLMDEF const int32_t *llm_ctx_tokens(const llm_ctx *c) { return c ? c->tokens : NULL; }

LLMDEF llm_result llm_ctx_rewind(llm_ctx *c, int32_t pos) {
    if (!c) return LLM_ERR_INVALID_ARGUMENT;
    if (pos < 0 || pos > c->pos) {
        snprintf(c->error, sizeof c->error, "cannot rewind to position %d: the context holds %d tokens", pos, c->pos);
        return LLM_ERR_INVALID_ARGUMENT;
    }
    c->pos = pos;
    c->has_logits = 0; /* the logits belong to a token that is gone */
    return LLM_OK;
}

/* Cache row of (layer, kv head, position): [layer][kv_head][n_ctx][head_dim]. */
static size_t llm__kv_index(const llm_ctx *c, int layer, int kv_head, int pos) {
    const llm_model_info *h = &c->model->info;
    return (((size_t)layer * (size_t)h->n_head_kv + (size_t)kv_head) * (size_t)c->n_ctx + (size_t)pos) * (size_t)h->head_dim;
}

static void llm__kv_store(llm_ctx *c, void *cache, size_t idx, const float *src, int n) {
    int i;
    if (c->kv_type == LLM_KV_F16) for (i = 0; i < n; i++) ((uint16_t *)cache)[idx + (size_t)i] = llm_f32_to_f16(src[i]);
    else memcpy((float *)cache + idx, src, (size_t)n * 4);
}

static float llm__kv_dot(const llm_ctx *c, const void *cache, size_t idx, const float *q, int n) {
    if (c->kv_type == LLM_KV_F16) return llm__dot_f16((const uint16_t *)cache + idx, q, n);
    return llm__dot_f32((const float *)cache + idx, q, n);
}

static void llm__kv_axpy(const llm_ctx *c, float *out, float a, const void *cache, size_t idx, int n) {
    int i;
    if (c->kv_type == LLM_KV_F16) {
        const uint16_t *v = (const uint16_t *)cache + idx;
        for (i = 0; i < n; i++) out[i] += a * llm_f16_to_f32(v[i]);
    } else {
        const float *v = (const float *)cache + idx;
        for (i = 0; i < n; i++) out[i] += a * v[i];
    }
}

/* Causal GQA attention of one query head over cached positions [first, last]; query head
   h reads kv head h / (n_head / n_head_kv), as HF's repeat_kv does. */
static void llm__attention_head(llm_ctx *c, int layer, int head, const float *q, int first, int last, float *scores,
                                float *out) {
    const llm_model_info *h = &c->model->info;
    int kvh = head / (h->n_head / h->n_head_kv), t, n = last - first + 1;
    float scale = 1.0f / sqrtf((float)h->head_dim);
    for (t = 0; t < n; t++)
        scores[t] = llm__kv_dot(c, c->k_cache, llm__kv_index(c, layer, kvh, first + t), q, h->head_dim) * scale;
    llm__softmax(scores, n);
    memset(out, 0, (size_t)h->head_dim * 4);
    for (t = 0; t < n; t++) llm__kv_axpy(c, out, scores[t], c->v_cache, llm__kv_index(c, layer, kvh, first + t), h->head_dim);
}

/* q, k: per-head RMSNorm (qwen3), then RoPE; k and v go into the cache. */
static void llm__qk_prepare(llm_ctx *c, const llm__layer *L, int layer, int n_tok) {
    const llm_model *m = c->model;
    const llm_model_info *h = &m->info;
    int b, hh, hd = h->head_dim;
    size_t q_dim = (size_t)h->n_head * hd, kv_dim = (size_t)h->n_head_kv * hd;
    for (b = 0; b < n_tok; b++) {
        int pos = c->pos + b;
        float *q = c->q + (size_t)b * q_dim, *k = c->k + (size_t)b * kv_dim, *v = c->v + (size_t)b * kv_dim;
        for (hh = 0; hh < h->n_head; hh++) {
            if (L->q_norm) llm__rmsnorm(q + hh * hd, q + hh * hd, (const float *)L->q_norm->data, hd, h->rms_eps);
            llm__rope_rotate_half(q + hh * hd, hd, pos, m->rope_inv_freq);
        }
        for (hh = 0; hh < h->n_head_kv; hh++) {
            if (L->k_norm) llm__rmsnorm(k + hh * hd, k + hh * hd, (const float *)L->k_norm->data, hd, h->rms_eps);
            llm__rope_rotate_half(k + hh * hd, hd, pos, m->rope_inv_freq);
            llm__kv_store(c, c->k_cache, llm__kv_index(c, layer, hh, pos), k + hh * hd, hd);
            llm__kv_store(c, c->v_cache, llm__kv_index(c, layer, hh, pos), v + hh * hd, hd);
        }
    }
}

static void llm__attention_gqa(llm_ctx *c, const llm__layer *L, int layer, int n_tok) {
    const llm_model_info *h = &c->model->info;
    int hh;
    size_t q_dim = (size_t)h->n_head * h->head_dim;
#ifdef _OPENMP
#pragma omp parallel for num_threads(c->n_threads) schedule(static)
#endif
    for (hh = 0; hh < h->n_head; hh++) {
        int b;
        for (b = 0; b < n_tok; b++) {
            int pos = c->pos + b;
            /* HF's sliding window keeps key j for query i when i - j < window. */
            int first = L->window > 0 && pos - L->window + 1 > 0 ? pos - L->window + 1 : 0;
            llm__attention_head(c, layer, hh, c->q + (size_t)b * q_dim + (size_t)hh * h->head_dim, first, pos,
                                c->scores + (size_t)hh * c->n_ctx, c->att_out + (size_t)b * q_dim + (size_t)hh * h->head_dim);
        }
    }
}

static void llm__add(float *x, const float *y, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) x[i] += y[i];
}

/* One pre-norm block over n_tok tokens: x += attn(norm(x)); x += ffn(norm(x)). */
static void llm__block(llm_ctx *c, int layer, int n_tok) {
    const llm_model_info *h = &c->model->info;
    const llm__layer *L = &c->model->layers[layer];
    int b, nt = c->n_threads, D = h->n_embd, q_dim = h->n_head * h->head_dim, kv_dim = h->n_head_kv * h->head_dim;
    for (b = 0; b < n_tok; b++)
        llm__rmsnorm(c->xb + (size_t)b * D, c->x + (size_t)b * D, (const float *)L->attn_norm->data, D, h->rms_eps);
    llm__matmul(c->q, L->wq, L->bq, c->xb, n_tok, D, q_dim, nt);
    llm__matmul(c->k, L->wk, L->bk, c->xb, n_tok, D, kv_dim, nt);
    llm__matmul(c->v, L->wv, L->bv, c->xb, n_tok, D, kv_dim, nt);
    llm__qk_prepare(c, L, layer, n_tok);
    llm__attention_gqa(c, L, layer, n_tok);
    llm__matmul(c->xb, L->wo, L->bo, c->att_out, n_tok, q_dim, D, nt);
    llm__add(c->x, c->xb, (size_t)n_tok * D);
    for (b = 0; b < n_tok; b++)
        llm__rmsnorm(c->xb + (size_t)b * D, c->x + (size_t)b * D, (const float *)L->ffn_norm->data, D, h->rms_eps);
    llm__matmul(c->hb, L->w_gate, NULL, c->xb, n_tok, D, h->n_ff, nt);
    llm__matmul(c->hb2, L->w_up, NULL, c->xb, n_tok, D, h->n_ff, nt);
    llm__swiglu(c->hb, c->hb2, (size_t)n_tok * h->n_ff);
    llm__matmul(c->xb, L->w_down, NULL, c->hb, n_tok, h->n_ff, D, nt);
    llm__add(c->x, c->xb, (size_t)n_tok * D);
}

/* Evaluates a chunk of at most n_batch tokens; logits only for the chunk's last token. */
static void llm__forward_chunk(llm_ctx *c, const int32_t *tokens, int n_tok, int want_logits) {
    const llm_model *m = c->model;
    const llm_model_info *h = &m->info;
    int b, layer, D = h->n_embd;
    for (b = 0; b < n_tok; b++) llm__get_row(m->tok_embd, tokens[b], c->x + (size_t)b * D, D);
    memcpy(c->tokens + c->pos, tokens, (size_t)n_tok * sizeof *tokens);
    for (layer = 0; layer < h->n_layer; layer++) llm__block(c, layer, n_tok);
    c->pos += n_tok;
    if (!want_logits) return;
    llm__rmsnorm(c->xb, c->x + (size_t)(n_tok - 1) * D, (const float *)m->norm->data, D, h->rms_eps);
    llm__matmul(c->logits, m->output, NULL, c->xb, 1, D, h->n_vocab, c->n_threads);
    c->has_logits = 1;
}

LLMDEF llm_result llm_eval(llm_ctx *c, const int32_t *tokens, size_t n) {
    size_t i;
    if (!c) return LLM_ERR_INVALID_ARGUMENT;
    if (!tokens || n == 0) {
        snprintf(c->error, sizeof c->error, "llm_eval: no tokens given");
        return LLM_ERR_INVALID_ARGUMENT;
    }
    if (n > (size_t)(c->n_ctx - c->pos)) {
        snprintf(c->error, sizeof c->error, "llm_eval: %llu tokens at position %d pass the context size %d",
                 (unsigned long long)n, c->pos, c->n_ctx);
        return LLM_ERR_CONTEXT_FULL;
    }
    for (i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= c->model->info.n_vocab) {
            snprintf(c->error, sizeof c->error, "llm_eval: token %d at index %llu is outside the vocabulary (%d)",
                     tokens[i], (unsigned long long)i, c->model->info.n_vocab);
            return LLM_ERR_BAD_TOKEN;
        }
    for (i = 0; i < n; i += (size_t)c->n_batch) {
        size_t chunk = n - i < (size_t)c->n_batch ? n - i : (size_t)c->n_batch;
        llm__forward_chunk(c, tokens + i, (int)chunk, i + chunk == n);
    }
    return LLM_OK;
}

/* ---- llm: tokenizer ------------------------------------------------------------------------ */

/* ---- llm: sampler -------------------------------------------------------------------------- */
typedef struct llm__cand {
    float z;    /* logit / temperature */
    int32_t id;
} llm__cand;

/* splitmix64 (Steele, Lea, Flood 2014): any state is valid, the sequence is the same everywhere. */
static uint64_t llm__rng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double llm__rng_uniform(llm_sampler *s) {
    if (s->state == 0) {
        uint64_t t = s->seed;
        s->state = llm__rng_next(&t) | 1;
    }
    return (double)(llm__rng_next(&s->state) >> 11) * (1.0 / 9007199254740992.0); /* [0, 1), 53 bits */
}

/* exp(x) for x <= 0 from IEEE additions and multiplications only, one per statement (no
   fused multiply-add), so draws do not depend on the platform's libm. Relative error ~1e-16. */
static double llm__exp_neg(double x) {
    static const double inv_fact[13] = { 1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                                         1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600 };
    double k, r, p;
    int i;
    if (!(x > -740.0)) return 0.0;
    if (x > 709.0) return HUGE_VAL; /* x > 0 only through float rounding of huge scaled logits */
    k = floor(x * 1.4426950408889634 + 0.5);  /* x = k ln2 + r, |r| <= ln2 / 2 */
    r = x - k * 0.6931471803691238;           /* ln2 in two parts (fdlibm): k * hi is exact */
    r = r - k * 1.9082149292705877e-10;
    p = inv_fact[12];                         /* Taylor series to r^12, Horner form */
    for (i = 11; i >= 1; i--) {
        p = p * r;
        p = p + inv_fact[i];
    }
    p = p * r;
    p = p + 1.0;
    return ldexp(p, (int)k);
}

/* Penalties on the window's distinct ids; counts live in the candidate array meanwhile. */
static void llm__apply_penalties(const llm_sampler *s, float *v, int32_t n, const int32_t *recent, size_t n_recent,
                                 int32_t *count) {
    size_t i;
    float rp = s->repeat_penalty > 0.0f ? s->repeat_penalty : 1.0f;
    if (rp == 1.0f && s->frequency_penalty == 0.0f && s->presence_penalty == 0.0f) return;
    for (i = 0; i < n_recent; i++)
        if (recent[i] >= 0 && recent[i] < n) count[recent[i]] = 0;
    for (i = 0; i < n_recent; i++)
        if (recent[i] >= 0 && recent[i] < n) count[recent[i]]++;
    for (i = 0; i < n_recent; i++) {
        int32_t t = recent[i], c;
        float pen;
        if (t < 0 || t >= n || (c = count[t]) == 0) continue;
        count[t] = 0; /* once per distinct id */
        v[t] = v[t] > 0.0f ? v[t] / rp : v[t] * rp;
        /* one operation per statement: each result is rounded to float on every FPU (x87
           included) and no compiler fuses them into a multiply-add */
        pen = (float)c * s->frequency_penalty;
        pen += s->presence_penalty;
        v[t] -= pen;
    }
}

static int32_t llm__argmax(const float *v, int32_t n) {
    int32_t i, best = 0;
    for (i = 1; i < n; i++) if (v[i] > v[best]) best = i;
    return best;
}

static int llm__cand_cmp(const void *a, const void *b) {
    const llm__cand *x = (const llm__cand *)a, *y = (const llm__cand *)b;
    if (x->z != y->z) return x->z > y->z ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Candidate selection for top-k/top-p: a histogram of each id's distance below the largest
   scaled logit (LLM__BUCKETS buckets of 1/8, then a tail) finds the first bucket by which
   the candidates surely hold the top-k set (with top-k) or the top-p set (without: a lower
   bound of their mass against the exact total, *total). Only those candidates are sorted. */
#define LLM__BUCKETS 256

/* dist >= 0 but for rounding (a fused multiply-add in zmax - v * inv_t can make it slightly
   negative, hugely so for huge logits); NaN goes to the tail. */
static int llm__bucket(double dist) {
    return dist < LLM__BUCKETS / 8.0 ? (dist > 0.0 ? (int)(dist * 8.0) : 0) : LLM__BUCKETS;
}

static int llm__cutoff_bucket(const llm_sampler *s, const float *v, int32_t n, double inv_t, double zmax, double *total) {
    int64_t count[LLM__BUCKETS + 1], seen = 0;
    double mass = 0.0, t = 0.0;
    int32_t i;
    int b;
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) {
        double d = zmax - (double)v[i] * inv_t;
        count[llm__bucket(d)]++;
        t += llm__exp_neg(-d);
    }
    *total = t;
    for (b = 0; b < LLM__BUCKETS; b++) {
        seen += count[b];
        mass += (double)count[b] * llm__exp_neg(-(b + 1) / 8.0);
        if (s->top_k > 0 ? seen >= s->top_k : mass >= (double)s->top_p * t) break;
    }
    return b;
}

LLMDEF size_t llm_sample_scratch_bytes(int32_t n_vocab) {
    return n_vocab > 0 ? (size_t)n_vocab * (sizeof(float) + sizeof(llm__cand)) : 0;
}

/* Keeps the first ids of the sorted candidates that top-k and top-p allow; returns how many.
   Top-p measures against the top-k set's mass, or the total without top-k. */
static int32_t llm__top_k_top_p(const llm_sampler *s, const llm__cand *c, int32_t k, double zmax, double total) {
    double mass = total, acc = 0.0;
    int32_t i;
    if (s->top_k > 0 && s->top_k < k) k = s->top_k;
    if (!(s->top_p > 0.0f && s->top_p < 1.0f)) return k;
    if (s->top_k > 0)
        for (mass = 0.0, i = 0; i < k; i++) mass += llm__exp_neg((double)c[i].z - zmax);
    for (i = 0; i < k; i++) {
        acc += llm__exp_neg((double)c[i].z - zmax);
        if (acc >= (double)s->top_p * mass) return i + 1;
    }
    return k;
}

LLMDEF int32_t llm_sample_logits(llm_sampler *s, const float *logits, int32_t n, const int32_t *recent, size_t n_recent,
                                 void *scratch) {
    float *v = (float *)scratch;
    llm__cand *c;
    double inv_t, zmax, mass, r, acc, total = 0.0;
    int32_t i, k = 0, keep, best;
    int sorted, last_bucket = LLM__BUCKETS;
    if (!s || !logits || n < 1 || !scratch) return -1;
    c = (llm__cand *)(v + n);
    memcpy(v, logits, (size_t)n * sizeof *v);
    llm__apply_penalties(s, v, n, recent, recent ? n_recent : 0, (int32_t *)c);
    for (i = 0; i < n; i++)
        if (v[i] != v[i]) v[i] = -INFINITY; /* a NaN logit (or penalty) never wins */
    best = llm__argmax(v, n);
    if (!(s->temperature > 0.0f)) return best;
    inv_t = s->temperature < 1e30f ? 1.0 / (double)s->temperature : 1e-30;
    zmax = (double)v[best] * inv_t;
    if (!(fabs(zmax) <= 3.4028234663852886e38)) return best; /* an infinite largest logit wins outright */
    sorted = (s->top_k > 0 && s->top_k < n) || (s->top_p > 0.0f && s->top_p < 1.0f);
    if (sorted) last_bucket = llm__cutoff_bucket(s, v, n, inv_t, zmax, &total);
    for (i = 0; i < n; i++) {
        double z = (double)v[i] * inv_t;
        if (last_bucket < LLM__BUCKETS && llm__bucket(zmax - z) > last_bucket) continue;
        c[k].z = (float)z;
        c[k].id = i;
        k++;
    }
    keep = k;
    if (sorted) {
        qsort(c, (size_t)k, sizeof *c, llm__cand_cmp);
        keep = llm__top_k_top_p(s, c, k, zmax, total);
    }
    if (s->min_p > 0.0f) { /* the largest always stays: exp(0) = 1 */
        for (i = k = 0; i < keep; i++)
            if (llm__exp_neg((double)c[i].z - zmax) >= (double)s->min_p || (double)c[i].z == zmax) c[k++] = c[i];
        keep = k;
        if (keep == 0) return best; /* min_p > 1, and the largest rounded below zmax as a float */
    }
    for (mass = 0.0, i = 0; i < keep; i++) mass += llm__exp_neg((double)c[i].z - zmax);
    r = llm__rng_uniform(s) * mass;
    for (acc = 0.0, i = 0; i < keep; i++) {
        acc += llm__exp_neg((double)c[i].z - zmax);
        if (r < acc) return c[i].id;
    }
    return c[keep - 1].id; /* r rounded up to the mass */
}

LLMDEF int32_t llm_sample(llm_ctx *ctx, llm_sampler *s) {
    int32_t n_recent, first;
    if (!ctx || !s || !ctx->has_logits) return -1;
    n_recent = s->repeat_last_n < 0 ? ctx->pos : s->repeat_last_n == 0 ? 64 : s->repeat_last_n;
    if (n_recent > ctx->pos) n_recent = ctx->pos;
    first = ctx->pos - n_recent;
    return llm_sample_logits(s, ctx->logits, ctx->model->info.n_vocab, ctx->tokens + first, (size_t)n_recent,
                             ctx->sample_scratch);
}

/* ---- llm: chat templates ------------------------------------------------------------------- */
enum {
    LLM__T_RAW, LLM__T_ZEPHYR, LLM__T_LLAMA2, LLM__T_MISTRAL_V1, LLM__T_MISTRAL_V3, LLM__T_MISTRAL_LEGACY_SPACE,
    LLM__T_MISTRAL_LEGACY, LLM__T_CHATML, LLM__T_SMOLLM2, LLM__T_QWEN25, LLM__T_QWEN3, LLM__T_GEMMA2, LLM__T_GEMMA3,
    LLM__T_LLAMA3, LLM__T_LLAMA3_BASE, LLM__T_LLAMA31, LLM__T_LLAMA32, LLM__T_COUNT
};

/* name, family, end-of-turn token text (NULL: the model's eos token) */
static const char *const llm__templates[LLM__T_COUNT][3] = {
    { "raw", "raw", NULL }, { "zephyr", "zephyr", "" }, { "llama2", "llama2", "" },
    { "mistral-v1", "mistral", "" }, { "mistral-v3", "mistral", "" }, { "mistral-v0.1-legacy", "mistral", "" },
    { "mistral-v0.2-legacy", "mistral", "" }, { "chatml", "chatml", "<|im_end|>" }, { "smollm2", "chatml", "<|im_end|>" },
    { "qwen2.5", "chatml", "<|im_end|>" }, { "qwen3", "chatml", "<|im_end|>" }, { "gemma2", "gemma", "<end_of_turn>" },
    { "gemma3", "gemma", "<end_of_turn>" }, { "llama3", "llama3", "<|eot_id|>" }, { "llama3-base", "llama3", "<|eot_id|>" },
    { "llama3.1", "llama3", "<|eot_id|>" }, { "llama3.2", "llama3", "<|eot_id|>" },
};

/* The templates' own messages (raise_exception), and Jinja's for messages[0] of an empty list. */
#define LLM__E_EMPTY "list object has no element 0"
#define LLM__E_ALTERNATE "Conversation roles must alternate user/assistant/user/assistant/..."
#define LLM__E_ALTERNATE_SYS "After the optional system message, conversation roles must alternate user/assistant/user/assistant/..."
#define LLM__E_ONLY_UA_SYS "Only user and assistant roles are supported, with the exception of an initial optional system message!"
#define LLM__E_ONLY_UA "Only user and assistant roles are supported!"
#define LLM__E_TOOL_IDS "Tool call IDs should be alphanumeric strings with length 9!"
#define LLM__E_SYSTEM "System role not supported"

typedef struct llm__str {
    const char *p;
    size_t n;
} llm__str;

typedef struct llm__chat {
    char *out;
    size_t cap, n;                     /* n counts past cap, to report the size needed */
    const llm_chat_message *m;
    size_t n_msg;
    int agp, no_thinking;
    llm__str bos, eos, default_system, date;
    const char *error;
} llm__chat;

static llm__str llm__s(const char *p) { llm__str s; s.p = p; s.n = strlen(p); return s; }

static void llm__emit(llm__chat *c, llm__str s) {
    if (c->n < c->cap) memcpy(c->out + c->n, s.p, s.n < c->cap - c->n ? s.n : c->cap - c->n);
    c->n += s.n;
}

static void llm__emits(llm__chat *c, const char *s) { llm__emit(c, llm__s(s)); }

static int llm__fail_chat(llm__chat *c, const char *msg) { c->error = msg; return -1; }

static int llm__role_is(const llm_chat_message *m, const char *role) { return strcmp(m->role, role) == 0; }

/* Python str.isspace() for the UTF-8 character at p (n bytes left): its length, or 0. */
static size_t llm__space_len(const unsigned char *p, size_t n) {
    if ((p[0] >= 9 && p[0] <= 13) || (p[0] >= 0x1c && p[0] <= 0x20)) return 1;
    if (n >= 2 && p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0)) return 2;
    if (n < 3) return 0;
    if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80) return 3;                       /* U+1680 */
    if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) || p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
        return 3;                                                                      /* U+2000-200A, 2028, 2029, 202F */
    if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f) return 3;                       /* U+205F */
    if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80) return 3;                       /* U+3000 */
    return 0;
}

static llm__str llm__lstrip(llm__str s) {
    size_t k;
    while (s.n && (k = llm__space_len((const unsigned char *)s.p, s.n)) > 0) { s.p += k; s.n -= k; }
    return s;
}

static llm__str llm__rstrip(llm__str s) {
    for (;;) {
        size_t k, back = 0;
        for (k = 1; k <= 3 && k <= s.n && !back; k++)
            if (llm__space_len((const unsigned char *)s.p + s.n - k, k) == k) back = k;
        if (!back) return s;
        s.n -= back;
    }
}

/* Python str.strip() (Jinja's trim filter). */
static llm__str llm__strip(llm__str s) { return llm__rstrip(llm__lstrip(s)); }

static llm__str llm__lstrip_nl(llm__str s) { while (s.n && s.p[0] == '\n') { s.p++; s.n--; } return s; }
static llm__str llm__rstrip_nl(llm__str s) { while (s.n && s.p[s.n - 1] == '\n') s.n--; return s; }

static const char *llm__find(llm__str s, const char *needle) {
    size_t k = strlen(needle), i;
    for (i = 0; i + k <= s.n; i++)
        if (memcmp(s.p + i, needle, k) == 0) return s.p + i;
    return NULL;
}

static const char *llm__find_last(llm__str s, const char *needle) {
    size_t k = strlen(needle), i;
    for (i = s.n + 1; i-- > 0;)
        if (i + k <= s.n && memcmp(s.p + i, needle, k) == 0) return s.p + i;
    return NULL;
}

static llm__str llm__content(const llm__chat *c, size_t i) { return llm__s(c->m[i].content); }

/* "<open>" + role + "<close>" + content + "<end>": the turn shape most templates share. */
static void llm__turn(llm__chat *c, const char *open, const char *role, const char *close, llm__str content, const char *end) {
    llm__emits(c, open); llm__emits(c, role); llm__emits(c, close); llm__emit(c, content); llm__emits(c, end);
}

/* Python json.dumps(s, ensure_ascii=False) (transformers' tojson filter). */
static void llm__emit_json_string(llm__chat *c, llm__str s) {
    size_t i;
    llm__emits(c, "\"");
    for (i = 0; i < s.n; i++) {
        unsigned char ch = (unsigned char)s.p[i];
        char esc[8];
        const char *e = NULL;
        switch (ch) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        default:
            if (ch < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", ch); e = esc; }
        }
        if (e) llm__emits(c, e);
        else { llm__str one; one.p = s.p + i; one.n = 1; llm__emit(c, one); }
    }
    llm__emits(c, "\"");
}

/* Roles alternate user/assistant from the first looped message (index j). */
static int llm__alternates(const llm_chat_message *m, size_t j) { return llm__role_is(m, "user") == (j % 2 == 0); }

static int llm__render_zephyr(llm__chat *c) {
    size_t i;
    for (i = 0; i < c->n_msg; i++) {
        const char *r = c->m[i].role;
        if (!strcmp(r, "user") || !strcmp(r, "system") || !strcmp(r, "assistant")) {
            llm__turn(c, "<|", r, "|>\n", llm__content(c, i), "");
            llm__emit(c, c->eos);
            llm__emits(c, "\n");
        }
        if (i + 1 == c->n_msg && c->agp) llm__emits(c, "<|assistant|>\n");
    }
    return 0;
}

/* The system text joins the first user turn; .strip() applies to that whole string. */
static int llm__render_llama2(llm__chat *c) {
    size_t i, first;
    if (c->n_msg == 0) return llm__fail_chat(c, LLM__E_EMPTY);
    first = llm__role_is(&c->m[0], "system");
    for (i = first; i < c->n_msg; i++) {
        size_t j = i - first;
        int user = llm__role_is(&c->m[i], "user");
        llm__str text = llm__content(c, i);
        if (!llm__alternates(&c->m[i], j)) return llm__fail_chat(c, LLM__E_ALTERNATE);
        if (!user && !llm__role_is(&c->m[i], "assistant")) continue;
        if (user) { llm__emit(c, c->bos); llm__emits(c, "[INST] "); }
        else llm__emits(c, " ");
        if (j == 0 && first) {
            llm__emits(c, "<<SYS>>\n"); llm__emit(c, llm__content(c, 0)); llm__emits(c, "\n<</SYS>>");
            text = llm__rstrip(text);
            if (text.n) llm__emits(c, "\n\n");
            llm__emit(c, text);
        } else {
            llm__emit(c, llm__strip(text));
        }
        if (user) llm__emits(c, " [/INST]");
        else { llm__emits(c, " "); llm__emit(c, c->eos); }
    }
    return 0;
}

static int llm__render_mistral_v1(llm__chat *c) {
    size_t i, first;
    if (c->n_msg == 0) return llm__fail_chat(c, LLM__E_EMPTY);
    first = llm__role_is(&c->m[0], "system");
    llm__emit(c, c->bos);
    for (i = first; i < c->n_msg; i++) {
        size_t j = i - first;
        if (!llm__alternates(&c->m[i], j)) return llm__fail_chat(c, LLM__E_ALTERNATE_SYS);
        if (llm__role_is(&c->m[i], "user")) {
            llm__emits(c, " [INST] ");
            if (j == 0 && first) { llm__emit(c, llm__content(c, 0)); llm__emits(c, "\n\n"); }
            llm__emit(c, llm__content(c, i));
            llm__emits(c, " [/INST]");
        } else if (llm__role_is(&c->m[i], "assistant")) {
            llm__emits(c, " "); llm__emit(c, llm__content(c, i)); llm__emit(c, c->eos);
        } else {
            return llm__fail_chat(c, LLM__E_ONLY_UA_SYS);
        }
    }
    return 0;
}

static int llm__render_mistral_legacy(llm__chat *c, int space_after_eos) {
    size_t i;
    llm__emit(c, c->bos);
    for (i = 0; i < c->n_msg; i++) {
        if (!llm__alternates(&c->m[i], i)) return llm__fail_chat(c, LLM__E_ALTERNATE);
        if (llm__role_is(&c->m[i], "user")) {
            llm__turn(c, "[INST] ", "", "", llm__content(c, i), " [/INST]");
        } else if (llm__role_is(&c->m[i], "assistant")) {
            llm__emit(c, llm__content(c, i)); llm__emit(c, c->eos);
            if (space_after_eos) llm__emits(c, " ");
        } else {
            return llm__fail_chat(c, LLM__E_ONLY_UA);
        }
    }
    return 0;
}

/* v3: alternation is checked first (tool messages skipped); the system text goes into the
   last message when it is a user turn. */
static int llm__render_mistral_v3(llm__chat *c) {
    size_t i, first, j = 0;
    if (c->n_msg == 0) return llm__fail_chat(c, LLM__E_EMPTY);
    first = llm__role_is(&c->m[0], "system");
    for (i = first; i < c->n_msg; i++) {
        if (llm__role_is(&c->m[i], "tool") || llm__role_is(&c->m[i], "tool_results")) continue;
        if (!llm__alternates(&c->m[i], j++)) return llm__fail_chat(c, LLM__E_ALTERNATE_SYS);
    }
    llm__emit(c, c->bos);
    for (i = first; i < c->n_msg; i++) {
        if (llm__role_is(&c->m[i], "user")) {
            llm__emits(c, "[INST] ");
            if (i + 1 == c->n_msg && first) { llm__emit(c, llm__content(c, 0)); llm__emits(c, "\n\n"); }
            llm__emit(c, llm__content(c, i));
            llm__emits(c, "[/INST]");
        } else if (llm__role_is(&c->m[i], "assistant")) {
            llm__emits(c, " "); llm__emit(c, llm__strip(llm__content(c, i))); llm__emit(c, c->eos);
        } else if (llm__role_is(&c->m[i], "tool") || llm__role_is(&c->m[i], "tool_results")) {
            return llm__fail_chat(c, LLM__E_TOOL_IDS); /* our messages carry no tool_call_id */
        } else {
            return llm__fail_chat(c, LLM__E_ONLY_UA_SYS);
        }
    }
    return 0;
}

static void llm__chatml_turn(llm__chat *c, const char *role, llm__str content) {
    llm__turn(c, "<|im_start|>", role, "\n", content, "<|im_end|>\n");
}

/* Qwen: consecutive tool messages share one user turn of <tool_response> blocks. */
static void llm__qwen_tool(llm__chat *c, size_t i) {
    if (i == 0 || !llm__role_is(&c->m[i - 1], "tool")) llm__emits(c, "<|im_start|>user");
    llm__turn(c, "\n<tool_response>\n", "", "", llm__content(c, i), "\n</tool_response>");
    if (i + 1 == c->n_msg || !llm__role_is(&c->m[i + 1], "tool")) llm__emits(c, "<|im_end|>\n");
}

static int llm__render_chatml(llm__chat *c, int kind) {
    size_t i;
    if (kind == LLM__T_QWEN25 && c->n_msg == 0) return llm__fail_chat(c, LLM__E_EMPTY);
    if (kind == LLM__T_QWEN25)
        llm__chatml_turn(c, "system", llm__role_is(&c->m[0], "system") ? llm__content(c, 0) : c->default_system);
    for (i = 0; i < c->n_msg; i++) {
        const char *r = c->m[i].role;
        if (kind == LLM__T_SMOLLM2 && i == 0 && !llm__role_is(&c->m[0], "system")) llm__chatml_turn(c, "system", c->default_system);
        if (kind != LLM__T_QWEN25) llm__chatml_turn(c, r, llm__content(c, i));
        else if (!strcmp(r, "user") || (!strcmp(r, "system") && i > 0) || !strcmp(r, "assistant")) llm__chatml_turn(c, r, llm__content(c, i));
        else if (!strcmp(r, "tool")) llm__qwen_tool(c, i);
    }
    if (c->agp) llm__emits(c, "<|im_start|>assistant\n");
    return 0;
}

/* Qwen3: reasoning is split off at </think>; assistant turns after the last real user
   query show a think block (an empty one on the last message). */
static void llm__qwen3_assistant(llm__chat *c, size_t i, size_t last_query) {
    llm__str content = llm__content(c, i), reasoning = llm__s("");
    const char *end = llm__find(content, "</think>");
    if (end) {
        llm__str before, after;
        const char *open, *last_end = llm__find_last(content, "</think>");
        before.p = content.p; before.n = (size_t)(end - content.p);
        after.p = last_end + 8; after.n = (size_t)(content.p + content.n - after.p);
        before = llm__rstrip_nl(before);
        if ((open = llm__find_last(before, "<think>")) != NULL) {
            reasoning.p = open + 7;
            reasoning.n = (size_t)(before.p + before.n - reasoning.p);
        } else {
            reasoning = before;
        }
        reasoning = llm__lstrip_nl(reasoning);
        content = llm__lstrip_nl(after);
    }
    llm__emits(c, "<|im_start|>assistant\n");
    if (i > last_query && (i + 1 == c->n_msg || reasoning.n)) {
        llm__emits(c, "<think>\n");
        llm__emit(c, llm__rstrip_nl(llm__lstrip_nl(reasoning)));
        llm__emits(c, "\n</think>\n\n");
        content = llm__lstrip_nl(content);
    }
    llm__emit(c, content);
    llm__emits(c, "<|im_end|>\n");
}

static int llm__render_qwen3(llm__chat *c) {
    size_t i, last_query;
    if (c->n_msg == 0) return llm__fail_chat(c, LLM__E_EMPTY);
    if (llm__role_is(&c->m[0], "system")) llm__chatml_turn(c, "system", llm__content(c, 0));
    last_query = c->n_msg - 1;
    for (i = c->n_msg; i-- > 0;) {
        llm__str t = llm__content(c, i);
        int tool = t.n >= 15 && !memcmp(t.p, "<tool_response>", 15) && t.n >= 16 && !memcmp(t.p + t.n - 16, "</tool_response>", 16);
        if (llm__role_is(&c->m[i], "user") && !tool) { last_query = i; break; }
    }
    for (i = 0; i < c->n_msg; i++) {
        const char *r = c->m[i].role;
        if (!strcmp(r, "user") || (!strcmp(r, "system") && i > 0)) llm__chatml_turn(c, r, llm__content(c, i));
        else if (!strcmp(r, "assistant")) llm__qwen3_assistant(c, i, last_query);
        else if (!strcmp(r, "tool")) llm__qwen_tool(c, i);
    }
    if (c->agp) llm__emits(c, c->no_thinking ? "<|im_start|>assistant\n<think>\n\n</think>\n\n" : "<|im_start|>assistant\n");
    return 0;
}

/* Gemma: assistant is "model"; Gemma 2 rejects a system message, Gemma 3 puts it before
   the first user text (only that text is trimmed). */
static int llm__render_gemma(llm__chat *c, int gemma3) {
    size_t i, first;
    llm__emit(c, c->bos);
    if (c->n_msg == 0) return llm__fail_chat(c, LLM__E_EMPTY);
    first = llm__role_is(&c->m[0], "system");
    if (first && !gemma3) return llm__fail_chat(c, LLM__E_SYSTEM);
    for (i = first; i < c->n_msg; i++) {
        const char *r = llm__role_is(&c->m[i], "assistant") ? "model" : c->m[i].role;
        if (!llm__alternates(&c->m[i], i - first)) return llm__fail_chat(c, LLM__E_ALTERNATE);
        llm__turn(c, "<start_of_turn>", r, "\n", llm__s(""), "");
        if (i == first && first) { llm__emit(c, llm__content(c, 0)); llm__emits(c, "\n\n"); }
        llm__emit(c, llm__strip(llm__content(c, i)));
        llm__emits(c, "<end_of_turn>\n");
    }
    if (c->agp) llm__emits(c, "<start_of_turn>model\n");
    return 0;
}

static void llm__llama3_turn(llm__chat *c, const char *role, llm__str content) {
    llm__turn(c, "<|start_header_id|>", role, "<|end_header_id|>\n\n", llm__strip(content), "<|eot_id|>");
}

static int llm__render_llama3(llm__chat *c, int always_prompt) {
    size_t i;
    for (i = 0; i < c->n_msg; i++) {
        if (i == 0) llm__emit(c, c->bos);
        llm__llama3_turn(c, c->m[i].role, llm__content(c, i));
    }
    if (c->agp || always_prompt) llm__emits(c, "<|start_header_id|>assistant<|end_header_id|>\n\n");
    return 0;
}

/* Llama 3.1/3.2: a system header with the knowledge cutoff and the date always comes
   first; tool results are "ipython" turns whose content goes through tojson. */
static int llm__render_llama31(llm__chat *c) {
    size_t i, first;
    llm__emit(c, c->bos);
    if (c->n_msg == 0) return llm__fail_chat(c, LLM__E_EMPTY);
    first = llm__role_is(&c->m[0], "system");
    llm__emits(c, "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: ");
    llm__emit(c, c->date);
    llm__emits(c, "\n\n");
    if (first) llm__emit(c, llm__strip(llm__content(c, 0)));
    llm__emits(c, "<|eot_id|>");
    for (i = first; i < c->n_msg; i++) {
        if (llm__role_is(&c->m[i], "tool") || llm__role_is(&c->m[i], "ipython")) {
            llm__emits(c, "<|start_header_id|>ipython<|end_header_id|>\n\n");
            llm__emit_json_string(c, llm__content(c, i)); /* a string "is iterable" in Jinja */
            llm__emits(c, "<|eot_id|>");
        } else {
            llm__llama3_turn(c, c->m[i].role, llm__content(c, i));
        }
    }
    if (c->agp) llm__emits(c, "<|start_header_id|>assistant<|end_header_id|>\n\n");
    return 0;
}

static int llm__render_raw(llm__chat *c) {
    size_t i;
    for (i = 0; i < c->n_msg; i++) llm__emit(c, llm__content(c, i));
    return 0;
}

static int llm__template_index(const char *name, size_t len) {
    int i;
    for (i = 0; i < LLM__T_COUNT; i++)
        if (strlen(llm__templates[i][0]) == len && memcmp(llm__templates[i][0], name, len) == 0) return i;
    for (i = 0; i < LLM__T_COUNT; i++)
        if (strlen(llm__templates[i][1]) == len && memcmp(llm__templates[i][1], name, len) == 0) return i;
    return -1;
}

static int llm__model_template(const llm_model *m) {
    size_t len;
    const char *v = llm_model_meta_string(m, "chat.variant", &len);
    int t = v ? llm__template_index(v, len) : -1;
    if (t < 0 && (v = llm_model_meta_string(m, "chat.family", &len)) != NULL) t = llm__template_index(v, len);
    return t < 0 ? LLM__T_RAW : t;
}

static llm__str llm__meta_str(const llm_model *m, const char *key, const char *dflt) {
    llm__str s;
    s.p = llm_model_meta_string(m, key, &s.n);
    if (!s.p) s = llm__s(dflt);
    return s;
}

/* Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm), as "%d %b %Y". */
static void llm__format_date(int64_t days, char *buf, size_t size) {
    static const char *const months[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, mo = mp < 10 ? mp + 3 : mp - 9;
    snprintf(buf, size, "%02d %s %lld", (int)d, months[mo - 1], (long long)(yoe + era * 400 + (mo <= 2)));
}

/* strftime_now("%d %b %Y"), with SOURCE_DATE_EPOCH (reproducible builds) taking precedence. */
static void llm__today(char *buf, size_t size) {
    const char *e = getenv("SOURCE_DATE_EPOCH");
    char *end;
    long long t = e ? strtoll(e, &end, 10) : 0;
    if (!e || !*e || *end) t = (long long)time(NULL);
    llm__format_date((t >= 0 ? t : t - 86399) / 86400, buf, size);
}

LLMDEF llm_result llm_chat_render(const llm_model *m, const llm_chat_message *msgs, size_t n, int add_generation_prompt,
                                  const llm_chat_desc *desc, char *out, size_t cap, size_t *n_out, const char **error) {
    llm__chat c;
    char today[32];
    size_t i;
    int t, rc;
    if (error) *error = NULL;
    if (!m || (!msgs && n) || (!out && cap) || !n_out) return LLM_ERR_INVALID_ARGUMENT;
    for (i = 0; i < n; i++)
        if (!msgs[i].role || !msgs[i].content) return LLM_ERR_INVALID_ARGUMENT;
    t = desc && desc->template_name ? llm__template_index(desc->template_name, strlen(desc->template_name)) : llm__model_template(m);
    if (t < 0) {
        if (error) *error = "unknown chat template name";
        return LLM_ERR_UNSUPPORTED;
    }
    memset(&c, 0, sizeof c);
    c.out = out; c.cap = cap; c.m = msgs; c.n_msg = n;
    c.agp = add_generation_prompt; c.no_thinking = desc ? desc->no_thinking : 0;
    c.bos = llm__meta_str(m, "chat.bos_token", "");
    c.eos = llm__meta_str(m, "chat.eos_token", "");
    c.default_system = llm__meta_str(m, "chat.default_system", "");
    if (desc && desc->date) c.date = llm__s(desc->date);
    else if (t == LLM__T_LLAMA31) c.date = llm__meta_str(m, "chat.date", "26 Jul 2024");
    else { llm__today(today, sizeof today); c.date = llm__s(today); }
    switch (t) {
    case LLM__T_ZEPHYR: rc = llm__render_zephyr(&c); break;
    case LLM__T_LLAMA2: rc = llm__render_llama2(&c); break;
    case LLM__T_MISTRAL_V1: rc = llm__render_mistral_v1(&c); break;
    case LLM__T_MISTRAL_V3: rc = llm__render_mistral_v3(&c); break;
    case LLM__T_MISTRAL_LEGACY_SPACE: rc = llm__render_mistral_legacy(&c, 1); break;
    case LLM__T_MISTRAL_LEGACY: rc = llm__render_mistral_legacy(&c, 0); break;
    case LLM__T_CHATML: case LLM__T_SMOLLM2: case LLM__T_QWEN25: rc = llm__render_chatml(&c, t); break;
    case LLM__T_QWEN3: rc = llm__render_qwen3(&c); break;
    case LLM__T_GEMMA2: case LLM__T_GEMMA3: rc = llm__render_gemma(&c, t == LLM__T_GEMMA3); break;
    case LLM__T_LLAMA3: case LLM__T_LLAMA3_BASE: rc = llm__render_llama3(&c, t == LLM__T_LLAMA3_BASE); break;
    case LLM__T_LLAMA31: case LLM__T_LLAMA32: rc = llm__render_llama31(&c); break;
    default: rc = llm__render_raw(&c); break;
    }
    if (rc) {
        if (error) *error = c.error;
        *n_out = 0;
        if (cap) out[0] = 0;
        return LLM_ERR_TEMPLATE;
    }
    *n_out = c.n;
    if (c.n >= cap) return LLM_ERR_BUFFER_TOO_SMALL;
    out[c.n] = 0;
    return LLM_OK;
}

LLMDEF const char *llm_chat_template(const llm_model *m) { return m ? llm__templates[llm__model_template(m)][0] : NULL; }

LLMDEF const char *llm_chat_template_name(size_t i) { return i < LLM__T_COUNT ? llm__templates[i][0] : NULL; }

LLMDEF const char *llm_chat_end_of_turn(const llm_model *m, const char *name, size_t *len) {
    int t = name ? llm__template_index(name, strlen(name)) : m ? llm__model_template(m) : -1;
    const char *e;
    if (t < 0 || !llm__templates[t][2]) return NULL;
    e = llm__templates[t][2];
    if (*e) { if (len) *len = strlen(e); return e; }
    return m ? llm_model_meta_string(m, "chat.eos_token", len) : NULL; /* the eos token ends the turn */
}

/* ---- llm: generation ----------------------------------------------------------------------- */

/* ---- llm: model file writer ---------------------------------------------------------------- */
typedef struct llm__bytes {
    uint8_t *p;
    size_t n, cap;
    int oom;
} llm__bytes;

static void llm__put(llm__bytes *b, const void *src, size_t n) {
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

static void llm__put32(llm__bytes *b, uint32_t v) {
    uint8_t t[4];
    t[0] = (uint8_t)v; t[1] = (uint8_t)(v >> 8); t[2] = (uint8_t)(v >> 16); t[3] = (uint8_t)(v >> 24);
    llm__put(b, t, 4);
}

static void llm__put64(llm__bytes *b, uint64_t v) { llm__put32(b, (uint32_t)v); llm__put32(b, (uint32_t)(v >> 32)); }

struct llm_builder {
    llm__bytes meta, table, out;
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

static llm_result llm__builder_meta(llm_builder *b, const char *key, uint32_t type, const void *data, size_t size) {
    size_t kl;
    if (!b || !key || (!data && size)) return LLM_ERR_INVALID_ARGUMENT;
    kl = strlen(key);
    if (kl == 0 || kl > LLM__MAX_NAME) return LLM_ERR_INVALID_ARGUMENT;
    llm__put32(&b->meta, (uint32_t)kl);
    llm__put(&b->meta, key, kl);
    llm__put32(&b->meta, type);
    llm__put64(&b->meta, size);
    llm__put(&b->meta, data, size);
    b->n_meta++;
    return b->meta.oom ? LLM_ERR_OUT_OF_MEMORY : LLM_OK;
}

LLMDEF llm_result llm_builder_set_i32(llm_builder *b, const char *key, int32_t v) {
    uint8_t t[4];
    t[0] = (uint8_t)v; t[1] = (uint8_t)((uint32_t)v >> 8); t[2] = (uint8_t)((uint32_t)v >> 16); t[3] = (uint8_t)((uint32_t)v >> 24);
    return llm__builder_meta(b, key, LLM__META_I32, t, 4);
}

LLMDEF llm_result llm_builder_set_f64(llm_builder *b, const char *key, double v) {
    uint64_t u;
    uint8_t t[8];
    int i;
    memcpy(&u, &v, 8);
    for (i = 0; i < 8; i++) t[i] = (uint8_t)(u >> (8 * i));
    return llm__builder_meta(b, key, LLM__META_F64, t, 8);
}

LLMDEF llm_result llm_builder_set_string(llm_builder *b, const char *key, const char *s, size_t len) {
    return llm__builder_meta(b, key, LLM__META_STRING, s, len);
}

LLMDEF llm_result llm_builder_set_blob(llm_builder *b, const char *key, const void *data, size_t size) {
    return llm__builder_meta(b, key, LLM__META_BLOB, data, size);
}

LLMDEF llm_result llm_builder_set_i32_array(llm_builder *b, const char *key, const int32_t *v, size_t n) {
    llm__bytes t;
    size_t i;
    llm_result r;
    memset(&t, 0, sizeof t);
    for (i = 0; i < n; i++) llm__put32(&t, (uint32_t)v[i]);
    r = t.oom ? LLM_ERR_OUT_OF_MEMORY : llm__builder_meta(b, key, LLM__META_I32_ARRAY, t.p, t.n);
    LLM_FREE(t.p);
    return r;
}

static uint64_t llm__align_up(uint64_t v) { return (v + LLM__ALIGN - 1) / LLM__ALIGN * LLM__ALIGN; }

LLMDEF llm_result llm_builder_add_tensor(llm_builder *b, const char *name, llm_dtype dtype, int n_dims,
                                         const int64_t *shape, size_t *idx) {
    size_t nl, size, rows = 1;
    int d;
    if (!b || !name || !shape || n_dims < 1 || n_dims > 4 || (unsigned)dtype >= LLM_DTYPE_COUNT) return LLM_ERR_INVALID_ARGUMENT;
    nl = strlen(name);
    if (nl == 0 || nl > LLM__MAX_NAME) return LLM_ERR_INVALID_ARGUMENT;
    for (d = 0; d < n_dims; d++)
        if (shape[d] < 1 || (d < n_dims - 1 && !llm__mul_ok(rows, (size_t)shape[d], &rows))) return LLM_ERR_INVALID_ARGUMENT;
    size = llm_dtype_row_bytes(dtype, shape[n_dims - 1]);
    if (size == 0 || !llm__mul_ok(size, rows, &size)) return LLM_ERR_INVALID_ARGUMENT;
    if (b->n_tensors == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        uint64_t *o = (uint64_t *)LLM_MALLOC(cap * 8), *s = (uint64_t *)LLM_MALLOC(cap * 8);
        if (!o || !s) { LLM_FREE(o); LLM_FREE(s); return LLM_ERR_OUT_OF_MEMORY; }
        if (b->n_tensors) { memcpy(o, b->offsets, b->n_tensors * 8); memcpy(s, b->sizes, b->n_tensors * 8); }
        LLM_FREE(b->offsets); LLM_FREE(b->sizes);
        b->offsets = o; b->sizes = s; b->cap = cap;
    }
    b->data_size = llm__align_up(b->data_size);
    b->offsets[b->n_tensors] = b->data_size;
    b->sizes[b->n_tensors] = size;
    b->data_size += size;
    llm__put32(&b->table, (uint32_t)nl);
    llm__put(&b->table, name, nl);
    llm__put32(&b->table, (uint32_t)dtype);
    llm__put32(&b->table, (uint32_t)n_dims);
    for (d = 0; d < n_dims; d++) llm__put64(&b->table, (uint64_t)shape[d]);
    llm__put64(&b->table, b->offsets[b->n_tensors]);
    llm__put64(&b->table, size);
    if (idx) *idx = (size_t)b->n_tensors;
    b->n_tensors++;
    return b->table.oom ? LLM_ERR_OUT_OF_MEMORY : LLM_OK;
}

LLMDEF llm_result llm_builder_header(llm_builder *b, const void **bytes, size_t *size) {
    uint64_t meta_off = LLM__HEADER_SIZE, meta_size = 8 + b->meta.n, tab_off = meta_off + meta_size;
    uint64_t data_off = llm__align_up(tab_off + b->table.n);
    static const uint8_t zeros[LLM__ALIGN] = { 0 };
    if (!b || !bytes || !size) return LLM_ERR_INVALID_ARGUMENT;
    b->file_size = data_off + llm__align_up(b->data_size);
    b->out.n = 0;
    llm__put(&b->out, LLM__MAGIC, 4);
    llm__put32(&b->out, LLM__VERSION);
    llm__put64(&b->out, b->file_size);
    llm__put64(&b->out, meta_off); llm__put64(&b->out, meta_size);
    llm__put64(&b->out, tab_off); llm__put64(&b->out, b->table.n);
    llm__put64(&b->out, b->n_tensors); llm__put64(&b->out, data_off);
    llm__put64(&b->out, b->n_meta);
    llm__put(&b->out, b->meta.p, b->meta.n);
    llm__put(&b->out, b->table.p, b->table.n);
    llm__put(&b->out, zeros, (size_t)(data_off - b->out.n));
    if (b->out.oom) return LLM_ERR_OUT_OF_MEMORY;
    *bytes = b->out.p;
    *size = b->out.n;
    b->data_off = data_off;
    return LLM_OK;
}

LLMDEF uint64_t llm_builder_tensor_offset(const llm_builder *b, size_t idx) { return b->data_off + b->offsets[idx]; }
LLMDEF uint64_t llm_builder_tensor_size(const llm_builder *b, size_t idx) { return b->sizes[idx]; }
LLMDEF uint64_t llm_builder_file_size(const llm_builder *b) { return b->file_size; }

/* ---- llm: results ------------------------------------------------------------------------ */
LLMDEF const char *llm_result_string(llm_result r) {
    switch (r) {
    case LLM_OK: return "ok";
    case LLM_ERR_INVALID_ARGUMENT: return "invalid argument";
    case LLM_ERR_IO: return "i/o error";
    case LLM_ERR_OUT_OF_MEMORY: return "out of memory";
    case LLM_ERR_BAD_MAGIC: return "not a model file";
    case LLM_ERR_BAD_VERSION: return "unsupported file version";
    case LLM_ERR_TRUNCATED: return "truncated file";
    case LLM_ERR_BAD_FILE: return "invalid model file";
    case LLM_ERR_UNSUPPORTED: return "unsupported";
    case LLM_ERR_CONTEXT_FULL: return "context full";
    case LLM_ERR_BAD_TOKEN: return "token outside the vocabulary";
    case LLM_ERR_BUFFER_TOO_SMALL: return "buffer too small";
    case LLM_ERR_TEMPLATE: return "chat template error";
    }
    return "unknown result";
}

/* ---- llm: unicode tables (generated by tools/gen_unicode.c) ------------------------------- */

#endif /* LLM_IMPLEMENTATION_DONE */
#endif /* LLM_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
MIT License
Copyright (c) 2026 the llm.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of this
software and associated documentation files (the "Software"), to deal in the Software
without restriction, including without limitation the rights to use, copy, modify,
merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
permit persons to whom the Software is furnished to do so, subject to the following
conditions: The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS",
WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR
IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
