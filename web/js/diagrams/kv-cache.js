// The KV cache, read from the kernel after the reference opening (fig_kv): for every layer a table
// of keys and one of values, a row per token and a cell per head, tinted by the size of the cached
// vector; the causal triangle of which position attends to which; and, for the step shown, what a
// cached step computes (one new row per table, outlined) and what it reads (every row so far: an
// arrow from the new row up to the first). The reader steps through the opening's tokens.
import { call } from "../engine.js";
import { el, showError, whenSeen, setStatus } from "../ui.js";
import { t } from "../i18n.js";
import { f2, tokenLabel } from "../live/formats.js";
import { FIGURES } from "../live/examples.js";
import { svg, picture, redrawOnLang } from "./svg.js";

const ROW = 18, TOK_W = 70, HEAD_Y = 34;
// a cached vector's size as one of five tints (classes, not styles: the page's CSP), scaled per table
const TINTS = 5;
const tint = (v, top) => Math.min(TINTS, 1 + Math.floor(TINTS * v / (top || 1) - 1e-9));

// Every layer's keys and values, one row per token so far and one cell per head (the size of that
// head's cached vector). The newest row is outlined; a bracket beside each layer's keys marks the
// rows the new token reads: all of them, its own included. Three layers a line on a phone.
function tables(f, step, width) {
  const perLine = width >= 700 ? f.n_layers : Math.ceil(f.n_layers / 2), lines = Math.ceil(f.n_layers / perLine);
  const layerW = (width - TOK_W) / perLine, blockW = (layerW - 18) / 2, cell = blockW / f.n_heads;
  const lineH = HEAD_Y + step * ROW + 14, H = lines * lineH;
  const s = picture(width, H, t("fig.kv.tables_aria", { n: step, L: f.n_layers, d: f.d_model, h: f.n_heads }), "kv-tables");
  s.setAttribute("width", width); s.setAttribute("height", H);
  const top = { k: Math.max(...f.key_size.flat(2)), v: Math.max(...f.value_size.flat(2)) };
  for (let line = 0; line < lines; line++) {
    const y0 = line * lineH;
    for (let r = 0; r < step; r++) {
      s.append(svg("text", { x: TOK_W - 8, y: y0 + HEAD_Y + r * ROW + 13, class: `dg-token${r === step - 1 ? " dg-now" : ""}`,
        "text-anchor": "end", text: tokenLabel(f.tokens[r]) }));
    }
    for (let j = 0; j < perLine && line * perLine + j < f.n_layers; j++) {
      const l = line * perLine + j, x0 = TOK_W + j * layerW + 8;
      s.append(svg("text", { x: x0, y: y0 + 12, class: "dg-label", text: t("fig.kv.layer_n", { l: l + 1 }) }));
      [["k", f.key_size[l], "fig.kv.k"], ["v", f.value_size[l], "fig.kv.v"]].forEach(([kind, rows, key], b) => {
        const bx = x0 + b * (blockW + 6);
        // the words where they fit, the symbols K and V (as the formulas write them) where they do not
        s.append(svg("text", { x: bx, y: y0 + 27, class: "dg-small", text: blockW >= 48 ? t(key) : kind.toUpperCase() }));
        for (let r = 0; r < step; r++) {
          const y = y0 + HEAD_Y + r * ROW;
          rows[r].forEach((v, h) => s.append(svg("rect", { x: bx + h * cell, y: y + 1, width: Math.max(1, cell - 1), height: ROW - 3,
            class: `kv-cell kv-${kind} kv-t${tint(v, top[kind])}` })));
          if (r === step - 1) s.append(svg("rect", { x: bx - 1, y: y, width: blockW + 1, height: ROW - 1, class: "kv-newrow" }));
        }
      });
      // the new token's query reads every key so far: an arrow from its own row up to the first,
      // along every row it reads (design re-review: a bracket alone did not say who reads whom)
      const yA = y0 + HEAD_Y + 2, yB = y0 + HEAD_Y + step * ROW - 3;
      s.append(svg("path", { class: "kv-reads", d: `M${x0 - 2},${yB} h-4 V${yA} h4` }));
      s.append(svg("path", { class: "kv-reads-head", d: `M${x0 - 6},${yA - 1} l-3.5,6 h7 z` }));
    }
  }
  return s;
}

// the causal triangle: row i (a query) attends to columns 0..i (the keys so far)
function triangle(f, step) {
  const n = f.tokens.length, cell = Math.min(20, 180 / n), pad = 20;
  const W = pad + n * cell + 4, H = pad + n * cell + 4;
  const s = picture(W, H, t("fig.kv.triangle_aria", { n: step }), "kv-triangle");
  s.append(svg("text", { x: pad, y: 12, class: "dg-small", text: t("fig.kv.reads") }));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const cls = i >= step ? "tri-later" : i === step - 1 ? "tri-now" : "tri-done";
      s.append(svg("rect", { x: pad + j * cell, y: pad + i * cell, width: cell - 1, height: cell - 1, class: cls }));
    }
  }
  return s;
}

export function mountKvCache(root) {
  const body = root.querySelector(":scope > .diagram-body") || root.appendChild(el("div", { class: "diagram-body" }));
  const pics = el("div", { class: "kv-pics" });
  const note = el("p", { class: "diagram-note", id: "fig-kv-note" });
  const next = el("button", { id: "fig-kv-next", t: "fig.kv.next", disabled: true });
  const again = el("button", { class: "secondary", id: "fig-kv-again", t: "fig.kv.again", disabled: true });
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  body.replaceChildren(pics, note, el("div", { class: "controls" }, next, again), status);
  // it opens one token short of the whole opening: the tables nearly full at first sight, and
  // "Next token" adds the last row (opening at token 3 left most of the card empty)
  let f = null, step = null;

  const draw = redrawOnLang(() => {
    step = Math.max(1, Math.min(step ?? f.tokens.length - 1, f.tokens.length));
    const avail = pics.clientWidth || body.clientWidth || 640; // the triangle sits beside the tables where it fits
    const width = Math.max(300, Math.min(avail >= 900 ? avail - 224 : avail, 1000));
    pics.replaceChildren(tables(f, step, width), triangle(f, step));
    note.textContent = t("fig.kv.note", { tok: tokenLabel(f.tokens[step - 1]), n: step, L: f.n_layers,
      vectors: 2 * f.n_layers, d: f.d_model, per: f2.bytes(f.bytes_per_token),
      full: f2.bytes(f.bytes_per_token * f.context), ctx: f.context });
    next.disabled = step >= f.tokens.length;
    again.disabled = step <= 1;
    root.dataset.step = String(step);
    root.dataset.shape = `${f.n_layers},${f.n_heads}`; // the model's layers and heads, as drawn
  });
  next.addEventListener("click", () => { step += 1; draw(f); });
  again.addEventListener("click", () => { step = 1; draw(f); });
  whenSeen(root, async () => {
    setStatus(status, () => t("ui.waiting"));
    try { f = await call("fig_kv", FIGURES.kv); draw(f); setStatus(status, ""); } catch (e) { showError(e, {}, status); }
  });
  return {};
}
