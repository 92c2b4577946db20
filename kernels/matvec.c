/*
 * matvec.c: the heap and the int8 row-scaled matrix-vector products (ABI in decodelab.h).
 *
 * With __wasm_simd128__ defined (clang/zig -msimd128) the products use 128-bit SIMD and work on
 * four rows per pass, so each loaded slice of x serves four rows. Without it the plain loops
 * below are compiled: the scalar wasm fallback, and the native build for the benchmark.
 */
#include "decodelab.h"
#include "fastmath.h"
#include "int8dot.h"

/* bumped whenever an export's signature or an output block's layout changes (kernel.py checks) */
int32_t DL_EXPORT("dl_abi_version") dl_abi_version(void) { return DL_ABI_VERSION; }

int32_t DL_EXPORT("dl_simd_enabled") dl_simd_enabled(void) {
#if defined(DL_RELAXED_DOT)
    return 2;
#elif defined(__wasm_simd128__)
    return 1;
#else
    return 0;
#endif
}

/* ---- heap: a bump allocator with mark/release ------------------------------------------- */

#if defined(DL_NATIVE)
static unsigned char native_arena[256u << 20] __attribute__((aligned(16)));
static uint32_t heap_top = 16;
static void *heap_base(void) { return native_arena; }
static int heap_reserve(uint32_t end) { return end <= sizeof(native_arena); }
#else
extern unsigned char __heap_base;
static uint32_t heap_top = 0;
static void *heap_base(void) { return 0; }
/* Grow linear memory until it covers byte offset `end`. */
static int heap_reserve(uint32_t end) {
    uint32_t have = (uint32_t)__builtin_wasm_memory_size(0) * 65536u;
    if (end <= have) return 1;
    uint32_t pages = (end - have + 65535u) / 65536u;
    return __builtin_wasm_memory_grow(0, pages) != (uint32_t)-1;
}
#endif

void *DL_EXPORT("dl_alloc") dl_alloc(uint32_t n) {
#if !defined(DL_NATIVE)
    if (heap_top == 0) heap_top = ((uint32_t)&__heap_base + 15u) & ~15u;
#endif
    uint32_t start = (heap_top + 15u) & ~15u;
    uint32_t end = start + ((n + 15u) & ~15u);
    if (end < start || !heap_reserve(end)) return 0;
    unsigned char *p = (unsigned char *)heap_base() + start;
    /* zero-fill: released blocks are reused and must not leak old contents */
    for (uint32_t i = 0; i < end - start; i++) p[i] = 0;
    heap_top = end;
    return p;
}

uint32_t DL_EXPORT("dl_heap_mark") dl_heap_mark(void) {
#if !defined(DL_NATIVE)
    if (heap_top == 0) heap_top = ((uint32_t)&__heap_base + 15u) & ~15u;
#endif
    return heap_top;
}

void DL_EXPORT("dl_heap_release") dl_heap_release(uint32_t mark) {
    if (mark <= heap_top) heap_top = mark;
}

/* Round half away from zero, exactly: v - trunc(v) is exact in float, so no "+0.5" double rounding.
 * py_src/decodelab/quant.py mirrors this bit for bit. */
int32_t DL_EXPORT("dl_round_away") dl_round_away(float v) {
    float t = __builtin_truncf(v), f = v - t;
    if (f >= 0.5f) t += 1.0f;
    else if (f <= -0.5f) t -= 1.0f;
    return (int32_t)t;
}

#ifdef DL_JS_MATVEC
/* The plain-JS build: the products are done by imported JavaScript (web/js/jsmatvec.js), so the
 * page can time a whole generation with the matvec in plain JS and everything else unchanged. */
__attribute__((import_module("env"), import_name("js_matmat_f32x"))) void js_matmat_f32x(
    const int8_t *q, const float *s, const float *X, float *Y, int32_t rows, int32_t cols, int32_t n);
__attribute__((import_module("env"), import_name("js_matmat_i8x"))) void js_matmat_i8x(
    const int8_t *q, const float *s, const int8_t *XQ, const float *xs, float *Y, int32_t rows, int32_t cols, int32_t n);
#endif

/* ---- exact path: x stays float32 ---------------------------------------------------------- */

static float dot_f32x_row(const int8_t *q, const float *x, int32_t from, int32_t cols) {
    float acc = 0.0f;
    for (int32_t c = from; c < cols; c++) acc += (float)q[c] * x[c];
    return acc;
}

/* Y[t][r] = s[r] * sum_c q[r][c] * X[t][c] for n input rows X (stride cols) and outputs Y (stride rows).
 * Rows go four at a time in the outer loop, so each 4-row slice of W is read from memory once
 * and reused for all n inputs while it sits in cache: one pass over the weights per block.
 * The sums run on four lanes (dl_f4): f32x4 code with SIMD, four scalar operations per step
 * without, in the same order, so every build gives the same bits here too. */
void DL_EXPORT("dl_matmat_f32x") dl_matmat_f32x(const int8_t *q, const float *s, const float *X, float *Y,
                                                int32_t rows, int32_t cols, int32_t n) {
#ifdef DL_JS_MATVEC
    js_matmat_f32x(q, s, X, Y, rows, cols, n);
    return;
#endif
    int32_t r = 0;
    const int32_t c16 = cols & ~15;
    for (; r + 4 <= rows; r += 4) {
        const int8_t *qr[4] = {q + (r + 0) * cols, q + (r + 1) * cols, q + (r + 2) * cols, q + (r + 3) * cols};
        for (int32_t t = 0; t < n; t++) {
            const float *x = X + t * cols;
            dl_f4 acc[4] = {dl_splat(0.0f), dl_splat(0.0f), dl_splat(0.0f), dl_splat(0.0f)};
            for (int32_t c = 0; c < c16; c += 16) {
                dl_f4 x0 = *(const dl_f4u *)(x + c), x1 = *(const dl_f4u *)(x + c + 4);
                dl_f4 x2 = *(const dl_f4u *)(x + c + 8), x3 = *(const dl_f4u *)(x + c + 12);
                for (int k = 0; k < 4; k++) {
                    /* 16 products of one row: four lanes, four steps, then into the row's accumulator */
                    dl_f4 a = dl_load_i8x4(qr[k] + c) * x0;
                    a += dl_load_i8x4(qr[k] + c + 4) * x1;
                    a += dl_load_i8x4(qr[k] + c + 8) * x2;
                    a += dl_load_i8x4(qr[k] + c + 12) * x3;
                    acc[k] += a;
                }
            }
            for (int k = 0; k < 4; k++) {
                float sum = ((acc[k][0] + acc[k][1]) + acc[k][2]) + acc[k][3];
                Y[t * rows + r + k] = s[r + k] * (sum + dot_f32x_row(qr[k], x, c16, cols));
            }
        }
    }
    /* the last rows % 4 rows, one at a time, in plain order */
    for (; r < rows; r++)
        for (int32_t t = 0; t < n; t++) Y[t * rows + r] = s[r] * dot_f32x_row(q + r * cols, X + t * cols, 0, cols);
}

void DL_EXPORT("dl_matvec_f32x") dl_matvec_f32x(const int8_t *q, const float *s, const float *x, float *y,
                                                int32_t rows, int32_t cols) {
    dl_matmat_f32x(q, s, x, y, rows, cols, 1);
}

/* ---- fast path: x quantized once to int8 -------------------------------------------------- */

float DL_EXPORT("dl_quantize_x") dl_quantize_x(const float *x, int8_t *xq, int32_t cols) {
    /* Four lanes at a time through dl_f4 (fastmath.h): the same operations per element as the
     * scalar tail below, so every build (and the Python and JS mirrors) gets the same bytes. */
    int32_t c4 = cols & ~3, c = 0;
    dl_f4 amax4 = dl_splat(0.0f);
    for (; c < c4; c += 4) amax4 = dl_max4(dl_abs4(*(const dl_f4u *)(x + c)), amax4);
    float amax = dl_hmax(amax4);
    for (; c < cols; c++) {
        float a = x[c] < 0 ? -x[c] : x[c];
        if (a > amax) amax = a;
    }
    if (amax == 0.0f) {
        for (c = 0; c < cols; c++) xq[c] = 0;
        return 0.0f;
    }
    float inv = (float)DL_ACT_QMAX / amax;
    for (c = 0; c < c4; c += 4)
        dl_store_i8x4(xq + c, dl_clamp4(dl_round_away4(*(const dl_f4u *)(x + c) * inv), (float)DL_ACT_QMAX));
    for (; c < cols; c++) {
        int32_t i = dl_round_away(x[c] * inv);
        xq[c] = (int8_t)(i > DL_ACT_QMAX ? DL_ACT_QMAX : (i < -DL_ACT_QMAX ? -DL_ACT_QMAX : i));
    }
    return amax / (float)DL_ACT_QMAX;
}

/* Y[t][r] = s[r] * xs[t] * sum_c q[r][c] * XQ[t][c]: same loop order as dl_matmat_f32x. */
void DL_EXPORT("dl_row_sums") dl_row_sums(const int8_t *q, int32_t rows, int32_t cols, int32_t *out) {
    for (int32_t r = 0; r < rows; r++) {
        int32_t acc = 0;
        for (int32_t c = 0; c < cols; c++) acc += q[r * cols + c];
        out[r] = acc;
    }
}

#ifdef __wasm_simd128__
/* Rows r0.. of Y = W X in fours with plain SIMD: widen int8 to int16 and multiply-add pairs into
 * int32 lanes (i32x4.dot_i16x8_s), each loaded slice of a vector serving four rows. Each dot adds
 * at most 2*127*127 per lane, so int32 cannot overflow for any width we use. Returns the first
 * row it left (fewer than four remain). */
static int32_t matmat_i8x_rows_simd(const int8_t *q, const float *s, const int8_t *XQ, const float *xs, float *Y,
                                    int32_t r0, int32_t rows, int32_t cols, int32_t n) {
    const int32_t c16 = cols & ~15;
    int32_t r = r0;
    for (; r + 4 <= rows; r += 4) {
        const int8_t *qr[4] = {q + (r + 0) * cols, q + (r + 1) * cols, q + (r + 2) * cols, q + (r + 3) * cols};
        for (int32_t t = 0; t < n; t++) {
            const int8_t *xq = XQ + t * cols;
            v128_t acc[4] = {wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0), wasm_i32x4_splat(0)};
            for (int32_t c = 0; c < c16; c += 16) {
                v128_t xv = wasm_v128_load(xq + c);
                v128_t xl = wasm_i16x8_extend_low_i8x16(xv), xh = wasm_i16x8_extend_high_i8x16(xv);
                for (int k = 0; k < 4; k++) {
                    v128_t w = wasm_v128_load(qr[k] + c);
                    acc[k] = wasm_i32x4_add(acc[k], wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(w), xl));
                    acc[k] = wasm_i32x4_add(acc[k], wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(w), xh));
                }
            }
            for (int k = 0; k < 4; k++)
                Y[t * rows + r + k] = s[r + k] * xs[t] * (float)(dl_hsum_i32(acc[k]) + dl_dot_i8x_tail(qr[k], xq, c16, cols));
        }
    }
    return r;
}
#endif

#if !defined(DL_JS_MATVEC)
/* Rows r0.. one at a time in plain C: the scalar build, and the rows the vector loops leave. */
static void matmat_i8x_rows_scalar(const int8_t *q, const float *s, const int8_t *XQ, const float *xs, float *Y,
                                   int32_t r0, int32_t rows, int32_t cols, int32_t n) {
    for (int32_t r = r0; r < rows; r++)
        for (int32_t t = 0; t < n; t++)
            Y[t * rows + r] = s[r] * xs[t] * (float)dl_dot_i8x_tail(q + r * cols, XQ + t * cols, 0, cols);
}
#endif

/* Y = W X for n quantized vectors. Each build picks its widest path for the rows it can, and the
 * next one takes the rest: relaxed SIMD (its build only; it needs the row sums), plain SIMD,
 * plain C. All give the same integers, so the same bits (tests/test_golden.py). */
void DL_EXPORT("dl_matmat_i8x") dl_matmat_i8x(const int8_t *q, const float *s, const int8_t *XQ, const float *xs,
                                              float *Y, int32_t rows, int32_t cols, int32_t n, const int32_t *qsum) {
#if defined(DL_JS_MATVEC)
    (void)qsum; /* the speed race's build: the products are imported plain JavaScript */
    js_matmat_i8x(q, s, XQ, xs, Y, rows, cols, n);
#else
    int32_t r = 0;
#if defined(DL_RELAXED_DOT)
    if (qsum) r = dl_matmat_i8x_relaxed(q, s, XQ, xs, Y, rows, cols, n, qsum);
#else
    (void)qsum; /* only the relaxed build reads it */
#endif
#if defined(__wasm_simd128__)
    r = matmat_i8x_rows_simd(q, s, XQ, xs, Y, r, rows, cols, n);
#endif
    matmat_i8x_rows_scalar(q, s, XQ, xs, Y, r, rows, cols, n);
#endif
}

void DL_EXPORT("dl_matvec_fast") dl_matvec_fast(const int8_t *q, const float *s, const float *x, float *y,
                                                int32_t rows, int32_t cols, int8_t *scratch, const int32_t *qsum) {
    float xs = dl_quantize_x(x, scratch, cols);
    dl_matmat_i8x(q, s, scratch, &xs, y, rows, cols, 1, qsum);
}

/* Memory-read probe for the roofline (chapter 3): stream `bytes` (a multiple of 64) from p, reps
 * times, with the widest loads this build has, and fold everything into one word so that no read
 * can be optimised away. Four independent accumulators keep the loads, not a dependency chain,
 * the limit. It does no useful work: the page times it to measure bytes per second. */
uint32_t DL_EXPORT("dl_bench_read") dl_bench_read(const uint8_t *p, uint32_t bytes, int32_t reps) {
    uint32_t out = 0;
    for (int32_t k = 0; k < reps; k++) {
#ifdef __wasm_simd128__
        v128_t a0 = wasm_i32x4_splat(k), a1 = a0, a2 = a0, a3 = a0; /* k: no rep can be hoisted */
        for (uint32_t i = 0; i + 64 <= bytes; i += 64) {
            a0 = wasm_v128_xor(a0, wasm_v128_load(p + i));
            a1 = wasm_v128_xor(a1, wasm_v128_load(p + i + 16));
            a2 = wasm_v128_xor(a2, wasm_v128_load(p + i + 32));
            a3 = wasm_v128_xor(a3, wasm_v128_load(p + i + 48));
        }
        v128_t a = wasm_v128_xor(wasm_v128_xor(a0, a1), wasm_v128_xor(a2, a3));
        out ^= wasm_i32x4_extract_lane(a, 0) ^ wasm_i32x4_extract_lane(a, 1) ^ wasm_i32x4_extract_lane(a, 2) ^
               wasm_i32x4_extract_lane(a, 3);
#else
        const uint64_t *w = (const uint64_t *)p;
        uint64_t a0 = (uint64_t)k, a1 = 0, a2 = 0, a3 = 0;
        for (uint32_t i = 0; i + 4 <= bytes / 8; i += 4) { a0 ^= w[i]; a1 ^= w[i + 1]; a2 ^= w[i + 2]; a3 ^= w[i + 3]; }
        uint64_t a = a0 ^ a1 ^ a2 ^ a3;
        out ^= (uint32_t)a ^ (uint32_t)(a >> 32);
#endif
    }
    return out;
}
