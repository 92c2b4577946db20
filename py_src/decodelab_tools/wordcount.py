"""How long the article is: words (and characters) per chapter and language, main line vs asides.

    .venv/bin/python -m decodelab_tools.wordcount          # a table
    .venv/bin/python -m decodelab_tools.wordcount --json   # the same, for a script

The structure comes from the template web/page.html (which keys sit in which chapter, and whether
inside an aside, a <details> the reader opens, or a widget); the words come from each language's
text file, so the three languages are counted over the same keys. A live number counts as one word.
Widget labels, quizzes, figures (captions included), tables, reference lists and the page's machinery (boot line, notices) are
not prose and not counted.
"""
from __future__ import annotations

import argparse
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from decodelab_tools import texts

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
ZONES = ("main", "aside")


class _Structure(HTMLParser):
    """Each data-t key of the article with its part (intro, ch1..ch3) and zone (main, aside, widget)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str | None, str | None]] = []  # (tag, part, zone) per open element
        self.keys: list[tuple[str, str, str]] = []

    def _context(self) -> tuple[str | None, str | None]:
        part = zone = None
        for _, p, z in self.stack:
            part = p or part
            zone = z if z == "widget" or zone is None else zone
        return part, zone

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        part = zone = None
        if tag == "section" and re.fullmatch(r"ch\d", a.get("id") or ""):
            part = a["id"]
        elif tag == "header" and a.get("id") != "boot":
            part = "intro"
        # not prose: widgets, the page's machinery, reference lists and tables
        if ("widget" in classes or tag in ("noscript", "table", "figure") or a.get("id") in ("boot",)
                or "notice" in classes or "refs" in classes):
            zone = "widget"
        elif tag == "details" or "aside" in classes:
            zone = "aside"
        outer_part, outer_zone = self._context()
        key = a.get("data-t")
        if key and (part or outer_part):
            self.keys.append((key, part or outer_part, zone or outer_zone or "main"))
        if tag not in VOID:
            self.stack.append((tag, part, zone))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return


def structure(page_html: str) -> list[tuple[str, str, str]]:
    p = _Structure()
    p.feed(page_html)
    return [k for k in p.keys if k[2] != "widget"]


def plain(value: str) -> str:
    value = re.sub(r'<span class="live"[^>]*>.*?</span>', " N ", value, flags=re.S)
    value = re.sub(r"<[^>]+>", " ", value)
    value = re.sub(r"\{[a-zA-Z_]\w*(\|[^{}]*)?\}", " N ", value)
    return re.sub(r"&[a-z]+;|&#\d+;", " ", value)


def count(root: Path | None = None) -> dict:
    """{lang: {part: {zone: {"words": n, "chars": n}}}} plus a "total" part."""
    web = root or texts.web_dir()
    keys = structure((web / "page.html").read_text(encoding="utf-8"))
    out: dict = {}
    for lang in texts.LANGS:
        entries = texts.load(lang, web)
        table: dict = {}
        for key, part, zone in keys:
            text = plain(entries.get(key, ""))
            for p in (part, "total"):
                cell = table.setdefault(p, {z: {"words": 0, "chars": 0} for z in ZONES})[zone]
                cell["words"] += len(text.split())
                cell["chars"] += len(" ".join(text.split()))
        out[lang] = table
    return out


def numbers_in(value: str) -> int:
    """How many numbers a reader meets in one text: each live value, each display formula (one
    for the whole formula), each inline formula holding a numeral (one each) and each numeral
    written in the text."""
    n = len(re.findall(r'<span class="math-block">.*?</span>', value, flags=re.S))
    value = re.sub(r'<span class="math-block">.*?</span>', " ", value, flags=re.S)
    n += len(re.findall(r'data-live="', value))
    # an inline formula with a numeral in it reads as one quantity (1/(1-α), T = 0{,}5)
    inline = re.findall(r'<span class="math">.*?</span>', value, flags=re.S)
    n += sum(1 for f in inline if re.search(r"\d", f))
    value = re.sub(r'<span class="math">.*?</span>', " ", value, flags=re.S)
    value = re.sub(r'<span class="live"[^>]*>.*?</span>', " ", value, flags=re.S)
    value = value.replace("{,}", ",")  # TeX's decimal comma (ru, vi): one number, not two
    # the page's arguments ({n}, {n|one:# token|…}) hold no number; TeX's braces (^{20}) do
    value = re.sub(r"<[^>]+>|\{[A-Za-z_][\w.]*(?:\|[^{}]*)?\}", " ", value)
    # a thousands group after a no-break space (ru: 4\u00a0000) is the same number
    return n + len(re.findall(r"(?<![\w.])\d+(?:[.,]\d+|[\u00a0\u202f]\d{3}\b)*", value))


def dense_paragraphs(root: Path | None = None, lang: str = "en", limit: int = 3) -> dict[str, int]:
    """The main-line texts (not asides, widgets, tables or figures) with more than `limit` numbers
    (issue 41: at most three a paragraph), {key: how many}."""
    web = root or texts.web_dir()
    entries = texts.load(lang, web)
    keys = [k for k, part, zone in structure((web / "page.html").read_text(encoding="utf-8")) if zone == "main"]
    counts = {k: numbers_in(entries[k]) for k in keys if k in entries}
    return {k: n for k, n in counts.items() if n > limit}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = count()
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'':6} {'part':6} {'main words':>10} {'main chars':>10} {'aside words':>11} {'aside chars':>11}")
    for lang, table in result.items():
        for part in sorted(table, key=lambda p: (p == "total", p != "intro", p)):
            m, a = table[part]["main"], table[part]["aside"]
            print(f"{lang:6} {part:6} {m['words']:>10} {m['chars']:>10} {a['words']:>11} {a['chars']:>11}")


if __name__ == "__main__":
    main()
