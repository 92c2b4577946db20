// Four temperatures continue one prompt with one shared seed, side by side, each with its surprise.
// It runs once by itself when first scrolled into view, at the reference example the prose quotes
// (live/examples.js FOUR_TEMPS; the build computes the prose's four.* numbers from it).
import { call } from "../engine.js";
import { el, numberBox, serial, readNumber, clearErrors, whenSeen } from "../ui.js";
import { t } from "../i18n.js";
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
  const cols = el("div", { class: "columns four", id: "ft-cols" });
  const status = el("div", { class: "status", role: "status" });
  root.append(el("h3", { t: "w1.ft.title" }),
    el("div", { class: "controls" }, el("label", {}, el("span", { t: "w1.ft.prompt" }), " ", prompt)),
    el("div", { class: "controls" }, el("span", { t: "w1.ft.temps" }), " ", ...temps.map((x) => el("span", { class: "num-wrap" }, x)),
      el("label", {}, el("span", { t: "w1.seed" }), " ", seed), reroll, run), cols, status);

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
    cols.replaceChildren(...r.columns.map((c, ci) => el("div", { class: "col", id: `ft-col-${ci}` },
      el("div", { class: "col-head" }, el("span", { t: "w1.ft.col_t", targs: { t: c.temperature } }), " ",
        el("span", { class: "hint", t: "w1.ft.surprise", targs: { s: { value: c.surprise, fixed: 2 } } })),
      el("div", { class: "gen-text" }, el("span", { class: "prompt-text", text: prompt.value }),
        ...c.texts.map((x, i) => tokenSpan(x, c.probs[i], null, null))))));
    cols.dataset.text = JSON.stringify(r.columns.map((c) => c.texts.join("")));
  }
  function go() { return once(body); }
  whenSeen(root, () => { if (!cols.children.length) go(); });
  return { go };
}
