"""The page's Python endpoints over stdin/stdout, for the build's first-paint step.

    python -m decodelab_tools.endpoint_server main=models/main.dlm draft=models/draft.dlm

Each line in is one call, {"name": ENDPOINT, "args": {...}}; each line out is what the page's
worker gets back for it: api.dispatch's JSON, {"ok": true, "result": ...} or {"ok": false,
"error": ...}. The endpoints, the kernel (the shipped .wasm through wasmtime) and the models are
the page's own, so the numbers the build writes into the HTML are the ones the page computes.
node/firstpaint.mjs drives it: the live-number registry (web/js/live/registry.js) says which
calls each number needs, and formats the answers in each language.
"""
from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from decodelab import api

    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but answers on the pipe: a stray print goes to stderr
    paths = dict(a.split("=", 1) for a in argv)
    loaded = json.loads(api.dispatch("load_models", json.dumps({"paths": paths})))
    if not loaded["ok"]:
        print(f"endpoint_server: the models did not load: {loaded['error']}", file=sys.stderr)
        return 1
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        out.write(api.dispatch(msg["name"], json.dumps(msg.get("args") or {})) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
