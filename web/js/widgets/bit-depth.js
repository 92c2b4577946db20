// Re-quantize every weight to 8..2 bits (per row, per matrix, per group of 32) and measure the loss.
import { call, on } from "../engine.js";
import { el, fmt, serial, clearErrors } from "../ui.js";

export function mountBitDepth(root) {
  const bits = el("input", { type: "range", id: "bd-bits", min: 2, max: 8, step: 1, value: 8, "aria-label": "bits per weight" });
  const bitsOut = el("output", { id: "bd-bits-out", text: "8" });
  const scheme = el("select", { id: "bd-scheme", "aria-label": "how the scales are shared" }, ["row", "matrix", "group32"].map((s) =>
    el("option", { value: s, text: { row: "one scale per row", matrix: "one per matrix", group32: "one per group of 32" }[s] })));
  const apply = el("button", { id: "bd-apply", text: "Re-quantize" });
  const back = el("button", { class: "secondary", id: "bd-back", text: "Back to 8 bits" });
  const pasted = el("textarea", { id: "bd-text", rows: 2, cols: 60, maxlength: 8000,
    placeholder: "Paste any text to measure it too (optional, up to 8,000 characters)", "aria-label": "your own text to measure" });
  const out = el("div", { class: "readout", id: "bd-out", role: "status" });
  const table = el("table", { class: "data", id: "bd-table", tabindex: 0, "aria-label": "your comparisons" }, el("tr", {}, ["bits", "scales", "surprise on our story", "on your text", "re-quantize ms"].map((h) => el("th", { text: h }))));
  root.append(el("h3", { text: "How many bits does the model need?" }),
    el("div", { class: "controls" }, el("label", {}, "bits ", bits, bitsOut), scheme, apply, back), pasted, out,
    el("p", { class: "hint", text: "Your comparisons:" }), table);
  bits.addEventListener("input", () => { bitsOut.textContent = bits.value; });
  async function runWith(b, s) {
    clearErrors({ pasted });
    const r = await call("ch2_requant", { bits: b, scheme: s, text: pasted.value });
    out.replaceChildren(el("div", {}, `${b} bits, ${s}: surprise on our story ${fmt(r.story.surprise, 3)} nats/token` +
      (r.pasted ? `, on your text ${fmt(r.pasted.surprise, 3)}` : "") + `; re-quantizing took ${fmt(r.requant_ms, 1)} ms.`),
      el("div", { class: "gen-text small" }, el("span", { class: "prompt-text", text: "Once upon a time, there was a" }), r.continuation));
    out.dataset.surprise = r.story.surprise;
    table.append(el("tr", {}, [b, s, fmt(r.story.surprise, 3), r.pasted ? fmt(r.pasted.surprise, 3) : "–", fmt(r.requant_ms, 1)].map((v) => el("td", { text: String(v) }))));
  }
  const once = serial([apply, back], out, { text: pasted, bits, scheme });
  apply.onclick = () => once(() => runWith(Number(bits.value), scheme.value));
  back.onclick = () => once(() => { bits.value = 8; bitsOut.textContent = "8"; scheme.value = "row"; return runWith(8, "row"); });
  // a restarted engine has the shipped 8-bit weights again: say so, keep the table
  on("restarted", () => { out.textContent = "The engine restarted, so the model is back at its shipped 8 bits."; });
}
