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


def chromium_under(roots: set[int]) -> set[int]:
    """The Chromium processes among roots and their descendants (from /proc)."""
    import os

    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                # the field after the command's parenthesised name is the state, then the parent
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass  # gone meanwhile
    under, grew = set(roots), True
    while grew:  # a child's pid can be lower than its parent's: grow the set until it is stable
        grew = False
        for pid, ppid in parent.items():
            if ppid in under and pid not in under:
                under.add(pid)
                grew = True
    found = set()
    for pid in under:
        try:
            if "chromium" in os.readlink(f"/proc/{pid}/exe"):
                found.add(pid)
        except OSError:
            pass
    return found


def signal_all(pids, sig=None) -> None:
    """SIGKILL (or sig) each of pids that is still there."""
    import os
    import signal

    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL if sig is None else sig)
        except OSError:
            pass


class RelaunchingBrowser:
    """The test session's Chromium, started again when a test has timed out in it.

    A test that waits for ever fails after pytest's timeout (pyproject.toml), and the tests after it
    go on. If the hang was the browser itself (new_context() never answers), every later test
    would hang too, and so would the test's own teardown (closing its context). So a timeout
    `abandon()`s the browser: its processes are killed at once (a close then fails fast), and the
    next use launches a new one. Everything else is the Browser's own (attributes pass through)."""

    def __init__(self, playwright):
        import os

        self._playwright, self._pid = playwright, os.getpid()
        self.suspect = False
        self.relaunches = -1
        self._launch()

    def _launch(self) -> None:
        # its processes: the Chromium ones that appear under this process while it starts (its
        # renderers, started later, descend from them)
        before = chromium_under({self._pid})
        self._browser = launch(self._playwright)
        self.processes = chromium_under({self._pid}) - before
        self.suspect = False
        self.relaunches += 1

    @property
    def playwright(self):
        """The Playwright this browser was launched from (a second browser is launched from it: a
        process has one sync Playwright at a time)."""
        return self._playwright

    def abandon(self) -> None:
        """Kill this browser's processes (Playwright's close() would wait for an answer)."""
        signal_all(chromium_under(self.processes))
        self.suspect = True

    @property
    def current(self):
        if self.suspect or not self._browser.is_connected():
            signal_all(chromium_under(self.processes))  # whatever is left of the old one
            self._launch()
        return self._browser

    def __getattr__(self, name):
        return getattr(self.current, name)

    def close(self):
        if self._browser.is_connected() and not self.suspect:
            self._browser.close()
        else:
            signal_all(chromium_under(self.processes))


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
