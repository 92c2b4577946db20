// How each live number is written: its format by key (FORMATS; a key not listed prints with its
// chapter's default) and render(key, value). One of the live registry's three parts: this file
// (formats), words.js (the words some numbers come with) and registry.js (the sources).
// DOM-free: Node imports this module at build time.
import { t, fixed, plain } from "../i18n.js";
import { SPEC } from "../generated/spec.js";
import {
  bad, f2, f3, millions, tok, toks, countOf, fmtPct, fmtTimes, fmtBig, fmtCount, fmtEff, fmtNats, fmtFixed, fmtShare, fmtInterval, fmtChance, story,
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
  "topk.many_beyond": toks, "topk.many_kstar95": fmtCount, "minp.many_thr": fmtPct, "minp.many_kept": fmtCount, "typical.many_from": fmtCount,
  "pen.the_r1": fmtPct, "pen.the_r2": fmtPct, "pen.the_rank_r2": fmtCount, "pen.stop_r1": fmtPct,
  "pen.stop_r2": fmtPct, "pen.name_r1": fmtPct, "pen.name_r2": fmtPct,
  "end.p_theend": fmtPct, "end.p_everafter": fmtPct, "end.p_mid": fmtPct, "english.eff_cyr": fmtEff,
  "four.s0": two, "four.s1": two, "four.s2": two, "four.s3": two,
  "loops.share_a": fmtShare, "loops.share_b": fmtShare, "end.n_tokens": countOf("fmt.n_tokens"),
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
  "llama.layers": "int", "llama.width": "int", "llama.bytes": "int", "llama.per_token": "gb", "llama.context": "int",
  "llama.per_conversation": "gb", "llama.conversations": "words", "llama.h100": "int", "llama.h100_fit": "int",
  "bits.story_tokens": "int", "bits.zero_frac_2bit_row": "pct", "bits.scale_bits_row": "bits2",
  "bits.eff_bits.group32.3": "bits2", "bits.eff_bits.row.4": "bits2", "bits.story_8": "nats", "bits.story_low": "nats",
  "bits.story_low_bits": "int", "bits.uniform_nats": "nats", "bits.heldout_2bit.row": "nats", "bits.heldout_stories": "int", "bits.heldout_tokens": "int",
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
  "rf-h100-ridge-flop": f3.int, "ls-runs": countOf("fmt.n_runs"), "ls-gamma": f3.int, "ls-gamma-plus-1": f3.int, "ls-cv": f3.fix(1),
  "ls-speedup-range": f3.range(2), "ls-speedup-mid": f3.range(2),
  "st-gamma": f3.int, "st-n": f3.int,
  ...Object.fromEntries([0, 1, 2].flatMap((i) => [[`st-t${i}`, f3.trim(1)], [`st-a${i}`, f3.pct(0)], [`st-e${i}`, f3.fix(2)],
    [`st-c${i}`, f3.int]])),
};
export const prefix = (ch, o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`${ch}.${k}`, v]));
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
