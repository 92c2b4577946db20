"""Firefox, for the faults the engines lane cannot stage (issue 44: Chromium and Firefox alike):
a server missing a file, and two tabs of one reader. Driven through the same bridge as the lane
(decodelab_tools/firefox_bridge.mjs: puppeteer-core over WebDriver BiDi, whose request
interception answers the worker's requests too)."""
from __future__ import annotations

import pytest

from decodelab_tools import engines

pytestmark = pytest.mark.e2e

READY = """(s) => new Promise((resolve, reject) => { const t0 = Date.now();
  const look = () => document.body.dataset.ready ? resolve(document.body.dataset.ready)
    : Date.now() - t0 > s * 1000 ? reject(new Error('no answer from the engine')) : setTimeout(look, 100);
  look(); })"""


def until(lane, cond: str, s: float = 60):
    """Wait in the page until the JavaScript expression `cond` is true (composed here, not eval'd
    in the page, whose policy refuses eval)."""
    return lane.js(f"""(s) => new Promise((resolve, reject) => {{ const t0 = Date.now();
      const look = () => {{ let v = null; try {{ v = ({cond}); }} catch (e) {{}} if (v) return resolve(true);
        if (Date.now() - t0 > s * 1000) return reject(new Error('waited for {cond.replace("'", "")}')); setTimeout(look, 100); }};
      look(); }})""", s)


TYPE = """([sel, v]) => { const n = document.querySelector(sel); n.value = v;
  n.dispatchEvent(new Event('input', { bubbles: true })); return true; }"""


@pytest.fixture(scope="module")
def firefox():
    why = engines.missing("firefox")
    if why:
        pytest.skip(why)
    lane = engines.FirefoxLane()
    yield lane
    lane.quit()


@pytest.mark.parametrize("missing", ["pyodide/pyodide-lock.json", "pyodide/pyodide.asm.mjs"])
def test_a_missing_pyodide_file_is_named_in_firefox(firefox, site, missing):
    firefox.open(site + "/", missing=[missing])
    assert firefox.js(READY, 90) == "failed"
    msg = firefox.js("() => document.querySelector('#boot-error').innerText")
    name = missing.split("/")[-1]
    assert name in msg and "Reload" in msg and "JSON" not in msg, msg
    errors = firefox.driver_log()["errors"]
    assert not [e for e in errors if "Unexpected token" in e or "uncaught" in e.lower() or name in e and "Error" in e], errors


def test_a_missing_race_kernel_is_named_in_firefox(firefox, site):
    firefox.open(site + "/", missing=["kernels/kernel_scalar.wasm"])
    assert firefox.js(READY, 90) == "1"
    firefox.js("() => { document.querySelector('#speed').scrollIntoView(); return true; }")
    until(firefox, "document.querySelector('#speed-run') && document.querySelector('#speed-run').disabled")
    msg = firefox.js("() => document.querySelector('#speed-out').textContent")
    assert "kernel_scalar.wasm" in msg and "404" in msg, msg


def test_two_tabs_keep_their_own_typing_in_firefox(firefox, site):
    firefox.open(site + "/")
    assert firefox.js(READY, 90) == "1"
    firefox.js(TYPE, ["#sp-prompt", "Prompt A, first tab"])
    assert firefox.tab(site + "/") == 1
    assert firefox.js(READY, 90) == "1"
    firefox.js(TYPE, ["#sp-prompt", "Prompt B, second tab"])
    firefox.select(0)
    firefox.reload()
    assert firefox.js(READY, 90) == "1"
    assert firefox.js("() => document.querySelector('#sp-prompt').value") == "Prompt A, first tab"
    firefox.select(1)
    firefox.reload()
    assert firefox.js(READY, 90) == "1"
    assert firefox.js("() => document.querySelector('#sp-prompt').value") == "Prompt B, second tab"
    assert firefox.driver_log()["offOrigin"] == []


def test_a_reload_with_the_server_gone_runs_the_model_in_firefox(firefox):
    """#45: offline after the first visit, in Firefox as in Chromium (test_e2e_offline.py): once
    the page has filled its offline copy, a reload with the server stopped shows the page in its
    language and draws a token."""
    from pathlib import Path

    from decodelab_tools.devserver import serve_in_thread

    srv, url = serve_in_thread(Path(__file__).resolve().parents[1] / "web")
    try:
        firefox.open(url + "/index.ru.html")
        assert firefox.js(READY, 120) == "1"
        until(firefox, "['ready', 'failed', 'unsupported'].includes(document.documentElement.dataset.offline)", 120)
        assert firefox.js("() => document.documentElement.dataset.offline") == "ready"
    finally:
        srv.shutdown()
        srv.server_close()
    firefox.reload()
    assert firefox.js(READY, 120) == "1"
    assert firefox.js("() => document.documentElement.lang") == "ru"
    before = firefox.js("() => document.querySelectorAll('#sp-text .tok').length")
    firefox.js("() => { document.querySelector('#sp-draw1').click(); return true; }")
    until(firefox, f"document.querySelectorAll('#sp-text .tok').length > {before}", 60)
    assert firefox.driver_log()["offOrigin"] == []
