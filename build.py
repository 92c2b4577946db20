#!/usr/bin/env python3
"""Build, serve, test and benchmark decodelab.

    python3 build.py              build the static site into web/
    python3 build.py serve        build if needed, then serve web/ on http://127.0.0.1:8000
    python3 build.py test         install what the tests need, build, run every test
    python3 build.py bench NAME --json PATH    kernel | startup | generate | sampler | requant | speculative
    python3 build.py report [--json PATH]      the model quality report

It works from a fresh machine: the first run makes .venv/ and installs the pinned Python
packages there (and npm packages into node_modules/), then re-runs itself inside the venv.
The build itself is the list of steps in `build()`, top to bottom.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
VENV = ROOT / ".venv"
CACHE = ROOT / "build" / "cache"
PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
MICROPIP_VERSION = "0.11.1"  # the one place it is written; the wheel name follows from it
# No debug sections (they held the build folder's path, so two clones built different bytes).
# Float semantics are fixed here, not left to the compiler's defaults: no contraction of a*b+c
# (fastmath.h says why). The build table (names, per-build flags) is decodelab/builds.py.
WASM_CFLAGS = ["-O3", "-g0", "-ffreestanding", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror"]
WASM_LDFLAGS = ["-nostdlib", "-Wl,--strip-debug", "-Wl,--no-entry", "-Wl,--export-dynamic", "-Wl,--initial-memory=4194304"]


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def run(cmd: list[str], **kw) -> None:
    log(" ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True, cwd=kw.pop("cwd", ROOT), **kw)


# ---- bootstrap: a venv with the pinned packages ------------------------------------------------

def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv(extras: str) -> None:
    """Create .venv with the project's extras installed, then re-exec this script inside it."""
    stamp = VENV / f".installed-{extras.replace(',', '-')}"
    pyproject_hash = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not venv_python().exists():
        run([sys.executable, "-m", "venv", VENV])
    if not stamp.exists() or stamp.read_text() != pyproject_hash:
        run([venv_python(), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", f".[{extras}]"])
        stamp.write_text(pyproject_hash)
    if Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(str(venv_python()), [str(venv_python()), str(ROOT / "build.py"), *sys.argv[1:]])


# ---- build steps --------------------------------------------------------------------------------

def step_npm() -> None:
    """npm packages (Pyodide core, Chart.js, KaTeX), exactly as package-lock.json pins them."""
    marker = ROOT / "node_modules" / ".package-lock.json"
    lock = ROOT / "package-lock.json"
    if not marker.exists() or marker.stat().st_mtime < lock.stat().st_mtime:
        run(["npm", "ci", "--no-audit", "--no-fund"])


def wasm_compiler() -> tuple[list[str], dict]:
    """The wasm compiler and a description of it for build-info.json.

    Always the pinned PyPI ziglang (clang inside), so every machine builds the same bytes. A
    system clang is used only when named: DECODELAB_CC=clang-19 (it then needs wasm-ld-19 or
    wasm-ld beside it). Never found by PATH lookup: an earlier hand-installed clang-19 once hid
    a difference that every fresh machine saw."""
    named = os.environ.get("DECODELAB_CC", "")
    if named and named != "zig":
        cc = [named, "--target=wasm32", "-fuse-ld=lld"]
        version = subprocess.run([named, "--version"], capture_output=True, text=True, check=True).stdout
        return cc, {"compiler": named, "version": version.splitlines()[0]}
    cc = [sys.executable, "-m", "ziglang", "cc", "--target=wasm32-freestanding"]
    from importlib.metadata import version as pkg_version

    clang = subprocess.run([*cc, "--version"], capture_output=True, text=True, check=True).stdout
    return cc, {"compiler": "ziglang (PyPI)", "ziglang": pkg_version("ziglang"), "version": clang.splitlines()[0]}


def compiler_env(cc: list[str]) -> dict:
    """A named Debian clang looks for wasm-ld on PATH, where Debian calls it wasm-ld-19."""
    env = dict(os.environ)
    if cc[0] != sys.executable:
        ld = shutil.which("wasm-ld") or shutil.which("wasm-ld-19")
        if not ld:
            sys.exit(f"DECODELAB_CC={cc[0]} needs wasm-ld (or wasm-ld-19) on PATH")
        shim = CACHE / "bin"
        shim.mkdir(parents=True, exist_ok=True)
        link = shim / "wasm-ld"
        if not link.exists():
            link.symlink_to(ld)
        env["PATH"] = f"{shim}:{env['PATH']}"
    return env


def compile_kernel(b, src_root: Path, target: Path, objs: Path, defines: tuple = (), cc=None, env=None) -> list:
    """One build `b` (a decodelab.builds.KernelBuild) of src_root/kernels into `target`, its
    objects in `objs`; `defines` are extra -D flags (a test builds the plain attention this way).
    Returns the translation units and their extra flags."""
    from decodelab import builds

    if cc is None:
        cc, _ = wasm_compiler()
        env = compiler_env(cc)
    shutil.rmtree(objs, ignore_errors=True)
    objs.mkdir(parents=True)
    units = [(f, ()) for f in builds.COMMON_SOURCES] + [(f, builds.RELAXED_ONLY_FLAGS) for f in b.extra_sources]
    for f, extra in units:
        run([*cc, *WASM_CFLAGS, *b.flags, *extra, *(f"-D{d}" for d in defines), "-I", "kernels", "-c",
             f"kernels/{f}", "-o", objs / Path(f).with_suffix(".o").name], env=env, cwd=src_root)
    run([*cc, *WASM_LDFLAGS, *[objs / Path(f).with_suffix(".o").name for f, _ in units], "-o", target],
        env=env, cwd=src_root)
    return units


def compile_kernels(src_root: Path, out: Path, obj_root: Path) -> dict:
    """src_root/kernels/*.c -> out/NAME.wasm for each build of decodelab.builds.ALL.

    Each source is compiled on its own and then linked, so that -mrelaxed-simd reaches
    matvec_relaxed.c alone. The compiler runs in src_root and sees only relative paths, so the
    output does not depend on the folder (tests/test_build.py builds twice and compares bytes).
    Every module is then scanned: only the relaxed build may hold a relaxed instruction, and
    only the relaxed dot product. Returns what build-info.json records about the builds."""
    from decodelab import builds
    from decodelab_tools.wasmscan import check_relaxed_use

    out.mkdir(parents=True, exist_ok=True)
    cc, about = wasm_compiler()
    env = compiler_env(cc)
    record = {"compiler": about, "common_flags": WASM_CFLAGS + WASM_LDFLAGS, "builds": {}}
    for b in builds.ALL:
        target = out / f"{b.name}.wasm"
        units = compile_kernel(b, src_root, target, obj_root / b.name, cc=cc, env=env)
        used = check_relaxed_use(target.name, target.read_bytes(), b.relaxed_allowed)
        record["builds"][b.name] = {"flags": list(b.flags), "sources": [f for f, _ in units],
                                    "relaxed_only_flags": list(builds.RELAXED_ONLY_FLAGS) if b.extra_sources else [],
                                    "relaxed_instructions": dict(used)}
        log(f"{target.name}: relaxed-SIMD instructions {dict(used) or 'none'}")
    return record


def step_kernels() -> dict:
    """kernels/*.c -> web/kernels/, compiled again only when a source, a flag or the compiler
    changes (a stamp of them in the build cache; twelve compiles took ~10 s of every build)."""
    from decodelab import builds

    _, about = wasm_compiler()
    inputs = hashlib.sha256(json.dumps({
        "sources": {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted((ROOT / "kernels").iterdir())},
        "builds": [[b.name, list(b.flags), list(b.extra_sources)] for b in builds.ALL],
        "flags": [WASM_CFLAGS, WASM_LDFLAGS, list(builds.RELAXED_ONLY_FLAGS)], "compiler": about,
        "build_py": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}, sort_keys=True).encode()).hexdigest()
    stamp = CACHE / "kernels.json"
    outs = [WEB / "kernels" / f"{b.name}.wasm" for b in builds.ALL]
    if stamp.exists() and all(o.exists() for o in outs):
        rec = json.loads(stamp.read_text())
        if rec.get("inputs") == inputs:
            return rec["record"]
    record = compile_kernels(ROOT, WEB / "kernels", CACHE / "obj")
    stamp.write_text(json.dumps({"inputs": inputs, "record": record}))
    return record


# Node programs build.py runs (Pyodide in Node): real files, so they read and lint as code.
NODE_PROGRAMS = ROOT / "py_src" / "decodelab_tools" / "node"
COMPILE_PYTHON = NODE_PROGRAMS / "compile_python.mjs"  # .py -> .pyc with the page's own Python
MAKE_SNAPSHOT = NODE_PROGRAMS / "make_snapshot.mjs"  # Python's memory with decodelab imported


def compile_python_zip(src_zip: Path, dst_zip: Path, mount: str, keep_source: bool) -> None:
    """src_zip's .py files compiled to .pyc by the page's own Python (node/compile_python.mjs)."""
    run(["node", COMPILE_PYTHON, ROOT / "node_modules" / "pyodide", src_zip, dst_zip, mount, "1" if keep_source else "0"])


def step_pyodide() -> None:
    """Pyodide core files from node_modules/pyodide into web/pyodide/, the standard library
    recompiled to .pyc (the npm zip ships .py only, and compiling it on every start was 70% of
    the worker's start-up time)."""
    src = ROOT / "node_modules" / "pyodide"
    dst = WEB / "pyodide"
    dst.mkdir(parents=True, exist_ok=True)
    for f in PYODIDE_FILES:
        if f == "python_stdlib.zip":
            continue
        if not (dst / f).exists() or (dst / f).stat().st_mtime < (src / f).stat().st_mtime:
            shutil.copy2(src / f, dst / f)
    # Pyodide's wasm as the worker fetches it, gzip-compressed: 9.6 MB are 3.5 over the network on
    # any server, also on those (python -m http.server among them) that send .wasm as it is. The
    # worker inflates it as it downloads (worker/fetching.js inflatedBody) and compiles the stream.
    wasm, packed = dst / "pyodide.asm.wasm", dst / PYODIDE_WASM_GZ
    if not packed.exists() or packed.stat().st_mtime < wasm.stat().st_mtime:
        packed.write_bytes(gzip.compress(wasm.read_bytes(), compresslevel=9, mtime=0))
    # the npm zip as it is (.py only) for the snapshot path: what decodelab needs is compiled
    # into the snapshot already, and this zip serves only later imports (the reader's cell), at
    # 2.5 MB instead of 4.5. The snapshot must be made over this same file (zipimport keeps
    # its table of contents in memory).
    shutil.copy2(src / "python_stdlib.zip", dst / STDLIB_SOURCE)
    stdlib = dst / "python_stdlib.zip"
    stamp = CACHE / "stdlib.stamp"
    want = hashlib.sha256((src / "python_stdlib.zip").read_bytes() + COMPILE_PYTHON.read_bytes()).hexdigest()
    if not stdlib.exists() or not stamp.exists() or stamp.read_text() != want:
        compile_python_zip(src / "python_stdlib.zip", stdlib, "/lib/python314.zip", keep_source=False)
        stamp.write_text(want)


PYODIDE_WASM_GZ = "pyodide.asm.wasm.gz"  # what the worker fetches (step_pyodide)
STDLIB_SOURCE = "python_stdlib_source.zip"  # the stdlib with .py files: the snapshot path's
PACKAGE_ZIP = "decodelab.zip"
PACKAGE_MOUNT = "/lib/decodelab.zip"  # where the worker writes it, on sys.path


def page_package_files() -> list[Path]:
    """Every module of the page's package, py_src/decodelab (what runs in CPython only lives in
    py_src/decodelab_tools, which the page never sees: tests/test_structure.py keeps the first
    from importing the second)."""
    return sorted((ROOT / "py_src" / "decodelab").rglob("*.py"))


def step_package_zip() -> Path:
    """The page's package: decodelab/*.py with their .pyc, a zip the worker puts on sys.path
    (no micropip on the start-up path)."""
    raw = CACHE / "decodelab-src.zip"
    import zipfile

    with zipfile.ZipFile(raw, "w") as z:
        for f in page_package_files():
            info = zipfile.ZipInfo(str(f.relative_to(ROOT / "py_src")), date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, f.read_bytes())
    dst = WEB / "wheels" / PACKAGE_ZIP
    dst.parent.mkdir(parents=True, exist_ok=True)
    for old in dst.parent.glob("decodelab-*.whl"):
        old.unlink()  # a wheel earlier builds shipped; nothing loads it
    stamp = CACHE / "package.stamp"  # compiled again only when a module (or the compiler) changes
    want = hashlib.sha256(raw.read_bytes() + COMPILE_PYTHON.read_bytes()).hexdigest()
    if not dst.exists() or not stamp.exists() or stamp.read_text() != want:
        compile_python_zip(raw, dst, PACKAGE_MOUNT, keep_source=True)
        stamp.write_text(want)
    return dst


SNAPSHOT = "pyodide/decodelab-snapshot.bin"


def step_snapshot(package: Path) -> dict:
    """web/pyodide/decodelab-snapshot.bin: Pyodide's memory with decodelab imported (node/make_snapshot.mjs)."""
    dst = WEB / SNAPSHOT
    stdlib = WEB / "pyodide" / STDLIB_SOURCE
    tag = hashlib.sha256(package.read_bytes()).hexdigest()[:16]
    models = sorted((ROOT / "models").glob("*.dlm"))
    inputs = hashlib.sha256(b"".join((WEB / "pyodide" / f).read_bytes() for f in PYODIDE_FILES + [STDLIB_SOURCE])
                            + b"".join(m.read_bytes() for m in models)
                            + package.read_bytes() + MAKE_SNAPSHOT.read_bytes()).hexdigest()
    stamp = CACHE / "snapshot.json"
    if dst.exists() and stamp.exists():
        rec = json.loads(stamp.read_text())
        if rec.get("inputs") == inputs:
            return rec["info"]
    res = subprocess.run(["node", MAKE_SNAPSHOT, WEB / "pyodide", package, PACKAGE_MOUNT, tag, dst, stdlib, *models], check=True,
                         capture_output=True, text=True)
    made = json.loads(res.stdout.strip().splitlines()[-1])
    info = {"file": SNAPSHOT, "pyodide_build_id": made["build_id"], "memory_bytes": made["bytes"], "runs": made["runs"],
            "stdlib_used": made["stdlib_used"],
            "package_sha256": tag, "stdlib": f"pyodide/{STDLIB_SOURCE}",
            "stdlib_sha256": hashlib.sha256(stdlib.read_bytes()).hexdigest()[:16]}
    stamp.write_text(json.dumps({"inputs": inputs, "info": info}))
    log(f"snapshot: {made['bytes'] / 1e6:.1f} MB of memory, {sum(n for _, n in made['runs']) / 1e6:.1f} MB "
        f"not zero in {len(made['runs'])} runs, {dst.stat().st_size / 1e6:.1f} MB compressed")
    return info


STDLIB_CORE = "python_stdlib_core.zip"  # the import path's stdlib: what decodelab needs (step_stdlib_core)


def step_stdlib_core(snapshot: dict) -> None:
    """web/pyodide/python_stdlib_core.zip: the .pyc standard library cut to the files Python reads
    while starting and importing decodelab (the snapshot's run lists them: the snapshot path runs
    on exactly these), 1.3 MB of 4.5: the import path (the slow link's start) downloads this and
    fetches the whole zip when the reader's cell first runs. A package's other modules are found
    then because the worker adds the whole zip's folder of each package imported from this one to
    that package's __path__ (worker/python.js); without that a package would have to come whole
    (encodings alone is 264 KB, of which Python reads 10)."""
    import zipfile

    # the snapshot is made over the .py zip: the same modules, as .pyc here
    used = {n[:-3] + ".pyc" if n.endswith(".py") else n for n in snapshot["stdlib_used"]}
    dst = WEB / "pyodide" / STDLIB_CORE
    with zipfile.ZipFile(WEB / "pyodide" / "python_stdlib.zip") as full:
        keep = [i for i in full.infolist() if i.filename in used]
        missing = used - {i.filename for i in keep}
        if missing:
            sys.exit(f"the .pyc stdlib lacks what decodelab imports: {sorted(missing)[:5]}")
        want = hashlib.sha256(json.dumps([[i.filename, i.CRC] for i in keep]).encode()).hexdigest()
        stamp = CACHE / "stdlib_core.stamp"
        if dst.exists() and stamp.exists() and stamp.read_text() == want:
            return
        with zipfile.ZipFile(dst, "w") as core:
            for i in keep:
                core.writestr(i, full.read(i), compress_type=i.compress_type)
    stamp.write_text(want)
    log(f"{STDLIB_CORE}: {len(keep)} files of the stdlib, {dst.stat().st_size / 1e6:.1f} MB")


def step_micropip() -> Path:
    """The micropip wheel from PyPI (loaded by path: its hash differs from pyodide-lock.json's)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    pattern = f"micropip-{MICROPIP_VERSION}-*.whl"
    found = sorted(CACHE.glob(pattern))
    if not found:
        run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             "--python-version", "3.14", "-d", CACHE, f"micropip=={MICROPIP_VERSION}"])
        found = sorted(CACHE.glob(pattern))
    dst = WEB / "wheels"
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy2(found[0], dst / found[0].name)
    return dst / found[0].name


SERIF = "@fontsource-variable/source-serif-4"  # the text face, self-hosted (design review item 11)


def step_vendor() -> None:
    """Chart.js, KaTeX's script, highlight.js and the text face from node_modules into web/vendor/ (the math face
    is cut to the formulas when the pages are written: mathrender.write_math_face)."""
    nm = ROOT / "node_modules"
    dst = WEB / "vendor"
    (dst / "katex").mkdir(parents=True, exist_ok=True)
    shutil.copy2(nm / "chart.js" / "dist" / "chart.umd.min.js", dst / "chart.umd.min.js")
    shutil.copy2(nm / "katex" / "dist" / "katex.min.js", dst / "katex" / "katex.min.js")
    for gone in (dst / "katex" / "katex.min.css", dst / "katex" / "fonts"):  # HTML output's, no longer used
        shutil.rmtree(gone) if gone.is_dir() else gone.unlink(missing_ok=True)
    # highlight.js's core and its Python grammar (ES modules) for the code cells' colours
    # (web/js/code-editor.js imports them when the first cell is made)
    hl = nm / "@highlightjs" / "cdn-assets"
    (dst / "highlight").mkdir(parents=True, exist_ok=True)
    shutil.copy2(hl / "es" / "core.min.js", dst / "highlight" / "core.min.js")
    shutil.copy2(hl / "es" / "languages" / "python.min.js", dst / "highlight" / "python.min.js")
    shutil.copy2(hl / "LICENSE", dst / "highlight" / "LICENSE")
    # Source Serif 4, variable weight, upright and italic: the browser fetches only the scripts a
    # page uses (each file's unicode-range). font-display optional instead of fontsource's swap: a
    # face that is not in within about 100 ms is not swapped in later, so the text never reflows
    # (no layout shift) and never waits. A first visit reads the system's serif and keeps the face
    # for the next (web/js/faces.js says why). Each file is cut to the site's characters
    # (textface.py): latin 51 -> 38 KB, greek 20 -> 3 KB.
    serif, out = nm / SERIF, dst / "source-serif-4"
    (out / "files").mkdir(parents=True, exist_ok=True)
    css = "".join((serif / f).read_text() for f in ("wght.css", "wght-italic.css")).replace("font-display: swap", "font-display: optional")
    # each file cut to the characters the site can show (decodelab_tools/textface.py)
    from decodelab_tools import textface

    names = sorted(set(re.findall(r"url\(\./files/([^)]+)\)", css)))
    if textface.cut([serif / "files" / n for n in names], out / "files", ROOT, serif / "package.json", CACHE / "textface.key"):
        log("text face: cut to the site's characters")
    (out / "fonts.css").write_text(css)
    shutil.copy2(serif / "LICENSE", out / "LICENSE")


BUNDLE = "js/main.bundle.js"
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"  # pinned in package-lock.json: bundles the scripts, minifies the head's files
WORKER_BUNDLE = "js/worker.bundle.js"


def step_bundle() -> None:
    """web/js/main.bundle.js: the page's ~40 modules (main.js and all it imports) in one file, by
    esbuild (npm, pinned). Loaded one by one they took the browser's six connections to our
    origin for the first ~0.3 s, and the worker's first requests (the manifest, the snapshot)
    queued behind them: the first distribution came ~0.16 s later (bench startup, A/B).
    web/js/worker.bundle.js: the worker (worker.js and its parts in worker/), bundled because a
    module worker runs nothing until its static imports have arrived, and its first request
    (Pyodide's wasm) should leave at once; Pyodide's own modules stay files (the worker names
    them, not as literals, so esbuild leaves them out). Both minified, each with a source map
    beside it so the browser's tools show the sources."""
    esbuild = str(ESBUILD)
    for entry, out in (("main.js", BUNDLE), ("worker.js", WORKER_BUNDLE)):
        run([esbuild, str(WEB / "js" / entry), "--bundle", "--format=esm", "--minify", "--sourcemap",
             "--log-level=warning", f"--outfile={WEB / out}"])


def step_models() -> list[str]:
    """The committed model bundles (models/*.dlm) into web/models/, each beside its gzip-compressed
    copy, which is what the page fetches (int8 weights squeeze only 10%, but main.dlm is 6.1 MB:
    0.6 MB less on the start-up's path; the worker inflates it as it downloads)."""
    dst = WEB / "models"
    dst.mkdir(parents=True, exist_ok=True)
    names = []
    for f in sorted((ROOT / "models").glob("*.dlm")):
        shutil.copy2(f, dst / f.name)
        packed = dst / (f.name + ".gz")
        if not packed.exists() or packed.stat().st_mtime < f.stat().st_mtime:
            packed.write_bytes(gzip.compress(f.read_bytes(), compresslevel=9, mtime=0))
        names.append(f.name)
    return names


def step_text_and_pages() -> dict:
    """The article in each language, its numbers written in.
    1. web/page.html's inline English set from en.txt (its one source; rewritten only if they
       differ, and a test fails if a commit leaves them apart).
    2. The first paint (decodelab_tools/firstpaint.py): the live-number registry's sources run
       against the page's own endpoints in CPython, formatted by the page's own code in Node;
       cached under build/cache until a model, the kernels, the Python or the texts change.
    3. web/i18n/LANG.json (what the page loads for a switch) and web/index.html, index.ru.html,
       index.vi.html (the pages served), every pinned number written, so the article reads whole
       before its scripts run, and without them."""
    from decodelab_tools import firstpaint, mathrender, stylesheet, texts, toc

    template_path = WEB / firstpaint.PAGE
    template = template_path.read_text(encoding="utf-8")
    synced = texts.sync_index(template, texts.load("en", WEB))
    if synced != template:
        template_path.write_text(synced, encoding="utf-8")
        log(f"{firstpaint.PAGE}: English text updated from web/i18n/en.txt")
    # a language whose file is missing gets no page: the tests name it, the page says it cannot load it
    entries = {lang: texts.load(lang, WEB) for lang in texts.LANGS if (WEB / "i18n" / f"{lang}.txt").exists()}
    result = firstpaint.numbers(ROOT, sys.executable, entries, CACHE)
    # the formulas, typeset once for every language (mathrender.py)
    blocks = mathrender.display_keys(synced)
    filled_all = {lang: firstpaint.fill_entries(text, lang, result) for lang, text in entries.items()}
    formulas = set().union(mathrender.collect_template(synced), *(mathrender.collect(f, blocks) for f in filled_all.values()))
    rendered = mathrender.render(formulas, ROOT, CACHE)
    styles = mathrender.StyleClasses()
    hashes = {}
    for lang in entries:
        filled = mathrender.apply(filled_all[lang], blocks, rendered, styles)
        data = texts.to_json(firstpaint.lang_json(filled, lang, result))
        out = WEB / "i18n" / f"{lang}.json"
        if not out.exists() or out.read_text(encoding="utf-8") != data:
            out.write_text(data, encoding="utf-8")
        hashes[lang] = hashlib.sha256(data.encode()).hexdigest()[:16]
        page = WEB / firstpaint.page_name(lang)
        html = stylesheet.relink(mathrender.apply_html(firstpaint.page_for(toc.fill(synced), lang, filled, result), rendered, styles))
        if not page.exists() or page.read_text(encoding="utf-8") != html:
            page.write_text(html, encoding="utf-8")
    mathrender.write_math_face(ROOT, rendered, WEB / "vendor" / "stix-two-math")
    css = WEB / "css" / "math.css"
    if not css.exists() or css.read_text() != styles.css():
        css.write_text(styles.css())
    return hashes


def step_first_frames(i18n: dict) -> bool:
    """Each figure's first frame, drawn by the built page in Chromium, written into the served
    pages (decodelab_tools/firstframes.py; the list is web/js/first-frames.js), and the numbers it
    measured into the pages and into each LANG.json (its __built map, which a language switch
    writes back: web/js/live.js); `i18n` (language -> JSON hash) follows. True if a file changed.
    It runs the site, so it comes after build-info.json, which then is written again."""
    from decodelab_tools import firstframes, texts
    from decodelab_tools.firstpaint import page_name

    from decodelab_tools.mathrender import StyleClasses

    got = firstframes.frames(ROOT, WEB, CACHE, log)
    copies, measured = got.get("frames", {}), got.get("measured", {})
    styles = StyleClasses("ff", "the first frames' inline styles (web/js/first-frames.js)")
    changed = False
    for lang, frames in copies.items():
        page = WEB / page_name(lang)
        html = page.read_text(encoding="utf-8")
        if 'class="first-frame"' in html:
            continue  # written by an earlier build from the same pages
        html = firstframes.insert(html, {host: styles(copy) for host, copy in frames.items()})
        page.write_text(firstframes.fill_measured(html, measured.get(lang, {})), encoding="utf-8")
        changed = True
    for lang, numbers in measured.items():
        out = WEB / "i18n" / f"{lang}.json"
        data = texts.to_json({**json.loads(out.read_text(encoding="utf-8")), firstframes.BUILT: numbers})
        if out.read_text(encoding="utf-8") != data:
            out.write_text(data, encoding="utf-8")
            changed = True
        i18n[lang] = hashlib.sha256(data.encode()).hexdigest()[:16]
    css = WEB / "css" / "frames.css"
    if changed or not css.exists():
        css.write_text(styles.css() if changed else "/* no first frames in this build */\n")
    if copies:
        log(f"first frames: {', '.join(f'{lang} {len(f)}' for lang, f in copies.items())}; "
            f"measured numbers: {', '.join(f'{lang} {len(m)}' for lang, m in measured.items())}")
    return changed


def step_styles() -> None:
    """web/css/site.css, the one stylesheet the pages link (the template's stylesheets joined in
    order and minified), and web/js/boot.min.js (decodelab_tools/stylesheet.py). Run after the
    pages (math.css) and again after the first frames (frames.css)."""
    from decodelab_tools import firstpaint, stylesheet

    template = (WEB / firstpaint.PAGE).read_text(encoding="utf-8")
    stylesheet.write(WEB, template, str(ESBUILD))


def step_build_info(micropip: Path, models: list[str], kernels: dict, package: Path,
                    snapshot: dict, i18n: dict) -> None:
    """web/build-info.json: file names and content hashes the worker uses (cache busting), the
    kernel builds in the order the page tries them, and how each kernel was compiled."""
    from decodelab import builds

    def digest(p: Path) -> str:
        return hashlib.sha256(p.read_bytes()).hexdigest()[:16]

    info = {
        "package": f"wheels/{package.name}?v={digest(package)}", "package_mount": PACKAGE_MOUNT,
        "package_sha256": digest(package),
        "stdlib_sha256": digest(WEB / "pyodide" / "python_stdlib.zip"),
        # the import path: Python starts over the core zip, the whole one comes for the reader's cell
        "stdlib_core": f"pyodide/{STDLIB_CORE}?v={digest(WEB / 'pyodide' / STDLIB_CORE)}",
        "stdlib_full": f"pyodide/python_stdlib.zip?v={digest(WEB / 'pyodide' / 'python_stdlib.zip')}",
        "snapshot": {**{k: v for k, v in snapshot.items() if k != "stdlib_used"},
                     "url": f"{snapshot['file']}?v={digest(WEB / snapshot['file'])}",
                     "stdlib_url": f"{snapshot['stdlib']}?v={snapshot['stdlib_sha256']}"},
        "micropip": f"wheels/{micropip.name}",
        "kernels": {b.name: f"kernels/{b.name}.wasm?v={digest(WEB / 'kernels' / (b.name + '.wasm'))}"
                    for b in builds.ALL},
        "kernel_order": [[b.name, b.label] for b in builds.PAGE_FALLBACK_ORDER],
        "kernel_builds": kernels,
        "models": {Path(m).stem: f"models/{m}.gz?v={digest(WEB / 'models' / (m + '.gz'))}" for m in models},
        "version": digest(package),
        "i18n": i18n,  # language -> hash of its JSON (boot.js fetches i18n/LANG.json before this file)
    }
    info["offline"] = offline_manifest(info)
    (WEB / "build-info.json").write_text(json.dumps(info, indent=1))


# What a visit may fetch, for the service worker's cache (web/sw.js): the pages, their styles and
# bundles, the vendored libraries, the languages' JSON, and everything the engine's worker loads
# on either start path (build-info.json names it; the worker asks for the .gz of the models and of
# Pyodide's wasm, never the plain files). Source maps, the benchmark page, the template and the
# text sources are for developers and stay out.
OFFLINE_SKIP = ("bench/", "page.html", "i18n/en.txt", "i18n/ru.txt", "i18n/vi.txt")
OFFLINE_PLAIN = ("pyodide/pyodide.asm.wasm",)  # fetched as .gz only


def offline_manifest(info: dict) -> dict:
    """{"build": id, "files": [url, ...], "bytes": n}: each file under its URL as the page asks for
    it (with ?v= where build-info.json names it so, so the first visit's HTTP cache serves it);
    the build id is a digest of every file's URL and bytes, so any changed file makes a new cache."""
    named = {}
    def walk(v):
        if isinstance(v, str) and "?v=" in v:
            named[v.split("?v=")[0]] = v
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(info)
    from decodelab_tools import firstpaint, stylesheet

    # the stylesheets css/site.css is made of: the pages link only that one
    joined = set(stylesheet.sources((WEB / firstpaint.PAGE).read_text(encoding="utf-8")))
    files, total, h = ["./"], 0, hashlib.sha256()
    for p in sorted(WEB.rglob("*")):
        rel = p.relative_to(WEB).as_posix()
        if (not p.is_file() or rel.endswith((".map", ".dlm")) or rel.startswith(OFFLINE_SKIP) or rel in OFFLINE_PLAIN or rel in joined or rel == "sw.js"
                or rel == "build-info.json" or (rel.startswith("js/") and not rel.endswith(".bundle.js") and rel != "js/boot.min.js")):
            continue
        url = named.get(rel, rel)
        files.append(url)
        total += p.stat().st_size
        h.update(url.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    files.append("build-info.json")
    return {"build": h.hexdigest()[:16], "files": files, "bytes": total}


def step_spec() -> None:
    """kernels/dl_spec.h and web/js/generated/spec.js from py_src/decodelab/spec.py (and the
    sampler's rules it gathers): the one declaration of the ABI, the schemes, the sampler's steps
    and the default settings, in the forms C and the page read."""
    from decodelab_tools import spec_gen

    spec_gen.write()


def build() -> None:
    step_npm()
    step_spec()
    kernels = step_kernels()
    step_pyodide()
    micropip = step_micropip()
    package = step_package_zip()
    snapshot = step_snapshot(package)
    step_stdlib_core(snapshot)
    step_vendor()
    step_bundle()
    models = step_models()
    i18n = step_text_and_pages()
    step_styles()
    step_build_info(micropip, models, kernels, package, snapshot, i18n)
    if step_first_frames(i18n):
        step_styles()
        step_build_info(micropip, models, kernels, package, snapshot, i18n)  # the pages changed: the offline list's hashes
    log(f"site ready in {WEB}")


# ---- commands ------------------------------------------------------------------------------------

def cmd_serve(args) -> None:
    from decodelab_tools.devserver import serve

    build()
    serve(WEB, args.port)


# The three engines the tests drive, from Debian's packages (Playwright cannot download its own
# browsers here): what each lane needs on disk, and the packages that bring it.
BROWSER_PACKAGES = {
    "/usr/bin/chromium": ["chromium", "fonts-dejavu-core"],
    "/usr/bin/firefox-esr": ["firefox-esr"],
    "/usr/bin/WebKitWebDriver": ["webkit2gtk-driver"],  # brings WebKitGTK and its MiniBrowser
    "/usr/bin/Xvfb": ["xvfb"],  # MiniBrowser needs an X server; it has no headless mode
}


def ensure_browsers() -> None:
    """Debian's chromium, firefox-esr and WebKitGTK (with Xvfb) for the end-to-end tests."""
    packages = [pkg for path, pkgs in BROWSER_PACKAGES.items() if not Path(path).exists() for pkg in pkgs]
    if not packages:
        return
    if os.geteuid() != 0:
        sys.exit(f"the test browsers are missing: install Debian's {' '.join(packages)} (needs root)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(["apt-get", "update", "-q"], env=env)
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages], env=env)


# The fast lane: every test that needs no browser but the few marked slow (statistics over
# thousands of rounds, clean rebuilds), and the browser tests marked smoke (a boot, the panel,
# the same text as CPython, Stop, one language besides English). The full suite stays CI's gate.
FAST_LANE = ["-m", "(not e2e or smoke) and not slow"]


def cmd_test(args) -> None:
    ensure_browsers()
    build()
    lane = FAST_LANE if args.fast else []
    res = subprocess.run([sys.executable, "-m", "pytest", *lane, *args.pytest_args], cwd=ROOT)
    sys.exit(res.returncode)


def network_spec(text: str) -> tuple[float, float]:
    """"20,40" -> (20.0, 40.0): Mbit/s and round-trip milliseconds, both above zero."""
    try:
        mbit, rtt = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give MBIT,RTT_MS, e.g. 20,40") from None
    if not (mbit > 0 and rtt >= 0):
        raise argparse.ArgumentTypeError(f"{text!r}: the bandwidth must be above 0 and the round trip at least 0")
    return mbit, rtt


def cmd_bench(args) -> None:
    from decodelab_tools.bench import run_bench

    build()
    run_bench(args.name, WEB, args.json, args.network)


def cmd_shots(args) -> None:
    """Screenshots of each chapter for reviewers (decodelab_tools/shots.py)."""
    from decodelab_tools import shots

    build()
    files = shots.take(WEB, args.out, lang=args.lang, log=log)
    log(f"{len(files)} screenshots in {args.out} (index.txt lists them)")


def cmd_report(args) -> None:
    from decodelab_tools.report import main as report_main

    report_main(args.json, args.stories)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    p = sub.add_parser("serve")
    p.add_argument("--port", type=int, default=8000)
    p = sub.add_parser("test")
    p.add_argument("--fast", action="store_true", help="no browser tests but the smoke ones (about a minute)")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER)
    p = sub.add_parser("bench")
    p.add_argument("name", choices=["kernel", "startup", "generate", "sampler", "requant", "speculative", "lighthouse"])
    p.add_argument("--json", type=Path)
    p.add_argument("--network", type=network_spec, metavar="MBIT,RTT_MS",
                   help="startup only: also over a link of MBIT Mbit/s and RTT_MS round trip, paced by the server")
    p = sub.add_parser("shots", help="PNG screenshots of each chapter at 390 and 1440 px, light and dark")
    p.add_argument("--out", type=Path, default=ROOT / "build" / "shots")
    p.add_argument("--lang", choices=["en", "ru", "vi"], default="en")
    p = sub.add_parser("report")
    p.add_argument("--json", type=Path)
    p.add_argument("--stories", type=int, help="only the first N validation stories (quick check)")
    sub.add_parser("build")
    args = ap.parse_args()

    needs = {"test": "build,test", "bench": "build,test", "report": "build,test", "shots": "build,test"}.get(args.cmd, "build")
    ensure_venv(needs)
    {"serve": cmd_serve, "test": cmd_test, "bench": cmd_bench, "report": cmd_report, "shots": cmd_shots}.get(
        args.cmd, lambda a: build())(args)


if __name__ == "__main__":
    main()
