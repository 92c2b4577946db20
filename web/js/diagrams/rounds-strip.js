// The rounds of speculative decoding as a strip of chips (issue 43): each round a bracket of γ
// draft chips (✓ kept, ✗ refused, · never checked after a refusal) and the target's own token
// (→ its correction, + the bonus when every draft was kept), the tokens it gained under it.
// A checked chip is a button: pressing it (click, Enter, Space) flips that check, and the widget
// computes the rounds again from the new string (rounds.js). Drawing only: no engine here, so the
// build can draw the first frame too.
import { t, fixed } from "../i18n.js";
import { svg } from "./svg.js";

const CHIP = 26, GAP = 3, ROUND_GAP = 16, ROW_H = 74, TOP = 10;

// r: ch3_rounds's result; gamma; width: the room in px; onToggle(i): flip check i of the string
export function drawRounds(r, gamma, width, onToggle) {
  const roundW = (gamma + 1) * (CHIP + GAP) - GAP;
  const groups = r.rounds.map((x) => ({ x, n: x.flags.length }));
  if (r.incomplete_flags) groups.push({ x: null, n: r.incomplete_flags.length, flags: r.incomplete_flags });
  const perRow = Math.max(1, Math.floor((Math.max(width, roundW) + ROUND_GAP) / (roundW + ROUND_GAP)));
  const rows = Math.ceil(groups.length / perRow) || 1;
  const W = Math.min(groups.length, perRow) * (roundW + ROUND_GAP) - ROUND_GAP;
  const root = svg("svg", { viewBox: `0 0 ${Math.max(W, roundW)} ${rows * ROW_H}`, class: "diagram-svg rt-strip", role: "group",
    "aria-label": t("w3.rt.pic_aria", { rounds: r.n_rounds, tokens: r.tokens }), width: Math.max(W, roundW), height: rows * ROW_H });
  let flag = 0; // index of the round's first check in the whole string
  groups.forEach((g, gi) => {
    const ox = (gi % perRow) * (roundW + ROUND_GAP), oy = Math.floor(gi / perRow) * ROW_H + TOP;
    const round = g.x;
    const cells = [];
    const flags = round ? round.flags : g.flags;
    for (let i = 0; i < (round ? gamma : flags.length); i++) {
      const f = flags[i];
      const kind = f === "1" ? "kept" : f === "0" ? "refused" : "unchecked";
      cells.push({ kind: round ? kind : "pending", flag: f != null ? flag + i : null, mark: { kept: "✓", refused: "✗", unchecked: "·" }[kind] });
    }
    if (round) cells.push({ kind: round.bonus ? "bonus" : "correction", mark: round.bonus ? "+" : "→", flag: null });
    const group = svg("g", { class: "rt-round", transform: `translate(${ox},${oy})` });
    // the bracket over the round
    const bw = cells.length * (CHIP + GAP) - GAP;
    group.append(svg("path", { class: "rt-bracket", d: `M0.5,6 V0.5 H${bw - 0.5} V6` }));
    cells.forEach((c, i) => {
      const x = i * (CHIP + GAP), y = 10;
      const label = c.flag != null
        ? t(`w3.rt.chip.${c.kind}`, { i: i + 1, round: round ? round.round : "?" })
        : t(`w3.rt.chip.${c.kind}`, { round: round ? round.round : "?" });
      const chip = svg("g", { class: `rt-chip rt-${c.kind}`, "data-flag": c.flag ?? false, "aria-label": label },
        svg("title", { text: label }),
        svg("rect", { x, y, width: CHIP, height: CHIP, rx: 5 }),
        svg("text", { x: x + CHIP / 2, y: y + CHIP / 2 + 5, "text-anchor": "middle", text: c.mark }));
      if (c.flag != null && onToggle) {
        chip.setAttribute("role", "button");
        chip.setAttribute("tabindex", "0");
        chip.addEventListener("click", () => onToggle(c.flag));
        chip.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onToggle(c.flag); } });
      } else chip.setAttribute("role", "img");
      group.append(chip);
    });
    group.append(svg("text", { class: "dg-small", x: 0, y: 10 + CHIP + 18,
      text: round ? t("w3.rt.gained", { n: round.gained, round: round.round }) : t("w3.rt.not_verified") }));
    root.append(group);
    flag += g.n;
  });
  root.dataset.flags = r.rounds.map((x) => x.flags).join("") + (r.incomplete_flags || "");
  root.dataset.tokens = fixed(r.tokens, 0);
  return root;
}
