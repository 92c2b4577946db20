// Re-quantize every weight to 8..2 bits (per row, per matrix, per group of 32) and measure the loss.
import { call } from "../engine.js";
import { el, fmt, busy, fieldError } from "../ui.js";

export function mountBitDepth(root) {
  const bits = el("input", { type: "range", id: "bd-bits", min: 2, max: 8, step: 1, value: 8 });
  const bitsOut = el("output", { id: "bd-bits-out", text: "8" });
  const scheme = el("select", { id: "bd-scheme" }, ["row", "matrix", "group32"].map((s) =>
    el("option", { value: s, text: { row: "one scale per row", matrix: "one per matrix", group32: "one per group of 32" }[s] })));
  const apply = el("button", { id: "bd-apply", text: "Re-quantize" });
  const back = el("button", { class: "secondary", id: "bd-back", text: "Back to 8 bits" });
  const pasted = el("textarea", { id: "bd-text", rows: 2, cols: 60, placeholder: "Paste any text to measure it too (optional)" });
  const out = el("div", { class: "readout", id: "bd-out" });
  const table = el("table", { class: "data", id: "bd-table" }, el("tr", {}, ["bits", "scales", "surprise on our story", "on your text", "re-quantize ms"].map((h) => el("th", { text: h }))));
  root.append(el("h3", { text: "How many bits does the model need?" }),
    el("div", { class: "controls" }, el("label", {}, "bits ", bits, bitsOut), scheme, apply, back), pasted, out,
    el("p", { class: "hint", text: "Your comparisons:" }), table);
  bits.addEventListener("input", () => { bitsOut.textContent = bits.value; });
  async function runWith(b, s) {
    const r = await call("ch2_requant", { bits: b, scheme: s, text: pasted.value });
    fieldError(pasted, "");
    out.replaceChildren(el("div", {}, `${b} bits, ${s}: surprise on our story ${fmt(r.story.surprise, 3)} nats/token` +
      (r.pasted ? `, on your text ${fmt(r.pasted.surprise, 3)}` : "") + `; re-quantizing took ${fmt(r.requant_ms, 1)} ms.`),
      el("div", { class: "gen-text small" }, el("span", { class: "prompt-text", text: "Once upon a time, there was a" }), r.continuation));
    out.dataset.surprise = r.story.surprise;
    table.append(el("tr", {}, [b, s, fmt(r.story.surprise, 3), r.pasted ? fmt(r.pasted.surprise, 3) : "–", fmt(r.requant_ms, 1)].map((v) => el("td", { text: String(v) }))));
  }
  apply.onclick = () => busy(apply, out, () => runWith(Number(bits.value), scheme.value));
  back.onclick = () => busy(back, out, () => { bits.value = 8; bitsOut.textContent = "8"; scheme.value = "row"; return runWith(8, "row"); });
}
