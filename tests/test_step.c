/* The step API and all-position logits on the shipped kjv-tiny model: stepping a generation
   gives exactly llm_generate's tokens, text and final logits, each step evaluating at most
   one prompt chunk or one token and producing at most one token; stop tokens, max_tokens,
   the callback and max_tokens -1 end it as they end llm_generate; a generation whose context
   changed (llm_eval, or a second generation's step) stops with its own error, the context's
   untouched; a step before any start is refused; a choose callback picks the tokens. With
   logits_all, the
   logits of every position of a chunk are those a token-by-token evaluation computes. */
#include "../llm.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "build/tests/step/kjv.llm"
#define NV 2048

static const char *prompt =
    "And it came to pass, when men began to multiply on the face of the earth, and daughters were born "
    "unto them, That the sons of God saw the daughters of men that they were fair;";

typedef struct reply {
    char text[4096];
    size_t len;
    int32_t ids[256];
    int n, stop_after;
} reply;

static void add(reply *r, const char *piece, size_t len, int32_t id) {
    if (piece && r->len + len < sizeof r->text) { memcpy(r->text + r->len, piece, len); r->len += len; r->text[r->len] = 0; }
    if (id >= 0 && r->n < 256) r->ids[r->n++] = id;
}

static int collect(void *user, const char *piece, size_t len, int32_t id) {
    reply *r = (reply *)user;
    add(r, piece, len, id);
    return r->stop_after && r->n == r->stop_after;
}

static llm_ctx *new_ctx(const llm_model *m, int32_t n_batch, int logits_all) {
    llm_ctx *c = NULL;
    llm_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.n_ctx = 256;
    d.n_threads = 1;
    d.n_batch = n_batch;
    d.logits_all = logits_all;
    if (llm_ctx_open(&c, m, &d) != LLM_OK) { printf("FAIL cannot open a context\n"); exit(1); }
    return c;
}

static void desc_init(llm_generate_desc *d, llm_sampler *s, int32_t max) {
    memset(d, 0, sizeof *d);
    memset(s, 0, sizeof *s);
    s->temperature = 0.8f;
    s->top_p = 0.95f;
    s->seed = 5;
    d->sampler = s;
    d->max_tokens = max;
    d->ignore_eos = 1;
}

static llm_generation *open_gen(llm_ctx *c, const llm_generate_desc *d) {
    llm_generation *g = NULL;
    if (llm_generation_open(&g, c, d) != LLM_OK) { printf("FAIL cannot open a generation\n"); exit(1); }
    return g;
}

/* Steps g to its end; checks the per-step bounds. Returns the number of steps; *last gets
   the last step. */
static int run_steps(llm_ctx *c, llm_generation *g, reply *r, int32_t chunk, llm_step *last) {
    int steps = 0;
    llm_step st;
    memset(r, 0, sizeof *r);
    memset(&st, 0, sizeof st);
    while (!st.done) {
        int32_t pos = llm_ctx_pos(c);
        CHECK(llm_generation_step(g, &st) == LLM_OK, "step %d: %s", steps, llm_generation_error(g));
        CHECK(llm_ctx_pos(c) - pos <= chunk, "step %d evaluated %d tokens", steps, llm_ctx_pos(c) - pos);
        add(r, st.piece, st.len, st.id);
        steps++;
        if (steps > 1000) { printf("FAIL the generation does not end\n"); exit(1); }
    }
    if (last) *last = st;
    return steps;
}

/* Steps against llm_generate: the same tokens, text, counts and final logits. */
static void test_same_as_generate(const llm_model *m) {
    llm_ctx *a = new_ctx(m, 8, 0), *b = new_ctx(m, 8, 0);
    llm_generate_desc d;
    llm_sampler s;
    llm_generation *g;
    llm_generate_stats st;
    const llm_generate_stats *gs;
    llm_step last;
    reply ra, rb;
    int steps, chunks;
    desc_init(&d, &s, 40);
    memset(&ra, 0, sizeof ra);
    d.on_token = collect;
    d.user = &ra;
    CHECK(llm_generate(a, prompt, strlen(prompt), &d, &st) == LLM_OK && ra.n == 40, "llm_generate: %d tokens", ra.n);
    desc_init(&d, &s, 40);
    g = open_gen(b, &d);
    gs = llm_generation_stats(g);
    CHECK(llm_generation_start(g, prompt, strlen(prompt)) == LLM_OK, "start");
    CHECK(llm_ctx_pos(b) == 0 && gs->n_prompt == st.n_prompt, "start evaluates nothing");
    steps = run_steps(b, g, &rb, 8, &last);
    chunks = (st.n_prompt + 7) / 8;
    printf("%d prompt tokens in %d chunks, %d tokens: %d steps\n", st.n_prompt, chunks, rb.n, steps);
    CHECK(steps == chunks - 1 + 40, "%d steps, want %d prompt chunks and 40 tokens, the last chunk's step sampling the first",
          steps, chunks);
    CHECK(rb.n == 40 && !memcmp(ra.ids, rb.ids, sizeof ra.ids) && !strcmp(ra.text, rb.text), "steps differ from llm_generate:\n  %s\n  %s",
          ra.text, rb.text);
    CHECK(gs->stop == LLM_STOP_MAX && gs->n_generated == 40 && gs->n_evaluated == st.n_evaluated, "stats");
    CHECK(llm_ctx_pos(a) == llm_ctx_pos(b) && !memcmp(llm_logits(a), llm_logits(b), NV * sizeof(float)), "final logits differ");
    CHECK(llm_generation_step(g, &last) == LLM_OK && last.id == -1 && last.len == 0 && last.done, "a step after done does nothing");
    llm_generation_close(g);
    llm_ctx_close(a);
    llm_ctx_close(b);
}

/* A stop token, the callback, max_tokens -1 and a reused prompt. */
static void test_endings(const llm_model *m) {
    llm_ctx *c = new_ctx(m, 8, 0);
    llm_generate_desc d;
    llm_sampler s;
    llm_generation *g, *g2;
    const llm_generate_stats *gs;
    llm_step last;
    reply r, first;
    int32_t comma = llm_token_find(m, ",", 1), pos;
    int steps;
    CHECK(comma >= 0, "',' is a token");
    desc_init(&d, &s, 64);
    d.stop_ids = &comma;
    d.n_stop_ids = 1;
    s.temperature = 0.0f;
    g = open_gen(c, &d);
    gs = llm_generation_stats(g);
    CHECK(llm_generation_step(g, &last) == LLM_ERR_INVALID_ARGUMENT && !last.done && *llm_generation_error(g),
          "a step before any start is refused");
    CHECK(llm_generation_start(g, "In the beginning", 16) == LLM_OK, "start");
    steps = run_steps(c, g, &r, 8, &last);
    CHECK(gs->stop == LLM_STOP_TOKEN && gs->stop_id == comma && r.n == gs->n_generated && r.n < 64,
          "stop token: stop %d after %d tokens", (int)gs->stop, r.n);
    CHECK(steps == r.n + 1 && last.id == -1, "the stop token's step produces no token (%d steps, %d tokens)", steps, r.n);
    llm_generation_close(g);
    first = r;
    /* the same prompt again, stopped by the callback after 3 tokens: nothing to evaluate */
    desc_init(&d, &s, 64);
    s.temperature = 0.0f;
    memset(&r, 0, sizeof r);
    r.stop_after = 3;
    d.on_token = collect;
    d.user = &r;
    g = open_gen(c, &d);
    gs = llm_generation_stats(g);
    pos = llm_ctx_pos(c);
    CHECK(llm_generation_start(g, "In the beginning", 16) == LLM_OK && llm_ctx_pos(c) <= pos, "restart");
    do llm_generation_step(g, &last); while (!last.done);
    CHECK(gs->stop == LLM_STOP_CALLBACK && r.n == 3 && !memcmp(r.ids, first.ids, 3 * sizeof(int32_t)),
          "callback stop: %d tokens, stop %d", r.n, (int)gs->stop);
    CHECK(gs->n_reused == gs->n_prompt - 1 && gs->n_evaluated == 1, "the cached prompt is reused: %d of %d", gs->n_reused, gs->n_prompt);
    llm_generation_close(g);
    /* max_tokens -1: the prompt in chunks, no token */
    llm_ctx_rewind(c, 0);
    desc_init(&d, &s, -1);
    d.prompt_chunk = 5;
    g = open_gen(c, &d);
    gs = llm_generation_stats(g);
    CHECK(llm_generation_start(g, prompt, strlen(prompt)) == LLM_OK, "start");
    steps = run_steps(c, g, &r, 5, NULL);
    CHECK(r.n == 0 && llm_ctx_pos(c) == gs->n_prompt && steps == (gs->n_prompt + 4) / 5,
          "max_tokens -1: %d steps for %d tokens", steps, gs->n_prompt);
    CHECK(llm_generation_start(g, NULL, 3) == LLM_ERR_INVALID_ARGUMENT && llm_generation_step(g, &last) == LLM_OK && last.done,
          "a NULL prompt: the generation is done");
    llm_generation_close(g);
    /* a context changed under a generation, or a second generation's step, ends the first with
       its own error; the context's error stays as it was */
    {
        int32_t tok = 100;
        desc_init(&d, &s, 8);
        g = open_gen(c, &d);
        g2 = open_gen(c, &d);
        CHECK(llm_generation_start(g, "In the beginning", 16) == LLM_OK && llm_generation_step(g, NULL) == LLM_OK, "start");
        CHECK(llm_eval(c, &tok, 1) == LLM_OK && llm_generation_step(g, &last) == LLM_ERR_INVALID_ARGUMENT && last.done,
              "a step after llm_eval should fail");
        CHECK(strstr(llm_generation_error(g), "changed") && !strstr(llm_ctx_error(c), "changed"), "the generation's error: '%s'",
              llm_generation_error(g));
        CHECK(llm_generation_start(g, "In the beginning", 16) == LLM_OK && llm_generation_start(g2, "In the beginning", 16) == LLM_OK &&
              llm_generation_step(g, NULL) == LLM_OK && llm_generation_step(g2, NULL) == LLM_ERR_INVALID_ARGUMENT,
              "the first generation to change the context runs on");
        llm_generation_close(g);
        llm_generation_close(g2);
    }
    CHECK(llm_generation_step(NULL, &last) == LLM_ERR_INVALID_ARGUMENT && last.id == -1 && last.done, "no generation");
    llm_ctx_close(c);
}

/* A choose callback: greedy through llm_sample_logits gives llm_generate's greedy reply; one
   that fails, or picks an id outside the vocabulary, ends the generation with an error. */
typedef struct chooser {
    float scratch[NV * 4];
    llm_result fail;
    int32_t bad_id;
    int calls;
} chooser;

static llm_result choose(void *user, llm_ctx *ctx, const float *logits, int32_t n_vocab, int32_t *id) {
    chooser *ch = (chooser *)user;
    llm_sampler greedy;
    ch->calls++;
    if (ch->fail != LLM_OK) return ch->fail;
    if (ch->bad_id) { *id = ch->bad_id; return LLM_OK; }
    memset(&greedy, 0, sizeof greedy);
    (void)ctx;
    return llm_sample_logits(&greedy, logits, n_vocab, NULL, 0, ch->scratch, id);
}

static void keep(void *user, const char *message) { snprintf((char *)user, 256, "%s", message); }

static void test_choose(const llm_model *m) {
    llm_ctx *a = new_ctx(m, 8, 0), *b = new_ctx(m, 8, 0);
    llm_generate_desc d;
    llm_generate_stats sa, sb;
    static chooser ch;
    char said[256] = "";
    reply ra, rb;
    memset(&d, 0, sizeof d);
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    CHECK(llm_sample_scratch_bytes(NV) <= sizeof ch.scratch, "scratch");
    d.max_tokens = 20;
    d.ignore_eos = 1;
    d.on_token = collect;
    d.user = &ra;
    CHECK(llm_generate(a, prompt, strlen(prompt), &d, &sa) == LLM_OK, "greedy");
    d.user = &rb;
    d.choose = choose;
    d.choose_user = &ch;
    CHECK(llm_generate(b, prompt, strlen(prompt), &d, &sb) == LLM_OK && ch.calls == 20, "choose: %d calls", ch.calls);
    CHECK(rb.n == 20 && !memcmp(ra.ids, rb.ids, sizeof ra.ids) && !strcmp(ra.text, rb.text), "choose differs from greedy");
    ch.fail = LLM_ERR_UNSUPPORTED;
    d.log = keep;
    d.log_user = said;
    CHECK(llm_generate(b, prompt, strlen(prompt), &d, &sb) == LLM_ERR_UNSUPPORTED && strstr(said, "choose callback failed") &&
          !strstr(llm_ctx_error(b), "choose"), "a failing choose callback: the log says '%s'", said);
    ch.fail = LLM_OK;
    ch.bad_id = NV;
    CHECK(llm_generate(b, prompt, strlen(prompt), &d, &sb) == LLM_ERR_BAD_TOKEN, "a choose callback's id outside the vocabulary");
    llm_ctx_close(a);
    llm_ctx_close(b);
}

/* logits_all: every position of a chunk, as token-by-token evaluation computes them. */
static void test_logits_all(const llm_model *m) {
    llm_ctx *all = new_ctx(m, 16, 1), *one = new_ctx(m, 16, 0);
    int32_t ids[64];
    size_t n = 0, p;
    int same = 1;
    CHECK(llm_tokenize(m, prompt, strlen(prompt), LLM_TOKENIZE_ADD_SPECIAL, ids, 64, &n) == LLM_OK && n >= 40, "tokens: %d", (int)n);
    CHECK(llm_eval(all, ids, 16) == LLM_OK && llm_eval(all, ids + 16, 16) == LLM_OK, "eval");
    CHECK(llm_logits_at(all, 15) == NULL && llm_logits_at(all, 32) == NULL && llm_logits_at(all, 16) != NULL, "held positions");
    CHECK(llm_logits(all) == llm_logits_at(all, 31), "llm_logits is the last position's");
    for (p = 0; p < 32; p++) {
        llm_eval(one, &ids[p], 1);
        if (p >= 16 && memcmp(llm_logits(one), llm_logits_at(all, (int32_t)p), NV * sizeof(float))) same = 0;
    }
    CHECK(same, "logits_all differs from token-by-token logits");
    /* a call longer than n_batch keeps its last chunk's */
    llm_ctx_rewind(all, 0);
    CHECK(llm_eval(all, ids, 40) == LLM_OK && llm_logits_at(all, 31) == NULL && llm_logits_at(all, 32) != NULL &&
          llm_logits_at(all, 39) == llm_logits(all), "a 40-token call keeps positions 32..39");
    llm_ctx_rewind(all, 10);
    CHECK(llm_logits_at(all, 9) == NULL, "a rewind drops the logits");
    llm_ctx_close(all);
    llm_ctx_close(one);
}

int main(void) {
    llm_model *m;
    if (system("mkdir -p build/tests/step && build/convert models/kjv-tiny " MODEL " > build/tests/step/convert.log 2>&1") != 0) {
        printf("FAIL build/convert models/kjv-tiny (see build/tests/step/convert.log)\n");
        return 1;
    }
    if (llm_model_open(&m, MODEL, NULL) != LLM_OK) { printf("FAIL cannot open " MODEL "\n"); return 1; }
    test_same_as_generate(m);
    test_endings(m);
    test_choose(m);
    test_logits_all(m);
    llm_model_close(m);
    return check_summary("step API and logits_all: all checks passed");
}
