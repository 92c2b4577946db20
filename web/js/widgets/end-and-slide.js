// The end token stops a story; the context slide lets generation run past 512 tokens. The first
// button's run (until the end token, short) happens by itself when the widget is first seen; the
// 700-token run waits for its click. Each run fills the prose's end.* / slide.* keys.
import { call } from "../engine.js";
import { el, serial, whenSeen, fmtCount, setStatus } from "../ui.js";
import { t } from "../i18n.js";
import { setLive } from "../ch1-live.js";
import { endMark } from "./tokens.js";

export function mountEndAndSlide(root) {
  const runEnd = el("button", { id: "es-end", t: "w1.es.run_end" });
  const runLong = el("button", { id: "es-long", class: "secondary", t: "w1.es.run_long" });
  const out = el("div", { class: "readout", id: "es-out", role: "status" });
  // it scrolls when the story is long: focusable, so keyboard users can scroll it too
  const text = el("div", { class: "gen-text small", id: "es-text", tabindex: 0, role: "region", "t-aria-label": "w1.es.text_aria" });
  root.append(el("h3", { t: "w1.es.title" }), el("div", { class: "controls" }, runEnd, runLong), out, text);
  const prompt = "Once upon a time, there was a little fox.";
  const once = serial([runEnd, runLong], out);
  const press = { key: "w1.es.press" };
  setLive({ "slide.slides": press, "slide.cache_len": press, "slide.eot_count": press });

  // the story as text, with each end token shown as the end of a story (what follows is a new one)
  function show(r) {
    text.replaceChildren(prompt, ...r.tokens.map((tok, i) => (tok === r.end_token ? endMark() : r.texts[i])));
  }
  const writeToEnd = () => once(async () => {
    const r = await call("ch1_long", { prompt, seed: 11, n: 400, stop_at_end: true });
    const n = r.tokens.length, args = { n: { num: n, text: fmtCount(n) }, id: String(r.end_token) };
    setStatus(out, () => t(r.stop_reason === "stop_token" ? "w1.es.stopped" : "w1.es.no_end", args));
    show(r);
    out.dataset.reason = r.stop_reason;
    setLive({ "end.n_tokens": r.stop_reason === "stop_token" ? n : { key: "w1.es.more_than", args } });
  });
  runEnd.onclick = writeToEnd;
  runLong.onclick = () => once(async () => {
    const r = await call("ch1_long", { prompt, seed: 11, n: 700, stop_at_end: false });
    const ends = r.tokens.filter((t) => t === r.end_token).length;
    const count = (x) => ({ num: x, text: fmtCount(x) });
    const args = { n: count(r.tokens.length), s: { value: r.seconds, fixed: 2 }, context: count(r.context),
      slides: count(r.slides), keep: count(r.keep), cache: count(r.cache_len), ends: count(ends) };
    setStatus(out, () => t("w1.es.long", args));
    show(r);
    out.dataset.slides = r.slides;
    setLive({ "slide.slides": r.slides, "slide.cache_len": r.cache_len, "slide.eot_count": ends });
  });
  whenSeen(root, () => { if (!text.childNodes.length) writeToEnd(); });
}
