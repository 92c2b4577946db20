"""Checks of what the reader typed, shared by every chapter's endpoints.

Each check raises InputError naming the control it is about (the page shows the message beside
it), and returns the value in the type the code needs.
"""
from __future__ import annotations

from .errors import InputError

MAX_PROMPT_TOKENS = 400
SEED_LIMIT = 2 ** 32


def encode_prompt(e, prompt: str, extra=(), field: str = "prompt") -> list[int]:
    """The prompt's token ids (plus `extra` ids the panel appended), at most MAX_PROMPT_TOKENS."""
    if not isinstance(prompt, str):
        raise InputError("the prompt must be text", field)
    ids = e.tokenizer.encode(prompt) + [int(t) for t in extra]
    if len(ids) > MAX_PROMPT_TOKENS:
        raise InputError(f"the prompt is {len(ids)} tokens; this panel takes at most {MAX_PROMPT_TOKENS}", field)
    return ids


def check_seed(seed, field: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, float)) or seed != int(seed) or not 0 <= seed < SEED_LIMIT:
        raise InputError(f"the seed must be a whole number from 0 to {SEED_LIMIT - 1}", field)
    return int(seed)


def check_count(n, lo: int, hi: int, field: str, message: str) -> int:
    """A whole number in [lo, hi]; `message` says what the range is, in the reader's words."""
    if isinstance(n, bool) or not isinstance(n, int) or not lo <= n <= hi:
        raise InputError(message, field)
    return n


def token_texts(e, ids) -> list[str]:
    return [e.tokenizer.token_str(i) for i in ids]
