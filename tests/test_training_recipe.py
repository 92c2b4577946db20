"""The GPU recipe's way back (decodelab_tools.training.recipe): two run folders leave the GPU
machine as parts small enough to return and come back whole here, or not at all. No torch needed."""
import json

import pytest

from decodelab_tools.training import recipe


def make_run(path, payload: bytes):
    path.mkdir(parents=True)
    (path / "best.pt").write_bytes(payload)
    (path / "config.json").write_text(json.dumps({"d_model": 8}))
    (path / "log.jsonl").write_text('{"step": 0, "val_bpb": 1.0}\n')
    (path / "ckpt.pt").write_bytes(b"resume state that must stay behind")


def pack(tmp_path, monkeypatch):
    monkeypatch.setattr(recipe, "PART_BYTES", 1000)  # several parts from small files
    runs = [tmp_path / "work" / "main", tmp_path / "work" / "draft"]
    make_run(runs[0], bytes(range(256)) * 9)
    make_run(runs[1], b"draft weights" * 50)
    out = tmp_path / "out"
    out.mkdir()
    data = recipe._tar_runs(runs)
    parts = recipe.write_parts(data, out)
    import hashlib
    (out / "recipe.json").write_text(json.dumps({"parts": parts, "sha256": hashlib.sha256(data).hexdigest()}))
    return out, parts


def test_the_runs_come_back_whole_without_their_resume_checkpoint(tmp_path, monkeypatch):
    out, parts = pack(tmp_path, monkeypatch)
    assert len(parts) > 2 and all((out / p).stat().st_size <= 1000 for p in parts)
    recipe.unpack(out, tmp_path / "back")
    assert (tmp_path / "back" / "main" / "best.pt").read_bytes() == bytes(range(256)) * 9
    assert (tmp_path / "back" / "draft" / "best.pt").read_bytes() == b"draft weights" * 50
    assert not (tmp_path / "back" / "main" / "ckpt.pt").exists()


def test_a_damaged_or_missing_part_is_refused(tmp_path, monkeypatch):
    out, parts = pack(tmp_path, monkeypatch)
    p = out / parts[1]
    b = p.read_bytes()
    p.write_bytes(b[:500] + bytes([b[500] ^ 1]) + b[501:])  # one bit flipped
    with pytest.raises(SystemExit, match="sha256"):
        recipe.unpack(out, tmp_path / "back")
    (out / parts[1]).unlink()
    with pytest.raises(FileNotFoundError):
        recipe.unpack(out, tmp_path / "back2")
