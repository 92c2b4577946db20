// The page's side of the worker channel: call(fn, args) -> Promise of the Python result.
// Widgets only ever talk to the engine through `call`; they never touch Pyodide directly.

const listeners = { progress: [], ready: [], fatal: [] };
let worker = null;
let nextId = 1;
const pending = new Map();
let readyInfo = null;
let fatal = null;

export class PyError extends Error {
  constructor(err) {
    super(err.message);
    this.type = err.type;
    this.field = err.field || null;
    this.trace = err.trace || "";
  }
}

export function on(event, fn) {
  listeners[event].push(fn);
  if (event === "ready" && readyInfo) fn(readyInfo);
  if (event === "fatal" && fatal) fn(fatal);
}

function emit(event, payload) {
  for (const fn of listeners[event]) fn(payload);
}

export function start() {
  if (worker) return;
  const url = new URL("./worker.js", import.meta.url);
  url.search = location.search; // lets ?kernel=scalar reach the worker
  worker = new Worker(url, { type: "module" });
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.type === "progress") return emit("progress", m);
    if (m.type === "ready") {
      readyInfo = m.info;
      return emit("ready", m.info);
    }
    if (m.type === "fatal") {
      fatal = m;
      for (const [, p] of pending) p.reject(new Error(m.message));
      pending.clear();
      return emit("fatal", m);
    }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(new PyError(m.error));
  };
  worker.onerror = (ev) => {
    fatal = { stage: "worker", message: ev.message || "the worker script failed to load" };
    emit("fatal", fatal);
  };
}

export function ready() {
  return new Promise((resolve, reject) => {
    on("ready", resolve);
    on("fatal", (m) => reject(new Error(m.message)));
  });
}

export function call(fn, args = {}) {
  if (fatal) return Promise.reject(new Error(fatal.message));
  start();
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, fn, args });
  });
}
