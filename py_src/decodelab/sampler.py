"""The sampler: from next-token logits to one drawn token (pure Python; runs in Pyodide).

Order of operations (the default, as in Hugging Face's warpers):
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
        """Whether any filter cuts the tail (top-k, top-p or min-p); off, every token survives."""
        return self.top_k > 0 or self.top_p < 1 or self.min_p > 0


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
    t = _number(s.temperature, "temperature")
    if not (t == 0 or MIN_TEMPERATURE <= t <= MAX_TEMPERATURE):
        # below 0.01 a float32 softmax is greedy anyway, and 1/T overflows long before T reaches 0
        raise SamplerError("temperature_range", "temperature", lo=MIN_TEMPERATURE, hi=MAX_TEMPERATURE)
    k = _number(s.top_k, "top_k")
    if k < 0 or k != int(k):
        raise SamplerError("top_k_range", "top_k")
    p = _number(s.top_p, "top_p")
    if not 0 < p <= 1:
        raise SamplerError("top_p_range", "top_p")
    mp = _number(s.min_p, "min_p")
    if not 0 <= mp <= 1:
        raise SamplerError("min_p_range", "min_p")
    r = _number(s.repetition_penalty, "repetition_penalty")
    if r < 1 or math.isinf(r):
        raise SamplerError("penalty_range", "repetition_penalty")
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


def _filter(source, over: dict, s: Settings, u: float | None, fetch_all: bool) -> _Cut:
    """Fetch candidates and apply top-k, top-p and min-p (T > 0).

    The per-token work avoids Python loops: probabilities come from comprehensions, running sums
    from itertools.accumulate, and each cut is a binary search (`bisect`) on them, because in
    Pyodide every Python-level iteration costs a fraction of a microsecond and a step must fit in
    a fraction of a millisecond. Running sums are plain left-to-right sums, so a cut is the first
    index whose running sum reaches its target, exactly as a loop would find it.
    """
    V = source.vocab_size
    k = int(s.top_k)
    filtering = s.filters_on
    temp_last = s.temperature_last and filtering  # with no filter the order makes no difference
    inv = 1.0 if temp_last else 1.0 / float(s.temperature)
    # fetch as many candidates as the last step needed (sources remember it), more if that falls short
    n = V if fetch_all else min(V, k if k > 0 else source.fetch_hint)
    c = _Cut()
    while True:
        c.ids, c.vals, c.M, c.Z, c.A = source.prepare(inv, over, n)
        c.probs, c.cum, c.inv = [], [], inv
        complete = len(c.ids) == V
        keep = len(c.ids) if k == 0 else min(k, len(c.ids))
        need_more = False
        if s.top_p < 1:
            # with top-k on, top-p renormalises over the top-k set first
            if k > 0:
                c.grow(keep)
            j = c.first_reaching(s.top_p * (c.cum[keep - 1] if k > 0 else 1.0), keep)
            if j == keep:
                if not complete and k == 0:
                    need_more = True
                # with top-k on, the whole top-k set is less than p only by rounding: keep it all
            else:
                keep = j + 1
        if s.min_p > 0 and not need_more:
            c.grow(1)
            j = c.count_at_least(s.min_p * c.probs[0], keep)
            if j == keep == len(c.ids) and not complete and k == 0 and s.top_p >= 1:
                need_more = True  # the last fetched token still passes: survivors may go further
            keep = max(1, j)
        if not filtering and not complete and u is not None:
            c.grow(len(c.ids))
            need_more = c.cum[-1] < u  # no filter: every token survives; fetch until the draw is covered
        if not need_more:
            break
        n = min(V, n * 4)
    if k == 0 and filtering and not fetch_all:
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
        # No filter: the weights are e^(s_i - M) / Z with Z summed in float32 by the kernel, so
        # they need not add up to exactly 1. A u above their actual total would fall through to
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
    over = penalty_overrides(source, history, s.repetition_penalty, int(s.penalty_window))
    if s.temperature == 0:
        return _top(source, over)
    filtering = s.filters_on
    u = rng.random() if rng is not None else None
    c = _filter(source, over, s, u, False)
    j, _ = _draw(c, s, u, filtering, s.temperature_last and filtering)
    return c.ids[j]


def sample_step(source, history, s: Settings, rng: Rng | None, head_size: int = 12, fetch_all: bool = False) -> Step:
    """Apply the settings to the logits in `source` and draw one token.

    With rng None the most likely surviving token is taken; T = 0 is greedy. `head` lists the
    first `head_size` tokens by rank with their probability before and after the filters
    (fetch_all=True makes it cover the whole vocabulary, for tests and the full-distribution plot).
    """
    V = source.vocab_size
    over = penalty_overrides(source, history, s.repetition_penalty, int(s.penalty_window))
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
