/* convert: a HuggingFace model directory -> one .llm file.

   build/convert MODEL_DIR OUT.llm [--dtype f32|f16|bf16|q8_0|q4_0] [--quant-reference] [--vocab-only]

   Reads config.json, generation_config.json, model.safetensors (or the shards named by
   model.safetensors.index.json) and tokenizer.json (tools/convert_tokenizer.h). Every
   number comes from those files; what the library cannot run is refused here with a
   message that names the field. --vocab-only writes the tokenizer (and the token ids of
   config.json / generation_config.json when present) without tensors: such a file opens
   with llm_model_desc.vocab_only, for tokenizing only. The file is written through llm.h's
   builder to a new temporary beside OUT (OUT.tmp.PID.N, created exclusively: a file or link
   planted there is never written through), opened and validated with llm.h, then renamed
   over OUT, so a failed or interrupted (SIGINT, SIGTERM) run leaves no partial file. An OUT
   that exists and is not a regular file (a device, a directory) is refused before any work.

   Output: progress on stderr (a bar of tensors and bytes done with MB/s when stderr is a
   terminal, else one line per tensor), warnings and errors on stderr (exit status 1; 2 for
   bad arguments); on stdout what was written: the tokenizer and chat template found, then a
   summary (architecture, parameters, dtype mix, file size, time). */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define JSON_IMPLEMENTATION
#include "json.h"
#include "convert_chat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#if defined(_WIN32)
#include <io.h>
#include <process.h>
#define isatty _isatty
#define fileno _fileno
#define unlink _unlink
#define getpid _getpid
#else
#include <unistd.h>
#endif
#if !defined(S_ISREG)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)
#endif

static char g_err[1024];

static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return -1;
}

static void path_join(char *out, size_t n, const char *dir, const char *file) {
    snprintf(out, n, "%s/%s", dir, file);
}

/* rename() that replaces an existing file on Windows too (where rename refuses to). */
static int replace_file(const char *from, const char *to) {
#if defined(_WIN32)
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING)) return 0;
    errno = EEXIST;
    return -1;
#else
    return rename(from, to);
#endif
}

/* Present, though perhaps unreadable: opening it then says why. */
static int file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL || errno != ENOENT;
}

/* A JSON file the converter reads: an object whose strings hold no U+0000 (they are used
   as C strings: a "model_type" of "llama\u0000evil" must not pass for "llama"). */
static int read_json_object(const char *path, json_value **out) {
    char err[1024];
    if (!(*out = json_parse_file_ex(path, JSON_NO_NUL, err, sizeof err))) return fail("%s", err);
    if ((*out)->type == JSON_OBJECT) return 0;
    fail("%s: not a JSON object (found %s)", path, json_type_name((*out)->type));
    json_free(*out);
    *out = NULL;
    return -1;
}

#include "convert_tokenizer.h"

/* ---- config.json ---------------------------------------------------------------------- */
typedef struct hparams {
    llm_arch arch;
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, n_ctx_train;
    double rms_eps, rope_theta;
    int rope_scaling, rope_orig;
    double rope_factor, rope_low, rope_high;
    int tied, qk_norm, attn_bias_qkv, attn_bias_o;
    int bos_id, n_eos, eos[LLM_MAX_STOP_IDS];
    int *window; /* per layer */
} hparams;

static int cfg_int(const json_value *cfg, const char *key, int required, int dflt, int *out) {
    const json_value *v = json_get(cfg, key);
    if (!v || v->type == JSON_NULL) {
        if (required) return fail("config.json: missing '%s'", key);
        *out = dflt;
        return 0;
    }
    if (v->type != JSON_NUMBER) return fail("config.json: '%s' must be an integer, found %s", key, json_type_name(v->type));
    if (v->number != floor(v->number)) return fail("config.json: '%s' must be an integer, found %.17g", key, v->number);
    if (v->number < -2147483647.0 || v->number > 2147483647.0)
        return fail("config.json: '%s' is out of range: %.17g (at most 2147483647)", key, v->number);
    *out = (int)v->number;
    return 0;
}

static int cfg_num(const json_value *cfg, const char *key, double dflt, double *out) {
    const json_value *v = json_get(cfg, key);
    if (!v || v->type == JSON_NULL) { *out = dflt; return 0; }
    if (v->type != JSON_NUMBER) return fail("config.json: '%s' must be a number, found %s", key, json_type_name(v->type));
    *out = v->number;
    return 0;
}

static int cfg_bool(const json_value *cfg, const char *key, int dflt, int *out) {
    const json_value *v = json_get(cfg, key);
    if (!v || v->type == JSON_NULL) { *out = dflt; return 0; }
    if (v->type != JSON_TRUE && v->type != JSON_FALSE) return fail("config.json: '%s' must be true or false", key);
    *out = v->type == JSON_TRUE;
    return 0;
}

static int cfg_str_is(const json_value *v, const char *s) {
    return v && v->type == JSON_STRING && strcmp(v->str, s) == 0;
}

static int read_arch(const json_value *cfg, hparams *h) {
    static const struct { const char *model_type; llm_arch arch; int default_ctx; } archs[] = {
        { "llama", LLM_ARCH_LLAMA, 2048 }, { "mistral", LLM_ARCH_MISTRAL, 4096 * 32 },
        { "qwen2", LLM_ARCH_QWEN2, 32768 }, { "qwen3", LLM_ARCH_QWEN3, 32768 },
    };
    const json_value *mt = json_get(cfg, "model_type");
    size_t i;
    if (!mt || mt->type != JSON_STRING) return fail("config.json: missing 'model_type'");
    for (i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcmp(mt->str, archs[i].model_type) == 0) {
            h->arch = archs[i].arch;
            h->n_ctx_train = archs[i].default_ctx; /* the transformers config class default */
            return 0;
        }
    return fail("config.json: model_type '%s' is not supported (supported: llama, mistral, qwen2, qwen3)", mt->str);
}

static int read_rope_scaling(const json_value *cfg, hparams *h) {
    const json_value *rs = json_get(cfg, "rope_scaling"), *type;
    h->rope_scaling = LLM_ROPE_NONE;
    h->rope_factor = 1.0; h->rope_low = 1.0; h->rope_high = 4.0; h->rope_orig = 0;
    /* transformers 5 writes theta and the scaling rule together as rope_parameters. */
    if (!rs || rs->type == JSON_NULL) {
        rs = json_get(cfg, "rope_parameters");
        if (rs && rs->type == JSON_OBJECT && json_get(rs, "rope_theta") && cfg_num(rs, "rope_theta", 0.0, &h->rope_theta)) return -1;
    }
    if (!rs || rs->type == JSON_NULL) return 0;
    if (rs->type != JSON_OBJECT) return fail("config.json: 'rope_scaling' must be an object or null");
    type = json_get(rs, "rope_type");
    if (!type) type = json_get(rs, "type");
    if (!type || type->type != JSON_STRING) return fail("config.json: rope_scaling has no 'rope_type'");
    if (strcmp(type->str, "default") == 0) return 0;
    if (cfg_num(rs, "factor", 0.0, &h->rope_factor)) return -1;
    if (!(h->rope_factor > 0.0)) return fail("config.json: rope_scaling.factor must be > 0");
    if (strcmp(type->str, "linear") == 0) { h->rope_scaling = LLM_ROPE_LINEAR; return 0; }
    if (strcmp(type->str, "llama3") == 0) {
        h->rope_scaling = LLM_ROPE_LLAMA3;
        if (cfg_num(rs, "low_freq_factor", 1.0, &h->rope_low) || cfg_num(rs, "high_freq_factor", 4.0, &h->rope_high) ||
            cfg_int(rs, "original_max_position_embeddings", 1, 0, &h->rope_orig))
            return -1;
        return 0;
    }
    return fail("config.json: rope_scaling.rope_type '%s' is not supported (supported: linear, llama3)", type->str);
}

/* Sliding windows per layer, following each family's config class in transformers. */
static int read_windows(const json_value *cfg, hparams *h) {
    const json_value *sw = json_get(cfg, "sliding_window"), *types = json_get(cfg, "layer_types");
    int window = 0, use = 1, max_window_layers = 0, i;
    h->window = (int *)calloc((size_t)h->n_layer, sizeof(int));
    if (!h->window) return fail("out of memory");
    if (!sw && h->arch != LLM_ARCH_LLAMA) window = 4096; /* the config classes' default; null means none */
    if (sw && sw->type != JSON_NULL) {
        if (!json_is_int(sw) || sw->number < 0 || sw->number > 2147483647.0) return fail("config.json: 'sliding_window' must be an integer or null");
        window = (int)sw->number;
    }
    if (h->arch == LLM_ARCH_QWEN2 || h->arch == LLM_ARCH_QWEN3) {
        if (cfg_bool(cfg, "use_sliding_window", 0, &use) || cfg_int(cfg, "max_window_layers", 0, 28, &max_window_layers)) return -1;
    } else if (h->arch == LLM_ARCH_LLAMA) {
        use = 0;
    }
    if (types && types->type != JSON_NULL) {
        if (types->type != JSON_ARRAY || types->len != (size_t)h->n_layer) return fail("config.json: 'layer_types' must list one type per layer");
        for (i = 0; i < h->n_layer; i++) {
            if (cfg_str_is(&types->items[i], "sliding_attention")) h->window[i] = use ? window : 0;
            else if (!cfg_str_is(&types->items[i], "full_attention"))
                return fail("config.json: layer_types[%d] is not 'full_attention' or 'sliding_attention'", i);
        }
        return 0;
    }
    if (!use || window == 0) return 0;
    for (i = 0; i < h->n_layer; i++)
        h->window[i] = (h->arch == LLM_ARCH_MISTRAL || i >= max_window_layers) ? window : 0;
    return 0;
}

/* A token id: an integer in [0, 2^31). v is FILE's KEY (KEY[index] when index >= 0). */
static int read_id(const json_value *v, const char *file, const char *key, int index, int *out) {
    char name[64];
    if (index >= 0) snprintf(name, sizeof name, "%s[%d]", key, index);
    else snprintf(name, sizeof name, "%s", key);
    if (v->type != JSON_NUMBER) return fail("%s: '%s' must be a token id (an integer >= 0), found %s", file, name, json_type_name(v->type));
    if (!(v->number >= 0 && v->number <= 2147483647.0) || v->number != floor(v->number))
        return fail("%s: '%s' must be a token id (an integer in [0, 2147483647]), found %.17g", file, name, v->number);
    *out = (int)v->number;
    return 0;
}

/* bos and eos ids: generation_config.json's when it names them, else config.json's. */
static int read_token_ids(const json_value *gen, const json_value *cfg, hparams *h) {
    const json_value *eos = json_get(gen, "eos_token_id"), *bos = json_get(gen, "bos_token_id");
    const char *eos_file = "generation_config.json", *bos_file = eos_file;
    size_t i;
    if (!eos || eos->type == JSON_NULL) { eos = json_get(cfg, "eos_token_id"); eos_file = "config.json"; }
    if (!bos || bos->type == JSON_NULL) { bos = json_get(cfg, "bos_token_id"); bos_file = "config.json"; }
    h->bos_id = -1;
    h->n_eos = 0;
    if (bos && bos->type != JSON_NULL && read_id(bos, bos_file, "bos_token_id", -1, &h->bos_id)) return -1;
    if (!eos || eos->type == JSON_NULL) return 0;
    if (eos->type != JSON_ARRAY) return read_id(eos, eos_file, "eos_token_id", -1, &h->eos[h->n_eos++]);
    for (i = 0; i < eos->len; i++) {
        if (h->n_eos == LLM_MAX_STOP_IDS) return fail("%s: more than %d eos_token_id values", eos_file, LLM_MAX_STOP_IDS);
        if (read_id(&eos->items[i], eos_file, "eos_token_id", (int)i, &h->eos[h->n_eos++])) return -1;
    }
    return 0;
}

/* config.json (and generation_config.json, which may be NULL) -> hparams. */
static int hparams_from_json(const json_value *cfg, const json_value *gen, hparams *h) {
    const json_value *act;
    int mlp_bias = 0, attn_bias = 0;
    memset(h, 0, sizeof *h);
    if (cfg->type != JSON_OBJECT) return fail("config.json: not a JSON object (found %s), so it has no 'model_type'", json_type_name(cfg->type));
    if (read_arch(cfg, h)) return -1;
    act = json_get(cfg, "hidden_act");
    if (act && !cfg_str_is(act, "silu"))
        return fail("config.json: hidden_act '%s' is not supported (only silu)", act->type == JSON_STRING ? act->str : "?");
    if (cfg_int(cfg, "vocab_size", 1, 0, &h->n_vocab) || cfg_int(cfg, "hidden_size", 1, 0, &h->n_embd) ||
        cfg_int(cfg, "intermediate_size", 1, 0, &h->n_ff) || cfg_int(cfg, "num_hidden_layers", 1, 0, &h->n_layer) ||
        cfg_int(cfg, "num_attention_heads", 1, 0, &h->n_head) ||
        cfg_int(cfg, "num_key_value_heads", 0, h->n_head, &h->n_head_kv) ||
        cfg_int(cfg, "max_position_embeddings", 0, h->n_ctx_train, &h->n_ctx_train) ||
        cfg_num(cfg, "rms_norm_eps", 1e-6, &h->rms_eps) || cfg_num(cfg, "rope_theta", 10000.0, &h->rope_theta) ||
        cfg_bool(cfg, "tie_word_embeddings", 0, &h->tied) || cfg_bool(cfg, "mlp_bias", 0, &mlp_bias) ||
        cfg_bool(cfg, "attention_bias", 0, &attn_bias))
        return -1;
    if (h->n_head <= 0 || h->n_layer <= 0 || h->n_layer > LLM_MAX_LAYERS) return fail("config.json: num_attention_heads/num_hidden_layers out of range");
    /* Qwen3Config defaults head_dim to 128; the others derive it from hidden_size. */
    if (cfg_int(cfg, "head_dim", 0, h->arch == LLM_ARCH_QWEN3 ? 128 : h->n_embd / h->n_head, &h->head_dim)) return -1;
    if (mlp_bias) return fail("config.json: mlp_bias true is not supported");
    /* Which projections carry a bias, as each family's modeling code builds them: qwen2
       always on q/k/v, mistral never, llama and qwen3 on all four when attention_bias. */
    if (h->arch == LLM_ARCH_MISTRAL) attn_bias = 0;
    h->attn_bias_qkv = h->arch == LLM_ARCH_QWEN2 || attn_bias;
    h->attn_bias_o = h->arch != LLM_ARCH_QWEN2 && attn_bias;
    h->qk_norm = h->arch == LLM_ARCH_QWEN3;
    return read_rope_scaling(cfg, h) || read_windows(cfg, h) || read_token_ids(gen, cfg, h) ? -1 : 0;
}

static int read_hparams(const char *dir, hparams *h) {
    char path[4096], err[1024];
    json_value *cfg, *gen = NULL;
    int rc;
    memset(h, 0, sizeof *h);
    path_join(path, sizeof path, dir, "config.json");
    if (!(cfg = json_parse_file_ex(path, JSON_NO_NUL, err, sizeof err))) return fail("%s", err);
    path_join(path, sizeof path, dir, "generation_config.json");
    if (file_exists(path) && read_json_object(path, &gen)) { json_free(cfg); return -1; }
    rc = hparams_from_json(cfg, gen, h);
    json_free(cfg);
    json_free(gen);
    return rc;
}

/* ---- safetensors ---------------------------------------------------------------------- */
typedef struct src_tensor {
    char *name;
    llm_dtype dtype;
    int n_dims;
    int64_t shape[4];
    int file;           /* index into the shard list */
    uint64_t offset;    /* absolute, in the shard */
    uint64_t size;
} src_tensor;

typedef struct source {
    char **files;
    int n_files;
    char *index;        /* model.safetensors.index.json, when sharded */
    src_tensor *t;
    int n, cap;
} source;

static int parse_st_dtype(const char *s, llm_dtype *out) {
    if (strcmp(s, "F32") == 0) *out = LLM_DTYPE_F32;
    else if (strcmp(s, "F16") == 0) *out = LLM_DTYPE_F16;
    else if (strcmp(s, "BF16") == 0) *out = LLM_DTYPE_BF16;
    else return -1;
    return 0;
}

/* One tensor entry of a safetensors header: dtype, shape and data_offsets, which must lie
   inside the file (the data section starts at data_start). */
static int st_entry(source *src, int file_idx, const json_value *e, uint64_t data_start, uint64_t fsize) {
    const char *path = src->files[file_idx];
    const json_value *dt = json_get(e, "dtype"), *shape = json_get(e, "shape"), *offs = json_get(e, "data_offsets");
    src_tensor t;
    uint64_t b, en, count = 1;
    size_t d;
    memset(&t, 0, sizeof t);
    if (!dt || dt->type != JSON_STRING || !shape || shape->type != JSON_ARRAY || !offs || offs->type != JSON_ARRAY ||
        offs->len != 2 || !json_is_int(&offs->items[0]) || !json_is_int(&offs->items[1]) ||
        offs->items[0].number < 0 || offs->items[1].number < 0)
        return fail("%s: tensor '%s' has a malformed entry", path, e->key);
    if (parse_st_dtype(dt->str, &t.dtype)) return fail("%s: tensor '%s' has dtype %s (supported: F32, F16, BF16)", path, e->key, dt->str);
    if (shape->len > 4) return fail("%s: tensor '%s' has %d dimensions", path, e->key, (int)shape->len);
    t.n_dims = (int)shape->len;
    for (d = 0; d < shape->len; d++) {
        /* 4 dimensions of at most 2^40 elements each could still overflow the product */
        if (!json_is_int(&shape->items[d]) || shape->items[d].number < 1 || shape->items[d].number > 1e12 ||
            count > ((uint64_t)1 << 53) / (uint64_t)shape->items[d].number)
            return fail("%s: tensor '%s' has a bad shape", path, e->key);
        t.shape[d] = (int64_t)shape->items[d].number;
        count *= (uint64_t)t.shape[d];
    }
    b = (uint64_t)offs->items[0].number;
    en = (uint64_t)offs->items[1].number;
    if (en < b || en - b != count * (t.dtype == LLM_DTYPE_F32 ? 4 : 2) || data_start + en > fsize)
        return fail("%s: tensor '%s' data_offsets [%llu, %llu) do not match its shape or the file", path, e->key,
                    (unsigned long long)b, (unsigned long long)en);
    if (src->n == src->cap) {
        int cap = src->cap ? src->cap * 2 : 256;
        src_tensor *grown = (src_tensor *)realloc(src->t, (size_t)cap * sizeof *src->t);
        if (!grown) return fail("out of memory");
        src->t = grown;
        src->cap = cap;
    }
    if (!(t.name = strdup(e->key))) return fail("out of memory");
    t.file = file_idx;
    t.offset = data_start + b;
    t.size = en - b;
    src->t[src->n++] = t;
    return 0;
}

static int st_offset_cmp(const void *a, const void *b) {
    const src_tensor *x = *(const src_tensor *const *)a, *y = *(const src_tensor *const *)b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static int st_name_cmp(const void *a, const void *b) {
    return strcmp((*(const src_tensor *const *)a)->name, (*(const src_tensor *const *)b)->name);
}

/* Pointers to src->t[first..n), sorted by cmp; NULL (with the message set) when out of memory. */
static const src_tensor **sorted_tensors(const source *src, int first, int (*cmp)(const void *, const void *)) {
    const src_tensor **order = (const src_tensor **)malloc((size_t)(src->n - first + 1) * sizeof *order);
    int i;
    if (!order) { fail("out of memory"); return NULL; }
    for (i = first; i < src->n; i++) order[i - first] = &src->t[i];
    qsort(order, (size_t)(src->n - first), sizeof *order, cmp);
    return order;
}

/* Two tensors sharing bytes would alias each other's weights; the safetensors library
   refuses such a header. The tensors of the file are src->t[first..n). */
static int check_overlap(const source *src, int first, const char *path) {
    const src_tensor **order = sorted_tensors(src, first, st_offset_cmp);
    int i, rc = 0;
    if (!order) return -1;
    for (i = 1; i < src->n - first && rc == 0; i++)
        if (order[i - 1]->offset + order[i - 1]->size > order[i]->offset)
            rc = fail("%s: tensors '%s' and '%s' overlap", path, order[i - 1]->name, order[i]->name);
    free(order);
    return rc;
}

/* One name twice (in two shards: the JSON reader refuses it twice in one header) would
   give the model file two tensors of that name. */
static int check_unique_names(const source *src) {
    const src_tensor **order = sorted_tensors(src, 0, st_name_cmp);
    int i, rc = 0;
    if (!order) return -1;
    for (i = 1; i < src->n && rc == 0; i++)
        if (strcmp(order[i - 1]->name, order[i]->name) == 0)
            rc = fail("tensor '%s' is in both %s and %s", order[i]->name, src->files[order[i - 1]->file], src->files[order[i]->file]);
    free(order);
    return rc;
}

/* The JSON header (hlen bytes at hdr) of shard file_idx, a file of fsize bytes. */
static int parse_safetensors_header(source *src, int file_idx, const char *hdr, uint64_t hlen, uint64_t fsize) {
    char err[256];
    json_value *j = json_parse_ex(hdr, (size_t)hlen, JSON_NO_NUL, err, sizeof err);
    size_t i;
    int rc = 0, first = src->n;
    if (!j) return fail("%s: bad safetensors header JSON: %s", src->files[file_idx], err);
    if (j->type != JSON_OBJECT) rc = fail("%s: safetensors header is not an object", src->files[file_idx]);
    for (i = 0; rc == 0 && i < j->len; i++)
        if (strcmp(j->items[i].key, "__metadata__") != 0) rc = st_entry(src, file_idx, &j->items[i], 8 + hlen, fsize);
    json_free(j);
    return rc ? rc : check_overlap(src, first, src->files[file_idx]);
}

static int read_safetensors_header(source *src, int file_idx) {
    const char *path = src->files[file_idx];
    FILE *f = fopen(path, "rb");
    unsigned char lenb[8];
    uint64_t hlen, fsize;
    off_t end;
    char *hdr;
    int i, rc;
    if (!f) return fail("cannot open %s: %s", path, strerror(errno));
    if (fseeko(f, 0, SEEK_END) != 0 || (end = ftello(f)) < 0 || fseeko(f, 0, SEEK_SET) != 0) {
        fail("cannot read %s: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    fsize = (uint64_t)end;
    if (fread(lenb, 1, 8, f) != 8) {
        if (ferror(f)) fail("cannot read %s: %s", path, strerror(errno)); /* a directory: EISDIR */
        else fail("%s: too short for a safetensors file", path);
        fclose(f);
        return -1;
    }
    hlen = 0;
    for (i = 0; i < 8; i++) hlen |= (uint64_t)lenb[i] << (8 * i);
    if (hlen > fsize - 8 || hlen > (uint64_t)100 << 20) { fclose(f); return fail("%s: header length %llu is larger than the file", path, (unsigned long long)hlen); }
    hdr = (char *)malloc((size_t)hlen + 1);
    if (!hdr || fread(hdr, 1, (size_t)hlen, f) != (size_t)hlen) {
        if (!hdr) fail("%s: out of memory for the header", path);
        else if (ferror(f)) fail("cannot read %s: %s", path, strerror(errno));
        else fail("%s: shorter than its header length", path);
        free(hdr);
        fclose(f);
        return -1;
    }
    fclose(f);
    rc = parse_safetensors_header(src, file_idx, hdr, hlen, fsize);
    free(hdr);
    return rc;
}

static int open_source(const char *dir, source *src) {
    char path[4096];
    json_value *idx;
    const json_value *map;
    size_t i;
    int k;
    memset(src, 0, sizeof *src);
    path_join(path, sizeof path, dir, "model.safetensors");
    if (file_exists(path)) {
        if (!(src->files = (char **)malloc(sizeof(char *))) || !(src->files[0] = strdup(path))) return fail("out of memory");
        src->n_files = 1;
        return read_safetensors_header(src, 0);
    }
    path_join(path, sizeof path, dir, "model.safetensors.index.json");
    if (!file_exists(path)) return fail("%s: no model.safetensors or model.safetensors.index.json", dir);
    if (read_json_object(path, &idx)) return -1;
    if (!(src->index = strdup(path))) { json_free(idx); return fail("out of memory"); }
    map = json_get(idx, "weight_map");
    if (!map || map->type != JSON_OBJECT) { json_free(idx); return fail("%s: no 'weight_map' object", path); }
    if (!(src->files = (char **)calloc(map->len ? map->len : 1, sizeof(char *)))) { json_free(idx); return fail("out of memory"); }
    for (i = 0; i < map->len; i++) {
        const json_value *fv = &map->items[i];
        char shard[4096];
        if (fv->type != JSON_STRING || strchr(fv->str, '/')) { fail("%s: weight_map entry '%s' is not a file name", path, fv->key); json_free(idx); return -1; }
        path_join(shard, sizeof shard, dir, fv->str);
        for (k = 0; k < src->n_files; k++) if (strcmp(src->files[k], shard) == 0) break;
        if (k < src->n_files) continue;
        if (!file_exists(shard)) { fail("%s: names shard '%s', which is missing", path, fv->str); json_free(idx); return -1; }
        if (!(src->files[src->n_files] = strdup(shard))) { json_free(idx); return fail("out of memory"); }
        src->n_files++;
    }
    json_free(idx);
    for (k = 0; k < src->n_files; k++)
        if (read_safetensors_header(src, k)) return -1;
    return check_unique_names(src);
}

/* The file a message about the checkpoint names: the index of shards, or the one file. */
static const char *src_where(const source *src) {
    return src->index ? src->index : src->n_files ? src->files[0] : "the checkpoint";
}

static void free_source(source *src) {
    int i;
    for (i = 0; i < src->n; i++) free(src->t[i].name);
    for (i = 0; i < src->n_files; i++) free(src->files[i]);
    free(src->t);
    free(src->files);
    free(src->index);
}

static const src_tensor *find_src(const source *src, const char *name) {
    int i;
    for (i = 0; i < src->n; i++) if (strcmp(src->t[i].name, name) == 0) return &src->t[i];
    return NULL;
}

/* The tensor names the library reads; anything else in the checkpoint is refused. */
static int is_model_tensor(const char *name, const hparams *h) {
    static const char *const layer_suffixes[] = {
        "input_layernorm.weight", "post_attention_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
        "self_attn.v_proj.weight", "self_attn.o_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight",
        "mlp.down_proj.weight", "self_attn.q_proj.bias", "self_attn.k_proj.bias", "self_attn.v_proj.bias",
        "self_attn.o_proj.bias", "self_attn.q_norm.weight", "self_attn.k_norm.weight",
    };
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
    for (i = 0; i < sizeof layer_suffixes / sizeof layer_suffixes[0]; i++) {
        if (strcmp(rest, layer_suffixes[i]) != 0) continue;
        if (i >= 9 && i <= 11) return h->attn_bias_qkv;
        if (i == 12) return h->attn_bias_o;
        if (i >= 13) return h->qk_norm;
        return 1;
    }
    return 0;
}

/* Tensors HF checkpoints carry that the forward pass does not read. */
static int is_ignored_tensor(const char *name, const hparams *h) {
    return strstr(name, "rotary_emb.inv_freq") != NULL || (h->tied && strcmp(name, "lm_head.weight") == 0);
}

/* ---- progress and summary ------------------------------------------------------------- */
typedef struct progress {
    int tty;                      /* stderr is a terminal: a bar, else a line per tensor */
    int n_done, n_total;
    uint64_t bytes_done, bytes_total;
    double t0;
    int count[LLM_DTYPE_COUNT];   /* tensors and bytes written per type */
    uint64_t bytes[LLM_DTYPE_COUNT];
} progress;

static void progress_tensor(progress *pg, const src_tensor *t, llm_dtype dst, uint64_t size) {
    double dt = llm__seconds() - pg->t0;
    int d, width = 24, fill;
    pg->n_done++;
    pg->bytes_done += size;
    pg->count[dst]++;
    pg->bytes[dst] += size;
    if (!pg->tty) {
        fprintf(stderr, "  %-48s %-5s -> %-5s [%lld", t->name, llm_dtype_name(t->dtype), llm_dtype_name(dst), (long long)t->shape[0]);
        for (d = 1; d < t->n_dims; d++) fprintf(stderr, ", %lld", (long long)t->shape[d]);
        fprintf(stderr, "]\n");
        return;
    }
    fill = pg->bytes_total ? (int)((double)pg->bytes_done / (double)pg->bytes_total * width) : width;
    fprintf(stderr, "\rconvert: [%.*s%.*s] %d/%d tensors, %.1f/%.1f MB, %.0f MB/s ", fill, "########################",
            width - fill, "........................", pg->n_done, pg->n_total, (double)pg->bytes_done / 1e6,
            (double)pg->bytes_total / 1e6, dt > 0.0 ? (double)pg->bytes_done / 1e6 / dt : 0.0);
    if (pg->n_done == pg->n_total) fputc('\n', stderr);
    fflush(stderr);
}

static void print_summary(const char *out, const progress *pg, const llm_model_info *info, int vocab_only, uint64_t bytes) {
    double dt = llm__seconds() - pg->t0;
    int i, first = 1;
    printf("convert: wrote %s\n", out);
    if (vocab_only) {
        printf("  contents      tokenizer only\n");
    } else {
        printf("  architecture  %s: %d layers, hidden %d, heads %d (kv %d), head_dim %d, ffn %d, vocab %d, context %d\n",
               info->arch_name, info->n_layer, info->n_embd, info->n_head, info->n_head_kv, info->head_dim, info->n_ff,
               info->n_vocab, info->n_ctx_train);
        printf("  parameters    %lld (%.2fM)\n", (long long)info->n_params, (double)info->n_params / 1e6);
        printf("  dtypes       ");
        for (i = 0; i < LLM_DTYPE_COUNT; i++)
            if (pg->count[i]) {
                printf("%s %d %s %s (%.2f MB)", first ? "" : ",", pg->count[i], pg->count[i] == 1 ? "tensor" : "tensors",
                       llm_dtype_name((llm_dtype)i), (double)pg->bytes[i] / 1e6);
                first = 0;
            }
        printf("\n");
    }
    printf("  file size     %llu bytes (%.2f MB)\n", (unsigned long long)bytes, (double)bytes / 1e6);
    printf("  time          %.2f s (%.0f MB/s)\n", dt, dt > 0.0 ? (double)bytes / 1e6 / dt : 0.0);
}

/* ---- writing -------------------------------------------------------------------------- */
static int write_zeros(FILE *f, uint64_t n) {
    static const char z[4096] = { 0 };
    while (n) {
        size_t k = n < sizeof z ? (size_t)n : sizeof z;
        if (fwrite(z, 1, k, f) != k) return -1;
        n -= k;
    }
    return 0;
}

static float src_value(const src_tensor *t, const void *data, size_t i) {
    if (t->dtype == LLM_DTYPE_F32) { float v; memcpy(&v, (const char *)data + 4 * i, 4); return v; }
    {
        uint16_t h;
        memcpy(&h, (const char *)data + 2 * i, 2);
        return t->dtype == LLM_DTYPE_F16 ? llm_f16_to_f32(h) : llm_bf16_to_f32(h);
    }
}

/* Converts one tensor into out (dst dtype, the file layout); f32 to f32 is a plain copy
   (16-bit matrices are regrouped, docs/FORMAT.md). */
static int convert_values(const src_tensor *t, const void *data, llm_dtype dst, void *out, size_t count, int qflags) {
    size_t i;
    float *f;
    int64_t cols = t->shape[t->n_dims - 1];
    llm_result r;
    if (t->dtype == dst && dst == LLM_DTYPE_F32) { memcpy(out, data, (size_t)t->size); return 0; }
    if (!(f = (float *)malloc(count * sizeof(float)))) return fail("out of memory for tensor '%s'", t->name);
    for (i = 0; i < count; i++) f[i] = src_value(t, data, i);
    r = llm_quantize(dst, f, (int64_t)(count / (size_t)cols), cols, out, qflags);
    free(f);
    return r == LLM_OK ? 0 : fail("tensor '%s': cannot convert %s to %s", t->name, llm_dtype_name(t->dtype), llm_dtype_name(dst));
}

static int set_hparams(llm_builder *b, const hparams *h) {
    static const char *const names[] = { "llama", "mistral", "qwen2", "qwen3" };
    const char *arch = names[h->arch];
    int r = 0, i;
    r |= llm_builder_set_string(b, "general.architecture", arch, strlen(arch));
    r |= llm_builder_set_i32(b, "llm.vocab_size", h->n_vocab);
    r |= llm_builder_set_i32(b, "llm.hidden_size", h->n_embd);
    r |= llm_builder_set_i32(b, "llm.intermediate_size", h->n_ff);
    r |= llm_builder_set_i32(b, "llm.num_layers", h->n_layer);
    r |= llm_builder_set_i32(b, "llm.num_heads", h->n_head);
    r |= llm_builder_set_i32(b, "llm.num_kv_heads", h->n_head_kv);
    r |= llm_builder_set_i32(b, "llm.head_dim", h->head_dim);
    r |= llm_builder_set_i32(b, "llm.max_position_embeddings", h->n_ctx_train);
    r |= llm_builder_set_f64(b, "llm.rms_norm_eps", h->rms_eps);
    r |= llm_builder_set_f64(b, "llm.rope_theta", h->rope_theta);
    r |= llm_builder_set_i32(b, "llm.tie_word_embeddings", h->tied);
    r |= llm_builder_set_i32(b, "llm.qk_norm", h->qk_norm);
    r |= llm_builder_set_i32(b, "llm.rope_scaling", h->rope_scaling);
    if (h->rope_scaling != LLM_ROPE_NONE) {
        r |= llm_builder_set_f64(b, "llm.rope_factor", h->rope_factor);
        r |= llm_builder_set_f64(b, "llm.rope_low_freq_factor", h->rope_low);
        r |= llm_builder_set_f64(b, "llm.rope_high_freq_factor", h->rope_high);
        r |= llm_builder_set_i32(b, "llm.rope_original_max_position_embeddings", h->rope_orig);
    }
    for (i = 0; i < h->n_layer; i++)
        if (h->window[i]) break;
    if (i < h->n_layer) r |= llm_builder_set_i32_array(b, "llm.sliding_window", h->window, (size_t)h->n_layer);
    r |= llm_builder_set_i32(b, "llm.bos_token_id", h->bos_id);
    r |= llm_builder_set_i32_array(b, "llm.eos_token_ids", h->eos, (size_t)h->n_eos);
    return r ? fail("cannot build metadata (out of memory)") : 0;
}

static int parse_dtype_arg(const char *s, llm_dtype *out) {
    int i;
    for (i = 0; i < LLM_DTYPE_COUNT; i++)
        if (strcmp(s, llm_dtype_name((llm_dtype)i)) == 0) { *out = (llm_dtype)i; return 0; }
    return -1;
}

typedef struct plan {
    const src_tensor *src[8192];
    llm_dtype dst[8192];
    int n;
} plan;

/* Every tensor the config implies must be in the checkpoint (HF would initialise a missing
   one randomly; we refuse). */
static int check_complete(const source *src, const hparams *h) {
    static const char *const always[] = {
        "input_layernorm.weight", "post_attention_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
        "self_attn.v_proj.weight", "self_attn.o_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight",
    };
    char name[256];
    int l;
    size_t i;
    if (!find_src(src, "model.embed_tokens.weight")) return fail("%s: missing tensor 'model.embed_tokens.weight'", src_where(src));
    if (!find_src(src, "model.norm.weight")) return fail("%s: missing tensor 'model.norm.weight'", src_where(src));
    if (!h->tied && !find_src(src, "lm_head.weight")) return fail("%s: missing tensor 'lm_head.weight' (tie_word_embeddings is false)", src_where(src));
    for (l = 0; l < h->n_layer; l++) {
        for (i = 0; i < sizeof always / sizeof always[0]; i++) {
            snprintf(name, sizeof name, "model.layers.%d.%s", l, always[i]);
            if (!find_src(src, name)) return fail("%s: missing tensor '%s'", src_where(src), name);
        }
        for (i = 0; i < 4; i++) {
            static const char *const proj[] = { "q", "k", "v", "o" };
            int want = i < 3 ? h->attn_bias_qkv : h->attn_bias_o;
            snprintf(name, sizeof name, "model.layers.%d.self_attn.%s_proj.bias", l, proj[i]);
            if (want && !find_src(src, name)) return fail("%s: missing tensor '%s'", src_where(src), name);
        }
        for (i = 0; i < 2 && h->qk_norm; i++) {
            snprintf(name, sizeof name, "model.layers.%d.self_attn.%s_norm.weight", l, i ? "k" : "q");
            if (!find_src(src, name)) return fail("%s: missing tensor '%s'", src_where(src), name);
        }
    }
    return 0;
}

/* The type of a weight matrix when `want` is asked for. Quantized types need rows in groups of
   16 and columns in blocks of 32 (else f16). With q4_0, the embedding and output matrices of
   vocabularies up to 64k stay q8_0: the output matrix is the most sensitive to rounding and,
   for such vocabularies, a small part of the bytes read per token. */
static llm_dtype matrix_dtype(const src_tensor *t, const hparams *h, llm_dtype want) {
    int64_t rows = 1;
    int d;
    for (d = 0; d < t->n_dims - 1; d++) rows *= t->shape[d];
    if (want == LLM_DTYPE_Q4_0 && h->n_vocab <= 65536 &&
        (!strcmp(t->name, "model.embed_tokens.weight") || !strcmp(t->name, "lm_head.weight")))
        want = LLM_DTYPE_Q8_0;
    if (rows % llm_dtype_row_group(want) || llm_dtype_row_bytes(want, t->shape[t->n_dims - 1]) == 0) return LLM_DTYPE_F16;
    return want;
}

static int plan_tensors(const source *src, const hparams *h, int has_dtype, llm_dtype want, plan *p) {
    int i;
    p->n = 0;
    for (i = 0; i < src->n; i++) {
        const src_tensor *t = &src->t[i];
        if (is_ignored_tensor(t->name, h)) continue;
        if (!is_model_tensor(t->name, h))
            return fail("%s: tensor '%s' is not part of a %s model with this config.json", src->files[t->file], t->name,
                        h->arch == LLM_ARCH_QWEN3 ? "qwen3" : h->arch == LLM_ARCH_QWEN2 ? "qwen2" : h->arch == LLM_ARCH_MISTRAL ? "mistral" : "llama");
        if (p->n == (int)(sizeof p->src / sizeof p->src[0])) return fail("%s: more than %d tensors", src_where(src), (int)(sizeof p->src / sizeof p->src[0]));
        p->src[p->n] = t;
        /* Norms and biases stay f32; matrices take the requested type (or keep their own). */
        p->dst[p->n] = t->n_dims == 1 ? LLM_DTYPE_F32 : has_dtype ? matrix_dtype(t, h, want) : t->dtype;
        p->n++;
    }
    return check_complete(src, h);
}

/* A vocab-only file: the tokenizer and what config.json / generation_config.json say of ids. */
static int set_vocab_only(llm_builder *b, const char *dir, const tok_data *td) {
    char path[4096];
    json_value *cfg = NULL, *gen = NULL;
    hparams h;
    int r = 0, vocab = 0;
    memset(&h, 0, sizeof h);
    h.bos_id = -1;
    path_join(path, sizeof path, dir, "config.json");
    if (file_exists(path) && read_json_object(path, &cfg)) return -1;
    path_join(path, sizeof path, dir, "generation_config.json");
    if (file_exists(path) && read_json_object(path, &gen)) { json_free(cfg); return -1; }
    r = read_token_ids(gen, cfg, &h) || cfg_int(cfg, "vocab_size", 0, 0, &vocab) || (td && vocab > 0 && tok_check_vocab_size(td, vocab));
    json_free(cfg);
    json_free(gen);
    if (r) return -1;
    r |= llm_builder_set_i32(b, "general.vocab_only", 1);
    if (vocab > 0) r |= llm_builder_set_i32(b, "llm.vocab_size", vocab);
    r |= llm_builder_set_i32(b, "llm.bos_token_id", h.bos_id);
    r |= llm_builder_set_i32_array(b, "llm.eos_token_ids", h.eos, (size_t)h.n_eos);
    return r ? fail("cannot build metadata (out of memory)") : 0;
}

/* ---- the output file ------------------------------------------------------------------ */
/* The temporary output, for the signal handler (which gets no argument): set only while
   g_tmp_live says the file is ours. */
static char g_tmp[4096];
static volatile sig_atomic_t g_tmp_live;

/* Only async-signal-safe calls: unlink, signal, raise. The signal is then delivered again
   with its default action, so the exit status says what ended the process. */
static void remove_temp_on_signal(int sig) {
    if (g_tmp_live) unlink(g_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_signals(void) {
#if defined(_WIN32)
    signal(SIGINT, remove_temp_on_signal);
    signal(SIGTERM, remove_temp_on_signal);
#else
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    size_t i;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temp_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
#endif
}

/* rename() replaces whatever OUT names: a device or a directory is refused before any
   work (a link to a regular file is replaced as a link, its target untouched). */
static int check_target(const char *out) {
    struct stat st;
    if (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) return fail("%s exists and is not a regular file", out);
    return 0;
}

/* A new file beside out (out.tmp.PID.N), created exclusively: a planted file or link of
   that name is never opened or followed, only skipped. Its name goes to g_tmp, marked live
   before the open so that no signal finds the file made and not yet marked (one landing
   right after a refused open removes an entry of this process's own temporary name). */
static FILE *create_temp(const char *out) {
    FILE *f;
    int n, fd = -1;
    for (n = 0; n < 1000; n++) {
        g_tmp_live = 0;
        snprintf(g_tmp, sizeof g_tmp, "%s.tmp.%ld.%d", out, (long)getpid(), n);
        g_tmp_live = 1;
#if defined(_WIN32)
        fd = _open(g_tmp, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
#else
        fd = open(g_tmp, O_WRONLY | O_CREAT | O_EXCL, 0644); /* less the umask */
#endif
        if (fd >= 0 || errno != EEXIST) break;
    }
    if (fd < 0) { g_tmp_live = 0; fail("cannot create %s: %s", g_tmp, strerror(errno)); return NULL; }
#if defined(_WIN32)
    f = _fdopen(fd, "wb");
#else
    f = fdopen(fd, "wb");
#endif
    if (!f) {
        fail("cannot create %s: %s", g_tmp, strerror(errno));
        close(fd);
        remove(g_tmp);
        g_tmp_live = 0;
    }
    return f;
}

static void remove_temp(void) {
    if (g_tmp_live) remove(g_tmp);
    g_tmp_live = 0;
}

/* Builds the file and writes it to a new temporary beside out (g_tmp). */
static int write_model(const char *out_path, const char *dir, const source *src, const plan *p, const hparams *h,
                       const tok_data *td, int qflags, progress *pg, uint64_t *out_bytes) {
    llm_builder *b = NULL;
    FILE *out = NULL, *in = NULL;
    const void *hdr;
    size_t hdr_size, idx;
    void *inbuf = NULL, *outbuf = NULL;
    int i, cur_file = -1, rc = -1;
    uint64_t pos;
    const char *tmp = g_tmp;
    if (llm_builder_create(&b) != LLM_OK) { fail("out of memory"); goto done; }
    if ((h ? set_hparams(b, h) : set_vocab_only(b, dir, td)) || (td && tok_write(b, td)) || convert_chat(b, dir, g_err, sizeof g_err))
        goto done;
    for (i = 0; i < p->n; i++)
        if (llm_builder_add_tensor(b, p->src[i]->name, p->dst[i], p->src[i]->n_dims, p->src[i]->shape, &idx) != LLM_OK)
            { fail("cannot add tensor '%s'", p->src[i]->name); goto done; }
    if (llm_builder_header(b, &hdr, &hdr_size) != LLM_OK) { fail("cannot lay out the file"); goto done; }
    pg->n_total = p->n;
    for (i = 0; i < p->n; i++) pg->bytes_total += llm_builder_tensor_size(b, (size_t)i);
    if (!(out = create_temp(out_path))) goto done;
    if (fwrite(hdr, 1, hdr_size, out) != hdr_size) { fail("%s: write failed (%s)", tmp, strerror(errno)); goto done; }
    pos = hdr_size;
    for (i = 0; i < p->n; i++) {
        const src_tensor *t = p->src[i];
        uint64_t off = llm_builder_tensor_offset(b, (size_t)i), size = llm_builder_tensor_size(b, (size_t)i), count = 1;
        int d;
        for (d = 0; d < t->n_dims; d++) count *= (uint64_t)t->shape[d];
        if (t->file != cur_file) {
            if (in) fclose(in);
            if (!(in = fopen(src->files[t->file], "rb"))) { fail("cannot open %s: %s", src->files[t->file], strerror(errno)); goto done; }
            cur_file = t->file;
        }
        free(inbuf); free(outbuf);
        inbuf = malloc((size_t)t->size);
        outbuf = malloc((size_t)size);
        if (!inbuf || !outbuf) { fail("out of memory for tensor '%s'", t->name); goto done; }
        if (fseeko(in, (off_t)t->offset, SEEK_SET) != 0 || fread(inbuf, 1, (size_t)t->size, in) != t->size)
            { fail("cannot read tensor '%s' from %s: %s", t->name, src->files[t->file], ferror(in) ? strerror(errno) : "the file is shorter"); goto done; }
        if (convert_values(t, inbuf, p->dst[i], outbuf, (size_t)count, qflags)) goto done;
        if (write_zeros(out, off - pos) || fwrite(outbuf, 1, (size_t)size, out) != size)
            { fail("%s: write failed (%s)", tmp, strerror(errno)); goto done; }
        pos = off + size;
        progress_tensor(pg, t, p->dst[i], size);
    }
    if (write_zeros(out, llm_builder_file_size(b) - pos) || fflush(out) != 0 || ferror(out))
        { fail("%s: write failed (%s)", tmp, strerror(errno)); goto done; }
    *out_bytes = llm_builder_file_size(b);
    rc = 0;
done:
    if (out && fclose(out) != 0 && rc == 0) rc = fail("%s: write failed (%s)", tmp, strerror(errno));
    if (in) fclose(in);
    free(inbuf); free(outbuf);
    llm_builder_destroy(b);
    return rc;
}

static void log_to_err(void *user, const char *msg) {
    snprintf(g_err, sizeof g_err, "%s: the written file does not validate: %s", (const char *)user, msg);
}

/* Opens the temporary at path as OUT (out names it in messages). */
static int validate(const char *path, const char *out, int vocab_only, llm_model_info *info) {
    llm_model *m;
    llm_model_desc d;
    memset(&d, 0, sizeof d);
    d.log = log_to_err;
    d.log_user = (void *)out;
    d.vocab_only = vocab_only;
    if (llm_model_open(&m, path, &d) != LLM_OK) return -1;
    *info = *llm_model_info_get(m);
    llm_model_close(m);
    return 0;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: convert MODEL_DIR OUT.llm [--dtype f32|f16|bf16|q8_0|q4_0] [--quant-reference] [--vocab-only]\n"
            "  MODEL_DIR     a HuggingFace model directory (config.json, *.safetensors, tokenizer.json)\n"
            "  --dtype       type of the weight matrices (default: as stored); norms and biases stay f32;\n"
            "                q8_0/q4_0: 8/4-bit blocks of 32 (with q4_0 the output matrix of vocabularies\n"
            "                up to 64k is q8_0; matrices whose shape does not fit the blocks are f16)\n"
            "  --quant-reference  q4_0 with ggml's reference rounding instead of our scale search\n"
            "                (for accuracy comparisons)\n"
            "  --vocab-only  write only the tokenizer (needs only tokenizer.json)\n");
}

#ifdef CONVERT_NO_MAIN /* included by the fuzz targets, which call the readers above */
#define main convert_main
int convert_main(int argc, char **argv);
#endif
int main(int argc, char **argv) {
    const char *dir = NULL, *out = NULL;
    llm_dtype want = LLM_DTYPE_F32;
    int has_dtype = 0, qflags = 0, vocab_only = 0, has_tok, i, rc = 1;
    hparams h;
    source src;
    plan *p = NULL;
    tok_data td;
    uint64_t bytes = 0;
    llm_model_info info;
    progress pg;
    memset(&pg, 0, sizeof pg);
    pg.t0 = llm__seconds();
    pg.tty = isatty(fileno(stderr));
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(stdout); return 0; }
        if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
            if (parse_dtype_arg(argv[++i], &want)) { fprintf(stderr, "convert: unknown --dtype '%s'\n", argv[i]); return 2; }
            has_dtype = 1;
        } else if (!strcmp(argv[i], "--quant-reference")) {
            qflags |= LLM_QUANTIZE_REFERENCE;
        } else if (!strcmp(argv[i], "--vocab-only")) {
            vocab_only = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "convert: unknown option '%s'\n", argv[i]); usage(stderr); return 2;
        } else if (!dir) dir = argv[i];
        else if (!out) out = argv[i];
        else { usage(stderr); return 2; }
    }
    if (!dir || !out) { usage(stderr); return 2; }
    memset(&src, 0, sizeof src);
    memset(&h, 0, sizeof h);
    memset(&td, 0, sizeof td);
    if (check_target(out)) goto done;
    catch_signals();
    fprintf(stderr, "convert: reading %s\n", dir);
    if ((has_tok = tok_read(dir, &td)) < 0) goto done;
    if (vocab_only && has_tok) { fail("--vocab-only needs %s/tokenizer.json", dir); goto done; }
    if (!has_tok) tok_describe(&td);
    p = (plan *)calloc(1, sizeof *p);
    if (!p) { fail("out of memory"); goto done; }
    if (!vocab_only && (read_hparams(dir, &h) || (!has_tok && tok_check_vocab_size(&td, h.n_vocab)) || open_source(dir, &src) ||
                        plan_tensors(&src, &h, has_dtype, want, p)))
        goto done;
    if (write_model(out, dir, &src, p, vocab_only ? NULL : &h, has_tok ? NULL : &td, qflags, &pg, &bytes) ||
        validate(g_tmp, out, vocab_only, &info)) {
        remove_temp();
        goto done;
    }
    if (replace_file(g_tmp, out) != 0) { fail("cannot rename %s to %s: %s", g_tmp, out, strerror(errno)); remove_temp(); goto done; }
    g_tmp_live = 0;
    print_summary(out, &pg, &info, vocab_only, bytes);
    rc = 0;
done:
    if (rc) fprintf(stderr, "convert: %s\n", g_err);
    tok_data_free(&td);
    free(p);
    free(h.window);
    free_source(&src);
    return rc;
}
