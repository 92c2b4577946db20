// The speculative sampling rule on editable p and q, and the 729-pair exactness gate.
import { call } from "../engine.js";
import { el, fmt, clearErrors, latest, serial, showError } from "../ui.js";

export function mountSamplingRule(root) {
  const p = el("input", { type: "text", id: "sr-p", value: "0.5, 0.3, 0.15, 0.05", size: 28, maxlength: 1000, "aria-label": "target p" });
  const q = el("input", { type: "text", id: "sr-q", value: "0.2, 0.2, 0.5, 0.1", size: 28, maxlength: 1000, "aria-label": "draft q" });
  const table = el("div", { id: "sr-table", tabindex: 0, role: "region", "aria-label": "the rule, token by token, scrollable" });
  const notes = el("div", { class: "hint", id: "sr-notes" });
  const gateBtn = el("button", { id: "sr-gate", text: "Run the exactness gate (729 pairs)" });
  const gateOut = el("div", { class: "readout", id: "sr-gate-out" });
  root.append(el("h3", { text: "The speculative sampling rule" }),
    el("div", { class: "controls" }, el("label", {}, "target p ", p), el("label", {}, "draft q ", q)), table, notes, gateBtn, gateOut);
  // "0.5, x" sends null for x, and Python says which entry is not a number
  const parse = (s) => s.split(/[,\s]+/).filter(Boolean).map((v) => (Number.isFinite(Number(v)) ? Number(v) : null));
  const fields = { p, q };
  async function refresh() {
    clearErrors(fields);
    try {
      const r = await call("ch3_sampling", { p: parse(p.value), q: parse(q.value) });
      const rows = [["token", r.p.map((_, i) => `#${i + 1}`)], ["p (target)", r.p], ["q (draft)", r.q], ["min(p, q)", r.min],
        ["keep if drafted", r.accept.map((a) => (a == null ? "never drafted" : a))], ["max(0, p − q)", r.residual_raw],
        ["residual, normalised", r.residual], ["output distribution", r.output]];
      table.replaceChildren(el("table", { class: "data" }, rows.map(([h, vals]) => el("tr", {}, el("th", { text: h }),
        vals.map((v) => el("td", { text: typeof v === "number" ? fmt(v, 4) : String(v) }))))));
      notes.textContent = `α = Σ min(p, q) = ${fmt(r.alpha, 4)} = 1 − TV(p, q) = ${fmt(r.one_minus_tv, 4)}; ` +
        `largest |output − p| = ${r.max_error.toExponential(1)}. ` + r.notes.join(". ");
    } catch (e) {
      showError(e, fields, notes);
    }
  }
  const update = latest(refresh);
  p.addEventListener("input", () => update()); q.addEventListener("input", () => update());
  const once = serial([gateBtn], gateOut);
  gateBtn.onclick = () => once(async () => {
    const g = await call("ch3_gate");
    gateOut.textContent = `${g.passed} of ${g.pairs} (p, q) pairs give exactly p, in exact fractions.` +
      (g.failures.length ? ` First failure: ${JSON.stringify(g.failures[0])}` : "");
    gateOut.dataset.passed = g.passed;
  });
  return { update };
}
