// A log-log line plot on a bare canvas, for the sampler panel's "probability by rank" curve.
//
// Why not Chart.js here, as everywhere else on the page: the panel must redraw within one
// animation frame (16.7 ms) of a slider move, and Chart.js's update() re-fits scales, ticks and
// legend on every call: 6-13 ms per update in headless Chromium on our 2-core test machine
// (its draw() alone is 0.5 ms), with the worker's answer and the bars still to come. This plot
// has fixed decade axes and at most a few hundred points, so drawing it directly costs well
// under a millisecond.
import { fixed, t } from "./i18n.js";
import { colour, onTheme } from "./theme.js";

const DASH = [5, 4];

// xTitle, yTitle: text keys (drawn in the page's language at every draw; the caller draws again
// after a language switch, with its series' labels in the new language)
export function rankPlot(canvas, { xTitle = "", yTitle = "" } = {}) {
  const ctx = canvas.getContext("2d");
  let last = null;

  function decades(lo, hi) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(e);
    return out;
  }

  // series: [{points: [{x, y}], color, width, label}], lines: [{x} | {y}, label]
  function draw(series, lines = []) {
    last = [series, lines];
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth || 600, h = canvas.clientHeight || 200;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const pts = series.flatMap((s) => s.points).filter((p) => p.y > 0 && p.x > 0);
    if (!pts.length) return;
    const xHi = Math.max(...pts.map((p) => p.x)), yLo = Math.max(1e-15, Math.min(...pts.map((p) => p.y)));
    // x runs from rank 1 to the last rank exactly; y from the decade below the smallest value to 1
    const xe = decades(1, Math.max(10, xHi)).filter((e) => 10 ** e <= xHi), ye = decades(yLo, 1);
    const [x0, x1, y0, y1] = [0, Math.log10(Math.max(10, xHi)), ye[0], Math.max(ye[ye.length - 1], ye[0] + 1)];
    const L = 52, R = 14, T = 22, B = 34;
    const px = (x) => L + ((Math.log10(x) - x0) / (x1 - x0)) * (w - L - R);
    const py = (y) => T + (1 - (Math.log10(y) - y0) / (y1 - y0)) * (h - T - B);

    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    ctx.strokeStyle = colour("line");
    ctx.fillStyle = colour("muted");
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (const e of xe) {  // vertical grid and x labels
      const x = px(10 ** e);
      ctx.beginPath(); ctx.moveTo(x, T); ctx.lineTo(x, h - B); ctx.stroke();
      ctx.fillText(fixed(10 ** e, 0), x, h - B + 4);
    }
    // the last rank too (the vocabulary size), where it clears the last decade's label (a phone's
    // plot put "1,000" and "4,096" on top of each other)
    const lastText = fixed(Math.round(10 ** x1), 0), decadeText = fixed(10 ** xe[xe.length - 1], 0);
    const gap = (w - R) - px(10 ** xe[xe.length - 1]);
    if (gap > ctx.measureText(lastText).width + ctx.measureText(decadeText).width / 2 + 6) {
      ctx.textAlign = "right";
      ctx.fillText(lastText, w - R, h - B + 4);
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const step = Math.max(1, Math.ceil((y1 - y0) / 6));  // at most ~6 labels on the y axis
    for (let e = y0; e <= y1; e++) {
      const y = py(10 ** e);
      ctx.beginPath(); ctx.moveTo(L, y); ctx.lineTo(w - R, y); ctx.stroke();
      if ((y1 - e) % step === 0) ctx.fillText(e === 0 ? "1" : `1e${e}`, L - 4, y);
    }
    ctx.textAlign = "center";
    ctx.textBaseline = "bottom";
    if (xTitle) ctx.fillText(t(xTitle), L + (w - L - R) / 2, h);
    if (yTitle) {
      ctx.save(); ctx.translate(11, T + (h - T - B) / 2); ctx.rotate(-Math.PI / 2);
      ctx.textBaseline = "middle"; ctx.fillText(t(yTitle), 0, 0); ctx.restore();
    }

    ctx.save();
    ctx.beginPath(); ctx.rect(L, T - 1, w - L - R, h - T - B + 2); ctx.clip();
    for (const s of series) {
      const ps = s.points.filter((p) => p.y > 0 && p.x > 0);
      if (!ps.length) continue;
      ctx.strokeStyle = colour(s.color);
      ctx.fillStyle = colour(s.color);
      ctx.lineWidth = s.width || 1.5;
      ctx.beginPath();
      ps.forEach((p, i) => (i ? ctx.lineTo(px(p.x), py(p.y)) : ctx.moveTo(px(p.x), py(p.y))));
      ctx.stroke();
      if (ps.length < 3) for (const p of ps) { ctx.beginPath(); ctx.arc(px(p.x), py(p.y), 3, 0, 2 * Math.PI); ctx.fill(); }
    }
    ctx.setLineDash(DASH);
    ctx.lineWidth = 1.5;
    for (const l of lines) {
      ctx.strokeStyle = colour(l.color || "big");
      ctx.beginPath();
      if (l.y != null) { ctx.moveTo(L, py(l.y)); ctx.lineTo(w - R, py(l.y)); }
      else { ctx.moveTo(px(l.x), T); ctx.lineTo(px(l.x), h - B); }
      ctx.stroke();
    }
    ctx.restore();

    // labels on what they name (design review item 8: no legend to match swatches against, and
    // a legend's one row ran off a phone's plot): a series at its last point, or at the middle
    // of a long curve; a reference line at its end. A label that would overlap one placed
    // before it moves down a line; every label stays inside the plot.
    ctx.setLineDash([]);
    ctx.textBaseline = "middle";
    const placed = [];
    const put = (label, color, ax, ay, align) => {
      const tw = ctx.measureText(label).width, lh = 14;
      let x = align === "right" ? ax - tw : ax;
      x = Math.max(L + 2, Math.min(x, w - R - tw - 2));
      let y = Math.max(T + lh / 2, Math.min(ay, h - B - lh / 2));
      for (let i = 0; i < 8 && placed.some((b) => x < b.x + b.w && b.x < x + tw && Math.abs(b.y - y) < lh); i++) {
        y = y + lh > h - B - lh / 2 ? y - lh * (i + 1) : y + lh;
      }
      placed.push({ x, y, w: tw });
      // a halo of the ground around the letters, as charts.js draws its labels: legible over the
      // grid, hiding no more of a line than the letters' outline
      ctx.save(); // the halo's stroke settings stay with the label, not the curves drawn next
      ctx.strokeStyle = colour("surface");
      ctx.lineWidth = 4;
      ctx.lineJoin = "round";
      ctx.fillStyle = colour(color);
      ctx.textAlign = "left";
      ctx.strokeText(label, x, y);
      ctx.fillText(label, x, y);
      ctx.restore();
    };
    for (const s of series) {
      const ps = s.points.filter((p) => p.y > 0 && p.x > 0);
      if (!ps.length || !s.label) continue;
      // a curve of many points is named at 40% of its ranks, above the line; a short one after its last point
      const at = ps.length > 20 ? ps[Math.floor(ps.length * 0.4)] : ps[ps.length - 1];
      if (ps.length > 20) put(s.label, s.color === "neutral" ? "muted" : s.color, px(at.x), py(at.y) - 12, "left");
      else put(s.label, s.color, px(at.x) + 8, py(at.y) - 10, "left");
    }
    for (const l of lines) {
      if (l.y != null) put(l.label, l.color || "big", w - R - 2, py(l.y) - 9, "right");
      else put(l.label, l.color || "big", px(l.x) + 5, T + 8, "left");
    }
    // where the labels went (x, y of their middle, width, height; css px), for the test that none collide
    canvas.dataset.labels = JSON.stringify(placed.map((b) => [Math.round(b.x), Math.round(b.y), Math.round(b.w), 14]));
    ctx.setLineDash([]);
  }

  // redraw at the new size when the box changes width (window resize), not on every update
  if (window.ResizeObserver) new ResizeObserver(() => last && draw(...last)).observe(canvas);
  onTheme(() => last && draw(...last));
  return { set: draw };
}
