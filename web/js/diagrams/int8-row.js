// Eight bits with one scale per row, drawn from a real row of a shipped matrix (fig_int8_row):
// the weights as the kernel sees them (s·q), the row's largest one, its scale s, the stored
// integers, the rounding bound s/2; then the row's dot product factored as s · Σ q·x, the sum
// taken sixteen lanes at a time (the SIMD kernel's width) and the scale applied once at the end.
import { call } from "../engine.js";
import { el, showError, whenSeen, setStatus } from "../ui.js";
import { t, fixed } from "../i18n.js";
import { FIGURES } from "../live/examples.js";
import { svg, picture, redrawOnLang } from "./svg.js";

const sig = (x, n = 3) => fixed(x, Math.max(0, n - 1 - Math.floor(Math.log10(Math.abs(x) || 1))));

// one column per weight: the weight over its stored integer (columns wrap together on a phone)
function pairs(f) {
  return el("div", { class: "q8-pairs" }, f.q.map((q, i) => el("span", { class: `q8-pair${Math.abs(q) === 127 ? " q8-max" : ""}` },
    el("span", { class: "q8-w", text: fixed(f.w[i], 3) }), el("span", { class: "q8-q", text: fixed(q, 0) }))));
}

// the dot product's shape: cols products in groups of 16 lanes, integer sums, one multiply by s
// (the words are HTML beside the picture, so they wrap on a phone)
function dotPicture(f) {
  const groups = f.groups, W = 320, lane = 20, bw = Math.min(20, W / groups);
  const s = picture(W, 84, t("fig.q8.dot_aria", { cols: f.cols, groups }), "q8-dot");
  for (let i = 0; i < 16; i++) s.append(svg("rect", { x: i * lane, y: 0, width: lane - 2, height: 22, class: "q8-lane" }));
  s.append(svg("path", { d: `M${8 * lane} 26 L${8 * lane} 50`, class: "dg-arrow" }));
  // the row's groups, one block each; the first is the one drawn above
  for (let g = 0; g < groups; g++) {
    s.append(svg("rect", { x: g * bw, y: 56, width: bw - 2, height: 16, class: g ? "q8-group" : "q8-group q8-group-first" }));
  }
  return el("div", { class: "q8-dotbox" },
    el("p", { class: "diagram-note q8-strong", text: t("fig.q8.lanes") }), s,
    el("p", { class: "diagram-note", text: `${t("fig.q8.int_sum")}; ${t("fig.q8.groups", { groups, cols: f.cols })}.` }),
    el("p", { class: "diagram-note q8-strong", text: t("fig.q8.scale_once") }));
}

export function mountInt8Row(root) {
  const body = root.querySelector(":scope > .diagram-body") || root.appendChild(el("div", { class: "diagram-body" }));
  const rowBox = el("div", { class: "q8-row" });
  const another = el("button", { class: "secondary", id: "fig-q8-another", t: "fig.q8.another", disabled: true });
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  body.replaceChildren(rowBox, el("div", { class: "controls" }, another), status);
  let ref = { ...FIGURES.int8 };

  const draw = redrawOnLang((f) => {
    const label = t(f.label.key, f.label.args);
    rowBox.replaceChildren(
      el("p", { class: "diagram-note", text: t("fig.q8.row_of", { row: f.row + 1, matrix: label, cols: f.cols, n: f.q.length }) }),
      el("div", { class: "q8-line" }, el("span", { class: "q8-tag" }, el("span", { class: "q8-w", text: t("fig.q8.weights") }),
        el("span", { class: "q8-arrow", text: t("fig.q8.divide", { s: sig(f.scale) }) }), el("span", { class: "q8-q", text: t("fig.q8.ints") })),
      pairs(f)),
      el("p", { class: "diagram-note", id: "fig-q8-facts", text: t("fig.q8.facts", { wmax: sig(f.row_max_w), s: sig(f.scale), half: sig(f.error_bound) }) }),
      dotPicture(f));
    root.dataset.row = String(f.row);
    root.dataset.q = f.q.join(",");
  });
  async function fetchRow() {
    setStatus(status, () => t("ui.waiting"));
    try {
      const f = await call("fig_int8_row", ref);
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
