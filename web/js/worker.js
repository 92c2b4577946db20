// The engine worker: Pyodide + the decodelab wheel + the wasm kernel, behind one message channel.
//
// Page -> worker:  {id, fn, args}            run Python endpoint `fn` with keyword args
// Worker -> page:  {id, ok, result | error}  the endpoint's answer
//                  {type: "progress", stage, detail, ms}   while loading
//                  {type: "ready", info} | {type: "fatal", stage, message}
// Everything is fetched from our own origin; nothing here reaches the network beyond it.

import { loadPyodide } from "../pyodide/pyodide.mjs";
import { jsMatmatImports } from "./jsmatvec.js";

const t0 = performance.now();
const params = new URL(self.location.href).searchParams;
let stage = "start";

function progress(next, detail = "") {
  stage = next;
  self.postMessage({ type: "progress", stage, detail, ms: performance.now() - t0 });
}

async function fetchBytes(url, what) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`could not fetch ${what} (${url}): ${e.message}`);
  }
  if (!res.ok) throw new Error(`${what} is missing: ${url} answered HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

// Pick the best build this browser validates: SIMD with the relaxed-SIMD dot product, else plain
// SIMD, else the scalar build (same ABI, same results, slower).
const siteRoot = new URL("../", self.location.href);
const abs = (path) => new URL(path, siteRoot).href;

async function loadKernel(info) {
  const choice = params.get("kernel"); // ?kernel=scalar|simd|relaxed forces a build (tests, curious readers)
  const forceScalar = choice === "scalar" || params.get("nosimd") === "1";
  // build names and their order come from build-info.json (written from decodelab/builds.py)
  let candidates = info.kernel_order; // [[name, label]], best first, the scalar build last
  const scalarKey = candidates[candidates.length - 1][0];
  if (forceScalar) candidates = candidates.slice(-1);
  else if (choice === "simd") candidates = candidates.slice(1);
  let bytes = null, name = "", notice = "";
  for (const [key, what] of candidates) {
    const b = await fetchBytes(abs(info.kernels[key]), what);
    if (key === scalarKey || WebAssembly.validate(b)) { bytes = b; name = key + ".wasm"; break; }
  }
  if (name === scalarKey + ".wasm") {
    notice = forceScalar && choice === "scalar"
      ? "Scalar kernel selected by the page address."
      : "This browser has no WebAssembly SIMD, so the page runs the scalar kernel: same results, several times slower.";
  }
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiate(bytes, {}));
  } catch (e) {
    throw new Error(`the wasm kernel ${name} failed to load: ${e.message}`);
  }
  return { exports: instance.exports, name, notice };
}

// The comparison kernels for chapter 2's speed race: the scalar build and the plain-JS matvec build.
async function loadComparisonKernels(info) {
  const out = {};
  const scalar = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_scalar), "scalar kernel"), {});
  out.scalar = scalar.instance.exports;
  let mem = null;
  const js = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_jsmatvec), "plain-JS kernel"),
    { env: jsMatmatImports(() => mem) });
  mem = js.instance.exports.memory;
  out.js = js.instance.exports;
  return out;
}

async function boot() {
  progress("files", "reading the build manifest");
  const info = JSON.parse(new TextDecoder().decode(await fetchBytes(abs("build-info.json?t=" + Date.now()), "build manifest")));

  // Start independent downloads at once; Pyodide's own start-up dominates.
  const kernelP = loadKernel(info);
  // the speed race's extra kernels are optional: if they fail, only that widget says so
  const comparisonP = loadComparisonKernels(info).catch((e) => ({ error: String(e.message || e) }));
  const wheelP = fetchBytes(abs(info.wheel), "decodelab wheel");
  const modelsP = Promise.all(Object.entries(info.models).map(async ([name, url]) =>
    [name, await fetchBytes(abs(url), `model file ${name}.dlm`)]));

  progress("pyodide", "starting Python");
  const pyodide = await loadPyodide({ indexURL: abs("pyodide/"), packages: [] });

  progress("package", "installing the decodelab package");
  await pyodide.loadPackage(abs(info.micropip), { messageCallback: () => {} });
  const wheelName = info.wheel.split("/").pop().split("?")[0];
  pyodide.FS.writeFile("/tmp/" + wheelName, await wheelP);
  await pyodide.runPythonAsync(`
import micropip
await micropip.install("emfs:/tmp/${wheelName}", deps=False)
`);

  progress("kernel", "instantiating the wasm kernel");
  const kernel = await kernelP;
  pyodide.registerJsModule("decodelab_kernel", { exports: kernel.exports, name: kernel.name });
  const comparison = await comparisonP;
  if (!comparison.error) {
    pyodide.registerJsModule("decodelab_kernel_scalar", { exports: comparison.scalar, name: "kernel_scalar.wasm" });
    pyodide.registerJsModule("decodelab_kernel_jsmatvec", { exports: comparison.js, name: "kernel_jsmatvec.wasm" });
  }
  const api = pyodide.pyimport("decodelab.api");
  const dispatch = api.dispatch;
  const hello = JSON.parse(dispatch("ping", "{}"));
  if (!hello.ok) throw new Error(`Python could not reach the kernel: ${hello.error.message}`);

  progress("model", "loading the models");
  pyodide.FS.mkdirTree("/models");
  const paths = {};
  for (const [name, bytes] of await modelsP) {
    pyodide.FS.writeFile(`/models/${name}.dlm`, bytes);
    paths[name] = `/models/${name}.dlm`;
  }
  const loaded = JSON.parse(dispatch("load_models", JSON.stringify({ paths })));
  if (!loaded.ok) throw new Error(loaded.error.message);

  self.onmessage = (ev) => {
    const { id, fn, args } = ev.data;
    let reply;
    try {
      reply = JSON.parse(dispatch(fn, JSON.stringify(args ?? {})));
    } catch (e) {
      reply = { ok: false, error: { type: "WorkerError", message: String(e.message || e) } };
    }
    self.postMessage({ id, ...reply });
  };
  self.postMessage({
    type: "ready",
    info: { ...hello.result, models: loaded.result, kernelNotice: kernel.notice, ms: performance.now() - t0 },
  });
}

boot().catch((e) => {
  self.postMessage({ type: "fatal", stage, message: String(e && e.message ? e.message : e) });
});
