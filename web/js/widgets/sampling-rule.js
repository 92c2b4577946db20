// The speculative sampling rule on editable p and q (a picture whose q columns the reader drags:
// diagrams/sampling-bars.js; the numbers in a disclosure), and the 729-pair exactness gate.
import { call } from "../engine.js";
import { drawSamplingRule, bindQDrag, withQ } from "../diagrams/sampling-bars.js";
import { el, fmt, fmtTenPower, clearErrors, latest, serial, showError, whenSeen } from "../ui.js";
import { t, fixed, plain, onLang, parseDecimalList } from "../i18n.js";
import { SAMPLING_PAIR } from "../live/examples.js";

// the worked example's pair (the prose walks through it by name)
const DEFAULT_PAIR = SAMPLING_PAIR;

// 2.2e-16, the mantissa as the language writes it
const sci = (x) => (x === 0 ? fixed(0, 0) : fmtTenPower(x)); // 2,2 × 10⁻¹⁶ in every language

export function mountSamplingRule(root) {
  const p = el("input", { type: "text", id: "sr-p", value: DEFAULT_PAIR.p.join(", "), size: 28, maxlength: 1000, "t-aria-label": "w3.sr.p_aria" });
  const q = el("input", { type: "text", id: "sr-q", value: DEFAULT_PAIR.q.join(", "), size: 28, maxlength: 1000, "t-aria-label": "w3.sr.q_aria" });
  const table = el("div", { id: "sr-table", tabindex: 0, role: "region", "t-aria-label": "w3.sr.table_aria" });
  const notes = el("div", { class: "hint", id: "sr-notes" });
  const gateBtn = el("button", { id: "sr-gate", t: "w3.sr.gate" });
  const gateOut = el("div", { class: "readout", id: "sr-gate-out" });
  const label = (key, input) => el("label", {}, el("span", { t: key }), " ", input);
  const pic = el("div", { class: "sr-pic", id: "sr-pic" });
  const key = el("p", { class: "diagram-desc", t: "w3.sr.pic_desc" });
  root.append(el("div", { class: "controls" }, label("w3.sr.p", p), label("w3.sr.q", q)), key, pic, notes,
    el("details", { class: "numbers" }, el("summary", { t: "w3.sr.numbers" }), table), gateBtn, gateOut);
  // a dragged column sets its q; the box says the new q the way the reader would type it
  let refocus = null;
  const setQ = (i, v) => {
    if (!last) return;
    q.value = withQ(last.q, i, v).map((x) => plain(Math.round(x * 1000) / 1000, 3)).join("; ");
    refocus = i;
    update();
  };
  bindQDrag(pic, () => [pic.querySelector("svg"), last], setQ);
  // "0.5, x" sends null for x, and Python says which entry is not a number; ru and vi readers
  // write "0,5; 0,3" (i18n.parseDecimalList)
  const parse = parseDecimalList;
  const fields = { p, q };
  let last = null, lastGate = null; // the latest results, written again after a language switch
  function render(r) {
    // the example's names while the reader keeps its four tokens, numbers otherwise
    const names = r.p.map((_, i) => (r.p.length === DEFAULT_PAIR.labels.length ? DEFAULT_PAIR.labels[i] : `#${i + 1}`));
    const had = refocus ?? (pic.contains(document.activeElement) ? Number(document.activeElement.dataset.i) : null);
    pic.replaceChildren(drawSamplingRule(r, names, true, pic.clientWidth || root.clientWidth || 640));
    refocus = null;
    if (had != null) pic.querySelector(`.sr-col[data-i="${had}"]`)?.focus();
    const rows = [["token", names], ["p", r.p], ["q", r.q], ["min", r.min],
      ["keep", r.accept.map((a) => (a == null ? t("w3.sr.never_drafted") : a))], ["gap", r.residual_raw],
      ["residual", r.residual], ["output", r.output]];
    table.replaceChildren(el("table", { class: "data" }, rows.map(([h, vals]) => el("tr", {}, el("th", { t: `w3.sr.row.${h}` }),
      vals.map((v) => el("td", { text: typeof v === "number" ? fmt(v, 4) : String(v) }))))));
    notes.textContent = [t("w3.sr.notes", { alpha: fmt(r.alpha, 4), tv: fmt(r.one_minus_tv, 4), err: sci(r.max_error),
      reject: fmt(r.reject_mass, 4), residual: fmt(r.residual_mass, 4) }), ...r.notes.map((n) => t(n.key, n.args))].join(" ");
  }
  function renderGate(g) {
    gateOut.textContent = t("w3.sr.gate_out", { passed: g.passed, pairs: g.pairs }) +
      (g.failures.length ? " " + t("w3.sr.gate_failure", { what: JSON.stringify(g.failures[0]) }) : "");
  }
  onLang(() => { if (last) render(last); if (lastGate) renderGate(lastGate); });
  async function refresh() {
    clearErrors(fields);
    try {
      const r = await call("ch3_sampling", { p: parse(p.value), q: parse(q.value) });
      last = r;
      render(r);
    } catch (e) {
      if (!(e && e.field && fields[e.field])) last = null; // the readout now holds the message
      showError(e, fields, notes);
    }
  }
  const update = latest(refresh);
  p.addEventListener("input", () => update()); q.addEventListener("input", () => update());
  const once = serial([gateBtn], gateOut);
  const gate = () => once(async () => {
    const g = await call("ch3_gate");
    lastGate = g;
    renderGate(g);
    gateOut.dataset.passed = g.passed;
  });
  gateBtn.onclick = gate;
  whenSeen(root, gate); // the result is on the page when the reader gets here; the button reruns it
  return { update };
}
