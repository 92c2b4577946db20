// The same greedy tokens with and without the KV cache, side by side: passes (with the formulas
// they must equal), multiply-adds, time, memory. Races once at the reference example when first
// seen (live/examples.js KV_RACE: the build computes the prose's counts from it), and hands the
// prose the times it measured. The readout is drawn from the last race,
// again after a language switch.
import { call } from "../engine.js";
import { el, numberBox, fmt, serial, readNumber, clearErrors, whenSeen, statGrid } from "../ui.js";
import { t, redrawOnLang } from "../i18n.js";
import { setLive } from "../live.js";
import { f2, whole, sizeComparison } from "../live/formats.js";
import { KV_RACE } from "../live/examples.js";
import { drawKvGrids } from "../diagrams/kv-grids.js";

export function mountKvRace(root) {
  const prompt = el("input", { type: "text", id: "kv-prompt", value: KV_RACE.prompt, size: 44,
    maxlength: 2000, "t-aria-label": "w2.kv.prompt_aria" });
  const n = numberBox({ integer: true, id: "kv-n", value: KV_RACE.n, min: 1, max: 200, "t-aria-label": "w2.kv.n" });
  const run = el("button", { id: "kv-run", t: "w2.kv.run" });
  const out = el("div", { class: "columns two", id: "kv-out" });
  const mem = el("div", { class: "readout", id: "kv-mem" }); // the race's figures, a stat grid
  const sentences = el("div", { id: "kv-sentences" }); // the same said in words, in the disclosure
  const pic = el("div", { class: "kv-pic", id: "kv-pic" });
  root.append(el("div", { class: "controls" }, el("label", {}, el("span", { t: "w2.kv.prompt" }), " ", prompt),
    el("label", {}, el("span", { t: "w2.kv.n" }), " ", n), run),
    el("p", { class: "diagram-desc", t: "w2.kv.pic_desc" }), pic, mem,
    el("details", { class: "numbers" }, el("summary", { t: "w2.kv.numbers" }), sentences, out),
    el("p", { class: "hint", t: "w2.kv.timing" }));
  // the two grids side by side where they fit, one above the other on a phone
  const picture = ({ r, count }, play) => {
    const w = pic.clientWidth || 600;
    const grids = drawKvGrids(r.prompt_tokens, count, w >= 640 ? (w - 32) / 2 : w);
    pic.replaceChildren(grids);
    if (play) grids.play();
  };
  function draw({ r, count }, play = false) {
    picture({ r, count }, play);
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
    const vs = sizeComparison(r.kv_bytes_full_context / r.weights_bytes);
    // under the picture the figures to read at a glance (design review item 12); the sentences
    // that say them with their reasons sit with the side-by-side numbers in the disclosure
    mem.replaceChildren(statGrid("kv-stats", [
      ["w2.kv.stat.with", whole(w.passes), "P + n − 1"],
      ["w2.kv.stat.without", whole(wo.passes), "nP + n(n − 1)/2"],
      ["w2.kv.stat.time", `${fmt(wo.ms / w.ms, wo.ms / w.ms < 10 ? 2 : 1)}×`, r.same_work ? t("w2.kv.stat.noise") : null],
      ["w2.kv.stat.per_token", f2.bytes(r.kv_bytes_per_token)],
      ["w2.kv.stat.full", f2.bytes(r.kv_bytes_full_context), t("w2.kv.stat.vs", { vs: t(vs), weights: f2.bytes(r.weights_bytes) })]]));
    sentences.replaceChildren(el("div", { id: "kv-verdict", text: t("w2.kv.same_text", { same: t(r.same_output ? "w2.kv.yes" : "w2.kv.no"), P, verdict }) }),
      el("div", { id: "kv-memline", text: t("w2.kv.mem", { per_token: f2.bytes(r.kv_bytes_per_token), layers: r.n_layers,
        d: r.d_model, full: f2.bytes(r.kv_bytes_full_context), context: { num: r.context, text: whole(r.context) }, vs: t(vs),
        weights: f2.bytes(r.weights_bytes) }) }));
  }
  const show = redrawOnLang(draw, { unless: () => mem.classList.contains("error") }); // (an error shown stays)

  const once = serial([run], mem, { prompt, n });
  const race = () => once(async () => {
    const count = readNumber(n, { label: "w2.kv.n", min: 1, max: 200, integer: true });
    if (count == null) return;
    clearErrors({ prompt });
    const asked = prompt.value;
    const r = await call("ch2_kv_race", { prompt: asked, n: count });
    const w = r.with_cache, wo = r.without_cache;
    const same = r.same_work;
    show({ r, count }, true);
    mem.dataset.same = r.same_output;
    mem.dataset.sameWork = same;
    out.dataset.passes = `${w.passes},${wo.passes}`;
    out.dataset.macs = `${w.macs},${wo.macs}`;
    // the times are this machine's; the counts are the reference race's (the build's)
    if (asked === KV_RACE.prompt && count === KV_RACE.n) {
      setLive({ "ch2.kv.time_ratio": wo.ms / w.ms,
        "ch2.kv.time_vs_passes": { key: wo.ms / w.ms < wo.passes / w.passes ? "w2.live.less_than" : "w2.live.more_than" } });
    }
  });
  run.onclick = race;
  whenSeen(root, () => { if (!out.childNodes.length) race(); });
}
