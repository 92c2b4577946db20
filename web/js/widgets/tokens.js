// Generated tokens as clickable spans, coloured by the probability they were drawn with; a click shows
// the distribution each token came from.
import { el } from "../ui.js";

export function probColor(p) {
  // high probability: pale; improbable: warm. Hue runs from 45 (p=1) to 0 (p near 0).
  const t = Math.max(0, Math.min(1, 1 + Math.log10(Math.max(p, 1e-4)) / 4));
  return `hsl(${(45 * t).toFixed(0)}, 85%, ${(93 - 28 * (1 - t)).toFixed(0)}%)`;
}

export function tokenSpan(text, p, onclick, id, extraClass = "") {
  const s = el("span", { class: "tok " + extraClass, id, title: `p = ${(100 * p).toFixed(2)}%`, tabindex: 0,
    text: text.replace(/\n/g, "⏎\n") });
  s.style.background = probColor(p);
  if (onclick) {
    s.addEventListener("click", onclick);
    s.addEventListener("keydown", (e) => { if (e.key === "Enter") onclick(); });
  }
  return s;
}

export function showTokenPopover(container, d) {
  let pop = container.querySelector(":scope > .token-pop");
  if (!pop) {
    pop = el("div", { class: "token-pop", role: "dialog" });
    container.append(pop);
  }
  const max = Math.max(...d.top.map((t) => t[1]));
  pop.replaceChildren(
    el("div", { class: "pop-title" }, `Drawn: “${d.text}” with p = ${(100 * d.p).toFixed(2)}%. It came from:`),
    ...d.top.map(([id, p, q, name]) => el("div", { class: "bar-row" + (q > 0 ? "" : " filtered") + (id === d.id ? " chosen" : "") },
      el("span", { class: "bar-label", text: JSON.stringify(name).slice(1, -1) }),
      el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: `width:${(100 * p) / max}%` })),
      el("span", { class: "bar-value", text: `${(100 * p).toFixed(1)}%` }))),
    el("button", { class: "secondary", text: "close", onclick: () => pop.remove() }),
  );
}
