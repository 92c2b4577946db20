"""Chapter 3's statistics over repeated measurements: medians, ranges, a verdict that only speaks
when the range supports it, and the summaries of the live pair and of the verify-cost sweep.

Pure functions over plain numbers (no engine, no clock), so tests can check them exactly. The
timing itself is in specdecode.py and probes.py.
"""
from __future__ import annotations

import math

from .errors import InputError

# "pays" needs every run above 1 + MARGIN, "does not pay" every run below 1 - MARGIN; anything
# in between straddles break-even and is reported as too close to call.
MARGIN = 0.05
MAX_RUNS = 20


def median(xs) -> float | None:
    v = sorted(x for x in xs if x is not None)
    if not v:
        return None
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def spread(xs) -> tuple[float | None, float | None]:
    """(min, max) of the values that exist; what the page prints as a range."""
    v = [x for x in xs if x is not None]
    return (min(v), max(v)) if v else (None, None)


def trimmed_spread(xs) -> tuple[float | None, float | None]:
    """(min, max) after dropping the single lowest and highest value when there are 5 or more:
    one run hit by a pause on a busy machine should not decide the verdict alone."""
    v = sorted(x for x in xs if x is not None)
    if len(v) >= 5:
        v = v[1:-1]
    return (v[0], v[-1]) if v else (None, None)


def verdict(lo: float | None, hi: float | None, margin: float = MARGIN) -> str:
    """'pays' only if even the slowest run beat the target alone by the margin, 'does not pay'
    only if even the fastest run lost by it; otherwise the runs straddle 1x."""
    if lo is None or hi is None:
        return "too close to call"
    if lo > 1 + margin:
        return "pays"
    if hi < 1 - margin:
        return "does not pay"
    return "too close to call"


def slope(xs, ys) -> float:
    """Least-squares slope of ys against xs (the verify cost's extra steps per extra position)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0


def round_yield(rounds: list[dict]) -> float:
    """Tokens per round as E(alpha, gamma) means it: every verified round counts its full yield,
    accepted + 1. Dividing the tokens kept by the rounds run (as before) is biased low, because
    the last round is cut at the requested length and keeps only what was still wanted."""
    return sum(r["accepted"] + 1 for r in rounds) / len(rounds) if rounds else 0.0


def _numbers(runs, fields) -> dict[str, list]:
    if not isinstance(runs, list) or not 1 <= len(runs) <= MAX_RUNS:
        raise InputError("spec_runs_count", "runs", max=MAX_RUNS)
    out = {f: [] for f in fields}
    for i, r in enumerate(runs):
        if not isinstance(r, dict):
            raise InputError("spec_run_not_record", "runs", i=i + 1)
        for f in fields:
            v = r.get(f)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
                raise InputError("spec_run_nan", "runs", i=i + 1, name=f)
            out[f].append(v)
    return out


LIVE_FIELDS = ("alpha", "c_draft", "c_verify", "tokens_per_round", "measured_speedup", "predicted_speedup")


def summarize_live(runs: list[dict]) -> dict:
    """Medians and ranges of the live pair's runs, and the verdict their speedups support: it
    speaks only if the runs (all but the fastest and slowest, from 5 runs on) lie on one side."""
    v = _numbers(runs, LIVE_FIELDS)
    out = {"runs": len(runs)}
    for f in LIVE_FIELDS:
        lo, hi = spread(v[f])
        out[f] = {"median": median(v[f]), "lo": lo, "hi": hi}
    s = out["measured_speedup"]
    s["trim_lo"], s["trim_hi"] = trimmed_spread(v["measured_speedup"])
    out["verdict"] = verdict(s["trim_lo"], s["trim_hi"])
    return out


def summarize_verify(batches: list[dict]) -> dict:
    """Per gamma, the block pass's cost and that of gamma+1 single steps, in single steps: the
    median and range over batches of each batch's ratio, and `*_best`, the fastest time seen over
    all batches divided by the fastest single step (other work on the machine only ever slows a
    timing down, so on a busy machine the fastest times are the steadiest estimate; on a quiet
    one both agree). The headline figures (slope, saving, the best a free, always-right draft
    could do, max (gamma+1) / block cost) use `*_best` when the batches carry absolute times."""
    if not isinstance(batches, list) or not 1 <= len(batches) <= MAX_RUNS:
        raise InputError("spec_batches_count", "batches", max=MAX_RUNS)
    gammas = batches[0].get("gammas")
    if not isinstance(gammas, list) or not gammas or any(b.get("gammas") != gammas for b in batches):
        raise InputError("spec_batches_gammas", "batches")
    rows = []
    for j, g in enumerate(gammas):
        row = {"gamma": g}
        for kind in ("block", "steps"):
            xs = [b[kind][j] for b in batches]
            if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 0 for x in xs):
                raise InputError("spec_batches_costs", "batches", name=kind)
            lo, hi = spread(xs)
            row.update({f"{kind}_med": median(xs), f"{kind}_lo": lo, f"{kind}_hi": hi})
        rows.append(row)
    absolute = all(isinstance(b.get(f"{k}_ms"), list) and isinstance(b.get("t_step_ms"), (int, float))
                   for b in batches for k in ("block", "steps"))
    unit = min(b["t_step_ms"] for b in batches) if absolute else None
    for j, row in enumerate(rows):
        for kind in ("block", "steps"):
            row[f"{kind}_best"] = (min(b[f"{kind}_ms"][j] for b in batches) / unit) if absolute and unit > 0 \
                else row[f"{kind}_med"]
    block = [r["block_best"] for r in rows]
    best = max(rows, key=lambda r: (r["gamma"] + 1) / r["block_best"])
    last = rows[-1]
    return {"batches": len(batches), "rows": rows, "slope": slope(gammas, block) if len(gammas) > 1 else 0.0,
            "block_saving": 1 - last["block_best"] / last["steps_best"],
            "best": (best["gamma"] + 1) / best["block_best"], "best_gamma": best["gamma"],
            "t_step_ms": unit if absolute else median([b.get("t_step_ms") for b in batches])}


def streak_example(gamma: int = 4) -> dict:
    """Half the rounds keep all gamma drafts, half reject the first: the pooled acceptance rate,
    the true mean tokens per round, and what E(alpha, gamma) claims at that rate."""
    from .speculative import expected_tokens

    alpha = (gamma / 2) / (gamma / 2 + 1 / 2)
    return {"alpha": alpha, "E_true": ((gamma + 1) + 1) / 2, "E_model": expected_tokens(alpha, gamma)}
