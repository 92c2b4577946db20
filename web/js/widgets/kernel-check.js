// Kernel check: the worker's Python multiplies a seeded int8 matrix by a vector through the wasm
// kernel, both paths, and reports the time per product (repeated until it can be measured) and the
// error against a float64 reference computed in Python. Runs once when first seen, at the shape of
// our model's first feed-forward matrix (d_ff x d), and publishes the prose's ch2.kc.* keys.
// The readout is drawn from the last result, again after a language switch.
import { call } from "../engine.js";
import { el, numberBox, fmt, serial, readNumber, whenSeen, setStatus } from "../ui.js";
import { t, redrawOnLang } from "../i18n.js";
import { setLive } from "../live.js";
import { whenFacts } from "../facts.js";
import { f2, shape } from "../live/formats.js";
import { drawBars } from "../diagrams/hbars.js";

const MAX_MACS = 4_194_304; // kernelcheck.MAX_MACS: Python checks it too and names the box
// the kernel's name (the same words as the start-up line's)
const BUILD_KEYS = { kernel_relaxed: "boot.kernel.relaxed", kernel_simd: "boot.kernel.simd", kernel_scalar: "boot.kernel.scalar",
  kernel_jsmatvec: "boot.kernel.scalar" };

export function kernelKey(file, simd) {
  return BUILD_KEYS[String(file || "").replace(/\.wasm$/, "")] || (simd ? "boot.kernel.simd" : "boot.kernel.scalar");
}
export const kernelName = (file, simd) => t(kernelKey(file, simd));

export function mountKernelCheck(root) {
  const rows = numberBox({ integer: true, id: "kc-rows", value: 1024, min: 1, max: 8192, "t-aria-label": "w2.rows" });
  const cols = numberBox({ integer: true, id: "kc-cols", value: 256, min: 1, max: 4096, "t-aria-label": "w2.cols" });
  const btn = el("button", { id: "kc-run", t: "w2.kc.run" });
  const out = el("div", { class: "readout", id: "kc-out", "aria-live": "polite" });
  root.append(
    el("p", { class: "hint", t: "w2.kc.hint", targs: { max: MAX_MACS } }),
    el("div", { class: "controls" }, el("label", {}, el("span", { t: "w2.rows" }), " ", rows),
      el("label", {}, el("span", { t: "w2.cols" }), " ", cols), btn),
    out,
  );
  function draw({ r, c, res }) {
    const hasRef = res.exact_rel_err != null;
    const err = (e) => (hasRef ? t("w2.kc.err", { parts: f2.parts(e) }) : "");
    const path = (key, p) => t(key, { us: f2.us(res[`${p}_us`]), g: f2.g(res[`${p}_gmacs`]), calls: res[`${p}_calls`],
      err: err(res[`${p}_rel_err`]) });
    setStatus(out, ""); // the "multiplying…" line is over
    // the two paths' time per product as bars (µs: shorter is faster), the lines in a disclosure
    const bars = drawBars([
      { label: t("w2.kc.bar_exact"), value: res.exact_us, text: f2.us(res.exact_us), cls: "hbar-neutral" },
      { label: t("w2.kc.bar_fast"), value: res.fast_us, text: f2.us(res.fast_us), cls: "hbar-ours" }],
    Math.min(out.clientWidth || 600, 720), t("w2.kc.bars_aria", { exact: f2.us(res.exact_us), fast: f2.us(res.fast_us) }));
    out.replaceChildren(
      el("div", {}, t("w2.kc.head", { kernel: kernelName(res.kernel, res.simd), shape: shape(r, c), macs: r * c })),
      el("div", { class: "kc-pic", id: "kc-pic" }, bars),
      el("details", { class: "numbers" }, el("summary", { t: "w2.kc.numbers" }),
        el("div", { id: "kc-exact" }, path("w2.kc.exact", "exact")),
        el("div", { id: "kc-fast" }, path("w2.kc.fast", "fast")),
        el("div", { class: "hint" }, hasRef ? t("w2.kc.ref_note") : t("w2.kc.no_ref", { n: res.reference_macs })),
        el("div", { class: "hint" }, t("w2.kc.first", { list: res.fast.slice(0, 4).map((v) => fmt(v, 4)).join(t("w2.kc.list_sep")) }))),
    );
  }
  // (a run in progress, or an error shown, stays)
  const show = redrawOnLang(draw, { unless: () => !out.dataset.result || out.classList.contains("error") });

  const once = serial([btn], out, { rows, cols });
  const check = () => once(async () => {
    const r = readNumber(rows, { label: "w2.rows", min: 1, max: 8192, integer: true });
    const c = readNumber(cols, { label: "w2.cols", min: 1, max: 4096, integer: true });
    if (r == null || c == null) return;
    delete out.dataset.result; // a result shown is the latest run's, never an earlier one's
    setStatus(out, () => t("w2.kc.running", { shape: shape(r, c) }));
    const res = await call("kernel_check", { rows: r, cols: c, seed: 7 });
    const hasRef = res.exact_rel_err != null;
    show({ r, c, res });
    out.dataset.result = JSON.stringify({ exact: res.exact.slice(0, 8), fast: res.fast.slice(0, 8) });
    out.dataset.fastUs = res.fast_us;
    setLive({ "ch2.kc.shape": () => shape(r, c), "ch2.kc.kernel_name": { key: kernelKey(res.kernel, res.simd) },
      "ch2.kc.exact_err": hasRef ? res.exact_rel_err : null,
      "ch2.kc.fast_err": hasRef ? res.fast_rel_err : null, "ch2.kc.fast_us": res.fast_us, "ch2.kc.exact_us": res.exact_us,
      "ch2.kc.fast_gmacs": res.fast_gmacs, "ch2.kc.fast_over_exact": res.exact_us / res.fast_us });
  });
  btn.addEventListener("click", check);
  // on arrival: our feed-forward shape (unless the reader has typed a size of their own)
  whenSeen(root, () => whenFacts((f) => {
    if (out.dataset.result) return;
    if (rows.value === "1024" && cols.value === "256") { rows.value = f.cfg.d_ff; cols.value = f.cfg.d_model; }
    check();
  }));
}
