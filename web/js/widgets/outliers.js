// One scale per row against one per matrix, with a planted outlier.
import { call } from "../engine.js";
import { el, fmt, fieldError } from "../ui.js";

export function mountOutliers(root) {
  const rows = el("input", { type: "number", id: "ol-rows", value: 64, min: 1, max: 256 });
  const cols = el("input", { type: "number", id: "ol-cols", value: 256, min: 4, max: 1024 });
  const outlier = el("input", { type: "range", id: "ol-outlier", min: 0, max: 3, step: 0.05, value: 1.5 });
  const outLabel = el("output", { id: "ol-outlier-out" });
  const res = el("div", { id: "ol-res" });
  root.append(el("h3", { text: "One scale per row, or one per matrix?" }),
    el("div", { class: "controls" }, el("label", {}, "rows ", rows), el("label", {}, "columns ", cols),
      el("label", {}, "outlier size ", outlier, outLabel)), res,
    el("p", { class: "hint", text: "Gaussian weights (σ = 1) with one weight replaced by the outlier, quantized to 8 bits." }));
  async function update() {
    const size = 10 ** Number(outlier.value);
    outLabel.textContent = fmt(size, 1);
    fieldError(rows, ""); fieldError(cols, "");
    try {
      const r = await call("ch2_outliers", { rows: Number(rows.value), cols: Number(cols.value), outlier: size });
      res.replaceChildren(el("table", { class: "data" }, el("tr", {}, ["scales", "mean |error|, all weights", "mean |error|, the outlier's row"].map((h) => el("th", { text: h }))),
        ["row", "matrix"].map((k) => el("tr", {}, el("td", { text: k === "row" ? "one per row" : "one per matrix" }),
          el("td", { text: fmt(r[k].mean_abs_error, 5) }), el("td", { text: fmt(r[k].outlier_row_error, 5) })))),
        el("div", { class: "readout", id: "ol-ratio" }, `One scale per matrix makes the average error ${fmt(r.ratio, 1)}× larger: the outlier sets the step size for every row, not just its own.`));
    } catch (e) {
      if (e.field === "shape") { fieldError(rows, e.message); } else res.textContent = e.message;
    }
  }
  for (const i of [rows, cols, outlier]) i.addEventListener("input", update);
  return { update };
}
