// Kernel micro-benchmark in the browser: the fast path of the page's kernel (relaxed-SIMD dot, row
// sums computed once as at model load) and of the plain SIMD build, the SIMD exact path, the scalar
// build, and a plain-JS matvec written as well as plain JS allows (typed arrays, four rows per pass,
// independent accumulators, x rounded once like the fast path). Each variant repeats until 40 ms.
import { jsMatvecInt8 } from "../jsmatvec.js";

async function instantiate(url) {
  const bytes = await (await fetch(url)).arrayBuffer();
  return (await WebAssembly.instantiate(bytes, {})).instance.exports;
}

function problem(ex, rows, cols) {
  const mark = ex.dl_heap_mark();
  const q = ex.dl_alloc(rows * cols), s = ex.dl_alloc(4 * rows), x = ex.dl_alloc(4 * cols);
  const y = ex.dl_alloc(4 * rows), scratch = ex.dl_alloc(cols + 16), qsum = ex.dl_alloc(4 * rows);
  const mem = ex.memory.buffer;
  const Q = new Int8Array(mem, q, rows * cols), S = new Float32Array(mem, s, rows), X = new Float32Array(mem, x, cols);
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);
  for (let i = 0; i < Q.length; i++) Q[i] = (rnd() | 1) << 24 >> 24;
  S.fill(0.01);
  for (let i = 0; i < cols; i++) X[i] = ((rnd() % 200) - 100) / 50;
  ex.dl_row_sums(q, rows, cols, qsum);
  return { mark, q, s, x, y, scratch, qsum, Q: Q.slice(), S: S.slice(), X: X.slice() };
}

function timeIt(fn, macs) {
  let reps = 0;
  const t0 = performance.now();
  let t;
  do {
    for (let i = 0; i < 8; i++) fn();
    reps += 8;
    t = performance.now() - t0;
  } while (t < 40);
  return (macs * reps) / (t / 1000) / 1e9;
}

export function setupKernelBench() {
  const ready = (async () => {
    // the relaxed-SIMD build where this browser validates it (as the page's worker does), else plain SIMD
    const relaxedBytes = await (await fetch("../kernels/kernel_relaxed.wasm")).arrayBuffer();
    const best = WebAssembly.validate(relaxedBytes)
      ? (await WebAssembly.instantiate(relaxedBytes, {})).instance.exports : await instantiate("../kernels/kernel_simd.wasm");
    return Promise.all([best, instantiate("../kernels/kernel_simd.wasm"), instantiate("../kernels/kernel_scalar.wasm")]);
  })();
  return {
    ready: ready.then(() => true),
    async round(shapes) {
      const [best, simd, scalar] = await ready;
      const out = [];
      for (const [rows, cols] of shapes) {
        const macs = rows * cols;
        const r = { shape: `${rows}x${cols}` };
        const pb = problem(best, rows, cols), ps = problem(simd, rows, cols), pc = problem(scalar, rows, cols);
        r.simd_fast = timeIt(() => best.dl_matvec_fast(pb.q, pb.s, pb.x, pb.y, rows, cols, pb.scratch, pb.qsum), macs);
        r.simd128_fast = timeIt(() => simd.dl_matvec_fast(ps.q, ps.s, ps.x, ps.y, rows, cols, ps.scratch, 0), macs);
        r.simd_exact = timeIt(() => simd.dl_matvec_f32x(ps.q, ps.s, ps.x, ps.y, rows, cols), macs);
        r.scalar_exact = timeIt(() => scalar.dl_matvec_f32x(pc.q, pc.s, pc.x, pc.y, rows, cols), macs);
        r.scalar_fast = timeIt(() => scalar.dl_matvec_fast(pc.q, pc.s, pc.x, pc.y, rows, cols, pc.scratch, 0), macs);
        const y = new Float32Array(rows), xq = new Int8Array(cols);
        r.js = timeIt(() => jsMatvecInt8(pb.Q, pb.S, pb.X, y, rows, cols, xq), macs);
        // the JS loop must compute what the kernel computes (same quantized x, exact integer sums)
        const ky = new Float32Array(best.memory.buffer, pb.y, rows);
        best.dl_matvec_fast(pb.q, pb.s, pb.x, pb.y, rows, cols, pb.scratch, pb.qsum);
        r.js_max_diff = Math.max(...Array.from(ky.slice(0, 64), (v, i) => Math.abs(v - y[i])));
        best.dl_heap_release(pb.mark);
        simd.dl_heap_release(ps.mark);
        scalar.dl_heap_release(pc.mark);
        out.push(r);
      }
      return out;
    },
  };
}
