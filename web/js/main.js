// Page boot: start the worker first, show its progress, mount every widget, put back what the
// reader typed last time, and keep a Stop control for anything that runs long.
import * as engine from "./engine.js";
import { el, typesetAll, setText, nextTask, whenNear } from "./ui.js";
import { colourCode } from "./code-editor.js";
import { startLang, setLang, onLang, t, has, LANG_NAMES, currentLang } from "./i18n.js";
import { persistInputs } from "./persist.js";
import { SPEC } from "./generated/spec.js";
import * as store from "./store.js";
import { titleBuilt } from "./live.js";
import { enableOffline } from "./offline.js";
import { keepFacesForNextVisit } from "./faces.js";
import { mountThemeSwitch } from "./theme.js";
import { mountToc } from "./toc.js";
import { mountScrollCues } from "./scroll-cue.js";
import { mountKernelCheck } from "./widgets/kernel-check.js";
import { mountSamplerPanel } from "./widgets/sampler-panel.js";
import { mountFourTemps } from "./widgets/four-temps.js";
import { mountGreedyLoops } from "./widgets/greedy-loops.js";
import { mountEndAndSlide } from "./widgets/end-and-slide.js";
import { mountPythonCell } from "./widgets/python-cell.js";
import { mountToySampler } from "./widgets/toy-sampler.js";
import { mountSpecTemps } from "./widgets/spec-temps.js";
import { keepFirstFrame } from "./first-frames.js";
import { mountKvRace } from "./widgets/kv-race.js";
import { mountOutliers } from "./widgets/outliers.js";
import { mountBitDepth } from "./widgets/bit-depth.js";
import { mountCostModel } from "./widgets/cost-model.js";
import { mountRounds } from "./widgets/rounds.js";
import { mountSamplingRule } from "./widgets/sampling-rule.js";
import { mountLiveSpec } from "./widgets/live-spec.js";
import { mountVerifyCost } from "./widgets/verify-cost.js";
import { mountRoofline } from "./widgets/roofline.js";
import { mountPassBudget } from "./widgets/pass-budget.js";
import { mountQuiz, mountQuizzes } from "./widgets/quiz.js";
import { mountSpeed } from "./widgets/speed.js";
import { mountPlayground } from "./widgets/playground.js";
import { mountQ8Table } from "./widgets/q8-table.js";
import { mountOpening } from "./diagrams/opening.js";
import { mountPipeline } from "./diagrams/pipeline.js";
import { mountCutStrip } from "./diagrams/cut-strip.js";
import { mountModelMap } from "./diagrams/model-map.js";
import { mountKvCache } from "./diagrams/kv-cache.js";
import { mountInt8Row } from "./diagrams/int8-row.js";
import { mountSpecRound } from "./diagrams/spec-round.js";

engine.start(); // as early as the page allows: Python's boot is the long pole

// the boot stages' names are text keys boot.stage.NAME; the slow calls' names ui.endpoint.FN
const stageKey = (stage) => ({ key: `boot.stage.${stage}` });
const endpointKey = (fn) => ({ key: `ui.endpoint.${fn}` });

function bootUi() {
  const steps = document.getElementById("boot-steps");
  const stageEl = document.getElementById("boot-stage");
  const boot = document.getElementById("boot");
  window.__bootStages = {};
  engine.on("progress", (m) => {
    window.__bootStages[m.stage] = m.ms / 1000;
    setText(stageEl, "boot.stage_now", { stage: stageKey(m.stage) });
    for (const li of steps.children) li.classList.add("done");
    steps.append(el("li", { t: "boot.step", targs: { stage: stageKey(m.stage), s: { value: m.ms / 1000, fixed: 2 } } }));
  });
  engine.on("ready", (info) => {
    window.__readyAt = performance.now();
    window.__bootStages.ready = info.ms / 1000;
    // the worker's milestones (bench startup), in ms since the page's navigation like the rest:
    // they count from the worker module's first instant (t0), which is some way past the
    // worker's own time origin (its script and imports load first)
    const shift = info.timeOrigin + info.t0 - performance.timeOrigin;
    window.__bootMarks = Object.fromEntries(Object.entries(info.marks).map(([k, v]) => [k, Math.round(v + shift)]));
    window.__bootMarks.ready_sent = Math.round(info.ms + shift);
    boot.classList.remove("failed");
    boot.classList.add("ready");
    setText(stageEl, "boot.ready", { s: { value: info.ms / 1000, fixed: 2 }, python: info.python,
      kernel: { key: `boot.kernel.${SPEC.simd_levels[info.simd_level] || SPEC.simd_levels[0]}` } });
    const n = document.getElementById("kernel-notice");
    // fallbacks taken, as message payloads {key, args} (the worker has no text of its own)
    const notices = [info.kernelNotice, info.pythonNotice].filter(Boolean);
    n.replaceChildren(...notices.map((x) => el("span", { t: `err.${x.key}`, targs: x.args || {} }), " "));
    n.hidden = !notices.length;
    document.body.dataset.pythonStart = info.pythonStart; // "snapshot" or "import" (tests, bench)
    window.__pythonChoice = info.pythonChoice; // why that start: {path, rate (bytes/s), by: "link" | "address"}
    document.getElementById("boot-error").hidden = true;
    document.body.dataset.ready = "1";
  });
  engine.on("fatal", (m) => {
    boot.classList.add("failed");
    setText(stageEl, "boot.failed_title");
    const e = document.getElementById("boot-error");
    // the worker's reason is a message payload where it knows one, else the browser's own words
    setText(e, "boot.failed", { stage: { key: `boot.doing.${m.stage}` }, why: m.key ? { key: `err.${m.key}`, args: m.args || {} } : m.message });
    e.hidden = false;
    document.body.dataset.ready = "failed";
  });
  engine.on("restarted", () => { steps.replaceChildren(); });
}

// A bar that appears when a call has run for a while: Stop ends it (the worker is restarted).
function stopBar() {
  const bar = el("div", { class: "stop-bar", id: "stop-bar", role: "status", hidden: true });
  const msg = el("span", { id: "stop-msg" });
  const stop = el("button", { id: "stop-btn", t: "ui.stop" });
  bar.append(msg, stop);
  document.body.append(bar);
  const slow = new Map();
  const show = () => {
    bar.hidden = slow.size === 0;
    if (slow.size) {
      const name = (fn) => (has(`ui.endpoint.${fn}`) ? t(`ui.endpoint.${fn}`) : t("ui.endpoint.other"));
      const what = [...new Set(slow.values())].map(name).join(t("fmt.list_comma"));
      msg.textContent = t("ui.still_working", { what });
    }
  };
  engine.on("slow", ({ id, fn }) => { slow.set(id, fn); show(); });
  engine.on("settled", ({ id }) => { slow.delete(id); show(); });
  stop.onclick = () => {
    slow.clear();
    show();
    notice(engine.stop());
  };
  engine.on("restarted", () => notice("ui.restarted"));
  onLang(show);
}

// key: err.KEY or ui.KEY (a restart's reason, or what the page says after it)
function notice(key) {
  const n = document.getElementById("engine-notice");
  setText(n, key.includes(".") ? key : `err.${key}`);
  n.hidden = false;
  document.body.dataset.engineNotice = key;
}

// After the first distribution, how long the page waits before the work a reader does not see at
// once (the widgets the reader has not come near, the offline copy, the faces for the next visit),
// each in an idle moment: the load's own work (the first distribution's drawing, the worker's next
// downloads) is over by then, so none of it competes with that.
const AFTER_LOAD_MS = 2000;

// cancellable timers: a delay, and the browser's next idle moment (a timer where the browser has no
// requestIdleCallback: Safari)
function after(ms, fn) {
  const id = setTimeout(fn, ms);
  return { cancel: () => clearTimeout(id) };
}
function whenIdle(fn) {
  if (!window.requestIdleCallback) return after(50, fn);
  const id = requestIdleCallback(fn, { timeout: 2000 });
  return { cancel: () => cancelIdleCallback(id) };
}
// once the load is over: AFTER_LOAD_MS after the first distribution, in an idle moment
function afterLoad(fn) {
  after(AFTER_LOAD_MS, () => whenIdle(fn));
}

// Jobs run in order, one in each slot the scheduler gives (a task of its own, or an idle moment):
// a tap or a scroll waits for one job at most. A job that throws is logged and the rest still run.
// take() empties the queue and returns its jobs, to hand them to a faster queue.
function jobQueue(schedule) {
  const jobs = [];
  let pending = null, running = false;
  const run = () => {
    pending = null;
    running = true;
    const job = jobs.shift();
    try { if (job) job(); } catch (e) { console.error("[decodelab] building the page:", e); }
    running = false;
    if (jobs.length && !pending) pending = schedule(run);
  };
  return {
    push(...more) { jobs.push(...more); if (jobs.length && !pending && !running) pending = schedule(run); },
    take() { if (pending) pending.cancel(); pending = null; return jobs.splice(0); },
  };
}

// every widget now, one per task, without waiting for a quiet moment: for a test, or a reader's
// console (window.decodelab.mountAll)
let mountEverything = () => {};

function mountAll() {
  performance.mark("decodelab-mount"); // bench startup reports how long mounting the page takes
  // The page is built one piece per task (#45 item 3): `later` runs its jobs in order, each in a
  // task of its own. (Waiting for a rendered frame between two jobs, so that each job's layout had
  // a frame of its own, measured no better in Lighthouse's mobile runs: 140-400 ms of blocking
  // against 180-210 ms without; it stretched the load's work out.)
  const soonQueue = jobQueue((fn) => after(0, fn));
  const later = (job) => soonQueue.push(job);
  bootUi();
  stopBar();
  // the masthead's switch, the contents, the tables' scroll cues and the formulas on screen each
  // in a task of their own after this one: together with the panel they were one task of 100 ms
  // at a phone's speed (Lighthouse's mobile preset), the longest of the load
  later(mountThemeSwitch);
  later(mountToc);
  later(() => mountScrollCues(document.querySelector("main") || document.body));
  later(() => typesetAll(document, { onScreen: true })); // the rest with the widgets below (mountRest)
  later(titleBuilt);
  const ctx = {}; // handles a later widget needs: the playground writes with the panel's settings
  // the naive loop's cell runs the very code the page prints: the card holds it as code (what a
  // reader without scripts reads), and the cell's editor takes its place (a static copy above the
  // live one said it twice: design N12)
  const loopCode = () => {
    const pre = document.getElementById("ch1-loop-code");
    if (!pre) return "";
    pre.remove();
    return pre.textContent;
  };
  const mounts = [["sampler-panel", (n) => (ctx.panel = mountSamplerPanel(n))], ["four-temps", mountFourTemps],
    ["greedy-loops", mountGreedyLoops], ["end-slide", mountEndAndSlide], ["toy-sampler", mountToySampler], ["python-cell", mountPythonCell],
    ["loop-cell", (n) => mountPythonCell(n, { id: "lc", starter: loopCode(), title: "widget.title.loop-cell" })],
    ["playground", (n) => mountPlayground(n, ctx)],
    ["kv-race", mountKvRace], ["q8-table", mountQ8Table], ["outliers", mountOutliers],
    ["bit-depth", mountBitDepth], ["kernel-check", mountKernelCheck], ["speed", mountSpeed], ["pass-budget", mountPassBudget], ["cost-model", (n) => (ctx.costModel = mountCostModel(n))], ["rounds", mountRounds],
    ["sampling-rule", mountSamplingRule], ["spec-temps", mountSpecTemps], ["verify-cost", mountVerifyCost], ["roofline", mountRoofline],
    ["live-spec", (n) => mountLiveSpec(n, ctx)], ["quiz", mountQuiz],
    // the diagrams beside the mechanisms they draw, and the opening figure at the top
    ["fig-opening", mountOpening], ["fig-pipeline", mountPipeline], ...[...document.querySelectorAll("figure.cut-fig")].map((n) => [n.id, mountCutStrip]),
    ...[...document.querySelectorAll("figure.model-map")].map((n) => [n.id, mountModelMap]),
    ["fig-kv", mountKvCache], ["fig-int8", mountInt8Row],
    ["fig-spec", mountSpecRound]];
  // Widgets are mounted in two stages, so that building the page does not compete with Python's
  // start-up for the machine's cores (on a 2-core laptop it did, by a third of a second): first
  // the control panel and whatever is near the screen, then, once the panel has drawn its first
  // distribution (or the engine failed), the rest (mountRest below).
  // A widget's result is asked for once it comes within a screen of the reader (the panel at
  // once): computing and drawing the results of widgets far below at load made the browser lay
  // out chapters that content-visibility (style.css) keeps unlaid, a quarter of a second of
  // blocked main thread on a phone (their pictures measure their width).
  const live = [];
  const waiting = new WeakSet(); // widgets with an observer armed: one each, however many restarts
  const update = (node, w) => {
    if (!w || !w.update) return;
    if (node.id === "sampler-panel") { w.update(); return; }
    if (waiting.has(node)) return;
    waiting.add(node);
    whenNear(node, "100% 0px").then(() => {
      waiting.delete(node);
      if (engine.isReady()) w.update(); // else the next "ready" arms it again
    });
  };
  const mountOne = ([id, mount]) => {
    const node = document.getElementById(id);
    if (!node || node.dataset.mounted) return;
    node.dataset.mounted = "1";
    performance.mark(`mount ${id}`);
    const w = mount(node);
    keepFirstFrame(node); // the build's copy of its first frame stays until the script has drawn its own
    live.push([node, w]);
    persistInputs(node); // after mounting (the widget made its inputs), before anything reads them
    if (engine.isReady()) update(node, w); // the engine was ready before this widget
    performance.measure(`mount ${id}`, `mount ${id}`); // bench startup and the long-task test read these
  };
  // The panel at once, in this task: body[data-ready] (set by bootUi above when the engine is
  // ready) promises it is there, and a hidden tab's timers can wait for seconds (Firefox). Then
  // the widgets within a screen of the reader's place as an IntersectionObserver reports them:
  // it reads the layout the browser makes for its first paint anyway, where asking each widget's
  // position here forced that layout of the whole page inside this task.
  mountOne(mounts.find((m) => m[0] === "sampler-panel"));
  const soon = new IntersectionObserver((entries) => {
    for (const en of entries) {
      if (!en.isIntersecting) continue;
      soon.unobserve(en.target);
      const m = mounts.find((x) => x[0] === en.target.id);
      if (m) later(() => mountOne(m));
    }
  }, { rootMargin: "100% 0px" });
  for (const [id] of mounts) { const n = document.getElementById(id); if (n && !n.dataset.mounted) soon.observe(n); }
  // widgets that show something at once fill in when the engine is ready (again after a restart)
  engine.on("ready", () => { for (const [node, w] of live) update(node, w); });
  // offline after this visit: only once the first distribution is on screen (js/offline.js)
  // and the faces for the next visit: both once the load is over, in an idle moment (they read
  // the whole article's text and the computed style, and fill the cache over the network)
  store.subscribe("panel.view", () => afterLoad(() => { enableOffline(); keepFacesForNextVisit(); }), { once: true });
  // The rest: each as the reader comes within a screen of it (the observer above stays armed), and
  // the ones the reader has not reached once the load is over, one per idle moment of the page.
  // Mounting them all just after the first distribution was a dozen tasks of 15-20 ms of script
  // and layout each, at the moment a reader starts to scroll: at a phone's speed (Lighthouse's
  // mobile preset) most of the load's blocked time. body[data-mounted] says when every one is there.
  let rest = null; // { hurry() }: once the rest are on their way
  const mountRest = ({ now = false } = {}) => {
    if (!rest) {
      performance.mark("decodelab-mount-rest");
      const jobs = [() => typesetAll(document), ...mounts.map((m) => () => mountOne(m)), () => {
        soon.disconnect();
        mountQuizzes(document);
        colourCode(document); // the code the prose prints, in the cells' colours
        persistInputs(document); // inputs outside the widgets (the quizzes'), if any
        document.body.dataset.mounted = "1";
        performance.measure("decodelab-mount-rest", "decodelab-mount-rest");
      }];
      const idle = jobQueue(whenIdle);
      const wait = after(AFTER_LOAD_MS, () => idle.push(...jobs.splice(0))); // (afterLoad, cancellable)
      // all that is left, one per task at once
      rest = { hurry: () => { wait.cancel(); soonQueue.push(...jobs.splice(0), ...idle.take()); } };
    }
    if (now) rest.hurry();
  };
  mountEverything = () => mountRest({ now: true });
  const panel = document.getElementById("sampler-panel");
  if (panel) new MutationObserver((_, obs) => { obs.disconnect(); setTimeout(mountRest, 0); }) // after the panel's drawing task
    .observe(panel, { attributes: true, attributeFilter: ["data-updates"] });
  engine.on("fatal", () => mountRest({ now: true }));
  setTimeout(mountRest, 10000); // whatever happens, the rest are on their way after 10 s
  if (!panel) mountRest({ now: true });
  // (the prose's numbers: pinned ones are in the HTML already, from the build; the measured ones
  // come from their widgets through live.js)
  performance.measure("decodelab-mount", "decodelab-mount");
}

// The language switch in the masthead: links (?lang=ru works without scripts, and can be shared)
// that switch in place, without a reload: the engine and everything typed stay as they are.
function langSwitch() {
  const nav = document.getElementById("lang-switch");
  if (!nav) return;
  const mark = () => {
    for (const a of nav.querySelectorAll("a[hreflang]")) {
      if (a.hreflang === currentLang()) a.setAttribute("aria-current", "true");
      else a.removeAttribute("aria-current");
    }
  };
  for (const a of nav.querySelectorAll("a[hreflang]")) {
    a.addEventListener("click", (ev) => {
      ev.preventDefault();
      const status = document.getElementById("lang-status");
      setLang(a.hreflang).then(() => { status.textContent = ""; status.hidden = true; }, (e) => {
        status.textContent = t("ui.lang_failed", { lang: LANG_NAMES[a.hreflang], why: e.message });
        status.hidden = false;
      });
    });
  }
  mark();
  onLang(() => { mark(); typesetAll(document); });
}

async function boot() {
  // the reader's language first: widgets build their labels from its text
  let langProblem = null;
  try {
    langProblem = await startLang();
  } catch (e) { // not even English's text: the prose is in the page, the labels are not
    langProblem = `The page's text (i18n/en.json) could not be loaded: ${e.message}. Reload the page; if it keeps failing, the site is incomplete.`;
  }
  await nextTask(); // the language's text parsed in one task, the page's widgets built in the next ones
  langSwitch();
  if (langProblem) {
    const s = document.getElementById("lang-status");
    s.textContent = langProblem;
    s.hidden = false;
  }
  mountAll();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();

window.decodelab = { call: engine.call, ready: engine.ready, stop: engine.stop, idle: engine.idle, mountAll: () => mountEverything() };
