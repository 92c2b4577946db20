"""Export a trained run to a .dlm bundle (int8, one scale per row) and a float32 .npz.

    python -m decodelab_tools.training.export --run runs/main --name main

The .npz holds the float weights under the bundle's tensor names; the quality report and the
int8-vs-float test run the numpy reference on both. Both files go to models/ and are committed.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from decodelab import bundle
from decodelab.bundle import FLOAT32, MATRIX_FORMAT, Config, tensor_names
from ..reference import round_half_away_np
from .bpe import export_vocab, load


def quantize_rows(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 with one float32 scale per row; rounding half away from zero, as the kernel does."""
    w = w.astype(np.float32)
    amax = np.abs(w).max(axis=1)
    s = (amax / np.float32(127)).astype(np.float32)
    safe = np.where(s == 0, np.float32(1), s)
    v = (w / safe[:, None]).astype(np.float32)
    q = np.clip(round_half_away_np(v), -127, 127).astype(np.int8)
    return q, s


def name_pairs(n_layers: int) -> list[tuple[str, str]]:
    """(bundle tensor name, torch state-dict key) for every tensor: the one map both directions use."""
    pairs = [("wte", "wte.weight"), ("wpe", "wpe.weight")]
    for l in range(n_layers):
        h, p = f"h{l}.", f"blocks.{l}."
        pairs += [(h + "ln1.w", p + "ln1.weight"), (h + "ln1.b", p + "ln1.bias"),
                  (h + "qkv", p + "qkv.weight"), (h + "proj", p + "proj.weight"),
                  (h + "ln2.w", p + "ln2.weight"), (h + "ln2.b", p + "ln2.bias"),
                  (h + "fc", p + "fc.weight"), (h + "fc2", p + "fc2.weight")]
    return pairs + [("lnf.w", "ln_f.weight"), ("lnf.b", "ln_f.bias")]


def float_tensors(state: dict, n_layers: int) -> dict[str, np.ndarray]:
    """Map a state dict (torch's keys, arrays as values) onto the bundle's tensor names (weights
    as [out x in], like torch's)."""
    return {name: np.asarray(state[key], dtype=np.float32) for name, key in name_pairs(n_layers)}


def state_arrays(tensors: dict, n_layers: int) -> dict[str, np.ndarray]:
    """The inverse of float_tensors: exported float weights back under torch's keys (to start a
    run from an exported model, as carry.py's `seed` does)."""
    return {key: np.asarray(tensors[name], dtype=np.float32) for name, key in name_pairs(n_layers)}


def export(run: Path, name: str, out_dir: Path, evaluate: bool = True) -> Path:
    cfgd = json.loads((run / "config.json").read_text())
    import torch  # here, not at the top: quantize_rows (and its test) need no torch

    ck = torch.load(run / "best.pt", weights_only=False, map_location="cpu")
    tok = load(run / "tokenizer.json")
    vocab = export_vocab(tok)
    id_to_tok = [None] * tok.get_vocab_size()
    for t, i in vocab["vocab"].items():
        id_to_tok[i] = t
    cfg = Config(cfgd["vocab_size"], cfgd["context"], cfgd["d_model"], cfgd["n_layers"], cfgd["n_heads"],
                 4 * cfgd["d_model"], vocab["special"]["<|endoftext|>"])
    fl = float_tensors({k: v.detach().cpu().numpy() for k, v in ck["model"].items()}, cfg.n_layers)
    tensors = []
    for n in tensor_names(cfg.n_layers):
        w = fl[n]
        if w.ndim == 2:
            q, s = quantize_rows(w)
            tensors.append((n, MATRIX_FORMAT.code, w.shape[0], w.shape[1], q.tobytes(), s.tobytes()))
        else:
            tensors.append((n, FLOAT32.code, 1, w.shape[0], w.astype(np.float32).tobytes(), None))
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines() if line.strip()]
    best = min((r for r in log if "val_nats" in r), key=lambda r: r["val_nats"])
    meta = {"name": name, "step": ck["step"], "train_config": cfgd,
            "val_nats_at_export": best["val_nats"], "val_bpb_at_export": best["val_bpb"],
            "tokenizer": "byte-level BPE trained with HF tokenizers on TinyStories train_*.txt",
            "data_license": "trained on TinyStories (CDLA-Sharing-1.0)"}
    tok_json = {"vocab": id_to_tok, "merges": vocab["merges"], "special": vocab["special"]}
    data = bundle.write_bundle(cfg, tensors, tok_json, meta)
    if evaluate:  # the held-out figures the page shows, measured on these very weights
        from ..report import heldout_figures

        meta["heldout"] = heldout_figures(data, {k: v.astype(np.float64) for k, v in fl.items()})
        data = bundle.write_bundle(cfg, tensors, tok_json, meta)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.dlm"
    path.write_bytes(data)
    np.savez_compressed(out_dir / f"{name}-float32.npz", **fl)
    bundle.read_bundle(data, str(path))  # round-trip check
    print(f"wrote {path} ({len(data) / 1e6:.2f} MB), step {ck['step']}, val bpb {best['val_bpb']:.4f}")
    return path


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True, type=Path)
    ap.add_argument("--name", required=True)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[3] / "models")
    ap.add_argument("--no-eval", action="store_true", help="skip the held-out figures (a quick export)")
    a = ap.parse_args(argv)
    export(a.run, a.name, a.out, evaluate=not a.no_eval)


if __name__ == "__main__":
    main()
