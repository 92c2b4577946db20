// One speculative round, step by step, from real rounds of our draft/target pair (fig_spec_round,
// sampling at T = 1): the draft's γ guesses one at a time with q(x), the target's one block pass
// giving p at all γ+1 positions at once, each check (u against min(1, p/q)), and the correction or
// bonus token. It opens on the whole first round (the build's first frame shows the same, so the
// figure is never a row of empty boxes); Step then starts that round from its beginning, and Play
// plays on from there only when the reader has not asked for less motion.
import { call } from "../engine.js";
import { el, showError, whenSeen, setStatus } from "../ui.js";
import { t, fixed } from "../i18n.js";
import { tokenLabel } from "../live/formats.js";
import { FIGURES } from "../live/examples.js";
import { reducedMotion, redrawOnLang } from "./svg.js";

const STEP_MS = 900;
const two = (x) => fixed(x, 2);

// the frames of a round: "draft i", "target", "check i", "token"
export function framesOf(r, gamma) {
  const f = [{ kind: "start" }];
  for (let i = 0; i < gamma; i++) f.push({ kind: "draft", i });
  f.push({ kind: "target" });
  r.checks.forEach((_, i) => f.push({ kind: "check", i }));
  f.push({ kind: "token" });
  return f;
}

export function mountSpecRound(root) {
  const body = root.querySelector(":scope > .diagram-body") || root.appendChild(el("div", { class: "diagram-body" }));
  const grid = el("div", { class: "sr-grid", id: "fig-spec-grid" });
  const note = el("p", { class: "diagram-note", id: "fig-spec-note", "aria-live": "polite" });
  // once a round is whole, what it produced and what it paid (k + 1 tokens for γ draft passes and
  // one target pass): the rule of a round, on a real one (it was a widget of its own, with a
  // rejection the reader placed, right under this figure: the design re-review's duplicate)
  const tally = el("p", { class: "diagram-note sr-tally", id: "fig-spec-tally" });
  const step = el("button", { id: "fig-spec-step", t: "fig.spec.step", disabled: true });
  const play = el("button", { class: "secondary", id: "fig-spec-play", t: "fig.spec.play", disabled: true });
  const nextRound = el("button", { class: "secondary", id: "fig-spec-next", t: "fig.spec.next_round", disabled: true });
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  body.replaceChildren(grid, note, tally, el("div", { class: "controls" }, step, play, nextRound), status);
  let data = null, ri = 0, fi = 0, timer = null;
  let whole = true; // showing the whole round as it opened, not a step of it

  const draw = redrawOnLang(() => {
    const r = data.rounds[ri], G = data.gamma, frames = framesOf(r, G), fr = frames[fi];
    const drafted = fr.kind === "draft" ? fr.i + 1 : fr.kind === "start" ? 0 : G;
    const targetOn = ["target", "check", "token"].includes(fr.kind);
    const checked = fr.kind === "check" ? fr.i + 1 : fr.kind === "token" ? r.checks.length : 0;
    const head = (key) => el("span", { class: "sr-head", text: t(key) });
    const cellsRow = [head("fig.spec.row_draft")], tRow = [head("fig.spec.row_target")], cRow = [head("fig.spec.row_check")];
    for (let i = 0; i <= G; i++) {
      const c = r.checks[i];
      const isBonusSlot = i === G;
      // draft row: the guesses so far
      cellsRow.push(i < drafted && !isBonusSlot
        ? el("span", { class: "sr-cell sr-draft" }, el("b", { text: tokenLabel(r.drafts[i]) }), el("small", { text: `q ${two(c ? c.q : NaN)}` }))
        : el("span", { class: "sr-cell sr-empty" }));
      // target row: one pass fills every position at once
      const pText = c ? `p ${two(c.p)}` : isBonusSlot || i >= r.checks.length ? t("fig.spec.dist") : "";
      tRow.push(targetOn ? el("span", { class: "sr-cell sr-target", text: pText }) : el("span", { class: "sr-cell sr-empty" }));
      // check row
      let cell = el("span", { class: "sr-cell sr-empty" });
      if (i < checked) {
        cell = el("span", { class: `sr-cell ${c.accept ? "sr-ok" : "sr-no"}` },
          el("b", { text: c.accept ? "✓" : "✗" }), el("small", { text: `u ${two(c.u)} ${c.accept ? "<" : "≥"} ${two(c.ratio)}` }));
      } else if (fr.kind === "token" && i < G && i >= r.checks.length) {
        cell = el("span", { class: "sr-cell sr-unchecked", text: t("fig.spec.unchecked") });
      }
      if (fr.kind === "token" && i === r.accepted) {
        cell = el("span", { class: `sr-cell sr-new sr-${r.kind}` }, el("b", { text: tokenLabel(r.token) }), el("small", { text: t(`fig.spec.${r.kind}`) }));
      }
      cRow.push(cell);
    }
    grid.replaceChildren(...[cellsRow, tRow, cRow].map((row) => el("div", { class: "sr-row" }, row)));
    grid.style.setProperty("--sr-cols", String(G + 1)); // CSSOM custom property: the grid's column count
    const c = fr.kind === "check" ? r.checks[fr.i] : null;
    note.textContent = fr.kind === "start" ? t("fig.spec.say_start", { prompt: data.prompt, round: ri + 1, G })
      : fr.kind === "draft" ? t("fig.spec.say_draft", { i: fr.i + 1, tok: tokenLabel(r.drafts[fr.i]), q: two(r.checks[fr.i] ? r.checks[fr.i].q : NaN) })
      : fr.kind === "target" ? t("fig.spec.say_target", { n: G + 1 })
      : fr.kind === "check" ? t(c.accept ? "fig.spec.say_accept" : "fig.spec.say_reject", { tok: tokenLabel(r.drafts[fr.i]), u: two(c.u), ratio: two(c.ratio), p: two(c.p), q: two(c.q) })
      : t(r.kind === "bonus" ? "fig.spec.say_bonus" : "fig.spec.say_correction", { k: r.accepted, tok: tokenLabel(r.token), G });
    if (fr.kind === "token") {
      const k = r.accepted;
      tally.textContent = t("fig.spec.tally", { gained: k + 1, kept: k, drafts: G, wasted: G - k });
      tally.dataset.gained = String(k + 1);
    } else {
      tally.textContent = "";
      delete tally.dataset.gained;
    }
    root.dataset.frame = `${ri}:${fi}:${fr.kind}`;
    step.disabled = !whole && fi >= frames.length - 1;
  });

  const stopPlay = () => { clearInterval(timer); timer = null; play.dataset.t = "fig.spec.play"; play.textContent = t("fig.spec.play"); };
  const advance = () => {
    const frames = framesOf(data.rounds[ri], data.gamma);
    if (whole) { whole = false; fi = 0; } // the round from its beginning
    else if (fi < frames.length - 1) fi += 1;
    else { ri = (ri + 1) % data.rounds.length; fi = 0; }
    draw(data);
  };
  step.addEventListener("click", () => { stopPlay(); advance(); });
  nextRound.addEventListener("click", () => { stopPlay(); whole = false; ri = (ri + 1) % data.rounds.length; fi = 0; draw(data); });
  play.addEventListener("click", () => {
    if (timer) { stopPlay(); return; }
    timer = setInterval(advance, STEP_MS);
    play.dataset.t = "fig.spec.pause"; play.textContent = t("fig.spec.pause");
  });
  whenSeen(root, async () => {
    setStatus(status, () => t("ui.waiting"));
    try {
      data = await call("fig_spec_round", FIGURES.spec);
      // the round opens on its last frame: the whole round at once
      fi = framesOf(data.rounds[0], data.gamma).length - 1;
      draw(data);
      setStatus(status, "");
      nextRound.disabled = false;
      play.disabled = reducedMotion();
    } catch (e) { showError(e, {}, status); }
  });
  return {};
}
