"""``mem remember`` in the resident helper answers once the version, its ref
and reflog are durable, and commits the search index after the answer,
under an owned journal entry (``index-journal.d/``) that it holds until it
has, having released the store lock: a read that follows, in any process,
sees the new value (it waits on that entry's ``flock``), and a crash in
between loses nothing (the entry is replayed).
The helper's request is run in this process as the helper runs it
(``cmds._helperserve.run``, then the reply's ``after``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from objstore import Request, open_store, remember, search
from objstore.core.errors import StoreLocked

REPO = Path(__file__).resolve().parents[2]
KEY = "project/p/port"


def _request(store: Path, *argv: str) -> Request:
    return Request(argv=list(argv), cwd=str(store.parent), env={"MEM_HOME": str(store)}, stdin=b"",
                   stdin_given=False, stdout_tty=False, stderr_tty=False, umask=0o022,
                   encodings=(("utf-8", "strict"),) * 3)


def _env(store: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEM_")}
    env.update(MEM_HOME=str(store), MEM_NO_HELPER="1",
               PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return env


@pytest.fixture
def home(tmp_path) -> Path:
    root = tmp_path / "store"
    s = open_store(root, create=True)
    remember(s, KEY, "the api listens on port 5432")
    s.close()
    return root


def _fact_ids(root: Path, word: str) -> set[str]:
    """Ids of the fact documents holding ``word``, read from the index alone (no replay)."""
    s = open_store(root)
    try:
        return {h.id for h in s.index.search(word, kinds=("fact",))}
    finally:
        s.close()


def test_the_answer_comes_first_the_index_after_under_an_owned_entry(home):
    from cmds import _helperserve
    reply = _helperserve.run(_request(home, "remember", KEY, "the api listens on port 6543 now"))
    try:
        assert reply.status == 0 and b"wrote project/p/port v2" in reply.stdout
        s = open_store(home, lock_timeout=0)
        try:
            assert s.refs.read("facts/" + KEY) is not None
            assert s.get(s.refs.read("facts/" + KEY)).body.endswith("6543 now")   # durable before the answer
            assert s.journal.is_empty()              # nothing for another writer to replay: the entry is owned
            owned = s.journal.live_facts()                                       # the index is noted as behind
            assert len(owned) == 1 and owned[0].read_bytes() == f"F\t{KEY}\n".encode()
            with pytest.raises(StoreLocked):         # the lock is held until the answer is out (after() begins)
                with s.lock("test"):
                    pass
        finally:
            s.close()
        assert _fact_ids(home, "6543") == set()
    finally:
        reply.after()
    s = open_store(home, lock_timeout=0)
    try:
        assert s.journal.is_empty() and s.journal.live_facts() == []
        assert list((home / "index-journal.d").iterdir()) == []   # the entry went with the commit
        with s.lock("test"):  # released
            pass
        assert [h.ref for h in search(s, "6543")] == [KEY]
        assert s.index.doc_count(("fact", "history")) == {"fact": 1, "history": 1}
    finally:
        s.close()


def test_a_reader_in_another_process_meanwhile_sees_the_new_value(home):
    from cmds import _helperserve
    reply = _helperserve.run(_request(home, "remember", KEY, "the api listens on port 6543 now"))
    # the reader starts while the helper holds the lock with the index behind: it waits for the
    # commit (or, started late, finds it done); either way it must find the new value
    reader = subprocess.Popen([sys.executable, "-m", "cmds", "search", "--json", "6543"], env=_env(home),
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reply.after()   # (in the main thread: it restores the signal handlers)
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    hits = json.loads(out)
    assert [h["key"] for h in hits] == [KEY] and "6543" in hits[0]["snippet"]


def _start_reader(home):
    """A second store of this process, in a thread: ``try_recover`` (waits
    for the lock a write holds), then a search for the new value; returns
    (the store, the list its results go to, the thread)."""
    got: list = []
    reader = open_store(home)

    def read() -> None:
        got.append(reader.try_recover())
        got.append([h.ref for h in search(reader, "6543")])
    t = threading.Thread(target=read)
    t.start()
    return reader, got, t


def test_in_process_reader_waits_for_a_fact_write_in_flight(home):
    """``Store.try_recover``: a second store of this process (its own file
    descriptors) waits for the owned entry the helper's write holds."""
    from cmds import _helperserve
    reply = _helperserve.run(_request(home, "remember", KEY, "the api listens on port 6543 now"))
    reader, got, t = _start_reader(home)
    reply.after()
    t.join(60)
    reader.close()
    assert got == [True, [KEY]]


def test_a_crash_between_the_answer_and_the_index_loses_nothing(home):
    code = ("import os, sys\n"
            "from cmds import _helperserve\n"
            "from objstore import Request\n"
            f"r = _helperserve.run(Request(argv=['remember', {KEY!r}, 'the api listens on port 6543 now'], "
            f"cwd={str(home.parent)!r}, env={{'MEM_HOME': {str(home)!r}}}, stdin=b'', stdin_given=False, "
            "stdout_tty=False, stderr_tty=False, umask=0o022, encodings=(('utf-8', 'strict'),) * 3))\n"
            "sys.__stdout__.buffer.write(r.stdout); sys.__stdout__.flush()\n"
            "os._exit(0)  # killed after the answer, before its after() ran\n")
    p = subprocess.run([sys.executable, "-c", code], env=_env(home), cwd=REPO, capture_output=True, timeout=60)
    assert p.returncode == 0 and b"wrote project/p/port v2" in p.stdout, p.stderr
    s = open_store(home)
    try:
        assert s.journal.read().facts == {KEY}
        assert [h.ref for h in search(s, "6543")] == [KEY]   # the reader replays it (the lock is free)
        assert s.journal.is_empty()
        assert s.index.doc_count(("fact", "history")) == {"fact": 1, "history": 1}
    finally:
        s.close()


def test_a_reader_waits_for_a_fact_commit_slower_than_its_first_wait(home, monkeypatch):
    """CI's loaded machine: the helper's index commit after the answer took
    longer than the reader's first wait (``FACT_WAIT_S``), and the reader
    searched the index without the acknowledged value.  The interleaving is
    forced: the commit starts only once the reader has waited on the owned
    entry for longer than that; the reader must keep waiting (bounded by
    ``FACT_COMMIT_WAIT_S``) and then find the value."""
    import time
    from cmds import _helperserve
    from objstore.core import store as storemod
    from objstore.core.journal import IndexJournal
    monkeypatch.setattr(storemod, "FACT_WAIT_S", 0.05)
    waiting = threading.Event()
    real_settled = IndexJournal.settled

    def settled(path):
        waiting.set()
        return real_settled(path)
    monkeypatch.setattr(IndexJournal, "settled", staticmethod(settled))
    reply = _helperserve.run(_request(home, "remember", KEY, "the api listens on port 6543 now"))
    reader, got, t = _start_reader(home)
    try:
        assert waiting.wait(60), "the reader never waited for the commit"
        time.sleep(0.3)   # six times FACT_WAIT_S
    finally:
        reply.after()   # the commit, later than the reader's first wait
    t.join(60)
    reader.close()
    assert got == [True, [KEY]]
