// The text face (Source Serif 4) from a reader's second visit on; the system's serif before.
//
// Why: a face is asked for as soon as the first layout needs it, so its files (40-60 KB a
// language) came before the first paint and shared a phone's link with the HTML and the
// stylesheet: on Lighthouse's simulated mobile link, 0.4 s of the largest paint (2.85 s with
// the face, 2.43 s without). And on such a link a first visit never showed it anyway: its
// font-display is optional, so a face not in within about 100 ms is not swapped in (the text
// never reflows). So the first visit paints in the system's serif, and once its first
// distribution is on screen, this loads the faces the page's text needs into the browser's cache
// (the service worker keeps them too) and notes it; boot.js then sets <html data-faces> before
// the next visit's first paint, and style.css's --serif starts with the face. Nothing swaps
// within a visit, so nothing moves. Without scripts, nojs.css asks for the face at once.
const KEY = "decodelab.faces"; // boot.js reads it
// the article's text blocks: not the language switch (each language's name in its own script,
// set in the interface's sans-serif), whose letters would fetch a face the page never sets
const TEXT = "h1, h2, h3, h4, p, li, td, th, caption, summary, figcaption, dt, dd, blockquote";

export async function keepFacesForNextVisit() {
  const root = document.documentElement;
  if (root.hasAttribute("data-faces") || !document.fonts) return;
  const face = getComputedStyle(root).getPropertyValue("--serif-face").trim();
  if (!face) return;
  const chars = (sel) => [...new Set([...document.querySelectorAll(sel)].map((n) => n.textContent).join(""))].join("");
  const upright = chars(TEXT), italic = chars("main em, main i");
  try {
    // each file whose unicode-range holds a character of the text, upright and italic
    await Promise.all([document.fonts.load(`1em ${face}`, upright), italic && document.fonts.load(`italic 1em ${face}`, italic)]);
    localStorage.setItem(KEY, "1");
    root.dataset.facesKept = "1"; // what the tests read
  } catch { /* storage or fonts refused: the next visit reads the system's serif again */ }
}
