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
MATH = re.compile(r'<(span|div) class="(math|math-block)"[^>]*>(.*?)</\1>', re.S)


DISPLAY_KEY = re.compile(r"\.math\d+$")  # a display formula's text entry (index.html: <div class="math-block">)


def formulas():
    """(where, TeX, display) for every formula of index.html and of each language's text."""
    from decodelab_tools import texts

    from decodelab_tools import mathrender

    template = (WEB / "page.html").read_text(encoding="utf-8")  # the TeX (the served pages carry it typeset)
    blocks = mathrender.display_keys(template)
    found = [("page.html", html.unescape(src), kind == "math-block") for _t, kind, src in MATH.findall(template)]
    for lang in texts.LANGS:
        for key, value in texts.load(lang, WEB).items():
            if key in blocks or DISPLAY_KEY.search(key):
                found.append((f"{lang}:{key}", html.unescape(value), True))
            else:
                found += [(f"{lang}:{key}", html.unescape(src), kind == "math-block") for _t, kind, src in MATH.findall(value)]
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
    # every language has its formulas, and the same display formulas as the English
    counts = {lang: [d for where, _s, d in items if where.startswith(lang)] for lang in ("page.html", "en:", "ru:", "vi:")}
    assert all(len(c) > 200 for c in counts.values()), {k: len(c) for k, c in counts.items()}
    assert sum(counts["en:"]) == sum(counts["ru:"]) == sum(counts["vi:"]) > 0
    bad = [(name, src, why) for (name, src, _d), m in zip(items, mathml(items)) for why in wrong_arity(m)]
    assert bad == [], bad[:10]


@pytest.mark.parametrize("src", [r"p_{\min}", r"q_{\max}"])
def test_the_check_sees_katexs_operator_subscripts(src):
    """The check can fail: KaTeX's MathML for an operator-name subscript is what Firefox refuses."""
    assert wrong_arity(mathml([("", src, False)])[0])
