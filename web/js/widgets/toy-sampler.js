// The whole sampler on eight made-up words (issue 43): temperature, top-k and top-p sliders over
// the words' fixed scores, the picture of what each does (diagrams/toy-bars.js), and seeded draws
// that pile up under the words. The same scores and Python rules as the model's panel
// (ch1_toy runs sampler.py on them); the plain-Python version of it is the cell behind "see the
// code" below the picture. The table of numbers is one click away.
import { call } from "../engine.js";
import { el, latest, readNumber, showError, setStatus, sliderRow, whenSeen } from "../ui.js";
import { t, redrawOnLang, fixed } from "../i18n.js";
import { fmtPct } from "../live/formats.js";
import { TOY } from "../live/examples.js";
import { drawToyBars } from "../diagrams/toy-bars.js";

const MAX_DRAWS = 200; // dots the picture piles up (ch1_toy allows more)

export function mountToySampler(root) {
  const onChange = () => update(); // a slider or its number box moved
  // each control once: its label, range and whether it takes whole numbers (the slider and the check share them)
  const CONTROLS = {
    temperature: { id: "toy-t", label: "w1.toy.t", min: 0.1, max: 3, step: 0.05 },
    top_k: { id: "toy-k", label: "w1.toy.k", min: 0, max: TOY.words.length, step: 1, integer: true, hint: "w1.toy.k_off" },
    top_p: { id: "toy-p", label: "w1.toy.p", min: 0.05, max: 1, step: 0.01, hint: "w1.toy.p_off" },
  };
  const rows = Object.fromEntries(Object.entries(CONTROLS).map(([field, { integer, ...c }]) =>
    [field, sliderRow({ ...c, value: TOY.settings[field], onChange })]));
  let n = TOY.n, shown = 0; // draws asked for, and those the picture already holds
  const more = (k) => el("button", { id: `toy-draw${k}`, t: `w1.toy.draw${k}`, onclick: () => { n = Math.min(MAX_DRAWS, n + k); update(); } });
  const again = el("button", { class: "secondary", id: "toy-again", t: "w1.toy.again", onclick: () => { n = 0; shown = 0; update(); } });
  const pic = el("figure", { class: "toy-pic", id: "toy-pic" });
  const numbers = el("div", {});
  const status = el("div", { class: "status", id: "toy-status", role: "status" });
  root.append(el("div", { class: "controls toy-controls" }, Object.values(rows).map((r) => r.row)),
    el("div", { class: "controls" }, more(1), more(10), again), status, pic,
    el("details", { class: "numbers" }, el("summary", { t: "w1.toy.numbers" }), numbers));
  // fresh: how many draws are new (they come in); none after a language switch
  function draw(r, fresh = 0) {
    pic.replaceChildren(el("p", { class: "hint", t: "w1.toy.pic_top" }), drawToyBars(TOY.words, r, Math.min(pic.clientWidth || 640, 820), fresh),
      el("figcaption", { class: "hint", t: "w1.toy.note" }));
    const counts = TOY.words.map((_, i) => r.draws.filter((d) => d === i).length);
    numbers.replaceChildren(el("table", { class: "data", id: "toy-table", tabindex: 0, "t-aria-label": "w1.toy.numbers" },
      el("tr", {}, ["word", "score", "p", "q", "drawn"].map((h) => el("th", { t: `w1.toy.h.${h}` }))),
      TOY.words.map((w, i) => el("tr", {}, el("td", { class: "tok", translate: "no", lang: "en", text: w }), el("td", { text: fixed(TOY.logits[i], 1) }),
        el("td", { text: fmtPct(r.p[i]) }), el("td", { text: fmtPct(r.q[i]) }), el("td", { text: String(counts[i]) })))));
  }
  const show = redrawOnLang(draw);

  const update = latest(async () => {
    const settings = {};
    for (const [field, r] of Object.entries(rows)) {
      const { label, min, max, integer = false } = CONTROLS[field];
      const v = readNumber(r.num, { label, min, max, integer });
      if (v == null) return; // the box says what is wrong; the picture stays as it was
      settings[field] = v;
    }
    try {
      const r = await call("ch1_toy", { logits: TOY.logits, settings, seed: TOY.seed, n });
      setStatus(status, "");
      const fresh = Math.max(0, r.draws.length - shown);
      shown = r.draws.length;
      show(r, fresh);
    } catch (e) {
      showError(e, { temperature: rows.temperature.num, top_k: rows.top_k.num, top_p: rows.top_p.num }, status);
    }
  });
  whenSeen(root, () => update());
  return { update };
}
