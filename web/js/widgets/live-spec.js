// A real draft/target pair decoding speculatively in the page, against the target alone. One call
// is one run (target, speculative, speculative, target, so a drift in speed hits both sides);
// the widget repeats it, and ch3_live_summary takes medians and ranges and gives the verdict only
// when the range supports it. Rounds are shown token by token, and acceptance by position.
import { call, on } from "../engine.js";
import { el, numberBox, fmt, serial, readNumber, whenSeen, setStatus, setText, tokenLabel, segmented, statGrid, numbersDisclosure } from "../ui.js";
import { t, fixed, onLang } from "../i18n.js";
import * as store from "../store.js";
import { setLive } from "../live.js";
import { verdict } from "../live/words.js";

const PROMPT = "Once upon a time, there was a little girl named Lily.";
const RUNS = 5;
// each kind of token: its colour class, a mark (so colour is never the only cue) and its name's key
export const KINDS = {
  accepted: ["✓", "w3.ls.kind.accepted"], rejected: ["✗", "w3.ls.kind.rejected"], unchecked: ["·", "w3.ls.kind.unchecked"],
  correction: ["→", "w3.ls.kind.correction"], bonus: ["+", "w3.ls.kind.bonus"],
};
// the badge's tint for each verdict (its words: live/words.js VERDICTS)
const VERDICT_TINT = { pays: "good", "does not pay": "warn", "too close to call": "" };

function roundsView(rounds) {
  // the tokens are the model's own text, English in every language (translate=no)
  return el("div", { class: "ls-rounds", id: "ls-rounds", translate: "no" }, rounds.map((r, i) => el("span", { class: "ls-round",
    "t-title": "w3.ls.round_title", targs: { i: i + 1, k: r.accepted } }, r.tokens.map((tok) => el("span", {
    class: `ls-tok ls-${tok.kind}`, "data-kind": tok.kind, "t-title": KINDS[tok.kind][1] },
  el("span", { class: "ls-mark", role: "img", "t-aria-label": KINDS[tok.kind][1], text: KINDS[tok.kind][0] }), tokenLabel(tok.text))))));
}

function legend() {
  return el("div", { class: "ls-legend hint" }, Object.entries(KINDS).map(([k, [mark, key]]) =>
    el("span", { class: `ls-tok ls-${k}` }, el("span", { class: "ls-mark", text: mark }), el("span", { t: key }))));
}

// positions no round reached are left out; those reached rarely are shown with their count
function byPosition(r) {
  const seen = r.alpha_by_position.map((a, i) => [i + 1, a, r.checks_by_position[i]]).filter(([, a]) => a != null);
  if (!seen.length) return el("div", { class: "hint", t: "w3.ls.no_bypos" });
  return el("div", { tabindex: 0, role: "region", "t-aria-label": "w3.ls.bypos_aria", class: "table-scroll" },
    el("table", { class: "data", id: "ls-bypos" },
      el("tr", {}, el("th", { t: "w3.ls.bypos.position" }), seen.map(([i]) => el("td", { text: fixed(i, 0) }))),
      el("tr", {}, el("th", { t: "w3.ls.bypos.kept" }), seen.map(([, a]) => el("td", { text: fmt(a, 2) }))),
      el("tr", {}, el("th", { t: "w3.ls.bypos.checks" }), seen.map(([, , n]) => el("td", { text: fixed(n, 0) })))));
}

// The readout's lines for one summary s (medians and ranges), the last run r, at γ = g: [key, args]
function lines(s, r, g) {
  const sp = s.measured_speedup, range = (x, d) => (fmt(x.lo, d) === fmt(x.hi, d) ? fmt(x.lo, d) : `${fmt(x.lo, d)}–${fmt(x.hi, d)}`);
  const out = [];
  if (g === 0) {
    out.push(["w3.ls.g0", { cv: fmt(s.c_verify.median, 2) }]);
  } else {
    out.push(s.alpha.lo === s.alpha.hi ? ["w3.ls.alpha_same", { alpha: fmt(s.alpha.median, 3), rounds: r.n_rounds }]
      : ["w3.ls.alpha_range", { alpha: fmt(s.alpha.median, 3), range: range(s.alpha, 3), rounds: r.n_rounds }]);
    out.push(["w3.ls.costs", { cd: fmt(s.c_draft.median, 2), cd_range: range(s.c_draft, 2), positions: g + 1,
      cv: fmt(s.c_verify.median, 2), cv_range: range(s.c_verify, 2), micro_cd: fmt(r.micro.c_draft, 2), micro_cv: fmt(r.micro.c_verify, 2) }]);
    out.push(["w3.ls.tpr", { tpr: fmt(s.tokens_per_round.median, 2), n: 60, E: fmt(s.E, 2) }]);
    if (r.n_rounds < 10) out.push(["w3.ls.few_rounds", { rounds: r.n_rounds, n: 60, gamma: g }]);
    const rare = r.checks_by_position.findIndex((n) => n < 5);
    if (rare >= 0) out.push(["w3.ls.rare", { from: rare + 1, never: r.checks_by_position.filter((n) => n === 0).length }]);
  }
  const trimmed = s.runs >= 5 ? t("w3.ls.trimmed", { n: s.runs - 2, range: range({ lo: sp.trim_lo, hi: sp.trim_hi }, 2) }) : "";
  out.push(["w3.ls.speedup", { speedup: fmt(sp.median, 2), runs: s.runs, range: range(sp, 2), trimmed, pred: fmt(s.predicted_speedup.median, 2) }]);
  if (g > 0) out.push(["w3.ls.flat", { speedup: fmt(s.flat_speedup, 2) }]);
  if (r.same_as_target != null) out.push([r.same_as_target ? "w3.ls.same" : "w3.ls.differs", {}]);
  return out;
}
// what stays in sight beside the figures: the caveats and whether the text matched the target's
const SHOWN = new Set(["w3.ls.g0", "w3.ls.few_rounds", "w3.ls.rare", "w3.ls.same", "w3.ls.differs"]);

// The figures a reader compares at a glance: α, a draft pass's cost, the tokens a round, and the
// measured speedup with the range its verdict rests on, beside the cost model's prediction.
// γ = 0 has no draft: its one sentence says it all.
function stats(s, g) {
  if (g === 0) return null;
  const sp = s.measured_speedup;
  const range = fmt(sp.trim_lo, 2) === fmt(sp.trim_hi, 2) ? fmt(sp.trim_lo, 2) : `${fmt(sp.trim_lo, 2)}–${fmt(sp.trim_hi, 2)}`;
  return statGrid("ls-stats", [
    ["w3.ls.stat.alpha", fmt(s.alpha.median, 3)],
    ["w3.ls.stat.draft", fmt(s.c_draft.median, 2)],
    ["w3.ls.stat.tpr", fmt(s.tokens_per_round.median, 2)],
    ["w3.ls.stat.speedup", `${fmt(sp.median, 2)}×`, t("w3.ls.stat.range", { range })],
    ["w3.ls.stat.pred", `${fmt(s.predicted_speedup.median, 2)}×`]]);
}

export function mountLiveSpec(root, ctx = {}) {
  const gamma = numberBox({ integer: true, id: "ls-gamma", value: 3, min: 0, max: 32, "t-aria-label": "w3.gamma_aria" });
  const mode = segmented({ id: "ls-mode", label: "w3.ls.mode_aria", value: "greedy",
    options: [["greedy", "w3.ls.greedy"], ["sample", "w3.ls.sample"]] });
  const run = el("button", { id: "ls-run", t: "w3.ls.run" });
  const status = el("div", { class: "status", role: "status", id: "ls-status" });
  const out = el("div", { class: "readout", id: "ls-out" });
  const detail = el("div", { id: "ls-detail" });
  const handoff = el("button", { id: "ls-handoff", class: "secondary", t: "w3.ls.handoff", disabled: true });
  root.append(el("div", { class: "controls" }, el("label", {}, el("span", { t: "w3.ls.gamma" }), " ", gamma), mode, run), status, out, detail,
    el("div", { class: "controls" }, handoff));
  let last = null;
  // only this widget needs the draft model: if it did not load, this widget says so and the rest works
  on("optional", (m) => {
    if (m.what !== "draft") return;
    run.disabled = true;
    run.dataset.unavailable = "1";
    // the worker names the failure by its message key (err.KEY), as errors do
    setText(out, "w3.ls.unavailable", { why: m.key ? { key: `err.${m.key}`, args: m.args || {} } : m.message });
    out.dataset.unavailable = "1";
  });
  function render() {
    const { s, r, g } = last;
    const badge = verdict("speculation", "badge:ls-verdict", s.verdict);
    const all = lines(s, r, g), line = ([key, args]) => el("div", { text: t(key, args) });
    const grid = stats(s, g);
    out.replaceChildren(grid || "", ...all.filter(([key]) => !grid || SHOWN.has(key)).map(line),
      el("div", { class: VERDICT_TINT[s.verdict], id: "ls-verdict", text: t(badge.key) }),
      grid ? numbersDisclosure(out, "w3.ls.numbers", all.filter(([key]) => !SHOWN.has(key)).map(line)) : "");
    // the rounds and the table by position too: the table's numbers are written in the language
    detail.replaceChildren(el("h4", { t: "w3.ls.last_run" }), legend(), roundsView(r.rounds),
      el("h4", { t: "w3.ls.bypos_title" }), byPosition(r));
  }
  onLang(() => { if (last && !out.dataset.unavailable) render(); });
  const once = serial([run], status, { gamma, mode });
  const go = () => once(async () => {
    const g = readNumber(gamma, { label: "w3.ls.gamma", min: 0, max: 32, integer: true });
    if (g == null) return;
    const runs = [];
    let r;
    for (let i = 0; i < RUNS; i++) {
      setStatus(status, () => t("w3.ls.status_run", { i: i + 1, n: RUNS }));
      r = await call("ch3_live", { prompt: PROMPT, gamma: g, n: 60, mode: mode.value, seed: 5 });
      runs.push({ alpha: r.alpha, c_draft: r.costs.c_draft, c_verify: r.costs.c_verify, tokens_per_round: r.tokens_per_round,
        measured_speedup: r.measured_speedup, predicted_speedup: r.predicted_speedup });
    }
    const s = await call("ch3_live_summary", { runs, gamma: g });
    setStatus(status, "");
    last = { s, r, g };
    render();
    const sp = s.measured_speedup;
    out.dataset.verdict = s.verdict;
    out.dataset.lo = sp.trim_lo; // the range the verdict rests on
    out.dataset.hi = sp.trim_hi;
    out.dataset.alpha = r.alpha;
    out.dataset.gamma = g;
    handoff.disabled = !(g > 0 && ctx.costModel);
    setLive(proseKeys(s));
  });
  run.onclick = go;
  // the verify-cost chart's slope (steps per extra position), when it has measured one
  let vslope = null;
  store.subscribe("ch3.verify", (summary) => { vslope = Math.max(0, summary.slope); });
  handoff.onclick = () => {
    if (!last || !ctx.costModel) return;
    const { s } = last, g = s.gamma, cv = s.c_verify.median;
    // the round's measured cost at this γ, spread as a base plus the chart's growth per position
    const base = vslope == null ? null : cv - vslope * g;
    const sloped = base != null && base >= 0.05;
    const fix2 = { fixed: 2 };
    ctx.costModel.importMeasured({ alpha: s.alpha.median, gamma: g, c_draft: s.c_draft.median,
      c_verify: sloped ? base : cv, c_verify_slope: sloped ? vslope : 0,
      note: sloped ? { key: "w3.ls.note_sloped", args: { runs: s.runs, gamma: g, cv: { value: cv, ...fix2 },
        base: { value: base, ...fix2 }, slope: { value: vslope, ...fix2 } } }
        : { key: "w3.ls.note_flat", args: { runs: s.runs, gamma: g } } });
    document.getElementById("cost-model").scrollIntoView({ block: "start" });
  };
  whenSeen(root, go); // the pair runs at its defaults when the reader arrives
  return {};
}

// the prose's figures from the reader's runs of the pair: α, the costs, the speed-up and its verdict
function proseKeys(s) {
  const a = s.alpha, sp = s.measured_speedup;
  const spread = a.lo == null ? "none" : a.lo === a.hi ? "same" : "spread";
  return { "ch3.ls-runs": s.runs, "ch3.ls-gamma": s.gamma, "ch3.ls-gamma-plus-1": s.gamma + 1,
    "ch3.ls-alpha": verdict("acceptance", "ch3.ls-alpha", spread, {}, a.median),
    "ch3.ls-alpha-range": verdict("acceptance", "ch3.ls-alpha-range", spread, { lo: { value: a.lo, fixed: 2 }, hi: { value: a.hi, fixed: 2 } }),
    // a draft pass's cost does not depend on γ: at γ = 0 (no draft ran) the slot keeps the last
    // one measured, by the reader or, marked so, by the build
    ...(s.c_draft.median == null ? {} : { "ch3.ls-cd": s.c_draft.median }), "ch3.ls-cv": s.c_verify.median,
    "ch3.ls-tpr": s.tokens_per_round.median, "ch3.ls-E": s.E, "ch3.ls-speedup": sp.median,
    "ch3.ls-speedup-range": [sp.lo, sp.hi], "ch3.ls-speedup-mid": [sp.trim_lo, sp.trim_hi],
    "ch3.ls-pred": s.predicted_speedup.median, "ch3.ls-verdict": verdict("speculation", "ch3.ls-verdict", s.verdict), "ch3.ls-flat-speedup": s.flat_speedup };
}
