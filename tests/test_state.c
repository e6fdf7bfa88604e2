/* Context state save and restore on the shipped kjv-tiny model: a long system prompt is
   evaluated once and saved; loaded into fresh contexts (from a file and from memory, any
   n_ctx that holds it) the continuation is bitwise identical to the original context's.
   A state of another model file or KV type is refused, and truncated or damaged states
   give errors and leave the context as it was. A save that fails midway (a file size limit,
   as a full disk) leaves the previous file as it was, and no temporary behind. llm_logits
   is NULL exactly when the context holds no logits. */
#define _POSIX_C_SOURCE 200809L
#include "../llm.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#endif

#define STATE_DIR "build/tests/state/"

static const char *system_prompt =
    "In the beginning God created the heaven and the earth. And the earth was without form, and void; and "
    "darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters. And God "
    "said, Let there be light: and there was light. And God saw the light, that it was good: and God divided "
    "the light from the darkness. And God called the light Day, and the darkness he called Night.";
static const char *question = " And the evening and the morning were";

typedef struct reply { int32_t ids[64]; int n; } reply;

static int collect(void *user, const char *piece, size_t len, int32_t id) {
    reply *r = (reply *)user;
    (void)piece; (void)len;
    if (id >= 0 && r->n < 64) r->ids[r->n++] = id;
    return 0;
}

static llm_ctx *new_ctx(const llm_model *m, int32_t n_ctx, llm_kv_type kv) {
    llm_ctx *c = NULL;
    llm_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.n_ctx = n_ctx;
    d.n_threads = 1;
    d.kv_type = kv;
    if (llm_ctx_open(&c, m, &d) != LLM_OK) { printf("FAIL cannot open a context\n"); exit(1); }
    return c;
}

/* The system prompt alone, evaluated (max_tokens -1). */
static int32_t eval_system(llm_ctx *c) {
    llm_generate_desc d;
    llm_generate_stats st;
    memset(&d, 0, sizeof d);
    d.max_tokens = -1;
    CHECK(llm_generate(c, system_prompt, strlen(system_prompt), &d, &st) == LLM_OK, "system prompt: %s", llm_ctx_error(c));
    return st.n_prompt;
}

/* System prompt + question, 32 sampled tokens; the logits at the end. */
static void continue_chat(llm_ctx *c, reply *r, float *logits, llm_generate_stats *st) {
    char prompt[2048];
    llm_sampler s;
    llm_generate_desc d;
    memset(&s, 0, sizeof s);
    memset(&d, 0, sizeof d);
    memset(r, 0, sizeof *r);
    s.temperature = 0.8f; s.top_p = 0.95f; s.seed = 11;
    d.sampler = &s; d.max_tokens = 32; d.ignore_eos = 1; d.on_token = collect; d.user = r;
    snprintf(prompt, sizeof prompt, "%s%s", system_prompt, question);
    CHECK(llm_generate(c, prompt, strlen(prompt), &d, st) == LLM_OK, "continuation: %s", llm_ctx_error(c));
    memcpy(logits, llm_logits(c), 2048 * sizeof(float));
}

static size_t file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    return n < 0 ? 0 : (size_t)n;
}

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { printf("FAIL cannot write %s\n", path); exit(1); }
    fclose(f);
}

/* A damaged state gives `want` and leaves c (holding `pos` tokens) unchanged. */
static void expect_refused(llm_ctx *c, const uint8_t *state, size_t n, llm_result want, const char *what) {
    int32_t pos = llm_ctx_pos(c);
    llm_result r = llm_ctx_load_memory(c, state, n);
    CHECK(r == want, "%s: %s (%s), expected %s", what, llm_result_string(r), llm_ctx_error(c), llm_result_string(want));
    CHECK(llm_ctx_pos(c) == pos, "%s: the context changed (%d tokens, had %d)", what, llm_ctx_pos(c), pos);
    printf("  %-34s -> %s: %s\n", what, llm_result_string(r), llm_ctx_error(c));
}

static void test_damage(llm_ctx *c, const uint8_t *state, size_t n) {
    uint8_t *bad = (uint8_t *)malloc(n + 1);
    size_t cuts[] = { 0, 3, 4, 40, 55, 56, 100, n / 2, n - 8, n - 1 }, i;
    char what[64];
    struct { size_t at; llm_result want; const char *what; } flips[] = {
        { 0, LLM_ERR_BAD_MAGIC, "magic" }, { 4, LLM_ERR_BAD_VERSION, "version" },
        { 9, LLM_ERR_WRONG_MODEL, "fingerprint" }, { 16, LLM_ERR_WRONG_MODEL, "layer count" },
        { 36, LLM_ERR_TRUNCATED, "token count" }, { 40, LLM_ERR_BAD_FILE, "flags" },
        { 50, LLM_ERR_BAD_FILE, "a token id" }, { n / 2, LLM_ERR_BAD_FILE, "a KV value" },
        { n - 20, LLM_ERR_BAD_FILE, "the last V value" }, { n - 3, LLM_ERR_BAD_FILE, "the checksum" },
    };
    for (i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        snprintf(what, sizeof what, "cut to %lu bytes", (unsigned long)cuts[i]);
        expect_refused(c, state, cuts[i], LLM_ERR_TRUNCATED, what);
    }
    for (i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        memcpy(bad, state, n);
        bad[flips[i].at] ^= 0x10;
        snprintf(what, sizeof what, "byte %lu (%s) changed", (unsigned long)flips[i].at, flips[i].what);
        expect_refused(c, bad, n, flips[i].want, what);
    }
    memcpy(bad, state, n);
    bad[n] = 0;
    expect_refused(c, bad, n + 1, LLM_ERR_BAD_FILE, "one byte too many");
    write_bytes(STATE_DIR "cut.state", state, n - 100);
    CHECK(llm_ctx_load(c, STATE_DIR "cut.state") == LLM_ERR_TRUNCATED, "a cut file: %s", llm_ctx_error(c));
    CHECK(llm_ctx_load(c, STATE_DIR "missing.state") == LLM_ERR_IO, "a missing file: %s", llm_ctx_error(c));
    free(bad);
}

#if !defined(_WIN32)
static uint8_t *read_bytes(const char *path, size_t *n) {
    uint8_t *p;
    FILE *f;
    *n = file_size(path);
    p = (uint8_t *)malloc(*n + 1);
    if (!(f = fopen(path, "rb")) || fread(p, 1, *n, f) != *n) { printf("FAIL cannot read %s\n", path); exit(1); }
    fclose(f);
    return p;
}

/* Files in STATE_DIR whose name ends in ".tmp". */
static int temporaries(void) {
    DIR *d = opendir(STATE_DIR);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0;
    }
    if (d) closedir(d);
    return n;
}
#endif

/* A good state file survives a save of another state that fails midway: the write passes
   the process's file size limit (SIGXFSZ ignored, so write fails with EFBIG, as on a full
   disk; this works as root too), and a save onto a directory. */
static void test_failed_save(llm_ctx *good, llm_ctx *bigger) {
#if defined(_WIN32)
    (void)good; (void)bigger;
    printf("failed save: not run on Windows\n");
#else
    struct rlimit old, lim;
    size_t n0, n1;
    uint8_t *before, *after;
    llm_result r;
    void (*prev)(int);
    CHECK(llm_ctx_save(good, STATE_DIR "keep.state") == LLM_OK, "save: %s", llm_ctx_error(good));
    before = read_bytes(STATE_DIR "keep.state", &n0);
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
    lim = old;
    lim.rlim_cur = (rlim_t)(n0 / 2);
    prev = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    r = llm_ctx_save(bigger, STATE_DIR "keep.state");
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    after = read_bytes(STATE_DIR "keep.state", &n1);
    CHECK(r == LLM_ERR_IO && strstr(llm_ctx_error(bigger), "keep.state"), "a save past the file size limit: %s (%s)",
          llm_result_string(r), llm_ctx_error(bigger));
    CHECK(n0 == n1 && !memcmp(before, after, n0), "the failed save changed the old file (%lu bytes, had %lu)", (unsigned long)n1,
          (unsigned long)n0);
    CHECK(temporaries() == 0, "the failed save left a temporary file in " STATE_DIR);
    mkdir(STATE_DIR "a-directory.state", 0777);
    r = llm_ctx_save(good, STATE_DIR "a-directory.state");
    CHECK(r == LLM_ERR_IO && temporaries() == 0, "a save onto a directory: %s (%s), no temporary left", llm_result_string(r),
          llm_ctx_error(good));
    CHECK(llm_ctx_save(bigger, STATE_DIR "keep.state") == LLM_OK && file_size(STATE_DIR "keep.state") > n0 && temporaries() == 0,
          "a save that succeeds replaces the file");
    printf("failed save: the old %lu-byte state file is intact\n", (unsigned long)n0);
    free(before); free(after);
#endif
}

/* llm_sample's id, or -1 when it fails (with LLM_ERR_INVALID_ARGUMENT and the id -1). */
static int32_t sample(llm_ctx *c, llm_sampler *s) {
    int32_t id = 7;
    llm_result r = llm_sample(c, s, &id);
    CHECK(r == LLM_OK ? id >= 0 : r == LLM_ERR_INVALID_ARGUMENT && id == -1, "llm_sample: %d, id %d", (int)r, id);
    return r == LLM_OK ? id : -1;
}

/* llm_logits, llm_logits_at and llm_sample agree: nothing before an evaluation, after a
   rewind or after loading a state without logits. */
static void test_no_logits(const llm_model *m) {
    llm_ctx *c = new_ctx(m, 32, LLM_KV_F32);
    llm_sampler greedy;
    int32_t ids[3] = { 1, 2, 3 };
    uint8_t buf[256];
    size_t n;
    memset(&greedy, 0, sizeof greedy);
    CHECK(llm_logits(c) == NULL && llm_logits_at(c, 0) == NULL && llm_logits_at(c, -1) == NULL && sample(c, &greedy) == -1,
          "a fresh context has no logits");
    CHECK(llm_ctx_save_memory(c, buf, sizeof buf, &n) == LLM_OK, "save an empty state");
    CHECK(llm_eval(c, ids, 3) == LLM_OK && llm_logits(c) != NULL && llm_logits(c) == llm_logits_at(c, 2) && sample(c, &greedy) >= 0,
          "after an evaluation: logits at position 2");
    CHECK(llm_ctx_rewind(c, 1) == LLM_OK && llm_logits(c) == NULL && llm_logits_at(c, 0) == NULL && sample(c, &greedy) == -1,
          "after a rewind: no logits");
    CHECK(llm_eval(c, ids, 2) == LLM_OK && llm_logits(c) != NULL, "evaluate again");
    CHECK(llm_ctx_rewind(c, 0) == LLM_OK && llm_logits(c) == NULL && sample(c, &greedy) == -1, "after a rewind to 0: no logits");
    CHECK(llm_eval(c, ids, 2) == LLM_OK && llm_ctx_load_memory(c, buf, n) == LLM_OK && llm_ctx_pos(c) == 0 && llm_logits(c) == NULL &&
          llm_logits_at(c, 0) == NULL && sample(c, &greedy) == -1, "after loading an empty state: no logits");
    llm_ctx_close(c);
}

int main(void) {
    llm_model *m, *other;
    llm_ctx *a, *b, *c, *small, *f16, *wrong;
    reply ra, rb, rc;
    llm_generate_stats sa, sb, sc;
    static float la[2048], lb[2048], lc[2048];
    uint8_t *mem;
    llm_sampler greedy;
    size_t need = 0, got = 0;
    int32_t n_system;
    if (system("mkdir -p " STATE_DIR " && build/convert models/kjv-tiny " STATE_DIR "kjv.llm > " STATE_DIR "convert.log 2>&1 && "
               "build/convert models/kjv-tiny " STATE_DIR "kjv-f32.llm --dtype f32 >> " STATE_DIR "convert.log 2>&1") != 0) {
        printf("FAIL build/convert models/kjv-tiny (see " STATE_DIR "convert.log)\n");
        return 1;
    }
    if (llm_model_open(&m, STATE_DIR "kjv.llm", NULL) != LLM_OK || llm_model_open(&other, STATE_DIR "kjv-f32.llm", NULL) != LLM_OK) {
        printf("FAIL cannot open the models\n");
        return 1;
    }
    CHECK(llm_model_info_get(m)->n_vocab == 2048, "kjv-tiny's vocabulary is 2048");

    /* a: the system prompt once, saved; then the continuation */
    a = new_ctx(m, 256, LLM_KV_F32);
    n_system = eval_system(a);
    printf("system prompt: %d tokens\n", n_system);
    CHECK(n_system > 100 && llm_ctx_pos(a) == n_system, "the system prompt should be long: %d tokens", n_system);
    CHECK(llm_ctx_save(a, STATE_DIR "system.state") == LLM_OK, "save: %s", llm_ctx_error(a));
    CHECK(llm_ctx_save_memory(a, NULL, 0, &need) == LLM_ERR_BUFFER_TOO_SMALL && need == file_size(STATE_DIR "system.state"),
          "the size query says %lu, the file has %lu bytes", (unsigned long)need, (unsigned long)file_size(STATE_DIR "system.state"));
    mem = (uint8_t *)malloc(need + 1);
    CHECK(llm_ctx_save_memory(a, mem, need - 1, &got) == LLM_ERR_BUFFER_TOO_SMALL && got == need, "one byte short");
    CHECK(llm_ctx_save_memory(a, mem, need, &got) == LLM_OK && got == need, "save to memory");
    printf("state of %d tokens: %lu bytes (KV cache rows %lu, logits %d)\n", n_system, (unsigned long)need,
           (unsigned long)(need - 56 - 4 * (size_t)n_system - 4 * 2048), 4 * 2048);
    continue_chat(a, &ra, la, &sa);
    CHECK(sa.n_reused == n_system && ra.n == 32, "a reuses its system prompt: %d of %d", sa.n_reused, sa.n_prompt);

    /* b: a fresh context of the same size, from the file */
    b = new_ctx(m, 256, LLM_KV_F32);
    CHECK(llm_ctx_load(b, STATE_DIR "system.state") == LLM_OK, "load: %s", llm_ctx_error(b));
    CHECK(llm_ctx_pos(b) == n_system, "b holds %d tokens after the load, want %d", llm_ctx_pos(b), n_system);
    continue_chat(b, &rb, lb, &sb);
    CHECK(sb.n_reused == n_system && sb.n_evaluated == sa.n_evaluated, "b evaluates only the question: %d reused, %d evaluated",
          sb.n_reused, sb.n_evaluated);
    CHECK(rb.n == ra.n && !memcmp(ra.ids, rb.ids, sizeof ra.ids), "the continuation after a load differs");
    CHECK(!memcmp(la, lb, sizeof la), "the logits after a load differ");

    /* c: another n_ctx, from memory; the same continuation */
    c = new_ctx(m, 200, LLM_KV_F32);
    CHECK(llm_ctx_load_memory(c, mem, need) == LLM_OK, "load from memory: %s", llm_ctx_error(c));
    continue_chat(c, &rc, lc, &sc);
    CHECK(!memcmp(ra.ids, rc.ids, sizeof ra.ids) && !memcmp(la, lc, sizeof la), "the continuation after a memory load differs");

    /* refusals */
    small = new_ctx(m, 64, LLM_KV_F32);
    expect_refused(small, mem, need, LLM_ERR_CONTEXT_FULL, "into a 64-token context");
    f16 = new_ctx(m, 256, LLM_KV_F16);
    expect_refused(f16, mem, need, LLM_ERR_WRONG_MODEL, "into an f16 KV cache");
    wrong = new_ctx(other, 256, LLM_KV_F32);
    expect_refused(wrong, mem, need, LLM_ERR_WRONG_MODEL, "into the model's f32 conversion");
    CHECK(llm_ctx_load(wrong, STATE_DIR "system.state") == LLM_ERR_WRONG_MODEL, "the file into another model");
    llm_ctx_rewind(c, 20);
    test_damage(c, mem, need);
    CHECK(llm_ctx_pos(c) == 20 && !memcmp(llm_ctx_tokens(c), llm_ctx_tokens(a), 20 * sizeof(int32_t)), "c kept its 20 tokens");
    {
        /* a damaged file: the load fails and the context keeps its tokens */
        uint8_t *bad = (uint8_t *)malloc(need);
        memcpy(bad, mem, need);
        bad[need / 2] ^= 1;
        write_bytes(STATE_DIR "damaged.state", bad, need);
        CHECK(llm_ctx_load(c, STATE_DIR "damaged.state") == LLM_ERR_BAD_FILE && llm_ctx_pos(c) == 20 &&
              !memcmp(llm_ctx_tokens(c), llm_ctx_tokens(a), 20 * sizeof(int32_t)), "a damaged file: %s, c kept its 20 tokens",
              llm_ctx_error(c));
        free(bad);
    }
    test_failed_save(c, a);
    test_no_logits(m);

    /* an empty context saves and loads too */
    llm_ctx_rewind(c, 0);
    memset(&greedy, 0, sizeof greedy);
    CHECK(llm_ctx_save_memory(c, mem, need, &got) == LLM_OK && got == 56 && llm_ctx_load_memory(b, mem, got) == LLM_OK &&
          llm_ctx_pos(b) == 0 && sample(b, &greedy) == -1 && llm_logits(b) == NULL, "an empty state: %lu bytes", (unsigned long)got);

    free(mem);
    llm_ctx_close(a); llm_ctx_close(b); llm_ctx_close(c); llm_ctx_close(small); llm_ctx_close(f16); llm_ctx_close(wrong);
    llm_model_close(m);
    llm_model_close(other);
    return check_summary("context state: all checks passed");
}
