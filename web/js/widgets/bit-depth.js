// Re-quantize every weight of a private copy of the model to 8..2 bits (per row, per matrix, per
// group of 32) and measure it on our story, beside the held-out figure the export measured for the
// same depth. Fills two rows when first seen (8 bits, and the depth where the held-out loss starts
// to show: the reference rows the prose's ch2.bits.story_* numbers come from), and can lend its copy to chapter 1's
// playground (ch2_lend; the session keeps that state, the store's "lend" tells the page).
// The readout and the table are drawn from the results kept, again after a language switch.
import { call, on } from "../engine.js";
import { el, fmt, serial, clearErrors, whenSeen, setStatus, setText, segmented, whenNear } from "../ui.js";
import { t, onLang } from "../i18n.js";
import { setLive } from "../live.js";
import { whenFacts } from "../facts.js";
import { f2, whole } from "../live/formats.js";
import { storyVerdict, tableWords, bitDepthLow } from "../live/words.js";
import { SPEC } from "../generated/spec.js";
import * as store from "../store.js";
import { drawBitsLoss } from "../diagrams/bits-loss.js";

const SCHEMES = SPEC.schemes;
const schemeKey = (scheme) => `w2.scheme.${scheme}`;
const schemeWords = (scheme) => (SCHEMES.includes(scheme) ? t(schemeKey(scheme)) : scheme);
// "3 bits, one scale per row" as a text key and its arguments (for setText, and for t)
const weightsText = (bits, scheme) => ({ key: "w2.bd.weights", args: { bits, scheme: SCHEMES.includes(scheme) ? { key: schemeKey(scheme) } : scheme } });
export const weightsWords = (bits, scheme) => { const w = weightsText(bits, scheme); return t(w.key, w.args); };

export function mountBitDepth(root) {
  const bits = el("input", { type: "range", id: "bd-bits", min: 2, max: 8, step: 1, value: 8, "t-aria-label": "w2.bd.bits_aria" });
  const bitsOut = el("output", { id: "bd-bits-out", text: "8" });
  const scheme = segmented({ id: "bd-scheme", label: "w2.bd.scheme_aria", value: "row", options: SCHEMES.map((s) => [s, schemeKey(s)]) });
  const apply = el("button", { id: "bd-apply", t: "w2.bd.apply" });
  const back = el("button", { class: "secondary", id: "bd-back", t: "w2.bd.back" });
  const lend = el("button", { class: "secondary", id: "bd-lend", t: "w2.bd.lend" });
  const lendOut = el("p", { class: "hint", id: "bd-lend-out", role: "status", t: "w2.bd.own_copy" });
  const pasted = el("textarea", { id: "bd-text", rows: 2, cols: 60, maxlength: 8000,
    "t-placeholder": "w2.bd.paste_placeholder", targs: { max: 8000 }, "t-aria-label": "w2.bd.paste_aria" });
  const out = el("div", { class: "readout", id: "bd-out", role: "status" });
  const head = ["bits", "scales", "story", "vs8", "heldout", "pasted", "ms"];
  const table = el("table", { class: "data", id: "bd-table", tabindex: 0, "t-aria-label": "w2.bd.table_aria" },
    el("tr", {}, head.map((h) => el("th", { t: `w2.bd.h.${h}` }))));
  const pic = el("div", { class: "bd-pic", id: "bd-pic" });
  root.append(
    el("div", { class: "controls" }, el("label", {}, el("span", { t: "w2.bd.bits" }), " ", bits, bitsOut), scheme, apply, back), pasted, out,
    el("p", { class: "diagram-desc", t: "w2.bd.pic_desc" }), pic,
    el("details", { class: "numbers" }, el("summary", { t: "w2.bd.numbers" }), el("p", { class: "hint", t: "w2.bd.table_hint" }),
      el("div", { class: "table-scroll" }, table)), el("div", { class: "controls" }, lend), lendOut);
  // the export's sweep as lines, the reader's runs ringed on them (drawn again as runs come in)
  let heldout = null;
  const drawPicture = () => {
    if (!heldout || !heldout.delta) return;
    pic.replaceChildren(drawBitsLoss(heldout.delta, results, Math.min(pic.clientWidth || 640, 1000), heldout.limits));
  };
  // drawn once near the screen: the picture measures its width, which lays out the chapter
  whenFacts((f) => { heldout = f.heldout; whenNear(pic).then(drawPicture); });
  const showBits = (v) => { bitsOut.textContent = whole(Number(v)); };
  bits.addEventListener("input", () => showBits(bits.value));
  let current = { bits: 8, scheme: "row" }, lent = false;
  const results = []; // every run of this page, for the table's reading in words
  const rows = []; // the table's rows: [tr, () => their cells' texts], written again in a new language
  let shown = null; // the result in the readout

  function lendText() {
    if (lent) setText(lendOut, "w2.bd.lent", { weights: weightsText(current.bits, current.scheme) });
    else setText(lendOut, "w2.bd.own_copy");
  }
  function setLent(v) {
    lent = v;
    setText(lend, lent ? "w2.bd.give_back" : "w2.bd.lend");
    lendText();
    lendOut.dataset.lent = String(lent);
  }

  function addRow(cells, attrs = {}, after = null) {
    const tr = el("tr", attrs, cells().map((v) => el("td", { text: v })));
    rows.push([tr, cells]);
    if (after) after.after(tr);
    else table.append(tr);
    return tr;
  }
  function drawOut(b, s, r) {
    const res = t("w2.bd.result", { weights: weightsWords(b, s), surprise: fmt(r.story.surprise, 3), verdict: storyVerdict(r.story),
      pasted: r.pasted ? t("w2.bd.result_pasted", { surprise: fmt(r.pasted.surprise, 3) }) : "", ms: fmt(r.requant_ms, 1) });
    setStatus(out, ""); // a message shown before (the restart's) is over
    out.replaceChildren(el("div", {}, res),
      el("div", { class: "gen-text small" }, el("span", { class: "prompt-text", text: "Once upon a time, there was a" }), r.continuation));
  }
  onLang(() => {
    for (const [tr, cells] of rows) cells().forEach((v, i) => { tr.cells[i].textContent = v; });
    showBits(bits.value);
    drawPicture();
    if (shown && !out.classList.contains("error")) drawOut(...shown);
  });

  async function runWith(b, s) {
    clearErrors({ pasted });
    const r = await call("ch2_requant", { bits: b, scheme: s, text: pasted.value });
    current = { bits: b, scheme: s };
    shown = [b, s, r];
    drawOut(b, s, r);
    out.dataset.surprise = r.story.surprise;
    const vs8 = () => (r.story.delta === 0 && r.story.delta_se === 0 ? "–"
      : t("w2.bd.vs8", { d: f2.dnats(r.story.delta), se: fmt(2 * r.story.delta_se, 3),
        kind: t(Math.abs(r.story.delta) < 2 * r.story.delta_se ? "w2.bd.noise" : "w2.bd.measurable") }));
    const held = () => (r.heldout ? t("w2.bd.heldout", { nats: f2.nats(r.heldout.nats), d: f2.dnats(r.heldout.delta) }) : t("w2.bd.not_measured"));
    addRow(() => [whole(b), schemeWords(s), fmt(r.story.surprise, 3), vs8(), held(), r.pasted ? fmt(r.pasted.surprise, 3) : "–",
      fmt(r.requant_ms, 1)]);
    if (lent) lendText();
    results.push({ bits: b, scheme: s, story: r.story });
    drawPicture();
    setLive({ "ch2.bits.table_words": () => tableWords(results) }); // the reader's table so far
    return r;
  }
  const once = serial([apply, back, lend], out, { text: pasted, bits, scheme });
  apply.onclick = () => once(() => runWith(Number(bits.value), scheme.value));
  // an instrument, not a form (design review item 9): a released slider or a new scheme measures
  // at once (a re-quantization and the story take well under a second here); the button repeats it
  bits.addEventListener("change", () => apply.click());
  scheme.addEventListener("change", () => apply.click());
  back.onclick = () => once(() => { bits.value = 8; showBits(8); scheme.value = "row"; return runWith(8, "row"); });
  lend.onclick = () => once(async () => {
    const r = await call("ch2_lend", { on: !lent });
    setLent(r.lent);
    store.set("lend", r);
  });
  // the playground gave the model back
  store.subscribe("lend", (r) => { if (r.lent !== lent) setLent(r.lent); }, { now: false });

  // on arrival: the shipped 8 bits, then the depth where the held-out loss starts to show
  whenSeen(root, () => whenFacts((f) => once(async () => {
    const h = f.heldout;
    // the float model's held-out figure, the baseline every row's held-out column is measured against
    if (h && !table.querySelector("#bd-float")) {
      addRow(() => ["float32", t("w2.bd.no_scales"), "–", "–", t("w2.bd.baseline", { nats: f2.nats(h.sweep_float_nats) }), "–", "–"],
        { id: "bd-float" }, table.rows[0]);
    }
    if (table.rows.length > 2) return; // the reader was quicker
    await runWith(8, "row");
    const low = bitDepthLow(h); // the registry's reference rows, which the prose quotes
    await runWith(low, "row");
    bits.value = low; showBits(low); scheme.value = "row"; // the copy stays at the lower depth
  })));
  // a restarted engine has the shipped 8-bit weights again and no loan: say so, keep the table
  on("restarted", () => {
    shown = null;
    setStatus(out, () => t("w2.bd.restarted"));
    current = { bits: 8, scheme: "row" };
    setLent(false);
  });
}
