// The same greedy tokens with and without the KV cache, side by side: passes, time, memory.
import { call } from "../engine.js";
import { el, fmt, serial, readNumber, clearErrors } from "../ui.js";

const kb = (b) => (b >= 1 << 20 ? (b / (1 << 20)).toFixed(2) + " MiB" : (b / 1024).toFixed(1) + " KiB");

export function mountKvRace(root) {
  const prompt = el("input", { type: "text", id: "kv-prompt", value: "Once upon a time, there was a big brown dog named", size: 44,
    maxlength: 2000, "aria-label": "prompt for the race" });
  const n = el("input", { type: "number", id: "kv-n", value: 30, min: 1, max: 200, "aria-label": "new tokens" });
  const run = el("button", { id: "kv-run", text: "Race" });
  const out = el("div", { class: "columns two", id: "kv-out" });
  const mem = el("div", { class: "readout", id: "kv-mem" });
  root.append(el("h3", { text: "The KV-cache race" }), el("div", { class: "controls" }, prompt, el("label", {}, "new tokens ", n), run), out, mem);
  const once = serial([run], mem, { prompt, n });
  run.onclick = () => once(async () => {
    const count = readNumber(n, { label: "new tokens", min: 1, max: 200, integer: true });
    if (count == null) return;
    clearErrors({ prompt });
    const r = await call("ch2_kv_race", { prompt: prompt.value, n: count });
    const col = (title, x, formula) => el("div", { class: "col" }, el("div", { class: "col-head", text: title }),
      el("div", {}, `${x.passes.toLocaleString()} token passes (formula: ${formula.toLocaleString()})`),
      el("div", {}, `${fmt(x.ms, 1)} ms, ${(x.macs / 1e6).toFixed(1)} M multiply-adds`),
      el("div", { class: "gen-text small", text: x.texts.join("") }));
    out.replaceChildren(col("with the cache", r.with_cache, r.formula_with), col("without: recompute everything", r.without_cache, r.formula_without));
    mem.textContent = `Same text: ${r.same_output ? "yes" : "NO"}. Prompt P = ${r.prompt_tokens} tokens (with the start token). ` +
      `Speedup from the cache: ${fmt(r.without_cache.ms / r.with_cache.ms, 1)}×. The cache holds ${kb(r.kv_bytes_per_token)} per token ` +
      `(2 × ${r.n_layers} layers × ${r.d_model} floats), ${kb(r.kv_bytes_full_context)} for the full ${r.context}-token context, ` +
      `beside ${kb(r.weights_bytes)} of weights.`;
    mem.dataset.same = r.same_output;
    out.dataset.passes = `${r.with_cache.passes},${r.without_cache.passes}`;
  });
}
