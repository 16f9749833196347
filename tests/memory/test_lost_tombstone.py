"""A damaged tombstone must not let a forgotten turn come back (forget
fails closed).  reread10's repro: ``mem forget`` one turn, ``mem gc``,
damage the pack block that holds the tombstone beside turns, ``mem fsck
--repair``, ``mem import --reread`` of the transcript.  Before the fix the
repair deleted the tombstone ref and the re-read stored the forgotten
turn's text again.  Now the repair keeps the ref (exit 13), capture
refuses to write turns while it is lost, a pull from a remote that holds
the tombstone restores it, and ``--drop-lost-tombstones`` drops it.

Real store, real damage (a flipped byte in the pack block), real ``mem``
processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from objstore.memory.forget import scan_store
from tests.memory.test_refill import SID, _flip_block_of, _texts, _transcript

PERSON = {"MEM_AGENT": "0", "CLAUDECODE": ""}
K = 20
WORD = f"marker{K}x"


def _turns(mem) -> list[dict]:
    return mem("show", SID, "--json").json["turns"]


def _tombstone(store_path: Path) -> str:
    (tid,) = [p.name for p in (store_path / "refs" / "tombstones").iterdir()]
    return tid


@pytest.fixture
def damaged(invoke, store_path, tmp_path, monkeypatch):
    """A 160-turn session imported, turn K forgotten and pushed to a folder
    remote, everything packed, then the block holding the tombstone (and
    the one holding the forgotten turn) damaged: returns (transcripts
    folder, tombstone id).  Set up in-process; the tests run real ``mem``."""
    for k, v in PERSON.items():
        monkeypatch.setenv(k, v)
    src = tmp_path / "projects"
    _transcript(src / "-home-dev-acme-api" / f"{SID}.jsonl", _texts())
    invoke("import", "claude-code", str(src))
    invoke("forget", invoke("show", SID, "--json").json["turns"][K]["id"], "--yes")
    (tmp_path / "remote").mkdir()
    invoke("remote", "add", "origin", str(tmp_path / "remote"), "--no-encrypt")
    invoke("push")
    invoke("gc", "--prune=now")
    tid = _tombstone(store_path)
    kid = invoke("show", SID, "--json").json["turns"][K]["id"]     # the forgotten turn, emptied
    ids = _flip_block_of(store_path, tid, 0.0)   # the stream's start: the whole block is lost
    assert len(ids) > 1      # the tombstone shares its block with turns
    if kid not in ids:       # the forgotten turn lost too (else a re-read has nothing to put back)
        _flip_block_of(store_path, kid, 0.0)
    return src, tid


def _repair_keeps(mem, tid: str) -> None:
    """``fsck --repair`` keeps the lost tombstone's ref, says so, exits 13."""
    r = mem("fsck", "--repair", exit_code=13)
    assert f"repair: kept tombstones/{tid}: its object is lost" in r.stdout
    assert f"error: ref tombstones/{tid}" in r.stdout and "mem pull" in r.stdout
    assert "--drop-lost-tombstones" in r.stderr


def _text_only_in_quarantine(store_path: Path) -> None:
    """The forgotten text is in no file of the store but the quarantine's
    byte copy of the damaged pack (which scan_store reports whole: it
    cannot be read)."""
    hits = scan_store(store_path, [WORD.encode()])
    assert all(h.startswith("quarantine/") for h in hits), hits


def test_a_lost_tombstone_stops_capture_and_keeps_the_text_out(mem, store_path, damaged):
    src, tid = damaged
    _repair_keeps(mem, tid)
    assert (store_path / "refs" / "tombstones" / tid).is_file()
    again = mem("fsck", "--repair", "--json", exit_code=13).json                        # again: still kept
    assert again["repair"]["lost_tombstones"] == [f"tombstones/{tid}"] and not again["ok"]
    before = _turns(mem)
    assert not [t for t in before if t["seq"] == K and not t["source"].startswith("lost:")]   # lost too

    r = mem("import", "claude-code", "--reread", str(src), exit_code=13)
    assert f"tombstones/{tid}" in r.stderr and "no turn is captured" in r.stderr and "mem pull" in r.stderr
    assert _turns(mem) == before
    assert WORD not in mem("show", SID).stdout and "turn 20 " not in mem("show", SID).stdout
    _text_only_in_quarantine(store_path)

    # fact writes go on (a lost fact tombstone is not known to be one: docs/forget.md)
    mem("remember", "user/editor", "vim")
    assert mem("get", "user/editor").stdout.strip() == "vim"
    mem("forget", "user/editor", "--yes")                  # and so does forget
    mem("get", "user/editor", exit_code=4)


def test_a_pull_restores_the_tombstone_and_capture_goes_on(mem, store_path, damaged):
    src, tid = damaged
    _repair_keeps(mem, tid)
    mem("pull")
    assert mem("fsck").stdout.startswith("ok:")           # the tombstone reads again

    r = mem("import", "claude-code", "--reread", str(src), "--json")
    assert r.json["errors"] == []
    turn = next(t for t in _turns(mem) if t["seq"] == K)
    assert turn["text"] == "" and WORD not in mem("show", SID).stdout
    assert [h for h in mem("search", WORD, "--json").json if h.get("kind") == "turn"] == []
    _text_only_in_quarantine(store_path)
    assert mem("fsck").stdout.startswith("ok:")


def test_drop_lost_tombstones_drops_it_and_says_what_that_risks(mem, store_path, damaged):
    src, tid = damaged
    mem("fsck", "--drop-lost-tombstones", exit_code=2)    # only with --repair
    r = mem("fsck", "--repair", "--drop-lost-tombstones")
    assert f"repair: removed tombstones/{tid}: its object is lost" in r.stdout
    assert "can capture it again" in r.stdout and r.stdout.splitlines()[-1].startswith("ok:")
    assert not (store_path / "refs" / "tombstones" / tid).exists()
    # what that risks, as documented: the re-read captures the forgotten turn's text again
    mem("import", "claude-code", "--reread", str(src))
    assert WORD in mem("show", SID).stdout


def test_the_hook_fails_open_and_captures_nothing(mem, store_path, damaged, tmp_path):
    from tests.hooks._util import hook_env, hook_log, payload, run_hook
    _src, tid = damaged
    _repair_keeps(mem, tid)
    sid = "5f0c9a52-7a43-4d6e-9b1e-00000000beef"
    t = tmp_path / "cc" / f"{sid}.jsonl"
    t.parent.mkdir()
    t.write_text((_src / "-home-dev-acme-api" / f"{SID}.jsonl").read_text().replace(SID, sid))
    env = hook_env(store_path, MEM_HOOK_FORK="0")
    rc, _out, _err, _dt = run_hook(store_path, payload("Stop", sid, t, last_assistant_message="done"), env=env)
    assert rc == 0
    assert len([x for x in hook_log(store_path).splitlines() if "LostTombstone" in x]) == 1
    assert [s["id"] for s in mem("sessions", "--json").json] == [SID]
