"""Chapter 2's widget endpoints: why it is fast (KV cache, 8-bit weights, bit depth, kernel speed).
The prose's numbers are ch2_prose.py; the per-token formulas costs.py."""
from __future__ import annotations

import math
import time

from . import costs, quant
from . import sampler as S
from .errors import InputError
from .heldout import heldout_at
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


def pass_macs(e) -> int:
    return costs.pass_macs(e.bundle.config)


def attention_macs(e, t: int) -> int:
    return costs.attention_macs(e.bundle.config, t)


def race_formulas(e, P: int, n: int) -> dict:
    """Passes and multiply-adds of the race's two lanes, from the config alone. The last new token
    is shown but never fed, so n tokens take P + (n - 1) passes with the cache, and
    P + (P + 1) + ... + (P + n - 1) = nP + n(n - 1)/2 without; each lane scores the vocabulary
    (V x d) once per new token."""
    A, head = pass_macs(e), costs.matrix_macs(e.bundle.config)["head"]
    T = P + n - 1
    with_macs = T * A + n * head + sum(attention_macs(e, t) for t in range(1, T + 1))
    without_macs = sum(t * A + head + sum(attention_macs(e, u) for u in range(1, t + 1)) for t in range(P, P + n))
    return {"formula_with": T, "formula_without": n * P + n * (n - 1) // 2,
            "formula_macs_with": with_macs, "formula_macs_without": without_macs}


@endpoint
def ch2_kv_race(prompt: str, n: int = 30) -> dict:
    """The same greedy tokens with the KV cache and without it (recomputing the whole context).

    Timing is made fair: both lanes first run two untimed tokens (the browser compiles the hot
    code on first use, and the first lane used to pay for it), then the cached lane runs before
    and after the uncached one and its time is the mean of the two, so drift in the machine's
    speed falls on both lanes alike."""
    e = session().engine()
    check_count(n, 1, 200, "n", "ch2_kv_n_range")
    prompt_ids = encode_prompt(e, prompt)
    P = 1 + len(prompt_ids)  # the beginning-of-text token, then the prompt
    if P + n > e.context:
        raise InputError("ch2_kv_context", "n")

    def run(cached: bool, count: int = n) -> dict:
        t0 = time.perf_counter()
        g = e.generate(prompt_ids, count, greedy_choice, cache=cached)
        return {"tokens": g.tokens, "texts": token_texts(e, g.tokens), "passes": g.stats.passes,
                "macs": g.stats.macs, "ms": (time.perf_counter() - t0) * 1e3}

    run(True, min(n, 2))
    run(False, min(n, 2))
    first = run(True)
    without = run(False)
    second = run(True)
    with_kv = {**first, "ms": (first["ms"] + second["ms"]) / 2, "ms_runs": [first["ms"], second["ms"]]}
    f = race_formulas(e, P, n)
    return {"with_cache": with_kv, "without_cache": without, "prompt_tokens": P, "n": n,
            "same_output": with_kv["tokens"] == without["tokens"],
            "same_work": with_kv["passes"] == without["passes"] and with_kv["macs"] == without["macs"],
            "timing": "after two untimed tokens per lane; cached lane timed before and after the other, mean of the two",
            **f, "last_t": P + n - 1, "last_step_attn_macs": attention_macs(e, P + n - 1),
            **kv_figures(e)}


@endpoint
def ch2_outliers(rows: int, cols: int, outlier: float, bits: int = 8) -> dict:
    if not (isinstance(rows, int) and 1 <= rows <= 256 and isinstance(cols, int) and 4 <= cols <= 1024):
        raise InputError("ch2_outliers_shape", "shape")
    if not isinstance(outlier, (int, float)) or not 0 < abs(outlier) <= 1e6:
        raise InputError("ch2_outlier_size", "outlier", most=1_000_000)
    return quant.planted_outlier_errors(rows, cols, float(outlier), bits)


def surprise_of(e, text: str) -> dict:
    """Mean -ln p of the text's tokens under the model (each predicted from the ones before it)."""
    ids = e.tokenizer.encode(check_text(text, "text"))
    if not ids:
        raise InputError("ch2_measure_empty", "text")
    ids = ids[:e.context - 1]
    e.reset()
    lps = [S.token_logprob(e.logit_source(), ids[0])]
    for prev, t in zip(ids, ids[1:]):
        e.step(prev, read=False)
        lps.append(S.token_logprob(e.logit_source(), t))
    return {"surprise": -sum(lps) / len(lps), "tokens": len(ids), "lps": lps}


def story_8bit_lps() -> list:
    """The story's per-token log-probabilities at the shipped 8 bits per row, for the paired
    difference each re-quantized row reports. The main model runs those very weights, so it
    measures them without touching the bit-depth copy."""
    return surprise_of(session().engine(), OUR_STORY)["lps"]


def paired_delta(ref: list, lps: list) -> dict:
    """Mean of -ln p here minus -ln p at 8 bits over the story's tokens, with its standard error."""
    import statistics  # here, not at the top: it costs the page's start-up without a snapshot 40 ms

    diff = [a - b for a, b in zip(ref, lps)]
    se = statistics.stdev(diff) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
    return {"delta": statistics.fmean(diff), "delta_se": se}


@endpoint
def ch2_requant(bits: int, scheme: str, text: str = "", prompt: str = "Once upon a time, there was a") -> dict:
    e = session().bits_engine()
    ms = e.requantize(bits, scheme) if bits != 8 or scheme != "row" else e.restore()
    story = surprise_of(e, OUR_STORY)
    story.update(paired_delta(story_8bit_lps(), story.pop("lps")))
    out = {"bits": bits, "scheme": scheme, "requant_ms": ms, "story": story,
           "heldout": heldout_at(e.bundle.meta.get("heldout"), bits, scheme), "lent": session().lend_bits}
    if text.strip():
        pasted = surprise_of(e, text)
        pasted.pop("lps")
        out["pasted"] = pasted
    g = e.generate(encode_prompt(e, prompt), 40, greedy_choice)
    out["continuation"] = e.tokenizer.decode(g.tokens)
    return out


@endpoint
def ch2_lend(on: bool) -> dict:
    """Lend the bit-depth widget's model to chapter 1's playground (on), or give the playground the
    shipped model back (off). Only the playground changes; every other widget keeps the main model."""
    if not isinstance(on, bool):
        raise InputError("ch2_lend_on", "on")
    ss = session()
    ss.lend_bits = on
    bits, scheme = ss.playground_engine().quant
    return {"lent": on, "bits": bits, "scheme": scheme}


@endpoint
def ch2_speed(variant: str = "main", n: int = 96, warmup: int = 32) -> dict:
    """Greedy tokens per second with the main model on one kernel: the page's own ("main", SIMD
    where available), the scalar build, or the build whose matvec is plain JavaScript. A short
    untimed run first lets the browser's JIT compile the hot code of that kernel."""
    if variant not in SPEED_VARIANTS:
        raise InputError("ch2_speed_variant", "variant")
    check_count(n, 1, 400, "n", "ch2_speed_n_range")
    e = session().speed_engine(variant)
    ids = encode_prompt(e, "Once upon a time")
    if warmup:
        e.generate(ids, warmup, greedy_choice, read_logits=False)
    g = e.generate(ids, n, greedy_choice, read_logits=False)
    dt = g.loop_s
    return {"variant": variant, "simd": e.simd, "tokens": len(g.tokens), "seconds": dt, "tps": len(g.tokens) / dt,
            "macs": g.stats.macs, "warmup": warmup,
            "kernel_ms": g.stats.kernel_s * 1e3, "python_ms": g.stats.python_s * 1e3, "text": e.tokenizer.decode(g.tokens)}
