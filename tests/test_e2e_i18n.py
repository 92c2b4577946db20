"""End-to-end, the three languages: each loads whole with no missing key; Russian and Vietnamese
pages leave no English but code, tokens, the model's stories and names; the same seed writes the
same story in every language; switching changes the language and nothing else (no reload, the
engine and every input stay); the choice follows the browser, is remembered and is in the URL;
numbers and Python's messages come in the reader's language; a phone fits Russian's longer words."""
import json
import re

import pytest

from conftest import guarded_page, open_ready, settled, widest_while_scrolling

LANGS = ["en", "ru", "vi"]
ENGLISH = r"\b(the|and|of|with|which|that|this|is|are|from|for|when|what|into|than|only|each)\b"

# What stays English in every language: code, formulas, token text and the model's own output
# (it writes English), the reader's inputs. Everything else is read in the page's language.
NOT_TEXT = ("code, pre, script, style, textarea, input, .katex, .math, .math-block, [translate=no], .tok, "
            ".gen-text, .prompt-text, .tok-code, .bar-label, .ptok, .prompt-tokens, .cell-out, .code, "
            "#lang-switch, .pop-title, noscript, cite")  # cite: a journal's name in a reference; noscript: shown only with scripts off (index.LANG.html is built in its language)

ENGLISH_LEFT = """(re) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest(SKIP) || p.closest('[hidden]')) continue;
    // the model's prompts and stories quoted in the prose stay English: «…», “…”, "…"
    const text = n.textContent.replace(/[«“"„][^«»“”"„]*[»”"“]/g, " ");
    const m = text.match(new RegExp(re, 'gi'));
    if (m) out.push(`${p.tagName.toLowerCase()}#${p.id || p.closest('[id]')?.id}: ${n.textContent.trim().slice(0, 90)}`);
  }
  return out;
}""".replace("SKIP", json.dumps(NOT_TEXT))


def numbers(text, lang):
    """The numbers in a text, as floats, read the way the language writes them."""
    if lang == "en":
        text = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    else:
        text = re.sub(r"(?<=\d)[\s\u00a0\u202f.](?=\d{3})", "", text).replace(",", ".")
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def scroll_through(pg):
    """Down the whole page, so every widget that runs when seen runs (conftest's walk, which also
    measures the page's width on the way), and back to the top."""
    widest_while_scrolling(pg)
    pg.evaluate("window.scrollTo(0, 0)")


def settle(pg):
    """Until no call to the engine is pending (the widgets run on arrival have answered)."""
    pg.wait_for_function("() => !document.querySelector('[aria-busy=true]')", timeout=120_000)
    settled(pg)


def open_lang(browser, site, lang, **opts):
    ctx, pg = guarded_page(browser, site, **opts)
    open_ready(pg, f"/?lang={lang}")
    return ctx, pg


# the fast lane keeps one language other than English (the full suite loads all three)
@pytest.mark.parametrize("lang", [pytest.param(lang, marks=pytest.mark.smoke) if lang == "ru" else lang for lang in LANGS])
def test_each_language_loads_whole_with_no_missing_key(browser, site, lang):
    ctx, pg = open_lang(browser, site, lang)
    try:
        assert pg.evaluate("document.documentElement.lang") == lang
        scroll_through(pg)
        settle(pg)
        assert pg.evaluate("window.__i18nMissing") == []
        assert "⟦" not in pg.evaluate("document.body.textContent")
        if lang != "en":
            left = pg.evaluate(ENGLISH_LEFT, ENGLISH)
            assert left == [], f"English left on the {lang} page:\n" + "\n".join(left[:25])
        assert not pg.console_errors, pg.console_errors
    finally:
        ctx.close()


def four_columns(pg, seed):
    # the widget runs once by itself when it comes into view: let that run end first (a click
    # during a run is dropped, and the columns would be the default seed's)
    pg.wait_for_selector("#ft-cols[data-text]", timeout=60_000)
    pg.fill("#ft-seed", str(seed))
    pg.evaluate("document.querySelector('#ft-cols').removeAttribute('data-text')")
    pg.click("#ft-run")
    pg.wait_for_selector("#ft-cols[data-text]", timeout=60_000)
    return json.loads(pg.get_attribute("#ft-cols", "data-text"))


def test_the_same_seed_writes_the_same_story_in_every_language(browser, site):
    stories = {}
    for lang in LANGS:
        ctx, pg = open_lang(browser, site, lang)
        try:
            pg.evaluate("document.querySelector('#four-temps').scrollIntoView()")
            stories[lang] = four_columns(pg, 424242)
            pg.evaluate("localStorage.clear()")
        finally:
            ctx.close()
    assert stories["ru"] == stories["en"] and stories["vi"] == stories["en"]
    assert len(stories["en"]) == 4 and all(stories["en"])


def test_switching_changes_the_language_and_nothing_else(browser, site):
    ctx, pg = open_lang(browser, site, "en")
    try:
        # each change waits for its own update: an update for the seed still in flight when the
        # prompt changes would otherwise pass the wait, and the bars would be read before the
        # prompt's distribution arrived
        for sel, value in (("#sp-seed", "777"), ("#sp-prompt", "Tom found a red ball")):
            before = pg.get_attribute("#sampler-panel", "data-updates")  # read before the change it waits for
            pg.fill(sel, value)
            pg.wait_for_function("(b) => document.querySelector('#sampler-panel').dataset.updates !== b", arg=before)
        # and the panel has settled: every update asked for has come back and been drawn (one
        # queued behind another would otherwise land after the bars are read)
        pg.wait_for_function("() => !document.querySelector('#sampler-panel [aria-busy=true]')")
        settled(pg)
        en_title = pg.inner_text("#ch1 h2")
        en_bars = pg.inner_text("#sp-bars")
        ready_at = pg.evaluate("window.__readyAt")
        requests = []
        pg.on("request", lambda r: requests.append(r.url))
        pg.click("#lang-switch a[hreflang=ru]")
        pg.wait_for_function("() => document.documentElement.lang === 'ru'")
        settled(pg)  # the switch is done: a reload or an engine restart would have begun by now
        assert pg.inner_text("#ch1 h2") != en_title and re.search("[а-я]", pg.inner_text("#ch1 h2"))
        # the engine was not restarted, nothing was reloaded but the language's text
        assert pg.evaluate("window.__readyAt") == ready_at
        # (and the text face's subset for the new script, fetched on demand by its unicode-range)
        assert [u for u in requests if "/i18n/" not in u and "/vendor/source-serif-4/files/" not in u] == []
        assert pg.input_value("#sp-prompt") == "Tom found a red ball" and pg.input_value("#sp-seed") == "777"
        # the same distribution, in Russian numbers: 12.3% becomes 12,3 %
        ru_bars = pg.inner_text("#sp-bars")
        assert numbers(ru_bars, "ru") == numbers(en_bars, "en") and re.search(r"\d,\d", ru_bars)
        assert "?lang=ru" in pg.url
        assert pg.evaluate("localStorage.getItem('decodelab.lang')") == "ru"
        # remembered: the plain address opens in Russian
        open_ready(pg, "/")
        assert pg.evaluate("document.documentElement.lang") == "ru"
        assert pg.input_value("#sp-prompt") == "Tom found a red ball"
        # and back
        pg.click("#lang-switch a[hreflang=en]")
        pg.wait_for_function("() => document.documentElement.lang === 'en'")
        assert pg.inner_text("#ch1 h2") == en_title
        assert pg.evaluate("window.__i18nMissing") == []
    finally:
        pg.evaluate("localStorage.clear()")
        ctx.close()


@pytest.mark.parametrize("locale,lang", [("vi-VN", "vi"), ("ru-RU", "ru"), ("de-DE", "en")])
def test_first_visit_follows_the_browsers_language(browser, site, locale, lang):
    ctx, pg = guarded_page(browser, site, locale=locale)
    try:
        open_ready(pg, "/")
        assert pg.evaluate("document.documentElement.lang") == lang
        assert pg.get_attribute("#lang-switch a[aria-current]", "hreflang") == lang
    finally:
        ctx.close()


def test_numbers_and_python_messages_come_in_russian(browser, site):
    ctx, pg = open_lang(browser, site, "ru")
    try:
        pg.wait_for_function("() => /\\d,\\d/.test(document.querySelector('#sp-bars').textContent)", timeout=30_000)
        # a value Python refuses: its message is a key, rendered in Russian beside the box
        pg.evaluate("document.querySelector('#kernel-check').scrollIntoView()")
        pg.fill("#kc-rows", "99999")
        pg.click("#kc-run")
        pg.wait_for_selector("#kc-rows + .field-error:not([hidden])", timeout=30_000)
        msg = pg.inner_text("#kc-rows + .field-error")
        assert re.search("[а-я]", msg) and not re.search(ENGLISH, msg, re.I), msg
        # the message follows a switch too
        pg.click("#lang-switch a[hreflang=vi]")
        pg.wait_for_function("() => document.documentElement.lang === 'vi'")
        vi = pg.inner_text("#kc-rows + .field-error")
        assert vi != msg and not re.search("[а-я]", vi), vi
    finally:
        pg.evaluate("localStorage.clear()")
        ctx.close()


@pytest.mark.parametrize("lang,locale", [("ru", "ru-RU"), ("vi", "vi-VN")])
def test_a_decimal_comma_is_a_decimal_mark(browser, site, lang, locale):
    """A reader whose language writes 0,7 types 0,7 in every number box: the box keeps what was
    typed, the slider and the engine take 0.7, and the box shows the page's own numbers that way
    too. Anything else gets a message beside the box and stays as typed."""
    ctx, pg = open_lang(browser, site, lang, locale=locale)
    try:
        hidden = "(id) => document.querySelector(`#${id} + .field-error`)?.hidden ?? true"
        assert "," in pg.input_value("#sp-top_p-num")  # the panel's default top-p, written as the page writes it
        for box, typed, slider in (("sp-temperature-num", "0,7", "sp-temperature"), ("sp-top_p-num", "0,9", "sp-top_p")):
            pg.fill(f"#{box}", typed)
            pg.wait_for_function(f"() => document.querySelector('#{slider}').value === '{typed.replace(',', '.')}'")
            assert pg.input_value(f"#{box}") == typed and pg.evaluate(hidden, box)
        pg.wait_for_function("() => document.querySelector('#sampler-panel').dataset.updates > 0")
        pg.fill("#sp-temperature-num", "0,7x")
        pg.wait_for_selector("#sp-temperature-num + .field-error:not([hidden])")
        assert pg.input_value("#sp-temperature-num") == "0,7x"  # nothing the reader typed is dropped
        pg.fill("#sp-temperature-num", "0.7")  # the other mark is taken too
        pg.wait_for_function("() => document.querySelector('#sp-temperature-num + .field-error').hidden")
        pg.evaluate("document.querySelector('#cost-model').scrollIntoView()")
        pg.fill("#cm-alpha-num", "0,75")
        pg.wait_for_function("() => document.querySelector('#cm-alpha').value === '0.75'")
        assert pg.evaluate(hidden, "cm-alpha-num")
        pg.evaluate("document.querySelector('#four-temps').scrollIntoView()")
        pg.fill("#ft-t0", "1,5")
        pg.click("#ft-run")
        pg.wait_for_selector("#ft-cols[data-text]", timeout=60_000)
        assert pg.evaluate(hidden, "ft-t0") and pg.input_value("#ft-t0") == "1,5"
        assert not pg.console_errors and not pg.blocked
    finally:
        pg.evaluate("localStorage.clear()")
        ctx.close()


def test_a_missing_language_file_leaves_a_working_english_page_and_says_so(browser, site):
    ctx, pg = guarded_page(browser, site)
    try:
        pg.route("**/i18n/ru.json*", lambda r: r.fulfill(status=404, body="gone"))
        open_ready(pg, "/?lang=ru")
        assert pg.evaluate("document.documentElement.lang") == "en"
        assert pg.is_visible("#lang-status") and "Русский" in pg.inner_text("#lang-status")
        assert pg.evaluate("window.__i18nMissing") == []
        assert pg.evaluate("getComputedStyle(document.body).visibility") == "visible"
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["ru", "vi"])
def test_a_phone_fits_every_language(browser, site, lang):
    ctx, pg = guarded_page(browser, site, viewport={"width": 360, "height": 800}, is_mobile=True, has_touch=True)
    try:
        open_ready(pg, f"/?lang={lang}")
        widest = widest_while_scrolling(pg)
        assert widest <= pg.evaluate("window.innerWidth"), f"the {lang} page is {widest} px wide on a 360 px phone"
    finally:
        ctx.close()


def test_widgets_draw_their_last_result_again_in_the_new_language(browser, site):
    """code.md item 8: one helper (i18n.js redrawOnLang) keeps a widget's or a diagram's last
    result and draws it again after a language switch, in the new language, from the same data."""
    ctx, pg = open_lang(browser, site, "en")
    try:
        pg.click("#kc-run")
        pg.wait_for_selector("#kc-out[data-result]", timeout=60_000)
        pg.click("#kv-run")
        pg.wait_for_selector("#kv-verdict", state="attached", timeout=60_000)
        # the widgets that draw a result as the reader comes near: the widget, then what it draws
        for widget, sel in (("#q8-table", "#q8-total"), ("#outliers", "#ol-ratio"), ("#toy-sampler", "#toy-table"),
                            ("#cost-model", "#cm-peak[data-best]")):
            pg.eval_on_selector(widget, "e => e.scrollIntoView()")
            pg.wait_for_selector(sel, state="attached", timeout=60_000)
        settled(pg)
        shown = ("#kc-out", "#kv-verdict", "#q8-total", "#ol-ratio", "#toy-table", "#cm-peak")
        before = {s: pg.text_content(s) for s in shown}
        kc_result = pg.get_attribute("#kc-out", "data-result")
        pg.click("#lang-switch a[hreflang=ru]")
        pg.wait_for_function("() => document.documentElement.lang === 'ru'")
        settled(pg)
        for s in shown:
            now = pg.text_content(s)
            assert now != before[s] and re.search("[а-яё]", now, re.I), (s, before[s][:80], now[:80])
        # the same results, in Russian: the kernel check's own data did not change
        assert pg.get_attribute("#kc-out", "data-result") == kc_result
    finally:
        pg.evaluate("localStorage.clear()")
        ctx.close()
