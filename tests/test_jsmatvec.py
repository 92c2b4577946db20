"""The plain-JS products (web/js/jsmatvec.js) give the wasm kernels' bits, on both paths.

Run in Node on the very files the page ships: kernel_jsmatvec.wasm with the JS imports against
kernel_scalar.wasm, over shapes with and without left-over rows and columns.
"""
import json
import shutil
import subprocess

import pytest
from conftest import WEB

SCRIPT = r"""
import { readFileSync } from "node:fs";
import { jsMatmatImports } from "%(js)s";
const load = async (name, imports) => (await WebAssembly.instantiate(readFileSync("%(k)s/" + name), imports)).instance.exports;
let mem = null;
const js = await load("kernel_jsmatvec.wasm", { env: jsMatmatImports(() => mem) });
mem = js.memory;
const sc = await load("kernel_scalar.wasm", {});
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
const out = [];
for (const [rows, cols, n] of [[64, 160, 1], [70, 160, 3], [160, 70, 2], [7, 33, 4], [4096, 160, 1]]) {
  const q = Int8Array.from({ length: rows * cols }, () => Math.floor(rnd() * 255) - 127);
  const s = Float32Array.from({ length: rows }, () => 0.001 + rnd() * 0.02);
  const x = Float32Array.from({ length: n * cols }, () => (rnd() - 0.5) * 8);
  const res = [];
  for (const k of [js, sc]) {
    const p = (bytes) => k.dl_alloc(bytes);
    const qp = p(q.length), sp = p(4 * rows), xp = p(4 * x.length), yp = p(4 * n * rows);
    const xqp = p(x.length), xsp = p(4 * n), ye = p(4 * n * rows);
    new Int8Array(k.memory.buffer, qp, q.length).set(q);
    new Float32Array(k.memory.buffer, sp, rows).set(s);
    new Float32Array(k.memory.buffer, xp, x.length).set(x);
    k.dl_matmat_f32x(qp, sp, xp, ye, rows, cols, n);
    for (let t = 0; t < n; t++)  // the fast path: quantize each input, then the int8 product
      new Float32Array(k.memory.buffer, xsp + 4 * t, 1)[0] = k.dl_quantize_x(xp + 4 * t * cols, xqp + t * cols, cols);
    k.dl_matmat_i8x(qp, sp, xqp, xsp, yp, rows, cols, n, 0);
    res.push([Array.from(new Uint32Array(k.memory.buffer, ye, n * rows)), Array.from(new Uint32Array(k.memory.buffer, yp, n * rows))]);
  }
  out.push({ shape: [rows, cols, n], exact: JSON.stringify(res[0][0]) === JSON.stringify(res[1][0]),
             fast: JSON.stringify(res[0][1]) === JSON.stringify(res[1][1]) });
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(not shutil.which("node"), reason="node is installed by the build (npm)")
def test_plain_js_products_give_the_kernels_bits(tmp_path):
    script = tmp_path / "check.mjs"
    script.write_text(SCRIPT % {"js": (WEB / "js" / "jsmatvec.js").as_uri(), "k": WEB / "kernels"})
    res = json.loads(subprocess.run(["node", script], check=True, capture_output=True, text=True).stdout)
    assert len(res) == 5
    for r in res:
        assert r["exact"] and r["fast"], r
