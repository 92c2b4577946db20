/*
 * decodelab.h: the whole C ABI of the decodelab kernel, in one place.
 *
 * The kernel is freestanding C compiled to wasm32. One source builds two modules:
 *   kernel_simd.wasm    with -msimd128 (128-bit SIMD paths)
 *   kernel_scalar.wasm  without (plain C loops: the fallback for browsers without wasm SIMD,
 *                       and the baseline the page compares against)
 * The same files also compile natively with gcc (-DDL_NATIVE) for the benchmark.
 *
 * Memory
 *   The module owns its linear memory and exports it as "memory". All pointers below are
 *   byte offsets into it. Hosts (wasmtime in CPython, JS in the browser) allocate with
 *   dl_alloc and write/read the bytes directly. Allocation is a bump allocator with
 *   mark/release: dl_heap_mark() returns a mark, dl_heap_release(mark) frees everything
 *   allocated after it. Every block is 16-byte aligned and zero-filled. Memory grows on demand;
 *   dl_alloc returns 0 when it cannot grow.
 *
 * Number formats
 *   A quantized matrix W (rows x cols) is stored as int8 q[rows*cols], row-major, plus one
 *   float32 scale s[rows]: W[r][c] = s[r] * q[r*cols + c]. Vectors are float32.
 *
 * Every exported function has its name exported as written here (export_name attribute).
 */
#ifndef DECODELAB_H
#define DECODELAB_H

#include <stdint.h>

#if defined(DL_NATIVE)
#define DL_EXPORT(name)
#else
#define DL_EXPORT(name) __attribute__((export_name(name)))
#endif

/* ---- build info and memory -------------------------------------------------------------- */

/* 1 when built with wasm SIMD (or a native SIMD target), 0 for the scalar build. */
int32_t dl_simd_enabled(void);
/* ABI version; bumped whenever a signature here changes. */
int32_t dl_abi_version(void);
/* Allocate n bytes (16-byte aligned, zeroed). Returns 0 on failure. */
void *dl_alloc(uint32_t n);
/* Current top of the heap; pass it to dl_heap_release to free everything allocated after. */
uint32_t dl_heap_mark(void);
void dl_heap_release(uint32_t mark);

/* ---- int8 matrix-vector products (matvec.c) ---------------------------------------------- */

/* Exact path: y[r] = s[r] * sum_c q[r,c] * x[c], x kept in float32. */
void dl_matvec_f32x(const int8_t *q, const float *s, const float *x, float *y, int32_t rows, int32_t cols);

/* Quantize x to int8 with one scale: xq[c] = round(x[c] / xs), xs = max|x| / 127.
 * Returns xs (0 for an all-zero x). xq needs cols bytes. */
float dl_quantize_x(const float *x, int8_t *xq, int32_t cols);

/* Fast path on an already quantized x: y[r] = s[r] * xs * sum_c q[r,c] * xq[c]
 * (int32 accumulation, exact in integers; the only error is the quantization of x). */
void dl_matvec_i8x(const int8_t *q, const float *s, const int8_t *xq, float xs, float *y, int32_t rows, int32_t cols);

/* Fast path in one call: quantizes x into scratch (cols bytes) then runs dl_matvec_i8x. */
void dl_matvec_fast(const int8_t *q, const float *s, const float *x, float *y, int32_t rows, int32_t cols,
                    int8_t *scratch);

#endif
