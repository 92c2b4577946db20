"""The page in three browser engines behind one small interface (CPython only; the test lanes).

- Chromium: Debian's chromium through PyPI playwright (decodelab_tools/browser.py's harness).
- Firefox: Debian's firefox-esr over WebDriver BiDi, through npm puppeteer-core in a Node process
  (firefox_bridge.mjs) that carries our requests line by line.
- WebKit: WebKitGTK's MiniBrowser through Debian's WebKitWebDriver and PyPI selenium, on an X
  server of its own (Debian's Xvfb; MiniBrowser has no headless mode).

Playwright's own Firefox and WebKit builds cannot be downloaded here. Every lane talks to the page
the same way: `js(src, arg)` calls the JavaScript function `src` with one JSON argument in the
page and returns its (awaited) JSON result, so a test is written once for all three. Errors are
what the driver sees (Chromium, Firefox) plus what the page counted itself (boot.js's
window.__pageErrors: WebKitWebDriver cannot read the console).
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

ENGINES = ("chromium", "firefox", "webkit")
FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
BRIDGE = Path(__file__).with_name("firefox_bridge.mjs")

# What the page itself counted (boot.js), read the same way in every engine.
PAGE_ERRORS = "() => window.__pageErrors || ['boot.js did not run']"
# Page-level requests that left the origin (the Resource Timing entries; for WebKit, whose
# driver sees no requests).
# Scroll a window's whole page and return [its widest width on the way, its width]: formulas are
# typeset, and chapters laid out, as they come near the screen, so one measure would miss them.
WIDEST = """async (w) => {
  w = w || window;
  const html = w.document.documentElement;
  let widest = 0;
  for (let y = 0; y < html.scrollHeight; y += 700) {
    w.scrollTo(0, y);
    // two frames (typesetting and layout follow the scroll), or 250 ms where frames are held back
    await Promise.race([new Promise((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(r))),
                        new Promise((r) => setTimeout(r, 250))]);
    await new Promise((r) => setTimeout(r, 60));
    widest = Math.max(widest, html.scrollWidth);
  }
  w.scrollTo(0, 0);
  return [widest, w.innerWidth];
}"""
OFF_ORIGIN = ("() => performance.getEntriesByType('resource').map((e) => e.name)"
              ".filter((u) => !u.startsWith('data:') && !u.startsWith('blob:') && new URL(u).origin !== location.origin)")


def missing(engine: str) -> str | None:
    """Why `engine` cannot run on this machine, or None."""
    need = {"chromium": ["/usr/bin/chromium"], "firefox": [FIREFOX, shutil.which("node") or "node"],
            "webkit": [WEBKIT_DRIVER, MINIBROWSER, shutil.which("Xvfb") or "Xvfb"]}[engine]
    absent = [p for p in need if not Path(p).exists()]
    return f"{engine}: missing {', '.join(absent)}" if absent else None


class Lane:
    """One browser of one engine; `open` starts a fresh page (its own storage) in it."""

    name = ""

    def open(self, url: str, width: int = 1100, height: int = 900) -> None: ...
    def js(self, src: str, arg=None): ...
    def viewport(self, width: int, height: int) -> None: ...
    def driver_log(self) -> dict: return {"errors": [], "offOrigin": []}
    def close_page(self) -> None: ...
    def quit(self) -> None: ...

    def phone_width(self, width: int) -> tuple[int, int]:
        """(widest, screen width) over a scroll of the page on a `width` px screen."""
        self.viewport(width, 800)
        try:
            return tuple(self.js(WIDEST))
        finally:
            self.viewport(1100, 900)

    def errors(self) -> list[str]:
        return list(self.driver_log()["errors"]) + list(self.js(PAGE_ERRORS))

    def off_origin(self) -> list[str]:
        return sorted(set(self.driver_log()["offOrigin"]) | set(self.js(OFF_ORIGIN)))


class ChromiumLane(Lane):
    name = "chromium"

    def __init__(self, browser=None):
        # Playwright's sync API allows one instance a thread: a test session that has a Chromium
        # already (conftest's `browser`) lends it, and this lane does not close it
        self._pw = None
        if browser is None:
            from playwright.sync_api import sync_playwright

            from .browser import launch

            self._pw = sync_playwright().start()
            browser = launch(self._pw)
        self._browser = browser
        self._ctx = self._page = None

    def open(self, url, width=1100, height=900):
        from .browser import guarded_page

        self.close_page()
        self._ctx, self._page = guarded_page(self._browser, url, viewport={"width": width, "height": height})
        self._page.goto(url)

    def js(self, src, arg=None):
        return self._page.evaluate(src, arg)

    def viewport(self, width, height):
        self._page.set_viewport_size({"width": width, "height": height})

    def driver_log(self):
        return {"errors": list(self._page.console_errors), "offOrigin": list(self._page.blocked)}

    def close_page(self):
        if self._ctx:
            self._ctx.close()
        self._ctx = self._page = None

    def quit(self):
        self.close_page()
        if self._pw:
            self._browser.close()
            self._pw.stop()


class FirefoxLane(Lane):
    name = "firefox"

    def __init__(self):
        self._log = tempfile.TemporaryFile()
        # a process group of its own, so that quitting ends Firefox too if node cannot
        self._proc = subprocess.Popen(["node", str(BRIDGE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._log, text=True, start_new_session=True,
                                      env=dict(os.environ, DECODELAB_FIREFOX=FIREFOX))

    def _dead(self) -> RuntimeError:
        self._log.seek(0)
        return RuntimeError("the Firefox bridge ended: " + self._log.read().decode(errors="replace")[-2000:])

    def _ask(self, op: str, **args):
        # every request is bounded inside the bridge (puppeteer's protocolTimeout, and the tests'
        # own in-page deadlines before it), so this read ends
        try:
            self._proc.stdin.write(json.dumps({"op": op, **args}) + "\n")
            self._proc.stdin.flush()
        except OSError:
            raise self._dead() from None
        line = self._proc.stdout.readline()
        if not line:
            raise self._dead()
        answer = json.loads(line)
        if not answer["ok"]:
            raise RuntimeError(f"Firefox, {op}: {answer['error']}")
        return answer["value"]

    def open(self, url, width=1100, height=900, missing=()):
        """missing: parts of URLs the page (and its worker) get a 404 page for."""
        self._ask("open", url=url, width=width, height=height, missing=list(missing))

    def tab(self, url) -> int:
        """A second page of the same reader (same storage); it becomes the current page."""
        return self._ask("tab", url=url)

    def select(self, index: int) -> None:
        self._ask("select", index=index)

    def reload(self) -> None:
        self._ask("reload")

    def js(self, src, arg=None):
        return self._ask("eval", src=src, arg=arg)

    def viewport(self, width, height):
        self._ask("viewport", width=width, height=height)

    def driver_log(self):
        return self._ask("log")

    def close_page(self):
        self._ask("close")

    def quit(self):
        try:
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
        except Exception:
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._log.close()


class WebKitLane(Lane):
    name = "webkit"
    SCRIPT_TIMEOUT_S = 300

    def __init__(self):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        # an X server of our own: -displayfd writes the display number it chose
        self._x = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            ready, _, _ = select.select([self._x.stdout], [], [], 20)
            number = self._x.stdout.readline().strip() if ready else ""
            if not number.isdigit():
                raise RuntimeError(f"Xvfb did not start (it said {number!r} in 20 s)")
            opts = Options()
            opts.binary_location = MINIBROWSER
            opts.add_argument("--automation")
            service = Service(executable_path=WEBKIT_DRIVER, env=dict(os.environ, DISPLAY=":" + number))
            self._driver = webdriver.WebKitGTK(options=opts, service=service)
            self._driver.set_script_timeout(self.SCRIPT_TIMEOUT_S)
        except BaseException:
            self._stop_x()
            raise

    def _stop_x(self):
        self._x.terminate()
        try:
            self._x.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._x.kill()
        self._x.stdout.close()

    def open(self, url, width=1100, height=900):
        # a fresh page: the reader's storage of the last one goes (WebDriver classic has no
        # contexts), then the address
        if self._driver.current_url.startswith("http"):
            self._driver.execute_script("localStorage.clear(); sessionStorage.clear()")
        self.viewport(width, height)
        self._driver.get(url)

    def js(self, src, arg=None):
        r = self._driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => ({src})(arguments[0]))"
            ".then((v) => done({ok: true, v: v === undefined ? null : v}), (e) => done({ok: false, e: String(e && e.message || e) + ' | ' + String(e && e.stack || '')}));",
            arg)
        if not r["ok"]:
            raise RuntimeError("WebKit: " + r["e"])
        return r["v"]

    def viewport(self, width, height):
        # WebDriver sets the window's outer size; the page's width is what the test measures
        self._driver.set_window_size(width, height)

    def phone_width(self, width):
        # MiniBrowser's window cannot be made narrower than its toolbar (447 px here), so the
        # page goes into a `width` px frame of itself (same origin, allowed by the CSP), which
        # lays it out, media queries included, as a screen of that width would
        return tuple(self.js("""async (width) => {
            const f = document.createElement("iframe");
            f.width = width; f.height = 800;
            // on screen, over the page: WebKit holds back the frames of a frame out of sight
            Object.assign(f.style, { position: "fixed", top: "0", left: "0", zIndex: "10", background: "white" });
            document.body.append(f);
            f.src = location.href;
            await new Promise((r) => f.addEventListener("load", r, { once: true }));
            const t0 = Date.now(), w = f.contentWindow;
            try {
              while (!w.document.body.dataset.mounted) {
                if (Date.now() - t0 > 90000) throw new Error("the page in a " + width + " px frame did not start in 90 s");
                await new Promise((r) => setTimeout(r, 100));
              }
              return await (%s)(w);
            } finally {
              window.__pageErrors.push(...(w.__pageErrors || []).map((e) => "in the phone frame: " + e));
              window.__cspViolations.push(...(w.__cspViolations || []));
              f.remove();
            }
        }""" % WIDEST, width))

    def close_page(self):
        self._driver.get("about:blank")

    def quit(self):
        try:
            self._driver.quit()
        finally:
            self._stop_x()


def start(engine: str, chromium=None) -> Lane:
    """A lane of `engine`; `chromium`: a running Playwright Chromium for that lane to borrow."""
    if engine == "chromium":
        return ChromiumLane(chromium)
    return {"firefox": FirefoxLane, "webkit": WebKitLane}[engine]()
