// Eight bits with one scale per row, and the kernel's dot product, drawn from a real row of layer
// 1's attention matrix times its real input (fig_int8_row): sixteen columns, one SIMD step, as a
// grid with a row each for the weights w = s·q, the stored integers q, the input's integers x,
// their products and the four 32-bit lanes they are added into; under it the row's steps as signed bars (the reader picks the step shown), then
// the whole sum and the one multiplication by the two scales. Everything is the endpoint's numbers;
// this module only lays them out.
import { call } from "../engine.js";
import { el, showError, whenSeen, setStatus } from "../ui.js";
import { t, fixed } from "../i18n.js";
import { FIGURES } from "../live/examples.js";
import { svg, picture, redrawOnLang } from "./svg.js";

const sig = (x, n = 3) => fixed(x, Math.max(0, n - 1 - Math.floor(Math.log10(Math.abs(x) || 1))));
// an integer in a cell: no digit grouping (a cell is narrow) and a true minus sign
const int = (v) => String(v).replace("-", "\u2212");
// a cell's tint by its size against the row's largest, in ten steps (style.css .q8-s0-9: the tint
// mixed into the cell's ground; one rectangle a cell where a ground and a translucent tint took two)
const SHADES = 10;
const shade = (v, top) => `q8-s${Math.min(SHADES - 1, Math.floor(SHADES * Math.min(1, Math.abs(v) / top)))}`;
const CELL_H = 26, TAG_H = 18, STRIP_H = 64, GAP = 14, LANE = 4;
// the grid's rows: each one's values, how a value is written, and the magnitude its tint is scaled by
const ROWS = [
  { key: "w", of: (f) => f.w, text: (v, wide) => fixed(v, wide ? 3 : 2), top: (f) => 127 * f.scale },
  { key: "q", of: (f) => f.q, text: (v) => int(v), top: () => 127 },
  { key: "x", of: (f) => f.xq, text: (v) => int(v), top: (f) => Math.max(1, ...f.xq.map(Math.abs)) },
  { key: "qx", of: (f) => f.products, text: (v) => int(v), top: (f) => Math.max(1, ...f.products.map(Math.abs)) },
];

// One step's sixteen columns (eight a line on a phone, so every number stays readable).
function gridPicture(f, step, width) {
  const wide = width >= 560, labelW = wide ? 128 : 34, perLine = (width - labelW) / f.lanes >= 30 ? f.lanes : f.lanes / 2;
  const cw = (width - labelW) / perLine, blockH = TAG_H + (ROWS.length + 1) * CELL_H, lines = f.lanes / perLine;
  const start = step * f.lanes, h = lines * blockH + (lines - 1) * GAP + 2;
  const s = picture(width, h, t("fig.q8.grid_aria", { a: start + 1, b: start + f.lanes, sum: f.steps[step] }), "q8-grid");
  s.setAttribute("width", width); s.setAttribute("height", h);
  for (let line = 0; line < lines; line++) {
    const y0 = line * (blockH + GAP);
    ROWS.forEach((r, ri) => {
      const y = y0 + TAG_H + ri * CELL_H, values = r.of(f), top = r.top(f);
      s.append(svg("text", { class: "dg-small q8-rowlab", x: 0, y: y + 17, text: t(`fig.q8.lab_${r.key}${wide ? "" : "_short"}`) }));
      for (let i = 0; i < perLine; i++) {
        const c = start + line * perLine + i, v = values[c], x = labelW + i * cw, max = c === f.max_at;
        const cell = svg("g", { class: `q8-cell q8-${r.key}${max && r.key !== "x" ? " q8-max" : ""}`, "data-col": c });
        cell.append(svg("rect", { x: x + 1, y: y + 1, width: cw - 2, height: CELL_H - 3, rx: 3, class: `q8-box ${shade(v, top)}` }),
          svg("text", { x: x + cw / 2, y: y + 17, "text-anchor": "middle", class: cw < 46 ? "q8-num q8-num-small" : "q8-num", text: r.text(v, wide) }));
        s.append(cell);
        if (max && ri === 1) { // the tag over the 127, kept inside the picture at either edge
          const anchor = i === 0 ? "start" : i === perLine - 1 ? "end" : "middle";
          s.append(svg("text", { class: "dg-small q8-maxtag", x: anchor === "start" ? x + 1 : anchor === "end" ? x + cw - 1 : x + cw / 2,
            y: y0 + 12, "text-anchor": anchor, text: t("fig.q8.max_tag") }));
        }
      }
    });
    // the register: the kernel's relaxed-SIMD dot adds each four neighbouring products into one
    // 32-bit lane, so a step leaves four sums, not sixteen (the design review: the SIMD step was
    // told, never drawn); the strip below adds the lanes up
    const y = y0 + TAG_H + ROWS.length * CELL_H, top = Math.max(1, ...f.products.map(Math.abs)) * LANE;
    s.append(svg("text", { class: "dg-small q8-rowlab", x: 0, y: y + 17, text: t(`fig.q8.lab_lanes${wide ? "" : "_short"}`) }));
    for (let i = 0; i < perLine; i += LANE) {
      const c = start + line * perLine + i, v = f.products.slice(c, c + LANE).reduce((a, b) => a + b, 0), x = labelW + i * cw;
      const cell = svg("g", { class: "q8-cell q8-lane", "data-col": c });
      cell.append(svg("rect", { x: x + 1, y: y + 1, width: LANE * cw - 2, height: CELL_H - 3, rx: 3, class: `q8-box ${shade(v, top)}` }),
        svg("path", { class: "q8-funnel", d: `M${x + 4},${y - 1} L${x + LANE * cw / 2},${y + 4} L${x + LANE * cw - 4},${y - 1}` }),
        svg("text", { x: x + LANE * cw / 2, y: y + 17, "text-anchor": "middle", class: "q8-num", text: int(v) }));
      s.append(cell);
    }
  }
  return s;
}

// The row's steps as signed bars around zero; the one shown is marked, and a click picks another.
function stripPicture(f, step, width, pick) {
  const labelW = width >= 560 ? 128 : 34, n = f.steps.length, bw = (width - labelW) / n, mid = STRIP_H / 2;
  const top = Math.max(1, ...f.steps.map(Math.abs));
  const s = picture(width, STRIP_H + 16, t("fig.q8.strip_aria", { n, total: f.total }), "q8-strip");
  s.setAttribute("width", width); s.setAttribute("height", STRIP_H + 16);
  s.append(svg("text", { class: "dg-small q8-rowlab", x: 0, y: mid + 4, text: t(width >= 560 ? "fig.q8.lab_steps" : "fig.q8.lab_steps_short") }),
    svg("line", { class: "q8-zero", x1: labelW, x2: width, y1: mid, y2: mid }));
  f.steps.forEach((v, g) => {
    const hgt = Math.max(1, Math.abs(v) / top * (mid - 4));
    s.append(svg("rect", { class: `q8-bar${g === step ? " q8-bar-now" : ""}`, "data-step": g, x: labelW + g * bw + bw * 0.15,
      y: v >= 0 ? mid - hgt : mid, width: bw * 0.7, height: hgt }));
  });
  const at = Math.min(width - 24, Math.max(labelW + 24, labelW + (step + 0.5) * bw)); // the value under the bar, never clipped
  s.append(svg("text", { class: "dg-small", x: at, y: STRIP_H + 13, "text-anchor": "middle", text: int(f.steps[step]) }));
  s.addEventListener("click", (ev) => {
    const box = s.getBoundingClientRect(), x = (ev.clientX - box.left) * width / box.width;
    if (x >= labelW) pick(Math.min(n - 1, Math.floor((x - labelW) / bw)));
  });
  return s;
}

export function mountInt8Row(root) {
  const body = root.querySelector(":scope > .diagram-body") || root.appendChild(el("div", { class: "diagram-body" }));
  const head = el("p", { class: "diagram-note", id: "fig-q8-head" });
  const pic = el("div", { class: "q8-pic" });
  const stepSlider = el("input", { type: "range", id: "fig-q8-step", min: 1, max: 16, step: 1, value: 1, "t-aria-label": "fig.q8.step_label" });
  const stepOut = el("output", { for: "fig-q8-step", id: "fig-q8-step-out" });
  const sum = el("p", { class: "diagram-note q8-strong", id: "fig-q8-sum" });
  const facts = el("p", { class: "diagram-note", id: "fig-q8-facts" });
  const another = el("button", { class: "secondary", id: "fig-q8-another", t: "fig.q8.another", disabled: true });
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  body.replaceChildren(head, pic, el("div", { class: "controls" },
    el("label", { class: "q8-steplabel" }, el("span", { t: "fig.q8.step_label" }), " ", stepSlider, stepOut), another), sum, facts, status);
  let ref = { ...FIGURES.int8 }, data = null, step = 0;

  const draw = redrawOnLang((f) => {
    const width = Math.max(300, Math.min(pic.clientWidth || body.clientWidth || 640, 1000));
    head.textContent = t("fig.q8.row_of", { row: f.row + 1, matrix: t(f.label.key, f.label.args), tok: f.token,
      a: step * f.lanes + 1, b: (step + 1) * f.lanes, cols: f.cols });
    pic.replaceChildren(gridPicture(f, step, width), stripPicture(f, step, width, (g) => { step = g; stepSlider.value = String(g + 1); draw(f); }));
    stepSlider.max = String(f.steps.length);
    stepOut.textContent = t("fig.q8.step_of", { k: step + 1, n: f.steps.length });
    const total = fixed(f.total, 0);
    sum.textContent = t("fig.q8.sum", { n: f.steps.length, total, factor: f.total < 0 ? `(${total})` : total, s: sig(f.scale), xs: sig(f.x_scale),
      y: fixed(f.y, 4), yf: fixed(f.y_float, 4) });
    facts.textContent = t("fig.q8.facts", { wmax: sig(f.row_max_w), s: sig(f.scale), half: sig(f.error_bound) });
    root.dataset.row = String(f.row);
    root.dataset.step = String(step);
    root.dataset.q = f.q.slice(step * f.lanes, (step + 1) * f.lanes).join(",");
  });
  stepSlider.addEventListener("input", () => { if (data) { step = Number(stepSlider.value) - 1; draw(data); } });
  async function fetchRow() {
    setStatus(status, () => t("ui.waiting"));
    try {
      const f = await call("fig_int8_row", ref);
      data = f;
      step = f.step; // open on the step that holds the row's 127
      stepSlider.value = String(step + 1);
      draw(f);
      setStatus(status, "");
      another.disabled = false;
      ref = { ...ref, row: (f.row + 97) % f.rows }; // the next press shows a row far from this one
    } catch (e) { showError(e, {}, status); }
  }
  another.addEventListener("click", () => { another.disabled = true; fetchRow(); });
  whenSeen(root, fetchRow);
  return {};
}
