// The engine worker: Pyodide + the decodelab wheel + the wasm kernel, behind one message channel.
//
// Page -> worker:  {id, fn, args}            run Python endpoint `fn` with keyword args
// Worker -> page:  {id, ok, result | error}  the endpoint's answer
//                  {type: "progress", stage, detail, ms}   while loading
//                  {type: "ready", info} | {type: "fatal", stage, message}
//                  {type: "optional", what, message}       a part only one widget needs failed
//                  {type: "closing"}                       the worker is about to close itself
// Everything is fetched from our own origin, each download with a deadline; nothing here
// reaches the network beyond it. Calls that arrive before Python is ready wait in `early`.

import { loadPyodide } from "../pyodide/pyodide.mjs";
import { jsMatmatImports } from "./jsmatvec.js";

const t0 = performance.now();
const params = new URL(self.location.href).searchParams;
const FETCH_TIMEOUT_MS = 30000;
const PYODIDE_TIMEOUT_MS = 40000;
let stage = "start";

// Messages that arrive during boot wait here (the page queues too; this is the second net).
const early = [];
self.onmessage = (ev) => early.push(ev);

// Python code run by the reader can call js.close(): tell the page first, so it restarts us.
const realClose = self.close.bind(self);
self.close = () => { self.postMessage({ type: "closing" }); realClose(); };

function progress(next, detail = "") {
  stage = next;
  self.postMessage({ type: "progress", stage, detail, ms: performance.now() - t0 });
}

const REMEDY = "Reload the page to try again; if it keeps failing, the site on this server is incomplete " +
  "(whoever runs it can rebuild it with `python3 build.py`).";

async function fetchBytes(url, what) {
  const name = decodeURIComponent(new URL(url).pathname.split("/").pop());
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), FETCH_TIMEOUT_MS);
  let res;
  try {
    res = await fetch(url, { signal: ctl.signal });
    if (!res.ok) throw new Error(`the server answered HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    const why = e.name === "AbortError" ? `it did not arrive within ${FETCH_TIMEOUT_MS / 1000} s` : (e.message || String(e));
    throw new Error(`Could not load ${what} (${name}): ${why}. ${REMEDY}`);
  } finally {
    clearTimeout(timer);
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s. ${REMEDY}`)), ms);
  })]).finally(() => clearTimeout(timer));
}

const siteRoot = new URL("../", self.location.href);
const abs = (path) => new URL(path, siteRoot).href;

// Pick the best build this browser can run: each candidate is validated and instantiated, and the
// first that works is used (relaxed SIMD, then plain SIMD, then scalar: same results, slower).
async function loadKernel(info) {
  const choice = params.get("kernel"); // ?kernel=scalar|simd forces a build (tests, curious readers)
  const order = info.kernel_order; // [[name, label]] best first, from build-info.json
  let candidates = order;
  if (choice === "scalar" || params.get("nosimd") === "1") candidates = order.slice(-1);
  else if (choice === "simd") candidates = order.slice(1);
  const problems = [];
  for (const [key, label] of candidates) {
    try {
      const bytes = await fetchBytes(abs(info.kernels[key]), `the ${label}`);
      if (!WebAssembly.validate(bytes)) { problems.push(`${label}: this browser cannot run it`); continue; }
      const { instance } = await WebAssembly.instantiate(bytes, {});
      let notice = "";
      const best = order[0][0];
      if (choice || params.get("nosimd") === "1") notice = `The ${label} was selected by the page address.`;
      else if (key !== best) notice = `This page runs the ${label} (${problems.join("; ")}): the same results, ` +
        (key === order[order.length - 1][0] ? "several times slower." : "somewhat slower.");
      return { exports: instance.exports, name: key + ".wasm", notice };
    } catch (e) {
      problems.push(`${label}: ${e.message}`);
    }
  }
  throw new Error(`No kernel could be loaded. ${problems.join(" ")}`);
}

// The comparison kernels for chapter 2's speed race: the scalar build and the plain-JS matvec build.
async function loadComparisonKernels(info) {
  const out = {};
  const scalar = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_scalar), "the scalar kernel"), {});
  out.scalar = scalar.instance.exports;
  let mem = null;
  const js = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_jsmatvec), "the plain-JS kernel"),
    { env: jsMatmatImports(() => mem) });
  mem = js.instance.exports.memory;
  out.js = js.instance.exports;
  return out;
}

async function boot() {
  progress("files", "reading the build manifest");
  let info;
  try {
    info = JSON.parse(new TextDecoder().decode(await fetchBytes(abs("build-info.json?t=" + Date.now()), "the build manifest")));
  } catch (e) {
    throw new Error(e instanceof SyntaxError ? `The build manifest (build-info.json) is damaged. ${REMEDY}` : e.message);
  }

  // Start independent downloads at once; Pyodide's own start-up dominates.
  const kernelP = loadKernel(info);
  kernelP.catch(() => {});
  // the speed race's extra kernels are optional: if they fail, only that widget says so
  const comparisonP = loadComparisonKernels(info).catch((e) => ({ error: String(e.message || e) }));
  const packageP = fetchBytes(abs(info.package), "the decodelab Python package");
  packageP.catch(() => {});
  const modelP = (name) => fetchBytes(abs(info.models[name]), `the ${name} model file`);
  const mainP = modelP("main");
  mainP.catch(() => {});
  const draftP = info.models.draft ? modelP("draft") : Promise.reject(new Error("the draft model is not part of this build"));
  draftP.catch(() => {});

  progress("pyodide", "starting Python");
  const pyodide = await withTimeout(loadPyodide({ indexURL: abs("pyodide/"), packages: [] }), PYODIDE_TIMEOUT_MS,
    "Starting Python (Pyodide)").catch((e) => {
    throw new Error(/Program terminated|exit\(1\)|python_stdlib/i.test(e.message)
      ? `Python's standard library (python_stdlib.zip) is missing or damaged. ${REMEDY}` : e.message);
  });

  // our package: a zip of .pyc (with the .py beside them, for tracebacks) put on sys.path;
  // micropip stays out of the start-up path and is loaded only if the reader's cell asks for it
  progress("package", "adding the decodelab package");
  pyodide.FS.writeFile(info.package_mount, await packageP);
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(info.package_mount)})`);
  progress("kernel", "instantiating the wasm kernel");
  const kernel = await kernelP;
  pyodide.registerJsModule("decodelab_kernel", { exports: kernel.exports, name: kernel.name });
  const comparison = await comparisonP;
  if (!comparison.error) {
    pyodide.registerJsModule("decodelab_kernel_scalar", { exports: comparison.scalar, name: "kernel_scalar.wasm" });
    pyodide.registerJsModule("decodelab_kernel_jsmatvec", { exports: comparison.js, name: "kernel_jsmatvec.wasm" });
  } else {
    self.postMessage({ type: "optional", what: "speed", message: comparison.error });
  }
  const dispatch = pyodide.pyimport("decodelab.api").dispatch;
  const hello = JSON.parse(dispatch("ping", "{}"));
  if (!hello.ok) throw new Error(`Python could not reach the kernel: ${hello.error.message}`);

  progress("model", "loading the models");
  pyodide.FS.mkdirTree("/models");
  const load = async (name, bytesP) => {
    pyodide.FS.writeFile(`/models/${name}.dlm`, await bytesP);
    const r = JSON.parse(dispatch("load_models", JSON.stringify({ paths: { [name]: `/models/${name}.dlm` } })));
    if (!r.ok) throw new Error(`${r.error.message} ${REMEDY}`);
    return r.result[name];
  };
  const models = { main: await load("main", mainP) };
  try {
    models.draft = await load("draft", draftP);
  } catch (e) { // only the live speculative widget needs the draft
    self.postMessage({ type: "optional", what: "draft", message: e.message });
  }

  let micropipLoaded = false;
  const answer = async (ev) => {
    const { id, fn, args } = ev.data;
    if (fn === "run_cell" && !micropipLoaded && /micropip/.test((args && args.code) || "")) {
      micropipLoaded = true; // the reader's cell wants it: load it now, from our own origin
      try { await pyodide.loadPackage(abs(info.micropip), { messageCallback: () => {} }); } catch { /* the cell reports the ImportError */ }
    }
    let reply;
    try {
      reply = JSON.parse(dispatch(fn, JSON.stringify(args ?? {})));
    } catch (e) {
      reply = { ok: false, error: { type: "WorkerError", message: String(e.message || e) } };
    }
    self.postMessage({ id, ...reply });
  };
  // one call at a time, in order, even when one awaits (micropip): a queue, not overlapping handlers
  let chain = Promise.resolve();
  self.onmessage = (ev) => { chain = chain.then(() => answer(ev)); };
  self.postMessage({
    type: "ready",
    info: { ...hello.result, models, kernelNotice: kernel.notice, ms: performance.now() - t0,
            speedRace: !comparison.error },
  });
  for (const ev of early.splice(0)) self.onmessage(ev);
}

boot().catch((e) => {
  self.postMessage({ type: "fatal", stage, message: String(e && e.message ? e.message : e) });
});
