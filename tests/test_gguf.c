/* test_gguf: the GGUF reader of tools/llm_gguf.h.

   test_gguf                      hostile headers, built here byte by byte: each one must be
                                  refused with a message (never a crash), and the valid file
                                  they are cut from must parse.
   test_gguf --seeds DIR          writes the seeds of tests/fuzz/fuzz_gguf.c into DIR.
   test_gguf FILE.gguf TENSORS.json  a file of ../shared/testdata/gguf against what llama.cpp
                                  reads from it (tests/test_gguf_llamacpp.sh): header, every metadata
                                  entry, every tensor's name, type, shape, offset, raw sha256
                                  and dequantized sha256 (bit exact), and for Q8_0 / Q4_0 the
                                  same values read back from llm.h's own layout.
   test_gguf FILE.gguf TENSORS.json CONVERTED.llm  every tensor of the file convert made from
                                  FILE, read back through llm.h's dequantization, equal bit
                                  for bit to llama.cpp's dequantized values (the kept q8_0,
                                  q4_0, q4_k, q5_k and q6_k tensors and the f32 ones). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "check.h"
#include "sha256.h"

#include <errno.h>
#include <sys/stat.h>
#if defined(_WIN32)
#include <direct.h>
#endif

/* ---- hostile headers ---- */
typedef struct buf { uint8_t *p; size_t n, cap; } buf;

static void put(buf *b, const void *s, size_t n) {
    if (b->n + n > b->cap) { b->cap = 2 * (b->n + n) + 64; b->p = (uint8_t *)realloc(b->p, b->cap); }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void put32(buf *b, uint32_t v) { uint8_t x[4]; int i; for (i = 0; i < 4; i++) x[i] = (uint8_t)(v >> 8 * i); put(b, x, 4); }
static void put64(buf *b, uint64_t v) { put32(b, (uint32_t)v); put32(b, (uint32_t)(v >> 32)); }
static void putstr(buf *b, const char *s) { put64(b, strlen(s)); put(b, s, strlen(s)); }
static void pad_to(buf *b, size_t a) { static const uint8_t z[64] = { 0 }; while (b->n % a) put(b, z, 1); }

/* What a hostile case changes in the valid file. */
typedef struct spec {
    uint32_t version;
    uint64_t n_kv_lie, n_tensors_lie;   /* nonzero: this count in the header */
    uint64_t str_len_lie;               /* nonzero: the key string claims this length */
    uint64_t array_n_lie;               /* nonzero: the u32 array claims this count */
    int nest;                           /* > 0: an array nested this deep */
    uint64_t strings_n;                 /* nonzero: an array of this many strings (one present) */
    uint32_t alignment;                 /* nonzero: general.alignment */
    uint32_t n_dims;                    /* 0: 1 */
    uint64_t ne0, ne1;                  /* 0: 32 */
    uint32_t type;                      /* tensor type (0 F32) */
    uint64_t offset, offset2;           /* the tensors' offsets */
    int two_tensors, same_name, zero_dim;
} spec;

static buf make_gguf(const spec *s) {
    buf b = { NULL, 0, 0 };
    int extra = (s->nest > 0) + (s->strings_n > 0) + (s->alignment > 0);
    uint32_t nd = s->n_dims ? s->n_dims : 1, d;
    int t, nt = s->two_tensors ? 2 : 1;
    uint64_t align = s->alignment && !(s->alignment & (s->alignment - 1)) && s->alignment <= 64 ? s->alignment : 32;
    put(&b, "GGUF", 4);
    put32(&b, s->version ? s->version : 3);
    put64(&b, s->n_tensors_lie ? s->n_tensors_lie : (uint64_t)nt);
    put64(&b, s->n_kv_lie ? s->n_kv_lie : (uint64_t)(2 + extra));
    if (s->str_len_lie) { put64(&b, s->str_len_lie); put(&b, "general.name", 12); }
    else putstr(&b, "general.name");
    put32(&b, LLM__GGUF_STRING);
    putstr(&b, "hostile");
    putstr(&b, "test.values");
    put32(&b, LLM__GGUF_ARRAY);
    put32(&b, LLM__GGUF_U32);
    put64(&b, s->array_n_lie ? s->array_n_lie : 3);
    put32(&b, 1); put32(&b, 2); put32(&b, 3);
    if (s->nest > 0) {
        int i;
        putstr(&b, "test.nested");
        put32(&b, LLM__GGUF_ARRAY);
        for (i = 0; i < s->nest - 1; i++) { put32(&b, LLM__GGUF_ARRAY); put64(&b, 1); }
        put32(&b, LLM__GGUF_U8); put64(&b, 1);
        { uint8_t one = 1; put(&b, &one, 1); }
    }
    if (s->strings_n) { putstr(&b, "test.strings"); put32(&b, LLM__GGUF_ARRAY); put32(&b, LLM__GGUF_STRING); put64(&b, s->strings_n); putstr(&b, "x"); }
    if (s->alignment) { putstr(&b, "general.alignment"); put32(&b, LLM__GGUF_U32); put32(&b, s->alignment); }
    for (t = 0; t < nt; t++) {
        putstr(&b, t && !s->same_name ? "w2" : "w");
        put32(&b, nd);
        for (d = 0; d < nd && d < 5; d++) put64(&b, d == 0 ? (s->ne0 ? s->ne0 : 32) : s->zero_dim ? 0 : (s->ne1 ? s->ne1 : 1));
        put32(&b, s->type);
        put64(&b, t ? s->offset2 : s->offset);
    }
    pad_to(&b, (size_t)align);
    { float f[64]; memset(f, 0, sizeof f); put(&b, f, sizeof f); }
    return b;
}

static int parse(const buf *b, char *msg, size_t cap) {
    llm__gguf g;
    int r;
    memset(&g, 0, sizeof g);
    r = llm__gguf_parse(&g, b->p, b->n, b->n);
    snprintf(msg, cap, "%s", g.msg);
    llm__gguf_free(&g);
    return r;
}

static void refused(const char *what, const spec *s, const char *needle) {
    buf b = make_gguf(s);
    char msg[512];
    int r = parse(&b, msg, sizeof msg);
    check(r == -1 && msg[0] && (!needle || strstr(msg, needle)), "%s: refused (%s)", what, msg[0] ? msg : "no message");
    free(b.p);
}

static uint8_t *read_all(const char *path, size_t *n);

static int hostile(void) {
    spec s;
    buf b;
    char msg[512];
    size_t n, need;
    int all = 1;
    memset(&s, 0, sizeof s);
    b = make_gguf(&s);
    {
        llm__gguf g;
        memset(&g, 0, sizeof g);
        check(llm__gguf_parse(&g, b.p, b.n, b.n) == 0, "the valid file parses (%s)", g.msg);
        need = (size_t)(g.data_offset + g.t[0].size);
        llm__gguf_free(&g);
    }
    /* every truncation of the valid file before its tensor's end: an error, never a read
       past the end */
    for (n = 0; n < need; n++) {
        buf cut = b;
        cut.n = n;
        if (parse(&cut, msg, sizeof msg) != -1 || !msg[0]) { all = 0; printf("  cut at %lu: %s\n", (unsigned long)n, msg); }
    }
    check(all, "each of its %lu truncations is refused with a message", (unsigned long)need);
    { char x[65]; sha256_hex("abc", 3, x); check(!strcmp(x, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "sha256 of FIPS 180-4's \"abc\""); }
    free(b.p);
    memset(&s, 0, sizeof s); s.version = 1; refused("version 1", &s, "version 1");
    memset(&s, 0, sizeof s); s.version = 0x03000000; refused("a big-endian file", &s, "version");
    memset(&s, 0, sizeof s); s.n_kv_lie = (uint64_t)1 << 62; refused("2^62 metadata entries", &s, "counts");
    memset(&s, 0, sizeof s); s.n_tensors_lie = (uint64_t)1 << 40; refused("2^40 tensors", &s, "counts");
    memset(&s, 0, sizeof s); s.str_len_lie = (uint64_t)1 << 63; refused("a key of 2^63 bytes", &s, "past the end");
    memset(&s, 0, sizeof s); s.str_len_lie = (uint64_t)-1; refused("a key of 2^64-1 bytes", &s, "past the end");
    memset(&s, 0, sizeof s); s.array_n_lie = (uint64_t)1 << 62; refused("a u32 array of 2^62", &s, "larger than the file");
    memset(&s, 0, sizeof s); s.array_n_lie = 100; refused("a u32 array longer than the file", &s, "past the end");
    memset(&s, 0, sizeof s); s.strings_n = (uint64_t)1 << 61; refused("a string array of 2^61", &s, "larger than the file");
    memset(&s, 0, sizeof s); s.strings_n = 5; refused("a string array missing 4 strings", &s, NULL);
    memset(&s, 0, sizeof s); s.nest = 4; b = make_gguf(&s); check(parse(&b, msg, sizeof msg) == 0, "arrays nested 4 deep parse (%s)", msg); free(b.p);
    memset(&s, 0, sizeof s); s.nest = 1000; refused("arrays nested 1000 deep", &s, "nested");
    memset(&s, 0, sizeof s); s.alignment = 3; refused("general.alignment 3", &s, "power of two");
    memset(&s, 0, sizeof s); s.alignment = 0x80000000u; refused("general.alignment 2^31", &s, "power of two");
    memset(&s, 0, sizeof s); s.alignment = 64; b = make_gguf(&s); check(parse(&b, msg, sizeof msg) == 0, "general.alignment 64 parses (%s)", msg); free(b.p);
    memset(&s, 0, sizeof s); s.offset = 4; refused("a tensor offset off the alignment", &s, "alignment");
    memset(&s, 0, sizeof s); s.offset = (uint64_t)1 << 40; refused("a tensor offset past the end", &s, "past the end");
    memset(&s, 0, sizeof s); s.offset = (uint64_t)-32; refused("a tensor offset of 2^64-32", &s, "past the end");
    memset(&s, 0, sizeof s); s.n_dims = 2; s.ne0 = (uint64_t)1 << 40; s.ne1 = (uint64_t)1 << 40; refused("dimensions 2^40 x 2^40", &s, "bad dimension");
    memset(&s, 0, sizeof s); s.n_dims = 2; s.ne1 = 1000; refused("a tensor larger than the file", &s, "past the end");
    memset(&s, 0, sizeof s); s.n_dims = 5; refused("5 dimensions", &s, "dimensions");
    memset(&s, 0, sizeof s); s.n_dims = (uint32_t)-1; refused("2^32-1 dimensions", &s, "dimensions");
    memset(&s, 0, sizeof s); s.n_dims = 2; s.zero_dim = 1; refused("a dimension of 0", &s, "bad dimension");
    memset(&s, 0, sizeof s); s.type = 99; refused("tensor type id 99", &s, "no ggml type");
    memset(&s, 0, sizeof s); s.type = 16; refused("an IQ2_XXS tensor", &s, "IQ2_XXS");
    memset(&s, 0, sizeof s); s.type = LLM__GT_Q4_0; s.ne0 = 33; refused("a Q4_0 row of 33", &s, "multiple of 32");
    memset(&s, 0, sizeof s); s.two_tensors = 1; s.offset2 = 128; b = make_gguf(&s); check(parse(&b, msg, sizeof msg) == 0, "two tensors apart parse (%s)", msg); free(b.p);
    memset(&s, 0, sizeof s); s.two_tensors = 1; s.offset2 = 96; refused("overlapping tensors", &s, "overlap");
    memset(&s, 0, sizeof s); s.two_tensors = 1; s.offset2 = 128; s.same_name = 1; refused("a name twice", &s, "twice");
    return 0;
}


/* ---- fuzz seeds: tiny but complete models, each tensor of another type ---- */
static void kv_str(buf *b, int *n, const char *k, const char *v) { putstr(b, k); put32(b, LLM__GGUF_STRING); putstr(b, v); ++*n; }
static void kv_u32(buf *b, int *n, const char *k, uint32_t v) { putstr(b, k); put32(b, LLM__GGUF_U32); put32(b, v); ++*n; }
static void kv_f32(buf *b, int *n, const char *k, float v) { uint32_t u; memcpy(&u, &v, 4); putstr(b, k); put32(b, LLM__GGUF_F32); put32(b, u); ++*n; }
static void kv_bool(buf *b, int *n, const char *k, int v) { uint8_t x = (uint8_t)v; putstr(b, k); put32(b, LLM__GGUF_BOOL); put(b, &x, 1); ++*n; }
static void kv_strs(buf *b, int *n, const char *k, const char *const *v, int count) {
    int i;
    putstr(b, k); put32(b, LLM__GGUF_ARRAY); put32(b, LLM__GGUF_STRING); put64(b, (uint64_t)count);
    for (i = 0; i < count; i++) putstr(b, v[i]);
    ++*n;
}
static void kv_nums(buf *b, int *n, const char *k, uint32_t type, const uint32_t *v, int count) {
    int i;
    putstr(b, k); put32(b, LLM__GGUF_ARRAY); put32(b, type); put64(b, (uint64_t)count);
    for (i = 0; i < count; i++) put32(b, v[i]);
    ++*n;
}

typedef struct seed_tensor { const char *name; uint32_t type; uint64_t ne0, ne1; } seed_tensor;

/* The header (metadata given in meta, n_kv entries), the tensor infos and the tensors' bytes:
   random codes, and scales that are small finite halves. */
static void write_seed(const char *path, const buf *meta, int n_kv, const seed_tensor *t, int nt) {
    buf b = { NULL, 0, 0 };
    uint64_t off = 0, sizes[32];
    uint32_t x = 12345;
    int i;
    FILE *f;
    put(&b, "GGUF", 4); put32(&b, 3); put64(&b, (uint64_t)nt); put64(&b, (uint64_t)n_kv);
    put(&b, meta->p, meta->n);
    for (i = 0; i < nt; i++) {
        const llm__gguf_type *ty = llm__gguf_type_of(t[i].type);
        /* a type without a reader: IQ3_S's 110 bytes per 256 weights */
        sizes[i] = (ty->blck ? t[i].ne0 / ty->blck * ty->size : t[i].ne0 / 256 * 110) * (t[i].ne1 ? t[i].ne1 : 1);
        putstr(&b, t[i].name); put32(&b, t[i].ne1 ? 2 : 1); put64(&b, t[i].ne0);
        if (t[i].ne1) put64(&b, t[i].ne1);
        put32(&b, t[i].type); put64(&b, off);
        off = (off + sizes[i] + 31) / 32 * 32;
    }
    pad_to(&b, 32);
    for (i = 0; i < nt; i++) {
        uint64_t k;
        for (k = 0; k < sizes[i]; k++) { uint8_t v; x = x * 1103515245u + 12345u; v = (uint8_t)(x >> 16); if (k % 2) v &= 0x1f; put(&b, &v, 1); }
        pad_to(&b, 32);
    }
    if (!(f = fopen(path, "wb")) || fwrite(b.p, 1, b.n, f) != b.n || fclose(f) != 0) printf("FAIL cannot write %s\n", path);
    else printf("wrote %s (%lu bytes)\n", path, (unsigned long)b.n);
    free(b.p);
}

/* The seeds; the second with tokenizer.ggml.pre = pre, tensor blk.0.attn_k.weight of type
   k_type, and rope.scaling.type rope when not NULL (a yarn one with an extrapolation factor of
   0.5): the refusal checks change them. */
static int write_seeds_as(const char *dir, const char *pre, uint32_t k_type, const char *arch, const char *rope) {
    static const char *const spm[] = { "<unk>", "<s>", "</s>", "<0x0A>", "\342\226\201", "a", "b", "\342\226\201a", "ab", "\342\226\201ab" };
    static const char *const bpe[] = { "a", "b", "\304\240", "ab", "\304\240a", "\304\240ab", "<|endoftext|>", "<tool>" };
    static const char *const merges[] = { "a b", "\304\240 a", "\304\240a b" };
    static const seed_tensor llama[] = {
        { "token_embd.weight", LLM__GT_Q8_0, 32, 10 }, { "output_norm.weight", LLM__GT_F32, 32, 0 },
        { "blk.0.attn_norm.weight", LLM__GT_F32, 32, 0 }, { "blk.0.ffn_norm.weight", LLM__GT_F32, 32, 0 },
        { "blk.0.attn_q.weight", LLM__GT_Q4_0, 32, 32 }, { "blk.0.attn_k.weight", LLM__GT_Q4_1, 32, 16 },
        { "blk.0.attn_v.weight", LLM__GT_Q5_0, 32, 16 }, { "blk.0.attn_output.weight", LLM__GT_Q5_1, 32, 32 },
        { "blk.0.ffn_gate.weight", LLM__GT_IQ4_NL, 32, 16 }, { "blk.0.ffn_up.weight", LLM__GT_F16, 32, 16 },
        { "blk.0.ffn_down.weight", LLM__GT_BF16, 16, 32 },
    };
    seed_tensor qwen[] = {
        { "token_embd.weight", LLM__GT_Q6_K, 256, 8 }, { "output_norm.weight", LLM__GT_F32, 256, 0 },
        { "blk.0.attn_norm.weight", LLM__GT_F32, 256, 0 }, { "blk.0.ffn_norm.weight", LLM__GT_F32, 256, 0 },
        { "blk.0.attn_q.weight", LLM__GT_Q2_K, 256, 8 }, { "blk.0.attn_k.weight", LLM__GT_Q3_K, 256, 4 }, /* [5]: k */
        { "blk.0.attn_v.weight", LLM__GT_Q4_K, 256, 4 }, { "blk.0.attn_q.bias", LLM__GT_F32, 8, 0 },
        { "blk.0.attn_k.bias", LLM__GT_F32, 4, 0 }, { "blk.0.attn_v.bias", LLM__GT_F32, 4, 0 },
        { "blk.0.attn_output.weight", LLM__GT_F16, 8, 256 }, { "blk.0.ffn_gate.weight", LLM__GT_Q5_K, 256, 8 },
        { "blk.0.ffn_up.weight", LLM__GT_IQ4_XS, 256, 8 }, { "blk.0.ffn_down.weight", LLM__GT_F32, 8, 256 },
    };
    uint32_t types[10] = { 2, 3, 3, 6, 1, 1, 1, 1, 1, 1 }, scores[10], btypes[8] = { 1, 1, 1, 1, 1, 1, 3, 4 };
    char path[1024];
    buf m = { NULL, 0, 0 };
    int n = 0, i;
    for (i = 0; i < 10; i++) { float f = -(float)i; memcpy(&scores[i], &f, 4); }
    kv_str(&m, &n, "general.architecture", "llama");
    kv_u32(&m, &n, "llama.block_count", 1); kv_u32(&m, &n, "llama.context_length", 64);
    kv_u32(&m, &n, "llama.embedding_length", 32); kv_u32(&m, &n, "llama.feed_forward_length", 16);
    kv_u32(&m, &n, "llama.attention.head_count", 2); kv_u32(&m, &n, "llama.attention.head_count_kv", 1);
    kv_f32(&m, &n, "llama.attention.layer_norm_rms_epsilon", 1e-5f); kv_f32(&m, &n, "llama.rope.freq_base", 10000.0f);
    kv_str(&m, &n, "tokenizer.ggml.model", "llama"); kv_str(&m, &n, "tokenizer.ggml.pre", "default");
    kv_strs(&m, &n, "tokenizer.ggml.tokens", spm, 10);
    kv_nums(&m, &n, "tokenizer.ggml.scores", LLM__GGUF_F32, scores, 10);
    kv_nums(&m, &n, "tokenizer.ggml.token_type", LLM__GGUF_I32, types, 10);
    kv_u32(&m, &n, "tokenizer.ggml.bos_token_id", 1); kv_u32(&m, &n, "tokenizer.ggml.eos_token_id", 2);
    kv_u32(&m, &n, "tokenizer.ggml.unk_token_id", 0); kv_bool(&m, &n, "tokenizer.ggml.add_bos_token", 1);
    kv_str(&m, &n, "tokenizer.chat_template", "{% for m in messages %}{{ m['content'] }}{% endfor %}");
    snprintf(path, sizeof path, "%s/llama-spm.gguf", dir);
    write_seed(path, &m, n, llama, (int)(sizeof llama / sizeof llama[0]));
    m.n = 0; n = 0;
    qwen[5].type = k_type;
    kv_str(&m, &n, "general.architecture", arch);
    kv_u32(&m, &n, "general.alignment", 32);
    kv_u32(&m, &n, "qwen2.block_count", 1); kv_u32(&m, &n, "qwen2.embedding_length", 256);
    kv_u32(&m, &n, "qwen2.feed_forward_length", 8); kv_u32(&m, &n, "qwen2.attention.head_count", 2);
    kv_u32(&m, &n, "qwen2.attention.head_count_kv", 1); kv_u32(&m, &n, "qwen2.attention.key_length", 4);
    kv_u32(&m, &n, "qwen2.attention.value_length", 4); kv_u32(&m, &n, "qwen2.rope.dimension_count", 4);
    if (rope) {
        kv_str(&m, &n, "qwen2.rope.scaling.type", rope);
        kv_f32(&m, &n, "qwen2.rope.scaling.factor", 4.0f); kv_f32(&m, &n, "qwen2.rope.scaling.yarn_ext_factor", 0.5f);
    }
    kv_str(&m, &n, "tokenizer.ggml.model", "gpt2"); kv_str(&m, &n, "tokenizer.ggml.pre", pre);
    kv_strs(&m, &n, "tokenizer.ggml.tokens", bpe, 8);
    kv_nums(&m, &n, "tokenizer.ggml.token_type", LLM__GGUF_I32, btypes, 8);
    kv_strs(&m, &n, "tokenizer.ggml.merges", merges, 3);
    kv_u32(&m, &n, "tokenizer.ggml.eos_token_id", 6);
    snprintf(path, sizeof path, "%s/qwen2-bpe.gguf", dir);
    write_seed(path, &m, n, qwen, (int)(sizeof qwen / sizeof qwen[0]));
    free(m.p);
    return 0;
}

static int write_seeds(const char *dir) { return write_seeds_as(dir, "qwen2", LLM__GT_Q3_K, "qwen2", NULL); }

/* A file llm_convert must refuse with a message that names the reason. */
static void convert_refuses(const char *dir, const char *what, const char *pre, uint32_t k_type, const char *arch, const char *rope, const char *needle) {
    char seed[600], out[600], err[1024];
    write_seeds_as(dir, pre, k_type, arch, rope);
    snprintf(seed, sizeof seed, "%s/qwen2-bpe.gguf", dir);
    snprintf(out, sizeof out, "%s/out.llm", dir);
    err[0] = 0;
    check(llm_convert(seed, out, NULL, err, sizeof err) != LLM_OK && strstr(err, needle) != NULL, "%s is refused, naming it (%s)", what, err);
}

/* ---- against a reference ---- */
static uint8_t *read_all(const char *path, size_t *n) {
    char err[256];
    return (uint8_t *)json_read_file(path, n, err, sizeof err);
}

static const char *kv_type_name(uint32_t t) {
    static const char *const names[] = { "UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64" };
    return t < 13 ? names[t] : "?";
}

/* The metadata entry against its reference: type, value or count and sha256 of the elements. */
static int kv_matches(const llm__gguf *g, const llm__gguf_kv *kv, const json_value *ref) {
    const json_value *type = json_get(ref, "type");
    char hex[65];
    if (!type || type->type != JSON_STRING) return 0;
    if (kv->type == LLM__GGUF_ARRAY) {
        const json_value *n = json_get(ref, "n"), *sha = json_get(ref, "sha256"), *elem = json_get(ref, "elem");
        size_t pos = kv->val, i, len, start = kv->val;
        sha256_ctx c;
        if (strcmp(type->str, "ARRAY") || !n || (uint64_t)n->number != kv->n || !elem || strcmp(elem->str, kv_type_name(kv->elem))) return 0;
        if (!sha) return 1; /* short arrays: the count and type */
        sha256_init(&c);
        if (kv->elem == LLM__GGUF_STRING) {
            for (i = 0; i < kv->n; i++) { const char *s = llm__gguf_str_at(g, &pos, &len); sha256_update(&c, s, len); sha256_update(&c, "", 1); }
        } else {
            sha256_update(&c, g->buf + start, (size_t)(kv->n * llm__gguf_scalar_size(kv->elem)));
        }
        sha256_final(&c, hex);
        return !strcmp(hex, sha->str);
    }
    if (strcmp(type->str, kv_type_name(kv->type))) return 0;
    if (kv->type == LLM__GGUF_STRING) {
        size_t pos = kv->val, len;
        const char *s = llm__gguf_str_at(g, &pos, &len);
        const json_value *v = json_get(ref, "value"), *sha = json_get(ref, "sha256");
        if (v) return v->type == JSON_STRING && v->len == len && !memcmp(v->str, s, len);
        if (!sha) return 0;
        sha256_hex(s, len, hex);
        return !strcmp(hex, sha->str);
    }
    {
        const json_value *v = json_get(ref, "value");
        double x;
        if (!v) return 0;
        if (kv->type == LLM__GGUF_BOOL) return (v->type == JSON_TRUE) == (g->buf[kv->val] != 0);
        if (llm__gguf_kv_float(g, kv, &x)) { uint64_t u = llm__gguf_le(g->buf + kv->val, 8); x = (double)(int64_t)u; }
        if (kv->type == LLM__GGUF_F32) return (float)v->number == (float)x;
        return v->number == x;
    }
}

/* float32 values as little-endian bytes into a running hash */
static void hash_floats(sha256_ctx *c, const float *f, uint64_t n) {
    uint8_t b[4096];
    size_t used = 0;
    uint64_t i;
    for (i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &f[i], 4);
        b[used] = (uint8_t)u; b[used + 1] = (uint8_t)(u >> 8); b[used + 2] = (uint8_t)(u >> 16); b[used + 3] = (uint8_t)(u >> 24);
        if ((used += 4) == sizeof b) { sha256_update(c, b, used); used = 0; }
    }
    sha256_update(c, b, used);
}

/* llm.h's q8_0 / q4_0 layout read back (docs/FORMAT.md), independently of the writer. */
static float llm_layout_value(const uint8_t *data, int q8, uint64_t cols, uint64_t r, uint64_t k) {
    uint64_t nb = cols / 32, rb = nb * (q8 ? 34 : 18), g = r / 16, l = r % 16, b = k / 32, c = k % 32;
    const uint8_t *grp = data + g * 16 * rb, *codes = grp + b * (q8 ? 512 : 256), *sc = grp + nb * (q8 ? 512 : 256) + b * 32 + 2 * l;
    float d = llm_f16_to_f32((uint16_t)(sc[0] | sc[1] << 8));
    if (q8) return (float)(int8_t)codes[(c / 4) * 64 + 4 * l + c % 4] * d;
    {
        uint64_t j = c % 16;
        uint8_t byte = codes[(j / 4) * 64 + 4 * l + j % 4];
        return (float)((c < 16 ? byte & 15 : byte >> 4) - 8) * d;
    }
}

static int against_reference(const char *gguf, const char *ref_path) {
    size_t n;
    uint8_t *file = read_all(gguf, &n);
    char err[256], hex[65];
    json_value *ref = json_parse_file(ref_path, err, sizeof err);
    const json_value *kvs, *ts;
    llm__gguf g;
    uint64_t i;
    int kv_ok = 0, raw_ok = 0, deq_ok = 0, lay_ok = 0, lay_n = 0, info_ok = 0;
    const char *base = strrchr(gguf, '/') ? strrchr(gguf, '/') + 1 : gguf;
    if (!file || !ref) { printf("FAIL test_gguf: cannot read %s or %s (%s)\n", gguf, ref_path, err); return 1; }
    memset(&g, 0, sizeof g);
    check(llm__gguf_parse(&g, file, n, n) == 0, "%s parses (%s)", base, g.msg);
    kvs = json_get(ref, "kv");
    ts = json_get(ref, "tensors");
    CHECK(kvs && ts && ts->type == JSON_ARRAY, "%s: no kv or tensors", ref_path);
    if (check_failures) return check_summary("?");
    check(g.version == (uint32_t)json_get(ref, "gguf_version")->number && g.alignment == (uint64_t)json_get(ref, "alignment")->number &&
          g.data_offset == (uint64_t)json_get(ref, "data_offset")->number && g.n_kv == (uint64_t)json_get(ref, "n_kv")->number &&
          g.n_tensors == (uint64_t)json_get(ref, "n_tensors")->number && g.n_tensors == ts->len,
          "%s: version %u, alignment %llu, data offset %llu, %llu entries, %llu tensors as the reference", base, g.version,
          (unsigned long long)g.alignment, (unsigned long long)g.data_offset, (unsigned long long)g.n_kv, (unsigned long long)g.n_tensors);
    for (i = 0; i < kvs->len; i++) {
        char key[300];
        const llm__gguf_kv *kv;
        snprintf(key, sizeof key, "%s", kvs->items[i].key);
        kv = llm__gguf_find(&g, key);
        if (kv && kv_matches(&g, kv, &kvs->items[i])) kv_ok++;
        else printf("  metadata %s differs\n", key);
    }
    for (i = 0; i < g.n_tensors && i < ts->len; i++) {
        const llm__gguf_tensor *t = &g.t[i];
        const json_value *e = &ts->items[i], *ne = json_get(e, "ne");
        const uint8_t *data = file + g.data_offset + t->offset;
        float *f = (float *)malloc((size_t)t->n_elem * sizeof(float));
        sha256_ctx c;
        int d, same = ne && ne->len == (size_t)t->n_dims && t->name_len == json_get(e, "name")->len &&
                      !memcmp(g.buf + t->name, json_get(e, "name")->str, t->name_len) && !strcmp(llm__gguf_type_name(t->type), json_get(e, "type")->str) &&
                      t->offset == (uint64_t)json_get(e, "offset")->number && t->size == (uint64_t)json_get(e, "n_bytes")->number;
        for (d = 0; same && d < t->n_dims; d++) same = t->ne[d] == (uint64_t)ne->items[d].number;
        info_ok += same;
        if (!same) printf("  tensor %d: name, type, shape or offset differ from %s\n", (int)i, json_get(e, "name")->str);
        sha256_hex(data, (size_t)t->size, hex);
        if (!strcmp(hex, json_get(e, "sha256")->str)) raw_ok++;
        if (f && llm__gguf_dequantize(t->type, data, t->n_elem, f) == 0) {
            sha256_init(&c);
            hash_floats(&c, f, t->n_elem);
            sha256_final(&c, hex);
            if (!strcmp(hex, json_get(e, "dequant_sha256")->str)) deq_ok++;
            else printf("  tensor %s (%s): dequantized values differ (first %g, reference first %g)\n", json_get(e, "name")->str, llm__gguf_type_name(t->type), f[0], 0.0);
        }
        if (f && (t->type == LLM__GT_Q8_0 || t->type == LLM__GT_Q4_0) && (t->n_elem / t->ne[0]) % 16 == 0) {
            uint64_t rows = t->n_elem / t->ne[0], r, k;
            uint8_t *lay = (uint8_t *)malloc((size_t)t->size);
            lay_n++;
            if (!lay) { free(f); continue; } /* (counted, not equal: the check fails) */
            llm__gguf_relayout_q(t->type, data, rows, t->ne[0], lay);
            for (r = 0; r < rows; r++)  /* (over the dequantized values, hashed above) */
                for (k = 0; k < t->ne[0]; k++) f[r * t->ne[0] + k] = llm_layout_value(lay, t->type == LLM__GT_Q8_0, t->ne[0], r, k);
            sha256_init(&c);
            hash_floats(&c, f, t->n_elem);
            sha256_final(&c, hex);
            lay_ok += !strcmp(hex, json_get(e, "dequant_sha256")->str);
            free(lay);
        }
        free(f);
    }
    check(kv_ok == (int)kvs->len, "%s: %d/%d metadata entries equal", base, kv_ok, (int)kvs->len);
    check(info_ok == (int)ts->len, "%s: %d/%d tensor infos equal", base, info_ok, (int)ts->len);
    check(raw_ok == (int)ts->len, "%s: %d/%d raw tensor sha256 equal", base, raw_ok, (int)ts->len);
    check(deq_ok == (int)ts->len, "%s: %d/%d dequantized tensors bit-exact", base, deq_ok, (int)ts->len);
    if (lay_n) check(lay_ok == lay_n, "%s: %d/%d Q8_0/Q4_0 tensors bit-exact from llm.h's layout", base, lay_ok, lay_n);
    llm__gguf_free(&g);
    json_free(ref);
    free(file);
    return check_summary("test_gguf: the file reads as llama.cpp reads it");
}

/* GGUF row r of Q or K of a permuting architecture is HF row h*hd + j*(hd/2) + i, with
   r = h*hd + 2i + j (llama.cpp's LlamaModel.permute). */
static uint64_t hf_row(uint64_t r, uint64_t hd) {
    uint64_t h = r / hd, k = r % hd;
    return h * hd + (k % 2) * (hd / 2) + k / 2;
}

static uint64_t kv_u(const llm__gguf *g, const char *key) {
    const llm__gguf_kv *kv = llm__gguf_find(g, key);
    uint64_t v = 0;
    if (kv) llm__gguf_kv_uint(g, kv, &v);
    return v;
}

/* The converted file read back through llm.h's own dequantization (the embedding lookup's
   llm__get_row), every tensor in the GGUF's row order, hashed as the reference hashes
   llama.cpp's values: each tensor the converter kept must give all of them bit for bit. */
static int read_back(const char *gguf, const char *ref_path, const char *llm_path) {
    size_t n, len;
    uint8_t *file = read_all(gguf, &n);
    char err[256], hex[65], key[96];
    json_value *ref = json_parse_file(ref_path, err, sizeof err);
    const json_value *ts = NULL;
    const char *arch, *base = strrchr(gguf, '/') ? strrchr(gguf, '/') + 1 : gguf;
    llm__gguf g;
    llm_model *m = NULL;
    uint64_t i, n_head, n_head_kv;
    int ok = 0, kept = 0, permute, counts[LLM_DTYPE_COUNT] = { 0 }, d;
    char kinds[256];
    size_t kn = 0;
    if (!file || !ref || llm_model_open(&m, llm_path, NULL) != LLM_OK) { printf("FAIL test_gguf: cannot read %s, %s or %s\n", gguf, ref_path, llm_path); return 1; }
    memset(&g, 0, sizeof g);
    CHECK(llm__gguf_parse(&g, file, n, n) == 0 && (ts = json_get(ref, "tensors")) && ts->len == g.n_tensors, "%s parses as its reference", base);
    arch = llm__gguf_kv_str(&g, "general.architecture", &len);
    permute = arch && len == 5 && !memcmp(arch, "llama", 5);
    snprintf(key, sizeof key, "%.*s.attention.head_count", (int)len, arch);
    n_head = kv_u(&g, key);
    snprintf(key, sizeof key, "%.*s.attention.head_count_kv", (int)len, arch);
    n_head_kv = kv_u(&g, key);
    if (!n_head_kv) n_head_kv = n_head;
    for (i = 0; i < g.n_tensors; i++) {
        const llm__gguf_tensor *t = &g.t[i];
        char name[320];
        const llm_tensor *w;
        uint64_t cols = t->ne[0], rows = t->n_elem / cols, r, hd = 0;
        float *row, *one;
        sha256_ctx c;
        if (!llm__gguf_hf_name_of((const char *)g.buf + t->name, t->name_len, 0, 0, 0, name, sizeof name) || !(w = llm_model_tensor(m, name))) {
            printf("  tensor %.*s: not in %s\n", (int)t->name_len, (const char *)g.buf + t->name, llm_path);
            continue;
        }
        if (permute && (strstr(name, "q_proj") || strstr(name, "k_proj"))) hd = (t->n_dims == 1 ? t->n_elem : rows) / (strstr(name, "q_proj") ? n_head : n_head_kv);
        row = (float *)malloc((size_t)t->n_elem * sizeof(float));
        one = (float *)malloc((size_t)t->n_elem * sizeof(float));
        for (r = 0; r < rows; r++) llm__get_row(w, (int64_t)(hd && t->n_dims > 1 ? hf_row(r, hd) : r), row + r * cols, (int)cols);
        if (hd && t->n_dims == 1) { memcpy(one, row, (size_t)cols * sizeof(float)); for (r = 0; r < cols; r++) row[r] = one[hf_row(r, hd)]; }
        sha256_init(&c);
        hash_floats(&c, row, t->n_elem);
        sha256_final(&c, hex);
        if (!strcmp(hex, json_get(&ts->items[i], "dequant_sha256")->str)) ok++;
        else printf("  tensor %s (%s -> %s): values read back differ from llama.cpp's\n", name, llm__gguf_type_name(t->type), llm_dtype_name(w->dtype));
        if (w->dtype != LLM_DTYPE_F32 || t->type == LLM__GT_F32) { kept++; counts[w->dtype]++; }
        free(row);
        free(one);
    }
    kinds[0] = 0;
    for (d = 0; d < LLM_DTYPE_COUNT; d++)
        if (counts[d]) kn += (size_t)snprintf(kinds + kn, kn < sizeof kinds ? sizeof kinds - kn : 0, "%s%s x%d", kn ? ", " : "", llm_dtype_name((llm_dtype)d), counts[d]);
    check(ok == (int)g.n_tensors, "%s: %d/%d tensors read back from the .llm bit-exact (%d kept as stored: %s)", base, ok, (int)g.n_tensors, kept, kinds);
    llm_model_close(m);
    llm__gguf_free(&g);
    json_free(ref);
    free(file);
    return check_summary("test_gguf: the converted file holds llama.cpp's values");
}

/* The whole converter on a seed model and on every cut of it at 1/64 steps: the seed
   converts, each cut is refused with a message and leaves no output. */
static int convert_cuts(void) {
    char dir[512], seed[600], cut[600], out[600], err[1024];
    const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
    size_t n, at;
    uint8_t *data;
    int bad = 0, cuts = 0;
    FILE *f;
    snprintf(dir, sizeof dir, "%s/tests/gguf", build);
#if defined(_WIN32) /* (not "mkdir -p" through system(): cmd.exe's mkdir fails on a directory that is there) */
    if (_mkdir(dir) != 0 && errno != EEXIST) { check(0, "cannot make %s", dir); return 1; }
#else
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) { check(0, "cannot make %s", dir); return 1; }
#endif
    write_seeds(dir);
    snprintf(seed, sizeof seed, "%s/llama-spm.gguf", dir);
    snprintf(cut, sizeof cut, "%s/cut.gguf", dir);
    snprintf(out, sizeof out, "%s/out.llm", dir);
    remove(out);
    check(llm_convert(seed, out, NULL, err, sizeof err) == LLM_OK, "the seed model converts (%s)", err);
    if (!(data = read_all(seed, &n))) return 1;
    for (at = 0; at < n; at += n / 64 + 1) {
        remove(out);
        if (!(f = fopen(cut, "wb")) || fwrite(data, 1, at, f) != at || fclose(f) != 0) { check(0, "cannot write %s", cut); break; }
        err[0] = 0;
        cuts++;
        if (llm_convert(cut, out, NULL, err, sizeof err) == LLM_OK || !err[0] || (f = fopen(out, "rb")) != NULL) {
            if (f) fclose(f);
            bad++;
            printf("  cut at %lu: %s\n", (unsigned long)at, err[0] ? err : "accepted");
        }
    }
    check(bad == 0, "each of %d cuts of it is refused by llm_convert with a message, leaving no file", cuts);
    free(data);
    convert_refuses(dir, "an unknown pre-tokenizer", "made-up-pre", LLM__GT_Q3_K, "qwen2", NULL, "'made-up-pre'");
    convert_refuses(dir, "an unknown architecture", "qwen2", LLM__GT_Q3_K, "made-up-arch", NULL, "'made-up-arch'");
    convert_refuses(dir, "a type without a reader", "qwen2", 21, "qwen2", NULL, "IQ3_S");
    convert_refuses(dir, "an unknown rope scaling", "qwen2", LLM__GT_Q3_K, "qwen2", "dynamic", "rope scaling 'dynamic'");
    convert_refuses(dir, "YaRN with another extrapolation factor", "qwen2", LLM__GT_Q3_K, "qwen2", "yarn", "yarn_ext_factor 0.5");
    convert_refuses(dir, "longrope without its factor tensors", "qwen2", LLM__GT_Q3_K, "qwen2", "longrope", "without rope_factors_long.weight");
    write_seeds(dir);
    return 0;
}

/* The re-encodings of the import (Q5_0 and IQ4_NL as Q8_0, Q3_K as Q6_K) give every value
   bit for bit: random blocks (every code, scale and high bit; d a random finite f16),
   dequantized as ggml does from both types. The re-encoding reads codes with the
   dequantizers' own unpacking, so this checks the packing into the other type;
   test_gguf_llamacpp.sh checks the unpacking against llama.cpp's values. */
static void recodes(void) {
    static const uint32_t from[3] = { LLM__GT_Q5_0, LLM__GT_IQ4_NL, LLM__GT_Q3_K }, to[3] = { LLM__GT_Q8_0, LLM__GT_Q8_0, LLM__GT_Q6_K };
    static uint8_t src[64 * 110], dst[64 * 210];
    static float a[64 * 256], b[64 * 256];
    uint32_t rng = 12345u;
    int k, round, bad;
    for (k = 0; k < 3; k++) {
        const llm__gguf_type *f = llm__gguf_type_of(from[k]), *t = llm__gguf_type_of(to[k]);
        size_t i, n_blocks = 64, n = n_blocks * f->blck, d_at = from[k] == LLM__GT_Q3_K ? 108 : 0;
        for (round = bad = 0; round < 50; round++) {
            for (i = 0; i < n_blocks * f->size; i++) { rng = rng * 1664525u + 1013904223u; src[i] = (uint8_t)(rng >> 24); }
            for (i = 0; i < n_blocks; i++) src[i * f->size + d_at + 1] &= 0x7B; /* exponent below 31: finite, positive */
            llm__gguf_recode(from[k], src, n_blocks, dst);
            llm__gguf_dequantize(from[k], src, n, a);
            llm__gguf_dequantize(to[k], dst, n, b);
            bad += memcmp(a, b, n * sizeof(float)) != 0;
        }
        CHECK(bad == 0, "%s re-encoded as %s: %d of 50 rounds of 64 blocks give other values", f->name, t->name, bad);
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--seeds")) return write_seeds(argv[2]);
    if (argc == 3) return against_reference(argv[1], argv[2]);
    if (argc == 4) return read_back(argv[1], argv[2], argv[3]);
    if (argc != 1) { fprintf(stderr, "usage: test_gguf [FILE.gguf TENSORS.json [CONVERTED.llm]]\n"); return 2; }
    hostile();
    convert_cuts();
    recodes();
    return check_summary("test_gguf: every hostile header and every cut model refused with a message; unknown names refused by name");
}
