/* refnum.h - reference number formats for the tests, computed in double precision.

   Written from the IEEE 754 definitions, independently of llm.h's bit manipulation:
   decoding is value = mantissa * 2^exponent with ldexp; rounding scales by the target's
   unit in the last place and lets rint() (round to nearest, ties to even) pick the
   neighbour. Used to check llm.h's conversions and to round weights the way the
   converter must. */
#ifndef LLM_TESTS_REFNUM_H
#define LLM_TESTS_REFNUM_H

#include <math.h>
#include <stdint.h>

#if defined(__GNUC__)
#define REF_FN static __attribute__((unused))
#else
#define REF_FN static
#endif

typedef struct ref_format {
    int precision;  /* significand bits, the implicit one included */
    int emin;       /* exponent of the smallest normal number */
    int emax;       /* exponent of the largest finite number */
    int exp_bits;
} ref_format;

static const ref_format REF_F16 = { 11, -14, 15, 5 };
static const ref_format REF_BF16 = { 8, -126, 127, 8 };

REF_FN double ref_max_finite(ref_format f) { return ldexp(2.0 - ldexp(1.0, 1 - f.precision), f.emax); }

/* The value of a 16-bit pattern (1 sign bit, exp_bits, precision - 1 mantissa bits). */
REF_FN double ref_decode(ref_format f, uint16_t bits) {
    int mbits = f.precision - 1, bias = (1 << (f.exp_bits - 1)) - 1;
    int e = (bits >> mbits) & ((1 << f.exp_bits) - 1), m = bits & ((1 << mbits) - 1);
    double v;
    if (e == (1 << f.exp_bits) - 1) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, f.emin - mbits);
    else v = ldexp((double)((1 << mbits) + m), e - bias - mbits);
    return (bits & 0x8000) ? -v : v;
}

/* x rounded to the format, ties to even; beyond the largest finite value (from the midpoint
   above it on) it is infinity. NaN stays NaN. */
REF_FN double ref_round(ref_format f, double x) {
    int e;
    double ulp, r;
    if (x != x || x == 0.0 || isinf(x)) return x;
    frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
    e -= 1;
    if (e < f.emin) e = f.emin;
    ulp = ldexp(1.0, e - (f.precision - 1));
    r = rint(x / ulp) * ulp;
    if (fabs(r) > ref_max_finite(f)) r = x < 0 ? -INFINITY : INFINITY;
    return r;
}

/* The bit pattern of a value the format holds exactly (or +-inf); NaN gives a quiet NaN. */
REF_FN uint16_t ref_encode(ref_format f, double v) {
    int mbits = f.precision - 1, bias = (1 << (f.exp_bits - 1)) - 1, e;
    uint16_t sign = signbit(v) ? 0x8000 : 0, inf = (uint16_t)(((1 << f.exp_bits) - 1) << mbits);
    double a = fabs(v);
    if (v != v) return (uint16_t)(inf | (1 << (mbits - 1)));
    if (isinf(a)) return (uint16_t)(sign | inf);
    if (a < ldexp(1.0, f.emin)) return (uint16_t)(sign | (uint16_t)ldexp(a, mbits - f.emin));
    frexp(a, &e);
    e -= 1;
    return (uint16_t)(sign | (uint16_t)((e + bias) << mbits) | (uint16_t)(ldexp(a, mbits - e) - ldexp(1.0, mbits)));
}

REF_FN int ref_is_nan_bits(ref_format f, uint16_t bits) {
    int mbits = f.precision - 1;
    return ((bits >> mbits) & ((1 << f.exp_bits) - 1)) == (1 << f.exp_bits) - 1 && (bits & ((1 << mbits) - 1)) != 0;
}

#endif
