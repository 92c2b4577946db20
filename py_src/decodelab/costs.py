"""What one token costs, from a model's shape alone (bundle.Config): the one home of the formulas
chapter 2 quotes, chapter 3 builds its cost model on, and the diagrams draw. Pure arithmetic on
the config, so every number here is exact and the kernel's own counters can be checked against it
(tests/test_api_contract.py)."""
from __future__ import annotations

from .bundle import Config

KV_VALUE_BYTES = 4  # the KV cache holds float32 keys and values


def matrix_macs(c: Config) -> dict:
    """Multiply-adds of one position through each kind of matrix of one layer, and the output layer."""
    d = c.d_model
    return {"qkv": 3 * d * d, "proj": d * d, "mlp": 2 * d * c.d_ff, "head": c.vocab_size * d}


def pass_macs(c: Config) -> int:
    """One token through the layers' matrices: per layer q, k, v (3d x d), the head mixer (d x d)
    and the feed-forward pair (d_ff x d, d x d_ff)."""
    m = matrix_macs(c)
    return c.n_layers * (m["qkv"] + m["proj"] + m["mlp"])


def token_macs(c: Config) -> int:
    """A whole new token's weight multiply-adds: the layers, then the output layer over the vocabulary."""
    return pass_macs(c) + matrix_macs(c)["head"]


def attention_macs(c: Config, t: int) -> int:
    """Attention of the position at index t-1 (t positions stored, itself included): t scores and a
    sum of t values, d multiply-adds each over all heads, in every layer (the kernel's counter)."""
    return 2 * c.n_layers * c.d_model * t


def kv_bytes_per_token(c: Config) -> int:
    """One key and one value row of d_model float32 per layer."""
    return 2 * c.n_layers * c.d_model * KV_VALUE_BYTES


def shape(c: Config) -> dict:
    """The config as the page names its fields (the prose's model figures, chapter 2's table)."""
    return {"vocab": c.vocab_size, "context": c.context, "d_model": c.d_model, "n_layers": c.n_layers,
            "n_heads": c.n_heads, "d_ff": c.d_ff}
