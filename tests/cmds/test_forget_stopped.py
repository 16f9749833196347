"""A ``mem forget --match`` killed (SIGKILL) before it has written all its
tombstones cannot be finished by recovery: the match text is not stored, and
the tombstones written so far name only part of what it removes.  It must
not be dropped silently when a reader replays and clears the journal (found
by session 8's fresh tester: fsck said ok, the value was in ~5,800 places,
and push uploaded it).  Real ``mem`` processes on a real store, a real
SIGKILL at that point; then a reader, fsck, push, the rerun and push again.
A kill after the ``D`` lines is still finished by the next lock holder."""

from __future__ import annotations

import json
import os
import signal
import uuid

from tests.conftest import journal_deletes, signal_forget_midway

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
WORD = "quixoticmarker"


def _import(mem, tmp_path, sessions: int = 2, turns: int = 150) -> None:
    """Sessions whose every turn holds WORD (and a ``widgetN`` word)."""
    d = tmp_path / "claude" / "-tmp-fgk9"
    d.mkdir(parents=True)
    for s in range(sessions):
        sid = str(uuid.UUID(int=0xF9 << 120 | s))
        with open(d / f"{sid}.jsonl", "w", encoding="utf-8") as f:
            for i in range(turns):
                f.write(json.dumps({"type": "user", "sessionId": sid, "uuid": str(uuid.uuid4()), "cwd": "/tmp/fgk9",
                                    "timestamp": "2026-03-02T09:%02d:%02d.000Z" % (i // 60, i % 60),
                                    "message": {"role": "user",
                                                "content": f"turn {i} says {WORD} and widget{i % 10}"}}) + "\n")
    mem("init")
    mem("import", "claude-code", str(d), env=PERSON)


def _writing_tombstones(home) -> bool:
    """The forget has noted its sessions (``T`` lines) and written some of
    its tombstones, not yet all (no ``D`` line)."""
    try:
        return b"T\t" in (home / "index-journal").read_bytes() and bool(os.listdir(home / "refs" / "tombstones"))
    except FileNotFoundError:
        return False


def _left_in_store(mem) -> list[dict]:
    """``mem scan WORD`` places other than the agent's transcripts (which
    a forget without --scrub-sources leaves): the store, its index, the remote."""
    r = mem("scan", WORD, "--json", exit_code=None)
    return [p for p in json.loads(r.stdout) if p["place"] != "transcript"]


def test_forget_killed_before_its_tombstones_are_all_written_is_kept_until_rerun(mem, store_path, tmp_path):
    _import(mem, tmp_path)
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("remote", "add", "origin", str(remote), "--no-encrypt", env=PERSON)
    code, _err = signal_forget_midway(store_path, ["--match", WORD], signal.SIGKILL, PERSON,
                                      ready=_writing_tombstones)
    assert code == -signal.SIGKILL
    assert not journal_deletes(store_path)                 # killed at the bad point: tombstones half written
    assert len(os.listdir(store_path / "forget-unfinished")) == 1
    assert WORD not in "".join(p.read_text() for p in (store_path / "forget-unfinished").iterdir())

    # a reader keeps answering; it replays and clears the journal (finishing what the tombstones
    # written so far name), but the stopped forget stays said
    assert "widget5" in mem("search", "widget5").stdout
    assert (store_path / "index-journal").stat().st_size == 0
    assert _left_in_store(mem)                              # the value is still stored
    # not damage, but not "ok" either (test27 V7): an error line naming the forget to rerun, exit 6
    r = mem("fsck", exit_code=6)
    assert "error: forget-unfinished/" in r.stdout and "was stopped before it had written all its tombstones" in r.stdout
    assert "mem forget --match <the same text> --yes" in r.stdout
    assert "UNFINISHED: " in r.stdout and "0 problems, 1 unfinished forget" in r.stdout and "ok:" not in r.stdout
    assert "--repair" not in r.stderr                       # no repair can finish it
    doc = mem("fsck", "--json", exit_code=6).json
    assert len(doc["unfinished_forgets"]) == 1 and doc["ok"] is False and doc["problems"] == []   # (test27b X6)
    # the README's step after every forget says it too (test34b T13: gc was silent): gc cannot finish
    # it (the text is not stored), does its work, names the forget to run again and exits 6
    r = mem("gc", "--prune=now", exit_code=6)
    assert "gc kept what it removes; run it again: mem forget --match <the same text> --yes" in r.stderr
    assert _left_in_store(mem)

    # nothing copies it out: push refuses, and the remote gets nothing
    r = mem("push", exit_code=6)
    assert "push refused" in r.stderr and "mem forget --match <the same text>" in r.stderr
    assert not any(remote.rglob("*"))

    # the same forget, run again, finishes it
    mem("forget", "--match", WORD, "--yes", env=PERSON)
    assert not any((store_path / "forget-unfinished").iterdir())
    assert "warning" not in mem("fsck").stdout
    assert "warning" not in mem("gc", "--prune=now").stderr
    mem("push")
    assert _left_in_store(mem) == []                        # (mem scan reads the remote back too)


def test_forget_killed_after_its_deletes_are_journalled_is_finished_by_a_reader(mem, store_path, tmp_path):
    _import(mem, tmp_path)
    code, _err = signal_forget_midway(store_path, ["--match", WORD], signal.SIGKILL, PERSON)
    assert code == -signal.SIGKILL
    r = mem("fsck", exit_code=6)                                    # every tombstone was written: no note,
    assert "error: forget-unfinished" not in r.stdout                 # but the journal's forget is said (T12)
    assert "index-journal: a forget was stopped before it finished" in r.stdout and "mem fsck --repair" in r.stdout
    assert mem("search", "widget5", "--json").json == []             # the reader's recovery finished it
    assert (store_path / "index-journal").stat().st_size == 0
    assert not any((store_path / "forget-unfinished").iterdir())
    assert _left_in_store(mem) == []
    assert "warning" not in mem("fsck").stdout


def test_rerun_that_finds_nothing_left_finishes_the_stopped_forget(mem, store_path, tmp_path):
    """A stopped forget whose every match recovery removed (or that matched
    a value gone since): push, backup and export refuse, doctor says it; the
    rerun plans nothing, and still clears the note."""
    from objstore import open_store
    from objstore.core.text import value_digest
    mem("init")
    mem("remember", "project/q/a", "nothing of the kind", env=PERSON)
    (tmp_path / "remote").mkdir()
    mem("remote", "add", "origin", str(tmp_path / "remote"), "--no-encrypt", env=PERSON)
    with open_store(store_path) as store:        # the note a forget of WORD killed mid-tombstones leaves
        store.unfinished.mark("match", value_digest(WORD.upper() + "  ").hex(), 1, "forget")
    assert "push refused" in mem("push", exit_code=6).stderr
    assert "backup refused" in mem("backup", exit_code=6).stderr
    assert not any((tmp_path / "remote").rglob("*"))
    out = tmp_path / "old-export.jsonl"
    out.write_text("an earlier export\n")
    assert "export refused" in mem("export", "-o", str(out), exit_code=6).stderr
    assert out.read_text() == "an earlier export\n"        # not truncated
    r = mem("doctor", exit_code=None)
    assert "[forget]" in r.stdout and "mem forget --match <the same text> --yes" in r.stdout
    r = mem("forget", "--match", WORD, "--yes", env=PERSON)
    assert "nothing matches" in r.stdout and "now finished" in r.stderr
    assert not any((store_path / "forget-unfinished").iterdir())
    assert "warning" not in mem("fsck").stdout
    mem("push")


def test_gc_names_a_stopped_forget_and_exits_6(mem, store_path):
    """test34b T13: ``mem forget …; mem gc --prune=now`` read as clean while
    a forget stopped before its tombstones (its note) stood.  gc does its
    work all the same, names the forget to run again and exits 6."""
    from objstore import open_store
    mem("init")
    mem("remember", "project/q/a", "a value", env=PERSON)
    with open_store(store_path) as store:
        store.unfinished.mark("session", "0f0f0f0f-0000-4000-8000-000000000001", 1, "forget")
    r = mem("gc", "--prune=now", exit_code=6)
    assert "reachable object" in r.stdout           # its work is done and said
    assert ("gc kept what it removes; run it again: mem forget --session 0f0f0f0f-0000-4000-8000-000000000001 "
            "--yes, then gc again") in r.stderr
    doc = mem("gc", "--json", exit_code=6).json
    assert len(doc["unfinished_forgets"]) == 1 and "mem forget --session 0f0f0f0f" in doc["unfinished_forgets"][0]
    with open_store(store_path) as store:
        assert store.unfinished.discard(store.unfinished.list()[0].path.name)
    assert mem("gc", "--json").json["unfinished_forgets"] == []
