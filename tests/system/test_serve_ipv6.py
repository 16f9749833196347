"""``mem serve --listen '[::1]:0'`` prints a URL with the address in
brackets, one a client can use (test32 X11: ``http://::1:46395/mcp`` was
pasted into ``mem mcp install codex --http URL`` as a broken config)."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

import pytest

from tests.system.mcp_helpers import serve


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_the_listening_url_of_an_ipv6_address_is_usable(tmp_path):
    with serve("--create", listen="[::1]:0") as (url, _log):   # (a new store: serve creates none unasked, ui39)
        assert url.startswith("http://[::1]:"), url
        try:
            urllib.request.urlopen(url + "/mcp", timeout=10)
            status = 200
        except urllib.error.HTTPError as e:   # reached: the server answered (a GET without a session)
            status = e.code
        assert 200 <= status < 500
