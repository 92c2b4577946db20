"""Timing on the reader's machine for chapter 3: a batched timer, the cost of verifying gamma+1
positions (one block pass against gamma+1 single steps), and the roofline's two probes (bytes
read per second, int8 multiply-adds per second).

Every figure times many repetitions in one clock interval: a browser's clock is coarse (about
0.1 ms without cross-origin isolation), and one step of our model takes about that long, so a
single step timed on its own reads 0 half the time.
"""
from __future__ import annotations

import time

from .kernelcheck import seeded_problem
from .spectiming import median as _median

PROMPT = "Once upon a time, there was a little girl named Lily. She liked to play in the park with her dog."


def per_call(fn, min_s: float, max_reps: int = 1 << 14) -> float:
    """Seconds per call of fn, from one interval of at least min_s (repetitions grow until then)."""
    reps = 1
    while True:
        a = time.perf_counter()
        for _ in range(reps):
            fn()
        t = time.perf_counter() - a
        if t >= min_s or (reps >= max_reps and t > 0):
            return t / reps
        if reps >= max_reps * 1024:
            raise RuntimeError(f"the clock did not advance over {reps} calls")
        # aim a little past min_s; a zero reading (coarse clock: the calls fit in one tick) just
        # doubles, past max_reps if it must, since it measured nothing
        reps = (min(max_reps, max(2 * reps, int(reps * 1.3 * min_s / t))) if t > 0
                else 2 * reps if reps >= max_reps else min(max_reps, 2 * reps))


def verify_cost_batch(t, gammas: list[int], min_s: float = 0.006, reverse: bool = False) -> dict:
    """One batch: for each gamma, a block pass over gamma+1 positions (logits for all of them,
    left in kernel memory) and gamma+1 single steps, each followed by a rewind, in units of one
    single step timed just before and just after them (so a machine whose speed drifts, because
    other work comes and goes, divides like by like). `reverse` flips the order of the gammas, so
    that repeated batches do not always time the large gammas last."""
    toks = t.tokenizer.encode(PROMPT)
    t.reset()
    t.feed(toks[:8])
    block = (toks[8:] * 8)[:max(gammas) + 1]

    def one():
        t.step(block[0], read=False)
        t.rewind(1)

    out = {"gammas": list(gammas), "block": [0.0] * len(gammas), "steps": [0.0] * len(gammas),
           "block_ms": [0.0] * len(gammas), "steps_ms": [0.0] * len(gammas)}
    units = []
    order = list(range(len(gammas)))[::-1] if reverse else range(len(gammas))
    for j in order:
        n = gammas[j] + 1
        part = block[:n]

        def blk():
            t.score(part)
            t.rewind(n)

        def steps():
            for x in part:
                t.step(x, read=False)
            t.rewind(n)

        u1 = per_call(one, min_s)
        b, s = per_call(blk, min_s), per_call(steps, min_s)
        unit = min(u1, per_call(one, min_s))  # other work only ever slows a timing down
        units.append(unit)
        out["block"][j], out["steps"][j] = b / unit, s / unit
        out["block_ms"][j], out["steps_ms"][j] = b * 1e3, s * 1e3
    out["t_step_ms"] = min(units) * 1e3
    return out


def pass_costs(target, draft, gamma: int, min_s: float = 0.008, batches: int = 3) -> dict:
    """One target step, one draft step and one verification of gamma+1 positions, each the
    median of a few batches (not single ~0.1 ms intervals, which a coarse clock rounds to 0)."""
    toks = target.tokenizer.encode(PROMPT)
    res = {}
    for name, e in (("target", target), ("draft", draft)):
        e.reset()
        e.feed(toks[:8])

        def one(e=e):
            e.step(toks[8], read=False)
            e.rewind(1)

        res[name] = _median([per_call(one, min_s) for _ in range(batches)])
    n = gamma + 1
    part = (toks[8:] * 8)[:n]

    def ver():
        target.score(part)
        target.rewind(n)

    t_verify = _median([per_call(ver, min_s) for _ in range(batches)])
    return {"t_target_ms": res["target"] * 1e3, "t_draft_ms": res["draft"] * 1e3, "t_verify_ms": t_verify * 1e3,
            "c_draft": res["draft"] / res["target"], "c_verify": t_verify / res["target"]}


def read_bandwidth(kernel, nbytes: int, batches: int = 5, min_s: float = 0.02) -> dict:
    """Bytes per second reading a buffer of nbytes (rounded up to 64) with the kernel's widest
    loads: the buffer is read once before timing, so one that fits in cache is served from it."""
    nbytes = (nbytes + 63) // 64 * 64
    mark = kernel.mark()
    try:
        ptr = kernel.alloc(nbytes)  # the allocator writes zeros: every page is really there
        if not ptr:
            return {"bytes": nbytes, "gbps": None, "all": []}
        kernel.bench_read(ptr, nbytes, 1)
        rates = [nbytes / per_call(lambda: kernel.bench_read(ptr, nbytes, 1), min_s) / 1e9 for _ in range(batches)]
        # the fastest batch: a peak, like the datasheet's figures (a slower batch met other work)
        return {"bytes": nbytes, "gbps": max(rates), "median": _median(rates), "all": rates}
    finally:
        kernel.release(mark)


def mac_rate(kernel, rows: int, cols: int, batches: int = 5, min_s: float = 0.02) -> dict:
    """int8 multiply-adds per second of the kernel's fast product on a rows x cols matrix."""
    mark = kernel.mark()
    try:
        q, s, x = seeded_problem(rows, cols, 3)
        m = kernel.upload_matrix(q, s, rows, cols)
        m.matvec(x)  # x into kernel memory, and one warm-up product
        rates = [rows * cols / per_call(m.run, min_s) / 1e9 for _ in range(batches)]
        return {"rows": rows, "cols": cols, "gmacs": max(rates), "median": _median(rates), "all": rates}
    finally:
        kernel.release(mark)
