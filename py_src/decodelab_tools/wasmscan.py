"""Count the SIMD instructions in a .wasm module, by walking its code section (CPython, build time).

build.py uses it to check each kernel build: the relaxed build may hold exactly one kind of
relaxed-SIMD instruction (i32x4.relaxed_dot_i8x16_i7x16_add_s), every other build none.

Why by hand: the check must run wherever `build.py` runs, and the tools that decode wasm
(wabt's wasm-objdump, wasm-tools) are not Python packages. The decoder below only needs to know
how long each instruction's immediates are, so that it never mistakes an immediate for an
opcode; it covers the MVP, sign extension, bulk memory, reference types, tail calls, SIMD and
relaxed SIMD, and stops with an error on any opcode it does not know, so it cannot miscount
silently.
"""
from __future__ import annotations

from collections import Counter

SIMD_PREFIX = 0xFD
MISC_PREFIX = 0xFC
# Relaxed SIMD (0xFD prefix, 0x100..0x113) as the spec names them.
RELAXED = {
    0x100: "i8x16.relaxed_swizzle", 0x101: "i32x4.relaxed_trunc_f32x4_s", 0x102: "i32x4.relaxed_trunc_f32x4_u",
    0x103: "i32x4.relaxed_trunc_f64x2_s_zero", 0x104: "i32x4.relaxed_trunc_f64x2_u_zero",
    0x105: "f32x4.relaxed_madd", 0x106: "f32x4.relaxed_nmadd", 0x107: "f64x2.relaxed_madd",
    0x108: "f64x2.relaxed_nmadd", 0x109: "i8x16.relaxed_laneselect", 0x10A: "i16x8.relaxed_laneselect",
    0x10B: "i32x4.relaxed_laneselect", 0x10C: "i64x2.relaxed_laneselect", 0x10D: "f32x4.relaxed_min",
    0x10E: "f32x4.relaxed_max", 0x10F: "f64x2.relaxed_min", 0x110: "f64x2.relaxed_max",
    0x111: "i16x8.relaxed_q15mulr_s", 0x112: "i16x8.relaxed_dot_i8x16_i7x16_s",
    0x113: "i32x4.relaxed_dot_i8x16_i7x16_add_s",
}
RELAXED_DOT = "i32x4.relaxed_dot_i8x16_i7x16_add_s"


class WasmFormatError(ValueError):
    pass


class _Reader:
    def __init__(self, data: bytes, pos: int = 0, end: int | None = None):
        self.d, self.p, self.end = data, pos, len(data) if end is None else end

    def byte(self) -> int:
        if self.p >= self.end:
            raise WasmFormatError("unexpected end of data")
        b = self.d[self.p]
        self.p += 1
        return b

    def uleb(self) -> int:
        out, shift = 0, 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return out

    def sleb(self) -> None:  # value not needed, only its length
        while self.byte() & 0x80:
            pass

    def skip(self, n: int) -> None:
        if self.p + n > self.end:
            raise WasmFormatError("unexpected end of data")
        self.p += n

    def memarg(self) -> None:
        align = self.uleb()
        if align & 0x40:  # multi-memory: a memory index follows
            self.uleb()
        self.uleb()  # offset


def _simd_immediates(r: _Reader, op: int) -> None:
    if op <= 0x0B or op in (0x5C, 0x5D):  # v128 loads and stores, load32/64_zero
        r.memarg()
    elif op in (0x0C, 0x0D):  # v128.const, i8x16.shuffle
        r.skip(16)
    elif 0x15 <= op <= 0x22:  # extract_lane / replace_lane
        r.skip(1)
    elif 0x54 <= op <= 0x5B:  # load_lane / store_lane
        r.memarg()
        r.skip(1)
    elif op > 0x113:
        raise WasmFormatError(f"unknown SIMD opcode 0xfd {op:#x}")


def _misc_immediates(r: _Reader, op: int) -> None:
    if op <= 7:  # saturating truncations
        return
    if op == 8:  # memory.init
        r.uleb(); r.skip(1)
    elif op in (9, 13, 15, 16, 17):  # data.drop, elem.drop, table.grow/size/fill
        r.uleb()
    elif op == 10:  # memory.copy
        r.skip(2)
    elif op == 11:  # memory.fill
        r.skip(1)
    elif op in (12, 14):  # table.init, table.copy
        r.uleb(); r.uleb()
    else:
        raise WasmFormatError(f"unknown opcode 0xfc {op}")


def _blocktype(r: _Reader) -> None:
    b = r.d[r.p]
    if b == 0x40 or b in (0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F):
        r.p += 1
    else:
        r.sleb()  # a type index as s33


def _walk_body(r: _Reader, simd: Counter) -> None:
    for _ in range(r.uleb()):  # local declarations: (count, type)
        r.uleb()
        r.skip(1)
    while r.p < r.end:
        op = r.byte()
        if op in (0x02, 0x03, 0x04):
            _blocktype(r)
        elif op in (0x0C, 0x0D, 0x10, 0x12, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xD2):
            r.uleb()
        elif op == 0x0E:  # br_table
            for _ in range(r.uleb() + 1):
                r.uleb()
        elif op in (0x11, 0x13):  # call_indirect, return_call_indirect
            r.uleb(); r.uleb()
        elif op == 0x1C:  # select t*
            r.skip(r.uleb())
        elif 0x28 <= op <= 0x3E:
            r.memarg()
        elif op in (0x3F, 0x40, 0xD0):
            r.skip(1)
        elif op in (0x41, 0x42):
            r.sleb()
        elif op == 0x43:
            r.skip(4)
        elif op == 0x44:
            r.skip(8)
        elif op == MISC_PREFIX:
            _misc_immediates(r, r.uleb())
        elif op == SIMD_PREFIX:
            sub = r.uleb()
            _simd_immediates(r, sub)
            simd[sub] += 1
        elif op in (0x00, 0x01, 0x05, 0x0B, 0x0F, 0x1A, 0x1B, 0xD1) or 0x45 <= op <= 0xC4:
            pass
        else:
            raise WasmFormatError(f"unknown opcode {op:#x} at byte {r.p - 1}")


def simd_opcodes(data: bytes) -> Counter:
    """How often each 0xFD-prefixed opcode occurs in the module's function bodies."""
    if data[:8] != b"\0asm\x01\0\0\0":
        raise WasmFormatError("not a wasm module (version 1)")
    r = _Reader(data, 8)
    simd: Counter = Counter()
    while r.p < len(data):
        sid, size = r.byte(), r.uleb()
        start, r.p = r.p, r.p + size
        if sid != 10:  # code section
            continue
        c = _Reader(data, start, start + size)
        for _ in range(c.uleb()):
            body_size = c.uleb()
            _walk_body(_Reader(data, c.p, c.p + body_size), simd)
            c.p += body_size
    return simd


def relaxed_instructions(data: bytes) -> Counter:
    """Relaxed-SIMD instructions by name, with their counts."""
    return Counter({RELAXED[op]: n for op, n in simd_opcodes(data).items() if op in RELAXED})


def check_relaxed_use(name: str, data: bytes, allowed: frozenset) -> Counter:
    """Raise if the module uses a relaxed instruction outside `allowed`; return what it uses."""
    used = relaxed_instructions(data)
    bad = {k: v for k, v in used.items() if k not in allowed}
    if bad:
        raise WasmFormatError(f"{name}: relaxed-SIMD instructions that may round differently on different "
                              f"CPUs: {dict(bad)} (only {sorted(allowed) or 'none'} allowed)")
    return used
