"""test28 Y9: a ``mem proxy`` killed -9 while its captured batches waited
for the store lock (an import or a gc holding it) lost them for good (a
proxy-only harness has no transcript) and left a turn object written before
its session ref, which ``mem fsck`` called CORRUPT (exit 13).  Each batch now
goes to ``cache/proxy-spool`` (redacted) before anything waits; the next
proxy started on the store stores it, in order, once.

Real processes throughout: ``mem proxy`` on port 0 (the port read from its
announcement), a loopback upstream (``test_proxy.Upstream``), the official
anthropic SDK as the client, a separate process holding the store lock, and
``mem`` commands.  Nothing sleeps to let a process get somewhere: every wait
polls a condition on disk, bounded.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")

from tests.integrations.test_proxy import KEY, Upstream  # noqa: E402
from tests.integrations.test_proxy_lock import _wait  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
GH = "ghp_Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"     # a GitHub token's shape: redacted before it is spooled


def _mem(env, *args, timeout: float = 180):
    return subprocess.run([sys.executable, "-m", "cmds", *args], env={**env, "MEM_LOCK_TIMEOUT": "60"},
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def _start_proxy(env, up) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "cmds", "proxy", "--listen", "127.0.0.1:0",
                             "--upstream", f"http://127.0.0.1:{up.port}", "--timeout", "60"],
                            env=env, cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    line = proc.stderr.readline()        # the announcement (or "" when it ended)
    m = re.match(r"mem proxy on (http://127\.0\.0\.1:\d+) ", line)
    assert m, line + (proc.stderr.read() if proc.poll() is not None else "")
    return proc, m.group(1)


def _hold_store_lock(home: Path) -> subprocess.Popen:
    """Another process holding the store lock (as an import or a gc does) until its stdin closes."""
    code = ("import fcntl, os, sys\n"
            f"fd = os.open({str(home / 'locks' / 'store.lock')!r}, os.O_RDWR)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"
    return p


def _send(url: str, sid: str, text: str) -> None:
    c = anthropic.Anthropic(api_key=KEY, base_url=url, max_retries=0, timeout=120,
                            default_headers={"x-mem-session": sid})
    r = c.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": text}])
    assert r.content[0].text == "Noted."


def _spool(home: Path) -> list[Path]:
    return sorted((home / "cache" / "proxy-spool").glob("*.json"))


def _turns(env, sid: str) -> list[dict]:
    r = _mem(env, "show", sid, "--json")
    if r.returncode != 0:
        return []
    doc = json.loads(r.stdout)
    return doc["turns"] if isinstance(doc, dict) else doc


@pytest.fixture
def rig(tmp_path):
    home = tmp_path / "store"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(home), HOME=str(tmp_path / "home"), MEM_NO_HELPER="1", MEM_LOCK_TIMEOUT="1")
    assert _mem(env, "remember", "user/editor", "helix").returncode == 0
    up = Upstream()
    procs: list[subprocess.Popen] = []
    yield {"home": home, "env": env, "up": up, "procs": procs}
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait(60)
        for f in (p.stdin, p.stdout, p.stderr):
            if f is not None:
                f.close()
    up.stop()


def test_batches_waiting_for_the_lock_survive_a_kill_9_and_are_stored_once_in_order(rig):
    home, env, up = rig["home"], rig["env"], rig["up"]
    proc, url = _start_proxy(env, up)
    rig["procs"].append(proc)
    holder = _hold_store_lock(home)
    rig["procs"].append(holder)
    _send(url, "y9-a", f"under lock prompt one: the build cache lives on nas-4, token {GH}")
    _send(url, "y9-a", "under lock prompt two: the release is on Thursday")
    # each request's prompt and each answer is a batch, spooled while the lock is held
    _wait(lambda: len(_spool(home)) == 4, what="four batches spooled")
    spooled = "".join(p.read_text(encoding="utf-8") for p in _spool(home))
    assert GH not in spooled and "nas-4" in spooled and "Thursday" in spooled
    assert all(p.stat().st_mode & 0o077 == 0 for p in _spool(home))
    proc.send_signal(signal.SIGKILL)          # a crash while the batches wait for the lock
    proc.wait(60)
    holder.stdin.close()
    holder.wait(60)

    # the store is not damaged meanwhile: fsck at most warns, doctor names what waits
    r = _mem(env, "fsck")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "missing, while" not in r.stdout + r.stderr
    # (the turn objects of the first batch were written before the lock was tried: a warning names them)
    assert "sessions/y9-a: not set yet" in r.stdout and "capture spool" in r.stdout, r.stdout
    r = _mem(env, "doctor")
    assert "proxy turns (4 batches) not stored yet" in r.stdout + r.stderr, r.stdout + r.stderr
    assert _turns(env, "y9-a") == []

    # the next proxy started on this store stores them first, in order
    proc2, _url2 = _start_proxy(env, up)
    rig["procs"].append(proc2)
    _wait(lambda: not _spool(home) and len(_turns(env, "y9-a")) >= 4, what="spooled batches stored")
    texts = [t["text"] for t in _turns(env, "y9-a")]
    assert len(texts) == 4, texts
    assert "nas-4" in texts[0] and "Noted" in texts[1] and "Thursday" in texts[2] and "Noted" in texts[3], texts
    assert all(GH not in t for t in texts)
    proc2.terminate()
    proc2.wait(120)
    r = _mem(env, "fsck")
    assert r.returncode == 0 and "not set yet" not in r.stdout, r.stdout + r.stderr
    assert "proxy turn" not in _mem(env, "doctor").stdout


def test_a_batch_spooled_again_after_it_was_stored_is_not_stored_twice(tmp_path):
    """A drainer killed after its publish and before it deleted the file:
    the next drain finds every source known and stores nothing again (the
    file is then deleted)."""
    from objstore import open_store, proxy_drain_spool, proxy_spool_turns
    from objstore.memory.sessions import CapturedTurn
    store = open_store(tmp_path / "s", create=True)
    turns = [CapturedTurn("px-once", "px:t:0:t0", "user", "the tapir enclosure opens at nine", 1_000, "", ""),
             CapturedTurn("px-once", "px:t:1:t0", "assistant", "Noted.", 2_000, "", "")]
    path = proxy_spool_turns(store, turns)
    kept = path.read_bytes()
    res = proxy_drain_spool(store)
    assert (res.turns, res.batches, res.failed) == (2, 1, []) and not path.exists()
    path.write_bytes(kept)                    # as if the drainer had died before the delete
    res = proxy_drain_spool(store)
    assert (res.turns, res.batches) == (0, 1) and not path.exists()
    from objstore.memory.sessions import session_turns
    assert [tv.turn.text for tv in session_turns(store, "px-once")] == ["the tapir enclosure opens at nine", "Noted."]


def test_a_spool_whose_store_failed_once_is_stored_without_a_next_batch(tmp_path):
    """The proxy's capture writer (``cmds.proxy.CaptureWriter``) tries a
    spool again, ``RETRY_S`` apart, when its store failed for another reason
    than the lock: a conversation's last answer has no next batch to carry
    it (before, it waited in the spool until the proxy's next request)."""
    pytest.importorskip("aiohttp")
    from cmds.proxy import CaptureWriter
    from objstore import NotFound, open_store, proxy_drain_spool, proxy_spool_turns
    from objstore.memory.sessions import CapturedTurn, session_turns
    store = open_store(tmp_path / "s", create=True)
    calls = []

    def drain_failing_once(st, **kw):     # the real drain, after one failure of the kind a full disk gives
        calls.append(1)
        if len(calls) == 2:               # the first call is the writer's start-up drain of an empty spool
            raise OSError(28, "No space left on device")
        return proxy_drain_spool(st, **kw)

    w = CaptureWriter(store, proxy_spool_turns, drain_failing_once)
    w.RETRY_S = 0.2
    try:
        w.put([CapturedTurn("px-last", "px:t:0:t0", "user", "which gate does the okapi use", 1_000, "", ""),
               CapturedTurn("px-last", "px:t:1:t0", "assistant", "The north gate.", 2_000, "", "")])
        def texts() -> list[str]:
            try:
                return [tv.turn.text for tv in session_turns(store, "px-last")]
            except NotFound:
                return []
        deadline = time.monotonic() + 60
        while len(texts()) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert texts() == [
            "which gate does the okapi use", "The north gate."]
        assert len(calls) == 3
    finally:
        w.close()


def test_a_batch_whose_store_meets_a_full_disk_stays_in_the_spool(tmp_path, monkeypatch):
    """A drain that fails for an OSError (here ENOSPC under the store lock)
    keeps the batch in the spool and raises: the next drain stores it
    (before, a batch failing alone was deleted and said lost)."""
    import errno

    from objstore import open_store, proxy_drain_spool, proxy_spool_turns
    from objstore.integrations import proxyspool
    from objstore.memory.sessions import CapturedTurn, session_turns
    store = open_store(tmp_path / "s", create=True)
    turns = [CapturedTurn("px-full", "px:t:0:t0", "user", "the capybara pool is heated", 1_000, "/w", "zoo")]
    path = proxy_spool_turns(store, turns)
    real = proxyspool.register_project

    def full(*a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(proxyspool, "register_project", full)
    with pytest.raises(OSError):
        proxy_drain_spool(store)
    assert path.exists()
    monkeypatch.setattr(proxyspool, "register_project", real)
    res = proxy_drain_spool(store)
    assert (res.turns, res.batches, res.failed) == (1, 1, []) and not path.exists()
    assert [tv.turn.text for tv in session_turns(store, "px-full")] == ["the capybara pool is heated"]
