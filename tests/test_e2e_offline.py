"""Offline after the first visit (web/sw.js, web/js/offline.js): once the load is over (2 s after
the first distribution) the page registers its service worker and fills one cache with this build's files; with
the server gone, a reload shows the page in its language and runs the model. ?sw=0 turns it off.
Chromium (Playwright); the engines lane does not drive service workers."""
import pytest

from decodelab_tools.browser import BOOT_TIMEOUT_MS
from decodelab_tools.devserver import serve_in_thread

FILL_TIMEOUT_MS = 60_000


def _context(browser, url):
    ctx = browser.new_context(service_workers="allow")
    pg = ctx.new_page()
    pg.requests = []
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return ctx, pg


def _ready(pg, timeout=BOOT_TIMEOUT_MS):
    pg.wait_for_function("() => document.body.dataset.ready", timeout=timeout)
    assert pg.evaluate("document.body.dataset.ready") == "1", pg.inner_text("#boot-error")
    pg.wait_for_function("() => +document.getElementById('sampler-panel').dataset.updates >= 1", timeout=timeout)


@pytest.mark.parametrize("path,lang", [("/index.ru.html", "ru")])
def test_a_reload_with_the_server_gone_shows_the_page_and_runs_the_model(browser, path, lang):
    from pathlib import Path

    web = Path(__file__).resolve().parents[1] / "web"
    srv, url = serve_in_thread(web)
    ctx, pg = _context(browser, url)
    try:
        pg.goto(url + path)
        _ready(pg)
        pg.wait_for_function("() => ['ready', 'failed'].includes(document.documentElement.dataset.offline)",
                             timeout=FILL_TIMEOUT_MS)
        assert pg.evaluate("document.documentElement.dataset.offline") == "ready"
        build = pg.evaluate("document.documentElement.dataset.offlineBuild")
        # the server goes away
        srv.shutdown()
        srv.server_close()
        pg.reload()
        _ready(pg)
        assert pg.evaluate("document.documentElement.lang") == lang
        # the whole article, in its language, and a token drawn by the model
        assert "Как модель выбирает слово" in pg.inner_text("body") or len(pg.inner_text("main")) > 20000
        before = pg.eval_on_selector_all("#sp-text .tok", "ns => ns.length")
        pg.click("#sp-draw1")
        pg.wait_for_function(f"() => document.querySelectorAll('#sp-text .tok').length > {before}", timeout=60_000)
        # the page checks its offline copy again once the load is over (main.js afterLoad)
        pg.wait_for_function("() => document.documentElement.dataset.offlineBuild", timeout=FILL_TIMEOUT_MS)
        assert pg.evaluate("document.documentElement.dataset.offlineBuild") == build
        origin = url.split("//")[1]
        assert all(r.startswith(("data:", "blob:")) or origin in r for r in pg.requests), \
            [r for r in pg.requests if origin not in r][:5]
        assert not pg.errors, pg.errors
    finally:
        ctx.close()
        srv.server_close()


def test_sw_0_unregisters_the_worker_and_deletes_its_cache(browser):
    from pathlib import Path

    web = Path(__file__).resolve().parents[1] / "web"
    srv, url = serve_in_thread(web)
    ctx, pg = _context(browser, url)
    try:
        pg.goto(url + "/")
        _ready(pg)
        pg.wait_for_function("() => document.documentElement.dataset.offline === 'ready'", timeout=FILL_TIMEOUT_MS)
        assert pg.evaluate("navigator.serviceWorker.getRegistrations().then((r) => r.length)") == 1
        assert pg.evaluate("caches.keys().then((k) => k.filter((n) => n.startsWith('decodelab-')).length)") == 1
        pg.goto(url + "/?sw=0")
        _ready(pg)
        pg.wait_for_function("() => document.documentElement.dataset.offline === 'off'", timeout=60_000)
        pg.wait_for_function("() => navigator.serviceWorker.getRegistrations().then((r) => r.length === 0)")
        assert pg.evaluate("caches.keys().then((k) => k.filter((n) => n.startsWith('decodelab-')).length)") == 0
    finally:
        ctx.close()
        srv.shutdown()
        srv.server_close()


def test_a_new_build_replaces_the_cache_as_a_whole(browser, tmp_path):
    """A rebuild with a changed file: online, the reload gets the new file (the network comes
    first), and the new build's worker replaces the old build's cache with one of its own."""
    import json
    import shutil
    from pathlib import Path

    web = tmp_path / "web"
    shutil.copytree(Path(__file__).resolve().parents[1] / "web", web, ignore=shutil.ignore_patterns("*.map", "bench"))
    srv, url = serve_in_thread(web)
    ctx, pg = _context(browser, url)
    try:
        pg.goto(url + "/")
        _ready(pg)
        pg.wait_for_function("() => document.documentElement.dataset.offline === 'ready'", timeout=FILL_TIMEOUT_MS)
        old = pg.evaluate("document.documentElement.dataset.offlineBuild")
        # "the rebuild": a changed page, and build-info.json naming a new build
        page = web / "index.html"
        page.write_text(page.read_text(encoding="utf-8").replace("</main>", '<p id="rebuilt">rebuilt</p></main>', 1),
                        encoding="utf-8")
        info = json.loads((web / "build-info.json").read_text())
        info["offline"]["build"] = "rebuilt0000000000"
        (web / "build-info.json").write_text(json.dumps(info))
        pg.reload()
        _ready(pg)
        assert pg.query_selector("#rebuilt")  # the new file, not the cached one
        try:
            pg.wait_for_function("() => document.documentElement.dataset.offlineBuild === 'rebuilt0000000000'",
                                 timeout=FILL_TIMEOUT_MS)
        except Exception:
            raise AssertionError(pg.evaluate("""async () => [document.documentElement.dataset.offline,
                document.documentElement.dataset.offlineBuild, await caches.keys(),
                (await navigator.serviceWorker.getRegistrations()).map((r) => [r.active && r.active.scriptURL,
                  r.installing && r.installing.scriptURL, r.waiting && r.waiting.scriptURL])]"""))
        keys = pg.evaluate("caches.keys()")
        assert [k for k in keys if k.startswith("decodelab-")] == ["decodelab-rebuilt0000000000"], (old, keys)
    finally:
        ctx.close()
        srv.shutdown()
        srv.server_close()
