/* One model shared by 4 threads, each with its own context, generating at the same time:
   every thread's tokens and final logits equal those of the same run done alone. `make
   test-tsan` runs this program under ThreadSanitizer. A context asked for 70000 threads
   gets LLM_MAX_THREADS and computes the logits of one thread (OpenMP, or with OPENMP=0 the
   pthread pool). */
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
    return failed;
}
