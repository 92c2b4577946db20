// Tokens per second with the SIMD kernel, the scalar kernel and a plain-JS matvec, run on demand.
// Publishes the prose's ch2.speed.* keys and shows the paragraph that reads them. The race is drawn
// as one bar per kernel, a token's time split into the kernel's share and the rest (Python and the
// calls into the kernel), with the table in a disclosure; all from the last race, again after a
// language switch. Before the reader races, the page shows the race the build ran (first-frames.js).
import { call, on } from "../engine.js";
import { el, fmt, serial, setStatus, whenNear } from "../ui.js";
import { t, redrawOnLang } from "../i18n.js";
import { setLive, showWhen } from "../live.js";
import { SPEED } from "../live/examples.js";
import { drawBars } from "../diagrams/hbars.js";

const N = SPEED.n, WARMUP = SPEED.warmup;
const VARIANTS = ["main", "scalar", "jsmatvec"]; // labels: w2.speed.kernel.VARIANT

export function mountSpeed(root) {
  const run = el("button", { id: "speed-run", t: "w2.speed.run" });
  const table = el("table", { class: "data", id: "speed-table", tabindex: 0, "t-aria-label": "w2.speed.table_aria" });
  const out = el("div", { class: "readout", id: "speed-out" });
  const pic = el("div", { class: "speed-pic", id: "speed-pic" });
  const numbers = el("details", { class: "numbers", hidden: true }, el("summary", { t: "w2.speed.numbers" }),
    el("div", { class: "table-scroll" }, table));
  root.append(el("p", { class: "hint", t: "w2.speed.hint", targs: { n: N, warmup: WARMUP } }), run, out, pic, numbers);
  on("optional", (m) => {
    if (m.what === "speed") {
      run.disabled = true;
      // the worker's reason as a message key where it gives one, else its words
      const why = m.key ? { key: `err.${m.key}`, args: m.args || {} } : m.message;
      setStatus(out, () => t("w2.speed.unavailable", { why }));
    }
  });
  const gmacs = (r) => r.macs / (r.kernel_ms * 1e6);
  // the last race's results, by variant; `built`: the race the build ran (first-frames.js), drawn
  // until the reader races, with its note
  function draw({ rows, built }) {
    table.replaceChildren(el("tr", {}, ["kernel", "tps", "kernel_ms", "python_ms", "gmacs"].map((h) => el("th", { t: `w2.speed.h.${h}` }))),
      ...rows.map(([v, r]) => el("tr", {}, [t(`w2.speed.kernel.${v}`), fmt(r.tps, 0), fmt(r.kernel_ms, 0), fmt(r.python_ms, 0),
        fmt(gmacs(r), 1)].map((x) => el("td", { text: x })))));
    numbers.hidden = false;
    // ms per token: the kernel's share, then the rest of the loop (engine.py: python_s is the
    // loop's time less the kernel's, so the two parts add up to the bar)
    const per = (r, ms) => ms / r.tokens;
    pic.dataset.race = JSON.stringify(rows.map(([v, r]) => [v, { tokens: r.tokens, tps: r.tps, kernel_ms: r.kernel_ms,
      python_ms: r.python_ms, macs: r.macs, simd: r.simd }]));
    pic.replaceChildren(built ? el("p", { class: "frame-note", t: "w2.speed.built" }) : "",
      el("div", { class: "bar-legend" },
        el("span", { class: "lg" }, el("span", { class: "sw sw-kernel" }), el("span", { t: "w2.speed.legend_kernel" })),
        el("span", { class: "lg" }, el("span", { class: "sw sw-rest" }), el("span", { t: "w2.speed.legend_rest" }))),
      drawBars(rows.map(([v, r]) => ({ label: t(`w2.speed.kernel.${v}`), value: per(r, r.kernel_ms + r.python_ms),
        text: t("w2.speed.bar_ms", { ms: fmt(per(r, r.kernel_ms + r.python_ms), 2) }), cls: `speed-${v}`,
        parts: [{ value: per(r, r.kernel_ms), cls: "sp-kernel" }, { value: per(r, r.python_ms), cls: "sp-rest" }] })),
      Math.min(pic.clientWidth || 640, 760), t("w2.speed.bars_aria", { list: rows.map(([v, r]) =>
        t("w2.speed.bar_aria_one", { kernel: t(`w2.speed.kernel.${v}`), ms: fmt(per(r, r.kernel_ms + r.python_ms), 2),
          kernel_ms: fmt(per(r, r.kernel_ms), 2) })).join("; ") })));
    if (built) return;
    const [m, sc, js] = rows.map((x) => x[1]);
    setStatus(out, () => t("w2.speed.result", { vs_scalar: fmt(m.tps / sc.tps, 1), vs_js: fmt(m.tps / js.tps, 1) }) +
      (m.simd ? "" : ` ${t("w2.speed.no_simd")}`));
  }
  const show = redrawOnLang(draw, { unless: () => out.classList.contains("error") });

  // the build's race, from the copy the served page holds (its data, drawn at this width) once the
  // reader comes near: drawn at mount it measured the page's layout in the load's busiest moment
  // (a long task of 60-110 ms on this machine; the copy shows the same race until then)
  const copied = root.querySelector(":scope > .first-frame [data-race]");
  if (copied) {
    whenNear(root, "100% 0px").then(() => {
      if (root.querySelector("#speed-pic svg")) return; // the reader has raced meanwhile
      try { show({ rows: JSON.parse(copied.dataset.race), built: true }); } catch { /* the copy stays as it is */ }
    });
  }

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
    show({ rows });
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
