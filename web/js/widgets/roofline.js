// The roofline: attainable multiply-adds per second against arithmetic intensity (multiply-adds
// per byte of weights), for this machine (measured now: ch3_roofline) and for a datacenter GPU
// (its datasheet, hardware.js), with our model and a large model placed on them.
import { call } from "../engine.js";
import { el, fmt, serial, whenSeen, setStatus, statGrid, numbersDisclosure } from "../ui.js";
import { t, plain, onLang } from "../i18n.js";
import { lineChart } from "../charts.js";
import { setLive } from "../live.js";
import * as store from "../store.js";
import { verdict, side } from "../live/words.js";
import { H100_SXM, FLOP_PER_MAC } from "../hardware.js";

// intensities from 1/16 to 1024 multiply-adds per byte, log-spaced
const XS = Array.from({ length: 29 }, (_, i) => 2 ** (i / 2 - 4));
const roof = (gmacs, gbps) => XS.map((x) => ({ x, y: Math.min(gmacs, gbps * x) }));

export function mountRoofline(root) {
  const run = el("button", { id: "rf-run", class: "secondary", t: "w3.rf.again" });
  const status = el("div", { class: "status", role: "status", id: "rf-status" });
  const canvas = el("canvas", { id: "rf-chart", height: 320, role: "img", "t-aria-label": "w3.rf.chart_aria" });
  const out = el("div", { class: "readout", id: "rf-out" });
  root.append(el("div", { class: "chart-box", style: { height: "340px" } }, canvas), out, el("div", { class: "controls" }, run), status);
  const chart = lineChart(canvas, { logX: true, logY: true, xTitle: () => t("w3.rf.x_title"), yTitle: () => t("w3.rf.y_title") });
  chart.configure((c) => { // powers of ten on both log axes, nothing between
    const pow10 = (v) => (Number.isInteger(Math.log10(v)) ? plain(v) : "");
    c.options.scales.x.ticks = { callback: pow10, autoSkip: false, maxRotation: 0 };
    c.options.scales.y.ticks = { callback: pow10 };
  });
  let last = null; // the latest measurement, drawn again after a language switch
  // r: this machine's measurement, or null before it lands: the H100's roofline (its data sheet's,
  // no measurement needed) is drawn at once, so the chart never waits empty (design review item 7)
  function render(r) {
    const hg = H100_SXM.flops / FLOP_PER_MAC / 1e9, hb = H100_SXM.bytes_per_s / 1e9;
    const dot = (key, x, gm, gb, color) => ({ label: t(key), points: [{ x, y: Math.min(gm, gb * x) }], color });
    const h100 = [{ label: t("w3.rf.legend.h100"), points: roof(hg, hb), color: "big", width: 2 },
      dot("w3.rf.legend.big1", 0.5, hg, hb, "big"), dot("w3.rf.legend.big5", 2.5, hg, hb, "big")];
    // each ridge as a dashed line: left of it a pass waits on memory, right of it on arithmetic
    const ridges = [{ x: hg / hb, label: t("w3.rf.legend.ridge_h100"), color: "big" }];
    // and the memory-bound side of each machine shaded, named (left of its ridge a pass waits on
    // memory): the H100's reaches past both of its large model's dots, ours stops short of ours
    const bands = [{ from: null, to: hg / hb, label: t("w3.rf.band.h100"), color: "big" }];
    // head-room over the H100's flat roof, up to the next power of ten (it ran along the plot's
    // top edge, through its own label)
    chart.configure((c) => { c.options.scales.y.max = 10 ** Math.ceil(Math.log10(hg * 1.5)); });
    if (!r) { chart.set(h100, ridges, bands); return; }
    const g = r.macs.gmacs, bc = r.cache.gbps, bd = r.dram.gbps;
    chart.set([
      { label: t("w3.rf.legend.cache"), points: roof(g, bc), color: "ours", width: 2 },
      { label: t("w3.rf.legend.dram"), points: roof(g, bd), color: "ours-soft", width: 1.5 },
      ...h100,
      dot("w3.rf.legend.ours1", 1, g, bc, "ours"), dot("w3.rf.legend.ours5", 5, g, bc, "ours"),
      dot("w3.rf.legend.big8", 1, g, bd, "neutral"),
    ], [{ x: g / bc, label: t("w3.rf.legend.ridge_ours"), color: "ours" }, ...ridges],
    [{ from: null, to: g / bc, label: t("w3.rf.band.ours"), color: "ours" }, ...bands]);
    const gbps = (x) => t("w3.rf.stat.gbps", { x: fmt(x, 1) });
    out.replaceChildren(
      statGrid("rf-stats", [
        ["w3.rf.stat.cache", gbps(bc), t("w3.rf.stat.cache_note", { mb: fmt(r.cache.bytes / 1e6, 2) })],
        ["w3.rf.stat.dram", gbps(bd), t("w3.rf.stat.dram_note", { mib: fmt(r.dram.bytes / 2 ** 20, 0) })],
        ["w3.rf.stat.gmacs", fmt(g, 1), t("w3.rf.stat.gmacs_note")],
        ["w3.rf.stat.ridge_cache", fmt(g / bc, 2), t("w3.rf.stat.ridge_note")],
        ["w3.rf.stat.ridge_dram", fmt(g / bd, 2)],
        ["w3.rf.stat.ridge_h100", fmt(hg / hb, 0)]]),
      numbersDisclosure(out, "w3.rf.numbers", el("div", { text: t("w3.rf.measured", { mb: fmt(r.cache.bytes / 1e6, 2), cache: fmt(bc, 1), mib: fmt(r.dram.bytes / 2 ** 20, 0),
        dram: fmt(bd, 1), rows: String(r.macs.rows), cols: String(r.macs.cols), // a shape, written as code writes it
        gmacs: fmt(g, 1) }) }),
      el("div", { text: t("w3.rf.ridges", { cache: fmt(g / bc, 2), dram: fmt(g / bd, 2), h100: fmt(hg / hb, 0) }) })));
  }
  let drawn = false; // the chart gets its first data when the reader comes near (see measure)
  onLang(() => { if (drawn) render(last); }); // the chart's axes and numbers: charts.js
  const once = serial([run], status);
  const measure = () => once(async () => {
    if (!drawn) { drawn = true; render(last); } // the H100's roof while this machine is measured
    setStatus(status, () => t("w3.rf.status"));
    const r = await call("ch3_roofline");
    setStatus(status, "");
    last = r;
    render(r);
    out.dataset.ridge = (r.macs.gmacs / r.cache.gbps).toFixed(3);
    setLive(proseKeys(r));
    store.set("ch3.roofline", r); // the pass budget offers this machine
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

// the prose's figures from this machine's roofline: its bandwidths, its multiply-add rate, where
// the ridge falls and what that means for our kernel (1 multiply-add per byte of int8 weights)
function proseKeys(r) {
  const cache = r.cache.gbps, dram = r.dram.gbps, g = r.macs.gmacs;
  return { "ch3.rf-gbps-cache": cache, "ch3.rf-gbps-dram": dram, "ch3.rf-gmacs": g, "ch3.rf-ridge": g / cache,
    "ch3.rf-ridge-dram": g / dram, "ch3.rf-our-regime": verdict("ourSide", "ch3.rf-our-regime", side(g / cache)),
    "ch3.rf-sides": verdict("ourSide", "ch3.rf-sides", side(g / cache)),
    "ch3.rf-dram-regime": verdict("dramSide", "ch3.rf-dram-regime", side(g / dram)),
    "ch3.our-math-us": r.macs_per_token / (g * 1e9) * 1e6, "ch3.our-read-us": r.weights_bytes / (cache * 1e9) * 1e6 };
}

