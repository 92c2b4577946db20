// The engine worker: Pyodide + the decodelab package + the wasm kernel, behind one message channel.
//
// Page -> worker:  {id, fn, args}            run Python endpoint `fn` with keyword args
// Worker -> page:  {id, ok, result | error}  the endpoint's answer
//                  {type: "progress", stage, detail, ms}   while loading
//                  {type: "ready", info} | {type: "fatal", stage, key, args, message}
//                  {type: "optional", what, key, args, message}   a part only one widget needs failed
//                  {type: "closing"}                       the worker is about to close itself
// Its parts, one concern each (worker/): origin-guard.js (requests stay on the origin), messages.js (the boot timeline, errors as message keys),
// fetching.js (downloads with deadlines), kernels.js (which wasm build runs), python.js (the two
// ways Python starts), calls.js (the call queue). build.py bundles them into worker.bundle.js: a
// module worker runs nothing until its static imports have arrived, and the downloads below
// (Pyodide's wasm first, the longest step) should start at its first instant.
import "./worker/origin-guard.js"; // first: before any other code runs in this worker
import { Msg, currentStage, mark, marks, modelName, payload, progress, t0 } from "./worker/messages.js";
import { abs, fetchBytes, fetchInflated, readManifest } from "./worker/fetching.js";
import { loadComparisonKernels, loadKernel } from "./worker/kernels.js";
import { startPyodideWasm, startPython } from "./worker/python.js";
import { serveCalls } from "./worker/calls.js";

// Pyodide's loader (not bundled: a file of Pyodide's own) and the plain-JS products are asked for
// at once and awaited where needed; a failure is reported there, with the file's name.
const PYODIDE_LOADER = "../pyodide/pyodide.mjs";
const pyodideLoader = import(PYODIDE_LOADER);
pyodideLoader.catch(() => {});
const jsMatvec = import("./jsmatvec.js");
jsMatvec.catch(() => {});
mark("start"); // this module's first instant

// the module's own URL, not self.location: started from a blob: URL (boot.js), the worker's
// location is the blob, and the page's query string comes in the module's URL
const params = new URL(import.meta.url).searchParams;

// Messages that arrive during boot wait here (the page queues too; this is the second net).
const early = [];
self.onmessage = (ev) => early.push(ev);

// Python code run by the reader can call js.close(): tell the page first, so it restarts us.
const realClose = self.close.bind(self);
self.close = () => { self.postMessage({ type: "closing" }); realClose(); };

async function boot() {
  const wasm = startPyodideWasm(pyodideLoader); // before anything: the compile is the longest single step
  progress("files", "reading the build manifest");
  const infoP = readManifest();
  infoP.catch(() => {});
  // Python starts as soon as the manifest is in (it names the snapshot and the stdlib zip made
  // with it), before the kernel and model downloads: its start-up is the long pole.
  const packageP = infoP.then((info) => fetchBytes(abs(info.package), "package"));
  packageP.catch(() => {});
  const pythonP = startPython(infoP, packageP, wasm, params);
  pythonP.catch(() => {});
  const info = await infoP; // a missing or damaged manifest is the error to report, not Python's
  mark("manifest");

  // Start independent downloads at once.
  const kernelP = loadKernel(info, params);
  kernelP.catch(() => {});
  // the speed race's extra kernels are optional: if they fail, only that widget says so
  const comparisonP = loadComparisonKernels(info, jsMatvec).catch((e) => ({ error: e }));
  const modelP = (name) => fetchInflated(abs(info.models[name]), `model.${name}`); // shipped as .dlm.gz
  // The main model (5.5 MB) is needed last, once Python is up: it starts downloading when
  // Pyodide's wasm is in, so that on a slow link Python's files come first at the link's whole
  // rate and Python's start-up (CPU) runs while the model arrives. Started at once, it shared
  // the link with them, and Python waited for its files while the model was already half in
  // (bench startup --network: README, "startup over a reader's link"). On a fast link the wasm
  // is in long before Python is up, so this costs nothing there.
  const mainP = wasm.downloaded.then(() => modelP("main"));
  mainP.catch(() => {});

  const py = await pythonP;
  const pyodide = py.pyodide;
  progress("kernel", "instantiating the wasm kernel");
  const kernel = await kernelP;
  mark("kernel");
  pyodide.registerJsModule("decodelab_kernel", { exports: kernel.exports, name: kernel.name });
  const comparison = await comparisonP;
  if (!comparison.error) {
    pyodide.registerJsModule("decodelab_kernel_scalar", { exports: comparison.scalar, name: "kernel_scalar.wasm" });
    pyodide.registerJsModule("decodelab_kernel_jsmatvec", { exports: comparison.js, name: "kernel_jsmatvec.wasm" });
  } else {
    self.postMessage({ type: "optional", what: "speed", ...payload(comparison.error) });
  }
  const dispatch = pyodide.pyimport("decodelab.api").dispatch;
  const hello = JSON.parse(dispatch("ping", "{}"));
  if (!hello.ok) throw new Msg("kernel_unreachable", { why: hello.error.key ? { key: `err.${hello.error.key}`, args: hello.error.args } : hello.error.message });

  progress("model", "loading the models");
  pyodide.FS.mkdirTree("/models");
  const load = async (name, bytesP) => {
    pyodide.FS.writeFile(`/models/${name}.dlm`, await bytesP);
    const r = JSON.parse(dispatch("load_models", JSON.stringify({ paths: { [name]: `/models/${name}.dlm` } })));
    if (!r.ok) throw r.error.key ? new Msg(r.error.key, r.error.args) : new Msg("model_bad", { model: modelName(name), why: r.error.message });
    return r.result[name];
  };
  const models = { main: await load("main", mainP) };
  mark("main_model");

  // The draft model is fetched and loaded when a call first needs it (Python says which model
  // is missing); if it cannot be, only the live speculative widget loses it.
  const lazy = {};
  const loadOnNeed = (name) => {
    if (!lazy[name]) {
      lazy[name] = (async () => {
        if (!info.models[name]) throw new Msg("model_not_in_build", { model: modelName(name) });
        models[name] = await load(name, modelP(name));
      })();
      lazy[name].catch((e) => self.postMessage({ type: "optional", what: name, ...payload(e) }));
    }
    return lazy[name];
  };

  self.onmessage = serveCalls({ py, info, dispatch, loadOnNeed });
  self.postMessage({
    type: "ready",
    info: { ...hello.result, models, kernelNotice: kernel.notice, ms: performance.now() - t0,
            pythonStart: py.path, pythonChoice: py.choice, pythonNotice: py.notice, marks, timeOrigin: performance.timeOrigin, t0,
            speedRace: !comparison.error },
  });
  for (const ev of early.splice(0)) self.onmessage(ev);
}

boot().catch((e) => {
  self.postMessage({ type: "fatal", stage: currentStage(), ...payload(e) });
});
