"""End-to-end: the built page boots Pyodide in a worker, Python drives the wasm kernel, and the
result equals what the same Python computes in CPython through wasmtime. No request may leave
the page's origin (the `page` fixture aborts and fails on any)."""
import pytest
from conftest import open_ready, py


def test_worker_ready_and_kernel_matches_cpython(page, kernel):
    from decodelab.kernelcheck import run_check

    open_ready(page)
    info = py(page, "ping")
    assert info["simd"] is True and info["python"].startswith("3.14")
    for rows, cols in [(33, 15), (1024, 256)]:
        in_page = py(page, "kernel_check", rows=rows, cols=cols, seed=3)
        here = run_check(kernel, rows, cols, seed=3)
        # the same wasm, the same inputs: bit-identical outputs
        assert in_page["exact"] == here["exact"]
        assert in_page["fast"] == here["fast"]
    assert not page.console_errors


def test_kernel_widget_reports_result(page):
    open_ready(page)
    page.click("#kc-run")
    page.wait_for_selector("#kc-out[data-result]")
    assert "SIMD kernel" in page.inner_text("#kc-out")


def test_bad_input_is_shown_next_to_the_field(page):
    open_ready(page)
    page.fill("#kc-rows", "-3")
    page.click("#kc-run")
    page.wait_for_selector("#kc-rows + .field-error:not([hidden])")
    assert "1 to 8,192" in page.inner_text("#kc-rows + .field-error")
    page.fill("#kc-rows", "64")
    page.click("#kc-run")
    page.wait_for_selector("#kc-out[data-result]")


def test_scalar_fallback_has_a_notice(page):
    open_ready(page, "/?nosimd=1")
    assert py(page, "ping")["simd"] is False
    assert "scalar kernel" in page.inner_text("#kernel-notice")


def test_best_kernel_by_default_and_fallback_without_relaxed_simd(page):
    open_ready(page)
    assert py(page, "ping")["simd_level"] == 2
    # a browser that cannot validate the relaxed-SIMD build (here: its bytes are not wasm) gets plain SIMD
    page.route("**/kernel_relaxed.wasm*", lambda route: route.fulfill(status=200, body=b"not wasm",
                                                                     headers={"Content-Type": "application/wasm"}))
    open_ready(page)
    stage = page.inner_text("#boot-stage")
    assert py(page, "ping")["simd_level"] == 1 and "SIMD kernel" in stage and "relaxed" not in stage


def test_no_kernel_at_all_gives_a_clear_error(page):
    page.route("**/kernels/kernel_*.wasm*", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(page.site + "/")
    page.wait_for_function("() => document.body.dataset.ready === 'failed'", timeout=60_000)
    msg = page.inner_text("#boot-error")
    assert "No kernel could be loaded" in msg and "kernel_relaxed.wasm" in msg and "404" in msg and "Reload" in msg


def test_damaged_model_file_gives_a_clear_error(page):
    from pathlib import Path

    good = (Path(__file__).resolve().parents[1] / "web" / "models" / "main.dlm").read_bytes()
    bad = good[:4000] + bytes([good[4000] ^ 0xFF]) + good[4001:]
    page.route("**/models/main.dlm*", lambda route: route.fulfill(status=200, body=bad,
                                                                 headers={"Content-Type": "application/octet-stream"}))
    page.goto(page.site + "/")
    page.wait_for_function("() => document.body.dataset.ready === 'failed'", timeout=60_000)
    msg = page.inner_text("#boot-error")
    assert "loading the models" in msg and "damaged" in msg and "checksum" in msg


@pytest.mark.parametrize("path", ["/", "/?snapshot=0"])
def test_python_starts_from_bytecode_and_micropip_waits_for_the_cell(page, path):
    """Start-up: nothing we need is compiled in the page. Restored from the snapshot (the page as
    shipped), every decodelab module and what it imports is already in memory before the first
    cell; from scratch (the fallback), the standard library and our package come as .pyc. Our
    package is a zip on sys.path with its sources beside it (tracebacks keep their lines), and
    micropip is not loaded until the reader's cell asks for it."""
    open_ready(page, path)
    code = ("import sys\n"
            "preloaded = sorted(m for m in ('json', 'decodelab.api', 'decodelab.ch3', 'decodelab.engine') if m in sys.modules)\n"
            "import json, csv\n"
            "from decodelab import sampler\n"
            "print(json.dumps([sampler.__file__, json.__spec__.origin, 'micropip' in sys.modules, preloaded]))\n")
    r = py(page, "run_cell", code=code)
    assert r["ok"], r["output"]
    import json

    ours, stdlib, micropip_loaded, preloaded = json.loads(r["output"])
    assert ours == "/lib/decodelab.zip/decodelab/sampler.pyc"
    if path == "/":
        assert page.evaluate("() => document.body.dataset.pythonStart") == "snapshot"
        assert preloaded == ["decodelab.api", "decodelab.ch3", "decodelab.engine", "json"]
    else:
        assert page.evaluate("() => document.body.dataset.pythonStart") == "import"
        assert stdlib.endswith(".pyc")
    assert micropip_loaded is False
    tb = py(page, "run_cell", code="import traceback\nfrom decodelab import sampler\n"
                                   "try:\n    sampler.make_settings(temperature='hot')\n"
                                   "except Exception:\n    print(traceback.format_exc())")
    assert "sampler.py" in tb["output"] and 'raise SamplerError("setting_not_number", field' in tb["output"]
    r = py(page, "run_cell", code="import micropip\nprint(micropip.__name__)")
    assert r["ok"] and r["output"].strip() == "micropip"
