"""The diagrams' endpoints: what each picture of a mechanism draws, from our models' real shapes and
real runs. One endpoint per diagram (web/js/diagrams/), each a thin reading of what the chapters'
own code does, so a picture can never show a pipeline, cache or round the engine does not run."""
from __future__ import annotations

import math

from . import costs
from . import sampler as S
from .generation import engine, generate_text, logits_after
from .errors import InputError
from .inputs import check_seed, encode_prompt
from .ch1 import OPENINGS, rank_sample
from .session import endpoint, session

# the pipeline in the order the sampler applies it (sampler.STEPS, each rule's `name`): the
# penalty and the temperature reshape the distribution, the cuts remove tokens, the draw picks one
PIPELINE = tuple(step.name for step in S.STEPS)
MATRIX = "h0.qkv"  # the int8 figure's matrix: its input is one LayerNorm from the embedding
STORY_MAX = 120  # tokens of the opening figure's story (a few seconds' reading at its pace)


def pipeline_order(s: S.Settings) -> tuple[str, ...]:
    """The stages in the order these settings apply them ("temperature last" moves it after the cuts)."""
    if s.temperature_last:
        return tuple(x for x in PIPELINE if x != "temperature") + ("temperature",)
    return PIPELINE


def _stage_settings(s: S.Settings, upto: str) -> S.Settings:
    """The settings with only the steps up to `upto` switched on (the later ones off)."""
    kw = s.as_dict()
    order = pipeline_order(s)
    by_name = {step.name: step for step in S.STEPS}
    for name in order[order.index(upto) + 1:]:
        step = by_name[name]
        if step is S.Temperature and s.temperature == 0:
            continue  # greedy stays greedy at every stage
        kw[step.field] = step.neutral
    return S.make_settings(**kw)


@endpoint
def fig_pipeline(prompt: str, settings: dict, extra: list | None = None) -> dict:
    """Each stage of the sampler on the next-token distribution after `prompt`: how many tokens
    are still candidates, the favourite and its probability, what mass the cuts removed. The last
    stage is exactly the panel's final distribution (ch1_view's survivors)."""
    e = engine()
    s = S.make_settings(**settings)
    ids = encode_prompt(e, prompt, extra or [])
    src, history = logits_after(e, ids)
    stages = []
    for name in pipeline_order(s):
        st = S.sample_step(src, history, _stage_settings(s, name), None, head_size=3)
        stages.append({"stage": name, "survivors": st.survivors, "cut_mass": st.cut_mass,
                       "top": [{"text": e.tokenizer.token_str(i), "q": q} for i, _, q in st.head[:3] if q > 0]})
    final = S.sample_step(src, history, s, None, head_size=1)
    return {"vocab": e.vocab, "stages": stages, "greedy": e.tokenizer.token_str(final.token),
            "settings": s.as_dict(), "n_prompt_tokens": len(ids)}


@endpoint
def fig_model_map(draft: bool = False) -> dict:
    """The model drawn once (diagrams/model-map.js): each model's shape and size, the main model's,
    and with draft the draft's too (the speculative chapter's map; asking loads it)."""
    names = ("main", "draft") if draft else ("main",)
    return {name: {**costs.shape(session().engine(name).bundle.config), "params": session().engine(name).bundle.param_count()}
            for name in names}


# The filters' figures: each cut alone, at its example value (sampler.Rule.example, the value its
# paragraph uses), on the two openings the top-k section sets against each other: one where the
# model is sure of its next token, one where dozens of words fit (ch1.OPENINGS).
CUT_OPENINGS = (OPENINGS[3], OPENINGS[1])


@endpoint
def fig_cut(rule: str, value: float | None = None) -> dict:
    """What one filter keeps of the model's own distribution (T = 1, nothing else on) after each
    of CUT_OPENINGS, at `value` (its figure's slider; by default the value its paragraph uses):
    the probabilities by rank at log-spaced ranks (every edge of what it keeps among them), the
    kept ranks as [first, last] runs, how many pass and the mass cut away, the favourite, and for
    a cut that is a bar (min-p, top-nσ) the bar as a probability. A value out of the rule's range
    is an InputError naming the rule's field (the slider's box)."""
    cut = next((c for c in S.CUTS if c.name == rule and c.example is not None), None)
    if cut is None:
        raise InputError("args_bad", "rule", endpoint="fig_cut", detail=f"no cut named {rule!r}")
    value = cut.example if value is None else value
    cut.check(value)
    value = cut.type(value)
    e = engine()
    neutral = {c.field: c.neutral for c in S.CUTS}
    views = []
    for prompt in CUT_OPENINGS:
        src, history = logits_after(e, encode_prompt(e, prompt))
        V = src.vocab_size
        full = S.sample_step(src, history, S.make_settings(**neutral, temperature=1.0), None, head_size=V, fetch_all=True)
        probs = [p for _, p, _ in full.head]
        st = S.sample_step(src, history, S.make_settings(**{**neutral, "temperature": 1.0, cut.field: value}), None, head_size=1)
        edges = {r for a, b in st.kept for r in (a - 1, a, b, b + 1) if 1 <= r <= V}
        ranks = sorted(set(rank_sample(V, every=12, per_decade=16)) | edges)
        bar = cut.bar(value, probs[0], src.prepare(1.0, {}, 0).std) if cut.on(value) else None
        views.append({"prompt": prompt, "ranks": ranks, "p": [probs[r - 1] for r in ranks], "kept": st.kept,
                      "survivors": st.survivors, "cut_mass": st.cut_mass, "bar": bar,
                      "top": {"text": e.tokenizer.token_str(full.head[0][0]), "p": probs[0]}})
    return {"rule": cut.name, "value": value, "symbol": cut.symbol, "vocab": views[0]["ranks"][-1], "views": views}


KV_TOKENS = 12  # the KV figure's rows: the opening's first tokens


@endpoint
def fig_kv(prompt: str = "The dog ran") -> dict:
    """The KV cache of the main model after the prompt's first tokens, read from the kernel: per
    layer, token and head the size (root mean square) of the cached key and value vectors, so the
    figure draws each layer's tables with their real content; the prompt's tokens label the rows."""
    e = engine()
    ids = (encode_prompt(e, prompt) or [e.eot])[:KV_TOKENS]
    logits_after(e, ids)  # the cache now holds the start marker (position 0), then these tokens
    hd, n = e.d_model // e.n_heads, len(ids)

    def sizes(values: bool) -> list:
        out = [[[0.0] * e.n_heads for _ in ids] for _ in range(e.n_layers)]
        for layer in range(e.n_layers):
            for head in range(e.n_heads):
                v = e.cached(values, layer, head, n + 1)
                for p in range(n):
                    row = v[(p + 1) * hd:(p + 2) * hd]
                    out[layer][p][head] = round(math.sqrt(sum(x * x for x in row) / hd), 4)
        return out

    return {"tokens": [e.tokenizer.token_str(i) for i in ids], "n_layers": e.n_layers,
            "d_model": e.d_model, "n_heads": e.n_heads, "head_dim": hd,
            "context": e.context, "bytes_per_token": e.kv_bytes_per_token(),
            "bytes_per_value": costs.KV_VALUE_BYTES, "key_size": sizes(False), "value_size": sizes(True)}


LANES = 16  # int8 values in one 128-bit SIMD register: the kernel's step along a row


def _layer1_input(bundle, token: int) -> list[float]:
    """What layer 1's attention matrix multiplies for `token` at position 0: LN1(wte[token] +
    wpe[0]), the first two steps of model.c's forward pass, in plain Python."""
    def row(name, r):
        t = bundle.tensors[name]
        s = float(t.scale_list()[r])
        return [s * v for v in memoryview(bytes(t.data[r * t.cols:(r + 1) * t.cols])).cast("b")]

    x = [a + b for a, b in zip(row("wte", token), row("wpe", 0))]
    d = len(x)
    mean = sum(x) / d
    inv = 1.0 / math.sqrt(sum((v - mean) ** 2 for v in x) / d + 1e-5)  # model.c's layer_norm
    w, b = bundle.tensors["h0.ln1.w"].floats(), bundle.tensors["h0.ln1.b"].floats()
    return [(v - mean) * inv * w[i] + b[i] for i, v in enumerate(x)]


@endpoint
def fig_int8_row(row: int = 0, prompt: str = "Once") -> dict:
    """One real row of layer 1's attention matrix (h0.qkv) times its real input, the prompt's first
    token after the embedding and LayerNorm, as the kernel's fast path computes it: the input
    rounded to 7-bit integers with one scale, the row's stored int8 weights with theirs, sixteen
    integer products per SIMD step summed exactly, then one multiplication by both scales. The step
    the figure opens on is the one holding the row's largest weight (the one that became 127)."""
    e = engine()
    b = session().engine("main").bundle
    t = b.tensors[MATRIX]
    if not 0 <= int(row) < t.rows:
        raise InputError("fig_row_range", "row", hi=t.rows - 1)
    row = int(row)
    ids = encode_prompt(e, prompt) or [e.eot]
    q = list(memoryview(bytes(t.data[row * t.cols:(row + 1) * t.cols])).cast("b"))
    s = float(t.scale_list()[row])
    x = _layer1_input(b, ids[0])
    xq, xs = e.quantize_input(x)  # the kernel's own rounding (dl_quantize_x)
    at = max(range(t.cols), key=lambda c: abs(q[c]))  # the row's largest weight: 127 by construction
    products = [a * b for a, b in zip(q, xq)]
    steps = [sum(products[g:g + LANES]) for g in range(0, t.cols, LANES)]
    from .ch2_prose import matrix_words

    return {"matrix": MATRIX, "label": matrix_words(MATRIX), "rows": t.rows, "cols": t.cols, "row": row,
            "token": e.tokenizer.token_str(ids[0]), "scale": s, "x_scale": xs, "lanes": LANES,
            "max_at": at, "step": at // LANES, "q": q, "w": [s * v for v in q], "xq": xq, "products": products,
            "steps": steps, "total": sum(steps), "y": s * xs * sum(steps),
            "y_float": sum(s * q[c] * x[c] for c in range(t.cols)),  # the same weights, the input unrounded
            "row_max_q": abs(q[at]), "row_max_w": 127 * s, "error_bound": s / 2}


@endpoint
def fig_spec_round(prompt: str = "Once upon a time, there was a little", gamma: int = 4, seed: int = 3,
                   rounds: int = 3) -> dict:
    """A few real rounds of speculative sampling (T = 1) with our draft and target: for each,
    the draft's gamma guesses with q(x), the target's p(x) from its one block pass, the uniform u
    each check drew against min(1, p/q), and the correction or bonus token."""
    from .speculative import check_gamma

    t = session().engine("main")
    gamma = check_gamma(gamma, lo=1)
    seed = check_seed(seed)
    ids = encode_prompt(t, prompt)
    dec = session().spec_decoder()
    trace: list = []
    s = S.Settings(temperature=1.0, top_p=1.0)
    dec.generate(ids, max(1, int(rounds)) * (gamma + 1), gamma, s, seed=seed, trace=trace)
    tok = t.tokenizer.token_str
    out = []
    for r in trace[:max(1, int(rounds))]:
        checks = [{"text": tok(c["x"]), "p": c["p"], "q": c["q"], "u": c["u"],
                   "ratio": min(1.0, c["p"] / c["q"]) if c["q"] else 0.0, "accept": c["accept"]}
                  for c in r["checks"]]
        out.append({"drafts": [tok(x) for x in r["drafts"]], "checks": checks, "accepted": r["accepted"],
                    "token": tok(r["token"]), "kind": "bonus" if r["accepted"] == gamma else "correction"})
    return {"prompt": prompt, "gamma": gamma, "rounds": out}


STORY_CANDIDATES = 5  # the opening figure's list of what the model weighed for each token


@endpoint
def fig_story(prompt: str = "Once upon a time", seed: int = 1, n: int = 80, temperature: float | None = None) -> dict:
    """The opening figure's story: the page's default sampling (T 0.8, top-p 0.95; the figure's
    own slider may set another temperature), each token with the probability it had when it was
    drawn and the few likeliest candidates (their probability after the temperature, and after
    the filters: 0 for one they cut), the drawn one marked; stops at the end-of-story token."""
    e = engine()
    seed = check_seed(seed)
    n = max(1, min(int(n), STORY_MAX))
    s = S.DEFAULTS if temperature is None else S.make_settings(**{**S.DEFAULTS.as_dict(), "temperature": temperature})
    r = generate_text(e, encode_prompt(e, prompt), s, seed, n, stop_at_end=True)
    cands = []
    for tok, st in zip(r["tokens"], r["steps"]):
        top = st["top"][:STORY_CANDIDATES]  # [id, p after the temperature, q after the filters, text]
        cands.append({"texts": [c[3] for c in top], "p": [c[1] for c in top], "q": [c[2] for c in top],
                      "drawn": next((k for k, c in enumerate(top) if c[0] == tok), -1)})
    return {"prompt": prompt, "texts": r["texts"], "p": [x["p"] for x in r["steps"]], "candidates": cands,
            "temperature": s.temperature, "stop_reason": r["stop_reason"], "seed": seed}
