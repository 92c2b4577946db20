"""One Python binding for the wasm kernel, in CPython and in Pyodide.

Everything above this module talks to `Kernel`, which binds every export of decodelab.h it uses
by name in one place, and needs from its host only four things:
call an export by name, write bytes at an address, read bytes from an address, and the wasm
module's own flags. Two hosts provide them:

* `WasmtimeHost` (CPython): runs the very .wasm file the page ships, through PyPI wasmtime.
  Memory is reached through its raw pointer with ctypes (one memmove per vector).
* `PyodideHost` (browser worker): the JS side instantiates the module and registers its exports
  as the JS module `decodelab_kernel`; bytes move with `TypedArray.assign` /
  `assign_to` into a preallocated Python buffer, the cheapest route measured (one copy, no
  per-element proxies; a Float32Array(8192) -> Python list costs ~0.5 ms by any route, the copy
  itself 2-3 us).

Vectors cross as `array.array('f')`, which both hosts fill with a single buffer copy and which
is what the pure-Python code (sampler, tokenizer) iterates over without numpy.
"""
from __future__ import annotations

import atexit
import sys
import weakref
from array import array
from pathlib import Path

from . import builds, spec

IN_PYODIDE = sys.platform == "emscripten"


class KernelError(RuntimeError):
    """The kernel could not be loaded or refused an operation (out of memory, bad input)."""


class WasmtimeHost:
    # Every live host, closed by an exit handler while the interpreter is still whole: wasmtime's
    # objects free themselves in __del__, which at interpreter exit ran after wasmtime's own
    # module was torn down and printed a TypeError traceback for every kernel still open.
    _live: "weakref.WeakSet[WasmtimeHost]" = weakref.WeakSet()

    @classmethod
    def _close_all(cls) -> None:
        for host in list(cls._live):
            try:
                host.close()
            except Exception:  # noqa: BLE001  (exiting: one host's failure must not keep the others open)
                pass

    def close(self) -> None:
        self._calls.clear()
        for obj in (self.store, self._module, self.engine):  # the store first: it holds the others
            obj.close()

    def __init__(self, wasm_path: str | Path):
        import ctypes

        import wasmtime

        self._ctypes = ctypes
        path = Path(wasm_path)
        if not path.exists():
            raise KernelError(f"kernel file not found: {path} (run `python build.py` first)")
        cfg = wasmtime.Config()
        cfg.wasm_relaxed_simd = True  # the main build's fast path uses the relaxed-SIMD dot product
        self.engine = wasmtime.Engine(cfg)
        self.store = wasmtime.Store(self.engine)
        try:
            self._module = module = wasmtime.Module.from_file(self.engine, str(path))
            self.instance = wasmtime.Instance(self.store, module, [])
        except Exception as e:  # wasmtime raises its own error types
            raise KernelError(f"could not instantiate {path.name}: {e}") from e
        exports = self.instance.exports(self.store)
        self.memory = exports["memory"]
        self._funcs = {}
        for name in ("dl_abi_version", "dl_simd_enabled"):
            self._funcs[name] = exports[name]
        self._exports = exports
        self._calls = {}
        self.name = path.name
        WasmtimeHost._live.add(self)

    def func(self, name: str):
        f = self._funcs.get(name)
        if f is None:
            f = self._funcs[name] = self._exports[name]
        try:
            return _FastCall(self.store, f, name)
        except Exception:  # a wasmtime-py whose internals differ: use its public call
            store = self.store
            return lambda *args: f(store, *args)

    def call(self, name: str, *args):
        f = self._calls.get(name)
        if f is None:
            f = self._calls[name] = self.func(name)
        return f(*args)

    def _base(self) -> int:
        # The base may move when memory grows, so ask each time (cheap).
        return self._ctypes.addressof(self.memory.data_ptr(self.store).contents)

    def write(self, ptr: int, data) -> None:
        mv = memoryview(data).cast("B")
        buf = (self._ctypes.c_char * len(mv)).from_buffer_copy(mv) if mv.readonly else (
            self._ctypes.c_char * len(mv)).from_buffer(mv)
        self._ctypes.memmove(self._base() + ptr, buf, len(mv))

    def read_into(self, ptr: int, out) -> None:
        mv = memoryview(out).cast("B")
        dst = (self._ctypes.c_char * len(mv)).from_buffer(mv)
        self._ctypes.memmove(dst, self._base() + ptr, len(mv))


class _FastCall:
    """Calls one export through wasmtime's C API with a preallocated argument array.

    wasmtime-py's public Func.__call__ re-reads the signature and converts every argument on
    each call (~80 us per argument measured); resolving the signature once brings a call to a
    few microseconds. Uses wasmtime-py internals, so pyproject pins its version.
    """

    _KINDS = {"i32": (0, "i32"), "i64": (1, "i64"), "f32": (2, "f32"), "f64": (3, "f64")}

    def __init__(self, store, func, name: str):
        import ctypes

        from wasmtime import _ffi as ffi
        from wasmtime._func import enter_wasm

        ty = func.type(store)
        params = [self._KINDS[str(p)] for p in ty.params]
        results = [self._KINDS[str(r)] for r in ty.results]
        self.n, self.nres = len(params), len(results)
        self.args = (ffi.wasmtime_val_t * max(1, self.n))()
        for slot, (code, _) in zip(self.args, params):
            slot.kind = code
        self.fields = [f for _, f in params]
        self.res = (ffi.wasmtime_val_t * max(1, self.nres))()
        self.res_field = results[0][1] if results else None
        self.ffi, self.ctypes, self.enter_wasm = ffi, ctypes, enter_wasm
        self.store, self.func, self.name = store, func, name

    def __call__(self, *args):
        if len(args) != self.n:
            raise KernelError(f"{self.name} takes {self.n} arguments, got {len(args)}")
        slots = self.args
        for i, (f, v) in enumerate(zip(self.fields, args)):
            setattr(slots[i].of, f, v)
        with self.enter_wasm(self.store) as trap:
            err = self.ffi.wasmtime_func_call(self.store._context(), self.ctypes.byref(self.func._func), slots,
                                              self.n, self.res, self.nres, trap)
            if err:
                from wasmtime import WasmtimeError

                raise WasmtimeError._from_ptr(err)
        return getattr(self.res[0].of, self.res_field) if self.res_field else None


atexit.register(WasmtimeHost._close_all)


class PyodideHost:
    def __init__(self, js_module_name: str = "decodelab_kernel"):
        import importlib

        try:
            mod = importlib.import_module(js_module_name)
        except ImportError as e:
            raise KernelError("the page did not register the wasm kernel with Pyodide") from e
        self.exports = mod.exports
        self.name = str(getattr(mod, "name", "kernel"))
        from js import Uint8Array  # type: ignore

        self._u8 = Uint8Array
        self._memory = self.exports.memory
        self._whole = None
        self._calls = {}

    def func(self, name: str):
        return getattr(self.exports, name)

    def call(self, name: str, *args):
        f = self._calls.get(name)
        if f is None:
            f = self._calls[name] = getattr(self.exports, name)
        return f(*args)

    def _view(self, ptr: int, n: int):
        # One Uint8Array over all of memory, made again only when memory has grown (which
        # detaches the old buffer): each copy then costs one subarray and one assign.
        whole = self._whole
        if whole is None or whole.byteLength == 0:
            whole = self._whole = self._u8.new(self._memory.buffer)
        return whole.subarray(ptr, ptr + n)

    def write(self, ptr: int, data) -> None:
        mv = memoryview(data).cast("B")
        self._view(ptr, len(mv)).assign(mv)

    def read_into(self, ptr: int, out) -> None:
        mv = memoryview(out).cast("B")
        self._view(ptr, len(mv)).assign_to(mv)


def wasm_path(build: str) -> Path:
    """Where build.py puts a kernel build (names: decodelab/builds.py)."""
    return Path(__file__).resolve().parents[2] / "web" / "kernels" / f"{build}.wasm"


def default_wasm_path(simd: bool = True) -> Path:
    """The build the page prefers (SIMD with the relaxed-SIMD dot), or the scalar one."""
    return wasm_path(builds.RELAXED.name if simd else builds.SCALAR.name)


# Sizes of the blocks the kernel writes, and the ABI's version: declared once in spec.py (the C
# header dl_spec.h is generated from the same declarations).
CONFIG_FIELDS = len(spec.CONFIG_FIELDS)
MATRIX_INFO_WORDS = spec.MATRIX_INFO_WORDS
PREPARE_HEADER_BYTES = spec.PREPARE_HEADER_BYTES
SAMPLE_UNDECIDED = spec.SAMPLE_UNDECIDED
SAMPLE_WORK_HEADER = spec.SAMPLE_WORK_HEADER
SAMPLE_MAX_OVER = spec.SAMPLE_MAX_OVER
sample_work_bytes = spec.sample_work_bytes
ERROR_MESSAGE_MAX = 200


class Kernel:
    """Typed access to the kernel's exports over either host: the only layer above the C ABI.

    Every export the Python code uses is bound here by its name in decodelab.h, once; nothing
    above this class calls the host directly."""

    ABI_VERSION = spec.ABI_VERSION

    def __init__(self, host):
        self.host = host
        abi = host.call("dl_abi_version")
        if abi != self.ABI_VERSION:
            raise KernelError(f"kernel ABI {abi}, this Python expects {self.ABI_VERSION}: rebuild the kernel")
        self.simd_level = host.call("dl_simd_enabled")  # 0 scalar, 1 SIMD, 2 SIMD + relaxed-SIMD dot
        self.simd = self.simd_level >= 1
        self.name = getattr(host, "name", "")
        f = host.func
        # memory
        self._alloc, self._mark, self._release = f("dl_alloc"), f("dl_heap_mark"), f("dl_heap_release")
        # products (the kernel self-check and the tests)
        self.matvec_f32x = f("dl_matvec_f32x")
        self.matvec_fast = f("dl_matvec_fast")
        self.row_sums = f("dl_row_sums")
        self.quantize_x = f("dl_quantize_x")  # the fast path's rounding of an input (the int8 figure)
        self.bench_read = f("dl_bench_read")  # the roofline's bandwidth probe (chapter 3)
        # the model
        self.last_error_ptr = f("dl_last_error")
        self.model_load = f("dl_model_load")
        self.model_config = f("dl_model_config")
        self.model_reset = f("dl_model_reset")
        self.model_rewind = f("dl_model_rewind")
        self.model_step = f("dl_model_step")
        self.model_block = f("dl_model_block")
        self.model_recompute = f("dl_model_recompute")
        self.model_logits = f("dl_model_logits")
        self.model_cache = f("dl_model_cache")  # the KV figure reads the cache
        self.model_set_fast = f("dl_model_set_fast")
        self.model_passes = f("dl_model_passes")
        self.model_macs = f("dl_model_macs")
        self.model_requantize = f("dl_model_requantize")
        self.model_restore = f("dl_model_restore")
        self.model_matrix = f("dl_model_matrix")
        # the sampler's reductions
        self.logits_prepare = f("dl_logits_prepare")
        self.logits_argmax = f("dl_logits_argmax")
        self.rank_curve = f("dl_rank_curve")
        self.logits_sample = f("dl_logits_sample")
        self.exp_f64 = f("dl_exp_f64")

    @classmethod
    def open(cls, simd: bool = True, path: str | Path | None = None, variant: str | None = None) -> "Kernel":
        """variant: None (the page's main kernel), "scalar" or "jsmatvec" (chapter 2's speed race;
        the plain-JS build exists only in the browser), or "simd" (SIMD without the relaxed-SIMD
        dot: the page's fallback, loaded here by tests)."""
        if IN_PYODIDE:
            return cls(PyodideHost("decodelab_kernel" + (f"_{variant}" if variant else "")))
        if variant == "jsmatvec":
            raise KernelError("the plain-JS matvec kernel runs only in the browser")
        if variant == "simd" and not path:
            path = wasm_path(builds.SIMD.name)
        return cls(WasmtimeHost(path or default_wasm_path(simd and variant != "scalar")))

    # -- memory ------------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        ptr = self._alloc(nbytes)
        if not ptr:
            raise KernelError(f"kernel out of memory allocating {nbytes} bytes")
        return ptr

    def mark(self) -> int:
        return self._mark()

    def release(self, mark: int) -> None:
        self._release(mark)

    def put(self, ptr: int, data) -> None:
        self.host.write(ptr, data)

    def put_f32(self, ptr: int, values) -> None:
        self.host.write(ptr, values if isinstance(values, array) and values.typecode == "f" else array("f", values))

    def read_into(self, ptr: int, out) -> None:
        """Fill the writable buffer `out` with the bytes at ptr (one copy)."""
        self.host.read_into(ptr, out)

    def get_f32(self, ptr: int, n: int) -> array:
        out = array("f", bytes(4 * n))
        self.host.read_into(ptr, out)
        return out

    def get_bytes(self, ptr: int, n: int) -> bytearray:
        out = bytearray(n)
        self.host.read_into(ptr, out)
        return out

    def last_error(self) -> str:
        raw = self.get_bytes(self.last_error_ptr(), ERROR_MESSAGE_MAX)
        return raw.split(b"\0", 1)[0].decode("utf-8", "replace") or "unknown kernel error"

    def upload_matrix(self, q: bytes, scales, rows: int, cols: int) -> "Matrix":
        if len(q) != rows * cols:
            raise KernelError(f"matrix has {len(q)} bytes, expected {rows}x{cols}")
        qp = self.alloc(rows * cols)
        sp = self.alloc(4 * rows)
        self.put(qp, q)
        self.put_f32(sp, scales)
        return Matrix(self, qp, sp, rows, cols)


class Matrix:
    """An int8 matrix with one float32 scale per row, resident in kernel memory."""

    def __init__(self, kernel: Kernel, q_ptr: int, s_ptr: int, rows: int, cols: int):
        self.k, self.q_ptr, self.s_ptr, self.rows, self.cols = kernel, q_ptr, s_ptr, rows, cols
        self.x_ptr = kernel.alloc(4 * cols)
        self.y_ptr = kernel.alloc(4 * rows)
        self.scratch = kernel.alloc(cols + 16)
        self.qsum = kernel.alloc(4 * rows)  # row sums, once, as the model does at load
        kernel.row_sums(q_ptr, rows, cols, self.qsum)
        self.use_row_sums = True  # False: the fast path without them (same bits, no relaxed dot)

    def matvec(self, x, fast: bool = True) -> array:
        """y = W x through the kernel; fast rounds x to 7-bit integers, exact keeps it float32."""
        k = self.k
        k.put_f32(self.x_ptr, x)
        self.run(fast)
        return k.get_f32(self.y_ptr, self.rows)

    def run(self, fast: bool = True, repeat: int = 1) -> None:
        """Run on the x already in kernel memory (benchmarks call this in a loop)."""
        k = self.k
        for _ in range(repeat):
            if fast:
                k.matvec_fast(self.q_ptr, self.s_ptr, self.x_ptr, self.y_ptr, self.rows, self.cols, self.scratch,
                               self.qsum if self.use_row_sums else 0)
            else:
                k.matvec_f32x(self.q_ptr, self.s_ptr, self.x_ptr, self.y_ptr, self.rows, self.cols)
