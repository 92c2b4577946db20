// Chapter 1's live numbers. Every <span data-live="ch1.KEY"> in the prose is filled here, from
// results our Python computed: the model's metadata (on ready), ch1_prose_fixed (once per
// engine), ch1_prose and the panel's next draw (sampler-panel.js), and each widget's own run.
// A key not known yet keeps its "…"; no model number is ever typed into the HTML.
// Every value is kept (the last one of each key): a language switch writes the prose anew, its
// spans back to "…", and every kept value is shown again in the new language's formats.
import { call, on } from "./engine.js";
import { fmtPct, fmtTimes, fmtBig, fmtCount, fmtEff, fmtNats, fmtFixed, fmtShare, fmtInterval, fmtChance, tokCode,
  tokList } from "./ui.js";
import { fixed, onLang, plain, t } from "./i18n.js";

const two = fmtFixed(2);
// the format of each key (keys not listed print as plain text)
const KIND = {
  "model.vocab": fmtCount, "model.layers": fmtCount, "model.context": fmtCount, "model.keep": fmtCount,
  "model.window": fmtCount, "model.uniform_p": fmtPct,
  "cur.P": fmtCount, "head.top1_tok": tokCode, "head.top2_tok": tokCode, "head.top1_p": fmtPct, "head.top2_p": fmtPct,
  "head.n_over1pct": fmtCount, "head.mass_over1pct": fmtPct, "head.crumbs_n": fmtCount, "head.crumbs_mass": fmtPct,
  "head.last_p": fmtPct, "head.top_over_last": fmtBig, "tail.beyond40": fmtPct, "tail.never200": fmtChance,
  "temp.dz": two, "temp.ratio_t1": fmtTimes, "temp.ratio_t05": fmtTimes, "temp.ratio_t2": fmtTimes,
  "temp.pa_t05": fmtPct, "temp.pb_t05": fmtPct, "temp.pa_t2": fmtPct, "temp.pb_t2": fmtPct,
  "ent.H_t1": fmtNats, "ent.eff_t1": fmtEff, "ent.eff_t03": fmtEff, "ent.top1_t03": fmtPct, "ent.eff_t15": fmtEff,
  "ent.top1_t15": fmtPct, "topp.kstar95_cur": fmtCount, "minp.thr10_cur": fmtPct, "minp.kept10_cur": fmtCount,
  "order.surv_ours": fmtCount, "order.surv_last": fmtCount, "loop.naive_positions": fmtCount,
  "loop.cached_positions": fmtCount,
  "rng.tok1": tokCode, "rng.tok2": tokCode, "rng.tok3": tokCode, "rng.int1": fmtInterval, "rng.int2": fmtInterval,
  "rng.int3": fmtInterval, "rng.seed": String, "rng.index": fmtCount, "rng.u": fmtFixed(4), "rng.pick": tokCode,
  "topk.one_tok": tokCode, "topk.one_p": fmtPct, "topk.one_rest40": fmtPct, "topk.one_kstar95": fmtCount,
  "topk.many_top_tok": tokCode, "topk.many_top_p": fmtPct, "topk.many_n50": fmtCount, "topk.many_cut40": fmtPct,
  "topk.many_beyond": tokList, "topk.many_kstar95": fmtCount, "minp.many_thr": fmtPct, "minp.many_kept": fmtCount,
  "pen.the_r1": fmtPct, "pen.the_r2": fmtPct, "pen.the_rank_r2": fmtCount, "pen.stop_r1": fmtPct,
  "pen.stop_r2": fmtPct, "pen.name_r1": fmtPct, "pen.name_r2": fmtPct,
  "end.p_theend": fmtPct, "end.p_everafter": fmtPct, "end.p_mid": fmtPct, "english.eff_cyr": fmtEff,
  "four.s0": two, "four.s1": two, "four.s2": two, "four.s3": two,
  "loops.share_a": fmtShare, "loops.share_b": fmtShare, "end.n_tokens": fmtCount,
  "slide.slides": fmtCount, "slide.cache_len": fmtCount, "slide.eot_count": fmtCount,
};
// the model's parameter count, in millions with one decimal ("2.9 million")
KIND["model.params"] = (n) => {
  const m = Number((n / 1e6).toFixed(1));
  return t("fmt.million", { n: { num: m, text: fixed(m, 1) } });
};
KIND["model.heldout"] = (meta) => heldoutText(meta);
KIND["rng.seed"] = String; // a seed as typed, never grouped

// what a key says when its value is missing (a token the filters removed, T = 0 drawing nothing):
// text keys
const NONE = {
  "rng.tok1": "w1.live.filtered", "rng.tok2": "w1.live.filtered", "rng.tok3": "w1.live.filtered",
  "rng.int1": "w1.live.no_stretch", "rng.int2": "w1.live.no_stretch", "rng.int3": "w1.live.no_stretch",
  "rng.u": "w1.live.no_u",
};

const kept = {}; // key -> its last value

function show(node, key, v) {
  const f = KIND[key];
  let shown;
  if (v == null) shown = NONE[key] ? t(NONE[key]) : "–";
  else if (typeof v === "object" && typeof v.key === "string") shown = t(v.key, v.args || {}); // words, by key
  else if (typeof v === "string" && f !== tokCode) shown = v; // a text of the model's (a prompt), as it is
  else if (f) shown = f(v);
  else shown = typeof v === "number" ? plain(v) : String(v);
  if (shown instanceof Node) node.replaceChildren(shown);
  else node.textContent = shown;
}

// values: {key: value}, keys without the "ch1." prefix. A string is a token for the token keys,
// and elsewhere a text to show as it is (the Russian opening); words of ours come as {key, args}.
export function setLive(values) {
  Object.assign(kept, values);
  for (const node of document.querySelectorAll("#ch1 [data-live]")) {
    const key = node.dataset.live.replace(/^ch1\./, "");
    if (key in values) show(node, key, values[key]);
  }
}

onLang(() => {
  for (const node of document.querySelectorAll("#ch1 [data-live]")) {
    const key = node.dataset.live.replace(/^ch1\./, "");
    if (key in kept) show(node, key, kept[key]);
  }
});

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

function fillModel(info) {
  const m = info.models && info.models.main;
  if (!m) return;
  // embeddings, positions, per layer 4d² (attention) + 2·d·d_ff (the MLP) and two layer norms
  // (a weight and a bias each), then the final layer norm
  const d = m.d_model;
  const params = m.vocab * d + m.context * d + m.n_layers * (4 * d * d + 2 * d * m.d_ff + 4 * d) + 2 * d;
  setLive({ "model.vocab": m.vocab, "model.layers": m.n_layers, "model.context": m.context, "model.keep": m.keep,
    "model.window": m.penalty_window, "model.uniform_p": 1 / m.vocab,
    "model.params": params, "model.heldout": m.meta || {} });
}

// On every (re)start of the engine: the model's own figures, then the fixed openings' numbers.
export function startLive() {
  on("ready", (info) => {
    fillModel(info);
    call("ch1_prose_fixed").then(setLive, (e) => console.warn("[decodelab] chapter 1's fixed numbers:", e.message));
  });
}
