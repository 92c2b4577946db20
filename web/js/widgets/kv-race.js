// The same greedy tokens with and without the KV cache, side by side: passes (with the formulas
// they must equal), multiply-adds, time, memory. Races once at its defaults when first seen, and
// publishes the prose's ch2.kv.* keys after every race.
import { call } from "../engine.js";
import { el, fmt, serial, readNumber, clearErrors, whenSeen } from "../ui.js";
import { setLive2, showWhen, f2 } from "../ch2-live.js";

export function mountKvRace(root) {
  const prompt = el("input", { type: "text", id: "kv-prompt", value: "Once upon a time, there was a big brown dog named", size: 44,
    maxlength: 2000, "aria-label": "prompt for the race" });
  const n = el("input", { type: "number", id: "kv-n", value: 30, min: 1, max: 200, "aria-label": "new tokens" });
  const run = el("button", { id: "kv-run", text: "Race" });
  const out = el("div", { class: "columns two", id: "kv-out" });
  const mem = el("div", { class: "readout", id: "kv-mem" });
  root.append(el("div", { class: "controls" }, el("label", {}, "prompt ", prompt), el("label", {}, "new tokens ", n), run), out, mem,
    el("p", { class: "hint", text: "Timing: each lane first writes two untimed tokens (the browser compiles the code on " +
      "first use), then the cached lane runs before and after the other and its time is the mean of the two runs." }));
  const once = serial([run], mem, { prompt, n });
  const race = () => once(async () => {
    const count = readNumber(n, { label: "new tokens", min: 1, max: 200, integer: true });
    if (count == null) return;
    clearErrors({ prompt });
    const r = await call("ch2_kv_race", { prompt: prompt.value, n: count });
    const P = r.prompt_tokens, w = r.with_cache, wo = r.without_cache;
    const col = (title, x, formula, words, macsFormula) => el("div", { class: "col" }, el("div", { class: "col-head", text: title }),
      el("div", {}, `${f2.int(x.passes)} token passes; ${words} = ${f2.int(formula)}`),
      el("div", {}, `${f2.int(x.macs)} multiply-adds (from the config: ${f2.int(macsFormula)})`),
      el("div", {}, `${fmt(x.ms, 1)} ms`),
      el("div", { class: "gen-text small", text: x.texts.join("") }));
    out.replaceChildren(
      col("with the cache", w, r.formula_with, `P + n − 1 = ${P} + ${count} − 1`, r.formula_macs_with),
      col("without: recompute everything", wo, r.formula_without,
        `nP + n(n − 1)/2 = ${f2.int(count * P)} + ${f2.int(count * (count - 1) / 2)}`, r.formula_macs_without));
    const same = r.same_work;
    const verdict = same
      ? `With n = 1 both lanes read the same ${P} tokens in one block: the same work, so there is no speed-up to ` +
        `show, and any gap between the two times is noise.`
      : `The cache saves ${f2.int(wo.passes - w.passes)} passes (${f2.times(wo.passes / w.passes)} fewer), ` +
        `${f2.times(wo.macs / w.macs)} fewer multiply-adds, and ran ${f2.times(wo.ms / w.ms)} as fast here.`;
    const vs = r.kv_bytes_full_context > r.weights_bytes ? "larger than" : r.kv_bytes_full_context < r.weights_bytes ? "smaller than" : "the same size as";
    mem.replaceChildren(el("div", { id: "kv-verdict", text: `Same text: ${r.same_output ? "yes" : "NO"}. P = ${P} tokens (the start token included). ${verdict}` }),
      el("div", { id: "kv-memline", text: `Memory: the cache holds ${f2.bytes(r.kv_bytes_per_token)} per token (2 × ${r.n_layers} layers × ` +
        `${r.d_model} floats of 4 bytes), ${f2.bytes(r.kv_bytes_full_context)} for the full ${r.context}-token context: ` +
        `${vs} the ${f2.bytes(r.weights_bytes)} of weights.` }));
    mem.dataset.same = r.same_output;
    mem.dataset.sameWork = same;
    out.dataset.passes = `${w.passes},${wo.passes}`;
    out.dataset.macs = `${w.macs},${wo.macs}`;
    setLive2({ "kv.P": P, "kv.n": count, "kv.nP": count * P, "kv.triangle": count * (count - 1) / 2,
      "kv.passes_without": wo.passes, "kv.passes_with": w.passes, "kv.macs_with": w.macs, "kv.macs_without": wo.macs,
      "kv.verdict": same ? "With n = 1 the two counts are equal: there is nothing for the cache to save yet."
        : `The cache saves ${f2.int(wo.passes - w.passes)} passes, ${f2.times(wo.passes / w.passes)} fewer.`,
      "kv.pass_ratio": wo.passes / w.passes, "kv.macs_ratio": wo.macs / w.macs, "kv.time_ratio": wo.ms / w.ms,
      "kv.time_vs_passes": wo.ms / w.ms < wo.passes / w.passes ? "less than" : "more than",
      "kv.last_t": r.last_t, "kv.last_step_attn_macs": r.last_step_attn_macs });
    showWhen("data-only", "kv-gain", !same);
  });
  run.onclick = race;
  whenSeen(root, () => { if (!out.childNodes.length) race(); });
}
