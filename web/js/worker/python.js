// Python in the worker: Pyodide restored from the build's memory snapshot (decodelab already
// imported in it), or started from scratch when the snapshot is missing or of another build.
import { Msg, mark, marks, progress, reason } from "./messages.js";
import { abs, fetchBytes, fetchWhy, fetchWithDeadline, inflatedBody, withTimeout } from "./fetching.js";

const PYODIDE_TIMEOUT_MS = 40000;
// Pyodide's Emscripten factory: a file of Pyodide's own, loaded as it is (a name, not a literal,
// so the bundler leaves it out of worker.bundle.js; relative to the bundle, in js/)
const PYODIDE_FACTORY = "../pyodide/pyodide.asm.mjs";

// The snapshot ships as the memory's pages that are not all zeros, gzip-compressed (build.py
// says why), run after run; the manifest lists the runs, [offset, length]. It is inflated by the
// browser's own DecompressionStream as it downloads, and each run goes straight to its place in
// one zeroed buffer of the memory's size (no second copy). gzip's CRC is checked by the stream,
// so a damaged file fails here, not inside Python. A server that already decoded it
// (Content-Encoding) hands over the runs uncompressed, which are placed the same way.
async function fetchSnapshot(snap) {
  return fetchWithDeadline(abs(snap.url), null, async (res) => {
    const reader = (await inflatedBody(res)).getReader();
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
  });
}

// Pyodide compiles its 9.6 MB of wasm only once the snapshot is in (it needs the snapshot's size
// first), so the compile and the snapshot's download and inflate ran one after the other. Here
// the compile starts with the worker and runs while the manifest and the snapshot download (on
// this 2-core VM, an engine-only page's worker was ready 0.16 s sooner). Pyodide takes the compiled module through its
// createPyodideModule option: we load its Emscripten factory ourselves and let Pyodide's
// instantiateWasm add its own imports, answering its one instantiateStreaming call with our
// module. Pyodide's own fetch of the same file (made when loadPyodide starts) is answered with an
// empty body, so the 9.6 MB are not downloaded twice.
export function startPyodideWasm(pyodideLoader) {
  const url = abs("pyodide/pyodide.asm.wasm"); // what Pyodide asks for (answered below)
  let rated; // the link's rate, as this download shows it (linkRate below)
  const linkRate = new Promise((resolve) => { rated = resolve; });
  let arrived; // its last byte is in (or it failed): `downloaded` below
  const downloaded = new Promise((resolve) => { arrived = resolve; });
  const module = fetch(url + ".gz").then(async (res) => {
    if (!res.ok) throw new Msg("http", { status: res.status });
    // shipped gzip-compressed (3.5 MB of 9.6: many servers send .wasm as it is), inflated as it
    // arrives and compiled as it inflates
    const [forRate, forUse] = res.body.tee();
    measureRate(forRate, rated);
    const whole = forUse.pipeThrough(new TransformStream({ flush() { arrived(); } }));
    const wasm = new Response(await inflatedBody(new Response(whole)), { headers: { "Content-Type": "application/wasm" } });
    const compiled = await WebAssembly.compileStreaming(wasm);
    mark("pyodide_compiled");
    return compiled;
  }).catch((e) => { // a broken Pyodide fails both start-up paths alike: say so at once
    rated(null);
    arrived();
    throw Object.assign(new Msg("file_problem", { name: "pyodide.asm.wasm.gz", why: fetchWhy(e) }), { fatal: true });
  });
  module.catch(() => {});
  // Pyodide's JavaScript half (1.2 MB): evaluating it holds this thread for a while, so it is
  // asked for once the snapshot's download is under way, not before (then the manifest waited)
  let factory = null;
  // a missing or broken pyodide.asm.mjs is named in words and ends the start (both paths need it);
  // the promise is marked handled here, so asking for it early leaves no uncaught rejection
  const loadFactory = () => {
    if (!factory) {
      factory = import(PYODIDE_FACTORY).then((m) => { mark("pyodide_js"); return m.default; }, (e) => {
        throw Object.assign(new Msg("file_problem", { name: "pyodide.asm.mjs", why: fetchWhy(e) }), { fatal: true });
      });
      factory.catch(() => {});
    }
    return factory;
  };
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
    // without its factory Pyodide waits (load() has already ended the start, naming the file)
    const factoryFn = await loadFactory().catch(() => null);
    return factoryFn ? factoryFn(settings) : new Promise(() => {});
  };
  // loadPyodide with our module; it fails at once if the wasm could not be had (else Pyodide
  // would wait for an instance that never comes). `answers`: URL -> bytes that Pyodide's own
  // requests for those URLs get instead of a download.
  const load = (options, answers = {}) => {
    const realFetch = self.fetch;
    let failed = null; // the first of Pyodide's own files the server did not have
    const pyodideDir = abs("pyodide/");
    let failNow = () => {};
    const failure = new Promise((_, reject) => { failNow = reject; }); // ends the start at once, if Pyodide waits on
    failure.catch(() => {});
    const py = pyodideLoader.catch((e) => {
      throw Object.assign(new Msg("file_problem", { name: "pyodide.mjs", why: fetchWhy(e) }), { fatal: true });
    }).then(({ loadPyodide }) => {
      self.fetch = (input, init) => {
        const asked = String(input instanceof Request ? input.url : input);
        if (asked === url) {
          return Promise.resolve(new Response(new Uint8Array(0), { headers: { "Content-Type": "application/wasm" } }));
        }
        if (Object.hasOwn(answers, asked)) return Promise.resolve(new Response(answers[asked]));
        // Pyodide reads what it fetched without looking at the status: a missing
        // pyodide-lock.json came back as the server's HTML 404 page and surfaced as
        // "Unexpected token '<' … is not valid JSON". A file of Pyodide's own that the server
        // does not have is named here, in words, and ends the start (nothing works without it).
        if (!asked.startsWith(pyodideDir)) return realFetch(input, init); // our own downloads say their own failures
        return realFetch(input, init).then((res) => {
          if (res.ok) return res;
          const name = decodeURIComponent(new URL(asked, pyodideDir).pathname.split("/").pop());
          const err = Object.assign(new Msg("file_problem", { name, why: { key: "err.http", args: { status: res.status } } }), { fatal: true });
          failed = failed || err;
          failNow(failed);
          // Pyodide is left waiting for this answer, not given an error: it would carry the
          // rejection into promises of its own that nobody awaits, and the page would see an
          // uncaught error. The start ends through `failure` instead.
          return new Promise(() => {});
        });
      };
      loadFactory().catch(failNow); // a missing pyodide.asm.mjs ends the start at once, by its name
      // whatever Pyodide makes of a failed fetch, the reader reads which file it was
      return loadPyodide({ ...options, createPyodideModule }).catch((e) => { throw failed || e; });
    });
    py.finally(() => { self.fetch = realFetch; }).catch(() => {});
    return Promise.race([module.then(() => new Promise(() => {})), py, failure]);
  };
  return { load, loadFactory, linkRate, downloaded };
}

// The link's rate in bytes a second, from the first RATE_BYTES of Pyodide's wasm after its first
// byte (the visit's first download, which keeps the link busy meanwhile: waiting for this figure
// costs no bandwidth); null if the file ends first. Read from a branch of its own, as fast as the
// bytes come, so a busy compile downstream cannot make the link look slow. A cached file reads
// as a fast link.
const RATE_BYTES = 512 * 1024;
async function measureRate(stream, report) {
  const reader = stream.getReader();
  let t0 = null, n = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return report(null);
      if (t0 === null) { t0 = performance.now(); continue; } // the first chunk's arrival starts the clock
      n += value.byteLength;
      if (n >= RATE_BYTES) return report(n / Math.max(1e-3, (performance.now() - t0) / 1000));
    }
  } catch {
    return report(null);
  } finally {
    reader.cancel().catch(() => {}); // this branch only: the compile reads the other
  }
}

// Which start suits this visit. The snapshot restores Python with decodelab imported (0.8 s less
// CPU here than importing from .pyc) but is 5 MB more to download (6.4 MB against the 1.4 MB
// core of the .pyc stdlib): on a link slower than about 50 Mbit/s (5 MB in 0.8 s) those bytes
// cost more than the import does. The wasm's own rate is a share of the link (the page's first
// files come meanwhile; bench startup --network read a 20 Mbit/s link as 8-12 Mbit/s and a 40
// Mbit/s one as 14-36, where the import was ready 0.3 s sooner), hence SLOW_LINK_BPS, 20 Mbit/s
// as read: not higher, since a busy worker thread can make even localhost read as 30 at times
// (then the import costs 1 s there). ?snapshot=1 or 0 chooses by hand.
// Returns {path, rate, by} (rate: bytes a second, or null; by: "address", "cache" or "link").
const SLOW_LINK_BPS = 2.5e6;
async function chooseStart(params, linkRate, infoP) {
  const asked = params.get("snapshot");
  if (asked === "0") return { path: "import", rate: null, by: "address" };
  if (asked === "1") return { path: "snapshot", rate: null, by: "address" };
  // a returning reader: what an earlier visit left in the HTTP cache decides, since a cached wasm
  // reads as a fast link whatever the link is (the URLs carry the build's hashes: never stale)
  const info = await infoP.catch(() => null);
  if (info && info.snapshot && await inCache(abs(info.snapshot.url))) return { path: "snapshot", rate: null, by: "cache" };
  if (info && info.stdlib_core && await inCache(abs(info.stdlib_core))) return { path: "import", rate: null, by: "cache" };
  const rate = await linkRate;
  return { path: rate != null && rate < SLOW_LINK_BPS ? "import" : "snapshot", rate, by: "link" };
}

// whether the browser holds url in its HTTP cache, asked without going to the network
async function inCache(url) {
  try {
    const res = await fetch(url, { cache: "only-if-cached", mode: "same-origin" });
    res.body?.cancel().catch(() => {});
    return res.ok;
  } catch {
    return false;
  }
}

function stdlibError(e, file = "python_stdlib.zip") {
  return /Program terminated|exit\(1\)|python_stdlib/i.test(e.message) ? new Msg("stdlib_damaged", { file }) : e;
}

// An empty zip archive (its end-of-directory record alone): where the standard library goes
// while Python is restored from the snapshot (startPython says why)
const EMPTY_ZIP = Uint8Array.of(0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0));

// The whole standard library, for the reader's cell: `fullStdlib()` downloads url once and hands
// the bytes to `install` (each start path puts them in place its own way); once installed it
// stays, and a failed download is tried again at the next run.
function wholeStdlib(url, install) {
  let done = null;
  return () => (done ??= fetchBytes(url, "stdlib")
    .then(install)
    .then(() => mark("stdlib_full"))
    .catch((e) => { done = null; throw e; }));
}

// Restore the snapshot (decodelab already imported in it) where the link is fast enough for its
// extra bytes (chooseStart) and the snapshot is there and matches this build; otherwise start
// Python and import decodelab (the .pyc path, about half a second more CPU), with a one-line
// notice saying why when the snapshot failed (a slow link is a choice, not a fault: no notice). Either way the package zip is written to the
// file system (imports made later and tracebacks read it) and returned with Python running,
// with `fullStdlib()`, which the reader's Python cell awaits before it runs.
export async function startPython(infoP, packageP, wasm, params) {
  const start = (extra, answers) => withTimeout(wasm.load({ indexURL: abs("pyodide/"), packages: [], ...extra }, answers),
    PYODIDE_TIMEOUT_MS, "pyodide");
  let notice = null;
  const choice = await chooseStart(params, wasm.linkRate, infoP);
  if (choice.path === "snapshot") {
    progress("pyodide", "restoring Python from the snapshot");
    try {
      // Pyodide fetches and compiles its wasm while the snapshot is still downloading
      const snapshotP = infoP.then((info) => {
        if (!info.snapshot) throw new Msg("snapshot_none");
        return fetchSnapshot(info.snapshot);
      });
      snapshotP.catch(() => {}); // its failure is handled below, through loadPyodide
      infoP.then(wasm.loadFactory).catch(() => {}); // its failure is reported through loadPyodide
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
      const fullStdlib = wholeStdlib(stdLibURL, async (bytes) => {
        const got = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
          .map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, want.length);
        if (got !== want) throw new Msg("stdlib_damaged", { file: stdLibURL.split("/").pop().split("?")[0] });
        pyodide.FS.writeFile(zipPath, bytes);
      });
      pyodide.FS.writeFile(info.package_mount, await packageP);
      const tag = pyodide.runPython("import sys; getattr(sys, '_decodelab_snapshot', '')");
      if (tag !== info.package_sha256) throw new Msg("snapshot_other_build");
      // state frozen in the snapshot that must differ per visit: Python's own random stream
      pyodide.runPython("import random; random.seed()");
      return { pyodide, path: "snapshot", choice, notice, fullStdlib };
    } catch (e) {
      if (e.fatal || e.key === "step_timeout") throw e;
      await infoP; // no manifest: that is the error to report (boot() does)
      notice = { key: "python_no_snapshot", args: { why: reason(e) } };
      console.warn("decodelab: Python started without its memory snapshot:", e.message);
    }
  }
  progress("pyodide", "starting Python");
  // over the core of the standard library (what decodelab imports: 1.4 MB of 4.5); the whole zip
  // comes when the reader's cell first runs, beside it on sys.path (build.py step_stdlib_core)
  const manifest = await infoP;
  const coreURL = abs(manifest.stdlib_core);
  const coreName = coreURL.split("/").pop().split("?")[0];
  const pyodide = await start({ stdLibURL: coreURL }).catch((e) => { throw stdlibError(e, coreName); });
  // our package: a zip of .pyc (with the .py beside them, for tracebacks) put on sys.path;
  // micropip stays out of the start-up path and is loaded only if the reader's cell asks for it
  progress("package", "adding the decodelab package");
  const info = await infoP;
  pyodide.FS.writeFile(info.package_mount, await packageP);
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(info.package_mount)})`);
  // The core holds only the modules Python read at start, not whole packages: each package
  // imported from it (encodings, asyncio, logging, ...) gets its folder in the whole zip on its
  // __path__ too, so its other modules (encodings.cp1252, logging.handlers) are found there.
  const fullStdlib = wholeStdlib(abs(info.stdlib_full), (bytes) => {
    pyodide.FS.writeFile("/lib/python_stdlib_full.zip", bytes);
    pyodide.runPython(`
import importlib, sys
_full = "/lib/python_stdlib_full.zip"
_core = next(p for p in sys.path if p.startswith("/lib/python") and p.endswith(".zip")) + "/"
sys.path.append(_full)
for _m in list(sys.modules.values()):
    _p = getattr(_m, "__path__", None)
    if isinstance(_p, list):
        _p += [_full + "/" + e[len(_core):] for e in _p if e.startswith(_core)]
importlib.invalidate_caches()
del _full, _core, _m, _p`);
  });
  return { pyodide, path: "import", choice, notice, fullStdlib };
}
