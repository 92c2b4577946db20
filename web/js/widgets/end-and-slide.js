// The end token stops a story; the context slide lets generation run past 512 tokens. The first
// button's run (until the end token, short) happens by itself when the widget is first seen; the
// 700-token run waits for its click. Both are the reference runs the prose quotes
// (live/examples.js END_RUN, SLIDE_RUN).
import { call } from "../engine.js";
import { el, serial, whenSeen, fmtCount, setStatus } from "../ui.js";
import { t } from "../i18n.js";
import { END_RUN, SLIDE_RUN } from "../live/examples.js";
import { endMark } from "./tokens.js";

export function mountEndAndSlide(root) {
  const runEnd = el("button", { id: "es-end", t: "w1.es.run_end" });
  const runLong = el("button", { id: "es-long", class: "secondary", t: "w1.es.run_long" });
  const out = el("div", { class: "readout", id: "es-out", role: "status" });
  // it scrolls when the story is long: focusable, so keyboard users can scroll it too
  const text = el("div", { class: "gen-text small", id: "es-text", tabindex: 0, role: "region", "t-aria-label": "w1.es.text_aria" });
  root.append(el("div", { class: "controls" }, runEnd, runLong), out, text);
  const prompt = END_RUN.prompt;
  const once = serial([runEnd, runLong], out);

  // the story as text, with each end token shown as the end of a story (what follows is a new one)
  function show(r) {
    text.replaceChildren(prompt, ...r.tokens.map((tok, i) => (tok === r.end_token ? endMark() : r.texts[i])));
  }
  const writeToEnd = () => once(async () => {
    const r = await call("ch1_long", END_RUN);
    const n = r.tokens.length, args = { n: { num: n, text: fmtCount(n) }, id: String(r.end_token) };
    setStatus(out, () => t(r.stop_reason === "stop_token" ? "w1.es.stopped" : "w1.es.no_end", args));
    show(r);
    out.dataset.reason = r.stop_reason;
  });
  runEnd.onclick = writeToEnd;
  runLong.onclick = () => once(async () => {
    const r = await call("ch1_long", SLIDE_RUN);
    const ends = r.tokens.filter((t) => t === r.end_token).length;
    const count = (x) => ({ num: x, text: fmtCount(x) });
    const args = { n: count(r.tokens.length), s: { value: r.seconds, fixed: 2 }, context: count(r.context),
      slides: count(r.slides), keep: count(r.keep), cache: count(r.cache_len), ends: count(ends) };
    setStatus(out, () => t("w1.es.long", args));
    show(r);
    out.dataset.slides = r.slides;
  });
  whenSeen(root, () => { if (!text.childNodes.length) writeToEnd(); });
}
