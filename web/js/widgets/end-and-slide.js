// The end token stops a story; the context slide lets generation run past 512 tokens. The first
// button's run (until the end token, short) happens by itself when the widget is first seen; the
// 700-token run waits for its click. Each run fills the prose's end.* / slide.* keys.
import { call } from "../engine.js";
import { el, serial, whenSeen, fmtCount } from "../ui.js";
import { setLive } from "../ch1-live.js";
import { endMark } from "./tokens.js";

export function mountEndAndSlide(root) {
  const runEnd = el("button", { id: "es-end", text: "Write until the end token" });
  const runLong = el("button", { id: "es-long", class: "secondary", text: "Write 700 tokens, ignoring it" });
  const out = el("div", { class: "readout", id: "es-out", role: "status" });
  const text = el("div", { class: "gen-text small", id: "es-text" });
  root.append(el("h3", { text: "Stopping, and running past the context" }), el("div", { class: "controls" }, runEnd, runLong), out, text);
  const prompt = "Once upon a time, there was a little fox.";
  const once = serial([runEnd, runLong], out);
  const press = "(press the second button)";
  setLive({ "slide.slides": press, "slide.cache_len": press, "slide.eot_count": press });

  // the story as text, with each end token shown as the end of a story (what follows is a new one)
  function show(r) {
    text.replaceChildren(prompt, ...r.tokens.map((t, i) => (t === r.end_token ? endMark() : r.texts[i])));
  }
  const writeToEnd = () => once(async () => {
    const r = await call("ch1_long", { prompt, seed: 11, n: 400, stop_at_end: true });
    out.textContent = r.stop_reason === "stop_token"
      ? `Stopped after ${r.tokens.length} tokens: the model chose the end token (id ${r.end_token}).`
      : `No end token within ${r.tokens.length} tokens.`;
    show(r);
    out.dataset.reason = r.stop_reason;
    setLive({ "end.n_tokens": r.stop_reason === "stop_token" ? fmtCount(r.tokens.length)
      : `more than ${fmtCount(r.tokens.length)} (no end token came)` });
  });
  runEnd.onclick = writeToEnd;
  runLong.onclick = () => once(async () => {
    const r = await call("ch1_long", { prompt, seed: 11, n: 700, stop_at_end: false });
    const ends = r.tokens.filter((t) => t === r.end_token).length;
    out.textContent = `${r.tokens.length} tokens in ${r.seconds.toFixed(2)} s. The cache filled up at ${r.context} positions ` +
      `${r.slides} time${r.slides === 1 ? "" : "s"}; each time the last ${r.keep} tokens were kept and re-read in one pass. ` +
      `It now holds ${r.cache_len}. The model chose the end token ${ends} time${ends === 1 ? "" : "s"} and went on.`;
    show(r);
    out.dataset.slides = r.slides;
    setLive({ "slide.slides": r.slides, "slide.cache_len": r.cache_len, "slide.eot_count": ends });
  });
  whenSeen(root, () => { if (!text.childNodes.length) writeToEnd(); });
}
