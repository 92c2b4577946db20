// A real draft/target pair decoding speculatively in the page, against the measured cost model.
import { call, on } from "../engine.js";
import { el, fmt, serial, readNumber } from "../ui.js";

export function mountLiveSpec(root) {
  const gamma = el("input", { type: "number", id: "ls-gamma", value: 3, min: 0, max: 32, "aria-label": "γ, draft tokens per round" });
  const mode = el("select", { id: "ls-mode", "aria-label": "greedy or sampled" }, el("option", { value: "greedy", text: "greedy" }), el("option", { value: "sample", text: "sample (T = 1)" }));
  const run = el("button", { id: "ls-run", text: "Run" });
  const out = el("div", { class: "readout", id: "ls-out" });
  const text = el("div", { class: "gen-text small", id: "ls-text" });
  root.append(el("h3", { text: "A real draft and target, in this page" }),
    el("div", { class: "controls" }, el("label", {}, "γ ", gamma), mode, run), out, text);
  // only this widget needs the draft model: if it did not load, this widget says so and the rest works
  on("optional", (m) => { if (m.what === "draft") { run.disabled = true; run.dataset.unavailable = "1"; out.textContent = `The live pair is unavailable: ${m.message}`; out.dataset.unavailable = "1"; } });
  const once = serial([run], out, { gamma, mode });
  run.onclick = () => once(async () => {
    const g = readNumber(gamma, { label: "γ", min: 0, max: 32, integer: true });
    if (g == null) return;
    {
      const r = await call("ch3_live", { prompt: "Once upon a time, there was a little girl named Lily.", gamma: g, n: 60, mode: mode.value, seed: 5 });
      const c = r.costs;
      const pays = r.measured_speedup >= 1;
      out.replaceChildren(
        el("div", {}, `Measured acceptance α = ${r.alpha == null ? "–" : fmt(r.alpha, 3)}` +
          (r.alpha_by_position.length ? ` (by position in the round: ${r.alpha_by_position.map((a) => (a == null ? "–" : fmt(a, 2))).join(", ")})` : "")),
        el("div", {}, `One target token (pass and sampling) ${fmt(c.t_target_ms, 3)} ms. In the rounds, a draft pass cost ` +
          `${fmt(c.c_draft, 2)} of it and the rest of a round (verifying ${r.gamma + 1} tokens, the accept rule, the rewinds) ` +
          `${fmt(c.c_verify, 2)}. On their own, a draft pass costs ${fmt(r.micro.c_draft, 2)} target passes and a verification ` +
          `of ${r.gamma + 1} tokens ${fmt(r.micro.c_verify, 2)}.`),
        el("div", {}, `Tokens per round: ${fmt(r.tokens_per_round, 2)} measured, ${fmt(r.expected_tokens_per_round, 2)} from ` +
          `E(α, γ), which assumes every draft survives with the same chance α. The gap is where that assumption fails.`),
        el("div", {}, `Speculative: ${fmt(r.spec_tps, 0)} tokens/s; the target alone: ${fmt(r.target_tps, 0)} tokens/s; ` +
          `measured speedup ${fmt(r.measured_speedup, 2)}×, cost model with these measurements ${fmt(r.predicted_speedup, 2)}×.`),
        r.same_as_target == null ? "" : el("div", {}, r.same_as_target ? "Output: token for token the target's own greedy text." : "Output differs from the target's (a bug)."),
        el("div", { class: pays ? "good" : "warn" }, pays ? "Speculation pays here." :
          `Speculation does not pay on this machine: checking ${r.gamma + 1} tokens at once costs ${fmt(c.c_verify, 1)} target passes, ` +
          `nearly as much as running them one by one, because a model this small is limited by arithmetic, not by reading its weights. ` +
          `With ${fmt(r.tokens_per_round, 2)} tokens per round, a round costs more than the tokens it yields.`));
      out.dataset.alpha = r.alpha;
      text.textContent = r.text;
    }
  });
}
