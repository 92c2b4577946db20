// Four temperatures continue one prompt with one shared seed, side by side, each with its surprise.
// It runs once by itself when first scrolled into view, at the reference example the prose quotes
// (live/examples.js FOUR_TEMPS; the build computes the prose's four.* numbers from it).
import { call } from "../engine.js";
import { el, numberBox, serial, readNumber, clearErrors, whenSeen, setNumber, fieldError } from "../ui.js";
import { t, parseDecimal } from "../i18n.js";
import { remember } from "../persist.js";
import { FOUR_TEMPS } from "../live/examples.js";
import { tokenSpan } from "./tokens.js";

export function mountFourTemps(root) {
  const prompt = el("input", { type: "text", id: "ft-prompt", value: FOUR_TEMPS.prompt, size: 48,
    maxlength: 2000, "t-aria-label": "w1.ft.prompt_aria" });
  const temps = FOUR_TEMPS.temps.map((x, i) => numberBox({ id: `ft-t${i}`, value: x, step: 0.1, min: 0, max: 3,
    "t-aria-label": "w1.ft.temp_aria", targs: { n: i + 1 } }));
  const seed = numberBox({ integer: true, id: "ft-seed", value: FOUR_TEMPS.seed, "t-aria-label": "w1.seed" });
  const run = el("button", { id: "ft-run", t: "w1.ft.run" });
  const reroll = el("button", { class: "secondary", id: "ft-reroll", t: "w1.ft.reroll" });
  // Each column carries its own temperature, a slider with the exact value beside it (design
  // review item 9: an instrument, not a form). The columns stay; a run rewrites their text.
  const columns = temps.map((num, i) => {
    const x = FOUR_TEMPS.temps[i];
    const slider = el("input", { type: "range", id: `ft-t${i}-range`, min: 0, max: 3, step: 0.1, value: x,
      "t-aria-label": "w1.ft.temp_aria", targs: { n: i + 1 } });
    slider.style.setProperty("--default-at", String(x / 3)); // the tick at the reference example's value
    slider.addEventListener("input", () => { setNumber(num, Number(slider.value)); fieldError(num, ""); });
    slider.addEventListener("change", () => go()); // released: the four columns are written again
    num.addEventListener("input", () => { const v = parseDecimal(num.value); if (Number.isFinite(v)) slider.value = String(v); });
    const surprise = el("span", { class: "hint ft-surprise" });
    const text = el("div", { class: "gen-text" });
    const col = el("div", { class: "col", id: `ft-col-${i}` },
      el("div", { class: "col-head ft-head" }, el("label", { for: num.id, text: "T" }), el("span", { class: "num-wrap" }, num), slider),
      surprise, text);
    return { col, slider, surprise, text };
  });
  const cols = el("div", { class: "columns four", id: "ft-cols" }, ...columns.map((c) => c.col));
  const status = el("div", { class: "status", role: "status" });
  // (no title of its own: the section's heading, just above, names it)
  root.append(el("div", { class: "controls" }, el("label", {}, el("span", { t: "w1.ft.prompt" }), " ", prompt)),
    el("div", { class: "controls" }, el("label", {}, el("span", { t: "w1.seed" }), " ", seed), reroll, run), cols, status);

  const fields = { prompt, seed, ...Object.fromEntries(temps.map((t, i) => [`temps.${i}`, t])) };
  const once = serial([run, reroll], status, fields);
  reroll.onclick = () => once(async () => {
    seed.value = Math.floor(Math.random() * 2 ** 32);
    remember(seed);
    await body();
  });
  run.onclick = () => go();
  // an instrument: a temperature or seed the reader commits (Enter, or leaving the box) writes
  // the four columns again; the button repeats it
  for (const box of [...temps, seed]) box.addEventListener("change", () => go());

  async function body() {
    // every box is checked and keeps its own message: a bad first column is not hidden by a good fourth
    const ts = temps.map((x, i) => readNumber(x, { label: () => t("w1.ft.column", { n: i + 1 }), min: 0, max: 3 }));
    const sd = readNumber(seed, { label: "w1.seed", min: 0, max: 2 ** 32 - 1, integer: true, id: true });
    if (ts.includes(null) || sd == null) return;
    clearErrors({ prompt });
    const r = await call("ch1_four", { prompt: prompt.value, temps: ts, seed: sd, n: FOUR_TEMPS.n });
    r.columns.forEach((c, ci) => {
      const col = columns[ci];
      col.slider.value = String(c.temperature);
      col.surprise.replaceChildren(el("span", { t: "w1.ft.surprise", targs: { s: { value: c.surprise, fixed: 2 } } }));
      col.text.replaceChildren(el("span", { class: "prompt-text", text: prompt.value }),
        ...c.texts.map((x, i) => tokenSpan(x, c.probs[i], null, null)));
    });
    cols.dataset.text = JSON.stringify(r.columns.map((c) => c.texts.join("")));
  }
  function go() { return once(body); }
  whenSeen(root, () => { if (!cols.dataset.text) go(); });
  return { go };
}
