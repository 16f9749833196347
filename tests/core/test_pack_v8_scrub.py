"""Forget in a version-8 pack rewrites only the blocks it touches (the chunk
scrub, ``objstore/core/packscrub.py``; ``docs/format.md``, "Packs").

Real stores, real packs, real processes: the blocks that hold no forgotten
object are copied byte for byte; the chunk that only the forgotten value
named is emptied in place (its number kept, only its ``\\n`` left), so no
byte of the value is in any file of the store; a chunk it shared with a
kept object stays and every kept object reads; fsck is clean; a forget
killed in the middle of the rewrite loses nothing and, run again, leaves
no byte of the value; a chunk block that must be emptied and does not read
makes the forget write every kept frame again instead."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from objstore.core.errors import NotFound
from objstore.core.fsck import fsck
from objstore.core.gc import gc
from objstore.core.packfile import Pack
from objstore.core.ids import hash_bytes
from objstore.core.packlines import LINES_VERSION, body_chunks
from objstore.core.packwriter import write_pack
from objstore.core.salvage import salvage_pack
from objstore.core.store import Store
from objstore.memory import facts
from objstore.memory.forget import forget, scan_store
from objstore.memory.opening import open_store

CANARY = "canary-ptarmigan-8841"
SECRET_LINE = f"    the staging password note says {CANARY} for now\n"
SHARED_LINE = "    the deploy runs make release on the build host, then tags it\n"
VALUE_LINE = b"    the value only two frames hold: hunter-osprey-3317\n"
REPO = Path(__file__).resolve().parents[2]


def _filler(i: int) -> str:
    return "".join(f"note {i} step {k}: build layer {k % 5} of the cache, {i * k}\n" for k in range(70))


def _store(home: Path) -> None:
    """60 notes naming SHARED_LINE and 15 secrets naming SECRET_LINE and
    SHARED_LINE, gc'd into one version-8 pack whose table holds both lines."""
    with open_store(home, create=True) as store:
        for i in range(60):
            facts.remember(store, f"project/p/note{i}", f"note {i}\n{SHARED_LINE}{_filler(i)}")
            if i % 4 == 0:
                facts.remember(store, f"project/p/secret{i}", f"secret {i}\n{SECRET_LINE}{SHARED_LINE}{_filler(i)[:900]}")
        gc(store, grace_s=0)


def _packs(home: Path) -> list[Path]:
    return sorted((home / "objects" / "pack").glob("*.idx"))


def _table(idx: Path) -> dict[int, bytes]:
    """Chunk number -> chunk (with its ``\\n``) of every chunk block of the pack's body."""
    data = idx.with_suffix(".pack").read_bytes()
    start = 16 + int.from_bytes(data[12:16], "big")
    return {first + k: ln + b"\n" for _at, first, lines in body_chunks(data, start, len(data) - 32)
            for k, ln in enumerate(lines)}


def _blocks(idx: Path) -> set[bytes]:
    with Pack(idx) as p:
        return {bytes(data) for _ids, data in p.raw_blocks_in_body_order()}


def _has_key(store, key: str) -> bool:
    try:
        facts.current(store, key)
    except NotFound:
        return False
    return True


def _notes_read(store) -> bool:
    return all(facts.current(store, f"project/p/note{i}").fact.body == f"note {i}\n{SHARED_LINE}{_filler(i)}"
               for i in range(60))


def test_forget_scrubs_the_values_chunk_in_place_and_every_note_reads(tmp_path):
    home = tmp_path / "s"
    _store(home)
    (idx,) = _packs(home)
    with Pack(idx) as p:
        assert p.version == LINES_VERSION
    before = _table(idx)
    secret_no = next(c for c, ln in before.items() if ln == SECRET_LINE.encode())  # a chunk: the test can fail
    shared_no = next(c for c, ln in before.items() if ln == SHARED_LINE.encode())
    with open_store(home) as store:
        assert scan_store(home, [CANARY.encode()])
        forget(store, match=CANARY)
        assert scan_store(home, [CANARY.encode()]) == []                  # frames, chunk blocks, every file
        (new,) = _packs(home)
        after = _table(new)
        assert sorted(after) == sorted(before)                            # the numbering kept
        assert after[secret_no] == b"\n"                                  # emptied in place
        assert after[shared_no] == b"\n"          # both blocks lost a secret: every note is written again whole
        # the only change: chunks scrubbed (no frame names them now)
        assert all(after[c] == b"\n" for c in before if after[c] != before[c])
        assert _notes_read(store)
        assert not any(_has_key(store, f"project/p/secret{i}") for i in range(0, 60, 4))
        report = fsck(store)
        assert report.ok, report.problems
        with Pack(new) as p:
            assert p.verify() == []


KILLED_IN_SCRUB = r"""
import os, signal, sys
from objstore.core.packscrub import ScrubWriter
from objstore.memory.forget import forget
from objstore.memory.opening import open_store
def add_chunk_block(self, first, data):   # every frame block written, the chunk table not yet: killed here
    os.kill(os.getpid(), signal.SIGKILL)
ScrubWriter.add_chunk_block = add_chunk_block
forget(open_store(sys.argv[1]), match=sys.argv[2])
"""


def test_a_forget_killed_in_the_scrub_loses_nothing_and_a_rerun_leaves_no_value_byte(tmp_path):
    home = tmp_path / "s"
    _store(home)
    (idx,) = _packs(home)
    p = subprocess.run([sys.executable, "-c", KILLED_IN_SCRUB, str(home), CANARY], capture_output=True, cwd=REPO)
    assert p.returncode == -signal.SIGKILL, p.stderr[-2000:]
    assert _packs(home) == [idx]                                          # the old pack still in place
    with open_store(home, lock_timeout=5) as store:
        with store.lock("check"):                                         # the stopped forget's recovery
            pass
        assert _notes_read(store)
        report = fsck(store)
        assert report.ok, report.problems
        forget(store, match=CANARY)
        assert scan_store(home, [CANARY.encode()]) == []
        # the killed scrub's temp pack (what of its frame blocks left the write buffer; no chunk block
        # yet): none of its frames holds the value
        temps = list((home / "objects" / "pack").glob("tmp-pack-*"))
        assert temps
        assert not any(CANARY.encode() in f for t in temps if t.read_bytes()[:4] == b"MPAK"
                       for _o, f in salvage_pack(t))
        gc(store, grace_s=0)                                              # a killed writer's temp files go
        assert not list((home / "objects" / "pack").glob("tmp-*"))
        assert scan_store(home, [CANARY.encode()]) == []
        assert _notes_read(store)
        assert not any(_has_key(store, f"project/p/secret{i}") for i in range(0, 60, 4))
        report = fsck(store)
        assert report.ok, report.problems


def _frames(n: int = 400) -> list[bytes]:
    """``n`` frames of ~1.3 KB (~100 to a 128 KiB block): SHARED_LINE in
    each, lines of their own; frames 5 and 150 (blocks 0 and 1) hold
    SECRET_LINE and VALUE_LINE, frame 151 (kept) SECRET_LINE only."""
    out = []
    for i in range(n):
        own = b"".join(b"line %d of frame %d: %s\n" % (k, i, hash_bytes(b"%d.%d" % (i, k)).encode())
                       for k in range(12))
        extra = SECRET_LINE.encode() if i in (5, 150, 151) else b""
        extra += VALUE_LINE if i in (5, 150) else b""
        out.append(b"MEMO\n" + SHARED_LINE.encode() + own + extra + b"short\nend of frame %d" % i)
    return out


def _pack_store(tmp_path: Path):
    store = Store.init(tmp_path / "s")
    frames = _frames()
    write_pack(store.root / "objects" / "pack", frames, version=LINES_VERSION)
    store.packs.reload()
    return store, frames


def test_only_the_touched_blocks_are_written_again_and_a_kept_frame_keeps_its_chunk(tmp_path):
    store, frames = _pack_store(tmp_path)
    (idx,) = _packs(store.root)
    before, blocks = _table(idx), _blocks(idx)
    assert len(blocks) >= 4
    value_no = next(c for c, ln in before.items() if ln == VALUE_LINE)             # chunks: the test can fail
    secret_no = next(c for c, ln in before.items() if ln == SECRET_LINE.encode())
    gone = [hash_bytes(frames[5]), hash_bytes(frames[150])]
    with store.lock("test"):
        assert store.delete_objects(gone) == 2
    (new,) = _packs(store.root)
    after = _table(new)
    assert sorted(after) == sorted(before)
    assert after[value_no] == b"\n"                                       # only the dropped frames named it
    assert after[secret_no] == b"\n"       # and frame 151, kept, written again whole: its line is in its frame
    assert {c: ln for c, ln in after.items() if c not in (value_no, secret_no)} == \
        {c: ln for c, ln in before.items() if c not in (value_no, secret_no)}   # SHARED_LINE's too: copied blocks name it
    copied = _blocks(new) & blocks
    assert len(copied) == len(blocks) - 2                                 # blocks 0 and 1 written again, the rest copied
    assert VALUE_LINE not in new.with_suffix(".pack").read_bytes()
    assert scan_store(store.root, [b"the value only two frames hold"]) == []
    store.packs.reload()
    assert not any(store.has(g) for g in gone)
    assert all(store.read_frame(hash_bytes(f)) == f for i, f in enumerate(frames) if i not in (5, 150))
    with Pack(new) as p:
        assert p.verify() == []
    store.close()


def test_a_scrubbed_pack_is_scrubbed_again_by_the_next_forget(tmp_path):
    """The scrub keeps the chunk blocks at their places among the frame
    blocks, so the next forget in the pack it wrote finds what its frames
    name as in a pack the writer made: a second and a third forget leave
    every other frame readable and the pack sound."""
    store, frames = _pack_store(tmp_path)
    (idx,) = _packs(store.root)
    with Pack(idx) as p:
        layout = sorted([(o, "f") for o in p.block_offsets()] + [(o, "c") for o in p.chunk_table().offsets])
    gone = set()
    for batch in ([150], [5, 151], [399, 200]):
        with store.lock("test"):
            assert store.delete_objects([hash_bytes(frames[i]) for i in batch]) == len(batch)
        gone.update(batch)
        (new,) = _packs(store.root)
        with Pack(new) as p:
            assert p.verify() == []
            kinds = [k for _o, k in sorted([(o, "f") for o in p.block_offsets()] +
                                           [(o, "c") for o in p.chunk_table().offsets])]
        assert kinds.count("c") == [k for _o, k in layout].count("c")
        store.packs.reload()
        assert all(store.read_frame(hash_bytes(f)) == f for i, f in enumerate(frames) if i not in gone)
    assert scan_store(store.root, [b"staging password note", b"hunter-osprey-3317"]) == []
    store.close()


def test_a_chunk_block_to_empty_that_does_not_read_makes_the_rewrite_write_every_kept_frame(tmp_path):
    """The scrub refuses (it cannot empty a chunk it cannot read): the pack's
    kept frames are written again, the damaged chunk block goes with the old
    pack, and the value with it."""
    store, frames = _pack_store(tmp_path)
    (idx,) = _packs(store.root)
    value_no = next(c for c, ln in _table(idx).items() if ln == VALUE_LINE)
    with Pack(idx) as p:
        t = p.chunk_table()
        b = t.block_of(value_no)
        at, n = t.offsets[b], t.lengths[b]
    data = bytearray(idx.with_suffix(".pack").read_bytes())
    data[at + 4:at + n] = b"\xff" * (n - 4)                               # its stream: an invalid DEFLATE block type
    idx.with_suffix(".pack").write_bytes(bytes(data))
    store.packs.reload()
    with store.lock("test"):
        store.delete_objects([hash_bytes(frames[5]), hash_bytes(frames[150])])
    assert all(idx.name != q.name for q in _packs(store.root))           # the damaged pack is gone
    assert all(ln != b"\n" for q in _packs(store.root) for ln in _table(q).values())   # nothing emptied: written again
    assert not any(VALUE_LINE in q.with_suffix(".pack").read_bytes() for q in _packs(store.root))
    store.close()


def test_the_chunks_a_reference_area_names_read_as_parse_refs_reads_them(tmp_path):
    """``named_chunks`` (one regular expression, a table of short varints)
    gives the chunks ``packlines.parse_refs`` gives, for a real pack's blocks
    and for references whose numbers take 1 to 4 bytes; a damaged area is
    refused."""
    import random

    from objstore.core.packformat import DeflateReader
    from objstore.core.packlines import _varint, parse_refs
    from objstore.core.packscrub import named_chunks, ref_area
    info = write_pack(tmp_path / "p", _frames(), version=LINES_VERSION)
    with Pack(info.idx_path) as p:
        zr = DeflateReader(p.dictionary(), p.version)
        seen = set()
        for _ids, data in p.raw_blocks_in_body_order():
            count, area = ref_area(zr, data)
            refs = parse_refs(area, count)
            assert named_chunks(area, count) == {c for r in refs for _o, c in r}
            assert named_chunks(area, count, {0}) == {c for r in refs[1:] for _o, c in r}
            seen |= named_chunks(area, count)
        assert seen                                                       # the pack's blocks name chunks
    rnd = random.Random("named-chunks")
    frames = [sorted((rnd.randrange(0, 1 << 20), rnd.choice([rnd.randrange(0, 100), rnd.randrange(0, 1 << 22)]))
                     for _ in range(rnd.randrange(0, 6))) for _ in range(300)]
    area = bytearray()
    for refs in frames:                                                   # LinePass.strip's encoding
        _varint(len(refs), area)
        lo, lc = 0, -1
        for o, c in refs:
            d = c - lc - 1
            _varint(o - lo, area)
            _varint(d * 2 if d >= 0 else -d * 2 - 1, area)
            lo, lc = o, c
    area = bytes(area)
    assert named_chunks(area, len(frames)) == {c for r in frames for _o, c in r}
    assert {c for r in parse_refs(area, len(frames)) for _o, c in r} == {c for r in frames for _o, c in r}
    for bad in (area[:-1], area + b"\x00", area[:-1] + b"\x80"):
        try:
            named_chunks(bad, len(frames))
        except ValueError:
            continue
        raise AssertionError("a damaged area was read")


def test_the_unnamed_chunks_are_those_no_other_block_names_whichever_blocks_are_touched(tmp_path):
    """``unnamed_chunks`` reads the blocks in its own order (back from the
    end, then a bisection for the block that made each chunk still unnamed,
    then every block from a chunk's first possible one): its answer is the
    touched blocks' chunks that no other block names, counted here from
    every block's references, for touched blocks early, late, several, and
    a chunk whose making block is touched with the next block naming it
    (the bisection's block does not name it: the scan after it must find
    the third)."""
    from objstore.core.packformat import DeflateReader
    from objstore.core.packlines import parse_refs
    from objstore.core.packscrub import ref_area, unnamed_chunks

    def frame(i: int) -> bytes:   # its own lines, those of frames i - 97 (chunks made later), i - 400 and i - 700
        own = lambda j: b"".join(b"line %d of frame %d: %s\n" % (k, j, hash_bytes(b"%d.%d" % (j, k)).encode())  # noqa: E731
                                 for k in range(10))
        return b"MEMO %d\n" % i + own(i) + (own(i - 97) if i >= 97 and i % 3 else b"") + \
            (own(i - 400) if i >= 400 and i % 7 == 0 else b"") + \
            (own(i - 700) if i >= 700 and i % 11 == 0 else b"") + b"end %d" % i

    info = write_pack(tmp_path / "p", [frame(i) for i in range(1500)], version=LINES_VERSION)
    with Pack(info.idx_path) as p:
        zr = DeflateReader(p.dictionary(), p.version)
        zr.chunks = t = p.chunk_table()
        blocks = list(p.raw_blocks_in_body_order())
        offs = p.block_offsets()
        names = []
        for _ids, data in blocks:
            count, area = ref_area(zr, data)
            names.append({c for r in parse_refs(area, count) for _o, c in r})
        assert len(t.firsts) >= 4 and len(blocks) >= 12                   # chunk blocks among the frame blocks
        namers: dict[int, list[int]] = {}
        for k, s in enumerate(names):
            for c in s:
                namers.setdefault(c, []).append(k)
        thrice = [ks for ks in namers.values() if len(ks) >= 3 and ks[2] > ks[1] + 1 > ks[0] + 1]
        assert thrice                                 # a chunk named by its making block and two later ones
        n = len(blocks)
        kept_named = scrubbed = 0
        for tk in ([0], [n // 2], [n - 1], [1, n - 2], thrice[0][:2], thrice[len(thrice) // 2][:2], thrice[-1][:2]):
            touched = {k: [False] * len(blocks[k][0]) for k in tk}
            named = set().union(*(names[k] for k in tk))
            others = set().union(*(s for k, s in enumerate(names) if k not in touched))
            got = unnamed_chunks(p, zr, named, blocks, offs, touched, list(t.offsets), list(t.firsts))
            assert got == named - others, tk
            kept_named += len(named - got)
            scrubbed += len(got)
        assert kept_named and scrubbed                                    # both answers occur: the test can fail


def test_a_chunk_whose_making_frame_an_earlier_forget_took_stays_while_a_block_between_names_it(tmp_path, monkeypatch):
    """The block that made a chunk no longer names it once a forget took the
    frame (its kept frames written again whole): a later forget of another
    frame naming it must still find the block between that names it (the
    scan from the chunk's first possible block; LOOKBACK 0 so the search
    back does not reach it first), keep the chunk, and every frame reads."""
    import objstore.core.packscrub as scrub
    from objstore.core.packformat import DeflateReader
    from objstore.core.packlines import parse_refs

    monkeypatch.setattr(scrub, "LOOKBACK", 0)
    own = lambda j: b"".join(b"line %d of frame %d: %s\n" % (k, j, hash_bytes(b"%d.%d" % (j, k)).encode())  # noqa: E731
                             for k in range(10))
    # past the dictionary's TRAIN_FRAMES (a forget there rewrites the next whole); newer chunks between (the bisection misses)
    frames = [b"MEMO %d\n" % i + own(i) + (own(0) if i in (2300, 2700, 3200) else b"") +
              (own(i - 50) if 2400 <= i < 2650 and i % 5 == 0 else b"") + b"end %d" % i for i in range(3300)]
    store = Store.init(tmp_path / "s")
    write_pack(store.root / "objects" / "pack", frames, version=LINES_VERSION)
    store.packs.reload()
    (idx,) = _packs(store.root)
    with Pack(idx) as p:
        zr = DeflateReader(p.dictionary(), p.version)
        where = {}
        for k, (ids, data) in enumerate(p.raw_blocks_in_body_order()):
            count, area = scrub.ref_area(zr, data)
            for oid, refs in zip(ids, parse_refs(area, count)):
                where[oid] = (k, {c for _o, c in refs})
    line0 = own(0).split(b"\n")[0] + b"\n"
    numbers = sorted(_table(idx))
    c0 = next(c for c, ln in _table(idx).items() if ln == line0)
    blocks = [where[hash_bytes(frames[i])][0] for i in (2300, 2700, 3200)]
    assert all(c0 in where[hash_bytes(frames[i])][1] for i in (2300, 2700, 3200)) and blocks == sorted(set(blocks))
    for i in (2300, 3200):                    # the making frame, then the last: frame 2700 still names the chunk
        with store.lock("test"):
            assert store.delete_objects([hash_bytes(frames[i])]) == 1
        (new,) = _packs(store.root)
        assert sorted(_table(new)) == numbers             # scrubbed in place, not written again
    assert _table(new)[c0] == line0
    store.packs.reload()
    assert all(store.read_frame(hash_bytes(f)) == f for i, f in enumerate(frames) if i not in (2300, 3200))
    with Pack(new) as p:
        assert p.verify() == []
    store.close()
