"""A short size sweep: train several shapes for the same wall-clock budget and compare.

    python -m decodelab_tools.training.sweep --out runs/sweep --minutes 6 --tokenizer runs/tok/tokenizer.json

Each shape first times a few training steps to learn its tokens/s on this machine, then trains
with a learning-rate schedule sized to finish inside the budget (so every shape gets a full
cosine decay, not a cut-off one). The table printed at the end is what the README reports:
parameters, tokens/s, tokens seen, and held-out bits/byte. Equal time favours small shapes on a
short budget; the per-shape tokens/s is what lets us extrapolate to the long run.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from . import train as train_mod
from .model import GPT, GPTConfig

SHAPES = [  # (d_model, layers, heads)
    (160, 6, 5),
    (192, 6, 6),
    (256, 6, 8),
]


def tokens_per_second(cfg: GPTConfig, batch: int, seq: int, steps: int = 4) -> float:
    """Forward + backward + AdamW step on random tokens, after one untimed step."""
    model = GPT(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randint(0, cfg.vocab_size, (batch, seq))

    def one() -> None:
        loss = F.cross_entropy(model(x).reshape(-1, cfg.vocab_size), x.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    one()
    t0 = time.perf_counter()
    for _ in range(steps):
        one()
    return steps * batch * seq / (time.perf_counter() - t0)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--minutes", type=float, default=6)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=512)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    rows = []
    for d, layers, heads in SHAPES:
        cfg = GPTConfig(vocab_size=4096, context=512, d_model=d, n_layers=layers, n_heads=heads)
        tps = tokens_per_second(cfg, a.batch, a.seq)
        # Token encoding and evaluations take part of the budget: size the schedule to 90% of it.
        steps = max(50, int(tps * a.minutes * 60 * 0.9 / (a.batch * a.seq)))
        run = a.out / f"d{d}_l{layers}"
        train_mod.main(["--run", str(run), "--tokenizer", a.tokenizer, "--d", str(d), "--layers", str(layers),
                        "--heads", str(heads), "--steps", str(steps), "--minutes", str(a.minutes),
                        "--threads", str(a.threads), "--batch", str(a.batch), "--seq", str(a.seq),
                        "--eval-every", str(max(50, steps // 4))])
        log = [json.loads(x) for x in (run / "log.jsonl").read_text().splitlines() if x.strip()]
        final = log[-1]
        n_total, n_non_emb = GPT(cfg).n_params()
        rows.append({"d": d, "layers": layers, "heads": heads, "params": n_total, "non_embedding": n_non_emb,
                     "tok_per_s": round(tps), "steps": final["step"],
                     "tokens_seen": final["step"] * a.batch * a.seq,
                     "val_bpb": round(final["val_bpb"], 4), "val_nats": round(final["val_nats"], 4)})
        print(json.dumps(rows[-1]), flush=True)
    (a.out / "sweep.json").write_text(json.dumps(rows, indent=1))
    print(f"{'shape':>12} {'params':>9} {'tok/s':>7} {'tokens':>10} {'bits/byte':>9}")
    for r in rows:
        print(f"{r['d']:>5}x{r['layers']}x{r['heads']:<3} {r['params']:>9,} {r['tok_per_s']:>7} "
              f"{r['tokens_seen']:>10,} {r['val_bpb']:>9.4f}")


if __name__ == "__main__":
    main()
