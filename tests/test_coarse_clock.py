"""The in-page timers on a coarse clock: a batch of work that fits inside one tick reads 0 s (WebKit's
worker once gave the kernel check exact_us = 0, and a division by zero). Neither timer may return
0 for work that took time."""
import math

from decodelab import kernelcheck, probes


class TickClock:
    """perf_counter that ticks 1 ms for every `per_tick` units of work done (and never between)."""

    def __init__(self, per_tick: int):
        self.work, self.per_tick = 0, per_tick

    def __call__(self) -> float:
        return (self.work // self.per_tick) * 1e-3


def test_the_kernel_checks_timer_never_reads_zero_on_a_coarse_clock(monkeypatch):
    clock = TickClock(per_tick=5_000)  # 2,000 products (the old cap) mostly fit in one tick
    monkeypatch.setattr(kernelcheck.time, "perf_counter", clock)

    def run(k):
        clock.work += k

    us, calls = kernelcheck.timed_us(run, budget_s=0.02, max_calls=2000)
    assert us > 0 and math.isfinite(us) and calls >= 2000


def test_per_call_never_reads_zero_on_a_coarse_clock(monkeypatch):
    clock = TickClock(per_tick=50_000)
    monkeypatch.setattr(probes.time, "perf_counter", clock)

    def fn():
        clock.work += 1

    s = probes.per_call(fn, min_s=0.006, max_reps=1 << 14)
    assert s > 0 and math.isfinite(s)
