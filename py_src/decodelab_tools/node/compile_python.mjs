// compile_python.mjs: a zip's .py files compiled to .pyc by Pyodide's own CPython (build.py).
//
// node compile_python.mjs PYODIDE_DIR SRC.zip DST.zip MOUNT KEEP_SOURCE(1|0)
//
// Runs in Node with Pyodide's own CPython, so the bytecode has exactly the page's magic number.
// Hash-based, unchecked .pyc files: valid without timestamps (zip entries carry a fixed time), so
// the same sources give the same bytes on every machine. Our own package keeps its .py beside
// the .pyc, so tracebacks of our code still show their lines.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, src, dst, mount, keep] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const py = await loadPyodide({ indexURL: `${pyodideDir}/` });
py.FS.writeFile("/tmp/in.zip", readFileSync(src));
py.runPython(`
import importlib.util, importlib._bootstrap_external as be, zipfile
def build(src, dst, mount, keep_source):
    n = 0
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zo:
        for name in sorted(zi.namelist()):
            data = zi.read(name)
            def put(n_, d_):
                info = zipfile.ZipInfo(n_, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                zo.writestr(info, d_)
            if name.endswith(".py"):
                code = compile(data, mount + "/" + name, "exec", dont_inherit=True)
                put(name + "c", be._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
                n += 1
                if keep_source:
                    put(name, data)
            elif not name.endswith("/"):
                put(name, data)
    return n
`);
const n = py.globals.get("build")("/tmp/in.zip", "/tmp/out.zip", mount, keep === "1");
writeFileSync(dst, py.FS.readFile("/tmp/out.zip"));
console.log(`compiled ${n} modules into ${dst}`);
