"""Headless Chromium driving the built page (CPython only): one harness for tests and benchmarks.

Debian's chromium, driven by PyPI playwright (Playwright cannot download its own browser here).
Every page made here aborts, and records, any request that leaves the site's origin.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]
BOOT_TIMEOUT_MS = 60_000


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


@contextmanager
def served_browser(web: Path, network: tuple[float, float] | None = None, server: list | None = None):
    """The site served on localhost and a headless Chromium: yields (browser, site URL). network:
    (Mbit/s, round trip in ms) the server plays (devserver.py); server: a list that gets the
    server, for its byte count."""
    from playwright.sync_api import sync_playwright

    from .devserver import serve_in_thread

    srv, url = serve_in_thread(web, network=network)
    if server is not None:
        server.append(srv)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            try:
                yield browser, url
            finally:
                browser.close()
    finally:
        srv.shutdown()


def profile_context(browser, user_data_dir: Path):
    """A second Chromium with an on-disk profile in user_data_dir, as a returning reader's browser
    is: its HTTP cache is on disk, and so is V8's cache of wasm compiled from a cached response.
    A new context of `browser` keeps its cache in memory, and that cache stores no entry as large
    as Pyodide's 9.6 MB wasm, so a reload there downloads and compiles it again."""
    return browser.browser_type.launch_persistent_context(
        str(user_data_dir), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


class OffOrigin(list):
    """Requests that tried to leave the page's origin (each one was aborted)."""


def guarded_page(browser, site: str, **context_options):
    """A new context and page; requests off the site's origin are aborted and recorded in
    page.blocked, console errors and uncaught exceptions in page.console_errors."""
    # the page registers a service worker after its first distribution (web/js/offline.js); the
    # tests of everything else run without it (tests/test_e2e_offline.py runs with it)
    ctx = browser.new_context(**{"service_workers": "block", **context_options})
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


def open_ready(page, path: str = "/", timeout: float = BOOT_TIMEOUT_MS) -> None:
    """Navigate and wait until the worker reports ready (or fail with its error)."""
    page.goto(page.site + path)
    page.wait_for_function("() => document.body.dataset.ready", timeout=timeout)
    if page.evaluate("document.body.dataset.ready") != "1":
        raise AssertionError("engine failed: " + page.inner_text("#boot-error"))
    # Widgets far from the screen are built as the reader comes near them, or in the page's quiet
    # moments once the load is over (main.js mountRest); a test has them all built at once, after
    # the panel's first distribution, as a reader who scrolls through the page would.
    page.wait_for_function("() => window.__firstDistributionAt", timeout=timeout)
    page.evaluate("() => window.decodelab.mountAll()")
    page.wait_for_function("() => document.body.dataset.mounted", timeout=timeout)


def call(page, fn: str, **args):
    """Call a Python endpoint in the page's worker and return its result."""
    return page.evaluate("([fn, args]) => window.decodelab.call(fn, args)", [fn, args])
