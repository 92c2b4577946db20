// Chapter 3's live numbers. Every <span data-live="ch3.KEY"> in the chapter is filled here: the
// cited figures (hardware.js) at once; ch3_prose (the cost model at the widgets' own defaults, the
// peak, the worked sampling example, the models' sizes) when the engine is ready; and each
// widget's own result when it arrives (the widgets announce them as "ch3" events on document).
// A key not known yet keeps its "…"; no model or measured number is typed into the HTML.
// A language switch rewrites the prose (its spans come back as "…"), so every key's latest value
// is kept and written again; the words among them are text keys ({key, args}), numbers are
// formatted in the reader's language.
import { call, on } from "./engine.js";
import { latest, whenSeen } from "./ui.js";
import { t, fixed, plain, onLang } from "./i18n.js";
import { passBudget } from "./hardware.js";
import { EVENT } from "./ch3-events.js";
import { DEFAULTS, PRESETS } from "./widgets/cost-model.js";
import { DEFAULT_PAIR } from "./widgets/sampling-rule.js";

const bad = (x) => x == null || !Number.isFinite(x);
const fix = (d) => (x) => (bad(x) ? "–" : fixed(x, d));
// up to d decimals, trailing zeros dropped (0.10 -> 0.1)
const trim = (d) => (x) => (bad(x) ? "–" : plain(parseFloat(x.toFixed(d)), d));
const pct = (d) => (x) => (bad(x) ? "–" : t("fmt.pct", { x: fixed(100 * x, d) }));
const int = (x) => (bad(x) ? "–" : fixed(Math.round(x), 0));
const millions = (d) => (x) => (bad(x) ? "–" : t("fmt.million", { n: { num: Number((x / 1e6).toFixed(d)), text: fixed(x / 1e6, d) } }));
const range = (d) => ([lo, hi]) => (bad(lo) || bad(hi) ? "–" : fixed(lo, d) === fixed(hi, d) ? fixed(lo, d) : `${fixed(lo, d)}–${fixed(hi, d)}`);
// a time in µs: whole numbers from 10, one decimal below
const micro = (x) => (bad(x) ? "–" : x >= 10 ? fixed(x, 0) : fixed(x, 1));
// a value in words: a text key and its arguments
const words = (key, args = {}) => ({ key, args });

// the format of each key (a key not listed prints with two decimals; strings print as they are)
const KIND = {
  "pb-params-b": trim(1), "pb-weights-gb": trim(1), "pb-gpu-tbps": trim(2), "pb-gpu-tflops": int, "pb-read-ms": fix(1),
  "pb-math1-us": fix(0), "pb-math5-us": fix(0), "pb-idle-pct": pct(1), "pb-max-tps": int, "pb-crossover-n": int,
  "cm-alpha": trim(3), "cm-gamma": int, "cm-cd": trim(3), "cm-cv": trim(3), "cm-share": pct(0), "cm-ceiling": trim(2),
  "cm-share-inf": pct(0), "cm32-E": fix(3), "cm32-cost": trim(2), "cm32-share": pct(0), "cm-alpha-now": trim(2),
  "peak-gamma": int, "peak-a060": int, "peak-a090": int, "peak-a095": int, "peak-cd005": int, "peak-cd020": int,
  "peak-cd1": int, "peak-cv2": int, "peak-cd0": int, "peak-free": int, "peak-free-preset-gamma": int, "peak-free-cd": trim(3),
  "het-E-true": trim(2), "sr-keep-girl": fix(3), "sr-reject-first-share": fix(3),
  "params": millions(2), "draft-params": millions(2), "main-macs-per-token": millions(1),
  "rt-gamma": int, "rt-rounds": int, "rt-tokens": int, "rt-cost": trim(2), "rt-accepted": int, "rt-checked": int,
  "rt-acc-pct": pct(0), "gate-pairs": int, "gate-passed": int,
  "vc-g4": fix(1), "vc-g8": fix(1), "vc-steps-g8": fix(1), "vc-block-saving-pct": pct(0), "vc-best-gamma": int, "vc-batches": int,
  "rf-gbps-cache": fix(0), "rf-gbps-dram": fix(1), "rf-gmacs": fix(1), "rf-ridge": fix(2), "rf-ridge-dram": fix(2),
  "our-math-us": micro, "our-read-us": micro, "rf-h100-ridge": int, "rf-h100-ridge-flop": int,
  "ls-runs": int, "ls-gamma": int, "ls-gamma-plus-1": int, "ls-cv": fix(1),
  "ls-speedup-range": range(2), "ls-speedup-mid": range(2),
};

const values = {}; // every key's latest value, for tests and for the quiz
window.__ch3Live = values;

function show(v, f) {
  if (typeof v === "string") return v; // a string of flags: shown as it is
  if (v == null) return "–";
  if (typeof v === "object" && !Array.isArray(v) && typeof v.key === "string") return t(v.key, v.args);
  return f(v);
}

function paint(vals) {
  for (const node of document.querySelectorAll("#ch3 [data-live]")) {
    const key = node.dataset.live.replace(/^ch3\./, "");
    if (!(key in vals)) continue;
    node.textContent = show(vals[key], KIND[key] || fix(2));
    node.dataset.state = "ok";
  }
}

export function setLive(vals) {
  Object.assign(values, vals);
  paint(vals);
}

// the cited figures: known before the engine starts
function fillConstants() {
  const b = passBudget();
  setLive({ "pb-params-b": b.params_b, "pb-weights-gb": b.weights_gb, "pb-gpu-tbps": b.gpu_tbps,
    "pb-gpu-tflops": b.gpu_tflops, "pb-read-ms": b.read_ms, "pb-math1-us": b.math1_us, "pb-math5-us": b.math5_us,
    "pb-idle-pct": b.idle, "pb-max-tps": b.max_tps, "pb-crossover-n": b.crossover_n, "rf-h100-ridge": b.ridge_mac,
    "rf-h100-ridge-flop": b.ridge_flop });
}

// the round table's own keys follow both the table and the cost model's α box
const state = { alphaNow: DEFAULTS.alpha, rounds: null };
const refreshRounds = latest(async () => {
  const t = state.rounds;
  if (!t) return;
  const { r, gamma, c_draft, c_verify } = t, a = state.alphaNow, n = r.flags_checked;
  const sd = n ? Math.sqrt(a * (1 - a) / n) : NaN; // one binomial standard deviation of a rate over n checks
  const used = t.flags.replace(/\s+/g, "").slice(0, n);
  const alt = "1".repeat(r.accepted) + "0".repeat(n - r.accepted);
  const out = { "rt-string": used, "rt-gamma": gamma, "rt-rounds": r.n_rounds, "rt-tokens": r.tokens, "rt-cost": r.cost,
    "rt-speedup": r.speedup, "rt-accepted": r.accepted, "rt-checked": n, "rt-acc-pct": r.acceptance,
    "rt-rate-lo": Math.max(0, a - sd), "rt-rate-hi": Math.min(1, a + sd), "rt-alt-string": alt, "cm-alpha-now": a };
  try {
    const [slider, rate] = await Promise.all([call("ch3_model", { alpha: a, gamma, c_draft, c_verify }),
      call("ch3_model", { alpha: r.acceptance, gamma, c_draft, c_verify })]);
    out["rt-slider-speedup"] = slider.point.speedup;
    out["rt-rate-speedup"] = rate.point.speedup;
    out["rt-alt-speedup"] = n ? (await call("ch3_rounds", { flags: alt, gamma, c_draft, c_verify })).speedup : null;
  } catch (e) {
    console.warn("[decodelab] chapter 3's round numbers:", e.message);
  }
  setLive(out);
});

// the roofline's words depend on where the measured ridge falls
function regime(ridge) {
  const r = 1 / ridge; // our intensity (1 multiply-add per byte) over the ridge
  if (r >= 1.25) return words("w3.live.regime_right");
  if (r <= 0.8) return words("w3.live.regime_left");
  return words("w3.live.regime_close");
}

// a large 8-bit model streamed from main memory: 1 multiply-add per byte against that ridge
function dramRegime(ridge) {
  const r = 1 / ridge;
  if (r >= 1.25) return words("w3.live.dram_right");
  if (r <= 0.8) return words("w3.live.dram_left");
  return words("w3.live.regime_close");
}

function onWidget(d) {
  if (d.kind === "model") {
    state.alphaNow = d.alpha;
    refreshRounds();
  } else if (d.kind === "rounds") {
    state.rounds = d;
    refreshRounds();
  } else if (d.kind === "gate") {
    setLive({ "gate-pairs": d.pairs, "gate-passed": d.passed });
  } else if (d.kind === "verify") {
    const s = d.summary, at = (g) => s.rows.find((x) => x.gamma === g) || {};
    setLive({ "vc-g4": at(4).block_best, "vc-g8": at(8).block_best, "vc-steps-g8": at(8).steps_best, "vc-slope": s.slope,
      "vc-block-saving-pct": s.block_saving > 0 ? s.block_saving : words("w3.live.none"), "vc-best": s.best, "vc-best-gamma": s.best_gamma,
      "vc-batches": s.batches });
  } else if (d.kind === "roofline") {
    const r = d.result, cache = r.cache.gbps, dram = r.dram.gbps, g = r.macs.gmacs;
    const macs = values["main-macs-per-token"];
    setLive({ "rf-gbps-cache": cache, "rf-gbps-dram": dram, "rf-gmacs": g, "rf-ridge": g / cache, "rf-ridge-dram": g / dram,
      "rf-our-regime": regime(g / cache), "rf-sides": words(g / cache < 0.8 ? "w3.live.sides_opposite" : "w3.live.sides_same"),
      "rf-dram-regime": dramRegime(g / dram),
      "our-math-us": macs ? macs / (g * 1e9) * 1e6 : null, "our-read-us": r.weights_bytes / (cache * 1e9) * 1e6 });
  } else if (d.kind === "live") {
    const s = d.summary;
    const verdict = { pays: "w3.live.verdict_pays", "does not pay": "w3.live.verdict_not", "too close to call": "w3.live.verdict_close" };
    setLive({ "ls-runs": s.runs, "ls-gamma": s.gamma, "ls-gamma-plus-1": s.gamma + 1,
      "ls-alpha": s.alpha.median ?? words("w3.live.alpha_none"), "ls-alpha-range": s.alpha.lo == null ? words("w3.live.alpha_no_drafts")
        : s.alpha.lo === s.alpha.hi ? words("w3.live.alpha_same")
          : words("w3.live.alpha_range", { lo: { value: s.alpha.lo, fixed: 2 }, hi: { value: s.alpha.hi, fixed: 2 } }),
      "ls-cd": s.c_draft.median ?? words("w3.live.cd_none"), "ls-cv": s.c_verify.median, "ls-tpr": s.tokens_per_round.median,
      "ls-E": s.E, "ls-speedup": s.measured_speedup.median, "ls-speedup-range": [s.measured_speedup.lo, s.measured_speedup.hi],
      "ls-speedup-mid": [s.measured_speedup.trim_lo, s.measured_speedup.trim_hi],
      "ls-pred": s.predicted_speedup.median, "ls-verdict": words(verdict[s.verdict]), "ls-flat-speedup": s.flat_speedup });
  }
}

export function startCh3Live() {
  fillConstants();
  onLang(() => paint(values)); // the prose came back as "…": every value again, in the new language
  document.addEventListener(EVENT, (e) => onWidget(e.detail));
  // after the current task: the widgets' first calls (the panel's distribution) go first
  on("ready", () => setTimeout(() => {
    const [, fa, fg, fcd, fcv] = PRESETS[1], [, ea, eg, ecd, ecv] = PRESETS[2];
    call("ch3_prose", { defaults: DEFAULTS, presets: { free: [fa, fg, fcd, fcv], expensive: [ea, eg, ecd, ecv] },
      pair: DEFAULT_PAIR }).then((v) => {
      if (!v["peak-cd0-at-end"]) console.error("[decodelab] the free-draft peak is not at the end of the sweep: reword chapter 3");
      setLive(v);
    }, (e) => console.warn("[decodelab] chapter 3's numbers:", e.message));
  }, 0));
  // the draft model's size: asking for it loads the draft, so only when chapter 3 comes near
  const ch3 = document.getElementById("ch3");
  if (ch3) whenSeen(ch3, () => call("ch3_draft_prose").then(setLive, (e) => {
    setLive({ "draft-params": null, "draft-weights-mb": null, "draft-size-ratio": null });
    console.warn("[decodelab] the draft model's size:", e.message);
  }));
}
