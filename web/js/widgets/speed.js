// Tokens per second with the SIMD kernel, the scalar kernel and a plain-JS matvec, run on demand.
// Publishes the prose's ch2.speed.* keys and shows the paragraph that reads them.
import { call, on } from "../engine.js";
import { el, fmt, serial } from "../ui.js";
import { setLive2, showWhen } from "../ch2-live.js";

const N = 96, WARMUP = 32; // ch2_speed's defaults: timed tokens, untimed ones before them

export function mountSpeed(root) {
  const run = el("button", { id: "speed-run", text: "Race the three kernels" });
  const table = el("table", { class: "data", id: "speed-table", tabindex: 0, "aria-label": "tokens per second by kernel" });
  const out = el("div", { class: "readout", id: "speed-out" });
  root.append(
    el("p", { class: "hint", text: `${N} greedy tokens each (after ${WARMUP} untimed ones), the same model and the same Python. ` +
      "The SIMD kernel runs its matrix products and attention on 128-bit vectors; the scalar kernel is the same C " +
      "without SIMD; the third is the scalar kernel with its matrix products done by plain JavaScript." }),
    run, table, out);
  setLive2({ "speed.tokens": N, "speed.warmup": WARMUP });
  on("optional", (m) => { if (m.what === "speed") { run.disabled = true; out.textContent = `The speed race is unavailable: ${m.message}`; } });
  const once = serial([run], out);
  run.onclick = () => once(async () => {
    // let the browser finish painting first (a click often follows a scroll), so the race does not
    // share this machine's cores with it: two frames go by before the timing starts
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const rows = [];
    for (const [variant, label] of [["main", "SIMD kernel (this page's)"], ["scalar", "scalar wasm kernel"], ["jsmatvec", "plain-JS matvec"]]) {
      out.textContent = `running ${label}…`;
      rows.push([label, await call("ch2_speed", { variant, n: N, warmup: WARMUP })]);
    }
    const gmacs = (r) => r.macs / (r.kernel_ms * 1e6);
    table.replaceChildren(el("tr", {}, ["kernel", "tokens/s", "ms in the kernel", "ms in Python", "GMAC/s in the kernel"].map((h) => el("th", { text: h }))),
      ...rows.map(([l, r]) => el("tr", {}, [l, fmt(r.tps, 0), fmt(r.kernel_ms, 0), fmt(r.python_ms, 0), fmt(gmacs(r), 1)].map((v) => el("td", { text: String(v) })))));
    const [m, sc, js] = rows.map((x) => x[1]);
    out.textContent = `SIMD is ${fmt(m.tps / sc.tps, 1)}× the scalar kernel and ${fmt(m.tps / js.tps, 1)}× the plain-JS matvec, end to end.` +
      (m.simd ? "" : " (This browser has no wasm SIMD, so the first row is the scalar kernel too.)");
    out.dataset.ratio = (m.tps / js.tps).toFixed(2);
    setLive2({ "speed.tps_simd": m.tps, "speed.ratio_simd_scalar": m.tps / sc.tps, "speed.ratio_simd_js": m.tps / js.tps,
      "speed.python_ms_simd": m.python_ms, "speed.kernel_ratio_simd_scalar": sc.kernel_ms / m.kernel_ms,
      "speed.python_share_simd": m.python_ms / (m.python_ms + m.kernel_ms), "speed.gmacs_simd": gmacs(m),
      "speed.gmacs_scalar": gmacs(sc) });
    showWhen("data-after", "speed", true);
    showWhen("data-before", "speed", false);
  });
}
