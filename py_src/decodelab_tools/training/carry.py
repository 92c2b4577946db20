"""Carry an unfinished training run from one session to the next through the repository.

A session's work folder is not kept: only what is committed is. A run's ckpt.pt (weights and
AdamW's two moments in float32, 71 MB for d=256) is too large to commit, so `pack` keeps what a
resume needs most, the weights in float16 (a third of it), the step, the best validation loss,
the data order's random state and the training time so far; `unpack` turns that back into a run
folder whose ckpt.pt train.py resumes as usual. The optimizer starts again: its moments are
re-estimated over the first steps, during which train.py ramps the learning rate up again
(`rewarm_from`), so the first updates of a fresh AdamW do not jolt the weights.

    python -m decodelab_tools.training.carry pack --run runs/main256 --out models/wip/main256.pt
    python -m decodelab_tools.training.carry unpack --file models/wip/main256.pt --run runs/main256

`seed` starts a run folder from a model that was exported and committed (models/NAME.dlm and its
float weights, NAME-float32.npz) at step 0, so a new teacher can distil on from the draft the page
ships instead of from a random draft:

    python -m decodelab_tools.training.carry seed --name draft --run runs/draft
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from decodelab.bundle import read_bundle
from .export import state_arrays
from .model import GPT, GPTConfig

MODELS = Path(__file__).resolve().parents[3] / "models"


def pack(run: Path, out: Path) -> None:
    ck = torch.load(run / "ckpt.pt", weights_only=False, map_location="cpu")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": {k: v.half() for k, v in ck["model"].items()}, "step": ck["step"], "best": ck["best"],
                "rng": ck["rng"], "config": ck["config"], "train_seconds": ck.get("train_seconds", 0.0),
                "tokenizer": (run / "tokenizer.json").read_text(encoding="utf-8"),
                "log": (run / "log.jsonl").read_text(encoding="utf-8")}, out)
    print(f"packed step {ck['step']} of {run} into {out} ({out.stat().st_size / 1e6:.1f} MB)")


def unpack(file: Path, run: Path) -> None:
    c = torch.load(file, weights_only=False, map_location="cpu")
    if (run / "ckpt.pt").exists():
        raise SystemExit(f"{run}/ckpt.pt exists: resume that run instead of unpacking over it")
    run.mkdir(parents=True, exist_ok=True)
    (run / "tokenizer.json").write_text(c["tokenizer"], encoding="utf-8")
    (run / "log.jsonl").write_text(c["log"], encoding="utf-8")
    (run / "config.json").write_text(json.dumps(c["config"], indent=1))
    model = GPT(GPTConfig(**c["config"]))
    model.load_state_dict({k: v.float() for k, v in c["model"].items()})  # the shapes are checked here
    # no optimizer state: train.py starts AdamW afresh and ramps the learning rate from this step
    torch.save({"model": model.state_dict(), "opt": None, "step": c["step"], "best": c["best"], "rng": c["rng"],
                "config": c["config"], "train_seconds": c["train_seconds"], "rewarm_from": c["step"]},
               run / "ckpt.pt")
    print(f"unpacked step {c['step']} into {run}: resume it with train.py's usual command")


def seed(name: str, run: Path, models: Path = MODELS) -> None:
    """A run folder at step 0 holding the exported float weights of models/NAME (no optimizer
    state, no data order: train.py starts both afresh, with its usual warm-up)."""
    if (run / "ckpt.pt").exists():
        raise SystemExit(f"{run}/ckpt.pt exists: resume that run instead of seeding over it")
    cfg = read_bundle((models / f"{name}.dlm").read_bytes()).meta["train_config"]
    with np.load(models / f"{name}-float32.npz") as z:
        state = state_arrays(dict(z), cfg["n_layers"])
    model = GPT(GPTConfig(**cfg))
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})  # the shapes are checked here
    run.mkdir(parents=True, exist_ok=True)
    (run / "tokenizer.json").write_bytes((models / "tokenizer.json").read_bytes())
    (run / "config.json").write_text(json.dumps(cfg, indent=1))
    torch.save({"model": model.state_dict(), "opt": None, "step": 0, "best": float("inf"), "rng": None,
                "config": cfg, "train_seconds": 0.0, "rewarm_from": None}, run / "ckpt.pt")
    print(f"seeded {run} with models/{name} ({cfg['d_model']}-wide, {cfg['n_layers']} layers) at step 0")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--run", required=True, type=Path)
    p.add_argument("--out", required=True, type=Path)
    u = sub.add_parser("unpack")
    u.add_argument("--file", required=True, type=Path)
    u.add_argument("--run", required=True, type=Path)
    s = sub.add_parser("seed")
    s.add_argument("--name", required=True, help="an exported model in models/ (draft, main)")
    s.add_argument("--run", required=True, type=Path)
    a = ap.parse_args(argv)
    if a.cmd == "pack":
        pack(a.run, a.out)
    elif a.cmd == "seed":
        seed(a.name, a.run)
    else:
        unpack(a.file, a.run)


if __name__ == "__main__":
    main()
