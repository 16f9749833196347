"""Fixtures of the vault tests: a store with a vault whose passphrase file is
on disk.  The vault's scrypt work factor is lowered to 10 through the
library parameter (the CLI always uses age's default, 18), so that reading a
sealed value costs milliseconds here; tests/vault/test_vault_cli.py covers
the default through the real command."""

from __future__ import annotations

import pytest

PASSPHRASE = "correct horse battery staple"
TEST_WORK_FACTOR = 10


@pytest.fixture
def pwfile(tmp_path):
    p = tmp_path / "passphrase"
    p.write_text(PASSPHRASE + "\n")
    return p


@pytest.fixture
def vstore(store):
    """A store with a vault (work factor 10)."""
    from objstore.vault.identity import init_vault
    init_vault(store, PASSPHRASE, work_factor=TEST_WORK_FACTOR)
    return store


def run_with_tty(args: list[str], answers: list[str], *, env: dict | None = None, cwd=None,
                 timeout: float = 90.0) -> tuple[int, str]:
    """Run ``args`` with a pseudo-terminal as its controlling terminal and
    standard streams; at each passphrase prompt (once echo is off) type the
    next of ``answers``.  Returns ``(exit status, terminal transcript)``."""
    import os
    import pty
    import re
    import select
    import signal
    import termios
    import time
    pid, fd = pty.fork()
    if pid == 0:  # child
        try:
            if cwd is not None:
                os.chdir(cwd)
            os.execvpe(args[0], args, env if env is not None else os.environ)
        finally:
            os._exit(127)
    transcript, pending, todo = b"", b"", list(answers)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                transcript += chunk
                pending += chunk
            if todo and re.search(rb"passphrase[^\n]*:\s*$", pending, re.I):
                echo_off_by = time.monotonic() + 30
                while termios.tcgetattr(fd)[3] & termios.ECHO and time.monotonic() < echo_off_by:
                    time.sleep(0.01)
                os.write(fd, todo.pop(0).encode() + b"\n")
                pending = b""
        else:  # stuck at a prompt
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return os.waitstatus_to_exitcode(status), transcript.decode(errors="replace")


@pytest.fixture
def tty():
    """:func:`run_with_tty`."""
    return run_with_tty
