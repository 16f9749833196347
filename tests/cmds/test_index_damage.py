"""A damaged search index (fresh2 finding 1): fsck reports it (exit 13),
fsck --repair rebuilds it and says so, doctor names it.  Real processes, the
damage made as the user made it: 4 bytes written into the middle of every
``index/**/*.store`` file."""

from __future__ import annotations

WORDS = ("marmalade pelican", "quorum lantern", "basalt origami", "velvet turbine")


def _damage_store_files(root) -> int:
    n = 0
    for p in (root / "index").rglob("*.store"):
        data = bytearray(p.read_bytes())
        mid = len(data) // 2
        data[mid:mid + 4] = b"\xde\xad\xbe\xef"
        p.write_bytes(bytes(data))
        n += 1
    return n


def test_damaged_index_is_found_repaired_and_diagnosed(mem, store_path):
    mem("init")
    for i, w in enumerate(WORDS):
        mem("remember", f"project/idx/k{i}", f"the {w} note number {i} " + "filler text " * 40)
    mem("search", "pelican")
    assert "[index]" not in mem("doctor", exit_code=None).stdout
    mem("fsck")

    assert _damage_store_files(store_path) > 0
    # (whether a search fails now depends on where the bytes landed in the
    # compressed blocks: the user's search exited 13; the checksums see it always)

    r = mem("fsck", exit_code=13)
    assert "search index" in r.stdout and "checksum mismatch" in r.stdout
    assert "CORRUPT" in r.stdout
    r = mem("fsck", "--json", exit_code=13)
    assert any("search index" in p for p in r.json["problems"])

    r = mem("doctor", exit_code=1)
    assert "[index]" in r.stdout and "damaged" in r.stdout and "mem fsck --repair" in r.stdout

    r = mem("fsck", "--repair")
    assert "rebuilt the search index" in r.stdout
    assert "nothing to repair" not in r.stdout
    assert r.stdout.strip().splitlines()[-1].startswith("ok:")

    r = mem("search", "pelican")
    assert "project/idx/k0" in r.stdout
    mem("fsck")
    assert "[index]" not in mem("doctor", exit_code=None).stdout
    assert "nothing to repair" in mem("fsck", "--repair").stdout
