"""A static file server for web/ on 127.0.0.1 (CPython only).

Any static server works for the page; this one only makes sure .wasm, .mjs and .whl get the
MIME types browsers insist on, and it can run in a background thread for the tests.
"""
from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".whl": "application/zip",
    ".dlm": "application/octet-stream",
    ".json": "application/json",
    ".zip": "application/zip",
    ".woff2": "font/woff2",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def log_message(self, fmt, *args):  # keep test output quiet
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)


def make_server(root: Path, port: int = 0, verbose: bool = False) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(Handler, directory=str(root))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    srv.verbose = verbose
    srv.daemon_threads = True
    return srv


def serve_in_thread(root: Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    srv = make_server(root, port)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def serve(root: Path, port: int = 8000) -> None:
    srv = make_server(root, port, verbose=True)
    print(f"serving {root} at http://127.0.0.1:{srv.server_address[1]}/  (Ctrl-C to stop)", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
