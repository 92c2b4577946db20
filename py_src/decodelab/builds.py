"""The kernel builds, named once for Python (build.py, kernel.py and the tests read this table).

The page gets the same names from build-info.json, which build.py writes from this table, so
JavaScript never spells them on its own.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelBuild:
    name: str              # file stem in web/kernels/ and the key in build-info.json
    label: str             # what the page calls it
    flags: tuple           # compiler flags of this build (on top of the shared ones)
    extra_sources: tuple   # translation units only this build links
    relaxed_allowed: frozenset  # relaxed-SIMD instructions it may contain (build.py checks)


RELAXED_DOT = "i32x4.relaxed_dot_i8x16_i7x16_add_s"

RELAXED = KernelBuild("kernel_relaxed", "relaxed-SIMD kernel", ("-msimd128", "-DDL_RELAXED_DOT"),
                      ("matvec_relaxed.c",), frozenset({RELAXED_DOT}))
SIMD = KernelBuild("kernel_simd", "SIMD kernel", ("-msimd128",), (), frozenset())
SCALAR = KernelBuild("kernel_scalar", "scalar kernel", ("-mno-simd128",), (), frozenset())
JSMATVEC = KernelBuild("kernel_jsmatvec", "scalar kernel with plain-JS products", ("-mno-simd128", "-DDL_JS_MATVEC"),
                       (), frozenset())

ALL = (RELAXED, SIMD, SCALAR, JSMATVEC)
# What the page tries, best first: each is validated and instantiated, the first that works is used.
PAGE_FALLBACK_ORDER = (RELAXED, SIMD, SCALAR)
BY_NAME = {b.name: b for b in ALL}

# Sources every build compiles; matvec_relaxed.c also gets -mrelaxed-simd (and only it).
COMMON_SOURCES = ("matvec.c", "model.c", "logits.c")
RELAXED_ONLY_FLAGS = ("-mrelaxed-simd",)
