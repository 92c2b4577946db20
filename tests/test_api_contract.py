"""The page's contract, in CPython: every endpoint through api.dispatch, as the worker calls it.

Each endpoint gets a call with good arguments, checked for what the widget relies on, and calls
with bad arguments, checked for an InputError naming the control the message belongs beside.
A new endpoint without a contract here fails test_every_endpoint_has_a_contract.
"""
import json
import math

import pytest
from conftest import ROOT

from decodelab import api, session

CALLED: set = set()


def call(fn, **args):
    CALLED.add(fn)
    r = json.loads(api.dispatch(fn, json.dumps(args)))
    assert r["ok"], r["error"]
    return r["result"]


def error(fn, **args):
    CALLED.add(fn)
    r = json.loads(api.dispatch(fn, json.dumps(args)))
    assert not r["ok"]
    return r["error"]


@pytest.fixture(scope="module", autouse=True)
def loaded():
    paths = {"main": str(ROOT / "models" / "main.dlm"), "draft": str(ROOT / "models" / "draft.dlm")}
    info = call("load_models", paths=paths)
    assert set(info) == {"main", "draft"} and info["main"]["vocab"] == info["draft"]["vocab"]
    return info


PROMPT = "Once upon a time, there was a little girl named Lily. She"
SETTINGS = {"temperature": 0.8, "top_k": 0, "top_p": 0.95, "min_p": 0.0, "repetition_penalty": 1.0}


def test_ping_and_unknown_endpoint():
    r = call("ping")
    assert r["simd_level"] == 2 and r["kernel"] == "kernel_relaxed.wasm"
    e = error("no_such_thing")
    assert e["type"] == "LookupError"
    assert error("ping", surprise=1)["field"] == "args"


@pytest.mark.parametrize("fn, args, field", [
    ("ch1_view", {"prompt": "a" * 9000, "settings": {}}, "prompt"),
    ("ch1_view", {"prompt": "half an emoji \ud83d", "settings": {}}, "prompt"),
    ("ch1_view", {"prompt": "Once", "settings": {"temperature": 1e-10}}, "temperature"),
    ("ch1_view", {"prompt": "Once", "settings": {"temperature": 1e-30}}, "temperature"),
    ("ch2_requant", {"bits": 8, "scheme": "row", "text": "x" * 100_000}, "text"),
    ("ch3_rounds", {"flags": "1" * 100_000, "gamma": 4, "c_draft": 0.1, "c_verify": 1}, "flags"),
    ("ch3_model", {"alpha": 0.8, "gamma": 4, "c_draft": 1e308, "c_verify": 1}, "c_draft"),
    ("ch3_sampling", {"p": [1] * 20000, "q": [1] * 20000}, "p"),
    ("ch1_loops", {"openings": ["a"] * 50}, "openings"),
])
def test_every_box_has_a_bound_with_a_clear_message(fn, args, field):
    """Inputs in range used to freeze the worker for seconds (100k characters, 100k flags,
    20,000 p/q entries) or gave raw errors (division by zero, JSON's own words): each now gets
    a message for the field it came from, before any long work starts."""
    e = error(fn, **args)
    assert e["type"] == "InputError" and e["field"] == field, e
    assert "Traceback" not in e["message"] and "JSON" not in e["message"]


def test_ch1_view_distribution_adds_up_and_follows_the_filters():
    r = call("ch1_view", prompt=PROMPT, settings=SETTINGS)
    ps = [t["p"] for t in r["top"]]
    assert ps == sorted(ps, reverse=True)
    assert math.isclose(sum(ps) + r["tail"]["p"], 1.0, abs_tol=1e-6)
    assert math.isclose(r["eff"], math.exp(r["entropy"]))
    k5 = call("ch1_view", prompt=PROMPT, settings={**SETTINGS, "top_k": 5, "top_p": 1.0})
    assert k5["survivors"] == 5 and sum(t["kept"] for t in k5["top"]) == 5
    assert math.isclose(sum(t["q"] for t in k5["top"]), 1.0, abs_tol=1e-9)
    greedy = call("ch1_view", prompt=PROMPT, settings={**SETTINGS, "temperature": 0})
    assert greedy["survivors"] == 1 and greedy["top"][0]["id"] == r["greedy"]


@pytest.mark.parametrize("settings, field", [({"temperature": -1}, "temperature"), ({"top_p": 0}, "top_p"),
                                             ({"top_k": 2.5}, "top_k"), ({"min_p": 2}, "min_p"),
                                             ({"repetition_penalty": 0.5}, "repetition_penalty"),
                                             ({"temperature": "hot"}, "temperature"), ({"nope": 1}, "nope")])
def test_ch1_view_bad_settings_name_their_control(settings, field):
    e = error("ch1_view", prompt=PROMPT, settings={**SETTINGS, **settings})
    assert e["type"] == "InputError" and e["field"] == field and e["message"]


def test_ch1_draw_is_seeded_and_equals_the_shared_loop():
    a = call("ch1_draw", prompt=PROMPT, settings=SETTINGS, seed=3, n=12)
    b = call("ch1_draw", prompt=PROMPT, settings=SETTINGS, seed=3, n=12)
    c = call("ch1_draw", prompt=PROMPT, settings=SETTINGS, seed=4, n=12)
    assert a["tokens"] == b["tokens"] != c["tokens"] and len(a["tokens"]) == 12
    assert all(0 < s["p"] <= 1 for s in a["steps"])
    assert error("ch1_draw", prompt=PROMPT, settings=SETTINGS, seed=-1, n=1)["field"] == "seed"
    assert error("ch1_draw", prompt=PROMPT, settings=SETTINGS, seed=1, n=500)["field"] == "n"
    assert error("ch1_draw", prompt="x " * 900, settings=SETTINGS, seed=1, n=1)["field"] == "prompt"


def test_ch1_tokenize_round_trips():
    r = call("ch1_tokenize", prompt=PROMPT)
    assert "".join(r["texts"]) == PROMPT and len(r["ids"]) == len(r["texts"])


def test_ch1_four_columns_share_one_stream():
    r = call("ch1_four", prompt="Once upon a time", temps=[0.01, 0.02, 1.0, 1.5], seed=7, n=20)
    cols = r["columns"]
    assert [c["temperature"] for c in cols] == [0.01, 0.02, 1.0, 1.5]
    assert cols[0]["tokens"] == cols[1]["tokens"]  # both all but greedy
    assert cols[0]["surprise"] < cols[3]["surprise"]
    assert error("ch1_four", prompt="Once", temps=[0.5, -1], seed=1)["field"] == "temps.1"


def test_ch1_loops_flags_repeats():
    r = call("ch1_loops", openings=["Once upon a time"], n=60)
    col = r["columns"][0]
    assert len(col["repeat"]) == len(col["tokens"]) == 60
    assert 0 <= col["repeat_share"] <= 1
    assert error("ch1_loops", openings=["a"], n=10, penalty=0.1)["field"] == "repetition_penalty"


def test_ch1_long_stops_at_the_end_token_or_slides():
    r = call("ch1_long", prompt="Once upon a time", seed=2, n=300, stop_at_end=True)
    assert r["stop_reason"] in ("stop_token", "length")
    if r["stop_reason"] == "stop_token":
        assert r["tokens"][-1] == r["end_token"]
    long = call("ch1_long", prompt="Once upon a time", seed=2, n=700, stop_at_end=False)
    assert long["slides"] >= 1 and len(long["tokens"]) == 700 and long["cache_len"] <= long["context"]
    assert error("ch1_long", prompt="a", seed=1, n=0, stop_at_end=True)["field"] == "n"


def test_run_cell_prints_and_reports_errors():
    assert call("run_cell", code="print(6 * 7)")["output"].strip() == "42"
    r = call("run_cell", code="1/0")
    assert not r["ok"] and "ZeroDivisionError" in r["output"]
    assert error("run_cell", code="   ")["field"] == "code"


def test_ch2_kv_race_counts_passes():
    r = call("ch2_kv_race", prompt="The dog ran", n=10)
    P, n = r["prompt_tokens"], 10
    assert r["same_output"]
    assert r["with_cache"]["passes"] == r["formula_with"] == P + n - 1
    assert r["without_cache"]["passes"] == r["formula_without"] == n * P + n * (n - 1) // 2
    one = call("ch2_kv_race", prompt="The dog ran", n=1)
    assert one["with_cache"]["passes"] == one["without_cache"]["passes"] == one["prompt_tokens"]
    assert error("ch2_kv_race", prompt="x", n=0)["field"] == "n"


def test_ch2_outliers_and_requant():
    r = call("ch2_outliers", rows=8, cols=64, outlier=50.0)
    assert r and isinstance(r, dict)
    assert error("ch2_outliers", rows=8, cols=64, outlier=0)["field"] == "outlier"
    base = call("ch2_requant", bits=8, scheme="row")
    low = call("ch2_requant", bits=2, scheme="row")
    assert base["story"]["surprise"] < low["story"]["surprise"]
    assert error("ch2_requant", bits=1, scheme="row")["field"] == "bits"
    assert error("ch2_requant", bits=4, scheme="diagonal")["field"] == "scheme"
    # the bit-depth copy is private: the panel still sees the shipped weights
    assert call("ch2_requant", bits=8, scheme="row")["story"] == base["story"]


def test_ch2_speed_same_text_on_every_kernel():
    a = call("ch2_speed", variant="main", n=16, warmup=0)
    b = call("ch2_speed", variant="scalar", n=16, warmup=0)
    assert a["text"] == b["text"] and a["tokens"] == 16 and a["tps"] > 0
    assert error("ch2_speed", variant="gpu")["field"] == "variant"
    assert error("ch2_speed", variant="jsmatvec")["type"] == "KernelError"  # the browser alone has it


def test_ch3_cost_model_rounds_sampling_and_gate():
    m = call("ch3_model", alpha=0.8, gamma=4, c_draft=0.1, c_verify=1.0)
    assert math.isclose(m["point"]["E"], (1 - 0.8 ** 5) / 0.2)
    assert error("ch3_model", alpha=1.5, gamma=4, c_draft=0.1, c_verify=1.0)["field"] == "alpha"
    r = call("ch3_rounds", flags="1101", gamma=2, c_draft=0.1, c_verify=1.0)
    assert r
    s = call("ch3_sampling", p=[0.5, 0.3, 0.2], q=[0.2, 0.3, 0.5])
    assert s["max_error"] < 1e-12 and math.isclose(s["alpha"], s["one_minus_tv"])
    assert error("ch3_sampling", p=[0.5, "x"], q=[0.5, 0.5])["field"] == "p"
    assert call("ch3_gate")


def test_ch3_live_greedy_is_the_targets_text():
    r = call("ch3_live", prompt="Once upon a time", gamma=3, n=24, mode="greedy", seed=1)
    assert r["same_as_target"] is True and 0 < r["alpha"] < 1 and r["tokens_per_round"] >= 1
    assert error("ch3_live", prompt="Once", gamma=99, n=10)["field"] == "gamma"
    assert error("ch3_live", prompt="Once", gamma=2, n=10, mode="wild")["field"] == "mode"


def test_kernel_check_and_benches():
    k = call("kernel_check", rows=8, cols=40, seed=1)
    assert len(k["exact"]) == 8 and k["exact_rel_err"] < 1e-6 and k["fast_rel_err"] < 0.05
    assert error("kernel_check", rows=0, cols=4)["field"] == "rows"
    assert error("kernel_check", rows=4, cols=5000)["field"] == "cols"
    assert call("bench_generate", n=8, mode="greedy")["tokens"] == 8
    assert call("bench_sampler", n=60)["step_ms"] > 0
    assert call("bench_requant")["restore_ms"] >= 0


def test_every_endpoint_has_a_contract():
    """Runs last in this file: every registered endpoint was called above."""
    assert set(session.ENDPOINTS) - CALLED == set()
