// The diagrams' drawing kit: SVG elements built through the DOM (no markup strings, no style
// attributes: a strict Content-Security-Policy allows both classes and CSSOM), and the frame every
// diagram shares: redraw on a language switch, and whether motion is welcome.
import { redrawOnLang } from "../i18n.js";

const NS = "http://www.w3.org/2000/svg";

// svg("rect", {x: 0, y: 0, width: 4, class: "cell"}, ...children): like ui.js's el, for SVG
export function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c != null) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

// An <svg role="img"> whose accessible name is `label` (a string in the page's language).
export function picture(viewW, viewH, label, cls = "") {
  return svg("svg", { viewBox: `0 0 ${viewW} ${viewH}`, role: "img", "aria-label": label,
    class: `diagram-svg ${cls}`.trim(), preserveAspectRatio: "xMinYMin meet" });
}

// The reader asked the system for less motion: diagrams show their last frame, and nothing plays
export const reducedMotion = () => !!(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);

// draw(data) now and after every language switch (labels are the page's language): one helper for
// the diagrams and the widgets, in i18n.js
export { redrawOnLang };
