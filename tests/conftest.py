"""Shared fixtures: the kernel through wasmtime, the built site served on localhost, and a
headless Chromium page that aborts (and records) every request leaving our origin
(decodelab_tools/browser.py, the same harness the benchmarks use)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
WEB = ROOT / "web"

from decodelab_tools.browser import call as py  # noqa: E402,F401  (tests import it from here)
from decodelab_tools.browser import guarded_page, launch, open_ready  # noqa: E402,F401


def open_code(pg):
    """Open the "see the code" disclosure that holds the toy sampler's Python cell (issue 43)."""
    pg.evaluate("() => { document.querySelector('#toy-code').open = true; }")


def examples() -> dict:
    """The reference examples (web/js/live/examples.js) as the page imports them, read by Node."""
    import functools
    import json
    import subprocess

    @functools.cache
    def read():
        url = (WEB / "js" / "live" / "examples.js").as_uri()
        out = subprocess.run(["node", "-e", f"import({json.dumps(url)}).then(m => console.log(JSON.stringify(m)))"],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)
    return read()


@pytest.fixture(scope="session")
def valid_stories():
    """The held-out TinyStories (valid.txt). The corpus is not committed: where it is absent a
    test that needs it is skipped, and says which folder it looked for."""
    from decodelab_tools.training import corpus

    try:
        folder = corpus.default_corpus_dir()
    except FileNotFoundError as e:
        pytest.skip(f"needs the TinyStories corpus, which is not in the repository: {e}")
    return corpus.valid_stories(folder)


# How long settled() waits for the engine to answer what the page asked. Far above any answer
# seen in these tests (a cold boot in WebKit on a busy machine takes under a minute), so reaching
# it means a call was lost, and the test fails naming it rather than the suite hanging.
SETTLE_LIMIT_MS = 180_000


# Two rendered frames, as a JS expression (a promise): layout and paint have followed the last
# change. Or a second, if the page renders no frame: a page Chromium does not render (hidden, or
# its compositor stalled) never runs requestAnimationFrame, and page.evaluate has no timeout, so a
# bare wait for a frame there would wait for ever (a design test once did, on CI's machine). Each
# such second is counted in window.__framesMissed.
TWO_FRAMES = """new Promise((r) => {
  const late = setTimeout(() => { window.__framesMissed = (window.__framesMissed || 0) + 1; r(); }, 1000);
  requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(late); r(); }));
})"""


def settled(pg, limit_ms=SETTLE_LIMIT_MS):
    """Until the engine has answered every call the page made (window.decodelab.idle) and the
    page has drawn a frame after the last answer: what a test waits for before it asserts that
    nothing more happened, instead of a fixed pause. Fails with the open calls named (fn#id, and
    how long since each was sent) if they are not all answered within limit_ms."""
    pg.evaluate(f"""(limit) => window.decodelab.idle(limit).then(() => {TWO_FRAMES})
        .then(() => new Promise((r) => setTimeout(r, 0)))""", limit_ms)


def frames(pg):
    """Two rendered frames: layout and paint have followed the last change (a resize, a switch)."""
    pg.evaluate(f"() => {TWO_FRAMES}")


def widest_while_scrolling(pg, step=700):
    """Scroll the whole page and return its widest width on the way. Chapters are laid out, and
    widgets told they are near, as they come near the screen, so one measure at the top would miss
    them; after each step, two rendered frames (the layout, then the observers' callbacks that
    follow it), not a fixed pause (code review item 10)."""
    widest, y = 0, 0
    while y < pg.evaluate("document.documentElement.scrollHeight"):
        pg.evaluate(f"window.scrollTo(0, {y})")
        frames(pg)
        widest = max(widest, pg.evaluate("document.documentElement.scrollWidth"))
        y += step
    return widest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if {"page", "ready_page", "browser"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def kernel():
    from decodelab.kernel import Kernel

    return Kernel.open(simd=True)


@pytest.fixture(scope="session")
def simd_kernel():
    """SIMD without the relaxed-SIMD dot: what the page falls back to where that is missing."""
    from decodelab.kernel import Kernel

    return Kernel.open(variant="simd")


@pytest.fixture(scope="session")
def scalar_kernel():
    from decodelab.kernel import Kernel

    return Kernel.open(simd=False)


@pytest.fixture(scope="session")
def site():
    if not (WEB / "build-info.json").exists():
        pytest.fail("the site is not built: run `python3 build.py test` (it builds first)")
    from decodelab_tools.devserver import serve_in_thread

    srv, url = serve_in_thread(WEB)
    yield url
    srv.shutdown()


_browsers = []  # the session's browser, for the hook below


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from decodelab_tools.browser import RelaunchingBrowser

    with sync_playwright() as p:
        b = RelaunchingBrowser(p)
        _browsers.append(b)
        yield b
        b.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that timed out (pytest-timeout; pyproject.toml) ends its Chromium, and the next test
    starts a new one: if the old one is what hung, its teardown and every test after would hang
    in it too."""
    report = yield
    if report.failed and "from pytest-timeout" in str(report.longrepr):
        for b in _browsers:
            b.abandon()
    return report


@pytest.fixture
def page(browser, site):
    ctx, pg = guarded_page(browser, site)
    yield pg
    ctx.close()
    assert not pg.blocked, f"the page tried to reach other origins: {pg.blocked}"


@pytest.fixture(scope="module")
def ready_page(browser, site):
    """One booted page shared by a module's tests (booting Pyodide takes seconds)."""
    ctx, pg = guarded_page(browser, site)
    open_ready(pg)
    yield pg
    ctx.close()
    assert not pg.blocked, f"the page tried to reach other origins: {pg.blocked}"
    assert not pg.console_errors, f"console errors: {pg.console_errors}"


@pytest.fixture(scope="module")
def hf():
    """HF tokenizers' own encoder over the shipped tokenizer file (the parity tests' oracle)."""
    from tokenizers import Tokenizer as HF

    return HF.from_file(str(ROOT / "models" / "tokenizer.json"))


@pytest.fixture(scope="module")
def ours():
    """Our pure-Python encoder, from the shipped bundle."""
    from decodelab.bundle import read_bundle, tokenizer_from_bundle

    return tokenizer_from_bundle(read_bundle((ROOT / "models" / "main.dlm").read_bytes()))
