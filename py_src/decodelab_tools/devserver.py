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

    def copyfile(self, source, outputfile) -> None:
        # The kernel copies the file to the socket (os.sendfile): the base class's Python loop of
        # 64 KB writes held the GIL, so the page's 9.6 MB wasm and 6 MB snapshot were served one
        # chunk at a time between every other request of the page's start-up (and, in the tests,
        # between the calls of the Playwright client sharing this process).
        try:
            self.connection.sendfile(source)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser went away (a closed tab or test context): nothing to report

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
