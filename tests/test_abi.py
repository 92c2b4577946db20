"""The C ABI's constants, read from kernels/decodelab.h, against the Python that relies on them."""
import re
from pathlib import Path

from decodelab import bundle, kernel
from decodelab_tools import reference

HEADER = (Path(__file__).resolve().parents[1] / "kernels" / "decodelab.h").read_text()
MODEL_C = (Path(__file__).resolve().parents[1] / "kernels" / "model.c").read_text()


def define(name: str) -> int:
    m = re.search(rf"#define {name} (\d+)", HEADER)
    assert m, f"{name} is not defined in decodelab.h"
    return int(m.group(1))


def test_block_sizes_match_the_header():
    assert kernel.CONFIG_FIELDS == define("DL_CONFIG_FIELDS")
    assert kernel.MATRIX_INFO_WORDS == define("DL_MATRIX_INFO_WORDS")
    assert kernel.PREPARE_HEADER_BYTES == define("DL_PREPARE_HEADER_BYTES")
    assert reference.ACT_QMAX == define("DL_ACT_QMAX")


def test_the_weight_formats_are_the_same_in_c_and_python():
    """Each DL_WEIGHTS_* code of the header is a bundle.WeightFormat, and the other way round;
    the matrices ship in the one the kernel's products read."""
    in_c = {name: int(code) for name, code in re.findall(r"#define DL_WEIGHTS_(\w+) (\d+)u", HEADER)}
    assert in_c == {"F32": bundle.FLOAT32.code, "I8_ROW": bundle.INT8_ROW.code}
    assert set(bundle.FORMATS) == set(in_c.values())
    assert bundle.MATRIX_FORMAT is bundle.INT8_ROW and "DL_WEIGHTS_I8_ROW" in MODEL_C


def test_a_weight_format_this_build_cannot_read_is_named():
    import struct

    import pytest

    data = bytearray((Path(__file__).resolve().parents[1] / "models" / "draft.dlm").read_bytes())
    table = struct.unpack_from("<I", data, 40)[0]
    struct.pack_into("<I", data, table + 24, 7)  # the first tensor's format: a code nobody wrote
    import zlib
    struct.pack_into("<I", data, len(data) - 4, zlib.crc32(bytes(data[:-4])) & 0xFFFFFFFF)
    with pytest.raises(bundle.BundleError, match="weight format 7"):
        bundle.read_bundle(bytes(data))


def test_abi_version_matches(kernel):
    m = re.search(r"dl_abi_version\(void\) \{ return (\d+); \}", (Path(__file__).resolve().parents[1] / "kernels" /
                                                                  "matvec.c").read_text())
    assert int(m.group(1)) == kernel.ABI_VERSION == kernel.host.call("dl_abi_version")


def test_bundle_header_layout_is_the_same_in_c_and_python():
    assert re.search(r"sizeof\(BundleHeader\) == (\d+)", MODEL_C).group(1) == str(bundle.HEADER.size)
    assert re.search(r"sizeof\(TensorEntry\) == (\d+)", MODEL_C).group(1) == str(bundle.ENTRY.size)
    fields = re.search(r"typedef struct \{(.*?)\} BundleHeader;", MODEL_C, re.S).group(1)
    names = re.findall(r"uint32_t ([a-z_, ]+);", fields)
    flat = [n.strip() for group in names for n in group.split(",")]
    # the Python HEADER is "<4s15I": magic, then 15 u32 in this order (bundle.py documents them)
    assert flat == ["version", "vocab", "context", "d_model", "n_layers", "n_heads", "d_ff", "eot", "n_tensors",
                    "table_offset", "tokenizer_offset", "tokenizer_len", "meta_offset", "meta_len", "total_len"]
    assert bundle.HEADER.format.endswith("15I")


def test_every_function_in_the_header_is_exported_and_nothing_else():
    import wasmtime

    declared = set(re.findall(r"\b(dl_[a-z0-9_]+)\(", HEADER))
    web = Path(__file__).resolve().parents[1] / "web" / "kernels"
    for name in ("kernel_relaxed", "kernel_simd", "kernel_scalar"):
        cfg = wasmtime.Config()
        cfg.wasm_relaxed_simd = True
        mod = wasmtime.Module.from_file(wasmtime.Engine(cfg), str(web / f"{name}.wasm"))
        funcs = {e.name for e in mod.exports if isinstance(e.type, wasmtime.FuncType)}
        assert funcs == declared, (name, sorted(funcs ^ declared))


def test_the_sample_work_block_is_the_same_in_c_and_python():
    """dl_logits_sample's work block: its size rule, header and the penalty's slots, as
    kernel.py computes them, against the header's macros."""
    assert kernel.SAMPLE_WORK_HEADER == define("DL_SAMPLE_WORK_HEADER")
    assert kernel.SAMPLE_MAX_OVER == define("DL_SAMPLE_MAX_OVER")
    assert re.search(r"#define DL_SAMPLE_UNDECIDED \((-?\d+)\)", HEADER).group(1) == str(kernel.SAMPLE_UNDECIDED)
    rule = re.search(r"#define DL_SAMPLE_WORK_BYTES\(n\) (.*)", HEADER).group(1)
    rule = rule.replace("DL_SAMPLE_WORK_HEADER", str(define("DL_SAMPLE_WORK_HEADER")))
    rule = rule.replace("DL_SAMPLE_MAX_OVER", str(define("DL_SAMPLE_MAX_OVER")))
    assert re.fullmatch(r"[\d\s()+*&n]+", rule), rule  # plain arithmetic on n, the same in Python
    for n in (1, 2, 7, 4096, 50257):
        assert kernel.sample_work_bytes(n) == eval(rule, {"n": n})
