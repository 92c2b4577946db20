// The speculative cost model: sliders and presets -> ch3_model (Python) -> formula, figures, speedup curve.
import { call } from "../engine.js";
import { el, fmt, texNumber, sliderRow, readNumber, setNumber, setStatus, showError, fieldError, setText, texWhenNear } from "../ui.js";
import { t, fixed, redrawOnLang } from "../i18n.js";
import { lineChart } from "../charts.js";
import { COST_MODEL, COST_PRESETS } from "../live/examples.js";

// its presets and starting point are the reference example's (chapter 3's prose quotes them)
const PRESETS = COST_PRESETS;
// the verify cost goes to 10: measured on a CPU it is about γ+1 passes (the live pair's hand-off)
// (labels are text keys)
const SLIDERS = [["gamma", "w3.cm.gamma", 0, 32, 1], ["alpha", "w3.cm.alpha", 0, 1, 0.01],
  ["c_draft", "w3.cm.c_draft", 0, 1, 0.005], ["c_verify", "w3.cm.c_verify", 0.05, 10, 0.05],
  ["c_verify_slope", "w3.cm.c_verify_slope", 0, 2, 0.05]];

export function mountCostModel(root) {
  const inputs = {};
  const grid = el("div", { class: "slider-grid" });
  // the memory-bound idealisation: verification costs the same whatever γ (no slope)
  const defaults = { ...COST_MODEL, c_verify_slope: 0 };
  for (const [f, label, min, max, step] of SLIDERS) {
    const row = sliderRow({ id: `cm-${f}`, label, min, max, step, value: defaults[f], onChange: () => update() });
    inputs[f] = { r: row.slider, n: row.num };
    grid.append(row.row);
  }
  const presets = el("div", { class: "controls" }, el("span", { t: "w3.cm.presets" }), " ", PRESETS.map(([name, a, g, cd, cv], i) =>
    el("button", { class: "secondary", id: `cm-preset-${i}`, t: `w3.cm.preset.${name}`, onclick: () => {
      for (const [f, v] of [["alpha", a], ["gamma", g], ["c_draft", cd], ["c_verify", cv], ["c_verify_slope", 0]]) { setNumber(inputs[f].r, v); setNumber(inputs[f].n, v); }
      delete origin.dataset.t;
      delete origin.dataset.tArgs;
      origin.textContent = "";
      update();
    } })));
  // says where the numbers came from when the live pair put them here
  const origin = el("div", { class: "hint", id: "cm-origin", role: "status" });
  const formula = el("div", { class: "formula", id: "cm-formula" });
  const figures = el("div", { class: "readout stats-row", id: "cm-figures" });
  const canvas = el("canvas", { id: "cm-curve", height: 200, role: "img", "t-aria-label": "w3.cm.chart_aria" });
  const peak = el("div", { class: "readout", id: "cm-peak" });
  const status = el("div", { class: "status", role: "status" });
  root.append(presets, origin, grid, formula, figures, el("div", { class: "chart-box" }, canvas), peak, status);
  const chart = lineChart(canvas, { xTitle: () => t("w3.cm.x_title"), yTitle: () => t("w3.cm.y_title"), yMin: 0 });
  let busy = false, again = false;
  async function update() {
    const args = {};
    let ok = true;
    for (const [f, label] of SLIDERS) {
      // the boxes accept more than the sliders show (any γ to 32, costs to 1000): the model checks the rest
      args[f] = readNumber(inputs[f].n, { label, min: 0, max: f === "alpha" ? 1 : f === "gamma" ? 32 : 1000, integer: f === "gamma" });
      if (args[f] == null) ok = false;
    }
    if (!ok) return;
    if (busy) { again = true; return; }
    busy = true;
    try {
      const r = await call("ch3_model", args);
      show(r);
      setStatus(status, "");
    } catch (e) {
      showError(e, Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.n])), status);
    } finally {
      busy = false;
      if (again) { again = false; update(); }
    }
  }
  function render(r) {
    const p = r.point, s = r.sweep;
    // numbers in TeX (ui.texNumber): any value a box accepts typesets, 0.0001 and 1000 alike
    const n = (x, d) => texNumber(x, d), b = (x, d) => texNumber(x, d, { base: true });
    texWhenNear(formula, `E=\\sum_{i=0}^{${p.gamma}}${b(p.alpha, 2)}^i=${n(p.E_sum, 3)}` +
      (p.alpha < 1 && p.gamma > 0 ? `\\quad\\frac{1-${b(p.alpha, 2)}^{${p.gamma + 1}}}{1-${n(p.alpha, 2)}}=${n(p.E, 3)}`
        : `\\quad(\\text{${t("w3.cm.closed_form")} }${n(p.E, 3)})`), true);
    const pct = (x) => t("fmt.pct", { x: fixed(100 * x, 1) });
    figures.replaceChildren(...[["w3.cm.fig.e", fmt(p.E, 3), "cm-E"], ["w3.cm.fig.cost", fmt(p.cost, 2), "cm-cost"],
      ["w3.cm.fig.speedup", t("w3.times", { x: fmt(p.speedup, 2) }), "cm-speedup"], ["w3.cm.fig.tpt", fmt(p.target_passes_per_token, 3), "cm-tpt"],
      ["w3.cm.fig.ceiling", pct(p.ceiling_share), "cm-ceiling"],
      // E·(1 − α) = 1 − α^(γ+1): the share of the other ceiling, 1/(1 − α), which no γ passes
      ["w3.cm.fig.ceiling_inf", p.alpha < 1 ? pct(1 - p.alpha ** (p.gamma + 1)) : t("w3.cm.no_ceiling"), "cm-ceiling-inf"]].map(([l, v, id]) =>
      el("span", { class: "stat" }, el("span", { class: "stat-label", t: l }), el("b", { id, text: v }))));
    chart.set([{ label: t("w3.cm.legend.speedup"), data: s.speedups, x0: 0, color: "ours" },
      { label: t("w3.cm.legend.best", { g: s.best_gamma, x: t("w3.times", { x: fmt(s.best_speedup, 2) }) }), points: [{ x: s.best_gamma, y: s.best_speedup }], color: "big" },
      { label: t("w3.cm.legend.here"), points: [{ x: p.gamma, y: p.speedup }], color: "ink" }],
    [{ y: 1, label: t("w3.cm.legend.none"), color: "neutral" }]);
    peak.textContent = t("w3.cm.peak", { gamma: s.best_gamma, speedup: fmt(s.best_speedup, 2) }) +
      (s.best_at_end ? " " + t("w3.cm.peak_end") : "");
    peak.dataset.best = s.best_gamma;
  }
  const show = redrawOnLang(render); // the chart's axes and numbers too: charts.js
  // the live pair's "use these numbers" button: measured α and costs, at the γ they were measured at
  // note: {key, args}, the text saying where the numbers came from
  function importMeasured({ alpha, gamma, c_draft, c_verify, c_verify_slope = 0, note }) {
    for (const [f, v] of [["alpha", alpha], ["gamma", gamma], ["c_draft", c_draft], ["c_verify", c_verify],
      ["c_verify_slope", c_verify_slope]]) {
      const shown = f === "gamma" ? v : Number(v.toFixed(3));
      setNumber(inputs[f].r, shown);
      setNumber(inputs[f].n, shown);
      fieldError(inputs[f].n, "");
    }
    setText(origin, note.key, note.args);
    update();
  }
  return { update, importMeasured };
}
