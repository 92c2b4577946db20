"""Byte-level BPE encoder/decoder in pure Python.

Written by hand because it must run in Pyodide, where the Rust `tokenizers` library is not
available. It reproduces the ids that `tokenizers` (ByteLevel pre-tokenizer with the GPT-2
split pattern, add_prefix_space=False, BPE without dropout) gives for the same vocabulary;
tests/test_model_files.py checks this on every validation story and on Unicode edge cases,
and tests/test_tokenizer_classes.py the character classes on every code point.

The GPT-2 split pattern is
    's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+
Python's `re` has no \\p{L}, so `split_pretokens` walks the string with the same
leftmost-first alternation by hand. The character classes come from unicode_classes.py, a table
generated from HF tokenizers itself, not from `unicodedata`: that follows the Unicode version of
each Python runtime, and CPython 3.11 and Pyodide's 3.14 disagree on letters added in Unicode 15
and 16 (so "\\u1c89's" used to encode differently in the page and in the tests).
"""
from __future__ import annotations

from .unicode_classes import classes as char_classes

EOT = "<|endoftext|>"
_CONTRACTIONS = ("s", "t", "re", "ve", "m", "ll", "d")


def split_pretokens(text: str) -> list[str]:
    out: list[str] = []
    n = len(text)
    classes = char_classes(text)  # 'L', 'N', 's' or 'o', from one table in every runtime
    i = 0
    while i < n:
        c = text[i]
        # 's 't 're 've 'm 'll 'd
        if c == "'":
            matched = False
            for suf in _CONTRACTIONS:
                if text.startswith(suf, i + 1):
                    out.append(text[i : i + 1 + len(suf)])
                    i += 1 + len(suf)
                    matched = True
                    break
            if matched:
                continue
        # ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional leading space, then a run of one class
        if c == " " and i + 1 < n and classes[i + 1] != "s":
            k, e = classes[i + 1], i + 2
        elif classes[i] != "s":
            k, e = classes[i], i + 1
        else:
            k = ""
        if k:
            while e < n and classes[e] == k:
                e += 1
            out.append(text[i:e])
            i = e
            continue
        # whitespace: `\s+(?!\S)` then `\s+`
        e = i
        while e < n and classes[e] == "s":
            e += 1
        if e == n or e - i == 1:
            out.append(text[i:e])
            i = e
        else:
            out.append(text[i : e - 1])
            i = e - 1
    return out


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table = {b: chr(b) for b in keep}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


BYTE_TO_CHAR = _bytes_to_unicode()
CHAR_TO_BYTE = {c: b for b, c in BYTE_TO_CHAR.items()}
_ALPHABET = frozenset(CHAR_TO_BYTE)
_TO_LATIN1 = str.maketrans({c: chr(b) for c, b in CHAR_TO_BYTE.items()})  # each byte as U+0000..U+00FF


class Tokenizer:
    """Encoder/decoder over a vocabulary (id -> byte-level string) and ranked merges."""

    def __init__(self, vocab: list[str], merges: list[tuple[str, str]], special: dict[str, int]):
        self.vocab = vocab
        self.token_to_id = {t: i for i, t in enumerate(vocab)}
        self.ranks = {(a, b): r for r, (a, b) in enumerate(merges)}
        self.special = dict(special)
        self.eot_id = self.special[EOT]
        self._cache: dict[str, tuple[int, ...]] = {}
        special_ids = set(self.special.values())  # once, not once per token (model load time)
        self._bytes = [self._token_bytes(t, i in special_ids) for i, t in enumerate(vocab)]

    @staticmethod
    def _token_bytes(tok: str, special: bool) -> bytes:
        if special:
            return tok.encode("utf-8")
        if not set(tok) <= _ALPHABET:  # not our byte-level text: say which character
            return bytes(CHAR_TO_BYTE[c] for c in tok)
        # str.translate runs in C: the page builds 4096 of these at a model's first load
        return tok.translate(_TO_LATIN1).encode("latin-1")

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def _bpe(self, word: str) -> tuple[int, ...]:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        parts = [BYTE_TO_CHAR[b] for b in word.encode("utf-8")]
        ranks = self.ranks
        while len(parts) > 1:
            best = None
            best_rank = 1 << 30
            for a, b in zip(parts, parts[1:]):
                r = ranks.get((a, b))
                if r is not None and r < best_rank:
                    best_rank, best = r, (a, b)
            if best is None:
                break
            a, b = best
            merged: list[str] = []
            i = 0
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                    merged.append(a + b)
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        ids = tuple(self.token_to_id[p] for p in parts)
        if len(self._cache) < 100_000:
            self._cache[word] = ids
        return ids

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        pieces = text.split(EOT)
        for n, piece in enumerate(pieces):
            if n:
                ids.append(self.eot_id)
            for word in split_pretokens(piece):
                ids.extend(self._bpe(word))
        return ids

    def token_bytes(self, i: int) -> bytes:
        return self._bytes[i]

    def decode(self, ids) -> str:
        return b"".join(self._bytes[i] for i in ids).decode("utf-8", errors="replace")

    def token_str(self, i: int) -> str:
        """Readable text of one token (a partial UTF-8 sequence shows as U+FFFD)."""
        return self._bytes[i].decode("utf-8", errors="replace")
