"""Round half away from zero: one implementation per language, all giving the same integers.

Python (quant.round_half_away), numpy (reference.round_half_away_np), JavaScript
(jsmatvec.js roundHalfAway) and C (dl_round_away and its four-lane twin, reached through
dl_quantize_x: with max|x| = 63 the scale is exactly 1, so xq = round(x)).
"""
import json
import shutil
import struct
import subprocess

import numpy as np
import pytest
from conftest import WEB

from decodelab import quant
from decodelab_tools.reference import round_half_away_np


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


BELOW_HALF = f32(np.nextafter(np.float32(0.5), np.float32(0)))  # 0.49999997: "+0.5" rounds it to 1
EDGES = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, BELOW_HALF, -BELOW_HALF, 0.49999, 1.49999994, -2.50000024,
         62.5, -62.5, 62.49999619, 3.0, -7.25, 12.75, 0.25]
RNG = np.random.default_rng(5)
VALUES = EDGES + [f32(v) for v in RNG.uniform(-63, 63, 200)]


def expected():
    return [quant.round_half_away(v) for v in VALUES]


def test_the_classic_mistake_is_not_made():
    assert quant.round_half_away(BELOW_HALF) == 0 and quant.round_half_away(-BELOW_HALF) == 0
    assert [quant.round_half_away(v) for v in (0.5, -0.5, 2.5, -2.5)] == [1, -1, 3, -3]


def test_numpy_rule_equals_python():
    assert round_half_away_np(np.array(VALUES, dtype=np.float32)).astype(int).tolist() == expected()


def test_kernel_scalar_rule_equals_python(kernel):
    got = [kernel.host.call("dl_round_away", v) for v in VALUES]  # a test-only entry point
    assert got == expected()


def test_kernel_four_lane_rule_equals_python(kernel):
    # 63 first fixes the scale at 1; an odd count makes the scalar tail run after the four-lane loop
    xs = [63.0] + [max(-63.0, min(63.0, v)) for v in VALUES]
    xs += [0.5] * (3 - len(xs) % 4 + 2)
    n = len(xs)
    mark = kernel.mark()
    xp, qp = kernel.alloc(4 * n), kernel.alloc(n)
    kernel.put_f32(xp, xs)
    scale = kernel.host.func("dl_quantize_x")(xp, qp, n)  # not bound in Kernel: only tests call it
    got = list(struct.unpack(f"<{n}b", bytes(kernel.get_bytes(qp, n))))
    kernel.release(mark)
    assert abs(scale - 1.0) < 1e-7
    assert got == [quant.round_half_away(v) for v in xs]


@pytest.mark.skipif(not shutil.which("node"), reason="node comes with the build's npm")
def test_javascript_rule_equals_python(tmp_path):
    script = tmp_path / "r.mjs"
    script.write_text(f'import {{ roundHalfAway }} from "{(WEB / "js" / "jsmatvec.js").as_uri()}";\n'
                      f'console.log(JSON.stringify({json.dumps(VALUES)}.map(roundHalfAway)));')
    got = json.loads(subprocess.run(["node", script], check=True, capture_output=True, text=True).stdout)
    assert [int(v) for v in got] == expected()


def test_export_uses_the_rule():
    from decodelab_tools.training.export import quantize_rows

    w = np.array([[63.0 * 127 / 63, 0.5, BELOW_HALF, -2.5]], dtype=np.float32)  # scale 1 per row
    q, s = quantize_rows(w)
    assert s[0] == np.float32(1.0)
    assert q[0].tolist() == [127, 1, 0, -3]
