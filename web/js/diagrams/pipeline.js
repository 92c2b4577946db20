// The sampler's pipeline, drawn: scores -> penalty -> temperature -> top-k -> top-p -> min-p ->
// draw, each stage with how many tokens are still candidates and its favourite, for the sampler
// panel's own prompt and settings (the panel asks fig_pipeline for each view it shows and
// publishes the stages; this diagram draws them). HTML cards, not SVG: they wrap on a phone and their words stay
// at reading size.
import { el, showError } from "../ui.js";
import { t, plain } from "../i18n.js";
import { fmtCount, fmtPct, tokenLabel } from "../live/formats.js";
import { redrawOnLang } from "./svg.js";
import { SPEC } from "../generated/spec.js";
import * as store from "../store.js";

// each stage's rule, as the rule declares itself (py_src/decodelab/sampler.py, via SPEC)
const STEP = Object.fromEntries(SPEC.steps.map((st) => [st.name, st]));

// One stage of fig_pipeline's answer `f` as both this figure and the panel's rows show it: whether
// its rule is on, the share of the bar its survivors fill (log scale: 1 of 4,096 still shows), and
// its count in words
export function stageView(f, s) {
  return { on: f.settings[STEP[s.stage].field] !== STEP[s.stage].neutral,
    share: Math.log(1 + s.survivors) / Math.log(1 + f.vocab),
    left: t("fig.pipe.left", { n: { num: s.survivors, text: fmtCount(s.survivors) } }) };
}

function card(cls, name, setting, count, frac, top) {
  const bar = el("span", { class: "pipe-bar-fill" });
  bar.style.width = `${Math.max(2, Math.round(100 * frac))}%`; // CSSOM: allowed by the page's CSP
  return el("li", { class: `pipe-stage ${cls}` },
    el("span", { class: "pipe-name", text: name }), el("span", { class: "pipe-setting", text: setting }),
    el("span", { class: "pipe-bar", "aria-hidden": "true" }, bar),
    el("span", { class: "pipe-count", text: count }), top ? el("span", { class: "pipe-top", text: top }) : null);
}

export function mountPipeline(root) {
  const box = root.querySelector(":scope > .diagram-body") || root.appendChild(el("div", { class: "diagram-body" }));
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  root.append(status);

  const draw = redrawOnLang((f) => {
    const V = f.vocab, logV = Math.log(1 + V);
    const value = (stage) => {
      const st = STEP[stage], v = f.settings[st.field];
      if (stage === "temperature" && v === 0) return t("fig.pipe.greedy");
      return v === st.neutral ? t("fig.pipe.off") : `${st.symbol} = ${plain(v)}`;
    };
    const cards = [card("pipe-in", t("fig.pipe.stage.scores"), "", t("fig.pipe.left", { n: { num: V, text: fmtCount(V) } }), 1, null)];
    const parts = [];
    for (const s of f.stages) {
      const top = s.top[0];
      const { on, share, left } = stageView(f, s);
      cards.push(card(on ? "pipe-on" : "pipe-off", t(`fig.pipe.stage.${s.stage}`), value(s.stage), left, share,
        top ? t("fig.pipe.top", { tok: tokenLabel(top.text), p: fmtPct(top.q) }) : null));
      parts.push(`${t(`fig.pipe.stage.${s.stage}`)}: ${fmtCount(s.survivors)}`);
    }
    cards.push(card("pipe-out", t("fig.pipe.stage.draw"), "", t("fig.pipe.one"), Math.log(2) / logV, null));
    const list = el("ol", { class: "pipe", "aria-label": t("fig.pipe.aria", { list: parts.join("; ") }) }, cards);
    box.replaceChildren(list);
    root.dataset.survivors = f.stages.map((s) => s.survivors).join(",");
    root.dataset.stages = f.stages.map((s) => s.stage).join(",");
  });

  // the panel computes its view stage by stage (sampler-panel.js: one fig_pipeline call per view,
  // whose counts also end the panel's slider rows); this figure draws what it publishes
  store.subscribe("panel.stages", (f) => { try { draw(f); status.textContent = ""; } catch (e) { showError(e, {}, status); } });
  return {};
}
