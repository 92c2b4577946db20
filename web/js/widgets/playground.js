// The playground: a whole story with the panel's prompt and settings (read from the panel when
// it writes), a length, a seed, and a stop at the end token unless the reader asks to go past
// it. The prompt is shown split into the tokens the model reads; each new token is coloured by
// the probability it was drawn with and opens the distribution it came from. It writes once by
// itself when first seen. Chapter 2's bit-depth widget can lend it its re-quantized copy of the
// model (the session holds the loan; the store's "lend" keeps the banner in step).
import { call, on } from "../engine.js";
import { el, numberBox, serial, readNumber, whenSeen, fmtCount, setStatus, setText, tokenLabel } from "../ui.js";
import { plain, t } from "../i18n.js";
import { SPEC } from "../generated/spec.js";
import * as store from "../store.js";
import { remember } from "../persist.js";
import { tokenSpan, showTokenPopover } from "./tokens.js";

// every step of the sampler (SPEC.steps, in the order they apply) with its value or "off"
function describe(s) {
  const value = (st) => {
    const v = s[st.field];
    if (st.name === "temperature" && v === 0) return t("w1.pg.greedy", { t: 0 });
    return v === st.neutral ? t("w1.pg.off") : plain(v);
  };
  const list = SPEC.steps.map((st) => `${t(`w1.sp.${st.name}`)} ${value(st)}`).join(", ");
  return t(s.temperature_last ? "w1.pg.settings_last" : "w1.pg.settings", { list });
}
const count = (x) => ({ num: x, text: fmtCount(x) });

// what the story's run says: its length, why it stopped, its surprise and time
function summary(r, nPrompt, pastEnd) {
  const ends = r.tokens.filter((x) => x === r.end_token).length;
  const how = r.stop_reason === "stop_token" ? "w1.pg.stop_end" : pastEnd && ends ? "w1.pg.stop_length_ends" : "w1.pg.stop_length";
  return t("w1.pg.summary", { n: count(r.tokens.length), prompt: count(nPrompt), how: { key: how, args: { ends: count(ends) } },
    s: { value: r.surprise, fixed: 2 }, sec: { value: r.seconds, fixed: 2 } });
}

export function mountPlayground(root, { panel }) {
  const length = numberBox({ integer: true, id: "pg-length", value: 150, min: 20, max: 400, step: 10,
    "t-aria-label": "w1.pg.length_aria" });
  const seed = numberBox({ integer: true, id: "pg-seed", value: 1, "t-aria-label": "w1.pg.seed_aria" });
  const pastEnd = el("input", { type: "checkbox", id: "pg-past-end" });
  const write = el("button", { id: "pg-write", t: "w1.pg.write" });
  const reroll = el("button", { class: "secondary", id: "pg-reroll", t: "w1.new_seed" });
  const settingsLine = el("p", { class: "hint", id: "pg-settings" });
  const promptToks = el("div", { class: "prompt-tokens", id: "pg-prompt" });
  const story = el("div", { class: "gen-text", id: "pg-text" });
  const out = el("div", { class: "readout", id: "pg-out", role: "status" });
  const giveBack = el("button", { class: "secondary", id: "pg-lent-back", t: "w1.pg.give_back" });
  const lentMsg = el("span", { id: "pg-lent-msg" });
  const lentBar = el("p", { class: "hint", id: "pg-lent", hidden: true }, lentMsg, " ", giveBack);
  const SCHEMES = SPEC.schemes; // their names: w1.pg.scheme.NAME
  const showLent = (d) => {
    lentBar.hidden = !d.lent;
    if (d.lent) {
      setText(lentMsg, "w1.pg.lent", { bits: { num: d.bits, text: String(d.bits) },
        scheme: SCHEMES.includes(d.scheme) ? { key: `w1.pg.scheme.${d.scheme}` } : d.scheme });
    } else {
      delete lentMsg.dataset.t;
      lentMsg.textContent = "";
    }
    root.dataset.lent = String(!!d.lent);
  };
  store.subscribe("lend", showLent);
  on("restarted", () => showLent({ lent: false }));
  // the page's one probability key (the opening figure's bands)
  const legend = el("div", { class: "hint color-legend" }, el("span", { t: "w1.pg.legend" }), " ",
    ...[4, 3, 2, 1, 0].map((b) => el("span", { class: `tok tok-p${b}`, t: `fig.open.band${b}` })));
  // (no title of its own: the section's heading, just above, names it)
  root.append(el("div", { class: "controls" }, el("label", {}, el("span", { t: "w1.pg.length" }), " ", length),
      el("label", {}, el("span", { t: "w1.seed" }), " ", seed), reroll,
      el("label", {}, pastEnd, " ", el("span", { t: "w1.pg.past_end" })), write),
    lentBar, settingsLine, el("div", { class: "hint", t: "w1.pg.prompt_tokens" }), promptToks, story, legend, out);

  const once = serial([write, reroll], out, { n: length, seed });
  const go = () => once(async () => {
    const cur = panel && panel.current();
    if (!cur) { setStatus(out, () => t("w1.pg.fix_panel"), true); return; }
    const n = readNumber(length, { label: "w1.pg.length_label", min: 20, max: 400, integer: true });
    const sd = readNumber(seed, { label: "w1.seed", min: 0, max: 2 ** 32 - 1, integer: true, id: true });
    if (n == null || sd == null) return;
    const toks = await call("ch1_tokenize", { prompt: cur.prompt });
    const r = await call("ch1_draw", { prompt: cur.prompt, settings: cur.settings, seed: sd, n, stop_at_end: !pastEnd.checked,
      playground: true });
    showLent(r.weights);
    out.dataset.weights = `${r.weights.bits},${r.weights.scheme},${r.weights.lent}`;
    setStatus(settingsLine, () => describe(cur.settings));
    promptToks.replaceChildren(...toks.texts.map((x, i) => el("span", { class: "ptok", id: `pg-ptok-${i}`, text: tokenLabel(x) })));
    promptToks.dataset.count = String(toks.ids.length);
    story.replaceChildren(el("span", { class: "prompt-text", text: cur.prompt }), ...r.tokens.map((id, i) => {
      const d = { id, text: r.texts[i], p: r.steps[i].p, top: r.steps[i].top, survivors: r.steps[i].survivors };
      return tokenSpan(d.text, d.p, (s) => showTokenPopover(story, d, s), `pg-tok-${i}`);
    }));
    const nPrompt = toks.ids.length, past = pastEnd.checked;
    setStatus(out, () => summary(r, nPrompt, past));
    out.dataset.reason = r.stop_reason;
  });
  write.onclick = go;
  // end the loan and write again with the shipped model
  giveBack.onclick = () => once(async () => {
    const r = await call("ch2_lend", { on: false });
    store.set("lend", r);
  }).then(go);
  reroll.onclick = () => { seed.value = Math.floor(Math.random() * 2 ** 32); remember(seed); go(); };
  whenSeen(root, () => { if (!story.childNodes.length) go(); });
}
