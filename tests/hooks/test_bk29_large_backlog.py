"""A transcript whose backlog is larger than one event can read within its
budget is still captured by the hooks (test29 P15): each Stop keeps the
chunks it committed, a ``kill -9`` in the middle loses none and stores none
twice, and ``mem hook catch-up`` takes the rest.  Real hook processes; the
budget is made small the way test_hook_failures does it (a wrapper setting
``cmds._hookrun.BUDGET_S``), and the chunk small through
``objstore.capture.sync.CHUNK_BYTES``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from objstore.capture.cursors import cursor_key
from objstore.memory.opening import open_store
from tests.hooks._util import REPO, asst, bag, chains_ok, hook_env, line, payload, text, tool_result, user
from tests.hooks.test_hook_sync import _fresh_import   # what a plain import of the file stores

SID = "b29b29b2-0000-4000-8000-000000000015"
WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()


def _transcript(folder: Path, n: int = 1200) -> Path:
    """~6 MB: ``n`` exchanges, each a prompt, an answer and a 4 KB tool result."""
    folder.mkdir(parents=True, exist_ok=True)
    t = folder / f"{SID}.jsonl"
    recs = []
    for i in range(n):
        out = f"result {i}: " + " ".join(WORDS[(i + k) % len(WORDS)] for k in range(700))
        recs.append(line(user(f"u{i}", f"prompt number {i} about the build", SID)))
        recs.append(line(asst(f"a{i}", f"msg_{i}", [text(f"answer number {i}")], SID)))
        recs.append(line(user(f"r{i}", [tool_result(f"t{i}", out)], SID)))
    t.write_bytes(b"".join(recs))
    return t


def _offset(store: Path, t: Path) -> int:
    """The saved cursor's offset in ``t`` (0 when none is saved)."""
    try:
        return json.loads((store / "cache" / "cursors" / f"{cursor_key(t)}.json").read_text())["offset"]
    except (FileNotFoundError, ValueError, KeyError):
        return 0


def _stop_cmd(budget: float) -> list[str]:
    code = ("import sys, cmds._hookrun as h, objstore.capture.sync as s\n"
            f"h.BUDGET_S['Stop'] = {budget}\n"
            "h.SYNC_BYTES['Stop'] = 1 << 20\n"   # a Stop reads 1 MiB of the 6 MB at most, however fast the machine
            "s.CHUNK_BYTES = 256 << 10\n"
            "sys.exit(h.run_claude_code())\n")
    return [sys.executable, "-c", code]


def _stop(store: Path, t: Path, budget: float) -> None:
    p = subprocess.run(_stop_cmd(budget), input=json.dumps(payload("Stop", SID, t)).encode(),
                       capture_output=True, env=hook_env(store), cwd=REPO, timeout=120)
    assert p.returncode == 0 and p.stdout == b"", p.stderr


def _stops_until_progress(store: Path, t: Path, budget: float, tries: int = 20) -> int:
    """Stops until the cursor has moved past where it was; its new offset."""
    before = _offset(store, t)
    for _ in range(tries):
        _stop(store, t, budget)
        if _offset(store, t) > before:
            return _offset(store, t)
    raise AssertionError(f"no Stop of {tries} made progress")


def test_large_backlog_is_captured_by_stops_through_a_kill(tmp_path):
    store = tmp_path / "store"
    open_store(store, create=True).close()
    t = _transcript(tmp_path / "home" / ".claude" / "projects" / "-tmp-proj")
    size = t.stat().st_size
    # a Stop with a 3 s budget cannot read 6 MB: it keeps what it committed
    first = _stops_until_progress(store, t, 3.0)
    assert 0 < first < size
    # a Stop killed (-9) while it reads: the chunks committed before stay, nothing twice
    p = subprocess.Popen(_stop_cmd(120.0), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=hook_env(store), cwd=REPO)
    try:
        p.stdin.write(json.dumps(payload("Stop", SID, t)).encode())
        p.stdin.close()
        end = time.monotonic() + 120
        while _offset(store, t) <= first and p.poll() is None and time.monotonic() < end:
            time.sleep(0.01)     # (polling the cursor file: kill once a chunk past the first is committed)
        os.kill(p.pid, signal.SIGKILL)
    finally:
        p.wait(timeout=60)
    killed_at = _offset(store, t)
    assert first < killed_at
    for _ in range(60):          # each Stop goes on from the saved cursor
        if _offset(store, t) >= size:
            break
        _stop(store, t, 3.0)
    assert _offset(store, t) == size
    got = bag(store)
    assert set(got.values()) == {1}
    assert got == _fresh_import(tmp_path, t)
    assert chains_ok(store)


def test_catch_up_takes_a_large_backlog_a_stop_began(tmp_path):
    store = tmp_path / "store"
    open_store(store, create=True).close()
    t = _transcript(tmp_path / "home" / ".claude" / "projects" / "-tmp-proj")
    first = _stops_until_progress(store, t, 3.0)
    assert 0 < first < t.stat().st_size
    os.utime(t, (t.stat().st_atime - 600, t.stat().st_mtime - 600))    # idle: catch-up reads it to its end
    for _ in range(5):           # (one catch-up stops at its 60 s budget on a loaded machine: the next goes on)
        p = subprocess.run([sys.executable, "-m", "cmds", "hook", "catch-up"], capture_output=True,
                           env=hook_env(store), cwd=REPO, timeout=300)
        assert p.returncode == 0, p.stderr
        if _offset(store, t) >= t.stat().st_size:
            break
    assert _offset(store, t) == t.stat().st_size
    got = bag(store)
    assert set(got.values()) == {1} and got == _fresh_import(tmp_path, t)


def _doctor(store: Path) -> list[dict]:
    p = subprocess.run([sys.executable, "-m", "cmds", "doctor", "--json"], capture_output=True, text=True,
                       env=hook_env(store), cwd=REPO, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return [f for f in json.loads(p.stdout)["findings"] if f["check"] == "behind"]


def test_doctor_names_a_transcript_whose_capture_is_behind(tmp_path):
    from objstore.capture import sync
    store = tmp_path / "store"
    t = _transcript(tmp_path / "home" / ".claude" / "projects" / "-tmp-proj", n=2000)    # ~10 MB
    with open_store(store, create=True) as s:
        [r] = sync.sync_files(s, [t], max_bytes=1 << 20)       # the first MiB, as a hook's first chunk
    assert r.more and t.stat().st_size - r.offset > (8 << 20)
    [f] = _doctor(store)
    assert f["severity"] == "warning" and str(t) in f["message"] and "mem hook catch-up" in f["fix"]
    os.utime(t, (t.stat().st_atime - 600, t.stat().st_mtime - 600))
    for _ in range(5):
        subprocess.run([sys.executable, "-m", "cmds", "hook", "catch-up"], capture_output=True,
                       env=hook_env(store), cwd=REPO, timeout=300)
        if _offset(store, t) >= t.stat().st_size:
            break
    assert _doctor(store) == []
