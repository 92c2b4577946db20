"""End-to-end, chapters 2 and 3: every widget on the live page, plus the bit-depth ordering."""
import pytest
from conftest import ROOT, py


def test_kv_race_same_output_and_pass_counts(ready_page):
    pg = ready_page
    pg.fill("#kv-n", "20")
    pg.click("#kv-run")
    pg.wait_for_selector("#kv-mem[data-same]")
    assert pg.get_attribute("#kv-mem", "data-same") == "true"
    r = py(pg, "ch2_kv_race", prompt="The dog ran", n=12)
    P, n = r["prompt_tokens"], 12
    # with the cache: P prompt positions + n-1 new ones fed; without: recompute P + i for i = 0..n-1
    assert r["with_cache"]["passes"] == r["formula_with"] == P + n - 1
    assert r["without_cache"]["passes"] == sum(P + i for i in range(n))
    assert r["same_output"]
    pg.fill("#kv-n", "0")
    pg.click("#kv-run")
    pg.wait_for_selector("#kv-n + .field-error:not([hidden])")


def test_outliers_row_scales_win(ready_page):
    pg = ready_page
    pg.eval_on_selector("#outliers", "e => e.scrollIntoView()")  # a widget far down computes once near
    pg.wait_for_selector("#ol-pic svg")
    r = py(pg, "ch2_outliers", rows=64, cols=256, outlier=40.0)
    assert r["matrix"]["mean_abs_error"] > 3 * r["row"]["mean_abs_error"]
    assert r["matrix"]["outlier_row_error"] >= r["row"]["outlier_row_error"] * 0.999
    # the picture (issue 43): an ordinary row over each scheme's comb; the matrix's step is the
    # planted outlier over 127, and a bigger outlier widens it and moves the weights' landings
    pic = r["picture"]
    assert pic["row"] != 32 and abs(pic["steps"]["matrix"] - 40.0 / 127) < 1e-9
    assert all(abs(w - q) <= pic["steps"]["row"] / 2 + 1e-12 for w, q in zip(pic["weights"], pic["rounded"]["row"]))
    step = lambda: float(pg.get_attribute("#ol-pic .ol-strip[data-scheme='matrix']", "data-step"))
    lands = lambda: pg.eval_on_selector_all("#ol-pic .ol-matrix .ol-land", "cs => cs.map(c => c.getAttribute('cx'))")
    before, where = step(), lands()
    assert len(where) == len(pic["weights"])
    pg.eval_on_selector("#ol-outlier", "e => { e.value = 2.9; e.dispatchEvent(new Event('input')); }")
    pg.wait_for_function(f"() => Number(document.querySelector(\"#ol-pic .ol-strip[data-scheme='matrix']\").dataset.step) > {before * 5}")
    assert lands() != where
    assert step() == pytest.approx(10 ** 2.9 / 127, rel=1e-4)
    assert pg.eval_on_selector("#ol-pic svg", "s => s.getAttribute('aria-label')")


def test_bit_depth_widget_and_restore(ready_page):
    pg = ready_page
    story = {}
    for bits in (8, 4, 2):
        story[bits] = py(pg, "ch2_requant", bits=bits, scheme="row")["story"]["surprise"]
    assert story[2] > story[4] >= story[8] - 1e-9
    restored = py(pg, "ch2_requant", bits=8, scheme="row")["story"]["surprise"]
    assert restored == story[8]  # the shipped weights come back exactly
    # the widget's arrival (8 bits, then the first depth that costs) runs once it nears the screen;
    # a click while it runs is not taken, so wait for it to finish first
    pg.eval_on_selector("#bit-depth", "e => e.scrollIntoView()")
    pg.wait_for_function("() => document.querySelectorAll('#bd-table tr').length >= 3"
                         " && !document.querySelector('#bd-apply').disabled")
    pg.eval_on_selector("#bd-bits", "e => { e.value = 3; e.dispatchEvent(new Event('input')); }")
    pg.click("#bd-apply")
    pg.wait_for_function("() => document.querySelectorAll('#bd-table tr').length >= 2")
    pg.wait_for_function("() => [...document.querySelectorAll('#bd-table tr')].some(r => r.cells[0].textContent === '3')")
    row = pg.eval_on_selector_all("#bd-table tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    three = next(r for r in row if r[0] == "3")
    assert float(three[2]) == round(py(pg, "ch2_requant", bits=3, scheme="row")["story"]["surprise"], 3)
    assert float(three[2]) > story[4]
    # the picture (issue 43): a line per scheme the export measured, and the 3-bit run ringed on its line
    facts = py(pg, "ch2_facts")["heldout"]
    lines = pg.eval_on_selector_all("#bd-pic .bl-line", "ls => ls.map(l => l.dataset.scheme)")
    assert sorted(lines) == sorted(facts["delta"])
    pg.wait_for_selector("#bd-pic .bl-run[data-run='3:row']")
    ring = pg.eval_on_selector("#bd-pic .bl-run[data-run='3:row']", "c => Number(c.getAttribute('cy'))")
    dots = pg.eval_on_selector_all("#bd-pic .bl-dot.bl-row", "ds => ds.map(d => [Number(d.getAttribute('cx')), Number(d.getAttribute('cy'))])")
    assert any(abs(cy - ring) < 1e-6 for _, cy in dots)
    py(pg, "ch2_requant", bits=8, scheme="row")
    pg.click("#bd-back")
    pg.wait_for_function("() => document.querySelectorAll('#bd-table tr').length >= 3")


def test_cost_model_sliders_move_curve_and_peak(ready_page):
    pg = ready_page
    pg.eval_on_selector("#cost-model", "e => e.scrollIntoView()")  # a chapter off screen is not laid out: no innerText
    pg.wait_for_selector("#cm-peak[data-best]")
    assert pg.get_attribute("#cm-peak", "data-best") == "6"
    assert pg.text_content("#cm-speedup") == "2.40×"
    pg.fill("#cm-c_draft-num", "0")
    pg.wait_for_function("() => document.querySelector('#cm-peak').dataset.best === '32'")
    assert "true peak may lie further" in pg.inner_text("#cm-peak")
    pg.fill("#cm-alpha-num", "1.5")
    pg.wait_for_selector("#cm-alpha-num + .field-error:not([hidden])")
    pg.fill("#cm-alpha-num", "0.5")
    pg.wait_for_function("() => document.querySelector('#cm-alpha-num + .field-error').hidden")
    pg.click("#cm-preset-0")
    pg.wait_for_function("() => document.querySelector('#cm-peak').dataset.best === '6'")


@pytest.mark.parametrize("box,value", [("cm-alpha-num", "0.0001"), ("cm-alpha-num", "1e-5"), ("cm-alpha-num", "0.999"),
                                       ("cm-c_verify-num", "10"), ("cm-c_verify-num", "1000"), ("cm-c_draft-num", "0.0001")])
def test_every_value_the_cost_model_accepts_typesets(ready_page, box, value):
    """A value the boxes accept renders as a formula: TeX numbers (m × 10^e), never the prose's
    superscripts, never raw TeX in the page, no CSP violation (KaTeX's error span has an inline style)."""
    pg = ready_page
    pg.eval_on_selector("#cost-model", "e => e.scrollIntoView()")
    pg.wait_for_selector("#cm-formula .katex")
    before = pg.evaluate("window.__cspViolations.length")
    src, cost = pg.get_attribute("#cm-formula", "data-src"), pg.text_content("#cm-cost")
    pg.fill(f"#{box}", value)
    if box == "cm-alpha-num":  # the formula holds α: wait for the new one
        pg.wait_for_function("(old) => document.querySelector('#cm-formula').dataset.src !== old", arg=src)
    else:  # the formula does not hold the costs: wait for the figures to be redrawn
        pg.wait_for_function("(old) => document.querySelector('#cm-cost').textContent !== old", arg=cost)
    pg.wait_for_function("() => document.querySelector('#cm-formula .katex') || document.querySelector('#cm-formula').dataset.texFailed")
    shown = pg.inner_text("#cm-formula")
    assert pg.get_attribute("#cm-formula", "data-tex-failed") is None, shown
    assert "\\sum" not in shown and "\\frac" not in shown and "⁻" not in pg.get_attribute("#cm-formula", "data-src")
    assert pg.evaluate("window.__cspViolations.length") == before
    pg.click("#cm-preset-0")
    pg.wait_for_function("() => document.querySelector('#cm-peak').dataset.best === '6'")


def test_round_table_and_bad_string(ready_page):
    pg = ready_page
    pg.eval_on_selector("#rounds", "e => e.scrollIntoView()")  # a widget far down computes once near
    pg.wait_for_selector("#rt-totals[data-speedup]")
    assert pg.get_attribute("#rt-totals", "data-speedup") == "2.38"
    pg.fill("#rt-flags", "11x01")
    pg.wait_for_selector("#rt-flags + .field-error:not([hidden])")
    assert "only 0 and 1" in pg.inner_text("#rt-flags + .field-error")
    pg.fill("#rt-flags", "1111")
    pg.wait_for_function("() => document.querySelector('#rt-flags + .field-error').hidden")


def test_sampling_rule_and_gate(ready_page):
    pg = ready_page
    pg.eval_on_selector("#sampling-rule", "e => e.scrollIntoView()")  # a widget far down computes once near
    pg.wait_for_selector("#sr-table table", state="attached")  # in its closed disclosure, under the picture
    pg.wait_for_selector("#sr-pic svg .sr-col")
    pg.click("#sr-gate")
    pg.wait_for_selector("#sr-gate-out[data-passed]")
    assert pg.get_attribute("#sr-gate-out", "data-passed") == "729"
    pg.fill("#sr-q", "0.5, -1")
    pg.wait_for_selector("#sr-q + .field-error:not([hidden])")


def test_live_panel_reports_measured_alpha(ready_page):
    """Greedy acceptance is deterministic: the page's alpha is the one CPython measures."""
    pg = ready_page
    pg.fill("#ls-gamma", "3")
    pg.click("#ls-run")
    pg.wait_for_selector("#ls-out[data-alpha]", timeout=120_000)
    alpha = float(pg.get_attribute("#ls-out", "data-alpha"))
    assert "token for token" in pg.inner_text("#ls-out")
    import json

    from decodelab import api

    api.dispatch("load_models", json.dumps({"paths": {n: str(ROOT / "models" / f"{n}.dlm") for n in ("main", "draft")}}))
    want = json.loads(api.dispatch("ch3_live", json.dumps({"prompt": "Once upon a time, there was a little girl named Lily.",
                                                           "gamma": 3, "n": 60, "mode": "greedy", "seed": 5})))
    assert alpha == want["result"]["alpha"]


def test_speed_race_runs_all_three_kernels(ready_page):
    pg = ready_page
    pg.click("#speed-run")
    pg.wait_for_selector("#speed-out[data-ratio]", timeout=180_000)
    assert pg.eval_on_selector_all("#speed-table tr", "rows => rows.length") == 4
    texts = {v: py(pg, "ch2_speed", variant=v, n=12)["text"] for v in ("main", "scalar", "jsmatvec")}
    # the same model and the same greedy rule: all three kernels write the same text
    assert texts["main"] == texts["scalar"] == texts["jsmatvec"]


def test_bit_depth_does_not_touch_the_other_widgets(ready_page):
    pg = ready_page
    s = {"temperature": 0.0}
    before = py(pg, "ch1_draw", prompt="Once upon a time", settings=s, seed=1, n=12)["tokens"]
    py(pg, "ch2_requant", bits=2, scheme="matrix")
    after = py(pg, "ch1_draw", prompt="Once upon a time", settings=s, seed=1, n=12)["tokens"]
    py(pg, "ch2_requant", bits=8, scheme="row")
    assert before == after
