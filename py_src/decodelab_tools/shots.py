"""`python3 build.py shots`: screenshots of the built page for reviewers (CPython only).

The first screen and then each chapter screen by screen, at a phone's width (390 px) and a
desktop's (1440 px), in the light and the dark theme (the system's preference, as a reader's
browser would state it), after the engine is ready and every widget has mounted and been seen.
Written to build/shots/WIDTH-THEME[-LANG]/NN-WHERE.png, with index.txt listing them.
"""
from __future__ import annotations

from pathlib import Path

from .browser import guarded_page, open_ready, served_browser

WIDTHS = {390: 844, 1440: 900}
THEMES = ("light", "dark")
# a reader's scroll: each widget is seen once, so that it fills before it is photographed
SEE_ALL = """async () => {
  for (const w of document.querySelectorAll('.widget, figure.diagram')) {
    w.scrollIntoView({ block: 'center' });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await new Promise((r) => setTimeout(r, 120));
  }
  window.scrollTo(0, 0);
  return true;
}"""


def take(web: Path, out: Path, lang: str = "en", widths=WIDTHS, themes=THEMES, log=print) -> list[Path]:
    files = []
    with served_browser(web) as (browser, site):
        for width, height in widths.items():
            for theme in themes:
                folder = out / (f"{width}-{theme}" + ("" if lang == "en" else f"-{lang}"))
                folder.mkdir(parents=True, exist_ok=True)
                ctx, pg = guarded_page(browser, site, viewport={"width": width, "height": height},
                                       color_scheme=theme, is_mobile=width < 600, has_touch=width < 600)
                try:
                    open_ready(pg, f"/?lang={lang}")
                    pg.evaluate(SEE_ALL)
                    pg.wait_for_timeout(500)
                    shots = [("00-first-screen", 0)]
                    for ch in ("ch1", "ch2", "ch3"):
                        top, bottom = pg.evaluate("""(id) => { const r = document.getElementById(id).getBoundingClientRect();
                            return [r.top + scrollY, r.bottom + scrollY]; }""", ch)
                        y, i = top, 0
                        while y < bottom:
                            shots.append((f"{ch}-{i:02d}", y))
                            y += height - 60  # a little overlap: nothing falls between two shots
                            i += 1
                    for name, y in shots:
                        pg.evaluate("(y) => window.scrollTo(0, y)", y)
                        pg.wait_for_timeout(150)
                        f = folder / f"{name}.png"
                        pg.screenshot(path=str(f))
                        files.append(f)
                    log(f"[shots] {folder.name}: {len(shots)} screens")
                finally:
                    ctx.close()
    (out / "index.txt").write_text("\n".join(str(f.relative_to(out)) for f in files) + "\n")
    return files
