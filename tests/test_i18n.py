"""The page's three languages, checked without a browser: every text file has every key, the
same live numbers, arguments and plural forms that exist; index.html's English is en.txt's; every
key the code names exists; Russian and Vietnamese leave no English behind."""
import re
from pathlib import Path

import pytest

from decodelab_tools import texts

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
TEXT = {lang: texts.load(lang) for lang in texts.LANGS if (WEB / "i18n" / f"{lang}.txt").exists()}
OTHER = [lang for lang in texts.LANGS if lang != "en"]


def test_every_language_has_its_file():
    assert sorted(TEXT) == sorted(texts.LANGS)


@pytest.mark.parametrize("lang", OTHER)
def test_every_language_has_exactly_englishs_keys(lang):
    en, other = TEXT["en"], TEXT.get(lang, {})
    missing = [k for k in en if k not in other]
    extra = [k for k in other if k not in en]
    assert not missing, f"{lang}.txt lacks {len(missing)} keys, e.g. {missing[:12]}"
    assert not extra, f"{lang}.txt has keys English does not: {extra[:12]}"


@pytest.mark.parametrize("lang", OTHER)
def test_each_entry_shows_the_same_numbers_and_arguments(lang):
    en, other = TEXT["en"], TEXT.get(lang, {})
    bad = []
    for k, v in other.items():
        if k not in en:
            continue
        if texts.live_keys(v) != texts.live_keys(en[k]):
            bad.append(f"{k}: live numbers {texts.live_keys(v)} vs English {texts.live_keys(en[k])}")
        if texts.arg_names(v) != texts.arg_names(en[k]):
            bad.append(f"{k}: arguments {sorted(texts.arg_names(v))} vs English {sorted(texts.arg_names(en[k]))}")
        if sorted(re.findall(r'data-t="([^"]+)"', v)) != sorted(re.findall(r'data-t="([^"]+)"', en[k])):
            bad.append(f"{k}: the texts it includes differ from English's")
    assert not bad, "\n".join(bad[:20])


@pytest.mark.parametrize("lang", texts.LANGS)
def test_plural_choices_use_the_languages_categories(lang):
    bad = {k: texts.plural_problems(v) for k, v in TEXT.get(lang, {}).items() if texts.plural_problems(v)}
    assert not bad, bad


def test_russian_counts_have_all_four_forms_where_english_has_a_plural():
    """ru needs one/few/many (1 токен, 2 токена, 5 токенов): a plural choice with fewer forms would
    write one of them wrong."""
    bad = []
    for k, v in TEXT.get("ru", {}).items():
        for m in texts.ARG.finditer(v):
            if m.group(2):
                forms = {f.split(":", 1)[0] for f in m.group(2)[1:].split("|")}
                if not {"one", "few", "many"} <= forms:
                    bad.append(f"{k}: {m.group(0)}")
    assert not bad, bad


def test_the_text_format_rejects_what_would_lose_text():
    with pytest.raises(texts.TextFileError):
        texts.parse("@a\none\n@a\ntwo\n")
    with pytest.raises(texts.TextFileError):
        texts.parse("stray text\n@a\none\n")
    assert texts.parse("## note\n@a\n\n  two lines\nhere\n\n@b\n and \n") == {"a": "  two lines\nhere", "b": " and "}


def test_page_template_carries_en_txt_exactly():
    """en.txt is the one source of the English; the build writes it into page.html, the template
    of the three built pages (first paint needs no fetch). A commit that edits one without the
    other fails here."""
    html = (WEB / "page.html").read_text(encoding="utf-8")
    assert texts.sync_index(html, TEXT["en"]) == html, "run `python3 build.py` to sync page.html from en.txt"
    used = texts.index_keys(html)
    assert used <= set(TEXT["en"])
    # every paragraph of the article has a key (text outside one could not change language)
    body = re.sub(r"<script.*?</script>|<pre.*?</pre>|<code>.*?</code>", "", html, flags=re.S)
    for m in re.finditer(r"<(p|li|h[1-4])\b([^>]*)>", body):
        assert "data-t=" in m.group(2), f"a <{m.group(1)}> without data-t: {body[m.start():m.start() + 120]}"


KEY_LITERAL = re.compile(r"""(?<![\w$`.])["']((?:w[123]|ui|boot|fmt|err|quiz|file|page|ch[123])\.[a-z0-9_.-]*[a-z0-9_])["']""")


def test_every_key_the_page_code_names_exists():
    en = TEXT["en"]
    missing = []
    for f in sorted((WEB / "js").rglob("*.js")):
        if "bench" in f.parts or f.name.endswith(".bundle.js"):  # the build's bundle repeats the sources
            continue
        for m in KEY_LITERAL.finditer(f.read_text(encoding="utf-8")):
            key = m.group(1)
            if key not in en and not any(k.startswith(key + ".") for k in en) and f"data-live" not in key:
                missing.append(f"{f.relative_to(ROOT)}: {key}")
    # live-number keys (ch1.head.top1_p) are not text keys: they live in data-live attributes
    missing = [m for m in missing if not re.search(r": ch[123]\.[a-z0-9_-]+(\.[a-z0-9_-]+)*$", m)]
    assert not missing, missing[:30]


def test_every_python_message_key_exists_in_every_language():
    raised = set()
    for f in (ROOT / "py_src" / "decodelab").rglob("*.py"):
        src = f.read_text(encoding="utf-8")
        raised |= set(re.findall(r"""(?:InputError|SamplerError|super\(\).__init__)\(\s*f?["']([a-z0-9_]+)["']""", src))
    raised.discard("key")
    assert raised, "no InputError keys found: the pattern is stale"
    for lang, d in TEXT.items():
        missing = sorted(k for k in raised if f"err.{k}" not in d)
        assert not missing, f"{lang}: err.* missing for {missing}"


def test_python_messages_are_keys_not_sentences():
    """An InputError carries a key; an English sentence there would reach a Russian reader."""
    bad = []
    for f in (ROOT / "py_src" / "decodelab").rglob("*.py"):
        for m in re.finditer(r"""raise (?:InputError|SamplerError)\(\s*(f?["'][^"']*["'])""", f.read_text(encoding="utf-8")):
            if " " in m.group(1) or m.group(1).startswith("f"):
                bad.append(f"{f.name}: {m.group(1)}")
    assert not bad, bad


def test_the_language_lists_agree():
    boot = (WEB / "js" / "boot.js").read_text()
    i18n = (WEB / "js" / "i18n.js").read_text()
    lists = [re.search(r"LANGS = (\[[^\]]*\])", s).group(1).replace('"', "'") for s in (boot, i18n)]
    want = str(list(texts.LANGS))
    assert lists == [want, want]
    for lang in texts.LANGS:
        assert f'hreflang="{lang}"' in (WEB / "index.html").read_text()


ENGLISH = re.compile(r"\b(the|and|of|with|which|that|this|is|are|from|for|when|what|into|than|only|one|two|each)\b")


def reader_words(value: str) -> str:
    """What a reader reads of an entry, less what stays English in every language: code and
    tokens, formulas, live numbers (filled later), the model's own prompts and stories in quotes,
    and the names of journals in references (<cite>)."""
    v = re.sub(r"<code>.*?</code>|<cite>.*?</cite>|<span class=\"math\">.*?</span>|<span class=\"live\"[^>]*>.*?</span>", " ", value, flags=re.S)
    v = re.sub(r"<[^>]+>", " ", v)
    v = re.sub(r"\{[a-zA-Z_]\w*\||\|?\b(zero|one|two|few|many|other):|\{[a-zA-Z_]\w*\}", " ", v)  # {args}, plural forms
    v = re.sub(r"\\[a-zA-Z]+|[{}_^]", " ", v)
    return re.sub(r"[\"“«„][^\"”»“]*[\"”»“]", " ", v)


@pytest.mark.parametrize("lang", OTHER)
def test_no_english_left_in_russian_and_vietnamese(lang):
    left = {}
    for k, v in TEXT.get(lang, {}).items():
        words = ENGLISH.findall(reader_words(v))
        if words:
            left[k] = words[:5]
    assert not left, f"{len(left)} {lang} entries still hold English words: {dict(list(left.items())[:15])}"


def test_russian_text_is_russian():
    cyr = sum(len(re.findall(r"[а-яё]", reader_words(v).lower())) for v in TEXT.get("ru", {}).values())
    lat = sum(len(re.findall(r"[a-z]", reader_words(v).lower())) for v in TEXT.get("ru", {}).values())
    assert cyr > 5 * lat, (cyr, lat)


def test_every_endpoint_the_page_calls_has_a_name_for_the_stop_bar():
    """A call that runs long is named in the Stop bar (ui.endpoint.FN); one without a name would
    read "a calculation", which tells the reader nothing."""
    src = "".join(f.read_text() for f in (ROOT / "py_src" / "decodelab").glob("*.py"))
    names = set(re.findall(r"@endpoint\s+def ([a-z0-9_]+)", src))
    internal = {"ping", "load_models"} | {n for n in names if n.startswith("bench_")}
    missing = sorted(n for n in names - internal if f"ui.endpoint.{n}" not in TEXT["en"])
    assert names and not missing, missing


def test_the_decimal_marks_table_is_what_intl_writes():
    """i18n.js keeps each language's decimal mark in a table (the page's first Intl.NumberFormat
    costs a long task's worth of number data at mount); it must be the mark Intl writes."""
    import json
    import subprocess

    url = (ROOT / "web" / "js" / "i18n.js").as_uri()
    js = (f"import({json.dumps(url)}).then(m => console.log(JSON.stringify(Object.fromEntries(m.LANGS.map((l) => "
          "[l, [m.DECIMAL_MARKS[l], new Intl.NumberFormat(l).formatToParts(1.5).find((p) => p.type === 'decimal').value]])))))")
    got = json.loads(subprocess.run(["node", "-e", js], check=True, capture_output=True, text=True).stdout)
    assert set(got) == {"en", "ru", "vi"}
    assert all(table == intl for table, intl in got.values()), got


def test_fixed_and_plain_write_numbers_as_intl_does():
    """i18n.js writes fixed, plain and significant-digit numbers itself (the page's first
    Intl.NumberFormat is a long task on a phone): in each language, hundreds of values at 0-6
    decimals (1-6 significant digits, whole without groups), ties (1.005, 999.995),
    signs of what rounds to zero, digit groups and tiny values must read exactly as Intl writes them."""
    import json
    import subprocess

    url = (ROOT / "web" / "js" / "i18n.js").as_uri()
    js = f"""import({json.dumps(url)}).then((m) => {{
      const vals = [0, -0, 1, -1, 0.5, 1.5, 2.5, 1.005, 0.125, -0.001, 999.995, 1234, 12345, 123456.789,
        1234567.891, 1e-7, -1e-7, 8.66e-7, 0.1 + 0.2, 99.95, 9.995, 0.0049, 4294967295, 1e20, 1e22, 5e-324, NaN, Infinity];
      let seed = 7;
      const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (let i = 0; i < 300; i++) vals.push((rand() - 0.3) * 10 ** Math.floor(rand() * 9 - 4));
      const bad = [];
      for (const l of m.LANGS) {{
        m.useText(l, {{}});
        for (const x of vals) for (const d of [0, 1, 2, 3, 4, 6]) {{
          const got = [m.fixed(x, d), m.plain(x, d)];
          const want = [new Intl.NumberFormat(l, {{ minimumFractionDigits: d, maximumFractionDigits: d }}).format(x),
            new Intl.NumberFormat(l, {{ maximumFractionDigits: d }}).format(x)];
          if (d === 0) {{
            got.push(m.ungrouped(x));
            want.push(new Intl.NumberFormat(l, {{ useGrouping: false, maximumFractionDigits: 0 }}).format(x));
          }} else {{
            got.push(m.precision(x, d));
            want.push(new Intl.NumberFormat(l, {{ maximumSignificantDigits: d }}).format(x));
          }}
          if (got.some((g, i) => g !== want[i])) bad.push([l, x, d, got, want]);
        }}
      }}
      console.log(JSON.stringify({{ n: vals.length, bad: bad.slice(0, 10) }}));
    }})"""
    got = json.loads(subprocess.run(["node", "-e", js], check=True, capture_output=True, text=True).stdout)
    assert got["n"] > 300 and not got["bad"], got["bad"]
