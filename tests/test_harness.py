"""The test harness itself (decodelab_tools/browser.py): a Chromium that stops answering is
replaced, so one hung test cannot hang every test after it (conftest.py's timeout hook)."""
from __future__ import annotations

import signal
import time

import pytest

from decodelab_tools.browser import RelaunchingBrowser, chromium_under, signal_all

pytestmark = pytest.mark.e2e


def gone(pid: int, within_s: float = 10) -> bool:
    """The process has ended (or is a zombie, ended and not yet reaped) within within_s."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in "ZX":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_a_browser_that_stopped_answering_is_killed_and_started_again(browser):
    # a browser of its own, from the session's Playwright (one sync Playwright per process), so
    # the session's browser is not the one frozen
    b = RelaunchingBrowser(browser.playwright)
    ctx = b.new_context()
    assert ctx.new_page().evaluate("() => 6 * 7") == 42
    # freeze its processes: the browser can no longer answer anything
    frozen = chromium_under(b.processes)
    assert len(frozen) >= 2  # the browser and at least the page's renderer
    signal_all(frozen, signal.SIGSTOP)
    # (a call now would wait for ever: pytest-timeout ends such a test, and its hook abandons
    # the browser, as here)
    b.abandon()
    assert all(gone(pid) for pid in frozen), "killed, even while stopped"
    # the next use starts a new Chromium, and works
    ctx2 = b.new_context()
    assert ctx2.new_page().evaluate("() => 6 * 7") == 42 and b.relaunches == 1
    ctx2.close()
    b.close()
