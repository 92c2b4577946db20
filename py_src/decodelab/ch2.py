"""Chapter 2 endpoints: why it is fast (KV cache, 8-bit weights, bit depth, kernel speed)."""
from __future__ import annotations

import time

from . import quant
from . import sampler as S
from .api import endpoint, engine
from .ch1 import encode_prompt
from .errors import InputError

# A short story we wrote ourselves for the bit-depth widget (not from the training corpus).
OUR_STORY = ("Pip the small gray mouse lived under the old blue bench in the park. Every morning he "
             "looked for seeds and crumbs. One day he found a big red apple near the pond. It was too "
             "heavy for him, so he asked his friend the duck to help. The duck pushed the apple with her "
             "beak, and Pip pulled it with his tail. Together they rolled it home. That night they shared "
             "the apple and laughed about the long, funny trip.")


def kv_figures(e) -> dict:
    per_tok = e.kv_bytes_per_token()
    return {"kv_bytes_per_token": per_tok, "kv_bytes_full_context": per_tok * e.context,
            "weights_bytes": e.weights_bytes(), "context": e.context, "n_layers": e.n_layers,
            "d_model": e.d_model}


@endpoint
def ch2_kv_race(prompt: str, n: int = 30) -> dict:
    """The same greedy tokens with the KV cache and without it (recomputing the whole context)."""
    e = engine()
    if not (isinstance(n, int) and 1 <= n <= 200):
        raise InputError("generate 1 to 200 tokens", "n")
    ids = [e.eot] + encode_prompt(e, prompt)
    P = len(ids)
    if P + n > e.context:
        raise InputError("prompt plus new tokens must fit in the context", "n")
    src = e.source

    def run(cached: bool):
        p0, m0 = e.counters()
        t0 = time.perf_counter()
        toks = list(ids)
        e._reset(e.h)
        e.history = []
        logits = e.feed(toks) if cached else e.recompute(toks)
        out = []
        for _ in range(n):
            tok = S.greedy(src.bind(logits, e.logits_ptr), toks)
            out.append(tok)
            toks.append(tok)
            if len(out) == n:
                break
            logits = e.step(tok) if cached else e.recompute(toks)
        p1, m1 = e.counters()
        return {"tokens": out, "texts": [e.tokenizer.token_str(t) for t in out], "passes": int(p1 - p0),
                "macs": m1 - m0, "ms": (time.perf_counter() - t0) * 1e3}

    with_kv = run(True)
    without = run(False)
    return {"with_cache": with_kv, "without_cache": without, "prompt_tokens": P, "n": n,
            "same_output": with_kv["tokens"] == without["tokens"],
            "formula_with": P + n - 1, "formula_without": n * P + n * (n - 1) // 2,
            **kv_figures(e)}


@endpoint
def ch2_outliers(rows: int, cols: int, outlier: float, bits: int = 8) -> dict:
    if not (isinstance(rows, int) and 1 <= rows <= 256 and isinstance(cols, int) and 4 <= cols <= 1024):
        raise InputError("rows 1-256 and columns 4-1024", "shape")
    if not isinstance(outlier, (int, float)) or not 0 < abs(outlier) <= 1e6:
        raise InputError("the outlier must be a nonzero number up to 1,000,000", "outlier")
    return quant.planted_outlier_errors(rows, cols, float(outlier), bits)


def surprise_of(e, text: str) -> dict:
    ids = e.tokenizer.encode(text)
    if not ids:
        raise InputError("paste some text to measure", "text")
    if len(ids) > e.context - 1:
        ids = ids[:e.context - 1]
    src = e.source
    e.reset()
    lps = []
    logits = e._read_logits()
    for t in ids:
        lps.append(S.token_logprob(src.bind(logits, e.logits_ptr), t))
        logits = e.step(t)
    return {"surprise": -sum(lps) / len(lps), "tokens": len(ids)}


def bits_engine():
    """The bit-depth widget's own copy of the main model, so re-quantizing it leaves every other
    widget on the shipped 8-bit weights."""
    from .api import STATE
    from .engine import Engine

    e = STATE.get("bits_engine")
    if e is None:
        main = engine()
        e = STATE["bits_engine"] = Engine(main.k, main.bundle.raw, "main (bit-depth copy)")
    return e


@endpoint
def ch2_requant(bits: int, scheme: str, text: str = "", prompt: str = "Once upon a time, there was a") -> dict:
    e = bits_engine()
    ms = e.requantize(bits, scheme) if bits != 8 or scheme != "row" else e.restore()
    out = {"bits": bits, "scheme": scheme, "requant_ms": ms, "story": surprise_of(e, OUR_STORY)}
    if text.strip():
        out["pasted"] = surprise_of(e, text)
    ids = encode_prompt(e, prompt)
    src = e.source
    g = e.generate(ids, 40, lambda lg, h: (S.greedy(src.bind(lg, e.logits_ptr), h), None))
    out["continuation"] = e.tokenizer.decode(g.tokens)
    return out


@endpoint
def ch2_restore() -> dict:
    return {"restore_ms": bits_engine().restore()}


@endpoint
def ch2_story() -> dict:
    return {"story": OUR_STORY}


_speed_engines: dict = {}


@endpoint
def ch2_speed(variant: str = "main", n: int = 96, warmup: int = 32) -> dict:
    """Greedy tokens per second with the main model on one kernel: the page's own ("main", SIMD
    where available), the scalar build, or the build whose matvec is plain JavaScript. A short
    untimed run first lets the browser's JIT compile the hot code of that kernel."""
    from .engine import Engine
    from .kernel import Kernel

    if variant not in ("main", "scalar", "jsmatvec"):
        raise InputError("kernel must be main, scalar or jsmatvec", "variant")
    main = engine()
    if variant == "main":
        e = main
    else:
        e = _speed_engines.get(variant)
        if e is None:
            e = _speed_engines[variant] = Engine(Kernel.open(variant=variant), main.bundle.raw, f"main ({variant})")
    src = e.source
    ids = encode_prompt(e, "Once upon a time")
    choose = lambda lg, h: (S.greedy(src.bind(lg, e.logits_ptr), h), None)  # noqa: E731
    if warmup:
        e.generate(ids, warmup, choose, read_logits=False)
    t0 = time.perf_counter()
    g = e.generate(ids, n, choose, read_logits=False)
    dt = time.perf_counter() - t0
    return {"variant": variant, "simd": e.k.simd, "tokens": len(g.tokens), "seconds": dt, "tps": len(g.tokens) / dt,
            "kernel_ms": g.stats.kernel_s * 1e3, "python_ms": g.stats.python_s * 1e3, "text": e.tokenizer.decode(g.tokens)}
