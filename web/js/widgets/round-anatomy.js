// One round, drawn: γ drafts, the first rejection where the reader puts it (or none), and the
// target's token at the end (the correction, or the bonus). The tally is the rule of a round:
// k + 1 tokens for γ draft passes and one target pass. Same colours and marks as the live pair.
import { el, sliderRow } from "../ui.js";
import { KINDS } from "./live-spec.js";

export function mountRoundAnatomy(root) {
  const gamma = sliderRow({ id: "ra-gamma", label: "γ (drafts)", min: 1, max: 8, step: 1, value: 4, onChange: () => sync() });
  const reject = el("select", { id: "ra-reject", "aria-label": "where the first rejection falls", style: { maxWidth: "100%" } });
  reject.onchange = () => draw();
  const cells = el("div", { class: "ls-rounds", id: "ra-cells" });
  const out = el("div", { class: "readout", id: "ra-out" });
  root.append(el("div", { class: "slider-grid" }, gamma.row), el("div", { class: "controls" }, el("label", {}, "first rejection ", reject)),
    cells, out);

  function sync() { // the rejection choices follow γ; keep the reader's choice where it still exists
    const g = Math.min(8, Math.max(1, Math.round(Number(gamma.num.value)) || 1)), was = reject.value;
    reject.replaceChildren(...Array.from({ length: g }, (_, i) => el("option", { value: String(i + 1), text: `at draft ${i + 1}` })),
      el("option", { value: "none", text: "none: all kept" }));
    reject.value = [...reject.options].some((o) => o.value === was) ? was : "none";
    draw();
  }
  function draw() {
    const g = reject.options.length - 1, at = reject.value === "none" ? null : Number(reject.value);
    const k = at == null ? g : at - 1; // drafts kept before the first rejection
    const kinds = Array.from({ length: g }, (_, i) => (i < k ? "accepted" : i === k ? "rejected" : "unchecked"));
    kinds.push(at == null ? "bonus" : "correction");
    cells.replaceChildren(...kinds.map((kind, i) => el("span", { class: `ls-tok ls-${kind}`, "data-kind": kind, title: KINDS[kind][1] },
      el("span", { class: "ls-mark", role: "img", "aria-label": KINDS[kind][1], text: KINDS[kind][0] }),
      i < g ? `draft ${i + 1}` : at == null ? "bonus" : "correction")));
    out.textContent = `${k + 1} token${k ? "s" : ""} gained (${k} kept + 1 from the target), ${g} draft passes paid, ` +
      `${g - k} of them wasted, 1 target pass.`;
    out.dataset.gained = k + 1;
  }
  sync();
  return {};
}
