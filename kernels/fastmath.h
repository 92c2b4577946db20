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

#endif
