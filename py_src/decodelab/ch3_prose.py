"""Chapter 3's prose numbers: the cost model at the widgets' defaults and at the settings the text
names, the sampling rule's worked example, the streak example and the two models' sizes.
Computations only; the widgets' endpoints are in ch3.py."""
from __future__ import annotations

from . import spectiming as st
from . import speculative as sp
from .ch3 import model_figures
from .errors import InputError
from .session import endpoint, session


@endpoint
def ch3_prose(defaults: dict, presets: dict, pair: dict) -> dict:
    """The numbers chapter 3's prose quotes that do not need a measurement: the cost model at the
    widget's defaults and at the settings the text names, the peak and how it moves, the worked
    example of the sampling rule on the widget's default pair, the streak example, and the two
    models' sizes. The page passes the widgets' own defaults, so text and widgets cannot drift."""
    try:
        a, g, cd, cv = (defaults[f] for f in ("alpha", "gamma", "c_draft", "c_verify"))
        free, dear = presets["free"], presets["expensive"]
        p, q = pair["p"], pair["q"]
    except (KeyError, TypeError) as ex:
        raise InputError("spec_prose_args", "defaults", detail=str(ex)) from None
    pt = sp.evaluate(a, g, cd, cv)
    sw = sp.sweep(a, cd, cv)
    p32 = sp.evaluate(a, 32, cd, cv)
    S_, b = sw["speedups"], sw["best_gamma"]
    inner = 0 < b < 32
    out = {
        "cm-alpha": a, "cm-gamma": g, "cm-cd": cd, "cm-cv": cv, "cm-E": pt["E"], "cm-cost": pt["cost"],
        "cm-speedup": pt["speedup"], "cm-tpt": pt["target_passes_per_token"], "cm-share": pt["ceiling_share"],
        "cm-ceiling": 1 / (1 - a) if a < 1 else None, "cm-share-inf": 1 - a ** (g + 1),
        "cm32-E": p32["E"], "cm32-cost": p32["cost"], "cm32-speedup": p32["speedup"], "cm32-share": p32["ceiling_share"],
        "peak-gamma": b, "peak-speedup": sw["best_speedup"],
        "peak-last-ratio": a ** b / cd if inner and cd else None, "peak-prev-speedup": S_[b - 1] if inner else None,
        "peak-next-ratio": a ** (b + 1) / cd if inner and cd else None, "peak-after-speedup": S_[b + 1] if inner else None,
    }
    for key, alpha in (("peak-a060", 0.6), ("peak-a090", 0.9), ("peak-a095", 0.95)):
        s2 = sp.sweep(alpha, cd, cv)
        out[key], out[key + "-s"] = s2["best_gamma"], s2["best_speedup"]
    out["peak-cd005"] = sp.sweep(a, 0.05, cv)["best_gamma"]
    out["peak-cd020"] = sp.sweep(a, 0.2, cv)["best_gamma"]
    out["peak-cd1"] = sp.sweep(dear[0], dear[2], dear[3])["best_gamma"]
    s2 = sp.sweep(a, cd, 2.0)
    out["peak-cv2"], out["peak-cv2-s"] = s2["best_gamma"], s2["best_speedup"]
    s0 = sp.sweep(a, 0.0, cv)
    out["peak-cd0"], out["peak-cd0-at-end"] = s0["best_gamma"], s0["best_at_end"]
    sf = sp.sweep(free[0], free[2], free[3])
    out.update({"peak-free": sf["best_gamma"], "peak-free-s": sf["best_speedup"], "peak-free-preset-gamma": free[1],
                "peak-free-cd": free[2]})
    het = st.streak_example(4)
    out.update({"het-alpha": het["alpha"], "het-E-true": het["E_true"], "het-E-model": het["E_model"]})
    r = sp.sampling_table(p, q)
    names = pair.get("labels") or [str(i) for i in range(len(r["p"]))]
    for i, name in enumerate(names):
        out.update({f"sr-p-{name}": r["p"][i], f"sr-q-{name}": r["q"][i], f"sr-out-{name}": r["output"][i],
                    f"sr-gap-{name}": r["residual_raw"][i], f"sr-res-{name}": r["residual"][i],
                    f"sr-keep-{name}": r["accept"][i]})
    out.update({"sr-reject-mass": r["reject_mass"], "sr-residual-mass": r["residual_mass"], "sr-alpha": r["alpha"],
                "sr-tv": r["tv"]})
    if names:
        out["sr-reject-first-share"] = 1 - (r["accept"][0] if r["accept"][0] is not None else 1)
    main = model_figures(session().engine("main"))
    out.update({"params": main["params"], "main-weights-mib": main["weights_bytes"] / 2 ** 20,
                "main-macs-per-token": main["macs_per_token"], "main-weights-bytes": main["weights_bytes"]})
    return out


@endpoint
def ch3_draft_prose() -> dict:
    """The draft model's size beside the main model's, for the prose. A call of its own: the page
    loads the draft only when something first needs it (this call, when chapter 3 comes near)."""
    main = model_figures(session().engine("main"))
    d = model_figures(session().engine("draft"))
    return {"draft-params": d["params"], "draft-weights-mib": d["weights_bytes"] / 2 ** 20,
            "draft-size-ratio": d["weights_bytes"] / main["weights_bytes"]}
