"""Chapter 2 endpoints: why it is fast (KV cache, 8-bit weights, bit depth, kernel speed)."""
from __future__ import annotations

import math
import time

from . import costs, quant, spec
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


# ---- chapter 2's prose numbers ------------------------------------------------------------------
# Every model number in chapter 2's text that does not come from a widget's own run comes from here:
# the config, the bundle's matrices and scales, and the held-out figures the export wrote into the
# model's metadata. No kernel call; tens of milliseconds.

MATRIX_KINDS = ("wte", "wpe", "qkv", "proj", "fc", "fc2")  # the page names each: text key w2.matrix.KIND
CHEAP, THREAD, COLLAPSE = 0.01, 0.05, 1.0  # nats/token over float: "nothing measurable", "loses the thread", "collapsed"
# |q| <= 63 of an 8-bit weight rounds to 0 at 2 bits with one scale per row (the row's largest is +-127)
_ZERO_AT_2BITS = bytes(1 if min(i, 256 - i) <= 63 else 0 for i in range(256))


def matrix_words(name: str) -> dict:
    """"h3.fc" -> the text key of "layer 4's first feed-forward matrix" and its arguments (the page
    writes it in the reader's language)."""
    if name in MATRIX_KINDS:
        return {"key": f"w2.matrix.{name}", "args": {}}
    layer, kind = name.split(".", 1)
    if kind not in MATRIX_KINDS:
        return {"key": "w2.matrix.other", "args": {"name": name}}
    return {"key": f"w2.matrix.{kind}", "args": {"layer": int(layer[1:]) + 1}}


def heldout_summary(h: dict | None) -> dict | None:
    """meta.heldout (report.heldout_figures, written at export) -> the figures and depths chapter 2
    reads out. Depths are the measured ones, from 8 bits (the shipped int8) down; None without it."""
    if not h or "requant" not in h:
        return None
    rq = h["requant"]
    fl = rq["float_nats_per_token"]
    out = {"stories": h["stories"], "tokens": h["tokens"], "float_nats": h["float"]["nats_per_token"],
           "int8_delta": h["int8"]["nats_per_token"] - h["float"]["nats_per_token"],
           "sweep_stories": rq["stories"], "sweep_tokens": rq["tokens"], "sweep_float_nats": fl,
           "delta": {}, "cheap": {}, "thread": {}, "thread_delta": {}, "collapse": {}, "collapse_delta": {}}
    for sch in spec.SCHEME_NAMES:
        by = rq.get(sch)
        if not by:
            continue
        delta = {int(k): v["nats_per_token"] - fl for k, v in by.items()}
        if sch == "row":
            delta[8] = rq["int8_nats_per_token"] - fl  # 8 bits per row is the shipped model
        depths = sorted(delta, reverse=True)
        out["delta"][sch] = {str(b): delta[b] for b in depths}
        cheap = []
        for b in depths:
            if delta[b] >= CHEAP:
                break
            cheap.append(b)
        out["cheap"][sch] = cheap
        thr = next((b for b in depths if delta[b] >= THREAD), None)
        col = next((b for b in depths if delta[b] >= COLLAPSE), None)
        out["thread"][sch], out["thread_delta"][sch] = thr, (delta[thr] if thr else None)
        out["collapse"][sch], out["collapse_delta"][sch] = col, (delta[col] if col else None)
    return out


def heldout_at(h: dict | None, bits: int, scheme: str) -> dict | None:
    """The held-out figure of one depth and scheme, beside the widget's story figure (None when the
    export did not measure it)."""
    s = heldout_summary(h)
    if not s or str(bits) not in s["delta"].get(scheme, {}):
        return None
    d = s["delta"][scheme][str(bits)]
    return {"delta": d, "nats": s["sweep_float_nats"] + d, "float_nats": s["sweep_float_nats"],
            "stories": s["sweep_stories"]}


@endpoint
def ch2_facts() -> dict:
    """Chapter 2's config- and bundle-derived figures (no kernel calls)."""
    import statistics  # not at the top: see paired_delta

    e = session().engine()
    b = e.bundle
    d, L, F, T = e.d_model, e.n_layers, e.d_ff, e.context
    cost = {**costs.matrix_macs(e.bundle.config), "matrices": pass_macs(e),
            "attn_per_position": attention_macs(e, 1), "attn_full": attention_macs(e, T)}
    cost["token"] = costs.token_macs(b.config)
    cost["head_share"] = cost["head"] / cost["token"]
    cost["attn_share_full"] = cost["attn_full"] / (cost["token"] + cost["attn_full"])
    kv_tok, w = e.kv_bytes_per_token(), e.weights_bytes()
    kv = {"bytes_per_token": kv_tok, "bytes_full_context": kv_tok * T, "weights_bytes": w,
          "cache_over_weights": kv_tok * T / w, "crossover_tokens": -(-w // kv_tok)}
    mats, zero2 = [], 0
    for name, t in b.tensors.items():
        if t.scales is None:
            continue
        sc = t.scale_list()
        med = statistics.median(sc)
        mats.append({"name": name, "label": matrix_words(name), "rows": t.rows, "cols": t.cols,
                     "f32": t.format.float32_bytes(t.rows, t.cols), "i8": t.format.data_bytes(t.rows, t.cols),
                     "scales": t.format.scale_bytes(t.rows),
                     "row_max_median": 127 * med, "scale_median": med,
                     "max_over_median": max(sc) / med if med else 0.0})
        zero2 += bytes(t.data).translate(_ZERO_AT_2BITS).count(1)
    n_w = sum(m["i8"] for m in mats)
    n_rows = sum(m["rows"] for m in mats)
    n_groups = sum(m["rows"] * -(-m["cols"] // 32) for m in mats)
    vec = sum(len(t.data) for t in b.tensors.values() if t.scales is None)
    f32, scb = sum(m["f32"] for m in mats), sum(m["scales"] for m in mats)
    total = n_w + scb + vec
    worst = max(mats, key=lambda m: m["max_over_median"])
    ex = next((m for m in mats if m["name"] == "h0.fc"), mats[0])
    q8 = {"n_matrices": len(mats), "matrix_float32_bytes": f32, "int8_bytes": n_w, "scale_bytes": scb,
          "vector_bytes": vec, "total_bytes": total, "ratio": (f32 + vec) / total, "scale_share": scb / total,
          "scale_overhead_min": 4 / max(m["cols"] for m in mats), "scale_overhead_max": 4 / min(m["cols"] for m in mats),
          "worst": worst["label"], "worst_max_over_median": worst["max_over_median"], "example": ex}
    bits = {"zero_frac_2bit_row": zero2 / n_w, "scale_bits_row": 32 / d,
            "eff_bits": {sch: {str(bb): bb + 32 * k / n_w for bb in range(2, 9)}
                         for sch, k in ((spec.ROW.name, n_rows), (spec.MATRIX.name, len(mats)), (spec.GROUP32.name, n_groups))},
            "story_tokens": len(e.tokenizer.encode(OUR_STORY)), "thresholds": [CHEAP, THREAD, COLLAPSE]}
    return {"cfg": {**costs.shape(b.config), "kv_vectors_per_token": 2 * L},
            "cost": cost, "kv": kv, "q8": q8, "bits": bits, "matrices": mats,
            "simd": {"max_cols": max(d, F), "max_int_sum": max(d, F) * 127 * 63,
                     "slices_per_token": cost["token"] // 16, "js_calls_per_token": 4 * L + 1},
            "heldout": heldout_summary(b.meta.get("heldout"))}
