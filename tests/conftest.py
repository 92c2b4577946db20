"""Shared fixtures: the kernel through wasmtime, the built site served on localhost, and a
headless Chromium page that aborts (and records) every request leaving our origin."""
from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py_src"))
WEB = ROOT / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]


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
    from decodelab.devserver import serve_in_thread

    srv, url = serve_in_thread(WEB)
    yield url
    srv.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


class OffOrigin(list):
    """Requests that tried to leave the page's origin (each one was aborted)."""


def guarded_page(browser, site):
    """A new context and page; requests off the site's origin are aborted and recorded."""
    ctx = browser.new_context()
    origin = urlparse(site).netloc
    blocked = OffOrigin()

    def guard(route):
        url = route.request.url
        if urlparse(url).netloc != origin and not url.startswith(("data:", "blob:")):
            blocked.append(url)
            route.abort()
        else:
            route.continue_()

    ctx.route("**/*", guard)
    pg = ctx.new_page()
    pg.blocked = blocked
    pg.console_errors = []
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    pg.site = site
    return ctx, pg


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


def open_ready(page, path: str = "/", timeout: float = 60_000):
    """Navigate and wait until the worker reports ready (or fail with its error)."""
    page.goto(page.site + path)
    page.wait_for_function("document.body.dataset.ready", timeout=timeout)
    state = page.evaluate("document.body.dataset.ready")
    if state != "1":
        raise AssertionError("engine failed: " + page.inner_text("#boot-error"))


def py(page, fn: str, **args):
    """Call a Python endpoint in the page's worker and return its result."""
    return page.evaluate("([fn, args]) => window.decodelab.call(fn, args)", [fn, args])
