"""Live speculative decoding with our draft and target models (pure Python over two engines).

Invariant between rounds: both caches hold every committed token except the newest, which is
"pending". A round:
  1. the draft feeds its pending tokens and proposes x1..x_gamma, one pass each (it samples x_i
     from its own final distribution q_i, or takes its top token when greedy);
  2. the target reads [pending, x1, .., x_gamma] in one verification pass and gets p_0..p_gamma;
  3. x_i is kept with probability min(1, p_i(x_i) / q_i(x_i)) (greedy: when it equals the target's
     top token); at the first rejection the target's token comes from the residual
     max(0, p - q) normalised (greedy: the target's top token); if every draft is kept, a bonus
     token is drawn from p_gamma;
  4. both caches forget the rejected drafts (dl_model_rewind).
This keeps the output distribution exactly the target's (see speculative.exactness_gate).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from . import sampler as S
from .engine import Engine
from .errors import InputError
from .spectiming import round_yield
from .speculative import accept_probability, check_gamma, residual_mass


def final_distribution(source, history, s: S.Settings) -> dict[int, float]:
    """The sampler's final distribution over the survivors, as {token: probability}."""
    if s.temperature == 0:
        return {S.greedy(source, history, s): 1.0}
    st = S.sample_step(source, history, s, None, head_size=source.vocab_size,
                       fetch_all=not s.filters_on)
    return {i: q for i, _, q in st.head if q > 0}


def _draw(dist: dict[int, float], rng: S.Rng) -> int:
    return S.draw_from(dist, rng.random())


@dataclass
class _Run:
    """One generate call's state between rounds, and what it has counted so far."""
    committed: list            # every token of the text so far (the prompt included)
    history_base: list         # what the sampler's penalty sees before `committed`
    d_pending: list            # tokens the draft has not read yet
    gamma: int
    out: list = field(default_factory=list)
    rounds: list = field(default_factory=list)
    by_pos_acc: list = None    # drafts kept at each position
    by_pos_seen: list = None   # drafts checked at each position
    time_draft: float = 0.0
    time_verify: float = 0.0
    passes_draft: int = 0
    passes_verify: int = 0

    def __post_init__(self):
        self.by_pos_acc = [0] * (self.gamma + 1)
        self.by_pos_seen = [0] * (self.gamma + 1)


@dataclass
class _Verdict:
    """What step 3 decided: how many drafts stay, the target's own token after them, and (for
    the round diagram) each check made."""
    accepted: int
    token: int
    checks: list


class SpecDecoder:
    def __init__(self, target: Engine, draft: Engine):
        if target.vocab != draft.vocab or target.eot != draft.eot:
            raise InputError("spec_tokenizers_differ", "draft")
        self.t, self.d = target, draft

    def generate(self, prompt: list[int], max_new: int, gamma: int, settings: S.Settings | None = None,
                 seed: int | None = None, stop: tuple[int, ...] = (), trace: list | None = None) -> dict:
        """Generate with speculation; returns tokens, per-round log, acceptance by position, timings.
        `trace`, a list, gets each round's checks position by position (the page's round diagram):
        the draft token x, p(x) and q(x), the uniform u the test drew, and the verdict."""
        gamma = check_gamma(gamma)
        s = settings or S.Settings(temperature=0.0)
        S.validate(s)
        rng = S.Rng(seed if seed is not None else 0)
        T0 = time.perf_counter()
        run = self._start(prompt, gamma)
        T_loop = time.perf_counter()  # the prompt is read; time the rounds only
        stop_hit = False
        while len(run.out) < max_new and not stop_hit:
            if len(self.t.history) + gamma + 2 > self.t.context or len(self.d.history) + gamma + 2 > self.d.context:
                raise InputError("spec_context_full", "max_new")
            drafts, q_dists = self._draft(run, s, rng)                       # 1. draft
            rows = self._verify(run, drafts)                                 # 2. verify
            v = self._accept(run, rows, drafts, q_dists, s, rng, trace is not None)  # 3. accept / reject
            self._roll_back(run, drafts, v)                                  # 4. roll back
            kept = drafts[:v.accepted] + [v.token]
            for tok in kept:
                run.out.append(tok)
                if tok in stop:
                    stop_hit = True
                    break
            run.committed.extend(kept)
            run.rounds.append({"drafts": drafts, "accepted": v.accepted, "token": v.token})
            if trace is not None:
                trace.append({"drafts": drafts, "checks": v.checks, "accepted": v.accepted, "token": v.token})
        return self._summary(run, max_new, time.perf_counter() - T_loop, time.perf_counter() - T0)

    def _start(self, prompt: list[int], gamma: int) -> _Run:
        """Both caches take the prompt but its last token, which is pending."""
        t, d = self.t, self.d
        t.reset()
        d.reset()
        committed = list(prompt) if prompt else []
        if not committed:  # start from the beginning-of-text token alone
            t.rewind(1)
            d.rewind(1)
            committed = [t.eot]
        elif len(committed) > 1:
            t.feed(committed[:-1])
            d.feed(committed[:-1])
        return _Run(committed, [t.eot] if prompt else [], [committed[-1]], gamma)

    def _draft(self, run: _Run, s: S.Settings, rng: S.Rng) -> tuple[list, list]:
        """The draft reads its pending tokens and proposes gamma tokens, one pass each: drawn from
        its own final distribution q (kept for step 3), or its top token when greedy."""
        a = time.perf_counter()
        d, gamma, greedy = self.d, run.gamma, s.temperature == 0
        drafts, q_dists = [], []
        hist = run.history_base + run.committed
        d_logits = d.feed(run.d_pending)
        for i in range(gamma):
            if i:
                d_logits = d.step(drafts[-1])
            src = d.logit_source(0, d_logits)
            if greedy:
                x = S.greedy(src, hist + drafts, s)
                q_dists.append(None)
            else:
                q = final_distribution(src, hist + drafts, s)
                x = _draw(q, rng)
                q_dists.append(q)
            drafts.append(x)
        run.time_draft += time.perf_counter() - a
        run.passes_draft += max(0, gamma - 1) + len(run.d_pending)
        return drafts, q_dists

    def _verify(self, run: _Run, drafts: list) -> list:
        """The target reads [pending, x1, .., x_gamma] in one pass: its logits at every position."""
        a = time.perf_counter()
        rows = self.t.verify([run.committed[-1]] + drafts)
        run.time_verify += time.perf_counter() - a
        run.passes_verify += 1
        return rows

    def _accept(self, run: _Run, rows: list, drafts: list, q_dists: list, s: S.Settings, rng: S.Rng,
                traced: bool) -> _Verdict:
        """x_i stays with probability min(1, p(x_i) / q(x_i)) (greedy: when it is the target's top
        token); the first rejected one is replaced from the residual max(0, p - q); when all stay, a
        bonus token comes from the target's last distribution."""
        greedy, gamma = s.temperature == 0, run.gamma
        hist = run.history_base + run.committed
        n_acc, checks = 0, []
        for i in range(gamma + 1):
            src = self.t.logit_source(i, rows[i])
            h = hist + drafts[:i]
            if i == gamma:  # all drafts kept: the bonus token
                new = S.greedy(src, h, s) if greedy else _draw(final_distribution(src, h, s), rng)
                return _Verdict(n_acc, new, checks)
            run.by_pos_seen[i] += 1
            x = drafts[i]
            if greedy:
                top = S.greedy(src, h, s)
                if traced:
                    checks.append({"x": x, "target_top": top, "accept": top == x})
                if top != x:
                    return _Verdict(n_acc, top, checks)
            else:
                p, q = final_distribution(src, h, s), q_dists[i]
                px, qx = p.get(x, 0.0), q[x]
                u = rng.random()
                if traced:
                    checks.append({"x": x, "p": px, "q": qx, "u": u, "accept": u < accept_probability(px, qx)})
                if not u < accept_probability(px, qx):
                    res = residual_mass(p, q)  # draw_from normalises by the actual total
                    return _Verdict(n_acc, _draw(res, rng) if res else _draw(p, rng), checks)
            n_acc += 1
            run.by_pos_acc[i] += 1
        raise AssertionError("unreachable: the loop returns at i == gamma")

    def _roll_back(self, run: _Run, drafts: list, v: _Verdict) -> None:
        """Both caches forget the rejected drafts; the round's new token becomes pending."""
        gamma = run.gamma
        self.t.rewind(gamma - v.accepted)
        if v.accepted == gamma:
            run.d_pending = [drafts[-1], v.token] if gamma else [v.token]
        else:
            self.d.rewind(gamma - 1 - v.accepted)
            run.d_pending = [v.token]

    @staticmethod
    def _summary(run: _Run, max_new: int, loop_s: float, elapsed: float) -> dict:
        out, rounds, gamma = run.out[:max_new], run.rounds, run.gamma
        n_r = len(rounds)
        proposed = sum(run.by_pos_seen)
        return {
            "tokens": out, "rounds": rounds, "gamma": gamma,
            "acceptance": (sum(run.by_pos_acc) / proposed) if proposed else None,
            "acceptance_by_position": [(a / n) if n else None for a, n in zip(run.by_pos_acc, run.by_pos_seen)][:gamma],
            "checks_by_position": run.by_pos_seen[:gamma],
            # every round's full yield (accepted + 1): the last round is cut at max_new, and
            # len(out) / n_r would count that cut against the rounds (a bias of up to gamma / n_r)
            "tokens_per_round": round_yield(rounds), "tokens_kept_per_round": len(out) / n_r if n_r else 0.0,
            "elapsed_s": elapsed, "loop_s": loop_s, "tokens_per_s": len(out) / loop_s if loop_s else 0.0,
            "draft_s": run.time_draft, "verify_s": run.time_verify, "round_rest_s": loop_s - run.time_draft,
            "n_rounds": n_r,
            "draft_passes": run.passes_draft, "verify_passes": run.passes_verify,
        }


def target_alone(t: Engine, prompt: list[int], n: int, s: S.Settings, seed: int) -> tuple[list[int], float]:
    """The target on its own with the same sampler: tokens, and seconds for the n-token loop
    (the prompt is read before the clock starts, as in SpecDecoder.generate)."""
    rng = S.Rng(seed)

    def choose(src, hist):
        return (S.greedy(src, hist, s) if s.temperature == 0 else _draw(final_distribution(src, hist, s), rng)), None

    g = t.generate(list(prompt), n, choose)
    return g.tokens, g.loop_s


def in_situ_costs(spec: dict, t_token: float) -> dict:
    """Costs as the rounds actually paid them, in units of one target-alone token (its pass and
    its sampling). c_draft is a round's drafting time over gamma, since the cost model charges
    gamma * c_draft per round (it includes the catch-up pass the draft makes after a round whose
    drafts were all kept); c_verify is the rest of a round (verification pass, accept/reject
    rule, rewinds)."""
    g, r = spec["gamma"], spec["n_rounds"]
    c_draft = (spec["draft_s"] / (r * g)) / t_token if r and g else 0.0
    c_verify = (spec["round_rest_s"] / spec["n_rounds"]) / t_token if spec["n_rounds"] else 0.0
    return {"c_draft": c_draft, "c_verify": c_verify, "t_target_ms": t_token * 1e3}


def measure_costs(target: Engine, draft: Engine, gamma: int) -> dict:
    """One target pass, one draft pass and one verification of gamma+1 tokens, each timed as a
    batch of many (probes.pass_costs): single passes are too short for a browser's clock."""
    from .probes import pass_costs

    return pass_costs(target, draft, gamma)
