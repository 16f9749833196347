"""Issue 21 item 2: one damaged pack or loose object must not stop the
store; 'mem fsck --repair' sets the damage aside and leaves a consistent
store.  Each test failed on the code before the fix (every command that
touched the damaged object exited 13)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"
DAMAGED_SID = "a3e1d7b0-1c2f-4b8a-9e55-7c6d0f9b2e33"


def _flip(path: Path, at: int) -> None:
    b = bytearray(path.read_bytes())
    b[at] ^= 0xFF
    path.write_bytes(bytes(b))


def _packs(store_path: Path) -> list[Path]:
    return sorted((store_path / "objects" / "pack").glob("pack-*.pack"), key=lambda p: -p.stat().st_size)


@pytest.fixture
def imported(invoke, store_path):
    invoke("import", "claude-code", str(SAMPLE))
    invoke("remember", "user/editor", "helix")
    invoke("gc", "--prune=now")
    assert not list((store_path / "objects").glob("??/*"))  # everything is packed
    return {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}


def _damaged_turn(invoke) -> str:
    probs = invoke("fsck", "--json", exit_code=13).json["problems"]
    return next(p.split()[1].rstrip(":") for p in probs if p.startswith("object "))


def test_flipped_byte_in_a_pack_entry(invoke, store_path, imported):
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size // 2)
    bad = _damaged_turn(invoke)
    r = invoke("sessions", "--json")  # lists every session, the damaged one marked
    assert {s["id"] for s in r.json} == set(imported)
    assert "damaged object" in r.stderr
    assert invoke("get", "user/editor").stdout == "helix\n"
    invoke("remember", "user/shell", "fish")
    invoke("search", "postgres")
    invoke("reindex")
    invoke("import", "claude-code", str(SAMPLE))
    plan = invoke("gc", "--prune=now", "--json").json
    assert plan["damaged"] == [bad] and plan["deleted"] == 0
    r = invoke("fsck", "--repair", "--json")
    assert r.json["ok"] and bad in r.json["repair"]["lost"] and r.json["repair"]["quarantine"]
    assert invoke("fsck").stdout.startswith("ok:")
    for ref in r.json["repair"]["mended"]:  # the lost turn keeps its place, labelled
        assert "(lost: mem fsck --repair could not recover this turn)" in invoke("show", ref.split("/", 1)[1]).stdout
    sessions = {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}
    assert set(sessions) == set(imported)
    assert not any(s["damaged"] for s in invoke("sessions", "--json").json)
    assert invoke("gc", "--prune=now", "--json").json["damaged"] == []
    assert invoke("fsck").stdout.startswith("ok:")


def test_forget_a_damaged_session(invoke, store_path, imported):
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size // 2)
    bad = _damaged_turn(invoke)
    sid = next(s for s in imported if s in json.dumps(invoke("fsck", "--json", exit_code=13).json))
    invoke("forget", "--session", sid, "--yes")
    # the damaged turn went with its session: nothing is left to repair
    assert invoke("fsck").stdout.startswith("ok:"), bad


def test_a_pack_that_cannot_be_opened_is_salvaged(invoke, store_path, imported):
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size - 1)  # the trailer: the pack no longer opens at all
    invoke("get", "user/editor")  # in the other pack
    r = invoke("fsck", exit_code=13)
    assert "trailer checksum" in r.stdout
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["salvaged"] > 0 and r["repair"]["lost"] == []
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported
    assert not (store_path / "objects" / "pack" / big.name).exists()
    assert (Path(r["repair"]["quarantine"]) / big.name).exists()


def test_a_corrupt_loose_version_is_mended(invoke, store_path):
    for v in ("one", "two", "three"):
        invoke("remember", "user/x", v)
    ids = [v["id"] for v in invoke("log", "user/x", "--json").json]
    p = store_path / "objects" / ids[1][:2] / ids[1][2:]
    p.write_bytes(zlib.compress(zlib.decompress(p.read_bytes()).replace(b"two", b"tw0")))
    r = invoke("get", "user/x")
    assert r.stdout == "three\n" and "damaged object" in r.stderr
    invoke("remember", "user/y", "still writable")
    r = invoke("fsck", "--repair")
    assert "mended facts/user/x" in r.stdout and r.stdout.rstrip().endswith("0 problems")
    log = invoke("log", "user/x", "--json").json
    assert [(v["version"], v["body"]) for v in log] == [(3, "three"), (2, ""), (1, "one")]
    assert not log[1]["current"] and log[1]["sources"] == [f"lost:{ids[1]}"]
    assert invoke("get", "user/x").stdout == "three\n"
    invoke("remember", "user/x", "four")
    assert invoke("log", "user/x", "--json").json[0]["version"] == 4
    assert invoke("fsck").stdout.startswith("ok:")


def test_repair_refetches_through_the_callback(store):
    """The hook a remote plugs into: a lost object found elsewhere is restored as it was."""
    from objstore.core.fsck import fsck
    from objstore.memory.facts import remember, versions
    from objstore.memory.repair import repair
    for v in ("one", "two", "three"):
        remember(store, "user/x", v)
    chain = versions(store, "user/x")
    lost = chain[1].id
    saved = {lost: store.read_frame(lost)}
    store.objects.path(lost).unlink()
    rep = repair(store, fetch=saved.get)
    assert rep.refetched == [lost] and rep.stubs == 0 and rep.mended == []
    assert [v.id for v in versions(store, "user/x")] == [v.id for v in chain]
    assert fsck(store).ok


def test_gc_empties_the_quarantine_after_the_grace_period(invoke, store_path, imported):
    big = _packs(store_path)[0]
    _flip(big, big.stat().st_size - 1)
    q = Path(invoke("fsck", "--repair", "--json").json["repair"]["quarantine"])
    invoke("gc")
    assert q.exists()  # younger than the grace period
    assert invoke("gc", "--prune=now", "--json").json["quarantine"] == [str(q)]
    assert not q.exists()
