"""Speculative decoding: the cost model, rounds from an acceptance string, and the sampling rule.

Pure Python (runs in Pyodide). Costs are in units of one target-model forward pass.

A round: the draft proposes gamma tokens (gamma draft passes), the target checks them all in one
verification pass (cost c_verify). Accepted drafts are kept up to the first rejection; the target
then supplies one token of its own: the correction at the rejected position, or a bonus token
when all gamma drafts were accepted. So a round yields (accepted + 1) tokens.
"""
from __future__ import annotations

import math
from fractions import Fraction

from .errors import InputError

GAMMA_MAX = 32


# ---- validation ---------------------------------------------------------------------------------

def _name(what: str) -> dict:
    """A quantity's name, as a nested text of the messages below (err.spec_name_WHAT)."""
    return {"key": f"err.spec_name_{what}", "args": {}}


def _finite(v, field: str, label: str) -> float:
    """label names the quantity for the message: alpha, gamma, c_draft, c_verify, c_verify_slope."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v) or math.isinf(v):
        raise InputError("spec_not_number", field, label=_name(label))
    return float(v)


def check_alpha(alpha) -> float:
    a = _finite(alpha, "alpha", "alpha")
    if not 0 <= a <= 1:
        raise InputError("spec_alpha_range", "alpha")
    return a


def check_gamma(gamma, lo: int = 0, hi: int = GAMMA_MAX) -> int:
    g = _finite(gamma, "gamma", "gamma")
    if g != int(g) or not lo <= g <= hi:
        raise InputError("spec_gamma_range", "gamma", lo=lo, hi=hi)
    return int(g)


MAX_COST = 1000.0  # in target passes; far beyond any real pair, and keeps every result finite
MAX_FLAGS = 2000  # the round table's acceptance string: a table of at most a few hundred rounds
MAX_TOKENS_IN_RULE = 64  # entries of p and q in the sampling-rule widget


def check_cost(c, field: str, label: str, allow_zero: bool) -> float:
    v = _finite(c, field, label)
    if v < 0 or (v == 0 and not allow_zero):
        raise InputError("spec_cost_min0" if allow_zero else "spec_cost_positive", field, label=_name(label))
    if v > MAX_COST:
        raise InputError("spec_cost_max", field, label=_name(label), max=MAX_COST)
    if 0 < v < 1e-6:
        raise InputError("spec_cost_tiny", field, label=_name(label))
    return v


# ---- the cost model -----------------------------------------------------------------------------

def expected_tokens_sum(alpha: float, gamma: int) -> float:
    """E = sum_{i=0..gamma} alpha^i, summed term by term."""
    return sum(alpha ** i for i in range(gamma + 1))


def expected_tokens(alpha: float, gamma: int) -> float:
    """E = (1 - alpha^(gamma+1)) / (1 - alpha); exactly gamma + 1 at alpha = 1 and 1 at gamma = 0."""
    if gamma == 0:
        return 1.0
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)


def evaluate(alpha, gamma, c_draft, c_verify, c_verify_slope=0.0) -> dict:
    """Every figure of one setting of the cost model. c_verify_slope: what verification adds per
    drafted position (0 in the memory-bound idealisation; about 1 where every position costs a
    full pass), so verifying gamma drafts costs c_verify + c_verify_slope * gamma."""
    alpha = check_alpha(alpha)
    gamma = check_gamma(gamma)
    c_draft = check_cost(c_draft, "c_draft", "c_draft", allow_zero=True)
    c_verify = check_cost(c_verify, "c_verify", "c_verify", allow_zero=False)
    slope = check_cost(c_verify_slope, "c_verify_slope", "c_verify_slope", allow_zero=True)
    E = expected_tokens(alpha, gamma)
    cost = gamma * c_draft + c_verify + slope * gamma
    return {"alpha": alpha, "gamma": gamma, "c_draft": c_draft, "c_verify": c_verify, "c_verify_slope": slope,
            "E": E, "E_sum": expected_tokens_sum(alpha, gamma), "cost": cost, "speedup": E / cost,
            "target_passes_per_token": cost / E, "ceiling_share": E / (gamma + 1)}


def sweep(alpha, c_draft, c_verify, gamma_max: int = GAMMA_MAX, c_verify_slope=0.0) -> dict:
    """Speedup for gamma = 0..gamma_max, the best gamma, and whether it sits at the end of the sweep."""
    rows = [evaluate(alpha, g, c_draft, c_verify, c_verify_slope) for g in range(gamma_max + 1)]
    best = max(rows, key=lambda r: (r["speedup"], -r["gamma"]))  # ties: the smaller gamma
    return {"gammas": [r["gamma"] for r in rows], "speedups": [r["speedup"] for r in rows],
            "best_gamma": best["gamma"], "best_speedup": best["speedup"],
            "best_at_end": best["gamma"] == gamma_max}


# ---- rounds from an acceptance string -----------------------------------------------------------

def rounds_from_flags(flags: str, gamma, c_draft, c_verify) -> dict:
    """Split a 0/1 string into rounds: a round reads flags until a 0 or until gamma flags.

    A round that ends in a 0 was rejected at that position and yields accepted + 1 tokens (the
    target's correction). A round of gamma 1s yields gamma + 1 (the bonus token). Every round
    pays gamma draft passes and one verification. If the string stops inside a round (fewer than
    gamma flags and no 0), that round has not been verified yet: it is listed as incomplete and
    left out of every total.
    """
    gamma = check_gamma(gamma, lo=1)
    c_draft = check_cost(c_draft, "c_draft", "c_draft", allow_zero=True)
    c_verify = check_cost(c_verify, "c_verify", "c_verify", allow_zero=False)
    if not isinstance(flags, str):
        raise InputError("spec_flags_text", "flags")
    flags = "".join(flags.split())
    if len(flags) > MAX_FLAGS:
        raise InputError("spec_flags_long", "flags", n=len(flags), max=MAX_FLAGS)
    if not flags:
        raise InputError("spec_flags_empty", "flags")
    bad = next((c for c in flags if c not in "01"), None)
    if bad is not None:
        raise InputError("spec_flags_bad", "flags", char=bad, pos=flags.index(bad) + 1)
    rounds, i = [], 0
    cum_tokens = cum_cost = 0
    while i < len(flags):
        chunk = flags[i:i + gamma]
        zero = chunk.find("0")
        if zero >= 0:
            chunk = chunk[:zero + 1]
        i += len(chunk)
        complete = zero >= 0 or len(chunk) == gamma
        accepted = chunk.count("1")
        row = {"round": len(rounds) + 1, "flags": chunk, "proposed": gamma, "accepted": accepted,
               "rejected_at": zero + 1 if zero >= 0 else None, "complete": complete}
        if complete:
            gained = accepted + 1
            cum_tokens += gained
            cum_cost += gamma * c_draft + c_verify
            row.update(gained=gained, bonus=zero < 0, cum_tokens=cum_tokens, drafts=gamma,
                       target_passes=1, cum_cost=cum_cost)
        rounds.append(row)
    done = [r for r in rounds if r["complete"]]
    flags_used = sum(len(r["flags"]) for r in done)
    accepted = sum(r["accepted"] for r in done)
    return {
        "rounds": rounds, "n_rounds": len(done), "tokens": cum_tokens,
        "draft_passes": gamma * len(done), "target_passes": len(done), "cost": cum_cost,
        "speedup": cum_tokens / cum_cost if cum_cost else 0.0,
        "accepted": accepted, "flags_checked": flags_used,
        "acceptance": accepted / flags_used if flags_used else 0.0,
        "incomplete_flags": flags[flags_used:] if len(done) < len(rounds) else "",
    }


# ---- the speculative sampling rule --------------------------------------------------------------

def normalize(weights, field: str) -> tuple[list[float], dict | None]:
    """Check a distribution; rescale it (with a note for the page: a text key and its arguments)
    when it does not sum to 1."""
    if not isinstance(weights, (list, tuple)):
        raise InputError("spec_dist_list", field, name=field)
    if len(weights) > MAX_TOKENS_IN_RULE:
        raise InputError("spec_dist_long", field, name=field, max=MAX_TOKENS_IN_RULE, n=len(weights))
    vals = []
    for i, w in enumerate(weights):
        if isinstance(w, bool) or not isinstance(w, (int, float, Fraction)) or (
                isinstance(w, float) and (math.isnan(w) or math.isinf(w))):
            raise InputError("spec_dist_nan", field, name=field, i=i + 1)
        if w < 0:
            raise InputError("spec_dist_negative", field, name=field, i=i + 1)
        vals.append(w)
    total = sum(vals)
    if total == 0:
        raise InputError("spec_dist_zero", field, name=field)
    note = None
    if abs(total - 1) > 1e-9:
        note = {"key": "w3.sr.rescaled", "args": {"name": field, "total": float(f"{float(total):.4g}")}}
    return [v / total for v in vals], note


def accept_probability(p_x, q_x):
    """Chance of keeping a drafted token x: min(1, p(x)/q(x)) (q(x) > 0 since x was drafted)."""
    return 1 if p_x >= q_x else p_x / q_x


def residual_mass(p: dict, q: dict) -> dict:
    """max(0, p - q) token by token, over {token: probability} maps (the live pair in specdecode
    and, through `residual`, the lists of the page's sampling-rule widget). Only tokens where
    the target wants more than the draft gave have any: the rest of p was already served by
    accepting drafts."""
    return {t: pv - q.get(t, 0) for t, pv in p.items() if pv > q.get(t, 0)}


def residual(p, q):
    """The distribution the target samples from after a rejection: max(0, p - q), normalised
    (p itself when p = q leaves nothing). Returns (raw, normalised), as lists."""
    mass = residual_mass(dict(enumerate(p)), dict(enumerate(q)))
    raw = [mass.get(i, 0) for i in range(len(p))]
    tot = sum(raw)
    return raw, ([r / tot for r in raw] if tot else list(p))


def output_distribution(p, q):
    """P(output = y) of one speculative step, built from the rule's own pieces:
    draft y and keep it, or draft any x, reject it, and sample y from the residual."""
    _, res = residual(p, q)
    reject = sum(qx * (1 - accept_probability(px, qx)) for px, qx in zip(p, q) if qx > 0)
    return [(qy * accept_probability(py, qy) if qy > 0 else 0) + reject * ry for py, qy, ry in zip(p, q, res)]


def sampling_table(p_weights, q_weights) -> dict:
    p, note_p = normalize(p_weights, "p")
    q, note_q = normalize(q_weights, "q")
    if len(p) != len(q):
        raise InputError("spec_dist_lengths", "q")
    raw, res = residual(p, q)
    out = output_distribution(p, q)
    mins = [min(a, b) for a, b in zip(p, q)]
    tv = 0.5 * sum(abs(a - b) for a, b in zip(p, q))
    return {"p": p, "q": q, "min": mins, "residual_raw": raw, "residual": res, "output": out,
            "accept": [accept_probability(a, b) if b > 0 else None for a, b in zip(p, q)],
            "alpha": sum(mins), "tv": tv, "one_minus_tv": 1 - tv,
            # the identity behind exactness: rejections happen exactly as often as the residual weighs
            "reject_mass": sum(qx * (1 - accept_probability(px, qx)) for px, qx in zip(p, q) if qx > 0),
            "residual_mass": sum(raw),
            "max_error": max(abs(a - b) for a, b in zip(out, p)), "notes": [n for n in (note_p, note_q) if n]}


def gate_grid() -> list[tuple[Fraction, ...]]:
    """27 distributions over 3 tokens: weights (a, b, c) with each in {0, 1, 3}, normalised; the
    all-zero triple stands for the uniform distribution. Zeros test tokens the draft never
    proposes or the target never wants; 1 vs 3 gives unequal masses."""
    grid = []
    for a in (0, 1, 3):
        for b in (0, 1, 3):
            for c in (0, 1, 3):
                w = (a, b, c) if a + b + c else (1, 1, 1)
                t = sum(w)
                grid.append(tuple(Fraction(x, t) for x in w))
    return grid


def exactness_gate() -> dict:
    """Run the rule on all 27 x 27 = 729 (p, q) pairs in exact rational arithmetic: the output
    distribution must equal p exactly, and alpha must equal 1 - TV(p, q)."""
    grid = gate_grid()
    failures, n = [], 0
    for p in grid:
        for q in grid:
            n += 1
            out = output_distribution(list(p), list(q))
            alpha = sum(min(a, b) for a, b in zip(p, q))
            tv = sum(abs(a - b) for a, b in zip(p, q)) / 2
            if out != list(p) or alpha != 1 - tv:
                failures.append({"p": [str(x) for x in p], "q": [str(x) for x in q], "out": [str(x) for x in out]})
    return {"pairs": n, "passed": n - len(failures), "failures": failures[:5]}
