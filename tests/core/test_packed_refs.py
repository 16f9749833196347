"""Packed session and fact refs (``refs/packed-sessions``,
``refs/packed-facts``, docs/format.md "Refs"): a bulk move writes one file,
a single move unpacks the ref, nothing is left naming an old id, a bad line
is ignored, reported and repaired."""

from __future__ import annotations

import os

import pytest

from objstore.core.errors import RefConflict
from objstore.core.reflog import PACKED_FACTS as REFLOG_PACKED_FACTS
from objstore.core.reflog import PACKED_SESSIONS as REFLOG_PACKED
from objstore.core.refs import PACKED_FACTS, PACKED_SESSIONS, Refs, escape_name

A, B, C = "a" * 64, "b" * 64, "c" * 64


@pytest.fixture
def refs(tmp_path):
    return Refs(tmp_path / "refs")


def _loose(refs: Refs) -> list[str]:
    d = refs.root / "sessions"
    return sorted(os.listdir(d)) if d.is_dir() else []


def test_a_bulk_move_packs_and_readers_see_it(refs):
    syncs = []
    refs.set_many_if_equals([("sessions/s1", None, A), ("sessions/Ab c", None, B)], lambda: syncs.append(1))
    assert _loose(refs) == [] and syncs
    text = (refs.root / PACKED_SESSIONS).read_text()
    assert text == f"{B} %41b c\n{A} s1\n"      # sorted by escaped name, the file name's escaping
    assert refs.read("sessions/s1") == A and refs.read("sessions/Ab c") == B
    assert list(refs.iter("sessions")) == [("sessions/Ab c", B), ("sessions/s1", A)]
    assert refs.count("sessions") == 2
    with pytest.raises(RefConflict):
        refs.set_many_if_equals([("sessions/s1", B, C), ("sessions/s2", None, C)], lambda: None)
    assert refs.read("sessions/s2") is None  # nothing moved
    refs.set_many_if_equals([("sessions/s1", A, C), ("sessions/Ab c", B, None)], lambda: None)
    assert (refs.root / PACKED_SESSIONS).read_text() == f"{C} s1\n"


def test_a_single_move_unpacks_and_leaves_no_old_id(refs):
    refs.set_many_if_equals([("sessions/s1", None, A), ("sessions/s2", None, B)], lambda: None)
    with pytest.raises(RefConflict):
        refs.set_if_equals("sessions/s1", B, C)
    refs.set_if_equals("sessions/s1", A, C)
    assert _loose(refs) == ["s1"] and refs.read("sessions/s1") == C
    assert A not in (refs.root / PACKED_SESSIONS).read_text()
    refs.set_if_equals("sessions/s2", B, None)   # a packed ref deleted: gone for good
    assert refs.read("sessions/s2") is None and not (refs.root / PACKED_SESSIONS).exists()
    assert list(refs.iter("sessions")) == [("sessions/s1", C)]
    # a loose ref moved in bulk goes into the file, its loose file goes
    refs.set_many_if_equals([("sessions/s1", C, A), ("sessions/s3", None, B)], lambda: None)
    assert _loose(refs) == [] and refs.read("sessions/s1") == A


def test_iter_gives_what_read_gives_loose_over_packed_and_no_noncanonical_line(refs):
    """``iter`` reads a ref that has no loose file from the parsed packed
    table (no open per ref): the same id ``read`` gives, a loose file still
    winning over its packed line, and a line under a name ``path`` would
    not write (``%73`` for ``s``) naming no ref."""
    refs.set_many_if_equals([("sessions/s1", None, A), ("sessions/Ab c", None, B)], lambda: None)
    p = refs.root / PACKED_SESSIONS
    p.write_text(p.read_text() + f"{C} %73\n")
    (refs.root / "sessions").mkdir(exist_ok=True)
    (refs.root / "sessions" / "s1").write_text(C + "\n")   # a loose file beside its packed line
    listed = list(refs.iter("sessions"))
    assert listed == [("sessions/Ab c", B), ("sessions/s1", C)]
    assert all(refs.read(name) == oid for name, oid in listed) and refs.read("sessions/s") is None


def test_a_bad_line_is_ignored_reported_and_dropped(refs):
    refs.set_many_if_equals([("sessions/s1", None, A), ("sessions/s2", None, B)], lambda: None)
    p = refs.root / PACKED_SESSIONS
    p.write_text(p.read_text().replace(B, "z" * 64) + "junk\n")
    assert refs.read("sessions/s2") is None and refs.read("sessions/s1") == A
    assert list(refs.iter("sessions")) == [("sessions/s1", A)]
    assert len(refs.packed_problems()) == 2
    assert refs.drop_bad_packed() == ["sessions/s2"]
    assert refs.packed_problems() == [] and p.read_text() == f"{A} s1\n"


def test_an_import_packs_its_session_refs_and_fsck_forget_gc_agree(invoke, store_path):
    from pathlib import Path
    sample = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"
    invoke("import", "claude-code", str(sample))
    packed = (store_path / "refs" / PACKED_SESSIONS).read_text()
    sessions = invoke("sessions", "--json").json
    assert len(packed.splitlines()) == len(sessions) >= 2
    assert not (store_path / "refs" / "sessions").exists() or not os.listdir(store_path / "refs" / "sessions")
    assert invoke("fsck").stdout.startswith("ok:")
    sid = sessions[0]["id"]
    head = next(line.split()[0] for line in packed.splitlines() if line.endswith(" " + sid))
    log = store_path / "logs" / REFLOG_PACKED
    assert len(log.read_text().splitlines()) == len(sessions)      # one reflog line per session, one file
    assert not (store_path / "logs" / "refs" / "sessions").exists()
    assert [m["ref"] for m in invoke("reflog", f"sessions/{sid}", "--json").json] == [f"sessions/{sid}"]
    invoke("forget", "--session", sid, "--yes")
    assert head not in (store_path / "refs" / PACKED_SESSIONS).read_text()
    assert head not in log.read_text() and sid not in log.read_text()
    assert sid not in {s["id"] for s in invoke("sessions", "--json").json}
    invoke("gc", "--prune=now")
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_bulk_move_packs_its_session_reflog_lines(store):
    """``logs/packed-sessions`` (docs/format.md "Reflogs"): a bulk move of
    session refs without a reflog file writes their lines into one file; a
    single move then appends to the ref's own file, after its packed lines;
    a drop takes its lines out; gc roots and the full reflog see them."""
    from objstore.porcelain.history import reflog
    store.update_refs([("sessions/s1", None, A), ("sessions/Ab c", None, B), ("facts/user/k", None, C)],
                      "import one", time_ms=5)
    log = store.root / "logs" / REFLOG_PACKED
    assert log.read_text() == f"{'0' * 64} {A} 5 s1\timport one\n{'0' * 64} {B} 5 %41b c\timport one\n"
    assert not (store.root / "logs" / "refs" / "sessions").exists()
    # a fact ref's lines go to logs/packed-facts, named by its file's path under refs/facts/
    assert (store.root / "logs" / REFLOG_PACKED_FACTS).read_text() == f"{'0' * 64} {C} 5 user/k\timport one\n"
    assert not store.reflog.path("facts/user/k").exists()
    assert [(e.new, e.command) for e in store.reflog.read("facts/user/k")] == [(C, "import one")]
    assert [(e.old, e.new, e.time, e.command) for e in store.reflog.read("sessions/Ab c")] == \
        [(None, B, 5, "import one")]
    store.update_ref("sessions/s1", A, C, "hook", time_ms=6)          # a single move: its own file
    store.update_refs([("sessions/s1", C, B), ("sessions/Ab c", B, A)], "import two", time_ms=7)
    assert [e.command for e in store.reflog.read("sessions/s1")] == ["import one", "hook", "import two"]
    assert [e.command for e in store.reflog.read("sessions/Ab c")] == ["import one", "import two"]
    assert {A, B, C} <= set(store.reflog.iter_all_ids())
    assert {(m.ref, m.command) for m in reflog(store)} >= {("sessions/Ab c", "import two"),
                                                          ("sessions/s1", "hook")}
    assert store.reflog.drop("sessions/Ab c") and store.reflog.read("sessions/Ab c") == []
    assert "%41b c" not in log.read_text() and " s1\t" in log.read_text()
    assert store.reflog.drop("sessions/s1") and not log.exists() and store.reflog.read("sessions/s1") == []


def _loose_facts(refs: Refs) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), refs.root / "facts")
                  for d, _dirs, files in os.walk(refs.root / "facts") for f in files)


def test_a_single_move_searches_the_packed_file_and_parses_none(refs):
    """``Refs.set_if_equals`` learns whether its ref is packed by the byte
    search :meth:`Refs.read` uses (lat38: a new process's ``remember``
    parsed every line of ``refs/packed-facts`` for it): a loose ref and a
    ref no line names move without a table built; a packed one still
    leaves the file, and a line cut short or of another name is no match."""
    refs.set_many_if_equals([("facts/user/k", None, A), ("facts/user/xk", None, B)], lambda: None)
    p = refs.root / PACKED_FACTS
    with p.open("ab") as f:
        f.write(f"{C} user/cut".encode())   # a last line without its newline names no ref
    moved = Refs(refs.root)
    moved.set_if_equals("facts/user/new", None, A)     # no line names it
    moved.set_if_equals("facts/user/cut", None, B)     # only the cut line
    moved.set_if_equals("facts/user/new", A, C)        # loose now
    assert moved._packed == {}   # the search answered: the file was never parsed into a table
    moved.set_if_equals("facts/user/k", A, C)          # packed: out of the file, into its loose file
    assert A not in p.read_text() and _loose_facts(moved) == ["user/cut", "user/k", "user/new"]
    assert {r: Refs(refs.root).read(r) for r in ("facts/user/k", "facts/user/xk", "facts/user/new",
                                                  "facts/user/cut")} == {
        "facts/user/k": C, "facts/user/xk": B, "facts/user/new": C, "facts/user/cut": B}


def test_a_bulk_move_of_fact_refs_packs_them(refs):
    """``refs/packed-facts``: the file's path under ``refs/facts/`` names
    each ref (scope folder and escaped name, as the loose file would be);
    readers see the lines, a single move unpacks, a delete leaves no id."""
    refs.set_many_if_equals([("facts/user/k", None, A), ("facts/project/Api x/Db/host", None, B)],
                            lambda: None)
    assert _loose_facts(refs) == []
    assert (refs.root / PACKED_FACTS).read_text() == f"{B} project/%41pi x/%44b%2Fhost\n{A} user/k\n"
    assert refs.read("facts/user/k") == A and refs.read("facts/project/Api x/Db/host") == B
    assert list(refs.iter("facts")) == [("facts/project/Api x/Db/host", B), ("facts/user/k", A)]
    with pytest.raises(RefConflict):
        refs.set_many_if_equals([("facts/user/k", B, C), ("facts/user/j", None, C)], lambda: None)
    assert refs.read("facts/user/j") is None
    refs.set_if_equals("facts/user/k", A, C)                      # a single move: its loose file
    assert _loose_facts(refs) == ["user/k"] and refs.read("facts/user/k") == C
    assert A not in (refs.root / PACKED_FACTS).read_text()
    refs.set_if_equals("facts/project/Api x/Db/host", B, None)    # a packed ref deleted: gone for good
    assert refs.read("facts/project/Api x/Db/host") is None and not (refs.root / PACKED_FACTS).exists()
    assert list(refs.iter("facts")) == [("facts/user/k", C)]
    # a bulk move of refs of two namespaces packs neither
    refs.set_many_if_equals([("facts/user/j", None, A), ("sessions/s1", None, B)], lambda: None)
    assert _loose_facts(refs) == ["user/j", "user/k"] and not (refs.root / PACKED_FACTS).exists()
    # a loose fact ref moved in bulk goes into the file, its loose file (and folder) go
    refs.set_many_if_equals([("facts/user/j", A, B), ("facts/user/k", C, A)], lambda: None)
    assert _loose_facts(refs) == [] and refs.read("facts/user/j") == B and refs.read("facts/user/k") == A


def test_a_bad_packed_fact_line_is_ignored_reported_and_dropped(refs):
    refs.set_many_if_equals([("facts/user/k", None, A), ("facts/global/tz", None, B)], lambda: None)
    p = refs.root / PACKED_FACTS
    # a bad id, three bad paths, and a path no ref has (its 'K' not escaped as '%4B')
    p.write_text(p.read_text().replace(B, "z" * 64) + f"{C} ../x\n{C} user/.k\n{C} nope\n{C} user/K\n")
    assert refs.read("facts/global/tz") is None and refs.read("facts/user/k") == A
    assert refs.read("facts/user/K") is None
    assert list(refs.iter("facts")) == [("facts/user/k", A)]
    problems = refs.packed_problems()
    assert len(problems) == 5 and all(x.startswith("refs/packed-facts line ") for x in problems)
    assert refs.drop_bad_packed() == ["facts/global/tz", "facts/user/K"]
    assert refs.packed_problems() == [] and p.read_text() == f"{A} user/k\n"


def test_an_import_packs_its_summary_refs_and_fsck_forget_gc_agree(invoke, store_path, tmp_path):
    """The import's sub-agent summaries (one bulk move of fact refs) go to
    ``refs/packed-facts`` and their reflog lines to ``logs/packed-facts``;
    forgetting one leaves neither its ids nor its name there."""
    import shutil
    from pathlib import Path
    sample = Path(__file__).resolve().parents[2] / "cmds" / "data" / "sample-projects"
    corpus = tmp_path / "corpus"
    shutil.copytree(sample, corpus)
    agent = next(corpus.rglob("agent-*.jsonl"))
    second = agent.read_text().replace(agent.stem[len("agent-"):], "b0000000000000001")
    agent.with_name("agent-b0000000000000001.jsonl").write_text(second)      # a second sub-agent
    invoke("import", "claude-code", str(corpus))
    packed = (store_path / "refs" / PACKED_FACTS).read_text().splitlines()
    log = store_path / "logs" / REFLOG_PACKED_FACTS
    assert len(packed) == 2 and len(log.read_text().splitlines()) == 2
    assert not (store_path / "logs" / "refs" / "facts").exists() or not any(
        f for _d, _s, f in os.walk(store_path / "logs" / "refs" / "facts"))
    keys = {k["key"]: k["id"] for k in invoke("keys", "--json").json if "/summary/" in k["key"]}
    assert len(keys) == 2
    assert invoke("fsck").stdout.startswith("ok:")
    key = sorted(keys)[0]
    head = keys[key]
    assert head in "".join(packed)
    assert [m["ref"] for m in invoke("reflog", f"facts/{key}", "--json").json] == [f"facts/{key}"]
    invoke("forget", key, "--yes")
    assert head not in (store_path / "refs" / PACKED_FACTS).read_text()
    assert head not in log.read_text() and len(log.read_text().splitlines()) == 1
    invoke("gc", "--prune=now")
    assert invoke("fsck").stdout.startswith("ok:")


def test_a_format_1_store_keeps_a_file_per_fact_ref(store_path):
    """Store format 2 is what lets fact refs be packed: a store of format 1
    (made by a mem before session 9) is opened and written as before, and a
    format this mem does not know is refused with nothing changed."""
    import cbor2

    from objstore.core.errors import UnsupportedVersion
    from objstore.core.store import STORE_FORMAT, Store
    Store.init(store_path).close()
    cfg = cbor2.loads((store_path / "config").read_bytes())
    assert cfg["format"] == STORE_FORMAT == 2
    (store_path / "config").write_bytes(cbor2.dumps({**cfg, "format": 1}, canonical=True))
    st = Store.open(store_path)
    try:
        st.update_refs([("facts/user/k", None, A), ("facts/user/j", None, B)], "import", time_ms=5)
        assert not (store_path / "refs" / PACKED_FACTS).exists()
        assert not (store_path / "logs" / REFLOG_PACKED_FACTS).exists()
        assert st.refs.path("facts/user/k").read_text() == A + "\n" and st.reflog.path("facts/user/j").exists()
        assert [e.new for e in st.reflog.read("facts/user/k")] == [A]
    finally:
        st.close()
    (store_path / "config").write_bytes(cbor2.dumps({**cfg, "format": 3}, canonical=True))
    with pytest.raises(UnsupportedVersion, match="knows formats 1, 2"):
        Store.open(store_path)


def test_one_packed_ref_is_read_by_a_byte_search_as_the_table_reads_it(refs):
    """``Refs.read`` of one packed ref searches the file's bytes (issue 12,
    "Start-up": a new process reads one ref, not the whole table): the same
    answer as the parsed table for every name, with a later line of a name
    winning, bad and cut lines ignored, a name that ends another's not
    taken for it; no table is built; a rewrite of the file is seen."""
    p = refs.root / PACKED_FACTS
    p.parent.mkdir(parents=True)
    D = "d" * 64
    p.write_bytes(f"{A} user/k\n{B} user/xk\n{C} user/k\n{'Z' * 64} user/k\n{A} global/tz\n"   # k: C (a bad line after)
                  f"{B} global/ab\nx{A} global/ab\n{C} project/p/n\n{D} project/p/cut".encode())
    want = {"facts/user/k": C, "facts/user/xk": B, "facts/global/tz": A, "facts/global/ab": B,
            "facts/project/p/n": C, "facts/project/p/cut": None, "facts/user/none": None, "facts/user/K": None}
    assert {r: refs.read(r) for r in want} == want
    assert refs._packed == {}   # found by the search: the whole file was never parsed
    table = Refs(refs.root)
    assert {r: table._packed_state("facts")[1].get(table._packed_name(r, table._spath(r, escape_name))[1])
            for r in want} == want
    p.write_bytes(f"{D} user/k\n".encode())   # replaced (another inode, another size): read again
    assert refs.read("facts/user/k") == D and refs.read("facts/user/xk") is None
    assert list(refs.iter("facts")) == [("facts/user/k", D)]   # a listing parses it, and reads go by its table
    assert refs.read("facts/user/k") == D


def test_one_ref_of_packed_reflog_lines_is_read_and_dropped_alone(store):
    """``Reflog.read`` parses only the packed lines that hold `` <name>\\t``,
    ``Reflog.drop`` splits only those holding `` <name>``: the ref's lines
    and no other's, where names end or begin with one another and a command
    quotes another ref's name (a tab in a command is written as a space)."""
    store.update_refs([("facts/user/k", None, A), ("facts/user/kk", None, B), ("facts/user/xk", None, C)],
                      "import user/k\tone", time_ms=5)
    store.update_refs([("facts/user/k", A, B), ("facts/user/kk", B, C)], "rollup of user/kk", time_ms=6)
    log = store.root / "logs" / REFLOG_PACKED_FACTS
    assert [(e.old, e.new, e.time) for e in store.reflog.read("facts/user/k")] == [(None, A, 5), (A, B, 6)]
    assert [(e.old, e.new, e.time) for e in store.reflog.read("facts/user/kk")] == [(None, B, 5), (B, C, 6)]
    assert [(e.old, e.new, e.time) for e in store.reflog.read("facts/user/xk")] == [(None, C, 5)]
    assert store.reflog.drop("facts/user/k")
    assert store.reflog.read("facts/user/k") == [] and " user/k\t" not in log.read_text()
    assert [e.time for e in store.reflog.read("facts/user/kk")] == [5, 6]
    assert [e.time for e in store.reflog.read("facts/user/xk")] == [5]
