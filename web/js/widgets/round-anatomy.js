// One round, drawn: γ drafts, the first rejection where the reader puts it (or none), and the
// target's token at the end (the correction, or the bonus). The tally is the rule of a round:
// k + 1 tokens for γ draft passes and one target pass. Same colours and marks as the live pair.
import { el, sliderRow, setText } from "../ui.js";
import { parseDecimal } from "../i18n.js";
import { KINDS } from "./live-spec.js";

export function mountRoundAnatomy(root) {
  const gamma = sliderRow({ id: "ra-gamma", label: "w3.ra.gamma", min: 1, max: 8, step: 1, value: 4, onChange: () => sync() });
  const reject = el("select", { id: "ra-reject", "t-aria-label": "w3.ra.reject_aria", style: { maxWidth: "100%" } });
  reject.onchange = () => draw();
  const cells = el("div", { class: "ls-rounds", id: "ra-cells" });
  const out = el("div", { class: "readout", id: "ra-out" });
  root.append(el("div", { class: "slider-grid" }, gamma.row),
    el("div", { class: "controls" }, el("label", {}, el("span", { t: "w3.ra.reject" }), " ", reject)), cells, out);

  function sync() { // the rejection choices follow γ; keep the reader's choice where it still exists
    const g = Math.min(8, Math.max(1, Math.round(parseDecimal(gamma.num.value)) || 1)), was = reject.value;
    reject.replaceChildren(...Array.from({ length: g }, (_, i) => el("option", { value: String(i + 1), t: "w3.ra.at", targs: { i: i + 1 } })),
      el("option", { value: "none", t: "w3.ra.none" }));
    reject.value = [...reject.options].some((o) => o.value === was) ? was : "none";
    draw();
  }
  function draw() {
    const g = reject.options.length - 1, at = reject.value === "none" ? null : Number(reject.value);
    const k = at == null ? g : at - 1; // drafts kept before the first rejection
    const kinds = Array.from({ length: g }, (_, i) => (i < k ? "accepted" : i === k ? "rejected" : "unchecked"));
    kinds.push(at == null ? "bonus" : "correction");
    cells.replaceChildren(...kinds.map((kind, i) => el("span", { class: `ls-tok ls-${kind}`, "data-kind": kind, "t-title": KINDS[kind][1] },
      el("span", { class: "ls-mark", role: "img", "t-aria-label": KINDS[kind][1], text: KINDS[kind][0] }),
      el("span", i < g ? { t: "w3.ra.draft", targs: { i: i + 1 } } : { t: at == null ? "w3.ra.bonus" : "w3.ra.correction" }))));
    // a keyed text: a language switch writes it again by itself
    setText(out, "w3.ra.out", { gained: k + 1, kept: k, drafts: g, wasted: g - k });
    out.dataset.gained = k + 1;
  }
  sync();
  return {};
}

