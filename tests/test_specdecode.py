"""Live speculative decoding with the shipped draft and target (wasmtime).

* Greedy: the output must be token for token the target's own greedy output.
* Sampling: the first token of a speculative round must follow the target's sampling
  distribution. 4000 independent rounds (seeds 0..3999) from one prompt, gamma = 2, T = 1 with
  top-k 40 (so the exact target distribution has 40 entries); the counts of the 10 most likely
  tokens plus an 'other' bin are compared with the expected counts by a chi-square test with 10
  degrees of freedom at a false-alarm rate of 0.1% (threshold 29.59). A wrong rule, such as
  keeping every draft, is rejected (the test below checks the test).
"""
from pathlib import Path

import pytest

from decodelab import sampler as S
from decodelab.engine import Engine
from decodelab.specdecode import SpecDecoder, final_distribution

MODELS = Path(__file__).resolve().parents[1] / "models"
CHI2_10_DF_P001 = 29.59


@pytest.fixture(scope="module")
def pair(kernel):
    return Engine.from_file(kernel, MODELS / "main.dlm"), Engine.from_file(kernel, MODELS / "draft.dlm")


@pytest.mark.parametrize("gamma", [0, 1, 2, 4, 7])
def test_greedy_speculation_is_the_targets_greedy_text(pair, gamma):
    t, d = pair
    prompt = t.tokenizer.encode("Once upon a time, there was a little girl named Lily.")
    base = t.generate(prompt, 50, lambda src, h: (S.greedy(src, h), None)).tokens
    r = SpecDecoder(t, d).generate(prompt, 50, gamma)
    assert r["tokens"] == base
    if gamma:
        assert 0 <= r["acceptance"] <= 1 and len(r["acceptance_by_position"]) == gamma


def first_token_counts(t, d, settings, n, monkeypatch=None):
    prompt = t.tokenizer.encode("One day, a little dog named")
    dec = SpecDecoder(t, d)
    counts = {}
    for seed in range(n):
        tok = dec.generate(prompt, 1, 2, settings, seed=seed)["tokens"][0]
        counts[tok] = counts.get(tok, 0) + 1
    t.reset()
    logits = t.feed(prompt)
    p = final_distribution(t.logit_source(0, logits), [t.eot] + prompt, settings)
    return counts, p


def chi2(counts, p, n):
    top = sorted(p, key=lambda k: -p[k])[:10]
    stat = 0.0
    for tok in top:
        e = n * p[tok]
        stat += (counts.get(tok, 0) - e) ** 2 / e
    e_rest = n * (1 - sum(p[t] for t in top))
    o_rest = n - sum(counts.get(t, 0) for t in top)
    return stat + (o_rest - e_rest) ** 2 / e_rest


SETTINGS = S.Settings(temperature=1.0, top_k=40, top_p=1.0)


@pytest.mark.slow  # 4000 speculative rounds, about 35 s
def test_sampled_tokens_follow_the_target_distribution(pair):
    t, d = pair
    n = 4000
    counts, p = first_token_counts(t, d, SETTINGS, n)
    assert set(counts) <= set(p)  # nothing outside the target's support
    assert chi2(counts, p, n) < CHI2_10_DF_P001


@pytest.mark.slow  # 4000 speculative rounds, about 35 s
def test_the_statistical_test_catches_a_wrong_rule(pair, monkeypatch):
    import decodelab.specdecode as sd

    t, d = pair
    monkeypatch.setattr(sd, "accept_probability", lambda px, qx: 1)  # keep every draft: output follows q
    n = 4000
    counts, p = first_token_counts(t, d, SETTINGS, n)
    assert chi2(counts, p, n) > CHI2_10_DF_P001
