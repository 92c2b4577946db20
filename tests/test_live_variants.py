"""Every verdict a live slot can take reads right in the paragraph around it, in every language
(issue 41 item 4). The slots whose words come from the reader's run (which side of the ridge our
kernel falls on, whether speculation paid, how acceptance spread) and the entry each value shows
are declared once, in web/js/live/words.js VERDICTS, which the widgets pick from; this test reads
that table with Node and renders each value of each group in place, all the group's slots at once
(they are driven by one value), as the page would, then reads the seams: a clause that goes on a
sentence starts in lower case and one that starts a sentence in upper case, no stop or comma
doubled, no word said twice across the seam ("ranged over range"), and a verdict shown on its own
(the widget's badge) is a whole sentence."""
from __future__ import annotations

import functools
import html
import json
import re
import subprocess

import pytest

from conftest import WEB
from decodelab_tools import texts

LIVE = re.compile(r'<span class="live" data-live="([^"]+)">…</span>')
SAMPLE_ARGS = {"lo": "0.55", "hi": "0.70"}
SAMPLE_NUMBER = "0.5"
# words that keep their capital mid-sentence
PROPER = re.compile(r"^(GPU|CPU|H100|Python|WebAssembly|SIMD)\b")


@functools.cache
def verdicts() -> dict:
    url = (WEB / "js" / "live" / "words.js").as_uri()
    js = (f"import({json.dumps(url)}).then(m => console.log(JSON.stringify({{ verdicts: m.VERDICTS, "
          "sides: [0.5, 0.79, 0.8, 0.81, 1, 1.24, 1.25, 1.26, 2].map((r) => [r, m.side(r)]) })))")
    return json.loads(subprocess.run(["node", "-e", js], check=True, capture_output=True, text=True).stdout)


def plain(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


def variant_text(entries: dict, key: str) -> str:
    text = entries[key]
    for name, value in SAMPLE_ARGS.items():
        text = text.replace("{" + name + "}", value)
    assert "{" not in text, (key, text)
    return plain(text)


def renderings(lang: str):
    """(group, value, paragraph key, rendered paragraph, [(variant, before, after)]) for every
    value of every group, in each paragraph that holds one of the group's slots."""
    entries = texts.load(lang, WEB)
    for group, slots in verdicts()["verdicts"].items():
        values = next(iter(slots.values())).keys()
        for value in values:
            for pkey, para in entries.items():
                here = [s for s in LIVE.findall(para) if s in slots]
                if not here:
                    continue
                seams, out, pos = [], [], 0
                for m in LIVE.finditer(para):
                    out.append(para[pos:m.start()])
                    slot = m.group(1)
                    if slot in slots and slots[slot][value] is not None:
                        words = variant_text(entries, slots[slot][value])
                        out.append("\x00" + words + "\x01")
                    else:
                        out.append(SAMPLE_NUMBER)
                    pos = m.end()
                out.append(para[pos:])
                rendered = plain("".join(out))
                for m in re.finditer("\x00(.*?)\x01", rendered):
                    before = rendered[:m.start()].replace("\x00", "").replace("\x01", "").rstrip()
                    after = rendered[m.end():].replace("\x00", "").replace("\x01", "").lstrip()
                    seams.append((m.group(1), before, after))
                yield group, value, pkey, rendered.replace("\x00", "").replace("\x01", ""), seams


def test_every_verdict_entry_is_declared_in_the_one_table():
    """Every w3.live.* and w3.ls.verdict.* entry is reachable from VERDICTS (so the rendering test
    below sees it), every slot it names is in every language's prose, the page's template (a table cell) or is a badge, and a side of
    a ridge is judged the same for every slot it drives."""
    v = verdicts()
    used = {k for slots in v["verdicts"].values() for by_value in slots.values() for k in by_value.values() if k}
    en = texts.load("en", WEB)
    assert {k for k in en if k.startswith(("w3.live.", "w3.ls.verdict."))} == used
    for lang in texts.LANGS:
        entries = texts.load(lang, WEB)
        assert used <= set(entries)
        in_prose = {s for text in [*entries.values(), (WEB / "page.html").read_text()] for s in LIVE.findall(text)}
        for slots in v["verdicts"].values():
            for slot in slots:
                assert slot.startswith("badge:") or slot in in_prose, (lang, slot)
    sides = dict(map(tuple, v["sides"]))
    assert sides[0.5] == sides[0.8] == "right" and sides[1] == sides[0.81] == sides[1.24] == "close"
    assert sides[1.25] == sides[2] == "left"


@pytest.mark.parametrize("lang", texts.LANGS)
def test_each_verdict_reads_right_in_its_paragraph(lang):
    entries = texts.load(lang, WEB)
    problems, seen = [], set()
    for group, value, pkey, rendered, seams in renderings(lang):
        seen.add((group, value))
        for words, before, after in seams:
            where = f"{pkey} [{group} = {value}]: …{before[-40:]} ⟦{words}⟧ {after[:40]}…"
            starts_sentence = not before or before[-1] in ".!?"
            first = words[0]
            if first.isalpha() and not PROPER.match(words):
                if starts_sentence and not first.isupper():
                    problems.append(f"starts a sentence in lower case: {where}")
                if not starts_sentence and first.isupper():
                    problems.append(f"a capital in mid-sentence: {where}")
            if words[-1] in ".!?" and after and not (after[0].isupper() or after[0].isdigit()):
                problems.append(f"a whole sentence that the text goes on: {where}")
            if words[-1] in ".,;:" and after[:1] in (".", ",", ";", ":"):
                problems.append(f"doubled punctuation: {where}")
            if lang != "vi":  # Vietnamese words are syllables: a shared start is no repetition
                tail = re.findall(r"\w+", before.lower())[-2:]
                head = re.findall(r"\w+", words.lower())[:1]
                if head and len(head[0]) >= 5 and any(w[:5] == head[0][:5] for w in tail):
                    problems.append(f"a word said twice across the seam: {where}")
    for group, slots in verdicts()["verdicts"].items():
        for slot, by_value in slots.items():
            if slot.startswith("badge:"):
                for value, key in by_value.items():
                    text = variant_text(entries, key)
                    if not (text[0].isupper() and text[-1] in ".!"):
                        problems.append(f"a badge that is not a sentence: {slot} = {value}: {text}")
                continue
            for value in by_value:
                assert (group, value) in seen, (group, value, slot)
    assert not problems, "\n".join(problems)
