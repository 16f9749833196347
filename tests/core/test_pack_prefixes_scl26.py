"""Prefix lookups in packs (scl26): ``Pack.find_prefixed`` finds what a scan
of every id finds, for each prefix length and pack version; ``PackSet``
reads an object a prefix lookup found from the pack it was found in, and
still reads it when that pack goes."""

from __future__ import annotations

import random

import pytest

from objstore.core.codec import encode
from objstore.core.errors import NotFound
from objstore.core.ids import hash_bytes
from objstore.core.objects import Turn
from objstore.core.pack import Pack, PackSet
from objstore.core.packfile import FIND_MIN_BYTES, prepare_prefixes
from objstore.core.packwriter import write_pack


def _frames(n: int, tag: str) -> list[bytes]:
    return [encode(Turn(session=f"s-{tag}", seq=i, role="user", text=f"{tag} turn {i} " * (1 + i % 3),
                        timestamp=1772000000000 + i, harness="claude-code", cwd="/w", project="w", source=f"{tag}-{i}",
                        parent=None))
            for i in range(n)]


def _prefixes(ids: list[str], rng: random.Random) -> list[str]:
    """Prefixes of real ids at every length the index and the CLI use (odd
    ones too), beside random ones that find nothing."""
    out = []
    for oid in rng.sample(ids, 40):
        out += [oid[:n] for n in (4, 5, 6, 9, 2 * FIND_MIN_BYTES + 1, 2 * FIND_MIN_BYTES + 2, 2 * FIND_MIN_BYTES + 3,
                                  16, 31, 32, 33, 63, 64)]
    out += ["%032x" % rng.getrandbits(128) for _ in range(40)] + ["%05x" % rng.getrandbits(20) for _ in range(40)]
    return out


@pytest.mark.parametrize("version", [4, 5, 6])
def test_prefixes_raw_finds_what_a_scan_finds(tmp_path, version):
    frames = _frames(3000, f"v{version}")
    info = write_pack(tmp_path, frames, version=version)
    rng = random.Random(version)
    with Pack(info.idx_path) as p:
        ids = list(p)
        assert len(ids) == 3000
        ps = _prefixes(ids, rng)
        want = [[bytes.fromhex(o) for o in ids if o.startswith(q)] for q in ps]
        got: list[list[bytes]] = [[] for _ in ps]
        for i, r in p.find_prefixed(prepare_prefixes(ps)):
            got[i].append(r)
        assert got == want
        assert sum(map(len, got)) >= 40 * 13   # every real id's prefixes found it (the short ones, more)
        assert [p.prefix_raw(q) for q in ps] == want


def test_a_key_inside_a_row_is_not_a_match(tmp_path):
    """An id's bytes 9.. as the prefix's bytes 1..: ``mmap.find`` meets them
    inside that row, which is not a row starting with the prefix."""
    frames = _frames(500, "inside")
    info = write_pack(tmp_path, frames, version=6)
    with Pack(info.idx_path) as p:
        ids = list(p)
        for oid in ids[:50]:
            fake = oid[:2] + oid[18:50]   # the right fan-out bucket, the key taken from inside the row
            assert p.prefix_raw(fake) == [bytes.fromhex(o) for o in ids if o.startswith(fake)]


def test_packset_reads_what_a_prefix_lookup_found(tmp_path):
    a, b = _frames(400, "a"), _frames(400, "b")
    shared = _frames(5, "both")
    write_pack(tmp_path, a + shared, version=6)
    write_pack(tmp_path, b + shared, version=6)
    ps = PackSet(tmp_path)
    ids = [hash_bytes(f) for f in a + b + shared]
    found = ps.prefixes_raw([i[:32] for i in ids])
    assert [sorted(x.hex() for x in f) for f in found] == [[i] for i in ids]
    for i, f in zip(ids, a + b + shared):
        assert ps.get(i) == f
    ps.close()


def test_a_pack_gone_after_a_lookup_is_not_read(tmp_path):
    """The pack a lookup found an id in is removed; the id, also in another
    pack, is read from that one, and an id only the removed pack held is
    not found (no read of a closed pack)."""
    a, shared = _frames(300, "a"), _frames(20, "both")
    write_pack(tmp_path, shared, version=6)
    only = write_pack(tmp_path, a + shared, version=6)
    ps = PackSet(tmp_path)
    gone = next(p for p in ps.packs if p.name == only.name)
    ps.prefixes_raw([hash_bytes(f)[:32] for f in a + shared])
    ps.remove_pack(gone)
    for f in shared:
        assert ps.get(hash_bytes(f)) == f
    with pytest.raises(NotFound):
        ps.get(hash_bytes(a[0]))
    ps.close()


def test_a_pack_removed_by_another_process_is_dropped_on_reload(tmp_path):
    a, shared = _frames(300, "a"), _frames(20, "both")
    write_pack(tmp_path, shared, version=6)
    only = write_pack(tmp_path, a + shared, version=6)
    ps = PackSet(tmp_path)
    ps.prefixes_raw([hash_bytes(f)[:32] for f in a + shared])
    only.idx_path.unlink()
    only.pack_path.unlink()
    ps.reload()
    for f in shared:
        assert ps.get(hash_bytes(f)) == f
    with pytest.raises(NotFound):
        ps.get(hash_bytes(a[1]))
    ps.close()
