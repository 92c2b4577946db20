"""The model bundle (.dlm): reading and writing, in pure Python (runs in Pyodide too).

Layout (little-endian; the field lists and formats are declared in spec.py, which also generates
the C structs of kernels/dl_spec.h):

    header, 64 bytes
      0  char[4]  magic "DLM\\x01"
      4  u32      format version (1)
      8  u32      vocab_size        12 u32 context      16 u32 d_model
     20  u32      n_layers          24 u32 n_heads      28 u32 d_ff
     32  u32      eot_id            36 u32 n_tensors
     40  u32      tensor_table offset
     44  u32      tokenizer offset  48 u32 tokenizer length   (UTF-8 JSON)
     52  u32      meta offset       56 u32 meta length        (UTF-8 JSON)
     60  u32      total file length, including the 4-byte checksum at the end
    tensor table: n_tensors entries of 48 bytes
      char[24] name (NUL padded) | u32 weight format (WeightFormat below: 0 float32, 1 int8 with one float32 scale per row)
      u32 rows | u32 cols | u32 data offset | u32 scale offset (0 for float32) | u32 reserved
    payload: tensors, each block 16-byte aligned
    u32 CRC-32 (zlib polynomial) of every byte before it

Tensor order: wte [V x d], wpe [context x d], then per layer l: h{l}.ln1.w, h{l}.ln1.b [1 x d],
h{l}.qkv [3d x d], h{l}.proj [d x d], h{l}.ln2.w, h{l}.ln2.b [1 x d], h{l}.fc [d_ff x d],
h{l}.fc2 [d x d_ff]; then lnf.w, lnf.b [1 x d]. Matrices (2-D weights) are int8; LayerNorm
parameters float32. A linear layer computes y = W x with W stored as [out x in].
"""
from __future__ import annotations

import json
import struct
import zlib
from array import array
from dataclasses import dataclass, field

from . import spec
from .spec import FLOAT32, INT8_ROW, MATRIX_FORMAT, WEIGHT_FORMATS, WeightFormat  # noqa: F401 (re-exported)

MAGIC = spec.BUNDLE_MAGIC
VERSION = spec.BUNDLE_VERSION
HEADER = spec.BUNDLE_HEADER   # "<4s15I": the magic, then spec.BUNDLE_HEADER_FIELDS
ENTRY = spec.TENSOR_ENTRY     # "<24s6I": the name, then spec.TENSOR_ENTRY_FIELDS
FORMATS = {f.code: f for f in WEIGHT_FORMATS}
F32, I8 = FLOAT32.code, INT8_ROW.code  # the codes, as the tensor table stores them


class BundleError(ValueError):
    """The model file is not a usable decodelab bundle; the message says why."""


@dataclass
class Config:
    vocab_size: int
    context: int
    d_model: int
    n_layers: int
    n_heads: int
    d_ff: int
    eot_id: int


@dataclass
class Tensor:
    name: str
    dtype: int
    rows: int
    cols: int
    data: memoryview  # int8 bytes or float32 bytes
    scales: memoryview | None = None  # float32 bytes, one per row

    @property
    def format(self) -> WeightFormat:
        return FORMATS[self.dtype]

    def floats(self) -> array:
        out = array("f")
        out.frombytes(self.data)
        return out

    def scale_list(self) -> array:
        out = array("f")
        out.frombytes(self.scales)
        return out


@dataclass
class Bundle:
    config: Config
    tokenizer: dict
    meta: dict
    tensors: dict[str, Tensor] = field(default_factory=dict)
    raw: bytes = b""
    tokenizer_bytes: bytes = b""  # the tokenizer's JSON as stored (the key of _TOKENIZERS)

    def param_count(self) -> int:
        """Every number the model learned: the sum of its tensors' sizes (the matrices, the
        embeddings and the layer norms' weights and biases). The one count the page quotes."""
        return sum(t.rows * t.cols for t in self.tensors.values())


def tensor_names(n_layers: int) -> list[str]:
    names = ["wte", "wpe"]
    for l in range(n_layers):
        names += [f"h{l}.{p}" for p in ("ln1.w", "ln1.b", "qkv", "proj", "ln2.w", "ln2.b", "fc", "fc2")]
    return names + ["lnf.w", "lnf.b"]


def expected_shapes(c: Config) -> dict[str, tuple[int, int, int]]:
    d, I8 = c.d_model, MATRIX_FORMAT.code  # noqa: N806 (the matrices' code)
    shapes = {"wte": (I8, c.vocab_size, d), "wpe": (I8, c.context, d), "lnf.w": (F32, 1, d), "lnf.b": (F32, 1, d)}
    for l in range(c.n_layers):
        shapes.update({
            f"h{l}.ln1.w": (F32, 1, d), f"h{l}.ln1.b": (F32, 1, d),
            f"h{l}.qkv": (I8, 3 * d, d), f"h{l}.proj": (I8, d, d),
            f"h{l}.ln2.w": (F32, 1, d), f"h{l}.ln2.b": (F32, 1, d),
            f"h{l}.fc": (I8, c.d_ff, d), f"h{l}.fc2": (I8, d, c.d_ff),
        })
    return shapes


def read_bundle(data: bytes | bytearray | memoryview, source: str = "model file") -> Bundle:
    """Parse and check a bundle; raises BundleError with a clear message on any damage."""
    data = bytes(data)
    if len(data) < HEADER.size + 4:
        raise BundleError(f"{source} is truncated: {len(data)} bytes is shorter than a header")
    fields = HEADER.unpack_from(data, 0)
    magic, version = fields[0], fields[1]
    if magic != MAGIC:
        raise BundleError(f"{source} is not a decodelab model (magic {magic!r}, expected {MAGIC!r})")
    if version != VERSION:
        raise BundleError(f"{source} has format version {version}; this build reads version {VERSION}")
    (vocab, ctx, d, n_layers, n_heads, d_ff, eot, n_tensors, table_off, tok_off, tok_len,
     meta_off, meta_len, total) = fields[2:]
    if len(data) < total:
        raise BundleError(f"{source} is truncated: {len(data)} of {total} bytes")
    if len(data) > total:
        raise BundleError(f"{source} has {len(data) - total} unexpected trailing bytes")
    (stored_crc,) = struct.unpack_from("<I", data, total - 4)
    crc = zlib.crc32(memoryview(data)[: total - 4]) & 0xFFFFFFFF
    if crc != stored_crc:
        raise BundleError(f"{source} is damaged: checksum {crc:08x} does not match the stored {stored_crc:08x}")
    cfg = Config(vocab, ctx, d, n_layers, n_heads, d_ff, eot)
    if d % max(1, n_heads) or n_heads == 0:
        raise BundleError(f"{source}: d_model {d} is not divisible by n_heads {n_heads}")
    mv = memoryview(data)
    tensors: dict[str, Tensor] = {}
    for i in range(n_tensors):
        raw_name, dtype, rows, cols, off, soff, _ = ENTRY.unpack_from(data, table_off + i * ENTRY.size)
        name = raw_name.rstrip(b"\0").decode("ascii")
        fmt = FORMATS.get(dtype)
        if fmt is None:
            raise BundleError(f"{source}: tensor {name} has weight format {dtype}, which this build cannot read")
        nbytes, sbytes = fmt.data_bytes(rows, cols), fmt.scale_bytes(rows)
        if off + nbytes > total - 4 or (sbytes and soff + sbytes > total - 4):
            raise BundleError(f"{source}: tensor {name} points outside the file")
        tensors[name] = Tensor(name, dtype, rows, cols, mv[off:off + nbytes],
                               mv[soff:soff + sbytes] if sbytes else None)
    want = expected_shapes(cfg)
    if list(tensors) != tensor_names(n_layers):
        raise BundleError(f"{source}: tensor list does not match the architecture")
    for name, shape in want.items():
        t = tensors[name]
        if (t.dtype, t.rows, t.cols) != shape:
            raise BundleError(f"{source}: tensor {name} has shape {(t.dtype, t.rows, t.cols)}, expected {shape}")
    tok_bytes = data[tok_off:tok_off + tok_len]
    known = _TOKENIZERS.get(tok_bytes)
    tokenizer = known[0] if known else json.loads(tok_bytes.decode("utf-8"))
    meta = json.loads(data[meta_off:meta_off + meta_len].decode("utf-8"))
    return Bundle(cfg, tokenizer, meta, tensors, data, tok_bytes)


def _align(n: int) -> int:
    return (n + 15) & ~15


def write_bundle(cfg: Config, tensors: list[tuple[str, int, int, int, bytes, bytes | None]],
                 tokenizer: dict, meta: dict) -> bytes:
    """tensors: (name, dtype, rows, cols, data bytes, scale bytes or None) in tensor_names order."""
    tok_bytes = json.dumps(tokenizer, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    meta_bytes = json.dumps(meta, separators=(",", ":")).encode("utf-8")
    table_off = HEADER.size
    pos = _align(table_off + ENTRY.size * len(tensors))
    entries, blobs = [], []
    for name, dtype, rows, cols, blob, scales in tensors:
        off = pos
        blobs.append((off, blob))
        pos = _align(pos + len(blob))
        soff = 0
        if scales is not None:
            soff = pos
            blobs.append((soff, scales))
            pos = _align(pos + len(scales))
        entries.append(ENTRY.pack(name.encode("ascii"), dtype, rows, cols, off, soff, 0))
    tok_off = pos
    pos = _align(pos + len(tok_bytes))
    meta_off = pos
    pos = pos + len(meta_bytes)
    total = pos + 4
    out = bytearray(total)
    HEADER.pack_into(out, 0, MAGIC, VERSION, cfg.vocab_size, cfg.context, cfg.d_model, cfg.n_layers,
                     cfg.n_heads, cfg.d_ff, cfg.eot_id, len(tensors), table_off, tok_off, len(tok_bytes),
                     meta_off, len(meta_bytes), total)
    for i, e in enumerate(entries):
        out[table_off + i * ENTRY.size: table_off + (i + 1) * ENTRY.size] = e
    for off, blob in blobs:
        out[off:off + len(blob)] = blob
    out[tok_off:tok_off + len(tok_bytes)] = tok_bytes
    out[meta_off:meta_off + len(meta_bytes)] = meta_bytes
    struct.pack_into("<I", out, total - 4, zlib.crc32(memoryview(out)[: total - 4]) & 0xFFFFFFFF)
    return bytes(out)


# Tokenizers already built, by their exact bytes in a bundle: (the parsed JSON, the Tokenizer).
# Every engine made from the same file shares one (a Tokenizer never changes once built), and
# the page's memory snapshot is made with the shipped models' tokenizer already in here
# (warm_tokenizer, called by build.py), so loading the main model in the page skips parsing its
# 4,096 tokens and their merges.
_TOKENIZERS: dict = {}


def tokenizer_from_bundle(b: Bundle):
    from .tokenizer import Tokenizer

    known = _TOKENIZERS.get(b.tokenizer_bytes) if b.tokenizer_bytes else None
    if known:
        return known[1]
    t = b.tokenizer
    tok = Tokenizer(t["vocab"], [tuple(m) for m in t["merges"]], t["special"])
    if b.tokenizer_bytes:
        _TOKENIZERS[b.tokenizer_bytes] = (t, tok)
    return tok


def warm_tokenizer(path) -> None:
    """Build the tokenizer of the bundle at path into _TOKENIZERS, reading only its header and
    tokenizer (the weights never enter Python's memory: the snapshot stays small)."""
    with open(path, "rb") as f:
        head = f.read(HEADER.size)
        fields = HEADER.unpack_from(head, 0)
        if fields[0] != MAGIC or fields[1] != VERSION:
            raise BundleError(f"{path} is not a decodelab model of format version {VERSION}")
        tok_off, tok_len = fields[11], fields[12]
        f.seek(tok_off)
        tok_bytes = f.read(tok_len)
    t = json.loads(tok_bytes.decode("utf-8"))
    tokenizer_from_bundle(Bundle(None, t, {}, {}, b"", tok_bytes))
