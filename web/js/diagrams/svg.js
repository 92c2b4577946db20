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

// Text's width as a picture will draw it, measured on a canvas with the label's font (style.css:
// .dg-label 600 13px, .dg-small 11.5px): a picture fits its words to its width before drawing
// them (on a phone, labels estimated by character count ran past the edge)
export const FONTS = { label: "600 13px system-ui, sans-serif", small: "11.5px system-ui, sans-serif" };
let ruler = null;
export function textWidth(text, font = FONTS.label) {
  ruler = ruler || document.createElement("canvas").getContext("2d");
  ruler.font = font;
  return ruler.measureText(text).width;
}

// `text` broken at spaces into lines no wider than `width`
export function fitLines(text, width, font = FONTS.label) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, font) > width) { lines.push(line); line = word; } else line = next;
  }
  return [...lines, line];
}

// The reader asked the system for less motion: diagrams show their last frame, and nothing plays
export const reducedMotion = () => !!(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);

// draw(data) now and after every language switch (labels are the page's language): one helper for
// the diagrams and the widgets, in i18n.js
export { redrawOnLang };
