"""Tokenizer parity with HF `tokenizers`, the bundle format and its loader's errors, and the cost
of int8 weights against the float model on held-out text."""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from decodelab import spec
from decodelab.bundle import BundleError, read_bundle, tokenizer_from_bundle, write_bundle

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
EDGE_CASES = ["", " ", "  ", "\n", "\n\n", " \n ", "a", "  hi", "a  b", "x\n\n y", "trailing   ", "\t tab",
              "héllo wörld", "naïve café", "12³ ½ ٣٤", "你好，世界", "🙂🙃 emoji", "it's we'll they'd I'M 'S",
              "\x1c\x1d\x1e\x1f mixed", "a\u00a0b\u2003c\u3000d", "<|endoftext|>", "hi<|endoftext|>there",
              "“Quotes” – dashes — and… ellipses", "  \n\n  leading", "x" * 300, "..,  ;!  ?", " 123abc4",
              "Ωmega ß ﬁ", "\u200b zero width", "a\r\nb"]


def test_bundle_tokenizer_is_the_shipped_one(hf, ours):
    assert ours.vocab_size == hf.get_vocab_size()
    assert ours.eot_id == hf.token_to_id("<|endoftext|>")


@pytest.mark.parametrize("text", EDGE_CASES)
def test_parity_on_edge_cases(hf, ours, text):
    assert ours.encode(text) == hf.encode(text).ids
    assert ours.decode(ours.encode(text)) == text


def test_parity_on_every_validation_story(hf, ours, valid_stories):
    stories = valid_stories
    assert len(stories) == 1250
    mismatched = [i for i, (s, enc) in enumerate(zip(stories, hf.encode_batch(stories))) if ours.encode(s) != enc.ids]
    assert mismatched == []
    assert all(ours.decode(ours.encode(s)) == s for s in stories[:100])


def test_draft_shares_the_tokenizer():
    a = read_bundle((MODELS / "main.dlm").read_bytes())
    b = read_bundle((MODELS / "draft.dlm").read_bytes())
    assert a.tokenizer == b.tokenizer and a.config.eot_id == b.config.eot_id


def test_shipped_bundles_are_small():
    for f in MODELS.glob("*.dlm"):
        assert f.stat().st_size < 8_000_000


# ---- bundle format ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def good() -> bytes:
    return (MODELS / "main.dlm").read_bytes()


def test_round_trip(good):
    b = read_bundle(good)
    tensors = [(n, t.dtype, t.rows, t.cols, bytes(t.data), bytes(t.scales) if t.scales is not None else None)
               for n, t in b.tensors.items()]
    again = write_bundle(b.config, tensors, b.tokenizer, b.meta)
    assert again == good


def recrc(data: bytearray) -> bytes:
    struct.pack_into("<I", data, len(data) - 4, zlib.crc32(memoryview(data)[:-4]) & 0xFFFFFFFF)
    return bytes(data)


@pytest.mark.parametrize("damage,message", [
    (lambda d: b"GGUF" + d[4:], "not a decodelab model"),
    (lambda d: recrc(bytearray(d[:4] + struct.pack("<I", 7) + d[8:])), "version 7"),
    (lambda d: d[:len(d) // 2], "truncated"),
    (lambda d: d[:10], "truncated"),
    (lambda d: d[:5000] + bytes([d[5000] ^ 1]) + d[5001:], "damaged: checksum"),
    (lambda d: d + b"\0\0", "trailing"),
    (lambda d: recrc(bytearray(d[:8] + struct.pack("<I", 999) + d[12:])), "shape"),
    (lambda d: recrc(bytearray(d[:16] + struct.pack("<I", 999) + d[20:])), "not divisible"),
])
def test_loader_rejects_damage_with_a_clear_message(good, damage, message):
    with pytest.raises(BundleError) as e:
        read_bundle(damage(good), "main.dlm")
    assert message in str(e.value) and "main.dlm" in str(e.value)


def test_kernel_refuses_a_bad_header_too(kernel, good):
    """Even if bytes skip the Python loader, the C loader checks magic, version and length."""
    from decodelab.engine import Engine

    e = Engine(kernel, good, "main.dlm")
    mark = kernel.mark()
    ptr = kernel.alloc(len(good))
    kernel.put(ptr, b"XXXX" + good[4:])
    assert kernel.model_load(ptr, len(good)) == 0
    assert "magic" in kernel.last_error()
    kernel.put(ptr, good)
    assert kernel.model_load(ptr, len(good) - 8) == 0
    assert "length" in kernel.last_error()
    kernel.release(mark)


# ---- int8 against float on held-out text ----------------------------------------------------------

@pytest.mark.slow  # 40 stories through the numpy forward pass, about 20 s
def test_int8_costs_little_against_float_on_held_out_text(valid_stories):
    """Mean nats/token on a slice of valid.txt: the int8 bundle (as shipped, float activations)
    against the float checkpoint it was exported from, through the same numpy forward pass."""
    from decodelab_tools import reference

    b = read_bundle((MODELS / "main.dlm").read_bytes())
    tok = tokenizer_from_bundle(b)
    fl = dict(np.load(MODELS / "main-float32.npz"))
    fw = {k: v.astype(np.float64) for k, v in fl.items()}
    qw = reference.dequantized_weights(b)
    stream = [b.config.eot_id]
    for s in valid_stories[:40]:
        stream += tok.encode(s) + [b.config.eot_id]
    nq, n = reference.stream_nll(qw, b.config, stream)
    nf, _ = reference.stream_nll(fw, b.config, stream)
    delta = (nq - nf) / n
    assert abs(delta) <= 0.01, f"int8 costs {delta:.4f} nats/token"


def test_the_bundle_carries_its_held_out_figures():
    """The export measures the model on valid.txt and writes the figures into the bundle's
    metadata, so the page shows them without a number typed into HTML."""
    import math

    h = read_bundle((MODELS / "main.dlm").read_bytes()).meta["heldout"]
    assert h["split"] == "valid.txt" and h["stories"] == 1250
    for path in ("float", "int8"):
        f = h[path]
        # bits per byte is nats over all tokens / ln 2 / bytes: the two figures agree
        assert math.isclose(f["bits_per_byte"], f["nats_per_token"] * h["tokens"] / math.log(2) / h["bytes"], rel_tol=1e-9)
    assert abs(h["int8"]["nats_per_token"] - h["float"]["nats_per_token"]) <= 0.01
    sweep = h["requant"]
    for scheme in spec.SCHEME_NAMES:
        nats = [sweep[scheme][str(b)]["nats_per_token"] for b in (6, 4, 2)]
        assert nats[0] <= nats[1] <= nats[2]  # fewer bits never help
    assert sweep["group32"]["3"]["nats_per_token"] <= sweep["matrix"]["3"]["nats_per_token"]


def test_the_export_name_map_runs_both_ways_over_every_tensor():
    """export.float_tensors (torch keys -> bundle names) and state_arrays (back, for carry.py's
    `seed`) read one map: every tensor of the shipped draft goes there and back unchanged."""
    from decodelab.bundle import tensor_names
    from decodelab_tools.training.export import float_tensors, state_arrays

    n_layers = read_bundle((MODELS / "draft.dlm").read_bytes()).config.n_layers
    fl = dict(np.load(MODELS / "draft-float32.npz"))
    assert set(fl) == set(tensor_names(n_layers))
    state = state_arrays(fl, n_layers)
    assert len(state) == len(fl) and all("." in k for k in state)  # torch's dotted keys
    back = float_tensors(state, n_layers)
    assert set(back) == set(fl) and all(np.array_equal(back[k], fl[k]) for k in fl)


def test_the_reports_draft_acceptance_is_one_for_a_model_against_itself_and_below_for_the_draft():
    """report.draft_acceptance: alpha = mean over positions of sum(min(p, q)). A model against
    itself keeps every guess; the shipped draft against the main model keeps some, not all, and the
    tokens a round follow chapter 3's formula."""
    from decodelab_tools.report import draft_acceptance
    from decodelab.speculative import expected_tokens

    main, draft = (MODELS / "main.dlm").read_bytes(), (MODELS / "draft.dlm").read_bytes()
    same = draft_acceptance(draft, draft, stories=2)
    assert same["alpha"] == pytest.approx(1.0, abs=1e-9) and same["greedy_agreement"] == 1.0
    pair = draft_acceptance(main, draft, stories=2)
    assert 0.2 < pair["alpha"] < 0.9 and pair["positions"] == same["positions"] > 100
    assert pair["tokens_per_round"] == pytest.approx(expected_tokens(pair["alpha"], 4))
