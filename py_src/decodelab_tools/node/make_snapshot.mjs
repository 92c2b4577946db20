// make_snapshot.mjs: Pyodide's memory with decodelab imported, for the page to restore (build.py).
//
// node make_snapshot.mjs PYODIDE_DIR PACKAGE.zip MOUNT TAG OUT.bin STDLIB.zip MODEL.dlm...
//
// Runs in Node: start Pyodide (the page's own files, the .pyc stdlib), import all of decodelab
// from the page's zip, and save the interpreter's memory. The page restores it instead of
// starting Python and importing (1.4 s instead of about 2 s cold). Nothing from the page's side
// may be in it: the kernel is registered after the restore, and Python's `random` is reseeded
// there (worker.js), since every visit would otherwise draw the same stream. The memory is
// half zeros: the all-zero 4 KB pages are left out (their runs are in build-info.json; the worker
// starts from a zeroed buffer and puts each run back in place) and the rest ships gzip-compressed
// (31 MB of memory -> 15 MB of pages -> 6 MB), inflated by the browser's own DecompressionStream.
// Leaving the zeros out of the stream, rather than letting gzip squeeze them, saves a third of
// the inflate time, which is on the start-up's critical path. `sys._decodelab_snapshot` records which package zip was
// imported, so the worker can refuse a snapshot of another build. Two builds do not give the
// same bytes (the interpreter keeps a few clock readings and random numbers), so the snapshot
// is made again only when its inputs change (the stamp below).
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [pyodideDir, pkg, mount, tag, out, stdlib, ...models] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: `${pyodideDir}/`, stdLibURL: stdlib, _makeSnapshot: true, packages: [] });
py.FS.writeFile(mount, readFileSync(pkg));
py.runPython(`
import sys
sys.path.insert(0, ${JSON.stringify(mount)})
import decodelab.api  # every endpoint module, and everything they import
import statistics  # imported where it is used (ch2, perf): here too, as the page restores
                   # Python with no stdlib zip until the reader's cell runs (worker.js)
sys._decodelab_snapshot = ${JSON.stringify(tag)}
`);
// the shipped models' tokenizer, built once here instead of at every visit (bundle.warm_tokenizer)
for (const [i, m] of models.entries()) {
  py.FS.writeFile(`/tmp/model${i}.dlm`, readFileSync(m));
  py.runPython(`import decodelab.bundle as b; b.warm_tokenizer("/tmp/model${i}.dlm")`);
  py.FS.unlink(`/tmp/model${i}.dlm`);
}
// the standard library's files Python has read by now (the zip's entries, relative): what the
// import path's small stdlib zip holds (build.py stdlib_core_zip); the snapshot holds them too
py.runPython(`
def _stdlib_used():
    import json, sys
    zip_ = next(p for p in sys.path if p.startswith("/lib/python") and p.endswith(".zip")) + "/"
    return json.dumps(sorted({o[len(zip_):] for m in list(sys.modules.values())
                              if (o := getattr(getattr(m, "__spec__", None), "origin", None) or "").startswith(zip_)}))
`);
const used = py.globals.get("_stdlib_used");
const stdlibUsed = JSON.parse(used());
used.destroy();
py.runPython("del _stdlib_used");
const mem = py.makeMemorySnapshot();
// runs of 4 KB pages that hold anything but zeros, [offset, length]; only those are shipped
const PAGE = 4096, runs = [];
for (let p = 0; p < mem.length; p += PAGE) {
  const page = mem.subarray(p, Math.min(p + PAGE, mem.length));
  if (page.every((b) => b === 0)) continue;
  const last = runs[runs.length - 1];
  if (last && last[0] + last[1] === p) last[1] += page.length;
  else runs.push([p, page.length]);
}
writeFileSync(out, gzipSync(Buffer.concat(runs.map(([at, n]) => mem.subarray(at, at + n))), { level: 6 }));
console.log(JSON.stringify({ build_id: py._api.config.BUILD_ID, bytes: mem.length, runs, stdlib_used: stdlibUsed }));
