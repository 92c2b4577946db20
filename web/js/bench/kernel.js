// Kernel micro-benchmark in the browser: SIMD fast and exact paths, the scalar build, and a plain-JS
// matvec written as well as plain JS allows (typed arrays, four rows per pass, independent accumulators,
// x quantized once like the fast path). Each variant repeats until 40 ms have passed.
import { jsMatvecInt8 } from "../jsmatvec.js";

async function instantiate(url) {
  const bytes = await (await fetch(url)).arrayBuffer();
  return (await WebAssembly.instantiate(bytes, {})).instance.exports;
}

function problem(ex, rows, cols) {
  const mark = ex.dl_heap_mark();
  const q = ex.dl_alloc(rows * cols), s = ex.dl_alloc(4 * rows), x = ex.dl_alloc(4 * cols);
  const y = ex.dl_alloc(4 * rows), scratch = ex.dl_alloc(cols + 16);
  const mem = ex.memory.buffer;
  const Q = new Int8Array(mem, q, rows * cols), S = new Float32Array(mem, s, rows), X = new Float32Array(mem, x, cols);
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24);
  for (let i = 0; i < Q.length; i++) Q[i] = (rnd() | 1) << 24 >> 24;
  S.fill(0.01);
  for (let i = 0; i < cols; i++) X[i] = ((rnd() % 200) - 100) / 50;
  return { mark, q, s, x, y, scratch, Q: Q.slice(), S: S.slice(), X: X.slice() };
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
  const ready = Promise.all([instantiate("../kernels/kernel_simd.wasm"), instantiate("../kernels/kernel_scalar.wasm")]);
  return {
    ready: ready.then(() => true),
    async round(shapes) {
      const [simd, scalar] = await ready;
      const out = [];
      for (const [rows, cols] of shapes) {
        const macs = rows * cols;
        const r = { shape: `${rows}x${cols}` };
        const ps = problem(simd, rows, cols), pc = problem(scalar, rows, cols);
        r.simd_fast = timeIt(() => simd.dl_matvec_fast(ps.q, ps.s, ps.x, ps.y, rows, cols, ps.scratch), macs);
        r.simd_exact = timeIt(() => simd.dl_matvec_f32x(ps.q, ps.s, ps.x, ps.y, rows, cols), macs);
        r.scalar_exact = timeIt(() => scalar.dl_matvec_f32x(pc.q, pc.s, pc.x, pc.y, rows, cols), macs);
        r.scalar_fast = timeIt(() => scalar.dl_matvec_fast(pc.q, pc.s, pc.x, pc.y, rows, cols, pc.scratch), macs);
        const y = new Float32Array(rows), xq = new Int8Array(cols);
        r.js = timeIt(() => jsMatvecInt8(ps.Q, ps.S, ps.X, y, rows, cols, xq), macs);
        // the JS loop must compute what the kernel computes (same quantized x, exact integer sums)
        const ky = new Float32Array(simd.memory.buffer, ps.y, rows);
        simd.dl_matvec_fast(ps.q, ps.s, ps.x, ps.y, rows, cols, ps.scratch);
        r.js_max_diff = Math.max(...Array.from(ky.slice(0, 64), (v, i) => Math.abs(v - y[i])));
        simd.dl_heap_release(ps.mark);
        scalar.dl_heap_release(pc.mark);
        out.push(r);
      }
      return out;
    },
  };
}
