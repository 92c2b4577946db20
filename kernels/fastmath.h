/*
 * fastmath.h: e^x for the freestanding kernel (no libm), shared by model.c and logits.c.
 * Not part of the exported ABI (that is decodelab.h).
 *
 * Range reduction x = k ln2 + r, |r| <= ln2/2, a degree-6 Taylor polynomial for e^r (relative
 * error below 4e-8), and 2^k through the exponent bits. Branch-free, so loops over it vectorize.
 * Below e^-69 (1e-30) it returns 0: results near float32's smallest normal numbers lead to
 * denormal arithmetic, which x86 runs many times slower (wasm has no flush-to-zero).
 * Arguments are clamped above at 88 (e^88 is near float32's largest value).
 */
#ifndef DECODELAB_FASTMATH_H
#define DECODELAB_FASTMATH_H

#include <stdint.h>

static inline float dl_expf(float x) {
    float xc = x < -69.0f ? -69.0f : (x > 88.0f ? 88.0f : x);
    float kf = __builtin_floorf(xc * 1.44269504f + 0.5f);
    float r = xc - kf * 0.693145752f - kf * 1.42860677e-06f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
    union { float f; int32_t i; } u;
    u.i = ((int32_t)kf + 127) << 23;
    return x < -69.0f ? 0.0f : p * u.f;
}

#endif
