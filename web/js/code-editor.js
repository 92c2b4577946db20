// A code cell's editor (design review item 11): the textarea stays the editor (typing, undo,
// selection, the screen reader, a test's fill()), its text transparent over a highlighted copy of
// itself, and it grows with its code instead of scrolling inside a fixed box. The colours come
// from highlight.js (npm @highlightjs/cdn-assets, its core and Python grammar as ES modules,
// vendored by the build), loaded when the first cell comes near the screen, not with the page:
// until then, and if it cannot load, the copy is plain text, which reads the same. A cell is
// coloured only when near: colouring sets the cell's height from its layout, which in a chapter
// far below made the browser lay that chapter out during the load (content-visibility, style.css).
import { el, whenNear } from "./ui.js";

let loading = null;
function highlighter() {
  if (!loading) {
    // resolved against this bundle's own URL (web/js/), so any start path finds web/vendor/
    const url = (f) => new URL(`../vendor/highlight/${f}`, import.meta.url).href;
    loading = Promise.all([import(url("core.min.js")), import(url("python.min.js"))])
      .then(([core, python]) => {
        const hljs = core.default;
        hljs.registerLanguage("python", python.default);
        return hljs;
      })
      .catch((e) => {
        console.warn("[decodelab] code colours unavailable:", e && e.message);
        return null;
      });
  }
  return loading;
}

// the textarea inside its editor box; call after the textarea's value is set
export function codeEditor(textarea) {
  textarea.classList.add("code-input");
  textarea.setAttribute("wrap", "soft");
  const copy = el("code");
  const box = el("div", { class: "code-editor" }, el("pre", { class: "code-copy", "aria-hidden": "true" }, copy), textarea);
  let hljs = null;
  const paint = () => {
    // the trailing newline keeps the copy as tall as the textarea when the code ends in one
    const src = textarea.value + "\n";
    if (hljs) copy.innerHTML = hljs.highlight(src, { language: "python", ignoreIllegals: true }).value; // escaped by hljs
    else copy.textContent = src;
    textarea.style.height = "auto"; // CSSOM, which the page's CSP allows
    textarea.style.height = `${textarea.scrollHeight}px`;
  };
  textarea.addEventListener("input", paint);
  textarea.addEventListener("decodelab:restored", paint); // persist.js put back what the reader typed
  // the copy follows the textarea if it does scroll (a line longer than the box, on a phone)
  textarea.addEventListener("scroll", () => { copy.parentNode.scrollTop = textarea.scrollTop; copy.parentNode.scrollLeft = textarea.scrollLeft; });
  // the height depends on the width: again when the box's width changes (its height, which this
  // sets, would only bring the observer back)
  let width = 0;
  if (window.ResizeObserver) {
    new ResizeObserver((en) => {
      const w = Math.round(en[0].contentRect.width);
      if (w !== width) { width = w; paint(); }
    }).observe(box);
  }
  whenNear(box).then(highlighter).then((h) => { hljs = h; paint(); });
  paint();
  return box;
}

// The code the prose prints (pre.code: Python, as the cells run it) in the cells' colours; its text
// stays what it was (a cell may read it as its starter: python-cell.js)
export function colourCode(root) {
  for (const p of root.querySelectorAll("pre.code")) {
    if (p.dataset.coloured) continue;
    p.dataset.coloured = "pending"; // asked once
    whenNear(p).then(highlighter).then((h) => {
      if (!h) return;
      const target = p.querySelector(":scope > code") || p;
      target.innerHTML = h.highlight(target.textContent, { language: "python", ignoreIllegals: true }).value; // escaped by hljs
      p.dataset.coloured = "1";
    });
  }
}
