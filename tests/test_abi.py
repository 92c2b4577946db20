"""The C ABI: its exports against the header, and model files it cannot read. Its constants are
declared once in decodelab/spec.py and generated into kernels/dl_spec.h (tests/test_spec.py)."""
import re
from pathlib import Path

from decodelab import bundle

HEADER = (Path(__file__).resolve().parents[1] / "kernels" / "decodelab.h").read_text()


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


