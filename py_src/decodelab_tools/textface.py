"""The text face (Source Serif 4, variable weight, from npm @fontsource-variable/source-serif-4)
cut to the characters the site can show.

fontsource splits the face by script (latin, latin-ext, cyrillic, greek, vietnamese...), and the
browser fetches a file only for the scripts a page uses. The files still hold every letter of their
script: the Latin one 51 KB, the Greek one 20 KB for the two or three Greek letters our prose has.
A page uses the face from a reader's second visit on (web/js/faces.js); then, and without scripts,
the first paint asks for these files (font-display optional: used only if in within about 100 ms),
so their size is bytes a phone's link carries early (Lighthouse's mobile LCP: 3.2 s whole, 3.0 s
cut, 2.6 s with no face at all).

What the site can show: every text of every language (web/i18n/*.txt and the template), printable
ASCII, the punctuation block and the numbers' signs and superscripts (separators, ×, −, 10⁻¹¹,
typed input), and every
character a token of our tokenizer decodes to (the model's words). A character outside the cut,
in a prompt the reader types, is drawn by the next face of the font stack; the file's
unicode-range is unchanged, so nothing else about the page moves. fontTools' subsetter keeps the
variation tables, so every weight stays.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

# printable ASCII, the no-break space, the punctuation block, ×, the minus sign and the superscript
# digits the page's numbers are written with (1.0 × 10⁻¹¹), whatever number the reader's input
# makes, and the arrows the page's own markup draws (the contents' "↑ Back to the top", toc.py)
ALWAYS = [(0x20, 0x7E), (0xA0, 0xA0), (0xB2, 0xB3), (0xB9, 0xB9), (0xD7, 0xD7), (0x2000, 0x206F),
          (0x2070, 0x207F), (0x2190, 0x2193), (0x2212, 0x2212), (0xFFFD, 0xFFFD)]


def _token_chars(tokenizer_json: Path) -> set[str]:
    """The characters our tokenizer's tokens decode to (byte-level BPE: each vocab entry spells
    bytes with GPT-2's byte-to-character table)."""
    from decodelab.tokenizer import _bytes_to_unicode

    back = {c: b for b, c in _bytes_to_unicode().items()}
    model = json.loads(tokenizer_json.read_text(encoding="utf-8"))["model"]
    chars: set[str] = set()
    for tok in model["vocab"]:
        if all(c in back for c in tok):
            chars.update(bytes(back[c] for c in tok).decode("utf-8", errors="ignore"))
    return chars


def site_characters(root: Path) -> list[int]:
    web = root / "web"
    text = "".join(p.read_text(encoding="utf-8") for p in sorted((web / "i18n").glob("*.txt")))
    text += (web / "page.html").read_text(encoding="utf-8")
    used = {ord(c) for c in text} | {ord(c) for c in _token_chars(root / "models" / "tokenizer.json")}
    used |= {cp for a, b in ALWAYS for cp in range(a, b + 1)}
    return sorted(cp for cp in used if cp >= 0x20)


def cut(files: list[Path], out: Path, root: Path, package_json: Path, stamp: Path) -> bool:
    """Each woff2 of `files` into `out` (same name) holding only `site_characters`; skipped when
    the same characters were cut from the same package before (its key kept in `stamp`, outside
    the site). True if it cut."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    cps = site_characters(root)
    key = hashlib.sha256(json.dumps(cps).encode() + package_json.read_bytes()
                         + "".join(sorted(f.name for f in files)).encode()).hexdigest()[:16]
    if stamp.exists() and stamp.read_text() == key and all((out / f.name).exists() for f in files):
        return False
    out.mkdir(parents=True, exist_ok=True)
    for f in files:
        opts = subset.Options()
        opts.flavor = "woff2"
        opts.layout_features = ["*"]  # ligatures, kerning, figures: the face as designed
        opts.notdef_outline = True
        font = TTFont(f)
        sub = subset.Subsetter(opts)
        sub.populate(unicodes=cps)
        sub.subset(font)
        font.save(out / f.name)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key)
    return True
