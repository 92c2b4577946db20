// The speculative sampling rule on editable p and q, and the 729-pair exactness gate.
import { call } from "../engine.js";
import { el, fmt, clearErrors, latest, serial, showError, whenSeen } from "../ui.js";
import { announce } from "../ch3-events.js";

// The worked example's pair (the prose walks through it by name): a draft a little too sure of
// the obvious word. α = Σ min(p, q) = 0.9; only "girl" is overrated, "cat" is matched exactly.
export const DEFAULT_PAIR = { labels: ["girl", "boy", "dog", "cat"], p: [0.5, 0.3, 0.15, 0.05], q: [0.6, 0.25, 0.1, 0.05] };

export function mountSamplingRule(root) {
  const p = el("input", { type: "text", id: "sr-p", value: DEFAULT_PAIR.p.join(", "), size: 28, maxlength: 1000, "aria-label": "target p" });
  const q = el("input", { type: "text", id: "sr-q", value: DEFAULT_PAIR.q.join(", "), size: 28, maxlength: 1000, "aria-label": "draft q" });
  const table = el("div", { id: "sr-table", tabindex: 0, role: "region", "aria-label": "the rule, token by token, scrollable" });
  const notes = el("div", { class: "hint", id: "sr-notes" });
  const gateBtn = el("button", { id: "sr-gate", text: "Run the exactness gate again" });
  const gateOut = el("div", { class: "readout", id: "sr-gate-out" });
  root.append(el("div", { class: "controls" }, el("label", {}, "target p ", p), el("label", {}, "draft q ", q)), table, notes, gateBtn, gateOut);
  // "0.5, x" sends null for x, and Python says which entry is not a number
  const parse = (s) => s.split(/[,\s]+/).filter(Boolean).map((v) => (Number.isFinite(Number(v)) ? Number(v) : null));
  const fields = { p, q };
  async function refresh() {
    clearErrors(fields);
    try {
      const r = await call("ch3_sampling", { p: parse(p.value), q: parse(q.value) });
      // the example's names while the reader keeps its four tokens, numbers otherwise
      const names = r.p.map((_, i) => (r.p.length === DEFAULT_PAIR.labels.length ? DEFAULT_PAIR.labels[i] : `#${i + 1}`));
      const rows = [["token", names], ["p (target)", r.p], ["q (draft)", r.q], ["min(p, q)", r.min],
        ["keep if drafted", r.accept.map((a) => (a == null ? "never drafted" : a))], ["max(0, p − q)", r.residual_raw],
        ["residual, normalised", r.residual], ["output distribution", r.output]];
      table.replaceChildren(el("table", { class: "data" }, rows.map(([h, vals]) => el("tr", {}, el("th", { text: h }),
        vals.map((v) => el("td", { text: typeof v === "number" ? fmt(v, 4) : String(v) }))))));
      notes.textContent = `α = Σ min(p, q) = ${fmt(r.alpha, 4)} = 1 − TV(p, q) = ${fmt(r.one_minus_tv, 4)}; ` +
        `largest |output − p| = ${r.max_error.toExponential(1)}. Chance of a rejection Σ q·(1 − keep) = ${fmt(r.reject_mass, 4)}; ` +
        `weight of the residual Σ max(0, p − q) = ${fmt(r.residual_mass, 4)}: always equal. ` + r.notes.join(". ");
    } catch (e) {
      showError(e, fields, notes);
    }
  }
  const update = latest(refresh);
  p.addEventListener("input", () => update()); q.addEventListener("input", () => update());
  const once = serial([gateBtn], gateOut);
  const gate = () => once(async () => {
    const g = await call("ch3_gate");
    gateOut.textContent = `${g.passed} of ${g.pairs} (p, q) pairs give exactly p, in exact fractions.` +
      (g.failures.length ? ` First failure: ${JSON.stringify(g.failures[0])}` : "");
    gateOut.dataset.passed = g.passed;
    announce({ kind: "gate", pairs: g.pairs, passed: g.passed });
  });
  gateBtn.onclick = gate;
  whenSeen(root, gate); // the result is on the page when the reader gets here; the button reruns it
  return { update };
}
