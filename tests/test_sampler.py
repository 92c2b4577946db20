"""The sampler: properties (hypothesis) on the pure-Python source, and equivalence of the
kernel-backed source on our model's real logits."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import assume, given, strategies as st

from decodelab.sampler import ListLogits, Rng, SamplerError, Settings, make_settings, sample_step, sample_token

logit = st.floats(min_value=-20, max_value=20, allow_nan=False, allow_infinity=False, width=32)
logit_lists = st.lists(logit, min_size=2, max_size=40)


def naive_distribution(z, s, history=()):
    """The oracle: a sampler written the obvious way, nanoGPT-style, over the whole vocabulary in
    float64, with nothing clever (no lazy probabilities, no bisect, no partial fetches).
    Returns {token: final probability} of the survivors, best first (by logit, ties to the lower id)."""
    z = list(map(float, z))
    for t in set(list(history)[-s.penalty_window:] if s.penalty_window else []):  # 1. penalty
        z[t] = z[t] / s.repetition_penalty if z[t] > 0 else z[t] * s.repetition_penalty
    if s.temperature == 0:
        return {max(range(len(z)), key=lambda i: (z[i], -i)): 1.0}
    filtering = s.top_k > 0 or s.top_p < 1 or s.min_p > 0
    t_first = 1.0 if (s.temperature_last and filtering) else s.temperature
    order = sorted(range(len(z)), key=lambda i: (-z[i], i))     # best first, ties to the lower id
    m = max(z)
    w = {i: math.exp((z[i] - m) / t_first) for i in order}         # 2. temperature and softmax
    tot = sum(w.values())
    p = {i: w[i] / tot for i in order}
    keep = order[:s.top_k] if s.top_k else order                   # 3. top-k
    if s.top_p < 1:                                                # 4. top-p over the top-k set
        mass, run, cut = sum(p[i] for i in keep), 0.0, []
        for i in keep:
            cut.append(i)
            run += p[i]
            if run >= s.top_p * mass:
                break
        keep = cut
    if s.min_p > 0:                                                # 5. min-p
        keep = [i for i in keep if p[i] >= s.min_p * p[order[0]]] or keep[:1]
    if s.temperature_last and filtering:                           # temperature on the survivors
        w = {i: math.exp((z[i] - z[keep[0]]) / s.temperature) for i in keep}
        tot = sum(w.values())
        return {i: w[i] / tot for i in keep}
    tot = sum(p[i] for i in keep)                                  # 6. renormalise
    return {i: p[i] / tot for i in keep}


def full(z, s, history=(), rng=None):
    """A step whose head covers the whole vocabulary."""
    return sample_step(ListLogits(z), list(history), s, rng, head_size=len(z), fetch_all=True)


@given(logit_lists, st.floats(0.05, 4.0), st.integers(0, 10), st.floats(0.05, 1.0), st.floats(0, 0.5))
def test_final_distribution_sums_to_one(z, t, k, p, mp):
    r = full(z, Settings(temperature=t, top_k=k, top_p=p, min_p=mp))
    assert math.isclose(sum(q for _, _, q in r.head), 1.0, rel_tol=1e-9)
    assert math.isclose(sum(pb for _, pb, _ in r.head), 1.0, rel_tol=1e-9)
    assert r.survivors == sum(1 for *_, q in r.head if q > 0) or r.survivors == len(z)
    assert 0 <= r.cut_mass <= 1 and r.survivors >= 1
    assert math.isclose(r.cut_mass, 1 - sum(pb for _, pb, q in r.head if q > 0), abs_tol=1e-9)


@given(logit_lists, st.floats(0.05, 4.0), st.floats(0.05, 4.0))
def test_temperature_keeps_the_order(z, t1, t2):
    a = [i for i, *_ in full(z, Settings(temperature=t1, top_p=1)).head]
    b = [i for i, *_ in full(z, Settings(temperature=t2, top_p=1)).head]
    assert a == b == sorted(range(len(z)), key=lambda i: (-z[i], i))


@given(logit_lists, st.integers(0, 2**32 - 1))
def test_low_temperature_is_greedy(z, seed):
    best = max(range(len(z)), key=lambda i: (z[i], -i))
    gap = z[best] - max(v for i, v in enumerate(z) if i != best)
    assume(gap > 0.01)
    t = gap / 60  # the runner-up is e^-60 times less likely
    r = full(z, Settings(temperature=t, top_p=1), rng=Rng(seed))
    assert r.token == best == full(z, Settings(temperature=0)).token


@given(logit_lists, st.floats(0.05, 4.0))
def test_neutral_filters_change_nothing(z, t):
    r = full(z, Settings(temperature=t, top_k=0, top_p=1.0, min_p=0.0))
    assert r.survivors == len(z) and r.cut_mass == 0.0
    assert all(math.isclose(pb, q, rel_tol=1e-12) for _, pb, q in r.head)
    assert math.isclose(r.entropy, r.entropy_full, rel_tol=1e-9, abs_tol=1e-12)


@given(logit_lists, st.floats(0.05, 4.0), st.floats(0.01, 0.99))
def test_top_p_keeps_the_minimal_head(z, t, p):
    r = full(z, Settings(temperature=t, top_p=p))
    probs = [pb for _, pb, _ in r.head]
    m = r.survivors
    assert sum(probs[:m]) >= p * (1 - 1e-12)
    assert sum(probs[:m - 1]) < p  # one token fewer would not reach p: minimal


@given(logit_lists, st.floats(0.05, 4.0), st.integers(0, 10), st.floats(0.05, 1.0), st.floats(0, 0.5), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_sample_token_draws_what_sample_step_draws(z, t, k, p, mp, last, seed):
    """The generation loop's lean path picks exactly the token of the full step."""
    s = Settings(temperature=t, top_k=k, top_p=p, min_p=mp, temperature_last=last)
    assert sample_token(ListLogits(z), [], s, Rng(seed)) == sample_step(ListLogits(z), [], s, Rng(seed)).token


@given(logit_lists, st.floats(0.05, 4.0), st.integers(0, 10), st.floats(0.05, 1.0), st.floats(0, 0.5), st.booleans(),
       st.floats(1.0, 2.0), st.lists(st.integers(0, 39), max_size=10))
def test_sampler_equals_the_naive_oracle(z, t, k, p, mp, last, r, hist):
    s = Settings(temperature=t, top_k=k, top_p=p, min_p=mp, temperature_last=last, repetition_penalty=r)
    hist = [h for h in hist if h < len(z)]
    want = naive_distribution(z, s, hist)
    got = {i: q for i, _, q in full(z, s, hist).head if q > 0}
    # the cut can differ only where a running sum lands within rounding of p (float64)
    if set(got) != set(want):
        probs = sorted(naive_distribution(z, Settings(temperature=t if not last else 1.0, top_p=1.0), hist).values(),
                       reverse=True)
        run = 0.0
        near = False
        for q in probs:
            run += q
            near |= abs(run - p) < 1e-9 or abs(q - mp * probs[0]) < 1e-12
        assume(not near)
    assert set(got) == set(want)
    assert all(math.isclose(got[i], want[i], rel_tol=1e-9, abs_tol=1e-15) for i in want)


@given(logit_lists, st.floats(0.05, 4.0), st.integers(0, 2**32 - 1))
def test_draw_equals_the_oracles_interval_draw(z, t, seed):
    """A draw is u's interval in the running sum of the final distribution, tokens best first."""
    s = Settings(temperature=t, top_p=0.9)
    want = naive_distribution(z, s)
    u = Rng(seed).random()
    run, pick = 0.0, None
    for i, q in want.items():  # best first, by logit: equal probabilities keep the logits' order
        run += q
        if run >= u:
            pick = i
            break
    assume(pick is not None and abs(run - u) > 1e-12)
    assert sample_token(ListLogits(z), [], s, Rng(seed)) == pick


def test_ties_at_the_cut_go_to_the_lower_id():
    z = [1.0, 3.0, 3.0, 3.0, 0.0]
    r = full(z, Settings(temperature=1.0, top_k=2))
    kept = [i for i, _, q in r.head if q > 0]
    assert kept == [1, 2]
    assert full(z, Settings(temperature=0)).token == 1


@given(st.lists(logit, min_size=8, max_size=30), st.lists(st.integers(0, 7), min_size=1, max_size=6),
       st.floats(1.01, 3.0))
def test_penalty_touches_only_recent_tokens(z, recent, r):
    window = 4
    history = [7] * 10 + recent  # token 7 only outside the last `window` unless it recurs in `recent`
    hist_recent = set(history[-window:])
    base = full(z, Settings(temperature=1.0, top_p=1))
    pen = full(z, Settings(temperature=1.0, top_p=1, repetition_penalty=r, penalty_window=window), history)
    pb = {i: p for i, p, _ in base.head}
    pp = {i: p for i, p, _ in pen.head}
    untouched = [i for i in range(len(z)) if i not in hist_recent]
    if len(untouched) >= 2:
        a, b = untouched[0], untouched[1]
        assert math.isclose(pb[a] / pb[b], pp[a] / pp[b], rel_tol=1e-9)  # ratios among untouched tokens kept
    for i in hist_recent:
        assert pp[i] / pp[untouched[0]] <= pb[i] / pb[untouched[0]] * (1 + 1e-9)  # recent tokens only lose


@pytest.mark.parametrize("field,value,msg", [
    ("temperature", -0.1, "temperature"), ("temperature", float("nan"), "NaN"),
    ("top_k", -1, "top-k"), ("top_k", 2.5, "whole number"),
    ("top_p", 0.0, "top-p"), ("top_p", 1.5, "top-p"),
    ("min_p", -0.2, "min-p"), ("repetition_penalty", 0.9, "repetition penalty"),
    ("repetition_penalty", float("nan"), "NaN"), ("temperature", "hot", "number"),
])
def test_invalid_settings_raise_one_clear_error(field, value, msg):
    with pytest.raises(SamplerError) as e:
        make_settings(**{field: value})
    assert e.value.field == field and msg in english(e.value.payload())


def english(msg: dict) -> str:
    """An error's message as the English page shows it (en.txt's entry, its {names} filled; a
    nested message rendered in turn)."""
    import re

    from decodelab_tools import texts

    en = texts.load("en")

    def arg(v):
        return english(v) if isinstance(v, dict) else str(v)
    return re.sub(r"\{([a-zA-Z_]\w*)\}", lambda m: arg(msg.get("args", {})[m.group(1)]), en[msg["key"]])


def test_seeded_draws_repeat_and_follow_the_distribution():
    z = [math.log(w) for w in (0.5, 0.25, 0.15, 0.1)]
    s = Settings(temperature=1.0, top_p=1)
    draws = [full(z, s, rng=rng).token for rng in [Rng(42)] for _ in range(20000)]
    again = [full(z, s, rng=rng).token for rng in [Rng(42)] for _ in range(200)]
    assert draws[:200] == again
    for tok, w in enumerate((0.5, 0.25, 0.15, 0.1)):
        sd = math.sqrt(20000 * w * (1 - w))
        assert abs(draws.count(tok) - 20000 * w) < 5 * sd  # false alarm ~ 6e-7 per token


def test_rng_is_uniform_and_seed_dependent():
    a = Rng(1)
    xs = [a.random() for _ in range(20000)]
    assert all(0 <= x < 1 for x in xs)
    counts = [0] * 10
    for x in xs:
        counts[int(x * 10)] += 1
    chi2 = sum((c - 2000) ** 2 / 2000 for c in counts)
    assert chi2 < 33.7  # 9 degrees of freedom, p = 1e-4
    assert [Rng(1).next_u32() for _ in range(3)] != [Rng(2).next_u32() for _ in range(3)]


# ---- the kernel-backed source agrees with the pure-Python one on real logits ----------------------

MODELS = Path(__file__).resolve().parents[1] / "models"
SETTINGS = [Settings(), Settings(top_k=40), Settings(top_p=1.0), Settings(min_p=0.05, top_p=1.0),
            Settings(repetition_penalty=1.3, top_k=50, top_p=0.9), Settings(temperature=1.6, top_p=0.99),
            Settings(temperature_last=True, top_k=10, temperature=1.5), Settings(temperature=0),
            Settings(temperature=0, repetition_penalty=2.0), Settings(temperature=0.3, top_p=1.0, min_p=0.0)]


@pytest.fixture(scope="module")
def model(kernel):
    from decodelab.engine import Engine

    return Engine.from_file(kernel, MODELS / "main.dlm")


@pytest.mark.parametrize("s", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
def test_kernel_source_equals_python_source(model, s):
    ids = [model.eot] + model.tokenizer.encode("Once upon a time, there was a girl named Lily. Lily loved")
    model.clear()
    logits = model.feed(ids)
    for seed in range(5):
        a = sample_step(model.logit_source(), ids, s, Rng(seed))
        b = sample_step(ListLogits(logits, unpenalised=(model.eot,)), ids, s, Rng(seed))
        assert sample_token(model.logit_source(), ids, s, Rng(seed)) == a.token
        assert (a.token, a.survivors) == (b.token, b.survivors)
        # the kernel sums in double, with its own e^x and in its own order (1e-14), but the
        # penalty's values reach it as float32 (Python's are doubles): 1e-9
        assert math.isclose(a.prob, b.prob, rel_tol=1e-9)
        assert math.isclose(a.cut_mass, b.cut_mass, rel_tol=1e-9, abs_tol=1e-10)
        # (near-certain distributions: the entropy is a difference of two tiny numbers)
        assert math.isclose(a.entropy_full, b.entropy_full, rel_tol=1e-9, abs_tol=1e-12)


def test_argmax_is_the_top_token_with_ties_to_the_lower_id(model):
    from array import array

    vals = array("f", [0.5, 2.0, 1.0, 2.0] + [0.0] * (model.vocab - 4))
    ptr = model.k.alloc(4 * model.vocab)
    model.k.put(ptr, vals)
    from decodelab.engine import KernelLogits

    src = KernelLogits(model.k, model.vocab, ptr).bind(vals, ptr)
    assert src.argmax() == 1 == src.prepare(0.0, {}, 1)[0][0] == ListLogits(vals).argmax()
    logits = model.feed([5, 6, 7])
    src = model.logit_source(0, logits)
    assert src.argmax() == src.prepare(0.0, {}, 1)[0][0] == ListLogits(logits).argmax()


@pytest.mark.parametrize("t", [0.3, 1.0, 1.7])
def test_rank_curve_matches_the_sampler(model, t):
    """The panel's probability-by-rank curve (kernel, double exponentials) against the sampler's
    own full distribution (Python, float64)."""
    from decodelab.ch1 import rank_sample

    ids = [model.eot] + model.tokenizer.encode("Once upon a time, there was a")
    logits = model.feed(ids)
    src = model.logit_source(0, logits)
    full = sample_step(src, ids, Settings(temperature=t, top_p=1.0), None, head_size=model.vocab, fetch_all=True)
    probs = [p for _, p, _ in full.head]
    ranks = rank_sample(model.vocab)
    prep = src.prepare(1 / t, {}, 0)
    p, cum = src.rank_curve(src.sorted_copy({}), 1 / t, prep.M, prep.Z, ranks)
    run = 0.0
    cums = []
    for q in probs:
        run += q
        cums.append(run)
    for r, pr, cr in zip(ranks, p, cum):
        assert math.isclose(pr, probs[r - 1], rel_tol=1e-12, abs_tol=1e-300)
        assert math.isclose(cr, cums[r - 1], rel_tol=1e-12)
    assert math.isclose(cum[-1], 1.0, rel_tol=1e-12)


def double_sums(vals, inv_t):
    """M, Z and A as a plain float64 reference computes them: every term e^(z * inv_t - M) in
    double, the sums exact (math.fsum)."""
    M = max(vals) * inv_t
    s = [float(v) * inv_t - M for v in vals]
    e = [math.exp(x) for x in s]
    return M, math.fsum(e), math.fsum(a * b for a, b in zip(e, s))


def synthetic(n, scale, seed):
    import random

    rng = random.Random(seed)
    return [rng.uniform(-scale, scale) for _ in range(n)]


@pytest.mark.parametrize("case", ["model T 0.01", "model T 0.8", "model T 2", "1e4 T 1", "1e4 T 0.01", "1e4 T 0.001",
                                  "odd length", "one giant"])
def test_the_normaliser_is_a_double_precision_sum(model, kernel, simd_kernel, scalar_kernel, case):
    """dl_logits_prepare's Z and A against a plain float64 sum, within 1e-12 relative (the issue
    asked 1e-9; a float32 sum was off by up to 6e-6 on our model at T 0.01 and 9e-5 on logits of
    +-1e4), on the real model and on synthetic extremes, and the same bits from every build."""
    from array import array

    from decodelab.engine import KernelLogits

    if case.startswith("model"):
        ids = [model.eot] + model.tokenizer.encode("Once upon a time, there was a little dog named")
        model.clear()
        vals = array("f", model.feed(ids))
    elif case == "odd length":
        vals = array("f", synthetic(4093, 30, 3))
    elif case == "one giant":  # |z| / T near 1e7, where the float32 path once made the panel show 739 %
        vals = array("f", synthetic(4096, 5, 4))
        vals[17] = 1e4
    else:
        vals = array("f", synthetic(4096, 1e4, 5))
    t = {"model T 0.01": 0.01, "model T 0.8": 0.8, "model T 2": 2.0, "1e4 T 1": 1.0, "1e4 T 0.01": 0.01,
         "1e4 T 0.001": 0.001, "odd length": 0.7, "one giant": 1e-3}[case]
    M, Z, A = double_sums(vals, 1 / t)
    got = []
    for k in (kernel, simd_kernel, scalar_kernel):
        ptr = k.alloc(4 * len(vals))
        k.put(ptr, vals)
        prep = KernelLogits(k, len(vals), ptr).prepare(1 / t, {}, 4)
        m, z, a = prep.M, prep.Z, prep.A
        got.append(tuple(prep[2:]))
        assert m == M
        assert math.isclose(z, Z, rel_tol=1e-12), (z, Z)
        assert math.isclose(a, A, rel_tol=1e-12, abs_tol=1e-12 * Z), (a, A)
        # the logits' own mean and spread (top-n-sigma's statistic), against a plain sum
        mean = math.fsum(vals) / len(vals)
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in vals) / len(vals))
        assert math.isclose(prep.mean, mean, rel_tol=1e-12, abs_tol=1e-12) and math.isclose(prep.std, std, rel_tol=1e-12)
    assert got[0] == got[1] == got[2]  # every build, the same bits
    # the sampler's whole distribution, from the kernel's sums, adds up to 1 and no token is above
    # 1 (the panel once showed 739 %); below T 0.01 the sampler is greedy
    if t >= 0.01:
        ptr = kernel.alloc(4 * len(vals))
        kernel.put(ptr, vals)
        src = KernelLogits(kernel, len(vals), ptr).bind(vals, ptr)
        full = sample_step(src, [], Settings(temperature=t, top_p=1.0), None, head_size=len(vals), fetch_all=True)
        probs = [p for _, p, _ in full.head]
        assert math.isclose(math.fsum(probs), 1.0, rel_tol=1e-12) and max(probs) <= 1.0


class _FixedU:
    """An Rng stand-in whose draw is a chosen u."""

    def __init__(self, u):
        self.u = u

    def random(self):
        return self.u


class _LowZ(ListLogits):
    """Z reported 0.1% too large, as a float32 sum can be off: the weights p_i = e^(s_i-M)/Z then
    add up to 0.999, and a draw u above that used to fall to the least likely token."""

    def prepare(self, inv_t, overrides, top_n):
        prep = super().prepare(inv_t, overrides, top_n)
        return prep._replace(Z=prep.Z * 1.001)


@pytest.mark.parametrize("u", [0.9995, 0.99999999])
def test_unfiltered_draw_above_the_float32_sum_stays_in_the_distribution(u):
    z = [3.0, 2.0, 1.0] + [-200.0] * 300  # the last 300 tokens have probability ~e^-200
    s = Settings(temperature=1.0, top_k=0, top_p=1.0, min_p=0.0)
    least_likely = len(z) - 1
    for fn in (lambda src: sample_token(src, [], s, _FixedU(u)),
               lambda src: sample_step(src, [], s, _FixedU(u)).token,
               lambda src: sample_step(src, [], s, _FixedU(u), fetch_all=True).token):
        tok = fn(_LowZ(z))
        assert tok != least_likely
        assert tok == 2  # u * total lands in the third token's interval, where it belongs


def test_draw_from_uses_the_actual_total():
    from decodelab.sampler import draw_from

    dist = {5: 0.5, 7: 0.25, 9: 0.2499}  # adds up to 0.9999
    assert draw_from(dist, 0.99995) == 9
    assert draw_from(dist, 0.0) == 5
    assert draw_from({1: 0.5, 2: 0.5}, 0.5) == 2  # ties by weight: lower id first, then the next


def test_every_setting_belongs_to_one_declared_step():
    """The sampler's rules are units (sampler.STEPS), each owning one Settings field and its
    check; a new cut is one more unit. Only the penalty's window and the order flag are options
    of a step rather than steps."""
    from decodelab import sampler as S
    from decodelab.engine import KernelLogits

    fields = set(Settings.__dataclass_fields__)
    owned = [step.field for step in S.STEPS]
    assert len(owned) == len(set(owned)) and fields - set(owned) == {"penalty_window", "temperature_last"}
    assert {c.field for c in S.KERNEL_CUTS} == set(KernelLogits.DRAW_CUTS)  # the kernel's draw knows them by name
    for step in S.STEPS:
        with pytest.raises(SamplerError) as e:
            step.check(float("nan"))
        assert e.value.field == step.field
    # each cut, on alone, keeps a prefix of the ranking: the survivors are the most likely tokens
    z = [0.1 * ((i * 37) % 101) for i in range(300)]
    ranked = sorted(range(300), key=lambda i: (-z[i], i))
    for field, value in (("top_k", 7), ("top_p", 0.5), ("min_p", 0.3)):
        st = sample_step(ListLogits(z), [], make_settings(**{"temperature": 1.0, "top_p": 1.0, field: value}), None, head_size=300)
        kept = [i for i, _, q in st.head if q > 0]
        assert kept == ranked[:len(kept)] and 0 < len(kept) < 300, field


@pytest.mark.parametrize("top_n", [1, 3, 64, 130, 4093])
def test_kernel_top_n_is_exact_with_ties_and_any_tail(model, top_n):
    """dl_logits_prepare skips four logits at a time that cannot beat the weakest kept one: the
    top-N (ids and values, ties to the lower id) is still exactly the sorted order's, with heavy
    ties (values on a coarse grid) and lengths that leave a tail after the groups of four."""
    import random
    from array import array

    from decodelab.engine import KernelLogits

    rng = random.Random(top_n)
    for n in (model.vocab, model.vocab - 3):
        vals = array("f", [rng.randrange(-40, 40) / 4 for _ in range(n)])
        ptr = model.k.alloc(4 * n)
        model.k.put(ptr, vals)
        src = KernelLogits(model.k, n, ptr)
        ids, got, *_ = src.prepare(1.0, {}, min(top_n, n))
        want_ids, want_vals, *_ = ListLogits(vals).prepare(1.0, {}, min(top_n, n))
        assert list(ids) == list(want_ids) and list(got) == list(want_vals)


def test_random_is_two_next_u32():
    """Rng.random is the top 27 bits of one next_u32 and the top 26 of the next, over 2**53, and
    the stream continues identically after it."""
    for seed in (0, 7, 2 ** 32 - 1):
        a, b = Rng(seed), Rng(seed)
        for _ in range(2000):
            hi, lo = b.next_u32() >> 5, b.next_u32() >> 6
            assert a.random() == (hi * 67108864.0 + lo) / 9007199254740992.0
        assert a.next_u32() == b.next_u32()


def _exact_path_token(src, history, s, u):
    """The sampler's own computation of a step (_filter, _draw), never asking the source to draw."""
    from decodelab import sampler as S

    over = S.RepetitionPenalty.overrides(src, history, s)
    c = S._filter(src, over, s, u, False)
    return c.ids[S._draw(c, s, u, S._plan(s))[0]]


def _logits(rng, shape: str, n: int) -> list:
    if shape == "peaked":  # one token far ahead, as after "Once upon a"
        z = [rng.gauss(0, 2) for _ in range(n)]
        z[rng.randrange(n)] = 25.0
    elif shape == "flat":  # hundreds of plausible tokens: cuts deep in the ranking, fetches past 64
        z = [rng.gauss(0, 0.3) for _ in range(n)]
    elif shape == "grid":  # values on a coarse grid: ~50 tokens tie at every value
        z = [rng.randrange(-40, 40) / 4 for _ in range(n)]
    else:
        z = [rng.gauss(0, 3) for _ in range(n)]
    return z


@pytest.mark.parametrize("shape", ["model-like", "peaked", "flat", "grid"])
def test_the_kernels_one_call_draw_is_the_exact_paths_token(kernel, shape):
    """dl_logits_sample (the generation loop's one call) draws the token that the Python path
    computes, for random settings of every cut it knows, penalty included, or declines (-1).
    It may decline only where the answer rests on the last bits of a sum, as with exact ties at
    a cut (the grid's ~50 equal logits can put a top-p target exactly on a running sum); then
    sample_token takes the Python path, which costs time and nothing else."""
    import random
    from array import array

    from decodelab import sampler as S
    from decodelab.engine import KernelLogits

    rng = random.Random(shape)
    n = 4096
    ptr = kernel.alloc(4 * n)
    declined = 0
    for trial in range(60):
        vals = array("f", _logits(rng, shape, n))
        kernel.put(ptr, vals)
        src = KernelLogits(kernel, n, ptr, unpenalised=(0,)).bind(vals, ptr)
        s = make_settings(temperature=rng.choice([0.3, 0.8, 1.0, 1.7, 5.0]), top_k=rng.choice([0, 0, 5, 50]),
                          top_p=rng.choice([1.0, 0.95, 0.5, 0.99]), min_p=rng.choice([0.0, 0.0, 0.05, 0.3]),
                          repetition_penalty=rng.choice([1.0, 1.3]))
        history = [rng.randrange(n) for _ in range(rng.randrange(80))]
        plan = S._plan(s)
        for _ in range(4):
            u = rng.random()
            want = _exact_path_token(src, history, s, u)
            got = src.draw(plan.inv, S.RepetitionPenalty.overrides(src, history, s), plan.kernel_cuts, u)
            assert got in (want, -1), (s, u)
            declined += got == -1
            assert sample_token(src, history, s, _FixedU(u)) == want
    if shape != "grid":
        assert declined == 0


def test_an_exact_tie_at_a_cut_is_left_to_python(kernel):
    """Two tokens tie at the top and top-k 2, top-p 0.5 puts the target exactly on the first
    running sum (0.5 * (p + p) = p): the answer rests on the last bit, the kernel declines and
    sample_token still returns the Python path's token (the first: cum >= target holds)."""
    from array import array

    from decodelab import sampler as S
    from decodelab.engine import KernelLogits

    n = 4096
    vals = array("f", [5.0, 5.0] + [-3.0] * (n - 2))
    ptr = kernel.alloc(4 * n)
    kernel.put(ptr, vals)
    src = KernelLogits(kernel, n, ptr).bind(vals, ptr)
    s = make_settings(temperature=1.0, top_k=2, top_p=0.5)
    assert src.draw(1.0, {}, S._plan(s).kernel_cuts, 0.9) == -1
    assert sample_token(src, [], s, _FixedU(0.9)) == _exact_path_token(src, [], s, 0.9) == 0


def test_the_one_call_draw_is_the_same_in_every_build(kernel, simd_kernel, scalar_kernel):
    import random
    from array import array

    from decodelab.engine import KernelLogits

    rng = random.Random(3)
    n = 4096
    vals = array("f", _logits(rng, "model-like", n))
    draws = []
    for k in (kernel, simd_kernel, scalar_kernel):
        ptr = k.alloc(4 * n)
        k.put(ptr, vals)
        src = KernelLogits(k, n, ptr).bind(vals, ptr)
        draws.append([src.draw(1 / t, {7: -3.0}, {"top_k": top_k, "top_p": 0.9, "min_p": 0.02}, u / 97)
                      for t in (0.5, 1.0, 2.0) for top_k in (0, 40) for u in range(97)])
    assert draws[0] == draws[1] == draws[2] and -1 not in draws[0]


def test_the_kernels_exp_is_within_a_unit_in_the_last_place_of_math_exp(kernel):
    """The margins of dl_logits_sample assume its e^x within 1e-13 of math.exp's (relative,
    logits.c DL_P_REL); measured here to 1e-15 over the range the sampler reaches, and within
    1e-300 absolute where the results are subnormal."""
    import random

    rng = random.Random(0)
    xs = [rng.uniform(-745.0, 0.0) for _ in range(20000)] + [rng.uniform(-2.0, 2.0) for _ in range(20000)]
    xs += [0.0, -0.0, 1e-300, -1e-17, 700.0, -708.0, -744.9, -745.1]
    for x in xs:
        got, want = kernel.exp_f64(x), math.exp(x)
        if want >= 2.2250738585072014e-308:
            assert abs(got - want) <= 1e-15 * want, x
        else:
            assert abs(got - want) <= 1e-300, x
    assert kernel.exp_f64(0.0) == 1.0 and kernel.exp_f64(-800.0) == 0.0 and math.isnan(kernel.exp_f64(math.nan))
