// Generated tokens as clickable spans, coloured by the probability they were drawn with; a click
// (or Enter) shows the distribution each token came from, in a popover that takes the focus and
// closes with Escape. The end token is shown as the end of a story, never as its raw text.
import { el, tokenLabel, fmtPct, fmtCount, END_TEXT } from "../ui.js";

export function probColor(p) {
  // high probability: pale; improbable: warm. Hue runs from 45 (p=1) to 0 (p near 0).
  const t = Math.max(0, Math.min(1, 1 + Math.log10(Math.max(p, 1e-4)) / 4));
  return `hsl(${(45 * t).toFixed(0)}, 85%, ${(93 - 28 * (1 - t)).toFixed(0)}%)`;
}

export const isEnd = (text) => text === END_TEXT;

// The mark where a story ends; what follows it (if anything) is a new story.
export function endMark(id) {
  return el("span", { class: "tok end", id, text: "end of story" });
}

export function tokenSpan(text, p, onclick, id, extraClass = "") {
  const s = isEnd(text) ? endMark(id) : el("span", { class: "tok " + extraClass, id, text: text.replace(/\n/g, "⏎\n") });
  if (p != null) {
    s.title = `drawn with probability ${fmtPct(p)} (after the filters)`;
    s.style.background = probColor(p);
  }
  if (onclick) {
    s.tabIndex = 0;
    s.setAttribute("role", "button");
    // the name begins with the visible text (what a voice-control user says to click it)
    const visible = s.textContent.replace(/\s+/g, " ").trim();
    s.setAttribute("aria-label", `${visible || tokenLabel(text)}: token drawn with probability ${fmtPct(p)}, show where it came from`);
    s.addEventListener("click", () => onclick(s));
    s.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onclick(s); } });
  }
  return s;
}

// d: {id, text, p (final probability), top: [[id, p before the filters, q after, text]], survivors}.
// The title and the list use the same two numbers, each named: p before the filters, and the
// share after them, so "100%" for a one-token nucleus sits beside its 99.8% of before.
export function showTokenPopover(container, d, opener) {
  let pop = container.querySelector(":scope > .token-pop");
  if (!pop) {
    pop = el("div", { class: "token-pop", role: "dialog", "aria-label": "where this token came from", tabindex: -1 });
    container.append(pop);
  }
  const close = () => { pop.remove(); if (opener) opener.focus(); };
  const mine = d.top.find((t) => t[0] === d.id);
  const before = mine ? `${fmtPct(mine[1])} before the filters` : `less than the ${d.top.length} shown before the filters`;
  const left = d.survivors ? ` (renormalised over the ${fmtCount(d.survivors)} token${d.survivors === 1 ? "" : "s"} they left)` : "";
  const max = Math.max(...d.top.map((t) => t[1]), 1e-12);
  pop.replaceChildren(
    el("div", { class: "pop-title" }, `Drawn: “${tokenLabel(d.text)}”, with ${before} and ${fmtPct(d.p)} after them${left}. ` +
      "Each row: before the filters → after; grey rows were cut."),
    ...d.top.map(([id, p, q, name]) => el("div", { class: "bar-row" + (q > 0 ? "" : " filtered") + (id === d.id ? " chosen" : "") },
      el("span", { class: "bar-label", text: tokenLabel(name) }),
      el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: { width: `${Math.max(0.5, (100 * p) / max)}%` } })),
      el("span", { class: "bar-value", text: fmtPct(p) + (q > 0 ? ` → ${fmtPct(q)}` : " → cut") }))),
    el("button", { class: "secondary", text: "close", onclick: close }),
  );
  pop.onkeydown = (e) => { if (e.key === "Escape") close(); };
  pop.focus();
}
