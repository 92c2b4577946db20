"""Train the byte-level BPE with HF `tokenizers` and export it for our pure-Python encoder.

We use the library for training (it is the well-kept tool for the job) and write only the
encoder by hand, because the browser side cannot load the Rust library.
"""
from __future__ import annotations

import json
from pathlib import Path

from .corpus import EOT, train_files


def train_bpe(vocab_size: int, corpus: Path | None = None):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    # Train on whole stories (the end marker is a special token, never merged into text).
    files = [str(f) for f in train_files(corpus)]
    tok.train(files, trainer)
    return tok


def export_vocab(tok) -> dict:
    """Vocabulary and merge list in the form our pure-Python encoder and the bundle use."""
    model = json.loads(tok.to_str())["model"]
    vocab = model["vocab"]  # byte-level string -> id
    merges = model["merges"]
    merges = [m.split(" ", 1) if isinstance(m, str) else list(m) for m in merges]
    return {"vocab": vocab, "merges": merges, "special": {EOT: tok.token_to_id(EOT)}}


def save(tok, path: Path) -> None:
    tok.save(str(path))


def load(path: Path):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(path))
