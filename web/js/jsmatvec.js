// The plain-JS int8 matvec, used as the page's "no WebAssembly" baseline (chapter 2) and in the
// kernel benchmark. Written as well as plain JS allows: typed arrays, x rounded to 7-bit integers once
// (exactly like the kernel's fast path), four rows per pass so each x[c] load serves four rows,
// and independent int32 accumulators (`| 0` keeps V8 on integer adds, measured ~10-20% faster than
// summing in doubles; |sum| <= cols * 127 * 127 stays far inside int32, so it is exact).
import { SPEC } from "./generated/spec.js";

const ACT_QMAX = SPEC.act_qmax; // the kernel's DL_ACT_QMAX (decodelab/spec.py): activations are rounded to [-63, 63]

// Round half away from zero, as the kernel's dl_round_away (kernels/matvec.c): v - trunc(v) is
// exact, so there is no "+0.5" double rounding. The one JS copy of the rule (tests/test_rounding.py).
export function roundHalfAway(v) {
  const t = Math.trunc(v), f = v - t;
  return f >= 0.5 ? t + 1 : f <= -0.5 ? t - 1 : t;
}

export function quantizeX(x, xq) {
  let amax = 0;
  for (let c = 0; c < x.length; c++) { const a = Math.abs(x[c]); if (a > amax) amax = a; }
  if (amax === 0) { xq.fill(0); return 0; }
  const inv = Math.fround(ACT_QMAX / amax);
  for (let c = 0; c < x.length; c++) {
    const r = roundHalfAway(Math.fround(x[c] * inv));
    xq[c] = r > ACT_QMAX ? ACT_QMAX : r < -ACT_QMAX ? -ACT_QMAX : r;
  }
  return Math.fround(amax / ACT_QMAX);
}

export function jsMatvecInt8(q, s, x, y, rows, cols, xq) {
  const xs = quantizeX(x, xq);
  let r = 0;
  for (; r + 4 <= rows; r += 4) {
    const o0 = r * cols, o1 = o0 + cols, o2 = o1 + cols, o3 = o2 + cols;
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (let c = 0; c < cols; c++) {
      const v = xq[c];
      a0 = (a0 + q[o0 + c] * v) | 0; a1 = (a1 + q[o1 + c] * v) | 0;
      a2 = (a2 + q[o2 + c] * v) | 0; a3 = (a3 + q[o3 + c] * v) | 0;
    }
    y[r] = Math.fround(s[r] * xs) * a0; y[r + 1] = Math.fround(s[r + 1] * xs) * a1;
    y[r + 2] = Math.fround(s[r + 2] * xs) * a2; y[r + 3] = Math.fround(s[r + 3] * xs) * a3;
  }
  for (; r < rows; r++) {
    const o = r * cols;
    let a = 0;
    for (let c = 0; c < cols; c++) a = (a + q[o + c] * xq[c]) | 0;
    y[r] = Math.fround(s[r] * xs) * a;
  }
}

// Imports for kernel_jsmatvec.wasm: the kernel's two block products, done here in plain JS over the
// module's memory (views are made per call because growing memory detaches the old buffer).
export function jsMatmatImports(getMemory) {
  return {
    js_matmat_i8x(q, s, XQ, xs, Y, rows, cols, n) {
      const buf = getMemory().buffer;
      const Q = new Int8Array(buf, q, rows * cols), S = new Float32Array(buf, s, rows);
      const X = new Int8Array(buf, XQ, n * cols), XS = new Float32Array(buf, xs, n), Yv = new Float32Array(buf, Y, n * rows);
      for (let t = 0; t < n; t++) {
        const xo = t * cols, yo = t * rows, sx = XS[t];
        let r = 0;
        for (; r + 4 <= rows; r += 4) {
          const o0 = r * cols, o1 = o0 + cols, o2 = o1 + cols, o3 = o2 + cols;
          let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
          for (let c = 0; c < cols; c++) {
            const v = X[xo + c];
            a0 = (a0 + Q[o0 + c] * v) | 0; a1 = (a1 + Q[o1 + c] * v) | 0;
            a2 = (a2 + Q[o2 + c] * v) | 0; a3 = (a3 + Q[o3 + c] * v) | 0;
          }
          Yv[yo + r] = Math.fround(S[r] * sx) * a0; Yv[yo + r + 1] = Math.fround(S[r + 1] * sx) * a1;
          Yv[yo + r + 2] = Math.fround(S[r + 2] * sx) * a2; Yv[yo + r + 3] = Math.fround(S[r + 3] * sx) * a3;
        }
        for (; r < rows; r++) {
          const o = r * cols;
          let a = 0;
          for (let c = 0; c < cols; c++) a = (a + Q[o + c] * X[xo + c]) | 0;
          Yv[yo + r] = Math.fround(S[r] * sx) * a;
        }
      }
    },
    // The exact path, in the kernel's order of float32 operations (matvec.c, dl_matmat_f32x): per
    // row, four lanes over 16-column chunks, lanes summed ((l0 + l1) + l2) + l3, then the left-over
    // columns; rows past the last multiple of four in plain order. Math.fround after every double
    // operation gives float32's result exactly (a double holds more than twice float32's digits,
    // so rounding twice is harmless), hence the same bits as every wasm build.
    js_matmat_f32x(q, s, Xp, Y, rows, cols, n) {
      const f = Math.fround;
      const buf = getMemory().buffer;
      const Q = new Int8Array(buf, q, rows * cols), S = new Float32Array(buf, s, rows);
      const X = new Float32Array(buf, Xp, n * cols), Yv = new Float32Array(buf, Y, n * rows);
      const c16 = cols & ~15, rows4 = rows & ~3;
      const acc = new Float32Array(4);
      for (let t = 0; t < n; t++) {
        const xo = t * cols;
        for (let r = 0; r < rows; r++) {
          const o = r * cols;
          let from = 0, head = 0;
          if (r < rows4) {
            acc.fill(0);
            for (let c = 0; c < c16; c += 16) {
              for (let j = 0; j < 4; j++) {
                let a = f(Q[o + c + j] * X[xo + c + j]);
                a = f(a + f(Q[o + c + 4 + j] * X[xo + c + 4 + j]));
                a = f(a + f(Q[o + c + 8 + j] * X[xo + c + 8 + j]));
                a = f(a + f(Q[o + c + 12 + j] * X[xo + c + 12 + j]));
                acc[j] = f(acc[j] + a);
              }
            }
            head = f(f(f(acc[0] + acc[1]) + acc[2]) + acc[3]);
            from = c16;
          }
          let tail = 0;
          for (let c = from; c < cols; c++) tail = f(tail + f(Q[o + c] * X[xo + c]));
          Yv[t * rows + r] = f(S[r] * (r < rows4 ? f(head + tail) : tail));
        }
      }
    },
  };
}
