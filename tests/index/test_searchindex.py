"""Tests of objstore.index.searchindex: real tantivy, real files, no mocks."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
from pathlib import Path

import pytest
import tantivy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from objstore.core.ids import is_full_id
from objstore.index.schema import FORMATS, new_format, oid_columns, read_format
from objstore.index.searchindex import (
    Hit,
    IndexBusyError,
    IndexCorruptError,
    IndexDoc,
    SearchIndex,
    make_snippet,
    tokenize,
)

SENTINEL = "zebraquokka-7731"


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def fact(seed: str, text: str, ref: str | None = None, time: int = 1) -> IndexDoc:
    return IndexDoc(oid(seed), "fact", ref or f"project/x/{seed}", time, "x", "note", text)


def turn(seed: str, text: str, time: int = 1, role: str = "user") -> IndexDoc:
    return IndexDoc(oid(seed), "turn", "session-1", time, "x", role, text)


def ids(hits: list[Hit]) -> list[str]:
    return [h.id for h in hits]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "store" / "index"


@pytest.fixture
def ix(root: Path):
    index = SearchIndex(root)
    yield index
    index.close()


# --------------------------------------------------------------------------
# helpers reading the index files independently of the module


def live_gens(root: Path, sub: str) -> dict[int, Path]:
    """{shard: live generation dir} from CURRENT, parsed independently:
    one line ``gen-<n>``, or ``shards <N>`` and N lines ``gen-<n>`` | ``-``."""
    lines = (root / sub / "CURRENT").read_text().split("\n")
    assert lines[-1] == "", "CURRENT must end with a newline"
    lines = lines[:-1]
    if len(lines) == 1:
        return {0: root / sub / lines[0]}
    kw, n = lines[0].split(" ")
    assert kw == "shards" and int(n) == len(lines) - 1
    return {i: root / sub / g for i, g in enumerate(lines[1:]) if g != "-"}


def live_gen(root: Path, sub: str) -> Path:
    """The live generation of a sub-index holding one non-empty shard."""
    gens = live_gens(root, sub)
    assert len(gens) == 1, gens
    return next(iter(gens.values()))


def open_live(root: Path, sub: str) -> tantivy.Searcher:
    index = tantivy.Index.open(str(live_gen(root, sub)))
    return index.searcher()


def physical_ids(gen: Path) -> set[str]:
    """The object ids of every document a generation's segments hold,
    deleted ones too (their fast columns keep them until a merge), read
    from its ``oid0``..``oid3`` columns at every doc id below each
    segment's ``max_doc`` (a ``fast_oid`` generation: the ids are stored
    nowhere else, and as column values minus the column's minimum, so no
    byte scan finds them); a forget's padding documents have none.  A
    ``prefix_id`` generation (session 24) holds 16 bytes of an id: its
    ids are given as 32-hex prefixes."""
    assert read_format(gen).fast_oid
    sr = tantivy.Index.open(str(gen)).searcher()
    segs = json.loads((gen / "meta.json").read_text())["segments"]
    assert int(sr.num_segments) == len(segs)   # segment_ord is the order of meta.json
    addrs = [tantivy.DocAddress(o, d) for o, seg in enumerate(segs) for d in range(seg["max_doc"])]
    cols = [sr.fast_field_values(c, addrs) for c in oid_columns(read_format(gen))]
    return {b"".join(v.to_bytes(8, "big") for v in parts).hex() for parts in zip(*cols) if None not in parts}


def physical_turn_ids(index_root: Path) -> set[str]:
    """:func:`physical_ids` of every turns generation directory under
    ``index_root`` (live or not); asserts there is one."""
    gens = [g for g in sorted((index_root / "turns").glob("gen-*")) if (g / "meta.json").exists()]
    assert gens
    return set().union(*(physical_ids(g) for g in gens))


def lz4_block_decompress(src: bytes, pos: int, size: int) -> tuple[bytes, int]:
    """Decode one raw LZ4 block starting at src[pos] that expands to `size`
    bytes; returns (data, position after the block).  Pure Python, so the
    project needs no lz4 package."""
    out = bytearray()
    while True:
        token = src[pos]
        pos += 1
        lit = token >> 4
        if lit == 15:
            while True:
                b = src[pos]
                pos += 1
                lit += b
                if b != 255:
                    break
        out += src[pos:pos + lit]
        pos += lit
        if len(out) >= size:  # the last sequence holds literals only
            break
        offset = src[pos] | (src[pos + 1] << 8)
        pos += 2
        mlen = token & 15
        if mlen == 15:
            while True:
                b = src[pos]
                pos += 1
                mlen += b
                if b != 255:
                    break
        mlen += 4
        start = len(out) - offset
        if offset == 0 or start < 0:
            raise ValueError("corrupt lz4 block")
        for k in range(mlen):  # byte by byte: matches may overlap
            out.append(out[start + k])
    if len(out) != size:
        raise ValueError(f"lz4 block decoded to {len(out)} bytes, expected {size}")
    return bytes(out), pos


def decode_store(path: Path) -> bytes:
    """Decompressed content of every block of a tantivy 0.27 `.store` file.

    Layout (tantivy src/store): blocks [u32 LE uncompressed size][lz4 block]
    from offset 0 up to `offset`, then the skip index, then the 28-byte
    DocStoreFooter (u32 version, u64 offset, u8 compressor id, 15 reserved),
    then tantivy's file footer (json, u32 json length, u32 magic 1337).
    """
    data = path.read_bytes()
    (magic,) = struct.unpack("<I", data[-4:])
    (json_len,) = struct.unpack("<I", data[-8:-4])
    assert magic == 1337, f"{path}: unexpected footer magic {magic}"
    footer = data[-8 - json_len - 28:-8 - json_len]
    _version, offset, compressor = struct.unpack("<IQB", footer[:13])
    blocks = data[:offset]
    if compressor == 0:  # no compression
        return blocks
    assert compressor == 1, f"{path}: doc store compressor {compressor} is not lz4"
    out = bytearray()
    pos = 0
    while pos < offset:
        (size,) = struct.unpack("<I", blocks[pos:pos + 4])
        chunk, pos = lz4_block_decompress(blocks, pos + 4, size)
        out += chunk
    assert pos == offset, "store blocks did not end at the skip index"
    return bytes(out)


def scan_files(root: Path) -> dict[str, bytes]:
    """Every file under root: raw bytes, plus `<name>#decoded` for stores."""
    out: dict[str, bytes] = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            out[str(p)] = p.read_bytes()
            if name.endswith(".store"):
                out[f"{p}#decoded"] = decode_store(p)
    return out


def where(needle: str, files: dict[str, bytes]) -> list[str]:
    """Files holding ``needle``; an object id is looked for in both forms an
    index generation may store it in (64 hex digits, or its 32 raw bytes)."""
    forms = [needle.encode()]
    if is_full_id(needle):
        forms.append(bytes.fromhex(needle))
    return [name for name, data in files.items() if any(f in data for f in forms)]


def segments_with_deletes(root: Path, sub: str) -> list[dict]:
    meta = json.loads((live_gen(root, sub) / "meta.json").read_text())
    return [s for s in meta["segments"] if s.get("deletes")]


# --------------------------------------------------------------------------
# tokenizer


def test_tokenize_examples() -> None:
    assert tokenize("Café re-index auth.py 日本語") == [
        "cafe", "re", "index", "auth", "py", "日", "本", "語"]
    assert tokenize("cafe\u0301") == ["cafe"]  # decomposed accent, NFC first
    assert tokenize("Straße ÆON") == ["strasse", "aeon"]
    assert tokenize("हिन्दी") == ["हिन्दी"]  # combining marks stay in the word
    assert tokenize("* ( ) : \" ' -") == []
    assert tokenize("") == []
    assert tokenize("x" * 63) == ["x" * 63]
    assert tokenize("x" * 64) == []  # 64 bytes or more: dropped
    assert tokenize("ж" * 32) == []  # counted in UTF-8 bytes, not characters
    with pytest.raises(TypeError):
        tokenize(None)  # type: ignore[arg-type]


def test_index_doc_validation() -> None:
    with pytest.raises(ValueError):
        IndexDoc("ABC", "fact", "k", 1, "", "", "t")
    with pytest.raises(ValueError):
        IndexDoc(oid("a"), "blob", "k", 1, "", "", "t")
    with pytest.raises(ValueError):
        IndexDoc(oid("a"), "fact", "k", 1.5, "", "", "t")  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# add / search


def test_missing_index_is_empty_and_creates_nothing(root: Path, ix: SearchIndex) -> None:
    assert ix.search("anything") == []
    assert ix.doc_count() == {"fact": 0, "turn": 0}
    assert ix.verify_purged([oid("a")]) == []
    assert ix.add([]) == 0
    assert ix.add([], delete_ids=[oid("a")]) == 0
    assert not root.exists()


def test_add_search_round_trip(root: Path, ix: SearchIndex) -> None:
    d = IndexDoc(oid("f1"), "fact", "project/x/db", 1_700_000_000_000, "x", "decision",
                 "project x db: the database is postgres 16")
    assert ix.add([d, turn("t1", "unrelated words here", time=5)]) == 2
    hits = ix.search("postgres")
    assert len(hits) == 1
    h = hits[0]
    assert (h.id, h.kind, h.ref, h.time, h.project, h.role) == (
        d.id, "fact", "project/x/db", 1_700_000_000_000, "x", "decision")
    assert h.score > 0
    assert ix.doc_count() == {"fact": 1, "turn": 1}
    assert (root / "facts" / "CURRENT").read_text() == "gen-1\n"


def test_text_not_stored(root: Path, ix: SearchIndex) -> None:
    ix.add([turn("t1", "plaintextbody marker")])
    searcher = open_live(root, "turns")
    hit = searcher.search(tantivy.Query.all_query(), 1).hits[0]
    assert "text" not in searcher.doc(hit[1]).to_dict()


def test_bm25_more_words_rank_higher_limit_and_kinds(ix: SearchIndex) -> None:
    both = turn("both", "the cache layer uses redis for sessions")
    one = turn("one", "the cache layer uses memcached for sessions")
    fillers = [turn(f"fill{i}", f"filler document number {i} about nothing") for i in range(8)]
    ix.add([both, one, *fillers])
    hits = ix.search("cache redis")
    assert ids(hits)[:2] == [both.id, one.id]
    assert hits[0].score > hits[1].score

    # the same holds across the two sub-indexes (collection-wide idf)
    f_both = fact("fboth", "deploy uses kubernetes with helm charts")
    t_one = turn("tone", "deploy uses nomad instead")
    ix.add([f_both, t_one])
    assert ids(ix.search("deploy kubernetes"))[:2] == [f_both.id, t_one.id]

    # limit
    many = [turn(f"m{i}", f"common word {i}") for i in range(20)]
    ix.add(many)
    assert len(ix.search("common", limit=5)) == 5
    assert len(ix.search("common", limit=100)) == 20
    with pytest.raises(ValueError):
        ix.search("common", limit=0)

    # kinds
    f = fact("kf", "sharedword in a fact")
    t = turn("kt", "sharedword in a turn")
    ix.add([f, t])
    assert set(ids(ix.search("sharedword"))) == {f.id, t.id}
    assert ids(ix.search("sharedword", kinds=("fact",))) == [f.id]
    assert ids(ix.search("sharedword", kinds=("turn",))) == [t.id]
    assert ix.search("sharedword", kinds=()) == []
    with pytest.raises(ValueError):
        ix.search("sharedword", kinds=("blob",))


def test_scores_comparable_across_sub_indexes(ix: SearchIndex) -> None:
    # Same text, same length statistics: a fact and a turn must score the
    # same although the facts index is much smaller than the turns index.
    f = fact("same-f", "alpha beta gamma delta")
    t = turn("same-t", "alpha beta gamma delta")
    ix.add([f, fact("of", "one two three four")])
    ix.add([t, *[turn(f"o{i}", f"one two three w{i}") for i in range(30)]])
    hits = ix.search("alpha gamma")
    assert set(ids(hits)) == {f.id, t.id}
    assert hits[0].score == pytest.approx(hits[1].score, rel=1e-3)


TRICKY_DOCS = {
    "authpy": "the bug is in auth.py near the login handler",
    "cjk": "これは日本語のテキスト",
    "cafe": "Meeting at the Café tomorrow",
    "reindex": "we must re-index the store after the migration",
    "reindex2": "run reindex nightly",
    "vector": "use std::vector instead of a raw array",
    "url": "see http://a.b/c?d=e for the spec",
    "fn": "call fn(x) twice",
    "hindi": "हिन्दी भाषा का पाठ",
    "korean": "한국어 문서입니다",
}


@pytest.fixture
def tricky(ix: SearchIndex) -> SearchIndex:
    ix.add([turn(k, v) for k, v in TRICKY_DOCS.items()])
    return ix


@pytest.mark.parametrize(
    "query, expected",
    [
        ("auth.py", ["authpy"]),
        ("AUTH.PY", ["authpy"]),
        ("日本語", ["cjk"]),
        ("café", ["cafe"]),
        ("cafe", ["cafe"]),
        ("CAFE\u0301", ["cafe"]),
        ("re-index", ["reindex", "reindex2"]),
        ("std::vector", ["vector"]),
        ("http://a.b/c?d=e", ["url"]),
        ("fn(x)", ["fn"]),
        ("हिन्दी", ["hindi"]),
        ("한국어", ["korean"]),
    ],
)
def test_tricky_queries_find(tricky: SearchIndex, query: str, expected: list[str]) -> None:
    got = set(ids(tricky.search(query)))
    assert {oid(e) for e in expected} <= got


def _tricky_texts(oids: list[str]) -> dict[str, str]:
    """The bodies of TRICKY_DOCS by object id (``SearchIndex.search``'s ``texts``)."""
    by_id = {oid(k): v for k, v in TRICKY_DOCS.items()}
    return {o: by_id[o] for o in oids if o in by_id}


def test_multi_token_word_is_a_phrase(tricky: SearchIndex) -> None:
    # "py auth" in the wrong order is not the phrase auth.py
    assert tricky.search("py.auth", texts=_tricky_texts) == []
    # 本日 is not 日本
    assert tricky.search("本日", texts=_tricky_texts) == []


@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "fn(x)", "http://a.b/c?d=e", "std::vector", "NOT", "AND OR",
     "*", "* * *", "(", ")", ":", "title:foo", "a AND NOT b", "foo~2", "[1 TO 5]",
     "+must -not", "\\", "'", "''", '""', "^", "field:\"quoted phrase\"", "",
     "   ", "\x00", "😀", "a" * 500, "ñ" * 100, " ".join(["w"] * 1000)],
)
def test_tricky_queries_never_raise(tricky: SearchIndex, query: str) -> None:
    hits = tricky.search(query)
    assert isinstance(hits, list)


def test_syntax_words_are_plain_words(ix: SearchIndex) -> None:
    d = turn("ops", "NOT this AND that OR other")
    ix.add([d, turn("x", "nothing relevant")])
    assert ids(ix.search("NOT")) == [d.id]
    assert ids(ix.search("AND OR")) == [d.id]
    assert ix.search("*") == []
    assert ix.search("* ( ) :") == []


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(q=st.text(max_size=60))
def test_arbitrary_queries_never_raise(tricky: SearchIndex, q: str) -> None:
    hits = tricky.search(q)
    assert len(hits) <= 10
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))


# --------------------------------------------------------------------------
# delete / replace


def test_add_with_delete_ids_replaces(ix: SearchIndex) -> None:
    old = fact("v1", "the port is 5432", ref="project/x/port")
    ix.add([old])
    new = fact("v2", "the port is 6543", ref="project/x/port", time=2)
    assert ix.add([new], delete_ids=[old.id]) == 1
    assert ix.search("5432") == []
    assert ids(ix.search("6543")) == [new.id]
    assert ids(ix.search("port")) == [new.id]
    assert ix.doc_count() == {"fact": 1, "turn": 0}


def test_add_is_idempotent(ix: SearchIndex) -> None:
    d = turn("dup", "repeated content")
    ix.add([d, d])
    ix.add([d])
    assert ids(ix.search("repeated")) == [d.id]
    assert ix.doc_count()["turn"] == 1


def test_add_rejects_bad_delete_id(ix: SearchIndex) -> None:
    with pytest.raises(ValueError):
        ix.add([], delete_ids=["not-an-id"])


# --------------------------------------------------------------------------
# THE PURGE TEST


def _sentinel_scenario(ix: SearchIndex) -> tuple[IndexDoc, list[IndexDoc]]:
    """Index a secret fact among others, then supersede it (rename +
    delete), so it is only deleted, not purged.  Returns (old, live facts)."""
    others = [fact(f"other{i}", f"ordinary fact number {i} about builds") for i in range(5)]
    secret = fact("secret-v1", f"api token {SENTINEL} secret do not keep",
                  ref=f"project/x/{SENTINEL}")
    turns = [turn(f"t{i}", f"turn {i} talking about builds") for i in range(5)]
    ix.add([*others, secret, *turns])
    assert ids(ix.search(SENTINEL)) == [secret.id]
    replacement = fact("secret-v2", "api token rotated, see the vault",
                       ref="project/x/api-token", time=2)
    ix.add([replacement], delete_ids=[secret.id])
    return secret, [*others, replacement]


def test_plain_delete_leaves_sentinel_in_files(root: Path, ix: SearchIndex) -> None:
    """A delete alone hides the doc from search but the checks still see it:
    proves each check used by the purge test can fail."""
    secret, live = _sentinel_scenario(ix)
    assert ix.search(SENTINEL) == []  # hidden from search...
    searcher = open_live(root, "facts")
    assert searcher.doc_freq("id", new_format("stem", "fact").key(secret.id)) == 1  # ...but still counted
    assert searcher.doc_freq("text", "zebraquokka") == 1
    assert [t for t, _ in searcher.terms_with_prefix("text", "zebra")] == ["zebraquokka"]
    files = scan_files(root)
    found = where(SENTINEL, files)
    assert any(name.endswith("#decoded") for name in found), found
    assert any(name.endswith("#decoded") for name in where(secret.id, files))
    assert segments_with_deletes(root, "facts")
    problems = ix.verify_purged([secret.id])
    assert any("doc_freq" in p for p in problems)
    assert any("has deletes" in p for p in problems)


def test_purge_physically_removes_sentinel(root: Path, ix: SearchIndex) -> None:
    secret, live = _sentinel_scenario(ix)
    gen_before = live_gen(root, "facts")
    turns_gen_before = live_gen(root, "turns")

    ix.purge("fact", live)

    # search
    assert ix.search(SENTINEL) == []
    assert ix.search("zebraquokka") == []
    assert ids(ix.search("rotated")) == [live[-1].id]
    assert ix.doc_count() == {"fact": len(live), "turn": 5}
    # module's own check
    assert ix.verify_purged([secret.id]) == []
    # independent checks with tantivy
    searcher = open_live(root, "facts")
    assert searcher.doc_freq("id", new_format("stem", "fact").key(secret.id)) == 0
    assert searcher.doc_freq("text", "zebraquokka") == 0
    assert searcher.terms_with_prefix("text", "zebra") == []
    assert searcher.terms_with_prefix("ref", f"project/x/{SENTINEL}") == []
    assert segments_with_deletes(root, "facts") == []
    # generations: facts switched and the old dir is gone; turns untouched
    assert live_gen(root, "facts") != gen_before
    assert not gen_before.exists()
    assert live_gen(root, "turns") == turns_gen_before
    # every byte of every file, raw and with .store blocks decompressed
    files = scan_files(root)
    decoded = [n for n in files if n.endswith("#decoded")]
    assert decoded, "no .store file was decoded"
    # the decoder works: surviving stored ids are visible in decoded stores
    assert all(any(n.endswith("#decoded") for n in where(d.id, files)) for d in live)
    assert where(SENTINEL, files) == []
    assert where("zebraquokka", files) == []
    assert where(secret.id, files) == []


def test_purge_turns_and_validation(root: Path, ix: SearchIndex) -> None:
    t_keep = turn("keep", "keep this turn")
    t_drop = turn("drop", "forgetme-9913 this turn")
    f = fact("f", "a fact stays")
    ix.add([t_keep, t_drop, f])
    with pytest.raises(ValueError):
        ix.purge("blob", [])
    with pytest.raises(ValueError):
        ix.purge("turn", [t_keep, f])  # wrong kind: nothing switched
    assert ids(ix.search("forgetme-9913")) == [t_drop.id]
    assert [p.name for p in (root / "turns").iterdir() if p.name.startswith("gen-")] == ["gen-1"]

    ix.purge("turn", [t_keep])
    assert ix.search("forgetme-9913") == []
    assert ids(ix.search("stays")) == [f.id]
    assert ix.verify_purged([t_drop.id]) == []
    assert where("forgetme", scan_files(root)) == []


def test_purge_to_empty(ix: SearchIndex) -> None:
    ix.add([fact("only", "lonely fact")])
    ix.purge("fact", [])
    assert ix.search("lonely") == []
    assert ix.doc_count() == {"fact": 0, "turn": 0}
    assert ix.verify_purged([oid("only")]) == []


def test_verify_purged_reports_orphans_and_stray_files(root: Path, ix: SearchIndex) -> None:
    ix.add([fact("a", "alpha"), turn("b", "beta")])
    assert ix.verify_purged([]) == []
    (live_gen(root, "facts") / "0123456789abcdef0123456789abcdef.store").write_bytes(b"x")
    shutil.copytree(live_gen(root, "turns"), root / "turns" / "gen-9")
    problems = ix.verify_purged([])
    assert any("belongs to no live segment" in p for p in problems)
    assert any("orphan generation" in p and "gen-9" in p for p in problems)
    with pytest.raises(ValueError):
        ix.verify_purged(["nope"])


# --------------------------------------------------------------------------
# rebuild / generations


def test_rebuild_switches_generation_and_removes_old(root: Path, ix: SearchIndex) -> None:
    ix.add([fact("old", "oldcontent fact"), turn("oldt", "oldcontent turn")])
    old_facts, old_turns = live_gen(root, "facts"), live_gen(root, "turns")
    other = SearchIndex(root)  # e.g. another process' reader
    assert len(other.search("oldcontent")) == 2

    new_docs = [fact("nf", "newcontent fact"), *[turn(f"n{i}", f"newcontent turn {i}")
                                                 for i in range(2500)]]
    seen_during: list[tuple[int, int, int]] = []

    def progress(n: int) -> None:
        # searching during the rebuild still sees the old generation
        seen_during.append((n, len(ix.search("oldcontent")), len(ix.search("newcontent"))))

    assert ix.rebuild(new_docs, progress=progress) == len(new_docs)
    assert [n for n, _, _ in seen_during] == [1000, 2000, 2501]
    assert all(o == 2 and n == 0 for _, o, n in seen_during)

    assert not old_facts.exists() and not old_turns.exists()
    assert live_gen(root, "facts").name == "gen-2"
    assert ix.search("oldcontent") == []
    assert len(ix.search("newcontent", limit=5000)) == len(new_docs)
    assert other.search("oldcontent") == []  # the other reader follows CURRENT
    assert len(other.search("newcontent", limit=3)) == 3
    assert ix.doc_count() == {"fact": 1, "turn": 2500}
    assert ix.verify_purged([oid("old"), oid("oldt")]) == []
    other.close()


def test_rebuild_removes_orphan_generation(root: Path, ix: SearchIndex) -> None:
    ix.add([fact("a", "alpha"), turn("b", "beta")])
    # "crash": a half-written generation left behind, and a stray tmp file
    orphan = root / "facts" / "gen-5"
    shutil.copytree(live_gen(root, "facts"), orphan)
    (root / "facts" / "CURRENT.tmp-999-1").write_text("gen-5\n")
    assert ids(ix.search("alpha")) == [oid("a")]  # orphan is ignored
    ix.rebuild([fact("a", "alpha"), turn("b", "beta")])
    assert not orphan.exists()
    assert not (root / "facts" / "CURRENT.tmp-999-1").exists()
    gens = sorted(p.name for p in (root / "facts").iterdir() if p.name.startswith("gen-"))
    assert gens == ["gen-6"]
    assert ids(ix.search("alpha")) == [oid("a")]


def test_add_removes_orphan_generation(root: Path, ix: SearchIndex) -> None:
    ix.add([fact("a", "alpha")])
    orphan = root / "facts" / "gen-3"
    orphan.mkdir()
    (orphan / "junk").write_bytes(b"junk")
    ix.add([fact("b", "beta")])
    assert not orphan.exists()
    assert ix.verify_purged([]) == []


def test_failed_rebuild_keeps_old_index(root: Path, ix: SearchIndex) -> None:
    ix.add([fact("a", "alpha"), turn("b", "beta")])

    def docs():
        yield fact("c", "gamma")
        raise RuntimeError("object store read failed")

    with pytest.raises(RuntimeError):
        ix.rebuild(docs())
    assert ids(ix.search("alpha")) == [oid("a")]
    assert ix.search("gamma") == []
    for sub in ("facts", "turns"):
        assert sorted(p.name for p in (root / sub).iterdir()) == ["CURRENT", "LOCK", "gen-1"]


def test_rebuild_repairs_corrupt_current(root: Path, ix: SearchIndex) -> None:
    ix.add([fact("a", "alpha")])
    (root / "facts" / "CURRENT").write_text("garbage\n")
    with pytest.raises(IndexCorruptError):
        ix.search("alpha")
    ix.rebuild([fact("a", "alpha")])
    assert ids(ix.search("alpha")) == [oid("a")]
    assert ix.verify_purged([]) == []


def test_second_writer_is_busy(root: Path, ix: SearchIndex) -> None:
    ix.add([fact("a", "alpha")])
    other = SearchIndex(root, lock_timeout=0.2)
    errors: list[Exception] = []

    def progress(_n: int) -> None:
        try:
            other.add([fact("b", "beta")])
        except IndexBusyError as e:
            errors.append(e)
        # readers are never blocked by the writer lock
        assert ids(other.search("alpha")) == [oid("a")]

    ix.rebuild([fact("a", "alpha")], progress=progress)
    assert len(errors) == 1
    other.add([fact("b", "beta")])  # lock released after the rebuild
    assert ids(ix.search("beta")) == [oid("b")]
    other.close()


_WRITER_SCRIPT = """
import sys
from pathlib import Path
from objstore.index.searchindex import IndexDoc, SearchIndex
import hashlib
root, tag = Path(sys.argv[1]), sys.argv[2]
ix = SearchIndex(root, lock_timeout=60)
for i in range(15):
    oid = hashlib.sha256(f"{tag}-{i}".encode()).hexdigest()
    ix.add([IndexDoc(oid, "turn", tag, i, "", "user", f"concurrent {tag} number {i}")])
"""


def test_concurrent_writer_processes(root: Path, ix: SearchIndex) -> None:
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER_SCRIPT, str(root), f"p{n}"],
                              env=env, stderr=subprocess.PIPE) for n in range(3)]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    assert ix.doc_count() == {"fact": 0, "turn": 45}
    assert len(ix.search("concurrent", limit=100)) == 45
    assert ix.verify_purged([]) == []


# --------------------------------------------------------------------------
# snippets


def test_make_snippet() -> None:
    text = ("intro " * 60) + "the  Café\n\tserves   coffee " + ("outro " * 60)
    snip = make_snippet(text, "cafe", width=60)
    assert "Café serves coffee" in snip
    assert snip.startswith("…") and snip.endswith("…")
    assert len(snip) <= 62
    assert "  " not in snip and "\n" not in snip

    # no match / empty query: start of the text
    assert make_snippet(text, "zzz", width=30) == ("intro " * 5).strip() + "…"
    assert make_snippet(text, "", width=30).startswith("intro")
    # short text returned whole, whitespace collapsed
    assert make_snippet("a  b\nc", "b") == "a b c"
    # CJK match inside a long unspaced run
    cjk = "あ" * 300 + "日本語" + "い" * 300
    s = make_snippet(cjk, "日本語", width=40)
    assert "日本語" in s and s.startswith("…") and s.endswith("…")
    # multi-token query word, case folded
    s = make_snippet("x " * 200 + "fix AUTH.PY now " + "y " * 200, "auth.py", width=40)
    assert "AUTH.PY" in s
    with pytest.raises(ValueError):
        make_snippet("text", "q", width=0)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=400), query=st.text(max_size=30),
       width=st.integers(min_value=1, max_value=200))
def test_make_snippet_never_raises(text: str, query: str, width: int) -> None:
    s = make_snippet(text, query, width)
    assert len(s) <= width + 2


# --------------------------------------------------------------------------
# shards of the turns sub-index


def sturn(seed: str, session: str, text: str, seq: int = 0) -> IndexDoc:
    return IndexDoc(oid(seed), "turn", session, 1, "x", "user", text, seq)


def sessions_by_shard(ix: SearchIndex, count: int) -> dict[int, str]:
    """One session id for each of `count` distinct shards."""
    out: dict[int, str] = {}
    i = 0
    while len(out) < count:
        out.setdefault(ix.shard_of(f"session-{i}"), f"session-{i}")
        i += 1
    return out


def gen_snapshot(path: Path) -> dict[str, tuple[int, int, int]]:
    """file name -> (inode, size, mtime_ns) of every file of a generation dir."""
    return {p.name: (p.stat().st_ino, p.stat().st_size, p.stat().st_mtime_ns) for p in path.iterdir()}


def test_shard_of_is_blake3_of_the_session_id(root: Path, ix: SearchIndex) -> None:
    from blake3 import blake3
    for sid in ("abc", "83256f84-59d0-4878-9036-b137c23d993b", "é/日本", ""):
        assert ix.shard_of(sid) == int.from_bytes(blake3(sid.encode()).digest()[:4], "big") % 16
    assert ix.turn_shards(["abc", "abc", "x"]) == {ix.shard_of("abc"), ix.shard_of("x")}
    assert ix.turn_shard_count() == 16 and not root.exists()  # reading creates nothing
    four = SearchIndex(root, shards=4)
    assert four.shard_of("abc") == int.from_bytes(blake3(b"abc").digest()[:4], "big") % 4
    four.add([sturn("a", "abc", "hello")])
    assert ix.turn_shard_count() == 4  # what is on disk wins over the instance's default
    assert ix.shard_of("abc") == four.shard_of("abc")
    with pytest.raises(ValueError):
        SearchIndex(root, shards=0)


def test_turns_are_sharded_by_session(root: Path, ix: SearchIndex) -> None:
    docs = [sturn(f"t{s}-{k}", f"session-{s}", f"shardword turn {k} of session {s}", k)
            for s in range(40) for k in range(3)]
    assert ix.add(docs) == 120
    lines = (root / "turns" / "CURRENT").read_text().splitlines()
    assert lines[0] == "shards 16" and len(lines) == 17
    gens = live_gens(root, "turns")
    assert len(gens) > 8  # 40 sessions over 16 shards
    # each generation holds exactly the turns of the sessions of its shard, all of them
    for shard, path in gens.items():
        searcher = tantivy.Index.open(str(path)).searcher()
        refs = [searcher.doc(a).get_first("ref") for _s, a in searcher.search(tantivy.Query.all_query(), 500).hits]
        want = [d.ref for d in docs if ix.shard_of(d.ref) == shard]
        assert sorted(refs) == sorted(want)
    assert len(ix.search("shardword", limit=500)) == 120
    assert ix.doc_count() == {"fact": 0, "turn": 120}
    assert ids(ix.search("turn 2 session 17", limit=1)) == [oid("t17-2")]
    assert set(ix.turns_at("session-5", [0, 2])) == {0, 2}
    assert ix.has_seq("turn")
    assert ix.term_doc_freq("shardword") == {"shardword": 120}
    assert ix.term_stats(["shardword"], ("turn",)) == (120, {"shardword": 120})
    assert ix.verify_purged([]) == []


def test_scores_comparable_across_shards(ix: SearchIndex) -> None:
    a, b = list(sessions_by_shard(ix, 2).values())
    same_a = sturn("same-a", a, "alpha beta gamma delta")
    same_b = sturn("same-b", b, "alpha beta gamma delta")
    fill = [sturn(f"f{i}", a, f"one two three w{i}") for i in range(30)]
    ix.add([same_a, *fill, fact("fa", "one two three four")])
    ix.add([same_b])
    hits = ix.search("alpha gamma")
    assert set(ids(hits)) == {same_a.id, same_b.id}
    assert hits[0].score == pytest.approx(hits[1].score, rel=1e-3)
    # and merged correctly: the best of every shard competes, `limit` applies overall
    more = [sturn(f"m{i}", f"session-m{i}", "common " * (1 + i % 5)) for i in range(50)]
    ix.add(more)
    top = ix.search("common", limit=7)
    assert len(top) == 7 and all(x.score >= y.score for x, y in zip(top, top[1:]))
    allhits = ix.search("common", limit=100)
    assert len(allhits) == 50 and ids(allhits)[:7] == ids(top)


def test_purge_turn_shards_touches_only_the_affected_shard(root: Path, ix: SearchIndex) -> None:
    by_shard = sessions_by_shard(ix, 4)
    victim_shard, victim = next(iter(by_shard.items()))
    neighbour = next(f"n-{i}" for i in range(1000) if ix.shard_of(f"n-{i}") == victim_shard
                     and f"n-{i}" != victim)
    docs = [sturn(f"{s}-{k}", s, f"ordinary words {k} of {s}", k)
            for s in [*by_shard.values(), neighbour] for k in range(5)]
    secret = sturn("secret", victim, f"the token is {SENTINEL} keep it", 5)
    ix.add([*docs, secret])
    assert ids(ix.search(SENTINEL)) == [secret.id]
    before = live_gens(root, "turns")
    snaps = {s: gen_snapshot(p) for s, p in before.items()}

    survivors = [d for d in docs if ix.shard_of(d.ref) == victim_shard]
    assert {d.ref for d in survivors} == {victim, neighbour}
    assert secret.id in physical_ids(before[victim_shard])
    ix.purge_turn_shards({victim_shard}, survivors)

    after = live_gens(root, "turns")
    assert set(after) == set(before)
    for s, path in before.items():
        if s == victim_shard:
            assert after[s] != path and not path.exists()
        else:  # untouched: same generation, same files, not rewritten
            assert after[s] == path and gen_snapshot(path) == snaps[s]
    assert ix.search(SENTINEL) == [] and ix.search("zebraquokka") == []
    assert len(ix.search("ordinary", limit=100)) == len(docs)
    assert ix.verify_purged([secret.id]) == []
    files = scan_files(root)
    assert where("zebraquokka", files) == [] and where(secret.id, files) == []
    assert physical_ids(after[victim_shard]) == {d.id for d in survivors}   # the turns' ids: columns, not stored


def test_a_deleted_turn_keeps_its_id_in_the_columns_until_purged(root: Path, ix: SearchIndex) -> None:
    """A delete alone leaves the turn's id in its segment's oid columns
    (what ``physical_ids`` reads, so the purge test's check can fail); a
    purge of its shard drops it."""
    keep, gone = sturn("keep", "s1", "ordinary words", 0), sturn("gone", "s1", f"the token is {SENTINEL}", 1)
    ix.add([keep, gone])
    ix.add([], delete_ids=[gone.id])
    assert ix.search(SENTINEL) == []
    assert physical_ids(live_gen(root, "turns")) == {keep.id, gone.id}
    ix.purge_turn_shards({ix.shard_of("s1")}, [keep])
    assert physical_ids(live_gen(root, "turns")) == {keep.id}
    assert ix.verify_purged([gone.id]) == []


def test_purge_turn_shards_validation(root: Path, ix: SearchIndex) -> None:
    (s1, a), (s2, b) = list(sessions_by_shard(ix, 2).items())
    da, db = sturn("a", a, "apple text"), sturn("b", b, "banana text")
    ix.add([da, db])
    current = (root / "turns" / "CURRENT").read_text()
    gens = sorted(p.name for p in (root / "turns").iterdir())
    for shards, survivors in [({s1}, [da, db]),             # b is in another shard
                              ({s1}, [fact("f", "a fact")]),  # not a turn
                              ({16}, []), ({-1}, []),         # no such shard
                              ({s1}, ["not a doc"])]:
        with pytest.raises(ValueError):
            ix.purge_turn_shards(shards, survivors)  # type: ignore[arg-type]
        assert (root / "turns" / "CURRENT").read_text() == current
        assert sorted(p.name for p in (root / "turns").iterdir()) == gens
    ix.purge_turn_shards(set(), [])  # nothing to do
    assert (root / "turns" / "CURRENT").read_text() == current
    # a shard without survivors becomes empty: "-" in CURRENT, its generation deleted
    ix.purge_turn_shards({s1}, [])
    assert s1 not in live_gens(root, "turns") and ids(ix.search("text")) == [db.id]
    assert ix.verify_purged([da.id]) == []
    # with no turns index nothing is written (an index of some shards only would be incomplete)
    other = SearchIndex(root.parent / "other-index")
    other.purge_turn_shards({other.shard_of(a)}, [da])
    assert not (root.parent / "other-index").exists()


def test_index_with_another_shard_count_is_read_written_and_rebuilt(root: Path) -> None:
    four = SearchIndex(root, shards=4)
    docs = [sturn(f"d{i}", f"s{i}", f"fourshard text {i}") for i in range(12)]
    four.add(docs[:6])
    ix = SearchIndex(root)  # default layout would be 16 shards
    assert ix.turn_shard_count() == 4
    ix.add(docs[6:])
    assert (root / "turns" / "CURRENT").read_text().startswith("shards 4\n")
    assert len(ix.search("fourshard", limit=50)) == 12
    s = ix.shard_of("s3")
    ix.purge_turn_shards({s}, [d for d in docs if ix.shard_of(d.ref) == s and d.ref != "s3"])
    assert oid("d3") not in ids(ix.search("fourshard", limit=50))
    assert len(ix.search("fourshard", limit=50)) == 11
    ix.rebuild(docs)  # a rebuild lays the turns out by what it is given: 12 turns, one shard
    assert ix.turn_shard_count() == 1
    assert len(ix.search("fourshard", limit=50)) == 12 and ix.verify_purged([]) == []
    SearchIndex(root, shards=16).rebuild(docs)  # or with the instance's count
    assert (root / "turns" / "CURRENT").read_text().startswith("shards 16\n")
    assert len(ix.search("fourshard", limit=50)) == 12 and ix.verify_purged([]) == []


def test_unsharded_turns_index_is_read_and_purged(root: Path) -> None:
    """A turns index of one generation (the layout before sharding)."""
    SearchIndex(root, shards=1).add([sturn("u1", "s1", "legacy one"), sturn("u2", "s2", "legacy two")])
    assert (root / "turns" / "CURRENT").read_text() == "gen-1\n"
    ix = SearchIndex(root)
    assert ix.turn_shard_count() == 1 and ix.turn_shards(["s1", "s2"]) == {0}
    assert len(ix.search("legacy")) == 2
    ix.add([sturn("u3", "s3", "legacy three")])  # written as it is
    assert (root / "turns" / "CURRENT").read_text() == "gen-1\n"
    one = SearchIndex(root, shards=1)  # an instance that wants one shard keeps it so
    one.purge_turn_shards({0}, [sturn("u2", "s2", "legacy two"), sturn("u3", "s3", "legacy three")])
    assert (root / "turns" / "CURRENT").read_text() == "gen-2\n"
    assert set(ids(ix.search("legacy"))) == {oid("u2"), oid("u3")}
    # purging every shard of a smaller layout lays the turns out anew (all survivors are at hand),
    # sized by them (one turn: one shard)
    ix.purge_turn_shards({0}, [sturn("u2", "s2", "legacy two")])
    assert ix.turn_shard_count() == 1 and (root / "turns" / "CURRENT").read_text() not in ("gen-1\n", "gen-2\n")
    assert ids(ix.search("legacy")) == [oid("u2")] and ix.verify_purged([oid("u1"), oid("u3")]) == []


def test_automatic_shard_count_follows_the_index_size(root: Path, monkeypatch) -> None:
    import objstore.index.searchindex as si
    monkeypatch.setattr(si, "SHARD_TARGET_DOCS", 2)
    ix = SearchIndex(root)
    docs = [sturn(f"a{i}", f"s{i}", f"auto {i}") for i in range(40)]
    ix.add(docs)
    assert ix.turn_shard_count() == 16  # a first layout: the default
    ix.rebuild(docs)  # 40 docs at 2 per shard
    assert ix.turn_shard_count() == 20
    ix.stream(expected_docs=10_000).close()  # an existing layout is kept
    assert ix.turn_shard_count() == 20
    monkeypatch.setattr(si, "MAX_AUTO_SHARDS", 32)
    monkeypatch.setattr(si, "SHARD_TARGET_DOCS", 1)
    ix.rebuild(docs)
    assert ix.turn_shard_count() == 32
    assert len(ix.search("auto", limit=50)) == 40
    pinned = SearchIndex(root, shards=8)
    pinned.rebuild(docs)
    assert pinned.turn_shard_count() == 8


def test_buffered_rebuild_of_many_shards(root: Path, ix: SearchIndex, monkeypatch) -> None:
    import objstore.index.genbuild as genbuild
    monkeypatch.setattr(genbuild, "BUILD_BUFFER_CHARS", 300)  # many rounds of writes per shard
    docs = [sturn(f"b{i}", f"s{i % 30}", f"buffered doc number {i} " + "pad " * 10, i) for i in range(300)]
    assert ix.rebuild(docs) == 300
    assert len(ix.search("buffered", limit=500)) == 300
    assert ix.doc_count() == {"fact": 0, "turn": 300}
    assert ix.verify_purged([]) == []  # merged segments' dead files were collected
    assert max(len(json.loads((p / "meta.json").read_text())["segments"])
               for p in live_gens(root, "turns").values()) >= 1


@pytest.mark.parametrize("content", [
    "shards 2\ngen-1\n", "shards 0\n", "shards 2\ngen-1\ngen-1\n", "shards x\ngen-1\n",
    "shards 2\ngen-1\nfoo\n", "gen-1\ngen-2\n", "shards 5000\n" + "-\n" * 5000, "",
])
def test_bad_current_is_corruption(root: Path, ix: SearchIndex, content: str) -> None:
    ix.add([sturn("c", "s", "corrupt me")])
    (root / "turns" / "CURRENT").write_text(content)
    with pytest.raises(IndexCorruptError):
        ix.search("corrupt")
    with pytest.raises(IndexCorruptError):
        ix.shard_of("s")
    ix.rebuild([sturn("c", "s", "corrupt me")])
    assert ids(ix.search("corrupt")) == [oid("c")]


def test_missing_turns(ix: SearchIndex) -> None:
    s1, s2, s3 = sessions_by_shard(ix, 3).values()
    assert ix.missing_turns({s1: oid("x")}) == {s1}  # no index
    ix.add([sturn("h1", s1, "head one"), sturn("h2", s2, "head two")])
    assert ix.missing_turns({s1: oid("h1"), s2: oid("h2")}) == set()
    # looked up in the session's own shard; a shard without a generation lacks everything
    assert ix.missing_turns({s1: oid("h2"), s2: oid("h2"), s3: oid("h1")}) == {s1, s3}


# --------------------------------------------------------------------------
# substring prefilter


def brute(docs: list[IndexDoc], text: str) -> set[str]:
    from objstore.core.objects import normalize_value
    norm = normalize_value(text)
    return {d.id for d in docs if norm in normalize_value(d.text)}


SUB_DOCS = {
    "flag": "FYI the staging flag `gipevix_enabled` must stay off until tedugix signs off.",
    "enable": "enable gipevix now, it is enabled",
    "strasse": "Die STRASSE ist lang; die Straße auch",
    "lig": "the ﬅ ligature and the ﬁle",
    "greek": "ΟΔΟΣ and οδός",
    "cjk": "これは日本語のテキストです",
    "spaces": "alpha\n\n\tbeta   gamma",
    "combining": "cafe\u0301 and café",
    "long": "prefix " + "x" * 40000 + "needleinside" + "y" * 100 + " suffix",
    "other": "nothing to see here",
}


@pytest.fixture
def subix(ix: SearchIndex) -> tuple[SearchIndex, list[IndexDoc]]:
    docs = [sturn(k, f"session-{k}", v) for k, v in SUB_DOCS.items()]
    ix.add(docs)
    return ix, docs


@pytest.mark.parametrize("text, must, must_not", [
    ("gipevix_enabled", {"flag", "enable"}, {"other", "strasse"}),  # order is not checked
    ("GIPEVIX_ENABLED", {"flag"}, {"other"}),
    ("x_enabled must", {"flag"}, {"other", "enable"}),  # "must": a whole word
    ("staging flag", {"flag"}, {"enable"}),
    ("the staging flag `gipevix", {"flag"}, {"enable"}),
    ("straße", {"strasse"}, {"other"}),
    ("STRASSE IST", {"strasse"}, {"other"}),
    ("st ligature", {"lig"}, {"other"}),
    ("οδοσ", {"greek"}, {"other"}),
    ("日本語", {"cjk"}, {"other"}),
    ("alpha beta gamma", {"spaces"}, {"other"}),
    ("lpha\tbeta gam", {"spaces"}, {"other"}),
    ("café", {"combining"}, {"other"}),
    ("needleinside", {"long"}, set()),
    ("xxneedle", {"long"}, set()),
])
def test_substring_candidates_examples(subix, text: str, must: set[str], must_not: set[str]) -> None:
    ix, docs = subix
    cands = ix.substring_candidates(text)
    assert cands is not None
    assert brute(docs, text) <= cands
    assert {oid(k) for k in must} <= cands
    assert not {oid(k) for k in must_not} & cands
    refs = ix.substring_candidate_refs(text)
    assert refs is not None and set(refs) == cands and refs[oid(next(iter(must)))].startswith("session-")


def test_substring_candidates_none_when_it_cannot_answer(root: Path, subix) -> None:
    ix, _docs = subix
    for text in ("", "   ", "!!! ---", "x" * 32768, "\ud800abc"):
        assert ix.substring_candidates(text) is None, text
    assert ix.substring_candidates("anything", kind="history") is None  # no such index
    with pytest.raises(ValueError):
        ix.substring_candidates("x", kind="blob")
    # a generation without the plain field (first-release format): no answer for that kind
    words = SearchIndex(root.parent / "words-index", analyzer="words")
    words.add([sturn("w", "s", "plain words")])
    assert words.substring_candidates("plain words") is None


_SUB_ALPHABET = st.sampled_from(list("abcxyzAB0_-. \n\tßẞﬅﬁﬃİıΣσςéǅŉ日本")
                                + ["\u0301", "\u212a", "\u00a0", "\u2028", "\u0345"])


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.text(_SUB_ALPHABET, max_size=40), min_size=1, max_size=8),
       pick=st.integers(min_value=0), start=st.integers(min_value=0), length=st.integers(1, 12),
       upper=st.booleans(), ws=st.sampled_from([" ", "\n", "\t ", "  "]),
       free=st.text(_SUB_ALPHABET, min_size=1, max_size=6))
def test_substring_candidates_never_miss(texts, pick, start, length, upper, ws, free) -> None:
    """Brute force over random texts: every document containing the match
    text (as forget --match sees it) is a candidate."""
    import tempfile
    import unicodedata
    with tempfile.TemporaryDirectory() as d:
        ix = SearchIndex(Path(d) / "index", shards=2)
        docs = [sturn(f"h{i}", f"s{i % 3}", t) for i, t in enumerate(texts)]
        ix.add(docs)
        src = texts[pick % len(texts)]
        s0 = start % (len(src) + 1)
        sub = src[s0:s0 + length]
        sub = sub.upper() if upper else sub
        sub = unicodedata.normalize("NFD", " ".join(sub.split(" ")).replace(" ", ws))
        for text in (sub, free, sub + free):
            cands = ix.substring_candidates(text)
            if cands is not None:
                assert brute(docs, text) <= cands, (text, texts)
                assert cands <= {doc.id for doc in docs}
        ix.close()


def test_words_in_colour_codes_are_indexed_and_the_format_says_so(root: Path) -> None:
    """Re-attack defect 11: escape sequences are removed before analysis (the one
    normalization, objstore.core.text); generations record it (``noesc``), so an
    older one is known and ``mem reindex`` rewrites it."""
    old = SearchIndex(root.parent / "old", analyzer="words")       # a format without the marker
    old.add([fact("o", "no codes here")])
    assert not old.strips_escapes()
    old.close()
    ix = SearchIndex(root)
    assert ix.strips_escapes()                                     # nothing yet
    ix.add([fact("a", "use \x1b[1mopusplan\x1b[22m daily"), turn("b", "\x1b[31mred\x1b[0mwombat")])
    assert ix.strips_escapes()
    assert ids(ix.search("opusplan")) == [oid("a")] and ids(ix.search("redwombat")) == [oid("b")]
    assert ix.search("1mopusplan") == []
    ix.close()


def test_a_generation_with_hex_ids_is_read_written_and_purged(root: Path, monkeypatch) -> None:
    """A ``mem_stem`` generation written before ids were stored as raw bytes
    (``id`` a raw text field of 64 hex digits) keeps working as it is:
    search, add with delete, neighbour lookups, substring candidates, purge;
    a new generation stores the raw bytes (docs/format.md, "Schema")."""
    from objstore.index import schema as schema_mod
    old_fmt = schema_mod.GenFormat("stem", True, True, True, False)
    monkeypatch.setitem(schema_mod.FORMATS, "stem", old_fmt)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    old = SearchIndex(root)
    docs = [turn(f"t{k}", f"ordinary words {k} quokkaline" if k == 3 else f"ordinary words {k}", time=k)
            for k in range(6)]
    old.add(docs)
    old.close()
    monkeypatch.undo()
    schema_mod._SCHEMAS.clear()
    meta = json.loads((live_gen(root, "turns") / "meta.json").read_text())
    assert {f["name"]: f["type"] for f in meta["schema"]}["id"] == "text"
    ix = SearchIndex(root)
    try:
        assert ids(ix.search("quokkaline")) == [docs[3].id]
        assert ix.substring_candidates("quokkaline") == {docs[3].id}
        assert ix.missing_turns({"session-1": docs[5].id}) == set()
        newer = turn("t9", "ordinary words again quokkaline", time=9)
        ix.add([newer], delete_ids=[docs[3].id])
        assert ids(ix.search("quokkaline")) == [newer.id]
        ix.purge_turn_shards({ix.shard_of("session-1")}, [d for d in docs if d.id != docs[3].id] + [newer])
        assert ix.verify_purged([docs[3].id]) == []
        assert sorted(ids(ix.search("ordinary", limit=50))) == sorted([d.id for d in docs if d.id != docs[3].id]
                                                                      + [newer.id])
    finally:
        ix.close()
    meta = json.loads((live_gen(root, "turns") / "meta.json").read_text())
    fields = {f["name"]: f["type"] for f in meta["schema"]}
    assert "id" not in fields and fields["oid0"] == "u64"  # the purge wrote a new generation (col_id)


def test_a_bulk_stream_lays_a_new_turns_index_out_for_what_it_brings(root: Path, monkeypatch) -> None:
    import objstore.index.searchindex as si
    monkeypatch.setattr(si, "SHARD_TARGET_DOCS", 2)
    ix = SearchIndex(root)
    with ix.stream(fresh=True, expected_docs=7) as st:  # a new store's import of ~7 turns: 4 shards
        for i in range(6):
            st.add(sturn(f"e{i}", f"s{i}", f"expected {i}"))
        st.commit()
    assert ix.turn_shard_count() == 4
    assert len(ix.search("expected", limit=10)) == 6
    with ix.stream(fresh=True, expected_docs=10_000) as st:  # a later import keeps the layout
        st.add(sturn("e9", "s9", "expected 9"))
        st.commit()
    assert ix.turn_shard_count() == 4 and len(ix.search("expected", limit=10)) == 7
    assert {ix.shard_of(f"s{i}") for i in range(10)} <= set(range(4))
    # never more shards than the default for an import, whatever it expects
    other = SearchIndex(root.parent / "other")
    with other.stream(fresh=True, expected_docs=10_000) as st:
        st.add(sturn("o1", "s1", "other"))
        st.commit()
    assert other.turn_shard_count() == si.DEFAULT_TURN_SHARDS


def test_an_import_sizes_the_layout_by_what_it_expects_at_its_first_commit(root: Path, monkeypatch) -> None:
    import objstore.index.searchindex as si
    monkeypatch.setattr(si, "SHARD_TARGET_DOCS", 3)
    ix = SearchIndex(root)
    expected = [0]
    with ix.stream(fresh=True, expected_docs=lambda: expected[0]) as st:
        for i in range(5):
            st.add(sturn(f"c{i}", f"s{i}", f"counted {i}"))
        assert not root.exists() or ix.turn_shard_count() == si.DEFAULT_TURN_SHARDS  # nothing on disk yet
        expected[0] = 8  # what the import knows by its first commit: 3 shards
        st.commit()
        expected[0] = 1000  # read once: the layout is decided
        st.add(sturn("c9", "s9", "counted 9"))
        st.commit()
    assert ix.turn_shard_count() == 3
    assert sorted(ids(ix.search("counted", limit=10))) == sorted(oid(f"c{i}") for i in (0, 1, 2, 3, 4, 9))
    assert ix.turn_layout_outgrown() is None
    # more than MERGE_LEVEL_DOCS per shard on average: outgrown, laid out anew with twice the shards
    monkeypatch.setattr(si, "MERGE_LEVEL_DOCS", 1)
    assert ix.turn_layout_outgrown() == 6
    assert SearchIndex(root, shards=3).turn_layout_outgrown() is None  # a fixed shard count is kept
    ix.purge("turn", [sturn(f"c{i}", f"s{i}", f"counted {i}") for i in range(5)], shards=6)
    assert ix.turn_shard_count() == 6 and len(ix.search("counted", limit=10)) == 5
    assert ix.turn_layout_outgrown() is None  # 5 turns in 6 shards
    ix.purge("turn", [sturn(f"c{i}", f"s{i}", f"counted {i}") for i in range(5)])  # as a rebuild: by the turns
    assert ix.turn_shard_count() == 2  # ceil(5 / 3)


def test_dropping_the_mapped_pages_of_an_index_leaves_it_readable(root: Path) -> None:
    from objstore.index.generations import drop_mapped_pages
    ix = SearchIndex(root)
    ix.add([sturn(f"m{i}", f"s{i % 5}", f"mapped page {i}") for i in range(50)])
    assert len(ix.search("mapped", limit=100)) == 50
    assert drop_mapped_pages(root) > 0  # this process maps the segments it searched
    assert len(ix.search("mapped page", limit=100)) == 50
    assert drop_mapped_pages(root / "nothing-here") == 0


def test_glued_pairs_and_word_pairs() -> None:
    from objstore.index.analysis import glued_pairs, word_pairs
    assert glued_pairs("fix auth.py: re-index 日本語 now a_b (x)") == "auth_py re_index 日_本 本_語 a_b"
    assert word_pairs("Auth.PY") == ("auth_py",) and word_pairs("Café-Bar") == ("cafe_bar",)
    assert word_pairs("日本語") == ("日_本", "本_語") and word_pairs("plain") == ()


_GLUED_DOCS = {"glued": "the bug is in auth.py near the login handler",
               "apart": "auth and py are far apart, py then auth",
               "spaced": "see auth py for details",
               "path": "edit src/objstore/index/searchindex.py today",
               "three": "a.b then b.c but never the three"}


def test_multi_token_words_without_positions_use_the_pairs(ix: SearchIndex, root: Path) -> None:
    """A new facts generation records no positions in ``text`` and answers a
    multi-token word with its terms AND its glued pairs (docs/format.md,
    "Pairs"): order and adjacency count, whitespace between the tokens
    does not make them one word."""
    ix.add([fact(k, v) for k, v in _GLUED_DOCS.items()])
    meta = json.loads((live_gen(root, "facts") / "meta.json").read_text())
    fields = {f["name"]: f for f in meta["schema"]}
    assert fields["text"]["options"]["indexing"]["record"] == "freq" and "pairs" in fields
    assert ids(ix.search("auth.py")) == [oid("glued")]
    assert ix.search("py.auth") == []
    assert ids(ix.search("searchindex.py")) == [oid("path")]
    assert ids(ix.search("index/searchindex.py")) == [oid("path")]
    assert ids(ix.search("a.b.c")) == [oid("three")]  # every pair is there, not the three in a row


def test_turns_check_multi_token_words_against_the_hits_text(ix: SearchIndex, root: Path) -> None:
    """A new turns generation has no ``pairs`` field (session 7): a
    multi-token word is the conjunction of its terms, and with ``texts``
    the hits are checked for the word standing glued, as the pairs did:
    the same answers as the facts' pairs give; a hit failing the check is
    scored without that word (here: by ``login`` alone)."""
    ix.add([turn(k, v) for k, v in _GLUED_DOCS.items()])
    meta = json.loads((live_gen(root, "turns") / "meta.json").read_text())
    fields = {f["name"]: f for f in meta["schema"]}
    # doc ids only since session 25 (GenFormat.no_freqs)
    assert fields["text"]["options"]["indexing"]["record"] == "basic" and "pairs" not in fields
    by_id = {oid(k): v for k, v in _GLUED_DOCS.items()}
    asked: list[list[str]] = []

    def texts(oids: list[str]) -> dict[str, str]:
        asked.append(oids)
        return {o: by_id[o] for o in oids}

    assert ids(ix.search("auth.py", texts=texts)) == [oid("glued")]
    assert ix.search("py.auth", texts=texts) == []
    assert ids(ix.search("searchindex.py", texts=texts)) == [oid("path")]
    assert ids(ix.search("index/searchindex.py", texts=texts)) == [oid("path")]
    assert ids(ix.search("a.b.c", texts=texts)) == [oid("three")]
    assert asked  # the hits' texts were read
    # a failing hit keeps the score of its other words
    ix.add([turn("login", "auth py login login")])
    got = ix.search("auth.py login", texts=lambda o: {k: by_id.get(k, "auth py login login") for k in o})
    alone = ix.search("login")
    assert ids(got) == [oid("login"), oid("glued")] or ids(got) == [oid("glued"), oid("login")]
    assert {h.id: h.score for h in got}[oid("login")] == pytest.approx({h.id: h.score for h in alone}[oid("login")])
    # without texts: the bare conjunction
    assert set(ids(ix.search("auth.py"))) == {oid("glued"), oid("apart"), oid("spaced"), oid("login")}
    assert ix.search("zzz", texts=texts) == [] and len(asked) == 5  # one-token words: nothing to check


def test_a_generation_with_positions_is_read_written_and_purged(root: Path, monkeypatch) -> None:
    """A ``mem_stem`` generation written before positions were dropped
    (``text`` with positions, no ``pairs`` field) keeps answering
    multi-token words with phrase queries, beside a new generation that
    answers them with pairs; a purge rewrites it in the new format."""
    from objstore.index import schema as schema_mod
    old_fmt = schema_mod.GenFormat("stem", True, True, True, True)
    monkeypatch.setitem(schema_mod.FORMATS, "stem", old_fmt)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    old = SearchIndex(root)
    docs = [sturn("p1", "s1", "the bug is in auth.py near the login handler"),
            sturn("p2", "s1", "auth and py are far apart, py then auth", 1)]
    old.add(docs)
    old.close()
    monkeypatch.undo()
    schema_mod._SCHEMAS.clear()
    gen = live_gen(root, "turns")
    fields = {f["name"]: f for f in json.loads((gen / "meta.json").read_text())["schema"]}
    assert fields["text"]["options"]["indexing"]["record"] == "position" and "pairs" not in fields
    ix = SearchIndex(root)
    try:
        ix.add([fact("f1", "auth.py holds the login handler")])  # a new facts generation: pairs
        assert set(ids(ix.search("auth.py", kinds=("fact", "turn")))) == {oid("p1"), oid("f1")}
        assert ix.search("py.auth", kinds=("fact", "turn")) == []
        ix.add([sturn("p3", "s1", "auth.py again", 2)])
        assert set(ids(ix.search("auth.py", kinds=("turn",)))) == {oid("p1"), oid("p3")}
        ix.purge_turn_shards({ix.shard_of("s1")}, docs + [sturn("p3", "s1", "auth.py again", 2)])
        bodies = {d.id: d.text for d in docs} | {oid("p3"): "auth.py again"}
        assert set(ids(ix.search("auth.py", kinds=("turn",), texts=lambda o: {k: bodies[k] for k in o}))) == {
            oid("p1"), oid("p3")}
    finally:
        ix.close()
    fields = {f["name"]: f for f in json.loads((live_gen(root, "turns") / "meta.json").read_text())["schema"]}
    # the new turns format: no positions, and no pairs either (session 7: the hits' text is checked),
    # no term frequencies (session 25): the purge rewrote the only shard
    assert fields["text"]["options"]["indexing"]["record"] == "basic" and "pairs" not in fields


# --------------------------------------------------------------------------
# mem_simple_stem (session 7): tantivy's simple tokenizer instead of the regex

# characters the two tokenizers may disagree on (CJK, circled letters, combining marks that
# are and are not alphabetic, an emoji variation selector), beside ordinary ones
_SIMPLE_ALPHABET = st.sampled_from(list("abcXY09_-. \n\tßéÉǅΣσς日本語한국어カナⒶⓑ")
                                   + ["\u0301", "\u094d", "\u093f", "\u0928", "\u05b7", "\u05d0", "\ufe0f",
                                      "\u20e3", "\U0001f170", "\u0e48", "\u0e01", "\U00020001", "\U0001f680"])


@settings(max_examples=300, deadline=None)
@given(st.text(_SIMPLE_ALPHABET, max_size=40))
def test_simple_analyzer_cuts_as_the_regex_but_at_non_alphabetic_marks(text: str) -> None:
    """The terms ``mem_simple_stem`` gives a body (before stemming) are its
    ``mem_words`` tokens, each cut as :func:`simple_tokens` cuts it (a
    token it holds nothing of, e.g. a lone mark, gives none): what the
    query side of a ``simple`` generation relies on (docs/format.md,
    "Analyzers")."""
    from objstore.index.analysis import _ANALYZER_LOCK, _analyzer, nfc, simple_text, simple_tokens
    toks = tokenize(text)
    with _ANALYZER_LOCK:
        got = list(_analyzer("simple").analyze(simple_text(nfc(text))))
        cut = {t: list(_analyzer("simple").analyze(simple_text(t))) for t in toks}
    assert got == [p for t in toks for p in cut[t]]
    assert all(simple_tokens(t) == (tuple(ps) or (t,)) for t, ps in cut.items())


def test_simple_text_and_simple_tokens() -> None:
    from objstore.index.analysis import simple_text, simple_tokens
    assert simple_text("plain ascii, untouched") == "plain ascii, untouched"
    assert simple_text("café au lait") == "café au lait"  # nothing special: the same string
    assert simple_text("日本語 Ⓐb") == " 日  本  語   b"
    assert simple_tokens("हिन्दी") == ("हिन", "दी") and simple_tokens("日") == ("日",)
    assert simple_tokens("auth") == ("auth",) and simple_tokens("⼀") == ("⼀",)  # a radical: no term


def test_new_generations_use_the_simple_analyzer_and_old_ones_keep_the_regex(root: Path, monkeypatch) -> None:
    """A generation of the session-6 format (``mem_stem``, the regex) and a
    new one (``mem_simple_stem``) side by side: each is searched with its
    own cut of the query words, also where the two differ (a virama), and
    ``term_doc_freq``/``term_stats`` count both; a purge rewrites the old
    one in the new format."""
    from objstore.index import schema as schema_mod
    old_fmt = schema_mod.GenFormat("stem", True, True, True, True, positions=False, has_pairs=True)
    monkeypatch.setitem(schema_mod.FORMATS, "stem", old_fmt)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    old = SearchIndex(root)
    old.add([sturn("h1", "s1", "हिन्दी भाषा and auth.py"), sturn("c1", "s1", "これは日本語です", 1)])
    old.close()
    monkeypatch.undo()
    schema_mod._SCHEMAS.clear()
    tok = {f["name"]: f for f in json.loads((live_gen(root, "turns") / "meta.json").read_text())["schema"]}
    assert tok["text"]["options"]["indexing"]["tokenizer"] == "mem_stem"
    ix = SearchIndex(root)
    try:
        ix.add([fact("h2", "हिन्दी notes about auth.py"), fact("c2", "日本語の文書")])
        fields = {f["name"]: f for f in json.loads((live_gen(root, "facts") / "meta.json").read_text())["schema"]}
        assert fields["text"]["options"]["indexing"]["tokenizer"] == "mem_simple_stem_k_g"
        both = ("fact", "turn")
        assert set(ids(ix.search("हिन्दी", kinds=both))) == {oid("h1"), oid("h2")}
        assert set(ids(ix.search("auth.py", kinds=both))) == {oid("h1"), oid("h2")}
        assert set(ids(ix.search("日本語", kinds=both))) == {oid("c1"), oid("c2")}
        bodies = {oid("h1"): "हिन्दी भाषा and auth.py", oid("c1"): "これは日本語です", oid("c2"): "日本語の文書"}
        assert ix.search("本日", kinds=both, texts=lambda o: {k: bodies[k] for k in o if k in bodies}) == []
        assert ix.term_doc_freq("हिन्दी zzzq") == {"हिन्दी": 2 + 1, "zzzq": 0}  # old: 1; new: 1 per piece
        assert ix.term_stats(["हिन्दी", "日"], kinds=both) == (4, {"हिन्दी": 2, "日": 2})
        ix.purge_turn_shards({ix.shard_of("s1")}, [sturn("h1", "s1", "हिन्दी भाषा and auth.py")])
        assert set(ids(ix.search("हिन्दी", kinds=both))) == {oid("h1"), oid("h2")}
    finally:
        ix.close()
    tok = {f["name"]: f for f in json.loads((live_gen(root, "turns") / "meta.json").read_text())["schema"]}
    assert tok["text"]["options"]["indexing"]["tokenizer"] == "mem_simple_stem_c_g"


_GLUE_PIECES = st.sampled_from(list("authpyAUTHPY.._-/ \n\téÉ日本") + ["\u0301", "\x1b[1m", "ß", "ǅ"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_GLUE_PIECES, max_size=30).map("".join), st.sampled_from(["auth.py", "AUTH-PY", "a.p", "py/auth", "café.py", "日本"]))
def test_glued_in_is_the_pairs_test(text: str, word: str) -> None:
    """``glued_in`` (regexes first) answers as ``text_pairs`` does: what the
    turns' glued check relies on to score as the ``pairs`` field did."""
    from objstore.index.analysis import glued_in, text_pairs, word_pairs
    p = word_pairs(word)
    assert glued_in(text, p) == text_pairs(text).issuperset(p)


def test_the_glued_check_keeps_a_hit_of_the_joined_term(ix: SearchIndex) -> None:
    """fresh7 F1: ``re-index`` also finds ``reindex`` (its joined term, as
    ``docs/format.md`` "Queries" says) in turns as in facts; the glued check
    of a turns generation without ``pairs`` kept only glued hits, so a turn
    holding ``reindex`` (or ``reindexed``: the same stem) was dropped."""
    docs = {"joined": "we reindex nightly with the authpy tool", "stemmed": "the shards were reindexed",
            "glued": "fix auth.py then re-index", "apart": "note: auth py and re index separately"}
    ix.add([turn(k, v) for k, v in docs.items()])
    by_id = {oid(k): v for k, v in docs.items()}

    def texts(oids: list[str]) -> dict[str, str]:
        return {o: by_id[o] for o in oids}

    assert set(ids(ix.search("re-index", texts=texts))) == {oid("joined"), oid("stemmed"), oid("glued")}
    assert set(ids(ix.search("auth.py", texts=texts))) == {oid("joined"), oid("glued")}
    assert oid("apart") not in ids(ix.search("re-index auth.py", texts=texts))


def test_a_word_with_a_token_too_long_to_index_finds_nothing(ix: SearchIndex) -> None:
    """fresh7 F6: ``<70 q>.py`` was searched as ``py`` (the long token is
    dropped by the analyzer), so it found every text holding ``py``."""
    ix.add([turn("glued", "fix auth.py then re-index"), fact("user/py", "we use py everywhere")])
    long_word = "q" * 70 + ".py"
    assert ix.search(long_word, texts=lambda o: {k: "fix auth.py" for k in o}) == []
    assert ix.search(long_word) == []
    assert ids(ix.search(long_word + " auth.py", texts=lambda o: {k: "fix auth.py then re-index" for k in o})) \
        == [oid("glued")]
    assert ix.search("py")  # the short word still finds them


def test_a_bulk_stream_writes_one_shard_at_a_time_in_the_background(root: Path, monkeypatch) -> None:
    """A many-shard import's batch committed in the background (the caller
    reads on) is written by one writer at a time, in the stream's own
    thread: each writer at work holds its heap, its part of the batch and
    its merges.  A commit the caller waits for uses COMMIT_THREADS."""
    import threading

    from objstore.index.generations import SubIndex
    from objstore.index.stream import COMMIT_THREADS

    threads: list[str] = []
    real = SubIndex.new_writer

    def new_writer(self, index, heap=15_000_000):
        threads.append(threading.current_thread().name)
        return real(self, index, heap)
    monkeypatch.setattr(SubIndex, "new_writer", new_writer)
    ix = SearchIndex(root)
    with ix.stream(fresh=True, expected_docs=1_000_000) as st:  # 16 shards: batches, not open writers
        for i in range(40):
            st.add(sturn(f"b{i}", f"s{i}", f"background {i}"))
        st.commit(wait=False)
        st.wait()
        background, threads[:] = list(threads), []
        for i in range(40, 80):
            st.add(sturn(f"b{i}", f"s{i}", f"background {i}"))
        st.commit()
    assert ix.turn_shard_count() == 16 and len(ix.search("background", limit=100)) == 80
    assert len(background) >= 8 and set(background) == {"mem-index"}
    assert len(threads) >= 8 and len(set(threads)) == COMMIT_THREADS and "mem-index" not in threads
