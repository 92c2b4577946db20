// The live-number registry: every number (and every word that follows a number) the prose shows,
// declared once. A <span data-live="KEY"> in the text files is one of:
//  - a pinned number: one of the SOURCES below computes it from the model and a fixed input (the
//    reference examples in examples.js, the cited figures). The build runs each source against
//    the page's own Python endpoints in CPython and writes its text into the HTML of every
//    language (decodelab_tools/node/firstpaint.mjs), so the article reads whole before the engine
//    starts, and without JavaScript; the page computes them again only when asked
//    (window.__live.recompute(), which the tests compare with the HTML);
//  - a measured number: the widget named in MEASURED measures it in the reader's browser (a time,
//    a speed, the kernel this browser runs) and hands it to live.js; until then the HTML says
//    "measured in your browser";
//  - a panel number (PANEL_KEYS): pinned to the panel's reference prompt, and following the
//    reader's own panel only while its "follow my panel" box is ticked.
// FORMATS gives each key's format; a key not listed prints with its chapter's default.
// DOM-free: Node imports this module at build time.
import { t, fixed, plain } from "../i18n.js";
import { CITED } from "../cited.js";
import { passBudget } from "../hardware.js";
import * as ex from "./examples.js";
import { SPEC } from "../generated/spec.js";
import {
  bad, f2, f3, shape, millions, tok, toks, depthList, numberList, fmtPct, fmtTimes, fmtBig, fmtCount, fmtEff,
  fmtNats, fmtFixed, fmtShare, fmtInterval, fmtChance, sizeComparison, story,
} from "./formats.js";

// ---- formats -------------------------------------------------------------------------------------
const two = fmtFixed(2);
const CH1 = {
  "model.vocab": fmtCount, "model.layers": fmtCount, "model.context": fmtCount, "model.keep": fmtCount,
  "model.window": fmtCount, "model.uniform_p": fmtPct, "model.params": millions(1), "model.heads": fmtCount,
  "model.steps": fmtCount,
  "head.top1_tok": tok, "head.top2_tok": tok, "head.top1_p": fmtPct, "head.top2_p": fmtPct,
  "head.n_over1pct": fmtCount, "head.mass_over1pct": fmtPct, "head.crumbs_n": fmtCount, "head.crumbs_mass": fmtPct,
  "head.last_p": fmtPct, "head.top_over_last": fmtBig, "tail.beyond40": fmtPct, "tail.never200": fmtChance,
  "temp.dz": two, "temp.ratio_t1": fmtTimes, "temp.ratio_t05": fmtTimes, "temp.ratio_t2": fmtTimes,
  "temp.pa_t05": fmtPct, "temp.pb_t05": fmtPct, "temp.pa_t2": fmtPct, "temp.pb_t2": fmtPct,
  "ent.H_t1": fmtNats, "ent.eff_t1": fmtEff, "ent.eff_t03": fmtEff, "ent.top1_t03": fmtPct, "ent.eff_t15": fmtEff,
  "ent.top1_t15": fmtPct, "topp.kstar95_cur": fmtCount, "minp.thr10_cur": fmtPct, "minp.kept10_cur": fmtCount,
  "order.surv_ours": fmtCount, "order.surv_last": fmtCount,
  // each sampler rule's live example (ch1.rule_examples), for every rule that declares one
  ...Object.fromEntries(SPEC.steps.filter((st) => st.example != null).flatMap((st) => [
    [`rule.${st.name}.kept`, fmtCount], [`rule.${st.name}.from`, fmtCount], [`rule.${st.name}.value`, plain]])),
  "rng.tok1": tok, "rng.tok2": tok, "rng.tok3": tok, "rng.int1": fmtInterval, "rng.int2": fmtInterval,
  "rng.int3": fmtInterval, "rng.seed": String, "rng.index": fmtCount, "rng.u": fmtFixed(4), "rng.pick": tok,
  "topk.one_tok": tok, "topk.one_p": fmtPct, "topk.one_rest40": fmtPct, "topk.one_kstar95": fmtCount,
  "topk.many_top_tok": tok, "topk.many_top_p": fmtPct, "topk.many_n50": fmtCount, "topk.many_cut40": fmtPct,
  "topk.many_beyond": toks, "topk.many_kstar95": fmtCount, "minp.many_thr": fmtPct, "minp.many_kept": fmtCount,
  "pen.the_r1": fmtPct, "pen.the_r2": fmtPct, "pen.the_rank_r2": fmtCount, "pen.stop_r1": fmtPct,
  "pen.stop_r2": fmtPct, "pen.name_r1": fmtPct, "pen.name_r2": fmtPct,
  "end.p_theend": fmtPct, "end.p_everafter": fmtPct, "end.p_mid": fmtPct, "english.eff_cyr": fmtEff,
  "four.s0": two, "four.s1": two, "four.s2": two, "four.s3": two,
  "loops.share_a": fmtShare, "loops.share_b": fmtShare, "end.n_tokens": fmtCount,
  "slide.slides": fmtCount, "slide.cache_len": fmtCount, "slide.eot_count": fmtCount,
};
const CH2 = Object.fromEntries(Object.entries({
  "cfg.n_layers": "int", "cfg.d_model": "int", "cfg.n_heads": "int", "cfg.d_ff": "int", "cfg.vocab": "int",
  "cfg.context": "int", "cfg.kv_vectors_per_token": "int",
  "cost.qkv_macs": "int", "cost.proj_macs": "int", "cost.mlp_macs": "int", "cost.matrix_macs": "macs",
  "cost.head_macs": "macs", "cost.token_macs": "macs", "cost.head_share": "pct", "cost.attn_macs_per_position": "int",
  "cost.attn_macs_full_context": "macs", "cost.attn_share_full_context": "pct",
  "kv.P": "int", "kv.n": "int", "kv.nP": "int", "kv.triangle": "int", "kv.passes_without": "int", "kv.passes_with": "int",
  "kv.macs_with": "macs", "kv.macs_without": "macs",
  "kv.macs_ratio": "times", "kv.pass_ratio": "times", "kv.time_ratio": "times", "kv.last_t": "int",
  "kv.last_step_attn_macs": "int",
  "kv.bytes_per_token": "bytes", "kv.bytes_full_context": "bytes", "kv.weights_bytes": "bytes",
  "q8.example_row_max": "w", "q8.example_scale": "w", "q8.example_bound": "w", "q8.example_float32_bytes": "bytes",
  "q8.example_int8_bytes": "bytes", "q8.example_scale_bytes": "bytes", "q8.n_matrices": "int",
  "q8.matrix_float32_bytes": "bytes", "q8.int8_bytes": "bytes", "q8.scale_bytes": "bytes", "q8.vector_bytes": "bytes",
  "q8.total_bytes": "bytes", "q8.ratio": "times", "q8.scale_share": "pct", "q8.scale_overhead_min": "pct",
  "q8.scale_overhead_max": "pct", "q8.worst_max_over_median": "times", "q8.worst_steps": "int",
  "ol.rows": "int", "ol.cols": "int", "ol.outlier": "w", "ol.row_err": "w", "ol.matrix_err": "w", "ol.ratio": "times",
  "ol.row_scale_mean": "w", "ol.row_err_predicted": "w", "ol.matrix_scale": "w", "ol.matrix_err_predicted": "w",
  "ol.other_rows": "int", "ol.bytes_float32": "bytes", "ol.bytes_int8": "bytes", "ol.bytes_row_scales": "bytes",
  "ol.bytes_matrix_scale": "bytes",
  "simd.max_cols": "int", "simd.max_int_sum": "int", "simd.slices_per_token": "int",
  "kc.exact_err": "parts", "kc.fast_err": "parts", "kc.fast_us": "us", "kc.exact_us": "us", "kc.fast_gmacs": "g",
  "kc.fast_over_exact": "times",
  "speed.tokens": "int", "speed.warmup": "int", "speed.tps_simd": "tps", "speed.ratio_simd_scalar": "times",
  "speed.ratio_simd_js": "times", "speed.python_ms_simd": "ms2", "speed.kernel_ratio_simd_scalar": "times",
  "speed.python_share_simd": "pct", "speed.gmacs_simd": "g", "speed.gmacs_scalar": "g", "speed.js_calls_per_token": "int",
  "llama.layers": "int", "llama.width": "int", "llama.bytes": "int", "llama.per_token": "gib", "llama.context": "int",
  "llama.per_conversation": "gib", "llama.conversations": "words",
  "bits.story_tokens": "int", "bits.zero_frac_2bit_row": "pct", "bits.scale_bits_row": "bits2",
  "bits.eff_bits.group32.3": "bits2", "bits.eff_bits.row.4": "bits2", "bits.story_8": "nats", "bits.story_low": "nats",
  "bits.story_low_bits": "int", "bits.heldout_stories": "int", "bits.heldout_tokens": "int",
  "bits.heldout_float": "nats", "bits.heldout_int8_delta": "dnats", "bits.sweep_stories": "int",
  "bits.sweep_float": "nats", "bits.thread_delta.row": "dnats", "bits.collapse_delta.row": "dnats",
  "bits.heldout_delta.group32.3": "dnats", "bits.heldout_delta.row.4": "dnats", "bits.heldout_delta.row.3": "dnats",
  "bits.heldout_delta.matrix.3": "dnats", "bits.heldout_delta.group32.2": "dnats", "bits.heldout_delta.row.2": "dnats",
}).map(([k, kind]) => [k, f2[kind]]));
// the cache over the weights at full context, near 1 for our model: a plain ratio with two decimals
// ("1.05"), never a bare "1 times"
CH2["kv.cache_over_weights"] = (x) => fixed(x, 2);
const CH3 = {
  "pb-params-b": f3.trim(1), "pb-weights-gb": f3.trim(1), "pb-gpu-tbps": f3.trim(2), "pb-gpu-tflops": f3.int,
  "pb-read-ms": f3.fix(1), "pb-math1-us": f3.fix(0), "pb-math5-us": f3.fix(0), "pb-idle-pct": f3.pct(1),
  "pb-max-tps": f3.int, "pb-crossover-n": f3.int,
  "cm-alpha": f3.trim(3), "cm-gamma": f3.int, "cm-cd": f3.trim(3), "cm-cv": f3.trim(3), "cm-share": f3.pct(0),
  "cm-ceiling": f3.trim(2), "cm-share-inf": f3.pct(0), "cm32-E": f3.fix(3), "cm32-cost": f3.trim(2),
  "cm32-share": f3.pct(0), "cm-alpha-now": f3.trim(2),
  "peak-gamma": f3.int, "peak-a060": f3.int, "peak-a090": f3.int, "peak-a095": f3.int, "peak-cd005": f3.int,
  "peak-cd020": f3.int, "peak-cd1": f3.int, "peak-cv2": f3.int, "peak-cd0": f3.int, "peak-free": f3.int,
  "peak-free-preset-gamma": f3.int, "peak-free-cd": f3.trim(3),
  "het-E-true": f3.trim(2), "sr-keep-girl": f3.fix(3), "sr-reject-first-share": f3.fix(3),
  "params": millions(2), "draft-params": millions(2), "main-macs-per-token": millions(1),
  "rt-gamma": f3.int, "rt-rounds": f3.int, "rt-tokens": f3.int, "rt-cost": f3.trim(2), "rt-accepted": f3.int,
  "rt-checked": f3.int, "rt-acc-pct": f3.pct(0), "gate-pairs": f3.int, "gate-passed": f3.int,
  "vc-g4": f3.fix(1), "vc-g8": f3.fix(1), "vc-steps-g8": f3.fix(1), "vc-block-saving-pct": f3.pct(0),
  "vc-best-gamma": f3.int, "vc-batches": f3.int,
  "rf-gbps-cache": f3.fix(0), "rf-gbps-dram": f3.fix(1), "rf-gmacs": f3.fix(1), "rf-ridge": f3.fix(2),
  "rf-ridge-dram": f3.fix(2), "our-math-us": f3.micro, "our-read-us": f3.micro, "rf-h100-ridge": f3.int,
  "rf-h100-ridge-flop": f3.int, "ls-runs": f3.int, "ls-gamma": f3.int, "ls-gamma-plus-1": f3.int, "ls-cv": f3.fix(1),
  "ls-speedup-range": f3.range(2), "ls-speedup-mid": f3.range(2),
};
const prefix = (ch, o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`${ch}.${k}`, v]));
export const FORMATS = { ...prefix("ch1", CH1), ...prefix("ch2", CH2), ...prefix("ch3", CH3), "fig.story": story };
// a number without a format of its own: ch3's with two decimals, the others as they are
const DEFAULT_FORMAT = { ch1: (x) => plain(x), ch2: (x) => plain(x), ch3: f3.fix(2) };

// what a key says when its value is missing (a token the filters removed, T = 0 drawing nothing)
const NONE = {
  "ch1.rng.tok1": "w1.live.filtered", "ch1.rng.tok2": "w1.live.filtered", "ch1.rng.tok3": "w1.live.filtered",
  "ch1.rng.int1": "w1.live.no_stretch", "ch1.rng.int2": "w1.live.no_stretch", "ch1.rng.int3": "w1.live.no_stretch",
  "ch1.rng.u": "w1.live.no_u",
};

// One value as the reader reads it, in the current language: a string (text), {tokens} for
// tokens in running text, or {story} for the opening figure's coloured story. A value is a number (in its key's format), words by key ({key, args}),
// a function that renders words, a string (the model's text, shown as it is), or null ("–").
export function render(key, v) {
  if (bad(v)) return NONE[key] ? t(NONE[key]) : "–";
  if (typeof v === "function") return v();
  if (typeof v === "object" && !Array.isArray(v) && typeof v.key === "string") return t(v.key, v.args || {});
  const f = FORMATS[key];
  if (f === tok || f === toks) return f(v);
  if (typeof v === "string") return v;
  return (f || DEFAULT_FORMAT[key.split(".")[0]])(v);
}

// ---- words some numbers come with -------------------------------------------------------------
// The held-out figure comes from the model file (the report measures it with the 8-bit weights
// the page runs and stores it there); a model without it says so instead of showing a number.
export function heldoutText(meta) {
  const h = meta && meta.heldout;
  const n = h && h.int8 && h.int8.nats_per_token;
  if (!Number.isFinite(n)) return t("w1.live.heldout_none");
  const faces = Math.exp(n);
  return t("w1.live.heldout", { n: { num: Number(n.toFixed(2)), text: fixed(n, 2) },
    faces: { num: faces < 99.95 ? Number(faces.toFixed(1)) : Math.round(faces), text: fmtEff(faces) },
    tokens: { num: h.tokens, text: fmtCount(h.tokens) } });
}

const SCHEMES = SPEC.schemes;
// the paired difference from 8 bits over the story's tokens, in words
export function storyVerdict(s) {
  if (s.delta === 0 && s.delta_se === 0) return t("w2.bd.verdict.shipped");
  if (Math.abs(s.delta) < 2 * s.delta_se) return t("w2.bd.verdict.noise");
  return t(s.delta > 0 ? "w2.bd.verdict.more" : "w2.bd.verdict.less", { d: f2.nats_abs(s.delta) });
}
// the bit-depth table in words, scheme by scheme: which depths sat within the noise of 8 bits,
// where the story got measurably harder, where it collapsed (a nat per token or more)
export function tableWords(results) {
  const parts = [];
  for (const sch of SCHEMES) {
    const by = new Map();
    for (const r of results) if (r.scheme === sch && r.bits !== 8) by.set(r.bits, r.story);
    if (!by.size) continue;
    const depths = [...by.keys()].sort((a, b) => b - a);
    const noise = depths.filter((b) => Math.abs(by.get(b).delta) < 2 * by.get(b).delta_se);
    const worse = depths.find((b) => by.get(b).delta >= 2 * by.get(b).delta_se);
    const gone = depths.find((b) => by.get(b).delta >= 1);
    const w = [];
    if (noise.length) w.push(t("w2.bd.tw.noise", { list: numberList(noise), n: noise[noise.length - 1] }));
    if (worse != null) w.push(t("w2.bd.tw.worse", { n: worse, d: f2.dnats(by.get(worse).delta) }));
    if (gone != null) w.push(t("w2.bd.tw.collapsed", { n: gone, d: f2.dnats(by.get(gone).delta) }));
    parts.push(t("w2.bd.tw.scheme", { scheme: t(`w2.scheme.${sch}`), parts: w.join(t("w2.bd.tw.sep")) }));
  }
  return parts.length ? t("w2.bd.tw.all", { parts: parts.join(t("w2.bd.tw.scheme_sep")) }) : t("w2.bd.tw.empty");
}

// The four temperatures' numbers, columns from coldest to hottest (the reader may type them in any
// order): each column's surprise, and the first new token where it leaves the coldest column (a
// column that stopped earlier differs where its tokens run out).
export function fourTempsKeys(columns) {
  const cs = [...columns].sort((a, b) => a.temperature - b.temperature);
  const cold = cs[0].tokens, out = {};
  cs.forEach((c, i) => {
    out[`four.t${i}`] = c.temperature;
    out[`four.s${i}`] = c.surprise;
    if (!i) return;
    const n = Math.min(c.tokens.length, cold.length);
    let j = 0;
    while (j < n && c.tokens[j] === cold[j]) j++;
    const same = j === n && c.tokens.length === cold.length;
    out[`four.split${i}`] = same ? { key: "w1.ft.split_none" } : { key: "w1.ft.split_at", args: { n: j + 1 } };
  });
  return out;
}

// the Llama 2 7B cache arithmetic: bytes per token, per full conversation, and how many
// conversations' caches outweigh the shared weights
function llamaKeys(m = CITED.llama2_7b) {
  const perToken = 2 * m.layers * m.width * m.bytesPerNumber;
  const perConversation = perToken * m.context;
  return { "llama.layers": m.layers, "llama.width": m.width, "llama.bytes": m.bytesPerNumber,
    "llama.per_token": perToken, "llama.context": m.context, "llama.per_conversation": perConversation,
    "llama.weights": () => t("w2.unit.gb", { n: m.weightsGB }),
    "llama.conversations": Math.floor((m.weightsGB * 1e9) / perConversation) + 1 };
}

function factsKeys(r) {
  const c = r.cfg, k = r.cost, kv = r.kv, q = r.q8, e = q.example, b = r.bits, h = r.heldout;
  const crossover = { key: kv.crossover_tokens <= c.context ? "w2.live.crossover" : "w2.live.crossover_never",
    args: { n: kv.crossover_tokens } };
  const vs = { key: sizeComparison(kv.cache_over_weights) }; // formats.js: within 10 % is "about the same size"
  const out = {
    "cfg.n_layers": c.n_layers, "cfg.d_model": c.d_model, "cfg.n_heads": c.n_heads, "cfg.d_ff": c.d_ff,
    "cfg.vocab": c.vocab, "cfg.context": c.context, "cfg.kv_vectors_per_token": c.kv_vectors_per_token,
    "cost.qkv_macs": k.qkv, "cost.proj_macs": k.proj, "cost.mlp_macs": k.mlp, "cost.matrix_macs": k.matrices,
    "cost.head_macs": k.head, "cost.token_macs": k.token, "cost.head_share": k.head_share,
    "cost.attn_macs_per_position": k.attn_per_position, "cost.attn_macs_full_context": k.attn_full,
    "cost.attn_share_full_context": k.attn_share_full,
    "kv.bytes_per_token": kv.bytes_per_token, "kv.bytes_full_context": kv.bytes_full_context,
    "kv.weights_bytes": kv.weights_bytes, "kv.cache_over_weights": kv.cache_over_weights, "kv.cache_vs_weights": vs,
    "kv.crossover_sentence": crossover,
    "q8.example_name": e.label, "q8.example_shape": () => shape(e.rows, e.cols), "q8.example_row_max": e.row_max_median,
    "q8.example_scale": e.scale_median, "q8.example_bound": e.scale_median / 2, "q8.example_float32_bytes": e.f32,
    "q8.example_int8_bytes": e.i8, "q8.example_scale_bytes": e.scales, "q8.n_matrices": q.n_matrices,
    "q8.matrix_float32_bytes": q.matrix_float32_bytes, "q8.int8_bytes": q.int8_bytes, "q8.scale_bytes": q.scale_bytes,
    "q8.vector_bytes": q.vector_bytes, "q8.total_bytes": q.total_bytes, "q8.ratio": q.ratio, "q8.scale_share": q.scale_share,
    "q8.scale_overhead_min": q.scale_overhead_min, "q8.scale_overhead_max": q.scale_overhead_max,
    "q8.worst_matrix": q.worst, "q8.worst_max_over_median": q.worst_max_over_median,
    "q8.worst_steps": 127 / q.worst_max_over_median,
    "simd.max_cols": r.simd.max_cols, "simd.max_int_sum": r.simd.max_int_sum, "simd.slices_per_token": r.simd.slices_per_token,
    "speed.js_calls_per_token": r.simd.js_calls_per_token,
    "bits.story_tokens": b.story_tokens, "bits.zero_frac_2bit_row": b.zero_frac_2bit_row,
    "bits.scale_bits_row": b.scale_bits_row, "bits.eff_bits.group32.3": b.eff_bits.group32["3"],
    "bits.eff_bits.row.4": b.eff_bits.row["4"],
  };
  const d = (sch, bb) => (h && h.delta[sch] ? h.delta[sch][String(bb)] : null);
  const depth = (bb) => (bb == null ? t("w2.bits.no_depth_to2") : t("w2.bits.n", { n: bb }));
  Object.assign(out, {
    "bits.heldout_stories": h ? h.stories : null, "bits.heldout_tokens": h ? h.tokens : null,
    "bits.heldout_float": h ? h.float_nats : null, "bits.heldout_int8_delta": h ? h.int8_delta : null,
    "bits.sweep_stories": h ? h.sweep_stories : null, "bits.sweep_float": h ? h.sweep_float_nats : null,
    "bits.cheap_depths.row": h ? () => depthList(h.cheap.row) : null,
    "bits.thread_delta.row": h ? h.thread_delta.row : null, "bits.collapse_delta.row": h ? h.collapse_delta.row : null,
    "bits.heldout_delta.group32.3": d("group32", 3), "bits.heldout_delta.row.4": d("row", 4),
    "bits.heldout_delta.row.3": d("row", 3), "bits.heldout_delta.matrix.3": d("matrix", 3),
    "bits.heldout_delta.group32.2": d("group32", 2), "bits.heldout_delta.row.2": d("row", 2),
  });
  const g3 = d("group32", 3), r4 = d("row", 4);
  out["bits.same_memory_verdict"] = g3 == null || r4 == null ? null : g3 < r4
    ? { key: "w2.bits.same_memory_groups" } : { key: "w2.bits.same_memory_row" };
  for (const sch of SCHEMES) {
    out[`bits.thread_depth.${sch}`] = h ? () => depth(h.thread[sch]) : null;
    out[`bits.collapse_depth.${sch}`] = h ? () => depth(h.collapse[sch]) : null;
  }
  return out;
}

// ---- the sources of the pinned numbers --------------------------------------------------------
// Each: id, and run(call) -> {live: {KEY: value}, when: {"ATTR=VALUE": shown}}, where call(name,
// args) is the page's engine call (in the build: the same endpoint in CPython). `when` shows or
// hides the prose that only makes sense with a result (data-needs="heldout", data-only="kv-gain").
const pre = (ch, o) => prefix(ch, o);
export const SOURCES = [
  // the opening figure's first story, written by the model when the page was built (the figure
  // goes on writing new ones live); it is text, not a number, but it is computed like one
  { id: "opening", run: async (call) => {
    const { prompt, n, seed } = ex.FIGURES.story;
    const r = await call("fig_story", { prompt, n, seed });
    return { live: { "fig.story": { story: [{ text: r.prompt, p: null }, ...r.texts.map((text, i) => ({ text, p: r.p[i] }))] } } };
  } },
  { id: "model", run: async (call) => {
    const m = (await call("models_info")).main;
    return { live: pre("ch1", { "model.vocab": m.vocab, "model.layers": m.n_layers, "model.context": m.context,
      "model.keep": m.keep, "model.window": m.penalty_window, "model.uniform_p": 1 / m.vocab, "model.params": m.params,
      "model.heads": m.n_heads, "model.steps": (m.meta || {}).step, // the training steps the model file records
      "model.heldout": () => heldoutText(m.meta || {}) }) };
  } },
  { id: "ch1-fixed", run: async (call) => ({ live: pre("ch1", await call("ch1_prose_fixed")) }) },
  { id: "panel", run: async (call) => {
    const { openings } = await call("ping");
    const prompt = openings[ex.PANEL.opening];
    const prose = await call("ch1_prose", { prompt });
    const view = await call("ch1_view", { prompt, settings: ex.PANEL.settings, seed: ex.PANEL.seed });
    return { live: pre("ch1", { ...prose, ...view.next_draw, "example.prompt": prompt,
      "panel.default_T": ex.PANEL.settings.temperature, "panel.default_top_p": ex.PANEL.settings.top_p }) };
  } },
  { id: "four-temps", run: async (call) => ({ live: pre("ch1", fourTempsKeys((await call("ch1_four", ex.FOUR_TEMPS)).columns)) }) },
  { id: "greedy-loops", run: async (call) => {
    const r = await call("ch1_loops", ex.LOOPS);
    return { live: pre("ch1", { "loops.share_a": r.columns[0].repeat_share, "loops.share_b": r.columns[1].repeat_share }) };
  } },
  { id: "end", run: async (call) => {
    const r = await call("ch1_long", ex.END_RUN);
    const n = r.tokens.length;
    // (words as a function: the count is written in the language the words are shown in)
    return { live: { "ch1.end.n_tokens": r.stop_reason === "stop_token" ? n
      : () => t("w1.es.more_than", { n: { num: n, text: fmtCount(n) } }) } };
  } },
  { id: "slide", run: async (call) => {
    const r = await call("ch1_long", ex.SLIDE_RUN);
    return { live: pre("ch1", { "slide.slides": r.slides, "slide.cache_len": r.cache_len,
      "slide.eot_count": r.tokens.filter((x) => x === r.end_token).length }) };
  } },
  { id: "ch2-facts", run: async (call) => {
    const r = await call("ch2_facts");
    return { live: pre("ch2", { ...factsKeys(r), ...llamaKeys(), "speed.tokens": ex.SPEED.n, "speed.warmup": ex.SPEED.warmup }),
      when: { "data-needs=heldout": !!r.heldout } };
  } },
  { id: "kv-race", run: async (call) => {
    const r = await call("ch2_kv_race", ex.KV_RACE);
    const P = r.prompt_tokens, w = r.with_cache, wo = r.without_cache, count = ex.KV_RACE.n;
    return { live: pre("ch2", { "kv.P": P, "kv.n": count, "kv.nP": count * P, "kv.triangle": count * (count - 1) / 2,
      "kv.passes_without": wo.passes, "kv.passes_with": w.passes, "kv.macs_with": w.macs, "kv.macs_without": wo.macs,
      "kv.verdict": r.same_work ? { key: "w2.kv.verdict_n1" }
        : () => t("w2.kv.verdict", { saved: wo.passes - w.passes, ratio: f2.times(wo.passes / w.passes) }),
      "kv.pass_ratio": wo.passes / w.passes, "kv.macs_ratio": wo.macs / w.macs,
      "kv.last_t": r.last_t, "kv.last_step_attn_macs": r.last_step_attn_macs }),
    when: { "data-only=kv-gain": !r.same_work } };
  } },
  { id: "outliers", run: async (call) => {
    const { rows, cols } = ex.OUTLIERS, size = 10 ** ex.OUTLIERS.outlier_log10;
    const r = await call("ch2_outliers", { rows, cols, outlier: size });
    const same = Math.abs(r.row.outlier_row_error - r.matrix.outlier_row_error) <= 1e-12 * Math.max(1e-30, r.row.outlier_row_error);
    return { live: pre("ch2", { "ol.rows": rows, "ol.cols": cols, "ol.outlier": size, "ol.row_err": r.row.mean_abs_error,
      "ol.matrix_err": r.matrix.mean_abs_error, "ol.ratio": r.ratio, "ol.row_scale_mean": r.row_scale_mean,
      "ol.row_err_predicted": r.row_scale_mean / 4, "ol.matrix_scale": r.matrix_scale,
      "ol.matrix_err_predicted": r.matrix_scale / 4,
      "ol.outlier_row_err": same ? () => t("w2.ol.row_err_same", { err: f2.w(r.row.outlier_row_error) })
        : () => t("w2.ol.row_err_diff", { row: f2.w(r.row.outlier_row_error), matrix: f2.w(r.matrix.outlier_row_error) }),
      "ol.other_rows": rows - 1, "ol.bytes_float32": r.bytes.float32, "ol.bytes_int8": r.bytes.int8,
      "ol.bytes_row_scales": r.bytes.row_scales, "ol.bytes_matrix_scale": r.bytes.matrix_scale }) };
  } },
  // the bit-depth widget's first two rows: the shipped 8 bits, and the depth where the export's
  // held-out loss starts to show (its own copy of the model; it is put back to 8 bits after)
  { id: "bit-depth", run: async (call) => {
    const h = (await call("ch2_facts")).heldout;
    const low = bitDepthLow(h);
    const r8 = await call("ch2_requant", { bits: 8, scheme: "row" });
    const rl = await call("ch2_requant", { bits: low, scheme: "row" });
    await call("ch2_requant", { bits: 8, scheme: "row" });
    const rows = [{ bits: 8, scheme: "row", story: r8.story }, { bits: low, scheme: "row", story: rl.story }];
    return { live: pre("ch2", { "bits.story_8": r8.story.surprise, "bits.story_low": rl.story.surprise,
      "bits.story_low_bits": low, "bits.story_low_verdict": () => storyVerdict(rl.story),
      "bits.table_words": () => tableWords(rows) }) };
  } },
  { id: "cited", run: async () => {
    const b = passBudget();
    return { live: pre("ch3", { "pb-params-b": b.params_b, "pb-weights-gb": b.weights_gb, "pb-gpu-tbps": b.gpu_tbps,
      "pb-gpu-tflops": b.gpu_tflops, "pb-read-ms": b.read_ms, "pb-math1-us": b.math1_us, "pb-math5-us": b.math5_us,
      "pb-idle-pct": b.idle, "pb-max-tps": b.max_tps, "pb-crossover-n": b.crossover_n, "rf-h100-ridge": b.ridge_mac,
      "rf-h100-ridge-flop": b.ridge_flop }) };
  } },
  { id: "ch3-prose", run: async (call) => {
    const [, fa, fg, fcd, fcv] = ex.COST_PRESETS[1], [, ea, eg, ecd, ecv] = ex.COST_PRESETS[2];
    const v = await call("ch3_prose", { defaults: ex.COST_MODEL,
      presets: { free: [fa, fg, fcd, fcv], expensive: [ea, eg, ecd, ecv] }, pair: ex.SAMPLING_PAIR });
    if (!v["peak-cd0-at-end"]) throw new Error("the free-draft peak is not at the end of the sweep: reword chapter 3");
    return { live: pre("ch3", v) };
  } },
  { id: "ch3-draft", run: async (call) => ({ live: pre("ch3", await call("ch3_draft_prose")) }) },
  { id: "rounds", run: async (call) => ({ live: pre("ch3", await roundKeys(call)) }) },
  { id: "gate", run: async (call) => {
    const g = await call("ch3_gate");
    return { live: { "ch3.gate-pairs": g.pairs, "ch3.gate-passed": g.passed } };
  } },
];

// the depth the bit-depth widget shows beside 8 bits: where the held-out loss starts to show
export const bitDepthLow = (heldout) => (heldout && heldout.thread.row) || 4;

// the round table at its reference string, read against the cost model's α
async function roundKeys(call) {
  const { flags, gamma, c_draft, c_verify } = ex.ROUNDS, a = ex.COST_MODEL.alpha;
  const r = await call("ch3_rounds", { flags, gamma, c_draft, c_verify });
  const n = r.flags_checked;
  const sd = n ? Math.sqrt(a * (1 - a) / n) : NaN; // one binomial standard deviation of a rate over n checks
  const alt = "1".repeat(r.accepted) + "0".repeat(n - r.accepted);
  const [slider, rate] = await Promise.all([call("ch3_model", { alpha: a, gamma, c_draft, c_verify }),
    call("ch3_model", { alpha: r.acceptance, gamma, c_draft, c_verify })]);
  return { "rt-string": flags.replace(/\s+/g, "").slice(0, n), "rt-gamma": gamma, "rt-rounds": r.n_rounds,
    "rt-tokens": r.tokens, "rt-cost": r.cost, "rt-speedup": r.speedup, "rt-accepted": r.accepted, "rt-checked": n,
    "rt-acc-pct": r.acceptance, "rt-rate-lo": Math.max(0, a - sd), "rt-rate-hi": Math.min(1, a + sd), "rt-alt-string": alt,
    "cm-alpha-now": a, "rt-slider-speedup": slider.point.speedup, "rt-rate-speedup": rate.point.speedup,
    "rt-alt-speedup": n ? (await call("ch3_rounds", { flags: alt, gamma, c_draft, c_verify })).speedup : null };
}

// ---- measured numbers: the widget that measures each, in the reader's browser --------------------
const KC = ["shape", "kernel_name", "exact_err", "fast_err", "fast_us", "exact_us", "fast_gmacs", "fast_over_exact"];
const SPEED = ["tps_simd", "ratio_simd_scalar", "ratio_simd_js", "python_ms_simd", "kernel_ratio_simd_scalar",
  "python_share_simd", "gmacs_simd", "gmacs_scalar"];
export const MEASURED = {
  "kernel-check": KC.map((k) => `ch2.kc.${k}`),
  speed: SPEED.map((k) => `ch2.speed.${k}`),
  "kv-race": ["ch2.kv.time_ratio", "ch2.kv.time_vs_passes"],
  "verify-cost": ["vc-g4", "vc-g8", "vc-steps-g8", "vc-slope", "vc-block-saving-pct", "vc-best", "vc-best-gamma",
    "vc-batches"].map((k) => `ch3.${k}`),
  roofline: ["rf-gbps-cache", "rf-gbps-dram", "rf-gmacs", "rf-ridge", "rf-ridge-dram", "rf-our-regime", "rf-sides",
    "rf-dram-regime", "our-math-us", "our-read-us"].map((k) => `ch3.${k}`),
  "live-spec": ["ls-runs", "ls-gamma", "ls-gamma-plus-1", "ls-alpha", "ls-alpha-range", "ls-cd", "ls-cv", "ls-tpr",
    "ls-E", "ls-speedup", "ls-speedup-range", "ls-speedup-mid", "ls-pred", "ls-verdict", "ls-flat-speedup"].map((k) => `ch3.${k}`),
  // pinned at first (the widget's two reference rows), then the reader's own table
  "bit-depth": ["ch2.bits.table_words"],
};

// The panel's numbers: its reference prompt's, or the reader's while "follow my panel" is ticked.
// (ch1_prose's keys and the next draw's; the settings the panel starts at stay pinned.)
export const PANEL_PREFIXES = ["ch1.cur.", "ch1.head.", "ch1.tail.", "ch1.temp.", "ch1.ent.", "ch1.topp.", "ch1.minp.thr10_cur",
  "ch1.minp.kept10_cur", "ch1.order.", "ch1.rule.", "ch1.loop.", "ch1.rng.", "ch1.example.prompt"];
export const isPanelKey = (key) => PANEL_PREFIXES.some((p) => key.startsWith(p));
