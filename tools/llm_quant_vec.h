/* llm_quant_vec.h - the quantizers' vector kernels: tools/llm_convert.h's q8_0, q4_0 and
   k-quant quantizers run on W rows of a 16-row group at once, one row in each lane.

   Included by llm_convert.h's implementation once per vector width (LLM__CV_W floats: 4, 8 or
   16), inside the target of the instruction set with that width and with LLM__CV_VMAX,
   LLM__CV_VMIN, LLM__CV_VFLOOR, LLM__CV_VSQRT and LLM__CV_VFMA_INT defined as its
   instructions; not a header of its own. Each lane runs the operations of the reference
   function a comment names (llm_convert.h, one row at a time) in that function's order, so
   the bytes are the same whichever kernel set runs: a branch there is a select here, a
   sequential sum a sum of vectors. Written with GCC's and Clang's vector extensions; a
   comparison is cheap only at the instruction set's own width (GCC splits a wider one into
   scalars), hence one inclusion per width. The stores assume a little-endian target. */
#if defined(LLM__CV_W)

#define LLM__CV_CAT2(a, b) a##b
#define LLM__CV_CAT(a, b) LLM__CV_CAT2(a, b)
#define LLM__CV_N(name) LLM__CV_CAT(name, LLM__CV_W)
#define LLM__CV_VF LLM__CV_N(llm__cv_vf)
#define LLM__CV_VI LLM__CV_N(llm__cv_vi)
#define LLM__CV_VU LLM__CV_N(llm__cv_vu)
#define LLM__CV_VH LLM__CV_N(llm__cv_vh)
#define LLM__CV_VHI LLM__CV_N(llm__cv_vhi)
#define LLM__CV_VD LLM__CV_N(llm__cv_vd)
typedef float LLM__CV_VF __attribute__((vector_size(4 * LLM__CV_W)));
typedef int32_t LLM__CV_VI __attribute__((vector_size(4 * LLM__CV_W)));
typedef uint32_t LLM__CV_VU __attribute__((vector_size(4 * LLM__CV_W)));
typedef float LLM__CV_VH __attribute__((vector_size(2 * LLM__CV_W)));    /* half the lanes ... */
typedef int32_t LLM__CV_VHI __attribute__((vector_size(2 * LLM__CV_W))); /* (a mask of them) */
typedef double LLM__CV_VD __attribute__((vector_size(4 * LLM__CV_W)));   /* ... as doubles */
#define LLM__CV_VB LLM__CV_N(llm__cv_vb)
#define LLM__CV_VS LLM__CV_N(llm__cv_vs)
typedef int8_t LLM__CV_VB __attribute__((vector_size(LLM__CV_W)));        /* a byte a lane */
typedef int16_t LLM__CV_VS __attribute__((vector_size(2 * LLM__CV_W)));   /* two bytes a lane */

/* m ? a : b lane by lane (m: a comparison's all-ones or zero lanes). */
#define LLM__CV_SEL(m, a, b) ((LLM__CV_VF)(((m) & (LLM__CV_VI)(a)) | (~(m) & (LLM__CV_VI)(b))))
#define LLM__CV_ABS(v) ((LLM__CV_VF)((LLM__CV_VI)(v) & 0x7fffffff))

LLM__INLINE LLM__CV_VF LLM__CV_N(llm__cv_vset)(float s) {
    LLM__CV_VF v = { 0 };
    return v + s;
}

/* llm_f16_to_f32(llm_f32_to_f16(f)) in every lane: the same branches, as selects (checked
   against those functions for every float). */
LLM__INLINE LLM__CV_VF LLM__CV_N(llm__cv_vf16_round)(LLM__CV_VF f) {
    LLM__CV_VU u = (LLM__CV_VU)f, s = u & 0x80000000u, a = u ^ s, zero = a - a, r;
    LLM__CV_VU n = (a + 0xfffu + ((a >> 13) & 1u)) & 0xffffe000u; /* normal: the mantissa rounded */
    LLM__CV_VF sub = ((LLM__CV_VF)a + 0.5f) - 0.5f;                /* subnormal: to units of 2^-24 */
    LLM__CV_VI is_sub = (LLM__CV_VI)(a < 0x38800000u), is_inf = (LLM__CV_VI)(a >= 0x477ff000u), is_nan = (LLM__CV_VI)(a > 0x7f800000u);
    r = (LLM__CV_VU)LLM__CV_SEL(is_sub, sub, (LLM__CV_VF)n);
    r = (LLM__CV_VU)LLM__CV_SEL(is_inf, (LLM__CV_VF)(zero + 0x7f800000u), (LLM__CV_VF)r);
    r = (LLM__CV_VU)LLM__CV_SEL(is_nan, (LLM__CV_VF)(zero + 0x7fc00000u), (LLM__CV_VF)r);
    return (LLM__CV_VF)(r | s);
}

/* llm_f32_to_f16 of f16 values (as llm__cv_vf16_round gives them). */
LLM__INLINE LLM__CV_VI LLM__CV_N(llm__cv_vf16_bits)(LLM__CV_VF d) {
    LLM__CV_VU u = (LLM__CV_VU)d, s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu, r;
    LLM__CV_VU sub = __builtin_convertvector((LLM__CV_VF)a * 16777216.0f, LLM__CV_VU); /* units of 2^-24 */
    LLM__CV_VI is_sub = (LLM__CV_VI)(a < 0x38800000u), is_inf = (LLM__CV_VI)(a == 0x7f800000u), is_nan = (LLM__CV_VI)(a > 0x7f800000u);
    r = (LLM__CV_VU)LLM__CV_SEL(is_sub, (LLM__CV_VF)sub, (LLM__CV_VF)((a - 0x38000000u) >> 13));
    r = (LLM__CV_VU)LLM__CV_SEL(is_inf, (LLM__CV_VF)(s - s + 0x7c00u), (LLM__CV_VF)r);
    r = (LLM__CV_VU)LLM__CV_SEL(is_nan, (LLM__CV_VF)(s - s + 0x7e00u), (LLM__CV_VF)r);
    return (LLM__CV_VI)(r | s);
}

/* The lanes' low bytes to p (p[l] for lane l), and their low two bytes (little-endian) to p. */
LLM__INLINE void LLM__CV_N(llm__cv_vput8)(uint8_t *p, LLM__CV_VI v) {
    LLM__CV_VB b = __builtin_convertvector(v, LLM__CV_VB);
    memcpy(p, &b, sizeof b);
}

LLM__INLINE void LLM__CV_N(llm__cv_vput16)(uint8_t *p, LLM__CV_VI v) {
    LLM__CV_VS h = __builtin_convertvector(v, LLM__CV_VS);
    memcpy(p, &h, sizeof h);
}

/* Four byte lanes as the four bytes of each lane's 32-bit word, to p (p[4l + i] = b[i][l]):
   the file's layout of 4 values of each of a group's rows. */
LLM__INLINE void LLM__CV_N(llm__cv_vput4x8)(uint8_t *p, LLM__CV_VI b0, LLM__CV_VI b1, LLM__CV_VI b2, LLM__CV_VI b3) {
    LLM__CV_VI w = (b0 & 255) | (b1 & 255) << 8 | (b2 & 255) << 16 | (LLM__CV_VI)((LLM__CV_VU)(b3 & 255) << 24);
    memcpy(p, &w, sizeof w);
}

/* llm__cv_lanes_sum over 8 vectors. */
LLM__INLINE LLM__CV_VF LLM__CV_N(llm__cv_vsum8)(const LLM__CV_VF *v) {
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

/* xt[i][l] = src[l * n + i] for the W rows from src and cnt columns: row l in lane l. */
static void LLM__CV_N(llm__cv_vrows)(const float *src, int64_t n, int cnt, LLM__CV_VF *xt) {
    float *o = (float *)xt;
    int i, l;
    for (i = 0; i < cnt; i++)
        for (l = 0; l < LLM__CV_W; l++) o[i * LLM__CV_W + l] = src[(size_t)l * (size_t)n + (size_t)i];
}

/* The lanes as integers (v holds whole numbers in int32 range). */
LLM__INLINE LLM__CV_VI LLM__CV_N(llm__cv_vint)(LLM__CV_VF v) { return __builtin_convertvector(v, LLM__CV_VI); }

/* ---- q8_0 and q4_0 ---- */
/* llm__cv_round_away. */
LLM__INLINE LLM__CV_VF LLM__CV_N(llm__cv_vround_away)(LLM__CV_VF v, float lim) {
    LLM__CV_VF t, f, one = LLM__CV_N(llm__cv_vset)(1.0f);
    v = LLM__CV_SEL(v == v, v, LLM__CV_N(llm__cv_vset)(0.0f));
    v = LLM__CV_VMIN(LLM__CV_VMAX(v, LLM__CV_N(llm__cv_vset)(-lim)), LLM__CV_N(llm__cv_vset)(lim));
    t = __builtin_convertvector(LLM__CV_N(llm__cv_vint)(v), LLM__CV_VF);
    f = v - t;
    return LLM__CV_SEL(f >= 0.5f, t + one, LLM__CV_SEL(f <= -0.5f, t - one, t));
}

/* llm__cv_quant_block_q8 for one block of the W rows in x (32 vectors): codes to q. */
static LLM__CV_VF LLM__CV_N(llm__cv_vq8)(const LLM__CV_VF *x, LLM__CV_VI *q) {
    LLM__CV_VF amax = LLM__CV_N(llm__cv_vset)(0.0f), d, id;
    int i;
    for (i = 0; i < LLM__QK; i++) amax = LLM__CV_VMAX(LLM__CV_ABS(x[i]), amax);
    d = LLM__CV_N(llm__cv_vf16_round)(amax / 127.0f);
    id = LLM__CV_SEL(d > 0.0f, 1.0f / d, LLM__CV_N(llm__cv_vset)(0.0f));
    for (i = 0; i < LLM__QK; i++) q[i] = LLM__CV_N(llm__cv_vint)(LLM__CV_N(llm__cv_vround_away)(x[i] * id, 127.0f));
    return d;
}

/* llm__cv_q4_code. */
LLM__INLINE LLM__CV_VF LLM__CV_N(llm__cv_vq4_code)(LLM__CV_VF x, LLM__CV_VF id) {
    return LLM__CV_VFLOOR(LLM__CV_VMIN(LLM__CV_VMAX(x * id + 8.5f, LLM__CV_N(llm__cv_vset)(0.0f)), LLM__CV_N(llm__cv_vset)(15.0f)));
}

/* llm__cv_q4_fit without the codes. */
static LLM__CV_VF LLM__CV_N(llm__cv_vq4_fit)(const LLM__CV_VF *x, LLM__CV_VF d, LLM__CV_VF *num, LLM__CV_VF *den) {
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), id = LLM__CV_SEL(d != 0.0f, 1.0f / d, zero), err = zero, sn = zero, sd = zero;
    int i;
    for (i = 0; i < LLM__QK; i++) {
        LLM__CV_VF c = LLM__CV_N(llm__cv_vq4_code)(x[i], id) - 8.0f, e = x[i] - c * d;
        err += e * e;
        sn += x[i] * c;
        sd = LLM__CV_VFMA_INT(c, c, sd);
    }
    *num = sn;
    *den = sd;
    return err;
}

/* llm__cv_q4_ls for candidates 2j + 1 (scale d, m / t) and 2j (m / -t, which is -d exactly):
   x / scale is p and -p for one product p. Scales and keys to d2[0], key[0] (2j) and d2[1],
   key[1] (2j + 1). */
static void LLM__CV_N(llm__cv_vq4_ls2)(const LLM__CV_VF *x, LLM__CV_VF d, LLM__CV_VF *d2, LLM__CV_VF *key) {
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), id = LLM__CV_SEL(d != 0.0f, 1.0f / d, zero), ne = zero, de = zero, no = zero, dno = zero;
    LLM__CV_VF lo = zero, hi = LLM__CV_N(llm__cv_vset)(15.0f), de2, do2;
    int i;
    for (i = 0; i < LLM__QK; i++) {
        LLM__CV_VF p = x[i] * id;
        LLM__CV_VF ce = LLM__CV_VFLOOR(LLM__CV_VMIN(LLM__CV_VMAX(8.5f - p, lo), hi)) - 8.0f;
        LLM__CV_VF co = LLM__CV_VFLOOR(LLM__CV_VMIN(LLM__CV_VMAX(p + 8.5f, lo), hi)) - 8.0f;
        ne += x[i] * ce;
        de = LLM__CV_VFMA_INT(ce, ce, de);
        no += x[i] * co;
        dno = LLM__CV_VFMA_INT(co, co, dno);
    }
    de2 = LLM__CV_N(llm__cv_vf16_round)(LLM__CV_SEL(de > 0.0f, ne / de, -d));
    do2 = LLM__CV_N(llm__cv_vf16_round)(LLM__CV_SEL(dno > 0.0f, no / dno, d));
    d2[0] = de2; key[0] = de2 * (de2 * de - 2.0f * ne);
    d2[1] = do2; key[1] = do2 * (do2 * dno - 2.0f * no);
}

/* llm__cv_q4_try in the lanes of mask `on`. */
LLM__INLINE void LLM__CV_N(llm__cv_vq4_try)(const LLM__CV_VF *x, LLM__CV_VI on, LLM__CV_VF d, LLM__CV_VF *best, LLM__CV_VF *best_err,
                                           LLM__CV_VF *num, LLM__CV_VF *den) {
    LLM__CV_VF n, dn, err = LLM__CV_N(llm__cv_vq4_fit)(x, d, &n, &dn);
    LLM__CV_VI take = on & (err < *best_err);
    *best_err = LLM__CV_SEL(take, err, *best_err);
    *best = LLM__CV_SEL(take, d, *best);
    *num = LLM__CV_SEL(take, n, *num);
    *den = LLM__CV_SEL(take, dn, *den);
}

/* llm__cv_quant_block_q4 (without LLM_QUANTIZE_REFERENCE) for one block of the W rows in x:
   the scale of each row (an f16 value) is returned, the codes go to q. */
static LLM__CV_VF LLM__CV_N(llm__cv_vq4)(const LLM__CV_VF *x, LLM__CV_VI *q) {
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), inf = LLM__CV_N(llm__cv_vset)(HUGE_VALF), amax = zero, m = zero;
    LLM__CV_VF best, best_err, num, den, key[LLM__CV_Q4_KEEP], ds[LLM__CV_Q4_KEEP], id;
    LLM__CV_VI on;
    int i, s, j;
    for (i = 0; i < LLM__QK; i++) {
        LLM__CV_VF a = LLM__CV_ABS(x[i]);
        LLM__CV_VI gt = a > amax;
        amax = LLM__CV_SEL(gt, a, amax);
        m = LLM__CV_SEL(gt, x[i], m);
    }
    best = LLM__CV_N(llm__cv_vf16_round)(m / -8.0f);
    best_err = LLM__CV_N(llm__cv_vq4_fit)(x, best, &num, &den);
    on = amax > 0.0f;
    for (j = 0; j < LLM__CV_Q4_KEEP; j++) { key[j] = inf; ds[j] = best; }
    for (s = 0; s < LLM__CV_Q4_TRIES; s += 2) {
        LLM__CV_VF k[2], d[2];
        int e;
        LLM__CV_N(llm__cv_vq4_ls2)(x, m / llm__cv_q4_div(s + 1), d, k);
        for (e = 0; e < 2; e++) { /* an insertion into the sorted keys (lt[j] implies lt[j + 1]) */
            LLM__CV_VI lt[LLM__CV_Q4_KEEP];
            for (j = 0; j < LLM__CV_Q4_KEEP; j++) lt[j] = k[e] < key[j];
            for (j = LLM__CV_Q4_KEEP - 1; j > 0; j--) {
                key[j] = LLM__CV_SEL(lt[j - 1], key[j - 1], LLM__CV_SEL(lt[j], k[e], key[j]));
                ds[j] = LLM__CV_SEL(lt[j - 1], ds[j - 1], LLM__CV_SEL(lt[j], d[e], ds[j]));
            }
            key[0] = LLM__CV_SEL(lt[0], k[e], key[0]);
            ds[0] = LLM__CV_SEL(lt[0], d[e], ds[0]);
        }
    }
    for (j = 0; j < LLM__CV_Q4_KEEP; j++) LLM__CV_N(llm__cv_vq4_try)(x, on, ds[j], &best, &best_err, &num, &den);
    LLM__CV_N(llm__cv_vq4_try)(x, on & (den > 0.0f), LLM__CV_N(llm__cv_vf16_round)(num / den), &best, &best_err, &num, &den);
    id = LLM__CV_SEL(best != 0.0f, 1.0f / best, zero);
    for (i = 0; i < LLM__QK; i++) q[i] = LLM__CV_N(llm__cv_vint)(LLM__CV_N(llm__cv_vq4_code)(x[i], id));
    return best;
}

/* llm__cv_quantize_group for q8_0 and q4_0. */
static void LLM__CV_N(llm__cv_vgroup)(llm_dtype t, const float *src, int64_t n, uint8_t *dst, int flags) {
    int64_t nb = n / LLM__QK, b;
    size_t qbytes = t == LLM_DTYPE_Q8_0 ? 512 : 256;
    uint8_t *scales = dst + (size_t)nb * qbytes;
    LLM__CV_VF x[LLM__QK], d;
    LLM__CV_VI q[LLM__QK];
    int r0, k;
    if (t == LLM_DTYPE_Q4_0 && (flags & LLM_QUANTIZE_REFERENCE)) { llm__cv_quantize_group(t, src, n, dst, flags); return; }
    for (r0 = 0; r0 < LLM__QG; r0 += LLM__CV_W)
        for (b = 0; b < nb; b++) {
            uint8_t *qb = dst + (size_t)b * qbytes;
            LLM__CV_N(llm__cv_vrows)(src + (size_t)r0 * (size_t)n + (size_t)b * LLM__QK, n, LLM__QK, x);
            d = t == LLM_DTYPE_Q8_0 ? LLM__CV_N(llm__cv_vq8)(x, q) : LLM__CV_N(llm__cv_vq4)(x, q);
            for (k = 0; k < (t == LLM_DTYPE_Q8_0 ? LLM__QK : 16); k += 4) {
                if (t == LLM_DTYPE_Q8_0) LLM__CV_N(llm__cv_vput4x8)(qb + (k / 4) * 64 + 4 * r0, q[k], q[k + 1], q[k + 2], q[k + 3]);
                else LLM__CV_N(llm__cv_vput4x8)(qb + (k / 4) * 64 + 4 * r0, q[k] | q[k + 16] << 4, q[k + 1] | q[k + 17] << 4, q[k + 2] | q[k + 18] << 4, q[k + 3] | q[k + 19] << 4);
            }
            LLM__CV_N(llm__cv_vput16)(scales + (size_t)b * 32 + 2 * (size_t)r0, LLM__CV_N(llm__cv_vf16_bits)(d));
        }
}

/* ---- k-quants ---- */
/* One super-block of W rows (llm__cv_kq_row in lanes): codes, scales and mins as floats,
   d and dmin as f16 values. */
typedef struct LLM__CV_N(llm__cv_vkq) {
    LLM__CV_VF q[LLM__QKK], sc[16], mn[8], d, dmin;
} LLM__CV_N(llm__cv_vkq);

/* llm__cv_code. */
LLM__INLINE LLM__CV_VF LLM__CV_N(llm__cv_vcode)(LLM__CV_VF v, float nmax) {
    v = LLM__CV_VMIN(LLM__CV_VMAX(v, LLM__CV_N(llm__cv_vset)(0.0f)), LLM__CV_N(llm__cv_vset)(nmax));
    return LLM__CV_VFLOOR(v + 0.5f);
}

/* llm__cv_round_clamp, as a float. */
LLM__INLINE LLM__CV_VF LLM__CV_N(llm__cv_vround_clamp)(LLM__CV_VF v, float lo, float hi) {
    return LLM__CV_VFLOOR(LLM__CV_VMIN(LLM__CV_VMAX(v + 0.5f, LLM__CV_N(llm__cv_vset)(lo)), LLM__CV_N(llm__cv_vset)(hi)));
}

/* llm__cv_kq_weights. */
static void LLM__CV_N(llm__cv_vkq_weights)(const LLM__CV_VF *x, int n, LLM__CV_VF *w) {
    LLM__CV_VF s2 = LLM__CV_N(llm__cv_vset)(0.0f), av;
    int i;
    for (i = 0; i < n; i++) s2 += x[i] * x[i];
    av = LLM__CV_VSQRT(s2 / (float)n);
    for (i = 0; i < n; i++) w[i] = av + LLM__CV_ABS(x[i]);
}

/* llm__cv_kq_fit_min: returns a, *m_out gets m. */
static LLM__CV_VF LLM__CV_N(llm__cv_vkq_fit_min)(const LLM__CV_VF *x, const LLM__CV_VF *w, int nmax, LLM__CV_VF *m_out) {
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), mn = x[0], mx = x[0], sw = zero, sx = zero, best_a, best_b;
    LLM__CV_VF best_e = LLM__CV_N(llm__cv_vset)(-1.0f), xm[LLM__QK], L[LLM__QK];
    LLM__CV_VI flat;
    float fmax = (float)nmax;
    int i, k, step;
    for (i = 1; i < LLM__QK; i++) { mn = LLM__CV_VMIN(x[i], mn); mx = LLM__CV_VMAX(x[i], mx); }
    mn = LLM__CV_VMIN(zero, mn); /* mn > 0 ? 0 : mn */
    flat = mx <= mn;
    for (i = 0; i < LLM__QK; i++) { sw += w[i]; sx += w[i] * x[i]; xm[i] = x[i] - mn; }
    best_a = (mx - mn) / fmax;
    best_b = mn;
    for (step = -1; step <= 20; step++) {
        LLM__CV_VF is = (step < 0 ? fmax : fmax - 1.0f + 0.1f * (float)step) / (mx - mn);
        LLM__CV_VF sl[LLM__CV_LANES], sl2[LLM__CV_LANES], sxl[LLM__CV_LANES], ev[LLM__CV_LANES], a, b, D, tl, tl2, txl;
        LLM__CV_VI ok, take;
        for (k = 0; k < LLM__CV_LANES; k++) {
            LLM__CV_VF s1 = zero, s2 = zero, s3 = zero;
            for (i = k; i < LLM__QK; i += LLM__CV_LANES) {
                LLM__CV_VF q = LLM__CV_N(llm__cv_vcode)(is * xm[i], fmax), wq = w[i] * q;
                L[i] = q;
                s1 += wq; s2 += wq * q; s3 += wq * x[i];
            }
            sl[k] = s1; sl2[k] = s2; sxl[k] = s3;
        }
        tl = LLM__CV_N(llm__cv_vsum8)(sl); tl2 = LLM__CV_N(llm__cv_vsum8)(sl2); txl = LLM__CV_N(llm__cv_vsum8)(sxl);
        D = sw * tl2 - tl * tl;
        ok = ~(D <= 0.0f);
        a = (sw * txl - sx * tl) / D;
        b = (tl2 * sx - tl * txl) / D;
        a = LLM__CV_SEL(b > 0.0f, LLM__CV_SEL(tl2 > 0.0f, txl / tl2, zero), a);
        b = LLM__CV_SEL(b > 0.0f, zero, b);
        ok &= ~(a <= 0.0f);
        for (k = 0; k < LLM__CV_LANES; k++) {
            LLM__CV_VF e = zero;
            for (i = k; i < LLM__QK; i += LLM__CV_LANES) { LLM__CV_VF r = a * L[i] + b - x[i]; e += w[i] * r * r; }
            ev[k] = e;
        }
        tl = LLM__CV_N(llm__cv_vsum8)(ev);
        take = ok & ((best_e < 0.0f) | (tl < best_e));
        best_e = LLM__CV_SEL(take, tl, best_e);
        best_a = LLM__CV_SEL(take, a, best_a);
        best_b = LLM__CV_SEL(take, b, best_b);
    }
    *m_out = LLM__CV_SEL(flat, -mn, -best_b);
    return LLM__CV_SEL(flat, zero, best_a);
}

/* llm__cv_q6_fit. */
static LLM__CV_VF LLM__CV_N(llm__cv_vq6_fit)(const LLM__CV_VF *x, const LLM__CV_VF *w) {
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), amax = zero, m = zero, best_a = zero, best_e = LLM__CV_N(llm__cv_vset)(-1.0f), L[16];
    int i, k, s;
    for (i = 0; i < 16; i++) {
        LLM__CV_VF a = LLM__CV_ABS(x[i]);
        LLM__CV_VI gt = a > amax;
        amax = LLM__CV_SEL(gt, a, amax);
        m = LLM__CV_SEL(gt, x[i], m);
    }
    for (s = 0; s < 38; s++) {
        LLM__CV_VF is = (s < 19 ? -(32.0f + 0.1f * (float)(s - 9)) : 31.0f + 0.1f * (float)(s - 28)) / m;
        LLM__CV_VF slx[LLM__CV_LANES], sl2[LLM__CV_LANES], ev[LLM__CV_LANES], a, t2;
        LLM__CV_VI ok, take;
        for (k = 0; k < LLM__CV_LANES; k++) { /* elements k and k + 8 of partial sum k */
            LLM__CV_VF q0 = LLM__CV_N(llm__cv_vcode)(is * x[k] + 32.0f, 63.0f) - 32.0f, w0 = w[k] * q0;
            LLM__CV_VF q1 = LLM__CV_N(llm__cv_vcode)(is * x[k + 8] + 32.0f, 63.0f) - 32.0f, w1 = w[k + 8] * q1;
            L[k] = q0;
            L[k + 8] = q1;
            slx[k] = (zero + w0 * x[k]) + w1 * x[k + 8];
            sl2[k] = (zero + w0 * q0) + w1 * q1;
        }
        t2 = LLM__CV_N(llm__cv_vsum8)(sl2);
        ok = ~(t2 <= 0.0f);
        a = LLM__CV_N(llm__cv_vsum8)(slx) / t2;
        for (k = 0; k < LLM__CV_LANES; k++) {
            LLM__CV_VF r0 = a * L[k] - x[k], r1 = a * L[k + 8] - x[k + 8];
            ev[k] = (zero + w[k] * r0 * r0) + w[k + 8] * r1 * r1;
        }
        t2 = LLM__CV_N(llm__cv_vsum8)(ev);
        take = ok & ((best_e < 0.0f) | (t2 < best_e));
        best_e = LLM__CV_SEL(take, t2, best_e);
        best_a = LLM__CV_SEL(take, a, best_a);
    }
    return LLM__CV_SEL(amax == 0.0f, zero, best_a);
}

/* llm__cv_kq_codes. */
static LLM__CV_VF LLM__CV_N(llm__cv_vkq_codes)(const LLM__CV_VF *x, const LLM__CV_VF *w, LLM__CV_VF ds, LLM__CV_VF dm, int nmax, LLM__CV_VF *q) {
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), id = LLM__CV_SEL(ds > 0.0f, 1.0f / ds, zero), ev[LLM__CV_LANES];
    int i, k;
    for (k = 0; k < LLM__CV_LANES; k++) {
        LLM__CV_VF e = zero;
        for (i = k; i < LLM__QK; i += LLM__CV_LANES) {
            LLM__CV_VF c = LLM__CV_N(llm__cv_vcode)((x[i] + dm) * id, (float)nmax), r = ds * c - dm - x[i];
            q[i] = c;
            e += w[i] * r * r;
        }
        ev[k] = e;
    }
    return LLM__CV_N(llm__cv_vsum8)(ev);
}

/* The five sums of llm__cv_kq_refine's normal equations, in double, for half the lanes. */
typedef struct LLM__CV_N(llm__cv_vls) {
    LLM__CV_VD saa, sab, sbb, sax, sbx;
} LLM__CV_N(llm__cv_vls);

LLM__INLINE LLM__CV_VD LLM__CV_N(llm__cv_vhalf)(LLM__CV_VF v, int h) {
    LLM__CV_VH r;
    memcpy(&r, (const char *)&v + (size_t)h * sizeof r, sizeof r);
    return __builtin_convertvector(r, LLM__CV_VD);
}

/* llm__cv_kq_refine. */
static void LLM__CV_N(llm__cv_vkq_refine)(llm_dtype t, const LLM__CV_VF *x, const LLM__CV_VF *w, int ns, LLM__CV_N(llm__cv_vkq) *r) {
    int nmax = t == LLM_DTYPE_Q4_K ? 15 : 31, it, j, a, b, i, h;
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), q[LLM__QK];
    for (it = 0; it < 2; it++) {
        LLM__CV_VF d = r->d, dmin = r->dmin, e0 = zero, e1 = zero, nd = zero, ndmin = zero;
        LLM__CV_N(llm__cv_vls) ls[2];
        LLM__CV_N(llm__cv_vkq) n = *r;
        LLM__CV_VI ok = zero == zero;
        memset(ls, 0, sizeof ls);
        for (j = 0; j < ns; j++) {
            LLM__CV_VF best = LLM__CV_N(llm__cv_vset)(-1.0f), bs = r->sc[j], bm = r->mn[j];
            for (a = -1; a <= 1; a++)
                for (b = -1; b <= 1; b++) {
                    LLM__CV_VF sc = r->sc[j] + (float)a, mn = r->mn[j] + (float)b, e;
                    LLM__CV_VI take = (sc >= 0.0f) & (sc <= 63.0f) & (mn >= 0.0f) & (mn <= 63.0f);
                    e = LLM__CV_N(llm__cv_vkq_codes)(x + 32 * j, w + 32 * j, d * sc, dmin * mn, nmax, q);
                    take &= (best < 0.0f) | (e < best);
                    best = LLM__CV_SEL(take, e, best);
                    bs = LLM__CV_SEL(take, sc, bs);
                    bm = LLM__CV_SEL(take, mn, bm);
                    for (i = 0; i < LLM__QK; i++) r->q[32 * j + i] = LLM__CV_SEL(take, q[i], r->q[32 * j + i]);
                }
            r->sc[j] = bs; r->mn[j] = bm;
            e0 += best;
            for (h = 0; h < 2; h++) {
                LLM__CV_VD v = LLM__CV_N(llm__cv_vhalf)(bm, h);
                for (i = 0; i < LLM__QK; i++) {
                    LLM__CV_VD u = LLM__CV_N(llm__cv_vhalf)(bs * r->q[32 * j + i], h), wi = LLM__CV_N(llm__cv_vhalf)(w[32 * j + i], h);
                    LLM__CV_VD xi = LLM__CV_N(llm__cv_vhalf)(x[32 * j + i], h), wu = wi * u, wv = wi * v;
                    ls[h].saa += wu * u; ls[h].sab += wu * v; ls[h].sbb += wv * v; ls[h].sax += wu * xi; ls[h].sbx += wv * xi;
                }
            }
        }
        /* x ~ d u - dmin v: the normal equations of d and dmin, a half of the lanes at a time */
        for (h = 0; h < 2; h++) {
            LLM__CV_VD det = ls[h].sab * ls[h].sab - ls[h].saa * ls[h].sbb;
            LLM__CV_VHI solvable = __builtin_convertvector(det != 0.0, LLM__CV_VHI);
            LLM__CV_VH hd = __builtin_convertvector((ls[h].sab * ls[h].sbx - ls[h].sax * ls[h].sbb) / det, LLM__CV_VH);
            LLM__CV_VH hm = __builtin_convertvector((ls[h].saa * ls[h].sbx - ls[h].sab * ls[h].sax) / det, LLM__CV_VH);
            memcpy((char *)&ok + (size_t)h * sizeof solvable, &solvable, sizeof solvable);
            memcpy((char *)&nd + (size_t)h * sizeof hd, &hd, sizeof hd);
            memcpy((char *)&ndmin + (size_t)h * sizeof hm, &hm, sizeof hm);
        }
        nd = LLM__CV_N(llm__cv_vf16_round)(nd);
        ndmin = LLM__CV_N(llm__cv_vf16_round)(ndmin);
        ok &= (nd > 0.0f) & (ndmin >= 0.0f);
        for (j = 0; j < ns; j++) e1 += LLM__CV_N(llm__cv_vkq_codes)(x + 32 * j, w + 32 * j, nd * n.sc[j], ndmin * n.mn[j], nmax, n.q + 32 * j);
        ok &= e1 < e0;
        for (i = 0; i < 32 * ns; i++) r->q[i] = LLM__CV_SEL(ok, n.q[i], r->q[i]);
        for (j = 0; j < ns; j++) { r->sc[j] = LLM__CV_SEL(ok, n.sc[j], r->sc[j]); r->mn[j] = LLM__CV_SEL(ok, n.mn[j], r->mn[j]); }
        r->d = LLM__CV_SEL(ok, nd, r->d);
        r->dmin = LLM__CV_SEL(ok, ndmin, r->dmin);
    }
}

/* llm__cv_kq_quantize_row for the W rows of x (32 ns vectors); w is scratch. */
static void LLM__CV_N(llm__cv_vkq_rows)(llm_dtype t, const LLM__CV_VF *x, int ns, LLM__CV_VF *w, LLM__CV_N(llm__cv_vkq) *r) {
    LLM__CV_VF zero = LLM__CV_N(llm__cv_vset)(0.0f), a[16], mins[8], amax = zero, mmax = zero, d, dmin;
    int j, k, nmax = t == LLM_DTYPE_Q4_K ? 15 : 31;
    memset(r, 0, sizeof *r);
    if (t == LLM_DTYPE_Q6_K) {
        LLM__CV_VF sa = zero;
        for (j = 0; j < 2 * ns; j++) {
            LLM__CV_VF aa;
            LLM__CV_VI gt;
            LLM__CV_N(llm__cv_vkq_weights)(x + 16 * j, 16, w);
            a[j] = LLM__CV_N(llm__cv_vq6_fit)(x + 16 * j, w);
            aa = LLM__CV_ABS(a[j]);
            gt = aa > amax;
            amax = LLM__CV_SEL(gt, aa, amax);
            sa = LLM__CV_SEL(gt, a[j], sa);
        }
        r->d = d = LLM__CV_N(llm__cv_vf16_round)(sa / -128.0f);
        for (j = 0; j < 2 * ns; j++) {
            LLM__CV_VF ds;
            r->sc[j] = LLM__CV_SEL(d != 0.0f, LLM__CV_N(llm__cv_vround_clamp)(a[j] / d, -128.0f, 127.0f), zero);
            ds = d * r->sc[j];
            for (k = 0; k < 16; k++)
                r->q[16 * j + k] = LLM__CV_SEL(ds != 0.0f, LLM__CV_N(llm__cv_vround_clamp)(x[16 * j + k] / ds, -32.0f, 31.0f) + 32.0f,
                                               LLM__CV_N(llm__cv_vset)(32.0f));
        }
        return;
    }
    for (j = 0; j < ns; j++) {
        LLM__CV_N(llm__cv_vkq_weights)(x + 32 * j, LLM__QK, w + 32 * j);
        a[j] = LLM__CV_N(llm__cv_vkq_fit_min)(x + 32 * j, w + 32 * j, nmax, &mins[j]);
        amax = LLM__CV_VMAX(a[j], amax);
        mmax = LLM__CV_VMAX(mins[j], mmax);
    }
    r->d = d = LLM__CV_N(llm__cv_vf16_round)(amax / 63.0f);
    r->dmin = dmin = LLM__CV_N(llm__cv_vf16_round)(mmax / 63.0f);
    for (j = 0; j < ns; j++) {
        LLM__CV_VF ds, dm;
        r->sc[j] = LLM__CV_SEL(d > 0.0f, LLM__CV_N(llm__cv_vround_clamp)(a[j] / d, 0.0f, 63.0f), zero);
        r->mn[j] = LLM__CV_SEL(dmin > 0.0f, LLM__CV_N(llm__cv_vround_clamp)(mins[j] / dmin, 0.0f, 63.0f), zero);
        ds = d * r->sc[j];
        dm = dmin * r->mn[j];
        for (k = 0; k < LLM__QK; k++)
            r->q[32 * j + k] = LLM__CV_SEL(ds > 0.0f, LLM__CV_N(llm__cv_vround_clamp)((x[32 * j + k] + dm) / ds, 0.0f, (float)nmax), zero);
    }
    LLM__CV_N(llm__cv_vkq_refine)(t, x, w, ns, r);
}

/* llm__cv_kq_put_row for the W rows from r0. */
static void LLM__CV_N(llm__cv_vkq_put)(llm_dtype t, uint8_t *SB, int ns, int r0, const LLM__CV_N(llm__cv_vkq) *v) {
    uint8_t *H = SB + llm__kq_hi_at(ns), *S = SB + llm__kq_scales_at(t, ns);
    LLM__CV_VI q[LLM__QK], b[4], hb[4], z = LLM__CV_N(llm__cv_vint)(LLM__CV_N(llm__cv_vset)(0.0f));
    int j, k, i, jj;
    for (j = 0; j < ns; j++) {
        for (k = 0; k < LLM__QK; k++) q[k] = LLM__CV_N(llm__cv_vint)(v->q[32 * j + k]);
        for (k = 0; k < 16; k += 4) {
            for (i = 0; i < 4; i++) b[i] = (q[k + i] & 15) | (q[16 + k + i] & 15) << 4;
            LLM__CV_N(llm__cv_vput4x8)(SB + 256 * j + (k / 4) * 64 + 4 * r0, b[0], b[1], b[2], b[3]);
        }
        if (t == LLM_DTYPE_Q5_K) {
            for (i = 0; i < 4; i++) {
                b[i] = z;
                for (jj = 0; jj < 4; jj++) b[i] |= (q[4 * jj + i] >> 4 & 1) << jj | (q[16 + 4 * jj + i] >> 4 & 1) << (4 + jj);
            }
            LLM__CV_N(llm__cv_vput4x8)(H + 64 * j + 4 * r0, b[0], b[1], b[2], b[3]);
        }
        if (t == LLM_DTYPE_Q6_K) {
            for (i = 0; i < 4; i++) {
                b[i] = hb[i] = z;
                for (jj = 0; jj < 4; jj++) { b[i] |= (q[4 * jj + i] >> 4 & 3) << (2 * jj); hb[i] |= (q[16 + 4 * jj + i] >> 4 & 3) << (2 * jj); }
            }
            LLM__CV_N(llm__cv_vput4x8)(H + 128 * j + 4 * r0, b[0], b[1], b[2], b[3]);
            LLM__CV_N(llm__cv_vput4x8)(H + 128 * j + 64 + 4 * r0, hb[0], hb[1], hb[2], hb[3]);
        }
    }
    if (t == LLM_DTYPE_Q6_K) {
        for (k = 0; k < 16; k++) LLM__CV_N(llm__cv_vput8)(S + 16 * k + r0, LLM__CV_N(llm__cv_vint)(v->sc[k]));
        LLM__CV_N(llm__cv_vput16)(S + 256 + 2 * r0, LLM__CV_N(llm__cv_vf16_bits)(v->d));
        return;
    }
    for (j = 0; j < 8; j++) {
        q[j] = LLM__CV_N(llm__cv_vint)(v->sc[j]);
        q[8 + j] = LLM__CV_N(llm__cv_vint)(v->mn[j]);
        LLM__CV_N(llm__cv_vput8)(S + 16 * j + r0, (q[j] & 15) | (q[8 + j] & 15) << 4);
    }
    for (i = 0; i < 4; i++)
        LLM__CV_N(llm__cv_vput8)(S + 128 + 16 * i + r0, (q[2 * i] >> 4 | (q[8 + 2 * i] >> 4) << 2) | (q[2 * i + 1] >> 4 | (q[8 + 2 * i + 1] >> 4) << 2) << 4);
    LLM__CV_N(llm__cv_vput16)(S + 192 + 2 * r0, LLM__CV_N(llm__cv_vf16_bits)(v->d));
    LLM__CV_N(llm__cv_vput16)(S + 224 + 2 * r0, LLM__CV_N(llm__cv_vf16_bits)(v->dmin));
}

/* llm__cv_quantize_kgroup. */
static void LLM__CV_N(llm__cv_vkgroup)(llm_dtype t, const float *src, int64_t n, uint8_t *dst) {
    size_t sbytes = LLM__QG * llm__kq_block_bytes(t, 8);
    LLM__CV_VF x[LLM__QKK], w[LLM__QKK];
    LLM__CV_N(llm__cv_vkq) v;
    int64_t s;
    int r0, ns;
    for (r0 = 0; r0 < LLM__QG; r0 += LLM__CV_W)
        for (s = 0; s * LLM__QKK < n; s++) {
            ns = llm__kq_subs(n, s);
            LLM__CV_N(llm__cv_vrows)(src + (size_t)r0 * (size_t)n + (size_t)s * LLM__QKK, n, 32 * ns, x);
            LLM__CV_N(llm__cv_vkq_rows)(t, x, ns, w, &v);
            LLM__CV_N(llm__cv_vkq_put)(t, dst + (size_t)s * sbytes, ns, r0, &v);
        }
}

/* ---- f16 and bf16 ---- */
/* llm_f32_to_bf16. */
LLM__INLINE LLM__CV_VI LLM__CV_N(llm__cv_vbf16_bits)(LLM__CV_VF f) {
    LLM__CV_VU u = (LLM__CV_VU)f, r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    LLM__CV_VI nan = (LLM__CV_VI)((u & 0x7fffffffu) > 0x7f800000u);
    return (LLM__CV_VI)LLM__CV_SEL(nan, (LLM__CV_VF)((u >> 16) | 0x40u), (LLM__CV_VF)r);
}

/* llm__cv_w16_group, 64 columns at a time. */
static void LLM__CV_N(llm__cv_vw16_group)(llm_dtype t, const float *src, int64_t n, uint8_t *dst) {
    LLM__CV_VF x[64];
    int64_t c0;
    int r0, i, cnt;
    for (r0 = 0; r0 < LLM__QG; r0 += LLM__CV_W)
        for (c0 = 0; c0 < n; c0 += 64) {
            cnt = n - c0 < 64 ? (int)(n - c0) : 64;
            LLM__CV_N(llm__cv_vrows)(src + (size_t)r0 * (size_t)n + (size_t)c0, n, cnt, x);
            for (i = 0; i < cnt; i++)
                LLM__CV_N(llm__cv_vput16)(dst + 2 * ((size_t)(c0 + i) * LLM__QG + (size_t)r0),
                                          t == LLM_DTYPE_F16 ? LLM__CV_N(llm__cv_vf16_bits)(LLM__CV_N(llm__cv_vf16_round)(x[i]))
                                                             : LLM__CV_N(llm__cv_vbf16_bits)(x[i]));
        }
}

/* llm__cv_quantize_group_ref's work on this width. */
static void LLM__CV_N(llm__cv_quantize_group)(llm_dtype t, const float *src, int64_t n, uint8_t *dst, int flags) {
    if (t == LLM_DTYPE_F16 || t == LLM_DTYPE_BF16) LLM__CV_N(llm__cv_vw16_group)(t, src, n, dst);
    else if (llm__is_kquant(t)) LLM__CV_N(llm__cv_vkgroup)(t, src, n, dst);
    else LLM__CV_N(llm__cv_vgroup)(t, src, n, dst, flags);
}

#undef LLM__CV_ABS
#undef LLM__CV_VS
#undef LLM__CV_VB
#undef LLM__CV_SEL
#undef LLM__CV_VD
#undef LLM__CV_VHI
#undef LLM__CV_VH
#undef LLM__CV_VU
#undef LLM__CV_VI
#undef LLM__CV_VF
#undef LLM__CV_N
#undef LLM__CV_CAT
#undef LLM__CV_CAT2
/* and the includer's: the next width defines its own */
#undef LLM__CV_VSQRT
#undef LLM__CV_VFLOOR
#undef LLM__CV_VMIN
#undef LLM__CV_VMAX
#undef LLM__CV_VFMA_INT
#undef LLM__CV_W
#endif /* LLM__CV_W */
