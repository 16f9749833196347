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


def test_forget_copies_the_untouched_blocks_and_empties_the_values_chunk(tmp_path):
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
        assert after[shared_no] == SHARED_LINE.encode()                    # a kept note names it too
        # the only change: chunks emptied (those of a secret's copy of its note's lines, which the note
        # stores as it is, are emptied too: only the secrets named them)
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
    assert after[secret_no] == SECRET_LINE.encode()                      # frame 151, kept, names it too
    assert {c: ln for c, ln in after.items() if c != value_no} == {c: ln for c, ln in before.items() if c != value_no}
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


def test_a_chunk_a_kept_frame_stopped_naming_is_scrubbed_by_the_next_forget(tmp_path):
    """The first forget writes frame 151 (kept) again whole, so nothing names
    SECRET_LINE's chunk any more; when 151 and 5 (which holds the line as it
    is) are forgotten next, that chunk is scrubbed too: no frame of theirs
    names it, and its bytes are theirs."""
    store, frames = _pack_store(tmp_path)
    (idx,) = _packs(store.root)
    secret_no = next(c for c, ln in _table(idx).items() if ln == SECRET_LINE.encode())
    with store.lock("test"):
        assert store.delete_objects([hash_bytes(frames[150])]) == 1
    (mid,) = _packs(store.root)
    assert _table(mid)[secret_no] == SECRET_LINE.encode()                # frame 151 named it in the old pack
    with store.lock("test"):
        assert store.delete_objects([hash_bytes(frames[5]), hash_bytes(frames[151])]) == 2
    (new,) = _packs(store.root)
    assert _table(new)[secret_no] == b"\n"
    assert scan_store(store.root, [b"staging password note"]) == []
    store.packs.reload()
    assert all(store.read_frame(hash_bytes(f)) == f for i, f in enumerate(frames) if i not in (5, 150, 151))
    with Pack(new) as p:
        assert p.verify() == []
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
