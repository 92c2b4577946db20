"""End-to-end: the page never gets stuck, loses nothing, works on a phone, under a strict CSP.

Each test drives the built page in headless Chromium the way a reader would (or the way a broken
server would serve it) and checks that every control still works and says what happened.
"""
import json
import re
from pathlib import Path

import pytest
from conftest import ROOT, guarded_page, open_code, open_ready, py, settled, widest_while_scrolling

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def fresh(browser, site, **opts):
    ctx, pg = guarded_page(browser, site, **opts)
    return ctx, pg


def wait_ready_again(pg):
    pg.wait_for_function("() => window.decodelab && window.decodelab.ready().then(() => true)", timeout=90_000)


def test_clicks_during_boot_are_answered_when_python_is_ready(browser, site):
    """The control panel is there at once (the other widgets are mounted after its first
    distribution): a click on it while Python boots waits, then is answered."""
    ctx, pg = fresh(browser, site)
    pg.goto(site + "/")
    pg.wait_for_selector("#sp-draw10")
    pg.click("#sp-draw10")
    # read together, so Python becoming ready in between cannot fool the check
    ready, label = pg.evaluate("() => [document.body.dataset.ready, document.querySelector('#sp-draw1').textContent]")
    if not ready:  # the panel's first button carries the word for both
        assert label == "waiting for the engine…"
    pg.wait_for_selector("#sp-tok-9", timeout=90_000)
    pg.wait_for_function("() => { const b = document.querySelector('#sp-draw10'); "
                         "return b.textContent === 'Draw ten' && !b.disabled; }", timeout=30_000)
    ctx.close()


@pytest.mark.smoke
def test_an_endless_loop_can_be_stopped_and_nothing_typed_is_lost(browser, site):
    ctx, pg = fresh(browser, site)
    open_ready(pg)
    open_code(pg)
    pg.fill("#sp-prompt", "The brave little toaster went to")
    pg.fill("#ft-prompt", "A reader typed this")
    pg.fill("#pc-code", "while True:\n    pass")
    pg.click("#pc-run")
    pg.wait_for_selector("#stop-bar:not([hidden])", timeout=20_000)
    assert "your Python cell" in pg.inner_text("#stop-bar")
    pg.click("#stop-btn")
    pg.wait_for_function("() => document.querySelector('#pc-out').textContent.includes('Stopped')")
    wait_ready_again(pg)
    # everything the reader typed is still there, and the widgets work on the new engine
    assert pg.input_value("#sp-prompt") == "The brave little toaster went to"
    assert pg.input_value("#ft-prompt") == "A reader typed this"
    assert pg.input_value("#pc-code") == "while True:\n    pass"
    assert pg.is_hidden("#stop-bar")
    pg.click("#sp-draw1")
    pg.wait_for_selector("#sp-tok-0", timeout=30_000)
    assert pg.inner_text("#sp-text").startswith("The brave little toaster went to")
    ctx.close()


def test_python_closing_the_worker_is_detected_and_repaired(browser, site):
    ctx, pg = fresh(browser, site)
    open_ready(pg)
    open_code(pg)
    pg.fill("#pc-code", "import js\njs.close()")
    pg.click("#pc-run")
    pg.wait_for_function("() => (document.body.dataset.engineNotice || '').includes('restarted')", timeout=30_000)
    wait_ready_again(pg)
    assert py(pg, "ch1_tokenize", prompt="still alive")["texts"]
    pg.fill("#pc-code", "print(21 * 2)")
    pg.click("#pc-run")
    pg.wait_for_function("() => document.querySelector('#pc-out').textContent.trim() === '42'", timeout=30_000)
    ctx.close()


def test_double_click_draw_equals_two_single_draws(ready_page):
    pg = ready_page
    pg.click("#sp-preset-0")
    pg.fill("#sp-seed", "99")
    pg.dblclick("#sp-draw1")
    pg.wait_for_selector("#sp-tok-1", timeout=30_000)
    pg.wait_for_function("() => !document.querySelector('#sp-draw1').classList.contains('busy')")
    settled(pg)  # both clicks answered: a third draw would be on the page now
    double = [pg.inner_text(f"#sp-tok-{i}") for i in range(2)]
    assert pg.query_selector("#sp-tok-2") is None  # two draws, not one and not three
    pg.click("#sp-clear")
    pg.click("#sp-draw1")
    pg.wait_for_selector("#sp-tok-0")
    pg.click("#sp-draw1")
    pg.wait_for_selector("#sp-tok-1")
    assert [pg.inner_text(f"#sp-tok-{i}") for i in range(2)] == double
    pg.click("#sp-clear")


def test_editing_the_prompt_during_a_draw_drops_the_old_continuation(ready_page):
    pg = ready_page
    pg.click("#sp-clear")
    pg.fill("#sp-prompt", "Once upon a time")
    pg.click("#sp-draw10")
    pg.fill("#sp-prompt", "A new beginning")
    pg.wait_for_function("() => !document.querySelector('#sp-draw10').classList.contains('busy')", timeout=30_000)
    settled(pg)  # the old draw's last answer has come back: had it been kept, its tokens would show
    assert pg.query_selector("#sp-tok-0") is None
    assert pg.inner_text("#sp-text").startswith("A new beginning")


def test_each_bad_box_keeps_its_own_message_and_empty_is_not_zero(ready_page):
    pg = ready_page
    pg.fill("#ft-t0", "9")
    pg.fill("#ft-t2", "")
    pg.click("#ft-run")
    pg.wait_for_selector("#ft-t0 + .field-error:not([hidden])")
    assert "column 1" in pg.inner_text("#ft-t0 + .field-error")
    assert "type a number" in pg.inner_text("#ft-t2 + .field-error")
    pg.fill("#ft-t0", "0.3")
    pg.fill("#ft-t2", "1.0")
    pg.fill("#rt-cd", "")
    pg.wait_for_selector("#rt-cd + .field-error:not([hidden])")
    pg.fill("#rt-cd", "0.1")
    pg.fill("#sp-temperature-num", "0.000000001")
    pg.wait_for_selector("#sp-temperature-num + .field-error:not([hidden])")
    assert "NaN" not in pg.inner_text("#sampler-panel")
    pg.fill("#sp-temperature-num", "0.8")
    pg.wait_for_function("() => document.querySelector('#sp-temperature-num + .field-error').hidden")


def test_inputs_survive_a_reload(browser, site):
    ctx, pg = fresh(browser, site)
    open_ready(pg)
    pg.fill("#sp-prompt", "Remember me")
    pg.fill("#ft-seed", "4242")
    pg.fill("#sp-temperature-num", "1.25")
    pg.reload()
    pg.wait_for_function("() => document.body.dataset.ready", timeout=90_000)
    assert pg.input_value("#sp-prompt") == "Remember me"
    assert pg.input_value("#ft-seed") == "4242"
    assert pg.input_value("#sp-temperature-num") == "1.25" == pg.input_value("#sp-temperature")
    pg.evaluate("localStorage.clear()")
    ctx.close()


def test_two_tabs_keep_their_own_typing(browser, site):
    """What a reader typed in a tab comes back in that tab after a reload, whatever another tab
    typed meanwhile (persist.js: sessionStorage per tab); a new tab starts from the latest text."""
    ctx, one = fresh(browser, site)
    two = ctx.new_page()
    two.site = site
    try:
        open_ready(one)
        one.fill("#sp-prompt", "Prompt A, typed in the first tab")
        open_ready(two)
        two.fill("#sp-prompt", "Prompt B, typed in the second tab")
        one.reload()
        one.wait_for_function("() => document.body.dataset.ready", timeout=90_000)
        assert one.input_value("#sp-prompt") == "Prompt A, typed in the first tab"
        two.reload()
        two.wait_for_function("() => document.body.dataset.ready", timeout=90_000)
        assert two.input_value("#sp-prompt") == "Prompt B, typed in the second tab"
        three = ctx.new_page()
        three.site = site
        open_ready(three)
        assert three.input_value("#sp-prompt") == "Prompt B, typed in the second tab"
        assert not one.blocked
    finally:
        one.evaluate("localStorage.clear()")
        ctx.close()


@pytest.mark.parametrize("width", [360, 390])
def test_no_horizontal_scroll_on_a_phone(browser, site, width):
    ctx, pg = fresh(browser, site, viewport={"width": width, "height": 800}, is_mobile=True, has_touch=True)
    open_ready(pg)
    pg.click("#ft-run")
    pg.wait_for_selector("#ft-col-3", timeout=60_000)
    pg.click("#gl-run")
    pg.wait_for_selector("#gl-col-1", timeout=60_000)
    widest = widest_while_scrolling(pg)  # (a chapter left behind is no longer laid out)
    # every formula typeset: by the build (a <math> inside) or in the page (data-tex), as ui.js reads it
    pg.wait_for_function("() => ![...document.querySelectorAll('.math, .math-block')]"
                         ".some(n => !n.dataset.tex && !n.querySelector('math'))")
    iw = pg.evaluate("window.innerWidth")
    assert widest <= iw, f"page is {widest} px wide on a {iw} px screen"
    # the four story columns stack, each as wide as the widget allows
    widths = pg.eval_on_selector_all("#ft-cols > .col", "cs => cs.map(c => c.getBoundingClientRect().width)")
    assert min(widths) > 0.7 * width
    ctx.close()


def test_zero_csp_violations_over_a_full_session(browser, site):
    ctx, pg = fresh(browser, site)
    open_ready(pg)
    html = pg.evaluate("document.querySelector('meta[http-equiv=Content-Security-Policy]').content")
    assert "script-src 'self' 'wasm-unsafe-eval'" in html and "style-src 'self'" in html
    for sel, done in [("#ft-run", "#ft-col-3"), ("#gl-run", "#gl-col-1"), ("#sp-draw10", "#sp-tok-9"),
                      ("#sp-tok-2", "#sp-text .token-pop"), ("#kv-run", "#kv-mem[data-same]"),
                      ("#sr-gate", "#sr-gate-out[data-passed]"), ("#kc-run", "#kc-out div")]:
        pg.click(sel)
        pg.wait_for_selector(done, timeout=90_000)
    pg.click("#sp-cumulative")
    # bars take their width through the CSSOM (a style attribute would be refused and every bar
    # would show 100%); the longest bar (the top token's, or the tail's when the rest outweighs it)
    # is the one at 100%
    widths = pg.eval_on_selector_all("#sp-bars .bar-fill", "bs => bs.map(b => b.style.width)")
    assert len(set(widths)) > 2 and widths.count("100%") == 1
    assert pg.evaluate("window.__cspViolations") == []
    assert pg.console_errors == []
    ctx.close()


REACH_OUT = """import js
from pyodide.ffi import create_once_callable
def ask_fetch():
    # not awaited, as a reader might write it; how it settled is kept for the test to read
    settled = lambda outcome: setattr(js.globalThis, "reachSettled", outcome)
    js.fetch("http://example.com/f").then(create_once_callable(lambda r: settled("answered")),
                                          create_once_callable(lambda e: settled("refused: " + str(e))))
for what, ask in [("fetch", ask_fetch),
                  ("xhr", lambda: js.XMLHttpRequest.new().open("GET", "http://example.com/x")),
                  ("websocket", lambda: js.WebSocket.new("ws://example.com/w")),
                  ("eventsource", lambda: js.EventSource.new("http://example.com/e")),
                  ("import", lambda: js.eval("import('http://example.com/m.js')"))]:
    try:
        ask()
        print(what, "asked")
    except Exception as e:
        print(what, "refused:", e)
"""


@pytest.mark.parametrize("header", [False, True], ids=["plain static server", "server sends the CSP header"])
def test_the_readers_python_cannot_reach_another_origin(browser, site, header):
    """The worker, where the reader's Python runs, keeps the page's promise: nothing leaves the
    origin, whatever the cell asks for. On a plain server the worker inherits the page's <meta>
    policy (it is started from a blob: URL, boot.js); `build.py serve` also sends the policy as a
    header. The requests the browser would make are refused in words first (origin-guard.js);
    eval, the door to a dynamic import, is refused by the policy itself."""
    from decodelab_tools.devserver import serve_in_thread

    srv, url = serve_in_thread(ROOT / "web", csp=True) if header else (None, site)
    ctx, pg = fresh(browser, url)
    try:
        open_ready(pg)
        out = py(pg, "run_cell", code=REACH_OUT)["output"]
        for what in ("xhr", "websocket", "eventsource"):
            assert f"{what} refused: TypeError: This page makes no request outside its own site" in out, out
        assert "import refused:" in out and "Content Security Policy" in out, out  # eval is refused: the policy binds the worker
        # the fetch was asked for without waiting: read how it settled (in a later call to the
        # worker). Had it left, it would have met this page's route, which records it before
        # aborting it, so by the time it has settled, pg.blocked would name it.
        settled = ""
        for _ in range(100):
            settled = py(pg, "run_cell", code="import js\nprint(getattr(js.globalThis, 'reachSettled', ''))")["output"].strip()
            if settled:
                break
        assert settled.startswith("refused: TypeError: This page makes no request outside its own site"), settled
        assert pg.blocked == [], pg.blocked
        assert py(pg, "ch1_tokenize", prompt="still fine")["texts"]  # the engine goes on
    finally:
        ctx.close()
        if srv:
            srv.shutdown()


def test_a_damaged_draft_disables_only_the_live_pair(browser, site):
    ctx, pg = fresh(browser, site)
    good = (ROOT / "web" / "models" / "draft.dlm").read_bytes()
    bad = good[:100] + bytes(len(good) - 100)
    pg.route("**/models/draft.dlm*", lambda r: r.fulfill(status=200, body=bad, content_type="application/octet-stream"))
    open_ready(pg)
    # the draft model is fetched on first need: the live pair's run on arrival needs it
    pg.eval_on_selector("#live-spec", "e => e.scrollIntoView({block: 'center'})")
    pg.wait_for_selector("#ls-out[data-unavailable]")
    assert "draft.dlm is damaged" in pg.inner_text("#ls-out")
    assert pg.is_disabled("#ls-run")
    pg.click("#ft-run")
    pg.wait_for_selector("#ft-col-3", timeout=60_000)
    ctx.close()


@pytest.mark.parametrize("missing, expect, path", [
    ("pyodide/pyodide.asm.wasm", "Reload the page", "/"),
    ("pyodide/pyodide.mjs", "pyodide.mjs", "/"),  # Pyodide's loader, which the worker imports itself
    ("pyodide/python_stdlib_core.zip", "python_stdlib_core.zip", "/?snapshot=0"),  # the import path's
    ("models/main.dlm", "main.dlm", "/"),
    ("build-info.json", "build-info.json", "/"),
    ("pyodide/pyodide-lock.json", "pyodide-lock.json", "/"),  # Pyodide reads it without looking at the status
    ("pyodide/pyodide-lock.json", "pyodide-lock.json", "/?snapshot=0"),
    ("pyodide/pyodide.asm.mjs", "pyodide.asm.mjs", "/"),  # Pyodide's JavaScript half, which the worker imports
])
def test_a_missing_file_gives_a_named_message_and_a_next_step(browser, site, missing, expect, path):
    ctx, pg = fresh(browser, site)
    uncaught = []
    pg.on("pageerror", lambda e: uncaught.append(str(e)))
    # what a plain static server sends for a file it does not have: an HTML page
    pg.route(f"**/{missing}*", lambda r: r.fulfill(status=404, body="<!DOCTYPE html><title>404</title>not here",
                                                   content_type="text/html"))
    pg.goto(site + path)
    pg.wait_for_function("() => document.body.dataset.ready", timeout=90_000)
    assert pg.evaluate("document.body.dataset.ready") == "failed"
    msg = pg.inner_text("#boot-error")
    assert expect in msg and ("Reload" in msg or "reload" in msg), msg
    assert "Unexpected token" not in msg and "JSON" not in msg, msg
    pg.click("#ft-run")  # controls answer with the failure instead of hanging
    pg.wait_for_function("() => document.querySelector('#ft-run').textContent === 'Continue'", timeout=10_000)
    assert uncaught == []
    ctx.close()


@pytest.mark.parametrize("missing", ["kernel_scalar.wasm", "kernel_jsmatvec.wasm"])
def test_a_missing_race_kernel_is_named_in_the_race_and_the_rest_works(browser, site, missing):
    """The speed race's two extra kernels are optional: without one, the race says which file is
    missing (it is mounted after the engine reported it) and everything else works."""
    ctx, pg = fresh(browser, site)
    pg.route(f"**/kernels/{missing}*", lambda r: r.fulfill(status=404, body="not here"))
    open_ready(pg)
    pg.evaluate("document.querySelector('#speed').scrollIntoView()")
    pg.wait_for_function("() => document.querySelector('#speed-run').disabled")
    msg = pg.inner_text("#speed-out")
    assert missing in msg and "404" in msg and "KernelError" not in msg, msg
    assert py(pg, "ch1_tokenize", prompt="still here")["texts"]
    ctx.close()


def test_a_missing_standard_library_is_named_when_the_readers_cell_first_needs_it(browser, site):
    """On the snapshot path the page needs no stdlib zip to start (the snapshot holds what our
    code imports); the reader's cell fetches it first, and without it says which file is missing,
    beside the cell, and the rest of the page goes on working."""
    ctx, pg = fresh(browser, site)
    pg.route("**/pyodide/python_stdlib_source.zip*", lambda r: r.fulfill(status=404, body="not here"))
    open_ready(pg)
    assert pg.evaluate("() => document.body.dataset.pythonStart") == "snapshot"
    open_code(pg)
    pg.eval_on_selector("#python-cell", "e => e.scrollIntoView({block: 'center'})")
    pg.click("#pc-run")
    pg.wait_for_function("() => /python_stdlib_source\\.zip/.test(document.querySelector('#pc-out').textContent)",
                         timeout=30_000)
    msg = pg.text_content("#pc-out")
    assert "standard library" in msg and "404" in msg, msg
    assert py(pg, "ch1_view", prompt="Once upon a time", settings={"temperature": 0.8}, seed=1)["top"]
    # the file is back: the next run fetches it and the cell works
    pg.unroute("**/pyodide/python_stdlib_source.zip*")
    pg.click("#pc-run")
    pg.wait_for_function("() => document.querySelector('#pc-out').dataset.ms", timeout=30_000)
    assert "python_stdlib_source" not in pg.text_content("#pc-out")
    assert py(pg, "run_cell", code="import csv; print(csv.QUOTE_ALL)")["output"].strip() == "1"
    ctx.close()


def test_kernel_fallbacks_relaxed_then_simd_then_scalar(browser, site):
    ctx, pg = fresh(browser, site)
    pg.route("**/kernels/kernel_relaxed.wasm*", lambda r: r.fulfill(status=404, body=""))
    open_ready(pg)
    assert py(pg, "ping")["simd_level"] == 1
    assert "SIMD kernel" in pg.inner_text("#kernel-notice")
    ctx.close()
    ctx, pg = fresh(browser, site)
    pg.route("**/kernels/kernel_relaxed.wasm*", lambda r: r.fulfill(status=200, body=b"\0asm broken"))
    pg.route("**/kernels/kernel_simd.wasm*", lambda r: r.fulfill(status=404, body=""))
    open_ready(pg)
    assert py(pg, "ping")["simd_level"] == 0
    notice = pg.inner_text("#kernel-notice")
    assert "scalar kernel" in notice and "404" in notice  # says what happened, not "no SIMD"
    ctx.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_accessibility_has_no_serious_or_critical_violations(browser, site, theme):
    # the theme the system asks for (style.css's light-dark() colours): contrast holds in both
    ctx, pg = fresh(browser, site, color_scheme=theme)
    open_ready(pg)
    assert pg.evaluate("() => getComputedStyle(document.body).colorScheme || getComputedStyle(document.documentElement).colorScheme") != ""
    pg.click("#ft-run")
    pg.wait_for_selector("#ft-col-3", timeout=60_000)
    # readouts written as stat grids (description lists) are checked too: they fill in when near
    for widget, grid in (("verify-cost", "#vc-stats"), ("roofline", "#rf-stats")):
        pg.eval_on_selector(f"#{widget}", "e => e.scrollIntoView()")
        pg.wait_for_selector(grid, timeout=60_000)
    pg.evaluate(AXE.read_text())  # through the DevTools protocol, which the page's CSP does not govern
    res = pg.evaluate("() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => "
                      "({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))")
    bad = [v for v in res if v["impact"] in ("serious", "critical")]
    assert bad == [], json.dumps(bad, indent=1)
    ctx.close()


def test_token_popover_takes_focus_and_escape_closes_it(ready_page):
    pg = ready_page
    pg.click("#sp-clear")
    pg.click("#sp-draw1")
    pg.wait_for_selector("#sp-tok-0")
    pg.focus("#sp-tok-0")
    pg.keyboard.press("Enter")
    pg.wait_for_selector("#sp-text .token-pop")
    assert pg.evaluate("document.activeElement.classList.contains('token-pop')")
    pg.keyboard.press("Escape")
    pg.wait_for_function("() => !document.querySelector('#sp-text .token-pop')")
    assert pg.evaluate("document.activeElement.id") == "sp-tok-0"
    pg.click("#sp-clear")


def test_idle_with_a_limit_names_the_calls_still_open(ready_page):
    """What the tests' settled() waits on: past its limit, idle() fails naming each open call
    (its endpoint and how long since it was sent), so a lost answer fails one test with a reason
    instead of hanging the suite; once the answer is in, idle() resolves."""
    got = ready_page.evaluate("""async () => {
      await window.decodelab.idle(60000); // what earlier tests asked is answered first
      const answer = window.decodelab.call('ch1_tokenize', {prompt: 'still open'});
      const early = await window.decodelab.idle(0).then(() => 'resolved', (e) => e.message);
      await answer;
      const late = await window.decodelab.idle(60000).then(() => 'resolved', (e) => e.message);
      return [early, late];
    }""")
    assert re.fullmatch(r"engine not idle after 0 ms \(ready\): ch1_tokenize#\d+ sent \d+ ms ago", got[0]), got[0]
    assert got[1] == "resolved"
