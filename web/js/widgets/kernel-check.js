// Kernel check: the worker's Python multiplies a seeded int8 matrix by a vector through the wasm
// kernel, both paths, and reports time and error against a float64 reference computed in Python.
import { call } from "../engine.js";
import { el, fmt, serial, readNumber } from "../ui.js";

export function mountKernelCheck(root) {
  const rows = el("input", { type: "number", id: "kc-rows", value: 1024, min: 1, max: 8192, "aria-label": "rows" });
  const cols = el("input", { type: "number", id: "kc-cols", value: 256, min: 1, max: 4096, "aria-label": "columns" });
  const btn = el("button", { id: "kc-run", text: "Multiply" });
  const out = el("div", { class: "readout", id: "kc-out", "aria-live": "polite" });
  root.append(
    el("h3", { text: "Check the kernel" }),
    el("p", { class: "hint", text: "A seeded random int8 matrix times a random vector, computed by the kernel in this page. " +
      "Errors are relative to the largest output, against a float64 product computed by Python." }),
    el("div", { class: "controls" }, el("label", {}, "rows ", rows), el("label", {}, "columns ", cols), btn),
    out,
  );
  const once = serial([btn], out, { rows, cols });
  btn.addEventListener("click", () => once(async () => {
    const r = readNumber(rows, { label: "rows", min: 1, max: 8192, integer: true });
    const c = readNumber(cols, { label: "columns", min: 1, max: 4096, integer: true });
    if (r == null || c == null) return;
    const res = await call("kernel_check", { rows: r, cols: c, seed: 7 });
    const macs = r * c;
    out.replaceChildren(
      el("div", {}, `${res.simd ? "SIMD" : "scalar"} kernel, ${r}×${c} = ${macs.toLocaleString()} multiply-adds`),
      el("div", {}, `exact path: ${fmt(res.exact_ms, 3)} ms` + (res.exact_rel_err != null ? `, error ${fmt(res.exact_rel_err)}` : "")),
      el("div", {}, `fast path: ${fmt(res.fast_ms, 3)} ms` + (res.fast_rel_err != null ? `, error ${fmt(res.fast_rel_err)}` : "")),
      el("div", { class: "hint" }, `first outputs: ${res.fast.slice(0, 4).map((v) => fmt(v, 4)).join(", ")}`),
    );
    out.dataset.result = JSON.stringify({ exact: res.exact.slice(0, 8), fast: res.fast.slice(0, 8) });
  }));
}
