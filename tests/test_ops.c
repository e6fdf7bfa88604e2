/* test_ops: the ops and number conversions against textbook values and independent
   double-precision references (tests/refnum.h). */
#define LLM_IMPLEMENTATION
#include "../llm.h"
#include "refnum.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static int within(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* RMSNorm of [1, 2, 3, 4] with unit weights: x / sqrt(mean(x^2) + eps), mean(x^2) = 7.5. */
static void test_rmsnorm(void) {
    const float x[4] = { 1, 2, 3, 4 }, w[4] = { 1, 1, 1, 1 }, book[4] = { 0.365f, 0.730f, 1.095f, 1.460f };
    const float w2[4] = { 2.0f, -1.0f, 0.5f, 0.0f };
    float out[4];
    int i, ok = 1, exact = 1;
    double eps = 1e-5;
    llm__rmsnorm(out, x, w, 4, (float)eps);
    for (i = 0; i < 4; i++) {
        ok &= within(out[i], book[i], 1e-3);
        exact &= within(out[i], x[i] / sqrt(7.5 + eps), 1e-6);
    }
    printf("     rmsnorm([1,2,3,4]) = [%.4f, %.4f, %.4f, %.4f]\n", out[0], out[1], out[2], out[3]);
    check(ok, "rmsnorm of [1,2,3,4] is [0.365, 0.730, 1.095, 1.460] (textbook, 3 decimals)");
    check(exact, "rmsnorm of [1,2,3,4] is x / sqrt(7.5 + eps) within 1e-6");
    llm__rmsnorm(out, x, w2, 4, (float)eps);
    for (i = 0, ok = 1; i < 4; i++) ok &= within(out[i], w2[i] * x[i] / sqrt(7.5 + eps), 1e-6);
    check(ok, "rmsnorm multiplies by the weight after normalising");
    /* eps inside the square root: with mean(x^2) = 0.01 and eps = 0.01 the scale is 1/sqrt(0.02). */
    {
        const float y[4] = { 0.1f, -0.1f, 0.1f, -0.1f };
        llm__rmsnorm(out, y, w, 4, 0.01f);
        check(within(out[0], 0.1 / sqrt(0.02), 1e-6), "rmsnorm adds eps inside the square root");
    }
}

/* llm__rope_rotate_half takes the angles' cosines and sines (computed once per position). */
static void rope_at(float *v, int head_dim, int pos, const float *inv_freq) {
    float cs[64];
    int i, half = head_dim / 2;
    for (i = 0; i < half; i++) {
        cs[i] = cosf((float)pos * inv_freq[i]);
        cs[half + i] = sinf((float)pos * inv_freq[i]);
    }
    llm__rope_rotate_half(v, head_dim, cs);
}

/* RoPE with 45 degrees per position on a 2-element head: q = k = [1, 0]. The dot product
   of q at position m and k at position n is cos((m - n) * 45 degrees). */
static void test_rope(void) {
    const float inv_freq[1] = { (float)(3.14159265358979323846 / 4) };
    static const struct { int m, n; double dot; } cases[] = { { 1, 0, 0.707 }, { 2, 1, 0.707 }, { 2, 0, 0.0 }, { 5, 5, 1.0 } };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float q[2] = { 1, 0 }, k[2] = { 1, 0 };
        double dot;
        rope_at(q, 2, cases[i].m, inv_freq);
        rope_at(k, 2, cases[i].n, inv_freq);
        dot = (double)q[0] * k[0] + (double)q[1] * k[1];
        check(within(dot, cases[i].dot, 1e-3), "rope 45 deg: q(m=%d) . k(n=%d) = %.4f, expected %.3f", cases[i].m, cases[i].n, dot,
              cases[i].dot);
    }
    /* The rotate-half layout pairs element i with i + d/2: [1, 0, 0, 0] at 90 degrees moves to
       element 2, not element 1. */
    {
        float v[4] = { 1, 0, 0, 0 }, f[2] = { (float)(3.14159265358979323846 / 2), 0.0f };
        rope_at(v, 4, 1, f);
        check(within(v[0], 0, 1e-6) && within(v[1], 0, 1e-6) && within(v[2], 1, 1e-6) && within(v[3], 0, 1e-6),
              "rope pairs element i with element i + head_dim/2 (HF rotate_half)");
    }
}

static void tensor_1x1(llm_tensor *t, const float *value) {
    memset(t, 0, sizeof *t);
    t->name = "w";
    t->dtype = LLM_DTYPE_F32;
    t->n_dims = 2;
    t->shape[0] = t->shape[1] = 1;
    t->data = value;
    t->size = 4;
}

/* out = W x for a 1x1 f32 matrix, through the reference kernel. */
static void matmul_1x1(float *out, const llm_tensor *w, const float *x) {
    llm__mm m;
    memset(&m, 0, sizeof m);
    m.w = w; m.x = x; m.out = out; m.n_tok = 1; m.n_in = 1; m.n_out = 1;
    llm__kernels_get(LLM_KERNELS_SCALAR)->mm[LLM_DTYPE_F32](&m, 0, 1);
}

/* The scalar SwiGLU example: W2 (silu(W1 x) * (W3 x)) with x = 1, W1 = 1.5, W3 = 0.8, W2 = 1.2.
   silu(1.5) = 1.5 / (1 + e^-1.5) = 1.2264, times 0.8 is 0.9811, times 1.2 is 1.1773 (the
   textbook rounds the intermediate steps and prints 1.178). */
static void test_swiglu(void) {
    const float x = 1.0f, w1 = 1.5f, w3 = 0.8f, w2 = 1.2f;
    llm_tensor t1, t2, t3;
    float gate, up, out;
    double exact = 1.2 * (1.5 / (1.0 + exp(-1.5))) * 0.8;
    tensor_1x1(&t1, &w1); tensor_1x1(&t2, &w2); tensor_1x1(&t3, &w3);
    matmul_1x1(&gate, &t1, &x);
    matmul_1x1(&up, &t3, &x);
    llm__swiglu_ref(&gate, &up, 1);
    matmul_1x1(&out, &t2, &gate);
    printf("     swiglu(x=1, W1=1.5, W3=0.8, W2=1.2) = %.5f\n", out);
    check(within(out, 1.178, 1e-3), "swiglu scalar example is 1.178 (textbook, within 1e-3)");
    check(within(out, exact, 1e-6), "swiglu scalar example is 1.2 * silu(1.5) * 0.8 within 1e-6");
}

/* llm__add_rows (a prompt's residual and bias adds) on every length from 0 to 40 (the blocks
   of eight and what is left), against the sum of each element, with the elements past n
   untouched. */
static void test_add_rows(void) {
    float dst[48], src[48];
    int n, i, bad = 0;
    for (n = 0; n <= 40; n++) {
        for (i = 0; i < 48; i++) { dst[i] = (float)i * 0.25f; src[i] = 100.0f + (float)i; }
        llm__add_rows(dst, src, n);
        for (i = 0; i < 48; i++) bad += dst[i] != (i < n ? (float)i * 0.25f + (100.0f + (float)i) : (float)i * 0.25f);
    }
    check(bad == 0, "llm__add_rows adds each of n elements and no other, for n = 0..40");
}

static void test_kv_bytes(void) {
    uint64_t mha = llm_kv_cache_bytes(32, 32, 128, 4096, 2), gqa = llm_kv_cache_bytes(32, 8, 128, 4096, 2);
    printf("     LLaMA-2-7B KV cache at 4096 tokens, fp16: %llu bytes (%.2f GB); 8 kv heads: %llu\n",
           (unsigned long long)mha, mha / 1e9, (unsigned long long)gqa);
    check(mha == 2ull * 32 * 32 * 128 * 4096 * 2, "KV cache of LLaMA-2-7B at 4096 tokens is 2 x 32 x 32 x 128 x 4096 x 2 bytes");
    check(mha == 2147483648ull, "... which is ~2.1 GB");
    check(gqa * 4 == mha, "with 8 kv heads it is a quarter");
    check(llm_kv_cache_bytes(80, 8, 128, 131072, 2) == 2ull * 80 * 8 * 128 * 131072 * 2, "no 32-bit overflow at 128k tokens");
}

/* ---- numbers ----------------------------------------------------------------------------- */
static uint64_t rng_state = 0x853c49e6748fea9bULL;
static uint32_t rng32(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t bits_from_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* Checks one f32 -> 16-bit conversion against the reference; returns 1 when it agrees. */
static int conv_ok(ref_format fmt, uint16_t (*conv)(float), float x, long *n_checked) {
    uint16_t got = conv(x);
    (*n_checked)++;
    if (x != x) return ref_is_nan_bits(fmt, got) && (got & 0x8000) == (bits_from_f32(x) >> 16 & 0x8000);
    return got == ref_encode(fmt, ref_round(fmt, (double)x));
}

static void report_conv(ref_format fmt, uint16_t (*conv)(float), float x, int *shown) {
    if ((*shown)++ < 5)
        printf("     %a (0x%08x): got 0x%04x, expected 0x%04x\n", x, (unsigned)bits_from_f32(x), conv(x),
               ref_encode(fmt, ref_round(fmt, (double)x)));
}

/* Every 16-bit pattern decodes to the reference value and converts back to itself; every
   tie between neighbours (the midpoints, exact in f32) and the floats next to them, plus
   2^22 random f32 patterns, round to nearest even. */
static void test_format(const char *name, ref_format fmt, float (*to_f32)(uint16_t), uint16_t (*from_f32)(float)) {
    long n = 0, bad = 0;
    int shown = 0;
    uint32_t h, i;
    for (h = 0; h < 65536; h++) {
        double want = ref_decode(fmt, (uint16_t)h);
        float got = to_f32((uint16_t)h);
        int ok = want != want ? got != got : (double)got == want && !signbit(got) == !signbit(want);
        if (want == want) ok &= from_f32(got) == h;
        else ok &= ref_is_nan_bits(fmt, from_f32(got));
        if (!ok && shown++ < 5) printf("     0x%04x: decodes to %a (expected %a), back to 0x%04x\n", h, got, want, from_f32(got));
        bad += !ok;
    }
    check(bad == 0, "%s: all 65536 patterns decode exactly and round-trip (%ld wrong)", name, bad);

    bad = 0; shown = 0;
    for (h = 0; h < 0x8000; h++) {
        double lo = ref_decode(fmt, (uint16_t)h), hi;
        float mid, probes[5];
        int k;
        if (lo != lo || isinf(lo)) continue;
        hi = h == (uint32_t)ref_encode(fmt, ref_max_finite(fmt)) ? ldexp(1.0, fmt.emax + 1) : ref_decode(fmt, (uint16_t)(h + 1));
        mid = (float)((lo + hi) / 2); /* exact: one more bit than the format has */
        probes[0] = mid; probes[1] = nextafterf(mid, 0.0f); probes[2] = nextafterf(mid, INFINITY);
        probes[3] = (float)lo; probes[4] = nextafterf((float)lo, INFINITY);
        for (k = 0; k < 10; k++) {
            float x = k < 5 ? probes[k] : -probes[k - 5];
            if (!conv_ok(fmt, from_f32, x, &n)) { bad++; report_conv(fmt, from_f32, x, &shown); }
        }
    }
    for (i = 0; i < (1u << 22); i++) {
        float x = f32_from_bits(rng32());
        if (!conv_ok(fmt, from_f32, x, &n)) { bad++; report_conv(fmt, from_f32, x, &shown); }
    }
    {
        const float specials[] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, f32_from_bits(0x7f800001u),
                                   f32_from_bits(0xffc00001u), f32_from_bits(0x00000001u), f32_from_bits(0x80000001u),
                                   f32_from_bits(0x007fffffu), 3.4028235e38f, -3.4028235e38f, 65504.0f, 65519.99f,
                                   65520.0f, -65520.0f, 5.960464477539063e-8f, 2.9802322387695312e-8f,
                                   2.9802326e-8f, 1.0f, 1.0009765625f, 1.00048828125f, 1.00146484375f };
        for (i = 0; i < sizeof specials / sizeof specials[0]; i++)
            if (!conv_ok(fmt, from_f32, specials[i], &n)) { bad++; report_conv(fmt, from_f32, specials[i], &shown); }
    }
    check(bad == 0, "%s: f32 -> %s rounds to nearest even on %ld values (ties, subnormals, overflow, NaN; %ld wrong)", name, name,
          n, bad);
}

/* ---- rope frequencies -------------------------------------------------------------------- */
/* transformers' _compute_default_rope_parameters and _compute_llama3_parameters, in double. */
static double ref_inv_freq(const llm_model_info *m, int i) {
    double f = 1.0 / pow(m->rope_theta, (double)(2 * i) / m->head_dim);
    if (m->rope_scaling == LLM_ROPE_LINEAR) return f / m->rope_factor;
    if (m->rope_scaling == LLM_ROPE_LLAMA3) {
        double old = m->rope_original_max_pos, low_wl = old / m->rope_low_freq_factor, high_wl = old / m->rope_high_freq_factor;
        double wl = 2 * 3.14159265358979323846 / f, smooth;
        if (wl < high_wl) return f;
        if (wl > low_wl) return f / m->rope_factor;
        smooth = (old / wl - m->rope_low_freq_factor) / (m->rope_high_freq_factor - m->rope_low_freq_factor);
        return (1 - smooth) * f / m->rope_factor + smooth * f;
    }
    return f;
}

static void test_inv_freq(const char *what, int head_dim, double theta, llm_rope_scaling type, float factor, float low,
                          float high, int orig) {
    llm_model_info m;
    float got[512];
    double worst = 0;
    int i, bands[3] = { 0, 0, 0 };
    memset(&m, 0, sizeof m);
    m.head_dim = head_dim; m.rope_dim = head_dim; m.rope_theta = theta; m.rope_scaling = type; m.rope_factor = factor;
    m.rope_low_freq_factor = low; m.rope_high_freq_factor = high; m.rope_original_max_pos = orig;
    llm__rope_inv_freq(got, &m);
    for (i = 0; i < head_dim / 2; i++) {
        double want = ref_inv_freq(&m, i), rel = fabs(got[i] - want) / want;
        double wl = 2 * 3.14159265358979323846 * pow(theta, (double)(2 * i) / head_dim);
        if (rel > worst) worst = rel;
        if (type == LLM_ROPE_LLAMA3) bands[wl < orig / high ? 0 : wl > orig / low ? 2 : 1]++;
    }
    /* powf, a division and the blend, each rounded to float: a few units of 2^-24. */
    check(worst <= 1e-6, "rope inverse frequencies, %s: max relative difference %.2g (tolerance 1e-6)", what, worst);
    if (type == LLM_ROPE_LLAMA3) {
        check(bands[0] && bands[1] && bands[2], "   ... frequencies in the kept / blended / divided bands: %d / %d / %d", bands[0],
              bands[1], bands[2]);
    }
}

int main(void) {
    test_rmsnorm();
    test_rope();
    test_swiglu();
    test_add_rows();
    test_kv_bytes();
    test_format("f16", REF_F16, llm_f16_to_f32, llm_f32_to_f16);
    test_format("bf16", REF_BF16, llm_bf16_to_f32, llm_f32_to_bf16);
    test_inv_freq("no scaling (head_dim 128, theta 10000)", 128, 10000.0, LLM_ROPE_NONE, 1, 1, 4, 0);
    test_inv_freq("linear factor 4", 64, 10000.0, LLM_ROPE_LINEAR, 4, 1, 4, 0);
    test_inv_freq("llama3 (Llama 3.2: theta 500000, factor 32, 1/4, 8192)", 64, 500000.0, LLM_ROPE_LLAMA3, 32, 1, 4, 8192);
    test_inv_freq("llama3 (Llama 3.1: head_dim 128, factor 8, 1/4, 8192)", 128, 500000.0, LLM_ROPE_LLAMA3, 8, 1, 4, 8192);
    test_inv_freq("llama3 (test variant: head_dim 16, factor 8, 1/4, 256)", 16, 500000.0, LLM_ROPE_LLAMA3, 8, 1, 4, 256);
    return check_summary("ops and number conversions: all checks passed");
}
