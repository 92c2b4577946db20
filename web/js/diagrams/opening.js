// The opening figure: the model writing a story at the top of the page, a few tokens a second,
// each token coloured by the probability it had when it was drawn (fig_story: the page's default
// sampling). The first story (seed FIGURES.story.seed) was written when the page was built and is
// in the HTML (the registry's "opening" source); the live ones go on from the next seed. It starts only after the sampler panel has shown its first distribution (it must
// cost the page's start nothing), writes only while on screen and the tab is visible, and can be
// paused; with less motion asked for, each story appears whole. Beside the story (below it on a
// phone) the five likeliest candidates for the token just drawn, the drawn one lit and those the
// filters cut struck through; pointing at a token of the story shows its own. The figure's own
// temperature slider writes the next story at another temperature.
import { call, on } from "../engine.js";
import { el, showError, tokCode } from "../ui.js";
import { t, fixed } from "../i18n.js";
import { fmtPct, storyBand } from "../live/formats.js";
import { FIGURES } from "../live/examples.js";
import { reducedMotion } from "./svg.js";
import * as store from "../store.js";

const PAUSE_BETWEEN_MS = 4000;

export function mountOpening(root) {
  const story = root.querySelector(".story") || root.appendChild(el("p", { class: "story" }));
  const pause = el("button", { class: "secondary", id: "fig-open-pause", t: "fig.open.pause", disabled: true });
  const again = el("button", { class: "secondary", id: "fig-open-new", t: "fig.open.new", disabled: true });
  const temp = el("input", { type: "range", id: "fig-open-t", min: 0.2, max: 1.6, step: 0.1, value: FIGURES.story.temperature,
    "t-aria-label": "fig.open.temp", disabled: true });
  const tempOut = el("output", { for: "fig-open-t", id: "fig-open-t-out" });
  const showTemp = () => { tempOut.textContent = fixed(Number(temp.value), 1); };
  showTemp();
  // the legend and the controls' row are in the served HTML (their space kept from the first paint)
  const controls = root.querySelector("#fig-open-controls") || root.appendChild(el("div", { class: "controls" }));
  controls.append(el("label", { class: "open-temp" }, el("span", { t: "fig.open.temp" }), temp, tempOut), pause, again);
  const list = root.querySelector("#fig-open-cands-list") || el("ol", { class: "cands-list" });
  const status = el("p", { class: "hint status", "aria-live": "polite" });
  root.append(status);

  let seed = FIGURES.story.seed + 1, tokens = [], shown = 0, timer = null, paused = false, onScreen = true, started = false;
  let waiting = null;

  const setPause = (p) => {
    paused = p;
    pause.dataset.t = p ? "fig.open.resume" : "fig.open.pause";
    pause.textContent = t(pause.dataset.t);
    root.dataset.paused = p ? "1" : "";
    tick();
  };
  function addToken(i) {
    const { text, p } = tokens[i];
    story.append(el("span", { class: `tok-p${storyBand(p)}`, title: t("fig.open.p", { p: fmtPct(p) }), "data-i": i, text }));
    story.scrollTop = story.scrollHeight; // the box keeps its height: follow the newest line
    showCandidates(i);
  }
  // the candidates token i was drawn from: bar = probability after the temperature, the number
  // what the filters left it (struck through where they cut it)
  function showCandidates(i) {
    const c = tokens[i] && tokens[i].cands;
    if (!c) return;
    const top = Math.max(...c.p, 1e-9);
    list.replaceChildren(...c.texts.map((text, k) => el("li", {
      class: `cand${k === c.drawn ? " cand-drawn" : ""}${c.q[k] > 0 ? "" : " cand-cut"}`, "data-k": k },
    tokCode(text), el("span", { class: "cand-bar", "aria-hidden": "true" }, el("span", { class: "cand-fill", style: { width: `${(100 * c.p[k]) / top}%` } })),
    el("span", { class: "cand-p", text: fmtPct(c.q[k] > 0 ? c.q[k] : c.p[k]) }))));
    root.dataset.cands = String(i);
  }
  function tick() {
    clearTimeout(timer);
    if (paused || !onScreen || document.hidden || !tokens.length) return;
    if (shown < tokens.length) {
      addToken(shown++);
      root.dataset.shown = String(shown);
      timer = setTimeout(tick, 1000 / FIGURES.story.tokens_per_s);
    } else if (!reducedMotion()) {
      timer = setTimeout(() => newStory(seed + 1), PAUSE_BETWEEN_MS);
    }
  }
  async function newStory(s) {
    clearTimeout(timer);
    seed = s;
    try {
      const { prompt, n } = FIGURES.story;
      const r = await call("fig_story", { prompt, n, seed, temperature: Number(temp.value) });
      tokens = r.texts.map((text, i) => ({ text, p: r.p[i], cands: r.candidates[i] }));
      story.replaceChildren(el("span", { class: "story-prompt", text: r.prompt }));
      shown = 0;
      root.dataset.seed = String(seed);
      root.dataset.temperature = String(r.temperature);
      if (reducedMotion()) { // the whole story at once; a new one only when asked
        tokens.forEach((_, i) => addToken(i));
        shown = tokens.length;
        root.dataset.shown = String(shown);
        return;
      }
      tick();
    } catch (e) { showError(e, {}, status); }
  }
  function start() {
    if (started) return;
    started = true;
    clearTimeout(waiting);
    pause.disabled = again.disabled = temp.disabled = false;
    newStory(seed);
  }
  pause.addEventListener("click", () => setPause(!paused));
  again.addEventListener("click", () => newStory(seed + 1));
  temp.addEventListener("input", showTemp);
  temp.addEventListener("change", () => newStory(seed)); // the same seed, another temperature
  // pointing at a token of the story shows what it was drawn from
  story.addEventListener("pointerover", (ev) => {
    const i = ev.target.closest && ev.target.closest("[data-i]");
    if (i && story.contains(i)) showCandidates(Number(i.dataset.i));
  });
  new IntersectionObserver((en) => { onScreen = en.some((x) => x.isIntersecting); tick(); }).observe(root);
  document.addEventListener("visibilitychange", tick);
  // after the first distribution (the panel's first view), or a while after the engine is ready
  store.subscribe("panel.view", start, { once: true });
  on("ready", () => { waiting = setTimeout(start, 3000); });
  return {};
}
