// Tokens per second with the SIMD kernel, the scalar kernel and a plain-JS matvec, run on demand.
import { call, on } from "../engine.js";
import { el, fmt, serial } from "../ui.js";

export function mountSpeed(root) {
  const run = el("button", { id: "speed-run", text: "Race the three kernels" });
  const table = el("table", { class: "data", id: "speed-table", tabindex: 0, "aria-label": "tokens per second by kernel" });
  const out = el("div", { class: "readout", id: "speed-out" });
  root.append(el("h3", { text: "How much the SIMD kernel buys" }),
    el("p", { class: "hint", text: "96 greedy tokens each (after 32 untimed ones), the same model and the same Python. " +
      "The SIMD kernel runs its matrix products and attention on 128-bit vectors; the scalar kernel is the same C " +
      "without SIMD; the third is the scalar kernel with its matrix products done by plain JavaScript." }),
    run, table, out);
  on("optional", (m) => { if (m.what === "speed") { run.disabled = true; out.textContent = `The speed race is unavailable: ${m.message}`; } });
  const once = serial([run], out);
  run.onclick = () => once(async () => {
    // let the browser finish painting first (a click often follows a scroll), so the race does not
    // share this machine's cores with it: two frames go by before the timing starts
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const rows = [];
    for (const [variant, label] of [["main", "SIMD kernel (this page's)"], ["scalar", "scalar wasm kernel"], ["jsmatvec", "plain-JS matvec"]]) {
      out.textContent = `running ${label}…`;
      rows.push([label, await call("ch2_speed", { variant })]);
    }
    table.replaceChildren(el("tr", {}, ["kernel", "tokens/s", "ms in the kernel", "ms in Python"].map((h) => el("th", { text: h }))),
      ...rows.map(([l, r]) => el("tr", {}, [l, fmt(r.tps, 0), fmt(r.kernel_ms, 0), fmt(r.python_ms, 0)].map((v) => el("td", { text: String(v) })))));
    const simd = rows[0][1].tps, sc = rows[1][1].tps, js = rows[2][1].tps;
    out.textContent = `SIMD is ${fmt(simd / sc, 1)}× the scalar kernel and ${fmt(simd / js, 1)}× the plain-JS matvec, end to end.` +
      (rows[0][1].simd ? "" : " (This browser has no wasm SIMD, so the first row is the scalar kernel too.)");
    out.dataset.ratio = (simd / js).toFixed(2);
  });
}
