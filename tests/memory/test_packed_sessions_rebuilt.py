"""A damaged ``refs/packed-sessions`` (garbage, cut short, one name flipped)
or a damaged loose session ref must not lose sessions for good: ``mem gc``
refuses (exit 13, it would delete the turns), ``mem fsck --repair``
rebuilds each session ref from the turn objects (its head: the turn no
other turn of it names as parent), never under a cut-short name, and a
forgotten session stays forgotten (fresh10 tester: "nothing to repair",
then 0 session refs)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


@pytest.fixture
def packed(invoke, tmp_path, store_path):
    """A store whose session refs are all in refs/packed-sessions (import, gc --prune=now)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE, corpus)
    invoke("import", "claude-code", str(corpus))
    invoke("gc", "--prune=now")
    assert not any((store_path / "refs" / "sessions").glob("*"))
    return store_path


def _sessions(invoke) -> dict[str, int]:
    return {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}


def test_garbage_packed_sessions_is_rebuilt_from_the_turns_and_gc_refuses(mem, invoke, packed):
    before = _sessions(invoke)
    assert len(before) == 3
    (packed / "refs" / "packed-sessions").write_text("garbage\n")
    r = mem("gc", "--prune=now", exit_code=13)      # a real process: would delete every turn
    assert "mem fsck --repair" in r.stderr and "refs/packed-sessions line 1" in r.stderr
    assert mem("search", "the").stdout.strip()       # nothing was deleted
    r = mem("fsck", "--repair")
    # the reflog still names each head: the refs are set to them (session 12; were rebuilt from the turns)
    assert r.stdout.count("from its reflog") == 3 and "nothing to repair" not in r.stdout
    assert _sessions(invoke) == before
    assert "fsck --repair: ref restored from its reflog" in (packed / "logs" / "packed-sessions").read_text()
    invoke("fsck")
    r = invoke("gc", "--prune=now")
    assert _sessions(invoke) == before


def test_truncated_packed_sessions_names_no_ref_under_a_cut_name(invoke, packed):
    before = _sessions(invoke)
    p = packed / "refs" / "packed-sessions"
    data = p.read_bytes()
    p.write_bytes(data[:180])                        # the second line's name is cut short
    cut = data[:180].split(b"\n")[-1].partition(b" ")[2].decode()
    assert cut and cut not in before
    r = invoke("sessions", "--json")
    assert cut not in {s["id"] for s in r.json} and "damaged ref" in r.stderr
    invoke("fsck", exit_code=13)
    invoke("gc", "--prune=now", exit_code=13)
    invoke("fsck", "--repair")
    assert _sessions(invoke) == before
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_flipped_name_is_moved_back_to_its_session(invoke, packed):
    before = _sessions(invoke)
    p = packed / "refs" / "packed-sessions"
    lines = p.read_text().splitlines(keepends=True)
    oid, name = lines[0].rstrip("\n").split(" ", 1)
    wrong = ("0" if name[0] != "0" else "1") + name[1:]
    lines[0] = f"{oid} {wrong}\n"
    p.write_text("".join(sorted(lines)))
    invoke("fsck", exit_code=13)
    r = invoke("fsck", "--repair")
    assert f"removed sessions/{wrong}" in r.stdout
    assert _sessions(invoke) == before


def test_a_damaged_loose_session_ref_stops_gc_and_is_rebuilt(invoke, packed):
    before = _sessions(invoke)
    sid = sorted(before)[0]
    p = packed / "refs" / "packed-sessions"
    lines = p.read_text().splitlines(keepends=True)
    p.write_text("".join(x for x in lines if not x.rstrip("\n").endswith(" " + sid)))
    shutil.rmtree(packed / "logs")                   # no reflog to restore it from
    (packed / "refs" / "sessions").mkdir(exist_ok=True)
    (packed / "refs" / "sessions" / sid).write_text("not an id\n")
    r = invoke("gc", "--prune=now", exit_code=13)
    assert f"sessions/{sid}" in r.stderr
    r = invoke("fsck", "--repair")
    assert f"rebuilt sessions/{sid} from its turn objects" in r.stdout
    assert _sessions(invoke) == before


def test_a_forgotten_session_is_not_rebuilt(invoke, packed):
    before = _sessions(invoke)
    gone = sorted(before)[0]
    saved = packed.parent / "objects-before-forget"
    shutil.copytree(packed / "objects", saved)
    invoke("forget", "--session", gone, "--yes")
    assert gone not in _sessions(invoke)
    shutil.copytree(saved, packed / "objects", dirs_exist_ok=True)   # its turns are back (an old pack copied in)
    (packed / "refs" / "packed-sessions").write_text("garbage\n")
    invoke("fsck", "--repair")
    after = _sessions(invoke)
    assert gone not in after and set(after) == set(before) - {gone}
