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
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
VENV = ROOT / ".venv"
CACHE = ROOT / "build" / "cache"
PYODIDE_FILES = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]
MICROPIP = "micropip==0.11.1"
KERNEL_SOURCES = ["matvec.c", "model.c", "logits.c"]
WASM_FLAGS = ["-O3", "-nostdlib", "-ffreestanding", "-Wl,--no-entry", "-Wl,--export-dynamic",
              "-Wl,--initial-memory=4194304", "-Wall", "-Wextra", "-Werror"]


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


def wasm_compiler() -> list[str]:
    """clang-19 + lld-19 when present, else PyPI ziglang (both produce equivalent code).
    DECODELAB_CC=zig forces ziglang (what a machine without Debian's clang-19 uses)."""
    if os.environ.get("DECODELAB_CC") != "zig" and shutil.which("clang-19") and shutil.which("wasm-ld-19"):
        return ["clang-19", "--target=wasm32", "-fuse-ld=lld"]
    return [sys.executable, "-m", "ziglang", "cc", "--target=wasm32-freestanding"]


def step_kernels() -> None:
    """kernels/*.c -> web/kernels/: kernel_relaxed.wasm (SIMD + relaxed-SIMD dot), kernel_simd.wasm
    (SIMD), kernel_scalar.wasm and kernel_jsmatvec.wasm (products in plain JS)."""
    out = WEB / "kernels"
    out.mkdir(parents=True, exist_ok=True)
    sources = [ROOT / "kernels" / s for s in KERNEL_SOURCES if (ROOT / "kernels" / s).exists()]
    cc = wasm_compiler()
    env = dict(os.environ)
    # clang looks for wasm-ld on PATH; Debian names it wasm-ld-19.
    if cc[0] == "clang-19":
        shim = CACHE / "bin"
        shim.mkdir(parents=True, exist_ok=True)
        link = shim / "wasm-ld"
        if not link.exists():
            link.symlink_to(shutil.which("wasm-ld-19"))
        env["PATH"] = f"{shim}:{env['PATH']}"
    builds = (("kernel_relaxed.wasm", ["-msimd128", "-mrelaxed-simd"]), ("kernel_simd.wasm", ["-msimd128"]),
              ("kernel_scalar.wasm", ["-mno-simd128"]),
              ("kernel_jsmatvec.wasm", ["-mno-simd128", "-DDL_JS_MATVEC"]))
    for name, flags in builds:
        target = out / name  # always rebuilt: it takes well under a second
        run([*cc, *WASM_FLAGS, *flags, "-I", ROOT / "kernels", *sources, "-o", target], env=env)


def step_pyodide() -> None:
    """Pyodide core files from node_modules/pyodide into web/pyodide/."""
    src = ROOT / "node_modules" / "pyodide"
    dst = WEB / "pyodide"
    dst.mkdir(parents=True, exist_ok=True)
    for f in PYODIDE_FILES:
        if not (dst / f).exists() or (dst / f).stat().st_mtime < (src / f).stat().st_mtime:
            shutil.copy2(src / f, dst / f)


def step_micropip() -> Path:
    """The micropip wheel from PyPI (loaded by path: its hash differs from pyodide-lock.json's)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    found = sorted(CACHE.glob("micropip-0.11.1-*.whl"))
    if not found:
        run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             "--python-version", "3.14", "-d", CACHE, MICROPIP])
        found = sorted(CACHE.glob("micropip-0.11.1-*.whl"))
    dst = WEB / "wheels"
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copy2(found[0], dst / found[0].name)
    return dst / found[0].name


def step_wheel() -> Path:
    """The decodelab wheel (pure Python) for micropip in the page."""
    dst = WEB / "wheels"
    dst.mkdir(parents=True, exist_ok=True)
    for old in dst.glob("decodelab-*.whl"):
        old.unlink()
    tmp = CACHE / "wheel"
    shutil.rmtree(tmp, ignore_errors=True)
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", tmp, "."])
    whl = next(tmp.glob("decodelab-*.whl"))
    shutil.copy2(whl, dst / whl.name)
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)
    return dst / whl.name


def step_vendor() -> None:
    """Chart.js and KaTeX (with its fonts) from node_modules into web/vendor/."""
    nm = ROOT / "node_modules"
    dst = WEB / "vendor"
    (dst / "katex").mkdir(parents=True, exist_ok=True)
    shutil.copy2(nm / "chart.js" / "dist" / "chart.umd.min.js", dst / "chart.umd.min.js")
    shutil.copy2(nm / "katex" / "dist" / "katex.min.js", dst / "katex" / "katex.min.js")
    shutil.copy2(nm / "katex" / "dist" / "katex.min.css", dst / "katex" / "katex.min.css")
    shutil.copytree(nm / "katex" / "dist" / "fonts", dst / "katex" / "fonts", dirs_exist_ok=True)


def step_models() -> list[str]:
    """The committed model bundles (models/*.dlm) into web/models/."""
    dst = WEB / "models"
    dst.mkdir(parents=True, exist_ok=True)
    names = []
    for f in sorted((ROOT / "models").glob("*.dlm")):
        shutil.copy2(f, dst / f.name)
        names.append(f.name)
    return names


def step_build_info(wheel: Path, micropip: Path, models: list[str]) -> None:
    """web/build-info.json: file names and content hashes the worker uses (cache busting)."""
    def digest(p: Path) -> str:
        return hashlib.sha256(p.read_bytes()).hexdigest()[:16]

    info = {
        "wheel": f"wheels/{wheel.name}?v={digest(wheel)}",
        "micropip": f"wheels/{micropip.name}",
        "kernels": {k: f"kernels/{k}.wasm?v={digest(WEB / 'kernels' / (k + '.wasm'))}"
                    for k in ("kernel_relaxed", "kernel_simd", "kernel_scalar", "kernel_jsmatvec")},
        "models": {Path(m).stem: f"models/{m}?v={digest(WEB / 'models' / m)}" for m in models},
        "version": digest(wheel),
    }
    (WEB / "build-info.json").write_text(json.dumps(info, indent=1))


def build() -> None:
    step_npm()
    step_kernels()
    step_pyodide()
    micropip = step_micropip()
    wheel = step_wheel()
    step_vendor()
    models = step_models()
    step_build_info(wheel, micropip, models)
    log(f"site ready in {WEB}")


# ---- commands ------------------------------------------------------------------------------------

def cmd_serve(args) -> None:
    from decodelab.devserver import serve

    build()
    serve(WEB, args.port)


def ensure_chromium() -> None:
    """Debian's chromium for the end-to-end tests (Playwright cannot download its own here)."""
    if shutil.which("chromium"):
        return
    if os.geteuid() != 0:
        sys.exit("chromium is missing: install Debian's `chromium` package (needs root)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(["apt-get", "update", "-q"], env=env)
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium", "fonts-dejavu-core"], env=env)


def cmd_test(args) -> None:
    ensure_chromium()
    build()
    res = subprocess.run([sys.executable, "-m", "pytest", *args.pytest_args], cwd=ROOT)
    sys.exit(res.returncode)


def cmd_bench(args) -> None:
    from decodelab.bench import run_bench

    build()
    run_bench(args.name, WEB, args.json)


def cmd_report(args) -> None:
    from decodelab.report import main as report_main

    report_main(args.json, args.stories)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    p = sub.add_parser("serve")
    p.add_argument("--port", type=int, default=8000)
    p = sub.add_parser("test")
    p.add_argument("pytest_args", nargs=argparse.REMAINDER)
    p = sub.add_parser("bench")
    p.add_argument("name", choices=["kernel", "startup", "generate", "sampler", "requant", "speculative"])
    p.add_argument("--json", type=Path)
    p = sub.add_parser("report")
    p.add_argument("--json", type=Path)
    p.add_argument("--stories", type=int, help="only the first N validation stories (quick check)")
    sub.add_parser("build")
    args = ap.parse_args()

    needs = {"test": "build,test", "bench": "build,test", "report": "build,test"}.get(args.cmd, "build")
    ensure_venv(needs)
    {"serve": cmd_serve, "test": cmd_test, "bench": cmd_bench, "report": cmd_report}.get(
        args.cmd, lambda a: build())(args)


if __name__ == "__main__":
    main()
