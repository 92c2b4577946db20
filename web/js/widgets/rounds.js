// Round-by-round table from an acceptance string (1 = draft kept, 0 = rejected).
import { call } from "../engine.js";
import { el, fmt, fieldError } from "../ui.js";

export function mountRounds(root) {
  const flags = el("input", { type: "text", id: "rt-flags", value: "111111001110101111", size: 36, "aria-label": "acceptance string" });
  const gamma = el("input", { type: "number", id: "rt-gamma", value: 4, min: 1, max: 32 });
  const cd = el("input", { type: "number", id: "rt-cd", value: 0.1, step: 0.05 });
  const cv = el("input", { type: "number", id: "rt-cv", value: 1.0, step: 0.1 });
  const table = el("div", { id: "rt-table" });
  const totals = el("div", { class: "readout", id: "rt-totals" });
  root.append(el("h3", { text: "Round by round" }),
    el("div", { class: "controls" }, el("label", {}, "flags ", flags), el("label", {}, "γ ", gamma),
      el("label", {}, "draft cost ", cd), el("label", {}, "verify cost ", cv)), table, totals);
  const fields = { flags, gamma, c_draft: cd, c_verify: cv };
  for (const i of [flags, gamma, cd, cv]) i.addEventListener("input", update);
  async function update() {
    for (const i of Object.values(fields)) fieldError(i, "");
    try {
      const r = await call("ch3_rounds", { flags: flags.value, gamma: Number(gamma.value), c_draft: Number(cd.value), c_verify: Number(cv.value) });
      const head = ["round", "flags", "proposed", "accepted", "rejected at", "gained", "tokens so far", "drafts", "target passes", "cost so far"];
      table.replaceChildren(el("table", { class: "data" }, el("tr", {}, head.map((h) => el("th", { text: h }))),
        r.rounds.map((x) => el("tr", { class: x.complete ? "" : "incomplete" }, [x.round, x.flags, x.proposed, x.accepted,
          x.rejected_at ?? (x.complete ? "— (bonus)" : "—"), x.complete ? x.gained : "not verified yet", x.cum_tokens ?? "", x.drafts ?? "",
          x.target_passes ?? "", x.cum_cost != null ? fmt(x.cum_cost, 2) : ""].map((v) => el("td", { text: String(v) }))))));
      totals.textContent = `${r.n_rounds} rounds, ${r.tokens} tokens, ${r.draft_passes} draft passes, cost ${fmt(r.cost, 2)}, ` +
        `speedup ${fmt(r.speedup, 2)}×, acceptance ${r.accepted} of ${r.flags_checked}` +
        (r.incomplete_flags ? `. The last flags “${r.incomplete_flags}” end inside a round that has not been verified, so they are left out.` : ".");
      totals.dataset.speedup = r.speedup.toFixed(2);
    } catch (e) {
      if (e.field && fields[e.field]) fieldError(fields[e.field], e.message); else totals.textContent = e.message;
    }
  }
  return { update };
}
