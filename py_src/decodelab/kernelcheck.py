"""A kernel self-check that runs identically in CPython and in the page.

Weights and input come from a seeded pure-Python generator, so both runtimes build the very same
matrix; the end-to-end test compares the page's outputs with CPython's bit for bit.
"""
from __future__ import annotations

import random
import time
from array import array

from .errors import InputError


def seeded_problem(rows: int, cols: int, seed: int) -> tuple[bytes, array, array]:
    rng = random.Random(seed)
    # int8 as raw bytes, full range, in one call: generating 33 million bytes one by one took
    # half a minute in the browser (randbytes is the same in every Python of 3.9 and later)
    q = rng.randbytes(rows * cols)
    q = q.replace(b"\x80", b"\x81")  # keep weights in [-127, 127] like the export does
    s = array("f", (rng.uniform(1e-3, 2e-2) for _ in range(rows)))
    x = array("f", (rng.gauss(0.0, 1.0) for _ in range(cols)))
    return q, s, x


def exact_reference(q: bytes, s: array, x: array, rows: int, cols: int) -> list[float]:
    """Plain-Python float64 reference for the returned error figure."""
    signed = memoryview(q).cast("b")
    return [s[r] * sum(signed[r * cols + c] * x[c] for c in range(cols)) for r in range(rows)]


MAX_MACS = 4_194_304        # the largest product the check builds (4 M weights: well under a second in the page)
REFERENCE_MACS = 300_000    # above this the plain-Python float64 reference would take too long
TIME_BUDGET_S, MAX_CALLS = 0.02, 2000


def timed_us(run, budget_s: float = TIME_BUDGET_S, max_calls: int = MAX_CALLS) -> tuple[float, int]:
    """Microseconds per product, and the number of products timed. `run(k)` does k products in the
    kernel on the x already there. One product can take less than the browser's timer resolution
    (performance.now() is coarsened to 0.1 ms without cross-origin isolation), so the count doubles
    until one batch lasts budget_s, after a few untimed products (V8's tiers and the caches warm up);
    the fastest of four batches of that size counts."""
    run(3)
    k = 1
    while True:
        t0 = time.perf_counter()
        run(k)
        dt = time.perf_counter() - t0
        # a batch that fits inside one tick of a coarse clock reads 0 (WebKit's worker, a tiny
        # matrix): it measured nothing, so the count grows on past max_calls until it reads
        if dt >= budget_s or (k >= max_calls and dt > 0):
            break
        if k >= max_calls * 1024:
            raise RuntimeError(f"the clock did not advance over {k} products")
        k = 2 * k if k >= max_calls else min(max_calls, 2 * k)
    # then three more batches of that size, keeping the fastest: a pause of the machine (another
    # program, the browser compiling the code in the background) lengthens a batch, never shortens
    # it; a batch that read 0 fell inside one tick and is left out
    for _ in range(3):
        t0 = time.perf_counter()
        run(k)
        d = time.perf_counter() - t0
        if d > 0:
            dt = min(dt, d)
    return dt / k * 1e6, k


def run_check(kernel, rows: int, cols: int, seed: int = 1) -> dict:
    def whole_in(v, hi: int) -> bool:
        return not isinstance(v, bool) and isinstance(v, int) and 1 <= v <= hi

    if not whole_in(rows, 8192):
        raise InputError("kc_rows", "rows", hi=8192)
    if not whole_in(cols, 4096):
        raise InputError("kc_cols", "cols", hi=4096)
    if rows * cols > MAX_MACS:
        raise InputError("kc_macs", "rows", most=MAX_MACS, macs=rows * cols)
    mark = kernel.mark()
    try:
        q, s, x = seeded_problem(rows, cols, seed)
        m = kernel.upload_matrix(q, s, rows, cols)
        t0 = time.perf_counter()
        exact = m.matvec(x, fast=False)
        t1 = time.perf_counter()
        fast = m.matvec(x, fast=True)
        t2 = time.perf_counter()
        # the kernel alone, on the x the products above left in its memory
        exact_us, exact_calls = timed_us(lambda k: m.run(False, k))
        fast_us, fast_calls = timed_us(lambda k: m.run(True, k))
        ref = exact_reference(q, s, x, rows, cols) if rows * cols <= REFERENCE_MACS else None
        scale = max((abs(v) for v in ref), default=0.0) if ref else 0.0
        out = {
            "rows": rows, "cols": cols, "seed": seed, "simd": kernel.simd, "kernel": kernel.name,
            "exact": list(exact), "fast": list(fast),
            "exact_ms": (t1 - t0) * 1e3, "fast_ms": (t2 - t1) * 1e3,
            "exact_us": exact_us, "fast_us": fast_us, "exact_calls": exact_calls, "fast_calls": fast_calls,
            "fast_gmacs": rows * cols / (fast_us * 1e3), "exact_gmacs": rows * cols / (exact_us * 1e3),
            "reference_macs": REFERENCE_MACS,
        }
        if ref and scale > 0:
            out["exact_rel_err"] = max(abs(a - b) for a, b in zip(exact, ref)) / scale
            out["fast_rel_err"] = max(abs(a - b) for a, b in zip(fast, ref)) / scale
        return out
    finally:
        kernel.release(mark)
