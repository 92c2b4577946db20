// Four temperatures continue one prompt with one shared seed, side by side, each with its surprise.
// It runs once by itself when first scrolled into view; each run fills the prose's four.* keys.
import { call } from "../engine.js";
import { el, fmt, serial, readNumber, clearErrors, whenSeen } from "../ui.js";
import { remember } from "../persist.js";
import { setLive } from "../ch1-live.js";
import { tokenSpan } from "./tokens.js";

export function mountFourTemps(root) {
  const prompt = el("input", { type: "text", id: "ft-prompt", value: "Once upon a time, there was a girl named", size: 48,
    maxlength: 2000, "aria-label": "prompt for the four columns" });
  const temps = [0.3, 0.7, 1.0, 1.5].map((t, i) => el("input", { type: "number", id: `ft-t${i}`, value: t, step: 0.1, min: 0, max: 3,
    "aria-label": `temperature of column ${i + 1}` }));
  const seed = el("input", { type: "number", id: "ft-seed", value: 7, "aria-label": "seed" });
  const run = el("button", { id: "ft-run", text: "Continue" });
  const reroll = el("button", { class: "secondary", id: "ft-reroll", text: "Re-roll the seed" });
  const cols = el("div", { class: "columns four", id: "ft-cols" });
  const status = el("div", { class: "status", role: "status" });
  root.append(el("h3", { text: "Four temperatures, one seed" }),
    el("div", { class: "controls" }, el("label", {}, "prompt ", prompt)),
    el("div", { class: "controls" }, "temperatures ", ...temps.map((t) => el("span", { class: "num-wrap" }, t)),
      el("label", {}, "seed ", seed), reroll, run), cols, status);

  const fields = { prompt, seed, ...Object.fromEntries(temps.map((t, i) => [`temps.${i}`, t])) };
  const once = serial([run, reroll], status, fields);
  reroll.onclick = () => once(async () => {
    seed.value = Math.floor(Math.random() * 2 ** 32);
    remember(seed);
    await body();
  });
  run.onclick = () => go();

  async function body() {
    // every box is checked and keeps its own message: a bad first column is not hidden by a good fourth
    const ts = temps.map((t, i) => readNumber(t, { label: `column ${i + 1}`, min: 0, max: 3 }));
    const sd = readNumber(seed, { label: "seed", min: 0, max: 2 ** 32 - 1, integer: true });
    if (ts.includes(null) || sd == null) return;
    clearErrors({ prompt });
    const r = await call("ch1_four", { prompt: prompt.value, temps: ts, seed: sd, n: 40 });
    cols.replaceChildren(...r.columns.map((c, ci) => el("div", { class: "col", id: `ft-col-${ci}` },
      el("div", { class: "col-head" }, `T = ${c.temperature}`, el("span", { class: "hint", text: ` surprise ${fmt(c.surprise, 2)} nats/token` })),
      el("div", { class: "gen-text" }, el("span", { class: "prompt-text", text: prompt.value }),
        ...c.texts.map((t, i) => tokenSpan(t, c.probs[i], null, null))))));
    cols.dataset.text = JSON.stringify(r.columns.map((c) => c.texts.join("")));
    setLive(liveKeys(r.columns));
  }
  function go() { return once(body); }
  whenSeen(root, () => { if (!cols.children.length) go(); });
  return { go };
}

// The prose's numbers for this run, columns from coldest to hottest (the reader may type the
// temperatures in any order): each column's surprise, and the first new token where it leaves
// the coldest column (a column that stopped earlier differs where its tokens run out).
export function liveKeys(columns) {
  const cs = [...columns].sort((a, b) => a.temperature - b.temperature);
  const cold = cs[0].tokens, out = {};
  cs.forEach((c, i) => {
    out[`four.t${i}`] = String(c.temperature);
    out[`four.s${i}`] = c.surprise;
    if (!i) return;
    const n = Math.min(c.tokens.length, cold.length);
    let j = 0;
    while (j < n && c.tokens[j] === cold[j]) j++;
    const same = j === n && c.tokens.length === cold.length;
    out[`four.split${i}`] = same ? "no token in this run" : `token ${j + 1}`;
  });
  return out;
}
