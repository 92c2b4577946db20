"""The build: one pinned compiler, reproducible bytes, and relaxed SIMD only where it is exact."""
import json
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, WEB

from decodelab import builds
from decodelab_tools.wasmscan import RELAXED_DOT, WasmFormatError, check_relaxed_use, relaxed_instructions, simd_opcodes

sys.path.insert(0, str(ROOT))
import build  # noqa: E402  (build.py at the top of the repo)


@pytest.mark.parametrize("b", builds.ALL, ids=lambda b: b.name)
def test_shipped_kernels_hold_only_the_allowed_relaxed_instruction(b):
    used = relaxed_instructions((WEB / "kernels" / f"{b.name}.wasm").read_bytes())
    if b is builds.RELAXED:
        assert set(used) == {RELAXED_DOT}  # present (the fast path uses it) and alone
    else:
        assert not used


def _wat_module(body: str) -> bytes:
    import wasmtime

    return wasmtime.wat2wasm(f"""(module (memory 1)
      (func (export "f") (param v128 v128 v128) (result v128) {body}))""")


def test_the_scanner_finds_relaxed_instructions_among_others():
    # immediates that look like opcodes (a v128.const full of 0xFD bytes, memargs, lanes) must not fool it
    wasm = _wat_module("""
      (drop (v128.const i8x16 -3 -3 -3 -3 -3 -3 -3 -3 -3 -3 -3 -3 -3 -3 -3 -3))
      (drop (i32x4.extract_lane 3 (local.get 0)))
      (drop (v128.load offset=253 (i32.const 0)))
      (drop (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2)))
      (drop (f32x4.relaxed_max (local.get 0) (local.get 1)))
      (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get 0) (local.get 1) (local.get 2))""")
    used = relaxed_instructions(wasm)
    assert used == {"f32x4.relaxed_madd": 1, "f32x4.relaxed_max": 1, RELAXED_DOT: 1}
    assert simd_opcodes(wasm)[0x0C] == 1  # v128.const counted once, its 0xFD bytes skipped
    with pytest.raises(WasmFormatError, match="relaxed_madd"):
        check_relaxed_use("x.wasm", wasm, frozenset({RELAXED_DOT}))
    with pytest.raises(WasmFormatError):
        check_relaxed_use("x.wasm", _wat_module("(i32x4.relaxed_dot_i8x16_i7x16_add_s "
                                                "(local.get 0) (local.get 1) (local.get 2))"), frozenset())


def test_a_kernel_compiled_with_contraction_would_be_caught(tmp_path):
    """What the fresh machine hit: clang 22 with -mrelaxed-simd and contraction allowed turns
    a*b+c on dl_f4 into relaxed_madd. The same source under our flags has none."""
    cc, _ = build.wasm_compiler()
    out = tmp_path / "m.wasm"
    src = ROOT / "kernels"
    subprocess.run([*cc, "-O3", "-g0", "-ffreestanding", "-nostdlib", "-Wl,--no-entry", "-Wl,--export-dynamic",
                    "-msimd128", "-mrelaxed-simd", "-ffp-contract=fast",
                    "-I", src, src / "model.c", src / "matvec.c", src / "logits.c",
                    "-o", out], check=True, capture_output=True)
    wrong = relaxed_instructions(out.read_bytes())
    # The pragma in fastmath.h still keeps relaxed_madd out here, but -mrelaxed-simd on whole
    # files lets clang pick relaxed_min/max (23 and 4 sites with clang 22), which is why only
    # matvec_relaxed.c gets the flag. Before the pragma this also gave 52 madd + 8 nmadd.
    assert "f32x4.relaxed_madd" not in wrong
    assert set(wrong) - {RELAXED_DOT}, wrong


@pytest.mark.slow  # compiles every kernel twice, about 10 s
def test_two_clean_builds_give_the_same_kernel_bytes(tmp_path):
    outs = []
    for name in ("one", "two-other-folder"):
        root = tmp_path / name
        shutil.copytree(ROOT / "kernels", root / "kernels")
        build.compile_kernels(root, root / "out", root / "obj")
        outs.append({p.name: p.read_bytes() for p in sorted((root / "out").glob("*.wasm"))})
    assert outs[0].keys() == {f"{b.name}.wasm" for b in builds.ALL}
    assert outs[0] == outs[1]
    shipped = {p.name: p.read_bytes() for p in sorted((WEB / "kernels").glob("*.wasm"))}
    assert shipped == outs[0]  # and the same as the site's (built from this checkout)


def test_the_page_zip_holds_exactly_the_page_package():
    """decodelab.zip is py_src/decodelab, every module with its .pyc, and nothing else: what the
    page runs follows from the package (no list of files to leave out)."""
    import zipfile

    shipped = sorted(zipfile.ZipFile(WEB / "wheels" / build.PACKAGE_ZIP).namelist())
    pkg = ROOT / "py_src"
    want = sorted(n for f in (pkg / "decodelab").rglob("*.py") for n in
                  (str(f.relative_to(pkg)), str(f.relative_to(pkg).with_suffix(".pyc"))))
    assert shipped == want
    assert not list((WEB / "wheels").glob("decodelab-*.whl"))


def test_build_info_records_the_compiler_and_every_builds_flags():
    info = json.loads((WEB / "build-info.json").read_text())
    kb = info["kernel_builds"]
    assert "clang version" in kb["compiler"]["version"]
    assert "-ffp-contract=off" in kb["common_flags"]
    assert set(kb["builds"]) == {b.name for b in builds.ALL}
    for b in builds.ALL:
        assert kb["builds"][b.name]["flags"] == list(b.flags)
    assert kb["builds"]["kernel_relaxed"]["relaxed_instructions"] == {RELAXED_DOT: 4}
    assert [n for n, _ in info["kernel_order"]] == [b.name for b in builds.PAGE_FALLBACK_ORDER]


def test_the_compiler_is_the_pinned_one_unless_named(monkeypatch):
    monkeypatch.delenv("DECODELAB_CC", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # a system clang on PATH must not matter
    cc, about = build.wasm_compiler()
    assert cc[:3] == [sys.executable, "-m", "ziglang"]
    assert about["compiler"] == "ziglang (PyPI)"


def test_the_pages_python_zips_are_reproducible(tmp_path):
    """The package zip (and the .pyc in it) is the same bytes when built again."""
    import zipfile

    a, b = tmp_path / "a.zip", tmp_path / "b.zip"
    src = tmp_path / "src.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr(zipfile.ZipInfo("pkg/m.py", date_time=(1980, 1, 1, 0, 0, 0)), "def f():\n    return 42\n")
    build.compile_python_zip(src, a, "/lib/x.zip", keep_source=True)
    build.compile_python_zip(src, b, "/lib/x.zip", keep_source=True)
    assert a.read_bytes() == b.read_bytes()
    assert zipfile.ZipFile(a).namelist() == ["pkg/m.py", "pkg/m.pyc"] or sorted(zipfile.ZipFile(a).namelist()) == ["pkg/m.py", "pkg/m.pyc"]
    assert all(n.endswith(".pyc") or not n.endswith(".py") for n in zipfile.ZipFile(WEB / "pyodide" / "python_stdlib.zip").namelist())


def test_build_info_describes_the_snapshot_it_ships():
    """The snapshot's record: made by this Pyodide, over the stdlib zip and the package zip the
    page loads with it (the worker checks the package; Pyodide checks the build id)."""
    import gzip
    import hashlib
    import re

    info = json.loads((WEB / "build-info.json").read_text())
    snap = info["snapshot"]
    web_pyodide = (WEB / "pyodide" / "pyodide.mjs").read_text()
    assert re.search(r'BUILD_ID:"%s"' % snap["pyodide_build_id"], web_pyodide)
    digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()[:16]  # noqa: E731
    assert snap["stdlib_sha256"] == digest(WEB / snap["stdlib"])
    assert snap["package_sha256"] == info["package_sha256"] == digest(WEB / "wheels" / "decodelab.zip")
    # the file holds the memory's pages that are not all zeros, run after run (the worker puts
    # them back at their offsets in a zeroed buffer): the runs are in order, page-aligned, apart
    packed = gzip.decompress((WEB / snap["file"]).read_bytes())
    runs = snap["runs"]
    assert sum(n for _, n in runs) == len(packed) < snap["memory_bytes"]
    assert all(at % 4096 == 0 and at + n <= snap["memory_bytes"] for at, n in runs)
    assert all(a + n < b for (a, n), (b, _) in zip(runs, runs[1:]))
    mem = bytearray(snap["memory_bytes"])
    src = 0
    for at, n in runs:
        mem[at:at + n] = packed[src:src + n]
        src += n
    # Pyodide's header holds the build id at bytes 16-48, as eight little-endian 32-bit words
    words = bytes.fromhex(snap["pyodide_build_id"])
    assert mem[16:48] == b"".join(words[i:i + 4][::-1] for i in range(0, 32, 4))


def _bundled(bundle: str) -> dict:
    """A bundle's modules (path under js/ -> text) from its source map; none edited since."""
    smap = json.loads((WEB / (bundle + ".map")).read_text(encoding="utf-8"))
    bundled = {src.split("js/", 1)[-1]: text for src, text in zip(smap["sources"], smap["sourcesContent"])}
    stale = [name for name, text in bundled.items() if (WEB / "js" / name).read_text(encoding="utf-8") != text]
    assert not stale, f"edited after the last build: {stale} (run python3 build.py build)"
    return bundled


def test_the_page_loads_one_bundle_built_from_every_module_main_imports():
    """index.html's one module script is the build's bundle (the ~40 modules, one request), named
    by boot.js's tag and loaded by it after the first paint (no module tag of its own), made from
    the modules as they are now (its source map holds each one's text) and holding every module
    main.js imports; the worker is a bundle of its own, which the page starts."""
    import re

    html = (WEB / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<script\b[^>]*>', html) == [f'<script src="js/boot.min.js" data-main="{build.BUNDLE}">']
    bundled = _bundled(build.BUNDLE)
    imported = set(re.findall(r'from "\./([\w/.-]+\.js)"', (WEB / "js" / "main.js").read_text()))
    assert imported and imported | {"main.js"} <= set(bundled), imported - set(bundled)
    worker_file = build.WORKER_BUNDLE.split("/")[-1]
    assert "worker.js" not in bundled and f"./{worker_file}" in (WEB / build.BUNDLE).read_text(encoding="utf-8")
    assert f'"{build.WORKER_BUNDLE}"' in (WEB / "js" / "boot.js").read_text(encoding="utf-8")


def test_the_pages_link_one_stylesheet_made_of_the_templates_stylesheets():
    """The served page links css/site.css alone (and nojs.css inside <noscript>): every class the
    template's stylesheets define is in it, every font or image it names exists where the url
    now points, and no comment is left in it or in the page's head; boot.min.js is boot.js's
    code (its data attribute and the worker's name survive minification)."""
    import re
    from decodelab_tools import stylesheet

    template = (WEB / "page.html").read_text(encoding="utf-8")
    sources = stylesheet.sources(template)
    assert len(sources) >= 3 and "css/style.css" in sources
    for page in ("index.html", "index.ru.html", "index.vi.html"):
        head = (WEB / page).read_text(encoding="utf-8").split("</head>")[0]
        assert re.findall(r'<link rel="stylesheet" href="([^"]+)"', head) == [stylesheet.SITE_CSS, "css/nojs.css"]
        assert "<!--" not in head
    site = (WEB / stylesheet.SITE_CSS).read_text(encoding="utf-8")
    assert "/*" not in site
    for src in sources:
        classes = set(re.findall(r"\.([a-zA-Z][\w-]*)\s*[{,:\[ >]", re.sub(r"/\*.*?\*/", "", (WEB / src).read_text(encoding="utf-8"), flags=re.S)))
        missing = {c for c in classes if f".{c}" not in site}
        assert not missing, (src, sorted(missing)[:10])
    urls = [u for u in re.findall(r"url\(([^)#][^)]*)\)", site) if not u.startswith("data:")]
    assert any(u.endswith(".woff2") for u in urls)
    for u in urls:
        assert (WEB / "css" / u.strip("'\"")).resolve().is_file(), u
    boot = (WEB / stylesheet.BOOT_MIN).read_text(encoding="utf-8")
    assert len(boot) < len((WEB / stylesheet.BOOT_SRC).read_text(encoding="utf-8")) / 2
    assert "data-main" in boot or "dataset.main" in boot or ".main" in boot
    assert f'"{build.WORKER_BUNDLE}"' in boot


def test_the_worker_is_one_file_holding_each_of_its_parts_and_none_of_pyodide():
    """The worker starts its first download at once only if it has no static imports to wait
    for: worker.bundle.js holds worker.js and every part in worker/, and Pyodide's own modules
    are left to load as files."""
    bundled = _bundled(build.WORKER_BUNDLE)
    parts = {f"worker/{p.name}" for p in (WEB / "js" / "worker").glob("*.js")}
    assert parts and {"worker.js", "jsmatvec.js"} | parts <= set(bundled), parts - set(bundled)
    assert not [name for name in bundled if "pyodide" in name]
    text = (WEB / build.WORKER_BUNDLE).read_text(encoding="utf-8")
    assert "../pyodide/pyodide.mjs" in text and "../pyodide/pyodide.asm.mjs" in text


def test_the_readme_gives_servers_the_pages_own_policy():
    """The README's header lines for nginx, Apache and Caddy carry the very policy the page
    declares (web/page.html's <meta>), so a server configured from them cannot drift from it."""
    import re

    page = (ROOT / "web" / "page.html").read_text(encoding="utf-8")
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(csp) == 3 and "worker-src 'self' blob:" in csp


def test_the_offline_list_names_every_file_a_visit_may_fetch():
    """build-info.json's "offline" list (the service worker's cache, web/sw.js): every file the
    engine's worker is told to fetch, under the same URL, the three pages and the bundles; no
    source map, template or text source; the build id changes with any listed file."""
    import json

    info = json.loads((WEB / "build-info.json").read_text())
    files = set(info["offline"]["files"])
    named = []

    def walk(v):
        if isinstance(v, str) and "?v=" in v:
            named.append(v)
        elif isinstance(v, dict):
            [walk(x) for x in v.values()]
        elif isinstance(v, list):
            [walk(x) for x in v]
    walk({k: v for k, v in info.items() if k != "offline"})
    assert named and set(named) <= files
    assert {"./", "index.html", "index.ru.html", "index.vi.html", "js/main.bundle.js", "js/worker.bundle.js",
            "js/boot.min.js", "css/site.css", "build-info.json", "pyodide/pyodide.asm.wasm.gz", info["micropip"]} <= files
    assert not [f for f in files if f.endswith((".map", ".txt")) or f in ("page.html", "sw.js", "pyodide/pyodide.asm.wasm")]
    assert all((WEB / f.split("?")[0]).exists() for f in files if f != "./")
    assert len(info["offline"]["build"]) == 16


@pytest.mark.parametrize("page", ["index.html", "index.ru.html", "index.vi.html"])
def test_the_served_pages_carry_every_formula_typeset(page):
    """mathrender.py: each formula of the article is KaTeX's MathML in the served page (and in the
    language's JSON), with its TeX kept in data-tex and not again in an annotation, and no HTML
    rendering beside it (it was half the page); no style attribute (the CSP refuses them): any
    size KaTeX writes is a class of css/math.css, and every class used is defined there."""
    import re

    html = (WEB / page).read_text(encoding="utf-8")
    assert not re.search(r'<span class="math">|<div class="math-block">', html)  # none left as TeX
    assert html.count("<math") > 200 and html.count("data-tex=") > 200
    # each <math> straight inside its formula's element: no wrapper that draws nothing
    assert 'class="katex"' not in html
    assert html.count("<math") == len(re.findall(r'(?:<span class="math" data-tex="[^"]*">|<div class="math-block"[^>]*>)<math', html))
    assert "katex-html" not in html and "<annotation" not in html and "mathvariant=\"double-struck\"" not in html
    assert ' style="' not in html
    css = (WEB / "css" / "math.css").read_text()
    defined = set(re.findall(r"^\.(kx\w+)\{", css, re.M))
    used = set(re.findall(r"\b(kx[0-9a-f]{8})\b", html))
    assert used <= defined
    lang = {"index.html": "en", "index.ru.html": "ru", "index.vi.html": "vi"}[page]
    entries = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert entries["ch1.math3"].startswith("<math") and ' style="' not in json.dumps(entries)


def test_katex_wrappers_that_draw_nothing_are_dropped_and_the_rest_kept():
    """mathrender.unwrapped: the katex span, an empty <semantics> and a <mrow> that is <math>'s only
    child go; a <mrow> beside others, or one closed before the end, stays."""
    from decodelab_tools.mathrender import unwrapped

    k = lambda inner, attrs="": f'<span class="katex"><math{attrs}>{inner}</math></span>'
    assert unwrapped(k("<semantics><mrow><mi>p</mi></mrow></semantics>")) == "<math><mi>p</mi></math>"
    assert unwrapped(k("<mrow><mi>a</mi></mrow><mrow><mi>b</mi></mrow>", ' display="block"')) == \
        '<math display="block"><mrow><mi>a</mi></mrow><mrow><mi>b</mi></mrow></math>'
    assert unwrapped(k("<mrow><mrow><mi>a</mi></mrow><mo>=</mo></mrow>")) == "<math><mrow><mi>a</mi></mrow><mo>=</mo></math>"
    kept = k("<semantics><mi>x</mi><annotation>x</annotation></semantics>")
    assert unwrapped(kept) == kept


def test_the_math_face_has_every_glyph_the_formulas_show():
    """The math face is STIX Two Math cut to our formulas (mathrender.write_math_face): it keeps
    its MATH table (the browser's MathML layout reads its constants and stretched sizes), has a
    glyph for every character of every served formula, the math italic letters a single-letter
    identifier is drawn in, and is a small part of the whole font."""
    import html as html_lib
    import re

    from fontTools.ttLib import TTFont

    from decodelab_tools import mathrender

    face = WEB / "vendor" / "stix-two-math"
    (woff2,) = face.glob("stix-two-math-*.woff2")
    assert re.search(r"font-family: 'STIX Two Math'.*url\(\./%s\)" % re.escape(woff2.name), (face / "fonts.css").read_text())
    font = TTFont(woff2)
    assert "MATH" in font
    cmap = font.getBestCmap()
    shown = set()
    for page in ("index.html", "index.ru.html", "index.vi.html"):
        for m in re.findall(r"<math\b.*?</math>", (WEB / page).read_text(encoding="utf-8"), re.S):
            shown.update(html_lib.unescape(re.sub(r"<[^>]+>", "", m)))
    words = {c for c in shown if c.isalpha() and not ("a" <= c.lower() <= "z" or "\u0370" <= c <= "\u03ff")}
    missing = {c for c in shown - words if ord(c) not in cmap and not c.isspace()}
    assert not missing, missing  # words in \text{} may be Cyrillic or Vietnamese: the text face draws them
    assert all(cp in cmap for cp in (0x1D45D, 0x1D6FE, 0x1D6FC))  # math italic p, gamma, alpha
    whole = (ROOT / "node_modules" / mathrender.MATH_FONT_PACKAGE / mathrender.MATH_FONT_FILE).stat().st_size
    assert woff2.stat().st_size < whole / 4


def test_the_text_face_holds_every_character_of_each_page():
    """The text face is cut to the site's characters (textface.py): every character of each
    language's served text (its page's words and its JSON's entries) and every character our
    tokens decode to is in the cut file whose unicode-range claims it, so no letter of the
    article falls back to another face."""
    import html as html_lib
    import json
    import re
    from fontTools.ttLib import TTFont
    from decodelab_tools import textface

    face = WEB / "vendor" / "source-serif-4"
    css = (face / "fonts.css").read_text()
    ranges = []
    for block in re.findall(r"@font-face\s*{([^}]*)}", css):
        if "font-style: normal" not in block:
            continue
        src = re.search(r"url\(\./files/([^)]+)\)", block).group(1)
        spans = []
        for part in re.search(r"unicode-range:\s*([^;]+);", block).group(1).split(","):
            a, _, b = part.strip()[2:].partition("-")
            spans.append((int(a, 16), int(b or a, 16)))
        ranges.append((spans, set(TTFont(face / "files" / src).getBestCmap())))
    assert len(ranges) >= 3
    chars = set(textface._token_chars(ROOT / "models" / "tokenizer.json"))
    for lang in ("en", "ru", "vi"):
        page = (WEB / ("index.html" if lang == "en" else f"index.{lang}.html")).read_text(encoding="utf-8")
        body = re.sub(r"<(script|style|math|svg)\b.*?</\1>", " ", page.split("<body", 1)[1], flags=re.S)
        chars |= set(html_lib.unescape(re.sub(r"<[^>]+>", " ", body)))
        entries = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
        text = "".join(v for v in entries.values() if isinstance(v, str))
        chars |= set(html_lib.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<math\b.*?</math>", " ", text, flags=re.S))))
    missing = []
    for c in sorted(chars):
        cp = ord(c)
        if cp < 0x20 or 0x7F <= cp < 0xA0 or c.isspace():  # control characters draw nothing in any face
            continue
        claimed = [cmap for spans, cmap in ranges if any(a <= cp <= b for a, b in spans)]
        if claimed and not any(cp in cmap for cmap in claimed):
            missing.append(f"U+{cp:04X} {c}")
    assert not missing, missing[:20]


def test_first_frame_cells_merge_into_paths_only_where_the_picture_stays_the_same():
    """firstframes.compact draws a run of plain rectangles as one path per look; where rectangles
    of two looks overlap it keeps their order (merging only where no other look overlaps), and a
    rectangle with more than a place, a size and a look stays an element."""
    from decodelab_tools.firstframes import compact

    r = lambda x, y, look, extra="": f'<rect x="{x}" y="{y}" width="5" height="5"{extra} class="{look}"></rect>'
    apart = compact("<svg>" + r(0, 0, "a") + r(6, 0, "b") + r(12, 0, "a") + "</svg>")
    assert apart == '<svg><path d="M0,0h5v5h-5zM12,0h5v5h-5z" class="a"/><rect x="6" y="0" width="5" height="5" class="b"/></svg>'
    over = compact("<svg>" + r(0, 0, "a") + r(2, 0, "b") + r(4, 0, "a") + "</svg>")
    assert "<path" not in over and over.index('x="0"') < over.index('x="2"') < over.index('x="4"')
    kept = compact("<svg>" + r(0, 0, "a") + r(2, 0, "a") + r(1, 0, "b") + "</svg>")
    assert kept.index('<path d="M0,0h5v5h-5zM2,0h5v5h-5z" class="a"/>') < kept.index('x="1"')
    # an outline over the cells before it splits the run: cells merge on each side of it, and it
    # stays over the ones before it (the KV figure's newest row)
    ring = '<rect x="0" y="0" width="18" height="5" class="o"></rect>'
    split = compact("<svg>" + r(0, 0, "a") + r(6, 0, "b") + r(12, 0, "a") + ring + r(20, 0, "a") + r(26, 0, "b") + r(32, 0, "a") + "</svg>")
    assert split.count('class="a"') == 2 and split.count("<path") == 2
    assert split.index('M0,0h5v5h-5zM12,0h5v5h-5z') < split.index('class="o"') < split.index('M20,0h5v5h-5zM32,0h5v5h-5z')
    rounded = compact("<svg>" + r(0, 0, "a", ' rx="2"') + r(6, 0, "a", ' rx="2"') + "</svg>")
    assert "<path" not in rounded and rounded.count("<rect") == 2
    # cells of one size whose look gives its colour as --cell (the KV tables) become strokes as
    # wide as a cell, from each cell's top down its height: the same pixels, half the bytes
    cells = compact("<svg>" + r(0, 0, "kv-cell kv-t1") + r(6.5, 10, "kv-cell kv-t1") + "</svg>")
    assert cells == '<svg><path d="M2.5,0v5M9,10v5" stroke-width="5" class="as-stroke kv-cell kv-t1"/></svg>'
    odd = compact("<svg>" + r(0, 0, "kv-cell kv-t1") + r(6, 0, "kv-cell kv-t1").replace('width="5"', 'width="4"') + "</svg>")
    assert "stroke-width" not in odd  # cells of two sizes keep their outlines
