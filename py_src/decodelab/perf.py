"""Measurements shared by the page's endpoints and the benchmark commands (both runtimes)."""
from __future__ import annotations

import time

from . import sampler as S
from .spec import SCHEME_NAMES
from .session import endpoint, session

PROMPT = "Once upon a time, there was a little girl named Lily. She"


def generate_speed(e, n: int, mode: str, seed: int = 1) -> dict:
    """Tokens/s of generation with greedy or the default sampler (T = 0.8, top-p 0.95)."""
    s = S.Settings(temperature=0.0) if mode == "greedy" else S.DEFAULTS
    rng = S.Rng(seed)

    def choose(src, history):
        return S.sample_token(src, history, s, rng), None

    ids = e.tokenizer.encode(PROMPT)
    e.generate(ids, 8, choose, read_logits=False)  # warm-up
    g = e.generate(ids, n, choose, read_logits=False)
    dt = g.loop_s
    return {"mode": mode, "tokens": len(g.tokens), "seconds": dt, "tps": len(g.tokens) / dt,
            # shares of the same span: the loop's time, the prompt's kernel time left out (it
            # was counted in once, and the share came out above 1)
            "kernel_share": g.loop_kernel_s / dt, "python_share": 1 - g.loop_kernel_s / dt,
            "text": e.tokenizer.decode(g.tokens)}


def sampler_step_ms(e, n: int = 300) -> dict:
    """One sampler step at the default settings on real logits (the model is not run in the loop)."""
    import statistics  # not at the top: the page's start-up without a snapshot would pay for it

    s = S.Settings()
    e.reset()
    logits = e.feed(e.tokenizer.encode(PROMPT))
    src = e.logit_source(0, logits)
    history = [e.eot] + e.tokenizer.encode(PROMPT)
    rng = S.Rng(9)
    chunks = []
    for _ in range(max(3, n // 50)):
        t0 = time.perf_counter()
        for _ in range(50):
            S.sample_step(src, history, s, rng)
        chunks.append((time.perf_counter() - t0) / 50 * 1e3)
    return {"step_ms": statistics.median(chunks), "all_ms": chunks}


def requant_ms(e) -> dict:
    import statistics  # not at the top: the page's start-up without a snapshot would pay for it

    out = {}
    for scheme in SCHEME_NAMES:
        for bits in (8, 6, 4, 3, 2):
            ts = [e.requantize(bits, scheme) for _ in range(3)]
            out[f"{scheme}/{bits}"] = statistics.median(ts)
    restore = statistics.median([e.restore() for _ in range(3)])
    return {"per_setting_ms": out, "requant_ms": max(out.values()), "median_ms": statistics.median(out.values()),
            "restore_ms": restore}


@endpoint
def bench_generate(n: int = 200, mode: str = "default", fast: bool = True) -> dict:
    e = session().engine()
    e.set_fast(fast)
    try:
        return generate_speed(e, n, mode)
    finally:
        e.set_fast(True)


@endpoint
def bench_sampler(n: int = 300) -> dict:
    return sampler_step_ms(session().engine(), n)


@endpoint
def bench_requant() -> dict:
    return requant_ms(session().bits_engine())
