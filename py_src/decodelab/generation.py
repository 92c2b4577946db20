"""The generation loop the page and the tests share, and the model's logits after a prompt:
what chapter 1's endpoints, its prose numbers, the diagrams and the report all call."""
from __future__ import annotations

import time

from . import sampler as S
from .inputs import token_texts
from .session import session


def engine():
    return session().engine("main")


def stream(seed: int, skip: int = 0) -> S.Rng:
    """The seed's random stream, past the first `skip` numbers. Each drawn token uses one number,
    so token i of a text always gets number i: ten draws of one token give the same text as one
    draw of ten."""
    rng = S.Rng(seed)
    for _ in range(skip):
        rng.random()
    return rng


def generate_text(e, prompt_ids: list[int], settings: S.Settings, seed: int, n: int,
                  stop_at_end: bool = False, info: bool = True, skip: int = 0) -> dict:
    """The one sampling loop the page and the tests share: same prompt, settings and seed give the
    same tokens in CPython and in Pyodide. Records each token's probability (final distribution),
    its log-probability at T = 1 (for surprise) and the top of the distribution it came from.
    `skip`: random numbers of the seed's stream that earlier tokens of the same text used."""
    rng = stream(seed, skip)

    def choose(src, history):
        st = S.sample_step(src, history, settings, rng, head_size=8)
        lp = S.token_logprob(src, st.token)
        return st.token, {"p": st.prob, "lp": lp, "top": [[i, p, q, e.tokenizer.token_str(i)] for i, p, q in st.head],
                          "survivors": st.survivors}

    stop = (e.eot,) if stop_at_end else ()
    t0 = time.perf_counter()
    gen = e.generate(prompt_ids, n, choose, stop=stop)
    dt = time.perf_counter() - t0
    lps = [x["lp"] for x in gen.steps]
    return {"tokens": gen.tokens, "texts": token_texts(e, gen.tokens), "steps": gen.steps if info else None,
            "surprise": -sum(lps) / len(lps) if lps else None, "stop_reason": gen.stop_reason,
            "stats": gen.stats.as_dict(), "seconds": dt, "slides": gen.stats.slides}


def logits_after(e, ids: list[int]):
    """The logits after the start marker and `ids`, read as the panel reads them, and the history
    the penalty sees."""
    e.reset()
    logits = e.feed(ids) if ids else e.logits()
    return e.logit_source(0, logits), [e.eot] + ids
