"""Chapter 1 endpoints: how the model picks a word. Each widget calls one of these."""
from __future__ import annotations

import contextlib
import io
import math
import time
import traceback
from array import array

from . import sampler as S
from .errors import InputError
from .inputs import check_count, check_seed, encode_prompt, token_texts
from .session import endpoint, session


def engine():
    return session().engine("main")


def generate_text(e, prompt_ids: list[int], settings: S.Settings, seed: int, n: int,
                  stop_at_end: bool = False, info: bool = True) -> dict:
    """The one sampling loop the page and the tests share: same prompt, settings and seed give the
    same tokens in CPython and in Pyodide. Records each token's probability (final distribution),
    its log-probability at T = 1 (for surprise) and the top of the distribution it came from."""
    rng = S.Rng(seed)

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


# ---- the control panel --------------------------------------------------------------------------

def _view_source(e, ids: list[int]):
    """Logits after `ids`, kept in the panel's own kernel buffer so other widgets cannot disturb
    them; moving a slider re-uses them without running the model again."""
    pc = session().panel()
    key = tuple(ids)
    if pc.key != key:
        e.reset()
        logits = e.feed(ids) if ids else e.logits()
        e.k.put(pc.logits_ptr, logits)
        pc.key, pc.logits = key, array("f", logits)
        pc.order_key = pc.plot_key = None
    return pc.source.bind(pc.logits, pc.logits_ptr)


def rank_sample(n: int) -> list[int]:
    """Ranks 1..40, then about 30 per decade up to n: enough for a log-log plot, small to send."""
    xs, x = list(range(1, min(n, 40) + 1)), 40.0
    while x < n:
        x *= 10 ** (1 / 30)
        r = min(n, int(round(x)))
        if r > xs[-1]:
            xs.append(r)
    return xs


def _rank_plot(src, ids, history, s: S.Settings) -> dict:
    """Probability and running mass by rank (log-spaced ranks) of the distribution before the
    filters. It depends on the prompt, temperature and penalty only, so moving top-k, top-p or
    min-p re-uses it. The ranking itself does not depend on the temperature either, so a
    temperature move re-uses the sorted logits, and the kernel redoes the exponentials
    (dl_rank_curve: microseconds, where a Python pass over the vocabulary takes milliseconds in
    Pyodide), keeping the panel within a frame."""
    pc = session().panel()
    key = (tuple(ids), s.temperature, s.repetition_penalty, s.penalty_window, s.temperature_last)
    if pc.plot_key != key:
        over = S.penalty_overrides(src, history, s.repetition_penalty, int(s.penalty_window))
        order_key = (tuple(ids), s.repetition_penalty, s.penalty_window)
        if pc.order_key != order_key:
            pc.order_key, pc.sorted_ptr = order_key, src.sorted_copy(over)
        # with temperature last (or T = 0) the curve is the model's own distribution, at T = 1
        inv = 1.0 if (s.temperature_last or s.temperature == 0) else 1.0 / s.temperature
        _, _, M, Z, _ = src.prepare(inv, over, 0)
        xs = rank_sample(src.vocab_size)
        p, cum = src.rank_curve(pc.sorted_ptr, inv, M, Z, xs)
        pc.plot_key, pc.plot = key, {"rank": xs, "p": p, "cum": cum}
    return pc.plot


@endpoint
def ch1_view(prompt: str, settings: dict, extra: list | None = None) -> dict:
    """The next-token distribution after prompt (+ extra token ids) under the given settings."""
    t0 = time.perf_counter()
    e = engine()
    s = S.make_settings(**settings)
    ids = encode_prompt(e, prompt, extra or [])
    src = _view_source(e, ids)
    history = [e.eot] + ids
    st = S.sample_step(src, history, s, None, head_size=12)
    top = [{"id": i, "text": e.tokenizer.token_str(i), "p": p, "q": q, "kept": q > 0} for i, p, q in st.head]
    tail_p = max(0.0, 1.0 - sum(t["p"] for t in top))
    tail_q = max(0.0, 1.0 - sum(t["q"] for t in top))
    return {
        "n_prompt_tokens": len(ids), "vocab": e.vocab, "top": top, "tail": {"p": tail_p, "q": tail_q},
        "plot": _rank_plot(src, ids, history, s),
        "survivors": st.survivors, "cut_mass": st.cut_mass, "entropy": st.entropy, "eff": math.exp(st.entropy),
        "entropy_full": st.entropy_full, "eff_full": math.exp(st.entropy_full),
        "greedy": st.head[0][0], "settings": s.as_dict(), "ms": (time.perf_counter() - t0) * 1e3,
    }


@endpoint
def ch1_draw(prompt: str, settings: dict, seed: int, n: int = 1, extra: list | None = None) -> dict:
    """Draw n tokens after prompt + extra with the seeded sampler."""
    e = engine()
    s = S.make_settings(**settings)
    check_count(n, 1, 200, "n", "draw between 1 and 200 tokens at a time")
    seed = check_seed(seed)
    ids = encode_prompt(e, prompt, extra or [])
    return generate_text(e, ids, s, seed, n)


@endpoint
def ch1_tokenize(prompt: str) -> dict:
    e = engine()
    ids = e.tokenizer.encode(prompt)
    return {"ids": ids, "texts": token_texts(e, ids)}


# ---- four temperatures ----------------------------------------------------------------------------

@endpoint
def ch1_four(prompt: str, temps: list, seed: int, n: int = 40, top_p: float = 1.0) -> dict:
    """One prompt continued at several temperatures from the same seed (one random stream)."""
    e = engine()
    seed = check_seed(seed)
    check_count(n, 1, 200, "n", "continue by 1 to 200 tokens")
    if not isinstance(temps, list) or not 1 <= len(temps) <= 8:
        raise InputError("give one to eight temperatures", "temps")
    ids = encode_prompt(e, prompt)
    settings = []
    for i, t in enumerate(temps):
        try:
            settings.append(S.make_settings(temperature=t, top_p=top_p))
        except InputError as err:  # name the column, so its own box shows the message
            raise InputError(f"column {i + 1}: {err}", f"temps.{i}") from None
    cols = []
    for t, s in zip(temps, settings):
        g = generate_text(e, ids, s, seed, n, stop_at_end=True)
        cols.append({"temperature": t, "tokens": g["tokens"], "texts": g["texts"], "surprise": g["surprise"],
                     "probs": [x["p"] for x in g["steps"]], "stop_reason": g["stop_reason"]})
    return {"columns": cols, "seed": seed}


# ---- greedy loops ------------------------------------------------------------------------------

def repeated_4grams(tokens: list[int], start: int) -> list[bool]:
    """For each of tokens[start:], whether it completes a 4-gram that already occurred earlier."""
    seen, flags = set(), []
    for i in range(len(tokens)):
        g = tuple(tokens[i - 3:i + 1]) if i >= 3 else None
        if i >= start:
            flags.append(g is not None and g in seen)
        if g is not None:
            seen.add(g)
    return flags


@endpoint
def ch1_loops(openings: list, n: int = 80, penalty: float = 1.0) -> dict:
    e = engine()
    check_count(n, 1, 200, "n", "continue by 1 to 200 tokens")
    if not isinstance(openings, list) or not 1 <= len(openings) <= 4:
        raise InputError("give one to four openings", "openings")
    s = S.make_settings(temperature=0.0, repetition_penalty=penalty)
    cols = []
    for i, text in enumerate(openings):
        ids = encode_prompt(e, text, field=f"openings.{i}")
        g = generate_text(e, ids, s, 0, n)
        full = ids + g["tokens"]
        flags = repeated_4grams(full, len(ids))
        cols.append({"opening": text, "texts": g["texts"], "tokens": g["tokens"], "repeat": flags,
                     "repeat_share": sum(flags) / len(flags) if flags else 0.0})
    return {"columns": cols, "penalty": penalty}


# ---- the end token and the context slide --------------------------------------------------------

@endpoint
def ch1_long(prompt: str, seed: int, n: int, stop_at_end: bool, temperature: float = 0.8) -> dict:
    e = engine()
    check_count(n, 1, 1200, "n", "ask for 1 to 1200 tokens")
    s = S.make_settings(temperature=temperature, top_p=0.95)
    g = generate_text(e, encode_prompt(e, prompt), s, check_seed(seed), n, stop_at_end=stop_at_end, info=False)
    g.update(context=e.context, keep=e.keep, cache_len=len(e.history), end_token=e.eot,
             end_text=e.tokenizer.token_str(e.eot))
    return g


# ---- the Python cell -----------------------------------------------------------------------------

@endpoint
def run_cell(code: str) -> dict:
    """Run the reader's Python in the worker's interpreter; return what it printed (or the error)."""
    if not isinstance(code, str) or not code.strip():
        raise InputError("the cell is empty", "code")
    out = io.StringIO()
    ns = {"__name__": "__cell__"}
    t0 = time.perf_counter()
    ok = True
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, "<cell>", "exec"), ns)
        except Exception:
            ok = False
            tb = traceback.format_exc().splitlines()
            # drop our own frames: the reader's code is what matters
            keep = [ln for ln in tb if "decodelab" not in ln and "exec(compile" not in ln]
            print("\n".join(keep))
    text = out.getvalue()
    if len(text) > 20000:
        text = text[:20000] + "\n… (output cut at 20,000 characters)"
    return {"ok": ok, "output": text, "ms": (time.perf_counter() - t0) * 1e3}
