"""End-to-end, chapter 3 as an article: scroll through it and every live number fills, the
measuring widgets are alive on arrival, the live pair's verdict is one the measured range
supports, its rounds are shown token by token with marks beside the colours, its numbers go into
the cost model with one click, and the chapter fits a 360 px phone."""
import json
import re

import pytest

from conftest import examples, frames, py

LIVE_PAIR_MS = 180_000


def scroll_through(pg):
    """Scroll chapter 3 into view piece by piece (widgets measure when first seen)."""
    n = pg.eval_on_selector_all("#ch3 > *", "es => es.length")
    for i in range(n):
        pg.evaluate(f"() => document.querySelectorAll('#ch3 > *')[{i}].scrollIntoView({{block: 'center'}})")
        frames(pg)  # the layout, then the observers that start a widget's measurement


def measured(pg):
    """What the measuring widgets handed the prose (live.js keeps it), by the key's chapter-3 name."""
    return pg.evaluate("() => Object.fromEntries(Object.entries(window.__live.values)"
                       ".filter(([k]) => k.startsWith('ch3.')).map(([k, v]) => [k.slice(4), v]))")


def live_texts(pg):
    return pg.eval_on_selector_all("#ch3 [data-live]", "ns => ns.map(n => [n.dataset.live, n.textContent])")


def test_every_live_number_fills_and_the_widgets_answer_on_arrival(ready_page):
    pg = ready_page
    scroll_through(pg)
    pg.wait_for_selector("#sr-gate-out[data-passed]", timeout=60_000)
    assert pg.get_attribute("#sr-gate-out", "data-passed") == "729"
    pg.wait_for_selector("#vc-out[data-slope]", timeout=60_000)
    pg.wait_for_selector("#rf-out[data-ridge]", timeout=60_000)
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    # the pinned numbers were there before any script; every measured one has now been measured
    pg.wait_for_function("""async () => {
      const measured = new Set(Object.values((await import('/js/live/registry.js')).MEASURED).flat());
      return [...document.querySelectorAll('#ch3 [data-live]')].every(n => !measured.has(n.dataset.live) || n.dataset.state === 'ok');
    }""", timeout=30_000)
    spans = live_texts(pg)
    assert len(spans) > 120
    for key, text in spans:
        assert text.strip() and text != "…", key
        assert not re.search(r"NaN|undefined|null|Infinity", text), (key, text)
    got = dict(spans)
    # the cost model's defaults as the widget shows them, quoted by the prose
    assert got["ch3.cm-speedup"] + "×" == pg.text_content("#cm-speedup")
    assert got["ch3.sr-out-girl"] == got["ch3.sr-p-girl"] == "0.50"
    assert got["ch3.sr-alpha"] == "0.90" and got["ch3.sr-reject-mass"] == got["ch3.sr-residual-mass"]
    assert got["ch3.gate-passed"] == got["ch3.gate-pairs"] == "729"
    # the round table's own rate, as a percentage, beside the α box
    assert got["ch3.rt-acc-pct"].endswith("%") and "(78%)" in pg.inner_text("#rt-totals")
    assert got["ch3.params"].endswith("million")
    # one title line per card, the cards' only headings, and the quiz's (test_article_shape: none
    # repeats the prose's headings)
    assert pg.eval_on_selector_all("#ch3 .widget h3:not(.widget-title)", "hs => hs.map(h => h.textContent)") == ["Check yourself"]
    assert pg.eval_on_selector_all("#ch3 .widget:not(.quiz)", "ws => ws.every((w) => w.firstElementChild.matches('h3.widget-title'))")


def test_live_pair_verdict_is_supported_and_repeats(ready_page):
    pg = ready_page
    pg.evaluate("() => document.getElementById('live-spec').scrollIntoView()")
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    first = pg.get_attribute("#ls-out", "data-verdict")
    text = pg.inner_text("#ls-out")
    assert "0.00 target" not in text and "0.00 of a target" not in text
    lo, hi = float(pg.get_attribute("#ls-out", "data-lo")), float(pg.get_attribute("#ls-out", "data-hi"))
    assert f"{lo:.2f}" in text and f"{hi:.2f}" in text  # the range the verdict rests on is shown
    want = "pays" if lo > 1.05 else "does not pay" if hi < 0.95 else "too close to call"
    assert first == want, (first, lo, hi)
    assert "token for token the target's own" in text
    # the figures at a glance (design review item 12): a grid of label and value, the sentences
    # behind them in a disclosure
    stats = pg.eval_on_selector_all("#ls-stats .stat", "ss => ss.map(s => [s.querySelector('.stat-label').textContent, s.querySelector('b').textContent])")
    assert [label for label, _ in stats] == ["acceptance α", "a draft pass, in target steps", "tokens a round",
                                             "speedup, measured", "the cost model's prediction"], stats
    assert float(stats[0][1]) == pytest.approx(float(pg.get_attribute("#ls-out", "data-alpha")), abs=6e-4)
    assert "Acceptance α = " not in text and "Acceptance α = " in pg.text_content("#ls-out details.numbers")
    # a second run: the same verdict, or an honest "too close to call"; the disclosure the reader
    # opened stays open when the readout is written again
    pg.click("#ls-out details.numbers > summary")
    pg.evaluate("() => { const o = document.querySelector('#ls-out'); delete o.dataset.verdict; }")
    pg.click("#ls-run")
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    assert pg.eval_on_selector("#ls-out details.numbers", "d => d.open")
    second = pg.get_attribute("#ls-out", "data-verdict")
    assert second == first or "too close to call" in (first, second)
    # rounds token by token: every kind has its colour class and a mark, not colour alone
    kinds = pg.eval_on_selector_all("#ls-rounds .ls-tok", "ts => ts.map(t => [t.dataset.kind, t.querySelector('.ls-mark').textContent, getComputedStyle(t).backgroundColor])")
    seen = {k for k, _, _ in kinds}
    assert {"accepted", "rejected", "correction"} <= seen, seen
    marks = {k: m for k, m, _ in kinds}
    assert len(set(marks.values())) == len(marks)  # one mark per kind
    colours = {k: c for k, _, c in kinds}
    assert len(set(colours.values())) == len(colours)
    assert pg.eval_on_selector_all("#ls-bypos tr:first-child td", "ts => ts.length") == 3


def test_one_click_puts_the_measured_numbers_into_the_cost_model(ready_page):
    pg = ready_page
    pg.evaluate("() => document.getElementById('live-spec').scrollIntoView()")
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    live = measured(pg)
    pg.wait_for_function("() => !document.querySelector('#ls-handoff').disabled")
    pg.click("#ls-handoff")
    pg.wait_for_function("() => document.querySelector('#cm-origin').textContent.includes('Measured on this machine')")
    assert pg.input_value("#cm-gamma-num") == "3"
    assert abs(float(pg.input_value("#cm-alpha-num")) - float(live["ls-alpha"])) < 1e-3
    assert abs(float(pg.input_value("#cm-c_draft-num")) - float(live["ls-cd"])) < 1e-3
    # the verify cost: the live round's cost at γ = 3, as a base plus the verify chart's slope per position
    base, slope = float(pg.input_value("#cm-c_verify-num")), float(pg.input_value("#cm-c_verify_slope-num"))
    assert abs(base + 3 * slope - float(live["ls-cv"])) < 5e-3
    assert slope == 0 or abs(slope - max(0, live["vc-slope"])) < 1e-3
    # the cost model now predicts what the live pair's own prediction says (same formula, same
    # inputs, as the inputs round them), whichever side of 1 this machine's timings put it (a
    # fresh-clone run measured 1.37: this test asserted < 1, a fact about the machine, not the code)
    pg.wait_for_function("() => document.querySelector('#cm-speedup').textContent !== '2.40×'")
    got, want = float(pg.text_content("#cm-speedup").rstrip("×")), float(live["ls-pred"])
    assert abs(got - want) <= 0.01 + 0.01 * want, (got, want)
    pg.click("#cm-preset-0")
    pg.wait_for_function("() => document.querySelector('#cm-origin').textContent === ''")


def test_gamma_zero_and_gamma_32_wording(ready_page):
    pg = ready_page
    pg.evaluate("() => document.getElementById('live-spec').scrollIntoView()")
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    for g, words in (("0", "γ = 0 is plain decoding"), ("32", "rests on a handful of checks")):
        pg.fill("#ls-gamma", g)
        pg.click("#ls-run")
        pg.wait_for_function(f"() => document.querySelector('#ls-out').dataset.gamma === '{g}'", timeout=LIVE_PAIR_MS)
        text = pg.inner_text("#ls-out")
        assert words in text, text
        # a bare 0.00 (a rate or a cost rounded to nothing), not the tail of a timing such as 30.00
        assert not re.search(r"(?<![\d.,])0[.,]00(?!\d)", text), text
        assert "verifying 1 tokens" not in text and "NaN" not in text
    assert "no acceptance by position" not in pg.inner_text("#ls-detail")
    pg.fill("#ls-gamma", "0")
    pg.click("#ls-run")
    pg.wait_for_function("() => document.querySelector('#ls-out').dataset.gamma === '0'", timeout=LIVE_PAIR_MS)
    assert "no acceptance by position" in pg.inner_text("#ls-detail")
    assert pg.is_disabled("#ls-handoff")
    pg.fill("#ls-gamma", "3")


def test_verify_cost_and_roofline_are_measured_here(ready_page):
    pg = ready_page
    pg.evaluate("() => document.getElementById('verify-cost').scrollIntoView()")  # each measures when seen
    pg.wait_for_selector("#vc-out[data-slope]", timeout=60_000)
    pg.evaluate("() => document.getElementById('roofline').scrollIntoView()")
    pg.wait_for_selector("#rf-out[data-ridge]", timeout=60_000)
    live = measured(pg)
    assert 0 < live["vc-g4"] < 50 and 0 < live["vc-g8"] < 50  # values, not their order: this machine is shared
    assert live["rf-gbps-cache"] > 0 and live["rf-gmacs"] > 0
    r = py(pg, "ch3_roofline")
    assert r["cache"]["gbps"] > 0.5 * r["dram"]["gbps"]  # a buffer in cache reads no slower than one that is not
    # each ridge is drawn where its machine's peak over bandwidth puts it (dashed, labelled on the line)
    ridge = float(pg.get_attribute("#rf-out", "data-ridge"))
    xs = pg.evaluate("() => Chart.getChart(document.querySelector('#rf-chart')).data.datasets"
                     ".filter((d) => d.isLine === 'y').map((d) => [d.label, d.data[0].x])")
    assert len(xs) == 2 and any(abs(x - ridge) <= 5.1e-4 for _, x in xs), xs  # data-ridge has 3 decimals
    assert any(x > 100 for _, x in xs)  # the H100's, from its data sheet: far to the right of ours


def test_quizzes_teach_and_the_right_answer_moves(ready_page):
    pg = ready_page
    rights = []
    for qid in ("ch3-peak", "ch3-exact", "ch3-cpu"):
        opts = pg.eval_on_selector_all(f"[data-question='{qid}'] .quiz-option", "bs => bs.map(b => b.textContent)")
        for i in range(len(opts)):
            pg.click(f"#quiz-{qid}-{i}")
            if pg.inner_text(f"#quiz-{qid}-verdict").startswith("Right."):
                rights.append((i, opts))
                break
    assert len(rights) == 3
    assert len({i for i, _ in rights}) == 3  # the right answer is not always in the same place
    assert any(len(o[i]) < max(map(len, o)) for i, o in rights)  # and not always the longest


def test_chapter_3_fits_a_phone(ready_page):
    pg = ready_page
    pg.set_viewport_size({"width": 360, "height": 800})
    try:
        scroll_through(pg)
        frames(pg)
        sw, iw = pg.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert sw <= iw, (sw, iw)
        # the roofline's labels, this machine's included, all whole and apart on a phone (a label
        # wider than the small plot takes two lines)
        pg.wait_for_selector("#rf-out[data-ridge]", timeout=60_000)
        pg.evaluate("() => document.getElementById('roofline').scrollIntoView()")
        pg.wait_for_function("""() => { const c = document.querySelector('#rf-chart');
          const n = Chart.getChart(c).data.datasets.filter((d) => d.label).length;
          return c.clientWidth < 360 && JSON.parse(c.dataset.labels || '[]').length === n; }""")
        boxes, width = pg.evaluate("() => { const c = document.querySelector('#rf-chart'); return [JSON.parse(c.dataset.labels), c.clientWidth]; }")
        for i, (x, y, w, h) in enumerate(boxes):
            assert 0 <= x and x + w <= width, (boxes, width)
            assert not any(x < x2 + w2 and x2 < x + w and abs(y - y2) < (h + h2) / 2 for x2, y2, w2, h2 in boxes[:i]), \
                json.dumps(boxes)
    finally:
        pg.set_viewport_size({"width": 1280, "height": 900})


def test_pass_budget_flat_then_rising_and_this_machine(ready_page):
    pg = ready_page
    pg.evaluate("() => document.getElementById('pass-budget').scrollIntoView()")
    pg.wait_for_selector("#pb-out[data-ratio]")
    assert pg.get_attribute("#pb-out", "data-ratio") == "1.000"  # 7 billion bf16 weights, 5 positions: memory-bound
    assert "memory-bound" in pg.inner_text("#pb-out")
    pg.fill("#pb-n-num", "512")
    pg.wait_for_function("() => Number(document.querySelector('#pb-out').dataset.ratio) > 1")
    # this machine appears once the roofline has measured it; a few million int8 weights in cache
    pg.wait_for_function("() => !document.querySelector('#pb-machine option[value=cache]').disabled", timeout=60_000)
    pg.select_option("#pb-machine", "cache")
    pg.fill("#pb-logp-num", "-2.45")
    pg.fill("#pb-n-num", "5")
    pg.wait_for_function("() => document.querySelector('#pb-out').textContent.startsWith('0.0035 billion') || "
                         "document.querySelector('#pb-out').textContent.includes('0.00 billion')")
    # read / arithmetic for one position is the ridge (multiply-adds per byte), so n positions cost
    # max(ridge, n) / max(ridge, 1) times one
    ridge = float(pg.get_attribute("#rf-out", "data-ridge"))
    ratio = float(pg.get_attribute("#pb-out", "data-ratio"))
    assert ratio == pytest.approx(max(ridge, 5) / max(ridge, 1), rel=0.02)
    assert ("arithmetic-bound" in pg.inner_text("#pb-out")) == (ridge < 5)


def test_chapter_3_with_every_result_shown_passes_axe(ready_page):
    import json

    from conftest import ROOT

    pg = ready_page
    scroll_through(pg)
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    pg.wait_for_selector("#rf-out[data-ridge]", timeout=60_000)
    pg.evaluate((ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text())
    res = pg.evaluate("() => axe.run(document.querySelector('#ch3'), {resultTypes: ['violations']}).then(r => r.violations.map(v => "
                      "({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))")
    bad = [v for v in res if v["impact"] in ("serious", "critical")]
    assert bad == [], json.dumps(bad, indent=1)


def test_the_round_figure_tallies_each_whole_round_k_plus_one(ready_page):
    """Under the speculative round, once it is whole: k + 1 tokens for γ draft passes, γ - k of
    them wasted, one target pass, read off the round the figure shows (its kept checks)."""
    pg = ready_page
    pg.evaluate("() => document.getElementById('fig-spec').scrollIntoView()")
    pg.wait_for_selector("#fig-spec-tally[data-gained]", timeout=60_000)
    for _ in range(3):  # the first round, then two more (each opens at its start: stepped through)
        kept = pg.eval_on_selector_all("#fig-spec-grid .sr-ok", "ns => ns.length")
        gamma = pg.eval_on_selector_all("#fig-spec-grid .sr-row:first-child .sr-cell", "ns => ns.length") - 1
        tally = pg.inner_text("#fig-spec-tally")
        assert pg.get_attribute("#fig-spec-tally", "data-gained") == str(kept + 1), tally
        assert f"({kept} kept + 1 from the target)" in tally and f"{gamma - kept} of them wasted" in tally, tally
        pg.click("#fig-spec-next")  # the next round, at its start: no tally until it is whole
        assert pg.inner_text("#fig-spec-tally") == ""
        while not pg.eval_on_selector("#fig-spec", "f => f.dataset.frame.endsWith(':token')"):
            pg.click("#fig-spec-step")



def test_round_table_zeros_to_the_end_is_the_prose_alternative(ready_page):
    pg = ready_page
    pg.evaluate("() => document.getElementById('rounds').scrollIntoView()")
    # the prose's alternative string (pinned at build time from the reference flags) is what
    # the button makes, and its speed-up is the one the table then shows
    ref = {k: examples()["ROUNDS"][k] for k in ("flags", "gamma", "c_draft", "c_verify")}
    r = py(pg, "ch3_rounds", **ref)
    alt = "1" * r["accepted"] + "0" * (r["flags_checked"] - r["accepted"])
    alt_speedup = py(pg, "ch3_rounds", **{**ref, "flags": alt})["speedup"]
    prose = dict(live_texts(pg))
    assert prose["ch3.rt-alt-string"] == alt and prose["ch3.rt-alt-speedup"].startswith(f"{alt_speedup:.2f}")
    before = pg.get_attribute("#rt-totals", "data-speedup")
    pg.click("#rt-bunch")
    pg.wait_for_function(f"() => document.querySelector('#rt-totals').dataset.speedup !== '{before}'")
    assert pg.input_value("#rt-flags") == alt
    assert pg.get_attribute("#rt-totals", "data-speedup") == f"{alt_speedup:.2f}"
    assert float(pg.get_attribute("#rt-totals", "data-acceptance")) == pytest.approx(r["acceptance"], abs=1e-4)  # the same rate
    pg.fill("#rt-flags", "111111001110101111")
    pg.wait_for_function(f"() => document.querySelector('#rt-totals').dataset.speedup === '{before}'")


def test_live_pair_sampled_mode_reports_without_claiming_the_same_text(ready_page):
    pg = ready_page
    pg.evaluate("() => document.getElementById('live-spec').scrollIntoView()")
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    pg.fill("#ls-gamma", "3")
    pg.check("#ls-mode-sample")
    pg.evaluate("() => { const o = document.querySelector('#ls-out'); delete o.dataset.verdict; }")
    pg.click("#ls-run")
    pg.wait_for_selector("#ls-out[data-verdict]", timeout=LIVE_PAIR_MS)
    text = pg.text_content("#ls-out")  # the sentences too, in their closed disclosure
    assert "token for token" not in text and "NaN" not in text and "Acceptance α = " in text
    assert pg.text_content("#cm-ceiling-inf").endswith("%")
    pg.check("#ls-mode-greedy")


def test_the_rounds_are_chips_the_reader_flips(ready_page):
    """Issue 43: the rounds drawn as a strip of chips in brackets; pressing a checked chip (mouse
    or keyboard) flips that check, and the rounds are computed again and drawn anew."""
    pg = ready_page
    pg.evaluate("() => document.getElementById('rounds').scrollIntoView()")
    pg.wait_for_selector("#rt-pic svg .rt-chip")
    ref = examples()["ROUNDS"]
    r = py(pg, "ch3_rounds", flags=ref["flags"], gamma=ref["gamma"], c_draft=ref["c_draft"], c_verify=ref["c_verify"])
    kinds = pg.eval_on_selector_all("#rt-pic .rt-round", "gs => gs.map(g => [...g.querySelectorAll('.rt-chip')].map(c => c.getAttribute('class').split(' ')[1]))")
    # one bracket per round: gamma drafts (kept, then the refused one, then never checked) and the target's token
    assert len(kinds) == r["n_rounds"]
    for got, x in zip(kinds, r["rounds"]):
        k = x["accepted"]
        want = ["rt-kept"] * k + (["rt-refused"] + ["rt-unchecked"] * (ref["gamma"] - k - 1) if k < ref["gamma"] else [])
        assert got == want + ["rt-bonus" if x["bonus"] else "rt-correction"]
    # the first refused check, pressed with the mouse, becomes kept
    first0 = ref["flags"].index("0")
    pg.click(f"#rt-pic [data-flag='{first0}']")
    flipped = ref["flags"][:first0] + "1" + ref["flags"][first0 + 1:]
    pg.wait_for_function("(f) => document.querySelector('#rt-pic svg').dataset.flags === f", arg=flipped)
    assert pg.input_value("#rt-flags") == flipped
    assert pg.evaluate("() => document.activeElement.dataset.flag") == str(first0)
    # and back with the keyboard
    pg.keyboard.press("Enter")
    pg.wait_for_function("(f) => document.querySelector('#rt-pic svg').dataset.flags === f", arg=ref["flags"])
    # the numbers stay one click away
    assert pg.is_hidden("#rt-table") and pg.get_attribute("#rt-table", "role") == "region"


def test_the_sampling_rule_is_drawn_and_q_follows_the_reader(ready_page):
    """Issue 43: one column per token, p an outline around kept + residual; a column is a slider
    for q (arrow keys, a drag), and the rule is computed again for the new q."""
    pg = ready_page
    pg.evaluate("() => document.getElementById('sampling-rule').scrollIntoView()")
    pg.wait_for_selector("#sr-pic svg .sr-col")
    n = pg.eval_on_selector_all("#sr-pic .sr-col", "cs => cs.length")
    assert n == len(examples()["SAMPLING_PAIR"]["p"])
    # the output stacks to p: kept + added has the outline's height in every column
    heights = pg.eval_on_selector_all("#sr-pic .sr-col", """cs => cs.map(c => {
        const h = (s) => { const n = c.querySelector(s); return n ? Number(n.getAttribute('height')) : 0; };
        return [h('.sr-kept') + h('.sr-added'), h('.sr-p')]; })""")
    assert all(abs(a - b) < 1e-6 for a, b in heights), heights
    before = pg.input_value("#sr-q")
    pg.focus("#sr-pic .sr-col[data-i='1']")
    pg.keyboard.press("ArrowUp")
    pg.wait_for_function("(b) => document.querySelector('#sr-q').value !== b", arg=before)
    q = [float(x.replace(",", ".")) for x in pg.input_value("#sr-q").split(";")]
    assert q[1] == pytest.approx(examples()["SAMPLING_PAIR"]["q"][1] + 0.01, abs=1e-3) and sum(q) == pytest.approx(1, abs=2e-3)
    pg.wait_for_function("(v) => document.querySelector('#sr-pic .sr-col[data-i=\"1\"]').getAttribute('aria-valuenow') == v", arg=q[1])
    # a drag to the bottom of the first column: its q goes to (near) zero
    box = pg.eval_on_selector("#sr-pic .sr-col[data-i='0'] .sr-hit", "n => { const r = n.getBoundingClientRect(); return [r.x + r.width / 2, r.y, r.height]; }")
    pg.mouse.move(box[0], box[1] + 10)
    pg.mouse.down()
    pg.mouse.move(box[0], box[1] + box[2] + 20, steps=5)
    pg.mouse.up()
    pg.wait_for_function("() => Number(document.querySelector('#sr-pic .sr-col[data-i=\"0\"]').getAttribute('aria-valuenow')) < 0.01")
    assert pg.is_hidden("#sr-table")


def test_the_chapters_meet_the_pair_at_the_readers_temperature(ready_page):
    """Issue 41: the table of the pair's acceptance at three temperatures is in the page (the
    build's numbers), and the widget around it measures the reader's own temperature."""
    pg = ready_page
    ex = examples()["SPEC_TEMPS"]
    rows = pg.eval_on_selector_all("#ch3-temps-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent.trim()))")
    assert [r[0] for r in rows] == [f"{t:g}" for t in ex["temps"]] and all(r[1].endswith("%") for r in rows)
    pg.eval_on_selector("#spec-temps", "e => e.scrollIntoView({block: 'center'})")
    pg.fill("#st-t-num", "1.2")
    pg.click("#st-run")
    pg.wait_for_selector("#st-out[data-alpha]", timeout=120_000)
    args = {k: v for k, v in ex.items() if k != "temps"}
    want = py(pg, "ch3_alpha_at", **args, temperature=1.2)
    assert float(pg.get_attribute("#st-out", "data-alpha")) == want["alpha"]
    assert f"{100 * want['alpha']:.1f}%" in pg.text_content("#st-out")
    # the reader's run is the table's fourth row, written as the build's rows are (design N11)
    rows = pg.eval_on_selector_all("#ch3-temps-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent.trim()))")
    assert len(rows) == 4 and rows[3][0].startswith("1.2") and rows[3][1] == f"{round(100 * want['alpha'])}%"
    assert rows[3][3] == f"{want['checks']:,}"
    pg.fill("#st-t-num", "5")
    pg.click("#st-run")
    pg.wait_for_selector("#st-t-num + .field-error:not([hidden]), #spec-temps .field-error:not([hidden])")


def test_the_cost_models_chart_labels_its_lines_and_ends_with_its_data(ready_page):
    """Design review item 8: no legend to decode; each series is named on the plot (the best γ with
    its values), and the x axis stops at the last γ computed."""
    pg = ready_page
    pg.evaluate("() => document.getElementById('cost-model').scrollIntoView()")
    pg.wait_for_function("() => window.Chart && Chart.getChart(document.querySelector('#cost-model canvas'))"
                         " && Chart.getChart(document.querySelector('#cost-model canvas')).data.datasets.length")
    got = pg.evaluate("""() => { const c = Chart.getChart(document.querySelector('#cost-model canvas'));
      return { legend: c.options.plugins.legend.display, plugins: c.config.plugins.map((p) => p.id),
               labels: c.data.datasets.map((d) => d.label), xmax: c.scales.x.max,
               last: Math.max(...c.data.datasets[0].data.map((p) => p.x)) }; }""")
    assert got["legend"] is False and "decodelabDirectLabels" in got["plugins"]
    assert any(re.match(r"best: γ = \d+, [\d.]+×", lab) for lab in got["labels"]), got["labels"]
    assert got["xmax"] == got["last"]
    # the labels as drawn (charts.js writes where they went): none overlaps another
    pg.wait_for_function("() => document.querySelector('#cost-model canvas').dataset.labels")
    boxes = json.loads(pg.eval_on_selector("#cost-model canvas", "c => c.dataset.labels"))
    assert len(boxes) == len(got["labels"])
    for i, (x, y, w, h) in enumerate(boxes):
        assert not any(x < x2 + w2 and x2 < x + w and abs(y - y2) < (h + h2) / 2 for x2, y2, w2, h2 in boxes[:i]), boxes
