"""End-to-end, chapter 2 as a reader meets it: scrolled top to bottom, every live number filled,
every widget showing a result on arrival, the KV race's counts equal to the formulas for the
reader's own P and n, the kernel check's timing measurable, the bit-depth model lent to chapter 1's
playground and given back, and no horizontal scroll on a 360 px phone."""
import re

import pytest

from conftest import ROOT, examples, guarded_page, open_ready, py

WIDGETS = ["#kv-race", "#q8-table", "#outliers", "#kernel-check", "#speed", "#bit-depth"]
ARRIVED = {  # what each widget shows on arrival, without a click
    "#kv-race": "() => document.querySelector('#kv-mem').dataset.same",
    "#q8-table": "() => document.querySelector('#q8-table-t')",
    "#outliers": "() => document.querySelector('#ol-ratio')",
    "#kernel-check": "() => document.querySelector('#kc-out').dataset.result",
    "#bit-depth": "() => document.querySelectorAll('#bd-table tr').length >= 4",
}


def scroll_through(pg):
    """Scroll chapter 2 from its heading to its end, widget by widget, and wait for each to arrive."""
    pg.eval_on_selector("#ch2", "e => e.scrollIntoView()")
    for sel in WIDGETS:
        pg.eval_on_selector(sel, "e => e.scrollIntoView({block: 'center'})")
        if sel in ARRIVED:
            pg.wait_for_function(ARRIVED[sel], timeout=60_000)
    pg.eval_on_selector("#ch2 > :last-child", "e => e.scrollIntoView()")


def shown_live(pg):
    """{key: text} of every live span in chapter 2 that is not inside a hidden element."""
    return pg.eval_on_selector_all(
        "#ch2 [data-live]", "ns => Object.fromEntries(ns.filter(n => !n.closest('[hidden]')).map(n => [n.dataset.live, n.textContent]))")


def test_every_live_number_is_filled_and_every_widget_arrives(ready_page):
    pg = ready_page
    scroll_through(pg)
    pg.wait_for_function("() => ![...document.querySelectorAll('#ch2 [data-live]')]"
                         ".some(n => !n.closest('[hidden]') && n.textContent === '…')", timeout=60_000)
    live = shown_live(pg)
    assert len(live) > 100
    bad = {k: v for k, v in live.items() if v in ("…", "–", "") or re.search(r"NaN|undefined|null|Infinity", v)}
    assert not bad, bad
    # the held-out paragraphs are shown (this model's file carries the figures), the speed paragraph
    # waits for its race and says so
    assert pg.eval_on_selector_all("#ch2 [data-needs=heldout]", "ns => ns.every(n => !n.hidden)")
    assert pg.eval_on_selector("#ch2 [data-after=speed]", "n => n.hidden")
    assert pg.eval_on_selector("#ch2 [data-before=speed]", "n => !n.hidden")
    # the prose's config numbers are the model's own
    f = py(pg, "ch2_facts")
    assert live["ch2.cfg.d_ff"] == f"{f['cfg']['d_ff']:,}" and live["ch2.cfg.n_layers"] == str(f["cfg"]["n_layers"])
    # the cache beside the weights at full context: within 10 % "about the same size as", else larger or
    # smaller, and the ratio itself with two decimals (never "1 times")
    r = f["kv"]["cache_over_weights"]
    assert live["ch2.kv.cache_vs_weights"] == ("about the same size as" if abs(r - 1) < 0.1
                                               else "larger than" if r > 1 else "smaller than")
    assert live["ch2.kv.cache_over_weights"] == f"{r:.2f}"
    # the cited Llama 2 7B shape, with the arithmetic done by the page: 2 x 32 x 4096 x 2 bytes a token,
    # 4,096 tokens a conversation, beside 13.5 GB of weights
    # in decimal units, like the cited 13.5 GB of weights and 80 GB of an H100 (en.md T25)
    assert (live["ch2.llama.per_token"], live["ch2.llama.per_conversation"]) == ("0.524 MB", "2.15 GB")
    assert live["ch2.llama.conversations"] == "seven"  # 6 x 2.15 GB < 13.5 GB < 7 x 2.15 GB
    assert (live["ch2.llama.h100"], live["ch2.llama.h100_fit"]) == ("80", "30")  # (80 - 13.5) / 2.15 = 30.97
    # the bit-depth table on arrival: the float baseline, 8 bits, and one lower depth with its held-out figure
    rows = pg.eval_on_selector_all("#bd-table tr", "rs => rs.filter(r => !r.hidden).map(r => [...r.cells].map(c => c.textContent))")
    assert rows[1][0] == "float32" and rows[2][0] == "8" and int(rows[3][0]) < 8
    assert rows[3][4] != "not measured" and rows[3][3].endswith(("(noise)", "(measurable)"))
    assert "keeps the shipped 8-bit model" in pg.text_content("#bd-lend-out")
    # each widget has its title (one header for every card), and none repeats a heading of the prose
    titles = pg.eval_on_selector_all("#ch2 .widget:not(.quiz) > h3.widget-title", "hs => hs.map(h => h.textContent.trim())")
    heads = pg.eval_on_selector_all("#ch2 > h2, #ch2 > h3", "hs => hs.map(h => h.textContent.trim().toLowerCase())")
    assert len(titles) == pg.eval_on_selector_all("#ch2 .widget:not(.quiz)", "ws => ws.length")
    assert not [t for t in titles if t.lower() in heads], titles
    assert not pg.console_errors


def test_kv_race_counts_agree_with_the_formulas_and_n1_claims_nothing(ready_page):
    pg = ready_page
    pg.eval_on_selector("#kv-race", "e => e.scrollIntoView()")
    pg.wait_for_function("() => document.querySelector('#kv-mem').dataset.same")
    # the prose's counts are the reference race's (built), and they are the formulas'
    live = shown_live(pg)
    P, ref_n = int(live["ch2.kv.P"]), examples()["KV_RACE"]["n"]
    assert int(live["ch2.kv.n"]) == ref_n
    assert int(live["ch2.kv.passes_with"].replace(",", "")) == P + ref_n - 1
    assert int(live["ch2.kv.passes_without"].replace(",", "")) == ref_n * P + ref_n * (ref_n - 1) // 2
    for n in (23, 1):
        pg.fill("#kv-n", str(n))
        pg.eval_on_selector("#kv-mem", "e => { delete e.dataset.same; }")
        pg.click("#kv-run")
        pg.wait_for_function("() => document.querySelector('#kv-mem').dataset.same")
        passes = [int(x) for x in pg.get_attribute("#kv-out", "data-passes").split(",")]
        assert passes == [P + n - 1, n * P + n * (n - 1) // 2]
        text = pg.text_content("#kv-sentences")  # the sentences, in the disclosure under the figures
        # the figures under the picture: a stat grid whose passes are the counts just checked
        stats = pg.eval_on_selector_all("#kv-mem #kv-stats dd b", "bs => bs.map(b => b.textContent)")
        assert [int(x.replace(",", "")) for x in stats[:2]] == passes and stats[2].endswith("×")
        lanes = pg.text_content("#kv-out")  # in its disclosure, under the picture
        # the picture (issue 43): two grids whose run cells are the two counts, drawn for this n
        cells = pg.eval_on_selector_all("#kv-pic svg.kv-grid", "gs => gs.map(g => [Number(g.dataset.cells), g.querySelectorAll('.kv-row').length])")
        assert cells == [[passes[1], n], [passes[0], n]]
        assert f"P + n − 1 = {P} + {n} − 1 = {P + n - 1}" in lanes
        macs = [float(x) for x in pg.get_attribute("#kv-out", "data-macs").split(",")]
        assert all(f"{int(m):,} multiply-adds (from the config: {int(m):,})" in lanes for m in macs)
        if n == 1:
            assert pg.get_attribute("#kv-mem", "data-same-work") == "true"
            assert "same work" in text and "no speedup" in text and "as fast" not in text
        else:
            assert "as fast here" in text
            # the same rule as the prose's (formats.js sizeComparison): within 10 % "about the same size as"
            r = py(pg, "ch2_facts")["kv"]["cache_over_weights"]
            assert ("about the same size as" if abs(r - 1) < 0.1 else "larger than" if r > 1 else "smaller than") in text
        # the reader's own race leaves the prose on the reference race
        assert shown_live(pg)["ch2.kv.n"] == live["ch2.kv.n"]
    assert pg.eval_on_selector("#ch2 [data-only=kv-gain]", "n => !n.hidden")  # the reference race gains


def test_kernel_check_timing_is_measured(ready_page):
    pg = ready_page
    pg.eval_on_selector("#kernel-check", "e => e.scrollIntoView()")
    pg.wait_for_function("() => document.querySelector('#kc-out').dataset.result")
    text = pg.text_content("#kc-out")
    # the two paths drawn as bars of their time per product (issue 43), the lines one click away
    bars = pg.eval_on_selector_all("#kc-pic .hbar", "bs => bs.map(b => Number(b.dataset.value))")
    assert len(bars) == 2
    assert bars[1] == pytest.approx(float(pg.get_attribute("#kc-out", "data-fast-us")))
    for line in (pg.text_content("#kc-fast"), pg.text_content("#kc-exact")):
        assert re.search(r"\d µs per product|\d ms per product", line) and "0.000" not in line
    assert "GMAC/s" in text and "of the largest output" in text and "float32 rounding" in text
    assert float(pg.get_attribute("#kc-out", "data-fast-us")) > 0
    # above the reference's size the widget says why there is no error figure
    pg.fill("#kc-rows", "2048")
    pg.fill("#kc-cols", "1024")
    pg.eval_on_selector("#kc-out", "e => { delete e.dataset.result; }")
    pg.click("#kc-run")
    pg.wait_for_function("() => document.querySelector('#kc-out').dataset.result", timeout=60_000)
    assert "would take too long" in pg.text_content("#kc-out")
    # past the bound: a message beside the box, no long wait
    pg.fill("#kc-rows", "8192")
    pg.fill("#kc-cols", "4096")
    pg.click("#kc-run")
    pg.wait_for_selector("#kc-rows + .field-error:not([hidden])")
    assert "4,194,304" in pg.inner_text("#kc-rows + .field-error")
    pg.fill("#kc-rows", "64")
    pg.fill("#kc-cols", "64")


def test_bit_depth_lends_its_model_to_the_playground_and_takes_it_back(ready_page):
    pg = ready_page
    pg.eval_on_selector("#playground", "e => e.scrollIntoView()")
    pg.wait_for_selector("#pg-out[data-weights]", timeout=60_000)
    assert pg.get_attribute("#pg-out", "data-weights") == "8,row,false"
    story8 = pg.inner_text("#pg-text")
    # three bits per row in the bit-depth widget, then lend it
    pg.eval_on_selector("#bit-depth", "e => e.scrollIntoView()")
    pg.wait_for_function(ARRIVED["#bit-depth"], timeout=60_000)
    pg.eval_on_selector("#bd-bits", "e => { e.value = 3; e.dispatchEvent(new Event('input')); }")
    pg.check("#bd-scheme-row")
    n = pg.eval_on_selector_all("#bd-table tr", "rs => rs.length")
    pg.click("#bd-apply")
    pg.wait_for_function(f"() => document.querySelectorAll('#bd-table tr').length > {n}")
    pg.click("#bd-lend")
    pg.wait_for_selector("#bd-lend-out[data-lent=true]")
    assert "3 bits, one scale per row" in pg.text_content("#bd-lend-out")
    assert "Every other widget keeps the shipped 8-bit model" in pg.text_content("#bd-lend-out")
    assert not pg.eval_on_selector("#pg-lent", "e => e.hidden")  # the playground's banner, before it writes
    # the playground writes with the 3-bit copy; the panel's own draw keeps the 8-bit model
    pg.click("#pg-write")
    pg.wait_for_function("() => document.querySelector('#pg-out').dataset.weights === '3,row,true'", timeout=60_000)
    assert "3 bits" in pg.inner_text("#pg-lent")
    story3 = pg.inner_text("#pg-text")
    assert story3 != story8
    panel = py(pg, "ch1_draw", prompt="Once upon a time", settings={"temperature": 0.0}, seed=1, n=8)
    assert panel["weights"] == {"bits": 8, "scheme": "row", "lent": False}
    # "back to 8 bits": the loan ends, the playground writes the 8-bit story again
    pg.click("#pg-lent-back")
    pg.wait_for_function("() => document.querySelector('#pg-out').dataset.weights === '8,row,false'", timeout=60_000)
    pg.wait_for_function("() => document.querySelector('#pg-lent').hidden")
    assert pg.inner_text("#pg-text") == story8
    assert pg.get_attribute("#bd-lend-out", "data-lent") == "false"
    assert not pg.console_errors


def test_chapter2_quizzes_explain_every_answer(ready_page):
    pg = ready_page
    # one box at the chapter's end holds its questions, in the chapter's order
    ids = pg.eval_on_selector_all("#ch2 .quiz .quiz-q", "ns => ns.map(n => n.dataset.question)")
    assert ids == ["ch2-passes", "ch2-outlier", "ch2-scale", "ch2-bits"]
    assert pg.eval_on_selector_all("#ch2 .quiz", "ns => ns.length") == 1
    for qid in ids:
        pg.click(f"#quiz-{qid}-3")
        verdict = pg.inner_text(f"#quiz-{qid}-verdict")
        assert verdict.startswith(("Right.", "Not quite.")) and len(verdict) > 150


def test_phone_width_has_no_horizontal_scroll(browser, site):
    from conftest import guarded_page, open_ready

    ctx, pg = guarded_page(browser, site, viewport={"width": 360, "height": 740})
    try:
        open_ready(pg)
        scroll_through(pg)
        assert pg.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        assert not pg.blocked and not pg.console_errors
    finally:
        ctx.close()


def test_chapter2_questions_are_fair():
    """Four options each, the right one in different places and not always the longest, and an
    explanation that teaches (longer than any option)."""
    from decodelab_tools import texts

    js = (ROOT / "web" / "js" / "widgets" / "quiz-questions.js").read_text()
    en = texts.load("en")  # the words are the text files' entries (quiz.ID.q, .o0, .o1, …, .why)
    qs = {}
    for m in re.finditer(r'"(ch2-[a-z]+)": \{ options: (\d), right: (\d) \}', js):
        qid, n, right = m.group(1), int(m.group(2)), int(m.group(3))
        qs[qid] = ([en[f"quiz.{qid}.o{i}"] for i in range(n)], right, en[f"quiz.{qid}.why"])
    assert set(qs) == {"ch2-passes", "ch2-outlier", "ch2-scale", "ch2-bits"}
    assert len({r for _, r, _ in qs.values()}) > 1
    assert not all(len(o[r]) == max(map(len, o)) for o, r, _ in qs.values())
    for opts, right, expl in qs.values():
        assert len(opts) == 4 and 0 <= right < 4 and len(expl) > 2 * max(map(len, opts))


def test_modes_are_segments_and_the_bit_depth_measures_when_its_scheme_changes(browser, site):
    """Design item 9: a mode is a row of segments (a radio group with a name, one segment chosen,
    the arrow keys move the choice), not a select or a button; choosing bit depth's scheme measures
    at once, without its button; the choice is kept across a reload (persist.js)."""
    ctx, pg = guarded_page(browser, site)
    try:
        open_ready(pg)
        for group in ("#bd-scheme", "#ls-mode"):
            assert pg.get_attribute(group, "role") == "radiogroup" and pg.get_attribute(group, "aria-label")
            assert pg.eval_on_selector_all(f"{group} input[type=radio]:checked", "ns => ns.length") == 1
        pg.eval_on_selector("#bit-depth", "e => e.scrollIntoView()")
        pg.wait_for_function(ARRIVED["#bit-depth"], timeout=60_000)
        n = pg.eval_on_selector_all("#bd-table tr", "rs => rs.length")
        pg.focus("#bd-scheme-row")
        pg.keyboard.press("ArrowRight")  # the next scheme, chosen by the keyboard alone
        chosen = pg.eval_on_selector("#bd-scheme input:checked", "e => e.value")
        assert chosen != "row"
        pg.wait_for_function(f"() => document.querySelectorAll('#bd-table tr').length > {n}", timeout=60_000)
        open_ready(pg)
        assert pg.eval_on_selector("#bd-scheme input:checked", "e => e.value") == chosen
        assert pg.console_errors == []
    finally:
        ctx.close()
