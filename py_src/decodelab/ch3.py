"""Chapter 3 endpoints: speculative decoding, from the cost model to a live draft/target pair."""
from __future__ import annotations

from . import sampler as S
from . import speculative as sp
from .errors import InputError
from .inputs import check_count, encode_prompt
from .session import endpoint, session
from .specdecode import in_situ_costs, measure_costs, target_alone


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
    """Speculative decoding with our draft and main models against the main model alone."""
    t = session().engine("main")
    if mode not in ("greedy", "sample"):
        raise InputError("mode must be greedy or sample", "mode")
    check_count(n, 1, 300, "n", "generate 1 to 300 tokens")
    gamma = sp.check_gamma(gamma)
    ids = encode_prompt(t, prompt)
    s = S.Settings(temperature=0.0) if mode == "greedy" else S.Settings(temperature=1.0, top_p=1.0)
    dec = session().spec_decoder()  # raises a clear message if the draft model is missing
    # warm up first (the browser compiles hot wasm code in tiers), then keep the faster of two timings
    dec.generate(ids, 4, gamma, s, seed=seed)
    base, base_s = target_alone(t, ids, n, s, seed)
    base_s = min(base_s, target_alone(t, ids, n, s, seed)[1])
    spec = dec.generate(ids, n, gamma, s, seed=seed)
    t_token = base_s / len(base)
    costs = in_situ_costs(spec, t_token)
    micro = measure_costs(t, dec.d, gamma)
    alpha = spec["acceptance"]
    pred = sp.evaluate(min(1.0, alpha or 0.0), gamma, max(costs["c_draft"], 0.0), max(costs["c_verify"], 1e-9))
    return {
        "text": t.tokenizer.decode(spec["tokens"]), "tokens": spec["tokens"],
        "same_as_target": spec["tokens"] == base if mode == "greedy" else None,
        "alpha": alpha, "alpha_by_position": spec["acceptance_by_position"],
        "tokens_per_round": spec["tokens_per_round"], "expected_tokens_per_round": pred["E"],
        "spec_tps": spec["tokens_per_s"], "target_tps": 1.0 / t_token,
        "measured_speedup": spec["tokens_per_s"] * t_token,
        "predicted_speedup": pred["speedup"], "costs": {**costs, "t_target_ms": t_token * 1e3},
        "predicted_speedup_micro": sp.evaluate(min(1.0, alpha or 0.0), gamma, micro["c_draft"],
                                               micro["c_verify"])["speedup"],
        "micro": micro, "gamma": gamma, "mode": mode,
    }
