// The KV cache, drawn from the main model's real shapes (fig_kv): per layer a table of keys and a
// table of values, one row per token of the reference opening; the causal triangle of which
// position attends to which; and, for the step shown, what a cached step computes (one new row
// per table) and what it reads (every row so far). The reader steps through the opening's tokens.
import { call } from "../engine.js";
import { el, showError, whenSeen, setStatus } from "../ui.js";
import { t } from "../i18n.js";
import { f2, tokenLabel } from "../live/formats.js";
import { FIGURES } from "../live/examples.js";
import { svg, picture, redrawOnLang } from "./svg.js";

const ROW = 22, CELLS = 16, CELL = 7;  // a row of d_model numbers is drawn as 16 cells

// keys and values of layer 1 (and the other layers stacked behind), one row per token so far
function tables(f, step) {
  const tokW = 96, tabW = CELLS * CELL, gap = 22, top = 44;
  const W = tokW + 2 * tabW + 2 * gap + 16, H = top + step * ROW + 16;
  const s = picture(W, H, t("fig.kv.tables_aria", { n: step, L: f.n_layers, d: f.d_model }), "kv-tables");
  const head = (x, key) => svg("text", { x, y: 30, class: "dg-label", text: t(key) });
  s.append(svg("text", { x: tokW, y: 12, class: "dg-small", text: t("fig.kv.layer", { L: f.n_layers }) }),
    head(tokW, "fig.kv.keys"), head(tokW + tabW + gap, "fig.kv.values"));
  for (const [i, x0] of [tokW, tokW + tabW + gap].entries()) {
    // the other layers' tables, stacked behind layer 1's
    for (let l = Math.min(f.n_layers, 4) - 1; l >= 1; l--) {
      s.append(svg("rect", { x: x0 + 3 * l, y: top - 3 * l, width: tabW, height: step * ROW, class: "kv-layer-behind" }));
    }
    for (let r = 0; r < step; r++) {
      const cls = r === step - 1 ? (i ? "kv-cell kv-v kv-new" : "kv-cell kv-k kv-new") : (i ? "kv-cell kv-v" : "kv-cell kv-k");
      for (let c = 0; c < CELLS; c++) {
        s.append(svg("rect", { x: x0 + c * CELL, y: top + r * ROW + 2, width: CELL - 1, height: ROW - 4, class: cls }));
      }
    }
  }
  for (let r = 0; r < step; r++) {
    s.append(svg("text", { x: tokW - 6, y: top + r * ROW + 15, class: `dg-token${r === step - 1 ? " dg-now" : ""}`,
      "text-anchor": "end", text: tokenLabel(f.tokens[r]) }));
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
  let f = null, step = 3;

  const draw = redrawOnLang(() => {
    step = Math.max(1, Math.min(step, f.tokens.length));
    pics.replaceChildren(tables(f, step), triangle(f, step));
    note.textContent = t("fig.kv.note", { tok: tokenLabel(f.tokens[step - 1]), n: step, L: f.n_layers,
      vectors: 2 * f.n_layers, d: f.d_model, per: f2.bytes(f.bytes_per_token),
      full: f2.bytes(f.bytes_per_token * f.context), ctx: f.context });
    next.disabled = step >= f.tokens.length;
    again.disabled = step <= 1;
    root.dataset.step = String(step);
  });
  next.addEventListener("click", () => { step += 1; draw(f); });
  again.addEventListener("click", () => { step = 1; draw(f); });
  whenSeen(root, async () => {
    setStatus(status, () => t("ui.waiting"));
    try { f = await call("fig_kv", FIGURES.kv); draw(f); setStatus(status, ""); } catch (e) { showError(e, {}, status); }
  });
  return {};
}
