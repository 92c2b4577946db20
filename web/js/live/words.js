// The words some live numbers come with (a verdict, a table in words, the keys of a result read
// as prose): from results to text, for the registry's sources and the widgets that show the same.
// DOM-free: Node imports this module at build time.
import { t, fixed } from "../i18n.js";
import { CITED } from "../cited.js";
import { SPEC } from "../generated/spec.js";
import {
  f2, shape, depthList, numberList, fmtCount, fmtEff, sizeComparison, story, words,
} from "./formats.js";

// ---- words some numbers come with -------------------------------------------------------------
// The held-out figure comes from the model file (the report measures it with the 8-bit weights
// the page runs and stores it there); a model without it says so instead of showing a number.
export function heldoutText(meta) {
  const h = meta && meta.heldout;
  const n = h && h.int8 && h.int8.nats_per_token;
  if (!Number.isFinite(n)) return t("w1.live.heldout_none");
  // the figure alone: where it is read (ch1.p28) it is one number of a paragraph that has its
  // three; the die it amounts to and the tokens it was measured on are in chapter 2's aside
  return t("w1.live.heldout", { n: { num: Number(n.toFixed(2)), text: fixed(n, 2) } });
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

// the Llama 2 7B cache arithmetic: bytes per token, per full conversation, how many
// conversations' caches outweigh the shared weights, and how many fit beside them on an H100
export function llamaKeys(m = CITED.llama2_7b, gpu = CITED.h100) {
  const perToken = 2 * m.layers * m.width * m.bytesPerNumber;
  const perConversation = perToken * m.context;
  return { "llama.layers": m.layers, "llama.width": m.width, "llama.bytes": m.bytesPerNumber,
    "llama.per_token": perToken, "llama.context": m.context, "llama.per_conversation": perConversation,
    "llama.weights": () => t("w2.unit.gb", { n: m.weightsGB }),
    "llama.conversations": Math.floor((m.weightsGB * 1e9) / perConversation) + 1,
    "llama.h100": gpu.memoryGB,
    "llama.h100_fit": Math.floor(((gpu.memoryGB - m.weightsGB) * 1e9) / perConversation) };
}

export function factsKeys(r) {
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
  // the landmark: a model that knew nothing and gave every token the same chance scores ln V
  const two = h && d("row", 2) != null ? h.sweep_float_nats + d("row", 2) : null;
  Object.assign(out, { "bits.uniform_nats": Math.log(c.vocab), "bits.heldout_2bit.row": two,
    "bits.uniform_verdict": two == null ? null : { key: two > Math.log(c.vocab) ? "w2.bits.uniform_worse" : "w2.bits.uniform_better" } });
  const g3 = d("group32", 3), r4 = d("row", 4);
  out["bits.same_memory_verdict"] = g3 == null || r4 == null ? null : g3 < r4
    ? { key: "w2.bits.same_memory_groups" } : { key: "w2.bits.same_memory_row" };
  for (const sch of SCHEMES) {
    out[`bits.thread_depth.${sch}`] = h ? () => depth(h.thread[sch]) : null;
    out[`bits.collapse_depth.${sch}`] = h ? () => depth(h.collapse[sch]) : null;
  }
  return out;
}

// the depth the bit-depth widget shows beside 8 bits: where the held-out loss starts to show
export const bitDepthLow = (heldout) => (heldout && heldout.thread.row) || 4;

// ---- verdicts: the words a slot of the prose takes from the reader's own run ------------------
// Each group is one outcome of a run (which side of a ridge our kernel falls on, whether
// speculation paid, how the acceptance rate spread) and, for every slot it drives, the entry that
// slot shows for each value (null: the slot shows the number itself). Slots of one group are
// driven by one value, so they cannot disagree. The widgets pick their words here, and
// tests/test_live_variants.py renders every value in place, in its paragraph, in each language.
export const VERDICTS = {
  // our kernel's intensity (one multiply-add per byte) against this machine's ridge from cache
  ourSide: {
    "ch3.rf-our-regime": { right: "w3.live.regime_right", left: "w3.live.regime_left", close: "w3.live.regime_close" },
    "ch3.rf-sides": { right: "w3.live.sides_opposite", left: "w3.live.sides_same", close: "w3.live.sides_same" },
  },
  // the same intensity against the ridge from main memory
  dramSide: { "ch3.rf-dram-regime": { right: "w3.live.dram_right", left: "w3.live.dram_left", close: "w3.live.regime_close" } },
  // the live pair's verdict (Python's ch3_live_summary), in the prose and as the widget's badge
  speculation: {
    "ch3.ls-verdict": { pays: "w3.live.verdict_pays", "does not pay": "w3.live.verdict_not", "too close to call": "w3.live.verdict_close" },
    "badge:ls-verdict": { pays: "w3.ls.verdict.pays", "does not pay": "w3.ls.verdict.not", "too close to call": "w3.ls.verdict.close" },
  },
  // the live pair's acceptance over its runs: none drafted (γ = 0), one value, or a spread
  acceptance: {
    "ch3.ls-alpha": { none: "w3.live.alpha_none", same: null, spread: null },
    "ch3.ls-alpha-range": { none: "w3.live.alpha_no_drafts", same: "w3.live.alpha_same", spread: "w3.live.alpha_range" },
  },
  // the verify-cost chart: did one block of positions beat as many single steps?
  blockSaving: { "ch3.vc-block-saving-pct": { saves: null, none: "w3.live.none" } },
};

// Which side of a ridge our kernel's one multiply-add per byte falls on: a quarter past it either
// way, or too close to call
export function side(ridge) {
  const x = 1 / ridge;
  return x >= 1.25 ? "right" : x <= 0.8 ? "left" : "close";
}

// The entry `slot` shows for `value` of its group, as words (live/formats.js), or `number` itself
// where the slot shows the number
export function verdict(group, slot, value, args = {}, number = undefined) {
  const key = VERDICTS[group][slot][value];
  if (key === undefined) throw new Error(`no words for ${slot} = ${value}`);
  return key === null ? number : words(key, args);
}
