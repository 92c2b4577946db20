// The engine worker: Pyodide + the decodelab wheel + the wasm kernel, behind one message channel.
//
// Page -> worker:  {id, fn, args}            run Python endpoint `fn` with keyword args
// Worker -> page:  {id, ok, result | error}  the endpoint's answer
//                  {type: "progress", stage, detail, ms}   while loading
//                  {type: "ready", info} | {type: "fatal", stage, key, args, message}
//                  {type: "optional", what, key, args, message}   a part only one widget needs failed
// The worker has no text of its own: what it tells the reader is a message key (err.KEY in
// web/i18n/LANG.txt) and its arguments, which the page renders in the reader's language;
// `message` is the same in English-like words for the console and the tests.
//                  {type: "closing"}                       the worker is about to close itself
// Everything is fetched from our own origin, each download with a deadline; nothing here
// reaches the network beyond it. Calls that arrive before Python is ready wait in `early`.

// No static imports: a module worker runs nothing until its static imports have arrived, and
// the downloads below (Pyodide's wasm first, the longest step) should start at its first instant.
// Pyodide's loader and the plain-JS products are asked for at once and awaited where needed.
const pyodideLoader = import("../pyodide/pyodide.mjs");
pyodideLoader.catch(() => {}); // reported where it is awaited, with the file's name
const jsMatvec = import("./jsmatvec.js");
jsMatvec.catch(() => {});

const t0 = performance.now();
const params = new URL(self.location.href).searchParams;
const FETCH_TIMEOUT_MS = 30000;
const PYODIDE_TIMEOUT_MS = 40000;
let stage = "start";
// ms since the worker started, at each milestone of the boot (bench startup prints them)
const marks = {};
const mark = (name) => { marks[name] = Math.round(performance.now() - t0); };
mark("start"); // this module's first instant (no static imports to wait for)

// Messages that arrive during boot wait here (the page queues too; this is the second net).
const early = [];
self.onmessage = (ev) => early.push(ev);

// Python code run by the reader can call js.close(): tell the page first, so it restarts us.
const realClose = self.close.bind(self);
self.close = () => { self.postMessage({ type: "closing" }); realClose(); };

// an error as the fields of a message to the page: {key, args} where we have one, and message
function payload(e) {
  const message = String(e && e.message ? e.message : e);
  return e && e.key ? { key: e.key, args: e.args, message } : { message };
}

function progress(next, detail = "") {
  stage = next;
  self.postMessage({ type: "progress", stage, detail, ms: performance.now() - t0 });
}

// An error the reader will read: err.KEY with arguments (an argument may be another message).
class Msg extends Error {
  constructor(key, args = {}) {
    super(`${key} ${JSON.stringify(args)}`);
    this.key = key;
    this.args = args;
  }
}
// a model as the reader reads it ("the draft model", ru «черновая модель»)
const modelName = (name) => ({ key: `model.name.${name}` });
// an error as a message argument: ours as {key, args}, anything else in the browser's own words
const reason = (e) => (e && e.key ? { key: `err.${e.key}`, args: e.args } : String((e && e.message) || e).split("\n")[0]);
const fetchWhy = (e) => (e.name === "AbortError" ? { key: "err.fetch_timeout", args: { s: FETCH_TIMEOUT_MS / 1000 } } : reason(e));

// what: the file's kind, a key under file.* (file.manifest, file.model.main …)
async function fetchBytes(url, what) {
  const name = decodeURIComponent(new URL(url).pathname.split("/").pop());
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), FETCH_TIMEOUT_MS);
  let res;
  try {
    res = await fetch(url, { signal: ctl.signal });
    if (!res.ok) throw new Msg("http", { status: res.status });
    return new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    throw new Msg("fetch_failed", { what: { key: `file.${what}` }, name, why: fetchWhy(e) });
  } finally {
    clearTimeout(timer);
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Msg("step_timeout", { what: { key: `boot.stage.${what}` }, s: ms / 1000 })), ms);
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
  const kernelName = (key) => ({ key: `file.kernel.${key}` });
  for (const [key] of candidates) {
    try {
      const bytes = await fetchBytes(abs(info.kernels[key]), `kernel.${key}`);
      if (!WebAssembly.validate(bytes)) {
        problems.push({ key: "err.kernel_problem", args: { kernel: kernelName(key), why: { key: "err.kernel_unsupported" } } });
        continue;
      }
      const { instance } = await WebAssembly.instantiate(bytes, {});
      let notice = null; // a message payload, or none
      const best = order[0][0];
      if (choice || params.get("nosimd") === "1") notice = { key: "kernel_by_address", args: { kernel: kernelName(key) } };
      else if (key !== best) notice = { key: key === order[order.length - 1][0] ? "kernel_fallback_scalar" : "kernel_fallback",
        args: { kernel: kernelName(key), problems } };
      return { exports: instance.exports, name: key + ".wasm", notice };
    } catch (e) {
      problems.push({ key: "err.kernel_problem", args: { kernel: kernelName(key), why: reason(e) } });
    }
  }
  throw new Msg("no_kernel", { problems });
}

// The comparison kernels for chapter 2's speed race: the scalar build and the plain-JS matvec build.
async function loadComparisonKernels(info) {
  const out = {};
  const scalar = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_scalar), "kernel.kernel_scalar"), {});
  out.scalar = scalar.instance.exports;
  let mem = null;
  const { jsMatmatImports } = await jsMatvec.catch((e) => { throw new Msg("file_problem", { name: "jsmatvec.js", why: fetchWhy(e) }); });
  const js = await WebAssembly.instantiate(await fetchBytes(abs(info.kernels.kernel_jsmatvec), "kernel.kernel_jsmatvec"),
    { env: jsMatmatImports(() => mem) });
  mem = js.instance.exports.memory;
  out.js = js.instance.exports;
  return out;
}

// ---- Python: restored from the build's memory snapshot, or started from scratch ------------------

// The snapshot ships as the memory's pages that are not all zeros, gzip-compressed (build.py
// says why), run after run; the manifest lists the runs, [offset, length]. It is inflated by the
// browser's own DecompressionStream as it downloads, and each run goes straight to its place in
// one zeroed buffer of the memory's size (no second copy). gzip's CRC is checked by the stream,
// so a damaged file fails here, not inside Python. A server that already decoded it
// (Content-Encoding) hands over the runs uncompressed, which are placed the same way.
async function fetchSnapshot(snap) {
  const name = snap.file.split("/").pop();
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), FETCH_TIMEOUT_MS);
  try {
    const res = await fetch(abs(snap.url), { signal: ctl.signal });
    if (!res.ok) throw new Msg("http", { status: res.status });
    const [peek, body] = res.body.tee();
    const peeker = peek.getReader();
    const first = (await peeker.read()).value || new Uint8Array(0);
    peeker.cancel(); // one look is enough: a tee branch left unread would buffer the whole file
    const gz = first[0] === 0x1f && first[1] === 0x8b;
    const reader = (gz ? body.pipeThrough(new DecompressionStream("gzip")) : body).getReader();
    const mem = new Uint8Array(snap.memory_bytes);
    const runs = snap.runs || [[0, snap.memory_bytes]];
    let run = 0;
    let [at, left] = runs[0];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!marks.snapshot_first_bytes) mark("snapshot_first_bytes");
      for (let i = 0; i < value.length;) {
        if (run === runs.length) throw new Msg("snapshot_too_large");
        const n = Math.min(left, value.length - i);
        mem.set(value.subarray(i, i + n), at);
        i += n;
        at += n;
        left -= n;
        if (left === 0 && ++run < runs.length) [at, left] = runs[run];
      }
    }
    if (run !== runs.length) throw new Msg("snapshot_incomplete");
    mark("snapshot_inflated");
    return mem;
  } catch (e) {
    throw new Msg("file_problem", { name, why: fetchWhy(e) });
  } finally {
    clearTimeout(timer);
  }
}

// Pyodide compiles its 9.6 MB of wasm only once the snapshot is in (it needs the snapshot's size
// first), so the compile and the snapshot's download and inflate ran one after the other. Here
// the compile starts with the worker and runs while the manifest and the snapshot download (on
// this 2-core VM, an engine-only page's worker was ready 0.16 s sooner). Pyodide takes the compiled module through its
// createPyodideModule option: we load its Emscripten factory ourselves and let Pyodide's
// instantiateWasm add its own imports, answering its one instantiateStreaming call with our
// module. Pyodide's own fetch of the same file (made when loadPyodide starts) is answered with an
// empty body, so the 9.6 MB are not downloaded twice.
function startPyodideWasm() {
  const url = abs("pyodide/pyodide.asm.wasm");
  const module = fetch(url).then(async (res) => {
    if (!res.ok) throw new Msg("http", { status: res.status });
    // compileStreaming needs the wasm MIME type; a server that sends another gets the plain compile
    const compiled = await ((res.headers.get("Content-Type") || "").startsWith("application/wasm")
      ? WebAssembly.compileStreaming(res) : WebAssembly.compile(await res.arrayBuffer()));
    mark("pyodide_compiled");
    return compiled;
  }).catch((e) => { // a broken Pyodide fails both start-up paths alike: say so at once
    throw Object.assign(new Msg("file_problem", { name: "pyodide.asm.wasm", why: fetchWhy(e) }), { fatal: true });
  });
  module.catch(() => {});
  // Pyodide's JavaScript half (1.2 MB): evaluating it holds this thread for a while, so it is
  // asked for once the snapshot's download is under way, not before (then the manifest waited)
  let factory = null;
  const loadFactory = () => (factory ??= import("../pyodide/pyodide.asm.mjs").then((m) => { mark("pyodide_js"); return m.default; }));
  const createPyodideModule = async (settings) => {
    const theirs = settings.instantiateWasm;
    settings.instantiateWasm = (imports, done) => {
      const real = WebAssembly.instantiateStreaming;
      WebAssembly.instantiateStreaming = async (_empty, withTheirImports) => {
        WebAssembly.instantiateStreaming = real;
        const compiled = await module;
        mark("pyodide_instantiate");
        return { module: compiled, instance: await WebAssembly.instantiate(compiled, withTheirImports) };
      };
      return theirs(imports, done);
    };
    return (await loadFactory())(settings);
  };
  // loadPyodide with our module; it fails at once if the wasm could not be had (else Pyodide
  // would wait for an instance that never comes). `answers`: URL -> bytes that Pyodide's own
  // requests for those URLs get instead of a download.
  const load = (options, answers = {}) => {
    const realFetch = self.fetch;
    const py = pyodideLoader.catch((e) => {
      throw Object.assign(new Msg("file_problem", { name: "pyodide.mjs", why: fetchWhy(e) }), { fatal: true });
    }).then(({ loadPyodide }) => {
      self.fetch = (input, init) => {
        const asked = String(input instanceof Request ? input.url : input);
        if (asked === url) {
          return Promise.resolve(new Response(new Uint8Array(0), { headers: { "Content-Type": "application/wasm" } }));
        }
        return Object.hasOwn(answers, asked) ? Promise.resolve(new Response(answers[asked])) : realFetch(input, init);
      };
      return loadPyodide({ ...options, createPyodideModule });
    });
    py.finally(() => { self.fetch = realFetch; }).catch(() => {});
    return Promise.race([module.then(() => new Promise(() => {})), py]);
  };
  return { load, loadFactory };
}

function stdlibError(e, file = "python_stdlib.zip") {
  return /Program terminated|exit\(1\)|python_stdlib/i.test(e.message) ? new Msg("stdlib_damaged", { file }) : e;
}

// An empty zip archive (its end-of-directory record alone): where the standard library goes
// while Python is restored from the snapshot (startPython says why)
const EMPTY_ZIP = Uint8Array.of(0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0));

// Restore the snapshot (decodelab already imported in it) if it is there and matches this
// build; otherwise start Python and import decodelab (the .pyc path, about half a second
// slower), with a one-line notice saying why. Either way the package zip is written to the
// file system (imports made later and tracebacks read it) and returned with Python running,
// with `fullStdlib()`, which the reader's Python cell awaits before it runs.
async function startPython(infoP, packageP, wasm) {
  const start = (extra, answers) => withTimeout(wasm.load({ indexURL: abs("pyodide/"), packages: [], ...extra }, answers),
    PYODIDE_TIMEOUT_MS, "pyodide");
  let notice = null;
  if (params.get("snapshot") !== "0") { // ?snapshot=0: from scratch (tests compare the two paths)
    progress("pyodide", "restoring Python from the snapshot");
    try {
      // Pyodide fetches and compiles its wasm while the snapshot is still downloading
      const snapshotP = infoP.then((info) => {
        if (!info.snapshot) throw new Msg("snapshot_none");
        return fetchSnapshot(info.snapshot);
      });
      snapshotP.catch(() => {}); // its failure is handled below, through loadPyodide
      infoP.then(wasm.loadFactory, () => {});
      // The stdlib zip the snapshot was made over (its .py files: build.py says why) is not
      // fetched now: every module our endpoints use was imported into the snapshot, so Python
      // is restored over an empty zip in its place, and the 2.5 MB come when the reader's cell
      // first runs (any import may need them then). Python's zip importer kept the zip's
      // directory in the snapshot; the bytes written later are the very ones it was read from.
      const info = await infoP;
      const stdLibURL = abs(info.snapshot?.stdlib_url || "pyodide/python_stdlib.zip");
      const pyodide = await start({ _loadSnapshot: snapshotP, stdLibURL }, { [stdLibURL]: EMPTY_ZIP });
      mark("python_restored");
      const zipPath = pyodide.runPython("import sys; f'/lib/python{sys.version_info[0]}{sys.version_info[1]}.zip'");
      // the zip importer reads at the offsets it kept: only the very bytes will do (a stale copy
      // from a cache would fail inside the reader's imports, in words nobody could act on)
      const want = info.snapshot.stdlib_sha256;
      let full = null; // once written it stays; a failed download is tried again at the next run
      const fullStdlib = () => (full ??= fetchBytes(stdLibURL, "stdlib")
        .then(async (bytes) => {
          const got = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
            .map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, want.length);
          if (got !== want) throw new Msg("stdlib_damaged", { file: stdLibURL.split("/").pop().split("?")[0] });
          pyodide.FS.writeFile(zipPath, bytes);
          mark("stdlib_full");
        })
        .catch((e) => { full = null; throw e; }));
      pyodide.FS.writeFile(info.package_mount, await packageP);
      const tag = pyodide.runPython("import sys; getattr(sys, '_decodelab_snapshot', '')");
      if (tag !== info.package_sha256) throw new Msg("snapshot_other_build");
      // state frozen in the snapshot that must differ per visit: Python's own random stream
      pyodide.runPython("import random; random.seed()");
      return { pyodide, path: "snapshot", notice, fullStdlib };
    } catch (e) {
      if (e.fatal || e.key === "step_timeout") throw e;
      await infoP; // no manifest: that is the error to report (boot() does)
      notice = { key: "python_no_snapshot", args: { why: reason(e) } };
      console.warn("decodelab: Python started without its memory snapshot:", e.message);
    }
  }
  progress("pyodide", "starting Python");
  const pyodide = await start({}).catch((e) => { throw stdlibError(e); });
  // our package: a zip of .pyc (with the .py beside them, for tracebacks) put on sys.path;
  // micropip stays out of the start-up path and is loaded only if the reader's cell asks for it
  progress("package", "adding the decodelab package");
  const info = await infoP;
  pyodide.FS.writeFile(info.package_mount, await packageP);
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(info.package_mount)})`);
  return { pyodide, path: "import", notice, fullStdlib: async () => {} };
}

async function readManifest() {
  try {
    return JSON.parse(new TextDecoder().decode(await fetchBytes(abs("build-info.json?t=" + Date.now()), "manifest")));
  } catch (e) {
    throw e instanceof SyntaxError ? new Msg("manifest_damaged") : e;
  }
}

async function boot() {
  const wasm = startPyodideWasm(); // before anything: the compile is the longest single step
  progress("files", "reading the build manifest");
  const infoP = readManifest();
  infoP.catch(() => {});
  // Python starts as soon as the manifest is in (it names the snapshot and the stdlib zip made
  // with it), before the kernel and model downloads: its start-up is the long pole.
  const packageP = infoP.then((info) => fetchBytes(abs(info.package), "package"));
  packageP.catch(() => {});
  const pythonP = startPython(infoP, packageP, wasm);
  pythonP.catch(() => {});
  const info = await infoP; // a missing or damaged manifest is the error to report, not Python's
  mark("manifest");

  // Start independent downloads at once.
  const kernelP = loadKernel(info);
  kernelP.catch(() => {});
  // the speed race's extra kernels are optional: if they fail, only that widget says so
  const comparisonP = loadComparisonKernels(info).catch((e) => ({ error: e }));
  const modelP = (name) => fetchBytes(abs(info.models[name]), `model.${name}`);
  const mainP = modelP("main");
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

  let micropipLoaded = false;
  const answer = async (ev) => {
    const { id, fn, args } = ev.data;
    if (fn === "run_cell" && !micropipLoaded && /micropip/.test((args && args.code) || "")) {
      micropipLoaded = true; // the reader's cell wants it: load it now, from our own origin
      try { await pyodide.loadPackage(abs(info.micropip), { messageCallback: () => {} }); } catch { /* the cell reports the ImportError */ }
    }
    const run = () => {
      try {
        return JSON.parse(dispatch(fn, JSON.stringify(args ?? {})));
      } catch (e) {
        return { ok: false, error: { type: "WorkerError", message: String(e.message || e) } };
      }
    };
    let reply = run();
    const missing = !reply.ok && reply.error.model;
    if (missing && info.models[missing]) { // a failed load answers with its first error
      try {
        await loadOnNeed(missing);
        reply = run();
      } catch (e) {
        reply = { ok: false, error: { type: "InputError", field: "model", key: "model_load_failed",
                                      args: { model: modelName(missing), why: reason(e) }, message: e.message } };
      }
    }
    self.postMessage({ id, ...reply });
  };
  // one call at a time, in order, even when one awaits (micropip): a queue, not overlapping handlers
  let chain = Promise.resolve();
  self.onmessage = (ev) => {
    if (ev.data.fn !== "run_cell") {
      chain = chain.then(() => answer(ev));
      return;
    }
    // the reader's code may import any module: the whole stdlib first. It downloads outside the
    // queue, so the other widgets' calls go on meanwhile; the cell joins the queue once it is in.
    py.fullStdlib().then(() => null, (e) => e).then((failed) => {
      chain = chain.then(() => (failed
        ? self.postMessage({ id: ev.data.id, ok: false, error: { type: "WorkerError", ...payload(failed) } })
        : answer(ev)));
    });
  };
  self.postMessage({
    type: "ready",
    info: { ...hello.result, models, kernelNotice: kernel.notice, ms: performance.now() - t0,
            pythonStart: py.path, pythonNotice: py.notice, marks, timeOrigin: performance.timeOrigin, t0,
            speedRace: !comparison.error },
  });
  for (const ev of early.splice(0)) self.onmessage(ev);
}

boot().catch((e) => {
  self.postMessage({ type: "fatal", stage, ...payload(e) });
});
