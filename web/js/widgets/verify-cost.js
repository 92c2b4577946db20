// What checking γ+1 positions costs on the reader's machine: the target reads γ+1 positions in one
// block pass (each weight read once for all of them) and, for comparison, as γ+1 single steps,
// for γ = 0..8, in units of one single step. Several short calls (each a batch over every γ), then
// medians and ranges (ch3_verify_summary), drawn beside the premise's flat line and the line γ+1.
import { call } from "../engine.js";
import { el, fmt, serial, whenSeen, setStatus, statGrid, numbersDisclosure } from "../ui.js";
import { t, fixed, onLang } from "../i18n.js";
import { lineChart } from "../charts.js";
import * as store from "../store.js";
import { setLive } from "../live.js";
import { verdict } from "../live/words.js";

const BATCHES = 7;

// the drafts checked with one more position, 0 to 8: the chart's x axis
const GAMMAS = [0, 1, 2, 3, 4, 5, 6, 7, 8];

export function mountVerifyCost(root) {
  const run = el("button", { id: "vc-run", class: "secondary", t: "w3.vc.again" });
  const status = el("div", { class: "status", role: "status", id: "vc-status" });
  const canvas = el("canvas", { id: "vc-chart", height: 220, role: "img", "t-aria-label": "w3.vc.chart_aria" });
  const out = el("div", { class: "readout", id: "vc-out" });
  root.append(el("div", { class: "chart-box", style: { height: "280px" } }, canvas), out, el("div", { class: "controls" }, run), status);
  const chart = lineChart(canvas, { xTitle: () => t("w3.vc.x_title"), yTitle: () => t("w3.vc.y_title"), yMin: 0 });
  let last = null; // the latest summary, drawn again after a language switch
  // s: the measured summary, or null while it is timed: the two references it is read against
  // (the memory-bound premise, one step for any block; and one step per position) need no
  // measurement, so the chart shows them at once instead of empty axes
  // (colours: the references grey, the block pass ours in blue, the single steps it is measured
  // against a darker grey; orange is the large model's and green a kept token's, elsewhere)
  function render(s) {
    const references = [
      { label: t("w3.vc.legend.flat"), points: GAMMAS.map((g) => ({ x: g, y: 1 })), color: "neutral", width: 1.5 },
      { label: t("w3.vc.legend.full"), points: GAMMAS.map((g) => ({ x: g, y: g + 1 })), color: "neutral", width: 1 },
    ];
    if (!s) { chart.set(references); return; }
    const rows = s.rows, pts = (f) => rows.map((r) => ({ x: r.gamma, y: r[f] }));
    chart.set([
      { label: t("w3.vc.legend.block"), points: pts("block_best"), color: "ours", width: 2.5 },
      { label: t("w3.vc.legend.block_med"), points: pts("block_med"), color: "ours-soft", width: 1 },
      { label: t("w3.vc.legend.steps"), points: pts("steps_best"), color: "muted", width: 2 },
      ...references,
    ]);
    const at = (g) => rows.find((r) => r.gamma === g);
    const steps = (x) => t("w3.vc.stat.steps", { n: { num: x, text: fmt(x, 2), digits: 2 } });
    out.replaceChildren(
      statGrid("vc-stats", [
        ["w3.vc.stat.step", t("w2.unit.ms", { n: { num: s.t_step_ms, text: fmt(s.t_step_ms, 3) } })],
        ["w3.vc.stat.g4", steps(at(4).block_best), t("w3.vc.stat.range", { lo: fmt(at(4).block_lo, 2), hi: fmt(at(4).block_hi, 2) })],
        ["w3.vc.stat.g8", steps(at(8).block_best), t("w3.vc.stat.as_steps", { n: fmt(at(8).steps_best, 2) })],
        ["w3.vc.stat.slope", steps(s.slope)],
        ["w3.vc.stat.best", `${fmt(s.best, 2)}×`, t("w3.vc.stat.at", { gamma: s.best_gamma })]]),
      numbersDisclosure(out, "w3.vc.numbers", el("div", { text: t("w3.vc.summary", { batches: s.batches, step: fmt(s.t_step_ms, 3), g4: fmt(at(4).block_best, 2),
        g4_med: fmt(at(4).block_med, 2), g4_lo: fmt(at(4).block_lo, 2), g4_hi: fmt(at(4).block_hi, 2),
        g8: fmt(at(8).block_best, 2), g8_steps: fmt(at(8).steps_best, 2) }) }),
      el("div", { text: t("w3.vc.slope", { slope: fmt(s.slope, 2) }) + " " + (s.block_saving > 0
        ? t("w3.vc.saving", { pct: t("fmt.pct", { x: fixed(100 * s.block_saving, 0) }) }) : t("w3.vc.no_saving")) }),
      el("div", { text: t("w3.vc.best", { best: fmt(s.best, 2), gamma: s.best_gamma }) })));
  }
  onLang(() => { if (drawn) render(last); }); // the chart's axes and numbers: charts.js
  let drawn = false; // the chart gets its first data when the reader comes near (see measure)
  const once = serial([run], status);
  const measure = () => once(async () => {
    if (!drawn) { drawn = true; render(last); }
    const batches = [];
    for (let b = 0; b < BATCHES; b++) {
      setStatus(status, () => t("w3.vc.status", { i: b + 1, n: BATCHES }));
      // two short calls per batch (each well under the 2 s after which the Stop bar appears), merged
      const [lo, hi] = [await call("ch3_verify_cost", { batch: b, gammas: GAMMAS.slice(0, 6) }),
        await call("ch3_verify_cost", { batch: b, gammas: GAMMAS.slice(6) })];
      const merged = { t_step_ms: Math.min(lo.t_step_ms, hi.t_step_ms) };
      for (const f of ["gammas", "block", "steps", "block_ms", "steps_ms"]) merged[f] = [...lo[f], ...hi[f]];
      batches.push(merged);
    }
    const s = await call("ch3_verify_summary", { batches });
    setStatus(status, "");
    const rows = s.rows;
    // a batch that met other work can spike far above the rest: keep the scale on the steady figures
    const yMax = Math.ceil(Math.max(10, ...rows.map((r) => 1.3 * Math.max(r.block_best, r.steps_best))));
    chart.configure((c) => { c.options.scales.y.max = yMax; });
    last = s;
    render(s);
    out.dataset.slope = s.slope.toFixed(3);
    store.set("ch3.verify", s); // the live pair reads the slope
    const at = (g) => s.rows.find((x) => x.gamma === g) || {};
    setLive({ "ch3.vc-g4": at(4).block_best, "ch3.vc-g8": at(8).block_best, "ch3.vc-steps-g8": at(8).steps_best,
      "ch3.vc-slope": s.slope, "ch3.vc-block-saving-pct": verdict("blockSaving", "ch3.vc-block-saving-pct", s.block_saving > 0 ? "saves" : "none", {}, s.block_saving),
      "ch3.vc-best": s.best, "ch3.vc-best-gamma": s.best_gamma, "ch3.vc-batches": s.batches });
  });
  run.onclick = measure;
  whenSeen(root, measure);
  return {};
}
