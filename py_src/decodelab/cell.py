"""The reader's Python cell: runs what the reader typed in the worker's own interpreter."""
from __future__ import annotations

import contextlib
import io
import linecache
import time
import traceback

from .errors import InputError
from .session import endpoint

MAX_CELL_OUTPUT = 20000  # characters of a Python cell's output the page shows


@endpoint
def run_cell(code: str) -> dict:
    """Run the reader's Python in the worker's interpreter; return what it printed (or the error)."""
    if not isinstance(code, str) or not code.strip():
        raise InputError("ch1_cell_empty", "code")
    out = io.StringIO()
    ns = {"__name__": "__cell__"}
    t0 = time.perf_counter()
    ok = True
    # the traceback can then quote the reader's own lines (and point at them)
    linecache.cache["<cell>"] = (len(code), None, code.splitlines(True), "<cell>")
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(code, "<cell>", "exec"), ns)
        except Exception as err:
            ok = False
            # start the traceback at the reader's code: our own frame (this exec) is noise, and
            # filtering its lines out of the text used to leave its ~~~^^^ marker behind
            tb = err.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename != "<cell>":
                tb = tb.tb_next
            print("".join(traceback.format_exception(type(err), err, tb)), end="")
    text = out.getvalue()
    cut = len(text) > MAX_CELL_OUTPUT  # the page says so after the text (w1.pc.cut)
    return {"ok": ok, "output": text[:MAX_CELL_OUTPUT], "cut": MAX_CELL_OUTPUT if cut else None,
            "ms": (time.perf_counter() - t0) * 1e3}
