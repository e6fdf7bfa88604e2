/* convert_tokenizer.h: tokenizer.json (+ tokenizer_config.json) -> the tokenizer.* entries of
   a model file (docs/FORMAT.md, "Tokenizer metadata"). Included once by convert.c, after
   llm.h and json.h; everything here is static.

   Supported, as HuggingFace tokenizers runs it:
     model          BPE (byte_fallback, fuse_unk, ignore_merges, unk_token; merges as "a b" or
                    ["a", "b"]); no dropout, continuing_subword_prefix or end_of_word_suffix
     normalizer     none, NFC, Sequence[Prepend("▁"), Replace(" ", "▁")] or the Replace alone
     pre_tokenizer  none, Metaspace("▁"), ByteLevel, Digits, Split with the GPT-2, Llama 3 or
                    Qwen2 regex (recognized by its exact text), and Sequences of these
     decoder        ByteLevel, Metaspace("▁"), Sequence[Replace("▁", " "), ByteFallback,
                    Fuse, Strip(" ", n, 0)] (the last three optional, Strip only after Fuse)
     post_processor none, ByteLevel, TemplateProcessing, Sequence of these
   Anything else is refused with a message that quotes it. */

typedef struct tok_data {
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
} tok_data;

/* The exact split regexes we scan by hand (llm.h, llm__regex_match). */
static const char *const tok_regex_gpt2 =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char *const tok_regex_llama3 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char *const tok_regex_qwen2 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/* ---- small helpers ---- */

/* Compact JSON text of v (cut at about 300 bytes), for messages that quote the input. */
static void tok_quote_rec(const json_value *v, char *buf, size_t cap, size_t *n) {
    size_t i;
#define TOK_PUT(s) do { size_t l_ = strlen(s); if (*n + l_ < cap) { memcpy(buf + *n, s, l_); *n += l_; buf[*n] = 0; } } while (0)
    switch (v->type) {
    case JSON_NULL: TOK_PUT("null"); break;
    case JSON_TRUE: TOK_PUT("true"); break;
    case JSON_FALSE: TOK_PUT("false"); break;
    case JSON_NUMBER: { char t[32]; snprintf(t, sizeof t, "%g", v->number); TOK_PUT(t); break; }
    case JSON_STRING:
        TOK_PUT("\"");
        for (i = 0; i < v->len && *n + 8 < cap; i++) {
            char t[8];
            unsigned char c = (unsigned char)v->str[i];
            if (c == '"' || c == '\\') { t[0] = '\\'; t[1] = (char)c; t[2] = 0; }
            else if (c < 0x20) snprintf(t, sizeof t, "\\u%04x", c);
            else { t[0] = (char)c; t[1] = 0; }
            TOK_PUT(t);
        }
        TOK_PUT("\"");
        break;
    default:
        TOK_PUT(v->type == JSON_ARRAY ? "[" : "{");
        for (i = 0; i < v->len && *n + 8 < cap; i++) {
            if (i) TOK_PUT(",");
            if (v->type == JSON_OBJECT) {
                json_value k;
                memset(&k, 0, sizeof k);
                k.type = JSON_STRING; k.str = v->items[i].key; k.len = v->items[i].key_len;
                tok_quote_rec(&k, buf, cap, n);
                TOK_PUT(":");
            }
            tok_quote_rec(&v->items[i], buf, cap, n);
        }
        TOK_PUT(v->type == JSON_ARRAY ? "]" : "}");
    }
#undef TOK_PUT
}

static const char *tok_quote(const json_value *v) {
    static char buf[2][320];
    static int which;
    size_t n = 0;
    char *b = buf[which ^= 1];
    b[0] = 0;
    if (!v) return "null";
    tok_quote_rec(v, b, sizeof buf[0] - 4, &n);
    if (n >= sizeof buf[0] - 12) strcpy(b + n, "...");
    return b;
}

static int tok_is_type(const json_value *v, const char *type) {
    const json_value *t = json_get(v, "type");
    return t && t->type == JSON_STRING && strcmp(t->str, type) == 0;
}

static int tok_str_is(const json_value *v, const char *s) {
    return v && v->type == JSON_STRING && v->len == strlen(s) && memcmp(v->str, s, v->len) == 0;
}

static int tok_bool(const json_value *obj, const char *key, int dflt) {
    const json_value *v = json_get(obj, key);
    if (!v || v->type == JSON_NULL) return dflt;
    return v->type == JSON_TRUE;
}

/* A string -> id map for the vocabulary (open addressing). */
typedef struct tok_map { const char **key; size_t *len; int32_t *id; size_t mask; } tok_map;

static int tok_map_init(tok_map *m, size_t n) {
    size_t size = 16;
    while (size < 2 * n) size *= 2;
    m->mask = size - 1;
    m->key = (const char **)calloc(size, sizeof *m->key);
    m->len = (size_t *)calloc(size, sizeof *m->len);
    m->id = (int32_t *)calloc(size, sizeof *m->id);
    return m->key && m->len && m->id ? 0 : fail("out of memory");
}

static void tok_map_free(tok_map *m) { free((void *)m->key); free(m->len); free(m->id); }

static size_t tok_map_slot(const tok_map *m, const char *s, size_t n) {
    size_t h = llm__hash_bytes((const uint8_t *)s, n) & m->mask;
    while (m->key[h] && !(m->len[h] == n && memcmp(m->key[h], s, n) == 0)) h = (h + 1) & m->mask;
    return h;
}

static int32_t tok_map_get(const tok_map *m, const char *s, size_t n) {
    size_t h = tok_map_slot(m, s, n);
    return m->key[h] ? m->id[h] : -1;
}

/* A byte-level vocabulary string as raw bytes, as the ByteLevel decoder turns it back:
   every character through GPT-2's table, or the text as is when one is not in it (then
   *mapped is 0: BPE, which starts from the table's characters, cannot produce the token). */
static size_t tok_byte_level_raw(const char *s, size_t n, uint8_t *out, int *mapped) {
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
   them. That must be the one BPE can produce, not one kept as text. */
static int tok_check_duplicates(const tok_data *td, char **text, const size_t *len, const uint8_t *unmapped) {
    tok_map seen;
    int32_t id;
    if (tok_map_init(&seen, (size_t)td->n)) return -1;
    for (id = 0; id < td->n; id++) {
        size_t slot;
        if (!(td->flags[id] & LLM__TF_MODEL)) continue;
        slot = tok_map_slot(&seen, text[id] ? text[id] : "", len[id]);
        if (!seen.key[slot]) { seen.key[slot] = text[id] ? text[id] : ""; seen.len[slot] = len[id]; seen.id[slot] = id; continue; }
        if (unmapped[seen.id[slot]] && !unmapped[id]) {
            int32_t first = seen.id[slot];
            tok_map_free(&seen);
            return fail("tokenizer.json: tokens %d and %d stand for the same bytes and the first is not in the byte-level "
                        "alphabet; not supported", first, id);
        }
    }
    tok_map_free(&seen);
    return 0;
}

/* ---- model ---- */

static int tok_read_vocab(const json_value *model, tok_data *td, tok_map *map, const json_value **vocab_out) {
    const json_value *vocab = json_get(model, "vocab");
    size_t i;
    if (!vocab || vocab->type != JSON_OBJECT || vocab->len == 0) return fail("tokenizer.json: model.vocab is not an object of tokens");
    if (tok_map_init(map, vocab->len)) return -1;
    td->n = 0;
    for (i = 0; i < vocab->len; i++) {
        const json_value *e = &vocab->items[i];
        size_t slot;
        if (!json_is_int(e) || e->number < 0 || e->number >= (1 << 24))
            return fail("tokenizer.json: vocab entry \"%s\" has id %s", e->key, tok_quote(e));
        slot = tok_map_slot(map, e->key, e->key_len);
        if (map->key[slot]) return fail("tokenizer.json: vocab lists \"%s\" twice", e->key);
        map->key[slot] = e->key; map->len[slot] = e->key_len; map->id[slot] = (int32_t)e->number;
        if ((int32_t)e->number + 1 > td->n) td->n = (int32_t)e->number + 1;
    }
    td->n_model = (int32_t)vocab->len;
    *vocab_out = vocab;
    return 0;
}

static int tok_read_model(const json_value *model, tok_data *td) {
    const json_value *v;
    if (!model || model->type != JSON_OBJECT) return fail("tokenizer.json: no 'model' object");
    if ((v = json_get(model, "type")) && !tok_str_is(v, "BPE"))
        return fail("tokenizer.json: model type %s is not supported (only BPE)", tok_quote(v));
    if (!json_get(model, "merges")) return fail("tokenizer.json: the model has no merges (only BPE is supported)");
    if ((v = json_get(model, "dropout")) && v->type != JSON_NULL && !(v->type == JSON_NUMBER && v->number == 0))
        return fail("tokenizer.json: BPE dropout %s is not supported", tok_quote(v));
    if ((v = json_get(model, "continuing_subword_prefix")) && v->type != JSON_NULL && !tok_str_is(v, ""))
        return fail("tokenizer.json: continuing_subword_prefix %s is not supported", tok_quote(v));
    if ((v = json_get(model, "end_of_word_suffix")) && v->type != JSON_NULL && !tok_str_is(v, ""))
        return fail("tokenizer.json: end_of_word_suffix %s is not supported", tok_quote(v));
    td->bpe_opts = (tok_bool(model, "byte_fallback", 0) ? LLM__BPE_BYTE_FALLBACK : 0) |
                   (tok_bool(model, "fuse_unk", 0) ? LLM__BPE_FUSE_UNK : 0) |
                   (tok_bool(model, "ignore_merges", 0) ? LLM__BPE_IGNORE_MERGES : 0);
    return 0;
}

/* Merges in rank order, as ids: "a b" strings or ["a", "b"] pairs; the merged token must be
   in the vocabulary (HF: MergeTokenOutOfVocabulary). */
static int tok_read_merges(const json_value *model, const tok_map *map, tok_data *td) {
    const json_value *merges = json_get(model, "merges");
    size_t i;
    char *buf = NULL;
    size_t buf_cap = 0;
    if (!merges || merges->type != JSON_ARRAY) return fail("tokenizer.json: model.merges is not an array");
    td->merges = (int32_t *)malloc((merges->len ? merges->len : 1) * 3 * sizeof(int32_t));
    if (!td->merges) return fail("out of memory");
    for (i = 0; i < merges->len; i++) {
        const json_value *e = &merges->items[i];
        const char *a, *b;
        size_t la, lb;
        int32_t ia, ib, ic;
        if (e->type == JSON_STRING) {
            const char *sp = (const char *)memchr(e->str, ' ', e->len);
            if (!sp || memchr(sp + 1, ' ', e->len - (size_t)(sp + 1 - e->str))) {
                free(buf);
                return fail("tokenizer.json: merge %s is not two tokens separated by one space", tok_quote(e));
            }
            a = e->str; la = (size_t)(sp - e->str); b = sp + 1; lb = e->len - la - 1;
        } else if (e->type == JSON_ARRAY && e->len == 2 && e->items[0].type == JSON_STRING && e->items[1].type == JSON_STRING) {
            a = e->items[0].str; la = e->items[0].len; b = e->items[1].str; lb = e->items[1].len;
        } else {
            free(buf);
            return fail("tokenizer.json: merge %s is neither \"a b\" nor [\"a\", \"b\"]", tok_quote(e));
        }
        if (la + lb > buf_cap) { buf_cap = 2 * (la + lb) + 64; free(buf); if (!(buf = (char *)malloc(buf_cap))) return fail("out of memory"); }
        memcpy(buf, a, la);
        memcpy(buf + la, b, lb);
        ia = tok_map_get(map, a, la);
        ib = tok_map_get(map, b, lb);
        ic = tok_map_get(map, buf, la + lb);
        if (ia < 0 || ib < 0 || ic < 0) { free(buf); return fail("tokenizer.json: merge %s: a token of it is not in the vocabulary", tok_quote(e)); }
        td->merges[3 * i] = ia; td->merges[3 * i + 1] = ib; td->merges[3 * i + 2] = ic;
    }
    free(buf);
    td->n_merges = merges->len;
    return 0;
}

/* ---- normalizer, pre-tokenizer, decoder, post-processor ---- */

static int tok_read_normalizer(const json_value *n, tok_data *td) {
    const json_value *list = n, *first, *second;
    size_t count;
    td->normalizer = LLM__NORM_NONE;
    if (!n || n->type == JSON_NULL) return 0;
    if (tok_is_type(n, "Sequence")) list = json_get(n, "normalizers");
    count = list == n ? 1 : list && list->type == JSON_ARRAY ? list->len : (size_t)-1;
    first = list == n ? n : count >= 1 && count != (size_t)-1 ? &list->items[0] : NULL;
    second = count == 2 ? &list->items[1] : NULL;
    if (count == 0) return 0;
    if (count == 1 && tok_is_type(first, "NFC")) { td->normalizer = LLM__NORM_NFC; return 0; }
#define TOK_IS_REPLACE(v) (tok_is_type(v, "Replace") && tok_str_is(json_get(json_get(v, "pattern"), "String"), " ") && \
                           tok_str_is(json_get(v, "content"), "\xE2\x96\x81"))
    if (count == 1 && TOK_IS_REPLACE(first)) { td->normalizer = LLM__NORM_SPM_REPLACE; return 0; }
    if (count == 2 && tok_is_type(first, "Prepend") && tok_str_is(json_get(first, "prepend"), "\xE2\x96\x81") &&
        TOK_IS_REPLACE(second)) {
        td->normalizer = LLM__NORM_SPM;
        return 0;
    }
#undef TOK_IS_REPLACE
    return fail("tokenizer.json: normalizer %s is not supported (supported: NFC, Prepend(\"\xE2\x96\x81\") + "
                "Replace(\" \", \"\xE2\x96\x81\"))", tok_quote(n));
}

/* prepend_scheme, with the older add_prefix_space spelling (metaspace.rs Deserialize). */
static int tok_prepend_scheme(const json_value *v, int32_t *scheme) {
    const json_value *ps = json_get(v, "prepend_scheme"), *aps = json_get(v, "add_prefix_space");
    *scheme = 2;
    if (ps && ps->type != JSON_NULL) {
        if (tok_str_is(ps, "first")) *scheme = 1;
        else if (tok_str_is(ps, "never")) *scheme = 0;
        else if (!tok_str_is(ps, "always")) return fail("tokenizer.json: Metaspace prepend_scheme %s is not known", tok_quote(ps));
    }
    if (aps && aps->type == JSON_FALSE) {
        if (*scheme != 0 && ps && ps->type != JSON_NULL) return fail("tokenizer.json: Metaspace add_prefix_space does not match prepend_scheme");
        *scheme = 0;
    }
    if (!tok_str_is(json_get(v, "replacement"), "\xE2\x96\x81"))
        return fail("tokenizer.json: Metaspace replacement %s is not supported (only \"\xE2\x96\x81\")", tok_quote(json_get(v, "replacement")));
    return 0;
}

static int tok_add_step(tok_data *td, int32_t step, const json_value *what) {
    if (td->byte_level) return fail("tokenizer.json: pre-tokenizer %s after ByteLevel is not supported", tok_quote(what));
    if (td->n_steps == LLM__MAX_STEPS) return fail("tokenizer.json: too many pre-tokenizer steps");
    if (td->n_steps && (step == LLM__PRE_METASPACE || td->steps[0] == LLM__PRE_METASPACE))
        return fail("tokenizer.json: Metaspace combined with other pre-tokenizers is not supported (%s)", tok_quote(what));
    td->steps[td->n_steps++] = step;
    return 0;
}

static int tok_read_pre_tokenizer(const json_value *p, tok_data *td) {
    size_t i;
    if (!p || p->type == JSON_NULL) return 0;
    if (tok_is_type(p, "Sequence")) {
        const json_value *list = json_get(p, "pretokenizers");
        if (!list || list->type != JSON_ARRAY) return fail("tokenizer.json: pre_tokenizer %s has no 'pretokenizers' list", tok_quote(p));
        for (i = 0; i < list->len; i++)
            if (tok_read_pre_tokenizer(&list->items[i], td)) return -1;
        return 0;
    }
    if (tok_is_type(p, "Metaspace")) {
        if (tok_add_step(td, LLM__PRE_METASPACE, p) || tok_prepend_scheme(p, &td->ms_prepend)) return -1;
        td->ms_split = tok_bool(p, "split", 1);
        return 0;
    }
    if (tok_is_type(p, "Digits"))
        return tok_add_step(td, tok_bool(p, "individual_digits", 0) ? LLM__PRE_DIGITS : LLM__PRE_DIGIT_RUNS, p);
    if (tok_is_type(p, "Split")) {
        const json_value *re = json_get(json_get(p, "pattern"), "Regex");
        int32_t step = tok_str_is(re, tok_regex_gpt2) ? LLM__PRE_GPT2 : tok_str_is(re, tok_regex_llama3) ? LLM__PRE_LLAMA3 :
                       tok_str_is(re, tok_regex_qwen2) ? LLM__PRE_QWEN2 : 0;
        if (!step) return fail("tokenizer.json: split pattern %s is not supported (only the GPT-2, Llama 3 and Qwen2 regexes)",
                               tok_quote(json_get(p, "pattern")));
        if (!tok_str_is(json_get(p, "behavior"), "Isolated") || tok_bool(p, "invert", 0))
            return fail("tokenizer.json: Split %s: only behavior Isolated without invert is supported", tok_quote(p));
        return tok_add_step(td, step, p);
    }
    if (tok_is_type(p, "ByteLevel")) {
        if (tok_bool(p, "add_prefix_space", 1) && tok_add_step(td, LLM__PRE_PREFIX_SPACE, p)) return -1;
        if (tok_bool(p, "use_regex", 1) && tok_add_step(td, LLM__PRE_GPT2, p)) return -1;
        td->byte_level = 1;
        return 0;
    }
    return fail("tokenizer.json: pre_tokenizer %s is not supported", tok_quote(p));
}

static int tok_read_decoder(const json_value *d, tok_data *td) {
    const json_value *list;
    size_t i = 0;
    if (!d || d->type == JSON_NULL) return fail("tokenizer.json: no decoder (HF would join tokens with spaces); not supported");
    if (tok_is_type(d, "ByteLevel")) { td->decoder = LLM__DEC_BYTE_LEVEL; return 0; }
    if (tok_is_type(d, "Metaspace")) {
        int32_t scheme;
        if (tok_prepend_scheme(d, &scheme)) return -1;
        td->decoder = scheme ? LLM__DEC_METASPACE : LLM__DEC_SENTENCEPIECE; /* "never" only replaces */
        return 0;
    }
    list = tok_is_type(d, "Sequence") ? json_get(d, "decoders") : NULL;
    if (list && list->type == JSON_ARRAY && list->len == 1 && tok_is_type(&list->items[0], "ByteLevel")) { td->decoder = LLM__DEC_BYTE_LEVEL; return 0; }
    if (!list || list->type != JSON_ARRAY || list->len == 0 || !tok_is_type(&list->items[0], "Replace") ||
        !tok_str_is(json_get(json_get(&list->items[0], "pattern"), "String"), "\xE2\x96\x81") ||
        !tok_str_is(json_get(&list->items[0], "content"), " "))
        return fail("tokenizer.json: decoder %s is not supported", tok_quote(d));
    td->decoder = LLM__DEC_SENTENCEPIECE;
    i = 1;
    if (i < list->len && tok_is_type(&list->items[i], "ByteFallback")) { td->dec_byte_fallback = 1; i++; }
    if (i < list->len && tok_is_type(&list->items[i], "Fuse")) {
        const json_value *strip;
        i++;
        if (i < list->len && tok_is_type(strip = &list->items[i], "Strip")) {
            const json_value *start = json_get(strip, "start"), *stop = json_get(strip, "stop");
            if (!tok_str_is(json_get(strip, "content"), " ") || !json_is_int(start) || start->number < 0 || start->number > 1000 ||
                (stop && !(json_is_int(stop) && stop->number == 0)))
                return fail("tokenizer.json: decoder step %s is not supported (only Strip(\" \", n, 0))", tok_quote(strip));
            td->dec_strip = (int32_t)start->number;
            i++;
        }
    }
    if (i != list->len) return fail("tokenizer.json: decoder %s is not supported (step %s)", tok_quote(d), tok_quote(&list->items[i]));
    return 0;
}

/* TemplateProcessing's "single" template: the special tokens before and after $A. */
static int tok_read_template(const json_value *p, tok_data *td) {
    const json_value *single = json_get(p, "single"), *specials = json_get(p, "special_tokens");
    size_t i, k;
    int seen_a = 0;
    if (!single || single->type != JSON_ARRAY) return fail("tokenizer.json: TemplateProcessing without a 'single' template");
    for (i = 0; i < single->len; i++) {
        const json_value *it = &single->items[i], *sp = json_get(it, "SpecialToken"), *seq = json_get(it, "Sequence"), *ids;
        if (seq) {
            if (!tok_str_is(json_get(seq, "id"), "A") || seen_a)
                return fail("tokenizer.json: TemplateProcessing single %s is not supported (one $A only)", tok_quote(single));
            seen_a = 1;
            continue;
        }
        sp = sp ? json_get(sp, "id") : NULL;
        ids = sp && sp->type == JSON_STRING ? json_get(json_get(specials, sp->str), "ids") : NULL;
        if (!ids || ids->type != JSON_ARRAY)
            return fail("tokenizer.json: TemplateProcessing item %s has no special_tokens entry", tok_quote(it));
        for (k = 0; k < ids->len; k++) {
            int32_t *list = seen_a ? td->suffix : td->prefix, *count = seen_a ? &td->n_suffix : &td->n_prefix;
            if (!json_is_int(&ids->items[k]) || ids->items[k].number < 0 || *count == 64)
                return fail("tokenizer.json: TemplateProcessing ids %s are not supported", tok_quote(ids));
            list[(*count)++] = (int32_t)ids->items[k].number;
        }
    }
    if (!seen_a) return fail("tokenizer.json: TemplateProcessing single %s has no $A", tok_quote(single));
    return 0;
}

static int tok_read_post_processor(const json_value *p, tok_data *td) {
    size_t i;
    if (!p || p->type == JSON_NULL || tok_is_type(p, "ByteLevel")) return 0; /* ByteLevel only trims offsets */
    if (tok_is_type(p, "TemplateProcessing")) {
        if (td->n_prefix || td->n_suffix) return fail("tokenizer.json: more than one TemplateProcessing");
        return tok_read_template(p, td);
    }
    if (tok_is_type(p, "Sequence")) {
        const json_value *list = json_get(p, "processors");
        if (!list || list->type != JSON_ARRAY) return fail("tokenizer.json: post_processor %s has no 'processors'", tok_quote(p));
        for (i = 0; i < list->len; i++)
            if (tok_read_post_processor(&list->items[i], td)) return -1;
        return 0;
    }
    return fail("tokenizer.json: post_processor %s is not supported", tok_quote(p));
}

/* ---- the token table ---- */

static int tok_set_text(int32_t id, const void *s, size_t n, char **text, size_t *len) {
    free(text[id]);
    if (!(text[id] = (char *)malloc(n ? n : 1))) return fail("out of memory");
    memcpy(text[id], s, n);
    len[id] = n;
    return 0;
}

/* Added tokens, with the ids HF gives them (AddedVocabulary::add_tokens): the id of the same
   text if it is already known (an earlier added token, else the vocabulary), else the next
   id after the vocabulary and earlier additions. */
static int tok_read_added(const json_value *added, const tok_map *vocab, tok_data *td, char **text, size_t *len) {
    tok_map seen; /* content -> id of the added tokens so far */
    size_t i;
    int32_t max_added = -1;
    int rc = -1;
    if (!added || added->type == JSON_NULL) return 0;
    if (added->type != JSON_ARRAY) return fail("tokenizer.json: 'added_tokens' is not an array");
    if (tok_map_init(&seen, added->len)) { tok_map_free(&seen); return -1; }
    for (i = 0; i < added->len; i++) {
        const json_value *a = &added->items[i], *content = json_get(a, "content"), *jid = json_get(a, "id");
        int32_t id;
        size_t slot;
        unsigned f = LLM__TF_ADDED;
        if (!content || content->type != JSON_STRING) { fail("tokenizer.json: added token %s has no content", tok_quote(a)); goto done; }
        if (content->len == 0) continue;
        slot = tok_map_slot(&seen, content->str, content->len);
        id = seen.key[slot] ? seen.id[slot] : tok_map_get(vocab, content->str, content->len);
        if (id < 0) id = max_added < 0 ? td->n_model : (max_added >= td->n_model ? max_added + 1 : td->n_model);
        if (id >= (1 << 24)) { fail("tokenizer.json: too many added tokens"); goto done; }
        if (!seen.key[slot]) { seen.key[slot] = content->str; seen.len[slot] = content->len; seen.id[slot] = id; }
        if (!json_is_int(jid) || (int32_t)jid->number != id)
            fprintf(stderr, "convert: note: added token %s gets id %d as in HF tokenizers, not %s\n", tok_quote(content), id, tok_quote(jid));
        if (id >= td->n) {
            int32_t k;
            for (k = td->n; k <= id; k++) { td->flags[k] = 0; text[k] = NULL; len[k] = 0; }
            td->n = id + 1;
        }
        if (id > max_added) max_added = id;
        if (td->byte_level && (td->flags[id] & LLM__TF_MODEL) && (len[id] != content->len || memcmp(text[id], content->str, len[id]) != 0))
            f |= LLM__TF_BYTE_LEVEL_TEXT; /* keeps the vocabulary's bytes; its text is their byte-level spelling */
        else if (tok_set_text(id, content->str, content->len, text, len))
            goto done;
        if (tok_bool(a, "special", 0)) f |= LLM__TF_SPECIAL;
        if (tok_bool(a, "lstrip", 0)) f |= LLM__TF_LSTRIP;
        if (tok_bool(a, "rstrip", 0)) f |= LLM__TF_RSTRIP;
        if (tok_bool(a, "single_word", 0)) f |= LLM__TF_SINGLE_WORD;
        if (tok_bool(a, "normalized", !(f & LLM__TF_SPECIAL))) f |= LLM__TF_NORMALIZED;
        /* special-ness belongs to the text (special_tokens_set): once special, always */
        td->flags[id] = (uint8_t)((td->flags[id] & (LLM__TF_MODEL | LLM__TF_SPECIAL | LLM__TF_BYTE_LEVEL_TEXT)) | f);
        td->n_added++;
    }
    rc = 0;
done:
    tok_map_free(&seen);
    return rc;
}

static void tok_data_free(tok_data *td) {
    free(td->bytes); free(td->offsets); free(td->flags); free(td->merges);
    memset(td, 0, sizeof *td);
}

/* Reads DIR/tokenizer.json into td. Returns 1 when there is none (a warning is printed),
   0 on success, -1 with the message in g_err. */
static int tok_read(const char *dir, tok_data *td) {
    char path[4096], err[512];
    json_value *j, *cfg = NULL;
    const json_value *model, *vocab = NULL, *v;
    tok_map map;
    char **text = NULL;
    uint8_t *unmapped = NULL;
    size_t *len = NULL, i, cap;
    int rc = -1;
    memset(td, 0, sizeof *td);
    memset(&map, 0, sizeof map);
    td->unk_id = -1;
    path_join(path, sizeof path, dir, "tokenizer.json");
    if (!file_exists(path)) {
        fprintf(stderr, "convert: warning: %s is missing; the model file gets no tokenizer\n", path);
        return 1;
    }
    if (read_json_object(path, &j)) return -1;
    model = json_get(j, "model");
    if (tok_read_model(model, td) || tok_read_normalizer(json_get(j, "normalizer"), td) ||
        tok_read_pre_tokenizer(json_get(j, "pre_tokenizer"), td) || tok_read_decoder(json_get(j, "decoder"), td) ||
        tok_read_vocab(model, td, &map, &vocab))
        goto done;
    if (td->byte_level != (td->decoder == LLM__DEC_BYTE_LEVEL)) {
        fail("tokenizer.json: a ByteLevel pre-tokenizer needs the ByteLevel decoder and the other way round");
        goto done;
    }
    if ((v = json_get(j, "truncation")) && v->type != JSON_NULL) fprintf(stderr, "convert: note: tokenizer.json truncation is ignored\n");
    if ((v = json_get(j, "padding")) && v->type != JSON_NULL) fprintf(stderr, "convert: note: tokenizer.json padding is ignored\n");
    /* the token table, with room for every added token */
    v = json_get(j, "added_tokens");
    cap = (size_t)td->n + (v && v->type == JSON_ARRAY ? v->len : 0) + (size_t)td->n_model + 1;
    text = (char **)calloc(cap, sizeof *text);
    len = (size_t *)calloc(cap, sizeof *len);
    td->flags = (uint8_t *)calloc(cap, 1);
    unmapped = (uint8_t *)calloc(cap, 1);
    if (!text || !len || !td->flags || !unmapped) { fail("out of memory"); goto done; }
    for (i = 0; i < vocab->len; i++) {
        const json_value *e = &vocab->items[i];
        int32_t id = (int32_t)e->number;
        uint8_t *raw = (uint8_t *)malloc(e->key_len + 1);
        size_t n = e->key_len;
        if (!raw) { fail("out of memory"); goto done; }
        if (text[id]) { free(raw); fail("tokenizer.json: two vocabulary entries have id %d", id); goto done; }
        if (td->byte_level) {
            int mapped;
            n = tok_byte_level_raw(e->key, e->key_len, raw, &mapped);
            unmapped[id] = (uint8_t)!mapped;
        } else {
            memcpy(raw, e->key, n);
        }
        text[id] = (char *)raw;
        len[id] = n;
        td->flags[id] = LLM__TF_MODEL;
    }
    if (tok_read_added(v, &map, td, text, len) || tok_read_merges(model, &map, td) ||
        tok_read_post_processor(json_get(j, "post_processor"), td))
        goto done;
    if ((v = json_get(model, "unk_token")) && v->type == JSON_STRING) {
        td->unk_id = tok_map_get(&map, v->str, v->len);
        if (td->unk_id < 0) { fail("tokenizer.json: unk_token %s is not in the vocabulary", tok_quote(v)); goto done; }
    }
    for (i = 0; i < (size_t)td->n_prefix; i++) if (td->prefix[i] >= td->n || !td->flags[td->prefix[i]]) { fail("tokenizer.json: template id %d has no token", td->prefix[i]); goto done; }
    for (i = 0; i < (size_t)td->n_suffix; i++) if (td->suffix[i] >= td->n || !td->flags[td->suffix[i]]) { fail("tokenizer.json: template id %d has no token", td->suffix[i]); goto done; }
    if (td->byte_level && tok_check_duplicates(td, text, len, unmapped)) goto done;
    td->offsets = (int32_t *)malloc(((size_t)td->n + 1) * sizeof(int32_t));
    for (i = 0, td->n_bytes = 0; i < (size_t)td->n; i++) td->n_bytes += len[i];
    td->bytes = (uint8_t *)malloc(td->n_bytes ? td->n_bytes : 1);
    if (!td->offsets || !td->bytes || td->n_bytes > 0x7FFFFFFF) { fail("out of memory"); goto done; }
    for (i = 0, td->n_bytes = 0; i < (size_t)td->n; i++) {
        td->offsets[i] = (int32_t)td->n_bytes;
        if (len[i]) memcpy(td->bytes + td->n_bytes, text[i], len[i]);
        td->n_bytes += len[i];
    }
    td->offsets[td->n] = (int32_t)td->n_bytes;
    /* tokenizer_config.json only informs: the ids come from tokenizer.json, as in tokenizers */
    path_join(path, sizeof path, dir, "tokenizer_config.json");
    if (file_exists(path) && (cfg = json_parse_file_ex(path, JSON_NO_NUL, err, sizeof err)) != NULL) {
        const json_value *abos = json_get(cfg, "add_bos_token"), *aeos = json_get(cfg, "add_eos_token");
        if (abos && (abos->type == JSON_TRUE) != (td->n_prefix > 0))
            fprintf(stderr, "convert: note: tokenizer_config.json add_bos_token is %s but the post-processor adds %d ids "
                            "before the text; following the post-processor\n", tok_quote(abos), td->n_prefix);
        if (aeos && (aeos->type == JSON_TRUE) != (td->n_suffix > 0))
            fprintf(stderr, "convert: note: tokenizer_config.json add_eos_token is %s but the post-processor adds %d ids "
                            "after the text; following the post-processor\n", tok_quote(aeos), td->n_suffix);
    }
    rc = 0;
done:
    if (text) for (i = 0; i < cap; i++) free(text[i]);
    free(text);
    free(len);
    free(unmapped);
    tok_map_free(&map);
    json_free(cfg);
    json_free(j);
    if (rc) tok_data_free(td);
    return rc;
}

/* Every token needs a row of the embedding matrix: config.json's vocab_size may exceed the
   tokenizer's ids (matrices padded to a round size), never fall short of them. */
static int tok_check_vocab_size(const tok_data *td, int32_t n_vocab) {
    int32_t id;
    for (id = n_vocab < 0 ? 0 : n_vocab; id < td->n; id++) {
        json_value s;
        if (!td->flags[id]) continue; /* an unused id in a gap */
        memset(&s, 0, sizeof s);
        s.type = JSON_STRING;
        s.str = (char *)td->bytes + td->offsets[id];
        s.len = (size_t)(td->offsets[id + 1] - td->offsets[id]);
        return fail("tokenizer.json: token %s has id %d, but config.json's vocab_size is %d (ids 0 to %d)", tok_quote(&s), id,
                    n_vocab, n_vocab - 1);
    }
    return 0;
}

static int tok_write(llm_builder *b, const tok_data *td) {
    int r = 0;
    r |= llm_builder_set_blob(b, "tokenizer.tokens", td->bytes, td->n_bytes);
    r |= llm_builder_set_i32_array(b, "tokenizer.token_offsets", td->offsets, (size_t)td->n + 1);
    r |= llm_builder_set_blob(b, "tokenizer.token_flags", td->flags, (size_t)td->n);
    r |= llm_builder_set_i32_array(b, "tokenizer.merges", td->merges, 3 * td->n_merges);
    r |= llm_builder_set_i32(b, "tokenizer.unk_id", td->unk_id);
    r |= llm_builder_set_i32(b, "tokenizer.bpe_options", td->bpe_opts);
    r |= llm_builder_set_i32(b, "tokenizer.byte_level", td->byte_level);
    r |= llm_builder_set_i32(b, "tokenizer.normalizer", td->normalizer);
    r |= llm_builder_set_i32_array(b, "tokenizer.pre_tokenizer", td->steps, (size_t)td->n_steps);
    r |= llm_builder_set_i32(b, "tokenizer.metaspace_prepend", td->ms_prepend);
    r |= llm_builder_set_i32(b, "tokenizer.metaspace_split", td->ms_split);
    r |= llm_builder_set_i32(b, "tokenizer.decoder", td->decoder);
    r |= llm_builder_set_i32(b, "tokenizer.decoder_byte_fallback", td->dec_byte_fallback);
    r |= llm_builder_set_i32(b, "tokenizer.decoder_strip", td->dec_strip);
    r |= llm_builder_set_i32_array(b, "tokenizer.prefix_ids", td->prefix, (size_t)td->n_prefix);
    r |= llm_builder_set_i32_array(b, "tokenizer.suffix_ids", td->suffix, (size_t)td->n_suffix);
    return r ? fail("cannot build the tokenizer metadata (out of memory)") : 0;
}

static void tok_describe(const tok_data *td) {
    static const char *const norms[] = { "none", "NFC", "Prepend+Replace", "Replace" };
    static const char *const steps[] = { "", "Metaspace", "Digits", "Digits(runs)", "GPT-2 regex", "Llama 3 regex",
                                         "Qwen2 regex", "prefix space" };
    int i;
    printf("convert: tokenizer: BPE, %d tokens (%d in the vocabulary, %d added), %lu merges, %s, normalizer %s, pre-tokenizer",
           td->n, td->n_model, td->n_added, (unsigned long)td->n_merges, td->byte_level ? "byte-level" : "SentencePiece-style",
           norms[td->normalizer]);
    for (i = 0; i < td->n_steps; i++) printf("%s%s", i ? " + " : " ", steps[td->steps[i]]);
    if (!td->n_steps) printf(" none");
    printf(", adds %d id(s) before and %d after the text\n", td->n_prefix, td->n_suffix);
}
