// The text face (Source Serif 4) from a reader's second visit on; the system's serif before.
//
// Why: a face is asked for as soon as the first layout needs it, so its files (40-60 KB a
// language) came before the first paint and shared a phone's link with the HTML and the
// stylesheet: on Lighthouse's simulated mobile link, 0.4 s of the largest paint (2.85 s with
// the face, 2.43 s without). And on such a link a first visit never showed it anyway: its
// font-display is optional, so a face not in within about 100 ms is not swapped in (the text
// never reflows). So the first visit paints in the system's serif, and once the load is
// over (main.js afterLoad: 2 s after the first distribution, in an idle moment), this loads the faces the page's text needs into the browser's cache
// and, if every one of them loaded, notes the page's language; boot.js then sets
// <html data-faces> before a later visit's first paint in that language, and style.css's --serif
// starts with the face (still font-display optional: a cache that lost the files, or a server
// that makes the browser ask again, shows the system's serif rather than waiting). Nothing swaps
// within a visit, so nothing moves. Without scripts, nojs.css asks for the face at once.
const KEY = "decodelab.faces"; // boot.js reads it: the languages kept, "en ru"

// the distinct characters of some nodes' text, as one short string for document.fonts.load
function charsOf(nodes) {
  const seen = new Set();
  for (const n of nodes) if (n) for (const c of n.textContent) seen.add(c);
  return [...seen].join("");
}

export async function keepFacesForNextVisit() {
  const root = document.documentElement;
  if (!document.fonts) return;
  const face = getComputedStyle(root).getPropertyValue("--serif-face").trim();
  if (!face) return;
  // the article's text, not the language switch above it (each language's name in its own
  // script, set in the interface's sans-serif), whose letters would fetch faces the page never sets
  const upright = charsOf([document.querySelector("h1"), document.querySelector(".dek"), document.querySelector("main")]);
  const italic = charsOf(document.querySelectorAll("main em, main i"));
  try {
    const faces = (await Promise.all([document.fonts.load(`1em ${face}`, upright),
      italic ? document.fonts.load(`italic 1em ${face}`, italic) : []])).flat();
    const ok = faces.length > 0 && faces.every((f) => f.status === "loaded");
    const kept = new Set((localStorage.getItem(KEY) || "").split(" ").filter(Boolean));
    if (ok) kept.add(root.lang); else kept.delete(root.lang);
    localStorage.setItem(KEY, [...kept].join(" "));
    if (ok) root.dataset.facesKept = root.lang; // what the tests read
  } catch { /* storage or fonts refused: the next visit reads the system's serif again */ }
}
