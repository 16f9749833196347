"""Turns recovered from a transcript take the places of the "lost"
placeholders ``mem fsck --repair`` left (stop 26's defect: ``mem import
--reread`` appended them at the session's end, beside the placeholders).

Each test damages a real pack (a flipped byte in a block, or in one
version-2 entry), repairs, reads the original transcript again and checks
what ``mem sessions`` / ``mem show`` / ``mem search`` / ``mem fsck`` say."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest

from objstore.core.objects import Turn
from objstore.core.packformat import BLOCK_BYTES
from objstore.memory.refill import RefillPlan, is_lost_placeholder

SID = "5f0c9a52-7a43-4d6e-9b1e-0000000a1b2c"
N = 160
#: a turn's text about BLOCK_BYTES / 150 long (~440 bytes at 64 KiB, ~980 at
#: 128 KiB): a pack block holds ~100-130 turns, so the session spans two blocks
FILLER = " ".join(f"w{k}" for k in range(BLOCK_BYTES // 600))


def _transcript(path: Path, texts: list[str], skip: int | None = None) -> None:
    """A Claude Code transcript of ``texts`` (user and assistant by turns);
    ``skip``: the record at that index is left out (the others unchanged)."""
    lines, parent = [], None
    for i, text in enumerate(texts):
        if i == skip:
            continue
        role = "user" if i % 2 == 0 else "assistant"
        uid = f"{SID}-{i:04d}"
        rec = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/acme-api",
               "sessionId": SID, "version": "2.1.42", "timestamp": f"2026-03-02T09:{i // 60:02d}:{i % 60:02d}.000Z",
               "type": role, "uuid": uid,
               "message": {"role": role, "content": text} if role == "user" else
               {"id": f"msg_{i}", "role": "assistant", "model": "m", "type": "message",
                "content": [{"type": "text", "text": text}]}}
        lines.append(json.dumps(rec))
        parent = uid
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def _texts(n: int = N) -> list[str]:
    return [f"turn {i} marker{i}x {FILLER}" for i in range(n)]


@pytest.fixture
def session(invoke, tmp_path):
    """A 160-turn session imported and packed; returns the transcript's folder."""
    src = tmp_path / "projects"
    _transcript(src / "-home-dev-acme-api" / f"{SID}.jsonl", _texts())
    invoke("import", "claude-code", str(src))
    invoke("gc", "--prune=now")
    return src


def _turns(invoke) -> list[dict]:
    return invoke("show", SID, "--json").json["turns"]


def _pack(store_path: Path, oid: str | None = None):
    """The pack set and its pack that holds ``oid`` (None: the largest)."""
    from objstore.core.pack import PackSet
    ps = PackSet(store_path / "objects" / "pack")
    packs = sorted(ps.packs, key=lambda p: -len(p))
    return ps, next(p for p in packs if oid is None or oid in p)


def _flip_block_of(store_path: Path, oid: str, where: float) -> list[str]:
    """Flip a byte ``where`` (0..1) into the compressed block that holds
    ``oid``, or the first byte after it whose flip breaks the block's
    DEFLATE stream (it fails to inflate, or ends short), so that the block
    loses its objects from about there on: a flip inside a literal that
    later matches copy loses only the objects that copy it (here every
    10th turn, the texts repeating by 10).  Returns the ids of that block's
    objects."""
    ps, pack = _pack(store_path, oid)
    try:
        path = pack.pack_path
        data = path.read_bytes()
        ids, block = next((ids, b) for ids, b in pack.raw_blocks_in_body_order() if oid in ids)
        zdict = pack.dictionary()
    finally:
        ps.close()

    def breaks(k: int) -> bool:
        bad = bytearray(block)
        bad[k] ^= 0xFF
        d = zlib.decompressobj(-15, zdict=zdict) if zdict else zlib.decompressobj(-15)
        try:
            d.decompress(bytes(bad))
        except zlib.error:
            return True
        return not d.eof or bool(d.unused_data)

    k = next(k for k in range(max(2, int(len(block) * where)), len(block)) if breaks(k))
    at = data.index(block) + k
    b = bytearray(data)
    b[at] ^= 0xFF
    path.write_bytes(bytes(b))
    return ids


def _repair(invoke) -> dict:
    invoke("fsck", exit_code=13)
    rep = invoke("fsck", "--repair", "--json").json
    assert rep["ok"] and rep["repair"]["stubs"] > 0, rep
    return rep


def _reread(invoke, src: Path) -> dict:
    return invoke("import", "claude-code", "--reread", str(src), "--json").json


def _fsck_clean(invoke) -> None:
    assert invoke("fsck").stdout.splitlines()[-1].startswith("ok:")


def _hits(invoke, word: str) -> list[str]:
    return [h["id"] for h in invoke("search", word, "--json").json if h.get("kind") == "turn"]


def test_reread_puts_the_lost_turns_back_in_their_places(invoke, store_path, session):
    before = _turns(invoke)
    assert len(before) == N and invoke("sessions", "--json").json[0]["turns"] == N
    _flip_block_of(store_path, before[N // 3]["id"], 0.5)   # the middle of the first block
    _repair(invoke)
    mended = _turns(invoke)
    lost = [t for t in mended if t["source"].startswith("lost:")]
    assert lost and mended[-1]["text"] == before[-1]["text"]   # a gap in the middle, the head kept
    assert "(lost: mem fsck --repair could not recover this turn)" in invoke("show", SID).stdout
    first_lost = lost[0]["seq"]
    above = mended[lost[-1]["seq"] + 1]        # rewritten by the repair onto the placeholders
    assert above["id"] != before[above["seq"]]["id"]

    r = _reread(invoke, session)
    assert r["turns_added"] == r["turns_refilled"] == len(lost) and r["gaps_verified"] == 1
    after = _turns(invoke)
    # the same turns in the same order, with the ids they had before the damage
    assert [(t["seq"], t["role"], t["text"], t["id"]) for t in after] == \
           [(t["seq"], t["role"], t["text"], t["id"]) for t in before]
    shown = invoke("show", SID).stdout
    assert "(lost" not in shown and shown.index(f"marker{first_lost}x") < shown.index(f"marker{first_lost + 1}x")
    assert [s["turns"] for s in invoke("sessions", "--json").json] == [N]
    _fsck_clean(invoke)
    # the search index: a recovered turn is found, a turn rewritten twice once, by its restored id
    assert _hits(invoke, f"marker{first_lost}x") == [before[first_lost]["id"]]
    assert _hits(invoke, f"marker{above['seq']}x") == [before[above["seq"]]["id"]]

    again = _reread(invoke, session)          # a second read changes nothing
    assert again["turns_added"] == again["turns_refilled"] == 0
    assert _turns(invoke) == after
    invoke("gc", "--prune=now")
    _fsck_clean(invoke)


def test_a_forgotten_turn_stays_forgotten(invoke, store_path, session):
    """A turn forgotten before the damage comes back emptied, never with
    its text (its tombstone is intact); the gap around it is filled all the
    same, in order."""
    k = 20
    invoke("forget", _turns(invoke)[k]["id"], "--yes")
    invoke("gc", "--prune=now")
    _as_version_2(store_path)
    before = _turns(invoke)
    assert before[k]["text"] == "" and len(before) == N
    _flip_entries(store_path, [before[i]["id"] for i in (k - 1, k, k + 1)])
    _repair(invoke)
    assert [t["source"].startswith("lost:") for t in _turns(invoke)[k - 2:k + 3]] == [False, True, True, True, False]

    r = _reread(invoke, session)
    assert r["turns_refilled"] == 3 and r["turns_forgotten"] == 1
    # verified: the forgotten turn is written with its tombstone's time, which is what the forget wrote
    assert r["gaps_refilled"] == r["gaps_verified"] == 1
    after = _turns(invoke)
    assert [(t["seq"], t["source"], t["text"], t["id"]) for t in after] == \
           [(t["seq"], t["source"], t["text"], t["id"]) for t in before]
    assert after[k]["text"] == "" and f"marker{k}x" not in invoke("show", SID).stdout
    assert _hits(invoke, f"marker{k}x") == [] and len(_hits(invoke, f"marker{k + 1}x")) == 1
    assert "(lost" not in invoke("show", SID).stdout
    _fsck_clean(invoke)
    again = _reread(invoke, session)
    assert again["turns_added"] == 0 and _turns(invoke) == after
    invoke("gc", "--prune=now")
    _fsck_clean(invoke)


def _as_version_2(store_path: Path) -> None:
    """The store's packs rewritten as one version-2 pack: a flipped byte in
    an entry then loses that one object."""
    from objstore.core.pack import PackSet
    from objstore.core.packwriter import write_pack
    with PackSet(store_path / "objects" / "pack") as ps:
        old = list(ps.packs)
        write_pack(store_path / "objects" / "pack", [f for p in old for _o, f in p.frames_in_body_order()],
                   version=2)
        for p in old:
            ps.remove_pack(p)


def _flip_entries(store_path: Path, ids: list[str]) -> None:
    """Flip a byte in the middle of each entry of ``ids`` (a version-2 pack)."""
    ps, pack = _pack(store_path)
    try:
        path = pack.pack_path
        data = bytearray(path.read_bytes())
        for oid in ids:
            entry = pack.raw_entry(oid)
            data[bytes(data).index(entry) + len(entry) // 2] ^= 0xFF
    finally:
        ps.close()
    path.write_bytes(bytes(data))


def test_several_gaps_and_the_first_turn(invoke, store_path, session):
    """Three gaps (the first turn, one turn, three turns), each filled in
    order; every id is the one from before the damage."""
    _as_version_2(store_path)
    before = _turns(invoke)
    _flip_entries(store_path, [before[i]["id"] for i in (0, 40, 90, 91, 92)])
    rep = _repair(invoke)
    assert rep["repair"]["stubs"] == 5
    r = _reread(invoke, session)
    assert r["turns_refilled"] == 5 and r["gaps_verified"] == 3
    assert [t["id"] for t in _turns(invoke)] == [t["id"] for t in before]
    _fsck_clean(invoke)


def test_a_changed_transcript_leaves_the_gap(invoke, store_path, session, tmp_path):
    """A transcript that no longer holds every record of a gap (here one is
    gone): the gap is not filled by guess; its records are appended, as
    any new record, and the store stays consistent."""
    _as_version_2(store_path)
    before = _turns(invoke)
    _flip_entries(store_path, [before[i]["id"] for i in (50, 51)])
    _repair(invoke)
    edited = tmp_path / "edited"
    _transcript(edited / "-home-dev-acme-api" / f"{SID}.jsonl", _texts(), skip=51)
    r = _reread(invoke, edited)
    assert r["turns_refilled"] == 0 and r["turns_added"] == 1
    after = _turns(invoke)
    assert [t["source"].startswith("lost:") for t in after[50:52]] == [True, True]
    assert len(after) == N + 1 and after[-1]["text"].startswith("turn 50 marker50x")
    _fsck_clean(invoke)
    assert _reread(invoke, edited)["turns_added"] == 0


def test_an_edited_record_fills_the_gap_unverified_and_says_so(invoke, store_path, session, tmp_path):
    """A record of the gap whose text changed in the transcript still fits
    (as many records, in order) but cannot hash to the lost id: the gap is
    filled, counted as not verified in --json and in the text line, and the
    turns above keep the ids the repair gave them."""
    _as_version_2(store_path)
    before = _turns(invoke)
    _flip_entries(store_path, [before[i]["id"] for i in (50, 51)])
    _repair(invoke)
    texts = _texts()
    texts[51] += " edited"
    edited = tmp_path / "edited"
    _transcript(edited / "-home-dev-acme-api" / f"{SID}.jsonl", texts)
    shutil.copytree(store_path, tmp_path / "copy")
    r = _reread(invoke, edited)
    assert r["turns_refilled"] == 2 and r["gaps_refilled"] == 1 and r["gaps_verified"] == 0
    after = _turns(invoke)
    assert len(after) == N and after[51]["text"].endswith(" edited") and after[52]["id"] != before[52]["id"]
    out = invoke("--home", str(tmp_path / "copy"), "import", "claude-code", "--reread", str(edited)).stdout
    assert "0 of 1 gap verified" in out and "1 not: a turn there differs from its first writing" in out
    _fsck_clean(invoke)


def _turn(seq: int, source: str, parent: str | None, lost: bool = False) -> Turn:
    if lost:
        return Turn(session=SID, seq=seq, role="system", text="", timestamp=0, harness="claude-code", cwd="",
                    project="p", source=source, parent=parent, forgotten=1)
    return Turn(session=SID, seq=seq, role="user", text=f"t{seq}", timestamp=1, harness="claude-code", cwd="",
                project="p", source=source, parent=parent)


def test_plan_finds_the_gaps_and_follows_the_transcript():
    """RefillPlan alone: gaps keyed by the survivor below; a gap is filled
    by the records read between its survivors and fits only when exactly
    as many were read and the survivor above closes it."""
    ids = [f"{i:064x}" for i in range(7)]
    lost = {1: f"lost:{ids[1]}", 3: "lost:3", 4: f"lost:{ids[4]}"}
    chain = [[ids[i], _turn(i, lost.get(i, f"cc:{i}"), ids[i - 1] if i else None, i in lost)] for i in range(7)]
    plan = RefillPlan(chain)
    assert sorted(plan.gaps, key=str) == ["cc:0", "cc:2"]
    assert (plan.gaps["cc:0"].lost, plan.gaps["cc:2"].lost, plan.gaps["cc:2"].size) == (ids[1], ids[4], 2)

    class CT:
        def __init__(self, source):
            self.source = source
    assert plan.known("cc:0") == (None, False)
    assert plan.unknown("cc:1", (CT("cc:1"), None))
    gap, fits = plan.known("cc:2")
    assert fits and gap.first == gap.last == 1
    assert plan.unknown("cc:3", (CT("cc:3"), None))         # one record where two are lost
    gap, fits = plan.known("cc:5")
    assert not fits and [ct.source for ct, _h in gap.kept] == ["cc:3"]
    assert not plan.gaps and not plan.unknown("cc:7", (CT("cc:7"), None))   # a new record: appended
