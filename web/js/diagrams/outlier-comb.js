// Outliers (issue 43): one ordinary row's weights on a number line, over the comb of levels each
// scale scheme can store. With one scale per row the comb spans the row's own reach and is fine;
// with one scale for the matrix its step is set by the planted outlier, and the same weights fall
// onto a handful of teeth (or all onto zero). A line joins each weight to the level it is rounded
// to: its length is the rounding error. Drawing only; the numbers come from ch2_outliers.
import { t } from "../i18n.js";
import { fmt } from "../ui.js";
import { svg, fitLines } from "./svg.js";

const PAD = 14, STRIP = 84, LINE = 15;
const STYLE = { row: "ol-row", matrix: "ol-matrix" };
// pic: ch2_outliers' `picture` ({weights, rounded: {scheme: [...]}, steps: {scheme: s}, reach,
// outlier}); outlier: the planted value (it names the matrix's step)
export function drawOutlierComb(pic, outlier, width) {
  const W = Math.max(300, Math.round(width));
  const labels = ["row", "matrix"].map((scheme) => fitLines(t(`w2.ol.pic_${scheme}`,
    { step: fmt(pic.steps[scheme], 4), outlier: fmt(outlier, 1) }), W - 2 * PAD));
  const extra = labels.map((l) => (l.length - 1) * LINE); // each strip grows by its label's extra lines
  const H = 2 * STRIP + 24 + extra[0] + extra[1];
  const reach = pic.reach || 1;
  const x = (v) => PAD + ((v + reach) / (2 * reach)) * (W - 2 * PAD);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "diagram-svg outlier-comb", role: "img",
    "aria-label": t("w2.ol.pic_aria", { row: fmt(pic.steps.row, 4), matrix: fmt(pic.steps.matrix, 4) }) });
  ["row", "matrix"].forEach((scheme, i) => {
    const top = i * STRIP + (i ? extra[0] : 0), s = pic.steps[scheme];
    const g = svg("g", { class: `ol-strip ${STYLE[scheme]}`, "data-scheme": scheme, "data-step": s.toPrecision(6) });
    labels[i].forEach((line, j) => g.append(svg("text", { class: "dg-label", x: PAD, y: top + 14 + j * LINE, text: line })));
    const y0 = top + extra[i]; // the strip's drawing, under its label
    const axisY = y0 + 58;
    g.append(svg("line", { class: "ol-axis", x1: PAD, x2: W - PAD, y1: axisY, y2: axisY }));
    // the comb: every level k·s within the row's reach (255 teeth per row at 8 bits: a fine grey)
    const k = s > 0 ? Math.floor(reach / s + 1e-9) : 0;
    const teeth = [];
    for (let j = -k; j <= k; j++) teeth.push(`M${x(j * s).toFixed(2)},${axisY - 8}V${axisY + 6}`);
    g.append(svg("path", { class: "ol-comb", d: teeth.join("") }));
    if (k === 0) g.append(svg("text", { class: "dg-small", x: W - PAD, y: axisY + 20, "text-anchor": "end",
      text: t("w2.ol.pic_off", { step: fmt(s, 3) }) }));
    // each weight, the level it is rounded to, and the line between them (the lines one path under
    // the dots: the page carries this picture at first paint, and 96 line elements were a third of it)
    const rounded = pic.rounded[scheme], f1 = (v) => v.toFixed(1);
    g.append(svg("path", { class: "ol-err", d: pic.weights.map((w, n) => `M${f1(x(w))},${y0 + 28}L${f1(x(rounded[n]))},${axisY - 8}`).join("") }));
    pic.weights.forEach((w, n) => {
      g.append(svg("circle", { class: "ol-w", cx: x(w), cy: y0 + 26, r: 3 }),
        svg("circle", { class: "ol-land", cx: x(rounded[n]), cy: axisY - 8, r: 2.5 }));
    });
    root.append(g);
  });
  root.append(svg("text", { class: "dg-small", x: PAD, y: H - 4, text: fmt(-reach, 2) }),
    svg("text", { class: "dg-small", x: W / 2, y: H - 4, "text-anchor": "middle", text: "0" }),
    svg("text", { class: "dg-small", x: W - PAD, y: H - 4, "text-anchor": "end", text: fmt(reach, 2) }));
  return root;
}
