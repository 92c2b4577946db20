// Chapter 2's live numbers. Every <span data-live="ch2.KEY"> in the prose is filled here, from
// results our Python computed: ch2_facts (the config, the bundle's matrices and scales, and the
// held-out figures the export wrote into the model's metadata; once per engine) and each widget's
// own run (the widgets call setLive2 with their keys). A key not known yet keeps its "…", a key its
// source lacks shows "–"; no model number is ever typed into the HTML.
import { call, on } from "./engine.js";
import { CITED } from "./cited.js";

const bad = (x) => x == null || (typeof x === "number" && !Number.isFinite(x));

// ---- one format per kind ---------------------------------------------------------------------
export const f2 = {
  int: (x) => Math.round(x).toLocaleString("en"),
  macs: (x) => (x >= 1e9 ? `${(x / 1e9).toPrecision(3)} billion` : x >= 1e6 ? `${(x / 1e6).toPrecision(3)} million`
    : Math.round(x).toLocaleString("en")),
  bytes: (x) => (x >= 2 ** 20 ? `${(x / 2 ** 20).toFixed(2)} MiB` : x >= 1024 ? `${(x / 1024).toFixed(1)} KiB` : `${x} bytes`),
  times: (x) => `${x < 10 ? x.toPrecision(3) : x < 100 ? x.toFixed(1) : x.toFixed(0)} times`,
  pct: (x) => { const p = 100 * x; return `${p >= 10 ? p.toFixed(0) : p >= 1 ? p.toFixed(1) : p.toPrecision(2)}%`; },
  nats: (x) => x.toFixed(3),
  dnats: (x) => `${x < 0 ? "\u2212" : "+"}${Math.abs(x) >= 0.01 ? Math.abs(x).toFixed(3) : Math.abs(x).toFixed(4)}`,
  w: (x) => x.toPrecision(3),
  parts: (e) => {
    if (e === 0) return "nothing at all (the same numbers)";
    const n = 1 / e;
    return n >= 1e6 ? `one part in ${(n / 1e6).toPrecision(3)} million` : `one part in ${Number(n.toPrecision(2)).toLocaleString("en")}`;
  },
  us: (t) => (t < 1000 ? `${t.toPrecision(3)} µs` : `${(t / 1000).toPrecision(3)} ms`),
  g: (x) => x.toFixed(1),
  tps: (x) => Math.round(x).toLocaleString("en"),
  ms2: (x) => `${x.toPrecision(2)} ms`,
  bits2: (x) => x.toFixed(2),
  gib: (x) => (x >= 2 ** 30 ? `${Number((x / 2 ** 30).toPrecision(3))} GiB` : x >= 2 ** 20 ? `${Number((x / 2 ** 20).toPrecision(3))} MiB`
    : `${Number((x / 1024).toPrecision(3))} KiB`),
  words: (x) => ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"][x] ?? x.toLocaleString("en"),
};

// the format of each key, without the "ch2." prefix (keys not listed print as they are: words)
const KIND = {
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
  "kv.cache_over_weights": "times",
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
};

const VALUES = {}; // every key's latest value (tests and the readouts read it: window.__ch2)
window.__ch2 = VALUES;

// values: {key: value}, keys without the "ch2." prefix; a string is shown as it is (words)
export function setLive2(values) {
  Object.assign(VALUES, values);
  for (const node of document.querySelectorAll("#ch2 [data-live]")) {
    const key = node.dataset.live.replace(/^ch2\./, "");
    if (!(key in values)) continue;
    const v = values[key], kind = KIND[key];
    node.textContent = bad(v) ? "–" : typeof v === "string" || !kind ? String(v) : f2[kind](v);
  }
}

// paragraphs that only make sense after a widget's result: data-only="kv-gain", data-after="speed",
// data-needs="heldout"
export function showWhen(attr, value, shown) {
  for (const n of document.querySelectorAll(`#ch2 [${attr}="${value}"]`)) n.hidden = !shown;
}

// "8, 6 and 5 bits" (the depths the export measured, from 8 down)
export function depthList(bs) {
  if (!bs || !bs.length) return "no depth";
  const s = bs.map(String);
  return (s.length === 1 ? s[0] : `${s.slice(0, -1).join(", ")} and ${s[s.length - 1]}`) + " bits";
}
const depth = (b) => (b == null ? "no depth down to 2 bits" : `${b} bits`);

function factsKeys(r) {
  const c = r.cfg, k = r.cost, kv = r.kv, q = r.q8, ex = q.example, b = r.bits, h = r.heldout;
  const crossover = kv.crossover_tokens <= c.context
    ? `it overtakes them after ${f2.int(kv.crossover_tokens)} tokens`
    : `it would need ${f2.int(kv.crossover_tokens)} tokens to overtake them, more than the context holds`;
  const vs = kv.cache_over_weights > 1 ? "larger than" : kv.cache_over_weights < 1 ? "smaller than" : "the same size as";
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
    "q8.example_name": ex.label, "q8.example_shape": `${ex.rows} × ${ex.cols}`, "q8.example_row_max": ex.row_max_median,
    "q8.example_scale": ex.scale_median, "q8.example_bound": ex.scale_median / 2, "q8.example_float32_bytes": ex.f32,
    "q8.example_int8_bytes": ex.i8, "q8.example_scale_bytes": ex.scales, "q8.n_matrices": q.n_matrices,
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
  Object.assign(out, {
    "bits.heldout_stories": h ? h.stories : null, "bits.heldout_tokens": h ? h.tokens : null,
    "bits.heldout_float": h ? h.float_nats : null, "bits.heldout_int8_delta": h ? h.int8_delta : null,
    "bits.sweep_stories": h ? h.sweep_stories : null, "bits.sweep_float": h ? h.sweep_float_nats : null,
    "bits.cheap_depths.row": h ? depthList(h.cheap.row) : null,
    "bits.thread_delta.row": h ? h.thread_delta.row : null, "bits.collapse_delta.row": h ? h.collapse_delta.row : null,
    "bits.heldout_delta.group32.3": d("group32", 3), "bits.heldout_delta.row.4": d("row", 4),
    "bits.heldout_delta.row.3": d("row", 3), "bits.heldout_delta.matrix.3": d("matrix", 3),
    "bits.heldout_delta.group32.2": d("group32", 2), "bits.heldout_delta.row.2": d("row", 2),
  });
  const g3 = d("group32", 3), r4 = d("row", 4);
  out["bits.same_memory_verdict"] = g3 == null || r4 == null ? null : g3 < r4
    ? "at the same memory, the group scales buy more quality"
    : "at the same memory, this model does better spending the bits on the weights (4 bits, row scales) than on scales";
  for (const sch of ["row", "matrix", "group32"]) {
    out[`bits.thread_depth.${sch}`] = h ? depth(h.thread[sch]) : null;
    out[`bits.collapse_depth.${sch}`] = h ? depth(h.collapse[sch]) : null;
  }
  return out;
}

// the Llama 2 7B cache arithmetic: bytes per token, per full conversation, and how many
// conversations' caches outweigh the shared weights
export function llamaKeys(m = CITED.llama2_7b) {
  const perToken = 2 * m.layers * m.width * m.bytesPerNumber;
  const perConversation = perToken * m.context;
  return { "llama.layers": m.layers, "llama.width": m.width, "llama.bytes": m.bytesPerNumber,
    "llama.per_token": perToken, "llama.context": m.context, "llama.per_conversation": perConversation,
    "llama.weights": `${m.weightsGB} GB`,
    "llama.conversations": Math.floor((m.weightsGB * 1e9) / perConversation) + 1 };
}

export let FACTS = null; // the latest ch2_facts (the bit-depth widget reads the held-out figures)
const waiting = [];
export function whenFacts(fn) { if (FACTS) fn(FACTS); else waiting.push(fn); }

// On every (re)start of the engine: the model's figures.
export function startLive2() {
  on("ready", () => {
    call("ch2_facts").then((r) => {
      FACTS = r;
      setLive2({ ...factsKeys(r), ...llamaKeys() });
      showWhen("data-needs", "heldout", !!r.heldout);
      for (const fn of waiting.splice(0)) fn(r);
    }, (e) => console.warn("[decodelab] chapter 2's numbers:", e.message));
  });
}
