"""The proxy's capture writer holds the store lock only for what must be
atomic with the refs (issue 21 hardening, issue 12's "no lock held while it
waits on anything slow").

Before, one capture batch held the store lock through redaction, object
writes *and* the index commit: for a 20 MB body more than 10 s, so a
person's ``mem remember`` / ``mem forget`` meanwhile gave up (exit 11).
Now the index commit is made after the store lock is released, under the
turns index's own writer lock, through journal entries the proxy owns.

Slowness is injected deterministically: the test holds the turns index's
writer lock (``<store>/index/turns/LOCK``, the flock every index writer
takes), so the writer's index commit waits exactly as long as the test
wants; nothing here sleeps a fixed time to let a process get somewhere.
Real processes throughout: ``mem proxy``, the official anthropic SDK as the
client, a loopback upstream (``test_proxy.Upstream``), ``mem`` commands.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")
anthropic = pytest.importorskip("anthropic")

from tests.integrations.test_proxy import KEY, Upstream, _port, raw  # noqa: E402
from tests.hooks._util import index_lock_held, waits_on  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def _wait(check, timeout: float = 90.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = check()
        if v:
            return v
        assert time.monotonic() < deadline, f"{what} not reached in {timeout} s"
        time.sleep(0.05)


def _mem(env, *args, lock_timeout: str = "120", timeout: float = 180):
    return subprocess.run([sys.executable, "-m", "cmds", *args], env={**env, "MEM_LOCK_TIMEOUT": lock_timeout},
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def _start_proxy(env, up) -> tuple[subprocess.Popen, str]:
    for attempt in range(5):      # the port may be taken between _port() and the bind: another one
        port = _port()
        proc = subprocess.Popen([sys.executable, "-m", "cmds", "proxy", "--listen", f"127.0.0.1:{port}",
                                 "--upstream", f"http://127.0.0.1:{up.port}", "--timeout", "60"],
                                env=env, cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while proc.poll() is None:
            try:
                st, _h, body = raw(url + "/mem/health", timeout=5)
                if st == 200 and b"mem proxy" in body:
                    return proc, url
            except OSError:
                pass
            assert time.monotonic() < deadline, "proxy did not start"
            time.sleep(0.1)
        err = proc.stderr.read().decode()
        assert "cannot listen" in err and attempt < 4, err
    raise AssertionError("no free port")  # pragma: no cover


@pytest.fixture
def prig(tmp_path):
    home = tmp_path / "store"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(home), HOME=str(tmp_path / "home"), MEM_NO_HELPER="1")
    assert _mem(env, "remember", "user/editor", "helix").returncode == 0
    up = Upstream()
    proc, url = _start_proxy(env, up)
    rig = {"home": home, "env": env, "url": url, "proc": proc, "up": up}
    # a first conversation creates the turns index (its writer lock is what the tests hold)
    _send(rig, "warm-1", "a first prompt that creates the turns index")
    # both its turns (the prompt's batch, then the answer's) are stored and indexed
    _wait(lambda: len(_turn_texts(rig, "warm-1")) == 2 and _found(rig, "Noted") and _journal_clear(home),
          what="first capture")
    yield rig
    if proc.poll() is None:
        proc.terminate()
        proc.wait(120)            # the writer stores what is queued before the proxy exits
    proc.stderr.close()
    up.stop()


def _send(rig, sid: str, text: str) -> None:
    c = anthropic.Anthropic(api_key=KEY, base_url=rig["url"], max_retries=0, timeout=120,
                            default_headers={"x-mem-session": sid})
    r = c.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": text}])
    assert r.content[0].text == "Noted."


def _journal_clear(home: Path) -> bool:
    """Nothing left to index: the index journal is empty and no owned entry is left."""
    main = home / "index-journal"
    owned = home / "index-journal.d"
    return (not main.exists() or main.stat().st_size == 0) and \
        (not owned.exists() or not [n for n in os.listdir(owned)])


def _owned(home: Path) -> list[str]:
    d = home / "index-journal.d"
    return [n for n in os.listdir(d) if not n.startswith(".")] if d.exists() else []


def _turn_texts(rig, sid: str) -> list[str]:
    r = _mem(rig["env"], "show", sid, "--json")
    if r.returncode != 0:
        return []
    doc = json.loads(r.stdout)
    return [t["text"] for t in (doc["turns"] if isinstance(doc, dict) else doc)]


def _found(rig, word: str) -> bool:
    r = _mem(rig["env"], "search", word, "--json")
    return r.returncode == 0 and word in r.stdout


def test_a_write_during_a_capture_batch_does_not_wait_for_its_index(prig):
    """While the capture writer's index commit waits (here: for the turns
    index lock the test holds; in life: tantivy indexing a large body),
    the store lock is free: ``mem remember`` and ``mem forget`` with a 2 s
    lock timeout go through at once.  Before, the writer held the store lock
    through its index commit and both gave up with exit 11."""
    home, env = prig["home"], prig["env"]
    word = "zq" + uuid.uuid4().hex[:10]
    body = f"please look at {word} " + "lorem ipsum dolor " * 60_000      # ~1 MB
    with index_lock_held(home):
        _send(prig, "big-1", body)
        # the batch's turn is stored (its ref moved); its index commit now waits for the lock we hold
        _wait(lambda: any(word in t for t in _turn_texts(prig, "big-1")), what="turn stored")
        _wait(lambda: _owned(home), what="owned journal entry")
        r = _mem(env, "remember", "user/shell", "fish", lock_timeout="2", timeout=60)
        assert r.returncode == 0, (r.returncode, r.stderr)
        r = _mem(env, "forget", "user/editor", "--yes", lock_timeout="2", timeout=60)
        assert r.returncode == 0, (r.returncode, r.stderr)
        assert not _found(prig, word)             # not indexed yet (the lock is ours) ...
    _wait(lambda: _found(prig, word), what="turn indexed")   # ... and indexed once it is free
    _wait(lambda: _journal_clear(home), what="owned journal entry done")
    assert _mem(env, "get", "user/shell").stdout.strip() == "fish"
    assert _mem(env, "fsck").returncode == 0


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc")
def test_a_session_forgotten_before_its_index_commit_does_not_come_back(prig):
    """A forget that runs between the batch's publish (refs moved, store
    lock released) and its index commit: the writer indexes only turns
    still in their session's chain, under the same index lock the forget's
    purge takes, so the forgotten text never reaches the index."""
    home, env = prig["home"], prig["env"]
    word = "zf" + uuid.uuid4().hex[:10]
    with index_lock_held(home):
        _send(prig, "gone-1", f"the launch code is {word}")
        _wait(lambda: any(word in t for t in _turn_texts(prig, "gone-1")), what="turn stored")
        _wait(lambda: _owned(home), what="owned journal entry")
        forget = subprocess.Popen([sys.executable, "-m", "cmds", "forget", "--session", "gone-1", "--yes"],
                                  env={**env, "MEM_LOCK_TIMEOUT": "120"}, cwd=REPO,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # the forget has rewritten the store and waits for the index lock to purge
        _wait(lambda: not _turn_texts(prig, "gone-1") or forget.poll() is not None, what="session forgotten")
        _wait(lambda: waits_on(forget.pid, home / "index" / "turns" / "LOCK") or forget.poll() is not None,
              what="forget waiting for the index")
    out, err = forget.communicate(timeout=180)
    assert forget.returncode == 0, err
    _wait(lambda: _journal_clear(home), what="writer done")
    assert not _found(prig, word)
    assert _mem(env, "fsck").returncode == 0


def test_a_proxy_killed_before_its_index_commit_leaves_it_to_the_next_writer(prig):
    """Crash safety of the owned journal entries: the proxy is killed while
    its index commit waits; the next holder of the store lock (a ``mem
    remember``; a search that finds the lock free does the same) finds the
    entry of a dead writer and indexes the turns."""
    home, env = prig["home"], prig["env"]
    word = "zk" + uuid.uuid4().hex[:10]
    with index_lock_held(home):
        _send(prig, "kill-1", f"the build cache lives in {word}")
        _wait(lambda: any(word in t for t in _turn_texts(prig, "kill-1")), what="turn stored")
        _wait(lambda: _owned(home), what="owned journal entry")
        prig["proc"].send_signal(signal.SIGKILL)
        prig["proc"].wait(60)
    assert _owned(home)                               # left behind by the dead writer
    assert _mem(env, "remember", "user/pager", "less").returncode == 0   # takes the lock: replays it
    assert _journal_clear(home)
    assert _found(prig, word)


def test_a_batch_locked_out_past_the_lock_timeout_is_kept_and_stored_later(tmp_path):
    """test27 V19: while an import (here: the test) held the store lock past
    the proxy's lock timeout, the captured prompt was dropped for good
    ("capture failed (StoreLocked)") and its answer stored alone.  The
    writer now keeps the batch and tries again: once the lock is free the
    prompt and its answer are stored, in order, and nothing is said lost."""
    import fcntl
    home = tmp_path / "store"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(home), HOME=str(tmp_path / "home"), MEM_NO_HELPER="1", MEM_LOCK_TIMEOUT="1")
    assert _mem(env, "remember", "user/editor", "helix").returncode == 0
    up = Upstream()
    proc, url = _start_proxy(env, up)
    rig = {"home": home, "env": env, "url": url, "proc": proc, "up": up}
    try:
        fd = os.open(home / "locks" / "store.lock", os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            _send(rig, "locked-1", "the tapir enclosure opens at nine")
            # the writer's first try waits its 1 s lock timeout and fails; let it fail a few times
            time.sleep(4)
            assert _turn_texts(rig, "locked-1") == []          # nothing could be stored meanwhile
        finally:
            os.close(fd)
        _wait(lambda: len(_turn_texts(rig, "locked-1")) == 2, what="both turns stored")
        texts = _turn_texts(rig, "locked-1")
        assert "tapir enclosure" in texts[0] and "Noted" in texts[1], texts
    finally:
        proc.terminate()
        proc.wait(120)
        err = proc.stderr.read().decode()
        proc.stderr.close()
        up.stop()
    assert "capture failed" not in err, err
