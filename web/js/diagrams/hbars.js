// Horizontal bars on one scale, labelled on the bars themselves (issue 43: a measurement drawn,
// not printed): rows [{label, value, text, cls}], the longest bar the widest. Drawing only.
import { svg } from "./svg.js";

const ROW = 30, BAR = 18, LABEL_W = 0.36;

export function drawBars(rows, width, ariaLabel) {
  const W = Math.max(280, width), max = Math.max(...rows.map((r) => r.value), 1e-12);
  const x0 = Math.round(W * LABEL_W), room = W - x0 - 90;
  const root = svg("svg", { viewBox: `0 0 ${W} ${rows.length * ROW + 4}`, class: "diagram-svg hbars", role: "img",
    "aria-label": ariaLabel, width: W, height: rows.length * ROW + 4 });
  rows.forEach((r, i) => {
    const y = i * ROW + 4, w = Math.max(1, (room * r.value) / max);
    root.append(svg("g", { class: `hbar ${r.cls || ""}`.trim(), "data-value": r.value },
      svg("text", { class: "dg-small", x: x0 - 8, y: y + BAR - 5, "text-anchor": "end", text: r.label }),
      svg("rect", { x: x0, y, width: w, height: BAR, rx: 3 }),
      svg("text", { class: "dg-label", x: x0 + w + 6, y: y + BAR - 5, text: r.text })));
  });
  return root;
}
