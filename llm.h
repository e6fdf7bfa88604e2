/* llm.h - v0.1 - run LLaMA-style decoder language models on a CPU, in one C header.

   Do this:
       #define LLM_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.

   QUICK START
       llm_model *model; llm_ctx *ctx;
       if (llm_model_open(&model, "model.llm", NULL) != LLM_OK) return 1;
       if (llm_ctx_open(&ctx, model, NULL) != LLM_OK) return 1;
       int32_t ids[256]; size_t n;
       llm_tokenize(model, "Hello", 5, LLM_TOKENIZE_ADD_SPECIAL, ids, 256, &n);
       llm_eval(ctx, ids, n);                         (appends to the KV cache)
       const float *logits = llm_logits(ctx);         (next-token logits, n_vocab floats)
       ... pick a token, llm_eval(ctx, &token, 1), repeat ...
       llm_ctx_close(ctx); llm_model_close(model);

   CHAT (examples/simple.c is the whole program)
       llm_chat_message msg = { "user", "Hello!" };
       char prompt[4096]; size_t len;                 (or ask llm_chat_render the size first)
       llm_chat_render(model, &msg, 1, 1, NULL, prompt, sizeof prompt, &len, NULL);
       llm_generate_desc gen = { 0 };
       gen.on_token = print_piece;                    (int print_piece(void *user, const char *piece,
                                                                         size_t len, int32_t id))
       llm_generate(ctx, prompt, len, &gen, NULL);    (streams the reply; render and call again
                                                       for the next turn: the cache is reused)

   STEP BY STEP (a game loop; examples/npc.c)
       llm_generation *g; llm_step step = { 0 };
       llm_generation_open(&g, ctx, &gen);            (allocates all it needs, once)
       llm_generation_start(g, prompt, len);          (evaluates nothing yet)
       every frame: llm_generation_step(g, &step);   (one prompt chunk or one token, at most
                    if (step.len) show(step.piece, step.len);   one token out; step.done at the end)
       llm_generation_close(g);                       (or start again: the next line, same cache)

   THE PATH OF A TOKEN, one function a step (read them in this order)
       HF directory -> llm_convert (tools/llm_convert.h) -> model.llm -> llm_model_open ->
       llm_ctx_open -> llm_tokenize -> llm_eval (llm__forward_chunk, llm__block) ->
       llm_logits -> llm_sample -> llm_decoder_push (llm_detokenize for whole texts) -> text

   A model file (.llm) is made from a HuggingFace model directory by tools/convert.c, a thin
   CLI over the writer library tools/llm_convert.h (the builder, the quantizers, llm_convert);
   the format's names and values (LLM_FILE_MAGIC, LLM_KEY_*, LLM_TF_*, ...) are declared here
   for reader and writer alike. Its layout, and that of a saved context state, is in
   docs/FORMAT.md. Supported families: llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3, phi3,
   smollm3, granite, olmo2, and the mixtures of experts mixtral, qwen3_moe, qwen2_moe, olmoe.
   The file describes a family by its switches (norm placement, q/k norm, activation, scales,
   soft-caps, per-layer RoPE, rope scaling, experts) and the forward pass reads only those.

   CONFIG MACROS (define before the implementation include)
       LLM_STATIC        every public function is static
       LLM_DLL           export (with LLM_IMPLEMENTATION) or import the public functions
       LLM_MALLOC/LLM_FREE  the default allocator (malloc/free); llm_allocator in the model
                         and context descs overrides it per object
       LLM_NO_MMAP       read the model into memory instead of mapping it
       LLM_NO_STDIO      no file functions (llm_model_open, llm_ctx_save/load): use the
                         _memory variants
       LLM_NO_SIMD       only the scalar kernels (otherwise AVX-512+VNNI, AVX2 (+AVX-VNNI)
                         and scalar on x86-64, NEON (+dotprod) on aarch64, all compiled in
                         without -march and chosen for the running CPU at llm_ctx_open;
                         another compiler or 32-bit x86: the set the target flags allow)
       LLM_NO_DISPATCH   only the kernel sets the target flags allow (-march=native), as with
                         a compiler that has no function target attributes
       LLM_NO_THREADS    one thread (otherwise OpenMP under -fopenmp, else a pool of Win32
                         threads on Windows, of pthreads elsewhere)

   THREADS
       A model is read-only after open: share it between any number of contexts and
       threads. A context (KV cache, scratch, token history) belongs to one thread at a
       time, and a generation to its context's thread; different contexts may run at once.
       llm_sampler and llm_decoder are plain state: one thread at a time each. The library
       has no global or hidden static state, never prints, never exits or aborts.

   OWNERSHIP
       llm_model_close frees what llm_model_open made; close every context of a model first.
       Close a context's generations before it. llm_model_close(NULL), llm_ctx_close(NULL)
       and llm_generation_close(NULL) do nothing.
       llm_model_open_memory uses the caller's buffer in place: keep it alive and unchanged
       until llm_model_close; it must be 4-byte aligned (malloc's buffers are). Pointers the library returns (llm_logits, llm_ctx_tokens,
       llm_model_info_get, llm_token_text, llm_model_meta_string, llm_ctx_error, a step's
       piece, llm_generation_error) point into the model, context or generation: valid until
       it is closed, and for context and generation data until the next call that changes it. The caller owns every
       buffer it passes (out, ids, scratch); the library keeps none of them. Allocation goes
       through the desc's allocator (or LLM_MALLOC); llm_eval, llm_sample, llm_decoder_push
       and llm_generation_step allocate nothing. llm_eval runs on llm_ctx_desc.n_threads threads
       (OpenMP's, or a pool of threads the context owns); logits are bitwise the same for any
       thread count.

   API OVERVIEW
     results and numbers
       llm_result_string        the name of a result code
       llm_system_info          the kernels and threading this build runs with
       llm_kernels_name, llm_kernels_supported, llm_kernels_best  the kernel sets
       llm_seconds              wall-clock seconds, the clock of the generation statistics
       llm_dtype_name           "f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q5_k", "q6_k"
       llm_dtype_row_bytes      bytes of n values of a type
       llm_dtype_row_group      rows a tensor of a type comes in multiples of
       llm_f32_to_f16, llm_f16_to_f32, llm_f32_to_bf16, llm_bf16_to_f32  conversions (round to nearest even)
     model
       llm_model_open           map (or read) a .llm file and validate it
       llm_model_open_memory    the same for a buffer already in memory (zero copies)
       llm_model_close          release a model
       llm_model_info_get       hyper-parameters and token ids of a model
       llm_model_tensor         a tensor by name
       llm_model_meta_string    a metadata string by key
     context and forward pass
       llm_ctx_open             KV cache and scratch for one sequence
       llm_ctx_close            release a context
       llm_ctx_error            the detail message of a context's last error
       llm_ctx_kernels          the kernel set a context runs
       llm_ctx_bf16_dot         whether its prompts use bf16 dot products (bf16_dot)
       llm_ctx_prefetch         whether its one-token kernels prefetch weights (prefetch)
       llm_eval                 append tokens to the sequence; computes the last one's logits
       llm_logits               the logits of the last evaluated token
       llm_logits_at            the logits of any position of the last chunk (logits_all)
       llm_embed                a text's embedding: its final hidden states pooled (mean, last, first)
       llm_ctx_pos              how many tokens the context holds
       llm_ctx_size             its n_ctx
       llm_ctx_batch            its n_batch
       llm_ctx_model            its model
       llm_ctx_tokens           the token ids it holds
       llm_ctx_rewind           forget the tokens after a position
       llm_ctx_kv_bytes         the size of its KV cache
       llm_ctx_memory_bytes     all it allocated: KV cache, scratch for n_batch tokens, ...
       llm_kv_cache_bytes       the KV cache size formula, for planning
       llm_ctx_save             write the context's state (tokens, KV rows, logits) to a file
       llm_ctx_load             read one back into a context of the same model
       llm_ctx_save_memory      the same to a buffer (ask the size with cap 0)
       llm_ctx_load_memory      the same from a buffer
     tokenizer
       llm_tokenize             text -> token ids, as HuggingFace tokenizers does
       llm_detokenize           token ids -> text (UTF-8, U+FFFD for invalid byte runs)
       llm_decoder_init         start a streaming detokenizer (no allocation)
       llm_decoder_push         the complete UTF-8 text one more token adds
       llm_decoder_flush        what a streaming detokenizer still holds
       llm_token_find           a token's exact text -> its id
       llm_token_text           a token's raw bytes
       llm_token_is_special     whether a token is a special added token
       llm_tokenizer_info_get   vocabulary size, byte-level or not, the ids added around text
     sampler
       llm_sample               pick the next token: penalties, temperature, top-k/p, min-p
       llm_sample_logits        the same on any logits, with caller scratch
       llm_sample_scratch_bytes the scratch llm_sample_logits needs
     chat templates
       llm_chat_render          a conversation as prompt text, as HF apply_chat_template renders it
       llm_jinja_render         any Jinja chat template with JSON variables (open/run/close: parse once)
       llm_chat_template        the built-in template the model's matches ("llama3.2", ..., "raw")
       llm_chat_template_name   the built-in templates' names, one by one
       llm_chat_end_of_turn     the text of the token that ends an assistant turn
     generation (a layer over the context's public functions)
       llm_generate             prompt text -> streamed reply, reusing the KV cache
       llm_generate_tokens      the same from prompt ids
       llm_generation_open      a generation over a context, to run step by step
       llm_generation_close     release it
       llm_generation_start     begin a reply (text prompt); evaluates nothing
       llm_generation_start_tokens  the same from prompt ids
       llm_generation_step      one step: at most one llm_eval and one token
       llm_generation_stats     its counts and speeds
       llm_generation_error     the detail message of its last error
     file format names
       LLM_FILE_MAGIC, LLM_FILE_VERSION, LLM_META_*  the header and metadata entry types
       LLM_KEY_*                the metadata keys
       LLM_NORM_*, LLM_PRE_*, LLM_DEC_*, LLM_TF_*, LLM_BPE_*  the tokenizer's stored values
     the writer is tools/llm_convert.h: llm_convert (a HuggingFace directory -> .llm),
       llm_builder_* (any file layout), llm_quantize (f32 -> the file's quantized layout)
*/
#ifndef LLM_H
#define LLM_H

#include <stddef.h>
#include <stdint.h>

#define LLM_VERSION_MAJOR 0
#define LLM_VERSION_MINOR 1
#define LLM_VERSION_PATCH 0

#ifndef LLMDEF
#  if defined(LLM_STATIC) && (defined(__GNUC__) || defined(__clang__))
#    define LLMDEF static __attribute__((unused)) /* a program uses only some of the functions */
#  elif defined(LLM_STATIC)
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
    LLM_ERR_TEMPLATE = -12,         /* a chat template rejected the conversation */
    LLM_ERR_WRONG_MODEL = -13       /* a saved context state belongs to another model or KV type */
} llm_result;

LLMDEF const char *llm_result_string(llm_result r);
/* How this build runs, for a program to print: "kernels avx512, threads openmp" (the
   kernel set llm_kernels_best picks on this CPU; OpenMP, pthread pool or none), then
   ", unoptimized" when the implementation was compiled without -O. */
LLMDEF const char *llm_system_info(void);

/* The kernel sets (the matrix products and vector helpers of llm_eval). Every set the
   compiler can target is in every build and a context runs the best one the CPU has, found
   at llm_ctx_open; llm_ctx_desc.kernels forces one (tests, benchmarks). */
typedef enum llm_kernels {
    LLM_KERNELS_AUTO = 0,     /* the best this build has for this CPU: llm_kernels_best() */
    LLM_KERNELS_SCALAR,       /* the portable C reference, in every build */
    LLM_KERNELS_AVX2,         /* x86-64: AVX2 + FMA + F16C */
    LLM_KERNELS_AVX2_VNNI,    /* the same with AVX-VNNI for the quantized products */
    LLM_KERNELS_AVX512,       /* x86-64: AVX-512 F, BW, VL and VNNI + FMA + F16C */
    LLM_KERNELS_NEON,         /* aarch64 */
    LLM_KERNELS_NEON_DOTPROD, /* aarch64 with the dot product extension (ARMv8.2 dotprod) */
    LLM_KERNELS_AMX,          /* x86-64: AVX-512 with AMX int8 tiles for prompts of quantized weights */
    LLM_KERNELS_COUNT
} llm_kernels;

/* "auto", "scalar", "avx2", "avx2-vnni", "avx512", "neon", "neon-dotprod", "avx512-amx"; NULL
   past the end. */
LLMDEF const char *llm_kernels_name(llm_kernels k);
/* 1 when this build has set k and the running CPU can run it (AUTO: always), else 0. */
LLMDEF int llm_kernels_supported(llm_kernels k);
/* The fastest set supported here: what LLM_KERNELS_AUTO runs. Never AUTO. */
LLMDEF llm_kernels llm_kernels_best(void);
/* Wall-clock seconds from an arbitrary origin, the clock llm_generation_stats measures with:
   for a program's own timings (a frame's budget, a benchmark) on every platform. */
LLMDEF double llm_seconds(void);

/* ---- llm: numbers --------------------------------------------------------------------- */
typedef enum llm_dtype {
    LLM_DTYPE_F32 = 0,
    LLM_DTYPE_F16 = 1,
    LLM_DTYPE_BF16 = 2,
    LLM_DTYPE_Q8_0 = 3,  /* blocks of 32 weights: an f16 scale and 32 int8 (docs/FORMAT.md) */
    LLM_DTYPE_Q4_0 = 4,  /* blocks of 32 weights: an f16 scale and 32 4-bit codes, value (q - 8) x scale */
    LLM_DTYPE_Q4_K = 5,  /* super-blocks of 256: f16 d, dmin; 8 x 32 with 6-bit scale sc, min m; value d sc q - dmin m */
    LLM_DTYPE_Q5_K = 6,  /* as q4_k with 5-bit codes */
    LLM_DTYPE_Q6_K = 7,  /* super-blocks of 256: f16 d; 16 x 16 with int8 scale sc; 6-bit codes; value d sc (q - 32) */
    LLM_DTYPE_COUNT
} llm_dtype;

LLMDEF const char *llm_dtype_name(llm_dtype t);
LLMDEF uint16_t llm_f32_to_f16(float f);
LLMDEF float llm_f16_to_f32(uint16_t h);
LLMDEF uint16_t llm_f32_to_bf16(float f);
LLMDEF float llm_bf16_to_f32(uint16_t h);
/* Rows a tensor of this type must come in multiples of (quantized types interleave 16 rows). */
LLMDEF int64_t llm_dtype_row_group(llm_dtype t);
LLMDEF size_t llm_dtype_row_bytes(llm_dtype t, int64_t n); /* bytes of n values; 0 if n is not a whole number of blocks */

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
    int no_mmap;             /* read the file into memory even where mmap is available (Linux: in
                                2 MiB pages with the default allocator; generation may be faster) */
    int vocab_only;          /* read metadata and tokenizer only; tensors are not needed */
} llm_model_desc;

/* The family a file was converted from (general.architecture): a label for people. The
   forward pass reads the switches below, never this. */
typedef enum llm_arch {
    LLM_ARCH_LLAMA = 0, LLM_ARCH_MISTRAL = 1, LLM_ARCH_QWEN2 = 2, LLM_ARCH_QWEN3 = 3,
    LLM_ARCH_GEMMA2 = 4, LLM_ARCH_GEMMA3 = 5, LLM_ARCH_PHI3 = 6, LLM_ARCH_SMOLLM3 = 7, LLM_ARCH_GRANITE = 8,
    LLM_ARCH_OLMO2 = 9, LLM_ARCH_MIXTRAL = 10, LLM_ARCH_QWEN3_MOE = 11, LLM_ARCH_QWEN2_MOE = 12, LLM_ARCH_OLMOE = 13,
    LLM_ARCH_GEMMA = 14
} llm_arch;

typedef enum llm_rope_scaling {
    LLM_ROPE_NONE = 0, LLM_ROPE_LINEAR = 1, LLM_ROPE_LLAMA3 = 2, LLM_ROPE_YARN = 3, LLM_ROPE_LONGROPE = 4
} llm_rope_scaling;

/* Where a block's RMSNorms sit. PRE (Llama): x += attn(norm(x)); x += ffn(norm(x)). POST
   (OLMo 2): x += norm(attn(x)); x += norm(ffn(x)). SANDWICH (Gemma): x += norm(attn(norm(x)));
   x += norm(ffn(norm(x))). */
typedef enum llm_block_norms { LLM_BLOCK_PRE = 0, LLM_BLOCK_POST = 1, LLM_BLOCK_SANDWICH = 2 } llm_block_norms;

/* q/k RMSNorm before RoPE: none, per head (Qwen3, Gemma 3) or over all heads (OLMo 2). */
typedef enum llm_qk_norm { LLM_QK_NORM_NONE = 0, LLM_QK_NORM_HEAD = 1, LLM_QK_NORM_FULL = 2 } llm_qk_norm;

/* The gate activation of the MLP: down(act(gate x) * up x). GELU is the exact one,
   0.5 x (1 + erf(x / sqrt 2)) (hidden_act "gelu"); GELU_TANH its tanh approximation. */
typedef enum llm_activation { LLM_ACT_SILU = 0, LLM_ACT_GELU_TANH = 1, LLM_ACT_GELU = 2 } llm_activation;

/* Which RoPE a layer applies (llm.layer_rope): none (SmolLM3's NoPE layers), the model's
   (rope_theta with its scaling), or the local one (Gemma 3's sliding layers). */
enum { LLM_LAYER_ROPE_NONE = 0, LLM_LAYER_ROPE_GLOBAL = 1, LLM_LAYER_ROPE_LOCAL = 2 };

#define LLM_MAX_LAYERS 1024
#define LLM_MAX_EXPERTS 1024
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
    int32_t no_lm_head;          /* 1: the file has no LM head (an embedding model saved without
                                    it): llm_eval refuses it, llm_embed runs it */
    int32_t pooling;             /* an llm_pooling, what llm_embed does by default (never MODEL) */
    int32_t embd_normalize;      /* 1: llm_embed divides by the L2 norm by default */
    int32_t qk_norm;             /* an llm_qk_norm */
    int32_t bos_id;              /* -1: none */
    int32_t n_stop_ids;
    int32_t stop_ids[LLM_MAX_STOP_IDS]; /* eos ids of generation_config.json */
    int64_t n_params;
    size_t weight_bytes;         /* bytes of all tensors */
    /* The anatomy's switches (docs/FORMAT.md, "Model switches"); the defaults are Llama's. */
    llm_block_norms block_norms;
    int32_t norm_plus_one;       /* every RMSNorm multiplies by (1 + w) instead of w (Gemma) */
    llm_activation activation;
    float embd_scale;            /* the embeddings are multiplied by this (1: none) */
    float attn_scale;            /* q.k is multiplied by this; 0: 1/sqrt(head_dim) */
    float residual_scale;        /* a block's outputs are multiplied by this before the residual add */
    float logits_divisor;        /* the logits are divided by this (1: none) */
    float attn_softcap;          /* scores become cap * tanh(scores / cap); 0: none */
    float final_softcap;         /* the same for the logits */
    int32_t rope_dim;            /* the rotated dimensions of a head (partial rotary): <= head_dim */
    double rope_theta_local;     /* theta of the LLM_LAYER_ROPE_LOCAL layers (no scaling) */
    float rope_attn_factor;      /* cos and sin are multiplied by this (YaRN, LongRoPE) */
    float rope_beta_fast, rope_beta_slow; /* YaRN's ramp bounds, in rotations */
    int32_t rope_truncate;       /* YaRN: the ramp bounds are rounded to whole dimensions */
    /* Mixture of experts (all 0 for a dense model): a sparse layer's feed-forward is the
       sum of the n_expert_used experts its router chooses per token, weighted by their
       softmax probabilities (renormalised over the chosen when expert_norm_topk), plus a
       shared expert gated by a sigmoid when n_ff_shared > 0. */
    int32_t n_expert, n_expert_used, n_ff_expert, expert_norm_topk, n_ff_shared;
    int32_t n_layer_sparse;      /* layers with experts; the others have the dense MLP */
    int64_t expert_params;       /* weights of all routed experts */
    size_t expert_bytes;         /* and their bytes: a token reads n_expert_used / n_expert of them */
    int32_t weights_mapped;      /* 1: the tensors are the pages of the mapped file; 0: in memory (read
                                    by llm_model_open with no_mmap or no mmap, or the caller's buffer) */
} llm_model_info;

typedef struct llm_tensor {
    const char *name;
    llm_dtype dtype;
    int32_t n_dims;
    int64_t shape[4];            /* row-major, HuggingFace order: a Linear weight is [out, in] */
    const void *data;            /* points into the mapped file */
    size_t size;
} llm_tensor;

#if !defined(LLM_NO_STDIO)
LLMDEF llm_result llm_model_open(llm_model **out, const char *path, const llm_model_desc *desc);
#endif
LLMDEF llm_result llm_model_open_memory(llm_model **out, const void *data, size_t size,
                                        const llm_model_desc *desc);
LLMDEF void llm_model_close(llm_model *model); /* NULL is allowed */
LLMDEF const llm_model_info *llm_model_info_get(const llm_model *model);
LLMDEF const llm_tensor *llm_model_tensor(const llm_model *model, const char *name);
/* A metadata string (e.g. LLM_KEY_CHAT_TEMPLATE); NULL if absent. Not NUL-terminated. */
LLMDEF const char *llm_model_meta_string(const llm_model *model, const char *key, size_t *len);

/* ---- llm: context ----------------------------------------------------------------------- */
/* How llm_embed makes one vector of a text's final hidden states, sentence-transformers'
   Pooling modes: the mean over the tokens, the last token's, the first token's (its
   "cls_token"). MODEL: the model file's, which the converter takes from the checkpoint's
   sentence-transformers files (modules.json), and the mean where it has none, as
   sentence-transformers does for a plain transformers directory. */
typedef enum llm_pooling { LLM_POOLING_MODEL = 0, LLM_POOLING_MEAN = 1, LLM_POOLING_LAST = 2, LLM_POOLING_FIRST = 3 } llm_pooling;

typedef enum llm_kv_type { LLM_KV_DEFAULT = 0, LLM_KV_F32 = 1, LLM_KV_F16 = 2 } llm_kv_type;

#define LLM_MAX_THREADS 256         /* more threads than this are taken as this many */
#define LLM_CTX_DEFAULT_N_CTX 4096  /* n_ctx 0: the model's trained context, at most this */
#define LLM_CTX_DEFAULT_N_BATCH 64  /* n_batch 0: tokens per prompt chunk */

typedef struct llm_ctx_desc {
    int32_t n_ctx;           /* 0: min(max_position_embeddings, LLM_CTX_DEFAULT_N_CTX); more than the
                                model was trained for works, with a warning to log */
    int32_t n_threads;       /* 0: the number of CPUs the process may use; at most
                                LLM_MAX_THREADS; 1 under LLM_NO_THREADS */
    int32_t n_batch;         /* tokens per prompt chunk; 0: LLM_CTX_DEFAULT_N_BATCH */
    llm_kv_type kv_type;     /* 0: f16 */
    llm_allocator allocator;
    int32_t logits_all;      /* 1: keep the logits of every token of llm_eval's last chunk
                                (up to n_batch tokens), for llm_logits_at; 0: the last only */
    llm_kernels kernels;     /* 0 (AUTO): the best set for this CPU; another set is used when
                                llm_kernels_supported says so, else LLM_ERR_UNSUPPORTED */
    llm_log_fn log;          /* receives the detail message of a failed open, and warnings */
    void *log_user;
    int32_t bf16_dot;        /* 1: prompts (2 or more tokens at once) multiply bf16 weights with the
                                activations rounded to bf16, with the CPU's bf16 dot products
                                where it has them (AVX512-BF16): faster, no longer exact f32
                                arithmetic (docs/SPEED.md); llm_ctx_bf16_dot tells. 0: exact */
    int32_t prefetch;        /* q8_0/q4_0 weights, one token at a time: 1 the kernels prefetch the
                                weights ahead of use, -1 they leave it to the CPU's prefetchers;
                                0: what is faster on this CPU (off for the AVX-512 sets on AMD,
                                on elsewhere; docs/SPEED.md); llm_ctx_prefetch tells. The logits
                                are the same */
} llm_ctx_desc;

/* Sizes are checked before anything is allocated: a context that needs more bytes than the
   machine's physical memory fails at once with LLM_ERR_OUT_OF_MEMORY (desc->log names the
   bytes). The KV cache is not filled: its pages are touched as positions are evaluated. */
LLMDEF llm_result llm_ctx_open(llm_ctx **out, const llm_model *model, const llm_ctx_desc *desc);
LLMDEF void llm_ctx_close(llm_ctx *ctx); /* NULL is allowed */
LLMDEF const char *llm_ctx_error(const llm_ctx *ctx);
LLMDEF llm_kernels llm_ctx_kernels(const llm_ctx *ctx); /* the set the context runs (never AUTO) */
LLMDEF int llm_ctx_bf16_dot(const llm_ctx *ctx);        /* 1: its prompts use bf16 dot products */
LLMDEF int llm_ctx_prefetch(const llm_ctx *ctx);        /* 1: its kernels prefetch (llm_ctx_desc.prefetch) */
LLMDEF llm_result llm_eval(llm_ctx *ctx, const int32_t *tokens, size_t n);
/* The logits of the last evaluated token: n_vocab floats, or NULL when the context holds
   none (nothing evaluated yet, after llm_ctx_rewind, or a state loaded without logits). */
LLMDEF const float *llm_logits(const llm_ctx *ctx);
/* The logits computed at position pos (the distribution of the token at pos + 1): any
   position of the last llm_eval call's last chunk with logits_all, else only the last one.
   NULL for any other position, and whenever llm_logits is NULL. */
LLMDEF const float *llm_logits_at(const llm_ctx *ctx, int32_t pos);
/* A text's embedding: evaluates tokens from position 0 (what the context held is dropped),
   n_batch at a time, and writes to out the model's n_embd floats: the final hidden states
   (after the final norm: what the LM head reads, transformers' last_hidden_state) pooled as
   `pooling` says, then divided by their L2 norm when normalize is 1 (sentence-transformers'
   Normalize; 0: not; -1: as the model file says). No logits are computed: the context then
   holds the tokens and no logits; a call that fails (a bad id, more than n_ctx tokens) leaves
   it as it was. Pass the ids as the model expects them (llm_tokenize with
   LLM_TOKENIZE_ADD_SPECIAL adds the tokenizer's own, such as an end token for LAST). */
LLMDEF llm_result llm_embed(llm_ctx *ctx, const int32_t *tokens, size_t n, llm_pooling pooling, int normalize, float *out);
LLMDEF int32_t llm_ctx_pos(const llm_ctx *ctx);
LLMDEF int32_t llm_ctx_size(const llm_ctx *ctx);
LLMDEF int32_t llm_ctx_batch(const llm_ctx *ctx);           /* tokens per prompt chunk */
LLMDEF const llm_model *llm_ctx_model(const llm_ctx *ctx);
LLMDEF llm_result llm_ctx_rewind(llm_ctx *ctx, int32_t pos);
LLMDEF size_t llm_ctx_kv_bytes(const llm_ctx *ctx);
/* All the context allocated when it opened: the KV cache, the scratch of n_batch tokens'
   activations, the token ids and the sampler's scratch (its threads' stacks aside). */
LLMDEF size_t llm_ctx_memory_bytes(const llm_ctx *ctx);
/* The ids the context holds, llm_ctx_pos of them (the penalty window and cache reuse read them). */
LLMDEF const int32_t *llm_ctx_tokens(const llm_ctx *ctx);
/* 2 (K and V) x layers x kv heads x head_dim x n_ctx x bytes per element. */
LLMDEF uint64_t llm_kv_cache_bytes(int64_t n_layer, int64_t n_head_kv, int64_t head_dim, int64_t n_ctx,
                                   int64_t bytes_per_element);

/* Context state (docs/FORMAT.md, "Context state"): the tokens a context holds, their KV
   cache rows in the cache's type and the last logits, behind a fingerprint of the model
   file. Loading it into a fresh context of the same model file and KV type (any n_ctx
   that holds the tokens) continues bitwise as the saved one would: a long system prompt
   is evaluated once. Another model or KV type gives LLM_ERR_WRONG_MODEL; a cut or damaged
   state LLM_ERR_TRUNCATED or LLM_ERR_BAD_FILE. Every check comes before the context is
   touched: a failed load leaves it holding what it held. llm_ctx_save writes a temporary
   file beside path and renames it over path once complete: a failed save leaves the old
   file as it was. */
/* LLM_ERR_BUFFER_TOO_SMALL with *n_out = the size needed when cap is too small. */
LLMDEF llm_result llm_ctx_save_memory(llm_ctx *ctx, void *buf, size_t cap, size_t *n_out);
LLMDEF llm_result llm_ctx_load_memory(llm_ctx *ctx, const void *buf, size_t size);
#if !defined(LLM_NO_STDIO)
LLMDEF llm_result llm_ctx_save(llm_ctx *ctx, const char *path);
LLMDEF llm_result llm_ctx_load(llm_ctx *ctx, const char *path);
#endif

/* ---- llm: tokenizer ----------------------------------------------------------------------
   The tokenizer travels in the model file (docs/FORMAT.md, "Tokenizer metadata") and gives
   the ids HuggingFace `tokenizers` gives: BPE with merge ranks, SentencePiece-style
   (byte fallback, Prepend/Replace or Metaspace) or byte-level, with any Split regex (GPT-2,
   Llama 3, Qwen2, o200k, ...; llm.h's regex matcher), added tokens, NFC. A model converted
   without tokenizer.json has none: the functions below then return LLM_ERR_UNSUPPORTED (or
   -1, NULL, 0). Text that is not valid
   UTF-8 is tokenized byte by byte: each invalid byte is a character of its own that is not a
   letter, number or space (byte-level BPE encodes it exactly; byte fallback gives <0xHH>). */
#define LLM_TOKENIZE_ADD_SPECIAL   1  /* add BOS/EOS as the tokenizer's post-processor says */
#define LLM_TOKENIZE_PARSE_SPECIAL 2  /* match special added tokens written in the text */
/* LLM_ERR_BUFFER_TOO_SMALL with *n_ids = the needed count when cap is too small;
   LLM_ERR_UNSUPPORTED also when a split regex backtracks without end on the text (a limit
   like Oniguruma's retry limit, which HF would fail on too; the tokenizers in use never come
   near it). */
LLMDEF llm_result llm_tokenize(const llm_model *m, const char *text, size_t len, int flags,
                               int32_t *ids, size_t cap, size_t *n_ids);

#define LLM_DETOKENIZE_SKIP_SPECIAL 1
/* Ids without a token (past the tokenizer's vocabulary) decode to nothing, as in HF; a
   negative id is LLM_ERR_BAD_TOKEN. The output is valid UTF-8, not NUL-terminated. */
LLMDEF llm_result llm_detokenize(const llm_model *m, const int32_t *ids, size_t n, int flags,
                                 char *out, size_t cap, size_t *n_out);

/* Streaming detokenizer for generation: plain, caller-owned, no allocation. Each push
   appends only complete UTF-8; the pieces of all pushes plus the flush equal
   llm_detokenize of the same ids, except inside a run of SentencePiece byte tokens that is
   not valid UTF-8, where only the invalid bytes (not the whole run) become U+FFFD. On
   LLM_ERR_BUFFER_TOO_SMALL the state is unchanged and *n_out is the size needed. A push
   never needs more than 3 times the token's length (llm_token_text) plus 9 bytes (each
   byte may become a U+FFFD, and up to 3 held bytes may become one each), a flush never
   more than 9. */
typedef struct llm_decoder {
    const llm_model *model;
    int flags;                 /* LLM_DETOKENIZE_SKIP_SPECIAL; 0 after llm_decoder_init */
    int32_t n_tokens, strip;   /* the rest is private state */
    int32_t n_pending, need, lo, hi;
    uint8_t pending[4];
} llm_decoder;
LLMDEF void llm_decoder_init(llm_decoder *d, const llm_model *m);
LLMDEF llm_result llm_decoder_push(llm_decoder *d, int32_t id, char *out, size_t cap, size_t *n_out);
LLMDEF llm_result llm_decoder_flush(llm_decoder *d, char *out, size_t cap, size_t *n_out);

/* A token's exact raw bytes, as llm_token_text gives them -> its id, or -1; added tokens
   first, as HF's token_to_id. In a byte-level vocabulary (GPT-2, Llama 3, Qwen2) the text is
   the bytes themselves: " the", not "Ġthe"; a SentencePiece-style one stores its own
   spelling: "▁the" (U+2581), "<0x0A>". */
LLMDEF int32_t llm_token_find(const llm_model *m, const char *text, size_t len);
LLMDEF const char *llm_token_text(const llm_model *m, int32_t id, size_t *len);  /* raw bytes of a token; NULL if none */
LLMDEF int llm_token_is_special(const llm_model *m, int32_t id);

typedef struct llm_tokenizer_info {
    int32_t n_tokens;          /* ids 0 .. n_tokens-1 may have a token (added tokens included) */
    int32_t byte_level;        /* 1: byte-level BPE (GPT-2 style); 0: SentencePiece-style BPE */
    int32_t unk_id;            /* -1: none */
    int32_t n_prefix, n_suffix;/* ids LLM_TOKENIZE_ADD_SPECIAL puts before and after the text */
    const int32_t *prefix, *suffix;
    int32_t adds_bos;          /* the prefix is the model's bos_token_id */
    int32_t max_token_bytes;   /* the longest llm_token_text of any token */
} llm_tokenizer_info;
/* NULL when the model has no tokenizer. */
LLMDEF const llm_tokenizer_info *llm_tokenizer_info_get(const llm_model *m);

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
    int32_t repeat_last_n;    /* how many recent tokens the penalties see;
                                 0: LLM_SAMPLER_DEFAULT_REPEAT_LAST_N; -1: all */
    uint64_t seed;
    uint64_t state;           /* RNG state; 0: start from seed at the next draw */
} llm_sampler;

#define LLM_SAMPLER_DEFAULT_REPEAT_LAST_N 64

/* *id gets the chosen id, or -1 with LLM_ERR_INVALID_ARGUMENT when a pointer is NULL or the
   context holds no logits (see llm_logits; llm_ctx_error says so). */
LLMDEF llm_result llm_sample(llm_ctx *ctx, llm_sampler *s, int32_t *id);
/* The same on any logits; recent holds the penalty window (oldest first), scratch
   llm_sample_scratch_bytes(n_vocab) bytes aligned for floats. On return the scratch begins
   with the n_vocab logits after the penalties. */
LLMDEF llm_result llm_sample_logits(llm_sampler *s, const float *logits, int32_t n_vocab, const int32_t *recent,
                                    size_t n_recent, void *scratch, int32_t *id);
LLMDEF size_t llm_sample_scratch_bytes(int32_t n_vocab);

/* ---- llm: chat templates -----------------------------------------------------------------
   The converter stores the model's Jinja chat template as it ships (tokenizer_config.json or
   chat_template.jinja; docs/FORMAT.md, keys tokenizer.chat_template and chat.*), and
   llm_chat_render runs it in llm.h's Jinja interpreter (llm_jinja_render) exactly as
   HuggingFace apply_chat_template renders it, byte for byte, including the template's own
   errors. A model without a template renders the contents one after another ("raw").
   desc->template_name picks one of the built-in templates instead (llm_chat_template_name): short
   Jinja texts written for llm.h that render what each family's own template renders for plain
   role and content messages, through the same interpreter:
     zephyr  llama2  mistral-v1  mistral-v3  mistral-v0.1-legacy  mistral-v0.2-legacy  chatml
     smollm2  qwen2.5  qwen3  gemma2  gemma3  llama3  llama3-base  llama3.1  llama3.2  raw
   llm_chat_template names the built-in template the converter recognised ("raw": none). */
typedef struct llm_chat_message {
    const char *role;        /* "system", "user", "assistant" (templates also know "tool") */
    const char *content;     /* NUL-terminated UTF-8 */
} llm_chat_message;

typedef struct llm_chat_desc {
    const char *template_name; /* NULL: the model's; else a known name, or a family (its first) */
    const char *date;          /* Llama 3.1/3.2 "Today Date" ("26 Jul 2024"); NULL: llama3.1's own,
                                  llama3.2: SOURCE_DATE_EPOCH when set, else today (UTC) */
    int no_thinking;           /* enable_thinking=False (qwen3: an empty think block) */
    const char *jinja;         /* a Jinja template's text rendered instead of the model's (NUL-terminated) */
    /* For the model's own template or jinja (template_name NULL), as JSON text: */
    const char *messages_json; /* the whole conversation, [{"role", "content", "tool_calls", ...}, ...],
                                  used instead of msgs when set */
    const char *tools_json;    /* the tools list, [{"type": "function", "function": {...}}, ...] */
    const char *vars_json;     /* more template variables, {"enable_thinking": false, "documents": [...]} */
    const struct llm_jinja *parsed; /* the template (jinja, else the model's) parsed once by llm_jinja_open,
                                  so that each call does not parse it again */
    char *error_text;          /* the template's error message is copied here (*error points at it) */
    size_t error_cap;
} llm_chat_desc;

/* Writes the prompt text and a NUL to out. *n_out gets the text's length; when cap is below
   *n_out + 1, LLM_ERR_BUFFER_TOO_SMALL. When the template rejects the conversation:
   LLM_ERR_TEMPLATE and *error (optional) gets its message (for the model's template: in
   desc->error_text when given, else in out when cap allows); an unknown template_name gives
   LLM_ERR_UNSUPPORTED; bad JSON in desc LLM_ERR_INVALID_ARGUMENT (*error says what). */
LLMDEF llm_result llm_chat_render(const llm_model *m, const llm_chat_message *msgs, size_t n, int add_generation_prompt,
                                  const llm_chat_desc *desc, char *out, size_t cap, size_t *n_out, const char **error);
LLMDEF const char *llm_chat_template(const llm_model *m);         /* the model's template name, "raw" if none */
LLMDEF const char *llm_chat_template_name(size_t i);              /* the i-th known name; NULL past the end */
/* The text of the token that ends an assistant turn for a template (NULL: the model's),
   e.g. "<|eot_id|>"; NULL for raw or an unknown name. Not NUL-terminated: see len. */
LLMDEF const char *llm_chat_end_of_turn(const llm_model *m, const char *template_name, size_t *len);

/* Any Jinja chat template, rendered as transformers' apply_chat_template renders it (the
   interpreter is described in the "jinja" sections below). vars_json is one JSON object whose
   keys are the template's variables: messages, tools, add_generation_prompt, bos_token,
   eos_token, documents, enable_thinking, ...; a key left out is undefined, null is None.
   Writes the text and a NUL to out; *n_out gets its length, and LLM_ERR_BUFFER_TOO_SMALL
   says cap was too small. A template that does not parse, raises (raise_exception, a type
   error, an unsafe call) or passes a limit gives LLM_ERR_TEMPLATE with the message in error. */
#define LLM_JINJA_DEFAULT_STEPS  10000000   /* expressions and statements evaluated */
#define LLM_JINJA_DEFAULT_MEMORY (64u << 20) /* bytes of tokens, values and text */
#define LLM_JINJA_DEFAULT_DEPTH  200        /* nesting of calls, expressions and statements */
typedef struct llm_jinja_desc {
    size_t max_steps;   /* 0: LLM_JINJA_DEFAULT_STEPS */
    size_t max_memory;  /* 0: LLM_JINJA_DEFAULT_MEMORY */
    int max_depth;      /* 0: LLM_JINJA_DEFAULT_DEPTH */
    int64_t now;        /* strftime_now's clock, seconds since 1970 UTC; 0: SOURCE_DATE_EPOCH, else the time */
} llm_jinja_desc;
LLMDEF llm_result llm_jinja_render(const char *tmpl, size_t tmpl_len, const char *vars_json, size_t vars_len,
                                   const llm_jinja_desc *desc, char *out, size_t cap, size_t *n_out, char *error,
                                   size_t error_cap);
/* The same in two steps, for rendering one template many times: llm_jinja_open parses it
   (LLM_ERR_TEMPLATE with the message when it does not parse: what the converter checks), and
   llm_jinja_run renders it. An opened template is read-only: many threads may run it at once. */
typedef struct llm_jinja llm_jinja;
LLMDEF llm_result llm_jinja_open(llm_jinja **t, const char *tmpl, size_t tmpl_len, const llm_jinja_desc *desc, char *error,
                                 size_t error_cap);
LLMDEF llm_result llm_jinja_run(const llm_jinja *t, const char *vars_json, size_t vars_len, char *out, size_t cap,
                                size_t *n_out, char *error, size_t error_cap);
LLMDEF void llm_jinja_close(llm_jinja *t);

/* ---- llm: generation ---------------------------------------------------------------------
   llm_generate_tokens makes the context hold the prompt, then samples tokens until a stop
   token, max_tokens, the callback's request or the end of the context. The KV cache is
   reused: only the prompt's tokens after its common prefix with llm_ctx_tokens are
   evaluated, so a chat that passes its whole conversation each turn evaluates only the new
   turn. Stop tokens (never passed to the callback, never evaluated): the model's eos ids
   (generation_config.json), the template's end-of-turn token, and stop_ids. The last token
   sampled is not evaluated either: the next call evaluates what it needs. */
typedef enum llm_stop {
    LLM_STOP_NONE = 0,         /* an error, or max_tokens -1 */
    LLM_STOP_TOKEN = 1,        /* a stop token came (stats.stop_id) */
    LLM_STOP_MAX = 2,          /* max_tokens were generated */
    LLM_STOP_CALLBACK = 3,     /* the callback returned nonzero */
    LLM_STOP_CONTEXT_FULL = 4  /* the context has no room for another token */
} llm_stop;

/* Called for each generated token with its id and the text it adds to the decoded prompt
   (complete UTF-8 only, so piece may be empty; special tokens add none; NULL when the model
   has no tokenizer). Return nonzero to stop. A last call with id -1 brings the bytes of a
   character the reply left unfinished (as U+FFFD), if any. */
typedef int (*llm_token_fn)(void *user, const char *piece, size_t len, int32_t id);

/* Chooses the next token from logits (n_vocab floats: llm_logits(ctx)) in place of the
   sampler, e.g. a constrained decoder that masks what its grammar forbids and then samples
   (llm_sample_logits, with llm_ctx_tokens as the penalty window). Returns LLM_OK with *id in
   [0, n_vocab), or an error, which ends the generation with it. */
typedef llm_result (*llm_choose_fn)(void *user, llm_ctx *ctx, const float *logits, int32_t n_vocab, int32_t *id);

typedef struct llm_generate_desc {
    llm_sampler *sampler;      /* NULL: greedy. Its RNG state advances */
    int32_t max_tokens;        /* 0: no limit but the context; -1: only evaluate the prompt */
    int32_t n_reserve;         /* positions the prompt must leave free, else LLM_ERR_CONTEXT_FULL
                                  before anything is evaluated */
    const char *template_name; /* whose end-of-turn token stops (NULL: the model's template) */
    const int32_t *stop_ids;   /* more stop tokens */
    size_t n_stop_ids;
    int ignore_eos;            /* only stop_ids stop: not the eos ids nor the end-of-turn token */
    llm_token_fn on_token;     /* may be NULL */
    void *user;
    int32_t prompt_chunk;      /* llm_generation_step: prompt tokens evaluated per step; 0: n_batch */
    llm_choose_fn choose;      /* picks each token; NULL: llm_sample with sampler */
    void *choose_user;
    llm_log_fn log;            /* receives the detail message of each error (llm_generation_error) */
    void *log_user;
    llm_allocator allocator;   /* for llm_generation_open's one allocation */
} llm_generate_desc;

typedef struct llm_generate_stats {
    int32_t n_prompt;          /* prompt tokens */
    int32_t n_reused;          /* of those, found in the KV cache */
    int32_t n_evaluated;       /* prompt tokens evaluated (n_prompt - n_reused) */
    int32_t n_generated;       /* tokens generated, the stop token not counted */
    int32_t stop_id;           /* the stop token, or -1 */
    llm_stop stop;
    double prompt_seconds, prompt_tokens_per_s;  /* evaluating the prompt */
    double gen_seconds, gen_tokens_per_s;        /* sampling and evaluating, callbacks excluded */
} llm_generate_stats;

/* prompt holds every token the context should hold before the reply; stats may be NULL.
   LLM_ERR_CONTEXT_FULL (stats->n_prompt set) leaves the context unchanged. The detail
   message of an error goes to desc->log. */
LLMDEF llm_result llm_generate_tokens(llm_ctx *ctx, const int32_t *prompt, size_t n, const llm_generate_desc *desc,
                                      llm_generate_stats *stats);
/* The same from text, such as llm_chat_render's: tokenized with special tokens parsed
   (LLM_TOKENIZE_PARSE_SPECIAL) and the tokenizer's BOS put first unless the text begins
   with it; no EOS is added. LLM_ERR_UNSUPPORTED when the model has no tokenizer. */
LLMDEF llm_result llm_generate(llm_ctx *ctx, const char *prompt, size_t len, const llm_generate_desc *desc,
                               llm_generate_stats *stats);

/* The same step by step, for a loop with a time budget (a game's frame). A generation is
   built on the context's public functions only and owns what it needs (the prompt and reply
   tokens, decoder, stop ids, error message), allocated once by llm_generation_open; desc is
   copied, its sampler, stop_ids and callbacks must stay valid until close. Each start
   (text as llm_generate, or ids as llm_generate_tokens) tokenizes the prompt and finds what
   the cache holds, evaluating nothing; then each llm_generation_step does at most one
   llm_eval (prompt_chunk prompt tokens, or the token the previous step produced) and
   chooses at most one token, and returns. llm_generate is exactly open, start, steps until
   done, close. Start again for the next reply (the cache is reused); a failed start leaves
   the generation done. A step after done does nothing; a step before any start, or after the
   context changed under the generation (llm_eval, llm_ctx_rewind, llm_ctx_load, or another
   generation's step: the context no longer holds the tokens this one put there), fails with
   LLM_ERR_INVALID_ARGUMENT. */
typedef struct llm_generation llm_generation;

typedef struct llm_step {
    int32_t id;                /* the token this step produced, or -1 */
    const char *piece;         /* the text it adds (see llm_token_fn), valid until the next step; */
    size_t len;                /* the step that ends the generation appends an unfinished character */
    int done;                  /* the generation is over; llm_generation_stats(g)->stop tells why */
} llm_step;

/* The detail message of a failure also goes to desc->log (the only place for one of open's). */
LLMDEF llm_result llm_generation_open(llm_generation **out, llm_ctx *ctx, const llm_generate_desc *desc);
LLMDEF void llm_generation_close(llm_generation *g); /* NULL is allowed */
LLMDEF llm_result llm_generation_start(llm_generation *g, const char *text, size_t len);
LLMDEF llm_result llm_generation_start_tokens(llm_generation *g, const int32_t *ids, size_t n);
LLMDEF llm_result llm_generation_step(llm_generation *g, llm_step *step); /* step may be NULL */
LLMDEF const llm_generate_stats *llm_generation_stats(const llm_generation *g); /* counts so far; speeds once done */
LLMDEF const char *llm_generation_error(const llm_generation *g); /* "" when none since the last start */

/* ---- llm: file format names ------------------------------------------------------------
   The names and values of the .llm format (docs/FORMAT.md), spelled once here and used by the
   reader below and by the writer, tools/llm_convert.h. */
#define LLM_FILE_MAGIC "LLMF"  /* the first 4 bytes of a model file */
#define LLM_FILE_VERSION 3u    /* the u32 after them; any other is refused */

/* Metadata entry types. */
enum { LLM_META_I32 = 1, LLM_META_F64 = 2, LLM_META_STRING = 3, LLM_META_I32_ARRAY = 4, LLM_META_BLOB = 5 };

/* Metadata keys: the file itself. */
#define LLM_KEY_ARCH              "general.architecture"   /* string: llama, mistral, qwen2, qwen3, gemma2, ..., mixtral, ... */
#define LLM_KEY_VOCAB_ONLY        "general.vocab_only"     /* i32: 1, a tokenizer without tensors */
/* The model's hyper-parameters (config.json) and token ids. */
#define LLM_KEY_N_VOCAB           "llm.vocab_size"
#define LLM_KEY_N_EMBD            "llm.hidden_size"
#define LLM_KEY_N_FF              "llm.intermediate_size"
#define LLM_KEY_N_LAYER           "llm.num_layers"
#define LLM_KEY_N_HEAD            "llm.num_heads"
#define LLM_KEY_N_HEAD_KV         "llm.num_kv_heads"
#define LLM_KEY_HEAD_DIM          "llm.head_dim"
#define LLM_KEY_N_CTX_TRAIN       "llm.max_position_embeddings"
#define LLM_KEY_RMS_EPS           "llm.rms_norm_eps"                          /* f64 */
#define LLM_KEY_ROPE_THETA        "llm.rope_theta"                            /* f64 */
#define LLM_KEY_TIED_EMBEDDINGS   "llm.tie_word_embeddings"
#define LLM_KEY_NO_LM_HEAD        "llm.no_lm_head"                            /* 1: no LM head tensor */
#define LLM_KEY_POOLING           "llm.pooling"                               /* an llm_pooling (not MODEL) */
#define LLM_KEY_EMBD_NORMALIZE    "llm.embedding_normalize"                   /* 1: L2-normalized embeddings */
#define LLM_KEY_EMBD_PROMPT       "llm.embedding_prompt."                     /* + a name: string, a prompt put before texts */
#define LLM_KEY_EMBD_DEFAULT_PROMPT "llm.embedding_default_prompt"            /* string: the name of the one used by default */
#define LLM_KEY_QK_NORM           "llm.qk_norm"
#define LLM_KEY_ROPE_SCALING      "llm.rope_scaling"                          /* an llm_rope_scaling */
#define LLM_KEY_ROPE_FACTOR       "llm.rope_factor"                           /* f64 */
#define LLM_KEY_ROPE_LOW_FREQ     "llm.rope_low_freq_factor"                  /* f64 */
#define LLM_KEY_ROPE_HIGH_FREQ    "llm.rope_high_freq_factor"                 /* f64 */
#define LLM_KEY_ROPE_ORIG_CTX     "llm.rope_original_max_position_embeddings"
#define LLM_KEY_SLIDING_WINDOW    "llm.sliding_window"                        /* i32 array, per layer */
#define LLM_KEY_BLOCK_NORMS       "llm.block_norms"                           /* an llm_block_norms */
#define LLM_KEY_NORM_PLUS_ONE     "llm.norm_plus_one"
#define LLM_KEY_ACTIVATION        "llm.activation"                            /* an llm_activation */
#define LLM_KEY_EMBD_SCALE        "llm.embedding_scale"                       /* f64 */
#define LLM_KEY_ATTN_SCALE        "llm.attention_scale"                       /* f64 */
#define LLM_KEY_RESIDUAL_SCALE    "llm.residual_scale"                        /* f64 */
#define LLM_KEY_LOGITS_DIVISOR    "llm.logits_divisor"                        /* f64 */
#define LLM_KEY_ATTN_SOFTCAP      "llm.attention_softcap"                     /* f64 */
#define LLM_KEY_FINAL_SOFTCAP     "llm.final_softcap"                         /* f64 */
#define LLM_KEY_ROPE_DIM          "llm.rope_dim"
#define LLM_KEY_LAYER_ROPE        "llm.layer_rope"                            /* i32 array, LLM_LAYER_ROPE_* per layer */
#define LLM_KEY_ROPE_THETA_LOCAL  "llm.rope_theta_local"                      /* f64 */
#define LLM_KEY_ROPE_ATTN_FACTOR  "llm.rope_attention_factor"                 /* f64 */
#define LLM_KEY_ROPE_BETA_FAST    "llm.rope_beta_fast"                        /* f64 */
#define LLM_KEY_ROPE_BETA_SLOW    "llm.rope_beta_slow"                        /* f64 */
#define LLM_KEY_ROPE_TRUNCATE     "llm.rope_truncate"
#define LLM_KEY_ROPE_SHORT        "llm.rope_short_factor"                     /* blob, rope_dim / 2 f32 */
#define LLM_KEY_ROPE_LONG         "llm.rope_long_factor"                      /* blob, rope_dim / 2 f32 */
#define LLM_KEY_BOS_ID            "llm.bos_token_id"
#define LLM_KEY_EOS_IDS           "llm.eos_token_ids"                         /* i32 array */
/* Mixtures of experts; absent in a dense model. */
#define LLM_KEY_N_EXPERT          "llm.expert_count"                          /* routed experts of a sparse layer */
#define LLM_KEY_N_EXPERT_USED     "llm.expert_used_count"                     /* chosen per token (top-k) */
#define LLM_KEY_EXPERT_FF         "llm.expert_intermediate_size"              /* each expert's width */
#define LLM_KEY_EXPERT_NORM_TOPK  "llm.expert_norm_topk_prob"                 /* 1: renormalise the chosen */
#define LLM_KEY_SHARED_EXPERT_FF  "llm.shared_expert_intermediate_size"       /* 0: no shared expert */
#define LLM_KEY_EXPERT_LAYERS     "llm.expert_layers"                         /* i32 array, per layer: 1 sparse */
/* The tokenizer (tokenizer.json). */
#define LLM_KEY_TOK_TOKENS        "tokenizer.tokens"                          /* blob */
#define LLM_KEY_TOK_OFFSETS       "tokenizer.token_offsets"                   /* i32 array */
#define LLM_KEY_TOK_FLAGS         "tokenizer.token_flags"                     /* blob, LLM_TF_* per id */
#define LLM_KEY_TOK_MERGES        "tokenizer.merges"                          /* i32 array */
#define LLM_KEY_TOK_UNK_ID        "tokenizer.unk_id"
#define LLM_KEY_TOK_BPE_OPTIONS   "tokenizer.bpe_options"                     /* LLM_BPE_* */
#define LLM_KEY_TOK_BYTE_LEVEL    "tokenizer.byte_level"
#define LLM_KEY_TOK_NORMALIZER    "tokenizer.normalizer"                      /* LLM_NORM_* */
#define LLM_KEY_TOK_PRE           "tokenizer.pre_tokenizer"                   /* i32 array of LLM_PRE_* */
#define LLM_KEY_TOK_MS_PREPEND    "tokenizer.metaspace_prepend"
#define LLM_KEY_TOK_MS_SPLIT      "tokenizer.metaspace_split"
#define LLM_KEY_TOK_DECODER       "tokenizer.decoder"                         /* LLM_DEC_* */
#define LLM_KEY_TOK_DEC_FALLBACK  "tokenizer.decoder_byte_fallback"
#define LLM_KEY_TOK_DEC_STRIP     "tokenizer.decoder_strip"
#define LLM_KEY_TOK_PREFIX_IDS    "tokenizer.prefix_ids"                      /* i32 array */
#define LLM_KEY_TOK_SUFFIX_IDS    "tokenizer.suffix_ids"                      /* i32 array */
#define LLM_KEY_TOK_SPLIT_REGEXES "tokenizer.split_regexes"                   /* blob: NUL-ended texts */
#define LLM_KEY_TOK_SPLIT_MODES   "tokenizer.split_behaviors"                 /* i32 array of LLM_SPLIT_* */
/* The chat template (tokenizer_config.json, chat_template.jinja); strings. */
#define LLM_KEY_CHAT_TEMPLATE     "tokenizer.chat_template"
#define LLM_KEY_CHAT_FAMILY       "chat.family"
#define LLM_KEY_CHAT_VARIANT      "chat.variant"
#define LLM_KEY_CHAT_BOS          "chat.bos_token"
#define LLM_KEY_CHAT_EOS          "chat.eos_token"
#define LLM_KEY_CHAT_SYSTEM       "chat.default_system"
#define LLM_KEY_CHAT_DATE         "chat.date"

/* Tokenizer values. */
enum { LLM_NORM_NONE = 0, LLM_NORM_NFC = 1, LLM_NORM_SPM = 2, LLM_NORM_SPM_REPLACE = 3 };
enum { LLM_PRE_METASPACE = 1, LLM_PRE_DIGITS = 2, LLM_PRE_DIGIT_RUNS = 3, LLM_PRE_GPT2 = 4,
       LLM_PRE_LLAMA3 = 5, LLM_PRE_QWEN2 = 6, LLM_PRE_PREFIX_SPACE = 7, LLM_PRE_SPLIT = 8 };
enum { LLM_SPLIT_ISOLATED = 0, LLM_SPLIT_REMOVED = 1, LLM_SPLIT_MERGED_PREVIOUS = 2, LLM_SPLIT_MERGED_NEXT = 3,
       LLM_SPLIT_CONTIGUOUS = 4, LLM_SPLIT_INVERT = 8 };
enum { LLM_DEC_BYTE_LEVEL = 1, LLM_DEC_SENTENCEPIECE = 2, LLM_DEC_METASPACE = 3 };
/* LLM_TF_BYTE_LEVEL_TEXT on an added token: its text is the byte-level spelling of its
   bytes; on a vocabulary entry that is not added: its text has a character outside the
   byte-level alphabet, so BPE never produces it (kept out of the lookup by bytes). */
enum { LLM_TF_MODEL = 1, LLM_TF_ADDED = 2, LLM_TF_SPECIAL = 4, LLM_TF_LSTRIP = 8, LLM_TF_RSTRIP = 16,
       LLM_TF_SINGLE_WORD = 32, LLM_TF_NORMALIZED = 64, LLM_TF_BYTE_LEVEL_TEXT = 128 };
enum { LLM_BPE_BYTE_FALLBACK = 1, LLM_BPE_FUSE_UNK = 2, LLM_BPE_IGNORE_MERGES = 4 };

#ifdef __cplusplus
}
#endif
#endif /* LLM_H */

/* ========================================================================================= */
#ifdef LLM_IMPLEMENTATION
#ifndef LLM_IMPLEMENTATION_DONE
#define LLM_IMPLEMENTATION_DONE

#include <float.h>
#include <math.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h> /* snprintf/vsnprintf only, for messages */
#include <stdlib.h>
#include <time.h>

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
static void llm__wr32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24); }
static void llm__wr64(uint8_t *p, uint64_t v) { llm__wr32(p, (uint32_t)v); llm__wr32(p + 4, (uint32_t)(v >> 32)); }

/* Wall-clock seconds from an arbitrary origin, for the generation statistics and the
   programs' timings (clock() counts the CPU time of every thread). */
#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
static double llm__seconds(void) {
    LARGE_INTEGER t, f;
    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return (double)t.QuadPart / (double)f.QuadPart;
}
#elif defined(__unix__) || defined(__APPLE__)
#include <sys/time.h>
#include <unistd.h> /* sysconf */
static double llm__seconds(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}
#else
static double llm__seconds(void) { return (double)clock() / CLOCKS_PER_SEC; }
#endif
LLMDEF double llm_seconds(void) { return llm__seconds(); }

#if !defined(LLM_NO_STDIO)
#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#else
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if !defined(LLM_NO_MMAP)
#include <sys/mman.h>
#if defined(__linux__) && !defined(MADV_HUGEPAGE) && \
    (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) || defined(__riscv))
/* Strict feature macros (-std=c99) hide madvise and its advice: its prototype, and the value
   Linux gives MADV_HUGEPAGE on these architectures. */
extern int madvise(void *addr, size_t len, int advice);
#define MADV_HUGEPAGE 14
#endif
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

/* Weights read into memory are streamed once per token: on Linux, ask for 2 MiB pages for
   the default allocator's buffer before it is filled, which spares a page walk every 4 KiB of
   the stream. A hint only; a user's allocator owns its memory and is left alone. */
static void llm__advise_huge_pages(const llm_allocator *a, void *p, size_t size) {
#if defined(__linux__) && !defined(LLM_NO_MMAP) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + size) & ~(huge - 1);
    if (!(a && a->alloc) && hi > lo) (void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
#else
    (void)a; (void)p; (void)size;
#endif
}

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
    llm__advise_huge_pages(a, v->data, (size_t)size);
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

/* Writing over a file: the bytes go to a temporary beside it, created exclusively (a name
   no other writer holds), which replaces the file only once completely written, so a
   failed write (a full disk) leaves the old file as it was. */
typedef struct llm__tmp_file {
    int fd;
    char *path;                /* the temporary's name, from the allocator */
} llm__tmp_file;

static llm_result llm__tmp_open(llm__tmp_file *t, const char *path, const llm_allocator *a, const void *salt) {
    size_t cap = strlen(path) + 32;
    uint32_t seed = (uint32_t)(uintptr_t)salt ^ (uint32_t)(uint64_t)(llm__seconds() * 1e6);
    int k;
    t->fd = -1;
    if (!(t->path = (char *)llm__alloc(a, cap))) return LLM_ERR_OUT_OF_MEMORY;
    for (k = 0; k < 64 && t->fd < 0; k++) {
        seed = seed * 1664525u + 1013904223u;
        snprintf(t->path, cap, "%s.%08x.tmp", path, (unsigned)seed);
#if defined(_WIN32)
        t->fd = _open(t->path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
        if (t->fd < 0 && errno != EEXIST) break;
#else
        t->fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (t->fd < 0 && errno != EEXIST) break;
#endif
    }
    if (t->fd >= 0) return LLM_OK;
    llm__free(a, t->path);
    t->path = NULL;
    return LLM_ERR_IO;
}

static int llm__tmp_write(llm__tmp_file *t, const void *data, size_t n) {
    const char *p = (const char *)data;
    while (n) {
        size_t k = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
#if defined(_WIN32)
        int w = _write(t->fd, p, (unsigned)k);
#else
        long w = (long)write(t->fd, p, k);
        if (w < 0 && errno == EINTR) continue;
#endif
        if (w <= 0) return 0;
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

/* Closes the temporary and, when ok, puts it in place of path; else, or when that fails,
   removes it. Returns whether path now holds the new bytes. */
static int llm__tmp_close(llm__tmp_file *t, const char *path, int ok, const llm_allocator *a) {
#if defined(_WIN32)
    ok = _close(t->fd) == 0 && ok;
    ok = ok && MoveFileExA(t->path, path, MOVEFILE_REPLACE_EXISTING);
#else
    ok = close(t->fd) == 0 && ok;
    ok = ok && rename(t->path, path) == 0;
#endif
    if (!ok) remove(t->path);
    llm__free(a, t->path);
    return ok;
}
#endif /* !LLM_NO_STDIO */

/* Threads. A step of work is split into chunks, handed out one at a time from an atomic
   counter, so a thread slowed down by another process just takes fewer chunks, and a chunk's
   result does not depend on which thread computed it. In the pool, a step is finished when
   its chunks are: a worker that was not running when the step began never holds it up.
   Waiting threads spin only briefly, then sleep; a thread that keeps spinning while the one it
   waits for is preempted holds on to a CPU the other could use.

   Every backend has the same functions over an llm__workers:
     llm__workers_open(w, n, alloc)    n threads, the caller included; w->n says how many started
     llm__workers_run(w, n, fn, arg)   fn(arg, k) for k in [0, n) on all of them, and how long it took
     llm__workers_wake(w)              sleeping workers spin again, ready for the next step
     llm__workers_close(w)             also safe on a zeroed llm__workers that was never opened
     llm__threads_default()            the thread count of a context that asks for 0
   The backend is chosen here, once: none under LLM_NO_THREADS, OpenMP when the compiler has it,
   else a pool of Win32 threads on Windows and of pthreads everywhere else. */
typedef void (*llm__chunk_fn)(void *arg, int chunk);

/* What a parallel step took, in any one unit: all of it, and the caller's own `mine` chunks. */
typedef struct llm__step_time {
    double total, own;
    int mine;
} llm__step_time;

#if defined(LLM_NO_THREADS)
#define LLM__THREADS_NAME "none"
#elif defined(_OPENMP)
#define LLM__THREADS_OPENMP 1
#define LLM__THREADS_NAME "openmp"
#include <omp.h>
#elif defined(_WIN32)
#define LLM__THREADS_WIN32 1
#define LLM__THREADS_NAME "win32"
#else
#define LLM__THREADS_PTHREAD 1
#define LLM__THREADS_NAME "pthread"
#include <pthread.h>
#include <unistd.h>
#endif

/* The pool's operating system calls: threads, a mutex, condition variables, the CPU count. */
#if defined(LLM__THREADS_WIN32)
typedef HANDLE llm__thread;
typedef SRWLOCK llm__mutex;
typedef CONDITION_VARIABLE llm__cond;
static void llm__mutex_init(llm__mutex *m) { InitializeSRWLock(m); }
static void llm__mutex_destroy(llm__mutex *m) { (void)m; }
static void llm__lock(llm__mutex *m) { AcquireSRWLockExclusive(m); }
static void llm__unlock(llm__mutex *m) { ReleaseSRWLockExclusive(m); }
static void llm__cond_init(llm__cond *c) { InitializeConditionVariable(c); }
static void llm__cond_destroy(llm__cond *c) { (void)c; }
static void llm__wait(llm__cond *c, llm__mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static void llm__signal(llm__cond *c) { WakeConditionVariable(c); }
static void llm__broadcast(llm__cond *c) { WakeAllConditionVariable(c); }
static void llm__worker_main(void *w);
static DWORD WINAPI llm__thread_main(LPVOID w) { llm__worker_main(w); return 0; }
static int llm__thread_start(llm__thread *t, void *arg) { return (*t = CreateThread(NULL, 0, llm__thread_main, arg, 0, NULL)) != NULL; }
static void llm__thread_join(llm__thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
static long llm__cpu_count(void) { SYSTEM_INFO s; GetSystemInfo(&s); return (long)s.dwNumberOfProcessors; }
#elif defined(LLM__THREADS_PTHREAD)
typedef pthread_t llm__thread;
typedef pthread_mutex_t llm__mutex;
typedef pthread_cond_t llm__cond;
static void llm__mutex_init(llm__mutex *m) { pthread_mutex_init(m, NULL); }
static void llm__mutex_destroy(llm__mutex *m) { pthread_mutex_destroy(m); }
static void llm__lock(llm__mutex *m) { pthread_mutex_lock(m); }
static void llm__unlock(llm__mutex *m) { pthread_mutex_unlock(m); }
static void llm__cond_init(llm__cond *c) { pthread_cond_init(c, NULL); }
static void llm__cond_destroy(llm__cond *c) { pthread_cond_destroy(c); }
static void llm__wait(llm__cond *c, llm__mutex *m) { pthread_cond_wait(c, m); }
static void llm__signal(llm__cond *c) { pthread_cond_signal(c); }
static void llm__broadcast(llm__cond *c) { pthread_cond_broadcast(c); }
static void llm__worker_main(void *w);
static void *llm__thread_main(void *w) { llm__worker_main(w); return NULL; }
static int llm__thread_start(llm__thread *t, void *arg) { return pthread_create(t, NULL, llm__thread_main, arg) == 0; }
static void llm__thread_join(llm__thread t) { pthread_join(t, NULL); }
static long llm__cpu_count(void) { return sysconf(_SC_NPROCESSORS_ONLN); }
#endif

#if defined(LLM__THREADS_WIN32) || defined(LLM__THREADS_PTHREAD)
#define LLM__SPIN 4096       /* polls (tens of microseconds) before a waiting thread sleeps */
#define LLM__MAX_CHUNKS (1 << 20)
#define LLM__STEP_WRAP (1 << 24) /* step numbers count modulo this (24 bits of the state) */

/* The pool's shared words, with acquire and release ordering: the GNU builtins, the Windows
   Interlocked functions (MSVC), else (a compiler with neither) plain accesses under `lock`. */
#if defined(__GNUC__)
static uint64_t llm__load(llm__mutex *lock, uint64_t *v) { (void)lock; return __atomic_load_n(v, __ATOMIC_ACQUIRE); }
static void llm__store(llm__mutex *lock, uint64_t *v, uint64_t x) { (void)lock; __atomic_store_n(v, x, __ATOMIC_RELEASE); }
static uint64_t llm__increment(llm__mutex *lock, uint64_t *v) { (void)lock; return __atomic_add_fetch(v, 1, __ATOMIC_ACQ_REL); }
/* Replaces *v by x when it holds *old, else puts what it holds in *old. */
static int llm__swap(llm__mutex *lock, uint64_t *v, uint64_t *old, uint64_t x) {
    (void)lock;
    return __atomic_compare_exchange_n(v, old, x, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
#elif defined(_WIN32)
static uint64_t llm__load(llm__mutex *lock, uint64_t *v) { (void)lock; return (uint64_t)InterlockedCompareExchange64((LONG64 *)v, 0, 0); }
static void llm__store(llm__mutex *lock, uint64_t *v, uint64_t x) { (void)lock; InterlockedExchange64((LONG64 *)v, (LONG64)x); }
static uint64_t llm__increment(llm__mutex *lock, uint64_t *v) { (void)lock; return (uint64_t)InterlockedIncrement64((LONG64 *)v); }
static int llm__swap(llm__mutex *lock, uint64_t *v, uint64_t *old, uint64_t x) {
    uint64_t was = (uint64_t)InterlockedCompareExchange64((LONG64 *)v, (LONG64)x, (LONG64)*old);
    (void)lock;
    if (was == *old) return 1;
    *old = was;
    return 0;
}
#else
static uint64_t llm__load(llm__mutex *lock, uint64_t *v) { uint64_t x; llm__lock(lock); x = *v; llm__unlock(lock); return x; }
static void llm__store(llm__mutex *lock, uint64_t *v, uint64_t x) { llm__lock(lock); *v = x; llm__unlock(lock); }
static uint64_t llm__increment(llm__mutex *lock, uint64_t *v) { uint64_t x; llm__lock(lock); x = ++*v; llm__unlock(lock); return x; }
static int llm__swap(llm__mutex *lock, uint64_t *v, uint64_t *old, uint64_t x) {
    int same;
    llm__lock(lock);
    same = *v == *old;
    if (same) *v = x;
    else *old = *v;
    llm__unlock(lock);
    return same;
}
#endif

static void llm__cpu_relax(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__) && defined(__GNUC__)
    __asm__ __volatile__("yield");
#elif defined(_WIN32)
    YieldProcessor();
#endif
}

/* A cheap monotonic tick count (TSC, the ARM virtual counter; else nanoseconds of the clock)
   for comparing two durations. */
static uint64_t llm__ticks(void) {
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__) && defined(__GNUC__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return (uint64_t)(llm__seconds() * 1e9);
#endif
}

typedef struct llm__workers {
    int n;                    /* threads, the caller included */
    llm__thread *threads;
    llm__mutex mu, lock;      /* the sleepers'; the shared words' (used only without atomics) */
    llm__cond wake, done;
    uint64_t state;           /* step number << 40 | chunk count << 20 | next chunk, shared */
    uint64_t finished, stop;  /* chunks finished in this step; shut down (shared) */
    llm__chunk_fn fn;
    void *arg;
    const llm_allocator *alloc;
} llm__workers;

static uint64_t llm__state(llm__workers *w) { return llm__load(&w->lock, &w->state); }
static int llm__stopping(llm__workers *w) { return llm__load(&w->lock, &w->stop) != 0; }

/* Claims the next chunk of step `step`, or -1 when it has none left (or a newer step began). */
static int llm__claim(llm__workers *w, uint64_t step) {
    uint64_t s = llm__state(w);
    while (s >> 40 == step && (s & (LLM__MAX_CHUNKS - 1)) < (s >> 20 & (LLM__MAX_CHUNKS - 1)))
        if (llm__swap(&w->lock, &w->state, &s, s + 1)) return (int)(s & (LLM__MAX_CHUNKS - 1));
    return -1;
}

static int llm__run_chunks(llm__workers *w, uint64_t step) {
    int k, done = 0;
    uint64_t n = llm__state(w) >> 20 & (LLM__MAX_CHUNKS - 1);
    while ((k = llm__claim(w, step)) >= 0) {
        done++;
        w->fn(w->arg, k);
        if (llm__increment(&w->lock, &w->finished) == n) {
            llm__lock(&w->mu);
            llm__signal(&w->done);
            llm__unlock(&w->mu);
        }
    }
    return done;
}

static void llm__worker_main(void *arg) {
    llm__workers *w = (llm__workers *)arg;
    uint64_t seen = 0;
    int i;
    for (;;) {
        for (i = 0; i < LLM__SPIN && llm__state(w) >> 40 == seen && !llm__stopping(w); i++) llm__cpu_relax();
        if (llm__state(w) >> 40 == seen) {
            llm__lock(&w->mu);
            while (llm__state(w) >> 40 == seen && !llm__stopping(w)) llm__wait(&w->wake, &w->mu);
            llm__unlock(&w->mu);
        }
        if (llm__stopping(w)) return;
        seen = llm__state(w) >> 40;
        llm__run_chunks(w, seen);
    }
}

static void llm__workers_close(llm__workers *w) {
    int i;
    if (!w->threads) return;
    llm__lock(&w->mu);
    llm__store(&w->lock, &w->stop, 1);
    llm__broadcast(&w->wake);
    llm__unlock(&w->mu);
    for (i = 1; i < w->n; i++) llm__thread_join(w->threads[i]);
    llm__mutex_destroy(&w->mu);
    llm__mutex_destroy(&w->lock);
    llm__cond_destroy(&w->wake);
    llm__cond_destroy(&w->done);
    llm__free(w->alloc, w->threads);
    w->threads = NULL;
}

static llm_result llm__workers_open(llm__workers *w, int n, const llm_allocator *a) {
    memset(w, 0, sizeof *w);
    w->alloc = a;
    w->threads = (llm__thread *)llm__calloc(a, (size_t)n, sizeof *w->threads);
    if (!w->threads) return LLM_ERR_OUT_OF_MEMORY;
    llm__mutex_init(&w->mu);
    llm__mutex_init(&w->lock);
    llm__cond_init(&w->wake);
    llm__cond_init(&w->done);
    for (w->n = 1; w->n < n && llm__thread_start(&w->threads[w->n], w); w->n++) {}
    return LLM_OK;
}

static llm__step_time llm__workers_run(llm__workers *w, int n_chunks, llm__chunk_fn fn, void *arg) {
    uint64_t step = ((llm__state(w) >> 40) + 1) % LLM__STEP_WRAP, t0 = llm__ticks(), t1;
    llm__step_time t;
    int i;
    w->fn = fn;
    w->arg = arg;
    llm__store(&w->lock, &w->finished, 0);
    llm__lock(&w->mu);
    llm__store(&w->lock, &w->state, step << 40 | (uint64_t)n_chunks << 20);
    llm__broadcast(&w->wake);
    llm__unlock(&w->mu);
    t.mine = llm__run_chunks(w, step);
    t1 = llm__ticks();
    for (i = 0; i < LLM__SPIN && llm__load(&w->lock, &w->finished) < (uint64_t)n_chunks; i++) llm__cpu_relax();
    if (llm__load(&w->lock, &w->finished) < (uint64_t)n_chunks) {
        llm__lock(&w->mu);
        while (llm__load(&w->lock, &w->finished) < (uint64_t)n_chunks) llm__wait(&w->done, &w->mu);
        llm__unlock(&w->mu);
    }
    t.total = (double)(llm__ticks() - t0);
    t.own = (double)(t1 - t0);
    return t;
}

static void llm__workers_wake(llm__workers *w) { llm__workers_run(w, 0, NULL, NULL); }

static int llm__threads_default(void) {
    long n = llm__cpu_count();
    return n < 1 ? 1 : n > LLM_MAX_THREADS ? LLM_MAX_THREADS : (int)n;
}

#elif defined(LLM__THREADS_OPENMP)
typedef struct llm__workers {
    int n, next;              /* threads; the next chunk (atomic) */
} llm__workers;

static int llm__atomic_next(int *counter) {
    int v;
#pragma omp atomic capture
    v = (*counter)++;
    return v;
}

static llm_result llm__workers_open(llm__workers *w, int n, const llm_allocator *a) {
    (void)a;
    w->n = n;
    w->next = 0;
    return LLM_OK;
}

static void llm__workers_close(llm__workers *w) { (void)w; }
static void llm__workers_wake(llm__workers *w) { (void)w; } /* OpenMP's threads wait as OMP_WAIT_POLICY says */

static llm__step_time llm__workers_run(llm__workers *w, int n_chunks, llm__chunk_fn fn, void *arg) {
    double t0 = omp_get_wtime(), t1 = t0;
    llm__step_time t;
    int mine = 0;
    w->next = 0;
#pragma omp parallel num_threads(w->n)
    {
        int k, done = 0;
        while ((k = llm__atomic_next(&w->next)) < n_chunks) { fn(arg, k); done++; }
        if (omp_get_thread_num() == 0) { t1 = omp_get_wtime(); mine = done; }
    }
    t.total = omp_get_wtime() - t0;
    t.own = t1 - t0;
    t.mine = mine;
    return t;
}

static int llm__threads_default(void) { return omp_get_max_threads(); }

#else
typedef struct llm__workers {
    int n;                    /* always 1 */
} llm__workers;

static llm_result llm__workers_open(llm__workers *w, int n, const llm_allocator *a) { (void)n; (void)a; w->n = 1; return LLM_OK; }
static void llm__workers_close(llm__workers *w) { (void)w; }
static void llm__workers_wake(llm__workers *w) { (void)w; }

static llm__step_time llm__workers_run(llm__workers *w, int n_chunks, llm__chunk_fn fn, void *arg) {
    llm__step_time t;
    int k;
    (void)w;
    for (k = 0; k < n_chunks; k++) fn(arg, k);
    t.total = t.own = 0.0;
    t.mine = n_chunks;
    return t;
}

static int llm__threads_default(void) { return 1; }
#endif

/* The contention policy. When two parallel steps in a row took longer than the calling thread
   alone would have (another thread was preempted by another process), the next steps run on
   the calling thread alone, for a window that doubles while that keeps happening and shrinks
   by an eighth per parallel step that is not slow (one lucky step does not undo it): on a busy
   machine more threads must not mean slower. One slow step alone is a hiccup (an interrupt, a
   hypervisor taking the CPU for a moment): answering each with a window ran 1-6% of an idle
   VM's two-thread generation on one thread. The workers are woken as a window ends, so that
   the next parallel step is judged with them awake. */
#define LLM__CONTENTION_MIN_WORK 262144.0 /* multiply-adds: a smaller step runs on the caller, as
                                             waking the others would cost more than it saves */
#define LLM__CONTENTION_SLOW 0.9          /* slow: over 0.9 x the time the caller alone would take */
#define LLM__CONTENTION_FIRST 16          /* steps of the first window */
#define LLM__CONTENTION_LONGEST 4096      /* a window below this doubles, else becomes this */
#define LLM__CONTENTION_SHRINK 8          /* a step that is not slow takes window / 8 off */
#define LLM__CONTENTION_STRIKES 2         /* slow steps in a row that open a window */

typedef struct llm__contention {
    int window, solo_left;    /* the current window; its steps still to run on one thread */
    int strikes;              /* slow steps in a row since the last window or fast step */
} llm__contention;

/* The threads the next step, of `work` multiply-adds, runs on: 1 or n_threads. *wake is set
   at the last step of a window. */
static int llm__contention_threads(llm__contention *k, int n_threads, double work, int *wake) {
    *wake = 0;
    if (k->solo_left > 0) {
        *wake = --k->solo_left == 0;
        return 1;
    }
    return n_threads < 2 || work < LLM__CONTENTION_MIN_WORK ? 1 : n_threads;
}

/* Records a parallel step of n_chunks. The caller's `mine` chunks took `own`, so it would have
   taken own x n_chunks / mine alone. */
static void llm__contention_record(llm__contention *k, llm__step_time t, int n_chunks) {
    if (t.mine > 0 && t.total <= LLM__CONTENTION_SLOW * t.own * (double)n_chunks / (double)t.mine) {
        k->window -= k->window / LLM__CONTENTION_SHRINK;
        k->strikes = 0;
        return;
    }
    if (++k->strikes < LLM__CONTENTION_STRIKES) return;
    k->strikes = 0;
    k->window = !k->window ? LLM__CONTENTION_FIRST : k->window < LLM__CONTENTION_LONGEST ? 2 * k->window : LLM__CONTENTION_LONGEST;
    k->solo_left = k->window;
}

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

static const char *const llm__dtype_names[LLM_DTYPE_COUNT] = { "f32", "f16", "bf16", "q8_0", "q4_0", "q4_k", "q5_k", "q6_k" };

LLMDEF const char *llm_dtype_name(llm_dtype t) {
    return (unsigned)t < LLM_DTYPE_COUNT ? llm__dtype_names[t] : "unknown";
}

/* Quantized types: blocks of LLM__QK weights of one row share an f16 scale, and the file
   interleaves groups of LLM__QG rows so that one 64-byte load holds 4 consecutive weights
   of each of 16 rows (docs/FORMAT.md, "Quantized tensors"). */
#define LLM__QK 32
#define LLM__QG 16
#define LLM__Q8_BLOCK 34 /* bytes per block of one row: 2 (scale) + 32 */
#define LLM__Q4_BLOCK 18 /* 2 (scale) + 16 */

/* k-quant types (ggml's Q4_K, Q5_K, Q6_K values): super-blocks of LLM__QKK weights of one
   row, of ns = 8 sub-blocks of 32 columns (the last super-block of a row whose width is not a
   multiple of 256 has fewer: ggml's formats need the multiple, llm.h's do not). A group of 16
   rows stores, for each super-block in turn, the 4 low bits of the codes of its sub-blocks in
   q4_0's layout (256 bytes each), then their high bits, the sub-block scales and the f16
   super-block scales (docs/FORMAT.md, "k-quant tensors"): a sub-block meets one block of
   quantized activations. */
#define LLM__QKK 256
#define LLM__Q4K_BLOCK 144 /* bytes of one row's full super-block: 2 + 2 (d, dmin) + 12 (6-bit scales, mins) + 128 */
#define LLM__Q5K_BLOCK 176 /* q4_k's and 32 (the fifth bits) */
#define LLM__Q6K_BLOCK 210 /* 2 (d) + 16 (int8 scales) + 128 + 64 (4 + 2 bits a code) */

static int llm__is_kquant(llm_dtype t) { return t == LLM_DTYPE_Q4_K || t == LLM_DTYPE_Q5_K || t == LLM_DTYPE_Q6_K; }

/* Bytes of one row's super-block of ns sub-blocks (the scales take their full size). */
static size_t llm__kq_block_bytes(llm_dtype t, int ns) {
    return (size_t)ns * (t == LLM_DTYPE_Q4_K ? 16 : t == LLM_DTYPE_Q5_K ? 20 : 24) + (t == LLM_DTYPE_Q6_K ? 18 : 16);
}

/* In a group's super-block of ns sub-blocks: the high bits (q5_k: 64 bytes a sub-block; q6_k:
   128) follow the low ones; then the scales. q4_k / q5_k: 128 bytes of their low 4 bits,
   scale | min << 4 at 16j + l, 64 of their high 2 bits, scale | min << 2, sub-blocks 2i and
   2i+1 in the low and high nibble of byte 16i + l, then 16 f16 d and 16 f16 dmin; q6_k: 16 x 16
   int8 scales (sub-block k of 16 columns, row l at 16k + l), then 16 f16 d. */
static size_t llm__kq_hi_at(int ns) { return 256 * (size_t)ns; }
static size_t llm__kq_scales_at(llm_dtype t, int ns) { return (size_t)ns * (t == LLM_DTYPE_Q4_K ? 256 : t == LLM_DTYPE_Q5_K ? 320 : 384); }
/* The sub-blocks of super-block s of a row of n columns. */
static int llm__kq_subs(int64_t n, int64_t s) { return n - LLM__QKK * s >= LLM__QKK ? 8 : (int)((n - LLM__QKK * s) / LLM__QK); }

static int llm__is_quant(llm_dtype t) { return t == LLM_DTYPE_Q8_0 || t == LLM_DTYPE_Q4_0 || llm__is_kquant(t); }
static int llm__is_w16(llm_dtype t) { return t == LLM_DTYPE_F16 || t == LLM_DTYPE_BF16; }

LLMDEF int64_t llm_dtype_row_group(llm_dtype t) { return llm__is_quant(t) ? LLM__QG : 1; }

/* f16 and bf16 matrices also come in groups of 16 rows (the last group may be shorter), each
   stored column by column: the 16 weights of one column are one vector of the kernels, which
   multiply it with one activation broadcast (docs/FORMAT.md, "16-bit tensors"). This is the
   index of row r, column k of such a [rows, cols] tensor; a single row is plain. */
static size_t llm__w16_index(int64_t rows, int64_t cols, int64_t r, int64_t k) {
    int64_t g0 = r / LLM__QG * LLM__QG, n = rows - g0 < LLM__QG ? rows - g0 : LLM__QG;
    return (size_t)g0 * (size_t)cols + (size_t)k * (size_t)n + (size_t)(r - g0);
}

LLMDEF size_t llm_dtype_row_bytes(llm_dtype t, int64_t n) {
    if (n < 0) return 0;
    switch (t) {
    case LLM_DTYPE_F32: return (size_t)n * 4;
    case LLM_DTYPE_F16:
    case LLM_DTYPE_BF16: return (size_t)n * 2;
    case LLM_DTYPE_Q8_0: return n % LLM__QK ? 0 : (size_t)(n / LLM__QK) * LLM__Q8_BLOCK;
    case LLM_DTYPE_Q4_0: return n % LLM__QK ? 0 : (size_t)(n / LLM__QK) * LLM__Q4_BLOCK;
    case LLM_DTYPE_Q4_K:
    case LLM_DTYPE_Q5_K:
    case LLM_DTYPE_Q6_K: /* whole super-blocks, then one of the sub-blocks left */
        if (n % LLM__QK) return 0;
        return (size_t)(n / LLM__QKK) * llm__kq_block_bytes(t, 8) + (n % LLM__QKK ? llm__kq_block_bytes(t, (int)(n % LLM__QKK / LLM__QK)) : 0);
    default: return 0;
    }
}

/* ---- llm: kernels ------------------------------------------------------------------------
   Every weight matrix is used through one entry point per type, llm__mm_fn: rows [r0, r1)
   of out[t][r] = W[r] . x[t] for the n_tok tokens of a job. Each (row, token) result is
   computed by one sequence of operations that does not depend on r0, r1 or n_tok, so
   results are bitwise the same for any split of rows between threads and for any chunk
   of tokens. The scalar versions (_ref) are the reference; one block per ISA follows. Quantized weights (q8_0, q4_0) meet
   activations quantized to int8 in blocks of 32 (llm__quantize_x) and use integer dot
   products; f32/f16/bf16 weights meet f32 activations (bf16 weights meet bf16 activations in
   prompts when llm_ctx_desc.bf16_dot asks for it, on AVX512-BF16 and AMX-BF16: not exact).

   Every block is compiled into every build of x86-64 and aarch64 under GCC, Clang and MSVC,
   each with the target of its own instructions (LLM__TARGET_BEGIN: a function attribute on
   each function of the block; MSVC takes any intrinsic anywhere), so a build without -march
   runs at full speed; llm_ctx_open picks the best set the CPU has (llm__cpu_sets). NEON is
   in every aarch64 CPU; the dotprod NEON set is still compiled only when the target flags
   have it (-march=armv8.2-a+dotprod, -march=native): GCC refuses to inline vdotq into a
   function without that target, so run-time selection needs a second copy of the NEON
   quantized tile (gcc 12 takes target("arch=armv8.2-a+dotprod"), not "+dotprod"). Another compiler, 32-bit x86 and mingw-w64
   gcc before 12 compile the blocks their target flags allow, as -march=native does: Win64
   keeps the stack 16-byte aligned and older mingw-w64 gcc spills AVX registers with aligned
   moves there (GCC bug 54412); gcc 12 spills with unaligned ones (checked: no vmovaps in
   its code of this file, and every set passes tests/test_kernels.c under wine).
   LLM_NO_DISPATCH: that compile-time choice everywhere; LLM_NO_SIMD: the scalar set only. */
#if defined(LLM_NO_SIMD)
#elif (defined(__x86_64__) || defined(_M_X64)) && !defined(LLM_NO_DISPATCH) && \
    (defined(__clang__) || defined(__GNUC__) || defined(_MSC_VER)) && \
    !(defined(__MINGW32__) && !defined(__clang__) && __GNUC__ < 12)
#define LLM__X86_DISPATCH 1
#define LLM__AVX512 1
#define LLM__AVX2 1
#if (defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11) || \
    (defined(_MSC_VER) && _MSC_VER >= 1930)
#define LLM__AVX2_VNNI 1 /* compilers that know AVX-VNNI */
#endif
/* Compilers that know AMX. Not MSVC (its tile intrinsics are not tried), nor GCC for Windows:
   its intrinsics pass the stride as a long, 32 bits on Win64, which makes a register pair
   the assembler refuses. */
#if (defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11 && !defined(_WIN32))
#define LLM__AMX 1
#endif
#if (defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11)
#define LLM__AVX512_BF16 1 /* compilers that know AVX512-BF16 (not MSVC: its bf16 intrinsics are not tried) */
#endif
#if defined(LLM__AMX) && defined(LLM__AVX512_BF16)
#define LLM__AMX_BF16 1
#endif
#elif !defined(__aarch64__)
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VNNI__) && defined(__FMA__) && \
    defined(__F16C__)
#define LLM__AVX512 1
#endif
#if defined(LLM__AVX512) && defined(__x86_64__) && defined(__AMX_TILE__) && defined(__AMX_INT8__) && (defined(__clang__) || !defined(_WIN32))
#define LLM__AMX 1
#endif
#if defined(LLM__AVX512) && defined(__AVX512BF16__) && defined(__GNUC__)
#define LLM__AVX512_BF16 1
#endif
#if defined(LLM__AMX) && defined(LLM__AVX512_BF16) && defined(__AMX_BF16__)
#define LLM__AMX_BF16 1
#endif
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define LLM__AVX2 1
#if defined(__AVXVNNI__)
#define LLM__AVX2_VNNI 1
#endif
#endif
#elif defined(__ARM_NEON)
#define LLM__NEON 1 /* NEON is part of every aarch64 CPU */
#if defined(__ARM_FEATURE_DOTPROD)
#define LLM__NEON_DOTPROD 1
#endif
#endif
#if defined(LLM__X86_DISPATCH) && defined(__clang__)
#define LLM__PRAGMA(x) _Pragma(#x)
#define LLM__TARGET_BEGIN(t) LLM__PRAGMA(clang attribute push(__attribute__((target(t))), apply_to = function))
#define LLM__TARGET_END LLM__PRAGMA(clang attribute pop)
#elif defined(LLM__X86_DISPATCH) && defined(__GNUC__)
#define LLM__PRAGMA(x) _Pragma(#x)
#define LLM__TARGET_BEGIN(t) LLM__PRAGMA(GCC push_options) LLM__PRAGMA(GCC target(t))
#define LLM__TARGET_END LLM__PRAGMA(GCC pop_options)
#else
#define LLM__TARGET_BEGIN(t)
#define LLM__TARGET_END
#endif
#if defined(LLM__AVX512) || defined(LLM__AVX2)
/* g++ 12 reports the intrinsics' own "undefined" operands as uninitialized (GCC bug 105593);
   the warning is located in the intrinsics header, so it is silenced there. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#elif defined(LLM__NEON)
#include <arm_neon.h>
#endif
#if defined(__GNUC__)
#define LLM__INLINE static inline __attribute__((always_inline))
#define LLM__UNROLL _Pragma("GCC unroll 16")
#else
#define LLM__INLINE static inline
#define LLM__UNROLL
#endif

typedef struct llm__mm {
    const llm_tensor *w;
    const float *x;        /* [n_tok][n_in] f32 activations */
    const uint8_t *xq;     /* the same quantized (quantized weights): see llm__quantize_x */
    size_t xq_stride;
    const float *xp;       /* the same packed in tiles (16-bit weights, many tokens): llm__pack_x */
    const uint32_t *xb;    /* or as pairs of bf16 in tiles (bf16 weights, many tokens, bf16 dot
                              products asked for): llm__pack_x_bf16; the set's mm_bf16_dot runs */
    float *out;            /* [n_tok][n_out] */
    int n_tok, n_in, n_out;
    int prefetch;          /* 1: one-token q8_0/q4_0 products prefetch their weights (llm__prefetch_blocks) */
} llm__mm;

typedef void (*llm__mm_fn)(const llm__mm *m, int r0, int r1);

typedef struct llm__kernels {
    llm__mm_fn mm[LLM_DTYPE_COUNT];
    /* attention over n cached rows of hd (f32 or f16): s[t] = (k_t . q) x scale, and out =
       the sum of p[t] v_t from zero, in order of t (LLM__ATTENTION_ROWS) */
    void (*scores_f32)(const float *k, const float *q, int hd, int n, float scale, float *s);
    void (*scores_f16)(const uint16_t *k, const float *q, int hd, int n, float scale, float *s);
    void (*values_f32)(float *out, const float *p, const float *v, int hd, int n);
    void (*values_f16)(float *out, const float *p, const uint16_t *v, int hd, int n);
    void (*softmax)(float *x, int n); /* the attention's, in place */
    void (*quantize_x)(const float *x, int n, uint8_t *out);
    void (*swiglu)(float *gate, const float *up, int n);
    void (*geglu)(float *gate, const float *up, int n);
    int x_tile;            /* tokens per tile of the 16-bit kernels for packed x; 0: x as it is */
    const char *name;
    llm__mm_fn mm_bf16_dot; /* bf16 weights x bf16 activations (m->xb), where the set has it */
    int xb_rows;           /* 1: it takes them a token per line (llm__pack_x_bf16_rows), else in tiles */
} llm__kernels;

/* The product m for rows [r0, r1) with kernel set K. */
static void llm__mm_run(const llm__kernels *K, const llm__mm *m, int r0, int r1) {
    if (m->xb) K->mm_bf16_dot(m, r0, r1);
    else K->mm[m->w->dtype](m, r0, r1);
}

static int32_t llm__rd_i32(const void *p) { int32_t v; memcpy(&v, p, 4); return v; }

/* One token is bound by memory bandwidth: the hardware prefetchers stop at page boundaries,
   so the quantized kernels ask for the codes and scales 16 blocks ahead themselves. For q8_0
   and q4_0 that depends on the CPU (llm__mm.prefetch, llm__cpu_prefetch): it made one token
   20-27% faster on a Xeon (Ice Lake), and 15-30% slower on an AMD EPYC (Zen 4 class), whose
   own prefetchers keep up with the four groups llm__qrow_avx512 reads, though not with the
   two of llm__qrow_avx2 on a Zen 3 one. */
#define LLM__PREFETCH_BLOCKS 16
#if defined(LLM__AVX512) || defined(LLM__AVX2)
#define LLM__PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#elif defined(__GNUC__)
#define LLM__PREFETCH(p) __builtin_prefetch(p)
#else
#define LLM__PREFETCH(p) ((void)(p))
#endif
#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
LLM__INLINE void llm__prefetch_blocks(const uint8_t *Q, const uint8_t *S, int b, size_t qbytes) {
    size_t j;
    for (j = 0; j < qbytes; j += 64) LLM__PREFETCH(Q + LLM__PREFETCH_BLOCKS * qbytes + j);
    if (b % 2 == 0) LLM__PREFETCH(S + 32 * (size_t)(b + LLM__PREFETCH_BLOCKS));
}
#endif

/* Many tokens meet 16-bit weights in tiles of `tile` tokens (then 4, then 1) that read one
   column of activations at a time, so the activations are packed column by column once per
   step: the tile of nt tokens from token t holds x[t + j][k] at out[t * K + k * nt + j]. */
static void llm__pack_x(const float *x, int n_tok, int K, int tile, float *out) {
    int t, nt, j, k;
    for (t = 0; t < n_tok; t += nt) {
        nt = n_tok - t >= tile ? tile : n_tok - t >= 4 ? 4 : 1;
        for (j = 0; j < nt; j++)
            for (k = 0; k < K; k++) out[(size_t)t * (size_t)K + (size_t)k * (size_t)nt + (size_t)j] = x[(size_t)(t + j) * (size_t)K + (size_t)k];
    }
}

/* The same for bf16 dot products: the tile from token t holds, at out[t * P + p * nt + j]
   (P = ceil(K / 2) pairs), x[t + j][2p] and x[t + j][2p + 1] rounded to bf16, the first in
   the low half; an odd K's last pair has 0 as its second. */
static void llm__pack_x_bf16(const float *x, int n_tok, int K, int tile, uint32_t *out) {
    size_t P = ((size_t)K + 1) / 2, p;
    int t, nt, j;
    for (t = 0; t < n_tok; t += nt) {
        nt = n_tok - t >= tile ? tile : n_tok - t >= 4 ? 4 : 1;
        for (j = 0; j < nt; j++) {
            const float *xt = x + (size_t)(t + j) * (size_t)K;
            for (p = 0; p < P; p++) {
                uint32_t hi = 2 * p + 1 < (size_t)K ? llm_f32_to_bf16(xt[2 * p + 1]) : 0;
                out[(size_t)t * P + p * (size_t)nt + (size_t)j] = (uint32_t)llm_f32_to_bf16(xt[2 * p]) | hi << 16;
            }
        }
    }
}

/* Pairs of a token's line for llm__pack_x_bf16_rows: ceil(K / 2) rounded up to 16 (a tile's line). */
static size_t llm__bf16_line(int K) { return (((size_t)K + 1) / 2 + 15) / 16 * 16; }

/* The same pairs a token per line of llm__bf16_line(K) pairs, zeros after the last. */
static void llm__pack_x_bf16_rows(const float *x, int n_tok, int K, uint32_t *out) {
    size_t L = llm__bf16_line(K);
    int t;
    for (t = 0; t < n_tok; t++) {
        memset(out + (size_t)t * L, 0, L * 4);
        llm__pack_x_bf16(x + (size_t)t * (size_t)K, 1, K, 1, out + (size_t)t * L);
    }
}

/* Quantized activations of one token: K int8 codes, then K/32 f32 scales, then K/32 int32
   sums of the codes (for kernels that take the weights as unsigned bytes). */
static size_t llm__xq_stride(int n_in) { return ((size_t)n_in + (size_t)n_in / LLM__QK * 8 + 63) / 64 * 64; }

/* The activations of a step as kernel set K takes them: quantized into xq (xs bytes a token)
   for quantized weights; for 16-bit weights and many tokens packed into xp, where the set
   packs (or as bf16 pairs, for llm_ctx_desc.bf16_dot). llm__prepare_slice does tokens [t0,
   t1) of it: a slice that starts on a tile has its tiles packed where those of the whole go,
   so the forward pass hands slices to its threads. */
enum { LLM__PACK_NONE, LLM__PACK_F32, LLM__PACK_BF16, LLM__PACK_BF16_ROWS };
typedef struct llm__prepare_job {
    const llm__kernels *kern;
    const float *x;
    uint8_t *xq;
    size_t xs;
    float *xp;
    int n_in, quant, pack;
} llm__prepare_job;

static void llm__prepare_init(llm__prepare_job *p, const llm__kernels *K, const float *x, int n_tok, int n_in, int quant, int w16,
                              uint8_t *xq, size_t xs, float *xp) {
    p->kern = K; p->x = x; p->n_in = n_in; p->quant = quant; p->xq = xq; p->xs = xs; p->xp = xp;
    p->pack = w16 && n_tok >= 2 && K->x_tile && xp ? LLM__PACK_F32 : LLM__PACK_NONE;
}

static void llm__prepare_slice(void *arg, int t0, int t1) {
    const llm__prepare_job *p = (const llm__prepare_job *)arg;
    size_t K = (size_t)p->n_in;
    const float *x = p->x + (size_t)t0 * K;
    int t;
    if (p->quant)
        for (t = t0; t < t1; t++) p->kern->quantize_x(p->x + (size_t)t * K, p->n_in, p->xq + (size_t)t * p->xs);
    if (p->pack == LLM__PACK_F32) llm__pack_x(x, t1 - t0, p->n_in, p->kern->x_tile, p->xp + (size_t)t0 * K);
    else if (p->pack == LLM__PACK_BF16) llm__pack_x_bf16(x, t1 - t0, p->n_in, p->kern->x_tile, (uint32_t *)p->xp + (size_t)t0 * ((K + 1) / 2));
    else if (p->pack == LLM__PACK_BF16_ROWS) llm__pack_x_bf16_rows(x, t1 - t0, p->n_in, (uint32_t *)p->xp + (size_t)t0 * llm__bf16_line(p->n_in));
}

/* All n_tok tokens at once; returns xp when it was filled, else NULL (the kernels then read
   x itself). */
static const float *llm__prepare_x(const llm__kernels *K, const float *x, int n_tok, int n_in, int quant, int w16,
                                   uint8_t *xq, size_t xs, float *xp) {
    llm__prepare_job p;
    llm__prepare_init(&p, K, x, n_tok, n_in, quant, w16, xq, xs, xp);
    llm__prepare_slice(&p, 0, n_tok);
    return p.pack ? xp : NULL;
}

/* Scale amax / 127, codes rounded to nearest even (the default rounding mode, as the SIMD
   conversions round), so every version gives the same bytes. The largest magnitude is
   taken on the bits without the sign, whose order is that of the magnitudes, with NaN
   above infinity: a block holding either is found with the same work. A scale below
   FLT_MIN (1 / d would overflow) counts as an all-zero block. */
#define LLM__XQ_NONFINITE 0x7F800000u /* amax bits from here up: an infinity or a NaN */

/* A block holding NaN or an infinity: codes and code sum 0 and a NaN scale, so every kernel
   gives NaN for the dot products it is in (0 x NaN), as float arithmetic would give NaN or
   an infinity, and no non-number is converted to an integer. */
static void llm__quantize_x_nonfinite(uint8_t *out, int n, int b) {
    static const uint32_t nan_bits = 0x7FC00000u;
    static const int32_t zero = 0;
    memset(out + (size_t)b * LLM__QK, 0, LLM__QK);
    memcpy(out + n + 4 * (size_t)b, &nan_bits, 4);
    memcpy(out + n + 4 * (size_t)(n / LLM__QK + b), &zero, 4);
}

static void llm__quantize_x_ref(const float *x, int n, uint8_t *out) {
    int nb = n / LLM__QK, b, i;
    int8_t *q = (int8_t *)out;
    for (b = 0; b < nb; b++) {
        const float *xb = x + b * LLM__QK;
        uint32_t bits = 0, u;
        float amax, d, id;
        int32_t sum = 0;
        for (i = 0; i < LLM__QK; i++) {
            memcpy(&u, xb + i, 4);
            u &= 0x7FFFFFFFu;
            bits = u > bits ? u : bits;
        }
        if (bits >= LLM__XQ_NONFINITE) { llm__quantize_x_nonfinite(out, n, b); continue; }
        memcpy(&amax, &bits, 4);
        d = amax / 127.0f;
        id = d >= FLT_MIN ? 1.0f / d : 0.0f;
        for (i = 0; i < LLM__QK; i++) {
            q[b * LLM__QK + i] = (int8_t)lrintf(xb[i] * id);
            sum += q[b * LLM__QK + i];
        }
        memcpy(out + n + 4 * (size_t)b, &d, 4);
        memcpy(out + n + 4 * (size_t)(nb + b), &sum, 4);
    }
}

static float llm__xq_scale(const uint8_t *xq, int n, int b) { float d; memcpy(&d, xq + n + 4 * b, 4); return d; }
static int32_t llm__xq_sum(const uint8_t *xq, int n, int b) { return llm__rd_i32(xq + n + 4 * (n / LLM__QK + b)); }

/* Weight (r, k) of an unquantized [rows, cols] matrix. */
static float llm__weight(const void *w, llm_dtype t, int64_t rows, int64_t cols, int64_t r, int64_t k) {
    uint16_t h;
    if (t == LLM_DTYPE_F32) return ((const float *)w)[(size_t)r * (size_t)cols + (size_t)k];
    h = ((const uint16_t *)w)[llm__w16_index(rows, cols, r, k)];
    return t == LLM_DTYPE_F16 ? llm_f16_to_f32(h) : llm_bf16_to_f32(h);
}

/* k-quants, read one value at a time: the unsigned code (q4_k 0..15, q5_k 0..31, q6_k 0..63)
   of row l, column c (0..255) of a group's super-block SB. */
static int llm__kq_code(llm_dtype t, const uint8_t *SB, int ns, int l, int c) {
    int j = c / LLM__QK, k = c % LLM__QK, half = k < 16 ? 0 : 4;
    int q = SB[256 * j + (k % 16 / 4) * 64 + 4 * l + k % 4] >> half & 15;
    const uint8_t *H = SB + llm__kq_hi_at(ns);
    if (t == LLM_DTYPE_Q5_K) q |= (H[64 * j + 4 * l + k % 4] >> (half + k % 16 / 4) & 1) << 4;
    if (t == LLM_DTYPE_Q6_K) q |= (H[128 * j + 16 * half + 4 * l + k % 4] >> (2 * (k % 16 / 4)) & 3) << 4;
    return q;
}

/* q4_k / q5_k: the 6-bit scale and min of row l, sub-block j (columns 32j .. 32j+31). */
static void llm__kq_scale_min(llm_dtype t, const uint8_t *SB, int ns, int l, int j, int *sc, int *mn) {
    const uint8_t *S = SB + llm__kq_scales_at(t, ns);
    int lo = S[16 * j + l], hi = S[128 + 16 * (j / 2) + l] >> (4 * (j % 2));
    *sc = (lo & 15) | (hi & 3) << 4;
    *mn = (lo >> 4) | (hi >> 2 & 3) << 4;
}

static float llm__rd_f16(const uint8_t *p) { return llm_f16_to_f32((uint16_t)(p[0] | p[1] << 8)); }

/* q4_k / q5_k: d and dmin of row l; q6_k: d (dmin 0). */
static void llm__kq_d(llm_dtype t, const uint8_t *SB, int ns, int l, float *d, float *dmin) {
    const uint8_t *S = SB + llm__kq_scales_at(t, ns);
    if (t == LLM_DTYPE_Q6_K) { *d = llm__rd_f16(S + 256 + 2 * l); *dmin = 0.0f; return; }
    *d = llm__rd_f16(S + 192 + 2 * l);
    *dmin = llm__rd_f16(S + 224 + 2 * l);
}

/* Row l of a group's super-block as f32, computed as ggml dequantizes: (d sc) q - (dmin m)
   for q4_k and q5_k, (d sc) (q - 32) for q6_k. */
static void llm__kq_dequant(llm_dtype t, const uint8_t *SB, int ns, int l, float *out) {
    const uint8_t *S = SB + llm__kq_scales_at(t, ns);
    float d, dmin;
    int j, k, sc, mn;
    llm__kq_d(t, SB, ns, l, &d, &dmin);
    for (j = 0; j < ns; j++) {
        if (t == LLM_DTYPE_Q6_K) {
            for (k = 0; k < LLM__QK; k++)
                out[32 * j + k] = d * (float)(int8_t)S[16 * (2 * j + k / 16) + l] * (float)(llm__kq_code(t, SB, ns, l, 32 * j + k) - 32);
            continue;
        }
        llm__kq_scale_min(t, SB, ns, l, j, &sc, &mn);
        {
            float d1 = d * (float)sc, m1 = dmin * (float)mn;
            for (k = 0; k < LLM__QK; k++) out[32 * j + k] = d1 * (float)llm__kq_code(t, SB, ns, l, 32 * j + k) - m1;
        }
    }
}

/* The sum of the first 16 activation codes of a block (q6_k's sub-blocks are 16 wide). */
static int32_t llm__xq_half_sum(const uint8_t *xb) {
    int32_t s = 0;
    int i;
    for (i = 0; i < 16; i++) s += (int8_t)xb[i];
    return s;
}

/* Row r of a [rows, n] tensor as f32 (embedding lookup). */
static void llm__get_row(const llm_tensor *w, int64_t row, float *out, int n) {
    int i, b, nb = n / LLM__QK, l = (int)(row % LLM__QG);
    const uint8_t *g, *s;
    if (llm__is_kquant(w->dtype)) {
        size_t sbytes = LLM__QG * llm__kq_block_bytes(w->dtype, 8);
        g = (const uint8_t *)w->data + (size_t)(row / LLM__QG) * LLM__QG * llm_dtype_row_bytes(w->dtype, n);
        for (b = 0; b * LLM__QKK < n; b++) llm__kq_dequant(w->dtype, g + (size_t)b * sbytes, llm__kq_subs(n, b), l, out + (size_t)b * LLM__QKK);
        return;
    }
    if (!llm__is_quant(w->dtype)) {
        for (i = 0; i < n; i++) out[i] = llm__weight(w->data, w->dtype, w->shape[0], n, row, i);
        return;
    }
    g = (const uint8_t *)w->data + (size_t)(row / LLM__QG) * LLM__QG * llm_dtype_row_bytes(w->dtype, n);
    s = g + (size_t)nb * (w->dtype == LLM_DTYPE_Q8_0 ? 512 : 256);
    for (b = 0; b < nb; b++) {
        float d = llm_f16_to_f32((uint16_t)(s[32 * b + 2 * l] | s[32 * b + 2 * l + 1] << 8));
        for (i = 0; i < LLM__QK; i++) {
            int q;
            if (w->dtype == LLM_DTYPE_Q8_0) q = (int8_t)g[512 * (size_t)b + (i / 4) * 64 + 4 * l + i % 4];
            else q = (g[256 * (size_t)b + (i % 16 / 4) * 64 + 4 * l + i % 4] >> (i < 16 ? 0 : 4) & 15) - 8;
            out[b * LLM__QK + i] = (float)q * d;
        }
    }
}

/* The attention loops over the cached rows of a set that has no others (the scalar set,
   NEON): scores by its dot product, value sums by its axpy into out, both inlined into the
   loop so that a row costs no call. The AVX-512 and AVX2 sets take 16 or 8 rows at once. */
#define LLM__ATTENTION_ROWS(sfx)                                                                                     \
    static void llm__scores_f32_##sfx(const float *k, const float *q, int hd, int n, float scale, float *s) {       \
        int t;                                                                                                       \
        for (t = 0; t < n; t++) s[t] = llm__dot_f32_##sfx(k + (size_t)t * (size_t)hd, q, hd) * scale;               \
    }                                                                                                                \
    static void llm__scores_f16_##sfx(const uint16_t *k, const float *q, int hd, int n, float scale, float *s) {    \
        int t;                                                                                                       \
        for (t = 0; t < n; t++) s[t] = llm__dot_f16_##sfx(k + (size_t)t * (size_t)hd, q, hd) * scale;               \
    }                                                                                                                \
    static void llm__values_f32_##sfx(float *out, const float *p, const float *v, int hd, int n) {                  \
        int t;                                                                                                       \
        memset(out, 0, (size_t)hd * sizeof(float));                                                                 \
        for (t = 0; t < n; t++) llm__axpy_f32_##sfx(out, p[t], v + (size_t)t * (size_t)hd, hd);                      \
    }                                                                                                                \
    static void llm__values_f16_##sfx(float *out, const float *p, const uint16_t *v, int hd, int n) {               \
        int t;                                                                                                       \
        memset(out, 0, (size_t)hd * sizeof(float));                                                                 \
        for (t = 0; t < n; t++) llm__axpy_f16_##sfx(out, p[t], v + (size_t)t * (size_t)hd, hd);                      \
    }

/* -- scalar reference ------------------------------------------------------------------- */
static float llm__dot_f32_ref(const float *a, const float *b, int n) {
    float s = 0.0f;
    int i;
    for (i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

static float llm__dot_f16_ref(const uint16_t *a, const float *b, int n) {
    float s = 0.0f;
    int i;
    for (i = 0; i < n; i++) s += llm_f16_to_f32(a[i]) * b[i];
    return s;
}

static void llm__axpy_f32_ref(float *y, float a, const float *x, int n) {
    int i;
    for (i = 0; i < n; i++) y[i] += a * x[i];
}

static void llm__axpy_f16_ref(float *y, float a, const uint16_t *x, int n) {
    int i;
    for (i = 0; i < n; i++) y[i] += a * llm_f16_to_f32(x[i]);
}

LLM__ATTENTION_ROWS(ref)

static void llm__softmax(float *x, int n) {
    float mx = x[0], sum = 0.0f;
    int i;
    for (i = 1; i < n; i++) if (x[i] > mx) mx = x[i];
    for (i = 0; i < n; i++) { x[i] = expf(x[i] - mx); sum += x[i]; }
    for (i = 0; i < n; i++) x[i] /= sum;
}

static void llm__mm_float_ref(const llm__mm *m, int r0, int r1) {
    size_t K = (size_t)m->n_in;
    int r, t;
    for (r = r0; r < r1; r++)
        for (t = 0; t < m->n_tok; t++) {
            const float *x = m->x + (size_t)t * K;
            float s = 0.0f;
            size_t k;
            for (k = 0; k < K; k++) s += llm__weight(m->w->data, m->w->dtype, m->n_out, (int64_t)K, r, (int64_t)k) * x[k];
            m->out[(size_t)t * (size_t)m->n_out + (size_t)r] = s;
        }
}

#if defined(LLM__AVX512) || defined(LLM__AVX2) || defined(LLM__NEON)
/* Rows [r0, r1) of 16-bit weights as the SIMD kernels compute them: one fused multiply-add per
   column, in order (for a last group shorter than the vectors). */
static void llm__mm_w16_fma(const llm__mm *m, int r0, int r1) {
    int64_t K = m->n_in, k;
    int r, t;
    for (r = r0; r < r1; r++)
        for (t = 0; t < m->n_tok; t++) {
            const float *x = m->x + (size_t)t * (size_t)K;
            float s = 0.0f;
            for (k = 0; k < K; k++) s = fmaf(llm__weight(m->w->data, m->w->dtype, m->n_out, K, r, k), x[k], s);
            m->out[(size_t)t * (size_t)m->n_out + (size_t)r] = s;
        }
}
#endif

/* One 16-row group: acc[l] += (float)isum * (scale_w[l] * scale_x) per block, in order. */
static void llm__mm_quant_ref(const llm__mm *m, int r0, int r1) {
    int K = m->n_in, nb = K / LLM__QK, q4 = m->w->dtype == LLM_DTYPE_Q4_0, g, t, b, l, k;
    size_t qbytes = q4 ? 256 : 512, gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(m->w->dtype, K);
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++) {
        const uint8_t *G = (const uint8_t *)m->w->data + (size_t)g * gbytes, *S = G + (size_t)nb * qbytes;
        for (t = 0; t < m->n_tok; t++) {
            const uint8_t *xq = m->xq + (size_t)t * m->xq_stride;
            float acc[LLM__QG] = { 0 };
            for (b = 0; b < nb; b++) {
                const uint8_t *Q = G + (size_t)b * qbytes;
                const int8_t *xb = (const int8_t *)xq + b * LLM__QK;
                float dx = llm__xq_scale(xq, K, b);
                for (l = 0; l < LLM__QG; l++) {
                    int32_t isum = 0;
                    float dw = llm_f16_to_f32((uint16_t)(S[32 * b + 2 * l] | S[32 * b + 2 * l + 1] << 8));
                    if (q4) { /* codes are unsigned; the sum of x codes takes the offset 8 out */
                        for (k = 0; k < 16; k++) {
                            uint8_t v = Q[(k / 4) * 64 + 4 * l + k % 4];
                            isum += (v & 15) * xb[k] + (v >> 4) * xb[k + 16];
                        }
                        isum -= 8 * llm__xq_sum(xq, K, b);
                    } else
                        for (k = 0; k < LLM__QK; k++) isum += (int8_t)Q[(k / 4) * 64 + 4 * l + k % 4] * xb[k];
                    acc[l] += (float)isum * (dw * dx);
                }
            }
            for (l = 0; l < LLM__QG; l++) m->out[(size_t)t * (size_t)m->n_out + (size_t)(g * LLM__QG + l)] = acc[l];
        }
    }
}

/* k-quants: per block b of 32 columns (one block of activation codes) and row l, the integer
   sums of the codes times the activation codes over its two halves, lo and hi; then
   q4_k, q5_k: acc += (lo + hi) x (d sc dx) - (dmin m) x (sum of x codes x dx);
   q6_k:       acc += (lo - 32 sa) x (d sc_2b dx) + (hi - 32 sb) x (d sc_2b+1 dx), where sa, sb
   are the sums of the activation codes of the halves. The SIMD kernels do the same. */
static void llm__mm_kquant_ref(const llm__mm *m, int r0, int r1) {
    const llm_dtype dt = m->w->dtype;
    int K = m->n_in, n_sb = (K + LLM__QKK - 1) / LLM__QKK, g, t, s, j, l, k;
    size_t sbytes = LLM__QG * llm__kq_block_bytes(dt, 8), gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(dt, K);
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++)
        for (t = 0; t < m->n_tok; t++) {
            const uint8_t *xq = m->xq + (size_t)t * m->xq_stride;
            float acc[LLM__QG] = { 0 };
            for (s = 0; s < n_sb; s++) {
                const uint8_t *SB = (const uint8_t *)m->w->data + (size_t)g * gbytes + (size_t)s * sbytes;
                const int ns = llm__kq_subs(K, s);
                const uint8_t *S = SB + llm__kq_scales_at(dt, ns);
                for (j = 0; j < ns; j++) {
                    int b = 8 * s + j;
                    const int8_t *xb = (const int8_t *)xq + b * LLM__QK;
                    float dx = llm__xq_scale(xq, K, b);
                    int32_t xsum = llm__xq_sum(xq, K, b), xsa = llm__xq_half_sum((const uint8_t *)xb);
                    for (l = 0; l < LLM__QG; l++) {
                        int32_t lo = 0, hi = 0;
                        float d, dmin;
                        int sc, mn;
                        for (k = 0; k < 16; k++) {
                            lo += llm__kq_code(dt, SB, ns, l, 32 * j + k) * xb[k];
                            hi += llm__kq_code(dt, SB, ns, l, 32 * j + 16 + k) * xb[16 + k];
                        }
                        llm__kq_d(dt, SB, ns, l, &d, &dmin);
                        if (dt == LLM_DTYPE_Q6_K) {
                            float sa = (float)(int8_t)S[16 * (2 * j) + l], sb = (float)(int8_t)S[16 * (2 * j + 1) + l];
                            acc[l] += (float)(lo - 32 * xsa) * (d * sa * dx);
                            acc[l] += (float)(hi - 32 * (xsum - xsa)) * (d * sb * dx);
                        } else {
                            llm__kq_scale_min(dt, SB, ns, l, j, &sc, &mn);
                            acc[l] += (float)(lo + hi) * (d * (float)sc * dx);
                            acc[l] -= dmin * (float)mn * ((float)xsum * dx);
                        }
                    }
                }
            }
            for (l = 0; l < LLM__QG; l++) m->out[(size_t)t * (size_t)m->n_out + (size_t)(g * LLM__QG + l)] = acc[l];
        }
}

/* SwiGLU gate: h = silu(gate) * up, in place in gate; silu(x) = x / (1 + e^-x). */
static void llm__swiglu_ref(float *gate, const float *up, int n) {
    int i;
    for (i = 0; i < n; i++) gate[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
}

/* GeGLU gate, in place in gate: gelu_tanh(gate) * up, PyTorch's gelu(approximate="tanh"),
   0.5 x (1 + tanh(u)) with u = sqrt(2/pi) (x + 0.044715 x^3). It is computed as the equal
   x / (1 + e^-2u), SwiGLU's form: no cancellation in 1 + tanh(u) where tanh(u) is near -1,
   and one e^x for the vector kernels too. */
#define LLM__GELU_BETA 0.7978845608028654f
#define LLM__GELU_KAPPA 0.044715f
static void llm__geglu_ref(float *gate, const float *up, int n) {
    int i;
    for (i = 0; i < n; i++) {
        float x = gate[i], u = LLM__GELU_BETA * (x + LLM__GELU_KAPPA * x * (x * x));
        gate[i] = x / (1.0f + expf(-2.0f * u)) * up[i];
    }
}

/* The exact GELU gate, in place in gate: 0.5 x (1 + erf(x / sqrt 2)) * up, as PyTorch's
   gelu(approximate="none") computes it. libm's erff for every kernel set: the gate is a small
   part of a layer's work (n_ff values a token against n_ff x n_embd multiply-adds). */
static void llm__gelu_erf_gate(float *gate, const float *up, int n) {
    int i;
    for (i = 0; i < n; i++) gate[i] = gate[i] * 0.5f * (1.0f + erff(gate[i] * 0.70710678118654752f)) * up[i];
}

static const llm__kernels llm__kernels_ref = {
    { llm__mm_float_ref, llm__mm_float_ref, llm__mm_float_ref, llm__mm_quant_ref, llm__mm_quant_ref, llm__mm_kquant_ref,
      llm__mm_kquant_ref, llm__mm_kquant_ref },
    llm__scores_f32_ref, llm__scores_f16_ref, llm__values_f32_ref, llm__values_f16_ref, llm__softmax, llm__quantize_x_ref, llm__swiglu_ref, llm__geglu_ref, 0, "scalar", NULL, 0
};

#if defined(LLM__AVX512)
/* -- AVX-512 (F, BW, VL, VNNI) + FMA + F16C ----------------------------------------------- */
LLM__TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")
static float llm__dot_f32_avx512(const float *a, const float *b, int n) {
    __m512 acc = _mm512_setzero_ps();
    int i = 0;
    for (; i + 16 <= n; i += 16) acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc);
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, a + i), _mm512_maskz_loadu_ps(k, b + i), acc);
    }
    return _mm512_reduce_add_ps(acc);
}

static float llm__dot_f16_avx512(const uint16_t *a, const float *b, int n) {
    __m512 acc = _mm512_setzero_ps();
    int i = 0;
    for (; i + 16 <= n; i += 16)
        acc = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i))), _mm512_loadu_ps(b + i), acc);
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        acc = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, a + i)), _mm512_maskz_loadu_ps(k, b + i), acc);
    }
    return _mm512_reduce_add_ps(acc);
}

static void llm__axpy_f32_avx512(float *y, float a, const float *x, int n) {
    __m512 av = _mm512_set1_ps(a);
    int i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_fmadd_ps(av, _mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, k, _mm512_fmadd_ps(av, _mm512_maskz_loadu_ps(k, x + i), _mm512_maskz_loadu_ps(k, y + i)));
    }
}

static void llm__axpy_f16_avx512(float *y, float a, const uint16_t *x, int n) {
    __m512 av = _mm512_set1_ps(a);
    int i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_fmadd_ps(av, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i))), _mm512_loadu_ps(y + i)));
    if (i < n) {
        __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, k, _mm512_fmadd_ps(av, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, x + i)), _mm512_maskz_loadu_ps(k, y + i)));
    }
}

/* The sums of 16 registers' lanes, in one register (lane i: v[i]'s): halves, quarters, then
   pairs of lanes and single lanes added across registers instead of within each. */
LLM__INLINE __m512 llm__hsum16_avx512(const __m512 *v) {
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 2, 6, 10, 14, 1, 5, 9, 13, 3, 7, 11, 15);
    __m512 a[8], b[4], c[2];
    int i;
    LLM__UNROLL for (i = 0; i < 8; i++) /* rows 2i, 2i + 1: eight partial sums each */
        a[i] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44), _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xEE));
    LLM__UNROLL for (i = 0; i < 4; i++) /* rows 4i .. 4i + 3: four each, a 128-bit lane per row */
        b[i] = _mm512_add_ps(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0x88), _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0xDD));
    LLM__UNROLL for (i = 0; i < 2; i++) /* lane L: rows 8i + L and 8i + 4 + L, two each */
        c[i] = _mm512_add_ps(_mm512_unpacklo_ps(b[2 * i], b[2 * i + 1]), _mm512_unpackhi_ps(b[2 * i], b[2 * i + 1]));
    /* lane L: rows L, 8 + L, 4 + L, 12 + L */
    return _mm512_permutexvar_ps(order, _mm512_add_ps(_mm512_unpacklo_ps(c[0], c[1]), _mm512_unpackhi_ps(c[0], c[1])));
}

/* Scores 16 rows at a time, one sum per row as in a dot product, and the 16 reduced together;
   the rows past the last 16 one by one. */
LLM__INLINE void llm__scores_avx512(const void *k, const float *q, int hd, int n, float scale, float *s, const int f16) {
    const __mmask16 tail = (__mmask16)((1u << (hd % 16)) - 1);
    int t = 0, i, r;
    for (; t + 16 <= n; t += 16) {
        __m512 acc[16];
        LLM__UNROLL for (r = 0; r < 16; r++) acc[r] = _mm512_setzero_ps();
        for (i = 0; i + 16 <= hd; i += 16) {
            __m512 qv = _mm512_loadu_ps(q + i);
            LLM__UNROLL for (r = 0; r < 16; r++) {
                size_t at = (size_t)(t + r) * (size_t)hd + (size_t)i;
                __m512 x = f16 ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)k + at))) : _mm512_loadu_ps((const float *)k + at);
                acc[r] = _mm512_fmadd_ps(x, qv, acc[r]);
            }
        }
        if (tail) {
            __m512 qv = _mm512_maskz_loadu_ps(tail, q + i);
            LLM__UNROLL for (r = 0; r < 16; r++) {
                size_t at = (size_t)(t + r) * (size_t)hd + (size_t)i;
                __m512 x = f16 ? _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(tail, (const uint16_t *)k + at)) : _mm512_maskz_loadu_ps(tail, (const float *)k + at);
                acc[r] = _mm512_fmadd_ps(x, qv, acc[r]);
            }
        }
        _mm512_storeu_ps(s + t, _mm512_mul_ps(llm__hsum16_avx512(acc), _mm512_set1_ps(scale)));
    }
    for (; t < n; t++)
        s[t] = (f16 ? llm__dot_f16_avx512((const uint16_t *)k + (size_t)t * (size_t)hd, q, hd) : llm__dot_f32_avx512((const float *)k + (size_t)t * (size_t)hd, q, hd)) * scale;
}

static void llm__scores_f32_avx512(const float *k, const float *q, int hd, int n, float scale, float *s) { llm__scores_avx512(k, q, hd, n, scale, s, 0); }
static void llm__scores_f16_avx512(const uint16_t *k, const float *q, int hd, int n, float scale, float *s) { llm__scores_avx512(k, q, hd, n, scale, s, 1); }

/* The values 64 columns at a time in four registers over all the rows (axpy would store and
   reload its sums for every row), the columns past the last 64 by axpy. */
LLM__INLINE void llm__values_avx512(float *out, const float *p, const void *v, int hd, int n, const int f16) {
    int d = 0, t, j;
    for (; d + 64 <= hd; d += 64) {
        __m512 acc[4];
        LLM__UNROLL for (j = 0; j < 4; j++) acc[j] = _mm512_setzero_ps();
        for (t = 0; t < n; t++) {
            __m512 pt = _mm512_set1_ps(p[t]);
            size_t at = (size_t)t * (size_t)hd + (size_t)d;
            LLM__UNROLL for (j = 0; j < 4; j++) {
                __m512 x = f16 ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)v + at + 16 * j)))
                               : _mm512_loadu_ps((const float *)v + at + 16 * j);
                acc[j] = _mm512_fmadd_ps(pt, x, acc[j]);
            }
        }
        LLM__UNROLL for (j = 0; j < 4; j++) _mm512_storeu_ps(out + d + 16 * j, acc[j]);
    }
    if (d == hd) return;
    memset(out + d, 0, (size_t)(hd - d) * sizeof(float));
    for (t = 0; t < n; t++) {
        size_t at = (size_t)t * (size_t)hd + (size_t)d;
        if (f16) llm__axpy_f16_avx512(out + d, p[t], (const uint16_t *)v + at, hd - d);
        else llm__axpy_f32_avx512(out + d, p[t], (const float *)v + at, hd - d);
    }
}

static void llm__values_f32_avx512(float *out, const float *p, const float *v, int hd, int n) { llm__values_avx512(out, p, v, hd, n, 0); }
static void llm__values_f16_avx512(float *out, const float *p, const uint16_t *v, int hd, int n) { llm__values_avx512(out, p, v, hd, n, 1); }

/* nr rows x nt tokens of dot products; one accumulator per pair, reduced in a fixed order,
   the columns past the last multiple of 16 added one by one. */
LLM__INLINE void llm__ftile_avx512(const llm__mm *m, int r, int t0, const int nr, const int nt) {
    const float *W = (const float *)m->w->data;
    size_t K = (size_t)m->n_in, K16 = K / 16 * 16, k;
    __m512 acc[4][4], w[4];
    int i, j;
    LLM__UNROLL for (i = 0; i < nr; i++) LLM__UNROLL for (j = 0; j < nt; j++) acc[i][j] = _mm512_setzero_ps();
    for (k = 0; k < K16; k += 16) {
        LLM__UNROLL for (i = 0; i < nr; i++) w[i] = _mm512_loadu_ps(W + (size_t)(r + i) * K + k);
        LLM__UNROLL for (j = 0; j < nt; j++) {
            __m512 xv = _mm512_loadu_ps(m->x + (size_t)(t0 + j) * K + k);
            LLM__UNROLL for (i = 0; i < nr; i++) acc[i][j] = _mm512_fmadd_ps(w[i], xv, acc[i][j]);
        }
    }
    LLM__UNROLL for (i = 0; i < nr; i++) LLM__UNROLL for (j = 0; j < nt; j++) {
        float s = _mm512_reduce_add_ps(acc[i][j]);
        for (k = K16; k < K; k++) s += W[(size_t)(r + i) * K + k] * m->x[(size_t)(t0 + j) * K + k];
        m->out[(size_t)(t0 + j) * (size_t)m->n_out + (size_t)(r + i)] = s;
    }
}

static void llm__mm_f32_avx512(const llm__mm *m, int r0, int r1) {
    int r = r0, t;
    for (; r + 4 <= r1; r += 4) {
        for (t = 0; t + 4 <= m->n_tok; t += 4) llm__ftile_avx512(m, r, t, 4, 4);
        for (; t < m->n_tok; t++) llm__ftile_avx512(m, r, t, 4, 1);
    }
    for (; r < r1; r++)
        for (t = 0; t < m->n_tok; t++) llm__ftile_avx512(m, r, t, 1, 1);
}

/* 16-bit weights. Per column k a group's 16 weights are one vector, multiplied with a token's
   activation broadcast, so each output is the chain of fused multiply-adds over k = 0, 1, ...
   (llm__mm_w16_fma's), whatever the number of tokens. */
LLM__INLINE __m512 llm__w16_avx512(const uint16_t *p, const int bf16) {
    __m256i h = _mm256_loadu_si256((const __m256i *)p);
    return bf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)) : _mm512_cvtph_ps(h);
}

/* One token, ng (1 or 2) groups from G: the weights stream from memory once. */
LLM__INLINE void llm__wrow_avx512(const uint16_t *G, size_t K, const int ng, const float *x, float *out, const int bf16) {
    size_t gs = LLM__QG * K, k;
    __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
    for (k = 0; k < K; k++) {
        __m512 xv = _mm512_set1_ps(x[k]);
        if (k % 2 == 0) { LLM__PREFETCH(G + 16 * k + 1024); if (ng == 2) LLM__PREFETCH(G + gs + 16 * k + 1024); }
        acc0 = _mm512_fmadd_ps(llm__w16_avx512(G + 16 * k, bf16), xv, acc0);
        if (ng == 2) acc1 = _mm512_fmadd_ps(llm__w16_avx512(G + gs + 16 * k, bf16), xv, acc1);
    }
    _mm512_storeu_ps(out, acc0);
    if (ng == 2) _mm512_storeu_ps(out + 16, acc1);
}

/* Many tokens: LLM__KC columns of ng groups are converted to f32 once (a panel that stays in
   the L1 cache), then every tile of nt tokens (x packed by llm__pack_x) runs over the panel:
   ng x nt accumulators, the conversion out of the inner loop. The accumulators wait between
   panels (below), which leaves each chain unchanged. */
#define LLM__KC 128
#define LLM__XT 12 /* tokens per tile: 24 accumulators, 2 weight vectors */

LLM__INLINE void llm__wtile_avx512(const float *wp, int kc, const float *xp, const int nt, const int ng, float *out,
                                   size_t os, int first, const uint16_t *next, size_t gs) {
    __m512 acc[LLM__XT][2];
    int j, k;
    LLM__UNROLL for (j = 0; j < nt; j++) {
        acc[j][0] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(out + (size_t)j * os);
        if (ng == 2) acc[j][1] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(out + (size_t)j * os + 16);
    }
    for (k = 0; k < kc; k++) {
        __m512 w0 = _mm512_loadu_ps(wp + 32 * k), w1 = ng == 2 ? _mm512_loadu_ps(wp + 32 * k + 16) : w0;
        if (next && k % 2 == 0) { LLM__PREFETCH(next + 16 * k); if (ng == 2) LLM__PREFETCH(next + gs + 16 * k); }
        LLM__UNROLL for (j = 0; j < nt; j++) {
            __m512 xv = _mm512_set1_ps(xp[k * nt + j]);
            acc[j][0] = _mm512_fmadd_ps(w0, xv, acc[j][0]);
            if (ng == 2) acc[j][1] = _mm512_fmadd_ps(w1, xv, acc[j][1]);
        }
    }
    LLM__UNROLL for (j = 0; j < nt; j++) {
        _mm512_storeu_ps(out + (size_t)j * os, acc[j][0]);
        if (ng == 2) _mm512_storeu_ps(out + (size_t)j * os + 16, acc[j][1]);
    }
}

/* The sums wait between panels in a block of up to LLM__XB tokens on the stack, 32 floats a
   token side by side, not in `out`: a tile's rows of `out` lie n_out floats apart, often a
   multiple of 4 KB, which puts them all in one set of the L1 cache (TinyLlama f16 prompts
   ran 4-9% slower so on one thread). A multiple of LLM__XT, so a block's tiles are those llm__pack_x packed. */
#define LLM__XB (12 * LLM__XT)

LLM__INLINE void llm__wpanels_avx512(const llm__mm *m, const uint16_t *G, const int ng, float *out, const int bf16) {
    size_t K = (size_t)m->n_in, gs = LLM__QG * K, kb, k;
    __m512 panel[LLM__KC * 2], sums[LLM__XB * 2]; /* vectors: aligned to the cache lines */
    float *wp = (float *)panel, *acc = (float *)sums;
    int t0, t, nt, kc, n;
    for (t0 = 0; t0 < m->n_tok; t0 += LLM__XB) {
        n = m->n_tok - t0 < LLM__XB ? m->n_tok - t0 : LLM__XB;
        for (kb = 0; kb < K; kb += LLM__KC) {
            kc = K - kb < LLM__KC ? (int)(K - kb) : LLM__KC;
            for (k = 0; k < (size_t)kc; k++) {
                _mm512_storeu_ps(wp + 32 * k, llm__w16_avx512(G + 16 * (kb + k), bf16));
                if (ng == 2) _mm512_storeu_ps(wp + 32 * k + 16, llm__w16_avx512(G + gs + 16 * (kb + k), bf16));
            }
            for (t = 0; t < n; t += nt) {
                const float *xp = m->xp + (size_t)(t0 + t) * K;
                /* the first tile asks for the next panel's weights, to come from memory meanwhile */
                const uint16_t *next = t == 0 && kb + LLM__KC < K ? G + 16 * (kb + LLM__KC) : NULL;
                nt = n - t >= LLM__XT ? LLM__XT : n - t >= 4 ? 4 : 1;
                if (nt == LLM__XT) llm__wtile_avx512(wp, kc, xp + kb * LLM__XT, LLM__XT, ng, acc + 32 * t, 32, kb == 0, next, gs);
                else if (nt == 4) llm__wtile_avx512(wp, kc, xp + kb * 4, 4, ng, acc + 32 * t, 32, kb == 0, next, gs);
                else llm__wtile_avx512(wp, kc, xp + kb, 1, ng, acc + 32 * t, 32, kb == 0, next, gs);
            }
        }
        for (t = 0; t < n; t++) memcpy(out + (size_t)(t0 + t) * (size_t)m->n_out, acc + 32 * t, (size_t)ng * LLM__QG * sizeof(float));
    }
}

LLM__INLINE void llm__wgroups_avx512(const llm__mm *m, const uint16_t *G, const int ng, float *out, const int bf16) {
    size_t K = (size_t)m->n_in;
    int t;
    if (m->xp) llm__wpanels_avx512(m, G, ng, out, bf16);
    else
        for (t = 0; t < m->n_tok; t++) llm__wrow_avx512(G, K, ng, m->x + (size_t)t * K, out + (size_t)t * (size_t)m->n_out, bf16);
}

LLM__INLINE void llm__mm_w16_avx512(const llm__mm *m, int r0, int r1, const int bf16) {
    int r = r0;
    for (; r + 2 * LLM__QG <= r1; r += 2 * LLM__QG)
        llm__wgroups_avx512(m, (const uint16_t *)m->w->data + (size_t)r * (size_t)m->n_in, 2, m->out + r, bf16);
    if (r + LLM__QG <= r1) {
        llm__wgroups_avx512(m, (const uint16_t *)m->w->data + (size_t)r * (size_t)m->n_in, 1, m->out + r, bf16);
        r += LLM__QG;
    }
    llm__mm_w16_fma(m, r, r1);
}

static void llm__mm_f16_avx512(const llm__mm *m, int r0, int r1) { llm__mm_w16_avx512(m, r0, r1, 0); }
static void llm__mm_bf16_avx512(const llm__mm *m, int r0, int r1) { llm__mm_w16_avx512(m, r0, r1, 1); }

/* ng (1 or 2) 16-row groups G, G + gs, ... x 8 / ng tokens (one token: llm__qrow_avx512). A
   64-byte chunk of codes is one register (16 rows x 4 columns); vpdpbusd multiplies it, as
   unsigned bytes, with 4 activation bytes broadcast to every lane. Two groups share each
   broadcast and the first pass, which reads the weights from memory, has two streams in
   flight: two groups x 4 tokens took one-thread q8_0 prompts 5-15% faster than one group x 8
   on the EPYC host (q4_0 -1% to +16%; from the cache, the same speed). q8_0 codes are made
   unsigned by flipping the sign bit (+128) and q4_0 codes are unsigned (+8); the accumulator
   starts at -offset x (sum of the block's activation codes) to undo the offset. */
LLM__INLINE void llm__qtile_avx512(const uint8_t *G, size_t gs, const int ng, int nb, const uint8_t *xq, size_t xs, const int q4,
                                   float *out, size_t os) {
    const int nt = 8 / ng;
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const __m512i m4 = _mm512_set1_epi8(0x0F), flip = _mm512_set1_epi8((char)0x80);
    const int K = nb * LLM__QK;
    __m512 acc[2][8];
    __m512i ai[2][8], v[2], hi[2];
    int t, b, j, g;
    LLM__UNROLL for (g = 0; g < ng; g++) LLM__UNROLL for (t = 0; t < nt; t++) acc[g][t] = _mm512_setzero_ps();
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes, *xb = xq + LLM__QK * b;
        LLM__UNROLL for (t = 0; t < nt; t++) {
            ai[0][t] = _mm512_set1_epi32(-(q4 ? 8 : 128) * llm__xq_sum(xq + t * xs, K, b));
            if (ng > 1) ai[1][t] = ai[0][t];
        }
        if (q4) {
            LLM__UNROLL for (j = 0; j < 4; j++) {
                LLM__UNROLL for (g = 0; g < ng; g++) {
                    __m512i w = _mm512_loadu_si512((const void *)(Q + g * gs + 64 * j));
                    v[g] = _mm512_and_si512(w, m4);
                    hi[g] = _mm512_and_si512(_mm512_srli_epi16(w, 4), m4);
                }
                LLM__UNROLL for (t = 0; t < nt; t++) {
                    __m512i xl = _mm512_set1_epi32(llm__rd_i32(xb + t * xs + 4 * j)), xh = _mm512_set1_epi32(llm__rd_i32(xb + t * xs + 16 + 4 * j));
                    LLM__UNROLL for (g = 0; g < ng; g++) {
                        ai[g][t] = _mm512_dpbusd_epi32(ai[g][t], v[g], xl);
                        ai[g][t] = _mm512_dpbusd_epi32(ai[g][t], hi[g], xh);
                    }
                }
            }
        } else {
            LLM__UNROLL for (j = 0; j < 8; j++) {
                LLM__UNROLL for (g = 0; g < ng; g++) v[g] = _mm512_xor_si512(_mm512_loadu_si512((const void *)(Q + g * gs + 64 * j)), flip);
                LLM__UNROLL for (t = 0; t < nt; t++) {
                    __m512i xv = _mm512_set1_epi32(llm__rd_i32(xb + t * xs + 4 * j));
                    LLM__UNROLL for (g = 0; g < ng; g++) ai[g][t] = _mm512_dpbusd_epi32(ai[g][t], v[g], xv);
                }
            }
        }
        LLM__UNROLL for (g = 0; g < ng; g++) {
            __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(S + g * gs + 32 * (size_t)b)));
            LLM__UNROLL for (t = 0; t < nt; t++)
                acc[g][t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(ai[g][t]), _mm512_mul_ps(dw, _mm512_set1_ps(llm__xq_scale(xq + t * xs, K, b))), acc[g][t]);
        }
    }
    LLM__UNROLL for (g = 0; g < ng; g++) LLM__UNROLL for (t = 0; t < nt; t++) _mm512_storeu_ps(out + g * LLM__QG + t * os, acc[g][t]);
}

/* One token, ng (1 to 4) 16-row groups G, G + gs, ...: the activation bytes are broadcast
   once for all, ng streams of weights are in flight (one token is bound by how many lines
   are on their way from memory: four groups read q4_0 12-24% faster than two on the EPYC
   host, q8_0 a few percent), and a second integer sum per group halves its chain of
   dependent vpdpbusd (integer sums are exact: the result is the tile's). */
LLM__INLINE void llm__qrow_avx512(const uint8_t *G, size_t gs, const int ng, int nb, const uint8_t *xq, const int q4, const int pf, float *out) {
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const __m512i m4 = _mm512_set1_epi8(0x0F), flip = _mm512_set1_epi8((char)0x80);
    const int K = nb * LLM__QK;
    __m512 acc[4];
    int b, j, g;
    LLM__UNROLL for (g = 0; g < ng; g++) acc[g] = _mm512_setzero_ps();
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes, *xb = xq + LLM__QK * b;
        const __m512i offset = _mm512_set1_epi32(-(q4 ? 8 : 128) * llm__xq_sum(xq, K, b));
        const __m512 xs = _mm512_set1_ps(llm__xq_scale(xq, K, b));
        __m512i a[4], c[4];
        LLM__UNROLL for (g = 0; g < ng; g++) {
            a[g] = offset; c[g] = _mm512_setzero_si512();
            if (pf) llm__prefetch_blocks(Q + g * gs, S + g * gs, b, qbytes);
        }
        if (q4) {
            LLM__UNROLL for (j = 0; j < 4; j++) {
                __m512i xl = _mm512_set1_epi32(llm__rd_i32(xb + 4 * j)), xh = _mm512_set1_epi32(llm__rd_i32(xb + 16 + 4 * j));
                LLM__UNROLL for (g = 0; g < ng; g++) {
                    __m512i v = _mm512_loadu_si512((const void *)(Q + g * gs + 64 * j));
                    a[g] = _mm512_dpbusd_epi32(a[g], _mm512_and_si512(v, m4), xl);
                    c[g] = _mm512_dpbusd_epi32(c[g], _mm512_and_si512(_mm512_srli_epi16(v, 4), m4), xh);
                }
            }
        } else {
            LLM__UNROLL for (j = 0; j < 8; j++) {
                __m512i xv = _mm512_set1_epi32(llm__rd_i32(xb + 4 * j));
                LLM__UNROLL for (g = 0; g < ng; g++) {
                    __m512i v = _mm512_xor_si512(_mm512_loadu_si512((const void *)(Q + g * gs + 64 * j)), flip);
                    if (j % 2) c[g] = _mm512_dpbusd_epi32(c[g], v, xv);
                    else a[g] = _mm512_dpbusd_epi32(a[g], v, xv);
                }
            }
        }
        LLM__UNROLL for (g = 0; g < ng; g++) {
            __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(S + g * gs + 32 * (size_t)b)));
            acc[g] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(a[g], c[g])), _mm512_mul_ps(dw, xs), acc[g]);
        }
    }
    LLM__UNROLL for (g = 0; g < ng; g++) _mm512_storeu_ps(out + g * LLM__QG, acc[g]);
}

LLM__INLINE void llm__mm_quant_avx512(const llm__mm *m, int r0, int r1, const int q4) {
    int nb = m->n_in / LLM__QK, g = r0 / LLM__QG, t;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(m->w->dtype, m->n_in), os = (size_t)m->n_out;
    const uint8_t *W = (const uint8_t *)m->w->data;
    if (m->n_tok == 1) { /* bound by memory: groups in fours */
        for (; g + 4 <= r1 / LLM__QG; g += 4) llm__qrow_avx512(W + (size_t)g * gbytes, gbytes, 4, nb, m->xq, q4, m->prefetch, m->out + (size_t)g * LLM__QG);
        for (; g < r1 / LLM__QG; g++) llm__qrow_avx512(W + (size_t)g * gbytes, gbytes, 1, nb, m->xq, q4, m->prefetch, m->out + (size_t)g * LLM__QG);
        return;
    }
    for (; g < r1 / LLM__QG; g += 2) {
        const uint8_t *G = W + (size_t)g * gbytes;
        float *out = m->out + (size_t)g * LLM__QG;
        if (g + 2 <= r1 / LLM__QG) { /* groups in pairs */
            for (t = 0; t + 4 <= m->n_tok; t += 4) llm__qtile_avx512(G, gbytes, 2, nb, m->xq + t * m->xq_stride, m->xq_stride, q4, out + t * os, os);
            for (; t < m->n_tok; t++) llm__qrow_avx512(G, gbytes, 2, nb, m->xq + t * m->xq_stride, q4, 0, out + t * os);
        } else {
            for (t = 0; t + 8 <= m->n_tok; t += 8) llm__qtile_avx512(G, 0, 1, nb, m->xq + t * m->xq_stride, m->xq_stride, q4, out + t * os, os);
            for (; t < m->n_tok; t++) llm__qrow_avx512(G, 0, 1, nb, m->xq + t * m->xq_stride, q4, 0, out + t * os);
        }
    }
}

static void llm__mm_q8_0_avx512(const llm__mm *m, int r0, int r1) { llm__mm_quant_avx512(m, r0, r1, 0); }

static void llm__quantize_x_avx512(const float *x, int n, uint8_t *out) {
    int nb = n / LLM__QK, b;
    for (b = 0; b < nb; b++) {
        const __m512i mag = _mm512_set1_epi32(0x7FFFFFFF);
        __m512 v0 = _mm512_loadu_ps(x + b * LLM__QK), v1 = _mm512_loadu_ps(x + b * LLM__QK + 16);
        uint32_t bits = _mm512_reduce_max_epu32(_mm512_max_epu32(_mm512_and_si512(_mm512_castps_si512(v0), mag),
                                                                 _mm512_and_si512(_mm512_castps_si512(v1), mag)));
        float amax, d, id;
        __m512i q0, q1;
        int32_t sum;
        if (bits >= LLM__XQ_NONFINITE) { llm__quantize_x_nonfinite(out, n, b); continue; }
        memcpy(&amax, &bits, 4);
        d = amax / 127.0f;
        id = d >= FLT_MIN ? 1.0f / d : 0.0f;
        q0 = _mm512_cvtps_epi32(_mm512_mul_ps(v0, _mm512_set1_ps(id)));
        q1 = _mm512_cvtps_epi32(_mm512_mul_ps(v1, _mm512_set1_ps(id)));
        sum = _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
        _mm_storeu_si128((__m128i *)(out + b * LLM__QK), _mm512_cvtepi32_epi8(q0));
        _mm_storeu_si128((__m128i *)(out + b * LLM__QK + 16), _mm512_cvtepi32_epi8(q1));
        memcpy(out + n + 4 * (size_t)b, &d, 4);
        memcpy(out + n + 4 * (size_t)(nb + b), &sum, 4);
    }
}
static void llm__mm_q4_0_avx512(const llm__mm *m, int r0, int r1) { llm__mm_quant_avx512(m, r0, r1, 1); }

/* k-quants: one 16-row group x nt tokens (up to 8). The codes of a block of 32 columns come
   as 8 registers of unsigned bytes (columns 4i..4i+3 of the low half, then of the high half,
   the high bits merged in at bit 4), which vpdpbusd takes as they are; the sums of the two
   halves are kept apart (q6_k's sub-blocks are 16 columns wide) and its offset 32 comes out
   through the activation sums, as in llm__mm_kquant_ref. */
/* llm__xq_half_sum with one psadbw: the codes made unsigned (+128), summed, the offset out. */
LLM__INLINE int32_t llm__xq_half_sum_avx512(const uint8_t *xb) {
    __m128i s = _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)xb), _mm_set1_epi8((char)0x80)), _mm_setzero_si128());
    return _mm_cvtsi128_si32(s) + _mm_extract_epi16(s, 4) - 16 * 128;
}

LLM__INLINE __m512i llm__shift_epi16_avx512(__m512i v, const int left) {
    return left > 0 ? _mm512_slli_epi16(v, left) : left < 0 ? _mm512_srli_epi16(v, -left) : v;
}

/* A super-block's f16 factors of the 16 rows: d, and dmin (not q6_k's). */
LLM__INLINE void llm__kq_d_avx512(const uint8_t *S, const llm_dtype dt, __m512 *d, __m512 *dmin) {
    if (dt == LLM_DTYPE_Q6_K) *d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(S + 256)));
    else {
        *d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(S + 192)));
        *dmin = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(S + 224)));
    }
}

/* One token's sub-block into acc, as llm__mm_kquant_ref: q6_k's halves a0 and a1 (the offset
   32 already out) each with its factor; the others' whole block a0 + a1, less min x the
   activation sum. */
LLM__INLINE __m512 llm__kq_acc_avx512(__m512 acc, __m512i a0, __m512i a1, __m512 dsa, __m512 dsb, float dx, int32_t xsum,
                                      const llm_dtype dt) {
    if (dt == LLM_DTYPE_Q6_K) {
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a0), _mm512_mul_ps(dsa, _mm512_set1_ps(dx)), acc);
        return _mm512_fmadd_ps(_mm512_cvtepi32_ps(a1), _mm512_mul_ps(dsb, _mm512_set1_ps(dx)), acc);
    }
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(a0, a1)), _mm512_mul_ps(dsa, _mm512_set1_ps(dx)), acc);
    return _mm512_fnmadd_ps(dsb, _mm512_set1_ps((float)xsum * dx), acc);
}

/* The codes of sub-block j of a group's k-quant super-block (SB, its high bits at H) as 8
   registers of unsigned bytes, the 5th and 6th bits merged in at bit 4: lines 0-3 columns
   4i..4i+3 of the low half, lines 4-7 of the high half. (A q4_0 block is laid out as a
   sub-block's low bits: dt Q4_0, j 0, no H.) */
LLM__INLINE void llm__kq_codes_avx512(const uint8_t *SB, const uint8_t *H, int j, const llm_dtype dt, __m512i *lines) {
    const __m512i m4 = _mm512_set1_epi8(0x0F), m10 = _mm512_set1_epi8(0x10), m30 = _mm512_set1_epi8(0x30);
    int i;
    LLM__UNROLL for (i = 0; i < 4; i++) {
        __m512i v = _mm512_loadu_si512((const void *)(SB + 256 * j + 64 * i));
        lines[i] = _mm512_and_si512(v, m4);
        lines[4 + i] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
    }
    if (dt == LLM_DTYPE_Q5_K) {
        __m512i h = _mm512_loadu_si512((const void *)(H + 64 * j));
        LLM__UNROLL for (i = 0; i < 4; i++) {
            lines[i] = _mm512_or_si512(lines[i], _mm512_and_si512(llm__shift_epi16_avx512(h, 4 - i), m10));
            lines[4 + i] = _mm512_or_si512(lines[4 + i], _mm512_and_si512(llm__shift_epi16_avx512(h, -i), m10));
        }
    } else if (dt == LLM_DTYPE_Q6_K) {
        __m512i h0 = _mm512_loadu_si512((const void *)(H + 128 * j)), h1 = _mm512_loadu_si512((const void *)(H + 128 * j + 64));
        LLM__UNROLL for (i = 0; i < 4; i++) {
            lines[i] = _mm512_or_si512(lines[i], _mm512_and_si512(llm__shift_epi16_avx512(h0, 4 - 2 * i), m30));
            lines[4 + i] = _mm512_or_si512(lines[4 + i], _mm512_and_si512(llm__shift_epi16_avx512(h1, 4 - 2 * i), m30));
        }
    }
}

/* The 16 rows' factors of sub-block j (S: the super-block's scales): q6_k's scale of each
   half (times d) in *dsa and *dsb; q4_k's and q5_k's scale times d in *dsa, min times dmin in
   *dsb. */
LLM__INLINE void llm__kq_scales_avx512(const uint8_t *S, int j, __m512 d, __m512 dmin, const llm_dtype dt, __m512 *dsa, __m512 *dsb) {
    if (dt == LLM_DTYPE_Q6_K) {
        *dsa = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(S + 32 * j)))));
        *dsb = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(S + 32 * j + 16)))));
    } else {
        const __m128i c3 = _mm_set1_epi8(3), c15 = _mm_set1_epi8(15);
        __m128i l8 = _mm_loadu_si128((const __m128i *)(S + 16 * j));
        __m128i h8 = _mm_srli_epi16(_mm_loadu_si128((const __m128i *)(S + 128 + 16 * (j / 2))), 4 * (j % 2));
        __m128i sc = _mm_or_si128(_mm_and_si128(l8, c15), _mm_slli_epi16(_mm_and_si128(h8, c3), 4));
        __m128i mn = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(l8, 4), c15), _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(h8, 2), c3), 4));
        *dsa = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(sc)));
        *dsb = _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(mn)));
    }
}

LLM__INLINE void llm__ktile_avx512(const uint8_t *G, int K, const uint8_t *xq, size_t xs, const int nt, const llm_dtype dt,
                                   float *out, size_t os) {
    const size_t sbytes = LLM__QG * llm__kq_block_bytes(dt, 8);
    const int q6 = dt == LLM_DTYPE_Q6_K;
    __m512 acc[8], d, dmin = _mm512_setzero_ps();
    int t, s, j, i;
    LLM__UNROLL for (t = 0; t < nt; t++) acc[t] = _mm512_setzero_ps();
    for (s = 0; s * LLM__QKK < K; s++) {
        const int ns = llm__kq_subs(K, s);
        const uint8_t *SB = G + (size_t)s * sbytes, *S = SB + llm__kq_scales_at(dt, ns), *H = SB + llm__kq_hi_at(ns);
        llm__kq_d_avx512(S, dt, &d, &dmin);
        for (j = 0; j < ns; j++) {
            const int b = 8 * s + j;
            __m512i lines[8], *lo = lines, *hi = lines + 4;
            __m512 dsa, dsb;
            if (nt == 1)
                for (i = 0; i < (int)sbytes / 8; i += 64) LLM__PREFETCH(SB + 2 * sbytes + (size_t)j * sbytes / 8 + (size_t)i);
            llm__kq_codes_avx512(SB, H, j, dt, lines);
            llm__kq_scales_avx512(S, j, d, dmin, dt, &dsa, &dsb);
            LLM__UNROLL for (t = 0; t < nt; t++) {
                const uint8_t *xt = xq + t * xs, *xb = xt + LLM__QK * b;
                const int32_t xsum = llm__xq_sum(xt, K, b), xsa = q6 ? llm__xq_half_sum_avx512(xb) : 0;
                const float dx = llm__xq_scale(xt, K, b);
                __m512i a0 = _mm512_set1_epi32(-32 * xsa), a1 = _mm512_set1_epi32(q6 ? -32 * (xsum - xsa) : 0);
                LLM__UNROLL for (i = 0; i < 4; i++) {
                    a0 = _mm512_dpbusd_epi32(a0, lo[i], _mm512_set1_epi32(llm__rd_i32(xb + 4 * i)));
                    a1 = _mm512_dpbusd_epi32(a1, hi[i], _mm512_set1_epi32(llm__rd_i32(xb + 16 + 4 * i)));
                }
                acc[t] = llm__kq_acc_avx512(acc[t], a0, a1, dsa, dsb, dx, xsum, dt);
            }
        }
    }
    LLM__UNROLL for (t = 0; t < nt; t++) _mm512_storeu_ps(out + t * os, acc[t]);
}

LLM__INLINE void llm__mm_kquant_avx512(const llm__mm *m, int r0, int r1, const llm_dtype dt) {
    int K = m->n_in, g, t;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(dt, m->n_in), os = (size_t)m->n_out;
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++) {
        const uint8_t *G = (const uint8_t *)m->w->data + (size_t)g * gbytes;
        float *out = m->out + (size_t)g * LLM__QG;
        for (t = 0; t + 8 <= m->n_tok; t += 8) llm__ktile_avx512(G, K, m->xq + t * m->xq_stride, m->xq_stride, 8, dt, out + t * os, os);
        for (; t < m->n_tok; t++) llm__ktile_avx512(G, K, m->xq + t * m->xq_stride, m->xq_stride, 1, dt, out + t * os, os);
    }
}

static void llm__mm_q4_k_avx512(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avx512(m, r0, r1, LLM_DTYPE_Q4_K); }
static void llm__mm_q5_k_avx512(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avx512(m, r0, r1, LLM_DTYPE_Q5_K); }
static void llm__mm_q6_k_avx512(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avx512(m, r0, r1, LLM_DTYPE_Q6_K); }

/* e^x within 1 ulp of the correctly rounded value, as a scalar expf: x = n ln2 + r with
   |r| <= ln2 / 2 (ln2 in two parts, so r is exact), e^r by its Taylor series to r^7 (the
   first term left out is below 2^-27 of the result), times 2^n. */
LLM__INLINE __m512 llm__exp_avx512(__m512 x) {
    __m512 n, r, p;
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(89.0f));
    n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    p = _mm512_fmadd_ps(_mm512_set1_ps(1.0f / 5040), r, _mm512_set1_ps(1.0f / 720));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);
}

/* The softmax 16 scores at a time: the largest, e^(x - largest) and their sum, then the
   division by it (as HF's float32 softmax, which is vectorized too, the sum is not taken in
   order of position). */
static void llm__softmax_avx512(float *x, int n) {
    __m512 mx = _mm512_set1_ps(x[0]), sum = _mm512_setzero_ps(), total;
    int i;
    for (i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        mx = _mm512_mask_max_ps(mx, k, mx, _mm512_maskz_loadu_ps(k, x + i));
    }
    mx = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
    for (i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        __m512 e = _mm512_maskz_mov_ps(k, llm__exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + i), mx)));
        _mm512_mask_storeu_ps(x + i, k, e);
        sum = _mm512_add_ps(sum, e);
    }
    total = _mm512_set1_ps(_mm512_reduce_add_ps(sum));
    for (i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(x + i, k, _mm512_div_ps(_mm512_maskz_loadu_ps(k, x + i), total));
    }
}

/* Every element goes through the same vector code (the tail masked), so a result does not
   depend on where a thread's rows begin. */
static void llm__swiglu_avx512(float *gate, const float *up, int n) {
    int i;
    for (i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        __m512 g = _mm512_maskz_loadu_ps(k, gate + i), one = _mm512_set1_ps(1.0f);
        __m512 e = llm__exp_avx512(_mm512_sub_ps(_mm512_setzero_ps(), g));
        _mm512_mask_storeu_ps(gate + i, k, _mm512_mul_ps(_mm512_div_ps(g, _mm512_add_ps(one, e)), _mm512_maskz_loadu_ps(k, up + i)));
    }
}

/* llm__geglu_ref's arithmetic, 16 at a time (e^x as above). */
static void llm__geglu_avx512(float *gate, const float *up, int n) {
    int i;
    for (i = 0; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        __m512 x = _mm512_maskz_loadu_ps(k, gate + i), one = _mm512_set1_ps(1.0f);
        __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(LLM__GELU_KAPPA), x), _mm512_mul_ps(x, x));
        __m512 u = _mm512_mul_ps(_mm512_set1_ps(LLM__GELU_BETA), _mm512_add_ps(x, x3));
        __m512 e = llm__exp_avx512(_mm512_mul_ps(_mm512_set1_ps(-2.0f), u));
        _mm512_mask_storeu_ps(gate + i, k, _mm512_mul_ps(_mm512_div_ps(x, _mm512_add_ps(one, e)), _mm512_maskz_loadu_ps(k, up + i)));
    }
}

LLM__TARGET_END

#if defined(LLM__AVX512_BF16)
/* -- AVX512-BF16: bf16 weights x activations rounded to bf16 (llm_ctx_desc.bf16_dot) -------
   Asked for, not the default: vdpbf16ps takes pairs of bf16 numbers, multiplies them exactly
   and adds both products to an f32 accumulator (subnormals taken as zero), twice the
   multiply-adds of a fused multiply-add per instruction, but the activations lose all but 8
   bits of their precision. For prompts: a panel puts columns 2p and 2p + 1 of a 16-row group
   side by side (lane i: row i's two weights), the tokens' pairs are broadcast from the packed
   activations (llm__pack_x_bf16). Rows past the last whole group take the exact path. */
LLM__TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c,avx512bf16")

/* Columns a and b (16 bf16 each, b NULL: zeros) interleaved: lane i holds a[i], b[i]. */
LLM__INLINE __m512i llm__bf16_pair_avx512(const uint16_t *a, const uint16_t *b) {
    static const uint16_t order[32] = { 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                                        8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31 };
    __m256i hi = b ? _mm256_loadu_si256((const __m256i *)b) : _mm256_setzero_si256();
    __m512i ab = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)a)), hi, 1);
    return _mm512_permutexvar_epi16(_mm512_loadu_si512(order), ab);
}

/* nt tokens x ng groups over pc pairs of the panel; accumulators wait in `out` between panels. */
LLM__INLINE void llm__btile_avx512(const __m512i *wp, int pc, const uint32_t *xp, const int nt, const int ng, float *out,
                                   size_t os, int first) {
    __m512 acc[LLM__XT][2];
    int j, p;
    LLM__UNROLL for (j = 0; j < nt; j++) {
        acc[j][0] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(out + (size_t)j * os);
        if (ng == 2) acc[j][1] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(out + (size_t)j * os + 16);
    }
    for (p = 0; p < pc; p++) {
        __m512bh w0 = (__m512bh)wp[2 * p], w1 = ng == 2 ? (__m512bh)wp[2 * p + 1] : w0;
        LLM__UNROLL for (j = 0; j < nt; j++) {
            __m512bh xv = (__m512bh)_mm512_set1_epi32((int)xp[p * nt + j]);
            acc[j][0] = _mm512_dpbf16_ps(acc[j][0], w0, xv);
            if (ng == 2) acc[j][1] = _mm512_dpbf16_ps(acc[j][1], w1, xv);
        }
    }
    LLM__UNROLL for (j = 0; j < nt; j++) {
        _mm512_storeu_ps(out + (size_t)j * os, acc[j][0]);
        if (ng == 2) _mm512_storeu_ps(out + (size_t)j * os + 16, acc[j][1]);
    }
}

/* ng (1 or 2) groups from G, LLM__KC pairs of columns per panel. */
LLM__INLINE void llm__bgroups_avx512(const llm__mm *m, const uint16_t *G, const int ng, float *out) {
    size_t K = (size_t)m->n_in, P = (K + 1) / 2, gs = LLM__QG * K, os = (size_t)m->n_out, pb, p;
    __m512i panel[LLM__KC * 2];
    int t, nt, pc, g;
    for (pb = 0; pb < P; pb += LLM__KC) {
        pc = P - pb < LLM__KC ? (int)(P - pb) : LLM__KC;
        for (p = 0; p < (size_t)pc; p++)
            for (g = 0; g < ng; g++) {
                const uint16_t *c = G + (size_t)g * gs + 32 * (pb + p);
                panel[2 * p + (size_t)g] = llm__bf16_pair_avx512(c, 2 * (pb + p) + 1 < K ? c + 16 : NULL);
            }
        for (t = 0; t < m->n_tok; t += nt) {
            const uint32_t *xp = m->xb + (size_t)t * P;
            nt = m->n_tok - t >= LLM__XT ? LLM__XT : m->n_tok - t >= 4 ? 4 : 1;
            if (nt == LLM__XT) llm__btile_avx512(panel, pc, xp + pb * LLM__XT, LLM__XT, ng, out + t * os, os, pb == 0);
            else if (nt == 4) llm__btile_avx512(panel, pc, xp + pb * 4, 4, ng, out + t * os, os, pb == 0);
            else llm__btile_avx512(panel, pc, xp + pb, 1, ng, out + t * os, os, pb == 0);
        }
    }
}

static void llm__mm_bf16_dot_avx512(const llm__mm *m, int r0, int r1) {
    int r = r0;
    for (; r + 2 * LLM__QG <= r1; r += 2 * LLM__QG)
        llm__bgroups_avx512(m, (const uint16_t *)m->w->data + (size_t)r * (size_t)m->n_in, 2, m->out + r);
    if (r + LLM__QG <= r1) {
        llm__bgroups_avx512(m, (const uint16_t *)m->w->data + (size_t)r * (size_t)m->n_in, 1, m->out + r);
        r += LLM__QG;
    }
    llm__mm_w16_fma(m, r, r1);
}

LLM__TARGET_END
#define LLM__MM_BF16_DOT llm__mm_bf16_dot_avx512
#else
#define LLM__MM_BF16_DOT NULL
#endif

static const llm__kernels llm__kernels_avx512 = {
    { llm__mm_f32_avx512, llm__mm_f16_avx512, llm__mm_bf16_avx512, llm__mm_q8_0_avx512, llm__mm_q4_0_avx512, llm__mm_q4_k_avx512,
      llm__mm_q5_k_avx512, llm__mm_q6_k_avx512 },
    llm__scores_f32_avx512, llm__scores_f16_avx512, llm__values_f32_avx512, llm__values_f16_avx512, llm__softmax_avx512, llm__quantize_x_avx512, llm__swiglu_avx512, llm__geglu_avx512, LLM__XT, "avx512", LLM__MM_BF16_DOT, 0
};

#if defined(LLM__AMX)
/* -- AMX int8 tiles, with AVX-512 -------------------------------------------------------------
   A prompt's products with quantized weights, 16 tokens at a time, on the tile unit. A block
   of 32 columns of a 16-row group is 8 lines of 64 bytes in the file, each the 4 codes of
   every row for 4 columns: the layout TDPBSSD takes as its second operand. q8_0's codes are
   loaded as they are, the other types' are unpacked to signed bytes (q4_0: code - 8; the
   k-quants' unsigned codes, below 64, as they are). One TDPBSSD gives the integer sums of
   16 tokens x 16 rows for a block (the activation codes a 16 x 32-byte tile), the integers
   vpdpbusd gives, and the float arithmetic after it is that of the AVX-512 tiles: the logits
   are bitwise the AVX-512 set's. The tokens past the last 16 go through the AVX-512 tiles.
   The tile instructions go through macros that tests/test_amx.c defines as C versions of
   them, to check this code on CPUs without AMX. */
#ifndef LLM__TILE_LOADD
/* GCC's tile intrinsics are asm statements that do not tell the compiler which memory they
   read: a compiler barrier first makes the configuration and the unpacked codes stored. */
#if defined(__GNUC__) && !defined(__clang__)
#define LLM__TILE_BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define LLM__TILE_BARRIER() ((void)0)
#endif
#define LLM__TILE_CONFIG(cfg) _tile_loadconfig(cfg)
#define LLM__TILE_LOADD(t, p, stride) _tile_loadd(t, p, stride)
#define LLM__TILE_STORED(t, p, stride) _tile_stored(t, p, stride)
#define LLM__TILE_ZERO(t) _tile_zero(t)
#define LLM__TILE_DPBSSD(c, a, b) _tile_dpbssd(c, a, b)
#define LLM__TILE_DPBF16PS(c, a, b) _tile_dpbf16ps(c, a, b)
#define LLM__TILE_RELEASE() _tile_release()
#endif
LLM__TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c,amx-tile,amx-int8")

/* The tile configuration (palette 1): bytes per line and lines of each tile register. */
typedef struct llm__tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} llm__tile_config;

/* Tiles 0 and 1: sums (16 tokens x 16 int32); 2 and 3: activation codes (16 tokens x 16 or
   32 bytes); 4 and 5: weight codes (4 or 8 lines). A whole block is tiles 0, 2 and 4; q6_k's
   halves of 16 columns (scaled apart) are 0, 2, 4 and 1, 3, 5. */
static void llm__amx_begin(const int halves) {
    llm__tile_config c;
    int i;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (i = 0; i < 2; i++) {
        c.rows[i] = 16; c.colsb[i] = 64;
        c.rows[2 + i] = 16; c.colsb[2 + i] = (uint16_t)(halves ? 16 : 32);
        c.rows[4 + i] = (uint8_t)(halves ? 4 : 8); c.colsb[4 + i] = 64;
    }
    LLM__TILE_BARRIER();
    LLM__TILE_CONFIG(&c);
}

/* The integer sums of 16 tokens (activation codes at x, a token every xs bytes) with the
   block's 8 lines of weight codes W, into sums[16 tokens][16 rows]. */
LLM__INLINE void llm__amx_block(const uint8_t *x, size_t xs, const void *W, int32_t *sums) {
    LLM__TILE_BARRIER();
    LLM__TILE_LOADD(2, x, xs);
    LLM__TILE_LOADD(4, W, 64);
    LLM__TILE_ZERO(0);
    LLM__TILE_DPBSSD(0, 2, 4);
    LLM__TILE_STORED(0, sums, 64);
}

/* q8_0 / q4_0: one group x 16 tokens, llm__qtile_avx512's arithmetic. */
LLM__INLINE void llm__qtile_amx(const uint8_t *G, int nb, const uint8_t *xq, size_t xs, const int q4, float *out, size_t os) {
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const int K = nb * LLM__QK;
    __m512i sums[16], lines[8];
    __m512 acc[16];
    int t, b, j;
    LLM__UNROLL for (t = 0; t < 16; t++) acc[t] = _mm512_setzero_ps();
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes;
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(S + 32 * (size_t)b)));
        if (q4) { /* q4_0's block is a k-quant sub-block's low bits: its codes less 8 */
            llm__kq_codes_avx512(Q, NULL, 0, LLM_DTYPE_Q4_0, lines);
            for (j = 0; j < 8; j++) lines[j] = _mm512_sub_epi8(lines[j], _mm512_set1_epi8(8));
        }
        llm__amx_block(xq + LLM__QK * b, xs, q4 ? (const void *)lines : (const void *)Q, (int32_t *)sums);
        LLM__UNROLL for (t = 0; t < 16; t++)
            acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums[t]), _mm512_mul_ps(dw, _mm512_set1_ps(llm__xq_scale(xq + t * xs, K, b))), acc[t]);
    }
    LLM__UNROLL for (t = 0; t < 16; t++) _mm512_storeu_ps(out + t * os, acc[t]);
}


/* k-quants: one group x 16 tokens, llm__ktile_avx512's arithmetic on the same registers of
   codes (unsigned, below 64: signed bytes as they are), stored for the tile loads. */
LLM__INLINE void llm__ktile_amx(const uint8_t *G, int K, const uint8_t *xq, size_t xs, const llm_dtype dt, float *out, size_t os) {
    const size_t sbytes = LLM__QG * llm__kq_block_bytes(dt, 8);
    const int q6 = dt == LLM_DTYPE_Q6_K;
    __m512i sums[16], sums_hi[16], lines[8];
    __m512 acc[16], d, dmin = _mm512_setzero_ps();
    int t, s, j;
    LLM__UNROLL for (t = 0; t < 16; t++) acc[t] = _mm512_setzero_ps();
    for (s = 0; s * LLM__QKK < K; s++) {
        const int ns = llm__kq_subs(K, s);
        const uint8_t *SB = G + (size_t)s * sbytes, *S = SB + llm__kq_scales_at(dt, ns), *H = SB + llm__kq_hi_at(ns);
        llm__kq_d_avx512(S, dt, &d, &dmin);
        for (j = 0; j < ns; j++) {
            const int b = 8 * s + j;
            __m512 dsa, dsb;
            llm__kq_codes_avx512(SB, H, j, dt, lines);
            llm__kq_scales_avx512(S, j, d, dmin, dt, &dsa, &dsb);
            if (q6) { /* the two halves of 16 columns, each with its own scale */
                LLM__TILE_BARRIER();
                LLM__TILE_LOADD(2, xq + LLM__QK * b, xs);
                LLM__TILE_LOADD(3, xq + LLM__QK * b + 16, xs);
                LLM__TILE_LOADD(4, lines, 64);
                LLM__TILE_LOADD(5, lines + 4, 64);
                LLM__TILE_ZERO(0);
                LLM__TILE_ZERO(1);
                LLM__TILE_DPBSSD(0, 2, 4);
                LLM__TILE_DPBSSD(1, 3, 5);
                LLM__TILE_STORED(0, sums, 64);
                LLM__TILE_STORED(1, sums_hi, 64);
            } else llm__amx_block(xq + LLM__QK * b, xs, lines, (int32_t *)sums);
            LLM__UNROLL for (t = 0; t < 16; t++) {
                const uint8_t *xt = xq + t * xs, *xb = xt + LLM__QK * b;
                const int32_t xsum = llm__xq_sum(xt, K, b), xsa = q6 ? llm__xq_half_sum_avx512(xb) : 0;
                const float dx = llm__xq_scale(xt, K, b);
                __m512i a0 = _mm512_sub_epi32(sums[t], _mm512_set1_epi32(32 * xsa));
                __m512i a1 = q6 ? _mm512_sub_epi32(sums_hi[t], _mm512_set1_epi32(32 * (xsum - xsa))) : _mm512_setzero_si512();
                acc[t] = llm__kq_acc_avx512(acc[t], a0, a1, dsa, dsb, dx, xsum, dt);
            }
        }
    }
    LLM__UNROLL for (t = 0; t < 16; t++) _mm512_storeu_ps(out + t * os, acc[t]);
}

/* Every quantized type: 16-token tiles on the tile unit, the tokens left by the AVX-512 tiles. */
LLM__INLINE void llm__mm_amx(const llm__mm *m, int r0, int r1, const llm_dtype dt) {
    const int kq = llm__is_kquant(dt), q4 = dt == LLM_DTYPE_Q4_0;
    int K = m->n_in, g, t;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(dt, K), os = (size_t)m->n_out, xs = m->xq_stride;
    if (m->n_tok < 16) {
        if (kq) llm__mm_kquant_avx512(m, r0, r1, dt);
        else llm__mm_quant_avx512(m, r0, r1, q4);
        return;
    }
    llm__amx_begin(dt == LLM_DTYPE_Q6_K);
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++) {
        const uint8_t *G = (const uint8_t *)m->w->data + (size_t)g * gbytes;
        float *out = m->out + (size_t)g * LLM__QG;
        for (t = 0; t + 16 <= m->n_tok; t += 16) {
            if (kq) llm__ktile_amx(G, K, m->xq + t * xs, xs, dt, out + t * os, os);
            else llm__qtile_amx(G, K / LLM__QK, m->xq + t * xs, xs, q4, out + t * os, os);
        }
        for (; t + 8 <= m->n_tok; t += 8) {
            if (kq) llm__ktile_avx512(G, K, m->xq + t * xs, xs, 8, dt, out + t * os, os);
            else llm__qtile_avx512(G, 0, 1, K / LLM__QK, m->xq + t * xs, xs, q4, out + t * os, os);
        }
        for (; t < m->n_tok; t++) {
            if (kq) llm__ktile_avx512(G, K, m->xq + t * xs, xs, 1, dt, out + t * os, os);
            else llm__qrow_avx512(G, 0, 1, K / LLM__QK, m->xq + t * xs, q4, 0, out + t * os);
        }
    }
    LLM__TILE_RELEASE();
}

static void llm__mm_q8_0_amx(const llm__mm *m, int r0, int r1) { llm__mm_amx(m, r0, r1, LLM_DTYPE_Q8_0); }
static void llm__mm_q4_0_amx(const llm__mm *m, int r0, int r1) { llm__mm_amx(m, r0, r1, LLM_DTYPE_Q4_0); }
static void llm__mm_q4_k_amx(const llm__mm *m, int r0, int r1) { llm__mm_amx(m, r0, r1, LLM_DTYPE_Q4_K); }
static void llm__mm_q5_k_amx(const llm__mm *m, int r0, int r1) { llm__mm_amx(m, r0, r1, LLM_DTYPE_Q5_K); }
static void llm__mm_q6_k_amx(const llm__mm *m, int r0, int r1) { llm__mm_amx(m, r0, r1, LLM_DTYPE_Q6_K); }

LLM__TARGET_END

#if defined(LLM__AMX_BF16)
/* bf16 dot products on the tiles (llm_ctx_desc.bf16_dot), where the CPU has AMX-BF16.
   TDPBF16PS multiplies 16 tokens x 16 pairs of activations (tile 2: a token's pairs on its
   line, llm__pack_x_bf16_rows) with 16 pairs x 16 rows of weights (tile 4: a line per pair,
   the vector llm__bf16_pair_avx512 makes) and adds into 16 tokens x 16 rows of f32 (tile 0),
   which waits in `out` between panels. A line's pairs past the weights' are zeros on both
   sides. The panel has llm__bgroups_avx512's layout for one group (a vector every 128 bytes),
   so the tokens past the last 16 go through the AVX512-BF16 tile, one at a time. */
LLM__TARGET_BEGIN("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c,avx512bf16,amx-tile,amx-bf16")

static void llm__mm_bf16_dot_amx(const llm__mm *m, int r0, int r1) {
    const size_t K = (size_t)m->n_in, P = (K + 1) / 2, L = llm__bf16_line(m->n_in), os = (size_t)m->n_out;
    __m512i panel[LLM__KC * 2];
    llm__tile_config c;
    size_t pb, p;
    int g, t, pc, lines;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    c.rows[0] = c.rows[2] = c.rows[4] = 16;
    c.colsb[0] = c.colsb[2] = c.colsb[4] = 64;
    LLM__TILE_BARRIER();
    LLM__TILE_CONFIG(&c);
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++) {
        const uint16_t *G = (const uint16_t *)m->w->data + (size_t)g * LLM__QG * K;
        float *out = m->out + (size_t)g * LLM__QG;
        for (pb = 0; pb < L; pb += LLM__KC) {
            lines = L - pb < LLM__KC ? (int)(L - pb) : LLM__KC;
            pc = P - pb < (size_t)lines ? (int)(P - pb) : lines; /* pb < P: L - P < 16 */
            for (p = 0; p < (size_t)lines; p++)
                panel[2 * p] = (int)p >= pc ? _mm512_setzero_si512()
                                        : llm__bf16_pair_avx512(G + 32 * (pb + p), 2 * (pb + p) + 1 < K ? G + 32 * (pb + p) + 16 : NULL);
            for (t = 0; t + 16 <= m->n_tok; t += 16) {
                LLM__TILE_BARRIER();
                if (pb == 0) LLM__TILE_ZERO(0);
                else LLM__TILE_LOADD(0, out + (size_t)t * os, os * 4);
                for (p = 0; p < (size_t)lines; p += 16) {
                    LLM__TILE_LOADD(2, m->xb + (size_t)t * L + pb + p, L * 4);
                    LLM__TILE_LOADD(4, panel + 2 * p, 128);
                    LLM__TILE_DPBF16PS(0, 2, 4);
                }
                LLM__TILE_STORED(0, out + (size_t)t * os, os * 4);
            }
            for (; t < m->n_tok; t++) llm__btile_avx512(panel, pc, m->xb + (size_t)t * L + pb, 1, 1, out + (size_t)t * os, os, pb == 0);
        }
    }
    LLM__TILE_RELEASE();
    llm__mm_w16_fma(m, r1 / LLM__QG * LLM__QG > r0 ? r1 / LLM__QG * LLM__QG : r0, r1);
}

LLM__TARGET_END
#define LLM__AMX_BF16_DOT llm__mm_bf16_dot_amx, 1
#else
#define LLM__AMX_BF16_DOT LLM__MM_BF16_DOT, 0
#endif

static const llm__kernels llm__kernels_amx = {
    { llm__mm_f32_avx512, llm__mm_f16_avx512, llm__mm_bf16_avx512, llm__mm_q8_0_amx, llm__mm_q4_0_amx, llm__mm_q4_k_amx,
      llm__mm_q5_k_amx, llm__mm_q6_k_amx },
    llm__scores_f32_avx512, llm__scores_f16_avx512, llm__values_f32_avx512, llm__values_f16_avx512, llm__softmax_avx512, llm__quantize_x_avx512, llm__swiglu_avx512, llm__geglu_avx512, LLM__XT, "avx512-amx", LLM__AMX_BF16_DOT
};
#endif
#endif

#if defined(LLM__AVX2)
/* -- AVX2 + FMA + F16C ------------------------------------------------------------------ */
LLM__TARGET_BEGIN("avx2,fma,f16c")
static float llm__hsum_avx2(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

static float llm__dot_f32_avx2(const float *a, const float *b, int n) {
    __m256 acc = _mm256_setzero_ps();
    float s;
    int i = 0;
    for (; i + 8 <= n; i += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
    s = llm__hsum_avx2(acc);
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

static float llm__dot_f16_avx2(const uint16_t *a, const float *b, int n) {
    __m256 acc = _mm256_setzero_ps();
    float s;
    int i = 0;
    for (; i + 8 <= n; i += 8)
        acc = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i))), _mm256_loadu_ps(b + i), acc);
    s = llm__hsum_avx2(acc);
    for (; i < n; i++) s += llm_f16_to_f32(a[i]) * b[i];
    return s;
}

static void llm__axpy_f32_avx2(float *y, float a, const float *x, int n) {
    __m256 av = _mm256_set1_ps(a);
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    for (; i < n; i++) y[i] += a * x[i];
}

static void llm__axpy_f16_avx2(float *y, float a, const uint16_t *x, int n) {
    __m256 av = _mm256_set1_ps(a);
    int i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i))), _mm256_loadu_ps(y + i)));
    for (; i < n; i++) y[i] += a * llm_f16_to_f32(x[i]);
}

/* llm__hsum16_avx512 for 8 registers: lane i, v[i]'s sum. */
LLM__INLINE __m256 llm__hsum8_avx2(const __m256 *v) {
    __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3])); /* rows 0-3: low, then high halves */
    __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(v[4], v[5]), _mm256_hadd_ps(v[6], v[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

/* llm__scores_avx512's scheme, 8 rows at a time; the columns past the last 8 are added to
   each row's sum one by one, as in the dot product. */
LLM__INLINE void llm__scores_avx2(const void *k, const float *q, int hd, int n, float scale, float *s, const int f16) {
    int t = 0, i, r, hd8 = hd / 8 * 8;
    for (; t + 8 <= n; t += 8) {
        __m256 acc[8];
        float sum[8];
        LLM__UNROLL for (r = 0; r < 8; r++) acc[r] = _mm256_setzero_ps();
        for (i = 0; i < hd8; i += 8) {
            __m256 qv = _mm256_loadu_ps(q + i);
            LLM__UNROLL for (r = 0; r < 8; r++) {
                size_t at = (size_t)(t + r) * (size_t)hd + (size_t)i;
                __m256 x = f16 ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)k + at))) : _mm256_loadu_ps((const float *)k + at);
                acc[r] = _mm256_fmadd_ps(x, qv, acc[r]);
            }
        }
        _mm256_storeu_ps(sum, llm__hsum8_avx2(acc));
        for (r = 0; r < 8; r++) {
            size_t row = (size_t)(t + r) * (size_t)hd;
            for (i = hd8; i < hd; i++) sum[r] += (f16 ? llm_f16_to_f32(((const uint16_t *)k)[row + (size_t)i]) : ((const float *)k)[row + (size_t)i]) * q[i];
            s[t + r] = sum[r] * scale;
        }
    }
    for (; t < n; t++)
        s[t] = (f16 ? llm__dot_f16_avx2((const uint16_t *)k + (size_t)t * (size_t)hd, q, hd) : llm__dot_f32_avx2((const float *)k + (size_t)t * (size_t)hd, q, hd)) * scale;
}

static void llm__scores_f32_avx2(const float *k, const float *q, int hd, int n, float scale, float *s) { llm__scores_avx2(k, q, hd, n, scale, s, 0); }
static void llm__scores_f16_avx2(const uint16_t *k, const float *q, int hd, int n, float scale, float *s) { llm__scores_avx2(k, q, hd, n, scale, s, 1); }

/* e^x as llm__exp_avx512. Without vscalefps, 2^n (n from -150 to 128) is applied as two
   normal powers of two, 2^(n >> 1) and then 2^(n - (n >> 1)): the first product is exact, the
   second rounds once, as vscalefps does (subnormal results included). */
LLM__INLINE __m256 llm__exp_avx2(__m256 x) {
    __m256 n, r, p;
    __m256i ni, a;
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.0f)), _mm256_set1_ps(89.0f));
    n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    p = _mm256_fmadd_ps(_mm256_set1_ps(1.0f / 5040), r, _mm256_set1_ps(1.0f / 720));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    ni = _mm256_cvtps_epi32(n);
    a = _mm256_srai_epi32(ni, 1);
    p = _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(127)), 23)));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, a), _mm256_set1_epi32(127)), 23)));
}

/* llm__softmax_avx512's, 8 scores at a time; the last n % 8 as the scalar set takes them. */
static void llm__softmax_avx2(float *x, int n) {
    __m256 mv = _mm256_set1_ps(x[0]), sv = _mm256_setzero_ps(), total;
    float mx, sum, lanes[8];
    int i, n8 = n / 8 * 8;
    for (i = 0; i < n8; i += 8) mv = _mm256_max_ps(mv, _mm256_loadu_ps(x + i));
    _mm256_storeu_ps(lanes, mv);
    for (mx = lanes[0], i = 1; i < 8; i++) mx = lanes[i] > mx ? lanes[i] : mx;
    for (i = n8; i < n; i++) mx = x[i] > mx ? x[i] : mx;
    for (i = 0; i < n8; i += 8) {
        __m256 e = llm__exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_set1_ps(mx)));
        _mm256_storeu_ps(x + i, e);
        sv = _mm256_add_ps(sv, e);
    }
    sum = llm__hsum_avx2(sv);
    for (i = n8; i < n; i++) { x[i] = expf(x[i] - mx); sum += x[i]; }
    total = _mm256_set1_ps(sum);
    for (i = 0; i < n8; i += 8) _mm256_storeu_ps(x + i, _mm256_div_ps(_mm256_loadu_ps(x + i), total));
    for (i = n8; i < n; i++) x[i] /= sum;
}

/* The gates, llm__swiglu_avx512's and llm__geglu_avx512's arithmetic 8 at a time (the same
   bits): the last n % 8 go through the same vector code from a padded copy, so a result does
   not depend on where a thread's rows begin. */
LLM__INLINE __m256 llm__gate_avx2(__m256 x, __m256 up, const int gelu) {
    __m256 e;
    if (gelu) {
        __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(LLM__GELU_KAPPA), x), _mm256_mul_ps(x, x));
        __m256 u = _mm256_mul_ps(_mm256_set1_ps(LLM__GELU_BETA), _mm256_add_ps(x, x3));
        e = llm__exp_avx2(_mm256_mul_ps(_mm256_set1_ps(-2.0f), u));
    } else {
        e = llm__exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), x));
    }
    return _mm256_mul_ps(_mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e)), up);
}

LLM__INLINE void llm__gates_avx2(float *gate, const float *up, int n, const int gelu) {
    float g[8] = { 0 }, u[8] = { 0 };
    int i, n8 = n / 8 * 8;
    for (i = 0; i < n8; i += 8) _mm256_storeu_ps(gate + i, llm__gate_avx2(_mm256_loadu_ps(gate + i), _mm256_loadu_ps(up + i), gelu));
    if (n8 == n) return;
    memcpy(g, gate + n8, (size_t)(n - n8) * 4);
    memcpy(u, up + n8, (size_t)(n - n8) * 4);
    _mm256_storeu_ps(g, llm__gate_avx2(_mm256_loadu_ps(g), _mm256_loadu_ps(u), gelu));
    memcpy(gate + n8, g, (size_t)(n - n8) * 4);
}

static void llm__swiglu_avx2(float *gate, const float *up, int n) { llm__gates_avx2(gate, up, n, 0); }
static void llm__geglu_avx2(float *gate, const float *up, int n) { llm__gates_avx2(gate, up, n, 1); }

/* llm__values_avx512's scheme, 32 columns in four registers. */
LLM__INLINE void llm__values_avx2(float *out, const float *p, const void *v, int hd, int n, const int f16) {
    int d = 0, t, j;
    for (; d + 32 <= hd; d += 32) {
        __m256 acc[4];
        LLM__UNROLL for (j = 0; j < 4; j++) acc[j] = _mm256_setzero_ps();
        for (t = 0; t < n; t++) {
            __m256 pt = _mm256_set1_ps(p[t]);
            size_t at = (size_t)t * (size_t)hd + (size_t)d;
            LLM__UNROLL for (j = 0; j < 4; j++) {
                __m256 x = f16 ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)v + at + 8 * j)))
                               : _mm256_loadu_ps((const float *)v + at + 8 * j);
                acc[j] = _mm256_fmadd_ps(pt, x, acc[j]);
            }
        }
        LLM__UNROLL for (j = 0; j < 4; j++) _mm256_storeu_ps(out + d + 8 * j, acc[j]);
    }
    if (d == hd) return;
    memset(out + d, 0, (size_t)(hd - d) * sizeof(float));
    for (t = 0; t < n; t++) {
        size_t at = (size_t)t * (size_t)hd + (size_t)d;
        if (f16) llm__axpy_f16_avx2(out + d, p[t], (const uint16_t *)v + at, hd - d);
        else llm__axpy_f32_avx2(out + d, p[t], (const float *)v + at, hd - d);
    }
}

static void llm__values_f32_avx2(float *out, const float *p, const float *v, int hd, int n) { llm__values_avx2(out, p, v, hd, n, 0); }
static void llm__values_f16_avx2(float *out, const float *p, const uint16_t *v, int hd, int n) { llm__values_avx2(out, p, v, hd, n, 1); }

LLM__INLINE void llm__ftile_avx2(const llm__mm *m, int r, int t0, const int nr, const int nt) {
    const float *W = (const float *)m->w->data;
    size_t K = (size_t)m->n_in, K8 = K / 8 * 8, k;
    __m256 acc[4][2], w[4];
    int i, j;
    LLM__UNROLL for (i = 0; i < nr; i++) LLM__UNROLL for (j = 0; j < nt; j++) acc[i][j] = _mm256_setzero_ps();
    for (k = 0; k < K8; k += 8) {
        LLM__UNROLL for (i = 0; i < nr; i++) w[i] = _mm256_loadu_ps(W + (size_t)(r + i) * K + k);
        LLM__UNROLL for (j = 0; j < nt; j++) {
            __m256 xv = _mm256_loadu_ps(m->x + (size_t)(t0 + j) * K + k);
            LLM__UNROLL for (i = 0; i < nr; i++) acc[i][j] = _mm256_fmadd_ps(w[i], xv, acc[i][j]);
        }
    }
    LLM__UNROLL for (i = 0; i < nr; i++) LLM__UNROLL for (j = 0; j < nt; j++) {
        float s = llm__hsum_avx2(acc[i][j]);
        for (k = K8; k < K; k++) s += W[(size_t)(r + i) * K + k] * m->x[(size_t)(t0 + j) * K + k];
        m->out[(size_t)(t0 + j) * (size_t)m->n_out + (size_t)(r + i)] = s;
    }
}

static void llm__mm_f32_avx2(const llm__mm *m, int r0, int r1) {
    int r = r0, t;
    for (; r + 4 <= r1; r += 4) {
        for (t = 0; t + 2 <= m->n_tok; t += 2) llm__ftile_avx2(m, r, t, 4, 2);
        for (; t < m->n_tok; t++) llm__ftile_avx2(m, r, t, 4, 1);
    }
    for (; r < r1; r++)
        for (t = 0; t < m->n_tok; t++) llm__ftile_avx2(m, r, t, 1, 1);
}

/* 16-bit weights: nt tokens x one group of 16 rows (two vectors), as llm__wtile_avx512. */
LLM__INLINE __m256 llm__w16_avx2(const uint16_t *p, const int bf16) {
    __m128i h = _mm_loadu_si128((const __m128i *)p);
    return bf16 ? _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)) : _mm256_cvtph_ps(h);
}

LLM__INLINE void llm__wtile_avx2(const llm__mm *m, const uint16_t *G, int t0, const int nt, float *out, const int bf16) {
    size_t K = (size_t)m->n_in, k, os = (size_t)m->n_out;
    const float *x = m->x + (size_t)t0 * K;
    __m256 acc[6][2], w0, w1;
    int j;
    LLM__UNROLL for (j = 0; j < nt; j++) acc[j][0] = acc[j][1] = _mm256_setzero_ps();
    for (k = 0; k < K; k++) {
        if (nt == 1 && k % 2 == 0) LLM__PREFETCH(G + 16 * k + 1024);
        w0 = llm__w16_avx2(G + 16 * k, bf16);
        w1 = llm__w16_avx2(G + 16 * k + 8, bf16);
        LLM__UNROLL for (j = 0; j < nt; j++) {
            __m256 xv = _mm256_set1_ps(x[(size_t)j * K + k]);
            acc[j][0] = _mm256_fmadd_ps(w0, xv, acc[j][0]);
            acc[j][1] = _mm256_fmadd_ps(w1, xv, acc[j][1]);
        }
    }
    LLM__UNROLL for (j = 0; j < nt; j++) {
        _mm256_storeu_ps(out + (size_t)(t0 + j) * os, acc[j][0]);
        _mm256_storeu_ps(out + (size_t)(t0 + j) * os + 8, acc[j][1]);
    }
}

LLM__INLINE void llm__mm_w16_avx2(const llm__mm *m, int r0, int r1, const int bf16) {
    int r = r0, t;
    for (; r + LLM__QG <= r1; r += LLM__QG) {
        const uint16_t *G = (const uint16_t *)m->w->data + (size_t)r * (size_t)m->n_in;
        for (t = 0; t + 6 <= m->n_tok; t += 6) llm__wtile_avx2(m, G, t, 6, m->out + r, bf16);
        for (; t + 2 <= m->n_tok; t += 2) llm__wtile_avx2(m, G, t, 2, m->out + r, bf16);
        for (; t < m->n_tok; t++) llm__wtile_avx2(m, G, t, 1, m->out + r, bf16);
    }
    llm__mm_w16_fma(m, r, r1);
}

static void llm__mm_f16_avx2(const llm__mm *m, int r0, int r1) { llm__mm_w16_avx2(m, r0, r1, 0); }
static void llm__mm_bf16_avx2(const llm__mm *m, int r0, int r1) { llm__mm_w16_avx2(m, r0, r1, 1); }

/* u8 x s8 dot products of 4 bytes per 32-bit lane, added to acc. maddubs saturates at 16
   bits: callers keep |u| x |s| x 2 below 32768 (q8_0 uses |w| and x with w's sign instead
   of an offset). */
LLM__INLINE __m256i llm__dp4_avx2(__m256i acc, __m256i u, __m256i s) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
}

/* Small unsigned codes let several products add up in 16 bits before they are widened: a
   whole block of 4-bit ones (q4_0: 8 x 2 x 15 x 128 = 30720), fewer of 5- and 6-bit ones
   (llm__ktile_avx2). The same sums as llm__dp4_avx2's with fewer instructions. */
LLM__INLINE __m256i llm__dp2_avx2(__m256i acc16, __m256i u, __m256i s) { return _mm256_add_epi16(acc16, _mm256_maddubs_epi16(u, s)); }
LLM__INLINE __m256i llm__widen_avx2(__m256i acc, __m256i acc16) { return _mm256_add_epi32(acc, _mm256_madd_epi16(acc16, _mm256_set1_epi16(1))); }

/* Half a group (8 rows, h = 0 or 1) x 4 tokens (one token: llm__qrow_avx2); the same scheme as
   the AVX-512 tile. */
LLM__INLINE void llm__qtile_avx2(const uint8_t *G, int nb, int h, const uint8_t *xq, size_t xs, const int q4, float *out, size_t os) {
    const int nt = 4;
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const int K = nb * LLM__QK;
    __m256 acc[4];
    __m256i ai[4];
    int t, b, j;
    LLM__UNROLL for (t = 0; t < nt; t++) acc[t] = _mm256_setzero_ps();
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes + 32 * h;
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 32 * (size_t)b + 16 * h)));
        LLM__UNROLL for (t = 0; t < nt; t++) ai[t] = _mm256_set1_epi32(q4 ? -8 * llm__xq_sum(xq + t * xs, K, b) : 0);
        if (q4) {
            __m256i s16[4];
            LLM__UNROLL for (t = 0; t < nt; t++) s16[t] = _mm256_setzero_si256();
            LLM__UNROLL for (j = 0; j < 4; j++) {
                __m256i v = _mm256_loadu_si256((const __m256i *)(Q + 64 * j));
                __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
                LLM__UNROLL for (t = 0; t < nt; t++) {
                    const uint8_t *xb = xq + t * xs + LLM__QK * b;
                    s16[t] = llm__dp2_avx2(s16[t], lo, _mm256_set1_epi32(llm__rd_i32(xb + 4 * j)));
                    s16[t] = llm__dp2_avx2(s16[t], hi, _mm256_set1_epi32(llm__rd_i32(xb + 16 + 4 * j)));
                }
            }
            LLM__UNROLL for (t = 0; t < nt; t++) ai[t] = llm__widen_avx2(ai[t], s16[t]);
        } else {
            LLM__UNROLL for (j = 0; j < 8; j++) {
                __m256i v = _mm256_loadu_si256((const __m256i *)(Q + 64 * j));
                __m256i u = _mm256_abs_epi8(v);
                LLM__UNROLL for (t = 0; t < nt; t++)
                    ai[t] = llm__dp4_avx2(ai[t], u, _mm256_sign_epi8(_mm256_set1_epi32(llm__rd_i32(xq + t * xs + LLM__QK * b + 4 * j)), v));
            }
        }
        LLM__UNROLL for (t = 0; t < nt; t++)
            acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(ai[t]), _mm256_mul_ps(dw, _mm256_set1_ps(llm__xq_scale(xq + t * xs, K, b))), acc[t]);
    }
    LLM__UNROLL for (t = 0; t < nt; t++) _mm256_storeu_ps(out + t * os + 8 * h, acc[t]);
}

/* One token, ng (1 or 2) groups G, G + gs, both halves of each in one pass: each 64-byte
   line of weights comes from memory once, two streams of weights are in flight (as in
   llm__qrow_avx512), and the activation bytes are broadcast once for all (each half's
   integer sum and scaling are the tile's: the same results). */
LLM__INLINE void llm__qrow_avx2(const uint8_t *G, size_t gs, const int ng, int nb, const uint8_t *xq, const int q4, const int pf, float *out) {
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const int K = nb * LLM__QK;
    __m256 acc[2][2];
    int b, j, g;
    LLM__UNROLL for (g = 0; g < ng; g++) acc[g][0] = acc[g][1] = _mm256_setzero_ps();
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes, *xb = xq + LLM__QK * b;
        const __m256 xs = _mm256_set1_ps(llm__xq_scale(xq, K, b));
        const __m256i offset = _mm256_set1_epi32(q4 ? -8 * llm__xq_sum(xq, K, b) : 0);
        __m256i a[2][2];
        LLM__UNROLL for (g = 0; g < ng; g++) {
            a[g][0] = a[g][1] = offset;
            if (pf) llm__prefetch_blocks(Q + g * gs, S + g * gs, b, qbytes);
        }
        if (q4) {
            __m256i s16[2][2];
            LLM__UNROLL for (g = 0; g < ng; g++) s16[g][0] = s16[g][1] = _mm256_setzero_si256();
            LLM__UNROLL for (j = 0; j < 4; j++) {
                __m256i xl = _mm256_set1_epi32(llm__rd_i32(xb + 4 * j)), xh = _mm256_set1_epi32(llm__rd_i32(xb + 16 + 4 * j));
                LLM__UNROLL for (g = 0; g < ng; g++) {
                    __m256i v = _mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j)), w = _mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j + 32));
                    s16[g][0] = llm__dp2_avx2(s16[g][0], _mm256_and_si256(v, m4), xl);
                    s16[g][0] = llm__dp2_avx2(s16[g][0], _mm256_and_si256(_mm256_srli_epi16(v, 4), m4), xh);
                    s16[g][1] = llm__dp2_avx2(s16[g][1], _mm256_and_si256(w, m4), xl);
                    s16[g][1] = llm__dp2_avx2(s16[g][1], _mm256_and_si256(_mm256_srli_epi16(w, 4), m4), xh);
                }
            }
            LLM__UNROLL for (g = 0; g < ng; g++) {
                a[g][0] = llm__widen_avx2(a[g][0], s16[g][0]);
                a[g][1] = llm__widen_avx2(a[g][1], s16[g][1]);
            }
        } else {
            LLM__UNROLL for (j = 0; j < 8; j++) {
                __m256i xv = _mm256_set1_epi32(llm__rd_i32(xb + 4 * j));
                LLM__UNROLL for (g = 0; g < ng; g++) {
                    __m256i v = _mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j)), w = _mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j + 32));
                    a[g][0] = llm__dp4_avx2(a[g][0], _mm256_abs_epi8(v), _mm256_sign_epi8(xv, v));
                    a[g][1] = llm__dp4_avx2(a[g][1], _mm256_abs_epi8(w), _mm256_sign_epi8(xv, w));
                }
            }
        }
        LLM__UNROLL for (g = 0; g < ng; g++) {
            __m256 dw0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + g * gs + 32 * (size_t)b)));
            __m256 dw1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + g * gs + 32 * (size_t)b + 16)));
            acc[g][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[g][0]), _mm256_mul_ps(dw0, xs), acc[g][0]);
            acc[g][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[g][1]), _mm256_mul_ps(dw1, xs), acc[g][1]);
        }
    }
    LLM__UNROLL for (g = 0; g < ng; g++) {
        _mm256_storeu_ps(out + g * LLM__QG, acc[g][0]);
        _mm256_storeu_ps(out + g * LLM__QG + 8, acc[g][1]);
    }
}

LLM__INLINE void llm__mm_quant_avx2(const llm__mm *m, int r0, int r1, const int q4) {
    int nb = m->n_in / LLM__QK, g, t, h;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(m->w->dtype, m->n_in), os = (size_t)m->n_out;
    const uint8_t *W = (const uint8_t *)m->w->data;
    g = r0 / LLM__QG;
    if (m->n_tok == 1) { /* bound by memory: groups in pairs */
        for (; g + 2 <= r1 / LLM__QG; g += 2) llm__qrow_avx2(W + (size_t)g * gbytes, gbytes, 2, nb, m->xq, q4, m->prefetch, m->out + (size_t)g * LLM__QG);
        for (; g < r1 / LLM__QG; g++) llm__qrow_avx2(W + (size_t)g * gbytes, gbytes, 1, nb, m->xq, q4, m->prefetch, m->out + (size_t)g * LLM__QG);
        return;
    }
    for (; g < r1 / LLM__QG; g++) {
        const uint8_t *G = W + (size_t)g * gbytes;
        float *out = m->out + (size_t)g * LLM__QG;
        for (h = 0; h < 2; h++)
            for (t = 0; t + 4 <= m->n_tok; t += 4) llm__qtile_avx2(G, nb, h, m->xq + t * m->xq_stride, m->xq_stride, q4, out + t * os, os);
        for (t = m->n_tok / 4 * 4; t < m->n_tok; t++) llm__qrow_avx2(G, 0, 1, nb, m->xq + t * m->xq_stride, q4, 0, out + t * os);
    }
}

static void llm__mm_q8_0_avx2(const llm__mm *m, int r0, int r1) { llm__mm_quant_avx2(m, r0, r1, 0); }

static void llm__quantize_x_avx2(const float *x, int n, uint8_t *out) {
    int nb = n / LLM__QK, b, i;
    const __m256i mag = _mm256_set1_epi32(0x7FFFFFFF);
    for (b = 0; b < nb; b++) {
        __m256 v[4];
        __m256i q[4], s, mx;
        __m128i m4;
        uint32_t bits;
        float amax, d, id;
        int32_t sum;
        for (i = 0; i < 4; i++) v[i] = _mm256_loadu_ps(x + b * LLM__QK + 8 * i);
        for (i = 0; i < 4; i++) q[i] = _mm256_and_si256(_mm256_castps_si256(v[i]), mag);
        mx = _mm256_max_epu32(_mm256_max_epu32(q[0], q[1]), _mm256_max_epu32(q[2], q[3]));
        m4 = _mm_max_epu32(_mm256_castsi256_si128(mx), _mm256_extracti128_si256(mx, 1));
        m4 = _mm_max_epu32(m4, _mm_shuffle_epi32(m4, 0x4E));
        m4 = _mm_max_epu32(m4, _mm_shuffle_epi32(m4, 0xB1));
        bits = (uint32_t)_mm_cvtsi128_si32(m4);
        if (bits >= LLM__XQ_NONFINITE) { llm__quantize_x_nonfinite(out, n, b); continue; }
        memcpy(&amax, &bits, 4);
        d = amax / 127.0f;
        id = d >= FLT_MIN ? 1.0f / d : 0.0f;
        for (i = 0; i < 4; i++) q[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], _mm256_set1_ps(id)));
        s = _mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3]));
        s = _mm256_hadd_epi32(s, s);
        s = _mm256_hadd_epi32(s, s);
        sum = _mm256_extract_epi32(s, 0) + _mm256_extract_epi32(s, 4);
        /* packs interleave 128-bit lanes; the permute restores the order */
        q[0] = _mm256_packs_epi32(q[0], q[1]);
        q[2] = _mm256_packs_epi32(q[2], q[3]);
        q[0] = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(q[0], q[2]), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *)(out + b * LLM__QK), q[0]);
        memcpy(out + n + 4 * (size_t)b, &d, 4);
        memcpy(out + n + 4 * (size_t)(nb + b), &sum, 4);
    }
}
static void llm__mm_q4_0_avx2(const llm__mm *m, int r0, int r1) { llm__mm_quant_avx2(m, r0, r1, 1); }

/* k-quants: half a group (8 rows, h = 0 or 1) x nt tokens (up to 2), as llm__ktile_avx512. */
/* llm__xq_half_sum with one psadbw, as llm__xq_half_sum_avx512. */
LLM__INLINE int32_t llm__xq_half_sum_avx2(const uint8_t *xb) {
    __m128i s = _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)xb), _mm_set1_epi8((char)0x80)), _mm_setzero_si128());
    return _mm_cvtsi128_si32(s) + _mm_extract_epi16(s, 4) - 16 * 128;
}

LLM__INLINE __m256i llm__shift_epi16_avx2(__m256i v, const int left) {
    return left > 0 ? _mm256_slli_epi16(v, left) : left < 0 ? _mm256_srli_epi16(v, -left) : v;
}

/* The 8 codes registers of block j of a super-block, rows 8h .. 8h+7. */
LLM__INLINE void llm__kcodes_avx2(const uint8_t *SB, const uint8_t *H, int j, int h, const llm_dtype dt, __m256i *lo, __m256i *hi) {
    const __m256i m4 = _mm256_set1_epi8(0x0F), m10 = _mm256_set1_epi8(0x10), m30 = _mm256_set1_epi8(0x30);
    int i;
    LLM__UNROLL for (i = 0; i < 4; i++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(SB + 256 * j + 64 * i + 32 * h));
        lo[i] = _mm256_and_si256(v, m4);
        hi[i] = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
    }
    if (dt == LLM_DTYPE_Q5_K) {
        __m256i b = _mm256_loadu_si256((const __m256i *)(H + 64 * j + 32 * h));
        LLM__UNROLL for (i = 0; i < 4; i++) {
            lo[i] = _mm256_or_si256(lo[i], _mm256_and_si256(llm__shift_epi16_avx2(b, 4 - i), m10));
            hi[i] = _mm256_or_si256(hi[i], _mm256_and_si256(llm__shift_epi16_avx2(b, -i), m10));
        }
    } else if (dt == LLM_DTYPE_Q6_K) {
        __m256i b0 = _mm256_loadu_si256((const __m256i *)(H + 128 * j + 32 * h));
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(H + 128 * j + 64 + 32 * h));
        LLM__UNROLL for (i = 0; i < 4; i++) {
            lo[i] = _mm256_or_si256(lo[i], _mm256_and_si256(llm__shift_epi16_avx2(b0, 4 - 2 * i), m30));
            hi[i] = _mm256_or_si256(hi[i], _mm256_and_si256(llm__shift_epi16_avx2(b1, 4 - 2 * i), m30));
        }
    }
}

/* Block j's scale vectors for rows 8h .. 8h+7: q6_k d sc of its two sub-blocks; q4_k, q5_k
   d sc and dmin m. */
LLM__INLINE void llm__kscales_avx2(const uint8_t *S, int j, int h, const llm_dtype dt, __m256 d, __m256 dmin, __m256 *dsa, __m256 *dsb) {
    const __m128i c3 = _mm_set1_epi8(3), c15 = _mm_set1_epi8(15);
    if (dt == LLM_DTYPE_Q6_K) {
        *dsa = _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(S + 32 * j + 8 * h)))));
        *dsb = _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(S + 32 * j + 16 + 8 * h)))));
    } else {
        __m128i l8 = _mm_loadl_epi64((const __m128i *)(S + 16 * j + 8 * h));
        __m128i h8 = _mm_srli_epi16(_mm_loadl_epi64((const __m128i *)(S + 128 + 16 * (j / 2) + 8 * h)), 4 * (j % 2));
        __m128i sc = _mm_or_si128(_mm_and_si128(l8, c15), _mm_slli_epi16(_mm_and_si128(h8, c3), 4));
        __m128i mn = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(l8, 4), c15), _mm_slli_epi16(_mm_and_si128(_mm_srli_epi16(h8, 2), c3), 4));
        *dsa = _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sc)));
        *dsb = _mm256_mul_ps(dmin, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(mn)));
    }
}

LLM__INLINE void llm__ktile_avx2(const uint8_t *G, int K, int h, const uint8_t *xq, size_t xs, const int nt, const llm_dtype dt,
                                 float *out, size_t os) {
    const size_t sbytes = LLM__QG * llm__kq_block_bytes(dt, 8);
    const int q6 = dt == LLM_DTYPE_Q6_K;
    __m256 acc[2], d, dmin = _mm256_setzero_ps();
    int t, s, j, i;
    LLM__UNROLL for (t = 0; t < nt; t++) acc[t] = _mm256_setzero_ps();
    for (s = 0; s * LLM__QKK < K; s++) {
        const int ns = llm__kq_subs(K, s);
        const uint8_t *SB = G + (size_t)s * sbytes, *S = SB + llm__kq_scales_at(dt, ns), *H = SB + llm__kq_hi_at(ns);
        if (q6) d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 256 + 16 * h)));
        else {
            d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 192 + 16 * h)));
            dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 224 + 16 * h)));
        }
        for (j = 0; j < ns; j++) {
            const int b = 8 * s + j;
            __m256i lo[4], hi[4];
            __m256 dsa, dsb;
            if (nt == 1 && h == 0)
                for (i = 0; i < (int)sbytes / 8; i += 64) LLM__PREFETCH(SB + 2 * sbytes + (size_t)j * sbytes / 8 + (size_t)i);
            llm__kcodes_avx2(SB, H, j, h, dt, lo, hi);
            llm__kscales_avx2(S, j, h, dt, d, dmin, &dsa, &dsb);
            LLM__UNROLL for (t = 0; t < nt; t++) {
                const uint8_t *xt = xq + t * xs, *xb = xt + LLM__QK * b;
                const int32_t xsum = llm__xq_sum(xt, K, b), xsa = q6 ? llm__xq_half_sum_avx2(xb) : 0;
                const float dx = llm__xq_scale(xt, K, b);
                __m256i a0 = _mm256_set1_epi32(-32 * xsa), a1 = _mm256_set1_epi32(q6 ? -32 * (xsum - xsa) : 0);
                __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
                /* 16-bit sums of four vpmaddubsw results (pairs of products) of codes of up to
                   5 bits (4 x 2 x 31 x 128 = 31744), of two of q6_k's 6-bit ones (2 x 2 x 63 x
                   128 = 32256), widened after them */
                LLM__UNROLL for (i = 0; i < 4; i++) {
                    s0 = llm__dp2_avx2(s0, lo[i], _mm256_set1_epi32(llm__rd_i32(xb + 4 * i)));
                    s1 = llm__dp2_avx2(s1, hi[i], _mm256_set1_epi32(llm__rd_i32(xb + 16 + 4 * i)));
                    if (i == 3 || (q6 && i == 1)) {
                        a0 = llm__widen_avx2(a0, s0); a1 = llm__widen_avx2(a1, s1);
                        s0 = s1 = _mm256_setzero_si256();
                    }
                }
                if (q6) {
                    acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a0), _mm256_mul_ps(dsa, _mm256_set1_ps(dx)), acc[t]);
                    acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a1), _mm256_mul_ps(dsb, _mm256_set1_ps(dx)), acc[t]);
                } else {
                    acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(a0, a1)), _mm256_mul_ps(dsa, _mm256_set1_ps(dx)), acc[t]);
                    acc[t] = _mm256_fnmadd_ps(dsb, _mm256_set1_ps((float)xsum * dx), acc[t]);
                }
            }
        }
    }
    LLM__UNROLL for (t = 0; t < nt; t++) _mm256_storeu_ps(out + t * os + 8 * h, acc[t]);
}

LLM__INLINE void llm__mm_kquant_avx2(const llm__mm *m, int r0, int r1, const llm_dtype dt) {
    int K = m->n_in, g, t, h;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(dt, m->n_in), os = (size_t)m->n_out;
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++)
        for (h = 0; h < 2; h++) {
            const uint8_t *G = (const uint8_t *)m->w->data + (size_t)g * gbytes;
            float *out = m->out + (size_t)g * LLM__QG;
            for (t = 0; t + 2 <= m->n_tok; t += 2) llm__ktile_avx2(G, K, h, m->xq + t * m->xq_stride, m->xq_stride, 2, dt, out + t * os, os);
            for (; t < m->n_tok; t++) llm__ktile_avx2(G, K, h, m->xq + t * m->xq_stride, m->xq_stride, 1, dt, out + t * os, os);
        }
}

static void llm__mm_q4_k_avx2(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avx2(m, r0, r1, LLM_DTYPE_Q4_K); }
static void llm__mm_q5_k_avx2(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avx2(m, r0, r1, LLM_DTYPE_Q5_K); }
static void llm__mm_q6_k_avx2(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avx2(m, r0, r1, LLM_DTYPE_Q6_K); }

LLM__TARGET_END

static const llm__kernels llm__kernels_avx2 = {
    { llm__mm_f32_avx2, llm__mm_f16_avx2, llm__mm_bf16_avx2, llm__mm_q8_0_avx2, llm__mm_q4_0_avx2, llm__mm_q4_k_avx2, llm__mm_q5_k_avx2,
      llm__mm_q6_k_avx2 },
    llm__scores_f32_avx2, llm__scores_f16_avx2, llm__values_f32_avx2, llm__values_f16_avx2, llm__softmax_avx2, llm__quantize_x_avx2, llm__swiglu_avx2, llm__geglu_avx2, 0, "avx2", NULL, 0
};
#endif

#if defined(LLM__AVX2_VNNI)
/* -- AVX-VNNI: the AVX2 set with vpdpbusd for the quantized products ----------------------- */
LLM__TARGET_BEGIN("avx2,fma,f16c,avxvnni")
/* llm__qtile_avx2 with one instruction per dot product: q8_0 codes are made unsigned by
   flipping the sign bit, as in the AVX-512 tile (integer sums: the same results). */
LLM__INLINE void llm__qtile_avxvnni(const uint8_t *G, int nb, int h, const uint8_t *xq, size_t xs, const int q4, float *out, size_t os) {
    const int nt = 4;
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const __m256i m4 = _mm256_set1_epi8(0x0F), flip = _mm256_set1_epi8((char)0x80);
    const int K = nb * LLM__QK;
    __m256 acc[4];
    __m256i ai[4];
    int t, b, j;
    LLM__UNROLL for (t = 0; t < nt; t++) acc[t] = _mm256_setzero_ps();
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes + 32 * h;
        __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 32 * (size_t)b + 16 * h)));
        LLM__UNROLL for (t = 0; t < nt; t++) ai[t] = _mm256_set1_epi32(-(q4 ? 8 : 128) * llm__xq_sum(xq + t * xs, K, b));
        if (q4) {
            LLM__UNROLL for (j = 0; j < 4; j++) {
                __m256i v = _mm256_loadu_si256((const __m256i *)(Q + 64 * j));
                __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
                LLM__UNROLL for (t = 0; t < nt; t++) {
                    const uint8_t *xb = xq + t * xs + LLM__QK * b;
                    ai[t] = _mm256_dpbusd_avx_epi32(ai[t], lo, _mm256_set1_epi32(llm__rd_i32(xb + 4 * j)));
                    ai[t] = _mm256_dpbusd_avx_epi32(ai[t], hi, _mm256_set1_epi32(llm__rd_i32(xb + 16 + 4 * j)));
                }
            }
        } else {
            LLM__UNROLL for (j = 0; j < 8; j++) {
                __m256i u = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(Q + 64 * j)), flip);
                LLM__UNROLL for (t = 0; t < nt; t++)
                    ai[t] = _mm256_dpbusd_avx_epi32(ai[t], u, _mm256_set1_epi32(llm__rd_i32(xq + t * xs + LLM__QK * b + 4 * j)));
            }
        }
        LLM__UNROLL for (t = 0; t < nt; t++)
            acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(ai[t]), _mm256_mul_ps(dw, _mm256_set1_ps(llm__xq_scale(xq + t * xs, K, b))), acc[t]);
    }
    LLM__UNROLL for (t = 0; t < nt; t++) _mm256_storeu_ps(out + t * os + 8 * h, acc[t]);
}

/* llm__qrow_avx2 with vpdpbusd, the codes offset as in the tile. */
LLM__INLINE void llm__qrow_avxvnni(const uint8_t *G, size_t gs, const int ng, int nb, const uint8_t *xq, const int q4, const int pf, float *out) {
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const __m256i m4 = _mm256_set1_epi8(0x0F), flip = _mm256_set1_epi8((char)0x80);
    const int K = nb * LLM__QK;
    __m256 acc[2][2];
    int b, j, g;
    LLM__UNROLL for (g = 0; g < ng; g++) acc[g][0] = acc[g][1] = _mm256_setzero_ps();
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes, *xb = xq + LLM__QK * b;
        const __m256 xs = _mm256_set1_ps(llm__xq_scale(xq, K, b));
        const __m256i offset = _mm256_set1_epi32(-(q4 ? 8 : 128) * llm__xq_sum(xq, K, b));
        __m256i a[2][2];
        LLM__UNROLL for (g = 0; g < ng; g++) {
            a[g][0] = a[g][1] = offset;
            if (pf) llm__prefetch_blocks(Q + g * gs, S + g * gs, b, qbytes);
        }
        if (q4) {
            LLM__UNROLL for (j = 0; j < 4; j++) {
                __m256i xl = _mm256_set1_epi32(llm__rd_i32(xb + 4 * j)), xh = _mm256_set1_epi32(llm__rd_i32(xb + 16 + 4 * j));
                LLM__UNROLL for (g = 0; g < ng; g++) {
                    __m256i v = _mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j)), w = _mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j + 32));
                    a[g][0] = _mm256_dpbusd_avx_epi32(a[g][0], _mm256_and_si256(v, m4), xl);
                    a[g][0] = _mm256_dpbusd_avx_epi32(a[g][0], _mm256_and_si256(_mm256_srli_epi16(v, 4), m4), xh);
                    a[g][1] = _mm256_dpbusd_avx_epi32(a[g][1], _mm256_and_si256(w, m4), xl);
                    a[g][1] = _mm256_dpbusd_avx_epi32(a[g][1], _mm256_and_si256(_mm256_srli_epi16(w, 4), m4), xh);
                }
            }
        } else {
            LLM__UNROLL for (j = 0; j < 8; j++) {
                __m256i xv = _mm256_set1_epi32(llm__rd_i32(xb + 4 * j));
                LLM__UNROLL for (g = 0; g < ng; g++) {
                    a[g][0] = _mm256_dpbusd_avx_epi32(a[g][0], _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j)), flip), xv);
                    a[g][1] = _mm256_dpbusd_avx_epi32(a[g][1], _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(Q + g * gs + 64 * j + 32)), flip), xv);
                }
            }
        }
        LLM__UNROLL for (g = 0; g < ng; g++) {
            __m256 dw0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + g * gs + 32 * (size_t)b)));
            __m256 dw1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + g * gs + 32 * (size_t)b + 16)));
            acc[g][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[g][0]), _mm256_mul_ps(dw0, xs), acc[g][0]);
            acc[g][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[g][1]), _mm256_mul_ps(dw1, xs), acc[g][1]);
        }
    }
    LLM__UNROLL for (g = 0; g < ng; g++) {
        _mm256_storeu_ps(out + g * LLM__QG, acc[g][0]);
        _mm256_storeu_ps(out + g * LLM__QG + 8, acc[g][1]);
    }
}

LLM__INLINE void llm__mm_quant_avxvnni(const llm__mm *m, int r0, int r1, const int q4) {
    int nb = m->n_in / LLM__QK, g, t, h;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(m->w->dtype, m->n_in), os = (size_t)m->n_out;
    const uint8_t *W = (const uint8_t *)m->w->data;
    g = r0 / LLM__QG;
    if (m->n_tok == 1) { /* bound by memory: groups in pairs */
        for (; g + 2 <= r1 / LLM__QG; g += 2) llm__qrow_avxvnni(W + (size_t)g * gbytes, gbytes, 2, nb, m->xq, q4, m->prefetch, m->out + (size_t)g * LLM__QG);
        for (; g < r1 / LLM__QG; g++) llm__qrow_avxvnni(W + (size_t)g * gbytes, gbytes, 1, nb, m->xq, q4, m->prefetch, m->out + (size_t)g * LLM__QG);
        return;
    }
    for (; g < r1 / LLM__QG; g++) {
        const uint8_t *G = W + (size_t)g * gbytes;
        float *out = m->out + (size_t)g * LLM__QG;
        for (h = 0; h < 2; h++)
            for (t = 0; t + 4 <= m->n_tok; t += 4) llm__qtile_avxvnni(G, nb, h, m->xq + t * m->xq_stride, m->xq_stride, q4, out + t * os, os);
        for (t = m->n_tok / 4 * 4; t < m->n_tok; t++) llm__qrow_avxvnni(G, 0, 1, nb, m->xq + t * m->xq_stride, q4, 0, out + t * os);
    }
}

static void llm__mm_q8_0_avxvnni(const llm__mm *m, int r0, int r1) { llm__mm_quant_avxvnni(m, r0, r1, 0); }
static void llm__mm_q4_0_avxvnni(const llm__mm *m, int r0, int r1) { llm__mm_quant_avxvnni(m, r0, r1, 1); }

/* k-quants: llm__ktile_avx2 with vpdpbusd (the codes are unsigned bytes already). */
LLM__INLINE void llm__ktile_avxvnni(const uint8_t *G, int K, int h, const uint8_t *xq, size_t xs, const int nt, const llm_dtype dt,
                                    float *out, size_t os) {
    const size_t sbytes = LLM__QG * llm__kq_block_bytes(dt, 8);
    const int q6 = dt == LLM_DTYPE_Q6_K;
    __m256 acc[2], d, dmin = _mm256_setzero_ps();
    int t, s, j, i;
    LLM__UNROLL for (t = 0; t < nt; t++) acc[t] = _mm256_setzero_ps();
    for (s = 0; s * LLM__QKK < K; s++) {
        const int ns = llm__kq_subs(K, s);
        const uint8_t *SB = G + (size_t)s * sbytes, *S = SB + llm__kq_scales_at(dt, ns), *H = SB + llm__kq_hi_at(ns);
        if (q6) d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 256 + 16 * h)));
        else {
            d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 192 + 16 * h)));
            dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(S + 224 + 16 * h)));
        }
        for (j = 0; j < ns; j++) {
            const int b = 8 * s + j;
            __m256i lo[4], hi[4];
            __m256 dsa, dsb;
            if (nt == 1 && h == 0)
                for (i = 0; i < (int)sbytes / 8; i += 64) LLM__PREFETCH(SB + 2 * sbytes + (size_t)j * sbytes / 8 + (size_t)i);
            llm__kcodes_avx2(SB, H, j, h, dt, lo, hi);
            llm__kscales_avx2(S, j, h, dt, d, dmin, &dsa, &dsb);
            LLM__UNROLL for (t = 0; t < nt; t++) {
                const uint8_t *xt = xq + t * xs, *xb = xt + LLM__QK * b;
                const int32_t xsum = llm__xq_sum(xt, K, b), xsa = q6 ? llm__xq_half_sum_avx2(xb) : 0;
                const float dx = llm__xq_scale(xt, K, b);
                __m256i a0 = _mm256_set1_epi32(-32 * xsa), a1 = _mm256_set1_epi32(q6 ? -32 * (xsum - xsa) : 0);
                LLM__UNROLL for (i = 0; i < 4; i++) {
                    a0 = _mm256_dpbusd_avx_epi32(a0, lo[i], _mm256_set1_epi32(llm__rd_i32(xb + 4 * i)));
                    a1 = _mm256_dpbusd_avx_epi32(a1, hi[i], _mm256_set1_epi32(llm__rd_i32(xb + 16 + 4 * i)));
                }
                if (q6) {
                    acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a0), _mm256_mul_ps(dsa, _mm256_set1_ps(dx)), acc[t]);
                    acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a1), _mm256_mul_ps(dsb, _mm256_set1_ps(dx)), acc[t]);
                } else {
                    acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(a0, a1)), _mm256_mul_ps(dsa, _mm256_set1_ps(dx)), acc[t]);
                    acc[t] = _mm256_fnmadd_ps(dsb, _mm256_set1_ps((float)xsum * dx), acc[t]);
                }
            }
        }
    }
    LLM__UNROLL for (t = 0; t < nt; t++) _mm256_storeu_ps(out + t * os + 8 * h, acc[t]);
}

LLM__INLINE void llm__mm_kquant_avxvnni(const llm__mm *m, int r0, int r1, const llm_dtype dt) {
    int K = m->n_in, g, t, h;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(dt, m->n_in), os = (size_t)m->n_out;
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++)
        for (h = 0; h < 2; h++) {
            const uint8_t *G = (const uint8_t *)m->w->data + (size_t)g * gbytes;
            float *out = m->out + (size_t)g * LLM__QG;
            for (t = 0; t + 2 <= m->n_tok; t += 2) llm__ktile_avxvnni(G, K, h, m->xq + t * m->xq_stride, m->xq_stride, 2, dt, out + t * os, os);
            for (; t < m->n_tok; t++) llm__ktile_avxvnni(G, K, h, m->xq + t * m->xq_stride, m->xq_stride, 1, dt, out + t * os, os);
        }
}

static void llm__mm_q4_k_avxvnni(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avxvnni(m, r0, r1, LLM_DTYPE_Q4_K); }
static void llm__mm_q5_k_avxvnni(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avxvnni(m, r0, r1, LLM_DTYPE_Q5_K); }
static void llm__mm_q6_k_avxvnni(const llm__mm *m, int r0, int r1) { llm__mm_kquant_avxvnni(m, r0, r1, LLM_DTYPE_Q6_K); }
LLM__TARGET_END

static const llm__kernels llm__kernels_avx2_vnni = {
    { llm__mm_f32_avx2, llm__mm_f16_avx2, llm__mm_bf16_avx2, llm__mm_q8_0_avxvnni, llm__mm_q4_0_avxvnni, llm__mm_q4_k_avxvnni,
      llm__mm_q5_k_avxvnni, llm__mm_q6_k_avxvnni },
    llm__scores_f32_avx2, llm__scores_f16_avx2, llm__values_f32_avx2, llm__values_f16_avx2, llm__softmax_avx2, llm__quantize_x_avx2, llm__swiglu_avx2, llm__geglu_avx2, 0, "avx2-vnni", NULL, 0
};
#endif

#if defined(LLM__NEON)
/* -- NEON (with the dot product extension where present) -------------------------------- */
LLM__INLINE float32x4_t llm__f16x4_neon(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }

static float llm__dot_f32_neon(const float *a, const float *b, int n) {
    float32x4_t acc = vdupq_n_f32(0.0f);
    float s;
    int i = 0;
    for (; i + 4 <= n; i += 4) acc = vfmaq_f32(acc, vld1q_f32(a + i), vld1q_f32(b + i));
    s = vaddvq_f32(acc);
    for (; i < n; i++) s += a[i] * b[i];
    return s;
}

static float llm__dot_f16_neon(const uint16_t *a, const float *b, int n) {
    float32x4_t acc = vdupq_n_f32(0.0f);
    float s;
    int i = 0;
    for (; i + 4 <= n; i += 4) acc = vfmaq_f32(acc, llm__f16x4_neon(a + i), vld1q_f32(b + i));
    s = vaddvq_f32(acc);
    for (; i < n; i++) s += llm_f16_to_f32(a[i]) * b[i];
    return s;
}

static void llm__axpy_f32_neon(float *y, float a, const float *x, int n) {
    int i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_n_f32(vld1q_f32(y + i), vld1q_f32(x + i), a));
    for (; i < n; i++) y[i] += a * x[i];
}

static void llm__axpy_f16_neon(float *y, float a, const uint16_t *x, int n) {
    int i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_n_f32(vld1q_f32(y + i), llm__f16x4_neon(x + i), a));
    for (; i < n; i++) y[i] += a * llm_f16_to_f32(x[i]);
}

LLM__ATTENTION_ROWS(neon)

LLM__INLINE void llm__ftile_neon(const llm__mm *m, int r, int t0, const int nr, const int nt) {
    const float *W = (const float *)m->w->data;
    size_t K = (size_t)m->n_in, K4 = K / 4 * 4, k;
    float32x4_t acc[4][4], w[4];
    int i, j;
    LLM__UNROLL for (i = 0; i < nr; i++) LLM__UNROLL for (j = 0; j < nt; j++) acc[i][j] = vdupq_n_f32(0.0f);
    for (k = 0; k < K4; k += 4) {
        LLM__UNROLL for (i = 0; i < nr; i++) w[i] = vld1q_f32(W + (size_t)(r + i) * K + k);
        LLM__UNROLL for (j = 0; j < nt; j++) {
            float32x4_t xv = vld1q_f32(m->x + (size_t)(t0 + j) * K + k);
            LLM__UNROLL for (i = 0; i < nr; i++) acc[i][j] = vfmaq_f32(acc[i][j], w[i], xv);
        }
    }
    LLM__UNROLL for (i = 0; i < nr; i++) LLM__UNROLL for (j = 0; j < nt; j++) {
        float s = vaddvq_f32(acc[i][j]);
        for (k = K4; k < K; k++) s += W[(size_t)(r + i) * K + k] * m->x[(size_t)(t0 + j) * K + k];
        m->out[(size_t)(t0 + j) * (size_t)m->n_out + (size_t)(r + i)] = s;
    }
}

static void llm__mm_f32_neon(const llm__mm *m, int r0, int r1) {
    int r = r0, t;
    for (; r + 4 <= r1; r += 4) {
        for (t = 0; t + 4 <= m->n_tok; t += 4) llm__ftile_neon(m, r, t, 4, 4);
        for (; t < m->n_tok; t++) llm__ftile_neon(m, r, t, 4, 1);
    }
    for (; r < r1; r++)
        for (t = 0; t < m->n_tok; t++) llm__ftile_neon(m, r, t, 1, 1);
}

/* 16-bit weights: nt tokens x one group of 16 rows (four vectors), as llm__wtile_avx512. */
LLM__INLINE float32x4_t llm__w16_neon(const uint16_t *p, const int bf16) {
    return bf16 ? vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)) : llm__f16x4_neon(p);
}

LLM__INLINE void llm__wtile_neon(const llm__mm *m, const uint16_t *G, int t0, const int nt, float *out, const int bf16) {
    size_t K = (size_t)m->n_in, k, os = (size_t)m->n_out;
    const float *x = m->x + (size_t)t0 * K;
    float32x4_t acc[4][4], w[4];
    int i, j;
    LLM__UNROLL for (j = 0; j < nt; j++) LLM__UNROLL for (i = 0; i < 4; i++) acc[j][i] = vdupq_n_f32(0.0f);
    for (k = 0; k < K; k++) {
        LLM__UNROLL for (i = 0; i < 4; i++) w[i] = llm__w16_neon(G + 16 * k + 4 * i, bf16);
        LLM__UNROLL for (j = 0; j < nt; j++) {
            float xv = x[(size_t)j * K + k];
            LLM__UNROLL for (i = 0; i < 4; i++) acc[j][i] = vfmaq_n_f32(acc[j][i], w[i], xv);
        }
    }
    LLM__UNROLL for (j = 0; j < nt; j++) LLM__UNROLL for (i = 0; i < 4; i++) vst1q_f32(out + (size_t)(t0 + j) * os + 4 * i, acc[j][i]);
}

LLM__INLINE void llm__mm_w16_neon(const llm__mm *m, int r0, int r1, const int bf16) {
    int r = r0, t;
    for (; r + LLM__QG <= r1; r += LLM__QG) {
        const uint16_t *G = (const uint16_t *)m->w->data + (size_t)r * (size_t)m->n_in;
        for (t = 0; t + 4 <= m->n_tok; t += 4) llm__wtile_neon(m, G, t, 4, m->out + r, bf16);
        for (; t < m->n_tok; t++) llm__wtile_neon(m, G, t, 1, m->out + r, bf16);
    }
    llm__mm_w16_fma(m, r, r1);
}

static void llm__mm_f16_neon(const llm__mm *m, int r0, int r1) { llm__mm_w16_neon(m, r0, r1, 0); }
static void llm__mm_bf16_neon(const llm__mm *m, int r0, int r1) { llm__mm_w16_neon(m, r0, r1, 1); }

/* acc[lane] += dot(4 bytes of w at the lane, bytes 4L..4L+3 of x), signed x signed. */
#if defined(__ARM_FEATURE_DOTPROD)
#define LLM__SDOT_LANE(acc, w, x, L) vdotq_laneq_s32((acc), (w), (x), (L))
#else
LLM__INLINE int32x4_t llm__sdot_neon(int32x4_t acc, int8x16_t w, int8x16_t x4) {
    int16x8_t lo = vmull_s8(vget_low_s8(w), vget_low_s8(x4)), hi = vmull_s8(vget_high_s8(w), vget_high_s8(x4));
    return vaddq_s32(acc, vpaddlq_s16(vpaddq_s16(lo, hi)));
}
#define LLM__SDOT_LANE(acc, w, x, L) \
    llm__sdot_neon((acc), (w), vreinterpretq_s8_s32(vdupq_laneq_s32(vreinterpretq_s32_s8(x), (L))))
#endif

/* A quarter group (4 rows, h = 0..3) x nt tokens; codes are used signed (q4_0: minus 8). */
LLM__INLINE void llm__qtile_neon(const uint8_t *G, int nb, int h, const uint8_t *xq, size_t xs, const int nt, const int q4,
                                 const int pf, float *out, size_t os) {
    const size_t qbytes = q4 ? 256 : 512;
    const uint8_t *S = G + (size_t)nb * qbytes;
    const int K = nb * LLM__QK;
    float32x4_t acc[4];
    int32x4_t ai[4];
    int t, b;
    LLM__UNROLL for (t = 0; t < nt; t++) acc[t] = vdupq_n_f32(0.0f);
    for (b = 0; b < nb; b++) {
        const uint8_t *Q = G + (size_t)b * qbytes + 16 * h;
        float32x4_t dw = llm__f16x4_neon((const uint16_t *)(S + 32 * (size_t)b + 8 * h));
        if (pf && h == 0) llm__prefetch_blocks(Q, S, b, qbytes); /* pf: one token only */
        LLM__UNROLL for (t = 0; t < nt; t++) ai[t] = vdupq_n_s32(0);
        if (q4) {
            const uint8x16_t m4 = vdupq_n_u8(0x0F);
            const int8x16_t eight = vdupq_n_s8(8);
            int8x16_t lo[4], hi[4];
            int j;
            LLM__UNROLL for (j = 0; j < 4; j++) {
                uint8x16_t v = vld1q_u8(Q + 64 * j);
                lo[j] = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v, m4)), eight);
                hi[j] = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v, 4)), eight);
            }
            LLM__UNROLL for (t = 0; t < nt; t++) {
                int8x16_t x0 = vld1q_s8((const int8_t *)(xq + t * xs + LLM__QK * b)), x1 = vld1q_s8((const int8_t *)(xq + t * xs + LLM__QK * b + 16));
                ai[t] = LLM__SDOT_LANE(ai[t], lo[0], x0, 0); ai[t] = LLM__SDOT_LANE(ai[t], lo[1], x0, 1);
                ai[t] = LLM__SDOT_LANE(ai[t], lo[2], x0, 2); ai[t] = LLM__SDOT_LANE(ai[t], lo[3], x0, 3);
                ai[t] = LLM__SDOT_LANE(ai[t], hi[0], x1, 0); ai[t] = LLM__SDOT_LANE(ai[t], hi[1], x1, 1);
                ai[t] = LLM__SDOT_LANE(ai[t], hi[2], x1, 2); ai[t] = LLM__SDOT_LANE(ai[t], hi[3], x1, 3);
            }
        } else {
            int8x16_t w[8];
            int j;
            LLM__UNROLL for (j = 0; j < 8; j++) w[j] = vld1q_s8((const int8_t *)(Q + 64 * j));
            LLM__UNROLL for (t = 0; t < nt; t++) {
                int8x16_t x0 = vld1q_s8((const int8_t *)(xq + t * xs + LLM__QK * b)), x1 = vld1q_s8((const int8_t *)(xq + t * xs + LLM__QK * b + 16));
                ai[t] = LLM__SDOT_LANE(ai[t], w[0], x0, 0); ai[t] = LLM__SDOT_LANE(ai[t], w[1], x0, 1);
                ai[t] = LLM__SDOT_LANE(ai[t], w[2], x0, 2); ai[t] = LLM__SDOT_LANE(ai[t], w[3], x0, 3);
                ai[t] = LLM__SDOT_LANE(ai[t], w[4], x1, 0); ai[t] = LLM__SDOT_LANE(ai[t], w[5], x1, 1);
                ai[t] = LLM__SDOT_LANE(ai[t], w[6], x1, 2); ai[t] = LLM__SDOT_LANE(ai[t], w[7], x1, 3);
            }
        }
        LLM__UNROLL for (t = 0; t < nt; t++)
            acc[t] = vfmaq_f32(acc[t], vcvtq_f32_s32(ai[t]), vmulq_n_f32(dw, llm__xq_scale(xq + t * xs, K, b)));
    }
    LLM__UNROLL for (t = 0; t < nt; t++) vst1q_f32(out + t * os + 4 * h, acc[t]);
}

LLM__INLINE void llm__mm_quant_neon(const llm__mm *m, int r0, int r1, const int q4) {
    int nb = m->n_in / LLM__QK, g, t, h;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(m->w->dtype, m->n_in), os = (size_t)m->n_out;
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++)
        for (h = 0; h < 4; h++) {
            const uint8_t *G = (const uint8_t *)m->w->data + (size_t)g * gbytes;
            float *out = m->out + (size_t)g * LLM__QG;
            for (t = 0; t + 4 <= m->n_tok; t += 4) llm__qtile_neon(G, nb, h, m->xq + t * m->xq_stride, m->xq_stride, 4, q4, 0, out + t * os, os);
            for (; t < m->n_tok; t++) llm__qtile_neon(G, nb, h, m->xq + t * m->xq_stride, m->xq_stride, 1, q4, m->n_tok == 1 && m->prefetch, out + t * os, os);
        }
}

static void llm__mm_q8_0_neon(const llm__mm *m, int r0, int r1) { llm__mm_quant_neon(m, r0, r1, 0); }
static void llm__mm_q4_0_neon(const llm__mm *m, int r0, int r1) { llm__mm_quant_neon(m, r0, r1, 1); }
/* k-quants: a quarter group (4 rows, h = 0..3) x nt tokens (up to 4), as llm__ktile_avx512;
   the codes (at most 63) are used as signed bytes. */
LLM__INLINE uint8x16_t llm__shl_u8_neon(uint8x16_t v, int left) { return vshlq_u8(v, vdupq_n_s8((int8_t)left)); }

LLM__INLINE float32x4_t llm__i8x4_f32_neon(const uint8_t *p) {
    return vcvtq_f32_s32(vmovl_s16(vget_low_s16(vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(llm__rd_i32(p)))))));
}
LLM__INLINE float32x4_t llm__u8x4_f32_neon(uint8x8_t v) { return vcvtq_f32_u32(vmovl_u16(vget_low_u16(vmovl_u8(v)))); }

LLM__INLINE void llm__ktile_neon(const uint8_t *G, int K, int h, const uint8_t *xq, size_t xs, const int nt, const llm_dtype dt,
                                 float *out, size_t os) {
    const size_t sbytes = LLM__QG * llm__kq_block_bytes(dt, 8);
    const int q6 = dt == LLM_DTYPE_Q6_K;
    const uint8x16_t m4 = vdupq_n_u8(0x0F), m10 = vdupq_n_u8(0x10), m30 = vdupq_n_u8(0x30);
    float32x4_t acc[4], d, dmin = vdupq_n_f32(0.0f);
    int t, s, j, i;
    LLM__UNROLL for (t = 0; t < nt; t++) acc[t] = vdupq_n_f32(0.0f);
    for (s = 0; s * LLM__QKK < K; s++) {
        const int ns = llm__kq_subs(K, s);
        const uint8_t *SB = G + (size_t)s * sbytes, *S = SB + llm__kq_scales_at(dt, ns), *H = SB + llm__kq_hi_at(ns);
        if (q6) d = llm__f16x4_neon((const uint16_t *)(S + 256 + 8 * h));
        else {
            d = llm__f16x4_neon((const uint16_t *)(S + 192 + 8 * h));
            dmin = llm__f16x4_neon((const uint16_t *)(S + 224 + 8 * h));
        }
        for (j = 0; j < ns; j++) {
            const int b = 8 * s + j;
            int8x16_t lo[4], hi[4];
            float32x4_t dsa, dsb;
            uint8x16_t h0 = vdupq_n_u8(0), h1 = h0;
            if (nt == 1 && h == 0)
                for (i = 0; i < (int)sbytes / 8; i += 64) LLM__PREFETCH(SB + 2 * sbytes + (size_t)j * sbytes / 8 + (size_t)i);
            if (dt == LLM_DTYPE_Q5_K) h0 = vld1q_u8(H + 64 * j + 16 * h);
            if (q6) { h0 = vld1q_u8(H + 128 * j + 16 * h); h1 = vld1q_u8(H + 128 * j + 64 + 16 * h); }
            LLM__UNROLL for (i = 0; i < 4; i++) {
                uint8x16_t v = vld1q_u8(SB + 256 * j + 64 * i + 16 * h), l = vandq_u8(v, m4), u = vshrq_n_u8(v, 4);
                if (dt == LLM_DTYPE_Q5_K) {
                    l = vorrq_u8(l, vandq_u8(llm__shl_u8_neon(h0, 4 - i), m10));
                    u = vorrq_u8(u, vandq_u8(llm__shl_u8_neon(h0, -i), m10));
                } else if (q6) {
                    l = vorrq_u8(l, vandq_u8(llm__shl_u8_neon(h0, 4 - 2 * i), m30));
                    u = vorrq_u8(u, vandq_u8(llm__shl_u8_neon(h1, 4 - 2 * i), m30));
                }
                lo[i] = vreinterpretq_s8_u8(l);
                hi[i] = vreinterpretq_s8_u8(u);
            }
            if (q6) {
                dsa = vmulq_f32(d, llm__i8x4_f32_neon(S + 32 * j + 4 * h));
                dsb = vmulq_f32(d, llm__i8x4_f32_neon(S + 32 * j + 16 + 4 * h));
            } else {
                uint8x8_t l8 = vreinterpret_u8_s32(vdup_n_s32(llm__rd_i32(S + 16 * j + 4 * h)));
                uint8x8_t h8 = vshl_u8(vreinterpret_u8_s32(vdup_n_s32(llm__rd_i32(S + 128 + 16 * (j / 2) + 4 * h))), vdup_n_s8((int8_t)(-4 * (j % 2))));
                uint8x8_t sc = vorr_u8(vand_u8(l8, vdup_n_u8(15)), vshl_n_u8(vand_u8(h8, vdup_n_u8(3)), 4));
                uint8x8_t mn = vorr_u8(vshr_n_u8(l8, 4), vshl_n_u8(vand_u8(vshr_n_u8(h8, 2), vdup_n_u8(3)), 4));
                dsa = vmulq_f32(d, llm__u8x4_f32_neon(sc));
                dsb = vmulq_f32(dmin, llm__u8x4_f32_neon(mn));
            }
            LLM__UNROLL for (t = 0; t < nt; t++) {
                const uint8_t *xt = xq + t * xs, *xb = xt + LLM__QK * b;
                const int8x16_t x0 = vld1q_s8((const int8_t *)xb), x1 = vld1q_s8((const int8_t *)(xb + 16));
                const int32_t xsum = llm__xq_sum(xt, K, b), xsa = q6 ? vaddlvq_s8(x0) : 0; /* llm__xq_half_sum */
                const float dx = llm__xq_scale(xt, K, b);
                int32x4_t a0 = vdupq_n_s32(-32 * xsa), a1 = vdupq_n_s32(q6 ? -32 * (xsum - xsa) : 0);
                a0 = LLM__SDOT_LANE(a0, lo[0], x0, 0); a0 = LLM__SDOT_LANE(a0, lo[1], x0, 1);
                a0 = LLM__SDOT_LANE(a0, lo[2], x0, 2); a0 = LLM__SDOT_LANE(a0, lo[3], x0, 3);
                a1 = LLM__SDOT_LANE(a1, hi[0], x1, 0); a1 = LLM__SDOT_LANE(a1, hi[1], x1, 1);
                a1 = LLM__SDOT_LANE(a1, hi[2], x1, 2); a1 = LLM__SDOT_LANE(a1, hi[3], x1, 3);
                if (q6) {
                    acc[t] = vfmaq_f32(acc[t], vcvtq_f32_s32(a0), vmulq_n_f32(dsa, dx));
                    acc[t] = vfmaq_f32(acc[t], vcvtq_f32_s32(a1), vmulq_n_f32(dsb, dx));
                } else {
                    acc[t] = vfmaq_f32(acc[t], vcvtq_f32_s32(vaddq_s32(a0, a1)), vmulq_n_f32(dsa, dx));
                    acc[t] = vfmsq_f32(acc[t], dsb, vdupq_n_f32((float)xsum * dx));
                }
            }
        }
    }
    LLM__UNROLL for (t = 0; t < nt; t++) vst1q_f32(out + t * os + 4 * h, acc[t]);
}

LLM__INLINE void llm__mm_kquant_neon(const llm__mm *m, int r0, int r1, const llm_dtype dt) {
    int K = m->n_in, g, t, h;
    size_t gbytes = (size_t)LLM__QG * llm_dtype_row_bytes(dt, m->n_in), os = (size_t)m->n_out;
    for (g = r0 / LLM__QG; g < r1 / LLM__QG; g++)
        for (h = 0; h < 4; h++) {
            const uint8_t *G = (const uint8_t *)m->w->data + (size_t)g * gbytes;
            float *out = m->out + (size_t)g * LLM__QG;
            for (t = 0; t + 4 <= m->n_tok; t += 4) llm__ktile_neon(G, K, h, m->xq + t * m->xq_stride, m->xq_stride, 4, dt, out + t * os, os);
            for (; t < m->n_tok; t++) llm__ktile_neon(G, K, h, m->xq + t * m->xq_stride, m->xq_stride, 1, dt, out + t * os, os);
        }
}

static void llm__mm_q4_k_neon(const llm__mm *m, int r0, int r1) { llm__mm_kquant_neon(m, r0, r1, LLM_DTYPE_Q4_K); }
static void llm__mm_q5_k_neon(const llm__mm *m, int r0, int r1) { llm__mm_kquant_neon(m, r0, r1, LLM_DTYPE_Q5_K); }
static void llm__mm_q6_k_neon(const llm__mm *m, int r0, int r1) { llm__mm_kquant_neon(m, r0, r1, LLM_DTYPE_Q6_K); }

static const llm__kernels llm__kernels_neon = {
    { llm__mm_f32_neon, llm__mm_f16_neon, llm__mm_bf16_neon, llm__mm_q8_0_neon, llm__mm_q4_0_neon, llm__mm_q4_k_neon, llm__mm_q5_k_neon,
      llm__mm_q6_k_neon },
    llm__scores_f32_neon, llm__scores_f16_neon, llm__values_f32_neon, llm__values_f16_neon, llm__softmax, llm__quantize_x_ref, llm__swiglu_ref, llm__geglu_ref, 0,
#if defined(LLM__NEON_DOTPROD)
    "neon-dotprod"
#else
    "neon"
#endif
    , NULL, 0
};
#endif

/* -- choosing a set ------------------------------------------------------------------------ */
#if defined(LLM__AMX)
/* Whether the OS lets this process use the AMX tiles: Linux keeps the tile data off until a
   process asks (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), Linux 5.16; asked each
   time, a cheap call that changes nothing once granted), Windows gives them to every process. */
static int llm__amx_permitted(void) {
#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
    long r;
    __asm__ __volatile__("syscall" : "=a"(r) : "0"(158L /* SYS_arch_prctl */), "D"(0x1023L), "S"(18L) : "rcx", "r11", "memory");
    return r == 0;
#elif defined(_WIN32)
    return 1;
#else
    return 0;
#endif
}
#endif

#if defined(LLM__AVX512) || defined(LLM__AVX2) /* x86 */
static void llm__cpuid(unsigned leaf, unsigned sub, uint32_t r[4]) {
#if defined(_MSC_VER)
    int v[4];
    __cpuidex(v, (int)leaf, (int)sub);
    r[0] = (uint32_t)v[0]; r[1] = (uint32_t)v[1]; r[2] = (uint32_t)v[2]; r[3] = (uint32_t)v[3];
#else
    unsigned a, b, c, d;
    __cpuid_count(leaf, sub, a, b, c, d);
    r[0] = a; r[1] = b; r[2] = c; r[3] = d;
#endif
}

/* Whether set k's one-token q8_0/q4_0 kernels prefetch (llm__prefetch_blocks): not the
   AVX-512 sets' on AMD's CPUs (cpuid vendor AuthenticAMD, or Hygon's of the same design),
   where it was slower with their four groups at a time; the AVX2 sets' two groups gained
   from it on an AVX2-only EPYC (Zen 3). */
static int llm__cpu_prefetch(llm_kernels k) {
    uint32_t l0[4];
    char vendor[12];
    if (k != LLM_KERNELS_AVX512 && k != LLM_KERNELS_AMX) return 1;
    llm__cpuid(0, 0, l0);
    memcpy(vendor, &l0[1], 4); memcpy(vendor + 4, &l0[3], 4); memcpy(vendor + 8, &l0[2], 4); /* EBX EDX ECX */
    return memcmp(vendor, "AuthenticAMD", 12) != 0 && memcmp(vendor, "HygonGenuine", 12) != 0;
}
#else
static int llm__cpu_prefetch(llm_kernels k) { (void)k; return 1; }
#endif

#if defined(LLM__X86_DISPATCH)

static uint64_t llm__xgetbv0(void) {
#if defined(_MSC_VER)
    return _xgetbv(0);
#else
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
#endif
}

/* The sets the CPU runs (bit k: set k), from cpuid (Intel SDM vol. 2A, CPUID) and the register
   state the OS saves (XCR0): a CPU's AVX-512 is unusable when the OS does not save the ZMM
   and mask registers. */
static unsigned llm__cpu_sets(void) {
    uint32_t l0[4], l1[4], l7[4] = { 0 }, l71[4] = { 0 };
    uint64_t xcr0;
    unsigned sets = 1u << LLM_KERNELS_SCALAR;
    int avx2;
    llm__cpuid(0, 0, l0);
    llm__cpuid(1, 0, l1);
    if (!(l1[2] >> 27 & 1)) return sets; /* no OSXSAVE: no xgetbv, no AVX state */
    xcr0 = llm__xgetbv0();
    if (l0[0] >= 7) { llm__cpuid(7, 0, l7); if (l7[0] >= 1) llm__cpuid(7, 1, l71); }
    avx2 = (xcr0 & 6) == 6 && (l1[2] >> 12 & 1) && (l1[2] >> 28 & 1) && (l1[2] >> 29 & 1) && (l7[1] >> 5 & 1); /* YMM, FMA, AVX, F16C, AVX2 */
    if (avx2) sets |= 1u << LLM_KERNELS_AVX2;
    if (avx2 && (l71[0] >> 4 & 1)) sets |= 1u << LLM_KERNELS_AVX2_VNNI;
    if (avx2 && (xcr0 & 0xE6) == 0xE6 && (l7[1] >> 16 & 1) && (l7[1] >> 30 & 1) && (l7[1] >> 31 & 1) && (l7[2] >> 11 & 1))
        sets |= 1u << LLM_KERNELS_AVX512; /* opmask, ZMM state; AVX512F, BW, VL, VNNI */
#if defined(LLM__AMX)
    /* AMX: the tiles and their int8 products (EDX bits 24, 25), their state saved (XCR0 bits 17, 18) */
    if ((sets >> LLM_KERNELS_AVX512 & 1) && (l7[3] >> 24 & 1) && (l7[3] >> 25 & 1) && (xcr0 & 0x60000) == 0x60000 && llm__amx_permitted())
        sets |= 1u << LLM_KERNELS_AMX;
#endif
    return sets;
}

/* AVX512-BF16 (cpuid 7.1 EAX bit 5), with the AVX-512 set it extends; with tiles, AMX-BF16
   (7.0 EDX bit 22) and the AMX set too. */
static int llm__cpu_bf16(int tiles) {
    uint32_t l0[4], l7[4] = { 0 }, l71[4] = { 0 };
    if (!(llm__cpu_sets() >> (tiles ? LLM_KERNELS_AMX : LLM_KERNELS_AVX512) & 1)) return 0;
    llm__cpuid(0, 0, l0);
    if (l0[0] >= 7) { llm__cpuid(7, 0, l7); if (l7[0] >= 1) llm__cpuid(7, 1, l71); }
    return (l71[0] >> 5 & 1) && (!tiles || (l7[3] >> 22 & 1));
}
#else
/* Without run-time selection a set is compiled only for a target that has its instructions
   (the tiles still need the OS's permission). */
static unsigned llm__cpu_sets(void) {
#if defined(LLM__AMX)
    if (!llm__amx_permitted()) return ~(1u << LLM_KERNELS_AMX);
#endif
    return ~0u;
}
static int llm__cpu_bf16(int tiles) { (void)tiles; return 1; } /* compiled only for a target that has them */
#endif

/* The table of set k in this build, NULL when it has none. */
static const llm__kernels *llm__kernels_get(llm_kernels k) {
    switch (k) {
    case LLM_KERNELS_SCALAR: return &llm__kernels_ref;
#if defined(LLM__AVX2)
    case LLM_KERNELS_AVX2: return &llm__kernels_avx2;
#endif
#if defined(LLM__AVX2_VNNI)
    case LLM_KERNELS_AVX2_VNNI: return &llm__kernels_avx2_vnni;
#endif
#if defined(LLM__AVX512)
    case LLM_KERNELS_AVX512: return &llm__kernels_avx512;
#endif
#if defined(LLM__AMX)
    case LLM_KERNELS_AMX: return &llm__kernels_amx;
#endif
#if defined(LLM__NEON) && !defined(LLM__NEON_DOTPROD)
    case LLM_KERNELS_NEON: return &llm__kernels_neon;
#elif defined(LLM__NEON)
    case LLM_KERNELS_NEON_DOTPROD: return &llm__kernels_neon;
#endif
    default: return NULL;
    }
}

LLMDEF const char *llm_kernels_name(llm_kernels k) {
    static const char *const names[LLM_KERNELS_COUNT] = { "auto", "scalar", "avx2", "avx2-vnni", "avx512", "neon", "neon-dotprod", "avx512-amx" };
    return (unsigned)k < LLM_KERNELS_COUNT ? names[k] : NULL;
}

LLMDEF int llm_kernels_supported(llm_kernels k) {
    return k == LLM_KERNELS_AUTO || (llm__kernels_get(k) && (llm__cpu_sets() >> k & 1));
}

LLMDEF llm_kernels llm_kernels_best(void) {
    static const llm_kernels order[] = { LLM_KERNELS_AMX, LLM_KERNELS_AVX512, LLM_KERNELS_AVX2_VNNI, LLM_KERNELS_AVX2, LLM_KERNELS_NEON_DOTPROD,
                                         LLM_KERNELS_NEON };
    unsigned cpu = llm__cpu_sets();
    size_t i;
    for (i = 0; i < sizeof order / sizeof order[0]; i++)
        if (llm__kernels_get(order[i]) && (cpu >> order[i] & 1)) return order[i];
    return LLM_KERNELS_SCALAR;
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

/* Gemma's RMSNorm: the same normalisation times (1 + weight), in float32 as HF computes it. */
static void llm__rmsnorm_plus_one(float *out, const float *x, const float *weight, int n, float eps) {
    float ss = 0.0f, scale;
    int i;
    for (i = 0; i < n; i++) ss += x[i] * x[i];
    scale = 1.0f / sqrtf(ss / (float)n + eps);
    for (i = 0; i < n; i++) out[i] = (x[i] * scale) * (1.0f + weight[i]);
}

/* The model's RMSNorm with weight tensor w: w or (1 + w) as the file says. */
static void llm__norm(const llm_model_info *h, float *out, const float *x, const llm_tensor *w, int n) {
    if (h->norm_plus_one) llm__rmsnorm_plus_one(out, x, (const float *)w->data, n, h->rms_eps);
    else llm__rmsnorm(out, x, (const float *)w->data, n, h->rms_eps);
}

/* x = cap * tanh(x / cap): Gemma 2's soft-capping of attention scores and logits. */
static void llm__softcap(float *x, size_t n, float cap) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = tanhf(x[i] / cap) * cap;
}

/* The per-pair inverse frequencies, as HF's rope initialisation computes them in float32:
   inv_freq[i] = 1 / theta^(2i/d), then scaled by the rope_scaling rule. */
static void llm__rope_inv_freq(float *inv_freq, const llm_model_info *m) {
    int i, half = m->rope_dim / 2;
    for (i = 0; i < half; i++) {
        float expo = (float)(2 * i) / (float)m->rope_dim;
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

/* transformers _compute_yarn_parameters: each pair blends the interpolated frequency
   (divided by factor) and the original one by a linear ramp over the pairs between the
   dimensions where beta_fast and beta_slow rotations fit in the original context. */
static void llm__rope_inv_freq_yarn(float *inv_freq, const llm_model_info *m) {
    const double pi = 3.14159265358979323846;
    int i, half = m->rope_dim / 2, dim = m->rope_dim;
    double base = m->rope_theta, orig = m->rope_original_max_pos;
    double low = dim * log(orig / (m->rope_beta_fast * 2 * pi)) / (2 * log(base));
    double high = dim * log(orig / (m->rope_beta_slow * 2 * pi)) / (2 * log(base));
    float lo, hi;
    if (m->rope_truncate) { low = floor(low); high = ceil(high); }
    if (low < 0) low = 0;
    if (high > dim - 1) high = dim - 1;
    lo = (float)low; hi = (float)high;
    if (lo == hi) hi += 0.001f; /* as HF: no division by zero */
    for (i = 0; i < half; i++) {
        float pos_freq = powf((float)base, (float)(2 * i) / (float)dim);
        float extra = 1.0f / pos_freq, inter = 1.0f / (m->rope_factor * pos_freq);
        float ramp = ((float)i - lo) / (hi - lo), keep;
        ramp = ramp < 0.0f ? 0.0f : ramp > 1.0f ? 1.0f : ramp;
        keep = 1.0f - ramp; /* inv_freq_extrapolation_factor */
        inv_freq[i] = inter * (1.0f - keep) + extra * keep;
    }
}

/* transformers _compute_longrope_parameters: 1 / (ext[i] * theta^(2i/d)) with the short or
   the long factors (little-endian f32). */
static void llm__rope_inv_freq_longrope(float *inv_freq, const llm_model_info *m, const uint8_t *factors) {
    int i, half = m->rope_dim / 2;
    for (i = 0; i < half; i++) {
        float ext;
        uint32_t u = (uint32_t)factors[4 * i] | (uint32_t)factors[4 * i + 1] << 8 | (uint32_t)factors[4 * i + 2] << 16 |
                     (uint32_t)factors[4 * i + 3] << 24;
        memcpy(&ext, &u, 4);
        inv_freq[i] = 1.0f / (ext * powf((float)m->rope_theta, (float)(2 * i) / (float)m->rope_dim));
    }
}

/* The plain inverse frequencies 1 / theta^(2i/d) of a local layer. */
static void llm__rope_inv_freq_plain(float *inv_freq, const llm_model_info *m, double theta) {
    int i, half = m->rope_dim / 2;
    for (i = 0; i < half; i++) inv_freq[i] = 1.0f / powf((float)theta, (float)(2 * i) / (float)m->rope_dim);
}

/* HF rotate_half layout: element i pairs with element i + d/2 (not adjacent pairs).
   cs holds cos(pos * inv_freq[i]) then sin(pos * inv_freq[i]) for i < d/2. */
static void llm__rope_rotate_half(float *v, int rope_dim, const float *cs) {
    int i, half = rope_dim / 2;
    for (i = 0; i < half; i++) {
        float c = cs[i], s = cs[half + i];
        float a = v[i], b = v[i + half];
        v[i] = a * c - b * s;
        v[i + half] = b * c + a * s;
    }
}

/* ---- llm: model file ---------------------------------------------------------------------
   Layout (docs/FORMAT.md): a 72-byte header, a metadata section of typed key/value
   entries, a tensor table, then tensor data aligned to LLM__ALIGN. Little-endian. The
   header ends with a checksum of everything before the tensor data. */
#define LLM__HEADER_SIZE 72u
#define LLM__CHECKSUM_AT 64u /* the u64 checksum field, the header's last */
#define LLM__ALIGN 64u
#define LLM__MAX_NAME 256u
#define LLM__HASH_SEED 0xCBF29CE484222325ull

/* 8 bytes at a time; each step is a bijection of h and of the word, so a changed word
   always changes the result. */
static uint64_t llm__hash64(uint64_t h, const void *data, size_t n) {
    const uint8_t *p = (const uint8_t *)data;
    uint64_t v;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&v, p, 8);
        h = (h ^ v) * 0x100000001B3ull;
        h ^= h >> 31;
    }
    for (; n; p++, n--) h = (h ^ *p) * 0x100000001B3ull;
    return h;
}

/* The checksum of a model file: the hash of every byte before the tensor data but the
   checksum field itself (header, metadata, tensor table, padding). The weights are left out:
   hashing them would read the whole file at open. */
static uint64_t llm__file_checksum(const uint8_t *data, uint64_t data_off) {
    uint64_t h = llm__hash64(LLM__HASH_SEED, data, LLM__CHECKSUM_AT);
    return llm__hash64(h, data + LLM__HEADER_SIZE, (size_t)(data_off - LLM__HEADER_SIZE));
}

typedef struct llm__meta {
    const char *key;
    uint32_t key_len;
    uint32_t type;
    const uint8_t *data;
    uint64_t size;
} llm__meta;

/* One gated MLP of a mixture: down(silu(gate x) * up x). */
typedef struct llm__expert {
    const llm_tensor *gate, *up, *down;
} llm__expert;

typedef struct llm__layer {
    const llm_tensor *attn_norm, *wq, *wk, *wv, *wo, *bq, *bk, *bv, *bo, *q_norm, *k_norm;
    const llm_tensor *ffn_norm, *w_gate, *w_up, *w_down;
    const llm_tensor *post_attn_norm, *post_ffn_norm; /* on the block outputs (POST, SANDWICH) */
    int32_t window; /* sliding-window size, 0 for full attention */
    int32_t rope;   /* LLM_LAYER_ROPE_* */
    /* a sparse layer: experts non-NULL (n_expert of them), w_gate/w_up/w_down NULL */
    const llm_tensor *router, *shared_gate; /* [n_expert, n_embd]; [1, n_embd] with a shared expert */
    const llm__expert *experts;
    llm__expert shared;                    /* gate NULL: none */
} llm__layer;

struct llm__tokenizer;
static llm_result llm__tok_load(llm_model *m, char *err, size_t es);
static void llm__tok_free(llm_model *m);

struct llm_model {
    llm_allocator alloc;
    int vocab_only;
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
    const llm_tensor **by_name; /* the tensors sorted by name, for lookups (a mixture has thousands) */
    const llm_tensor *tok_embd, *norm, *output;
    llm__layer *layers;
    llm__expert *experts;       /* every sparse layer's, n_expert each */
    float *rope_inv_freq;       /* rope_dim / 2 frequencies of the model's RoPE */
    float *rope_inv_freq_long;  /* LongRoPE's long factors, past the original context; else NULL */
    float *rope_inv_freq_local; /* of LLM_LAYER_ROPE_LOCAL layers; else NULL */
    struct llm__tokenizer *tok; /* NULL: no tokenizer */
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

LLMDEF const char *llm_model_meta_string(const llm_model *model, const char *key, size_t *len) {
    const llm__meta *e = model && key ? llm__meta_find(model, key) : NULL;
    if (!e || e->type != LLM_META_STRING) return NULL;
    if (len) *len = (size_t)e->size;
    return (const char *)e->data;
}

/* Reads an i32 entry; a missing optional key leaves *v alone. */
static llm_result llm__meta_i32(const llm_model *m, const char *key, int required, int32_t *v, char *err, size_t es) {
    const llm__meta *e = llm__meta_find(m, key);
    if (!e) return required ? llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: missing key '%s'", key) : LLM_OK;
    if (e->type != LLM_META_I32 || e->size != 4)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' is not an i32", key);
    *v = (int32_t)llm__rd32(e->data);
    return LLM_OK;
}

static llm_result llm__meta_f64(const llm_model *m, const char *key, int required, double *v, char *err, size_t es) {
    const llm__meta *e = llm__meta_find(m, key);
    uint64_t bits;
    if (!e) return required ? llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: missing key '%s'", key) : LLM_OK;
    if (e->type != LLM_META_F64 || e->size != 8)
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
    if (m->size < 4 && (m->size == 0 || memcmp(h, LLM_FILE_MAGIC, (size_t)m->size) == 0))
        return llm__fail(err, es, LLM_ERR_TRUNCATED, "file ends inside the magic (%llu bytes)", (unsigned long long)m->size);
    if (m->size >= 4 && memcmp(h, "GGUF", 4) == 0) /* what a llama.cpp user tries first */
        return llm__fail(err, es, LLM_ERR_BAD_MAGIC, "a GGUF file, not a .llm model file: convert it first (convert FILE.gguf FILE.llm)");
    if (m->size < 4 || memcmp(h, LLM_FILE_MAGIC, 4) != 0)
        return llm__fail(err, es, LLM_ERR_BAD_MAGIC, "not a .llm model file (magic is not \"LLMF\")");
    if (m->size < 8) return llm__fail(err, es, LLM_ERR_TRUNCATED, "file ends inside the header (%llu bytes)", (unsigned long long)m->size);
    if (llm__rd32(h + 4) != LLM_FILE_VERSION)
        return llm__fail(err, es, LLM_ERR_BAD_VERSION, "file format version %u, this header reads version %u%s",
                         llm__rd32(h + 4), LLM_FILE_VERSION, llm__rd32(h + 4) < LLM_FILE_VERSION ? ": convert the model again" : "");
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
    if (*data_off < *meta_off + *meta_size || *data_off < *tab_off + *tab_size)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor data at offset %llu overlaps the metadata or the tensor table",
                         (unsigned long long)*data_off);
    if (*n_tensors > *tab_size / 24) /* an entry takes at least 24 bytes */
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "%llu tensors cannot fit in a %llu-byte table",
                         (unsigned long long)*n_tensors, (unsigned long long)*tab_size);
    if (llm__file_checksum(h, *data_off) != llm__rd64(h + LLM__CHECKSUM_AT))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "header checksum mismatch: the file says %016llx, its first %llu bytes "
                         "hash to %016llx (the file is damaged)", (unsigned long long)llm__rd64(h + LLM__CHECKSUM_AT),
                         (unsigned long long)*data_off, (unsigned long long)llm__file_checksum(h, *data_off));
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

static int llm__tensor_name_cmp(const void *a, const void *b) {
    const llm_tensor *x = *(const llm_tensor *const *)a, *y = *(const llm_tensor *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : x < y ? -1 : x > y;
}

/* The name index, sorted once at open; two entries of one name are refused, as a lookup would
   only ever find one of them. */
static llm_result llm__index_tensors(llm_model *m, char *err, size_t es) {
    size_t i;
    m->by_name = (const llm_tensor **)llm__calloc(&m->alloc, m->n_tensors ? m->n_tensors : 1, sizeof *m->by_name);
    if (!m->by_name) return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; i < m->n_tensors; i++) m->by_name[i] = &m->tensors[i];
    qsort(m->by_name, m->n_tensors, sizeof *m->by_name, llm__tensor_name_cmp);
    for (i = 1; i < m->n_tensors; i++)
        if (strcmp(m->by_name[i - 1]->name, m->by_name[i]->name) == 0)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s' is in the tensor table twice (entries %llu and %llu)",
                             m->by_name[i]->name, (unsigned long long)(m->by_name[i - 1] - m->tensors),
                             (unsigned long long)(m->by_name[i] - m->tensors));
    return LLM_OK;
}

static llm_result llm__parse_tensors(llm_model *m, uint64_t off, uint64_t size, uint64_t n, uint64_t data_off,
                                     char *err, size_t es) {
    llm__reader r;
    uint64_t i, prev_end = 0;
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
        if (count > (uint64_t)(size_t)-1 || expect == 0 || (count / (uint64_t)t->shape[nd - 1]) % (uint64_t)llm_dtype_row_group(t->dtype) ||
            !llm__mul_ok(expect, (size_t)(count / (uint64_t)t->shape[nd - 1]), &expect) || tsize != expect)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s': size %llu does not match its %s shape",
                             t->name, (unsigned long long)tsize, llm_dtype_name(t->dtype));
        if (toff % LLM__ALIGN != 0 || toff > m->size - data_off || tsize > m->size - data_off - toff)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s': data [%llu, +%llu) is outside the file or unaligned",
                             t->name, (unsigned long long)(data_off + toff), (unsigned long long)tsize);
        if (toff < prev_end) /* tensors are stored in table order, each after the one before */
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tensor '%s': data at %llu overlaps the tensor before it (which ends at %llu)",
                             t->name, (unsigned long long)(data_off + toff), (unsigned long long)(data_off + prev_end));
        prev_end = toff + tsize;
        t->data = m->data + data_off + toff;
        t->size = (size_t)tsize;
    }
    return llm__index_tensors(m, err, es);
}

LLMDEF const llm_tensor *llm_model_tensor(const llm_model *model, const char *name) {
    size_t lo = 0, hi;
    if (!model || !name || !model->by_name) return NULL;
    hi = model->n_tensors;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(model->by_name[mid]->name, name);
        if (c == 0) return model->by_name[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* ---- llm: model --------------------------------------------------------------------------- */
static const char *const llm__arch_names[] = { "llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3", "phi3",
                                               "smollm3", "granite", "olmo2", "mixtral", "qwen3_moe", "qwen2_moe", "olmoe", "gemma" };

/* An optional f64 key into a float, dflt when absent. */
static llm_result llm__meta_float(const llm_model *m, const char *key, double dflt, float *out, char *err, size_t es) {
    double v = dflt;
    llm_result r = llm__meta_f64(m, key, 0, &v, err, es);
    *out = (float)v;
    return r;
}

/* The anatomy's switches; absent keys are Llama's values. */
static llm_result llm__read_switches(const llm_model *m, llm_model_info *h, char *err, size_t es) {
    int32_t norms = 0, act = 0;
    llm_result r;
    h->rope_dim = h->head_dim;
    h->rope_truncate = 1;
    h->rope_theta_local = 10000.0;
    if ((r = llm__meta_i32(m, LLM_KEY_BLOCK_NORMS, 0, &norms, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_NORM_PLUS_ONE, 0, &h->norm_plus_one, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_ACTIVATION, 0, &act, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_ROPE_DIM, 0, &h->rope_dim, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_ROPE_TRUNCATE, 0, &h->rope_truncate, err, es)) ||
        (r = llm__meta_f64(m, LLM_KEY_ROPE_THETA_LOCAL, 0, &h->rope_theta_local, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_EMBD_SCALE, 1.0, &h->embd_scale, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_ATTN_SCALE, 0.0, &h->attn_scale, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_RESIDUAL_SCALE, 1.0, &h->residual_scale, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_LOGITS_DIVISOR, 1.0, &h->logits_divisor, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_ATTN_SOFTCAP, 0.0, &h->attn_softcap, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_FINAL_SOFTCAP, 0.0, &h->final_softcap, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_ROPE_ATTN_FACTOR, 1.0, &h->rope_attn_factor, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_ROPE_BETA_FAST, 32.0, &h->rope_beta_fast, err, es)) ||
        (r = llm__meta_float(m, LLM_KEY_ROPE_BETA_SLOW, 1.0, &h->rope_beta_slow, err, es)))
        return r;
    h->block_norms = (llm_block_norms)norms;
    h->activation = (llm_activation)act;
    return LLM_OK;
}

static llm_result llm__read_info(llm_model *m, char *err, size_t es) {
    llm_model_info *h = &m->info;
    size_t len, i;
    const char *arch = llm_model_meta_string(m, LLM_KEY_ARCH, &len);
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
    if ((r = llm__meta_i32(m, LLM_KEY_N_VOCAB, 1, &h->n_vocab, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_N_EMBD, 1, &h->n_embd, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_N_FF, 1, &h->n_ff, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_N_LAYER, 1, &h->n_layer, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_N_HEAD, 1, &h->n_head, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_N_HEAD_KV, 1, &h->n_head_kv, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_HEAD_DIM, 1, &h->head_dim, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_N_CTX_TRAIN, 1, &h->n_ctx_train, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_TIED_EMBEDDINGS, 0, &h->tied_embeddings, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_NO_LM_HEAD, 0, &h->no_lm_head, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_POOLING, 0, &h->pooling, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_EMBD_NORMALIZE, 0, &h->embd_normalize, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_QK_NORM, 0, &h->qk_norm, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_BOS_ID, 0, &h->bos_id, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_ROPE_SCALING, 0, &scaling, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_ROPE_ORIG_CTX, 0, &orig, err, es)))
        return r;
    if (!llm__meta_find(m, LLM_KEY_POOLING)) h->pooling = LLM_POOLING_MEAN;
    if ((r = llm__meta_f64(m, LLM_KEY_RMS_EPS, 1, &v, err, es))) return r;
    h->rms_eps = (float)v;
    if ((r = llm__meta_f64(m, LLM_KEY_ROPE_THETA, 1, &h->rope_theta, err, es))) return r;
    h->rope_scaling = (llm_rope_scaling)scaling;
    h->rope_original_max_pos = orig;
    v = 1.0; if ((r = llm__meta_f64(m, LLM_KEY_ROPE_FACTOR, 0, &v, err, es))) return r;
    h->rope_factor = (float)v;
    v = 1.0; if ((r = llm__meta_f64(m, LLM_KEY_ROPE_LOW_FREQ, 0, &v, err, es))) return r;
    h->rope_low_freq_factor = (float)v;
    v = 4.0; if ((r = llm__meta_f64(m, LLM_KEY_ROPE_HIGH_FREQ, 0, &v, err, es))) return r;
    h->rope_high_freq_factor = (float)v;
    if ((r = llm__read_switches(m, h, err, es))) return r;
    stop = llm__meta_find(m, LLM_KEY_EOS_IDS);
    if (stop) {
        if (stop->type != LLM_META_I32_ARRAY || stop->size % 4 || stop->size / 4 > LLM_MAX_STOP_IDS)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: 'llm.eos_token_ids' is not an array of at most %d ids", LLM_MAX_STOP_IDS);
        h->n_stop_ids = (int32_t)(stop->size / 4);
        for (i = 0; i < (size_t)h->n_stop_ids; i++) h->stop_ids[i] = (int32_t)llm__rd32(stop->data + 4 * i);
    }
    return LLM_OK;
}

/* The switches' values: known enum values, finite scales of the right sign. */
static llm_result llm__check_switches(const llm_model_info *h, char *err, size_t es) {
    if ((unsigned)h->block_norms > LLM_BLOCK_SANDWICH) return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "unknown block norm placement %d", (int)h->block_norms);
    if ((unsigned)h->qk_norm > LLM_QK_NORM_FULL) return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "unknown q/k norm kind %d", (int)h->qk_norm);
    if ((unsigned)h->activation > LLM_ACT_GELU) return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "unknown activation %d", (int)h->activation);
    if (h->rope_dim < 2 || h->rope_dim > h->head_dim || h->rope_dim % 2)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "rope_dim %d is not an even number in [2, head_dim %d]", h->rope_dim, h->head_dim);
    if (!(h->embd_scale > 0.0f && h->embd_scale < FLT_MAX) || !(h->attn_scale >= 0.0f && h->attn_scale < FLT_MAX) ||
        !(h->residual_scale > 0.0f && h->residual_scale < FLT_MAX) || !(h->logits_divisor > 0.0f && h->logits_divisor < FLT_MAX) ||
        !(h->attn_softcap >= 0.0f && h->attn_softcap < FLT_MAX) || !(h->final_softcap >= 0.0f && h->final_softcap < FLT_MAX) ||
        !(h->rope_attn_factor > 0.0f && h->rope_attn_factor < FLT_MAX))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "a scale (embedding, attention, residual, logits, soft-cap or rope attention factor) is out of range");
    if (!(h->rope_theta_local > 1.0)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "rope_theta_local must be > 1");
    if (h->rope_scaling == LLM_ROPE_YARN && (h->rope_original_max_pos < 1 || !(h->rope_beta_fast > 0.0f) || !(h->rope_beta_slow > 0.0f)))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "yarn rope scaling parameters are out of range");
    if (h->rope_scaling == LLM_ROPE_LONGROPE && h->rope_original_max_pos < 1)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "longrope needs the original context length");
    return LLM_OK;
}

/* Limits that keep every product below 2^62 and reject nonsense before it is used. */
static llm_result llm__check_info(const llm_model_info *h, char *err, size_t es) {
    llm_result r;
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
    if ((unsigned)h->rope_scaling > LLM_ROPE_LONGROPE) return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "unknown rope scaling type %d", (int)h->rope_scaling);
    if (h->rope_scaling != LLM_ROPE_NONE && !(h->rope_factor > 0.0f)) return llm__fail(err, es, LLM_ERR_BAD_FILE, "rope factor must be > 0");
    if (h->rope_scaling == LLM_ROPE_LLAMA3 && (h->rope_original_max_pos < 1 || !(h->rope_low_freq_factor > 0.0f) ||
                                               !(h->rope_high_freq_factor > h->rope_low_freq_factor)))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "llama3 rope scaling parameters are out of range");
    if ((r = llm__check_switches(h, err, es))) return r;
    if (h->pooling < LLM_POOLING_MEAN || h->pooling > LLM_POOLING_FIRST || (unsigned)h->embd_normalize > 1 || (unsigned)h->no_lm_head > 1 ||
        (h->no_lm_head && h->tied_embeddings))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: pooling %d, embedding_normalize %d or no_lm_head %d (tied %d) is out of range",
                         h->pooling, h->embd_normalize, h->no_lm_head, h->tied_embeddings);
    if (h->bos_id < -1 || h->bos_id >= h->n_vocab) return llm__fail(err, es, LLM_ERR_BAD_FILE, "bos_token_id %d is outside the vocabulary", h->bos_id);
    for (i = 0; i < h->n_stop_ids; i++)
        if (h->stop_ids[i] < 0 || h->stop_ids[i] >= h->n_vocab)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "eos token id %d is outside the vocabulary", h->stop_ids[i]);
    return LLM_OK;
}

/* The mixture-of-experts keys; a file without llm.expert_count is dense, and one with it
   has them all in range. */
static llm_result llm__read_moe_info(llm_model *m, char *err, size_t es) {
    llm_model_info *h = &m->info;
    const llm__meta *lay = llm__meta_find(m, LLM_KEY_EXPERT_LAYERS);
    llm_result r;
    int il;
    if ((r = llm__meta_i32(m, LLM_KEY_N_EXPERT, 0, &h->n_expert, err, es))) return r;
    if (h->n_expert == 0) {
        if (lay || llm__meta_find(m, LLM_KEY_N_EXPERT_USED) || llm__meta_find(m, LLM_KEY_EXPERT_FF))
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: expert keys without '%s'", LLM_KEY_N_EXPERT);
        return LLM_OK;
    }
    if ((r = llm__meta_i32(m, LLM_KEY_N_EXPERT_USED, 1, &h->n_expert_used, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_EXPERT_FF, 1, &h->n_ff_expert, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_EXPERT_NORM_TOPK, 0, &h->expert_norm_topk, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_SHARED_EXPERT_FF, 0, &h->n_ff_shared, err, es)))
        return r;
    if (h->n_expert < 1 || h->n_expert > LLM_MAX_EXPERTS)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "expert_count %d is out of range [1, %d]", h->n_expert, LLM_MAX_EXPERTS);
    if (h->n_expert_used < 1 || h->n_expert_used > h->n_expert)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "expert_used_count %d is not in [1, expert_count %d]", h->n_expert_used, h->n_expert);
    if (h->n_ff_expert < 1 || h->n_ff_expert > (1 << 22) || h->n_ff_shared < 0 || h->n_ff_shared > (1 << 22))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "expert intermediate size %d or shared expert size %d is out of range",
                         h->n_ff_expert, h->n_ff_shared);
    if ((unsigned)h->expert_norm_topk > 1) return llm__fail(err, es, LLM_ERR_BAD_FILE, "expert_norm_topk_prob must be 0 or 1");
    if (lay && (lay->type != LLM_META_I32_ARRAY || lay->size != (uint64_t)h->n_layer * 4))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' must hold one i32 per layer", LLM_KEY_EXPERT_LAYERS);
    for (il = 0; il < h->n_layer; il++) {
        uint32_t v = lay ? llm__rd32(lay->data + 4 * (size_t)il) : 1;
        if (v > 1) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s'[%d] is %u, not 0 or 1", LLM_KEY_EXPERT_LAYERS, il, v);
        h->n_layer_sparse += (int32_t)v;
    }
    return LLM_OK;
}

static int llm__layer_is_sparse(const llm_model *m, int il) {
    const llm__meta *lay = llm__meta_find(m, LLM_KEY_EXPERT_LAYERS);
    return m->info.n_expert > 0 && (!lay || llm__rd32(lay->data + 4 * (size_t)il) != 0);
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

/* A sparse layer's router, routed experts and shared expert (names as Qwen-MoE's). */
static llm_result llm__bind_experts(llm_model *m, int il, char *err, size_t es) {
    const llm_model_info *h = &m->info;
    llm__layer *L = &m->layers[il];
    llm__expert *E = m->experts + (size_t)il * (size_t)h->n_expert;
    int64_t D = h->n_embd, F = h->n_ff_expert, S = h->n_ff_shared;
    char n[128];
    llm_result r;
    int e;
#define LLM__BIND_MOE(field, d0, d1, ...) \
    snprintf(n, sizeof n, __VA_ARGS__); \
    if ((r = llm__bind(m, &field, n, d0, d1, 0, err, es)) != LLM_OK) return r;
    LLM__BIND_MOE(L->router, h->n_expert, D, "model.layers.%d.mlp.gate.weight", il)
    for (e = 0; e < h->n_expert; e++) {
        LLM__BIND_MOE(E[e].gate, F, D, "model.layers.%d.mlp.experts.%d.gate_proj.weight", il, e)
        LLM__BIND_MOE(E[e].up, F, D, "model.layers.%d.mlp.experts.%d.up_proj.weight", il, e)
        LLM__BIND_MOE(E[e].down, D, F, "model.layers.%d.mlp.experts.%d.down_proj.weight", il, e)
    }
    if (S > 0) {
        LLM__BIND_MOE(L->shared.gate, S, D, "model.layers.%d.mlp.shared_expert.gate_proj.weight", il)
        LLM__BIND_MOE(L->shared.up, S, D, "model.layers.%d.mlp.shared_expert.up_proj.weight", il)
        LLM__BIND_MOE(L->shared.down, D, S, "model.layers.%d.mlp.shared_expert.down_proj.weight", il)
        LLM__BIND_MOE(L->shared_gate, 1, D, "model.layers.%d.mlp.shared_expert_gate.weight", il)
    }
#undef LLM__BIND_MOE
    L->experts = E;
    return LLM_OK;
}

static llm_result llm__bind_layer(llm_model *m, int il, char *err, size_t es) {
    const llm_model_info *h = &m->info;
    llm__layer *L = &m->layers[il];
    int64_t q_dim = (int64_t)h->n_head * h->head_dim, kv_dim = (int64_t)h->n_head_kv * h->head_dim;
    int full = h->qk_norm == LLM_QK_NORM_FULL, pre = h->block_norms == LLM_BLOCK_PRE, post = h->block_norms == LLM_BLOCK_POST;
    char n[96];
    llm_result r;
#define LLM__BIND(field, suffix, d0, d1, opt) \
    snprintf(n, sizeof n, "model.layers.%d.%s", il, suffix); \
    if ((r = llm__bind(m, &L->field, n, d0, d1, opt, err, es)) != LLM_OK) return r;
    /* HF's names: post_attention_layernorm is the MLP's input norm in a pre-norm block and the
       attention output's norm in the other two. */
    if (!post) { LLM__BIND(attn_norm, "input_layernorm.weight", h->n_embd, 0, 0) }
    if (!pre) { LLM__BIND(post_attn_norm, "post_attention_layernorm.weight", h->n_embd, 0, 0) }
    if (!pre) { LLM__BIND(post_ffn_norm, "post_feedforward_layernorm.weight", h->n_embd, 0, 0) }
    if (h->block_norms == LLM_BLOCK_SANDWICH) { LLM__BIND(ffn_norm, "pre_feedforward_layernorm.weight", h->n_embd, 0, 0) }
    LLM__BIND(wq, "self_attn.q_proj.weight", q_dim, h->n_embd, 0)
    LLM__BIND(wk, "self_attn.k_proj.weight", kv_dim, h->n_embd, 0)
    LLM__BIND(wv, "self_attn.v_proj.weight", kv_dim, h->n_embd, 0)
    LLM__BIND(wo, "self_attn.o_proj.weight", h->n_embd, q_dim, 0)
    LLM__BIND(bq, "self_attn.q_proj.bias", q_dim, 0, 1)
    LLM__BIND(bk, "self_attn.k_proj.bias", kv_dim, 0, 1)
    LLM__BIND(bv, "self_attn.v_proj.bias", kv_dim, 0, 1)
    LLM__BIND(bo, "self_attn.o_proj.bias", h->n_embd, 0, 1)
    LLM__BIND(q_norm, "self_attn.q_norm.weight", full ? q_dim : h->head_dim, 0, !h->qk_norm)
    LLM__BIND(k_norm, "self_attn.k_norm.weight", full ? kv_dim : h->head_dim, 0, !h->qk_norm)
    if (pre) { LLM__BIND(ffn_norm, "post_attention_layernorm.weight", h->n_embd, 0, 0) }
    if (llm__layer_is_sparse(m, il)) return llm__bind_experts(m, il, err, es);
    LLM__BIND(w_gate, "mlp.gate_proj.weight", h->n_ff, h->n_embd, 0)
    LLM__BIND(w_up, "mlp.up_proj.weight", h->n_ff, h->n_embd, 0)
    LLM__BIND(w_down, "mlp.down_proj.weight", h->n_embd, h->n_ff, 0)
#undef LLM__BIND
    return LLM_OK;
}

/* A per-layer i32 array key, or NULL when absent. */
static llm_result llm__layer_array(const llm_model *m, const char *key, const llm__meta **out, char *err, size_t es) {
    const llm__meta *e = llm__meta_find(m, key);
    *out = e;
    if (e && (e->type != LLM_META_I32_ARRAY || e->size != (uint64_t)m->info.n_layer * 4))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' must hold one i32 per layer", key);
    return LLM_OK;
}

/* The per-dimension RoPE frequencies, computed once at open: the model's, LongRoPE's long
   ones and the local layers' when the file has them. */
static llm_result llm__rope_setup(llm_model *m, char *err, size_t es) {
    const llm_model_info *h = &m->info;
    size_t half = (size_t)h->rope_dim / 2;
    int il, local = 0;
    for (il = 0; il < h->n_layer; il++) local |= m->layers[il].rope == LLM_LAYER_ROPE_LOCAL;
    m->rope_inv_freq = (float *)llm__calloc(&m->alloc, 3 * half, sizeof(float));
    if (!m->rope_inv_freq) return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    if (local) {
        m->rope_inv_freq_local = m->rope_inv_freq + 2 * half;
        llm__rope_inv_freq_plain(m->rope_inv_freq_local, h, h->rope_theta_local);
    }
    if (h->rope_scaling == LLM_ROPE_YARN) {
        llm__rope_inv_freq_yarn(m->rope_inv_freq, h);
    } else if (h->rope_scaling == LLM_ROPE_LONGROPE) {
        const llm__meta *sf = llm__meta_find(m, LLM_KEY_ROPE_SHORT), *lf = llm__meta_find(m, LLM_KEY_ROPE_LONG);
        size_t i;
        if (!sf || !lf || sf->type != LLM_META_BLOB || lf->type != LLM_META_BLOB || sf->size != 4 * half || lf->size != 4 * half)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "longrope: 'llm.rope_short_factor' and 'llm.rope_long_factor' must hold rope_dim / 2 f32 each");
        for (i = 0; i < half; i++) {
            float a, b;
            memcpy(&a, sf->data + 4 * i, 4);
            memcpy(&b, lf->data + 4 * i, 4);
            if (!(a > 0.0f && a < FLT_MAX) || !(b > 0.0f && b < FLT_MAX))
                return llm__fail(err, es, LLM_ERR_BAD_FILE, "longrope: factor %d is not a positive number", (int)i);
        }
        m->rope_inv_freq_long = m->rope_inv_freq + half;
        llm__rope_inv_freq_longrope(m->rope_inv_freq, h, sf->data);
        llm__rope_inv_freq_longrope(m->rope_inv_freq_long, h, lf->data);
    } else {
        llm__rope_inv_freq(m->rope_inv_freq, h);
    }
    return LLM_OK;
}

/* The routed experts' share of the weights, of which a token reads n_expert_used / n_expert. */
static void llm__count_experts(llm_model *m) {
    llm_model_info *h = &m->info;
    int il, e, j;
    h->expert_params = 0;
    h->expert_bytes = 0;
    for (il = 0; il < h->n_layer; il++)
        for (e = 0; m->layers[il].experts && e < h->n_expert; e++)
            for (j = 0; j < 3; j++) {
                const llm__expert *x = &m->layers[il].experts[e];
                const llm_tensor *t = j == 0 ? x->gate : j == 1 ? x->up : x->down;
                h->expert_params += t->shape[0] * t->shape[1];
                h->expert_bytes += t->size;
            }
}

static llm_result llm__bind_model(llm_model *m, char *err, size_t es) {
    const llm_model_info *h = &m->info;
    const llm__meta *win = llm__meta_find(m, LLM_KEY_SLIDING_WINDOW), *ropes = NULL;
    llm_result r;
    size_t i;
    int il;
    if ((r = llm__bind(m, &m->tok_embd, "model.embed_tokens.weight", h->n_vocab, h->n_embd, 0, err, es)) ||
        (r = llm__bind(m, &m->norm, "model.norm.weight", h->n_embd, 0, 0, err, es)))
        return r;
    if (h->tied_embeddings) m->output = m->tok_embd;
    else if (!h->no_lm_head && (r = llm__bind(m, &m->output, "lm_head.weight", h->n_vocab, h->n_embd, 0, err, es))) return r;
    if (win && (win->type != LLM_META_I32_ARRAY || win->size != (uint64_t)h->n_layer * 4))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: 'llm.sliding_window' must hold one i32 per layer");
    if ((r = llm__layer_array(m, LLM_KEY_LAYER_ROPE, &ropes, err, es))) return r;
    m->layers = (llm__layer *)llm__calloc(&m->alloc, (size_t)h->n_layer, sizeof *m->layers);
    if (h->n_expert > 0) m->experts = (llm__expert *)llm__calloc(&m->alloc, (size_t)h->n_layer * (size_t)h->n_expert, sizeof *m->experts);
    if (!m->layers || (h->n_expert > 0 && !m->experts)) return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    for (il = 0; il < h->n_layer; il++) {
        if ((r = llm__bind_layer(m, il, err, es)) != LLM_OK) return r;
        m->layers[il].window = win ? (int32_t)llm__rd32(win->data + 4 * (size_t)il) : 0;
        if (m->layers[il].window < 0) return llm__fail(err, es, LLM_ERR_BAD_FILE, "layer %d: negative sliding window", il);
        m->layers[il].rope = ropes ? (int32_t)llm__rd32(ropes->data + 4 * (size_t)il) : LLM_LAYER_ROPE_GLOBAL;
        if ((uint32_t)m->layers[il].rope > LLM_LAYER_ROPE_LOCAL) return llm__fail(err, es, LLM_ERR_BAD_FILE, "layer %d: unknown rope kind %d", il, m->layers[il].rope);
    }
    if ((r = llm__rope_setup(m, err, es))) return r;
    m->info.weight_bytes = 0;
    m->info.n_params = 0;
    for (i = 0; i < m->n_tensors; i++) {
        int64_t c = 1;
        int d;
        for (d = 0; d < m->tensors[i].n_dims; d++) c *= m->tensors[i].shape[d];
        m->info.n_params += c;
        m->info.weight_bytes += m->tensors[i].size;
    }
    llm__count_experts(m);
    return LLM_OK;
}

/* What a vocab-only open reads: the token ids, and the vocabulary size when present. */
static llm_result llm__read_vocab_info(llm_model *m, char *err, size_t es) {
    llm_model_info *h = &m->info;
    const llm__meta *stop = llm__meta_find(m, LLM_KEY_EOS_IDS);
    size_t len, i;
    const char *arch = llm_model_meta_string(m, LLM_KEY_ARCH, &len);
    llm_result r;
    memset(h, 0, sizeof *h);
    h->bos_id = -1;
    h->arch_name = "none";
    if (arch) {
        memcpy(m->arch_name, arch, len < sizeof m->arch_name - 1 ? len : sizeof m->arch_name - 1);
        h->arch_name = m->arch_name;
    }
    if ((r = llm__meta_i32(m, LLM_KEY_N_VOCAB, 0, &h->n_vocab, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_BOS_ID, 0, &h->bos_id, err, es)))
        return r;
    if (stop && stop->type == LLM_META_I32_ARRAY && stop->size % 4 == 0 && stop->size / 4 <= LLM_MAX_STOP_IDS) {
        h->n_stop_ids = (int32_t)(stop->size / 4);
        for (i = 0; i < (size_t)h->n_stop_ids; i++) h->stop_ids[i] = (int32_t)llm__rd32(stop->data + 4 * i);
    }
    return LLM_OK;
}

static llm_result llm__model_load(llm_model *m, char *err, size_t es) {
    uint64_t meta_off = 0, meta_size = 0, tab_off = 0, tab_size = 0, n_tensors = 0, data_off = 0;
    int32_t vocab_file = 0;
    llm_result r;
    if (!llm__is_little_endian())
        return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "big-endian hosts are not supported");
    if ((uintptr_t)m->data % 4 != 0)
        return llm__fail(err, es, LLM_ERR_INVALID_ARGUMENT, "the model's bytes must start at a 4-byte aligned address");
    if ((r = llm__parse_header(m, &meta_off, &meta_size, &tab_off, &tab_size, &n_tensors, &data_off, err, es)) ||
        (r = llm__parse_meta(m, meta_off, meta_size, err, es)) ||
        (r = llm__parse_tensors(m, tab_off, tab_size, n_tensors, data_off, err, es)) ||
        (r = llm__meta_i32(m, LLM_KEY_VOCAB_ONLY, 0, &vocab_file, err, es)))
        return r;
    if (vocab_file && !m->vocab_only)
        return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "the file holds only a tokenizer (convert --vocab-only): open it with vocab_only");
    if (m->vocab_only) {
        if ((r = llm__read_vocab_info(m, err, es)) || (r = llm__tok_load(m, err, es))) return r;
        if (m->info.n_vocab <= 0 && m->tok) m->info.n_vocab = llm_tokenizer_info_get(m)->n_tokens;
        return LLM_OK;
    }
    if ((r = llm__read_info(m, err, es)) || (r = llm__check_info(&m->info, err, es)) || (r = llm__read_moe_info(m, err, es)) ||
        (r = llm__bind_model(m, err, es)) || (r = llm__tok_load(m, err, es)))
        return r;
    return LLM_OK;
}

static void llm__model_free(llm_model *m) {
    llm_allocator a;
    if (!m) return;
    a = m->alloc;
    llm__free(&a, m->meta);
    llm__free(&a, m->tensors);
    llm__free(&a, m->by_name);
    llm__free(&a, m->names);
    llm__free(&a, m->layers);
    llm__free(&a, m->experts);
    llm__free(&a, m->rope_inv_freq);
    llm__tok_free(m);
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
    if (m) { m->alloc = a; m->vocab_only = desc ? desc->vocab_only : 0; }
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
    if ((r = llm__model_open_common(out, m, desc)) == LLM_OK) (*out)->info.weights_mapped = m->view.mapped;
    return r;
}
#endif

LLMDEF void llm_model_close(llm_model *model) { llm__model_free(model); }

LLMDEF const llm_model_info *llm_model_info_get(const llm_model *model) { return model ? &model->info : NULL; }

/* ---- llm: context ------------------------------------------------------------------------- */
/* The expert feed-forward's scratch (llm__moe_scratch), for n_batch tokens and
   n_expert_used experts each; every row index below is a (token, expert) pair. */
typedef struct llm__moe_bufs {
    float *logits, *prob;      /* router logits [n_batch][n_expert]; one token's softmax */
    int32_t *sel;              /* [n_batch][n_expert_used] the chosen experts, by weight */
    float *wt;                 /* their weights */
    int32_t *count, *first;    /* pairs per expert, and where its rows start */
    int32_t *active;           /* the experts with pairs, ascending */
    int32_t n_active;
    int32_t *rows;             /* the token of each pair, grouped by expert */
    float *row_wt;             /* its routing weight */
    float *gx, *gh, *gh2, *gy; /* gathered inputs, gate and up activations, expert outputs */
    float *acc;                /* [n_batch][n_embd] the weighted sum */
    float *sh, *sh2, *sy, *sg; /* the shared expert's activations, output and gate logit */
    uint8_t *xq;               /* gathered inputs quantized, c->xq_stride a row */
    float *xp;                 /* and packed (16-bit weights), when the kernels pack */
    llm__mm *mm;               /* 2 per expert: gate and up, or down */
} llm__moe_bufs;

struct llm_ctx {
    const llm_model *model;
    llm_allocator alloc;
    int32_t n_ctx, n_batch, pos;
    llm_kv_type kv_type;
    const llm__kernels *kern;
    llm_kernels kernels;       /* the set kern is, for llm_ctx_kernels */
    int32_t bf16_dot;          /* prompts of bf16 weights take kern->mm_bf16_dot */
    int prefetch;              /* llm__mm.prefetch */
    llm__workers workers;      /* workers.n threads, the caller included */
    llm__contention contention;
    void *k_cache, *v_cache;   /* [layer][kv_head][n_ctx][head_dim] */
    size_t kv_bytes;
    size_t memory_bytes;       /* the caches, scratch, token ids and sampler scratch together */
    /* scratch, sized for n_batch tokens, carved from one block (llm__ctx_scratch) */
    void *scratch;
    float *x, *xb, *q, *k, *v, *att_out, *hb, *hb2, *scores, *logits, *rope;
    float *rope_local;         /* the local layers' angles, when the model has such layers */
    double *pool;              /* llm_embed's sums, n_embd */
    int32_t rope_long;         /* LongRoPE: this llm_eval call takes the long factors */
    uint8_t *xq;
    size_t xq_stride;
    float *xp;                 /* packed activations (llm__pack_x), when the kernels take them */
    llm__moe_bufs moe;         /* models with experts */
    int32_t *tokens;           /* the ids at positions [0, pos) */
    void *sample_scratch;      /* llm_sample_scratch_bytes(n_vocab) */
    int32_t logits_all;        /* logits holds n_batch rows, else 1 */
    int32_t logits_first, n_logits; /* the rows held: positions [logits_first, +n_logits) */
    char error[256];
};

LLMDEF uint64_t llm_kv_cache_bytes(int64_t n_layer, int64_t n_head_kv, int64_t head_dim, int64_t n_ctx,
                                   int64_t bytes_per_element) {
    return 2u * (uint64_t)n_layer * (uint64_t)n_head_kv * (uint64_t)head_dim * (uint64_t)n_ctx * (uint64_t)bytes_per_element;
}

static void llm__ctx_free(llm_ctx *c) {
    llm_allocator a = c->alloc;
    llm__workers_close(&c->workers);
    llm__free(&a, c->k_cache); llm__free(&a, c->v_cache);
    llm__free(&a, c->scratch);
    llm__free(&a, c->tokens); llm__free(&a, c->sample_scratch);
    llm__free(&a, c);
}

/* 1 when a matrix of the model has 16-bit weights (they may want packed activations). */
static int llm__model_has_w16(const llm_model *m) {
    size_t i;
    for (i = 0; i < m->n_tensors; i++)
        if (llm__is_w16(m->tensors[i].dtype)) return 1;
    return 0;
}

/* The next part of a block, at a multiple of 64 bytes (sizes in 64 bits: too big shows as
   a total past SIZE_MAX). */
static uint64_t llm__part(uint64_t *total, uint64_t n, uint64_t size) {
    uint64_t at = *total;
    *total = n && size > ((uint64_t)1 << 56) / n ? (uint64_t)1 << 62 : *total + (n * size + 63) / 64 * 64;
    return at;
}

/* The expert feed-forward's part of the scratch block: its size, and with a base, its
   buffers pointed into it. 0 for a dense model. */
static uint64_t llm__moe_scratch(llm_ctx *c, size_t B, uint8_t *base) {
    const llm_model_info *h = &c->model->info;
    llm__moe_bufs *M = &c->moe;
    uint64_t t = 0, E = (uint64_t)h->n_expert, BK = (uint64_t)B * (uint64_t)h->n_expert_used, D = 4 * (uint64_t)h->n_embd;
    uint64_t F = 4 * (uint64_t)h->n_ff_expert, S = 4 * (uint64_t)h->n_ff_shared, max_in = D > F ? D : F;
    uint64_t o_logits, o_prob, o_sel, o_wt, o_count, o_first, o_active, o_rows, o_rw, o_gx, o_gh, o_gh2, o_gy, o_acc;
    uint64_t o_sh, o_sh2, o_sy, o_sg, o_xq, o_xp, o_mm;
    int packs = c->kern->x_tile && llm__model_has_w16(c->model);
    if (E == 0) return 0;
    o_logits = llm__part(&t, B, 4 * E); o_prob = llm__part(&t, 1, 4 * E);
    o_sel = llm__part(&t, BK, 4); o_wt = llm__part(&t, BK, 4);
    o_count = llm__part(&t, E, 4); o_first = llm__part(&t, E + 1, 4); o_active = llm__part(&t, E, 4);
    o_rows = llm__part(&t, BK, 4); o_rw = llm__part(&t, BK, 4);
    o_gx = llm__part(&t, BK, D); o_gh = llm__part(&t, BK, F); o_gh2 = llm__part(&t, BK, F); o_gy = llm__part(&t, BK, D);
    o_acc = llm__part(&t, B, D);
    o_sh = llm__part(&t, B, S); o_sh2 = llm__part(&t, B, S); o_sy = llm__part(&t, S ? B : 0, D); o_sg = llm__part(&t, S ? B : 0, 4);
    o_xq = llm__part(&t, BK, c->xq_stride); o_xp = llm__part(&t, packs ? BK : 0, max_in);
    o_mm = llm__part(&t, 2 * E, sizeof(llm__mm));
    if (!base) return t;
    M->logits = (float *)(base + o_logits); M->prob = (float *)(base + o_prob);
    M->sel = (int32_t *)(base + o_sel); M->wt = (float *)(base + o_wt);
    M->count = (int32_t *)(base + o_count); M->first = (int32_t *)(base + o_first); M->active = (int32_t *)(base + o_active);
    M->rows = (int32_t *)(base + o_rows); M->row_wt = (float *)(base + o_rw);
    M->gx = (float *)(base + o_gx); M->gh = (float *)(base + o_gh); M->gh2 = (float *)(base + o_gh2); M->gy = (float *)(base + o_gy);
    M->acc = (float *)(base + o_acc);
    M->sh = (float *)(base + o_sh); M->sh2 = (float *)(base + o_sh2); M->sy = (float *)(base + o_sy); M->sg = (float *)(base + o_sg);
    M->xq = base + o_xq; M->xp = packs ? (float *)(base + o_xp) : NULL;
    M->mm = (llm__mm *)(base + o_mm);
    return t;
}

/* The forward pass's scratch buffers come from one block and start on 64-byte boundaries, so
   the rows of outputs that different threads write (groups of 16 floats) do not share cache
   lines. Returns the bytes the block takes (2^62 or more when it is too big); with a base,
   points the buffers into it. The attention scores come last: they grow with n_ctx, and a
   row is only read as far as it was written, so they are not filled. */
static uint64_t llm__ctx_scratch(llm_ctx *c, size_t B, size_t max_in, uint8_t *base, uint64_t *filled) {
    const llm_model_info *h = &c->model->info;
    uint64_t total = 0, q_dim = (uint64_t)h->n_head * (uint64_t)h->head_dim, kv_dim = (uint64_t)h->n_head_kv * (uint64_t)h->head_dim;
    uint64_t o_x = llm__part(&total, B, 4 * (uint64_t)h->n_embd), o_xb = llm__part(&total, B, 4 * (uint64_t)h->n_embd);
    uint64_t o_q = llm__part(&total, B, 4 * q_dim), o_k = llm__part(&total, B, 4 * kv_dim), o_v = llm__part(&total, B, 4 * kv_dim);
    uint64_t o_att = llm__part(&total, B, 4 * q_dim);
    uint64_t o_hb = llm__part(&total, B, 4 * (uint64_t)h->n_ff), o_hb2 = llm__part(&total, B, 4 * (uint64_t)h->n_ff);
    uint64_t o_logits = llm__part(&total, c->logits_all ? B : 1, 4 * (uint64_t)h->n_vocab);
    uint64_t o_rope = llm__part(&total, B, 4 * (uint64_t)h->head_dim * (c->model->rope_inv_freq_local ? 2 : 1)), o_xq = llm__part(&total, B, c->xq_stride);
    int packs = c->kern->x_tile && llm__model_has_w16(c->model);
    uint64_t o_xp = llm__part(&total, packs ? B : 0, 4 * (uint64_t)max_in + 64);
    uint64_t o_moe = llm__part(&total, 1, llm__moe_scratch(c, B, NULL)), o_pool = llm__part(&total, 1, 8 * (uint64_t)h->n_embd);
    uint64_t o_scores = llm__part(&total, (uint64_t)h->n_head, 4 * (uint64_t)c->n_ctx);
    *filled = o_scores;
    if (!base) return total;
    c->x = (float *)(base + o_x); c->xb = (float *)(base + o_xb);
    c->q = (float *)(base + o_q); c->k = (float *)(base + o_k); c->v = (float *)(base + o_v);
    c->att_out = (float *)(base + o_att); c->hb = (float *)(base + o_hb); c->hb2 = (float *)(base + o_hb2);
    c->scores = (float *)(base + o_scores); c->logits = (float *)(base + o_logits); c->rope = (float *)(base + o_rope);
    c->rope_local = c->model->rope_inv_freq_local ? c->rope + B * (size_t)h->head_dim : NULL;
    c->xq = base + o_xq;
    c->pool = (double *)(base + o_pool);
    c->xp = packs ? (float *)(base + o_xp) : NULL;
    llm__moe_scratch(c, B, base + o_moe);
    return total;
}

/* Bytes of physical memory, 0 when unknown: a context that needs more cannot be served. */
static uint64_t llm__physical_memory(void) {
#if defined(_WIN32)
    MEMORYSTATUSEX st;
    st.dwLength = sizeof st;
    return GlobalMemoryStatusEx(&st) ? (uint64_t)st.ullTotalPhys : 0;
#elif (defined(__unix__) || defined(__APPLE__)) && defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
#else
    return 0;
#endif
}

/* A message to the desc's log callback, if it has one (a context has no error text yet). */
static void llm__ctx_log(const llm_ctx_desc *d, const char *fmt, ...) {
    char msg[256];
    va_list ap;
    if (!d->log) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    d->log(d->log_user, msg);
}

/* The desc with its defaults filled in (zero means default); LLM_ERR_INVALID_ARGUMENT for
   values out of range. */
static llm_result llm__ctx_defaults(llm_ctx_desc *d, const llm_model_info *h) {
    if (d->n_ctx < 0 || d->n_threads < 0 || d->n_batch < 0 || (unsigned)d->kv_type > LLM_KV_F16 ||
        (unsigned)d->kernels >= LLM_KERNELS_COUNT)
        return LLM_ERR_INVALID_ARGUMENT;
    if (d->n_ctx == 0) d->n_ctx = h->n_ctx_train < LLM_CTX_DEFAULT_N_CTX ? h->n_ctx_train : LLM_CTX_DEFAULT_N_CTX;
    if (d->n_batch == 0) d->n_batch = LLM_CTX_DEFAULT_N_BATCH;
    if (d->n_batch > d->n_ctx) d->n_batch = d->n_ctx;
    if (d->n_threads == 0) d->n_threads = llm__threads_default();
    if (d->n_threads > LLM_MAX_THREADS) d->n_threads = LLM_MAX_THREADS;
    if (d->kv_type == LLM_KV_DEFAULT) d->kv_type = LLM_KV_F16;
    if (d->kernels == LLM_KERNELS_AUTO) d->kernels = llm_kernels_best();
    return LLM_OK;
}

/* Every size of a context, checked before anything is allocated: c->kv_bytes (one of K, V),
   the scratch block (*scratch, of which the first *filled bytes are zeroed) and the total.
   0 when a size does not fit in size_t. */
static uint64_t llm__ctx_sizes(llm_ctx *c, size_t max_in, uint64_t *scratch, uint64_t *filled) {
    const llm_model_info *h = &c->model->info;
    size_t kv_elems, es = c->kv_type == LLM_KV_F16 ? 2 : 4;
    uint64_t total, sample = llm_sample_scratch_bytes(h->n_vocab);
    if (!llm__mul_ok((size_t)h->n_layer * (size_t)h->n_head_kv * (size_t)h->head_dim, (size_t)c->n_ctx, &kv_elems) ||
        !llm__mul_ok(kv_elems, es, &c->kv_bytes) || c->kv_bytes > (size_t)-1 / 2)
        return 0;
    *scratch = llm__ctx_scratch(c, (size_t)c->n_batch, max_in, NULL, filled) + 64;
    total = 2 * (uint64_t)c->kv_bytes + *scratch + 4 * (uint64_t)c->n_ctx + sample;
    return *scratch > (uint64_t)(size_t)-1 || total > (uint64_t)(size_t)-1 || total < *scratch ? 0 : total;
}

LLMDEF llm_result llm_ctx_open(llm_ctx **out, const llm_model *model, const llm_ctx_desc *desc) {
    llm_ctx_desc d;
    llm_ctx *c;
    const llm_model_info *h;
    size_t max_in;
    uint64_t need, scratch = 0, filled = 0, phys;
    if (!out) return LLM_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!model) return LLM_ERR_INVALID_ARGUMENT;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (model->vocab_only) {
        llm__ctx_log(&d, "the model was opened vocab_only, without its tensors");
        return LLM_ERR_UNSUPPORTED;
    }
    h = &model->info;
    if (llm__ctx_defaults(&d, h) != LLM_OK) {
        llm__ctx_log(&d, "llm_ctx_open: n_ctx %d, n_threads %d, n_batch %d, kv_type %d or kernels %d is out of range", d.n_ctx,
                 d.n_threads, d.n_batch, (int)d.kv_type, (int)d.kernels);
        return LLM_ERR_INVALID_ARGUMENT;
    }
    if (!llm_kernels_supported(d.kernels)) {
        llm__ctx_log(&d, "llm_ctx_open: the %s kernels are not in this build or this CPU cannot run them (best here: %s)",
                     llm_kernels_name(d.kernels), llm_kernels_name(llm_kernels_best()));
        return LLM_ERR_UNSUPPORTED;
    }
    if (h->n_ctx_train > 0 && d.n_ctx > h->n_ctx_train)
        llm__ctx_log(&d, "n_ctx %d exceeds the model's trained context of %d positions; quality may degrade", d.n_ctx, h->n_ctx_train);
    c = (llm_ctx *)llm__calloc(&d.allocator, 1, sizeof *c);
    if (!c) { llm__ctx_log(&d, "out of memory"); return LLM_ERR_OUT_OF_MEMORY; }
    c->model = model; c->alloc = d.allocator;
    c->n_ctx = d.n_ctx; c->n_batch = d.n_batch; c->kv_type = d.kv_type;
    c->logits_all = d.logits_all != 0;
    c->kernels = d.kernels;
    c->kern = llm__kernels_get(d.kernels);
    c->bf16_dot = d.bf16_dot && c->kern->mm_bf16_dot && llm__cpu_bf16(c->kern->xb_rows);
    c->prefetch = d.prefetch ? d.prefetch > 0 : llm__cpu_prefetch(d.kernels);
    max_in = (size_t)(h->n_ff > h->n_embd ? h->n_ff : h->n_embd);
    if ((size_t)h->n_head * (size_t)h->head_dim > max_in) max_in = (size_t)h->n_head * (size_t)h->head_dim;
    if ((size_t)h->n_ff_expert > max_in) max_in = (size_t)h->n_ff_expert;
    if ((size_t)h->n_ff_shared > max_in) max_in = (size_t)h->n_ff_shared;
    c->xq_stride = llm__xq_stride((int)max_in);
    need = llm__ctx_sizes(c, max_in, &scratch, &filled);
    c->memory_bytes = (size_t)need;
    phys = llm__physical_memory();
    if (need == 0 || (phys && need > phys)) {
        if (need == 0) llm__ctx_log(&d, "n_ctx %d: the context's size does not fit in this address space", d.n_ctx);
        else llm__ctx_log(&d, "n_ctx %d needs %llu bytes (KV cache %llu), more than this machine's %llu bytes of memory", d.n_ctx,
                      (unsigned long long)need, 2 * (unsigned long long)c->kv_bytes, (unsigned long long)phys);
        llm__ctx_free(c);
        return LLM_ERR_OUT_OF_MEMORY;
    }
    /* Nothing below fills the cache or the token ids: position p is written before it is
       read, so pages are touched only as the context grows. */
    c->k_cache = llm__alloc(&c->alloc, c->kv_bytes);
    c->v_cache = llm__alloc(&c->alloc, c->kv_bytes);
    c->kv_bytes *= 2;
    if ((c->scratch = llm__alloc(&c->alloc, (size_t)scratch)) != NULL) {
        uint8_t *base = (uint8_t *)c->scratch + (64 - (uintptr_t)c->scratch % 64) % 64;
        memset(base, 0, (size_t)filled);
        llm__ctx_scratch(c, (size_t)c->n_batch, max_in, base, &filled);
    }
    c->tokens = (int32_t *)llm__alloc(&c->alloc, (size_t)c->n_ctx * 4);
    c->sample_scratch = llm__alloc(&c->alloc, llm_sample_scratch_bytes(h->n_vocab));
    if (!c->tokens || !c->sample_scratch || !c->k_cache || !c->v_cache || !c->scratch ||
        llm__workers_open(&c->workers, d.n_threads, &c->alloc) != LLM_OK) {
        llm__ctx_log(&d, "out of memory: n_ctx %d needs %llu bytes", d.n_ctx, (unsigned long long)need);
        llm__ctx_free(c);
        return LLM_ERR_OUT_OF_MEMORY;
    }
    *out = c;
    return LLM_OK;
}

LLMDEF void llm_ctx_close(llm_ctx *ctx) { if (ctx) llm__ctx_free(ctx); }
LLMDEF const char *llm_ctx_error(const llm_ctx *ctx) { return ctx ? ctx->error : "no context"; }
LLMDEF llm_kernels llm_ctx_kernels(const llm_ctx *ctx) { return ctx->kernels; }
LLMDEF int llm_ctx_bf16_dot(const llm_ctx *ctx) { return ctx->bf16_dot; }
LLMDEF int llm_ctx_prefetch(const llm_ctx *ctx) { return ctx->prefetch; }
LLMDEF const float *llm_logits(const llm_ctx *ctx) {
    return ctx && ctx->n_logits ? ctx->logits + (size_t)(ctx->n_logits - 1) * (size_t)ctx->model->info.n_vocab : NULL;
}
LLMDEF const float *llm_logits_at(const llm_ctx *ctx, int32_t pos) {
    if (!ctx || pos < ctx->logits_first || pos >= ctx->logits_first + ctx->n_logits) return NULL;
    return ctx->logits + (size_t)(pos - ctx->logits_first) * (size_t)ctx->model->info.n_vocab;
}
LLMDEF int32_t llm_ctx_pos(const llm_ctx *ctx) { return ctx ? ctx->pos : 0; }
LLMDEF int32_t llm_ctx_size(const llm_ctx *ctx) { return ctx ? ctx->n_ctx : 0; }
LLMDEF int32_t llm_ctx_batch(const llm_ctx *ctx) { return ctx ? ctx->n_batch : 0; }
LLMDEF const llm_model *llm_ctx_model(const llm_ctx *ctx) { return ctx ? ctx->model : NULL; }
LLMDEF size_t llm_ctx_kv_bytes(const llm_ctx *ctx) { return ctx ? ctx->kv_bytes : 0; }
LLMDEF size_t llm_ctx_memory_bytes(const llm_ctx *ctx) { return ctx ? ctx->memory_bytes : 0; }
LLMDEF const int32_t *llm_ctx_tokens(const llm_ctx *ctx) { return ctx ? ctx->tokens : NULL; }

LLMDEF llm_result llm_ctx_rewind(llm_ctx *ctx, int32_t pos) {
    if (!ctx) return LLM_ERR_INVALID_ARGUMENT;
    if (pos < 0 || pos > ctx->pos) {
        snprintf(ctx->error, sizeof ctx->error, "cannot rewind to position %d: the context holds %d tokens", pos, ctx->pos);
        return LLM_ERR_INVALID_ARGUMENT;
    }
    ctx->pos = pos;
    ctx->n_logits = 0; /* the logits belong to a token that is gone */
    return LLM_OK;
}

/* Cache row of (layer, kv head, position): [layer][kv_head][n_ctx][head_dim]. */
static size_t llm__kv_index(const llm_ctx *c, int layer, int kv_head, int pos) {
    const llm_model_info *h = &c->model->info;
    return (((size_t)layer * (size_t)h->n_head_kv + (size_t)kv_head) * (size_t)c->n_ctx + (size_t)pos) * (size_t)h->head_dim;
}

/* ---- llm: forward pass --------------------------------------------------------------------
   Read llm_eval first (the tokens, n_batch at a time), then llm__forward_chunk (embedding,
   layers, logits), then llm__block (one layer: the jobs it hands to llm__run, each a struct
   with its chunk function: matrix products, attention, the SwiGLU feed-forward). */

/* Runs a job's chunks on the calling thread alone when the contention policy says so, else on
   every worker, and tells the policy how long that took. */
static void llm__run(llm_ctx *c, llm__chunk_fn fn, void *job, int n_chunks, double work) {
    int k, wake, n = llm__contention_threads(&c->contention, c->workers.n, work, &wake);
    if (wake) llm__workers_wake(&c->workers);
    if (n == 1) {
        for (k = 0; k < n_chunks; k++) fn(job, k);
        return;
    }
    llm__contention_record(&c->contention, llm__workers_run(&c->workers, n_chunks, fn, job), n_chunks);
}

/* Steps done token by token (a block's norms, the quantization and packing of a product's
   activations) run on the workers too when a chunk has many tokens: fn(job, t0, t1) on slices
   of `slice` tokens. A token's arithmetic is the same whichever thread does it. */
#define LLM__SLICE_WORK 16.0 /* an element counts as 16 multiply-adds for the contention policy's
                                 threshold (a norm's costs more: about 60 of a product's at full
                                 speed), so a step of a few tokens stays on the caller */
typedef void (*llm__slice_fn)(void *job, int t0, int t1);
typedef struct llm__slices {
    llm__slice_fn fn;
    void *job;
    int n_tok, slice;
} llm__slices;

static void llm__slice_chunk(void *arg, int chunk) {
    const llm__slices *s = (const llm__slices *)arg;
    int t0 = chunk * s->slice;
    s->fn(s->job, t0, t0 + s->slice < s->n_tok ? t0 + s->slice : s->n_tok);
}

static void llm__run_slices(llm_ctx *c, llm__slice_fn fn, void *job, int n_tok, int slice, int width) {
    llm__slices s;
    if (n_tok <= slice) { fn(job, 0, n_tok); return; }
    s.fn = fn; s.job = job; s.n_tok = n_tok; s.slice = slice;
    llm__run(c, llm__slice_chunk, &s, (n_tok + slice - 1) / slice, LLM__SLICE_WORK * n_tok * width);
}

static void llm__kv_store(llm_ctx *c, void *cache, size_t idx, const float *src, int n) {
    int i;
    if (c->kv_type == LLM_KV_F16) for (i = 0; i < n; i++) ((uint16_t *)cache)[idx + (size_t)i] = llm_f32_to_f16(src[i]);
    else memcpy((float *)cache + idx, src, (size_t)n * 4);
}

/* Causal GQA attention of one query head over cached positions [first, last]; query head
   h reads kv head h / (n_head / n_head_kv), as HF's repeat_kv does. */
static void llm__attention_head(llm_ctx *c, int layer, int head, const float *q, int first, int last, float *scores,
                                float *out) {
    const llm_model_info *h = &c->model->info;
    const llm__kernels *K = c->kern;
    int kvh = head / (h->n_head / h->n_head_kv), n = last - first + 1, hd = h->head_dim;
    float scale = h->attn_scale > 0.0f ? h->attn_scale : 1.0f / sqrtf((float)hd);
    size_t i0 = llm__kv_index(c, layer, kvh, first);
    if (c->kv_type == LLM_KV_F16) K->scores_f16((const uint16_t *)c->k_cache + i0, q, hd, n, scale, scores);
    else K->scores_f32((const float *)c->k_cache + i0, q, hd, n, scale, scores);
    if (h->attn_softcap > 0.0f) llm__softcap(scores, (size_t)n, h->attn_softcap);
    K->softmax(scores, n);
    if (c->kv_type == LLM_KV_F16) K->values_f16(out, scores, (const uint16_t *)c->v_cache + i0, hd, n);
    else K->values_f32(out, scores, (const float *)c->v_cache + i0, hd, n);
}

/* The RoPE angles of the chunk's positions for one set of frequencies: per token (a row of
   head_dim), cos in [0, r/2) and sin in [r/2, r) for the rope_dim r, times the attention
   factor as HF scales cos and sin. */
static void llm__rope_angles(llm_ctx *c, float *table, const float *inv_freq, float factor, int n_tok) {
    const llm_model_info *h = &c->model->info;
    int b, i, half = h->rope_dim / 2;
    for (b = 0; b < n_tok; b++) {
        float *row = table + (size_t)b * (size_t)h->head_dim;
        for (i = 0; i < half; i++) {
            float angle = (float)(c->pos + b) * inv_freq[i];
            row[i] = cosf(angle);
            row[half + i] = sinf(angle);
            if (factor != 1.0f) { row[i] *= factor; row[half + i] *= factor; }
        }
    }
}

/* Once per chunk; LongRoPE's factors as llm_eval chose them for the call. */
static void llm__rope_table(llm_ctx *c, int n_tok) {
    const llm_model *m = c->model;
    const float *f = c->rope_long ? m->rope_inv_freq_long : m->rope_inv_freq;
    llm__rope_angles(c, c->rope, f, m->info.rope_attn_factor, n_tok);
    if (c->rope_local) llm__rope_angles(c, c->rope_local, m->rope_inv_freq_local, 1.0f, n_tok);
}

/* q, k: RMSNorm per head (Qwen3, Gemma 3) or over all heads (OLMo 2), then the layer's RoPE
   on the first rope_dim dimensions of each head; k and v go into the cache. */
static void llm__qk_prepare(llm_ctx *c, const llm__layer *L, int layer, int n_tok) {
    const llm_model_info *h = &c->model->info;
    int b, hh, hd = h->head_dim, rd = h->rope_dim, head = h->qk_norm == LLM_QK_NORM_HEAD;
    size_t q_dim = (size_t)h->n_head * hd, kv_dim = (size_t)h->n_head_kv * hd;
    const float *table = L->rope == LLM_LAYER_ROPE_LOCAL ? c->rope_local : c->rope;
    for (b = 0; b < n_tok; b++) {
        int pos = c->pos + b;
        const float *cs = table + (size_t)b * hd;
        float *q = c->q + (size_t)b * q_dim, *k = c->k + (size_t)b * kv_dim, *v = c->v + (size_t)b * kv_dim;
        if (h->qk_norm == LLM_QK_NORM_FULL) {
            llm__norm(h, q, q, L->q_norm, (int)q_dim);
            llm__norm(h, k, k, L->k_norm, (int)kv_dim);
        }
        for (hh = 0; hh < h->n_head; hh++) {
            if (head) llm__norm(h, q + hh * hd, q + hh * hd, L->q_norm, hd);
            if (L->rope) llm__rope_rotate_half(q + hh * hd, rd, cs);
        }
        for (hh = 0; hh < h->n_head_kv; hh++) {
            if (head) llm__norm(h, k + hh * hd, k + hh * hd, L->k_norm, hd);
            if (L->rope) llm__rope_rotate_half(k + hh * hd, rd, cs);
            llm__kv_store(c, c->k_cache, llm__kv_index(c, layer, hh, pos), k + hh * hd, hd);
            llm__kv_store(c, c->v_cache, llm__kv_index(c, layer, hh, pos), v + hh * hd, hd);
        }
    }
}

/* The attention of a step's queries, one query head per chunk. */
typedef struct llm__attention_job {
    llm_ctx *c;
    int layer, n_tok;
} llm__attention_job;

/* Each query of the step attends to the cache up to its own position (causal). */
static void llm__attention_chunk(void *arg, int hh) {
    const llm__attention_job *job = (const llm__attention_job *)arg;
    llm_ctx *c = job->c;
    const llm_model_info *h = &c->model->info;
    const llm__layer *L = &c->model->layers[job->layer];
    size_t q_dim = (size_t)h->n_head * h->head_dim;
    int b;
    for (b = 0; b < job->n_tok; b++) {
        int pos = c->pos + b;
        /* HF's sliding window keeps key j for query i when i - j < window. */
        int first = L->window > 0 && pos - L->window + 1 > 0 ? pos - L->window + 1 : 0;
        llm__attention_head(c, job->layer, hh, c->q + (size_t)b * q_dim + (size_t)hh * h->head_dim, first, pos,
                            c->scores + (size_t)hh * c->n_ctx, c->att_out + (size_t)b * q_dim + (size_t)hh * h->head_dim);
    }
}

static void llm__attention(llm_ctx *c, int layer, int n_tok) {
    llm__attention_job job;
    int q_dim = c->model->info.n_head * c->model->info.head_dim;
    job.c = c;
    job.layer = layer;
    job.n_tok = n_tok;
    llm__run(c, llm__attention_chunk, &job, c->model->info.n_head, 2.0 * q_dim * n_tok * (c->pos + n_tok));
}

/* Points m[0, n) at the products out[j] = w[j] x over the same input x ([n_tok][n_in]),
   quantized or packed first when a weight takes it so. Returns the rows of a chunk; *work gets
   the multiply-adds. */
static int llm__mm_setup(llm_ctx *c, llm__mm *m, int n, const llm_tensor *const *w, float *const *out, const float *x,
                         int n_tok, int n_in, double *work) {
    int j, quant = 0, w16 = 0, bf16 = 1, rows = 0, chunk_rows;
    const float *xp = NULL;
    const uint32_t *xb = NULL;
    llm__prepare_job p;
    *work = 0.0;
    for (j = 0; j < n; j++) {
        m[j].w = w[j]; m[j].x = x; m[j].xq = c->xq; m[j].xq_stride = c->xq_stride; m[j].out = out[j]; m[j].prefetch = c->prefetch;
        bf16 &= w[j]->dtype == LLM_DTYPE_BF16;
        m[j].n_tok = n_tok; m[j].n_in = n_in; m[j].n_out = (int)w[j]->shape[0];
        quant |= llm__is_quant(w[j]->dtype);
        w16 |= llm__is_w16(w[j]->dtype);
        rows += m[j].n_out;
        *work += (double)m[j].n_out * n_in * n_tok;
    }
    llm__prepare_init(&p, c->kern, x, n_tok, n_in, quant, w16, c->xq, c->xq_stride, c->xp);
    /* (bf16 pairs fit in xp: 2 bytes a column, and a line's padding in the 64 bytes a token the
       buffer has over) */
    if (c->bf16_dot && bf16 && n_tok > 1 && c->xp) p.pack = c->kern->xb_rows ? LLM__PACK_BF16_ROWS : LLM__PACK_BF16;
    /* slices of whole tiles */
    if (p.quant || p.pack) llm__run_slices(c, llm__prepare_slice, &p, n_tok, c->kern->x_tile ? c->kern->x_tile : 8, n_in);
    if (p.pack == LLM__PACK_F32) xp = c->xp;
    else if (p.pack) xb = (const uint32_t *)c->xp;
    for (j = 0; j < n; j++) { m[j].xp = xp; m[j].xb = xb; }
    /* 32 rows (two interleaved groups) per chunk, 128 for one token (taking a chunk costs
       about as much as the memory reads of 32 rows), more for matrices with millions of rows */
    for (chunk_rows = (n_tok == 1 ? 8 : 2) * LLM__QG; rows / chunk_rows >= 1 << 19;) chunk_rows *= 2;
    return chunk_rows;
}

#define LLM__MAX_MATMULS 3

/* Up to three matrix products over the same input (q, k and v), in chunks of rows, each with
   an optional bias; a single product may add its result into a residual (x += W a). */
typedef struct llm__matmul_job {
    const llm__kernels *kern;
    llm__mm mm[LLM__MAX_MATMULS];
    const llm_tensor *bias[LLM__MAX_MATMULS];
    float *residual;
    int chunk_rows, first_chunk[LLM__MAX_MATMULS + 1];
} llm__matmul_job;

/* dst[i] += src[i]: the residual and bias adds. Eight sources are read before any sum is
   stored, so that the compiler may add them as vectors without knowing that the two do not
   overlap (one element at a time, a prompt's residual adds took 5% of a one-thread q8_0
   prompt). */
static void llm__add_rows(float *dst, const float *src, int n) {
    int i = 0, k;
    for (; i + 8 <= n; i += 8) {
        float s[8];
        for (k = 0; k < 8; k++) s[k] = src[i + k];
        for (k = 0; k < 8; k++) dst[i + k] += s[k];
    }
    for (; i < n; i++) dst[i] += src[i];
}

static void llm__matmul_chunk(void *arg, int chunk) {
    const llm__matmul_job *job = (const llm__matmul_job *)arg;
    int j = 0, r0, r1, t;
    const llm__mm *m;
    while (chunk >= job->first_chunk[j + 1]) j++;
    m = &job->mm[j];
    r0 = (chunk - job->first_chunk[j]) * job->chunk_rows;
    r1 = r0 + job->chunk_rows < m->n_out ? r0 + job->chunk_rows : m->n_out;
    llm__mm_run(job->kern, m, r0, r1);
    for (t = 0; t < m->n_tok; t++) {
        float *o = m->out + (size_t)t * (size_t)m->n_out;
        if (job->bias[j]) llm__add_rows(o + r0, (const float *)job->bias[j]->data + r0, r1 - r0);
        if (job->residual) llm__add_rows(job->residual + (size_t)t * (size_t)m->n_out + (size_t)r0, o + r0, r1 - r0);
    }
}

static void llm__matmuls(llm_ctx *c, const float *x, int n_tok, int n_in, int n, const llm_tensor *const *w,
                         const llm_tensor *const *bias, float *const *out, float *residual) {
    llm__matmul_job job;
    double work;
    int j;
    job.kern = c->kern;
    job.residual = residual;
    job.chunk_rows = llm__mm_setup(c, job.mm, n, w, out, x, n_tok, n_in, &work);
    job.first_chunk[0] = 0;
    for (j = 0; j < n; j++) {
        job.bias[j] = bias ? bias[j] : NULL;
        job.first_chunk[j + 1] = job.first_chunk[j] + (job.mm[j].n_out + job.chunk_rows - 1) / job.chunk_rows;
    }
    llm__run(c, llm__matmul_chunk, &job, job.first_chunk[n], work);
}

static void llm__matmul1(llm_ctx *c, const float *x, int n_tok, int n_in, const llm_tensor *w, float *out, float *residual) {
    llm__matmuls(c, x, n_tok, n_in, 1, &w, NULL, &out, residual);
}

/* The gate and up products (mm[0], mm[1]) of the same rows in each chunk, then gate =
   act(gate) * up on them. */
typedef struct llm__swiglu_job {
    const llm__kernels *kern;
    llm__mm mm[2];
    int chunk_rows;
    llm_activation act;
} llm__swiglu_job;

static void llm__swiglu_chunk(void *arg, int chunk) {
    const llm__swiglu_job *job = (const llm__swiglu_job *)arg;
    const llm__mm *g = &job->mm[0], *u = &job->mm[1];
    int t, r0 = chunk * job->chunk_rows, r1 = r0 + job->chunk_rows < g->n_out ? r0 + job->chunk_rows : g->n_out;
    llm__mm_run(job->kern, g, r0, r1);
    llm__mm_run(job->kern, u, r0, r1);
    for (t = 0; t < g->n_tok; t++) {
        float *gt = g->out + (size_t)t * (size_t)g->n_out + r0;
        const float *ut = u->out + (size_t)t * (size_t)g->n_out + r0;
        if (job->act == LLM_ACT_GELU_TANH) job->kern->geglu(gt, ut, r1 - r0);
        else if (job->act == LLM_ACT_GELU) llm__gelu_erf_gate(gt, ut, r1 - r0);
        else job->kern->swiglu(gt, ut, r1 - r0);
    }
}

/* hb = act(w_gate in) * (w_up in). */
static void llm__swiglu_ffn(llm_ctx *c, const llm__layer *L, const float *in, int n_tok) {
    llm__swiglu_job job;
    const llm_tensor *w[2];
    float *out[2];
    double work;
    w[0] = L->w_gate; w[1] = L->w_up;
    out[0] = c->hb; out[1] = c->hb2;
    job.kern = c->kern;
    job.act = c->model->info.activation;
    job.chunk_rows = llm__mm_setup(c, job.mm, 2, w, out, in, n_tok, c->model->info.n_embd, &work);
    llm__run(c, llm__swiglu_chunk, &job, (job.mm[0].n_out + job.chunk_rows - 1) / job.chunk_rows, work);
}

/* ---- mixture of experts ----
   A sparse layer's feed-forward, as transformers' MoE blocks (MixtralSparseMoeBlock,
   Qwen3MoeSparseMoeBlock, Qwen2MoeSparseMoeBlock, OlmoeSparseMoeBlock) compute it: router logits, the chosen
   experts of each token, then the chunk's (token, expert) pairs grouped by expert, so that
   an expert's weights are read once per chunk and never when no token chose it. */

/* One token's choice: softmax over every expert in float32, the k most probable (equal
   ones by lower index, torch.topk's order under deterministic algorithms; a NaN counts as
   the largest, as torch sorts it), and with norm their weights divided by their sum. */
static void llm__moe_route(const float *logits, int n_expert, int k, int norm, float *p, int32_t *sel, float *wt) {
    float sum = 0.0f;
    int j, e;
    memcpy(p, logits, (size_t)n_expert * sizeof *p);
    llm__softmax(p, n_expert);
    for (j = 0; j < k; j++) {
        int best = -1;
        for (e = 0; e < n_expert; e++) {
            if (p[e] == -1.0f) continue; /* taken: probabilities are never negative */
            if (best < 0 || p[e] > p[best] || (p[e] != p[e] && p[best] == p[best])) best = e;
        }
        sel[j] = best;
        wt[j] = p[best];
        p[best] = -1.0f;
    }
    for (j = 0; j < k && norm; j++) sum += wt[j];
    for (j = 0; j < k && norm; j++) wt[j] /= sum;
}

/* Groups the chunk's pairs by expert (ascending, and by token within one): expert e's rows
   are [first[e], first[e] + count[e]), each with its token, weight and gathered input. */
static void llm__moe_group(llm_ctx *c, const float *in, int n_tok) {
    const llm_model_info *h = &c->model->info;
    llm__moe_bufs *M = &c->moe;
    int E = h->n_expert, k = h->n_expert_used, D = h->n_embd, t, j, e;
    memset(M->count, 0, (size_t)E * sizeof *M->count);
    for (t = 0; t < n_tok * k; t++) M->count[M->sel[t]]++;
    M->first[0] = 0;
    M->n_active = 0;
    for (e = 0; e < E; e++) {
        M->first[e + 1] = M->first[e] + M->count[e];
        if (M->count[e]) M->active[M->n_active++] = e;
        M->count[e] = 0;
    }
    for (t = 0; t < n_tok; t++)
        for (j = 0; j < k; j++) {
            int32_t x = M->sel[t * k + j], i = M->first[x] + M->count[x]++;
            M->rows[i] = t;
            M->row_wt[i] = M->wt[t * k + j];
            memcpy(M->gx + (size_t)i * D, in + (size_t)t * D, (size_t)D * sizeof(float));
        }
}

/* m over n rows of x ([n][n_in], already gathered) into out, its activations quantized into
   xq and packed into xp as the weights of w and w2 (which may be NULL) want them. */
static double llm__moe_mm(llm_ctx *c, llm__mm *m, const llm_tensor *w, const llm_tensor *w2, const float *x, int n,
                          int n_in, uint8_t *xq, float *xp, float *out, float *out2) {
    int quant = llm__is_quant(w->dtype) || (w2 && llm__is_quant(w2->dtype));
    int w16 = llm__is_w16(w->dtype) || (w2 && llm__is_w16(w2->dtype));
    const float *packed = llm__prepare_x(c->kern, x, n, n_in, quant, w16, xq, c->xq_stride, xp);
    int j;
    for (j = 0; j < (w2 ? 2 : 1); j++) {
        m[j].w = j ? w2 : w; m[j].x = x; m[j].xq = xq; m[j].xq_stride = c->xq_stride; m[j].xp = packed; m[j].xb = NULL;
        m[j].out = j ? out2 : out; m[j].n_tok = n; m[j].n_in = n_in; m[j].n_out = (int)m[j].w->shape[0]; m[j].prefetch = c->prefetch;
    }
    return (double)m[0].n_out * n_in * n * (w2 ? 2 : 1);
}

/* The active experts' products, chunks of rows of one expert at a time: gate and up with
   act(gate) * up (mm[2a], mm[2a + 1] of active expert a), or down (mm[a]). */
typedef struct llm__moe_job {
    const llm__kernels *kern;
    const llm__mm *mm;
    int per_expert, chunk_rows, up;
    llm_activation act;
} llm__moe_job;

static void llm__moe_chunk(void *arg, int chunk) {
    const llm__moe_job *job = (const llm__moe_job *)arg;
    int a = chunk / job->per_expert, r0 = (chunk % job->per_expert) * job->chunk_rows, r1;
    if (job->up) {
        llm__swiglu_job s;
        s.kern = job->kern;
        s.mm[0] = job->mm[2 * a];
        s.mm[1] = job->mm[2 * a + 1];
        s.chunk_rows = job->chunk_rows;
        s.act = job->act;
        llm__swiglu_chunk(&s, chunk % job->per_expert);
        return;
    }
    r1 = r0 + job->chunk_rows < job->mm[a].n_out ? r0 + job->chunk_rows : job->mm[a].n_out;
    llm__mm_run(job->kern, &job->mm[a], r0, r1);
}

/* gy = down(act(gate gx) * up gx) for every active expert's rows; both passes split each
   expert's rows among the threads, so one token's few experts keep every core busy. */
static void llm__moe_experts(llm_ctx *c, const llm__layer *L, int n_tok) {
    const llm_model_info *h = &c->model->info;
    llm__moe_bufs *M = &c->moe;
    size_t D = (size_t)h->n_embd, F = (size_t)h->n_ff_expert;
    llm__moe_job job;
    double work = 0.0;
    int a;
    job.kern = c->kern;
    job.mm = M->mm;
    job.act = h->activation;
    job.chunk_rows = (n_tok == 1 ? 8 : 2) * LLM__QG;
    for (a = 0; a < M->n_active; a++) {
        const llm__expert *x = &L->experts[M->active[a]];
        size_t f = (size_t)M->first[M->active[a]];
        int n = M->first[M->active[a] + 1] - M->first[M->active[a]];
        work += llm__moe_mm(c, &M->mm[2 * a], x->gate, x->up, M->gx + f * D, n, (int)D, M->xq + f * c->xq_stride,
                            M->xp ? M->xp + f * D : NULL, M->gh + f * F, M->gh2 + f * F);
    }
    job.up = 1;
    job.per_expert = ((int)F + job.chunk_rows - 1) / job.chunk_rows;
    llm__run(c, llm__moe_chunk, &job, M->n_active * job.per_expert, work);
    work = 0.0;
    for (a = 0; a < M->n_active; a++) {
        const llm__expert *x = &L->experts[M->active[a]];
        size_t f = (size_t)M->first[M->active[a]];
        int n = M->first[M->active[a] + 1] - M->first[M->active[a]];
        work += llm__moe_mm(c, &M->mm[a], x->down, NULL, M->gh + f * F, n, (int)F, M->xq + f * c->xq_stride,
                            M->xp ? M->xp + f * F : NULL, M->gy + f * D, NULL);
    }
    job.up = 0;
    job.per_expert = ((int)D + job.chunk_rows - 1) / job.chunk_rows;
    llm__run(c, llm__moe_chunk, &job, M->n_active * job.per_expert, work);
}

/* Qwen2-MoE's shared expert: sy = down(act(gate in) * up in), sg = shared_expert_gate in. */
static void llm__moe_shared(llm_ctx *c, const llm__layer *L, const float *in, int n_tok) {
    const llm_model_info *h = &c->model->info;
    llm__swiglu_job job;
    const llm_tensor *w[2];
    float *out[2];
    double work;
    w[0] = L->shared.gate; w[1] = L->shared.up;
    out[0] = c->moe.sh; out[1] = c->moe.sh2;
    job.kern = c->kern;
    job.act = h->activation;
    job.chunk_rows = llm__mm_setup(c, job.mm, 2, w, out, in, n_tok, h->n_embd, &work);
    llm__run(c, llm__swiglu_chunk, &job, (job.mm[0].n_out + job.chunk_rows - 1) / job.chunk_rows, work);
    llm__matmul1(c, c->moe.sh, n_tok, h->n_ff_shared, L->shared.down, c->moe.sy, NULL);
    llm__matmul1(c, in, n_tok, h->n_embd, L->shared_gate, c->moe.sg, NULL);
}

/* out = the weighted expert outputs of each token, summed in ascending expert order from
   zero as HF's index_add_ loop does, plus sigmoid(sg) * sy with a shared expert; added into
   residual instead when residual is given. */
static void llm__moe_combine(llm_ctx *c, const llm__layer *L, int n_tok, float *out, float *residual) {
    llm__moe_bufs *M = &c->moe;
    size_t D = (size_t)c->model->info.n_embd, d;
    int a, i, t;
    memset(M->acc, 0, (size_t)n_tok * D * sizeof(float));
    for (a = 0; a < M->n_active; a++)
        for (i = M->first[M->active[a]]; i < M->first[M->active[a] + 1]; i++) {
            float *acc = M->acc + (size_t)M->rows[i] * D, w = M->row_wt[i];
            const float *y = M->gy + (size_t)i * D;
            for (d = 0; d < D; d++) acc[d] += y[d] * w;
        }
    for (t = 0; t < n_tok; t++) {
        float *acc = M->acc + (size_t)t * D, *o = (residual ? residual : out) + (size_t)t * D;
        if (L->shared.gate) {
            float g = 1.0f / (1.0f + expf(-M->sg[t]));
            for (d = 0; d < D; d++) acc[d] += g * M->sy[(size_t)t * D + d];
        }
        if (residual) llm__add_rows(o, acc, D);
        else memcpy(o, acc, D * sizeof(float));
    }
}

/* out = moe(in) for a sparse layer, or residual += moe(in). */
static void llm__moe_ffn(llm_ctx *c, const llm__layer *L, const float *in, int n_tok, float *out, float *residual) {
    const llm_model_info *h = &c->model->info;
    llm__moe_bufs *M = &c->moe;
    int t, k = h->n_expert_used;
    llm__matmul1(c, in, n_tok, h->n_embd, L->router, M->logits, NULL);
    for (t = 0; t < n_tok; t++)
        llm__moe_route(M->logits + (size_t)t * h->n_expert, h->n_expert, k, h->expert_norm_topk, M->prob, M->sel + t * k,
                       M->wt + t * k);
    llm__moe_group(c, in, n_tok);
    llm__moe_experts(c, L, n_tok);
    if (L->shared.gate) llm__moe_shared(c, L, in, n_tok);
    llm__moe_combine(c, L, n_tok, out, residual);
}

/* The feed-forward network of a layer on in ([n_tok][n_embd]): out = down(act(gate in) *
   (up in)), or the experts' sum in a sparse layer, added into residual instead when
   residual is given. The one place a layer's FFN is computed. */
static void llm__ffn(llm_ctx *c, int layer, const float *in, int n_tok, float *out, float *residual) {
    const llm__layer *L = &c->model->layers[layer];
    if (L->experts) {
        llm__moe_ffn(c, L, in, n_tok, out, residual);
        return;
    }
    llm__swiglu_ffn(c, L, in, n_tok);
    llm__matmul1(c, c->hb, n_tok, c->model->info.n_ff, L->w_down, out, residual);
}

/* A block's norm of its input or its output, tokens [t0, t1). */
typedef struct llm__norm_job {
    llm_ctx *c;
    const llm_tensor *norm;
    const float *out; /* the output's, else NULL for the input's */
} llm__norm_job;

/* xb = norm(x) */
static void llm__input_slice(void *arg, int t0, int t1) {
    const llm__norm_job *j = (const llm__norm_job *)arg;
    const llm_model_info *h = &j->c->model->info;
    int b, D = h->n_embd;
    for (b = t0; b < t1; b++) llm__norm(h, j->c->xb + (size_t)b * D, j->c->x + (size_t)b * D, j->norm, D);
}

/* x += norm(out) * residual_scale, the norm when the block has one on its outputs. */
static void llm__output_slice(void *arg, int t0, int t1) {
    const llm__norm_job *j = (const llm__norm_job *)arg;
    const llm_model_info *h = &j->c->model->info;
    int b, i, D = h->n_embd;
    for (b = t0; b < t1; b++) {
        float *x = j->c->x + (size_t)b * D, *o = j->c->xb + (size_t)b * D;
        const float *out = j->out + (size_t)b * D;
        if (j->norm) llm__norm(h, o, out, j->norm, D);
        else if (o != out) memcpy(o, out, (size_t)D * 4);
        if (h->residual_scale != 1.0f) for (i = 0; i < D; i++) x[i] += o[i] * h->residual_scale;
        else llm__add_rows(x, o, D);
    }
}

#define LLM__NORM_SLICE 8 /* tokens */

/* The input of a block's attention or FFN: norm(x) into xb, or x itself without a norm. */
static const float *llm__block_input(llm_ctx *c, const llm_tensor *norm, int n_tok) {
    llm__norm_job j;
    if (!norm) return c->x;
    j.c = c; j.norm = norm; j.out = NULL;
    llm__run_slices(c, llm__input_slice, &j, n_tok, LLM__NORM_SLICE, c->model->info.n_embd);
    return c->xb;
}

/* x += norm(out) * residual_scale over the block's tokens (llm__output_slice). */
static void llm__block_output(llm_ctx *c, const llm_tensor *norm, const float *out, int n_tok) {
    llm__norm_job j;
    j.c = c; j.norm = norm; j.out = out;
    llm__run_slices(c, llm__output_slice, &j, n_tok, LLM__NORM_SLICE, c->model->info.n_embd);
}

/* One block over n_tok tokens, its norms where llm_block_norms says: x += attn(norm(x));
   x += ffn(norm(x)) for a pre-norm block. The residual add is fused into the output
   product when nothing comes between them. */
static void llm__block(llm_ctx *c, int layer, int n_tok) {
    const llm_model_info *h = &c->model->info;
    const llm__layer *L = &c->model->layers[layer];
    int D = h->n_embd, q_dim = h->n_head * h->head_dim, fuse = h->residual_scale == 1.0f;
    const llm_tensor *qkv[3], *qkv_bias[3];
    float *qkv_out[3];
    const float *in;
    qkv[0] = L->wq; qkv[1] = L->wk; qkv[2] = L->wv;
    qkv_bias[0] = L->bq; qkv_bias[1] = L->bk; qkv_bias[2] = L->bv;
    qkv_out[0] = c->q; qkv_out[1] = c->k; qkv_out[2] = c->v;
    in = llm__block_input(c, L->attn_norm, n_tok);
    llm__matmuls(c, in, n_tok, D, 3, qkv, qkv_bias, qkv_out, NULL);
    llm__qk_prepare(c, L, layer, n_tok);
    llm__attention(c, layer, n_tok);
    if (fuse && !L->post_attn_norm) {
        llm__matmuls(c, c->att_out, n_tok, q_dim, 1, &L->wo, &L->bo, &c->xb, c->x);
    } else {
        llm__matmuls(c, c->att_out, n_tok, q_dim, 1, &L->wo, &L->bo, &c->xb, NULL);
        llm__block_output(c, L->post_attn_norm, c->xb, n_tok);
    }
    in = llm__block_input(c, L->ffn_norm, n_tok);
    if (fuse && !L->post_ffn_norm) {
        llm__ffn(c, layer, in, n_tok, c->xb, c->x);
    } else {
        llm__ffn(c, layer, in, n_tok, c->xb, NULL);
        llm__block_output(c, L->post_ffn_norm, c->xb, n_tok);
    }
}

/* Granite's division by logits_scaling, then Gemma 2's soft-capping of the logits. */
static void llm__logits_scale(const llm_model_info *h, float *logits, size_t n) {
    size_t i;
    if (h->logits_divisor != 1.0f) for (i = 0; i < n; i++) logits[i] /= h->logits_divisor;
    if (h->final_softcap > 0.0f) llm__softcap(logits, n, h->final_softcap);
}

/* Runs a chunk of at most n_batch tokens through the layers: their hidden states are then
   in c->x (before the final norm), their keys and values in the cache. */
static void llm__forward_layers(llm_ctx *c, const int32_t *tokens, int n_tok) {
    const llm_model *m = c->model;
    const llm_model_info *h = &m->info;
    int b, layer, D = h->n_embd;
    for (b = 0; b < n_tok; b++) llm__get_row(m->tok_embd, tokens[b], c->x + (size_t)b * D, D);
    if (h->embd_scale != 1.0f)
        for (b = 0; b < n_tok * D; b++) c->x[b] *= h->embd_scale;
    memcpy(c->tokens + c->pos, tokens, (size_t)n_tok * sizeof *tokens);
    llm__rope_table(c, n_tok);
    for (layer = 0; layer < h->n_layer; layer++) llm__block(c, layer, n_tok);
    c->pos += n_tok;
}

/* Evaluates a chunk of at most n_batch tokens; logits for the chunk's last token, or for
   all of them with logits_all. */
static void llm__forward_chunk(llm_ctx *c, const int32_t *tokens, int n_tok, int want_logits) {
    const llm_model *m = c->model;
    const llm_model_info *h = &m->info;
    int b, D = h->n_embd, first = c->logits_all ? 0 : n_tok - 1;
    llm__forward_layers(c, tokens, n_tok);
    if (!want_logits) return;
    for (b = first; b < n_tok; b++) llm__norm(h, c->xb + (size_t)(b - first) * D, c->x + (size_t)b * D, m->norm, D);
    llm__matmul1(c, c->xb, n_tok - first, D, m->output, c->logits, NULL);
    llm__logits_scale(h, c->logits, (size_t)(n_tok - first) * (size_t)h->n_vocab);
    c->logits_first = c->pos - (n_tok - first);
    c->n_logits = n_tok - first;
}

/* Whether n tokens can follow position pos (the message names the caller); then the
   LongRoPE switch for the call: the long factors in a call whose sequence (its last position
   + 1) passes the original context, as HF's longrope_frequency_update does for each forward
   call, however many chunks it takes. */
static llm_result llm__begin_call(llm_ctx *ctx, const char *fn, const int32_t *tokens, size_t n, int32_t pos) {
    size_t i;
    if (!tokens || n == 0) {
        snprintf(ctx->error, sizeof ctx->error, "%s: no tokens given", fn);
        return LLM_ERR_INVALID_ARGUMENT;
    }
    if (n > (size_t)(ctx->n_ctx - pos)) {
        snprintf(ctx->error, sizeof ctx->error, "%s: %llu tokens at position %d pass the context size %d", fn, (unsigned long long)n, pos,
                 ctx->n_ctx);
        return LLM_ERR_CONTEXT_FULL;
    }
    for (i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= ctx->model->info.n_vocab) {
            snprintf(ctx->error, sizeof ctx->error, "%s: token %d at index %llu is outside the vocabulary (%d)", fn, tokens[i],
                     (unsigned long long)i, ctx->model->info.n_vocab);
            return LLM_ERR_BAD_TOKEN;
        }
    ctx->rope_long = ctx->model->rope_inv_freq_long && (int64_t)pos + (int64_t)n > ctx->model->info.rope_original_max_pos;
    return LLM_OK;
}

LLMDEF llm_result llm_eval(llm_ctx *ctx, const int32_t *tokens, size_t n) {
    size_t i;
    llm_result r;
    if (!ctx) return LLM_ERR_INVALID_ARGUMENT;
    if (ctx->model->info.no_lm_head) {
        snprintf(ctx->error, sizeof ctx->error, "llm_eval: the model has no LM head (an embedding model): llm_embed runs it");
        return LLM_ERR_UNSUPPORTED;
    }
    if ((r = llm__begin_call(ctx, "llm_eval", tokens, n, ctx->pos)) != LLM_OK) return r;
    for (i = 0; i < n; i += (size_t)ctx->n_batch) {
        size_t chunk = n - i < (size_t)ctx->n_batch ? n - i : (size_t)ctx->n_batch;
        llm__forward_chunk(ctx, tokens + i, (int)chunk, i + chunk == n);
    }
    return LLM_OK;
}

/* Adds the final-normed hidden states of the chunk's tokens [b0, b1) to the sums. */
static void llm__pool_add(llm_ctx *c, int b0, int b1) {
    const llm_model *m = c->model;
    int b, i, D = m->info.n_embd;
    for (b = b0; b < b1; b++) {
        llm__norm(&m->info, c->xb, c->x + (size_t)b * D, m->norm, D);
        for (i = 0; i < D; i++) c->pool[i] += c->xb[i];
    }
}

LLMDEF llm_result llm_embed(llm_ctx *ctx, const int32_t *tokens, size_t n, llm_pooling pooling, int normalize, float *out) {
    const llm_model_info *h;
    size_t i;
    int D;
    double scale = 1.0, sq = 0.0;
    llm_result r;
    if (!ctx) return LLM_ERR_INVALID_ARGUMENT;
    h = &ctx->model->info;
    D = h->n_embd;
    if (pooling == LLM_POOLING_MODEL) pooling = (llm_pooling)h->pooling;
    if (normalize < 0) normalize = h->embd_normalize;
    if (!out || (unsigned)pooling > LLM_POOLING_FIRST || normalize > 1) {
        snprintf(ctx->error, sizeof ctx->error, "llm_embed: %s", out ? "unknown pooling or normalize value" : "no output buffer");
        return LLM_ERR_INVALID_ARGUMENT;
    }
    if ((r = llm__begin_call(ctx, "llm_embed", tokens, n, 0)) != LLM_OK) return r;
    ctx->pos = 0;
    ctx->n_logits = 0;
    memset(ctx->pool, 0, (size_t)D * sizeof *ctx->pool);
    for (i = 0; i < n; i += (size_t)ctx->n_batch) {
        int chunk = (int)(n - i < (size_t)ctx->n_batch ? n - i : (size_t)ctx->n_batch);
        llm__forward_layers(ctx, tokens + i, chunk);
        if (pooling == LLM_POOLING_MEAN) llm__pool_add(ctx, 0, chunk);
        else if (pooling == LLM_POOLING_FIRST && i == 0) llm__pool_add(ctx, 0, 1);
        else if (pooling == LLM_POOLING_LAST && i + (size_t)chunk == n) llm__pool_add(ctx, chunk - 1, chunk);
    }
    /* sentence-transformers: the sum over the tokens / their count; F.normalize: / max(|v|, 1e-12) */
    if (pooling == LLM_POOLING_MEAN) scale = 1.0 / (double)n;
    for (i = 0; i < (size_t)D; i++) sq += ctx->pool[i] * scale * (ctx->pool[i] * scale);
    if (normalize) scale /= sqrt(sq) > 1e-12 ? sqrt(sq) : 1e-12;
    for (i = 0; i < (size_t)D; i++) out[i] = (float)(ctx->pool[i] * scale);
    return LLM_OK;
}

/* ---- llm: context state ------------------------------------------------------------------- */
/* Context state (docs/FORMAT.md, "Context state"): a 48-byte header, the token ids, the
   last logits when the context has them, the KV rows [0, n) of each layer and kv head (K
   then V) in the cache's type, and a hash of everything before it. */
#define LLM__STATE_MAGIC "LLMS"
#define LLM__STATE_VERSION 1u
#define LLM__STATE_HEADER 48u

/* The file's header, metadata and tensor table, and the first and last 64 bytes of every
   tensor: another conversion or a fine-tune with the same shapes differs there. */
static uint64_t llm__model_fingerprint(const llm_model *m) {
    uint64_t h = llm__hash64(LLM__HASH_SEED, m->data, (size_t)llm__rd64(m->data + 56));
    size_t i, k;
    for (i = 0; i < m->n_tensors; i++) {
        const llm_tensor *t = &m->tensors[i];
        k = t->size < 64 ? t->size : 64;
        h = llm__hash64(h, t->data, k);
        h = llm__hash64(h, (const uint8_t *)t->data + t->size - k, k);
    }
    return h;
}

static size_t llm__state_size(const llm_ctx *c, int32_t n, int with_logits) {
    const llm_model_info *h = &c->model->info;
    size_t es = c->kv_type == LLM_KV_F16 ? 2 : 4;
    return LLM__STATE_HEADER + (size_t)n * 4 + (with_logits ? (size_t)h->n_vocab * 4 : 0) +
           2 * (size_t)h->n_layer * (size_t)h->n_head_kv * (size_t)h->head_dim * (size_t)n * es + 8;
}

/* Calls fn on the context's memory of each section after the header, in file order. */
static void llm__state_sections(llm_ctx *c, int32_t n, int with_logits, void (*fn)(void *, void *, size_t), void *user) {
    const llm_model_info *h = &c->model->info;
    size_t es = c->kv_type == LLM_KV_F16 ? 2 : 4, row = (size_t)n * (size_t)h->head_dim * es, off;
    int l, kh;
    fn(user, c->tokens, (size_t)n * 4);
    if (with_logits) fn(user, (void *)llm_logits(c), (size_t)h->n_vocab * 4);
    for (l = 0; l < h->n_layer; l++)
        for (kh = 0; kh < h->n_head_kv; kh++) {
            off = llm__kv_index(c, l, kh, 0) * es;
            fn(user, (uint8_t *)c->k_cache + off, row);
            fn(user, (uint8_t *)c->v_cache + off, row);
        }
}

typedef struct llm__state_io {
    uint8_t *out;              /* saving to memory */
    const uint8_t *in;         /* loading */
#if !defined(LLM_NO_STDIO)
    llm__tmp_file *f;          /* saving to a file */
#endif
    uint64_t hash;
    int failed;
} llm__state_io;

static void llm__state_put(void *user, void *mem, size_t size) {
    llm__state_io *io = (llm__state_io *)user;
    io->hash = llm__hash64(io->hash, mem, size);
    if (io->out) { memcpy(io->out, mem, size); io->out += size; }
#if !defined(LLM_NO_STDIO)
    else if (!io->failed && !llm__tmp_write(io->f, mem, size)) io->failed = 1;
#endif
}

static void llm__state_hash(void *user, void *mem, size_t size) {
    llm__state_io *io = (llm__state_io *)user;
    (void)mem;
    io->hash = llm__hash64(io->hash, io->in, size);
    io->in += size;
}

static void llm__state_get(void *user, void *mem, size_t size) {
    llm__state_io *io = (llm__state_io *)user;
    memcpy(mem, io->in, size);
    io->in += size;
}

static int llm__state_has_logits(const llm_ctx *c) { return c->n_logits > 0 && c->logits_first + c->n_logits == c->pos; }

static void llm__state_write(llm_ctx *c, llm__state_io *io) {
    const llm_model_info *h = &c->model->info;
    uint8_t hd[LLM__STATE_HEADER], tail[8];
    int lg = llm__state_has_logits(c);
    memset(hd, 0, sizeof hd);
    memcpy(hd, LLM__STATE_MAGIC, 4);
    llm__wr32(hd + 4, LLM__STATE_VERSION);
    llm__wr64(hd + 8, llm__model_fingerprint(c->model));
    llm__wr32(hd + 16, (uint32_t)h->n_layer); llm__wr32(hd + 20, (uint32_t)h->n_head_kv);
    llm__wr32(hd + 24, (uint32_t)h->head_dim); llm__wr32(hd + 28, (uint32_t)h->n_vocab);
    llm__wr32(hd + 32, (uint32_t)c->kv_type); llm__wr32(hd + 36, (uint32_t)c->pos); llm__wr32(hd + 40, (uint32_t)lg);
    io->hash = LLM__HASH_SEED;
    llm__state_put(io, hd, sizeof hd);
    llm__state_sections(c, c->pos, lg, llm__state_put, io);
    llm__wr64(tail, io->hash);
    llm__state_put(io, tail, sizeof tail);
}

LLMDEF llm_result llm_ctx_save_memory(llm_ctx *ctx, void *buf, size_t cap, size_t *n_out) {
    llm__state_io io;
    if (n_out) *n_out = 0;
    if (!ctx || !n_out || (!buf && cap)) return LLM_ERR_INVALID_ARGUMENT;
    *n_out = llm__state_size(ctx, ctx->pos, llm__state_has_logits(ctx));
    if (cap < *n_out) return LLM_ERR_BUFFER_TOO_SMALL;
    memset(&io, 0, sizeof io);
    io.out = (uint8_t *)buf;
    llm__state_write(ctx, &io);
    return LLM_OK;
}

/* The header against the context; *n tokens, *lg whether logits follow. */
static llm_result llm__state_check(llm_ctx *c, const uint8_t *p, size_t size, int32_t *n, int *lg) {
    const llm_model_info *h = &c->model->info;
    char *e = c->error;
    size_t es = sizeof c->error, need;
    static const char *const kv_names[] = { "?", "f32", "f16" };
    uint32_t kv;
    if (size < 4) return llm__fail(e, es, LLM_ERR_TRUNCATED, "the state has %llu bytes", (unsigned long long)size);
    if (memcmp(p, LLM__STATE_MAGIC, 4) != 0) return llm__fail(e, es, LLM_ERR_BAD_MAGIC, "not a context state (magic is not \"LLMS\")");
    if (size < LLM__STATE_HEADER + 8)
        return llm__fail(e, es, LLM_ERR_TRUNCATED, "the state ends inside its header (%llu bytes)", (unsigned long long)size);
    if (llm__rd32(p + 4) != LLM__STATE_VERSION)
        return llm__fail(e, es, LLM_ERR_BAD_VERSION, "state version %u, this header reads version %u", llm__rd32(p + 4), LLM__STATE_VERSION);
    if (llm__rd64(p + 8) != llm__model_fingerprint(c->model) || llm__rd32(p + 16) != (uint32_t)h->n_layer ||
        llm__rd32(p + 20) != (uint32_t)h->n_head_kv || llm__rd32(p + 24) != (uint32_t)h->head_dim || llm__rd32(p + 28) != (uint32_t)h->n_vocab)
        return llm__fail(e, es, LLM_ERR_WRONG_MODEL, "the state was saved from another model file");
    kv = llm__rd32(p + 32);
    if (kv != (uint32_t)c->kv_type)
        return llm__fail(e, es, LLM_ERR_WRONG_MODEL, "the state's KV cache is %s, the context's %s", kv_names[kv == 1 || kv == 2 ? kv : 0],
                         kv_names[c->kv_type]);
    *n = (int32_t)llm__rd32(p + 36);
    *lg = (int)llm__rd32(p + 40);
    if (*n < 0 || *lg < 0 || *lg > 1 || (*lg && *n == 0) || llm__rd32(p + 44) != 0)
        return llm__fail(e, es, LLM_ERR_BAD_FILE, "the state's header is damaged");
    if (*n > c->n_ctx)
        return llm__fail(e, es, LLM_ERR_CONTEXT_FULL, "the state holds %d tokens, the context %d", *n, c->n_ctx);
    need = llm__state_size(c, *n, *lg);
    if (size != need)
        return llm__fail(e, es, size < need ? LLM_ERR_TRUNCATED : LLM_ERR_BAD_FILE, "the state has %llu bytes, its header says %llu",
                         (unsigned long long)size, (unsigned long long)need);
    return LLM_OK;
}

LLMDEF llm_result llm_ctx_load_memory(llm_ctx *ctx, const void *buf, size_t size) {
    const uint8_t *p = (const uint8_t *)buf;
    llm__state_io io;
    int32_t n = 0, i;
    int lg = 0;
    llm_result r;
    if (!ctx || (!buf && size)) return LLM_ERR_INVALID_ARGUMENT;
    if ((r = llm__state_check(ctx, p, size, &n, &lg)) != LLM_OK) return r;
    memset(&io, 0, sizeof io);
    io.hash = llm__hash64(LLM__HASH_SEED, p, LLM__STATE_HEADER);
    io.in = p + LLM__STATE_HEADER;
    llm__state_sections(ctx, n, lg, llm__state_hash, &io);
    if (io.hash != llm__rd64(p + size - 8))
        return llm__fail(ctx->error, sizeof ctx->error, LLM_ERR_BAD_FILE, "the state is damaged (its checksum does not match)");
    for (i = 0; i < n; i++)
        if ((int32_t)llm__rd32(p + LLM__STATE_HEADER + 4 * (size_t)i) >= ctx->model->info.n_vocab ||
            (int32_t)llm__rd32(p + LLM__STATE_HEADER + 4 * (size_t)i) < 0)
            return llm__fail(ctx->error, sizeof ctx->error, LLM_ERR_BAD_FILE, "the state's token %d is outside the vocabulary", i);
    io.in = p + LLM__STATE_HEADER;
    ctx->n_logits = lg; /* the logits section reads into the first row */
    llm__state_sections(ctx, n, lg, llm__state_get, &io);
    ctx->pos = n;
    ctx->logits_first = n - 1;
    return LLM_OK;
}

#if !defined(LLM_NO_STDIO)
LLMDEF llm_result llm_ctx_save(llm_ctx *ctx, const char *path) {
    llm__state_io io;
    llm__tmp_file t;
    llm_result r;
    if (!ctx || !path) return LLM_ERR_INVALID_ARGUMENT;
    memset(&io, 0, sizeof io);
    if ((r = llm__tmp_open(&t, path, &ctx->alloc, ctx)) != LLM_OK)
        return llm__fail(ctx->error, sizeof ctx->error, r, "%s: cannot create a temporary file beside it", path);
    io.f = &t;
    llm__state_write(ctx, &io);
    if (!llm__tmp_close(&t, path, !io.failed, &ctx->alloc))
        return llm__fail(ctx->error, sizeof ctx->error, LLM_ERR_IO, "%s: write failed (the file is unchanged)", path);
    return LLM_OK;
}

LLMDEF llm_result llm_ctx_load(llm_ctx *ctx, const char *path) {
    llm__file_view v;
    llm_result r;
    if (!ctx || !path) return LLM_ERR_INVALID_ARGUMENT;
    if ((r = llm__map_file(path, &ctx->alloc, 0, &v, ctx->error, sizeof ctx->error)) != LLM_OK) return r;
    r = llm_ctx_load_memory(ctx, v.data, (size_t)v.size);
    llm__unmap_file(&v, &ctx->alloc);
    return r;
}
#endif

/* ---- llm: tokenizer ------------------------------------------------------------------------
   The pipeline of HuggingFace tokenizers (tokenizer/mod.rs), step by step:
     1. added tokens are cut out of the raw text (AddedVocabulary::extract_and_normalize);
     2. each piece between them is normalized (NFC, or SentencePiece's Prepend + Replace),
        and added tokens marked "normalized" are cut out of the normalized piece;
     3. the pre-tokenizer steps split pieces into words (Metaspace, Digits, a Split by a
        regex, which the hand scanners or the regex matcher run, with its behaviour,
        ByteLevel's prefix space); byte-level BPE then works on bytes, the other on chars;
     4. BPE merges each word by rank (models/bpe/word.rs), then the post-processor adds
        BOS/EOS. Decoding runs the decoder chain (ByteLevel, or Replace + ByteFallback +
        Fuse + Strip, or Metaspace) on the tokens' text.
   Every table is built once in llm_model_open; a call allocates only its scratch. */

/* Unicode lookups; the tables and these functions are at the end of the file. */
#define LLM__U_LETTER 1u
#define LLM__U_NUMBER 2u
#define LLM__U_WORD 4u
#define LLM__U_SPACE 8u
#define LLM__INVALID_BYTE 0x110000u /* code point stand-in for a byte that is not UTF-8: + byte */
static unsigned llm__uprop(uint32_t cp);
static unsigned llm__uprop_gc(uint32_t cp);
static unsigned llm__ccc(uint32_t cp);
static unsigned llm__nfcqc(uint32_t cp);
static int llm__decompose1(uint32_t cp, uint32_t *first, uint32_t *second);
static uint32_t llm__compose(uint32_t a, uint32_t b);

/* The values stored in the model file are LLM_NORM_*, LLM_PRE_*, LLM_DEC_*, LLM_TF_*, LLM_BPE_*. */
#define LLM__MAX_STEPS 8

typedef struct llm__merge { uint32_t left, right; int32_t rank, result; } llm__merge;

/* A byte trie of added tokens, for leftmost-longest matching (AhoCorasick LeftmostLongest). */
typedef struct llm__trie_node { int32_t child, sibling, token; uint8_t byte; } llm__trie_node;
typedef struct llm__trie {
    int32_t root[256];
    llm__trie_node *node;
    int32_t n, cap;
} llm__trie;

/* A compiled split regex ("split regexes in general" below). */
typedef struct llm__re_op { uint8_t op, neg; int32_t x, y; } llm__re_op;
typedef struct llm__re_item { uint32_t lo, hi; uint8_t kind; } llm__re_item;
typedef struct llm__re {
    llm__re_op *op;
    llm__re_item *item;
    int32_t n_op, cap_op, n_item, cap_item;
    uint32_t *ascii;                       /* 128 bits per op: the ASCII characters it takes */
} llm__re;

struct llm__tokenizer {
    llm_tokenizer_info info;
    const uint8_t *text, *flags;
    uint32_t *off;                         /* n_tokens + 1 offsets into text */
    int32_t bpe_opts, normalizer, n_steps, steps[LLM__MAX_STEPS], ms_prepend, ms_split;
    int32_t decoder, dec_byte_fallback, dec_strip, spm_split;
    uint8_t spm_glued[256];                /* 1: a token has "▁" right after a character ending in this byte */
    int32_t *prefix, *suffix;
    int32_t *vocab;                        /* open addressing: ids of model tokens, -1 empty */
    uint32_t vocab_mask;
    llm__merge *merge;                     /* open addressing on (left, right) */
    uint32_t merge_mask;
    int32_t unit_id[256];                  /* the token of a single byte (byte-level) or ASCII char */
    int32_t byte_tok[256];                 /* <0xHH> tokens for byte fallback */
    llm__trie added[2];                    /* [0] matched in the raw text, [1] in normalized pieces */
    llm__re re[LLM__MAX_STEPS];            /* the regex of each LLM_PRE_SPLIT step */
    int32_t split_mode[LLM__MAX_STEPS];    /* and its LLM_SPLIT_* behaviour */
};

static const uint8_t llm__metaspace[3] = { 0xE2, 0x96, 0x81 }; /* U+2581 "▁" */

static uint32_t llm__hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, v;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&v, p, 8);
        h = (h ^ v) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    v = 0;
    memcpy(&v, p, n);
    h = (h ^ v) * 0xC4CEB9FE1A85EC53ull;
    return (uint32_t)(h ^ (h >> 29));
}

static uint32_t llm__hash_pair(uint32_t a, uint32_t b) {
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static const uint8_t *llm__tok_str(const struct llm__tokenizer *t, int32_t id, size_t *len) {
    *len = t->off[id + 1] - t->off[id];
    return t->text + t->off[id];
}

static int32_t llm__vocab_find(const struct llm__tokenizer *t, const uint8_t *s, size_t n) {
    uint32_t h = llm__hash_bytes(s, n) & t->vocab_mask;
    int32_t id;
    size_t len;
    while ((id = t->vocab[h]) >= 0) {
        const uint8_t *p = llm__tok_str(t, id, &len);
        if (len == n && memcmp(p, s, n) == 0) return id;
        h = (h + 1) & t->vocab_mask;
    }
    return -1;
}

static const llm__merge *llm__merge_find(const struct llm__tokenizer *t, int32_t a, int32_t b) {
    uint32_t h = llm__hash_pair((uint32_t)a, (uint32_t)b) & t->merge_mask;
    const llm__merge *e;
    while ((e = &t->merge[h])->left != 0xFFFFFFFFu) {
        if (e->left == (uint32_t)a && e->right == (uint32_t)b) return e;
        h = (h + 1) & t->merge_mask;
    }
    return NULL;
}

/* ---- UTF-8 and character classes ---- */

/* Length (1..4) of the well-formed UTF-8 character at s, or 0 (Rust's from_utf8 rules: no
   overlong forms, surrogates or values past U+10FFFF). */
static size_t llm__utf8_char(const uint8_t *s, size_t n, uint32_t *cp) {
    uint32_t c = s[0];
    size_t len, i;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c < 0x80) { *cp = c; return 1; }
    if (c >= 0xC2 && c <= 0xDF) { len = 2; c &= 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; c &= 0x0F; if (s[0] == 0xE0) lo = 0xA0; if (s[0] == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; c &= 0x07; if (s[0] == 0xF0) lo = 0x90; if (s[0] == 0xF4) hi = 0x8F; }
    else return 0;
    if (n < len) return 0;
    for (i = 1; i < len; i++) {
        if (s[i] < lo || s[i] > hi) return 0;
        c = c << 6 | (s[i] & 0x3Fu);
        lo = 0x80; hi = 0xBF;
    }
    *cp = c;
    return len;
}

static size_t llm__utf8_put(uint8_t *o, uint32_t c) {
    if (c >= LLM__INVALID_BYTE) { o[0] = (uint8_t)(c - LLM__INVALID_BYTE); return 1; }
    if (c < 0x80) { o[0] = (uint8_t)c; return 1; }
    if (c < 0x800) { o[0] = (uint8_t)(0xC0 | c >> 6); o[1] = (uint8_t)(0x80 | (c & 63)); return 2; }
    if (c < 0x10000) {
        o[0] = (uint8_t)(0xE0 | c >> 12); o[1] = (uint8_t)(0x80 | (c >> 6 & 63)); o[2] = (uint8_t)(0x80 | (c & 63));
        return 3;
    }
    o[0] = (uint8_t)(0xF0 | c >> 18); o[1] = (uint8_t)(0x80 | (c >> 12 & 63));
    o[2] = (uint8_t)(0x80 | (c >> 6 & 63)); o[3] = (uint8_t)(0x80 | (c & 63));
    return 4;
}

/* GPT-2's byte <-> character table (pre_tokenizers/byte_level.rs bytes_char): printable
   Latin-1 bytes stand for themselves, the other 68 bytes for U+0100 + their rank. */
static int llm__byte_is_printable(unsigned b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

static uint32_t llm__byte_level_char(uint8_t b) {
    unsigned c, rank = 0;
    if (llm__byte_is_printable(b)) return b;
    for (c = 0; c < b; c++) rank += !llm__byte_is_printable(c);
    return 0x100 + rank;
}

/* The byte a character stands for, or -1. */
static int llm__byte_level_byte(uint32_t c) {
    unsigned b, rank = 0;
    if (c < 0x100) return llm__byte_is_printable(c) ? (int)c : -1;
    for (b = 0; b < 256 && c <= 0x143; b++)
        if (!llm__byte_is_printable(b) && rank++ == c - 0x100) return (int)b;
    return -1;
}

static unsigned llm__ascii_prop(unsigned c) {
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return LLM__U_LETTER | LLM__U_WORD;
    if (c >= '0' && c <= '9') return LLM__U_NUMBER | LLM__U_WORD;
    if (c == '_') return LLM__U_WORD;
    if (c == ' ' || (c >= 9 && c <= 13)) return LLM__U_SPACE;
    return 0;
}

/* The character at s[i]: its length, code point and class bits. A byte that does not start
   a well-formed character is a character of its own with no class. */
static size_t llm__char_at(const uint8_t *s, size_t n, size_t i, uint32_t *cp, unsigned *props) {
    size_t len;
    if (s[i] < 0x80) { *cp = s[i]; *props = llm__ascii_prop(s[i]); return 1; }
    len = llm__utf8_char(s + i, n - i, cp);
    if (!len) { *cp = LLM__INVALID_BYTE + s[i]; *props = 0; return 1; }
    *props = llm__uprop(*cp);
    return len;
}

/* Start of the character that ends at s[i - 1]. */
static size_t llm__char_before(const uint8_t *s, size_t i, uint32_t *cp, unsigned *props) {
    size_t k;
    for (k = 1; k <= 4 && k <= i; k++) {
        uint32_t c;
        if (llm__utf8_char(s + i - k, k, &c) == k) { *cp = c; *props = c < 0x80 ? llm__ascii_prop(c) : llm__uprop(c); return i - k; }
        if ((s[i - k] & 0xC0) != 0x80) break;
    }
    *cp = LLM__INVALID_BYTE + s[i - 1];
    *props = 0;
    return i - 1;
}

/* End of the run of characters with any of the class bits in want, from i. */
static size_t llm__run_end(const uint8_t *s, size_t n, size_t i, unsigned want) {
    uint32_t cp;
    unsigned p;
    while (i < n) {
        size_t len = llm__char_at(s, n, i, &cp, &p);
        if (!(p & want)) break;
        i += len;
    }
    return i;
}

/* End of a run of "other" characters: not a letter, number or white space. */
static size_t llm__other_end(const uint8_t *s, size_t n, size_t i) {
    uint32_t cp;
    unsigned p;
    while (i < n) {
        size_t len = llm__char_at(s, n, i, &cp, &p);
        if (p & (LLM__U_LETTER | LLM__U_NUMBER | LLM__U_SPACE)) break;
        i += len;
    }
    return i;
}

/* ---- the split regexes, by hand ----
   GPT-2:  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
   Llama 3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
            ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
   Qwen2:  the same with \p{N} for \p{N}{1,3}.
   HF runs them with Oniguruma (leftmost-first alternation, greedy, backtracking). Every
   character starts a match of one alternative, so the matches tile the piece and
   llm__regex_match only needs the end of the match that starts at i. */

/* Bytes after an apostrophe that a contraction alternative takes, or 0. Under (?i),
   Unicode case folding lets U+017F (long s) match 's'. */
static size_t llm__contraction(const uint8_t *s, size_t n, int icase) {
    unsigned c0, c1;
    if (n == 0) return 0;
    c0 = icase && s[0] < 0x80 ? (unsigned)(s[0] | 0x20) : s[0];
    if (c0 == 's' || c0 == 't' || c0 == 'm' || c0 == 'd') return 1;
    if (icase && n >= 2 && s[0] == 0xC5 && s[1] == 0xBF) return 2;
    if (n < 2) return 0;
    c1 = icase && s[1] < 0x80 ? (unsigned)(s[1] | 0x20) : s[1];
    if ((c0 == 'r' && c1 == 'e') || (c0 == 'v' && c1 == 'e') || (c0 == 'l' && c1 == 'l')) return 2;
    return 0;
}

static size_t llm__regex_match(int kind, const uint8_t *s, size_t n, size_t i) {
    const unsigned LN = LLM__U_LETTER | LLM__U_NUMBER, LNS = LN | LLM__U_SPACE;
    uint32_t c0, c1 = 0, cp;
    unsigned p0, p1 = LLM__U_SPACE, p;
    size_t l0 = llm__char_at(s, n, i, &c0, &p0), j, r, k, last;
    if (i + l0 < n) llm__char_at(s, n, i + l0, &c1, &p1);
    if (c0 == '\'' && (j = llm__contraction(s + i + 1, n - i - 1, kind != LLM_PRE_GPT2)) > 0) return i + 1 + j;
    if (kind == LLM_PRE_GPT2) {
        j = (c0 == ' ' && i + 1 < n && !(p1 & LLM__U_SPACE)) ? i + 1 : i; /* " ?" */
        p = j == i ? p0 : p1;
        if (p & LLM__U_LETTER) return llm__run_end(s, n, j, LLM__U_LETTER);
        if (p & LLM__U_NUMBER) return llm__run_end(s, n, j, LLM__U_NUMBER);
        if (!(p & LNS)) return llm__other_end(s, n, j);
    } else {
        if (p0 & LLM__U_LETTER) return llm__run_end(s, n, i, LLM__U_LETTER);
        if (c0 != '\r' && c0 != '\n' && !(p0 & LLM__U_NUMBER) && (p1 & LLM__U_LETTER) && i + l0 < n)
            return llm__run_end(s, n, i + l0, LLM__U_LETTER);
        if (p0 & LLM__U_NUMBER) {
            j = i + l0;
            for (k = 1; kind == LLM_PRE_LLAMA3 && k < 3 && j < n; k++) {
                size_t len = llm__char_at(s, n, j, &cp, &p);
                if (!(p & LLM__U_NUMBER)) break;
                j += len;
            }
            return j;
        }
        j = (c0 == ' ' && i + 1 < n && !(p1 & LNS)) ? i + 1 : i; /* " ?[^\s\p{L}\p{N}]+[\r\n]*" */
        if (!((j == i ? p0 : p1) & LNS)) {
            j = llm__other_end(s, n, j);
            while (j < n && (s[j] == '\r' || s[j] == '\n')) j++;
            return j;
        }
    }
    /* c0 is white space. */
    r = llm__run_end(s, n, i, LLM__U_SPACE);
    if (kind != LLM_PRE_GPT2) { /* \s*[\r\n]+ ends after the run's last \r or \n */
        for (k = r; k > i; k--)
            if (s[k - 1] == '\r' || s[k - 1] == '\n') return k;
    }
    if (r == n) return r;                                   /* \s+(?!\S) at the end */
    last = llm__char_before(s, r, &cp, &p);                 /* \s+(?!\S): leave the last space */
    return last > i ? last : r;                             /* else \s+ */
}

/* ---- split regexes in general ----
   Any other Split regex is compiled at open into a small program and run by backtracking,
   as Oniguruma (HF's regex engine) runs it: alternatives in order, greedy quantifiers, the
   first path that reaches the end wins, look-aheads atomic. The syntax is the part that
   tokenizers use: literals, . [...] [^...] with ranges, \s \S \p{Gc} \P{Gc} (a general
   category or its first letter), \r \n \t \f \v \xHH \x{H..} \uHHHH and escaped punctuation,
   (...) (?:...) (?i:...) (?=...) (?!...) (?>...), | and ? * + {n} {n,} {n,m}, greedy, lazy
   or (but for {}) possessive, as tiktoken's patterns write them, and the anchors ^ and $ of
   Oniguruma's Ruby syntax: the start and end of a line (after and before a \n, or at either
   end of the piece; DeepSeek LLM's pattern ends a run of spaces with \s+$). Under (?i) only
   ASCII letters fold (with U+017F for s and U+212A for k, as Unicode's simple case folding has
   it); letter pairs that a character folds to as a whole (ss, st, ff, fi, fl) and categories
   are refused there. Anything else is refused with its position, never approximated; so is a pattern
   that can match nothing, which HF splits oddly. */
enum { LLM__RE_MATCH, LLM__RE_CHAR, LLM__RE_CHAR_I, LLM__RE_ANY, LLM__RE_CLASS, LLM__RE_SPLIT, LLM__RE_JMP, LLM__RE_SUB, LLM__RE_LINE };
enum { LLM__RE_AHEAD, LLM__RE_NOT_AHEAD, LLM__RE_ATOMIC }; /* kinds of LLM__RE_SUB, a program of its own */
enum { LLM__RE_RANGE, LLM__RE_GC, LLM__RE_NOT_GC, LLM__RE_SPACE, LLM__RE_NOT_SPACE };
#define LLM__RE_MAX_OPS 8192
#define LLM__RE_MAX_REPEAT 100
#define LLM__RE_MAX_DEPTH 32
#define LLM__RE_MAX_BACKTRACK 10000000 /* per match, beside 64 per character (Oniguruma: 10000000) */

/* The general categories in the order of the table's category field; Cn (unassigned) is 0. */
static const char llm__gc_names[] = "CnLuLlLtLmLoMnMcMeNdNlNoPcPdPsPePiPfPoSmScSkSoZsZlZpCcCfCsCo";

typedef struct llm__re_parser {
    const llm_allocator *a;
    llm__re *re;
    const uint8_t *s;
    size_t n, i;
    int depth;
    char *err;
    size_t es;
} llm__re_parser;

static int llm__re_error(llm__re_parser *p, const char *what) {
    snprintf(p->err, p->es, "%s at byte %u", what, (unsigned)p->i);
    return -1;
}

/* The array arr with room for one more element, its content kept; NULL on failure. */
static void *llm__re_room(llm__re_parser *p, void *arr, int32_t n, int32_t *cap, size_t elem) {
    void *q;
    int32_t c;
    if (n < *cap) return arr;
    if (n >= LLM__RE_MAX_OPS) { llm__re_error(p, "a pattern too long to compile"); return NULL; }
    c = *cap ? 2 * *cap : 32;
    if (!(q = llm__alloc(p->a, (size_t)c * elem))) { llm__re_error(p, "out of memory"); return NULL; }
    if (n) memcpy(q, arr, (size_t)n * elem);
    llm__free(p->a, arr);
    *cap = c;
    return q;
}

/* Jumps (x, y) are relative to their op, so a block of code can be moved and copied. */
static int llm__re_emit(llm__re_parser *p, int op, int neg, int32_t x, int32_t y) {
    llm__re *re = p->re;
    llm__re_op *o, *grown = (llm__re_op *)llm__re_room(p, re->op, re->n_op, &re->cap_op, sizeof *re->op);
    if (!grown) return -1;
    re->op = grown;
    o = &re->op[re->n_op++];
    o->op = (uint8_t)op; o->neg = (uint8_t)neg; o->x = x; o->y = y;
    return 0;
}

static int llm__re_insert(llm__re_parser *p, int32_t at, int op, int32_t x, int32_t y) {
    llm__re *re = p->re;
    if (llm__re_emit(p, op, 0, x, y)) return -1;
    memmove(re->op + at + 1, re->op + at, (size_t)(re->n_op - 1 - at) * sizeof *re->op);
    re->op[at].op = (uint8_t)op; re->op[at].neg = 0; re->op[at].x = x; re->op[at].y = y;
    return 0;
}

static int llm__re_item_add(llm__re_parser *p, int kind, uint32_t lo, uint32_t hi) {
    llm__re *re = p->re;
    llm__re_item *grown = (llm__re_item *)llm__re_room(p, re->item, re->n_item, &re->cap_item, sizeof *re->item);
    if (!grown) return -1;
    re->item = grown;
    re->item[re->n_item].kind = (uint8_t)kind;
    re->item[re->n_item].lo = lo;
    re->item[re->n_item].hi = hi;
    re->n_item++;
    return 0;
}

static int llm__re_hex(llm__re_parser *p, size_t digits, uint32_t *cp) {
    size_t k;
    *cp = 0;
    for (k = 0; k < digits; k++, p->i++) {
        int c = p->i < p->n ? p->s[p->i] : 0, h = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
        if (h < 0) return digits == 8 && k > 0 ? 0 : llm__re_error(p, "a bad hexadecimal escape");
        *cp = *cp * 16 + (uint32_t)h;
    }
    return 0;
}

/* \p{X}: the bit mask of categories named X (one letter: all that start with it). */
static int llm__re_category(llm__re_parser *p, uint32_t *mask) {
    size_t start = p->i + 1, len, g;
    *mask = 0;
    if (p->i >= p->n || p->s[p->i] != '{') return llm__re_error(p, "\\p without {");
    for (p->i = start; p->i < p->n && p->s[p->i] != '}'; p->i++) {}
    len = p->i - start;
    if (p->i >= p->n || len < 1 || len > 2) return llm__re_error(p, "a \\p{} that is not a general category (Lu, L, N ...)");
    for (g = 0; g < sizeof llm__gc_names - 1; g += 2)
        if (llm__gc_names[g] == p->s[start] && (len == 1 || llm__gc_names[g + 1] == p->s[start + 1])) *mask |= 1u << (g / 2);
    if (!*mask) return llm__re_error(p, "an unknown general category");
    p->i++;
    return 0;
}

/* A backslash escape: 0 with *cp for a character, 1 with *kind and *mask for a class. */
static int llm__re_escape(llm__re_parser *p, uint32_t *cp, int *kind, uint32_t *mask) {
    int c;
    if (++p->i >= p->n) return llm__re_error(p, "a trailing backslash");
    c = p->s[p->i++];
    switch (c) {
    case 's': *kind = LLM__RE_SPACE; return 1;
    case 'S': *kind = LLM__RE_NOT_SPACE; return 1;
    case 'p': case 'P': *kind = c == 'p' ? LLM__RE_GC : LLM__RE_NOT_GC; return llm__re_category(p, mask) ? -1 : 1;
    case 'r': *cp = '\r'; return 0;
    case 'n': *cp = '\n'; return 0;
    case 't': *cp = '\t'; return 0;
    case 'f': *cp = '\f'; return 0;
    case 'v': *cp = '\v'; return 0;
    case 'u': return llm__re_hex(p, 4, cp);
    case 'x':
        if (p->i < p->n && p->s[p->i] == '{') {
            p->i++;
            if (llm__re_hex(p, 8, cp)) return -1;
            if (p->i >= p->n || p->s[p->i] != '}' || *cp > 0x10FFFF) return llm__re_error(p, "a bad \\x{...} escape");
            p->i++;
            return 0;
        }
        return llm__re_hex(p, 2, cp);
    default: {
        char what[32];
        if (c < 0x80 && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9')) { *cp = (uint32_t)c; return 0; }
        p->i -= 2;
        snprintf(what, sizeof what, c >= 0x21 && c < 0x7F ? "an unsupported escape \\%c" : "an unsupported escape", c);
        return llm__re_error(p, what);
    }
    }
}

/* One character of the pattern (UTF-8), or an escape. */
static int llm__re_char_or_class(llm__re_parser *p, uint32_t *cp, int *kind, uint32_t *mask) {
    size_t len;
    if (p->s[p->i] == '\\') return llm__re_escape(p, cp, kind, mask);
    if (!(len = llm__utf8_char(p->s + p->i, p->n - p->i, cp))) return llm__re_error(p, "a pattern that is not UTF-8");
    p->i += len;
    return 0;
}

/* A range of a class, with its other-case letters under (?i). */
static int llm__re_range(llm__re_parser *p, uint32_t lo, uint32_t hi, int icase) {
    uint32_t a, b;
    if (llm__re_item_add(p, LLM__RE_RANGE, lo, hi)) return -1;
    if (!icase) return 0;
    if (hi >= 0x80) return llm__re_error(p, "a non-ASCII character under (?i)");
    for (a = 'a'; a <= 'z'; a += 'A' ^ 'a') { /* the lower-case letters in it, then the upper-case */
        uint32_t l = lo > a ? lo : a, h = hi < a + 25 ? hi : a + 25;
        if (l > h) continue;
        if (llm__re_item_add(p, LLM__RE_RANGE, l ^ 0x20, h ^ 0x20)) return -1;
        for (b = l; b <= h; b++)
            if (((b | 0x20) == 's' && llm__re_item_add(p, LLM__RE_RANGE, 0x17F, 0x17F)) ||
                ((b | 0x20) == 'k' && llm__re_item_add(p, LLM__RE_RANGE, 0x212A, 0x212A)))
                return -1;
        if (a == 'A') break;
    }
    return 0;
}

static int llm__re_class(llm__re_parser *p, int icase) {
    int32_t first = p->re->n_item;
    int neg = 0, kind, r;
    uint32_t lo, hi, mask;
    p->i++;
    if (p->i < p->n && p->s[p->i] == '^') { neg = 1; p->i++; }
    if (p->i < p->n && p->s[p->i] == ']') return llm__re_error(p, "a class that starts with ']'");
    while (p->i < p->n && p->s[p->i] != ']') {
        if (p->s[p->i] == '[') return llm__re_error(p, "a nested class or POSIX bracket");
        if (p->s[p->i] == '&' && p->i + 1 < p->n && p->s[p->i + 1] == '&') return llm__re_error(p, "a class intersection");
        if ((r = llm__re_char_or_class(p, &lo, &kind, &mask)) < 0) return -1;
        if (r == 1 && icase && (kind == LLM__RE_GC || kind == LLM__RE_NOT_GC)) return llm__re_error(p, "a category under (?i)");
        if (r == 1) { if (llm__re_item_add(p, kind, mask, 0)) return -1; continue; }
        hi = lo;
        if (p->i + 1 < p->n && p->s[p->i] == '-' && p->s[p->i + 1] != ']') {
            p->i++;
            if ((r = llm__re_char_or_class(p, &hi, &kind, &mask)) < 0) return -1;
            if (r == 1 || hi < lo) return llm__re_error(p, "a bad range in a class");
        }
        if (llm__re_range(p, lo, hi, icase)) return -1;
    }
    if (p->i >= p->n) return llm__re_error(p, "an unclosed class");
    p->i++;
    return llm__re_emit(p, LLM__RE_CLASS, neg, first, p->re->n_item - first);
}

static int llm__re_alt(llm__re_parser *p, int icase);

/* Makes the code from at a program of its own, run by an LLM__RE_SUB of this kind. */
static int llm__re_sub(llm__re_parser *p, int32_t at, int kind) {
    if (llm__re_insert(p, at, LLM__RE_SUB, 1, 0) || llm__re_emit(p, LLM__RE_MATCH, 0, 0, 0)) return -1;
    p->re->op[at].neg = (uint8_t)kind;
    p->re->op[at].y = p->re->n_op - at;
    return 0;
}

/* A group: returns whether it can match nothing (1), 0, or -1; *look is 1 for a look-ahead. */
static int llm__re_group(llm__re_parser *p, int icase, int *look) {
    int32_t at;
    int kind = -1, r;
    p->i++;
    if (p->i < p->n && p->s[p->i] == '?') {
        const uint8_t *q = p->s + p->i + 1;
        size_t left = p->n - p->i - 1;
        if (left >= 1 && q[0] == ':') p->i += 2;
        else if (left >= 2 && q[0] == 'i' && q[1] == ':') { icase = 1; p->i += 3; }
        else if (left >= 1 && (q[0] == '=' || q[0] == '!')) { *look = 1; kind = q[0] == '!' ? LLM__RE_NOT_AHEAD : LLM__RE_AHEAD; p->i += 2; }
        else if (left >= 1 && q[0] == '>') { kind = LLM__RE_ATOMIC; p->i += 2; }
        else return llm__re_error(p, "an unsupported (? group");
    }
    if (++p->depth > LLM__RE_MAX_DEPTH) return llm__re_error(p, "groups nested too deep");
    at = p->re->n_op;
    if ((r = llm__re_alt(p, icase)) < 0) return -1;
    if (p->i >= p->n || p->s[p->i] != ')') return llm__re_error(p, "an unclosed group");
    p->i++;
    p->depth--;
    if (kind >= 0 && llm__re_sub(p, at, kind)) return -1;
    return *look ? 1 : r;
}

/* One atom; *letter is its lower-case letter when it is a (?i) letter, else 0. */
static int llm__re_atom(llm__re_parser *p, int icase, int *look, int *letter) {
    uint32_t cp, mask;
    int kind, r, c = p->s[p->i];
    *look = 0;
    *letter = 0;
    switch (c) {
    case '(': return llm__re_group(p, icase, look);
    case '[': return llm__re_class(p, icase) ? -1 : 0;
    case '.': p->i++; return llm__re_emit(p, LLM__RE_ANY, 0, 0, 0) ? -1 : 0;
    case '^': case '$': /* zero-width, like a look-ahead: it can match nothing and is not repeated */
        p->i++;
        *look = 1;
        return llm__re_emit(p, LLM__RE_LINE, c == '$', 0, 0) ? -1 : 1;
    case '*': case '+': case '?': case '{': return llm__re_error(p, "a quantifier with nothing to repeat (or an unescaped '{')");
    case ']': case '}': return llm__re_error(p, "an unescaped ']' or '}'");
    default: break;
    }
    if ((r = llm__re_char_or_class(p, &cp, &kind, &mask)) < 0) return -1;
    if (r == 1) {
        if (icase && (kind == LLM__RE_GC || kind == LLM__RE_NOT_GC)) return llm__re_error(p, "a category under (?i)");
        if (llm__re_item_add(p, kind, mask, 0)) return -1;
        return llm__re_emit(p, LLM__RE_CLASS, 0, p->re->n_item - 1, 1) ? -1 : 0;
    }
    if (icase && cp >= 0x80) return llm__re_error(p, "a non-ASCII character under (?i)");
    if (icase && (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') {
        *letter = (int)(cp | 0x20);
        return llm__re_emit(p, LLM__RE_CHAR_I, 0, *letter, 0) ? -1 : 0;
    }
    return llm__re_emit(p, LLM__RE_CHAR, 0, (int32_t)cp, 0) ? -1 : 0;
}

/* Appends a copy of the block [a, a + len) of the program. */
static int llm__re_copy(llm__re_parser *p, int32_t a, int32_t len) {
    int32_t k;
    for (k = 0; k < len; k++) {
        llm__re_op o = p->re->op[a + k];
        if (llm__re_emit(p, o.op, o.neg, o.x, o.y)) return -1;
    }
    return 0;
}

static int llm__re_repeat(llm__re_parser *p, int32_t a, int32_t len, long lo, long hi, int lazy, int nullable);

/* The quantifier after the atom at [a, n_op), if any: the atom is written out min times, then
   looped (max infinite) or nested optionally (max - min times): (B(B)?)? as Oniguruma tries. */
static int llm__re_quantifier(llm__re_parser *p, int32_t a, int nullable, int look) {
    llm__re *re = p->re;
    long lo, hi;
    int32_t len = re->n_op - a;
    int lazy, possessive;
    char c = p->i < p->n ? (char)p->s[p->i] : 0;
    if (c == '?') { lo = 0; hi = 1; }
    else if (c == '*') { lo = 0; hi = -1; }
    else if (c == '+') { lo = 1; hi = -1; }
    else if (c == '{') {
        size_t i = p->i + 1;
        for (lo = 0; i < p->n && p->s[i] >= '0' && p->s[i] <= '9' && lo <= LLM__RE_MAX_REPEAT; i++) lo = lo * 10 + (p->s[i] - '0');
        if (i == p->i + 1) return llm__re_error(p, "a '{' that is not a counted repetition");
        hi = lo;
        if (i < p->n && p->s[i] == ',') {
            size_t d = ++i;
            for (hi = 0; i < p->n && p->s[i] >= '0' && p->s[i] <= '9' && hi <= LLM__RE_MAX_REPEAT; i++) hi = hi * 10 + (p->s[i] - '0');
            if (i == d) hi = -1;
        }
        if (i >= p->n || p->s[i] != '}' || lo > LLM__RE_MAX_REPEAT || hi > LLM__RE_MAX_REPEAT || (hi >= 0 && hi < lo))
            return llm__re_error(p, "a counted repetition that is malformed or over 100");
        p->i = i;
    } else {
        return nullable;
    }
    if (look) return llm__re_error(p, "a repeated look-ahead or anchor");
    if (nullable && hi != 0 && hi != 1) return llm__re_error(p, "a repeated sub-pattern that can match nothing");
    p->i++;
    lazy = p->i < p->n && p->s[p->i] == '?';
    possessive = !lazy && c != '{' && p->i < p->n && p->s[p->i] == '+'; /* Ruby syntax: {n,m}+ is not */
    if (lazy || possessive) p->i++;
    if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '*' || p->s[p->i] == '{' || p->s[p->i] == '?'))
        return llm__re_error(p, "a doubled quantifier");
    if (possessive) { /* the greedy repetition as an atomic group */
        int r = llm__re_repeat(p, a, len, lo, hi, 0, nullable);
        return r < 0 || llm__re_sub(p, a, LLM__RE_ATOMIC) ? -1 : r;
    }
    return llm__re_repeat(p, a, len, lo, hi, lazy, nullable);
}

/* The atom at [a, a + len) repeated lo to hi times (hi < 0: no limit). */
static int llm__re_repeat(llm__re_parser *p, int32_t a, int32_t len, long lo, long hi, int lazy, int nullable) {
    llm__re *re = p->re;
    long k;
    int32_t j, first;
    /* the atom's code stays as the first copy; none at all for {0} */
    if (hi == 0) { re->n_op = a; return 1; }
    for (k = 1; k < lo; k++) if (llm__re_copy(p, a, len)) return -1;
    if (hi < 0 && lo > 0) /* B+: B, then back to B or on */
        return llm__re_emit(p, LLM__RE_SPLIT, 0, lazy ? 1 : -len, lazy ? -len : 1) ? -1 : nullable;
    if (hi < 0) /* B*: split, B, jump back to the split */
        return llm__re_insert(p, a, LLM__RE_SPLIT, lazy ? len + 2 : 1, lazy ? 1 : len + 2) ||
               llm__re_emit(p, LLM__RE_JMP, 0, -(len + 1), 0) ? -1 : 1;
    first = re->n_op;
    if (lo == 0) { /* split + B, hi times */
        if (llm__re_insert(p, a, LLM__RE_SPLIT, 0, 0)) return -1;
        for (first = a, k = 1; k < hi; k++) if (llm__re_copy(p, a, len + 1)) return -1;
    } else {
        for (k = lo; k < hi; k++) if (llm__re_emit(p, LLM__RE_SPLIT, 0, 0, 0) || llm__re_copy(p, a, len)) return -1;
    }
    for (j = first; j < re->n_op; j += len + 1) { /* each optional copy's split skips to the end */
        re->op[j].x = lazy ? re->n_op - j : 1;
        re->op[j].y = lazy ? 1 : re->n_op - j;
    }
    return lo == 0 ? 1 : nullable;
}

/* A sequence of quantified atoms, up to '|' or ')'. */
static int llm__re_seq(llm__re_parser *p, int icase) {
    int nullable = 1, r, look, letter, prev = 0;
    while (p->i < p->n && p->s[p->i] != '|' && p->s[p->i] != ')') {
        int32_t a = p->re->n_op;
        if ((r = llm__re_atom(p, icase, &look, &letter)) < 0 || (r = llm__re_quantifier(p, a, r, look)) < 0) return -1;
        if (prev && letter && (prev == 's' ? letter == 's' || letter == 't' : prev == 'f' && (letter == 'f' || letter == 'i' || letter == 'l')))
            return llm__re_error(p, "a letter pair that one character folds to under (?i)");
        prev = letter;
        nullable &= r;
    }
    return nullable;
}

/* Alternatives: split to this one or the next; each but the last jumps to the end. The jumps
   wait in a chain through their y until the end is known. */
static int llm__re_alt(llm__re_parser *p, int icase) {
    llm__re *re = p->re;
    int32_t start = re->n_op, chain = -1, j;
    int nullable = llm__re_seq(p, icase), r;
    while (nullable >= 0 && p->i < p->n && p->s[p->i] == '|') {
        p->i++;
        if (llm__re_insert(p, start, LLM__RE_SPLIT, 1, re->n_op + 2 - start) || llm__re_emit(p, LLM__RE_JMP, 0, 0, chain)) return -1;
        chain = re->n_op - 1;
        start = re->n_op;
        if ((r = llm__re_seq(p, icase)) < 0) return -1;
        nullable |= r;
    }
    for (j = chain; j >= 0;) {
        int32_t next = re->op[j].y;
        re->op[j].x = re->n_op - j;
        re->op[j].y = 0;
        j = next;
    }
    return nullable;
}

static void llm__re_free(const llm_allocator *a, llm__re *re) {
    llm__free(a, re->op);
    llm__free(a, re->item);
    llm__free(a, re->ascii);
    memset(re, 0, sizeof *re);
}

static int llm__re_char_is(const llm__re *re, const llm__re_op *op, uint32_t cp);

/* Compiles pattern[0..len) into re. On failure re is empty and err says what and where. */
static int llm__re_compile(const llm_allocator *a, llm__re *re, const char *pattern, size_t len, char *err, size_t es) {
    llm__re_parser p;
    int r;
    int32_t i;
    unsigned c;
    memset(re, 0, sizeof *re);
    memset(&p, 0, sizeof p);
    p.a = a; p.re = re; p.s = (const uint8_t *)pattern; p.n = len; p.err = err; p.es = es;
    if (len == 0) r = llm__re_error(&p, "an empty pattern");
    else if ((r = llm__re_alt(&p, 0)) >= 0 && p.i < len) r = llm__re_error(&p, "an unmatched ')'");
    else if (r == 1) r = llm__re_error(&p, "a pattern that can match nothing");
    if (r >= 0) r = llm__re_emit(&p, LLM__RE_MATCH, 0, 0, 0);
    if (r >= 0 && !(re->ascii = (uint32_t *)llm__calloc(a, (size_t)re->n_op * 4, sizeof(uint32_t)))) r = llm__re_error(&p, "out of memory");
    if (r < 0) { llm__re_free(a, re); return -1; }
    for (i = 0; i < re->n_op; i++) /* ASCII is most text: one bit test instead of the tables */
        for (c = 0; c < 128 && re->op[i].op >= LLM__RE_CHAR && re->op[i].op <= LLM__RE_CLASS; c++)
            re->ascii[4 * i + c / 32] |= (uint32_t)llm__re_char_is(re, &re->op[i], c) << (c % 32);
    return 0;
}

/* ---- per-call scratch ---- */
typedef struct llm__sym { int32_t id, prev, next; } llm__sym; /* id -1: merged into its left */
typedef struct llm__buf { uint8_t *p; size_t cap; } llm__buf;

/* A cache of the BPE result of short words, for one call: prose repeats its words. */
#define LLM__CACHE_MAX_SLOTS 16384
#define LLM__CACHE_WORD 22
#define LLM__CACHE_IDS 8
typedef struct llm__cache_slot {
    uint32_t hash;
    uint8_t len, n_ids, word[LLM__CACHE_WORD];
    int32_t ids[LLM__CACHE_IDS];
} llm__cache_slot;

typedef struct llm__tokenize_state {
    const struct llm__tokenizer *t;
    const llm_allocator *alloc;
    int32_t *ids;
    size_t cap, n;
    int parse_special, oom, re_costly; /* re_costly: a regex passed its backtracking limit */
    uint32_t cache_mask;     /* slots - 1; 0 without a cache */
    llm__buf norm, step[LLM__MAX_STEPS], cps, sym, heap, cache, re_stack;
    size_t re_top;           /* llm__re_thread entries in re_stack */
} llm__tokenize_state;

/* Makes b hold at least size bytes (the content is not kept). */
static uint8_t *llm__reserve(llm__tokenize_state *k, llm__buf *b, size_t size) {
    if (size > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < size) cap = cap > ((size_t)-1) / 2 ? size : cap * 2;
        llm__free(k->alloc, b->p);
        b->p = (uint8_t *)llm__alloc(k->alloc, cap);
        b->cap = b->p ? cap : 0;
        if (!b->p) k->oom = 1;
    }
    return b->p;
}

static void llm__emit_id(llm__tokenize_state *k, int32_t id) {
    if (k->n < k->cap) k->ids[k->n] = id;
    k->n++;
}

/* ---- BPE (models/bpe/model.rs merge_word, word.rs merge_all) ----
   Candidate merges are keys rank << 32 | position, taken smallest first as HF's BinaryHeap
   of Merge does. The word's first pairs are sorted once (by rank, stable) and
   read in order; pairs that merges create go to a 4-ary heap. A key is stale when its
   pair has changed since; the pair's rank then differs (a rank is one line of the merges
   list), which is what HF's check of the merged id amounts to. The heap never holds more
   than 2n keys (at most two pushes per merge, and every merge follows a pop). */

static void llm__qpush(uint64_t *q, size_t *n, uint64_t key) {
    size_t i = (*n)++;
    while (i > 0 && key < q[(i - 1) / 4]) { q[i] = q[(i - 1) / 4]; i = (i - 1) / 4; }
    q[i] = key;
}

static uint64_t llm__qpop(uint64_t *q, size_t *n) {
    uint64_t top = q[0], key = q[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 4 * i + 1, best, j;
        if (c >= *n) break;
        for (best = c, j = c + 1; j < c + 4 && j < *n; j++) if (q[j] < q[best]) best = j;
        if (q[best] >= key) break;
        q[i] = q[best];
        i = best;
    }
    q[i] = key;
    return top;
}

static void llm__qpair(const struct llm__tokenizer *t, uint64_t *q, size_t *nq, const llm__sym *s, int32_t pos) {
    const llm__merge *m = llm__merge_find(t, s[pos].id, s[s[pos].next].id);
    if (m) llm__qpush(q, nq, (uint64_t)(uint32_t)m->rank << 32 | (uint32_t)pos);
}

/* Sorts a[0..n) by rank (the high 32 bits), keeping the order of equal ranks; tmp has n.
   The keys arrive in position order, so sorting whole keys keeps it too. */
static void llm__sort_ranks(uint64_t *a, uint64_t *tmp, size_t n) {
    size_t count[2048], i, j, shift, sum;
    uint64_t max = 0, *src = a, *dst = tmp, *x;
    if (n <= 64) { /* short words: insertion sort */
        for (i = 1; i < n; i++) {
            uint64_t key = a[i];
            for (j = i; j > 0 && a[j - 1] > key; j--) a[j] = a[j - 1];
            a[j] = key;
        }
        return;
    }
    for (i = 0; i < n; i++) if (a[i] > max) max = a[i];
    for (shift = 32; shift < 64 && (max >> shift) != 0; shift += 11) {
        memset(count, 0, sizeof count);
        for (i = 0; i < n; i++) count[(src[i] >> shift) & 2047]++;
        for (i = 0, sum = 0; i < 2048; i++) { size_t c = count[i]; count[i] = sum; sum += c; }
        for (i = 0; i < n; i++) dst[count[(src[i] >> shift) & 2047]++] = src[i];
        x = src; src = dst; dst = x;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* q holds 3n keys: the heap in [0, 2n) (scratch for the sort before), the first pairs after. */
static void llm__merge_all(const struct llm__tokenizer *t, llm__sym *s, size_t n, uint64_t *q) {
    uint64_t *first = q + 2 * n;
    size_t nq = 0, nf = 0, fi = 0, i;
    for (i = 0; i + 1 < n; i++) {
        const llm__merge *m = llm__merge_find(t, s[i].id, s[i + 1].id);
        if (m) first[nf++] = (uint64_t)(uint32_t)m->rank << 32 | (uint32_t)i;
    }
    llm__sort_ranks(first, q, nf);
    while (fi < nf || nq > 0) {
        uint64_t top = nq == 0 || (fi < nf && first[fi] < q[0]) ? first[fi++] : llm__qpop(q, &nq);
        const llm__merge *m;
        int32_t pos = (int32_t)(uint32_t)top, nx;
        if (s[pos].id < 0 || (nx = s[pos].next) < 0) continue;
        m = llm__merge_find(t, s[pos].id, s[nx].id);
        if (!m || (uint32_t)m->rank != (uint32_t)(top >> 32)) continue; /* a stale key */
        s[pos].id = m->result;
        s[pos].next = s[nx].next;
        s[nx].id = -1;
        if (s[nx].next >= 0) s[s[nx].next].prev = pos;
        if (s[pos].prev >= 0) llm__qpair(t, q, &nq, s, s[pos].prev);
        if (s[pos].next >= 0) llm__qpair(t, q, &nq, s, pos);
    }
}

static void llm__sym_add(llm__sym *s, size_t *n, int32_t id) {
    s[*n].id = id;
    s[*n].prev = (int32_t)*n - 1;
    s[*n].next = -1;
    if (*n) s[*n - 1].next = (int32_t)*n;
    (*n)++;
}

/* The initial symbols of a word: bytes for byte-level BPE, characters otherwise; one that
   is not in the vocabulary becomes its <0xHH> byte tokens if all exist, else unk (runs
   fused with fuse_unk), else nothing. */
static size_t llm__bpe_symbols(const struct llm__tokenizer *t, const uint8_t *w, size_t n, llm__sym *s) {
    size_t i, len, ns = 0;
    int32_t id, unk = t->info.unk_id;
    int unk_pending = 0;
    for (i = 0; i < n; i += len) {
        uint32_t cp;
        len = t->info.byte_level ? 1 : llm__utf8_char(w + i, n - i, &cp);
        if (!len) len = 1;
        id = len == 1 && (t->info.byte_level || w[i] < 0x80) ? t->unit_id[w[i]] : llm__vocab_find(t, w + i, len);
        if (id >= 0) {
            if (unk_pending) { llm__sym_add(s, &ns, unk); unk_pending = 0; }
            llm__sym_add(s, &ns, id);
            continue;
        }
        if (t->bpe_opts & LLM_BPE_BYTE_FALLBACK) {
            size_t b;
            for (b = 0; b < len && t->byte_tok[w[i + b]] >= 0; b++) {}
            if (b == len) { /* HF adds these before a pending unk */
                for (b = 0; b < len; b++) llm__sym_add(s, &ns, t->byte_tok[w[i + b]]);
                continue;
            }
        }
        if (unk < 0) continue;
        if (unk_pending && !(t->bpe_opts & LLM_BPE_FUSE_UNK)) llm__sym_add(s, &ns, unk);
        unk_pending = 1;
    }
    if (unk_pending) llm__sym_add(s, &ns, unk);
    return ns;
}

/* One word (a pre-token): with ignore_merges a whole-word token wins, else merges. */
static void llm__bpe_word(llm__tokenize_state *k, const uint8_t *w, size_t n) {
    const struct llm__tokenizer *t = k->t;
    llm__cache_slot *slot = NULL;
    llm__sym *s;
    uint64_t *q;
    size_t ns, count = 0;
    int32_t id, i;
    uint32_t h = 0;
    if ((t->bpe_opts & LLM_BPE_IGNORE_MERGES) && (id = llm__vocab_find(t, w, n)) >= 0) { llm__emit_id(k, id); return; }
    if (k->cache_mask && n <= LLM__CACHE_WORD) {
        h = llm__hash_bytes(w, n);
        slot = (llm__cache_slot *)k->cache.p + (h & k->cache_mask);
        if (slot->hash == h && slot->len == n && slot->n_ids && memcmp(slot->word, w, n) == 0) {
            for (i = 0; i < slot->n_ids; i++) llm__emit_id(k, slot->ids[i]);
            return;
        }
    }
    if (n >= 0x7FFFFFFF || n > ((size_t)-1) / 64) { k->oom = 1; return; } /* positions are int32 */
    s = (llm__sym *)llm__reserve(k, &k->sym, n * sizeof *s);
    q = (uint64_t *)llm__reserve(k, &k->heap, 3 * n * sizeof *q);
    if (!s || !q) return;
    if ((ns = llm__bpe_symbols(t, w, n, s)) == 0) return;
    llm__merge_all(t, s, ns, q);
    for (i = 0; i >= 0; i = s[i].next) {
        llm__emit_id(k, s[i].id);
        if (slot && count < LLM__CACHE_IDS) slot->ids[count] = s[i].id;
        count++;
    }
    if (slot) {
        slot->n_ids = count <= LLM__CACHE_IDS ? (uint8_t)count : 0;
        slot->hash = h;
        slot->len = (uint8_t)n;
        memcpy(slot->word, w, n);
    }
}

/* Whether BPE may cut w before the "▁" at i: no token has "▁" right after the character
   before it, so no merge can join across (nor after ">", how <0xHH> and <unk> end, when that
   character is not in the vocabulary). */
static int llm__spm_cut_ok(const struct llm__tokenizer *t, const uint8_t *w, size_t i) {
    uint32_t cp;
    unsigned p;
    size_t start, b;
    if ((i >= 3 && memcmp(w + i - 3, llm__metaspace, 3) == 0) || t->spm_glued[w[i - 1]]) return 0;
    start = llm__char_before(w, i, &cp, &p);
    if (i - start == 1 && w[start] < 0x80 ? t->unit_id[w[start]] >= 0 : llm__vocab_find(t, w + start, i - start) >= 0) return 1;
    /* A character outside the vocabulary becomes <0xHH> tokens or unk (llm__bpe_symbols), which
       a merge with the "▁" could join when a token has "▁" after a '>'; or nothing at all, which
       leaves the "▁" beside what came before it. */
    if (t->spm_glued[(unsigned char)'>']) return 0;
    if (t->bpe_opts & LLM_BPE_BYTE_FALLBACK) {
        for (b = start; b < i && t->byte_tok[w[b]] >= 0; b++) {}
        if (b == i) return 1;
    }
    return t->info.unk_id >= 0;
}

/* SentencePiece-style text has no pre-tokenizer: a whole piece is one BPE word. Cut before
   a "▁" that follows another character where no merge can join across (llm__spm_cut_ok),
   BPE on the parts gives the same ids, faster. */
static void llm__bpe(llm__tokenize_state *k, const uint8_t *w, size_t n) {
    size_t i, start = 0;
    if (!k->t->spm_split || n < 64) { llm__bpe_word(k, w, n); return; }
    for (i = 1; i + 3 <= n; i++)
        if (memcmp(w + i, llm__metaspace, 3) == 0 && llm__spm_cut_ok(k->t, w, i)) {
            llm__bpe_word(k, w + start, i - start);
            start = i;
            i += 2;
        }
    llm__bpe_word(k, w + start, n - start);
}

/* ---- pre-tokenizer steps ---- */
static void llm__pretok(llm__tokenize_state *k, int step, const uint8_t *s, size_t n, int at_origin);

/* Metaspace (pre_tokenizers/metaspace.rs): ' ' becomes U+2581, the prepend scheme adds one
   in front ("first": only for the piece at offset 0 of the input), and split cuts before
   each U+2581. */
static void llm__metaspace_step(llm__tokenize_state *k, int step, const uint8_t *s, size_t n, int at_origin) {
    const struct llm__tokenizer *t = k->t;
    uint8_t *o = llm__reserve(k, &k->step[step], 3 * n + 3);
    size_t m = 0, i, start;
    if (!o) return;
    for (i = 0; i < n; i++) {
        if (s[i] == ' ') { memcpy(o + m, llm__metaspace, 3); m += 3; }
        else o[m++] = s[i];
    }
    if ((t->ms_prepend == 2 || (t->ms_prepend == 1 && at_origin)) && !(m >= 3 && memcmp(o, llm__metaspace, 3) == 0)) {
        memmove(o + 3, o, m);
        memcpy(o, llm__metaspace, 3);
        m += 3;
    }
    if (!t->ms_split) { llm__pretok(k, step + 1, o, m, at_origin); return; }
    for (start = 0, i = 1; i + 3 <= m; i++)
        if (memcmp(o + i, llm__metaspace, 3) == 0) {
            llm__pretok(k, step + 1, o + start, i - start, at_origin && start == 0);
            start = i;
            i += 2;
        }
    llm__pretok(k, step + 1, o + start, m - start, at_origin && start == 0);
}

/* Digits (pre_tokenizers/digits.rs): \p{N} characters isolated one by one, or in runs. */
static void llm__digits_step(llm__tokenize_state *k, int step, const uint8_t *s, size_t n, int at_origin, int runs) {
    size_t i = 0, start = 0, len;
    uint32_t cp;
    unsigned p;
    while (i < n) {
        len = llm__char_at(s, n, i, &cp, &p);
        if (!(p & LLM__U_NUMBER)) { i += len; continue; }
        if (start < i) llm__pretok(k, step + 1, s + start, i - start, at_origin && start == 0);
        start = i;
        i = runs ? llm__run_end(s, n, i, LLM__U_NUMBER) : i + len;
        llm__pretok(k, step + 1, s + start, i - start, at_origin && start == 0);
        start = i;
    }
    if (start < n) llm__pretok(k, step + 1, s + start, n - start, at_origin && start == 0);
}

/* ---- running a compiled split regex ---- */
typedef struct llm__re_thread { int32_t pc; size_t i; } llm__re_thread;

/* Saves a point to come back to; unlike llm__reserve, the stack keeps its content. */
static int llm__re_push(llm__tokenize_state *k, int32_t pc, size_t i) {
    llm__re_thread *th;
    if ((k->re_top + 1) * sizeof *th > k->re_stack.cap) {
        size_t cap = k->re_stack.cap ? 2 * k->re_stack.cap : 64 * sizeof *th;
        uint8_t *p = cap > k->re_stack.cap ? (uint8_t *)llm__alloc(k->alloc, cap) : NULL;
        if (!p) { k->oom = 1; return -1; }
        if (k->re_top) memcpy(p, k->re_stack.p, k->re_top * sizeof *th);
        llm__free(k->alloc, k->re_stack.p);
        k->re_stack.p = p;
        k->re_stack.cap = cap;
    }
    th = (llm__re_thread *)(void *)k->re_stack.p + k->re_top++;
    th->pc = pc;
    th->i = i;
    return 0;
}

static int llm__re_class_has(const llm__re *re, const llm__re_op *op, uint32_t cp) {
    unsigned v = cp < LLM__INVALID_BYTE ? llm__uprop_gc(cp) : 0, gc = v >> 4;
    int32_t j;
    for (j = op->x; j < op->x + op->y; j++) {
        const llm__re_item *it = &re->item[j];
        int in;
        switch (it->kind) {
        case LLM__RE_RANGE: in = cp >= it->lo && cp <= it->hi; break;
        case LLM__RE_GC: in = (it->lo >> gc) & 1; break;
        case LLM__RE_NOT_GC: in = !((it->lo >> gc) & 1); break;
        case LLM__RE_SPACE: in = (v & LLM__U_SPACE) != 0; break;
        default: in = !(v & LLM__U_SPACE); break;
        }
        if (in) return !op->neg;
    }
    return op->neg;
}

static int llm__re_char_is(const llm__re *re, const llm__re_op *op, uint32_t cp) {
    switch (op->op) {
    case LLM__RE_CHAR: return cp == (uint32_t)op->x;
    case LLM__RE_CHAR_I: return (cp < 0x80 && (cp | 0x20) == (uint32_t)op->x) || (op->x == 's' && cp == 0x17F) || (op->x == 'k' && cp == 0x212A);
    case LLM__RE_ANY: return cp != '\n';
    default: return llm__re_class_has(re, op, cp);
    }
}

/* Whether the program from pc matches s from i: 1 (the end in *end), 0, or -1 (out of
   memory). A look-ahead or atomic group runs as a program of its own on the same stack. */
static int llm__re_run(llm__tokenize_state *k, const llm__re *re, int32_t pc, const uint8_t *s, size_t n, size_t i, size_t *end) {
    size_t base = k->re_top, e, len, budget = n - i < ((size_t)-1 - LLM__RE_MAX_BACKTRACK) / 64 ? LLM__RE_MAX_BACKTRACK + 64 * (n - i) : (size_t)-1;
    uint32_t cp;
    int r;
    for (;;) {
        const llm__re_op *op = &re->op[pc];
        switch (op->op) {
        case LLM__RE_MATCH: k->re_top = base; *end = i; return 1;
        case LLM__RE_JMP: pc += op->x; continue;
        case LLM__RE_SPLIT:
            if (llm__re_push(k, pc + op->y, i)) return -1;
            pc += op->x;
            continue;
        case LLM__RE_LINE: /* $ (neg): before a \n or at the end; ^: after a \n or at the start */
            if (op->neg ? i == n || s[i] == '\n' : i == 0 || s[i - 1] == '\n') { pc++; continue; }
            break;
        case LLM__RE_SUB: /* a look-ahead, or an atomic group: no way back into it */
            if ((r = llm__re_run(k, re, pc + 1, s, n, i, &e)) < 0) return -1;
            if (r != (op->neg == LLM__RE_NOT_AHEAD)) {
                if (op->neg == LLM__RE_ATOMIC) i = e;
                pc += op->y;
                continue;
            }
            break;
        default:
            if (i >= n) break;
            if (s[i] < 0x80) {
                if (!(re->ascii[4 * pc + s[i] / 32] >> (s[i] % 32) & 1)) break;
                i++;
                pc++;
                continue;
            }
            if (!(len = llm__utf8_char(s + i, n - i, &cp))) { cp = LLM__INVALID_BYTE + s[i]; len = 1; }
            if (llm__re_char_is(re, op, cp)) { i += len; pc++; continue; }
            break;
        }
        if (k->re_top == base) return 0;
        if (budget-- == 0) { k->re_costly = k->oom = 1; return -1; }
        k->re_top--;
        pc = ((llm__re_thread *)(void *)k->re_stack.p)[k->re_top].pc;
        i = ((llm__re_thread *)(void *)k->re_stack.p)[k->re_top].i;
    }
}

/* Split (pre_tokenizers/split.rs): find_matches gives the matches and the text between them
   in order; the behaviour then merges or drops them (normalizer.rs split), here one element
   at a time with the piece being built. */
typedef struct llm__split {
    const uint8_t *s;
    size_t start, end;
    int step, at_origin, mode, have, prev_match, lone_match;
} llm__split;

static void llm__split_flush(llm__tokenize_state *k, llm__split *sp) {
    if (sp->have) llm__pretok(k, sp->step + 1, sp->s + sp->start, sp->end - sp->start, sp->at_origin && sp->start == 0);
    sp->have = 0;
}

static void llm__split_add(llm__tokenize_state *k, llm__split *sp, size_t a, size_t b, int match) {
    int mode = sp->mode & ~LLM_SPLIT_INVERT, join;
    if (sp->mode & LLM_SPLIT_INVERT) match = !match;
    if (mode == LLM_SPLIT_REMOVED && match) return;
    join = sp->have && (mode == LLM_SPLIT_CONTIGUOUS ? match == sp->prev_match :
                        mode == LLM_SPLIT_MERGED_PREVIOUS ? match && !sp->prev_match :
                        mode == LLM_SPLIT_MERGED_NEXT ? sp->lone_match && !match : 0);
    sp->prev_match = match;
    if (join) { sp->end = b; sp->lone_match = 0; return; }
    llm__split_flush(k, sp);
    sp->have = 1;
    sp->start = a;
    sp->end = b;
    sp->lone_match = match;
}

/* Leftmost matches, as Oniguruma's search: at each character in turn until one matches. */
static void llm__split_step(llm__tokenize_state *k, int step, const uint8_t *s, size_t n, int at_origin) {
    const llm__re *re = &k->t->re[step];
    llm__split sp;
    size_t i = 0, prev = 0, end;
    uint32_t cp;
    unsigned p;
    int r;
    memset(&sp, 0, sizeof sp);
    sp.s = s;
    sp.step = step;
    sp.at_origin = at_origin;
    sp.mode = k->t->split_mode[step];
    while (i < n && !k->oom) {
        if ((r = llm__re_run(k, re, 0, s, n, i, &end)) < 0) return;
        if (!r) { i += llm__char_at(s, n, i, &cp, &p); continue; }
        if (prev < i) llm__split_add(k, &sp, prev, i, 0);
        llm__split_add(k, &sp, i, end, 1);
        prev = i = end;
    }
    if (prev < n) llm__split_add(k, &sp, prev, n, 0);
    llm__split_flush(k, &sp);
}

static void llm__pretok(llm__tokenize_state *k, int step, const uint8_t *s, size_t n, int at_origin) {
    const struct llm__tokenizer *t = k->t;
    size_t i, e;
    if (n == 0 || k->oom) return; /* HF drops empty pieces at every split */
    if (step == t->n_steps) { llm__bpe(k, s, n); return; }
    switch (t->steps[step]) {
    case LLM_PRE_METASPACE: llm__metaspace_step(k, step, s, n, at_origin); return;
    case LLM_PRE_DIGITS: llm__digits_step(k, step, s, n, at_origin, 0); return;
    case LLM_PRE_DIGIT_RUNS: llm__digits_step(k, step, s, n, at_origin, 1); return;
    case LLM_PRE_SPLIT: llm__split_step(k, step, s, n, at_origin); return;
    case LLM_PRE_PREFIX_SPACE: { /* ByteLevel add_prefix_space: a space unless one starts the piece */
        uint8_t *o;
        if (s[0] == ' ') break;
        if (!(o = llm__reserve(k, &k->step[step], n + 1))) return;
        o[0] = ' ';
        memcpy(o + 1, s, n);
        llm__pretok(k, step + 1, o, n + 1, at_origin);
        return;
    }
    default: /* a split regex */
        for (i = 0; i < n; i = e) {
            e = llm__regex_match(t->steps[step], s, n, i);
            llm__pretok(k, step + 1, s + i, e - i, at_origin && i == 0);
        }
        return;
    }
    llm__pretok(k, step + 1, s, n, at_origin);
}

/* ---- normalizers ---- */

/* Canonical decomposition of one code point, appended to out (at most 4 code points for
   any character, 3 for Hangul). */
static size_t llm__decompose(uint32_t c, uint32_t *out) {
    uint32_t a, b;
    size_t n;
    if (c >= 0xAC00 && c < 0xAC00 + 11172) { /* Hangul syllable */
        uint32_t s = c - 0xAC00;
        out[0] = 0x1100 + s / 588;
        out[1] = 0x1161 + s % 588 / 28;
        if (s % 28 == 0) return 2;
        out[2] = 0x11A7 + s % 28;
        return 3;
    }
    if (c >= LLM__INVALID_BYTE || !llm__decompose1(c, &a, &b)) { out[0] = c; return 1; }
    n = llm__decompose(a, out);
    if (b) n += llm__decompose(b, out + n);
    return n;
}

/* Whether text can be cut before cp without changing its NFC: a starter that no composition
   takes as its second character (NFC_Quick_Check Yes) blocks everything across it. */
static int llm__nfc_boundary(uint32_t cp) {
    return cp < 0x300 || cp >= LLM__INVALID_BYTE || (llm__ccc(cp) == 0 && llm__nfcqc(cp) == 0);
}

/* NFC of s[0..n) appended to o: canonical decomposition, canonical ordering, composition
   (UAX #15's algorithm: a character joins the last starter unless a character of the same
   or a higher class, or a starter, sits between). Returns the bytes written. */
static size_t llm__nfc_chunk(const uint8_t *s, size_t n, uint32_t *c, uint8_t *o) {
    size_t i, m = 0, w, j, starter = 0, len;
    unsigned last_ccc, cc, p;
    uint32_t cp;
    for (i = 0; i < n; i += len) { len = llm__char_at(s, n, i, &cp, &p); m += llm__decompose(cp, c + m); }
    for (i = 1; i < m; i++) { /* a stable sort of each run of non-starters by class */
        cc = llm__ccc(c[i]);
        for (j = i; cc != 0 && j > 0 && llm__ccc(c[j - 1]) > cc; j--) { uint32_t x = c[j]; c[j] = c[j - 1]; c[j - 1] = x; }
    }
    last_ccc = m && llm__ccc(c[0]) ? 256 : 0;
    for (i = 1, w = m ? 1 : 0; i < m; i++) {
        uint32_t comp;
        cc = llm__ccc(c[i]);
        if ((last_ccc < cc || last_ccc == 0) && (comp = llm__compose(c[starter], c[i])) != 0) { c[starter] = comp; continue; }
        if (cc == 0) starter = w;
        last_ccc = cc;
        c[w++] = c[i];
    }
    for (i = 0, m = 0; i < w; i++) m += llm__utf8_put(o + m, c[i]);
    return m;
}

/* NFC (unicode-normalization's nfc(), as HF's NFC normalizer). Text that passes the
   NFC_Quick_Check is returned as is; otherwise, from the last boundary before the first
   failure, it is normalized in chunks of about 64 KB cut at boundaries. A character
   decomposes to at most 1.5 code points per UTF-8 byte, and NFC at most triples the bytes. */
static const uint8_t *llm__nfc(llm__tokenize_state *k, const uint8_t *s, size_t n, size_t *out_n) {
    size_t i = 0, safe = 0, len, m, e;
    unsigned last_ccc = 0, cc, p;
    uint32_t cp, *c;
    uint8_t *o;
    while (i < n) {
        len = llm__char_at(s, n, i, &cp, &p);
        if (cp < 0x300) { last_ccc = 0; safe = i; i += len; continue; }
        cc = llm__ccc(cp);
        if ((last_ccc > cc && cc != 0) || llm__nfcqc(cp) != 0) break;
        if (cc == 0) safe = i;
        last_ccc = cc;
        i += len;
    }
    *out_n = n;
    if (i >= n) return s;
    if (n > ((size_t)-1) / 16) { k->oom = 1; return s; }
    if (!(o = llm__reserve(k, &k->norm, safe + 3 * (n - safe) + 4))) return s;
    memcpy(o, s, safe);
    for (i = safe, m = safe; i < n; i = e) {
        for (e = i + llm__char_at(s, n, i, &cp, &p); e < n; e += len) { /* up to a boundary past 64 KB */
            len = llm__char_at(s, n, e, &cp, &p);
            if (e - i >= 65536 && llm__nfc_boundary(cp)) break;
        }
        if (!(c = (uint32_t *)llm__reserve(k, &k->cps, (2 * (e - i) + 4) * sizeof(uint32_t)))) return s;
        m += llm__nfc_chunk(s + i, e - i, c, o + m);
    }
    *out_n = m;
    return o;
}

/* SentencePiece's legacy normalizer as HF stores it: Prepend("▁") (non-empty text only)
   then Replace(" ", "▁"); LLM_NORM_SPM_REPLACE is the Replace alone. */
static const uint8_t *llm__spm_normalize(llm__tokenize_state *k, const uint8_t *s, size_t n, size_t *out_n) {
    uint8_t *o;
    size_t i, m = 0;
    if (n > ((size_t)-1) / 4) { k->oom = 1; *out_n = 0; return s; }
    if (!(o = llm__reserve(k, &k->norm, 3 * n + 3))) { *out_n = 0; return s; }
    if (k->t->normalizer == LLM_NORM_SPM && n) { memcpy(o, llm__metaspace, 3); m = 3; }
    for (i = 0; i < n; i++) {
        if (s[i] == ' ') { memcpy(o + m, llm__metaspace, 3); m += 3; }
        else o[m++] = s[i];
    }
    *out_n = m;
    return o;
}

static const uint8_t *llm__normalize(llm__tokenize_state *k, const uint8_t *s, size_t n, size_t *out_n) {
    switch (k->t->normalizer) {
    case LLM_NORM_NFC: return llm__nfc(k, s, n, out_n);
    case LLM_NORM_SPM: case LLM_NORM_SPM_REPLACE: return llm__spm_normalize(k, s, n, out_n);
    default: *out_n = n; return s;
    }
}

/* ---- added tokens (tokenizer/added_vocabulary.rs find_matches) ---- */

/* The longest added token that starts at s[i], or -1; *end is where it ends. */
static int32_t llm__trie_match(const llm__trie *tr, const uint8_t *s, size_t n, size_t i, size_t *end) {
    int32_t node = tr->root[s[i]], best = -1;
    size_t j = i + 1;
    while (node >= 0) {
        const llm__trie_node *nd = &tr->node[node];
        if (nd->token >= 0) { best = nd->token; *end = j; }
        if (j >= n) break;
        for (node = nd->child; node >= 0 && tr->node[node].byte != s[j]; node = tr->node[node].sibling) {}
        j++;
    }
    return best;
}

static int llm__word_before(const uint8_t *s, size_t i) {
    uint32_t cp;
    unsigned p = 0;
    if (i > 0) llm__char_before(s, i, &cp, &p);
    return (p & LLM__U_WORD) != 0;
}

static int llm__word_at(const uint8_t *s, size_t n, size_t i) {
    uint32_t cp;
    unsigned p = 0;
    if (i < n) llm__char_at(s, n, i, &cp, &p);
    return (p & LLM__U_WORD) != 0;
}

static void llm__segment(llm__tokenize_state *k, const uint8_t *s, size_t n, int at_origin);

/* Cuts the added tokens of trie `which` out of s, leftmost-longest. As in HF, a match that
   is refused (a special token while special tokens are not parsed, a single_word token
   inside a word) still consumes its text; lstrip and rstrip widen an accepted match over
   white space. The text between matches goes on to normalization (pass 0) or to the
   pre-tokenizer (pass 1). */
static void llm__split_added(llm__tokenize_state *k, int which, const uint8_t *s, size_t n, int at_origin) {
    const struct llm__tokenizer *t = k->t;
    const llm__trie *tr = &t->added[which];
    size_t i = 0, seg = 0, end = 0, start, stop;
    uint32_t cp;
    unsigned p;
    while (i < n && !k->oom) {
        int32_t id;
        unsigned f;
        if (tr->root[s[i]] < 0 || (id = llm__trie_match(tr, s, n, i, &end)) < 0) { i++; continue; }
        f = t->flags[id];
        start = i;
        i = end;
        if ((f & LLM_TF_SPECIAL) && !k->parse_special) continue;
        if ((f & LLM_TF_SINGLE_WORD) && (llm__word_before(s, start) || llm__word_at(s, n, end))) continue;
        stop = end;
        if (f & LLM_TF_LSTRIP) {
            size_t b = start;
            while (b > 0) {
                size_t q = llm__char_before(s, b, &cp, &p);
                if (!(p & LLM__U_SPACE)) break;
                b = q;
            }
            start = b > seg ? b : seg;
        }
        if (f & LLM_TF_RSTRIP) stop = llm__run_end(s, n, stop, LLM__U_SPACE);
        if (seg < start) {
            if (which == 0) llm__segment(k, s + seg, start - seg, at_origin && seg == 0);
            else llm__pretok(k, 0, s + seg, start - seg, at_origin && seg == 0);
        }
        if (start < stop) llm__emit_id(k, id); /* (HF drops a token left empty: an lstrip one whose text a
                                                   previous rstrip took, "\n\n\n\n" with "\n\n" both ways) */
        if (stop > seg) seg = stop;
    }
    if (seg < n) {
        if (which == 0) llm__segment(k, s + seg, n - seg, at_origin && seg == 0);
        else llm__pretok(k, 0, s + seg, n - seg, at_origin && seg == 0);
    }
}

/* A piece of the raw text between added tokens: normalize, then cut normalized added
   tokens, then pre-tokenize. */
static void llm__segment(llm__tokenize_state *k, const uint8_t *s, size_t n, int at_origin) {
    size_t m;
    const uint8_t *norm = llm__normalize(k, s, n, &m);
    if (k->oom) return;
    if (k->t->added[1].n) llm__split_added(k, 1, norm, m, at_origin);
    else llm__pretok(k, 0, norm, m, at_origin);
}

static void llm__tk_free(llm__tokenize_state *k) {
    int i;
    llm__free(k->alloc, k->norm.p);
    llm__free(k->alloc, k->cps.p);
    llm__free(k->alloc, k->sym.p);
    llm__free(k->alloc, k->heap.p);
    llm__free(k->alloc, k->cache.p);
    llm__free(k->alloc, k->re_stack.p);
    for (i = 0; i < LLM__MAX_STEPS; i++) llm__free(k->alloc, k->step[i].p);
}

LLMDEF llm_result llm_tokenize(const llm_model *m, const char *text, size_t len, int flags, int32_t *ids, size_t cap,
                               size_t *n_ids) {
    llm__tokenize_state k;
    int32_t i;
    if (n_ids) *n_ids = 0;
    if (!m || !n_ids || (!text && len) || (!ids && cap)) return LLM_ERR_INVALID_ARGUMENT;
    if (!m->tok) return LLM_ERR_UNSUPPORTED;
    memset(&k, 0, sizeof k);
    k.t = m->tok;
    k.alloc = &m->alloc;
    k.ids = ids;
    k.cap = cap;
    k.parse_special = (flags & LLM_TOKENIZE_PARSE_SPECIAL) != 0;
    if (len >= 4096) { /* about one slot per 16 bytes of text */
        size_t slots = 256;
        while (slots < len / 16 && slots < LLM__CACHE_MAX_SLOTS) slots *= 2;
        if (llm__reserve(&k, &k.cache, slots * sizeof(llm__cache_slot))) {
            memset(k.cache.p, 0, slots * sizeof(llm__cache_slot));
            k.cache_mask = (uint32_t)slots - 1;
        }
    }
    k.oom = 0; /* without the cache it still works */
    if (flags & LLM_TOKENIZE_ADD_SPECIAL)
        for (i = 0; i < k.t->info.n_prefix; i++) llm__emit_id(&k, k.t->prefix[i]);
    if (len) llm__split_added(&k, 0, (const uint8_t *)text, len, 1);
    if (flags & LLM_TOKENIZE_ADD_SPECIAL)
        for (i = 0; i < k.t->info.n_suffix; i++) llm__emit_id(&k, k.t->suffix[i]);
    llm__tk_free(&k);
    *n_ids = k.n;
    if (k.oom) return k.re_costly ? LLM_ERR_UNSUPPORTED : LLM_ERR_OUT_OF_MEMORY;
    return k.n > cap ? LLM_ERR_BUFFER_TOO_SMALL : LLM_OK;
}

/* ---- decoding (the decoders/ directory of tokenizers, and ByteLevel's decode) ---- */

typedef struct llm__out { uint8_t *p; size_t cap, n; } llm__out;

static void llm__put_bytes(llm__out *o, const void *src, size_t n) {
    if (o->n < o->cap) memcpy(o->p + o->n, src, o->n + n <= o->cap ? n : o->cap - o->n);
    o->n += n;
}

static const uint8_t llm__fffd[3] = { 0xEF, 0xBF, 0xBD };

/* Text into the output, dropping what is left of the Strip decoder's leading spaces. */
static void llm__put_text(llm_decoder *d, llm__out *o, const uint8_t *s, size_t n) {
    while (d->strip > 0 && n > 0 && s[0] == ' ') { s++; n--; d->strip--; }
    if (n) d->strip = 0;
    llm__put_bytes(o, s, n);
}

/* The byte of a "<0xHH>" token (ByteFallback: 6 bytes, hex read by u8::from_str_radix), or -1. */
static int llm__byte_token(const uint8_t *s, size_t n) {
    int v = 0, i;
    if (n != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>') return -1;
    for (i = 3; i < 5; i++) {
        int c = s[i], h = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
        if (h < 0 && !(i == 3 && c == '+')) return -1;
        if (h >= 0) v = v * 16 + h;
    }
    return v;
}

static int llm__token_byte(const struct llm__tokenizer *t, int32_t id) {
    size_t n;
    const uint8_t *s = llm__tok_str(t, id, &n);
    return llm__byte_token(s, n);
}

/* UTF-8 decoding of a byte stream with U+FFFD for what is not UTF-8: one per maximal
   invalid subsequence (Rust's from_utf8_lossy, for ByteLevel), or one per invalid byte
   (per_byte, for ByteFallback runs). Holds at most 3 bytes of an unfinished character. */
static void llm__utf8_flush(llm_decoder *d, llm__out *o, int per_byte) {
    int32_t i;
    for (i = 0; i < (per_byte ? d->n_pending : d->n_pending > 0); i++) llm__put_text(d, o, llm__fffd, 3);
    d->n_pending = 0;
    d->need = 0;
}

static void llm__utf8_feed(llm_decoder *d, llm__out *o, uint8_t b, int per_byte) {
    if (d->need) {
        if (b >= d->lo && b <= d->hi) {
            d->pending[d->n_pending++] = b;
            d->lo = 0x80; d->hi = 0xBF;
            if (--d->need == 0) { llm__put_text(d, o, d->pending, (size_t)d->n_pending); d->n_pending = 0; }
            return;
        }
        llm__utf8_flush(d, o, per_byte);
    }
    d->lo = 0x80; d->hi = 0xBF;
    if (b < 0x80) { llm__put_text(d, o, &b, 1); return; }
    if (b >= 0xC2 && b <= 0xDF) d->need = 1;
    else if (b >= 0xE0 && b <= 0xEF) { d->need = 2; if (b == 0xE0) d->lo = 0xA0; if (b == 0xED) d->hi = 0x9F; }
    else if (b >= 0xF0 && b <= 0xF4) { d->need = 3; if (b == 0xF0) d->lo = 0x90; if (b == 0xF4) d->hi = 0x8F; }
    else { llm__put_text(d, o, llm__fffd, 3); return; }
    d->pending[0] = b;
    d->n_pending = 1;
}

/* ByteLevel decoding of an added token's text: its characters as bytes when every one is in
   the byte-level alphabet, else its text as is. (Model tokens are stored as bytes already,
   and an added token that is also one decodes to the same bytes.) */
static void llm__byte_level_added(llm_decoder *d, llm__out *o, const uint8_t *s, size_t n) {
    size_t i, len;
    uint32_t cp;
    for (i = 0; i < n; i += len) {
        len = llm__utf8_char(s + i, n - i, &cp);
        if (!len || llm__byte_level_byte(cp) < 0) break;
    }
    if (i < n) { for (i = 0; i < n; i++) llm__utf8_feed(d, o, s[i], 0); return; }
    for (i = 0; i < n; i += len) {
        len = llm__utf8_char(s + i, n - i, &cp);
        llm__utf8_feed(d, o, (uint8_t)llm__byte_level_byte(cp), 0);
    }
}

/* Whether HF drops a token before its decoder: no text for the id, or a special token
   under skip_special_tokens. */
static int llm__dec_skips(const struct llm__tokenizer *t, int32_t id, int flags) {
    if (id >= t->info.n_tokens || !t->flags[id]) return 1;
    return (flags & LLM_DETOKENIZE_SKIP_SPECIAL) && (t->flags[id] & LLM_TF_SPECIAL);
}

/* One token through the decoder chain. ByteLevel: bytes, decoded as UTF-8 across tokens.
   SentencePiece: Replace("▁", " "), ByteFallback (<0xHH> runs), Fuse, Strip. Metaspace:
   "▁" is " ", except in the first token, where it is dropped. */
static void llm__dec_token(llm_decoder *d, const struct llm__tokenizer *t, int32_t id, llm__out *o) {
    size_t n, i, j;
    const uint8_t *s = llm__tok_str(t, id, &n);
    int first = d->n_tokens++ == 0, b;
    if (t->decoder == LLM_DEC_BYTE_LEVEL) {
        if ((t->flags[id] & (LLM_TF_ADDED | LLM_TF_MODEL)) == LLM_TF_ADDED) llm__byte_level_added(d, o, s, n);
        else for (i = 0; i < n; i++) llm__utf8_feed(d, o, s[i], 0);
        return;
    }
    if (t->dec_byte_fallback && (b = llm__byte_token(s, n)) >= 0) { llm__utf8_feed(d, o, (uint8_t)b, 1); return; }
    if (d->n_pending) llm__utf8_flush(d, o, 1); /* a byte run ends unfinished */
    for (i = 0; i < n; i = j) {
        for (j = i; j < n && !(j + 3 <= n && memcmp(s + j, llm__metaspace, 3) == 0); j++) {}
        llm__put_text(d, o, s + i, j - i);
        if (j < n) {
            if (!(t->decoder == LLM_DEC_METASPACE && first)) llm__put_text(d, o, (const uint8_t *)" ", 1);
            j += 3;
        }
    }
}

LLMDEF void llm_decoder_init(llm_decoder *d, const llm_model *m) {
    if (!d) return;
    memset(d, 0, sizeof *d);
    d->model = m;
    if (m && m->tok && m->tok->decoder == LLM_DEC_SENTENCEPIECE) d->strip = m->tok->dec_strip;
}

LLMDEF llm_result llm_decoder_push(llm_decoder *d, int32_t id, char *out, size_t cap, size_t *n_out) {
    llm_decoder tmp;
    llm__out o;
    if (n_out) *n_out = 0;
    if (!d || !n_out || (!out && cap)) return LLM_ERR_INVALID_ARGUMENT;
    if (!d->model || !d->model->tok) return LLM_ERR_UNSUPPORTED;
    if (id < 0) return LLM_ERR_BAD_TOKEN;
    if (llm__dec_skips(d->model->tok, id, d->flags)) return LLM_OK;
    tmp = *d;
    o.p = (uint8_t *)out; o.cap = cap; o.n = 0;
    llm__dec_token(&tmp, d->model->tok, id, &o);
    *n_out = o.n;
    if (o.n > cap) return LLM_ERR_BUFFER_TOO_SMALL;
    *d = tmp;
    return LLM_OK;
}

LLMDEF llm_result llm_decoder_flush(llm_decoder *d, char *out, size_t cap, size_t *n_out) {
    llm_decoder tmp;
    llm__out o;
    if (n_out) *n_out = 0;
    if (!d || !n_out || (!out && cap)) return LLM_ERR_INVALID_ARGUMENT;
    if (!d->model || !d->model->tok) return LLM_ERR_UNSUPPORTED;
    tmp = *d;
    o.p = (uint8_t *)out; o.cap = cap; o.n = 0;
    llm__utf8_flush(&tmp, &o, d->model->tok->decoder != LLM_DEC_BYTE_LEVEL);
    *n_out = o.n;
    if (o.n > cap) return LLM_ERR_BUFFER_TOO_SMALL;
    *d = tmp;
    return LLM_OK;
}

/* A run of <0xHH> tokens from ids[i] (skipped tokens do not end it): HF's ByteFallback
   makes it its text when the run is valid UTF-8 and one U+FFFD per byte otherwise. Returns
   the index after the run. */
static size_t llm__dec_byte_run(llm_decoder *d, const struct llm__tokenizer *t, const int32_t *ids, size_t n, size_t i, llm__out *o) {
    llm_decoder v;
    llm__out count;
    size_t j, bytes = 0, end = i;
    int b;
    memset(&v, 0, sizeof v);
    count.p = NULL; count.cap = 0; count.n = 0;
    for (j = i; j < n; j++) { /* is the run valid UTF-8? (per-byte U+FFFD makes any error longer) */
        if (llm__dec_skips(t, ids[j], d->flags)) continue;
        if ((b = llm__token_byte(t, ids[j])) < 0) break;
        llm__utf8_feed(&v, &count, (uint8_t)b, 1);
        bytes++;
        end = j + 1;
    }
    for (j = i; j < end; j++) {
        if (llm__dec_skips(t, ids[j], d->flags)) continue;
        d->n_tokens++;
        if (count.n == bytes && v.n_pending == 0) {
            uint8_t c = (uint8_t)llm__token_byte(t, ids[j]);
            llm__put_text(d, o, &c, 1);
        } else {
            llm__put_text(d, o, llm__fffd, 3);
        }
    }
    return end;
}

LLMDEF llm_result llm_detokenize(const llm_model *m, const int32_t *ids, size_t n, int flags, char *out, size_t cap,
                                 size_t *n_out) {
    const struct llm__tokenizer *t;
    llm_decoder d;
    llm__out o;
    size_t i;
    if (n_out) *n_out = 0;
    if (!m || !n_out || (!ids && n) || (!out && cap)) return LLM_ERR_INVALID_ARGUMENT;
    if (!(t = m->tok)) return LLM_ERR_UNSUPPORTED;
    for (i = 0; i < n; i++) if (ids[i] < 0) return LLM_ERR_BAD_TOKEN;
    llm_decoder_init(&d, m);
    d.flags = flags;
    o.p = (uint8_t *)out; o.cap = cap; o.n = 0;
    for (i = 0; i < n;) {
        if (llm__dec_skips(t, ids[i], flags)) { i++; continue; }
        if (t->decoder != LLM_DEC_BYTE_LEVEL && t->dec_byte_fallback &&
            llm__token_byte(t, ids[i]) >= 0) {
            i = llm__dec_byte_run(&d, t, ids, n, i, &o);
            continue;
        }
        llm__dec_token(&d, t, ids[i++], &o);
    }
    llm__utf8_flush(&d, &o, t->decoder != LLM_DEC_BYTE_LEVEL);
    *n_out = o.n;
    return o.n > cap ? LLM_ERR_BUFFER_TOO_SMALL : LLM_OK;
}

LLMDEF int32_t llm_token_find(const llm_model *m, const char *text, size_t len) {
    const struct llm__tokenizer *t;
    int32_t i;
    size_t n;
    if (!m || !(t = m->tok) || (!text && len)) return -1;
    for (i = 0; i < t->info.n_tokens; i++) /* added tokens first, as HF's token_to_id */
        if ((t->flags[i] & LLM_TF_ADDED) && llm__tok_str(t, i, &n) && n == len && memcmp(t->text + t->off[i], text, n) == 0)
            return i;
    return llm__vocab_find(t, (const uint8_t *)text, len);
}

LLMDEF const char *llm_token_text(const llm_model *m, int32_t id, size_t *len) {
    size_t n;
    const uint8_t *s;
    if (len) *len = 0;
    if (!m || !m->tok || id < 0 || id >= m->tok->info.n_tokens || !m->tok->flags[id]) return NULL;
    s = llm__tok_str(m->tok, id, &n);
    if (len) *len = n;
    return (const char *)s;
}

LLMDEF int llm_token_is_special(const llm_model *m, int32_t id) {
    if (!m || !m->tok || id < 0 || id >= m->tok->info.n_tokens) return 0;
    return (m->tok->flags[id] & LLM_TF_SPECIAL) != 0;
}

LLMDEF const llm_tokenizer_info *llm_tokenizer_info_get(const llm_model *m) {
    return m && m->tok ? &m->tok->info : NULL;
}

/* ---- loading: checks the tokenizer.* entries and builds the lookup tables ---- */

static void llm__tok_free(llm_model *m) {
    struct llm__tokenizer *t = m->tok;
    int i;
    if (!t) return;
    llm__free(&m->alloc, t->off);
    llm__free(&m->alloc, t->prefix);
    llm__free(&m->alloc, t->suffix);
    llm__free(&m->alloc, t->vocab);
    llm__free(&m->alloc, t->merge);
    for (i = 0; i < 2; i++) llm__free(&m->alloc, t->added[i].node);
    for (i = 0; i < LLM__MAX_STEPS; i++) llm__re_free(&m->alloc, &t->re[i]);
    llm__free(&m->alloc, t);
    m->tok = NULL;
}

static int llm__trie_add(const llm_allocator *a, llm__trie *tr, const uint8_t *s, size_t n, int32_t id) {
    int32_t *link = &tr->root[s[0]], node = -1;
    size_t i;
    for (i = 0; i < n; i++) {
        for (node = *link; node >= 0 && tr->node[node].byte != s[i]; node = tr->node[node].sibling) {}
        if (node < 0) {
            if (tr->n == tr->cap) {
                int32_t cap = tr->cap ? tr->cap * 2 : 64;
                llm__trie_node *p = (llm__trie_node *)llm__alloc(a, (size_t)cap * sizeof *p);
                if (!p) return 0;
                if (tr->n) memcpy(p, tr->node, (size_t)tr->n * sizeof *p);
                /* link may point into the old array: re-aim it */
                if (link != &tr->root[s[0]]) link = (int32_t *)((char *)p + ((char *)link - (char *)tr->node));
                llm__free(a, tr->node);
                tr->node = p;
                tr->cap = cap;
            }
            node = tr->n++;
            tr->node[node].byte = s[i];
            tr->node[node].token = -1;
            tr->node[node].child = -1;
            tr->node[node].sibling = *link; /* -1 at the root, whose slots hold one node each */
            *link = node;
        }
        link = &tr->node[node].child;
    }
    if (tr->node[node].token < 0) tr->node[node].token = id;
    return 1;
}

static llm_result llm__tok_i32(const llm_model *m, const char *key, int32_t lo, int32_t hi, int32_t dflt, int32_t *v,
                               char *err, size_t es) {
    llm_result r;
    *v = dflt;
    if ((r = llm__meta_i32(m, key, 0, v, err, es))) return r;
    if (*v < lo || *v > hi) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' is %d, outside [%d, %d]", key, *v, lo, hi);
    return LLM_OK;
}

/* An i32 array entry copied out (the mapping gives no alignment), ids checked. */
static llm_result llm__tok_ids(llm_model *m, const char *key, int32_t **out, int32_t *n_out, int32_t n_tokens,
                               size_t max, char *err, size_t es) {
    const llm__meta *e = llm__meta_find(m, key);
    size_t i, n;
    *n_out = 0;
    if (!e) return LLM_OK;
    n = (size_t)e->size / 4;
    if (e->type != LLM_META_I32_ARRAY || e->size % 4 || n > max)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' is not an array of at most %u ids", key, (unsigned)max);
    if (!(*out = (int32_t *)llm__calloc(&m->alloc, n ? n : 1, sizeof(int32_t))))
        return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; i < n; i++) {
        (*out)[i] = (int32_t)llm__rd32(e->data + 4 * i);
        if ((*out)[i] < 0 || (*out)[i] >= n_tokens)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s'[%u] = %d is not a token id", key, (unsigned)i, (*out)[i]);
    }
    *n_out = (int32_t)n;
    return LLM_OK;
}

static llm_result llm__tok_options(llm_model *m, struct llm__tokenizer *t, char *err, size_t es) {
    const llm__meta *steps = llm__meta_find(m, LLM_KEY_TOK_PRE);
    int32_t n = t->info.n_tokens, i;
    llm_result r;
    if ((r = llm__tok_i32(m, LLM_KEY_TOK_UNK_ID, -1, n - 1, -1, &t->info.unk_id, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_BPE_OPTIONS, 0, 7, 0, &t->bpe_opts, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_BYTE_LEVEL, 0, 1, 0, &t->info.byte_level, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_NORMALIZER, 0, 3, 0, &t->normalizer, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_MS_PREPEND, 0, 2, 0, &t->ms_prepend, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_MS_SPLIT, 0, 1, 0, &t->ms_split, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_DECODER, 1, 3, 0, &t->decoder, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_DEC_FALLBACK, 0, 1, 0, &t->dec_byte_fallback, err, es)) ||
        (r = llm__tok_i32(m, LLM_KEY_TOK_DEC_STRIP, 0, 1 << 20, 0, &t->dec_strip, err, es)) ||
        (r = llm__tok_ids(m, LLM_KEY_TOK_PREFIX_IDS, &t->prefix, &t->info.n_prefix, n, 64, err, es)) ||
        (r = llm__tok_ids(m, LLM_KEY_TOK_SUFFIX_IDS, &t->suffix, &t->info.n_suffix, n, 64, err, es)))
        return r;
    if (t->decoder == 0) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: missing 'tokenizer.decoder'");
    t->info.prefix = t->prefix;
    t->info.suffix = t->suffix;
    t->info.adds_bos = t->info.n_prefix == 1 && t->prefix[0] == m->info.bos_id;
    if (steps) {
        if (steps->type != LLM_META_I32_ARRAY || steps->size % 4 || steps->size / 4 > LLM__MAX_STEPS)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: 'tokenizer.pre_tokenizer' is not an array of at most %d steps", LLM__MAX_STEPS);
        t->n_steps = (int32_t)(steps->size / 4);
        for (i = 0; i < t->n_steps; i++) {
            t->steps[i] = (int32_t)llm__rd32(steps->data + 4 * (size_t)i);
            if (t->steps[i] < LLM_PRE_METASPACE || t->steps[i] > LLM_PRE_SPLIT)
                return llm__fail(err, es, LLM_ERR_UNSUPPORTED, "tokenizer: unknown pre-tokenizer step %d", t->steps[i]);
        }
    }
    return LLM_OK;
}

/* The regex and behaviour of each LLM_PRE_SPLIT step, in step order, compiled. */
static llm_result llm__tok_regexes(llm_model *m, struct llm__tokenizer *t, char *err, size_t es) {
    const llm__meta *rx = llm__meta_find(m, LLM_KEY_TOK_SPLIT_REGEXES), *md = llm__meta_find(m, LLM_KEY_TOK_SPLIT_MODES);
    size_t at = 0, count = 0, len;
    int32_t i;
    char what[128];
    for (i = 0; i < t->n_steps; i++) count += t->steps[i] == LLM_PRE_SPLIT;
    if (!count && !rx && !md) return LLM_OK;
    if (!rx || rx->type != LLM_META_BLOB || !md || md->type != LLM_META_I32_ARRAY || md->size != 4 * (uint64_t)count)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' and '%s' must hold a regex and a behaviour per split step",
                         LLM_KEY_TOK_SPLIT_REGEXES, LLM_KEY_TOK_SPLIT_MODES);
    for (i = 0, count = 0; i < t->n_steps; i++) {
        const char *text = (const char *)rx->data + at;
        if (t->steps[i] != LLM_PRE_SPLIT) continue;
        for (len = 0; at + len < rx->size && text[len]; len++) {}
        if (at + len >= rx->size) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' does not end in NUL", LLM_KEY_TOK_SPLIT_REGEXES);
        t->split_mode[i] = (int32_t)llm__rd32(md->data + 4 * count++);
        if (t->split_mode[i] & ~(7 | LLM_SPLIT_INVERT) || (t->split_mode[i] & 7) > LLM_SPLIT_CONTIGUOUS)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: split behaviour %d is not known", t->split_mode[i]);
        if (llm__re_compile(&m->alloc, &t->re[i], text, len, what, sizeof what))
            return llm__fail(err, es, strstr(what, "out of memory") ? LLM_ERR_OUT_OF_MEMORY : LLM_ERR_UNSUPPORTED,
                             "tokenizer: split regex %d: %s", (int)count, what);
        at += len + 1;
    }
    if (at != rx->size) return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: '%s' holds more regexes than split steps", LLM_KEY_TOK_SPLIT_REGEXES);
    return LLM_OK;
}

/* Open-addressing tables at most 3/4 full. */
static uint32_t llm__table_size(size_t n) {
    uint32_t size = 16;
    while (size < n + n / 3 + 1 && size < (1u << 30)) size *= 2;
    return size;
}

/* Whether the vocabulary's lookup by bytes holds a token: a model token, unless it is a
   byte-level entry BPE never produces (LLM_TF_BYTE_LEVEL_TEXT without LLM_TF_ADDED). The
   converter checks the same set for two ids sharing their bytes. */
static int llm__tok_found_by_bytes(uint8_t f) {
    return (f & LLM_TF_MODEL) && (f & (LLM_TF_ADDED | LLM_TF_BYTE_LEVEL_TEXT)) != LLM_TF_BYTE_LEVEL_TEXT;
}

static llm_result llm__tok_tables(llm_model *m, struct llm__tokenizer *t, char *err, size_t es) {
    const llm__meta *mg = llm__meta_find(m, LLM_KEY_TOK_MERGES);
    int32_t n = t->info.n_tokens, i, n_model = 0;
    size_t n_merges = 0, k;
    char name[8];
    for (i = 0; i < n; i++) n_model += (t->flags[i] & LLM_TF_MODEL) != 0;
    if (mg && (mg->type != LLM_META_I32_ARRAY || mg->size % 12))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: 'tokenizer.merges' is not an array of id triples");
    if (mg) n_merges = (size_t)mg->size / 12;
    t->vocab_mask = llm__table_size((size_t)n_model) - 1;
    t->merge_mask = llm__table_size(n_merges) - 1;
    t->vocab = (int32_t *)llm__alloc(&m->alloc, ((size_t)t->vocab_mask + 1) * sizeof(int32_t));
    t->merge = (llm__merge *)llm__alloc(&m->alloc, ((size_t)t->merge_mask + 1) * sizeof(llm__merge));
    if (!t->vocab || !t->merge) return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    memset(t->vocab, 0xFF, ((size_t)t->vocab_mask + 1) * sizeof(int32_t));
    memset(t->merge, 0xFF, ((size_t)t->merge_mask + 1) * sizeof(llm__merge));
    for (i = 0; i < n; i++) {
        size_t len, len2;
        const uint8_t *s;
        uint32_t h;
        if (!llm__tok_found_by_bytes(t->flags[i])) continue;
        s = llm__tok_str(t, i, &len);
        for (h = llm__hash_bytes(s, len) & t->vocab_mask; t->vocab[h] >= 0; h = (h + 1) & t->vocab_mask) {
            const uint8_t *s2 = llm__tok_str(t, t->vocab[h], &len2);
            if (len2 == len && memcmp(s, s2, len) == 0) break; /* the same bytes twice: the first id wins */
        }
        if (t->vocab[h] < 0) t->vocab[h] = i;
    }
    for (k = 0; k < n_merges; k++) { /* a pair listed twice keeps its last rank, as HF's HashMap */
        uint32_t a = llm__rd32(mg->data + 12 * k), b = llm__rd32(mg->data + 12 * k + 4), c = llm__rd32(mg->data + 12 * k + 8), h;
        if (a >= (uint32_t)n || b >= (uint32_t)n || c >= (uint32_t)n)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tokenizer: merge %u names a token outside the vocabulary", (unsigned)k);
        for (h = llm__hash_pair(a, b) & t->merge_mask; t->merge[h].left != 0xFFFFFFFFu; h = (h + 1) & t->merge_mask)
            if (t->merge[h].left == a && t->merge[h].right == b) break;
        t->merge[h].left = a; t->merge[h].right = b; t->merge[h].rank = (int32_t)k; t->merge[h].result = (int32_t)c;
    }
    t->spm_split = !t->info.byte_level && !(t->bpe_opts & LLM_BPE_IGNORE_MERGES) && llm__vocab_find(t, llm__metaspace, 3) >= 0;
    for (i = 0; i < n && t->spm_split; i++) { /* tokens with "▁" after another character */
        size_t len, j;
        const uint8_t *s = llm__tok_str(t, i, &len);
        if (!(t->flags[i] & LLM_TF_MODEL)) continue;
        for (j = 0; j + 3 <= len && memcmp(s + j, llm__metaspace, 3) == 0; j += 3) {}
        for (j += 1; j + 3 <= len; j++)
            if (memcmp(s + j, llm__metaspace, 3) == 0 && !(j >= 3 && memcmp(s + j - 3, llm__metaspace, 3) == 0)) t->spm_glued[s[j - 1]] = 1;
    }
    for (i = 0; i < 256; i++) {
        uint8_t c = (uint8_t)i;
        t->unit_id[i] = t->info.byte_level || i < 0x80 ? llm__vocab_find(t, &c, 1) : -1;
        snprintf(name, sizeof name, "<0x%02X>", i);
        t->byte_tok[i] = llm__vocab_find(t, (const uint8_t *)name, 6);
    }
    return LLM_OK;
}

/* The byte-level spelling of bytes (each byte as its GPT-2 character, in UTF-8). */
static const uint8_t *llm__byte_level_text(llm__tokenize_state *k, const uint8_t *s, size_t n, size_t *out_n) {
    uint8_t *o = llm__reserve(k, &k->step[0], 2 * n + 1);
    size_t i, m = 0;
    *out_n = 0;
    if (!o) return s;
    for (i = 0; i < n; i++) m += llm__utf8_put(o + m, llm__byte_level_char(s[i]));
    *out_n = m;
    return o;
}

/* The added tokens' tries; "normalized" ones are matched by their normalized text, as HF's
   refresh_added_tokens builds split_normalized_trie. Special tokens go in first. */
static llm_result llm__tok_added(llm_model *m, struct llm__tokenizer *t, char *err, size_t es) {
    llm__tokenize_state k;
    int32_t i, pass;
    int ok = 1;
    memset(&k, 0, sizeof k);
    k.t = t;
    k.alloc = &m->alloc;
    memset(t->added[0].root, 0xFF, sizeof t->added[0].root);
    memset(t->added[1].root, 0xFF, sizeof t->added[1].root);
    for (pass = 0; pass < 2 && ok; pass++)
        for (i = 0; i < t->info.n_tokens && ok; i++) {
            unsigned f = t->flags[i];
            size_t len;
            const uint8_t *s = llm__tok_str(t, i, &len);
            int which = (f & LLM_TF_NORMALIZED) != 0;
            if (!(f & LLM_TF_ADDED) || len == 0 || ((f & LLM_TF_SPECIAL) != 0) != (pass == 0)) continue;
            if (f & LLM_TF_BYTE_LEVEL_TEXT) s = llm__byte_level_text(&k, s, len, &len);
            if (which && !k.oom) s = llm__normalize(&k, s, len, &len);
            ok = !k.oom && (len == 0 || llm__trie_add(&m->alloc, &t->added[which], s, len, i));
        }
    llm__tk_free(&k);
    return ok ? LLM_OK : llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
}

static llm_result llm__tok_load(llm_model *m, char *err, size_t es) {
    const llm__meta *text = llm__meta_find(m, LLM_KEY_TOK_TOKENS), *off = llm__meta_find(m, LLM_KEY_TOK_OFFSETS),
                    *flags = llm__meta_find(m, LLM_KEY_TOK_FLAGS);
    struct llm__tokenizer *t;
    size_t i, n;
    llm_result r;
    if (!text && !off && !flags) return LLM_OK; /* converted without tokenizer.json */
    if (!text || !off || !flags || text->type != LLM_META_BLOB || off->type != LLM_META_I32_ARRAY || flags->type != LLM_META_BLOB)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "metadata: tokenizer.tokens, .token_offsets and .token_flags must come together");
    n = (size_t)flags->size;
    if (n < 1 || n > (1u << 24) || off->size != 4 * ((uint64_t)n + 1) || text->size > 0x7FFFFFFFu)
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tokenizer: %llu tokens do not match %llu offsets", (unsigned long long)n,
                         (unsigned long long)(off->size / 4));
    if (!(t = m->tok = (struct llm__tokenizer *)llm__calloc(&m->alloc, 1, sizeof *t)) ||
        !(t->off = (uint32_t *)llm__alloc(&m->alloc, (n + 1) * sizeof(uint32_t))))
        return llm__fail(err, es, LLM_ERR_OUT_OF_MEMORY, "out of memory");
    t->info.n_tokens = (int32_t)n;
    t->text = text->data;
    t->flags = flags->data;
    for (i = 0; i <= n; i++) {
        t->off[i] = llm__rd32(off->data + 4 * i);
        if ((i == 0 && t->off[0] != 0) || (i > 0 && t->off[i] < t->off[i - 1]) || t->off[i] > text->size)
            return llm__fail(err, es, LLM_ERR_BAD_FILE, "tokenizer: token offset %u is out of order", (unsigned)i);
    }
    if (t->off[n] != text->size) return llm__fail(err, es, LLM_ERR_BAD_FILE, "tokenizer: the offsets do not cover the token text");
    if ((r = llm__tok_options(m, t, err, es)) || (r = llm__tok_regexes(m, t, err, es)) || (r = llm__tok_tables(m, t, err, es)) ||
        (r = llm__tok_added(m, t, err, es)))
        return r;
    if (t->info.unk_id >= 0 && !(t->flags[t->info.unk_id] & LLM_TF_MODEL))
        return llm__fail(err, es, LLM_ERR_BAD_FILE, "tokenizer: unk_id %d is not a vocabulary token", t->info.unk_id);
    for (i = 0; i < (size_t)t->info.n_tokens; i++) { /* once here, so a generation need not scan the vocabulary */
        size_t len;
        if (llm_token_text(m, i, &len) && len > (size_t)t->info.max_token_bytes) t->info.max_token_bytes = (int32_t)len;
    }
    return LLM_OK;
}

/* ---- llm: sampler -------------------------------------------------------------------------- */
/* A seed gives the same draws whatever the compiler: no multiply and add in this section may
   be fused into an FMA, whose single rounding would change the masses. clang fuses within an
   expression by default and gcc across statements outside the ISO C modes (-std=gnu*, C++
   gnu++*); -ffast-math and clang's -ffp-contract=fast override this, and x87 arithmetic
   (32-bit x86 without SSE2) rounds twice, so there draws can differ in rare cases. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

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

/* exp(x) for x <= 0 from IEEE additions and multiplications only (none fused, see above), so
   draws do not depend on the platform's libm. Relative error ~1e-16. */
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
           included) */
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

/* dist >= 0 unless a compiler fused zmax - v * inv_t into a multiply-add (-ffp-contract=fast:
   slightly negative, hugely so for huge logits); NaN goes to the tail. */
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

static int32_t llm__sample(llm_sampler *s, const float *logits, int32_t n, const int32_t *recent, size_t n_recent,
                           void *scratch) {
    float *v = (float *)scratch;
    llm__cand *c;
    double inv_t, zmax, mass, r, acc, total = 0.0;
    int32_t i, k = 0, keep, best;
    int sorted, last_bucket = LLM__BUCKETS;
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

LLMDEF llm_result llm_sample_logits(llm_sampler *s, const float *logits, int32_t n_vocab, const int32_t *recent, size_t n_recent,
                                    void *scratch, int32_t *id) {
    if (id) *id = -1;
    if (!s || !logits || n_vocab < 1 || !scratch || !id) return LLM_ERR_INVALID_ARGUMENT;
    *id = llm__sample(s, logits, n_vocab, recent, n_recent, scratch);
    return LLM_OK;
}

/* The sampler with its zero fields given their defaults (sokol's _sg_def). */
static llm_sampler llm__sampler_defaults(const llm_sampler *s) {
    llm_sampler d = *s;
    if (d.repeat_last_n == 0) d.repeat_last_n = LLM_SAMPLER_DEFAULT_REPEAT_LAST_N;
    return d;
}

LLMDEF llm_result llm_sample(llm_ctx *ctx, llm_sampler *s, int32_t *id) {
    int32_t n_recent;
    if (id) *id = -1;
    if (!ctx || !s || !id) return LLM_ERR_INVALID_ARGUMENT;
    if (!ctx->n_logits)
        return llm__fail(ctx->error, sizeof ctx->error, LLM_ERR_INVALID_ARGUMENT,
                         "llm_sample: the context holds no logits (nothing evaluated since it was opened, rewound or loaded)");
    n_recent = llm__sampler_defaults(s).repeat_last_n;
    if (n_recent < 0 || n_recent > ctx->pos) n_recent = ctx->pos;
    return llm_sample_logits(s, llm_logits(ctx), ctx->model->info.n_vocab, ctx->tokens + (ctx->pos - n_recent),
                             (size_t)n_recent, ctx->sample_scratch, id);
}

#if defined(__clang__)
#pragma STDC FP_CONTRACT DEFAULT
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

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

/* The messages the families' templates raise, and Jinja's for messages[0] of an empty list;
   *error points at one of these (they outlive the call). */
#define LLM__J_E_EMPTY "list object has no element 0"
#define LLM__J_E_ALT "Conversation roles must alternate user/assistant/user/assistant/..."
#define LLM__J_E_ALT_SYS "After the optional system message, conversation roles must alternate user/assistant/user/assistant/..."
#define LLM__J_E_ONLY_UA_SYS "Only user and assistant roles are supported, with the exception of an initial optional system message!"
#define LLM__J_E_ONLY_UA "Only user and assistant roles are supported!"
#define LLM__J_E_TOOL_IDS "Tool call IDs should be alphanumeric strings with length 9!"
#define LLM__J_E_SYSTEM "System role not supported"
static const char *const llm__template_errors[] = {
    LLM__J_E_EMPTY, LLM__J_E_ALT, LLM__J_E_ALT_SYS, LLM__J_E_ONLY_UA_SYS, LLM__J_E_ONLY_UA, LLM__J_E_TOOL_IDS, LLM__J_E_SYSTEM,
};

/* The built-in templates, written for llm.h: each renders what its family's own template
   renders for plain role/content messages. Besides transformers' variables they read
   system_default (the model's default system prompt) and model_date (its "Today Date"). */
#define LLM__J_RAISE(e) "{{ raise_exception('" e "') }}"
#define LLM__J_EMPTY "{% if not messages %}" LLM__J_RAISE(LLM__J_E_EMPTY) "{% endif %}"
#define LLM__J_SYS "{% set s = 1 if messages[0].role == 'system' else 0 %}"
#define LLM__J_ALT(e) "{% if (m.role == 'user') != (loop.index0 % 2 == 0) %}" LLM__J_RAISE(e) "{% endif %}"
#define LLM__J_MISTRAL_LEGACY(after_eos) "{{ bos_token }}{% for m in messages %}" LLM__J_ALT(LLM__J_E_ALT) \
    "{% if m.role == 'user' %}{{ '[INST] ' + m.content + ' [/INST]' }}{% elif m.role == 'assistant' %}" \
    "{{ m.content + eos_token + '" after_eos "' }}{% else %}" LLM__J_RAISE(LLM__J_E_ONLY_UA) \
    "{% endif %}{% endfor %}"
#define LLM__J_CHATML(role, content) "{{ '<|im_start|>' + " role " + '\\n' + " content " + '<|im_end|>\\n' }}"
#define LLM__J_CHATML_PROMPT "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
/* Qwen: consecutive tool messages share one user turn of <tool_response> blocks. */
#define LLM__J_QWEN_TOOL "{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{ '<|im_start|>user' }}{% endif %}" \
    "{{ '\\n<tool_response>\\n' + m.content + '\\n</tool_response>' }}" \
    "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{ '<|im_end|>\\n' }}{% endif %}"
/* Qwen3: reasoning is split off at </think>; assistant turns after the last real user query
   show a think block (an empty one on the last message). */
#define LLM__J_QWEN3_ASSISTANT "{% set c = m.content %}{% set r = '' %}{% if '</think>' in c %}" \
    "{% set b = c.split('</think>')[0].rstrip('\\n') %}{% set r = (b.split('<think>')[-1] if '<think>' in b else b).lstrip('\\n') %}" \
    "{% set c = c.split('</think>')[-1].lstrip('\\n') %}{% endif %}{{ '<|im_start|>assistant\\n' }}" \
    "{% if loop.index0 > ns.q and (loop.last or r) %}{{ '<think>\\n' + r.strip('\\n') + '\\n</think>\\n\\n' + c.lstrip('\\n') }}" \
    "{% else %}{{ c }}{% endif %}{{ '<|im_end|>\\n' }}"
#define LLM__J_QWEN3_LAST_QUERY "{% set ns = namespace(q=messages|length - 1, found=false) %}" \
    "{% for i in range(messages|length - 1, -1, -1) %}{% set c = messages[i].content %}" \
    "{% if not ns.found and messages[i].role == 'user' and not (c.startswith('<tool_response>') and c.endswith('</tool_response>')) %}" \
    "{% set ns.q = i %}{% set ns.found = true %}{% endif %}{% endfor %}"
/* Gemma: assistant is "model"; Gemma 3 puts the system text before the first user text (only
   that text is trimmed). */
#define LLM__J_GEMMA(system) "{{ bos_token }}" LLM__J_EMPTY LLM__J_SYS system "{% for m in messages[s:] %}" LLM__J_ALT(LLM__J_E_ALT) \
    "{{ '<start_of_turn>' + ('model' if m.role == 'assistant' else m.role) + '\\n' + (messages[0].content + '\\n\\n' if loop.first and s else '')" \
    " + m.content.strip() + '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}"
#define LLM__J_LLAMA3_TURN "{{ '<|start_header_id|>' + m.role + '<|end_header_id|>\\n\\n' + m.content.strip() + '<|eot_id|>' }}"
#define LLM__J_LLAMA3_PROMPT "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
#define LLM__J_LLAMA3(prompt) "{% for m in messages %}{% if loop.first %}{{ bos_token }}{% endif %}" LLM__J_LLAMA3_TURN "{% endfor %}" prompt
/* Llama 3.1/3.2: a system header with the knowledge cutoff and the date always comes first;
   tool results are "ipython" turns whose content goes through tojson. */
#define LLM__J_LLAMA31(date) "{{ bos_token }}" LLM__J_EMPTY LLM__J_SYS "{% set d = date_string if date_string is defined else " date " %}" \
    "{{ '<|start_header_id|>system<|end_header_id|>\\n\\nCutting Knowledge Date: December 2023\\nToday Date: ' + d + '\\n\\n'" \
    " + (messages[0].content.strip() if s else '') + '<|eot_id|>' }}{% for m in messages[s:] %}{% if m.role in ['tool', 'ipython'] %}" \
    "{{ '<|start_header_id|>ipython<|end_header_id|>\\n\\n' + m.content|tojson + '<|eot_id|>' }}{% else %}" LLM__J_LLAMA3_TURN \
    "{% endif %}{% endfor %}{% if add_generation_prompt %}" LLM__J_LLAMA3_PROMPT "{% endif %}"

static const char *const llm__template_jinja[LLM__T_COUNT] = {
    /* raw */
    "{% for m in messages %}{{ m.content }}{% endfor %}",
    /* zephyr */
    "{% for m in messages %}{% if m.role in ['user', 'system', 'assistant'] %}{{ '<|' + m.role + '|>\\n' + m.content + eos_token + '\\n' }}"
    "{% endif %}{% if loop.last and add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}{% endfor %}",
    /* llama2: the system text joins the first user turn; .strip() applies to that whole string */
    LLM__J_EMPTY LLM__J_SYS "{% for m in messages[s:] %}" LLM__J_ALT(LLM__J_E_ALT)
    "{% if m.role == 'user' %}{{ bos_token + '[INST] ' }}{% elif m.role == 'assistant' %}{{ ' ' }}{% endif %}"
    "{% if m.role in ['user', 'assistant'] %}{% if loop.first and s %}{% set t = m.content.rstrip() %}"
    "{{ '<<SYS>>\\n' + messages[0].content + '\\n<</SYS>>' + ('\\n\\n' if t else '') + t }}{% else %}{{ m.content.strip() }}{% endif %}"
    "{% if m.role == 'user' %}{{ ' [/INST]' }}{% else %}{{ ' ' + eos_token }}{% endif %}{% endif %}{% endfor %}",
    /* mistral-v1 */
    LLM__J_EMPTY LLM__J_SYS "{{ bos_token }}{% for m in messages[s:] %}" LLM__J_ALT(LLM__J_E_ALT_SYS)
    "{% if m.role == 'user' %}{{ ' [INST] ' + (messages[0].content + '\\n\\n' if loop.first and s else '') + m.content + ' [/INST]' }}"
    "{% elif m.role == 'assistant' %}{{ ' ' + m.content + eos_token }}{% else %}" LLM__J_RAISE(LLM__J_E_ONLY_UA_SYS) "{% endif %}{% endfor %}",
    /* mistral-v3: alternation is checked first (tool messages skipped); the system text goes
       into the last message when it is a user turn; our messages carry no tool_call_id */
    LLM__J_EMPTY LLM__J_SYS "{% set ns = namespace(j=0) %}{% for m in messages[s:] %}{% if m.role not in ['tool', 'tool_results'] %}"
    "{% if (m.role == 'user') != (ns.j % 2 == 0) %}" LLM__J_RAISE(LLM__J_E_ALT_SYS) "{% endif %}{% set ns.j = ns.j + 1 %}{% endif %}"
    "{% endfor %}{{ bos_token }}{% for m in messages[s:] %}{% if m.role == 'user' %}"
    "{{ '[INST] ' + (messages[0].content + '\\n\\n' if loop.last and s else '') + m.content + '[/INST]' }}"
    "{% elif m.role == 'assistant' %}{{ ' ' + m.content.strip() + eos_token }}{% elif m.role in ['tool', 'tool_results'] %}"
    LLM__J_RAISE(LLM__J_E_TOOL_IDS) "{% else %}" LLM__J_RAISE(LLM__J_E_ONLY_UA_SYS)
    "{% endif %}{% endfor %}",
    /* mistral-v0.1-legacy */
    LLM__J_MISTRAL_LEGACY(" "),
    /* mistral-v0.2-legacy */
    LLM__J_MISTRAL_LEGACY(""),
    /* chatml */
    "{% for m in messages %}" LLM__J_CHATML("m.role", "m.content") "{% endfor %}" LLM__J_CHATML_PROMPT,
    /* smollm2 */
    "{% for m in messages %}{% if loop.first and m.role != 'system' %}" LLM__J_CHATML("'system'", "system_default") "{% endif %}"
    LLM__J_CHATML("m.role", "m.content") "{% endfor %}" LLM__J_CHATML_PROMPT,
    /* qwen2.5 */
    LLM__J_EMPTY LLM__J_CHATML("'system'", "(messages[0].content if messages[0].role == 'system' else system_default)")
    "{% for m in messages %}{% if m.role == 'user' or (m.role == 'system' and not loop.first) or m.role == 'assistant' %}"
    LLM__J_CHATML("m.role", "m.content") "{% elif m.role == 'tool' %}" LLM__J_QWEN_TOOL "{% endif %}{% endfor %}" LLM__J_CHATML_PROMPT,
    /* qwen3 */
    LLM__J_EMPTY "{% if messages[0].role == 'system' %}" LLM__J_CHATML("'system'", "messages[0].content") "{% endif %}"
    LLM__J_QWEN3_LAST_QUERY "{% for m in messages %}{% if m.role == 'user' or (m.role == 'system' and not loop.first) %}"
    LLM__J_CHATML("m.role", "m.content") "{% elif m.role == 'assistant' %}" LLM__J_QWEN3_ASSISTANT "{% elif m.role == 'tool' %}"
    LLM__J_QWEN_TOOL "{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
    "{% if enable_thinking is defined and not enable_thinking %}{{ '<think>\\n\\n</think>\\n\\n' }}{% endif %}{% endif %}",
    /* gemma2 */
    LLM__J_GEMMA("{% if s %}" LLM__J_RAISE(LLM__J_E_SYSTEM) "{% endif %}"),
    /* gemma3 */
    LLM__J_GEMMA(""),
    /* llama3 */
    LLM__J_LLAMA3("{% if add_generation_prompt %}" LLM__J_LLAMA3_PROMPT "{% endif %}"),
    /* llama3-base */
    LLM__J_LLAMA3(LLM__J_LLAMA3_PROMPT),
    /* llama3.1 */
    LLM__J_LLAMA31("(model_date if model_date is defined else '26 Jul 2024')"),
    /* llama3.2 */
    LLM__J_LLAMA31("strftime_now('%d %b %Y')"),
};

typedef struct llm__str {
    const char *p;
    size_t n;
} llm__str;

static llm__str llm__s(const char *p) { llm__str s; s.p = p; s.n = strlen(p); return s; }

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
    const char *v = llm_model_meta_string(m, LLM_KEY_CHAT_VARIANT, &len);
    int t = v ? llm__template_index(v, len) : -1;
    if (t < 0 && (v = llm_model_meta_string(m, LLM_KEY_CHAT_FAMILY, &len)) != NULL) t = llm__template_index(v, len);
    return t < 0 ? LLM__T_RAW : t;
}

/* ---- llm: chat templates (the model's own, through the interpreter) ------------------------ */
typedef struct llm__vbuf { char *p; size_t n, cap; int failed; } llm__vbuf;

static void llm__vput(llm__vbuf *b, const char *p, size_t n) {
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        char *q;
        while (cap < b->n + n + 1) cap *= 2;
        if (!(q = (char *)LLM_MALLOC(cap))) { b->failed = 1; return; }
        if (b->n) memcpy(q, b->p, b->n);
        LLM_FREE(b->p);
        b->p = q; b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void llm__vputs(llm__vbuf *b, const char *s) { llm__vput(b, s, strlen(s)); }

static void llm__vput_json_string(llm__vbuf *b, const char *p, size_t n) {
    size_t i;
    llm__vputs(b, "\"");
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        char esc[8];
        if (ch == '"' || ch == '\\') { esc[0] = '\\'; esc[1] = (char)ch; llm__vput(b, esc, 2); }
        else if (ch < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", ch); llm__vputs(b, esc); }
        else llm__vput(b, p + i, 1);
    }
    llm__vputs(b, "\"");
}

/* ,"key":"value" for a model string; when the model has none, dflt, or nothing when dflt is
   NULL (transformers does not define an unset special token). */
static void llm__vput_meta(llm__vbuf *b, const llm_model *m, const char *name, const char *key, const char *dflt) {
    size_t len;
    const char *v = llm_model_meta_string(m, key, &len);
    if (!v && dflt) { v = dflt; len = strlen(dflt); }
    if (!v) return;
    llm__vputs(b, ",\""); llm__vputs(b, name); llm__vputs(b, "\":");
    llm__vput_json_string(b, v, len);
}


/* The members of a JSON object's text, without its braces, after a comma. */
static int llm__vput_members(llm__vbuf *b, const char *obj) {
    const char *p = obj, *e = obj + strlen(obj);
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
    if (p >= e || *p != '{' || e[-1] != '}') return -1;
    p++; e--;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    if (p < e) { llm__vputs(b, ","); llm__vput(b, p, (size_t)(e - p)); }
    return 0;
}

/* The render call transformers makes: messages, tools, documents=None, add_generation_prompt,
   bos_token, eos_token, then the extra keyword arguments. A built-in template (builtin) gets
   msgs alone, bos_token and eos_token always, and the model's system_default and model_date. */
static int llm__chat_vars(llm__vbuf *b, const llm_model *m, const llm_chat_message *msgs, size_t n, int agp, const llm_chat_desc *d,
                          int builtin) {
    size_t i;
    llm__vputs(b, "{\"documents\":null,\"messages\":");
    if (d && d->messages_json && !builtin) llm__vputs(b, d->messages_json);
    else {
        llm__vputs(b, "[");
        for (i = 0; i < n; i++) {
            llm__vputs(b, i ? ",{\"role\":" : "{\"role\":");
            llm__vput_json_string(b, msgs[i].role, strlen(msgs[i].role));
            llm__vputs(b, ",\"content\":");
            llm__vput_json_string(b, msgs[i].content, strlen(msgs[i].content));
            llm__vputs(b, "}");
        }
        llm__vputs(b, "]");
    }
    llm__vputs(b, ",\"tools\":");
    llm__vputs(b, d && d->tools_json && !builtin ? d->tools_json : "null");
    llm__vputs(b, agp ? ",\"add_generation_prompt\":true" : ",\"add_generation_prompt\":false");
    llm__vput_meta(b, m, "bos_token", LLM_KEY_CHAT_BOS, builtin ? "" : NULL);
    llm__vput_meta(b, m, "eos_token", LLM_KEY_CHAT_EOS, builtin ? "" : NULL);
    if (builtin) { llm__vput_meta(b, m, "system_default", LLM_KEY_CHAT_SYSTEM, ""); llm__vput_meta(b, m, "model_date", LLM_KEY_CHAT_DATE, NULL); }
    if (d && d->no_thinking) llm__vputs(b, ",\"enable_thinking\":false");
    if (d && d->date) { llm__vputs(b, ",\"date_string\":"); llm__vput_json_string(b, d->date, strlen(d->date)); }
    if (d && d->vars_json && !builtin && llm__vput_members(b, d->vars_json) != 0) return -1;
    llm__vputs(b, "}");
    return 0;
}

/* builtin: a built-in template's text, else NULL for the model's own (or desc's). */
static llm_result llm__chat_render_jinja(const llm_model *m, const llm_chat_message *msgs, size_t n, int agp,
                                         const llm_chat_desc *d, const char *builtin, char *out, size_t cap, size_t *n_out,
                                         const char **error) {
    static const char *const generic = "the chat template raised an error (llm_chat_desc.error_text receives its message)";
    llm__vbuf vars;
    size_t tlen = 0, k;
    const char *tmpl = builtin ? builtin : d && d->jinja ? d->jinja : llm_model_meta_string(m, LLM_KEY_CHAT_TEMPLATE, &tlen);
    char btext[160];
    char *etext = builtin ? btext : d && d->error_text && d->error_cap ? d->error_text : out;
    size_t ecap = builtin ? sizeof btext : d && d->error_text && d->error_cap ? d->error_cap : cap;
    llm_result rc;
    if (builtin || (d && d->jinja)) tlen = strlen(tmpl);
    memset(&vars, 0, sizeof vars);
    if (llm__chat_vars(&vars, m, msgs, n, agp, d, builtin != NULL) != 0) { LLM_FREE(vars.p); return LLM_ERR_INVALID_ARGUMENT; }
    if (vars.failed) { LLM_FREE(vars.p); return LLM_ERR_OUT_OF_MEMORY; }
    if (d && d->parsed && !builtin) rc = llm_jinja_run(d->parsed, vars.p, vars.n, out, cap, n_out, etext, ecap);
    else rc = llm_jinja_render(tmpl, tlen, vars.p, vars.n, NULL, out, cap, n_out, etext, ecap);
    LLM_FREE(vars.p);
    if (rc == LLM_ERR_TEMPLATE) {
        *n_out = 0;
        if (error) *error = ecap ? etext : generic;
        if (builtin && error) *error = generic; /* btext dies with this call: point at the lasting copy */
        for (k = 0; builtin && error && k < sizeof llm__template_errors / sizeof llm__template_errors[0]; k++)
            if (!strcmp(btext, llm__template_errors[k])) *error = llm__template_errors[k];
        if (ecap && (!strncmp(etext, "bad JSON", 8) || !strncmp(etext, "the variables", 13))) rc = LLM_ERR_INVALID_ARGUMENT;
    }
    return rc;
}

LLMDEF llm_result llm_chat_render(const llm_model *m, const llm_chat_message *msgs, size_t n, int add_generation_prompt,
                                  const llm_chat_desc *desc, char *out, size_t cap, size_t *n_out, const char **error) {
    size_t i;
    int t;
    if (error) *error = NULL;
    if (!m || (!msgs && n) || (!out && cap) || !n_out) return LLM_ERR_INVALID_ARGUMENT;
    for (i = 0; i < n; i++)
        if (!msgs[i].role || !msgs[i].content) return LLM_ERR_INVALID_ARGUMENT;
    if (!(desc && desc->template_name) && ((desc && (desc->jinja || desc->parsed)) || llm_model_meta_string(m, LLM_KEY_CHAT_TEMPLATE, &i) != NULL))
        return llm__chat_render_jinja(m, msgs, n, add_generation_prompt, desc, NULL, out, cap, n_out, error);
    t = desc && desc->template_name ? llm__template_index(desc->template_name, strlen(desc->template_name)) : llm__model_template(m);
    if (t < 0) {
        if (error) *error = "unknown chat template name";
        return LLM_ERR_UNSUPPORTED;
    }
    return llm__chat_render_jinja(m, msgs, n, add_generation_prompt, desc, llm__template_jinja[t], out, cap, n_out, error);
}

LLMDEF const char *llm_chat_template(const llm_model *m) { return m ? llm__templates[llm__model_template(m)][0] : NULL; }

LLMDEF const char *llm_chat_template_name(size_t i) { return i < LLM__T_COUNT ? llm__templates[i][0] : NULL; }

LLMDEF const char *llm_chat_end_of_turn(const llm_model *m, const char *template_name, size_t *len) {
    int t = template_name ? llm__template_index(template_name, strlen(template_name)) : m ? llm__model_template(m) : -1;
    const char *e;
    if (t < 0 || !llm__templates[t][2]) return NULL;
    e = llm__templates[t][2];
    if (*e) { if (len) *len = strlen(e); return e; }
    return m ? llm_model_meta_string(m, LLM_KEY_CHAT_EOS, len) : NULL; /* the eos token ends the turn */
}

/* ---- llm: jinja (values and memory) -------------------------------------------------------
   A Jinja2 interpreter for chat templates, in the environment transformers' apply_chat_template
   sets up: trim_blocks, lstrip_blocks, loop controls, the generation tag, an immutable sandbox
   (lists and dicts cannot change; namespace() attributes are the only writable state), the
   tojson filter as Python's json.dumps(ensure_ascii=False) and the globals raise_exception and
   strftime_now. Values print as Python prints them (True, None, ['a', 'b']).
   Every render works in one arena freed at its end; an error unwinds to the render call with
   longjmp, so nothing in between owns memory. Steps, memory and nesting are bounded. */
#include <setjmp.h>

enum { LLM__JU, LLM__JNONE, LLM__JBOOL, LLM__JINT, LLM__JFLOAT, LLM__JSTR, LLM__JLIST, LLM__JDICT, LLM__JMACRO,
       LLM__JMETHOD, LLM__JFUNC, LLM__JLOOP, LLM__JBIG };

typedef struct llm__jv llm__jv;
typedef struct llm__jn llm__jn;
/* tuple: 1 a tuple; 2, 3, 4 the views dict.keys(), values(), items() (they print so); 5 a
   generator (what select, map, items, unique, ... give: always true, no length, no index),
   6 a reversed list's iterator (the same). */
typedef struct llm__jlist { llm__jv *a; size_t n, cap; int tuple, group; } llm__jlist;  /* group: groupby's (grouper, list) */
typedef struct llm__jdict { llm__jv *k, *v; size_t n, cap; int ns; } llm__jdict;
/* What a dict with ns set is: namespace(), joiner() (its "sep" and whether it was "used"),
   cycler() (its "items" and the "pos" of the current one). */
enum { LLM__JNS_NAMESPACE = 1, LLM__JNS_JOINER, LLM__JNS_CYCLER };
struct llm__jv {
    int t;
    int safe;   /* a str that is Markup (|safe, |escape): a str added to it is escaped first */
    union { int64_t i; double f; llm__str s; llm__jlist *l; llm__jdict *d; struct llm__jmacro *m;
            struct llm__jbound *b; struct llm__jloop *loop; } u;
};
typedef struct llm__jbound { llm__jv self; llm__str name; } llm__jbound;
typedef struct llm__jloop {
    llm__jlist *items;
    size_t i;
    int depth;                  /* 1, and one more in each call of a recursive loop */
    llm__jv last;               /* loop.changed's values (a tuple; undefined before the first call) */
    struct llm__jn *node;       /* the for statement and the frame it runs in, for loop(items) */
    struct llm__jframe *up;
} llm__jloop;
typedef struct llm__jframe { struct llm__jframe *up; llm__str *k; llm__jv *v; size_t n, cap; } llm__jframe;
typedef struct llm__jmacro { llm__jn *node; llm__jframe *closure; llm__jv caller; } llm__jmacro;
typedef struct llm__jbuf { char *p; size_t n, cap; } llm__jbuf;
typedef struct llm__jnl { llm__jn **p; size_t n, cap; } llm__jnl;
struct llm__jn {
    int k, op, line;
    llm__str name;
    llm__jv v;
    llm__jn *a, *b, *c;
    llm__jnl l1, l2;
};
typedef struct llm__jtok { int t, line, op; llm__str s; llm__jv v; } llm__jtok;  /* op: an operator's bytes, for quick compares */
typedef struct llm__jblock { struct llm__jblock *next; size_t cap, used; } llm__jblock;
typedef struct llm__jargs { llm__jv *pos; size_t n; llm__str *kn; llm__jv *kv; size_t nk; } llm__jargs;

typedef struct llm__jctx {
    jmp_buf jb;
    char *err;
    size_t err_cap;
    llm__jblock *blocks;
    size_t mem, max_mem, steps, max_steps;
    int depth, max_depth, brk, soft;
    size_t n_varargs, n_kwargs;   /* names read so far: a macro that reads them takes extra arguments */
    int64_t now;
    llm__jbuf *out;
    llm__jframe *root;
    llm__jtok *tok;
    size_t n_tok, cap_tok, pos;
} llm__jctx;

static void llm__jfail(llm__jctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (c->err && c->err_cap) vsnprintf(c->err, c->err_cap, fmt, ap);
    va_end(ap);
    longjmp(c->jb, 1);
}

static void *llm__jalloc(llm__jctx *c, size_t n) {
    llm__jblock *b = c->blocks;
    void *p;
    n = (n + 15) & ~(size_t)15;
    if (n > c->max_mem || c->mem + n > c->max_mem)
        llm__jfail(c, "template used more than its %lu bytes of memory", (unsigned long)c->max_mem);
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = (llm__jblock *)LLM_MALLOC(32 + cap);
        if (!b) llm__jfail(c, "out of memory");
        b->next = c->blocks; b->cap = cap; b->used = 0;
        c->blocks = b;
    }
    p = (char *)b + 32 + b->used;
    b->used += n;
    c->mem += n;
    return p;
}

static void llm__jfree_all(llm__jctx *c) {
    while (c->blocks) { llm__jblock *n = c->blocks->next; LLM_FREE(c->blocks); c->blocks = n; }
}

/* Doubles an arena array of elem-sized items so one more fits. */
static void *llm__jgrow(llm__jctx *c, void *p, size_t n, size_t *cap, size_t elem) {
    void *q;
    if (n < *cap) return p;
    *cap = *cap ? *cap * 2 : 4;
    q = llm__jalloc(c, *cap * elem);
    if (n) memcpy(q, p, n * elem);
    return q;
}

static void llm__jput(llm__jctx *c, llm__jbuf *b, const char *p, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *q;
        while (cap < b->n + n) cap *= 2;
        q = (char *)llm__jalloc(c, cap);
        if (b->n) memcpy(q, b->p, b->n);
        b->p = q; b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void llm__jputs(llm__jctx *c, llm__jbuf *b, const char *s) { llm__jput(c, b, s, strlen(s)); }
static llm__str llm__jbuf_str(llm__jbuf *b) { llm__str s; s.p = b->p ? b->p : ""; s.n = b->n; return s; }

static void llm__jsteps(llm__jctx *c, size_t k) {
    c->steps += k;
    if (c->steps > c->max_steps) llm__jfail(c, "template ran more than its %lu steps", (unsigned long)c->max_steps);
}

static void llm__jstep(llm__jctx *c) { llm__jsteps(c, 1); }

static void llm__jenter(llm__jctx *c) {
    if (++c->depth > c->max_depth) llm__jfail(c, "template nested deeper than %d levels", c->max_depth);
}

static llm__jv llm__jmk(int t) { llm__jv v; memset(&v, 0, sizeof v); v.t = t; return v; }
static llm__jv llm__jint(int64_t i) { llm__jv v = llm__jmk(LLM__JINT); v.u.i = i; return v; }
static llm__jv llm__jbool(int b) { llm__jv v = llm__jmk(LLM__JBOOL); v.u.i = b != 0; return v; }
static llm__jv llm__jfloat(double f) { llm__jv v = llm__jmk(LLM__JFLOAT); v.u.f = f; return v; }
static llm__jv llm__jstrv(llm__str s) { llm__jv v = llm__jmk(LLM__JSTR); v.u.s = s; return v; }
static llm__jv llm__jcstr(const char *s) { return llm__jstrv(llm__s(s)); }
static llm__jv llm__jundef(const char *hint) { llm__jv v = llm__jmk(LLM__JU); v.u.s = llm__s(hint); return v; }

static llm__str llm__jstrdup(llm__jctx *c, const char *p, size_t n) {
    llm__str s;
    char *q = (char *)llm__jalloc(c, n + 1);
    if (n) memcpy(q, p, n);
    q[n] = 0;
    s.p = q; s.n = n;
    return s;
}

/* An undefined value whose use raises a message made now (Jinja's Undefined hint). */
static llm__jv llm__jundeff(llm__jctx *c, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    llm__jv v = llm__jmk(LLM__JU);
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    v.u.s = llm__jstrdup(c, tmp, strlen(tmp));
    return v;
}

static llm__jlist *llm__jlist_new(llm__jctx *c) { llm__jlist *l = (llm__jlist *)llm__jalloc(c, sizeof *l); memset(l, 0, sizeof *l); return l; }
static llm__jdict *llm__jdict_new(llm__jctx *c) { llm__jdict *d = (llm__jdict *)llm__jalloc(c, sizeof *d); memset(d, 0, sizeof *d); return d; }
static llm__jv llm__jlistv(llm__jlist *l) { llm__jv v = llm__jmk(LLM__JLIST); v.u.l = l; return v; }
static llm__jv llm__jdictv(llm__jdict *d) { llm__jv v = llm__jmk(LLM__JDICT); v.u.d = d; return v; }

static void llm__jlist_push(llm__jctx *c, llm__jlist *l, llm__jv v) {
    l->a = (llm__jv *)llm__jgrow(c, l->a, l->n, &l->cap, sizeof *l->a);
    l->a[l->n++] = v;
}

static int llm__jstr_eq(llm__str a, const char *b) { size_t n = strlen(b); return a.n == n && memcmp(a.p, b, n) == 0; }
static int llm__jstr_same(llm__str a, llm__str b) { return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0); }

static llm__jv *llm__jdict_find(llm__jdict *d, llm__str key) {
    size_t i;
    for (i = 0; i < d->n; i++)
        if (d->k[i].t == LLM__JSTR && llm__jstr_same(d->k[i].u.s, key)) return &d->v[i];
    return NULL;
}

static void llm__jdict_set(llm__jctx *c, llm__jdict *d, llm__jv key, llm__jv v) {
    size_t cap = d->cap;
    llm__jv *old;
    llm__jsteps(c, d->n / 16 + 1);   /* a linear search: a huge dict costs its size */
    if (key.t == LLM__JSTR && (old = llm__jdict_find(d, key.u.s)) != NULL) { *old = v; return; }
    d->k = (llm__jv *)llm__jgrow(c, d->k, d->n, &cap, sizeof *d->k);
    d->v = (llm__jv *)llm__jgrow(c, d->v, d->n, &d->cap, sizeof *d->v);
    d->k[d->n] = key; d->v[d->n++] = v;
}

static llm__jv *llm__jframe_find(llm__jframe *f, llm__str name) {
    for (; f; f = f->up) {
        size_t i;
        for (i = f->n; i-- > 0;)
            if (llm__jstr_same(f->k[i], name)) return &f->v[i];
    }
    return NULL;
}

static void llm__jframe_set(llm__jctx *c, llm__jframe *f, llm__str name, llm__jv v) {
    size_t i, cap = f->cap;
    for (i = 0; i < f->n; i++)
        if (llm__jstr_same(f->k[i], name)) { f->v[i] = v; return; }
    f->k = (llm__str *)llm__jgrow(c, f->k, f->n, &cap, sizeof *f->k);
    f->v = (llm__jv *)llm__jgrow(c, f->v, f->n, &f->cap, sizeof *f->v);
    f->k[f->n] = name; f->v[f->n++] = v;
}

static llm__jframe *llm__jframe_new(llm__jctx *c, llm__jframe *up) {
    llm__jframe *f = (llm__jframe *)llm__jalloc(c, sizeof *f);
    memset(f, 0, sizeof *f);
    f->up = up;
    return f;
}

/* Python's name of a value's type, for error messages. */
static const char *llm__jtype(llm__jv v) {
    switch (v.t) {
    case LLM__JU: return "Undefined";
    case LLM__JNONE: return "NoneType";
    case LLM__JBOOL: return "bool";
    case LLM__JINT: return "int";
    case LLM__JFLOAT: return "float";
    case LLM__JSTR: return "str";
    case LLM__JLIST: {
        static const char *const names[7] = { "list", "tuple", "dict_keys", "dict_values", "dict_items", "generator", "list_reverseiterator" };
        return names[v.u.l->tuple];
    }
    case LLM__JDICT: return v.u.d->ns == LLM__JNS_JOINER ? "Joiner" : v.u.d->ns == LLM__JNS_CYCLER ? "Cycler" : v.u.d->ns ? "Namespace" : "dict";
    case LLM__JLOOP: return "LoopContext";
    case LLM__JBIG: return "int";
    default: return "function";
    }
}

static int llm__jtruthy(llm__jv v) {
    switch (v.t) {
    case LLM__JU: case LLM__JNONE: return 0;
    case LLM__JBOOL: case LLM__JINT: return v.u.i != 0;
    case LLM__JFLOAT: return v.u.f != 0;
    case LLM__JSTR: case LLM__JBIG: return v.u.s.n != 0;
    case LLM__JLIST: return v.u.l->n != 0 || v.u.l->tuple >= 5;
    case LLM__JDICT: return v.u.d->ns || v.u.d->n != 0;
    default: return 1;
    }
}

static int llm__jis_num(llm__jv v) { return v.t == LLM__JINT || v.t == LLM__JBOOL || v.t == LLM__JFLOAT || v.t == LLM__JBIG; }
static double llm__jnum(llm__jv v) { return v.t == LLM__JFLOAT ? v.u.f : v.t == LLM__JBIG ? strtod(v.u.s.p, NULL) : (double)v.u.i; }

/* A number's text, from the JSON input or a template: an integer beyond 64 bits (Python's have
   no bound) keeps its digits, which print, compare and go through tojson as they are; arithmetic
   on it is refused (LLM__JBIG). */
/* A digit's value in bases up to 36 (99: not a digit). */
static int llm__jdigit(char ch) {
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'z' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'Z' ? ch - 'A' + 10 : 99;
}

static llm__jv llm__jnumber(llm__jctx *c, const char *text, int is_float) {
    const char *d = text + (text[0] == '-');
    size_t nd;
    llm__jv v;
    if (is_float) return llm__jfloat(strtod(text, NULL));
    while (d[0] == '0' && d[1]) d++;
    nd = strspn(d, "0123456789");
    if (d[nd]) return llm__jfloat(strtod(text, NULL)); /* not digits alone */
    if (nd < 19 || (nd == 19 && strcmp(d, text[0] == '-' ? "9223372036854775808" : "9223372036854775807") <= 0))
        return llm__jint(strtoll(text, NULL, 10));
    v = llm__jmk(LLM__JBIG);
    v.u.s = llm__jstrdup(c, text, strlen(text));
    return v;
}

/* ---- llm: jinja (printing: Python str, repr and json.dumps) -------------------------------- */

/* Python float repr: the shortest digits that read back the same, 1e+16 and 1e-05 styles. */
static void llm__jput_float(llm__jctx *c, llm__jbuf *b, double f) {
    char tmp[64], digits[32], out[64];
    int p, e, nd = 0, k = 0, i;
    if (f != f) { llm__jputs(c, b, "nan"); return; }
    if (f == HUGE_VAL || f == -HUGE_VAL) { llm__jputs(c, b, f < 0 ? "-inf" : "inf"); return; }
    for (p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, f);
        if (strtod(tmp, NULL) == f) break;
    }
    {
        const char *s = tmp, *ep;
        if (*s == '-') { out[k++] = '-'; s++; }
        ep = strchr(s, 'e');
        for (; s < ep; s++) if (*s != '.') digits[nd++] = *s;
        e = atoi(ep + 1);
    }
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    if (e >= -4 && e < 16) {
        if (e < 0) {
            out[k++] = '0'; out[k++] = '.';
            for (i = 0; i < -e - 1; i++) out[k++] = '0';
            for (i = 0; i < nd; i++) out[k++] = digits[i];
        } else {
            for (i = 0; i <= e; i++) out[k++] = i < nd ? digits[i] : '0';
            out[k++] = '.';
            if (nd > e + 1) for (i = e + 1; i < nd; i++) out[k++] = digits[i];
            else out[k++] = '0';
        }
        out[k] = 0;
    } else {
        out[k++] = digits[0];
        if (nd > 1) { out[k++] = '.'; for (i = 1; i < nd; i++) out[k++] = digits[i]; }
        snprintf(out + k, sizeof out - (size_t)k, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
    llm__jputs(c, b, out);
}

static void llm__jput_int(llm__jctx *c, llm__jbuf *b, int64_t i) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", (long long)i);
    llm__jputs(c, b, tmp);
}

/* The code point at p (n bytes left, valid UTF-8 assumed, else the byte), and its length. */
static uint32_t llm__jutf8(const char *p, size_t n, size_t *len) {
    const unsigned char *u = (const unsigned char *)p;
    int k = u[0] < 0x80 ? 1 : u[0] < 0xe0 ? 2 : u[0] < 0xf0 ? 3 : 4, i;
    uint32_t cp;
    if ((size_t)k > n || (u[0] >= 0x80 && u[0] < 0xc0)) { *len = 1; return u[0]; }
    cp = k == 1 ? u[0] : k == 2 ? (u[0] & 0x1fu) : k == 3 ? (u[0] & 0x0fu) : (u[0] & 0x07u);
    for (i = 1; i < k; i++) cp = (cp << 6) | (u[i] & 0x3fu);
    *len = (size_t)k;
    return cp;
}

static void llm__jput_utf8(llm__jctx *c, llm__jbuf *b, uint32_t cp) {
    char t[4];
    size_t n;
    if (cp < 0x80) { t[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { t[0] = (char)(0xc0 | (cp >> 6)); t[1] = (char)(0x80 | (cp & 63)); n = 2; }
    else if (cp < 0x10000) { t[0] = (char)(0xe0 | (cp >> 12)); t[1] = (char)(0x80 | ((cp >> 6) & 63)); t[2] = (char)(0x80 | (cp & 63)); n = 3; }
    else { t[0] = (char)(0xf0 | (cp >> 18)); t[1] = (char)(0x80 | ((cp >> 12) & 63)); t[2] = (char)(0x80 | ((cp >> 6) & 63)); t[3] = (char)(0x80 | (cp & 63)); n = 4; }
    llm__jput(c, b, t, n);
}

/* Python's str.isprintable for one character: not a control, format, surrogate, private-use
   or unassigned character, nor a separator other than the space (llm__gc_names: Cn is 0, Zs
   to Co 23 to 29). */
static int llm__jprintable(uint32_t cp) {
    unsigned gc;
    if (cp < 0x7f) return cp >= 0x20;
    gc = llm__uprop_gc(cp) >> 4;
    return gc != 0 && gc < 23;
}

/* Python repr(str): single quotes unless the text has ' and no "; what is not printable as
   an escape (x, u or U and 2, 4 or 8 hex digits). */
static void llm__jput_repr_str(llm__jctx *c, llm__jbuf *b, llm__str s) {
    char q = (memchr(s.p, '\'', s.n) && !memchr(s.p, '"', s.n)) ? '"' : '\'';
    size_t i = 0, k;
    llm__jput(c, b, &q, 1);
    while (i < s.n) {
        uint32_t cp = llm__jutf8(s.p + i, s.n - i, &k);
        char tmp[16];
        if (cp == (uint32_t)q || cp == '\\') { tmp[0] = '\\'; tmp[1] = (char)cp; llm__jput(c, b, tmp, 2); }
        else if (cp == '\n') llm__jputs(c, b, "\\n");
        else if (cp == '\r') llm__jputs(c, b, "\\r");
        else if (cp == '\t') llm__jputs(c, b, "\\t");
        else if (!llm__jprintable(cp)) {
            snprintf(tmp, sizeof tmp, cp < 0x100 ? "\\x%02x" : cp < 0x10000 ? "\\u%04x" : "\\U%08x", (unsigned)cp);
            llm__jputs(c, b, tmp);
        } else llm__jput(c, b, s.p + i, k);
        i += k;
    }
    llm__jput(c, b, &q, 1);
}

static void llm__jput_str(llm__jctx *c, llm__jbuf *b, llm__jv v);

static void llm__jput_repr(llm__jctx *c, llm__jbuf *b, llm__jv v) {
    if (v.t == LLM__JSTR && v.safe) { llm__jputs(c, b, "Markup("); llm__jput_repr_str(c, b, v.u.s); llm__jputs(c, b, ")"); }
    else if (v.t == LLM__JSTR) llm__jput_repr_str(c, b, v.u.s);
    else if (v.t == LLM__JU) llm__jputs(c, b, "Undefined");
    else llm__jput_str(c, b, v);
}

/* Python str(value). */
static void llm__jput_str(llm__jctx *c, llm__jbuf *b, llm__jv v) {
    size_t i;
    llm__jenter(c);
    switch (v.t) {
    case LLM__JU: break;
    case LLM__JNONE: llm__jputs(c, b, "None"); break;
    case LLM__JBOOL: llm__jputs(c, b, v.u.i ? "True" : "False"); break;
    case LLM__JINT: llm__jput_int(c, b, v.u.i); break;
    case LLM__JFLOAT: llm__jput_float(c, b, v.u.f); break;
    case LLM__JBIG: llm__jput(c, b, v.u.s.p, v.u.s.n); break;
    case LLM__JSTR: llm__jput(c, b, v.u.s.p, v.u.s.n); break;
    case LLM__JLIST:
        {
            static const char *const open[5] = { "[", "(", "dict_keys([", "dict_values([", "dict_items([" };
            int t = v.u.l->tuple;
            if (t >= 5) { llm__jputs(c, b, t == 5 ? "<generator object>" : "<list_reverseiterator object>"); break; }
            llm__jputs(c, b, open[t]);
            for (i = 0; i < v.u.l->n; i++) { if (i) llm__jputs(c, b, ", "); llm__jput_repr(c, b, v.u.l->a[i]); }
            llm__jputs(c, b, t == 1 ? (v.u.l->n == 1 ? ",)" : ")") : t ? "])" : "]");
        }
        break;
    case LLM__JDICT:
        llm__jputs(c, b, v.u.d->ns ? "<Namespace {" : "{");
        for (i = 0; i < v.u.d->n; i++) {
            if (i) llm__jputs(c, b, ", ");
            llm__jput_repr(c, b, v.u.d->k[i]); llm__jputs(c, b, ": "); llm__jput_repr(c, b, v.u.d->v[i]);
        }
        llm__jputs(c, b, v.u.d->ns ? "}>" : "}");
        break;
    default: llm__jputs(c, b, "<function>"); break;
    }
    c->depth--;
}

/* markupsafe's escape: & < > " ' as HTML entities. */
static llm__str llm__jescape(llm__jctx *c, llm__str s) {
    llm__jbuf b;
    size_t i;
    memset(&b, 0, sizeof b);
    for (i = 0; i < s.n; i++) {
        switch (s.p[i]) {
        case '&': llm__jputs(c, &b, "&amp;"); break;
        case '<': llm__jputs(c, &b, "&lt;"); break;
        case '>': llm__jputs(c, &b, "&gt;"); break;
        case '"': llm__jputs(c, &b, "&#34;"); break;
        case '\'': llm__jputs(c, &b, "&#39;"); break;
        default: llm__jput(c, &b, s.p + i, 1);
        }
    }
    return llm__jbuf_str(&b);
}

static llm__jv llm__jmarkup(llm__str s) { llm__jv v = llm__jstrv(s); v.safe = 1; return v; }

static llm__str llm__jto_str(llm__jctx *c, llm__jv v) {
    llm__jbuf b;
    if (v.t == LLM__JSTR) return v.u.s;
    memset(&b, 0, sizeof b);
    llm__jput_str(c, &b, v);
    return llm__jbuf_str(&b);
}

typedef struct llm__jjson_fmt { llm__str indent, item_sep, key_sep; int has_indent, sort_keys, ascii; } llm__jjson_fmt;

static void llm__jput_json_str(llm__jctx *c, llm__jbuf *b, llm__str s, int ascii) {
    size_t i = 0, k;
    llm__jputs(c, b, "\"");
    while (i < s.n) {
        uint32_t cp = llm__jutf8(s.p + i, s.n - i, &k);
        char tmp[16];
        switch (cp) {
        case '"': llm__jputs(c, b, "\\\""); break;
        case '\\': llm__jputs(c, b, "\\\\"); break;
        case '\n': llm__jputs(c, b, "\\n"); break;
        case '\r': llm__jputs(c, b, "\\r"); break;
        case '\t': llm__jputs(c, b, "\\t"); break;
        case '\b': llm__jputs(c, b, "\\b"); break;
        case '\f': llm__jputs(c, b, "\\f"); break;
        default:
            if (cp < 0x20 || (ascii && cp > 0x7e)) {
                if (cp >= 0x10000) {
                    snprintf(tmp, sizeof tmp, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
                } else snprintf(tmp, sizeof tmp, "\\u%04x", cp);
                llm__jputs(c, b, tmp);
            } else llm__jput(c, b, s.p + i, k);
        }
        i += k;
    }
    llm__jputs(c, b, "\"");
}

static int llm__jcompare(llm__jctx *c, llm__jv a, llm__jv b, int fold);

static void llm__jput_json_nl(llm__jctx *c, llm__jbuf *b, const llm__jjson_fmt *f, int level) {
    int i;
    llm__jputs(c, b, "\n");
    for (i = 0; i < level; i++) llm__jput(c, b, f->indent.p, f->indent.n);
}

/* Python json.dumps with transformers' tojson arguments. */
static void llm__jput_json(llm__jctx *c, llm__jbuf *b, llm__jv v, const llm__jjson_fmt *f, int level) {
    size_t i, j, n;
    llm__jenter(c);
    switch (v.t) {
    case LLM__JNONE: llm__jputs(c, b, "null"); break;
    case LLM__JBOOL: llm__jputs(c, b, v.u.i ? "true" : "false"); break;
    case LLM__JINT: llm__jput_int(c, b, v.u.i); break;
    case LLM__JBIG: llm__jput(c, b, v.u.s.p, v.u.s.n); break;
    case LLM__JFLOAT:
        if (v.u.f != v.u.f) llm__jputs(c, b, "NaN");
        else if (v.u.f == HUGE_VAL || v.u.f == -HUGE_VAL) llm__jputs(c, b, v.u.f < 0 ? "-Infinity" : "Infinity");
        else llm__jput_float(c, b, v.u.f);
        break;
    case LLM__JSTR: llm__jput_json_str(c, b, v.u.s, f->ascii); break;
    case LLM__JLIST:
        n = v.u.l->n;
        if (v.u.l->tuple >= 2) llm__jfail(c, "TypeError: Object of type %s is not JSON serializable", llm__jtype(v));
        if (!n) { llm__jputs(c, b, "[]"); break; }
        llm__jputs(c, b, "[");
        for (i = 0; i < n; i++) {
            if (i) llm__jput(c, b, f->item_sep.p, f->item_sep.n);
            if (f->has_indent) llm__jput_json_nl(c, b, f, level + 1);
            llm__jput_json(c, b, v.u.l->a[i], f, level + 1);
        }
        if (f->has_indent) llm__jput_json_nl(c, b, f, level);
        llm__jputs(c, b, "]");
        break;
    case LLM__JDICT: {
        size_t *order;
        n = v.u.d->n;
        if (v.u.d->ns) llm__jfail(c, "Object of type Namespace is not JSON serializable");
        if (!n) { llm__jputs(c, b, "{}"); break; }
        order = (size_t *)llm__jalloc(c, n * sizeof *order);
        for (i = 0; i < n; i++) order[i] = i;
        if (f->sort_keys)
            for (i = 1; i < n; i++)
                for (j = i; j > 0 && llm__jcompare(c, v.u.d->k[order[j - 1]], v.u.d->k[order[j]], 0) > 0; j--) {
                    size_t t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
                }
        llm__jputs(c, b, "{");
        for (i = 0; i < n; i++) {
            llm__jv k = v.u.d->k[order[i]];
            if (i) llm__jput(c, b, f->item_sep.p, f->item_sep.n);
            if (f->has_indent) llm__jput_json_nl(c, b, f, level + 1);
            if (k.t == LLM__JSTR) llm__jput_json_str(c, b, k.u.s, f->ascii);
            else if (k.t == LLM__JNONE) llm__jputs(c, b, "\"null\"");
            else if (k.t == LLM__JBOOL) llm__jputs(c, b, k.u.i ? "\"true\"" : "\"false\"");
            else if (k.t == LLM__JINT || k.t == LLM__JFLOAT || k.t == LLM__JBIG) { llm__jputs(c, b, "\""); llm__jput_str(c, b, k); llm__jputs(c, b, "\""); }
            else llm__jfail(c, "keys must be str, int, float, bool or None, not %s", llm__jtype(k));
            llm__jput(c, b, f->key_sep.p, f->key_sep.n);
            llm__jput_json(c, b, v.u.d->v[order[i]], f, level + 1);
        }
        if (f->has_indent) llm__jput_json_nl(c, b, f, level);
        llm__jputs(c, b, "}");
        break;
    }
    default: llm__jfail(c, "Object of type %s is not JSON serializable", llm__jtype(v));
    }
    c->depth--;
}

/* ---- llm: jinja (JSON input) --------------------------------------------------------------- */
typedef struct llm__jjson { const char *p, *end; } llm__jjson;

static void llm__jjson_ws(llm__jjson *j) { while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++; }

static int llm__jjson_hex4(llm__jctx *c, llm__jjson *j) {
    int i, v = 0;
    if (j->end - j->p < 4) llm__jfail(c, "bad JSON: short \\u escape");
    for (i = 0; i < 4; i++) {
        char ch = *j->p++;
        int h = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (h < 0) llm__jfail(c, "bad JSON: bad \\u escape");
        v = v * 16 + h;
    }
    return v;
}

static llm__str llm__jjson_string(llm__jctx *c, llm__jjson *j) {
    llm__jbuf b;
    const char *run;
    memset(&b, 0, sizeof b);
    j->p++;
    for (;;) {
        run = j->p;
        while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20) j->p++;
        llm__jput(c, &b, run, (size_t)(j->p - run));
        if (j->p >= j->end || (unsigned char)*j->p < 0x20) llm__jfail(c, "bad JSON: unterminated string");
        if (*j->p == '"') { j->p++; break; }
        j->p++;
        if (j->p >= j->end) llm__jfail(c, "bad JSON: unterminated string");
        switch (*j->p++) {
        case '"': llm__jputs(c, &b, "\""); break;
        case '\\': llm__jputs(c, &b, "\\"); break;
        case '/': llm__jputs(c, &b, "/"); break;
        case 'b': llm__jputs(c, &b, "\b"); break;
        case 'f': llm__jputs(c, &b, "\f"); break;
        case 'n': llm__jputs(c, &b, "\n"); break;
        case 'r': llm__jputs(c, &b, "\r"); break;
        case 't': llm__jputs(c, &b, "\t"); break;
        case 'u': {
            uint32_t cp = (uint32_t)llm__jjson_hex4(c, j);
            if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                const char *save = j->p;
                uint32_t lo;
                j->p += 2;
                lo = (uint32_t)llm__jjson_hex4(c, j);
                if (lo >= 0xdc00 && lo < 0xe000) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                else j->p = save;
            }
            llm__jput_utf8(c, &b, cp);
            break;
        }
        default: llm__jfail(c, "bad JSON: bad escape");
        }
    }
    return llm__jbuf_str(&b);
}

static llm__jv llm__jjson_value(llm__jctx *c, llm__jjson *j) {
    llm__jv v = llm__jmk(LLM__JU);
    llm__jenter(c);
    llm__jjson_ws(j);
    if (j->p >= j->end) llm__jfail(c, "bad JSON: unexpected end");
    if (*j->p == '"') v = llm__jstrv(llm__jjson_string(c, j));
    else if (*j->p == '[') {
        llm__jlist *l = llm__jlist_new(c);
        j->p++; llm__jjson_ws(j);
        if (j->p < j->end && *j->p == ']') j->p++;
        else for (;;) {
            llm__jlist_push(c, l, llm__jjson_value(c, j));
            llm__jjson_ws(j);
            if (j->p < j->end && *j->p == ',') { j->p++; continue; }
            if (j->p < j->end && *j->p == ']') { j->p++; break; }
            llm__jfail(c, "bad JSON: expected , or ]");
        }
        v = llm__jlistv(l);
    } else if (*j->p == '{') {
        llm__jdict *d = llm__jdict_new(c);
        j->p++; llm__jjson_ws(j);
        if (j->p < j->end && *j->p == '}') j->p++;
        else for (;;) {
            llm__jv k;
            llm__jjson_ws(j);
            if (j->p >= j->end || *j->p != '"') llm__jfail(c, "bad JSON: expected a key");
            k = llm__jstrv(llm__jjson_string(c, j));
            llm__jjson_ws(j);
            if (j->p >= j->end || *j->p != ':') llm__jfail(c, "bad JSON: expected :");
            j->p++;
            llm__jdict_set(c, d, k, llm__jjson_value(c, j));
            llm__jjson_ws(j);
            if (j->p < j->end && *j->p == ',') { j->p++; continue; }
            if (j->p < j->end && *j->p == '}') { j->p++; break; }
            llm__jfail(c, "bad JSON: expected , or }");
        }
        v = llm__jdictv(d);
    } else if (j->end - j->p >= 4 && !memcmp(j->p, "true", 4)) { v = llm__jbool(1); j->p += 4; }
    else if (j->end - j->p >= 5 && !memcmp(j->p, "false", 5)) { v = llm__jbool(0); j->p += 5; }
    else if (j->end - j->p >= 4 && !memcmp(j->p, "null", 4)) { v = llm__jmk(LLM__JNONE); j->p += 4; }
    else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
        char tmp[64];
        const char *s = j->p;
        int is_float = 0;
        size_t n;
        if (*j->p == '-') j->p++;
        while (j->p < j->end && ((*j->p >= '0' && *j->p <= '9') || *j->p == '.' || *j->p == 'e' || *j->p == 'E' || *j->p == '+' || *j->p == '-')) {
            if (*j->p == '.' || *j->p == 'e' || *j->p == 'E') is_float = 1;
            j->p++;
        }
        n = (size_t)(j->p - s);
        if (n >= sizeof tmp) llm__jfail(c, "bad JSON: number too long");
        memcpy(tmp, s, n); tmp[n] = 0;
        v = llm__jnumber(c, tmp, is_float);
    } else llm__jfail(c, "bad JSON: unexpected character");
    c->depth--;
    return v;
}

/* ---- llm: jinja (lexer) ---------------------------------------------------------------------
   The template becomes one token array: text, then tag openers and closers with the
   expression tokens between them. Whitespace control is applied here, as Jinja's lexer does:
   "{%-" strips the text before, "-%}" the text after, lstrip_blocks removes spaces and tabs
   from a line's start up to a block or comment tag, trim_blocks one newline after one. */
enum { LLM__TK_EOF, LLM__TK_TEXT, LLM__TK_VAR, LLM__TK_VAR_END, LLM__TK_BLOCK, LLM__TK_BLOCK_END, LLM__TK_NAME,
       LLM__TK_STR, LLM__TK_NUM, LLM__TK_OP };

static void llm__jtok_add(llm__jctx *c, int t, const char *p, size_t n, int line) {
    llm__jtok *k;
    c->tok = (llm__jtok *)llm__jgrow(c, c->tok, c->n_tok, &c->cap_tok, sizeof *c->tok);
    k = &c->tok[c->n_tok++];
    memset(k, 0, sizeof *k);
    k->t = t; k->s.p = p; k->s.n = n; k->line = line;
}

static int llm__jis_name_char(char ch, int first) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (!first && ch >= '0' && ch <= '9');
}

/* A string literal's value: Python's escapes (\n, \t, \', \", \\, \xNN, \uNNNN). */
static llm__str llm__jlex_string(llm__jctx *c, const char *p, size_t n, int line) {
    llm__jbuf b;
    size_t i;
    memset(&b, 0, sizeof b);
    for (i = 0; i < n; i++) {
        char ch = p[i];
        if (ch != '\\' || i + 1 >= n) { llm__jput(c, &b, &p[i], 1); continue; }
        ch = p[++i];
        switch (ch) {
        case 'n': llm__jputs(c, &b, "\n"); break;
        case 't': llm__jputs(c, &b, "\t"); break;
        case 'r': llm__jputs(c, &b, "\r"); break;
        case '0': llm__jput(c, &b, "", 1); break;
        case 'a': llm__jputs(c, &b, "\a"); break;
        case 'b': llm__jputs(c, &b, "\b"); break;
        case 'f': llm__jputs(c, &b, "\f"); break;
        case 'v': llm__jputs(c, &b, "\v"); break;
        case '\\': case '\'': case '"': llm__jput(c, &b, &ch, 1); break;
        case '\n': break;
        case 'x': case 'u': case 'U': {
            int digits = ch == 'x' ? 2 : ch == 'u' ? 4 : 8, d;
            uint32_t cp = 0;
            for (d = 0; d < digits; d++) {
                char h = i + 1 < n ? p[++i] : 0;
                int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (v < 0) llm__jfail(c, "line %d: bad escape in a string", line);
                cp = cp * 16 + (uint32_t)v;
            }
            llm__jput_utf8(c, &b, cp);
            break;
        }
        default: { char bs = '\\'; llm__jput(c, &b, &bs, 1); llm__jput(c, &b, &ch, 1); }
        }
    }
    return llm__jbuf_str(&b);
}

/* The expression tokens of one tag, up to its closer; returns the position after the closer. */
static size_t llm__jlex_tag(llm__jctx *c, const char *s, size_t n, size_t i, int var, int *line, int *strip_after, int *keep_nl) {
    int depth = 0;
    static const char *const ops2[] = { "//", "**", "==", "!=", "<=", ">=" };
    for (;;) {
        size_t st;
        char ch;
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) { if (s[i] == '\n') (*line)++; i++; }
        if (i >= n) llm__jfail(c, "line %d: unexpected end of template inside a %s", *line, var ? "{{ }}" : "{% %}");
        if (depth == 0) {
            const char *close = var ? "}}" : "%}";
            if ((s[i] == '-' || s[i] == '+') && i + 2 < n + 0 && i + 2 <= n - 1 + 1 && n - i >= 3 && !memcmp(s + i + 1, close, 2)) {
                *strip_after = s[i] == '-'; *keep_nl = s[i] == '+';
                llm__jtok_add(c, var ? LLM__TK_VAR_END : LLM__TK_BLOCK_END, s + i, 3, *line);
                return i + 3;
            }
            if (n - i >= 2 && !memcmp(s + i, close, 2)) {
                llm__jtok_add(c, var ? LLM__TK_VAR_END : LLM__TK_BLOCK_END, s + i, 2, *line);
                return i + 2;
            }
        }
        st = i; ch = s[i];
        if (llm__jis_name_char(ch, 1)) {
            while (i < n && llm__jis_name_char(s[i], 0)) i++;
            llm__jtok_add(c, LLM__TK_NAME, s + st, i - st, *line);
        } else if (ch == '0' && i + 2 < n && strchr("bBoOxX", s[i + 1]) && s[i + 1]
                   && llm__jdigit(s[i + 2] == '_' && i + 3 < n ? s[i + 3] : s[i + 2]) < ((s[i + 1] | 0x20) == 'b' ? 2 : (s[i + 1] | 0x20) == 'o' ? 8 : 16)) {
            int base = (s[i + 1] | 0x20) == 'b' ? 2 : (s[i + 1] | 0x20) == 'o' ? 8 : 16, d;
            uint64_t v = 0;
            for (i += 2; i < n && ((d = llm__jdigit(s[i])) < base || (s[i] == '_' && i + 1 < n && llm__jdigit(s[i + 1]) < base)); i++) {
                if (s[i] == '_') continue;
                if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base) llm__jfail(c, "line %d: an integer literal beyond 64 bits", *line);
                v = v * (uint64_t)base + (uint64_t)d;
            }
            llm__jtok_add(c, LLM__TK_NUM, s + st, i - st, *line);
            c->tok[c->n_tok - 1].v = llm__jint((int64_t)v);
        } else if (ch >= '0' && ch <= '9') {
            char tmp[64];
            size_t k = 0;
            int is_float = 0;
            while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_')) { if (s[i] != '_' && k < 63) tmp[k++] = s[i]; i++; }
            if (i + 1 < n && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
                is_float = 1;
                if (k < 63) tmp[k++] = s[i];
                i++;
                while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_')) { if (s[i] != '_' && k < 63) tmp[k++] = s[i]; i++; }
            }
            if (i < n && (s[i] == 'e' || s[i] == 'E')) {
                size_t e = i + 1;
                if (e < n && (s[e] == '+' || s[e] == '-')) e++;
                if (e < n && s[e] >= '0' && s[e] <= '9') {
                    is_float = 1;
                    while (i < e) { if (k < 63) tmp[k++] = s[i]; i++; }
                    while (i < n && s[i] >= '0' && s[i] <= '9') { if (k < 63) tmp[k++] = s[i]; i++; }
                }
            }
            tmp[k] = 0;
            llm__jtok_add(c, LLM__TK_NUM, s + st, i - st, *line);
            c->tok[c->n_tok - 1].v = llm__jnumber(c, tmp, is_float);
        } else if (ch == '\'' || ch == '"') {
            i++;
            while (i < n && s[i] != ch) { if (s[i] == '\\') i++; if (i < n && s[i] == '\n') (*line)++; i++; }
            if (i >= n) llm__jfail(c, "line %d: unterminated string", *line);
            i++;
            llm__jtok_add(c, LLM__TK_STR, s + st, i - st, *line);
            c->tok[c->n_tok - 1].v = llm__jstrv(llm__jlex_string(c, s + st + 1, i - st - 2, *line));
        } else {
            size_t k, len = 0;
            for (k = 0; k < sizeof ops2 / sizeof *ops2; k++)
                if (n - i >= 2 && !memcmp(s + i, ops2[k], 2)) len = 2;
            if (!len) {
                if (!strchr("+-*/%~<>=()[]{},.:|", ch)) llm__jfail(c, "line %d: unexpected character '%c'", *line, ch);
                len = 1;
                if (ch == '(' || ch == '[' || ch == '{') depth++;
                if (ch == ')' || ch == ']' || ch == '}') depth--;
            }
            i += len;
            llm__jtok_add(c, LLM__TK_OP, s + st, len, *line);
            c->tok[c->n_tok - 1].op = (unsigned char)s[st] | (len > 1 ? (unsigned char)s[st + 1] << 8 : 0);
        }
    }
}

static int llm__jis_ws(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }

/* The text of {% raw %}...{% endraw %} as it is; returns the position after the end tag. */
static size_t llm__jlex_raw(llm__jctx *c, const char *s, size_t n, size_t i, int *line) {
    size_t t;
    for (t = i; t + 1 < n; t++) {
        size_t e = t + 2, text_end = t;
        int minus;
        if (s[t] != '{' || s[t + 1] != '%') continue;
        minus = e < n && s[e] == '-';
        if (e < n && (s[e] == '-' || s[e] == '+')) e++;
        while (e < n && llm__jis_ws(s[e])) e++;
        if (n - e < 6 || memcmp(s + e, "endraw", 6)) continue;
        e += 6;
        while (e < n && llm__jis_ws(s[e])) e++;
        if (minus) while (text_end > i && llm__jis_ws(s[text_end - 1])) text_end--;
        if (text_end > i) llm__jtok_add(c, LLM__TK_TEXT, s + i, text_end - i, *line);
        for (; i < e; i++) if (s[i] == '\n') (*line)++;
        if (e < n && s[e] == '-' && n - e >= 3 && s[e + 1] == '%' && s[e + 2] == '}') {
            e += 3;
            while (e < n && llm__jis_ws(s[e])) { if (s[e] == '\n') (*line)++; e++; }
            return e;
        }
        if (e < n && s[e] == '+' && n - e >= 3 && s[e + 1] == '%' && s[e + 2] == '}') return e + 3;
        if (n - e >= 2 && s[e] == '%' && s[e + 1] == '}') {
            e += 2;
            if (e < n && s[e] == '\n') { e++; (*line)++; }
            return e;
        }
        llm__jfail(c, "line %d: bad endraw tag", *line);
    }
    llm__jfail(c, "line %d: missing endraw tag", *line);
    return n;
}

static void llm__jlex(llm__jctx *c, const char *s, size_t n) {
    size_t i = 0;
    int line = 1, line_start = 1, strip_next = 0;
    if (n && s[n - 1] == '\n') n--;          /* keep_trailing_newline=False */
    while (i <= n) {
        size_t t = i, text_end, after;
        int kind = 0, minus = 0, plus = 0, strip_after = 0, keep_nl = 0;
        while (t + 1 < n && !(s[t] == '{' && (s[t + 1] == '{' || s[t + 1] == '%' || s[t + 1] == '#'))) t++;
        if (t + 1 >= n) t = n;
        text_end = t;
        if (t < n) {
            kind = s[t + 1];
            minus = t + 2 < n && s[t + 2] == '-';
            plus = t + 2 < n && s[t + 2] == '+' && kind != '{';
        }
        if (strip_next) while (i < text_end && llm__jis_ws(s[i])) { if (s[i] == '\n') line_start = 1; i++; }
        if (kind && minus) while (text_end > i && llm__jis_ws(s[text_end - 1])) text_end--;
        else if (kind && kind != '{' && !plus) {
            size_t l = text_end;
            while (l > i && (s[l - 1] == ' ' || s[l - 1] == '\t')) l--;
            if ((l > i && s[l - 1] == '\n') || (l == i && line_start)) text_end = l;
        }
        if (text_end > i) {
            llm__jtok_add(c, LLM__TK_TEXT, s + i, text_end - i, line);
            line_start = s[text_end - 1] == '\n';
        }
        for (; i < t; i++) if (s[i] == '\n') line++;
        if (t >= n) break;
        i = t + 2 + (minus || plus);
        if (kind == '#') {
            size_t e = i;
            while (e + 1 < n && !(s[e] == '#' && s[e + 1] == '}')) { if (s[e] == '\n') line++; e++; }
            if (e + 1 >= n) llm__jfail(c, "line %d: missing end of comment tag", line);
            strip_after = e > i && s[e - 1] == '-';
            keep_nl = e > i && s[e - 1] == '+';
            after = e + 2;
        } else {
            llm__jtok_add(c, kind == '{' ? LLM__TK_VAR : LLM__TK_BLOCK, s + t, i - t, line);
            after = llm__jlex_tag(c, s, n, i, kind == '{', &line, &strip_after, &keep_nl);
        }
        i = after;
        strip_next = strip_after;
        line_start = 0;
        if (!strip_after && kind != '{' && !keep_nl && i < n && s[i] == '\n') { i++; line++; line_start = 1; }
        if (strip_after) while (i < n && llm__jis_ws(s[i])) { if (s[i] == '\n') { line++; line_start = 1; } else line_start = 0; i++; }
        if (strip_after) strip_next = 0;
        if (kind == '%' && c->n_tok >= 3 && c->tok[c->n_tok - 3].t == LLM__TK_BLOCK && c->tok[c->n_tok - 2].t == LLM__TK_NAME
            && llm__jstr_eq(c->tok[c->n_tok - 2].s, "raw")) {
            c->n_tok -= 3;
            if (!strip_after && i > after) { i = after; line--; }   /* trim_blocks passes over {% raw %} */
            i = llm__jlex_raw(c, s, n, i, &line);
            line_start = i > 0 && s[i - 1] == '\n';
        }
    }
    llm__jtok_add(c, LLM__TK_EOF, s + n, 0, line);
}

/* ---- llm: jinja (parser) --------------------------------------------------------------------
   Recursive descent in Jinja's precedence: inline if < or < and < not < comparisons and in
   < + - < ~ < * / // % < ** < unary - < primary with .attr [item] (call), then |filter and
   "is" tests. */
enum { LLM__N_LIT, LLM__N_NAME, LLM__N_LIST, LLM__N_TUPLE, LLM__N_DICT, LLM__N_ATTR, LLM__N_ITEM, LLM__N_SLICE,
       LLM__N_CALL, LLM__N_FILTER, LLM__N_TEST, LLM__N_NEG, LLM__N_POS, LLM__N_NOT, LLM__N_BIN, LLM__N_AND, LLM__N_OR,
       LLM__N_COND, LLM__N_KW, LLM__N_CMP,
       LLM__S_TEXT, LLM__S_OUT, LLM__S_IF, LLM__S_FOR, LLM__S_SET, LLM__S_SETBLOCK, LLM__S_MACRO, LLM__S_CALL,
       LLM__S_FILTER, LLM__S_BREAK, LLM__S_CONTINUE, LLM__S_BODY, LLM__S_WITH };

static llm__jtok *llm__jcur(llm__jctx *c) { return &c->tok[c->pos]; }
static int llm__jat_op(llm__jctx *c, const char *op) {
    llm__jtok *t = llm__jcur(c);
    return t->t == LLM__TK_OP && t->op == ((unsigned char)op[0] | (op[0] && op[1] ? (unsigned char)op[1] << 8 : 0));
}
static int llm__jat_name(llm__jctx *c, const char *nm) { llm__jtok *t = llm__jcur(c); return t->t == LLM__TK_NAME && llm__jstr_eq(t->s, nm); }

static void llm__jexpect_fail(llm__jctx *c, const char *what) {
    llm__jtok *t = llm__jcur(c);
    llm__jfail(c, "line %d: expected %s, found '%.*s'", t->line, what, (int)(t->s.n > 40 ? 40 : t->s.n), t->s.p);
}

static void llm__jexpect_op(llm__jctx *c, const char *op) { if (!llm__jat_op(c, op)) llm__jexpect_fail(c, op); c->pos++; }
static llm__str llm__jexpect_name(llm__jctx *c) {
    if (llm__jcur(c)->t != LLM__TK_NAME) llm__jexpect_fail(c, "a name");
    return c->tok[c->pos++].s;
}
static void llm__jexpect_end(llm__jctx *c) { if (llm__jcur(c)->t != LLM__TK_BLOCK_END) llm__jexpect_fail(c, "end of block tag"); c->pos++; }

static llm__jn *llm__jnode(llm__jctx *c, int k) {
    llm__jn *n = (llm__jn *)llm__jalloc(c, sizeof *n);
    memset(n, 0, sizeof *n);
    n->k = k; n->line = llm__jcur(c)->line;
    return n;
}

static void llm__jnl_push(llm__jctx *c, llm__jnl *l, llm__jn *n) {
    l->p = (llm__jn **)llm__jgrow(c, l->p, l->n, &l->cap, sizeof *l->p);
    l->p[l->n++] = n;
}

static llm__jn *llm__jp_expr(llm__jctx *c, int with_cond);
static llm__jn *llm__jp_unary(llm__jctx *c, int with_filter);

/* Call arguments after "(": positional into l1, name=value as N_KW into l2. */
static void llm__jp_args(llm__jctx *c, llm__jnl *pos, llm__jnl *kw) {
    int star = 0, stars = 0;   /* seen *items, **mapping: what may follow them is Jinja's rule */
    c->pos++;
    while (!llm__jat_op(c, ")")) {
        int is_kw;
        if (pos->n + kw->n) llm__jexpect_op(c, ",");
        if (llm__jat_op(c, ")")) break;
        is_kw = llm__jcur(c)->t == LLM__TK_NAME && c->tok[c->pos + 1].t == LLM__TK_OP && llm__jstr_eq(c->tok[c->pos + 1].s, "=");
        if (stars || (star && !is_kw && !llm__jat_op(c, "**")) || (star && llm__jat_op(c, "*")))
            llm__jfail(c, "line %d: invalid syntax for function call expression", llm__jcur(c)->line);
        if (llm__jat_op(c, "*") || llm__jat_op(c, "**")) {   /* f(*items, **mapping): op 1 and 2 */
            llm__jn *k = llm__jnode(c, LLM__N_KW);
            k->op = llm__jat_op(c, "*") ? 1 : 2;
            star |= k->op == 1;
            stars |= k->op == 2;
            c->pos++;
            k->a = llm__jp_expr(c, 1);
            llm__jnl_push(c, k->op == 1 ? pos : kw, k);
        } else if (is_kw) {
            llm__jn *k = llm__jnode(c, LLM__N_KW);
            k->name = c->tok[c->pos].s;
            c->pos += 2;
            k->a = llm__jp_expr(c, 1);
            llm__jnl_push(c, kw, k);
        } else {
            if (kw->n) llm__jfail(c, "line %d: positional argument after a keyword argument", llm__jcur(c)->line);
            llm__jnl_push(c, pos, llm__jp_expr(c, 1));
        }
    }
    c->pos++;
}

static llm__jn *llm__jp_primary(llm__jctx *c) {
    llm__jtok *t = llm__jcur(c);
    llm__jn *n;
    llm__jenter(c);
    if (t->t == LLM__TK_NAME) {
        n = llm__jnode(c, LLM__N_LIT);
        if (llm__jstr_eq(t->s, "true") || llm__jstr_eq(t->s, "True")) n->v = llm__jbool(1);
        else if (llm__jstr_eq(t->s, "false") || llm__jstr_eq(t->s, "False")) n->v = llm__jbool(0);
        else if (llm__jstr_eq(t->s, "none") || llm__jstr_eq(t->s, "None")) n->v = llm__jmk(LLM__JNONE);
        else {
            n->k = LLM__N_NAME; n->name = t->s;
            if (llm__jstr_eq(t->s, "varargs")) c->n_varargs++;
            if (llm__jstr_eq(t->s, "kwargs")) c->n_kwargs++;
        }
        c->pos++;
    } else if (t->t == LLM__TK_STR) {
        llm__jbuf b;
        memset(&b, 0, sizeof b);
        n = llm__jnode(c, LLM__N_LIT);
        while (llm__jcur(c)->t == LLM__TK_STR) { llm__str s = c->tok[c->pos++].v.u.s; llm__jput(c, &b, s.p, s.n); }
        n->v = llm__jstrv(llm__jbuf_str(&b));
    } else if (t->t == LLM__TK_NUM) {
        n = llm__jnode(c, LLM__N_LIT);
        n->v = t->v;
        c->pos++;
    } else if (llm__jat_op(c, "(")) {
        c->pos++;
        if (llm__jat_op(c, ")")) { c->pos++; n = llm__jnode(c, LLM__N_TUPLE); }
        else {
            n = llm__jp_expr(c, 1);
            if (llm__jat_op(c, ",")) {
                llm__jn *tup = llm__jnode(c, LLM__N_TUPLE);
                llm__jnl_push(c, &tup->l1, n);
                while (llm__jat_op(c, ",")) {
                    c->pos++;
                    if (llm__jat_op(c, ")")) break;
                    llm__jnl_push(c, &tup->l1, llm__jp_expr(c, 1));
                }
                n = tup;
            }
            llm__jexpect_op(c, ")");
        }
    } else if (llm__jat_op(c, "[")) {
        n = llm__jnode(c, LLM__N_LIST);
        c->pos++;
        while (!llm__jat_op(c, "]")) {
            if (n->l1.n) llm__jexpect_op(c, ",");
            if (llm__jat_op(c, "]")) break;
            llm__jnl_push(c, &n->l1, llm__jp_expr(c, 1));
        }
        c->pos++;
    } else if (llm__jat_op(c, "{")) {
        n = llm__jnode(c, LLM__N_DICT);
        c->pos++;
        while (!llm__jat_op(c, "}")) {
            if (n->l1.n) llm__jexpect_op(c, ",");
            if (llm__jat_op(c, "}")) break;
            llm__jnl_push(c, &n->l1, llm__jp_expr(c, 1));
            llm__jexpect_op(c, ":");
            llm__jnl_push(c, &n->l2, llm__jp_expr(c, 1));
        }
        c->pos++;
    } else {
        llm__jexpect_fail(c, "an expression");
        n = NULL;
    }
    c->depth--;
    return n;
}

static llm__jn *llm__jp_postfix(llm__jctx *c, llm__jn *n) {
    for (;;) {
        if (llm__jat_op(c, ".")) {
            llm__jn *a = llm__jnode(c, LLM__N_ATTR);
            c->pos++;
            a->a = n;
            if (llm__jcur(c)->t == LLM__TK_NUM) { a->k = LLM__N_ITEM; a->b = llm__jnode(c, LLM__N_LIT); a->b->v = llm__jcur(c)->v; c->pos++; }
            else a->name = llm__jexpect_name(c);
            n = a;
        } else if (llm__jat_op(c, "[")) {
            llm__jn *a = llm__jnode(c, LLM__N_ITEM), *parts[3];
            int k = 0, is_slice = 0;
            c->pos++;
            a->a = n;
            parts[0] = parts[1] = parts[2] = NULL;
            for (;;) {
                if (llm__jat_op(c, ":")) { is_slice = 1; c->pos++; if (++k > 2) llm__jexpect_fail(c, "]"); continue; }
                if (llm__jat_op(c, "]")) break;
                if (parts[k]) llm__jexpect_fail(c, "]");
                parts[k] = llm__jp_expr(c, 1);
            }
            c->pos++;
            if (is_slice) { a->k = LLM__N_SLICE; a->b = parts[0]; a->c = parts[1]; a->l1.p = NULL; if (parts[2]) llm__jnl_push(c, &a->l1, parts[2]); }
            else if (!parts[0]) llm__jexpect_fail(c, "an index");
            else a->b = parts[0];
            n = a;
        } else if (llm__jat_op(c, "(")) {
            llm__jn *a = llm__jnode(c, LLM__N_CALL);
            a->a = n;
            llm__jp_args(c, &a->l1, &a->l2);
            n = a;
        } else return n;
    }
}

static const char *const llm__jfilters[] = {
    "abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape", "filesizeformat",
    "first", "float", "forceescape", "format", "groupby", "indent", "int", "items", "join", "last", "length", "list",
    "lower", "map", "max", "min", "pprint", "random", "reject", "rejectattr", "replace", "reverse", "round", "safe",
    "select", "selectattr", "slice", "sort", "string", "striptags", "sum", "title", "tojson", "trim", "truncate",
    "unique", "upper", "urlencode", "urlize", "wordcount", "wordwrap", "xmlattr", NULL };
static const char *const llm__jtests[] = {
    "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "escaped", "even", "false", "filter", "float",
    "ge", "gt", "greaterthan", "in", "integer", "iterable", "le", "lower", "lt", "lessthan", "mapping", "ne", "none",
    "number", "odd", "sameas", "sequence", "string", "test", "true", "undefined", "upper", "==", "!=", "<", "<=", ">",
    ">=", NULL };

static int llm__jknown(const char *const *names, llm__str s) {
    for (; *names; names++) if (llm__jstr_eq(s, *names)) return 1;
    return 0;
}

/* Jinja refuses an unknown filter or test when it compiles, except inside an if (then only
   when reached). */
static void llm__jcheck_known(llm__jctx *c, const char *const *names, llm__str s, const char *what) {
    if (!c->soft && !llm__jknown(names, s)) llm__jfail(c, "No %s named '%.*s'.", what, (int)s.n, s.p);
}

static llm__jn *llm__jp_filter(llm__jctx *c, llm__jn *n) {
    llm__jn *f = llm__jnode(c, LLM__N_FILTER);
    f->a = n;
    f->name = llm__jexpect_name(c);
    while (llm__jat_op(c, ".")) { c->pos++; f->name = llm__jexpect_name(c); }
    llm__jcheck_known(c, llm__jfilters, f->name, "filter");
    if (llm__jat_op(c, "(")) llm__jp_args(c, &f->l1, &f->l2);
    return f;
}

static llm__jn *llm__jp_filter_expr(llm__jctx *c, llm__jn *n) {
    for (;;) {
        if (llm__jat_op(c, "|")) { c->pos++; n = llm__jp_filter(c, n); }
        else if (llm__jat_name(c, "is")) {
            llm__jn *t = llm__jnode(c, LLM__N_TEST);
            llm__jtok *k;
            c->pos++;
            if (llm__jat_name(c, "not")) { t->op = 1; c->pos++; }
            t->a = n;
            t->name = llm__jexpect_name(c);
            while (llm__jat_op(c, ".")) { c->pos++; t->name = llm__jexpect_name(c); }
            llm__jcheck_known(c, llm__jtests, t->name, "test");
            k = llm__jcur(c);
            if (llm__jat_op(c, "(")) llm__jp_args(c, &t->l1, &t->l2);
            else if ((k->t == LLM__TK_NAME || k->t == LLM__TK_STR || k->t == LLM__TK_NUM || llm__jat_op(c, "[") || llm__jat_op(c, "{"))
                     && !llm__jat_name(c, "else") && !llm__jat_name(c, "or") && !llm__jat_name(c, "and")) {
                if (llm__jat_name(c, "is")) llm__jfail(c, "line %d: You cannot chain multiple tests with is", k->line);
                llm__jnl_push(c, &t->l1, llm__jp_postfix(c, llm__jp_primary(c)));
            }
            n = t;
        } else if (llm__jat_op(c, "(")) {
            llm__jn *a = llm__jnode(c, LLM__N_CALL);
            a->a = n;
            llm__jp_args(c, &a->l1, &a->l2);
            n = a;
        } else return n;
    }
}

static llm__jn *llm__jp_unary(llm__jctx *c, int with_filter) {
    llm__jn *n;
    llm__jenter(c);
    if (llm__jat_op(c, "-") || llm__jat_op(c, "+")) {
        n = llm__jnode(c, llm__jat_op(c, "-") ? LLM__N_NEG : LLM__N_POS);
        c->pos++;
        n->a = llm__jp_unary(c, 0);
    } else n = llm__jp_primary(c);
    n = llm__jp_postfix(c, n);
    if (with_filter) n = llm__jp_filter_expr(c, n);
    c->depth--;
    return n;
}

static llm__jn *llm__jbin(llm__jctx *c, int op, llm__jn *a, llm__jn *b) {
    llm__jn *n = llm__jnode(c, LLM__N_BIN);
    n->op = op; n->a = a; n->b = b;
    return n;
}

static llm__jn *llm__jp_pow(llm__jctx *c) {
    llm__jn *n = llm__jp_unary(c, 1);
    while (llm__jat_op(c, "**")) { c->pos++; n = llm__jbin(c, 'p', n, llm__jp_unary(c, 1)); }
    return n;
}

static llm__jn *llm__jp_math2(llm__jctx *c) {
    llm__jn *n = llm__jp_pow(c);
    for (;;) {
        int op = llm__jat_op(c, "*") ? '*' : llm__jat_op(c, "/") ? '/' : llm__jat_op(c, "//") ? 'f' : llm__jat_op(c, "%") ? '%' : 0;
        if (!op) return n;
        c->pos++;
        n = llm__jbin(c, op, n, llm__jp_pow(c));
    }
}

static llm__jn *llm__jp_concat(llm__jctx *c) {
    llm__jn *n = llm__jp_math2(c);
    while (llm__jat_op(c, "~")) { c->pos++; n = llm__jbin(c, '~', n, llm__jp_math2(c)); }
    return n;
}

static llm__jn *llm__jp_math1(llm__jctx *c) {
    llm__jn *n = llm__jp_concat(c);
    for (;;) {
        int op = llm__jat_op(c, "+") ? '+' : llm__jat_op(c, "-") ? '-' : 0;
        if (!op) return n;
        c->pos++;
        n = llm__jbin(c, op, n, llm__jp_concat(c));
    }
}

/* Comparisons chain as Python's do: a < b < c is a < b and b < c (N_CMP: l1 operands, ops). */
static llm__jn *llm__jp_compare(llm__jctx *c) {
    llm__jn *n = llm__jp_math1(c), *cmp = NULL;
    for (;;) {
        int op;
        if (llm__jat_op(c, "==")) op = 'e';
        else if (llm__jat_op(c, "!=")) op = 'n';
        else if (llm__jat_op(c, "<")) op = '<';
        else if (llm__jat_op(c, "<=")) op = 'l';
        else if (llm__jat_op(c, ">")) op = '>';
        else if (llm__jat_op(c, ">=")) op = 'g';
        else if (llm__jat_name(c, "in")) op = 'i';
        else if (llm__jat_name(c, "not") && c->tok[c->pos + 1].t == LLM__TK_NAME && llm__jstr_eq(c->tok[c->pos + 1].s, "in")) { op = 'I'; c->pos++; }
        else return cmp ? cmp : n;
        c->pos++;
        if (!cmp) { cmp = llm__jnode(c, LLM__N_CMP); llm__jnl_push(c, &cmp->l1, n); }
        {
            llm__jn *opn = llm__jnode(c, LLM__N_LIT);
            opn->op = op;
            llm__jnl_push(c, &cmp->l2, opn);
        }
        llm__jnl_push(c, &cmp->l1, llm__jp_math1(c));
    }
}

static llm__jn *llm__jp_not(llm__jctx *c) {
    if (llm__jat_name(c, "not")) {
        llm__jn *n = llm__jnode(c, LLM__N_NOT);
        c->pos++;
        llm__jenter(c);
        n->a = llm__jp_not(c);
        c->depth--;
        return n;
    }
    return llm__jp_compare(c);
}

static llm__jn *llm__jp_and(llm__jctx *c) {
    llm__jn *n = llm__jp_not(c);
    while (llm__jat_name(c, "and")) { llm__jn *a = llm__jnode(c, LLM__N_AND); c->pos++; a->a = n; a->b = llm__jp_not(c); n = a; }
    return n;
}

static llm__jn *llm__jp_or(llm__jctx *c) {
    llm__jn *n = llm__jp_and(c);
    while (llm__jat_name(c, "or")) { llm__jn *a = llm__jnode(c, LLM__N_OR); c->pos++; a->a = n; a->b = llm__jp_and(c); n = a; }
    return n;
}

static llm__jn *llm__jp_expr(llm__jctx *c, int with_cond) {
    llm__jn *n;
    llm__jenter(c);
    n = llm__jp_or(c);
    while (with_cond && llm__jat_name(c, "if")) {
        llm__jn *k = llm__jnode(c, LLM__N_COND);
        c->pos++;
        c->soft++;
        k->a = n;
        k->b = llm__jp_or(c);
        if (llm__jat_name(c, "else")) { c->pos++; k->c = llm__jp_expr(c, 1); }
        c->soft--;
        n = k;
    }
    c->depth--;
    return n;
}

/* An expression, or a tuple of them without parentheses (for ... in a, b; set x = a, b). */
static llm__jn *llm__jp_tuple(llm__jctx *c, int with_cond) {
    llm__jn *n = llm__jp_expr(c, with_cond), *t;
    if (!llm__jat_op(c, ",")) return n;
    t = llm__jnode(c, LLM__N_TUPLE);
    llm__jnl_push(c, &t->l1, n);
    while (llm__jat_op(c, ",")) {
        c->pos++;
        if (llm__jcur(c)->t == LLM__TK_BLOCK_END || llm__jat_name(c, "if")) break;
        llm__jnl_push(c, &t->l1, llm__jp_expr(c, with_cond));
    }
    return t;
}

/* An assignment target: a name, ns.attr, or names separated by commas (optionally in parens). */
static llm__jn *llm__jp_target(llm__jctx *c, int allow_attr) {
    llm__jn *n, *t;
    int paren = llm__jat_op(c, "(");
    if (paren) c->pos++;
    n = llm__jnode(c, LLM__N_NAME);
    n->name = llm__jexpect_name(c);
    if (allow_attr && llm__jat_op(c, ".")) {
        llm__jn *a = llm__jnode(c, LLM__N_ATTR);
        c->pos++;
        a->a = n;
        a->name = llm__jexpect_name(c);
        return a;
    }
    if (!llm__jat_op(c, ",")) { if (paren) llm__jexpect_op(c, ")"); return n; }
    t = llm__jnode(c, LLM__N_TUPLE);
    llm__jnl_push(c, &t->l1, n);
    while (llm__jat_op(c, ",")) {
        llm__jn *m;
        c->pos++;
        if (!paren && llm__jat_name(c, "in")) break;
        if (paren && llm__jat_op(c, ")")) break;
        m = llm__jnode(c, LLM__N_NAME);
        m->name = llm__jexpect_name(c);
        llm__jnl_push(c, &t->l1, m);
    }
    if (paren) llm__jexpect_op(c, ")");
    return t;
}

static llm__jnl llm__jp_body(llm__jctx *c, const char *const *ends);

static int llm__jat_end(llm__jctx *c, const char *const *ends) {
    llm__jtok *t = llm__jcur(c);
    if (t->t != LLM__TK_BLOCK || c->tok[c->pos + 1].t != LLM__TK_NAME) return 0;
    for (; ends && *ends; ends++) if (llm__jstr_eq(c->tok[c->pos + 1].s, *ends)) return 1;
    return 0;
}

/* Macro or caller parameters after "(": names into l1, name=default as N_KW into l1 too. */
static void llm__jp_params(llm__jctx *c, llm__jnl *params) {
    llm__jexpect_op(c, "(");
    while (!llm__jat_op(c, ")")) {
        llm__jn *p;
        if (params->n) llm__jexpect_op(c, ",");
        if (llm__jat_op(c, ")")) break;
        p = llm__jnode(c, LLM__N_KW);
        p->name = llm__jexpect_name(c);
        if (llm__jat_op(c, "=")) { c->pos++; p->a = llm__jp_expr(c, 1); }
        llm__jnl_push(c, params, p);
    }
    c->pos++;
}

static llm__jn *llm__jp_stmt(llm__jctx *c) {
    static const char *const e_if[] = { "elif", "else", "endif", NULL }, *const e_endif[] = { "endif", NULL };
    static const char *const e_for[] = { "else", "endfor", NULL }, *const e_endfor[] = { "endfor", NULL };
    static const char *const e_set[] = { "endset", NULL }, *const e_macro[] = { "endmacro", NULL };
    static const char *const e_call[] = { "endcall", NULL }, *const e_filter[] = { "endfilter", NULL };
    static const char *const e_gen[] = { "endgeneration", NULL }, *const e_with[] = { "endwith", NULL };
    llm__jn *n;
    llm__str kw;
    int line = llm__jcur(c)->line;
    c->pos++;
    kw = llm__jexpect_name(c);
    if (llm__jstr_eq(kw, "if")) {
        llm__jn *top, *cur;
        c->soft++;
        top = cur = llm__jnode(c, LLM__S_IF);
        cur->a = llm__jp_tuple(c, 1);
        llm__jexpect_end(c);
        for (;;) {
            cur->l1 = llm__jp_body(c, e_if);
            c->pos++;
            kw = llm__jexpect_name(c);
            if (llm__jstr_eq(kw, "elif")) {
                llm__jn *e = llm__jnode(c, LLM__S_IF);
                e->a = llm__jp_tuple(c, 1);
                llm__jexpect_end(c);
                llm__jnl_push(c, &cur->l2, e);
                cur = e;
            } else if (llm__jstr_eq(kw, "else")) {
                llm__jexpect_end(c);
                cur->l2 = llm__jp_body(c, e_endif);
                c->pos += 2;
                llm__jexpect_end(c);
                break;
            } else { llm__jexpect_end(c); break; }
        }
        c->soft--;
        return top;
    }
    if (llm__jstr_eq(kw, "for")) {
        n = llm__jnode(c, LLM__S_FOR);
        n->a = llm__jp_target(c, 0);
        if (!llm__jat_name(c, "in")) llm__jexpect_fail(c, "'in'");
        c->pos++;
        n->b = llm__jp_tuple(c, 0);
        if (llm__jat_name(c, "if")) { c->pos++; n->c = llm__jp_expr(c, 1); }
        if (llm__jat_name(c, "recursive")) { c->pos++; n->op = 1; }
        llm__jexpect_end(c);
        n->l1 = llm__jp_body(c, e_for);
        c->pos++;
        if (llm__jstr_eq(llm__jexpect_name(c), "else")) {
            llm__jexpect_end(c);
            n->l2 = llm__jp_body(c, e_endfor);
            c->pos += 2;
        }
        llm__jexpect_end(c);
        return n;
    }
    if (llm__jstr_eq(kw, "set")) {
        n = llm__jnode(c, LLM__S_SET);
        n->a = llm__jp_target(c, 1);
        if (llm__jat_op(c, "=")) {
            c->pos++;
            n->b = llm__jp_tuple(c, 1);
            llm__jexpect_end(c);
            return n;
        }
        n->k = LLM__S_SETBLOCK;
        while (llm__jat_op(c, "|")) { c->pos++; llm__jnl_push(c, &n->l2, llm__jp_filter(c, NULL)); }
        llm__jexpect_end(c);
        n->l1 = llm__jp_body(c, e_set);
        c->pos += 2;
        llm__jexpect_end(c);
        return n;
    }
    if (llm__jstr_eq(kw, "macro")) {
        size_t va = c->n_varargs, kwa = c->n_kwargs;
        n = llm__jnode(c, LLM__S_MACRO);
        n->name = llm__jexpect_name(c);
        llm__jp_params(c, &n->l2);
        llm__jexpect_end(c);
        n->l1 = llm__jp_body(c, e_macro);
        n->op = (c->n_varargs > va ? 1 : 0) | (c->n_kwargs > kwa ? 2 : 0);
        c->pos += 2;
        if (llm__jcur(c)->t == LLM__TK_NAME) c->pos++;
        llm__jexpect_end(c);
        return n;
    }
    if (llm__jstr_eq(kw, "call")) {
        n = llm__jnode(c, LLM__S_CALL);
        if (llm__jat_op(c, "(")) llm__jp_params(c, &n->l2);
        n->a = llm__jp_expr(c, 1);
        if (n->a->k != LLM__N_CALL) llm__jfail(c, "line %d: expected a call", line);
        llm__jexpect_end(c);
        n->l1 = llm__jp_body(c, e_call);
        c->pos += 2;
        llm__jexpect_end(c);
        return n;
    }
    if (llm__jstr_eq(kw, "filter")) {
        n = llm__jnode(c, LLM__S_FILTER);
        llm__jnl_push(c, &n->l2, llm__jp_filter(c, NULL));
        while (llm__jat_op(c, "|")) { c->pos++; llm__jnl_push(c, &n->l2, llm__jp_filter(c, NULL)); }
        llm__jexpect_end(c);
        n->l1 = llm__jp_body(c, e_filter);
        c->pos += 2;
        llm__jexpect_end(c);
        return n;
    }
    if (llm__jstr_eq(kw, "with")) {   /* names = values (l2, as set statements), seen only inside */
        n = llm__jnode(c, LLM__S_WITH);
        while (llm__jcur(c)->t != LLM__TK_BLOCK_END) {
            llm__jn *set = llm__jnode(c, LLM__S_SET);
            if (n->l2.n) llm__jexpect_op(c, ",");
            set->a = llm__jp_target(c, 0);
            llm__jexpect_op(c, "=");
            set->b = llm__jp_expr(c, 1);
            llm__jnl_push(c, &n->l2, set);
        }
        llm__jexpect_end(c);
        n->l1 = llm__jp_body(c, e_with);
        c->pos += 2;
        llm__jexpect_end(c);
        return n;
    }
    if (llm__jstr_eq(kw, "generation")) {
        n = llm__jnode(c, LLM__S_BODY);
        llm__jexpect_end(c);
        n->l1 = llm__jp_body(c, e_gen);
        c->pos += 2;
        llm__jexpect_end(c);
        return n;
    }
    if (llm__jstr_eq(kw, "break") || llm__jstr_eq(kw, "continue")) {
        n = llm__jnode(c, kw.p[0] == 'b' ? LLM__S_BREAK : LLM__S_CONTINUE);
        llm__jexpect_end(c);
        return n;
    }
    llm__jfail(c, "line %d: Encountered unknown tag '%.*s'.", line, (int)kw.n, kw.p);
    return NULL;
}

/* Statements up to a block tag named in ends (left unread) or the end of the template. */
static llm__jnl llm__jp_body(llm__jctx *c, const char *const *ends) {
    llm__jnl body;
    memset(&body, 0, sizeof body);
    llm__jenter(c);
    for (;;) {
        llm__jtok *t = llm__jcur(c);
        if (t->t == LLM__TK_EOF) {
            if (ends) {
                char want[128];
                size_t k, w = 0;
                for (k = 0; ends[k] && w < sizeof want - 32; k++) w += (size_t)snprintf(want + w, sizeof want - w, "%s'%s'", k ? " or " : "", ends[k]);
                llm__jfail(c, "line %d: unexpected end of template; expected %s", t->line, want);
            }
            break;
        }
        if (t->t == LLM__TK_TEXT) {
            llm__jn *n = llm__jnode(c, LLM__S_TEXT);
            n->v = llm__jstrv(t->s);
            c->pos++;
            llm__jnl_push(c, &body, n);
        } else if (t->t == LLM__TK_VAR) {
            llm__jn *n = llm__jnode(c, LLM__S_OUT);
            c->pos++;
            n->a = llm__jp_tuple(c, 1);
            if (llm__jcur(c)->t != LLM__TK_VAR_END) llm__jexpect_fail(c, "end of print statement");
            c->pos++;
            llm__jnl_push(c, &body, n);
        } else if (t->t == LLM__TK_BLOCK) {
            if (llm__jat_end(c, ends)) break;
            if (c->tok[c->pos + 1].t == LLM__TK_NAME && !ends) {
                llm__str k = c->tok[c->pos + 1].s;
                if (k.n > 3 && !memcmp(k.p, "end", 3)) llm__jfail(c, "line %d: Encountered unknown tag '%.*s'.", t->line, (int)k.n, k.p);
            }
            llm__jnl_push(c, &body, llm__jp_stmt(c));
        } else llm__jexpect_fail(c, "template data");
    }
    c->depth--;
    return body;
}

/* ---- llm: jinja (evaluator) ---------------------------------------------------------------- */
static llm__jv llm__jeval(llm__jctx *c, llm__jn *n, llm__jframe *f);
static void llm__jrender(llm__jctx *c, const llm__jnl *body, llm__jframe *f);

static void llm__jraise_undef(llm__jctx *c, llm__jv v) {
    llm__jfail(c, "%.*s", (int)v.u.s.n, v.u.s.p);
}

/* Python ==, with 1 == 1.0 == True. */
static int llm__jeq(llm__jctx *c, llm__jv a, llm__jv b) {
    size_t i;
    if (llm__jis_num(a) && llm__jis_num(b)) {
        if (a.t == LLM__JBIG || b.t == LLM__JBIG) return a.t == b.t ? llm__jstr_same(a.u.s, b.u.s) : b.t != LLM__JINT && a.t != LLM__JINT && llm__jnum(a) == llm__jnum(b);
        if (a.t != LLM__JFLOAT && b.t != LLM__JFLOAT) return a.u.i == b.u.i;
        return llm__jnum(a) == llm__jnum(b);
    }
    if (a.t != b.t) return 0;
    switch (a.t) {
    case LLM__JU: case LLM__JNONE: return 1;
    case LLM__JSTR: return llm__jstr_same(a.u.s, b.u.s);
    case LLM__JLIST:
        if (a.u.l->tuple >= 5 || b.u.l->tuple >= 5) return a.u.l == b.u.l;
        if (a.u.l->n != b.u.l->n || (a.u.l->tuple == 1) != (b.u.l->tuple == 1)) return 0;
        for (i = 0; i < a.u.l->n; i++) if (!llm__jeq(c, a.u.l->a[i], b.u.l->a[i])) return 0;
        return 1;
    case LLM__JDICT:
        if (a.u.d == b.u.d) return 1;
        if (a.u.d->ns || b.u.d->ns || a.u.d->n != b.u.d->n) return 0;
        for (i = 0; i < a.u.d->n; i++) {
            llm__jv *o = a.u.d->k[i].t == LLM__JSTR ? llm__jdict_find(b.u.d, a.u.d->k[i].u.s) : NULL;
            if (!o || !llm__jeq(c, a.u.d->v[i], *o)) return 0;
        }
        return 1;
    default: return a.u.m == b.u.m;
    }
}

static int llm__jstrcmp_fold(llm__str a, llm__str b, int fold) {
    size_t i, n = a.n < b.n ? a.n : b.n;
    for (i = 0; i < n; i++) {
        int x = (unsigned char)a.p[i], y = (unsigned char)b.p[i];
        if (fold) { if (x >= 'A' && x <= 'Z') x += 32; if (y >= 'A' && y <= 'Z') y += 32; }
        if (x != y) return x < y ? -1 : 1;
    }
    return a.n < b.n ? -1 : a.n > b.n ? 1 : 0;
}

/* Python <, as a three-way result; fold lowercases strings (Jinja's case_sensitive=False). */
static int llm__jcompare(llm__jctx *c, llm__jv a, llm__jv b, int fold) {
    if (llm__jis_num(a) && llm__jis_num(b)) {
        double x = llm__jnum(a), y = llm__jnum(b);
        if (a.t != LLM__JFLOAT && b.t != LLM__JFLOAT && a.t != LLM__JBIG && b.t != LLM__JBIG) return a.u.i < b.u.i ? -1 : a.u.i > b.u.i;
        return x < y ? -1 : x > y;
    }
    if (a.t == LLM__JSTR && b.t == LLM__JSTR) return llm__jstrcmp_fold(a.u.s, b.u.s, fold);
    if (a.t == LLM__JLIST && b.t == LLM__JLIST) {
        size_t i;
        for (i = 0; i < a.u.l->n && i < b.u.l->n; i++) {
            int r = llm__jcompare(c, a.u.l->a[i], b.u.l->a[i], fold);
            if (r) return r;
        }
        return a.u.l->n < b.u.l->n ? -1 : a.u.l->n > b.u.l->n;
    }
    llm__jfail(c, "TypeError: '<' not supported between instances of '%s' and '%s'", llm__jtype(a), llm__jtype(b));
    return 0;
}

/* Number of code points of a UTF-8 string. */
static size_t llm__jcp_count(llm__str s) {
    size_t i, n = 0;
    for (i = 0; i < s.n; i++) n += ((unsigned char)s.p[i] & 0xc0) != 0x80;
    return n;
}

/* Byte offset of code point k. */
static size_t llm__jcp_offset(llm__str s, size_t k) {
    size_t i = 0;
    while (i < s.n && k) { i++; while (i < s.n && ((unsigned char)s.p[i] & 0xc0) == 0x80) i++; k--; }
    return i;
}

static llm__jlist *llm__jchars(llm__jctx *c, llm__str s) {
    llm__jlist *l = llm__jlist_new(c);
    size_t i = 0, k;
    while (i < s.n) { llm__str one; llm__jutf8(s.p + i, s.n - i, &k); one.p = s.p + i; one.n = k; llm__jlist_push(c, l, llm__jstrv(one)); i += k; }
    return l;
}

/* What a for loop walks: lists, a dict's keys, a string's characters; undefined is empty. */
static llm__jlist *llm__jiter(llm__jctx *c, llm__jv v) {
    llm__jlist *l;
    size_t i;
    switch (v.t) {
    case LLM__JU: return llm__jlist_new(c);
    case LLM__JLIST: return v.u.l;
    case LLM__JSTR: return llm__jchars(c, v.u.s);
    case LLM__JDICT:
        l = llm__jlist_new(c);
        if (!v.u.d->ns) for (i = 0; i < v.u.d->n; i++) llm__jlist_push(c, l, v.u.d->k[i]);
        else llm__jfail(c, "TypeError: 'Namespace' object is not iterable");
        return l;
    default: llm__jfail(c, "TypeError: '%s' object is not iterable", llm__jtype(v));
    }
    return NULL;
}

static int64_t llm__jlength(llm__jctx *c, llm__jv v) {
    switch (v.t) {
    case LLM__JU: return 0;
    case LLM__JSTR: return (int64_t)llm__jcp_count(v.u.s);
    case LLM__JLIST: if (v.u.l->tuple < 5) return (int64_t)v.u.l->n; break;
    case LLM__JDICT: if (!v.u.d->ns) return (int64_t)v.u.d->n; break;
    default: break;
    }
    llm__jfail(c, "TypeError: object of type '%s' has no len()", llm__jtype(v));
    return 0;
}

static int llm__jin(llm__jctx *c, llm__jv item, llm__jv in) {
    size_t i;
    llm__jsteps(c, in.t == LLM__JLIST ? in.u.l->n / 16 : in.t == LLM__JDICT ? in.u.d->n / 16 : in.t == LLM__JSTR ? in.u.s.n / 256 : 0);
    if (in.t == LLM__JSTR) {
        if (item.t != LLM__JSTR) llm__jfail(c, "TypeError: 'in <string>' requires string as left operand, not %s", llm__jtype(item));
        if (!item.u.s.n) return 1;
        for (i = 0; i + item.u.s.n <= in.u.s.n; i++) if (!memcmp(in.u.s.p + i, item.u.s.p, item.u.s.n)) return 1;
        return 0;
    }
    if (in.t == LLM__JDICT && !in.u.d->ns) {
        for (i = 0; i < in.u.d->n; i++) if (llm__jeq(c, in.u.d->k[i], item)) return 1;
        return 0;
    }
    if (in.t == LLM__JLIST) {
        for (i = 0; i < in.u.l->n; i++) if (llm__jeq(c, in.u.l->a[i], item)) return 1;
        return 0;
    }
    if (in.t == LLM__JU) return 0;
    llm__jfail(c, "TypeError: argument of type '%s' is not iterable", llm__jtype(in));
    return 0;
}

static const char *const llm__jstr_methods[] = { "split", "rsplit", "strip", "lstrip", "rstrip", "startswith", "endswith",
    "replace", "upper", "lower", "title", "capitalize", "find", "rfind", "count", "join", "splitlines", "isdigit",
    "isalpha", "isalnum", "isspace", "isupper", "islower", "isdecimal", "isnumeric", "index", "rindex", "format", "removeprefix",
    "removesuffix", "ljust", "rjust", "center", "zfill", "partition", "rpartition", NULL };
static const char *const llm__jdict_methods[] = { "items", "keys", "values", "get", "copy", NULL };
static const char *const llm__jdict_unsafe[] = { "pop", "popitem", "update", "setdefault", "clear", NULL };
static const char *const llm__jlist_methods[] = { "index", "count", "copy", NULL };
static const char *const llm__jlist_unsafe[] = { "append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear", NULL };

/* What a Markup stays Markup through (markupsafe's wrapped methods, Jinja's filters that
   keep the type). */
static const char *const llm__jmarkup_keeps[] = { "strip", "lstrip", "rstrip", "upper", "lower", "title", "capitalize",
    "replace", "trim", "indent", "string", "safe", "e", "escape", "forceescape", NULL };

static llm__jv llm__jmethod(llm__jctx *c, llm__jv self, llm__str name) {
    llm__jv v = llm__jmk(LLM__JMETHOD);
    v.u.b = (llm__jbound *)llm__jalloc(c, sizeof *v.u.b);
    v.u.b->self = self; v.u.b->name = name;
    return v;
}

static llm__jv llm__jloop_attr(llm__jctx *c, llm__jloop *lp, llm__str name) {
    size_t i = lp->i, n = lp->items->n;
    if (llm__jstr_eq(name, "index")) return llm__jint((int64_t)i + 1);
    if (llm__jstr_eq(name, "index0")) return llm__jint((int64_t)i);
    if (llm__jstr_eq(name, "revindex")) return llm__jint((int64_t)(n - i));
    if (llm__jstr_eq(name, "revindex0")) return llm__jint((int64_t)(n - i - 1));
    if (llm__jstr_eq(name, "first")) return llm__jbool(i == 0);
    if (llm__jstr_eq(name, "last")) return llm__jbool(i + 1 == n);
    if (llm__jstr_eq(name, "length")) return llm__jint((int64_t)n);
    if (llm__jstr_eq(name, "depth")) return llm__jint(lp->depth);
    if (llm__jstr_eq(name, "depth0")) return llm__jint(lp->depth - 1);
    if (llm__jstr_eq(name, "previtem")) return i ? lp->items->a[i - 1] : llm__jundef("there is no previous item");
    if (llm__jstr_eq(name, "nextitem")) return i + 1 < n ? lp->items->a[i + 1] : llm__jundef("there is no next item");
    return llm__jundeff(c, "'LoopContext' object has no attribute '%.*s'", (int)name.n, name.p);
}

/* obj.name: Python's attribute first (a dict's methods come before its keys), then obj[name]. */
static llm__jv llm__jgetattr(llm__jctx *c, llm__jv obj, llm__str name) {
    llm__jv *hit;
    const char *ty = llm__jtype(obj);
    switch (obj.t) {
    case LLM__JU: llm__jraise_undef(c, obj); break;
    case LLM__JDICT:
        if (obj.u.d->ns == LLM__JNS_CYCLER) {
            const llm__jlist *items = llm__jdict_find(obj.u.d, llm__s("items"))->u.l;
            if (llm__jstr_eq(name, "next") || llm__jstr_eq(name, "reset")) return llm__jmethod(c, obj, name);
            if (llm__jstr_eq(name, "current")) return items->a[llm__jdict_find(obj.u.d, llm__s("pos"))->u.i];
            return llm__jundeff(c, "'Cycler' object has no attribute '%.*s'", (int)name.n, name.p);
        }
        if (obj.u.d->ns == LLM__JNS_JOINER) return llm__jundeff(c, "'Joiner' object has no attribute '%.*s'", (int)name.n, name.p);
        if (obj.u.d->ns) {
            if ((hit = llm__jdict_find(obj.u.d, name)) != NULL) return *hit;
            return llm__jundeff(c, "'Namespace' object has no attribute '%.*s'", (int)name.n, name.p);
        }
        if (llm__jknown(llm__jdict_methods, name)) return llm__jmethod(c, obj, name);
        if (llm__jknown(llm__jdict_unsafe, name)) goto unsafe;
        if ((hit = llm__jdict_find(obj.u.d, name)) != NULL) return *hit;
        return llm__jundeff(c, "'dict object' has no attribute '%.*s'", (int)name.n, name.p);
    case LLM__JLIST:
        if (obj.u.l->group && llm__jstr_eq(name, "grouper")) return obj.u.l->a[0];
        if (obj.u.l->group && llm__jstr_eq(name, "list")) return obj.u.l->a[1];
        if (llm__jknown(llm__jlist_methods, name)) return llm__jmethod(c, obj, name);
        if (llm__jknown(llm__jlist_unsafe, name)) goto unsafe;
        break;
    case LLM__JSTR:
        if (llm__jknown(llm__jstr_methods, name)) return llm__jmethod(c, obj, name);
        break;
    case LLM__JLOOP:
        if (llm__jstr_eq(name, "cycle") || llm__jstr_eq(name, "changed")) return llm__jmethod(c, obj, name);
        return llm__jloop_attr(c, obj.u.loop, name);
    default: break;
    }
    if (obj.t == LLM__JNONE) return llm__jundeff(c, "'None' has no attribute '%.*s'", (int)name.n, name.p);
    return llm__jundeff(c, "'%s object' has no attribute '%.*s'", ty, (int)name.n, name.p);
unsafe:
    return llm__jundeff(c, "access to attribute '%.*s' of '%s' object is unsafe.", (int)name.n, name.p, ty);
}

/* obj[key]: the item first, then for a string key the attribute; a missing one is undefined. */
static llm__jv llm__jgetitem(llm__jctx *c, llm__jv obj, llm__jv key) {
    if (obj.t == LLM__JU) llm__jraise_undef(c, obj);
    if (obj.t == LLM__JDICT && !obj.u.d->ns) {
        size_t i;
        for (i = 0; i < obj.u.d->n; i++) if (llm__jeq(c, obj.u.d->k[i], key)) return obj.u.d->v[i];
    } else if (((obj.t == LLM__JLIST && obj.u.l->tuple < 2) || obj.t == LLM__JSTR) && (key.t == LLM__JINT || key.t == LLM__JBOOL)) {
        int64_t n = obj.t == LLM__JLIST ? (int64_t)obj.u.l->n : (int64_t)llm__jcp_count(obj.u.s), k = key.u.i;
        if (k < 0) k += n;
        if (k >= 0 && k < n) {
            llm__str s;
            size_t a, b;
            if (obj.t == LLM__JLIST) return obj.u.l->a[k];
            a = llm__jcp_offset(obj.u.s, (size_t)k); b = llm__jcp_offset(obj.u.s, (size_t)k + 1);
            s.p = obj.u.s.p + a; s.n = b - a;
            return llm__jstrv(s);
        }
        return llm__jundeff(c, "%s object has no element %lld", llm__jtype(obj), (long long)key.u.i);
    }
    if (key.t == LLM__JSTR) {
        llm__jv v = llm__jgetattr(c, obj, key.u.s);
        if (v.t == LLM__JU && obj.t == LLM__JDICT && !obj.u.d->ns)
            return llm__jundeff(c, "'dict object' has no attribute '%.*s'", (int)key.u.s.n, key.u.s.p);
        return v;
    }
    return llm__jundeff(c, "'%s object' has no element", llm__jtype(obj));
}

static int64_t llm__jslice_index(llm__jctx *c, llm__jv v, int64_t n, int64_t dflt, int64_t step) {
    int64_t k;
    if (v.t == LLM__JU || v.t == LLM__JNONE) return dflt;
    if (v.t != LLM__JINT && v.t != LLM__JBOOL) llm__jfail(c, "TypeError: slice indices must be integers or None");
    k = v.u.i;
    if (k < 0) { k += n; if (k < 0) k = step < 0 ? -1 : 0; }
    else if (k > n) k = step < 0 ? n - 1 : n;
    return k;
}

/* Python's obj[a:b:s] on lists and strings (by code point). */
static llm__jv llm__jslice(llm__jctx *c, llm__jv obj, llm__jv a, llm__jv b, llm__jv s) {
    int64_t step = 1, n, i, start, stop;
    llm__jlist *src, *out;
    if (obj.t == LLM__JU) llm__jraise_undef(c, obj);
    if (s.t == LLM__JINT) step = s.u.i;
    if (step == 0) llm__jfail(c, "ValueError: slice step cannot be zero");
    if (obj.t == LLM__JSTR) src = llm__jchars(c, obj.u.s);
    else if (obj.t == LLM__JLIST && obj.u.l->tuple < 2) src = obj.u.l;
    else return llm__jundeff(c, "'%s' object is not subscriptable", llm__jtype(obj));  /* Jinja: undefined */
    n = (int64_t)src->n;
    start = llm__jslice_index(c, a, n, step < 0 ? n - 1 : 0, step);
    stop = llm__jslice_index(c, b, n, step < 0 ? -1 : n, step);
    if (obj.t == LLM__JSTR && step == 1) {
        llm__str r;
        size_t x, y;
        if (stop <= start) return llm__jcstr("");
        x = llm__jcp_offset(obj.u.s, (size_t)start); y = llm__jcp_offset(obj.u.s, (size_t)stop);
        r.p = obj.u.s.p + x; r.n = y - x;
        return llm__jstrv(r);
    }
    out = llm__jlist_new(c);
    out->tuple = src->tuple == 1;
    for (i = start; step > 0 ? i < stop : i > stop; i += step) llm__jlist_push(c, out, src->a[i]);
    if (obj.t == LLM__JSTR) {
        llm__jbuf buf;
        memset(&buf, 0, sizeof buf);
        for (i = 0; i < (int64_t)out->n; i++) llm__jput(c, &buf, out->a[i].u.s.p, out->a[i].u.s.n);
        return llm__jstrv(llm__jbuf_str(&buf));
    }
    return llm__jlistv(out);
}

static void llm__jtype_error(llm__jctx *c, const char *op, llm__jv a, llm__jv b) {
    if (a.t == LLM__JSTR && op[0] == '+')
        llm__jfail(c, "TypeError: can only concatenate str (not \"%s\") to str", llm__jtype(b));
    if (a.t == LLM__JLIST && op[0] == '+')
        llm__jfail(c, "TypeError: can only concatenate list (not \"%s\") to list", llm__jtype(b));
    llm__jfail(c, "TypeError: unsupported operand type(s) for %s: '%s' and '%s'", op, llm__jtype(a), llm__jtype(b));
}

static llm__jv llm__jrepeat(llm__jctx *c, llm__jv seq, int64_t k) {
    llm__jv v;
    int64_t i;
    size_t j;
    if (seq.t == LLM__JSTR) {
        llm__jbuf b;
        memset(&b, 0, sizeof b);
        for (i = 0; i < k; i++) { llm__jstep(c); llm__jput(c, &b, seq.u.s.p, seq.u.s.n); }
        v = llm__jstrv(llm__jbuf_str(&b));
        v.safe = seq.safe;
        return v;
    } else {
        llm__jlist *l = llm__jlist_new(c);
        for (i = 0; i < k; i++) { llm__jstep(c); for (j = 0; j < seq.u.l->n; j++) llm__jlist_push(c, l, seq.u.l->a[j]); }
        return llm__jlistv(l);
    }
}

/* 64-bit integer + - * without overflow (Python's integers have no bound; a template that
   needs more is refused rather than wrapped). */
static int64_t llm__jint_op(llm__jctx *c, int op, int64_t a, int64_t b) {
    uint64_t r;
    if (op == '+' && !((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))) return a + b;
    if (op == '-' && !((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))) return a - b;
    if (op == '*') {
        if (a == 0 || b == 0) return 0;
        if (!((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN))) {
            r = (uint64_t)a * (uint64_t)b;
            if ((int64_t)r / b == a && !(a == INT64_MIN || b == INT64_MIN)) return (int64_t)r;
        }
    }
    llm__jfail(c, "OverflowError: integer result out of 64-bit range");
    return 0;
}

static int64_t llm__jfloat_to_int(llm__jctx *c, double f) {
    if (!(f > -9.2e18 && f < 9.2e18)) llm__jfail(c, "OverflowError: cannot convert float %g to integer", f);
    return (int64_t)f;
}

static llm__jv llm__jpercent(llm__jctx *c, llm__jv fmt, llm__jv v);

static llm__jv llm__jarith(llm__jctx *c, int op, llm__jv a, llm__jv b) {
    static const char *const names[] = { "+", "-", "*", "/", "//", "%", "**" };
    const char *opn = names[op == '+' ? 0 : op == '-' ? 1 : op == '*' ? 2 : op == '/' ? 3 : op == 'f' ? 4 : op == '%' ? 5 : 6];
    if (op == '~') {
        llm__jbuf buf;
        memset(&buf, 0, sizeof buf);
        llm__jput_str(c, &buf, a); llm__jput_str(c, &buf, b);
        return llm__jstrv(llm__jbuf_str(&buf));
    }
    if (a.t == LLM__JU) llm__jraise_undef(c, a);
    if (b.t == LLM__JU) llm__jraise_undef(c, b);
    if (llm__jis_num(a) && llm__jis_num(b)) {
        int ints = a.t != LLM__JFLOAT && b.t != LLM__JFLOAT;
        if (a.t == LLM__JBIG || b.t == LLM__JBIG) llm__jfail(c, "OverflowError: arithmetic on an integer beyond 64 bits");
        double x = llm__jnum(a), y = llm__jnum(b);
        switch (op) {
        case '+': case '-': case '*': return ints ? llm__jint(llm__jint_op(c, op, a.u.i, b.u.i)) : llm__jfloat(op == '+' ? x + y : op == '-' ? x - y : x * y);
        case '/': if (y == 0) llm__jfail(c, "ZeroDivisionError: division by zero"); return llm__jfloat(x / y);
        case 'f': case '%':
            if (y == 0) llm__jfail(c, "ZeroDivisionError: integer division or modulo by zero");
            if (ints) {
                int64_t q, r;
                if (a.u.i == INT64_MIN && b.u.i == -1) llm__jfail(c, "OverflowError: integer result out of 64-bit range");
                q = a.u.i / b.u.i; r = a.u.i % b.u.i;
                if (r && ((r < 0) != (b.u.i < 0))) { q--; r += b.u.i; }
                return llm__jint(op == 'f' ? q : r);
            } else {
                double q = floor(x / y), r = x - q * y;
                return llm__jfloat(op == 'f' ? q : r);
            }
        default:
            if (ints && b.u.i >= 0) {
                int64_t r = 1, i;
                if (a.u.i == 0 || a.u.i == 1) return llm__jint(b.u.i == 0 ? 1 : a.u.i);
                if (a.u.i == -1) return llm__jint(b.u.i % 2 ? -1 : 1);
                for (i = 0; i < b.u.i; i++) r = llm__jint_op(c, '*', r, a.u.i);  /* overflows within 63 */
                return llm__jint(r);
            }
            return llm__jfloat(pow(x, y));
        }
    }
    if (op == '%' && a.t == LLM__JSTR) return llm__jpercent(c, a, b);
    if (op == '+' && a.t == LLM__JSTR && b.t == LLM__JSTR) { /* Markup + str escapes the str, on either side */
        llm__jbuf buf;
        llm__str x = b.safe && !a.safe ? llm__jescape(c, a.u.s) : a.u.s, y = a.safe && !b.safe ? llm__jescape(c, b.u.s) : b.u.s;
        llm__jv r;
        memset(&buf, 0, sizeof buf);
        llm__jput(c, &buf, x.p, x.n); llm__jput(c, &buf, y.p, y.n);
        r = llm__jstrv(llm__jbuf_str(&buf));
        r.safe = a.safe || b.safe;
        return r;
    }
    if (op == '+' && a.t == LLM__JLIST && b.t == LLM__JLIST) {
        llm__jlist *l = llm__jlist_new(c);
        size_t i;
        for (i = 0; i < a.u.l->n; i++) llm__jlist_push(c, l, a.u.l->a[i]);
        for (i = 0; i < b.u.l->n; i++) llm__jlist_push(c, l, b.u.l->a[i]);
        return llm__jlistv(l);
    }
    if (op == '*' && (a.t == LLM__JSTR || a.t == LLM__JLIST) && (b.t == LLM__JINT || b.t == LLM__JBOOL)) return llm__jrepeat(c, a, b.u.i);
    if (op == '*' && (b.t == LLM__JSTR || b.t == LLM__JLIST) && (a.t == LLM__JINT || a.t == LLM__JBOOL)) return llm__jrepeat(c, b, a.u.i);
    llm__jtype_error(c, opn, a, b);
    return a;
}

/* Positional argument i, else keyword name; NULL when neither was given. */
static llm__jv *llm__jarg(llm__jargs *a, size_t i, const char *name) {
    size_t k;
    if (i < a->n) return &a->pos[i];
    for (k = 0; name && k < a->nk; k++) if (llm__jstr_eq(a->kn[k], name)) return &a->kv[k];
    return NULL;
}

/* The arguments of a call; *items add positional ones, **mapping keyword ones. */
static void llm__jeval_args(llm__jctx *c, const llm__jnl *pos, const llm__jnl *kw, llm__jframe *f, llm__jargs *a) {
    llm__jlist *p = llm__jlist_new(c), *names = llm__jlist_new(c), *vals = llm__jlist_new(c);
    size_t i, k;
    memset(a, 0, sizeof *a);
    for (i = 0; i < pos->n; i++) {
        if (pos->p[i]->k == LLM__N_KW) {
            llm__jlist *items = llm__jiter(c, llm__jeval(c, pos->p[i]->a, f));
            for (k = 0; k < items->n; k++) llm__jlist_push(c, p, items->a[k]);
        } else llm__jlist_push(c, p, llm__jeval(c, pos->p[i], f));
    }
    for (i = 0; i < kw->n; i++) {
        llm__jv v = llm__jeval(c, kw->p[i]->a, f);
        if (kw->p[i]->op == 2) {
            if (v.t != LLM__JDICT || v.u.d->ns) llm__jfail(c, "TypeError: argument after ** must be a mapping, not %s", llm__jtype(v));
            for (k = 0; k < v.u.d->n; k++) {
                if (v.u.d->k[k].t != LLM__JSTR) llm__jfail(c, "TypeError: keywords must be strings");
                llm__jlist_push(c, names, v.u.d->k[k]); llm__jlist_push(c, vals, v.u.d->v[k]);
            }
        } else { llm__jlist_push(c, names, llm__jstrv(kw->p[i]->name)); llm__jlist_push(c, vals, v); }
    }
    a->n = p->n; a->nk = names->n;
    a->pos = (llm__jv *)llm__jalloc(c, (p->n + 1) * sizeof *a->pos);
    a->kv = (llm__jv *)llm__jalloc(c, (names->n + 1) * sizeof *a->kv);
    a->kn = (llm__str *)llm__jalloc(c, (names->n + 1) * sizeof *a->kn);
    for (i = 0; i < p->n; i++) a->pos[i] = p->a[i];
    for (i = 0; i < names->n; i++) { a->kn[i] = names->a[i].u.s; a->kv[i] = vals->a[i]; }
}

static llm__jv llm__jcall(llm__jctx *c, llm__jv fn, llm__jargs *a);
static llm__jv llm__jfilter(llm__jctx *c, llm__str name, llm__jv v, llm__jargs *a);
static int llm__jtest(llm__jctx *c, llm__str name, llm__jv v, llm__jargs *a);

static llm__jv llm__jeval_filter(llm__jctx *c, llm__jn *n, llm__jv in, llm__jframe *f) {
    llm__jargs a;
    llm__jeval_args(c, &n->l1, &n->l2, f, &a);
    return llm__jfilter(c, n->name, in, &a);
}

static int llm__jcmp_op(llm__jctx *c, int op, llm__jv a, llm__jv b) {
    switch (op) {
    case 'e': return llm__jeq(c, a, b);
    case 'n': return !llm__jeq(c, a, b);
    case 'i': return llm__jin(c, a, b);
    case 'I': return !llm__jin(c, a, b);
    case '<': return llm__jcompare(c, a, b, 0) < 0;
    case 'l': return llm__jcompare(c, a, b, 0) <= 0;
    case '>': return llm__jcompare(c, a, b, 0) > 0;
    default: return llm__jcompare(c, a, b, 0) >= 0;
    }
}

static llm__jv llm__jeval(llm__jctx *c, llm__jn *n, llm__jframe *f) {
    llm__jv v, w;
    size_t i;
    llm__jstep(c);
    llm__jenter(c);
    switch (n->k) {
    case LLM__N_LIT: v = n->v; break;
    case LLM__N_NAME: {
        llm__jv *hit = llm__jframe_find(f, n->name);
        if (hit) v = *hit;
        else if (llm__jstr_eq(n->name, "range") || llm__jstr_eq(n->name, "namespace") || llm__jstr_eq(n->name, "dict")
                 || llm__jstr_eq(n->name, "raise_exception") || llm__jstr_eq(n->name, "strftime_now")
                 || llm__jstr_eq(n->name, "joiner") || llm__jstr_eq(n->name, "cycler")) {
            v = llm__jmk(LLM__JFUNC); v.u.s = n->name;
        } else v = llm__jundeff(c, "'%.*s' is undefined", (int)n->name.n, n->name.p);
        break;
    }
    case LLM__N_LIST: case LLM__N_TUPLE: {
        llm__jlist *l = llm__jlist_new(c);
        l->tuple = n->k == LLM__N_TUPLE;
        for (i = 0; i < n->l1.n; i++) llm__jlist_push(c, l, llm__jeval(c, n->l1.p[i], f));
        v = llm__jlistv(l);
        break;
    }
    case LLM__N_DICT: {
        llm__jdict *d = llm__jdict_new(c);
        for (i = 0; i < n->l1.n; i++) llm__jdict_set(c, d, llm__jeval(c, n->l1.p[i], f), llm__jeval(c, n->l2.p[i], f));
        v = llm__jdictv(d);
        break;
    }
    case LLM__N_ATTR: v = llm__jgetattr(c, llm__jeval(c, n->a, f), n->name); break;
    case LLM__N_ITEM: /* (a Markup's characters and slices are Markup) */
        w = llm__jeval(c, n->a, f);
        v = llm__jgetitem(c, w, llm__jeval(c, n->b, f));
        v.safe = w.safe && v.t == LLM__JSTR;
        break;
    case LLM__N_SLICE:
        w = llm__jeval(c, n->a, f);
        v = llm__jslice(c, w, n->b ? llm__jeval(c, n->b, f) : llm__jmk(LLM__JNONE), n->c ? llm__jeval(c, n->c, f) : llm__jmk(LLM__JNONE),
                        n->l1.n ? llm__jeval(c, n->l1.p[0], f) : llm__jmk(LLM__JNONE));
        v.safe = w.safe && v.t == LLM__JSTR;
        break;
    case LLM__N_CALL: {
        llm__jargs a;
        w = llm__jeval(c, n->a, f);
        llm__jeval_args(c, &n->l1, &n->l2, f, &a);
        v = llm__jcall(c, w, &a);
        break;
    }
    case LLM__N_FILTER: v = llm__jeval_filter(c, n, llm__jeval(c, n->a, f), f); break;
    case LLM__N_TEST: {
        llm__jargs a;
        w = llm__jeval(c, n->a, f);
        llm__jeval_args(c, &n->l1, &n->l2, f, &a);
        v = llm__jbool(llm__jtest(c, n->name, w, &a) != n->op);
        break;
    }
    case LLM__N_NEG: case LLM__N_POS:
        w = llm__jeval(c, n->a, f);
        if (!llm__jis_num(w)) llm__jfail(c, "TypeError: bad operand type for unary %c: '%s'", n->k == LLM__N_NEG ? '-' : '+', llm__jtype(w));
        if (w.t == LLM__JBIG && n->k == LLM__N_NEG) { /* its digits with the other sign (-9223372036854775808 is an int) */
            llm__jbuf nb;
            memset(&nb, 0, sizeof nb);
            if (w.u.s.p[0] == '-') llm__jput(c, &nb, w.u.s.p + 1, w.u.s.n - 1);
            else { llm__jputs(c, &nb, "-"); llm__jput(c, &nb, w.u.s.p, w.u.s.n); }
            llm__jput(c, &nb, "", 1);
            v = llm__jnumber(c, nb.p, 0);
            break;
        }
        v = n->k == LLM__N_POS ? w : w.t == LLM__JFLOAT ? llm__jfloat(-w.u.f) : llm__jint(llm__jint_op(c, '-', 0, w.u.i));
        break;
    case LLM__N_NOT: v = llm__jbool(!llm__jtruthy(llm__jeval(c, n->a, f))); break;
    case LLM__N_AND: v = llm__jeval(c, n->a, f); if (llm__jtruthy(v)) v = llm__jeval(c, n->b, f); break;
    case LLM__N_OR: v = llm__jeval(c, n->a, f); if (!llm__jtruthy(v)) v = llm__jeval(c, n->b, f); break;
    case LLM__N_COND:
        if (llm__jtruthy(llm__jeval(c, n->b, f))) v = llm__jeval(c, n->a, f);
        else v = n->c ? llm__jeval(c, n->c, f) : llm__jundef("the inline if expression evaluated to false and no else section was defined");
        break;
    case LLM__N_BIN: w = llm__jeval(c, n->a, f); v = llm__jarith(c, n->op, w, llm__jeval(c, n->b, f)); break;
    case LLM__N_CMP:
        w = llm__jeval(c, n->l1.p[0], f);
        v = llm__jbool(1);
        for (i = 0; i < n->l2.n; i++) {
            llm__jv r = llm__jeval(c, n->l1.p[i + 1], f);
            if (!llm__jcmp_op(c, n->l2.p[i]->op, w, r)) { v = llm__jbool(0); break; }
            w = r;
        }
        break;
    default: llm__jfail(c, "line %d: not an expression", n->line); v = llm__jmk(LLM__JU);
    }
    c->depth--;
    return v;
}

/* ---- llm: jinja (filters, tests, methods, globals) ----------------------------------------- */

/* Python str.strip(chars) family: which = 1 left, 2 right, 3 both; chars NULL = whitespace. */
static llm__str llm__jstrip_chars(llm__str s, const llm__str *chars, int which) {
    if (!chars) {
        if (which & 1) s = llm__lstrip(s);
        if (which & 2) s = llm__rstrip(s);
        return s;
    }
    for (;;) {
        size_t k, i, hit = 0;
        if (!s.n || !(which & 1)) break;
        llm__jutf8(s.p, s.n, &k);
        for (i = 0; i < chars->n && !hit; ) { size_t m; llm__jutf8(chars->p + i, chars->n - i, &m); if (m == k && !memcmp(chars->p + i, s.p, k)) hit = 1; i += m; }
        if (!hit) break;
        s.p += k; s.n -= k;
    }
    for (;;) {
        size_t k = 1, i, hit = 0;
        if (!s.n || !(which & 2)) break;
        while (k < s.n && k < 4 && ((unsigned char)s.p[s.n - k] & 0xc0) == 0x80) k++;
        for (i = 0; i < chars->n && !hit; ) { size_t m; llm__jutf8(chars->p + i, chars->n - i, &m); if (m == k && !memcmp(chars->p + i, s.p + s.n - k, k)) hit = 1; i += m; }
        if (!hit) break;
        s.n -= k;
    }
    return s;
}

static const char *llm__jmemmem(llm__str s, size_t from, llm__str needle) {
    size_t i;
    for (i = from; i + needle.n <= s.n; i++) if (!needle.n || !memcmp(s.p + i, needle.p, needle.n)) return s.p + i;
    return NULL;
}

static llm__jv llm__jsplit(llm__jctx *c, llm__str s, llm__jv *sep, llm__jv *maxv, int right) {
    llm__jlist *l = llm__jlist_new(c);
    int64_t max = maxv && maxv->t == LLM__JINT ? maxv->u.i : -1;
    if (!sep || sep->t == LLM__JNONE) {
        /* runs of whitespace, no empty parts */
        size_t i = 0, k;
        llm__str rest = s;
        if (right) { llm__jfail(c, "rsplit() without a separator is not supported"); }
        for (;;) {
            llm__str part;
            rest = llm__lstrip(rest);
            if (!rest.n) break;
            if (max >= 0 && (int64_t)l->n == max) { llm__jlist_push(c, l, llm__jstrv(rest)); break; }
            i = 0;
            while (i < rest.n && !llm__space_len((const unsigned char *)rest.p + i, rest.n - i)) { llm__jutf8(rest.p + i, rest.n - i, &k); i += k; }
            part.p = rest.p; part.n = i;
            llm__jlist_push(c, l, llm__jstrv(part));
            rest.p += i; rest.n -= i;
        }
        return llm__jlistv(l);
    }
    if (sep->t != LLM__JSTR) llm__jfail(c, "TypeError: must be str or None, not %s", llm__jtype(*sep));
    if (!sep->u.s.n) llm__jfail(c, "ValueError: empty separator");
    if (right) {
        /* from the right: collect, then reverse */
        llm__jlist *r = llm__jlist_new(c);
        size_t end = s.n, i;
        while (max < 0 || (int64_t)r->n < max) {
            size_t k, found = (size_t)-1;
            for (k = end; k-- > 0;) if (k + sep->u.s.n <= end && !memcmp(s.p + k, sep->u.s.p, sep->u.s.n)) { found = k; break; }
            if (found == (size_t)-1) break;
            { llm__str part; part.p = s.p + found + sep->u.s.n; part.n = end - found - sep->u.s.n; llm__jlist_push(c, r, llm__jstrv(part)); }
            end = found;
        }
        { llm__str part; part.p = s.p; part.n = end; llm__jlist_push(c, l, llm__jstrv(part)); }
        for (i = r->n; i-- > 0;) llm__jlist_push(c, l, r->a[i]);
        return llm__jlistv(l);
    }
    {
        size_t start = 0;
        const char *hit;
        while ((max < 0 || (int64_t)l->n < max) && (hit = llm__jmemmem(s, start, sep->u.s)) != NULL) {
            llm__str part;
            part.p = s.p + start; part.n = (size_t)(hit - s.p) - start;
            llm__jlist_push(c, l, llm__jstrv(part));
            start = (size_t)(hit - s.p) + sep->u.s.n;
        }
        { llm__str part; part.p = s.p + start; part.n = s.n - start; llm__jlist_push(c, l, llm__jstrv(part)); }
    }
    return llm__jlistv(l);
}

static llm__jv llm__jreplace(llm__jctx *c, llm__str s, llm__jv *oldv, llm__jv *newv, llm__jv *countv) {
    llm__jbuf b;
    size_t start = 0;
    int64_t count = countv && countv->t == LLM__JINT ? countv->u.i : -1, done = 0;
    llm__str old, nw;
    const char *hit;
    if (!oldv || !newv) llm__jfail(c, "TypeError: replace expected at least 2 arguments");
    old = llm__jto_str(c, *oldv); nw = llm__jto_str(c, *newv);
    memset(&b, 0, sizeof b);
    if (!old.n) {
        size_t i = 0, k;
        while (i <= s.n && (count < 0 || done < count)) {
            llm__jput(c, &b, nw.p, nw.n); done++;
            if (i == s.n) { i++; break; }
            llm__jutf8(s.p + i, s.n - i, &k); llm__jput(c, &b, s.p + i, k); i += k;
        }
        if (i < s.n) llm__jput(c, &b, s.p + i, s.n - i);
        return llm__jstrv(llm__jbuf_str(&b));
    }
    while ((count < 0 || done < count) && (hit = llm__jmemmem(s, start, old)) != NULL) {
        llm__jput(c, &b, s.p + start, (size_t)(hit - s.p) - start);
        llm__jput(c, &b, nw.p, nw.n);
        start = (size_t)(hit - s.p) + old.n;
        done++;
    }
    llm__jput(c, &b, s.p + start, s.n - start);
    return llm__jstrv(llm__jbuf_str(&b));
}

static int llm__jaffix(llm__jctx *c, llm__str s, llm__jv *arg, int end) {
    size_t i;
    if (!arg) llm__jfail(c, "TypeError: %s expected an argument", end ? "endswith" : "startswith");
    if (arg->t == LLM__JLIST) {
        for (i = 0; i < arg->u.l->n; i++) if (llm__jaffix(c, s, &arg->u.l->a[i], end)) return 1;
        return 0;
    }
    if (arg->t != LLM__JSTR) llm__jfail(c, "TypeError: %s first arg must be str or a tuple of str", end ? "endswith" : "startswith");
    if (arg->u.s.n > s.n) return 0;
    return !memcmp(s.p + (end ? s.n - arg->u.s.n : 0), arg->u.s.p, arg->u.s.n);
}

/* Python's simple case mapping for ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic
   (the scripts chat text is mostly in); other code points are kept. */
static uint32_t llm__jcase_cp(uint32_t cp, int upper) {
    if (upper) {
        if ((cp >= 'a' && cp <= 'z') || (cp >= 0xe0 && cp <= 0xfe && cp != 0xf7) || (cp >= 0x3b1 && cp <= 0x3cb && cp != 0x3c2)
            || (cp >= 0x430 && cp <= 0x44f)) return cp - 32;
        if (cp == 0xff) return 0x178;
        if (cp == 0xb5) return 0x39c;
        if (cp == 0x3c2) return 0x3a3;
        if (cp >= 0x450 && cp <= 0x45f) return cp - 80;
        if (((cp >= 0x100 && cp <= 0x137) || (cp >= 0x14a && cp <= 0x177)) && (cp & 1)) return cp - 1;
        if (((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17e)) && !(cp & 1)) return cp - 1;
    } else {
        if ((cp >= 'A' && cp <= 'Z') || (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) || (cp >= 0x391 && cp <= 0x3ab && cp != 0x3a2)
            || (cp >= 0x410 && cp <= 0x42f)) return cp + 32;
        if (cp == 0x178) return 0xff;
        if (cp >= 0x400 && cp <= 0x40f) return cp + 80;
        if (((cp >= 0x100 && cp <= 0x137) || (cp >= 0x14a && cp <= 0x177)) && !(cp & 1)) return cp + 1;
        if (((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17e)) && (cp & 1)) return cp + 1;
    }
    return cp;
}

/* upper (u), lower (l), title (t), capitalize (c). */
static llm__jv llm__jcase(llm__jctx *c, llm__str s, int mode) {
    llm__jbuf b;
    size_t i = 0, k;
    int start = 1;
    memset(&b, 0, sizeof b);
    while (i < s.n) {
        uint32_t cp = llm__jutf8(s.p + i, s.n - i, &k), out;
        int up = mode == 'u' || ((mode == 't' || mode == 'T' || mode == 'c') && start);
        if (up && cp == 0xdf) { llm__jputs(c, &b, mode == 'u' ? "SS" : "Ss"); out = 0; }
        else out = llm__jcase_cp(cp, up);
        if (cp != 0xdf || !up) {
            if (out == cp) llm__jput(c, &b, s.p + i, k);
            else llm__jput_utf8(c, &b, out);
        }
        if (mode == 't') start = llm__jcase_cp(cp, 0) == cp && llm__jcase_cp(cp, 1) == cp && cp != 0xdf;
        else if (mode == 'T') start = cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || llm__space_len((const unsigned char *)s.p + i, k);
        else if (mode == 'c') start = 0;
        i += k;
    }
    return llm__jstrv(llm__jbuf_str(&b));
}

/* Python's "fmt % args" for %s %r %d %i %f %e %g %x %% with flags, width and precision. */
/* Text padded to width code points: spaces in front (behind with '-'), or zeros between the
   sign or prefix and the digits (the '0' flag). */
static void llm__jpad(llm__jctx *c, llm__jbuf *b, const char *pre, llm__str body, int64_t width, int left, int zero) {
    int64_t n = (int64_t)(strlen(pre) + llm__jcp_count(body)), k;
    if (!left && !zero) for (k = n; k < width; k++) llm__jputs(c, b, " ");
    llm__jputs(c, b, pre);
    if (!left && zero) for (k = n; k < width; k++) llm__jputs(c, b, "0");
    llm__jput(c, b, body.p, body.n);
    if (left) for (k = n; k < width; k++) llm__jputs(c, b, " ");
}

/* One conversion of Python's printf-style formatting (str % args, the format filter). */
static void llm__jprintf_one(llm__jctx *c, llm__jbuf *b, char conv, const char *flags, int64_t width, int64_t prec, llm__jv v, int safe) {
    int left = strchr(flags, '-') != NULL, zero = strchr(flags, '0') != NULL && !left, alt = strchr(flags, '#') != NULL;
    const char *plus = strchr(flags, '+') ? "+" : strchr(flags, ' ') ? " " : "";
    char digits[400], pre[8];
    llm__str body;
    if (conv == 's' || conv == 'r') {
        llm__jbuf t;
        memset(&t, 0, sizeof t);
        if (conv == 's') llm__jput_str(c, &t, v); else llm__jput_repr(c, &t, v);
        body = llm__jbuf_str(&t);
        if (safe && !v.safe) body = llm__jescape(c, body);   /* Markup % args escapes them */
        if (prec >= 0 && (size_t)prec < llm__jcp_count(body)) body.n = llm__jcp_offset(body, (size_t)prec);
        llm__jpad(c, b, "", body, width, left, 0);
        return;
    }
    if (conv == 'c') {
        llm__jbuf t;
        memset(&t, 0, sizeof t);
        if (v.t == LLM__JSTR && llm__jcp_count(v.u.s) == 1) body = v.u.s;
        else if (v.t == LLM__JINT || v.t == LLM__JBOOL) {
            if (v.u.i < 0 || v.u.i > 0x10ffff) llm__jfail(c, "OverflowError: %%c arg not in range(0x110000)");
            llm__jput_utf8(c, &t, (uint32_t)v.u.i);
            body = llm__jbuf_str(&t);
        } else { llm__jfail(c, "TypeError: %%c requires int or char"); return; }
        llm__jpad(c, b, "", body, width, left, 0);
        return;
    }
    if (!llm__jis_num(v)) {
        if (strchr("diuoxX", conv)) llm__jfail(c, "TypeError: %%%c format: a%s number is required, not %s", conv, strchr("diu", conv) ? " real" : "n integer", llm__jtype(v));
        llm__jfail(c, "TypeError: must be real number, not %s", llm__jtype(v));
    }
    if (v.t == LLM__JBIG) llm__jfail(c, "OverflowError: an integer beyond 64 bits in a %% format");
    if (strchr("diuoxX", conv)) {
        int64_t i;
        uint64_t m;
        const char *sign;
        if (v.t == LLM__JFLOAT && !strchr("diu", conv)) llm__jfail(c, "TypeError: %%%c format: an integer is required, not float", conv);
        i = v.t == LLM__JFLOAT ? llm__jfloat_to_int(c, v.u.f) : v.u.i;
        m = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
        sign = i < 0 ? "-" : plus;
        snprintf(digits, sizeof digits, conv == 'o' ? "%.*llo" : conv == 'x' ? "%.*llx" : conv == 'X' ? "%.*llX" : "%.*llu",
                 (int)(prec < 0 ? 1 : prec > 300 ? 300 : prec), (unsigned long long)m);
        snprintf(pre, sizeof pre, "%s%s", sign, !alt || strchr("diu", conv) ? "" : conv == 'o' ? "0o" : conv == 'x' ? "0x" : "0X");
    } else {
        double f = llm__jnum(v);
        if (f != f || f == HUGE_VAL || f == -HUGE_VAL) {   /* Python pads these with zeros too */
            int up = conv == 'F' || conv == 'E' || conv == 'G';
            snprintf(digits, sizeof digits, "%s", f != f ? (up ? "NAN" : "nan") : (up ? "INF" : "inf"));
            snprintf(pre, sizeof pre, "%s", f < 0 ? "-" : plus);
        } else {
            char spec[16];
            snprintf(spec, sizeof spec, "%%%s%s.*%c", alt ? "#" : "", plus, conv);
            snprintf(digits, sizeof digits, spec, (int)(prec < 0 ? 6 : prec > 300 ? 300 : prec), fabs(f));
            snprintf(pre, sizeof pre, "%s", f < 0 || (f == 0 && signbit(f)) ? "-" : plus);
            if (digits[0] == '+' || digits[0] == ' ') memmove(digits, digits + 1, strlen(digits));
        }
    }
    body.p = digits; body.n = strlen(digits);
    llm__jpad(c, b, pre, body, width, left, zero);
}

/* Python's printf-style formatting: fmt % args (a tuple's items, or one value), with
   %(key)s taken from map (a dict given as the one value). */
static llm__jv llm__jprintf(llm__jctx *c, llm__jv fmtv, const llm__jv *args, size_t n, const llm__jdict *map) {
    llm__str fmt = fmtv.u.s;
    llm__jbuf b;
    size_t i, next = 0;
    llm__jv r;
    memset(&b, 0, sizeof b);
    for (i = 0; i < fmt.n; i++) {
        char flags[8], conv;
        size_t nf = 0;
        int64_t width = 0, prec = -1;
        llm__jv v;
        if (fmt.p[i] != '%') { llm__jput(c, &b, fmt.p + i, 1); continue; }
        if (++i >= fmt.n) llm__jfail(c, "ValueError: incomplete format");
        v = llm__jmk(LLM__JU);
        if (fmt.p[i] == '(') {   /* %(key): the key may hold balanced parentheses */
            size_t k0 = ++i;
            int depth = 1;
            llm__jv *hit = NULL;
            llm__str key;
            for (; i < fmt.n && depth; i++) depth += fmt.p[i] == '(' ? 1 : fmt.p[i] == ')' ? -1 : 0;
            if (depth) llm__jfail(c, "ValueError: incomplete format key");
            if (!map) llm__jfail(c, "TypeError: format requires a mapping");
            key.p = fmt.p + k0; key.n = i - 1 - k0;
            hit = llm__jdict_find((llm__jdict *)map, key);
            if (!hit) llm__jfail(c, "KeyError: '%.*s'", (int)key.n, key.p);
            v = *hit;
            n = 0;   /* a mapping's value is not taken as a positional one */
        }
        for (; i < fmt.n && strchr("-+ #0", fmt.p[i]) && fmt.p[i]; i++) if (nf < sizeof flags - 1 && !memchr(flags, fmt.p[i], nf)) flags[nf++] = fmt.p[i];
        flags[nf] = 0;
        if (i < fmt.n && fmt.p[i] == '*') {
            if (next >= n) llm__jfail(c, "TypeError: not enough arguments for format string");
            if (args[next].t != LLM__JINT) llm__jfail(c, "TypeError: * wants int");
            width = args[next++].u.i;
            if (width < 0) { width = -width; if (nf < sizeof flags - 1) { flags[nf++] = '-'; flags[nf] = 0; } }
            i++;
        } else for (; i < fmt.n && fmt.p[i] >= '0' && fmt.p[i] <= '9'; i++) width = width * 10 + (fmt.p[i] - '0') > 100000 ? 100000 : width * 10 + (fmt.p[i] - '0');
        if (i < fmt.n && fmt.p[i] == '.') {
            prec = 0;
            if (++i < fmt.n && fmt.p[i] == '*') {
                if (next >= n) llm__jfail(c, "TypeError: not enough arguments for format string");
                if (args[next].t != LLM__JINT) llm__jfail(c, "TypeError: * wants int");
                prec = args[next].u.i < 0 ? 0 : args[next].u.i;
                next++; i++;
            } else for (; i < fmt.n && fmt.p[i] >= '0' && fmt.p[i] <= '9'; i++) prec = prec * 10 + (fmt.p[i] - '0') > 100000 ? 100000 : prec * 10 + (fmt.p[i] - '0');
        }
        while (i < fmt.n && (fmt.p[i] == 'h' || fmt.p[i] == 'l' || fmt.p[i] == 'L')) i++;
        if (i >= fmt.n) llm__jfail(c, "ValueError: incomplete format");
        conv = fmt.p[i];
        if (conv == '%') { llm__jputs(c, &b, "%"); continue; }
        if (!strchr("srcdiuoxXeEfFgG", conv)) llm__jfail(c, "ValueError: unsupported format character '%c'", conv);
        if (v.t == LLM__JU) {
            if (next >= n) llm__jfail(c, "TypeError: not enough arguments for format string");
            v = args[next++];
        }
        llm__jprintf_one(c, &b, conv, flags, width, prec, v, fmtv.safe);
    }
    if (next < n && !map) llm__jfail(c, "TypeError: not all arguments converted during string formatting");
    r = llm__jstrv(llm__jbuf_str(&b));
    r.safe = fmtv.safe;
    return r;
}

/* str % value: a tuple gives the arguments, a dict the mapping too, anything else is the one
   argument. */
static llm__jv llm__jpercent(llm__jctx *c, llm__jv fmt, llm__jv v) {
    if (v.t == LLM__JLIST && v.u.l->tuple == 1) return llm__jprintf(c, fmt, v.u.l->a, v.u.l->n, NULL);
    return llm__jprintf(c, fmt, &v, 1, v.t == LLM__JDICT && !v.u.d->ns ? v.u.d : NULL);
}

/* Python's str.format for {} {0} {name} without format specs. */
static llm__jv llm__jformat(llm__jctx *c, llm__str fmt, llm__jargs *a) {
    llm__jbuf b;
    size_t i, auto_i = 0;
    memset(&b, 0, sizeof b);
    for (i = 0; i < fmt.n; i++) {
        size_t e, k;
        llm__jv *v = NULL;
        if (fmt.p[i] == '}' && i + 1 < fmt.n && fmt.p[i + 1] == '}') { llm__jputs(c, &b, "}"); i++; continue; }
        if (fmt.p[i] != '{') { llm__jput(c, &b, fmt.p + i, 1); continue; }
        if (i + 1 < fmt.n && fmt.p[i + 1] == '{') { llm__jputs(c, &b, "{"); i++; continue; }
        for (e = i + 1; e < fmt.n && fmt.p[e] != '}'; e++) {}
        if (e >= fmt.n) llm__jfail(c, "ValueError: Single '{' encountered in format string");
        if (e == i + 1) v = auto_i < a->n ? &a->pos[auto_i++] : NULL;
        else if (fmt.p[i + 1] >= '0' && fmt.p[i + 1] <= '9') { k = (size_t)strtoul(fmt.p + i + 1, NULL, 10); v = k < a->n ? &a->pos[k] : NULL; }
        else for (k = 0; k < a->nk; k++) if (a->kn[k].n == e - i - 1 && !memcmp(a->kn[k].p, fmt.p + i + 1, a->kn[k].n)) v = &a->kv[k];
        if (!v) llm__jfail(c, "IndexError: Replacement index out of range for positional args tuple");
        llm__jput_str(c, &b, *v);
        i = e;
    }
    return llm__jstrv(llm__jbuf_str(&b));
}

/* The length of the line break at s.p + i (0: none), as Python's str.splitlines sees them:
   \n, \r, \r\n, \v, \f, \x1c-\x1e, U+0085, U+2028 and U+2029. */
static size_t llm__jline_break(llm__str s, size_t i) {
    const unsigned char *u = (const unsigned char *)s.p;
    if (u[i] == '\r') return i + 1 < s.n && u[i + 1] == '\n' ? 2 : 1;
    if (u[i] == '\n' || u[i] == 0x0b || u[i] == 0x0c || (u[i] >= 0x1c && u[i] <= 0x1e)) return 1;
    if (u[i] == 0xc2 && i + 1 < s.n && u[i + 1] == 0x85) return 2;
    if (u[i] == 0xe2 && i + 2 < s.n && u[i + 1] == 0x80 && (u[i + 2] == 0xa8 || u[i + 2] == 0xa9)) return 3;
    return 0;
}

/* str.splitlines(keepends). */
static llm__jlist *llm__jsplitlines(llm__jctx *c, llm__str s, int keepends) {
    llm__jlist *l = llm__jlist_new(c);
    size_t i = 0, st = 0, k;
    while (i < s.n) {
        if ((k = llm__jline_break(s, i)) == 0) { i++; continue; }
        { llm__str part; part.p = s.p + st; part.n = i - st + (keepends ? k : 0); llm__jlist_push(c, l, llm__jstrv(part)); }
        i += k;
        st = i;
    }
    if (st < s.n) { llm__str part; part.p = s.p + st; part.n = s.n - st; llm__jlist_push(c, l, llm__jstrv(part)); }
    return l;
}

/* Python's str.isspace for one character. */
static int llm__jspace_cp(uint32_t cp) {
    return (cp >= 9 && cp <= 13) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a)
           || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* str.isalpha, isalnum, isdecimal, isdigit, isnumeric, isspace, isupper, islower by general
   category (llm__gc_names: L* 1-5, Nd 9, Nl 10, No 11). isdigit and isnumeric take the
   categories Nd and N*: Python also counts superscript digits as digits and CJK numerals as
   numeric, which the categories do not tell. */
static int llm__jstr_is(llm__str s, llm__str name) {
    size_t i = 0, k;
    int cased = 0, ok = s.n > 0;
    while (i < s.n && ok) {
        uint32_t cp = llm__jutf8(s.p + i, s.n - i, &k);
        unsigned gc = llm__uprop_gc(cp) >> 4;
        int letter = gc >= 1 && gc <= 5, up = gc == 1 || gc == 3, lo = gc == 2;
        cased |= up || lo;
        if (llm__jstr_eq(name, "isalpha")) ok = letter;
        else if (llm__jstr_eq(name, "isalnum")) ok = letter || (gc >= 9 && gc <= 11);
        else if (llm__jstr_eq(name, "isdecimal") || llm__jstr_eq(name, "isdigit")) ok = gc == 9;
        else if (llm__jstr_eq(name, "isnumeric")) ok = gc >= 9 && gc <= 11;
        else if (llm__jstr_eq(name, "isspace")) ok = llm__jspace_cp(cp);
        else if (llm__jstr_eq(name, "isupper")) ok = !lo && gc != 3;
        else if (llm__jstr_eq(name, "islower")) ok = !up;
        i += k;
    }
    if (llm__jstr_eq(name, "isupper") || llm__jstr_eq(name, "islower")) ok = ok && cased;
    return ok;
}

static llm__jv llm__jstr_method(llm__jctx *c, llm__str s, llm__str name, llm__jargs *a) {
    llm__jv *a0 = llm__jarg(a, 0, NULL), *a1 = llm__jarg(a, 1, NULL);
    size_t i;
    if (llm__jstr_eq(name, "split") || llm__jstr_eq(name, "rsplit"))
        return llm__jsplit(c, s, llm__jarg(a, 0, "sep"), llm__jarg(a, 1, "maxsplit"), name.p[0] == 'r');
    if (llm__jstr_eq(name, "strip") || llm__jstr_eq(name, "lstrip") || llm__jstr_eq(name, "rstrip")) {
        int which = name.p[0] == 'l' ? 1 : name.p[0] == 'r' ? 2 : 3;
        if (a0 && a0->t != LLM__JNONE && a0->t != LLM__JSTR) llm__jfail(c, "TypeError: %.*s arg must be None or str", (int)name.n, name.p);
        return llm__jstrv(llm__jstrip_chars(s, a0 && a0->t == LLM__JSTR ? &a0->u.s : NULL, which));
    }
    if (llm__jstr_eq(name, "startswith")) return llm__jbool(llm__jaffix(c, s, a0, 0));
    if (llm__jstr_eq(name, "endswith")) return llm__jbool(llm__jaffix(c, s, a0, 1));
    if (llm__jstr_eq(name, "replace")) return llm__jreplace(c, s, a0, a1, llm__jarg(a, 2, "count"));
    if (llm__jstr_eq(name, "upper")) return llm__jcase(c, s, 'u');
    if (llm__jstr_eq(name, "lower")) return llm__jcase(c, s, 'l');
    if (llm__jstr_eq(name, "title")) return llm__jcase(c, s, 't');
    if (llm__jstr_eq(name, "capitalize")) return llm__jcase(c, s, 'c');
    if (llm__jstr_eq(name, "format")) return llm__jformat(c, s, a);
    if (llm__jstr_eq(name, "removeprefix") || llm__jstr_eq(name, "removesuffix")) {
        int end = name.p[6] == 's';
        if (a0 && a0->t == LLM__JSTR && llm__jaffix(c, s, a0, end)) { if (!end) s.p += a0->u.s.n; s.n -= a0->u.s.n; }
        return llm__jstrv(s);
    }
    if (llm__jstr_eq(name, "find") || llm__jstr_eq(name, "rfind") || llm__jstr_eq(name, "index") || llm__jstr_eq(name, "rindex") || llm__jstr_eq(name, "count")) {
        llm__str needle;
        const char *hit = NULL, *h;
        int64_t count = 0;
        if (!a0 || a0->t != LLM__JSTR) llm__jfail(c, "TypeError: must be str");
        needle = a0->u.s;
        for (i = 0; (h = llm__jmemmem(s, i, needle)) != NULL; ) {
            if (!hit || name.p[0] == 'r') hit = h;
            count++;
            if (name.p[0] != 'r' && name.p[0] != 'c') break;
            i = (size_t)(h - s.p) + (needle.n ? needle.n : 1);
            if (i > s.n) break;
        }
        if (name.p[0] == 'c') return llm__jint(count);
        if (!hit && (name.p[0] == 'i' || name.p[1] == 'i')) llm__jfail(c, "ValueError: substring not found");
        if (!hit) return llm__jint(-1);
        { llm__str pre; pre.p = s.p; pre.n = (size_t)(hit - s.p); return llm__jint((int64_t)llm__jcp_count(pre)); }
    }
    if (llm__jstr_eq(name, "join")) {
        llm__jbuf b;
        llm__jlist *l;
        if (!a0) llm__jfail(c, "TypeError: join() takes exactly one argument");
        l = llm__jiter(c, *a0);
        memset(&b, 0, sizeof b);
        for (i = 0; i < l->n; i++) {
            if (l->a[i].t != LLM__JSTR) llm__jfail(c, "TypeError: sequence item %lu: expected str instance, %s found", (unsigned long)i, llm__jtype(l->a[i]));
            if (i) llm__jput(c, &b, s.p, s.n);
            llm__jput(c, &b, l->a[i].u.s.p, l->a[i].u.s.n);
        }
        return llm__jstrv(llm__jbuf_str(&b));
    }
    if (llm__jstr_eq(name, "splitlines")) {
        llm__jv *keep = llm__jarg(a, 0, "keepends");
        return llm__jlistv(llm__jsplitlines(c, s, keep && llm__jtruthy(*keep)));
    }
    if (name.p[0] == 'i' && name.p[1] == 's') return llm__jbool(llm__jstr_is(s, name));
    if (llm__jstr_eq(name, "ljust") || llm__jstr_eq(name, "rjust") || llm__jstr_eq(name, "center") || llm__jstr_eq(name, "zfill")) {
        int64_t w, n = (int64_t)llm__jcp_count(s), left, k;
        llm__str fill = llm__s(name.p[0] == 'z' ? "0" : " ");
        llm__jbuf b;
        if (!a0 || a0->t != LLM__JINT) llm__jfail(c, "TypeError: %.*s() needs an integer width", (int)name.n, name.p);
        w = a0->u.i;
        if (a1 && name.p[0] != 'z') {
            if (a1->t != LLM__JSTR || llm__jcp_count(a1->u.s) != 1) llm__jfail(c, "TypeError: The fill character must be exactly one character long");
            fill = a1->u.s;
        }
        if (n >= w) return llm__jstrv(s);
        left = name.p[0] == 'l' ? 0 : name.p[0] == 'r' || name.p[0] == 'z' ? w - n : (w - n) / 2 + ((w - n) & w & 1);
        memset(&b, 0, sizeof b);
        if (name.p[0] == 'z' && s.n && (s.p[0] == '+' || s.p[0] == '-')) { llm__jput(c, &b, s.p, 1); s.p++; s.n--; }   /* zeros after the sign */
        for (k = 0; k < left; k++) llm__jput(c, &b, fill.p, fill.n);
        llm__jput(c, &b, s.p, s.n);
        for (k = 0; k < w - n - left; k++) llm__jput(c, &b, fill.p, fill.n);
        return llm__jstrv(llm__jbuf_str(&b));
    }
    if (llm__jstr_eq(name, "partition") || llm__jstr_eq(name, "rpartition")) {
        llm__jlist *t = llm__jlist_new(c);
        const char *hit = NULL, *h;
        llm__str head = s, mid = llm__s(""), tail = llm__s("");
        if (!a0 || a0->t != LLM__JSTR) llm__jfail(c, "TypeError: must be str");
        if (!a0->u.s.n) llm__jfail(c, "ValueError: empty separator");
        for (i = 0; (h = llm__jmemmem(s, i, a0->u.s)) != NULL; i = (size_t)(h - s.p) + 1) { hit = h; if (name.p[0] != 'r') break; }
        if (hit) {
            head.n = (size_t)(hit - s.p);
            mid = a0->u.s;
            tail.p = hit + mid.n; tail.n = s.n - head.n - mid.n;
        } else if (name.p[0] == 'r') { tail = s; head = llm__s(""); }
        t->tuple = 1;
        llm__jlist_push(c, t, llm__jstrv(head)); llm__jlist_push(c, t, llm__jstrv(mid)); llm__jlist_push(c, t, llm__jstrv(tail));
        return llm__jlistv(t);
    }
    llm__jfail(c, "str.%.*s is not supported", (int)name.n, name.p);
    return llm__jmk(LLM__JU);
}

static llm__jv llm__jpair(llm__jctx *c, llm__jv k, llm__jv v) {
    llm__jlist *t = llm__jlist_new(c);
    t->tuple = 1;
    llm__jlist_push(c, t, k); llm__jlist_push(c, t, v);
    return llm__jlistv(t);
}

static llm__jv llm__jdict_items(llm__jctx *c, llm__jdict *d, int which) {
    llm__jlist *l = llm__jlist_new(c);
    size_t i;
    l->tuple = which == 'k' ? 2 : which == 'v' ? 3 : 4;
    for (i = 0; i < d->n; i++)
        llm__jlist_push(c, l, which == 'k' ? d->k[i] : which == 'v' ? d->v[i] : llm__jpair(c, d->k[i], d->v[i]));
    return llm__jlistv(l);
}

static llm__jv llm__jcall_method(llm__jctx *c, llm__jbound *b, llm__jargs *a) {
    llm__jv self = b->self, *a0 = llm__jarg(a, 0, NULL);
    llm__str name = b->name;
    size_t i;
    if (self.t == LLM__JSTR) {
        llm__jv r = llm__jstr_method(c, self.u.s, name, a);
        r.safe = self.safe && r.t == LLM__JSTR && llm__jknown(llm__jmarkup_keeps, name);
        return r;
    }
    if (self.t == LLM__JDICT && self.u.d->ns == LLM__JNS_CYCLER) {
        const llm__jlist *items = llm__jdict_find(self.u.d, llm__s("items"))->u.l;
        llm__jv *pos = llm__jdict_find(self.u.d, llm__s("pos")), r = items->a[pos->u.i];
        if (name.p[0] == 'r') { pos->u.i = 0; return llm__jmk(LLM__JNONE); }
        pos->u.i = (pos->u.i + 1) % (int64_t)items->n;
        return r;
    }
    if (self.t == LLM__JDICT) {
        if (llm__jstr_eq(name, "items")) return llm__jdict_items(c, self.u.d, 'i');
        if (llm__jstr_eq(name, "keys")) return llm__jdict_items(c, self.u.d, 'k');
        if (llm__jstr_eq(name, "values")) return llm__jdict_items(c, self.u.d, 'v');
        if (llm__jstr_eq(name, "copy")) return self;
        if (llm__jstr_eq(name, "get")) {
            llm__jv *d = llm__jarg(a, 1, NULL);
            if (!a0) llm__jfail(c, "TypeError: get expected at least 1 argument, got 0");
            for (i = 0; i < self.u.d->n; i++) if (llm__jeq(c, self.u.d->k[i], *a0)) return self.u.d->v[i];
            return d ? *d : llm__jmk(LLM__JNONE);
        }
    }
    if (self.t == LLM__JLIST) {
        if (llm__jstr_eq(name, "copy")) return self;
        if (!a0) llm__jfail(c, "TypeError: %.*s expected an argument", (int)name.n, name.p);
        if (llm__jstr_eq(name, "count")) { int64_t k = 0; for (i = 0; i < self.u.l->n; i++) k += llm__jeq(c, self.u.l->a[i], *a0); return llm__jint(k); }
        for (i = 0; i < self.u.l->n; i++) if (llm__jeq(c, self.u.l->a[i], *a0)) return llm__jint((int64_t)i);
        llm__jfail(c, "ValueError: value is not in list");
    }
    if (self.t == LLM__JLOOP) {
        if (llm__jstr_eq(name, "cycle")) {
            if (!a->n) llm__jfail(c, "no items for cycling given");
            return a->pos[self.u.loop->i % a->n];
        }
        {   /* changed(*values): whether they differ from the last call's */
            llm__jlist *now = llm__jlist_new(c);
            llm__jloop *lp = self.u.loop;
            int changed;
            now->tuple = 1;
            for (i = 0; i < a->n; i++) llm__jlist_push(c, now, a->pos[i]);
            changed = lp->last.t == LLM__JU || !llm__jeq(c, lp->last, llm__jlistv(now));
            if (changed) lp->last = llm__jlistv(now);
            return llm__jbool(changed);
        }
    }
    llm__jfail(c, "'%s' object has no method '%.*s'", llm__jtype(self), (int)name.n, name.p);
    return self;
}

/* strftime for the directives templates use, on the UTC day of c->now. */
static llm__jv llm__jstrftime(llm__jctx *c, llm__str fmt) {
    static const char *const months[12] = { "January", "February", "March", "April", "May", "June", "July", "August",
                                            "September", "October", "November", "December" };
    static const char *const days[7] = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday" };
    int64_t t = c->now, day = (t >= 0 ? t : t - 86399) / 86400, sec = t - day * 86400;
    int64_t z = day + 719468, era = (z >= 0 ? z : z - 146096) / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, mo = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (mo <= 2), wd = ((day % 7) + 7 + 3) % 7;  /* 1970-01-01 was a Thursday */
    int64_t yday = 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0, m;
    static const int cum[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
    llm__jbuf b;
    size_t i;
    char tmp[64];
    m = (int)mo - 1;
    yday = cum[m] + d + (leap && m > 1);
    memset(&b, 0, sizeof b);
    for (i = 0; i < fmt.n; i++) {
        int pad = 1;
        char ch;
        if (fmt.p[i] != '%' || i + 1 >= fmt.n) { llm__jput(c, &b, fmt.p + i, 1); continue; }
        ch = fmt.p[++i];
        if (ch == '-' && i + 1 < fmt.n) { pad = 0; ch = fmt.p[++i]; }
        tmp[0] = 0;
        switch (ch) {
        case 'd': snprintf(tmp, sizeof tmp, pad ? "%02d" : "%d", (int)d); break;
        case 'e': snprintf(tmp, sizeof tmp, "%2d", (int)d); break;
        case 'm': snprintf(tmp, sizeof tmp, pad ? "%02d" : "%d", (int)mo); break;
        case 'Y': snprintf(tmp, sizeof tmp, "%lld", (long long)y); break;
        case 'y': snprintf(tmp, sizeof tmp, "%02d", (int)(y % 100)); break;
        case 'B': snprintf(tmp, sizeof tmp, "%s", months[m]); break;
        case 'b': case 'h': snprintf(tmp, sizeof tmp, "%.3s", months[m]); break;
        case 'A': snprintf(tmp, sizeof tmp, "%s", days[wd]); break;
        case 'a': snprintf(tmp, sizeof tmp, "%.3s", days[wd]); break;
        case 'H': snprintf(tmp, sizeof tmp, pad ? "%02d" : "%d", (int)(sec / 3600)); break;
        case 'I': snprintf(tmp, sizeof tmp, pad ? "%02d" : "%d", (int)((sec / 3600 + 11) % 12 + 1)); break;
        case 'p': snprintf(tmp, sizeof tmp, "%s", sec < 43200 ? "AM" : "PM"); break;
        case 'M': snprintf(tmp, sizeof tmp, pad ? "%02d" : "%d", (int)(sec / 60 % 60)); break;
        case 'S': snprintf(tmp, sizeof tmp, pad ? "%02d" : "%d", (int)(sec % 60)); break;
        case 'j': snprintf(tmp, sizeof tmp, pad ? "%03d" : "%d", (int)yday); break;
        case '%': snprintf(tmp, sizeof tmp, "%%"); break;
        default: snprintf(tmp, sizeof tmp, "%%%c", ch);
        }
        llm__jputs(c, &b, tmp);
    }
    return llm__jstrv(llm__jbuf_str(&b));
}

static llm__jv llm__jcall_macro(llm__jctx *c, llm__jmacro *m, llm__jargs *a);

static llm__jv llm__jcall_global(llm__jctx *c, llm__str name, llm__jargs *a) {
    llm__jv *a0 = llm__jarg(a, 0, NULL);
    size_t i;
    if (llm__jstr_eq(name, "raise_exception")) {
        llm__str msg = a0 ? llm__jto_str(c, *a0) : llm__s("");
        llm__jfail(c, "%.*s", (int)msg.n, msg.p);
    }
    if (llm__jstr_eq(name, "strftime_now")) return llm__jstrftime(c, a0 ? llm__jto_str(c, *a0) : llm__s(""));
    if (llm__jstr_eq(name, "joiner") || llm__jstr_eq(name, "cycler")) {
        llm__jdict *d = llm__jdict_new(c);
        llm__jlist *items = llm__jlist_new(c);
        d->ns = name.p[0] == 'j' ? LLM__JNS_JOINER : LLM__JNS_CYCLER;
        if (d->ns == LLM__JNS_JOINER) {
            llm__jv *sep = llm__jarg(a, 0, "sep");
            llm__jdict_set(c, d, llm__jcstr("sep"), sep ? *sep : llm__jcstr(", "));
            llm__jdict_set(c, d, llm__jcstr("used"), llm__jbool(0));
        } else {
            if (!a->n) llm__jfail(c, "RuntimeError: at least one item has to be provided");
            for (i = 0; i < a->n; i++) llm__jlist_push(c, items, a->pos[i]);
            llm__jdict_set(c, d, llm__jcstr("items"), llm__jlistv(items));
            llm__jdict_set(c, d, llm__jcstr("pos"), llm__jint(0));
        }
        return llm__jdictv(d);
    }
    if (llm__jstr_eq(name, "namespace") || llm__jstr_eq(name, "dict")) {
        llm__jdict *d = llm__jdict_new(c);
        d->ns = name.p[0] == 'n';
        if (a0 && a0->t == LLM__JDICT) for (i = 0; i < a0->u.d->n; i++) llm__jdict_set(c, d, a0->u.d->k[i], a0->u.d->v[i]);
        for (i = 0; i < a->nk; i++) llm__jdict_set(c, d, llm__jstrv(a->kn[i]), a->kv[i]);
        return llm__jdictv(d);
    }
    {   /* range */
        int64_t start = 0, stop, step = 1, k;
        llm__jlist *l = llm__jlist_new(c);
        for (i = 0; i < a->n; i++) if (a->pos[i].t != LLM__JINT) llm__jfail(c, "TypeError: range() needs integers");
        if (a->n == 1) stop = a->pos[0].u.i;
        else if (a->n >= 2) { start = a->pos[0].u.i; stop = a->pos[1].u.i; if (a->n > 2) step = a->pos[2].u.i; }
        else { llm__jfail(c, "TypeError: range expected at least 1 argument, got 0"); stop = 0; }
        if (!step) llm__jfail(c, "ValueError: range() arg 3 must not be zero");
        for (k = start; step > 0 ? k < stop : k > stop; k = llm__jint_op(c, '+', k, step)) {
            llm__jstep(c);
            llm__jlist_push(c, l, llm__jint(k));
            if ((step > 0 && k > INT64_MAX - step) || (step < 0 && k < INT64_MIN - step)) break;
        }
        return llm__jlistv(l);
    }
}

static llm__jv llm__jcall_loop(llm__jctx *c, llm__jloop *lp, llm__jargs *a);

static llm__jv llm__jcall(llm__jctx *c, llm__jv fn, llm__jargs *a) {
    switch (fn.t) {
    case LLM__JU: llm__jraise_undef(c, fn); break;
    case LLM__JMACRO: return llm__jcall_macro(c, fn.u.m, a);
    case LLM__JMETHOD: return llm__jcall_method(c, fn.u.b, a);
    case LLM__JFUNC: return llm__jcall_global(c, fn.u.s, a);
    case LLM__JLOOP: return llm__jcall_loop(c, fn.u.loop, a);
    case LLM__JDICT:
        if (fn.u.d->ns == LLM__JNS_JOINER) {   /* "" the first time, the separator after */
            llm__jv *used = llm__jdict_find(fn.u.d, llm__s("used"));
            if (!used->u.i) { used->u.i = 1; return llm__jcstr(""); }
            return *llm__jdict_find(fn.u.d, llm__s("sep"));
        }
        break;
    default: break;
    }
    llm__jfail(c, "TypeError: '%s' object is not callable", llm__jtype(fn));
    return fn;
}

/* Jinja's attribute path "a.b" of selectattr, map and sort: item lookup per part. */
static llm__jv llm__jattr_path(llm__jctx *c, llm__jv v, llm__str path) {
    size_t i = 0;
    while (i <= path.n) {
        size_t j = i;
        llm__str part;
        while (j < path.n && path.p[j] != '.') j++;
        part.p = path.p + i; part.n = j - i;
        if (v.t == LLM__JU) return v;
        if (part.n && part.p[0] >= '0' && part.p[0] <= '9' && v.t == LLM__JLIST) v = llm__jgetitem(c, v, llm__jint(strtoll(part.p, NULL, 10)));
        else v = llm__jgetitem(c, v, llm__jstrv(part));
        i = j + 1;
    }
    return v;
}

static llm__jargs llm__jargs_from(llm__jargs *a, size_t skip) {
    llm__jargs r = *a;
    if (skip > r.n) skip = r.n;
    r.pos += skip; r.n -= skip;
    return r;
}

/* select, reject, selectattr, rejectattr. */
static llm__jv llm__jselect(llm__jctx *c, llm__jv v, llm__jargs *a, int attr, int keep) {
    llm__jlist *l = llm__jlist_new(c), *src;
    llm__jv *name = llm__jarg(a, 0, NULL), *test = llm__jarg(a, attr ? 1 : 0, NULL);
    llm__jargs rest = llm__jargs_from(a, attr ? 2 : 1);
    size_t i;
    if (!llm__jtruthy(v)) return llm__jlistv(l);
    src = llm__jiter(c, v);
    if (attr && (!name || name->t != LLM__JSTR)) llm__jfail(c, "selectattr needs an attribute name");
    for (i = 0; i < src->n; i++) {
        llm__jv x = attr ? llm__jattr_path(c, src->a[i], name->u.s) : src->a[i];
        int ok = test && test->t == LLM__JSTR ? llm__jtest(c, test->u.s, x, &rest) : llm__jtruthy(x);
        llm__jstep(c);
        if (ok == keep) llm__jlist_push(c, l, src->a[i]);
    }
    return llm__jlistv(l);
}

static void llm__jsort(llm__jctx *c, llm__jv *a, size_t n, const llm__str *attr, int fold, int reverse, int by_value) {
    size_t i, j;
    for (i = 1; i < n; i++)
        for (j = i; j > 0; j--) {
            llm__jv x = a[j - 1], y = a[j];
            int r;
            if (attr) { x = llm__jattr_path(c, x, *attr); y = llm__jattr_path(c, y, *attr); }
            if (by_value >= 0) { x = x.u.l->a[by_value]; y = y.u.l->a[by_value]; }
            r = llm__jcompare(c, x, y, fold);
            llm__jstep(c);
            if (reverse ? r >= 0 : r <= 0) break;
            x = a[j]; a[j] = a[j - 1]; a[j - 1] = x;
        }
}

/* Jinja's indent: the text with a newline added, split as str.splitlines splits it, joined
   again with \n and the indentation before each line after the first (empty lines too with
   blank). */
static llm__str llm__jindent(llm__jctx *c, llm__str s, llm__jv *width, int first, int blank) {
    llm__jbuf b, ind, t;
    llm__jlist *lines;
    size_t i;
    memset(&b, 0, sizeof b); memset(&ind, 0, sizeof ind); memset(&t, 0, sizeof t);
    if (!width || width->t == LLM__JINT) { int64_t k, w = width ? width->u.i : 4; for (k = 0; k < w; k++) llm__jputs(c, &ind, " "); }
    else { llm__str w = llm__jto_str(c, *width); llm__jput(c, &ind, w.p, w.n); }
    llm__jput(c, &t, s.p, s.n);
    llm__jputs(c, &t, "\n");
    lines = llm__jsplitlines(c, llm__jbuf_str(&t), 0);
    if (first) llm__jput(c, &b, ind.p, ind.n);
    for (i = 0; i < lines->n; i++) {
        llm__str line = lines->a[i].u.s;
        if (i) {
            llm__jputs(c, &b, "\n");
            if (line.n || blank) llm__jput(c, &b, ind.p, ind.n);
        }
        llm__jput(c, &b, line.p, line.n);
    }
    return llm__jbuf_str(&b);
}

static llm__jv llm__jfilter_eager(llm__jctx *c, llm__str name, llm__jv v, llm__jargs *a);

/* Jinja's select, reject, selectattr, rejectattr, map, items and unique give generators and
   reverse an iterator: always true, without a length or an index (what they hold is made at
   once here). */
static llm__jv llm__jfilter(llm__jctx *c, llm__str name, llm__jv v, llm__jargs *a) {
    static const char *const lazy[] = { "select", "reject", "selectattr", "rejectattr", "map", "items", "unique", "batch", "slice", NULL };
    llm__jv r = llm__jfilter_eager(c, name, v, a);
    if (r.t == LLM__JSTR && v.t == LLM__JSTR && v.safe && llm__jknown(llm__jmarkup_keeps, name) && !llm__jstr_eq(name, "replace")) r.safe = 1;
    if (r.t == LLM__JLIST && llm__jknown(lazy, name)) r.u.l->tuple = 5;
    else if (r.t == LLM__JLIST && llm__jstr_eq(name, "reverse")) r.u.l->tuple = 6;
    return r;
}

/* 10^p as Python's 10 ** p gives it, correctly rounded on every libm: powers up to 10^22 are
   exact doubles, a negative one is one division by such a power (a libm's pow may be an ulp
   off). */
static double llm__jpow10(int p) {
    double t = 1.0;
    int i, k = p < 0 ? -p : p;
    if (k > 22) return pow(10.0, (double)p);
    for (i = 0; i < k; i++) t *= 10.0;
    return p < 0 ? 1.0 / t : t;
}

/* Python's round(x, -k): to a multiple of 10^k, half to even on the exact binary value (its
   integer part printed exactly, the fraction only deciding a tie). */
static double llm__jround_tens(double x, int k) {
    char d[1200];
    double ip = floor(fabs(x)), frac = fabs(x) - ip;
    int n = snprintf(d + k + 1, sizeof d - (size_t)k - 1, "%.0f", ip), i, cut, up, half = 0, rest = 0;
    memset(d, '0', (size_t)k + 1);   /* zeros in front: the cut falls inside the digits */
    n += k + 1;
    cut = n - k;
    half = d[cut] - '0';
    for (i = cut + 1; i < n; i++) rest |= d[i] != '0';
    up = half > 5 || (half == 5 && (rest || frac > 0)) || (half == 5 && ((d[cut - 1] - '0') & 1));
    for (i = cut; i < n; i++) d[i] = '0';
    for (i = cut - 1; up && i >= 0; i--) { if (d[i] == '9') d[i] = '0'; else { d[i]++; up = 0; } }
    return copysign(strtod(d, NULL), x);
}

/* The text Python's int() and float() read: without the white space around it, and with the
   single underscores between digits taken out (copied to a NUL-terminated buffer). */
static char *llm__jnumber_text(llm__jctx *c, llm__str s) {
    char *t;
    size_t i, k = 0;
    while (s.n && (llm__jis_ws(s.p[0]) || (s.p[0] >= 0x1c && s.p[0] <= 0x1f))) { s.p++; s.n--; }
    while (s.n && (llm__jis_ws(s.p[s.n - 1]) || (s.p[s.n - 1] >= 0x1c && s.p[s.n - 1] <= 0x1f))) s.n--;
    t = (char *)llm__jalloc(c, s.n + 1);
    for (i = 0; i < s.n; i++) {
        if (s.p[i] == '_' && i && i + 1 < s.n && llm__jdigit(s.p[i - 1]) < 36 && llm__jdigit(s.p[i + 1]) < 36) continue;
        if (s.p[i] == 0) return NULL;
        t[k++] = s.p[i];
    }
    t[k] = 0;
    return t;
}

/* Python's int(text, base): a sign, a 0x/0o/0b prefix where the base allows it (base 0 takes
   it from the prefix), digits of the base; 0 when the text is not one (*ok = 0). */
static int64_t llm__jparse_int(llm__jctx *c, llm__str s, int64_t base, int *ok) {
    const char *t = llm__jnumber_text(c, s);
    int neg = 0, digits = 0;
    uint64_t v = 0;
    *ok = 0;
    if (!t || base < 0 || base == 1 || base > 36) return 0;
    if (*t == '+' || *t == '-') neg = *t++ == '-';
    if (t[0] == '0' && t[1]) {
        char p = (char)(t[1] | 0x20);
        int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
        if (pb && (base == 0 || base == pb)) { base = pb; t += 2; }
    }
    if (base == 0) {
        base = 10;
        if (t[0] == '0') { const char *z = t; while (*z == '0') z++; if (*z) return 0; }   /* "010" */
    }
    for (; *t; t++) {
        int d = llm__jdigit(*t);
        if (d >= base) return 0;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) llm__jfail(c, "OverflowError: an integer beyond 64 bits");
        v = v * (uint64_t)base + (uint64_t)d;
        digits++;
    }
    if (!digits || v > (uint64_t)INT64_MAX + (uint64_t)neg) {
        if (digits) llm__jfail(c, "OverflowError: an integer beyond 64 bits");
        return 0;
    }
    *ok = 1;
    return neg ? (int64_t)(0 - v) : (int64_t)v;
}

/* Python's float(text): decimal notation, inf, infinity and nan in any case. */
static double llm__jparse_float(llm__jctx *c, llm__str s, int *ok) {
    const char *t = llm__jnumber_text(c, s), *u;
    char *e;
    double f;
    *ok = 0;
    if (!t || !*t) return 0;
    for (u = t; *u; u++) if (!strchr("0123456789+-.eEinfatyINFATY", *u)) return 0;   /* no hex floats */
    f = strtod(t, &e);
    *ok = *e == 0;
    return f;
}

/* batch(n, fill): lists of n items, the last filled up; slice(n, fill): n lists, the first
   ones one item longer, the others filled. */
static llm__jv llm__jbatch(llm__jctx *c, llm__jv v, llm__jargs *a, int slices) {
    llm__jlist *src = llm__jiter(c, v), *out = llm__jlist_new(c), *cur = NULL;
    llm__jv *nv = llm__jarg(a, 0, slices ? "slices" : "linecount"), *fill = llm__jarg(a, 1, "fill_with");
    int64_t n, i, per, extra, off = 0, k;
    if (!nv || nv->t != LLM__JINT) llm__jfail(c, "TypeError: %s needs an integer", slices ? "slice" : "batch");
    n = nv->u.i;
    if (fill && fill->t == LLM__JNONE) fill = NULL;
    if (!slices) {
        if (n <= 0 && src->n) llm__jfail(c, "ValueError: batch needs a positive count");
        for (i = 0; i < (int64_t)src->n; i++) {
            if (!cur || (int64_t)cur->n == n) { cur = llm__jlist_new(c); llm__jlist_push(c, out, llm__jlistv(cur)); }
            llm__jlist_push(c, cur, src->a[i]);
        }
        while (cur && fill && (int64_t)cur->n < n) llm__jlist_push(c, cur, *fill);
        return llm__jlistv(out);
    }
    if (n <= 0) llm__jfail(c, "ZeroDivisionError: slice needs a positive count");
    per = (int64_t)src->n / n;
    extra = (int64_t)src->n % n;
    for (i = 0; i < n; i++) {
        int64_t start = off + i * per, end;
        llm__jstep(c);
        if (i < extra) off++;
        end = off + (i + 1) * per;
        cur = llm__jlist_new(c);
        for (k = start; k < end; k++) llm__jlist_push(c, cur, src->a[k]);
        if (fill && i >= extra) llm__jlist_push(c, cur, *fill);
        llm__jlist_push(c, out, llm__jlistv(cur));
    }
    return llm__jlistv(out);
}

/* The key groupby and its sort use: the attribute (a dotted path, or an index), its default
   when missing, lower case unless case_sensitive. */
static llm__jv llm__jgroup_key(llm__jctx *c, llm__jv item, const llm__jv *attr, const llm__jv *dflt, int fold) {
    llm__jv k = attr->t == LLM__JSTR ? llm__jattr_path(c, item, attr->u.s) : llm__jgetitem(c, item, *attr);
    if (k.t == LLM__JU && dflt) k = *dflt;
    if (fold && k.t == LLM__JSTR) k = llm__jcase(c, k.u.s, 'l');
    return k;
}

/* groupby(attribute, default, case_sensitive): (grouper, list) pairs sorted by the key, the
   grouper being the first item's own value. */
static llm__jv llm__jgroupby(llm__jctx *c, llm__jv v, llm__jargs *a) {
    llm__jlist *src = llm__jiter(c, v), *out = llm__jlist_new(c), *cur = NULL;
    llm__jv *attr = llm__jarg(a, 0, "attribute"), *dflt = llm__jarg(a, 1, "default"), *cs = llm__jarg(a, 2, "case_sensitive");
    int fold = !(cs && llm__jtruthy(*cs));
    llm__jv *keys, *items;
    size_t i, j, n = src->n;
    if (!attr) llm__jfail(c, "TypeError: groupby() missing the attribute");
    keys = (llm__jv *)llm__jalloc(c, (n + 1) * sizeof *keys);
    items = (llm__jv *)llm__jalloc(c, (n + 1) * sizeof *items);
    for (i = 0; i < n; i++) { items[i] = src->a[i]; keys[i] = llm__jgroup_key(c, src->a[i], attr, dflt, fold); }
    for (i = 1; i < n; i++)   /* stable, as Python's sorted */
        for (j = i; j > 0 && llm__jcompare(c, keys[j - 1], keys[j], 0) > 0; j--) {
            llm__jv t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t;
            t = items[j]; items[j] = items[j - 1]; items[j - 1] = t;
            llm__jstep(c);
        }
    for (i = 0; i < n; i++) {
        if (!cur || !llm__jeq(c, keys[i - 1], keys[i])) {
            llm__jlist *pair = llm__jlist_new(c);
            pair->tuple = pair->group = 1;
            cur = llm__jlist_new(c);
            llm__jlist_push(c, pair, fold ? llm__jgroup_key(c, items[i], attr, dflt, 0) : keys[i]);
            llm__jlist_push(c, pair, llm__jlistv(cur));
            llm__jlist_push(c, out, llm__jlistv(pair));
        }
        llm__jlist_push(c, cur, items[i]);
    }
    return llm__jlistv(out);
}

/* truncate(length=255, killwords=false, end='...', leeway=5), in code points. */
static llm__jv llm__jtruncate(llm__jctx *c, llm__jv v, llm__jargs *a) {
    llm__jv *lv = llm__jarg(a, 0, "length"), *kw = llm__jarg(a, 1, "killwords"), *ev = llm__jarg(a, 2, "end"), *lw = llm__jarg(a, 3, "leeway");
    llm__str s, end = ev && ev->t == LLM__JSTR ? ev->u.s : llm__s("...");
    int64_t length = lv && lv->t == LLM__JINT ? lv->u.i : 255, leeway = lw && lw->t == LLM__JINT ? lw->u.i : 5, n, ne = (int64_t)llm__jcp_count(end);
    llm__jbuf b;
    if (v.t != LLM__JSTR) llm__jfail(c, "TypeError: object of type '%s' has no len()", llm__jtype(v));
    s = v.u.s;
    n = (int64_t)llm__jcp_count(s);
    if (length < ne) llm__jfail(c, "AssertionError: expected length >= %lld, got %lld", (long long)ne, (long long)length);
    if (leeway < 0) llm__jfail(c, "AssertionError: expected leeway >= 0, got %lld", (long long)leeway);
    if (n <= length + leeway) return v;
    s.n = llm__jcp_offset(s, (size_t)(length - ne));
    if (!(kw && llm__jtruthy(*kw))) {   /* s.rsplit(" ", 1)[0] */
        size_t k = s.n;
        while (k > 0 && s.p[k - 1] != ' ') k--;
        if (k > 0) s.n = k - 1;
    }
    memset(&b, 0, sizeof b);
    llm__jput(c, &b, s.p, s.n);
    llm__jput(c, &b, end.p, end.n);
    return llm__jstrv(llm__jbuf_str(&b));
}

/* xmlattr(autospace=true): key="value" pairs, escaped, without the none and undefined ones. */
static llm__jv llm__jxmlattr(llm__jctx *c, llm__jv v, llm__jargs *a) {
    llm__jv *sp = llm__jarg(a, 0, "autospace");
    llm__jbuf b;
    size_t i, k;
    if (v.t != LLM__JDICT) llm__jfail(c, "AttributeError: '%s' object has no attribute 'items'", llm__jtype(v));
    memset(&b, 0, sizeof b);
    for (i = 0; i < v.u.d->n; i++) {
        llm__str key = llm__jto_str(c, v.u.d->k[i]);
        if (v.u.d->v[i].t == LLM__JNONE || v.u.d->v[i].t == LLM__JU) continue;
        for (k = 0; k < key.n; k++)
            if (llm__jis_ws(key.p[k]) || key.p[k] == '/' || key.p[k] == '>' || key.p[k] == '=')   /* ASCII \s, / > = */
                llm__jfail(c, "ValueError: Invalid character in attribute name: '%.*s'", (int)key.n, key.p);
        if (b.n || !sp || llm__jtruthy(*sp)) llm__jputs(c, &b, " ");
        key = llm__jescape(c, key);
        llm__jput(c, &b, key.p, key.n);
        llm__jputs(c, &b, "=\"");
        key = llm__jescape(c, llm__jto_str(c, v.u.d->v[i]));
        llm__jput(c, &b, key.p, key.n);
        llm__jputs(c, &b, "\"");
    }
    return llm__jstrv(llm__jbuf_str(&b));
}

/* Percent-encoding of the UTF-8 bytes but letters, digits and _.-~ (and / outside a query;
   a query's spaces as +). */
static void llm__jurl_quote(llm__jctx *c, llm__jbuf *b, llm__jv v, int qs) {
    llm__str s = llm__jto_str(c, v);
    size_t i;
    for (i = 0; i < s.n; i++) {
        unsigned char ch = (unsigned char)s.p[i];
        char t[4];
        if (llm__jdigit((char)ch) < 36 || ch == '_' || ch == '.' || ch == '-' || ch == '~' || (ch == '/' && !qs)) llm__jput(c, b, s.p + i, 1);
        else if (ch == ' ' && qs) llm__jputs(c, b, "+");
        else { snprintf(t, sizeof t, "%%%02X", ch); llm__jputs(c, b, t); }
    }
}

/* urlencode: a string quoted; a dict or a list of pairs as key=value&... */
static llm__jv llm__jurlencode(llm__jctx *c, llm__jv v) {
    llm__jbuf b;
    llm__jlist *items;
    size_t i;
    memset(&b, 0, sizeof b);
    if (v.t != LLM__JLIST && v.t != LLM__JDICT) { llm__jurl_quote(c, &b, v, 0); return llm__jstrv(llm__jbuf_str(&b)); }
    items = v.t == LLM__JDICT ? llm__jdict_items(c, v.u.d, 'i').u.l : v.u.l;
    for (i = 0; i < items->n; i++) {
        llm__jlist *kv = llm__jiter(c, items->a[i]);
        if (kv->n != 2) llm__jfail(c, "ValueError: urlencode needs (key, value) pairs");
        if (i) llm__jputs(c, &b, "&");
        llm__jurl_quote(c, &b, kv->a[0], 1);
        llm__jputs(c, &b, "=");
        llm__jurl_quote(c, &b, kv->a[1], 1);
    }
    return llm__jstrv(llm__jbuf_str(&b));
}

/* filesizeformat(binary=false): "1 Byte", "N Bytes", then one decimal and kB..YB or KiB..YiB. */
static llm__jv llm__jfilesize(llm__jctx *c, llm__jv v, llm__jargs *a) {
    static const char *const units[] = { "k", "M", "G", "T", "P", "E", "Z", "Y" };
    llm__jv *bin = llm__jarg(a, 0, "binary");
    int binary = bin && llm__jtruthy(*bin), i, ok = 1;
    double bytes = llm__jis_num(v) ? llm__jnum(v) : v.t == LLM__JSTR ? llm__jparse_float(c, v.u.s, &ok) : 0, base = binary ? 1024 : 1000, unit = base;
    char t[400];
    if (!ok || (!llm__jis_num(v) && v.t != LLM__JSTR)) llm__jfail(c, "ValueError: could not convert to float");
    if (bytes == 1) return llm__jcstr("1 Byte");
    if (bytes < base) { snprintf(t, sizeof t, "%lld Bytes", (long long)llm__jfloat_to_int(c, bytes)); return llm__jstrv(llm__jstrdup(c, t, strlen(t))); }
    for (i = 0; i < 8; i++) {
        unit *= base;
        if (bytes < unit || i == 7) break;
    }
    snprintf(t, sizeof t, "%.1f %s%s", base * bytes / unit, binary && i == 0 ? "K" : units[i], binary ? "iB" : "B");
    return llm__jstrv(llm__jstrdup(c, t, strlen(t)));
}

static llm__jv llm__jfilter_eager(llm__jctx *c, llm__str name, llm__jv v, llm__jargs *a) {
    llm__jv *a0 = llm__jarg(a, 0, NULL);
    size_t i;
    llm__jstep(c);
    if (llm__jstr_eq(name, "tojson")) {
        llm__jjson_fmt f;
        llm__jv *ind = llm__jarg(a, 0, "indent"), *sep = llm__jarg(a, 99, "separators"), *asc = llm__jarg(a, 99, "ensure_ascii");
        llm__jv *sk = llm__jarg(a, 99, "sort_keys");
        llm__jbuf b;
        memset(&f, 0, sizeof f); memset(&b, 0, sizeof b);
        f.item_sep = llm__s(", "); f.key_sep = llm__s(": ");
        if (ind && ind->t != LLM__JNONE) {
            llm__jbuf ib;
            memset(&ib, 0, sizeof ib);
            if (ind->t == LLM__JINT) { int64_t k; for (k = 0; k < ind->u.i; k++) llm__jputs(c, &ib, " "); }
            else if (ind->t == LLM__JSTR) llm__jput(c, &ib, ind->u.s.p, ind->u.s.n);
            f.indent = llm__jbuf_str(&ib); f.has_indent = 1; f.item_sep = llm__s(",");
        }
        if (sep && sep->t == LLM__JLIST && sep->u.l->n == 2) { f.item_sep = llm__jto_str(c, sep->u.l->a[0]); f.key_sep = llm__jto_str(c, sep->u.l->a[1]); }
        f.ascii = asc && llm__jtruthy(*asc);
        f.sort_keys = sk && llm__jtruthy(*sk);
        llm__jput_json(c, &b, v, &f, 0);
        return llm__jstrv(llm__jbuf_str(&b));
    }
    if (llm__jstr_eq(name, "length") || llm__jstr_eq(name, "count")) return llm__jint(llm__jlength(c, v));
    if (llm__jstr_eq(name, "string")) return v.t == LLM__JSTR ? v : llm__jstrv(llm__jto_str(c, v));
    if (llm__jstr_eq(name, "safe")) return llm__jmarkup(llm__jto_str(c, v));
    if (llm__jstr_eq(name, "trim")) {
        llm__jv *chars = llm__jarg(a, 0, "chars");
        return llm__jstrv(llm__jstrip_chars(llm__jto_str(c, v), chars && chars->t == LLM__JSTR ? &chars->u.s : NULL, 3));
    }
    if (llm__jstr_eq(name, "default") || llm__jstr_eq(name, "d")) {
        llm__jv *bo = llm__jarg(a, 1, "boolean");
        if (v.t == LLM__JU || (bo && llm__jtruthy(*bo) && !llm__jtruthy(v))) return a0 ? *a0 : llm__jcstr("");
        return v;
    }
    if (llm__jstr_eq(name, "upper")) return llm__jcase(c, llm__jto_str(c, v), 'u');
    if (llm__jstr_eq(name, "lower")) return llm__jcase(c, llm__jto_str(c, v), 'l');
    if (llm__jstr_eq(name, "title")) return llm__jcase(c, llm__jto_str(c, v), 'T');
    if (llm__jstr_eq(name, "capitalize")) return llm__jcase(c, llm__jto_str(c, v), 'c');
    if (llm__jstr_eq(name, "format")) {   /* value % (kwargs or args) */
        llm__jdict *kw = llm__jdict_new(c);
        llm__jlist *pos = llm__jlist_new(c);
        llm__jv fmt = llm__jstrv(llm__jto_str(c, v));
        fmt.safe = v.safe;
        if (a->n && a->nk) llm__jfail(c, "can't handle positional and keyword arguments at the same time");
        for (i = 0; i < a->nk; i++) llm__jdict_set(c, kw, llm__jstrv(a->kn[i]), a->kv[i]);
        if (a->nk) return llm__jpercent(c, fmt, llm__jdictv(kw));
        pos->tuple = 1;
        for (i = 0; i < a->n; i++) llm__jlist_push(c, pos, a->pos[i]);
        return llm__jpercent(c, fmt, llm__jlistv(pos));
    }
    if (llm__jstr_eq(name, "replace")) return llm__jreplace(c, llm__jto_str(c, v), a0, llm__jarg(a, 1, "new"), llm__jarg(a, 2, "count"));
    if (llm__jstr_eq(name, "items")) {
        if (v.t == LLM__JU) return llm__jlistv(llm__jlist_new(c));
        if (v.t != LLM__JDICT || v.u.d->ns) llm__jfail(c, "TypeError: Can only get item pairs from a mapping.");
        v = llm__jdict_items(c, v.u.d, 'i');
        v.u.l->tuple = 0;
        return v;
    }
    if (llm__jstr_eq(name, "list")) {
        llm__jlist *src = llm__jiter(c, v), *l = llm__jlist_new(c);
        for (i = 0; i < src->n; i++) llm__jlist_push(c, l, src->a[i]);
        return llm__jlistv(l);
    }
    if (llm__jstr_eq(name, "join")) {
        llm__jbuf b;
        llm__jlist *src = llm__jiter(c, v);
        llm__jv *attr = llm__jarg(a, 1, "attribute");
        llm__str sep = a0 ? llm__jto_str(c, *a0) : llm__s("");
        memset(&b, 0, sizeof b);
        for (i = 0; i < src->n; i++) {
            llm__jv x = attr && attr->t == LLM__JSTR ? llm__jattr_path(c, src->a[i], attr->u.s) : src->a[i];
            if (i) llm__jput(c, &b, sep.p, sep.n);
            llm__jput_str(c, &b, x);
        }
        return llm__jstrv(llm__jbuf_str(&b));
    }
    if (llm__jstr_eq(name, "first") || llm__jstr_eq(name, "last")) {
        llm__jlist *src = llm__jiter(c, v);
        if (!src->n) return llm__jundef("No first item, sequence was empty.");
        return name.p[0] == 'f' ? src->a[0] : src->a[src->n - 1];
    }
    if (llm__jstr_eq(name, "select")) return llm__jselect(c, v, a, 0, 1);
    if (llm__jstr_eq(name, "reject")) return llm__jselect(c, v, a, 0, 0);
    if (llm__jstr_eq(name, "selectattr")) return llm__jselect(c, v, a, 1, 1);
    if (llm__jstr_eq(name, "rejectattr")) return llm__jselect(c, v, a, 1, 0);
    if (llm__jstr_eq(name, "map")) {
        llm__jlist *src, *l = llm__jlist_new(c);
        llm__jv *attr = llm__jarg(a, 99, "attribute"), *dflt = llm__jarg(a, 99, "default");
        llm__jargs rest = llm__jargs_from(a, 1);
        if (!llm__jtruthy(v)) return llm__jlistv(l);   /* as select: none|map(...) is empty */
        src = llm__jiter(c, v);
        for (i = 0; i < src->n; i++) {
            llm__jv x;
            if (attr && attr->t == LLM__JSTR) {
                x = llm__jattr_path(c, src->a[i], attr->u.s);
                if (x.t == LLM__JU && dflt) x = *dflt;
            } else if (a0 && a0->t == LLM__JSTR) x = llm__jfilter(c, a0->u.s, src->a[i], &rest);
            else x = src->a[i];
            llm__jlist_push(c, l, x);
        }
        return llm__jlistv(l);
    }
    if (llm__jstr_eq(name, "dictsort")) {
        llm__jv *cs = llm__jarg(a, 0, "case_sensitive"), *by = llm__jarg(a, 1, "by"), *rev = llm__jarg(a, 2, "reverse");
        llm__jv items;
        if (v.t != LLM__JDICT || v.u.d->ns) llm__jfail(c, "TypeError: dictsort filter only works with mappings");
        items = llm__jdict_items(c, v.u.d, 'i');
        items.u.l->tuple = 0;
        llm__jsort(c, items.u.l->a, items.u.l->n, NULL, !(cs && llm__jtruthy(*cs)), rev && llm__jtruthy(*rev),
                   by && by->t == LLM__JSTR && llm__jstr_eq(by->u.s, "value") ? 1 : 0);
        return items;
    }
    if (llm__jstr_eq(name, "sort")) {
        llm__jv *rev = llm__jarg(a, 0, "reverse"), *cs = llm__jarg(a, 1, "case_sensitive"), *attr = llm__jarg(a, 2, "attribute");
        llm__jv out = llm__jfilter(c, llm__s("list"), v, a);
        llm__jsort(c, out.u.l->a, out.u.l->n, attr && attr->t == LLM__JSTR ? &attr->u.s : NULL, !(cs && llm__jtruthy(*cs)),
                   rev && llm__jtruthy(*rev), -1);
        return out;
    }
    if (llm__jstr_eq(name, "unique")) {
        llm__jlist *src = llm__jiter(c, v), *l = llm__jlist_new(c);
        llm__jv *cs = llm__jarg(a, 0, "case_sensitive");
        size_t j;
        for (i = 0; i < src->n; i++) {
            int dup = 0;
            llm__jsteps(c, l->n / 16 + 1);
            for (j = 0; j < l->n && !dup; j++) {
                llm__jv x = l->a[j], y = src->a[i];
                if (!(cs && llm__jtruthy(*cs)) && x.t == LLM__JSTR && y.t == LLM__JSTR) dup = llm__jstrcmp_fold(x.u.s, y.u.s, 1) == 0;
                else dup = llm__jeq(c, x, y);
            }
            if (!dup) llm__jlist_push(c, l, src->a[i]);
        }
        return llm__jlistv(l);
    }
    if (llm__jstr_eq(name, "min") || llm__jstr_eq(name, "max")) {
        llm__jlist *src = llm__jiter(c, v);
        llm__jv *cs = llm__jarg(a, 0, "case_sensitive"), best;
        if (!src->n) return llm__jundef("No aggregated item, sequence was empty.");
        best = src->a[0];
        for (i = 1; i < src->n; i++) {
            int r = llm__jcompare(c, src->a[i], best, !(cs && llm__jtruthy(*cs)));
            if (name.p[1] == 'i' ? r < 0 : r > 0) best = src->a[i];
        }
        return best;
    }
    if (llm__jstr_eq(name, "reverse")) {
        llm__jlist *src, *l = llm__jlist_new(c);
        if (v.t == LLM__JSTR) src = llm__jchars(c, v.u.s); else src = llm__jiter(c, v);
        for (i = src->n; i-- > 0;) llm__jlist_push(c, l, src->a[i]);
        if (v.t == LLM__JSTR) { llm__jv e = llm__jcstr(""); llm__jargs none; memset(&none, 0, sizeof none); none.pos = &e; none.n = 1; return llm__jfilter(c, llm__s("join"), llm__jlistv(l), &none); }
        return llm__jlistv(l);
    }
    if (llm__jstr_eq(name, "indent")) {
        llm__jv *fi = llm__jarg(a, 1, "first"), *bl = llm__jarg(a, 2, "blank");
        return llm__jstrv(llm__jindent(c, llm__jto_str(c, v), llm__jarg(a, 0, "width"), fi && llm__jtruthy(*fi), bl && llm__jtruthy(*bl)));
    }
    if (llm__jstr_eq(name, "int")) {
        if (v.t == LLM__JU) llm__jraise_undef(c, v);
        if (v.t == LLM__JINT || v.t == LLM__JBIG) return v;
        if (v.t == LLM__JBOOL) return llm__jint(v.u.i);
        if (v.t == LLM__JFLOAT) return llm__jint(llm__jfloat_to_int(c, v.u.f));
        if (v.t == LLM__JSTR) {
            llm__jv *base = llm__jarg(a, 1, "base");
            int ok;
            int64_t k = llm__jparse_int(c, v.u.s, base && base->t == LLM__JINT ? base->u.i : 10, &ok);
            double f;
            if (ok) return llm__jint(k);
            f = llm__jparse_float(c, v.u.s, &ok);   /* Jinja tries int(float(value)) next */
            if (ok && f == f) return llm__jint(llm__jfloat_to_int(c, f));
        }
        return a0 ? *a0 : llm__jint(0);
    }
    if (llm__jstr_eq(name, "float")) {
        if (v.t == LLM__JU) llm__jraise_undef(c, v);
        if (llm__jis_num(v)) return llm__jfloat(llm__jnum(v));
        if (v.t == LLM__JSTR) { int ok; double k = llm__jparse_float(c, v.u.s, &ok); if (ok) return llm__jfloat(k); }
        return a0 ? *a0 : llm__jfloat(0);
    }
    if (llm__jstr_eq(name, "abs")) {
        if (!llm__jis_num(v)) llm__jfail(c, "TypeError: bad operand type for abs(): '%s'", llm__jtype(v));
        if (v.t == LLM__JBIG && v.u.s.p[0] == '-') { v.u.s.p++; v.u.s.n--; }
        if (v.t == LLM__JBIG) return v;
        return v.t == LLM__JFLOAT ? llm__jfloat(fabs(v.u.f)) : llm__jint(v.u.i < 0 ? llm__jint_op(c, '-', 0, v.u.i) : v.u.i);
    }
    if (llm__jstr_eq(name, "round")) {
        /* Python's round: the exact binary value rounded half to even, as printf rounds it */
        llm__jv *prec = llm__jarg(a, 0, "precision"), *method = llm__jarg(a, 1, "method");
        int p = prec && prec->t == LLM__JINT ? (int)(prec->u.i < -400 ? -400 : prec->u.i > 400 ? 400 : prec->u.i) : 0;
        char tmp[1200];
        double x, s10 = llm__jpow10(p);
        if (!llm__jis_num(v)) llm__jfail(c, "TypeError: type %s doesn't define __round__ method", llm__jtype(v));
        if (v.t == LLM__JBIG) return v;
        if (v.t != LLM__JFLOAT) return llm__jint(v.u.i);   /* Python: round of an int is that int */
        x = llm__jnum(v);
        if (method && method->t == LLM__JSTR && llm__jstr_eq(method->u.s, "floor")) return llm__jfloat(floor(x * s10) / s10);
        if (method && method->t == LLM__JSTR && llm__jstr_eq(method->u.s, "ceil")) return llm__jfloat(ceil(x * s10) / s10);
        if (!(x > -1e300 && x < 1e300)) return llm__jfloat(x);
        if (p < 0) return llm__jfloat(llm__jround_tens(x, -p));
        snprintf(tmp, sizeof tmp, "%.*f", p, x);
        return llm__jfloat(strtod(tmp, NULL));
    }
    if (llm__jstr_eq(name, "sum")) {
        llm__jlist *src = llm__jiter(c, v);
        llm__jv acc = a0 ? *a0 : llm__jint(0);
        for (i = 0; i < src->n; i++) acc = llm__jarith(c, '+', acc, src->a[i]);
        return acc;
    }
    if (llm__jstr_eq(name, "wordcount")) {   /* runs of \w, as Jinja's regex counts them */
        llm__str t = llm__jto_str(c, v);
        int64_t words = 0;
        int in_word = 0;
        for (i = 0; i < t.n; i++) {
            unsigned char ch = (unsigned char)t.p[i];
            int w = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch >= 0x80;
            words += w && !in_word;
            in_word = w;
        }
        return llm__jint(words);
    }
    if (llm__jstr_eq(name, "e") || llm__jstr_eq(name, "escape") || llm__jstr_eq(name, "forceescape"))
        return v.safe && name.p[0] != 'f' ? v : llm__jmarkup(llm__jescape(c, llm__jto_str(c, v)));
    if (llm__jstr_eq(name, "attr")) return a0 && a0->t == LLM__JSTR ? llm__jgetattr(c, v, a0->u.s) : llm__jundef("attr needs a name");
    if (llm__jstr_eq(name, "center")) {   /* str.center(width=80) */
        llm__jv w = a0 ? *a0 : llm__jint(80);
        llm__jargs one;
        memset(&one, 0, sizeof one);
        one.pos = &w; one.n = 1;
        return llm__jstr_method(c, llm__jto_str(c, v), name, &one);
    }
    if (llm__jstr_eq(name, "batch") || llm__jstr_eq(name, "slice")) return llm__jbatch(c, v, a, name.p[0] == 's');
    if (llm__jstr_eq(name, "groupby")) return llm__jgroupby(c, v, a);
    if (llm__jstr_eq(name, "truncate")) return llm__jtruncate(c, v, a);
    if (llm__jstr_eq(name, "xmlattr")) return llm__jxmlattr(c, v, a);
    if (llm__jstr_eq(name, "urlencode")) return llm__jurlencode(c, v);
    if (llm__jstr_eq(name, "filesizeformat")) return llm__jfilesize(c, v, a);
    if (llm__jknown(llm__jfilters, name))   /* wordwrap, striptags, urlize, pprint, random */
        llm__jfail(c, "the filter '%.*s' is not supported", (int)name.n, name.p);
    llm__jfail(c, "No filter named '%.*s'.", (int)name.n, name.p);
    return v;
}

static int llm__jtest(llm__jctx *c, llm__str name, llm__jv v, llm__jargs *a) {
    llm__jv *a0 = llm__jarg(a, 0, NULL);
    llm__jstep(c);
    if (llm__jstr_eq(name, "defined")) return v.t != LLM__JU;
    if (llm__jstr_eq(name, "undefined")) return v.t == LLM__JU;
    if (llm__jstr_eq(name, "none")) return v.t == LLM__JNONE;
    if (llm__jstr_eq(name, "string")) return v.t == LLM__JSTR;
    if (llm__jstr_eq(name, "mapping")) return v.t == LLM__JDICT && !v.u.d->ns;
    if (llm__jstr_eq(name, "iterable")) return v.t == LLM__JU || v.t == LLM__JSTR || v.t == LLM__JLIST || (v.t == LLM__JDICT && !v.u.d->ns);
    if (llm__jstr_eq(name, "sequence")) return v.t == LLM__JSTR || (v.t == LLM__JLIST && v.u.l->tuple < 5) || (v.t == LLM__JDICT && !v.u.d->ns);
    if (llm__jstr_eq(name, "boolean")) return v.t == LLM__JBOOL;
    if (llm__jstr_eq(name, "true")) return v.t == LLM__JBOOL && v.u.i;
    if (llm__jstr_eq(name, "false")) return v.t == LLM__JBOOL && !v.u.i;
    if (llm__jstr_eq(name, "number")) return llm__jis_num(v);
    if (llm__jstr_eq(name, "integer")) return v.t == LLM__JINT || v.t == LLM__JBIG;
    if (llm__jstr_eq(name, "float")) return v.t == LLM__JFLOAT;
    if (llm__jstr_eq(name, "callable")) return v.t == LLM__JMACRO || v.t == LLM__JMETHOD || v.t == LLM__JFUNC;
    if (llm__jstr_eq(name, "escaped")) return 0;
    if (llm__jstr_eq(name, "odd") || llm__jstr_eq(name, "even")) {
        if (v.t != LLM__JINT && v.t != LLM__JBOOL) llm__jfail(c, "TypeError: %.*s needs an integer", (int)name.n, name.p);
        return (int)((v.u.i % 2 + 2) % 2) == (name.p[0] == 'o');
    }
    if (llm__jstr_eq(name, "divisibleby")) {
        if (!a0 || a0->t != LLM__JINT || !a0->u.i || v.t != LLM__JINT) llm__jfail(c, "TypeError: divisibleby needs integers");
        return v.u.i % a0->u.i == 0;
    }
    if (llm__jstr_eq(name, "lower") || llm__jstr_eq(name, "upper")) {
        llm__str s = llm__jto_str(c, v);
        llm__jargs none;
        memset(&none, 0, sizeof none);
        return llm__jstr_same(s, llm__jcase(c, s, name.p[0] == 'l' ? 'l' : 'u').u.s);
    }
    if (llm__jstr_eq(name, "filter")) return v.t == LLM__JSTR && llm__jknown(llm__jfilters, v.u.s);   /* the value is the name */
    if (llm__jstr_eq(name, "test")) return v.t == LLM__JSTR && llm__jknown(llm__jtests, v.u.s);
    if (!a0) llm__jfail(c, "TypeError: test '%.*s' needs an argument", (int)name.n, name.p);
    if (llm__jstr_eq(name, "sameas")) return v.t == a0->t && (v.t == LLM__JNONE || v.t == LLM__JU || llm__jeq(c, v, *a0));
    if (llm__jstr_eq(name, "in")) return llm__jin(c, v, *a0);
    if (llm__jstr_eq(name, "eq") || llm__jstr_eq(name, "equalto") || llm__jstr_eq(name, "==")) return llm__jeq(c, v, *a0);
    if (llm__jstr_eq(name, "ne") || llm__jstr_eq(name, "!=")) return !llm__jeq(c, v, *a0);
    if (llm__jstr_eq(name, "lt") || llm__jstr_eq(name, "lessthan") || llm__jstr_eq(name, "<")) return llm__jcompare(c, v, *a0, 0) < 0;
    if (llm__jstr_eq(name, "le") || llm__jstr_eq(name, "<=")) return llm__jcompare(c, v, *a0, 0) <= 0;
    if (llm__jstr_eq(name, "gt") || llm__jstr_eq(name, "greaterthan") || llm__jstr_eq(name, ">")) return llm__jcompare(c, v, *a0, 0) > 0;
    if (llm__jstr_eq(name, "ge") || llm__jstr_eq(name, ">=")) return llm__jcompare(c, v, *a0, 0) >= 0;
    llm__jfail(c, "No test named '%.*s'.", (int)name.n, name.p);
    return 0;
}

/* ---- llm: jinja (statements) --------------------------------------------------------------- */

static void llm__jassign(llm__jctx *c, llm__jn *target, llm__jv v, llm__jframe *f) {
    size_t i;
    if (target->k == LLM__N_NAME) { llm__jframe_set(c, f, target->name, v); return; }
    if (target->k == LLM__N_ATTR) {
        llm__jv ns = llm__jeval(c, target->a, f);
        if (ns.t != LLM__JDICT || !ns.u.d->ns) llm__jfail(c, "line %d: cannot assign attribute on non-namespace object", target->line);
        llm__jdict_set(c, ns.u.d, llm__jstrv(target->name), v);
        return;
    }
    {
        llm__jlist *items = llm__jiter(c, v);
        if (items->n != target->l1.n)
            llm__jfail(c, "ValueError: %s values to unpack (expected %lu)", items->n > target->l1.n ? "too many" : "not enough", (unsigned long)target->l1.n);
        for (i = 0; i < items->n; i++) llm__jframe_set(c, f, target->l1.p[i]->name, items->a[i]);
    }
}

static llm__str llm__jcapture(llm__jctx *c, const llm__jnl *body, llm__jframe *f) {
    llm__jbuf b, *saved = c->out;
    memset(&b, 0, sizeof b);
    c->out = &b;
    llm__jrender(c, body, f);
    c->out = saved;
    return llm__jbuf_str(&b);
}

static llm__jv llm__jcall_macro(llm__jctx *c, llm__jmacro *m, llm__jargs *a) {
    llm__jframe *f = llm__jframe_new(c, m->closure);
    const llm__jnl *params = &m->node->l2;
    llm__jlist *varargs = llm__jlist_new(c);
    varargs->tuple = 1;
    llm__jdict *kwargs = llm__jdict_new(c);
    size_t i, k;
    for (i = 0; i < params->n; i++) {
        llm__jn *p = params->p[i];
        llm__jv *given = i < a->n ? &a->pos[i] : NULL;
        for (k = 0; !given && k < a->nk; k++) if (llm__jstr_same(a->kn[k], p->name)) given = &a->kv[k];
        llm__jframe_set(c, f, p->name, given ? *given : p->a ? llm__jeval(c, p->a, f)
                                                      : llm__jundeff(c, "'%.*s' is undefined", (int)p->name.n, p->name.p));
    }
    if (a->n > params->n && !(m->node->op & 1) && m->node->k == LLM__S_MACRO)
        llm__jfail(c, "TypeError: macro '%.*s' takes not more than %lu argument(s)", (int)m->node->name.n, m->node->name.p, (unsigned long)params->n);
    for (i = params->n; i < a->n; i++) llm__jlist_push(c, varargs, a->pos[i]);
    for (k = 0; k < a->nk; k++) {
        int known = llm__jstr_eq(a->kn[k], "caller");
        for (i = 0; i < params->n && !known; i++) known = llm__jstr_same(a->kn[k], params->p[i]->name);
        if (!known && !(m->node->op & 2) && m->node->k == LLM__S_MACRO)
            llm__jfail(c, "TypeError: macro '%.*s' takes no keyword argument '%.*s'", (int)m->node->name.n, m->node->name.p, (int)a->kn[k].n, a->kn[k].p);
        if (!known) llm__jdict_set(c, kwargs, llm__jstrv(a->kn[k]), a->kv[k]);
    }
    llm__jframe_set(c, f, llm__s("varargs"), llm__jlistv(varargs));
    llm__jframe_set(c, f, llm__s("kwargs"), llm__jdictv(kwargs));
    for (k = 0; k < a->nk; k++) if (llm__jstr_eq(a->kn[k], "caller")) llm__jframe_set(c, f, llm__s("caller"), a->kv[k]);
    if (m->caller.t == LLM__JMACRO) llm__jframe_set(c, f, llm__s("caller"), m->caller);
    return llm__jstrv(llm__jcapture(c, &m->node->l1, f));
}

/* A for loop over items; a recursive loop's loop(items) runs it again one level deeper, in the
   frame the loop statement runs in. */
static void llm__jloop_run(llm__jctx *c, llm__jn *n, llm__jframe *up, llm__jlist *items, int depth) {
    llm__jframe *f = llm__jframe_new(c, up);
    llm__jloop *lp = (llm__jloop *)llm__jalloc(c, sizeof *lp);
    llm__jv loopv = llm__jmk(LLM__JLOOP);
    size_t i;
    if (n->c) {   /* for ... if: the loop sees only the items that pass */
        llm__jlist *kept = llm__jlist_new(c);
        for (i = 0; i < items->n; i++) {
            llm__jstep(c);
            llm__jassign(c, n->a, items->a[i], f);
            if (llm__jtruthy(llm__jeval(c, n->c, f))) llm__jlist_push(c, kept, items->a[i]);
        }
        items = kept;
    }
    memset(lp, 0, sizeof *lp);
    lp->items = items;
    lp->depth = depth;
    lp->last = llm__jmk(LLM__JU);
    lp->node = n;
    lp->up = up;
    loopv.u.loop = lp;
    for (i = 0; i < items->n; i++) {
        llm__jstep(c);
        lp->i = i;
        f->n = 0;   /* Jinja: what one iteration sets, the next does not see */
        llm__jassign(c, n->a, items->a[i], f);
        llm__jframe_set(c, f, llm__s("loop"), loopv);
        llm__jrender(c, &n->l1, f);
        if (c->brk == 1) { c->brk = 0; break; }
        c->brk = 0;
    }
    if (!items->n) llm__jrender(c, &n->l2, up);
}

static void llm__jexec_for(llm__jctx *c, llm__jn *n, llm__jframe *up) { llm__jloop_run(c, n, up, llm__jiter(c, llm__jeval(c, n->b, up)), 1); }

static llm__jv llm__jcall_loop(llm__jctx *c, llm__jloop *lp, llm__jargs *a) {
    llm__jbuf b, *saved = c->out;
    if (!lp->node->op) llm__jfail(c, "TypeError: The loop must have the 'recursive' marker to be called recursively.");
    if (a->n != 1 || a->nk) llm__jfail(c, "TypeError: loop() takes exactly one argument");
    memset(&b, 0, sizeof b);
    c->out = &b;
    llm__jloop_run(c, lp->node, lp->up, llm__jiter(c, a->pos[0]), lp->depth + 1);
    c->out = saved;
    return llm__jstrv(llm__jbuf_str(&b));
}

static llm__jv llm__jfilter_chain(llm__jctx *c, const llm__jnl *filters, llm__jv v, llm__jframe *f) {
    size_t i;
    for (i = 0; i < filters->n; i++) v = llm__jeval_filter(c, filters->p[i], v, f);
    return v;
}

static void llm__jexec(llm__jctx *c, llm__jn *n, llm__jframe *f) {
    llm__jstep(c);
    llm__jenter(c);
    switch (n->k) {
    case LLM__S_TEXT: llm__jput(c, c->out, n->v.u.s.p, n->v.u.s.n); break;
    case LLM__S_OUT: llm__jput_str(c, c->out, llm__jeval(c, n->a, f)); break;
    case LLM__S_IF:
        if (llm__jtruthy(llm__jeval(c, n->a, f))) llm__jrender(c, &n->l1, f);
        else llm__jrender(c, &n->l2, f);
        break;
    case LLM__S_FOR: llm__jexec_for(c, n, f); break;
    case LLM__S_SET: llm__jassign(c, n->a, llm__jeval(c, n->b, f), f); break;
    case LLM__S_SETBLOCK: llm__jassign(c, n->a, llm__jfilter_chain(c, &n->l2, llm__jstrv(llm__jcapture(c, &n->l1, f)), f), f); break;
    case LLM__S_MACRO: {
        llm__jv m = llm__jmk(LLM__JMACRO);
        m.u.m = (llm__jmacro *)llm__jalloc(c, sizeof *m.u.m);
        m.u.m->node = n; m.u.m->closure = f; m.u.m->caller = llm__jmk(LLM__JU);
        llm__jframe_set(c, f, n->name, m);
        break;
    }
    case LLM__S_CALL: {
        llm__jv caller = llm__jmk(LLM__JMACRO), fn;
        llm__jargs a;
        llm__jn *call = n->a;
        caller.u.m = (llm__jmacro *)llm__jalloc(c, sizeof *caller.u.m);
        caller.u.m->node = n; caller.u.m->closure = f; caller.u.m->caller = llm__jmk(LLM__JU);
        fn = llm__jeval(c, call->a, f);
        llm__jeval_args(c, &call->l1, &call->l2, f, &a);
        if (fn.t != LLM__JMACRO) llm__jfail(c, "line %d: call block needs a macro", n->line);
        {
            llm__jmacro m = *fn.u.m;
            m.caller = caller;
            llm__jput_str(c, c->out, llm__jcall_macro(c, &m, &a));
        }
        break;
    }
    case LLM__S_FILTER: llm__jput_str(c, c->out, llm__jfilter_chain(c, &n->l2, llm__jstrv(llm__jcapture(c, &n->l1, f)), f)); break;
    case LLM__S_BREAK: c->brk = 1; break;
    case LLM__S_CONTINUE: c->brk = 2; break;
    case LLM__S_BODY: llm__jrender(c, &n->l1, f); break;
    case LLM__S_WITH: {   /* the values are all computed before any name is set */
        llm__jframe *inner = llm__jframe_new(c, f);
        llm__jv *vals = (llm__jv *)llm__jalloc(c, (n->l2.n + 1) * sizeof *vals);
        size_t i;
        for (i = 0; i < n->l2.n; i++) vals[i] = llm__jeval(c, n->l2.p[i]->b, f);
        for (i = 0; i < n->l2.n; i++) llm__jassign(c, n->l2.p[i]->a, vals[i], inner);
        llm__jrender(c, &n->l1, inner);
        break;
    }
    default: llm__jfail(c, "line %d: not a statement", n->line);
    }
    c->depth--;
}

static void llm__jrender(llm__jctx *c, const llm__jnl *body, llm__jframe *f) {
    size_t i;
    for (i = 0; i < body->n && !c->brk; i++) llm__jexec(c, body->p[i], f);
}

/* ---- llm: jinja (render) ------------------------------------------------------------------- */
static void llm__jdesc_defaults(const llm_jinja_desc *d, llm__jctx *c) {
    const char *e = getenv("SOURCE_DATE_EPOCH");
    char *end;
    c->max_steps = d && d->max_steps ? d->max_steps : LLM_JINJA_DEFAULT_STEPS;
    c->max_mem = d && d->max_memory ? d->max_memory : LLM_JINJA_DEFAULT_MEMORY;
    c->max_depth = d && d->max_depth ? d->max_depth : LLM_JINJA_DEFAULT_DEPTH;
    if (d && d->now) c->now = d->now;
    else {
        long long t = e ? strtoll(e, &end, 10) : 0;
        c->now = e && *e && !*end ? (int64_t)t : (int64_t)time(NULL);
    }
}

struct llm_jinja {
    llm__jctx parse;    /* its arena holds the text, the tree and the string literals */
    llm__jnl body;
};

static llm__jctx *llm__jctx_new(const llm_jinja_desc *desc, char *error, size_t error_cap) {
    llm__jctx *c = (llm__jctx *)LLM_MALLOC(sizeof *c);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->err = error; c->err_cap = error_cap;
    llm__jdesc_defaults(desc, c);
    return c;
}

/* Lexing and parsing under the caller's setjmp. The tree refers to a copy of the text whose
   line ends are "\n", as Jinja's lexer makes them (\r\n and \r too). */
static void llm__jinja_parse(llm__jctx *c, const char *tmpl, size_t len, llm__jnl *body) {
    char *text = (char *)llm__jalloc(c, len + 1);
    size_t i, n = 0;
    for (i = 0; i < len; i++) {
        if (tmpl[i] == '\r') { text[n++] = '\n'; if (i + 1 < len && tmpl[i + 1] == '\n') i++; }
        else text[n++] = tmpl[i];
    }
    text[n] = 0;
    llm__jlex(c, text, n);
    c->pos = 0;
    *body = llm__jp_body(c, NULL);
    c->tok = NULL; c->n_tok = c->cap_tok = 0;
}

/* Reading the variables and rendering, under the caller's setjmp. */
static llm__str llm__jinja_exec(llm__jctx *c, const llm__jnl *body, const char *vars, size_t vars_len) {
    llm__jjson j;
    llm__jv v;
    size_t i;
    c->root = llm__jframe_new(c, NULL);
    if (vars && vars_len) {
        j.p = vars; j.end = vars + vars_len;
        v = llm__jjson_value(c, &j);
        llm__jjson_ws(&j);
        if (v.t != LLM__JDICT || j.p != j.end) llm__jfail(c, "the variables must be one JSON object");
        for (i = 0; i < v.u.d->n; i++) llm__jframe_set(c, c->root, v.u.d->k[i].u.s, v.u.d->v[i]);
    }
    c->out = (llm__jbuf *)llm__jalloc(c, sizeof *c->out);
    memset(c->out, 0, sizeof *c->out);
    llm__jrender(c, body, c->root);
    return llm__jbuf_str(c->out);
}

LLMDEF llm_result llm_jinja_open(llm_jinja **t, const char *tmpl, size_t tmpl_len, const llm_jinja_desc *desc, char *error,
                                 size_t error_cap) {
    llm_jinja *j;
    llm__jctx *c;
    if (error && error_cap) error[0] = 0;
    if (!t) return LLM_ERR_INVALID_ARGUMENT;
    *t = NULL;
    if (!tmpl) return LLM_ERR_INVALID_ARGUMENT;
    if (!(j = (llm_jinja *)LLM_MALLOC(sizeof *j))) return LLM_ERR_OUT_OF_MEMORY;
    if (!(c = llm__jctx_new(desc, error, error_cap))) { LLM_FREE(j); return LLM_ERR_OUT_OF_MEMORY; }
    if (setjmp(c->jb)) {
        llm__jfree_all(c);
        LLM_FREE(c);
        LLM_FREE(j);
        return LLM_ERR_TEMPLATE;
    }
    llm__jinja_parse(c, tmpl, tmpl_len, &j->body);
    j->parse = *c;      /* the arena and the limits; the jmp_buf is not used again */
    j->parse.err = NULL; j->parse.err_cap = 0;
    LLM_FREE(c);
    *t = j;
    return LLM_OK;
}

LLMDEF void llm_jinja_close(llm_jinja *t) {
    if (!t) return;
    llm__jfree_all(&t->parse);
    LLM_FREE(t);
}

LLMDEF llm_result llm_jinja_run(const llm_jinja *t, const char *vars_json, size_t vars_len, char *out, size_t cap, size_t *n_out,
                                char *error, size_t error_cap) {
    llm__jctx *c;
    llm__str text;
    llm_result rc;
    llm_jinja_desc d;
    if (error && error_cap) error[0] = 0;
    if (!t || !n_out || (!out && cap) || (!vars_json && vars_len)) return LLM_ERR_INVALID_ARGUMENT;
    *n_out = 0;
    memset(&d, 0, sizeof d);
    d.max_steps = t->parse.max_steps; d.max_memory = t->parse.max_mem; d.max_depth = t->parse.max_depth; d.now = t->parse.now;
    if (!(c = llm__jctx_new(&d, error, error_cap))) return LLM_ERR_OUT_OF_MEMORY;
    if (setjmp(c->jb)) {
        llm__jfree_all(c);
        LLM_FREE(c);
        if (cap && out != error) out[0] = 0;
        return LLM_ERR_TEMPLATE;
    }
    text = llm__jinja_exec(c, &t->body, vars_json, vars_len);
    *n_out = text.n;
    rc = text.n >= cap ? LLM_ERR_BUFFER_TOO_SMALL : LLM_OK;
    if (rc == LLM_OK) { memcpy(out, text.p, text.n); out[text.n] = 0; }
    llm__jfree_all(c);
    LLM_FREE(c);
    return rc;
}

LLMDEF llm_result llm_jinja_render(const char *tmpl, size_t tmpl_len, const char *vars_json, size_t vars_len,
                                   const llm_jinja_desc *desc, char *out, size_t cap, size_t *n_out, char *error,
                                   size_t error_cap) {
    llm_jinja *t;
    llm_result rc;
    if (n_out) *n_out = 0;
    if (!tmpl || !n_out || (!out && cap) || (!vars_json && vars_len)) return LLM_ERR_INVALID_ARGUMENT;
    if ((rc = llm_jinja_open(&t, tmpl, tmpl_len, desc, error, error_cap)) != LLM_OK) {
        if (cap && out != error) out[0] = 0;
        return rc;
    }
    rc = llm_jinja_run(t, vars_json, vars_len, out, cap, n_out, error, error_cap);
    llm_jinja_close(t);
    return rc;
}

/* ---- llm: generation -----------------------------------------------------------------------
   A layer over the context: it uses only the public functions above (llm_eval, llm_logits,
   llm_ctx_tokens, llm_ctx_rewind, llm_sample, the tokenizer and the decoder), as a
   constrained or speculative decoder over it would. */
struct llm_generation {
    llm_ctx *ctx;
    const llm_model *model;
    llm_generate_desc desc;    /* prompt_chunk filled in */
    llm_sampler greedy;        /* the sampler when desc.sampler is NULL */
    llm_decoder dec;
    llm_generate_stats stats;
    llm_step step;             /* what the last step produced */
    int32_t *seq;              /* what the context should hold: the prompt, then the reply */
    int32_t n_prompt, n_seq, at; /* at: how many of seq the context holds */
    int32_t n_stops, stops[LLM_MAX_STOP_IDS + 1];
    char *piece;               /* a step's text (llm__piece_bytes); NULL without a tokenizer */
    size_t piece_cap;
    int started, done;
    char error[256];
};

/* Keeps the message as the generation's error and hands it to the desc's log. */
static llm_result llm__gen_fail(llm_generation *g, llm_result r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->error, sizeof g->error, fmt, ap);
    va_end(ap);
    if (g->desc.log) g->desc.log(g->desc.log_user, g->error);
    return r;
}

static int llm__is_stop(const int32_t *stops, size_t n, int32_t id) {
    size_t i;
    for (i = 0; i < n; i++) if (stops[i] == id) return 1;
    return 0;
}

/* The model's eos ids and the template's end-of-turn token, unless ignore_eos. */
static size_t llm__default_stops(const llm_model *m, const llm_generate_desc *d, int32_t *out) {
    const llm_model_info *h = llm_model_info_get(m);
    size_t n = 0;
    int32_t i;
    const char *eot;
    size_t len;
    if (d->ignore_eos) return 0;
    for (i = 0; i < h->n_stop_ids; i++) out[n++] = h->stop_ids[i];
    if ((eot = llm_chat_end_of_turn(m, d->template_name, &len)) != NULL && (i = llm_token_find(m, eot, len)) >= 0)
        out[n++] = i;
    return n;
}

/* Room for one step's text: a push and a flush (see llm_decoder) of the longest token. */
static size_t llm__piece_bytes(const llm_model *m) {
    const llm_tokenizer_info *ti = llm_tokenizer_info_get(m);
    return ti ? 3 * (size_t)ti->max_token_bytes + 9 + 9 : 0;
}

LLMDEF llm_result llm_generation_open(llm_generation **out, llm_ctx *ctx, const llm_generate_desc *desc) {
    llm_generate_desc d;
    llm_generation *g;
    const llm_model *m = llm_ctx_model(ctx);
    const llm_tokenizer_info *ti = llm_tokenizer_info_get(m);
    uint64_t n_seq = (uint64_t)llm_ctx_size(ctx) + 1 + (ti ? (uint64_t)ti->n_prefix : 0), size;
    size_t piece = llm__piece_bytes(m);
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (out) *out = NULL;
    if (!out || !ctx || d.max_tokens < -1 || d.n_reserve < 0 || d.prompt_chunk < 0 || (!d.stop_ids && d.n_stop_ids)) {
        if (d.log) d.log(d.log_user, "llm_generation_open: no context, or a desc value out of range");
        return LLM_ERR_INVALID_ARGUMENT;
    }
    size = sizeof *g + n_seq * sizeof(int32_t) + piece; /* one block: the struct, seq, piece */
    if (size > (size_t)-1 || !(g = (llm_generation *)llm__alloc(&d.allocator, (size_t)size))) {
        if (d.log) d.log(d.log_user, "llm_generation_open: out of memory");
        return LLM_ERR_OUT_OF_MEMORY;
    }
    memset(g, 0, sizeof *g);
    g->ctx = ctx;
    g->model = m;
    g->desc = d;
    if (!g->desc.prompt_chunk) g->desc.prompt_chunk = llm_ctx_batch(ctx);
    g->seq = (int32_t *)(g + 1);
    g->piece = piece ? (char *)(g->seq + n_seq) : NULL;
    g->piece_cap = piece;
    g->n_stops = (int32_t)llm__default_stops(m, &d, g->stops);
    g->step.id = g->stats.stop_id = -1;
    *out = g;
    return LLM_OK;
}

LLMDEF void llm_generation_close(llm_generation *g) {
    llm_allocator a;
    if (!g) return;
    a = g->desc.allocator;
    llm__free(&a, g);
}

LLMDEF const llm_generate_stats *llm_generation_stats(const llm_generation *g) { return g ? &g->stats : NULL; }
LLMDEF const char *llm_generation_error(const llm_generation *g) { return g ? g->error : "no generation"; }

static int32_t llm__clamp32(size_t n) { return n > 0x7fffffff ? 0x7fffffff : (int32_t)n; }

/* A fresh start that has ended (what a failed start leaves). */
static void llm__gen_reset(llm_generation *g, size_t n_prompt) {
    memset(&g->stats, 0, sizeof g->stats);
    g->stats.stop_id = -1;
    g->stats.n_prompt = llm__clamp32(n_prompt);
    g->step.id = -1;
    g->step.piece = NULL;
    g->step.len = 0;
    g->step.done = 1;
    g->n_prompt = g->n_seq = g->at = 0;
    g->error[0] = 0;
    g->started = g->done = 1;
}

/* Checks the prompt before the context is touched. */
static llm_result llm__check_prompt(llm_generation *g, const int32_t *ids, size_t n) {
    int32_t n_ctx = llm_ctx_size(g->ctx), n_vocab = llm_model_info_get(g->model)->n_vocab;
    size_t i;
    if ((int64_t)n + g->desc.n_reserve > (int64_t)n_ctx)
        return llm__gen_fail(g, LLM_ERR_CONTEXT_FULL, "the prompt's %llu tokens%s do not fit in the context (%d)", (unsigned long long)n,
                             g->desc.n_reserve ? " and the room reserved for the reply" : "", n_ctx);
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= n_vocab)
            return llm__gen_fail(g, LLM_ERR_BAD_TOKEN, "prompt token %d at index %llu is outside the vocabulary (%d)", ids[i],
                                 (unsigned long long)i, n_vocab);
    return LLM_OK;
}

/* A decoder that continues the prompt: the pieces are what the reply adds to the decoded
   prompt (as HF pipelines slice the decoded sequence), so the SentencePiece leading space
   is dropped only at the start of a sequence, never at the start of a reply. The last 8
   prompt tokens set its state (held bytes, the first-token rule); the piece buffer holds
   any one push or flush. */
static llm_result llm__decoder_after(llm_generation *g) {
    size_t i, got;
    llm_result r = LLM_OK;
    llm_decoder_init(&g->dec, g->model);
    g->dec.flags = LLM_DETOKENIZE_SKIP_SPECIAL;
    for (i = g->n_prompt > 8 ? (size_t)g->n_prompt - 8 : 0; i < (size_t)g->n_prompt && r == LLM_OK; i++)
        r = llm_decoder_push(&g->dec, g->seq[i], g->piece, g->piece_cap, &got);
    if (r == LLM_OK) r = llm_decoder_flush(&g->dec, g->piece, g->piece_cap, &got);
    return r == LLM_OK ? r : llm__gen_fail(g, r, "the decoder refused the prompt: %s", llm_result_string(r));
}

/* Rewinds the context to its longest common prefix with the prompt, keeping at least one
   prompt token to evaluate unless the context already holds exactly the prompt and its
   logits. Returns how many prompt tokens stay in the cache. */
static int32_t llm__reuse_prefix(llm_ctx *c, const int32_t *ids, int32_t n) {
    const int32_t *held = llm_ctx_tokens(c);
    int32_t keep = 0, pos = llm_ctx_pos(c);
    while (keep < pos && keep < n && held[keep] == ids[keep]) keep++;
    if (keep == n && !(pos == n && llm_logits(c))) keep = n - 1;
    if (keep < pos) llm_ctx_rewind(c, keep);
    return keep;
}

/* Starts on the n prompt tokens seq holds, checked. */
static llm_result llm__gen_start(llm_generation *g, size_t n) {
    llm_result r;
    g->n_prompt = g->n_seq = (int32_t)n;
    if (g->piece && (r = llm__decoder_after(g)) != LLM_OK) return r;
    g->stats.n_reused = llm__reuse_prefix(g->ctx, g->seq, g->n_prompt);
    g->stats.n_evaluated = g->n_prompt - g->stats.n_reused;
    g->at = llm_ctx_pos(g->ctx);
    g->done = g->step.done = 0;
    return LLM_OK;
}

LLMDEF llm_result llm_generation_start_tokens(llm_generation *g, const int32_t *ids, size_t n) {
    llm_result r;
    if (!g) return LLM_ERR_INVALID_ARGUMENT;
    llm__gen_reset(g, n);
    if (!ids || n == 0) return llm__gen_fail(g, LLM_ERR_INVALID_ARGUMENT, "no prompt tokens");
    if ((r = llm__check_prompt(g, ids, n)) != LLM_OK) return r;
    memcpy(g->seq, ids, n * sizeof *ids);
    return llm__gen_start(g, n);
}

/* The prompt's ids into seq with one BOS: the tokenizer's prefix (what LLM_TOKENIZE_ADD_SPECIAL
   puts first) unless the text's own tokens begin with it. *n is the whole count even when
   only the first n_ctx + 1 fit. */
static llm_result llm__prompt_ids(llm_generation *g, const char *text, size_t len, size_t *n) {
    const llm_tokenizer_info *ti = llm_tokenizer_info_get(g->model);
    size_t np = (size_t)ti->n_prefix, cap = (size_t)llm_ctx_size(g->ctx) + 1, got = 0;
    int32_t *ids = g->seq;
    llm_result r = llm_tokenize(g->model, text, len, LLM_TOKENIZE_PARSE_SPECIAL, ids + np, cap, &got);
    if (r == LLM_ERR_BUFFER_TOO_SMALL) r = LLM_OK; /* too long for the context: reported by the caller */
    if (r != LLM_OK) return r;
    if (got >= np && np && memcmp(ids + np, ti->prefix, np * sizeof *ids) == 0) {
        memmove(ids, ids + np, (got < cap ? got : cap) * sizeof *ids);
        np = 0;
    }
    memcpy(ids, ti->prefix, np * sizeof *ids);
    *n = got + np;
    return LLM_OK;
}

LLMDEF llm_result llm_generation_start(llm_generation *g, const char *text, size_t len) {
    size_t n = 0;
    llm_result r;
    if (!g) return LLM_ERR_INVALID_ARGUMENT;
    llm__gen_reset(g, 0);
    if (!text && len) return llm__gen_fail(g, LLM_ERR_INVALID_ARGUMENT, "no prompt text");
    if (!llm_tokenizer_info_get(g->model)) return llm__gen_fail(g, LLM_ERR_UNSUPPORTED, "the model has no tokenizer");
    if ((r = llm__prompt_ids(g, text, len, &n)) != LLM_OK)
        return llm__gen_fail(g, r, "cannot tokenize the prompt: %s", llm_result_string(r));
    g->stats.n_prompt = llm__clamp32(n);
    if ((r = llm__check_prompt(g, g->seq, n)) != LLM_OK) return r; /* the size first: past n_ctx + 1, seq holds only that many */
    return llm__gen_start(g, n);
}

/* Ends the generation: speeds, and the bytes of a character the reply left unfinished
   (after this step's piece, and to the callback with id -1). */
static llm_result llm__gen_end(llm_generation *g, llm_result r) {
    llm_generate_stats *st = &g->stats;
    size_t len = 0;
    g->done = 1;
    st->prompt_tokens_per_s = st->prompt_seconds > 0.0 ? st->n_evaluated / st->prompt_seconds : 0.0;
    st->gen_tokens_per_s = st->gen_seconds > 0.0 ? st->n_generated / st->gen_seconds : 0.0;
    if (r != LLM_OK || !g->piece) return r;
    g->step.piece = g->piece;
    if ((r = llm_decoder_flush(&g->dec, g->piece + g->step.len, g->piece_cap - g->step.len, &len)) != LLM_OK)
        return llm__gen_fail(g, r, "the decoder's flush: %s", llm_result_string(r));
    if (len && g->desc.on_token) g->desc.on_token(g->desc.user, g->piece + g->step.len, len, -1);
    g->step.len += len;
    return LLM_OK;
}

/* The desc's choose callback, else the sampler, on the context's last logits. */
static llm_result llm__gen_choose(llm_generation *g, int32_t *id) {
    const llm_generate_desc *d = &g->desc;
    int32_t n_vocab = llm_model_info_get(g->model)->n_vocab;
    const float *logits = llm_logits(g->ctx);
    llm_result r;
    *id = -1;
    if (!d->choose) {
        r = llm_sample(g->ctx, d->sampler ? d->sampler : &g->greedy, id);
        return r == LLM_OK ? r : llm__gen_fail(g, r, "%s", llm_ctx_error(g->ctx));
    }
    if (!logits) return llm__gen_fail(g, LLM_ERR_INVALID_ARGUMENT, "the context holds no logits to choose from");
    if ((r = d->choose(d->choose_user, g->ctx, logits, n_vocab, id)) != LLM_OK)
        return llm__gen_fail(g, r, "the choose callback failed: %s", llm_result_string(r));
    if (*id < 0 || *id >= n_vocab)
        return llm__gen_fail(g, LLM_ERR_BAD_TOKEN, "the choose callback chose %d, outside the vocabulary (%d)", *id, n_vocab);
    return LLM_OK;
}

/* One token: choose it, stop or pass it on; the next step evaluates it. */
static llm_result llm__gen_token(llm_generation *g, double t) {
    llm_generate_desc *d = &g->desc;
    llm_generate_stats *st = &g->stats;
    int32_t id;
    llm_result r = llm__gen_choose(g, &id);
    if (r != LLM_OK) return llm__gen_end(g, r);
    st->gen_seconds += llm__seconds() - t;
    if (llm__is_stop(g->stops, (size_t)g->n_stops, id) || llm__is_stop(d->stop_ids, d->n_stop_ids, id)) {
        st->stop = LLM_STOP_TOKEN;
        st->stop_id = id;
        return llm__gen_end(g, LLM_OK);
    }
    st->n_generated++;
    g->step.id = g->seq[g->n_seq++] = id;
    if (g->piece && (r = llm_decoder_push(&g->dec, id, g->piece, g->piece_cap, &g->step.len)) != LLM_OK)
        return llm__gen_end(g, llm__gen_fail(g, r, "the decoder refused token %d: %s", id, llm_result_string(r)));
    g->step.piece = g->piece;
    if (d->on_token && d->on_token(d->user, g->step.piece, g->step.len, id)) st->stop = LLM_STOP_CALLBACK;
    else if (d->max_tokens && st->n_generated == d->max_tokens) st->stop = LLM_STOP_MAX;
    else if (llm_ctx_pos(g->ctx) == llm_ctx_size(g->ctx)) st->stop = LLM_STOP_CONTEXT_FULL;
    return st->stop ? llm__gen_end(g, LLM_OK) : LLM_OK;
}

/* The context holds exactly the tokens the generation put there. A context changed back to
   the same tokens passes: its cache holds what this generation expects. O(pos) per step,
   little beside llm_eval. */
static int llm__gen_in_sync(const llm_generation *g) {
    return llm_ctx_pos(g->ctx) == g->at &&
           (g->at == 0 || memcmp(llm_ctx_tokens(g->ctx), g->seq, (size_t)g->at * sizeof *g->seq) == 0);
}

/* Evaluates the next k tokens of seq. */
static llm_result llm__gen_eval(llm_generation *g, int32_t k) {
    llm_result r = llm_eval(g->ctx, g->seq + g->at, (size_t)k);
    g->at = llm_ctx_pos(g->ctx);
    return r == LLM_OK ? r : llm__gen_fail(g, r, "%s", llm_ctx_error(g->ctx));
}

static llm_result llm__gen_step(llm_generation *g) {
    llm_result r;
    double t;
    g->step.id = -1;
    g->step.piece = NULL;
    g->step.len = 0;
    if (g->done) return LLM_OK;
    if (!g->started) return llm__gen_fail(g, LLM_ERR_INVALID_ARGUMENT, "a step before llm_generation_start");
    if (!llm__gen_in_sync(g))
        return llm__gen_end(g, llm__gen_fail(g, LLM_ERR_INVALID_ARGUMENT, "the context changed under the generation "
                                             "(llm_eval, llm_ctx_rewind, llm_ctx_load or another generation)"));
    t = llm__seconds();
    if (g->at < g->n_prompt) { /* a chunk of the prompt */
        int32_t k = g->n_prompt - g->at < g->desc.prompt_chunk ? g->n_prompt - g->at : g->desc.prompt_chunk;
        r = llm__gen_eval(g, k);
        g->stats.prompt_seconds += llm__seconds() - t;
        if (r != LLM_OK) return llm__gen_end(g, r);
        if (g->at < g->n_prompt) return LLM_OK;
        if (g->desc.max_tokens < 0) return llm__gen_end(g, LLM_OK);
        t = llm__seconds();
    } else if (g->at < g->n_seq) { /* the token the last step produced */
        if ((r = llm__gen_eval(g, 1)) != LLM_OK) return llm__gen_end(g, r);
    } else if (g->desc.max_tokens < 0) {
        return llm__gen_end(g, LLM_OK);
    }
    return llm__gen_token(g, t);
}

LLMDEF llm_result llm_generation_step(llm_generation *g, llm_step *step) {
    llm_result r;
    if (!g) {
        if (step) { memset(step, 0, sizeof *step); step->id = -1; step->done = 1; }
        return LLM_ERR_INVALID_ARGUMENT;
    }
    r = llm__gen_step(g);
    g->step.done = g->done;
    if (step) *step = g->step;
    return r;
}

/* Open with the prompt in one llm_eval; then, after start's result r, steps until done. */
static llm_result llm__generate_open(llm_generation **g, llm_ctx *c, const llm_generate_desc *desc) {
    llm_result r = llm_generation_open(g, c, desc);
    if (r == LLM_OK) (*g)->desc.prompt_chunk = 0x7fffffff;
    return r;
}

static llm_result llm__generate_all(llm_generation *g, llm_result r, llm_generate_stats *stats) {
    while (r == LLM_OK && !g->done) r = llm__gen_step(g);
    if (stats && g) *stats = g->stats;
    if (stats && !g) { memset(stats, 0, sizeof *stats); stats->stop_id = -1; }
    llm_generation_close(g);
    return r;
}

LLMDEF llm_result llm_generate_tokens(llm_ctx *ctx, const int32_t *prompt, size_t n, const llm_generate_desc *desc,
                                      llm_generate_stats *stats) {
    llm_generation *g;
    llm_result r = llm__generate_open(&g, ctx, desc);
    if (r == LLM_OK) r = llm_generation_start_tokens(g, prompt, n);
    return llm__generate_all(g, r, stats);
}

LLMDEF llm_result llm_generate(llm_ctx *ctx, const char *prompt, size_t len, const llm_generate_desc *desc,
                               llm_generate_stats *stats) {
    llm_generation *g;
    llm_result r = llm__generate_open(&g, ctx, desc);
    if (r == LLM_OK) r = llm_generation_start(g, prompt, len);
    return llm__generate_all(g, r, stats);
}

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
    case LLM_ERR_WRONG_MODEL: return "state of another model";
    }
    return "unknown result";
}

#if defined(__OPTIMIZE__) || defined(_MSC_VER)
#define LLM__OPT_NAME ""
#else
#define LLM__OPT_NAME ", unoptimized"
#endif
LLMDEF const char *llm_system_info(void) {
#define LLM__INFO(kernels) "kernels " kernels ", threads " LLM__THREADS_NAME LLM__OPT_NAME
    switch (llm_kernels_best()) { /* literals: the string outlives every call */
    case LLM_KERNELS_AVX2: return LLM__INFO("avx2");
    case LLM_KERNELS_AVX2_VNNI: return LLM__INFO("avx2-vnni");
    case LLM_KERNELS_AVX512: return LLM__INFO("avx512");
    case LLM_KERNELS_NEON: return LLM__INFO("neon");
    case LLM_KERNELS_NEON_DOTPROD: return LLM__INFO("neon-dotprod");
    default: return LLM__INFO("scalar");
    }
#undef LLM__INFO
}

/* ---- llm: unicode tables (generated by tools/gen_unicode.c) ------------------------------- */
/* Unicode 15.0.0 with 16.0.0's categories (the normalization tables: 9.0). Regenerate with tools/gen_unicode.c; do not edit by hand. */
/* start << 9 | general category << 4 | 1 letter, 2 number, 4 word, 8 white space */
static const uint32_t llm__uprop_ranges[4112] = {
    0x1A0, 0x13A8, 0x1DA0, 0x4178, 0x4320, 0x4940, 0x4B20, 0x50E0, 0x52F0, 0x5520, 0x5730, 0x5920,
    0x5AD0, 0x5D20, 0x6096, 0x7520, 0x7930, 0x7F20, 0x8215, 0xB6E0, 0xB920, 0xBAF0, 0xBD50, 0xBEC4,
    0xC150, 0xC225, 0xF6E0, 0xF930, 0xFAF0, 0xFD30, 0xFFA0, 0x10BA8, 0x10DA0, 0x14178, 0x14320,
    0x14540, 0x14D60, 0x14F20, 0x15150, 0x15360, 0x15455, 0x15700, 0x15930, 0x15BB0, 0x15D60,
    0x15F50, 0x16160, 0x16330, 0x164B2, 0x16950, 0x16A25, 0x16D20, 0x17150, 0x172B2, 0x17455,
    0x17710, 0x178B2, 0x17F20, 0x18015, 0x1AF30, 0x1B015, 0x1BE25, 0x1EF30, 0x1F025, 0x20015,
    0x20225, 0x20415, 0x20625, 0x20815, 0x20A25, 0x20C15, 0x20E25, 0x21015, 0x21225, 0x21415,
    0x21625, 0x21815, 0x21A25, 0x21C15, 0x21E25, 0x22015, 0x22225, 0x22415, 0x22625, 0x22815,
    0x22A25, 0x22C15, 0x22E25, 0x23015, 0x23225, 0x23415, 0x23625, 0x23815, 0x23A25, 0x23C15,
    0x23E25, 0x24015, 0x24225, 0x24415, 0x24625, 0x24815, 0x24A25, 0x24C15, 0x24E25, 0x25015,
    0x25225, 0x25415, 0x25625, 0x25815, 0x25A25, 0x25C15, 0x25E25, 0x26015, 0x26225, 0x26415,
    0x26625, 0x26815, 0x26A25, 0x26C15, 0x26E25, 0x27215, 0x27425, 0x27615, 0x27825, 0x27A15,
    0x27C25, 0x27E15, 0x28025, 0x28215, 0x28425, 0x28615, 0x28825, 0x28A15, 0x28C25, 0x28E15,
    0x29025, 0x29415, 0x29625, 0x29815, 0x29A25, 0x29C15, 0x29E25, 0x2A015, 0x2A225, 0x2A415,
    0x2A625, 0x2A815, 0x2AA25, 0x2AC15, 0x2AE25, 0x2B015, 0x2B225, 0x2B415, 0x2B625, 0x2B815,
    0x2BA25, 0x2BC15, 0x2BE25, 0x2C015, 0x2C225, 0x2C415, 0x2C625, 0x2C815, 0x2CA25, 0x2CC15,
    0x2CE25, 0x2D015, 0x2D225, 0x2D415, 0x2D625, 0x2D815, 0x2DA25, 0x2DC15, 0x2DE25, 0x2E015,
    0x2E225, 0x2E415, 0x2E625, 0x2E815, 0x2EA25, 0x2EC15, 0x2EE25, 0x2F015, 0x2F425, 0x2F615,
    0x2F825, 0x2FA15, 0x2FC25, 0x30215, 0x30625, 0x30815, 0x30A25, 0x30C15, 0x31025, 0x31215,
    0x31825, 0x31C15, 0x32425, 0x32615, 0x32A25, 0x32C15, 0x33225, 0x33815, 0x33C25, 0x33E15,
    0x34225, 0x34415, 0x34625, 0x34815, 0x34A25, 0x34C15, 0x35025, 0x35215, 0x35425, 0x35815,
    0x35A25, 0x35C15, 0x36025, 0x36215, 0x36825, 0x36A15, 0x36C25, 0x36E15, 0x37225, 0x37655,
    0x37815, 0x37A25, 0x38055, 0x38815, 0x38A35, 0x38C25, 0x38E15, 0x39035, 0x39225, 0x39415,
    0x39635, 0x39825, 0x39A15, 0x39C25, 0x39E15, 0x3A025, 0x3A215, 0x3A425, 0x3A615, 0x3A825,
    0x3AA15, 0x3AC25, 0x3AE15, 0x3B025, 0x3B215, 0x3B425, 0x3B615, 0x3B825, 0x3BC15, 0x3BE25,
    0x3C015, 0x3C225, 0x3C415, 0x3C625, 0x3C815, 0x3CA25, 0x3CC15, 0x3CE25, 0x3D015, 0x3D225,
    0x3D415, 0x3D625, 0x3D815, 0x3DA25, 0x3DC15, 0x3DE25, 0x3E215, 0x3E435, 0x3E625, 0x3E815,
    0x3EA25, 0x3EC15, 0x3F225, 0x3F415, 0x3F625, 0x3F815, 0x3FA25, 0x3FC15, 0x3FE25, 0x40015,
    0x40225, 0x40415, 0x40625, 0x40815, 0x40A25, 0x40C15, 0x40E25, 0x41015, 0x41225, 0x41415,
    0x41625, 0x41815, 0x41A25, 0x41C15, 0x41E25, 0x42015, 0x42225, 0x42415, 0x42625, 0x42815,
    0x42A25, 0x42C15, 0x42E25, 0x43015, 0x43225, 0x43415, 0x43625, 0x43815, 0x43A25, 0x43C15,
    0x43E25, 0x44015, 0x44225, 0x44415, 0x44625, 0x44815, 0x44A25, 0x44C15, 0x44E25, 0x45015,
    0x45225, 0x45415, 0x45625, 0x45815, 0x45A25, 0x45C15, 0x45E25, 0x46015, 0x46225, 0x46415,
    0x46625, 0x47415, 0x47825, 0x47A15, 0x47E25, 0x48215, 0x48425, 0x48615, 0x48E25, 0x49015,
    0x49225, 0x49415, 0x49625, 0x49815, 0x49A25, 0x49C15, 0x49E25, 0x52855, 0x52A25, 0x56045,
    0x58550, 0x58C45, 0x5A550, 0x5C045, 0x5CB50, 0x5D845, 0x5DB50, 0x5DC45, 0x5DF50, 0x60064,
    0x6E015, 0x6E225, 0x6E415, 0x6E625, 0x6E845, 0x6EB50, 0x6EC15, 0x6EE25, 0x6F000, 0x6F445,
    0x6F625, 0x6FD20, 0x6FE15, 0x70000, 0x70950, 0x70C15, 0x70F20, 0x71015, 0x71600, 0x71815,
    0x71A00, 0x71C15, 0x72025, 0x72215, 0x74400, 0x74615, 0x75825, 0x79E15, 0x7A025, 0x7A415,
    0x7AA25, 0x7B015, 0x7B225, 0x7B415, 0x7B625, 0x7B815, 0x7BA25, 0x7BC15, 0x7BE25, 0x7C015,
    0x7C225, 0x7C415, 0x7C625, 0x7C815, 0x7CA25, 0x7CC15, 0x7CE25, 0x7D015, 0x7D225, 0x7D415,
    0x7D625, 0x7D815, 0x7DA25, 0x7DC15, 0x7DE25, 0x7E815, 0x7EA25, 0x7ED30, 0x7EE15, 0x7F025,
    0x7F215, 0x7F625, 0x7FA15, 0x86025, 0x8C015, 0x8C225, 0x8C415, 0x8C625, 0x8C815, 0x8CA25,
    0x8CC15, 0x8CE25, 0x8D015, 0x8D225, 0x8D415, 0x8D625, 0x8D815, 0x8DA25, 0x8DC15, 0x8DE25,
    0x8E015, 0x8E225, 0x8E415, 0x8E625, 0x8E815, 0x8EA25, 0x8EC15, 0x8EE25, 0x8F015, 0x8F225,
    0x8F415, 0x8F625, 0x8F815, 0x8FA25, 0x8FC15, 0x8FE25, 0x90015, 0x90225, 0x90560, 0x90664,
    0x91084, 0x91415, 0x91625, 0x91815, 0x91A25, 0x91C15, 0x91E25, 0x92015, 0x92225, 0x92415,
    0x92625, 0x92815, 0x92A25, 0x92C15, 0x92E25, 0x93015, 0x93225, 0x93415, 0x93625, 0x93815,
    0x93A25, 0x93C15, 0x93E25, 0x94015, 0x94225, 0x94415, 0x94625, 0x94815, 0x94A25, 0x94C15,
    0x94E25, 0x95015, 0x95225, 0x95415, 0x95625, 0x95815, 0x95A25, 0x95C15, 0x95E25, 0x96015,
    0x96225, 0x96415, 0x96625, 0x96815, 0x96A25, 0x96C15, 0x96E25, 0x97015, 0x97225, 0x97415,
    0x97625, 0x97815, 0x97A25, 0x97C15, 0x97E25, 0x98015, 0x98425, 0x98615, 0x98825, 0x98A15,
    0x98C25, 0x98E15, 0x99025, 0x99215, 0x99425, 0x99615, 0x99825, 0x99A15, 0x99C25, 0x9A015,
    0x9A225, 0x9A415, 0x9A625, 0x9A815, 0x9AA25, 0x9AC15, 0x9AE25, 0x9B015, 0x9B225, 0x9B415,
    0x9B625, 0x9B815, 0x9BA25, 0x9BC15, 0x9BE25, 0x9C015, 0x9C225, 0x9C415, 0x9C625, 0x9C815,
    0x9CA25, 0x9CC15, 0x9CE25, 0x9D015, 0x9D225, 0x9D415, 0x9D625, 0x9D815, 0x9DA25, 0x9DC15,
    0x9DE25, 0x9E015, 0x9E225, 0x9E415, 0x9E625, 0x9E815, 0x9EA25, 0x9EC15, 0x9EE25, 0x9F015,
    0x9F225, 0x9F415, 0x9F625, 0x9F815, 0x9FA25, 0x9FC15, 0x9FE25, 0xA0015, 0xA0225, 0xA0415,
    0xA0625, 0xA0815, 0xA0A25, 0xA0C15, 0xA0E25, 0xA1015, 0xA1225, 0xA1415, 0xA1625, 0xA1815,
    0xA1A25, 0xA1C15, 0xA1E25, 0xA2015, 0xA2225, 0xA2415, 0xA2625, 0xA2815, 0xA2A25, 0xA2C15,
    0xA2E25, 0xA3015, 0xA3225, 0xA3415, 0xA3625, 0xA3815, 0xA3A25, 0xA3C15, 0xA3E25, 0xA4015,
    0xA4225, 0xA4415, 0xA4625, 0xA4815, 0xA4A25, 0xA4C15, 0xA4E25, 0xA5015, 0xA5225, 0xA5415,
    0xA5625, 0xA5815, 0xA5A25, 0xA5C15, 0xA5E25, 0xA6000, 0xA6215, 0xAAE00, 0xAB245, 0xAB520,
    0xAC025, 0xB1320, 0xB14D0, 0xB1600, 0xB1B60, 0xB1F40, 0xB2000, 0xB2264, 0xB7CD0, 0xB7E64,
    0xB8120, 0xB8264, 0xB8720, 0xB8864, 0xB8D20, 0xB8E64, 0xB9000, 0xBA055, 0xBD600, 0xBDE55,
    0xBE720, 0xBEA00, 0xC01B0, 0xC0D30, 0xC1320, 0xC1740, 0xC1920, 0xC1D60, 0xC2064, 0xC3720,
    0xC39B0, 0xC3B20, 0xC4055, 0xC8045, 0xC8255, 0xC9664, 0xCC096, 0xCD520, 0xCDC55, 0xCE064,
    0xCE255, 0xDA920, 0xDAA55, 0xDAC64, 0xDBBB0, 0xDBD60, 0xDBE64, 0xDCA45, 0xDCE64, 0xDD360,
    0xDD464, 0xDDC55, 0xDE096, 0xDF455, 0xDFB60, 0xDFE55, 0xE0120, 0xE1C00, 0xE1FB0, 0xE2055,
    0xE2264, 0xE2455, 0xE6064, 0xE9600, 0xE9A55, 0xF4C64, 0xF6255, 0xF6400, 0xF8096, 0xF9455,
    0xFD664, 0xFE845, 0xFED60, 0xFEF20, 0xFF445, 0xFF600, 0xFFA64, 0xFFD40, 0x100055, 0x102C64,
    0x103445, 0x103664, 0x104845, 0x104A64, 0x105045, 0x105264, 0x105C00, 0x106120, 0x107E00,
    0x108055, 0x10B264, 0x10B800, 0x10BD20, 0x10BE00, 0x10C055, 0x10D600, 0x10E055, 0x111150,
    0x111255, 0x111E00, 0x1121B0, 0x112400, 0x112E64, 0x114055, 0x119245, 0x119464, 0x11C5B0,
    0x11C664, 0x120674, 0x120855, 0x127464, 0x127674, 0x127864, 0x127A55, 0x127C74, 0x128264,
    0x129274, 0x129A64, 0x129C74, 0x12A055, 0x12A264, 0x12B055, 0x12C464, 0x12C920, 0x12CC96,
    0x12E120, 0x12E245, 0x12E455, 0x130264, 0x130474, 0x130800, 0x130A55, 0x131A00, 0x131E55,
    0x132200, 0x132655, 0x135200, 0x135455, 0x136200, 0x136455, 0x136600, 0x136C55, 0x137400,
    0x137864, 0x137A55, 0x137C74, 0x138264, 0x138A00, 0x138E74, 0x139200, 0x139674, 0x139A64,
    0x139C55, 0x139E00, 0x13AE74, 0x13B000, 0x13B855, 0x13BC00, 0x13BE55, 0x13C464, 0x13C800,
    0x13CC96, 0x13E055, 0x13E540, 0x13E8B2, 0x13F560, 0x13F740, 0x13F855, 0x13FB20, 0x13FC64,
    0x13FE00, 0x140264, 0x140674, 0x140800, 0x140A55, 0x141600, 0x141E55, 0x142200, 0x142655,
    0x145200, 0x145455, 0x146200, 0x146455, 0x146800, 0x146A55, 0x146E00, 0x147055, 0x147400,
    0x147864, 0x147A00, 0x147C74, 0x148264, 0x148600, 0x148E64, 0x149200, 0x149664, 0x149C00,
    0x14A264, 0x14A400, 0x14B255, 0x14BA00, 0x14BC55, 0x14BE00, 0x14CC96, 0x14E064, 0x14E455,
    0x14EA64, 0x14ED20, 0x14EE00, 0x150264, 0x150674, 0x150800, 0x150A55, 0x151C00, 0x151E55,
    0x152400, 0x152655, 0x155200, 0x155455, 0x156200, 0x156455, 0x156800, 0x156A55, 0x157400,
    0x157864, 0x157A55, 0x157C74, 0x158264, 0x158C00, 0x158E64, 0x159274, 0x159400, 0x159674,
    0x159A64, 0x159C00, 0x15A055, 0x15A200, 0x15C055, 0x15C464, 0x15C800, 0x15CC96, 0x15E120,
    0x15E340, 0x15E400, 0x15F255, 0x15F464, 0x160000, 0x160264, 0x160474, 0x160800, 0x160A55,
    0x161A00, 0x161E55, 0x162200, 0x162655, 0x165200, 0x165455, 0x166200, 0x166455, 0x166800,
    0x166A55, 0x167400, 0x167864, 0x167A55, 0x167C74, 0x167E64, 0x168074, 0x168264, 0x168A00,
    0x168E74, 0x169200, 0x169674, 0x169A64, 0x169C00, 0x16AA64, 0x16AE74, 0x16B000, 0x16B855,
    0x16BC00, 0x16BE55, 0x16C464, 0x16C800, 0x16CC96, 0x16E160, 0x16E255, 0x16E4B2, 0x16F000,
    0x170464, 0x170655, 0x170800, 0x170A55, 0x171600, 0x171C55, 0x172200, 0x172455, 0x172C00,
    0x173255, 0x173600, 0x173855, 0x173A00, 0x173C55, 0x174000, 0x174655, 0x174A00, 0x175055,
    0x175600, 0x175C55, 0x177400, 0x177C74, 0x178064, 0x178274, 0x178600, 0x178C74, 0x179200,
    0x179474, 0x179A64, 0x179C00, 0x17A055, 0x17A200, 0x17AE74, 0x17B000, 0x17CC96, 0x17E0B2,
    0x17E760, 0x17F340, 0x17F560, 0x17F600, 0x180064, 0x180274, 0x180864, 0x180A55, 0x181A00,
    0x181C55, 0x182200, 0x182455, 0x185200, 0x185455, 0x187400, 0x187864, 0x187A55, 0x187C64,
    0x188274, 0x188A00, 0x188C64, 0x189200, 0x189464, 0x189C00, 0x18AA64, 0x18AE00, 0x18B055,
    0x18B600, 0x18BA55, 0x18BC00, 0x18C055, 0x18C464, 0x18C800, 0x18CC96, 0x18E000, 0x18EF20,
    0x18F0B2, 0x18FF60, 0x190055, 0x190264, 0x190474, 0x190920, 0x190A55, 0x191A00, 0x191C55,
    0x192200, 0x192455, 0x195200, 0x195455, 0x196800, 0x196A55, 0x197400, 0x197864, 0x197A55,
    0x197C74, 0x197E64, 0x198074, 0x198A00, 0x198C64, 0x198E74, 0x199200, 0x199474, 0x199864,
    0x199C00, 0x19AA74, 0x19AE00, 0x19BA55, 0x19BE00, 0x19C055, 0x19C464, 0x19C800, 0x19CC96,
    0x19E000, 0x19E255, 0x19E674, 0x19E800, 0x1A0064, 0x1A0474, 0x1A0855, 0x1A1A00, 0x1A1C55,
    0x1A2200, 0x1A2455, 0x1A7664, 0x1A7A55, 0x1A7C74, 0x1A8264, 0x1A8A00, 0x1A8C74, 0x1A9200,
    0x1A9474, 0x1A9A64, 0x1A9C55, 0x1A9F60, 0x1AA000, 0x1AA855, 0x1AAE74, 0x1AB0B2, 0x1ABE55,
    0x1AC464, 0x1AC800, 0x1ACC96, 0x1AE0B2, 0x1AF360, 0x1AF455, 0x1B0000, 0x1B0264, 0x1B0474,
    0x1B0800, 0x1B0A55, 0x1B2E00, 0x1B3455, 0x1B6400, 0x1B6655, 0x1B7800, 0x1B7A55, 0x1B7C00,
    0x1B8055, 0x1B8E00, 0x1B9464, 0x1B9600, 0x1B9E74, 0x1BA464, 0x1BAA00, 0x1BAC64, 0x1BAE00,
    0x1BB074, 0x1BC000, 0x1BCC96, 0x1BE000, 0x1BE474, 0x1BE920, 0x1BEA00, 0x1C0255, 0x1C6264,
    0x1C6455, 0x1C6864, 0x1C7600, 0x1C7F40, 0x1C8055, 0x1C8C45, 0x1C8E64, 0x1C9F20, 0x1CA096,
    0x1CB520, 0x1CB800, 0x1D0255, 0x1D0600, 0x1D0855, 0x1D0A00, 0x1D0C55, 0x1D1600, 0x1D1855,
    0x1D4800, 0x1D4A55, 0x1D4C00, 0x1D4E55, 0x1D6264, 0x1D6455, 0x1D6864, 0x1D7A55, 0x1D7C00,
    0x1D8055, 0x1D8A00, 0x1D8C45, 0x1D8E00, 0x1D9064, 0x1D9E00, 0x1DA096, 0x1DB400, 0x1DB855,
    0x1DC000, 0x1E0055, 0x1E0360, 0x1E0920, 0x1E2760, 0x1E2920, 0x1E2B60, 0x1E3064, 0x1E3560,
    0x1E4096, 0x1E54B2, 0x1E6960, 0x1E6A64, 0x1E6D60, 0x1E6E64, 0x1E7160, 0x1E7264, 0x1E74E0,
    0x1E76F0, 0x1E78E0, 0x1E7AF0, 0x1E7C74, 0x1E8055, 0x1E9000, 0x1E9255, 0x1EDA00, 0x1EE264,
    0x1EFE74, 0x1F0064, 0x1F0B20, 0x1F0C64, 0x1F1055, 0x1F1A64, 0x1F3000, 0x1F3264, 0x1F7A00,
    0x1F7D60, 0x1F8C64, 0x1F8F60, 0x1F9A00, 0x1F9D60, 0x1FA120, 0x1FAB60, 0x1FB320, 0x1FB600,
    0x200055, 0x205674, 0x205A64, 0x206274, 0x206464, 0x207074, 0x207264, 0x207674, 0x207A64,
    0x207E55, 0x208096, 0x209520, 0x20A055, 0x20AC74, 0x20B064, 0x20B455, 0x20BC64, 0x20C255,
    0x20C474, 0x20CA55, 0x20CE74, 0x20DC55, 0x20E264, 0x20EA55, 0x210464, 0x210674, 0x210A64,
    0x210E74, 0x211A64, 0x211C55, 0x211E74, 0x212096, 0x213474, 0x213A64, 0x213D60, 0x214015,
    0x218C00, 0x218E15, 0x219000, 0x219A15, 0x219C00, 0x21A025, 0x21F720, 0x21F845, 0x21FA25,
    0x220055, 0x249200, 0x249455, 0x249C00, 0x24A055, 0x24AE00, 0x24B055, 0x24B200, 0x24B455,
    0x24BC00, 0x24C055, 0x251200, 0x251455, 0x251C00, 0x252055, 0x256200, 0x256455, 0x256C00,
    0x257055, 0x257E00, 0x258055, 0x258200, 0x258455, 0x258C00, 0x259055, 0x25AE00, 0x25B055,
    0x262200, 0x262455, 0x262C00, 0x263055, 0x26B600, 0x26BA64, 0x26C120, 0x26D2B2, 0x26FA00,
    0x270055, 0x272160, 0x273400, 0x274015, 0x27EC00, 0x27F025, 0x27FC00, 0x2800D0, 0x280255,
    0x2CDB60, 0x2CDD20, 0x2CDE55, 0x2D0178, 0x2D0255, 0x2D36E0, 0x2D38F0, 0x2D3A00, 0x2D4055,
    0x2DD720, 0x2DDCA6, 0x2DE255, 0x2DF200, 0x2E0055, 0x2E2464, 0x2E2A74, 0x2E2C00, 0x2E3E55,
    0x2E6464, 0x2E6874, 0x2E6B20, 0x2E6E00, 0x2E8055, 0x2EA464, 0x2EA800, 0x2EC055, 0x2EDA00,
    0x2EDC55, 0x2EE200, 0x2EE464, 0x2EE800, 0x2F0055, 0x2F6864, 0x2F6C74, 0x2F6E64, 0x2F7C74,
    0x2F8C64, 0x2F8E74, 0x2F9264, 0x2FA920, 0x2FAE45, 0x2FB120, 0x2FB740, 0x2FB855, 0x2FBA64,
    0x2FBC00, 0x2FC096, 0x2FD400, 0x2FE0B2, 0x2FF400, 0x300120, 0x300CD0, 0x300F20, 0x301664,
    0x301DB0, 0x301E64, 0x302096, 0x303400, 0x304055, 0x308645, 0x308855, 0x30F200, 0x310055,
    0x310A64, 0x310E55, 0x315264, 0x315455, 0x315600, 0x316055, 0x31EC00, 0x320055, 0x323E00,
    0x324064, 0x324674, 0x324E64, 0x325274, 0x325800, 0x326074, 0x326464, 0x326674, 0x327264,
    0x327800, 0x328160, 0x328200, 0x328920, 0x328C96, 0x32A055, 0x32DC00, 0x32E055, 0x32EA00,
    0x330055, 0x335800, 0x336055, 0x339400, 0x33A096, 0x33B4B2, 0x33B600, 0x33BD60, 0x340055,
    0x342E64, 0x343274, 0x343664, 0x343800, 0x343D20, 0x344055, 0x34AA74, 0x34AC64, 0x34AE74,
    0x34B064, 0x34BE00, 0x34C064, 0x34C274, 0x34C464, 0x34C674, 0x34CA64, 0x34DA74, 0x34E664,
    0x34FA00, 0x34FE64, 0x350096, 0x351400, 0x352096, 0x353400, 0x354120, 0x354E45, 0x355120,
    0x355C00, 0x356064, 0x357C84, 0x357E64, 0x359E00, 0x360064, 0x360874, 0x360A55, 0x366864,
    0x366A74, 0x366C64, 0x367674, 0x367864, 0x367A74, 0x368464, 0x368674, 0x368A55, 0x369A00,
    0x369D20, 0x36A096, 0x36B520, 0x36C360, 0x36D664, 0x36E960, 0x36FB20, 0x370064, 0x370474,
    0x370655, 0x374274, 0x374464, 0x374C74, 0x375064, 0x375474, 0x375664, 0x375C55, 0x376096,
    0x377455, 0x37CC64, 0x37CE74, 0x37D064, 0x37D474, 0x37DA64, 0x37DC74, 0x37DE64, 0x37E474,
    0x37E800, 0x37F920, 0x380055, 0x384874, 0x385864, 0x386874, 0x386C64, 0x387000, 0x387720,
    0x388096, 0x389400, 0x389A55, 0x38A096, 0x38B455, 0x38F045, 0x38FD20, 0x390025, 0x391215,
    0x391425, 0x391600, 0x392015, 0x397600, 0x397A15, 0x398120, 0x399000, 0x39A064, 0x39A720,
    0x39A864, 0x39C274, 0x39C464, 0x39D255, 0x39DA64, 0x39DC55, 0x39E864, 0x39EA55, 0x39EE74,
    0x39F064, 0x39F455, 0x39F600, 0x3A0025, 0x3A5845, 0x3AD625, 0x3AF045, 0x3AF225, 0x3B3645,
    0x3B8064, 0x3C0015, 0x3C0225, 0x3C0415, 0x3C0625, 0x3C0815, 0x3C0A25, 0x3C0C15, 0x3C0E25,
    0x3C1015, 0x3C1225, 0x3C1415, 0x3C1625, 0x3C1815, 0x3C1A25, 0x3C1C15, 0x3C1E25, 0x3C2015,
    0x3C2225, 0x3C2415, 0x3C2625, 0x3C2815, 0x3C2A25, 0x3C2C15, 0x3C2E25, 0x3C3015, 0x3C3225,
    0x3C3415, 0x3C3625, 0x3C3815, 0x3C3A25, 0x3C3C15, 0x3C3E25, 0x3C4015, 0x3C4225, 0x3C4415,
    0x3C4625, 0x3C4815, 0x3C4A25, 0x3C4C15, 0x3C4E25, 0x3C5015, 0x3C5225, 0x3C5415, 0x3C5625,
    0x3C5815, 0x3C5A25, 0x3C5C15, 0x3C5E25, 0x3C6015, 0x3C6225, 0x3C6415, 0x3C6625, 0x3C6815,
    0x3C6A25, 0x3C6C15, 0x3C6E25, 0x3C7015, 0x3C7225, 0x3C7415, 0x3C7625, 0x3C7815, 0x3C7A25,
    0x3C7C15, 0x3C7E25, 0x3C8015, 0x3C8225, 0x3C8415, 0x3C8625, 0x3C8815, 0x3C8A25, 0x3C8C15,
    0x3C8E25, 0x3C9015, 0x3C9225, 0x3C9415, 0x3C9625, 0x3C9815, 0x3C9A25, 0x3C9C15, 0x3C9E25,
    0x3CA015, 0x3CA225, 0x3CA415, 0x3CA625, 0x3CA815, 0x3CAA25, 0x3CAC15, 0x3CAE25, 0x3CB015,
    0x3CB225, 0x3CB415, 0x3CB625, 0x3CB815, 0x3CBA25, 0x3CBC15, 0x3CBE25, 0x3CC015, 0x3CC225,
    0x3CC415, 0x3CC625, 0x3CC815, 0x3CCA25, 0x3CCC15, 0x3CCE25, 0x3CD015, 0x3CD225, 0x3CD415,
    0x3CD625, 0x3CD815, 0x3CDA25, 0x3CDC15, 0x3CDE25, 0x3CE015, 0x3CE225, 0x3CE415, 0x3CE625,
    0x3CE815, 0x3CEA25, 0x3CEC15, 0x3CEE25, 0x3CF015, 0x3CF225, 0x3CF415, 0x3CF625, 0x3CF815,
    0x3CFA25, 0x3CFC15, 0x3CFE25, 0x3D0015, 0x3D0225, 0x3D0415, 0x3D0625, 0x3D0815, 0x3D0A25,
    0x3D0C15, 0x3D0E25, 0x3D1015, 0x3D1225, 0x3D1415, 0x3D1625, 0x3D1815, 0x3D1A25, 0x3D1C15,
    0x3D1E25, 0x3D2015, 0x3D2225, 0x3D2415, 0x3D2625, 0x3D2815, 0x3D2A25, 0x3D3C15, 0x3D3E25,
    0x3D4015, 0x3D4225, 0x3D4415, 0x3D4625, 0x3D4815, 0x3D4A25, 0x3D4C15, 0x3D4E25, 0x3D5015,
    0x3D5225, 0x3D5415, 0x3D5625, 0x3D5815, 0x3D5A25, 0x3D5C15, 0x3D5E25, 0x3D6015, 0x3D6225,
    0x3D6415, 0x3D6625, 0x3D6815, 0x3D6A25, 0x3D6C15, 0x3D6E25, 0x3D7015, 0x3D7225, 0x3D7415,
    0x3D7625, 0x3D7815, 0x3D7A25, 0x3D7C15, 0x3D7E25, 0x3D8015, 0x3D8225, 0x3D8415, 0x3D8625,
    0x3D8815, 0x3D8A25, 0x3D8C15, 0x3D8E25, 0x3D9015, 0x3D9225, 0x3D9415, 0x3D9625, 0x3D9815,
    0x3D9A25, 0x3D9C15, 0x3D9E25, 0x3DA015, 0x3DA225, 0x3DA415, 0x3DA625, 0x3DA815, 0x3DAA25,
    0x3DAC15, 0x3DAE25, 0x3DB015, 0x3DB225, 0x3DB415, 0x3DB625, 0x3DB815, 0x3DBA25, 0x3DBC15,
    0x3DBE25, 0x3DC015, 0x3DC225, 0x3DC415, 0x3DC625, 0x3DC815, 0x3DCA25, 0x3DCC15, 0x3DCE25,
    0x3DD015, 0x3DD225, 0x3DD415, 0x3DD625, 0x3DD815, 0x3DDA25, 0x3DDC15, 0x3DDE25, 0x3DE015,
    0x3DE225, 0x3DE415, 0x3DE625, 0x3DE815, 0x3DEA25, 0x3DEC15, 0x3DEE25, 0x3DF015, 0x3DF225,
    0x3DF415, 0x3DF625, 0x3DF815, 0x3DFA25, 0x3DFC15, 0x3DFE25, 0x3E1015, 0x3E2025, 0x3E2C00,
    0x3E3015, 0x3E3C00, 0x3E4025, 0x3E5015, 0x3E6025, 0x3E7015, 0x3E8025, 0x3E8C00, 0x3E9015,
    0x3E9C00, 0x3EA025, 0x3EB000, 0x3EB215, 0x3EB400, 0x3EB615, 0x3EB800, 0x3EBA15, 0x3EBC00,
    0x3EBE15, 0x3EC025, 0x3ED015, 0x3EE025, 0x3EFC00, 0x3F0025, 0x3F1035, 0x3F2025, 0x3F3035,
    0x3F4025, 0x3F5035, 0x3F6025, 0x3F6A00, 0x3F6C25, 0x3F7015, 0x3F7835, 0x3F7B50, 0x3F7C25,
    0x3F7F50, 0x3F8425, 0x3F8A00, 0x3F8C25, 0x3F9015, 0x3F9835, 0x3F9B50, 0x3FA025, 0x3FA800,
    0x3FAC25, 0x3FB015, 0x3FB800, 0x3FBB50, 0x3FC025, 0x3FD015, 0x3FDB50, 0x3FE000, 0x3FE425,
    0x3FEA00, 0x3FEC25, 0x3FF015, 0x3FF835, 0x3FFB50, 0x3FFE00, 0x400178, 0x4017B0, 0x4019B4,
    0x401DB0, 0x4020D0, 0x402D20, 0x403100, 0x403310, 0x4034E0, 0x403700, 0x403B10, 0x403CE0,
    0x403F00, 0x404120, 0x405188, 0x405398, 0x4055B0, 0x405F78, 0x406120, 0x407300, 0x407510,
    0x407720, 0x407EC4, 0x408320, 0x408930, 0x408AE0, 0x408CF0, 0x408F20, 0x40A530, 0x40A720,
    0x40A8C4, 0x40AB20, 0x40BF78, 0x40C1B0, 0x40CA00, 0x40CDB0, 0x40E0B2, 0x40E245, 0x40E400,
    0x40E8B2, 0x40F530, 0x40FAE0, 0x40FCF0, 0x40FE45, 0x4100B2, 0x411530, 0x411AE0, 0x411CF0,
    0x411E00, 0x412045, 0x413A00, 0x414140, 0x418200, 0x41A064, 0x41BA84, 0x41C264, 0x41C484,
    0x41CA64, 0x41E200, 0x420160, 0x420415, 0x420760, 0x420E15, 0x421160, 0x421425, 0x421615,
    0x421C25, 0x422015, 0x422625, 0x422960, 0x422A15, 0x422D60, 0x423130, 0x423215, 0x423D60,
    0x424815, 0x424B60, 0x424C15, 0x424F60, 0x425015, 0x425360, 0x425415, 0x425D60, 0x425E25,
    0x426015, 0x426825, 0x426A55, 0x427225, 0x427560, 0x427825, 0x427C15, 0x428130, 0x428A15,
    0x428C25, 0x429560, 0x429730, 0x429960, 0x429C25, 0x429F60, 0x42A0B2, 0x42C0A6, 0x430615,
    0x430825, 0x430AA6, 0x4312B2, 0x431560, 0x431800, 0x432130, 0x432B60, 0x433530, 0x433960,
    0x434130, 0x434360, 0x434730, 0x434960, 0x434D30, 0x434F60, 0x435D30, 0x435F60, 0x439D30,
    0x43A160, 0x43A530, 0x43A760, 0x43A930, 0x43AB60, 0x43E930, 0x460160, 0x4610E0, 0x4612F0,
    0x4614E0, 0x4616F0, 0x461960, 0x464130, 0x464560, 0x4652E0, 0x4654F0, 0x465760, 0x46F930,
    0x46FB60, 0x473730, 0x476960, 0x47B930, 0x47C560, 0x485400, 0x488160, 0x489600, 0x48C0B2,
    0x493960, 0x496D64, 0x49D4B2, 0x4A0160, 0x4B6F30, 0x4B7160, 0x4B8330, 0x4B8560, 0x4BF130,
    0x4C0160, 0x4CDF30, 0x4CE160, 0x4ED0E0, 0x4ED2F0, 0x4ED4E0, 0x4ED6F0, 0x4ED8E0, 0x4EDAF0,
    0x4EDCE0, 0x4EDEF0, 0x4EE0E0, 0x4EE2F0, 0x4EE4E0, 0x4EE6F0, 0x4EE8E0, 0x4EEAF0, 0x4EECB2,
    0x4F2960, 0x4F8130, 0x4F8AE0, 0x4F8CF0, 0x4F8F30, 0x4FCCE0, 0x4FCEF0, 0x4FD0E0, 0x4FD2F0,
    0x4FD4E0, 0x4FD6F0, 0x4FD8E0, 0x4FDAF0, 0x4FDCE0, 0x4FDEF0, 0x4FE130, 0x500160, 0x520130,
    0x5306E0, 0x5308F0, 0x530AE0, 0x530CF0, 0x530EE0, 0x5310F0, 0x5312E0, 0x5314F0, 0x5316E0,
    0x5318F0, 0x531AE0, 0x531CF0, 0x531EE0, 0x5320F0, 0x5322E0, 0x5324F0, 0x5326E0, 0x5328F0,
    0x532AE0, 0x532CF0, 0x532EE0, 0x5330F0, 0x533330, 0x53B0E0, 0x53B2F0, 0x53B4E0, 0x53B6F0,
    0x53B930, 0x53F8E0, 0x53FAF0, 0x53FD30, 0x560160, 0x566130, 0x568B60, 0x568F30, 0x569B60,
    0x56E800, 0x56ED60, 0x572C00, 0x572F60, 0x580015, 0x586025, 0x58C015, 0x58C225, 0x58C415,
    0x58CA25, 0x58CE15, 0x58D025, 0x58D215, 0x58D425, 0x58D615, 0x58D825, 0x58DA15, 0x58E225,
    0x58E415, 0x58E625, 0x58EA15, 0x58EC25, 0x58F845, 0x58FC15, 0x590225, 0x590415, 0x590625,
    0x590815, 0x590A25, 0x590C15, 0x590E25, 0x591015, 0x591225, 0x591415, 0x591625, 0x591815,
    0x591A25, 0x591C15, 0x591E25, 0x592015, 0x592225, 0x592415, 0x592625, 0x592815, 0x592A25,
    0x592C15, 0x592E25, 0x593015, 0x593225, 0x593415, 0x593625, 0x593815, 0x593A25, 0x593C15,
    0x593E25, 0x594015, 0x594225, 0x594415, 0x594625, 0x594815, 0x594A25, 0x594C15, 0x594E25,
    0x595015, 0x595225, 0x595415, 0x595625, 0x595815, 0x595A25, 0x595C15, 0x595E25, 0x596015,
    0x596225, 0x596415, 0x596625, 0x596815, 0x596A25, 0x596C15, 0x596E25, 0x597015, 0x597225,
    0x597415, 0x597625, 0x597815, 0x597A25, 0x597C15, 0x597E25, 0x598015, 0x598225, 0x598415,
    0x598625, 0x598815, 0x598A25, 0x598C15, 0x598E25, 0x599015, 0x599225, 0x599415, 0x599625,
    0x599815, 0x599A25, 0x599C15, 0x599E25, 0x59A015, 0x59A225, 0x59A415, 0x59A625, 0x59A815,
    0x59AA25, 0x59AC15, 0x59AE25, 0x59B015, 0x59B225, 0x59B415, 0x59B625, 0x59B815, 0x59BA25,
    0x59BC15, 0x59BE25, 0x59C015, 0x59C225, 0x59C415, 0x59C625, 0x59CB60, 0x59D615, 0x59D825,
    0x59DA15, 0x59DC25, 0x59DE64, 0x59E415, 0x59E625, 0x59E800, 0x59F320, 0x59FAB2, 0x59FD20,
    0x5A0025, 0x5A4C00, 0x5A4E25, 0x5A5000, 0x5A5A25, 0x5A5C00, 0x5A6055, 0x5AD000, 0x5ADE45,
    0x5AE120, 0x5AE200, 0x5AFE64, 0x5B0055, 0x5B2E00, 0x5B4055, 0x5B4E00, 0x5B5055, 0x5B5E00,
    0x5B6055, 0x5B6E00, 0x5B7055, 0x5B7E00, 0x5B8055, 0x5B8E00, 0x5B9055, 0x5B9E00, 0x5BA055,
    0x5BAE00, 0x5BB055, 0x5BBE00, 0x5BC064, 0x5C0120, 0x5C0500, 0x5C0710, 0x5C0900, 0x5C0B10,
    0x5C0D20, 0x5C1300, 0x5C1510, 0x5C1720, 0x5C1900, 0x5C1B10, 0x5C1D20, 0x5C2ED0, 0x5C3120,
    0x5C34D0, 0x5C3720, 0x5C3900, 0x5C3B10, 0x5C3D20, 0x5C4100, 0x5C4310, 0x5C44E0, 0x5C46F0,
    0x5C48E0, 0x5C4AF0, 0x5C4CE0, 0x5C4EF0, 0x5C50E0, 0x5C52F0, 0x5C5520, 0x5C5E45, 0x5C6120,
    0x5C74D0, 0x5C7920, 0x5C80D0, 0x5C8320, 0x5C84E0, 0x5C8720, 0x5CA160, 0x5CA520, 0x5CAAE0,
    0x5CACF0, 0x5CAEE0, 0x5CB0F0, 0x5CB2E0, 0x5CB4F0, 0x5CB6E0, 0x5CB8F0, 0x5CBAD0, 0x5CBC00,
    0x5D0160, 0x5D3400, 0x5D3760, 0x5DE800, 0x5E0160, 0x5FAC00, 0x5FE160, 0x600178, 0x600320,
    0x600960, 0x600A45, 0x600C55, 0x600EA6, 0x6010E0, 0x6012F0, 0x6014E0, 0x6016F0, 0x6018E0,
    0x601AF0, 0x601CE0, 0x601EF0, 0x6020E0, 0x6022F0, 0x602560, 0x6028E0, 0x602AF0, 0x602CE0,
    0x602EF0, 0x6030E0, 0x6032F0, 0x6034E0, 0x6036F0, 0x6038D0, 0x603AE0, 0x603CF0, 0x604160,
    0x6042A6, 0x605464, 0x605C74, 0x6060D0, 0x606245, 0x606D60, 0x6070A6, 0x607645, 0x607855,
    0x607B20, 0x607D60, 0x608000, 0x608255, 0x612E00, 0x613264, 0x613750, 0x613A45, 0x613E55,
    0x6140D0, 0x614255, 0x61F720, 0x61F845, 0x61FE55, 0x620000, 0x620A55, 0x626000, 0x626255,
    0x631E00, 0x632160, 0x6324B2, 0x632D60, 0x634055, 0x638160, 0x63CC00, 0x63DF60, 0x63E055,
    0x640160, 0x643E00, 0x6440B2, 0x645560, 0x6490B2, 0x64A160, 0x64A2B2, 0x64C160, 0x6500B2,
    0x651560, 0x6562B2, 0x658160, 0x680055, 0x9B8160, 0x9C0055, 0x1402A45, 0x1402C55, 0x1491A00,
    0x1492160, 0x1498E00, 0x149A055, 0x149F045, 0x149FD20, 0x14A0055, 0x14C1845, 0x14C1B20,
    0x14C2055, 0x14C4096, 0x14C5455, 0x14C5800, 0x14C8015, 0x14C8225, 0x14C8415, 0x14C8625,
    0x14C8815, 0x14C8A25, 0x14C8C15, 0x14C8E25, 0x14C9015, 0x14C9225, 0x14C9415, 0x14C9625,
    0x14C9815, 0x14C9A25, 0x14C9C15, 0x14C9E25, 0x14CA015, 0x14CA225, 0x14CA415, 0x14CA625,
    0x14CA815, 0x14CAA25, 0x14CAC15, 0x14CAE25, 0x14CB015, 0x14CB225, 0x14CB415, 0x14CB625,
    0x14CB815, 0x14CBA25, 0x14CBC15, 0x14CBE25, 0x14CC015, 0x14CC225, 0x14CC415, 0x14CC625,
    0x14CC815, 0x14CCA25, 0x14CCC15, 0x14CCE25, 0x14CD015, 0x14CD225, 0x14CD415, 0x14CD625,
    0x14CD815, 0x14CDA25, 0x14CDC55, 0x14CDE64, 0x14CE084, 0x14CE720, 0x14CE864, 0x14CFD20,
    0x14CFE45, 0x14D0015, 0x14D0225, 0x14D0415, 0x14D0625, 0x14D0815, 0x14D0A25, 0x14D0C15,
    0x14D0E25, 0x14D1015, 0x14D1225, 0x14D1415, 0x14D1625, 0x14D1815, 0x14D1A25, 0x14D1C15,
    0x14D1E25, 0x14D2015, 0x14D2225, 0x14D2415, 0x14D2625, 0x14D2815, 0x14D2A25, 0x14D2C15,
    0x14D2E25, 0x14D3015, 0x14D3225, 0x14D3415, 0x14D3625, 0x14D3845, 0x14D3C64, 0x14D4055,
    0x14DCCA6, 0x14DE064, 0x14DE520, 0x14DF000, 0x14E0150, 0x14E2E45, 0x14E4150, 0x14E4415,
    0x14E4625, 0x14E4815, 0x14E4A25, 0x14E4C15, 0x14E4E25, 0x14E5015, 0x14E5225, 0x14E5415,
    0x14E5625, 0x14E5815, 0x14E5A25, 0x14E5C15, 0x14E5E25, 0x14E6415, 0x14E6625, 0x14E6815,
    0x14E6A25, 0x14E6C15, 0x14E6E25, 0x14E7015, 0x14E7225, 0x14E7415, 0x14E7625, 0x14E7815,
    0x14E7A25, 0x14E7C15, 0x14E7E25, 0x14E8015, 0x14E8225, 0x14E8415, 0x14E8625, 0x14E8815,
    0x14E8A25, 0x14E8C15, 0x14E8E25, 0x14E9015, 0x14E9225, 0x14E9415, 0x14E9625, 0x14E9815,
    0x14E9A25, 0x14E9C15, 0x14E9E25, 0x14EA015, 0x14EA225, 0x14EA415, 0x14EA625, 0x14EA815,
    0x14EAA25, 0x14EAC15, 0x14EAE25, 0x14EB015, 0x14EB225, 0x14EB415, 0x14EB625, 0x14EB815,
    0x14EBA25, 0x14EBC15, 0x14EBE25, 0x14EC015, 0x14EC225, 0x14EC415, 0x14EC625, 0x14EC815,
    0x14ECA25, 0x14ECC15, 0x14ECE25, 0x14ED015, 0x14ED225, 0x14ED415, 0x14ED625, 0x14ED815,
    0x14EDA25, 0x14EDC15, 0x14EDE25, 0x14EE045, 0x14EE225, 0x14EF215, 0x14EF425, 0x14EF615,
    0x14EF825, 0x14EFA15, 0x14EFE25, 0x14F0015, 0x14F0225, 0x14F0415, 0x14F0625, 0x14F0815,
    0x14F0A25, 0x14F0C15, 0x14F0E25, 0x14F1045, 0x14F1350, 0x14F1615, 0x14F1825, 0x14F1A15,
    0x14F1C25, 0x14F1E55, 0x14F2015, 0x14F2225, 0x14F2415, 0x14F2625, 0x14F2C15, 0x14F2E25,
    0x14F3015, 0x14F3225, 0x14F3415, 0x14F3625, 0x14F3815, 0x14F3A25, 0x14F3C15, 0x14F3E25,
    0x14F4015, 0x14F4225, 0x14F4415, 0x14F4625, 0x14F4815, 0x14F4A25, 0x14F4C15, 0x14F4E25,
    0x14F5015, 0x14F5225, 0x14F5415, 0x14F5E25, 0x14F6015, 0x14F6A25, 0x14F6C15, 0x14F6E25,
    0x14F7015, 0x14F7225, 0x14F7415, 0x14F7625, 0x14F7815, 0x14F7A25, 0x14F7C15, 0x14F7E25,
    0x14F8015, 0x14F8225, 0x14F8415, 0x14F8625, 0x14F8815, 0x14F9025, 0x14F9215, 0x14F9425,
    0x14F9615, 0x14F9A25, 0x14F9C00, 0x14FA015, 0x14FA225, 0x14FA400, 0x14FA625, 0x14FA800,
    0x14FAA25, 0x14FAC15, 0x14FAE25, 0x14FB015, 0x14FB225, 0x14FB415, 0x14FB625, 0x14FB815,
    0x14FBA00, 0x14FE445, 0x14FEA15, 0x14FEC25, 0x14FEE55, 0x14FF045, 0x14FF425, 0x14FF655,
    0x1500464, 0x1500655, 0x1500C64, 0x1500E55, 0x1501664, 0x1501855, 0x1504674, 0x1504A64,
    0x1504E74, 0x1505160, 0x1505864, 0x1505A00, 0x15060B2, 0x1506D60, 0x1507140, 0x1507360,
    0x1507400, 0x1508055, 0x150E920, 0x150F000, 0x1510074, 0x1510455, 0x1516874, 0x1518864,
    0x1518C00, 0x1519D20, 0x151A096, 0x151B400, 0x151C064, 0x151E455, 0x151F120, 0x151F655,
    0x151F920, 0x151FA55, 0x151FE64, 0x1520096, 0x1521455, 0x1524C64, 0x1525D20, 0x1526055,
    0x1528E64, 0x152A474, 0x152A800, 0x152BF20, 0x152C055, 0x152FA00, 0x1530064, 0x1530674,
    0x1530855, 0x1536664, 0x1536874, 0x1536C64, 0x1537474, 0x1537864, 0x1537C74, 0x1538320,
    0x1539C00, 0x1539E45, 0x153A096, 0x153B400, 0x153BD20, 0x153C055, 0x153CA64, 0x153CC45,
    0x153CE55, 0x153E096, 0x153F455, 0x153FE00, 0x1540055, 0x1545264, 0x1545E74, 0x1546264,
    0x1546674, 0x1546A64, 0x1546E00, 0x1548055, 0x1548664, 0x1548855, 0x1549864, 0x1549A74,
    0x1549C00, 0x154A096, 0x154B400, 0x154B920, 0x154C055, 0x154E045, 0x154E255, 0x154EF60,
    0x154F455, 0x154F674, 0x154F864, 0x154FA74, 0x154FC55, 0x1556064, 0x1556255, 0x1556464,
    0x1556A55, 0x1556E64, 0x1557255, 0x1557C64, 0x1558055, 0x1558264, 0x1558455, 0x1558600,
    0x155B655, 0x155BA45, 0x155BD20, 0x155C055, 0x155D674, 0x155D864, 0x155DC74, 0x155E120,
    0x155E455, 0x155E645, 0x155EA74, 0x155EC64, 0x155EE00, 0x1560255, 0x1560E00, 0x1561255,
    0x1561E00, 0x1562255, 0x1562E00, 0x1564055, 0x1564E00, 0x1565055, 0x1565E00, 0x1566025,
    0x156B750, 0x156B845, 0x156C025, 0x156D245, 0x156D550, 0x156D800, 0x156E025, 0x1578055,
    0x157C674, 0x157CA64, 0x157CC74, 0x157D064, 0x157D274, 0x157D720, 0x157D874, 0x157DA64,
    0x157DC00, 0x157E096, 0x157F400, 0x1580055, 0x1AF4800, 0x1AF6055, 0x1AF8E00, 0x1AF9655,
    0x1AFF800, 0x1B001C0, 0x1C001D0, 0x1F20055, 0x1F4DC00, 0x1F4E055, 0x1F5B400, 0x1F60025,
    0x1F60E00, 0x1F62625, 0x1F63000, 0x1F63A55, 0x1F63C64, 0x1F63E55, 0x1F65330, 0x1F65455,
    0x1F66E00, 0x1F67055, 0x1F67A00, 0x1F67C55, 0x1F67E00, 0x1F68055, 0x1F68400, 0x1F68655,
    0x1F68A00, 0x1F68C55, 0x1F76550, 0x1F78600, 0x1F7A655, 0x1FA7CF0, 0x1FA7EE0, 0x1FA8160,
    0x1FAA055, 0x1FB2000, 0x1FB2455, 0x1FB9000, 0x1FB9F60, 0x1FBA000, 0x1FBE055, 0x1FBF940,
    0x1FBFB60, 0x1FC0064, 0x1FC2120, 0x1FC2EE0, 0x1FC30F0, 0x1FC3320, 0x1FC3400, 0x1FC4064,
    0x1FC6120, 0x1FC62D0, 0x1FC66C4, 0x1FC6AE0, 0x1FC6CF0, 0x1FC6EE0, 0x1FC70F0, 0x1FC72E0,
    0x1FC74F0, 0x1FC76E0, 0x1FC78F0, 0x1FC7AE0, 0x1FC7CF0, 0x1FC7EE0, 0x1FC80F0, 0x1FC82E0,
    0x1FC84F0, 0x1FC86E0, 0x1FC88F0, 0x1FC8B20, 0x1FC8EE0, 0x1FC90F0, 0x1FC9320, 0x1FC9AC4,
    0x1FCA120, 0x1FCA600, 0x1FCA920, 0x1FCB0D0, 0x1FCB2E0, 0x1FCB4F0, 0x1FCB6E0, 0x1FCB8F0,
    0x1FCBAE0, 0x1FCBCF0, 0x1FCBF20, 0x1FCC530, 0x1FCC6D0, 0x1FCC930, 0x1FCCE00, 0x1FCD120,
    0x1FCD340, 0x1FCD520, 0x1FCD800, 0x1FCE055, 0x1FCEA00, 0x1FCEC55, 0x1FDFA00, 0x1FDFFB0,
    0x1FE0000, 0x1FE0320, 0x1FE0940, 0x1FE0B20, 0x1FE10E0, 0x1FE12F0, 0x1FE1520, 0x1FE1730,
    0x1FE1920, 0x1FE1AD0, 0x1FE1D20, 0x1FE2096, 0x1FE3520, 0x1FE3930, 0x1FE3F20, 0x1FE4215,
    0x1FE76E0, 0x1FE7920, 0x1FE7AF0, 0x1FE7D50, 0x1FE7EC4, 0x1FE8150, 0x1FE8225, 0x1FEB6E0,
    0x1FEB930, 0x1FEBAF0, 0x1FEBD30, 0x1FEBEE0, 0x1FEC0F0, 0x1FEC320, 0x1FEC4E0, 0x1FEC6F0,
    0x1FEC920, 0x1FECC55, 0x1FEE045, 0x1FEE255, 0x1FF3C45, 0x1FF4055, 0x1FF7E00, 0x1FF8455,
    0x1FF9000, 0x1FF9455, 0x1FFA000, 0x1FFA455, 0x1FFB000, 0x1FFB455, 0x1FFBA00, 0x1FFC140,
    0x1FFC530, 0x1FFC750, 0x1FFC960, 0x1FFCB40, 0x1FFCE00, 0x1FFD160, 0x1FFD330, 0x1FFDB60,
    0x1FFDE00, 0x1FFF3B0, 0x1FFF960, 0x1FFFC00, 0x2000055, 0x2001800, 0x2001A55, 0x2004E00,
    0x2005055, 0x2007600, 0x2007855, 0x2007C00, 0x2007E55, 0x2009C00, 0x200A055, 0x200BC00,
    0x2010055, 0x201F600, 0x2020120, 0x2020600, 0x2020EB2, 0x2026800, 0x2026F60, 0x20280A6,
    0x202EAB2, 0x202F360, 0x20314B2, 0x2031960, 0x2031E00, 0x2032160, 0x2033A00, 0x2034160,
    0x2034200, 0x203A160, 0x203FA64, 0x203FC00, 0x2050055, 0x2053A00, 0x2054055, 0x205A200,
    0x205C064, 0x205C2B2, 0x205F800, 0x2060055, 0x20640B2, 0x2064800, 0x2065A55, 0x20682A6,
    0x2068455, 0x20694A6, 0x2069600, 0x206A055, 0x206EC64, 0x206F600, 0x2070055, 0x2073C00,
    0x2073F20, 0x2074055, 0x2078800, 0x2079055, 0x207A120, 0x207A2A6, 0x207AC00, 0x2080015,
    0x2085025, 0x208A055, 0x2093C00, 0x2094096, 0x2095400, 0x2096015, 0x209A800, 0x209B025,
    0x209F800, 0x20A0055, 0x20A5000, 0x20A6055, 0x20AC800, 0x20ADF20, 0x20AE015, 0x20AF600,
    0x20AF815, 0x20B1600, 0x20B1815, 0x20B2600, 0x20B2815, 0x20B2C00, 0x20B2E25, 0x20B4400,
    0x20B4625, 0x20B6400, 0x20B6625, 0x20B7400, 0x20B7625, 0x20B7A00, 0x20B8055, 0x20BE800,
    0x20C0055, 0x20E6E00, 0x20E8055, 0x20EAC00, 0x20EC055, 0x20ED000, 0x20F0045, 0x20F0C00,
    0x20F0E45, 0x20F6200, 0x20F6445, 0x20F7600, 0x2100055, 0x2100C00, 0x2101055, 0x2101200,
    0x2101455, 0x2106C00, 0x2106E55, 0x2107200, 0x2107855, 0x2107A00, 0x2107E55, 0x210AC00,
    0x210AF20, 0x210B0B2, 0x210C055, 0x210EF60, 0x210F2B2, 0x2110055, 0x2113E00, 0x2114EB2,
    0x2116000, 0x211C055, 0x211E600, 0x211E855, 0x211EC00, 0x211F6B2, 0x2120055, 0x2122CB2,
    0x2123800, 0x2123F20, 0x2124055, 0x2127400, 0x2127F20, 0x2128000, 0x2130055, 0x2137000,
    0x21378B2, 0x2137C55, 0x21380B2, 0x213A000, 0x213A4B2, 0x2140055, 0x2140264, 0x2140800,
    0x2140A64, 0x2140E00, 0x2141864, 0x2142055, 0x2142800, 0x2142A55, 0x2143000, 0x2143255,
    0x2146C00, 0x2147064, 0x2147600, 0x2147E64, 0x21480B2, 0x2149200, 0x214A120, 0x214B200,
    0x214C055, 0x214FAB2, 0x214FF20, 0x2150055, 0x2153AB2, 0x2154000, 0x2158055, 0x2159160,
    0x2159255, 0x215CA64, 0x215CE00, 0x215D6B2, 0x215E120, 0x215EE00, 0x2160055, 0x2166C00,
    0x2167320, 0x2168055, 0x216AC00, 0x216B0B2, 0x216C055, 0x216E600, 0x216F0B2, 0x2170055,
    0x2172400, 0x2173320, 0x2173A00, 0x21752B2, 0x2176000, 0x2180055, 0x2189200, 0x2190015,
    0x2196600, 0x2198025, 0x219E600, 0x219F4B2, 0x21A0055, 0x21A4864, 0x21A5000, 0x21A6096,
    0x21A7400, 0x21A8096, 0x21A9455, 0x21A9C45, 0x21A9E55, 0x21AA015, 0x21ACC00, 0x21AD264,
    0x21ADCD0, 0x21ADE45, 0x21AE025, 0x21B0C00, 0x21B1D30, 0x21B2000, 0x21CC0B2, 0x21CFE00,
    0x21D0055, 0x21D5400, 0x21D5664, 0x21D5AD0, 0x21D5C00, 0x21D6055, 0x21D6400, 0x21D8455,
    0x21D8A00, 0x21DF864, 0x21E0055, 0x21E3AB2, 0x21E4E55, 0x21E5000, 0x21E6055, 0x21E8C64,
    0x21EA2B2, 0x21EAB20, 0x21EB400, 0x21EE055, 0x21F0464, 0x21F0D20, 0x21F1400, 0x21F6055,
    0x21F8AB2, 0x21F9800, 0x21FC055, 0x21FEE00, 0x2200074, 0x2200264, 0x2200474, 0x2200655,
    0x2207064, 0x2208F20, 0x2209C00, 0x220A4B2, 0x220CC96, 0x220E064, 0x220E255, 0x220E664,
    0x220EA55, 0x220EC00, 0x220FE64, 0x2210474, 0x2210655, 0x2216074, 0x2216664, 0x2216E74,
    0x2217264, 0x2217720, 0x2217BB0, 0x2217D20, 0x2218464, 0x2218600, 0x2219BB0, 0x2219C00,
    0x221A055, 0x221D200, 0x221E096, 0x221F400, 0x2220064, 0x2220655, 0x2224E64, 0x2225874,
    0x2225A64, 0x2226A00, 0x2226C96, 0x2228120, 0x2228855, 0x2228A74, 0x2228E55, 0x2229000,
    0x222A055, 0x222E664, 0x222E920, 0x222EC55, 0x222EE00, 0x2230064, 0x2230474, 0x2230655,
    0x2236674, 0x2236C64, 0x2237E74, 0x2238255, 0x2238B20, 0x2239264, 0x2239B20, 0x2239C74,
    0x2239E64, 0x223A096, 0x223B455, 0x223B720, 0x223B855, 0x223BB20, 0x223C000, 0x223C2B2,
    0x223EA00, 0x2240055, 0x2242400, 0x2242655, 0x2245874, 0x2245E64, 0x2246474, 0x2246864,
    0x2246A74, 0x2246C64, 0x2247120, 0x2247C64, 0x2247E55, 0x2248264, 0x2248400, 0x2250055,
    0x2250E00, 0x2251055, 0x2251200, 0x2251455, 0x2251C00, 0x2251E55, 0x2253C00, 0x2253E55,
    0x2255320, 0x2255400, 0x2256055, 0x225BE64, 0x225C074, 0x225C664, 0x225D600, 0x225E096,
    0x225F400, 0x2260064, 0x2260474, 0x2260800, 0x2260A55, 0x2261A00, 0x2261E55, 0x2262200,
    0x2262655, 0x2265200, 0x2265455, 0x2266200, 0x2266455, 0x2266800, 0x2266A55, 0x2267400,
    0x2267664, 0x2267A55, 0x2267C74, 0x2268064, 0x2268274, 0x2268A00, 0x2268E74, 0x2269200,
    0x2269674, 0x2269C00, 0x226A055, 0x226A200, 0x226AE74, 0x226B000, 0x226BA55, 0x226C474,
    0x226C800, 0x226CC64, 0x226DA00, 0x226E064, 0x226EA00, 0x2270055, 0x2271400, 0x2271655,
    0x2271800, 0x2271C55, 0x2271E00, 0x2272055, 0x2276C00, 0x2276E55, 0x2277074, 0x2277664,
    0x2278200, 0x2278474, 0x2278600, 0x2278A74, 0x2278C00, 0x2278E74, 0x2279600, 0x2279874,
    0x2279C64, 0x2279E74, 0x227A064, 0x227A255, 0x227A464, 0x227A655, 0x227A920, 0x227AC00,
    0x227AF20, 0x227B200, 0x227C264, 0x227C600, 0x2280055, 0x2286A74, 0x2287064, 0x2288074,
    0x2288464, 0x2288A74, 0x2288C64, 0x2288E55, 0x2289720, 0x228A096, 0x228B520, 0x228B800,
    0x228BB20, 0x228BC64, 0x228BE55, 0x228C400, 0x2290055, 0x2296074, 0x2296664, 0x2297274,
    0x2297464, 0x2297674, 0x2297E64, 0x2298274, 0x2298464, 0x2298855, 0x2298D20, 0x2298E55,
    0x2299000, 0x229A096, 0x229B400, 0x22B0055, 0x22B5E74, 0x22B6464, 0x22B6C00, 0x22B7074,
    0x22B7864, 0x22B7C74, 0x22B7E64, 0x22B8320, 0x22BB055, 0x22BB864, 0x22BBC00, 0x22C0055,
    0x22C6074, 0x22C6664, 0x22C7674, 0x22C7A64, 0x22C7C74, 0x22C7E64, 0x22C8320, 0x22C8855,
    0x22C8A00, 0x22CA096, 0x22CB400, 0x22CC120, 0x22CDA00, 0x22D0055, 0x22D5664, 0x22D5874,
    0x22D5A64, 0x22D5C74, 0x22D6064, 0x22D6C74, 0x22D6E64, 0x22D7055, 0x22D7320, 0x22D7400,
    0x22D8096, 0x22D9400, 0x22DA096, 0x22DC800, 0x22E0055, 0x22E3600, 0x22E3A64, 0x22E3C74,
    0x22E3E64, 0x22E4074, 0x22E4464, 0x22E4C74, 0x22E4E64, 0x22E5800, 0x22E6096, 0x22E74B2,
    0x22E7920, 0x22E7F60, 0x22E8055, 0x22E8E00, 0x2300055, 0x2305874, 0x2305E64, 0x2307074,
    0x2307264, 0x2307720, 0x2307800, 0x2314015, 0x2318025, 0x231C096, 0x231D4B2, 0x231E600,
    0x231FE55, 0x2320E00, 0x2321255, 0x2321400, 0x2321855, 0x2322800, 0x2322A55, 0x2322E00,
    0x2323055, 0x2326074, 0x2326C00, 0x2326E74, 0x2327200, 0x2327664, 0x2327A74, 0x2327C64,
    0x2327E55, 0x2328074, 0x2328255, 0x2328474, 0x2328664, 0x2328920, 0x2328E00, 0x232A096,
    0x232B400, 0x2334055, 0x2335000, 0x2335455, 0x233A274, 0x233A864, 0x233B000, 0x233B464,
    0x233B874, 0x233C064, 0x233C255, 0x233C520, 0x233C655, 0x233C874, 0x233CA00, 0x2340055,
    0x2340264, 0x2341655, 0x2346664, 0x2347274, 0x2347455, 0x2347664, 0x2347F20, 0x2348E64,
    0x2349000, 0x234A055, 0x234A264, 0x234AE74, 0x234B264, 0x234B855, 0x2351464, 0x2352E74,
    0x2353064, 0x2353520, 0x2353A55, 0x2353D20, 0x2354600, 0x2356055, 0x235F200, 0x2360120,
    0x2361400, 0x2378055, 0x237C320, 0x237C400, 0x237E096, 0x237F400, 0x2380055, 0x2381200,
    0x2381455, 0x2385E74, 0x2386064, 0x2386E00, 0x2387064, 0x2387C74, 0x2387E64, 0x2388055,
    0x2388320, 0x2388C00, 0x238A096, 0x238B4B2, 0x238DA00, 0x238E120, 0x238E455, 0x2392000,
    0x2392464, 0x2395000, 0x2395274, 0x2395464, 0x2396274, 0x2396464, 0x2396874, 0x2396A64,
    0x2396E00, 0x23A0055, 0x23A0E00, 0x23A1055, 0x23A1400, 0x23A1655, 0x23A6264, 0x23A6E00,
    0x23A7464, 0x23A7600, 0x23A7864, 0x23A7C00, 0x23A7E64, 0x23A8C55, 0x23A8E64, 0x23A9000,
    0x23AA096, 0x23AB400, 0x23AC055, 0x23ACC00, 0x23ACE55, 0x23AD200, 0x23AD455, 0x23B1474,
    0x23B1E00, 0x23B2064, 0x23B2400, 0x23B2674, 0x23B2A64, 0x23B2C74, 0x23B2E64, 0x23B3055,
    0x23B3200, 0x23B4096, 0x23B5400, 0x23DC055, 0x23DE664, 0x23DEA74, 0x23DEF20, 0x23DF200,
    0x23E0064, 0x23E0455, 0x23E0674, 0x23E0855, 0x23E2200, 0x23E2455, 0x23E6874, 0x23E6C64,
    0x23E7600, 0x23E7C74, 0x23E8064, 0x23E8274, 0x23E8464, 0x23E8720, 0x23EA096, 0x23EB464,
    0x23EB600, 0x23F6055, 0x23F6200, 0x23F80B2, 0x23FAB60, 0x23FBB40, 0x23FC360, 0x23FE400,
    0x23FFF20, 0x2400055, 0x2473400, 0x24800A6, 0x248DE00, 0x248E120, 0x248EA00, 0x2490055,
    0x24A8800, 0x25F2055, 0x25FE320, 0x25FE600, 0x2600055, 0x26861B0, 0x2688064, 0x2688255,
    0x2688E64, 0x268AC00, 0x268C055, 0x287F600, 0x2880055, 0x28C8E00, 0x2C20055, 0x2C23C64,
    0x2C25474, 0x2C25A64, 0x2C26096, 0x2C27400, 0x2D00055, 0x2D47200, 0x2D48055, 0x2D4BE00,
    0x2D4C096, 0x2D4D400, 0x2D4DD20, 0x2D4E055, 0x2D57E00, 0x2D58096, 0x2D59400, 0x2D5A055,
    0x2D5DC00, 0x2D5E064, 0x2D5EB20, 0x2D5EC00, 0x2D60055, 0x2D66064, 0x2D66F20, 0x2D67960,
    0x2D68045, 0x2D68920, 0x2D68B60, 0x2D68C00, 0x2D6A096, 0x2D6B400, 0x2D6B6B2, 0x2D6C400,
    0x2D6C655, 0x2D6F000, 0x2D6FA55, 0x2D72000, 0x2DA8045, 0x2DA8655, 0x2DAD645, 0x2DADB20,
    0x2DAE096, 0x2DAF400, 0x2DC8015, 0x2DCC025, 0x2DD00B2, 0x2DD2F20, 0x2DD3600, 0x2DE0055,
    0x2DE9600, 0x2DE9E64, 0x2DEA055, 0x2DEA274, 0x2DF1000, 0x2DF1E64, 0x2DF2645, 0x2DF4000,
    0x2DFC045, 0x2DFC520, 0x2DFC645, 0x2DFC864, 0x2DFCA00, 0x2DFE074, 0x2DFE400, 0x2E00055,
    0x30FF000, 0x3100055, 0x319AC00, 0x319FE55, 0x31A1200, 0x35FE045, 0x35FE800, 0x35FEA45,
    0x35FF800, 0x35FFA45, 0x35FFE00, 0x3600055, 0x3624600, 0x3626455, 0x3626600, 0x362A055,
    0x362A600, 0x362AA55, 0x362AC00, 0x362C855, 0x362D000, 0x362E055, 0x365F800, 0x3780055,
    0x378D600, 0x378E055, 0x378FA00, 0x3790055, 0x3791200, 0x3792055, 0x3793400, 0x3793960,
    0x3793A64, 0x3793F20, 0x37941B0, 0x3794800, 0x3980160, 0x399E096, 0x399F400, 0x39A0160,
    0x39D6800, 0x39E0064, 0x39E5C00, 0x39E6064, 0x39E8E00, 0x39EA160, 0x39F8800, 0x3A00160,
    0x3A1EC00, 0x3A20160, 0x3A24E00, 0x3A25360, 0x3A2CA74, 0x3A2CE64, 0x3A2D560, 0x3A2DA74,
    0x3A2E7B0, 0x3A2F664, 0x3A30760, 0x3A30A64, 0x3A31960, 0x3A35464, 0x3A35D60, 0x3A3D600,
    0x3A40160, 0x3A48464, 0x3A48B60, 0x3A48C00, 0x3A580B2, 0x3A5A800, 0x3A5C0B2, 0x3A5E800,
    0x3A60160, 0x3A6AE00, 0x3A6C0B2, 0x3A6F200, 0x3A80015, 0x3A83425, 0x3A86815, 0x3A89C25,
    0x3A8AA00, 0x3A8AC25, 0x3A8D015, 0x3A90425, 0x3A93815, 0x3A93A00, 0x3A93C15, 0x3A94000,
    0x3A94415, 0x3A94600, 0x3A94A15, 0x3A94E00, 0x3A95215, 0x3A95A00, 0x3A95C15, 0x3A96C25,
    0x3A97400, 0x3A97625, 0x3A97800, 0x3A97A25, 0x3A98800, 0x3A98A25, 0x3A9A015, 0x3A9D425,
    0x3AA0815, 0x3AA0C00, 0x3AA0E15, 0x3AA1600, 0x3AA1A15, 0x3AA2A00, 0x3AA2C15, 0x3AA3A00,
    0x3AA3C25, 0x3AA7015, 0x3AA7400, 0x3AA7615, 0x3AA7E00, 0x3AA8015, 0x3AA8A00, 0x3AA8C15,
    0x3AA8E00, 0x3AA9415, 0x3AAA200, 0x3AAA425, 0x3AAD815, 0x3AB0C25, 0x3AB4015, 0x3AB7425,
    0x3ABA815, 0x3ABDC25, 0x3AC1015, 0x3AC4425, 0x3AC7815, 0x3ACAC25, 0x3ACE015, 0x3AD1425,
    0x3AD4C00, 0x3AD5015, 0x3AD8330, 0x3AD8425, 0x3ADB730, 0x3ADB825, 0x3ADC415, 0x3ADF730,
    0x3ADF825, 0x3AE2B30, 0x3AE2C25, 0x3AE3815, 0x3AE6B30, 0x3AE6C25, 0x3AE9F30, 0x3AEA025,
    0x3AEAC15, 0x3AEDF30, 0x3AEE025, 0x3AF1330, 0x3AF1425, 0x3AF2015, 0x3AF5330, 0x3AF5425,
    0x3AF8730, 0x3AF8825, 0x3AF9415, 0x3AF9625, 0x3AF9800, 0x3AF9C96, 0x3B00160, 0x3B40064,
    0x3B46F60, 0x3B47664, 0x3B4DB60, 0x3B4EA64, 0x3B4ED60, 0x3B50864, 0x3B50B60, 0x3B50F20,
    0x3B51800, 0x3B53664, 0x3B54000, 0x3B54264, 0x3B56000, 0x3BE0025, 0x3BE1455, 0x3BE1625,
    0x3BE3E00, 0x3BE4A25, 0x3BE5600, 0x3C00064, 0x3C00E00, 0x3C01064, 0x3C03200, 0x3C03664,
    0x3C04400, 0x3C04664, 0x3C04A00, 0x3C04C64, 0x3C05600, 0x3C06045, 0x3C0DC00, 0x3C11E64,
    0x3C12000, 0x3C20055, 0x3C25A00, 0x3C26064, 0x3C26E45, 0x3C27C00, 0x3C28096, 0x3C29400,
    0x3C29C55, 0x3C29F60, 0x3C2A000, 0x3C52055, 0x3C55C64, 0x3C55E00, 0x3C58055, 0x3C5D864,
    0x3C5E096, 0x3C5F400, 0x3C5FF40, 0x3C60000, 0x3C9A055, 0x3C9D645, 0x3C9D864, 0x3C9E096,
    0x3C9F400, 0x3CBA055, 0x3CBDC64, 0x3CBE055, 0x3CBE296, 0x3CBF600, 0x3CBFF20, 0x3CC0000,
    0x3CFC055, 0x3CFCE00, 0x3CFD055, 0x3CFD800, 0x3CFDA55, 0x3CFDE00, 0x3CFE055, 0x3CFFE00,
    0x3D00055, 0x3D18A00, 0x3D18EB2, 0x3D1A064, 0x3D1AE00, 0x3D20015, 0x3D24425, 0x3D28864,
    0x3D29645, 0x3D29800, 0x3D2A096, 0x3D2B400, 0x3D2BD20, 0x3D2C000, 0x3D8E2B2, 0x3D95960,
    0x3D95AB2, 0x3D96140, 0x3D962B2, 0x3D96A00, 0x3DA02B2, 0x3DA5D60, 0x3DA5EB2, 0x3DA7C00,
    0x3DC0055, 0x3DC0800, 0x3DC0A55, 0x3DC4000, 0x3DC4255, 0x3DC4600, 0x3DC4855, 0x3DC4A00,
    0x3DC4E55, 0x3DC5000, 0x3DC5255, 0x3DC6600, 0x3DC6855, 0x3DC7000, 0x3DC7255, 0x3DC7400,
    0x3DC7655, 0x3DC7800, 0x3DC8455, 0x3DC8600, 0x3DC8E55, 0x3DC9000, 0x3DC9255, 0x3DC9400,
    0x3DC9655, 0x3DC9800, 0x3DC9A55, 0x3DCA000, 0x3DCA255, 0x3DCA600, 0x3DCA855, 0x3DCAA00,
    0x3DCAE55, 0x3DCB000, 0x3DCB255, 0x3DCB400, 0x3DCB655, 0x3DCB800, 0x3DCBA55, 0x3DCBC00,
    0x3DCBE55, 0x3DCC000, 0x3DCC255, 0x3DCC600, 0x3DCC855, 0x3DCCA00, 0x3DCCE55, 0x3DCD600,
    0x3DCD855, 0x3DCE600, 0x3DCE855, 0x3DCF000, 0x3DCF255, 0x3DCFA00, 0x3DCFC55, 0x3DCFE00,
    0x3DD0055, 0x3DD1400, 0x3DD1655, 0x3DD3800, 0x3DD4255, 0x3DD4800, 0x3DD4A55, 0x3DD5400,
    0x3DD5655, 0x3DD7800, 0x3DDE130, 0x3DDE400, 0x3E00160, 0x3E05800, 0x3E06160, 0x3E12800,
    0x3E14160, 0x3E15E00, 0x3E16360, 0x3E18000, 0x3E18360, 0x3E1A000, 0x3E1A360, 0x3E1EC00,
    0x3E200B2, 0x3E21B60, 0x3E26164, 0x3E29560, 0x3E2A164, 0x3E2D560, 0x3E2E164, 0x3E31560,
    0x3E35C00, 0x3E3CD60, 0x3E40600, 0x3E42160, 0x3E47800, 0x3E48160, 0x3E49200, 0x3E4A160,
    0x3E4A400, 0x3E4C160, 0x3E4CC00, 0x3E60160, 0x3E7F750, 0x3E80160, 0x3EDB000, 0x3EDB960,
    0x3EDDA00, 0x3EDE160, 0x3EDFA00, 0x3EE0160, 0x3EEEE00, 0x3EEF760, 0x3EFB400, 0x3EFC160,
    0x3EFD800, 0x3EFE160, 0x3EFE200, 0x3F00160, 0x3F01800, 0x3F02160, 0x3F09000, 0x3F0A160,
    0x3F0B400, 0x3F0C160, 0x3F11000, 0x3F12160, 0x3F15C00, 0x3F16160, 0x3F17800, 0x3F18160,
    0x3F18400, 0x3F20160, 0x3F4A800, 0x3F4C160, 0x3F4DC00, 0x3F4E160, 0x3F4FA00, 0x3F50160,
    0x3F51400, 0x3F51F60, 0x3F58E00, 0x3F59D60, 0x3F5BA00, 0x3F5BF60, 0x3F5D400, 0x3F5E160,
    0x3F5F200, 0x3F60160, 0x3F72600, 0x3F72960, 0x3F7E096, 0x3F7F400, 0x4000055, 0x54DC000,
    0x54E0055, 0x56E7400, 0x56E8055, 0x5703C00, 0x5704055, 0x59D4400, 0x59D6055, 0x5D7C200,
    0x5D7E055, 0x5DCBC00, 0x5F00055, 0x5F43C00, 0x6000055, 0x6269600, 0x626A055, 0x6476000,
    0x1C0003B0, 0x1C000400, 0x1C0041B0, 0x1C010000, 0x1C020064, 0x1C03E000, 0x1E0001D0, 0x1FFFFC00,
    0x200001D0, 0x21FFFC00,
};
/* start << 8 | canonical combining class */
static const uint32_t llm__ccc_ranges[496] = {
    0x0, 0x300E6, 0x315E8, 0x316DC, 0x31AE8, 0x31BD8, 0x31CDC, 0x321CA, 0x323DC, 0x327CA, 0x329DC,
    0x33401, 0x339DC, 0x33DE6, 0x345F0, 0x346E6, 0x347DC, 0x34AE6, 0x34DDC, 0x34F00, 0x350E6,
    0x353DC, 0x357E6, 0x358E8, 0x359DC, 0x35BE6, 0x35CE9, 0x35DEA, 0x35FE9, 0x360EA, 0x362E9,
    0x363E6, 0x37000, 0x483E6, 0x48800, 0x591DC, 0x592E6, 0x596DC, 0x597E6, 0x59ADE, 0x59BDC,
    0x59CE6, 0x5A2DC, 0x5A8E6, 0x5AADC, 0x5ABE6, 0x5ADDE, 0x5AEE4, 0x5AFE6, 0x5B00A, 0x5B10B,
    0x5B20C, 0x5B30D, 0x5B40E, 0x5B50F, 0x5B610, 0x5B711, 0x5B812, 0x5B913, 0x5BB14, 0x5BC15,
    0x5BD16, 0x5BE00, 0x5BF17, 0x5C000, 0x5C118, 0x5C219, 0x5C300, 0x5C4E6, 0x5C5DC, 0x5C600,
    0x5C712, 0x5C800, 0x610E6, 0x6181E, 0x6191F, 0x61A20, 0x61B00, 0x64B1B, 0x64C1C, 0x64D1D,
    0x64E1E, 0x64F1F, 0x65020, 0x65121, 0x65222, 0x653E6, 0x655DC, 0x657E6, 0x65CDC, 0x65DE6,
    0x65FDC, 0x66000, 0x67023, 0x67100, 0x6D6E6, 0x6DD00, 0x6DFE6, 0x6E3DC, 0x6E4E6, 0x6E500,
    0x6E7E6, 0x6E900, 0x6EADC, 0x6EBE6, 0x6EDDC, 0x6EE00, 0x71124, 0x71200, 0x730E6, 0x731DC,
    0x732E6, 0x734DC, 0x735E6, 0x737DC, 0x73AE6, 0x73BDC, 0x73DE6, 0x73EDC, 0x73FE6, 0x742DC,
    0x743E6, 0x744DC, 0x745E6, 0x746DC, 0x747E6, 0x748DC, 0x749E6, 0x74B00, 0x7EBE6, 0x7F2DC,
    0x7F3E6, 0x7F400, 0x816E6, 0x81A00, 0x81BE6, 0x82400, 0x825E6, 0x82800, 0x829E6, 0x82E00,
    0x859DC, 0x85C00, 0x8D4E6, 0x8E200, 0x8E3DC, 0x8E4E6, 0x8E6DC, 0x8E7E6, 0x8E9DC, 0x8EAE6,
    0x8EDDC, 0x8F01B, 0x8F11C, 0x8F21D, 0x8F3E6, 0x8F6DC, 0x8F7E6, 0x8F9DC, 0x8FBE6, 0x90000,
    0x93C07, 0x93D00, 0x94D09, 0x94E00, 0x951E6, 0x952DC, 0x953E6, 0x95500, 0x9BC07, 0x9BD00,
    0x9CD09, 0x9CE00, 0xA3C07, 0xA3D00, 0xA4D09, 0xA4E00, 0xABC07, 0xABD00, 0xACD09, 0xACE00,
    0xB3C07, 0xB3D00, 0xB4D09, 0xB4E00, 0xBCD09, 0xBCE00, 0xC4D09, 0xC4E00, 0xC5554, 0xC565B,
    0xC5700, 0xCBC07, 0xCBD00, 0xCCD09, 0xCCE00, 0xD4D09, 0xD4E00, 0xDCA09, 0xDCB00, 0xE3867,
    0xE3A09, 0xE3B00, 0xE486B, 0xE4C00, 0xEB876, 0xEBA00, 0xEC87A, 0xECC00, 0xF18DC, 0xF1A00,
    0xF35DC, 0xF3600, 0xF37DC, 0xF3800, 0xF39D8, 0xF3A00, 0xF7181, 0xF7282, 0xF7300, 0xF7484,
    0xF7500, 0xF7A82, 0xF7E00, 0xF8082, 0xF8100, 0xF82E6, 0xF8409, 0xF8500, 0xF86E6, 0xF8800,
    0xFC6DC, 0xFC700, 0x103707, 0x103800, 0x103909, 0x103B00, 0x108DDC, 0x108E00, 0x135DE6, 0x136000,
    0x171409, 0x171500, 0x173409, 0x173500, 0x17D209, 0x17D300, 0x17DDE6, 0x17DE00, 0x18A9E4,
    0x18AA00, 0x1939DE, 0x193AE6, 0x193BDC, 0x193C00, 0x1A17E6, 0x1A18DC, 0x1A1900, 0x1A6009,
    0x1A6100, 0x1A75E6, 0x1A7D00, 0x1A7FDC, 0x1A8000, 0x1AB0E6, 0x1AB5DC, 0x1ABBE6, 0x1ABDDC,
    0x1ABE00, 0x1B3407, 0x1B3500, 0x1B4409, 0x1B4500, 0x1B6BE6, 0x1B6CDC, 0x1B6DE6, 0x1B7400,
    0x1BAA09, 0x1BAC00, 0x1BE607, 0x1BE700, 0x1BF209, 0x1BF400, 0x1C3707, 0x1C3800, 0x1CD0E6,
    0x1CD300, 0x1CD401, 0x1CD5DC, 0x1CDAE6, 0x1CDCDC, 0x1CE0E6, 0x1CE100, 0x1CE201, 0x1CE900,
    0x1CEDDC, 0x1CEE00, 0x1CF4E6, 0x1CF500, 0x1CF8E6, 0x1CFA00, 0x1DC0E6, 0x1DC2DC, 0x1DC3E6,
    0x1DCADC, 0x1DCBE6, 0x1DCDEA, 0x1DCED6, 0x1DCFDC, 0x1DD0CA, 0x1DD1E6, 0x1DF600, 0x1DFBE6,
    0x1DFCE9, 0x1DFDDC, 0x1DFEE6, 0x1DFFDC, 0x1E0000, 0x20D0E6, 0x20D201, 0x20D4E6, 0x20D801,
    0x20DBE6, 0x20DD00, 0x20E1E6, 0x20E200, 0x20E501, 0x20E7E6, 0x20E8DC, 0x20E9E6, 0x20EA01,
    0x20ECDC, 0x20F0E6, 0x20F100, 0x2CEFE6, 0x2CF200, 0x2D7F09, 0x2D8000, 0x2DE0E6, 0x2E0000,
    0x302ADA, 0x302BE4, 0x302CE8, 0x302DDE, 0x302EE0, 0x303000, 0x309908, 0x309B00, 0xA66FE6,
    0xA67000, 0xA674E6, 0xA67E00, 0xA69EE6, 0xA6A000, 0xA6F0E6, 0xA6F200, 0xA80609, 0xA80700,
    0xA8C409, 0xA8C500, 0xA8E0E6, 0xA8F200, 0xA92BDC, 0xA92E00, 0xA95309, 0xA95400, 0xA9B307,
    0xA9B400, 0xA9C009, 0xA9C100, 0xAAB0E6, 0xAAB100, 0xAAB2E6, 0xAAB4DC, 0xAAB500, 0xAAB7E6,
    0xAAB900, 0xAABEE6, 0xAAC000, 0xAAC1E6, 0xAAC200, 0xAAF609, 0xAAF700, 0xABED09, 0xABEE00,
    0xFB1E1A, 0xFB1F00, 0xFE20E6, 0xFE27DC, 0xFE2EE6, 0xFE3000, 0x101FDDC, 0x101FE00, 0x102E0DC,
    0x102E100, 0x10376E6, 0x1037B00, 0x10A0DDC, 0x10A0E00, 0x10A0FE6, 0x10A1000, 0x10A38E6,
    0x10A3901, 0x10A3ADC, 0x10A3B00, 0x10A3F09, 0x10A4000, 0x10AE5E6, 0x10AE6DC, 0x10AE700,
    0x1104609, 0x1104700, 0x1107F09, 0x1108000, 0x110B909, 0x110BA07, 0x110BB00, 0x11100E6,
    0x1110300, 0x1113309, 0x1113500, 0x1117307, 0x1117400, 0x111C009, 0x111C100, 0x111CA07,
    0x111CB00, 0x1123509, 0x1123607, 0x1123700, 0x112E907, 0x112EA09, 0x112EB00, 0x1133C07,
    0x1133D00, 0x1134D09, 0x1134E00, 0x11366E6, 0x1136D00, 0x11370E6, 0x1137500, 0x1144209,
    0x1144300, 0x1144607, 0x1144700, 0x114C209, 0x114C307, 0x114C400, 0x115BF09, 0x115C007,
    0x115C100, 0x1163F09, 0x1164000, 0x116B609, 0x116B707, 0x116B800, 0x1172B09, 0x1172C00,
    0x11C3F09, 0x11C4000, 0x16AF001, 0x16AF500, 0x16B30E6, 0x16B3700, 0x1BC9E01, 0x1BC9F00,
    0x1D165D8, 0x1D16701, 0x1D16A00, 0x1D16DE2, 0x1D16ED8, 0x1D17300, 0x1D17BDC, 0x1D18300,
    0x1D185E6, 0x1D18ADC, 0x1D18C00, 0x1D1AAE6, 0x1D1AE00, 0x1D242E6, 0x1D24500, 0x1E000E6,
    0x1E00700, 0x1E008E6, 0x1E01900, 0x1E01BE6, 0x1E02200, 0x1E023E6, 0x1E02500, 0x1E026E6,
    0x1E02B00, 0x1E8D0DC, 0x1E8D700, 0x1E944E6, 0x1E94A07, 0x1E94B00,
};
/* start << 2 | NFC_Quick_Check: 0 yes, 1 maybe, 2 no */
static const uint32_t llm__nfcqc_ranges[226] = {
    0x0, 0xC01, 0xC14, 0xC19, 0xC34, 0xC3D, 0xC40, 0xC45, 0xC48, 0xC4D, 0xC54, 0xC6D, 0xC70, 0xC8D,
    0xCA4, 0xCB5, 0xCBC, 0xCC1, 0xCC8, 0xCE1, 0xCE4, 0xD02, 0xD09, 0xD0E, 0xD15, 0xD18, 0xDD2, 0xDD4,
    0xDFA, 0xDFC, 0xE1E, 0xE20, 0x194D, 0x1958, 0x24F1, 0x24F4, 0x2562, 0x2580, 0x26F9, 0x26FC,
    0x275D, 0x2760, 0x2772, 0x2778, 0x277E, 0x2780, 0x28CE, 0x28D0, 0x28DA, 0x28DC, 0x2966, 0x2970,
    0x297A, 0x297C, 0x2CF9, 0x2CFC, 0x2D59, 0x2D60, 0x2D72, 0x2D78, 0x2EF9, 0x2EFC, 0x2F5D, 0x2F60,
    0x3159, 0x315C, 0x3309, 0x330C, 0x3355, 0x335C, 0x34F9, 0x34FC, 0x355D, 0x3560, 0x3729, 0x372C,
    0x373D, 0x3740, 0x377D, 0x3780, 0x3D0E, 0x3D10, 0x3D36, 0x3D38, 0x3D4A, 0x3D4C, 0x3D5E, 0x3D60,
    0x3D72, 0x3D74, 0x3DA6, 0x3DA8, 0x3DCE, 0x3DD0, 0x3DD6, 0x3DDC, 0x3DE2, 0x3DE4, 0x3E06, 0x3E08,
    0x3E4E, 0x3E50, 0x3E76, 0x3E78, 0x3E8A, 0x3E8C, 0x3E9E, 0x3EA0, 0x3EB2, 0x3EB4, 0x3EE6, 0x3EE8,
    0x40B9, 0x40BC, 0x4585, 0x45D8, 0x46A1, 0x470C, 0x6CD5, 0x6CD8, 0x7DC6, 0x7DC8, 0x7DCE, 0x7DD0,
    0x7DD6, 0x7DD8, 0x7DDE, 0x7DE0, 0x7DE6, 0x7DE8, 0x7DEE, 0x7DF0, 0x7DF6, 0x7DF8, 0x7EEE, 0x7EF0,
    0x7EFA, 0x7EFC, 0x7F26, 0x7F28, 0x7F2E, 0x7F30, 0x7F4E, 0x7F50, 0x7F6E, 0x7F70, 0x7F8E, 0x7F90,
    0x7FAE, 0x7FB0, 0x7FBA, 0x7FC0, 0x7FE6, 0x7FE8, 0x7FEE, 0x7FF0, 0x7FF6, 0x7FF8, 0x8002, 0x8008,
    0x849A, 0x849C, 0x84AA, 0x84B0, 0x8CA6, 0x8CAC, 0xAB72, 0xAB74, 0xC265, 0xC26C, 0x3E402, 0x3E838,
    0x3E842, 0x3E844, 0x3E84A, 0x3E84C, 0x3E856, 0x3E87C, 0x3E882, 0x3E884, 0x3E88A, 0x3E88C,
    0x3E896, 0x3E89C, 0x3E8AA, 0x3E9B8, 0x3E9C2, 0x3EB68, 0x3EC76, 0x3EC78, 0x3EC7E, 0x3EC80,
    0x3ECAA, 0x3ECDC, 0x3ECE2, 0x3ECF4, 0x3ECFA, 0x3ECFC, 0x3ED02, 0x3ED08, 0x3ED0E, 0x3ED14,
    0x3ED1A, 0x3ED3C, 0x442E9, 0x442EC, 0x4449D, 0x444A0, 0x44CF9, 0x44CFC, 0x44D5D, 0x44D60,
    0x452C1, 0x452C4, 0x452E9, 0x452EC, 0x452F5, 0x452F8, 0x456BD, 0x456C0, 0x7457A, 0x74594,
    0x746EE, 0x74704, 0xBE002, 0xBE878,
};
/* canonical decompositions: code point, first, second (0: a singleton) */
static const uint32_t llm__decomp[2060][3] = {
    {0xC0,0x41,0x300}, {0xC1,0x41,0x301}, {0xC2,0x41,0x302}, {0xC3,0x41,0x303}, {0xC4,0x41,0x308},
    {0xC5,0x41,0x30A}, {0xC7,0x43,0x327}, {0xC8,0x45,0x300}, {0xC9,0x45,0x301}, {0xCA,0x45,0x302},
    {0xCB,0x45,0x308}, {0xCC,0x49,0x300}, {0xCD,0x49,0x301}, {0xCE,0x49,0x302}, {0xCF,0x49,0x308},
    {0xD1,0x4E,0x303}, {0xD2,0x4F,0x300}, {0xD3,0x4F,0x301}, {0xD4,0x4F,0x302}, {0xD5,0x4F,0x303},
    {0xD6,0x4F,0x308}, {0xD9,0x55,0x300}, {0xDA,0x55,0x301}, {0xDB,0x55,0x302}, {0xDC,0x55,0x308},
    {0xDD,0x59,0x301}, {0xE0,0x61,0x300}, {0xE1,0x61,0x301}, {0xE2,0x61,0x302}, {0xE3,0x61,0x303},
    {0xE4,0x61,0x308}, {0xE5,0x61,0x30A}, {0xE7,0x63,0x327}, {0xE8,0x65,0x300}, {0xE9,0x65,0x301},
    {0xEA,0x65,0x302}, {0xEB,0x65,0x308}, {0xEC,0x69,0x300}, {0xED,0x69,0x301}, {0xEE,0x69,0x302},
    {0xEF,0x69,0x308}, {0xF1,0x6E,0x303}, {0xF2,0x6F,0x300}, {0xF3,0x6F,0x301}, {0xF4,0x6F,0x302},
    {0xF5,0x6F,0x303}, {0xF6,0x6F,0x308}, {0xF9,0x75,0x300}, {0xFA,0x75,0x301}, {0xFB,0x75,0x302},
    {0xFC,0x75,0x308}, {0xFD,0x79,0x301}, {0xFF,0x79,0x308}, {0x100,0x41,0x304}, {0x101,0x61,0x304},
    {0x102,0x41,0x306}, {0x103,0x61,0x306}, {0x104,0x41,0x328}, {0x105,0x61,0x328},
    {0x106,0x43,0x301}, {0x107,0x63,0x301}, {0x108,0x43,0x302}, {0x109,0x63,0x302},
    {0x10A,0x43,0x307}, {0x10B,0x63,0x307}, {0x10C,0x43,0x30C}, {0x10D,0x63,0x30C},
    {0x10E,0x44,0x30C}, {0x10F,0x64,0x30C}, {0x112,0x45,0x304}, {0x113,0x65,0x304},
    {0x114,0x45,0x306}, {0x115,0x65,0x306}, {0x116,0x45,0x307}, {0x117,0x65,0x307},
    {0x118,0x45,0x328}, {0x119,0x65,0x328}, {0x11A,0x45,0x30C}, {0x11B,0x65,0x30C},
    {0x11C,0x47,0x302}, {0x11D,0x67,0x302}, {0x11E,0x47,0x306}, {0x11F,0x67,0x306},
    {0x120,0x47,0x307}, {0x121,0x67,0x307}, {0x122,0x47,0x327}, {0x123,0x67,0x327},
    {0x124,0x48,0x302}, {0x125,0x68,0x302}, {0x128,0x49,0x303}, {0x129,0x69,0x303},
    {0x12A,0x49,0x304}, {0x12B,0x69,0x304}, {0x12C,0x49,0x306}, {0x12D,0x69,0x306},
    {0x12E,0x49,0x328}, {0x12F,0x69,0x328}, {0x130,0x49,0x307}, {0x134,0x4A,0x302},
    {0x135,0x6A,0x302}, {0x136,0x4B,0x327}, {0x137,0x6B,0x327}, {0x139,0x4C,0x301},
    {0x13A,0x6C,0x301}, {0x13B,0x4C,0x327}, {0x13C,0x6C,0x327}, {0x13D,0x4C,0x30C},
    {0x13E,0x6C,0x30C}, {0x143,0x4E,0x301}, {0x144,0x6E,0x301}, {0x145,0x4E,0x327},
    {0x146,0x6E,0x327}, {0x147,0x4E,0x30C}, {0x148,0x6E,0x30C}, {0x14C,0x4F,0x304},
    {0x14D,0x6F,0x304}, {0x14E,0x4F,0x306}, {0x14F,0x6F,0x306}, {0x150,0x4F,0x30B},
    {0x151,0x6F,0x30B}, {0x154,0x52,0x301}, {0x155,0x72,0x301}, {0x156,0x52,0x327},
    {0x157,0x72,0x327}, {0x158,0x52,0x30C}, {0x159,0x72,0x30C}, {0x15A,0x53,0x301},
    {0x15B,0x73,0x301}, {0x15C,0x53,0x302}, {0x15D,0x73,0x302}, {0x15E,0x53,0x327},
    {0x15F,0x73,0x327}, {0x160,0x53,0x30C}, {0x161,0x73,0x30C}, {0x162,0x54,0x327},
    {0x163,0x74,0x327}, {0x164,0x54,0x30C}, {0x165,0x74,0x30C}, {0x168,0x55,0x303},
    {0x169,0x75,0x303}, {0x16A,0x55,0x304}, {0x16B,0x75,0x304}, {0x16C,0x55,0x306},
    {0x16D,0x75,0x306}, {0x16E,0x55,0x30A}, {0x16F,0x75,0x30A}, {0x170,0x55,0x30B},
    {0x171,0x75,0x30B}, {0x172,0x55,0x328}, {0x173,0x75,0x328}, {0x174,0x57,0x302},
    {0x175,0x77,0x302}, {0x176,0x59,0x302}, {0x177,0x79,0x302}, {0x178,0x59,0x308},
    {0x179,0x5A,0x301}, {0x17A,0x7A,0x301}, {0x17B,0x5A,0x307}, {0x17C,0x7A,0x307},
    {0x17D,0x5A,0x30C}, {0x17E,0x7A,0x30C}, {0x1A0,0x4F,0x31B}, {0x1A1,0x6F,0x31B},
    {0x1AF,0x55,0x31B}, {0x1B0,0x75,0x31B}, {0x1CD,0x41,0x30C}, {0x1CE,0x61,0x30C},
    {0x1CF,0x49,0x30C}, {0x1D0,0x69,0x30C}, {0x1D1,0x4F,0x30C}, {0x1D2,0x6F,0x30C},
    {0x1D3,0x55,0x30C}, {0x1D4,0x75,0x30C}, {0x1D5,0xDC,0x304}, {0x1D6,0xFC,0x304},
    {0x1D7,0xDC,0x301}, {0x1D8,0xFC,0x301}, {0x1D9,0xDC,0x30C}, {0x1DA,0xFC,0x30C},
    {0x1DB,0xDC,0x300}, {0x1DC,0xFC,0x300}, {0x1DE,0xC4,0x304}, {0x1DF,0xE4,0x304},
    {0x1E0,0x226,0x304}, {0x1E1,0x227,0x304}, {0x1E2,0xC6,0x304}, {0x1E3,0xE6,0x304},
    {0x1E6,0x47,0x30C}, {0x1E7,0x67,0x30C}, {0x1E8,0x4B,0x30C}, {0x1E9,0x6B,0x30C},
    {0x1EA,0x4F,0x328}, {0x1EB,0x6F,0x328}, {0x1EC,0x1EA,0x304}, {0x1ED,0x1EB,0x304},
    {0x1EE,0x1B7,0x30C}, {0x1EF,0x292,0x30C}, {0x1F0,0x6A,0x30C}, {0x1F4,0x47,0x301},
    {0x1F5,0x67,0x301}, {0x1F8,0x4E,0x300}, {0x1F9,0x6E,0x300}, {0x1FA,0xC5,0x301},
    {0x1FB,0xE5,0x301}, {0x1FC,0xC6,0x301}, {0x1FD,0xE6,0x301}, {0x1FE,0xD8,0x301},
    {0x1FF,0xF8,0x301}, {0x200,0x41,0x30F}, {0x201,0x61,0x30F}, {0x202,0x41,0x311},
    {0x203,0x61,0x311}, {0x204,0x45,0x30F}, {0x205,0x65,0x30F}, {0x206,0x45,0x311},
    {0x207,0x65,0x311}, {0x208,0x49,0x30F}, {0x209,0x69,0x30F}, {0x20A,0x49,0x311},
    {0x20B,0x69,0x311}, {0x20C,0x4F,0x30F}, {0x20D,0x6F,0x30F}, {0x20E,0x4F,0x311},
    {0x20F,0x6F,0x311}, {0x210,0x52,0x30F}, {0x211,0x72,0x30F}, {0x212,0x52,0x311},
    {0x213,0x72,0x311}, {0x214,0x55,0x30F}, {0x215,0x75,0x30F}, {0x216,0x55,0x311},
    {0x217,0x75,0x311}, {0x218,0x53,0x326}, {0x219,0x73,0x326}, {0x21A,0x54,0x326},
    {0x21B,0x74,0x326}, {0x21E,0x48,0x30C}, {0x21F,0x68,0x30C}, {0x226,0x41,0x307},
    {0x227,0x61,0x307}, {0x228,0x45,0x327}, {0x229,0x65,0x327}, {0x22A,0xD6,0x304},
    {0x22B,0xF6,0x304}, {0x22C,0xD5,0x304}, {0x22D,0xF5,0x304}, {0x22E,0x4F,0x307},
    {0x22F,0x6F,0x307}, {0x230,0x22E,0x304}, {0x231,0x22F,0x304}, {0x232,0x59,0x304},
    {0x233,0x79,0x304}, {0x340,0x300,0x0}, {0x341,0x301,0x0}, {0x343,0x313,0x0}, {0x344,0x308,0x301},
    {0x374,0x2B9,0x0}, {0x37E,0x3B,0x0}, {0x385,0xA8,0x301}, {0x386,0x391,0x301}, {0x387,0xB7,0x0},
    {0x388,0x395,0x301}, {0x389,0x397,0x301}, {0x38A,0x399,0x301}, {0x38C,0x39F,0x301},
    {0x38E,0x3A5,0x301}, {0x38F,0x3A9,0x301}, {0x390,0x3CA,0x301}, {0x3AA,0x399,0x308},
    {0x3AB,0x3A5,0x308}, {0x3AC,0x3B1,0x301}, {0x3AD,0x3B5,0x301}, {0x3AE,0x3B7,0x301},
    {0x3AF,0x3B9,0x301}, {0x3B0,0x3CB,0x301}, {0x3CA,0x3B9,0x308}, {0x3CB,0x3C5,0x308},
    {0x3CC,0x3BF,0x301}, {0x3CD,0x3C5,0x301}, {0x3CE,0x3C9,0x301}, {0x3D3,0x3D2,0x301},
    {0x3D4,0x3D2,0x308}, {0x400,0x415,0x300}, {0x401,0x415,0x308}, {0x403,0x413,0x301},
    {0x407,0x406,0x308}, {0x40C,0x41A,0x301}, {0x40D,0x418,0x300}, {0x40E,0x423,0x306},
    {0x419,0x418,0x306}, {0x439,0x438,0x306}, {0x450,0x435,0x300}, {0x451,0x435,0x308},
    {0x453,0x433,0x301}, {0x457,0x456,0x308}, {0x45C,0x43A,0x301}, {0x45D,0x438,0x300},
    {0x45E,0x443,0x306}, {0x476,0x474,0x30F}, {0x477,0x475,0x30F}, {0x4C1,0x416,0x306},
    {0x4C2,0x436,0x306}, {0x4D0,0x410,0x306}, {0x4D1,0x430,0x306}, {0x4D2,0x410,0x308},
    {0x4D3,0x430,0x308}, {0x4D6,0x415,0x306}, {0x4D7,0x435,0x306}, {0x4DA,0x4D8,0x308},
    {0x4DB,0x4D9,0x308}, {0x4DC,0x416,0x308}, {0x4DD,0x436,0x308}, {0x4DE,0x417,0x308},
    {0x4DF,0x437,0x308}, {0x4E2,0x418,0x304}, {0x4E3,0x438,0x304}, {0x4E4,0x418,0x308},
    {0x4E5,0x438,0x308}, {0x4E6,0x41E,0x308}, {0x4E7,0x43E,0x308}, {0x4EA,0x4E8,0x308},
    {0x4EB,0x4E9,0x308}, {0x4EC,0x42D,0x308}, {0x4ED,0x44D,0x308}, {0x4EE,0x423,0x304},
    {0x4EF,0x443,0x304}, {0x4F0,0x423,0x308}, {0x4F1,0x443,0x308}, {0x4F2,0x423,0x30B},
    {0x4F3,0x443,0x30B}, {0x4F4,0x427,0x308}, {0x4F5,0x447,0x308}, {0x4F8,0x42B,0x308},
    {0x4F9,0x44B,0x308}, {0x622,0x627,0x653}, {0x623,0x627,0x654}, {0x624,0x648,0x654},
    {0x625,0x627,0x655}, {0x626,0x64A,0x654}, {0x6C0,0x6D5,0x654}, {0x6C2,0x6C1,0x654},
    {0x6D3,0x6D2,0x654}, {0x929,0x928,0x93C}, {0x931,0x930,0x93C}, {0x934,0x933,0x93C},
    {0x958,0x915,0x93C}, {0x959,0x916,0x93C}, {0x95A,0x917,0x93C}, {0x95B,0x91C,0x93C},
    {0x95C,0x921,0x93C}, {0x95D,0x922,0x93C}, {0x95E,0x92B,0x93C}, {0x95F,0x92F,0x93C},
    {0x9CB,0x9C7,0x9BE}, {0x9CC,0x9C7,0x9D7}, {0x9DC,0x9A1,0x9BC}, {0x9DD,0x9A2,0x9BC},
    {0x9DF,0x9AF,0x9BC}, {0xA33,0xA32,0xA3C}, {0xA36,0xA38,0xA3C}, {0xA59,0xA16,0xA3C},
    {0xA5A,0xA17,0xA3C}, {0xA5B,0xA1C,0xA3C}, {0xA5E,0xA2B,0xA3C}, {0xB48,0xB47,0xB56},
    {0xB4B,0xB47,0xB3E}, {0xB4C,0xB47,0xB57}, {0xB5C,0xB21,0xB3C}, {0xB5D,0xB22,0xB3C},
    {0xB94,0xB92,0xBD7}, {0xBCA,0xBC6,0xBBE}, {0xBCB,0xBC7,0xBBE}, {0xBCC,0xBC6,0xBD7},
    {0xC48,0xC46,0xC56}, {0xCC0,0xCBF,0xCD5}, {0xCC7,0xCC6,0xCD5}, {0xCC8,0xCC6,0xCD6},
    {0xCCA,0xCC6,0xCC2}, {0xCCB,0xCCA,0xCD5}, {0xD4A,0xD46,0xD3E}, {0xD4B,0xD47,0xD3E},
    {0xD4C,0xD46,0xD57}, {0xDDA,0xDD9,0xDCA}, {0xDDC,0xDD9,0xDCF}, {0xDDD,0xDDC,0xDCA},
    {0xDDE,0xDD9,0xDDF}, {0xF43,0xF42,0xFB7}, {0xF4D,0xF4C,0xFB7}, {0xF52,0xF51,0xFB7},
    {0xF57,0xF56,0xFB7}, {0xF5C,0xF5B,0xFB7}, {0xF69,0xF40,0xFB5}, {0xF73,0xF71,0xF72},
    {0xF75,0xF71,0xF74}, {0xF76,0xFB2,0xF80}, {0xF78,0xFB3,0xF80}, {0xF81,0xF71,0xF80},
    {0xF93,0xF92,0xFB7}, {0xF9D,0xF9C,0xFB7}, {0xFA2,0xFA1,0xFB7}, {0xFA7,0xFA6,0xFB7},
    {0xFAC,0xFAB,0xFB7}, {0xFB9,0xF90,0xFB5}, {0x1026,0x1025,0x102E}, {0x1B06,0x1B05,0x1B35},
    {0x1B08,0x1B07,0x1B35}, {0x1B0A,0x1B09,0x1B35}, {0x1B0C,0x1B0B,0x1B35}, {0x1B0E,0x1B0D,0x1B35},
    {0x1B12,0x1B11,0x1B35}, {0x1B3B,0x1B3A,0x1B35}, {0x1B3D,0x1B3C,0x1B35}, {0x1B40,0x1B3E,0x1B35},
    {0x1B41,0x1B3F,0x1B35}, {0x1B43,0x1B42,0x1B35}, {0x1E00,0x41,0x325}, {0x1E01,0x61,0x325},
    {0x1E02,0x42,0x307}, {0x1E03,0x62,0x307}, {0x1E04,0x42,0x323}, {0x1E05,0x62,0x323},
    {0x1E06,0x42,0x331}, {0x1E07,0x62,0x331}, {0x1E08,0xC7,0x301}, {0x1E09,0xE7,0x301},
    {0x1E0A,0x44,0x307}, {0x1E0B,0x64,0x307}, {0x1E0C,0x44,0x323}, {0x1E0D,0x64,0x323},
    {0x1E0E,0x44,0x331}, {0x1E0F,0x64,0x331}, {0x1E10,0x44,0x327}, {0x1E11,0x64,0x327},
    {0x1E12,0x44,0x32D}, {0x1E13,0x64,0x32D}, {0x1E14,0x112,0x300}, {0x1E15,0x113,0x300},
    {0x1E16,0x112,0x301}, {0x1E17,0x113,0x301}, {0x1E18,0x45,0x32D}, {0x1E19,0x65,0x32D},
    {0x1E1A,0x45,0x330}, {0x1E1B,0x65,0x330}, {0x1E1C,0x228,0x306}, {0x1E1D,0x229,0x306},
    {0x1E1E,0x46,0x307}, {0x1E1F,0x66,0x307}, {0x1E20,0x47,0x304}, {0x1E21,0x67,0x304},
    {0x1E22,0x48,0x307}, {0x1E23,0x68,0x307}, {0x1E24,0x48,0x323}, {0x1E25,0x68,0x323},
    {0x1E26,0x48,0x308}, {0x1E27,0x68,0x308}, {0x1E28,0x48,0x327}, {0x1E29,0x68,0x327},
    {0x1E2A,0x48,0x32E}, {0x1E2B,0x68,0x32E}, {0x1E2C,0x49,0x330}, {0x1E2D,0x69,0x330},
    {0x1E2E,0xCF,0x301}, {0x1E2F,0xEF,0x301}, {0x1E30,0x4B,0x301}, {0x1E31,0x6B,0x301},
    {0x1E32,0x4B,0x323}, {0x1E33,0x6B,0x323}, {0x1E34,0x4B,0x331}, {0x1E35,0x6B,0x331},
    {0x1E36,0x4C,0x323}, {0x1E37,0x6C,0x323}, {0x1E38,0x1E36,0x304}, {0x1E39,0x1E37,0x304},
    {0x1E3A,0x4C,0x331}, {0x1E3B,0x6C,0x331}, {0x1E3C,0x4C,0x32D}, {0x1E3D,0x6C,0x32D},
    {0x1E3E,0x4D,0x301}, {0x1E3F,0x6D,0x301}, {0x1E40,0x4D,0x307}, {0x1E41,0x6D,0x307},
    {0x1E42,0x4D,0x323}, {0x1E43,0x6D,0x323}, {0x1E44,0x4E,0x307}, {0x1E45,0x6E,0x307},
    {0x1E46,0x4E,0x323}, {0x1E47,0x6E,0x323}, {0x1E48,0x4E,0x331}, {0x1E49,0x6E,0x331},
    {0x1E4A,0x4E,0x32D}, {0x1E4B,0x6E,0x32D}, {0x1E4C,0xD5,0x301}, {0x1E4D,0xF5,0x301},
    {0x1E4E,0xD5,0x308}, {0x1E4F,0xF5,0x308}, {0x1E50,0x14C,0x300}, {0x1E51,0x14D,0x300},
    {0x1E52,0x14C,0x301}, {0x1E53,0x14D,0x301}, {0x1E54,0x50,0x301}, {0x1E55,0x70,0x301},
    {0x1E56,0x50,0x307}, {0x1E57,0x70,0x307}, {0x1E58,0x52,0x307}, {0x1E59,0x72,0x307},
    {0x1E5A,0x52,0x323}, {0x1E5B,0x72,0x323}, {0x1E5C,0x1E5A,0x304}, {0x1E5D,0x1E5B,0x304},
    {0x1E5E,0x52,0x331}, {0x1E5F,0x72,0x331}, {0x1E60,0x53,0x307}, {0x1E61,0x73,0x307},
    {0x1E62,0x53,0x323}, {0x1E63,0x73,0x323}, {0x1E64,0x15A,0x307}, {0x1E65,0x15B,0x307},
    {0x1E66,0x160,0x307}, {0x1E67,0x161,0x307}, {0x1E68,0x1E62,0x307}, {0x1E69,0x1E63,0x307},
    {0x1E6A,0x54,0x307}, {0x1E6B,0x74,0x307}, {0x1E6C,0x54,0x323}, {0x1E6D,0x74,0x323},
    {0x1E6E,0x54,0x331}, {0x1E6F,0x74,0x331}, {0x1E70,0x54,0x32D}, {0x1E71,0x74,0x32D},
    {0x1E72,0x55,0x324}, {0x1E73,0x75,0x324}, {0x1E74,0x55,0x330}, {0x1E75,0x75,0x330},
    {0x1E76,0x55,0x32D}, {0x1E77,0x75,0x32D}, {0x1E78,0x168,0x301}, {0x1E79,0x169,0x301},
    {0x1E7A,0x16A,0x308}, {0x1E7B,0x16B,0x308}, {0x1E7C,0x56,0x303}, {0x1E7D,0x76,0x303},
    {0x1E7E,0x56,0x323}, {0x1E7F,0x76,0x323}, {0x1E80,0x57,0x300}, {0x1E81,0x77,0x300},
    {0x1E82,0x57,0x301}, {0x1E83,0x77,0x301}, {0x1E84,0x57,0x308}, {0x1E85,0x77,0x308},
    {0x1E86,0x57,0x307}, {0x1E87,0x77,0x307}, {0x1E88,0x57,0x323}, {0x1E89,0x77,0x323},
    {0x1E8A,0x58,0x307}, {0x1E8B,0x78,0x307}, {0x1E8C,0x58,0x308}, {0x1E8D,0x78,0x308},
    {0x1E8E,0x59,0x307}, {0x1E8F,0x79,0x307}, {0x1E90,0x5A,0x302}, {0x1E91,0x7A,0x302},
    {0x1E92,0x5A,0x323}, {0x1E93,0x7A,0x323}, {0x1E94,0x5A,0x331}, {0x1E95,0x7A,0x331},
    {0x1E96,0x68,0x331}, {0x1E97,0x74,0x308}, {0x1E98,0x77,0x30A}, {0x1E99,0x79,0x30A},
    {0x1E9B,0x17F,0x307}, {0x1EA0,0x41,0x323}, {0x1EA1,0x61,0x323}, {0x1EA2,0x41,0x309},
    {0x1EA3,0x61,0x309}, {0x1EA4,0xC2,0x301}, {0x1EA5,0xE2,0x301}, {0x1EA6,0xC2,0x300},
    {0x1EA7,0xE2,0x300}, {0x1EA8,0xC2,0x309}, {0x1EA9,0xE2,0x309}, {0x1EAA,0xC2,0x303},
    {0x1EAB,0xE2,0x303}, {0x1EAC,0x1EA0,0x302}, {0x1EAD,0x1EA1,0x302}, {0x1EAE,0x102,0x301},
    {0x1EAF,0x103,0x301}, {0x1EB0,0x102,0x300}, {0x1EB1,0x103,0x300}, {0x1EB2,0x102,0x309},
    {0x1EB3,0x103,0x309}, {0x1EB4,0x102,0x303}, {0x1EB5,0x103,0x303}, {0x1EB6,0x1EA0,0x306},
    {0x1EB7,0x1EA1,0x306}, {0x1EB8,0x45,0x323}, {0x1EB9,0x65,0x323}, {0x1EBA,0x45,0x309},
    {0x1EBB,0x65,0x309}, {0x1EBC,0x45,0x303}, {0x1EBD,0x65,0x303}, {0x1EBE,0xCA,0x301},
    {0x1EBF,0xEA,0x301}, {0x1EC0,0xCA,0x300}, {0x1EC1,0xEA,0x300}, {0x1EC2,0xCA,0x309},
    {0x1EC3,0xEA,0x309}, {0x1EC4,0xCA,0x303}, {0x1EC5,0xEA,0x303}, {0x1EC6,0x1EB8,0x302},
    {0x1EC7,0x1EB9,0x302}, {0x1EC8,0x49,0x309}, {0x1EC9,0x69,0x309}, {0x1ECA,0x49,0x323},
    {0x1ECB,0x69,0x323}, {0x1ECC,0x4F,0x323}, {0x1ECD,0x6F,0x323}, {0x1ECE,0x4F,0x309},
    {0x1ECF,0x6F,0x309}, {0x1ED0,0xD4,0x301}, {0x1ED1,0xF4,0x301}, {0x1ED2,0xD4,0x300},
    {0x1ED3,0xF4,0x300}, {0x1ED4,0xD4,0x309}, {0x1ED5,0xF4,0x309}, {0x1ED6,0xD4,0x303},
    {0x1ED7,0xF4,0x303}, {0x1ED8,0x1ECC,0x302}, {0x1ED9,0x1ECD,0x302}, {0x1EDA,0x1A0,0x301},
    {0x1EDB,0x1A1,0x301}, {0x1EDC,0x1A0,0x300}, {0x1EDD,0x1A1,0x300}, {0x1EDE,0x1A0,0x309},
    {0x1EDF,0x1A1,0x309}, {0x1EE0,0x1A0,0x303}, {0x1EE1,0x1A1,0x303}, {0x1EE2,0x1A0,0x323},
    {0x1EE3,0x1A1,0x323}, {0x1EE4,0x55,0x323}, {0x1EE5,0x75,0x323}, {0x1EE6,0x55,0x309},
    {0x1EE7,0x75,0x309}, {0x1EE8,0x1AF,0x301}, {0x1EE9,0x1B0,0x301}, {0x1EEA,0x1AF,0x300},
    {0x1EEB,0x1B0,0x300}, {0x1EEC,0x1AF,0x309}, {0x1EED,0x1B0,0x309}, {0x1EEE,0x1AF,0x303},
    {0x1EEF,0x1B0,0x303}, {0x1EF0,0x1AF,0x323}, {0x1EF1,0x1B0,0x323}, {0x1EF2,0x59,0x300},
    {0x1EF3,0x79,0x300}, {0x1EF4,0x59,0x323}, {0x1EF5,0x79,0x323}, {0x1EF6,0x59,0x309},
    {0x1EF7,0x79,0x309}, {0x1EF8,0x59,0x303}, {0x1EF9,0x79,0x303}, {0x1F00,0x3B1,0x313},
    {0x1F01,0x3B1,0x314}, {0x1F02,0x1F00,0x300}, {0x1F03,0x1F01,0x300}, {0x1F04,0x1F00,0x301},
    {0x1F05,0x1F01,0x301}, {0x1F06,0x1F00,0x342}, {0x1F07,0x1F01,0x342}, {0x1F08,0x391,0x313},
    {0x1F09,0x391,0x314}, {0x1F0A,0x1F08,0x300}, {0x1F0B,0x1F09,0x300}, {0x1F0C,0x1F08,0x301},
    {0x1F0D,0x1F09,0x301}, {0x1F0E,0x1F08,0x342}, {0x1F0F,0x1F09,0x342}, {0x1F10,0x3B5,0x313},
    {0x1F11,0x3B5,0x314}, {0x1F12,0x1F10,0x300}, {0x1F13,0x1F11,0x300}, {0x1F14,0x1F10,0x301},
    {0x1F15,0x1F11,0x301}, {0x1F18,0x395,0x313}, {0x1F19,0x395,0x314}, {0x1F1A,0x1F18,0x300},
    {0x1F1B,0x1F19,0x300}, {0x1F1C,0x1F18,0x301}, {0x1F1D,0x1F19,0x301}, {0x1F20,0x3B7,0x313},
    {0x1F21,0x3B7,0x314}, {0x1F22,0x1F20,0x300}, {0x1F23,0x1F21,0x300}, {0x1F24,0x1F20,0x301},
    {0x1F25,0x1F21,0x301}, {0x1F26,0x1F20,0x342}, {0x1F27,0x1F21,0x342}, {0x1F28,0x397,0x313},
    {0x1F29,0x397,0x314}, {0x1F2A,0x1F28,0x300}, {0x1F2B,0x1F29,0x300}, {0x1F2C,0x1F28,0x301},
    {0x1F2D,0x1F29,0x301}, {0x1F2E,0x1F28,0x342}, {0x1F2F,0x1F29,0x342}, {0x1F30,0x3B9,0x313},
    {0x1F31,0x3B9,0x314}, {0x1F32,0x1F30,0x300}, {0x1F33,0x1F31,0x300}, {0x1F34,0x1F30,0x301},
    {0x1F35,0x1F31,0x301}, {0x1F36,0x1F30,0x342}, {0x1F37,0x1F31,0x342}, {0x1F38,0x399,0x313},
    {0x1F39,0x399,0x314}, {0x1F3A,0x1F38,0x300}, {0x1F3B,0x1F39,0x300}, {0x1F3C,0x1F38,0x301},
    {0x1F3D,0x1F39,0x301}, {0x1F3E,0x1F38,0x342}, {0x1F3F,0x1F39,0x342}, {0x1F40,0x3BF,0x313},
    {0x1F41,0x3BF,0x314}, {0x1F42,0x1F40,0x300}, {0x1F43,0x1F41,0x300}, {0x1F44,0x1F40,0x301},
    {0x1F45,0x1F41,0x301}, {0x1F48,0x39F,0x313}, {0x1F49,0x39F,0x314}, {0x1F4A,0x1F48,0x300},
    {0x1F4B,0x1F49,0x300}, {0x1F4C,0x1F48,0x301}, {0x1F4D,0x1F49,0x301}, {0x1F50,0x3C5,0x313},
    {0x1F51,0x3C5,0x314}, {0x1F52,0x1F50,0x300}, {0x1F53,0x1F51,0x300}, {0x1F54,0x1F50,0x301},
    {0x1F55,0x1F51,0x301}, {0x1F56,0x1F50,0x342}, {0x1F57,0x1F51,0x342}, {0x1F59,0x3A5,0x314},
    {0x1F5B,0x1F59,0x300}, {0x1F5D,0x1F59,0x301}, {0x1F5F,0x1F59,0x342}, {0x1F60,0x3C9,0x313},
    {0x1F61,0x3C9,0x314}, {0x1F62,0x1F60,0x300}, {0x1F63,0x1F61,0x300}, {0x1F64,0x1F60,0x301},
    {0x1F65,0x1F61,0x301}, {0x1F66,0x1F60,0x342}, {0x1F67,0x1F61,0x342}, {0x1F68,0x3A9,0x313},
    {0x1F69,0x3A9,0x314}, {0x1F6A,0x1F68,0x300}, {0x1F6B,0x1F69,0x300}, {0x1F6C,0x1F68,0x301},
    {0x1F6D,0x1F69,0x301}, {0x1F6E,0x1F68,0x342}, {0x1F6F,0x1F69,0x342}, {0x1F70,0x3B1,0x300},
    {0x1F71,0x3AC,0x0}, {0x1F72,0x3B5,0x300}, {0x1F73,0x3AD,0x0}, {0x1F74,0x3B7,0x300},
    {0x1F75,0x3AE,0x0}, {0x1F76,0x3B9,0x300}, {0x1F77,0x3AF,0x0}, {0x1F78,0x3BF,0x300},
    {0x1F79,0x3CC,0x0}, {0x1F7A,0x3C5,0x300}, {0x1F7B,0x3CD,0x0}, {0x1F7C,0x3C9,0x300},
    {0x1F7D,0x3CE,0x0}, {0x1F80,0x1F00,0x345}, {0x1F81,0x1F01,0x345}, {0x1F82,0x1F02,0x345},
    {0x1F83,0x1F03,0x345}, {0x1F84,0x1F04,0x345}, {0x1F85,0x1F05,0x345}, {0x1F86,0x1F06,0x345},
    {0x1F87,0x1F07,0x345}, {0x1F88,0x1F08,0x345}, {0x1F89,0x1F09,0x345}, {0x1F8A,0x1F0A,0x345},
    {0x1F8B,0x1F0B,0x345}, {0x1F8C,0x1F0C,0x345}, {0x1F8D,0x1F0D,0x345}, {0x1F8E,0x1F0E,0x345},
    {0x1F8F,0x1F0F,0x345}, {0x1F90,0x1F20,0x345}, {0x1F91,0x1F21,0x345}, {0x1F92,0x1F22,0x345},
    {0x1F93,0x1F23,0x345}, {0x1F94,0x1F24,0x345}, {0x1F95,0x1F25,0x345}, {0x1F96,0x1F26,0x345},
    {0x1F97,0x1F27,0x345}, {0x1F98,0x1F28,0x345}, {0x1F99,0x1F29,0x345}, {0x1F9A,0x1F2A,0x345},
    {0x1F9B,0x1F2B,0x345}, {0x1F9C,0x1F2C,0x345}, {0x1F9D,0x1F2D,0x345}, {0x1F9E,0x1F2E,0x345},
    {0x1F9F,0x1F2F,0x345}, {0x1FA0,0x1F60,0x345}, {0x1FA1,0x1F61,0x345}, {0x1FA2,0x1F62,0x345},
    {0x1FA3,0x1F63,0x345}, {0x1FA4,0x1F64,0x345}, {0x1FA5,0x1F65,0x345}, {0x1FA6,0x1F66,0x345},
    {0x1FA7,0x1F67,0x345}, {0x1FA8,0x1F68,0x345}, {0x1FA9,0x1F69,0x345}, {0x1FAA,0x1F6A,0x345},
    {0x1FAB,0x1F6B,0x345}, {0x1FAC,0x1F6C,0x345}, {0x1FAD,0x1F6D,0x345}, {0x1FAE,0x1F6E,0x345},
    {0x1FAF,0x1F6F,0x345}, {0x1FB0,0x3B1,0x306}, {0x1FB1,0x3B1,0x304}, {0x1FB2,0x1F70,0x345},
    {0x1FB3,0x3B1,0x345}, {0x1FB4,0x3AC,0x345}, {0x1FB6,0x3B1,0x342}, {0x1FB7,0x1FB6,0x345},
    {0x1FB8,0x391,0x306}, {0x1FB9,0x391,0x304}, {0x1FBA,0x391,0x300}, {0x1FBB,0x386,0x0},
    {0x1FBC,0x391,0x345}, {0x1FBE,0x3B9,0x0}, {0x1FC1,0xA8,0x342}, {0x1FC2,0x1F74,0x345},
    {0x1FC3,0x3B7,0x345}, {0x1FC4,0x3AE,0x345}, {0x1FC6,0x3B7,0x342}, {0x1FC7,0x1FC6,0x345},
    {0x1FC8,0x395,0x300}, {0x1FC9,0x388,0x0}, {0x1FCA,0x397,0x300}, {0x1FCB,0x389,0x0},
    {0x1FCC,0x397,0x345}, {0x1FCD,0x1FBF,0x300}, {0x1FCE,0x1FBF,0x301}, {0x1FCF,0x1FBF,0x342},
    {0x1FD0,0x3B9,0x306}, {0x1FD1,0x3B9,0x304}, {0x1FD2,0x3CA,0x300}, {0x1FD3,0x390,0x0},
    {0x1FD6,0x3B9,0x342}, {0x1FD7,0x3CA,0x342}, {0x1FD8,0x399,0x306}, {0x1FD9,0x399,0x304},
    {0x1FDA,0x399,0x300}, {0x1FDB,0x38A,0x0}, {0x1FDD,0x1FFE,0x300}, {0x1FDE,0x1FFE,0x301},
    {0x1FDF,0x1FFE,0x342}, {0x1FE0,0x3C5,0x306}, {0x1FE1,0x3C5,0x304}, {0x1FE2,0x3CB,0x300},
    {0x1FE3,0x3B0,0x0}, {0x1FE4,0x3C1,0x313}, {0x1FE5,0x3C1,0x314}, {0x1FE6,0x3C5,0x342},
    {0x1FE7,0x3CB,0x342}, {0x1FE8,0x3A5,0x306}, {0x1FE9,0x3A5,0x304}, {0x1FEA,0x3A5,0x300},
    {0x1FEB,0x38E,0x0}, {0x1FEC,0x3A1,0x314}, {0x1FED,0xA8,0x300}, {0x1FEE,0x385,0x0},
    {0x1FEF,0x60,0x0}, {0x1FF2,0x1F7C,0x345}, {0x1FF3,0x3C9,0x345}, {0x1FF4,0x3CE,0x345},
    {0x1FF6,0x3C9,0x342}, {0x1FF7,0x1FF6,0x345}, {0x1FF8,0x39F,0x300}, {0x1FF9,0x38C,0x0},
    {0x1FFA,0x3A9,0x300}, {0x1FFB,0x38F,0x0}, {0x1FFC,0x3A9,0x345}, {0x1FFD,0xB4,0x0},
    {0x2000,0x2002,0x0}, {0x2001,0x2003,0x0}, {0x2126,0x3A9,0x0}, {0x212A,0x4B,0x0},
    {0x212B,0xC5,0x0}, {0x219A,0x2190,0x338}, {0x219B,0x2192,0x338}, {0x21AE,0x2194,0x338},
    {0x21CD,0x21D0,0x338}, {0x21CE,0x21D4,0x338}, {0x21CF,0x21D2,0x338}, {0x2204,0x2203,0x338},
    {0x2209,0x2208,0x338}, {0x220C,0x220B,0x338}, {0x2224,0x2223,0x338}, {0x2226,0x2225,0x338},
    {0x2241,0x223C,0x338}, {0x2244,0x2243,0x338}, {0x2247,0x2245,0x338}, {0x2249,0x2248,0x338},
    {0x2260,0x3D,0x338}, {0x2262,0x2261,0x338}, {0x226D,0x224D,0x338}, {0x226E,0x3C,0x338},
    {0x226F,0x3E,0x338}, {0x2270,0x2264,0x338}, {0x2271,0x2265,0x338}, {0x2274,0x2272,0x338},
    {0x2275,0x2273,0x338}, {0x2278,0x2276,0x338}, {0x2279,0x2277,0x338}, {0x2280,0x227A,0x338},
    {0x2281,0x227B,0x338}, {0x2284,0x2282,0x338}, {0x2285,0x2283,0x338}, {0x2288,0x2286,0x338},
    {0x2289,0x2287,0x338}, {0x22AC,0x22A2,0x338}, {0x22AD,0x22A8,0x338}, {0x22AE,0x22A9,0x338},
    {0x22AF,0x22AB,0x338}, {0x22E0,0x227C,0x338}, {0x22E1,0x227D,0x338}, {0x22E2,0x2291,0x338},
    {0x22E3,0x2292,0x338}, {0x22EA,0x22B2,0x338}, {0x22EB,0x22B3,0x338}, {0x22EC,0x22B4,0x338},
    {0x22ED,0x22B5,0x338}, {0x2329,0x3008,0x0}, {0x232A,0x3009,0x0}, {0x2ADC,0x2ADD,0x338},
    {0x304C,0x304B,0x3099}, {0x304E,0x304D,0x3099}, {0x3050,0x304F,0x3099}, {0x3052,0x3051,0x3099},
    {0x3054,0x3053,0x3099}, {0x3056,0x3055,0x3099}, {0x3058,0x3057,0x3099}, {0x305A,0x3059,0x3099},
    {0x305C,0x305B,0x3099}, {0x305E,0x305D,0x3099}, {0x3060,0x305F,0x3099}, {0x3062,0x3061,0x3099},
    {0x3065,0x3064,0x3099}, {0x3067,0x3066,0x3099}, {0x3069,0x3068,0x3099}, {0x3070,0x306F,0x3099},
    {0x3071,0x306F,0x309A}, {0x3073,0x3072,0x3099}, {0x3074,0x3072,0x309A}, {0x3076,0x3075,0x3099},
    {0x3077,0x3075,0x309A}, {0x3079,0x3078,0x3099}, {0x307A,0x3078,0x309A}, {0x307C,0x307B,0x3099},
    {0x307D,0x307B,0x309A}, {0x3094,0x3046,0x3099}, {0x309E,0x309D,0x3099}, {0x30AC,0x30AB,0x3099},
    {0x30AE,0x30AD,0x3099}, {0x30B0,0x30AF,0x3099}, {0x30B2,0x30B1,0x3099}, {0x30B4,0x30B3,0x3099},
    {0x30B6,0x30B5,0x3099}, {0x30B8,0x30B7,0x3099}, {0x30BA,0x30B9,0x3099}, {0x30BC,0x30BB,0x3099},
    {0x30BE,0x30BD,0x3099}, {0x30C0,0x30BF,0x3099}, {0x30C2,0x30C1,0x3099}, {0x30C5,0x30C4,0x3099},
    {0x30C7,0x30C6,0x3099}, {0x30C9,0x30C8,0x3099}, {0x30D0,0x30CF,0x3099}, {0x30D1,0x30CF,0x309A},
    {0x30D3,0x30D2,0x3099}, {0x30D4,0x30D2,0x309A}, {0x30D6,0x30D5,0x3099}, {0x30D7,0x30D5,0x309A},
    {0x30D9,0x30D8,0x3099}, {0x30DA,0x30D8,0x309A}, {0x30DC,0x30DB,0x3099}, {0x30DD,0x30DB,0x309A},
    {0x30F4,0x30A6,0x3099}, {0x30F7,0x30EF,0x3099}, {0x30F8,0x30F0,0x3099}, {0x30F9,0x30F1,0x3099},
    {0x30FA,0x30F2,0x3099}, {0x30FE,0x30FD,0x3099}, {0xF900,0x8C48,0x0}, {0xF901,0x66F4,0x0},
    {0xF902,0x8ECA,0x0}, {0xF903,0x8CC8,0x0}, {0xF904,0x6ED1,0x0}, {0xF905,0x4E32,0x0},
    {0xF906,0x53E5,0x0}, {0xF907,0x9F9C,0x0}, {0xF908,0x9F9C,0x0}, {0xF909,0x5951,0x0},
    {0xF90A,0x91D1,0x0}, {0xF90B,0x5587,0x0}, {0xF90C,0x5948,0x0}, {0xF90D,0x61F6,0x0},
    {0xF90E,0x7669,0x0}, {0xF90F,0x7F85,0x0}, {0xF910,0x863F,0x0}, {0xF911,0x87BA,0x0},
    {0xF912,0x88F8,0x0}, {0xF913,0x908F,0x0}, {0xF914,0x6A02,0x0}, {0xF915,0x6D1B,0x0},
    {0xF916,0x70D9,0x0}, {0xF917,0x73DE,0x0}, {0xF918,0x843D,0x0}, {0xF919,0x916A,0x0},
    {0xF91A,0x99F1,0x0}, {0xF91B,0x4E82,0x0}, {0xF91C,0x5375,0x0}, {0xF91D,0x6B04,0x0},
    {0xF91E,0x721B,0x0}, {0xF91F,0x862D,0x0}, {0xF920,0x9E1E,0x0}, {0xF921,0x5D50,0x0},
    {0xF922,0x6FEB,0x0}, {0xF923,0x85CD,0x0}, {0xF924,0x8964,0x0}, {0xF925,0x62C9,0x0},
    {0xF926,0x81D8,0x0}, {0xF927,0x881F,0x0}, {0xF928,0x5ECA,0x0}, {0xF929,0x6717,0x0},
    {0xF92A,0x6D6A,0x0}, {0xF92B,0x72FC,0x0}, {0xF92C,0x90CE,0x0}, {0xF92D,0x4F86,0x0},
    {0xF92E,0x51B7,0x0}, {0xF92F,0x52DE,0x0}, {0xF930,0x64C4,0x0}, {0xF931,0x6AD3,0x0},
    {0xF932,0x7210,0x0}, {0xF933,0x76E7,0x0}, {0xF934,0x8001,0x0}, {0xF935,0x8606,0x0},
    {0xF936,0x865C,0x0}, {0xF937,0x8DEF,0x0}, {0xF938,0x9732,0x0}, {0xF939,0x9B6F,0x0},
    {0xF93A,0x9DFA,0x0}, {0xF93B,0x788C,0x0}, {0xF93C,0x797F,0x0}, {0xF93D,0x7DA0,0x0},
    {0xF93E,0x83C9,0x0}, {0xF93F,0x9304,0x0}, {0xF940,0x9E7F,0x0}, {0xF941,0x8AD6,0x0},
    {0xF942,0x58DF,0x0}, {0xF943,0x5F04,0x0}, {0xF944,0x7C60,0x0}, {0xF945,0x807E,0x0},
    {0xF946,0x7262,0x0}, {0xF947,0x78CA,0x0}, {0xF948,0x8CC2,0x0}, {0xF949,0x96F7,0x0},
    {0xF94A,0x58D8,0x0}, {0xF94B,0x5C62,0x0}, {0xF94C,0x6A13,0x0}, {0xF94D,0x6DDA,0x0},
    {0xF94E,0x6F0F,0x0}, {0xF94F,0x7D2F,0x0}, {0xF950,0x7E37,0x0}, {0xF951,0x964B,0x0},
    {0xF952,0x52D2,0x0}, {0xF953,0x808B,0x0}, {0xF954,0x51DC,0x0}, {0xF955,0x51CC,0x0},
    {0xF956,0x7A1C,0x0}, {0xF957,0x7DBE,0x0}, {0xF958,0x83F1,0x0}, {0xF959,0x9675,0x0},
    {0xF95A,0x8B80,0x0}, {0xF95B,0x62CF,0x0}, {0xF95C,0x6A02,0x0}, {0xF95D,0x8AFE,0x0},
    {0xF95E,0x4E39,0x0}, {0xF95F,0x5BE7,0x0}, {0xF960,0x6012,0x0}, {0xF961,0x7387,0x0},
    {0xF962,0x7570,0x0}, {0xF963,0x5317,0x0}, {0xF964,0x78FB,0x0}, {0xF965,0x4FBF,0x0},
    {0xF966,0x5FA9,0x0}, {0xF967,0x4E0D,0x0}, {0xF968,0x6CCC,0x0}, {0xF969,0x6578,0x0},
    {0xF96A,0x7D22,0x0}, {0xF96B,0x53C3,0x0}, {0xF96C,0x585E,0x0}, {0xF96D,0x7701,0x0},
    {0xF96E,0x8449,0x0}, {0xF96F,0x8AAA,0x0}, {0xF970,0x6BBA,0x0}, {0xF971,0x8FB0,0x0},
    {0xF972,0x6C88,0x0}, {0xF973,0x62FE,0x0}, {0xF974,0x82E5,0x0}, {0xF975,0x63A0,0x0},
    {0xF976,0x7565,0x0}, {0xF977,0x4EAE,0x0}, {0xF978,0x5169,0x0}, {0xF979,0x51C9,0x0},
    {0xF97A,0x6881,0x0}, {0xF97B,0x7CE7,0x0}, {0xF97C,0x826F,0x0}, {0xF97D,0x8AD2,0x0},
    {0xF97E,0x91CF,0x0}, {0xF97F,0x52F5,0x0}, {0xF980,0x5442,0x0}, {0xF981,0x5973,0x0},
    {0xF982,0x5EEC,0x0}, {0xF983,0x65C5,0x0}, {0xF984,0x6FFE,0x0}, {0xF985,0x792A,0x0},
    {0xF986,0x95AD,0x0}, {0xF987,0x9A6A,0x0}, {0xF988,0x9E97,0x0}, {0xF989,0x9ECE,0x0},
    {0xF98A,0x529B,0x0}, {0xF98B,0x66C6,0x0}, {0xF98C,0x6B77,0x0}, {0xF98D,0x8F62,0x0},
    {0xF98E,0x5E74,0x0}, {0xF98F,0x6190,0x0}, {0xF990,0x6200,0x0}, {0xF991,0x649A,0x0},
    {0xF992,0x6F23,0x0}, {0xF993,0x7149,0x0}, {0xF994,0x7489,0x0}, {0xF995,0x79CA,0x0},
    {0xF996,0x7DF4,0x0}, {0xF997,0x806F,0x0}, {0xF998,0x8F26,0x0}, {0xF999,0x84EE,0x0},
    {0xF99A,0x9023,0x0}, {0xF99B,0x934A,0x0}, {0xF99C,0x5217,0x0}, {0xF99D,0x52A3,0x0},
    {0xF99E,0x54BD,0x0}, {0xF99F,0x70C8,0x0}, {0xF9A0,0x88C2,0x0}, {0xF9A1,0x8AAA,0x0},
    {0xF9A2,0x5EC9,0x0}, {0xF9A3,0x5FF5,0x0}, {0xF9A4,0x637B,0x0}, {0xF9A5,0x6BAE,0x0},
    {0xF9A6,0x7C3E,0x0}, {0xF9A7,0x7375,0x0}, {0xF9A8,0x4EE4,0x0}, {0xF9A9,0x56F9,0x0},
    {0xF9AA,0x5BE7,0x0}, {0xF9AB,0x5DBA,0x0}, {0xF9AC,0x601C,0x0}, {0xF9AD,0x73B2,0x0},
    {0xF9AE,0x7469,0x0}, {0xF9AF,0x7F9A,0x0}, {0xF9B0,0x8046,0x0}, {0xF9B1,0x9234,0x0},
    {0xF9B2,0x96F6,0x0}, {0xF9B3,0x9748,0x0}, {0xF9B4,0x9818,0x0}, {0xF9B5,0x4F8B,0x0},
    {0xF9B6,0x79AE,0x0}, {0xF9B7,0x91B4,0x0}, {0xF9B8,0x96B8,0x0}, {0xF9B9,0x60E1,0x0},
    {0xF9BA,0x4E86,0x0}, {0xF9BB,0x50DA,0x0}, {0xF9BC,0x5BEE,0x0}, {0xF9BD,0x5C3F,0x0},
    {0xF9BE,0x6599,0x0}, {0xF9BF,0x6A02,0x0}, {0xF9C0,0x71CE,0x0}, {0xF9C1,0x7642,0x0},
    {0xF9C2,0x84FC,0x0}, {0xF9C3,0x907C,0x0}, {0xF9C4,0x9F8D,0x0}, {0xF9C5,0x6688,0x0},
    {0xF9C6,0x962E,0x0}, {0xF9C7,0x5289,0x0}, {0xF9C8,0x677B,0x0}, {0xF9C9,0x67F3,0x0},
    {0xF9CA,0x6D41,0x0}, {0xF9CB,0x6E9C,0x0}, {0xF9CC,0x7409,0x0}, {0xF9CD,0x7559,0x0},
    {0xF9CE,0x786B,0x0}, {0xF9CF,0x7D10,0x0}, {0xF9D0,0x985E,0x0}, {0xF9D1,0x516D,0x0},
    {0xF9D2,0x622E,0x0}, {0xF9D3,0x9678,0x0}, {0xF9D4,0x502B,0x0}, {0xF9D5,0x5D19,0x0},
    {0xF9D6,0x6DEA,0x0}, {0xF9D7,0x8F2A,0x0}, {0xF9D8,0x5F8B,0x0}, {0xF9D9,0x6144,0x0},
    {0xF9DA,0x6817,0x0}, {0xF9DB,0x7387,0x0}, {0xF9DC,0x9686,0x0}, {0xF9DD,0x5229,0x0},
    {0xF9DE,0x540F,0x0}, {0xF9DF,0x5C65,0x0}, {0xF9E0,0x6613,0x0}, {0xF9E1,0x674E,0x0},
    {0xF9E2,0x68A8,0x0}, {0xF9E3,0x6CE5,0x0}, {0xF9E4,0x7406,0x0}, {0xF9E5,0x75E2,0x0},
    {0xF9E6,0x7F79,0x0}, {0xF9E7,0x88CF,0x0}, {0xF9E8,0x88E1,0x0}, {0xF9E9,0x91CC,0x0},
    {0xF9EA,0x96E2,0x0}, {0xF9EB,0x533F,0x0}, {0xF9EC,0x6EBA,0x0}, {0xF9ED,0x541D,0x0},
    {0xF9EE,0x71D0,0x0}, {0xF9EF,0x7498,0x0}, {0xF9F0,0x85FA,0x0}, {0xF9F1,0x96A3,0x0},
    {0xF9F2,0x9C57,0x0}, {0xF9F3,0x9E9F,0x0}, {0xF9F4,0x6797,0x0}, {0xF9F5,0x6DCB,0x0},
    {0xF9F6,0x81E8,0x0}, {0xF9F7,0x7ACB,0x0}, {0xF9F8,0x7B20,0x0}, {0xF9F9,0x7C92,0x0},
    {0xF9FA,0x72C0,0x0}, {0xF9FB,0x7099,0x0}, {0xF9FC,0x8B58,0x0}, {0xF9FD,0x4EC0,0x0},
    {0xF9FE,0x8336,0x0}, {0xF9FF,0x523A,0x0}, {0xFA00,0x5207,0x0}, {0xFA01,0x5EA6,0x0},
    {0xFA02,0x62D3,0x0}, {0xFA03,0x7CD6,0x0}, {0xFA04,0x5B85,0x0}, {0xFA05,0x6D1E,0x0},
    {0xFA06,0x66B4,0x0}, {0xFA07,0x8F3B,0x0}, {0xFA08,0x884C,0x0}, {0xFA09,0x964D,0x0},
    {0xFA0A,0x898B,0x0}, {0xFA0B,0x5ED3,0x0}, {0xFA0C,0x5140,0x0}, {0xFA0D,0x55C0,0x0},
    {0xFA10,0x585A,0x0}, {0xFA12,0x6674,0x0}, {0xFA15,0x51DE,0x0}, {0xFA16,0x732A,0x0},
    {0xFA17,0x76CA,0x0}, {0xFA18,0x793C,0x0}, {0xFA19,0x795E,0x0}, {0xFA1A,0x7965,0x0},
    {0xFA1B,0x798F,0x0}, {0xFA1C,0x9756,0x0}, {0xFA1D,0x7CBE,0x0}, {0xFA1E,0x7FBD,0x0},
    {0xFA20,0x8612,0x0}, {0xFA22,0x8AF8,0x0}, {0xFA25,0x9038,0x0}, {0xFA26,0x90FD,0x0},
    {0xFA2A,0x98EF,0x0}, {0xFA2B,0x98FC,0x0}, {0xFA2C,0x9928,0x0}, {0xFA2D,0x9DB4,0x0},
    {0xFA2E,0x90DE,0x0}, {0xFA2F,0x96B7,0x0}, {0xFA30,0x4FAE,0x0}, {0xFA31,0x50E7,0x0},
    {0xFA32,0x514D,0x0}, {0xFA33,0x52C9,0x0}, {0xFA34,0x52E4,0x0}, {0xFA35,0x5351,0x0},
    {0xFA36,0x559D,0x0}, {0xFA37,0x5606,0x0}, {0xFA38,0x5668,0x0}, {0xFA39,0x5840,0x0},
    {0xFA3A,0x58A8,0x0}, {0xFA3B,0x5C64,0x0}, {0xFA3C,0x5C6E,0x0}, {0xFA3D,0x6094,0x0},
    {0xFA3E,0x6168,0x0}, {0xFA3F,0x618E,0x0}, {0xFA40,0x61F2,0x0}, {0xFA41,0x654F,0x0},
    {0xFA42,0x65E2,0x0}, {0xFA43,0x6691,0x0}, {0xFA44,0x6885,0x0}, {0xFA45,0x6D77,0x0},
    {0xFA46,0x6E1A,0x0}, {0xFA47,0x6F22,0x0}, {0xFA48,0x716E,0x0}, {0xFA49,0x722B,0x0},
    {0xFA4A,0x7422,0x0}, {0xFA4B,0x7891,0x0}, {0xFA4C,0x793E,0x0}, {0xFA4D,0x7949,0x0},
    {0xFA4E,0x7948,0x0}, {0xFA4F,0x7950,0x0}, {0xFA50,0x7956,0x0}, {0xFA51,0x795D,0x0},
    {0xFA52,0x798D,0x0}, {0xFA53,0x798E,0x0}, {0xFA54,0x7A40,0x0}, {0xFA55,0x7A81,0x0},
    {0xFA56,0x7BC0,0x0}, {0xFA57,0x7DF4,0x0}, {0xFA58,0x7E09,0x0}, {0xFA59,0x7E41,0x0},
    {0xFA5A,0x7F72,0x0}, {0xFA5B,0x8005,0x0}, {0xFA5C,0x81ED,0x0}, {0xFA5D,0x8279,0x0},
    {0xFA5E,0x8279,0x0}, {0xFA5F,0x8457,0x0}, {0xFA60,0x8910,0x0}, {0xFA61,0x8996,0x0},
    {0xFA62,0x8B01,0x0}, {0xFA63,0x8B39,0x0}, {0xFA64,0x8CD3,0x0}, {0xFA65,0x8D08,0x0},
    {0xFA66,0x8FB6,0x0}, {0xFA67,0x9038,0x0}, {0xFA68,0x96E3,0x0}, {0xFA69,0x97FF,0x0},
    {0xFA6A,0x983B,0x0}, {0xFA6B,0x6075,0x0}, {0xFA6C,0x242EE,0x0}, {0xFA6D,0x8218,0x0},
    {0xFA70,0x4E26,0x0}, {0xFA71,0x51B5,0x0}, {0xFA72,0x5168,0x0}, {0xFA73,0x4F80,0x0},
    {0xFA74,0x5145,0x0}, {0xFA75,0x5180,0x0}, {0xFA76,0x52C7,0x0}, {0xFA77,0x52FA,0x0},
    {0xFA78,0x559D,0x0}, {0xFA79,0x5555,0x0}, {0xFA7A,0x5599,0x0}, {0xFA7B,0x55E2,0x0},
    {0xFA7C,0x585A,0x0}, {0xFA7D,0x58B3,0x0}, {0xFA7E,0x5944,0x0}, {0xFA7F,0x5954,0x0},
    {0xFA80,0x5A62,0x0}, {0xFA81,0x5B28,0x0}, {0xFA82,0x5ED2,0x0}, {0xFA83,0x5ED9,0x0},
    {0xFA84,0x5F69,0x0}, {0xFA85,0x5FAD,0x0}, {0xFA86,0x60D8,0x0}, {0xFA87,0x614E,0x0},
    {0xFA88,0x6108,0x0}, {0xFA89,0x618E,0x0}, {0xFA8A,0x6160,0x0}, {0xFA8B,0x61F2,0x0},
    {0xFA8C,0x6234,0x0}, {0xFA8D,0x63C4,0x0}, {0xFA8E,0x641C,0x0}, {0xFA8F,0x6452,0x0},
    {0xFA90,0x6556,0x0}, {0xFA91,0x6674,0x0}, {0xFA92,0x6717,0x0}, {0xFA93,0x671B,0x0},
    {0xFA94,0x6756,0x0}, {0xFA95,0x6B79,0x0}, {0xFA96,0x6BBA,0x0}, {0xFA97,0x6D41,0x0},
    {0xFA98,0x6EDB,0x0}, {0xFA99,0x6ECB,0x0}, {0xFA9A,0x6F22,0x0}, {0xFA9B,0x701E,0x0},
    {0xFA9C,0x716E,0x0}, {0xFA9D,0x77A7,0x0}, {0xFA9E,0x7235,0x0}, {0xFA9F,0x72AF,0x0},
    {0xFAA0,0x732A,0x0}, {0xFAA1,0x7471,0x0}, {0xFAA2,0x7506,0x0}, {0xFAA3,0x753B,0x0},
    {0xFAA4,0x761D,0x0}, {0xFAA5,0x761F,0x0}, {0xFAA6,0x76CA,0x0}, {0xFAA7,0x76DB,0x0},
    {0xFAA8,0x76F4,0x0}, {0xFAA9,0x774A,0x0}, {0xFAAA,0x7740,0x0}, {0xFAAB,0x78CC,0x0},
    {0xFAAC,0x7AB1,0x0}, {0xFAAD,0x7BC0,0x0}, {0xFAAE,0x7C7B,0x0}, {0xFAAF,0x7D5B,0x0},
    {0xFAB0,0x7DF4,0x0}, {0xFAB1,0x7F3E,0x0}, {0xFAB2,0x8005,0x0}, {0xFAB3,0x8352,0x0},
    {0xFAB4,0x83EF,0x0}, {0xFAB5,0x8779,0x0}, {0xFAB6,0x8941,0x0}, {0xFAB7,0x8986,0x0},
    {0xFAB8,0x8996,0x0}, {0xFAB9,0x8ABF,0x0}, {0xFABA,0x8AF8,0x0}, {0xFABB,0x8ACB,0x0},
    {0xFABC,0x8B01,0x0}, {0xFABD,0x8AFE,0x0}, {0xFABE,0x8AED,0x0}, {0xFABF,0x8B39,0x0},
    {0xFAC0,0x8B8A,0x0}, {0xFAC1,0x8D08,0x0}, {0xFAC2,0x8F38,0x0}, {0xFAC3,0x9072,0x0},
    {0xFAC4,0x9199,0x0}, {0xFAC5,0x9276,0x0}, {0xFAC6,0x967C,0x0}, {0xFAC7,0x96E3,0x0},
    {0xFAC8,0x9756,0x0}, {0xFAC9,0x97DB,0x0}, {0xFACA,0x97FF,0x0}, {0xFACB,0x980B,0x0},
    {0xFACC,0x983B,0x0}, {0xFACD,0x9B12,0x0}, {0xFACE,0x9F9C,0x0}, {0xFACF,0x2284A,0x0},
    {0xFAD0,0x22844,0x0}, {0xFAD1,0x233D5,0x0}, {0xFAD2,0x3B9D,0x0}, {0xFAD3,0x4018,0x0},
    {0xFAD4,0x4039,0x0}, {0xFAD5,0x25249,0x0}, {0xFAD6,0x25CD0,0x0}, {0xFAD7,0x27ED3,0x0},
    {0xFAD8,0x9F43,0x0}, {0xFAD9,0x9F8E,0x0}, {0xFB1D,0x5D9,0x5B4}, {0xFB1F,0x5F2,0x5B7},
    {0xFB2A,0x5E9,0x5C1}, {0xFB2B,0x5E9,0x5C2}, {0xFB2C,0xFB49,0x5C1}, {0xFB2D,0xFB49,0x5C2},
    {0xFB2E,0x5D0,0x5B7}, {0xFB2F,0x5D0,0x5B8}, {0xFB30,0x5D0,0x5BC}, {0xFB31,0x5D1,0x5BC},
    {0xFB32,0x5D2,0x5BC}, {0xFB33,0x5D3,0x5BC}, {0xFB34,0x5D4,0x5BC}, {0xFB35,0x5D5,0x5BC},
    {0xFB36,0x5D6,0x5BC}, {0xFB38,0x5D8,0x5BC}, {0xFB39,0x5D9,0x5BC}, {0xFB3A,0x5DA,0x5BC},
    {0xFB3B,0x5DB,0x5BC}, {0xFB3C,0x5DC,0x5BC}, {0xFB3E,0x5DE,0x5BC}, {0xFB40,0x5E0,0x5BC},
    {0xFB41,0x5E1,0x5BC}, {0xFB43,0x5E3,0x5BC}, {0xFB44,0x5E4,0x5BC}, {0xFB46,0x5E6,0x5BC},
    {0xFB47,0x5E7,0x5BC}, {0xFB48,0x5E8,0x5BC}, {0xFB49,0x5E9,0x5BC}, {0xFB4A,0x5EA,0x5BC},
    {0xFB4B,0x5D5,0x5B9}, {0xFB4C,0x5D1,0x5BF}, {0xFB4D,0x5DB,0x5BF}, {0xFB4E,0x5E4,0x5BF},
    {0x1109A,0x11099,0x110BA}, {0x1109C,0x1109B,0x110BA}, {0x110AB,0x110A5,0x110BA},
    {0x1112E,0x11131,0x11127}, {0x1112F,0x11132,0x11127}, {0x1134B,0x11347,0x1133E},
    {0x1134C,0x11347,0x11357}, {0x114BB,0x114B9,0x114BA}, {0x114BC,0x114B9,0x114B0},
    {0x114BE,0x114B9,0x114BD}, {0x115BA,0x115B8,0x115AF}, {0x115BB,0x115B9,0x115AF},
    {0x1D15E,0x1D157,0x1D165}, {0x1D15F,0x1D158,0x1D165}, {0x1D160,0x1D15F,0x1D16E},
    {0x1D161,0x1D15F,0x1D16F}, {0x1D162,0x1D15F,0x1D170}, {0x1D163,0x1D15F,0x1D171},
    {0x1D164,0x1D15F,0x1D172}, {0x1D1BB,0x1D1B9,0x1D165}, {0x1D1BC,0x1D1BA,0x1D165},
    {0x1D1BD,0x1D1BB,0x1D16E}, {0x1D1BE,0x1D1BC,0x1D16E}, {0x1D1BF,0x1D1BB,0x1D16F},
    {0x1D1C0,0x1D1BC,0x1D16F}, {0x2F800,0x4E3D,0x0}, {0x2F801,0x4E38,0x0}, {0x2F802,0x4E41,0x0},
    {0x2F803,0x20122,0x0}, {0x2F804,0x4F60,0x0}, {0x2F805,0x4FAE,0x0}, {0x2F806,0x4FBB,0x0},
    {0x2F807,0x5002,0x0}, {0x2F808,0x507A,0x0}, {0x2F809,0x5099,0x0}, {0x2F80A,0x50E7,0x0},
    {0x2F80B,0x50CF,0x0}, {0x2F80C,0x349E,0x0}, {0x2F80D,0x2063A,0x0}, {0x2F80E,0x514D,0x0},
    {0x2F80F,0x5154,0x0}, {0x2F810,0x5164,0x0}, {0x2F811,0x5177,0x0}, {0x2F812,0x2051C,0x0},
    {0x2F813,0x34B9,0x0}, {0x2F814,0x5167,0x0}, {0x2F815,0x518D,0x0}, {0x2F816,0x2054B,0x0},
    {0x2F817,0x5197,0x0}, {0x2F818,0x51A4,0x0}, {0x2F819,0x4ECC,0x0}, {0x2F81A,0x51AC,0x0},
    {0x2F81B,0x51B5,0x0}, {0x2F81C,0x291DF,0x0}, {0x2F81D,0x51F5,0x0}, {0x2F81E,0x5203,0x0},
    {0x2F81F,0x34DF,0x0}, {0x2F820,0x523B,0x0}, {0x2F821,0x5246,0x0}, {0x2F822,0x5272,0x0},
    {0x2F823,0x5277,0x0}, {0x2F824,0x3515,0x0}, {0x2F825,0x52C7,0x0}, {0x2F826,0x52C9,0x0},
    {0x2F827,0x52E4,0x0}, {0x2F828,0x52FA,0x0}, {0x2F829,0x5305,0x0}, {0x2F82A,0x5306,0x0},
    {0x2F82B,0x5317,0x0}, {0x2F82C,0x5349,0x0}, {0x2F82D,0x5351,0x0}, {0x2F82E,0x535A,0x0},
    {0x2F82F,0x5373,0x0}, {0x2F830,0x537D,0x0}, {0x2F831,0x537F,0x0}, {0x2F832,0x537F,0x0},
    {0x2F833,0x537F,0x0}, {0x2F834,0x20A2C,0x0}, {0x2F835,0x7070,0x0}, {0x2F836,0x53CA,0x0},
    {0x2F837,0x53DF,0x0}, {0x2F838,0x20B63,0x0}, {0x2F839,0x53EB,0x0}, {0x2F83A,0x53F1,0x0},
    {0x2F83B,0x5406,0x0}, {0x2F83C,0x549E,0x0}, {0x2F83D,0x5438,0x0}, {0x2F83E,0x5448,0x0},
    {0x2F83F,0x5468,0x0}, {0x2F840,0x54A2,0x0}, {0x2F841,0x54F6,0x0}, {0x2F842,0x5510,0x0},
    {0x2F843,0x5553,0x0}, {0x2F844,0x5563,0x0}, {0x2F845,0x5584,0x0}, {0x2F846,0x5584,0x0},
    {0x2F847,0x5599,0x0}, {0x2F848,0x55AB,0x0}, {0x2F849,0x55B3,0x0}, {0x2F84A,0x55C2,0x0},
    {0x2F84B,0x5716,0x0}, {0x2F84C,0x5606,0x0}, {0x2F84D,0x5717,0x0}, {0x2F84E,0x5651,0x0},
    {0x2F84F,0x5674,0x0}, {0x2F850,0x5207,0x0}, {0x2F851,0x58EE,0x0}, {0x2F852,0x57CE,0x0},
    {0x2F853,0x57F4,0x0}, {0x2F854,0x580D,0x0}, {0x2F855,0x578B,0x0}, {0x2F856,0x5832,0x0},
    {0x2F857,0x5831,0x0}, {0x2F858,0x58AC,0x0}, {0x2F859,0x214E4,0x0}, {0x2F85A,0x58F2,0x0},
    {0x2F85B,0x58F7,0x0}, {0x2F85C,0x5906,0x0}, {0x2F85D,0x591A,0x0}, {0x2F85E,0x5922,0x0},
    {0x2F85F,0x5962,0x0}, {0x2F860,0x216A8,0x0}, {0x2F861,0x216EA,0x0}, {0x2F862,0x59EC,0x0},
    {0x2F863,0x5A1B,0x0}, {0x2F864,0x5A27,0x0}, {0x2F865,0x59D8,0x0}, {0x2F866,0x5A66,0x0},
    {0x2F867,0x36EE,0x0}, {0x2F868,0x36FC,0x0}, {0x2F869,0x5B08,0x0}, {0x2F86A,0x5B3E,0x0},
    {0x2F86B,0x5B3E,0x0}, {0x2F86C,0x219C8,0x0}, {0x2F86D,0x5BC3,0x0}, {0x2F86E,0x5BD8,0x0},
    {0x2F86F,0x5BE7,0x0}, {0x2F870,0x5BF3,0x0}, {0x2F871,0x21B18,0x0}, {0x2F872,0x5BFF,0x0},
    {0x2F873,0x5C06,0x0}, {0x2F874,0x5F53,0x0}, {0x2F875,0x5C22,0x0}, {0x2F876,0x3781,0x0},
    {0x2F877,0x5C60,0x0}, {0x2F878,0x5C6E,0x0}, {0x2F879,0x5CC0,0x0}, {0x2F87A,0x5C8D,0x0},
    {0x2F87B,0x21DE4,0x0}, {0x2F87C,0x5D43,0x0}, {0x2F87D,0x21DE6,0x0}, {0x2F87E,0x5D6E,0x0},
    {0x2F87F,0x5D6B,0x0}, {0x2F880,0x5D7C,0x0}, {0x2F881,0x5DE1,0x0}, {0x2F882,0x5DE2,0x0},
    {0x2F883,0x382F,0x0}, {0x2F884,0x5DFD,0x0}, {0x2F885,0x5E28,0x0}, {0x2F886,0x5E3D,0x0},
    {0x2F887,0x5E69,0x0}, {0x2F888,0x3862,0x0}, {0x2F889,0x22183,0x0}, {0x2F88A,0x387C,0x0},
    {0x2F88B,0x5EB0,0x0}, {0x2F88C,0x5EB3,0x0}, {0x2F88D,0x5EB6,0x0}, {0x2F88E,0x5ECA,0x0},
    {0x2F88F,0x2A392,0x0}, {0x2F890,0x5EFE,0x0}, {0x2F891,0x22331,0x0}, {0x2F892,0x22331,0x0},
    {0x2F893,0x8201,0x0}, {0x2F894,0x5F22,0x0}, {0x2F895,0x5F22,0x0}, {0x2F896,0x38C7,0x0},
    {0x2F897,0x232B8,0x0}, {0x2F898,0x261DA,0x0}, {0x2F899,0x5F62,0x0}, {0x2F89A,0x5F6B,0x0},
    {0x2F89B,0x38E3,0x0}, {0x2F89C,0x5F9A,0x0}, {0x2F89D,0x5FCD,0x0}, {0x2F89E,0x5FD7,0x0},
    {0x2F89F,0x5FF9,0x0}, {0x2F8A0,0x6081,0x0}, {0x2F8A1,0x393A,0x0}, {0x2F8A2,0x391C,0x0},
    {0x2F8A3,0x6094,0x0}, {0x2F8A4,0x226D4,0x0}, {0x2F8A5,0x60C7,0x0}, {0x2F8A6,0x6148,0x0},
    {0x2F8A7,0x614C,0x0}, {0x2F8A8,0x614E,0x0}, {0x2F8A9,0x614C,0x0}, {0x2F8AA,0x617A,0x0},
    {0x2F8AB,0x618E,0x0}, {0x2F8AC,0x61B2,0x0}, {0x2F8AD,0x61A4,0x0}, {0x2F8AE,0x61AF,0x0},
    {0x2F8AF,0x61DE,0x0}, {0x2F8B0,0x61F2,0x0}, {0x2F8B1,0x61F6,0x0}, {0x2F8B2,0x6210,0x0},
    {0x2F8B3,0x621B,0x0}, {0x2F8B4,0x625D,0x0}, {0x2F8B5,0x62B1,0x0}, {0x2F8B6,0x62D4,0x0},
    {0x2F8B7,0x6350,0x0}, {0x2F8B8,0x22B0C,0x0}, {0x2F8B9,0x633D,0x0}, {0x2F8BA,0x62FC,0x0},
    {0x2F8BB,0x6368,0x0}, {0x2F8BC,0x6383,0x0}, {0x2F8BD,0x63E4,0x0}, {0x2F8BE,0x22BF1,0x0},
    {0x2F8BF,0x6422,0x0}, {0x2F8C0,0x63C5,0x0}, {0x2F8C1,0x63A9,0x0}, {0x2F8C2,0x3A2E,0x0},
    {0x2F8C3,0x6469,0x0}, {0x2F8C4,0x647E,0x0}, {0x2F8C5,0x649D,0x0}, {0x2F8C6,0x6477,0x0},
    {0x2F8C7,0x3A6C,0x0}, {0x2F8C8,0x654F,0x0}, {0x2F8C9,0x656C,0x0}, {0x2F8CA,0x2300A,0x0},
    {0x2F8CB,0x65E3,0x0}, {0x2F8CC,0x66F8,0x0}, {0x2F8CD,0x6649,0x0}, {0x2F8CE,0x3B19,0x0},
    {0x2F8CF,0x6691,0x0}, {0x2F8D0,0x3B08,0x0}, {0x2F8D1,0x3AE4,0x0}, {0x2F8D2,0x5192,0x0},
    {0x2F8D3,0x5195,0x0}, {0x2F8D4,0x6700,0x0}, {0x2F8D5,0x669C,0x0}, {0x2F8D6,0x80AD,0x0},
    {0x2F8D7,0x43D9,0x0}, {0x2F8D8,0x6717,0x0}, {0x2F8D9,0x671B,0x0}, {0x2F8DA,0x6721,0x0},
    {0x2F8DB,0x675E,0x0}, {0x2F8DC,0x6753,0x0}, {0x2F8DD,0x233C3,0x0}, {0x2F8DE,0x3B49,0x0},
    {0x2F8DF,0x67FA,0x0}, {0x2F8E0,0x6785,0x0}, {0x2F8E1,0x6852,0x0}, {0x2F8E2,0x6885,0x0},
    {0x2F8E3,0x2346D,0x0}, {0x2F8E4,0x688E,0x0}, {0x2F8E5,0x681F,0x0}, {0x2F8E6,0x6914,0x0},
    {0x2F8E7,0x3B9D,0x0}, {0x2F8E8,0x6942,0x0}, {0x2F8E9,0x69A3,0x0}, {0x2F8EA,0x69EA,0x0},
    {0x2F8EB,0x6AA8,0x0}, {0x2F8EC,0x236A3,0x0}, {0x2F8ED,0x6ADB,0x0}, {0x2F8EE,0x3C18,0x0},
    {0x2F8EF,0x6B21,0x0}, {0x2F8F0,0x238A7,0x0}, {0x2F8F1,0x6B54,0x0}, {0x2F8F2,0x3C4E,0x0},
    {0x2F8F3,0x6B72,0x0}, {0x2F8F4,0x6B9F,0x0}, {0x2F8F5,0x6BBA,0x0}, {0x2F8F6,0x6BBB,0x0},
    {0x2F8F7,0x23A8D,0x0}, {0x2F8F8,0x21D0B,0x0}, {0x2F8F9,0x23AFA,0x0}, {0x2F8FA,0x6C4E,0x0},
    {0x2F8FB,0x23CBC,0x0}, {0x2F8FC,0x6CBF,0x0}, {0x2F8FD,0x6CCD,0x0}, {0x2F8FE,0x6C67,0x0},
    {0x2F8FF,0x6D16,0x0}, {0x2F900,0x6D3E,0x0}, {0x2F901,0x6D77,0x0}, {0x2F902,0x6D41,0x0},
    {0x2F903,0x6D69,0x0}, {0x2F904,0x6D78,0x0}, {0x2F905,0x6D85,0x0}, {0x2F906,0x23D1E,0x0},
    {0x2F907,0x6D34,0x0}, {0x2F908,0x6E2F,0x0}, {0x2F909,0x6E6E,0x0}, {0x2F90A,0x3D33,0x0},
    {0x2F90B,0x6ECB,0x0}, {0x2F90C,0x6EC7,0x0}, {0x2F90D,0x23ED1,0x0}, {0x2F90E,0x6DF9,0x0},
    {0x2F90F,0x6F6E,0x0}, {0x2F910,0x23F5E,0x0}, {0x2F911,0x23F8E,0x0}, {0x2F912,0x6FC6,0x0},
    {0x2F913,0x7039,0x0}, {0x2F914,0x701E,0x0}, {0x2F915,0x701B,0x0}, {0x2F916,0x3D96,0x0},
    {0x2F917,0x704A,0x0}, {0x2F918,0x707D,0x0}, {0x2F919,0x7077,0x0}, {0x2F91A,0x70AD,0x0},
    {0x2F91B,0x20525,0x0}, {0x2F91C,0x7145,0x0}, {0x2F91D,0x24263,0x0}, {0x2F91E,0x719C,0x0},
    {0x2F91F,0x243AB,0x0}, {0x2F920,0x7228,0x0}, {0x2F921,0x7235,0x0}, {0x2F922,0x7250,0x0},
    {0x2F923,0x24608,0x0}, {0x2F924,0x7280,0x0}, {0x2F925,0x7295,0x0}, {0x2F926,0x24735,0x0},
    {0x2F927,0x24814,0x0}, {0x2F928,0x737A,0x0}, {0x2F929,0x738B,0x0}, {0x2F92A,0x3EAC,0x0},
    {0x2F92B,0x73A5,0x0}, {0x2F92C,0x3EB8,0x0}, {0x2F92D,0x3EB8,0x0}, {0x2F92E,0x7447,0x0},
    {0x2F92F,0x745C,0x0}, {0x2F930,0x7471,0x0}, {0x2F931,0x7485,0x0}, {0x2F932,0x74CA,0x0},
    {0x2F933,0x3F1B,0x0}, {0x2F934,0x7524,0x0}, {0x2F935,0x24C36,0x0}, {0x2F936,0x753E,0x0},
    {0x2F937,0x24C92,0x0}, {0x2F938,0x7570,0x0}, {0x2F939,0x2219F,0x0}, {0x2F93A,0x7610,0x0},
    {0x2F93B,0x24FA1,0x0}, {0x2F93C,0x24FB8,0x0}, {0x2F93D,0x25044,0x0}, {0x2F93E,0x3FFC,0x0},
    {0x2F93F,0x4008,0x0}, {0x2F940,0x76F4,0x0}, {0x2F941,0x250F3,0x0}, {0x2F942,0x250F2,0x0},
    {0x2F943,0x25119,0x0}, {0x2F944,0x25133,0x0}, {0x2F945,0x771E,0x0}, {0x2F946,0x771F,0x0},
    {0x2F947,0x771F,0x0}, {0x2F948,0x774A,0x0}, {0x2F949,0x4039,0x0}, {0x2F94A,0x778B,0x0},
    {0x2F94B,0x4046,0x0}, {0x2F94C,0x4096,0x0}, {0x2F94D,0x2541D,0x0}, {0x2F94E,0x784E,0x0},
    {0x2F94F,0x788C,0x0}, {0x2F950,0x78CC,0x0}, {0x2F951,0x40E3,0x0}, {0x2F952,0x25626,0x0},
    {0x2F953,0x7956,0x0}, {0x2F954,0x2569A,0x0}, {0x2F955,0x256C5,0x0}, {0x2F956,0x798F,0x0},
    {0x2F957,0x79EB,0x0}, {0x2F958,0x412F,0x0}, {0x2F959,0x7A40,0x0}, {0x2F95A,0x7A4A,0x0},
    {0x2F95B,0x7A4F,0x0}, {0x2F95C,0x2597C,0x0}, {0x2F95D,0x25AA7,0x0}, {0x2F95E,0x25AA7,0x0},
    {0x2F95F,0x7AEE,0x0}, {0x2F960,0x4202,0x0}, {0x2F961,0x25BAB,0x0}, {0x2F962,0x7BC6,0x0},
    {0x2F963,0x7BC9,0x0}, {0x2F964,0x4227,0x0}, {0x2F965,0x25C80,0x0}, {0x2F966,0x7CD2,0x0},
    {0x2F967,0x42A0,0x0}, {0x2F968,0x7CE8,0x0}, {0x2F969,0x7CE3,0x0}, {0x2F96A,0x7D00,0x0},
    {0x2F96B,0x25F86,0x0}, {0x2F96C,0x7D63,0x0}, {0x2F96D,0x4301,0x0}, {0x2F96E,0x7DC7,0x0},
    {0x2F96F,0x7E02,0x0}, {0x2F970,0x7E45,0x0}, {0x2F971,0x4334,0x0}, {0x2F972,0x26228,0x0},
    {0x2F973,0x26247,0x0}, {0x2F974,0x4359,0x0}, {0x2F975,0x262D9,0x0}, {0x2F976,0x7F7A,0x0},
    {0x2F977,0x2633E,0x0}, {0x2F978,0x7F95,0x0}, {0x2F979,0x7FFA,0x0}, {0x2F97A,0x8005,0x0},
    {0x2F97B,0x264DA,0x0}, {0x2F97C,0x26523,0x0}, {0x2F97D,0x8060,0x0}, {0x2F97E,0x265A8,0x0},
    {0x2F97F,0x8070,0x0}, {0x2F980,0x2335F,0x0}, {0x2F981,0x43D5,0x0}, {0x2F982,0x80B2,0x0},
    {0x2F983,0x8103,0x0}, {0x2F984,0x440B,0x0}, {0x2F985,0x813E,0x0}, {0x2F986,0x5AB5,0x0},
    {0x2F987,0x267A7,0x0}, {0x2F988,0x267B5,0x0}, {0x2F989,0x23393,0x0}, {0x2F98A,0x2339C,0x0},
    {0x2F98B,0x8201,0x0}, {0x2F98C,0x8204,0x0}, {0x2F98D,0x8F9E,0x0}, {0x2F98E,0x446B,0x0},
    {0x2F98F,0x8291,0x0}, {0x2F990,0x828B,0x0}, {0x2F991,0x829D,0x0}, {0x2F992,0x52B3,0x0},
    {0x2F993,0x82B1,0x0}, {0x2F994,0x82B3,0x0}, {0x2F995,0x82BD,0x0}, {0x2F996,0x82E6,0x0},
    {0x2F997,0x26B3C,0x0}, {0x2F998,0x82E5,0x0}, {0x2F999,0x831D,0x0}, {0x2F99A,0x8363,0x0},
    {0x2F99B,0x83AD,0x0}, {0x2F99C,0x8323,0x0}, {0x2F99D,0x83BD,0x0}, {0x2F99E,0x83E7,0x0},
    {0x2F99F,0x8457,0x0}, {0x2F9A0,0x8353,0x0}, {0x2F9A1,0x83CA,0x0}, {0x2F9A2,0x83CC,0x0},
    {0x2F9A3,0x83DC,0x0}, {0x2F9A4,0x26C36,0x0}, {0x2F9A5,0x26D6B,0x0}, {0x2F9A6,0x26CD5,0x0},
    {0x2F9A7,0x452B,0x0}, {0x2F9A8,0x84F1,0x0}, {0x2F9A9,0x84F3,0x0}, {0x2F9AA,0x8516,0x0},
    {0x2F9AB,0x273CA,0x0}, {0x2F9AC,0x8564,0x0}, {0x2F9AD,0x26F2C,0x0}, {0x2F9AE,0x455D,0x0},
    {0x2F9AF,0x4561,0x0}, {0x2F9B0,0x26FB1,0x0}, {0x2F9B1,0x270D2,0x0}, {0x2F9B2,0x456B,0x0},
    {0x2F9B3,0x8650,0x0}, {0x2F9B4,0x865C,0x0}, {0x2F9B5,0x8667,0x0}, {0x2F9B6,0x8669,0x0},
    {0x2F9B7,0x86A9,0x0}, {0x2F9B8,0x8688,0x0}, {0x2F9B9,0x870E,0x0}, {0x2F9BA,0x86E2,0x0},
    {0x2F9BB,0x8779,0x0}, {0x2F9BC,0x8728,0x0}, {0x2F9BD,0x876B,0x0}, {0x2F9BE,0x8786,0x0},
    {0x2F9BF,0x45D7,0x0}, {0x2F9C0,0x87E1,0x0}, {0x2F9C1,0x8801,0x0}, {0x2F9C2,0x45F9,0x0},
    {0x2F9C3,0x8860,0x0}, {0x2F9C4,0x8863,0x0}, {0x2F9C5,0x27667,0x0}, {0x2F9C6,0x88D7,0x0},
    {0x2F9C7,0x88DE,0x0}, {0x2F9C8,0x4635,0x0}, {0x2F9C9,0x88FA,0x0}, {0x2F9CA,0x34BB,0x0},
    {0x2F9CB,0x278AE,0x0}, {0x2F9CC,0x27966,0x0}, {0x2F9CD,0x46BE,0x0}, {0x2F9CE,0x46C7,0x0},
    {0x2F9CF,0x8AA0,0x0}, {0x2F9D0,0x8AED,0x0}, {0x2F9D1,0x8B8A,0x0}, {0x2F9D2,0x8C55,0x0},
    {0x2F9D3,0x27CA8,0x0}, {0x2F9D4,0x8CAB,0x0}, {0x2F9D5,0x8CC1,0x0}, {0x2F9D6,0x8D1B,0x0},
    {0x2F9D7,0x8D77,0x0}, {0x2F9D8,0x27F2F,0x0}, {0x2F9D9,0x20804,0x0}, {0x2F9DA,0x8DCB,0x0},
    {0x2F9DB,0x8DBC,0x0}, {0x2F9DC,0x8DF0,0x0}, {0x2F9DD,0x208DE,0x0}, {0x2F9DE,0x8ED4,0x0},
    {0x2F9DF,0x8F38,0x0}, {0x2F9E0,0x285D2,0x0}, {0x2F9E1,0x285ED,0x0}, {0x2F9E2,0x9094,0x0},
    {0x2F9E3,0x90F1,0x0}, {0x2F9E4,0x9111,0x0}, {0x2F9E5,0x2872E,0x0}, {0x2F9E6,0x911B,0x0},
    {0x2F9E7,0x9238,0x0}, {0x2F9E8,0x92D7,0x0}, {0x2F9E9,0x92D8,0x0}, {0x2F9EA,0x927C,0x0},
    {0x2F9EB,0x93F9,0x0}, {0x2F9EC,0x9415,0x0}, {0x2F9ED,0x28BFA,0x0}, {0x2F9EE,0x958B,0x0},
    {0x2F9EF,0x4995,0x0}, {0x2F9F0,0x95B7,0x0}, {0x2F9F1,0x28D77,0x0}, {0x2F9F2,0x49E6,0x0},
    {0x2F9F3,0x96C3,0x0}, {0x2F9F4,0x5DB2,0x0}, {0x2F9F5,0x9723,0x0}, {0x2F9F6,0x29145,0x0},
    {0x2F9F7,0x2921A,0x0}, {0x2F9F8,0x4A6E,0x0}, {0x2F9F9,0x4A76,0x0}, {0x2F9FA,0x97E0,0x0},
    {0x2F9FB,0x2940A,0x0}, {0x2F9FC,0x4AB2,0x0}, {0x2F9FD,0x29496,0x0}, {0x2F9FE,0x980B,0x0},
    {0x2F9FF,0x980B,0x0}, {0x2FA00,0x9829,0x0}, {0x2FA01,0x295B6,0x0}, {0x2FA02,0x98E2,0x0},
    {0x2FA03,0x4B33,0x0}, {0x2FA04,0x9929,0x0}, {0x2FA05,0x99A7,0x0}, {0x2FA06,0x99C2,0x0},
    {0x2FA07,0x99FE,0x0}, {0x2FA08,0x4BCE,0x0}, {0x2FA09,0x29B30,0x0}, {0x2FA0A,0x9B12,0x0},
    {0x2FA0B,0x9C40,0x0}, {0x2FA0C,0x9CFD,0x0}, {0x2FA0D,0x4CCE,0x0}, {0x2FA0E,0x4CED,0x0},
    {0x2FA0F,0x9D67,0x0}, {0x2FA10,0x2A0CE,0x0}, {0x2FA11,0x4CF8,0x0}, {0x2FA12,0x2A105,0x0},
    {0x2FA13,0x2A20E,0x0}, {0x2FA14,0x2A291,0x0}, {0x2FA15,0x9EBB,0x0}, {0x2FA16,0x4D56,0x0},
    {0x2FA17,0x9EF9,0x0}, {0x2FA18,0x9EFE,0x0}, {0x2FA19,0x9F05,0x0}, {0x2FA1A,0x9F0F,0x0},
    {0x2FA1B,0x9F16,0x0}, {0x2FA1C,0x9F3B,0x0}, {0x2FA1D,0x2A600,0x0},
};
/* primary composites: first, second, composite */
static const uint32_t llm__comp[940][3] = {
    {0x3C,0x338,0x226E}, {0x3D,0x338,0x2260}, {0x3E,0x338,0x226F}, {0x41,0x300,0xC0},
    {0x41,0x301,0xC1}, {0x41,0x302,0xC2}, {0x41,0x303,0xC3}, {0x41,0x304,0x100}, {0x41,0x306,0x102},
    {0x41,0x307,0x226}, {0x41,0x308,0xC4}, {0x41,0x309,0x1EA2}, {0x41,0x30A,0xC5},
    {0x41,0x30C,0x1CD}, {0x41,0x30F,0x200}, {0x41,0x311,0x202}, {0x41,0x323,0x1EA0},
    {0x41,0x325,0x1E00}, {0x41,0x328,0x104}, {0x42,0x307,0x1E02}, {0x42,0x323,0x1E04},
    {0x42,0x331,0x1E06}, {0x43,0x301,0x106}, {0x43,0x302,0x108}, {0x43,0x307,0x10A},
    {0x43,0x30C,0x10C}, {0x43,0x327,0xC7}, {0x44,0x307,0x1E0A}, {0x44,0x30C,0x10E},
    {0x44,0x323,0x1E0C}, {0x44,0x327,0x1E10}, {0x44,0x32D,0x1E12}, {0x44,0x331,0x1E0E},
    {0x45,0x300,0xC8}, {0x45,0x301,0xC9}, {0x45,0x302,0xCA}, {0x45,0x303,0x1EBC}, {0x45,0x304,0x112},
    {0x45,0x306,0x114}, {0x45,0x307,0x116}, {0x45,0x308,0xCB}, {0x45,0x309,0x1EBA},
    {0x45,0x30C,0x11A}, {0x45,0x30F,0x204}, {0x45,0x311,0x206}, {0x45,0x323,0x1EB8},
    {0x45,0x327,0x228}, {0x45,0x328,0x118}, {0x45,0x32D,0x1E18}, {0x45,0x330,0x1E1A},
    {0x46,0x307,0x1E1E}, {0x47,0x301,0x1F4}, {0x47,0x302,0x11C}, {0x47,0x304,0x1E20},
    {0x47,0x306,0x11E}, {0x47,0x307,0x120}, {0x47,0x30C,0x1E6}, {0x47,0x327,0x122},
    {0x48,0x302,0x124}, {0x48,0x307,0x1E22}, {0x48,0x308,0x1E26}, {0x48,0x30C,0x21E},
    {0x48,0x323,0x1E24}, {0x48,0x327,0x1E28}, {0x48,0x32E,0x1E2A}, {0x49,0x300,0xCC},
    {0x49,0x301,0xCD}, {0x49,0x302,0xCE}, {0x49,0x303,0x128}, {0x49,0x304,0x12A}, {0x49,0x306,0x12C},
    {0x49,0x307,0x130}, {0x49,0x308,0xCF}, {0x49,0x309,0x1EC8}, {0x49,0x30C,0x1CF},
    {0x49,0x30F,0x208}, {0x49,0x311,0x20A}, {0x49,0x323,0x1ECA}, {0x49,0x328,0x12E},
    {0x49,0x330,0x1E2C}, {0x4A,0x302,0x134}, {0x4B,0x301,0x1E30}, {0x4B,0x30C,0x1E8},
    {0x4B,0x323,0x1E32}, {0x4B,0x327,0x136}, {0x4B,0x331,0x1E34}, {0x4C,0x301,0x139},
    {0x4C,0x30C,0x13D}, {0x4C,0x323,0x1E36}, {0x4C,0x327,0x13B}, {0x4C,0x32D,0x1E3C},
    {0x4C,0x331,0x1E3A}, {0x4D,0x301,0x1E3E}, {0x4D,0x307,0x1E40}, {0x4D,0x323,0x1E42},
    {0x4E,0x300,0x1F8}, {0x4E,0x301,0x143}, {0x4E,0x303,0xD1}, {0x4E,0x307,0x1E44},
    {0x4E,0x30C,0x147}, {0x4E,0x323,0x1E46}, {0x4E,0x327,0x145}, {0x4E,0x32D,0x1E4A},
    {0x4E,0x331,0x1E48}, {0x4F,0x300,0xD2}, {0x4F,0x301,0xD3}, {0x4F,0x302,0xD4}, {0x4F,0x303,0xD5},
    {0x4F,0x304,0x14C}, {0x4F,0x306,0x14E}, {0x4F,0x307,0x22E}, {0x4F,0x308,0xD6},
    {0x4F,0x309,0x1ECE}, {0x4F,0x30B,0x150}, {0x4F,0x30C,0x1D1}, {0x4F,0x30F,0x20C},
    {0x4F,0x311,0x20E}, {0x4F,0x31B,0x1A0}, {0x4F,0x323,0x1ECC}, {0x4F,0x328,0x1EA},
    {0x50,0x301,0x1E54}, {0x50,0x307,0x1E56}, {0x52,0x301,0x154}, {0x52,0x307,0x1E58},
    {0x52,0x30C,0x158}, {0x52,0x30F,0x210}, {0x52,0x311,0x212}, {0x52,0x323,0x1E5A},
    {0x52,0x327,0x156}, {0x52,0x331,0x1E5E}, {0x53,0x301,0x15A}, {0x53,0x302,0x15C},
    {0x53,0x307,0x1E60}, {0x53,0x30C,0x160}, {0x53,0x323,0x1E62}, {0x53,0x326,0x218},
    {0x53,0x327,0x15E}, {0x54,0x307,0x1E6A}, {0x54,0x30C,0x164}, {0x54,0x323,0x1E6C},
    {0x54,0x326,0x21A}, {0x54,0x327,0x162}, {0x54,0x32D,0x1E70}, {0x54,0x331,0x1E6E},
    {0x55,0x300,0xD9}, {0x55,0x301,0xDA}, {0x55,0x302,0xDB}, {0x55,0x303,0x168}, {0x55,0x304,0x16A},
    {0x55,0x306,0x16C}, {0x55,0x308,0xDC}, {0x55,0x309,0x1EE6}, {0x55,0x30A,0x16E},
    {0x55,0x30B,0x170}, {0x55,0x30C,0x1D3}, {0x55,0x30F,0x214}, {0x55,0x311,0x216},
    {0x55,0x31B,0x1AF}, {0x55,0x323,0x1EE4}, {0x55,0x324,0x1E72}, {0x55,0x328,0x172},
    {0x55,0x32D,0x1E76}, {0x55,0x330,0x1E74}, {0x56,0x303,0x1E7C}, {0x56,0x323,0x1E7E},
    {0x57,0x300,0x1E80}, {0x57,0x301,0x1E82}, {0x57,0x302,0x174}, {0x57,0x307,0x1E86},
    {0x57,0x308,0x1E84}, {0x57,0x323,0x1E88}, {0x58,0x307,0x1E8A}, {0x58,0x308,0x1E8C},
    {0x59,0x300,0x1EF2}, {0x59,0x301,0xDD}, {0x59,0x302,0x176}, {0x59,0x303,0x1EF8},
    {0x59,0x304,0x232}, {0x59,0x307,0x1E8E}, {0x59,0x308,0x178}, {0x59,0x309,0x1EF6},
    {0x59,0x323,0x1EF4}, {0x5A,0x301,0x179}, {0x5A,0x302,0x1E90}, {0x5A,0x307,0x17B},
    {0x5A,0x30C,0x17D}, {0x5A,0x323,0x1E92}, {0x5A,0x331,0x1E94}, {0x61,0x300,0xE0},
    {0x61,0x301,0xE1}, {0x61,0x302,0xE2}, {0x61,0x303,0xE3}, {0x61,0x304,0x101}, {0x61,0x306,0x103},
    {0x61,0x307,0x227}, {0x61,0x308,0xE4}, {0x61,0x309,0x1EA3}, {0x61,0x30A,0xE5},
    {0x61,0x30C,0x1CE}, {0x61,0x30F,0x201}, {0x61,0x311,0x203}, {0x61,0x323,0x1EA1},
    {0x61,0x325,0x1E01}, {0x61,0x328,0x105}, {0x62,0x307,0x1E03}, {0x62,0x323,0x1E05},
    {0x62,0x331,0x1E07}, {0x63,0x301,0x107}, {0x63,0x302,0x109}, {0x63,0x307,0x10B},
    {0x63,0x30C,0x10D}, {0x63,0x327,0xE7}, {0x64,0x307,0x1E0B}, {0x64,0x30C,0x10F},
    {0x64,0x323,0x1E0D}, {0x64,0x327,0x1E11}, {0x64,0x32D,0x1E13}, {0x64,0x331,0x1E0F},
    {0x65,0x300,0xE8}, {0x65,0x301,0xE9}, {0x65,0x302,0xEA}, {0x65,0x303,0x1EBD}, {0x65,0x304,0x113},
    {0x65,0x306,0x115}, {0x65,0x307,0x117}, {0x65,0x308,0xEB}, {0x65,0x309,0x1EBB},
    {0x65,0x30C,0x11B}, {0x65,0x30F,0x205}, {0x65,0x311,0x207}, {0x65,0x323,0x1EB9},
    {0x65,0x327,0x229}, {0x65,0x328,0x119}, {0x65,0x32D,0x1E19}, {0x65,0x330,0x1E1B},
    {0x66,0x307,0x1E1F}, {0x67,0x301,0x1F5}, {0x67,0x302,0x11D}, {0x67,0x304,0x1E21},
    {0x67,0x306,0x11F}, {0x67,0x307,0x121}, {0x67,0x30C,0x1E7}, {0x67,0x327,0x123},
    {0x68,0x302,0x125}, {0x68,0x307,0x1E23}, {0x68,0x308,0x1E27}, {0x68,0x30C,0x21F},
    {0x68,0x323,0x1E25}, {0x68,0x327,0x1E29}, {0x68,0x32E,0x1E2B}, {0x68,0x331,0x1E96},
    {0x69,0x300,0xEC}, {0x69,0x301,0xED}, {0x69,0x302,0xEE}, {0x69,0x303,0x129}, {0x69,0x304,0x12B},
    {0x69,0x306,0x12D}, {0x69,0x308,0xEF}, {0x69,0x309,0x1EC9}, {0x69,0x30C,0x1D0},
    {0x69,0x30F,0x209}, {0x69,0x311,0x20B}, {0x69,0x323,0x1ECB}, {0x69,0x328,0x12F},
    {0x69,0x330,0x1E2D}, {0x6A,0x302,0x135}, {0x6A,0x30C,0x1F0}, {0x6B,0x301,0x1E31},
    {0x6B,0x30C,0x1E9}, {0x6B,0x323,0x1E33}, {0x6B,0x327,0x137}, {0x6B,0x331,0x1E35},
    {0x6C,0x301,0x13A}, {0x6C,0x30C,0x13E}, {0x6C,0x323,0x1E37}, {0x6C,0x327,0x13C},
    {0x6C,0x32D,0x1E3D}, {0x6C,0x331,0x1E3B}, {0x6D,0x301,0x1E3F}, {0x6D,0x307,0x1E41},
    {0x6D,0x323,0x1E43}, {0x6E,0x300,0x1F9}, {0x6E,0x301,0x144}, {0x6E,0x303,0xF1},
    {0x6E,0x307,0x1E45}, {0x6E,0x30C,0x148}, {0x6E,0x323,0x1E47}, {0x6E,0x327,0x146},
    {0x6E,0x32D,0x1E4B}, {0x6E,0x331,0x1E49}, {0x6F,0x300,0xF2}, {0x6F,0x301,0xF3},
    {0x6F,0x302,0xF4}, {0x6F,0x303,0xF5}, {0x6F,0x304,0x14D}, {0x6F,0x306,0x14F}, {0x6F,0x307,0x22F},
    {0x6F,0x308,0xF6}, {0x6F,0x309,0x1ECF}, {0x6F,0x30B,0x151}, {0x6F,0x30C,0x1D2},
    {0x6F,0x30F,0x20D}, {0x6F,0x311,0x20F}, {0x6F,0x31B,0x1A1}, {0x6F,0x323,0x1ECD},
    {0x6F,0x328,0x1EB}, {0x70,0x301,0x1E55}, {0x70,0x307,0x1E57}, {0x72,0x301,0x155},
    {0x72,0x307,0x1E59}, {0x72,0x30C,0x159}, {0x72,0x30F,0x211}, {0x72,0x311,0x213},
    {0x72,0x323,0x1E5B}, {0x72,0x327,0x157}, {0x72,0x331,0x1E5F}, {0x73,0x301,0x15B},
    {0x73,0x302,0x15D}, {0x73,0x307,0x1E61}, {0x73,0x30C,0x161}, {0x73,0x323,0x1E63},
    {0x73,0x326,0x219}, {0x73,0x327,0x15F}, {0x74,0x307,0x1E6B}, {0x74,0x308,0x1E97},
    {0x74,0x30C,0x165}, {0x74,0x323,0x1E6D}, {0x74,0x326,0x21B}, {0x74,0x327,0x163},
    {0x74,0x32D,0x1E71}, {0x74,0x331,0x1E6F}, {0x75,0x300,0xF9}, {0x75,0x301,0xFA},
    {0x75,0x302,0xFB}, {0x75,0x303,0x169}, {0x75,0x304,0x16B}, {0x75,0x306,0x16D}, {0x75,0x308,0xFC},
    {0x75,0x309,0x1EE7}, {0x75,0x30A,0x16F}, {0x75,0x30B,0x171}, {0x75,0x30C,0x1D4},
    {0x75,0x30F,0x215}, {0x75,0x311,0x217}, {0x75,0x31B,0x1B0}, {0x75,0x323,0x1EE5},
    {0x75,0x324,0x1E73}, {0x75,0x328,0x173}, {0x75,0x32D,0x1E77}, {0x75,0x330,0x1E75},
    {0x76,0x303,0x1E7D}, {0x76,0x323,0x1E7F}, {0x77,0x300,0x1E81}, {0x77,0x301,0x1E83},
    {0x77,0x302,0x175}, {0x77,0x307,0x1E87}, {0x77,0x308,0x1E85}, {0x77,0x30A,0x1E98},
    {0x77,0x323,0x1E89}, {0x78,0x307,0x1E8B}, {0x78,0x308,0x1E8D}, {0x79,0x300,0x1EF3},
    {0x79,0x301,0xFD}, {0x79,0x302,0x177}, {0x79,0x303,0x1EF9}, {0x79,0x304,0x233},
    {0x79,0x307,0x1E8F}, {0x79,0x308,0xFF}, {0x79,0x309,0x1EF7}, {0x79,0x30A,0x1E99},
    {0x79,0x323,0x1EF5}, {0x7A,0x301,0x17A}, {0x7A,0x302,0x1E91}, {0x7A,0x307,0x17C},
    {0x7A,0x30C,0x17E}, {0x7A,0x323,0x1E93}, {0x7A,0x331,0x1E95}, {0xA8,0x300,0x1FED},
    {0xA8,0x301,0x385}, {0xA8,0x342,0x1FC1}, {0xC2,0x300,0x1EA6}, {0xC2,0x301,0x1EA4},
    {0xC2,0x303,0x1EAA}, {0xC2,0x309,0x1EA8}, {0xC4,0x304,0x1DE}, {0xC5,0x301,0x1FA},
    {0xC6,0x301,0x1FC}, {0xC6,0x304,0x1E2}, {0xC7,0x301,0x1E08}, {0xCA,0x300,0x1EC0},
    {0xCA,0x301,0x1EBE}, {0xCA,0x303,0x1EC4}, {0xCA,0x309,0x1EC2}, {0xCF,0x301,0x1E2E},
    {0xD4,0x300,0x1ED2}, {0xD4,0x301,0x1ED0}, {0xD4,0x303,0x1ED6}, {0xD4,0x309,0x1ED4},
    {0xD5,0x301,0x1E4C}, {0xD5,0x304,0x22C}, {0xD5,0x308,0x1E4E}, {0xD6,0x304,0x22A},
    {0xD8,0x301,0x1FE}, {0xDC,0x300,0x1DB}, {0xDC,0x301,0x1D7}, {0xDC,0x304,0x1D5},
    {0xDC,0x30C,0x1D9}, {0xE2,0x300,0x1EA7}, {0xE2,0x301,0x1EA5}, {0xE2,0x303,0x1EAB},
    {0xE2,0x309,0x1EA9}, {0xE4,0x304,0x1DF}, {0xE5,0x301,0x1FB}, {0xE6,0x301,0x1FD},
    {0xE6,0x304,0x1E3}, {0xE7,0x301,0x1E09}, {0xEA,0x300,0x1EC1}, {0xEA,0x301,0x1EBF},
    {0xEA,0x303,0x1EC5}, {0xEA,0x309,0x1EC3}, {0xEF,0x301,0x1E2F}, {0xF4,0x300,0x1ED3},
    {0xF4,0x301,0x1ED1}, {0xF4,0x303,0x1ED7}, {0xF4,0x309,0x1ED5}, {0xF5,0x301,0x1E4D},
    {0xF5,0x304,0x22D}, {0xF5,0x308,0x1E4F}, {0xF6,0x304,0x22B}, {0xF8,0x301,0x1FF},
    {0xFC,0x300,0x1DC}, {0xFC,0x301,0x1D8}, {0xFC,0x304,0x1D6}, {0xFC,0x30C,0x1DA},
    {0x102,0x300,0x1EB0}, {0x102,0x301,0x1EAE}, {0x102,0x303,0x1EB4}, {0x102,0x309,0x1EB2},
    {0x103,0x300,0x1EB1}, {0x103,0x301,0x1EAF}, {0x103,0x303,0x1EB5}, {0x103,0x309,0x1EB3},
    {0x112,0x300,0x1E14}, {0x112,0x301,0x1E16}, {0x113,0x300,0x1E15}, {0x113,0x301,0x1E17},
    {0x14C,0x300,0x1E50}, {0x14C,0x301,0x1E52}, {0x14D,0x300,0x1E51}, {0x14D,0x301,0x1E53},
    {0x15A,0x307,0x1E64}, {0x15B,0x307,0x1E65}, {0x160,0x307,0x1E66}, {0x161,0x307,0x1E67},
    {0x168,0x301,0x1E78}, {0x169,0x301,0x1E79}, {0x16A,0x308,0x1E7A}, {0x16B,0x308,0x1E7B},
    {0x17F,0x307,0x1E9B}, {0x1A0,0x300,0x1EDC}, {0x1A0,0x301,0x1EDA}, {0x1A0,0x303,0x1EE0},
    {0x1A0,0x309,0x1EDE}, {0x1A0,0x323,0x1EE2}, {0x1A1,0x300,0x1EDD}, {0x1A1,0x301,0x1EDB},
    {0x1A1,0x303,0x1EE1}, {0x1A1,0x309,0x1EDF}, {0x1A1,0x323,0x1EE3}, {0x1AF,0x300,0x1EEA},
    {0x1AF,0x301,0x1EE8}, {0x1AF,0x303,0x1EEE}, {0x1AF,0x309,0x1EEC}, {0x1AF,0x323,0x1EF0},
    {0x1B0,0x300,0x1EEB}, {0x1B0,0x301,0x1EE9}, {0x1B0,0x303,0x1EEF}, {0x1B0,0x309,0x1EED},
    {0x1B0,0x323,0x1EF1}, {0x1B7,0x30C,0x1EE}, {0x1EA,0x304,0x1EC}, {0x1EB,0x304,0x1ED},
    {0x226,0x304,0x1E0}, {0x227,0x304,0x1E1}, {0x228,0x306,0x1E1C}, {0x229,0x306,0x1E1D},
    {0x22E,0x304,0x230}, {0x22F,0x304,0x231}, {0x292,0x30C,0x1EF}, {0x391,0x300,0x1FBA},
    {0x391,0x301,0x386}, {0x391,0x304,0x1FB9}, {0x391,0x306,0x1FB8}, {0x391,0x313,0x1F08},
    {0x391,0x314,0x1F09}, {0x391,0x345,0x1FBC}, {0x395,0x300,0x1FC8}, {0x395,0x301,0x388},
    {0x395,0x313,0x1F18}, {0x395,0x314,0x1F19}, {0x397,0x300,0x1FCA}, {0x397,0x301,0x389},
    {0x397,0x313,0x1F28}, {0x397,0x314,0x1F29}, {0x397,0x345,0x1FCC}, {0x399,0x300,0x1FDA},
    {0x399,0x301,0x38A}, {0x399,0x304,0x1FD9}, {0x399,0x306,0x1FD8}, {0x399,0x308,0x3AA},
    {0x399,0x313,0x1F38}, {0x399,0x314,0x1F39}, {0x39F,0x300,0x1FF8}, {0x39F,0x301,0x38C},
    {0x39F,0x313,0x1F48}, {0x39F,0x314,0x1F49}, {0x3A1,0x314,0x1FEC}, {0x3A5,0x300,0x1FEA},
    {0x3A5,0x301,0x38E}, {0x3A5,0x304,0x1FE9}, {0x3A5,0x306,0x1FE8}, {0x3A5,0x308,0x3AB},
    {0x3A5,0x314,0x1F59}, {0x3A9,0x300,0x1FFA}, {0x3A9,0x301,0x38F}, {0x3A9,0x313,0x1F68},
    {0x3A9,0x314,0x1F69}, {0x3A9,0x345,0x1FFC}, {0x3AC,0x345,0x1FB4}, {0x3AE,0x345,0x1FC4},
    {0x3B1,0x300,0x1F70}, {0x3B1,0x301,0x3AC}, {0x3B1,0x304,0x1FB1}, {0x3B1,0x306,0x1FB0},
    {0x3B1,0x313,0x1F00}, {0x3B1,0x314,0x1F01}, {0x3B1,0x342,0x1FB6}, {0x3B1,0x345,0x1FB3},
    {0x3B5,0x300,0x1F72}, {0x3B5,0x301,0x3AD}, {0x3B5,0x313,0x1F10}, {0x3B5,0x314,0x1F11},
    {0x3B7,0x300,0x1F74}, {0x3B7,0x301,0x3AE}, {0x3B7,0x313,0x1F20}, {0x3B7,0x314,0x1F21},
    {0x3B7,0x342,0x1FC6}, {0x3B7,0x345,0x1FC3}, {0x3B9,0x300,0x1F76}, {0x3B9,0x301,0x3AF},
    {0x3B9,0x304,0x1FD1}, {0x3B9,0x306,0x1FD0}, {0x3B9,0x308,0x3CA}, {0x3B9,0x313,0x1F30},
    {0x3B9,0x314,0x1F31}, {0x3B9,0x342,0x1FD6}, {0x3BF,0x300,0x1F78}, {0x3BF,0x301,0x3CC},
    {0x3BF,0x313,0x1F40}, {0x3BF,0x314,0x1F41}, {0x3C1,0x313,0x1FE4}, {0x3C1,0x314,0x1FE5},
    {0x3C5,0x300,0x1F7A}, {0x3C5,0x301,0x3CD}, {0x3C5,0x304,0x1FE1}, {0x3C5,0x306,0x1FE0},
    {0x3C5,0x308,0x3CB}, {0x3C5,0x313,0x1F50}, {0x3C5,0x314,0x1F51}, {0x3C5,0x342,0x1FE6},
    {0x3C9,0x300,0x1F7C}, {0x3C9,0x301,0x3CE}, {0x3C9,0x313,0x1F60}, {0x3C9,0x314,0x1F61},
    {0x3C9,0x342,0x1FF6}, {0x3C9,0x345,0x1FF3}, {0x3CA,0x300,0x1FD2}, {0x3CA,0x301,0x390},
    {0x3CA,0x342,0x1FD7}, {0x3CB,0x300,0x1FE2}, {0x3CB,0x301,0x3B0}, {0x3CB,0x342,0x1FE7},
    {0x3CE,0x345,0x1FF4}, {0x3D2,0x301,0x3D3}, {0x3D2,0x308,0x3D4}, {0x406,0x308,0x407},
    {0x410,0x306,0x4D0}, {0x410,0x308,0x4D2}, {0x413,0x301,0x403}, {0x415,0x300,0x400},
    {0x415,0x306,0x4D6}, {0x415,0x308,0x401}, {0x416,0x306,0x4C1}, {0x416,0x308,0x4DC},
    {0x417,0x308,0x4DE}, {0x418,0x300,0x40D}, {0x418,0x304,0x4E2}, {0x418,0x306,0x419},
    {0x418,0x308,0x4E4}, {0x41A,0x301,0x40C}, {0x41E,0x308,0x4E6}, {0x423,0x304,0x4EE},
    {0x423,0x306,0x40E}, {0x423,0x308,0x4F0}, {0x423,0x30B,0x4F2}, {0x427,0x308,0x4F4},
    {0x42B,0x308,0x4F8}, {0x42D,0x308,0x4EC}, {0x430,0x306,0x4D1}, {0x430,0x308,0x4D3},
    {0x433,0x301,0x453}, {0x435,0x300,0x450}, {0x435,0x306,0x4D7}, {0x435,0x308,0x451},
    {0x436,0x306,0x4C2}, {0x436,0x308,0x4DD}, {0x437,0x308,0x4DF}, {0x438,0x300,0x45D},
    {0x438,0x304,0x4E3}, {0x438,0x306,0x439}, {0x438,0x308,0x4E5}, {0x43A,0x301,0x45C},
    {0x43E,0x308,0x4E7}, {0x443,0x304,0x4EF}, {0x443,0x306,0x45E}, {0x443,0x308,0x4F1},
    {0x443,0x30B,0x4F3}, {0x447,0x308,0x4F5}, {0x44B,0x308,0x4F9}, {0x44D,0x308,0x4ED},
    {0x456,0x308,0x457}, {0x474,0x30F,0x476}, {0x475,0x30F,0x477}, {0x4D8,0x308,0x4DA},
    {0x4D9,0x308,0x4DB}, {0x4E8,0x308,0x4EA}, {0x4E9,0x308,0x4EB}, {0x627,0x653,0x622},
    {0x627,0x654,0x623}, {0x627,0x655,0x625}, {0x648,0x654,0x624}, {0x64A,0x654,0x626},
    {0x6C1,0x654,0x6C2}, {0x6D2,0x654,0x6D3}, {0x6D5,0x654,0x6C0}, {0x928,0x93C,0x929},
    {0x930,0x93C,0x931}, {0x933,0x93C,0x934}, {0x9C7,0x9BE,0x9CB}, {0x9C7,0x9D7,0x9CC},
    {0xB47,0xB3E,0xB4B}, {0xB47,0xB56,0xB48}, {0xB47,0xB57,0xB4C}, {0xB92,0xBD7,0xB94},
    {0xBC6,0xBBE,0xBCA}, {0xBC6,0xBD7,0xBCC}, {0xBC7,0xBBE,0xBCB}, {0xC46,0xC56,0xC48},
    {0xCBF,0xCD5,0xCC0}, {0xCC6,0xCC2,0xCCA}, {0xCC6,0xCD5,0xCC7}, {0xCC6,0xCD6,0xCC8},
    {0xCCA,0xCD5,0xCCB}, {0xD46,0xD3E,0xD4A}, {0xD46,0xD57,0xD4C}, {0xD47,0xD3E,0xD4B},
    {0xDD9,0xDCA,0xDDA}, {0xDD9,0xDCF,0xDDC}, {0xDD9,0xDDF,0xDDE}, {0xDDC,0xDCA,0xDDD},
    {0x1025,0x102E,0x1026}, {0x1B05,0x1B35,0x1B06}, {0x1B07,0x1B35,0x1B08}, {0x1B09,0x1B35,0x1B0A},
    {0x1B0B,0x1B35,0x1B0C}, {0x1B0D,0x1B35,0x1B0E}, {0x1B11,0x1B35,0x1B12}, {0x1B3A,0x1B35,0x1B3B},
    {0x1B3C,0x1B35,0x1B3D}, {0x1B3E,0x1B35,0x1B40}, {0x1B3F,0x1B35,0x1B41}, {0x1B42,0x1B35,0x1B43},
    {0x1E36,0x304,0x1E38}, {0x1E37,0x304,0x1E39}, {0x1E5A,0x304,0x1E5C}, {0x1E5B,0x304,0x1E5D},
    {0x1E62,0x307,0x1E68}, {0x1E63,0x307,0x1E69}, {0x1EA0,0x302,0x1EAC}, {0x1EA0,0x306,0x1EB6},
    {0x1EA1,0x302,0x1EAD}, {0x1EA1,0x306,0x1EB7}, {0x1EB8,0x302,0x1EC6}, {0x1EB9,0x302,0x1EC7},
    {0x1ECC,0x302,0x1ED8}, {0x1ECD,0x302,0x1ED9}, {0x1F00,0x300,0x1F02}, {0x1F00,0x301,0x1F04},
    {0x1F00,0x342,0x1F06}, {0x1F00,0x345,0x1F80}, {0x1F01,0x300,0x1F03}, {0x1F01,0x301,0x1F05},
    {0x1F01,0x342,0x1F07}, {0x1F01,0x345,0x1F81}, {0x1F02,0x345,0x1F82}, {0x1F03,0x345,0x1F83},
    {0x1F04,0x345,0x1F84}, {0x1F05,0x345,0x1F85}, {0x1F06,0x345,0x1F86}, {0x1F07,0x345,0x1F87},
    {0x1F08,0x300,0x1F0A}, {0x1F08,0x301,0x1F0C}, {0x1F08,0x342,0x1F0E}, {0x1F08,0x345,0x1F88},
    {0x1F09,0x300,0x1F0B}, {0x1F09,0x301,0x1F0D}, {0x1F09,0x342,0x1F0F}, {0x1F09,0x345,0x1F89},
    {0x1F0A,0x345,0x1F8A}, {0x1F0B,0x345,0x1F8B}, {0x1F0C,0x345,0x1F8C}, {0x1F0D,0x345,0x1F8D},
    {0x1F0E,0x345,0x1F8E}, {0x1F0F,0x345,0x1F8F}, {0x1F10,0x300,0x1F12}, {0x1F10,0x301,0x1F14},
    {0x1F11,0x300,0x1F13}, {0x1F11,0x301,0x1F15}, {0x1F18,0x300,0x1F1A}, {0x1F18,0x301,0x1F1C},
    {0x1F19,0x300,0x1F1B}, {0x1F19,0x301,0x1F1D}, {0x1F20,0x300,0x1F22}, {0x1F20,0x301,0x1F24},
    {0x1F20,0x342,0x1F26}, {0x1F20,0x345,0x1F90}, {0x1F21,0x300,0x1F23}, {0x1F21,0x301,0x1F25},
    {0x1F21,0x342,0x1F27}, {0x1F21,0x345,0x1F91}, {0x1F22,0x345,0x1F92}, {0x1F23,0x345,0x1F93},
    {0x1F24,0x345,0x1F94}, {0x1F25,0x345,0x1F95}, {0x1F26,0x345,0x1F96}, {0x1F27,0x345,0x1F97},
    {0x1F28,0x300,0x1F2A}, {0x1F28,0x301,0x1F2C}, {0x1F28,0x342,0x1F2E}, {0x1F28,0x345,0x1F98},
    {0x1F29,0x300,0x1F2B}, {0x1F29,0x301,0x1F2D}, {0x1F29,0x342,0x1F2F}, {0x1F29,0x345,0x1F99},
    {0x1F2A,0x345,0x1F9A}, {0x1F2B,0x345,0x1F9B}, {0x1F2C,0x345,0x1F9C}, {0x1F2D,0x345,0x1F9D},
    {0x1F2E,0x345,0x1F9E}, {0x1F2F,0x345,0x1F9F}, {0x1F30,0x300,0x1F32}, {0x1F30,0x301,0x1F34},
    {0x1F30,0x342,0x1F36}, {0x1F31,0x300,0x1F33}, {0x1F31,0x301,0x1F35}, {0x1F31,0x342,0x1F37},
    {0x1F38,0x300,0x1F3A}, {0x1F38,0x301,0x1F3C}, {0x1F38,0x342,0x1F3E}, {0x1F39,0x300,0x1F3B},
    {0x1F39,0x301,0x1F3D}, {0x1F39,0x342,0x1F3F}, {0x1F40,0x300,0x1F42}, {0x1F40,0x301,0x1F44},
    {0x1F41,0x300,0x1F43}, {0x1F41,0x301,0x1F45}, {0x1F48,0x300,0x1F4A}, {0x1F48,0x301,0x1F4C},
    {0x1F49,0x300,0x1F4B}, {0x1F49,0x301,0x1F4D}, {0x1F50,0x300,0x1F52}, {0x1F50,0x301,0x1F54},
    {0x1F50,0x342,0x1F56}, {0x1F51,0x300,0x1F53}, {0x1F51,0x301,0x1F55}, {0x1F51,0x342,0x1F57},
    {0x1F59,0x300,0x1F5B}, {0x1F59,0x301,0x1F5D}, {0x1F59,0x342,0x1F5F}, {0x1F60,0x300,0x1F62},
    {0x1F60,0x301,0x1F64}, {0x1F60,0x342,0x1F66}, {0x1F60,0x345,0x1FA0}, {0x1F61,0x300,0x1F63},
    {0x1F61,0x301,0x1F65}, {0x1F61,0x342,0x1F67}, {0x1F61,0x345,0x1FA1}, {0x1F62,0x345,0x1FA2},
    {0x1F63,0x345,0x1FA3}, {0x1F64,0x345,0x1FA4}, {0x1F65,0x345,0x1FA5}, {0x1F66,0x345,0x1FA6},
    {0x1F67,0x345,0x1FA7}, {0x1F68,0x300,0x1F6A}, {0x1F68,0x301,0x1F6C}, {0x1F68,0x342,0x1F6E},
    {0x1F68,0x345,0x1FA8}, {0x1F69,0x300,0x1F6B}, {0x1F69,0x301,0x1F6D}, {0x1F69,0x342,0x1F6F},
    {0x1F69,0x345,0x1FA9}, {0x1F6A,0x345,0x1FAA}, {0x1F6B,0x345,0x1FAB}, {0x1F6C,0x345,0x1FAC},
    {0x1F6D,0x345,0x1FAD}, {0x1F6E,0x345,0x1FAE}, {0x1F6F,0x345,0x1FAF}, {0x1F70,0x345,0x1FB2},
    {0x1F74,0x345,0x1FC2}, {0x1F7C,0x345,0x1FF2}, {0x1FB6,0x345,0x1FB7}, {0x1FBF,0x300,0x1FCD},
    {0x1FBF,0x301,0x1FCE}, {0x1FBF,0x342,0x1FCF}, {0x1FC6,0x345,0x1FC7}, {0x1FF6,0x345,0x1FF7},
    {0x1FFE,0x300,0x1FDD}, {0x1FFE,0x301,0x1FDE}, {0x1FFE,0x342,0x1FDF}, {0x2190,0x338,0x219A},
    {0x2192,0x338,0x219B}, {0x2194,0x338,0x21AE}, {0x21D0,0x338,0x21CD}, {0x21D2,0x338,0x21CF},
    {0x21D4,0x338,0x21CE}, {0x2203,0x338,0x2204}, {0x2208,0x338,0x2209}, {0x220B,0x338,0x220C},
    {0x2223,0x338,0x2224}, {0x2225,0x338,0x2226}, {0x223C,0x338,0x2241}, {0x2243,0x338,0x2244},
    {0x2245,0x338,0x2247}, {0x2248,0x338,0x2249}, {0x224D,0x338,0x226D}, {0x2261,0x338,0x2262},
    {0x2264,0x338,0x2270}, {0x2265,0x338,0x2271}, {0x2272,0x338,0x2274}, {0x2273,0x338,0x2275},
    {0x2276,0x338,0x2278}, {0x2277,0x338,0x2279}, {0x227A,0x338,0x2280}, {0x227B,0x338,0x2281},
    {0x227C,0x338,0x22E0}, {0x227D,0x338,0x22E1}, {0x2282,0x338,0x2284}, {0x2283,0x338,0x2285},
    {0x2286,0x338,0x2288}, {0x2287,0x338,0x2289}, {0x2291,0x338,0x22E2}, {0x2292,0x338,0x22E3},
    {0x22A2,0x338,0x22AC}, {0x22A8,0x338,0x22AD}, {0x22A9,0x338,0x22AE}, {0x22AB,0x338,0x22AF},
    {0x22B2,0x338,0x22EA}, {0x22B3,0x338,0x22EB}, {0x22B4,0x338,0x22EC}, {0x22B5,0x338,0x22ED},
    {0x3046,0x3099,0x3094}, {0x304B,0x3099,0x304C}, {0x304D,0x3099,0x304E}, {0x304F,0x3099,0x3050},
    {0x3051,0x3099,0x3052}, {0x3053,0x3099,0x3054}, {0x3055,0x3099,0x3056}, {0x3057,0x3099,0x3058},
    {0x3059,0x3099,0x305A}, {0x305B,0x3099,0x305C}, {0x305D,0x3099,0x305E}, {0x305F,0x3099,0x3060},
    {0x3061,0x3099,0x3062}, {0x3064,0x3099,0x3065}, {0x3066,0x3099,0x3067}, {0x3068,0x3099,0x3069},
    {0x306F,0x3099,0x3070}, {0x306F,0x309A,0x3071}, {0x3072,0x3099,0x3073}, {0x3072,0x309A,0x3074},
    {0x3075,0x3099,0x3076}, {0x3075,0x309A,0x3077}, {0x3078,0x3099,0x3079}, {0x3078,0x309A,0x307A},
    {0x307B,0x3099,0x307C}, {0x307B,0x309A,0x307D}, {0x309D,0x3099,0x309E}, {0x30A6,0x3099,0x30F4},
    {0x30AB,0x3099,0x30AC}, {0x30AD,0x3099,0x30AE}, {0x30AF,0x3099,0x30B0}, {0x30B1,0x3099,0x30B2},
    {0x30B3,0x3099,0x30B4}, {0x30B5,0x3099,0x30B6}, {0x30B7,0x3099,0x30B8}, {0x30B9,0x3099,0x30BA},
    {0x30BB,0x3099,0x30BC}, {0x30BD,0x3099,0x30BE}, {0x30BF,0x3099,0x30C0}, {0x30C1,0x3099,0x30C2},
    {0x30C4,0x3099,0x30C5}, {0x30C6,0x3099,0x30C7}, {0x30C8,0x3099,0x30C9}, {0x30CF,0x3099,0x30D0},
    {0x30CF,0x309A,0x30D1}, {0x30D2,0x3099,0x30D3}, {0x30D2,0x309A,0x30D4}, {0x30D5,0x3099,0x30D6},
    {0x30D5,0x309A,0x30D7}, {0x30D8,0x3099,0x30D9}, {0x30D8,0x309A,0x30DA}, {0x30DB,0x3099,0x30DC},
    {0x30DB,0x309A,0x30DD}, {0x30EF,0x3099,0x30F7}, {0x30F0,0x3099,0x30F8}, {0x30F1,0x3099,0x30F9},
    {0x30F2,0x3099,0x30FA}, {0x30FD,0x3099,0x30FE}, {0x11099,0x110BA,0x1109A},
    {0x1109B,0x110BA,0x1109C}, {0x110A5,0x110BA,0x110AB}, {0x11131,0x11127,0x1112E},
    {0x11132,0x11127,0x1112F}, {0x11347,0x1133E,0x1134B}, {0x11347,0x11357,0x1134C},
    {0x114B9,0x114B0,0x114BC}, {0x114B9,0x114BA,0x114BB}, {0x114B9,0x114BD,0x114BE},
    {0x115B8,0x115AF,0x115BA}, {0x115B9,0x115AF,0x115BB},
};
/* end of generated unicode tables */

/* Lookups in the tables above. A range table lists the starts of runs: the run holding cp
   is the last entry whose start is <= cp. */
static uint32_t llm__range_value(const uint32_t *r, size_t n, uint32_t cp, int shift) {
    size_t lo = 0, hi = n;
    uint32_t key = cp << shift | ((1u << shift) - 1);
    if (cp > 0x10FFFF) return 0;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (r[mid] <= key) lo = mid; else hi = mid;
    }
    return r[lo] & ((1u << shift) - 1);
}

/* The class bits (LLM__U_*) and, above them, the general category (llm__gc_names). */
static unsigned llm__uprop_gc(uint32_t cp) {
    return llm__range_value(llm__uprop_ranges, sizeof llm__uprop_ranges / sizeof llm__uprop_ranges[0], cp, 9);
}

static unsigned llm__uprop(uint32_t cp) { return llm__uprop_gc(cp) & 15u; }

static unsigned llm__ccc(uint32_t cp) {
    return cp < 0x300 ? 0 : llm__range_value(llm__ccc_ranges, sizeof llm__ccc_ranges / sizeof llm__ccc_ranges[0], cp, 8);
}

static unsigned llm__nfcqc(uint32_t cp) {
    return llm__range_value(llm__nfcqc_ranges, sizeof llm__nfcqc_ranges / sizeof llm__nfcqc_ranges[0], cp, 2);
}

/* Index of the row whose first two columns are (a, b) (b ignored when cols is 1), or -1. */
static long llm__row_find(const uint32_t (*t)[3], size_t n, uint32_t a, uint32_t b, int cols) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid][0] < a || (t[mid][0] == a && cols == 2 && t[mid][1] < b)) lo = mid + 1; else hi = mid;
    }
    return lo < n && t[lo][0] == a && (cols == 1 || t[lo][1] == b) ? (long)lo : -1;
}

static int llm__decompose1(uint32_t cp, uint32_t *first, uint32_t *second) {
    long i = llm__row_find(llm__decomp, sizeof llm__decomp / sizeof llm__decomp[0], cp, 0, 1);
    if (i < 0) return 0;
    *first = llm__decomp[i][1];
    *second = llm__decomp[i][2];
    return 1;
}

/* The primary composite of a + b, or 0; Hangul L+V and LV+T by the algorithm. */
static uint32_t llm__compose(uint32_t a, uint32_t b) {
    long i;
    if (a >= 0x1100 && a < 0x1113 && b >= 0x1161 && b < 0x1176) return 0xAC00 + ((a - 0x1100) * 21 + (b - 0x1161)) * 28;
    if (a >= 0xAC00 && a < 0xAC00 + 11172 && (a - 0xAC00) % 28 == 0 && b > 0x11A7 && b < 0x11C3) return a + (b - 0x11A7);
    i = llm__row_find(llm__comp, sizeof llm__comp / sizeof llm__comp[0], a, b, 2);
    return i < 0 ? 0 : llm__comp[i][2];
}

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
