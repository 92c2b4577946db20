"""The page's one entry point into Python: widget -> worker message -> `dispatch` -> endpoint.

Each endpoint is a plain function registered with @session.endpoint in a chapter module;
arguments and results cross as JSON (one string each way, so no JS proxies leak and nothing
depends on Pyodide's conversion rules). Errors come back as data: an InputError carries the name
of the control it is about, so the page can show the message next to where it was typed.

Importing this module registers every endpoint (the chapter modules are imported here, and
only here); the state they share is owned by session.Session.
"""
from __future__ import annotations

import inspect
import json
import sys
import traceback

from . import cell, ch1, ch1_prose, ch2, ch2_prose, ch3, ch3_prose, figures, perf  # noqa: F401  (importing registers their endpoints)
from . import costs
from . import sampler as S
from .errors import InputError, ModelNotLoaded
from .kernelcheck import run_check
from .session import ENDPOINTS, endpoint, session


def dispatch(name: str, args_json: str) -> str:
    try:
        fn = ENDPOINTS.get(name)
        if fn is None:
            raise LookupError(f"no Python endpoint named {name!r}")
        args = json.loads(args_json) if args_json else {}
        if not isinstance(args, dict):
            raise InputError("args_unnamed", "args")
        try:
            inspect.signature(fn).bind(**args)
        except TypeError as e:  # a missing or unknown argument: the page's bug, said plainly
            raise InputError("args_bad", "args", endpoint=name, detail=str(e)) from None
        result = fn(**args)
        try:
            return json.dumps({"ok": True, "result": result}, allow_nan=False)
        except ValueError:  # inf or NaN in a result: say so instead of JSON's own words
            raise InputError("result_too_large", "result") from None
    except InputError as e:
        err = {"type": "InputError", "key": e.key, "args": e.args_, "message": str(e), "field": e.field}
        if isinstance(e, ModelNotLoaded):
            err["model"] = e.model  # the worker loads it and calls again (the draft, on first need)
        return json.dumps({"ok": False, "error": err})
    except Exception as e:  # anything else is a bug or a broken file: report it, keep the worker alive
        return json.dumps({"ok": False, "error": {"type": type(e).__name__, "message": str(e),
                                                    "trace": trace_of(e)}})


def trace_of(e: BaseException, limit: int = 6) -> str:
    """The exception's traceback for the console. Restored from the snapshot, Python has an
    empty zip where the standard library goes until the reader's cell first runs (worker.js
    says why), and quoting a stdlib frame's source line then fails inside linecache (zipimport
    raises EOFError, which linecache does not catch): the frames are then named without lines."""
    try:
        return "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=limit))
    except Exception:
        stack = traceback.StackSummary.extract(traceback.walk_tb(e.__traceback__), limit=limit, lookup_lines=False)
        frames = "".join(f'  File "{f.filename}", line {f.lineno}, in {f.name}\n' for f in stack)
        return f"Traceback (most recent call last; source lines not loaded yet):\n{frames}{type(e).__name__}: {e}\n"


@endpoint
def ping() -> dict:
    k = session().kernel()
    return {"python": sys.version.split()[0], "simd": k.simd, "simd_level": k.simd_level, "kernel": k.name,
            "openings": ch1.OPENINGS}


@endpoint
def load_models(paths: dict) -> dict:
    """Load every bundle (the page passes {name: path}); a broken file raises a clear BundleError."""
    for name, path in paths.items():
        session().load_model(name, path)
    return {name: model_figures(name) for name in paths}


@endpoint
def models_info() -> dict:
    """What load_models answered, for every model loaded so far (the prose's model figures)."""
    return {name: model_figures(name) for name in session().engines}


def model_figures(name: str) -> dict:
    e = session().engine(name)
    return {**costs.shape(e.bundle.config), "params": e.bundle.param_count(), "weights_bytes": e.weights_bytes(),
            "meta": e.bundle.meta, "keep": e.keep, "penalty_window": S.DEFAULTS.penalty_window}


@endpoint
def kernel_check(rows: int, cols: int, seed: int = 1) -> dict:
    """Multiply a seeded random int8 matrix by a seeded vector, both paths; CPython gives the same."""
    return run_check(session().kernel(), rows, cols, seed)
