"""The wasm matvec kernel (the shipped .wasm, through wasmtime) against numpy references.

Tolerances, and why:
* exact path (x in float32): the only error is float32 summation. The standard worst-case bound
  for summing n terms is gamma_n * sum|terms| with gamma_n = n*u/(1 - n*u), u = 2^-24; we assert
  that bound per row (plus one rounding for the final scale multiply).
* fast path (x rounded to integers in [-63, 63]): the kernel's integer dot product is exact, so
  we mirror its arithmetic in numpy (same float32 steps, same rounding) and require bit-identical
  results, with and without the row sums that switch on the relaxed-SIMD dot product.
  Against the float64 product the error then comes only from rounding x: each x[c] moves by at
  most xs/2 with xs = max|x|/63, so |y_fast[r] - y[r]| <= s_r * sum_c |q_rc| * xs/2 (+ float32
  rounding). That bound is what the test asserts; for Gaussian data the observed relative error
  is about 0.3-0.9%.
"""
import numpy as np
import pytest

from decodelab_tools.reference import ACT_QMAX

SHAPES = [(1, 1), (1, 17), (33, 15), (4, 16), (5, 33), (64, 64), (257, 129), (4096, 256)]
U = 2.0 ** -24


def round_away_f32(v: np.ndarray) -> np.ndarray:
    """Half away from zero, computed as the kernel does (exact: v - trunc(v) has no rounding)."""
    t = np.trunc(v)
    f = v - t
    return t + (f >= 0.5) - (f <= -0.5)


def quantize_x_like_kernel(x: np.ndarray) -> tuple[np.ndarray, np.float32]:
    x = x.astype(np.float32)
    amax = np.float32(np.abs(x).max()) if x.size else np.float32(0)
    if amax == 0:
        return np.zeros_like(x, dtype=np.int8), np.float32(0)
    inv = np.float32(ACT_QMAX) / amax
    v = (x * inv).astype(np.float32)
    q = np.clip(round_away_f32(v), -ACT_QMAX, ACT_QMAX).astype(np.int8)
    return q, np.float32(amax / np.float32(ACT_QMAX))


def fast_mirror(q, s, x):
    xq, xs = quantize_x_like_kernel(x)
    acc = q.astype(np.int64) @ xq.astype(np.int64)
    return (s.astype(np.float32) * xs).astype(np.float32) * acc.astype(np.float32)


def check(kernel, q, s, x):
    rows, cols = q.shape
    mark = kernel.mark()
    try:
        m = kernel.upload_matrix(q.tobytes(), s.astype(np.float32), rows, cols)
        exact = np.array(m.matvec(x.astype(np.float32), fast=False), dtype=np.float64)
        fast = np.array(m.matvec(x.astype(np.float32), fast=True), dtype=np.float32)
        m.use_row_sums = False  # the relaxed build's other route (no row sums): the same bits
        assert np.array_equal(fast, np.array(m.matvec(x.astype(np.float32), fast=True), dtype=np.float32))
    finally:
        kernel.release(mark)
    s64, x64, q64 = s.astype(np.float64), x.astype(np.float32).astype(np.float64), q.astype(np.float64)
    ref = (q64 @ x64) * s64
    absterms = (np.abs(q64) @ np.abs(x64)) * np.abs(s64)
    gamma = cols * U / (1 - cols * U)
    bound_exact = (gamma + U) * absterms + 1e-45
    assert np.all(np.abs(exact - ref) <= bound_exact), "exact path outside the float32 summation bound"
    assert np.array_equal(fast, fast_mirror(q, s, x)), "fast path differs from its integer mirror"
    xs = np.abs(x64).max() / ACT_QMAX if cols else 0.0
    bound_fast = np.abs(s64) * (np.abs(q64).sum(1) * xs / 2) * (1 + 1e-5) + 2 * U * absterms + 1e-45
    assert np.all(np.abs(fast.astype(np.float64) - ref) <= bound_fast), "fast path beyond the x-rounding bound"
    return exact, fast, ref


@pytest.fixture(params=["relaxed", "simd", "scalar"])
def any_kernel(request, kernel, simd_kernel, scalar_kernel):
    return {"relaxed": kernel, "simd": simd_kernel, "scalar": scalar_kernel}[request.param]


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_random_shapes(any_kernel, rows, cols):
    rng = np.random.default_rng(rows * 7919 + cols)
    q = rng.integers(-127, 128, (rows, cols), dtype=np.int8)
    s = rng.uniform(1e-3, 5e-2, rows).astype(np.float32)
    x = rng.standard_normal(cols).astype(np.float32)
    check(any_kernel, q, s, x)


@pytest.mark.parametrize("case", ["all_max", "all_min", "alternating", "zero_rows", "tiny_scale", "huge_scale",
                                  "zero_x", "one_hot_x"])
def test_extremes(any_kernel, case):
    rows, cols = 37, 300
    rng = np.random.default_rng(5)
    q = rng.integers(-127, 128, (rows, cols), dtype=np.int8)
    s = rng.uniform(1e-3, 5e-2, rows).astype(np.float32)
    x = rng.standard_normal(cols).astype(np.float32)
    if case == "all_max":
        q[:] = 127
        x = np.abs(x) * 100
    elif case == "all_min":
        q[:] = -127
        x = np.abs(x) * 100
    elif case == "alternating":
        q[:, ::2], q[:, 1::2] = 127, -127
    elif case == "zero_rows":
        q[::3] = 0
        s[1::3] = 0
    elif case == "tiny_scale":
        s[:] = 1e-30
    elif case == "huge_scale":
        s[:] = 1e30
    elif case == "zero_x":
        x[:] = 0
    elif case == "one_hot_x":
        x[:] = 0
        x[cols - 1] = -3.5  # the last column sits in the scalar tail
    exact, fast, ref = check(any_kernel, q, s, x)
    if case == "zero_x":
        assert not exact.any() and not fast.any()
    if case == "one_hot_x":
        # one nonzero input is represented exactly by the int8 rounding (it is max|x|)
        np.testing.assert_allclose(fast, ref, rtol=1e-6)


def test_simd_and_scalar_builds_agree_on_fast_path(kernel, simd_kernel, scalar_kernel):
    rng = np.random.default_rng(11)
    q = rng.integers(-127, 128, (301, 333), dtype=np.int8)
    s = rng.uniform(1e-3, 5e-2, 301).astype(np.float32)
    x = rng.standard_normal(333).astype(np.float32)
    a = check(kernel, q, s, x)[1]
    b = check(simd_kernel, q, s, x)[1]
    c = check(scalar_kernel, q, s, x)[1]
    assert np.array_equal(a, b) and np.array_equal(a, c)  # integer accumulation: identical in any order
    assert (kernel.simd_level, simd_kernel.simd_level, scalar_kernel.simd_level) == (2, 1, 0)


def test_allocator_mark_release_and_zeroing(kernel):
    mark = kernel.mark()
    p = kernel.alloc(100)
    assert p % 16 == 0
    kernel.put(p, b"\xff" * 100)
    kernel.release(mark)
    p2 = kernel.alloc(100)
    assert p2 == p and kernel.get_bytes(p2, 100) == bytearray(100)
    kernel.release(mark)
