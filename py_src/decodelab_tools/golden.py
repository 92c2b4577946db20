"""Golden values for the shipped model: the logits of a fixed prompt and two fixed continuations.

    python -m decodelab_tools.golden --write    # after retraining or a deliberate change of arithmetic

tests/test_golden.py recomputes them with every kernel build and compares with the committed
file, so a change that moves every build the same way (a compiler, a flag, a reordered sum) is
caught too, not only a difference between builds. A hash covers every logit bit; a few values
and the top tokens are kept beside it so a failure says how far things moved.
"""
from __future__ import annotations

import argparse
import hashlib
import json
from array import array
from pathlib import Path

from decodelab import sampler as S
from decodelab.engine import Engine

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "main.json"
PROMPT = "Once upon a time, there was a little girl named Lily. She"
N_GREEDY = 24
N_SAMPLED = 40
SEED = 7


def _digest(rows) -> str:
    h = hashlib.sha256()
    for r in rows:
        h.update(bytes(r))
    return h.hexdigest()


def compute(kernel, bundle: bytes) -> dict:
    e = Engine(kernel, bundle, "main")
    ids = e.tokenizer.encode(PROMPT)
    out = {"prompt": PROMPT, "prompt_ids": ids}
    for path, fast in (("fast", True), ("exact", False)):
        e.set_fast(fast)
        e.reset()
        first = array("f", e.feed(ids))  # a copy: the engine reuses its logits buffer
        top = sorted(range(e.vocab), key=lambda i: (-first[i], i))[:5]
        rows, toks = [bytes(first)], []
        for _ in range(N_GREEDY):  # greedy, hashing every step's logits on the way
            t = e.logit_source().argmax()
            toks.append(t)
            rows.append(bytes(e.step(t)))
        out[path] = {"sha256": _digest(rows), "first_logits": [float(first[i]) for i in range(4)],
                     "top5": top, "top5_logits": [float(first[i]) for i in top],
                     "greedy_text": e.tokenizer.decode(toks)}
    e.set_fast(True)
    rng = S.Rng(SEED)
    g = e.generate(ids, N_SAMPLED, lambda src, hist: (S.sample_token(src, hist, S.DEFAULTS, rng), None))
    out["sampled_text"] = e.tokenizer.decode(g.tokens)
    out["sampled_settings"] = S.DEFAULTS.as_dict() | {"seed": SEED}
    return out


def main(argv=None) -> None:
    from decodelab.kernel import Kernel

    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args(argv)
    got = compute(Kernel.open(), (ROOT / "models" / "main.dlm").read_bytes())
    if a.write:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {GOLDEN}")
    else:
        print(json.dumps(got, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
