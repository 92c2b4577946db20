"""The speculative-decoding cost model, round table and sampling rule (issue figures)."""
import math

import pytest

from decodelab.errors import InputError
from decodelab.speculative import (evaluate, exactness_gate, expected_tokens, expected_tokens_sum,
                                   rounds_from_flags, sampling_table, sweep)


def test_figures_at_gamma_4():
    r = evaluate(0.8, 4, 0.10, 1.00)
    assert round(r["E"], 3) == 3.362 and round(r["E_sum"], 3) == 3.362
    assert round(r["cost"], 2) == 1.40 and round(r["speedup"], 2) == 2.40
    assert round(r["target_passes_per_token"], 3) == 0.416 and round(100 * r["ceiling_share"], 1) == 67.2


def test_figures_at_gamma_32():
    r = evaluate(0.8, 32, 0.10, 1.00)
    assert round(r["E"], 3) == 4.997 and round(r["cost"], 2) == 4.20 and round(r["speedup"], 2) == 1.19


def test_best_gamma_and_end_flag():
    s = sweep(0.8, 0.10, 1.00)
    assert s["best_gamma"] == 6 and round(s["best_speedup"], 2) == 2.47 and not s["best_at_end"]
    free = sweep(0.8, 0.0, 1.00)
    assert free["best_at_end"] and free["best_gamma"] == 32 and round(free["best_speedup"], 2) == 5.00


def test_round_table_from_string():
    r = rounds_from_flags("111111001110101111", 4, 0.10, 1.00)
    assert r["n_rounds"] == 6 and r["tokens"] == 20 and r["draft_passes"] == 24
    assert round(r["cost"], 2) == 8.40 and round(r["speedup"], 2) == 2.38
    assert (r["accepted"], r["flags_checked"]) == (14, 18)
    assert [x["gained"] for x in r["rounds"]] == [5, 3, 1, 4, 2, 5]
    assert [x["rejected_at"] for x in r["rounds"]] == [None, 3, 1, 4, 2, None]


def test_string_ending_inside_a_round_is_left_out():
    r = rounds_from_flags("1111" + "11", 4, 0.1, 1.0)
    assert r["n_rounds"] == 1 and r["tokens"] == 5 and r["incomplete_flags"] == "11"
    assert r["rounds"][-1]["complete"] is False


@pytest.mark.parametrize("gamma", [0, 1, 5, 32])
def test_limits(gamma):
    assert expected_tokens(1.0, gamma) == gamma + 1 == expected_tokens_sum(1.0, gamma)
    assert expected_tokens(0.0, gamma) == 1.0 == expected_tokens_sum(0.0, gamma)
    for a in (0.3, 0.9, 0.999):
        assert math.isclose(expected_tokens(a, gamma), expected_tokens_sum(a, gamma), rel_tol=1e-12)
    r = evaluate(0.5, 0, 0.2, 1.5)
    assert r["E"] == 1.0 and r["speedup"] == 1 / 1.5


def test_gate_passes_all_729_pairs():
    g = exactness_gate()
    assert g["pairs"] == 729 and g["passed"] == 729 and not g["failures"]


def test_gate_detects_a_wrong_rule(monkeypatch):
    from decodelab import speculative

    monkeypatch.setattr(speculative, "accept_probability", lambda p, q: 1)  # always accept: output = q
    assert speculative.exactness_gate()["passed"] < 729


def test_sampling_table():
    t = sampling_table([0.5, 0.3, 0.2], [0.2, 0.2, 0.6])
    assert math.isclose(t["alpha"], 0.6) and math.isclose(t["alpha"], t["one_minus_tv"])
    assert t["max_error"] < 1e-12 and t["notes"] == []
    t2 = sampling_table([2, 1, 1], [1, 1, 2])
    assert t2["notes"] and math.isclose(sum(t2["p"]), 1.0)


@pytest.mark.parametrize("call,field", [
    (lambda: rounds_from_flags("1102", 4, 0.1, 1), "flags"),
    (lambda: rounds_from_flags("", 4, 0.1, 1), "flags"),
    (lambda: rounds_from_flags("11", 40, 0.1, 1), "gamma"),
    (lambda: evaluate(1.2, 4, 0.1, 1), "alpha"),
    (lambda: evaluate(0.8, 4, 0.1, 0), "c_verify"),
    (lambda: evaluate(0.8, 4, -0.1, 1), "c_draft"),
    (lambda: evaluate(0.8, 2.5, 0.1, 1), "gamma"),
    (lambda: sampling_table([0.5, -0.1], [0.5, 0.5]), "p"),
    (lambda: sampling_table([0, 0], [0.5, 0.5]), "p"),
])
def test_bad_input_has_a_clear_message(call, field):
    with pytest.raises(InputError) as e:
        call()
    assert e.value.field == field and str(e.value)
