// The sampler control panel: the model's real next-token distribution under the reader's settings.
// One data path: controls -> ch1_view / ch1_draw (Python in the worker) -> render.
// The prose's numbers stay on the reference prompt (live/examples.js PANEL) unless the reader
// ticks "follow my panel": then its next draw (rng.* keys) on every update, and the prompt's
// numbers (ch1_prose) when the prompt or the drawn tokens change, go to the prose (live.js).
import { call, on } from "../engine.js";
import { el, numberBox, fmt, fmtPct, fmtCount, fieldError, serial, sliderRow, showError as routeError, readNumber, tokenLabel,
  setStatus, latest, nextTask, END_TEXT } from "../ui.js";
import { apply as applyText, onLang, parseDecimal, t } from "../i18n.js";
import { remember } from "../persist.js";
import { rankPlot } from "../rankplot.js";
import { setPanelLive, followPanel } from "../live.js";
import { PANEL } from "../live/examples.js";
import { SPEC } from "../generated/spec.js";
import * as store from "../store.js";
import { tokenSpan, showTokenPopover } from "./tokens.js";
import { stageView } from "../diagrams/pipeline.js";

// One slider per sampler rule, from the rules' own declarations (SPEC.steps; py_src/decodelab/
// sampler.py): [field, label, min, max, step, default, help, integer, stage]; label and help are
// text keys. In the order the rules apply (the penalty first), because each row ends with the
// tokens left after its stage. The defaults are the reference example's settings: the prose's
// numbers are computed at them.
const at = PANEL.settings;
const CONTROLS = SPEC.steps.map((st) => [st.field, `w1.sp.${st.name}`, st.min, st.max, st.step, at[st.field], `w1.sp.${st.name}_hint`, st.integer, st.name]);
const ch1Keys = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`ch1.${k}`, v]));

export function mountSamplerPanel(root) {
  const state = { drawn: [], drawnInfo: [], seed: PANEL.seed, latency: [] };
  const prompt = el("textarea", { id: "sp-prompt", rows: 2, cols: 60, maxlength: 2000, "t-aria-label": "w1.sp.prompt_aria",
    "t-placeholder": "ui.waiting" });
  // the openings are Python's list (ch1.OPENINGS, sent with the ready message), so the prose's
  // numbers at "the bird opening" and the panel's buttons cannot disagree
  const openingsLabel = () => el("span", { t: "w1.sp.openings" });
  const presets = el("div", { class: "controls", id: "sp-presets" }, openingsLabel(), " ");
  on("ready", (info) => {
    const openings = info.openings || [];
    // the openings are the model's English (never translated); their aria-label says what they are
    presets.replaceChildren(openingsLabel(), " ", ...openings.map((p, i) => el("button", { class: "secondary", id: `sp-preset-${i}`,
      translate: "no", // the model's own English, in every language
      text: p.split(" ").slice(0, 4).join(" ") + "…", "t-aria-label": "w1.sp.opening_aria", targs: { p },
      onclick: () => { prompt.value = p; remember(prompt); changed(); } })));
    if (!prompt.value && openings.length) prompt.value = openings[PANEL.opening];
    prompt.dataset.tPlaceholder = "w1.sp.type_prompt";
    applyText(prompt);
  });
  // its two numbers are live spans (pinned: the build writes them)
  const english = el("p", { class: "hint", id: "ch1-english", t: "w1.sp.english" });
  const inputs = {};
  const grid = el("div", { class: "slider-grid" });
  // each rule's row ends with its stage of the pipeline: the tokens still candidates after it, so
  // moving top-p shrinks the count right there (design review item 10; fig_pipeline, one call per
  // view, which the pipeline figure below draws too: store "panel.stages")
  const stageCells = {};
  for (const [field, label, min, max, step, def, help, , stage] of CONTROLS) {
    const r = sliderRow({ id: `sp-${field}`, label, min, max, step, value: def, hint: help, onChange: () => update() });
    inputs[field] = r.num;
    stageCells[stage] = el("span", { class: "stage-left", id: `sp-left-${stage}` });
    r.row.append(stageCells[stage]);
    grid.append(r.row);
  }
  const tempLast = el("input", { type: "checkbox", id: "sp-temp-last", checked: at.temperature_last });
  tempLast.addEventListener("change", () => update());
  const seed = numberBox({ integer: true, id: "sp-seed", value: state.seed, "t-aria-label": "w1.seed" });
  const reroll = el("button", { class: "secondary", id: "sp-reroll", t: "w1.new_seed",
    onclick: () => { seed.value = Math.floor(Math.random() * 2 ** 32); remember(seed); fieldError(seed, ""); update(); } });
  seed.addEventListener("input", () => update()); // the next draw (and the prose's u) follow the seed
  const drawOne = el("button", { id: "sp-draw1", t: "w1.sp.draw1" });
  const drawTen = el("button", { id: "sp-draw10", t: "w1.sp.draw10" });
  const undo = el("button", { class: "secondary", id: "sp-undo", t: "w1.sp.undo" });
  const reset = el("button", { class: "secondary", id: "sp-clear", t: "w1.sp.clear" });
  const readout = el("div", { class: "readout stats-row", id: "sp-readout" });
  const bars = el("div", { class: "bars", id: "sp-bars" });
  const text = el("div", { class: "gen-text", id: "sp-text" });
  const status = el("div", { class: "status", id: "sp-status" });
  const endNote = el("p", { class: "hint", id: "sp-end-note", hidden: true, t: "w1.sp.end_note" });
  const cumulative = el("input", { type: "checkbox", id: "sp-cumulative" });
  // not kept across visits (persist.js): a new visit starts with the prose on its reference prompt
  const follow = el("input", { type: "checkbox", id: "sp-follow", "data-persist": "no" });
  const canvas = el("canvas", { id: "sp-rank", style: { display: "block", width: "100%", height: "100%" }, role: "img",
    "t-aria-label": "w1.sp.plot_aria" });
  const latency = el("div", { class: "hint", id: "sp-latency" });

  // two columns from 1100 px (css: .panel-cols): the controls and their stages on the left, what
  // they do to the distribution on the right, so the whole instrument fits one screen
  root.append(
    el("div", { class: "panel-cols" },
      el("div", { class: "panel-controls" },
        el("label", { class: "block" }, el("span", { t: "w1.sp.prompt" }), prompt), presets,
        el("div", { class: "stage-head", "aria-hidden": "true" }, el("span", { t: "w1.sp.stage_head" })), grid,
        el("div", { class: "controls" }, el("label", {}, tempLast, " ", el("span", { t: "w1.sp.temp_last" })),
          el("label", {}, el("span", { t: "w1.seed" }), " ", seed), reroll),
        english),
      el("div", { class: "panel-results" },
        readout, bars,
        el("div", { class: "controls" }, el("label", {}, cumulative, " ", el("span", { t: "w1.sp.cumulative" })),
          el("label", {}, follow, " ", el("span", { t: "w1.sp.follow" }))),
        el("div", { class: "chart-box" }, canvas),
        // the text, then the buttons that extend it: a token's popover opens above the text
        // and never covers them
        text, endNote, el("div", { class: "controls" }, drawOne, drawTen, undo, reset), status, latency)),
  );
  const chart = rankPlot(canvas, { xTitle: "w1.sp.plot_x", yTitle: "w1.sp.plot_y" });

  function settings() {
    const s = {};
    let ok = true;
    for (const [field, label, min, max, , , , integer] of CONTROLS) {
      const raw = inputs[field].value.trim();
      const v = parseDecimal(raw); // "0,7" as well as "0.7"; anything else is a message, never dropped
      let msg = "";
      if (raw === "" || !Number.isFinite(v)) msg = () => t("w1.sp.needs_number", { label: { key: label } });
      else if (v < min || v > max) msg = () => t("w1.sp.range", { label: { key: label }, min, max });
      fieldError(inputs[field], msg);
      if (msg) ok = false;
      s[field] = integer ? Math.round(v) : v;
    }
    s.temperature_last = tempLast.checked;
    return ok ? s : null;
  }

  // one update at a time; a change while one runs asks for one more, which reads the settings as
  // they are when it starts (ui.latest); a caller may wait for the view its change asked for
  let updateCount = 0;
  const update = latest(async () => {
    const s = settings();
    if (!s) return;
    const t0 = performance.now();
    try {
      // a bad seed box shows its message and leaves the rest of the panel working
      const sd = seed.value.trim() === "" ? null : readNumber(seed, { label: "w1.seed", min: 0, max: 2 ** 32 - 1, integer: true, id: true });
      const args = { prompt: prompt.value, settings: s, extra: state.drawn };
      if (sd != null) args.seed = sd;
      const v = await call("ch1_view", args);
      fieldError(prompt, "");
      render(v, s);
      // The panel is drawn; what follows it (the pipeline's counts, the widgets and the prose that
      // follow the panel) is drawn in the next task, so the reader's next input, or the page's
      // first paint after the load, waits for one of the two halves (at a phone's speed the first
      // update was one task of 100 ms). The latency counts the work, not the wait between.
      const drawn = performance.now() - t0;
      await nextTask();
      const t1 = performance.now();
      // the same view stage by stage: the rows' counts and the pipeline figure (diagrams/pipeline.js)
      const view = { prompt: args.prompt, settings: s, extra: [...args.extra] };
      store.set("panel.view", view);
      stagesOf(view);
      if (v.next_draw) setPanelLive(ch1Keys(v.next_draw));
      if (follow.checked) refreshProse(args.prompt, args.extra);
      const dt = drawn + (performance.now() - t1);
      state.latency.push(dt);
      const ms = v.ms;
      setStatus(latency, () => t("w1.sp.latency", { ms: { value: dt, fixed: 1 }, py: { value: ms, fixed: 1 } }));
      root.dataset.latency = dt.toFixed(2);
      setStatus(status, "");
    } catch (e) {
      showError(e);
    } finally {
      // a counter, not the latency, tells tests and benchmarks that an update finished: two
      // updates can take the same time (performance.now() is coarsened to 0.1 ms)
      root.dataset.updates = String(++updateCount);
      if (updateCount === 1) window.__firstDistributionAt = performance.now(); // bench startup reads it
    }
  });

  // one fig_pipeline call per view, the newest only; its result is each row's count and the figure's cards
  const stagesOf = latest(async (view) => {
    try {
      const f = await call("fig_pipeline", view);
      shownStages = f;
      renderStages(f);
      store.set("panel.stages", f);
    } catch { /* the panel's own update says what is wrong */ }
  });
  let shownStages = null;
  function renderStages(f) {
    for (const st of f.stages) {
      const cell = stageCells[st.stage];
      if (!cell) continue;
      const { on, share, left } = stageView(f, st);
      const fill = el("span", { class: "stage-fill" });
      fill.style.width = `${Math.max(2, Math.round(100 * share))}%`; // CSSOM: allowed by the CSP
      cell.className = `stage-left${on ? " on" : ""}`;
      cell.replaceChildren(el("span", { class: "stage-bar", "aria-hidden": "true" }, fill),
        el("span", { class: "stage-count", text: left }));
    }
    grid.dataset.survivors = f.stages.map((st) => `${st.stage}:${st.survivors}`).join(",");
  }
  onLang(() => { if (shownStages) renderStages(shownStages); });

  const fields = { ...inputs, prompt, seed, temperature_last: tempLast };
  function showError(e) { routeError(e, fields, status); }

  // The last result, drawn again in the new language after a switch (no call to the engine).
  let shown = null;
  onLang(() => { if (shown) render(...shown, false); });

  function render(v, s, withText = true) {
    shown = [v, s];
    // The plot goes first: it measures its box, and doing that before the bars and
    // readouts change spares the browser a full layout of the page in the middle of our update.
    // the cumulative curve is the mass top-p measures: after top-k it is rescaled and ends at rank k
    const pl = v.plot, ys = cumulative.checked ? pl.cum : pl.p;
    const pts = pl.rank.slice(0, ys.length).map((x, i) => ({ x, y: ys[i] }));
    const lines = [];
    if (cumulative.checked) {
      if (s.top_p < 1) lines.push({ y: s.top_p, label: t("w1.sp.line_p", { p: s.top_p }) });
      if (s.top_k > 0) lines.push({ x: s.top_k, label: t("w1.sp.line_k", { k: s.top_k }) });
    }
    chart.set([{ label: t("w1.sp.all_tokens"), points: pts, color: "neutral" },
               { label: t("w1.sp.kept", { n: v.survivors }), points: pts.filter((p) => keptRank(v.kept, p.x)), color: "ours", width: 3 }], lines);
    readout.replaceChildren(
      stat("w1.sp.eff", fmt(v.eff, 1), "sp-eff"),
      stat("w1.sp.eff_full", fmt(v.eff_full, 1), "sp-eff-full"),
      stat("w1.sp.survivors", fmtCount(v.survivors), "sp-survivors"),
      stat("w1.sp.cut", fmtPct(v.cut_mass), "sp-cut"),
      stat("w1.sp.entropy", t("w1.sp.nats", { n: { num: Number(v.entropy.toFixed(2)), text: fmt(v.entropy, 2) } }), "sp-entropy"),
    );
    const max = Math.max(...v.top.map((x) => x.p), v.tail.p, 1e-9);
    bars.replaceChildren(...v.top.map((x) => barRow(x.text, x.p, x.q, x.kept, max)),
      barRow(t("w1.sp.tail", { n: v.vocab - v.top.length }), v.tail.p, v.tail.q, v.tail.q > 0, max, true));
    bars.dataset.top = v.top.map((x) => x.id).join(",");
    // the drawn tokens relabel themselves on a switch (tokens.js); an open popover stays open
    if (withText) renderText();
  }

  function renderText() {
    text.replaceChildren(el("span", { class: "prompt-text", text: prompt.value }),
      ...state.drawnInfo.map((d, i) => tokenSpan(d.text, d.p, (s) => showTokenPopover(text, d, s), `sp-tok-${i}`)));
    const last = state.drawnInfo[state.drawnInfo.length - 1];
    endNote.hidden = !(last && last.text === END_TEXT);
  }

  // The prose's numbers for this prompt: after the panel has settled for a moment (typing does
  // not send a call per key), only the newest text, and the old numbers stay until then.
  let proseKey = null, proseTimer = 0;
  const proseCall = latest(async (key) => {
    const [p, extra] = JSON.parse(key);
    try {
      setPanelLive({ ...ch1Keys(await call("ch1_prose", { prompt: p, extra })), "ch1.example.prompt": p });
      proseKey = key;
    } catch { /* the panel's own update shows what is wrong with the prompt */ }
  });
  function refreshProse(p, extra) {
    const key = JSON.stringify([p, extra]);
    if (key === proseKey) return;
    clearTimeout(proseTimer);
    proseTimer = setTimeout(() => proseCall(key), 150);
  }

  // Draws run one at a time (a double click draws once), and a result that arrives after the
  // prompt or the draws changed is dropped, so nothing is appended to the wrong text.
  const once = serial([drawOne, drawTen], status, fields, { queueOne: true });
  let edits = 0;
  function draw(n) {
    return once(async () => {
      const s = settings();
      const sd = readNumber(seed, { label: "w1.seed", min: 0, max: 2 ** 32 - 1, integer: true, id: true });
      if (!s || sd == null) return;
      const mine = edits;
      // one stream per text: the draw goes on past the numbers the drawn tokens used, so ten
      // single draws write what one draw of ten writes; it stops at the end token
      const r = await call("ch1_draw", { prompt: prompt.value, settings: s, seed: sd, n, extra: state.drawn,
        stop_at_end: true });
      if (mine !== edits) return;
      r.tokens.forEach((tok, i) => {
        state.drawn.push(tok);
        state.drawnInfo.push({ text: r.texts[i], p: r.steps[i].p, top: r.steps[i].top, id: tok, survivors: r.steps[i].survivors });
      });
      await update();
    });
  }
  const changed = () => { edits++; state.drawn = []; state.drawnInfo = []; update(); };
  drawOne.onclick = () => draw(1);
  drawTen.onclick = () => draw(10);
  undo.onclick = () => { edits++; state.drawn.pop(); state.drawnInfo.pop(); update(); };
  reset.onclick = changed;
  prompt.addEventListener("input", changed);
  cumulative.addEventListener("change", () => update());
  // the prose's panel numbers: the reference prompt's (as built), or this panel's while ticked
  follow.addEventListener("change", () => {
    followPanel(follow.checked);
    proseKey = null;
    update();
  });
  // the playground writes with the panel's prompt and settings, read when it writes
  function current() {
    const s = settings();
    return s ? { prompt: prompt.value, settings: s } : null;
  }
  return { update, current };
}

// whether a rank (1-based) survived the cuts: v.kept lists the survivors as [first, last] runs
// (one run from rank 1 for the prefix cuts; a mask such as typical-p can start further down)
const keptRank = (runs, x) => runs.some(([a, b]) => a <= x && x <= b);

function stat(label, value, id) {
  return el("span", { class: "stat" }, el("span", { class: "stat-label", t: label }), el("b", { id, text: value }));
}

function barRow(label, p, q, kept, max, tail = false) {
  const w = Math.max(0.5, (100 * p) / max);
  return el("div", { class: "bar-row" + (kept ? "" : " filtered") + (tail ? " tail" : "") },
    el("span", { class: "bar-label", text: tail ? label : tokenLabel(label) }),
    el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: { width: `${w}%` } })),
    el("span", { class: "bar-value", text: fmtPct(p) + (kept && q !== p ? ` → ${fmtPct(q)}` : "") }));
}
