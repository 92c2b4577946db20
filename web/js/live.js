// The prose's live numbers at run time: the one owner of every <span data-live="KEY">.
// The build has written the pinned numbers into the HTML already (live/registry.js says which
// are pinned, which measured, which follow the panel); this module writes what the page learns:
// the measured figures the widgets hand it, and the panel's numbers while the reader asks the
// prose to follow the panel. Every value it was given is kept and written again after a language
// switch (the switch puts the new language's HTML in, its pinned numbers already written).
import { call } from "./engine.js";
import { onLang, pinnedNumber, builtNumber, t } from "./i18n.js";
import { el } from "./ui.js";
import { tokenLabel, storyBand } from "./live/formats.js";
import { render, SOURCES, isPanelKey } from "./live/registry.js";

const kept = {}; // key -> the latest value this page was given (tests read window.__live.values)
const spans = (key) => document.querySelectorAll(`[data-live="${key}"]`);

function show(node, key, v) {
  const r = render(key, v);
  if (r && typeof r === "object" && Array.isArray(r.tokens)) {
    const parts = [];
    r.tokens.forEach((tx, i) => {
      if (i) parts.push(i === r.tokens.length - 1 ? t("fmt.list_and") : t("fmt.list_comma"));
      parts.push(el("code", { class: "tok-code", text: tokenLabel(tx) }));
    });
    node.replaceChildren(...parts);
  } else if (r && typeof r === "object" && Array.isArray(r.story)) { // the prompt, then tokens coloured by p
    node.replaceChildren(...r.story.map(({ text, p }) => el("span", { class: p == null ? "story-prompt" : `tok-p${storyBand(p)}`, text })));
  } else {
    node.textContent = r;
  }
  node.dataset.state = "ok";
  // a number the build measured (firstframes.py) gives way to this browser's own
  if (node.hasAttribute("data-built")) { node.removeAttribute("data-built"); node.removeAttribute("title"); }
}

// The served page marks each number the build measured with data-built (firstframes.py) and
// leaves the saying-so to the page: one title, set here on every such number, rather than the
// same sentence written into the HTML fifty times over (#45: bytes before the first paint).
// A reader without JavaScript reads it once, in the noscript note that explains the dotted line.
export function titleBuilt(root = document) {
  for (const n of root.querySelectorAll("[data-live][data-built]")) n.title = t("live.built");
}

// values: {KEY: value}, full keys ("ch2.kc.fast_us")
export function setLive(values) {
  Object.assign(kept, values);
  for (const [key, v] of Object.entries(values)) for (const n of spans(key)) show(n, key, v);
}

// paragraphs that only make sense after a widget's result: data-after="speed", data-before="speed"
const SHOWN = new Map();
export function showWhen(attr, value, shown) {
  SHOWN.set(`${attr}=${value}`, [attr, value, shown]);
  for (const n of document.querySelectorAll(`[${attr}="${value}"]`)) n.hidden = !shown;
}

// ---- the panel's numbers in the prose ------------------------------------------------------------
// Off (the default): the prose shows the reference prompt's numbers, as built. On: the panel
// hands its numbers here, and every panel number is marked as the reader's own.
let following = false;
const pinnedHtml = new Map(); // span -> its built HTML, to put back when the reader stops following
function notePinned() {
  pinnedHtml.clear();
  for (const n of document.querySelectorAll("[data-live]")) if (isPanelKey(n.dataset.live)) pinnedHtml.set(n, n.innerHTML);
}
export const followsPanel = () => following;
export function followPanel(on) {
  if (on === following) return;
  following = on;
  document.body.classList.toggle("prose-follows-panel", on);
  if (on) {
    notePinned();
  } else {
    for (const key of Object.keys(kept)) if (isPanelKey(key)) delete kept[key];
    for (const [n, html] of pinnedHtml) n.innerHTML = html;
  }
  // marked while they are the reader's own (style.css: .follows-panel)
  for (const n of pinnedHtml.keys()) n.classList.toggle("follows-panel", on);
}
// the panel's numbers: written only while the prose follows it
export function setPanelLive(values) {
  if (following) setLive(values);
}

onLang(() => {
  // spans inside an entry came back with it, in the new language; the others (table cells) are
  // written here from the build's numbers for that language
  for (const n of document.querySelectorAll("[data-live]")) {
    if (n.closest("[data-t]")) continue;
    const html = pinnedNumber(n.dataset.live);
    if (html != null) n.innerHTML = html;
  }
  // a number not measured here yet: the build's measurement in the new language, marked as such
  for (const n of document.querySelectorAll("[data-live]")) {
    const html = n.dataset.live in kept ? null : builtNumber(n.dataset.live);
    if (html == null) continue;
    n.innerHTML = html;
    n.setAttribute("data-built", "");
    n.title = t("live.built");
  }
  if (following) { // the new language's built numbers, to go back to, and its spans marked
    notePinned();
    for (const n of pinnedHtml.keys()) n.classList.add("follows-panel");
  }
  for (const [attr, value, sh] of SHOWN.values()) showWhen(attr, value, sh);
  setLive({ ...kept });
});

// ---- for the tests: every pinned number, computed again by this page -----------------------------
// Runs each source of the registry through the worker and renders it in the page's language; the
// tests compare the result with the numbers the build wrote into the HTML.
async function recompute() {
  const out = {}, when = {};
  for (const s of SOURCES) {
    const r = await s.run((name, args) => call(name, args || {}));
    for (const [key, v] of Object.entries(r.live)) {
      const probe = document.createElement("span");
      show(probe, key, v);
      out[key] = probe.textContent;
    }
    Object.assign(when, r.when || {});
  }
  return { live: out, when };
}
window.__live = { values: kept, recompute };
