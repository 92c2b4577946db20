// Greedy decoding from two openings; tokens that complete a 4-gram seen before are highlighted, and a
// repetition-penalty slider shows how the loop breaks.
import { call } from "../engine.js";
import { el, serial, latest } from "../ui.js";

export function mountGreedyLoops(root) {
  const a = el("input", { type: "text", id: "gl-a", value: "Tom had a ball. He liked to play with the ball.", size: 42,
    maxlength: 2000, "aria-label": "first opening" });
  const b = el("input", { type: "text", id: "gl-b", value: "The cat sat on the mat. The cat", size: 42,
    maxlength: 2000, "aria-label": "second opening" });
  const pen = el("input", { type: "range", id: "gl-penalty", min: 1, max: 2, step: 0.05, value: 1, "aria-label": "repetition penalty" });
  const penOut = el("output", { id: "gl-penalty-out", text: "1.00" });
  const run = el("button", { id: "gl-run", text: "Run greedy" });
  const cols = el("div", { class: "columns two", id: "gl-cols" });
  const status = el("div", { class: "status", role: "status" });
  root.append(el("h3", { text: "Greedy loops" }), el("div", { class: "controls" }, a, b),
    el("div", { class: "controls" }, el("label", {}, "repetition penalty ", pen, penOut), run), cols, status);
  const once = serial([run], status, { "openings.0": a, "openings.1": b, repetition_penalty: pen });
  async function body() {
    const r = await call("ch1_loops", { openings: [a.value, b.value], n: 80, penalty: Number(pen.value) });
    cols.replaceChildren(...r.columns.map((c, ci) => el("div", { class: "col", id: `gl-col-${ci}` },
      el("div", { class: "col-head" }, `${(100 * c.repeat_share).toFixed(0)}% of tokens repeat an earlier 4-gram`),
      el("div", { class: "gen-text" }, el("span", { class: "prompt-text", text: c.opening }),
        ...c.texts.map((t, i) => el("span", { class: "tok" + (c.repeat[i] ? " repeat" : ""), text: t }))))));
    cols.dataset.penalty = r.penalty;
  }
  // slider moves while a run is going: only the newest value runs next
  const rerun = latest(() => once(body));
  pen.addEventListener("input", () => { penOut.textContent = Number(pen.value).toFixed(2); });
  pen.addEventListener("change", () => rerun());
  run.onclick = () => rerun();
  return { go: () => rerun() };
}
