// Bit depth (issue 43): the held-out loss each depth and scale scheme adds over the float model,
// one line per scheme from 8 bits down to 2 (the export measured them; log scale: the loss grows
// by orders of magnitude), each line named at its end; the reader's own runs ringed on their line.
// Dashed rules at the page's thresholds (heldout.py): where the story loses the thread, where the
// model collapses. Drawing only.
import { t, fixed, precision } from "../i18n.js";
import { svg, textWidth, FONTS } from "./svg.js";

const L = 56, T = 28, B = 38, FLOOR = 1e-4, LEGEND_ROW = 17;
// under this width the names go under the plot, one row each (on a phone the names' column on
// the right left the plot a third of the width, and a Vietnamese name was cut off at the edge)
const NARROW = 520;
// the line style of each scheme: the shipped one (per row) in our colour, the others muted
const STYLE = { row: "bl-row", matrix: "bl-matrix", group32: "bl-group" };

// delta: {scheme: {bits: nats over float}}; runs: [{bits, scheme}] the reader ran; rules: {thread, collapse}
export function drawBitsLoss(delta, runs, width, rules) {
  const W = Math.max(300, width), schemes = Object.keys(delta), narrow = W < NARROW;
  const PH = 260, H = narrow ? PH + 8 + schemes.length * LEGEND_ROW : PH; // the plot's height, the picture's
  // room on the right for the names and their dash strokes (21 px), from the longest name in this
  // language as drawn (a Vietnamese name ran past the picture's edge)
  const longest = Math.max(...schemes.map((s) => textWidth(t(`w2.scheme.${s}`), FONTS.small)));
  const R = narrow ? 14 : Math.min(Math.round(W * 0.4), 12 + Math.ceil(longest + 21));
  const all = schemes.flatMap((s) => Object.values(delta[s]));
  const top = 10 ** Math.ceil(Math.log10(Math.max(...all, rules.collapse, FLOOR * 10)));
  // the bottom a quarter of a decade under the smallest loss (a loss at or under zero sits on the
  // axis): the 8-bit point, ringed when the reader runs it, stays clear of the axis and its label
  const smallest = Math.max(FLOOR, Math.min(...all.filter((v) => v > 0), rules.thread));
  const lo = Math.log10(smallest) - 0.25, hi = Math.log10(top);
  const x = (b) => L + ((8 - b) / 6) * (W - L - R);
  const y = (v) => T + (1 - (Math.max(Math.log10(Math.max(v, FLOOR)), lo) - lo) / (hi - lo)) * (PH - T - B);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "diagram-svg bits-loss", role: "img", width: W, height: H,
    "aria-label": t("w2.bd.pic_aria") });
  // axes: bits along the bottom, decades up the side
  for (let b = 8; b >= 2; b--) {
    root.append(svg("line", { class: "bl-grid", x1: x(b), x2: x(b), y1: T, y2: PH - B }),
      svg("text", { class: "dg-small", x: x(b), y: PH - B + 16, "text-anchor": "middle", text: fixed(b, 0) }));
  }
  for (let e = Math.ceil(lo); e <= hi; e++) {
    root.append(svg("line", { class: "bl-grid", x1: L, x2: W - R, y1: y(10 ** e), y2: y(10 ** e) }),
      svg("text", { class: "dg-small", x: L - 6, y: y(10 ** e) + 4, "text-anchor": "end", text: precision(10 ** e, 1) }));
  }
  root.append(svg("text", { class: "dg-small", x: L + (W - L - R) / 2, y: PH - 4, "text-anchor": "middle", text: t("w2.bd.pic_x") }),
    svg("text", { class: "dg-small", x: 4, y: 12, text: t("w2.bd.pic_y") }));
  // the labels at the right edge (the rules' and the lines'), pushed apart where they meet
  const names = [];
  for (const [key, v] of [["w2.bd.pic_thread", rules.thread], ["w2.bd.pic_collapse", rules.collapse]]) {
    root.append(svg("line", { class: "bl-rule", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    // on its rule, at the plot's left where the lines run low (at the right edge the lines' names,
    // pushed apart, pushed it off its rule and onto a line's name)
    root.append(svg("text", { class: "dg-small bl-rule-name", x: L + 4, y: y(v) - 4, text: t(key) }));
  }
  // one line per scheme, named at its lowest depth
  for (const s of schemes) {
    const pts = Object.entries(delta[s]).map(([b, v]) => [Number(b), v]).sort((a, b) => b[0] - a[0]);
    root.append(svg("path", { class: `bl-line ${STYLE[s] || ""}`, "data-scheme": s,
      d: pts.map(([b, v], i) => `${i ? "L" : "M"}${x(b).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }));
    for (const [b, v] of pts) root.append(svg("circle", { class: `bl-dot ${STYLE[s] || ""}`, cx: x(b), cy: y(v), r: 2.5 },
      svg("title", { text: t("w2.bd.pic_point", { bits: b, scheme: t(`w2.scheme.${s}`), d: precision(v, 2) }) })));
    const [b, v] = pts[pts.length - 1];
    names.push({ cls: `dg-small bl-name ${STYLE[s] || ""}`, x: narrow ? L : x(b) + 6, y: narrow ? 0 : y(v) + 4,
      text: t(`w2.scheme.${s}`), swatch: STYLE[s] });
  }
  if (narrow) names.forEach((n, i) => { n.y = PH + 8 + (i + 1) * LEGEND_ROW - 5; }); // a legend under the plot
  else {
    names.sort((a, b) => a.y - b.y);
    names.forEach((n, i) => { if (i && n.y < names[i - 1].y + 14) n.y = names[i - 1].y + 14; });
  }
  // a line's name starts with a stroke of its dash (the three names stack where the lines end
  // close together, and the colour alone does not tell the two muted ones apart)
  for (const n of names) {
    if (n.swatch) root.append(svg("line", { class: `bl-swatch ${n.swatch}`, x1: n.x, x2: n.x + 16, y1: n.y - 4, y2: n.y - 4 }));
    root.append(svg("text", { class: n.cls, x: n.swatch ? n.x + 20 : n.x, y: n.y, text: n.text }));
  }
  // the reader's runs: a ring where each sits
  for (const r of runs) {
    const v = delta[r.scheme] && delta[r.scheme][String(r.bits)];
    if (v == null) continue;
    root.append(svg("circle", { class: "bl-run", cx: x(r.bits), cy: y(v), r: 7, "data-run": `${r.bits}:${r.scheme}` }));
  }
  return root;
}
