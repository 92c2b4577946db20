"""`python3 build.py bench lighthouse`: Lighthouse (npm, pinned in package-lock.json) with Debian's
Chromium against the built site on a plain static server, the mobile and desktop presets.

A plain `python3 -m http.server`, not `build.py serve`, because that is what a reader's host is
likely to be (no CSP header, no pre-compressed files sent as such): the page must be fast there.
Then the same server compressing its text files (HTML, CSS, JS, JSON, SVG) with gzip as they go,
as GitHub Pages, Netlify or a default nginx do: the page's HTML is 340 KB as it is and under 70 KB
compressed, and on Lighthouse's simulated mobile link the HTML is most of the first paint's wait.
Each preset runs three times on each host in a fresh Chromium profile; the medians are printed
and written as JSON. A benchmark: it measures and never asserts.
"""
from __future__ import annotations

import gzip
import http.server
import io
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# The audits the targets name (#45), as Lighthouse reports them (numericValue: ms, or unitless CLS).
METRICS = {"tbt_ms": "total-blocking-time", "lcp_ms": "largest-contentful-paint", "cls": "cumulative-layout-shift",
           "fcp_ms": "first-contentful-paint", "tti_ms": "interactive", "main_thread_ms": "mainthread-work-breakdown"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# what a compressing host sends gzipped (the pre-compressed .gz files go as they are, as before)
COMPRESSED = (".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt")


@contextmanager
def plain_server(web: Path, compress: bool = False):
    """A static server over the built folder on a free port of localhost: the standard library's,
    as a reader's host might be (no CSP header, no pre-compressed files sent as such). The one
    change: each language's page names itself and the others with absolute URLs under this
    server's address, as `DECODELAB_SITE_URL=<address> build.py build` would write them (SEO
    audits accept only absolute hreflang links), without rebuilding the site for a port.
    `compress`: text files go gzipped to a browser that accepts it (a host that compresses)."""
    from . import firstpaint, texts

    pages = {"/" + firstpaint.page_name(lang): lang for lang in texts.LANGS}
    pages["/"] = texts.LANGS[0]
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(web), **kw)

        def log_message(self, *a):
            pass

        def send_head(self):
            path = self.path.split("?")[0]
            lang = pages.get(path)
            file = Path(self.translate_path(self.path))  # decoded and normalised, as the stdlib serves it
            if lang is not None:
                body = firstpaint.seo_links((web / firstpaint.page_name(lang)).read_text(encoding="utf-8"), lang, base).encode()
                ctype = "text/html; charset=utf-8"
            elif compress and path.endswith(COMPRESSED) and file.is_file() and file.resolve().is_relative_to(web.resolve()):
                body, ctype = file.read_bytes(), self.guess_type(path)
            else:
                return super().send_head()
            gz = compress and "gzip" in self.headers.get("Accept-Encoding", "")
            if gz:
                body = gzip.compress(body, 6)
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            if gz:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()


def run_once(url: str, preset: str) -> dict:
    """One Lighthouse run; the figures this benchmark reports, from its JSON report."""
    if not CLI.exists():
        sys.exit("Lighthouse is not installed: run `npm ci` (build.py test and bench do)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        cmd = ["node", str(CLI), url, "--quiet", "--output=json", f"--output-path={out}",
               f"--only-categories={','.join(CATEGORIES)}",
               f"--chrome-flags=--headless=new --no-sandbox --user-data-dir={tmp}/profile"]
        if preset == "desktop":
            cmd.append("--preset=desktop")
        subprocess.run(cmd, check=True, env={**os.environ, "CHROME_PATH": CHROMIUM}, timeout=600)
        report = json.loads(out.read_text())
    audits = report["audits"]
    row = {c: round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES}
    for name, audit in METRICS.items():
        row[name] = round(audits[audit].get("numericValue") or 0, 3 if name == "cls" else 0)
    tasks = (audits.get("long-tasks", {}).get("details") or {}).get("items") or []
    row["long_tasks"] = len(tasks)
    row["longest_task_ms"] = round(max((t.get("duration", 0) for t in tasks), default=0))
    row["failed_audits"] = sorted(a for c in CATEGORIES[1:] for a in _failed(report, c))
    return row


def _failed(report: dict, category: str) -> list[str]:
    refs = report["categories"][category]["auditRefs"]
    return [r["id"] for r in refs if r.get("weight") and (report["audits"][r["id"]].get("score") or 0) < 1]


# the columns: (name, preset, compressing host)
COLUMNS = (("mobile", "mobile", False), ("desktop", "desktop", False),
           ("mobile-gzip", "mobile", True), ("desktop-gzip", "desktop", True))


def measure(web: Path, runs: int = 3) -> dict:
    """Every run's figures and, per preset and host, their medians (and the audits any run failed)."""
    data = {"runs": {}, "median": {}}
    for compress in (False, True):
        with plain_server(web, compress) as url:
            for name, preset, gz in COLUMNS:
                if gz != compress:
                    continue
                rows = [run_once(url, preset) for _ in range(runs)]
                data["runs"][name] = rows
                data["median"][name] = {k: statistics.median(r[k] for r in rows)
                                        for k in rows[0] if k != "failed_audits"}
                data["median"][name]["failed_audits"] = sorted({a for r in rows for a in r["failed_audits"]})
    return data
