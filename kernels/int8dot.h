/*
 * int8dot.h: helpers shared by the two translation units that compute int8 dot products,
 * matvec.c (every build) and matvec_relaxed.c (the relaxed-SIMD build only). Internal: not ABI.
 */
#ifndef DECODELAB_INT8DOT_H
#define DECODELAB_INT8DOT_H

#include <stdint.h>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

/* one fixed order for the four int32 lanes (integers: any order gives the same sum) */
static inline int32_t dl_hsum_i32(v128_t a) {
    return wasm_i32x4_extract_lane(a, 0) + wasm_i32x4_extract_lane(a, 1) + wasm_i32x4_extract_lane(a, 2) +
           wasm_i32x4_extract_lane(a, 3);
}
#endif

/* sum_{c in [from, cols)} q[c] * xq[c] in int32: the columns the vector loops leave over */
static inline int32_t dl_dot_i8x_tail(const int8_t *q, const int8_t *xq, int32_t from, int32_t cols) {
    int32_t acc = 0;
    for (int32_t c = from; c < cols; c++) acc += (int32_t)q[c] * (int32_t)xq[c];
    return acc;
}

#ifdef DL_RELAXED_DOT
/* matvec_relaxed.c: the rows of dl_matmat_i8x done with the relaxed-SIMD dot product, four at a
 * time; returns how many rows it did (a multiple of 4). Only the relaxed build links it. */
int32_t dl_matmat_i8x_relaxed(const int8_t *q, const float *s, const int8_t *XQ, const float *xs, float *Y,
                              int32_t rows, int32_t cols, int32_t n, const int32_t *qsum);
#endif

#endif
