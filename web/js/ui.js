// Shared helpers for widgets, so each rule lives once: element building (styles through the CSSOM,
// which a strict Content-Security-Policy allows), number formatting, math typesetting, errors
// beside the field they belong to, reading a number box, one action at a time per widget, and a
// latest-only updater for controls that fire many events.
import { isReady, on } from "./engine.js";

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "style") Object.assign(e.style, v); // an object: CSSOM, never a style attribute
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c != null) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

export function fmt(x, digits = 3) {
  if (x == null || !Number.isFinite(x)) return "–";
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2);
  return x.toFixed(digits);
}

// A token as the reader should see it in a label: every space as ␣ (so " girl" reads ␣girl and
// the space token is not blank), newlines and tabs as visible marks, the end token as "⟨end⟩".
// The text is shown as it is, never JSON-escaped (\" or \n never reach the page).
export const END_TEXT = "<|endoftext|>";
export function tokenLabel(text) {
  if (text === END_TEXT) return "⟨end⟩";
  return text.replace(/ /g, "␣").replace(/\n/g, "⏎").replace(/\t/g, "⇥");
}

// ---- number formats for the prose: one rule per kind, shared by every live number ----------
const SUP = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
const bad = (x) => x == null || !Number.isFinite(x);

// 2.1 × 10⁻⁸ (a number too small for a percentage to read)
export function fmtTenPower(x) {
  const [m, e] = x.toExponential(1).split("e");
  return `${m} × 10${String(Number(e)).replace(/[-0-9]/g, (c) => SUP[c])}`;
}

// A probability: 1 decimal from 1%, 2 decimals from 0.1%, then 2 significant digits; below one
// in a million as a power of ten. Just under 100% never rounds up to "100.0%".
export function fmtPct(p) {
  if (bad(p)) return "–";
  if (p > 0 && p < 1e-6) return fmtTenPower(p);
  if (p === 1) return "100%";
  const x = 100 * p;
  if (p >= 0.01) {
    for (let d = 1; d <= 4; d++) if (p >= 1 || x.toFixed(d) !== (100).toFixed(d)) return x.toFixed(d) + "%";
    return ">99.99%";
  }
  if (p >= 0.001) return x.toFixed(2) + "%";
  return (p === 0 ? "0" : x.toPrecision(2)) + "%";
}

// A ratio without its unit: 3.1, 31, 331, 4,200, 31 million, 4.2 billion.
export function fmtBig(r) {
  if (bad(r)) return "–";
  if (r < 99.5) return Number(r.toPrecision(2)).toString();
  if (r < 999_500) return Math.round(r).toLocaleString("en");
  for (const [v, w] of [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]]) {
    if (r >= v * 0.9995 && r < v * 999.5) return `${Number((r / v).toPrecision(2))} ${w}`;
  }
  return fmtTenPower(r);
}
export const fmtTimes = (r) => (bad(r) ? "–" : fmtBig(r) + " times");
export const fmtCount = (x) => (bad(x) ? "–" : Math.round(x).toLocaleString("en"));
// effective choices (e^H): one decimal below 100, then a whole number
export const fmtEff = (x) => (bad(x) ? "–" : x < 99.95 ? x.toFixed(1) : Math.round(x).toLocaleString("en"));
export const fmtNats = (x) => (bad(x) ? "–" : `${x.toFixed(2)} nats`);
export const fmtFixed = (digits) => (x) => (bad(x) ? "–" : x.toFixed(digits));
export const fmtShare = (x) => (bad(x) ? "–" : `${Math.round(100 * x)}%`);
export const fmtInterval = ([a, b]) => `[${a === 0 ? "0" : a.toFixed(3)}, ${b.toFixed(3)})`;

// A small probability of something over many steps, in words: "about 1 in 3,300".
export function fmtChance(x) {
  if (bad(x)) return "–";
  if (x >= 0.01) return fmtPct(x);
  if (x < 1e-9) return "less than one in a billion";
  return `about 1 in ${Number((1 / x).toPrecision(2)).toLocaleString("en")}`;
}

// A token in running text: <code>␣girl</code>, built as an element (token text can hold "<").
export const tokCode = (text) => el("code", { class: "tok-code", text: tokenLabel(text) });

// Tokens as a list in prose: ␣rock, ␣green and ␣squirrel.
export function tokList(texts) {
  const out = document.createDocumentFragment();
  texts.forEach((t, i) => {
    if (i) out.append(i === texts.length - 1 ? " and " : ", ");
    out.append(tokCode(t));
  });
  return out;
}

// Render KaTeX into every .math element (inline) and .math-block (display).
// Math is typeset as it comes near the screen, not all at once: typesetting the whole article
// is hundreds of milliseconds of main-thread work on a slow machine, at the moment Python is
// starting in the worker and the control panel wants to draw. Until then a formula shows its
// TeX source (real text, so find-in-page and screen readers still have it).
export function typesetAll(root) {
  const render = (n) => {
    if (n.dataset.tex) return;
    n.dataset.tex = n.textContent;
    window.katex.render(n.textContent, n, { displayMode: n.classList.contains("math-block"), throwOnError: false });
  };
  const run = () => {
    if (!window.katex) return;
    const nodes = root.querySelectorAll(".math, .math-block");
    if (!window.IntersectionObserver) { nodes.forEach(render); return; }
    const io = new IntersectionObserver((entries) => {
      for (const en of entries) if (en.isIntersecting) { io.unobserve(en.target); render(en.target); }
    }, { rootMargin: "1200px 0px" });
    nodes.forEach((n) => { if (!n.dataset.tex) io.observe(n); });
  };
  if (window.katex) run();
  else window.addEventListener("load", run, { once: true });
}

export function tex(node, src, display = false) {
  if (window.katex) window.katex.render(src, node, { displayMode: display, throwOnError: false });
  else node.textContent = src;
}

// Show an error message right next to the control it concerns; clear it with msg = "".
export function fieldError(control, msg) {
  let box = control.parentElement.querySelector(":scope > .field-error");
  if (!box) {
    box = el("span", { class: "field-error", role: "alert" });
    control.insertAdjacentElement("afterend", box);
  }
  box.textContent = msg;
  box.hidden = !msg;
  control.classList.toggle("invalid", !!msg);
  control.setAttribute("aria-invalid", msg ? "true" : "false");
}

// Read a number box. Returns the number, or null after showing why beside the box: an empty box
// is a message, never 0.
export function readNumber(input, { label, min = -Infinity, max = Infinity, integer = false, allowZero = true }) {
  const raw = input.value.trim();
  const v = Number(raw);
  let msg = "";
  if (raw === "") msg = `${label}: type a number`;
  else if (!Number.isFinite(v)) msg = `${label}: “${raw}” is not a number`;
  else if (integer && !Number.isInteger(v)) msg = `${label}: a whole number, please`;
  else if (v < min || v > max) msg = `${label}: use ${min} to ${max}`;
  else if (!allowZero && v === 0) msg = `${label}: 0 is not allowed here`;
  fieldError(input, msg);
  return msg ? null : v;
}

// Words for errors that are not about one field: never a raw exception in the page.
export function friendly(e) {
  if (!e) return "Something went wrong.";
  if (e.type === "Stopped") return e.message;
  if (e.type === "InputError") return e.message;
  if (e.type && e.type !== "WorkerError") {
    console.error(`[decodelab] ${e.type}: ${e.message}\n${e.trace || ""}`);
    return `The engine hit a problem it did not expect (${e.type}). Try other values; the details are in the browser's console.`;
  }
  return e.message || String(e);
}

// Route an error to the field it names (fields: {name: input}), else to the status line.
export function showError(e, fields, status) {
  const target = e && e.field ? fields[e.field] : null;
  if (target) fieldError(target, e.message);
  else if (status) setStatus(status, friendly(e), true);
}

export function setStatus(status, msg, isError = false) {
  status.textContent = msg;
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
    if (!isReady()) buttons[0].textContent = "waiting for the engine…";
    try {
      if (shown && status) { setStatus(status, ""); shown = false; }
      return await fn();
    } catch (e) {
      showError(e, fields, status);
      shown = !(e && e.field && fields[e.field]);
      return undefined;
    } finally {
      // a button marked unavailable (its widget lost a part it needs) stays off
      buttons.forEach((b, i) => { b.disabled = Boolean(b.dataset.unavailable); b.removeAttribute("aria-busy"); b.classList.remove("busy"); b.textContent = labels[i]; });
      running = false;
      if (waiting) { const next = waiting; waiting = null; next(); }
    }
  }
  return run;
}

// For controls that fire many events (sliders): at most one call in flight; while it runs, only
// the newest request is kept, and it runs when the current one ends.
export function latest(fn) {
  let inFlight = false, next = null;
  return function request(...args) {
    if (inFlight) { next = args; return; }
    inFlight = true;
    Promise.resolve(fn(...args)).catch(() => {}).finally(() => {
      inFlight = false;
      if (next) { const a = next; next = null; request(...a); }
    });
  };
}

// A labelled slider with a number box beside it, kept in step. onChange fires on either.
export function sliderRow({ id, label, min, max, step, value, hint = "", onChange }) {
  const slider = el("input", { type: "range", id, min, max, step, value, "aria-label": label });
  const num = el("input", { type: "number", id: `${id}-num`, min, max, step, value, "aria-label": `${label} value` });
  slider.addEventListener("input", () => { num.value = slider.value; fieldError(num, ""); onChange && onChange(); });
  num.addEventListener("input", () => {
    if (num.value !== "" && Number.isFinite(Number(num.value))) slider.value = num.value;
    onChange && onChange();
  });
  const row = el("div", { class: "slider-row" }, el("label", { class: "slider-label", for: id, text: label }), slider,
    el("span", { class: "num-wrap" }, num), el("span", { class: "hint", text: hint }));
  return { row, slider, num };
}

// Run fn once when node first scrolls into view after the engine is ready (widgets that show a
// result without a click).
export function whenSeen(node, fn) {
  let armed = false;
  on("ready", () => {
    if (armed) return; // once per page, not again after a restart
    armed = true;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((en) => en.isIntersecting)) { io.disconnect(); fn(); }
    }, { rootMargin: "200px" });
    io.observe(node);
  });
}
