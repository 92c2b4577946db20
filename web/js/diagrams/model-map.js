// The model, drawn once (design review: "draw the model and reuse it"): the parts a pass goes
// through in order (the text's tokens, the embedding, the stack of layers, each attention with its
// K, V cache and a feed-forward block, the scores over the vocabulary, the sampler), with the
// model's own sizes. The same map opens chapter 1 and the sections that work on one part of it;
// each figure's data-focus says which part is outlined, the rest faded:
//   sampler: chapter 1, the rule after the model; cache: the KV cache; weights: every matrix, read
//   once a token (8-bit weights, the kernel); spec: the draft model before the target, whose
//   sampler becomes the check of the draft's guesses.
// HTML boxes, not SVG: they wrap on a phone and their words stay at reading size.
import { call } from "../engine.js";
import { el, showError, whenSeen, setStatus } from "../ui.js";
import { t, redrawOnLang } from "../i18n.js";
import { fmtCount } from "../live/formats.js";

// which parts each focus outlines
const FOCUS = {
  sampler: ["sampler"],
  cache: ["attn", "cache"],
  weights: ["embed", "attn", "ff", "scores"],
  spec: ["draft", "check"],
};

const n = (x) => ({ num: x, text: fmtCount(x) });

function node(part, on, name, detail) {
  return el("li", { class: `mm-node mm-${part}${on.includes(part) ? " mm-on" : ""}`, "data-part": part },
    el("b", { text: name }), detail ? el("small", { text: detail }) : null);
}
const arrow = (label) => el("li", { class: "mm-arrow", "aria-hidden": label ? null : "true" },
  label ? el("small", { text: label }) : null, el("span", { "aria-hidden": "true", text: "→" }));

// m: fig_model_map's answer; focus: a key of FOCUS
export function drawModelMap(m, focus) {
  const on = FOCUS[focus] || [], c = m.main, spec = focus === "spec" && m.draft;
  const parts = [];
  // the draft on a line of its own above the target's chain: its guesses join the target's text
  if (spec) {
    parts.push(el("li", { class: "mm-lead" }, el("ol", { class: "mm-layer" },
      node("draft", on, t("fig.map.draft"), t("fig.map.draft_d", { L: n(m.draft.n_layers), d: fmtCount(m.draft.d_model) })),
      el("li", { class: "mm-arrow mm-down" }, el("small", { text: t("fig.map.guesses") }), el("span", { "aria-hidden": "true", text: "↓" })))));
  }
  // one layer: the attention over its cache, then the feed-forward block
  const layer = el("li", { class: "mm-stack" },
    el("span", { class: "mm-stack-label", text: t("fig.map.layers", { L: n(c.n_layers) }) }),
    el("ol", { class: "mm-layer" },
      el("li", { class: "mm-pair" }, el("ol", { class: "mm-col" },
        node("attn", on, t("fig.map.attn"), t("fig.map.attn_d", { h: n(c.n_heads) })),
        node("cache", on, t("fig.map.cache"), t("fig.map.cache_d", { d: fmtCount(c.d_model) })))),
      arrow(), node("ff", on, t("fig.map.ff"), `${fmtCount(c.d_model)} → ${fmtCount(c.d_ff)} → ${fmtCount(c.d_model)}`)));
  parts.push(node("tokens", on, t("fig.map.tokens"), t("fig.map.tokens_d", { ctx: fmtCount(c.context) })), arrow(),
    node("embed", on, t("fig.map.embed"), `${fmtCount(c.vocab)} × ${fmtCount(c.d_model)}`), arrow(), layer, arrow(),
    node("scores", on, t("fig.map.scores"), t("fig.map.scores_d", { V: fmtCount(c.vocab) })), arrow(),
    spec ? node("check", on, t("fig.map.check"), t("fig.map.check_d"))
      : node("sampler", on, t("fig.map.sampler"), t("fig.map.sampler_d")),
    // the loop: what the sampler picks joins the text, and the next pass starts from it
    el("li", { class: "mm-arrow mm-back" }, el("span", { "aria-hidden": "true", text: "↩" }), el("small", { text: t("fig.map.back") })));
  return el("ol", { class: "mm", "data-focus": focus }, parts);
}

export function mountModelMap(root) {
  const body = root.querySelector(":scope > .diagram-body") || root.appendChild(el("div", { class: "diagram-body" }));
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  root.append(status);
  const focus = root.dataset.focus;
  const draw = redrawOnLang((m) => {
    body.replaceChildren(drawModelMap(m, focus));
    root.dataset.layers = String(m.main.n_layers);
  });
  whenSeen(root, async () => {
    setStatus(status, () => t("ui.waiting"));
    try { draw(await call("fig_model_map", { draft: focus === "spec" })); setStatus(status, ""); } catch (e) { showError(e, {}, status); }
  });
  return {};
}
