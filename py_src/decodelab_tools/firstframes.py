"""Each figure's first frame in the served HTML (issue 43), drawn by the page itself.

The list of figures and the copy's rules live once, in web/js/first-frames.js. This module opens
each language's built page in Debian's Chromium (reduced motion, so every figure shows its whole
last frame), waits until the page's script has drawn each figure from the page's own endpoints,
takes the copy `captureFrame` makes, and writes it into index.html, index.ru.html and
index.vi.html as `<div class="first-frame">`: what a reader without JavaScript sees, and what
every reader sees before the engine (and chapter 3's draft model) has started. The script removes
a copy once it has drawn its own (keepFirstFrame).

A browser at build time, not a DOM in Node: the figures are drawn by their widgets, with their
data from Pyodide, exactly as a reader's browser draws them; there is no second drawing path to
keep in step. Cached under build/cache until the page's scripts, texts, models, kernels or Python
change. Without Chromium (or playwright) the build says so and serves the pages without copies.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from . import texts
from .firstpaint import page_name

WAIT_MS = 180_000  # the slowest figure waits for the draft model and two re-quantizations


BUILT = "__built"  # LANG.json's map of the numbers the build measured (web/js/i18n.js builtNumber)

def inputs_digest(root: Path) -> str:
    web = root / "web"
    files = sorted([*root.glob("models/*.dlm"), *(web / "kernels").glob("*.wasm"), *(root / "py_src" / "decodelab").glob("*.py"),
                    *(p for p in (web / "js").rglob("*.js") if not p.name.endswith(".bundle.js")),
                    *(web / "i18n").glob("*.txt"), web / "page.html", web / "css" / "style.css",
                    Path(__file__)])
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:20]


def measure(pg, langs) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """({lang: {KEY: html}}, {lang: {host: html}}): every measured number of the prose
    (live/registry.js MEASURED), measured once by its widget in this page, then read in each
    language after the page's own switch (the page keeps what it measured and writes it in the new
    language); and in each language the first frames that show a measurement (FIRST_FRAMES'
    `measured`), copied once it is drawn."""
    measured = pg.evaluate("() => import('./js/live/registry.js').then((m) => m.MEASURED)")
    press = pg.evaluate("() => import('./js/first-frames.js').then((m) => m.MEASURE_PRESS)")
    keys = []
    for host, ks in measured.items():
        pg.evaluate("(id) => document.getElementById(id).scrollIntoView({block: 'center'})", host)
        if host in press:
            pg.click(press[host])
        pg.wait_for_function("(ks) => ks.every((k) => k in window.__live.values)", arg=ks, timeout=WAIT_MS)
        keys += ks
    measured_frames = [f for f in pg.evaluate("() => import('./js/first-frames.js').then((m) => m.FIRST_FRAMES)")
                       if f.get("measured")]
    out, frames = {}, {}
    for lang in langs:
        pg.evaluate("""(l) => { document.querySelector(`#lang-switch a[hreflang="${l}"]`).click(); }""", lang)
        pg.wait_for_function("(l) => document.documentElement.lang === l", arg=lang, timeout=WAIT_MS)
        pg.wait_for_timeout(300)
        out[lang] = pg.evaluate("""(ks) => Object.fromEntries(ks.map((k) => [k, document.querySelector(`[data-live="${k}"]`)])
            .filter(([, n]) => n && n.dataset.state === "ok").map(([k, n]) => [k, n.innerHTML]))""", keys)
        frames[lang] = {}
        for f in measured_frames:
            pg.wait_for_function("(sel) => document.querySelector(sel)", arg=f["drawn"], timeout=WAIT_MS)
            html = pg.evaluate("(f) => import('./js/first-frames.js').then((m) => m.captureFrame(f))", f)
            if html:
                note = f'<p class="frame-note">{texts.load(lang)[f["note"]]}</p>' if f.get("note") else ""  # an entry is HTML
                frames[lang][f["host"]] = note + html
    return out, frames


def capture(web: Path, langs) -> dict:
    """{"frames": {lang: {host: html}}, "measured": {lang: {KEY: html}}} from the built site."""
    from .browser import guarded_page, served_browser

    out = {}
    with served_browser(web) as (browser, site):
        for lang in langs:
            ctx, pg = guarded_page(browser, site, viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
            try:
                pg.goto(f"{site}/?lang={lang}&sw=0")
                pg.wait_for_function("() => document.body.dataset.mounted && document.body.dataset.ready", timeout=WAIT_MS)
                frames = pg.evaluate("() => import('./js/first-frames.js').then((m) => m.FIRST_FRAMES)")
                got = {}
                for f in frames:
                    if f.get("measured"):
                        continue  # copied by measure(), once the build has run the widget
                    pg.evaluate("(id) => document.getElementById(id).scrollIntoView({block: 'center'})", f["host"])
                    pg.wait_for_function("(sel) => document.querySelector(sel)", arg=f["drawn"], timeout=WAIT_MS)
                    pg.wait_for_timeout(300)  # a widget's last redraw after its data (the bit-depth runs ring in turn)
                    html = pg.evaluate("(f) => import('./js/first-frames.js').then((m) => m.captureFrame(f))", f)
                    if html:
                        got[f["host"]] = html
                out[lang] = got
                if lang == langs[0]:  # the measurements: once, in the first language's page
                    numbers, measured_frames = measure(pg, langs)
            finally:
                ctx.close()
    for lang, got in measured_frames.items():
        out[lang].update(got)
    return {"frames": out, "measured": numbers}


def frames(root: Path, web: Path, cache: Path, log) -> dict:
    """capture()'s result: from the cache, or captured now; {} without a browser."""
    cached = cache / f"firstframes-{inputs_digest(root)}.json"
    if cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    try:
        import playwright  # noqa: F401
        from .browser import CHROMIUM
        if not Path(CHROMIUM).exists():
            raise ImportError(CHROMIUM)
    except ImportError as e:
        log(f"first frames: no browser to draw them ({e}); the pages' scripts draw the figures")
        return {}
    langs = [lang for lang in texts.LANGS if (web / page_name(lang)).exists()]
    got = capture(web, langs)
    cache.mkdir(parents=True, exist_ok=True)
    for old in cache.glob("firstframes-*.json"):
        old.unlink()
    cached.write_text(json.dumps(got, ensure_ascii=False), encoding="utf-8")
    return got


# SVG geometry as the browser serialises it carries every float's full digits (x="84.91666666666667"):
# a tenth of a pixel is finer than a screen draws a line's place, and the digits were a fifth of
# the copies.
GEOMETRY = re.compile(r'\b(x|y|x1|x2|y1|y2|cx|cy|r|rx|ry|width|height|d|points|transform|viewBox)="([^"]*)"')
LONG_NUMBER = re.compile(r"-?\d+\.\d{2,}")


# an SVG shape with nothing inside, written <rect .../> (the HTML parser closes it so in SVG):
# 7 bytes less on each of the ~1,000 shapes of a page's first frames
EMPTY_SHAPE = re.compile(r"<(rect|circle|line|path|ellipse|polyline|polygon|use|stop)\b([^<>]*)></\1>")


# A run of plain rectangles (a grid of cells: the KV tables' 300, the race's staircase) drawn as
# one <path> per look: the copy is what a reader sees before the script draws, and what a reader
# without scripts keeps, so only the picture must be the same; the script draws its own elements,
# which the stepper and the tests address one by one. A rectangle with anything more than a place,
# a size and a look (rounded corners, data, a title inside) stays an element.
RECT = re.compile(r'<rect x="(-?[\d.]+)" y="(-?[\d.]+)" width="([\d.]+)" height="([\d.]+)"'
                  r'((?: (?:class|fill|fill-opacity|stroke|stroke-width|opacity)="[^"]*")*)/>')
RECT_RUN = re.compile(r"(?:%s){2,}" % RECT.pattern.replace("(", "(?:").replace("(?:?:", "(?:"))


# the looks whose colour is a custom property a stroke can take (style.css: .as-stroke)
STROKABLE = re.compile(r'class="[^"]*\bkv-cell\b')


def _merged_rects(run: str) -> str:
    rects = [(float(x), float(y), float(w), float(h), look) for x, y, w, h, look in RECT.findall(run)]

    def overlap(a, b):
        return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]

    # Rectangles are grouped into one path per look within segments where no two rectangles of
    # different looks overlap: inside one the order of painting does not matter; a rectangle that
    # overlaps another look's (an outline over a row of cells) starts the next segment, so the
    # order across segments is kept. (Falling back to runs of one look for the whole run, as
    # before, left the KV figure's 1,152 cells mostly single: 84 KB of the English page.)
    groups, segment = [], []

    def close():
        for look in dict.fromkeys(r[4] for r in segment):
            groups.append((look, [r for r in segment if r[4] == look]))
        segment.clear()

    for r in rects:
        if any(r[4] != o[4] and overlap(r, o) for o in segment):
            close()
        segment.append(r)
    close()
    num = lambda v: f"{v:.1f}".rstrip("0").rstrip(".")

    def drawn(look, rs):
        if len(rs) == 1:
            x, y, w, h, _ = rs[0]
            return f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}"{look}/>'
        # cells of one size whose look declares its colour as --cell (style.css: the KV tables):
        # each a vertical stroke as wide as the cell, 13 bytes where the outline took 25 (the
        # KV figure's 1,152 cells were a tenth of the English page)
        if STROKABLE.search(look) and len({(w, h) for _, _, w, h, _ in rs}) == 1:
            w, h = rs[0][2], rs[0][3]
            d = "".join(f"M{x + w / 2:.1f},{num(y)}v{num(h)}".replace(".0,", ",") for x, y, _, _, _ in rs)
            stroked = look.replace(' class="', ' class="as-stroke ', 1)
            return f'<path d="{d}" stroke-width="{num(w)}"{stroked}/>'
        return f'<path d="{"".join(f"M{num(x)},{num(y)}h{num(w)}v{num(h)}h-{num(w)}z" for x, y, w, h, _ in rs)}"{look}/>'

    return "".join(drawn(look, rs) for look, rs in groups)


def compact(copy: str) -> str:
    """A first frame's copy with its SVG geometry rounded to tenths of a pixel, its empty
    shapes self-closed and its runs of plain rectangles drawn as paths."""
    def attr(m):
        value = LONG_NUMBER.sub(lambda n: f"{float(n.group(0)):.1f}".rstrip("0").rstrip("."), m.group(2))
        return f'{m.group(1)}="{value}"'
    out = EMPTY_SHAPE.sub(r"<\1\2/>", GEOMETRY.sub(attr, copy))
    return RECT_RUN.sub(lambda m: _merged_rects(m.group(0)), out)


def insert(html: str, copies: dict[str, str]) -> str:
    """The page with each copy written into its host: a figure's before its .diagram-body, a
    widget's after its title (the script moves it below the controls it adds)."""
    for host, copy in copies.items():
        div = f'<div class="first-frame">{compact(copy)}</div>'
        m = re.search(rf'<(figure|div)\b[^>]*\bid="{re.escape(host)}"[^>]*>', html)
        if not m:
            raise ValueError(f"first frames: no element with id {host} in the page")
        if m.group(1) == "figure":
            at = html.index('<div class="diagram-body">', m.end())
        else:  # after the card's title, where it has one
            title = re.compile(r'<h3 class="widget-title"[^>]*>.*?</h3>').match(html, m.end())
            at = title.end() if title else m.end()
        html = html[:at] + div + html[at:]
    return html


def fill_measured(html: str, numbers: dict[str, str]) -> str:
    """The page with each measured number's placeholder replaced by what the build measured,
    marked (data-built) until the reader's browser measures its own; the page's script gives
    them their title (live.js titleBuilt), not fifty copies of one sentence in the HTML."""
    def one(m):
        key = m.group("key")
        if key not in numbers:
            return m.group(0)
        return f'{m.group("open")[:-1]} data-built="">{numbers[key]}</span>'

    return re.sub(r'(?P<open><span\b[^>]*\bdata-live="(?P<key>[^"]+)"[^>]*>)(?P<body>[^<]*)</span>', one, html)
