"""The held-out figures the export wrote into the model's metadata (meta.heldout), read for the
page: the loss of each re-quantized depth against float, and the depths where the loss first
shows, where the story loses the thread and where the model collapses."""
from __future__ import annotations

from . import spec

CHEAP, THREAD, COLLAPSE = 0.01, 0.05, 1.0  # nats/token over float: "nothing measurable", "loses the thread", "collapsed"


def heldout_summary(h: dict | None) -> dict | None:
    """meta.heldout (report.heldout_figures, written at export) -> the figures and depths chapter 2
    reads out. Depths are the measured ones, from 8 bits (the shipped int8) down; None without it."""
    if not h or "requant" not in h:
        return None
    rq = h["requant"]
    fl = rq["float_nats_per_token"]
    out = {"stories": h["stories"], "tokens": h["tokens"], "float_nats": h["float"]["nats_per_token"],
           "int8_delta": h["int8"]["nats_per_token"] - h["float"]["nats_per_token"],
           "sweep_stories": rq["stories"], "sweep_tokens": rq["tokens"], "sweep_float_nats": fl,
           "delta": {}, "cheap": {}, "thread": {}, "thread_delta": {}, "collapse": {}, "collapse_delta": {},
           # the thresholds themselves, for the page's picture of the sweep (declared here only)
           "limits": {"cheap": CHEAP, "thread": THREAD, "collapse": COLLAPSE}}
    for sch in spec.SCHEME_NAMES:
        by = rq.get(sch)
        if not by:
            continue
        delta = {int(k): v["nats_per_token"] - fl for k, v in by.items()}
        if sch == "row":
            delta[8] = rq["int8_nats_per_token"] - fl  # 8 bits per row is the shipped model
        depths = sorted(delta, reverse=True)
        out["delta"][sch] = {str(b): delta[b] for b in depths}
        cheap = []
        for b in depths:
            if delta[b] >= CHEAP:
                break
            cheap.append(b)
        out["cheap"][sch] = cheap
        thr = next((b for b in depths if delta[b] >= THREAD), None)
        col = next((b for b in depths if delta[b] >= COLLAPSE), None)
        out["thread"][sch], out["thread_delta"][sch] = thr, (delta[thr] if thr else None)
        out["collapse"][sch], out["collapse_delta"][sch] = col, (delta[col] if col else None)
    return out


def heldout_at(h: dict | None, bits: int, scheme: str) -> dict | None:
    """The held-out figure of one depth and scheme, beside the widget's story figure (None when the
    export did not measure it)."""
    s = heldout_summary(h)
    if not s or str(bits) not in s["delta"].get(scheme, {}):
        return None
    d = s["delta"][scheme][str(bits)]
    return {"delta": d, "nats": s["sweep_float_nats"] + d, "float_nats": s["sweep_float_nats"],
            "stories": s["sweep_stories"]}
