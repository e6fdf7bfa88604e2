/* One model shared by 4 threads, each with its own context, generating at the same time:
   every thread's tokens and final logits equal those of the same run done alone. `make
   test-tsan` runs this program under ThreadSanitizer. A context asked for 70000 threads
   gets LLM_MAX_THREADS and computes the logits of one thread (OpenMP, or with OPENMP=0 the
   pool of pthreads or Win32 threads). The workers run every chunk of a step once on 1 to 4
   threads, and the contention policy is checked with made-up timings. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "tiny_model.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
#endif

#define N_THREADS 4
#define N_GEN 24

typedef struct job {
    const llm_model *model;
    int32_t prompt[8];
    int32_t out[N_GEN];
    float last_logits[64];
    llm_result r;
} job;

static int32_t argmax(const float *x, int n) {
    int32_t best = 0;
    int i;
    for (i = 1; i < n; i++) if (x[i] > x[best]) best = i;
    return best;
}

/* Prompt of 8 tokens in one call (several n_batch chunks), then greedy decoding. */
static void run_job(job *j) {
    llm_ctx *ctx;
    llm_ctx_desc cd;
    int i, n_vocab = llm_model_info_get(j->model)->n_vocab;
    memset(&cd, 0, sizeof cd);
    cd.n_ctx = 48; cd.n_batch = 3; cd.n_threads = 1;
    if ((j->r = llm_ctx_open(&ctx, j->model, &cd)) != LLM_OK) return;
    j->r = llm_eval(ctx, j->prompt, 8);
    for (i = 0; i < N_GEN && j->r == LLM_OK; i++) {
        j->out[i] = argmax(llm_logits(ctx), n_vocab);
        j->r = llm_eval(ctx, &j->out[i], 1);
    }
    memcpy(j->last_logits, llm_logits(ctx), sizeof(float) * (size_t)n_vocab);
    llm_ctx_close(ctx);
}

#if defined(_WIN32)
static DWORD WINAPI thread_main(LPVOID p) { run_job((job *)p); return 0; }
#else
static void *thread_main(void *p) { run_job((job *)p); return NULL; }
#endif

/* The logits after a 6-token prompt and 2 more tokens, on n_threads threads. */
static int run_threads(const llm_model *m, int32_t n_threads, float *logits, int n_vocab) {
    llm_ctx *c;
    llm_ctx_desc cd;
    int32_t ids[8] = { 1, 5, 9, 2, 7, 3, 11, 4 };
    int ok;
    memset(&cd, 0, sizeof cd);
    cd.n_ctx = 16; cd.n_threads = n_threads;
    if (llm_ctx_open(&c, m, &cd) != LLM_OK) return 0;
    ok = llm_eval(c, ids, 6) == LLM_OK && llm_eval(c, ids + 6, 1) == LLM_OK && llm_eval(c, ids + 7, 1) == LLM_OK;
    if (ok) memcpy(logits, llm_logits(c), sizeof(float) * (size_t)n_vocab);
    llm_ctx_close(c);
    return ok;
}

/* Matrices big enough (256 x 512) for the steps to run in parallel. */
static int test_many_threads(void) {
    tiny_desc d = tiny_default();
    size_t size;
    void *file;
    llm_model *m;
    static float one[64], many[64];
    int ok;
    d.n_embd = 256; d.n_ff = 512; d.n_head = 4; d.n_head_kv = 2; d.head_dim = 64; d.n_layer = 1;
    if (!(file = tiny_model(&d, &size)) || llm_model_open_memory(&m, file, size, NULL) != LLM_OK) {
        printf("cannot build the test model\n");
        return 1;
    }
    ok = run_threads(m, 1, one, d.n_vocab) && run_threads(m, 70000, many, d.n_vocab) && !memcmp(one, many, sizeof one);
    printf("%s n_threads 70000 (at most %d run, %s): %s\n", ok ? "ok  " : "FAIL", LLM_MAX_THREADS, llm_system_info(),
           ok ? "the logits of one thread" : "failed or different logits");
    llm_model_close(m);
    free(file);
    return !ok;
}

#define N_CHUNKS 64

static void count_chunk(void *arg, int k) { ((int *)arg)[k]++; }

/* One step of n chunks: each ran exactly once. */
static int step_once(llm__workers *w, int n, llm__step_time *t) {
    static int runs[N_CHUNKS];
    int k, ok = 1;
    memset(runs, 0, sizeof runs);
    *t = llm__workers_run(w, n, count_chunk, runs);
    for (k = 0; k < N_CHUNKS; k++) ok &= runs[k] == (k < n);
    return ok;
}

/* An OpenMP step waits for all its threads, preempted or not: on a busy machine, milliseconds. */
#if defined(LLM__THREADS_OPENMP)
#define N_STEPS 65
#else
#define N_STEPS 3000
#endif

/* Steps of 0 to 64 chunks, some right after a wake and many faster than a worker wakes. */
static int test_workers(void) {
    llm__workers w;
    llm__step_time t;
    int n, s, ok = 1, mine = 0;
    memset(&w, 0, sizeof w);
    llm__workers_close(&w); /* never opened: nothing to do */
    for (n = 1; n <= 4; n++) {
        if (llm__workers_open(&w, n, NULL) != LLM_OK) { printf("FAIL cannot open %d workers\n", n); return 1; }
        for (s = 0; s < N_STEPS; s++) {
            if (s % 97 == 0) llm__workers_wake(&w);
            ok &= step_once(&w, s % (N_CHUNKS + 1), &t);
        }
        llm__workers_close(&w);
    }
#if defined(LLM__THREADS_WIN32) || defined(LLM__THREADS_PTHREAD)
    /* The pool's step number wraps after 2^24 steps; the caller still takes chunks after it. */
    llm__workers_open(&w, 2, NULL);
    llm__store(&w.lock, &w.state, (uint64_t)(LLM__STEP_WRAP - 2) << 40);
    for (s = 0; s < 200; s++) {
        ok &= step_once(&w, N_CHUNKS, &t);
        if (s >= 2) mine += t.mine;
    }
    ok &= mine > 0;
    llm__workers_close(&w);
#endif
    printf("%s workers (%s): every chunk once on 1 to 4 threads\n", ok ? "ok  " : "FAIL", LLM__THREADS_NAME);
    (void)mine;
    return !ok;
}

/* The window of one-thread steps with made-up timings: 5 of 10 chunks took the caller 10, so
   alone it would take 20, and a step is slow when it took over 0.9 x 20. A window opens at
   the second slow step in a row. */
static int test_contention(void) {
    llm__contention k;
    llm__step_time fast = { 18.0, 10.0, 5 }, slow = { 18.5, 10.0, 5 }, none = { 1.0, 1.0, 0 };
    int i, wake, ok = 1;
    memset(&k, 0, sizeof k);
    ok &= llm__contention_threads(&k, 2, 1e6, &wake) == 2 && !wake;
    ok &= llm__contention_threads(&k, 2, LLM__CONTENTION_MIN_WORK / 2, &wake) == 1 && !wake;
    ok &= llm__contention_threads(&k, 1, 1e6, &wake) == 1 && !wake;
    llm__contention_record(&k, fast, 10);
    ok &= k.window == 0 && k.solo_left == 0;
    llm__contention_record(&k, slow, 10); /* one slow step, then a fast one: no window */
    ok &= k.window == 0 && k.solo_left == 0;
    llm__contention_record(&k, fast, 10);
    llm__contention_record(&k, slow, 10);
    ok &= k.window == 0 && k.solo_left == 0;
    llm__contention_record(&k, slow, 10);
    ok &= k.window == LLM__CONTENTION_FIRST && k.solo_left == LLM__CONTENTION_FIRST;
    for (i = 1; i <= LLM__CONTENTION_FIRST; i++) /* the workers are woken at the window's last step */
        ok &= llm__contention_threads(&k, 2, 1e6, &wake) == 1 && wake == (i == LLM__CONTENTION_FIRST);
    ok &= llm__contention_threads(&k, 2, 1e6, &wake) == 2 && !wake;
    llm__contention_record(&k, none, 10); /* the caller ran no chunk: slow */
    ok &= k.window == LLM__CONTENTION_FIRST && k.solo_left == 0;
    llm__contention_record(&k, none, 10); /* twice: the window doubles */
    ok &= k.window == 2 * LLM__CONTENTION_FIRST && k.solo_left == k.window;
    k.solo_left = 0;
    llm__contention_record(&k, fast, 10); /* shrinks by an eighth */
    ok &= k.window == 2 * LLM__CONTENTION_FIRST - 2 * LLM__CONTENTION_FIRST / LLM__CONTENTION_SHRINK && k.solo_left == 0;
    for (i = 0; i < 20; i++) {
        k.solo_left = 0;
        llm__contention_record(&k, slow, 10);
        llm__contention_record(&k, slow, 10);
    }
    ok &= k.window == LLM__CONTENTION_LONGEST && k.solo_left == LLM__CONTENTION_LONGEST;
    printf("%s contention: one-thread windows open at a second slow step in a row, double, shrink and end with a wake\n", ok ? "ok  " : "FAIL");
    return !ok;
}

int main(void) {
    tiny_desc d = tiny_default();
    size_t size;
    void *file;
    llm_model *model;
    job alone[N_THREADS], together[N_THREADS];
    int i, k, failed = 0;
#if defined(_WIN32)
    HANDLE th[N_THREADS];
#else
    pthread_t th[N_THREADS];
#endif
    d.n_layer = 3; d.window = 5; d.bias = 1;
    if (!(file = tiny_model(&d, &size)) || llm_model_open_memory(&model, file, size, NULL) != LLM_OK) {
        printf("cannot build the test model\n");
        return 1;
    }
    memset(alone, 0, sizeof alone);
    for (i = 0; i < N_THREADS; i++) {
        alone[i].model = model;
        for (k = 0; k < 8; k++) alone[i].prompt[k] = (int32_t)((i * 7 + k * 3 + 1) % d.n_vocab);
        together[i] = alone[i];
        run_job(&alone[i]);
        if (alone[i].r != LLM_OK) { printf("thread %d alone: %s\n", i, llm_result_string(alone[i].r)); return 1; }
    }
    for (i = 0; i < N_THREADS; i++) {
#if defined(_WIN32)
        th[i] = CreateThread(NULL, 0, thread_main, &together[i], 0, NULL);
        if (!th[i]) { printf("cannot start a thread\n"); return 1; }
#else
        if (pthread_create(&th[i], NULL, thread_main, &together[i]) != 0) { printf("cannot start a thread\n"); return 1; }
#endif
    }
    for (i = 0; i < N_THREADS; i++) {
#if defined(_WIN32)
        WaitForSingleObject(th[i], INFINITE);
        CloseHandle(th[i]);
#else
        pthread_join(th[i], NULL);
#endif
    }
    for (i = 0; i < N_THREADS; i++) {
        if (together[i].r != LLM_OK) { printf("thread %d: %s\n", i, llm_result_string(together[i].r)); failed = 1; continue; }
        if (memcmp(together[i].out, alone[i].out, sizeof alone[i].out) != 0 ||
            memcmp(together[i].last_logits, alone[i].last_logits, sizeof(float) * (size_t)d.n_vocab) != 0) {
            printf("thread %d: the concurrent run differs from the run alone\n", i);
            failed = 1;
        }
    }
    /* The threads must not all have produced the same thing, or the check proves little. */
    if (memcmp(alone[0].out, alone[1].out, sizeof alone[0].out) == 0) { printf("prompts 0 and 1 gave the same tokens\n"); failed = 1; }
    llm_model_close(model);
    free(file);
    if (!failed) printf("%d threads sharing one model: %d tokens each, identical to the runs alone\n", N_THREADS, N_GEN);
    failed |= test_many_threads();
    failed |= test_workers();
    failed |= test_contention();
    return failed;
}
