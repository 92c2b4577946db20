"""Quantization rules shared by the export, the re-quantization reference and the page's demos.

Pure Python on purpose: the browser runs the same code (the outlier demo) and tests compare the
C kernel's in-place re-quantization against `requantize_reference` bit for bit.

Rounding is half away from zero everywhere, written once per language: here (round_half_away),
in C (dl_round_away in matvec.c, and its four-lane twin dl_round_away4 in fastmath.h), in numpy
for the CPython-only code (reference.round_half_away_np) and in JS (roundHalfAway in
web/js/jsmatvec.js); tests/test_rounding.py holds them together. Arithmetic is float32 where the
kernel uses float32, so every side gives identical integers.
"""
from __future__ import annotations

import math
import struct
from .spec import GROUP32, MATRIX, SCHEME_NAMES

_f32 = struct.Struct("<f")


def f32(x: float) -> float:
    """Round a Python float to the nearest float32 (what the kernel's arithmetic sees)."""
    return _f32.unpack(_f32.pack(x))[0]


def round_half_away(v: float) -> int:
    """Half away from zero, as kernels/matvec.c dl_round_away: v - trunc(v) is exact, no double rounding."""
    t = math.trunc(v)
    f = v - t
    return t + 1 if f >= 0.5 else (t - 1 if f <= -0.5 else t)


def qmax_for_bits(bits: int) -> int:
    if not 2 <= bits <= 8:
        raise ValueError(f"bits must be between 2 and 8, got {bits}")
    return (1 << (bits - 1)) - 1


def quantize_row(values, bits: int = 8) -> tuple[list[int], float]:
    """One scale for the whole row: s = max|v| / qmax, q = round(v / s)."""
    qmax = qmax_for_bits(bits)
    amax = max((abs(v) for v in values), default=0.0)
    if amax == 0.0:
        return [0] * len(values), 0.0
    s = amax / qmax
    return [max(-qmax, min(qmax, round_half_away(v / s))) for v in values], s


SCHEMES = SCHEME_NAMES


def requantize_reference(q: bytes | bytearray, scales: list[float], rows: int, cols: int, bits: int,
                         scheme: str) -> tuple[bytearray, list[float]]:
    """Mirror of dl_model_requantize for one matrix, starting from the shipped int8 weights.

    The weights w = s_row * q are re-quantized to `bits` with one scale per row, per matrix or
    per group of 32 columns, and written back in the kernel's int8 row-scaled format.
    Per row and per matrix this is exact: q8 = q_b * m and s8 = s_b / m with the integer
    m = floor(127 / qmax_b). Per group, the groups of a row have different scales, so the row is
    carried at 8 bits with its own scale: a second rounding, at most half an 8-bit step.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}")
    qmax = qmax_for_bits(bits)
    m = 127 // qmax
    out_q = bytearray(rows * cols)
    out_s = [0.0] * rows
    signed = memoryview(bytes(q)).cast("b")
    if scheme == MATRIX.name:
        amax = 0.0
        for r in range(rows):
            s = f32(scales[r])
            for c in range(cols):
                a = abs(f32(s * signed[r * cols + c]))
                if a > amax:
                    amax = a
    for r in range(rows):
        s_row = f32(scales[r])
        w = [f32(s_row * signed[r * cols + c]) for c in range(cols)]
        if scheme == GROUP32.name:
            deq = [0.0] * cols
            width = GROUP32.group
            for g0 in range(0, cols, width):
                grp = w[g0:g0 + width]
                ga = max(abs(v) for v in grp)
                if ga == 0.0:
                    continue
                sg = f32(ga / qmax)
                for i, v in enumerate(grp):
                    qi = max(-qmax, min(qmax, round_half_away(f32(v / sg))))
                    deq[g0 + i] = f32(sg * qi)
            ra = max(abs(v) for v in deq) if cols else 0.0
            if ra == 0.0:
                continue
            s8 = f32(ra / 127)
            for c in range(cols):
                out_q[r * cols + c] = max(-127, min(127, round_half_away(f32(deq[c] / s8)))) & 0xFF
            out_s[r] = s8
            continue
        amax_r = amax if scheme == MATRIX.name else max((abs(v) for v in w), default=0.0)
        if amax_r == 0.0:
            continue
        sb = f32(amax_r / qmax)
        for c in range(cols):
            qb = max(-qmax, min(qmax, round_half_away(f32(w[c] / sb))))
            out_q[r * cols + c] = (qb * m) & 0xFF
        out_s[r] = f32(sb / m)
    return out_q, out_s


def planted_outlier_errors(rows: int, cols: int, outlier: float, bits: int = 8, seed: int = 1) -> dict:
    """The row-vs-matrix scale experiment: Gaussian weights with one planted outlier.

    Returns mean absolute error overall and within the outlier's row, per scheme.
    """
    import random

    rng = random.Random(seed)
    w = [[rng.gauss(0.0, 1.0) for _ in range(cols)] for _ in range(rows)]
    orow, ocol = rows // 2, cols // 3
    w[orow][ocol] = outlier
    qmax = qmax_for_bits(bits)
    res = {}
    matrix_amax = max(abs(v) for row in w for v in row)
    for scheme in ("row", "matrix"):
        tot, tot_row = 0.0, 0.0
        for r, row in enumerate(w):
            amax = max(abs(v) for v in row) if scheme == "row" else matrix_amax
            s = amax / qmax if amax else 1.0
            err = sum(abs(v - s * max(-qmax, min(qmax, round_half_away(v / s)))) for v in row)
            tot += err
            if r == orow:
                tot_row = err / cols
        res[scheme] = {"mean_abs_error": tot / (rows * cols), "outlier_row_error": tot_row,
                       "scale_ratio_outlier_row": (max(abs(v) for v in w[orow]) / qmax)}
    # the rule of thumb: rounding errors spread evenly over one step, so they average s/4
    res["row_scale_mean"] = sum(max(abs(v) for v in row) for row in w) / (rows * qmax)
    res["matrix_scale"] = matrix_amax / qmax
    res["outlier_is_max"] = abs(outlier) >= matrix_amax
    res["bytes"] = {"float32": 4 * rows * cols, "int8": rows * cols, "row_scales": 4 * rows, "matrix_scale": 4}
    res["picture"] = {**outlier_picture(w, orow, matrix_amax, qmax), "outlier": outlier}
    res["ratio"] = res["matrix"]["mean_abs_error"] / max(1e-30, res["row"]["mean_abs_error"])
    if math.isnan(res["ratio"]):
        res["ratio"] = 0.0
    return res


PICTURE_WEIGHTS = 48  # weights of one row the outliers picture places on its number line


def outlier_picture(w: list, orow: int, matrix_amax: float, qmax: int) -> dict:
    """What the outliers picture draws: an ordinary row's first weights (not the outlier's row,
    where there is another) with the step of each scheme's comb of levels and where each weight
    lands on it. The row's own largest weight sets its per-row step; the outlier sets the matrix's."""
    r = 0 if orow != 0 or len(w) == 1 else 1
    row = w[r]
    steps = {"row": max(abs(v) for v in row) / qmax, "matrix": matrix_amax / qmax}
    shown = row[:PICTURE_WEIGHTS]

    def level(v: float, s: float) -> float:
        return s * max(-qmax, min(qmax, round_half_away(v / s))) if s else 0.0

    return {"row": r, "weights": shown, "reach": max(abs(v) for v in row), "qmax": qmax, "steps": steps,
            "rounded": {k: [level(v, s) for v in shown] for k, s in steps.items()}}
