"""Chapter 1 endpoints: how the model picks a word. Each widget calls one of these."""
from __future__ import annotations

import contextlib
import io
import linecache
import math
import time
import traceback

from . import sampler as S
from .errors import InputError
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
MAX_CELL_OUTPUT = 20000  # characters of a Python cell's output the page shows


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


# ---- the control panel --------------------------------------------------------------------------

def _view_source(e, ids: list[int]):
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
    src = _view_source(e, ids)
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


# ---- the prose's live numbers ---------------------------------------------------------------
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


def _source(e, ids: list[int]):
    """The logits after the start marker and `ids`, read as the panel reads them."""
    e.reset()
    logits = e.feed(ids) if ids else e.logits()
    return e.logit_source(0, logits), [e.eot] + ids


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
    src = _view_source(e, ids)
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
    src, hist = _source(e, e.tokenizer.encode(OPENINGS[3]))  # one token is right
    dist, _ = _full(src, hist)
    out.update({"topk.one_tok": tok(dist[0][0]), "topk.one_p": dist[0][1],
                "topk.one_rest40": sum(p for _, p in dist[1:40]),
                "topk.one_kstar95": _survivors(src, hist, temperature=1.0, top_p=0.95)})
    src, hist = _source(e, e.tokenizer.encode(OPENINGS[1]))  # dozens of words fit
    dist, _ = _full(src, hist)
    out.update({"topk.many_top_tok": tok(dist[0][0]), "topk.many_top_p": dist[0][1],
                "topk.many_n50": _survivors(src, hist, temperature=1.0, top_p=0.5),
                "topk.many_cut40": max(0.0, 1.0 - sum(p for _, p in dist[:40])),
                "topk.many_beyond": [tok(i) for i, _ in dist[40:43]],
                "topk.many_kstar95": _survivors(src, hist, temperature=1.0, top_p=0.95),
                "minp.many_thr": 0.1 * dist[0][1],
                "minp.many_kept": _survivors(src, hist, temperature=1.0, top_p=1.0, min_p=0.1)})
    for key, (prompt, text) in PENALTY_CASES.items():
        t = _one_token(e, text)
        src, hist = _source(e, e.tokenizer.encode(prompt))
        for r, name in ((1.0, "r1"), (2.0, "r2")):
            dist, _ = _full(src, hist, r)
            out[f"pen.{key}_{name}"] = dict(dist)[t]
            if key == "the" and name == "r2":
                out["pen.the_rank_r2"] = next(k for k, (i, _) in enumerate(dist, 1) if i == t)
    for key, prompt in END_CASES.items():
        src, _ = _source(e, e.tokenizer.encode(prompt))
        out[f"end.{key}"] = math.exp(S.token_logprob(src, e.eot))
    src, hist = _source(e, e.tokenizer.encode(NOT_ENGLISH))
    out["english.eff_cyr"] = math.exp(_full(src, hist)[1].entropy)
    out["english.prompt"] = NOT_ENGLISH
    return out


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


# ---- the Python cell -----------------------------------------------------------------------------

@endpoint
def run_cell(code: str) -> dict:
    """Run the reader's Python in the worker's interpreter; return what it printed (or the error)."""
    if not isinstance(code, str) or not code.strip():
        raise InputError("ch1_cell_empty", "code")
    out = io.StringIO()
    ns = {"__name__": "__cell__"}
    t0 = time.perf_counter()
    ok = True
    # the traceback can then quote the reader's own lines (and point at them)
    linecache.cache["<cell>"] = (len(code), None, code.splitlines(True), "<cell>")
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, "<cell>", "exec"), ns)
        except Exception as err:
            ok = False
            # start the traceback at the reader's code: our own frame (this exec) is noise, and
            # filtering its lines out of the text used to leave its ~~~^^^ marker behind
            tb = err.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename != "<cell>":
                tb = tb.tb_next
            print("".join(traceback.format_exception(type(err), err, tb)), end="")
    text = out.getvalue()
    cut = len(text) > MAX_CELL_OUTPUT  # the page says so after the text (w1.pc.cut)
    return {"ok": ok, "output": text[:MAX_CELL_OUTPUT], "cut": MAX_CELL_OUTPUT if cut else None,
            "ms": (time.perf_counter() - t0) * 1e3}
