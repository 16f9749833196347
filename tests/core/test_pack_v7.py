"""Pack version 7: version 6's blocks as zstd frames with the pack's
dictionary (up to 64 KiB) as raw content (``docs/format.md``, "Packs";
``objstore/core/packzstd.py``).

Frames go through a version-7 pack and read back exactly; an imported store
in version 8 still reads, fsck finds nothing, and once the store asks for zstd
(``store.pack_codec``) a forget's rewrite and gc's new pack beside it are
version 7; a flipped byte of a block is found.  (Version 7 only where a
store asks for it, and without the codec: test_pack_codec.py.)  (A version-5 pack's repack into the newest: test_pack_v6.py.)"""

from __future__ import annotations

from objstore.core.codec import encode
from objstore.core.ids import hash_bytes
from objstore.core.objects import Turn
from objstore.core.pack import Pack
from objstore.core.packformat import PACK_VERSION, ZSTD_VERSION, DeflateReader
from objstore.core.packwriter import write_pack
from objstore.core.salvage import salvage_pack
from tests.conftest import gen_corpus
from tests.core.test_pack import flip

_UUID = "4b640b4b-c92f-4682-b6ea-774030d5d941"


def _chain(n: int, words: int = 60) -> list[bytes]:
    """A session of ``n`` turns, each the parent of the next, ~``words`` words of text each."""
    out: list[bytes] = []
    for i in range(n):
        text = " ".join(f"w{(i * 7 + j * 13) % 997}" for j in range(words))
        out.append(encode(Turn(session="s", seq=i, role="user" if i % 2 else "assistant", text=text,
                               timestamp=1772000000000 + 1000 * i, harness="claude-code", cwd="/w", project="w",
                               source=f"cc:{_UUID[:-4]}{i:04d}", parent=hash_bytes(out[-1]) if out else None)))
    return out


def test_version_7_is_written_and_every_frame_reads_back(tmp_path):
    frames = _chain(4000)  # > 1 MiB of frames: the pack has a dictionary, over zlib's 32 KiB
    assert sum(map(len, frames)) > 1 << 20
    info = write_pack(tmp_path, frames, version=ZSTD_VERSION)
    assert (PACK_VERSION, ZSTD_VERSION) == (6, 7)  # version 7 only where a store asks for it (test_pack_codec)
    with Pack(info.idx_path) as p:
        assert p.version == 7
        assert 32 * 1024 < len(p.dictionary()) <= 64 * 1024
        assert info.pack_path.read_bytes()[p._body_start + 4:p._body_start + 8] == b"\x28\xb5\x2f\xfd"  # zstd magic
        for f in reversed(frames[-300:]):  # a walk up the chain: the block cache
            assert p.get(hash_bytes(f)) == f
        assert dict(p.frames_in_body_order()) == {hash_bytes(f): f for f in frames}
        assert p.verify() == []
    with Pack(info.idx_path) as p:  # a fresh reader, one object of each block's end alone
        for f in frames[::97]:
            assert p.get(hash_bytes(f)) == f
    assert dict(salvage_pack(info.pack_path)) == {hash_bytes(f): f for f in frames}


def test_a_flipped_byte_in_a_version_7_block_is_found(tmp_path):
    frames = _chain(600)
    info = write_pack(tmp_path, frames, version=ZSTD_VERSION)
    with Pack(info.idx_path) as p:
        at = p._body_start + 4 + 40  # inside the first block's zstd frame
    flip(info.pack_path, at)
    with Pack(info.idx_path) as p:
        assert p.verify() != []


def test_a_dictionary_over_64_kib_is_refused():
    try:
        DeflateReader(b"x" * (64 * 1024 + 1), 7)
    except ValueError as e:
        assert "65536" in str(e)
    else:
        raise AssertionError("a 64 KiB + 1 dictionary was taken")
    DeflateReader(b"x" * (64 * 1024), 7)


def test_an_imported_store_in_version_8_reads_and_gc_and_forget_keep_it_sound(invoke, store_path, tmp_path):
    """Version 8 through the commands: a real import writes version 8 (a
    store's default since session 31), fsck finds nothing; in a store that
    asks for zstd a forget of one session copies the version-8 pack it
    touches as version 8 (the chunk scrub, session 32: its untouched blocks
    and its line table copied, as a version-6 pack's blocks stay version 6);
    gc then packs the new objects in version 7 beside them, and the
    sessions, fsck and a search read the mixed store."""
    corpus = gen_corpus(tmp_path / "corpus", "--sessions", "3", "--turns", "90", "--seed", "5")
    invoke("import", "claude-code", str(corpus))
    invoke("gc", "--prune=now")
    pdir = store_path / "objects" / "pack"
    versions = lambda: sorted(Pack(i).version for i in pdir.glob("*.idx"))  # noqa: E731
    assert set(versions()) == {8}
    before = {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}
    assert len(before) >= 3
    assert invoke("fsck").stdout.startswith("ok:")
    gone = sorted(before)[0]
    invoke("config", "store.pack_codec", "zstd")
    invoke("forget", "--session", gone, "--yes")
    assert set(versions()) == {8}
    assert invoke("fsck").stdout.startswith("ok:")
    invoke("gc", "--prune=now")  # packs the forget's loose objects (version 7), rewrites no intact pack
    assert 7 in set(versions()) <= {7, 8}
    assert invoke("fsck").stdout.startswith("ok:")
    after = {s["id"]: s["turns"] for s in invoke("sessions", "--json").json}
    assert after == {k: v for k, v in before.items() if k != gone}
    assert invoke("search", "--json", "the").json
