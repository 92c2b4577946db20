// One scale per row against one per matrix, with a planted outlier: errors, the s/4 rule of
// thumb that predicts them, and the bytes each scheme costs. Publishes the prose's ch2.ol.* keys.
import { call } from "../engine.js";
import { el, fmt, latest, readNumber, showError } from "../ui.js";
import { setLive2, f2 } from "../ch2-live.js";

export function mountOutliers(root) {
  const rows = el("input", { type: "number", id: "ol-rows", value: 64, min: 1, max: 256, "aria-label": "rows" });
  const cols = el("input", { type: "number", id: "ol-cols", value: 256, min: 4, max: 1024, "aria-label": "columns" });
  const outlier = el("input", { type: "range", id: "ol-outlier", min: 0, max: 3, step: 0.05, value: 1.5, "aria-label": "outlier size, log scale" });
  const outLabel = el("output", { id: "ol-outlier-out" });
  const res = el("div", { id: "ol-res" });
  root.append(
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
      const scale = { row: r.row_scale_mean, matrix: r.matrix_scale };
      const bytes = { row: r.bytes.row_scales, matrix: r.bytes.matrix_scale };
      res.replaceChildren(el("table", { class: "data", tabindex: 0, "aria-label": "errors by scale scheme" },
        el("tr", {}, ["scales", "mean |error|", "predicted s/4", "the outlier's row", "scale bytes"].map((h) => el("th", { text: h }))),
        ["row", "matrix"].map((k) => el("tr", {}, el("td", { text: k === "row" ? "one per row" : "one per matrix" }),
          el("td", { text: fmt(r[k].mean_abs_error, 5) }), el("td", { text: fmt(scale[k] / 4, 5) }),
          el("td", { text: fmt(r[k].outlier_row_error, 5) }), el("td", { text: f2.bytes(bytes[k]) })))),
        el("div", { class: "readout", id: "ol-ratio" }, `One scale per matrix makes the average error ${fmt(r.ratio, 1)}× larger. ` +
          (r.outlier_is_max ? "The outlier is the largest weight, so it sets the shared step for every row, not just its own."
            : "The outlier is smaller than the matrix's own largest weight, so that weight, not the outlier, sets the shared step.") +
          ` The weights take ${f2.bytes(r.bytes.int8)} as bytes (${f2.bytes(r.bytes.float32)} as floats).`));
      const same = Math.abs(r.row.outlier_row_error - r.matrix.outlier_row_error) <= 1e-12 * Math.max(1e-30, r.row.outlier_row_error);
      setLive2({ "ol.rows": nr, "ol.cols": nc, "ol.outlier": size, "ol.row_err": r.row.mean_abs_error,
        "ol.matrix_err": r.matrix.mean_abs_error, "ol.ratio": r.ratio, "ol.row_scale_mean": r.row_scale_mean,
        "ol.row_err_predicted": r.row_scale_mean / 4, "ol.matrix_scale": r.matrix_scale,
        "ol.matrix_err_predicted": r.matrix_scale / 4,
        "ol.outlier_row_err": same ? `${f2.w(r.row.outlier_row_error)} in both`
          : `${f2.w(r.row.outlier_row_error)} with row scales and ${f2.w(r.matrix.outlier_row_error)} with one per matrix`,
        "ol.other_rows": nr - 1, "ol.bytes_float32": r.bytes.float32, "ol.bytes_int8": r.bytes.int8,
        "ol.bytes_row_scales": r.bytes.row_scales, "ol.bytes_matrix_scale": r.bytes.matrix_scale });
    } catch (e) {
      showError(e, { shape: rows, outlier }, res);
    }
  }
  for (const i of [rows, cols, outlier]) i.addEventListener("input", () => update());
  return { update };
}
