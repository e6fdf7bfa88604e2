/* Kernels: each SIMD kernel of every set this build has and the CPU runs against its scalar
   reference, the quantizers, and the forward pass's invariants (bitwise the same logits for
   any thread count and for a prompt evaluated at once or token by token; SIMD logits close
   to the reference ones). tests/test_simd.sh builds this file with target flags too (the
   compile-time selection of another compiler). */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static uint64_t rng = 88172645463325252ull;
static float frand(void) { /* uniform in [-1, 1) */
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float)((rng >> 40) / 8388608.0 - 1.0);
}

static llm_kernels simd_set;      /* the set under test */
static const llm__kernels *simd; /* its table */

static float *rand_vec(size_t n, float scale) {
    float *v = (float *)malloc(n * sizeof *v);
    size_t i;
    for (i = 0; i < n; i++) v[i] = frand() * scale;
    return v;
}

static int mm_prefetch; /* llm__mm.prefetch of run_mm's products */

/* out = W x for n_tok tokens with a kernel set, rows [r0, r1) only (the rest stay NaN). */
static void run_mm(const llm__kernels *K, const llm_tensor *w, const float *x, int n_tok, int n_in, int n_out, int r0, int r1,
                   float *out) {
    llm__mm m;
    size_t xs = llm__xq_stride(n_in), i;
    uint8_t *xq = (uint8_t *)malloc(xs * (size_t)n_tok);
    float *xp = (float *)malloc((size_t)n_tok * (size_t)n_in * sizeof *xp);
    for (i = 0; i < (size_t)n_tok * n_out; i++) out[i] = NAN;
    memset(&m, 0, sizeof m);
    m.w = w; m.x = x; m.xq = xq; m.xq_stride = xs; m.out = out; m.n_tok = n_tok; m.n_in = n_in; m.n_out = n_out;
    m.prefetch = mm_prefetch;
    m.xp = llm__prepare_x(K, x, n_tok, n_in, llm__is_quant(w->dtype), llm__is_w16(w->dtype), xq, xs, xp);
    K->mm[w->dtype](&m, r0, r1);
    free(xq); free(xp);
}

/* Set simd against the reference for weights wf [n_out][n_in] and activations x [n_tok][n_in]. */
static void check_matmul(llm_dtype dt, int n_tok, int n_in, int n_out, int r0, int r1, const float *wf, const float *x) {
    const llm__kernels *ref = llm__kernels_get(LLM_KERNELS_SCALAR);
    float *a = (float *)malloc((size_t)n_tok * n_out * 4), *b = (float *)malloc((size_t)n_tok * n_out * 4);
    void *wq = malloc(llm_dtype_row_bytes(dt, n_in) * (size_t)n_out);
    llm_tensor w;
    double worst = 0.0;
    float *row = (float *)malloc((size_t)n_in * 4);
    int t, r, k, bad = 0;
    memset(&w, 0, sizeof w);
    w.dtype = dt; w.n_dims = 2; w.shape[0] = n_out; w.shape[1] = n_in; w.data = wq;
    CHECK(llm_quantize(dt, wf, n_out, n_in, wq, 0) == LLM_OK, "quantize %s", llm_dtype_name(dt));
    run_mm(ref, &w, x, n_tok, n_in, n_out, r0, r1, a);
    run_mm(simd, &w, x, n_tok, n_in, n_out, r0, r1, b);
    for (t = 0; t < n_tok; t++)
        for (r = 0; r < n_out; r++) {
            float u = a[(size_t)t * n_out + r], v = b[(size_t)t * n_out + r];
            double mag = 0.0;
            if (r < r0 || r >= r1) { bad += !(u != u) || !(v != v); continue; } /* untouched */
            /* Integer sums are exact in both; only the order of float additions differs, so
               the difference is measured against the sum of the products' magnitudes. */
            llm__get_row(&w, r, row, n_in);
            for (k = 0; k < n_in; k++) mag += fabs(row[k] * x[(size_t)t * n_in + k]);
            if (fabs(u - v) / mag > worst) worst = fabs(u - v) / mag;
        }
    CHECK(bad == 0, "%s: rows outside [%d, %d) were written", llm_dtype_name(dt), r0, r1);
    /* the last token alone gives bitwise its row of the many-token result, with the weights
       prefetched or not */
    for (mm_prefetch = 0; mm_prefetch < 2; mm_prefetch++) {
        run_mm(simd, &w, x + (size_t)(n_tok - 1) * n_in, 1, n_in, n_out, r0, r1, a);
        CHECK(!memcmp(a + r0, b + (size_t)(n_tok - 1) * n_out + r0, (size_t)(r1 - r0) * 4), "%s %s: %d tokens differ from one%s",
              simd->name, llm_dtype_name(dt), n_tok, mm_prefetch ? ", prefetched" : "");
    }
    mm_prefetch = 0;
    CHECK(worst < 1e-6, "%s %s vs scalar, %d tokens, %dx%d: relative difference %.3g", simd->name, llm_dtype_name(dt),
          n_tok, n_out, n_in, worst);
    free(a); free(b); free(wq); free(row);
}

static void test_matmul(llm_dtype dt, int n_tok, int n_in, int n_out, int r0, int r1) {
    float *wf = rand_vec((size_t)n_out * n_in, 1.0f), *x = rand_vec((size_t)n_tok * n_in, 2.0f);
    check_matmul(dt, n_tok, n_in, n_out, r0, r1, wf, x);
    free(wf); free(x);
}

/* The largest integer sums the kernels meet, where a 16-bit partial sum would saturate if it
   took more products than it has room for: activation codes of +-127 against weight codes of
   the largest magnitude (a block of one -8 and 31 sevens: q4_0 nibbles 0 and 15, the
   k-quants' codes at their top; rows of ones: q8_0's 127), one token (the rows kernels) and
   five (the tiles and a row). */
static void test_matmul_extremes(llm_dtype dt) {
    enum { N_IN = 256, N_OUT = 32, N_TOK = 5 };
    static float wf[N_OUT * N_IN], x[N_TOK * N_IN];
    int i, n_tok;
    for (i = 0; i < N_OUT * N_IN; i++) wf[i] = (i / N_IN) % 2 ? 1.0f : i % 32 ? 7.0f : -8.0f;
    for (i = 0; i < N_TOK * N_IN; i++) x[i] = (i / N_IN) % 2 ? -1.0f : 1.0f;
    for (n_tok = 1; n_tok <= N_TOK; n_tok += N_TOK - 1) check_matmul(dt, n_tok, N_IN, N_OUT, 0, N_OUT, wf, x);
}

/* bf16 dot products (llm_ctx_desc.bf16_dot) of set K: W [n_out][n_in] bf16 x n_tok tokens,
   the activations rounded to bf16 (llm__pack_x_bf16). Each output is within the rounding
   bound of f32 sums of those exact products in any order (n_in u / (1 - n_in u) of the sum
   of their magnitudes, u = 2^-24: an unrounded activation is off by up to 2^-9 of its
   product), and bitwise the same for a token whatever tokens come with it; rows past the
   last group of 16 are the exact kernel's. */
static void pack_bf16(const llm__kernels *K, const float *x, int n_tok, int n_in, uint32_t *xb) {
    if (K->xb_rows) llm__pack_x_bf16_rows(x, n_tok, n_in, xb);
    else llm__pack_x_bf16(x, n_tok, n_in, K->x_tile, xb);
}

static void test_bf16_dot_case(const llm__kernels *K, int n_tok, int n_in, int n_out) {
    float *wf = rand_vec((size_t)n_out * n_in, 1.0f), *x = rand_vec((size_t)n_tok * n_in, 2.0f);
    float *out = (float *)malloc((size_t)n_tok * n_out * 4), *two = (float *)malloc((size_t)2 * n_out * 4);
    float *exact = (float *)malloc((size_t)n_tok * n_out * 4), *row = (float *)malloc((size_t)n_in * 4);
    uint32_t *xb = (uint32_t *)malloc((size_t)n_tok * llm__bf16_line(n_in) * 4);
    void *wq = malloc(llm_dtype_row_bytes(LLM_DTYPE_BF16, n_in) * (size_t)n_out);
    double u = ldexp(1.0, -24), gamma = n_in * u / (1.0 - n_in * u), worst = 0.0;
    int groups = n_out / LLM__QG * LLM__QG, t, r, k, tails_same = 1;
    llm_tensor w;
    llm__mm m;
    memset(&w, 0, sizeof w);
    w.dtype = LLM_DTYPE_BF16; w.n_dims = 2; w.shape[0] = n_out; w.shape[1] = n_in; w.data = wq;
    CHECK(llm_quantize(LLM_DTYPE_BF16, wf, n_out, n_in, wq, 0) == LLM_OK, "bf16 weights");
    memset(&m, 0, sizeof m);
    m.w = &w; m.x = x; m.out = out; m.n_tok = n_tok; m.n_in = n_in; m.n_out = n_out; m.xb = xb;
    pack_bf16(K, x, n_tok, n_in, xb);
    llm__mm_run(K, &m, 0, n_out);
    run_mm(K, &w, x, n_tok, n_in, n_out, 0, n_out, exact);
    for (t = 0; t < n_tok; t++)
        for (r = 0; r < n_out; r++) {
            double ref = 0.0, mag = 0.0, v = out[(size_t)t * n_out + r];
            if (r >= groups) { tails_same &= !memcmp(&out[(size_t)t * n_out + r], &exact[(size_t)t * n_out + r], 4); continue; }
            llm__get_row(&w, r, row, n_in);
            for (k = 0; k < n_in; k++) {
                double p = (double)row[k] * llm_bf16_to_f32(llm_f32_to_bf16(x[(size_t)t * n_in + k]));
                ref += p;
                mag += fabs(p);
            }
            if (fabs(v - ref) / (gamma * mag) > worst) worst = fabs(v - ref) / (gamma * mag);
        }
    CHECK(worst <= 1.0, "%s bf16 dot, %d tokens, %dx%d: %.3g of the rounding bound", K->name, n_tok, n_out, n_in, worst);
    CHECK(tails_same, "%s bf16 dot, %dx%d: rows past the groups differ from the exact kernel", K->name, n_out, n_in);
    /* tokens 1 and 2 (at n_tok - 2 and n_tok - 1) as a prompt of their own */
    m.x = x + (size_t)(n_tok - 2) * n_in; m.n_tok = 2; m.out = two;
    pack_bf16(K, m.x, 2, n_in, xb);
    llm__mm_run(K, &m, 0, n_out);
    CHECK(!memcmp(two, out + (size_t)(n_tok - 2) * n_out, (size_t)2 * n_out * 4), "%s bf16 dot, %d tokens: the last two alone differ",
          K->name, n_tok);
    free(wf); free(x); free(out); free(two); free(exact); free(row); free(xb); free(wq);
}

/* Every set with bf16 dot products (the tiles' with 16 tokens or more), where the CPU runs them. */
static void test_bf16_dot(void) {
    static const int toks[] = { 2, 3, 5, 13, 16, 17, 30, 33 }, ins[] = { 2, 67, 300, 514 }, outs[] = { 48, 40, 24 }; /* 1 and 2 groups, tails */
    int k, any = 0, i, j;
    for (k = LLM_KERNELS_SCALAR; k < LLM_KERNELS_COUNT; k++) {
        const llm__kernels *K = llm__kernels_get((llm_kernels)k);
        if (!K || !K->mm_bf16_dot) continue;
        any = 1;
        if (!llm_kernels_supported((llm_kernels)k) || !llm__cpu_bf16(K->xb_rows)) { /* (not at the line's start: the test runs) */
            printf("%s bf16 dot products SKIP: the CPU lacks %s\n", K->name,
                   !llm_kernels_supported((llm_kernels)k) ? (K->xb_rows ? "amx_int8" : "avx512_vnni") : K->xb_rows ? "amx_bf16" : "avx512_bf16");
            continue;
        }
        for (i = 0; i < (int)(sizeof toks / sizeof *toks); i++)
            for (j = 0; j < (int)(sizeof ins / sizeof *ins); j++) test_bf16_dot_case(K, toks[i], ins[j], outs[(i + j) % 3]);
        printf("%s: bf16 dot products within the rounding bound\n", K->name);
    }
    if (!any) printf("bf16 dot products SKIP: not in this build\n");
}

/* The attention's loops over n cached rows of hd (f32 and f16 caches): scores, softmax and the
   weighted sum of the value rows, against the scalar set. A score is a dot product of hd
   terms, so it may differ by rounding in the order of the sum: the bound is 1e-6 of the sum
   of the terms' magnitudes. The softmax's e^x is within about an ulp of expf and its sum may
   be taken in another order: 1e-6 relative. hd and n cover the sets' blocks (16 rows, 16, 32
   and 64 columns) and what is left past them. */
static void test_attention_kernels(const llm__kernels *ref) {
    static const int hds[] = { 1, 8, 16, 24, 40, 64, 80, 128, 136 }, ns[] = { 1, 15, 16, 17, 40, 100 };
    size_t a, b;
    for (a = 0; a < sizeof hds / sizeof *hds; a++)
        for (b = 0; b < sizeof ns / sizeof *ns; b++) {
            int hd = hds[a], n = ns[b], t, i, f16;
            float *k = rand_vec((size_t)n * (size_t)hd, 1.0f), *v = rand_vec((size_t)n * (size_t)hd, 1.0f), *q = rand_vec((size_t)hd, 1.0f);
            float *s1 = (float *)malloc((size_t)n * 4), *s2 = (float *)malloc((size_t)n * 4);
            float *o1 = (float *)malloc((size_t)hd * 4), *o2 = (float *)malloc((size_t)hd * 4), *p = rand_vec((size_t)n, 1.0f);
            uint16_t *kh = (uint16_t *)malloc((size_t)n * (size_t)hd * 2), *vh = (uint16_t *)malloc((size_t)n * (size_t)hd * 2);
            for (i = 0; i < n * hd; i++) { kh[i] = llm_f32_to_f16(k[i]); vh[i] = llm_f32_to_f16(v[i]); }
            for (f16 = 0; f16 < 2; f16++) {
                if (f16) { ref->scores_f16(kh, q, hd, n, 0.125f, s1); simd->scores_f16(kh, q, hd, n, 0.125f, s2); }
                else { ref->scores_f32(k, q, hd, n, 0.125f, s1); simd->scores_f32(k, q, hd, n, 0.125f, s2); }
                for (t = 0; t < n; t++) {
                    double mag = 0.0;
                    for (i = 0; i < hd; i++) mag += fabs((double)(f16 ? llm_f16_to_f32(kh[t * hd + i]) : k[t * hd + i]) * q[i]);
                    CHECK(fabs((double)s1[t] - s2[t]) <= 1e-6 * 0.125 * mag + 1e-30, "scores_f%d hd=%d n=%d row %d: %g vs %g", f16 ? 16 : 32, hd, n, t, s1[t], s2[t]);
                }
                for (t = 0; t < n; t++) p[t] = (float)(t % 3) / (float)n;
                if (f16) { ref->values_f16(o1, p, vh, hd, n); simd->values_f16(o2, p, vh, hd, n); }
                else { ref->values_f32(o1, p, v, hd, n); simd->values_f32(o2, p, v, hd, n); }
                for (i = 0; i < hd; i++) CHECK(fabsf(o1[i] - o2[i]) <= 1e-6f, "values_f%d hd=%d n=%d column %d: %g vs %g", f16 ? 16 : 32, hd, n, i, o1[i], o2[i]);
            }
            /* scores far apart (e^-100 is subnormal, e^-200 is 0) */
            for (t = 0; t < n; t++) s1[t] = s2[t] = (float)(t % 7) * (t % 2 ? -33.0f : 0.7f);
            ref->softmax(s1, n); simd->softmax(s2, n);
            for (t = 0; t < n; t++) CHECK(fabsf(s1[t] - s2[t]) <= 1e-6f * s1[t] + 1e-37f, "softmax n=%d %d: %g vs %g", n, t, s1[t], s2[t]);
            free(k); free(v); free(q); free(s1); free(s2); free(o1); free(o2); free(p); free(kh); free(vh);
        }
}

static void test_vector_kernels(void) {
    const llm__kernels *ref = llm__kernels_get(LLM_KERNELS_SCALAR);
    int n;
    for (n = 32; n <= 608; n += 96) {
        float *x = rand_vec((size_t)n, 3.0f);
        uint8_t *qa = (uint8_t *)malloc(llm__xq_stride(n)), *qb = (uint8_t *)malloc(llm__xq_stride(n));
        x[5] = 0.5f * (x[3] = 127.0f); /* an exact tie: 63.5 rounds to even */
        if (n > 64) x[40] = 0.0f * (x[33] = -1e-30f); /* tiny and zero values */
        ref->quantize_x(x, n, qa); simd->quantize_x(x, n, qb);
        CHECK(memcmp(qa, qb, (size_t)n + (size_t)n / 4) == 0, "quantize_x differs from the reference, n=%d", n);
        free(x); free(qa); free(qb);
    }
    test_attention_kernels(ref);
}

/* Activations holding NaN or an infinity: the quantized activations are the same bytes in
   every kernel set (codes 0, a NaN scale), and every kernel gives NaN for a token whose
   activations hold either (float kernels: the same NaN or infinity as the reference), with
   no integer conversion of a non-number (UBSan: tests/valgrind.sh, make test). A block
   whose scale would be below FLT_MIN quantizes to zero codes. */
static void test_nonfinite_activations(void) {
    static const llm_dtype types[] = { LLM_DTYPE_F32, LLM_DTYPE_F16, LLM_DTYPE_BF16, LLM_DTYPE_Q8_0, LLM_DTYPE_Q4_0 };
    const llm__kernels *ref = llm__kernels_get(LLM_KERNELS_SCALAR);
    enum { N_TOK = 4, N_IN = 128, N_OUT = 32 };
    float *x = rand_vec((size_t)N_TOK * N_IN, 2.0f), *wf = rand_vec((size_t)N_OUT * N_IN, 1.0f);
    float a[N_TOK * N_OUT], b[N_TOK * N_OUT];
    uint8_t qa[N_IN + N_IN / 4], qb[N_IN + N_IN / 4];
    size_t i;
    int t, r, k;
    x[0 * N_IN + 40] = NAN;                                  /* token 0: a NaN in block 1 */
    x[1 * N_IN + 3] = INFINITY; x[1 * N_IN + 70] = -INFINITY; /* token 1: +inf in block 0, -inf in block 2 */
    x[2 * N_IN + 100] = -NAN;                                /* token 2: a NaN with the sign bit, block 3 */
    for (k = 0; k < 32; k++) x[3 * N_IN + 32 + k] = 1e-39f * (float)(k - 16); /* token 3: a subnormal block */
    for (t = 0; t < N_TOK; t++) {
        ref->quantize_x(x + t * N_IN, N_IN, qa);
        simd->quantize_x(x + t * N_IN, N_IN, qb);
        CHECK(memcmp(qa, qb, sizeof qa) == 0, "%s quantize_x of non-finite activations differs from the reference, token %d", simd->name, t);
        for (k = 0; k < N_IN / 32; k++) {
            float d;
            int zeros = 0, j;
            memcpy(&d, qa + N_IN + 4 * k, 4);
            for (j = 0; j < 32; j++) zeros += qa[32 * k + j] == 0;
            if ((t == 0 && k == 1) || (t == 1 && (k == 0 || k == 2)) || (t == 2 && k == 3))
                CHECK(d != d && zeros == 32 && llm__rd_i32(qa + N_IN + 4 * (N_IN / 32 + k)) == 0,
                      "token %d block %d: a non-finite block quantizes to zero codes and a NaN scale", t, k);
            else if (t == 3 && k == 1)
                CHECK(zeros == 32, "token 3: a block whose scale is below FLT_MIN quantizes to zero codes");
            else
                CHECK(d == d, "token %d block %d: a finite block has a finite scale", t, k);
        }
    }
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        llm_dtype dt = types[i];
        void *wq = malloc(llm_dtype_row_bytes(dt, N_IN) * N_OUT);
        llm_tensor w;
        int bad = 0;
        memset(&w, 0, sizeof w);
        w.dtype = dt; w.n_dims = 2; w.shape[0] = N_OUT; w.shape[1] = N_IN; w.data = wq;
        llm_quantize(dt, wf, N_OUT, N_IN, wq, 0);
        run_mm(ref, &w, x, N_TOK, N_IN, N_OUT, 0, N_OUT, a);
        run_mm(simd, &w, x, N_TOK, N_IN, N_OUT, 0, N_OUT, b);
        for (t = 0; t < N_TOK; t++)
            for (r = 0; r < N_OUT; r++) {
                float u = a[t * N_OUT + r], v = b[t * N_OUT + r];
                if (t < 3) bad += llm__is_quant(dt) ? !(u != u && v != v) : !((u != u && v != v) || (isinf(u) && u == v));
                else bad += !(u == u && v == v && fabsf(u - v) <= 1e-4f * (1.0f + fabsf(u)));
            }
        CHECK(bad == 0, "%s %s: %d results of non-finite activations differ from the reference (NaN expected for quantized weights)",
              simd->name, llm_dtype_name(dt), bad);
        free(wq);
    }
    free(x); free(wf);
}

/* The gates, SwiGLU and GeGLU: within 4 ulp of silu(g) * u and of gelu_tanh(g) * u computed
   in double, for gates from -120 to 100, the same bits when split at any offset and in every
   set with vector gates. Where
   e^-g (e^-2u) overflows the result is 0 (as in PyTorch), and the exact one under 1e-36. */
static double gate_exact(int gelu, float g) {
    /* u in float as the kernels (and PyTorch) compute it: past |u| = 40 its rounding alone
       moves e^-2u by more than 4 ulp; what is checked is the rest. 0.5 g (1 + tanh(u)) is
       g / (1 + e^-2u), which loses nothing where tanh(u) is near -1. */
    float u = 0.7978845608028654f * (g + 0.044715f * g * (g * g));
    return gelu ? (double)g / (1.0 + exp(-2.0 * (double)u)) : (double)g / (1.0 + exp(-(double)g));
}

static void test_gate_kernels(void) {
    const llm__kernels *ref = llm__kernels_get(LLM_KERNELS_SCALAR);
    enum { N = 4001 };
    static float g[N], u[N], a[N], b[N], c[N], first[2][N];
    static const char *first_set[2];
    int i, split, gelu;
    /* the same inputs for every set (not frand's next values): the sets' results are compared */
    for (i = 0; i < N; i++) { g[i] = -120.0f + 220.0f * (float)i / (N - 1); u[i] = i % 3 ? (float)(i * 7919 % 2001) / 1000.0f - 1.0f : 1.0f; }
    g[0] = 0.0f; g[1] = -0.0f; g[2] = 1e-30f;
    for (i = 0; i < 40; i++) g[3 + i] = -10.0f + 0.17f * (float)i; /* where a split falls */
    for (gelu = 0; gelu < 2; gelu++) {
        void (*ref_fn)(float *, const float *, int) = gelu ? ref->geglu : ref->swiglu;
        void (*simd_fn)(float *, const float *, int) = gelu ? simd->geglu : simd->swiglu;
        const char *what = gelu ? "geglu" : "swiglu";
        double worst_a = 0.0, worst_b = 0.0;
        memcpy(a, g, sizeof g); memcpy(b, g, sizeof g);
        ref_fn(a, u, N); simd_fn(b, u, N);
        for (i = 0; i < N; i++) {
            double e = gate_exact(gelu, g[i]) * u[i], tol = 4.0 * 1.1920929e-7 * fabs(e) + 1e-36;
            if (fabs(a[i] - e) / tol > worst_a) worst_a = fabs(a[i] - e) / tol;
            if (fabs(b[i] - e) / tol > worst_b) worst_b = fabs(b[i] - e) / tol;
        }
        CHECK(worst_a <= 1.0, "scalar %s off by %.2f x 4 ulp", what, worst_a);
        CHECK(worst_b <= 1.0, "%s %s off by %.2f x 4 ulp", simd->name, what, worst_b);
        for (split = 1; split < 40; split += 3) { /* splits among gates from -10 to -3 */
            memcpy(c, g, sizeof g);
            simd_fn(c, u, split);
            simd_fn(c + split, u + split, N - split);
            CHECK(!memcmp(b, c, sizeof c), "%s %s depends on the split at %d", simd->name, what, split);
        }
        /* the vector gates of every set share one arithmetic (llm__exp_avx512's), so one bits */
        if (simd_fn == ref_fn) continue;
        if (!first_set[gelu]) { first_set[gelu] = simd->name; memcpy(first[gelu], b, sizeof b); }
        else CHECK(!memcmp(first[gelu], b, sizeof b), "%s %s differs from %s's", simd->name, what, first_set[gelu]);
    }
}

/* q8_0 reconstructs within half a step; q4_0's search is never worse than ggml's rounding. */
static void test_quantizers(void) {
    int n_out = 32, n_in = 256, r, k;
    float *w = rand_vec((size_t)n_out * n_in, 1.0f), *row = (float *)malloc((size_t)n_in * 4);
    void *q8 = malloc(llm_dtype_row_bytes(LLM_DTYPE_Q8_0, n_in) * (size_t)n_out);
    void *q4 = malloc(llm_dtype_row_bytes(LLM_DTYPE_Q4_0, n_in) * (size_t)n_out);
    void *q4r = malloc(llm_dtype_row_bytes(LLM_DTYPE_Q4_0, n_in) * (size_t)n_out);
    llm_tensor t8, t4, t4r;
    double e4 = 0, e4r = 0;
    for (k = 0; k < n_in; k++) w[k] = (float)(k % 16) - 8.0f; /* a row with exact codes */
    memset(&t8, 0, sizeof t8);
    t8.dtype = LLM_DTYPE_Q8_0; t8.data = q8; t4 = t8; t4.dtype = LLM_DTYPE_Q4_0; t4.data = q4; t4r = t4; t4r.data = q4r;
    CHECK(llm_quantize(LLM_DTYPE_Q8_0, w, n_out, n_in, q8, 0) == LLM_OK, "q8_0");
    CHECK(llm_quantize(LLM_DTYPE_Q4_0, w, n_out, n_in, q4, 0) == LLM_OK, "q4_0");
    CHECK(llm_quantize(LLM_DTYPE_Q4_0, w, n_out, n_in, q4r, LLM_QUANTIZE_REFERENCE) == LLM_OK, "q4_0 reference");
    CHECK(llm_quantize(LLM_DTYPE_Q8_0, w, 8, n_in, q8, 0) == LLM_ERR_INVALID_ARGUMENT, "rows must come in 16s");
    CHECK(llm_quantize(LLM_DTYPE_Q8_0, w, 16, 48, q8, 0) == LLM_ERR_INVALID_ARGUMENT, "columns must come in 32s");
    for (r = 0; r < n_out; r++) {
        const float *x = w + (size_t)r * n_in;
        float amax = 0;
        for (k = 0; k < n_in; k++) amax = fabsf(x[k]) > amax ? fabsf(x[k]) : amax;
        llm__get_row(&t8, r, row, n_in);
        for (k = 0; k < n_in; k++) CHECK(fabsf(row[k] - x[k]) <= amax / 127.0f * 0.51f, "q8_0 row %d col %d: %g vs %g", r, k, row[k], x[k]);
        llm__get_row(&t4, r, row, n_in);
        for (k = 0; k < n_in; k++) e4 += (row[k] - x[k]) * (row[k] - x[k]);
        if (r == 0) for (k = 0; k < n_in; k++) CHECK(row[k] == x[k], "q4_0 exact codes: col %d %g vs %g", k, row[k], x[k]);
        llm__get_row(&t4r, r, row, n_in);
        for (k = 0; k < n_in; k++) e4r += (row[k] - x[k]) * (row[k] - x[k]);
    }
    printf("q4_0 squared error: %.4g (ggml rounding: %.4g)\n", e4, e4r);
    CHECK(e4 <= e4r * 0.95, "q4_0 search is not better than ggml's rounding: %g vs %g", e4, e4r);
    free(w); free(row); free(q8); free(q4); free(q4r);
}

/* ggml's dequantization of one Q4_K / Q5_K / Q6_K block as ggml-quants.c writes it (its loop
   order), from the block layout of ggml-common.h: the reference for the re-layout. */
static void ggml_dequant_block(llm_dtype t, const uint8_t *g, float *y) {
    int j, l, is = 0;
    if (t == LLM_DTYPE_Q6_K) {
        const uint8_t *ql = g, *qh = g + 128;
        const int8_t *sc = (const int8_t *)(g + 192);
        float d = llm_f16_to_f32((uint16_t)(g[208] | g[209] << 8));
        for (j = 0; j < 256; j += 128) {
            for (l = 0; l < 32; l++) {
                int s = l / 16;
                int8_t q1 = (int8_t)((ql[l] & 0xF) | ((qh[l] >> 0) & 3) << 4) - 32;
                int8_t q2 = (int8_t)((ql[l + 32] & 0xF) | ((qh[l] >> 2) & 3) << 4) - 32;
                int8_t q3 = (int8_t)((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
                int8_t q4 = (int8_t)((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
                y[l] = d * sc[s] * q1; y[l + 32] = d * sc[s + 2] * q2; y[l + 64] = d * sc[s + 4] * q3; y[l + 96] = d * sc[s + 6] * q4;
            }
            y += 128; ql += 64; qh += 32; sc += 8;
        }
        return;
    }
    {
        float d = llm_f16_to_f32((uint16_t)(g[0] | g[1] << 8)), dmin = llm_f16_to_f32((uint16_t)(g[2] | g[3] << 8));
        const uint8_t *q = g + (t == LLM_DTYPE_Q5_K ? 48 : 16), *qh = g + 16, *scales = g + 4;
        int u1 = 1, u2 = 2;
        for (j = 0; j < 256; j += 64) {
            int sc[2], m[2], i;
            for (i = 0; i < 2; i++) {
                int k = is + i;
                if (k < 4) { sc[i] = scales[k] & 63; m[i] = scales[k + 4] & 63; }
                else { sc[i] = (scales[k + 4] & 0xF) | ((scales[k - 4] >> 6) << 4); m[i] = (scales[k + 4] >> 4) | ((scales[k] >> 6) << 4); }
            }
            {
                const float d1 = d * sc[0], m1 = dmin * m[0], d2 = d * sc[1], m2 = dmin * m[1];
                for (l = 0; l < 32; l++) y[j + l] = d1 * ((q[l] & 0xF) + (t == LLM_DTYPE_Q5_K && (qh[l] & u1) ? 16 : 0)) - m1;
                for (l = 0; l < 32; l++) y[j + 32 + l] = d2 * ((q[l] >> 4) + (t == LLM_DTYPE_Q5_K && (qh[l] & u2) ? 16 : 0)) - m2;
            }
            q += 32; is += 2; u1 <<= 2; u2 <<= 2;
        }
    }
}

/* k-quants: ggml blocks re-laid out give bit for bit ggml's values; the quantizers' errors
   come in the order of their bits, and q4_k's sub-block scales beat q4_0 on weights whose
   magnitude varies along a row (as trained matrices' do). */
static void test_kquants(void) {
    static const llm_dtype types[] = { LLM_DTYPE_Q4_K, LLM_DTYPE_Q5_K, LLM_DTYPE_Q6_K };
    int rows = 32, cols = 512, qcols = 672, i, r, k, bad; /* qcols: a last super-block of 5 sub-blocks */
    float *row = (float *)malloc((size_t)qcols * 4), y[256];
    float *w = (float *)malloc((size_t)rows * qcols * 4);
    double err[4] = { 0 };
    llm_tensor tk;
    for (i = 0; i < 3; i++) {
        llm_dtype t = types[i];
        size_t gb = llm_dtype_row_bytes(t, 256), rb = llm_dtype_row_bytes(t, cols), j;
        uint8_t *g = (uint8_t *)malloc(rb * (size_t)rows), *dst = (uint8_t *)malloc(rb * (size_t)rows);
        llm_result (*relayout)(const void *, int64_t, int64_t, void *) =
            t == LLM_DTYPE_Q4_K ? llm_q4_k_from_ggml : t == LLM_DTYPE_Q5_K ? llm_q5_k_from_ggml : llm_q6_k_from_ggml;
        for (j = 0; j < rb * (size_t)rows; j++) g[j] = (uint8_t)(frand() * 128.0f + 128.0f);
        for (j = 0; j < rb * (size_t)rows; j += gb) { /* finite f16 scales */
            uint16_t d = llm_f32_to_f16(frand() * 0.01f), m = llm_f32_to_f16(frand() * 0.01f);
            if (t == LLM_DTYPE_Q6_K) { g[j + 208] = (uint8_t)d; g[j + 209] = (uint8_t)(d >> 8); }
            else { g[j] = (uint8_t)d; g[j + 1] = (uint8_t)(d >> 8); g[j + 2] = (uint8_t)m; g[j + 3] = (uint8_t)(m >> 8); }
        }
        CHECK(relayout(g, rows, cols, dst) == LLM_OK, "%s from ggml", llm_dtype_name(t));
        CHECK(relayout(g, 8, cols, dst) == LLM_ERR_INVALID_ARGUMENT, "%s from ggml: rows must come in 16s", llm_dtype_name(t));
        memset(&tk, 0, sizeof tk);
        tk.dtype = t; tk.n_dims = 2; tk.shape[0] = rows; tk.shape[1] = cols; tk.data = dst;
        for (r = 0, bad = 0; r < rows; r++) {
            llm__get_row(&tk, r, row, cols);
            for (k = 0; k < cols; k += 256) {
                ggml_dequant_block(t, g + (size_t)r * rb + (size_t)k / 256 * gb, y);
                bad += memcmp(y, row + k, sizeof y) != 0;
            }
        }
        CHECK(bad == 0, "%s: %d ggml blocks re-laid out do not dequantize to ggml's values", llm_dtype_name(t), bad);
        free(g); free(dst);
    }
    /* weights whose scale changes every 32 columns */
    for (r = 0; r < rows; r++)
        for (k = 0; k < qcols; k++) w[(size_t)r * qcols + k] = (frand() + frand() + frand()) * (0.2f + fabsf(sinf((float)(k / 32 + 7 * r))));
    for (i = 0; i < 4; i++) {
        llm_dtype t = i < 3 ? types[i] : LLM_DTYPE_Q4_0;
        void *q = malloc(llm_dtype_row_bytes(t, qcols) * (size_t)rows);
        CHECK(llm_quantize(t, w, rows, qcols, q, 0) == LLM_OK, "quantize %s", llm_dtype_name(t));
        memset(&tk, 0, sizeof tk);
        tk.dtype = t; tk.n_dims = 2; tk.shape[0] = rows; tk.shape[1] = qcols; tk.data = q;
        for (r = 0; r < rows; r++) {
            llm__get_row(&tk, r, row, qcols);
            for (k = 0; k < qcols; k++) err[i] += (row[k] - w[(size_t)r * qcols + k]) * (row[k] - w[(size_t)r * qcols + k]);
        }
        free(q);
    }
    printf("squared error: q4_0 %.4g q4_k %.4g q5_k %.4g q6_k %.4g\n", err[3], err[0], err[1], err[2]);
    CHECK(err[0] < err[3] && err[1] < err[0] / 3 && err[2] < err[1] / 3, "k-quant errors out of order: q4_0 %g q4_k %g q5_k %g q6_k %g",
          err[3], err[0], err[1], err[2]);
    CHECK(llm_quantize(LLM_DTYPE_Q4_K, w, 16, 272, row, 0) == LLM_ERR_INVALID_ARGUMENT, "k-quant columns must come in 32s");
    free(row); free(w);
}

/* The quantizers of kernel set k write the bytes of the scalar ones (tools/llm_quant_vec.h
   runs the reference's operations in lanes): on random rows and on blocks of zeros, of
   subnormal, huge or non-finite values, of equal magnitudes of both signs, of exact codes. */
static void test_quantizer_set(llm_kernels k) {
    static const llm_dtype types[] = { LLM_DTYPE_Q8_0, LLM_DTYPE_Q4_0, LLM_DTYPE_Q4_K, LLM_DTYPE_Q5_K, LLM_DTYPE_Q6_K, LLM_DTYPE_F16, LLM_DTYPE_BF16 };
    static const float odd[] = { 0.0f, -0.0f, 1e-40f, -3e-39f, 1e-30f, 6e-8f, 65504.0f, 1e30f, -3e38f, INFINITY, -INFINITY, NAN };
    int rows = 48, cols = 352, r, c, i, f; /* 352: k-quants end with a super-block of 3 sub-blocks */
    float *w = rand_vec((size_t)rows * cols, 1.0f);
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c += 32) {
            float *x = w + (size_t)r * cols + c, v = odd[(r + c / 32) % (sizeof odd / sizeof odd[0])];
            switch ((r * 7 + c / 32) % 8) {
            case 0: for (i = 0; i < 32; i++) x[i] = v; break;                         /* a block of one value */
            case 1: x[(r + c) % 32] = v; break;                                      /* one odd value */
            case 2: for (i = 0; i < 32; i++) x[i] *= 1e-38f; break;                  /* subnormal and near it */
            case 3: x[3] = 0.75f; x[17] = -0.75f; for (i = 0; i < 32; i++) if (i != 3 && i != 17) x[i] *= 0.7f; break;
            case 4: for (i = 0; i < 32; i++) x[i] = (float)(i % 16) - 8.0f; break;  /* exact q4_0 codes */
            case 5: for (i = 0; i < 32; i++) x[i] = x[i] * 1e4f + 3e4f; break;      /* all positive, large */
            case 6: for (i = 0; i < 32; i++) x[i] *= (r & 1) ? 3e-4f : 4e-6f; break; /* subnormal f16 scales */
            default: x[0] = v; break;                                                /* an odd first value */
            }
        }
    for (i = 0; i < (int)(sizeof types / sizeof types[0]); i++)
        for (f = 0; f < (types[i] == LLM_DTYPE_Q4_0 ? 2 : 1); f++) {
            size_t size = llm_dtype_row_bytes(types[i], cols) * (size_t)rows;
            uint8_t *a = (uint8_t *)malloc(size), *b = (uint8_t *)malloc(size);
            int flags = f ? LLM_QUANTIZE_REFERENCE : 0;
            CHECK(llm_quantize(types[i], w, rows, cols, a, flags | LLM_QUANTIZE_KERNELS(LLM_KERNELS_SCALAR)) == LLM_OK, "quantize %s", llm_dtype_name(types[i]));
            CHECK(llm_quantize(types[i], w, rows, cols, b, flags | LLM_QUANTIZE_KERNELS(k)) == LLM_OK, "quantize %s with %s", llm_dtype_name(types[i]),
                  llm_kernels_name(k));
            CHECK(!memcmp(a, b, size), "%s%s: the %s quantizer writes other bytes than the scalar one", llm_dtype_name(types[i]),
                  f ? " (reference rounding)" : "", llm_kernels_name(k));
            free(a); free(b);
        }
    CHECK(llm_quantize(LLM_DTYPE_Q8_0, w, rows, cols, w, LLM_QUANTIZE_KERNELS(LLM_KERNELS_COUNT)) == LLM_ERR_INVALID_ARGUMENT, "a kernel set past the end");
    free(w);
}

/* A random llama model in memory: every matrix in dtype dt. */
static void *make_model(llm_dtype dt, int n_embd, int n_ff, int n_layer, int n_head, int n_kv, int vocab, size_t *size) {
    llm_builder *b;
    const void *hdr;
    size_t hsize, idx, n_t = 0, i;
    uint8_t *buf;
    struct { char name[96]; int64_t shape[2]; int nd; } t[64];
    int l, hd = n_embd / n_head;
    static const int32_t eos[1] = { 2 };
    llm_builder_create(&b);
    llm_builder_set_string(b, "general.architecture", "llama", 5);
    llm_builder_set_i32(b, "llm.vocab_size", vocab); llm_builder_set_i32(b, "llm.hidden_size", n_embd);
    llm_builder_set_i32(b, "llm.intermediate_size", n_ff); llm_builder_set_i32(b, "llm.num_layers", n_layer);
    llm_builder_set_i32(b, "llm.num_heads", n_head); llm_builder_set_i32(b, "llm.num_kv_heads", n_kv);
    llm_builder_set_i32(b, "llm.head_dim", hd); llm_builder_set_i32(b, "llm.max_position_embeddings", 512);
    llm_builder_set_f64(b, "llm.rms_norm_eps", 1e-5); llm_builder_set_f64(b, "llm.rope_theta", 10000.0);
    llm_builder_set_i32(b, "llm.bos_token_id", 1); llm_builder_set_i32_array(b, "llm.eos_token_ids", eos, 1);
#define T2(nm, a, c) do { snprintf(t[n_t].name, 96, "%s", nm); t[n_t].shape[0] = a; t[n_t].shape[1] = c; t[n_t].nd = c ? 2 : 1; n_t++; } while (0)
    T2("model.embed_tokens.weight", vocab, n_embd);
    T2("lm_head.weight", vocab, n_embd);
    T2("model.norm.weight", n_embd, 0);
    for (l = 0; l < n_layer; l++) {
        char nm[96];
#define TL(suffix, a, c) do { snprintf(nm, 96, "model.layers.%d.%s", l, suffix); T2(nm, a, c); } while (0)
        TL("input_layernorm.weight", n_embd, 0); TL("post_attention_layernorm.weight", n_embd, 0);
        TL("self_attn.q_proj.weight", n_embd, n_embd); TL("self_attn.k_proj.weight", n_kv * hd, n_embd);
        TL("self_attn.v_proj.weight", n_kv * hd, n_embd); TL("self_attn.o_proj.weight", n_embd, n_embd);
        TL("mlp.gate_proj.weight", n_ff, n_embd); TL("mlp.up_proj.weight", n_ff, n_embd); TL("mlp.down_proj.weight", n_embd, n_ff);
    }
    for (i = 0; i < n_t; i++) llm_builder_add_tensor(b, t[i].name, t[i].nd == 1 ? LLM_DTYPE_F32 : dt, t[i].nd, t[i].shape, &idx);
    llm_builder_header(b, &hdr, &hsize);
    *size = (size_t)llm_builder_file_size(b);
    buf = (uint8_t *)calloc(1, *size);
    memcpy(buf, hdr, hsize);
    for (i = 0; i < n_t; i++) {
        size_t n = (size_t)t[i].shape[0] * (size_t)(t[i].nd == 2 ? t[i].shape[1] : 1), k;
        float *v = rand_vec(n, t[i].nd == 1 ? 0.1f : 1.0f / sqrtf((float)t[i].shape[t[i].nd - 1]) * 1.7f);
        if (t[i].nd == 1) for (k = 0; k < n; k++) v[k] += 1.0f;
        llm_quantize(t[i].nd == 1 ? LLM_DTYPE_F32 : dt, v, t[i].shape[0], t[i].nd == 2 ? t[i].shape[1] : 1,
                     buf + llm_builder_tensor_offset(b, i), 0);
        free(v);
    }
    llm_builder_destroy(b);
    return buf;
}

/* Logits after each of the prompt's tokens, evaluated token by token or all at once. */
static float *run_model(llm_model *m, int n_threads, llm_kernels kernels, int all_at_once, int n_batch, const int32_t *ids, int n) {
    llm_ctx *c;
    llm_ctx_desc d;
    int vocab = llm_model_info_get(m)->n_vocab, i;
    float *out = (float *)malloc((size_t)vocab * n * 4);
    memset(&d, 0, sizeof d);
    d.n_threads = n_threads; d.kernels = kernels; d.n_batch = n_batch; d.n_ctx = 256;
    if (llm_ctx_open(&c, m, &d) != LLM_OK) { CHECK(0, "ctx_open"); return out; }
    if (all_at_once) {
        llm_eval(c, ids, (size_t)n);
        memcpy(out + (size_t)(n - 1) * vocab, llm_logits(c), (size_t)vocab * 4);
    } else {
        for (i = 0; i < n; i++) {
            llm_eval(c, ids + i, 1);
            memcpy(out + (size_t)i * vocab, llm_logits(c), (size_t)vocab * 4);
        }
    }
    llm_ctx_close(c);
    return out;
}

static void test_forward(llm_dtype dt) {
    size_t size;
    void *buf = make_model(dt, 128, 320, 2, 4, 2, 512, &size);
    llm_model *m;
    int32_t ids[40];
    int n = 40, vocab = 512, i;
    float *one, *two, *batch, *ref;
    double worst = 0;
    for (i = 0; i < n; i++) ids[i] = (int32_t)((i * 131 + 7) % vocab);
    if (llm_model_open_memory(&m, buf, size, NULL) != LLM_OK) { CHECK(0, "open %s model", llm_dtype_name(dt)); free(buf); return; }
    one = run_model(m, 1, simd_set, 0, 0, ids, n);
    two = run_model(m, 3, simd_set, 0, 0, ids, n);
    batch = run_model(m, 2, simd_set, 1, 16, ids, n);
    ref = run_model(m, 1, LLM_KERNELS_SCALAR, 0, 0, ids, n);
    CHECK(memcmp(one, two, (size_t)vocab * n * 4) == 0, "%s: logits differ between 1 and 3 threads", llm_dtype_name(dt));
    CHECK(memcmp(one + (size_t)(n - 1) * vocab, batch + (size_t)(n - 1) * vocab, (size_t)vocab * 4) == 0,
          "%s: logits differ between a batched prompt and token by token", llm_dtype_name(dt));
    for (i = 0; i < n * vocab; i++) worst = fabs(one[i] - ref[i]) > worst ? fabs(one[i] - ref[i]) : worst;
    printf("%s: %s logits vs scalar reference kernels: max abs diff %.3g\n", llm_dtype_name(dt), simd->name, worst);
    /* Float paths differ only in the order of additions. With int8 activations a difference
       of 1e-7 upstream can move an activation code by one step, which moves this model's
       logits by 1e-3 to 5e-2; the kernels themselves are compared tightly above. */
    CHECK(worst < (llm__is_quant(dt) ? 0.1 : 2e-3), "%s: SIMD logits differ from the reference kernels by %g", llm_dtype_name(dt), worst);
    free(one); free(two); free(batch); free(ref);
    llm_model_close(m);
    free(buf);
}

/* A q8_0 / q4_0 model whose v_proj holds a block with a NaN scale (a damaged or overflowed
   checkpoint): the NaN reaches the activations of the next layers, which every kernel set
   evaluates without undefined behaviour (UBSan) to NaN logits, and sampling still picks an id. */
static void test_nan_weights(llm_dtype dt) {
    size_t size;
    uint8_t *buf = (uint8_t *)make_model(dt, 64, 128, 2, 4, 2, 64, &size);
    size_t at;
    llm_model *m;
    const llm_tensor *v;
    int32_t ids[5] = { 1, 5, 9, 13, 17 };
    int ref, nan_ref = 0, k;
    if (llm_model_open_memory(&m, buf, size, NULL) != LLM_OK) { CHECK(0, "open %s model", llm_dtype_name(dt)); free(buf); return; }
    v = llm_model_tensor(m, "model.layers.0.self_attn.v_proj.weight");
    /* group 0's scales follow its codes: row 0, block 1 (docs/FORMAT.md, "Quantized tensors");
       k-quants: row 0's d of super-block 0 ("k-quant tensors") */
    at = 2 * (dt == LLM_DTYPE_Q8_0 ? 512 : 256) + 32;
    if (llm__is_kquant(dt)) at = llm__kq_scales_at(dt, llm__kq_subs(v->shape[1], 0)) + (dt == LLM_DTYPE_Q6_K ? 256 : 192);
    buf[(const uint8_t *)v->data - buf + at] = 0x00;
    buf[(const uint8_t *)v->data - buf + at + 1] = 0x7E;
    for (ref = 0; ref < 2; ref++) {
        llm_ctx *c;
        llm_ctx_desc d;
        llm_sampler greedy;
        int32_t id;
        memset(&d, 0, sizeof d);
        memset(&greedy, 0, sizeof greedy);
        d.n_ctx = 16; d.n_threads = 2; d.kernels = ref ? LLM_KERNELS_SCALAR : simd_set;
        if (llm_ctx_open(&c, m, &d) != LLM_OK) { CHECK(0, "ctx_open"); continue; }
        CHECK(llm_ctx_kernels(c) == d.kernels, "the context runs %s, not %s", llm_kernels_name(llm_ctx_kernels(c)), llm_kernels_name(d.kernels));
        CHECK(llm_eval(c, ids, 3) == LLM_OK && llm_eval(c, ids + 3, 2) == LLM_OK, "%s: eval with a NaN weight block", llm_dtype_name(dt));
        for (k = 0; k < 64; k++) nan_ref += llm_logits(c)[k] != llm_logits(c)[k];
        CHECK(llm_sample(c, &greedy, &id) == LLM_OK && id >= 0 && id < 64, "%s: a token is sampled from NaN logits (%d)", llm_dtype_name(dt), id);
        llm_ctx_close(c);
    }
    CHECK(nan_ref == 2 * 64, "%s: a NaN weight gives NaN logits with both kernel sets (%d of %d)", llm_dtype_name(dt), nan_ref, 2 * 64);
    llm_model_close(m);
    free(buf);
}

/* A set this build lacks or the CPU cannot run is refused with a message; AUTO runs the best. */
static void test_forced_sets(void) {
    size_t size;
    void *buf = make_model(LLM_DTYPE_F32, 64, 128, 2, 4, 2, 64, &size);
    llm_model *m;
    int k;
    if (llm_model_open_memory(&m, buf, size, NULL) != LLM_OK) { CHECK(0, "open a model"); free(buf); return; }
    for (k = 0; k < LLM_KERNELS_COUNT; k++) {
        llm_ctx *c = NULL;
        llm_ctx_desc d;
        llm_result r;
        memset(&d, 0, sizeof d);
        d.n_ctx = 16; d.kernels = (llm_kernels)k;
        r = llm_ctx_open(&c, m, &d);
        CHECK(r == (llm_kernels_supported((llm_kernels)k) ? LLM_OK : LLM_ERR_UNSUPPORTED), "kernels %s: ctx_open gives %s",
              llm_kernels_name((llm_kernels)k), llm_result_string(r));
        if (r == LLM_OK)
            CHECK(llm_ctx_kernels(c) == (k ? (llm_kernels)k : llm_kernels_best()), "kernels %s: the context runs %s",
                  llm_kernels_name((llm_kernels)k), llm_kernels_name(llm_ctx_kernels(c)));
        llm_ctx_close(c);
        {
            float w[16 * 32] = { 0 };
            uint8_t q[16 * 34];
            r = llm_quantize(LLM_DTYPE_Q8_0, w, 16, 32, q, LLM_QUANTIZE_KERNELS(k));
            CHECK(r == (llm_kernels_supported((llm_kernels)k) ? LLM_OK : LLM_ERR_UNSUPPORTED), "kernels %s: llm_quantize gives %s",
                  llm_kernels_name((llm_kernels)k), llm_result_string(r));
        }
    }
    CHECK(!llm_kernels_name(LLM_KERNELS_COUNT) && llm_kernels_best() != LLM_KERNELS_AUTO, "llm_kernels_name, llm_kernels_best");
    llm_model_close(m);
    free(buf);
}

/* Every check of one kernel set against the scalar reference. */
static void test_set(llm_kernels k) {
    static const llm_dtype types[] = { LLM_DTYPE_F32, LLM_DTYPE_F16, LLM_DTYPE_BF16, LLM_DTYPE_Q8_0, LLM_DTYPE_Q4_0,
                                       LLM_DTYPE_Q4_K, LLM_DTYPE_Q5_K, LLM_DTYPE_Q6_K };
    size_t i;
    int n_tok;
    simd_set = k;
    simd = llm__kernels_get(k);
    printf("kernels: %s\n", simd->name);
    test_vector_kernels();
    test_gate_kernels();
    test_quantizers();
    test_kquants();
    test_quantizer_set(k);
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        int quant = llm__is_quant(types[i]), kq = llm__is_kquant(types[i]);
        for (n_tok = 1; n_tok <= 19; n_tok += 3) {
            test_matmul(types[i], n_tok, 256, 64, 0, 64);
            test_matmul(types[i], n_tok, kq ? 672 : quant ? 96 : 100, 48, 16, 48); /* k-quants: a last super-block of 5 sub-blocks */
        }
        test_matmul(types[i], 9, quant ? 1024 : 1000, quant ? 32 : 37, 0, quant ? 32 : 37);
        /* 7 groups: one token in fours (AVX-512) or pairs (AVX2), then one by one; 9 tokens
           in pairs of groups (AVX-512), the last group alone */
        if (quant) test_matmul(types[i], 2, 128, 128, 16, 128);
        if (quant) test_matmul(types[i], 9, 128, 128, 16, 128);
        /* more tokens than a block of the AVX-512 16-bit panels (144): three blocks, the last of 13 */
        if (llm__is_w16(types[i])) test_matmul(types[i], 301, 200, 48, 0, 48);
        test_forward(types[i]);
    }
    for (i = 0; i < sizeof types / sizeof types[0]; i++)
        if (llm__is_quant(types[i])) test_matmul_extremes(types[i]);
    test_nonfinite_activations();
    test_nan_weights(LLM_DTYPE_Q8_0);
    test_nan_weights(LLM_DTYPE_Q4_0);
    test_nan_weights(LLM_DTYPE_Q4_K);
    test_nan_weights(LLM_DTYPE_Q6_K);
}

int main(void) {
    char passed[200] = "all kernel checks passed:";
    int k, n = 0;
    test_forced_sets();
    test_bf16_dot();
    for (k = LLM_KERNELS_SCALAR + 1; k < LLM_KERNELS_COUNT; k++)
        if (llm_kernels_supported((llm_kernels)k)) {
            test_set((llm_kernels)k);
            strcat(passed, n++ ? ", " : " ");
            strcat(passed, llm_kernels_name((llm_kernels)k));
        }
    if (!n) { test_set(LLM_KERNELS_SCALAR); strcat(passed, " scalar only"); } /* the reference against itself */
    return check_summary(passed);
}
