// The end token stops a story; the context slide lets generation run past 512 tokens.
import { call } from "../engine.js";
import { el, serial } from "../ui.js";

export function mountEndAndSlide(root) {
  const runEnd = el("button", { id: "es-end", text: "Write until the end token" });
  const runLong = el("button", { id: "es-long", class: "secondary", text: "Write 700 tokens, ignoring it" });
  const out = el("div", { class: "readout", id: "es-out", role: "status" });
  const text = el("div", { class: "gen-text small", id: "es-text" });
  root.append(el("h3", { text: "Stopping, and running past the context" }), el("div", { class: "controls" }, runEnd, runLong), out, text);
  const prompt = "Once upon a time, there was a little fox.";
  const once = serial([runEnd, runLong], out);
  runEnd.onclick = () => once(async () => {
    const r = await call("ch1_long", { prompt, seed: 11, n: 400, stop_at_end: true });
    out.textContent = r.stop_reason === "stop_token"
      ? `Stopped after ${r.tokens.length} tokens: the model chose the end token (id ${r.end_token}).`
      : `No end token within ${r.tokens.length} tokens.`;
    text.textContent = prompt + r.texts.map((t) => (t === r.end_text ? " ⟨end⟩" : t)).join("");
    out.dataset.reason = r.stop_reason;
  });
  runLong.onclick = () => once(async () => {
    const r = await call("ch1_long", { prompt, seed: 11, n: 700, stop_at_end: false });
    out.textContent = `${r.tokens.length} tokens in ${r.seconds.toFixed(2)} s. The cache filled up at ${r.context} positions ` +
      `${r.slides} time${r.slides === 1 ? "" : "s"}; each time the last ${r.keep} tokens were kept and re-read in one pass. ` +
      `It now holds ${r.cache_len}.`;
    text.textContent = prompt + r.texts.map((t) => (t === r.end_text ? "\n⟨end⟩\n" : t)).join("");
    out.dataset.slides = r.slides;
  });
}
