"""Train a model on the TinyStories corpus, on a GPU or the CPU, with checkpoint/resume.

    python -m decodelab_tools.training.train --run runs/main --vocab 2048 --d 128 --layers 4 --steps 6000

`--device` picks where it runs (CUDA where there is one, else the CPU). On CUDA both token
streams live on the GPU and each batch is gathered there from random starts, the forward and
backward passes run under bf16 autocast (the weights, AdamW's moments and the loss stay float32)
and AdamW is the fused one; on the CPU everything is float32, as v1-v4 were trained.

A run folder holds tokenizer.json, config.json, ckpt.pt (latest, for resume), best.pt (lowest
validation loss) and log.jsonl. Running the same command again resumes from ckpt.pt, so a long
run can continue across sessions. With --teacher PATH the model is distilled from another run's
best.pt (same tokenizer): loss = (1-w)*cross-entropy + w*KL(teacher || student).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from . import bpe
from .corpus import train_stories, valid_stories
from .model import GPT, GPTConfig


def token_stream(tok, stories: list[str]) -> np.ndarray:
    """[eot] s1 [eot] s2 ... [eot]: the end token doubles as beginning-of-text."""
    eot = tok.token_to_id("<|endoftext|>")
    out = [eot]
    for enc in tok.encode_batch(stories):
        out.extend(enc.ids)
        out.append(eot)
    return np.asarray(out, dtype=np.int64)


def token_byte_lengths(tok) -> np.ndarray:
    """UTF-8 bytes each token stands for; the end token counts 0 (it is not story text)."""
    from decodelab.tokenizer import CHAR_TO_BYTE

    n = tok.get_vocab_size()
    lens = np.zeros(n, dtype=np.int64)
    for t, i in tok.get_vocab().items():
        lens[i] = 0 if t == "<|endoftext|>" else len(t)  # one byte-level char per byte
        assert t == "<|endoftext|>" or all(c in CHAR_TO_BYTE for c in t)
    return lens


def autocast(device: torch.device):
    """bf16 autocast on CUDA (matrix products in bf16, softmax and losses in float32); nothing on
    the CPU, where bf16 is slower than float32 and v1-v4 were trained in float32."""
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


@torch.no_grad()
def evaluate(model, stream: np.ndarray, byte_lens: np.ndarray, context: int, max_blocks: int | None = None,
             batch: int = 16) -> dict:
    """Mean nats/token and bits/byte over non-overlapping windows of the validation stream
    (on the model's device, under the same autocast as training)."""
    model.eval()
    device = next(model.parameters()).device
    n_blocks = (len(stream) - 1) // context
    if max_blocks:
        n_blocks = min(n_blocks, max_blocks)
    total_nats = torch.zeros((), dtype=torch.float64, device=device)
    total_tokens, total_bytes = 0, 0
    for b0 in range(0, n_blocks, batch):
        rows = range(b0, min(n_blocks, b0 + batch))
        x = torch.from_numpy(np.stack([stream[r * context:(r + 1) * context] for r in rows])).to(device)
        y_np = np.stack([stream[r * context + 1:(r + 1) * context + 1] for r in rows])
        with autocast(device):
            logits = model(x)
        nll = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), torch.from_numpy(y_np).to(device).reshape(-1),
                              reduction="sum")
        total_nats += nll.double()  # summed on the device: one synchronisation per evaluation
        total_tokens += y_np.size
        total_bytes += int(byte_lens[y_np].sum())
    model.train()
    nats = float(total_nats)
    return {"nats": nats / total_tokens, "bpb": nats / math.log(2) / total_bytes,
            "tokens": total_tokens, "bytes": total_bytes}


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_state(module: torch.nn.Module) -> dict:
    """The weights as CPU tensors, so a checkpoint written on a GPU loads on a machine without one."""
    return {k: v.detach().cpu() for k, v in module.state_dict().items()}


REWARM = 100  # steps of learning-rate ramp after resuming without the optimizer's state


def lr_at(step: int, total: int, peak: float, warmup: int, time_done: float = 0.0) -> float:
    """Linear warm-up, then a cosine to 10% of the peak. `time_done` (0..1, the share of a
    --minutes budget already spent) moves the cosine on when the clock runs out before the step
    count does, so a run slowed by other work on the machine still ends its decay in time."""
    if step < warmup:
        return peak * (step + 1) / warmup
    t = min(1.0, max((step - warmup) / max(1, total - warmup), time_done))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--vocab", type=int, default=2048)
    ap.add_argument("--tokenizer", help="reuse this tokenizer.json instead of training one")
    ap.add_argument("--d", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--minutes", type=float, default=0,
                    help="training budget over all sessions: the cosine ends and the run stops (with a checkpoint) then")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--wd", type=float, default=0.1)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--eval-blocks", type=int, default=96)
    ap.add_argument("--threads", type=int, default=2, help="CPU threads (the CPU device only)")
    ap.add_argument("--device", default=default_device(), choices=["cuda", "cpu"],
                    help="cuda where a GPU is present, else cpu")
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--teacher", help="run folder of a teacher model to distil from")
    ap.add_argument("--distill-weight", type=float, default=0.7)
    ap.add_argument("--reset-best", action="store_true",
                    help="on resume, forget the best validation loss so far, so best.pt follows a new teacher")
    args = ap.parse_args(argv)

    device = torch.device(args.device)
    if device.type == "cpu":
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    run = Path(args.run)
    run.mkdir(parents=True, exist_ok=True)

    tok_path = run / "tokenizer.json"
    if not tok_path.exists():
        if args.tokenizer:
            tok_path.write_bytes(Path(args.tokenizer).read_bytes())
        else:
            bpe.save(bpe.train_bpe(args.vocab), tok_path)
    tok = bpe.load(tok_path)
    train = token_stream(tok, train_stories())
    valid = token_stream(tok, valid_stories())
    byte_lens = token_byte_lengths(tok)
    print(f"train tokens {len(train):,}  valid tokens {len(valid):,}  "
          f"bytes/token {byte_lens[train].sum() / len(train):.3f}", flush=True)

    cfg = GPTConfig(vocab_size=tok.get_vocab_size(), context=512, d_model=args.d,
                    n_layers=args.layers, n_heads=args.heads, dropout=args.dropout)
    (run / "config.json").write_text(json.dumps(cfg.to_dict(), indent=1))
    model = GPT(cfg).to(device)
    total, non_emb = model.n_params()
    print(f"params {total:,} (non-embedding {non_emb:,})", flush=True)

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.wd},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.95),
                            fused=device.type == "cuda")

    teacher = None
    if args.teacher:
        tcfg = GPTConfig(**json.loads((Path(args.teacher) / "config.json").read_text()))
        teacher = GPT(tcfg).to(device)
        teacher.load_state_dict(torch.load(Path(args.teacher) / "best.pt", weights_only=False, map_location=device)["model"])
        teacher.eval()

    step, best, rng_state, spent_before, rewarm_from = 0, float("inf"), None, 0.0, None
    ckpt_path = run / "ckpt.pt"
    if ckpt_path.exists():
        ck = torch.load(ckpt_path, weights_only=False, map_location=device)
        model.load_state_dict(ck["model"])
        if ck["opt"] is not None:  # None: carried between sessions without it (carry.py)
            opt.load_state_dict(ck["opt"])
        step, best, rng_state = ck["step"], ck["best"], ck["rng"]
        rewarm_from = ck.get("rewarm_from")
        spent_before = ck.get("train_seconds", 0.0)  # training time of earlier sessions
        if args.reset_best:
            best = float("inf")
        print(f"resumed at step {step}, best val {best:.4f}", flush=True)
    rng = np.random.default_rng(args.seed)
    if rng_state is not None:
        rng.bit_generator.state = rng_state

    def save(path: Path, with_optimizer: bool = True) -> None:
        """ckpt.pt holds AdamW's moments for a resume; best.pt only the weights (export and
        distillation read nothing else), which keeps each new best cheap to write."""
        tmp = path.with_suffix(".tmp")
        opt_state = opt.state_dict() if with_optimizer else None
        torch.save({"model": cpu_state(model), "opt": opt_state, "step": step, "best": best,
                    "rng": rng.bit_generator.state, "config": cfg.to_dict(),
                    "train_seconds": spent_before + time.time() - t0, "rewarm_from": rewarm_from}, tmp)
        os.replace(tmp, path)

    train_t = torch.from_numpy(train).to(device)  # 3.9M int64 tokens: 31 MB, on the GPU once
    offsets = torch.arange(args.seq, device=device)
    log = open(run / "log.jsonl", "a")
    t0 = time.time()
    last_save = t0
    tokens_done = 0

    def time_done_at() -> float:
        return (spent_before + time.time() - t0) / (args.minutes * 60) if args.minutes else 0.0

    loss = None
    model.train()
    while step < args.steps:
        if step % args.eval_every == 0 or step == args.steps - 1:
            ev = evaluate(model, valid, byte_lens, cfg.context, args.eval_blocks)
            rec = {"step": step, "val_nats": ev["nats"], "val_bpb": ev["bpb"], "elapsed_s": time.time() - t0,
                   "tok_per_s": tokens_done / max(1e-9, time.time() - t0), "lr": lr_at(step, args.steps, args.lr,
                   warmup=min(200, args.steps // 10), time_done=time_done_at())}
            if loss is not None:
                rec["train_loss"] = float(loss.detach())
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            if ev["nats"] < best:
                best = ev["nats"]
                save(run / "best.pt", with_optimizer=False)
        lr = lr_at(step, args.steps, args.lr, warmup=min(200, args.steps // 10), time_done=time_done_at())
        if rewarm_from is not None:  # a fresh AdamW on carried weights: ramp up again over REWARM steps
            lr *= min(1.0, (step - rewarm_from + 1) / REWARM)
        for g in opt.param_groups:
            g["lr"] = lr
        # The data order stays numpy's (it is what a checkpoint carries); the gather is on the device.
        starts = torch.from_numpy(rng.integers(0, len(train) - args.seq - 1, size=args.batch)).to(device)
        idx = starts[:, None] + offsets[None, :]
        x, y = train_t[idx], train_t[idx + 1]
        with autocast(device):
            logits = model(x)
            if teacher is not None:
                with torch.no_grad():
                    t_logits = teacher(x)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.size(-1)), y.reshape(-1))
        if teacher is not None:
            t_logp = F.log_softmax(t_logits.float(), dim=-1)
            s_logp = F.log_softmax(logits.float(), dim=-1)
            kl = (t_logp.exp() * (t_logp - s_logp)).sum(-1).mean()
            loss = (1 - args.distill_weight) * loss + args.distill_weight * kl
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        tokens_done += x.numel()
        if time.time() - last_save > 120:
            save(ckpt_path)
            last_save = time.time()
        if args.minutes and spent_before + time.time() - t0 > args.minutes * 60:
            print("time limit reached", flush=True)
            break
    save(ckpt_path)
    ev = evaluate(model, valid, byte_lens, cfg.context, args.eval_blocks)
    if ev["nats"] < best:
        best = ev["nats"]
        save(run / "best.pt", with_optimizer=False)
    rec = {"step": step, "val_nats": ev["nats"], "val_bpb": ev["bpb"], "final": True, "best_nats": best,
           "train_seconds": spent_before + time.time() - t0, "device": str(device),
           "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"}
    print(json.dumps(rec), flush=True)
    log.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
