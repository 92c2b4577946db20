// The roofline: attainable multiply-adds per second against arithmetic intensity (multiply-adds
// per byte of weights), for this machine (measured now: ch3_roofline) and for a datacenter GPU
// (its datasheet, hardware.js), with our model and a large model placed on them.
import { call } from "../engine.js";
import { el, fmt, serial, whenSeen, setStatus } from "../ui.js";
import { lineChart } from "../charts.js";
import { announce } from "../ch3-events.js";
import { H100_SXM, FLOP_PER_MAC } from "../hardware.js";

// intensities from 1/16 to 1024 multiply-adds per byte, log-spaced
const XS = Array.from({ length: 29 }, (_, i) => 2 ** (i / 2 - 4));
const roof = (gmacs, gbps) => XS.map((x) => ({ x, y: Math.min(gmacs, gbps * x) }));

export function mountRoofline(root) {
  const run = el("button", { id: "rf-run", class: "secondary", text: "Measure again" });
  const status = el("div", { class: "status", role: "status", id: "rf-status" });
  const canvas = el("canvas", { id: "rf-chart", height: 320, role: "img",
    "aria-label": "roofline: attainable multiply-adds per second against multiply-adds per byte, two machines" });
  const out = el("div", { class: "readout", id: "rf-out" });
  root.append(el("div", { class: "chart-box", style: { height: "340px" } }, canvas), out, el("div", { class: "controls" }, run), status);
  const chart = lineChart(canvas, { logX: true, logY: true, xTitle: "multiply-adds per byte of weights",
    yTitle: "billion multiply-adds per second" });
  if (chart.chart) { // powers of ten on both log axes, nothing between
    const pow10 = (v) => (Number.isInteger(Math.log10(v)) ? String(v >= 1 ? v : v.toPrecision(1)) : "");
    chart.chart.options.scales.x.ticks = { callback: pow10, autoSkip: false, maxRotation: 0 };
    chart.chart.options.scales.y.ticks = { callback: (v) => (Number.isInteger(Math.log10(v)) ? v.toLocaleString("en") : "") };
  }
  const once = serial([run], status);
  const measure = () => once(async () => {
    setStatus(status, "Measuring memory bandwidth and multiply-add rate…");
    const r = await call("ch3_roofline");
    setStatus(status, "");
    const g = r.macs.gmacs, bc = r.cache.gbps, bd = r.dram.gbps;
    const hg = H100_SXM.flops / FLOP_PER_MAC / 1e9, hb = H100_SXM.bytes_per_s / 1e9;
    const dot = (label, x, gm, gb, color) => ({ label, points: [{ x, y: Math.min(gm, gb * x) }], color });
    chart.set([
      { label: "this machine, weights in cache", points: roof(g, bc), color: "#2f6fb3", width: 2 },
      { label: "this machine, main memory", points: roof(g, bd), color: "#8fb3da", width: 1.5 },
      { label: "H100 SXM (datasheet)", points: roof(hg, hb), color: "#c0622a", width: 2 },
      dot("our model, 1 position", 1, g, bc, "#1d4f85"), dot("our model, 5 positions", 5, g, bc, "#1d4f85"),
      dot("large 16-bit model on the H100, 1 position", 0.5, hg, hb, "#8a3d12"),
      dot("… 5 positions", 2.5, hg, hb, "#8a3d12"),
      dot("large 8-bit model on this CPU", 1, g, bd, "#5b6470"),
    ]);
    out.replaceChildren(
      el("div", {}, `Reading a buffer the size of our weights (${fmt(r.cache.bytes / 1e6, 2)} MB): ${fmt(bc, 1)} GB/s. ` +
        `A ${fmt(r.dram.bytes / 2 ** 20, 0)} MiB buffer: ${fmt(bd, 1)} GB/s. The kernel's 8-bit product ` +
        `(${r.macs.rows} × ${r.macs.cols}): ${fmt(g, 1)} billion multiply-adds per second.`),
      el("div", {}, `Ridge, weights in cache: ${fmt(g / bc, 2)} multiply-adds per byte; main memory: ${fmt(g / bd, 2)}; ` +
        `H100: ${fmt(hg / hb, 0)}.`));
    out.dataset.ridge = (g / bc).toFixed(3);
    announce({ kind: "roofline", result: r });
  });
  run.onclick = measure;
  // measured as soon as the chapter's first widget (the pass budget, which offers this machine) or
  // this one is seen, whichever comes first (a reader may arrive here by a link)
  let measured = false;
  const first = () => { if (!measured) { measured = true; measure(); } };
  const budget = document.getElementById("pass-budget");
  if (budget) whenSeen(budget, first);
  whenSeen(root, first);
  return {};
}
