// The page's languages: which one the reader reads, its text (web/i18n/LANG.json, built from
// LANG.txt), how it writes numbers and plurals, and switching without reloading the engine.
//
// Written by hand, not with a message-format library: the browser's own Intl does the hard
// parts (plural rules, number formats), and what is left is a {name} filler of a few lines.
//
// Text in the page comes in two kinds:
// - elements marked data-t="KEY" (the prose in index.html, labels widgets build): their content
//   is the entry's HTML, its {names} filled from data-t-args (JSON), HTML-escaped; an attribute
//   data-t-NAME="KEY" sets the attribute NAME (aria-label, title, placeholder);
// - t(KEY, args): plain text for code that builds a readout or a message.
// A switch re-renders the first kind itself and tells the rest through onLang(fn).
// A key the language lacks shows as ⟦KEY⟧ and is counted in window.__i18nMissing (the tests
// fail on it): a missing text is never silently filled with another language's.

export const LANGS = ["en", "ru", "vi"];
export const LANG_NAMES = { en: "English", ru: "Русский", vi: "Tiếng Việt" };

let lang = "en";
let dict = {};
const dicts = {};
const listeners = [];
// globalThis, not window: the build formats the live numbers with this module in Node
// (decodelab_tools/node/firstpaint.mjs), where there is no window
const missing = (globalThis.__i18nMissing = globalThis.__i18nMissing || []);

// boot.js chose the language (URL, then the reader's earlier choice, then the browser's) and
// began fetching its text before anything else loaded.
const early = globalThis.__decodelabLang || {};

function fetchDict(l) {
  if (!dicts[l]) {
    dicts[l] = (l === early.lang && early.text ? early.text : fetchText(l)).catch((e) => {
      delete dicts[l];
      throw e;
    });
  }
  return dicts[l];
}

function fetchText(l) {
  return fetch(new URL(`i18n/${l}.json`, document.baseURI), { cache: "no-cache" }).then((r) => {
    if (!r.ok) throw new Error(`i18n/${l}.json: HTTP ${r.status}`);
    return r.json();
  });
}

export const currentLang = () => lang;

// The build's way in (Node, no page): format in language l with its text d.
export function useText(l, d) {
  lang = l;
  dict = d;
}

// ---- numbers -------------------------------------------------------------------------------
const numFormats = new Map();
function nf(opts) {
  const k = lang + JSON.stringify(opts);
  if (!numFormats.has(k)) numFormats.set(k, new Intl.NumberFormat(lang, opts));
  return numFormats.get(k);
}
// Fixed and plain numbers are written here, not by Intl.NumberFormat: the page's first
// NumberFormat loads the browser's number data, a long task's worth on a phone (21 ms on this
// machine, 85 at Lighthouse's slowdown, in the opening figure's mount). The rules are Intl's, and
// tests/test_i18n.py checks them against Intl in Node over hundreds of values: the shortest
// decimal form of x rounded half away from zero, the language's decimal mark (DECIMAL_MARKS
// below) and its digit groups (GROUPING: the separator, and from how many integer digits it
// groups).
export const GROUPING = { en: [",", 4], ru: ["\u00a0", 4], vi: [".", 4] };

// [integer digits, fraction digits] of |x| rounded to `digits` decimals, or null where the
// shortest form has an exponent of 21 or more
function decimalDigits(x, digits) {
  const a = Math.abs(x);
  let text = String(a);
  if (text.includes("e")) { // 8.66e-7 -> 0.000000866: the same digits, written out
    if (a >= 1) return null;
    const [mantissa, exp] = text.split("e");
    text = "0." + "0".repeat(-Number(exp) - 1) + mantissa.replace(".", "");
  }
  const [int, frac = ""] = text.split(".");
  if (frac.length <= digits) return [int, frac.padEnd(digits, "0")];
  let all = int + frac.slice(0, digits);
  if (frac.charCodeAt(digits) >= 53) { // the first digit cut is 5 or more: carry one up
    const ds = all.split("");
    let i = ds.length - 1;
    while (i >= 0 && ds[i] === "9") ds[i--] = "0";
    if (i < 0) ds.unshift("1"); else ds[i] = String(Number(ds[i]) + 1);
    all = ds.join("");
  }
  return [all.slice(0, all.length - digits) || "0", digits ? all.slice(-digits) : ""];
}

function written(x, digits, trimZeros, grouped = true) {
  const d = Number.isFinite(x) ? decimalDigits(x, digits) : null;
  if (!d) return nf(trimZeros ? { maximumFractionDigits: digits } : { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
  let [int, frac] = d;
  if (trimZeros) frac = frac.replace(/0+$/, "");
  const [sep, from] = GROUPING[lang] || GROUPING.en;
  if (grouped && int.length >= from) int = int.replace(/\B(?=(\d{3})+$)/g, sep);
  const negative = x < 0 || Object.is(x, -0); // Intl keeps the sign of what rounds to zero: "-0.00"
  return (negative ? "-" : "") + int + (frac ? decimalMark(lang) + frac : "");
}

// x with exactly `digits` decimals, as Intl writes it in the page's language
export function fixed(x, digits = 0) {
  return written(x, digits, false);
}
// x as it is, up to `max` decimals (0.95 -> "0,95" in ru)
export function plain(x, max = 6) {
  return written(x, max, true);
}
// x rounded to a whole number, its digits not grouped (a matrix's shape: 1024 × 256)
export function ungrouped(x) {
  return Number.isFinite(x) && Math.abs(x) < 1e21 ? written(x, 0, true, false) : nf({ useGrouping: false, maximumFractionDigits: 0 }).format(x);
}
// 2 significant digits and so on (toPrecision without the exponent), trailing zeros dropped, as
// Intl's maximumSignificantDigits writes it: as many decimals as the digits reach below the
// point, then plain's rounding. By hand for the same reason as fixed: the panel's first small
// probability was the page's first NumberFormat. Where the digits stop above the point and a
// digit past them must be rounded away (12345 to 2 digits) Intl writes it.
export function precision(x, digits) {
  const a = Math.abs(x);
  const d = Number.isFinite(x) && a < 1e21 ? decimalDigits(a, 400) : null; // every digit, unrounded
  if (d) {
    const [int, frac] = d;
    const exponent = int !== "0" ? int.length - 1 : a === 0 ? 0 : -(frac.search(/[1-9]/) + 1);
    const decimals = digits - 1 - exponent;
    if (decimals >= 0) return written(x, decimals, true);
    // digits that stop above the point: by hand too where nothing past them needs rounding (150
    // to 2 digits), which is what fmtBig asks for
    if (/^0*$/.test(frac) && /^0*$/.test(int.slice(digits))) return written(x, 0, true);
  }
  return nf({ maximumSignificantDigits: digits }).format(x);
}

// ---- numbers the reader types -------------------------------------------------------------
// The language's decimal mark, as Intl writes it (tests/test_i18n_js.py checks the table against
// Intl in Node). A table, not Intl at mount: the page's first Intl.NumberFormat loads the browser's
// number data, 25 ms here (100 on Lighthouse's phone), and every number box asks at mount, inside
// the panel's mount task; the first number the panel formats pays it later, in a task of its own.
export const DECIMAL_MARKS = { en: ".", ru: ",", vi: "," };
const marks = new Map(Object.entries(DECIMAL_MARKS));
export function decimalMark(l = lang) {
  if (!marks.has(l)) marks.set(l, new Intl.NumberFormat(l).formatToParts(1.5).find((p) => p.type === "decimal")?.value || ".");
  return marks.get(l);
}

// What a number box holds, as a number: either decimal mark ("0,7" and "0.7" alike, whatever the
// page's language), an exponent ("1e-5"), a sign, and spaces between digit groups ("4 294 967 295",
// thin and no-break spaces too). NaN for anything else, so the box can say why; never a number
// made by dropping a character the reader typed.
export function parseDecimal(raw) {
  let s = String(raw).trim().replace(/[\u2212\u2013]/g, "-"); // a typographic minus
  if (/^[+-]?\d{1,3}([ \u00a0\u202f]\d{3})+([.,]\d*)?$/.test(s)) s = s.replace(/[ \u00a0\u202f]/g, "");
  if (!/^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$/.test(s)) return NaN;
  return Number(s.replace(",", "."));
}

// A number as a box shows it in the page's language: no grouping, the language's decimal mark.
export function decimalText(v, l = lang) {
  return Number.isFinite(v) ? String(v).replace(".", decimalMark(l)) : "";
}

// A list of numbers typed in one box ("0.5, 0.3, 0.2"; ru "0,5; 0,3; 0,2" or "0,5 0,3 0,2").
// Items are split on ";", spaces, and commas followed by a space; a comma inside an item is a
// decimal mark where the page writes one (ru, vi: "0,5") and the item holds no ".", and a
// separator otherwise ("0.5,0.3", and in en "0,5,0,3"). Items that are not numbers come back as null.
export function parseDecimalList(raw) {
  const items = String(raw).split(/;|\s+|,(?=\s)/).filter(Boolean).flatMap((item) => {
    const commaDecimal = decimalMark() === "," && !item.includes(".") && (item.match(/,/g) || []).length === 1;
    return commaDecimal ? [item] : item.split(",").filter(Boolean);
  });
  return items.map((v) => { const x = parseDecimal(v); return Number.isFinite(x) ? x : null; });
}

// ---- plural forms and {name} filling -------------------------------------------------------
// The form follows the number as shown: "1.00 nats", ru "1,00 ната" (CLDR counts the visible
// decimals), so a number written with d decimals is chosen with d decimals.
const pluralRules = new Map();
function pluralOf(n, digits = 0) {
  const k = `${lang}:${digits}`;
  if (!pluralRules.has(k)) pluralRules.set(k, new Intl.PluralRules(lang, { minimumFractionDigits: digits }));
  return pluralRules.get(k).select(n);
}

const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

// One argument as text: numbers as the language writes them, a nested message (an error's
// payload inside another) rendered in turn, strings as they are.
// {value, fixed: d} is a number with d decimals; {num, text, digits} a number already written
// (plural forms choose by num, shown with `digits` decimals).
function argText(v) {
  if (typeof v === "number") return Number.isFinite(v) ? plain(v) : "–";
  if (Array.isArray(v)) return v.map(argText).join("; ");
  if (v && typeof v === "object") {
    if (typeof v.key === "string") return t(v.key, v.args || {});
    if ("fixed" in v) return Number.isFinite(v.value) ? fixed(v.value, v.fixed) : "–";
    if ("text" in v) return String(v.text);
  }
  return v == null ? "" : String(v);
}

// {n} -> the argument; {n|one:# token|other:# tokens} -> the plural form, # = the number.
// `esc` escapes arguments for HTML (entries for data-t elements are HTML themselves).
function fill(template, args, esc) {
  return template.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)(\|[^{}]*)?\}/g, (all, name, forms) => {
    if (!(name in args)) return all;
    const v = args[name];
    const text = esc ? escapeHtml(argText(v)) : argText(v);
    if (!forms) return text;
    const byCat = {};
    for (const f of forms.slice(1).split("|")) {
      const i = f.indexOf(":");
      byCat[f.slice(0, i)] = f.slice(i + 1);
    }
    const n = v && typeof v === "object" ? (v.num ?? v.value) : Number(v);
    const digits = v && typeof v === "object" ? (v.fixed ?? v.digits ?? 0) : 0;
    const form = byCat[pluralOf(n, digits)] ?? byCat.other ?? "";
    return form.replace(/#/g, () => text);
  });
}

function entry(key) {
  if (key in dict) return dict[key];
  if (!missing.includes(`${lang}:${key}`)) missing.push(`${lang}:${key}`);
  return `⟦${key}⟧`;
}

// Plain text of an entry, arguments filled in (for textContent, aria labels, messages).
export function t(key, args = {}) {
  return fill(entry(key), args, false);
}

// Does this language have the entry? (for optional texts, e.g. an error without its own message)
export const has = (key) => key in dict;
// A pinned number as the build wrote it in this language (LANG.json's __pinned: firstpaint.lang_json),
// for spans outside any entry, such as table cells
export const pinnedNumber = (key) => (dict.__pinned || {})[key];
// A measured number as the build's own browser measured it, in this language (LANG.json's __built:
// build.py step_first_frames), shown until this browser measures its own
export const builtNumber = (key) => (dict.__built || {})[key];

// ---- the page ------------------------------------------------------------------------------
// Fill every data-t element and data-t-NAME attribute under root.
export function apply(root = document) {
  const nodes = root.querySelectorAll ? [...root.querySelectorAll("[data-t]")] : [];
  if (root.dataset && root.dataset.t) nodes.unshift(root);
  const done = new Set();
  const fillNode = (n) => {
    if (done.has(n)) return;
    done.add(n);
    const args = n.dataset.tArgs ? JSON.parse(n.dataset.tArgs) : {};
    const html = fill(entry(n.dataset.t), args, true);
    if (n.innerHTML !== html) {
      n.innerHTML = html;
      delete n.dataset.tex; // a formula's new source is typeset again (ui.js typesetAll)
      for (const inner of n.querySelectorAll("[data-t]")) fillNode(inner); // a text inside a text
    }
  };
  nodes.forEach(fillNode);
  const sel = ATTRS.map((a) => `[data-t-${a}]`).join(",");
  const withAttrs = root.querySelectorAll ? [...root.querySelectorAll(sel)] : [];
  if (root.matches && root.matches(sel)) withAttrs.push(root);
  for (const n of withAttrs) {
    for (const a of ATTRS) {
      const key = n.getAttribute(`data-t-${a}`);
      if (key) n.setAttribute(a, t(key, n.dataset.tArgs ? JSON.parse(n.dataset.tArgs) : {}));
    }
  }
}
const ATTRS = ["aria-label", "title", "placeholder", "alt", "content"]; // content: the head's description for search and link previews

export function onLang(fn) {
  listeners.push(fn);
}

// What every widget and diagram does with its last result: show(data, ...more) draws it and keeps
// it, and a language switch draws the kept data again (labels and numbers are the language's),
// unless unless() says the widget now shows something else, such as an error message, which stays.
// show.forget() drops the kept data (the readout holds a message now).
export function redrawOnLang(draw, { unless = () => false } = {}) {
  let last = null;
  onLang(() => { if (last != null && !unless()) draw(last); });
  const show = (data, ...more) => { last = data; return draw(data, ...more); };
  show.forget = () => { last = null; };
  return show;
}

function remember(l) {
  try { localStorage.setItem("decodelab.lang", l); } catch { /* private mode: the URL still says it */ }
  const url = new URL(location.href);
  if (url.searchParams.get("lang") !== l) {
    url.searchParams.set("lang", l);
    history.replaceState(history.state, "", url);
  }
}

// Load a language's text and make it the page's. Throws (with the file named) if it cannot load.
let switches = 0; // a later switch wins over an earlier one whose file arrives after it
export async function setLang(l, { first = false, keep = true } = {}) {
  if (!LANGS.includes(l)) l = "en";
  const mine = ++switches;
  const d = await fetchDict(l);
  if (mine !== switches) return;
  const changed = l !== lang || first;
  lang = l;
  dict = d;
  // only when it changes: setting it, even to the same value, restyles every element the :lang()
  // rules could match (a 20 ms style-and-layout task at load, in a trace)
  if (document.documentElement.lang !== l) document.documentElement.lang = l;
  if (keep) remember(l);
  if (!changed) return;
  apply(document);
  for (const fn of listeners) {
    try { fn(l); } catch (e) { console.error("[decodelab] re-rendering after a language switch:", e); }
  }
}

// The page's first language: boot.js's choice. If its file cannot load, English (its text is in
// the page already) with a line saying so, rather than a page of ⟦keys⟧.
export async function startLang() {
  const want = early.lang || "en";
  try {
    await setLang(want, { first: want !== (early.htmlLang || "en") });
    return null;
  } catch (e) {
    if (want === "en") throw e;
    await setLang("en", { keep: false }); // the reader's choice stays theirs: next visit tries again
    return t("ui.lang_failed", { lang: LANG_NAMES[want], why: e.message });
  } finally {
    document.documentElement.removeAttribute("data-lang-pending");
  }
}
