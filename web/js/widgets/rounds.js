// The rounds from an acceptance string (1 = draft kept, 0 = rejected): a strip of chips the reader
// presses to flip a check (diagrams/rounds-strip.js), the numbers round by round in a disclosure.
import { call } from "../engine.js";
import { drawRounds } from "../diagrams/rounds-strip.js";
import { el, numberBox, fmt, clearErrors, latest, readNumber, showError } from "../ui.js";
import { t, fixed, onLang } from "../i18n.js";
import { ROUNDS } from "../live/examples.js";

const HEAD = ["round", "flags", "proposed", "accepted", "rejected_at", "gained", "tokens", "drafts", "passes", "cost"];

export function mountRounds(root) {
  const flags = el("input", { type: "text", id: "rt-flags", value: ROUNDS.flags, size: 36, maxlength: 2000,
    "t-aria-label": "w3.rt.flags_aria" });
  const gamma = numberBox({ integer: true, id: "rt-gamma", value: ROUNDS.gamma, min: 1, max: 32, "t-aria-label": "w3.gamma_aria" });
  const cd = numberBox({ id: "rt-cd", value: ROUNDS.c_draft, step: 0.05, min: 0, max: 1000, "t-aria-label": "w3.rt.c_draft" });
  const cv = numberBox({ id: "rt-cv", value: ROUNDS.c_verify, step: 0.1, min: 0, max: 1000, "t-aria-label": "w3.rt.c_verify" });
  const table = el("div", { id: "rt-table", tabindex: 0, role: "region", "t-aria-label": "w3.rt.table_aria" });
  const pic = el("div", { class: "rt-pic", id: "rt-pic" });
  const numbers = el("details", { class: "numbers" }, el("summary", { t: "w3.rt.numbers" }), table);
  const totals = el("div", { class: "readout", id: "rt-totals" });
  // the same ones and zeros, the zeros bunched at the end: same rate, another order (the prose's comparison)
  const bunch = el("button", { class: "secondary", id: "rt-bunch", t: "w3.rt.bunch" });
  bunch.onclick = () => {
    const f = flags.value.replace(/\s+/g, "");
    flags.value = f.replace(/0/g, "") + f.replace(/1/g, "");
    update();
  };
  const label = (key, input) => el("label", {}, el("span", { t: key }), " ", input);
  root.append(el("div", { class: "controls" }, label("w3.rt.flags", flags), label("w3.rt.gamma", gamma),
    label("w3.rt.c_draft", cd), label("w3.rt.c_verify", cv), bunch),
    el("p", { class: "diagram-desc", t: "w3.rt.pic_desc" }), pic, totals, numbers);
  // a pressed chip flips its check; the keyboard stays on the same check after the redraw
  let refocus = null;
  const toggle = (i) => {
    const f = flags.value.replace(/\s+/g, "");
    flags.value = f.slice(0, i) + (f[i] === "1" ? "0" : "1") + f.slice(i + 1);
    refocus = i;
    update();
  };
  function drawPicture(r) {
    const g = r.rounds.length ? r.rounds[0].proposed : ROUNDS.gamma;
    pic.replaceChildren(drawRounds(r, g, pic.clientWidth || 600, toggle));
    if (refocus != null) {
      const chip = pic.querySelector(`[data-flag="${refocus}"]`);
      if (chip) chip.focus();
      refocus = null;
    }
  }
  if (window.ResizeObserver) {
    let w = 0;
    new ResizeObserver(() => { if (last && Math.abs(pic.clientWidth - w) > 20) { w = pic.clientWidth; drawPicture(last); } }).observe(pic);
  }
  const fields = { flags, gamma, c_draft: cd, c_verify: cv };
  const update = latest(refresh); // typing fast: only the newest string is computed next
  for (const i of [flags, gamma, cd, cv]) i.addEventListener("input", () => update());
  let last = null; // the latest result, drawn again after a language switch
  function render(r) {
    drawPicture(r);
    const dash = (x) => (x.complete ? t("w3.rt.bonus") : "—");
    table.replaceChildren(el("table", { class: "data" }, el("tr", {}, HEAD.map((h) => el("th", { t: `w3.rt.head.${h}` }))),
      r.rounds.map((x) => el("tr", { class: x.complete ? "" : "incomplete" }, [x.round, x.flags, x.proposed, x.accepted,
        x.rejected_at ?? dash(x), x.complete ? x.gained : t("w3.rt.not_verified"), x.cum_tokens ?? "", x.drafts ?? "",
        x.target_passes ?? "", x.cum_cost != null ? fmt(x.cum_cost, 2) : ""].map((v) => el("td", { text: typeof v === "number" ? fixed(v, 0) : String(v) }))))));
    totals.textContent = t("w3.rt.totals", { rounds: r.n_rounds, tokens: r.tokens, drafts: r.draft_passes, cost: fmt(r.cost, 2),
      speedup: fmt(r.speedup, 2), accepted: r.accepted, checked: r.flags_checked }) +
      (r.flags_checked ? " " + t("w3.rt.share", { pct: t("fmt.pct", { x: fixed(100 * r.acceptance, 0) }) }) : "") +
      (r.incomplete_flags ? t("w3.rt.incomplete", { flags: r.incomplete_flags }) : t("w3.rt.end"));
  }
  onLang(() => { if (last) render(last); });
  async function refresh() {
    clearErrors(fields);
    const g = readNumber(gamma, { label: "w3.rt.gamma", min: 1, max: 32, integer: true });
    const c1 = readNumber(cd, { label: "w3.rt.c_draft", min: 0, max: 1000 });
    const c2 = readNumber(cv, { label: "w3.rt.c_verify", min: 0, max: 1000, allowZero: false });
    if (g == null || c1 == null || c2 == null) return;
    try {
      const r = await call("ch3_rounds", { flags: flags.value, gamma: g, c_draft: c1, c_verify: c2 });
      last = r;
      render(r);
      totals.dataset.speedup = r.speedup.toFixed(2);
      totals.dataset.acceptance = r.acceptance.toFixed(4);
    } catch (e) {
      if (!(e && e.field && fields[e.field])) last = null; // the readout now holds the message
      showError(e, fields, totals);
    }
  }
  return { update };
}
