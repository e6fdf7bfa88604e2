/* llm_generate on the shipped kjv-tiny model (converted here with build/convert): a second
   turn evaluates only what the KV cache lacks and then holds bitwise the logits of a fresh
   context; the streamed pieces are the reply's text after the decoded prompt; one BOS;
   stop tokens, max_tokens, the callback and a full context end a reply; a prompt that does
   not fit leaves the context as it was; a seed gives the same tokens for any thread count. */
#include "../llm.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "build/tests/generate/kjv.llm"

typedef struct reply {
    char text[8192];
    size_t len;
    int32_t ids[512];
    int n, stop_after, saw_flush;
} reply;

static int collect(void *user, const char *piece, size_t len, int32_t id) {
    reply *r = (reply *)user;
    if (id < 0) { r->saw_flush = 1; return 0; }
    if (piece && r->len + len < sizeof r->text) { memcpy(r->text + r->len, piece, len); r->len += len; r->text[r->len] = 0; }
    if (r->n < 512) r->ids[r->n++] = id;
    return r->stop_after && r->n == r->stop_after;
}

static llm_ctx *new_ctx(const llm_model *m, int32_t n_ctx, int32_t threads) {
    llm_ctx *c = NULL;
    llm_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.n_ctx = n_ctx;
    d.n_threads = threads;
    if (llm_ctx_open(&c, m, &d) != LLM_OK) { printf("FAIL cannot open a context\n"); exit(1); }
    return c;
}

static llm_result gen(llm_ctx *c, const char *text, int32_t max, llm_sampler *s, reply *r, llm_generate_stats *st) {
    llm_generate_desc d;
    memset(&d, 0, sizeof d);
    memset(r, 0, sizeof *r);
    d.max_tokens = max;
    d.sampler = s;
    d.on_token = collect;
    d.user = r;
    return llm_generate(c, text, strlen(text), &d, st);
}

/* Turn two of a conversation reuses turn one's tokens, and ends where a fresh context does. */
static void test_reuse(const llm_model *m) {
    const char *p1 = "In the beginning";
    char p2[9000];
    reply r1, r2, rf;
    llm_generate_stats s1, s2, sf;
    llm_ctx *a = new_ctx(m, 256, 1), *b = new_ctx(m, 256, 1);
    int32_t nv = llm_model_info_get(m)->n_vocab;
    CHECK(gen(a, p1, 16, NULL, &r1, &s1) == LLM_OK && r1.n == 16 && s1.stop == LLM_STOP_MAX, "turn 1: %d tokens", r1.n);
    CHECK(s1.n_reused == 0 && s1.n_evaluated == s1.n_prompt && s1.n_prompt == 5, "turn 1 prompt: %d tokens", s1.n_prompt);
    CHECK(llm_ctx_pos(a) == s1.n_prompt + 15, "turn 1 leaves %d tokens (the last one sampled is not evaluated)", llm_ctx_pos(a));
    snprintf(p2, sizeof p2, "%s%s And God said", p1, r1.text);
    CHECK(gen(a, p2, -1, NULL, &r2, &s2) == LLM_OK && r2.n == 0, "turn 2 prompt");
    printf("turn 2: %d prompt tokens, %d reused, %d evaluated\n", s2.n_prompt, s2.n_reused, s2.n_evaluated);
    CHECK(s2.n_reused >= s1.n_prompt + 16 - 2 && s2.n_evaluated == s2.n_prompt - s2.n_reused && s2.n_evaluated <= 6,
          "turn 2 should evaluate only the new text: %d reused, %d evaluated", s2.n_reused, s2.n_evaluated);
    CHECK(gen(b, p2, -1, NULL, &rf, &sf) == LLM_OK && sf.n_evaluated == s2.n_prompt, "fresh context");
    CHECK(llm_ctx_pos(a) == llm_ctx_pos(b) && !memcmp(llm_ctx_tokens(a), llm_ctx_tokens(b), (size_t)llm_ctx_pos(b) * 4), "tokens differ");
    CHECK(!memcmp(llm_logits(a), llm_logits(b), (size_t)nv * sizeof(float)), "logits after reuse differ from a fresh context's");
    gen(a, p2, 12, NULL, &r2, &s2);
    gen(b, p2, 12, NULL, &rf, &sf);
    CHECK(s2.n_evaluated == 0 && s2.n_reused == s2.n_prompt, "the same prompt again evaluates nothing: %d", s2.n_evaluated);
    CHECK(r2.n == 12 && rf.n == 12 && !memcmp(r2.ids, rf.ids, sizeof r2.ids[0] * 12) && !strcmp(r2.text, rf.text),
          "replies after reuse and fresh differ:\n  %s\n  %s", r2.text, rf.text);
    llm_ctx_close(a);
    llm_ctx_close(b);
}

/* The pieces are what the reply adds to the decoded prompt (no SentencePiece space lost). */
static void test_pieces(const llm_model *m) {
    reply r;
    llm_generate_stats st;
    llm_ctx *c = new_ctx(m, 256, 1);
    int32_t all[600];
    char full[9000], pre[9000];
    size_t nf = 0, np = 0, n = 0;
    int i;
    gen(c, "In the beginning", 40, NULL, &r, &st);
    memcpy(all, llm_ctx_tokens(c), (size_t)st.n_prompt * 4);
    for (i = 0; i < r.n; i++) all[st.n_prompt + i] = r.ids[i];
    n = (size_t)(st.n_prompt + r.n);
    CHECK(llm_detokenize(m, all, (size_t)st.n_prompt, LLM_DETOKENIZE_SKIP_SPECIAL, pre, sizeof pre, &np) == LLM_OK, "detokenize");
    CHECK(llm_detokenize(m, all, n, LLM_DETOKENIZE_SKIP_SPECIAL, full, sizeof full, &nf) == LLM_OK, "detokenize");
    CHECK(nf == np + r.len && !memcmp(full, pre, np) && !memcmp(full + np, r.text, r.len),
          "pieces '%s' are not the decoded sequence after the prompt", r.text);
    CHECK(r.len > 0 && r.text[0] == ' ', "a continuation keeps its leading space: '%s'", r.text);
    llm_ctx_close(c);
}

static void test_bos(const llm_model *m) {
    llm_ctx *a = new_ctx(m, 64, 1), *b = new_ctx(m, 64, 1);
    reply r;
    llm_generate_stats sa, sb;
    int32_t bos = llm_model_info_get(m)->bos_id;
    gen(a, "In the beginning", -1, NULL, &r, &sa);
    gen(b, "<s>In the beginning", -1, NULL, &r, &sb);
    CHECK(sa.n_prompt == sb.n_prompt && !memcmp(llm_ctx_tokens(a), llm_ctx_tokens(b), (size_t)sa.n_prompt * 4), "BOS: %d vs %d tokens",
          sa.n_prompt, sb.n_prompt);
    CHECK(llm_ctx_tokens(a)[0] == bos && llm_ctx_tokens(a)[1] != bos, "one BOS first");
    llm_ctx_close(a);
    llm_ctx_close(b);
}

static void test_stops(const llm_model *m) {
    llm_ctx *c = new_ctx(m, 256, 1), *small = new_ctx(m, 12, 1);
    reply r, base;
    llm_generate_stats st;
    llm_generate_desc d;
    int32_t stop, before[12];
    int k, j, pos;
    const char *p = "In the beginning";
    gen(c, p, 20, NULL, &base, &st);
    for (k = 1; k < base.n; k++) { /* the first id not seen before it */
        for (j = 0; j < k && base.ids[j] != base.ids[k]; j++) {}
        if (j == k) break;
    }
    stop = base.ids[k];
    memset(&d, 0, sizeof d);
    memset(&r, 0, sizeof r);
    d.stop_ids = &stop;
    d.n_stop_ids = 1;
    d.on_token = collect;
    d.user = &r;
    CHECK(llm_generate(c, p, strlen(p), &d, &st) == LLM_OK && st.stop == LLM_STOP_TOKEN && st.stop_id == stop && r.n == k &&
          st.n_generated == k, "stop token %d after %d tokens: stop %d, %d tokens", stop, k, st.stop, r.n);
    memset(&r, 0, sizeof r);
    r.stop_after = 3;
    d.n_stop_ids = 0;
    CHECK(llm_generate(c, p, strlen(p), &d, &st) == LLM_OK && st.stop == LLM_STOP_CALLBACK && st.n_generated == 3, "callback stop");
    CHECK(gen(c, p, 1, NULL, &r, &st) == LLM_OK && st.stop == LLM_STOP_MAX && r.n == 1, "max_tokens 1");
    /* a full context: 5 prompt tokens and 12 positions give 8 tokens, the last one not evaluated */
    CHECK(gen(small, p, 0, NULL, &r, &st) == LLM_OK && st.stop == LLM_STOP_CONTEXT_FULL && r.n == 8 && llm_ctx_pos(small) == 12,
          "context full: %d tokens, stop %d, pos %d", r.n, st.stop, llm_ctx_pos(small));
    pos = llm_ctx_pos(small);
    memcpy(before, llm_ctx_tokens(small), sizeof before);
    CHECK(gen(small, "In the beginning God created the heaven and the earth", 4, NULL, &r, &st) == LLM_ERR_CONTEXT_FULL &&
          st.n_prompt > 12 && r.n == 0, "a prompt longer than the context: %d tokens", st.n_prompt);
    CHECK(llm_ctx_pos(small) == pos && !memcmp(before, llm_ctx_tokens(small), sizeof before), "a refused prompt changed the context");
    memset(&d, 0, sizeof d);
    d.n_reserve = 8;
    CHECK(llm_generate(small, p, strlen(p), &d, &st) == LLM_ERR_CONTEXT_FULL && st.n_prompt == 5 && llm_ctx_pos(small) == pos,
          "5 tokens and 8 reserved do not fit in 12");
    d.n_reserve = 7;
    CHECK(llm_generate(small, p, strlen(p), &d, &st) == LLM_OK, "5 tokens and 7 reserved fit in 12");
    {
        int32_t bad[2] = { 1, 1 << 20 };
        pos = llm_ctx_pos(small);
        CHECK(llm_generate_tokens(small, bad, 2, NULL, &st) == LLM_ERR_BAD_TOKEN && llm_ctx_pos(small) == pos, "bad token");
        CHECK(llm_generate_tokens(NULL, bad, 1, NULL, &st) == LLM_ERR_INVALID_ARGUMENT, "no context");
        CHECK(llm_generate_tokens(small, bad, 0, NULL, &st) == LLM_ERR_INVALID_ARGUMENT, "no prompt");
    }
    llm_ctx_close(c);
    llm_ctx_close(small);
}

/* Same seed: same tokens, for 1 and 2 threads; another seed: other tokens. */
static void test_seed(const llm_model *m) {
    reply r[3];
    llm_generate_stats st;
    int i;
    for (i = 0; i < 3; i++) {
        llm_ctx *c = new_ctx(m, 128, i == 1 ? 2 : 1);
        llm_sampler s;
        memset(&s, 0, sizeof s);
        s.temperature = 0.9f;
        s.top_k = 40;
        s.top_p = 0.95f;
        s.seed = i == 2 ? 8 : 7;
        gen(c, "In the beginning", 12, &s, &r[i], &st);
        llm_ctx_close(c);
    }
    CHECK(r[0].n == 12 && r[1].n == 12 && !memcmp(r[0].ids, r[1].ids, sizeof r[0].ids[0] * 12), "seed 7 differs between 1 and 2 threads");
    CHECK(memcmp(r[0].ids, r[2].ids, sizeof r[0].ids[0] * 12) != 0, "seeds 7 and 8 gave the same 12 tokens");
    printf("seed 7: %s\n", r[0].text);
}

int main(void) {
    llm_model *m;
    if (system("mkdir -p build/tests/generate && build/convert models/kjv-tiny " MODEL " > build/tests/generate/convert.log 2>&1") != 0) {
        printf("FAIL build/convert models/kjv-tiny (see build/tests/generate/convert.log)\n");
        return 1;
    }
    if (llm_model_open(&m, MODEL, NULL) != LLM_OK) { printf("FAIL cannot open " MODEL "\n"); return 1; }
    test_reuse(m);
    test_pieces(m);
    test_bos(m);
    test_stops(m);
    test_seed(m);
    llm_model_close(m);
    return check_summary("generation: all checks passed");
}
