// Generated tokens as clickable spans, coloured by the probability they were drawn with; a click
// (or Enter) shows the distribution each token came from, in a popover that takes the focus and
// closes with Escape.
import { el, tokenLabel } from "../ui.js";

export function probColor(p) {
  // high probability: pale; improbable: warm. Hue runs from 45 (p=1) to 0 (p near 0).
  const t = Math.max(0, Math.min(1, 1 + Math.log10(Math.max(p, 1e-4)) / 4));
  return `hsl(${(45 * t).toFixed(0)}, 85%, ${(93 - 28 * (1 - t)).toFixed(0)}%)`;
}

const pct = (p) => `${(100 * p).toFixed(p < 0.001 ? 3 : p > 0.999 && p < 1 ? 2 : 1)}%`;

export function tokenSpan(text, p, onclick, id, extraClass = "") {
  const s = el("span", { class: "tok " + extraClass, id, title: `p = ${pct(p)}`,
    text: text === "<|endoftext|>" ? "⟨end⟩" : text.replace(/\n/g, "⏎\n") });
  s.style.background = probColor(p);
  if (onclick) {
    s.tabIndex = 0;
    s.setAttribute("role", "button");
    s.setAttribute("aria-label", `token ${tokenLabel(text)}, probability ${pct(p)}: show where it came from`);
    s.addEventListener("click", () => onclick(s));
    s.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onclick(s); } });
  }
  return s;
}

export function showTokenPopover(container, d, opener) {
  let pop = container.querySelector(":scope > .token-pop");
  if (!pop) {
    pop = el("div", { class: "token-pop", role: "dialog", "aria-label": "where this token came from", tabindex: -1 });
    container.append(pop);
  }
  const close = () => { pop.remove(); if (opener) opener.focus(); };
  const max = Math.max(...d.top.map((t) => t[1]), 1e-12);
  pop.replaceChildren(
    el("div", { class: "pop-title" }, `Drawn: “${tokenLabel(d.text)}”, probability ${pct(d.p)} after the filters. ` +
      "Before them, the distribution it came from was:"),
    ...d.top.map(([id, p, q, name]) => el("div", { class: "bar-row" + (q > 0 ? "" : " filtered") + (id === d.id ? " chosen" : "") },
      el("span", { class: "bar-label", text: tokenLabel(name) }),
      el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: { width: `${Math.max(0.5, (100 * p) / max)}%` } })),
      el("span", { class: "bar-value", text: pct(p) + (q > 0 && Math.abs(q - p) > 1e-9 ? ` → ${pct(q)}` : "") }))),
    el("button", { class: "secondary", text: "close", onclick: close }),
  );
  pop.onkeydown = (e) => { if (e.key === "Escape") close(); };
  pop.focus();
}
