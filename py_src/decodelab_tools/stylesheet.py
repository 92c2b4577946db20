"""What the first paint waits for, made small: one minified stylesheet and a minified boot script.

The template (web/page.html) links its stylesheets one by one, in the order the cascade needs:
the text face, the math face, KaTeX's sizes, the first frames' classes, the page's own style.
Those files stay the sources. The served pages link one file instead, `css/site.css`: the same
files joined in the same order, each `url(...)` rewritten to point where it pointed from its own
folder, minified by esbuild (npm, pinned; the tool that already bundles our scripts).
`boot.js`, the one script in the head, is served minified beside its source as `boot.min.js`.

Why: the first paint needs the HTML, the styles and the text face before anything shows. On a
phone's link (Lighthouse's mobile preset, a plain static server with no compression) the five
stylesheets were five requests, 56 KB with their comments and spaces (40 KB joined and
minified), and the boot script carried 6 KB of comments. Nothing else about the page changes.
"""
from __future__ import annotations

import posixpath
import re
import subprocess
from pathlib import Path

SITE_CSS = "css/site.css"
BOOT_SRC, BOOT_MIN = "js/boot.js", "js/boot.min.js"

# a stylesheet link of the head on a line of its own (the one inside <noscript> starts otherwise
# and stays: it applies only without scripts, and only then is it fetched)
_LINK = re.compile(r'^<link rel="stylesheet" href="([^"]+)">\n', re.M)
_URL = re.compile(r'url\(\s*([\'"]?)([^\'")]+)\1\s*\)')
_COMMENT = re.compile(r"<!--.*?-->\n?", re.S)


def sources(template: str) -> list[str]:
    """The stylesheets the template links, in cascade order (paths under web/)."""
    return _LINK.findall(template)


def _rebased(css: str, href: str) -> str:
    """`css` (the file at web/`href`) with each relative url() made relative to css/ instead."""
    here = posixpath.dirname(href)

    def move(m: re.Match) -> str:
        url = m.group(2)
        if url.startswith(("#", "data:", "/")) or "://" in url:
            return m.group(0)
        target = posixpath.normpath(posixpath.join(here, url))
        return f"url({posixpath.relpath(target, posixpath.dirname(SITE_CSS))})"

    return _URL.sub(move, css)


def joined(web: Path, hrefs: list[str]) -> str:
    """The linked files in order, their urls rebased; a file the build has not written yet (the
    first frames' classes, on a first build) is left out until the next call."""
    parts = []
    for href in hrefs:
        f = web / href
        if f.exists():
            parts.append(f"/* {href} */\n" + _rebased(f.read_text(encoding="utf-8"), href))
    return "\n".join(parts)


def minify(text: str, loader: str, esbuild: str) -> str:
    return subprocess.run([esbuild, f"--loader={loader}", "--minify", "--log-level=warning"],
                          input=text, capture_output=True, text=True, check=True).stdout


def write(web: Path, template: str, esbuild: str) -> bool:
    """css/site.css and js/boot.min.js from their sources; True if either changed."""
    changed = False
    for out, text in ((SITE_CSS, minify(joined(web, sources(template)), "css", esbuild)),
                      (BOOT_MIN, minify((web / BOOT_SRC).read_text(encoding="utf-8"), "js", esbuild))):
        path = web / out
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed = True
    return changed


def relink(html: str) -> str:
    """A served page from the template's head: one stylesheet, the minified boot script, and
    none of the template's comments (they are for whoever edits the template)."""
    first = True

    def one(m: re.Match) -> str:
        nonlocal first
        keep, first = first, False
        return f'<link rel="stylesheet" href="{SITE_CSS}">\n' if keep else ""

    html = _LINK.sub(one, html)
    html = html.replace(f'<script src="{BOOT_SRC}"', f'<script src="{BOOT_MIN}"', 1)
    return _COMMENT.sub("", html)
