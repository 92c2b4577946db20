// One filter, drawn (fig_cut): the model's own next-token distribution after two openings, by rank
// on log-log axes, the part the filter keeps in the probability colour and the part it cuts grey,
// with the line it cuts at (a rank for top-k and top-p, two for typical-p, which can cut the head;
// a bar on probability for min-p and top-nσ) and under each plot what it keeps and cuts. The same
// two openings in every filter's section, so the reader compares five rules on one picture.
// The figure's slider sets the rule's value (its range is the panel's, declared by the rule); it
// opens at the value the paragraph uses. The numbers come from the sampler's own run
// (figures.py fig_cut).
import { call } from "../engine.js";
import { el, latest, readNumber, showError, sliderRow, whenSeen, setStatus } from "../ui.js";
import { SPEC } from "../generated/spec.js";
import { t, fixed } from "../i18n.js";
import { fmtCount, fmtPct, tenTo, tokenLabel } from "../live/formats.js";
import { svg, picture, redrawOnLang, textWidth, FONTS } from "./svg.js";

const L = 40, R = 10, HEAD = 26, PLOT = 128, FOOT = 70, STRIP = 8, GAP = 28, SIDE_BY_SIDE = 560;

const isKept = (kept, r) => kept.some(([a, b]) => a <= r && r <= b);

// One opening's plot, its top-left corner at (x0, y0), w wide.
function panel(f, v, x0, y0, w, floorExp) {
  const g = svg("g", { class: "cs-panel", "data-survivors": v.survivors });
  const V = f.vocab, pw = w - L - R;
  const px = (r) => x0 + L + (Math.log10(r) / Math.log10(V + 1)) * pw;
  const py = (p) => y0 + HEAD + (Math.min(0, Math.max(floorExp, Math.log10(p))) / floorExp) * PLOT;
  const base = y0 + HEAD + PLOT;
  // the opening in quotes, its start cut where the panel is too narrow for it (its end is what
  // the model continues)
  const words = v.prompt.split(" ");
  let head = `“${v.prompt}”`;
  for (let i = 1; i < words.length && textWidth(head, FONTS.label) > w; i++) head = `“…${words.slice(i).join(" ")}”`;
  g.append(svg("text", { class: "dg-label cs-opening", x: x0, y: y0 + 14, text: head }));
  // the axes' grid: decades of probability, decades of rank
  // (whole pixels: the build writes this picture into the page five times over, and a tenth of a
  // pixel was a third of its bytes)
  const px0 = (v) => Math.round(v);
  let grid = "";
  for (let e = 0; e >= floorExp; e -= 2) {
    grid += `M${px0(x0 + L)},${px0(py(10 ** e))}H${px0(x0 + w - R)}`;
    g.append(svg("text", { class: "dg-small", x: px0(x0 + L - 5), y: px0(py(10 ** e) + 4), "text-anchor": "end", text: tenTo(e) }));
  }
  g.append(svg("path", { class: "cs-grid", d: grid }));
  for (let r = 1; r <= V; r *= 10) {
    g.append(svg("text", { class: "dg-small", x: px0(px(r)), y: base + 14, "text-anchor": r === 1 ? "start" : "middle", text: fixed(r, 0) }));
  }
  // the distribution as a stepped area, one outline per run of kept or cut ranks
  const runs = [];
  v.ranks.forEach((r, i) => {
    const next = i + 1 < v.ranks.length ? v.ranks[i + 1] : V + 1, k = isKept(v.kept, r);
    const step = `V${px0(py(v.p[i]))}H${px0(px(next))}`;
    if (runs.length && runs[runs.length - 1].k === k) runs[runs.length - 1].d += step;
    else runs.push({ k, d: `M${px0(px(r))},${px0(base)}${step}` });
  });
  for (const run of runs) g.append(svg("path", { class: run.k ? "cs-kept" : "cs-cut", d: `${run.d}V${px0(base)}Z` }));
  g.append(svg("line", { class: "cs-axis", x1: x0 + L, x2: x0 + w - R, y1: base, y2: base }));
  // where it cuts: a bar on probability, or the edges of the kept ranks (top-k and top-p: one;
  // typical-p: where it starts too, when it drops the head)
  if (v.bar != null) {
    const y = py(v.bar);
    g.append(svg("line", { class: "cs-line", x1: x0 + L, x2: x0 + w - R, y1: y, y2: y }),
      svg("text", { class: "dg-small cs-line-name", x: x0 + w - R, y: y - 4, "text-anchor": "end", text: t("fig.cut.bar", { p: fmtPct(v.bar) }) }));
  } else {
    const edges = [];
    for (const [a, b] of v.kept) { if (a > 1) edges.push(a); if (b < V) edges.push(b + 1); }
    for (const r of edges) {
      const x = px(r);
      g.append(svg("line", { class: "cs-line", x1: x, x2: x, y1: y0 + HEAD - 4, y2: base }));
    }
  }
  // the probability kept and cut on a linear scale: on the log axes above, a cut of a thousandth
  // of a percent looks like half the plot (design re-review)
  const sy = base + 22, sw = pw, keptW = Math.round(sw * Math.max(0, 1 - v.cut_mass));
  g.append(svg("rect", { class: "cs-cut", x: px0(x0 + L), y: sy, width: sw, height: STRIP }),
    svg("rect", { class: "cs-kept", x: px0(x0 + L), y: sy, width: keptW, height: STRIP }));
  const kept = t("fig.cut.keeps", { n: { num: v.survivors, text: fmtCount(v.survivors) }, V: fmtCount(V) });
  g.append(svg("text", { class: "dg-small cs-stat", x: x0 + L, y: base + 46, text: kept }),
    svg("text", { class: "dg-small cs-stat", x: x0 + L, y: base + 60,
      text: t("fig.cut.cuts", { p: fmtPct(v.cut_mass), tok: tokenLabel(v.top.text), top: fmtPct(v.top.p) }) }));
  return g;
}

export function drawCutStrip(f, width) {
  const W = Math.max(300, Math.round(width)), two = W >= SIDE_BY_SIDE;
  const pw = two ? (W - GAP) / 2 : W, ph = HEAD + PLOT + FOOT;
  const H = two ? ph : 2 * ph + GAP / 2;
  // one probability scale for both plots: from 1 down to the decade pair below the smallest
  // probability drawn, no lower than 10⁻¹⁰ (below that the crumbs are one grey floor)
  const low = Math.min(...f.views.flatMap((v) => v.p.filter((p) => p > 0)));
  const floorExp = Math.max(-10, 2 * Math.floor(Math.log10(low) / 2));
  const label = t("fig.cut.aria", { rule: t(`fig.pipe.stage.${f.rule}`), list: f.views.map((v) =>
    `“${v.prompt}”: ${t("fig.cut.keeps", { n: { num: v.survivors, text: fmtCount(v.survivors) }, V: fmtCount(f.vocab) })}`).join("; ") });
  const root = picture(W, H, label, "cut-strip");
  root.setAttribute("width", W);
  f.views.forEach((v, i) => root.append(panel(f, v, two ? i * (pw + GAP) : 0, two ? 0 : i * (ph + GAP / 2), pw, floorExp)));
  return root;
}

export function mountCutStrip(root) {
  const rule = root.dataset.rule, step = SPEC.steps.find((st) => st.name === rule);
  const body = root.querySelector(":scope > .diagram-body") || root.appendChild(el("div", { class: "diagram-body" }));
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  const label = `w1.sp.${rule}`;
  const control = sliderRow({ id: `cut-${rule}`, label, min: step.min, max: step.max, step: step.step, value: step.example,
    onChange: () => update() });
  // above the build's copy while it stays (keepFirstFrame), so the slider does not move when it goes
  (root.querySelector(":scope > .first-frame") || body).before(el("div", { class: "controls" }, control.row));
  root.append(status);
  const draw = redrawOnLang((f) => {
    body.replaceChildren(drawCutStrip(f, body.clientWidth || 640));
    root.dataset.survivors = f.views.map((v) => v.survivors).join(",");
    root.dataset.value = String(f.value);
  });
  const update = latest(async () => {
    const value = readNumber(control.num, { label, min: step.min, max: step.max, integer: step.integer });
    if (value == null) return; // the box says what is wrong; the picture stays
    try { draw(await call("fig_cut", { rule, value })); setStatus(status, ""); } catch (e) { showError(e, { [step.field]: control.num }, status); }
  });
  whenSeen(root, () => { setStatus(status, () => t("ui.waiting")); update(); });
  return { update };
}
