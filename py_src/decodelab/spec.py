"""The declarations every layer shares, written once: the kernel's ABI (its version, the blocks it
reads and writes, the model file's header and tensor table), the weight formats, the
re-quantization schemes, and (re-exported from the sampler, where each rule declares itself) the
sampler's steps and the page's default settings.

Nothing here is copied by hand into another language. `decodelab_tools.spec_gen` renders
  * kernels/dl_spec.h: the C constants and the file structs (committed; decodelab.h includes it;
    tests/test_spec.py fails when it is not what this module renders), and
  * web/js/generated/spec.js: the table the page reads (its sliders, the pipeline's stages, the
    settings table's rows, the default settings, the scheme names; written by every build).
The kernel builds' names live beside this, in builds.py, and reach the page the same way.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

# ---- the kernel's ABI ----------------------------------------------------------------------------

# Bumped whenever a signature in decodelab.h changes or an export is added or removed.
# 8: dl_logits_sample and dl_exp_f64 (the generation loop's one-call draw); 9: dl_logits_prepare
# also returns the mean and standard deviation of the (penalised) logits.
ABI_VERSION = 9

# dl_model_config's answer, in order (int32 each)
CONFIG_FIELDS = ("vocab", "context", "d_model", "n_layers", "n_heads", "d_ff", "eot")
# dl_model_matrix's answer: q pointer, scale pointer, rows, cols (uint32 each)
MATRIX_INFO_WORDS = 4
# dl_logits_prepare's output block starts with these doubles, then the top ids and values
PREPARE_HEADER = ("M", "Z", "A", "mean", "std")
PREPARE_HEADER_BYTES = 8 * len(PREPARE_HEADER)
# logits rows one block pass may return (speculative verification)
MAX_BLOCK_LOGITS = 64
# the fast path's activations: integers in [-ACT_QMAX, ACT_QMAX] (decodelab.h says why 63)
ACT_QMAX = 63
# dl_logits_sample: the answer "not sure, let Python decide", and its work block
SAMPLE_UNDECIDED = -1
SAMPLE_WORK_HEADER = 16    # bytes: the kernel's note of how many candidates to fetch
SAMPLE_MAX_OVER = 1024     # the penalty's replaced logits: this many int32 ids, then float32 values
SAMPLE_WORK_PER_LOGIT = 28  # scratch per logit: 3 x 4 bytes, then (8-aligned) 16 bytes


def sample_work_bytes(n: int) -> int:
    """Bytes of dl_logits_sample's work block for n logits (DL_SAMPLE_WORK_BYTES(n) in C)."""
    return SAMPLE_WORK_HEADER + 8 * SAMPLE_MAX_OVER + SAMPLE_WORK_PER_LOGIT * n + 4 * (n & 1)


# dl_simd_enabled's answer, by value: the page's words for the kernel it runs (boot.kernel.NAME)
SIMD_LEVELS = ("scalar", "simd", "relaxed")

# ---- the model file (.dlm; bundle.py documents the layout) ---------------------------------------

BUNDLE_MAGIC = b"DLM\x01"
BUNDLE_VERSION = 1
# the header after its 4-byte magic: uint32 fields in this order
BUNDLE_HEADER_FIELDS = ("version", "vocab", "context", "d_model", "n_layers", "n_heads", "d_ff", "eot",
                        "n_tensors", "table_offset", "tokenizer_offset", "tokenizer_len", "meta_offset",
                        "meta_len", "total_len")
TENSOR_NAME_BYTES = 24
# a tensor table entry after its NUL-padded name: uint32 fields in this order
TENSOR_ENTRY_FIELDS = ("dtype", "rows", "cols", "data_offset", "scale_offset", "reserved")
BUNDLE_HEADER = struct.Struct(f"<4s{len(BUNDLE_HEADER_FIELDS)}I")
TENSOR_ENTRY = struct.Struct(f"<{TENSOR_NAME_BYTES}s{len(TENSOR_ENTRY_FIELDS)}I")


@dataclass(frozen=True)
class WeightFormat:
    """How one tensor's values are stored: its code in the tensor table (DL_WEIGHTS_<c_name> in C),
    the bytes of one value, and whether one float32 scale per row comes with it. A new format
    (say 4-bit values in groups of 32 with a scale each) starts here and in the kernel's products."""
    code: int
    c_name: str
    name: str
    value_bytes: int
    row_scales: bool

    def data_bytes(self, rows: int, cols: int) -> int:
        return rows * cols * self.value_bytes

    def scale_bytes(self, rows: int) -> int:
        return 4 * rows if self.row_scales else 0

    def float32_bytes(self, rows: int, cols: int) -> int:
        """The same tensor as plain float32 (what the format saves against)."""
        return 4 * rows * cols


FLOAT32 = WeightFormat(0, "F32", "float32", 4, False)  # LayerNorm gains and biases
INT8_ROW = WeightFormat(1, "I8_ROW", "int8, one float32 scale per row", 1, True)  # W[r][c] = s[r] * q[r][c]
WEIGHT_FORMATS = (FLOAT32, INT8_ROW)
MATRIX_FORMAT = INT8_ROW  # the format every 2-D weight ships in


# ---- re-quantization (chapter 2's bit-depth widget; model.c's dl_model_requantize) ---------------

@dataclass(frozen=True)
class Scheme:
    """Where one scale applies when the shipped int8 weights are rounded to fewer bits: its name
    (the page's text keys say it in words: w1.pg.scheme.NAME, w2.bd.scheme.NAME), its code in the
    kernel (DL_SCHEME_<NAME>), and the columns a group spans (0: not grouped)."""
    name: str
    code: int
    group: int = 0


ROW = Scheme("row", 0)          # one scale per row, as shipped
MATRIX = Scheme("matrix", 1)    # one scale for the whole matrix
GROUP32 = Scheme("group32", 2, group=32)  # one scale per 32 columns of a row
SCHEMES = (ROW, MATRIX, GROUP32)
SCHEME_NAMES = tuple(s.name for s in SCHEMES)
SCHEMES_BY_NAME = {s.name: s for s in SCHEMES}
REQUANT_BITS = (2, 8)  # the bit depths re-quantization accepts (inclusive)


# ---- the sampler: its steps and the page's default settings --------------------------------------

def sampler_steps() -> list[dict]:
    """Each sampler step as the page draws it (sampler.STEPS, in the order they apply)."""
    from . import sampler

    return [step.describe() for step in sampler.STEPS]


def default_settings() -> dict:
    """The page's default settings: sampler.Settings() (each step declares its own default)."""
    from . import sampler

    return sampler.DEFAULTS.as_dict()


def page_table() -> dict:
    """What web/js/generated/spec.js exports as SPEC (the page's one copy of these declarations)."""
    return {
        "steps": sampler_steps(),
        "defaults": default_settings(),
        "schemes": list(SCHEME_NAMES),
        "requant_bits": list(REQUANT_BITS),
        "simd_levels": list(SIMD_LEVELS),
        "act_qmax": ACT_QMAX,
    }
