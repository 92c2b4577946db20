"""The C forward pass (shipped .wasm through wasmtime) against the numpy reference, and the
engine's cache, block, slide, re-quantization and multi-model behaviour.

Tolerances:
* exact path (float32 activations) vs the float64 reference on the same int8 weights: float32
  rounding only; observed max |dlogit| ~3e-6 on logits of size ~10, asserted <= 1e-4.
* fast path vs the reference with the same 7-bit activation rounding: usually ~3e-6 too (the
  observed max on these prompts), but a float32-vs-float64 difference can flip the rounding of
  one activation by one step, which moves a logit by that step times a weight row, and later
  positions see it through attention (observed once with 8-bit rounding: max 0.014, mean 9e-4);
  asserted max <= 0.05, mean <= 2e-3 and the same argmax at every position. Without the
  activation rounding in the reference the gap is orders of magnitude larger.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from decodelab import quant, spec
from decodelab_tools import reference
from decodelab import sampler as S
from decodelab.engine import Engine

MODELS = Path(__file__).resolve().parents[1] / "models"
PROMPTS = ["Once upon a time, there was a little girl named Lily.",
           "The dog ran to the park and saw a big red ball. He",
           "Tom and Sue were friends. One day they"]


@pytest.fixture(scope="module")
def engine(kernel):
    return Engine.from_file(kernel, MODELS / "main.dlm")


@pytest.fixture(scope="module")
def ref_weights(engine):
    return reference.dequantized_weights(engine.bundle)


def stepwise(engine, ids):
    engine.clear()
    return np.stack([np.array(engine.step(t), dtype=np.float64) for t in ids])


@pytest.mark.parametrize("fast", [False, True], ids=["exact", "fast"])
@pytest.mark.parametrize("text", PROMPTS)
def test_logits_match_numpy_reference(engine, ref_weights, text, fast):
    ids = [engine.eot] + engine.tokenizer.encode(text)
    ref = reference.forward(ref_weights, engine.bundle.config, ids, act_quant=fast)
    engine.set_fast(fast)
    got = stepwise(engine, ids)
    diff = np.abs(got - ref)
    if fast:
        # the reference rounds activations in float64, the kernel in float32: where a value sits on
        # a rounding boundary one activation moves by a whole step, and from that position on the
        # difference carries on through the cache (model v3, "The dog ran…": exact up to position 5,
        # then up to 0.42 in one logit). So: exact until the first flip, bounded after it, and the
        # top token agrees everywhere
        rows = diff.max(1)
        first = int(np.argmax(rows > 1e-4)) if (rows > 1e-4).any() else len(rows)
        assert rows[:first].max(initial=0) <= 1e-4
        assert diff.max() <= 0.5 and diff.mean() <= 0.05
        assert (got.argmax(1) == ref.argmax(1)).all()
    else:
        assert diff.max() <= 1e-4
    engine.set_fast(True)


def test_cache_block_and_no_cache_agree(engine):
    ids = [engine.eot] + engine.tokenizer.encode(PROMPTS[0])
    steps = stepwise(engine, ids)
    engine.clear()
    block = np.array(engine.feed(ids))
    no_cache = np.array(engine.recompute(ids))
    # the same arithmetic in the same order: bit-identical
    assert np.array_equal(block, steps[-1])
    assert np.array_equal(no_cache, steps[-1])
    # verification returns every position's logits, equal to step-by-step
    engine.clear()
    engine.feed(ids[:3])
    rows = engine.verify(ids[3:])
    assert all(np.array_equal(np.array(r), steps[3 + i]) for i, r in enumerate(rows))


def test_rewind_then_continue_matches_fresh(engine):
    ids = [engine.eot] + engine.tokenizer.encode(PROMPTS[1])
    steps = stepwise(engine, ids)
    engine.rewind(4)
    again = [np.array(engine.step(t)) for t in ids[-4:]]
    assert np.array_equal(again[-1], steps[-1])


def greedy(src, history):
    """The top token by a plain Python max over the values (an oracle beside the kernel's argmax)."""
    return max(range(src.vocab_size), key=src.value), None


def slide_rule(tokens, context, keep):
    """The window the engine should hold after feeding `tokens` one by one."""
    hist = []
    for t in tokens:
        if len(hist) >= context:
            hist = hist[-keep:]
        hist.append(t)
    return hist


def test_generation_slides_past_the_context(engine):
    gen = engine.generate([], 700, greedy)  # starts from the beginning-of-text token alone
    assert len(gen.tokens) == 700 and gen.stats.slides >= 1
    fed = [engine.eot] + gen.tokens[:-1]  # the last token chosen is not fed
    window = slide_rule(fed, engine.context, engine.keep)
    assert engine.history == window
    # the last token must be what a fresh model predicts from the window it was chosen in
    assert len(window) <= engine.context
    engine.clear()
    engine.feed(window)
    assert greedy(engine.logit_source(), None)[0] == gen.tokens[-1]


def test_stop_token_and_length_limit(engine):
    gen = engine.generate(engine.tokenizer.encode("The end."), 3, greedy)
    assert len(gen.tokens) == 3 and gen.stop_reason == "length"
    first = gen.tokens[0]
    gen2 = engine.generate(engine.tokenizer.encode("The end."), 50, greedy, stop=(first,))
    assert gen2.tokens == [first] and gen2.stop_reason == "stop_token"


@pytest.mark.parametrize("scheme", spec.SCHEME_NAMES)
@pytest.mark.parametrize("bits", [8, 5, 3, 2])
def test_requantized_weights_equal_python_reference(engine, scheme, bits):
    engine.requantize(bits, scheme)
    try:
        for i in (1, 2):  # wpe, and the first layer's qkv
            q, s, rows, cols = engine.matrix(i)
            t = engine.bundle.tensors["wpe" if i == 1 else "h0.qkv"]
            ref_q, ref_s = quant.requantize_reference(bytes(t.data), list(t.scale_list()), rows, cols, bits, scheme)
            assert bytes(q) == bytes(ref_q)
            assert list(s) == [quant.f32(v) for v in ref_s]
    finally:
        engine.restore()


def test_restore_brings_back_exact_logits(engine):
    ids = [engine.eot] + engine.tokenizer.encode(PROMPTS[2])
    before = stepwise(engine, ids)
    engine.requantize(3, "matrix")
    changed = stepwise(engine, ids)
    engine.restore()
    after = stepwise(engine, ids)
    assert not np.array_equal(before, changed)
    assert np.array_equal(before, after)


def test_two_bundles_at_once(kernel, engine):
    draft = Engine.from_file(kernel, MODELS / "draft.dlm")
    assert draft.vocab == engine.vocab and draft.eot == engine.eot
    ids = [engine.eot] + engine.tokenizer.encode(PROMPTS[0])
    a1 = stepwise(engine, ids)
    d1 = stepwise(draft, ids)
    # interleave the two models' steps: neither disturbs the other's cache or weights
    engine.clear()
    draft.clear()
    for t in ids:
        la, ld = np.array(engine.step(t)), np.array(draft.step(t))
    assert np.array_equal(la, a1[-1]) and np.array_equal(ld, d1[-1])
    assert not np.array_equal(a1[-1], d1[-1])


def test_counters_count_passes_and_macs(engine):
    engine.clear()
    p0, m0 = engine.counters()
    engine.feed([engine.eot, 5, 6])
    p1, m1 = engine.counters()
    c = engine.bundle.config
    per_token = c.n_layers * (3 * c.d_model ** 2 + c.d_model ** 2 + 2 * c.d_model * c.d_ff)
    attn = sum(2 * (p + 1) * c.d_model * c.n_layers for p in range(3))
    assert p1 - p0 == 3
    assert m1 - m0 == 3 * per_token + attn + c.vocab_size * c.d_model


@pytest.mark.parametrize("n", [1, 2, 17])
def test_cached_generation_reads_the_prompt_in_one_block(engine, n):
    """Both lanes of chapter 2's race read [start] + prompt as one block, with one output product:
    at n = 1 they do the same work, and every count is the formula's to the last digit."""
    from decodelab.ch2 import greedy_choice

    prompt = engine.tokenizer.encode("The dog ran to the park")
    P = 1 + len(prompt)
    c = engine.bundle.config
    d, L = c.d_model, c.n_layers
    A = L * (4 * d * d + 2 * d * c.d_ff)
    head = c.vocab_size * d
    attn = lambda t: L * d * t * (t + 1)  # noqa: E731  positions 0..t-1, 2(p+1)d per layer each
    g = engine.generate(prompt, n, greedy_choice, cache=True)
    h = engine.generate(prompt, n, greedy_choice, cache=False)
    T = P + n - 1
    assert g.tokens == h.tokens
    assert g.stats.passes == T and h.stats.passes == n * P + n * (n - 1) // 2
    assert g.stats.macs == T * A + n * head + attn(T)
    assert h.stats.macs == sum(t * A + head + attn(t) for t in range(P, P + n))
    if n == 1:
        assert (g.stats.passes, g.stats.macs) == (h.stats.passes, h.stats.macs)


# ---- one code path for every build: widths that leave remainders -----------------------------------

@pytest.fixture(scope="module")
def odd_width_bundle() -> bytes:
    """The main model cut to one layer whose feed-forward width (70) is neither a multiple of 4
    nor of 32, so the kernel's remainder loops (quantize_x, GELU, requantization groups) run."""
    import dataclasses

    from decodelab.bundle import read_bundle, write_bundle

    b = read_bundle((MODELS / "main.dlm").read_bytes())
    cfg = dataclasses.replace(b.config, n_layers=1, d_ff=70)
    rng = np.random.default_rng(7)
    tensors = []
    for name, t in b.tensors.items():
        if name.startswith("h") and not name.startswith("h0."):
            continue
        rows, cols = {"h0.fc": (70, cfg.d_model), "h0.fc2": (cfg.d_model, 70)}.get(name, (t.rows, t.cols))
        if (rows, cols) != (t.rows, t.cols):
            q = rng.integers(-127, 128, size=rows * cols, dtype=np.int8)
            s = rng.uniform(0.001, 0.02, size=rows).astype("<f4")
            tensors.append((name, t.dtype, rows, cols, q.tobytes(), s.tobytes()))
        else:
            tensors.append((name, t.dtype, rows, cols, bytes(t.data), bytes(t.scales) if t.scales is not None else None))
    return write_bundle(cfg, tensors, b.tokenizer, b.meta)


def test_all_builds_give_identical_logits(kernel, simd_kernel, scalar_kernel, odd_width_bundle):
    """Attention, GELU, quantize_x and both matvec paths are written so each lane does the same
    float32 operations in every build (relaxed SIMD, SIMD, scalar): the logits must match bit for
    bit, not just closely, on the fast and the exact path, also after re-quantization (the row
    sums must follow the weights)."""
    ids = [0] + Engine(kernel, odd_width_bundle).tokenizer.encode(PROMPTS[0])
    for data in ((MODELS / "main.dlm").read_bytes(), odd_width_bundle):
        es = [Engine(k, data) for k in (kernel, simd_kernel, scalar_kernel)]
        for bits, fast in ((None, True), (None, False), (4, True), (4, False)):
            out = []
            for e in es:
                e.set_fast(fast)
                if bits:
                    e.requantize(bits, "row")
                e.clear()
                out.append((bytes(e.feed(ids)), bytes(e.step(5))))
            assert out[0] == out[1] == out[2], (bits, fast)
        for e in es:
            e.restore()
            e.set_fast(True)


@pytest.mark.slow  # every kernel build writes a story, about 9 s
def test_all_builds_write_the_same_text(kernel, simd_kernel, scalar_kernel):
    """Same seed, same text on every build: 300 sampled tokens at the defaults and at T = 1.5."""
    data = (MODELS / "main.dlm").read_bytes()
    texts = []
    for k in (kernel, simd_kernel, scalar_kernel):
        e = Engine(k, data)
        prompt = e.tokenizer.encode("Once upon a time")
        row = []
        for s in (S.DEFAULTS, S.make_settings(temperature=1.5, top_p=1.0)):
            rng = S.Rng(11)
            g = e.generate(prompt, 300, lambda src, h: (S.sample_token(src, h, s, rng), None))
            row.append(g.tokens)
        texts.append(row)
    assert texts[0] == texts[1] == texts[2]


@pytest.mark.parametrize("scheme", spec.SCHEME_NAMES)
def test_requantization_with_remainder_columns(kernel, scalar_kernel, odd_width_bundle, scheme):
    engines = [Engine(kernel, odd_width_bundle), Engine(scalar_kernel, odd_width_bundle)]
    for bits in (6, 2):
        got = []
        for e in engines:
            e.requantize(bits, scheme)
            q, s, rows, cols = e.matrix(5)  # h0.fc2: 160 x 70
            got.append((bytes(q), list(s)))
            e.restore()
        t = engines[0].bundle.tensors["h0.fc2"]
        ref_q, ref_s = quant.requantize_reference(bytes(t.data), list(t.scale_list()), t.rows, t.cols, bits, scheme)
        assert got[0] == got[1] == (bytes(ref_q), [quant.f32(v) for v in ref_s])


@pytest.mark.parametrize("scheme", spec.SCHEME_NAMES)
@pytest.mark.parametrize("bits", [6, 3])
def test_reports_numpy_requantization_equals_the_kernels(engine, scheme, bits):
    """The held-out figures per bit depth (report.py, written into the bundle's metadata) come
    from numpy; the page re-quantizes in C. Both must mean the same weights."""
    from decodelab_tools.report import requantized

    t = engine.bundle.tensors["h0.fc2"]
    q0 = np.frombuffer(t.data, dtype=np.int8).reshape(t.rows, t.cols).astype(np.float64)
    w0 = q0 * np.frombuffer(t.scales, dtype=np.float32).astype(np.float64)[:, None]
    want = requantized({"m": w0}, bits, scheme)["m"]
    engine.requantize(bits, scheme)
    try:
        idx = 2 + 3  # wte, wpe, then h0.qkv, h0.proj, h0.fc, h0.fc2
        q, s, rows, cols = engine.matrix(idx)
        got = np.frombuffer(bytes(q), dtype=np.int8).reshape(rows, cols).astype(np.float64) * np.array(s, dtype=np.float64)[:, None]
    finally:
        engine.restore()
    # the kernel stores q * floor(127 / qmax) with the scale divided by that integer (its int8
    # row-scaled format), so the two agree to float32 rounding of the scale, on the same grid
    assert np.allclose(got, want, rtol=2e-7, atol=0), np.abs(got - want).max()


@pytest.mark.parametrize("build_name", ["kernel_simd", "kernel_scalar"])
def test_the_plain_attention_gives_the_same_bits_as_the_unrolled_one(kernel, tmp_path, build_name):
    """model.c keeps attend_plain (one key, then one output, at a time: what attention computes)
    beside attend_unrolled (four keys and sixteen outputs at once: what ships). The kernel built
    with -DDL_PLAIN_ATTEND=1 must give the shipped kernel's logits bit for bit: after a block
    whose length is not a multiple of 4 (the unrolled loop's tail), then after every single step
    up to 76 positions (every tail length, several times)."""
    import sys

    from decodelab import builds
    from decodelab.kernel import Kernel, WasmtimeHost

    sys.path.insert(0, str(MODELS.parent))
    import build  # noqa: E402  (build.py at the top of the repo: the same compile as the site's)

    plain_wasm = tmp_path / f"{build_name}_plain.wasm"
    build.compile_kernel(builds.BY_NAME[build_name], MODELS.parent, plain_wasm, tmp_path / "obj",
                         defines=("DL_PLAIN_ATTEND=1",))
    shipped = Kernel(WasmtimeHost(build.WEB / "kernels" / f"{build_name}.wasm"))
    plain = Kernel(WasmtimeHost(plain_wasm))
    data = (MODELS / "main.dlm").read_bytes()
    a, b = Engine(shipped, data), Engine(plain, data)
    ids = [a.eot] + a.tokenizer.encode(PROMPTS[0] + " " + PROMPTS[2])
    assert len(ids) % 4 != 0
    assert bytes(a.feed(ids)) == bytes(b.feed(ids))
    while len(a.history) < 76:  # one token at a time
        la, lb = a.logits(), b.logits()
        assert bytes(la) == bytes(lb), len(a.history)
        nxt = max(range(len(la)), key=la.__getitem__)
        a.step(nxt, read=False)
        b.step(nxt, read=False)
    assert bytes(a.logits()) == bytes(b.logits())
    assert a.k.simd == b.k.simd == (build_name == "kernel_simd")
