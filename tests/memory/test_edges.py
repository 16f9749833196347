"""Typed edges between facts and turns (issue 16): stored in the fact object,
resolved when written, kept across versions, shown by show/log."""

from __future__ import annotations

import pytest

from objstore.core.errors import InvalidInput, NotFound
from objstore.memory import facts
from objstore.memory.appender import TurnAppender
from objstore.memory.sessions import CapturedTurn, session_turns


def _turns(store, sid: str, texts: list[str]) -> list[str]:
    app = TurnAppender(store, command="test")
    with store.lock("test"):
        ids = [app.add(CapturedTurn(session=sid, source=f"t:{sid}:{i}", role="assistant", text=t,
                                    timestamp=1_772_000_000_000 + i, cwd="", project="p"))
               for i, t in enumerate(texts)]
        app.publish()
    app.close()
    return ids


def test_remember_with_edges_resolves_and_keeps_them(store):
    facts.remember(store, "project/p/db", "postgres 16")
    facts.remember(store, "project/p/db", "postgres 17")
    tids = _turns(store, "sess-1", ["looked at the db", "it is postgres 17"])
    r = facts.remember(store, "project/p/summary", "the db is postgres 17",
                       edges=[("relates_to", "project/p/db"), ("derived_from", "project/p/db@v1"),
                              ("rollup_of", tids[1][:8]), ("rollup_of", tids[0])])
    v1 = facts.versions(store, "project/p/db")[-1].id
    assert r.version.fact.edges == tuple(sorted([("relates_to", "project/p/db"), ("derived_from", v1),
                                                 ("rollup_of", tids[0]), ("rollup_of", tids[1])]))
    # the same write again writes nothing (a repeated rollup is written once)
    again = facts.remember(store, "project/p/summary", "the db is postgres 17",
                           edges=[("rollup_of", tids[0])])
    assert not again.written
    # a new value keeps the head's edges and adds the new ones
    facts.remember(store, "project/p/other", "x")
    r2 = facts.remember(store, "project/p/summary", "the db is postgres 17 on 5433",
                        edges=[("relates_to", "project/p/other")])
    assert set(r2.version.fact.edges) == set(r.version.fact.edges) | {("relates_to", "project/p/other")}
    r3 = facts.remember(store, "project/p/summary", "only one edge", edges=[("relates_to", "project/p/db")],
                        replace_edges=True)
    assert r3.version.fact.edges == (("relates_to", "project/p/db"),)
    # the object round-trips through the store
    assert store.get(r2.version.id).edges == r2.version.fact.edges


def test_bad_edges_write_nothing(store):
    facts.remember(store, "user/a", "x")
    for edge, err in ((("relates_to", "user/missing"), NotFound), (("relates_to", "user/a"), InvalidInput),
                      (("mentions", "user/a"), InvalidInput), (("relates_to", "ffff"), NotFound),
                      (("relates_to", "not an id"), InvalidInput)):
        with pytest.raises(err):
            facts.remember(store, "user/a" if edge == ("relates_to", "user/a") else "user/b", "y", edges=[edge])
    assert [k for k, _ in facts.list_keys(store)] == ["user/a"]


def test_contradicts_queues_one_question_and_a_decision_settles_both_keys(store):
    from objstore.memory import queue
    from objstore.memory.edges import flag_contradictions
    facts.remember(store, "project/p/port", "5432")
    r = facts.remember(store, "project/p/port-note", "the port is 6543", edges=[("contradicts", "project/p/port")])
    assert r.written and len(flag_contradictions(store, r)) == 1
    [it] = queue.items(store)
    q = it.item
    assert (q.kind, q.key, q.other, q.body) == ("contradiction", "project/p/port", "project/p/port-note",
                                                "the port is 6543")
    assert q.note == "project/p/port-note and project/p/port contradict: keep which?"
    assert queue.disputed(store) == {"project/p/port": ("project/p/port-note",),
                                     "project/p/port-note": ("project/p/port",)}
    # the reverse edge names the same pair: no second item
    r2 = facts.remember(store, "project/p/port", "5432, really", edges=[("contradicts", "project/p/port-note")])
    assert flag_contradictions(store, r2) == [it.id] and queue.count(store) == 1
    # reject keeps project/p/port (its value now): the note takes it
    d = queue.reject(store, it.id)
    assert d.keys == ("project/p/port-note",) and d.written and d.body == "5432, really"
    assert facts.current(store, "project/p/port-note").fact.body == "5432, really"
    assert facts.current(store, "project/p/port-note").fact.trust == "user_stated"
    assert queue.count(store) == 0 and queue.disputed(store) == {}


def test_contradiction_accept_keeps_the_written_key_and_edit_writes_both(store):
    from objstore.memory import queue
    from objstore.memory.edges import flag_contradictions
    facts.remember(store, "project/p/a", "uses celery")
    r = facts.remember(store, "project/p/b", "uses rq", edges=[("contradicts", "project/p/a")])
    [iid] = flag_contradictions(store, r)
    d = queue.accept(store, iid)
    assert d.action == "accepted" and d.keys == ("project/p/a",)
    assert facts.current(store, "project/p/a").fact.body == "uses rq"
    facts.remember(store, "project/p/a", "uses dramatiq")
    r = facts.remember(store, "project/p/b", "uses rq 2", edges=[("contradicts", "project/p/a")])
    assert flag_contradictions(store, r) == []  # the edge is not new: nothing queued again
    facts.remember(store, "project/p/c", "uses huey")
    r = facts.remember(store, "project/p/b", "uses rq 3", edges=[("contradicts", "project/p/c")])
    [iid] = flag_contradictions(store, r)
    d = queue.accept(store, iid, body="uses arq")
    assert set(d.keys) == {"project/p/b", "project/p/c"}
    assert {facts.current(store, k).fact.body for k in ("project/p/b", "project/p/c")} == {"uses arq"}


def test_session_block_marks_a_contradiction_until_it_is_decided(store):
    from objstore.memory import queue
    from objstore.memory.edges import flag_contradictions
    from objstore.retrieval.context import render_context, session_start_block
    facts.remember(store, "project/p/db", "postgres 16")
    facts.remember(store, "project/p/other", "unrelated")
    first = session_start_block(store, "s-1", "startup", None, project="p")
    assert "IN CONFLICT" not in first
    r = facts.remember(store, "project/p/db-note", "postgres 17", edges=[("contradicts", "project/p/db")])
    [iid] = flag_contradictions(store, r)
    block = render_context(store, ["p"])
    lines = {ln.split(" (")[0]: ln for ln in block.text.splitlines() if ln.startswith("- ")}
    assert "IN CONFLICT with project/p/db-note: awaiting review" in lines["- project/p/db"]
    assert "IN CONFLICT with project/p/db: awaiting review" in lines["- project/p/db-note"]
    assert "IN CONFLICT" not in lines["- project/p/other"]
    assert block.disputed == ["project/p/db", "project/p/db-note"]
    # a resumed session sees the mark although project/p/db itself did not change
    assert "IN CONFLICT with project/p/db-note" in session_start_block(store, "s-1", "resume", None, project="p")
    queue.accept(store, iid)  # keeps db-note: db takes "postgres 17"
    again = session_start_block(store, "s-1", "resume", None, project="p")
    assert "IN CONFLICT" not in again and "postgres 16" not in again


def test_cli_edges_in_show_and_log(invoke, store):
    invoke("remember", "project/p/db", "postgres 16")
    tid = _turns(store, "sess-2", ["checked the db port"])[0]
    invoke("remember", "project/p/note", "db moved", "--relates-to", "project/p/db", "--rollup-of", tid[:10],
           "--derived-from", "project/p/db@v1")
    shown = invoke("show", "project/p/note").stdout
    assert "relates_to   project/p/db" in shown and f"rollup_of    {tid[:12]}  (sess-2#0)" in shown
    assert "(project/p/db@v1)" in shown
    assert "derived_from" in shown
    log = invoke("log", "project/p/note").stdout
    assert "-> relates_to   project/p/db" in log
    js = invoke("log", "project/p/note", "--json").json
    assert js[0]["edges"]["rollup_of"] == [tid] and js[0]["edges"]["relates_to"] == ["project/p/db"]
    assert invoke("show", "project/p/note", "--json").json["edges"]["rollup_of"] == [tid]
    r = invoke("remember", "project/p/y", "db is 17", "--contradicts", "project/p/db")
    assert "queued for review" in r.stderr and "keep which?" in r.stderr
    assert len(invoke("queue", "list", "--json").json) == 1
    bad = invoke("remember", "project/p/x", "v", "--relates-to", "project/p/nothing", exit_code=4)
    assert "no key project/p/nothing" in bad.stderr
    assert invoke("fsck").stdout.startswith("ok:")


def test_lean_path_parses_repeated_edges():
    from cmds import lean
    name, params, _h, _t = lean.parse(["remember", "user/a", "v", "--relates-to", "user/b",
                                       "--relates-to=user/c", "--rollup-of", "abcd"])
    assert params["relates_to"] == ("user/b", "user/c") and params["rollup_of"] == ("abcd",)
    assert params["contradicts"] == ()


def test_edges_survive_export_and_import(store, tmp_path):
    import io
    from objstore.memory.opening import open_store
    from objstore.porcelain.interchange import export_jsonl, import_jsonl
    facts.remember(store, "user/a", "x")
    tid = _turns(store, "sess-x", ["a turn"])[0]
    r = facts.remember(store, "user/b", "y", edges=[("relates_to", "user/a"), ("rollup_of", tid)])
    buf = io.StringIO()
    export_jsonl(store, buf)
    other = open_store(tmp_path / "other", create=True)
    try:
        import_jsonl(other, buf.getvalue().splitlines())
        assert facts.current(other, "user/b").id == r.version.id
        assert facts.current(other, "user/b").fact.edges == r.version.fact.edges
    finally:
        other.close()


def test_fsck_warns_about_an_edge_to_a_missing_object(store):
    from objstore.core.fsck import fsck
    tid = _turns(store, "sess-f", ["a turn"])[0]
    facts.remember(store, "user/a", "x", edges=[("rollup_of", tid)])
    assert fsck(store).warnings == []
    # a fact (as a remote might send it) naming a turn this store does not hold
    head = facts.current(store, "user/a")
    f = head.fact.replace(version=2, parent=head.id, body="y", edges=(("rollup_of", "ab" * 32),))
    oid = store.put(f)
    with store.lock("test"):
        facts.commit_version(store, "user/a", head.id, oid, old_chain=[head], new_chain=[facts.Version(oid, f), head],
                             command="test")
    rep = fsck(store)
    assert rep.ok and any("rollup_of edge to abababababab" in w for w in rep.warnings)


def test_contradiction_through_real_processes(mem):
    """``mem remember --contradicts`` -> one question in ``mem queue``, both facts
    marked in ``mem context``; ``mem review`` (the shell, from a pipe) decides it."""
    mem("remember", "project/acme/db-port", "postgres listens on 5432")
    r = mem("remember", "project/acme/pg-port", "postgres listens on 5433", "--contradicts", "project/acme/db-port")
    assert "keep which?" in r.stderr
    out = mem("queue").stdout.splitlines()
    assert out[1].strip() == "project/acme/pg-port and project/acme/db-port contradict: keep which?"
    assert out[2].strip() == "accept keeps project/acme/pg-port: postgres listens on 5433"
    assert out[3].strip() == "reject keeps project/acme/db-port: postgres listens on 5432"
    assert len(out) == 4
    ctx = mem("context", "--project", "acme").stdout
    assert ctx.count("awaiting review") == 2
    r = mem("review", input="queue\nshow\nreject\nquit\n")
    assert "contradict: keep which?" in r.stdout
    assert "kept project/acme/db-port; project/acme/pg-port now holds its value" in r.stdout
    assert mem("get", "project/acme/pg-port").stdout == "postgres listens on 5432\n"
    assert "awaiting review" not in mem("context", "--project", "acme").stdout
