// Re-quantize every weight of a private copy of the model to 8..2 bits (per row, per matrix, per
// group of 32) and measure it on our story, beside the held-out figure the export measured for the
// same depth. Fills two rows when first seen (8 bits, and the depth where the held-out loss starts
// to show), publishes the prose's ch2.bits.story_* keys, and can lend its copy to chapter 1's
// playground (ch2_lend; the session keeps that state, the "decodelab:lend" event tells the page).
import { call, on } from "../engine.js";
import { el, fmt, serial, clearErrors, whenSeen, setStatus } from "../ui.js";
import { setLive2, whenFacts, f2 } from "../ch2-live.js";

const SCHEME_WORDS = { row: "one scale per row", matrix: "one per matrix", group32: "one per group of 32" };
export const weightsWords = (bits, scheme) => `${bits} bits, ${SCHEME_WORDS[scheme] || scheme}`;

// the paired difference from 8 bits over the story's tokens, in words
export function storyVerdict(s) {
  if (s.delta === 0 && s.delta_se === 0) return "the shipped weights";
  if (Math.abs(s.delta) < 2 * s.delta_se) return "within the noise of the 8-bit figure";
  return `${f2.dnats(Math.abs(s.delta)).slice(1)} nats per token ${s.delta > 0 ? "more" : "less"} than at 8 bits`;
}

// the reader's table in words, scheme by scheme: which depths sat within the noise of 8 bits,
// where the story got measurably harder, where it collapsed (a nat per token or more)
export function tableWords(results) {
  const parts = [];
  for (const sch of ["row", "matrix", "group32"]) {
    const by = new Map();
    for (const r of results) if (r.scheme === sch && r.bits !== 8) by.set(r.bits, r.story);
    if (!by.size) continue;
    const depths = [...by.keys()].sort((a, b) => b - a);
    const noise = depths.filter((b) => Math.abs(by.get(b).delta) < 2 * by.get(b).delta_se);
    const worse = depths.find((b) => by.get(b).delta >= 2 * by.get(b).delta_se);
    const gone = depths.find((b) => by.get(b).delta >= 1);
    const bits = (bs) => (bs.length === 1 ? `${bs[0]} bits` : `${bs.slice(0, -1).join(", ")} and ${bs[bs.length - 1]} bits`);
    const w = [];
    if (noise.length) w.push(`${bits(noise)} within the noise of 8 bits`);
    if (worse != null) w.push(`measurably worse at ${worse} bits (${f2.dnats(by.get(worse).delta)} nats per token)`);
    if (gone != null) w.push(`collapsed at ${gone} bits (${f2.dnats(by.get(gone).delta)})`);
    parts.push(`${SCHEME_WORDS[sch]}: ${w.join("; ")}`);
  }
  return parts.length ? parts.join(". ") + "." : "re-quantize to fewer bits to fill it in.";
}

export function mountBitDepth(root) {
  const bits = el("input", { type: "range", id: "bd-bits", min: 2, max: 8, step: 1, value: 8, "aria-label": "bits per weight" });
  const bitsOut = el("output", { id: "bd-bits-out", text: "8" });
  const scheme = el("select", { id: "bd-scheme", "aria-label": "how the scales are shared" }, ["row", "matrix", "group32"].map((s) =>
    el("option", { value: s, text: SCHEME_WORDS[s] })));
  const apply = el("button", { id: "bd-apply", text: "Re-quantize" });
  const back = el("button", { class: "secondary", id: "bd-back", text: "Back to 8 bits" });
  const lend = el("button", { class: "secondary", id: "bd-lend", text: "Lend this model to chapter 1's playground" });
  const lendOut = el("p", { class: "hint", id: "bd-lend-out", role: "status",
    text: "This widget re-quantizes its own copy of the model. Every other widget on the page keeps the shipped 8-bit model." });
  const pasted = el("textarea", { id: "bd-text", rows: 2, cols: 60, maxlength: 8000,
    placeholder: "Paste any text to measure it too (optional, up to 8,000 characters)", "aria-label": "your own text to measure" });
  const out = el("div", { class: "readout", id: "bd-out", role: "status" });
  const head = ["bits", "scales", "surprise on our story", "against 8 bits (± 2 SE)", "held out, against float", "on your text", "re-quantize ms"];
  const table = el("table", { class: "data", id: "bd-table", tabindex: 0, "aria-label": "your comparisons" },
    el("tr", {}, head.map((h) => el("th", { text: h }))));
  root.append(
    el("div", { class: "controls" }, el("label", {}, "bits ", bits, bitsOut), scheme, apply, back), pasted, out,
    el("p", { class: "hint", text: "Your comparisons (surprise in nats per token; the held-out column is the export's " +
      "measurement on held-out stories, the same for every run):" }),
    el("div", { class: "table-scroll" }, table), el("div", { class: "controls" }, lend), lendOut);
  bits.addEventListener("input", () => { bitsOut.textContent = bits.value; });
  let current = { bits: 8, scheme: "row" }, lent = false;
  const results = []; // every run of this page, for the table's reading in words

  function lendText() {
    return lent ? `Lent: chapter 1's playground now writes with this copy (${weightsWords(current.bits, current.scheme)}). ` +
      "Every other widget keeps the shipped 8-bit model; the playground's “back to 8 bits” ends the loan."
      : "This widget re-quantizes its own copy of the model. Every other widget on the page keeps the shipped 8-bit model.";
  }
  function setLent(v) {
    lent = v;
    lend.textContent = lent ? "Give the playground the 8-bit model back" : "Lend this model to chapter 1's playground";
    lendOut.textContent = lendText();
    lendOut.dataset.lent = String(lent);
  }

  async function runWith(b, s) {
    clearErrors({ pasted });
    const r = await call("ch2_requant", { bits: b, scheme: s, text: pasted.value });
    current = { bits: b, scheme: s };
    out.replaceChildren(el("div", {}, `${weightsWords(b, s)}: surprise on our story ${fmt(r.story.surprise, 3)} nats/token, ` +
      `${storyVerdict(r.story)}` + (r.pasted ? `; on your text ${fmt(r.pasted.surprise, 3)}` : "") +
      `; re-quantizing took ${fmt(r.requant_ms, 1)} ms.`),
      el("div", { class: "gen-text small" }, el("span", { class: "prompt-text", text: "Once upon a time, there was a" }), r.continuation));
    out.dataset.surprise = r.story.surprise;
    const vs8 = r.story.delta === 0 && r.story.delta_se === 0 ? "–"
      : `${f2.dnats(r.story.delta)} ± ${fmt(2 * r.story.delta_se, 3)} (${Math.abs(r.story.delta) < 2 * r.story.delta_se ? "noise" : "measurable"})`;
    const held = r.heldout ? `${f2.nats(r.heldout.nats)} (${f2.dnats(r.heldout.delta)})` : "not measured";
    table.append(el("tr", {}, [b, SCHEME_WORDS[s], fmt(r.story.surprise, 3), vs8, held, r.pasted ? fmt(r.pasted.surprise, 3) : "–",
      fmt(r.requant_ms, 1)].map((v) => el("td", { text: String(v) }))));
    if (lent) lendOut.textContent = lendText();
    results.push({ bits: b, scheme: s, story: r.story });
    setLive2({ "bits.table_words": tableWords(results) });
    return r;
  }
  const once = serial([apply, back, lend], out, { text: pasted, bits, scheme });
  apply.onclick = () => once(() => runWith(Number(bits.value), scheme.value));
  back.onclick = () => once(() => { bits.value = 8; bitsOut.textContent = "8"; scheme.value = "row"; return runWith(8, "row"); });
  lend.onclick = () => once(async () => {
    const r = await call("ch2_lend", { on: !lent });
    setLent(r.lent);
    window.dispatchEvent(new CustomEvent("decodelab:lend", { detail: r }));
  });
  // the playground gave the model back
  window.addEventListener("decodelab:lend", (e) => { if (e.detail.lent !== lent) setLent(e.detail.lent); });

  // on arrival: the shipped 8 bits, then the depth where the held-out loss starts to show
  whenSeen(root, () => whenFacts((f) => once(async () => {
    const h = f.heldout;
    // the float model's held-out figure, the baseline every row's held-out column is measured against
    if (h && !table.querySelector("#bd-float")) {
      table.rows[0].after(el("tr", { id: "bd-float" }, ["float32", "(no scales)", "–", "–",
        `${f2.nats(h.sweep_float_nats)} (baseline)`, "–", "–"].map((v) => el("td", { text: v }))));
    }
    if (table.rows.length > 2) return; // the reader was quicker
    const r8 = await runWith(8, "row");
    const low = (h && h.thread.row) || 4;
    const rl = await runWith(low, "row");
    setLive2({ "bits.story_8": r8.story.surprise, "bits.story_low": rl.story.surprise, "bits.story_low_bits": low,
      "bits.story_low_verdict": storyVerdict(rl.story) });
    bits.value = low; bitsOut.textContent = String(low); scheme.value = "row"; // the copy stays at the lower depth
  })));
  // a restarted engine has the shipped 8-bit weights again and no loan: say so, keep the table
  on("restarted", () => {
    setStatus(out, "The engine restarted, so the model is back at its shipped 8 bits.");
    current = { bits: 8, scheme: "row" };
    setLent(false);
  });
}
