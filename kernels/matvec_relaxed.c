/*
 * matvec_relaxed.c: the one place that uses relaxed SIMD, i32x4.relaxed_dot_i8x16_i7x16_add_s.
 *
 * It is its own translation unit, compiled with -mrelaxed-simd and linked only into
 * kernel_relaxed.wasm. LLVM enables target features per file, so a function attribute would not
 * keep the compiler from using other relaxed instructions (relaxed_madd for a*b+c,
 * relaxed_min/max) in the rest of the kernel, and those may round differently on different CPUs.
 * build.py checks the finished module: this instruction and no other relaxed one.
 *
 * The instruction multiplies signed int8 weights by an operand that must lie in [0, 127]. The
 * fast path's activations are in [-63, 63] (DL_ACT_QMAX), so x + 64 fits, and the 64 * (row sum)
 * that the offset adds is taken off at the end. That is exact in integers, so the result has the
 * same bits as the widening i32x4.dot_i16x8_s path in matvec.c. On x86 it is pmaddubsw + pmaddwd
 * + paddd for 16 products, where widening takes about twice that.
 */
#include "decodelab.h"
#include "int8dot.h"

#if !defined(__wasm_relaxed_simd__) || !defined(DL_RELAXED_DOT)
#error "matvec_relaxed.c is for the relaxed build only (-msimd128 -mrelaxed-simd -DDL_RELAXED_DOT)"
#endif

int32_t dl_matmat_i8x_relaxed(const int8_t *q, const float *s, const int8_t *XQ, const float *xs, float *Y,
                              int32_t rows, int32_t cols, int32_t n, const int32_t *qsum) {
    const int32_t c16 = cols & ~15;
    const v128_t off = wasm_i8x16_splat(64);
    int32_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        const int8_t *qr[4] = {q + (r + 0) * cols, q + (r + 1) * cols, q + (r + 2) * cols, q + (r + 3) * cols};
        int32_t offset[4]; /* 64 * the row's sum over the columns the vector loop covers */
        for (int k = 0; k < 4; k++) {
            int32_t tail_w = 0;
            for (int32_t c = c16; c < cols; c++) tail_w += qr[k][c];
            offset[k] = 64 * (qsum[r + k] - tail_w);
        }
        for (int32_t t = 0; t < n; t++) {
            const int8_t *xq = XQ + t * cols;
            v128_t acc[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
            for (int32_t c = 0; c < c16; c += 16) {
                v128_t xu = wasm_i8x16_add(wasm_v128_load(xq + c), off);
                for (int k = 0; k < 4; k++)
                    acc[k] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(wasm_v128_load(qr[k] + c), xu, acc[k]);
            }
            for (int k = 0; k < 4; k++) {
                int32_t sum = dl_hsum_i32(acc[k]) - offset[k] + dl_dot_i8x_tail(qr[k], xq, c16, cols);
                Y[t * rows + r + k] = s[r + k] * xs[t] * (float)sum;
            }
        }
    }
    return r;
}
