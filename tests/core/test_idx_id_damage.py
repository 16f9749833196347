"""fix12b finding 1: one flipped byte in a pack index's id table lost an
intact object.  ``mem fsck --repair`` read the entry, saw that its content
hashes to another id (the very id a session needed), dropped it as damaged
and left a lost placeholder, where deleting the ``.idx`` outright lost
nothing.  The pack is self-describing (each frame's id is its BLAKE3): the
quarantined copy of the rewritten pack is now read back, as a pack with no
index, for the ids a chain needs."""

from __future__ import annotations

from pathlib import Path

from objstore.core.packfile import Pack
from objstore.core.packformat import FANOUT_LEN, HEADER_LEN

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


def _packed(invoke, store_path) -> None:
    invoke("import", "claude-code", str(SAMPLE))
    invoke("remember", "user/editor", "helix")
    invoke("gc", "--prune=now")
    assert not list((store_path / "objects").glob("??/*"))  # everything is packed


def _flip_an_idx_id(store_path) -> tuple[str, str]:
    """Flip the last byte of one id in the largest ``.idx``: (the object's
    id, the id its entry now reads)."""
    big = max((store_path / "objects" / "pack").glob("pack-*.idx"), key=lambda p: p.stat().st_size)
    with Pack(big) as p:
        i = p.count // 2
        oid = p._id_at(i).hex()
        width = p._idw  # an id's bytes in the table: ID_LEN, version 5 one less (the fan-out gives the first)
    at = HEADER_LEN + FANOUT_LEN + i * width + width - 1  # the id's last byte: the fan-out still holds
    b = bytearray(big.read_bytes())
    b[at] ^= 0xFF
    big.write_bytes(bytes(b))
    return oid, oid[:-2] + f"{int(oid[-2:], 16) ^ 0xFF:02x}"


def test_a_flipped_byte_in_the_idx_id_table_loses_nothing(invoke, store_path):
    _packed(invoke, store_path)
    before = {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}
    shown = {sid: invoke("show", sid).stdout for sid in before}
    oid, wrong = _flip_an_idx_id(store_path)

    r = invoke("fsck", "--json", exit_code=13)
    assert any(oid in p for p in r.json["problems"])  # the content hashes to the real id
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["lost"] == [], r
    assert oid not in r["repair"]["dropped_objects"]  # the object is intact: only its index entry was damaged
    assert r["repair"]["misindexed"] == {wrong: oid} and r["repair"]["dropped_objects"] == []
    assert r["repair"]["unindexed"] == 1  # read back from the quarantined copy, by its BLAKE3
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == before
    assert {sid: invoke("show", sid).stdout for sid in before} == shown
    assert "lost" not in "".join(shown.values())
    out = invoke("fsck").stdout
    assert out.splitlines()[-1].startswith("ok:"), out
    invoke("gc", "--prune=now")
    assert invoke("fsck").stdout.splitlines()[-1].startswith("ok:")
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == before


def test_the_repair_says_an_index_entry_was_dropped_not_an_object(mem, store_path):
    """Session 13 (fix13): the text said "dropped 1 damaged object" beside
    "read 1 object back", as if something were lost."""
    _packed(mem, store_path)
    _flip_an_idx_id(store_path)
    out = mem("fsck", "--repair").stdout
    assert "damaged object" not in out, out
    assert ("repair: dropped 1 pack index entry whose id did not match its object (a damaged .idx); the object is "
            "intact in the pack") in out
    assert "repair: read 1 object back from a pack whose index was missing or damaged" in out
