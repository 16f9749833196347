"""Session 33 (test33b T5): one flipped byte in the body of a real import's
pack made ``mem fsck --repair`` say it "dropped N pack index entries whose
id did not match their objects (a damaged .idx)" while the ``.idx`` was
byte-identical to the one written: read without the index, a frame after
the damage joins a lost parent and hashes to another id, which is the
body's damage.  The index is blamed only when it fails its own checksum.
A real import, a real flipped byte, a real ``mem fsck --repair``."""

from __future__ import annotations

import json


def test_a_damaged_pack_body_is_not_blamed_on_its_intact_index(mem, tmp_path):
    from tests.conftest import gen_corpus
    corpus = gen_corpus(tmp_path / "corpus", "--sessions", "12", "--turns", "120", "--seed", "5")
    home = tmp_path / "home"
    mem("--home", str(home), "import", "claude-code", str(corpus))
    pack = max((home / "objects" / "pack").glob("*.pack"), key=lambda p: p.stat().st_size)
    idx_bytes = pack.with_suffix(".idx").read_bytes()
    data = bytearray(pack.read_bytes())
    data[int(len(data) * 0.25)] ^= 0x40   # as T5: one bit in a frame block of the pack's body
    pack.write_bytes(bytes(data))
    rep = mem("--home", str(home), "fsck", "--repair", "--json", exit_code=None)
    doc = json.loads(rep.stdout)["repair"]
    quarantined = [p for p in doc["quarantined"] if p.endswith(".idx")]
    assert all(open(p, "rb").read() == idx_bytes for p in quarantined)   # the index was never damaged
    assert doc["misindexed"] == {}, doc["misindexed"]
    out = mem("--home", str(home), "fsck", "--repair", exit_code=None)
    assert "a damaged .idx" not in out.stdout, out.stdout
