"""Benchmarks (CPython only): `python3 build.py bench NAME --json PATH`.

Each benchmark prints a table and writes its figures as JSON. They measure; they never assert.
The browser figures come from headless Chromium (Debian's) driving the built page on localhost.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNEL_SHAPES = [(256, 256), (1024, 256), (4096, 256), (384, 384), (1536, 384), (8192, 384)]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]


@contextmanager
def chromium(web: Path):
    """A served site and a headless Chromium whose pages may not leave the site's origin."""
    from playwright.sync_api import sync_playwright

    from .devserver import serve_in_thread

    srv, url = serve_in_thread(web)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            try:
                yield browser, url
            finally:
                browser.close()
    finally:
        srv.shutdown()


def guarded_context(browser, url):
    ctx = browser.new_context()
    origin = url.split("//", 1)[1]
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.split("//", 1)[-1].startswith(origin)
              else r.abort())
    return ctx


def open_ready(page, url: str, timeout: float = 120_000) -> None:
    page.goto(url)
    page.wait_for_function("document.body.dataset.ready", timeout=timeout)
    if page.evaluate("document.body.dataset.ready") != "1":
        raise RuntimeError("engine failed: " + page.inner_text("#boot-error"))


def write_json(path: Path | None, data: dict) -> None:
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1))
        print(f"wrote {path}")


def table(rows: list[list], header: list[str]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for r in [header] + rows:
        print("  ".join(str(x).rjust(w) for x, w in zip(r, widths)))


# ---- kernel ---------------------------------------------------------------------------------------

def build_native() -> Path:
    out = Path(tempfile.mkdtemp()) / "bench_native"
    k = ROOT / "kernels"
    subprocess.run(["gcc", "-O3", "-march=native", "-DDL_NATIVE", "-I", str(k), str(k / "matvec.c"),
                    str(k / "bench_native.c"), "-o", str(out)], check=True)
    return out


def bench_kernel(web: Path, json_path: Path | None, rounds: int = 5) -> dict:
    native = build_native()
    args = [str(n) for shape in KERNEL_SHAPES for n in shape]
    samples: dict[str, dict[str, list[float]]] = {f"{r}x{c}": {} for r, c in KERNEL_SHAPES}
    js_diff = 0.0
    with chromium(web) as (browser, url):
        page = guarded_context(browser, url).new_page()
        page.goto(url + "/bench/kernel.html")
        page.wait_for_function("window.kernelBench && window.kernelBench.ready")
        page.evaluate("window.kernelBench.ready")
        for i in range(rounds):  # interleaved: a browser round, then a native round, repeated
            for r in page.evaluate("(s) => window.kernelBench.round(s)", [list(s) for s in KERNEL_SHAPES]):
                js_diff = max(js_diff, r.pop("js_max_diff"))
                for k, v in r.items():
                    if k != "shape":
                        samples[r["shape"]].setdefault(k, []).append(v)
            out = subprocess.run([str(native), *args], check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                r = json.loads(line)
                for k in ("native_fast", "native_exact"):
                    samples[r["shape"]].setdefault(k, []).append(r[k])
            print(f"round {i + 1}/{rounds} done", file=sys.stderr)
    med = {shape: {k: statistics.median(v) for k, v in d.items()} for shape, d in samples.items()}
    variants = ["simd_fast", "simd_exact", "scalar_exact", "scalar_fast", "js", "native_fast", "native_exact"]
    print("\nGMAC/s, median of", rounds, "interleaved rounds (headless Chromium; native = gcc -O3 -march=native)")
    table([[s] + [f"{med[s][v]:.2f}" for v in variants] for s in med], ["shape"] + variants)

    def ratio(a, b):
        return statistics.median(med[s][a] / med[s][b] for s in med)

    ratios = {"fast_vs_native": ratio("simd_fast", "native_fast"), "fast_vs_js": ratio("simd_fast", "js"),
              "exact_vs_scalar": ratio("simd_exact", "scalar_exact")}
    print("\nratios (median over shapes): " + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    print(f"plain-JS result check: max |y_js - y_kernel| = {js_diff:.3g} on the first 64 rows")
    data = {"unit": "GMAC/s", "rounds": rounds, "medians": med, "ratios": ratios, "js_max_diff": js_diff}
    write_json(json_path, data)
    return data


# ---- startup --------------------------------------------------------------------------------------

def bench_startup(web: Path, json_path: Path | None, n: int = 5) -> dict:
    cold, warm, stages = [], [], []
    with chromium(web) as (browser, url):
        for _ in range(n):  # cold: a fresh context has an empty HTTP cache
            ctx = guarded_context(browser, url)
            page = ctx.new_page()
            open_ready(page, url + "/")
            cold.append(page.evaluate("window.__readyAt") / 1000)
            stages.append(page.evaluate("window.__bootStages"))
            ctx.close()
        ctx = guarded_context(browser, url)
        page = ctx.new_page()
        open_ready(page, url + "/")
        for _ in range(n):  # warm: the same context, reloaded
            open_ready(page, url + "/")
            warm.append(page.evaluate("window.__readyAt") / 1000)
        ctx.close()
    data = {"cold_s": statistics.median(cold), "warm_s": statistics.median(warm), "cold_all": cold,
            "warm_all": warm, "stages_first_cold": stages[0]}
    print(f"navigation -> worker ready, median of {n}: cold {data['cold_s']:.2f} s, warm {data['warm_s']:.2f} s")
    print("stages of the first cold load (s since the worker started):",
          ", ".join(f"{k} {v:.2f}" for k, v in stages[0].items()))
    write_json(json_path, data)
    return data


BENCHES = {"kernel": bench_kernel, "startup": bench_startup}


def run_bench(name: str, web: Path, json_path: Path | None) -> None:
    fn = BENCHES.get(name)
    if fn is None:
        sys.exit(f"benchmark {name!r} is not available yet; have: {', '.join(BENCHES)}")
    fn(web, json_path)
