/* Fuzz target: the tokenizer and the streaming decoder of real tokenizers (the models named in
   LLM_FUZZ_TOKENIZERS, comma-separated .llm paths: tests/fuzz/tok_models.sh makes them from
   models/kjv-tiny and tests/data/tokenizers). The first input byte picks the model and the
   mode, the rest is the input:
   - text (any bytes, invalid UTF-8 included), tokenized with and without special-token
     parsing and BOS/EOS; the ids are in the vocabulary, the buffer-size protocol agrees with
     itself, llm_detokenize gives valid UTF-8, and for valid UTF-8 text without special
     tokens a byte-level tokenizer gives the text back;
   - ids (pairs of bytes), pushed one by one through llm_decoder: each push and the flush give
     complete UTF-8, a too-small buffer changes nothing, and the pieces equal llm_detokenize
     of the same ids unless a run of byte tokens was not valid UTF-8 (U+FFFD). */
#include "../../llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MODELS 16
static llm_model *models[MAX_MODELS];
static void *buffers[MAX_MODELS];
static int n_models = -1;
static int lossless[MAX_MODELS]; /* byte-level, and a probe comes back as it was: no add_prefix_space, no stripping added token */

static char *round_trip(const llm_model *m, const char *text, size_t size, size_t *len);

static void *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    long n;
    void *p;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) { if (f) fclose(f); return NULL; }
    p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *size = (size_t)n;
    return p;
}

static void load_models(void) {
    const char *list = getenv("LLM_FUZZ_TOKENIZERS");
    char path[1024];
    llm_model_desc md;
    int i;
    memset(&md, 0, sizeof md);
    md.vocab_only = 1;
    n_models = 0;
    while (list && *list && n_models < MAX_MODELS) {
        size_t n = strcspn(list, ","), size;
        snprintf(path, sizeof path, "%.*s", (int)n, list);
        list += n + (list[n] == ',');
        if (!(buffers[n_models] = read_all(path, &size))) { fprintf(stderr, "fuzz_tokenizer: cannot read %s\n", path); abort(); }
        if (llm_model_open_memory(&models[n_models], buffers[n_models], size, &md) != LLM_OK || !llm_tokenizer_info_get(models[n_models])) {
            fprintf(stderr, "fuzz_tokenizer: %s has no tokenizer\n", path);
            abort();
        }
        n_models++;
    }
    for (i = 0; i < n_models; i++) {   /* (added tokens that strip the white space around them lose it, in HF too) */
        static const char probe[] = "a 1.2 \n\n \n\n\n\n b";
        size_t len;
        char *back = round_trip(models[i], probe, sizeof probe - 1, &len);
        lossless[i] = llm_tokenizer_info_get(models[i])->byte_level && len == sizeof probe - 1 && memcmp(back, probe, len) == 0;
        free(back);
    }
    if (n_models == 0) { fprintf(stderr, "fuzz_tokenizer: set LLM_FUZZ_TOKENIZERS\n"); abort(); }
}

/* Length of the valid UTF-8 prefix (the Unicode definition: no overlongs, surrogates or
   values past U+10FFFF). */
static size_t utf8_valid_prefix(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        size_t k;
        if (!len || i + len > n) return i;
        for (k = 1; k < len; k++) if ((s[i + k] & 0xC0) != 0x80) return i;
        if (len == 3 && ((c == 0xE0 && s[i + 1] < 0xA0) || (c == 0xED && s[i + 1] > 0x9F))) return i;
        if (len == 4 && ((c == 0xF0 && s[i + 1] < 0x90) || (c == 0xF4 && s[i + 1] > 0x8F))) return i;
        i += len;
    }
    return i;
}

static int has_replacement(const char *s, size_t n) {
    size_t i;
    for (i = 0; i + 2 < n; i++) if ((uint8_t)s[i] == 0xEF && (uint8_t)s[i + 1] == 0xBF && (uint8_t)s[i + 2] == 0xBD) return 1;
    return 0;
}

/* llm_detokenize into a malloc'ed buffer, through the size protocol. */
static char *detokenize(const llm_model *m, const int32_t *ids, size_t n, int flags, size_t *len) {
    size_t need = 0, got = 0;
    char *out;
    llm_result r = llm_detokenize(m, ids, n, flags, NULL, 0, &need);
    if (r != LLM_OK && r != LLM_ERR_BUFFER_TOO_SMALL) return NULL;
    out = (char *)malloc(need + 1);
    if (!out) abort();
    if (llm_detokenize(m, ids, n, flags, out, need + 1, &got) != LLM_OK || got != need) abort();
    if (utf8_valid_prefix((const uint8_t *)out, got) != got) abort();
    *len = got;
    return out;
}

/* Streams ids through llm_decoder and compares with llm_detokenize. */
static void stream(const llm_model *m, const int32_t *ids, size_t n, int flags) {
    llm_decoder d;
    size_t i, total = 0, len = 0, piece;
    char *whole = detokenize(m, ids, n, flags, &len), *acc = (char *)malloc(64 * n + 64);
    llm_result r;
    if (!acc) abort();
    llm_decoder_init(&d, m);
    d.flags = flags;
    for (i = 0; i < n; i++) {
        llm_decoder before = d;
        r = llm_decoder_push(&d, ids[i], acc + total, 0, &piece);
        if (r == LLM_ERR_BUFFER_TOO_SMALL) {
            if (memcmp(&before, &d, sizeof d) != 0 || piece == 0 || piece > 64) abort();
            r = llm_decoder_push(&d, ids[i], acc + total, piece, &piece);
        }
        if (r == LLM_ERR_BAD_TOKEN) { if (ids[i] >= 0) abort(); continue; }
        if (r != LLM_OK) abort();
        if (utf8_valid_prefix((const uint8_t *)acc + total, piece) != piece) abort();
        total += piece;
    }
    if (llm_decoder_flush(&d, acc + total, 64, &piece) != LLM_OK) abort();
    total += piece;
    if (utf8_valid_prefix((const uint8_t *)acc, total) != total) abort();
    if (whole && !has_replacement(whole, len) && !has_replacement(acc, total) && (total != len || memcmp(acc, whole, len) != 0)) abort();
    free(whole);
    free(acc);
}

/* decode(encode(text)), without special tokens either way. */
static char *round_trip(const llm_model *m, const char *text, size_t size, size_t *len) {
    size_t n = 0;
    int32_t *ids;
    char *out;
    llm_tokenize(m, text, size, 0, NULL, 0, &n);
    if (!(ids = (int32_t *)malloc((n ? n : 1) * sizeof *ids)) || llm_tokenize(m, text, size, 0, ids, n, &n) != LLM_OK) abort();
    out = detokenize(m, ids, n, 0, len);
    if (!out) abort();
    free(ids);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const llm_model *m;
    const llm_tokenizer_info *ti;
    int32_t *ids;
    size_t n = 0, got = 0, i, len;
    int mode, flags;
    if (n_models < 0) load_models();
    if (size < 1) return 0;
    m = models[data[0] % n_models];
    ti = llm_tokenizer_info_get(m);
    mode = (data[0] / MAX_MODELS) % 2;
    flags = (data[0] / (2 * MAX_MODELS)) & 3;
    data++; size--;
    if (mode == 1) { /* ids: pairs of bytes, some past the vocabulary, some negative */
        size_t k = size / 2;
        if (!(ids = (int32_t *)malloc((k ? k : 1) * sizeof *ids))) abort();
        for (i = 0; i < k; i++) ids[i] = (int32_t)((data[2 * i] | data[2 * i + 1] << 8) % (ti->n_tokens + 64)) - (data[2 * i + 1] == 0xFF ? 70000 : 0);
        stream(m, ids, k, flags & LLM_DETOKENIZE_SKIP_SPECIAL);
        free(ids);
        return 0;
    }
    if (llm_tokenize(m, (const char *)data, size, flags, NULL, 0, &n) != LLM_ERR_BUFFER_TOO_SMALL && n != 0) abort();
    if (!(ids = (int32_t *)malloc((n ? n : 1) * sizeof *ids))) abort();
    if (llm_tokenize(m, (const char *)data, size, flags, ids, n, &got) != LLM_OK || got != n) abort();
    for (i = 0; i < n; i++) if (ids[i] < 0 || ids[i] >= ti->n_tokens) abort();
    stream(m, ids, n, 0);
    if (!(flags & LLM_TOKENIZE_PARSE_SPECIAL) && ti->byte_level && lossless[data[-1] % n_models] &&
        utf8_valid_prefix(data, size) == size) {
        /* byte-level BPE: decode(encode(t)) is t for ASCII (and any text without a
           normalizer), and a second round trip changes nothing (NFC is idempotent). Not
           for SentencePiece-style: HF's Metaspace drops a leading space per round trip. */
        char *t1 = round_trip(m, (const char *)data, size, &len), *t2;
        size_t len2, k;
        int ascii = 1;
        for (k = 0; k < size; k++) ascii &= data[k] < 0x80;
        if (ascii && lossless[data[-1] % n_models] && (len != size || memcmp(t1, data, size) != 0)) abort();
        t2 = round_trip(m, t1, len, &len2);
        if (len2 != len || memcmp(t1, t2, len) != 0) abort();
        free(t1);
        free(t2);
    }
    free(ids);
    return 0;
}
