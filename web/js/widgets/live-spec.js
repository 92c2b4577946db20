// A real draft/target pair decoding speculatively in the page, against the target alone. One call
// is one run (target, speculative, speculative, target, so a drift in speed hits both sides);
// the widget repeats it, and ch3_live_summary takes medians and ranges and gives the verdict only
// when the range supports it. Rounds are shown token by token, and acceptance by position.
import { call, on } from "../engine.js";
import { el, fmt, serial, readNumber, whenSeen, setStatus, tokenLabel } from "../ui.js";
import { announce, EVENT } from "../ch3-events.js";

const PROMPT = "Once upon a time, there was a little girl named Lily.";
const RUNS = 5;
// each kind of token: its colour class and a mark, so colour is never the only cue
export const KINDS = {
  accepted: ["✓", "kept draft"], rejected: ["✗", "rejected draft"], unchecked: ["·", "draft after a rejection, never checked"],
  correction: ["→", "target's correction"], bonus: ["+", "bonus token (all drafts kept)"],
};
const VERDICT = { pays: ["good", "Speculation pays here"], "does not pay": ["warn", "Speculation does not pay here"],
  "too close to call": ["", "Too close to call on this machine: the runs straddle 1×"] };

function roundsView(rounds) {
  return el("div", { class: "ls-rounds", id: "ls-rounds" }, rounds.map((r, i) => el("span", { class: "ls-round",
    title: `round ${i + 1}: ${r.accepted} kept` }, r.tokens.map((t) => el("span", {
    class: `ls-tok ls-${t.kind}`, "data-kind": t.kind, title: KINDS[t.kind][1] },
  el("span", { class: "ls-mark", role: "img", "aria-label": KINDS[t.kind][1], text: KINDS[t.kind][0] }), tokenLabel(t.text))))));
}

function legend() {
  return el("div", { class: "ls-legend hint" }, Object.entries(KINDS).map(([k, [mark, words]]) =>
    el("span", { class: `ls-tok ls-${k}` }, el("span", { class: "ls-mark", text: mark }), words)));
}

// positions no round reached are left out; those reached rarely are shown with their count
function byPosition(r) {
  const seen = r.alpha_by_position.map((a, i) => [i + 1, a, r.checks_by_position[i]]).filter(([, a]) => a != null);
  if (!seen.length) return el("div", { class: "hint", text: "No draft was checked (γ = 0), so there is no acceptance by position." });
  return el("div", { tabindex: 0, role: "region", "aria-label": "acceptance by position, scrollable", class: "table-scroll" },
    el("table", { class: "data", id: "ls-bypos" },
      el("tr", {}, el("th", { text: "position in the round" }), seen.map(([i]) => el("td", { text: String(i) }))),
      el("tr", {}, el("th", { text: "share of checks kept" }), seen.map(([, a]) => el("td", { text: fmt(a, 2) }))),
      el("tr", {}, el("th", { text: "checks" }), seen.map(([, , n]) => el("td", { text: String(n) })))));
}

export function mountLiveSpec(root, ctx = {}) {
  const gamma = el("input", { type: "number", id: "ls-gamma", value: 3, min: 0, max: 32, "aria-label": "γ, draft tokens per round" });
  const mode = el("select", { id: "ls-mode", "aria-label": "greedy or sampled" }, el("option", { value: "greedy", text: "greedy" }), el("option", { value: "sample", text: "sample (T = 1)" }));
  const run = el("button", { id: "ls-run", text: "Run" });
  const status = el("div", { class: "status", role: "status", id: "ls-status" });
  const out = el("div", { class: "readout", id: "ls-out" });
  const detail = el("div", { id: "ls-detail" });
  const handoff = el("button", { id: "ls-handoff", class: "secondary", text: "Use these numbers in the cost model", disabled: true });
  root.append(el("div", { class: "controls" }, el("label", {}, "γ ", gamma), mode, run), status, out, detail,
    el("div", { class: "controls" }, handoff));
  let last = null;
  // only this widget needs the draft model: if it did not load, this widget says so and the rest works
  on("optional", (m) => { if (m.what === "draft") { run.disabled = true; run.dataset.unavailable = "1"; out.textContent = `The live pair is unavailable: ${m.message}`; out.dataset.unavailable = "1"; } });
  const once = serial([run], status, { gamma, mode });
  const go = () => once(async () => {
    const g = readNumber(gamma, { label: "γ", min: 0, max: 32, integer: true });
    if (g == null) return;
    const runs = [];
    let r;
    for (let i = 0; i < RUNS; i++) {
      setStatus(status, `Run ${i + 1} of ${RUNS}…`);
      r = await call("ch3_live", { prompt: PROMPT, gamma: g, n: 60, mode: mode.value, seed: 5 });
      runs.push({ alpha: r.alpha, c_draft: r.costs.c_draft, c_verify: r.costs.c_verify, tokens_per_round: r.tokens_per_round,
        measured_speedup: r.measured_speedup, predicted_speedup: r.predicted_speedup });
    }
    const s = await call("ch3_live_summary", { runs, gamma: g });
    setStatus(status, "");
    last = { s, r };
    const [cls, words] = VERDICT[s.verdict];
    const sp = s.measured_speedup, range = (x, d) => (fmt(x.lo, d) === fmt(x.hi, d) ? fmt(x.lo, d) : `${fmt(x.lo, d)}–${fmt(x.hi, d)}`);
    const lines = [];
    if (g === 0) {
      lines.push("γ = 0 is plain decoding dressed as rounds: no drafts, one position checked per round, one token per round. " +
        `Each round cost ${fmt(s.c_verify.median, 2)} target steps (one pass plus a round's bookkeeping).`);
    } else {
      lines.push(`Acceptance α = ${fmt(s.alpha.median, 3)} ` + (s.alpha.lo === s.alpha.hi
        ? `in every run (greedy decoding repeats exactly; only the timings vary), over ${r.n_rounds} rounds per run.`
        : `(range ${range(s.alpha, 3)}) over about ${r.n_rounds} rounds per run.`));
      lines.push(`A draft pass cost ${fmt(s.c_draft.median, 2)} of a target step (range ${range(s.c_draft, 2)}); the rest of ` +
        `a round, checking ${g + 1} positions with the rule and the rewinds, ${fmt(s.c_verify.median, 2)} (range ${range(s.c_verify, 2)}). ` +
        `Timed alone, in batches: a draft pass ${fmt(r.micro.c_draft, 2)} target steps, one check of ${g + 1} positions ${fmt(r.micro.c_verify, 2)}.`);
      lines.push(`Tokens per round: ${fmt(s.tokens_per_round.median, 2)} (every round's full yield, accepted + 1, ` +
        `including the last round's tokens past the 60 asked for), against ${fmt(s.E, 2)} from E(α, γ).`);
      if (r.n_rounds < 10) lines.push(`Only ${r.n_rounds} rounds fit in 60 tokens at γ = ${g}: α and tokens per round rest on a handful of rounds.`);
      const rare = r.checks_by_position.findIndex((n) => n < 5);
      if (rare >= 0) lines.push(`Most rounds end early: positions from ${rare + 1} on were checked fewer than 5 times ` +
        `(${r.checks_by_position.filter((n) => n === 0).length} never), so their acceptance rests on a handful of checks, or none.`);
    }
    const trimmed = s.runs >= 5 ? `, middle ${s.runs - 2} runs ${range({ lo: sp.trim_lo, hi: sp.trim_hi }, 2)}` : "";
    lines.push(`Speedup over the target alone: ${fmt(sp.median, 2)}× (median of ${s.runs} runs, range ${range(sp, 2)}${trimmed}); ` +
      `the cost model with the measured costs: ${fmt(s.predicted_speedup.median, 2)}×.`);
    if (g > 0) lines.push(`With verification at a flat 1 pass and the same α and draft cost: ${fmt(s.flat_speedup, 2)}×.`);
    if (r.same_as_target != null) lines.push(r.same_as_target ? "Output: token for token the target's own greedy text." : "Output differs from the target's (a bug).");
    out.replaceChildren(...lines.map((t) => el("div", { text: t })), el("div", { class: cls, id: "ls-verdict", text: words + "." }));
    out.dataset.verdict = s.verdict;
    out.dataset.lo = sp.trim_lo; // the range the verdict rests on
    out.dataset.hi = sp.trim_hi;
    out.dataset.alpha = r.alpha;
    out.dataset.gamma = g;
    detail.replaceChildren(el("h4", { text: "The last run, round by round" }), legend(), roundsView(r.rounds),
      el("h4", { text: "Acceptance by position in the round" }), byPosition(r));
    handoff.disabled = !(g > 0 && ctx.costModel);
    announce({ kind: "live", summary: s });
  });
  run.onclick = go;
  // the verify-cost chart's slope (steps per extra position), when it has measured one
  let vslope = null;
  document.addEventListener(EVENT, (e) => { if (e.detail.kind === "verify") vslope = Math.max(0, e.detail.summary.slope); });
  handoff.onclick = () => {
    if (!last || !ctx.costModel) return;
    const { s } = last, g = s.gamma, cv = s.c_verify.median;
    // the round's measured cost at this γ, spread as a base plus the chart's growth per position
    const base = vslope == null ? null : cv - vslope * g;
    const sloped = base != null && base >= 0.05;
    ctx.costModel.importMeasured({ alpha: s.alpha.median, gamma: g, c_draft: s.c_draft.median,
      c_verify: sloped ? base : cv, c_verify_slope: sloped ? vslope : 0,
      note: `Measured on this machine by the live pair below (medians of ${s.runs} runs at γ = ${g}). ` + (sloped
        ? `The verify cost is the round's measured ${cv.toFixed(2)} at γ = ${g}, spread as ${base.toFixed(2)} plus ` +
          `${vslope.toFixed(2)} per drafted position (the verify-cost chart's slope), so the sweep follows γ.`
        : "The verify cost holds for this γ only: on this machine it grows with γ.") });
    document.getElementById("cost-model").scrollIntoView({ block: "start" });
  };
  whenSeen(root, go); // the pair runs at its defaults when the reader arrives
  return {};
}
