"""Russian grammar around numbers (#41, item 7), checked with pymorphy3, a morphological analyser
made for Russian.

Every Russian text with a number slot is filled with 1, 2, 3, 5, 11, 21, 0,5 and 1,5, and the noun
the number governs must take the form that number requires, or no noun may depend on the number
(«токенов: N», «число раундов — N»). A slot is

- an argument the page fills from JS: `{n}`, or a plural choice `{n|one:# токен|few:# токена|…}`
  (i18n.js picks the form by the CLDR category of the number: 1 and 21 one, 2 and 3 few, 5 and 11
  many, 0,5 and 1,5 other);
- a live number, `<span class="live" data-live="KEY">…</span>`, which the build fills in the format
  web/js/live/number-formats.js gives its key.

What a slot can show decides which of the values it gets (FORMAT_KINDS for the live numbers; for an
argument, the expression the page's code passes, ARG_EXPR_KINDS): whole numbers only (fmtCount:
1 … 21), always decimals (fixed(x, 2): "1,0", "0,5", every value a fraction), either (all eight), a
number with its own noun ("3,94 раза", "4 бита", from a text entry's plural forms), a number with a
unit that does not decline ("12 %", "5,9 млн", "4,2 мс": nothing to check) or words and tokens (no
number: nothing to check).

The rule, per slot and value:
1. The governed word: a plural choice's or a noun format's own noun; otherwise the first word after
   the slot, past opening tags and adjectives or participles («96 жадных токенов»), or such an
   adjective itself where no noun follows («из 10 показанных»). Nothing is governed when the next
   thing is punctuation (a hyphen too: «4-битных»), a closing tag, another slot, a formula, a unit
   that does not decline (%, ×, млн, мс, МиБ, ток/с: what follows depends on the unit), a word
   that says its own number («одним блоком») or any other word that is not a noun.
2. The case of the phrase, from the word just before the slot («примерно», «лишь», «всего» and the
   like skipped): при/об -> prepositional; к -> dative; над/перед/между -> instrumental; из/от/до/
   без/для/у/около/после/вместо/кроме/против/сверх and больше/меньше -> genitive; в/во/на/о ->
   the counting form (accusative) or prepositional; за/под -> counting form or instrumental;
   с/со -> instrumental or genitive; по -> dative with a number whose form is "one" and the
   counting form otherwise («по 1 токену», «по 3 токена»: on each), or the dative («по 3 отложенным
   токенам»: over them); after a noun -> the counting form or the genitive («цена 5 позиций»);
   anything else -> the counting form (nominative/accusative). Where a preposition allows two cases,
   the case is the one in which most of the forms as written agree.
3. The word must be a form pymorphy3 gives for its lexeme with that number in that case: after a
   fraction the genitive singular in any case («0,5 бита», «при 1,5 бита»); in the counting form one
   -> nominative or accusative singular («1 токен», «1 позицию»), few -> genitive singular («3
   токена»), many -> genitive plural («5 токенов», the count form «5 бит»); in any other case
   singular for one, plural otherwise («при 1 бите», «при 3 битах»).
So a live number followed by a fixed noun passes only where its format always shows decimals: a
count carries its noun in a plural choice or a noun format, or the sentence leaves no noun depending
on it.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from decodelab import spec
from decodelab_tools import texts

pymorphy3 = pytest.importorskip("pymorphy3", reason="pymorphy3 (the test extra) checks Russian grammar")

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
RU = texts.load("ru", WEB)
MORPH = pymorphy3.MorphAnalyzer()

# the numbers every slot is filled with, as a Russian reader sees them
VALUES = ["1", "2", "3", "5", "11", "21", "0,5", "1,5"]

# ---- which slots are numbers -----------------------------------------------------------------------
# Live keys that hold words (by their source in registry.js / words.js, not a format) and stand
# before a noun: listed so that the test does not read them as numbers.
WORD_KEYS: dict[str, str] = {
    "ch2.kv.cache_vs_weights": "«примерно того же размера, что и» / «больше, чем» (sizeComparison): the noun after "
                               "it, «веса», is what the cache is compared with",
    "ch2.kv.time_vs_passes": "«меньше, чем» / «больше, чем» (kv-race.js): the noun after it, «выигрыш», is compared",
}
# Live keys whose value comes with its own counted noun but has no format of its own in
# number-formats.js (words.js writes them): the text entry whose first plural choice writes the noun,
# and what the number shows ("int": whole numbers, "dec": always decimals).
NOUN_KEYS = {
    **{f"ch2.bits.{d}_depth.{s}": ("w2.bits.n", "int")
       for d in ("thread", "collapse") for s in spec.SCHEME_NAMES},
    "ch2.bits.cheap_depths.row": ("w2.bits.n", "int"),  # depthList: "8 и 6 бит" (w2.bits.depths, the same forms)
    "ch1.model.heldout": ("w1.live.heldout", "dec"),  # heldoutText: "1,81 ната на токен — …", two decimals
}
# Nouns pymorphy3 reads as another word: the lemma meant (its first noun parse would be wrong).
LEMMAS: dict[str, str] = {
    "голов": "голова",  # «голов внимания»: heads, not goals (гол)
}
# Forms pymorphy3's dictionary lacks: another form of the same word that it does parse.
UNKNOWN_FORMS = {
    "нат": "ната",  # the unit of information (1 нат, 2 ната, 5 нат); pymorphy3 knows only «ната»
}
# The counting form of a unit after a number, the genitive plural without ending («5 нат», as «5 бит»,
# which pymorphy3 has): by lemma, for the units pymorphy3 gives only the full form («натов»).
COUNT_FORMS = {"нат": "нат"}

# What a live number's format shows (number-formats.js, by the name of its format function):
# "int" whole numbers, "dec" always decimals, "any" either; ("noun", ENTRY, digits) a number and its
# noun from ENTRY's plural forms; "unit" a number and an unit that does not decline; "words" no number.
FORMAT_KINDS = {
    "fmtCount": "int", "int": "int", "f3.int": "int", "tps": "int", "String": "int", "f3.fix(0)": "int",
    "two": "dec", "g": "dec", "bits2": "dec", "nats": "dec", "dnats": "dec",
    "plain": "any", "fmtEff": "any", "w": "any", "f3.micro": "any", "fmtBig": "any",
    "fmtTimes": ("noun", "fmt.times", "any"), "times": ("noun", "w2.fmt.times", "any"),
    "fmtNats": ("noun", "fmt.nats", "dec"), "bytes": ("noun", "w2.unit.bytes", "int"),
    "fmtPct": "unit", "fmtShare": "unit", "pct": "unit", "macs": "unit", "gib": "unit", "gb": "unit", "us": "unit",
    "ms2": "unit", "millions": "unit",
    "tok": "words", "toks": "words", "story": "words", "words": "words", "fmtInterval": "words",
    "fmtChance": "words", "parts": "words",
}
DEFAULT_KIND = {"ch1": "any", "ch2": "any", "ch3": "dec", "fig": "words"}  # number-formats.js DEFAULT_FORMAT


def format_kind(expr: str):
    expr = expr.strip().strip('"')
    m = re.fullmatch(r'countOf\("([\w.]+)"\)', expr)  # a count and its noun, from that entry's plural forms
    if m:
        return ("noun", m.group(1), "int")
    m = re.fullmatch(r"(fmtFixed|f3\.fix|f3\.trim|f3\.pct|f3\.range|millions)\((\d+)\)", expr)
    if m:
        name, d = m.group(1), int(m.group(2))
        if name in ("f3.pct", "millions"):
            return "unit"
        if name == "f3.trim":
            return "any"
        return "dec" if d else "int"
    if expr not in FORMAT_KINDS:
        raise AssertionError(f"number-formats.js uses the format {expr!r}, which test_ru_grammar.py does not know: "
                             f"add it to FORMAT_KINDS")
    return FORMAT_KINDS[expr]


def live_formats() -> dict[str, object]:
    """{live key: kind} for every key number-formats.js gives a format."""
    src = (WEB / "js" / "live" / "number-formats.js").read_text(encoding="utf-8")
    out = {}
    for ch in ("CH1", "CH2", "CH3"):
        block = re.search(rf"const {ch} = (.*?)\n}}", src, re.S).group(1)
        for key, expr in re.findall(r'"([A-Za-z0-9_.\-]+)":\s*(countOf\("[\w.]+"\)|"[a-z0-9]+"|[A-Za-z0-9_.]+(?:\(\d+\))?)', block):
            out[f"{ch.lower()}.{key}"] = format_kind(expr)
    for ch, key in re.findall(r'^CH(\d)\["([^"]+)"\]\s*=', src, re.M):
        out[f"ch{ch}.{key}"] = "any"  # a function written in place (kv.cache_over_weights: fixed(x, 2))
    return out


FORMATS = live_formats()


def js_objects(src: str, start: int) -> str:
    """The text of the object literal that opens at src[start] ("{"), braces balanced."""
    depth = 0
    for i in range(start, len(src)):
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        if depth == 0:
            return src[start + 1:i]
    return ""


def top_level(body: str) -> list[str]:
    """An object literal's entries ("name: expr", or "name" alone), split at the commas outside brackets."""
    out, depth, cur = [], 0, ""
    for c in body:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    return [e for e in out + [cur.strip()] if e]


# What the page's code passes for an argument, by its expression (the ui.js / formats.js helpers):
# always decimals: fmt(x, 2) / fmt(x) (fixed decimals, or m × 10^e), fixed(x, 2), f2.nats_abs, f2.dnats
ARG_EXPR_KINDS = [
    (r"(?:fmt|fixed)\(.*,\s*[1-9]\s*\)|fmt\([^,]*\)|f2\.(?:nats_abs|dnats)\(.*\)", "dec"),
    (r"f2\.bytes\(.*\)", ("noun", "w2.unit.bytes", "int")),
    (r"f2\.times\(.*\)", ("noun", "w2.fmt.times", "any")),
    (r"fmtTimes\(.*\)", ("noun", "fmt.times", "any")),
    (r"fmtNats\(.*\)", ("noun", "fmt.nats", "dec")),
    (r"(?:fmtPct|fmtShare|f2\.(?:pct|us|ms2|gib|gb|macs)|f3\.pct\(\d\))\(.*\)|\{\s*key:\s*\"fmt\.pct\".*", "unit"),
    (r"\{\s*key:.*|t\(.*\)", "words"),  # a message inside the message
]


def expr_kind(expr: str):
    for pattern, kind in ARG_EXPR_KINDS:
        if re.fullmatch(pattern, expr.strip(), re.S):
            return kind
    return "any"


def arg_kinds() -> dict[tuple[str, str], object]:
    """{(text key, argument): kind} from the page's calls t("KEY", {name: expr}) and
    el(…, {t: "KEY", targs: {…}}); an argument passed differently in two places is "any"."""
    out: dict[tuple[str, str], object] = {}
    for f in sorted((WEB / "js").rglob("*.js")):
        if f.name.endswith(".bundle.js") or "bench" in f.parts:
            continue
        src = re.sub(r"(?<![:\\])//[^\n]*", "", f.read_text(encoding="utf-8"))  # comments (not the // of a URL)
        for m in re.finditer(r'"([a-z0-9_.\-]+)"(?:\s*:\s*"([a-z0-9_.\-]+)")?\s*,\s*(?:targs:\s*)?\{', src):
            for key in filter(None, m.groups()):
                if key not in RU:
                    continue
                for entry in top_level(js_objects(src, m.end() - 1)):
                    name, _, expr = entry.partition(":")
                    k, kind = (key, name.strip()), expr_kind(expr) if expr else "any"
                    out[k] = kind if out.get(k, kind) == kind else "any"
    return out


ARG_KINDS = arg_kinds()


def live_kind(key: str):
    if key in WORD_KEYS:
        return "words"
    if key in NOUN_KEYS:
        return ("noun", *NOUN_KEYS[key])
    return FORMATS.get(key, DEFAULT_KIND[key.split(".")[0]])


# ---- Russian ------------------------------------------------------------------------------------
def category(shown: str) -> str:
    """CLDR's plural category in Russian of a number as written (i18n.js pluralOf counts the visible
    decimals): one, few, many, or other (a fraction: "0,5", "2,0")."""
    if "," in shown:
        return "other"
    n = int(shown.replace("\u00a0", ""))
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


def shown(digits: str) -> list[str]:
    """The values a slot of this kind is filled with, as it shows them: a format with decimals shows
    "1,0" (grammatically a fraction, as "0,5" is), a whole-number format only the whole ones."""
    if digits == "int":
        return [s for s in VALUES if "," not in s]
    if digits == "dec":
        return [s if "," in s else s + ",0" for s in VALUES]
    return list(VALUES)


PREP_CASES = {
    **dict.fromkeys(["при", "об", "обо"], ["loct"]),
    **dict.fromkeys(["к", "ко", "благодаря", "согласно"], ["datv"]),
    **dict.fromkeys(["над", "надо", "перед", "передо", "между"], ["ablt"]),
    **dict.fromkeys(["из", "изо", "от", "ото", "до", "без", "для", "у", "около", "после", "вместо", "кроме", "против",
                     "среди", "вокруг", "возле", "сверх", "больше", "меньше", "более", "менее", "свыше", "порядка"],
                    ["gent"]),
    **dict.fromkeys(["в", "во", "на", "о"], ["count", "loct"]),
    **dict.fromkeys(["за", "под", "подо"], ["count", "ablt"]),
    **dict.fromkeys(["с", "со"], ["ablt", "gent"]),
    "по": ["po", "datv"],  # «по 3 токена» on each, «по 3 отложенным токенам» over them
}
# words between a preposition and its number that leave the case alone
TRANSPARENT = {"примерно", "приблизительно", "лишь", "всего", "уже", "ещё", "еще", "почти", "ровно", "только", "целых",
               "каких-то", "всё", "все"}
# units that do not decline after a number: the noun after them depends on them, not on the number
UNITS = {"млн", "млрд", "трлн", "тыс", "мс", "мкс", "нс", "с", "гб", "тб", "мб", "кб", "киб", "миб", "гиб", "тиб",
         "ток"}
ONE = {"один", "одна", "одно", "одни", "одного", "одной", "одному", "одну", "одним", "одном", "одними", "одних"}
WORD = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*")


def phrase_cases(before: str) -> list[str]:
    """The cases the number's phrase may stand in, from the words before the slot."""
    before = re.sub(r"<[^<>]*>", " ", before)
    words = re.findall(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*|[^\sА-Яа-яЁё]", before)
    while words and words[-1].lower() in TRANSPARENT:
        words.pop()
    if not words:
        return ["count"]
    last = words[-1].lower()
    if last in PREP_CASES:
        return PREP_CASES[last]
    if WORD.fullmatch(last) and any(p.tag.POS == "NOUN" for p in MORPH.parse(last)):
        return ["count", "gent"]  # a noun's complement: «замер 3 произведений», «цена 5 позиций»
    return ["count"]


def noun_parse(word: str):
    """The noun parse of a word (its lexeme), or None where the word is not a noun here."""
    parses = MORPH.parse(UNKNOWN_FORMS.get(norm(word), word))
    if word.lower() in LEMMAS:
        lemma = LEMMAS[word.lower()]
        return next(p for p in parses if p.tag.POS == "NOUN" and p.normal_form == lemma)
    if parses[0].tag.POS not in ("NOUN", "ADJS", "PRTS"):
        return None
    nouns = [p for p in parses if p.tag.POS == "NOUN"]
    plain = [p for p in nouns if not {"Name", "Surn", "Patr", "Abbr", "Fixd"} & p.tag.grammemes]
    return (plain or nouns or [None])[0]


def agreeing(parse, case: str, shown: str) -> set[str]:
    """The forms of parse's lexeme that agree with the number `shown` in a phrase of this case."""
    cat = category(shown)
    if cat == "other":
        wanted = [{"sing", "gent"}]
    elif case == "po":
        return agreeing(parse, "datv" if cat == "one" else "count", shown)
    elif case == "count":
        wanted = {"one": [{"sing", "nomn"}, {"sing", "accs"}], "few": [{"sing", "gent"}],
                  "many": [{"plur", "gent"}]}[cat]
        if parse.tag.POS != "NOUN" and cat == "few":
            wanted = [{"plur", "gent"}, {"plur", "nomn"}]  # «3 новых», «3 новые»
    else:
        wanted = [{"sing" if cat == "one" else "plur", case}]
    if cat == "many" and case in ("count", "gent", "po") and parse.normal_form in COUNT_FORMS:
        return {COUNT_FORMS[parse.normal_form]} | agreeing_forms(parse, wanted)
    return agreeing_forms(parse, wanted)


def agreeing_forms(parse, wanted: list[set[str]]) -> set[str]:
    """The forms of parse's lexeme with all the grammemes of one of `wanted` (a participle: of its own
    voice and tense, not the verb's other forms)."""
    kind = (parse.tag.POS, parse.tag.voice, parse.tag.tense)
    return {norm(f.word) for f in parse.lexeme for w in wanted
            if w <= f.tag.grammemes and (f.tag.POS, f.tag.voice, f.tag.tense) == kind}


def norm(word: str) -> str:
    return word.lower().replace("ё", "е")


def next_noun(after: str) -> str | None:
    """The word the number governs in the text after the slot, or None (see the rule): a noun, or an
    adjective or participle that stands for one («из 10 показанных»)."""
    s, adjective, skipped = after, None, 0
    while True:
        s = s.lstrip(" \t\n\u00a0\u202f")
        if s.startswith("<"):
            if re.match(r"<(em|b|i|strong|u|dfn|abbr)\b[^>]*>", s):
                s = s[s.index(">") + 1:]
                continue
            return adjective  # a closing tag, a formula, another live number
        m = WORD.match(s)
        if not m:
            return adjective  # punctuation, a digit, Latin, another argument
        word, s = m.group(0), s[m.end():]
        if norm(word) in UNITS or s.startswith("/") or norm(word) in ONE:
            return adjective  # an unit («мс», «ток/с»), or a word that says its own number («одним блоком»)
        if noun_parse(word) is not None:
            return word
        if MORPH.parse(word)[0].tag.POS in ("ADJF", "PRTF") and skipped < 3:
            adjective = adjective or word
            skipped += 1
            continue
        return adjective


def check(key: str, slot: str, before: str, filled: list[tuple[str, str]]) -> list[str]:
    """Problems of one slot: filled is [(the number as shown, the noun the reader sees after it)]."""
    nouns = sorted({n for _, n in filled}, key=lambda n: noun_parse(n) is None)
    parse = noun_parse(nouns[0]) or next((p for p in MORPH.parse(nouns[0]) if p.tag.POS in ("ADJF", "PRTF")), None)
    if parse is None:
        return []
    cases = phrase_cases(before)
    # the case the phrase is in: the one in which most of the forms as written agree
    case = max(cases, key=lambda c: sum(norm(n) in agreeing(parse, c, s) for s, n in filled))
    said = {"count": "counting form", "po": "по + number", "gent": "genitive", "datv": "dative",
            "ablt": "instrumental", "loct": "prepositional"}[case]
    context = re.sub(r"\{(\w+)\|[^{}]*\}", r"{\1}", re.sub(r"<[^<>]*>", "", before))[-30:].replace("\n", " ").strip()
    return [f"{key}: {slot} = {s}: «…{context} {s} {n}»: the noun must be "
            f"«{'/'.join(sorted(agreeing(parse, case, s)))}» ({said})"
            for s, n in filled if norm(n) not in agreeing(parse, case, s)]


def pick_form(forms: str, shown: str) -> str:
    """The form of a plural choice ("|one:# токен|few:# токена|…") i18n.js picks for a number."""
    by = dict(f.split(":", 1) for f in forms[1:].split("|"))
    return by.get(category(shown), by.get("other", ""))


SPAN = re.compile(r'<(span|div)\b[^>]*\bdata-live="([^"]+)"[^>]*>.*?</\1>', re.S)
ARG_BEFORE = re.compile(r"\{[a-zA-Z_]\w*\}\s*$")


def slot_nouns(kind, after: str, ru: dict[str, str]) -> list[tuple[str, str]]:
    """[(number as shown, the noun it governs)] for a slot of this kind (not words or an unit)."""
    if isinstance(kind, tuple):  # the number comes with its own noun ("3,94 раза"): the phrase's case decides
        _, entry, digits = kind
        forms = texts.ARG.search(ru[entry]).group(2)
        filled = [(s, next_noun(pick_form(forms, s).split("#", 1)[1])) for s in shown(digits)]
        return [(s, n) for s, n in filled if n]
    noun = next_noun(after)
    return [(s, noun) for s in shown(kind)] if noun else []


def slot_problems(key: str, value: str, ru: dict[str, str] = RU) -> tuple[int, list[str]]:
    """(how many numeric slots one Russian text has, the problems found in them)."""
    checked, bad = 0, []
    for m in texts.ARG.finditer(value):
        name, forms = m.group(1), m.group(2)
        before, after = value[:m.start()], value[m.end():]
        kind = ARG_KINDS.get((key, name), "any")
        if kind in ("words", "unit"):
            continue
        if forms:
            filled = []
            for s in VALUES:
                form = pick_form(forms, s)
                if "#" in form:
                    noun = next_noun(form[form.index("#") + 1:])
                else:
                    # a form without the number: its noun counts the number of the argument just
                    # before ("{list} {n|one:бит|…}"), or it says the number in words ("единственную строку")
                    noun = next_noun(form) if ARG_BEFORE.search(before) else None
                if noun:
                    filled.append((s, noun))
        else:
            filled = slot_nouns(kind, after, ru)
        if filled:
            checked += 1
            bad += check(key, "{" + name + ("|…}" if forms else "}"), before, filled)
    for m in SPAN.finditer(value):
        lk, kind = m.group(2), live_kind(m.group(2))
        if kind in ("words", "unit"):
            continue
        filled = slot_nouns(kind, value[m.end():], ru)
        if filled:
            checked += 1
            bad += check(key, f"live {lk}", value[:m.start()], filled)
    return checked, bad


def test_numbers_and_their_nouns_agree_in_russian():
    checked, bad = 0, []
    for key, value in RU.items():
        c, b = slot_problems(key, value)
        checked += c
        bad += b
    assert checked > 50, f"only {checked} numeric slots found: the slot finder is broken"
    assert not bad, f"{len(bad)} nouns do not agree with their number:\n" + "\n".join(bad)


# ---- the checker checked ---------------------------------------------------------------------------
def problems(text: str) -> tuple[int, list[str]]:
    return slot_problems("self-test", text)


def live(key: str) -> str:
    return f'<span class="live" data-live="{key}">…</span>'


@pytest.mark.parametrize("text, value, noun", [
    # the review's errors (shared/reviews/ru.md, (b) B1 1 and 2): a number that brings its noun in the
    # counting form, pasted where the phrase needs another case: «при 3 бита», «вместо 4 байта»
    (f"с масштабом на строку — при {live('ch2.bits.collapse_depth.row')} и …", "3", "бита"),
    (f"обходятся здесь в 256 байт вместо {live('ch2.ol.bytes_matrix_scale')}", "3", "байта"),
    (f"при {live('ch2.bits.thread_depth.row')} и", "1", "бит"),
    # a count before a fixed noun: right for 5, wrong for 1, 2 and 21
    (f"Наша знает {live('ch1.model.vocab')} токенов: целые слова", "2", "токенов"),
    (f"Наша знает {live('ch1.model.vocab')} токенов: целые слова", "21", "токенов"),
    (f"стопка из {live('ch1.model.layers')} <em>слоёв</em>", "1", "слоёв"),
    # an argument before a fixed noun, after a preposition; a fraction
    ("от {lo} до {hi} токенов", "1", "токенов"),
    ("до {n} токенов", "1,5", "токенов"),
    # a plural choice in the counting form where the preposition wants another case
    ("при {n|one:# бит|few:# бита|many:# бит|other:# бита}", "3", "бита"),
    ("в {n|one:# токене|few:# токенах|many:# токенах|other:# токенах}", "0,5", "токенах"),
    # a number that always shows decimals still needs the genitive singular
    (f"раунд приносит {live('ch3.cm-E')} токенов", "0,5", "токенов"),
])
def test_the_checker_finds_wrong_forms(text, value, noun):
    _, bad = problems(text)
    assert any(f"= {value}: " in b and f" {value} {noun}»" in b for b in bad), bad


@pytest.mark.parametrize("text, slots", [
    # the review's errors as ru.txt now writes them: the number's phrase stands in the nominative
    (f"с масштабом на строку — {live('ch2.bits.thread_depth.row')} и {live('ch2.bits.collapse_depth.row')}", 2),
    (f"Построчные масштабы занимают здесь {live('ch2.ol.bytes_row_scales')}, а один общий — "
     f"{live('ch2.ol.bytes_matrix_scale')}", 2),
    (f"при разрядности {live('ch2.bits.thread_depth.row')}", 1),
    # no noun depends on the number
    (f"Наша знает их {live('ch1.model.vocab')}: целые слова", 0),
    ("токенов: {n}.", 0),
    (f"стопка <em>слоёв</em> (их {live('ch1.model.layers')})", 0),
    (f"около {live('ch3.pb-max-tps')} ток/с", 0),
    (f"у фаворита {live('ch1.head.top1_p')} вероятности", 0),
    # plural choices, in the case the phrase is in
    ("после {n|one:# токена|few:# токенов|many:# токенов|other:# токена}", 1),
    ("при {n|one:# бите|few:# битах|many:# битах|other:# бита}", 1),
    ("По {n|one:# жадному токену|few:# жадных токена|many:# жадных токенов|other:# жадного токена} на ядро", 1),
    ("с {faces|one:# гранью|few:# гранями|many:# гранями|other:# грани}", 1),
    ("Цена {n|one:# позиции|few:# позиций|many:# позиций|other:# позиции} — вдвое выше", 1),
    # a number with its noun, in the accusative after «в»; decimals with the genitive singular
    (f"вероятнее в {live('ch1.temp.ratio_t1')}.", 1),
    (f"раунд приносит {live('ch3.cm-E')} токена за {live('ch3.cm-cost')} прохода", 2),
])
def test_the_checker_passes_right_forms(text, slots):
    checked, bad = problems(text)
    assert not bad, bad
    assert checked == slots


def test_the_lists_name_what_the_texts_use():
    """An entry of the lists above that no text needs any more is a stale exception."""
    everything = "\n".join(RU.values())
    for key in [*WORD_KEYS, *NOUN_KEYS]:
        assert f'data-live="{key}"' in everything, f"{key} is no longer shown in ru.txt: drop it from the list"
    words = {norm(w) for w in WORD.findall(re.sub(r"<[^<>]*>", " ", everything))}
    for word in [*LEMMAS, *UNKNOWN_FORMS]:
        assert norm(word) in words, f"«{word}» no longer appears in ru.txt: drop it from the list"
