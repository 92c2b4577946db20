// The exact speculative sampling rule, one column per token (issue 43): the draft's q filled, the
// target's p as an outline; of q, the part up to min(p, q) is kept (accept colour) and the part
// above p refused (hatched red); above min(p, q), up to p, the share the residual adds back
// (hatched, the target's colour). What comes out, kept + residual, fills p's outline exactly.
// A column is a slider for its q (drag it, or arrow keys once focused): the other q's shrink or
// grow in proportion, so q stays a distribution, and the widget computes the rule again.
// Drawing only: no engine here (the build can draw the first frame too).
import { t, fixed } from "../i18n.js";
import { svg } from "./svg.js";

const H = 200, TOP = 14, BOTTOM = 40, LEFT = 30;
// a column and the gap after it: at least the phone's 72 + 30, at most 150 + 60 (the columns
// spread over the card's width: four used 400 of a desktop's 1,040 px, design N11)
const MIN_COL = 72, MAX_COL = 150, GAP_SHARE = 0.3;

// r: ch3_sampling's result; names: a label per token; focusable: the columns take the keyboard;
// width: the room it has
export function drawSamplingRule(r, names, focusable = true, width = 0) {
  const n = r.p.length, top = Math.max(...r.p, ...r.q, 1e-9);
  const per = Math.max(MIN_COL / (1 - GAP_SHARE), Math.min(MAX_COL / (1 - GAP_SHARE), (width - LEFT) / n));
  const COL = Math.round(per * (1 - GAP_SHARE)), GAP = Math.round(per * GAP_SHARE);
  const W = LEFT + n * (COL + GAP), y = (v) => TOP + H * (1 - v / top), h = (v) => (H * v) / top;
  const root = svg("svg", { viewBox: `0 0 ${W} ${TOP + H + BOTTOM}`, class: "diagram-svg sr-bars", role: "group",
    "aria-label": t("w3.sr.pic_aria", { alpha: fixed(r.alpha, 2) }), width: W, height: TOP + H + BOTTOM });
  root.append(svg("defs", {},
    svg("pattern", { id: "sr-hatch-out", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      svg("rect", { width: 6, height: 6, class: "sr-hatch-bg-out" }), svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "sr-hatch-out" })),
    svg("pattern", { id: "sr-hatch-res", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(-45)" },
      svg("rect", { width: 6, height: 6, class: "sr-hatch-bg-res" }), svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "sr-hatch-res" }))));
  root.append(svg("line", { class: "sr-axis", x1: LEFT - 6, x2: W, y1: y(0), y2: y(0) }));
  for (let i = 0; i < n; i++) {
    const x = LEFT + i * (COL + GAP), p = r.p[i], q = r.q[i], m = r.min[i];
    const added = r.output[i] - m; // what the residual adds back: p - min where p > q
    const col = svg("g", { class: "sr-col", "data-i": i, role: "slider", tabindex: focusable ? 0 : -1,
      "aria-label": t("w3.sr.col_aria", { token: names[i] }), "aria-valuemin": 0, "aria-valuemax": 1, "aria-valuenow": q,
      "aria-valuetext": t("w3.sr.col_value", { q: fixed(q, 2), p: fixed(p, 2), keep: fixed(m, 2) }) });
    col.append(svg("title", { text: t("w3.sr.col_value", { q: fixed(q, 2), p: fixed(p, 2), keep: fixed(m, 2) }) }));
    col.append(svg("rect", { class: "sr-hit", x: x - GAP / 2, y: TOP, width: COL + GAP, height: H }));
    col.append(svg("rect", { class: "sr-q", x, y: y(q), width: COL, height: h(q) }));
    col.append(svg("rect", { class: "sr-kept", x, y: y(m), width: COL, height: h(m) }));
    if (q > m) col.append(svg("rect", { class: "sr-refused", x, y: y(q), width: COL, height: h(q - m) }));
    if (added > 0) col.append(svg("rect", { class: "sr-added", x, y: y(m + added), width: COL, height: h(added) }));
    col.append(svg("rect", { class: "sr-p", x: x - 0.5, y: y(p), width: COL + 1, height: h(p) }));
    col.append(svg("text", { class: "dg-token", x: x + COL / 2, y: TOP + H + 16, "text-anchor": "middle", text: names[i] }));
    col.append(svg("text", { class: "dg-small", x: x + COL / 2, y: TOP + H + 32, "text-anchor": "middle", text: `q ${fixed(q, 2)}` }));
    root.append(col);
  }
  root.valueAt = (svgY) => (top * (TOP + H - svgY)) / H; // for bindQDrag: a height in the picture as a q
  return root;
}

// The columns as sliders, bound once on the picture's container (the picture itself is drawn
// again at every step of a drag): pointer, q_i follows the pointer's height; keys, ±0.01 (±0.1
// with PageUp/PageDown). current(): [the svg now shown, the result it shows].
export function bindQDrag(box, current, onQ) {
  const toValue = (e) => {
    const [root] = current();
    const pt = root.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const local = pt.matrixTransform(root.getScreenCTM().inverse());
    return Math.min(1, Math.max(0, root.valueAt(local.y)));
  };
  let dragging = null;
  box.addEventListener("pointerdown", (e) => {
    const col = e.target.closest(".sr-col");
    if (!col) return;
    e.preventDefault();
    dragging = Number(col.dataset.i);
    box.setPointerCapture(e.pointerId);
    onQ(dragging, toValue(e));
  });
  box.addEventListener("pointermove", (e) => { if (dragging != null) onQ(dragging, toValue(e)); });
  const end = () => { dragging = null; };
  box.addEventListener("pointerup", end);
  box.addEventListener("pointercancel", end);
  box.addEventListener("keydown", (e) => {
    const col = e.target.closest(".sr-col");
    const step = { ArrowUp: 0.01, ArrowRight: 0.01, ArrowDown: -0.01, ArrowLeft: -0.01, PageUp: 0.1, PageDown: -0.1 }[e.key];
    if (!col || step == null) return;
    e.preventDefault();
    const i = Number(col.dataset.i), [, r] = current();
    onQ(i, Math.min(1, Math.max(0, r.q[i] + step)));
  });
}

// q with q_i set to v and the others scaled so that it still sums to 1 (equal shares where the
// others were all zero)
export function withQ(q, i, v) {
  const rest = q.reduce((s, x, j) => (j === i ? s : s + x), 0);
  return q.map((x, j) => (j === i ? v : rest > 0 ? (x * (1 - v)) / rest : (1 - v) / (q.length - 1)));
}
