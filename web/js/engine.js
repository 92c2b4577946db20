// The page's side of the worker channel, and the one owner of the worker: call(fn, args) ->
// Promise of the Python result. Widgets only ever talk to the engine through `call`.
//
// What it guarantees a widget:
// - calls made before Python is ready are queued and sent when it is (a click during boot works);
// - a call that runs longer than SLOW_MS is announced ("slow"), so the page can offer Stop;
// - stop() ends the worker (the only way to interrupt synchronous Python), rejects what was
//   pending with a StoppedError, and boots a fresh worker; the page's inputs live in the page,
//   so nothing the reader typed is lost;
// - a worker that dies (an uncaught error, or the reader's Python calling js.close()) is
//   detected and restarted the same way;
// - boot has a deadline: no progress for BOOT_STALL_MS is a clear failure, not a spinner.

const SLOW_MS = 2000;
const BOOT_STALL_MS = 45000;

const listeners = { progress: [], ready: [], fatal: [], slow: [], settled: [], restarted: [], optional: [] };
let worker = null;
let nextId = 1;
let state = "idle"; // idle | booting | ready | failed
let readyInfo = null;
let fatalInfo = null;
let generation = 0; // bumps on every restart, so answers from a dead worker are ignored
const queued = []; // [id, fn, args] waiting for the worker to be ready
const pending = new Map(); // id -> {resolve, reject, fn, sentAt}
let bootTimer = null;
let restarts = 0;
// The worker's "optional" messages (a part only one widget needs failed) since it started: a
// widget mounted later (most are, after the first distribution) hears them all the same.
let optionals = [];

// An error from Python. An InputError carries `key` and `args` (its message: err.KEY in the
// page's text files, ui.js's errorText renders it in the reader's language).
export class PyError extends Error {
  constructor(err) {
    super(err.message);
    this.type = err.type;
    this.key = err.key || null;
    this.args = err.args || {};
    this.field = err.field || null;
    this.trace = err.trace || "";
  }
}

// A call ended by a restart; `key` says why (err.stopped, err.engine_closed, err.engine_crashed).
export class StoppedError extends Error {
  constructor(key) {
    super(key);
    this.type = "Stopped";
    this.key = key;
    this.args = {};
  }
}

// A call made after the engine failed to start: the start-up's own reason, as a message.
class EngineFailed extends Error {
  constructor(info) {
    super(info.message || info.key);
    this.type = "EngineFailed";
    this.key = "engine_failed";
    this.args = { why: info.key ? { key: `err.${info.key}`, args: info.args || {} } : info.message || "" };
  }
}

export function on(event, fn) {
  listeners[event].push(fn);
  if (event === "ready" && readyInfo) fn(readyInfo);
  if (event === "fatal" && fatalInfo) fn(fatalInfo);
  if (event === "optional") for (const m of optionals) fn(m);
}

function emit(event, payload) {
  for (const fn of listeners[event]) fn(payload);
}

export function isReady() {
  return state === "ready";
}

function armBootTimer() {
  clearTimeout(bootTimer);
  bootTimer = setTimeout(() => fail({ stage: "worker", key: "boot_stalled", args: { s: BOOT_STALL_MS / 1000 } }), BOOT_STALL_MS);
}

function fail(m) {
  clearTimeout(bootTimer);
  state = "failed";
  fatalInfo = m;
  const err = new EngineFailed(m); // calls made during boot say why, in the reader's language
  for (const [id, p] of pending) { emit("settled", { id, fn: p.fn }); p.reject(err); }
  pending.clear(); // queued calls are pending too
  queued.length = 0;
  emit("fatal", m);
}

function post(id, fn, args) {
  const p = pending.get(id);
  if (!p) return;
  p.sentAt = performance.now();
  worker.postMessage({ id, fn, args });
}

// The first worker is started by boot.js at the first paint, or here if this module runs first;
// later ones (after Stop or a crash) here.
function adoptOrCreateWorker(file = false) {
  if (file) return { worker: fileWorker(), early: [] };
  const early = window.__decodelabWorker;
  window.__decodelabWorker = null;
  window.__decodelabWorkerTaken = true; // boot.js, if it has not started it yet, leaves it to us
  if (early) return early;
  // boot.js's way (a blob: worker that inherits the page's policy), or the file where it is missing
  if (window.__decodelabMakeWorker) return { worker: window.__decodelabMakeWorker(location.search), early: [] };
  return { worker: fileWorker(), early: [] };
}

function fileWorker() {
  const url = new URL("./worker.bundle.js", import.meta.url);
  url.search = location.search; // lets ?kernel=scalar reach the worker
  return new Worker(url, { type: "module" });
}

// file: start the worker from its file, not boot.js's blob: URL (see onerror below)
export function start({ file = false } = {}) {
  if (worker) return;
  const gen = ++generation;
  const made = adoptOrCreateWorker(file);
  let heard = false; // any message from this worker yet
  worker = made.worker;
  state = "booting";
  armBootTimer();
  worker.onmessage = (ev) => {
    if (gen !== generation) return;
    heard = true;
    const m = ev.data;
    if (m.type === "progress") { armBootTimer(); return emit("progress", m); }
    if (m.type === "ready") {
      clearTimeout(bootTimer);
      state = "ready";
      readyInfo = m.info;
      fatalInfo = null;
      for (const [id, fn, args] of queued.splice(0)) post(id, fn, args);
      emit("ready", m.info);
      if (restarts) emit("restarted", m.info);
      return;
    }
    if (m.type === "optional") { optionals.push(m); return emit("optional", m); }
    if (m.type === "fatal") return fail(m);
    if (m.type === "closing") return restart("engine_closed");
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    emit("settled", { id: m.id, fn: p.fn });
    if (m.ok) p.resolve(m.result);
    else p.reject(new PyError(m.error));
  };
  worker.onerror = (ev) => {
    if (gen !== generation) return;
    ev.preventDefault?.();
    // Firefox does not put a blob: worker under the page's service worker, so with the server
    // gone its import of worker.bundle.js fails; the file itself is served by the service worker
    // (without the page's policy, as where blob: workers are refused: boot.js). Tried once, and
    // only on a page a service worker controls: elsewhere a missing file is reported at once.
    if (state === "booting" && !heard && !file && navigator.serviceWorker && navigator.serviceWorker.controller) {
      generation++;
      worker.terminate();
      worker = null;
      start({ file: true });
      return;
    }
    if (state === "booting") fail({ stage: "worker", key: "worker_failed", args: { why: ev.message || "" } });
    else restart("engine_crashed");
  };
  // what the worker said before this module was loaded, in order; after the current task, so
  // the listeners the page adds right after start() hear it too
  const w = worker;
  if (made.early.length) setTimeout(() => {
    for (const [kind, ev] of made.early.splice(0)) (kind === "error" ? w.onerror : w.onmessage)(ev);
  }, 0);
}

// End the worker now and boot a new one. Pending calls fail with StoppedError(why); why is a
// message key (err.WHY), returned for the page's notice.
export function restart(why = "stopped") {
  generation++;
  if (worker) worker.terminate();
  worker = null;
  readyInfo = null;
  optionals = [];
  restarts++;
  const err = new StoppedError(why);
  for (const [id, p] of pending) { emit("settled", { id, fn: p.fn }); p.reject(err); }
  pending.clear();
  queued.length = 0;
  start();
  return why;
}

export function stop() {
  return restart("stopped");
}

export function ready() {
  return new Promise((resolve, reject) => {
    on("ready", resolve);
    on("fatal", (m) => reject(new EngineFailed(m)));
  });
}

export function call(fn, args = {}) {
  if (state === "failed") return Promise.reject(new EngineFailed(fatalInfo));
  start();
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject, fn, sentAt: null });
    if (state === "ready") post(id, fn, args);
    else queued.push([id, fn, args]);
  });
}

// Resolves once no call is pending or queued: a test (or a tool) waits for the engine to have
// answered everything asked of it, instead of for a fixed time. With a limit (ms), it rejects
// once the limit has passed with the calls still open named, so a call that is never answered
// fails the test that waits for it with a message instead of hanging the suite.
export function idle(limitMs = Infinity) {
  const since = performance.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pending.size === 0) return resolve();
      if (performance.now() - since >= limitMs) return reject(new Error(`engine not idle after ${Math.round(limitMs)} ms (${state}): ${openCalls()}`));
      setTimeout(check, 20);
    };
    check();
  });
}

// The calls still open, each as fn#id and how long since it was sent (or "queued"): idle's message.
function openCalls() {
  const now = performance.now();
  return [...pending].map(([id, p]) => `${p.fn}#${id} ${p.sentAt == null ? "queued" : `sent ${Math.round(now - p.sentAt)} ms ago`}`).join(", ");
}

// The watchdog: announce calls that have run longer than SLOW_MS (the page shows Stop).
setInterval(() => {
  const now = performance.now();
  for (const [id, p] of pending) {
    if (p.sentAt != null && !p.announced && now - p.sentAt > SLOW_MS) {
      p.announced = true;
      emit("slow", { id, fn: p.fn, ms: now - p.sentAt });
    }
  }
}, 250);
