"""The page's text files, web/i18n/LANG.txt: one per language, every word the page shows.

CPython only (the build and the tests); the page reads the JSON the build makes from them.

Format: a line "@key" starts an entry, and the lines up to the next "@key" are its text (HTML is
allowed; leading and trailing blank lines are dropped, inner line breaks kept: HTML folds them).
Lines starting "##" are comments. Keys are lowercase dotted names: ch1.p3, w.sp.draw1, err.gamma.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

LANGS = ("en", "ru", "vi")  # the first is the language page.html (the template) is written in
KEY = re.compile(r"^@([a-z0-9][a-z0-9_.-]*)\s*$")
# {name} or {name|one:…|other:…}: the argument names a text uses (the page's i18n.js fills them)
ARG = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)(\|[^{}]*)?\}")
PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")  # CLDR's categories


class TextFileError(ValueError):
    pass


def parse(text: str, name: str = "text") -> dict[str, str]:
    """The entries of one text file, in file order. A duplicate key or text before the first key
    is an error (a silent overwrite would hide a lost paragraph)."""
    out: dict[str, str] = {}
    key, buf = None, []

    def close():
        if key is not None:
            out[key] = "\n".join(buf).strip("\n")

    for i, line in enumerate(text.split("\n"), 1):
        if line.startswith("##"):
            continue
        m = KEY.match(line)
        if m:
            close()
            key, buf = m.group(1), []
            if key in out:
                raise TextFileError(f"{name}:{i}: key {key} appears twice")
        elif key is None:
            if line.strip():
                raise TextFileError(f"{name}:{i}: text before the first @key")
        else:
            buf.append(line.rstrip("\r"))
    close()
    return out


def web_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "web"


def load(lang: str, root: Path | None = None) -> dict[str, str]:
    path = (root or web_dir()) / "i18n" / f"{lang}.txt"
    return parse(path.read_text(encoding="utf-8"), path.name)


def arg_names(value: str) -> set[str]:
    value = re.sub(r"\\[a-zA-Z]+\s*\{[^{}]*\}", "", value)  # TeX's \text{otherwise} is not an argument
    return {m.group(1) for m in ARG.finditer(value)}


def live_keys(value: str) -> list[str]:
    """The live numbers a piece of prose shows, in order (each language shows the same ones)."""
    return sorted(re.findall(r'data-live="([^"]+)"', value))


def plural_problems(value: str) -> list[str]:
    """Plural choices whose forms are not CLDR categories, or that lack "other" (every
    language has it, so a number the rules did not foresee still gets a form)."""
    bad = []
    for m in ARG.finditer(value):
        if not m.group(2):
            continue
        forms = [f.split(":", 1)[0] for f in m.group(2)[1:].split("|")]
        if any(f not in PLURAL_FORMS for f in forms) or "other" not in forms:
            bad.append(m.group(0))
    return bad


def to_json(entries: dict[str, str]) -> str:
    return json.dumps(entries, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


# ---- page.html (the template of index*.html) carries the English inline (first paint needs no fetch); en.txt is its source --
# An element with data-t="KEY" holds en[KEY]; an attribute data-t-NAME="KEY" means the attribute
# NAME holds en[KEY] (aria-label, title, placeholder).
BLOCK = re.compile(r'(<([a-z0-9]+)\b[^>]*\bdata-t="([^"]+)"[^>]*>)(.*?)(</\2>)', re.S)
ATTR = re.compile(r'\bdata-t-([a-z-]+)="([^"]+)"')


def sync_index(html: str, en: dict[str, str]) -> str:
    """page.html with every data-t element's content (and data-t-NAME attribute) set from en."""
    def block(m):
        key = m.group(3)
        if key not in en:
            raise TextFileError(f"page.html uses key {key}, which en.txt lacks")
        return m.group(1) + en[key] + m.group(5)

    def attrs(tag: str) -> str:
        for name, key in ATTR.findall(tag):
            if key not in en:
                raise TextFileError(f"page.html uses key {key}, which en.txt lacks")
            val = en[key].replace("&", "&amp;").replace('"', "&quot;")
            tag = re.sub(rf'(\s){name}="[^"]*"', lambda mm: f'{mm.group(1)}{name}="{val}"', tag, count=1)
        return tag

    html = BLOCK.sub(block, html)
    return re.sub(r"<[a-z][^<>]*\bdata-t-[a-z-]+=[^<>]*>", lambda m: attrs(m.group(0)), html)


def index_keys(html: str) -> set[str]:
    return {m.group(3) for m in BLOCK.finditer(html)} | {k for _, k in ATTR.findall(html)}
