"""fresh43 F13 (session 44, fil44): an ANSI colour sequence in the input
(``ESC [ 3 1 m``, pasted or sent by a terminal) reached prompt-toolkit's
mouse parser, whose ValueError ended ``mem review`` with "internal error"
(an item half-reviewed).  The shell now drops the sequence and goes on.
The real ``mem review`` in a pseudo-terminal."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

from tests.conftest import REPO


def _read_until(fd: int, text: bytes, seen: bytearray, timeout: float = 60.0) -> bytes:
    end = time.monotonic() + timeout
    while text not in seen and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return bytes(seen)


def test_review_survives_an_ansi_colour_sequence(store, tmp_path):
    from objstore.memory import facts
    facts.remember(store, "project/acme/db", "postgres 16")
    store.close()
    master, slave = os.openpty()
    env = dict(os.environ, MEM_HOME=str(store.root), TERM="xterm", COLUMNS="100", LINES="30")
    p = subprocess.Popen([sys.executable, "-m", "cmds", "review"], cwd=REPO, env=env, stdin=slave, stdout=slave,
                         stderr=slave, close_fds=True)
    os.close(slave)
    seen = bytearray()
    try:
        _read_until(master, b"mem>", seen)
        os.write(master, b"search \x1b[31mpostgres\x1b[0m\r")
        out = _read_until(master, b"project/acme/db", seen, timeout=30)
        assert b"internal error" not in out and b"project/acme/db" in out, out.decode(errors="replace")
        os.write(master, b"quit\r")
        assert p.wait(timeout=60) == 0, out.decode(errors="replace")
        out = _read_until(master, b"\0", seen, timeout=2)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(master)
    text = out.decode(errors="replace")
    assert "internal error" not in text and "ValueError" not in text, text
    assert text.count("project/acme/db") >= 1, text
