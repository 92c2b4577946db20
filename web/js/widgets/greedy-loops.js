// Greedy decoding from two openings; tokens that complete a 4-gram seen before are highlighted, and a
// repetition-penalty slider shows how the loop breaks. A story that reaches the end token stops
// there. It runs once by itself when first scrolled into view.
import { call } from "../engine.js";
import { el, serial, latest, whenSeen } from "../ui.js";
import { setLive } from "../ch1-live.js";
import { endMark } from "./tokens.js";

export function mountGreedyLoops(root) {
  // the first opening runs to the end of its story; the second loops at once
  const a = el("input", { type: "text", id: "gl-a", value: "Once upon a time, there was a little girl named Lily.", size: 42,
    maxlength: 2000, "aria-label": "first opening" });
  const b = el("input", { type: "text", id: "gl-b", value: "Lily and Tom went to the beach. They", size: 42,
    maxlength: 2000, "aria-label": "second opening" });
  const pen = el("input", { type: "range", id: "gl-penalty", min: 1, max: 2, step: 0.05, value: 1, "aria-label": "repetition penalty" });
  const penOut = el("output", { id: "gl-penalty-out", text: "1.00" });
  const run = el("button", { id: "gl-run", text: "Run greedy" });
  const cols = el("div", { class: "columns two", id: "gl-cols" });
  const status = el("div", { class: "status", role: "status" });
  root.append(el("h3", { text: "Greedy loops" }), el("div", { class: "controls" }, a, b),
    el("div", { class: "controls" }, el("label", {}, "repetition penalty ", pen, penOut), run), cols, status);
  const once = serial([run], status, { "openings.0": a, "openings.1": b, repetition_penalty: pen });
  let shared = false; // whether the prose's shares (at penalty 1) have been filled
  async function body() {
    penOut.textContent = Number(pen.value).toFixed(2); // also after a reload put the slider back
    const r = await call("ch1_loops", { openings: [a.value, b.value], n: 80, penalty: Number(pen.value) });
    cols.replaceChildren(...r.columns.map((c, ci) => el("div", { class: "col", id: `gl-col-${ci}` },
      el("div", { class: "col-head" }, `${(100 * c.repeat_share).toFixed(0)}% of tokens repeat an earlier 4-gram`),
      el("div", { class: "gen-text" }, el("span", { class: "prompt-text", text: c.opening }),
        ...c.texts.map((t, i) => (c.tokens[i] === r.end_token ? endMark()
          : el("span", { class: "tok" + (c.repeat[i] ? " repeat" : ""), text: t })))))));
    cols.dataset.penalty = r.penalty;
    // the prose quotes the shares without a penalty (it introduces the penalty after them)
    if (r.penalty === 1 && r.columns.length === 2) {
      shared = true;
      setLive({ "loops.share_a": r.columns[0].repeat_share, "loops.share_b": r.columns[1].repeat_share });
    } else if (!shared) {
      const why = "(run it with the penalty at 1 to see)";
      setLive({ "loops.share_a": why, "loops.share_b": why });
    }
  }
  // slider moves while a run is going: only the newest value runs next
  const rerun = latest(() => once(body));
  pen.addEventListener("input", () => { penOut.textContent = Number(pen.value).toFixed(2); });
  pen.addEventListener("change", () => rerun());
  run.onclick = () => rerun();
  whenSeen(root, () => { if (!cols.children.length) rerun(); });
  return { go: () => rerun() };
}
