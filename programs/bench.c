/* bench: prompt and generation speed of a model, like llama-bench.

   build/bench -m model.llm [-p 128] [-n 64] [-t N] [-r 5] [--kv-type f16|f32] [--bf16-dot] [--no-mmap] [--kernels NAME] [--prefetch on|off] [--membw] [--peak] [--busy N]
   build/bench --membw [-t N]
   build/bench --peak [-t N]

   -p/-n: prompt tokens evaluated at once, then tokens generated one at a time (fixed token
   ids, so runs are comparable); -r: repetitions, the table shows the median and the spread.
   Bytes streamed per generated token are the weights one token reads (every matrix but the
   embedding table, of which one row). --membw measures read bandwidth with 1 and N threads
   (N = -t, default 2) and, with -m, before each generation run too: the speed is printed as
   the median share of the bandwidth measured right before each run. A prompt token
   multiplies every weight but the embedding table's (the LM head runs for the last token
   only): 2 flops, or 2 int8 operations for quantized types, per weight. --peak measures the
   f32 FMA, int8 dot-product and bf16 dot-product peaks (and AMX's where the CPU has it) with 1 and N threads
   (N = -t, default the CPU count; x86-64) and, with -m, the relevant one before each prompt
   run too: the prompt speed is printed as the median share of it. --busy N runs N
   CPU-bound processes during the measurement (the contention check). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* syscall(), for AMX's arch_prctl */
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

/* ---- compute peaks -------------------------------------------------------------------- */
/* --peak: this CPU's f32 FMA and int8 dot-product throughput, each thread running its own
   loop of independent register-only chains (twelve, enough to cover the latency of two FMA
   or VNNI units). The loops carry target attributes and are chosen by cpuid, so a portable
   build (no -march) measures the CPU it runs on; x86-64 with GCC or Clang only. */
#define PEAK_SECONDS 0.2
#define PEAK_REPS 3
enum { PEAK_FMA, PEAK_INT8, PEAK_BF16, PEAK_AMX };

/* rounds of a loop; returns a checksum that keeps the work */
typedef double (*peak_loop)(long rounds);
typedef struct peak_kernel { const char *name; peak_loop loop; double ops; } peak_kernel; /* ops a round */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PEAK_X86 1
#include <immintrin.h>
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#define PEAK_12(s) s(0) s(1) s(2) s(3) s(4) s(5) s(6) s(7) s(8) s(9) s(10) s(11)

/* a = a * m + c tends to c / (1 - m): no overflow, no denormals */
__attribute__((target("avx512f"))) static double peak_fma_zmm(long rounds) {
    __m512 a[12], m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f), s = _mm512_setzero_ps();
    long i;
#define S(k) a[k] = _mm512_set1_ps((float)k);
    PEAK_12(S)
#undef S
#define S(k) a[k] = _mm512_fmadd_ps(a[k], m, c);
    for (i = 0; i < rounds; i++) { PEAK_12(S) }
#undef S
#define S(k) s = _mm512_add_ps(s, a[k]);
    PEAK_12(S)
#undef S
    return _mm512_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) static double peak_fma_ymm(long rounds) {
    __m256 a[12], m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f), s = _mm256_setzero_ps();
    long i;
#define S(k) a[k] = _mm256_set1_ps((float)k);
    PEAK_12(S)
#undef S
#define S(k) a[k] = _mm256_fmadd_ps(a[k], m, c);
    for (i = 0; i < rounds; i++) { PEAK_12(S) }
#undef S
#define S(k) s = _mm256_add_ps(s, a[k]);
    PEAK_12(S)
#undef S
    return _mm_cvtss_f32(_mm256_castps256_ps128(s));
}

/* a multiply and an add (the empty asm keeps the compiler from packing the chains into SSE) */
static double peak_fma_scalar(long rounds) {
    float a[12], s = 0.0f;
    long i;
#define S(k) a[k] = (float)k;
    PEAK_12(S)
#undef S
#define S(k) a[k] = a[k] * 0.999f + 0.001f; __asm__("" : "+x"(a[k]));
    for (i = 0; i < rounds; i++) { PEAK_12(S) }
#undef S
#define S(k) s += a[k];
    PEAK_12(S)
#undef S
    return s;
}

/* vpdpbusd: 64 unsigned x signed byte products summed into 16 int32 (they wrap, harmlessly) */
__attribute__((target("avx512f,avx512vnni"))) static double peak_int8_zmm(long rounds) {
    __m512i a[12], u = _mm512_set1_epi8(1), v = _mm512_set1_epi8(1), s = _mm512_setzero_si512();
    int32_t out[16]; /* stored, not cast: g++ 12 warns inside _mm512_castsi512_si128 */
    long i;
#define S(k) a[k] = _mm512_set1_epi32(k);
    PEAK_12(S)
#undef S
#define S(k) a[k] = _mm512_dpbusd_epi32(a[k], u, v);
    for (i = 0; i < rounds; i++) { PEAK_12(S) }
#undef S
#define S(k) s = _mm512_add_epi32(s, a[k]);
    PEAK_12(S)
#undef S
    _mm512_storeu_si512(out, s);
    return out[0];
}

/* vdpbf16ps: 32 bf16 products summed in pairs into 16 f32; each adds 0.5 x 1 - 0.5 x 1, so the
   accumulators keep their values */
__attribute__((target("avx512f,avx512bf16"))) static double peak_bf16_zmm(long rounds) {
    __m512 a[12], s = _mm512_setzero_ps();
    __m512bh w = (__m512bh)_mm512_set1_epi32((int)0xBF003F00u), x = (__m512bh)_mm512_set1_epi32(0x3F803F80);
    float out[16];
    long i;
#define S(k) a[k] = _mm512_set1_ps((float)k);
    PEAK_12(S)
#undef S
#define S(k) a[k] = _mm512_dpbf16_ps(a[k], w, x);
    for (i = 0; i < rounds; i++) { PEAK_12(S) }
#undef S
#define S(k) s = _mm512_add_ps(s, a[k]);
    PEAK_12(S)
#undef S
    _mm512_storeu_ps(out, s); /* stored, not reduced: g++ 12 warns inside _mm512_reduce_add_ps */
    return out[0];
}

__attribute__((target("avx2,avxvnni"))) static double peak_int8_vnni_ymm(long rounds) {
    __m256i a[12], u = _mm256_set1_epi8(1), v = _mm256_set1_epi8(1), s = _mm256_setzero_si256();
    long i;
#define S(k) a[k] = _mm256_set1_epi32(k);
    PEAK_12(S)
#undef S
#define S(k) a[k] = _mm256_dpbusd_avx_epi32(a[k], u, v);
    for (i = 0; i < rounds; i++) { PEAK_12(S) }
#undef S
#define S(k) s = _mm256_add_epi32(s, a[k]);
    PEAK_12(S)
#undef S
    return _mm_cvtsi128_si32(_mm256_castsi256_si128(s));
}

/* AVX2's int8 multiply-add: vpmaddubsw (byte pairs to int16) and a 16-bit add, as the q4_0
   kernels run it (q8_0's also widen each product to int32 with vpmaddwd, which shares
   vpmaddubsw's ports: they reach at most half of this). The bytes are the accumulator's own,
   so nothing is loop-invariant. */
__attribute__((target("avx2"))) static double peak_int8_avx2(long rounds) {
    __m256i a[12], w = _mm256_set1_epi8(1), s = _mm256_setzero_si256();
    long i;
#define S(k) a[k] = _mm256_set1_epi32(k);
    PEAK_12(S)
#undef S
#define S(k) a[k] = _mm256_add_epi16(a[k], _mm256_maddubs_epi16(a[k], w));
    for (i = 0; i < rounds; i++) { PEAK_12(S) }
#undef S
#define S(k) s = _mm256_add_epi32(s, a[k]);
    PEAK_12(S)
#undef S
    return _mm_cvtsi128_si32(_mm256_castsi256_si128(s));
}
#undef PEAK_12

#if defined(__linux__)
/* AMX (untested: written from Intel's ISA reference for a machine without it). The tile
   configuration is palette 1 with 8 tiles of 16 rows x 64 bytes; tmm0-3 accumulate the four
   int32 products of tmm4-5 (A, 16 x 64 int8) with tmm6-7 (B, 16 x 64 bytes: 64 columns of
   int8 quadruples), each tdpbssd 16 x 16 x 64 multiply-adds. */
typedef struct peak_tilecfg { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } peak_tilecfg;

__attribute__((target("amx-tile,amx-int8"))) static double peak_amx(long rounds) {
    peak_tilecfg cfg;
    int8_t ab[16 * 64];
    long i;
    int t;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (t = 0; t < 8; t++) { cfg.rows[t] = 16; cfg.colsb[t] = 64; }
    memset(ab, 1, sizeof ab);
    __asm__ volatile("" ::: "memory"); /* the tile intrinsics' asm does not say what it reads */
    _tile_loadconfig(&cfg);
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    _tile_loadd(4, ab, 64); _tile_loadd(5, ab, 64); _tile_loadd(6, ab, 64); _tile_loadd(7, ab, 64);
    for (i = 0; i < rounds; i++) {
        _tile_dpbssd(0, 4, 6); _tile_dpbssd(1, 4, 7); _tile_dpbssd(2, 5, 6); _tile_dpbssd(3, 5, 7);
    }
    _tile_release();
    return (double)rounds;
}

/* Whether /proc/cpuinfo lists a flag (the kernel's view: it lists what it supports). */
static int cpuinfo_has(const char *flag) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    int has = 0;
    size_t n = strlen(flag);
    if (!f) return 0;
    while (!has && fgets(line, sizeof line, f)) {
        const char *p = line;
        if (strncmp(line, "flags", 5)) continue;
        while (!has && (p = strstr(p, flag)) != NULL) {
            has = p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0');
            p += n;
        }
        break;
    }
    fclose(f);
    return has;
}
#endif
#endif

static const peak_kernel peak_none = { NULL, NULL, 0.0 };

/* The widest loop of a kind this CPU runs, or no loop and why not as the name. */
static peak_kernel peak_choose(int kind) {
#if defined(PEAK_X86)
    unsigned a, b, c, d;
    int leaf71 = __get_cpuid_count(7, 1, &a, &b, &c, &d), avxvnni = leaf71 && (a >> 4 & 1), avx512bf16 = leaf71 && (a >> 5 & 1);
    peak_kernel k = peak_none;
    __builtin_cpu_init();
    if (kind == PEAK_FMA) {
        if (__builtin_cpu_supports("avx512f")) { k.name = "avx512f, zmm"; k.loop = peak_fma_zmm; k.ops = 12 * 16 * 2; }
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) { k.name = "avx2+fma, ymm"; k.loop = peak_fma_ymm; k.ops = 12 * 8 * 2; }
        else { k.name = "scalar"; k.loop = peak_fma_scalar; k.ops = 12 * 2; }
    } else if (kind == PEAK_INT8) {
        if (__builtin_cpu_supports("avx512vnni")) { k.name = "avx512-vnni vpdpbusd, zmm"; k.loop = peak_int8_zmm; k.ops = 12 * 64 * 2; }
        /* clang before 16 does not know "avxvnni"; cpuid 7.1 eax bit 4, the OS saving ymm as for avx2 */
        else if (__builtin_cpu_supports("avx2") && avxvnni) { k.name = "avx-vnni vpdpbusd, ymm"; k.loop = peak_int8_vnni_ymm; k.ops = 12 * 32 * 2; }
        else if (__builtin_cpu_supports("avx2")) { k.name = "avx2 vpmaddubsw, ymm"; k.loop = peak_int8_avx2; k.ops = 12 * 32 * 2; }
        else k.name = "the CPU lacks avx2";
    } else if (kind == PEAK_BF16) {
        /* cpuid 7.1 eax bit 5, with the AVX-512 state */
        if (__builtin_cpu_supports("avx512f") && avx512bf16) { k.name = "avx512-bf16 vdpbf16ps, zmm"; k.loop = peak_bf16_zmm; k.ops = 12 * 32 * 2; }
        else k.name = "the CPU lacks avx512_bf16";
    } else {
#if defined(__linux__)
        if (!cpuinfo_has("amx_int8")) k.name = "the CPU lacks amx_int8";
        /* Linux hands out the tile data state on request: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) */
        else if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) k.name = "Linux refused the tile data state (arch_prctl)";
        else { k.name = "amx tdpbssd, untested"; k.loop = peak_amx; k.ops = 4 * 16 * 16 * 64 * 2; }
#else
        k.name = "Linux only";
#endif
    }
    return k;
#else
    peak_kernel k = peak_none;
    (void)kind;
    k.name = "x86-64 only";
    return k;
#endif
}

typedef struct peak_job { peak_kernel k; double rate, sink; } peak_job;

/* One thread's loop for PEAK_SECONDS, in chunks that start at about 1e6 operations and
   double while they take under a tenth of it: the clock is read rarely on a fast CPU, and a
   slow one (an unoptimized build, a busy machine) does not run far past the time. */
static void *peak_run(void *arg) {
    peak_job *j = (peak_job *)arg;
    long chunk = (long)(1e6 / j->k.ops) + 1;
    double t0 = llm_seconds(), t, rounds = 0.0, last = 0.0;
    do {
        j->sink += j->k.loop(chunk);
        rounds += (double)chunk;
        t = llm_seconds() - t0;
        if (t - last < PEAK_SECONDS / 10 && chunk < (1L << 24)) chunk *= 2;
        last = t;
    } while (t < PEAK_SECONDS);
    j->rate = rounds * j->k.ops / t;
    return NULL;
}

/* Operations per second of `threads` threads each running k's loop: the median of reps. */
static double peak_measure(peak_kernel k, int threads, int reps) {
    double v[PEAK_REPS], sink = 0.0;
    int rep, t;
    for (rep = 0; rep < reps; rep++) {
        pthread_t th[64];
        peak_job jobs[64];
        for (t = 0; t < threads; t++) {
            jobs[t].k = k; jobs[t].rate = jobs[t].sink = 0.0;
            if (t) pthread_create(&th[t], NULL, peak_run, &jobs[t]);
        }
        peak_run(&jobs[0]);
        v[rep] = jobs[0].rate;
        for (t = 1; t < threads; t++) { pthread_join(th[t], NULL); v[rep] += jobs[t].rate; }
        for (t = 0; t < threads; t++) sink += jobs[t].sink;
    }
    if (sink == 42.0) printf(" "); /* keep the work */
    return median(v, reps);
}

/* Prints each peak with 1 and n threads (medians of PEAK_REPS). */
static void run_peak(int n_threads) {
    static const char *const what[] = { "f32 FMA peak", "int8 dot-product peak", "bf16 dot-product peak", "int8 AMX peak" };
    static const char *const unit[] = { "GFLOP/s", "GOP/s", "GFLOP/s", "GOP/s" };
    int kind;
    for (kind = PEAK_FMA; kind <= PEAK_AMX; kind++) {
        peak_kernel k = peak_choose(kind);
        double one, many;
        if (!k.loop) { printf("%s: not measured (%s)\n", what[kind], k.name); continue; }
        one = peak_measure(k, 1, PEAK_REPS) / 1e9;
        printf("%s (%s): %.1f %s with 1 thread", what[kind], k.name, one, unit[kind]);
        if (n_threads > 1) {
            many = peak_measure(k, n_threads, PEAK_REPS) / 1e9;
            printf(", %.1f %s with %d threads", many, unit[kind], n_threads);
        }
        printf("\n");
    }
}

/* The thread count of a context that asks for 0 (llm.h's default: the CPUs; 2 where
   bench cannot count them). */
static int cpu_count(void) {
#if defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
#else
    return 2;
#endif
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
/* The share of the routed experts' weights a token does not read (0 for a dense model). */
static double unchosen_experts(const llm_model_info *h) {
    return h->n_expert > 0 ? 1.0 - (double)h->n_expert_used / (double)h->n_expert : 0.0;
}

/* Bytes of weights one generated token reads: all tensors but the embedding table, of which
   one row (unless the table is also the output matrix), and of a mixture's routed experts
   only the n_expert_used it chooses in each sparse layer (the active bytes). */
static double bytes_per_token(const llm_model *m) {
    const llm_model_info *h = llm_model_info_get(m);
    const llm_tensor *e = llm_model_tensor(m, "model.embed_tokens.weight");
    double b = (double)h->weight_bytes;
    if (e && !h->tied_embeddings) b -= (double)e->size * (1.0 - 1.0 / (double)h->n_vocab);
    return b - (double)h->expert_bytes * unchosen_experts(h);
}

/* The type of the feed-forward weights, which are most of the model: layer 0's MLP, or its
   first expert in a mixture. */
static llm_dtype weight_type(const llm_model *m) {
    const llm_tensor *t = llm_model_tensor(m, "model.layers.0.mlp.up_proj.weight");
    if (!t) t = llm_model_tensor(m, "model.layers.0.mlp.experts.0.up_proj.weight");
    if (!t) t = llm_model_tensor(m, "model.layers.0.self_attn.q_proj.weight");
    return t->dtype;
}

/* Weights one prompt token multiplies: all but the embedding table (a row lookup) and an
   untied LM head (bench's prompt computes the logits of its last token only). */
static double weights_per_prompt_token(const llm_model *m) {
    const llm_tensor *e = llm_model_tensor(m, "model.embed_tokens.weight"), *o = llm_model_tensor(m, "lm_head.weight");
    double n = (double)llm_model_info_get(m)->n_params;
    if (e) n -= (double)e->shape[0] * (double)e->shape[1];
    if (o) n -= (double)o->shape[0] * (double)o->shape[1];
    return n - (double)llm_model_info_get(m)->expert_params * unchosen_experts(llm_model_info_get(m));
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
    fprintf(f, "usage: bench -m model.llm [-p 128] [-n 64] [-t N] [-r 5] [--kv-type f16|f32] [--bf16-dot] [--no-mmap] [--kernels NAME] [--prefetch on|off] [--membw] [--peak] [--busy N]\n"
               "       bench --membw [-t N]\n"
               "       bench --peak [-t N]\n"
               "  -m, --model FILE  model file (.llm)\n"
               "  -p N, -n N        prompt tokens evaluated at once, tokens generated one at a time (llama-bench's)\n"
               "  -t, --threads N   threads (default: all CPUs; --membw: 2)\n"
               "  -r N              repetitions; the median and the spread are shown\n"
               "  --kv-type T       KV cache type: f16 (default) or f32\n"
               "  --bf16-dot        prompts of bf16 weights with activations rounded to bf16 (llm_ctx_desc.bf16_dot)\n"
               "  --no-mmap         read the weights into memory instead of mapping the file\n"
               "  --kernels NAME    kernel set: auto (default: the best this CPU runs), or one to compare\n"
               "                    (scalar, avx2, avx2-vnni, avx512, avx512-amx, neon, neon-dotprod)\n"
               "  --prefetch on|off q8_0/q4_0 generation: the kernels prefetch weights, or leave it to the CPU\n"
               "                    (default: what is faster on this CPU's vendor; llm_ctx_desc.prefetch)\n"
               "  --membw           memory read bandwidth with 1 and N threads\n"
               "  --peak            f32 FMA, int8 and bf16 dot-product peaks with 1 and N threads (x86-64);\n"
               "                    with -m, prompt speed as a share of the peak of the weight type\n"
               "  --busy N          run N CPU-bound processes during the measurement (at most 16)\n"
               "  -h, --help        this text\n");
}

/* What the figures depend on besides the machine: the kernels and threading of this build. */
static void print_build(void) { printf("llm.h %d.%d.%d: %s\n", LLM_VERSION_MAJOR, LLM_VERSION_MINOR, LLM_VERSION_PATCH, llm_system_info()); }

static const char *const known[] = { "-m", "--model", "-p", "-n", "-t", "--threads", "-r", "--kv-type", "--bf16-dot", "--no-mmap", "--kernels", "--prefetch", "--membw", "--peak",
                                     "--busy", "-h", "--help", NULL };
static const char *const valued[] = { "-m", "-p", "-n", "-t", "-r", "--kv-type", "--kernels", "--prefetch", "--busy", NULL };

/* Quantized weights meet int8 activations: their products are int8 dot products. */
static int int8_weights(llm_dtype t) {
    return t == LLM_DTYPE_Q8_0 || t == LLM_DTYPE_Q4_0 || t == LLM_DTYPE_Q4_K || t == LLM_DTYPE_Q5_K || t == LLM_DTYPE_Q6_K;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    int32_t n_prompt = 128, n_gen = 64, reps = 5, threads = 0, busy = 0;
    int do_membw = 0, do_peak = 0, bf16_dot = 0, no_mmap = 0, prefetch = 0, pkind, run_threads, i, r;
    llm_kv_type kv = LLM_KV_DEFAULT;
    llm_kernels kernels = LLM_KERNELS_AUTO;
    busy_pid busy_pids[16];
    llm_model *m;
    llm_model_desc md;
    llm_ctx *c;
    llm_ctx_desc d;
    const llm_model_info *h;
    int32_t *toks;
    double *pp, *tg, *bw, *share, *peak, *pshare, t0, t_open, bpt, pp_med, tg_med;
    llm_dtype wdt;
    peak_kernel pk = peak_none;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *a = flag_name(arg), *v;
        int ok = 1;
        if (!strcmp(a, "-h")) { usage(stdout); return 0; }
        if (!strcmp(a, "--membw")) { do_membw = 1; continue; }
        if (!strcmp(a, "--peak")) { do_peak = 1; continue; }
        if (!strcmp(a, "--bf16-dot")) { bf16_dot = 1; continue; }
        if (!strcmp(a, "--no-mmap")) { no_mmap = 1; continue; }
        if (!flag_is(a, valued)) { flag_unknown("bench", arg, known); return 2; }
        if (!(v = flag_value(argc, argv, &i))) { fprintf(stderr, "bench: %s needs a value\n", arg); return 2; }
        if (!strcmp(a, "-m")) path = v;
        else if (!strcmp(a, "-p")) ok = flag_int("bench", arg, v, 1, 1 << 20, &n_prompt);
        else if (!strcmp(a, "-n")) ok = flag_int("bench", arg, v, 1, 1 << 20, &n_gen);
        else if (!strcmp(a, "-t")) ok = flag_int("bench", arg, v, 0, 64, &threads);
        else if (!strcmp(a, "-r")) ok = flag_int("bench", arg, v, 1, 1000, &reps);
        else if (!strcmp(a, "--busy")) ok = flag_int("bench", arg, v, 0, 16, &busy);
        else if (!strcmp(a, "--kernels")) ok = flag_kernels("bench", arg, v, &kernels);
        else if (!strcmp(a, "--prefetch") && (!strcmp(v, "on") || !strcmp(v, "off"))) prefetch = !strcmp(v, "on") ? 1 : -1;
        else if (!strcmp(a, "--prefetch")) { fprintf(stderr, "bench: %s: '%s' is neither on nor off\n", arg, v); return 2; }
        else if (!strcmp(v, "f16") || !strcmp(v, "f32")) kv = !strcmp(v, "f32") ? LLM_KV_F32 : LLM_KV_F16;
        else { fprintf(stderr, "bench: %s: '%s' is neither f16 nor f32\n", arg, v); return 2; }
        if (!ok) return 2;
    }
    if (!path && !do_membw && !do_peak) { fprintf(stderr, "bench: no model: give -m FILE, --membw or --peak (see bench --help)\n"); return 2; }
    warn_build("bench");
    run_threads = threads ? threads : cpu_count();
    if (do_membw || do_peak) print_build();
    if (do_membw) run_membw(threads ? threads : 2);
    if (do_peak) run_peak(run_threads);
    if (!path) return 0;
    if (start_busy(busy, busy_pids) != 0) return 2;
    t0 = llm_seconds();
    memset(&md, 0, sizeof md);
    md.no_mmap = no_mmap;
    if (!(m = open_model("bench", path, &md))) { stop_busy(busy, busy_pids); return 1; }
    t_open = llm_seconds() - t0;
    h = llm_model_info_get(m);
    memset(&d, 0, sizeof d);
    d.n_threads = threads;
    d.kv_type = kv;
    d.bf16_dot = bf16_dot;
    d.kernels = kernels;
    d.prefetch = prefetch;
    d.n_ctx = n_prompt + n_gen + 1;
    d.n_batch = n_prompt;
    if (!(c = open_context("bench", m, &d))) { stop_busy(busy, busy_pids); llm_model_close(m); return 1; }
    if (!do_membw && !do_peak) print_build();
    if (kernels != LLM_KERNELS_AUTO) printf("kernels: %s (asked for)\n", llm_kernels_name(llm_ctx_kernels(c)));
    if (bf16_dot) printf("bf16 dot products: %s\n", llm_ctx_bf16_dot(c) ? "on (prompts of bf16 weights)" : "off (not in these kernels or this CPU: avx512_bf16)");
    wdt = weight_type(m);
    if (wdt == LLM_DTYPE_Q8_0 || wdt == LLM_DTYPE_Q4_0)
        printf("prefetch: %s (%s)\n", llm_ctx_prefetch(c) ? "on" : "off", prefetch ? "asked for" : "this CPU's default");
    pkind = int8_weights(wdt) ? PEAK_INT8 : wdt == LLM_DTYPE_BF16 && llm_ctx_bf16_dot(c) ? PEAK_BF16 : PEAK_FMA;
    if (do_peak) pk = peak_choose(pkind);
    toks = (int32_t *)malloc((size_t)(n_prompt + n_gen) * sizeof *toks);
    pp = (double *)malloc((size_t)reps * sizeof *pp);
    tg = (double *)malloc((size_t)reps * sizeof *tg);
    bw = (double *)calloc((size_t)reps, sizeof *bw);
    share = (double *)calloc((size_t)reps, sizeof *share);
    peak = (double *)calloc((size_t)reps, sizeof *peak);
    pshare = (double *)calloc((size_t)reps, sizeof *pshare);
    for (i = 0; i < n_prompt + n_gen; i++) toks[i] = (int32_t)((1103515245u * (unsigned)i + 12345u) % (unsigned)h->n_vocab);
    if (llm_eval(c, toks, 1) != LLM_OK) { /* warm up: page the weights in (a file without an LM head fails here) */
        fprintf(stderr, "bench: %s\n", llm_ctx_error(c));
        stop_busy(busy, busy_pids);
        llm_ctx_close(c);
        llm_model_close(m);
        free(toks); free(pp); free(tg); free(bw); free(share); free(peak); free(pshare);
        return 1;
    }
    for (r = 0; r < reps; r++) {
        llm_ctx_rewind(c, 0);
        if (pk.loop) peak[r] = peak_measure(pk, run_threads, 1);
        t0 = llm_seconds();
        llm_eval(c, toks, (size_t)n_prompt);
        pp[r] = n_prompt / (llm_seconds() - t0);
        if (pk.loop) pshare[r] = 2.0 * weights_per_prompt_token(m) * pp[r] / peak[r];
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
        const char *wt = llm_dtype_name(wdt);
        char th[16];
        if (threads) snprintf(th, sizeof th, "%d", threads);
        else snprintf(th, sizeof th, "default");
        printf("| model | size | params | weights | threads | test | t/s (median, min-max of %d) |\n|---|---|---|---|---|---|---|\n", reps);
        printf("| %s %dL/%d | %.2f GB | %.2f B | %s | %s | pp%d | %.2f (%.2f-%.2f) |\n", h->arch_name, h->n_layer, h->n_embd,
               h->weight_bytes / 1e9, h->n_params / 1e9, wt, th, n_prompt, pp_med, lo_pp, hi_pp);
        printf("| %s %dL/%d | %.2f GB | %.2f B | %s | %s | tg%d | %.2f (%.2f-%.2f) |\n", h->arch_name, h->n_layer, h->n_embd,
               h->weight_bytes / 1e9, h->n_params / 1e9, wt, th, n_gen, tg_med, lo_tg, hi_tg);
    }
    {
        double w = weights_per_prompt_token(m);
        int int8 = int8_weights(wdt);
        printf("prompt multiplies %.1f M weights per token: %.1f %s", w / 1e6, 2.0 * w * pp_med / 1e9, int8 ? "GOP/s (int8)" : "GFLOP/s");
        if (pk.loop) {
            double lo = peak[0], hi = peak[0];
            for (r = 1; r < reps; r++) { lo = peak[r] < lo ? peak[r] : lo; hi = peak[r] > hi ? peak[r] : hi; }
            printf(", %.0f%% of the %s peak measured right before it (median of %d runs; peak %.1f %s, %.1f-%.1f, %d thread%s)",
                   100.0 * median(pshare, reps), pkind == PEAK_INT8 ? "int8 dot-product" : pkind == PEAK_BF16 ? "bf16 dot-product" : "f32 FMA", reps, median(peak, reps) / 1e9,
                   int8 ? "GOP/s" : "GFLOP/s", lo / 1e9, hi / 1e9, run_threads, run_threads > 1 ? "s" : "");
        } else if (do_peak) printf(" (peak not measured: %s)", pk.name);
        printf("\n");
    }
    if (h->n_expert > 0)
        printf("mixture of experts: %d of %d experts per token in %d of %d layers; active bytes per token %.1f MB of %.1f MB of weights\n",
               h->n_expert_used, h->n_expert, h->n_layer_sparse, h->n_layer, bpt / 1e6, h->weight_bytes / 1e6);
    printf("generation streams %.1f MB of weights per token: %.1f GB/s", bpt / 1e6, bpt * tg_med / 1e9);
    if (do_membw) {
        double bw_lo = bw[0], bw_hi = bw[0];
        for (r = 1; r < reps; r++) { bw_lo = bw[r] < bw_lo ? bw[r] : bw_lo; bw_hi = bw[r] > bw_hi ? bw[r] : bw_hi; }
        printf(", %.0f%% of the read bandwidth measured right before it (median of %d runs; bandwidth %.1f GB/s, %.1f-%.1f)",
               100.0 * median(share, reps), reps, median(bw, reps), bw_lo, bw_hi);
    }
    /* The weights count once they are paged in (rows of the embedding table that no token
       used never are), so the peak is compared with weights + the context's allocations (KV
       cache, scratch for n_batch = the prompt's tokens) + 64 MiB. */
    {
        double peak = rss_kb("VmHWM:") / 1024.0, wmib = h->weight_bytes / 1048576.0, cmib = llm_ctx_memory_bytes(c) / 1048576.0;
        printf("\nopen %.1f ms (%s); resident %.0f MiB (peak %.0f MiB, %s weights %.0f MiB + context %.0f MiB (KV cache %.0f MiB) + 64 MiB)%s\n",
               t_open * 1e3, h->weights_mapped ? "mapped" : "read into memory", rss_kb("VmRSS:") / 1024.0, peak, peak <= wmib + cmib + 64.0 ? "within" : "OVER", wmib,
               cmib, llm_ctx_kv_bytes(c) / 1048576.0, busy ? " (with CPU-bound processes running)" : "");
    }
    llm_ctx_close(c);
    llm_model_close(m);
    free(toks); free(pp); free(tg); free(bw); free(share); free(peak); free(pshare);
    return 0;
}
