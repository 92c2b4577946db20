"""The encoder's character classes come from one table, the same in CPython, Pyodide and HF.

`unicodedata` follows each runtime's Unicode version (CPython 3.11 has Unicode 15.0, Pyodide's
3.14 has 16.0), so classes taken from it made the page and the tests encode some text
differently. The table is generated from HF tokenizers; these tests hold all three together.
"""
import hashlib
import json
import unicodedata

import pytest
from conftest import py

from decodelab import unicode_classes
from decodelab_tools.training.unicode_table import OUT, hf_classes, render, runs

# letters of Unicode 15 and 16 (Nag Mundari, Kawi, Garay, Tulu-Tigalari, a new Cyrillic
# letter), and numbers of 16, each followed by a contraction and a digit run
NEWER_THAN_CPYTHON_311 = ["\u1c89's", "\U0001E4D0'll", "\U00011F04'd", "\U00010D4A's", "\U000113B8't",
                          "\U00016D40's", "\U0001CCF0x", "\U00016FF0'm 12"]


@pytest.mark.slow  # all 1.1 million code points through HF, about 7 s
def test_table_equals_hf_on_every_code_point():
    from importlib.metadata import version

    hf_all = hf_classes()
    ours_all = unicode_classes.all_classes()
    assert len(ours_all) == 0x110000
    diff = [f"U+{cp:04X}: HF {a}, table {b}" for cp, (a, b) in enumerate(zip(hf_all, ours_all)) if a != b]
    assert diff == []
    # and the committed file is exactly what the generator writes
    assert OUT.read_text() == render(*runs(hf_all), version("tokenizers"))


@pytest.mark.parametrize("text", NEWER_THAN_CPYTHON_311)
def test_newer_letters_encode_as_hf_does(hf, ours, text):
    assert ours.encode(text) == hf.encode(text).ids


def test_this_runtime_would_have_disagreed():
    """Why the table exists: here `unicodedata` does not know U+1C89, which HF treats as a letter."""
    if unicodedata.unidata_version >= "16.0.0":
        pytest.skip("this CPython already has Unicode 16")
    assert unicodedata.category("\u1c89") == "Cn"
    assert unicode_classes.class_of("\u1c89") == "L"


def test_pyodide_uses_the_same_classes_and_ids(ready_page, hf):
    code = ("import hashlib, json, unicodedata\n"
            "from decodelab.unicode_classes import all_classes\n"
            "print(json.dumps([hashlib.sha256(all_classes().encode()).hexdigest(), unicodedata.unidata_version]))")
    r = py(ready_page, "run_cell", code=code)
    assert r["ok"], r["output"]
    digest, unidata = json.loads(r["output"])
    assert digest == hashlib.sha256(unicode_classes.all_classes().encode()).hexdigest()
    assert unidata >= "16.0.0"  # Pyodide's own unicodedata differs from CPython 3.11's: the table is what agrees
    for text in NEWER_THAN_CPYTHON_311:
        assert py(ready_page, "ch1_tokenize", prompt=text)["ids"] == hf.encode(text).ids
