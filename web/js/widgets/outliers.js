// One scale per row against one per matrix, with a planted outlier: errors, the s/4 rule of
// thumb that predicts them, and the bytes each scheme costs. It starts at the reference example
// (live/examples.js OUTLIERS) the prose's ch2.ol.* numbers are computed from.
// The picture (an ordinary row over each scheme's comb of levels) comes first; the table and the
// sentences under it are in a "numbers" disclosure. Both are drawn from the last result, again
// after a language switch.
import { call } from "../engine.js";
import { el, numberBox, fmt, latest, readNumber, showError, setStatus } from "../ui.js";
import { t, onLang, redrawOnLang } from "../i18n.js";
import { f2 } from "../live/formats.js";
import { OUTLIERS } from "../live/examples.js";
import { drawOutlierComb } from "../diagrams/outlier-comb.js";

export function mountOutliers(root) {
  const rows = numberBox({ integer: true, id: "ol-rows", value: OUTLIERS.rows, min: 1, max: 256, "t-aria-label": "w2.rows" });
  const cols = numberBox({ integer: true, id: "ol-cols", value: OUTLIERS.cols, min: 4, max: 1024, "t-aria-label": "w2.cols" });
  const outlier = el("input", { type: "range", id: "ol-outlier", min: 0, max: 3, step: 0.05, value: OUTLIERS.outlier_log10, "t-aria-label": "w2.ol.outlier_aria" });
  const outLabel = el("output", { id: "ol-outlier-out" });
  const res = el("div", { id: "ol-res" });
  root.append(
    el("div", { class: "controls" }, el("label", {}, el("span", { t: "w2.rows" }), " ", rows),
      el("label", {}, el("span", { t: "w2.cols" }), " ", cols),
      el("label", {}, el("span", { t: "w2.ol.outlier" }), " ", outlier, outLabel)), res,
    el("p", { class: "hint", t: "w2.ol.hint" }));
  function draw(r) {
    const scale = { row: r.row_scale_mean, matrix: r.matrix_scale };
    const bytes = { row: r.bytes.row_scales, matrix: r.bytes.matrix_scale };
    const pic = drawOutlierComb(r.picture, r.picture.outlier, Math.min(res.clientWidth || 640, 900));
    // the picture, the one-line verdict under it, and the table one click away
    res.replaceChildren(el("figure", { class: "ol-pic", id: "ol-pic" }, pic, el("figcaption", { class: "hint", t: "w2.ol.pic_note" })),
      el("div", { class: "readout", id: "ol-ratio" }, [t("w2.ol.ratio", { ratio: fmt(r.ratio, 1) }),
        t(r.outlier_is_max ? "w2.ol.outlier_max" : "w2.ol.outlier_not_max")].join(" ")),
      el("details", { class: "numbers" }, el("summary", { t: "w2.ol.numbers" }),
        el("table", { class: "data", tabindex: 0, "t-aria-label": "w2.ol.table_aria" },
          el("tr", {}, ["scales", "err", "pred", "row", "bytes"].map((h) => el("th", { t: `w2.ol.h.${h}` }))),
          ["row", "matrix"].map((k) => el("tr", {}, el("td", { t: k === "row" ? "w2.ol.per_row" : "w2.ol.per_matrix" }),
            el("td", { text: fmt(r[k].mean_abs_error, 5) }), el("td", { text: fmt(scale[k] / 4, 5) }),
            el("td", { text: fmt(r[k].outlier_row_error, 5) }), el("td", { text: f2.bytes(bytes[k]) })))),
        el("p", { class: "hint" }, t("w2.ol.bytes", { int8: f2.bytes(r.bytes.int8), float32: f2.bytes(r.bytes.float32) }))));
  }
  const sizeText = () => { outLabel.textContent = fmt(10 ** Number(outlier.value), 1); };
  onLang(sizeText);
  const show = redrawOnLang(draw, { unless: () => res.classList.contains("error") }); // (an error shown stays)

  // a slider fires an event per pixel: keep only the newest request while one is computed
  const update = latest(refresh);
  async function refresh() {
    const size = 10 ** Number(outlier.value);
    sizeText();
    const nr = readNumber(rows, { label: "w2.rows", min: 1, max: 256, integer: true });
    const nc = readNumber(cols, { label: "w2.cols", min: 4, max: 1024, integer: true });
    if (nr == null || nc == null) return;
    try {
      const r = await call("ch2_outliers", { rows: nr, cols: nc, outlier: size });
      setStatus(res, ""); // an earlier error is over
      show(r);
    } catch (e) {
      showError(e, { shape: rows, outlier }, res);
    }
  }
  for (const i of [rows, cols, outlier]) i.addEventListener("input", () => update());
  return { update };
}
