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
// FORMATS (number-formats.js) gives each key's format; words.js the words that come with some.
// DOM-free: Node imports this module at build time.
import { t, fixed } from "../i18n.js";
import { passBudget } from "../hardware.js";
import * as ex from "./examples.js";
import { f2, shape, fmtCount, story } from "./formats.js";
import { prefix, render } from "./number-formats.js";
import { heldoutText, fourTempsKeys, factsKeys, llamaKeys, bitDepthLow, storyVerdict, tableWords } from "./words.js";

export { render }; // live.js reads each number's text through the registry

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
  // the pair's acceptance at three temperatures (issue 41: the rule's p and q come after chapter 1's sampler)
  { id: "spec-temps", run: async (call) => {
    const { temps, ...args } = ex.SPEC_TEMPS, out = {};
    for (const [i, temperature] of temps.entries()) {
      const r = await call("ch3_alpha_at", { ...args, temperature });
      Object.assign(out, { [`st-t${i}`]: temperature, [`st-a${i}`]: r.alpha, [`st-e${i}`]: r.tokens_per_round, [`st-c${i}`]: r.checks });
    }
    return { live: pre("ch3", { ...out, "st-gamma": args.gamma, "st-n": args.n }) };
  } },
  { id: "rounds", run: async (call) => ({ live: pre("ch3", await roundKeys(call)) }) },
  { id: "gate", run: async (call) => {
    const g = await call("ch3_gate");
    return { live: { "ch3.gate-pairs": g.pairs, "ch3.gate-passed": g.passed } };
  } },
];


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
