"""The generation engine: one model in kernel memory, driven from Python (CPython or Pyodide).

The same code runs on both backends because it only uses `Kernel` (decodelab.kernel).
Logits come back as `array('f')` filled by one buffer copy (the cheapest route measured), or
stay in kernel memory for the sampler's kernel-side reductions (KernelLogits).

Context rule: the model sees at most `context` (512) positions. When the cache is full, the
engine keeps the last `keep` (256) tokens, empties the cache, re-reads those tokens in one
block and carries on, so generation can run past the context.
"""
from __future__ import annotations

import struct
import time
from array import array
from dataclasses import dataclass, field

from . import costs, spec
from .bundle import Bundle, read_bundle, tokenizer_from_bundle
from .errors import InputError
from .kernel import (CONFIG_FIELDS, MATRIX_INFO_WORDS, PREPARE_HEADER_BYTES, SAMPLE_MAX_OVER, SAMPLE_UNDECIDED,
                     SAMPLE_WORK_HEADER, Kernel, KernelError, sample_work_bytes)
from .sampler import LogitSource, Prepared



@dataclass
class Stats:
    passes: int = 0
    macs: float = 0.0
    kernel_s: float = 0.0
    python_s: float = 0.0
    slides: int = 0

    def as_dict(self) -> dict:
        return {"passes": self.passes, "macs": self.macs, "kernel_ms": self.kernel_s * 1e3,
                "python_ms": self.python_s * 1e3, "slides": self.slides}


@dataclass
class Generation:
    tokens: list[int]
    stop_reason: str  # "stop_token" | "length"
    stats: Stats
    steps: list = field(default_factory=list)  # per-token info the sampler callback returned
    loop_s: float = 0.0                        # seconds for the new tokens, after the prompt
    loop_kernel_s: float = 0.0                 # the kernel's share of loop_s (the prompt's left out)


class KernelLogits(LogitSource):
    """A sampler LogitSource over logits in kernel memory, with the O(vocab) work done by the kernel."""

    MAX_OVERRIDES = SAMPLE_MAX_OVER

    def __init__(self, k: Kernel, vocab: int, ptr: int, unpenalised=()):
        super().__init__(vocab, unpenalised)
        self.k = k
        self.scratch = k.alloc(4 * vocab)
        self.top_ids = k.alloc(4 * vocab)
        self.top_vals = k.alloc(4 * vocab)
        # dl_logits_sample's block; the penalty's ids and values live in it, for prepare too
        self.work = k.alloc(sample_work_bytes(vocab))
        self.over_ids = self.work + SAMPLE_WORK_HEADER
        self.over_vals = self.over_ids + 4 * self.MAX_OVERRIDES
        self._sample = k.logits_sample
        out_bytes = PREPARE_HEADER_BYTES + 8 * vocab
        self.out = k.alloc(out_bytes)
        self._outbuf = bytearray(out_bytes)
        self._sorted = 0                     # kernel buffers of sorted_copy / rank_curve, made on first use
        self._curve, self._curve_cap = 0, 0
        self.z, self.ptr = None, ptr

    def bind(self, z: array | None, ptr: int) -> "KernelLogits":
        """Point at the logits at kernel address `ptr`; `z` is their copy in Python, or None to
        copy them only if a single value is asked for (the repetition penalty)."""
        self.z, self.ptr = z, ptr
        return self

    def value(self, i: int) -> float:
        if self.z is None:
            self.z = array("f", bytes(4 * self.vocab_size))
            self.k.read_into(self.ptr, self.z)
        return self.z[i]

    def argmax(self) -> int:
        """The top token, ties to the lower id (dl_logits_argmax: one call, nothing copied)."""
        return self.k.logits_argmax(self.ptr, self.vocab_size)

    def _put_overrides(self, overrides: dict) -> int:
        n_over = len(overrides)
        if n_over > self.MAX_OVERRIDES:
            raise KernelError("too many penalised tokens")
        if n_over:
            self.k.put(self.over_ids, array("i", overrides.keys()))
            self.k.put(self.over_vals, array("f", overrides.values()))
        return n_over

    # dl_logits_sample's cut arguments, in its order: the Settings fields of sampler.KERNEL_CUTS
    # (tests/test_sampler.py checks that the two name the same rules)
    DRAW_CUTS = ("top_k", "top_p", "min_p")

    def draw(self, inv_t: float, overrides: dict, cuts: dict, u: float) -> int:
        """The token the sampler's exact path would draw, from one kernel call (dl_logits_sample),
        or -1 where the kernel cannot prove it (then the sampler computes it itself)."""
        n_over = self._put_overrides(overrides)
        tok = self._sample(self.ptr, self.vocab_size, self.work, n_over, inv_t, cuts["top_k"], cuts["top_p"],
                           cuts["min_p"], u)
        return -1 if tok == SAMPLE_UNDECIDED else tok

    def prepare(self, inv_t: float, overrides: dict, top_n: int) -> Prepared:
        n_over = self._put_overrides(overrides)
        got = self.k.logits_prepare(self.ptr, self.vocab_size, float(inv_t), self.over_ids, self.over_vals, n_over,
                                    self.scratch, top_n, self.top_ids, self.top_vals, self.out)
        h = PREPARE_HEADER_BYTES
        view = memoryview(self._outbuf)[:h + 8 * got]
        self.k.read_into(self.out, view)
        sums = struct.unpack_from(f"<{len(spec.PREPARE_HEADER)}d", view)
        ids, vals = array("i"), array("f")
        ids.frombytes(view[h:h + 4 * got])
        vals.frombytes(view[h + 4 * got:])
        return Prepared(ids, vals, *sums)

    def sorted_copy(self, overrides: dict) -> int:
        """Every value (with the penalty's overrides) in descending order, into a kernel buffer of
        this source's own; returns its address (for rank_curve)."""
        vals = self.prepare(0.0, overrides, self.vocab_size).vals
        if not self._sorted:
            self._sorted = self.k.alloc(4 * self.vocab_size)
        self.k.put(self._sorted, vals)
        return self._sorted

    def rank_curve(self, sorted_ptr: int, inv_t: float, M: float, Z: float,
                   ranks: list[int]) -> tuple[list[float], list[float]]:
        """p at each of `ranks` (1-based, ascending) and the running mass up to it, from values
        sorted by sorted_copy and M, Z of prepare at the same inv_t (dl_rank_curve)."""
        n = len(ranks)
        if n > self._curve_cap:
            self._curve, self._curve_cap = self.k.alloc(20 * n), n  # n int32 ranks, then 2n float64
        buf = self._curve
        self.k.put(buf, array("i", ranks))
        self.k.rank_curve(sorted_ptr, self.vocab_size, float(inv_t), M, Z, buf, n, buf + 4 * n, buf + 12 * n)
        out = array("d", bytes(16 * n))
        self.k.read_into(buf + 4 * n, out)
        return list(out[:n]), list(out[n:])


class KeptLogits:
    """One row of logits kept in a kernel buffer of its own, so that other widgets' runs cannot
    overwrite it, with the sampler's view over it (the control panel moves its sliders over one
    prompt's logits without running the model again). Made by Engine.kept_logits()."""

    def __init__(self, k: Kernel, vocab: int, eot: int):
        self._k = k
        self._ptr = k.alloc(4 * vocab)
        self._source = KernelLogits(k, vocab, self._ptr, unpenalised=(eot,))
        self.values: array | None = None  # the kept row in Python too (the penalty reads it)

    def store(self, logits: array) -> None:
        self._k.put(self._ptr, logits)
        self.values = array("f", logits)

    def source(self) -> KernelLogits:
        """The sampler's view of the kept row."""
        return self._source.bind(self.values, self._ptr)


class Engine:
    """One model in kernel memory: its KV cache, its logits, generation and re-quantization.

    The public surface is what widgets' endpoints use: reset/clear, feed, step, verify, rewind,
    recompute, logits(row), logit_source(row), generate, requantize/restore, matrix, counters.
    Everything below it goes through `Kernel`, the one ABI layer."""

    def __init__(self, kernel: Kernel, data: bytes, name: str = "model", keep: int = 256):
        self.k = kernel
        self.bundle: Bundle = read_bundle(data, name)  # checks magic, version, checksum, shapes
        self.tokenizer = tokenizer_from_bundle(self.bundle)
        self.name = name
        bundle_ptr = kernel.alloc(len(data))  # stays: restore and re-quantization read it
        kernel.put(bundle_ptr, data)
        h = kernel.model_load(bundle_ptr, len(data))
        if not h:
            raise KernelError(f"{name}: {kernel.last_error()}")
        self.h = h
        cfg_ptr = kernel.alloc(4 * CONFIG_FIELDS)
        kernel.model_config(h, cfg_ptr)
        (self.vocab, self.context, self.d_model, self.n_layers, self.n_heads, self.d_ff,
         self.eot) = struct.unpack(f"<{CONFIG_FIELDS}i", kernel.get_bytes(cfg_ptr, 4 * CONFIG_FIELDS))
        self.keep = keep
        self._tokens_ptr = kernel.alloc(4 * self.context)
        self.logits_ptr = kernel.model_logits(h)
        self._row0 = array("f", bytes(4 * self.vocab))  # reused by logits() for row 0
        self.history: list[int] = []  # tokens currently in the cache, in order
        # the sampler's view of the logits; the end token is special, never penalised
        self._source = KernelLogits(kernel, self.vocab, self.logits_ptr, unpenalised=(self.eot,))
        self._info_ptr = kernel.alloc(4 * MATRIX_INFO_WORDS)
        self.stats = Stats()
        self.fast = True
        self.quant = (8, "row")  # the weights in use: bits and scale scheme (8, "row" is the shipped file)

    @classmethod
    def from_file(cls, kernel: Kernel, path, **kw) -> "Engine":
        from pathlib import Path

        p = Path(path)
        return cls(kernel, p.read_bytes(), p.name, **kw)

    # -- configuration ---------------------------------------------------------------------
    def set_fast(self, fast: bool) -> None:
        self.fast = bool(fast)
        self.k.model_set_fast(self.h, 1 if fast else 0)

    def weights_bytes(self) -> int:
        t = self.bundle.tensors
        return sum(len(x.data) + (len(x.scales) if x.scales is not None else 0) for x in t.values())

    def kv_bytes_per_token(self) -> int:
        return costs.kv_bytes_per_token(self.bundle.config)

    @property
    def simd(self) -> bool:
        """Whether this engine's kernel build uses SIMD."""
        return self.k.simd

    def twin(self, name: str) -> "Engine":
        """A second engine over the same kernel and model file, with weights and a cache of its
        own (the bit-depth widget re-quantizes its twin, never the model the page reads)."""
        return Engine(self.k, self.bundle.raw, name)

    def kept_logits(self) -> KeptLogits:
        """A buffer of this engine's kernel that keeps one row of logits (see KeptLogits)."""
        return KeptLogits(self.k, self.vocab, self.eot)

    # -- the cache -------------------------------------------------------------------------
    def clear(self) -> None:
        """Empty the cache (nothing fed)."""
        self.k.model_reset(self.h)
        self.history = []

    def reset(self) -> None:
        """Empty the cache and feed the beginning-of-text token (the end token doubles as it)."""
        self.clear()
        self.feed([self.eot])

    def logits(self, row: int = 0, copy: bool = False) -> array:
        """Logits row `row` of the last pass (rows exist for the last n_logits positions of a
        block). Row 0 goes into one reused buffer, so the per-token path allocates nothing,
        unless `copy` asks for an array of its own."""
        out = array("f", bytes(4 * self.vocab)) if (copy or row) else self._row0
        self.k.read_into(self.logits_ptr + 4 * self.vocab * row, out)
        return out

    def logit_source(self, row: int = 0, values: array | None = None) -> KernelLogits:
        """The sampler's view of logits row `row`, read in kernel memory (`values`: their copy in
        Python if one is at hand, which saves a copy for the repetition penalty). The engine has
        one such view; it is valid until the next call that moves it."""
        return self._source.bind(values, self.logits_ptr + 4 * self.vocab * row)

    def cached(self, values: bool, layer: int, head: int, n: int) -> array:
        """The first n cached key (values=False) or value vectors of one head of one layer, n x
        head_dim floats: the kernel keeps each head's positions contiguous (dl_model_cache)."""
        hd = self.d_model // self.n_heads
        base = self.k.model_cache(self.h, 1 if values else 0)
        return self.k.get_f32(base + 4 * (layer * self.n_heads + head) * self.context * hd, n * hd)

    def quantize_input(self, x) -> tuple[list[int], float]:
        """The fast path's rounding of an input vector, by the kernel itself (dl_quantize_x): its
        7-bit integers and the one scale for the vector (the int8 figure shows both)."""
        k = self.k
        mark = k.mark()
        try:
            xp, qp = k.alloc(4 * len(x)), k.alloc(len(x) + 16)
            k.put_f32(xp, x)
            xs = float(k.quantize_x(xp, qp, len(x)))
            return list(memoryview(bytes(k.get_bytes(qp, len(x)))).cast("b")), xs
        finally:
            k.release(mark)

    def _check(self, ok) -> None:
        if not ok:
            raise KernelError(f"{self.name}: {self.k.last_error()}")

    def _put_tokens(self, tokens) -> None:
        self.k.put(self._tokens_ptr, array("i", tokens))

    def _slide(self) -> None:
        """Cache full: keep the last `keep` tokens and re-read them from position 0."""
        kept = self.history[-self.keep:]
        self.clear()
        self.stats.slides += 1
        self._feed_block(kept, 1)

    def _feed_block(self, tokens: list[int], n_logits: int) -> None:
        t0 = time.perf_counter()
        self._put_tokens(tokens)
        self._check(self.k.model_block(self.h, self._tokens_ptr, len(tokens), n_logits))
        self.stats.kernel_s += time.perf_counter() - t0
        self.stats.passes += len(tokens)
        self.history.extend(tokens)

    def feed(self, tokens: list[int]) -> array:
        """Append tokens (one pass over the weights per block) and return the last logits."""
        for t in tokens:
            if not 0 <= t < self.vocab:
                raise InputError("token_out_of_vocab", "tokens", id=t)
        i = 0
        while i < len(tokens):
            if len(self.history) >= self.context:
                self._slide()
            room = self.context - len(self.history)
            chunk = tokens[i:i + room]
            self._feed_block(chunk, 1)
            i += len(chunk)
        return self.logits()

    def step(self, token: int, read: bool = True) -> array | None:
        """Feed one token; return its logits (read=False leaves them in kernel memory, for
        logit_source() to use without a copy)."""
        if len(self.history) >= self.context:
            self._slide()
        t0 = time.perf_counter()
        ok = self.k.model_step(self.h, token)
        self.stats.kernel_s += time.perf_counter() - t0
        self._check(ok)
        self.stats.passes += 1
        self.history.append(token)
        return self.logits() if read else None

    def verify(self, tokens: list[int]) -> list[array]:
        """Feed a block and return the logits after each of its tokens (speculative verification)."""
        self.score(tokens)
        return [self.logits(i, copy=True) for i in range(len(tokens))]

    def score(self, tokens: list[int]) -> None:
        """verify() without the copies: one block pass (each weight read once for all its
        positions), every position's logits left in kernel memory (chapter 3 times this)."""
        if len(self.history) + len(tokens) > self.context:
            self._slide()
        self._feed_block(tokens, len(tokens))

    def rewind(self, k: int) -> None:
        """Forget the last k tokens of the cache."""
        if k:
            self.k.model_rewind(self.h, k)
            del self.history[-k:]

    def recompute(self, tokens: list[int]) -> array:
        """No KV cache: recompute every position of `tokens` from scratch."""
        t0 = time.perf_counter()
        self._put_tokens(tokens)
        self._check(self.k.model_recompute(self.h, self._tokens_ptr, len(tokens)))
        self.stats.kernel_s += time.perf_counter() - t0
        self.stats.passes += len(tokens)
        self.history = list(tokens)
        return self.logits()

    # -- generation ------------------------------------------------------------------------
    def generate(self, prompt: list[int], max_new: int, choose, stop: tuple[int, ...] = (),
                 reset: bool = True, read_logits: bool = True, cache: bool = True) -> Generation:
        """The one generation loop: feed the prompt, then `choose(source, history) -> (token,
        info)` picks each new token from a LogitSource over the current logits.

        Stops at a token in `stop` (kept in the output) or after `max_new` tokens; the last token
        chosen is not fed. read_logits=False lets the sampler read the logits in kernel memory
        (no copy into Python per token). cache=False runs without the KV cache: every step
        recomputes the whole text (the chapter 2 race's slow lane). `loop_s` in the result times
        the new tokens only, after the prompt is read.
        """
        if max_new < 0:
            raise InputError("max_new_negative", "max_new")
        st = Stats()
        self.stats = st
        p0, m0 = self.counters()
        t_start = time.perf_counter()
        if not cache:  # the whole text, read from scratch (the beginning-of-text token first)
            text = ([self.eot] if reset else list(self.history)) + list(prompt)
            logits = self.recompute(text)
        else:
            if reset:  # the beginning-of-text token and the prompt in one block: one output product
                self.clear()
                logits = self.feed([self.eot] + list(prompt))
            else:
                logits = self.feed(prompt) if prompt else self.logits()
        t_loop = time.perf_counter()
        kernel_at_loop = st.kernel_s
        out: list[int] = []
        infos = []
        reason = "length"
        for i in range(max_new):
            tok, info = choose(self.logit_source(0, logits if read_logits else None), self.history)
            out.append(tok)
            if info is not None:
                infos.append(info)
            if tok in stop:
                reason = "stop_token"
                break
            if i == max_new - 1:
                break  # the last token chosen needs no pass of its own
            if cache:
                logits = self.step(tok, read_logits)
            else:
                text.append(tok)
                logits = self.recompute(text)
        t_end = time.perf_counter()
        st.python_s = t_end - t_start - st.kernel_s
        p1, m1 = self.counters()
        st.passes, st.macs = int(p1 - p0), m1 - m0
        return Generation(out, reason, st, infos, loop_s=t_end - t_loop, loop_kernel_s=st.kernel_s - kernel_at_loop)

    # -- re-quantization ---------------------------------------------------------------------
    def requantize(self, bits: int, scheme: str) -> float:
        if scheme not in spec.SCHEMES_BY_NAME:
            raise InputError("scheme_unknown", "scheme", schemes=", ".join(spec.SCHEME_NAMES))
        lo, hi = spec.REQUANT_BITS
        if not (isinstance(bits, int) and lo <= bits <= hi):
            raise InputError("bits_range", "bits", lo=lo, hi=hi)
        t0 = time.perf_counter()
        self._check(self.k.model_requantize(self.h, bits, spec.SCHEMES_BY_NAME[scheme].code))
        self.quant = (bits, scheme)
        return (time.perf_counter() - t0) * 1e3

    def restore(self) -> float:
        t0 = time.perf_counter()
        self.k.model_restore(self.h)
        self.quant = (8, "row")
        return (time.perf_counter() - t0) * 1e3

    def matrix(self, i: int) -> tuple[bytearray, array, int, int]:
        """The in-use int8 weights and scales of matrix i (for tests and the page's inspectors)."""
        if not self.k.model_matrix(self.h, i, self._info_ptr):
            raise IndexError(i)
        qp, sp, rows, cols = struct.unpack(f"<{MATRIX_INFO_WORDS}I", self.k.get_bytes(self._info_ptr, 4 * MATRIX_INFO_WORDS))
        return self.k.get_bytes(qp, rows * cols), self.k.get_f32(sp, rows), rows, cols

    def counters(self) -> tuple[float, float]:
        return self.k.model_passes(self.h), self.k.model_macs(self.h)
