/* The split regex matcher (llm.h, "split regexes in general") and the Split pre-tokenizer.
   1. The three regexes llm.h also scans by hand (GPT-2, Llama 3, Qwen2), compiled, cut
      50000 random strings exactly where the scanners cut them; so does Llama 3's regex as
      tiktoken spells it (possessive quantifiers, '(?i:[sdmt]|ll|ve|re), \s*[\r\n]).
   2. Split behaviours on HF's own cases (tokenizers/src/pre_tokenizers/split.rs tests), and
      what Oniguruma does with lazy, counted, possessive, look-ahead, (?i) and anchored patterns.
   3. A pattern that backtracks without end fails the call; the general categories of the
      Unicode table are Unicode 16.0's (as HF's Oniguruma has them).
   4. Patterns the matcher cannot honour are regex_refused, each with what it does not take. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. the compiled regexes against the hand scanners ---- */

/* Code points that the regexes tell apart: letters of each case and category, marks,
   numbers of each kind, the white space HF's \s takes and some it does not, apostrophes and
   contraction letters, punctuation, and one byte that is not UTF-8. */
static const uint32_t palette[] = {
    'a', 'b', 'Z', 'Q', 's', 't', 'S', 'T', 'r', 'e', 'R', 'E', 'v', 'l', 'L', 'd', 'D', 'm', 'M', 'k', 'K', '\'', '\'',
    ' ', ' ', ' ', '\n', '\r', '\t', '\v', '\f', '0', '1', '9', '.', ',', '!', '-', '/', '_', '"', '(',
    0xA0, 0x85, 0x2028, 0x3000, 0x180E, 0x200B, 0xFEFF, 0x1C,       /* white space and not */
    0xE9, 0xC9, 0x17F, 0x212A, 0x1C5, 0x2B0, 0x4E2D, 0x5D0, 0x301, 0x903, 0x20DD, /* letters, marks */
    0xB2, 0xBD, 0x2167, 0x661, 0x1F600, 0x2019, 0x110000 + 0xFF,
};

static size_t random_text(uint8_t *out, uint32_t *seed) {
    size_t n = 0, len, i;
    *seed = *seed * 1103515245u + 12345u;
    len = (*seed >> 16) % 24;
    for (i = 0; i < len; i++) {
        *seed = *seed * 1103515245u + 12345u;
        n += llm__utf8_put(out + n, palette[(*seed >> 16) % (sizeof palette / sizeof palette[0])]);
    }
    return n;
}

/* Whether the compiled pattern matches at every start the scanner cuts at, up to where the
   scanner's match ends. */
static int same_cuts(llm__tokenize_state *k, const llm__re *re, int kind, const uint8_t *s, size_t n) {
    size_t i = 0, e1, e2;
    while (i < n) {
        e1 = llm__regex_match(kind, s, n, i);
        if (llm__re_run(k, re, 0, s, n, i, &e2) != 1 || e1 != e2) return 0;
        i = e1;
    }
    return 1;
}

static void print_text(const char *what, const uint8_t *s, size_t n) {
    size_t i;
    printf("  %s:", what);
    for (i = 0; i < n; i++) printf(" %02X", s[i]);
    printf("\n");
}

static void test_against_scanners(void) {
    static const char *const tiktoken_llama3 =
        "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+";
    const char *const pattern[4] = { llm__cv_tok_regex_gpt2, llm__cv_tok_regex_llama3, llm__cv_tok_regex_qwen2, tiktoken_llama3 };
    const int kind[4] = { LLM_PRE_GPT2, LLM_PRE_LLAMA3, LLM_PRE_QWEN2, LLM_PRE_LLAMA3 };
    const char *const name[4] = { "GPT-2", "Llama 3", "Qwen2", "Llama 3 as tiktoken writes it" };
    llm__tokenize_state k;
    uint8_t text[24 * 4];
    char err[128];
    int p, t, bad;
    memset(&k, 0, sizeof k);
    for (p = 0; p < 4; p++) {
        llm__re re;
        uint32_t seed = 1u + (uint32_t)p;
        if (llm__re_compile(NULL, &re, pattern[p], strlen(pattern[p]), err, sizeof err)) { check(0, "%s regex compiles: %s", name[p], err); continue; }
        for (t = 0, bad = 0; t < 50000 && bad < 3; t++) {
            size_t n = random_text(text, &seed);
            if (!same_cuts(&k, &re, kind[p], text, n)) { print_text("cut differently", text, n); bad++; }
        }
        check(bad == 0 && k.re_top == 0, "%s regex, compiled: the scanner's cuts on 50000 random strings", name[p]);
        llm__re_free(NULL, &re);
    }
    llm__free(NULL, k.re_stack.p);
}

/* ---- 2. Split behaviours and matching ---- */

/* A byte-level tokenizer whose pre-tokenizer is a Split of the pattern with the behaviour,
   then ByteLevel's prefix space, and whose vocabulary is the 256 bytes and the expected
   pieces with that space. Under ignore_merges a piece that is a token becomes its id and any
   other piece its bytes; every expected piece but " " is a token of two bytes or more, so
   the ids show where the split cut. */
static llm_model *split_model(const char *pattern, int mode, const char *const *pieces, int n_pieces, int32_t *want, void **mem) {
    static uint8_t bytes[4096];
    static int32_t off[300];
    uint8_t flags[300];
    int32_t steps[2] = { LLM_PRE_SPLIT, LLM_PRE_PREFIX_SPACE }, none = 0;
    size_t size = 0, plen = strlen(pattern);
    llm_builder *b;
    const void *hdr;
    size_t hdr_size;
    llm_model *m = NULL;
    llm_model_desc d;
    char blob[512];
    int i, j, n = 256;
    for (i = 0; i < 256; i++) { off[i] = (int32_t)size; bytes[size++] = (uint8_t)i; flags[i] = LLM_TF_MODEL; }
    for (i = 0; i < n_pieces; i++) {
        size_t len = strlen(pieces[i]);
        for (j = 0; j < i && strcmp(pieces[j], pieces[i]) != 0; j++) {}
        want[i] = !strcmp(pieces[i], " ") ? ' ' : j < i ? want[j] : n;
        if (want[i] < n) continue;
        off[n] = (int32_t)size;
        if (pieces[i][0] != ' ') bytes[size++] = ' ';
        memcpy(bytes + size, pieces[i], len);
        size += len;
        flags[n++] = LLM_TF_MODEL;
    }
    off[n] = (int32_t)size;
    memcpy(blob, pattern, plen + 1);
    llm_builder_create(&b);
    llm_builder_set_i32(b, "general.vocab_only", 1);
    llm_builder_set_blob(b, LLM_KEY_TOK_TOKENS, bytes, size);
    llm_builder_set_i32_array(b, LLM_KEY_TOK_OFFSETS, off, (size_t)n + 1);
    llm_builder_set_blob(b, LLM_KEY_TOK_FLAGS, flags, (size_t)n);
    llm_builder_set_i32_array(b, LLM_KEY_TOK_MERGES, &none, 0);
    llm_builder_set_i32(b, LLM_KEY_TOK_BYTE_LEVEL, 1);
    llm_builder_set_i32(b, LLM_KEY_TOK_BPE_OPTIONS, LLM_BPE_IGNORE_MERGES);
    llm_builder_set_i32_array(b, LLM_KEY_TOK_PRE, steps, 2);
    llm_builder_set_blob(b, LLM_KEY_TOK_SPLIT_REGEXES, blob, plen + 1);
    llm_builder_set_i32_array(b, LLM_KEY_TOK_SPLIT_MODES, &mode, 1);
    llm_builder_set_i32(b, LLM_KEY_TOK_DECODER, LLM_DEC_BYTE_LEVEL);
    memset(&d, 0, sizeof d);
    d.vocab_only = 1;
    *mem = NULL;
    if (llm_builder_header(b, &hdr, &hdr_size) == LLM_OK && (*mem = malloc(hdr_size)) != NULL) {
        memcpy(*mem, hdr, hdr_size);
        if (llm_model_open_memory(&m, *mem, hdr_size, &d) != LLM_OK) m = NULL;
    }
    llm_builder_destroy(b);
    return m;
}

static int split_is(const char *pattern, int mode, const char *text, const char *const *pieces, int n_pieces) {
    int32_t want[64], got[256];
    size_t n_got = 0;
    void *mem;
    llm_model *m = split_model(pattern, mode, pieces, n_pieces, want, &mem);
    int i, ok = 0;
    if (m && llm_tokenize(m, text, strlen(text), 0, got, 256, &n_got) == LLM_OK && n_got == (size_t)n_pieces) {
        for (ok = 1, i = 0; i < n_pieces; i++) ok &= got[i] == want[i];
    }
    if (!ok) {
        printf("  /%s/ mode %d on \"%s\":", pattern, mode, text);
        for (i = 0; m && i < (int)n_got && i < 256; i++) {
            size_t len;
            const char *s = llm_token_text(m, got[i], &len);
            printf(" [%.*s]", (int)len, s ? s : "?");
        }
        printf("%s\n", m ? "" : " does not open");
    }
    llm_model_close(m);
    free(mem);
    return ok;
}
#define SPLIT(pattern, mode, text, ...) do { static const char *const p_[] = { __VA_ARGS__ }; \
    CHECK(split_is(pattern, mode, text, p_, (int)(sizeof p_ / sizeof p_[0])), "split /%s/ of \"%s\"", pattern, text); } while (0)

static void test_behaviours(void) {
    /* split.rs "basic": \w+|[^\w\s]+ with invert, here with \w spelled for ASCII */
    const char *w = "[A-Za-z0-9_]+|[^A-Za-z0-9_\\s]+", *s = "How are you doing?";
    int inv = LLM_SPLIT_INVERT;
    SPLIT(w, LLM_SPLIT_REMOVED | inv, s, "How", "are", "you", "doing", "?");
    SPLIT(w, LLM_SPLIT_ISOLATED | inv, s, "How", " ", "are", " ", "you", " ", "doing", "?");
    SPLIT(w, LLM_SPLIT_MERGED_PREVIOUS | inv, s, "How ", "are ", "you ", "doing", "?");
    SPLIT(w, LLM_SPLIT_MERGED_NEXT | inv, s, "How", " are", " you", " doing", "?");
    SPLIT(w, LLM_SPLIT_CONTIGUOUS | inv, s, "How", " ", "are", " ", "you", " ", "doing?");
    /* split.rs "regex_string" and "invert": a String and the regex that matches it agree */
    SPLIT("\\s+", LLM_SPLIT_REMOVED, "Hey, man!", "Hey,", "man!");
    SPLIT("\\ ", LLM_SPLIT_REMOVED, "Hey, man!", "Hey,", "man!");
    SPLIT("\\ ", LLM_SPLIT_REMOVED, "Hello Hello Hello", "Hello", "Hello", "Hello");
    SPLIT("Hello", LLM_SPLIT_REMOVED | inv, "Hello Hello Hello", "Hello", "Hello", "Hello");
    /* without invert: adjacent matches stay apart when merged, join when contiguous */
    SPLIT("-", LLM_SPLIT_MERGED_PREVIOUS, "a--b-", "a-", "-", "b-");
    SPLIT("-", LLM_SPLIT_MERGED_NEXT, "-a--b", "-a", "-", "-b");
    SPLIT("-", LLM_SPLIT_CONTIGUOUS, "a--b-", "a", "--", "b", "-");
    SPLIT("x", LLM_SPLIT_MERGED_PREVIOUS, "no match here", "no match here"); /* gemma3's Split(" ") */
}

static void test_matching(void) {
    const int iso = LLM_SPLIT_ISOLATED;
    SPLIT("a+?", iso, "aaa", "a", "a", "a");                             /* lazy */
    SPLIT("a{2,3}", iso, "aaaaaaa", "aaa", "aaa", "a");                  /* counted; the rest is no match */
    SPLIT("a{2}", iso, "aaaaa", "aa", "aa", "a");
    SPLIT("a{1,3}?", iso, "aaa", "a", "a", "a");
    SPLIT("xa??", iso, "xa", "x", "a");
    SPLIT("xa?", iso, "xa", "xa");
    SPLIT("x(?:ab)*?c", iso, "xababc", "xababc");
    SPLIT("(?:ab){1,2}c?", iso, "abababcab", "abab", "abc", "ab");
    SPLIT("a(?=b)", iso, "aab", "a", "a", "b");                          /* look-ahead */
    SPLIT("a(?!b)", iso, "aab", "a", "ab");
    SPLIT("a*+a|b", iso, "aaab", "aaa", "b");                              /* possessive: a*+ gives nothing back */
    SPLIT("(?>a*)a|b", iso, "aaab", "aaa", "b");
    SPLIT("a*a|b", iso, "aaab", "aaa", "b");                                /* greedy gives one back */
    SPLIT("x|xy|xyz", iso, "xyz", "x", "yz");                             /* the first alternative wins */
    SPLIT("(?i:'s|'t)", iso, "'S'T'\xC5\xBF" "x", "'S", "'T", "'\xC5\xBF", "x"); /* U+017F folds to s */
    SPLIT("(?i:[a-c]k)", iso, "Bk" "b\xE2\x84\xAA" "d", "Bk", "b\xE2\x84\xAA", "d"); /* U+212A folds to k */
    SPLIT("\\p{Lu}+|\\p{Ll}+", iso, "ABcd\xC3\x89\xC3\xA9", "AB", "cd", "\xC3\x89", "\xC3\xA9");
    SPLIT("[\\p{L}\\p{M}]+", iso, "e\xCC\x81x 1", "e\xCC\x81x", " 1");   /* a mark in the class */
    SPLIT("\\P{L}+", iso, "ab12cd", "ab", "12", "cd");
    SPLIT("[^\\s]+", iso, "a\xC2\xA0" "b", "a", "\xC2\xA0", "b");      /* NBSP is \s */
    SPLIT("\\x41|\\u00e9|\\x{1F600}", iso, "A\xC3\xA9\xF0\x9F\x98\x80", "A", "\xC3\xA9", "\xF0\x9F\x98\x80");
    SPLIT(".+", iso, "ab\ncd", "ab", "\n", "cd");                         /* . is not \n */
    /* Ruby syntax's anchors are the line's: $ before a \n (not a \r) or at the end, ^ after a \n
       or at the start (DeepSeek LLM's \s+$ backtracks to the spaces before a newline) */
    SPLIT("\\s+$", iso, " a  \n  b  ", " a", "  ", "\n  b", "  ");
    SPLIT("^a", iso, "aa\naa", "a", "a\n", "a", "a");
    SPLIT("a$", iso, "a\r\na", "a\r\n", "a");
}

/* A pattern that backtracks without end fails the call, as Oniguruma's retry limit would,
   while a long text that a sane pattern backtracks over once per character does not. */
static void test_backtracking_limit(void) {
    static const char *const piece[1] = { "b" };
    static char text[200001];
    int32_t want[1], ids[4];
    size_t n_ids;
    void *mem;
    llm_model *m = split_model("(?:a|a)+b", LLM_SPLIT_ISOLATED, piece, 1, want, &mem);
    llm_result r = m ? llm_tokenize(m, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 40, 0, ids, 4, &n_ids) : LLM_ERR_IO;
    check(r == LLM_ERR_UNSUPPORTED, "(?:a|a)+b on 40 a's: %s (2^40 paths)", llm_result_string(r));
    llm_model_close(m);
    free(mem);
    memset(text, ' ', sizeof text - 2);
    text[sizeof text - 2] = 'x';
    m = split_model("\\s*[\\r\\n]+|\\s+(?!\\S)|\\S", LLM_SPLIT_ISOLATED, piece, 1, want, &mem);
    r = m ? llm_tokenize(m, text, sizeof text - 1, 0, NULL, 0, &n_ids) : LLM_ERR_IO;
    check(r == LLM_ERR_BUFFER_TOO_SMALL, "200000 spaces before a letter: %s (the ids' count asked)", llm_result_string(r));
    llm_model_close(m);
    free(mem);
}

/* The general categories of the Unicode table that \p{} reads, one or more of each, with
   the ranges UnicodeData.txt gives as First/Last pairs and characters of Unicode 15.1 and 16.0
   (tools/ucd16-delta.txt: a CJK Extension I ideograph, Ol Onal and Garay letters, Garay
   digits, a Tulu-Tigalari mark, and a Takri sign whose category 16.0 changed). */
static void test_categories(void) {
    static const struct { uint32_t cp; char gc[3]; } c[] = {
        { 0x41, "Lu" }, { 0x61, "Ll" }, { 0x1C5, "Lt" }, { 0x2B0, "Lm" }, { 0x4E2D, "Lo" }, { 0x9FFF, "Lo" }, { 0xAC01, "Lo" },
        { 0x301, "Mn" }, { 0x903, "Mc" }, { 0x20DD, "Me" }, { 0x30, "Nd" }, { 0x661, "Nd" }, { 0x2167, "Nl" }, { 0xBD, "No" },
        { 0x5F, "Pc" }, { 0x2D, "Pd" }, { 0x28, "Ps" }, { 0x29, "Pe" }, { 0xAB, "Pi" }, { 0xBB, "Pf" }, { 0x21, "Po" },
        { 0x2B, "Sm" }, { 0x24, "Sc" }, { 0x5E, "Sk" }, { 0xA9, "So" }, { 0x1F600, "So" }, { 0x20, "Zs" }, { 0xA0, "Zs" },
        { 0x2028, "Zl" }, { 0x2029, "Zp" }, { 0x0A, "Cc" }, { 0xAD, "Cf" }, { 0xFEFF, "Cf" }, { 0xD800, "Cs" }, { 0xE000, "Co" },
        { 0x10FFFD, "Co" }, { 0x378, "Cn" }, { 0x10FFFF, "Cn" }, { 0x2EBF0, "Lo" }, { 0x1E5D0, "Lo" }, { 0x10D50, "Lu" },
        { 0x10D70, "Ll" }, { 0x10D40, "Nd" }, { 0x113B8, "Mc" }, { 0x1171E, "Mc" }, { 0x1C89, "Lu" }, { 0x1E5FF, "Po" },
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        unsigned g = llm__uprop_gc(c[i].cp) >> 4;
        CHECK(g < 30 && !memcmp(llm__gc_names + 2 * g, c[i].gc, 2), "U+%04X is %s, the table says %.2s", (unsigned)c[i].cp, c[i].gc,
              g < 30 ? llm__gc_names + 2 * g : "??");
    }
}

/* ---- 4. regex_refused patterns ---- */

static void regex_refused(const char *pattern, const char *what) {
    llm__re re;
    char err[128] = "";
    int r = llm__re_compile(NULL, &re, pattern, strlen(pattern), err, sizeof err);
    CHECK(r != 0 && strstr(err, what) != NULL, "/%s/ refused with \"%s\" (got %s \"%s\")", pattern, what, r ? "refusal" : "success", err);
    if (!r) llm__re_free(NULL, &re);
}

static void test_refusals(void) {
    regex_refused("a\\d+", "an unsupported escape \\d at byte 1");
    regex_refused("\\w", "an unsupported escape \\w at byte 0");
    regex_refused("(?<=a)b", "an unsupported (? group");
    regex_refused("(?i)a", "an unsupported (? group");
    regex_refused("[[:alpha:]]", "a nested class");
    regex_refused("[a&&b]", "a class intersection");
    regex_refused("(?i:ss)", "a letter pair that one character folds to");
    regex_refused("(?i:\xC3\xA9)", "a non-ASCII character under (?i)");
    regex_refused("(?i:\\p{L})", "a category under (?i)");
    regex_refused("a*", "a pattern that can match nothing");
    regex_refused("(a*)*b", "a repeated sub-pattern that can match nothing");
    regex_refused("^", "a pattern that can match nothing");
    regex_refused("a$+", "a repeated look-ahead or anchor");
    regex_refused("\\p{Han}", "not a general category");
    regex_refused("\\p{Xy}", "an unknown general category");
    regex_refused("a{1,200}", "over 100");
    regex_refused("a{x}", "not a counted repetition");
    regex_refused("a{2,1}", "malformed");
    regex_refused("a**", "a doubled quantifier");
    regex_refused("(?=a)+b", "a repeated look-ahead");
    regex_refused("(a", "an unclosed group");
    regex_refused("a)", "an unmatched ')'");
    regex_refused("[ab", "an unclosed class");
    regex_refused("[z-a]", "a bad range");
    regex_refused("", "an empty pattern");
    regex_refused("\\x4", "a bad hexadecimal escape");
    regex_refused("a\xFF", "not UTF-8");
    regex_refused("+a", "a quantifier with nothing to repeat");
}

int main(void) {
    test_against_scanners();
    test_behaviours();
    test_matching();
    test_backtracking_limit();
    test_categories();
    test_refusals();
    return check_summary("tokenizer regex: compiled regexes cut as the scanners, Split behaviours as HF, refusals named");
}
