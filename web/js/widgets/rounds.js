// Round-by-round table from an acceptance string (1 = draft kept, 0 = rejected).
import { call } from "../engine.js";
import { el, fmt, clearErrors, latest, readNumber, showError } from "../ui.js";
import { announce } from "../ch3-events.js";

export function mountRounds(root) {
  const flags = el("input", { type: "text", id: "rt-flags", value: "111111001110101111", size: 36, maxlength: 2000,
    "aria-label": "acceptance string" });
  const gamma = el("input", { type: "number", id: "rt-gamma", value: 4, min: 1, max: 32, "aria-label": "γ, draft tokens per round" });
  const cd = el("input", { type: "number", id: "rt-cd", value: 0.1, step: 0.05, min: 0, max: 1000, "aria-label": "draft cost" });
  const cv = el("input", { type: "number", id: "rt-cv", value: 1.0, step: 0.1, min: 0, max: 1000, "aria-label": "verify cost" });
  const table = el("div", { id: "rt-table", tabindex: 0, role: "region", "aria-label": "rounds, scrollable" });
  const totals = el("div", { class: "readout", id: "rt-totals" });
  // the same ones and zeros, the zeros bunched at the end: same rate, another order (the prose's comparison)
  const bunch = el("button", { class: "secondary", id: "rt-bunch", text: "Move the zeros to the end" });
  bunch.onclick = () => {
    const f = flags.value.replace(/\s+/g, "");
    flags.value = f.replace(/0/g, "") + f.replace(/1/g, "");
    update();
  };
  root.append(el("div", { class: "controls" }, el("label", {}, "flags ", flags), el("label", {}, "γ ", gamma),
      el("label", {}, "draft cost ", cd), el("label", {}, "verify cost ", cv), bunch), table, totals);
  const fields = { flags, gamma, c_draft: cd, c_verify: cv };
  const update = latest(refresh); // typing fast: only the newest string is computed next
  for (const i of [flags, gamma, cd, cv]) i.addEventListener("input", () => update());
  async function refresh() {
    clearErrors(fields);
    const g = readNumber(gamma, { label: "γ", min: 1, max: 32, integer: true });
    const c1 = readNumber(cd, { label: "draft cost", min: 0, max: 1000 });
    const c2 = readNumber(cv, { label: "verify cost", min: 0, max: 1000, allowZero: false });
    if (g == null || c1 == null || c2 == null) return;
    try {
      const r = await call("ch3_rounds", { flags: flags.value, gamma: g, c_draft: c1, c_verify: c2 });
      const head = ["round", "flags", "proposed", "accepted", "rejected at", "gained", "tokens so far", "drafts", "target passes", "cost so far"];
      table.replaceChildren(el("table", { class: "data" }, el("tr", {}, head.map((h) => el("th", { text: h }))),
        r.rounds.map((x) => el("tr", { class: x.complete ? "" : "incomplete" }, [x.round, x.flags, x.proposed, x.accepted,
          x.rejected_at ?? (x.complete ? "— (bonus)" : "—"), x.complete ? x.gained : "not verified yet", x.cum_tokens ?? "", x.drafts ?? "",
          x.target_passes ?? "", x.cum_cost != null ? fmt(x.cum_cost, 2) : ""].map((v) => el("td", { text: String(v) }))))));
      totals.textContent = `${r.n_rounds} rounds, ${r.tokens} tokens, ${r.draft_passes} draft passes, cost ${fmt(r.cost, 2)}, ` +
        `speedup ${fmt(r.speedup, 2)}×, acceptance ${r.accepted} of ${r.flags_checked}` +
        (r.flags_checked ? ` (${(100 * r.acceptance).toFixed(0)}%)` : "") +
        (r.incomplete_flags ? `. The last flags “${r.incomplete_flags}” end inside a round that has not been verified, so they are left out.` : ".");
      totals.dataset.speedup = r.speedup.toFixed(2);
      totals.dataset.acceptance = r.acceptance.toFixed(4);
      announce({ kind: "rounds", r, flags: flags.value, gamma: g, c_draft: c1, c_verify: c2 });
    } catch (e) {
      showError(e, fields, totals);
    }
  }
  return { update };
}
