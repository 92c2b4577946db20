"""Chapter 2 endpoints: why it is fast (KV cache, 8-bit weights, bit depth, kernel speed)."""
from __future__ import annotations

import time

from . import quant
from . import sampler as S
from .errors import InputError
from .inputs import check_count, check_text, encode_prompt, token_texts
from .session import endpoint, session

SPEED_VARIANTS = ("main", "scalar", "jsmatvec")  # the page's kernel, the scalar build, plain-JS products


def greedy_choice(src, history):
    """A generation step that takes the top token (no penalty): one kernel call."""
    return S.greedy(src, history), None

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
    e = session().engine()
    check_count(n, 1, 200, "n", "generate 1 to 200 tokens")
    prompt_ids = encode_prompt(e, prompt)
    P = 1 + len(prompt_ids)  # the beginning-of-text token, then the prompt
    if P + n > e.context:
        raise InputError("prompt plus new tokens must fit in the context", "n")

    def run(cached: bool) -> dict:
        t0 = time.perf_counter()
        g = e.generate(prompt_ids, n, greedy_choice, cache=cached)
        return {"tokens": g.tokens, "texts": token_texts(e, g.tokens), "passes": g.stats.passes,
                "macs": g.stats.macs, "ms": (time.perf_counter() - t0) * 1e3}

    with_kv = run(True)
    without = run(False)
    # the last new token needs no pass of its own, so n tokens cost P + n - 1 passes with the
    # cache and P + (P + 1) + ... + (P + n - 1) = nP + n(n - 1)/2 without
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
    """Mean -ln p of the text's tokens under the model (each predicted from the ones before it)."""
    ids = e.tokenizer.encode(check_text(text, "text"))
    if not ids:
        raise InputError("paste some text to measure", "text")
    ids = ids[:e.context - 1]
    e.reset()
    lps = [S.token_logprob(e.logit_source(), ids[0])]
    for prev, t in zip(ids, ids[1:]):
        e.step(prev, read=False)
        lps.append(S.token_logprob(e.logit_source(), t))
    return {"surprise": -sum(lps) / len(lps), "tokens": len(ids)}


@endpoint
def ch2_requant(bits: int, scheme: str, text: str = "", prompt: str = "Once upon a time, there was a") -> dict:
    e = session().bits_engine()
    ms = e.requantize(bits, scheme) if bits != 8 or scheme != "row" else e.restore()
    out = {"bits": bits, "scheme": scheme, "requant_ms": ms, "story": surprise_of(e, OUR_STORY)}
    if text.strip():
        out["pasted"] = surprise_of(e, text)
    g = e.generate(encode_prompt(e, prompt), 40, greedy_choice)
    out["continuation"] = e.tokenizer.decode(g.tokens)
    return out


@endpoint
def ch2_speed(variant: str = "main", n: int = 96, warmup: int = 32) -> dict:
    """Greedy tokens per second with the main model on one kernel: the page's own ("main", SIMD
    where available), the scalar build, or the build whose matvec is plain JavaScript. A short
    untimed run first lets the browser's JIT compile the hot code of that kernel."""
    if variant not in SPEED_VARIANTS:
        raise InputError("kernel must be main, scalar or jsmatvec", "variant")
    check_count(n, 1, 400, "n", "time 1 to 400 tokens")
    e = session().speed_engine(variant)
    ids = encode_prompt(e, "Once upon a time")
    if warmup:
        e.generate(ids, warmup, greedy_choice, read_logits=False)
    g = e.generate(ids, n, greedy_choice, read_logits=False)
    dt = g.loop_s
    return {"variant": variant, "simd": e.k.simd, "tokens": len(g.tokens), "seconds": dt, "tps": len(g.tokens) / dt,
            "kernel_ms": g.stats.kernel_s * 1e3, "python_ms": g.stats.python_s * 1e3, "text": e.tokenizer.decode(g.tokens)}
