"""The whole training recipe in one command, for a GPU machine lent for a few minutes.

    # here: pack the corpus into a folder git ignores, so it travels with the checkout
    python -m decodelab_tools.training.recipe pack-corpus --out .gpu/corpus.tar.gz
    # there (one run): tokenize, train the main model, distil the draft from it, pack both runs
    python -m decodelab_tools.training.recipe run --corpus-archive .gpu/corpus.tar.gz --out $OUT
    # here again: the two run folders back, then export, int8 and everything after on the CPU
    python -m decodelab_tools.training.recipe unpack --from /work/.device/... --runs runs

The main model keeps v4's shape (d 256, 6 layers, 8 heads) and the draft its own (d 64, 2 layers),
seeded from the committed draft (`carry seed`) and distilled from the new main model. Both runs
are bounded by the clock, not by a step count: the learning rate's cosine follows the time spent
(train.py's `--minutes`), so a slower machine ends the decay in time too, and best.pt is the
checkpoint with the lowest loss on all of valid.txt. What comes back is each run folder without its
resume checkpoint (config, log, tokenizer, best.pt), as a tar split into parts small enough to
return from the machine, and a summary.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import sys
import tarfile
import tempfile
import time
from pathlib import Path

PART_BYTES = 15 * 2**20  # the device returns files of at most 16 MiB

# The recipe, written once: the shapes are v4's (the page's bytes and speed stay), the settings are
# those measured on an H200 in issue 39 (batch 64 x 512, peak 1.5e-3, cosine to 10%).
MAIN = ["--d", "256", "--layers", "6", "--heads", "8", "--dropout", "0.1", "--batch", "64", "--seq", "512",
        "--lr", "1.5e-3", "--steps", "1000000", "--eval-every", "300", "--eval-blocks", "0"]
DRAFT = ["--d", "64", "--layers", "2", "--heads", "2", "--batch", "64", "--seq", "512", "--lr", "1.5e-3",
         "--steps", "1000000", "--eval-every", "300", "--eval-blocks", "0", "--distill-weight", "0.7"]


def pack_corpus(corpus: Path, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w:gz") as tar:
        for f in sorted(corpus.glob("train_*.txt")) + [corpus / "valid.txt"]:
            tar.add(f, arcname=f.name)
    print(f"packed {corpus} into {out} ({out.stat().st_size / 1e6:.1f} MB)")


def _tar_runs(runs: list[Path]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for run in runs:
            for f in sorted(run.iterdir()):
                if f.name in ("ckpt.pt",) or f.suffix == ".tmp":
                    continue  # the resume checkpoint (with AdamW's moments) stays behind
                tar.add(f, arcname=f"{run.name}/{f.name}")
    return buf.getvalue()


def write_parts(data: bytes, out: Path, stem: str = "runs.tar") -> list[str]:
    names = []
    for i in range(0, len(data), PART_BYTES):
        name = f"{stem}.part{i // PART_BYTES:02d}"
        (out / name).write_bytes(data[i:i + PART_BYTES])
        names.append(name)
    return names


def run(corpus_archive: Path | None, out: Path, work: Path, main_minutes: float, draft_minutes: float,
        device: str | None) -> None:
    from . import carry, train

    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    if corpus_archive:
        corpus = work / "corpus"
        corpus.mkdir(exist_ok=True)
        with tarfile.open(corpus_archive) as tar:
            tar.extractall(corpus, filter="data")
        os.environ["DECODELAB_CORPUS"] = str(corpus)
    dev = ["--device", device] if device else []
    tokenizer = Path(__file__).resolve().parents[3] / "models" / "tokenizer.json"
    main_run, draft_run = work / "main", work / "draft"
    t0 = time.time()
    train.main(["--run", str(main_run), "--tokenizer", str(tokenizer), "--minutes", str(main_minutes)] + MAIN + dev)
    t_main = time.time() - t0
    carry.seed("draft", draft_run)
    train.main(["--run", str(draft_run), "--tokenizer", str(tokenizer), "--minutes", str(draft_minutes),
                "--teacher", str(main_run), "--reset-best"] + DRAFT + dev)
    t_draft = time.time() - t0 - t_main
    data = _tar_runs([main_run, draft_run])
    parts = write_parts(data, out)
    summary = {"parts": parts, "sha256": hashlib.sha256(data).hexdigest(), "main_wall_s": t_main,
               "draft_wall_s": t_draft, "argv": sys.argv}
    for name, r in (("main", main_run), ("draft", draft_run)):
        log = [json.loads(line) for line in (r / "log.jsonl").read_text().splitlines() if line.strip()]
        summary[name] = log[-1]
        summary[name + "_best_bpb"] = min(x["val_bpb"] for x in log if "val_bpb" in x)
    (out / "recipe.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1), flush=True)


def unpack(src: Path, runs: Path) -> None:
    summary = json.loads((src / "recipe.json").read_text())
    data = b"".join((src / p).read_bytes() for p in summary["parts"])
    if hashlib.sha256(data).hexdigest() != summary["sha256"]:
        raise SystemExit("the parts do not add up to what the GPU machine packed (sha256 differs)")
    runs.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(runs, filter="data")
    print(f"unpacked {', '.join(sorted({m.split('/')[0] for m in tarfile.open(fileobj=io.BytesIO(data)).getnames()}))}"
          f" into {runs}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack-corpus")
    p.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("--corpus-archive", type=Path, help="a tar.gz of train_*.txt and valid.txt (else the usual corpus)")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--work", type=Path, default=None, help="where the run folders are made (a temporary folder)")
    r.add_argument("--main-minutes", type=float, default=1.75)
    r.add_argument("--draft-minutes", type=float, default=1.25)
    r.add_argument("--device", choices=["cuda", "cpu"], default=None)
    u = sub.add_parser("unpack")
    u.add_argument("--from", dest="src", type=Path, required=True)
    u.add_argument("--runs", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.cmd == "pack-corpus":
        from .corpus import default_corpus_dir

        pack_corpus(default_corpus_dir(), a.out)
    elif a.cmd == "run":
        run(a.corpus_archive, a.out, a.work or Path(tempfile.mkdtemp(prefix="recipe-")), a.main_minutes,
            a.draft_minutes, a.device)
    else:
        unpack(a.src, a.runs)


if __name__ == "__main__":
    main()
