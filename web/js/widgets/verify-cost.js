// What checking γ+1 positions costs on the reader's machine: the target reads γ+1 positions in one
// block pass (each weight read once for all of them) and, for comparison, as γ+1 single steps,
// for γ = 0..8, in units of one single step. Several short calls (each a batch over every γ), then
// medians and ranges (ch3_verify_summary), drawn beside the premise's flat line and the line γ+1.
import { call } from "../engine.js";
import { el, fmt, serial, whenSeen, setStatus } from "../ui.js";
import { lineChart } from "../charts.js";
import { announce } from "../ch3-events.js";

const BATCHES = 7;

export function mountVerifyCost(root) {
  const run = el("button", { id: "vc-run", class: "secondary", text: "Measure again" });
  const status = el("div", { class: "status", role: "status", id: "vc-status" });
  const canvas = el("canvas", { id: "vc-chart", height: 220, role: "img",
    "aria-label": "cost of verifying γ+1 positions against γ, in single steps" });
  const out = el("div", { class: "readout", id: "vc-out" });
  root.append(el("div", { class: "chart-box", style: { height: "280px" } }, canvas), out, el("div", { class: "controls" }, run), status);
  const chart = lineChart(canvas, { xTitle: "γ (drafts checked with one more position)", yTitle: "cost in single steps", yMin: 0 });
  const once = serial([run], status);
  const measure = () => once(async () => {
    const batches = [];
    for (let b = 0; b < BATCHES; b++) {
      setStatus(status, `Timing batch ${b + 1} of ${BATCHES}…`);
      // two short calls per batch (each well under the 2 s after which the Stop bar appears), merged
      const [lo, hi] = [await call("ch3_verify_cost", { batch: b, gammas: [0, 1, 2, 3, 4, 5] }),
        await call("ch3_verify_cost", { batch: b, gammas: [6, 7, 8] })];
      const merged = { t_step_ms: Math.min(lo.t_step_ms, hi.t_step_ms) };
      for (const f of ["gammas", "block", "steps", "block_ms", "steps_ms"]) merged[f] = [...lo[f], ...hi[f]];
      batches.push(merged);
    }
    const s = await call("ch3_verify_summary", { batches });
    setStatus(status, "");
    const rows = s.rows, pts = (f) => rows.map((r) => ({ x: r.gamma, y: r[f] }));
    // a batch that met other work can spike far above the rest: keep the scale on the medians
    // a batch that met other work can spike far above the rest: keep the scale on the steady figures
    if (chart.chart) chart.chart.options.scales.y.max = Math.ceil(Math.max(10, ...rows.map((r) => 1.3 * Math.max(r.block_best, r.steps_best))));
    chart.set([
      { label: "one block pass (fastest times)", points: pts("block_best"), color: "#2f6fb3", width: 2.5 },
      { label: "block: median of the batches", points: pts("block_med"), color: "#8fb3da", width: 1 },
      { label: "γ+1 single steps (fastest times)", points: pts("steps_best"), color: "#c0622a", width: 2 },
      { label: "premise: flat, 1 pass", points: rows.map((r) => ({ x: r.gamma, y: 1 })), color: "#2e7d4f", width: 1.5 },
      { label: "full price: γ+1", points: rows.map((r) => ({ x: r.gamma, y: r.gamma + 1 })), color: "#9aa3ad", width: 1 },
    ]);
    const at = (g) => rows.find((r) => r.gamma === g);
    out.replaceChildren(
      el("div", {}, `${s.batches} batches; each cost is the fastest time seen over them (other work on the machine only ` +
        `slows a timing down), in units of the fastest single step, ${fmt(s.t_step_ms, 3)} ms. Checking 5 positions (γ = 4) ` +
        `cost ${fmt(at(4).block_best, 2)} steps (batch medians ${fmt(at(4).block_med, 2)}, range ${fmt(at(4).block_lo, 2)}–` +
        `${fmt(at(4).block_hi, 2)}); 9 positions ${fmt(at(8).block_best, 2)} in one block, ${fmt(at(8).steps_best, 2)} as single steps.`),
      el("div", {}, `Slope: ${fmt(s.slope, 2)} steps per extra position (the premise says 0, full price 1). ` +
        (s.block_saving > 0 ? `The block pass saves ${(100 * s.block_saving).toFixed(0)}% against single steps at γ = 8.`
          : "The block pass saves nothing against single steps at γ = 8.")),
      el("div", {}, `A free draft that was always right could reach at most ${fmt(s.best, 2)}× here (at γ = ${s.best_gamma}).`));
    out.dataset.slope = s.slope.toFixed(3);
    announce({ kind: "verify", summary: s });
  });
  run.onclick = measure;
  whenSeen(root, measure);
  return {};
}
