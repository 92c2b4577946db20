"""The dev server (decodelab_tools/devserver.py): files as they are, with the MIME types the page
needs, and, for bench startup --network, a link that paces every answer and counts its bytes."""
from __future__ import annotations

import urllib.request

import pytest
from conftest import WEB

from decodelab_tools.devserver import Link, serve_in_thread


@pytest.mark.parametrize("network", [None, (400.0, 1.0)], ids=["localhost", "paced"])
def test_the_server_sends_files_as_they_are_and_counts_every_byte(network):
    srv, url = serve_in_thread(WEB, network=network)
    try:
        want = (WEB / "models" / "draft.dlm").read_bytes()
        with urllib.request.urlopen(url + "/models/draft.dlm") as r:
            got, headers = r.read(), r.headers
        srv.shutdown()
        assert got == want and "Content-Encoding" not in headers
        assert headers["Content-Type"] == "application/octet-stream"
        # the status line and headers are counted too, each byte before it left
        assert 100 < srv.bytes_sent - len(want) < 400, srv.bytes_sent
    finally:
        srv.server_close()


def test_the_link_sends_in_order_at_its_rate():
    """Link.send books each slice after every slice given before it: a slice is done when all the
    bytes so far have passed at the link's rate, whoever sent them; a pause lets the link idle."""
    now, slept = [0.0], []

    def sleep(s):
        slept.append(round(s, 6))
        now[0] += s

    link = Link(mbit=8.0, rtt_ms=40, clock=lambda: now[0], sleep=sleep)  # 1 MB/s
    assert (link.rate, link.rtt) == (1e6, 0.04)
    link.send(500_000)
    link.send(250_000)
    assert slept == [0.5, 0.25] and now[0] == pytest.approx(0.75)
    now[0] += 1.0  # nothing sent for a second: the next slice starts now, not at 0.75
    link.send(100_000)
    assert slept[-1] == 0.1
