"""Chapter 3 endpoints: speculative decoding, from the cost model to a live draft/target pair."""
from __future__ import annotations

from . import sampler as S
from . import speculative as sp
from .api import STATE, endpoint, engine
from .ch1 import encode_prompt
from .errors import InputError


@endpoint
def ch3_model(alpha, gamma, c_draft, c_verify) -> dict:
    return {"point": sp.evaluate(alpha, gamma, c_draft, c_verify), "sweep": sp.sweep(alpha, c_draft, c_verify)}


@endpoint
def ch3_rounds(flags, gamma, c_draft, c_verify) -> dict:
    return sp.rounds_from_flags(flags, gamma, c_draft, c_verify)


@endpoint
def ch3_sampling(p, q) -> dict:
    return sp.sampling_table(p, q)


@endpoint
def ch3_gate() -> dict:
    return sp.exactness_gate()


@endpoint
def ch3_live(prompt: str, gamma: int, n: int = 60, mode: str = "greedy", seed: int = 1) -> dict:
    from .specdecode import SpecDecoder, measure_costs

    t, d = engine("main"), engine("draft")
    if mode not in ("greedy", "sample"):
        raise InputError("mode must be greedy or sample", "mode")
    if not (isinstance(n, int) and 1 <= n <= 300):
        raise InputError("generate 1 to 300 tokens", "n")
    ids = encode_prompt(t, prompt)
    s = S.Settings(temperature=0.0) if mode == "greedy" else S.Settings(temperature=1.0, top_p=1.0)
    dec = STATE.get("spec") or SpecDecoder(t, d)
    STATE["spec"] = dec
    costs = measure_costs(t, d, sp.check_gamma(gamma))
    spec = dec.generate(ids, n, gamma, s, seed=seed)
    src = t.source
    rng = S.Rng(seed)
    if mode == "greedy":
        base = t.generate(ids, n, lambda lg, h: (S.greedy(src.bind(lg, t.logits_ptr), h, s), None))
    else:
        base = t.generate(ids, n, lambda lg, h: (S.sample_step(src.bind(lg, t.logits_ptr), h, s, rng).token, None))
    base_tps = len(base.tokens) / (base.stats.kernel_s + base.stats.python_s)
    alpha = spec["acceptance"]
    pred = sp.evaluate(min(1.0, alpha or 0.0), gamma, costs["c_draft"], costs["c_verify"]) if gamma else None
    return {
        "text": t.tokenizer.decode(spec["tokens"]), "tokens": spec["tokens"],
        "same_as_target": spec["tokens"] == base.tokens if mode == "greedy" else None,
        "alpha": alpha, "alpha_by_position": spec["acceptance_by_position"],
        "tokens_per_round": spec["tokens_per_round"], "spec_tps": spec["tokens_per_s"], "target_tps": base_tps,
        "measured_speedup": spec["tokens_per_s"] / base_tps if base_tps else None,
        "predicted_speedup": pred["speedup"] if pred else 1.0 / costs["c_verify"], "costs": costs,
        "predicted": pred, "gamma": gamma, "mode": mode,
    }
