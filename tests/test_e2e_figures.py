"""The diagrams (web/js/diagrams/), in the booted page: each has a name and a description in every
language, draws from the model's real shapes and updates with its data, stays still when the reader
asks for less motion, and fits a 360 px phone. The opening figure starts only after the first
distribution and can be paused."""
import re

import pytest
from conftest import py, settled, widest_while_scrolling

from decodelab_tools.browser import guarded_page, open_ready
from decodelab import sampler as S

FIGURES = ["fig-opening", "fig-pipeline", "fig-kv", "fig-int8", "fig-spec"]


def show(pg, fid):
    pg.eval_on_selector(f"#{fid}", "e => e.scrollIntoView({block: 'center'})")


def name_and_description(pg, fid):
    return pg.evaluate("""(id) => {
      const f = document.getElementById(id);
      const by = (attr) => (f.getAttribute(attr) || '').split(' ').map((i) => document.getElementById(i)?.textContent.trim() || '').join(' ').trim();
      return [by('aria-labelledby'), by('aria-describedby')];
    }""", fid)


@pytest.mark.parametrize("lang", ["en", "ru", "vi"])
def test_every_figure_is_named_and_described_in_its_language(browser, site, lang):
    ctx, pg = guarded_page(browser, site)
    try:
        open_ready(pg, "/" if lang == "en" else f"/index.{lang}.html")
        seen = {}
        for fid in FIGURES:
            name, desc = name_and_description(pg, fid)
            assert len(name) > 15 and len(desc) > 60, (fid, name, desc)
            seen[fid] = name
        cyrillic = sum(bool(re.search("[а-я]", n)) for n in seen.values())
        vietnamese = sum(bool(re.search("[ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđ]", n)) for n in seen.values())
        assert cyrillic == (len(FIGURES) if lang == "ru" else 0)
        assert vietnamese == (len(FIGURES) if lang == "vi" else 0)
        # the drawn parts get their accessible names in the page's language too
        show(pg, "fig-kv")
        pg.wait_for_selector("#fig-kv .diagram-body svg[role=img]")  # drawn by the script
        labels = pg.eval_on_selector_all("#fig-kv svg[role=img]", "ns => ns.map((n) => n.getAttribute('aria-label'))")
        assert len(labels) == 2 and all(len(x) > 20 for x in labels)
        assert pg.evaluate("window.__i18nMissing") == []
    finally:
        ctx.close()
    assert not pg.console_errors, pg.console_errors  # a CSP violation is a console error


def test_the_pipeline_follows_the_panel(ready_page):
    pg = ready_page
    show(pg, "fig-pipeline")
    pg.wait_for_function("() => document.getElementById('fig-pipeline').dataset.survivors")
    vocab = int(pg.eval_on_selector('[data-live="ch1.model.vocab"]', "n => n.textContent").replace(",", ""))
    names = pg.eval_on_selector("#fig-pipeline", "e => e.dataset.stages").split(",")
    assert names == [st.name for st in S.STEPS]  # every declared step has its stage, in order
    at = lambda: dict(zip(names, (int(x) for x in pg.eval_on_selector("#fig-pipeline", "e => e.dataset.survivors").split(","))))
    first = at()
    assert first["penalty"] == first["temperature"] == first["top_k"] == vocab  # top-k is off in the reference settings
    assert first["top_p"] == first["min_p"] >= 1
    k_at = names.index("top_k")
    pg.fill("#sp-top_k-num", "7")
    pg.wait_for_function(f"() => document.getElementById('fig-pipeline').dataset.survivors.split(',')[{k_at}] === '7'")
    now = at()
    assert now["top_p"] <= 7 and now["min_p"] <= now["top_p"]
    assert "7" in pg.text_content(f"#fig-pipeline .pipe-stage:nth-child({k_at + 2})")
    # a mask: typical-p, switched on in the panel, gets its stage and narrows what follows
    pg.fill("#sp-typical_p-num", "0.2")
    t_at = names.index("typical_p")
    pg.wait_for_function(f"() => +document.getElementById('fig-pipeline').dataset.survivors.split(',')[{t_at}] < 7")
    assert "0.2" in pg.text_content(f"#fig-pipeline .pipe-stage:nth-child({t_at + 2})")
    pg.fill("#sp-typical_p-num", "1")
    pg.fill("#sp-top_k-num", "0")
    pg.wait_for_function(f"() => document.getElementById('fig-pipeline').dataset.survivors.split(',')[{k_at}] === '{vocab}'")


def test_the_kv_cache_is_drawn_from_the_config_and_grows_a_row_per_token(ready_page):
    pg = ready_page
    show(pg, "fig-kv")
    pg.wait_for_selector("#fig-kv[data-step] .diagram-body .kv-tables")  # the script's own, not the build's first frame
    step = int(pg.eval_on_selector("#fig-kv", "e => e.dataset.step"))
    layers_n, heads = (int(v) for v in pg.eval_on_selector("#fig-kv", "e => e.dataset.shape").split(","))
    # every layer's keys and values: a cell per head and token so far, the newest row outlined in each table
    cells = lambda: pg.eval_on_selector_all("#fig-kv .diagram-body .kv-tables .kv-cell", "ns => ns.length")
    assert cells() == 2 * layers_n * heads * step
    assert pg.eval_on_selector_all("#fig-kv .diagram-body .kv-newrow", "ns => ns.length") == 2 * layers_n
    pg.click("#fig-kv-next")
    pg.wait_for_function(f"() => document.getElementById('fig-kv').dataset.step === '{step + 1}'")
    assert cells() == 2 * layers_n * heads * (step + 1)
    # the highlighted row of the triangle is the newest position reading every key up to its own
    assert pg.eval_on_selector_all("#fig-kv .diagram-body .tri-now", "ns => ns.length") == step + 1
    note = pg.inner_text("#fig-kv-note")
    layers = pg.eval_on_selector('[data-live="ch2.cfg.n_layers"]', "n => n.textContent")
    d = pg.eval_on_selector('[data-live="ch2.cfg.d_model"]', "n => n.textContent")
    assert f"{layers} layers" in note and f"of {d} numbers" in note
    pg.click("#fig-kv-again")
    pg.wait_for_function("() => document.getElementById('fig-kv').dataset.step === '1'")


def test_the_int8_row_is_a_real_row_and_changes(ready_page):
    pg = ready_page
    show(pg, "fig-int8")
    pg.wait_for_function("() => document.getElementById('fig-int8').dataset.q")
    q = [int(x) for x in pg.eval_on_selector("#fig-int8", "e => e.dataset.q").split(",")]
    assert len(q) == 16 and all(-127 <= v <= 127 for v in q) and len(set(q)) > 4
    shown = [c.replace("\u2212", "-") for c in pg.eval_on_selector_all("#fig-int8 .q8-q .q8-num", "ns => ns.map((n) => n.textContent)")]
    assert [int(x) for x in shown] == q and "127" in " ".join(shown)  # the step shown holds the row's 127
    # the register: four 32-bit lanes, each the sum of four neighbouring products, and the four
    # together the step's sum in the strip under them
    num = lambda sel: [int(c.replace("\u2212", "-")) for c in pg.eval_on_selector_all(sel, "ns => ns.map((n) => n.textContent)")]
    products, lanes = num("#fig-int8 .q8-qx .q8-num"), num("#fig-int8 .q8-lane .q8-num")
    assert lanes == [sum(products[i:i + 4]) for i in range(0, 16, 4)]
    step_sum = num("#fig-int8 svg.q8-strip text:last-of-type")[0]
    assert sum(lanes) == step_sum
    # picking another step by the keyboard shows that step's columns
    step = int(pg.eval_on_selector("#fig-int8", "e => e.dataset.step"))
    pg.focus("#fig-q8-step")
    pg.keyboard.press("ArrowLeft" if step else "ArrowRight")
    pg.wait_for_function(f"() => document.getElementById('fig-int8').dataset.step !== '{step}'")
    assert pg.eval_on_selector("#fig-int8", "e => e.dataset.q").split(",") != [str(v) for v in q]
    before = pg.eval_on_selector("#fig-int8", "e => e.dataset.row")
    pg.click("#fig-q8-another")
    pg.wait_for_function(f"() => document.getElementById('fig-int8').dataset.row !== '{before}'")
    assert pg.eval_on_selector("#fig-int8", "e => e.dataset.q").split(",") != [str(v) for v in q]


def test_a_speculative_round_steps_through_draft_target_check_and_token(ready_page):
    pg = ready_page
    show(pg, "fig-spec")
    pg.wait_for_function("() => document.getElementById('fig-spec').dataset.frame", timeout=60000)
    # it opens on the whole round, never on empty boxes (design re-review N4); Step starts it over
    assert pg.eval_on_selector("#fig-spec", "e => e.dataset.frame").endswith(":token")
    assert pg.eval_on_selector_all("#fig-spec .sr-new", "ns => ns.length") == 1
    pg.click("#fig-spec-step")
    kinds = []
    for _ in range(12):
        frame = pg.eval_on_selector("#fig-spec", "e => e.dataset.frame")
        kinds.append(frame.split(":")[2])
        if kinds[-1] == "token":
            break
        pg.click("#fig-spec-step")
    assert kinds[0] == "start" and kinds.count("draft") == 4 and kinds.count("target") == 1 and kinds[-1] == "token"
    assert kinds.index("target") > max(i for i, k in enumerate(kinds) if k == "draft")  # one pass, after all guesses
    checks = kinds.count("check")
    ok = pg.eval_on_selector_all("#fig-spec .sr-ok", "ns => ns.length")
    no = pg.eval_on_selector_all("#fig-spec .sr-no", "ns => ns.length")
    assert ok + no == checks and no <= 1 and pg.eval_on_selector_all("#fig-spec .sr-new", "ns => ns.length") == 1
    kind = "bonus" if ok == 4 else "correction"
    assert pg.eval_on_selector_all(f"#fig-spec .sr-{kind}", "ns => ns.length") == 1
    pg.click("#fig-spec-next")
    pg.wait_for_function("() => document.getElementById('fig-spec').dataset.frame.startsWith('1:0:')")


def hold_still(pg, ms):
    """Run the page's clock (Playwright's, installed before the page loaded) `ms` forward, firing
    every timer and frame due in that span: "nothing happens in the next `ms`" asserted without
    waiting them out (code review item 10). run_for alone: pause_at needs a target time that the
    page's own timers can overtake between two calls."""
    pg.clock.run_for(ms)


def test_the_opening_figure_writes_after_the_first_distribution_and_pauses(browser, site):
    ctx, pg = guarded_page(browser, site)
    try:
        pg.clock.install()  # the page's timers, frames and Date under the test's hand (time runs until paused)
        open_ready(pg)
        pg.wait_for_function("() => Number(document.getElementById('fig-opening').dataset.shown || 0) >= 3", timeout=30000)
        assert pg.eval_on_selector_all("#fig-open-story [class^=tok-p]", "ns => ns.length") >= 3
        pg.click("#fig-open-pause")
        settled(pg)
        n = pg.eval_on_selector("#fig-opening", "e => e.dataset.shown")
        hold_still(pg, 3000)  # many tokens' time at its pace
        assert pg.eval_on_selector("#fig-opening", "e => e.dataset.shown") == n
        pg.click("#fig-open-pause")
        pg.wait_for_function("(n) => document.getElementById('fig-opening').dataset.shown !== n", arg=n)
        assert pg.console_errors == []
    finally:
        ctx.close()


def test_the_opening_figure_shows_each_tokens_candidates_and_its_temperature(ready_page):
    """Issue 42: beside the story, the five likeliest candidates for the token just drawn, the
    drawn one lit; the figure's own temperature slider writes the next story at that temperature."""
    pg = ready_page
    pg.evaluate("window.scrollTo(0, 0)")
    pg.wait_for_function("() => Number(document.getElementById('fig-opening').dataset.shown || 0) >= 3", timeout=30000)
    pg.click("#fig-open-pause")
    settled(pg)
    i = int(pg.get_attribute("#fig-opening", "data-cands"))
    seed = int(pg.get_attribute("#fig-opening", "data-seed"))
    want = py(pg, "fig_story", prompt="Once upon a time", seed=seed, n=80, temperature=0.8)["candidates"][i]
    rows = pg.eval_on_selector_all("#fig-open-cands-list .cand", "ls => ls.map(l => [l.querySelector('.tok-code').textContent,"
                                   " l.classList.contains('cand-drawn'), l.classList.contains('cand-cut')])")
    assert len(rows) == len(want["texts"]), (i, seed, rows, want, pg.inner_html("#fig-open-cands"))
    assert [r[0] for r in rows] == [t.replace(" ", "␣").replace("\n", "⏎") for t in want["texts"]]
    assert [r[1] for r in rows] == [k == want["drawn"] for k in range(len(want["texts"]))]
    assert [r[2] for r in rows] == [q == 0 for q in want["q"]]
    # pointing at the first token of the story shows its own candidates
    pg.hover("#fig-open-story [data-i='0']")
    pg.wait_for_function("() => document.getElementById('fig-opening').dataset.cands === '0'")
    # a hotter story: the same seed at 1.5
    pg.eval_on_selector("#fig-open-t", "e => { e.value = 1.5; e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change')); }")
    assert pg.text_content("#fig-open-t-out") == "1.5"
    pg.click("#fig-open-pause")
    pg.wait_for_function("() => document.getElementById('fig-opening').dataset.temperature === '1.5'"
                         " && Number(document.getElementById('fig-opening').dataset.shown || 0) >= 4", timeout=30000)
    hot = py(pg, "fig_story", prompt="Once upon a time", seed=seed, n=80, temperature=1.5)["texts"][:4]
    shown = pg.eval_on_selector_all("#fig-open-story [data-i]", "ns => ns.slice(0, 4).map(n => n.textContent)")
    assert shown == hot


def test_less_motion_shows_whole_frames(browser, site):
    ctx, pg = guarded_page(browser, site, reduced_motion="reduce")
    try:
        pg.clock.install()
        open_ready(pg)
        pg.wait_for_function("() => document.getElementById('fig-opening').dataset.shown", timeout=30000)
        settled(pg)
        n = int(pg.eval_on_selector("#fig-opening", "e => e.dataset.shown"))
        assert n == pg.eval_on_selector_all("#fig-open-story [class^=tok-p]", "ns => ns.length") and n > 3
        hold_still(pg, 3000)
        assert int(pg.eval_on_selector("#fig-opening", "e => e.dataset.shown")) == n  # appeared whole, nothing plays
        show(pg, "fig-spec")
        pg.wait_for_function("() => document.getElementById('fig-spec').dataset.frame", timeout=60000)
        assert pg.eval_on_selector("#fig-spec", "e => e.dataset.frame").endswith(":token")
        assert pg.is_disabled("#fig-spec-play")
    finally:
        ctx.close()


def test_the_diagrams_fit_a_phone(browser, site):
    ctx, pg = guarded_page(browser, site, viewport={"width": 360, "height": 800}, is_mobile=True, has_touch=True)
    try:
        open_ready(pg)
        drawn = {"fig-pipeline": "survivors", "fig-kv": "step", "fig-int8": "q", "fig-spec": "frame"}
        for fid, mark in drawn.items():  # each draws when it first comes into view
            show(pg, fid)
            pg.wait_for_function(f"() => document.getElementById('{fid}').dataset.{mark}", timeout=60000)
        for fid in FIGURES:
            show(pg, fid)
            box = pg.eval_on_selector(f"#{fid}", "e => e.getBoundingClientRect().right")
            assert box <= 360, (fid, box)
        assert widest_while_scrolling(pg) <= 360
    finally:
        ctx.close()
    assert not pg.console_errors, pg.console_errors
