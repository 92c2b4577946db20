// Greedy decoding from two openings; tokens that complete a 4-gram seen before are highlighted, and a
// repetition-penalty slider shows how the loop breaks. A story that reaches the end token stops
// there. It runs once by itself when first scrolled into view.
import { call } from "../engine.js";
import { el, serial, latest, whenSeen } from "../ui.js";
import { fixed, onLang } from "../i18n.js";
import { LOOPS } from "../live/examples.js";
import { endMark } from "./tokens.js";

export function mountGreedyLoops(root) {
  // the first opening runs to the end of its story; the second loops at once
  const a = el("input", { type: "text", id: "gl-a", value: LOOPS.openings[0], size: 42,
    maxlength: 2000, "t-aria-label": "w1.gl.first_aria" });
  const b = el("input", { type: "text", id: "gl-b", value: LOOPS.openings[1], size: 42,
    maxlength: 2000, "t-aria-label": "w1.gl.second_aria" });
  const pen = el("input", { type: "range", id: "gl-penalty", min: 1, max: 2, step: 0.05, value: 1, "t-aria-label": "w1.gl.penalty" });
  const penOut = el("output", { id: "gl-penalty-out", text: fixed(1, 2) });
  const showPen = () => { penOut.textContent = fixed(Number(pen.value), 2); };
  onLang(showPen);
  const run = el("button", { id: "gl-run", t: "w1.gl.run" });
  const cols = el("div", { class: "columns two", id: "gl-cols" });
  const status = el("div", { class: "status", role: "status" });
  root.append(el("div", { class: "controls" }, a, b),
    el("div", { class: "controls" }, el("label", {}, el("span", { t: "w1.gl.penalty" }), " ", pen, penOut), run), cols, status);
  const once = serial([run], status, { "openings.0": a, "openings.1": b, repetition_penalty: pen });
  async function body() {
    showPen(); // also after a reload put the slider back
    const r = await call("ch1_loops", { openings: [a.value, b.value], n: LOOPS.n, penalty: Number(pen.value) });
    cols.replaceChildren(...r.columns.map((c, ci) => el("div", { class: "col", id: `gl-col-${ci}` },
      el("div", { class: "col-head", t: "w1.gl.share",
        targs: { pct: { key: "fmt.pct", args: { x: { value: 100 * c.repeat_share, fixed: 0 } } } } }),
      el("div", { class: "gen-text" }, el("span", { class: "prompt-text", text: c.opening }),
        ...c.texts.map((x, i) => (c.tokens[i] === r.end_token ? endMark()
          : el("span", { class: "tok" + (c.repeat[i] ? " repeat" : ""), text: x })))))));
    cols.dataset.penalty = r.penalty;
  }
  // slider moves while a run is going: only the newest value runs next
  const rerun = latest(() => once(body));
  pen.addEventListener("input", showPen);
  pen.addEventListener("change", () => rerun());
  run.onclick = () => rerun();
  whenSeen(root, () => { if (!cols.children.length) rerun(); });
  return { go: () => rerun() };
}
