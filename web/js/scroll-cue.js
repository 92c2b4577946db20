// A faded edge on a box that scrolls sideways (a wide table or formula on a phone), on the side
// where more is hidden, so the reader sees that it scrolls (design review item 12). The box says
// which sides hide something in data-scroll ("right", "left", "both"); style.css fades them.
// Script rather than CSS alone: the pure-CSS ways (backgrounds attached to the scroll, or
// scroll-driven animations) are hidden by a table's own ground or missing in Firefox and WebKit.
const SELECTOR = ".table-scroll, table.data, .math-block";

function mark(box) {
  const hidden = box.scrollWidth - box.clientWidth;
  if (hidden <= 1) { box.removeAttribute("data-scroll"); return; }
  const left = box.scrollLeft > 1, right = box.scrollLeft < hidden - 1;
  box.dataset.scroll = left && right ? "both" : right ? "right" : "left";
}

export function mountScrollCues(root = document.body) {
  // a size change (a phone turned, a table filled in) is measured after layout, when reading the
  // sizes costs nothing
  const sizes = new ResizeObserver((entries) => { for (const e of entries) mark(e.target); });
  const watch = (box) => {
    if (box.dataset.scrollCue) return;
    box.dataset.scrollCue = "1";
    sizes.observe(box);
    box.addEventListener("scroll", () => mark(box), { passive: true });
  };
  root.querySelectorAll(SELECTOR).forEach(watch);
  // widgets draw their tables later: watch each as it is added
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches(SELECTOR)) watch(n);
        n.querySelectorAll(SELECTOR).forEach(watch);
      }
    }
  }).observe(root, { childList: true, subtree: true });
}
