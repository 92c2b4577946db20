"""Reference forward pass in numpy over an exported bundle (CPython only): the kernel's oracle.

Computes the logits of every position of a token sequence at once, in float64, from the
dequantized int8 weights (w = s_row * q). `float_weights` lets the same code run the float
checkpoint (for the quality report's float-vs-int8 comparison).
"""
from __future__ import annotations

import math

import numpy as np

from decodelab import spec
from decodelab.bundle import INT8_ROW, Bundle, tensor_names

LN_EPS = 1e-5


def dequantized_weights(b: Bundle) -> dict[str, np.ndarray]:
    out = {}
    for name in tensor_names(b.config.n_layers):
        t = b.tensors[name]
        if t.format is INT8_ROW:
            q = np.frombuffer(t.data, dtype=np.int8).reshape(t.rows, t.cols).astype(np.float64)
            s = np.frombuffer(t.scales, dtype=np.float32).astype(np.float64)
            out[name] = q * s[:, None]
        else:
            out[name] = np.frombuffer(t.data, dtype=np.float32).astype(np.float64).reshape(t.cols)
    return out


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    c = x.dtype.type(math.sqrt(2.0 / math.pi))
    return x.dtype.type(0.5) * x * (1 + np.tanh(c * (x + x.dtype.type(0.044715) * x ** 3)))


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + x.dtype.type(LN_EPS)) * w + b


ACT_QMAX = spec.ACT_QMAX  # the kernel's DL_ACT_QMAX


def round_half_away_np(v: np.ndarray) -> np.ndarray:
    """Round half away from zero, element-wise: the numpy form of quant.round_half_away and of
    the kernel's dl_round_away (v - trunc(v) is exact, so no "+0.5" double rounding:
    trunc(v + 0.5) would send 0.49999997 to 1). Every numpy quantizer here uses this one."""
    t = np.trunc(v)
    f = v - t
    return t + (f >= 0.5) - (f <= -0.5)


def quantize_rows_like_kernel(x: np.ndarray) -> np.ndarray:
    """The fast path's activation rounding: each row to integers in [-63, 63] with one scale
    (max|x| / 63, kernels/decodelab.h DL_ACT_QMAX), back to float."""
    x32 = x.astype(np.float32)
    amax = np.abs(x32).max(-1, keepdims=True)
    safe = np.where(amax == 0, np.float32(1), amax)
    v = (x32 * (np.float32(ACT_QMAX) / safe)).astype(np.float32)
    q = np.clip(round_half_away_np(v), -ACT_QMAX, ACT_QMAX)
    return (q.astype(np.float64) * (amax.astype(np.float64) / ACT_QMAX)).astype(x.dtype)


def forward(weights: dict[str, np.ndarray], cfg, tokens: list[int], act_quant: bool = False) -> np.ndarray:
    """Logits [T x V] for every position (causal), tokens starting at position 0.

    Computes in the weights' dtype: float64 for the kernel tests, float32 for the report (speed).
    act_quant=True mirrors the kernel's fast path: every matrix input is rounded to int8 first.
    """
    aq = quantize_rows_like_kernel if act_quant else (lambda v: v)
    T = len(tokens)
    if T > cfg.context:
        raise ValueError(f"{T} tokens exceed the context of {cfg.context}")
    d, H = cfg.d_model, cfg.n_heads
    hd = d // H
    dt = weights["wte"].dtype
    x = weights["wte"][tokens] + weights["wpe"][:T]
    mask = np.triu(np.full((T, T), -np.inf, dtype=dt), 1)
    scale = dt.type(1 / math.sqrt(hd))
    for l in range(cfg.n_layers):
        p = f"h{l}."
        h = layer_norm(x, weights[p + "ln1.w"], weights[p + "ln1.b"])
        qkv = aq(h) @ weights[p + "qkv"].T
        q = qkv[:, :d].reshape(T, H, hd).transpose(1, 0, 2)
        k = qkv[:, d:2 * d].reshape(T, H, hd).transpose(1, 2, 0)
        v = qkv[:, 2 * d:].reshape(T, H, hd).transpose(1, 0, 2)
        a = q @ k * scale + mask  # all heads at once: [H, T, T]
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        att_out = (a @ v).transpose(1, 0, 2).reshape(T, d)
        x = x + aq(att_out) @ weights[p + "proj"].T
        h = layer_norm(x, weights[p + "ln2.w"], weights[p + "ln2.b"])
        x = x + aq(gelu_tanh(aq(h) @ weights[p + "fc"].T)) @ weights[p + "fc2"].T
    x = layer_norm(x, weights["lnf.w"], weights["lnf.b"])
    return aq(x) @ weights["wte"].T


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def stream_nll(weights, cfg, stream: list[int], window: int | None = None,
               act_quant: bool = False) -> tuple[float, int]:
    """Total nats and count for predicting stream[1:] in non-overlapping windows (same rule as training eval)."""
    window = window or cfg.context
    total, n = 0.0, 0
    for start in range(0, len(stream) - 1, window):
        chunk = stream[start:start + window + 1]
        if len(chunk) < 2:
            break
        lp = log_softmax(forward(weights, cfg, chunk[:-1], act_quant))
        total -= float(lp[np.arange(len(chunk) - 1), chunk[1:]].sum())
        n += len(chunk) - 1
    return total, n
