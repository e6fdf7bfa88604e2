/* The AMX kernels (LLM_KERNELS_AMX) on any CPU with AVX-512: the tile instructions become C
   versions written from Intel's description of them (Intel SDM vol. 2, TILELOADD, TDPBSSD,
   LDTILECFG), which also check that each product's tiles are configured as the instruction
   requires; the vector arithmetic around them runs as it is. For every quantized type and
   token counts around the 16-token tile, the AMX set must give bitwise the AVX-512 set's
   products, and must have used the tiles. The bf16 dot products on the tiles (TDPBF16PS,
   llm_ctx_desc.bf16_dot) must stay within the rounding bound of f32 sums of their exact
   products, as tests/test_kernels.c holds the AVX512-BF16 ones. Where the CPU has AMX,
   tests/test_kernels.c and tests/test_dispatch.sh run the real instructions. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

/* The tile registers, as the instructions see them. */
static struct {
    int configured;
    uint8_t rows[8];
    uint16_t colsb[8];
    uint8_t data[8][16][64];
    long products, faults;
} tiles;

static void tile_fault(const char *what, int t) {
    if (tiles.faults++ < 5) printf("FAIL tile %d: %s\n", t, what);
}

static void tile_config(const void *cfg) {
    const uint8_t *c = (const uint8_t *)cfg;
    int i;
    memset(&tiles.rows, 0, sizeof tiles.rows);
    memset(&tiles.colsb, 0, sizeof tiles.colsb);
    memset(tiles.data, 0, sizeof tiles.data);
    if (c[0] != 1 || c[1] != 0) { tile_fault("palette is not 1 or start_row is not 0", -1); return; }
    for (i = 2; i < 16; i++)
        if (c[i]) tile_fault("reserved configuration bytes are not zero", -1);
    for (i = 0; i < 8; i++) {
        tiles.colsb[i] = (uint16_t)(c[16 + 2 * i] | c[17 + 2 * i] << 8);
        tiles.rows[i] = c[48 + i];
        if (tiles.rows[i] > 16 || tiles.colsb[i] > 64 || (!tiles.rows[i]) != (!tiles.colsb[i])) tile_fault("bad shape", i);
    }
    tiles.configured = 1;
}

static int tile_ready(int t) {
    if (!tiles.configured) { tile_fault("used before LDTILECFG", t); return 0; }
    if (!tiles.rows[t]) { tile_fault("not configured", t); return 0; }
    return 1;
}

/* TILELOADD: each line from p + line * stride; the bytes past colsb are zeroed. */
static void tile_load(int t, const void *p, long stride) {
    int r;
    if (!tile_ready(t)) return;
    memset(tiles.data[t], 0, sizeof tiles.data[t]);
    for (r = 0; r < tiles.rows[t]; r++) memcpy(tiles.data[t][r], (const uint8_t *)p + (long)r * stride, tiles.colsb[t]);
}

static void tile_store(int t, void *p, long stride) {
    int r;
    if (!tile_ready(t)) return;
    for (r = 0; r < tiles.rows[t]; r++) memcpy((uint8_t *)p + (long)r * stride, tiles.data[t][r], tiles.colsb[t]);
}

static void tile_zero(int t) {
    if (tile_ready(t)) memset(tiles.data[t], 0, sizeof tiles.data[t]);
}

/* Whether tiles c, a, b are configured in the shapes a tile product requires (else the
   instruction faults): rows(A) = rows(C), colsb(B) = colsb(C), rows(B) = colsb(A) / 4. */
static int tile_product_ready(const char *name, int c, int a, int b) {
    if (!tile_ready(c) || !tile_ready(a) || !tile_ready(b)) return 0;
    if (tiles.rows[a] != tiles.rows[c] || tiles.colsb[b] != tiles.colsb[c] || tiles.rows[b] * 4 != tiles.colsb[a] || tiles.colsb[a] % 4) {
        tile_fault(name, c);
        return 0;
    }
    return 1;
}

/* TDPBSSD: C[m][n] += sum over k, i of A[m][4k + i] * B[k][4n + i], all signed bytes, for
   m < rows(C), n < colsb(C) / 4, k < colsb(A) / 4. */
static void tile_dpbssd(int c, int a, int b) {
    int m, n, k, i;
    if (!tile_product_ready("TDPBSSD with mismatched shapes", c, a, b)) return;
    for (m = 0; m < tiles.rows[c]; m++)
        for (n = 0; n < tiles.colsb[c] / 4; n++) {
            int32_t s;
            memcpy(&s, &tiles.data[c][m][4 * n], 4);
            for (k = 0; k < tiles.colsb[a] / 4; k++)
                for (i = 0; i < 4; i++) s += (int32_t)(int8_t)tiles.data[a][m][4 * k + i] * (int8_t)tiles.data[b][k][4 * n + i];
            memcpy(&tiles.data[c][m][4 * n], &s, 4);
        }
    tiles.products++;
}

/* TDPBF16PS: C[m][n] (f32) += A[m][2k] B[k][2n], then += A[m][2k + 1] B[k][2n + 1], for each
   k < colsb(A) / 4 in turn, all bf16 (products exact in f32, each sum rounded); the shapes
   as for TDPBSSD. */
static float bf16_value(const uint8_t *p) {
    uint32_t u = (uint32_t)(p[0] | p[1] << 8) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void tile_dpbf16ps(int c, int a, int b) {
    int m, n, k, i;
    if (!tile_product_ready("TDPBF16PS with mismatched shapes", c, a, b)) return;
    for (m = 0; m < tiles.rows[c]; m++)
        for (n = 0; n < tiles.colsb[c] / 4; n++) {
            float s;
            memcpy(&s, &tiles.data[c][m][4 * n], 4);
            for (k = 0; k < tiles.colsb[a] / 4; k++)
                for (i = 0; i < 2; i++) s += bf16_value(&tiles.data[a][m][4 * k + 2 * i]) * bf16_value(&tiles.data[b][k][4 * n + 2 * i]);
            memcpy(&tiles.data[c][m][4 * n], &s, 4);
        }
    tiles.products++;
}

static void tile_release(void) { tiles.configured = 0; }

#define LLM__TILE_BARRIER() ((void)0)
#define LLM__TILE_CONFIG(cfg) tile_config(cfg)
#define LLM__TILE_LOADD(t, p, stride) tile_load(t, p, (long)(stride))
#define LLM__TILE_STORED(t, p, stride) tile_store(t, p, (long)(stride))
#define LLM__TILE_ZERO(t) tile_zero(t)
#define LLM__TILE_DPBSSD(c, a, b) tile_dpbssd(c, a, b)
#define LLM__TILE_DPBF16PS(c, a, b) tile_dpbf16ps(c, a, b)
#define LLM__TILE_RELEASE() tile_release()
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "check.h"
#include "need.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float frand(void) { /* uniform in [-1, 1) */
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float)((rng >> 40) / 8388608.0 - 1.0);
}

#if defined(LLM__AMX)
/* out = W x for n_tok tokens, rows [r0, r1), with kernel set K. */
static void run_mm(const llm__kernels *K, const llm_tensor *w, const float *x, int n_tok, int n_in, int n_out, int r0, int r1, float *out) {
    llm__mm m;
    size_t xs = llm__xq_stride(n_in), i;
    uint8_t *xq = (uint8_t *)malloc(xs * (size_t)n_tok);
    for (i = 0; i < (size_t)n_tok * n_out; i++) out[i] = 0.0f;
    memset(&m, 0, sizeof m);
    m.w = w; m.x = x; m.xq = xq; m.xq_stride = xs; m.out = out; m.n_tok = n_tok; m.n_in = n_in; m.n_out = n_out;
    llm__prepare_x(K, x, n_tok, n_in, 1, 0, xq, xs, NULL);
    K->mm[w->dtype](&m, r0, r1);
    free(xq);
}

static void test_product(llm_dtype dt, int n_tok, int n_in, int n_out, int r0, int r1) {
    const llm__kernels *amx = llm__kernels_get(LLM_KERNELS_AMX), *avx512 = llm__kernels_get(LLM_KERNELS_AVX512);
    float *wf = (float *)malloc((size_t)n_out * n_in * 4), *x = (float *)malloc((size_t)n_tok * n_in * 4);
    float *a = (float *)malloc((size_t)n_tok * n_out * 4), *b = (float *)malloc((size_t)n_tok * n_out * 4);
    void *wq = malloc(llm_dtype_row_bytes(dt, n_in) * (size_t)n_out);
    long before = tiles.products, faults = tiles.faults;
    llm_tensor w;
    size_t i;
    for (i = 0; i < (size_t)n_out * n_in; i++) wf[i] = frand();
    for (i = 0; i < (size_t)n_tok * n_in; i++) x[i] = 2.0f * frand();
    x[3] = 40.0f; /* a block with one large activation */
    memset(&w, 0, sizeof w);
    w.dtype = dt; w.n_dims = 2; w.shape[0] = n_out; w.shape[1] = n_in; w.data = wq;
    CHECK(llm_quantize(dt, wf, n_out, n_in, wq, 0) == LLM_OK, "quantize %s", llm_dtype_name(dt));
    run_mm(avx512, &w, x, n_tok, n_in, n_out, r0, r1, a);
    run_mm(amx, &w, x, n_tok, n_in, n_out, r0, r1, b);
    CHECK(!memcmp(a, b, (size_t)n_tok * n_out * 4), "%s, %d tokens, %d x %d, rows [%d, %d): the AMX products differ from AVX-512's",
          llm_dtype_name(dt), n_tok, n_out, n_in, r0, r1);
    CHECK(tiles.faults == faults, "%s, %d tokens: the tiles were misused", llm_dtype_name(dt), n_tok);
    CHECK((tiles.products > before) == (n_tok >= 16), "%s, %d tokens: the tiles were %sused", llm_dtype_name(dt), n_tok,
          n_tok >= 16 ? "not " : "");
    CHECK(!tiles.configured, "%s: the tiles were not released", llm_dtype_name(dt));
    free(wf); free(x); free(a); free(b); free(wq);
}
#endif

#if defined(LLM__AMX_BF16)
/* bf16 dot products of the AMX set against the double sums of the exact products of the
   weights and the activations rounded to bf16: within n_in 2^-24 / (1 - n_in 2^-24) of the
   sum of their magnitudes. */
static void test_bf16_dot(int n_tok, int n_in, int n_out) {
    const llm__kernels *amx = llm__kernels_get(LLM_KERNELS_AMX);
    float *wf = (float *)malloc((size_t)n_out * n_in * 4), *x = (float *)malloc((size_t)n_tok * n_in * 4);
    float *out = (float *)malloc((size_t)n_tok * n_out * 4), *row = (float *)malloc((size_t)n_in * 4);
    uint32_t *xb = (uint32_t *)malloc((size_t)n_tok * llm__bf16_line(n_in) * 4);
    void *wq = malloc(llm_dtype_row_bytes(LLM_DTYPE_BF16, n_in) * (size_t)n_out);
    double u = 1.0 / 16777216.0, gamma = n_in * u / (1.0 - n_in * u), worst = 0.0;
    long before = tiles.products, faults = tiles.faults;
    llm_tensor w;
    llm__mm m;
    size_t i;
    int t, r, k;
    for (i = 0; i < (size_t)n_out * n_in; i++) wf[i] = frand();
    for (i = 0; i < (size_t)n_tok * n_in; i++) x[i] = 2.0f * frand();
    memset(&w, 0, sizeof w);
    w.dtype = LLM_DTYPE_BF16; w.n_dims = 2; w.shape[0] = n_out; w.shape[1] = n_in; w.data = wq;
    CHECK(llm_quantize(LLM_DTYPE_BF16, wf, n_out, n_in, wq, 0) == LLM_OK, "bf16 weights");
    memset(&m, 0, sizeof m);
    m.w = &w; m.x = x; m.out = out; m.n_tok = n_tok; m.n_in = n_in; m.n_out = n_out; m.xb = xb;
    llm__pack_x_bf16_rows(x, n_tok, n_in, xb);
    amx->mm_bf16_dot(&m, 0, n_out);
    for (t = 0; t < n_tok; t++)
        for (r = 0; r < n_out / LLM__QG * LLM__QG; r++) {
            double ref = 0.0, mag = 0.0;
            llm__get_row(&w, r, row, n_in);
            for (k = 0; k < n_in; k++) {
                double p = (double)row[k] * llm_bf16_to_f32(llm_f32_to_bf16(x[(size_t)t * n_in + k]));
                ref += p;
                mag += fabs(p);
            }
            if (fabs(out[(size_t)t * n_out + r] - ref) / (gamma * mag) > worst) worst = fabs(out[(size_t)t * n_out + r] - ref) / (gamma * mag);
        }
    CHECK(worst <= 1.0, "bf16 dot, %d tokens, %d x %d: %.3g of the rounding bound", n_tok, n_out, n_in, worst);
    CHECK(tiles.faults == faults, "bf16 dot, %d tokens: the tiles were misused", n_tok);
    CHECK((tiles.products > before) == (n_tok >= 16), "bf16 dot, %d tokens: the tiles were %sused", n_tok, n_tok >= 16 ? "not " : "");
    CHECK(!tiles.configured, "bf16 dot: the tiles were not released");
    free(wf); free(x); free(out); free(row); free(xb); free(wq);
}
#endif

int main(void) {
#if !defined(LLM__AMX)
    (void)tile_config; (void)tile_load; (void)tile_store; (void)tile_zero; (void)tile_dpbssd; (void)tile_dpbf16ps; (void)tile_release;
    (void)frand;
    return skip_test("test_amx", "an x86-64 build by GCC 11+ (not for Windows) or Clang 12+ (this build has no AMX kernels)");
#else
    static const llm_dtype types[] = { LLM_DTYPE_Q8_0, LLM_DTYPE_Q4_0, LLM_DTYPE_Q4_K, LLM_DTYPE_Q5_K, LLM_DTYPE_Q6_K };
    static const int toks[] = { 1, 15, 16, 17, 24, 31, 32, 33, 40, 64, 71 };
    size_t i, j;
    if (!llm_kernels_supported(LLM_KERNELS_AVX512)) return skip_cpu("test_amx", "avx512_vnni (the arithmetic around the tiles is AVX-512)");
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        int kq = llm__is_kquant(types[i]);
        for (j = 0; j < sizeof toks / sizeof toks[0]; j++) {
            test_product(types[i], toks[j], 256, 64, 0, 64);
            test_product(types[i], toks[j], kq ? 672 : 96, 48, 16, 48); /* k-quants: a last super-block of 5 sub-blocks */
        }
        test_product(types[i], 20, 1024, 32, 0, 32);
    }
#if defined(LLM__AMX_BF16)
    if (llm__cpu_bf16(0)) { /* the tokens past the last 16 take AVX512-BF16 */
        for (j = 0; j < sizeof toks / sizeof toks[0]; j++) {
            test_bf16_dot(toks[j], 256, 48);
            test_bf16_dot(toks[j], 67, 40); /* a last line of 2 pairs, rows past the groups */
        }
        test_bf16_dot(20, 2100, 32); /* panels of 128 pairs, then 2 lines */
    } else printf("bf16 dot products on the tiles SKIP: the CPU lacks avx512_bf16\n");
#else
    (void)tile_dpbf16ps;
#endif
    printf("%ld tile products emulated%s\n", tiles.products, llm_kernels_supported(LLM_KERNELS_AMX) ? " (this CPU has AMX: test_kernels runs the real ones)" : "");
    return check_summary("the AMX kernels give the AVX-512 kernels' products bitwise, and bf16 dot products within their bound");
#endif
}
