/* bench: prompt and generation speed of a model, like llama-bench.

   build/bench -m model.llm [-p 128] [-n 64] [-t N] [-r 5] [--kv-type f16|f32] [--membw] [--busy N]
   build/bench --membw [-t N]

   -p/-n: prompt tokens evaluated at once, then tokens generated one at a time (fixed token
   ids, so runs are comparable); -r: repetitions, the table shows the median and the spread.
   Bytes streamed per generated token are the weights one token reads (every matrix but the
   embedding table, of which one row). --membw measures read bandwidth with 1 and N threads
   (N = -t, default 2) and, with -m, before each generation run too: the speed is printed as
   the median share of the bandwidth measured right before each run. --busy N runs
   N CPU-bound processes during the measurement (the contention check). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "flags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#if !defined(_WIN32)
#include <sys/wait.h>
#endif

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- memory bandwidth ----------------------------------------------------------------- */
typedef struct membw_job { const uint64_t *p; size_t n; uint64_t sum; } membw_job;

static void *membw_read(void *arg) {
    membw_job *j = (membw_job *)arg;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    size_t i;
    for (i = 0; i + 8 <= j->n; i += 8) {
        s0 += j->p[i]; s1 += j->p[i + 1]; s2 += j->p[i + 2]; s3 += j->p[i + 3];
        s4 += j->p[i + 4]; s5 += j->p[i + 5]; s6 += j->p[i + 6]; s7 += j->p[i + 7];
    }
    j->sum = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    return NULL;
}

/* Best read bandwidth (GB/s) over a few passes of a buffer much larger than the caches. */
static double membw(int threads, uint64_t *buf, size_t words) {
    double best = 0.0;
    int rep, t;
    for (rep = 0; rep < 5; rep++) {
        pthread_t th[64];
        membw_job jobs[64];
        double t0 = llm_seconds(), dt;
        for (t = 0; t < threads; t++) {
            jobs[t].p = buf + words / (size_t)threads * (size_t)t;
            jobs[t].n = words / (size_t)threads;
            if (t) pthread_create(&th[t], NULL, membw_read, &jobs[t]);
        }
        membw_read(&jobs[0]);
        for (t = 1; t < threads; t++) pthread_join(th[t], NULL);
        dt = llm_seconds() - t0;
        if (jobs[0].sum == 42) printf(" "); /* keep the reads */
        if (words * 8 / dt / 1e9 > best) best = (double)words * 8 / dt / 1e9;
    }
    return best;
}

/* Best read bandwidth with `threads` threads (and with 1 first when one1 is not NULL). */
static double measure_membw(int threads, double *one1) {
    size_t words = (size_t)1 << 27, i; /* 1 GiB */
    uint64_t *buf = (uint64_t *)malloc(words * 8);
    double many;
    if (!buf) { fprintf(stderr, "bench: out of memory\n"); exit(1); }
    for (i = 0; i < words; i++) buf[i] = i;
    if (one1) *one1 = membw(1, buf, words);
    many = one1 && threads == 1 ? *one1 : membw(threads, buf, words);
    free(buf);
    return many;
}

/* The same in a child process where there is fork(), so that the 1 GiB buffer never counts
   in this process's peak resident size. */
static double membw_apart(int threads, double *one1) {
#if defined(_WIN32)
    return measure_membw(threads, one1);
#else
    double v[2] = { 0.0, 0.0 };
    int fd[2];
    pid_t pid;
    if (pipe(fd) != 0 || (pid = fork()) < 0) return measure_membw(threads, one1);
    if (pid == 0) {
        v[1] = measure_membw(threads, one1 ? &v[0] : NULL);
        if (write(fd[1], v, sizeof v) != (ssize_t)sizeof v) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    if (read(fd[0], v, sizeof v) != (ssize_t)sizeof v) v[0] = v[1] = 0.0;
    close(fd[0]);
    waitpid(pid, NULL, 0);
    if (one1) *one1 = v[0];
    return v[1];
#endif
}

/* Prints the bandwidth with 1 and n threads; returns the one for n. */
static double run_membw(int n_threads) {
    double one, many = membw_apart(n_threads, &one);
    if (n_threads == 1) printf("memory read bandwidth: %.1f GB/s with 1 thread\n", one);
    else printf("memory read bandwidth: %.1f GB/s with 1 thread, %.1f GB/s with %d threads\n", one, many, n_threads);
    return many;
}

/* ---- contention ----------------------------------------------------------------------- */
/* --busy N: N child processes spinning on the CPU while the model runs (POSIX: fork). */
#if defined(_WIN32)
typedef int busy_pid;
static int start_busy(int n, busy_pid *pids) {
    (void)pids;
    if (n) fprintf(stderr, "bench: --busy needs fork(), which Windows does not have\n");
    return n ? -1 : 0;
}
static void stop_busy(int n, busy_pid *pids) { (void)n; (void)pids; }
#else
typedef pid_t busy_pid;
static int start_busy(int n, busy_pid *pids) {
    int i;
    for (i = 0; i < n; i++)
        if ((pids[i] = fork()) == 0) { volatile unsigned long x = 0; for (;;) x++; }
    return 0;
}
static void stop_busy(int n, busy_pid *pids) {
    int i;
    for (i = 0; i < n; i++) { kill(pids[i], SIGKILL); waitpid(pids[i], NULL, 0); }
}
#endif

/* ---- model ---------------------------------------------------------------------------- */
/* Bytes of weights one generated token reads: all tensors but the embedding table, of which
   one row (unless the table is also the output matrix). */
static double bytes_per_token(const llm_model *m) {
    const llm_model_info *h = llm_model_info_get(m);
    const llm_tensor *e = llm_model_tensor(m, "model.embed_tokens.weight");
    double b = (double)h->weight_bytes;
    if (e && !h->tied_embeddings) b -= (double)e->size * (1.0 - 1.0 / (double)h->n_vocab);
    return b;
}

static long rss_kb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field))) v = atol(line + strlen(field));
    fclose(f);
    return v;
}

static void usage(FILE *f) {
    fprintf(f, "usage: bench -m model.llm [-p 128] [-n 64] [-t N] [-r 5] [--kv-type f16|f32] [--membw] [--busy N]\n"
               "       bench --membw [-t N]\n"
               "  -m, --model FILE  model file (.llm)\n"
               "  -p N, -n N        prompt tokens evaluated at once, tokens generated one at a time (llama-bench's)\n"
               "  -t, --threads N   threads (default: all CPUs; --membw: 2)\n"
               "  -r N              repetitions; the median and the spread are shown\n"
               "  --kv-type T       KV cache type: f16 (default) or f32\n"
               "  --membw           memory read bandwidth with 1 and N threads\n"
               "  --busy N          run N CPU-bound processes during the measurement (at most 16)\n"
               "  -h, --help        this text\n");
}

/* What the figures depend on besides the machine: the kernels and threading of this build. */
static void print_build(void) { printf("llm.h %d.%d.%d: %s\n", LLM_VERSION_MAJOR, LLM_VERSION_MINOR, LLM_VERSION_PATCH, llm_system_info()); }

static const char *const known[] = { "-m", "--model", "-p", "-n", "-t", "--threads", "-r", "--kv-type", "--membw", "--busy", "-h", "--help", NULL };
static const char *const valued[] = { "-m", "-p", "-n", "-t", "-r", "--kv-type", "--busy", NULL };

int main(int argc, char **argv) {
    const char *path = NULL;
    int32_t n_prompt = 128, n_gen = 64, reps = 5, threads = 0, busy = 0;
    int do_membw = 0, i, r;
    llm_kv_type kv = LLM_KV_DEFAULT;
    busy_pid busy_pids[16];
    llm_model *m;
    llm_model_desc md;
    llm_ctx *c;
    llm_ctx_desc d;
    const llm_model_info *h;
    int32_t *toks;
    double *pp, *tg, *bw, *share, t0, t_open, bpt, pp_med, tg_med;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *a = flag_name(arg), *v;
        int ok = 1;
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--membw")) { do_membw = 1; continue; }
        if (!flag_is(a, valued)) { flag_unknown("bench", arg, known); return 2; }
        if (!(v = flag_value(argc, argv, &i))) { fprintf(stderr, "bench: %s needs a value\n", arg); return 2; }
        if (!strcmp(a, "-m")) path = v;
        else if (!strcmp(a, "-p")) ok = flag_int("bench", arg, v, 1, 1 << 20, &n_prompt);
        else if (!strcmp(a, "-n")) ok = flag_int("bench", arg, v, 1, 1 << 20, &n_gen);
        else if (!strcmp(a, "-t")) ok = flag_int("bench", arg, v, 0, 64, &threads);
        else if (!strcmp(a, "-r")) ok = flag_int("bench", arg, v, 1, 1000, &reps);
        else if (!strcmp(a, "--busy")) ok = flag_int("bench", arg, v, 0, 16, &busy);
        else if (!strcmp(v, "f16") || !strcmp(v, "f32")) kv = !strcmp(v, "f32") ? LLM_KV_F32 : LLM_KV_F16;
        else { fprintf(stderr, "bench: %s: '%s' is neither f16 nor f32\n", arg, v); return 2; }
        if (!ok) return 2;
    }
    if (!path && !do_membw) { fprintf(stderr, "bench: no model: give -m FILE or --membw (see bench --help)\n"); return 2; }
    warn_build("bench");
    if (do_membw) print_build();
    if (do_membw) run_membw(threads ? threads : 2);
    if (!path) return 0;
    if (start_busy(busy, busy_pids) != 0) return 2;
    t0 = llm_seconds();
    memset(&md, 0, sizeof md);
    if (!(m = open_model("bench", path, &md))) { stop_busy(busy, busy_pids); return 1; }
    t_open = llm_seconds() - t0;
    h = llm_model_info_get(m);
    memset(&d, 0, sizeof d);
    d.n_threads = threads;
    d.kv_type = kv;
    d.n_ctx = n_prompt + n_gen + 1;
    d.n_batch = n_prompt;
    if (!(c = open_context("bench", m, &d))) { stop_busy(busy, busy_pids); llm_model_close(m); return 1; }
    if (!do_membw) print_build();
    toks = (int32_t *)malloc((size_t)(n_prompt + n_gen) * sizeof *toks);
    pp = (double *)malloc((size_t)reps * sizeof *pp);
    tg = (double *)malloc((size_t)reps * sizeof *tg);
    bw = (double *)calloc((size_t)reps, sizeof *bw);
    share = (double *)calloc((size_t)reps, sizeof *share);
    for (i = 0; i < n_prompt + n_gen; i++) toks[i] = (int32_t)((1103515245u * (unsigned)i + 12345u) % (unsigned)h->n_vocab);
    llm_eval(c, toks, 1); /* warm up: page the weights in */
    for (r = 0; r < reps; r++) {
        llm_ctx_rewind(c, 0);
        t0 = llm_seconds();
        llm_eval(c, toks, (size_t)n_prompt);
        pp[r] = n_prompt / (llm_seconds() - t0);
        /* the bandwidth of this moment: other tenants of a machine move it between runs */
        if (do_membw) bw[r] = membw_apart(threads ? threads : 2, NULL);
        t0 = llm_seconds();
        for (i = 0; i < n_gen; i++) llm_eval(c, toks + n_prompt + i, 1);
        tg[r] = n_gen / (llm_seconds() - t0);
        if (do_membw) share[r] = bw[r] > 0.0 ? bytes_per_token(m) * tg[r] / 1e9 / bw[r] : 0.0;
    }
    stop_busy(busy, busy_pids);
    bpt = bytes_per_token(m);
    {
        double lo_pp = pp[0], hi_pp = pp[0], lo_tg = tg[0], hi_tg = tg[0];
        for (r = 1; r < reps; r++) {
            lo_pp = pp[r] < lo_pp ? pp[r] : lo_pp; hi_pp = pp[r] > hi_pp ? pp[r] : hi_pp;
            lo_tg = tg[r] < lo_tg ? tg[r] : lo_tg; hi_tg = tg[r] > hi_tg ? tg[r] : hi_tg;
        }
        pp_med = median(pp, reps);
        tg_med = median(tg, reps);
        const char *wt = llm_dtype_name(llm_model_tensor(m, "model.layers.0.mlp.up_proj.weight")->dtype);
        char th[16];
        if (threads) snprintf(th, sizeof th, "%d", threads);
        else snprintf(th, sizeof th, "default");
        printf("| model | size | params | weights | threads | test | t/s (median, min-max of %d) |\n|---|---|---|---|---|---|---|\n", reps);
        printf("| %s %dL/%d | %.2f GB | %.2f B | %s | %s | pp%d | %.2f (%.2f-%.2f) |\n", h->arch_name, h->n_layer, h->n_embd,
               h->weight_bytes / 1e9, h->n_params / 1e9, wt, th, n_prompt, pp_med, lo_pp, hi_pp);
        printf("| %s %dL/%d | %.2f GB | %.2f B | %s | %s | tg%d | %.2f (%.2f-%.2f) |\n", h->arch_name, h->n_layer, h->n_embd,
               h->weight_bytes / 1e9, h->n_params / 1e9, wt, th, n_gen, tg_med, lo_tg, hi_tg);
    }
    printf("generation streams %.1f MB of weights per token: %.1f GB/s", bpt / 1e6, bpt * tg_med / 1e9);
    if (do_membw) {
        double bw_lo = bw[0], bw_hi = bw[0];
        for (r = 1; r < reps; r++) { bw_lo = bw[r] < bw_lo ? bw[r] : bw_lo; bw_hi = bw[r] > bw_hi ? bw[r] : bw_hi; }
        printf(", %.0f%% of the read bandwidth measured right before it (median of %d runs; bandwidth %.1f GB/s, %.1f-%.1f)",
               100.0 * median(share, reps), reps, median(bw, reps), bw_lo, bw_hi);
    }
    /* The weights count once they are paged in (rows of the embedding table that no token
       used never are), so the peak is compared with weights + KV cache + 64 MiB. */
    {
        double peak = rss_kb("VmHWM:") / 1024.0, wmib = h->weight_bytes / 1048576.0, kv = llm_ctx_kv_bytes(c) / 1048576.0;
        printf("\nopen %.1f ms; resident %.0f MiB (peak %.0f MiB, %s weights %.0f MiB + KV cache %.0f MiB + 64 MiB)%s\n",
               t_open * 1e3, rss_kb("VmRSS:") / 1024.0, peak, peak <= wmib + kv + 64.0 ? "within" : "OVER", wmib, kv,
               busy ? " (with CPU-bound processes running)" : "");
    }
    llm_ctx_close(c);
    llm_model_close(m);
    free(toks); free(pp); free(tg); free(bw); free(share);
    return 0;
}
