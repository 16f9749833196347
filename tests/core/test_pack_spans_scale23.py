"""Versions 5 and 6: a pack's blocks in body order read from the index's
inverse table (``Pack._body_spans``), the path of a forget's pack copy
(``Store._copy_pack``), and the general path it falls back to when the
index's tables disagree (session 23, lane scale23)."""

from __future__ import annotations

import pytest

from objstore.core.ids import hash_bytes
from objstore.core.pack import Pack
from objstore.core.packformat import U32, int_table
from objstore.core.packwriter import write_pack
from tests.core.test_pack import _chain, _fill, flip
from tests.core.test_pack_v5 import _layout


def _blocks(p: Pack, general: bool = False) -> list:
    """``raw_blocks_in_body_order`` as a list (CorruptObject as its text);
    ``general``: with the spans path turned off on this reader."""
    if general:
        p._body_spans = lambda *_a: None
    try:
        return [(ids, str(d) if isinstance(d, Exception) else d) for ids, d in p.raw_blocks_in_body_order()]
    finally:
        p.__dict__.pop("_body_spans", None)


def _spans(p: Pack):
    nb = p._nblocks
    return p._body_spans(int_table(p._mm, "Q", p._boffs_off, nb), int_table(p._mm, "I", p._blens_off, nb))


@pytest.mark.parametrize("version", [5, 6, 7])
def test_blocks_from_the_inverse_table_are_the_pack_body(tmp_path, version):
    """Every block once, by offset, its ids those of the frames it holds in
    the order they were written, its stream the pack's bytes after the
    block's length prefix; the same as the general path yields."""
    n = _fill(4.7)
    frames = _chain(n, width=3, per=40)
    info = write_pack(tmp_path, frames, version=version)
    data = info.pack_path.read_bytes()
    t = _layout(info.idx_path.read_bytes(), n)
    with Pack(info.idx_path) as p:
        assert p.version == version and t["nb"] > 3
        assert _spans(p) is not None
        got = _blocks(p)
        assert got == _blocks(p, general=True)
    assert [i for ids, _d in got for i in ids] == [hash_bytes(f) for f in frames]
    assert len(got) == t["nb"]
    for b, (_ids, stream) in enumerate(got):
        off, length = t["boffs"][b], t["blens"][b]
        assert U32.unpack_from(data, off)[0] == length - 4 and stream == data[off + 4:off + length]


@pytest.mark.parametrize("where", ["pos", "inv", "first-high", "first-low"])
def test_tables_that_disagree_take_the_general_path(tmp_path, where):
    """A damaged body position, inverse place or block start past the
    objects: the spans are not used (they would name a block's objects from
    one table alone) and the blocks are what the general path reads, damage
    named as before.  A block start moved by one (its low byte) still rises:
    both paths split the body at the same starts and yield the same."""
    n = _fill(2.5)
    frames = _chain(n, width=3)
    info = write_pack(tmp_path, frames)
    t = _layout(info.idx_path.read_bytes(), n)
    at = {"pos": t["pos_at"] + t["w"] * 7 + 1, "inv": t["inv_at"] + t["w"] * 7 + 1,
          "first-high": t["pos_at"] + t["w"] * n + 4 + 12 * t["nb"] + 4 * 1,
          "first-low": t["pos_at"] + t["w"] * n + 4 + 12 * t["nb"] + 4 * 1 + 3}[where]
    flip(info.idx_path, at)
    with Pack(info.idx_path) as p:
        assert (_spans(p) is None) == (where != "first-low")
        assert _blocks(p) == _blocks(p, general=True)


def test_a_forget_copies_a_large_pack_through_the_spans(tmp_path):
    """``Store.delete_objects`` on a many-block pack (the one-turn forget
    after gc): the object named is gone from the copy, every other reads
    back, and the copy's blocks are again read from its inverse table."""
    from objstore.core.store import Store
    store = Store.init(tmp_path / "s")
    n = _fill(6.3)
    frames = _chain(n, width=3, per=40)
    write_pack(store.root / "objects" / "pack", frames)
    store.packs.reload()
    gone = hash_bytes(frames[n // 2])
    with store.lock("test"):
        assert store.delete_objects([gone]) == 1
    store.packs.reload()
    assert not store.has(gone)
    assert all(store.read_frame(hash_bytes(f)) == f for i, f in enumerate(frames) if i != n // 2)
    (p,) = store.packs.packs
    assert p.verify() == [] and _spans(p) is not None and len(p) == n - 1
    assert [i for ids, _d in _blocks(p) for i in ids] == [hash_bytes(f) for i, f in enumerate(frames) if i != n // 2]
    store.close()
