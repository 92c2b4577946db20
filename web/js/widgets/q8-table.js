// The model's bytes, matrix by matrix: float32 against int8 plus one scale per row, from ch2_facts
// (the bundle's real matrices). Layers repeat the same shapes, so each kind of matrix is one row
// with its count; the layer norms stay float32; the total is the race's weights figure.
import { el } from "../ui.js";
import { whenFacts, f2 } from "../ch2-live.js";

const KIND_WORDS = { wte: "token embedding (also scores the vocabulary)", wpe: "position embedding", qkv: "query, key, value",
  proj: "head mixer", fc: "feed-forward, first", fc2: "feed-forward, second" };

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
  const box = el("div", { class: "table-scroll", id: "q8-box" }, el("p", { class: "hint", text: "waiting for the engine…" }));
  root.append(box);
  whenFacts((f) => {
    const q = f.q8, head = ["matrix", "shape", "how many", "float32", "int8", "scales", "largest row max / median"];
    const rows = groupMatrices(f.matrices).map((g) => [KIND_WORDS[g.kind] || g.kind, `${g.rows} × ${g.cols}`, String(g.count),
      f2.bytes(g.f32), f2.bytes(g.i8), f2.bytes(g.scales), f2.times(g.worst)]);
    rows.push(["layer norms (kept as float32)", "", "", f2.bytes(q.vector_bytes), f2.bytes(q.vector_bytes), "", ""]);
    rows.push(["total", "", String(q.n_matrices), f2.bytes(q.matrix_float32_bytes + q.vector_bytes),
      f2.bytes(q.int8_bytes + q.vector_bytes), f2.bytes(q.scale_bytes), ""]);
    box.replaceChildren(el("table", { class: "data", id: "q8-table-t", tabindex: 0, "aria-label": "the model's bytes by matrix" },
      el("tr", {}, head.map((h) => el("th", { text: h }))), rows.map((r) => el("tr", {}, r.map((v) => el("td", { text: v }))))),
    el("p", { class: "hint", id: "q8-total", text: `As float32: ${f2.bytes(q.matrix_float32_bytes + q.vector_bytes)}. ` +
      `As shipped: ${f2.bytes(q.total_bytes)} (int8, scales and layer norms), ${f2.times(q.ratio)} smaller.` }));
  });
  return {};
}
