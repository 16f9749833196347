"""``mem proxy --listen 127.0.0.1:0`` says the port it bound (test28 Y4), so a
script can point ``ANTHROPIC_BASE_URL`` at it; a port another process holds
is refused with the documented message and nothing is announced.  A real
``mem proxy`` process on loopback."""

from __future__ import annotations

import http.client
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

REPO = Path(__file__).resolve().parents[2]


def _env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(tmp_path / "store"), HOME=str(tmp_path / "home"))
    subprocess.run([sys.executable, "-m", "cmds", "init"], env=env, check=True, cwd=REPO, capture_output=True)
    return env


def test_port_zero_is_announced_as_the_port_bound(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "cmds", "proxy", "--listen", "127.0.0.1:0",
                             "--upstream", "http://127.0.0.1:9"], env=_env(tmp_path), cwd=REPO,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        line = proc.stderr.readline()      # blocks until the announcement (or the process ends: "")
        m = re.match(r"mem proxy on http://127\.0\.0\.1:(\d+) -> http://127\.0\.0\.1:9 ", line)
        assert m, line
        port = int(m.group(1))
        assert port != 0
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("GET", "/mem/health")
        r = c.getresponse()
        assert r.status == 200 and b"mem proxy" in r.read()
    finally:
        proc.terminate()
        proc.wait(60)


def test_a_taken_port_is_refused_without_an_announcement(tmp_path):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "cmds", "proxy", "--listen", f"127.0.0.1:{port}",
                            "--upstream", "http://127.0.0.1:9"], env=_env(tmp_path), cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in r.stderr and "mem proxy on" not in r.stderr


@pytest.mark.parametrize("upstream", ["http://gwuser:gwpass-Zq7mm2xLp99@127.0.0.1:9",
                                      "http://gwpass-Zq7mm2xLp99@127.0.0.1:9",
                                      "http://127.0.0.1:9/?key=gwpass-Zq7mm2xLp99"])
def test_an_upstream_holding_a_credential_is_refused_unshown(tmp_path, upstream):
    """test29 P12: an ``--upstream`` with ``user:password@`` (or a key in
    its query) was printed on the start line and sent as an extra
    ``Authorization`` header, which crashed every request that had one."""
    r = subprocess.run([sys.executable, "-m", "cmds", "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream],
                       env=_env(tmp_path), cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "the --upstream URL holds a credential" in r.stderr
    assert "Zq7mm2xLp99" not in r.stdout + r.stderr and "mem proxy on" not in r.stderr
