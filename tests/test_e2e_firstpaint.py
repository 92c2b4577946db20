"""End-to-end, the first paint: the numbers the build wrote into the page are the booted page's
own (window.__live.recompute() runs every source of the registry in the worker and formats it in
the page's language; three languages), the page reads whole with scripts off (every language's
page, widgets saying they need JavaScript), a language's own page boots in that language, and the
prose follows the sampler panel only while the reader asks it to, visibly, and goes back after."""
import re

import pytest

from conftest import guarded_page, open_ready, settled

LANGS = ["en", "ru", "vi"]
PAGES = {"en": "/index.html", "ru": "/index.ru.html", "vi": "/index.vi.html"}

DOM_NUMBERS = "() => Object.fromEntries([...document.querySelectorAll('[data-live]')].map(n => [n.dataset.live, n.textContent]))"


def switch(pg, lang):
    pg.click(f"#lang-switch a[hreflang={lang}]")
    pg.wait_for_function("(l) => document.documentElement.lang === l && !document.querySelector('#lang-status:not([hidden])')",
                         arg=lang)


def test_every_pinned_number_is_what_the_booted_page_computes(browser, site):
    ctx, pg = guarded_page(browser, site)
    try:
        open_ready(pg)
        for lang in LANGS:
            if lang != "en":
                switch(pg, lang)
            got = pg.evaluate("() => window.__live.recompute()")
            shown = pg.evaluate(DOM_NUMBERS)
            assert len(got["live"]) > 300
            differ = [(k, shown[k], v) for k, v in got["live"].items() if k in shown and shown[k] != v]
            assert differ == [], f"{lang}: {differ[:10]}"
            # every number in the prose came from a source (none is left over from a removed one)
            assert set(shown) - set(got["live"]) <= measured_keys(pg)
            # paragraphs shown or hidden by a pinned condition agree too
            for cond, on in got["when"].items():
                attr, value = cond.split("=", 1)
                hidden = pg.eval_on_selector_all(f'[{attr}="{value}"]', "ns => ns.map(n => n.hidden)")
                assert hidden and all(h == (not on) for h in hidden), (lang, cond)
        assert not pg.console_errors, pg.console_errors
    finally:
        ctx.close()


def measured_keys(pg):
    return set(pg.evaluate("async () => Object.values((await import('/js/live/registry.js')).MEASURED).flat()"))


@pytest.mark.parametrize("lang", LANGS)
def test_with_scripts_off_each_language_reads_whole(browser, site, lang):
    ctx, pg = guarded_page(browser, site, java_script_enabled=False)
    try:
        pg.goto(site + PAGES[lang])
        assert pg.locator("html").get_attribute("lang") == lang
        text = pg.text_content("main")
        numbers = " ".join(pg.locator("[data-live]").all_text_contents())
        assert "…" not in numbers and not re.search(r"\b(NaN|undefined|null)\b", numbers)
        assert "⟦" not in text
        # the notice at the top and one line in each widget, in the page's language; no spinner
        assert pg.locator(".notice.nojs").is_visible() and not pg.locator("#boot").is_visible()
        notes = pg.locator(".widget .nojs")
        assert notes.count() >= 20 and notes.first.is_visible()
        assert len(set(notes.all_text_contents())) == 1  # (textContent: far chapters are not laid out)
        if lang != "en":
            first = notes.first.text_content()  # (innerText is empty where a block below the fold is not laid out)
            assert "JavaScript" in first and "widget needs" not in first
        assert pg.locator("[data-live]").count() > 300
        assert pg.blocked == []
    finally:
        ctx.close()


def test_a_language_page_boots_in_its_language_and_the_url_can_still_choose(browser, site):
    ctx, pg = guarded_page(browser, site)
    try:
        open_ready(pg, "/index.ru.html")
        assert pg.evaluate("document.documentElement.lang") == "ru"
        assert "Загрузка" not in pg.inner_text("#boot-stage")  # the engine's ready line, in Russian
        assert re.search(r"[а-яё]", pg.inner_text("#boot-stage"))
        pg.goto(site + "/index.ru.html?lang=vi")
        pg.wait_for_function("() => document.documentElement.lang === 'vi'")
        assert not pg.console_errors, pg.console_errors
    finally:
        ctx.close()


def test_the_prose_follows_the_panel_only_when_asked_and_says_so(browser, site):
    ctx, pg = guarded_page(browser, site)
    try:
        open_ready(pg)
        built = pg.evaluate(DOM_NUMBERS)
        ref = built["ch1.example.prompt"]
        # the reader plays: the prose keeps the reference prompt's numbers
        before = pg.get_attribute("#sampler-panel", "data-updates")
        pg.fill("#sp-prompt", "Tom found a red ball under the")
        pg.wait_for_function("(b) => document.querySelector('#sampler-panel').dataset.updates !== b", arg=before)
        settled(pg)
        assert pg.evaluate(DOM_NUMBERS) == built
        # ticked: the panel's numbers, marked as the reader's own
        pg.check("#sp-follow")
        pg.wait_for_function("(r) => document.querySelector('[data-live=\"ch1.example.prompt\"]').textContent !== r", arg=ref)
        settled(pg)
        now = pg.evaluate(DOM_NUMBERS)
        assert now["ch1.example.prompt"] == "Tom found a red ball under the"
        changed = {k for k in built if now[k] != built[k]}
        assert "ch1.head.top1_p" in changed or "ch1.head.top1_tok" in changed, changed
        assert all(k.startswith("ch1.") for k in changed), changed
        assert pg.locator(".follows-panel").count() >= len(changed)
        assert all(c == "follows-panel" or "follows-panel" in c.split()
                   for c in pg.eval_on_selector_all(".follows-panel", "ns => ns.map(n => n.className)"))
        # unticked: back to the reference numbers exactly, unmarked
        pg.uncheck("#sp-follow")
        settled(pg)
        assert pg.evaluate(DOM_NUMBERS) == built
        assert pg.locator(".follows-panel").count() == 0
        assert not pg.console_errors, pg.console_errors
    finally:
        ctx.close()


FACE_FILES = "() => performance.getEntriesByType('resource').map((e) => e.name).filter((u) => u.includes('/source-serif-4/files/'))"


def test_a_first_visit_paints_in_the_system_serif_and_keeps_the_face_for_the_next(browser, site):
    """faces.js: the text face's files are not asked for before the first distribution (they
    came before the first paint and shared a phone's link with the HTML); once it is on screen the
    page loads the faces its text needs and notes the language, and the next visit in that language
    sets data-faces before its first paint, so the text's font starts with the face (the browser
    asks for its files at once); a visit in another language reads the system's serif."""
    ctx, pg = guarded_page(browser, site)
    try:
        pg.goto(site + "/")
        assert pg.evaluate("document.documentElement.hasAttribute('data-faces')") is False
        assert "Source Serif" not in pg.evaluate("getComputedStyle(document.body).fontFamily")
        assert pg.evaluate(FACE_FILES) == []  # the first paint asked for no face
        pg.wait_for_selector("html[data-faces-kept=en]", timeout=120_000)
        kept = pg.evaluate(FACE_FILES)
        assert any("latin-wght-normal" in u for u in kept), kept
        assert pg.evaluate("localStorage.getItem('decodelab.faces')") == "en"
        assert "Source Serif" not in pg.evaluate("getComputedStyle(document.body).fontFamily")  # no swap now
        pg.reload()
        assert pg.evaluate("document.documentElement.hasAttribute('data-faces')") is True
        assert pg.evaluate("getComputedStyle(document.body).fontFamily").startswith('"Source Serif 4 Variable"')
        pg.wait_for_function(f"() => ({FACE_FILES})().some((u) => u.includes('latin-wght-normal'))")
        pg.goto(site + "/index.vi.html")
        assert pg.evaluate("document.documentElement.hasAttribute('data-faces')") is False
        assert not pg.console_errors, pg.console_errors
    finally:
        ctx.close()
