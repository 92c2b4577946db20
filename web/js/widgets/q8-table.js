// The model's bytes, matrix by matrix: float32 against int8 plus one scale per row, from ch2_facts
// (the bundle's real matrices). Layers repeat the same shapes, so each kind of matrix is one row
// with its count; the layer norms stay float32; the total is the race's weights figure. Drawn
// again after a language switch.
import { el } from "../ui.js";
import { t, fixed, redrawOnLang } from "../i18n.js";
import { whenFacts } from "../facts.js";
import { f2, shape } from "../live/formats.js";

const KINDS = ["wte", "wpe", "qkv", "proj", "fc", "fc2"];

export function groupMatrices(mats) {
  const groups = new Map();
  for (const m of mats) {
    const kind = m.name.includes(".") ? m.name.split(".").slice(1).join(".") : m.name;
    const g = groups.get(kind) || { kind, rows: m.rows, cols: m.cols, count: 0, f32: 0, i8: 0, scales: 0, worst: 0 };
    g.count += 1; g.f32 += m.f32; g.i8 += m.i8; g.scales += m.scales; g.worst = Math.max(g.worst, m.max_over_median);
    groups.set(kind, g);
  }
  return [...groups.values()];
}

export function mountQ8Table(root) {
  const box = el("div", { class: "table-scroll", id: "q8-box" }, el("p", { class: "hint", t: "ui.waiting" }));
  root.append(box);
  const head = ["matrix", "shape", "count", "float32", "int8", "scales", "worst"];
  function draw(f) {
    const q = f.q8;
    const rows = groupMatrices(f.matrices).map((g) => [KINDS.includes(g.kind) ? t(`w2.q8.kind.${g.kind}`) : g.kind,
      shape(g.rows, g.cols), fixed(g.count, 0), f2.bytes(g.f32), f2.bytes(g.i8), f2.bytes(g.scales), f2.times(g.worst)]);
    rows.push([t("w2.q8.norms"), "", "", f2.bytes(q.vector_bytes), f2.bytes(q.vector_bytes), "", ""]);
    rows.push([t("w2.q8.total_row"), "", fixed(q.n_matrices, 0), f2.bytes(q.matrix_float32_bytes + q.vector_bytes),
      f2.bytes(q.int8_bytes + q.vector_bytes), f2.bytes(q.scale_bytes), ""]);
    box.replaceChildren(el("table", { class: "data", id: "q8-table-t", tabindex: 0, "t-aria-label": "w2.q8.table_aria" },
      el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col", t: `w2.q8.h.${h}` })))),
      el("tbody", {}, rows.map((r) => el("tr", {}, r.map((v) => el("td", { text: v })))))),
    el("p", { class: "hint", id: "q8-total", text: t("w2.q8.total", { f32: f2.bytes(q.matrix_float32_bytes + q.vector_bytes),
      shipped: f2.bytes(q.total_bytes), ratio: f2.times(q.ratio) }) }));
  }
  whenFacts(redrawOnLang(draw));
  return {};
}
