/* Tokenizer API edges on two tiny tokenizers built in memory (no files, no ../shared).
   The expected ids follow from the BPE rules by hand: merges by rank then leftmost, the
   GPT-2 split regex, SentencePiece's "▁" normalizer, byte fallback.

   B, byte-level: ids 0-255 are the bytes; merges h+e=he(256), l+l=ll(257), he+ll=hell(258),
   hell+o=hello(259), " "+w=" w"(260), o+r=or(261), " w"+or=" wor"(262), l+d=ld(263),
   " wor"+ld=" world"(264); added "<|x|>"(265, special) and "<t>"(266).
   S, SentencePiece-style: <unk> <s> </s> (0-2, special), <0x00>..<0xFF> (3-258), "▁"(259),
   a(260), b(261), ▁a(262), ab(263), ▁ab(264), é(265); merges ▁+a, a+b, ▁a+b; byte fallback,
   Prepend/Replace normalizer, decoder with Strip(1), <s> before the text. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Here a check's message is its condition. */
#define CHECK_EXPR(cond) CHECK(cond, "%s", #cond)

typedef struct vocab { uint8_t bytes[8192]; int32_t off[600]; uint8_t flags[600]; int n; size_t size; } vocab;

static void add_token(vocab *v, const char *s, size_t len, int flags) {
    v->off[v->n] = (int32_t)v->size;
    memcpy(v->bytes + v->size, s, len);
    v->size += len;
    v->flags[v->n++] = (uint8_t)flags;
    v->off[v->n] = (int32_t)v->size;
}

/* A vocab-only model in memory from a token table and options. */
static llm_model *tok_make_model(const vocab *v, const int32_t *merges, size_t n_merges, int spm, void **mem) {
    llm_builder *b;
    const void *bytes;
    size_t size;
    llm_model *m = NULL;
    llm_model_desc d;
    int32_t one = 1, steps[1] = { LLM_PRE_GPT2 };
    llm_builder_create(&b);
    llm_builder_set_i32(b, "general.vocab_only", 1);
    llm_builder_set_i32(b, "llm.bos_token_id", spm ? 1 : -1);
    llm_builder_set_blob(b, "tokenizer.tokens", v->bytes, v->size);
    llm_builder_set_i32_array(b, "tokenizer.token_offsets", v->off, (size_t)v->n + 1);
    llm_builder_set_blob(b, "tokenizer.token_flags", v->flags, (size_t)v->n);
    llm_builder_set_i32_array(b, "tokenizer.merges", merges, 3 * n_merges);
    if (spm) {
        llm_builder_set_i32(b, "tokenizer.unk_id", 0);
        llm_builder_set_i32(b, "tokenizer.bpe_options", LLM_BPE_BYTE_FALLBACK | LLM_BPE_FUSE_UNK);
        llm_builder_set_i32(b, "tokenizer.normalizer", LLM_NORM_SPM);
        llm_builder_set_i32(b, "tokenizer.decoder", LLM_DEC_SENTENCEPIECE);
        llm_builder_set_i32(b, "tokenizer.decoder_byte_fallback", 1);
        llm_builder_set_i32(b, "tokenizer.decoder_strip", 1);
        llm_builder_set_i32_array(b, "tokenizer.prefix_ids", &one, 1);
    } else {
        llm_builder_set_i32(b, "tokenizer.byte_level", 1);
        llm_builder_set_i32_array(b, "tokenizer.pre_tokenizer", steps, 1);
        llm_builder_set_i32(b, "tokenizer.decoder", LLM_DEC_BYTE_LEVEL);
    }
    if (llm_builder_header(b, &bytes, &size) == LLM_OK && (*mem = malloc(size)) != NULL) {
        memcpy(*mem, bytes, size);
        memset(&d, 0, sizeof d);
        d.vocab_only = 1;
        if (llm_model_open_memory(&m, *mem, size, &d) != LLM_OK) m = NULL;
    }
    llm_builder_destroy(b);
    return m;
}

static llm_model *make_byte_level(void **mem) {
    static const char *const merged[] = { "he", "ll", "hell", "hello", " w", "or", " wor", "ld", " world" };
    static const int32_t merges[] = { 'h', 'e', 256, 'l', 'l', 257, 256, 257, 258, 258, 'o', 259, ' ', 'w', 260,
                                      'o', 'r', 261, 260, 261, 262, 'l', 'd', 263, 262, 263, 264 };
    static vocab v;
    int i;
    v.n = 0; v.size = 0;
    for (i = 0; i < 256; i++) { char c = (char)i; add_token(&v, &c, 1, LLM_TF_MODEL); }
    for (i = 0; i < 9; i++) add_token(&v, merged[i], strlen(merged[i]), LLM_TF_MODEL);
    add_token(&v, "<|x|>", 5, LLM_TF_ADDED | LLM_TF_SPECIAL);
    add_token(&v, "<t>", 3, LLM_TF_ADDED);
    return tok_make_model(&v, merges, 9, 0, mem);
}

static llm_model *make_spm(void **mem) {
    static const int32_t merges[] = { 259, 260, 262, 260, 261, 263, 262, 261, 264 };
    static vocab v;
    char name[8];
    int i;
    v.n = 0; v.size = 0;
    add_token(&v, "<unk>", 5, LLM_TF_MODEL | LLM_TF_ADDED | LLM_TF_SPECIAL);
    add_token(&v, "<s>", 3, LLM_TF_MODEL | LLM_TF_ADDED | LLM_TF_SPECIAL);
    add_token(&v, "</s>", 4, LLM_TF_MODEL | LLM_TF_ADDED | LLM_TF_SPECIAL);
    for (i = 0; i < 256; i++) { snprintf(name, sizeof name, "<0x%02X>", i); add_token(&v, name, 6, LLM_TF_MODEL); }
    add_token(&v, "\xE2\x96\x81", 3, LLM_TF_MODEL);
    add_token(&v, "a", 1, LLM_TF_MODEL);
    add_token(&v, "b", 1, LLM_TF_MODEL);
    add_token(&v, "\xE2\x96\x81" "a", 4, LLM_TF_MODEL);
    add_token(&v, "ab", 2, LLM_TF_MODEL);
    add_token(&v, "\xE2\x96\x81" "ab", 5, LLM_TF_MODEL);
    add_token(&v, "\xC3\xA9", 2, LLM_TF_MODEL);
    return tok_make_model(&v, merges, 3, 1, mem);
}

/* Tokenizes s and compares with the n expected ids. */
static int ids_are(const llm_model *m, const char *s, size_t len, int flags, const int32_t *want, size_t n) {
    int32_t got[64];
    size_t got_n, i;
    if (llm_tokenize(m, s, len, flags, got, 64, &got_n) != LLM_OK || got_n != n) {
        printf("  \"%.*s\": %lu ids, expected %lu\n", (int)len, s, (unsigned long)got_n, (unsigned long)n);
        return 0;
    }
    for (i = 0; i < n; i++)
        if (got[i] != want[i]) { printf("  \"%.*s\": id %lu is %d, expected %d\n", (int)len, s, (unsigned long)i, got[i], want[i]); return 0; }
    return 1;
}
#define IDS(m, s, flags, ...) do { static const int32_t w_[] = { __VA_ARGS__ }; \
    CHECK_EXPR(ids_are(m, s, sizeof(s) - 1, flags, w_, sizeof w_ / sizeof w_[0])); } while (0)

static int text_is(const llm_model *m, const int32_t *ids, size_t n, int flags, const char *want) {
    char out[256];
    size_t got;
    if (llm_detokenize(m, ids, n, flags, out, sizeof out, &got) != LLM_OK) return 0;
    if (got != strlen(want) || memcmp(out, want, got) != 0) { printf("  decoded \"%.*s\", expected \"%s\"\n", (int)got, out, want); return 0; }
    return 1;
}
#undef TEXT /* windows.h has one */
#define TEXT(m, flags, want, ...) do { static const int32_t i_[] = { __VA_ARGS__ }; \
    CHECK_EXPR(text_is(m, i_, sizeof i_ / sizeof i_[0], flags, want)); } while (0)

/* The pieces of a streaming decode, concatenated. */
static size_t stream(const llm_model *m, const int32_t *ids, size_t n, int flags, char *out, size_t cap) {
    llm_decoder d;
    size_t i, total = 0, got;
    llm_decoder_init(&d, m);
    d.flags = flags;
    for (i = 0; i < n; i++) {
        if (llm_decoder_push(&d, ids[i], out + total, cap - total, &got) != LLM_OK) return (size_t)-1;
        total += got;
    }
    if (llm_decoder_flush(&d, out + total, cap - total, &got) != LLM_OK) return (size_t)-1;
    return total + got;
}

static void test_no_tokenizer(void) {
    llm_builder *b;
    const void *bytes;
    size_t size, n = 7;
    llm_model *m;
    llm_model_desc d;
    int32_t id = 5;
    char out[8];
    void *mem;
    llm_decoder dec;
    llm_builder_create(&b);
    llm_builder_set_i32(b, "general.vocab_only", 1);
    llm_builder_header(b, &bytes, &size);
    mem = malloc(size);
    memcpy(mem, bytes, size);
    memset(&d, 0, sizeof d);
    CHECK_EXPR(llm_model_open_memory(&m, mem, size, &d) == LLM_ERR_UNSUPPORTED); /* a vocab-only file needs vocab_only */
    d.vocab_only = 1;
    CHECK_EXPR(llm_model_open_memory(&m, mem, size, &d) == LLM_OK);
    CHECK_EXPR(llm_tokenize(m, "hi", 2, 0, &id, 1, &n) == LLM_ERR_UNSUPPORTED && n == 0);
    CHECK_EXPR(llm_detokenize(m, &id, 1, 0, out, sizeof out, &n) == LLM_ERR_UNSUPPORTED);
    CHECK_EXPR(llm_token_find(m, "hi", 2) == -1 && llm_token_text(m, 0, &n) == NULL && !llm_token_is_special(m, 0));
    CHECK_EXPR(llm_tokenizer_info_get(m) == NULL);
    llm_decoder_init(&dec, m);
    CHECK_EXPR(llm_decoder_push(&dec, 0, out, sizeof out, &n) == LLM_ERR_UNSUPPORTED);
    {
        llm_ctx *ctx;
        CHECK_EXPR(llm_ctx_open(&ctx, m, NULL) == LLM_ERR_UNSUPPORTED); /* no tensors were read */
    }
    llm_model_close(m);
    llm_builder_destroy(b);
    free(mem);
}

static void test_byte_level(void) {
    void *mem;
    llm_model *m = make_byte_level(&mem);
    const int P = LLM_TOKENIZE_PARSE_SPECIAL;
    int32_t ids[8], big_ids[4];
    size_t n, i;
    char out[64];
    CHECK_EXPR(m != NULL);
    if (!m) return;
    IDS(m, "hello world", 0, 259, 264);
    IDS(m, "hell", 0, 258);
    IDS(m, "lll", 0, 257, 'l');                    /* equal ranks: the leftmost first */
    CHECK_EXPR(llm_tokenize(m, "", 0, LLM_TOKENIZE_ADD_SPECIAL, ids, 8, &n) == LLM_OK && n == 0);
    CHECK_EXPR(llm_tokenize(m, NULL, 0, 0, NULL, 0, &n) == LLM_OK && n == 0);
    IDS(m, "   ", 0, ' ', ' ', ' ');
    IDS(m, "a  world", 0, 'a', ' ', 264);           /* \s+(?!\S) leaves the last space to the word */
    IDS(m, "<|x|>hello<|x|>", P, 265, 259, 265);
    IDS(m, "<|x|>hello<|x|>", 0, '<', '|', 'x', '|', '>', 259, '<', '|', 'x', '|', '>');
    IDS(m, "a<t>b", 0, 'a', 266, 'b');               /* non-special added tokens always match */
    IDS(m, "don't", 0, 'd', 'o', 'n', '\'', 't');
    IDS(m, "\xFF\xFEhello\xC3", 0, 255, 254, 259, 195); /* invalid UTF-8: one byte each */
    TEXT(m, 0, "\xEF\xBF\xBD\xEF\xBF\xBDhello\xEF\xBF\xBD", 255, 254, 259, 195);
    TEXT(m, 0, "<|x|>hello", 265, 259);
    TEXT(m, LLM_DETOKENIZE_SKIP_SPECIAL, " world", 265, 264);
    TEXT(m, 0, "\xE2\x82\xAC\xEF\xBF\xBD", 0xE2, 0x82, 0xAC, 0xE2); /* one U+FFFD per maximal invalid part */
    TEXT(m, 0, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 0xED, 0xA0, 0x80);
    /* the needed count when the buffer is short, the first ids filled */
    CHECK_EXPR(llm_tokenize(m, "hello world hello", 17, 0, ids, 2, &n) == LLM_ERR_BUFFER_TOO_SMALL && n == 4 && ids[0] == 259 && ids[1] == 264);
    IDS(m, "hello world hello", 0, 259, 264, ' ', 259); /* no merge joins " " and "hello" */
    CHECK_EXPR(llm_detokenize(m, ids, 2, 0, out, 4, &n) == LLM_ERR_BUFFER_TOO_SMALL && n == 11);
    CHECK_EXPR(llm_token_find(m, "hello", 5) == 259 && llm_token_find(m, "<|x|>", 5) == 265 && llm_token_find(m, "nope", 4) == -1);
    CHECK_EXPR(llm_token_text(m, 264, &n) && n == 6 && memcmp(llm_token_text(m, 264, &n), " world", 6) == 0);
    CHECK_EXPR(llm_token_is_special(m, 265) && !llm_token_is_special(m, 266) && !llm_token_is_special(m, 9999));
    CHECK_EXPR(llm_tokenizer_info_get(m)->n_tokens == 267 && llm_tokenizer_info_get(m)->byte_level == 1);
    { /* streaming: only complete UTF-8 per push; a full buffer leaves the state alone */
        llm_decoder d;
        llm_decoder_init(&d, m);
        CHECK_EXPR(llm_decoder_push(&d, 0xE2, out, sizeof out, &n) == LLM_OK && n == 0);
        CHECK_EXPR(llm_decoder_push(&d, 0x82, out, sizeof out, &n) == LLM_OK && n == 0);
        CHECK_EXPR(llm_decoder_push(&d, 0xAC, out, 2, &n) == LLM_ERR_BUFFER_TOO_SMALL && n == 3);
        CHECK_EXPR(llm_decoder_push(&d, 0xAC, out, sizeof out, &n) == LLM_OK && n == 3 && memcmp(out, "\xE2\x82\xAC", 3) == 0);
        CHECK_EXPR(llm_decoder_push(&d, 0xE2, out, sizeof out, &n) == LLM_OK && n == 0);
        CHECK_EXPR(llm_decoder_flush(&d, out, sizeof out, &n) == LLM_OK && n == 3 && memcmp(out, "\xEF\xBF\xBD", 3) == 0);
        CHECK_EXPR(llm_decoder_push(&d, -1, out, sizeof out, &n) == LLM_ERR_BAD_TOKEN);
    }
    { /* stream == batch for random ids; decode(encode(x)) == x for bytes that are UTF-8 */
        static char a[4096], b[4096];
        int32_t r[40];
        unsigned seed = 7;
        int t, k;
        for (t = 0; t < 500; t++) {
            size_t na, nb, nr = (size_t)(t % 40);
            for (k = 0; k < (int)nr; k++) { seed = seed * 1103515245u + 12345u; r[k] = (int32_t)((seed >> 8) % 267); }
            nb = stream(m, r, nr, 0, b, sizeof b);
            CHECK_EXPR(llm_detokenize(m, r, nr, 0, a, sizeof a, &na) == LLM_OK && na == nb && memcmp(a, b, na) == 0);
        }
    }
    { /* long inputs: 3 MB of "hello world " and a 1.5 MB word (quadratic time would not end) */
        size_t len = 12u << 18, got;
        char *text = (char *)malloc(len), *back = (char *)malloc(len);
        int32_t *many = (int32_t *)malloc(len * sizeof *many);
        clock_t t0 = clock();
        for (i = 0; i < len; i++) text[i] = "hello world "[i % 12];
        /* "hello", then " world" and " " "hello" each time, and the last " " */
        CHECK_EXPR(llm_tokenize(m, text, len, 0, many, len, &n) == LLM_OK && n == 3 * (len / 12));
        CHECK_EXPR(llm_detokenize(m, many, n, 0, back, len, &got) == LLM_OK && got == len && memcmp(back, text, len) == 0);
        for (i = 0; i < len / 2; i++) text[i] = (char)('a' + (i * 7 + i / 3) % 26);
        CHECK_EXPR(llm_tokenize(m, text, len / 2, 0, many, len, &n) == LLM_OK);
        CHECK_EXPR(llm_detokenize(m, many, n, 0, back, len, &got) == LLM_OK && got == len / 2 && memcmp(back, text, got) == 0);
        CHECK_EXPR(llm_tokenize(m, text, len / 2, 0, big_ids, 4, &n) == LLM_ERR_BUFFER_TOO_SMALL);
        printf("long inputs: %.2f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
        free(text); free(back); free(many);
    }
    llm_model_close(m);
    free(mem);
}

static void test_sentencepiece(void) {
    void *mem;
    llm_model *m = make_spm(&mem);
    const int A = LLM_TOKENIZE_ADD_SPECIAL, P = LLM_TOKENIZE_PARSE_SPECIAL;
    size_t n;
    char out[64];
    CHECK_EXPR(m != NULL);
    if (!m) return;
    IDS(m, "", A, 1);                               /* an empty text gets only BOS */
    CHECK_EXPR(llm_tokenize(m, "", 0, 0, NULL, 0, &n) == LLM_OK && n == 0);
    IDS(m, "ab", A, 1, 264);
    IDS(m, " ", 0, 259, 259);                       /* Prepend + Replace: two "▁" */
    IDS(m, "ab ab", 0, 264, 264);
    IDS(m, "c", 0, 259, 3 + 'c');                    /* byte fallback */
    IDS(m, "\xFF", 0, 259, 3 + 0xFF);                /* an invalid byte: its <0xFF> */
    IDS(m, "\xC3\xA9", 0, 259, 265);
    IDS(m, "<s>ab", P, 1, 264);                      /* the piece after an added token gets its own "▁" */
    IDS(m, "<s>ab", A | P, 1, 1, 264);
    IDS(m, "ab<s>", P, 264, 1);
    IDS(m, "<s>", 0, 259, 3 + '<', 3 + 's', 3 + '>');
    TEXT(m, 0, "<s> ab", 1, 264);
    TEXT(m, LLM_DETOKENIZE_SKIP_SPECIAL, "ab", 1, 264);
    TEXT(m, 0, "ab ab", 264, 264);
    TEXT(m, 0, "\xE2\x82\xAC", 3 + 0xE2, 3 + 0x82, 3 + 0xAC);
    TEXT(m, 0, "\xEF\xBF\xBD\xEF\xBF\xBD", 3 + 0xE2, 3 + 0x82);                 /* an invalid run: */
    TEXT(m, 0, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD", 3 + 0xE2, 3 + 0x82, 3 + 0xAC, 3 + 0xE2); /* U+FFFD per byte */
    TEXT(m, 0, "\xEF\xBF\xBD\xEF\xBF\xBD", 3 + 'h', 3 + 0xAF);
    TEXT(m, LLM_DETOKENIZE_SKIP_SPECIAL, "\xE2\x82\xAC", 3 + 0xE2, 1, 3 + 0x82, 3 + 0xAC); /* skipped tokens do not cut runs */
    TEXT(m, 0, "a", 3 + ' ', 260);                   /* Strip takes a leading space from <0x20> too */
    CHECK_EXPR(llm_tokenizer_info_get(m)->adds_bos && llm_tokenizer_info_get(m)->unk_id == 0);
    { /* streaming drops the leading space once and emits whole characters */
        llm_decoder d;
        llm_decoder_init(&d, m);
        CHECK_EXPR(llm_decoder_push(&d, 264, out, sizeof out, &n) == LLM_OK && n == 2 && memcmp(out, "ab", 2) == 0);
        CHECK_EXPR(llm_decoder_push(&d, 264, out, sizeof out, &n) == LLM_OK && n == 3 && memcmp(out, " ab", 3) == 0);
        CHECK_EXPR(llm_decoder_push(&d, 3 + 0xE2, out, sizeof out, &n) == LLM_OK && n == 0);
        CHECK_EXPR(llm_decoder_push(&d, 3 + 0x82, out, sizeof out, &n) == LLM_OK && n == 0);
        CHECK_EXPR(llm_decoder_push(&d, 3 + 0xAC, out, sizeof out, &n) == LLM_OK && n == 3);
        CHECK_EXPR(llm_decoder_push(&d, 3 + 0xE2, out, sizeof out, &n) == LLM_OK && n == 0);
        CHECK_EXPR(llm_decoder_push(&d, 260, out, sizeof out, &n) == LLM_OK && n == 4 && memcmp(out, "\xEF\xBF\xBD" "a", 4) == 0);
    }
    { /* stream == batch when the byte runs are whole characters */
        static const int32_t pool[] = { 0, 1, 2, 259, 260, 261, 262, 263, 264, 265, 3 + ' ', 3 + 'x' };
        static char a[2048], b[2048];
        int32_t r[64];
        unsigned seed = 11;
        int t, k, flags;
        for (t = 0; t < 500; t++) {
            size_t na, nb, nr = 0, cnt = (size_t)(t % 20);
            for (k = 0; k < (int)cnt; k++) {
                seed = seed * 1103515245u + 12345u;
                if ((seed >> 8) % 5 == 0) { r[nr++] = 3 + 0xE2; r[nr++] = 3 + 0x82; r[nr++] = 3 + 0xAC; }
                else r[nr++] = pool[(seed >> 12) % (sizeof pool / sizeof pool[0])];
            }
            for (flags = 0; flags < 2; flags++) {
                nb = stream(m, r, nr, flags, b, sizeof b);
                CHECK_EXPR(llm_detokenize(m, r, nr, flags, a, sizeof a, &na) == LLM_OK && na == nb && memcmp(a, b, na) == 0);
            }
        }
    }
    llm_model_close(m);
    free(mem);
}

/* Long SentencePiece-style pieces are cut before a "▁" for speed, but never where a token
   has "▁" right after the character before it: here "a▁" and "a▁b" (merges a+▁, a▁+b) must
   still form across every "▁" that follows an "a", while a cut after each "b" is safe. */
static void test_spm_cuts(void) {
    static const int32_t merges[] = { 260, 259, 262, 262, 261, 263 };
    static vocab v;
    static char text[4 * 40 + 1];
    int32_t want[1 + 2 * 40], got[1 + 2 * 40 + 8];
    char name[8];
    void *mem;
    llm_model *m;
    size_t n = 0;
    int i, same = 1;
    v.n = 0; v.size = 0;
    add_token(&v, "<unk>", 5, LLM_TF_MODEL | LLM_TF_ADDED | LLM_TF_SPECIAL);
    add_token(&v, "<s>", 3, LLM_TF_MODEL | LLM_TF_ADDED | LLM_TF_SPECIAL);
    add_token(&v, "</s>", 4, LLM_TF_MODEL | LLM_TF_ADDED | LLM_TF_SPECIAL);
    for (i = 0; i < 256; i++) { snprintf(name, sizeof name, "<0x%02X>", i); add_token(&v, name, 6, LLM_TF_MODEL); }
    add_token(&v, "\xE2\x96\x81", 3, LLM_TF_MODEL);          /* 259 */
    add_token(&v, "a", 1, LLM_TF_MODEL);                      /* 260 */
    add_token(&v, "b", 1, LLM_TF_MODEL);                      /* 261 */
    add_token(&v, "a\xE2\x96\x81", 4, LLM_TF_MODEL);         /* 262 */
    add_token(&v, "a\xE2\x96\x81" "b", 5, LLM_TF_MODEL);     /* 263 */
    m = tok_make_model(&v, merges, 2, 1, &mem);
    CHECK_EXPR(m != NULL);
    if (!m) return;
    want[0] = 1;
    memcpy(text, "a b", 3);   /* "a b a b ... a b": "▁a▁b" forty times once normalized */
    for (i = 0; i < 40; i++) { if (i) memcpy(text + 4 * i - 1, " a b", 4); want[1 + 2 * i] = 259; want[2 + 2 * i] = 263; }
    if (llm_tokenize(m, text, 4 * 40 - 1, LLM_TOKENIZE_ADD_SPECIAL, got, sizeof got / sizeof got[0], &n) != LLM_OK || n != 1 + 2 * 40) same = 0;
    for (i = 0; same && i < 1 + 2 * 40; i++) same = got[i] == want[i];
    check(same, "a long SentencePiece piece is cut only where no token joins across (%lu ids)", (unsigned long)n);
    llm_model_close(m);
    free(mem);
}

static void test_unicode(void) {
    unsigned c;
    for (c = 0; c < 128; c++) CHECK_EXPR(llm__ascii_prop(c) == llm__uprop(c));
    CHECK_EXPR(llm__uprop(0x00E9) & LLM__U_LETTER);
    CHECK_EXPR(llm__uprop(0x0661) & LLM__U_NUMBER && llm__uprop(0x2167) & LLM__U_NUMBER && llm__uprop(0x00BD) & LLM__U_NUMBER);
    CHECK_EXPR(llm__uprop(0x0085) & LLM__U_SPACE && llm__uprop(0x3000) & LLM__U_SPACE && llm__uprop(0x2028) & LLM__U_SPACE);
    CHECK_EXPR(!(llm__uprop(0xFEFF) & LLM__U_SPACE) && !(llm__uprop(0x200B) & LLM__U_SPACE) && !(llm__uprop(0x180E) & LLM__U_SPACE));
    CHECK_EXPR(!(llm__uprop(0x1C) & LLM__U_SPACE));
    CHECK_EXPR(llm__uprop(0x0301) & LLM__U_WORD && !(llm__uprop(0x0301) & LLM__U_LETTER) && llm__uprop(0x200D) & LLM__U_WORD);
    CHECK_EXPR(llm__ccc(0x0301) == 230 && llm__ccc(0x0327) == 202 && llm__ccc('a') == 0);
    CHECK_EXPR(llm__compose('e', 0x0301) == 0xE9 && llm__compose(0x1100, 0x1161) == 0xAC00 && llm__compose('q', 0x0301) == 0);
    for (c = 0; c < 256; c++) CHECK_EXPR(llm__byte_level_byte(llm__byte_level_char((uint8_t)c)) == (int)c);
    CHECK_EXPR(llm__byte_level_char(' ') == 0x120 && llm__byte_level_char('\n') == 0x10A && llm__byte_level_char(0xAD) == 0x143);
}

int main(void) {
    test_unicode();
    test_no_tokenizer();
    test_byte_level();
    test_sentencepiece();
    test_spm_cuts();
    return check_summary("tokenizer: all checks pass");
}
