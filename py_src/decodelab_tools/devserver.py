"""A static file server for web/ on 127.0.0.1 (CPython only).

Any static server works for the page; this one only makes sure .wasm, .mjs and .whl get the
MIME types browsers insist on, and it can run in a background thread for the tests. Like the
plain static servers readers' pages live on, it sends every file as it is (no Content-Encoding).

With `network=(mbit, rtt_ms)` it plays a reader's link instead of localhost (bench startup
--network): every connection waits one round trip before its first request (the TCP handshake),
every request one more before its answer, and all answers share `mbit` of bandwidth, paced in
16 KB slices. It counts the bytes it sent (`bytes_sent`), headers included. The pacing is the
server's, so it holds for the page and its worker alike.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import threading
import time
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


class Link:
    """A shared pipe of `mbit` Mbit/s with a round trip of `rtt_ms`: send(n) returns when n bytes
    would have passed it after every byte already given to it (first come, first served)."""

    def __init__(self, mbit: float, rtt_ms: float, clock=time.monotonic, sleep=time.sleep):
        self.rate = mbit * 1e6 / 8  # bytes a second
        self.rtt = rtt_ms / 1000
        self._clock, self._sleep = clock, sleep  # a test gives its own
        self._free_at = 0.0  # when the pipe has sent everything given to it so far
        self._lock = threading.Lock()

    def send(self, n: int) -> None:
        with self._lock:
            self._free_at = max(self._clock(), self._free_at) + n / self.rate
            until = self._free_at
        self._sleep(max(0.0, until - self._clock()))


def page_csp(root: Path) -> str | None:
    """The Content-Security-Policy the built page declares in its <meta> tag (web/page.html is
    where it is written, once). A server that can send headers sends it as one, because a
    <meta> policy binds the page but not the engine's worker, which takes its policy from its own
    response (the worker also inherits the page's policy when the page starts it from a blob:
    URL: web/js/worker-url.js)."""
    try:
        html = (root / "index.html").read_text(encoding="utf-8")
    except OSError:
        return None
    m = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    return m.group(1) if m else None


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}
    SLICE = 16384

    def setup(self) -> None:
        super().setup()
        if self.server.link:
            time.sleep(self.server.link.rtt)  # the connection's handshake

    def send_head(self):
        if self.server.link:
            time.sleep(self.server.link.rtt)  # the request's way there and the answer's first byte back
        return super().send_head()

    def end_headers(self) -> None:
        if self.server.csp:
            self.send_header("Content-Security-Policy", self.server.csp)
        self.server.count(sum(len(h) for h in getattr(self, "_headers_buffer", [])))
        super().end_headers()

    def copyfile(self, source, outputfile) -> None:
        try:
            if self.server.link:  # slice by slice, at the link's pace
                while chunk := source.read(self.SLICE):
                    self.server.link.send(len(chunk))
                    self.server.count(len(chunk))  # counted before it leaves: a reader that has it sees it counted
                    outputfile.write(chunk)
                return
            # The kernel copies the file to the socket (os.sendfile): the base class's Python loop of
            # 64 KB writes held the GIL, so the page's 9.6 MB wasm and 6 MB snapshot were served one
            # chunk at a time between every other request of the page's start-up (and, in the tests,
            # between the calls of the Playwright client sharing this process).
            self.server.count(os.fstat(source.fileno()).st_size - source.tell())
            self.connection.sendfile(source)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser went away (a closed tab or test context): nothing to report

    def log_message(self, fmt, *args):  # keep test output quiet
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, handler, verbose: bool = False, network: tuple[float, float] | None = None,
                 csp: str | None = None):
        super().__init__(address, handler)
        self.csp = csp
        self.verbose = verbose
        self.link = Link(*network) if network else None
        self.bytes_sent = 0
        self._count_lock = threading.Lock()

    def count(self, n: int) -> None:
        with self._count_lock:
            self.bytes_sent += n


def make_server(root: Path, port: int = 0, verbose: bool = False, network: tuple[float, float] | None = None,
                csp: bool = False) -> Server:
    """csp: send the page's Content-Security-Policy as a header with every file (`build.py serve`
    does; the tests mostly play a plain static server, which sends none)."""
    handler = functools.partial(Handler, directory=str(root))
    return Server(("127.0.0.1", port), handler, verbose=verbose, network=network, csp=page_csp(root) if csp else None)


def serve_in_thread(root: Path, port: int = 0, network: tuple[float, float] | None = None,
                    csp: bool = False) -> tuple[Server, str]:
    srv = make_server(root, port, network=network, csp=csp)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def serve(root: Path, port: int = 8000) -> None:
    srv = make_server(root, port, verbose=True, csp=True)
    print(f"serving {root} at http://127.0.0.1:{srv.server_address[1]}/  (Ctrl-C to stop)", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
