"""Chapter 1's prose numbers: every model number in the text (keys without the page's "ch1."
prefix), from the panel's prompt (ch1_prose, which follows the reader's panel when asked) or from
fixed probe texts (ch1_prose_fixed). Computations only; the widgets' endpoints are in ch1.py."""
from __future__ import annotations

import math

from . import sampler as S
from .ch1 import OPENINGS, view_source
from .generation import engine, logits_after
from .inputs import encode_prompt
from .session import endpoint


# Every model number in chapter 1's text comes from here (keys without the page's "ch1." prefix).
# All are read at T = 1 with no penalty and no filter unless a key says otherwise: "the model's
# own distribution".

LOOP_TOKENS = 200  # the prose's "200 new tokens" of the naive loop
# (prompt, next token's text) for the repetition-penalty examples; each text is one token
PENALTY_CASES = {
    "the": ("Once upon a time, there was a little girl named Lily. She went to the park. One day, she went to", " the"),
    "stop": ("Once upon a time, there was a little girl named Lily. She went to the park. She was very happy", "."),
    "name": ("Once upon a time, there was a little girl named Lily. One day,", " Lily"),
}
END_CASES = {"p_theend": "The end.",
             "p_everafter": "Once upon a time, there was a little fox. The fox was happy. They lived happily ever after.",
             "p_mid": "Once upon a time, there was a little fox."}
NOT_ENGLISH = "Жила-была девочка"


def _step(src, history, **kw) -> S.Step:
    return S.sample_step(src, history, S.make_settings(**kw), None, head_size=2)


def _full(src, history, r: float = 1.0) -> tuple[list, S.Step]:
    """The whole distribution at T = 1, no filter, penalty r: [(id, p)] by falling p."""
    st = S.sample_step(src, history, S.make_settings(temperature=1.0, top_p=1.0, repetition_penalty=r), None,
                       head_size=src.vocab_size, fetch_all=True)
    return [(i, p) for i, p, _ in st.head], st


def _survivors(src, history, **kw) -> int:
    return _step(src, history, **kw).survivors


def rule_examples(src, history) -> dict:
    """Each cut that declares an example value (sampler.Rule.example), alone at T = 1: how many
    tokens it keeps and the rank of the first (rule.NAME.kept, rule.NAME.from), and the value
    (rule.NAME.value): the live example of the rule's own paragraph, with no code of its own here."""
    out = {}
    neutral = {cut.field: cut.neutral for cut in S.CUTS}
    for cut in S.CUTS:
        if cut.example is None:
            continue
        st = _step(src, history, **{**neutral, "temperature": 1.0, cut.field: cut.example})
        out[f"rule.{cut.name}.kept"], out[f"rule.{cut.name}.from"] = st.survivors, st.kept[0][0]
        out[f"rule.{cut.name}.value"] = cut.example
    return out


def _one_token(e, text: str) -> int:
    ids = e.tokenizer.encode(text)
    if len(ids) != 1:  # the prose names one token; a new tokenizer may need new examples
        raise ValueError(f"{text!r} is {len(ids)} tokens in this model's vocabulary, not one")
    return ids[0]


@endpoint
def ch1_prose(prompt: str, extra: list | None = None) -> dict:
    """The prose's numbers for the panel's prompt and the tokens drawn so far (they do not depend
    on the sliders). The logits come from the panel's cache: free after the panel's own update."""
    e = engine()
    ids = encode_prompt(e, prompt, extra or [])
    src = view_source(e, ids)
    hist = [e.eot] + ids
    dist, st1 = _full(src, hist)
    tok = e.tokenizer.token_str
    ps = [p for _, p in dist]
    a, b = dist[0][0], dist[1][0]
    dz = src.value(a) - src.value(b)
    P = 1 + len(ids)  # the start marker, the prompt and the drawn tokens
    beyond40 = max(0.0, 1.0 - sum(ps[:40]))
    out = {"cur.P": P,
           "head.top1_tok": tok(a), "head.top1_p": ps[0], "head.top2_tok": tok(b), "head.top2_p": ps[1],
           "head.n_over1pct": sum(p >= 0.01 for p in ps), "head.mass_over1pct": sum(p for p in ps if p >= 0.01),
           "head.crumbs_n": sum(p < 0.001 for p in ps), "head.crumbs_mass": sum(p for p in ps if p < 0.001),
           "head.last_p": ps[-1], "head.top_over_last": ps[0] / ps[-1] if ps[-1] > 0 else None,
           "tail.beyond40": beyond40, "tail.never200": (1.0 - beyond40) ** 200,
           "temp.dz": dz, "temp.ratio_t1": math.exp(dz), "temp.ratio_t05": math.exp(2 * dz),
           "temp.ratio_t2": math.exp(dz / 2),
           "ent.H_t1": st1.entropy, "ent.eff_t1": math.exp(st1.entropy)}
    for T, name in ((0.5, "05"), (2.0, "2")):
        h = {i: p for i, p, _ in _step(src, hist, temperature=T, top_p=1.0).head}
        out[f"temp.pa_t{name}"], out[f"temp.pb_t{name}"] = h[a], h[b]
    for T, name in ((0.3, "03"), (1.5, "15")):
        st = _step(src, hist, temperature=T, top_p=1.0)
        out[f"ent.eff_t{name}"], out[f"ent.top1_t{name}"] = math.exp(st.entropy), st.head[0][1]
    out["topp.kstar95_cur"] = _survivors(src, hist, temperature=1.0, top_p=0.95)
    out["minp.thr10_cur"] = 0.1 * ps[0]
    out["minp.kept10_cur"] = _survivors(src, hist, temperature=1.0, top_p=1.0, min_p=0.1)
    out["order.surv_ours"] = _survivors(src, hist, temperature=1.5, top_p=0.95)
    out["order.surv_last"] = _survivors(src, hist, temperature=1.5, top_p=0.95, temperature_last=True)
    out.update(rule_examples(src, hist))
    n = LOOP_TOKENS
    out["loop.naive_positions"] = n * P + n * (n - 1) // 2
    out["loop.cached_positions"] = P + n - 1  # the last new token is never read
    return out


@endpoint
def ch1_prose_fixed() -> dict:
    """The prose's numbers at fixed openings: they change only when the model does."""
    e = engine()
    tok = e.tokenizer.token_str
    out = {}
    src, hist = logits_after(e, e.tokenizer.encode(OPENINGS[3]))  # one token is right
    dist, _ = _full(src, hist)
    out.update({"topk.one_tok": tok(dist[0][0]), "topk.one_p": dist[0][1],
                "topk.one_rest40": sum(p for _, p in dist[1:40]),
                "topk.one_kstar95": _survivors(src, hist, temperature=1.0, top_p=0.95)})
    src, hist = logits_after(e, e.tokenizer.encode(OPENINGS[1]))  # dozens of words fit
    dist, _ = _full(src, hist)
    out.update({"topk.many_top_tok": tok(dist[0][0]), "topk.many_top_p": dist[0][1],
                "topk.many_n50": _survivors(src, hist, temperature=1.0, top_p=0.5),
                "topk.many_cut40": max(0.0, 1.0 - sum(p for _, p in dist[:40])),
                "topk.many_beyond": [tok(i) for i, _ in dist[40:43]],
                "topk.many_kstar95": _survivors(src, hist, temperature=1.0, top_p=0.95),
                "minp.many_thr": 0.1 * dist[0][1],
                "minp.many_kept": _survivors(src, hist, temperature=1.0, top_p=1.0, min_p=0.1),
                # typical-p at its paragraph's value skips the likeliest words here (its figure shows it)
                "typical.many_from": _step(src, hist, top_p=1.0, temperature=1.0,
                                           typical_p=S.TypicalP.example).kept[0][0]})
    for key, (prompt, text) in PENALTY_CASES.items():
        t = _one_token(e, text)
        src, hist = logits_after(e, e.tokenizer.encode(prompt))
        for r, name in ((1.0, "r1"), (2.0, "r2")):
            dist, _ = _full(src, hist, r)
            out[f"pen.{key}_{name}"] = dict(dist)[t]
            if key == "the" and name == "r2":
                out["pen.the_rank_r2"] = next(k for k, (i, _) in enumerate(dist, 1) if i == t)
    for key, prompt in END_CASES.items():
        src, _ = logits_after(e, e.tokenizer.encode(prompt))
        out[f"end.{key}"] = math.exp(S.token_logprob(src, e.eot))
    src, hist = logits_after(e, e.tokenizer.encode(NOT_ENGLISH))
    out["english.eff_cyr"] = math.exp(_full(src, hist)[1].entropy)
    out["english.prompt"] = NOT_ENGLISH
    return out
