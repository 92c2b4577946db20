// Horizontal bars on one scale, labelled on the bars themselves (issue 43: a measurement drawn,
// not printed): rows [{label, value, text, cls, parts}], the longest bar the widest. A row with
// parts [{value, cls}] is drawn as its parts end to end (the speed race: the kernel's share of a
// token's time, then the rest); `value` is then their sum. Drawing only.
import { svg } from "./svg.js";

const BAR = 18, LABEL_W = 0.36, VALUE_W = 90;
// under this width a row's name goes on its own line above its bar (on a phone a name beside the
// bar had a third of 330 px)
const NARROW = 480;

export function drawBars(rows, width, ariaLabel) {
  const W = Math.max(280, width), max = Math.max(...rows.map((r) => r.value), 1e-12);
  const narrow = W < NARROW, ROW = narrow ? 44 : 30, top = narrow ? 16 : 0;
  const x0 = narrow ? 0 : Math.round(W * LABEL_W), room = W - x0 - VALUE_W;
  const root = svg("svg", { viewBox: `0 0 ${W} ${rows.length * ROW + 4}`, class: "diagram-svg hbars", role: "img",
    "aria-label": ariaLabel, width: W, height: rows.length * ROW + 4 });
  const scale = (v) => (room * v) / max;
  rows.forEach((r, i) => {
    const y = i * ROW + 4 + top, w = Math.max(1, scale(r.value));
    let x = x0;
    const shapes = r.parts ? r.parts.map((p) => {
      const pw = scale(p.value), rect = svg("rect", { class: p.cls, x, y, width: Math.max(0.5, pw), height: BAR });
      x += pw;
      return rect;
    }) : [svg("rect", { x: x0, y, width: w, height: BAR, rx: 3 })];
    root.append(svg("g", { class: `hbar ${r.cls || ""}`.trim(), "data-value": r.value },
      narrow ? svg("text", { class: "dg-small", x: 0, y: y - 4, text: r.label })
        : svg("text", { class: "dg-small", x: x0 - 8, y: y + BAR - 5, "text-anchor": "end", text: r.label }),
      ...shapes,
      svg("text", { class: "dg-label", x: x0 + w + 6, y: y + BAR - 5, text: r.text })));
  });
  return root;
}
