"""Every kernel build reproduces the committed golden logits of the shipped model.

Comparing builds with each other catches a build that drifts alone; the golden file also catches
a change that moves every build the same way (a new compiler, a flag, a reordered sum).
After a deliberate change, regenerate with `python -m decodelab_tools.golden --write`.
"""
import json

import pytest
from conftest import ROOT

from decodelab import builds
from decodelab_tools import golden
from decodelab.kernel import Kernel, wasm_path

GOLD = json.loads(golden.GOLDEN.read_text())


@pytest.fixture(scope="module", params=[b.name for b in builds.ALL if b is not builds.JSMATVEC])
def got(request):
    return compute_for(request.param)


def compute_for(name):
    return golden.compute(Kernel.open(path=wasm_path(name)), (ROOT / "models" / "main.dlm").read_bytes())


@pytest.mark.parametrize("path", ["fast", "exact"])
def test_logits_match_the_golden_bit_for_bit(got, path):
    want, have = GOLD[path], got[path]
    # the readable parts first, so a failure shows how far the numbers moved
    assert have["top5"] == want["top5"]
    assert have["first_logits"] == want["first_logits"]
    assert have["top5_logits"] == want["top5_logits"]
    assert have["greedy_text"] == want["greedy_text"]
    assert have["sha256"] == want["sha256"]


def test_sampled_text_matches_the_golden(got):
    assert got["prompt_ids"] == GOLD["prompt_ids"]
    assert got["sampled_text"] == GOLD["sampled_text"]
