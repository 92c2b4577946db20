"""Reading the TinyStories corpus (CPython only; the text itself is never committed).

The corpus folder holds train_*.txt and valid.txt. Every story ends with a line that
holds only ``<|endoftext|>``. We split on that marker and keep stories as plain text;
the token stream is built as ``[eot] story [eot] story ...`` so the end token also
serves as the beginning-of-text token the engine feeds after a reset.
"""
from __future__ import annotations

import os
from pathlib import Path

EOT = "<|endoftext|>"


def default_corpus_dir() -> Path:
    """The shared corpus lives beside the checkout (../shared/corpus/tinystories)."""
    env = os.environ.get("DECODELAB_CORPUS")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent.parent / "shared" / "corpus" / "tinystories"
        if cand.is_dir():
            return cand
    raise FileNotFoundError(
        "TinyStories corpus not found; set DECODELAB_CORPUS to the folder holding train_*.txt and valid.txt"
    )


def read_stories(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [s.strip() for s in text.split(EOT) if s.strip()]


def train_files(corpus: Path | None = None) -> list[Path]:
    corpus = corpus or default_corpus_dir()
    return sorted(corpus.glob("train_*.txt"))


def train_stories(corpus: Path | None = None) -> list[str]:
    out: list[str] = []
    for f in train_files(corpus):
        out.extend(read_stories(f))
    return out


def valid_stories(corpus: Path | None = None) -> list[str]:
    corpus = corpus or default_corpus_dir()
    return read_stories(corpus / "valid.txt")
