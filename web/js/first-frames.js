// The figures and pictures drawn at first paint (issue 43). The build (decodelab_tools/
// firstframes.py) opens each language's page in Chromium with reduced motion (so each figure
// shows its whole last frame: a full speculative round, the KV race's grids filled), waits until
// the script has drawn each one from the page's own endpoints, copies it without its ids or
// controls, and writes the copy into the served HTML: a reader without JavaScript, or before the
// engine has started (the draft model takes seconds), sees the real figure. When the script has
// drawn its own, the copy goes. DOM-free at import: the build imports this list.
//
// host: the element the copy is written into (a figure: before its .diagram-body; a widget: at
// its end); part: what is copied; drawn: present once the script has drawn its own; measured: a
// measurement on the build's machine, copied after the build has run its widget (firstframes.py
// measure), led by `note` (a text key) where it shows the build's machine.
import { SPEC } from "./generated/spec.js";

export const FIRST_FRAMES = [
  { host: "fig-pipeline", part: "#fig-pipeline .diagram-body", drawn: "#fig-pipeline .diagram-body .pipe-stage" },
  { host: "toy-sampler", part: "#toy-pic", drawn: "#toy-pic svg" },
  // each filter alone on two openings (diagrams/cut-strip.js): one figure per cut that declares
  // the value its paragraph uses (sampler.Rule.example)
  ...SPEC.steps.filter((st) => st.example != null).map((st) =>
    ({ host: `fig-cut-${st.name}`, part: `#fig-cut-${st.name} .diagram-body`, drawn: `#fig-cut-${st.name} .diagram-body svg` })),
  // the model drawn once, at chapter 1's start and where a section works on one of its parts
  // (diagrams/model-map.js; the page's figure.model-map, each with its data-focus)
  ...["sampler", "cache", "weights", "spec"].map((focus) =>
    ({ host: `fig-map-${focus}`, part: `#fig-map-${focus} .diagram-body`, drawn: `#fig-map-${focus} .diagram-body .mm` })),
  { host: "fig-kv", part: "#fig-kv .diagram-body", drawn: "#fig-kv .diagram-body svg" },
  { host: "kv-race", part: "#kv-pic", drawn: "#kv-pic svg" },
  { host: "fig-int8", part: "#fig-int8 .diagram-body", drawn: "#fig-int8 .diagram-body .q8-grid" },
  { host: "outliers", part: "#ol-pic", drawn: "#ol-pic svg" },
  { host: "bit-depth", part: "#bd-pic", drawn: "#bd-pic svg" },
  { host: "fig-spec", part: "#fig-spec .diagram-body", drawn: "#fig-spec[data-frame]" },
  { host: "rounds", part: "#rt-pic", drawn: "#rt-pic svg" },
  { host: "sampling-rule", part: "#sr-pic", drawn: "#sr-pic svg" },
  // the race the build ran (MEASURE_PRESS below), copied in each language once it has been run,
  // with a note saying where it ran; the widget draws it again from the copy's data at its own
  // width, until the reader races (widgets/speed.js)
  { host: "speed", part: "#speed-pic", drawn: "#speed-pic svg", measured: true, note: "w2.speed.built" },
  // the real pair's last run, round by round: greedy, so the same tokens on every machine (the
  // timings above it are the reader's, and are not copied)
  { host: "live-spec", part: "#ls-detail", drawn: "#ls-detail .ls-rounds", measured: true },
];

// The measured numbers too (live/registry.js MEASURED): the build runs each measuring widget once
// in the same Chromium and writes what it measured into the served pages, marked as measured when
// the page was built, where the reader's browser writes its own once the widget runs. A widget
// that measures only when asked is pressed here.
export const MEASURE_PRESS = { speed: "#speed-run" };

// What a copy must not carry: ids (the script's own elements hold them), controls and the lines
// that say what the script is doing, and anything that takes focus.
const DROP = "button, input, select, textarea, .controls, .status, [role=status], details";
// (a style attribute stays: the build turns each into a class of css/frames.css, as the page's
// Content-Security-Policy refuses style attributes in HTML)
const ATTRS = ["id", "for", "tabindex", "aria-controls", "aria-describedby", "aria-labelledby", "aria-live", "aria-valuenow",
  "aria-valuemin", "aria-valuemax", "aria-valuetext", "aria-orientation"];

// The copy of one entry's part, as HTML (run in the page by the build).
export function captureFrame(entry) {
  const src = document.querySelector(entry.part);
  if (!src) return null;
  const copy = src.cloneNode(true);
  copy.querySelectorAll(DROP).forEach((n) => n.remove());
  for (const n of [copy, ...copy.querySelectorAll("*")]) {
    for (const a of ATTRS) n.removeAttribute(a);
    const role = n.getAttribute("role");
    if (role && role !== "img" && role !== "list" && role !== "listitem") n.removeAttribute("role");
    // the text keys (data-t, data-t-args, data-t-title, …): the copy is written in its language
    // and never switched, and they were a tenth of a copy's bytes
    for (const a of [...n.getAttributeNames()]) if (a === "data-t" || a.startsWith("data-t-")) n.removeAttribute(a);
    // a token's hover title repeats its mark's accessible name (the live-spec rounds: 60 of each)
    if (n.querySelector(":scope > [role=img][aria-label]")) n.removeAttribute("title");
  }
  return copy.outerHTML;
}

// At mount: the copy moves to the end of its widget (where the picture will be, below the
// controls the mount added) and is removed as soon as the script has drawn its own.
export function keepFirstFrame(host) {
  const copy = host.querySelector(":scope > .first-frame");
  const entry = FIRST_FRAMES.find((f) => f.host === host.id);
  if (!copy || !entry) return;
  const drawn = () => [...document.querySelectorAll(entry.drawn)].some((n) => !n.closest(".first-frame"));
  if (drawn()) { copy.remove(); return; }
  if (!host.matches("figure")) host.append(copy);
  const watch = new MutationObserver(() => { if (drawn()) { watch.disconnect(); copy.remove(); } });
  watch.observe(host, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-frame"] });
}
