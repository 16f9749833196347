"""A hook cursor file (``cache/cursors/<h>.json`` or its ``<h>.state``), a
session's ``cache/session-state/<h>.json`` or ``cache/lineage.log`` that is
not a regular file: a symlink to ``/dev/zero`` made the Stop hook read
without bound (11 GB RSS, its budget never fired: a signal cannot interrupt
one C-level read), a FIFO made ``mem doctor`` and ``doctor --fix`` hang, a
folder logged ``IsADirectoryError`` unnamed by doctor (test18b V2).  Now
each is read by ``core.atomic.read_regular`` (non-blocking, fstat, a size
cap): an unusable cursor is read as absent (the transcript is read again,
the turn writer's dedup stores nothing twice), ``mem doctor`` names it and
``--fix`` removes it.  Real ``mem`` processes on real files, under a
timeout and an address-space limit (so a regression fails, not the box)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from tests.hooks._util import (REPO, asst, bag, chains_ok, hook_env, hook_log, line, payload, text,
                               until_within_budget, user)

SID = "eeeeeeee-2222-3333-4444-555555555555"
AS_LIMIT = 3 << 30      # a read of /dev/zero ends in MemoryError here instead of eating the machine


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def _mem(store_path, *args: str, data: dict | None = None, timeout: float = 30,
         text: bool = False) -> subprocess.CompletedProcess:
    """``mem ARGS`` as a real process, bounded in time and memory."""
    raw = json.dumps(data) if data is not None else ""
    p = subprocess.run([sys.executable, "-m", "cmds", *args], input=raw if text else raw.encode(), capture_output=True, text=text, timeout=timeout,
                       env=hook_env(store_path, MEM_NO_HELPER="1", MEM_HOOK_FORK="0"), cwd=REPO,
                       preexec_fn=_limit)
    return p


def _exchange(i: int) -> bytes:
    return line(user(f"u{i}", f"prompt {i}", SID)) + line(asst(f"a{i}", f"msg_{i}", [text(f"answer {i}")], SID))


def _stop(store_path, t, event: str = "Stop") -> None:
    """The ``event`` hook of the session's transcript ``t``; run again while
    the machine's load made it reach its budget (``until_within_budget``:
    the first one on a new store also creates the store and its index)."""
    data = payload(event, SID, t, stop_hook_active=False, reason="other")
    p, within = until_within_budget(event, lambda: _mem(store_path, "hook", "claude-code", data=data))
    assert p.returncode == 0, p.stderr
    if not within and event == "SessionEnd":   # 1.2 s never enough here: what follows it (the shell wrapper)
        p = _mem(store_path, "hook", "catch-up", "--idle", "0")
        assert p.returncode == 0, p.stderr


def _spoil(p, kind: str) -> None:
    """Put a ``kind`` ("devzero", "fifo", "dir") in place of ``p``."""
    if p.exists() or p.is_symlink():
        p.unlink()
    if kind == "devzero":
        p.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(p)
    else:
        p.mkdir()
        (p / "x").write_text("x")


def _doctor(store_path, *args: str) -> list[dict]:
    p = _mem(store_path, "doctor", "--json", *args)
    assert p.returncode in (0, 1, 2), p.stderr
    return [f for f in json.loads(p.stdout)["findings"] if f["check"] == "cursors"]


@pytest.mark.parametrize("suffix", [".json", ".state"])
@pytest.mark.parametrize("kind", ["devzero", "fifo", "dir"])
def test_a_cursor_that_is_not_a_regular_file_is_read_again_named_and_removed(tmp_path, store_path, kind, suffix):
    t = tmp_path / "proj" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(b"".join(_exchange(i) for i in range(2)))
    _stop(store_path, t)
    [c] = (store_path / "cache" / "cursors").glob("*" + suffix)
    _spoil(c, kind)
    before = bag(store_path)

    found = _doctor(store_path)                              # no hang, no unbounded read
    assert len(found) == 1 and found[0]["severity"] == "warning"
    assert c.with_suffix(".json").name in found[0]["message"]

    with open(t, "ab") as f:
        f.write(_exchange(5))
    _stop(store_path, t)                                     # no hang: within the timeout, the address limit
    after = bag(store_path)
    assert after - before == {(SID, "assistant", "answer 1"): 1, (SID, "user", "prompt 5"): 1}
    assert set(after.values()) == {1}                        # read again from 0: nothing twice
    assert chains_ok(store_path)
    assert "MemoryError" not in hook_log(store_path)

    if kind == "dir" and suffix == ".json":                  # a folder cannot be replaced: --fix removes it
        assert len(_doctor(store_path)) == 1
    _mem(store_path, "doctor", "--fix")
    assert _doctor(store_path) == []
    assert not c.is_dir() and not c.is_symlink()
    with open(t, "ab") as f:
        f.write(_exchange(6))
    _stop(store_path, t, "SessionEnd")
    assert set(bag(store_path).values()) == {1} and (SID, "user", "prompt 6") in bag(store_path)


def test_doctor_fix_removes_a_fifo_cursor_without_waiting(tmp_path, store_path):
    t = tmp_path / "proj" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(_exchange(0))
    _stop(store_path, t)
    [c] = (store_path / "cache" / "cursors").glob("*.json")
    _spoil(c, "fifo")
    p = _mem(store_path, "doctor", text=True)
    assert "[cursors]" in p.stdout and "not a regular file" in p.stdout
    p = _mem(store_path, "doctor", "--fix", text=True)
    assert "removed 1 unusable hook cursor(s)" in p.stdout
    assert not c.exists() and not c.is_symlink()


@pytest.mark.parametrize("kind", ["devzero", "fifo", "dir"])
def test_session_state_and_lineage_log_that_are_not_regular_files_do_not_stop_capture(tmp_path, store_path, kind):
    t = tmp_path / "proj" / f"{SID}.jsonl"
    t.parent.mkdir()
    t.write_bytes(_exchange(0))
    _stop(store_path, t)
    cache = store_path / "cache"
    [ss] = (cache / "session-state").glob("*.json")
    _spoil(ss, kind)
    _spoil(cache / "lineage.log", kind)
    p, _ = until_within_budget("UserPromptSubmit", lambda: _mem(
        store_path, "hook", "claude-code", data=payload("UserPromptSubmit", SID, t, prompt="the next question")))
    assert p.returncode == 0, p.stderr
    with open(t, "ab") as f:
        f.write(_exchange(1))
    _stop(store_path, t, "SessionEnd")
    b = bag(store_path)
    assert set(b.values()) == {1}
    assert {(SID, "user", "the next question"), (SID, "user", "prompt 1"), (SID, "assistant", "answer 1")} <= set(b)
    assert chains_ok(store_path)
    assert "MemoryError" not in hook_log(store_path)


@pytest.mark.parametrize("kind", ["devzero", "fifo"])
def test_catch_up_reads_past_a_cursor_that_is_not_a_regular_file(tmp_path, store_path, kind):
    """``mem hook catch-up`` (SessionStart, the shell wrapper) walks every
    cursor: a FIFO one made it hang, a /dev/zero one read until MemoryError."""
    t = tmp_path / "home" / ".claude" / "projects" / "-tmp-proj" / f"{SID}.jsonl"
    t.parent.mkdir(parents=True)
    t.write_bytes(_exchange(0))
    _stop(store_path, t, "SessionEnd")
    [c] = (store_path / "cache" / "cursors").glob("*.json")
    _spoil(c, kind)
    other = t.with_name("ffffffff-2222-3333-4444-555555555555.jsonl")    # a good cursor in the same folder:
    other.write_bytes(line(user("o0", "other prompt", other.stem)))     # catch-up lists that folder
    p, _ = until_within_budget("SessionEnd", lambda: _mem(
        store_path, "hook", "claude-code", data=payload("SessionEnd", other.stem, other, reason="other")))
    assert p.returncode == 0, p.stderr
    with open(t, "ab") as f:
        f.write(_exchange(1))
    os.utime(t, (t.stat().st_atime - 600, t.stat().st_mtime - 600))    # idle: catch-up reads it
    p = _mem(store_path, "hook", "catch-up")
    assert p.returncode == 0, p.stderr
    b = bag(store_path)
    assert set(b.values()) == {1} and (SID, "assistant", "answer 1") in b
    assert "MemoryError" not in hook_log(store_path)
