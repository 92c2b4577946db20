// Chapter 2's live numbers. Every <span data-live="ch2.KEY"> in the prose is filled here, from
// results our Python computed: ch2_facts (the config, the bundle's matrices and scales, and the
// held-out figures the export wrote into the model's metadata; once per engine) and each widget's
// own run (the widgets call setLive2 with their keys). A key not known yet keeps its "…", a key its
// source lacks shows "–"; no model number is ever typed into the HTML.
// Every value is kept (window.__ch2) and written again after a language switch: the prose's HTML
// is replaced then, and numbers and words are rendered in the new language (words are text keys:
// {key, args}, or a function that renders them).
import { call, on } from "./engine.js";
import { CITED } from "./cited.js";
import { t, fixed, plain, onLang, currentLang } from "./i18n.js";

const bad = (x) => x == null || (typeof x === "number" && !Number.isFinite(x));

// x with d significant digits, as toPrecision writes them (trailing zeros kept, an exponent past
// d digits), in the reader's language
export function sig(x, d) {
  if (x === 0) return fixed(0, d - 1);
  const [m, e] = x.toExponential(d - 1).split("e");
  const ex = Number(e);
  if (ex < -6 || ex >= d) return `${fixed(Number(m), d - 1)}e${e}`;
  return fixed(x, d - 1 - ex);
}
// a whole number without grouping (a matrix shape: 1024 × 256)
const wholeFormats = new Map();
export function whole(x) {
  const l = currentLang();
  if (!wholeFormats.has(l)) wholeFormats.set(l, new Intl.NumberFormat(l, { useGrouping: false, maximumFractionDigits: 0 }));
  return wholeFormats.get(l).format(x);
}
export const shape = (r, c) => t("w2.fmt.shape", { r: whole(r), c: whole(c) });
// a number shown as `text`, its plural form chosen by `num`
const counted = (num, text) => ({ num, text });
const unit = (key, x, text) => t(key, { n: counted(x, text) });

// ---- one format per kind ---------------------------------------------------------------------
export const f2 = {
  int: (x) => fixed(Math.round(x), 0),
  macs: (x) => (x >= 1e9 ? t("fmt.billion", { n: counted(x / 1e9, sig(x / 1e9, 3)) })
    : x >= 1e6 ? t("fmt.million", { n: counted(x / 1e6, sig(x / 1e6, 3)) }) : fixed(Math.round(x), 0)),
  bytes: (x) => (x >= 2 ** 20 ? unit("w2.unit.mib", x / 2 ** 20, fixed(x / 2 ** 20, 2))
    : x >= 1024 ? unit("w2.unit.kib", x / 1024, fixed(x / 1024, 1)) : unit("w2.unit.bytes", x, fixed(x, 0))),
  // "3.21 times" (ru "в 3,21 раза": the form follows the number as shown)
  times: (x) => unit("w2.fmt.times", x < 100 ? x : Math.round(x), x < 10 ? sig(x, 3) : x < 100 ? fixed(x, 1) : fixed(x, 0)),
  pct: (x) => { const p = 100 * x; return t("fmt.pct", { x: p >= 10 ? fixed(p, 0) : p >= 1 ? fixed(p, 1) : sig(p, 2) }); },
  nats: (x) => fixed(x, 3),
  dnats: (x) => `${x < 0 ? "\u2212" : "+"}${f2.nats_abs(x)}`,
  nats_abs: (x) => (Math.abs(x) >= 0.01 ? fixed(Math.abs(x), 3) : fixed(Math.abs(x), 4)),
  w: (x) => sig(x, 3),
  parts: (e) => {
    if (e === 0) return t("w2.fmt.parts_none");
    const n = 1 / e;
    return n >= 1e6 ? t("w2.fmt.parts_million", { n: counted(n / 1e6, sig(n / 1e6, 3)) })
      : t("w2.fmt.parts", { n: plain(Number(n.toPrecision(2))) });
  },
  us: (x) => (x < 1000 ? unit("w2.unit.us", x, sig(x, 3)) : unit("w2.unit.ms", x / 1000, sig(x / 1000, 3))),
  g: (x) => fixed(x, 1),
  tps: (x) => fixed(Math.round(x), 0),
  ms2: (x) => unit("w2.unit.ms", x, sig(x, 2)),
  bits2: (x) => fixed(x, 2),
  gib: (x) => {
    const [v, k] = x >= 2 ** 30 ? [x / 2 ** 30, "w2.unit.gib"] : x >= 2 ** 20 ? [x / 2 ** 20, "w2.unit.mib"] : [x / 1024, "w2.unit.kib"];
    const r = Number(v.toPrecision(3));
    return unit(k, r, plain(r));
  },
  words: (x) => (Number.isInteger(x) && x >= 0 && x <= 10 ? t(`w2.num.${x}`) : fixed(x, 0)),
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

// one value as the reader reads it: a number in its key's format, words by key ({key, args}) or
// by a function rendering them, a string as it is (a token's text, the model's)
function shown(key, v) {
  if (bad(v)) return "–";
  if (typeof v === "function") return v();
  if (v && typeof v === "object" && typeof v.key === "string") return t(v.key, v.args || {});
  const kind = KIND[key];
  if (typeof v === "string") return v;
  return kind ? f2[kind](v) : plain(v);
}

function render(values) {
  for (const node of document.querySelectorAll("#ch2 [data-live]")) {
    const key = node.dataset.live.replace(/^ch2\./, "");
    if (key in values) node.textContent = shown(key, values[key]);
  }
}

// values: {key: value}, keys without the "ch2." prefix, merged into the values kept so far
export function setLive2(values) {
  Object.assign(VALUES, values);
  render(values);
}

// paragraphs that only make sense after a widget's result: data-only="kv-gain", data-after="speed",
// data-needs="heldout" (kept, to hide them again in the new language's HTML)
const SHOWN = new Map();
export function showWhen(attr, value, shown) {
  SHOWN.set(`${attr}=${value}`, [attr, value, shown]);
  for (const n of document.querySelectorAll(`#ch2 [${attr}="${value}"]`)) n.hidden = !shown;
}

// a language switch replaced the prose: every number and word again, and what is hidden
onLang(() => {
  for (const [attr, value, sh] of SHOWN.values()) showWhen(attr, value, sh);
  render(VALUES);
});

// "8, 6 and 5" (numbers in a list, in the reader's words)
export function numberList(ns) {
  const s = ns.map((x) => fixed(x, 0));
  return s.length === 1 ? s[0] : s.slice(0, -1).join(t("fmt.list_comma")) + t("fmt.list_and") + s[s.length - 1];
}
// "8, 6 and 5 bits" (the depths the export measured, from 8 down)
export function depthList(bs) {
  if (!bs || !bs.length) return t("w2.bits.no_depth");
  return t("w2.bits.depths", { list: numberList(bs), n: bs[bs.length - 1] });
}
const depth = (b) => (b == null ? t("w2.bits.no_depth_to2") : t("w2.bits.n", { n: b }));

function factsKeys(r) {
  const c = r.cfg, k = r.cost, kv = r.kv, q = r.q8, ex = q.example, b = r.bits, h = r.heldout;
  const crossover = { key: kv.crossover_tokens <= c.context ? "w2.live.crossover" : "w2.live.crossover_never",
    args: { n: kv.crossover_tokens } };
  const vs = { key: kv.cache_over_weights > 1 ? "w2.live.larger" : kv.cache_over_weights < 1 ? "w2.live.smaller" : "w2.live.same_size" };
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
    "q8.example_name": ex.label, "q8.example_shape": () => shape(ex.rows, ex.cols), "q8.example_row_max": ex.row_max_median,
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
    "bits.cheap_depths.row": h ? () => depthList(h.cheap.row) : null,
    "bits.thread_delta.row": h ? h.thread_delta.row : null, "bits.collapse_delta.row": h ? h.collapse_delta.row : null,
    "bits.heldout_delta.group32.3": d("group32", 3), "bits.heldout_delta.row.4": d("row", 4),
    "bits.heldout_delta.row.3": d("row", 3), "bits.heldout_delta.matrix.3": d("matrix", 3),
    "bits.heldout_delta.group32.2": d("group32", 2), "bits.heldout_delta.row.2": d("row", 2),
  });
  const g3 = d("group32", 3), r4 = d("row", 4);
  out["bits.same_memory_verdict"] = g3 == null || r4 == null ? null : g3 < r4
    ? { key: "w2.bits.same_memory_groups" } : { key: "w2.bits.same_memory_row" };
  for (const sch of ["row", "matrix", "group32"]) {
    out[`bits.thread_depth.${sch}`] = h ? () => depth(h.thread[sch]) : null;
    out[`bits.collapse_depth.${sch}`] = h ? () => depth(h.collapse[sch]) : null;
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
    "llama.weights": () => t("w2.unit.gb", { n: m.weightsGB }),
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
