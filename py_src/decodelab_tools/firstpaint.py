"""The article's first paint: the pinned live numbers written into the HTML at build time.

build.py's step_firstpaint calls `numbers()`: node/firstpaint.mjs runs the page's live-number
registry (web/js/live/registry.js) against the page's Python endpoints in CPython
(endpoint_server.py: the shipped kernel and models) and formats every number in every language
with the page's own code. `fill_entries` writes them into each language's text (the JSON the page
loads, so a language switch shows them at once) and `page_for` makes each language's index page
from web/page.html, so the served HTML reads whole before any script runs, and without scripts.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

from . import spec_gen, texts

# <span … data-live="KEY" …>…</span>: the text files write every live number this way (a <div>
# for a live value that holds spans of its own: the opening figure's story)
SPAN = re.compile(r'(?P<open><(?P<tag>span|div)\b[^>]*\bdata-live="(?P<key>[^"]+)"[^>]*>)(?P<body>.*?)(?P<close></(?P=tag)>)', re.S)
PAGE = "page.html"  # the template: web/index.html (en), index.ru.html and index.vi.html are built from it


def page_name(lang: str) -> str:
    return "index.html" if lang == texts.LANGS[0] else f"index.{lang}.html"


def inputs_digest(root: Path) -> str:
    """What the numbers depend on: the models, the kernels, the Python the endpoints run, the
    registry and its formats, and the texts (their words are part of some numbers)."""
    web = root / "web"
    files = sorted([*root.glob("models/*.dlm"), *(web / "kernels").glob("*.wasm"),
                    *(root / "py_src" / "decodelab").glob("*.py"), *(web / "js" / "live").glob("*.js"),
                    *(web / "i18n").glob("*.txt"), web / "js" / "i18n.js", web / "js" / "hardware.js",
                    web / "js" / "cited.js", root / "py_src" / "decodelab_tools" / "node" / "firstpaint.mjs",
                    root / "py_src" / "decodelab_tools" / "endpoint_server.py"])
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:20]


def numbers(root: Path, python: str, entries: dict[str, dict[str, str]], cache: Path) -> dict:
    """{numbers: {lang: {KEY: html}}, when: {...}, pinned: [...], measured: [...]}: computed, or
    from the cache when nothing it depends on has changed."""
    cached = cache / f"firstpaint-{inputs_digest(root)}.json"
    if cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    models = [f"{f.stem}={f}" for f in sorted((root / "models").glob("*.dlm"))]
    with tempfile.TemporaryDirectory() as tmp:
        job, out = Path(tmp) / "job.json", Path(tmp) / "out.json"
        job.write_text(json.dumps({"python": [python, "-m", "decodelab_tools.endpoint_server", *models],
                                   "web": str(root / "web"), "texts": entries}), encoding="utf-8")
        subprocess.run(["node", str(root / "py_src" / "decodelab_tools" / "node" / "firstpaint.mjs"), str(job), str(out)],
                       check=True, cwd=root)
        result = json.loads(out.read_text(encoding="utf-8"))
    cache.mkdir(parents=True, exist_ok=True)
    for old in cache.glob("firstpaint-*.json"):
        old.unlink()
    cached.write_text(json.dumps(result), encoding="utf-8")
    return result


class MissingNumber(ValueError):
    pass


def fill_text(value: str, nums: dict[str, str], when: dict[str, bool], where: str) -> str:
    """One text with its live spans filled and its conditional parts shown or hidden."""
    def span(m):
        key = m.group("key")
        if key not in nums:
            raise MissingNumber(f"{where} shows data-live=\"{key}\", which no source of web/js/live/registry.js "
                                f"computes and no widget there measures")
        return m.group("open") + nums[key] + m.group("close")

    value = SPAN.sub(span, value)
    for cond, shown in when.items():
        attr, val = cond.split("=", 1)
        pattern = re.compile(rf'(<[a-z0-9]+\b[^>]*\b{attr}="{re.escape(val)}")((?:\s+hidden)?)')
        value = pattern.sub(lambda m: m.group(1) + ("" if shown else " hidden"), value)
    return value


def fill_entries(entries: dict[str, str], lang: str, result: dict) -> dict[str, str]:
    nums = result["numbers"][lang]
    return {k: fill_text(v, nums, result["when"], f"{lang}.txt @{k}") for k, v in entries.items()}


def site_base() -> str:
    """Where the site will be served, for the links search engines read (hreflang alternates and
    the canonical link must be absolute URLs for them): $DECODELAB_SITE_URL at build time, e.g.
    https://example.org/decodelab/ . Empty: the links stay relative (the page works the same)."""
    base = os.environ.get("DECODELAB_SITE_URL", "").strip()
    return base if not base or base.endswith("/") else base + "/"


ALTERNATE = re.compile(r'<link rel="alternate" hreflang="([a-z-]+)" href="[^"]*">\n?')
CANONICAL = re.compile(r'<link rel="canonical" href="[^"]*">\n?')


def seo_links(html: str, lang: str, base: str = "") -> str:
    """The language's page names its own URL (canonical) and every language's (hreflang, and
    x-default: English), absolute under `base` where one is given. Written here, once, from
    texts.LANGS: the template's alternates are replaced, whatever they said."""
    links = [f'<link rel="alternate" hreflang="{l}" href="{base}{page_name(l)}">' for l in texts.LANGS]
    links.append(f'<link rel="alternate" hreflang="x-default" href="{base}{page_name(texts.LANGS[0])}">')
    links.append(f'<link rel="canonical" href="{base}{page_name(lang)}">')
    first = ALTERNATE.search(html)
    if not first:
        raise ValueError("page.html has no <link rel=\"alternate\" hreflang=...> to replace")
    html = CANONICAL.sub("", ALTERNATE.sub("", html))  # idempotent: a built page can be re-based
    return html[:first.start()] + "\n".join(links) + "\n" + html[first.start():]


PINNED = "__pinned"  # the key of LANG.json that holds every pinned number by itself


def lang_json(filled: dict[str, str], lang: str, result: dict) -> dict:
    """What web/i18n/LANG.json holds: every entry with its numbers written, and every pinned number
    on its own (under PINNED), for the spans that sit in the page's structure rather than inside
    an entry (table cells): a language switch rewrites those from here (web/js/live.js)."""
    return {**filled, PINNED: result["numbers"][lang]}


def page_for(template: str, lang: str, filled: dict[str, str], result: dict, base: str | None = None) -> str:
    """The language's index page: the template's text in that language, its numbers written, its
    links for search engines (seo_links)."""
    html = texts.sync_index(spec_gen.fill_page(template, filled), filled)
    html = fill_text(html, result["numbers"][lang], result["when"], PAGE)
    if lang != texts.LANGS[0]:
        # a page in its own language: boot.js keeps to it unless the URL asks for another
        html = html.replace('<html lang="en">', f'<html lang="{lang}" data-lang-page>', 1)
    return seo_links(html, lang, site_base() if base is None else base)
