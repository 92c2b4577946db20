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
from dataclasses import asdict, dataclass
from itertools import accumulate

from .errors import InputError


class SamplerError(InputError):
    """A sampler parameter is invalid; `field` names it."""


@dataclass(frozen=True)
class Settings:
    temperature: float = 0.8
    top_k: int = 0
    top_p: float = 0.95
    min_p: float = 0.0
    repetition_penalty: float = 1.0
    penalty_window: int = 64
    temperature_last: bool = False

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def filters_on(self) -> bool:
        """Whether any cut (CUTS: top-k, top-p, min-p) is on; off, every token survives."""
        return any(cut.on(getattr(self, cut.field)) for cut in CUTS)


DEFAULTS = Settings()
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.01, 100.0


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
    """Every step checks its own parameter (STEPS, below), plus the penalty's window."""
    for step in STEPS:
        step.check(getattr(s, step.field))
    w = _number(s.penalty_window, "penalty_window")
    if w < 0 or w != int(w):
        raise SamplerError("penalty_window_range", "penalty_window")


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

    def draw(self, inv_t: float, overrides: dict, top_k: int, top_p: float, min_p: float, u: float) -> int:
        """A source that can draw a whole step itself (engine.KernelLogits: one kernel call)
        returns the token the exact path below would draw, with the cuts top-k, top-p and
        min-p as Settings has them (temperature first) and the uniform u, or -1 where it cannot
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

    def prepare(self, inv_t: float, overrides: dict, top_n: int):
        """-> (ids, values, M, Z, A): the top_n tokens by value (ties to the lower id) with their
        (penalised) values, and with s_i = z_i * inv_t: M = max s_i, Z = sum e^(s_i - M),
        A = sum e^(s_i - M) (s_i - M). The same contract as the kernel's dl_logits_prepare."""
        z = self.z
        if overrides:
            z = list(z)
            for i, v in overrides.items():
                z[i] = v
        order = sorted(range(len(z)), key=lambda i: (-z[i], i))[:top_n]
        M = Z = A = 0.0
        if inv_t > 0:
            M = max(z) * inv_t
            for v in z:
                s = v * inv_t - M
                e = math.exp(s)
                Z += e
                A += e * s
        return order, [z[i] for i in order], M, Z, A


# ---- the steps, in their order ----------------------------------------------------------------
#
# One unit per rule, the way Hugging Face's logits processors have one class per rule: each
# names its Settings field, checks its value, and does its part. Two kinds:
#   * the logit steps (penalty, temperature) change the logits; the LogitSource applies them in
#     its O(vocab) pass (the kernel's dl_logits_prepare), so they only say *what* to apply;
#   * the cuts (top-k, top-p, min-p) each keep a prefix of the ranking (the most likely tokens,
#     ties to the lower id), seeing the distribution the cuts before them left, renormalised.
#     A cut answers how many of the first `keep` candidates stay, and whether candidates not
#     fetched yet could change that answer (the sampler then fetches more and asks again).
# A new cut that keeps a prefix (epsilon sampling: p >= eps; top-a: p >= a * p_max^2) is one
# more class here, its field in Settings, its slider and its text keys. A rule that keeps a set
# that is not a prefix of the ranking (typical-p) needs the kept set as a mask instead.

class _StepContext:
    """What a cut sees besides the candidates: whether every token has been fetched, and
    whether an earlier cut already bounded the survivors to the fetched ones."""
    __slots__ = ("complete", "bounded")

    def __init__(self, complete: bool):
        self.complete, self.bounded = complete, False


class RepetitionPenalty:
    """Tokens seen in the last `penalty_window` tokens: z / r if z > 0, else z * r (1: off)."""
    field = "repetition_penalty"

    @staticmethod
    def check(v) -> None:
        r = _number(v, "repetition_penalty")
        if r < 1 or math.isinf(r):
            raise SamplerError("penalty_range", "repetition_penalty")

    @staticmethod
    def overrides(source, history, s: Settings) -> dict:
        return penalty_overrides(source, history, s.repetition_penalty, int(s.penalty_window))


class Temperature:
    """s = z / T (T = 0: greedy). With temperature_last the cuts see T = 1 and the temperature
    reaches the survivors only (llama.cpp's order)."""
    field = "temperature"

    @staticmethod
    def check(v) -> None:
        t = _number(v, "temperature")
        if not (t == 0 or MIN_TEMPERATURE <= t <= MAX_TEMPERATURE):
            # below 0.01 a float32 softmax is greedy anyway, and 1/T overflows long before T reaches 0
            raise SamplerError("temperature_range", "temperature", lo=MIN_TEMPERATURE, hi=MAX_TEMPERATURE)

    @staticmethod
    def inverse(s: Settings, last: bool) -> float:
        return 1.0 if last else 1.0 / float(s.temperature)


class TopK:
    """Keep the k most likely (0: off). It also tells the sampler how many candidates to fetch."""
    field = "top_k"

    @staticmethod
    def check(v) -> None:
        k = _number(v, "top_k")
        if k < 0 or k != int(k):
            raise SamplerError("top_k_range", "top_k")

    @staticmethod
    def on(v) -> bool:
        return v > 0

    @staticmethod
    def fetch(v) -> int:
        return int(v)

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[int, bool]:
        ctx.bounded = True  # every survivor is among the k fetched
        return min(int(v), keep), False


class TopP:
    """Keep the shortest head whose mass reaches p of what the cuts before left; the token that
    crosses the line stays (1: off)."""
    field = "top_p"

    @staticmethod
    def check(v) -> None:
        p = _number(v, "top_p")
        if not 0 < p <= 1:
            raise SamplerError("top_p_range", "top_p")

    @staticmethod
    def on(v) -> bool:
        return v < 1

    fetch = None

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[int, bool]:
        if ctx.bounded:
            c.grow(keep)
        j = c.first_reaching(v * (c.cum[keep - 1] if ctx.bounded else 1.0), keep)
        if j == keep:
            # the fetched head is short of p: fetch more, unless an earlier cut bounded the set
            # (then the whole set is short of p only by rounding: keep it all)
            return keep, not ctx.complete and not ctx.bounded
        ctx.bounded = True
        return j + 1, False


class MinP:
    """Keep tokens with probability >= min_p * (the top token's probability) (0: off)."""
    field = "min_p"

    @staticmethod
    def check(v) -> None:
        mp = _number(v, "min_p")
        if not 0 <= mp <= 1:
            raise SamplerError("min_p_range", "min_p")

    @staticmethod
    def on(v) -> bool:
        return v > 0

    fetch = None

    @staticmethod
    def cut(c, v, keep: int, ctx: _StepContext) -> tuple[int, bool]:
        c.grow(1)
        j = c.count_at_least(v * c.probs[0], keep)
        # the last fetched token still passes: survivors may go on past what was fetched
        more = j == keep == len(c.ids) and not ctx.complete and not ctx.bounded
        return max(1, j), more


STEPS = (RepetitionPenalty, Temperature, TopK, TopP, MinP)  # the order they apply in
CUTS = tuple(step for step in STEPS if hasattr(step, "cut"))
# the cuts the kernel's one-call draw (dl_logits_sample) repeats; a new cut stays in Python
# until the kernel learns it too
KERNEL_CUTS = (TopK, TopP, MinP)


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


def _neg(x: float) -> float:
    return -x


class _Cut:
    """Candidates of one step, their probabilities (computed lazily) and what the filters kept."""
    __slots__ = ("ids", "vals", "probs", "cum", "keep", "inv", "M", "Z", "A", "complete")

    CHUNK = 32

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


def _plan(s: Settings) -> tuple:
    """What the settings ask of every step, worked out once per Settings (they are frozen): the
    cuts that are on with their values, whether any is, whether the temperature comes last,
    1/T as the cuts see it, how many candidates a cut asks for (None: as the last step needed),
    and the cut values for LogitSource.draw (None where it does not apply).
    Kept on the instance: in Pyodide this is a few microseconds a token saved."""
    plan = s.__dict__.get("_plan")
    if plan is None:
        cuts = tuple((cut, getattr(s, cut.field)) for cut in CUTS if cut.on(getattr(s, cut.field)))
        filtering = bool(cuts)
        temp_last = s.temperature_last and filtering  # with no filter the order makes no difference
        inv = Temperature.inverse(s, temp_last) if s.temperature else 0.0
        wanted = [cut.fetch(v) for cut, v in cuts if cut.fetch]
        # what a source's own draw() gets (the kernel applies the temperature first)
        quick = None
        if not temp_last and all(cut in KERNEL_CUTS for cut, _ in cuts):
            quick = (int(s.top_k), float(s.top_p), float(s.min_p))
        plan = (cuts, filtering, temp_last, inv, min(wanted) if wanted else None, quick)
        object.__setattr__(s, "_plan", plan)  # not a field: equality, hashing and asdict ignore it
    return plan


def _filter(source, over: dict, s: Settings, u: float | None, fetch_all: bool) -> _Cut:
    """Fetch candidates and apply the cuts that are on, in order (T > 0).

    The per-token work avoids Python loops: probabilities come from comprehensions, running sums
    from itertools.accumulate, and each cut is a binary search (`bisect`) on them, because in
    Pyodide every Python-level iteration costs a fraction of a microsecond and a step must fit in
    a fraction of a millisecond. Running sums are plain left-to-right sums, so a cut is the first
    index whose running sum reaches its target, exactly as a loop would find it.
    """
    V = source.vocab_size
    cuts, filtering, temp_last, inv, wanted, _ = _plan(s)
    # fetch what a cut asks for (top-k: k), else as many as the last step needed (sources
    # remember it), and more if that falls short
    bounded_fetch = wanted is not None
    n = V if fetch_all else min(V, wanted if bounded_fetch else source.fetch_hint)
    c = _Cut()
    while True:
        c.ids, c.vals, c.M, c.Z, c.A = source.prepare(inv, over, n)
        c.probs, c.cum, c.inv = [], [], inv
        complete = len(c.ids) == V
        ctx = _StepContext(complete)
        keep = len(c.ids)
        need_more = False
        for cut, v in cuts:
            keep, need_more = cut.cut(c, v, keep, ctx)
            if need_more:
                break
        if not filtering and not complete and u is not None:
            c.grow(len(c.ids))
            need_more = c.cum[-1] < u  # no filter: every token survives; fetch until the draw is covered
        if not need_more:
            break
        n = min(V, n * 4)
    if not bounded_fetch and filtering and not fetch_all:
        source.fetch_hint = min(V, max(64, 2 * keep))
    c.keep = keep
    c.complete = complete
    c.grow(keep)
    return c


def _draw(c: _Cut, s: Settings, u: float | None, filtering: bool, temp_last: bool) -> tuple[int, list | None]:
    """Index of the drawn candidate (u None: the top one), and the final weights when they differ
    from c.probs (temperature applied last)."""
    if temp_last:
        T, z0 = float(s.temperature), c.vals[0]
        w = [math.exp((z - z0) / T) for z in c.vals[:c.keep]]
        if u is None:
            return 0, w
        cw = list(accumulate(w))
        return min(bisect_left(cw, u * cw[-1]), c.keep - 1), w
    if u is None:
        return 0, None
    if filtering:
        mass = c.cum[c.keep - 1]
    else:
        # No filter: the weights are e^(s_i - M) / Z with Z summed by the kernel in double, in
        # another order and with its own exponential, so they need not add up to exactly 1 (they
        # do to about 1e-14). A u above their actual total would fall through to
        # the last candidate, which unfiltered is the least likely token of the whole vocabulary.
        # _filter fetched every token in that case, so draw against the actual total.
        mass = c.cum[c.keep - 1] if c.complete and u * 1.0 >= c.cum[c.keep - 1] else 1.0
    # the first candidate whose running sum reaches u of the kept mass (rounding can leave u just
    # above the last running sum: then the last kept token)
    return min(bisect_left(c.cum, u * mass, 0, c.keep), c.keep - 1), None


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
    _, filtering, temp_last, inv, _, quick = _plan(s)
    u = rng.random() if rng is not None else None
    if quick is not None and u is not None:
        tok = source.draw(inv, over, *quick, u)  # the kernel's one call, where it is sure
        if tok >= 0:
            return tok
    c = _filter(source, over, s, u, False)
    j, _ = _draw(c, s, u, filtering, temp_last)
    return c.ids[j]


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
        return Step(tok, 1.0, 1, 0.0, 0.0, 0.0, [(tok, 1.0, 1.0)])
    filtering = s.filters_on
    temp_last = s.temperature_last and filtering
    u = rng.random() if rng is not None else None
    c = _filter(source, over, s, u, fetch_all)
    j, w = _draw(c, s, u, filtering, temp_last)
    c.grow(len(c.ids) if not filtering else max(c.keep, min(head_size, len(c.ids))))
    keep, probs = c.keep, c.probs
    entropy_full = math.log(c.Z) - c.A / c.Z
    if not filtering:
        survivors, kept_mass = V, 1.0
    else:
        survivors, kept_mass = keep, c.cum[keep - 1]
    # the final distribution over the survivors
    if temp_last:
        tot = math.fsum(w)
        q = [x / tot for x in w]
        ent = -sum(x * math.log(x) for x in q if x > 0)
    elif filtering:
        q = [p / kept_mass for p in probs[:keep]]
        ent = -sum(x * math.log(x) for x in q if x > 0)
    else:
        q, ent = probs, entropy_full
    ids = c.ids
    head = [(ids[i], probs[i], q[i] if i < len(q) and (i < keep or not filtering) else 0.0)
            for i in range(min(head_size, len(ids)))]
    return Step(ids[j], q[j], survivors, max(0.0, 1.0 - kept_mass), ent, entropy_full, head)


_GREEDY = Settings(temperature=0.0)


def _top(source, over: dict) -> int:
    """The top token (ties to the lower id): one kernel call without a penalty."""
    return source.argmax() if not over else source.prepare(0.0, over, 1)[0][0]


def greedy(source, history=(), s: Settings | None = None) -> int:
    """The top token after the repetition penalty (ties to the lower id)."""
    s = s or _GREEDY
    if s.repetition_penalty == 1.0:
        return source.argmax()
    over = penalty_overrides(source, list(history), s.repetition_penalty, int(s.penalty_window))
    return _top(source, over)


def token_logprob(source, token: int) -> float:
    """ln p(token) at T = 1, no filters."""
    _, _, M, Z, _ = source.prepare(1.0, {}, 0)
    return source.value(token) - M - math.log(Z)
