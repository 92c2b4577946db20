// One scale per row against one per matrix, with a planted outlier.
import { call } from "../engine.js";
import { el, fmt, latest, readNumber, showError } from "../ui.js";

export function mountOutliers(root) {
  const rows = el("input", { type: "number", id: "ol-rows", value: 64, min: 1, max: 256, "aria-label": "rows" });
  const cols = el("input", { type: "number", id: "ol-cols", value: 256, min: 4, max: 1024, "aria-label": "columns" });
  const outlier = el("input", { type: "range", id: "ol-outlier", min: 0, max: 3, step: 0.05, value: 1.5, "aria-label": "outlier size, log scale" });
  const outLabel = el("output", { id: "ol-outlier-out" });
  const res = el("div", { id: "ol-res" });
  root.append(el("h3", { text: "One scale per row, or one per matrix?" }),
    el("div", { class: "controls" }, el("label", {}, "rows ", rows), el("label", {}, "columns ", cols),
      el("label", {}, "outlier size ", outlier, outLabel)), res,
    el("p", { class: "hint", text: "Gaussian weights (σ = 1) with one weight replaced by the outlier, quantized to 8 bits." }));
  // a slider fires an event per pixel: keep only the newest request while one is computed
  const update = latest(refresh);
  async function refresh() {
    const size = 10 ** Number(outlier.value);
    outLabel.textContent = fmt(size, 1);
    const nr = readNumber(rows, { label: "rows", min: 1, max: 256, integer: true });
    const nc = readNumber(cols, { label: "columns", min: 4, max: 1024, integer: true });
    if (nr == null || nc == null) return;
    try {
      const r = await call("ch2_outliers", { rows: nr, cols: nc, outlier: size });
      res.replaceChildren(el("table", { class: "data", tabindex: 0, "aria-label": "errors by scale scheme" }, el("tr", {}, ["scales", "mean |error|, all weights", "mean |error|, the outlier's row"].map((h) => el("th", { text: h }))),
        ["row", "matrix"].map((k) => el("tr", {}, el("td", { text: k === "row" ? "one per row" : "one per matrix" }),
          el("td", { text: fmt(r[k].mean_abs_error, 5) }), el("td", { text: fmt(r[k].outlier_row_error, 5) })))),
        el("div", { class: "readout", id: "ol-ratio" }, `One scale per matrix makes the average error ${fmt(r.ratio, 1)}× larger: the outlier sets the step size for every row, not just its own.`));
    } catch (e) {
      showError(e, { shape: rows }, res);
    }
  }
  for (const i of [rows, cols, outlier]) i.addEventListener("input", () => update());
  return { update };
}
