"""The sampler's newer rules against plain references written from their papers' definitions:
every token's probability computed, sorted, and cut as the paper says, with no fetching, no
binary search and no early stop. Ties and extreme values included. And the generation loop with
a rule the kernel's one-call draw does not implement: the kernel is not asked, and the token is
the Python sampler's."""
import math
import random

import pytest

from decodelab import sampler as S
from decodelab.sampler import ListLogits, make_settings, sample_step


def softmax(z, inv=1.0):
    """p_i = e^(z_i inv - M) / Z, summed left to right (as ListLogits does)."""
    M = max(z) * inv
    e = [math.exp(v * inv - M) for v in z]
    Z = 0.0
    for x in e:
        Z += x
    return [x / Z for x in e]


def ranking(z):
    return sorted(range(len(z)), key=lambda i: (-z[i], i))


def reference_typical(z, p, inv=1.0):
    """Meister et al. (2022), locally typical sampling: H = -sum q ln q; sort tokens by
    |-ln q - H| (ties: the more likely, then the lower id); keep them in that order until their
    mass reaches p (the token that crosses stays)."""
    q = softmax(z, inv)
    H = -sum(x * math.log(x) for x in q if x > 0)
    rank = {i: r for r, i in enumerate(ranking(z))}
    order = sorted(range(len(z)), key=lambda i: (abs(-math.log(q[i]) - H) if q[i] > 0 else math.inf, rank[i]))
    kept, acc = [], 0.0
    for i in order:
        kept.append(i)
        acc += q[i]
        if acc >= p:
            break
    return set(kept)


def logits(rng, shape, n):
    if shape == "peaked":
        z = [rng.gauss(0, 2) for _ in range(n)]
        z[rng.randrange(n)] = 25.0
    elif shape == "flat":
        z = [rng.gauss(0, 0.3) for _ in range(n)]
    elif shape == "grid":  # ties everywhere
        z = [rng.randrange(-40, 40) / 4 for _ in range(n)]
    else:
        z = [rng.gauss(0, 3) for _ in range(n)]
    return z


def kept_ids(z, **kw):
    st = sample_step(ListLogits(z), [], make_settings(**{"top_p": 1.0, "temperature": 1.0, **kw}), None,
                     head_size=len(z), fetch_all=not any(S.BY_FIELD[f].on(v) for f, v in kw.items() if f in S.BY_FIELD and
                                                         S.BY_FIELD[f] in S.CUTS))
    return {i for i, _, q in st.head if q > 0}, st


@pytest.mark.parametrize("shape", ["model-like", "peaked", "flat", "grid"])
def test_typical_p_keeps_what_the_paper_keeps(shape):
    rng = random.Random(shape)
    for trial in range(40):
        n = rng.choice([50, 700, 3000])
        z = logits(rng, shape, n)
        p = rng.choice([0.05, 0.2, 0.5, 0.9, 0.99])
        T = rng.choice([1.0, 0.7, 1.6])
        got, st = kept_ids(z, typical_p=p, temperature=T)
        assert got == reference_typical(z, p, 1 / T), (shape, trial, p, T)
        assert st.survivors == len(got) and sum(b - a + 1 for a, b in st.kept) == len(got)


def test_typical_p_can_drop_the_favourite_and_keeps_a_run_of_ranks():
    """A model sure of one token: its surprise is far below the entropy of the rest, so typical-p
    keeps the middle of the ranking and not the top, as the paper intends; the survivors are
    always consecutive ranks."""
    z = [9.0] + [5.0 - 0.01 * i for i in range(400)]
    got, st = kept_ids(z, typical_p=0.3)
    assert 0 not in got and got == reference_typical(z, 0.3)
    assert len(st.kept) == 1 and st.kept[0][0] > 1


def test_typical_p_at_the_extremes():
    r = random.Random(1)
    z = [r.gauss(0, 2) for _ in range(300)]
    # p = 1 is off: every token survives
    got, _ = kept_ids(z, typical_p=1.0)
    assert len(got) == 300
    # a tiny p keeps one token: the one whose surprise is nearest the entropy
    got, _ = kept_ids(z, typical_p=1e-9)
    assert len(got) == 1 and got == reference_typical(z, 1e-9)
    # all logits equal: every surprise is exactly H, so ties decide: the lowest ids, ceil(p V) of them
    flat = [0.5] * 200
    got, _ = kept_ids(flat, typical_p=0.1)
    assert got == set(range(20)) or got == set(range(21))  # 20 x (1/200) reaches 0.1 up to rounding
    assert got == reference_typical(flat, 0.1)
    # a token with probability 0 (e^-800 underflows) is infinitely far from typical
    z2 = [0.0, 0.1, 0.2, -800.0]
    got, _ = kept_ids(z2, typical_p=0.999999)
    assert 3 not in got
    with pytest.raises(S.SamplerError):
        make_settings(typical_p=0.0)
    with pytest.raises(S.SamplerError):
        make_settings(typical_p=1.5)


def test_typical_p_after_top_k_sees_the_renormalised_survivors():
    """Behind top-k, the entropy and the masses are those of the k survivors (as in transformers,
    where the earlier warpers' -inf tokens add nothing)."""
    rng = random.Random(5)
    for _ in range(20):
        z = logits(rng, "model-like", 500)
        k = rng.choice([5, 20, 80])
        top = ranking(z)[:k]
        sub = [z[i] for i in top]
        want = {top[j] for j in reference_typical(sub, 0.6)}
        got, _ = kept_ids(z, top_k=k, typical_p=0.6)
        assert got == want


def test_cuts_after_a_mask_see_only_its_survivors():
    """top-p and min-p behind typical-p: they work on typical's survivors, renormalised, in rank order."""
    rng = random.Random(9)
    for _ in range(20):
        z = logits(rng, "model-like", 400)
        typ = reference_typical(z, 0.7)
        order = [i for i in ranking(z) if i in typ]
        q = softmax(z)
        mass = sum(q[i] for i in order)
        top_p = 0.5
        acc, want = 0.0, []
        for i in order:
            want.append(i)
            acc += q[i] / mass
            if acc >= top_p - 1e-12:
                break
        got, _ = kept_ids(z, typical_p=0.7, top_p=top_p)
        assert got == set(want)
        got, _ = kept_ids(z, typical_p=0.7, min_p=0.2)
        assert got == {i for i in order if q[i] >= 0.2 * q[order[0]]}


class _CountingSource(ListLogits):
    def __init__(self, z):
        super().__init__(z)
        self.draws = 0

    def draw(self, inv_t, overrides, cuts, u):
        self.draws += 1
        return super().draw(inv_t, overrides, cuts, u)


def reference_top_n_sigma(z, n):
    """Tang et al. (2024), top-n-sigma: sigma = the standard deviation of all the logits; keep
    every token whose logit is at least max - n sigma."""
    mean = math.fsum(z) / len(z)
    sigma = math.sqrt(math.fsum((v - mean) ** 2 for v in z) / len(z))
    bar = max(z) - n * sigma
    return {i for i, v in enumerate(z) if v >= bar}


@pytest.mark.parametrize("shape", ["model-like", "peaked", "flat", "grid"])
def test_top_n_sigma_keeps_what_the_paper_keeps_at_any_temperature(shape):
    rng = random.Random("nsigma" + shape)
    for trial in range(40):
        n_tok = rng.choice([50, 700, 3000])
        z = logits(rng, shape, n_tok)
        n = rng.choice([0.1, 0.5, 1.0, 2.0, 3.0])
        want = reference_top_n_sigma(z, n)
        for T in (0.3, 1.0, 2.5):  # the bar is on the logits: the temperature cannot move it
            got, st = kept_ids(z, top_n_sigma=n, temperature=T)
            assert got == want, (shape, trial, n, T)
            assert st.kept == [[1, len(want)]]
        got, _ = kept_ids(z, top_n_sigma=n, temperature=1.7, temperature_last=True)
        assert got == want


def test_top_n_sigma_at_the_extremes_and_with_the_kernels_sigma(kernel):
    from array import array

    from decodelab.engine import KernelLogits

    rng = random.Random(2)
    z = [rng.gauss(0, 2) for _ in range(400)]
    assert len(kept_ids(z, top_n_sigma=0.0)[0]) == 400  # 0 is off
    assert len(kept_ids(z, top_n_sigma=1e6)[0]) == 400  # a bar below every logit
    assert kept_ids(z, top_n_sigma=1e-12)[0] == {max(range(400), key=lambda i: z[i])}  # only the top clears it
    # equal logits: sigma is 0 and every token sits exactly on the bar (kept: ">=")
    assert len(kept_ids([1.25] * 300, top_n_sigma=2.0)[0]) == 300
    # ties at the top: both kept, whatever n
    assert {0, 1} <= kept_ids([4.0, 4.0] + [0.0] * 100, top_n_sigma=0.01)[0]
    # behind a repetition penalty, sigma is that of the penalised logits
    s = make_settings(temperature=1.0, top_p=1.0, top_n_sigma=1.5, repetition_penalty=1.8)
    hist = [int(i) for i in sorted(range(400), key=lambda i: -z[i])[:5]]
    pen = list(z)
    for t in set(hist):
        pen[t] = z[t] / 1.8 if z[t] > 0 else z[t] * 1.8
    st = sample_step(ListLogits(z), hist, s, None, head_size=400)
    assert {i for i, _, q in st.head if q > 0} == reference_top_n_sigma(pen, 1.5)
    # the kernel's mean and spread give the same survivors as the plain list's
    n = 4096
    vals = array("f", logits(rng, "model-like", n))
    ptr = kernel.alloc(4 * n)
    kernel.put(ptr, vals)
    src = KernelLogits(kernel, n, ptr).bind(vals, ptr)
    for nsig in (0.5, 1.0, 2.0):
        s = make_settings(temperature=0.8, top_p=1.0, top_n_sigma=nsig)
        assert sample_step(src, [], s, None, head_size=n).survivors == len(reference_top_n_sigma(list(vals), nsig))
    with pytest.raises(S.SamplerError):
        make_settings(top_n_sigma=-1.0)


@pytest.mark.parametrize("field,value", [("typical_p", 0.5), ("top_n_sigma", 1.0)])
def test_a_rule_the_kernel_does_not_know_keeps_the_kernel_out(kernel, field, value):
    """The generation loop asks the source to draw only when every cut that is on is one the
    kernel implements; with a rule it does not, the token is the Python sampler's, from the
    kernel's logits as from a plain list."""
    from array import array

    from decodelab.engine import KernelLogits

    rule = S.BY_FIELD[field]
    assert not rule.kernel
    rng = random.Random(3)
    n = 4096
    ptr = kernel.alloc(4 * n)
    for trial in range(10):
        vals = array("f", logits(rng, "model-like", n))
        kernel.put(ptr, vals)
        s = make_settings(**{field: value, "temperature": rng.choice([0.7, 1.0])})
        assert S._plan(s).kernel_cuts is None
        src = KernelLogits(kernel, n, ptr).bind(vals, ptr)
        calls = []
        src._sample = lambda *a: calls.append(a) or 0  # the kernel's draw must not be asked
        plain = _CountingSource(list(vals))
        for u_seed in range(5):
            tok = S.sample_token(src, [], s, S.Rng(u_seed))
            assert tok == S.sample_token(plain, [], s, S.Rng(u_seed))
            assert tok == sample_step(ListLogits(list(vals)), [], s, S.Rng(u_seed)).token
        assert not calls and plain.draws == 0
