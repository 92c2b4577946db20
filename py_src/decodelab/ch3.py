"""Chapter 3's widget endpoints: speculative decoding, from the cost model to a live draft/target
pair (the prose's numbers are ch3_prose.py).

Long measurements are split into short calls that the page repeats (each well under the 2 s after
which the Stop bar appears): one live run per call, one verify-cost batch per call; the page then
sends the runs back to a summary endpoint that takes medians and ranges (spectiming.py)."""
from __future__ import annotations

from . import costs, probes
from . import sampler as S
from . import spectiming as st
from . import speculative as sp
from .errors import InputError
from .inputs import encode_prompt
from .session import endpoint, session
from .specdecode import in_situ_costs, measure_costs, target_alone

VERIFY_GAMMAS = list(range(9))


def _count(n, lo: int, hi: int, field: str, key: str) -> int:
    """A whole number in [lo, hi]; else the message err.KEY (its {lo} and {hi} filled)."""
    if isinstance(n, bool) or not isinstance(n, int) or not lo <= n <= hi:
        raise InputError(key, field, lo=lo, hi=hi)
    return n


@endpoint
def ch3_model(alpha, gamma, c_draft, c_verify, c_verify_slope=0.0) -> dict:
    return {"point": sp.evaluate(alpha, gamma, c_draft, c_verify, c_verify_slope),
            "sweep": sp.sweep(alpha, c_draft, c_verify, c_verify_slope=c_verify_slope)}


@endpoint
def ch3_rounds(flags, gamma, c_draft, c_verify) -> dict:
    return sp.rounds_from_flags(flags, gamma, c_draft, c_verify)


@endpoint
def ch3_sampling(p, q) -> dict:
    return sp.sampling_table(p, q)


@endpoint
def ch3_gate() -> dict:
    return sp.exactness_gate()


def _round_tokens(tok, rounds: list[dict], gamma: int) -> list[dict]:
    """Each round token by token: kept drafts, the rejected one, the drafts after it (never
    checked), and the target's own token (a correction, or the bonus when all gamma were kept)."""
    out = []
    for r in rounds:
        k, cells = r["accepted"], []
        for i, x in enumerate(r["drafts"]):
            kind = "accepted" if i < k else "rejected" if i == k else "unchecked"
            cells.append({"text": tok.decode([x]), "kind": kind})
        cells.append({"text": tok.decode([r["token"]]), "kind": "bonus" if k == gamma else "correction"})
        out.append({"accepted": k, "tokens": cells})
    return out


def _merge(a: dict, b: dict) -> dict:
    """Two identical speculative runs' timings as one (their token logs are the same)."""
    m = dict(a)
    for f in ("loop_s", "draft_s", "verify_s", "round_rest_s", "n_rounds"):
        m[f] = a[f] + b[f]
    m["tokens_per_s"] = 2 * len(a["tokens"]) / m["loop_s"] if m["loop_s"] else 0.0
    return m


@endpoint
def ch3_live(prompt: str, gamma: int, n: int = 60, mode: str = "greedy", seed: int = 1) -> dict:
    """One run of speculative decoding with our draft and main models against the main model
    alone, timed target, speculative, speculative, target (so a drift in the machine's speed
    hits both sides alike). The page repeats it and summarizes with ch3_live_summary."""
    t = session().engine("main")
    if mode not in ("greedy", "sample"):
        raise InputError("spec_mode", "mode")
    _count(n, 1, 300, "n", "spec_live_n")
    gamma = sp.check_gamma(gamma)
    ids = encode_prompt(t, prompt)
    s = S.Settings(temperature=0.0) if mode == "greedy" else S.Settings(temperature=1.0, top_p=1.0)
    dec = session().spec_decoder()  # raises a clear message if the draft model is missing
    dec.generate(ids, 4, gamma, s, seed=seed)  # warm-up: the browser compiles hot wasm code in tiers
    base, b1 = target_alone(t, ids, n, s, seed)
    spec = dec.generate(ids, n, gamma, s, seed=seed)
    spec2 = dec.generate(ids, n, gamma, s, seed=seed)
    b2 = target_alone(t, ids, n, s, seed)[1]
    both = _merge(spec, spec2)
    t_token = (b1 + b2) / (2 * len(base))
    costs = in_situ_costs(both, t_token)
    micro = measure_costs(t, dec.d, gamma)
    alpha = spec["acceptance"]
    c_draft = costs["c_draft"] if gamma else 0.0
    pred = sp.evaluate(min(1.0, alpha or 0.0), gamma, max(c_draft, 0.0), max(costs["c_verify"], 1e-6))
    return {
        "text": t.tokenizer.decode(spec["tokens"]), "tokens": spec["tokens"],
        "same_as_target": spec["tokens"] == base if mode == "greedy" else None,
        "alpha": alpha, "alpha_by_position": spec["acceptance_by_position"],
        "checks_by_position": spec["checks_by_position"],
        "tokens_per_round": spec["tokens_per_round"], "tokens_kept_per_round": spec["tokens_kept_per_round"],
        "n_rounds": spec["n_rounds"], "expected_tokens_per_round": pred["E"],
        "rounds": _round_tokens(t.tokenizer, spec["rounds"], gamma),
        "spec_tps": both["tokens_per_s"], "target_tps": 1.0 / t_token,
        "measured_speedup": both["tokens_per_s"] * t_token,
        "predicted_speedup": pred["speedup"], "costs": {**costs, "c_draft": c_draft if gamma else None},
        "predicted_speedup_micro": sp.evaluate(min(1.0, alpha or 0.0), gamma, micro["c_draft"],
                                               micro["c_verify"])["speedup"],
        "micro": micro, "gamma": gamma, "mode": mode, "n": n,
    }


@endpoint
def ch3_alpha_at(prompt: str, gamma: int, temperature: float, n: int = 120, seed: int = 1) -> dict:
    """The real pair's acceptance rate when both models sample at `temperature` (chapter 1's
    sampler, no filter, on both sides: the rule's p and q are the distributions after it): the
    share of the draft's guesses the target kept over n tokens, and the tokens a round yielded."""
    t = session().engine("main")
    _count(n, 1, 300, "n", "spec_live_n")
    gamma = sp.check_gamma(gamma, lo=1)
    s = S.make_settings(temperature=temperature, top_p=1.0)
    if s.temperature == 0:
        raise InputError("spec_alpha_greedy", "temperature")
    dec = session().spec_decoder()
    r = dec.generate(encode_prompt(t, prompt), n, gamma, s, seed=seed)
    checks = sum(r["checks_by_position"])
    return {"temperature": s.temperature, "alpha": r["acceptance"], "checks": checks,
            "tokens_per_round": r["tokens_per_round"], "gamma": gamma, "n": n}


@endpoint
def ch3_live_summary(runs: list, gamma: int) -> dict:
    """Medians and ranges over the page's repeated ch3_live runs, the verdict the range supports,
    E at the median alpha, and the same pair with a flat verification cost of 1 pass."""
    gamma = sp.check_gamma(gamma)
    out = st.summarize_live(runs)
    a, cd = out["alpha"]["median"], out["c_draft"]["median"]
    out["E"] = sp.expected_tokens(min(1.0, a), gamma) if a is not None else 1.0
    out["flat_speedup"] = sp.evaluate(min(1.0, a or 0.0), gamma, max(cd or 0.0, 0.0), 1.0)["speedup"]
    out["gamma"] = gamma
    return out


@endpoint
def ch3_verify_cost(batch: int = 0, gammas: list | None = None) -> dict:
    """Part of one batch of the verify-cost sweep on the main model: the given gammas (default
    all of 0..8); `batch` alternates their order. The page times each batch in two calls of a few
    tenths of a second, merges them, and sends the batches to ch3_verify_summary."""
    _count(batch, 0, 99, "batch", "spec_batch")
    gs = VERIFY_GAMMAS if gammas is None else gammas
    if (not isinstance(gs, list) or not gs or len(set(gs)) != len(gs)
            or any(isinstance(g, bool) or not isinstance(g, int) or g not in VERIFY_GAMMAS for g in gs)):
        raise InputError("spec_gammas", "gammas", max=VERIFY_GAMMAS[-1])
    return probes.verify_cost_batch(session().engine("main"), gs, reverse=bool(batch % 2))


@endpoint
def ch3_verify_summary(batches: list) -> dict:
    return st.summarize_verify(batches)


@endpoint
def ch3_roofline() -> dict:
    """The roofline's measurements: bytes/s reading a buffer the size of our weights (it fits in
    cache) and a 64 MiB one (larger than most caches), and int8 multiply-adds/s of the kernel's
    fast product on the model's largest matrix (the output layer, vocab x d)."""
    e = session().engine("main")
    k = session().kernel()
    cache = probes.read_bandwidth(k, e.weights_bytes())
    dram = probes.read_bandwidth(k, 64 << 20, batches=3, min_s=0.03)
    macs = probes.mac_rate(k, e.vocab, e.d_model)
    return {"cache": cache, "dram": dram, "macs": macs, "weights_bytes": e.weights_bytes(), "simd_level": k.simd_level,
            "macs_per_token": model_figures(e)["macs_per_token"]}


def model_figures(e) -> dict:
    return {"params": e.bundle.param_count(), "weights_bytes": e.weights_bytes(),
            "macs_per_token": costs.token_macs(e.bundle.config)}
