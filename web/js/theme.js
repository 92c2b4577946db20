// The light and dark themes, and the palette as scripts see it.
//
// The colours are declared once, in style.css's :root, each with its light and dark value
// (light-dark()); the theme is the root's color-scheme: the system's, or the reader's choice from
// the masthead's switch (kept in localStorage; boot.js sets it before the first paint). Canvas
// and chart code cannot use var(--x), so colour(NAME) reads what --NAME resolves to now, and
// onTheme(fn) tells a drawing to draw again when that changes.
const KEY = "decodelab.theme";
const root = document.documentElement;
const system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
const listeners = new Set();
let cache = new Map();
let probe = null;

export const isDark = () => (root.dataset.theme ? root.dataset.theme === "dark" : !!(system && system.matches));

// the colour --NAME resolves to in the current theme, as "rgb(…)" (a name that is no palette
// entry gives the ink's colour: visible, and wrong enough to notice)
export function colour(name) {
  if (cache.has(name)) return cache.get(name);
  if (!probe) {
    probe = document.createElement("span");
    probe.hidden = true;
    document.body.append(probe);
  }
  probe.style.color = `var(--${name}, var(--ink))`;
  const value = getComputedStyle(probe).color;
  cache.set(name, value);
  return value;
}

export function onTheme(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function changed() {
  cache = new Map();
  const button = document.getElementById("theme-switch");
  if (button) button.setAttribute("aria-pressed", String(isDark()));
  for (const fn of listeners) {
    try { fn(isDark()); } catch (e) { console.error(e); } // one drawing that fails leaves the others
  }
}
if (system) system.addEventListener("change", () => { if (!root.dataset.theme) changed(); });

function choose(theme) {
  root.dataset.theme = theme;
  try { localStorage.setItem(KEY, theme); } catch { /* private mode: for this page only */ }
  changed();
}

// the masthead's switch: a toggle button whose pressed state is "dark"
export function mountThemeSwitch() {
  const button = document.getElementById("theme-switch");
  if (!button) return;
  button.setAttribute("aria-pressed", String(isDark()));
  button.hidden = false;
  button.addEventListener("click", () => choose(isDark() ? "light" : "dark"));
}
