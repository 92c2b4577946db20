"""Each shared declaration is written once (decodelab/spec.py, and the sampler's rules it
gathers); the C header and the page's table are generated from it, and no hand-kept copy of its
constants is left anywhere else."""
import re
from pathlib import Path

import pytest

from decodelab import bundle, kernel, sampler, spec
from decodelab_tools import spec_gen

ROOT = Path(__file__).resolve().parents[1]


def test_the_generated_header_is_current():
    """kernels/dl_spec.h is committed (the kernels compile from a plain checkout); it must be what
    spec.py renders now: run `python -m decodelab_tools.spec_gen` after changing spec.py."""
    assert spec_gen.stale() == []


def test_the_page_table_is_what_the_build_wrote():
    assert spec_gen.PAGE_PATH.read_text() == spec_gen.page_module()


def test_the_kernel_reports_the_declared_abi(kernel):
    assert kernel.host.call("dl_abi_version") == spec.ABI_VERSION == kernel.ABI_VERSION


def test_python_reads_the_declared_blocks():
    """The Python readers use the declarations themselves (not copies of their values)."""
    assert bundle.HEADER is spec.BUNDLE_HEADER and bundle.ENTRY is spec.TENSOR_ENTRY
    assert bundle.HEADER.size == 64 and bundle.ENTRY.size == 48  # the file format on disk, unchanged
    assert kernel.PREPARE_HEADER_BYTES == 8 * len(spec.PREPARE_HEADER)
    assert set(bundle.FORMATS.values()) == set(spec.WEIGHT_FORMATS)
    assert [s.code for s in spec.SCHEMES] == list(range(len(spec.SCHEMES)))  # the kernel checks 0..COUNT-1


# Hand-written copies of a declaration, as they were before spec.py (each pattern found one):
# the ABI version, the scheme list, the group width, the default settings, a scheme's code.
SCHEME_LIST = r"""[\[(]\s*["']row["'],\s*["']matrix["'],\s*["']group32["']"""
COPIES = {
    "the ABI version": r"dl_abi_version\(void\)\s*\{\s*return\s+\d+|ABI_VERSION\s*=\s*\d+",
    "the list of schemes": SCHEME_LIST,
    "the default temperature and top-p": r"temperature\s*[:=]\s*0\.8\b.{0,40}top_p\s*[:=]\s*0\.95",
    "a scheme's code": r"scheme\s*[=!]=\s*\d",
    "a C constant of the spec": r"#define\s+DL_(ABI_VERSION|WEIGHTS_\w+|SCHEME_\w+|CONFIG_FIELDS|MATRIX_INFO_WORDS|"
                                r"PREPARE_HEADER_BYTES|MAX_BLOCK_LOGITS|ACT_QMAX|SAMPLE_\w+)\b",
    "the activations' range": r"ACT_QMAX\s*=\s*\d+",
}
GENERATED_OR_DECLARING = {"py_src/decodelab/spec.py", "py_src/decodelab_tools/spec_gen.py", "kernels/dl_spec.h",
                          "tests/test_spec.py"}


def _sources():
    for folder, exts in (("py_src", (".py",)), ("kernels", (".c", ".h")), ("web/js", (".js", ".mjs")),
                         ("tests", (".py",)), (".", ("build.py",))):
        for p in sorted((ROOT / folder).rglob("*") if folder != "." else [ROOT / "build.py"]):
            rel = p.relative_to(ROOT).as_posix()
            if (p.is_file() and p.name.endswith(exts) and rel not in GENERATED_OR_DECLARING
                    and "generated/" not in rel and ".bundle." not in p.name and "node_modules" not in rel):
                yield rel, p.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("what", sorted(COPIES))
def test_no_declaration_is_copied_by_hand(what):
    found = [rel for rel, text in _sources() if re.search(COPIES[what], text, re.S if "default" in what else 0)]
    assert not found, f"{what} is written by hand in {found}: read it from decodelab/spec.py or SPEC"


def test_the_patterns_would_find_a_copy():
    """The scan above is not vacuous: each pattern finds the copy it was written against."""
    samples = {
        "the ABI version": "int32_t dl_abi_version(void) { return 8; }",
        "the list of schemes": 'const SCHEMES = ["row", "matrix", "group32"];',
        "the default temperature and top-p": "settings: { temperature: 0.8, top_k: 0, top_p: 0.95 }",
        "a scheme's code": "if (scheme == 1)",
        "a C constant of the spec": "#define DL_SAMPLE_MAX_OVER 1024",
        "the activations' range": "const ACT_QMAX = 63;",
    }
    for what, text in samples.items():
        assert re.search(COPIES[what], text, re.S), what


def test_the_page_table_lists_every_rule_with_its_own_metadata():
    table = spec.page_table()
    assert [st["field"] for st in table["steps"]] == [st.field for st in sampler.STEPS]
    assert table["defaults"] == sampler.DEFAULTS.as_dict()
    for st in table["steps"]:
        assert st["min"] <= st["default"] <= st["max"] and st["kind"] in ("penalty", "scale", "prefix", "mask")
        assert st["neutral"] == sampler.BY_FIELD[st["field"]].neutral


@pytest.mark.parametrize("lang", ["en", "ru", "vi"])
def test_every_rule_has_the_text_keys_its_name_gives_it(lang):
    """A rule's words are found by its name (the panel's label and hint, the pipeline's stage, its
    range message) and its field (what the setting is called in an error)."""
    from decodelab_tools import texts

    keys = set(texts.load(lang, ROOT / "web"))
    for st in sampler.STEPS:
        want = {f"w1.sp.{st.name}", f"w1.sp.{st.name}_hint", f"fig.pipe.stage.{st.name}", f"err.setting.{st.field}",
                f"err.{st.name}_range"}
        assert want <= keys, (lang, sorted(want - keys))
