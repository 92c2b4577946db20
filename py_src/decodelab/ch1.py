"""Chapter 1's widget endpoints: how the model picks a word. Each widget calls one of these; the
loop they share is generation.py, the prose's numbers ch1_prose.py, the Python cell cell.py."""
from __future__ import annotations

import math
import time

from . import sampler as S
from .errors import InputError
from .generation import engine, generate_text, stream
from .inputs import check_count, check_seed, encode_prompt, token_texts
from .session import endpoint, session


# The panel's openings, in one list: the page gets them from `ping`, and ch1_prose_fixed's
# openings are two of them (the prose names them by their text).
OPENINGS = [
    "Once upon a time, there was a little",
    "The little girl looked at the",
    "Lily and Tom went to the beach. They",
    "One day, a big bird flew down and said,",
]
MAX_DRAW = 400  # tokens one draw may write (the playground's longest story)


# ---- the control panel --------------------------------------------------------------------------

def view_source(e, ids: list[int]):
    """Logits after `ids`, kept in the panel's own kernel buffer so other widgets cannot disturb
    them; moving a slider re-uses them without running the model again."""
    pc = session().panel()
    key = tuple(ids)
    if pc.key != key:
        e.reset()
        pc.kept.store(e.feed(ids) if ids else e.logits())
        pc.key = key
        pc.order_key = pc.plot_key = None
    return pc.kept.source()


def rank_sample(n: int, every: int = 40, per_decade: int = 30) -> list[int]:
    """Ranks 1..every, then about per_decade per decade up to n: enough for a log-log plot, small
    to send (the filters' small figures, written into the page, take fewer)."""
    xs, x = list(range(1, min(n, every) + 1)), float(every)
    while x < n:
        x *= 10 ** (1 / per_decade)
        r = min(n, int(round(x)))
        if r > xs[-1]:
            xs.append(r)
    return xs


def _rank_plot(src, ids, history, s: S.Settings) -> dict:
    """Probability and running mass by rank (log-spaced ranks) of the distribution before the
    filters. It depends on the prompt, temperature, penalty and top-k only, so moving top-p or
    min-p re-uses it. The ranking itself does not depend on the temperature either, so a
    temperature move re-uses the sorted logits, and the kernel redoes the exponentials
    (dl_rank_curve: microseconds, where a Python pass over the vocabulary takes milliseconds in
    Pyodide), keeping the panel within a frame.

    The running mass is the one top-p measures: with top-k on, that is the mass of what top-k
    kept, rescaled to 1 at rank k (and nothing past it), so the p line crosses the curve at the
    rank top-p really keeps. Rank k itself is always among the plotted ranks."""
    pc = session().panel()
    k = int(s.top_k)
    key = (tuple(ids), s.temperature, s.repetition_penalty, s.penalty_window, s.temperature_last, k)
    if pc.plot_key != key:
        over = S.penalty_overrides(src, history, s.repetition_penalty, int(s.penalty_window))
        order_key = (tuple(ids), s.repetition_penalty, s.penalty_window)
        if pc.order_key != order_key:
            pc.order_key, pc.sorted_ptr = order_key, src.sorted_copy(over)
        # with temperature last (or T = 0) the curve is the model's own distribution, at T = 1
        inv = 1.0 if (s.temperature_last or s.temperature == 0) else 1.0 / s.temperature
        prep = src.prepare(inv, over, 0)
        xs = rank_sample(src.vocab_size)
        cut = 0 < k < src.vocab_size
        if cut and k not in xs:
            xs = sorted(xs + [k])
        p, cum = src.rank_curve(pc.sorted_ptr, inv, prep.M, prep.Z, xs)
        if cut:
            mass = cum[xs.index(k)]
            cum = [c / mass for c, x in zip(cum, xs) if x <= k]
        pc.plot_key, pc.plot = key, {"rank": xs, "p": p, "cum": cum}
    return pc.plot


@endpoint
def ch1_view(prompt: str, settings: dict, extra: list | None = None, seed: int | None = None) -> dict:
    """The next-token distribution after prompt (+ extra token ids) under the given settings.
    With a seed, also what the panel's next draw will do (`next_draw`, the prose's rng.* keys)."""
    t0 = time.perf_counter()
    e = engine()
    s = S.make_settings(**settings)
    extra = extra or []
    ids = encode_prompt(e, prompt, extra)
    seed = None if seed is None else check_seed(seed)
    src = view_source(e, ids)
    history = [e.eot] + ids
    st = S.sample_step(src, history, s, None, head_size=12)
    top = [{"id": i, "text": e.tokenizer.token_str(i), "p": p, "q": q, "kept": q > 0} for i, p, q in st.head]
    tail_p = max(0.0, 1.0 - sum(t["p"] for t in top))
    # what the filters left below the shown bars (none if every survivor is shown: not a rounding residue)
    tail_q = max(0.0, 1.0 - sum(t["q"] for t in top)) if st.kept[-1][1] > len(top) else 0.0
    out = {
        "n_prompt_tokens": len(ids), "vocab": e.vocab, "top": top, "tail": {"p": tail_p, "q": tail_q},
        "plot": _rank_plot(src, ids, history, s),
        "survivors": st.survivors, "kept": st.kept, "cut_mass": st.cut_mass, "entropy": st.entropy, "eff": math.exp(st.entropy),
        "entropy_full": st.entropy_full, "eff_full": math.exp(st.entropy_full),
        "greedy": st.head[0][0], "settings": s.as_dict(),
    }
    if seed is not None:
        out["next_draw"] = _next_draw(e, src, history, s, st, seed, len(extra))
    out["ms"] = (time.perf_counter() - t0) * 1e3
    return out


def _next_draw(e, src, history, s: S.Settings, st: S.Step, seed: int, drawn: int) -> dict:
    """The three likeliest survivors with their stretches of [0, 1), and the number and token the
    next draw gets: the same call ch1_draw makes, so `rng.pick` is what it will append."""
    tok = e.tokenizer.token_str
    out, lo = {}, 0.0
    kept = [(i, q) for i, _, q in st.head if q > 0]
    for j in range(3):
        if j < len(kept):
            i, q = kept[j]
            out[f"rng.tok{j + 1}"], out[f"rng.int{j + 1}"] = tok(i), [lo, min(1.0, lo + q)]
            lo += q
        else:
            out[f"rng.tok{j + 1}"] = out[f"rng.int{j + 1}"] = None
    out["rng.seed"], out["rng.index"] = seed, drawn + 1
    out["rng.u"] = None if s.temperature == 0 else stream(seed, drawn).random()
    out["rng.pick"] = tok(S.sample_token(src, history, s, stream(seed, drawn)))
    return out


@endpoint
def ch1_draw(prompt: str, settings: dict, seed: int, n: int = 1, extra: list | None = None,
             stop_at_end: bool = False, playground: bool = False) -> dict:
    """Draw n tokens after prompt + extra with the seeded sampler. `extra` are tokens this text
    drew before, from the same seed's stream (so the stream goes on past their numbers);
    stop_at_end stops at the end token (it is kept as the last token). playground: the
    playground's call, which writes with the model chapter 2 may have lent it."""
    e = session().playground_engine() if playground else engine()
    s = S.make_settings(**settings)
    check_count(n, 1, MAX_DRAW, "n", "ch1_draw_count")
    seed = check_seed(seed)
    extra = extra or []
    ids = encode_prompt(e, prompt, extra)
    g = generate_text(e, ids, s, seed, n, stop_at_end=bool(stop_at_end), skip=len(extra))
    g["end_token"] = e.eot
    g["weights"] = {"bits": e.quant[0], "scheme": e.quant[1], "lent": e is not engine()}
    return g


@endpoint
def ch1_tokenize(prompt: str) -> dict:
    e = engine()
    ids = e.tokenizer.encode(prompt)
    return {"ids": ids, "texts": token_texts(e, ids)}


# ---- the toy sampler: eight made-up words -------------------------------------------------------

TOY_MAX_WORDS, TOY_MAX_DRAWS = 16, 500


@endpoint
def ch1_toy(logits: list, settings: dict, seed: int, n: int) -> dict:
    """The whole sampler on a handful of made-up scores, by the same rules as the model's panel:
    each word's probability after temperature (p) and after the filters (q), how many words each
    cut leaves, in the order the sampler applies them, and the first n seeded draws."""
    if not isinstance(logits, list) or not 2 <= len(logits) <= TOY_MAX_WORDS:
        raise InputError("ch1_toy_words", "logits", lo=2, hi=TOY_MAX_WORDS)
    for v in logits:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > 1e4:
            raise InputError("ch1_toy_score", "logits")
    if not isinstance(settings, dict):
        raise InputError("ch1_toy_settings", "settings")
    off = {step.field: step.neutral for step in S.STEPS}  # a rule the toy does not name is off
    s = S.make_settings(**{**off, **settings})
    seed = check_seed(seed)
    check_count(n, 0, TOY_MAX_DRAWS, "n", "ch1_toy_draws")
    src = S.ListLogits(logits)
    st = S.sample_step(src, [], s, None, head_size=len(logits), fetch_all=True)
    p, q = [0.0] * len(logits), [0.0] * len(logits)
    for i, pi, qi in st.head:
        p[i], q[i] = pi, qi
    # each cut that is on, and how many words are left after it and every cut before it
    cuts, on = [], {}
    if s.temperature > 0:
        for cut in S.CUTS:
            if cut.on(getattr(s, cut.field)):
                on[cut.field] = getattr(s, cut.field)
                partial = S.make_settings(**{**off, **on, "temperature": s.temperature})
                cuts.append({"rule": cut.field, "left": S.sample_step(src, [], partial, None, fetch_all=True).survivors})
    rng = S.Rng(seed)
    draws = [S.sample_token(src, [], s, rng) for _ in range(n)]
    return {"p": p, "q": q, "kept": [x > 0 for x in q], "cuts": cuts, "draws": draws,
            "survivors": st.survivors, "settings": s.as_dict()}


# ---- four temperatures ----------------------------------------------------------------------------

@endpoint
def ch1_four(prompt: str, temps: list, seed: int, n: int = 40, top_p: float = 1.0) -> dict:
    """One prompt continued at several temperatures from the same seed (one random stream)."""
    e = engine()
    seed = check_seed(seed)
    check_count(n, 1, 200, "n", "ch1_continue_count")
    if not isinstance(temps, list) or not 1 <= len(temps) <= 8:
        raise InputError("ch1_temps_count", "temps")
    ids = encode_prompt(e, prompt)
    settings = []
    for i, t in enumerate(temps):
        try:
            settings.append(S.make_settings(temperature=t, top_p=top_p))
        except InputError as err:  # name the column, so its own box shows the message
            raise InputError("column", f"temps.{i}", n=i + 1, inner=err.payload()) from None
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
    check_count(n, 1, 200, "n", "ch1_continue_count")
    if not isinstance(openings, list) or not 1 <= len(openings) <= 4:
        raise InputError("ch1_openings_count", "openings")
    s = S.make_settings(temperature=0.0, repetition_penalty=penalty)
    cols = []
    for i, text in enumerate(openings):
        ids = encode_prompt(e, text, field=f"openings.{i}")
        g = generate_text(e, ids, s, 0, n, stop_at_end=True)  # a story that ends is not a loop
        full = ids + g["tokens"]
        flags = repeated_4grams(full, len(ids))
        cols.append({"opening": text, "texts": g["texts"], "tokens": g["tokens"], "repeat": flags,
                     "repeat_share": sum(flags) / len(flags) if flags else 0.0, "stop_reason": g["stop_reason"]})
    return {"columns": cols, "penalty": penalty, "end_token": e.eot}


# ---- the end token and the context slide --------------------------------------------------------

@endpoint
def ch1_long(prompt: str, seed: int, n: int, stop_at_end: bool, temperature: float = S.DEFAULTS.temperature) -> dict:
    e = engine()
    check_count(n, 1, 1200, "n", "ch1_long_count")
    s = S.make_settings(**{**S.DEFAULTS.as_dict(), "temperature": temperature})
    g = generate_text(e, encode_prompt(e, prompt), s, check_seed(seed), n, stop_at_end=stop_at_end, info=False)
    g.update(context=e.context, keep=e.keep, cache_len=len(e.history), end_token=e.eot,
             end_text=e.tokenizer.token_str(e.eot))
    return g
