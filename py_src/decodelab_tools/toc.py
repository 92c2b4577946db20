"""The page's contents, written at build time from its own headings (declared once: the headings).

Every chapter (`<section id="chN" class="chapter">` and its `<h2 data-t=KEY>`) and every section
heading at the chapter's own level (`<h3 data-t=KEY>` as a direct child, four spaces in) becomes a
link in `<nav id="toc">`. A section heading gets its id from its text key (ch1.h4 -> "ch1-h4"), so
a link into the page survives an edit of the heading's words. The links carry the headings' keys
(data-t): each language's page writes them in its language, and a language switch rewrites them
with the headings. web/js/toc.js marks the reader's place in it.
"""
from __future__ import annotations

import re

CHAPTER = re.compile(r'<section id="(ch\d+)" class="chapter"[^>]*>\s*<h2 data-t="([^"]+)">')
SECTION = re.compile(r'^    <h3(?: id="[^"]*")? data-t="([^"]+)">', re.M)
BARE = re.compile(r'^    <h3 data-t="([^"]+)">', re.M)
SLOT = '<nav id="toc" class="toc" aria-label="Contents" data-t-aria-label="page.toc"></nav>'
# a chapter's "In short" closes it: not a place to go to
SKIP = re.compile(r"\.sum\.h$")


def section_id(key: str) -> str:
    return key.replace(".", "-").replace("_", "-")


def with_ids(html: str) -> str:
    """Each section heading with its id (from its key); one it already has stays."""
    return BARE.sub(lambda m: f'    <h3 id="{section_id(m.group(1))}" data-t="{m.group(1)}">', html)


def outline(html: str) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """[(chapter id, its title's key, [(section id, its key)])] in page order."""
    starts = [(m.start(), m.group(1), m.group(2)) for m in CHAPTER.finditer(html)]
    out = []
    for i, (at, cid, key) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(html)
        secs = [(section_id(k), k) for k in SECTION.findall(html, at, end) if not SKIP.search(k)]
        out.append((cid, key, secs))
    return out


def nav(html: str) -> str:
    def link(href: str, key: str) -> str:
        return f'<a href="#{href}" data-t="{key}"></a>'
    items = "".join(
        f'<li>{link(cid, key)}<ol>' + "".join(f"<li>{link(sid, k)}</li>" for sid, k in secs) + "</ol></li>"
        for cid, key, secs in outline(html))
    return ('<nav id="toc" class="toc" aria-label="Contents" data-t-aria-label="page.toc"><details>'
            '<summary><span data-t="page.toc"></span> <span class="toc-now" aria-hidden="true"></span></summary>'
            # the top of the page, for a reader 70 screens down ("#top" is the document's top in HTML)
            '<a class="toc-top" href="#top"><span aria-hidden="true">↑ </span><span data-t="page.toc_top"></span></a>'
            f'<ol>{items}</ol></details></nav>')


def fill(html: str) -> str:
    """The template with its section ids and its contents (the slot in page.html filled; the
    links' words come from each language's text, like every data-t element's)."""
    if SLOT not in html:
        raise ValueError(f"page.html has no contents slot: {SLOT}")
    html = with_ids(html)
    return html.replace(SLOT, nav(html), 1)
