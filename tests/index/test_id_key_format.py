"""The generation format of session 8: ``id`` indexed as a 16-byte key
(``schema.id_key``), the whole id stored in ``oid``, fieldnorms on
``text`` only (``docs/format.md``, "Search index: schema"), the facts'
format still; the turns' since session 12 (``fast_oid``): a 12-byte key
and the id in four fast u64 columns, nothing of it stored; since session
13 (``short_key``) a 10-byte key; since session 18 (``col_id``) no
``id`` field: the columns answer lookups, deletes and the forget's proof
(``schema.id_query``, ``genfiles.held_ids``).  Older
generations (the whole id indexed and stored in ``id``, every text field
with fieldnorms) are read, written and purged as they are."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import tantivy

from objstore.index import schema as schema_mod
from objstore.index.errors import IndexCorruptError
from objstore.index.genfiles import held_ids
from objstore.index.generations import verify_generation
from objstore.index.schema import (
    FAST_ID_KEY_BYTES,
    ID_KEY_BYTES,
    OID_COLUMNS,
    SHORT_ID_KEY_BYTES,
    IndexDoc,
    id_key,
    read_format,
)
from objstore.index.searchindex import SearchIndex


def oid(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def sturn(seed: str, session: str, text: str, seq: int = 0, ident: str | None = None) -> IndexDoc:
    return IndexDoc(ident or oid(seed), "turn", session, 1_700_000_000_000 + seq, "x", "user", text, seq)


def live_gen(root: Path, sub: str) -> Path:
    """The live generation of a sub-index holding one non-empty shard (``CURRENT``:
    ``gen-<n>``, or ``shards <N>`` and N lines ``gen-<n>`` | ``-``)."""
    lines = (root / sub / "CURRENT").read_text().split("\n")[:-1]
    gens = [g for g in lines[1:] if g != "-"] if lines[0].startswith("shards ") else lines
    assert len(gens) == 1, gens
    return root / sub / gens[0]


def schema_fields(gen: Path) -> dict[str, dict]:
    return {f["name"]: f for f in json.loads((gen / "meta.json").read_text())["schema"]}


def with_norms(fields: dict[str, dict]) -> set[str]:
    out = set()
    for name, f in fields.items():
        opts = f["options"]
        idx = opts.get("indexing")
        if (idx.get("fieldnorms") if isinstance(idx, dict) else opts.get("fieldnorms")):
            out.add(name)
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "store" / "index"


def test_id_key_is_a_16_byte_hash_that_tells_test_ids_apart() -> None:
    a, b = "0" * 63 + "1", "0" * 63 + "2"   # equal in their first 31 bytes
    assert len(id_key(a)) == ID_KEY_BYTES == 16
    assert id_key(a) == hashlib.blake2b(bytes.fromhex(a), digest_size=16).digest()
    assert id_key(a) != id_key(b)
    assert id_key(a, FAST_ID_KEY_BYTES) == hashlib.blake2b(bytes.fromhex(a), digest_size=12).digest()
    assert id_key(a, FAST_ID_KEY_BYTES) != id_key(a)[:FAST_ID_KEY_BYTES] and FAST_ID_KEY_BYTES == 12
    assert id_key(a, SHORT_ID_KEY_BYTES) == hashlib.blake2b(bytes.fromhex(a), digest_size=10).digest()
    assert id_key(a, SHORT_ID_KEY_BYTES) != id_key(a, FAST_ID_KEY_BYTES)[:10] and SHORT_ID_KEY_BYTES == 10
    assert id_key(a, SHORT_ID_KEY_BYTES) != id_key(b, SHORT_ID_KEY_BYTES)


def test_new_generation_schema_and_round_trip(root: Path) -> None:
    """A new turns generation: no ``id`` field, the whole id in four fast
    u64 columns and stored nowhere, fieldnorms on ``text`` alone; hits
    carry the whole id (every read path); deleting one id keeps an id equal
    to it in all but its last byte, and leaves the deleted one held (its
    columns are still in the segment) until a merge.  A new facts
    generation keeps the stored ``oid`` and the 16-byte key."""
    a, b = "0" * 63 + "1", "f" * 62 + "e0"   # b: every column above 2**63
    ix = SearchIndex(root)
    try:
        ix.add([sturn("", "s1", "alpha bravo report", 0, ident=a), sturn("", "s1", "alpha charlie", 1, ident=b)])
        gen = live_gen(root, "turns")
        fields = schema_fields(gen)
        assert "id" not in fields and "oid" not in fields
        for c in OID_COLUMNS:
            assert fields[c]["type"] == "u64" and fields[c]["options"]["fast"]
            assert not fields[c]["options"]["stored"] and not fields[c]["options"]["indexed"]
        assert not any(f["options"].get("stored") for n, f in fields.items() if n not in ("kind", "ref", "project", "role"))
        assert with_norms(fields) == {"text"}
        assert fields["text"]["options"]["indexing"]["tokenizer"] == "mem_simple_stem_c_g"  # older mem: unknown
        assert not fields["time"]["options"]["stored"] and fields["time"]["options"]["fast"]
        assert not fields["seq"]["options"]["stored"] and fields["seq"]["options"]["fast"]
        fmt = read_format(gen)
        assert fmt.id_key_field and fmt.id_bytes and fmt.text_norms_only and fmt.fast_time_seq and fmt.fast_oid
        assert fmt.short_key and fmt.plain_vocab and fmt.col_id
        assert {h.id for h in ix.search("alpha")} == {a, b}
        # time and seq come back from the fast fields, in every read path
        assert {(h.id, h.time, h.seq, h.ref) for h in ix.search("alpha")} == {
            (a, 1_700_000_000_000, 0, "s1"), (b, 1_700_000_000_001, 1, "s1")}
        assert {n: (h.id, h.time, h.seq) for n, h in ix.turns_at("s1", [0, 1, 5]).items()} == {
            0: (a, 1_700_000_000_000, 0), 1: (b, 1_700_000_000_001, 1)}
        assert ix.missing_turns({"s1": b}) == set()
        ix.add([], delete_ids=[a])
        assert [h.id for h in ix.search("alpha")] == [b]
        assert ix.missing_turns({"s1": b}) == set()
        assert ix.substring_candidates("charlie") == {b}
        assert ix.turn_ids_of("s1") == {b}
        # tantivy itself: no id term at all; the deleted document's columns still hold a (held_ids reads
        # every doc id, deleted ones too), an id differing from b in its last byte is held by none
        gen = live_gen(root, "turns")
        sr = tantivy.Index.open(str(gen)).searcher()
        with pytest.raises(ValueError):
            sr.doc_freq("id", id_key(b, 10))
        assert sr.num_docs == 1
        assert held_ids(sr, fmt, [a, b, b[:-1] + "1", "0" * 64], gen) == {a, b}
        ix.add([IndexDoc(oid("f1"), "fact", "project/x/f1", 1, "x", "note", "alpha fact")])
        facts = live_gen(root, "facts")
        fields = schema_fields(facts)
        assert fields["oid"]["type"] == "bytes" and fields["oid"]["options"]["stored"]
        assert not fields["oid"]["options"]["indexed"] and OID_COLUMNS[0] not in fields
        assert fields["text"]["options"]["indexing"]["tokenizer"] == "mem_simple_stem_k_g"
        assert not read_format(facts).fast_oid and not read_format(facts).short_key
        assert {h.id for h in ix.search("alpha", kinds=("fact", "turn"))} == {b, oid("f1")}
        sr = tantivy.Index.open(str(facts)).searcher()
        assert sr.doc_freq("id", id_key(oid("f1"))) == 1
    finally:
        ix.close()
    assert verify_generation(live_gen(root, "turns")) == []
    assert verify_generation(live_gen(root, "facts")) == []


def test_an_older_generation_is_read_written_and_purged_as_it_is(root: Path, monkeypatch) -> None:
    """A generation of the session-7 format (the whole id indexed and stored
    in ``id``, fieldnorms on every text field) beside a new facts
    generation: both searched, the old one deleted from by its ids; a purge
    of its shard rewrites it in the new format."""
    old_fmt = schema_mod.GenFormat("stem", True, True, True, True, positions=False, simple=True)
    monkeypatch.setitem(schema_mod.FORMATS, "stem", old_fmt.replace(has_pairs=True))
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    old = SearchIndex(root)
    docs = [sturn("o1", "s1", "delta echo one"), sturn("o2", "s1", "delta echo two", 1)]
    old.add(docs)
    old.close()
    monkeypatch.undo()
    schema_mod._SCHEMAS.clear()
    gen = live_gen(root, "turns")
    fields = schema_fields(gen)
    assert "oid" not in fields and fields["id"]["options"]["stored"] and "kind" in with_norms(fields)
    assert not read_format(gen).id_key_field
    ix = SearchIndex(root)
    try:
        ix.add([IndexDoc(oid("f1"), "fact", "project/x/f1", 1, "x", "note", "delta fact")])
        assert read_format(live_gen(root, "facts")).id_key_field
        assert {h.id for h in ix.search("delta", kinds=("fact", "turn"))} == {oid("o1"), oid("o2"), oid("f1")}
        assert {(h.id, h.time, h.seq) for h in ix.search("delta", kinds=("turn",))} == {
            (oid("o1"), 1_700_000_000_000, 0), (oid("o2"), 1_700_000_000_001, 1)}  # stored, as before
        ix.add([sturn("o3", "s1", "delta three", 2)], delete_ids=[oid("o1")])
        assert {h.id for h in ix.search("delta", kinds=("turn",))} == {oid("o2"), oid("o3")}
        assert ix.missing_turns({"s1": oid("o3")}) == set()
        assert not read_format(live_gen(root, "turns")).id_key_field   # written to as it is
        ix.purge_turn_shards({ix.shard_of("s1")}, [docs[1], sturn("o3", "s1", "delta three", 2)])
        assert read_format(live_gen(root, "turns")).id_key_field        # rewritten in the new format
        assert {h.id for h in ix.search("delta", kinds=("turn",))} == {oid("o2"), oid("o3")}
        assert ix.verify_purged([oid("o1")]) == []
    finally:
        ix.close()


def test_a_malformed_oid_field_is_reported(root: Path) -> None:
    """``read_format`` (and so ``verify_generation``, which ``mem fsck``
    runs) refuses a schema whose ``oid`` is not a stored bytes field (a
    facts generation: the turns' have no ``oid``)."""
    ix = SearchIndex(root)
    try:
        ix.add([IndexDoc(oid("m1"), "fact", "project/x/m1", 1, "x", "note", "golf hotel")])
    finally:
        ix.close()
    gen = live_gen(root, "facts")
    meta = json.loads((gen / "meta.json").read_text())
    for f in meta["schema"]:
        if f["name"] == "oid":
            f["options"]["stored"] = False
    (gen / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexCorruptError, match="oid"):
        read_format(gen)
    problems = verify_generation(gen)
    assert len(problems) == 1 and "oid" in problems[0]


def test_an_oid_field_goes_with_the_keyed_tokenizer_only(root: Path) -> None:
    """The text tokenizer name marks the keyed format: an ``oid`` field under
    ``mem_simple_stem`` (or ``mem_simple_stem_k`` without ``oid``) is a
    damaged schema."""
    ix = SearchIndex(root)
    try:
        ix.add([IndexDoc(oid("m1"), "fact", "project/x/m1", 1, "x", "note", "golf hotel")])
    finally:
        ix.close()
    gen = live_gen(root, "facts")
    text = (gen / "meta.json").read_text()
    assert '"mem_simple_stem_k_g"' in text
    (gen / "meta.json").write_text(text.replace('"mem_simple_stem_k_g"', '"mem_simple_stem_g"'))
    with pytest.raises(IndexCorruptError, match="oid"):
        read_format(gen)
    assert verify_generation(gen)


def test_the_id_columns_go_with_their_tokenizer_and_are_fast_u64(root: Path) -> None:
    """A turns generation's ``oid0``..``oid3`` columns are read only under
    ``mem_simple_stem_f``, ``_t``, ``_d``, ``_v`` beside an indexed ``id``
    or ``_c`` without one (a mem of session 11 knows none of them and
    reports the generation as damaged instead of reading no id; one of
    session 17 knows no ``_c``, and would look its ids up by a term that
    is not there); an older name without the ``id`` field, ``_c`` with one,
    ``mem_simple_stem_s``, or a column that is not a fast u64, or missing:
    the schema is damaged (``mem fsck`` names it)."""
    ix = SearchIndex(root)
    try:
        ix.add([sturn("m1", "s1", "golf hotel")])
    finally:
        ix.close()
    gen = live_gen(root, "turns")
    text = (gen / "meta.json").read_text()
    assert read_format(gen).fast_oid and read_format(gen).short_key and read_format(gen).col_id
    for older in ("f", "t", "d", "v"):   # the columns without an id: no tokenizer but _c's
        (gen / "meta.json").write_text(text.replace('"mem_simple_stem_c_g"', f'"mem_simple_stem_{older}_g"'))
        with pytest.raises(IndexCorruptError, match="oid0"):
            read_format(gen)
    meta = json.loads(text)
    meta["schema"].append({"name": "id", "type": "bytes", "options": {"indexed": True, "stored": False,
                                                                       "fast": False, "fieldnorms": False}})
    (gen / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexCorruptError, match="mem_simple_stem_c"):
        read_format(gen)
    (gen / "meta.json").write_text(text.replace('"mem_simple_stem_c_g"', '"mem_simple_stem_s_g"'))
    with pytest.raises(IndexCorruptError, match="oid0"):
        read_format(gen)
    assert verify_generation(gen)
    for damage in ("not fast", "missing"):
        meta = json.loads(text)
        if damage == "missing":
            meta["schema"] = [f for f in meta["schema"] if f["name"] != "oid3"]
        else:
            next(f for f in meta["schema"] if f["name"] == "oid2")["options"]["fast"] = False
        (gen / "meta.json").write_text(json.dumps(meta))
        with pytest.raises(IndexCorruptError, match="oid"):
            read_format(gen)
        problems = verify_generation(gen)
        assert len(problems) == 1 and "oid" in problems[0]
    (gen / "meta.json").write_text(text)
    assert verify_generation(gen) == []


def test_search_answers_the_same_in_the_session_11_format(tmp_path: Path, monkeypatch) -> None:
    """The same turns indexed in the session-11 format (stored ``oid``,
    16-byte key), in the session-12 one (``fast_oid``, 12-byte key) and
    in the session-13 one (``short_key``, 10-byte key) and in the
    session-16 one (``plain_diff``) answer every
    read the same (the session-18 one, ``col_id``, as the session-17 one): hits (id, score, time, seq, ref, project, role, in
    order), a session's turns by seq, the substring prefilter, the turn ids
    of a session, missing turns; and a delete removes the same turn.  The
    session-17 one (``plain_vocab``) too, but that its prefilter may name
    more documents (those holding the stem of a word it matches)."""
    rng = __import__("random").Random(5)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "running", "runs", "the", "function", "error",
             "timeout", "auth.py", "visionkit", "日本語", "naïve"]
    docs = [IndexDoc(oid(f"d{i}"), "turn", f"s{i % 7}", 1_700_000_000_000 + i * 13, f"p{i % 3}",
                     ("user", "assistant", "tool")[i % 3], " ".join(rng.choice(words) for _ in range(rng.randint(1, 30))),
                     i // 7)
            for i in range(300)]

    def answers(root: Path) -> list:
        ix = SearchIndex(root)
        try:
            ix.add(docs)
            out = [[(h.id, h.score, h.time, h.seq, h.ref, h.project, h.role) for h in ix.search(q, limit=60)]
                   for q in ("alpha", "run", "the function", "auth.py", "日本語", "naive error", "zzz")]
            out.append({n: h.id for n, h in ix.turns_at("s3", [0, 1, 2, 40]).items()})
            out.append([ix.substring_candidates(n) for n in ("unctio", "unnin", "visionkit", "日本")])
            out.append(ix.turn_ids_of("s2"))
            out.append(ix.missing_turns({"s1": docs[1].id, "s9": oid("nowhere")}))
            ix.add([], delete_ids=[docs[8].id])
            out.append([h.id for h in ix.search("alpha bravo", limit=300)])
            return out
        finally:
            ix.close()

    colid = answers(tmp_path / "colid" / "index")
    gens = sorted((tmp_path / "colid" / "index" / "turns").glob("gen-*"))
    assert len(gens) > 1 and all(read_format(g).col_id for g in gens)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(col_id=False))
    vocab = answers(tmp_path / "vocab" / "index")
    gens = sorted((tmp_path / "vocab" / "index" / "turns").glob("gen-*"))
    assert len(gens) > 1 and all(read_format(g).plain_vocab and not read_format(g).col_id for g in gens)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(plain_vocab=False))
    new = answers(tmp_path / "new" / "index")
    gens = sorted((tmp_path / "new" / "index" / "turns").glob("gen-*"))
    assert len(gens) > 1 and all(read_format(g).short_key and read_format(g).plain_diff
                                 and not read_format(g).plain_vocab for g in gens)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(plain_diff=False))
    s13 = answers(tmp_path / "s13" / "index")
    gens = sorted((tmp_path / "s13" / "index" / "turns").glob("gen-*"))
    assert len(gens) > 1 and all(read_format(g).short_key and not read_format(g).plain_diff for g in gens)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(short_key=False, plain_diff=False))
    s12 = answers(tmp_path / "s12" / "index")
    gens = sorted((tmp_path / "s12" / "index" / "turns").glob("gen-*"))
    assert len(gens) > 1 and all(read_format(g).fast_oid and not read_format(g).short_key for g in gens)
    old_fmt = schema_mod.FORMATS["stem"].replace(fast_oid=False, short_key=False, plain_diff=False)
    monkeypatch.setitem(schema_mod.FORMATS, "stem", old_fmt)
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    old = answers(tmp_path / "old" / "index")
    gens = sorted((tmp_path / "old" / "index" / "turns").glob("gen-*"))
    assert len(gens) > 1 and not any(read_format(g).fast_oid for g in gens)
    assert old == new and s12 == new and s13 == new and colid == vocab
    assert vocab[:8] == new[:8] and vocab[9:] == new[9:]
    assert all(v >= n for v, n in zip(vocab[8], new[8])) and vocab[8] != new[8]   # "unnin": also "runs"
    assert all(new[:5]) and docs[8].id not in new[-1]


def index_in_format(root: Path, monkeypatch, docs: list[IndexDoc], **older) -> Path:
    """Index ``docs`` in a new store under ``root`` in the turns' format of
    today with the flags ``older`` (e.g. ``col_id=False``), as an older mem
    wrote it; the formats back as they were; the live turns generation."""
    monkeypatch.setitem(schema_mod.FORMATS, "stem", schema_mod.FORMATS["stem"].replace(**older))
    monkeypatch.setattr(schema_mod, "_SCHEMAS", {})
    old = SearchIndex(root)
    old.add(docs)
    old.close()
    monkeypatch.undo()
    schema_mod._SCHEMAS.clear()
    return live_gen(root, "turns")


def test_a_session_12_generation_is_read_written_and_purged_as_it_is(root: Path, monkeypatch) -> None:
    """A turns generation of session 12 (``mem_simple_stem_f``: a 12-byte
    key) is searched, added to and deleted from by its own key; a purge of
    its shard rewrites it with the 10-byte key, and the purged turn's key
    is in neither form afterwards."""
    docs = [sturn("p1", "s1", "kilo lima one"), sturn("p2", "s1", "kilo lima two", 1)]
    gen = index_in_format(root, monkeypatch, docs, short_key=False, plain_diff=False)
    assert read_format(gen).fast_oid and not read_format(gen).short_key
    ix = SearchIndex(root)
    try:
        ix.add([sturn("p3", "s1", "kilo three", 2)], delete_ids=[oid("p1")])
        gen = live_gen(root, "turns")
        assert not read_format(gen).short_key                          # written to as it is
        sr = tantivy.Index.open(str(gen)).searcher()
        assert sr.doc_freq("id", id_key(oid("p3"), 12)) == 1 and sr.doc_freq("id", id_key(oid("p3"), 10)) == 0
        assert {h.id for h in ix.search("kilo")} == {oid("p2"), oid("p3")}
        assert ix.missing_turns({"s1": oid("p3")}) == set()
        ix.purge_turn_shards({ix.shard_of("s1")}, [docs[1]])
        gen = live_gen(root, "turns")
        assert read_format(gen).col_id                                 # rewritten in the new format
        assert {h.id for h in ix.search("kilo")} == {oid("p2")}
        sr = tantivy.Index.open(str(gen)).searcher()
        assert held_ids(sr, read_format(gen), [oid(s) for s in ("p1", "p2", "p3")], gen) == {oid("p2")}
        assert ix.verify_purged([oid("p1"), oid("p3")]) == []
    finally:
        ix.close()
    assert verify_generation(live_gen(root, "turns")) == []


def test_a_session_17_generation_is_read_written_and_purged_as_it_is(root: Path, monkeypatch) -> None:
    """A turns generation of session 17 (``mem_simple_stem_v``: a 10-byte
    ``id`` term beside the columns), as base 508e10d writes it, is searched,
    added to and deleted from by its own term; a purge of its shard
    rewrites it without the ``id`` field (``col_id``), and neither the
    purged turn's term nor its columns are left."""
    docs = [sturn("q1", "s1", "mike oscar one"), sturn("q2", "s1", "mike oscar two", 1)]
    gen = index_in_format(root, monkeypatch, docs, col_id=False)
    assert read_format(gen).plain_vocab and not read_format(gen).col_id
    ix = SearchIndex(root)
    try:
        ix.add([sturn("q3", "s1", "mike three", 2)], delete_ids=[oid("q1")])
        gen = live_gen(root, "turns")
        fmt = read_format(gen)
        assert not fmt.col_id                                          # written to as it is
        sr = tantivy.Index.open(str(gen)).searcher()
        assert sr.doc_freq("id", id_key(oid("q3"), 10)) == 1 and sr.doc_freq("id", id_key(oid("q1"), 10)) == 1
        assert held_ids(sr, fmt, [oid("q1"), oid("q3"), oid("zz")], gen) == {oid("q1"), oid("q3")}
        assert {h.id for h in ix.search("mike")} == {oid("q2"), oid("q3")}
        assert ix.missing_turns({"s1": oid("q3")}) == set()
        assert ix.verify_purged([oid("q1")])                           # its deleted copy is still there
        ix.purge_turn_shards({ix.shard_of("s1")}, [docs[1]])
        gen = live_gen(root, "turns")
        assert read_format(gen).col_id                                 # rewritten in the new format
        assert "id" not in schema_fields(gen)
        assert {h.id for h in ix.search("mike")} == {oid("q2")}
        sr = tantivy.Index.open(str(gen)).searcher()
        assert held_ids(sr, read_format(gen), [oid(s) for s in ("q1", "q2", "q3")], gen) == {oid("q2")}
        assert ix.verify_purged([oid("q1"), oid("q3")]) == []
    finally:
        ix.close()
    assert verify_generation(live_gen(root, "turns")) == []


def _column_copies(gen: Path, ident: str) -> int:
    """How many documents of generation ``gen``, deleted ones included, hold
    object id ``ident`` in their ``oid0``..``oid3`` columns (every doc id
    below each segment's ``max_doc``)."""
    sr = tantivy.Index.open(str(gen)).searcher()
    segs = json.loads((gen / "meta.json").read_text())["segments"]
    addrs = [tantivy.DocAddress(o, d) for o, seg in enumerate(segs) for d in range(seg["max_doc"])]
    cols = [sr.fast_field_values(c, addrs) for c in OID_COLUMNS]
    return sum(1 for parts in zip(*cols) if None not in parts
               and b"".join(v.to_bytes(8, "big") for v in parts).hex() == ident)


def test_the_proof_finds_a_deleted_copy_in_a_segment_no_search_reaches(root: Path) -> None:
    """A turn indexed, then indexed again (its first document deleted, a
    new one added in a later segment): no search finds the deleted copy,
    but :func:`held_ids` does (the columns keep it until a merge), so
    ``verify_purged`` reports it; the forget's purge then leaves no copy,
    live or deleted, in any generation's columns.  (A proof by live
    documents alone finds nothing to purge here and leaves the deleted
    copy: checked by making :func:`held_ids` search.)"""
    victim = sturn("x1", "s1", "xylophonesecret carried once")
    others = [sturn(f"o{i}", "s1", f"ordinary words {i}", i + 1) for i in range(6)]
    ix = SearchIndex(root, shards=1)
    try:
        ix.add([victim, *others[:3]])
        ix.add(others[3:])
        ix.add([victim])                       # re-indexed: the first copy deleted, not merged away
        gen = live_gen(root, "turns")
        fmt = read_format(gen)
        assert fmt.col_id
        assert _column_copies(gen, victim.id) == 2
        sr = tantivy.Index.open(str(gen)).searcher()
        assert len(sr.search(schema_mod.id_query(sr_schema := tantivy.Index.open(str(gen)).schema, fmt, victim.id),
                             5).hits) == 1
        assert held_ids(sr, fmt, [victim.id, oid("nowhere")], gen) == {victim.id}
        ix.add([], delete_ids=[victim.id])     # a forget's delete: both copies deleted, still in the files
        gen = live_gen(root, "turns")
        sr = tantivy.Index.open(str(gen)).searcher()
        assert not sr.search(schema_mod.id_query(sr_schema, fmt, victim.id), 5).hits
        assert _column_copies(gen, victim.id) == 1   # (the segment of the live copy went whole)
        assert held_ids(sr, fmt, [victim.id], gen) == {victim.id}
        assert any("held" in p for p in ix.verify_purged([victim.id]))
        todo = ix.purge_turns({victim.id}, load=lambda ids: [d for d in others if d.id in set(ids)])
        if todo:
            ix.purge_turn_shards(todo, others)
        assert ix.verify_purged([victim.id]) == []
        assert sorted(h.id for h in ix.search("ordinary", limit=20)) == sorted(d.id for d in others)
    finally:
        ix.close()
    gens = [g for g in (root / "turns").glob("gen-*") if (g / "meta.json").exists()]
    assert gens and all(_column_copies(g, victim.id) == 0 for g in gens)
