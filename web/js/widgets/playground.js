// The playground: a whole story with the panel's prompt and settings (read from the panel when
// it writes), a length, a seed, and a stop at the end token unless the reader asks to go past
// it. The prompt is shown split into the tokens the model reads; each new token is coloured by
// the probability it was drawn with and opens the distribution it came from. It writes once by
// itself when first seen. Chapter 2's bit-depth widget can lend it its re-quantized copy of the
// model (the session holds the loan; "decodelab:lend" events keep the banner in step).
import { call, on } from "../engine.js";
import { el, serial, readNumber, whenSeen, fmtCount, fmtPct, setStatus, tokenLabel } from "../ui.js";
import { remember } from "../persist.js";
import { tokenSpan, showTokenPopover, probColor } from "./tokens.js";

function describe(s) {
  const off = (v, zero) => (v === zero ? "off" : String(v));
  return `Using the panel's settings: temperature ${s.temperature}${s.temperature === 0 ? " (greedy)" : ""}, ` +
    `top-k ${off(s.top_k, 0)}, top-p ${off(s.top_p, 1)}, min-p ${off(s.min_p, 0)}, ` +
    `repetition penalty ${off(s.repetition_penalty, 1)}${s.temperature_last ? ", temperature applied last" : ""}. ` +
    "Change them in the panel above and write again.";
}

export function mountPlayground(root, { panel }) {
  const length = el("input", { type: "number", id: "pg-length", value: 150, min: 20, max: 400, step: 10,
    "aria-label": "story length in tokens" });
  const seed = el("input", { type: "number", id: "pg-seed", value: 1, "aria-label": "playground seed" });
  const pastEnd = el("input", { type: "checkbox", id: "pg-past-end" });
  const write = el("button", { id: "pg-write", text: "Write a story" });
  const reroll = el("button", { class: "secondary", id: "pg-reroll", text: "new seed" });
  const settingsLine = el("p", { class: "hint", id: "pg-settings" });
  const promptToks = el("div", { class: "prompt-tokens", id: "pg-prompt" });
  const story = el("div", { class: "gen-text", id: "pg-text" });
  const out = el("div", { class: "readout", id: "pg-out", role: "status" });
  const giveBack = el("button", { class: "secondary", id: "pg-lent-back", text: "back to 8 bits" });
  const lentMsg = el("span", { id: "pg-lent-msg" });
  const lentBar = el("p", { class: "hint", id: "pg-lent", hidden: true }, lentMsg, " ", giveBack);
  const showLent = (d) => {
    lentBar.hidden = !d.lent;
    lentMsg.textContent = d.lent ? `Writing with chapter 2's re-quantized model (${d.bits} bits, ` +
      `${{ row: "one scale per row", matrix: "one scale per matrix", group32: "one scale per group of 32" }[d.scheme] || d.scheme}).` : "";
    root.dataset.lent = String(!!d.lent);
  };
  window.addEventListener("decodelab:lend", (e) => showLent(e.detail));
  on("restarted", () => showLent({ lent: false }));
  const legend = el("div", { class: "hint color-legend" }, "colour: the probability each token was drawn with ",
    ...[1, 0.3, 0.1, 0.01, 0.001].map((p) => el("span", { class: "tok", style: { background: probColor(p) }, text: fmtPct(p) })));
  root.append(el("h3", { text: "Write a story" }),
    el("div", { class: "controls" }, el("label", {}, "length (tokens) ", length), el("label", {}, "seed ", seed), reroll,
      el("label", {}, pastEnd, " keep going past the end token"), write),
    lentBar, settingsLine, el("div", { class: "hint", text: "The prompt, as the tokens the model reads:" }), promptToks, story, legend, out);

  const once = serial([write, reroll], out, { n: length, seed });
  const go = () => once(async () => {
    const cur = panel && panel.current();
    if (!cur) { setStatus(out, "The panel's settings need a fix first: see the message in the panel above.", true); return; }
    const n = readNumber(length, { label: "length", min: 20, max: 400, integer: true });
    const sd = readNumber(seed, { label: "seed", min: 0, max: 2 ** 32 - 1, integer: true });
    if (n == null || sd == null) return;
    const toks = await call("ch1_tokenize", { prompt: cur.prompt });
    const r = await call("ch1_draw", { prompt: cur.prompt, settings: cur.settings, seed: sd, n, stop_at_end: !pastEnd.checked,
      playground: true });
    showLent(r.weights);
    out.dataset.weights = `${r.weights.bits},${r.weights.scheme},${r.weights.lent}`;
    settingsLine.textContent = describe(cur.settings);
    promptToks.replaceChildren(...toks.texts.map((t, i) => el("span", { class: "ptok", id: `pg-ptok-${i}`, text: tokenLabel(t) })));
    promptToks.dataset.count = String(toks.ids.length);
    story.replaceChildren(el("span", { class: "prompt-text", text: cur.prompt }), ...r.tokens.map((id, i) => {
      const d = { id, text: r.texts[i], p: r.steps[i].p, top: r.steps[i].top, survivors: r.steps[i].survivors };
      return tokenSpan(d.text, d.p, (s) => showTokenPopover(story, d, s), `pg-tok-${i}`);
    }));
    const ended = r.stop_reason === "stop_token";
    const ends = r.tokens.filter((t) => t === r.end_token).length;
    out.textContent = `${fmtCount(r.tokens.length)} tokens after a prompt of ${fmtCount(toks.ids.length)}` +
      (ended ? ": the model chose the end token." : pastEnd.checked && ends
        ? `: the length limit; the model chose the end token ${ends} time${ends === 1 ? "" : "s"} and went on.`
        : ": the length limit, before any end token.") +
      ` Surprise ${r.surprise.toFixed(2)} nats per token (−ln p at T = 1); ${r.seconds.toFixed(2)} s.`;
    out.dataset.reason = r.stop_reason;
  });
  write.onclick = go;
  // end the loan and write again with the shipped model
  giveBack.onclick = () => once(async () => {
    const r = await call("ch2_lend", { on: false });
    window.dispatchEvent(new CustomEvent("decodelab:lend", { detail: r }));
  }).then(go);
  reroll.onclick = () => { seed.value = Math.floor(Math.random() * 2 ** 32); remember(seed); go(); };
  whenSeen(root, () => { if (!story.childNodes.length) go(); });
}
