"""The model quality report (CPython only): `python3 build.py report [--json PATH]`.

Held-out loss on the whole of valid.txt for the float model, the shipped int8 weights (one scale
per row) and the bigram baseline; the int8 weights re-quantized to 6..2 bits with one scale per
row and per matrix on the first SWEEP_STORIES stories of valid.txt (ten more full passes would
take ten more minutes on this machine), with float and int8 on that same subset beside them;
three samples at T = 0.8.

Bits per byte = total nats / ln 2 / UTF-8 bytes of the predicted story text; the end-of-story
token is predicted (its nats count) but stands for no bytes. Evaluation uses non-overlapping
512-token windows of the stream [eot] story [eot] story ..., as training did.
"""
from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path

import numpy as np

from . import reference
from .reference import round_half_away_np
from decodelab import sampler as S
from decodelab.bundle import read_bundle, tokenizer_from_bundle
from decodelab.spec import GROUP32, SCHEME_NAMES

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"
SWEEP_STORIES = 250
ALPHA_STORIES = 100  # about 20,000 positions: alpha to two decimals


def requantize_np(w: np.ndarray, bits: int, scheme: str) -> np.ndarray:
    """Vectorised form of the kernel's re-quantization rule (row or matrix scale), dequantized."""
    qmax = (1 << (bits - 1)) - 1
    w32 = w.astype(np.float32)
    if scheme == "row":
        amax = np.abs(w32).max(axis=1, keepdims=True)
    else:
        amax = np.full((w32.shape[0], 1), np.abs(w32).max(), dtype=np.float32)
    s = (amax / np.float32(qmax)).astype(np.float32)
    safe = np.where(s == 0, np.float32(1), s)
    v = (w32 / safe).astype(np.float32)
    q = np.clip(round_half_away_np(v), -qmax, qmax)
    return (q * s).astype(np.float64)


def requantize_group32_np(w: np.ndarray, bits: int) -> np.ndarray:
    """The kernel's per-group-of-32 scheme (model.c row_groups), dequantized: each group of 32
    columns gets its own scale (max|w| / qmax), and the row is then carried back at 8 bits with
    one row scale, a second rounding, as the kernel's int8 row-scaled format requires."""
    qmax = np.float32((1 << (bits - 1)) - 1)
    w32 = w.astype(np.float32)
    rows, cols = w32.shape
    v = np.zeros_like(w32)
    for g0 in range(0, cols, GROUP32.group):
        g = w32[:, g0:g0 + GROUP32.group]
        ga = np.abs(g).max(axis=1, keepdims=True)
        sg = (ga / qmax).astype(np.float32)
        safe = np.where(sg == 0, np.float32(1), sg)
        q = np.clip(round_half_away_np((g / safe).astype(np.float32)), -qmax, qmax).astype(np.float32)
        v[:, g0:g0 + 32] = np.where(ga == 0, np.float32(0), (sg * q).astype(np.float32))
    amax = np.abs(v).max(axis=1, keepdims=True)
    s8 = (amax / np.float32(127)).astype(np.float32)
    safe = np.where(s8 == 0, np.float32(1), s8)
    q8 = np.clip(round_half_away_np((v / safe).astype(np.float32)), -127, 127)
    return (q8 * s8).astype(np.float64)


def requantized(weights: dict, bits: int, scheme: str) -> dict:
    f = (lambda v: requantize_group32_np(v, bits)) if scheme == GROUP32.name else (lambda v: requantize_np(v, bits, scheme))
    return {k: (f(v) if v.ndim == 2 else v) for k, v in weights.items()}


def heldout_figures(bundle_bytes: bytes, float_weights: dict, sweep_stories: int = SWEEP_STORIES,
                    stories: int | None = None, log=print) -> dict:
    """The model's held-out figures, as the export writes them into the bundle's metadata (so the
    page can show them without a number typed into HTML): float and int8 on valid.txt, and every
    scale scheme at 6..2 bits on its first `sweep_stories` stories, with float and int8 there too."""
    from .training.corpus import valid_stories

    b = read_bundle(bundle_bytes)
    cfg, tok, eot = b.config, tokenizer_from_bundle(b), b.config.eot_id
    valid = valid_stories()[:stories]
    stream, lens = stream_and_bytes(tok, valid, eot)
    qw = reference.dequantized_weights(b)
    fl, q8 = evaluate(float_weights, cfg, stream, lens), evaluate(qw, cfg, stream, lens)
    log(f"float {fl['nats']:.4f} nats/token {fl['bpb']:.4f} bits/byte; int8 {q8['nats']:.4f} / {q8['bpb']:.4f} "
        f"({fl['tokens']:,} tokens, {fl['bytes']:,} bytes)")
    n_sweep = min(sweep_stories, len(valid))
    sub, sub_lens = stream_and_bytes(tok, valid[:n_sweep], eot)
    fl_sub, q8_sub = evaluate(float_weights, cfg, sub, sub_lens), evaluate(qw, cfg, sub, sub_lens)
    sweep = {"stories": n_sweep, "tokens": len(sub) - 1, "float_nats_per_token": fl_sub["nats"],
             "int8_nats_per_token": q8_sub["nats"]}
    for scheme in SCHEME_NAMES:
        sweep[scheme] = {}
        for bits in (6, 5, 4, 3, 2):
            r = evaluate(requantized(qw, bits, scheme), cfg, sub, sub_lens)
            sweep[scheme][str(bits)] = {"nats_per_token": r["nats"], "bits_per_byte": r["bpb"]}
            log(f"  {bits} bits, one scale per {scheme:7s} {r['nats']:.4f} nats/token (+{r['nats'] - fl_sub['nats']:.4f})")
    return {"split": "valid.txt", "stories": len(valid), "tokens": fl["tokens"], "bytes": fl["bytes"],
            "float": {"nats_per_token": fl["nats"], "bits_per_byte": fl["bpb"]},
            "int8": {"nats_per_token": q8["nats"], "bits_per_byte": q8["bpb"]},
            "requant": sweep, "measured_by": "decodelab_tools.report.heldout_figures (numpy reference forward pass)"}


def stream_and_bytes(tok, stories, eot):
    stream = [eot]
    for s in stories:
        stream += tok.encode(s) + [eot]
    lens = np.array([0 if i == eot else len(tok.token_bytes(i)) for i in range(tok.vocab_size)])
    return stream, lens


def evaluate(weights, cfg, stream, lens) -> dict:
    """nats/token and bits/byte over the stream (float32 numpy for speed; float64 sums)."""
    w32 = {k: v.astype(np.float32) for k, v in weights.items()}
    total, n, nbytes = 0.0, 0, 0
    W = cfg.context
    for start in range(0, len(stream) - 1, W):
        chunk = stream[start:start + W + 1]
        if len(chunk) < 2:
            break
        logits = reference.forward(w32, cfg, chunk[:-1])
        tgt = np.array(chunk[1:])
        m = logits.max(-1, keepdims=True)
        lse = np.log(np.exp(logits - m).sum(-1, dtype=np.float64)) + m[:, 0]
        total += float((lse - logits[np.arange(len(tgt)), tgt]).sum())
        n += len(tgt)
        nbytes += int(lens[tgt].sum())
    return {"nats": total / n, "bpb": total / math.log(2) / nbytes, "tokens": n, "bytes": nbytes}


def bigram_baseline(tok, train_stories, valid_stream, lens, eot) -> dict:
    """Bigram with Dirichlet smoothing towards the unigram; the strength k is chosen on the last
    10% of the training stream, then the counts are refitted on all of it."""
    V = tok.vocab_size
    train, _ = stream_and_bytes(tok, train_stories, eot)
    train = np.array(train)

    def fit(ids):
        c = np.zeros((V, V), dtype=np.float64)
        np.add.at(c, (ids[:-1], ids[1:]), 1.0)
        uni = (np.bincount(ids, minlength=V) + 1.0) / (len(ids) + V)
        return c, c.sum(1), uni

    def nll(model, k, ids):
        c, row, uni = model
        a, b = ids[:-1], ids[1:]
        p = (c[a, b] + k * uni[b]) / (row[a] + k)
        return -np.log(p)

    cut = int(len(train) * 0.9)
    m = fit(train[:cut])
    ks = [0.1, 0.3, 1, 3, 10, 30, 100]
    best_k = min(ks, key=lambda k: nll(m, k, train[cut:]).mean())
    m = fit(train)
    v = np.array(valid_stream)
    losses = nll(m, best_k, v)
    nbytes = int(lens[v[1:]].sum())
    return {"nats": float(losses.mean()), "bpb": float(losses.sum() / math.log(2) / nbytes), "k": best_k}


def draft_acceptance(main_bytes: bytes, draft_bytes: bytes, stories: int = ALPHA_STORIES, gamma: int = 4) -> dict:
    """How often the draft's guesses would be kept, measured on held-out text with both shipped
    int8 bundles: at every position of the first `stories` validation stories, alpha = sum over
    the vocabulary of min(p, q) (p the main model's distribution, q the draft's, both at T = 1):
    the chance that speculative sampling keeps a drafted token there. Also how often the two
    greedy picks agree, and the tokens a round yields at `gamma` if alpha were the same at every
    position (the cost model of chapter 3)."""
    from decodelab.speculative import expected_tokens
    from .training.corpus import valid_stories

    mb, db = read_bundle(main_bytes), read_bundle(draft_bytes)
    tok, eot = tokenizer_from_bundle(mb), mb.config.eot_id
    stream, _ = stream_and_bytes(tok, valid_stories()[:stories], eot)
    mw = {k: v.astype(np.float32) for k, v in reference.dequantized_weights(mb).items()}
    dw = {k: v.astype(np.float32) for k, v in reference.dequantized_weights(db).items()}
    kept, agree, n = 0.0, 0, 0
    W = mb.config.context
    for start in range(0, len(stream) - 1, W):
        chunk = stream[start:start + W]  # the distributions at each position; no targets needed
        p = np.exp(reference.log_softmax(reference.forward(mw, mb.config, chunk).astype(np.float64)))
        q = np.exp(reference.log_softmax(reference.forward(dw, db.config, chunk).astype(np.float64)))
        kept += float(np.minimum(p, q).sum())
        agree += int((p.argmax(-1) == q.argmax(-1)).sum())
        n += len(chunk)
    alpha = kept / n
    return {"draft_step": db.meta.get("step"), "stories": stories, "positions": n, "alpha": alpha, "greedy_agreement": agree / n,
            "gamma": gamma, "tokens_per_round": expected_tokens(alpha, gamma)}


SAMPLE_PROMPT = "Once upon a time"
# The model the page shipped before this one, read from git history so the report can set the two
# side by side without a second copy of its weights in the tree: v4, as committed before v5.
PREVIOUS = ("v4", "dd06052f7826a5df138c6b7b9a8cbe079772bf07")


def samples(n: int = 10, model: Path = MODELS / "main.dlm") -> list[str]:
    """n stories at T = 0.8, top-p 0.95, seeds 1..n (the same seeds give comparable samples of
    two models)."""
    from decodelab.generation import generate_text
    from decodelab.engine import Engine
    from decodelab.kernel import Kernel

    e = Engine.from_file(Kernel.open(), model)
    s = S.DEFAULTS
    out = []
    for seed in range(1, n + 1):
        g = generate_text(e, e.tokenizer.encode(SAMPLE_PROMPT), s, seed, 200, stop_at_end=True, info=False)
        out.append(SAMPLE_PROMPT + e.tokenizer.decode([t for t in g["tokens"] if t != e.eot]))
    return out


def previous_bundle(name: str, label_commit: tuple[str, str] = PREVIOUS) -> bytes | None:
    """models/NAME.dlm as the previous model's commit had it, or None where git or the commit is
    missing (a shallow clone): the report then says so and skips the comparison."""
    import subprocess

    label, commit = label_commit
    r = subprocess.run(["git", "show", f"{commit}:models/{name}.dlm"], cwd=ROOT, capture_output=True)
    return r.stdout if r.returncode == 0 and r.stdout else None


WORD = re.compile(r"[a-z]+")


def corpus_words(stories: list[str]) -> set[str]:
    """Every lower-case run of letters in the training stories ("didn't" counts as "didn" and "t")."""
    words: set[str] = set()
    for s in stories:
        words.update(WORD.findall(s.lower()))
    return words


def invented_words(texts: list[str], known: set[str]) -> dict:
    """The words of `texts` that never occur in the training corpus: how many occurrences, and which."""
    found = [w for t in texts for w in WORD.findall(t.lower()) if w not in known]
    total = sum(len(WORD.findall(t.lower())) for t in texts)
    return {"count": len(found), "words": sorted(set(found)), "of_words": total}


def compare_samples(train_stories: list[str], n: int = 10) -> dict:
    """The same ten seeds through this model and the previous one, and the invented words in each."""
    import tempfile

    known = corpus_words(train_stories)
    out = {"settings": {**S.DEFAULTS.as_dict(), "seeds": list(range(1, n + 1)), "prompt": SAMPLE_PROMPT,
                        "max_tokens": 200}}
    now = samples(n)
    out["current"] = {"model": read_bundle((MODELS / "main.dlm").read_bytes()).meta.get("name", "main"),
                      "samples": now, "invented": invented_words(now, known)}
    prev = previous_bundle("main")
    if prev is None:
        out["previous"] = {"model": PREVIOUS[0], "missing": f"git could not read models/main.dlm at {PREVIOUS[1]}"}
        return out
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "main.dlm"
        path.write_bytes(prev)
        before = samples(n, path)
    out["previous"] = {"model": PREVIOUS[0], "commit": PREVIOUS[1], "samples": before,
                       "invented": invented_words(before, known)}
    return out


def main(json_path: Path | None = None, stories: int | None = None) -> dict:
    """stories: evaluate only the first N validation stories (a quick check; the report proper uses all)."""
    from .training.corpus import train_stories, valid_stories

    t0 = time.time()
    b = read_bundle((MODELS / "main.dlm").read_bytes())
    cfg, tok, eot = b.config, tokenizer_from_bundle(b), b.config.eot_id
    stream, lens = stream_and_bytes(tok, valid_stories()[:stories], eot)
    fw = {k: v.astype(np.float64) for k, v in np.load(MODELS / "main-float32.npz").items()}
    qw = reference.dequantized_weights(b)
    res = {"model": b.meta, "valid_tokens": len(stream) - 1, "valid_stories": stories or "all"}
    fl = evaluate(fw, cfg, stream, lens)
    q8 = evaluate(qw, cfg, stream, lens)
    res.update(float_nats=fl["nats"], float_bpb=fl["bpb"], int8_nats=q8["nats"], int8_bpb=q8["bpb"],
               int8_delta_nats=q8["nats"] - fl["nats"], valid_bytes=fl["bytes"])
    print(f"float   {fl['nats']:.4f} nats/token  {fl['bpb']:.4f} bits/byte   ({fl['tokens']:,} tokens, {fl['bytes']:,} bytes)")
    print(f"int8    {q8['nats']:.4f} nats/token  {q8['bpb']:.4f} bits/byte   (+{q8['nats'] - fl['nats']:.4f} nats vs float)")
    n_sweep = min(SWEEP_STORIES, stories or SWEEP_STORIES)
    sub, sub_lens = stream_and_bytes(tok, valid_stories()[:n_sweep], eot)
    fl_sub, q8_sub = evaluate(fw, cfg, sub, sub_lens), evaluate(qw, cfg, sub, sub_lens)
    res["requant"] = {"stories": n_sweep, "tokens": len(sub) - 1, "float": fl_sub, "int8": q8_sub}
    print(f"\nbit depth, on the first {n_sweep} validation stories ({len(sub) - 1:,} tokens): "
          f"float {fl_sub['nats']:.4f}, int8 {q8_sub['nats']:.4f} nats/token")
    for scheme in SCHEME_NAMES:
        res["requant"][scheme] = {}
        for bits in (6, 5, 4, 3, 2):
            r = evaluate(requantized(qw, bits, scheme), cfg, sub, sub_lens)
            res["requant"][scheme][str(bits)] = {"nats": r["nats"], "bpb": r["bpb"], "delta_nats": r["nats"] - fl_sub["nats"]}
            print(f"{bits} bits, one scale per {scheme:6s}  {r['nats']:.4f} nats/token  {r['bpb']:.4f} bits/byte"
                  f"  (+{r['nats'] - fl_sub['nats']:.4f} vs float)")
    bg = bigram_baseline(tok, train_stories(), stream, lens, eot)
    res.update(bigram_bpb=bg["bpb"], bigram_nats=bg["nats"], bigram_k=bg["k"])
    print(f"bigram  {bg['nats']:.4f} nats/token  {bg['bpb']:.4f} bits/byte   (Dirichlet k = {bg['k']})")
    n_alpha = min(ALPHA_STORIES, stories or ALPHA_STORIES)
    dr = draft_acceptance((MODELS / "main.dlm").read_bytes(), (MODELS / "draft.dlm").read_bytes(), n_alpha)
    res["draft"] = dr
    print(f"draft   alpha {dr['alpha']:.3f} (sum of min(p, q) at T = 1), greedy agreement {dr['greedy_agreement']:.3f}, "
          f"{dr['tokens_per_round']:.2f} tokens a round at gamma {dr['gamma']} "
          f"({dr['positions']:,} positions, first {dr['stories']} stories)")
    prev_main, prev_draft = previous_bundle("main"), previous_bundle("draft")
    if prev_main and prev_draft:  # the previous pair on the same positions, for the comparison
        pr = draft_acceptance(prev_main, prev_draft, n_alpha)
        res["draft_previous"] = dict(pr, model=PREVIOUS[0])
        print(f"        the {PREVIOUS[0]} pair: alpha {pr['alpha']:.3f}, greedy agreement {pr['greedy_agreement']:.3f}, "
              f"{pr['tokens_per_round']:.2f} tokens a round")
    cmp = compare_samples(train_stories())
    res["samples"] = cmp
    prev = cmp["previous"]
    for i in range(len(cmp["current"]["samples"])):
        print(f"\n--- seed {i + 1} (the page's default settings) ---")
        print(f"[{cmp['current']['model']}] {cmp['current']['samples'][i]}")
        if "samples" in prev:
            print(f"[{prev['model']}] {prev['samples'][i]}")
    for label, part in (("current", cmp["current"]), ("previous", prev)):
        if "invented" in part:
            inv = part["invented"]
            print(f"\ninvented words, {part['model']}: {inv['count']} of {inv['of_words']} words never occur in the "
                  f"training corpus: {', '.join(inv['words']) or '(none)'}")
        else:
            print(f"\n{part['model']}: {part['missing']}")
    res["seconds"] = time.time() - t0
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(res, indent=1))
        print(f"\nwrote {json_path}")
    return res
