// Shared helpers for widgets, so each rule lives once: element building (styles through the CSSOM,
// which a strict Content-Security-Policy allows), number formatting, math typesetting, errors
// beside the field they belong to, reading a number box, one action at a time per widget, and a
// latest-only updater for controls that fire many events.
import { isReady, on } from "./engine.js";
import { apply as applyText, decimalText, fixed, parseDecimal, t, onLang } from "./i18n.js";
import { decimals, fmtTenPower, fmtPct, fmtBig, fmtTimes, fmtCount, fmtEff, fmtNats, fmtFixed, fmtShare, fmtInterval, fmtChance,
  END_TEXT, tokenLabel } from "./live/formats.js";

// el(tag, attrs, ...children). Text that the reader reads comes by key, so a language switch
// can re-render it: {t: KEY, targs: {...}} fills the element from the text files (data-t), and
// {"t-aria-label": KEY} (also t-title, t-placeholder) an attribute.
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  let keyed = false;
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "style") Object.assign(e.style, v); // an object: CSSOM, never a style attribute
    else if (k === "t") { e.dataset.t = v; keyed = true; }
    else if (k === "targs") e.dataset.tArgs = JSON.stringify(v);
    else if (k.startsWith("t-")) { e.setAttribute(`data-${k}`, v); keyed = true; }
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c != null) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  if (keyed) applyText(e);
  return e;
}

// Give an element built earlier a (new) text by key: data-t and its arguments, filled now and
// again on every language switch.
export function setText(node, key, args) {
  node.dataset.t = key;
  if (args) node.dataset.tArgs = JSON.stringify(args);
  else delete node.dataset.tArgs;
  applyText(node);
}

// where a number is written as m × 10^e rather than with decimals (prose and TeX alike)
const tenPower = (x) => { const a = Math.abs(x); return a !== 0 && (a < 1e-3 || a >= 1e6); };

export function fmt(x, digits = 3) {
  if (x == null || !Number.isFinite(x)) return "–";
  if (tenPower(x)) return fmtTenPower(x);
  return fixed(x, digits);
}

// number formats and token labels live in live/formats.js (DOM-free: the build formats with it too)
export { decimals, fmtTenPower, fmtPct, fmtBig, fmtTimes, fmtCount, fmtEff, fmtNats, fmtFixed, fmtShare, fmtInterval, fmtChance,
  END_TEXT, tokenLabel };

// A token in running text: <code>␣girl</code>, built as an element (token text can hold "<").
export const tokCode = (text) => el("code", { class: "tok-code", text: tokenLabel(text) });

// Tokens as a list in prose: ␣rock, ␣green and ␣squirrel.
export function tokList(texts) {
  const out = document.createDocumentFragment();
  texts.forEach((tx, i) => {
    if (i) out.append(i === texts.length - 1 ? t("fmt.list_and") : t("fmt.list_comma"));
    out.append(tokCode(tx));
  });
  return out;
}

// Render KaTeX into every .math element (inline) and .math-block (display).
// Math is typeset as it comes near the screen, not all at once: typesetting the whole article
// is hundreds of milliseconds of main-thread work on a slow machine, at the moment Python is
// starting in the worker and the control panel wants to draw. Until then a formula shows its
// TeX source (real text, so find-in-page and screen readers still have it).
// KaTeX itself (270 KB) is loaded by the first formula that needs it, not with the page: the
// first screen holds no formula on a laptop or a phone, and evaluating the library at load
// competed with Python's start-up. While the page starts (onScreen), only formulas that are on
// the screen are typeset; main.js asks for the rest once the first distribution is drawn.

// A vendored library (a classic script that sets window[name]) loaded once, on first need:
// a promise of window[name], or null if the file cannot be loaded.
const vendored = {};
export function loadVendorScript(path, name) {
  vendored[path] ??= new Promise((resolve) => {
    if (window[name]) { resolve(window[name]); return; }
    const script = document.createElement("script");
    script.src = new URL(path, document.baseURI).href;
    script.onload = () => resolve(window[name] || null);
    script.onerror = () => resolve(null);
    document.head.append(script);
  });
  return vendored[path];
}

// MathML, as the build typesets the article's formulas (decodelab_tools/node/katex_render.mjs): one
// rendering for every formula, laid out by the browser in the page's math face (no KaTeX CSS or fonts)
const MATH_OUTPUT = "mathml";

// A later task of its own: work split this way lets a tap or a scroll in between (#45 item 3:
// no main-thread task over 50 ms while the page loads)
export const nextTask = () => new Promise((ok) => setTimeout(ok, 0));

// formulas keep showing their TeX source if KaTeX cannot be loaded
export const loadKatex = () => loadVendorScript("vendor/katex/katex.min.js", "katex");

// typeset when the page was built (decodelab_tools/mathrender.py): nothing to load or do
const typeset = (n) => n.dataset.tex || n.querySelector("math");

function renderMath(n) {
  if (typeset(n)) return;
  loadKatex().then((katex) => {
    if (!katex || n.dataset.tex) return;
    n.dataset.tex = n.textContent;
    katex.render(n.textContent, n, { displayMode: n.classList.contains("math-block"), throwOnError: false, output: MATH_OUTPUT });
  });
}

let mathObserver = null;
const WATCHED_WHOLE = "details, .table-scroll";
export function typesetAll(root, { onScreen = false } = {}) {
  const nodes = root.querySelectorAll(".math, .math-block");
  if (!window.IntersectionObserver) { nodes.forEach(renderMath); return; }
  // one observer for the page; a pass over the whole document (after a language switch
  // replaced the prose) drops what it watched, formulas no longer in the page among them
  const margin = onScreen ? "0px" : "1200px 0px";
  if (!mathObserver || mathObserver.rootMargin.split(" ")[0] !== margin.split(" ")[0]) {
    if (mathObserver) mathObserver.disconnect();
    mathObserver = new IntersectionObserver((entries, obs) => {
      for (const en of entries) {
        if (!en.isIntersecting) continue;
        obs.unobserve(en.target);
        // a closed aside is watched as a whole (its content is not laid out), and so is a table
        // that scrolls sideways (a formula in a column scrolled out of its box never meets the
        // screen): their formulas are typeset as the box comes near
        if (en.target.matches(WATCHED_WHOLE)) en.target.querySelectorAll(".math, .math-block").forEach((m) => { if (!typeset(m)) renderMath(m); });
        else renderMath(en.target);
      }
    }, { rootMargin: margin });
  } else if (root === document) mathObserver.disconnect();
  nodes.forEach((n) => { if (!typeset(n)) mathObserver.observe(n.closest(WATCHED_WHOLE) || n); });
}

// A number inside TeX, as the page writes it: `digits` decimals, the language's decimal mark
// (a comma in braces, so TeX does not space it as punctuation), and very small or large values as
// m \times 10^{e}, in parentheses where `base` (it is raised to a power). Never the prose's
// "1.0 × 10⁻⁴", whose superscript characters TeX cannot read.
export function texNumber(x, digits = 3, { base = false } = {}) {
  if (x == null || !Number.isFinite(x)) return "\\text{–}";
  const comma = (s) => s.replace(/,/g, "{,}");
  if (!tenPower(x)) return comma(fixed(x, digits));
  const [m, e] = x.toExponential(1).split("e");
  const s = `${comma(fixed(Number(m), 1))}\\times 10^{${Number(e)}}`;
  return base ? `\\left(${s}\\right)` : s;
}

// A formula made by a widget (its numbers change). Until KaTeX is in, and if it cannot be loaded,
// the node says so in words; a formula KaTeX cannot typeset says so too (never raw TeX, and never
// KaTeX's own error span, whose inline style the page's CSP refuses).
// tex() once `node` comes near the screen: KaTeX loads then, not with the page (the article's own
// formulas come typeset from the build); the newest source wins if it changes before that.
const nearTex = new WeakMap();
export function texWhenNear(node, src, display = false) {
  const st = nearTex.get(node);
  if (st && st.near) { tex(node, src, display); return; }
  if (st) { st.src = src; st.display = display; return; }
  const s = { near: false, src, display };
  nearTex.set(node, s);
  whenNear(node).then(() => { s.near = true; tex(node, s.src, s.display); });
}

export function tex(node, src, display = false) {
  node.dataset.src = src;
  const render = (katex) => {
    try {
      katex.render(src, node, { displayMode: display, throwOnError: true, output: MATH_OUTPUT });
      node._text = null; // the formula, not a message, is what a language switch leaves here
      rerender.delete(node);
      delete node.dataset.texFailed;
    } catch (e) {
      node.dataset.texFailed = "1";
      console.warn("[decodelab] a formula could not be typeset:", src, e && e.message);
      showText(node, () => t("ui.formula_failed"));
    }
  };
  if (window.katex) { render(window.katex); return; }
  showText(node, () => t("ui.formula_loading"));
  loadKatex().then((katex) => {
    if (node.dataset.src !== src) return;
    if (katex) render(katex);
    else showText(node, () => t("ui.formula_failed"));
  });
}

// Messages shown in the page are kept as functions that render them, so a language switch can
// write them again in the new language: msg is a string (shown as it is), or () => string.
const rerender = new Set(); // nodes whose text is a function, re-run on every switch
function showText(node, msg) {
  if (typeof msg === "function") { node._text = msg; rerender.add(node); node.textContent = msg(); }
  else { node._text = null; rerender.delete(node); node.textContent = msg; }
}
onLang(() => {
  for (const n of rerender) {
    if (!n.isConnected) rerender.delete(n);
    else if (n._text) n.textContent = n._text();
  }
});

// Show an error message right next to the control it concerns; clear it with msg = "".
export function fieldError(control, msg) {
  let box = control.parentElement.querySelector(":scope > .field-error");
  if (!box) {
    box = el("span", { class: "field-error", role: "alert" });
    control.insertAdjacentElement("afterend", box);
  }
  showText(box, msg);
  box.hidden = !msg;
  control.classList.toggle("invalid", !!msg);
  control.setAttribute("aria-invalid", msg ? "true" : "false");
}

// Read a number box. Returns the number, or null after showing why beside the box: an empty box
// is a message, never 0. `label` is the box's name as a text key (or a function giving it);
// `id`: the number names something (a seed), so its limits are written as plain digits.
export function readNumber(input, { label, min = -Infinity, max = Infinity, integer = false, allowZero = true, id = false }) {
  const raw = input.value.trim();
  const v = parseDecimal(raw);
  let key = "";
  if (raw === "") key = "ui.num.empty";
  else if (!Number.isFinite(v)) key = "ui.num.not_number";
  else if (integer && !Number.isInteger(v)) key = "ui.num.whole";
  else if (v < min || v > max) key = "ui.num.range";
  else if (!allowZero && v === 0) key = "ui.num.no_zero";
  const name = () => (typeof label === "function" ? label() : t(label));
  const lim = (x) => (id ? { text: String(x) } : x);
  fieldError(input, key ? () => t(key, { label: name(), raw, min: lim(min), max: lim(max) }) : "");
  return key ? null : v;
}

// An error from the engine in the reader's words: an InputError by its message key (err.KEY in
// the text files), a stop by its reason; never a raw exception in the page.
export function errorText(e) {
  if (!e) return t("ui.err.unknown");
  if (e.key) return t(`err.${e.key}`, e.args || {});
  if (e.type === "Stopped") return e.message;
  // an exception in Python or the worker (a bug, or a broken file): its words are the
  // programmer's, in English; the reader gets a sentence in their language, the console the rest
  if (e.type && e.type !== "InputError") return t("ui.err.unexpected", { type: e.type });
  return e.message || String(e);
}

// Words for errors that are not about one field. An unexpected exception is logged in full once.
export function friendly(e) {
  if (e && e.type && !e.key && !["InputError", "Stopped"].includes(e.type) && !e.logged) {
    e.logged = true;
    console.error(`[decodelab] ${e.type}: ${e.message}\n${e.trace || ""}`);
  }
  return () => errorText(e);
}

// Route an error to the field it names (fields: {name: input}), else to the status line.
export function showError(e, fields, status) {
  const target = e && e.field ? fields[e.field] : null;
  if (target) fieldError(target, () => errorText(e));
  else if (status) setStatus(status, friendly(e), true);
}

// msg: a string, or () => string (re-rendered on a language switch)
export function setStatus(status, msg, isError = false) {
  showText(status, msg);
  status.classList.toggle("error", isError);
}

export function clearErrors(fields) {
  for (const f of Object.values(fields)) fieldError(f, "");
}

// One action at a time for a widget. While `fn` runs, further clicks are dropped, or, with
// queueOne, the next one waits its turn (a double click on "Draw one" draws twice, in order; fifty
// clicks still run only one more). Without queueOne the buttons are disabled meanwhile. A button
// says when it is waiting for the engine to start. Errors are shown (beside their field, else in
// the status line); an old error in the status line is cleared on success.
export function serial(buttons, status, fields = {}, { queueOne = false } = {}) {
  let running = false, waiting = null, shown = false; // shown: the status holds an error we put there
  async function run(fn) {
    if (running) {
      if (queueOne && !waiting) return new Promise((resolve) => { waiting = () => resolve(run(fn)); });
      return undefined;
    }
    running = true;
    const labels = buttons.map((b) => b.textContent);
    buttons.forEach((b) => { b.disabled = !queueOne; b.setAttribute("aria-busy", "true"); b.classList.add("busy"); });
    if (!isReady()) buttons[0].textContent = t("ui.waiting");
    try {
      if (shown && status) { setStatus(status, ""); shown = false; }
      return await fn();
    } catch (e) {
      showError(e, fields, status);
      shown = !(e && e.field && fields[e.field]);
      return undefined;
    } finally {
      // a button marked unavailable (its widget lost a part it needs) stays off
      // (a label given by key is written again: the language may have changed meanwhile)
      buttons.forEach((b, i) => { b.disabled = Boolean(b.dataset.unavailable); b.removeAttribute("aria-busy"); b.classList.remove("busy"); b.textContent = labels[i]; if (b.dataset.t) applyText(b); });
      running = false;
      if (waiting) { const next = waiting; waiting = null; next(); }
    }
  }
  return run;
}

// For controls that fire many events (sliders): at most one call in flight; while it runs, only
// the newest request is kept, and it runs when the current one ends. A request returns a promise
// that settles once the run that answers it has ended: its own, or the newer one that replaced it
// while it waited (so a caller can wait for the view its change asked for).
export function latest(fn) {
  let running = false, waiting = null; // waiting: { args, done, answer }
  const start = (args) => {
    running = true; // before fn runs: a request fn makes itself waits its turn
    return Promise.resolve(fn(...args)).catch(() => {}).finally(() => {
      running = false;
      if (waiting) { const w = waiting; waiting = null; start(w.args).then(w.answer); }
    });
  };
  return function request(...args) {
    if (!running) return start(args);
    if (waiting) { waiting.args = args; return waiting.done; }
    let answer;
    const done = new Promise((ok) => { answer = ok; });
    waiting = { args, done, answer };
    return done;
  };
}

// A number box: a text field, not <input type=number>, because a number field in a browser set to
// English drops the decimal comma a Russian or Vietnamese reader types ("0,7" became "07"), and
// shows no message for it. This one keeps every character; readNumber and parseDecimal accept
// either decimal mark and say what is wrong with anything else. The keyboard's up and down arrows
// step it as a number field's would. `value` is written the way the page's language writes it,
// and rewritten on a language switch unless the reader is typing in it.
const numberBoxes = new Set();
export function numberBox({ value, step = 1, min = -Infinity, max = Infinity, integer = false, ...attrs }) {
  const box = el("input", { type: "text", inputmode: integer ? "numeric" : "decimal", autocomplete: "off",
    spellcheck: "false", class: "num", "data-min": min, "data-max": max, "data-step": step, ...attrs });
  setNumber(box, value);
  box.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowUp" && ev.key !== "ArrowDown") return;
    const v = parseDecimal(box.value);
    if (!Number.isFinite(v)) return;
    ev.preventDefault();
    const next = Math.min(max, Math.max(min, v + (ev.key === "ArrowUp" ? step : -step)));
    setNumber(box, Number(next.toPrecision(12))); // 0.1 + 0.2 shows as 0.3
    box.dispatchEvent(new Event("input", { bubbles: true }));
  });
  numberBoxes.add(box);
  return box;
}

// Write a number into a box (a number box in the language's form; a slider as it must be).
export function setNumber(input, v) {
  const n = typeof v === "number" ? v : parseDecimal(v);
  input.value = input.type === "range" ? String(n) : decimalText(n);
}

onLang(() => {
  for (const box of numberBoxes) {
    if (!box.isConnected) { numberBoxes.delete(box); continue; }
    const v = parseDecimal(box.value);
    if (Number.isFinite(v) && document.activeElement !== box) box.value = decimalText(v);
  }
});

// A labelled slider with a number box beside it, kept in step. onChange fires on either.
// label and hint are text keys.
export function sliderRow({ id, label, min, max, step, value, hint = "", onChange }) {
  const slider = el("input", { type: "range", id, min, max, step, value, "t-aria-label": label });
  // a tick on the track where the slider starts (the reference example's value): css --default-at
  if (Number(max) > Number(min)) slider.style.setProperty("--default-at", String((Number(value) - Number(min)) / (Number(max) - Number(min))));
  const num = numberBox({ id: `${id}-num`, min, max, step, value, "t-aria-label": "ui.value_of",
    targs: { label: { key: label } } });
  slider.addEventListener("input", () => { setNumber(num, Number(slider.value)); fieldError(num, ""); onChange && onChange(); });
  num.addEventListener("input", () => {
    const v = parseDecimal(num.value);
    if (Number.isFinite(v)) slider.value = String(v);
    onChange && onChange();
  });
  const row = el("div", { class: "slider-row" }, el("label", { class: "slider-label", for: id, t: label }), slider,
    el("span", { class: "num-wrap" }, num), hint ? el("span", { class: "hint", t: hint }) : el("span", { class: "hint" }));
  return { row, slider, num };
}

// A choice between modes as one row of segments (design review item 9: a mode is not an action,
// and looks unlike one). Radio inputs, so the keyboard (arrow keys), a screen reader and
// persist.js treat it as one choice; the group answers .value like the select it replaced, and
// a change bubbles from it as "change".
export function segmented({ id, options, value, label }) {
  const group = el("div", { class: "segmented", role: "radiogroup", id, "t-aria-label": label });
  for (const [v, key] of options) {
    const input = el("input", { type: "radio", name: id, value: v, id: `${id}-${v}` });
    input.checked = v === value;
    group.append(el("label", { class: "segment" }, input, el("span", { t: key })));
  }
  Object.defineProperty(group, "value", {
    get: () => (group.querySelector("input:checked") || {}).value,
    set: (v) => { for (const i of group.querySelectorAll("input")) i.checked = i.value === String(v); },
  });
  return group;
}

// A readout's figures as a grid of label and value (the design review: a readout of sentences
// made a wall of lines on a phone; the sentences go in a disclosure below it). items: [label key,
// value text, note text or null]; style.css lays it out two across on a phone, more where they fit.
// A description list, so a screen reader pairs each value with its label.
export function statGrid(id, items) {
  return el("dl", { class: "stat-grid", id }, items.map(([label, value, note]) => el("div", { class: "stat" },
    el("dt", { class: "stat-label", t: label }),
    el("dd", {}, el("b", { text: value }), note ? el("span", { class: "stat-note", text: note }) : null))));
}

// The disclosure under a readout that is written again (a new run, a language switch): open if the
// one it replaces in `out` was, and its summary focused again if it had the focus.
export function numbersDisclosure(out, summaryKey, ...children) {
  const was = out.querySelector(":scope > details.numbers");
  const summary = el("summary", { t: summaryKey });
  if (was && was.contains(document.activeElement)) queueMicrotask(() => summary.focus());
  return el("details", { class: "numbers", open: !!(was && was.open) }, summary, ...children);
}

// A promise that node has come within `margin` of the screen (at once without IntersectionObserver).
// node's data-seen says "no" while something waits for it and "yes" once it came: a test that
// scrolls to a widget waits for that, not for a pause it hopes is long enough.
export function whenNear(node, margin = "600px 0px") {
  if (!window.IntersectionObserver) return Promise.resolve();
  node.dataset.seen = "no";
  return new Promise((resolve) => {
    const io = new IntersectionObserver((en) => {
      if (en.some((x) => x.isIntersecting)) { io.disconnect(); node.dataset.seen = "yes"; resolve(); }
    }, { rootMargin: margin });
    io.observe(node);
  });
}

// Run fn once when node first scrolls into view after the engine is ready (widgets that show a
// result without a click).
export function whenSeen(node, fn) {
  let armed = false;
  on("ready", () => {
    if (armed) return; // once per page, not again after a restart
    armed = true;
    whenNear(node, "200px").then(fn);
  });
}
