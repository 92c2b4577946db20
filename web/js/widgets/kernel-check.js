// Kernel check: the worker's Python multiplies a seeded int8 matrix by a vector through the wasm
// kernel, both paths, and reports the time per product (repeated until it can be measured) and the
// error against a float64 reference computed in Python. Runs once when first seen, at the shape of
// our model's first feed-forward matrix (d_ff x d), and publishes the prose's ch2.kc.* keys.
import { call } from "../engine.js";
import { el, fmt, serial, readNumber, whenSeen } from "../ui.js";
import { setLive2, whenFacts, f2 } from "../ch2-live.js";

const MAX_MACS = 4_194_304; // kernelcheck.MAX_MACS: Python checks it too and names the box
const BUILD_WORDS = { kernel_relaxed: "relaxed-SIMD", kernel_simd: "SIMD", kernel_scalar: "scalar", kernel_jsmatvec: "scalar" };

export function kernelName(file, simd) {
  return `${BUILD_WORDS[String(file || "").replace(/\.wasm$/, "")] || (simd ? "SIMD" : "scalar")} kernel`;
}

export function mountKernelCheck(root) {
  const rows = el("input", { type: "number", id: "kc-rows", value: 1024, min: 1, max: 8192, "aria-label": "rows" });
  const cols = el("input", { type: "number", id: "kc-cols", value: 256, min: 1, max: 4096, "aria-label": "columns" });
  const btn = el("button", { id: "kc-run", text: "Multiply" });
  const out = el("div", { class: "readout", id: "kc-out", "aria-live": "polite" });
  root.append(
    el("p", { class: "hint", text: "A seeded random int8 matrix times a random vector, computed by the kernel in this page, " +
      `on both paths. Up to ${MAX_MACS.toLocaleString("en")} weights; each product is repeated until a batch lasts about 20 ms, and the fastest of four such batches is timed.` }),
    el("div", { class: "controls" }, el("label", {}, "rows ", rows), el("label", {}, "columns ", cols), btn),
    out,
  );
  const once = serial([btn], out, { rows, cols });
  const check = () => once(async () => {
    const r = readNumber(rows, { label: "rows", min: 1, max: 8192, integer: true });
    const c = readNumber(cols, { label: "columns", min: 1, max: 4096, integer: true });
    if (r == null || c == null) return;
    delete out.dataset.result; // a result shown is the latest run's, never an earlier one's
    out.textContent = `multiplying ${r} × ${c}…`;
    const res = await call("kernel_check", { rows: r, cols: c, seed: 7 });
    const macs = r * c, name = kernelName(res.kernel, res.simd);
    const hasRef = res.exact_rel_err != null;
    const err = (e) => (hasRef ? `, error ${f2.parts(e)} of the largest output` : "");
    out.replaceChildren(
      el("div", {}, `${name}, ${r} × ${c} = ${macs.toLocaleString("en")} multiply-adds per product`),
      el("div", { id: "kc-exact" }, `exact path (x kept as floats): ${f2.us(res.exact_us)} per product, ` +
        `${f2.g(res.exact_gmacs)} GMAC/s (${res.exact_calls} products timed in a row)${err(res.exact_rel_err)}`),
      el("div", { id: "kc-fast" }, `fast path (x rounded to 7 bits): ${f2.us(res.fast_us)} per product, ` +
        `${f2.g(res.fast_gmacs)} GMAC/s (${res.fast_calls} products timed in a row)${err(res.fast_rel_err)}`),
      el("div", { class: "hint" }, hasRef
        ? "Error: the largest difference from a float64 product computed by plain Python, divided by the largest output. " +
          "The exact path's is float32 rounding; the fast path's is the rounding of x to integers from −63 to 63."
        : `No error figure: above ${res.reference_macs.toLocaleString("en")} multiply-adds the plain-Python float64 ` +
          "reference would take too long."),
      el("div", { class: "hint" }, `first outputs: ${res.fast.slice(0, 4).map((v) => fmt(v, 4)).join(", ")}`),
    );
    out.dataset.result = JSON.stringify({ exact: res.exact.slice(0, 8), fast: res.fast.slice(0, 8) });
    out.dataset.fastUs = res.fast_us;
    setLive2({ "kc.shape": `${r} × ${c}`, "kc.kernel_name": name, "kc.exact_err": hasRef ? res.exact_rel_err : null,
      "kc.fast_err": hasRef ? res.fast_rel_err : null, "kc.fast_us": res.fast_us, "kc.exact_us": res.exact_us,
      "kc.fast_gmacs": res.fast_gmacs, "kc.fast_over_exact": res.exact_us / res.fast_us });
  });
  btn.addEventListener("click", check);
  // on arrival: our feed-forward shape (unless the reader has typed a size of their own)
  whenSeen(root, () => whenFacts((f) => {
    if (out.dataset.result) return;
    if (rows.value === "1024" && cols.value === "256") { rows.value = f.cfg.d_ff; cols.value = f.cfg.d_model; }
    check();
  }));
}
