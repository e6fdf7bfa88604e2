/* llm_gguf.h - GGUF files (llama.cpp's format) into the converter: a reader, exact
   dequantizers of ggml's block types, and the mapping of a GGUF model onto llm.h's file.

   Included by tools/llm_convert.h's implementation (it uses that file's llm__cv_ helpers):
   llm_convert(path, ...) with a path to a GGUF file comes here. Written from ggml's
   docs/gguf.md and the block layouts of gguf-py (gguf/quants.py); the dequantized values
   are bit for bit ggml's (dequantize_row_* in ggml-quants.c).

   The file is untrusted: every count, length, dimension and offset is checked against the
   bytes that are there before it is used, and anything wrong is an error with a message. */
#ifndef LLM_GGUF_H
#define LLM_GGUF_H

/* ---- gguf: reader --------------------------------------------------------------------- */
enum {
    LLM__GGUF_U8 = 0, LLM__GGUF_I8 = 1, LLM__GGUF_U16 = 2, LLM__GGUF_I16 = 3, LLM__GGUF_U32 = 4,
    LLM__GGUF_I32 = 5, LLM__GGUF_F32 = 6, LLM__GGUF_BOOL = 7, LLM__GGUF_STRING = 8,
    LLM__GGUF_ARRAY = 9, LLM__GGUF_U64 = 10, LLM__GGUF_I64 = 11, LLM__GGUF_F64 = 12
};
#define LLM__GGUF_MAX_DEPTH 8        /* arrays of arrays: deeper is refused */
#define LLM__GGUF_MAX_NAME 256       /* tensor names (ggml's limit is 64) */
#define LLM__GGUF_NEED_MORE (-2)     /* the parse ran past the bytes read so far */

/* ggml tensor types: id, name, weights per block, bytes per block. A block size of 0 marks a
   type this reader knows by name only and refuses. */
typedef struct llm__gguf_type {
    uint32_t id;
    const char *name;
    uint32_t blck, size;
} llm__gguf_type;

static const llm__gguf_type llm__gguf_types[] = {
    { 0, "F32", 1, 4 },      { 1, "F16", 1, 2 },       { 2, "Q4_0", 32, 18 },    { 3, "Q4_1", 32, 20 },
    { 6, "Q5_0", 32, 22 },   { 7, "Q5_1", 32, 24 },    { 8, "Q8_0", 32, 34 },    { 9, "Q8_1", 0, 0 },
    { 10, "Q2_K", 256, 84 }, { 11, "Q3_K", 256, 110 }, { 12, "Q4_K", 256, 144 }, { 13, "Q5_K", 256, 176 },
    { 14, "Q6_K", 256, 210 }, { 15, "Q8_K", 0, 0 },    { 16, "IQ2_XXS", 0, 0 },  { 17, "IQ2_XS", 0, 0 },
    { 18, "IQ3_XXS", 0, 0 }, { 19, "IQ1_S", 0, 0 },    { 20, "IQ4_NL", 32, 18 }, { 21, "IQ3_S", 0, 0 },
    { 22, "IQ2_S", 0, 0 },   { 23, "IQ4_XS", 256, 136 }, { 24, "I8", 0, 0 },     { 25, "I16", 0, 0 },
    { 26, "I32", 0, 0 },     { 27, "I64", 0, 0 },      { 28, "F64", 0, 0 },      { 29, "IQ1_M", 0, 0 },
    { 30, "BF16", 1, 2 },    { 34, "TQ1_0", 0, 0 },    { 35, "TQ2_0", 0, 0 },    { 39, "MXFP4", 0, 0 },
};
enum { LLM__GT_F32 = 0, LLM__GT_F16 = 1, LLM__GT_Q4_0 = 2, LLM__GT_Q4_1 = 3, LLM__GT_Q5_0 = 6, LLM__GT_Q5_1 = 7,
       LLM__GT_Q8_0 = 8, LLM__GT_Q2_K = 10, LLM__GT_Q3_K = 11, LLM__GT_Q4_K = 12, LLM__GT_Q5_K = 13,
       LLM__GT_Q6_K = 14, LLM__GT_IQ4_NL = 20, LLM__GT_IQ4_XS = 23, LLM__GT_BF16 = 30 };

static const llm__gguf_type *llm__gguf_type_of(uint32_t id) {
    size_t i;
    for (i = 0; i < sizeof llm__gguf_types / sizeof llm__gguf_types[0]; i++)
        if (llm__gguf_types[i].id == id) return &llm__gguf_types[i];
    return NULL;
}

static const char *llm__gguf_type_name(uint32_t id) {
    const llm__gguf_type *t = llm__gguf_type_of(id);
    return t ? t->name : "?";
}

/* A metadata entry: offsets into the bytes read (they move when the buffer grows). */
typedef struct llm__gguf_kv {
    size_t key, key_len;
    uint32_t type;            /* LLM__GGUF_* */
    uint32_t elem;            /* arrays: the element type */
    uint64_t n;               /* arrays: the element count */
    size_t val;               /* the value, or an array's first element */
} llm__gguf_kv;

typedef struct llm__gguf_tensor {
    size_t name, name_len;
    int n_dims;
    uint64_t ne[4];           /* ggml order: ne[0] is the row length */
    uint32_t type;
    uint64_t offset;          /* relative to data_offset */
    uint64_t size, n_elem;
} llm__gguf_tensor;

typedef struct llm__gguf {
    const uint8_t *buf;       /* the file's first n bytes (the whole file for a memory parse) */
    size_t n;
    uint64_t fsize;
    uint32_t version;
    uint64_t n_kv, n_tensors, alignment, data_offset;
    llm__gguf_kv *kv;
    llm__gguf_tensor *t;
    char msg[512];
} llm__gguf;

static int llm__gguf_fail(llm__gguf *g, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof g->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* n bytes at *pos: inside the file, and inside the bytes read (else "read more"). */
static int llm__gguf_need(llm__gguf *g, size_t pos, uint64_t n, const char *what) {
    if (n > g->fsize || pos > g->fsize - n)
        return llm__gguf_fail(g, "%s at offset %llu: %llu bytes run past the end of the file (%llu bytes)", what,
                              (unsigned long long)pos, (unsigned long long)n, (unsigned long long)g->fsize);
    if (pos + n > g->n) return LLM__GGUF_NEED_MORE;
    return 0;
}

static uint64_t llm__gguf_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    int i;
    for (i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static int llm__gguf_u32(llm__gguf *g, size_t *pos, uint32_t *v, const char *what) {
    int r = llm__gguf_need(g, *pos, 4, what);
    if (r) return r;
    *v = (uint32_t)llm__gguf_le(g->buf + *pos, 4);
    *pos += 4;
    return 0;
}

static int llm__gguf_u64(llm__gguf *g, size_t *pos, uint64_t *v, const char *what) {
    int r = llm__gguf_need(g, *pos, 8, what);
    if (r) return r;
    *v = llm__gguf_le(g->buf + *pos, 8);
    *pos += 8;
    return 0;
}

/* A string: u64 length, then the bytes; the length is checked against the file first, so a
   huge one is an error, never an allocation. */
static int llm__gguf_string(llm__gguf *g, size_t *pos, size_t *at, size_t *len, const char *what) {
    uint64_t n;
    int r = llm__gguf_u64(g, pos, &n, what);
    if (r || (r = llm__gguf_need(g, *pos, n, what))) return r;
    *at = *pos;
    *len = (size_t)n;
    *pos += (size_t)n;
    return 0;
}

static uint64_t llm__gguf_scalar_size(uint32_t type) {
    switch (type) {
    case LLM__GGUF_U8: case LLM__GGUF_I8: case LLM__GGUF_BOOL: return 1;
    case LLM__GGUF_U16: case LLM__GGUF_I16: return 2;
    case LLM__GGUF_U32: case LLM__GGUF_I32: case LLM__GGUF_F32: return 4;
    case LLM__GGUF_U64: case LLM__GGUF_I64: case LLM__GGUF_F64: return 8;
    default: return 0;
    }
}

/* Skips one value of the given type (arrays recursively, at most LLM__GGUF_MAX_DEPTH deep). */
static int llm__gguf_skip_value(llm__gguf *g, size_t *pos, uint32_t type, int depth) {
    uint64_t sz = llm__gguf_scalar_size(type), n, i;
    uint32_t elem;
    size_t at, len;
    int r;
    if (sz) { if ((r = llm__gguf_need(g, *pos, sz, "a value"))) return r; *pos += (size_t)sz; return 0; }
    if (type == LLM__GGUF_STRING) return llm__gguf_string(g, pos, &at, &len, "a string");
    if (type != LLM__GGUF_ARRAY) return llm__gguf_fail(g, "value type %u at offset %llu is not a GGUF type", type, (unsigned long long)*pos);
    if (depth >= LLM__GGUF_MAX_DEPTH) return llm__gguf_fail(g, "arrays nested more than %d deep at offset %llu", LLM__GGUF_MAX_DEPTH, (unsigned long long)*pos);
    if ((r = llm__gguf_u32(g, pos, &elem, "an array's type")) || (r = llm__gguf_u64(g, pos, &n, "an array's count"))) return r;
    if ((sz = llm__gguf_scalar_size(elem)) != 0) {
        if (n > g->fsize / sz) return llm__gguf_fail(g, "an array of %llu elements at offset %llu is larger than the file", (unsigned long long)n, (unsigned long long)*pos);
        if ((r = llm__gguf_need(g, *pos, n * sz, "an array"))) return r;
        *pos += (size_t)(n * sz);
        return 0;
    }
    /* every string or array element takes at least 8 bytes: a count beyond that is a lie */
    if (n > (g->fsize - *pos) / 8) return llm__gguf_fail(g, "an array of %llu elements at offset %llu is larger than the file", (unsigned long long)n, (unsigned long long)*pos);
    for (i = 0; i < n; i++)
        if ((r = llm__gguf_skip_value(g, pos, elem, depth + 1))) return r;
    return 0;
}

static int llm__gguf_read_kv(llm__gguf *g, size_t *pos, llm__gguf_kv *kv) {
    int r;
    memset(kv, 0, sizeof *kv);
    if ((r = llm__gguf_string(g, pos, &kv->key, &kv->key_len, "a metadata key")) || (r = llm__gguf_u32(g, pos, &kv->type, "a metadata type"))) return r;
    if (kv->type == LLM__GGUF_ARRAY) {
        size_t p = *pos + 12;
        if ((r = llm__gguf_need(g, *pos, 12, "an array header"))) return r;
        kv->elem = (uint32_t)llm__gguf_le(g->buf + *pos, 4);
        kv->n = llm__gguf_le(g->buf + *pos + 4, 8);
        kv->val = p;
    } else {
        kv->val = *pos;
    }
    return llm__gguf_skip_value(g, pos, kv->type, 0);
}

/* A tensor info: name, dimensions, type, offset; the size is checked for overflow. */
static int llm__gguf_read_tensor_info(llm__gguf *g, size_t *pos, llm__gguf_tensor *t) {
    uint32_t nd;
    const llm__gguf_type *ty;
    uint64_t n = 1, rows;
    int r, d;
    memset(t, 0, sizeof *t);
    if ((r = llm__gguf_string(g, pos, &t->name, &t->name_len, "a tensor name")) || (r = llm__gguf_u32(g, pos, &nd, "a tensor's dimensions"))) return r;
    if (t->name_len == 0 || t->name_len > LLM__GGUF_MAX_NAME) return llm__gguf_fail(g, "a tensor name of %llu bytes at offset %llu", (unsigned long long)t->name_len, (unsigned long long)t->name);
    if (nd < 1 || nd > 4) return llm__gguf_fail(g, "tensor '%.*s' has %u dimensions (1 to 4 allowed)", (int)t->name_len, (const char *)g->buf + t->name, nd);
    t->n_dims = (int)nd;
    for (d = 0; d < t->n_dims; d++) {
        if ((r = llm__gguf_u64(g, pos, &t->ne[d], "a tensor dimension"))) return r;
        if (t->ne[d] < 1 || t->ne[d] > ((uint64_t)1 << 53) / n)
            return llm__gguf_fail(g, "tensor '%.*s' has a bad dimension %llu", (int)t->name_len, (const char *)g->buf + t->name, (unsigned long long)t->ne[d]);
        n *= t->ne[d];
    }
    t->n_elem = n;
    if ((r = llm__gguf_u32(g, pos, &t->type, "a tensor type")) || (r = llm__gguf_u64(g, pos, &t->offset, "a tensor offset"))) return r;
    if (!(ty = llm__gguf_type_of(t->type))) return llm__gguf_fail(g, "tensor '%.*s' has type id %u, which is no ggml type", (int)t->name_len, (const char *)g->buf + t->name, t->type);
    if (!ty->blck) return llm__gguf_fail(g, "tensor '%.*s' has type %s, which this converter cannot read", (int)t->name_len, (const char *)g->buf + t->name, ty->name);
    if (t->ne[0] % ty->blck) return llm__gguf_fail(g, "tensor '%.*s' (%s) has rows of %llu, not a multiple of %u", (int)t->name_len, (const char *)g->buf + t->name, ty->name, (unsigned long long)t->ne[0], ty->blck);
    rows = n / t->ne[0];
    t->size = t->ne[0] / ty->blck * ty->size * rows; /* at most 2^53 * 34 / 32 */
    if (t->offset % g->alignment) return llm__gguf_fail(g, "tensor '%.*s' offset %llu is not a multiple of the alignment %llu", (int)t->name_len, (const char *)g->buf + t->name, (unsigned long long)t->offset, (unsigned long long)g->alignment);
    return 0;
}

static const llm__gguf_kv *llm__gguf_find(const llm__gguf *g, const char *key) {
    size_t n = strlen(key);
    uint64_t i;
    for (i = 0; i < g->n_kv; i++)
        if (g->kv[i].key_len == n && memcmp(g->buf + g->kv[i].key, key, n) == 0) return &g->kv[i];
    return NULL;
}

/* general.alignment: a power of two (ggml's rule), else 32. */
static int llm__gguf_read_alignment(llm__gguf *g) {
    const llm__gguf_kv *a = llm__gguf_find(g, "general.alignment");
    g->alignment = 32;
    if (!a) return 0;
    if (a->type != LLM__GGUF_U32) return llm__gguf_fail(g, "general.alignment is not a u32");
    g->alignment = llm__gguf_le(g->buf + a->val, 4);
    if (g->alignment == 0 || (g->alignment & (g->alignment - 1)) || g->alignment > (1u << 24))
        return llm__gguf_fail(g, "general.alignment %llu is not a power of two", (unsigned long long)g->alignment);
    return 0;
}

static int llm__gguf_cmp_offset(const void *a, const void *b) {
    const llm__gguf_tensor *x = *(const llm__gguf_tensor *const *)a, *y = *(const llm__gguf_tensor *const *)b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Every tensor inside the data section, none overlapping another, no name twice. */
static int llm__gguf_check_tensors(llm__gguf *g) {
    const llm__gguf_tensor **s;
    uint64_t i, j, room = g->fsize - g->data_offset;
    int rc = 0;
    for (i = 0; i < g->n_tensors; i++) {
        const llm__gguf_tensor *t = &g->t[i];
        if (t->offset > room || t->size > room - t->offset)
            return llm__gguf_fail(g, "tensor '%.*s' (%llu bytes at data offset %llu) runs past the end of the file", (int)t->name_len,
                                  (const char *)g->buf + t->name, (unsigned long long)t->size, (unsigned long long)t->offset);
    }
    if (!(s = (const llm__gguf_tensor **)malloc((size_t)(g->n_tensors ? g->n_tensors : 1) * sizeof *s))) return llm__gguf_fail(g, "out of memory");
    for (i = 0; i < g->n_tensors; i++) s[i] = &g->t[i];
    qsort(s, (size_t)g->n_tensors, sizeof *s, llm__gguf_cmp_offset);
    for (i = 1; i < g->n_tensors && !rc; i++)
        if (s[i]->offset < s[i - 1]->offset + s[i - 1]->size)
            rc = llm__gguf_fail(g, "tensors '%.*s' and '%.*s' overlap", (int)s[i - 1]->name_len, (const char *)g->buf + s[i - 1]->name,
                                (int)s[i]->name_len, (const char *)g->buf + s[i]->name);
    free(s);
    /* quadratic, but over names of the few hundred tensors a model has */
    for (i = 0; i < g->n_tensors && !rc; i++)
        for (j = 0; j < i && !rc; j++)
            if (g->t[i].name_len == g->t[j].name_len && !memcmp(g->buf + g->t[i].name, g->buf + g->t[j].name, g->t[i].name_len))
                rc = llm__gguf_fail(g, "tensor '%.*s' appears twice", (int)g->t[i].name_len, (const char *)g->buf + g->t[i].name);
    return rc;
}

static void llm__gguf_free(llm__gguf *g) {
    free(g->kv);
    free(g->t);
    g->kv = NULL;
    g->t = NULL;
}

/* Parses the n bytes at buf, the start of a file of fsize bytes. 0: parsed; -1: an error in
   g->msg; LLM__GGUF_NEED_MORE: the header goes on past n (call again with more). */
static int llm__gguf_parse(llm__gguf *g, const uint8_t *buf, size_t n, uint64_t fsize) {
    size_t pos = 0;
    uint64_t i;
    int r;
    llm__gguf_free(g);
    memset(g, 0, sizeof *g);
    g->buf = buf;
    g->n = n;
    g->fsize = fsize;
    if ((r = llm__gguf_need(g, 0, 24, "the header"))) return r;
    if (memcmp(buf, "GGUF", 4) != 0) return llm__gguf_fail(g, "not a GGUF file (no GGUF magic)");
    g->version = (uint32_t)llm__gguf_le(buf + 4, 4);
    if (g->version == 1) return llm__gguf_fail(g, "GGUF version 1 is not supported (only 2 and 3)");
    if (g->version != 2 && g->version != 3)
        return llm__gguf_fail(g, "GGUF version %u is not supported (only 2 and 3; a big-endian file shows a large number)", g->version);
    g->n_tensors = llm__gguf_le(buf + 8, 8);
    g->n_kv = llm__gguf_le(buf + 16, 8);
    pos = 24;
    /* a metadata entry takes at least 12 bytes, a tensor info at least 29 */
    if (g->n_kv > fsize / 12 || g->n_tensors > fsize / 29 || g->n_tensors > 65536)
        return llm__gguf_fail(g, "counts of %llu metadata entries and %llu tensors do not fit the file", (unsigned long long)g->n_kv, (unsigned long long)g->n_tensors);
    g->kv = (llm__gguf_kv *)calloc((size_t)(g->n_kv ? g->n_kv : 1), sizeof *g->kv);
    g->t = (llm__gguf_tensor *)calloc((size_t)(g->n_tensors ? g->n_tensors : 1), sizeof *g->t);
    if (!g->kv || !g->t) return llm__gguf_fail(g, "out of memory for the metadata");
    for (i = 0; i < g->n_kv; i++)
        if ((r = llm__gguf_read_kv(g, &pos, &g->kv[i]))) return r;
    if ((r = llm__gguf_read_alignment(g))) return r;
    for (i = 0; i < g->n_tensors; i++)
        if ((r = llm__gguf_read_tensor_info(g, &pos, &g->t[i]))) return r;
    g->data_offset = (pos + g->alignment - 1) / g->alignment * g->alignment;
    /* a file without tensors may end right after its metadata (gguf-py pads only before data) */
    if (g->data_offset > fsize && g->n_tensors) return llm__gguf_fail(g, "the tensor data would start at %llu, past the end of the file", (unsigned long long)g->data_offset);
    return llm__gguf_check_tensors(g);
}

/* ---- gguf: metadata values ------------------------------------------------------------ */
/* An integer value of any integer type (or bool), when it is >= 0. */
static int llm__gguf_kv_uint(const llm__gguf *g, const llm__gguf_kv *kv, uint64_t *v) {
    const uint8_t *p = g->buf + kv->val;
    switch (kv->type) {
    case LLM__GGUF_U8: case LLM__GGUF_BOOL: *v = p[0]; return 0;
    case LLM__GGUF_U16: *v = llm__gguf_le(p, 2); return 0;
    case LLM__GGUF_U32: *v = llm__gguf_le(p, 4); return 0;
    case LLM__GGUF_U64: *v = llm__gguf_le(p, 8); return 0;
    case LLM__GGUF_I8: if ((int8_t)p[0] < 0) return -1; *v = p[0]; return 0;
    case LLM__GGUF_I16: if ((int16_t)llm__gguf_le(p, 2) < 0) return -1; *v = llm__gguf_le(p, 2); return 0;
    case LLM__GGUF_I32: if ((int32_t)(uint32_t)llm__gguf_le(p, 4) < 0) return -1; *v = llm__gguf_le(p, 4); return 0;
    case LLM__GGUF_I64: if ((int64_t)llm__gguf_le(p, 8) < 0) return -1; *v = llm__gguf_le(p, 8); return 0;
    default: return -1;
    }
}

static float llm__gguf_f32_at(const uint8_t *p) {
    uint32_t u = (uint32_t)llm__gguf_le(p, 4);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static int llm__gguf_kv_float(const llm__gguf *g, const llm__gguf_kv *kv, double *v) {
    uint64_t u;
    if (kv->type == LLM__GGUF_F32) { *v = llm__gguf_f32_at(g->buf + kv->val); return 0; }
    if (kv->type == LLM__GGUF_F64) { u = llm__gguf_le(g->buf + kv->val, 8); memcpy(v, &u, 8); return 0; }
    if (llm__gguf_kv_uint(g, kv, &u) == 0) { *v = (double)u; return 0; }
    return -1;
}

/* The string at a string value or string array element: u64 length, bytes (parse-checked). */
static const char *llm__gguf_str_at(const llm__gguf *g, size_t *pos, size_t *len) {
    const char *s = (const char *)g->buf + *pos + 8;
    *len = (size_t)llm__gguf_le(g->buf + *pos, 8);
    *pos += 8 + *len;
    return s;
}

/* ---- gguf: dequantization ------------------------------------------------------------- */
/* ggml's dequantizers compute a * b and then subtract or add c, each rounded to float: a
   compiler allowed to contract that into one fused multiply-add (GCC does outside strict ISO
   modes) would round once and give other bits, so the product is forced to memory. */
static float llm__gguf_mul_sub(float a, float b, float c) {
    volatile float p = a * b;
    return p - c;
}

static float llm__gguf_mul_add(float a, float b, float c) {
    volatile float p = a * b;
    return p + c;
}

static float llm__gguf_half(const uint8_t *p) { return llm_f16_to_f32((uint16_t)(p[0] | p[1] << 8)); }

static const int8_t llm__gguf_iq4nl[16] = { -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113 };

/* Q4_0: d; 16 bytes; weight j is the low nibble of byte j, weight j + 16 the high one. */
static void llm__gguf_deq_q4_0(const uint8_t *b, float *y) {
    float d = llm__gguf_half(b);
    int j;
    for (j = 0; j < 16; j++) {
        y[j] = (float)((b[2 + j] & 15) - 8) * d;
        y[j + 16] = (float)((b[2 + j] >> 4) - 8) * d;
    }
}

static void llm__gguf_deq_q4_1(const uint8_t *b, float *y) {
    float d = llm__gguf_half(b), m = llm__gguf_half(b + 2);
    int j;
    for (j = 0; j < 16; j++) {
        y[j] = llm__gguf_mul_add((float)(b[4 + j] & 15), d, m);
        y[j + 16] = llm__gguf_mul_add((float)(b[4 + j] >> 4), d, m);
    }
}

/* Q5_0 / Q5_1: the fifth bits of the 32 weights in a u32 (bit j for weight j); x gets the
   32 codes (0 to 31) in weight order. */
static void llm__gguf_q5_codes(const uint8_t *b, int has_min, int *x) {
    const uint8_t *qh = b + (has_min ? 4 : 2), *qs = qh + 4;
    uint32_t h = (uint32_t)llm__gguf_le(qh, 4);
    int j;
    for (j = 0; j < 16; j++) {
        x[j] = (qs[j] & 15) | (int)((h >> j) & 1) << 4;
        x[j + 16] = (qs[j] >> 4) | (int)((h >> (j + 16)) & 1) << 4;
    }
}

static void llm__gguf_deq_q5(const uint8_t *b, float *y, int has_min) {
    float d = llm__gguf_half(b), m = has_min ? llm__gguf_half(b + 2) : 0.0f;
    int x[32], j;
    llm__gguf_q5_codes(b, has_min, x);
    for (j = 0; j < 32; j++) y[j] = has_min ? llm__gguf_mul_add((float)x[j], d, m) : (float)(x[j] - 16) * d;
}

static void llm__gguf_deq_q8_0(const uint8_t *b, float *y) {
    float d = llm__gguf_half(b);
    int j;
    for (j = 0; j < 32; j++) y[j] = (float)(int8_t)b[2 + j] * d;
}

static void llm__gguf_deq_iq4_nl(const uint8_t *b, float *y) {
    float d = llm__gguf_half(b);
    int j;
    for (j = 0; j < 16; j++) {
        y[j] = d * (float)llm__gguf_iq4nl[b[2 + j] & 15];
        y[j + 16] = d * (float)llm__gguf_iq4nl[b[2 + j] >> 4];
    }
}

/* Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin. */
static void llm__gguf_deq_q2_k(const uint8_t *b, float *y) {
    const uint8_t *sc = b, *q = b + 16;
    float d = llm__gguf_half(b + 80), dmin = llm__gguf_half(b + 82);
    int n, j, l, is = 0;
    for (n = 0; n < 256; n += 128, q += 32)
        for (j = 0; j < 4; j++) {
            int shift = 2 * j, half;
            for (half = 0; half < 2; half++, is++) {
                float dl = d * (float)(sc[is] & 15), ml = dmin * (float)(sc[is] >> 4);
                for (l = 0; l < 16; l++) *y++ = llm__gguf_mul_sub(dl, (float)((q[l + 16 * half] >> shift) & 3), ml);
            }
        }
}

/* Q3_K: hmask[32], qs[64], 12 bytes of sixteen 6-bit scales, d. */
static void llm__gguf_q3_k_scales(const uint8_t *s, int sc[16]) {
    int i;
    for (i = 0; i < 16; i++) {
        int low = i < 8 ? s[i] & 15 : s[i - 8] >> 4;
        int high = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
        sc[i] = (low | high << 4) - 32;
    }
}

/* The 256 codes of a Q3_K block (-4 to 3) in weight order: 2 bits from qs, minus 4 where
   the weight's bit of hmask is clear. */
static void llm__gguf_q3_k_codes(const uint8_t *b, int *v) {
    const uint8_t *hm = b, *q = b + 32;
    int half, shift, j, e = 0, m = 1;
    for (half = 0; half < 2; half++, q += 32)
        for (shift = 0; shift < 8; shift += 2, m <<= 1)
            for (j = 0; j < 32; j++) v[e++] = ((q[j] >> shift) & 3) - ((hm[j] & m) ? 0 : 4);
}

static void llm__gguf_deq_q3_k(const uint8_t *b, float *y) {
    float d = llm__gguf_half(b + 108);
    int sc[16], v[256], e;
    llm__gguf_q3_k_scales(b + 96, sc);
    llm__gguf_q3_k_codes(b, v);
    for (e = 0; e < 256; e++) y[e] = d * (float)sc[e / 16] * (float)v[e];
}

/* Q4_K / Q5_K: eight 6-bit scales and mins packed in 12 bytes (ggml's get_scale_min_k4). */
static void llm__gguf_scale_min_k4(int j, const uint8_t *q, int *d, int *m) {
    if (j < 4) { *d = q[j] & 63; *m = q[j + 4] & 63; }
    else { *d = (q[j + 4] & 15) | (q[j - 4] >> 6) << 4; *m = (q[j + 4] >> 4) | (q[j] >> 6) << 4; }
}

/* Q4_K: d, dmin, scales[12], qs[128]; Q5_K adds qh[32] before qs. */
static void llm__gguf_deq_q45_k(const uint8_t *b, float *y, int five) {
    float d = llm__gguf_half(b), dmin = llm__gguf_half(b + 2);
    const uint8_t *scales = b + 4, *qh = b + 16, *q = b + (five ? 48 : 16);
    int j, l, is = 0, sc, mn, u = 1;
    for (j = 0; j < 256; j += 64, q += 32, is += 2, u <<= 2) {
        float d1, m1, d2, m2;
        llm__gguf_scale_min_k4(is, scales, &sc, &mn);
        d1 = d * (float)sc; m1 = dmin * (float)mn;
        llm__gguf_scale_min_k4(is + 1, scales, &sc, &mn);
        d2 = d * (float)sc; m2 = dmin * (float)mn;
        for (l = 0; l < 32; l++) *y++ = llm__gguf_mul_sub(d1, (float)((q[l] & 15) + (five && (qh[l] & u) ? 16 : 0)), m1);
        for (l = 0; l < 32; l++) *y++ = llm__gguf_mul_sub(d2, (float)((q[l] >> 4) + (five && (qh[l] & (u << 1)) ? 16 : 0)), m2);
    }
}

/* Q6_K: ql[128], qh[64], scales int8[16], d. */
static void llm__gguf_deq_q6_k(const uint8_t *b, float *y) {
    const uint8_t *ql = b, *qh = b + 128;
    const int8_t *sc = (const int8_t *)(b + 192);
    float d = llm__gguf_half(b + 208);
    int n, l;
    for (n = 0; n < 256; n += 128, y += 128, ql += 64, qh += 32, sc += 8)
        for (l = 0; l < 32; l++) {
            int is = l / 16;
            int q1 = ((ql[l] & 15) | ((qh[l] >> 0) & 3) << 4) - 32, q2 = ((ql[l + 32] & 15) | ((qh[l] >> 2) & 3) << 4) - 32;
            int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32, q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
            y[l] = d * (float)sc[is] * (float)q1;
            y[l + 32] = d * (float)sc[is + 2] * (float)q2;
            y[l + 64] = d * (float)sc[is + 4] * (float)q3;
            y[l + 96] = d * (float)sc[is + 6] * (float)q4;
        }
}

/* IQ4_XS: d, scales_h (u16), scales_l[4], qs[128]: eight 6-bit sub-block scales. */
static void llm__gguf_deq_iq4_xs(const uint8_t *b, float *y) {
    float d = llm__gguf_half(b);
    unsigned sh = (unsigned)(b[2] | b[3] << 8);
    const uint8_t *sl = b + 4, *qs = b + 8;
    int ib, j;
    for (ib = 0; ib < 8; ib++, y += 32, qs += 16) {
        int ls = ((sl[ib / 2] >> (4 * (ib % 2))) & 15) | ((sh >> (2 * ib)) & 3) << 4;
        float dl = d * (float)(ls - 32);
        for (j = 0; j < 16; j++) {
            y[j] = dl * (float)llm__gguf_iq4nl[qs[j] & 15];
            y[j + 16] = dl * (float)llm__gguf_iq4nl[qs[j] >> 4];
        }
    }
}

/* One block (ggml_type_of(type)->blck weights) of a readable type into y. */
static void llm__gguf_deq_block(uint32_t type, const uint8_t *b, float *y) {
    switch (type) {
    case LLM__GT_F32: y[0] = llm__gguf_f32_at(b); break;
    case LLM__GT_F16: y[0] = llm__gguf_half(b); break;
    case LLM__GT_BF16: y[0] = llm_bf16_to_f32((uint16_t)(b[0] | b[1] << 8)); break;
    case LLM__GT_Q4_0: llm__gguf_deq_q4_0(b, y); break;
    case LLM__GT_Q4_1: llm__gguf_deq_q4_1(b, y); break;
    case LLM__GT_Q5_0: llm__gguf_deq_q5(b, y, 0); break;
    case LLM__GT_Q5_1: llm__gguf_deq_q5(b, y, 1); break;
    case LLM__GT_Q8_0: llm__gguf_deq_q8_0(b, y); break;
    case LLM__GT_Q2_K: llm__gguf_deq_q2_k(b, y); break;
    case LLM__GT_Q3_K: llm__gguf_deq_q3_k(b, y); break;
    case LLM__GT_Q4_K: llm__gguf_deq_q45_k(b, y, 0); break;
    case LLM__GT_Q5_K: llm__gguf_deq_q45_k(b, y, 1); break;
    case LLM__GT_Q6_K: llm__gguf_deq_q6_k(b, y); break;
    case LLM__GT_IQ4_NL: llm__gguf_deq_iq4_nl(b, y); break;
    case LLM__GT_IQ4_XS: llm__gguf_deq_iq4_xs(b, y); break;
    default: memset(y, 0, llm__gguf_type_of(type)->blck * sizeof *y); break;
    }
}

/* n_elem weights of a tensor of the given type (raw bytes at src, as in the file) into y.
   -1 for a type without a dequantizer. */
static int llm__gguf_dequantize(uint32_t type, const uint8_t *src, uint64_t n_elem, float *y) {
    const llm__gguf_type *t = llm__gguf_type_of(type);
    uint64_t i;
    if (!t || !t->blck) return -1;
    for (i = 0; i < n_elem / t->blck; i++) llm__gguf_deq_block(type, src + i * t->size, y + i * t->blck);
    return 0;
}

#endif /* LLM_GGUF_H */

/* ---- gguf: into the converter ----------------------------------------------------------
   Needs llm_convert.h's implementation (llm__cv_*), which includes this file. */
#if defined(LLM_CONVERT_IMPLEMENTATION) && !defined(LLM_GGUF_CONVERT_DONE)
#define LLM_GGUF_CONVERT_DONE

/* The GGUF architectures llm.h runs: one row each, with the row of llm__cv_families it
   stands for and the config.json keys llama.cpp does not store but fixes for the
   architecture (its llama-model.cpp). permute_qk: llama.cpp's converter reorders the rows of
   Q and K of these for its interleaved RoPE (LlamaModel.permute, for the architectures whose
   llama_rope_type is NORM); the import puts HF's order back. */
typedef struct llm__gguf_arch {
    const char *name;
    const char *model_type;
    int permute_qk;
    const char *fixed; /* config.json members, "" for none */
    int gemma;         /* 1 + w norms stored as such, sqrtf(n_embd) embedding scale, attention scale */
    int fused_up;      /* ffn_up.weight is gate and up in one (Phi-3's gate_up_proj, gate first) */
} llm__gguf_arch;

static const llm__gguf_arch llm__gguf_archs[] = {
    { "llama", "llama", 1, "", 0, 0 },
    { "qwen2", "qwen2", 0, "", 0, 0 },
    { "qwen3", "qwen3", 0, "", 0, 0 },
    { "granite", "granite", 1, "", 0, 0 },
    { "smollm3", "smollm3", 1, ", \"no_rope_layer_interval\": 4", 0, 0 }, /* n_no_rope_layer_step = 4 */
    { "olmo2", "olmo2", 0, "", 0, 0 },
    /* Phi-3, Phi-3.5-mini, Phi-4-mini: Q, K and V in one attn_qkv, LongRoPE as the tensors
       rope_factors_long/short.weight (llm__gguf_rope_factors) */
    { "phi3", "phi3", 0, "", 0, 1 },
    /* build_moe_ffn's norm_w: true for qwen3moe, false for qwen2moe and olmoe */
    { "qwen3moe", "qwen3_moe", 0, ", \"norm_topk_prob\": true", 0, 0 },
    { "qwen2moe", "qwen2_moe", 0, ", \"norm_topk_prob\": false", 0, 0 },
    { "olmoe", "olmoe", 0, ", \"norm_topk_prob\": false", 0, 0 },
    /* Gemma: llama.cpp's defaults (soft-capping 50 and 30, a window of 4096 every other
       layer from layer 0) are those of Gemma2Config; Gemma 3 has a global layer every sixth
       and theta 10000 on the others, whatever the checkpoint said, and no attention
       soft-capping */
    { "gemma", "gemma", 0, "", 1, 0 }, /* Gemma 1: llama.cpp's GELU is the tanh one, GemmaConfig's default */
    { "gemma2", "gemma2", 0, "", 1, 0 },
    { "gemma3", "gemma3_text", 0, ", \"sliding_window_pattern\": 6, \"rope_local_base_freq\": 10000, \"attn_logit_softcapping\": null", 1, 0 },
};

/* GGUF tensor names (blk.N.X) and the HF names the converter writes. ffn_norm is the norm
   before the feed-forward: post_attention_layernorm of a pre-norm block. */
static const char *const llm__gguf_layer_names[][2] = {
    { "attn_norm.weight", "input_layernorm.weight" },      { "ffn_norm.weight", "post_attention_layernorm.weight" },
    { "attn_q.weight", "self_attn.q_proj.weight" },        { "attn_k.weight", "self_attn.k_proj.weight" },
    { "attn_v.weight", "self_attn.v_proj.weight" },        { "attn_output.weight", "self_attn.o_proj.weight" },
    { "attn_q.bias", "self_attn.q_proj.bias" },            { "attn_k.bias", "self_attn.k_proj.bias" },
    { "attn_v.bias", "self_attn.v_proj.bias" },            { "attn_output.bias", "self_attn.o_proj.bias" },
    { "attn_q_norm.weight", "self_attn.q_norm.weight" },   { "attn_k_norm.weight", "self_attn.k_norm.weight" },
    { "ffn_gate.weight", "mlp.gate_proj.weight" },         { "ffn_up.weight", "mlp.up_proj.weight" },
    { "ffn_down.weight", "mlp.down_proj.weight" },         { "attn_qkv.weight", "self_attn.qkv_proj.weight" },
    { "post_attention_norm.weight", "post_attention_layernorm.weight" },
    { "post_ffw_norm.weight", "post_feedforward_layernorm.weight" },
    { "ffn_gate_inp.weight", "mlp.gate.weight" },
    { "ffn_gate_shexp.weight", "mlp.shared_expert.gate_proj.weight" },
    { "ffn_up_shexp.weight", "mlp.shared_expert.up_proj.weight" },
    { "ffn_down_shexp.weight", "mlp.shared_expert.down_proj.weight" },
    { "ffn_gate_inp_shexp.weight", "mlp.shared_expert_gate.weight" },
    /* [n_expert, rows, cols]: one matrix per expert, "%d" its number */
    { "ffn_gate_exps.weight", "mlp.experts.%d.gate_proj.weight" },
    { "ffn_up_exps.weight", "mlp.experts.%d.up_proj.weight" },
    { "ffn_down_exps.weight", "mlp.experts.%d.down_proj.weight" },
};

/* One open GGUF: the parse, the file, the architecture. */
typedef struct llm__gguf_file {
    llm__gguf g;
    uint8_t *head;            /* the bytes g was parsed from */
    FILE *f;
    const char *path;
    const llm__gguf_arch *arch;
    char prefix[64];          /* "<arch>." for the hyper-parameter keys */
} llm__gguf_file;

static int llm__gguf_is_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char m[4];
    int yes;
    if (!f) return 0;
    yes = fread(m, 1, 4, f) == 4 && memcmp(m, "GGUF", 4) == 0;
    fclose(f);
    return yes;
}

/* Reads as much of the file's start as the header needs: the parse is tried on the first
   MB and retried on four times as much while it runs past the bytes read. */
static int llm__gguf_open(llm__cv *cv, llm__gguf_file *gf, const char *path) {
    size_t have = 0, want = (size_t)1 << 20;
    uint64_t fsize;
    off_t end;
    int r;
    memset(gf, 0, sizeof *gf);
    gf->path = path;
    if (!(gf->f = fopen(path, "rb"))) return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (fseeko(gf->f, 0, SEEK_END) != 0 || (end = ftello(gf->f)) < 0 || fseeko(gf->f, 0, SEEK_SET) != 0)
        return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    fsize = (uint64_t)end;
    for (;;) {
        uint8_t *grown;
        if (want > fsize) want = (size_t)fsize;
        if (!(grown = (uint8_t *)realloc(gf->head, want ? want : 1))) return llm__cv_oom(cv);
        gf->head = grown;
        if (fread(gf->head + have, 1, want - have, gf->f) != want - have) return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read %s", path);
        have = want;
        r = llm__gguf_parse(&gf->g, gf->head, have, fsize);
        if (r != LLM__GGUF_NEED_MORE) break;
        if (want > ((size_t)-1) / 4) return llm__cv_fail(cv, "%s: header too large", path);
        want *= 4;
    }
    if (r) return llm__cv_fail(cv, "%s: %s", path, gf->g.msg);
    return 0;
}

static void llm__gguf_close(llm__gguf_file *gf) {
    llm__gguf_free(&gf->g);
    free(gf->head);
    if (gf->f) fclose(gf->f);
}

static const llm__gguf_kv *llm__gguf_arch_kv(const llm__gguf_file *gf, const char *key) {
    char k[160];
    snprintf(k, sizeof k, "%s%s", gf->prefix, key);
    return llm__gguf_find(&gf->g, k);
}

/* A hyper-parameter: an unsigned integer in [0, 2^31) under "<arch>.key". */
static int llm__gguf_hp_int(llm__cv *cv, const llm__gguf_file *gf, const char *key, int required, int dflt, int *out) {
    const llm__gguf_kv *kv = llm__gguf_arch_kv(gf, key);
    uint64_t v;
    *out = dflt;
    if (!kv) return required ? llm__cv_fail(cv, "%s: no %s%s", gf->path, gf->prefix, key) : 0;
    if (llm__gguf_kv_uint(&gf->g, kv, &v) || v > 0x7FFFFFFF) return llm__cv_fail(cv, "%s: %s%s is not an integer in range", gf->path, gf->prefix, key);
    *out = (int)v;
    return 0;
}

static int llm__gguf_hp_num(llm__cv *cv, const llm__gguf_file *gf, const char *key, double dflt, double *out) {
    const llm__gguf_kv *kv = llm__gguf_arch_kv(gf, key);
    *out = dflt;
    if (kv && llm__gguf_kv_float(&gf->g, kv, out)) return llm__cv_fail(cv, "%s: %s%s is not a number", gf->path, gf->prefix, key);
    return 0;
}

/* A string value (not NUL-terminated): NULL when absent or not a string. */
static const char *llm__gguf_kv_str(const llm__gguf *g, const char *key, size_t *len) {
    const llm__gguf_kv *kv = llm__gguf_find(g, key);
    size_t pos;
    if (!kv || kv->type != LLM__GGUF_STRING) return NULL;
    pos = kv->val;
    return llm__gguf_str_at(g, &pos, len);
}

static int llm__gguf_read_arch(llm__cv *cv, llm__gguf_file *gf) {
    size_t n, i;
    const char *a = llm__gguf_kv_str(&gf->g, "general.architecture", &n);
    if (!a) return llm__cv_fail(cv, "%s: no general.architecture string", gf->path);
    for (i = 0; i < sizeof llm__gguf_archs / sizeof llm__gguf_archs[0]; i++)
        if (strlen(llm__gguf_archs[i].name) == n && !memcmp(llm__gguf_archs[i].name, a, n)) {
            gf->arch = &llm__gguf_archs[i];
            snprintf(gf->prefix, sizeof gf->prefix, "%s.", llm__gguf_archs[i].name);
            return 0;
        }
    return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: architecture '%.*s' is not supported (llama, qwen2, qwen3, granite, smollm3, olmo2, phi3, qwen3moe, qwen2moe, olmoe, gemma, gemma2, gemma3)",
                           gf->path, (int)(n > 64 ? 64 : n), a);
}

static const llm__gguf_tensor *llm__gguf_find_tensor(const llm__gguf *g, const char *name) {
    size_t n = strlen(name);
    uint64_t i;
    for (i = 0; i < g->n_tensors; i++)
        if (g->t[i].name_len == n && !memcmp(g->buf + g->t[i].name, name, n)) return &g->t[i];
    return NULL;
}

static int llm__gguf_token_id(const llm__gguf *g, const char *key, int *out) {
    const llm__gguf_kv *kv = llm__gguf_find(g, key);
    uint64_t v;
    *out = -1;
    if (kv && llm__gguf_kv_uint(g, kv, &v) == 0 && v < (1u << 24)) *out = (int)v;
    return *out;
}

/* The bos id, and the ids that end a turn: eos, and eot where it differs. */
static void llm__gguf_read_ids(const llm__gguf *g, llm__cv_hparams *h) {
    int eot;
    h->n_eos = 0;
    llm__gguf_token_id(g, "tokenizer.ggml.bos_token_id", &h->bos_id);
    if (llm__gguf_token_id(g, "tokenizer.ggml.eos_token_id", &h->eos[0]) >= 0) h->n_eos = 1;
    if (llm__gguf_token_id(g, "tokenizer.ggml.eot_token_id", &eot) >= 0 && (h->n_eos == 0 || eot != h->eos[0])) h->eos[h->n_eos++] = eot;
}

/* GGUF hyper-parameters ("<arch>.key", llama.cpp's names) and the config.json keys of the
   family they stand for: the GGUF is read as the config.json it was made from, through the
   same family description (llm__cv_hparams_from_json) and so with the same defaults. */
enum { LLM__GGUF_HP_INT = 0, LLM__GGUF_HP_NUM = 1, LLM__GGUF_HP_REQUIRED = 2 };
static const struct { const char *gguf, *json; int kind; const char *only; } llm__gguf_config_keys[] = {
    { "block_count", "num_hidden_layers", LLM__GGUF_HP_INT | LLM__GGUF_HP_REQUIRED, NULL },
    { "embedding_length", "hidden_size", LLM__GGUF_HP_INT | LLM__GGUF_HP_REQUIRED, NULL },
    { "feed_forward_length", "intermediate_size", LLM__GGUF_HP_INT | LLM__GGUF_HP_REQUIRED, NULL },
    { "attention.head_count", "num_attention_heads", LLM__GGUF_HP_INT | LLM__GGUF_HP_REQUIRED, NULL },
    { "attention.head_count_kv", "num_key_value_heads", LLM__GGUF_HP_INT, NULL },
    { "attention.key_length", "head_dim", LLM__GGUF_HP_INT, NULL },
    { "context_length", "max_position_embeddings", LLM__GGUF_HP_INT, NULL },
    { "attention.layer_norm_rms_epsilon", "rms_norm_eps", LLM__GGUF_HP_NUM, NULL },
    { "rope.freq_base", "rope_theta", LLM__GGUF_HP_NUM, NULL },
    { "embedding_scale", "embedding_multiplier", LLM__GGUF_HP_NUM, NULL },   /* Granite */
    { "residual_scale", "residual_multiplier", LLM__GGUF_HP_NUM, NULL },
    { "attention.scale", "attention_multiplier", LLM__GGUF_HP_NUM, NULL },
    { "logit_scale", "logits_scaling", LLM__GGUF_HP_NUM, NULL },
    { "expert_count", "num_experts", LLM__GGUF_HP_INT, NULL },               /* mixtures of experts */
    { "expert_count", "num_local_experts", LLM__GGUF_HP_INT, NULL },
    { "expert_used_count", "num_experts_per_tok", LLM__GGUF_HP_INT, NULL },
    { "expert_feed_forward_length", "moe_intermediate_size", LLM__GGUF_HP_INT, NULL },
    { "expert_shared_feed_forward_length", "shared_expert_intermediate_size", LLM__GGUF_HP_INT, NULL },
    { "attention.sliding_window", "sliding_window", LLM__GGUF_HP_INT, NULL },
    { "attn_logit_softcapping", "attn_logit_softcapping", LLM__GGUF_HP_NUM, "gemma2" },
    { "final_logit_softcapping", "final_logit_softcapping", LLM__GGUF_HP_NUM, NULL },
};

/* Appends printf output to a config text of cap bytes; -1 once it would not fit. */
static int llm__gguf_cfg_put(char *cfg, size_t cap, size_t *n, const char *fmt, ...) {
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(cfg + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *n) return -1;
    *n += (size_t)k;
    return 0;
}

/* The rope scaling as convert_hf_to_gguf.py stores config.json's rope_scaling, given back as
   rope_scaling for the family's config reader. The type is linear unless given (llama.cpp);
   linear's factor is rope.scaling.factor, else the older rope.scale_linear, 0 or 1 meaning none.
   yarn: the factor, the original context, and beta_fast, beta_slow and the attention factor
   where the checkpoint gave them (yarn_beta_fast, ...); yarn_log_multiplier is llama.cpp's
   mscale_all_dim with mscale 1. An extrapolation factor other than 1 is not transformers' YaRN.
   longrope's factors are tensors (llm__gguf_rope_factors). */
static int llm__gguf_rope_scaling_text(llm__cv *cv, const llm__gguf_file *gf, char *cfg, size_t cap, size_t *n) {
    static const struct { const char *gguf, *json; } yarn_keys[] = {
        { "rope.scaling.yarn_beta_fast", "beta_fast" }, { "rope.scaling.yarn_beta_slow", "beta_slow" },
        { "rope.scaling.yarn_attn_factor", "attention_factor" },
    };
    const llm__gguf_kv *kv = llm__gguf_arch_kv(gf, "rope.scaling.type");
    const char *s = "linear";
    size_t len = 6, i;
    double factor = 0.0, v;
    int r = 0, orig;
    if (kv) {
        size_t pos = kv->val;
        s = kv->type == LLM__GGUF_STRING ? llm__gguf_str_at(&gf->g, &pos, &len) : "?";
        if (kv->type != LLM__GGUF_STRING) len = 1;
    }
    if (len == 4 && !memcmp(s, "none", 4)) return 0;
    if (len == 8 && !memcmp(s, "longrope", 8)) {
        if (!llm__gguf_find_tensor(&gf->g, "rope_factors_long.weight"))
            return llm__cv_fail(cv, "%s: rope scaling 'longrope' without rope_factors_long.weight", gf->path);
        return 0;
    }
    if (llm__gguf_hp_num(cv, gf, llm__gguf_arch_kv(gf, "rope.scaling.factor") ? "rope.scaling.factor" : "rope.scale_linear", 0.0, &factor)) return -1;
    if (len == 6 && !memcmp(s, "linear", 6)) {
        if (factor != 0.0 && factor != 1.0) r = llm__gguf_cfg_put(cfg, cap, n, ", \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": %.17g}", factor);
        return r ? llm__cv_fail(cv, "%s: too many hyper-parameters", gf->path) : 0;
    }
    if (!(len == 4 && !memcmp(s, "yarn", 4)))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: rope scaling '%.*s' is not supported (linear, yarn, longrope)", gf->path, (int)(len > 32 ? 32 : len), s);
    if (!(factor > 0.0)) return llm__cv_fail(cv, "%s: yarn rope scaling without a positive rope.scaling.factor", gf->path);
    if (llm__gguf_hp_num(cv, gf, "rope.scaling.yarn_ext_factor", 1.0, &v)) return -1;
    if (v != 1.0) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: yarn_ext_factor %g is not supported (transformers' YaRN has 1)", gf->path, v);
    r |= llm__gguf_cfg_put(cfg, cap, n, ", \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": %.17g", factor);
    if (llm__gguf_arch_kv(gf, "rope.scaling.original_context_length")) {
        if (llm__gguf_hp_int(cv, gf, "rope.scaling.original_context_length", 1, 0, &orig)) return -1;
        r |= llm__gguf_cfg_put(cfg, cap, n, ", \"original_max_position_embeddings\": %d", orig);
    }
    for (i = 0; i < sizeof yarn_keys / sizeof yarn_keys[0]; i++) {
        if (!llm__gguf_arch_kv(gf, yarn_keys[i].gguf)) continue;
        if (llm__gguf_hp_num(cv, gf, yarn_keys[i].gguf, 0.0, &v)) return -1;
        r |= llm__gguf_cfg_put(cfg, cap, n, ", \"%s\": %.17g", yarn_keys[i].json, v);
    }
    if (llm__gguf_hp_num(cv, gf, "rope.scaling.yarn_log_multiplier", 0.0, &v)) return -1;
    if (v != 0.0) r |= llm__gguf_cfg_put(cfg, cap, n, ", \"mscale\": 1, \"mscale_all_dim\": %.17g", v);
    r |= llm__gguf_cfg_put(cfg, cap, n, "}");
    return r ? llm__cv_fail(cv, "%s: too many hyper-parameters", gf->path) : 0;
}

/* The config.json of the GGUF's model: the family's model_type and every key the GGUF holds. */
static int llm__gguf_config_text(llm__cv *cv, const llm__gguf_file *gf, int n_vocab, char *cfg, size_t cap, size_t *n) {
    const llm__gguf *g = &gf->g;
    size_t i;
    int r = llm__gguf_cfg_put(cfg, cap, n, "{\"model_type\": \"%s\", \"vocab_size\": %d, \"tie_word_embeddings\": %s, \"attention_bias\": %s",
                              /* a llama GGUF with experts is Mixtral (llama.cpp's converter names it so) */
                              !strcmp(gf->arch->name, "llama") && llm__gguf_arch_kv(gf, "expert_count") ? "mixtral" : gf->arch->model_type, n_vocab, llm__gguf_find_tensor(g, "output.weight") ? "false" : "true",
                              llm__gguf_find_tensor(g, "blk.0.attn_q.bias") ? "true" : "false");
    for (i = 0; i < sizeof llm__gguf_config_keys / sizeof llm__gguf_config_keys[0]; i++) {
        const char *key = llm__gguf_config_keys[i].gguf;
        int kind = llm__gguf_config_keys[i].kind, v;
        double d;
        if (llm__gguf_config_keys[i].only && strcmp(llm__gguf_config_keys[i].only, gf->arch->name)) continue;
        if (!llm__gguf_arch_kv(gf, key)) {
            if (kind & LLM__GGUF_HP_REQUIRED) return llm__cv_fail(cv, "%s: no %s%s", gf->path, gf->prefix, key);
            continue;
        }
        if (kind & LLM__GGUF_HP_NUM) {
            if (llm__gguf_hp_num(cv, gf, key, 0.0, &d)) return -1;
            r |= llm__gguf_cfg_put(cfg, cap, n, ", \"%s\": %.17g", llm__gguf_config_keys[i].json, d);
        } else {
            if (llm__gguf_hp_int(cv, gf, key, 1, 0, &v)) return -1;
            r |= llm__gguf_cfg_put(cfg, cap, n, ", \"%s\": %d", llm__gguf_config_keys[i].json, v);
        }
    }
    if (llm__gguf_rope_scaling_text(cv, gf, cfg, cap, n)) return -1;
    if (gf->arch->gemma && strcmp(gf->arch->name, "gemma")) { /* llama.cpp's f_attention_scale: 1/sqrt(head_dim), 1/sqrt(n_embd/n_head) for the 27B models */
        int layers, embd, heads, hd;
        if (llm__gguf_hp_int(cv, gf, "block_count", 1, 0, &layers) || llm__gguf_hp_int(cv, gf, "embedding_length", 1, 0, &embd) ||
            llm__gguf_hp_int(cv, gf, "attention.head_count", 1, 0, &heads) || llm__gguf_hp_int(cv, gf, "attention.key_length", 0, heads ? embd / heads : 0, &hd))
            return -1;
        r |= llm__gguf_cfg_put(cfg, cap, n, ", \"query_pre_attn_scalar\": %d",
                               layers == (strcmp(gf->arch->name, "gemma2") ? 62 : 46) && heads ? embd / heads : hd);
    }
    r |= llm__gguf_cfg_put(cfg, cap, n, "%s}", gf->arch->fixed);
    return r ? llm__cv_fail(cv, "%s: too many hyper-parameters", gf->path) : 0;
}

/* A vector of n positive F32 values (a rope factor tensor) into out, which holds 512: 1 when
   the file has it, 0 when not, -1 on error (a longer one among them). */
static int llm__gguf_rope_vector(llm__cv *cv, const llm__gguf_file *gf, const char *name, int n, float *out) {
    const llm__gguf_tensor *t = llm__gguf_find_tensor(&gf->g, name);
    uint8_t b[4 * 512];
    int i;
    if (!t) return 0;
    if (t->type != LLM__GT_F32 || t->n_dims != 1 || t->ne[0] != (uint64_t)n || n > 512)
        return llm__cv_fail(cv, "%s: %s must be %d F32 values (rotary dimensions / 2)", gf->path, name, n);
    if (fseeko(gf->f, (off_t)(gf->g.data_offset + t->offset), SEEK_SET) != 0 || fread(b, 4, (size_t)n, gf->f) != (size_t)n)
        return llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read %s from %s", name, gf->path);
    for (i = 0; i < n; i++)
        if (!((out[i] = llm__gguf_f32_at(b + 4 * i)) > 0 && out[i] <= FLT_MAX)) return llm__cv_fail(cv, "%s: %s[%d] is not a positive number", gf->path, name, i);
    return 1;
}

static int llm__gguf_is_rope_vector(const char *name, size_t n) {
    static const char *const names[] = { "rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight" };
    size_t i;
    for (i = 0; i < 3; i++) if (n == strlen(names[i]) && !memcmp(name, names[i], n)) return 1;
    return 0;
}

/* Per-pair rope factors, which llm.h keeps as LongRoPE's short and long tables:
   - rope_freqs.weight, Llama 3.1 / 3.2's llama3 scaling as llama.cpp's converter stores it:
     one factor per rotary pair that llama.cpp divides the frequency by (theta_i =
     pos x base^(-2i/d) / f_i), which is what llm.h computes from a factor table:
     1 / (f_i x base^(2i/d)); one table for both lengths and an attention factor of 1;
   - rope_factors_short/long.weight, Phi-3's LongRoPE, with rope.scaling.original_context_length
     and rope.scaling.attn_factor (transformers' sqrt(1 + ln(s) / ln(original)), stored by the
     converter). */
static int llm__gguf_rope_factors(llm__cv *cv, const llm__gguf_file *gf, llm__cv_hparams *h) {
    int n = h->rope_dim / 2, freqs, lng, shrt;
    double af;
    if ((freqs = llm__gguf_rope_vector(cv, gf, "rope_freqs.weight", n, h->rope_short)) < 0 ||
        (lng = llm__gguf_rope_vector(cv, gf, "rope_factors_long.weight", n, h->rope_long)) < 0 ||
        (shrt = llm__gguf_rope_vector(cv, gf, "rope_factors_short.weight", n, h->rope_short)) < 0)
        return -1;
    if (!freqs && !lng && !shrt) return 0;
    if (h->rope_scaling != LLM_ROPE_NONE) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: rope factor tensors with another rope scaling are not supported", gf->path);
    if (freqs + lng + shrt != (freqs ? 1 : 2))
        return llm__cv_fail(cv, "%s: rope factors must be rope_freqs.weight alone, or rope_factors_long.weight and rope_factors_short.weight", gf->path);
    h->rope_scaling = LLM_ROPE_LONGROPE;
    if (freqs) {
        memcpy(h->rope_long, h->rope_short, (size_t)n * sizeof(float));
        h->rope_orig = h->n_ctx_train > 0 ? h->n_ctx_train : 1;
        h->rope_attn_factor = 1.0;
        return 0;
    }
    if (llm__gguf_hp_int(cv, gf, "rope.scaling.original_context_length", 1, 0, &h->rope_orig) || llm__gguf_hp_num(cv, gf, "rope.scaling.attn_factor", 1.0, &af)) return -1;
    if (h->rope_orig < 1 || !(af > 0)) return llm__cv_fail(cv, "%s: longrope needs original_context_length >= 1 and attn_factor > 0", gf->path);
    h->rope_attn_factor = af;
    return 0;
}

/* The hyper-parameters, as the family reads its config.json; then what only the GGUF says:
   the rotary dimensions, which projections carry biases, and the special token ids. */
static int llm__gguf_read_hparams(llm__cv *cv, const llm__gguf_file *gf, llm__cv_hparams *h) {
    const llm__gguf *g = &gf->g;
    const llm__gguf_kv *kv;
    char text[4096], err[256];
    json_value *cfg;
    size_t n = 0;
    int n_vocab, v_len, rope_dim, pooling, rc;
    memset(h, 0, sizeof *h);
    if (llm__gguf_hp_int(cv, gf, "vocab_size", 0, 0, &n_vocab)) return -1;
    if (!n_vocab && (kv = llm__gguf_find(g, "tokenizer.ggml.tokens")) && kv->type == LLM__GGUF_ARRAY && kv->n < (1u << 24)) n_vocab = (int)kv->n;
    if (!n_vocab) {
        const llm__gguf_tensor *e = llm__gguf_find_tensor(g, "token_embd.weight");
        if (e && e->n_dims == 2 && e->ne[1] < (1u << 24)) n_vocab = (int)e->ne[1];
    }
    if (llm__gguf_config_text(cv, gf, n_vocab, text, sizeof text, &n)) return -1;
    if (!(cfg = json_parse(text, n, err, sizeof err))) return llm__cv_fail(cv, "%s: hyper-parameters: %s", gf->path, err);
    rc = llm__cv_hparams_from_json(cv, cfg, NULL, h);
    json_free(cfg);
    if (rc) return -1;
    if (llm__gguf_hp_int(cv, gf, "attention.value_length", 0, h->head_dim, &v_len) || llm__gguf_hp_int(cv, gf, "rope.dimension_count", 0, h->rope_dim, &rope_dim))
        return -1;
    if (v_len != h->head_dim) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: value_length %d differs from key_length %d", gf->path, v_len, h->head_dim);
    if (rope_dim < 2 || rope_dim % 2 || rope_dim > h->head_dim)
        return llm__cv_fail(cv, "%s: rope.dimension_count %d is not an even number in [2, head_dim %d]", gf->path, rope_dim, h->head_dim);
    /* partial rotary only where the family's config class has it (HF's rotate_half over the
       first rope_dim dimensions, as llama.cpp's NEOX rope of n_rot) */
    if (rope_dim != h->head_dim && !(h->fam->keys & LLM__CV_KEYS_PARTIAL))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: rope.dimension_count %d is not head_dim %d (partial rotary) in a %s model", gf->path, rope_dim, h->head_dim, gf->arch->name);
    h->rope_dim = rope_dim;
    if (llm__gguf_rope_factors(cv, gf, h)) return -1;
    if (gf->arch->gemma) {
        /* llama.cpp's converter stores Gemma's norm weights plus one, and its forward pass
           scales the embeddings by sqrtf(n_embd) in float32 */
        h->norm_plus_one = 0;
        h->embd_scale = (double)sqrtf((float)h->n_embd);
    }
    if (h->fam->bias == LLM__CV_BIAS_ALL) { /* as the tensors say: llama.cpp loads each bias it finds */
        h->attn_bias_qkv = llm__gguf_find_tensor(g, "blk.0.attn_q.bias") != NULL;
        h->attn_bias_o = llm__gguf_find_tensor(g, "blk.0.attn_output.bias") != NULL;
    }
    /* an embedding model's pooling (llama.cpp's pooling_type: 1 mean, 2 cls, 3 last; 0 none) */
    if (llm__gguf_hp_int(cv, gf, "pooling_type", 0, 0, &pooling)) return -1;
    if (pooling >= 1 && pooling <= 3) h->pooling = pooling == 1 ? LLM_POOLING_MEAN : pooling == 2 ? LLM_POOLING_FIRST : LLM_POOLING_LAST;
    else if (pooling) llm__cv_log(cv, "note: %s: pooling_type %d is not llm_embed's (mean 1, cls 2, last 3); the file names no pooling", gf->path, pooling);
    llm__gguf_read_ids(g, h);
    return 0;
}

/* blk.N.X -> model.layers.N.Y; 0 when the name is not one llm.h reads, 2 for a stack of
   experts, whose name is that of expert `expert`. A sandwich block's ffn_norm is HF's
   pre_feedforward_layernorm (llama.cpp's tensor map), and a fused_up architecture's ffn_up is
   gate_up_proj. */
static int llm__gguf_hf_name_of(const char *name, size_t n, int sandwich, int fused_up, int expert, char *out, size_t cap) {
    size_t i;
    long layer = 0;
    const char *p = name, *end = name + n;
    if (n == 17 && !memcmp(name, "token_embd.weight", 17)) { snprintf(out, cap, "model.embed_tokens.weight"); return 1; }
    if (n == 18 && !memcmp(name, "output_norm.weight", 18)) { snprintf(out, cap, "model.norm.weight"); return 1; }
    if (n == 13 && !memcmp(name, "output.weight", 13)) { snprintf(out, cap, "lm_head.weight"); return 1; }
    if (n < 6 || memcmp(name, "blk.", 4) != 0) return 0;
    p += 4;
    if (p >= end || *p < '0' || *p > '9') return 0;
    while (p < end && *p >= '0' && *p <= '9' && layer <= LLM_MAX_LAYERS) layer = layer * 10 + (*p++ - '0');
    if (p >= end || *p++ != '.') return 0;
    for (i = 0; i < sizeof llm__gguf_layer_names / sizeof llm__gguf_layer_names[0]; i++)
        if ((size_t)(end - p) == strlen(llm__gguf_layer_names[i][0]) && !memcmp(p, llm__gguf_layer_names[i][0], (size_t)(end - p))) {
            const char *hf = sandwich && i == 1 ? "pre_feedforward_layernorm.weight"
                           : fused_up && !strcmp(llm__gguf_layer_names[i][0], "ffn_up.weight") ? "mlp.gate_up_proj.weight"
                           : llm__gguf_layer_names[i][1], *pct = strstr(hf, "%d");
            if (!pct) { snprintf(out, cap, "model.layers.%ld.%s", layer, hf); return 1; }
            snprintf(out, cap, "model.layers.%ld.%.*s%d%s", layer, (int)(pct - hf), hf, expert, pct + 2);
            return 2;
        }
    return 0;
}

/* The llm.h type nearest a GGUF type, for the progress report. */
static llm_dtype llm__gguf_src_dtype(uint32_t type) {
    switch (type) {
    case LLM__GT_F16: return LLM_DTYPE_F16;
    case LLM__GT_BF16: return LLM_DTYPE_BF16;
    case LLM__GT_Q8_0: return LLM_DTYPE_Q8_0;
    case LLM__GT_Q4_0: return LLM_DTYPE_Q4_0;
    case LLM__GT_Q4_K: return LLM_DTYPE_Q4_K;
    case LLM__GT_Q5_K: return LLM_DTYPE_Q5_K;
    case LLM__GT_Q6_K: return LLM_DTYPE_Q6_K;
    default: return LLM_DTYPE_F32;
    }
}

/* The type that holds a type's values exactly where llm.h has none of its own
   (llm__gguf_recode), or f32. */
static llm_dtype llm__gguf_recode_dtype(uint32_t type) {
    return type == LLM__GT_Q5_0 || type == LLM__GT_IQ4_NL ? LLM_DTYPE_Q8_0 : type == LLM__GT_Q3_K ? LLM_DTYPE_Q6_K : LLM_DTYPE_F32;
}

/* What a GGUF tensor becomes in the file: the one place that decides. Norms and biases are
   f32. With --dtype, the converter's rule for the requested type. Otherwise every type is
   kept without loss: F32, F16, BF16 as they are; Q8_0, Q4_0, Q4_K, Q5_K and Q6_K re-laid out
   into llm.h's q8_0, q4_0, q4_k, q5_k and q6_k (the same scales and codes, the same values
   bit for bit, docs/FORMAT.md) when the rows come in groups of 16; Q5_0 and IQ4_NL, whose
   values are an f16 scale times a small integer, into q8_0, and Q3_K, whose are d x a 6-bit
   scale x a 3-bit code, into q6_k, the same values bit for bit (llm__gguf_recode); every
   other type, and those whose rows do not come in 16s, dequantized exactly to f32 (llm.h has
   no type that holds their blocks). */
static llm_dtype llm__gguf_stored_dtype(const llm__gguf_tensor *t, const llm__cv_src_tensor *st, const llm__cv_hparams *h,
                                        const llm_convert_desc *d) {
    uint64_t rows = (uint64_t)st->shape[0];
    (void)t;
    if (st->n_dims == 1) return LLM_DTYPE_F32;
    if (d->has_dtype) return llm__cv_weight_dtype(st, h, d->dtype, d->recipe);
    switch (t->type) {
    case LLM__GT_F16: return LLM_DTYPE_F16;
    case LLM__GT_BF16: return LLM_DTYPE_BF16;
    case LLM__GT_Q8_0: case LLM__GT_Q4_0: case LLM__GT_Q4_K: case LLM__GT_Q5_K: case LLM__GT_Q6_K:
        return rows % LLM__QG == 0 ? llm__gguf_src_dtype(t->type) : LLM_DTYPE_F32;
    default: return rows % LLM__QG == 0 ? llm__gguf_recode_dtype(t->type) : LLM_DTYPE_F32;
    }
}

/* The tensors as converter sources (HF names and shapes), each with its GGUF entry. */
typedef struct llm__gguf_plan {
    llm__cv_source src;
    const llm__gguf_tensor **gt;   /* per src tensor */
    llm__cv_plan p;
} llm__gguf_plan;

static int llm__gguf_plan_tensors(llm__cv *cv, const llm__gguf_file *gf, const llm__cv_hparams *h, llm__gguf_plan *pl) {
    const llm__gguf *g = &gf->g;
    uint64_t i, n_src = g->n_tensors;
    int d, e;
    /* a stack of experts is one source tensor per expert, a fused matrix up to three */
    for (i = 0; i < g->n_tensors; i++) n_src += g->t[i].n_dims == 3 ? (uint64_t)(h->n_expert > 0 ? h->n_expert : 1) : 2;
    if (n_src > LLM__CV_MAX_TENSORS) return llm__cv_fail(cv, "%s: too many tensors", gf->path);
    pl->src.t = (llm__cv_src_tensor *)calloc((size_t)(n_src ? n_src : 1), sizeof *pl->src.t);
    pl->gt = (const llm__gguf_tensor **)calloc((size_t)(n_src ? n_src : 1), sizeof *pl->gt);
    if (!pl->src.t || !pl->gt || !(pl->src.files = (char **)calloc(1, sizeof(char *))) || !(pl->src.files[0] = llm__cv_strdup(gf->path))) return llm__cv_oom(cv);
    pl->src.n_files = 1;
    for (i = 0; i < g->n_tensors; i++) {
        const llm__gguf_tensor *t = &g->t[i];
        const char *gname = (const char *)g->buf + t->name;
        char name[320], fused[320];
        const char *suffix[3];
        int64_t rows[3], first = 0;
        llm__cv_src_tensor whole;
        uint64_t row_bytes;
        int kind, n_part = 1, n_split = 0;
        if (llm__gguf_is_rope_vector(gname, t->name_len)) continue; /* read as hyper-parameters */
        kind = llm__gguf_hf_name_of(gname, t->name_len, h->block_norms == LLM_BLOCK_SANDWICH, gf->arch->fused_up, 0, name, sizeof name);
        if (!kind || !llm__cv_is_model_tensor(name, h))
            return llm__cv_fail(cv, "%s: tensor '%.*s' is not part of a %s model llm.h runs", gf->path, (int)t->name_len, gname, gf->arch->name);
        if (!llm__gguf_type_of(t->type)->blck) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: tensor '%s' has type %s, which cannot be read", gf->path, name, llm__gguf_type_name(t->type));
        if ((kind == 2) != (t->n_dims == 3) || (kind == 2 && t->ne[2] != (uint64_t)h->n_expert))
            return llm__cv_fail(cv, "%s: tensor '%.*s' has %d dimensions, not %s", gf->path, (int)t->name_len, gname, t->n_dims,
                                kind == 2 ? "[expert_count, rows, columns]" : "1 or 2");
        if (kind == 2) n_part = h->n_expert;
        /* Phi-3's attn_qkv and fused ffn_up: whole rows of each piece, in the checkpoint's order */
        memset(&whole, 0, sizeof whole);
        whole.name = strcpy(fused, name);
        if (kind == 1 && (n_split = llm__cv_split(&whole, h, suffix, rows)) > 0) {
            int64_t total = 0;
            for (e = 0; e < n_split; e++) total += rows[e];
            if (t->n_dims != 2 || t->ne[1] != (uint64_t)total || t->ne[0] != (uint64_t)h->n_embd)
                return llm__cv_fail(cv, "%s: tensor '%.*s' must be [%lld rows, %d columns]", gf->path, (int)t->name_len, gname, (long long)total, h->n_embd);
            n_part = n_split;
        }
        row_bytes = t->ne[0] / llm__gguf_type_of(t->type)->blck * llm__gguf_type_of(t->type)->size;
        for (e = 0; e < n_part; e++) {
            llm__cv_src_tensor *st = &pl->src.t[pl->src.n];
            if (kind == 2) llm__gguf_hf_name_of(gname, t->name_len, 0, 0, e, name, sizeof name);
            if (n_split) snprintf(name, sizeof name, "%.*s%s", (int)(strstr(fused, n_split == 3 ? "self_attn." : "mlp.") - fused), fused, suffix[e]);
            if (!(st->name = llm__cv_strdup(name))) return llm__cv_oom(cv);
            st->n_dims = t->n_dims == 3 ? 2 : t->n_dims;
            for (d = 0; d < st->n_dims; d++) st->shape[d] = (int64_t)t->ne[st->n_dims - 1 - d]; /* HF order */
            /* Qwen2-MoE's shared-expert gate: llama.cpp's {n_embd}, HF's [1, hidden] */
            if (st->n_dims == 1 && strstr(name, "shared_expert_gate")) { st->n_dims = 2; st->shape[1] = st->shape[0]; st->shape[0] = 1; }
            st->dtype = llm__gguf_src_dtype(t->type);
            st->size = n_split ? (uint64_t)rows[e] * row_bytes : t->size / (uint64_t)n_part;
            st->offset = g->data_offset + t->offset + (n_split ? (uint64_t)first * row_bytes : (uint64_t)e * st->size);
            if (n_split) first += st->shape[0] = rows[e];
            pl->gt[pl->src.n++] = t;
        }
    }
    for (i = 0; i < (uint64_t)pl->src.n; i++) {
        if (pl->p.n == (int)(sizeof pl->p.src / sizeof pl->p.src[0])) return llm__cv_fail(cv, "%s: too many tensors", gf->path);
        pl->p.src[pl->p.n] = &pl->src.t[i];
        pl->p.dst[pl->p.n] = llm__gguf_stored_dtype(pl->gt[i], &pl->src.t[i], h, cv->desc);
        pl->p.n++;
    }
    if (llm__cv_check_unique_names(cv, &pl->src)) return -1;
    return llm__cv_check_complete(cv, &pl->src, &pl->p, h);
}

static void llm__gguf_plan_free(llm__gguf_plan *pl) {
    llm__cv_free_source(&pl->src);
    free(pl->gt);
}

/* Puts HF's row order back into Q or K (and their biases) of a permuting architecture:
   llama.cpp stores HF row h*hd + j*(hd/2) + i at h*hd + 2i + j (j = 0, 1). */
static int llm__gguf_unpermute(uint8_t *data, uint64_t rows, size_t row_bytes, int n_heads) {
    uint64_t hd = n_heads > 0 ? rows / (uint64_t)n_heads : 0, h, i, j;
    uint8_t *tmp;
    if (!hd || hd % 2 || hd * (uint64_t)n_heads != rows) return -1;
    if (!(tmp = (uint8_t *)malloc((size_t)rows * row_bytes))) return -1;
    memcpy(tmp, data, (size_t)rows * row_bytes);
    for (h = 0; h < (uint64_t)n_heads; h++)
        for (j = 0; j < 2; j++)
            for (i = 0; i < hd / 2; i++)
                memcpy(data + (size_t)(h * hd + j * (hd / 2) + i) * row_bytes, tmp + (size_t)(h * hd + 2 * i + j) * row_bytes, row_bytes);
    free(tmp);
    return 0;
}

/* Blocks whose values another ggml type holds exactly, rewritten as that type (n blocks at
   src into dst), so that llm.h keeps them in a quantized type rather than in f32:
   - Q5_0 (d, the 5th bits, 4-bit codes: d x (q - 16)) and IQ4_NL (d, 4-bit indices into a
     table of int8 values: d x table[q]) as Q8_0: the same f16 d and the integers as codes;
   - Q3_K (hmask, 2-bit codes, sixteen 6-bit scales, d: d x (scale - 32) x code, code in
     [-4, 3]) as Q6_K: the same d, the signed scales as its int8 scales, code + 32 as its
     6-bit codes. Every product is exact in f32 either way, so the values are ggml's. */
static int llm__gguf_recodes(uint32_t type, llm_dtype dt) { return dt != LLM_DTYPE_F32 && dt == llm__gguf_recode_dtype(type); }

static void llm__gguf_recode(uint32_t type, const uint8_t *src, uint64_t n, uint8_t *dst) {
    uint64_t i;
    int j, half;
    for (i = 0; i < n; i++) {
        if (type == LLM__GT_Q3_K) {
            const uint8_t *b = src + i * 110;
            uint8_t *o = dst + i * 210, *ql = o, *qh = o + 128;
            int sc[16], v[256];
            llm__gguf_q3_k_scales(b + 96, sc);
            llm__gguf_q3_k_codes(b, v);
            for (j = 0; j < 256; j++) v[j] += 32;
            for (half = 0; half < 2; half++, ql += 64, qh += 32)
                for (j = 0; j < 32; j++) { /* ggml's Q6_K order: ql and qh hold weights j, j+32, j+64, j+96 */
                    const int *w = v + 128 * half + j;
                    ql[j] = (uint8_t)((w[0] & 15) | (w[64] & 15) << 4);
                    ql[j + 32] = (uint8_t)((w[32] & 15) | (w[96] & 15) << 4);
                    qh[j] = (uint8_t)(w[0] >> 4 | (w[32] >> 4) << 2 | (w[64] >> 4) << 4 | (w[96] >> 4) << 6);
                }
            for (j = 0; j < 16; j++) o[192 + j] = (uint8_t)(int8_t)sc[j];
            o[208] = b[108]; o[209] = b[109];
        } else {
            const uint8_t *b = src + i * (type == LLM__GT_Q5_0 ? 22 : 18);
            uint8_t *o = dst + i * 34;
            int x[32];
            if (type == LLM__GT_Q5_0) llm__gguf_q5_codes(b, 0, x);
            o[0] = b[0]; o[1] = b[1];
            for (j = 0; j < 32; j++)
                o[2 + j] = (uint8_t)(type == LLM__GT_Q5_0 ? x[j] - 16 : llm__gguf_iq4nl[j < 16 ? b[2 + j] & 15 : b[2 + j - 16] >> 4]);
        }
    }
}

/* Q8_0 / Q4_0 blocks into llm.h's q8_0 / q4_0 layout (docs/FORMAT.md), unchanged: the same
   f16 scale and codes. A Q4_0 byte already holds weight k low and k + 16 high, as llm.h's. */
static void llm__gguf_relayout_q(uint32_t type, const uint8_t *src, uint64_t rows, uint64_t cols, uint8_t *dst) {
    size_t nb = (size_t)(cols / 32), bsz = type == LLM__GT_Q8_0 ? 34 : 18, qbytes = type == LLM__GT_Q8_0 ? 512 : 256;
    size_t grp = (size_t)LLM__QG * nb * (qbytes / 16 + 2), g, b, l, k;
    for (g = 0; g < (size_t)(rows / LLM__QG); g++) {
        uint8_t *o = dst + g * grp, *scales = o + nb * qbytes;
        for (l = 0; l < LLM__QG; l++) {
            const uint8_t *row = src + (g * LLM__QG + l) * nb * bsz;
            for (b = 0; b < nb; b++) {
                const uint8_t *blk = row + b * bsz;
                uint8_t *qb = o + b * qbytes;
                for (k = 0; k < bsz - 2; k++) qb[(k / 4) * 64 + 4 * l + k % 4] = blk[2 + k];
                scales[b * 32 + 2 * l] = blk[0];
                scales[b * 32 + 2 * l + 1] = blk[1];
            }
        }
    }
}

/* One tensor's bytes from the GGUF into dst (type dt, size bytes), rows unpermuted first. */
static int llm__gguf_convert_tensor(llm__cv *cv, const llm__gguf_file *gf, const llm__gguf_tensor *t, const llm__cv_src_tensor *st,
                                    const llm__cv_hparams *h, llm_dtype dt, uint8_t *dst) {
    const llm__gguf_type *ty = llm__gguf_type_of(t->type);
    uint64_t cols = t->ne[0], n_elem = st->size / ty->size * ty->blck, rows = n_elem / cols; /* of this expert, for a stack */
    size_t row_bytes = (size_t)(cols / ty->blck * ty->size);
    uint8_t *raw = (uint8_t *)malloc((size_t)st->size ? (size_t)st->size : 1);
    float *f = NULL;
    int rc = -1, is_q = strstr(st->name, "q_proj") != NULL, is_k = strstr(st->name, "k_proj") != NULL;
    if (!raw) return llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory for tensor '%s'", st->name);
    if (fseeko(gf->f, (off_t)st->offset, SEEK_SET) != 0 || fread(raw, 1, (size_t)st->size, gf->f) != st->size) {
        llm__cv_fail_as(cv, LLM_ERR_IO, "cannot read tensor '%s' from %s", st->name, gf->path);
        goto done;
    }
    if (gf->arch->permute_qk && (is_q || is_k)) {
        /* a bias is one column: each element is a row */
        uint64_t prow = st->n_dims == 1 ? n_elem : rows;
        size_t pbytes = st->n_dims == 1 ? ty->size : row_bytes;
        if ((st->n_dims == 1 && ty->blck != 1) || llm__gguf_unpermute(raw, prow, pbytes, is_q ? h->n_head : h->n_head_kv)) {
            llm__cv_fail(cv, "%s: tensor '%s' has %llu rows, which do not split into %d heads", gf->path, st->name, (unsigned long long)prow, is_q ? h->n_head : h->n_head_kv);
            goto done;
        }
    }
    if (llm__gguf_recodes(t->type, dt)) {
        uint32_t to = dt == LLM_DTYPE_Q8_0 ? LLM__GT_Q8_0 : LLM__GT_Q6_K;
        uint64_t n_blocks = n_elem / ty->blck;
        uint8_t *re = (uint8_t *)malloc((size_t)(n_blocks * llm__gguf_type_of(to)->size));
        if (!re) { llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory for tensor '%s'", st->name); goto done; }
        llm__gguf_recode(t->type, raw, n_blocks, re);
        free(raw);
        raw = re;
        ty = llm__gguf_type_of(to);
    }
    if ((dt == LLM_DTYPE_Q8_0 && ty->id == LLM__GT_Q8_0) || (dt == LLM_DTYPE_Q4_0 && ty->id == LLM__GT_Q4_0)) {
        llm__gguf_relayout_q(ty->id, raw, rows, cols, dst);
        rc = 0;
        goto done;
    }
    if (dt == llm__gguf_src_dtype(ty->id) && (dt == LLM_DTYPE_Q4_K || dt == LLM_DTYPE_Q5_K || dt == LLM_DTYPE_Q6_K)) {
        llm_result r = dt == LLM_DTYPE_Q4_K ? llm_q4_k_from_ggml(raw, (int64_t)rows, (int64_t)cols, dst)
                     : dt == LLM_DTYPE_Q5_K ? llm_q5_k_from_ggml(raw, (int64_t)rows, (int64_t)cols, dst)
                                            : llm_q6_k_from_ggml(raw, (int64_t)rows, (int64_t)cols, dst);
        if (r == LLM_OK) rc = 0;
        else llm__cv_fail(cv, "tensor '%s': cannot re-lay out %s as %s", st->name, ty->name, llm_dtype_name(dt));
        goto done;
    }
    if (!(f = (float *)malloc((size_t)n_elem * sizeof(float)))) { llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory for tensor '%s'", st->name); goto done; }
    llm__gguf_dequantize(ty->id, raw, n_elem, f);
    if (llm__cv_quantize(cv, dt, f, (int64_t)rows, (int64_t)cols, dst) != LLM_OK)
        llm__cv_fail(cv, "tensor '%s': cannot convert %s to %s", st->name, ty->name, llm_dtype_name(dt));
    else rc = 0;
done:
    free(raw);
    free(f);
    return rc;
}

/* ---- gguf: tokenizer ------------------------------------------------------------------ */
/* llama.cpp's token types (tokenizer.ggml.token_type). */
enum { LLM__GGUF_TOK_NORMAL = 1, LLM__GGUF_TOK_UNKNOWN = 2, LLM__GGUF_TOK_CONTROL = 3, LLM__GGUF_TOK_USER = 4,
       LLM__GGUF_TOK_UNUSED = 5, LLM__GGUF_TOK_BYTE = 6 };

/* tokenizer.ggml.pre names of byte-level vocabularies (as convert_hf_to_gguf.py names them)
   and what HF's tokenizer.json of those models does: Digits(individual_digits) first or not,
   the Split regex (Isolated), the normalizer, ignore_merges. */
static const char *const llm__gguf_regex_o200k =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/* Mistral's Tekken (Mistral Nemo, Mistral Small 3): o200k's classes without the
   contractions, digits one by one. */
static const char *const llm__gguf_regex_tekken =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|"
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|"
    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/* DeepSeek LLM and DeepSeek Coder (LlamaForCausalLM): a sequence of splits (the first one in
   `regex`, the others in `then`), those llama.cpp lists for them from their tokenizer.json,
   written with escapes. DeepSeek LLM's second split takes the cased letters (Lu, Ll, Lt) of a
   few scripts; llama.cpp's copy of that class has three of them NFC-normalized to other
   characters (U+1FBE to U+03B9, U+2126 to U+03A9, U+212A to K, which makes K-U+212D a range
   over most of the BMP) and three range ends too (U+1F7D, U+1FD3, U+1FDB): here they are the
   cased letters again. */
static const char *const llm__gguf_regex_deepseek_llm[] = {
    "[\\r\\n]",
    "\\s?[A-Za-z\\u00B5\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u01BA\\u01BC-\\u01BF\\u01C4-\\u0293"
      "\\u0295-\\u02AF\\u0370-\\u0373\\u0376\\u0377\\u037B-\\u037D\\u037F\\u0386\\u0388-\\u038A"
      "\\u038C\\u038E-\\u03A1\\u03A3-\\u03F5\\u03F7-\\u0481\\u048A-\\u052F\\u0531-\\u0556\\u10A0-"
      "\\u10C5\\u13A0-\\u13F5\\u13F8-\\u13FD\\u1C90-\\u1CBA\\u1CBD-\\u1CBF\\u1D00-\\u1D2B\\u1D6B-"
      "\\u1D77\\u1D79-\\u1D9A\\u1E00-\\u1F15\\u1F18-\\u1F1D\\u1F20-\\u1F45\\u1F48-\\u1F4D\\u1F50-"
      "\\u1F57\\u1F59\\u1F5B\\u1F5D\\u1F5F-\\u1F7D\\u1F80-\\u1FB4\\u1FB6-\\u1FBC\\u1FBE\\u1FC2-"
      "\\u1FC4\\u1FC6-\\u1FCC\\u1FD0-\\u1FD3\\u1FD6-\\u1FDB\\u1FE0-\\u1FEC\\u1FF2-\\u1FF4\\u1FF6-"
      "\\u1FFC\\u2102\\u2107\\u210A-\\u2113\\u2115\\u2119-\\u211D\\u2124\\u2126\\u2128\\u212A-"
      "\\u212D\\u212F-\\u2134\\u2139\\u213C-\\u213F\\u2145-\\u2149\\u214E\\u2183\\u2184\\u2C00-"
      "\\u2C7B\\u2C7E-\\u2CE4\\u2CEB-\\u2CEE\\u2CF2\\u2CF3\\uA640-\\uA66D\\uA680-\\uA69B\\uA722-"
      "\\uA76F\\uA771-\\uA787\\uA78B-\\uA78E\\uAB70-\\uABBF\\uFB00-\\uFB06\\uFB13-\\uFB17\\uFF21-"
      "\\uFF3A\\uFF41-\\uFF5A\\x{10400}-\\x{1044F}\\x{104B0}-\\x{104D3}\\x{104D8}-\\x{104FB}\\x{10C80}-"
      "\\x{10CB2}\\x{10CC0}-\\x{10CF2}\\x{118A0}-\\x{118DF}\\x{1E900}-\\x{1E943}]+",
    "\\s?[!-/:-~\\uFF01-\\uFF0F\\uFF1A-\\uFF5E\\u2018-\\u201F\\u3000-\\u3002]+",
    "\\s+$",
    "[\\u4E00-\\u9FA5\\u0800-\\u4E00\\uAC00-\\uD7FF]+",
    "\\p{N}+",
    NULL,
};
static const char *const llm__gguf_regex_deepseek_coder[] = {
    "[\\r\\n]",
    "\\s?\\p{L}+",
    "\\s?\\p{P}+",
    "[\\u4E00-\\u9FA5\\u0800-\\u4E00\\uAC00-\\uD7FF]+",
    "\\p{N}",
    NULL,
};

typedef struct llm__gguf_pre {
    const char *name;
    int32_t digits;
    const char *const *regex;
    int32_t normalizer, bpe_opts;
    const char *const *then; /* the splits after the first, to a NULL; NULL for none */
} llm__gguf_pre;

static const llm__gguf_pre llm__gguf_pres[] = {
    { "gpt-2", 0, &llm__cv_tok_regex_gpt2, LLM_NORM_NONE, 0, NULL },
    { "mellum", 0, &llm__cv_tok_regex_gpt2, LLM_NORM_NONE, 0, NULL },    /* JetBrains Mellum */
    { "trillion", 0, &llm__cv_tok_regex_gpt2, LLM_NORM_NONE, 0, NULL },  /* Trillion-7B */
    { "qwen2", 0, &llm__cv_tok_regex_qwen2, LLM_NORM_NFC, 0, NULL },
    { "deepseek-r1-qwen", 0, &llm__cv_tok_regex_qwen2, LLM_NORM_NFC, 0, NULL }, /* DeepSeek-R1-Distill-Qwen: Qwen2's */
    { "llama3", 0, &llm__cv_tok_regex_llama3, LLM_NORM_NONE, LLM_BPE_IGNORE_MERGES, NULL },
    { "llama-bpe", 0, &llm__cv_tok_regex_llama3, LLM_NORM_NONE, LLM_BPE_IGNORE_MERGES, NULL },
    { "falcon3", 0, &llm__cv_tok_regex_llama3, LLM_NORM_NONE, LLM_BPE_IGNORE_MERGES, NULL },
    { "midm-2.0", 0, &llm__cv_tok_regex_llama3, LLM_NORM_NONE, LLM_BPE_IGNORE_MERGES, NULL },
    /* Llama 3's regex with the merges always applied: Smaug-Llama-3, and cl100k's (DBRX) */
    { "smaug-bpe", 0, &llm__cv_tok_regex_llama3, LLM_NORM_NONE, 0, NULL },
    { "dbrx", 0, &llm__cv_tok_regex_llama3, LLM_NORM_NONE, 0, NULL },
    { "gpt-4o", 0, &llm__gguf_regex_o200k, LLM_NORM_NONE, LLM_BPE_IGNORE_MERGES, NULL }, /* o200k: gpt-oss, Phi-4-mini */
    { "tekken", 0, &llm__gguf_regex_tekken, LLM_NORM_NONE, LLM_BPE_IGNORE_MERGES, NULL },
    { "smollm", 1, &llm__cv_tok_regex_gpt2, LLM_NORM_NONE, 0, NULL },    /* SmolLM, SmolLM2 */
    { "starcoder", 1, &llm__cv_tok_regex_gpt2, LLM_NORM_NONE, 0, NULL }, /* StarCoder 2 */
    { "refact", 1, &llm__cv_tok_regex_gpt2, LLM_NORM_NONE, 0, NULL },    /* Granite 3 */
    { "command-r", 1, &llm__cv_tok_regex_gpt2, LLM_NORM_NFC, 0, NULL },
    { "deepseek-llm", 0, &llm__gguf_regex_deepseek_llm[0], LLM_NORM_NONE, 0, &llm__gguf_regex_deepseek_llm[1] },
    { "deepseek-coder", 0, &llm__gguf_regex_deepseek_coder[0], LLM_NORM_NONE, 0, &llm__gguf_regex_deepseek_coder[1] },
};

/* An array entry of the expected element type and count (n < 2^24). */
static const llm__gguf_kv *llm__gguf_array(llm__cv *cv, const llm__gguf_file *gf, const char *key, uint32_t elem, int required) {
    const llm__gguf_kv *kv = llm__gguf_find(&gf->g, key);
    if (!kv) { if (required) llm__cv_fail(cv, "%s: no %s", gf->path, key); return NULL; }
    if (kv->type != LLM__GGUF_ARRAY || kv->elem != elem || kv->n >= (1u << 24)) { llm__cv_fail(cv, "%s: %s is not an array of the expected type", gf->path, key); return NULL; }
    return kv;
}

static int llm__gguf_bool(const llm__gguf *g, const char *key, int dflt) {
    const llm__gguf_kv *kv = llm__gguf_find(g, key);
    uint64_t v;
    return kv && llm__gguf_kv_uint(g, kv, &v) == 0 ? v != 0 : dflt;
}

/* Token i's text as stored in the .llm: byte-level vocabularies as the bytes their strings
   stand for, added tokens and SentencePiece pieces as their text; flags as HF would set them. */
static int llm__gguf_tok_entry(llm__cv_tok_data *td, int byte_level, int32_t type, const char *s, size_t n, uint8_t *out, size_t *out_n) {
    uint8_t f = 0;
    int mapped;
    *out_n = 0;
    switch (type) {
    case LLM__GGUF_TOK_UNUSED: if (byte_level) return 0; f = LLM_TF_MODEL; break; /* SentencePiece keeps unused pieces */
    case LLM__GGUF_TOK_CONTROL: case LLM__GGUF_TOK_UNKNOWN: f = (uint8_t)((byte_level ? 0 : LLM_TF_MODEL) | LLM_TF_ADDED | LLM_TF_SPECIAL); break;
    case LLM__GGUF_TOK_USER: f = (uint8_t)((byte_level ? 0 : LLM_TF_MODEL) | LLM_TF_ADDED); break;
    default: f = LLM_TF_MODEL; break;
    }
    if (byte_level && f == LLM_TF_MODEL) {
        *out_n = llm__cv_tok_byte_level_raw(s, n, out, &mapped);
        if (!mapped) f |= LLM_TF_BYTE_LEVEL_TEXT; /* never produced by BPE (LLM_TF_BYTE_LEVEL_TEXT) */
    } else {
        memcpy(out, s, n);
        *out_n = n;
    }
    if (f & LLM_TF_ADDED) td->n_added++;
    if (f & LLM_TF_MODEL) td->n_model++;
    return f;
}

/* SentencePiece vocabularies come without merges: HF's converter derives them from the
   pieces (SentencePieceExtractor): every split of a piece into two pieces is a merge, those
   of one piece ordered by the ids of its parts, all ordered by the piece's score, highest
   first, ties in id order. */
typedef struct llm__gguf_merge { int32_t a, b, c; float score; uint32_t seq; } llm__gguf_merge;

static int llm__gguf_merge_cmp(const void *x, const void *y) {
    const llm__gguf_merge *p = (const llm__gguf_merge *)x, *q = (const llm__gguf_merge *)y;
    if (p->score != q->score) return p->score > q->score ? -1 : 1;
    return (p->seq > q->seq) - (p->seq < q->seq);
}

static int llm__gguf_merge_part_cmp(const void *x, const void *y) {
    const llm__gguf_merge *p = (const llm__gguf_merge *)x, *q = (const llm__gguf_merge *)y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

static int llm__gguf_spm_merges(llm__cv *cv, llm__cv_tok_data *td, const llm__cv_tok_map *map, const float *scores) {
    llm__gguf_merge *m = NULL;
    size_t n = 0, cap = 0, i;
    int32_t id;
    for (id = 0; id < td->n; id++) {
        const char *s = (const char *)td->bytes + td->offsets[id];
        size_t len = (size_t)(td->offsets[id + 1] - td->offsets[id]), k, first = n;
        if (!(td->flags[id] & LLM_TF_MODEL)) continue;
        for (k = 1; k < len; k++) {
            int32_t a = llm__cv_tok_map_get(map, s, k), b = llm__cv_tok_map_get(map, s + k, len - k);
            if (a < 0 || b < 0) continue;
            if (n == cap) {
                llm__gguf_merge *grown = (llm__gguf_merge *)realloc(m, (cap = cap ? 2 * cap : 4096) * sizeof *m);
                if (!grown) { free(m); return llm__cv_oom(cv); }
                m = grown;
            }
            m[n].a = a; m[n].b = b; m[n].c = id; m[n].score = scores ? scores[id] : -(float)id;
            n++;
        }
        if (n > first) qsort(m + first, n - first, sizeof *m, llm__gguf_merge_part_cmp);
    }
    for (i = 0; i < n; i++) m[i].seq = (uint32_t)i;
    if (n) qsort(m, n, sizeof *m, llm__gguf_merge_cmp);
    if (!(td->merges = (int32_t *)malloc((n ? n : 1) * 3 * sizeof(int32_t)))) { free(m); return llm__cv_oom(cv); }
    for (i = 0; i < n; i++) { td->merges[3 * i] = m[i].a; td->merges[3 * i + 1] = m[i].b; td->merges[3 * i + 2] = m[i].c; }
    td->n_merges = n;
    free(m);
    return 0;
}

/* tokenizer.ggml.merges: "a b" in the vocabulary's own spelling. */
static int llm__gguf_bpe_merges(llm__cv *cv, const llm__gguf_file *gf, llm__cv_tok_data *td, const llm__cv_tok_map *map, const llm__gguf_kv *kv) {
    size_t pos = kv->val, i, cap = 0;
    char *buf = NULL;
    if (!(td->merges = (int32_t *)malloc(((size_t)kv->n ? (size_t)kv->n : 1) * 3 * sizeof(int32_t)))) return llm__cv_oom(cv);
    for (i = 0; i < (size_t)kv->n; i++) {
        size_t n, la;
        const char *s = llm__gguf_str_at(&gf->g, &pos, &n), *sp = (const char *)memchr(s, ' ', n);
        int32_t a, b, c;
        if (!sp) { free(buf); return llm__cv_fail(cv, "%s: merge %lu is not two tokens separated by a space", gf->path, (unsigned long)i); }
        la = (size_t)(sp - s);
        if (n > cap) { free(buf); if (!(buf = (char *)malloc(cap = 2 * n))) return llm__cv_oom(cv); }
        memcpy(buf, s, la);
        memcpy(buf + la, sp + 1, n - la - 1);
        a = llm__cv_tok_map_get(map, s, la);
        b = llm__cv_tok_map_get(map, sp + 1, n - la - 1);
        c = llm__cv_tok_map_get(map, buf, n - 1);
        if (a < 0 || b < 0 || c < 0) { free(buf); return llm__cv_fail(cv, "%s: merge %lu '%.*s': a token of it is not in the vocabulary", gf->path, (unsigned long)i, (int)(n > 80 ? 80 : n), s); }
        td->merges[3 * i] = a; td->merges[3 * i + 1] = b; td->merges[3 * i + 2] = c;
    }
    free(buf);
    td->n_merges = (size_t)kv->n;
    return 0;
}

/* How the text is cut and put back: SentencePiece's legacy spelling for "llama" (as HF's
   LlamaConverter writes it), the named pre-tokenizer for "gpt2". */
static int llm__gguf_tok_pipeline(llm__cv *cv, const llm__gguf_file *gf, llm__cv_tok_data *td, int byte_level) {
    size_t n, i, j;
    const char *pre = llm__gguf_kv_str(&gf->g, "tokenizer.ggml.pre", &n);
    if (!byte_level) {
        int prefix = llm__gguf_bool(&gf->g, "tokenizer.ggml.add_space_prefix", 1);
        if (pre && !(n == 7 && !memcmp(pre, "default", 7)) && !(n == 5 && !memcmp(pre, "llama", 5)))
            return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: tokenizer.ggml.pre '%.*s' is not known for a SentencePiece vocabulary", gf->path, (int)(n > 64 ? 64 : n), pre);
        td->normalizer = prefix ? LLM_NORM_SPM : LLM_NORM_SPM_REPLACE;
        td->bpe_opts = LLM_BPE_BYTE_FALLBACK | LLM_BPE_FUSE_UNK;
        td->decoder = LLM_DEC_SENTENCEPIECE;
        td->dec_byte_fallback = 1;
        td->dec_strip = prefix;
        return 0;
    }
    if (!pre) return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: a gpt2 vocabulary without tokenizer.ggml.pre (the split regex is unknown)", gf->path);
    for (i = 0; i < sizeof llm__gguf_pres / sizeof llm__gguf_pres[0]; i++)
        if (strlen(llm__gguf_pres[i].name) == n && !memcmp(llm__gguf_pres[i].name, pre, n)) {
            char *re = llm__cv_strdup(*llm__gguf_pres[i].regex);
            if (!re) return llm__cv_oom(cv);
            if (llm__gguf_pres[i].digits && llm__cv_tok_add_step(cv, td, LLM_PRE_DIGITS, NULL)) { free(re); return -1; }
            if (llm__cv_tok_add_split(cv, td, re, strlen(re), LLM_SPLIT_ISOLATED, NULL)) return -1;
            for (j = 0; llm__gguf_pres[i].then && llm__gguf_pres[i].then[j]; j++) {
                if (!(re = llm__cv_strdup(llm__gguf_pres[i].then[j]))) return llm__cv_oom(cv);
                if (llm__cv_tok_add_split(cv, td, re, strlen(re), LLM_SPLIT_ISOLATED, NULL)) return -1;
            }
            td->byte_level = 1;
            td->normalizer = llm__gguf_pres[i].normalizer;
            td->bpe_opts = llm__gguf_pres[i].bpe_opts;
            td->decoder = LLM_DEC_BYTE_LEVEL;
            return 0;
        }
    {
        char names[512];
        size_t k = 0;
        for (i = 0; i < sizeof llm__gguf_pres / sizeof llm__gguf_pres[0] && k < sizeof names; i++)
            k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", llm__gguf_pres[i].name);
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: tokenizer.ggml.pre '%.*s' is not supported (%s)", gf->path, (int)(n > 64 ? 64 : n), pre, names);
    }
}

/* The ids put around the text: add_bos_token (default: SentencePiece yes, gpt2 no) and
   add_eos_token. */
static int llm__gguf_tok_specials(llm__cv *cv, const llm__gguf_file *gf, llm__cv_tok_data *td, int byte_level) {
    int bos, eos;
    llm__gguf_token_id(&gf->g, "tokenizer.ggml.bos_token_id", &bos);
    llm__gguf_token_id(&gf->g, "tokenizer.ggml.eos_token_id", &eos);
    llm__gguf_token_id(&gf->g, "tokenizer.ggml.unk_token_id", &td->unk_id);
    if (td->unk_id >= td->n) return llm__cv_fail(cv, "%s: unk_token_id %d is not a token", gf->path, td->unk_id);
    if (llm__gguf_bool(&gf->g, "tokenizer.ggml.add_bos_token", !byte_level) && bos >= 0) td->prefix[td->n_prefix++] = bos;
    if (llm__gguf_bool(&gf->g, "tokenizer.ggml.add_eos_token", 0) && eos >= 0) td->suffix[td->n_suffix++] = eos;
    if ((td->n_prefix && (bos >= td->n || !td->flags[bos])) || (td->n_suffix && (eos >= td->n || !td->flags[eos])))
        return llm__cv_fail(cv, "%s: the bos or eos id is not a token", gf->path);
    return 0;
}

/* 1: the file has no tokenizer; 0: td filled; -1: error. */
static int llm__gguf_tok_read(llm__cv *cv, const llm__gguf_file *gf, llm__cv_tok_data *td) {
    const llm__gguf *g = &gf->g;
    const llm__gguf_kv *tok, *types, *scores_kv, *merges;
    size_t n, pos, i, total = 0;
    const char *model = llm__gguf_kv_str(g, "tokenizer.ggml.model", &n);
    float *scores = NULL;
    llm__cv_tok_map map;
    int byte_level, rc = -1;
    memset(td, 0, sizeof *td);
    memset(&map, 0, sizeof map);
    td->unk_id = -1;
    if (!model) { llm__cv_log(cv, "warning: %s has no tokenizer.ggml.model; the model file gets no tokenizer", gf->path); return 1; }
    if (!(n == 5 && !memcmp(model, "llama", 5)) && !(n == 4 && !memcmp(model, "gpt2", 4)))
        return llm__cv_fail_as(cv, LLM_ERR_UNSUPPORTED, "%s: tokenizer model '%.*s' is not supported (llama, gpt2)", gf->path, (int)(n > 64 ? 64 : n), model);
    byte_level = n == 4;
    if (!(tok = llm__gguf_array(cv, gf, "tokenizer.ggml.tokens", LLM__GGUF_STRING, 1))) return -1;
    types = llm__gguf_array(cv, gf, "tokenizer.ggml.token_type", LLM__GGUF_I32, 0);
    if (!types && llm__gguf_find(g, "tokenizer.ggml.token_type")) return -1;
    if ((types && types->n != tok->n) || tok->n == 0) return llm__cv_fail(cv, "%s: %llu tokens but %llu token types", gf->path, (unsigned long long)tok->n, (unsigned long long)(types ? types->n : 0));
    td->n = (int32_t)tok->n;
    for (i = 0, pos = tok->val; i < (size_t)tok->n; i++) { llm__gguf_str_at(g, &pos, &n); total += n; }
    td->offsets = (int32_t *)malloc(((size_t)td->n + 1) * sizeof(int32_t));
    td->flags = (uint8_t *)calloc((size_t)td->n, 1);
    td->bytes = (uint8_t *)malloc(total ? total : 1);
    if (!td->offsets || !td->flags || !td->bytes || total > 0x7FFFFFFF || llm__cv_tok_map_init(cv, &map, (size_t)td->n)) { llm__cv_oom(cv); goto done; }
    for (i = 0, pos = tok->val; i < (size_t)tok->n; i++) {
        const char *s = llm__gguf_str_at(g, &pos, &n);
        int32_t type = types ? (int32_t)(uint32_t)llm__gguf_le(g->buf + types->val + 4 * i, 4) : LLM__GGUF_TOK_NORMAL;
        size_t m, slot;
        td->offsets[i] = (int32_t)td->n_bytes;
        td->flags[i] = (uint8_t)llm__gguf_tok_entry(td, byte_level, type, s, n, td->bytes + td->n_bytes, &m);
        td->n_bytes += m;
        /* merges name tokens by their spelling in the file */
        slot = llm__cv_tok_map_slot(&map, s, n);
        if ((td->flags[i] & LLM_TF_MODEL) && !map.key[slot]) { map.key[slot] = s; map.len[slot] = n; map.id[slot] = (int32_t)i; }
    }
    td->offsets[td->n] = (int32_t)td->n_bytes;
    if (llm__gguf_tok_pipeline(cv, gf, td, byte_level)) goto done;
    if (byte_level) {
        if (!(merges = llm__gguf_array(cv, gf, "tokenizer.ggml.merges", LLM__GGUF_STRING, 1)) || llm__gguf_bpe_merges(cv, gf, td, &map, merges)) goto done;
    } else {
        if ((scores_kv = llm__gguf_array(cv, gf, "tokenizer.ggml.scores", LLM__GGUF_F32, 0)) != NULL) {
            if (scores_kv->n != tok->n) { llm__cv_fail(cv, "%s: %llu scores for %d tokens", gf->path, (unsigned long long)scores_kv->n, td->n); goto done; }
            if (!(scores = (float *)malloc((size_t)td->n * sizeof(float)))) { llm__cv_oom(cv); goto done; }
            /* a NaN score would make the merge order no order at all (qsort needs one) */
            for (i = 0; i < (size_t)td->n; i++) {
                scores[i] = llm__gguf_f32_at(g->buf + scores_kv->val + 4 * i);
                if (scores[i] != scores[i]) scores[i] = -FLT_MAX;
            }
        } else if (llm__gguf_find(g, "tokenizer.ggml.scores")) goto done;
        if (llm__gguf_spm_merges(cv, td, &map, scores)) goto done;
    }
    rc = llm__gguf_tok_specials(cv, gf, td, byte_level);
done:
    free(scores);
    llm__cv_tok_map_free(&map);
    if (rc) llm__cv_tok_data_free(td);
    return rc;
}

/* ---- gguf: the conversion ------------------------------------------------------------- */
/* tokenizer.chat_template, stored as the converter stores a template from
   tokenizer_config.json, with the texts of the bos and eos tokens. */
static int llm__gguf_chat(llm__cv *cv, llm_builder *b, const llm__gguf_file *gf, const llm__cv_tok_data *td) {
    size_t n;
    const char *t = llm__gguf_kv_str(&gf->g, "tokenizer.chat_template", &n);
    char *tmpl = NULL, *tok[2] = { NULL, NULL };
    const char *keys[2] = { "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id" };
    llm__cv_chat_info ci;
    int i, id, rc;
    if (t) {
        if (memchr(t, 0, n)) return llm__cv_fail(cv, "%s: tokenizer.chat_template holds a NUL byte", gf->path);
        if (!(tmpl = (char *)malloc(n + 1))) return llm__cv_oom(cv);
        memcpy(tmpl, t, n);
        tmpl[n] = 0;
    }
    for (i = 0; i < 2 && td; i++)
        if (llm__gguf_token_id(&gf->g, keys[i], &id) >= 0 && id < td->n) {
            size_t len = (size_t)(td->offsets[id + 1] - td->offsets[id]);
            if ((tok[i] = (char *)malloc(len + 1)) != NULL) { memcpy(tok[i], td->bytes + td->offsets[id], len); tok[i][len] = 0; }
        }
    rc = llm__cv_chat_set_meta(b, tmpl, tok[0], tok[1], &ci);
    llm__cv_chat_report(cv, rc, tmpl, &ci);
    llm__cv_chat_info_free(&ci);
    free(tmpl);
    free(tok[0]);
    free(tok[1]);
    return rc;
}

/* One line per GGUF tensor type: how many tensors and what they became; and, where
   quantized blocks became f32, how to keep the file small instead. */
static void llm__gguf_describe_types(llm__cv *cv, const llm__gguf_plan *pl) {
    size_t k;
    int i, d, widened = 0;
    for (i = 0; i < pl->p.n; i++)
        widened += pl->p.dst[i] == LLM_DTYPE_F32 && llm__gguf_type_of(pl->gt[i]->type)->blck > 1;
    for (k = 0; k < sizeof llm__gguf_types / sizeof llm__gguf_types[0]; k++)
        for (d = 0; d < LLM_DTYPE_COUNT; d++) {
            int count = 0;
            for (i = 0; i < pl->p.n; i++) count += pl->gt[i]->type == llm__gguf_types[k].id && pl->p.dst[i] == (llm_dtype)d;
            if (!count) continue;
            llm__cv_log(cv, "GGUF %-6s %3d tensor%s -> %s (%s)", llm__gguf_types[k].name, count, count == 1 ? " " : "s", llm_dtype_name((llm_dtype)d),
                        (uint32_t)llm__gguf_src_dtype(llm__gguf_types[k].id) == (uint32_t)d && (d != LLM_DTYPE_F32 || llm__gguf_types[k].id == LLM__GT_F32) ? "kept exactly"
                        : llm__gguf_recodes(llm__gguf_types[k].id, (llm_dtype)d) ? "re-encoded exactly"
                        : d == LLM_DTYPE_F32 ? "dequantized exactly" : "converted");
        }
    if (widened)
        llm__cv_log(cv, "note: %d quantized tensor%s became f32 (32 bits a weight); --dtype q8_0, q6_k or q4_k_m "
                    "stores every matrix quantized instead, from the exact values", widened, widened == 1 ? "" : "s");
}

static int llm__gguf_write(llm__cv *cv, const char *out_path, const llm__gguf_file *gf, const llm__gguf_plan *pl, const llm__cv_hparams *h,
                           const llm__cv_tok_data *td, int vocab_only, uint64_t *out_bytes) {
    llm_builder *b = NULL;
    FILE *out = NULL;
    const void *hdr;
    size_t hdr_size, idx;
    uint8_t *buf = NULL;
    int i, rc = -1;
    uint64_t pos;
    llm_convert_progress *pg = &cv->pg;
    if (llm_builder_create(&b) != LLM_OK) { llm__cv_oom(cv); goto done; }
    if ((vocab_only ? llm__cv_put_vocab_only(cv, b, h, td->n) : llm__cv_set_hparams(cv, b, h)) ||
        (td && llm__cv_tok_write(cv, b, td)) || llm__gguf_chat(cv, b, gf, td))
        goto done;
    for (i = 0; i < pl->p.n; i++)
        if (llm_builder_add_tensor(b, pl->p.src[i]->name, pl->p.dst[i], pl->p.src[i]->n_dims, pl->p.src[i]->shape, &idx) != LLM_OK)
            { llm__cv_fail(cv, "cannot add tensor '%s'", pl->p.src[i]->name); goto done; }
    if (llm_builder_header(b, &hdr, &hdr_size) != LLM_OK) { llm__cv_fail(cv, "cannot lay out the file"); goto done; }
    pg->n_total = pl->p.n;
    for (i = 0; i < pl->p.n; i++) pg->bytes_total += llm_builder_tensor_size(b, (size_t)i);
    if (!(out = llm__cv_create_temp(cv, out_path))) goto done;
    if (fwrite(hdr, 1, hdr_size, out) != hdr_size) { llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", cv->tmp, strerror(errno)); goto done; }
    pos = hdr_size;
    for (i = 0; i < pl->p.n; i++) {
        const llm__cv_src_tensor *st = pl->p.src[i];
        uint64_t off = llm_builder_tensor_offset(b, (size_t)i), size = llm_builder_tensor_size(b, (size_t)i);
        free(buf);
        if (!(buf = (uint8_t *)malloc((size_t)size ? (size_t)size : 1))) { llm__cv_fail_as(cv, LLM_ERR_OUT_OF_MEMORY, "out of memory for tensor '%s'", st->name); goto done; }
        if (llm__gguf_convert_tensor(cv, gf, pl->gt[i], st, h, pl->p.dst[i], buf)) goto done;
        if (llm__cv_put_tensor(cv, out, &pos, off, buf, size, st->name, st->dtype, st->n_dims, st->shape, pl->p.dst[i])) goto done;
    }
    if (llm__cv_write_zeros(out, llm_builder_file_size(b) - pos) || fflush(out) != 0 || ferror(out))
        { llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", cv->tmp, strerror(errno)); goto done; }
    *out_bytes = llm_builder_file_size(b);
    rc = 0;
done:
    if (out && fclose(out) != 0 && rc == 0) rc = llm__cv_fail_as(cv, LLM_ERR_IO, "%s: write failed (%s)", cv->tmp, strerror(errno));
    free(buf);
    llm_builder_destroy(b);
    return rc;
}

/* llm_convert for a GGUF file: the same steps as for a HuggingFace directory. */
static llm_result llm__gguf_run(llm__cv *cv, const char *path, const char *out) {
    llm__gguf_file gf;
    llm__cv_hparams h;
    llm__cv_tok_data td;
    llm__gguf_plan *pl = NULL;
    uint64_t bytes = 0;
    int no_tokenizer = 1, written, vocab_only = cv->desc->vocab_only;
    memset(&h, 0, sizeof h);
    memset(&td, 0, sizeof td);
    memset(&gf, 0, sizeof gf);
    if (llm__cv_check_target(cv, out)) goto done;
    llm__cv_log(cv, "reading %s", path);
    h.bos_id = -1;
    if (llm__gguf_open(cv, &gf, path)) goto done;
    /* --vocab-only, or a file without tensors (convert_hf_to_gguf.py --vocab-only): the
       tokenizer, its ids and the chat template, whatever the architecture */
    if (!vocab_only && gf.g.n_tensors == 0) {
        llm__cv_log(cv, "%s has no tensors: writing its tokenizer alone (--vocab-only)", path);
        vocab_only = 1;
    }
    if (vocab_only) llm__gguf_read_ids(&gf.g, &h);
    else if (llm__gguf_read_arch(cv, &gf) || llm__gguf_read_hparams(cv, &gf, &h)) goto done;
    if ((no_tokenizer = llm__gguf_tok_read(cv, &gf, &td)) < 0) goto done;
    if (no_tokenizer && vocab_only) { llm__cv_fail(cv, "--vocab-only needs a tokenizer in %s (tokenizer.ggml.*)", path); goto done; }
    if (!no_tokenizer) {
        llm__cv_tok_describe(cv, &td);
        if (!vocab_only && llm__cv_tok_check_vocab_size(cv, &td, h.n_vocab)) goto done;
    }
    if (!(pl = (llm__gguf_plan *)calloc(1, sizeof *pl))) { llm__cv_oom(cv); goto done; }
    if (!vocab_only && llm__gguf_plan_tensors(cv, &gf, &h, pl)) goto done;
    if (!vocab_only) llm__gguf_describe_types(cv, pl);
    written = !llm__gguf_write(cv, out, &gf, pl, &h, no_tokenizer ? NULL : &td, vocab_only, &bytes);
    llm__cv_put_in_place(cv, written, out, vocab_only, bytes);
done:
    llm__cv_tok_data_free(&td);
    if (pl) llm__gguf_plan_free(pl);
    free(pl);
    llm__cv_hparams_free(&h);
    llm__gguf_close(&gf);
    return cv->rc;
}

#endif /* LLM_CONVERT_IMPLEMENTATION && !LLM_GGUF_CONVERT_DONE */
