"""``mem doctor`` on a store whose pack was damaged (test28 Y7): it said
"ok: no problem found" while ``mem fsck`` said CORRUPT.  Now every pack's
whole-file checksums are checked: 40 flipped bytes are an error (exit 1)
naming the pack and ``mem fsck``; a sound store stays "ok"; the damaged
pack is left as it was (doctor --fix does not touch it)."""

from __future__ import annotations

import json
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"


def test_a_damaged_pack_is_an_error_a_sound_one_is_not(mem, tmp_path):
    home = tmp_path / "s"
    mem("--home", str(home), "import", "claude-code", str(SAMPLE))
    mem("--home", str(home), "gc")
    r = mem("--home", str(home), "doctor", "--json", exit_code=None)
    assert not [f for f in json.loads(r.stdout)["findings"] if f["check"] == "packs"], r.stdout
    big = max((home / "objects" / "pack").glob("*.pack"), key=lambda p: p.stat().st_size)
    b = bytearray(big.read_bytes())
    mid = len(b) // 2
    b[mid:mid + 40] = bytes(x ^ 0xFF for x in b[mid:mid + 40])
    big.write_bytes(bytes(b))
    r = mem("--home", str(home), "doctor", exit_code=1)
    assert "error: [packs] 1 pack problem(s)" in r.stdout and f"pack {big.name[5:21]}" in r.stdout, r.stdout
    assert "pack checksum mismatch" in r.stdout and "fix: mem fsck" in r.stdout
    assert "no problem found" not in r.stdout
    doc = json.loads(mem("--home", str(home), "doctor", "--json", "--fix", exit_code=1).stdout)
    assert not doc["ok"] and "packs" in [f["check"] for f in doc["findings"] if f["severity"] == "error"]
    assert big.read_bytes() == bytes(b)          # left for fsck --repair: doctor never rewrites a pack
    mem("--home", str(home), "fsck", exit_code=13)


def test_a_damaged_loose_object_is_an_error(mem, tmp_path):
    """test28b Z7: a loose object (a write since the last gc) with a flipped
    byte: doctor names it, as fsck does."""
    home = tmp_path / "s"
    mem("--home", str(home), "remember", "project/d/loose", "a loose value here")
    loose = [p for p in (home / "objects").rglob("*") if p.is_file() and "pack" not in p.parts]
    assert loose
    for p in loose:
        b = bytearray(p.read_bytes())
        b[-3] ^= 0xFF
        p.write_bytes(bytes(b))
    r = mem("--home", str(home), "doctor", exit_code=1)
    assert "error: [objects]" in r.stdout and "damaged loose object" in r.stdout, r.stdout
    mem("--home", str(home), "fsck", exit_code=13)
