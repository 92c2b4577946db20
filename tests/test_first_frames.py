"""Every figure drawn at first paint (issue 43): the served pages of each language hold each
figure's first frame, drawn by the page itself when it was built (web/js/first-frames.js,
decodelab_tools/firstframes.py), readable with JavaScript off; the script replaces it with its own."""
import json
import re
import subprocess
from html.parser import HTMLParser

import pytest
from conftest import WEB, guarded_page, open_ready

from decodelab_tools import firstframes, texts
from decodelab_tools.firstpaint import page_name


def frames_list():
    url = (WEB / "js" / "first-frames.js").as_uri()
    out = subprocess.run(["node", "-e", f"import({json.dumps(url)}).then(m => console.log(JSON.stringify(m.FIRST_FRAMES)))"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


class Frames(HTMLParser):
    """For each first frame, by the id of the element that holds it: the tags, ids and text inside."""

    def __init__(self):
        super().__init__()
        self.stack, self.found, self.ids, self.frame = [], {}, [], None  # frame: (record, depth)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if self.frame:
            self.frame[0]["tags"].append(tag)
            self.frame[0]["ids"] += [a["id"]] if a.get("id") else []
            self.frame[0]["styled"] += "style" in a
        elif "first-frame" in (a.get("class") or "").split():
            host = next(i for _, i in reversed(self.stack) if i)
            self.found[host] = {"tags": [], "ids": [], "text": "", "styled": 0}
            self.frame = (self.found[host], len(self.stack))
        self.stack.append((tag, a.get("id")))

    def handle_endtag(self, tag):
        while self.stack:  # void elements (<input>) have no end tag: pop up to the matching one
            t, _ = self.stack.pop()
            if t == tag:
                break
        if self.frame and len(self.stack) <= self.frame[1]:
            self.frame = None

    def handle_data(self, data):
        if self.frame:
            self.frame[0]["text"] += data


@pytest.mark.parametrize("lang", texts.LANGS)
def test_served_pages_hold_every_first_frame(lang):
    html = (WEB / page_name(lang)).read_text(encoding="utf-8")
    parser = Frames()
    parser.feed(html)
    for f in frames_list():
        got = parser.found.get(f["host"])
        assert got, f"{lang}: #{f['host']} has no first frame in the served page"
        assert got["ids"] == [], f"{lang}: the copy in #{f['host']} keeps ids {got['ids'][:5]}"
        assert not {"button", "input", "select", "textarea"} & set(got["tags"]), f"{lang}: #{f['host']} copy holds controls"
        assert got["styled"] == 0, f"{lang}: #{f['host']} copy has style attributes (the CSP refuses them)"
        # a drawing or a list with words: a frame, not an empty box
        assert "svg" in got["tags"] or len(got["text"].strip()) > 20, (lang, f["host"], got["tags"][:12])
        if f.get("note"):  # a measurement of the build's machine says so, in the page's language
            assert got["text"].strip().startswith(texts.load(lang)[f["note"]].strip()), (lang, f["host"], got["text"][:80])
    # ids stay unique: the copies added none
    dup = {i for i in parser.ids if parser.ids.count(i) > 1}
    assert dup == set(), dup


def test_pictures_carry_their_names_in_the_language(tmp_path):
    """The copies are drawn in each page's language: the pictures' accessible names differ."""
    names = {}
    for lang in texts.LANGS:
        html = (WEB / page_name(lang)).read_text(encoding="utf-8")
        m = re.search(r'id="outliers".*?<div class="first-frame">.*?aria-label="([^"]+)"', html, re.S)
        assert m, lang
        names[lang] = m.group(1)
    assert len(set(names.values())) == len(names), names


def test_the_script_takes_over_and_a_round_shows_before_the_draft_model(browser, site):
    """With scripts on: before chapter 3's draft model has arrived (here it never does) the
    speculative round is there, whole; every other figure's copy goes once the script has drawn it."""
    ctx, pg = guarded_page(browser, site, viewport={"width": 1280, "height": 900})
    try:
        pg.route("**/models/draft.dlm*", lambda route: None)  # held: the draft model never arrives
        open_ready(pg)
        spec = "#fig-spec > .first-frame"
        pg.eval_on_selector("#fig-spec", "e => e.scrollIntoView({block: 'center'})")
        assert pg.is_visible(spec)
        assert pg.eval_on_selector_all(f"{spec} .sr-row", "rs => rs.length") == 3
        assert pg.eval_on_selector_all(f"{spec} .sr-new", "cs => cs.length") == 1  # the round's own token
        assert pg.eval_on_selector_all(f"{spec} .sr-ok, {spec} .sr-no", "cs => cs.length") >= 1
        # the figures chapter 1 and 2 draw without the draft model: their copies go when drawn
        for f in ("toy-sampler", "outliers", "fig-int8", "sampling-rule"):
            pg.eval_on_selector(f"#{f}", "e => e.scrollIntoView({block: 'center'})")
            pg.wait_for_function(f"() => !document.querySelector('#{f} .first-frame')", timeout=60_000)
        assert pg.eval_on_selector_all("#toy-pic svg", "s => s.length") == 1
        assert pg.eval_on_selector_all("#toy-sampler svg", "s => s.length") == 1  # the live picture only
        assert pg.is_visible(spec)  # still waiting, still shown
    finally:
        ctx.close()


def test_a_number_measured_at_build_gives_way_to_the_readers_own(browser, site):
    """Issue 41 item 5: the served page shows the build's measurement, marked; once the widget has
    measured in the reader's browser, the number is the reader's and the mark is gone."""
    ctx, pg = guarded_page(browser, site, viewport={"width": 1280, "height": 900})
    try:
        open_ready(pg)
        key = "ch2.kv.time_ratio"
        sel = f'#ch2 [data-live="{key}"]'
        assert pg.get_attribute(sel, "data-built") is not None and pg.get_attribute(sel, "title")
        pg.eval_on_selector("#kv-race", "e => e.scrollIntoView({block: 'center'})")
        pg.wait_for_function(f"() => !document.querySelector('{sel}').hasAttribute('data-built')", timeout=60_000)
        assert pg.get_attribute(sel, "title") is None
        assert pg.evaluate(f"() => '{key}' in window.__live.values")
    finally:
        ctx.close()


def test_a_language_switch_keeps_the_builds_measurement(browser, site):
    """A switch before a widget has measured writes the build's measurement in the new language
    (LANG.json's __built), still marked, never the placeholder; a number this browser measured stays
    its own."""
    ctx, pg = guarded_page(browser, site, viewport={"width": 1280, "height": 900})
    try:
        open_ready(pg)
        key = "ch3.rf-gmacs"  # the roofline's, far below the first screen: not measured yet
        sel = f'[data-live="{key}"]'
        ru = json.loads((WEB / "i18n" / "ru.json").read_text(encoding="utf-8"))
        assert key in ru[firstframes.BUILT]
        pg.click("#lang-switch a[hreflang=ru]")
        pg.wait_for_function("() => document.documentElement.lang === 'ru'")
        got = pg.eval_on_selector_all(sel, "ns => ns.map((n) => [n.innerHTML, n.hasAttribute('data-built'), n.title])")
        assert got and all(html == ru[firstframes.BUILT][key] and built and title == ru["live.built"] for html, built, title in got)
    finally:
        ctx.close()


def test_the_speed_race_shows_the_builds_race_until_the_reader_races(browser, site):
    """N9 of the design review: the speed race was an empty card with a button. The page shows the
    race the build ran, drawn by the widget at the reader's width and marked as the build's, until
    the reader races; then the bars are the reader's, unmarked. Each bar is a token's time in two
    parts, the kernel's and the rest, that add up to it."""
    ctx, pg = guarded_page(browser, site, viewport={"width": 390, "height": 844})
    try:
        open_ready(pg, "/?lang=ru")
        bars = """() => [...document.querySelectorAll('#speed-pic g.hbar')].map((g) => ({
            total: +g.dataset.value, kernel: g.querySelector('.sp-kernel').getBBox().width,
            rest: g.querySelector('.sp-rest').getBBox().width, svgW: g.ownerSVGElement.viewBox.baseVal.width}))"""
        # far below, the build's copy stands; the widget draws the race itself as the reader comes
        # near (at mount it measured the page in the load's busiest moment: a long task)
        assert pg.eval_on_selector_all("#speed > .first-frame", "n => n.length") == 1
        pg.eval_on_selector("#speed", "e => e.scrollIntoView({block: 'center'})")
        assert pg.text_content("#speed-pic .frame-note") == texts.load("ru")["w2.speed.built"].strip()
        assert pg.eval_on_selector_all("#speed > .first-frame", "n => n.length") == 0  # the widget drew it
        built = pg.evaluate(bars)
        assert len(built) == 3 and built[0]["svgW"] <= 390, built  # drawn at the phone's width, not copied at 1280
        pg.click("#speed-run")
        pg.wait_for_selector("#speed-out[data-ratio]", timeout=180_000)
        assert pg.eval_on_selector_all("#speed-pic .frame-note", "n => n.length") == 0
        mine = pg.evaluate(bars)
        assert len(mine) == 3
        for b in mine:  # the two parts span the bar, on the bars' common scale
            scale = max(x["kernel"] + x["rest"] for x in mine) / max(x["total"] for x in mine)
            assert abs(b["kernel"] + b["rest"] - b["total"] * scale) < 1.5, mine
        race = pg.evaluate("() => JSON.parse(document.querySelector('#speed-pic').dataset.race)")
        n = pg.evaluate("() => import('./js/live/examples.js').then((m) => m.SPEED.n)")
        assert [v for v, _ in race] == ["main", "scalar", "jsmatvec"] and all(r["tokens"] == n for _, r in race), race
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", texts.LANGS)
def test_the_real_pairs_rounds_are_there_before_it_runs_in_the_pages_language(lang):
    """N9: the live pair's card held only its controls until the draft model had come and run five
    times. Its greedy rounds (the same tokens on every machine) are in the served page, with their
    table by position written as the language writes numbers (the table was drawn once, in the
    language of the page it ran in)."""
    html = (WEB / page_name(lang)).read_text(encoding="utf-8")
    start = html.index('id="live-spec"')
    copy = html[html.index('<div class="first-frame">', start):html.index("</table>", start)]
    assert copy.count('class="ls-tok ls-') > 20, copy[:300]
    shares = re.findall(r"<td>(0[.,]\d\d|1[.,]00)</td>", copy)
    assert shares, copy[-600:]
    mark = "." if lang == "en" else ","
    assert all(s[1] == mark for s in shares), (lang, shares)
