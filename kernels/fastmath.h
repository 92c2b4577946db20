/*
 * fastmath.h: e^x and four-lane float helpers for the freestanding kernel (no libm), shared by
 * model.c and logits.c. Not part of the exported ABI (that is decodelab.h).
 *
 * e^x: range reduction x = k ln2 + r, |r| <= ln2/2, a degree-6 Taylor polynomial for e^r
 * (relative error below 4e-8), and 2^k through the exponent bits. Below e^-69 (1e-30) it returns
 * 0: results near float32's smallest normal numbers lead to denormal arithmetic, which x86 runs
 * many times slower (wasm has no flush-to-zero). Arguments are clamped above at 88.
 *
 * dl_f4 is a clang vector of four floats. With -msimd128 its arithmetic becomes f32x4
 * instructions; without it clang splits it into four scalar operations. Either way every lane
 * does the same IEEE operations in the same order, so the relaxed, SIMD, scalar and plain-JS
 * kernels give bit-identical results (tests/test_engine.py checks the logits of every build).
 * That holds only because a*b+c is rounded twice everywhere: wasm's f32x4.relaxed_madd may or may
 * not fuse (it depends on the reader's CPU), and a compiler allowed to contract would emit it in
 * a relaxed-SIMD build. So contraction is off here (the pragma) and in every build (the
 * -ffp-contract=off flag), and only matvec_relaxed.c is compiled with relaxed SIMD at all.
 */
#ifndef DECODELAB_FASTMATH_H
#define DECODELAB_FASTMATH_H

#include <stdint.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

typedef float dl_f4 __attribute__((vector_size(16)));
typedef int32_t dl_i4 __attribute__((vector_size(16)));
/* the same, for loads and stores at any 4-byte-aligned address */
typedef float dl_f4u __attribute__((vector_size(16), aligned(4)));

static inline dl_f4 dl_splat(float v) { return (dl_f4){v, v, v, v}; }

/* lane-wise trunc and floor: clang's builtins (f32x4.trunc / f32x4.floor in wasm), or per lane
 * for gcc (the native benchmark build) */
#if defined(__clang__)
#define dl_trunc4(v) __builtin_elementwise_trunc(v)
#define dl_floor4(v) __builtin_elementwise_floor(v)
#else
static inline dl_f4 dl_trunc4(dl_f4 v) {
    return (dl_f4){__builtin_truncf(v[0]), __builtin_truncf(v[1]), __builtin_truncf(v[2]), __builtin_truncf(v[3])};
}
static inline dl_f4 dl_floor4(dl_f4 v) {
    return (dl_f4){__builtin_floorf(v[0]), __builtin_floorf(v[1]), __builtin_floorf(v[2]), __builtin_floorf(v[3])};
}
#endif

/* lanes of a where mask is all ones, else lanes of b */
static inline dl_f4 dl_select(dl_i4 mask, dl_f4 a, dl_f4 b) {
    return (dl_f4)(((dl_i4)a & mask) | ((dl_i4)b & ~mask));
}

/* four int8 at any address */
typedef int8_t dl_c4 __attribute__((vector_size(4), aligned(1)));

static inline dl_f4 dl_load_i8x4(const int8_t *p) { return __builtin_convertvector(*(const dl_c4 *)p, dl_f4); }

/* whole-number lanes of t in [-lim, lim], stored as int8 */
static inline void dl_store_i8x4(int8_t *p, dl_f4 t) {
    *(dl_c4 *)p = __builtin_convertvector(__builtin_convertvector(t, dl_i4), dl_c4);
}

static inline dl_f4 dl_abs4(dl_f4 v) { return dl_select(v < 0.0f, -v, v); }

static inline dl_f4 dl_max4(dl_f4 a, dl_f4 b) { return dl_select(a > b, a, b); }

static inline float dl_hmax(dl_f4 a) {
    float m = a[0];
    for (int k = 1; k < 4; k++) m = a[k] > m ? a[k] : m;
    return m;
}

static inline dl_f4 dl_clamp4(dl_f4 v, float lim) {
    return dl_select(v > lim, dl_splat(lim), dl_select(v < -lim, dl_splat(-lim), v));
}

/* round half away from zero, lane for lane as dl_round_away in matvec.c (v - trunc(v) is exact) */
static inline dl_f4 dl_round_away4(dl_f4 v) {
    dl_f4 t = dl_trunc4(v), f = v - t;
    return dl_select(f >= 0.5f, t + 1.0f, dl_select(f <= -0.5f, t - 1.0f, t));
}

/* one fixed order for a horizontal sum, used by every build */
static inline float dl_hsum(dl_f4 a) { return (a[0] + a[1]) + (a[2] + a[3]); }

static inline float dl_expf(float x) {
    float xc = x < -69.0f ? -69.0f : (x > 88.0f ? 88.0f : x);
    float kf = __builtin_floorf(xc * 1.44269504f + 0.5f);
    float r = xc - kf * 0.693145752f - kf * 1.42860677e-06f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
    union { float f; int32_t i; } u;
    u.i = ((int32_t)kf + 127) << 23;
    return x < -69.0f ? 0.0f : p * u.f;
}

/* dl_expf on four lanes: lane for lane the same operations, so the same bits. */
static inline dl_f4 dl_expf4(dl_f4 x) {
    dl_f4 xc = dl_select(x < dl_splat(-69.0f), dl_splat(-69.0f), x);
    xc = dl_select(xc > dl_splat(88.0f), dl_splat(88.0f), xc);
    dl_f4 kf = dl_floor4(xc * 1.44269504f + 0.5f);
    dl_f4 r = xc - kf * 0.693145752f - kf * 1.42860677e-06f;
    dl_f4 p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
    dl_f4 two_k = (dl_f4)((__builtin_convertvector(kf, dl_i4) + 127) << 23);
    return dl_select(x < dl_splat(-69.0f), dl_splat(0.0f), p * two_k);
}

/* ---- e^x in double, two lanes ----------------------------------------------------------------
 *
 * The softmax normaliser Z = sum e^(s_i - M) and the entropy's sum are taken in double, each
 * term from a double-precision e^x, because the sampler compares probabilities p_i = e^(s_i - M)
 * / Z computed in double against its cuts: a float32 sum made them sum to 1 only within ~1e-5 (and
 * at |z|/T near 1e7, where s_i - M itself lost its digits in float, the panel once showed 739 %).
 * dl_d2 is a clang vector of two doubles: f64x2 instructions with -msimd128, two scalar
 * operations in the same order without, so every build gives the same bits, as with dl_f4.
 * x = k ln2 + r with k the nearest whole number (found by adding and removing 1.5 * 2^52, which
 * rounds in double arithmetic alone), |r| <= ln2 / 2, a degree-11 Taylor polynomial for e^r
 * (truncation below 7e-15 relative) and 2^k written into the exponent bits. Arguments below -708
 * give 0 (2^k would leave the normal range); above 708 they are clamped. */
typedef double dl_d2 __attribute__((vector_size(16)));
typedef int64_t dl_l2 __attribute__((vector_size(16)));
/* two floats at any 4-byte-aligned address */
typedef float dl_f2u __attribute__((vector_size(8), aligned(4)));

static inline dl_d2 dl_dsplat(double v) { return (dl_d2){v, v}; }

static inline dl_d2 dl_dselect(dl_l2 mask, dl_d2 a, dl_d2 b) {
    return (dl_d2)(((dl_l2)a & mask) | ((dl_l2)b & ~mask));
}

static inline dl_d2 dl_load_f2(const float *p) { return __builtin_convertvector(*(const dl_f2u *)p, dl_d2); }

static inline dl_d2 dl_expd2(dl_d2 x) {
    const double SHIFT = 6755399441055744.0; /* 1.5 * 2^52 */
    const double LN2_HI = 6.93147180369123816490e-01, LN2_LO = 1.90821492927058770002e-10;
    dl_l2 under = x < dl_dsplat(-708.0);
    dl_d2 xc = dl_dselect(under, dl_dsplat(-708.0), x);
    xc = dl_dselect(xc > dl_dsplat(708.0), dl_dsplat(708.0), xc);
    dl_d2 t = xc * 1.44269504088896340736 + SHIFT; /* SHIFT + k */
    dl_d2 kf = t - SHIFT;
    dl_d2 r = (xc - kf * LN2_HI) - kf * LN2_LO;
    dl_d2 p = dl_dsplat(1.0 / 39916800.0); /* 1/11! */
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    dl_l2 k = (dl_l2)t - (dl_l2)dl_dsplat(SHIFT); /* the bit patterns differ by k: same exponent */
    dl_d2 two_k = (dl_d2)((k + 1023) << 52);
    return dl_dselect(under, dl_dsplat(0.0), p * two_k);
}

static inline double dl_expd(double x) { return dl_expd2(dl_dsplat(x))[0]; }

#endif
