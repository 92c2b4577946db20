"""The page's one entry point into Python: widget -> worker message -> `dispatch` -> function.

Each endpoint is a plain function registered with @endpoint; arguments and results cross as
JSON (one string each way, so no JS proxies leak and nothing depends on Pyodide's conversion
rules). Errors come back as data: an InputError carries the name of the control it is about,
so the page can show the message next to where it was typed.
"""
from __future__ import annotations

import json
import traceback

from .errors import InputError

ENDPOINTS: dict = {}
STATE: dict = {}  # long-lived objects (kernel, engines) owned by the worker


def endpoint(fn):
    ENDPOINTS[fn.__name__] = fn
    return fn


def dispatch(name: str, args_json: str) -> str:
    if not STATE.get("registered"):
        _register_chapters()
        STATE["registered"] = True
    try:
        fn = ENDPOINTS.get(name)
        if fn is None:
            raise LookupError(f"no Python endpoint named {name!r}")
        args = json.loads(args_json) if args_json else {}
        result = fn(**args)
        return json.dumps({"ok": True, "result": result}, allow_nan=False)
    except InputError as e:
        return json.dumps({"ok": False, "error": {"type": "InputError", "message": str(e), "field": e.field}})
    except Exception as e:  # anything else is a bug or a broken file: report it, keep the worker alive
        return json.dumps({"ok": False, "error": {"type": type(e).__name__, "message": str(e),
                                                    "trace": traceback.format_exc(limit=6)}})


def kernel():
    from .kernel import Kernel

    k = STATE.get("kernel")
    if k is None:
        k = STATE["kernel"] = Kernel.open()
    return k


@endpoint
def ping() -> dict:
    import sys

    k = kernel()
    return {"python": sys.version.split()[0], "simd": k.simd, "simd_level": k.simd_level,
            "kernel": getattr(k.host, "name", "")}


def engine(name: str = "main"):
    e = STATE.get("engines", {}).get(name)
    if e is None:
        raise LookupError(f"model {name!r} is not loaded")
    return e


@endpoint
def load_models(paths: dict) -> dict:
    """Load every bundle (the page passes {name: path}); a broken file raises a clear BundleError."""
    from .engine import Engine

    engines = STATE.setdefault("engines", {})
    out = {}
    for name, path in paths.items():
        e = Engine.from_file(kernel(), path)
        engines[name] = e
        c = e.bundle.config
        out[name] = {"vocab": c.vocab_size, "context": c.context, "d_model": c.d_model, "n_layers": c.n_layers,
                     "n_heads": c.n_heads, "weights_bytes": e.weights_bytes(), "meta": e.bundle.meta}
    return out


@endpoint
def kernel_check(rows: int, cols: int, seed: int = 1) -> dict:
    """Multiply a seeded random int8 matrix by a seeded vector, both paths; CPython gives the same."""
    from .kernelcheck import run_check

    return run_check(kernel(), rows, cols, seed)


def _register_chapters() -> None:
    """Each chapter module registers its endpoints when imported (done on the first dispatch, so
    that importing a chapter module on its own, as the tests do, has no import cycle)."""
    from . import ch1, ch2, ch3, perf  # noqa: F401
