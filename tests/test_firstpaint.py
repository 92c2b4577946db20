"""The article's first paint, read from the built files as a server sends them (no script run):
each language's page reads whole (no live number is an ellipsis, none is missing), every number
the prose shows is one the registry pins or a widget measures, the measured ones say so, and the
build refuses a span no source computes. The booted page's agreement with these numbers is
tests/test_e2e_firstpaint.py."""
import json
import re
import sys

import pytest
from conftest import ROOT, WEB

from decodelab_tools import firstframes, firstpaint, texts

CACHE = ROOT / "build" / "cache"


@pytest.fixture(scope="module")
def result():
    """The build's first-paint result (from its cache: the build has just made it)."""
    entries = {lang: texts.load(lang, WEB) for lang in texts.LANGS}
    return firstpaint.numbers(ROOT, sys.executable, entries, CACHE)


def spans(html: str) -> list[tuple[str, str]]:
    return [(m.group("key"), m.group("body")) for m in firstpaint.SPAN.finditer(html)]


def built(html: str) -> dict[str, str]:
    """The measured numbers the build wrote in (decodelab_tools/firstframes.py), by key."""
    return {m.group("key"): m.group("body") for m in firstpaint.SPAN.finditer(html) if "data-built" in m.group("open")}


@pytest.mark.parametrize("lang", texts.LANGS)
def test_the_served_page_reads_whole_before_any_script(lang, result):
    html = (WEB / firstpaint.page_name(lang)).read_text(encoding="utf-8")
    found = spans(html)
    assert len(found) > 300, len(found)
    empty = [key for key, text in found if not re.sub(r"<[^>]+>", "", text).strip() or "…" in text]
    assert empty == [], empty[:20]
    assert "⟦" not in html and not re.search(r">\s*(NaN|undefined|null)\s*<", html)
    # the page is in its language, and says so to the browser and to boot.js
    assert re.search(rf'<html lang="{lang}"', html)
    assert ("data-lang-page" in html) == (lang != texts.LANGS[0])
    # a search engine or a link preview reads this language's description, and finds the others
    desc = texts.load(lang, WEB)["page.description"].replace("&", "&amp;").replace('"', "&quot;")
    assert html.count(f'content="{desc}"') == 2  # description and og:description
    assert all(f'<link rel="alternate" hreflang="{other}" href="{firstpaint.page_name(other)}">' in html for other in texts.LANGS)
    # each number is the registry's, rendered for this language
    nums = result["numbers"][lang]
    measured_here = built(html)
    wrong = [key for key, text in found if text != nums[key] and key not in measured_here]
    assert wrong == [], wrong[:20]
    # no placeholder: every measured number shows what the build's browser measured, marked
    # (issue 41 item 5); the registry's words "measured in your browser" are the fallback of a
    # build without a browser only
    phrase = texts.load(lang, WEB)["live.measured"]
    left = sorted({key for key, text in found if text == phrase})
    assert left == [], left[:10]
    assert set(measured_here) <= set(result["measured"]) and len(measured_here) >= 40


def test_every_number_is_pinned_or_measured_and_measured_ones_say_so(result):
    pinned, measured = set(result["pinned"]), set(result["measured"])
    # a widget's result may replace a pinned number (the bit-depth table: its reference rows, then
    # the reader's); only those are both
    assert pinned and measured and pinned & measured == {"ch2.bits.table_words"}
    used = {key for lang in texts.LANGS for key, _ in spans((WEB / firstpaint.page_name(lang)).read_text(encoding="utf-8"))}
    assert used <= pinned | measured, sorted(used - pinned - measured)[:20]
    # timings and rates are the reader's machine's: none is pinned from the build machine
    timed = re.compile(r"(_us|_ms|tps|gmacs|gbps|time_ratio|speedup-range|ls-cv|ls-cd)")
    assert not [k for k in pinned if timed.search(k) and not k.startswith(("ch2.llama", "ch3.pb-", "ch3.cm-", "ch3.rt-"))], \
        sorted(k for k in pinned if timed.search(k))
    for lang in texts.LANGS:
        phrase = texts.load(lang, WEB)["live.measured"]
        assert all(result["numbers"][lang][k] == phrase for k in measured - pinned)


def test_the_language_json_carries_the_same_numbers(result):
    """A language switch puts LANG.json's text in: its numbers are the page's."""
    for lang in texts.LANGS:
        data = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
        pinned = data.pop(firstpaint.PINNED)  # every pinned number by itself, for spans outside entries
        data.pop(firstframes.BUILT, None)  # the build's measurements (test_first_frames)
        assert pinned == result["numbers"][lang]
        found = [s for v in data.values() for s in spans(v)]
        assert found and all(html == result["numbers"][lang][key] for key, html in found)


def test_a_span_no_source_computes_stops_the_build():
    with pytest.raises(firstpaint.MissingNumber, match="ch1.no_such_number"):
        firstpaint.fill_text('<span class="live" data-live="ch1.no_such_number">…</span>', {}, {}, "en.txt @x")
    shown = firstpaint.fill_text('<p data-after="speed" hidden>a</p><p data-before="speed">b</p>', {},
                                 {"data-after=speed": True, "data-before=speed": False}, "x")
    assert shown == '<p data-after="speed">a</p><p data-before="speed" hidden>b</p>'


@pytest.mark.parametrize("base", ["", "https://example.org/decodelab/"])
def test_each_page_names_every_language_and_itself_for_search_engines(base):
    """hreflang alternates for the three languages and x-default, and a canonical link naming the
    page itself: absolute under the site's base when the build is given one (DECODELAB_SITE_URL),
    relative otherwise. Lighthouse's SEO audit accepts only absolute hreflang URLs."""
    import re

    from decodelab_tools import firstpaint

    template = (WEB / "page.html").read_text(encoding="utf-8")
    for lang in ("en", "ru", "vi"):
        html = firstpaint.seo_links(template, lang, base)
        alts = dict(re.findall(r'<link rel="alternate" hreflang="([a-z-]+)" href="([^"]*)">', html))
        assert alts == {"en": base + "index.html", "ru": base + "index.ru.html", "vi": base + "index.vi.html",
                        "x-default": base + "index.html"}
        assert re.findall(r'<link rel="canonical" href="([^"]*)">', html) == [base + firstpaint.page_name(lang)]


def test_the_built_pages_carry_their_links():
    for lang in ("en", "ru", "vi"):
        from decodelab_tools import firstpaint

        html = (WEB / firstpaint.page_name(lang)).read_text(encoding="utf-8")
        assert f'<link rel="canonical" href="' in html and 'hreflang="x-default"' in html
        assert html.count('rel="canonical"') == 1
