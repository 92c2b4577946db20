/*
 * decodelab.h: the whole C ABI of the decodelab kernel, in one place.
 *
 * The kernel is freestanding C compiled to wasm32 by the pinned PyPI ziglang (build.py; the
 * table of builds is py_src/decodelab/builds.py). One source builds four modules:
 *   kernel_relaxed.wasm   -msimd128, plus matvec_relaxed.c compiled with -mrelaxed-simd: the fast
 *                         path's dot product is i32x4.relaxed_dot_i8x16_i7x16_add_s (what the page
 *                         loads where the browser validates it)
 *   kernel_simd.wasm      -msimd128 (128-bit SIMD paths; the first fallback)
 *   kernel_scalar.wasm    no SIMD (plain C loops: the next fallback, and a baseline)
 *   kernel_jsmatvec.wasm  no SIMD, the two block products imported from plain JavaScript
 *                         (chapter 2's speed race)
 * All of them compute the same bits for every export below: contraction of a*b+c is off, the
 * float loops are written once on four lanes (fastmath.h), and the one relaxed instruction is
 * exact for the operands it gets. build.py refuses a module holding any other relaxed instruction.
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
 * Number formats (the weight formats are DL_WEIGHTS_* below)
 *   A quantized matrix W (rows x cols) is stored as int8 q[rows*cols], row-major, plus one
 *   float32 scale s[rows]: W[r][c] = s[r] * q[r*cols + c]. Vectors are float32.
 *
 * Every exported function has its name exported as written here (export_name attribute).
 */
#ifndef DECODELAB_H
#define DECODELAB_H

#include <stdint.h>

/* Every constant of this ABI (its version, the weight formats DL_WEIGHTS_*, the re-quantization
 * schemes DL_SCHEME_*, the block sizes, the model file's structs) is declared once, in
 * py_src/decodelab/spec.py, and generated into dl_spec.h. A second weight format (say 4-bit values
 * in groups of 32) starts there, then gets its size rule in model.c's find_tensor and its products. */
#include "dl_spec.h"

#if defined(DL_NATIVE)
#define DL_EXPORT(name)
#else
#define DL_EXPORT(name) __attribute__((export_name(name)))
#endif

/* ---- build info and memory -------------------------------------------------------------- */

/* 0 for the scalar build, 1 with wasm SIMD (or a native SIMD target), 2 with wasm SIMD and the
 * relaxed-SIMD dot product (i32x4.relaxed_dot_i8x16_i7x16_add_s) in the fast path. */
int32_t dl_simd_enabled(void);
/* DL_ABI_VERSION (dl_spec.h); bumped whenever a signature here changes or an export is added. */
int32_t dl_abi_version(void);
/* Allocate n bytes (16-byte aligned, zeroed). Returns 0 on failure. */
void *dl_alloc(uint32_t n);
/* Current top of the heap; pass it to dl_heap_release to free everything allocated after. */
uint32_t dl_heap_mark(void);
void dl_heap_release(uint32_t mark);

/* ---- int8 matrix-vector products (matvec.c) ---------------------------------------------- */

/* Exact path: y[r] = s[r] * sum_c q[r,c] * x[c], x kept in float32. */
void dl_matvec_f32x(const int8_t *q, const float *s, const float *x, float *y, int32_t rows, int32_t cols);

/* The fast path rounds activations to 7 bits: integers in [-63, 63]. Then x + 64 fits the
 * unsigned 7-bit operand of the relaxed-SIMD dot product (one x86 pmaddubsw for 16 products),
 * and sum_c q*x = sum_c q*(x + 64) - 64 * sum_c q, with the row sums computed once per matrix.
 * Measured on 60 validation stories (bench generate, activation_paths): 7-bit x costs +0.0008
 * nats/token against float32 x (8-bit x cost +0.0002), and makes a token ~25% faster in Chromium.
 * The bound is DL_ACT_QMAX (dl_spec.h). */

/* Quantize x with one scale: xq[c] = round(x[c] / xs), xs = max|x| / DL_ACT_QMAX.
 * Returns xs (0 for an all-zero x). xq needs cols bytes. */
float dl_quantize_x(const float *x, int8_t *xq, int32_t cols);

/* out[r] = sum_c q[r,c]: what the relaxed-SIMD fast path needs besides the weights. */
void dl_row_sums(const int8_t *q, int32_t rows, int32_t cols, int32_t *out);

/* Memory-read probe (the roofline of chapter 3): read `bytes` (a multiple of 64) from p, reps times,
 * and return a fold of everything read. It computes nothing useful; its time measures bandwidth. */
uint32_t dl_bench_read(const uint8_t *p, uint32_t bytes, int32_t reps);

/* Block forms: n input vectors X[t] (stride cols) -> n outputs Y[t] (stride rows), one pass over W.
 * dl_matmat_i8x takes inputs already quantized (XQ[t] with scale xs[t]):
 * Y[t][r] = s[r] * xs[t] * sum_c q[r,c] * XQ[t][c] (int32 accumulation, exact in integers; the
 * only error is the quantization of x). qsum: the row sums from dl_row_sums, or 0; with them the
 * relaxed build uses its faster dot product. Every build and both routes give the same bits. */
void dl_matmat_f32x(const int8_t *q, const float *s, const float *X, float *Y, int32_t rows, int32_t cols, int32_t n);
void dl_matmat_i8x(const int8_t *q, const float *s, const int8_t *XQ, const float *xs, float *Y, int32_t rows,
                   int32_t cols, int32_t n, const int32_t *qsum);

/* Round half away from zero, exactly (used by every quantizer here; mirrored in quant.py). */
int32_t dl_round_away(float v);

/* Fast path in one call: quantizes x into scratch (cols bytes) then runs dl_matmat_i8x. */
void dl_matvec_fast(const int8_t *q, const float *s, const float *x, float *y, int32_t rows, int32_t cols,
                    int8_t *scratch, const int32_t *qsum);

/* ---- the model (model.c) -------------------------------------------------------------------
 * A Model is an opaque pointer. The bundle bytes (format: py_src/decodelab/bundle.py) must be
 * copied into kernel memory first and stay there: restore and re-quantization read the shipped
 * weights from it. Several models can be loaded at once (main and draft).
 * Functions returning a pointer return 0 on failure; dl_last_error() then points to a
 * NUL-terminated message. */
typedef struct Model Model;
const char *dl_last_error(void);
Model *dl_model_load(const uint8_t *bundle, uint32_t len);
/* out[0..DL_CONFIG_FIELDS-1] = vocab, context, d_model, n_layers, n_heads, d_ff, eot_id */
void dl_model_config(const Model *m, int32_t *out);
void dl_model_reset(Model *m);               /* empty the KV cache */
void dl_model_rewind(Model *m, int32_t k);   /* drop the last k cached tokens */
/* Feed one token at the next position; returns the logits buffer (vocab floats). */
float *dl_model_step(Model *m, int32_t token);
/* Feed n tokens in one pass over the weights (prefill, speculative verification); the logits
 * of the last n_logits positions (at most DL_MAX_BLOCK_LOGITS) land in the buffer, one row of
 * vocab floats each. */
float *dl_model_block(Model *m, const int32_t *tokens, int32_t n, int32_t n_logits);
/* No KV cache: empty the cache and recompute all n tokens; logits of the last. */
float *dl_model_recompute(Model *m, const int32_t *tokens, int32_t n);
float *dl_model_logits(const Model *m);
/* The KV cache (values = 0: keys, 1: values), laid out [layer][head][position][head_dim] with
 * `context` positions per head; positions 0 to the cache's fill level minus 1 hold tokens (the KV figure reads it). */
const float *dl_model_cache(const Model *m, int32_t values);
/* Activation path: 1 = x rounded to integers in [-DL_ACT_QMAX, DL_ACT_QMAX] (fast), 0 = x in float32 (exact). */
void dl_model_set_fast(Model *m, int32_t fast);
/* Counters since load: token positions processed, multiply-accumulates (hosts take differences). */
double dl_model_passes(const Model *m);
double dl_model_macs(const Model *m);
/* Re-quantize every matrix from the shipped int8 weights to `bits` (DL_REQUANT_MIN_BITS..MAX) with
 * one scale per row (DL_SCHEME_ROW), per matrix (DL_SCHEME_MATRIX) or per DL_SCHEME_GROUP_COLS
 * columns (DL_SCHEME_GROUP32); returns the matrix count, 0 on bad arguments. dl_model_restore puts the shipped weights back exactly. */
int32_t dl_model_requantize(Model *m, int32_t bits, int32_t scheme);
int32_t dl_model_restore(Model *m);
/* Where matrix i lives (wte, wpe, then per layer qkv, proj, fc, fc2):
 * out = {q pointer, scale pointer, rows, cols} (DL_MATRIX_INFO_WORDS uint32); returns 0 past the last. */
int32_t dl_model_matrix(const Model *m, int32_t i, uint32_t *out);

/* ---- the sampler's reductions and one-call draw (logits.c) --------------------------------
 * Over n logits z with n_over of them replaced (over_ids[j] -> over_vals[j]; the repetition
 * penalty's values), using scratch space (`scratch`: n floats; top_ids, top_vals: n each):
 *   - with s_i = z_i * inv_t: out[0] = M = max s_i, out[1] = Z = sum exp(s_i - M),
 *     out[2] = A = sum exp(s_i - M) * (s_i - M); so p_i = exp(s_i - M) / Z, H = ln Z - A / Z;
 *     out[3], out[4] = the mean and the standard deviation (population) of the z_i themselves,
 *     for a rule that measures the spread of the logits (top-n-sigma); inv_t = 0 skips all sums; every term and sum in double, within ~1e-14 relative of a plain
 *     double-precision sum (tests/test_kernel.py), so the p_i add up to 1 to about that;
 *   - then, with k = min(top_n, n), the top k tokens by value (ties: lower id first) in descending
 *     order: k int32 ids from byte DL_PREPARE_HEADER_BYTES of `out`, then their k float32 values
 *     (penalised values where overridden). `out` needs DL_PREPARE_HEADER_BYTES + 8 * top_n bytes.
 * Returns k. One output block lets the host fetch everything with a single copy, and the two
 * plain arrays become Python arrays without building a tuple per token. */
int32_t dl_logits_prepare(const float *z, int32_t n, double inv_t, const int32_t *over_ids,
                          const float *over_vals, int32_t n_over, float *scratch, int32_t top_n,
                          int32_t *top_ids, float *top_vals, double *out);

/* One sampling step in one call, for the generation loop: the token sampler.py's _filter and
 * _draw would pick (temperature first, then top-k when top_k > 0, top-p when top_p < 1, min-p
 * when min_p > 0; u in [0, 1) from the page's seeded generator), computed with the same double
 * operations in the same order, or DL_SAMPLE_UNDECIDED when a comparison that decides it falls
 * within the two exponentials' possible difference (then Python decides; logits.c explains).
 * `work` is one block of DL_SAMPLE_WORK_BYTES(n) bytes per logit source, zeroed at first:
 *   bytes [0, DL_SAMPLE_WORK_HEADER): the kernel's own note of how many candidates to fetch;
 *   then DL_SAMPLE_MAX_OVER int32 ids and DL_SAMPLE_MAX_OVER float32 values: the penalty's
 *   n_over replaced logits, written by the host; the rest is the kernel's scratch space. */
int32_t dl_logits_sample(const float *z, int32_t n, uint8_t *work, int32_t n_over, double inv_t, int32_t top_k,
                         double top_p, double min_p, double u);
/* e^x in double as dl_logits_sample computes it (exported so that tests can measure it). */
double dl_exp_f64(double x);

/* The index of the largest of n values, the lowest index on ties (greedy without a penalty). */
int32_t dl_logits_argmax(const float *z, int32_t n);

/* The distribution by rank: `sorted` = all n logits in descending order; with M, Z from
 * dl_logits_prepare at the same inv_t, writes p_r = exp(sorted[r-1] * inv_t - M) / Z and the
 * running mass p_1 + ... + p_r for each of the n_ranks ascending 1-based `ranks`. */
void dl_rank_curve(const float *sorted, int32_t n, double inv_t, double M, double Z, const int32_t *ranks,
                   int32_t n_ranks, double *p_out, double *cum_out);

#endif
