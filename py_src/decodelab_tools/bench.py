"""Benchmarks (CPython only): `python3 build.py bench NAME --json PATH`.

Each benchmark prints a table and writes its figures as JSON. They measure; they never assert.
The browser figures come from headless Chromium (Debian's) driving the built page on localhost.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .browser import call, guarded_page, open_ready, profile_context, served_browser

ROOT = Path(__file__).resolve().parents[2]
KERNEL_SHAPES = [(256, 256), (1024, 256), (4096, 256), (384, 384), (1536, 384), (8192, 384)]


def chromium(web: Path, network: tuple[float, float] | None = None, server: list | None = None):
    """A served site and a headless Chromium (decodelab_tools/browser.py): yields (browser, url)."""
    return served_browser(web, network, server)


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
    subprocess.run(["gcc", "-O3", "-march=native", "-ffp-contract=off", "-DDL_NATIVE", "-I", str(k), str(k / "matvec.c"),
                    str(k / "bench_native.c"), "-o", str(out)], check=True)
    return out


def bench_kernel(web: Path, json_path: Path | None, rounds: int = 5) -> dict:
    native = build_native()
    args = [str(n) for shape in KERNEL_SHAPES for n in shape]
    samples: dict[str, dict[str, list[float]]] = {f"{r}x{c}": {} for r, c in KERNEL_SHAPES}
    js_diff = 0.0
    with chromium(web) as (browser, url):
        _, page = guarded_page(browser, url)
        page.goto(url + "/bench/kernel.html")
        page.wait_for_function("() => window.kernelBench && window.kernelBench.ready")
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
    variants = ["simd_fast", "simd128_fast", "simd_exact", "scalar_exact", "scalar_fast", "js", "native_fast",
                "native_exact"]
    print("\nGMAC/s, median of", rounds, "interleaved rounds (headless Chromium; simd_fast = the page's kernel, with the "
          "relaxed-SIMD dot; simd128_fast = plain SIMD; native = gcc -O3 -march=native)")
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

def _first_distribution(page, url: str, path: str = "/", timeout: float = 120_000, count_bytes: bool = False,
                        server=None) -> dict:
    """Navigate; time navigation -> worker ready and -> the panel's first distribution drawn (the
    page's own clock: window.__readyAt, __firstDistributionAt). With count_bytes, also count the
    bytes that came over the network (the page's and the worker's requests). That count asks the
    browser for each request's sizes over the DevTools protocol while the page starts, which costs
    the page CPU time (about 50 ms on a 2-core machine), so timed loads do not count bytes: the
    bytes come from a load of their own. The waits poll every 100 ms rather than every frame, for
    the same reason; the times are the page's own, so the polling does not round them."""
    sizes = []

    def done(req):
        try:
            s = req.sizes()
            sizes.append(s["responseBodySize"] + s["responseHeadersSize"])
        except Exception:  # a request that failed or was served from memory has no sizes
            pass

    if count_bytes:
        page.context.on("requestfinished", done)  # the context hears the worker's requests too
    sent = server.bytes_sent if server else 0
    page.goto(url + path)
    page.wait_for_function("() => document.body.dataset.ready", timeout=timeout, polling=100)
    page.wait_for_function("() => document.querySelector('#sampler-panel').dataset.updates", timeout=timeout, polling=100)
    server_bytes = server.bytes_sent - sent if server else None  # what the first distribution took
    if count_bytes:
        page.wait_for_timeout(300)  # let the last requests report
        page.context.remove_listener("requestfinished", done)
    t = page.evaluate("""() => {
        const nav = performance.getEntriesByType('navigation')[0];
        return {ready_ms: window.__readyAt, first_ms: window.__firstDistributionAt,
                stages: window.__bootStages, dom_ms: nav ? nav.domContentLoadedEventEnd : null,
                mount_ms: (performance.getEntriesByName('decodelab-mount', 'measure')[0] || {}).duration,
                worker_created_ms: window.__decodelabWorkerAt,
                python: document.body.dataset.pythonStart, marks: window.__bootMarks, choice: window.__pythonChoice};
    }""")
    if count_bytes:
        t["bytes"] = sum(sizes)
        t["requests"] = len(sizes)
    t["server_bytes"] = server_bytes
    return t


def _cold_and_repeat(browser, url: str, path: str, n: int, server=None) -> tuple[list, list, dict]:
    """n cold loads (a new context each: empty cache), then, in a browser with an on-disk profile
    (profile_context: the caches a returning reader has), one cold load that counts bytes and n
    repeat visits (timed) and one repeat that counts bytes."""
    cold, warm = [], []
    for _ in range(n):
        ctx = browser.new_context()
        cold.append(_first_distribution(ctx.new_page(), url, path, server=server))
        ctx.close()
    with tempfile.TemporaryDirectory(prefix="decodelab-profile-", ignore_cleanup_errors=True) as profile:
        ctx = profile_context(browser, Path(profile))
        try:
            page = ctx.new_page()
            counted = {"cold": _first_distribution(page, url, path, count_bytes=True, server=server)}
            for _ in range(n):
                warm.append(_first_distribution(page, url, path, server=server))
            counted["repeat"] = _first_distribution(page, url, path, count_bytes=True, server=server)
        finally:
            ctx.close()  # that browser's profile is the folder removed next
    return cold, warm, counted


def bench_startup(web: Path, json_path: Path | None, n: int = 9, network: tuple[float, float] | None = None) -> dict:
    """Cold (a new browser context: empty cache) and repeat visits (a browser with an on-disk
    profile, reloaded, so the HTTP cache and V8's wasm code cache work: no request interception
    here, since Playwright's routing turns the cache off), for the page as shipped ("auto": the start
    its link suits), for Python restored from the memory snapshot (?snapshot=1) and for Python
    started and decodelab imported from .pyc (?snapshot=0, also the snapshot's fallback).
    Medians of n, in seconds from navigation. network=(Mbit/s, round trip ms): the server plays
    that link (devserver.py; page and worker alike, as the server paces them) and counts the bytes
    it sent until the first distribution; the localhost figures are measured in the same run,
    before, for the comparison."""
    data = {"localhost": _startup_on(web, n, None)}
    if network:
        data["network"] = {"mbit": network[0], "rtt_ms": network[1], **_startup_on(web, max(3, n // 2), network)}
        print()
        for name in ("auto", "snapshot", "fallback"):
            here, there = data["localhost"][name], data["network"][name]
            print(f"[{name}] first distribution, cold: localhost {here['cold_first_distribution_s']:.2f} s, "
                  f"{network[0]:g} Mbit/s {network[1]:g} ms {there['cold_first_distribution_s']:.2f} s "
                  f"(engine ready {there['cold_ready_s']:.2f} s, {there['cold_server_bytes'] / 1e6:.1f} MB sent); "
                  f"repeat {there['repeat_first_distribution_s']:.2f} s")
    write_json(json_path, data)
    return data


def _startup_on(web: Path, n: int, network) -> dict:
    def med(rs, k):
        vals = [r[k] for r in rs if r.get(k) is not None]
        return statistics.median(vals) / 1000 if vals else None

    where = f"{network[0]:g} Mbit/s, {network[1]:g} ms" if network else "localhost"
    data, server = {}, []
    with chromium(web, network, server) as (browser, url):
        for name, path in (("auto", "/"), ("snapshot", "/?snapshot=1"), ("fallback", "/?snapshot=0")):
            cold, warm, counted = _cold_and_repeat(browser, url, path, n, server[0])
            paths = {r["python"] for r in cold + warm}
            sent = [r["server_bytes"] for r in cold]
            d = data[name] = {
                "python_start": sorted(paths),
                "cold_first_distribution_s": med(cold, "first_ms"), "cold_ready_s": med(cold, "ready_ms"),
                "repeat_first_distribution_s": med(warm, "first_ms"), "repeat_ready_s": med(warm, "ready_ms"),
                "cold_first_distribution_range_s": [min(r["first_ms"] for r in cold) / 1000, max(r["first_ms"] for r in cold) / 1000],
                "cold_bytes": counted["cold"]["bytes"], "cold_requests": counted["cold"]["requests"],
                "repeat_bytes": counted["repeat"]["bytes"], "cold_server_bytes": statistics.median(sent),
                "cold_all": cold, "repeat_all": warm, "stages_first_cold": cold[0]["stages"]}
            rates = [r["choice"]["rate"] for r in cold if (r.get("choice") or {}).get("rate")]
            d["cold_link_rate_mbit"] = statistics.median(rates) * 8 / 1e6 if rates else None
            print(f"[{where}] [{name}: Python {'/'.join(paths)}"
                  + (f", the link read as {d['cold_link_rate_mbit']:.0f} Mbit/s" if rates else "")
                  + f"] navigation -> first distribution drawn, median of {n}: "
                  f"cold {d['cold_first_distribution_s']:.2f} s (range {d['cold_first_distribution_range_s'][0]:.2f}-"
                  f"{d['cold_first_distribution_range_s'][1]:.2f}), repeat visit {d['repeat_first_distribution_s']:.2f} s")
            print(f"[{where}] [{name}] navigation -> worker ready: cold {d['cold_ready_s']:.2f} s, repeat {d['repeat_ready_s']:.2f} s; "
                  f"bytes over the network: cold {d['cold_bytes'] / 1e6:.1f} MB (the server sent "
                  f"{d['cold_server_bytes'] / 1e6:.1f} MB by the first distribution), repeat {d['repeat_bytes'] / 1e6:.2f} MB")
            print(f"[{where}] [{name}] main thread: worker created at {med(cold, 'worker_created_ms'):.2f} s, DOMContentLoaded at "
                  f"{med(cold, 'dom_ms'):.2f} s, mounting the widgets took {med(cold, 'mount_ms') * 1000:.0f} ms (cold medians)")
            marks = {k: statistics.median(r["marks"][k] for r in cold if r.get("marks") and k in r["marks"])
                     for k in (cold[0].get("marks") or {})}
            print(f"[{where}] [{name}] worker milestones, ms since navigation (cold medians):",
                  ", ".join(f"{k} {v:.0f}" for k, v in marks.items()))
            print(f"[{where}] [{name}] stages of the first cold load (s since the worker started):",
                  ", ".join(f"{k} {v:.2f}" for k, v in (cold[0]["stages"] or {}).items()))
    return data


# ---- in-page benchmarks through the worker's Python ------------------------------------------------

def _page(browser, url):
    _, page = guarded_page(browser, url)
    open_ready(page, "/", timeout=120_000)
    return page


def local_engine(name: str = "main"):
    from decodelab.engine import Engine
    from decodelab.kernel import Kernel

    return Engine.from_file(Kernel.open(), ROOT / "models" / f"{name}.dlm")


def bench_generate(web: Path, json_path: Path | None, runs: int = 5, warmup: int = 3) -> dict:
    from decodelab import perf

    res = {}
    with chromium(web) as (browser, url):
        page = _page(browser, url)
        # The first runs after a page load are slower: V8 compiles wasm in a quick baseline tier and
        # recompiles hot functions (Pyodide's interpreter loop among them) with its optimizing
        # tier while they run. The figures below are the steady state, after a warm-up; the very
        # first run is reported too, as what a reader's first click gets.
        cold = {mode: call(page, "bench_generate", n=300, mode=mode)["tps"] for mode in ("default", "greedy")}
        for _ in range(warmup):
            for mode in ("greedy", "default"):
                call(page, "bench_generate", n=300, mode=mode)
        # greedy and default in pairs, one right after the other: this VM's speed swings by
        # half between minutes, so only the ratio within a pair says what sampling costs
        pairs = [{mode: call(page, "bench_generate", n=300, mode=mode) for mode in ("greedy", "default")}
                 for _ in range(max(runs, 9))]
        ratio = statistics.median(p["default"]["tps"] / p["greedy"]["tps"] for p in pairs)
        for mode in ("greedy", "default"):
            rs = [p[mode] for p in pairs]
            res[f"chromium_{mode}"] = sorted(rs, key=lambda r: r["tps"])[len(rs) // 2]
        # the 14-token prompt (13 tokens after the start token) and 30 new tokens of the engine issue
        kv = call(page, "ch2_kv_race", prompt="Once upon a time, there was a big dog. He liked", n=30)
        exact = [call(page, "bench_generate", n=300, mode="greedy", fast=False)["tps"] for _ in range(runs)]
    e = local_engine()
    for mode in ("greedy", "default"):
        rs = [perf.generate_speed(e, 300, mode) for _ in range(runs)]
        res[f"wasmtime_{mode}"] = sorted(rs, key=lambda r: r["tps"])[len(rs) // 2]
    res["greedy_text_identical"] = res["chromium_greedy"]["text"] == res["wasmtime_greedy"]["text"]
    act = activation_paths(e)
    act["chromium_greedy_tps_exact"] = statistics.median(exact)
    act["chromium_greedy_tps_fast"] = res["chromium_greedy"]["tps"]
    data = {"chromium_default_tps": res["chromium_default"]["tps"], "chromium_greedy_tps": res["chromium_greedy"]["tps"],
            "wasmtime_default_tps": res["wasmtime_default"]["tps"], "wasmtime_greedy_tps": res["wasmtime_greedy"]["tps"],
            "chromium_default_over_greedy": ratio, "chromium_pairs": len(pairs),
            "chromium_first_run_tps": cold, "warmup_runs": warmup, "runs": runs,
            "chromium_default_kernel_share": res["chromium_default"]["kernel_share"],
            "wasmtime_default_kernel_share": res["wasmtime_default"]["kernel_share"],
            "greedy_text_identical": res["greedy_text_identical"], "activation_paths": act,
            "kv_race": {"prompt_tokens": kv["prompt_tokens"], "new_tokens": kv["n"],
                        "passes_with": kv["with_cache"]["passes"], "passes_without": kv["without_cache"]["passes"],
                        "ms_with": kv["with_cache"]["ms"], "ms_without": kv["without_cache"]["ms"],
                        "same_output": kv["same_output"]}, "detail": res}
    table([[k.replace("_", " "), f"{v['tps']:.0f}", f"{100 * v['kernel_share']:.0f}%", f"{100 * v['python_share']:.0f}%"]
           for k, v in res.items() if isinstance(v, dict)], ["runtime / mode", "tokens/s", "in kernel", "in Python"])
    k = data["kv_race"]
    print(f"KV race ({k['prompt_tokens']}-token prompt, {k['new_tokens']} new): passes {k['passes_with']} vs "
          f"{k['passes_without']}, {k['ms_with']:.1f} ms vs {k['ms_without']:.1f} ms, same output: {k['same_output']}")
    print(f"Chromium, first run after the page loaded (before the JIT's optimizing tier): default "
          f"{cold['default']:.0f}, greedy {cold['greedy']:.0f} tokens/s; the table is the median of {len(pairs)} runs "
          f"after {warmup} warm-up rounds")
    print(f"Chromium, default sampling (T 0.8, top-p 0.95) over greedy, median of {len(pairs)} interleaved "
          f"pairs: {ratio:.3f}")
    print(f"greedy text identical in Chromium and wasmtime: {data['greedy_text_identical']}")
    print(f"activation path on {act['stories']} validation stories: exact {act['exact_nats']:.4f} nats/token, "
          f"fast (7-bit x) {act['fast_nats']:.4f} (+{act['fast_nats'] - act['exact_nats']:.4f}); greedy tokens/s in "
          f"Chromium: fast {act['chromium_greedy_tps_fast']:.0f}, exact {act['chromium_greedy_tps_exact']:.0f}")
    write_json(json_path, data)
    return data


def activation_paths(e, stories: int = 60) -> dict:
    """Held-out loss with x in float32 (exact path) and x rounded to 7-bit integers (fast path), through the
    numpy mirror of the kernel's arithmetic, on the first validation stories."""
    from . import reference
    from .training.corpus import valid_stories

    b = e.bundle
    w = reference.dequantized_weights(b)
    stream = [b.config.eot_id]
    for st in valid_stories()[:stories]:
        stream += e.tokenizer.encode(st) + [b.config.eot_id]
    out = {"stories": stories}
    for name, aq in (("exact", False), ("fast", True)):
        nats, n = reference.stream_nll(w, b.config, stream, act_quant=aq)
        out[f"{name}_nats"] = nats / n
    return out


def bench_sampler(web: Path, json_path: Path | None) -> dict:
    from decodelab import perf

    with chromium(web) as (browser, url):
        page = _page(browser, url)
        cold = call(page, "bench_sampler", n=600)  # the first run, while the JIT warms up
        pyo = call(page, "bench_sampler", n=600)
        # The panel's own latency: slider input event -> worker -> Python -> bars, readouts and plot
        # redrawn (the figure the panel shows under itself). Ten warm-up moves first (the JIT).
        moves = {"top_p": ("0.9", "0.8", "0.7", "0.6", "0.5", "0.85", "0.75", "0.65", "0.55", "0.95"),
                 "temperature": ("1.0", "0.9", "0.7", "1.2", "0.6", "1.1", "0.5", "1.3", "0.75", "0.8"),
                 "top_k": ("40", "20", "10", "5", "60", "30", "15", "8", "3", "0"),
                 "min_p": ("0.05", "0.1", "0.2", "0.3", "0.02", "0.15", "0.25", "0.08", "0.04", "0"),
                 "repetition_penalty": ("1.1", "1.3", "1.5", "1.2", "1.4", "1.05", "1.6", "1.25", "1.15", "1")}

        def move(slider, v):
            before = page.get_attribute("#sampler-panel", "data-updates")
            page.eval_on_selector(f"#sp-{slider}", f"(e) => {{ e.value = {v}; e.dispatchEvent(new Event('input')); }}")
            page.wait_for_function("(b) => document.querySelector('#sampler-panel').dataset.updates !== b", arg=before)
            return float(page.get_attribute("#sampler-panel", "data-latency"))

        for v in moves["top_p"]:
            move("top_p", v)
        lat = {slider: [move(slider, v) for v in values] for slider, values in moves.items()}
    cpy = perf.sampler_step_ms(local_engine(), 600)
    every = [x for xs in lat.values() for x in xs]
    frame = 1000 / 60
    data = {"pyodide_step_ms": pyo["step_ms"], "pyodide_first_run_step_ms": cold["step_ms"], "cpython_step_ms": cpy["step_ms"],
            "panel_update_ms_median": statistics.median(every),
            "panel_update_ms_p90": sorted(every)[int(0.9 * len(every))],
            "panel_within_frame_share": sum(x <= frame for x in every) / len(every),
            "panel_update_ms_by_slider": {k: statistics.median(v) for k, v in lat.items()}, "panel_update_ms": lat}
    print(f"sampler step at default settings (T 0.8, top-p 0.95): Pyodide {pyo['step_ms']:.3f} ms (first run after "
          f"the page loaded: {cold['step_ms']:.3f} ms), CPython {cpy['step_ms']:.3f} ms")
    table([[k, f"{statistics.median(v):.1f}", f"{max(v):.1f}", ", ".join(f"{x:.1f}" for x in v)] for k, v in lat.items()],
          ["slider", "median ms", "max ms", "each move (ms)"])
    print(f"control panel, slider move -> redrawn: median {data['panel_update_ms_median']:.1f} ms, 90th percentile "
          f"{data['panel_update_ms_p90']:.1f} ms, {100 * data['panel_within_frame_share']:.0f}% of moves within one "
          f"frame ({frame:.1f} ms)")
    write_json(json_path, data)
    return data


def bench_requant(web: Path, json_path: Path | None) -> dict:
    with chromium(web) as (browser, url):
        page = _page(browser, url)
        rq = call(page, "bench_requant")
        variants = ("main", "scalar", "jsmatvec")
        cold = {v: call(page, "ch2_speed", variant=v)["tps"] for v in variants}
        speeds = {v: [] for v in variants}
        for _ in range(7):  # interleaved rounds, after the warm-up above (see bench_generate)
            for v in variants:
                speeds[v].append(call(page, "ch2_speed", variant=v)["tps"])
    med = {v: statistics.median(x) for v, x in speeds.items()}
    data = {"requant_ms": rq["requant_ms"], "requant_median_ms": rq["median_ms"], "restore_ms": rq["restore_ms"],
            "per_setting_ms": rq["per_setting_ms"], "tps": med, "first_run_tps": cold, "tps_rounds": speeds,
            "simd_vs_js_by_round": [a / b for a, b in zip(speeds["main"], speeds["jsmatvec"])],
            "simd_vs_js_tps": med["main"] / med["jsmatvec"], "simd_vs_scalar_tps": med["main"] / med["scalar"]}
    print(f"re-quantize all weights (slowest setting): {rq['requant_ms']:.1f} ms; median {rq['median_ms']:.1f} ms; restore {rq['restore_ms']:.1f} ms")
    print(f"greedy tokens/s: SIMD {med['main']:.0f}, scalar {med['scalar']:.0f}, plain-JS matvec {med['jsmatvec']:.0f}; "
          f"SIMD/JS {data['simd_vs_js_tps']:.1f}x, SIMD/scalar {data['simd_vs_scalar_tps']:.1f}x (median of 7 interleaved "
          f"rounds after one warm-up run each; first runs: " + ", ".join(f"{v} {t:.0f}" for v, t in cold.items()) + ")")
    print("SIMD/JS round by round: " + ", ".join(f"{x:.1f}" for x in data["simd_vs_js_by_round"]))
    write_json(json_path, data)
    return data


def bench_speculative(web: Path, json_path: Path | None) -> dict:
    rows = []
    with chromium(web) as (browser, url):
        page = _page(browser, url)
        for g in range(1, 9):
            r = call(page, "ch3_live", prompt="Once upon a time, there was a little girl named Lily.", gamma=g, n=120,
                     mode="greedy", seed=1)
            rows.append({"gamma": g, "alpha": r["alpha"], "measured_speedup": r["measured_speedup"],
                         "predicted_speedup": r["predicted_speedup"], "c_draft": r["costs"]["c_draft"],
                         "predicted_speedup_micro": r["predicted_speedup_micro"],
                         "tokens_per_round": r["tokens_per_round"], "E": r["expected_tokens_per_round"],
                         "c_verify": r["costs"]["c_verify"], "same_as_target": r["same_as_target"]})
    for r in rows:
        r["error"] = r["predicted_speedup"] / r["measured_speedup"] - 1
    table([[r["gamma"], f"{r['alpha']:.3f}", f"{r['tokens_per_round']:.2f}", f"{r['E']:.2f}", f"{r['c_draft']:.2f}",
            f"{r['c_verify']:.2f}", f"{r['measured_speedup']:.3f}", f"{r['predicted_speedup']:.3f}",
            f"{100 * r['error']:+.1f}%", f"{r['predicted_speedup_micro']:.3f}", r["same_as_target"]] for r in rows],
          ["gamma", "alpha", "tok/round", "E(a,g)", "c_draft", "c_verify", "measured", "predicted", "error",
           "pred. (micro costs)", "same text"])
    print("c_draft, c_verify: measured inside the rounds, in target-alone tokens; 'micro costs': the same model fed "
          "with isolated timings of one draft pass and one verification pass")
    data = {"rows": rows, "alpha": statistics.median(r["alpha"] for r in rows),
            "measured_speedup": {r["gamma"]: r["measured_speedup"] for r in rows},
            "predicted_speedup": {r["gamma"]: r["predicted_speedup"] for r in rows},
            "max_abs_error": max(abs(r["error"]) for r in rows)}
    write_json(json_path, data)
    return data


def bench_lighthouse(web: Path, json_path: Path | None, runs: int = 3) -> dict:
    """Lighthouse's mobile and desktop presets on a plain static server, then on one that compresses
    (decodelab_tools/lighthouse.py)."""
    from .lighthouse import COLUMNS, measure

    data = measure(web, runs)
    med = data["median"]
    cols = [c for c, _, _ in COLUMNS]
    keys = [k for k in med["mobile"] if k != "failed_audits"]
    table([[k] + [med[p][k] for p in cols] for k in keys], [f"median of {runs}"] + cols)
    # each run beside the median: on a busy or 2-core machine the blocking time of identical
    # builds varies several-fold, and a median of three hides how much
    for p in cols:
        each = lambda key: "/".join(f"{r[key]:.0f}" for r in data["runs"][p])  # noqa: E731
        print(f"{p} runs: performance {each('performance')}, tbt {each('tbt_ms')} ms, lcp {each('lcp_ms')} ms")
    for p in cols:
        if med[p]["failed_audits"]:
            print(f"{p}: audits below full marks: {', '.join(med[p]['failed_audits'])}")
    print(json.dumps(med))
    write_json(json_path, data)
    return data


BENCHES = {"kernel": bench_kernel, "startup": bench_startup, "generate": bench_generate, "sampler": bench_sampler,
           "requant": bench_requant, "speculative": bench_speculative, "lighthouse": bench_lighthouse}


def run_bench(name: str, web: Path, json_path: Path | None, network: tuple[float, float] | None = None) -> None:
    fn = BENCHES.get(name)
    if fn is None:
        sys.exit(f"benchmark {name!r} is not available yet; have: {', '.join(BENCHES)}")
    if network and name != "startup":
        sys.exit("--network is for bench startup")
    fn(web, json_path, **({"network": network} if network else {}))
