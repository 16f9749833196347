"""Scoped document counts kept per generation on disk (``gen-<n>/.counts``,
``objstore.index.countcache``): read by a new reader instead of counting,
valid for one state of the generation only, holding no word of the store,
not a segment file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from objstore.index.countcache import COUNTS, GenCounts, MAX_RECORDS, count_key
from objstore.index.genfiles import generation_files
from objstore.index.searchindex import IndexDoc, SearchIndex


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def docs(n: int, tag: str = "d") -> list[IndexDoc]:
    words = "zircon quartz basalt granite marble slate".split()
    return [IndexDoc(oid(f"{tag}{i}"), "turn", f"sess-{i % 9}", 1000 + i, ("acme", "zeta")[i % 2], "user",
                     " ".join(words[(i * k) % len(words)] for k in range(1, 2 + i % 5)), i) for i in range(n)]


def scored(root: Path, query: str = "zircon granite slate") -> list[tuple[str, float]]:
    ix = SearchIndex(root)  # a new reader each time, as a new process
    try:
        return [(h.id, round(h.score, 9)) for h in
                ix.search(query, limit=30, kinds=("turn",), projects=["acme"], scope_idf=True)]
    finally:
        ix.close()


def count_files(root: Path) -> list[Path]:
    return sorted((root / "turns").glob(f"gen-*/{COUNTS}"))


def test_a_new_reader_takes_the_counts_from_the_file_of_that_state_only(tmp_path: Path) -> None:
    root = tmp_path / "index"
    SearchIndex(root, shards=4).add(docs(60))
    counted = scored(root)
    files = count_files(root)
    assert counted and len(files) == 4
    assert scored(root) == counted  # from the files
    # the files are what a new reader uses: a changed count changes the scores
    saved = {f: f.read_bytes() for f in files}
    for f in files:
        raw = bytearray(f.read_bytes())
        for at in range(24 + 8, len(raw), 12):
            raw[at:at + 4] = (1).to_bytes(4, "little")
        f.write_bytes(bytes(raw))
    assert scored(root) != counted
    # a commit changes meta.json: that file is for an older state and is not read
    SearchIndex(root).add(docs(60, tag="more"))
    fresh = scored(root)
    for f in count_files(root):
        f.unlink()
    assert scored(root) == fresh
    assert all(f.read_bytes() != saved.get(f) for f in count_files(root))


def test_the_file_holds_no_word_and_is_not_a_segment_file(tmp_path: Path) -> None:
    root = tmp_path / "index"
    SearchIndex(root, shards=2).add(docs(40))
    scored(root, "zircon quartz")
    for f in count_files(root):
        raw = f.read_bytes()
        for word in (b"zircon", b"quartz", b"zirkon", b"acme", b"sess"):
            assert word not in raw
        assert os.stat(f).st_mode & 0o777 == 0o600
        assert generation_files(f.parent)[1] == []  # not stray: a purge keeps no dead file, the proof passes
    ix = SearchIndex(root)
    assert ix.verify() == [] and ix.verify_purged([]) == []


def test_gen_counts_keeps_the_newest_records_and_refuses_another_state(tmp_path: Path) -> None:
    d = str(tmp_path)
    a = GenCounts(d, b"s" * 16)
    keys = [count_key(("acme",), None, 7, f"t{i}") for i in range(MAX_RECORDS + 10)]
    for i, k in enumerate(keys):
        a.put(k, i)
    a.save()
    b = GenCounts(d, b"s" * 16)
    assert b.get(keys[0]) is None and b.get(keys[9]) is None  # the oldest went
    assert b.get(keys[10]) == 10 and b.get(keys[-1]) == MAX_RECORDS + 9
    assert GenCounts(d, b"t" * 16).get(keys[-1]) is None  # another meta.json: not read
    assert count_key(("acme",), None, 7, "t1") != count_key(("acme",), None, 8, "t1")
    (tmp_path / COUNTS).write_bytes(b"memcnt1\n" + b"s" * 16 + b"short")  # damaged: ignored, no error
    assert GenCounts(d, b"s" * 16).get(keys[-1]) is None
