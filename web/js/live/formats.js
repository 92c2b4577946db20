// The live numbers' formats, one per kind, in the reader's language (i18n.js writes the digits:
// decimal comma in ru and vi, their grouping; the words around them are text entries). The prose,
// the widgets' readouts and the build (in Node, for the HTML's first paint) all format with these.
// DOM-free: a token is returned as {tokens: [text, ...]}, which live.js turns into <code> elements
// and the build into their HTML.
import { t, fixed, plain, precision, ungrouped } from "../i18n.js";

export const bad = (x) => x == null || (typeof x === "number" && !Number.isFinite(x));

// A token as the reader should see it in a label: every space as ␣ (so " girl" reads ␣girl and
// the space token is not blank), newlines and tabs as visible marks, the end token as "⟨end⟩".
// The text is shown as it is, never JSON-escaped (\" or \n never reach the page).
export const END_TEXT = "<|endoftext|>";
export function tokenLabel(text) {
  if (text === END_TEXT) return "⟨end⟩";
  return text.replace(/ /g, "␣").replace(/\n/g, "⏎").replace(/\t/g, "⇥");
}

// ---- chapter 1's kinds (ui.js re-exports them for the widgets) ---------------------------------
// ---- number formats for the prose: one rule per kind, shared by every live number ----------
// The digits follow the reader's language (i18n.js: decimal comma in ru and vi, its grouping);
// the words around them ("times", "million", "nats") are entries of the text files (fmt.*).
const SUP = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹", "+": "" };
// a number that picks a plural form by its value and shows as `text`
const counted = (num, text, digits = decimals(num)) => ({ num, text, digits });
// how many decimals a number shows when written as it is (3.1 -> 1), for its plural form
export const decimals = (x) => (String(x).split(".")[1] || "").length;

// 10⁻⁴ (a power of ten, its exponent in superscript; 10⁰ is written 1): an axis's tick, a mantissa's power
export const tenTo = (e) => (e === 0 ? "1" : `10${String(e).replace(/[-+0-9]/g, (c) => SUP[c])}`);

// 2.1 × 10⁻⁸ (a number too small for a percentage to read)
export function fmtTenPower(x) {
  const [m, e] = x.toExponential(1).split("e");
  return `${fixed(Number(m), 1)} × ${tenTo(Number(e))}`;
}

const pct = (digitsText) => t("fmt.pct", { x: digitsText });

// A probability: 1 decimal from 1%, 2 decimals from 0.1%, then 2 significant digits; below one
// in a million as a power of ten. Just under 100% never rounds up to "100.0%".
export function fmtPct(p) {
  if (bad(p)) return "–";
  if (p > 0 && p < 1e-6) return fmtTenPower(p);
  if (p === 1) return pct(fixed(100, 0));
  const x = 100 * p;
  if (p >= 0.01) {
    for (let d = 1; d <= 4; d++) if (p >= 1 || x.toFixed(d) !== (100).toFixed(d)) return pct(fixed(x, d));
    return ">" + pct(fixed(99.99, 2));
  }
  if (p >= 0.001) return pct(fixed(x, 2));
  return pct(p === 0 ? fixed(0, 0) : precision(x, 2));
}

// A ratio without its unit: 3.1, 31, 331, 4,200, 31 million, 4.2 billion.
export function fmtBig(r) {
  if (bad(r)) return "–";
  if (r < 99.5) return precision(Number(r.toPrecision(2)), 2);
  if (r < 999_500) return fixed(Math.round(r), 0);
  for (const [v, w] of [[1e12, "fmt.trillion"], [1e9, "fmt.billion"], [1e6, "fmt.million"]]) {
    if (r >= v * 0.9995 && r < v * 999.5) {
      const m = Number((r / v).toPrecision(2));
      return t(w, { n: counted(m, precision(m, 2)) });
    }
  }
  return fmtTenPower(r);
}
// "3.1 times" (ru "в 3,1 раза": the plural form follows the number)
export const fmtTimes = (r) => (bad(r) ? "–" : t("fmt.times", { n: counted(r < 99.5 ? Number(r.toPrecision(2)) : Math.round(r), fmtBig(r)) }));
export const fmtCount = (x) => (bad(x) ? "–" : fixed(Math.round(x), 0));
// a count with its noun in the form the number takes ("58 tokens", «58 токенов», «21 токен»): the
// noun comes with the number, so no language's prose has to agree with a number it cannot see
export const countOf = (key) => (x) => (bad(x) ? "–" : t(key, { n: { num: Math.round(x), text: fixed(Math.round(x), 0) } }));
// effective choices (e^H): one decimal below 100, then a whole number
export const fmtEff = (x) => (bad(x) ? "–" : x < 99.95 ? fixed(x, 1) : fixed(Math.round(x), 0));
export const fmtNats = (x) => (bad(x) ? "–" : t("fmt.nats", { n: counted(Number(x.toFixed(2)), fixed(x, 2), 2) }));
export const fmtFixed = (digits) => (x) => (bad(x) ? "–" : fixed(x, digits));
export const fmtShare = (x) => (bad(x) ? "–" : pct(fixed(Math.round(100 * x), 0)));
export const fmtInterval = ([a, b]) => t("fmt.interval", { a: a === 0 ? fixed(0, 0) : fixed(a, 3), b: fixed(b, 3) });

// A small probability of something over many steps, in words: "about 1 in 3,300".
export function fmtChance(x) {
  if (bad(x)) return "–";
  if (x >= 0.01) return fmtPct(x);
  if (x < 1e-9) return t("fmt.chance_tiny");
  const n = Number((1 / x).toPrecision(2));
  return t("fmt.chance", { n: counted(n, fixed(n, 0)) });
}


// x with d significant digits, as toPrecision writes them (trailing zeros kept, an exponent past
// d digits), in the reader's language
export function sig(x, d) {
  if (x === 0) return fixed(0, d - 1);
  const [m, e] = x.toExponential(d - 1).split("e");
  const ex = Number(e);
  if (ex < -6 || ex >= d) return `${fixed(Number(m), d - 1)}e${e}`;
  return fixed(x, d - 1 - ex);
}
// a whole number without grouping (a matrix shape: 1024 × 256)
export const whole = (x) => ungrouped(x);
export const shape = (r, c) => t("w2.fmt.shape", { r: whole(r), c: whole(c) });
// a number shown as `text`, its plural form chosen by `num` (as a whole number)
const shownAs = (num, text) => ({ num, text });
const unit = (key, x, text) => t(key, { n: shownAs(x, text) });

// tokens in running text: ␣girl (live.js and the build make the <code> of each)
export const tok = (text) => ({ tokens: [text] });
export const toks = (texts) => ({ tokens: texts });

// the model's parameter count, in millions with d decimals ("2.9 million")
export const millions = (d) => (x) => {
  if (bad(x)) return "–";
  const m = Number((x / 1e6).toFixed(d));
  return t("fmt.million", { n: { num: m, text: fixed(m, d) } });
};

// ---- chapter 2's kinds (by name: KIND tables say "bytes", "times", ...) -------------------------
export const f2 = {
  int: (x) => fixed(Math.round(x), 0),
  macs: (x) => (x >= 1e9 ? t("fmt.billion", { n: shownAs(x / 1e9, sig(x / 1e9, 3)) })
    : x >= 1e6 ? t("fmt.million", { n: shownAs(x / 1e6, sig(x / 1e6, 3)) }) : fixed(Math.round(x), 0)),
  bytes: (x) => (x >= 2 ** 20 ? unit("w2.unit.mib", x / 2 ** 20, fixed(x / 2 ** 20, 2))
    : x >= 1024 ? unit("w2.unit.kib", x / 1024, fixed(x / 1024, 1)) : unit("w2.unit.bytes", x, fixed(x, 0))),
  // "3.21 times" (ru "в 3,21 раза": the form follows the number as shown)
  times: (x) => unit("w2.fmt.times", x < 100 ? x : Math.round(x), x < 10 ? sig(x, 3) : x < 100 ? fixed(x, 1) : fixed(x, 0)),
  pct: (x) => { const p = 100 * x; return t("fmt.pct", { x: p >= 10 ? fixed(p, 0) : p >= 1 ? fixed(p, 1) : sig(p, 2) }); },
  nats: (x) => fixed(x, 3),
  dnats: (x) => `${x < 0 ? "\u2212" : "+"}${f2.nats_abs(x)}`,
  // below 0.0001 two significant digits: a difference of 0.00001 is not "0.0000" (nor "−0.0000")
  nats_abs: (x) => (Math.abs(x) >= 0.01 ? fixed(Math.abs(x), 3) : Math.abs(x) >= 1e-4 ? fixed(Math.abs(x), 4) : sig(Math.abs(x), 2)),
  w: (x) => sig(x, 3),
  parts: (e) => {
    if (e === 0) return t("w2.fmt.parts_none");
    const n = 1 / e;
    return n >= 1e6 ? t("w2.fmt.parts_million", { n: shownAs(n / 1e6, sig(n / 1e6, 3)) })
      : t("w2.fmt.parts", { n: plain(Number(n.toPrecision(2))) });
  },
  us: (x) => (x < 1000 ? unit("w2.unit.us", x, sig(x, 3)) : unit("w2.unit.ms", x / 1000, sig(x / 1000, 3))),
  g: (x) => fixed(x, 1),
  tps: (x) => fixed(Math.round(x), 0),
  ms2: (x) => unit("w2.unit.ms", x, sig(x, 2)),
  bits2: (x) => fixed(x, 2),
  gib: (x) => {
    const [v, k] = x >= 2 ** 30 ? [x / 2 ** 30, "w2.unit.gib"] : x >= 2 ** 20 ? [x / 2 ** 20, "w2.unit.mib"] : [x / 1024, "w2.unit.kib"];
    const r = Number(v.toPrecision(3));
    return unit(k, r, plain(r));
  },
  // decimal units (GB, MB), beside a cited figure that data sheets give in decimal gigabytes
  gb: (x) => {
    const [v, k] = x >= 1e9 ? [x / 1e9, "w2.unit.gb"] : [x / 1e6, "w2.unit.mb"];
    const r = Number(v.toPrecision(3));
    return unit(k, r, plain(r));
  },
  words: (x) => (Number.isInteger(x) && x >= 0 && x <= 10 ? t(`w2.num.${x}`) : fixed(x, 0)),
};

// "8, 6 and 5" (numbers in a list, in the reader's words)
export function numberList(ns) {
  const s = ns.map((x) => fixed(x, 0));
  return s.length === 1 ? s[0] : s.slice(0, -1).join(t("fmt.list_comma")) + t("fmt.list_and") + s[s.length - 1];
}
// "8, 6 and 5 bits" (the depths the export measured, from 8 down)
export function depthList(bs) {
  if (!bs || !bs.length) return t("w2.bits.no_depth");
  return t("w2.bits.depths", { list: numberList(bs), n: bs[bs.length - 1] });
}

// ---- chapter 3's kinds --------------------------------------------------------------------------
export const f3 = {
  fix: (d) => (x) => (bad(x) ? "–" : fixed(x, d)),
  // up to d decimals, trailing zeros dropped (0.10 -> 0.1)
  trim: (d) => (x) => (bad(x) ? "–" : plain(parseFloat(x.toFixed(d)), d)),
  pct: (d) => (x) => (bad(x) ? "–" : t("fmt.pct", { x: fixed(100 * x, d) })),
  int: (x) => (bad(x) ? "–" : fixed(Math.round(x), 0)),
  range: (d) => ([lo, hi]) => (bad(lo) || bad(hi) ? "–" : fixed(lo, d) === fixed(hi, d) ? fixed(lo, d) : `${fixed(lo, d)}–${fixed(hi, d)}`),
  // a time in µs: whole numbers from 10, one decimal below
  micro: (x) => (bad(x) ? "–" : x >= 10 ? fixed(x, 0) : fixed(x, 1)),
};

// a value in words: a text key and its arguments (rendered in the reader's language when shown)
export const words = (key, args = {}) => ({ key, args });

// One rule for "larger than / about the same size as / smaller than" between two sizes (the KV
// cache against the weights, in the prose and in the race's readout): within 10 % is the same size.
export const SAME_SIZE_WITHIN = 0.1;
export function sizeComparison(ratio) {
  if (Math.abs(ratio - 1) < SAME_SIZE_WITHIN) return "w2.live.same_size";
  return ratio > 1 ? "w2.live.larger" : "w2.live.smaller";
}

// A story coloured by how likely each token was when drawn (the opening figure): the bands of p,
// at or above each edge the classes tok-p4 .. tok-p1, below the last tok-p0. One rule for the
// built page (node/firstpaint.mjs), the page's live.js and the figure itself (diagrams/opening.js).
export const STORY_BANDS = [0.8, 0.5, 0.2, 0.05];
export const storyBand = (p) => 4 - STORY_BANDS.filter((b) => p < b).length;
// the registry's format for a story: {story: [{text, p}]} as it is (live.js and the build draw it)
export const story = (v) => v;
