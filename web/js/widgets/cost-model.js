// The speculative cost model: sliders and presets -> ch3_model (Python) -> formula, figures, speedup curve.
import { call } from "../engine.js";
import { el, fmt, tex, sliderRow, readNumber, setStatus, showError, fieldError } from "../ui.js";
import { lineChart } from "../charts.js";
import { announce } from "../ch3-events.js";

// Illustrative settings, no real models behind them.
export const PRESETS = [
  ["balanced pair", 0.8, 4, 0.10, 1.0],
  ["draft nearly free", 0.8, 8, 0.005, 1.0],
  ["draft as expensive as the target", 0.8, 4, 1.0, 1.0],
  ["poor draft", 0.35, 3, 0.10, 1.0],
  ["excellent draft", 0.95, 10, 0.05, 1.0],
  ["costly verification", 0.8, 4, 0.10, 2.0],
  ["cheap batched verification", 0.7, 6, 0.08, 0.6],
];
// the verify cost goes to 10: measured on a CPU it is about γ+1 passes (the live pair's hand-off)
const SLIDERS = [["gamma", "γ (draft tokens)", 0, 32, 1], ["alpha", "α (acceptance)", 0, 1, 0.01],
  ["c_draft", "draft cost", 0, 1, 0.005], ["c_verify", "verify cost", 0.05, 10, 0.05],
  ["c_verify_slope", "verify cost per extra position", 0, 2, 0.05]];
// the widget's starting point; chapter 3's prose quotes its numbers through ch3_prose
export const DEFAULTS = { gamma: 4, alpha: 0.8, c_draft: 0.1, c_verify: 1.0 };

export function mountCostModel(root) {
  const inputs = {};
  const grid = el("div", { class: "slider-grid" });
  // the memory-bound idealisation: verification costs the same whatever γ (no slope)
  const defaults = { ...DEFAULTS, c_verify_slope: 0 };
  for (const [f, label, min, max, step] of SLIDERS) {
    const row = sliderRow({ id: `cm-${f}`, label, min, max, step, value: defaults[f], onChange: () => update() });
    inputs[f] = { r: row.slider, n: row.num };
    grid.append(row.row);
  }
  const presets = el("div", { class: "controls" }, "Presets: ", PRESETS.map(([name, a, g, cd, cv], i) =>
    el("button", { class: "secondary", id: `cm-preset-${i}`, text: name, onclick: () => {
      for (const [f, v] of [["alpha", a], ["gamma", g], ["c_draft", cd], ["c_verify", cv], ["c_verify_slope", 0]]) { inputs[f].r.value = v; inputs[f].n.value = v; }
      origin.textContent = "";
      update();
    } })));
  // says where the numbers came from when the live pair put them here
  const origin = el("div", { class: "hint", id: "cm-origin", role: "status" });
  const formula = el("div", { class: "formula", id: "cm-formula" });
  const figures = el("div", { class: "readout stats-row", id: "cm-figures" });
  const canvas = el("canvas", { id: "cm-curve", height: 200, role: "img", "aria-label": "speedup against γ" });
  const peak = el("div", { class: "readout", id: "cm-peak" });
  const status = el("div", { class: "status", role: "status" });
  root.append(presets, origin, grid, formula, figures, el("div", { class: "chart-box" }, canvas), peak, status);
  const chart = lineChart(canvas, { xTitle: "γ", yTitle: "speedup ×", yMin: 0 });

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
      const p = r.point, s = r.sweep;
      tex(formula, `E=\\sum_{i=0}^{${p.gamma}}${fmt(p.alpha, 2)}^i=${fmt(p.E_sum, 3)}` +
        (p.alpha < 1 && p.gamma > 0 ? `\\quad\\frac{1-${fmt(p.alpha, 2)}^{${p.gamma + 1}}}{1-${fmt(p.alpha, 2)}}=${fmt(p.E, 3)}` : `\\quad(\\text{closed form: }${fmt(p.E, 3)})`), true);
      figures.replaceChildren(...[["tokens per round", fmt(p.E, 3), "cm-E"], ["cost per round", fmt(p.cost, 2), "cm-cost"],
        ["speedup", fmt(p.speedup, 2) + "×", "cm-speedup"], ["target passes per token", fmt(p.target_passes_per_token, 3), "cm-tpt"],
        ["share of the ceiling γ+1", (100 * p.ceiling_share).toFixed(1) + "%", "cm-ceiling"],
        // E·(1 − α) = 1 − α^(γ+1): the share of the other ceiling, 1/(1 − α), which no γ passes
        ["share of the ceiling 1/(1−α)", p.alpha < 1 ? (100 * (1 - p.alpha ** (p.gamma + 1))).toFixed(1) + "%" : "no ceiling", "cm-ceiling-inf"]].map(([l, v, id]) =>
        el("span", { class: "stat" }, el("span", { class: "stat-label", text: l }), el("b", { id, text: v }))));
      chart.set([{ label: "speedup", data: s.speedups, x0: 0, color: "#2f6fb3" },
        { label: "best γ", points: [{ x: s.best_gamma, y: s.best_speedup }], color: "#c0622a" },
        { label: "you are here", points: [{ x: p.gamma, y: p.speedup }], color: "#2e7d4f" }], [{ y: 1, label: "no speedup", color: "#9aa3ad" }]);
      peak.textContent = `Best γ in 0–32: ${s.best_gamma}, speedup ${fmt(s.best_speedup, 2)}×.` +
        (s.best_at_end ? " The best sits at the end of the sweep, so the true peak may lie further out." : "");
      peak.dataset.best = s.best_gamma;
      setStatus(status, "");
      announce({ kind: "model", alpha: p.alpha, gamma: p.gamma, c_draft: p.c_draft, c_verify: p.c_verify });
    } catch (e) {
      showError(e, Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.n])), status);
    } finally {
      busy = false;
      if (again) { again = false; update(); }
    }
  }
  // the live pair's "use these numbers" button: measured α and costs, at the γ they were measured at
  function importMeasured({ alpha, gamma, c_draft, c_verify, c_verify_slope = 0, note }) {
    for (const [f, v] of [["alpha", alpha], ["gamma", gamma], ["c_draft", c_draft], ["c_verify", c_verify],
      ["c_verify_slope", c_verify_slope]]) {
      const shown = f === "gamma" ? String(v) : String(Number(v.toFixed(3)));
      inputs[f].r.value = shown;
      inputs[f].n.value = shown;
      fieldError(inputs[f].n, "");
    }
    origin.textContent = note;
    update();
  }
  return { update, importMeasured };
}
