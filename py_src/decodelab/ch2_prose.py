"""Chapter 2's prose numbers: every model number in the text that does not come from a widget's
own run (the config, the bundle's matrices and scales, and the held-out figures the export wrote
into the model's metadata). Computations only; the widgets' endpoints are in ch2.py."""
from __future__ import annotations


from . import costs, spec
from .ch2 import OUR_STORY, attention_macs, paired_delta, pass_macs
from .heldout import CHEAP, COLLAPSE, THREAD, heldout_summary
from .session import endpoint, session


# Every model number in chapter 2's text that does not come from a widget's own run comes from here:
# the config, the bundle's matrices and scales, and the held-out figures the export wrote into the
# model's metadata. No kernel call; tens of milliseconds.

MATRIX_KINDS = ("wte", "wpe", "qkv", "proj", "fc", "fc2")  # the page names each: text key w2.matrix.KIND
# |q| <= 63 of an 8-bit weight rounds to 0 at 2 bits with one scale per row (the row's largest is +-127)
_ZERO_AT_2BITS = bytes(1 if min(i, 256 - i) <= 63 else 0 for i in range(256))


def matrix_words(name: str) -> dict:
    """"h3.fc" -> the text key of "layer 4's first feed-forward matrix" and its arguments (the page
    writes it in the reader's language)."""
    if name in MATRIX_KINDS:
        return {"key": f"w2.matrix.{name}", "args": {}}
    layer, kind = name.split(".", 1)
    if kind not in MATRIX_KINDS:
        return {"key": "w2.matrix.other", "args": {"name": name}}
    return {"key": f"w2.matrix.{kind}", "args": {"layer": int(layer[1:]) + 1}}


@endpoint
def ch2_facts() -> dict:
    """Chapter 2's config- and bundle-derived figures (no kernel calls)."""
    import statistics  # not at the top: see paired_delta

    e = session().engine()
    b = e.bundle
    d, L, F, T = e.d_model, e.n_layers, e.d_ff, e.context
    cost = {**costs.matrix_macs(e.bundle.config), "matrices": pass_macs(e),
            "attn_per_position": attention_macs(e, 1), "attn_full": attention_macs(e, T)}
    cost["token"] = costs.token_macs(b.config)
    cost["head_share"] = cost["head"] / cost["token"]
    cost["attn_share_full"] = cost["attn_full"] / (cost["token"] + cost["attn_full"])
    kv_tok, w = e.kv_bytes_per_token(), e.weights_bytes()
    kv = {"bytes_per_token": kv_tok, "bytes_full_context": kv_tok * T, "weights_bytes": w,
          "cache_over_weights": kv_tok * T / w, "crossover_tokens": -(-w // kv_tok)}
    mats, zero2 = [], 0
    for name, t in b.tensors.items():
        if t.scales is None:
            continue
        sc = t.scale_list()
        med = statistics.median(sc)
        mats.append({"name": name, "label": matrix_words(name), "rows": t.rows, "cols": t.cols,
                     "f32": t.format.float32_bytes(t.rows, t.cols), "i8": t.format.data_bytes(t.rows, t.cols),
                     "scales": t.format.scale_bytes(t.rows),
                     "row_max_median": 127 * med, "scale_median": med,
                     "max_over_median": max(sc) / med if med else 0.0})
        zero2 += bytes(t.data).translate(_ZERO_AT_2BITS).count(1)
    n_w = sum(m["i8"] for m in mats)
    n_rows = sum(m["rows"] for m in mats)
    n_groups = sum(m["rows"] * -(-m["cols"] // spec.GROUP32.group) for m in mats)
    vec = sum(len(t.data) for t in b.tensors.values() if t.scales is None)
    f32, scb = sum(m["f32"] for m in mats), sum(m["scales"] for m in mats)
    total = n_w + scb + vec
    worst = max(mats, key=lambda m: m["max_over_median"])
    ex = next((m for m in mats if m["name"] == "h0.fc"), mats[0])
    q8 = {"n_matrices": len(mats), "matrix_float32_bytes": f32, "int8_bytes": n_w, "scale_bytes": scb,
          "vector_bytes": vec, "total_bytes": total, "ratio": (f32 + vec) / total, "scale_share": scb / total,
          "scale_overhead_min": 4 / max(m["cols"] for m in mats), "scale_overhead_max": 4 / min(m["cols"] for m in mats),
          "worst": worst["label"], "worst_max_over_median": worst["max_over_median"], "example": ex}
    bits = {"zero_frac_2bit_row": zero2 / n_w, "scale_bits_row": 32 / d,
            "eff_bits": {sch: {str(bb): bb + 32 * k / n_w for bb in range(2, 9)}
                         for sch, k in ((spec.ROW.name, n_rows), (spec.MATRIX.name, len(mats)), (spec.GROUP32.name, n_groups))},
            "story_tokens": len(e.tokenizer.encode(OUR_STORY)), "thresholds": [CHEAP, THREAD, COLLAPSE]}
    return {"cfg": {**costs.shape(b.config), "kv_vectors_per_token": 2 * L},
            "cost": cost, "kv": kv, "q8": q8, "bits": bits, "matrices": mats,
            "simd": {"max_cols": max(d, F), "max_int_sum": max(d, F) * 127 * 63,
                     "slices_per_token": cost["token"] // 16, "js_calls_per_token": 4 * L + 1},
            "heldout": heldout_summary(b.meta.get("heldout"))}
