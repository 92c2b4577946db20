"""Checks of what the reader typed, shared by every chapter's endpoints.

Each check raises InputError naming the control it is about (the page shows the message beside
it), and returns the value in the type the code needs.
"""
from __future__ import annotations

from .errors import InputError

MAX_PROMPT_TOKENS = 400
MAX_TEXT_CHARS = 8000  # a text box's limit: encoding more would keep the engine busy for seconds
SEED_LIMIT = 2 ** 32


def check_text(text, field: str, what: str = "the text", limit: int = MAX_TEXT_CHARS) -> str:
    """Text the reader typed: a string, not too long, and valid Unicode (a lone surrogate, which a
    browser can produce when a paste cuts an emoji in half, cannot be encoded)."""
    if not isinstance(text, str):
        raise InputError(f"{what} must be text", field)
    if len(text) > limit:
        raise InputError(f"{what} is {len(text):,} characters; this box takes at most {limit:,}", field)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{what} contains a broken character (half of an emoji or similar); "
                         "delete it or paste the text again", field) from None
    return text


def encode_prompt(e, prompt: str, extra=(), field: str = "prompt") -> list[int]:
    """The prompt's token ids (plus `extra` ids the panel appended), at most MAX_PROMPT_TOKENS."""
    check_text(prompt, field, "the prompt")
    if not isinstance(extra, (list, tuple)) or len(extra) > MAX_PROMPT_TOKENS:
        raise InputError(f"at most {MAX_PROMPT_TOKENS} drawn tokens", field)
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
