"""One smoke test of the real ``mem review`` in a pseudo-terminal (tmux),
reading the screen: the toolbar shows the counts, and Tab completes a key.
Skipped where tmux is not installed."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from tests.conftest import REPO

TMUX = shutil.which("tmux")


def _screen(sock: str) -> str:
    return subprocess.run([TMUX, "-L", sock, "capture-pane", "-p", "-t", "mem"], capture_output=True,
                          text=True, check=True).stdout


def _wait_for(sock: str, text: str, timeout: float = 60.0) -> str:
    end = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < end:
        screen = _screen(sock)
        if text in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not on the screen after {timeout}s:\n{screen}")


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_review_in_a_terminal_shows_counts_and_completes_keys(store, tmp_path):
    from objstore.memory import facts
    facts.remember(store, "project/acme/db", "postgres 16")
    facts.remember(store, "project/acme/cache", "redis 7")
    facts.remember(store, "user/editor-of-choice", "neovim")
    facts.remember(store, "project/acme/db", "postgres 17", trust="agent_observed")
    store.close()

    sock = f"mem-test-{uuid.uuid4().hex[:12]}"  # a private tmux server, killed below
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
    q = shlex.quote
    cmd = f"cd {q(str(REPO))} && exec env MEM_HOME={q(str(store.root))} {q(sys.executable)} -m cmds review"
    subprocess.run([TMUX, "-L", sock, "-f", os.devnull, "new-session", "-d", "-s", "mem", "-x", "120", "-y", "30",
                    cmd], check=True, env=env)
    try:
        _wait_for(sock, "mem>")  # (capture-pane drops trailing blanks)
        screen = _wait_for(sock, " queue 1 │ dormant 0 │ facts 3 │ sessions 0 │ ")  # the toolbar may come a frame later
        assert "[1/1] challenge  project/acme/db" in screen
        subprocess.run([TMUX, "-L", sock, "send-keys", "-t", "mem", "show user/ed", "Tab"], check=True)
        _wait_for(sock, "mem> show user/editor-of-choice")
        subprocess.run([TMUX, "-L", sock, "send-keys", "-t", "mem", "Enter"], check=True)
        screen = _wait_for(sock, "\nneovim\n")  # (the screen is read while it is drawn: wait for the last line)
        assert "user/editor-of-choice  v1" in screen
        subprocess.run([TMUX, "-L", sock, "send-keys", "-t", "mem", "accept", "Enter"], check=True)
        _wait_for(sock, " queue 0 │ ")
        subprocess.run([TMUX, "-L", sock, "send-keys", "-t", "mem", "C-d"], check=True)
        end = time.monotonic() + 60
        alive = True
        while alive and time.monotonic() < end:
            alive = subprocess.run([TMUX, "-L", sock, "has-session", "-t", "mem"], capture_output=True).returncode == 0
            time.sleep(0.1)
        assert not alive, "Ctrl-D did not end mem review"
    finally:
        subprocess.run([TMUX, "-L", sock, "kill-server"], capture_output=True)
    from objstore.memory.opening import open_store
    with open_store(store.root) as s:
        assert facts.current(s, "project/acme/db").fact.body == "postgres 17"
