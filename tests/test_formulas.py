"""Every formula of the page, in every language, typesets to MathML that every engine accepts.

KaTeX (the page's own copy, run in Node) writes a MathML tree beside the HTML it draws. Firefox
lays that tree out and reports a page error for an element with the wrong number of children;
KaTeX writes one for a subscript that is an operator name (`p_{\\min}` gives `<msub>` three
children: p, min and an invisible function application), so the sources say `\\mathrm{min}`.
"""
from __future__ import annotations

import html
import json
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT, WEB

# MathML's scripted elements take exactly this many children (MathML Core, 3.4)
ARITY = {"msub": 2, "msup": 2, "msubsup": 3, "munder": 2, "mover": 2, "munderover": 3, "mfrac": 2, "mroot": 2}
MATH = re.compile(r'<(span|div) class="(math|math-block)">(.*?)</\1>', re.S)


def formulas():
    found = []
    for f in [WEB / "index.html", *sorted((WEB / "i18n").glob("*.txt"))]:
        for _tag, kind, src in MATH.findall(f.read_text(encoding="utf-8")):
            found.append((f.name, html.unescape(src), kind == "math-block"))
    return found


def mathml(items):
    res = subprocess.run(["node", str(ROOT / "tests" / "js" / "katex_mathml.mjs")], cwd=ROOT, capture_output=True,
                         text=True, input=json.dumps([[src, display] for _f, src, display in items]), check=True)
    return json.loads(res.stdout)


def wrong_arity(markup: str) -> list[str]:
    root = ET.fromstring(markup)
    return [f"<{e.tag.split('}')[-1]}> with {len(e)} children" for e in root.iter()
            if ARITY.get(e.tag.split("}")[-1], len(e)) != len(e)]


def test_every_formula_typesets_to_well_formed_mathml():
    items = formulas()
    assert len(items) > 600  # all three languages and index.html's English
    bad = [(name, src, why) for (name, src, _d), m in zip(items, mathml(items)) for why in wrong_arity(m)]
    assert bad == [], bad[:10]


@pytest.mark.parametrize("src", [r"p_{\min}", r"q_{\max}"])
def test_the_check_sees_katexs_operator_subscripts(src):
    """The check can fail: KaTeX's MathML for an operator-name subscript is what Firefox refuses."""
    assert wrong_arity(mathml([("", src, False)])[0])
