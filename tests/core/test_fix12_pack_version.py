"""Session 12's tester, pack versions (lane fix12): one flipped byte in the
top three bytes of a pack or index header's version field (``00 ff 00 04``:
16711684) read as "a newer mem wrote this store" (exit 14), and fsck
--repair changed nothing: the pack's objects could never be read again.
A version above ``packformat.MAX_FORMAT_VERSION`` (255) is damage: exit 13,
fsck names it, fsck --repair salvages the entries that still hash to their
ids.  A version up to the bound stays "newer" (test_store_damage's
test_a_newer_pack_version_is_not_damage).  Real stores, real processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from objstore.core.errors import CorruptObject, UnsupportedVersion
from objstore.core.packbytes import PackBytes
from objstore.core.packformat import MAX_FORMAT_VERSION, PACK_VERSION, READ_VERSIONS
from objstore.core.packlines import LINES_VERSION
from objstore.core.salvage import salvage_pack
from tests.core.test_store_damage import _flip, _packs, imported  # noqa: F401 - the fixture

#: a version no mem writes yet (9: this mem reads 1 to 8; PACK_VERSION + 1 is 7, which it reads)
NEWER = READ_VERSIONS[-1] + 1


@pytest.mark.parametrize("which, at", [("pack", 5), ("pack", 4), ("idx", 5), ("idx", 6)])
def test_a_version_far_beyond_any_mem_is_damage_that_repair_salvages(invoke, store_path, imported, which, at):
    big = _packs(store_path)[0]
    f = big if which == "pack" else big.with_suffix(".idx")
    _flip(f, at)   # HEADER: magic, version (u32 BE), count: 4 -> 0x00ff0004, 0xff000004, 0x0000ff04
    r = invoke("fsck", exit_code=13)
    assert "is damaged" in r.stdout + r.stderr and "newer mem" not in r.stdout + r.stderr, r.stdout + r.stderr
    r = invoke("fsck", "--repair", "--json").json
    assert r["repair"]["lost"] == [], r["repair"]
    assert r["repair"]["salvaged"] > 0, r["repair"]
    assert (Path(r["repair"]["quarantine"]) / f.name).exists()
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported
    invoke("fsck")
    assert invoke("get", "user/editor").stdout.strip() == "helix"


def test_salvage_reads_a_pack_whose_version_field_is_damaged_without_its_index(tmp_path, invoke, store_path,
                                                                              imported):
    big = _packs(store_path)[0]
    want = sorted(oid for oid, _f in salvage_pack(big))
    lone = tmp_path / big.name                  # no index beside it: each version is tried
    lone.write_bytes(big.read_bytes())
    _flip(lone, 5)
    assert sorted(oid for oid, _f in salvage_pack(lone)) == want
    assert want


@pytest.mark.parametrize("version, error", [(NEWER, UnsupportedVersion), (MAX_FORMAT_VERSION, UnsupportedVersion),
                                            (MAX_FORMAT_VERSION + 1, CorruptObject), (0x00FF0004, CorruptObject),
                                            (0, CorruptObject)])
def test_a_bundle_read_in_memory_follows_the_same_bound(store_path, imported, version, error):
    big = _packs(store_path)[0]
    pack, idx = bytearray(big.read_bytes()), bytearray(big.with_suffix(".idx").read_bytes())
    pack[4:8] = idx[4:8] = version.to_bytes(4, "big")
    with pytest.raises(error):
        PackBytes(bytes(pack), bytes(idx))
    for which in (pack, idx):   # one of the pair alone: damage whatever the version (session 13)
        which[4:8] = PACK_VERSION.to_bytes(4, "big")
        with pytest.raises(CorruptObject, match="damaged"):
            PackBytes(bytes(pack), bytes(idx))
        which[4:8] = version.to_bytes(4, "big")


@pytest.mark.parametrize("which, version", [("idx", NEWER), ("pack", NEWER), ("idx", 255),
                                            ("pack", 255)])
def test_one_file_of_a_pair_at_a_newer_version_is_damage(invoke, store_path, imported, which, version):
    """Session 13 (fix13): an index whose header reads 5 beside its pack
    reading 4 (4 -> 5 is one flipped bit) read as "a newer mem" (exit 14)
    for good.  A mem writes a pack and its index with one version, so one
    of them alone at another is a damaged field: exit 13 naming both
    versions, and fsck --repair salvages the pack, losing nothing."""
    big = _packs(store_path)[0]
    f = big if which == "pack" else big.with_suffix(".idx")
    b = bytearray(f.read_bytes())
    b[4:8] = version.to_bytes(4, "big")
    f.write_bytes(bytes(b))
    r = invoke("fsck", exit_code=13)
    other = "index" if which == "pack" else "pack"
    assert f"version {version} is damaged: its {other} has version {LINES_VERSION}" in r.stdout, r.stdout  # the store's
    assert "newer mem" not in r.stdout + r.stderr
    r = invoke("fsck", "--repair", "--json").json
    assert r["ok"] and r["repair"]["lost"] == [] and r["repair"]["salvaged"] > 0, r["repair"]
    assert {s["id"]: s["turns"] for s in invoke("sessions", "--json").json} == imported
    assert invoke("get", "user/editor").stdout.strip() == "helix"
