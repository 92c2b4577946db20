// Tokens per second with the SIMD kernel, the scalar kernel and a plain-JS matvec, run on demand.
// Publishes the prose's ch2.speed.* keys and shows the paragraph that reads them. The table and
// the readout are drawn from the last race, again after a language switch.
import { call, on } from "../engine.js";
import { el, fmt, serial, setStatus } from "../ui.js";
import { t, redrawOnLang } from "../i18n.js";
import { setLive, showWhen } from "../live.js";
import { SPEED } from "../live/examples.js";

const N = SPEED.n, WARMUP = SPEED.warmup;
const VARIANTS = ["main", "scalar", "jsmatvec"]; // labels: w2.speed.kernel.VARIANT

export function mountSpeed(root) {
  const run = el("button", { id: "speed-run", t: "w2.speed.run" });
  const table = el("table", { class: "data", id: "speed-table", tabindex: 0, "t-aria-label": "w2.speed.table_aria" });
  const out = el("div", { class: "readout", id: "speed-out" });
  root.append(el("p", { class: "hint", t: "w2.speed.hint", targs: { n: N, warmup: WARMUP } }), run, table, out);
  on("optional", (m) => {
    if (m.what === "speed") {
      run.disabled = true;
      // the worker's reason as a message key where it gives one, else its words
      const why = m.key ? { key: `err.${m.key}`, args: m.args || {} } : m.message;
      setStatus(out, () => t("w2.speed.unavailable", { why }));
    }
  });
  const gmacs = (r) => r.macs / (r.kernel_ms * 1e6);
  // the last race's results, by variant
  function draw(rows) {
    table.replaceChildren(el("tr", {}, ["kernel", "tps", "kernel_ms", "python_ms", "gmacs"].map((h) => el("th", { t: `w2.speed.h.${h}` }))),
      ...rows.map(([v, r]) => el("tr", {}, [t(`w2.speed.kernel.${v}`), fmt(r.tps, 0), fmt(r.kernel_ms, 0), fmt(r.python_ms, 0),
        fmt(gmacs(r), 1)].map((x) => el("td", { text: x })))));
    const [m, sc, js] = rows.map((x) => x[1]);
    setStatus(out, () => t("w2.speed.result", { vs_scalar: fmt(m.tps / sc.tps, 1), vs_js: fmt(m.tps / js.tps, 1) }) +
      (m.simd ? "" : t("w2.speed.no_simd")));
  }
  const show = redrawOnLang(draw, { unless: () => out.classList.contains("error") });

  const once = serial([run], out);
  run.onclick = () => once(async () => {
    // let the browser finish painting first (a click often follows a scroll), so the race does not
    // share this machine's cores with it: two frames go by before the timing starts
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const rows = [];
    for (const variant of VARIANTS) {
      setStatus(out, () => t("w2.speed.running", { kernel: t(`w2.speed.kernel.${variant}`) }));
      rows.push([variant, await call("ch2_speed", { variant, n: N, warmup: WARMUP })]);
    }
    show(rows);
    const [m, sc, js] = rows.map((x) => x[1]);
    out.dataset.ratio = (m.tps / js.tps).toFixed(2);
    setLive({ "ch2.speed.tps_simd": m.tps, "ch2.speed.ratio_simd_scalar": m.tps / sc.tps,
      "ch2.speed.ratio_simd_js": m.tps / js.tps, "ch2.speed.python_ms_simd": m.python_ms,
      "ch2.speed.kernel_ratio_simd_scalar": sc.kernel_ms / m.kernel_ms,
      "ch2.speed.python_share_simd": m.python_ms / (m.python_ms + m.kernel_ms), "ch2.speed.gmacs_simd": gmacs(m),
      "ch2.speed.gmacs_scalar": gmacs(sc) });
    showWhen("data-after", "speed", true);
    showWhen("data-before", "speed", false);
  });
}
