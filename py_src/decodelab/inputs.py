"""Checks of what the reader typed, shared by every chapter's endpoints.

Each check raises InputError naming the control it is about (the page shows the message beside
it), and returns the value in the type the code needs.
"""
from __future__ import annotations

from .errors import InputError

MAX_PROMPT_TOKENS = 400
MAX_TEXT_CHARS = 8000  # a text box's limit: encoding more would keep the engine busy for seconds
SEED_LIMIT = 2 ** 32


def check_text(text, field: str, what: str = "text", limit: int = MAX_TEXT_CHARS) -> str:
    """Text the reader typed: a string, not too long, and valid Unicode (a lone surrogate, which a
    browser can produce when a paste cuts an emoji in half, cannot be encoded). `what` names the
    box in the message: the text key err.what.WHAT ("text": "the text", "prompt": "the prompt")."""
    name = {"key": f"err.what.{what}"}
    if not isinstance(text, str):
        raise InputError("text_not_text", field, what=name)
    if len(text) > limit:
        raise InputError("text_too_long", field, what=name, n=len(text), limit=limit)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("text_broken", field, what=name) from None
    return text


def encode_prompt(e, prompt: str, extra=(), field: str = "prompt") -> list[int]:
    """The prompt's token ids (plus `extra` ids the panel appended), at most MAX_PROMPT_TOKENS."""
    check_text(prompt, field, "prompt")
    if not isinstance(extra, (list, tuple)) or len(extra) > MAX_PROMPT_TOKENS:
        raise InputError("drawn_too_many", field, max=MAX_PROMPT_TOKENS)
    ids = e.tokenizer.encode(prompt) + [int(t) for t in extra]
    if len(ids) > MAX_PROMPT_TOKENS:
        raise InputError("prompt_too_long", field, n=len(ids), max=MAX_PROMPT_TOKENS)
    return ids


def check_seed(seed, field: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, float)) or seed != int(seed) or not 0 <= seed < SEED_LIMIT:
        # the largest seed as digits only (a seed is shown as typed, never grouped)
        raise InputError("seed_range", field, max=str(SEED_LIMIT - 1))
    return int(seed)


def check_count(n, lo: int, hi: int, field: str, key: str) -> int:
    """A whole number in [lo, hi]; `key` names the message saying what the range is (err.KEY, its
    arguments {lo} and {hi})."""
    if isinstance(n, bool) or not isinstance(n, int) or not lo <= n <= hi:
        raise InputError(key, field, lo=lo, hi=hi)
    return n


def token_texts(e, ids) -> list[str]:
    return [e.tokenizer.token_str(i) for i in ids]
