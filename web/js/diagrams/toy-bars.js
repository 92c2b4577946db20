// The toy sampler (issue 43): eight made-up words as bars, the probability after the temperature
// outlined, what the filters leave filled, a dashed line where each filter cuts (in the order the
// sampler applies them), and below, the seeded draws piling up one dot each under their word.
// Dots drawn since the last picture fall in (CSS; none under reduced motion). Drawing only: the
// numbers come from ch1_toy.
import { t } from "../i18n.js";
import { fmtPct } from "../live/formats.js";
import { svg } from "./svg.js";

const TOP = 26, BARS = 150, GAP = 26, DOT = 9, PAD = 8, PER_ROW = 6;

// words: the labels; r: ch1_toy's result; fresh: how many of r.draws are new since the last picture
export function drawToyBars(words, r, width, fresh = 0) {
  const W = Math.max(300, Math.round(width)), n = words.length;
  const col = (W - 2 * PAD) / n, perRow = Math.max(3, Math.min(PER_ROW, Math.floor((col - 6) / DOT)));
  const counts = new Array(n).fill(0);
  for (const d of r.draws) counts[d] += 1;
  const pileRows = Math.max(1, ...counts.map((c) => Math.ceil(c / perRow)));
  const floor = TOP + BARS + GAP + pileRows * DOT + 4, H = floor + 34;
  const top = Math.max(...r.p, ...r.q, 1e-9);
  const h = (v) => (v / top) * BARS;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "diagram-svg toy-bars", role: "img",
    "data-draws": r.draws.length, "data-left": r.survivors,
    "aria-label": t("w1.toy.pic_aria", { n: r.draws.length, left: r.survivors, words: n }) });
  const base = TOP + BARS;
  root.append(svg("line", { class: "tb-axis", x1: PAD, x2: W - PAD, y1: base, y2: base }));
  words.forEach((w, i) => {
    const x = PAD + i * col + col * 0.18, bw = col * 0.64, kept = r.kept[i];
    const g = svg("g", { class: `tb-word${kept ? "" : " tb-cut"}`, "data-i": i, "data-q": r.q[i].toFixed(6) });
    g.append(svg("title", { text: t("w1.toy.bar_title", { p: fmtPct(r.p[i]), q: fmtPct(r.q[i]) }) }));
    if (kept) g.append(svg("rect", { class: "tb-q", x, y: base - h(r.q[i]), width: bw, height: h(r.q[i]) }));
    g.append(svg("rect", { class: "tb-p", x, y: base - h(r.p[i]), width: bw, height: Math.max(0.5, h(r.p[i])) }),
      svg("text", { class: "dg-small tb-val", x: x + bw / 2, y: base - Math.max(h(r.p[i]), h(r.q[i])) - 5, "text-anchor": "middle",
        text: kept ? fmtPct(r.q[i]) : "0" }),
      svg("text", { class: `${col < 60 ? "dg-small" : "dg-label"} tb-name`, x: x + bw / 2, y: base + 16, "text-anchor": "middle", translate: "no", lang: "en", text: w }));
    root.append(g);
  });
  // where each filter cuts: after the words it leaves (they fall in rank order here)
  const seen = {};
  for (const c of r.cuts) {
    if (c.left >= n) continue;
    const x = PAD + c.left * col, k = (seen[c.left] = (seen[c.left] || 0) + 1);
    root.append(svg("line", { class: "tb-cutline", "data-rule": c.rule, x1: x, x2: x, y1: TOP - 10 + 13 * (k - 1), y2: base + 4 }),
      svg("text", { class: "dg-small tb-cutname", x: x + 4, y: TOP - 14 + 13 * k, text: t(`fig.pipe.stage.${c.rule}`) }));
  }
  // the draws: a dot each, piled under its word from the floor up, the newest falling in
  const pile = new Array(n).fill(0);
  r.draws.forEach((d, j) => {
    const k = pile[d]++, cx = PAD + d * col + (col - perRow * DOT) / 2 + (k % perRow) * DOT + DOT / 2;
    const cy = floor - Math.floor(k / perRow) * DOT - DOT / 2;
    root.append(svg("circle", { class: `tb-dot${j >= r.draws.length - fresh ? " tb-new" : ""}`, cx, cy, r: DOT / 2 - 0.6 }));
  });
  root.append(svg("line", { class: "tb-axis", x1: PAD, x2: W - PAD, y1: floor, y2: floor }));
  counts.forEach((c, i) => root.append(svg("text", { class: "dg-small", x: PAD + (i + 0.5) * col, y: floor + 14, "text-anchor": "middle",
    text: String(c) })));
  root.append(svg("text", { class: "dg-small", x: PAD, y: floor + 30, text: t("w1.toy.drawn", { n: r.draws.length }) }));
  return root;
}
