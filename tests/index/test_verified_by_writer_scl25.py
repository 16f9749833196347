"""A writer names the segment files it wrote in ``gen-<n>/.verified``
(``genfiles.record_written``, called when a ``StreamWriter`` or a rebuild
ends), so the first reader after an import does not read every index file
again for its CRC (``check_new_files``), while a file the writer did not
write is still checked by the next reader.  Real tantivy, real files.

How a test sees what the reader checked: a CRC digit of a footer is changed
and the file's mtime put back, so its ``name size mtime inode`` signature is
the one recorded; a reader that checks the file exits with
``IndexCorruptError`` ("checksum mismatch"), one that trusts the record
answers."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from objstore.index.errors import IndexCorruptError
from objstore.index.genfiles import VERIFIED, check_new_files, live_file_names, record_written
from objstore.index.searchindex import IndexDoc, SearchIndex


def _doc(i: int, session: str = "s1") -> IndexDoc:
    return IndexDoc(hashlib.sha256(b"%d" % i).hexdigest(), "turn", session, 1000 + i, "x", "user",
                    f"zebra words number {i}", i)


def _gens(root: Path) -> list[Path]:
    return sorted(p for p in (root / "turns").glob("gen-*") if p.is_dir())


def _flip_crc_in_place(path: Path) -> None:
    """Change one digit of the footer's CRC, keeping size, inode and mtime (its signature)."""
    st = os.stat(path)
    b = bytearray(path.read_bytes())
    j = b.rfind(b'"crc":') + 6
    b[j] = ord("1") if b[j] != ord("1") else ord("2")
    with open(path, "r+b") as f:
        f.write(b)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_ino == st.st_ino


def _sigs(gen: Path) -> set[str]:
    out = set()
    for name in live_file_names(gen):
        st = os.stat(gen / name)
        out.add(f"{name} {st.st_size} {st.st_mtime_ns} {st.st_ino}")
    return out


def _import(root: Path, n: int = 12) -> None:
    ix = SearchIndex(root)
    try:
        with ix.stream(fresh=True, expected_docs=lambda: n) as st:   # a bulk import's stream
            for i in range(n):
                st.add(_doc(i))
            st.commit()
    finally:
        ix.close()


def test_an_import_names_every_file_it_wrote_and_the_reader_trusts_them(tmp_path):
    root = tmp_path / "index"
    _import(root)
    gens = _gens(root)
    assert gens
    for gen in gens:
        assert (gen / VERIFIED).read_text().splitlines() == sorted(_sigs(gen))
    # the first reader does not read them again: a CRC changed in place (same signature) goes unseen
    victim = sorted(gens[0].glob("*.store"))[0]
    _flip_crc_in_place(victim)
    check_new_files(gens[0])
    ix = SearchIndex(root)
    try:
        assert ix.search("zebra", kinds=("turn",), limit=3)
    finally:
        ix.close()


def test_without_the_record_the_first_reader_checks_what_the_import_wrote(tmp_path):
    """The contrast: the same damage is found when ``.verified`` is gone."""
    root = tmp_path / "index"
    _import(root)
    gen = _gens(root)[0]
    (gen / VERIFIED).unlink()
    _flip_crc_in_place(sorted(gen.glob("*.store"))[0])
    with pytest.raises(IndexCorruptError, match="checksum mismatch"):
        check_new_files(gen)


def test_a_later_write_leaves_every_live_file_named_as_it_is(tmp_path):
    """A write into an imported generation (its writer's open checks what is
    not named yet) leaves ``.verified`` naming every live file by its signature."""
    root = tmp_path / "index"
    _import(root)
    gen = _gens(root)[0]
    old = live_file_names(gen)
    ix = SearchIndex(root)
    try:
        ix.add([_doc(100), _doc(101)])
    finally:
        ix.close()
    assert _gens(root)[0] == gen and live_file_names(gen) - old
    assert (gen / VERIFIED).read_text().splitlines() == sorted(_sigs(gen))


def test_record_written_names_only_the_files_not_there_before(tmp_path):
    """Files among ``before`` (not written by the writer) are not named
    unless ``.verified`` already named them as they are: the next reader checks them."""
    root = tmp_path / "index"
    _import(root)
    gen = _gens(root)[0]
    (gen / VERIFIED).unlink()
    names = live_file_names(gen)
    assert record_written(gen, names) == 0 and not (gen / VERIFIED).exists()
    seg = sorted(names)[0].split(".", 1)[0]
    mine = {n for n in names if n.startswith(seg)}
    assert record_written(gen, names - mine) == len(mine)
    assert {line.split(" ", 1)[0] for line in (gen / VERIFIED).read_text().splitlines()} == mine
    others = sorted(n for n in names - mine if n.endswith(".store"))
    if others:   # a second segment: not named, so checked
        _flip_crc_in_place(gen / others[0])
        with pytest.raises(IndexCorruptError, match="checksum mismatch"):
            check_new_files(gen)
    _flip_crc_in_place(gen / next(n for n in mine if n.endswith(".store")))
    (gen / VERIFIED).unlink()
    with pytest.raises(IndexCorruptError, match="checksum mismatch"):
        check_new_files(gen)


def test_a_file_changed_after_the_record_is_checked(tmp_path):
    """The record is of the files as written: a file rewritten since (new mtime) is read again."""
    root = tmp_path / "index"
    _import(root)
    gen = _gens(root)[0]
    victim = sorted(gen.glob("*.store"))[0]
    b = bytearray(victim.read_bytes())
    j = b.rfind(b'"crc":') + 6
    b[j] = ord("1") if b[j] != ord("1") else ord("2")
    victim.write_bytes(bytes(b))
    os.utime(victim, ns=(1, 1))
    with pytest.raises(IndexCorruptError, match="checksum mismatch"):
        check_new_files(gen)
