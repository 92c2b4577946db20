// The same greedy tokens with and without the KV cache, side by side: passes (with the formulas
// they must equal), multiply-adds, time, memory. Races once at its defaults when first seen, and
// publishes the prose's ch2.kv.* keys after every race. The readout is drawn from the last race,
// again after a language switch.
import { call } from "../engine.js";
import { el, fmt, serial, readNumber, clearErrors, whenSeen } from "../ui.js";
import { t, onLang } from "../i18n.js";
import { setLive2, showWhen, f2, whole } from "../ch2-live.js";

export function mountKvRace(root) {
  const prompt = el("input", { type: "text", id: "kv-prompt", value: "Once upon a time, there was a big brown dog named", size: 44,
    maxlength: 2000, "t-aria-label": "w2.kv.prompt_aria" });
  const n = el("input", { type: "number", id: "kv-n", value: 30, min: 1, max: 200, "t-aria-label": "w2.kv.n" });
  const run = el("button", { id: "kv-run", t: "w2.kv.run" });
  const out = el("div", { class: "columns two", id: "kv-out" });
  const mem = el("div", { class: "readout", id: "kv-mem" });
  root.append(el("div", { class: "controls" }, el("label", {}, el("span", { t: "w2.kv.prompt" }), " ", prompt),
    el("label", {}, el("span", { t: "w2.kv.n" }), " ", n), run), out, mem,
    el("p", { class: "hint", t: "w2.kv.timing" }));
  let last = null; // the last race, drawn again in a new language

  function draw({ r, count }) {
    const P = r.prompt_tokens, w = r.with_cache, wo = r.without_cache;
    const col = (title, x, formula, words, macsFormula) => el("div", { class: "col" }, el("div", { class: "col-head", text: t(title) }),
      el("div", {}, t("w2.kv.passes", { passes: x.passes, words, formula: f2.int(formula) })),
      el("div", {}, t("w2.kv.macs", { macs: x.macs, formula: f2.int(macsFormula) })),
      el("div", {}, t("w2.unit.ms", { n: { num: x.ms, text: fmt(x.ms, 1) } })),
      el("div", { class: "gen-text small", text: x.texts.join("") }));
    out.replaceChildren(
      col("w2.kv.with", w, r.formula_with, `P + n − 1 = ${whole(P)} + ${whole(count)} − 1`, r.formula_macs_with),
      col("w2.kv.without", wo, r.formula_without,
        `nP + n(n − 1)/2 = ${f2.int(count * P)} + ${f2.int(count * (count - 1) / 2)}`, r.formula_macs_without));
    const verdict = r.same_work ? t("w2.kv.same_work", { P })
      : t("w2.kv.gain", { saved: wo.passes - w.passes, pass_ratio: f2.times(wo.passes / w.passes),
        macs_ratio: f2.times(wo.macs / w.macs), time_ratio: f2.times(wo.ms / w.ms) });
    const vs = r.kv_bytes_full_context > r.weights_bytes ? "w2.live.larger" : r.kv_bytes_full_context < r.weights_bytes ? "w2.live.smaller" : "w2.live.same_size";
    mem.replaceChildren(el("div", { id: "kv-verdict", text: t("w2.kv.same_text", { same: t(r.same_output ? "w2.kv.yes" : "w2.kv.no"), P, verdict }) }),
      el("div", { id: "kv-memline", text: t("w2.kv.mem", { per_token: f2.bytes(r.kv_bytes_per_token), layers: r.n_layers,
        d: r.d_model, full: f2.bytes(r.kv_bytes_full_context), context: { num: r.context, text: whole(r.context) }, vs: t(vs),
        weights: f2.bytes(r.weights_bytes) }) }));
  }
  onLang(() => { if (last && !mem.classList.contains("error")) draw(last); }); // (an error shown stays)

  const once = serial([run], mem, { prompt, n });
  const race = () => once(async () => {
    const count = readNumber(n, { label: "w2.kv.n", min: 1, max: 200, integer: true });
    if (count == null) return;
    clearErrors({ prompt });
    const r = await call("ch2_kv_race", { prompt: prompt.value, n: count });
    const P = r.prompt_tokens, w = r.with_cache, wo = r.without_cache;
    const same = r.same_work;
    last = { r, count };
    draw(last);
    mem.dataset.same = r.same_output;
    mem.dataset.sameWork = same;
    out.dataset.passes = `${w.passes},${wo.passes}`;
    out.dataset.macs = `${w.macs},${wo.macs}`;
    setLive2({ "kv.P": P, "kv.n": count, "kv.nP": count * P, "kv.triangle": count * (count - 1) / 2,
      "kv.passes_without": wo.passes, "kv.passes_with": w.passes, "kv.macs_with": w.macs, "kv.macs_without": wo.macs,
      "kv.verdict": same ? { key: "w2.kv.verdict_n1" }
        : () => t("w2.kv.verdict", { saved: wo.passes - w.passes, ratio: f2.times(wo.passes / w.passes) }),
      "kv.pass_ratio": wo.passes / w.passes, "kv.macs_ratio": wo.macs / w.macs, "kv.time_ratio": wo.ms / w.ms,
      "kv.time_vs_passes": { key: wo.ms / w.ms < wo.passes / w.passes ? "w2.live.less_than" : "w2.live.more_than" },
      "kv.last_t": r.last_t, "kv.last_step_attn_macs": r.last_step_attn_macs });
    showWhen("data-only", "kv-gain", !same);
  });
  run.onclick = race;
  whenSeen(root, () => { if (!out.childNodes.length) race(); });
}
