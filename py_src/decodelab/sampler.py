"""The sampler: from next-token logits to one drawn token (pure Python; runs in Pyodide).

Order of operations (the default, as in Hugging Face's warpers; each is one unit in STEPS below):
    1. repetition penalty on tokens seen in the last `penalty_window` tokens: z/r if z > 0, else z*r
    2. temperature: s = z / T  (T = 0 means greedy: the top token, ties to the lower id)
    3. top-k: keep the k most likely (k = 0: off)
    4. top-p: keep the shortest head whose mass reaches p, renormalised after step 3; the token that
       crosses the line stays (p = 1: off)
    5. min-p: keep tokens with probability >= min_p * (the top token's probability) (0: off)
    6. draw from the survivors, renormalised, with a seeded PRNG
With `temperature_last` (llama.cpp's order) the filters 3-5 see the distribution at T = 1 and
the temperature is applied to the survivors only.
Ties at a cut (two tokens with equal probability) are broken by the lower token id, so the
kept head is always the minimal one and the result is deterministic.

Speed: a step must not touch all 4096 logits in Python (in Pyodide even converting them to
Python floats costs ~0.25 ms). A `LogitSource` supplies the O(vocab) reductions instead: the
exact top-N tokens with the penalty applied, and the normaliser and entropy sums. The kernel's
dl_logits_prepare does that in C (engine.KernelLogits); `ListLogits` below does it in Python
for tests and for any plain list. The sampler asks for N = k tokens when top-k is on, otherwise
for 128 and more only if the head it needs runs past them, so results are exact either way.

The generation loop (sample_token) first asks the source to draw the whole step itself
(LogitSource.draw): the kernel's dl_logits_sample repeats _filter and _draw below in C with the
same double operations, and answers only where its margins prove the token is the one this
module would compute (else -1, and this module computes it). In Pyodide that is one call of
~25 us instead of ~100 us of Python a token; the drawn tokens are the same.
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass, field
from itertools import accumulate
from typing import NamedTuple, Sequence

from .errors import InputError


class SamplerError(InputError):
    """A sampler parameter is invalid; `field` names it."""


# ---- the pseudo-random generator ---------------------------------------------------------------

class Rng:
    """xoshiro128** (32-bit state words), seeded through splitmix32: identical in every Python."""

    M = 0xFFFFFFFF

    def __init__(self, seed: int):
        self.seed = int(seed) & self.M
        x = self.seed
        st = []
        for _ in range(4):
            x = (x + 0x9E3779B9) & self.M
            z = x
            z = ((z ^ (z >> 16)) * 0x85EBCA6B) & self.M
            z = ((z ^ (z >> 13)) * 0xC2B2AE35) & self.M
            st.append(z ^ (z >> 16))
        if not any(st):
            st[0] = 1
        self.s = st

    def next_u32(self) -> int:
        s, M = self.s, self.M
        r = (s[1] * 5) & M
        r = ((r << 7 | r >> 25) & M) * 9 & M
        t = (s[1] << 9) & M
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = (s[3] << 11 | s[3] >> 21) & M
        return r

    def random(self) -> float:
        """Uniform in [0, 1) with 53 random bits."""
        a, b = self.next_u32() >> 5, self.next_u32() >> 6
        return (a * 67108864.0 + b) / 9007199254740992.0


# ---- logit sources -----------------------------------------------------------------------------

class Prepared(NamedTuple):
    """What a source computes over the whole vocabulary for one step (LogitSource.prepare; the
    kernel's dl_logits_prepare): the top tokens by value (ties to the lower id) with their
    penalised values, and with s_i = z_i * inv_t: M = max s_i, Z = sum e^(s_i - M),
    A = sum e^(s_i - M) (s_i - M), so p_i = e^(s_i - M) / Z and the entropy is ln Z - A / Z; and
    the mean and standard deviation of the penalised z_i themselves (0 when inv_t is 0)."""
    ids: Sequence[int]
    vals: Sequence[float]
    M: float
    Z: float
    A: float
    mean: float
    std: float


class LogitSource:
    """What the sampler needs from the logits of one position (ListLogits here, engine.KernelLogits
    over kernel memory): vocab_size, value(i), argmax(), prepare(inv_t, overrides, top_n).

    `fetch_hint` is the sampler's note to itself between steps: how many top candidates the last
    step without top-k needed, so the next one asks for about as many (it fetches more when
    that falls short, so results never depend on it).

    `unpenalised`: the model's special tokens (our end token), which the repetition penalty
    leaves alone. The engine feeds the end token as the start marker, so it is in every
    history; penalising it for that would keep short stories from ending."""

    INITIAL_FETCH = 128

    def __init__(self, vocab_size: int, unpenalised=()):
        self.vocab_size = vocab_size
        self.fetch_hint = self.INITIAL_FETCH
        self.unpenalised = frozenset(unpenalised)

    def draw(self, inv_t: float, overrides: dict, cuts: dict, u: float) -> int:
        """A source that can draw a whole step itself (engine.KernelLogits: one kernel call)
        returns the token the exact path below would draw, with the values of KERNEL_CUTS in
        `cuts` (by Settings field; temperature first) and the uniform u, or -1 where it cannot
        be sure; then, and for every other source, the sampler computes it."""
        return -1


class ListLogits(LogitSource):
    """The O(vocab) reductions in plain Python, over any sequence of logits."""

    def __init__(self, logits, unpenalised=()):
        self.z = [float(v) for v in logits]
        super().__init__(len(self.z), unpenalised)

    def value(self, i: int) -> float:
        return self.z[i]

    def argmax(self) -> int:
        z = self.z
        return max(range(len(z)), key=lambda i: (z[i], -i))

    def prepare(self, inv_t: float, overrides: dict, top_n: int) -> Prepared:
        """The same contract as the kernel's dl_logits_prepare (Prepared says what it holds)."""
        z = self.z
        if overrides:
            z = list(z)
            for i, v in overrides.items():
                z[i] = v
        order = sorted(range(len(z)), key=lambda i: (-z[i], i))[:top_n]
        M = Z = A = mean = std = 0.0
        if inv_t > 0:
            M = max(z) * inv_t
            for v in z:
                s = v * inv_t - M
                e = math.exp(s)
                Z += e
                A += e * s
            mean = sum(z) / len(z)
            std = math.sqrt(sum((v - mean) ** 2 for v in z) / len(z))
        return Prepared(order, [z[i] for i in order], M, Z, A, mean, std)


# ---- the rules, in their order ------------------------------------------------------------------
#
# One class per rule, the way Hugging Face's logits processors have one class per rule, holding
# everything every layer needs to know about it: its Settings field, default and neutral value,
# its check, the panel's slider, the pipeline figure's symbol, the settings table's row, whether
# the kernel's one-call draw implements it, and the part it plays. The page reads these through
# spec.py (describe(), below); the text keys are derived from `name`. Kinds:
#   * "penalty" and "scale" change the logits; the LogitSource applies them in its O(vocab) pass
#     (the kernel's dl_logits_prepare), so they only say *what* to apply;
#   * "prefix" and "mask" are cuts: each sees the survivors of the cuts before it (in rank order,
#     renormalised) and keeps some of them. A prefix cut answers how many of the first `keep`
#     stay; a mask answers which ones (positions, ascending). Either also says whether
#     candidates not fetched yet could change the answer (the sampler then fetches more and asks
#     again). After a mask, the next cuts see only its survivors (Candidates.subset).
# A new rule is one more class here and its entry in STEPS (Settings, the panel, the pipeline,
# the table and the tests follow), plus its text keys.

class _StepContext:
    """What a cut sees besides the candidates: whether every token has been fetched, and
    whether an earlier cut already bounded the survivors to the fetched ones."""
    __slots__ = ("complete", "bounded")

    def __init__(self, complete: bool):
        self.complete, self.bounded = complete, False

    @property
    def open(self) -> bool:
        """Survivors may go on past the fetched candidates."""
        return not self.complete and not self.bounded


class Rule:
    """What every rule declares (the subclasses fill it in)."""
    name: str                 # the stage's name: text keys w1.sp.NAME(_hint), fig.pipe.stage.NAME, err.NAME_range
    field: str                # its Settings field
    type: type = float
    default: float            # the page's default
    neutral: float            # the value that switches it off
    kind: str                 # "penalty", "scale", "prefix" or "mask"
    slider: tuple             # the panel's (min, max, step)
    symbol: str               # how the pipeline figure writes its value: "k = 40"
    kernel: bool = False      # whether the kernel's one-call draw (dl_logits_sample) implements it
    table: dict = {}          # its row in the settings table: library -> its name and default there
    table_key: str | None = None  # the row's label, when words (a text key) rather than code
    example: float | None = None  # a cut's value in the prose's live example (ch1_prose: rule.NAME.*)

    @classmethod
    def bar(cls, v, p1: float, std: float) -> float | None:
        """For a cut that is a bar on probability (min-p) or on the scores (top-nσ), the lowest
        probability a token may have to pass, at T = 1 (the filters' figures draw it); None for a
        cut by rank or by mass."""
        return None

    @classmethod
    def on(cls, v) -> bool:
        return v != cls.neutral

    @classmethod
    def check(cls, v) -> None:
        x = _number(v, cls.field)
        if not cls.valid(x):
            # the message key is err.NAME_range (tests/test_spec.py checks every rule has it)
            code = cls.name + "_range"
            raise SamplerError(code, cls.field)

    @classmethod
    def describe(cls) -> dict:
        lo, hi, step = cls.slider
        return {"name": cls.name, "field": cls.field, "kind": cls.kind, "integer": cls.type is int,
                "default": cls.default, "neutral": cls.neutral, "min": lo, "max": hi, "step": step,
                "symbol": cls.symbol, "kernel": cls.kernel, "table": cls.table, "table_key": cls.table_key,
                "example": cls.example}


class RepetitionPenalty(Rule):
    """Tokens seen in the last `penalty_window` tokens: z / r if z > 0, else z * r (1: off)."""
    name, field, default, neutral, kind = "penalty", "repetition_penalty", 1.0, 1.0, "penalty"
    slider, symbol = (1, 2, 0.05), "r"
    table = {"transformers": "repetition_penalty=1.0", "llama.cpp": "repeat_penalty=1.0", "vllm": "repetition_penalty=1.0"}

    @staticmethod
    def valid(r: float) -> bool:
        return r >= 1 and not math.isinf(r)

    @staticmethod
    def overrides(source, history, s: Settings) -> dict:
        return penalty_overrides(source, history, s.repetition_penalty, int(s.penalty_window))


class Temperature(Rule):
    """s = z / T (T = 0: greedy). With temperature_last the cuts see T = 1 and the temperature
    reaches the survivors only (llama.cpp's order)."""
    name, field, default, neutral, kind = "temperature", "temperature", 0.8, 1.0, "scale"
    slider, symbol = (0, 2, 0.05), "T"
    table = {"transformers": "temperature=1.0", "llama.cpp": "temp=0.8", "vllm": "temperature=1.0",
             "openai": "temperature=1"}
    table_key = "ch1.tab.temp"
    LO, HI = 0.01, 100.0  # below 0.01 a float32 softmax is greedy anyway; 1/T overflows long before T reaches 0

    @classmethod
    def valid(cls, t: float) -> bool:
        return t == 0 or cls.LO <= t <= cls.HI

    @classmethod
    def check(cls, v) -> None:
        if not cls.valid(_number(v, cls.field)):
            raise SamplerError("temperature_range", cls.field, lo=cls.LO, hi=cls.HI)

    @staticmethod
    def inverse(s: Settings, last: bool) -> float:
        return 1.0 if last else 1.0 / float(s.temperature)


class TopNSigma(Rule):
    """Top-n-sigma (Tang et al., 2024; llama.cpp's top_n_sigma): keep the tokens whose logit is
    within n standard deviations of the largest, the deviation taken over the whole vocabulary's
    (penalised) logits (0: off). A bar on the logits themselves: dividing them by T divides their
    spread too, so the temperature never moves it. Its statistic comes with the source's O(vocab)
    pass (Prepared.std)."""
    name, field, default, neutral, kind = "top_n_sigma", "top_n_sigma", 0.0, 0.0, "prefix"
    slider, symbol, example = (0, 5, 0.1), "n", 1.0
    table = {"llama.cpp": "top_n_sigma=-1"}

    @staticmethod
    def valid(n: float) -> bool:
        return 0 <= n and not math.isinf(n)

    @classmethod
    def bar(cls, v, p1: float, std: float) -> float:
        return p1 * math.exp(-v * std)  # z_i >= z_1 - n σ, and p_i / p_1 = e^(z_i - z_1) at T = 1

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[int, bool]:
        bar = c.top_value() - v * c.std
        j = bisect_right(c.vals, -bar, 0, keep, key=_neg)  # the first `keep` values fall with rank
        if j == keep == len(c.ids) and ctx.open:
            return keep, True  # the last fetched token still clears the bar: more may
        ctx.bounded = True
        return max(1, j), False


class TopK(Rule):
    """Keep the k most likely (0: off). It also tells the sampler how many candidates to fetch."""
    name, field, type, default, neutral, kind = "top_k", "top_k", int, 0, 0, "prefix"
    slider, symbol, kernel, example = (0, 100, 1), "k", True, 40  # llama.cpp's default
    table = {"transformers": "top_k=50", "llama.cpp": "top_k=40", "vllm": "top_k=-1"}

    @staticmethod
    def valid(k: float) -> bool:
        return k >= 0 and k == int(k)

    @staticmethod
    def fetch(v) -> int:
        return int(v)

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[int, bool]:
        ctx.bounded = True  # every survivor is among the k fetched
        return min(int(v), keep), False


class TypicalP(Rule):
    """Locally typical sampling (Meister et al., 2022; transformers' typical_p, llama.cpp's typ_p):
    keep the tokens whose surprise -ln q is closest to the entropy H of the distribution they come
    from (the survivors of the cuts before, renormalised), nearest first, until their mass reaches
    p; the token that crosses the line stays (1: off). Not a prefix: when the favourite is far
    more likely than is typical, it is dropped.

    Surprise grows down the ranking, so distance to H falls to the token nearest H and then grows:
    the kept set is a run of ranks around that token, found by walking up and down from it (ties
    in distance to the higher-ranked token). Tokens not fetched yet are at least as far from H
    as the last fetched one, when that one is already past H; otherwise the sampler fetches more."""
    name, field, default, neutral, kind = "typical_p", "typical_p", 1.0, 1.0, "mask"
    slider, symbol, example = (0.05, 1, 0.01), "p_typ", 0.2  # the paper's value for stories
    table = {"transformers": "typical_p=1.0", "llama.cpp": "typ_p=1.0"}

    @staticmethod
    def valid(p: float) -> bool:
        return 0 < p <= 1

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[list, bool]:
        c.grow(keep)
        probs = c.probs
        if ctx.bounded:
            mass, H = c.cum[keep - 1], 0.0
            for p in probs[:keep]:
                if p > 0:
                    H -= p / mass * math.log(p / mass)
        else:
            mass, H = 1.0, c.entropy_full()
        log, inf = math.log, math.inf

        def dist(j: int) -> float:
            return abs(-log(probs[j] / mass) - H) if probs[j] > 0 else inf

        # positions before `down` are at most H in surprise (p >= mass e^-H), the rest above it
        down = c0 = c.count_at_least(mass * math.exp(-H), keep)
        up = down - 1
        if ctx.open and down == keep:
            return keep, True  # every fetched token is at most H in surprise: the nearest may come later
        beyond = (-log(probs[keep - 1] / mass) - H) if probs[keep - 1] > 0 else inf  # unfetched: at least this far
        target, acc, taken_up = v * mass, 0.0, []
        while acc < target:
            du = dist(up) if up >= 0 else inf
            if down < keep:
                dd = dist(down)
            elif ctx.open:
                if du > beyond or up < 0:
                    return keep, True  # an unfetched token may be nearer than the last one left above
                dd = inf
            else:
                dd = inf
            if du == dd == inf:
                break
            if du <= dd:
                # walking up meets a group of equal probabilities from its far end: take the
                # group in rank order (its first token first), as the sort by (distance, rank) does
                g0 = up
                while g0 > 0 and probs[g0 - 1] == probs[up]:
                    g0 -= 1
                for j in range(g0, up + 1):
                    taken_up.append(j)
                    acc += probs[j]
                    if acc >= target:
                        break
                up = g0 - 1
            else:
                acc += probs[down]
                down += 1
        ctx.bounded = True
        return sorted(taken_up) + list(range(c0, down)), False


class TopP(Rule):
    """Keep the shortest head whose mass reaches p of what the cuts before left; the token that
    crosses the line stays (1: off)."""
    name, field, default, neutral, kind = "top_p", "top_p", 0.95, 1.0, "prefix"
    slider, symbol, kernel, example = (0.05, 1, 0.01), "p", True, 0.95
    table = {"transformers": "top_p=1.0", "llama.cpp": "top_p=0.95", "vllm": "top_p=1.0", "openai": "top_p=1"}

    @staticmethod
    def valid(p: float) -> bool:
        return 0 < p <= 1

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[int, bool]:
        if ctx.bounded:
            c.grow(keep)
        j = c.first_reaching(v * (c.cum[keep - 1] if ctx.bounded else 1.0), keep)
        if j == keep:
            # the fetched head is short of p: fetch more, unless an earlier cut bounded the set
            # (then the whole set is short of p only by rounding: keep it all)
            return keep, ctx.open
        ctx.bounded = True
        return j + 1, False


class MinP(Rule):
    """Keep tokens with probability >= min_p * (the top token's probability) (0: off)."""
    name, field, default, neutral, kind = "min_p", "min_p", 0.0, 0.0, "prefix"
    slider, symbol, kernel, example = (0, 0.5, 0.01), "p_min", True, 0.1
    table = {"transformers": "min_p=None", "llama.cpp": "min_p=0.05", "vllm": "min_p=0"}

    @staticmethod
    def valid(mp: float) -> bool:
        return 0 <= mp <= 1

    @classmethod
    def bar(cls, v, p1: float, std: float) -> float:
        return v * p1

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[int, bool]:
        c.grow(1)
        j = c.count_at_least(v * c.probs[0], keep)
        # the last fetched token still passes: survivors may go on past what was fetched
        more = j == keep == len(c.ids) and ctx.open
        return max(1, j), more


# the order they apply in: the temperature before the cuts (as transformers does), the cuts in
# llama.cpp's order (top-n-sigma, top-k, typical-p, top-p, min-p)
STEPS = (RepetitionPenalty, Temperature, TopNSigma, TopK, TypicalP, TopP, MinP)
CUTS = tuple(step for step in STEPS if step.kind in ("prefix", "mask"))
# the cuts the kernel's one-call draw (dl_logits_sample) repeats; settings that switch on any
# other cut are drawn by this module (the kernel is not asked)
KERNEL_CUTS = tuple(step for step in CUTS if step.kernel)
BY_FIELD = {step.field: step for step in STEPS}


# ---- the settings: one field per rule (its default), and the penalty's two options -------------

def _settings_class():
    """Settings, a frozen dataclass: each rule's field with its default, in STEPS order, then the
    penalty's window and the temperature's place. Generated from STEPS so that a rule is declared
    once; Settings(**kw), asdict and equality behave as for a hand-written dataclass."""
    from dataclasses import field, make_dataclass

    fields = [(step.field, step.type, field(default=step.default)) for step in STEPS]
    fields += [("penalty_window", int, field(default=64)),       # tokens the penalty looks back
               ("temperature_last", bool, field(default=False))]  # llama.cpp's order: cuts at T = 1

    def as_dict(self) -> dict:
        return asdict(self)

    def filters_on(self) -> bool:
        """Whether any cut is on; off, every token survives."""
        return any(cut.on(getattr(self, cut.field)) for cut in CUTS)

    return make_dataclass("Settings", fields, frozen=True, namespace={
        "as_dict": as_dict, "filters_on": property(filters_on), "__module__": __name__,
        "__doc__": "The sampler's settings: one field per rule of STEPS, plus penalty_window and temperature_last."})


Settings = _settings_class()
DEFAULTS = Settings()
MIN_TEMPERATURE, MAX_TEMPERATURE = Temperature.LO, Temperature.HI


def _number(v, field: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SamplerError("setting_not_number", field, name={"key": f"err.setting.{field}"})
    if math.isnan(v):
        raise SamplerError("setting_nan", field, name={"key": f"err.setting.{field}"})
    return float(v)


def make_settings(**kw) -> Settings:
    """Build and validate settings from loose values (as they arrive from the page)."""
    known = set(Settings.__dataclass_fields__)
    unknown = set(kw) - known
    if unknown:
        raise SamplerError("setting_unknown", sorted(unknown)[0], name=sorted(unknown)[0])
    s = Settings(**{**DEFAULTS.as_dict(), **kw})
    validate(s)
    return s


def validate(s: Settings) -> None:
    """Every step checks its own parameter (STEPS), plus the penalty's window."""
    for step in STEPS:
        step.check(getattr(s, step.field))
    w = _number(s.penalty_window, "penalty_window")
    if w < 0 or w != int(w):
        raise SamplerError("penalty_window_range", "penalty_window")


# ---- one step ----------------------------------------------------------------------------------

def penalty_overrides(source, history, r: float, window: int) -> dict:
    if r == 1.0 or window == 0 or not history:
        return {}
    out = {}
    skip = source.unpenalised
    for t in set(history[-window:]):
        if 0 <= t < source.vocab_size and t not in skip:
            z = source.value(t)
            out[t] = z / r if z > 0 else z * r
    return out


@dataclass
class Step:
    token: int
    prob: float                # probability of the drawn token in the final distribution
    survivors: int             # tokens left after the filters
    cut_mass: float            # mass the filters removed (in the distribution they saw)
    entropy: float             # entropy (nats) of the final distribution
    entropy_full: float        # entropy of the distribution before the filters
    head: list                 # [(id, p_before_filters, q_final)] for the top of the list
    kept: list = field(default_factory=list)  # the survivors' ranks as [first, last] runs (1-based)


def _neg(x: float) -> float:
    return -x


class _Ranked:
    """Searches over running sums and falling probabilities that rules use (lazily grown)."""

    def first_reaching(self, target: float, limit: int) -> int:
        """Index of the first running sum >= target among the first `limit`, or limit if none."""
        lo = 0
        while True:
            self.grow(lo + 1)
            hi = min(len(self.cum), limit)
            j = bisect_left(self.cum, target, lo, hi)
            if j < hi or hi == limit:
                return j
            lo = hi

    def count_at_least(self, thr: float, limit: int) -> int:
        """How many of the first `limit` probabilities are >= thr (they fall with rank)."""
        lo = 0
        while True:
            self.grow(lo + 1)
            hi = min(len(self.probs), limit)
            j = bisect_right(self.probs, -thr, lo, hi, key=_neg)
            if j < hi or hi == limit:
                return j
            lo = hi


class Candidates(_Ranked):
    """The fetched head of the ranking for one step (ties to the lower id), with what the source
    computed over the whole vocabulary (Prepared), the probabilities and running sums computed
    lazily, and what the cuts kept: `kept` is a prefix length, or a list of positions after a mask."""
    __slots__ = ("ids", "vals", "probs", "cum", "inv", "M", "Z", "A", "mean", "std", "kept", "complete")

    CHUNK = 32

    def __init__(self, prep: Prepared, inv: float):
        self.ids, self.vals, self.M, self.Z, self.A, self.mean, self.std = prep
        self.probs, self.cum, self.inv = [], [], inv

    def grow(self, m: int) -> None:
        """Make probs and running sums cover the first m candidates (at least a chunk more at a
        time): a rule computes them only as far down the ranking as it needs to look."""
        have = len(self.probs)
        if have >= m:
            return
        m = min(len(self.vals), max(m, have + self.CHUNK))
        inv, M, Z, exp = self.inv, self.M, self.Z, math.exp
        new = [exp(z * inv - M) / Z for z in self.vals[have:m]]
        self.probs += new
        if self.cum:
            run = accumulate(new, initial=self.cum[-1])
            next(run)  # the initial value itself
            self.cum += run
        else:
            self.cum += accumulate(new)

    def entropy_full(self) -> float:
        return math.log(self.Z) - self.A / self.Z

    def top_value(self) -> float:
        """The largest (penalised) logit of the whole vocabulary."""
        return self.vals[0]

    def subset(self, positions: list) -> "_Subset":
        return _Subset(self, positions)

    # what the draw and the statistics read: the survivors, whichever form `kept` has
    def kept_positions(self) -> range | list:
        return range(self.kept) if isinstance(self.kept, int) else self.kept

    def kept_count(self) -> int:
        return self.kept if isinstance(self.kept, int) else len(self.kept)


class _Subset(_Ranked):
    """The survivors of a mask, as the next cuts see them: a ranking of their own (still falling
    probabilities), with the same whole-vocabulary figures as the candidates they came from."""

    def __init__(self, c: Candidates, positions: list):
        c.grow(positions[-1] + 1 if positions else 0)
        self.positions = positions
        self.ids = [c.ids[i] for i in positions]
        self.vals = [c.vals[i] for i in positions]
        self.probs = [c.probs[i] for i in positions]
        self.cum = list(accumulate(self.probs))
        self.inv, self.M, self.Z, self.A, self.mean, self.std = c.inv, c.M, c.Z, c.A, c.mean, c.std
        self._top = c.vals[0]

    def top_value(self) -> float:
        return self._top

    def grow(self, m: int) -> None:
        """Everything is computed already."""

    def entropy_full(self) -> float:
        return math.log(self.Z) - self.A / self.Z


def _narrow(kept, answer):
    """The survivors after a cut: `answer` is a count (prefix) or positions (mask) of `kept`'s
    ranking; positions are always those of the whole candidate list."""
    if isinstance(answer, int):
        return answer if isinstance(kept, int) else kept[:answer]
    return list(answer) if isinstance(kept, int) else [kept[i] for i in answer]


class Plan(NamedTuple):
    """What the settings ask of every step, worked out once per Settings (they are frozen)."""
    cuts: tuple             # (rule, value) for each cut that is on, in order
    filtering: bool         # whether any cut is on
    temperature_last: bool  # the temperature reaches the survivors only (and the cuts see T = 1)
    inv: float              # 1/T as the cuts see it (0: greedy)
    fetch: int | None       # how many candidates a cut asks for (None: as the last step needed)
    kernel_cuts: dict | None  # the values of KERNEL_CUTS for LogitSource.draw, or None: these
    #                         settings switch on a cut the kernel does not implement


def _plan(s: Settings) -> Plan:
    """The Plan of `s`, kept on the instance: in Pyodide this saves a few microseconds a token."""
    plan = s.__dict__.get("_plan")
    if plan is None:
        cuts = tuple((cut, getattr(s, cut.field)) for cut in CUTS if cut.on(getattr(s, cut.field)))
        filtering = bool(cuts)
        temp_last = s.temperature_last and filtering  # with no filter the order makes no difference
        inv = Temperature.inverse(s, temp_last) if s.temperature else 0.0
        wanted = [cut.fetch(v) for cut, v in cuts if hasattr(cut, "fetch")]
        # the kernel's draw applies the temperature first, and knows only KERNEL_CUTS
        kernel_cuts = None
        if not temp_last and all(cut.kernel for cut, _ in cuts):
            kernel_cuts = {cut.field: cut.type(getattr(s, cut.field)) for cut in KERNEL_CUTS}
        plan = Plan(cuts, filtering, temp_last, inv, min(wanted) if wanted else None, kernel_cuts)
        object.__setattr__(s, "_plan", plan)  # not a field: equality, hashing and asdict ignore it
    return plan


def _filter(source, over: dict, s: Settings, u: float | None, fetch_all: bool) -> Candidates:
    """Fetch candidates and apply the cuts that are on, in order (T > 0).

    The per-token work avoids Python loops: probabilities come from comprehensions, running sums
    from itertools.accumulate, and each prefix cut is a binary search (`bisect`) on them, because
    in Pyodide every Python-level iteration costs a fraction of a microsecond and a step must fit
    in a fraction of a millisecond. Running sums are plain left-to-right sums, so a cut is the
    first index whose running sum reaches its target, exactly as a loop would find it.
    """
    V = source.vocab_size
    plan = _plan(s)
    # fetch what a cut asks for (top-k: k), else as many as the last step needed (sources
    # remember it), and more if that falls short
    bounded_fetch = plan.fetch is not None
    n = V if fetch_all else min(V, plan.fetch if bounded_fetch else source.fetch_hint)
    while True:
        c = Candidates(source.prepare(plan.inv, over, n), plan.inv)
        complete = len(c.ids) == V
        ctx = _StepContext(complete)
        kept = len(c.ids)
        need_more = False
        for cut, v in plan.cuts:
            view = c if isinstance(kept, int) else c.subset(kept)
            answer, need_more = cut.cut(view, v, kept if isinstance(kept, int) else len(kept), ctx)
            if need_more:
                break
            kept = _narrow(kept, answer)
        if not plan.filtering and not complete and u is not None:
            c.grow(len(c.ids))
            need_more = c.cum[-1] < u  # no filter: every token survives; fetch until the draw is covered
        if not need_more:
            break
        n = min(V, n * 4)
    c.kept, c.complete = kept, complete
    last = kept if isinstance(kept, int) else (kept[-1] + 1 if kept else 1)
    if not bounded_fetch and plan.filtering and not fetch_all:
        source.fetch_hint = min(V, max(64, 2 * last))
    c.grow(last)
    return c


def _draw(c: Candidates, s: Settings, u: float | None, plan: Plan) -> tuple[int, list | None]:
    """Position of the drawn candidate (u None: the top survivor), and the final weights of the
    survivors when they are not c.probs's own (temperature applied last, or a mask's survivors)."""
    if not isinstance(c.kept, int):
        pos = c.kept
        if plan.temperature_last:
            T, z0 = float(s.temperature), c.vals[pos[0]]
            w = [math.exp((c.vals[i] - z0) / T) for i in pos]
        else:
            w = [c.probs[i] for i in pos]
        if u is None:
            return pos[0], w
        cw = list(accumulate(w))
        return pos[min(bisect_left(cw, u * cw[-1]), len(pos) - 1)], w
    if plan.temperature_last:
        T, z0 = float(s.temperature), c.vals[0]
        w = [math.exp((z - z0) / T) for z in c.vals[:c.kept]]
        if u is None:
            return 0, w
        cw = list(accumulate(w))
        return min(bisect_left(cw, u * cw[-1]), c.kept - 1), w
    if u is None:
        return 0, None
    if plan.filtering:
        mass = c.cum[c.kept - 1]
    else:
        # No filter: the weights are e^(s_i - M) / Z with Z summed by the kernel in double, in
        # another order and with its own exponential, so they need not add up to exactly 1 (they
        # do to about 1e-14). A u above their actual total would fall through to
        # the last candidate, which unfiltered is the least likely token of the whole vocabulary.
        # _filter fetched every token in that case, so draw against the actual total.
        mass = c.cum[c.kept - 1] if c.complete and u * 1.0 >= c.cum[c.kept - 1] else 1.0
    # the first candidate whose running sum reaches u of the kept mass (rounding can leave u just
    # above the last running sum: then the last kept token)
    return min(bisect_left(c.cum, u * mass, 0, c.kept), c.kept - 1), None


def draw_from(dist: dict, u: float) -> int:
    """Draw a token from {token: weight} with a uniform u in [0, 1): tokens in order of falling
    weight (ties to the lower id), each owning an interval of the running sum, against the
    weights' actual total. The weights need not add up to exactly 1 (an unfiltered distribution
    normalised by the kernel's float32 sum does not), and u can never run past the last one."""
    items = sorted(dist.items(), key=lambda kv: (-kv[1], kv[0]))
    cum = list(accumulate(w for _, w in items))
    return items[min(bisect_right(cum, u * cum[-1]), len(items) - 1)][0]


def sample_token(source, history, s: Settings, rng: Rng | None) -> int:
    """The token `sample_step` would draw, without the statistics (the generation loop's path)."""
    over = RepetitionPenalty.overrides(source, history, s)
    if s.temperature == 0:
        return _top(source, over)
    plan = _plan(s)
    u = rng.random() if rng is not None else None
    if plan.kernel_cuts is not None and u is not None:
        tok = source.draw(plan.inv, over, plan.kernel_cuts, u)  # the kernel's one call, where it is sure
        if tok >= 0:
            return tok
    c = _filter(source, over, s, u, False)
    j, _ = _draw(c, s, u, plan)
    return c.ids[j]


def _runs(positions) -> list:
    """[first, last] runs of consecutive 1-based ranks."""
    out = []
    for p in positions:
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p + 1, p + 1])
    return out


def sample_step(source, history, s: Settings, rng: Rng | None, head_size: int = 12, fetch_all: bool = False) -> Step:
    """Apply the settings to the logits in `source` and draw one token.

    With rng None the most likely surviving token is taken; T = 0 is greedy. `head` lists the
    first `head_size` tokens by rank with their probability before and after the filters
    (fetch_all=True makes it cover the whole vocabulary, for tests and the full-distribution plot).
    """
    V = source.vocab_size
    over = RepetitionPenalty.overrides(source, history, s)
    if s.temperature == 0:
        tok = _top(source, over)
        return Step(tok, 1.0, 1, 0.0, 0.0, 0.0, [(tok, 1.0, 1.0)], [[1, 1]])
    plan = _plan(s)
    u = rng.random() if rng is not None else None
    c = _filter(source, over, s, u, fetch_all)
    j, w = _draw(c, s, u, plan)
    filtering = plan.filtering
    c.grow(len(c.ids) if not filtering else min(head_size, len(c.ids)))  # _filter grew the survivors
    probs, entropy_full = c.probs, c.entropy_full()
    positions = c.kept_positions()
    q = {}  # position -> probability in the final distribution
    if not filtering:
        survivors, kept_mass, ent = V, 1.0, entropy_full
        q = None
    else:
        survivors = c.kept_count()
        if isinstance(c.kept, int):
            kept_mass = c.cum[c.kept - 1]
        else:
            kept_mass = 0.0
            for i in positions:  # left to right, as the running sums are
                kept_mass += probs[i]
        if w is not None:  # temperature last (or a mask's own weights): normalise them
            tot = math.fsum(w) if plan.temperature_last else kept_mass
            q = {i: x / tot for i, x in zip(positions, w)}
        else:
            q = {i: probs[i] / kept_mass for i in positions}
        ent = -sum(x * math.log(x) for x in q.values() if x > 0)
    ids = c.ids
    if q is None:
        head = [(ids[i], probs[i], probs[i]) for i in range(min(head_size, len(ids)))]
        prob = probs[j]
        kept = [[1, V]]
    else:
        head = [(ids[i], probs[i], q.get(i, 0.0)) for i in range(min(head_size, len(ids)))]
        prob = q[j]
        kept = _runs(positions)
    return Step(ids[j], prob, survivors, max(0.0, 1.0 - kept_mass), ent, entropy_full, head, kept)


_GREEDY = Settings(temperature=0.0)


def _top(source, over: dict) -> int:
    """The top token (ties to the lower id): one kernel call without a penalty."""
    return source.argmax() if not over else source.prepare(0.0, over, 1).ids[0]


def greedy(source, history=(), s: Settings | None = None) -> int:
    """The top token after the repetition penalty (ties to the lower id)."""
    s = s or _GREEDY
    if s.repetition_penalty == 1.0:
        return source.argmax()
    over = penalty_overrides(source, list(history), s.repetition_penalty, int(s.penalty_window))
    return _top(source, over)


def token_logprob(source, token: int) -> float:
    """ln p(token) at T = 1, no filters."""
    prep = source.prepare(1.0, {}, 0)
    return source.value(token) - prep.M - math.log(prep.Z)
