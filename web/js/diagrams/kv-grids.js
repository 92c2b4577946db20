// The KV race as two grids of work (issue 43): a row per new token, a column per position of the
// text. Without the cache, token k runs every position again (P + k − 1 cells: a staircase);
// with it, the prompt's positions run once and then each token runs one cell, reading the rest
// from the cache. A filled cell is a position run through the model; a pale one is read from the
// cache. Drawing only (the build can draw the first frame); `play` fills the rows in as a race
// would, unless the reader asked for less motion.
import { t } from "../i18n.js";
import { svg, reducedMotion } from "./svg.js";
import { el } from "../ui.js";

const MAX_CELL = 9, MIN_CELL = 3, HEAD = 34;

// P: the prompt's tokens; n: new tokens; width: the room for one grid in px
export function drawKvGrids(P, n, width) {
  const cols = P + n - 1;
  const cell = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor((width - 4) / cols)));
  const box = el("div", { class: "kv-grids" });
  const grids = [grid("without", P, n, cell), grid("with", P, n, cell)];
  box.append(...grids.map((g) => g.node));
  box.play = () => {
    if (reducedMotion()) return;
    const rows = grids.flatMap((g) => [...g.node.querySelectorAll(".kv-row")]);
    rows.forEach((r) => r.classList.add("kv-later"));
    const t0 = performance.now(), span = 1400;
    const step = (now) => {
      const k = Math.ceil(((now - t0) / span) * n);
      for (const g of grids) [...g.node.querySelectorAll(".kv-row")].slice(0, k).forEach((r) => r.classList.remove("kv-later"));
      if (k < n) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  };
  return box;
}

function grid(kind, P, n, cell) {
  const cols = P + n - 1, W = cols * cell, H = n * cell + HEAD;
  const runs = (k) => (kind === "without" ? P + k : k === 0 ? P : 1); // positions run at step k (0-based)
  const total = Array.from({ length: n }, (_, k) => runs(k)).reduce((a, b) => a + b, 0);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: `diagram-svg kv-grid kv-grid-${kind}`, role: "img",
    "aria-label": t(`w2.kv.grid_aria_${kind}`, { passes: total, n }), width: W, height: H, "data-cells": total });
  root.append(svg("text", { class: "dg-label", x: 0, y: 14, text: t(`w2.kv.grid_${kind}`) }),
    svg("text", { class: "dg-small", x: 0, y: 28, text: t("w2.kv.grid_count", { passes: total }) }));
  for (let k = 0; k < n; k++) {
    const row = svg("g", { class: "kv-row" });
    const upto = P + k; // positions the token at step k sees
    const ran = runs(k);
    // one rect for the run cells and one for the cached ones: a row is two rectangles, not 40 cells
    if (upto - ran > 0) row.append(svg("rect", { class: "kv-read", x: 0, y: HEAD + k * cell, width: (upto - ran) * cell, height: cell - 1 }));
    row.append(svg("rect", { class: "kv-run", x: (upto - ran) * cell, y: HEAD + k * cell, width: ran * cell - 1, height: cell - 1 }));
    root.append(row);
  }
  // the columns' rules over the rows, one path: the positions of the text
  root.append(svg("path", { class: "kv-cols", d: Array.from({ length: cols + 1 }, (_, i) => `M${i * cell - 0.5},${HEAD} V${H}`).join(" ") }));
  return { node: root };
}
