// Generated tokens as clickable spans, coloured by the probability they were drawn with; a click
// (or Enter) shows the distribution each token came from, in a popover that takes the focus and
// closes with Escape. The end token is shown as the end of a story, never as its raw text.
// A language switch relabels every token span on the page (title, aria-label) and the open
// popover, from what they keep (data-p, the popover's token); the token texts stay as they are.
import { el, tokenLabel, fmtPct, fmtCount, END_TEXT } from "../ui.js";
import { onLang, t } from "../i18n.js";
import { storyBand } from "../live/formats.js";

// a token's probability band: the one ramp of the page (style.css --p0..--p4, formats.js
// STORY_BANDS), the same in the opening story, the panel, the playground and the popovers
export const probClass = (p) => `tok-p${storyBand(p)}`;

export const isEnd = (text) => text === END_TEXT;

// The mark where a story ends; what follows it (if anything) is a new story.
export function endMark(id) {
  return el("span", { class: "tok end", id, t: "w1.tok.end" });
}

// a token span's title and (when it opens its popover) its name, from its data-p
function label(s) {
  const p = Number(s.dataset.p);
  s.title = t("w1.tok.title", { p: fmtPct(p) });
  if (s.dataset.opens) {
    // the name begins with the visible text (what a voice-control user says to click it)
    const visible = s.textContent.replace(/\s+/g, " ").trim() || s.dataset.shown;
    s.setAttribute("aria-label", t("w1.tok.aria", { tok: visible, p: fmtPct(p) }));
  }
}

export function tokenSpan(text, p, onclick, id, extraClass = "") {
  const s = isEnd(text) ? endMark(id) : el("span", { class: "tok " + extraClass, id, text: text.replace(/\n/g, "⏎\n") });
  if (p != null) {
    s.dataset.p = String(p);
    s.classList.add(probClass(p));
  }
  if (onclick) {
    s.tabIndex = 0;
    s.setAttribute("role", "button");
    s.dataset.opens = "1";
    s.dataset.shown = tokenLabel(text); // a token of spaces only is named by its label (␣␣)
    s.addEventListener("click", () => onclick(s));
    s.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onclick(s); } });
  }
  if (p != null) label(s);
  return s;
}

let openPop = null; // [pop, fill]: the popover on screen and how to write it again

onLang(() => {
  for (const s of document.querySelectorAll(".tok[data-p]")) label(s);
  if (openPop && openPop[0].isConnected) {
    // writing it again replaces its buttons: keep the keyboard where it was (Escape still closes)
    const had = openPop[0].contains(document.activeElement);
    openPop[1]();
    if (had) openPop[0].focus();
  } else openPop = null;
});

// d: {id, text, p (final probability), top: [[id, p before the filters, q after, text]], survivors}.
// The title and the list use the same two numbers, each named: p before the filters, and the
// share after them, so "100%" for a one-token nucleus sits beside its 99.8% of before.
export function showTokenPopover(container, d, opener) {
  let pop = container.querySelector(":scope > .token-pop");
  if (!pop) {
    pop = el("div", { class: "token-pop", role: "dialog", "t-aria-label": "w1.tok.pop_aria", tabindex: -1 });
    container.append(pop);
  }
  const close = () => { pop.remove(); openPop = null; if (opener) opener.focus(); };
  const mine = d.top.find((x) => x[0] === d.id);
  const max = Math.max(...d.top.map((x) => x[1]), 1e-12);
  const fill = () => {
    const before = mine ? t("w1.tok.before", { p: fmtPct(mine[1]) }) : t("w1.tok.before_unknown", { n: d.top.length });
    const args = { tok: tokenLabel(d.text), before, after: fmtPct(d.p), n: { num: d.survivors, text: fmtCount(d.survivors) } };
    pop.replaceChildren(
      el("div", { class: "pop-title" }, t(d.survivors ? "w1.tok.pop_title_left" : "w1.tok.pop_title", args)),
      ...d.top.map(([id, p, q, name]) => el("div", { class: "bar-row" + (q > 0 ? "" : " filtered") + (id === d.id ? " chosen" : "") },
        el("span", { class: "bar-label", text: tokenLabel(name) }),
        el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: { width: `${Math.max(0.5, (100 * p) / max)}%` } })),
        el("span", { class: "bar-value", text: fmtPct(p) + (q > 0 ? ` → ${fmtPct(q)}` : ` → ${t("w1.tok.cut")}`) }))),
      el("button", { class: "secondary", t: "w1.tok.close", onclick: close }),
    );
  };
  fill();
  openPop = [pop, fill];
  pop.onkeydown = (e) => { if (e.key === "Escape") close(); };
  // it opens above the text (below it would cover the panel's buttons); where its top would sit
  // under the contents bar (sticky on a narrower screen) or above the screen, the page scrolls
  // back just enough to show it whole (design re-review N3)
  pop.focus({ preventScroll: true });
  const bar = document.getElementById("toc");
  const barBottom = bar && getComputedStyle(bar).position === "sticky" ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
  const top = pop.getBoundingClientRect().top;
  if (top < barBottom + 8) window.scrollBy(0, top - barBottom - 8);
}
