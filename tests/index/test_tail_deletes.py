"""[tail deletes] A session's old tail is deleted by one query only where
that query finds the doomed documents alone (real store, real tantivy)."""

from __future__ import annotations

from objstore.core.objects import Turn
from objstore.core.refs import session_ref
from objstore.index.taildeletes import tail_deletes
from objstore.memory.opening import open_store
from objstore.memory.sessions import walk_turns
from objstore.retrieval.evaluate import write_sessions


def _turns(sid: str, n: int) -> list[Turn]:
    return [Turn(session=sid, seq=0, role="user", text=f"word{i} of {sid}", timestamp=1_700_000_000_000 + i,
                 harness="test", cwd="", project="", source=f"{sid}:{i}", parent=None) for i in range(n)]


def test_a_tail_query_is_used_only_when_it_finds_doomed_documents_alone(tmp_path):
    s = open_store(tmp_path / "s", create=True)
    try:
        write_sessions(s, [("a", _turns("a", 30)), ("b", _turns("b", 30))])
        chain = {tv.turn.seq: tv.id for tv in walk_turns(s, s.refs.read(session_ref("a")))}
        sub = s.index._subs["turn"]
        m, indexes = sub.open_current()
        for _shard, name in m.live():
            index = indexes[name]
            sr, fmt = index.searcher(), sub.fmt(name)
            if not int(sr.doc_freq("ref", "a")):
                continue
            tail = {chain[k] for k in range(10, 30)}
            # every turn of a from #10 is doomed: one query, the segment of each of them known
            used, where = tail_deletes(sr, index.schema, fmt, {"a": 10}, tail, s.index._resolve)
            assert used == [("a", 10)] and set(where) == tail
            # one of them is kept (not doomed): the query would delete it, so it is not used
            used, where = tail_deletes(sr, index.schema, fmt, {"a": 10}, tail - {chain[20]}, s.index._resolve)
            assert used == [] and where == {}
            # a session the generation does not hold, or a tail past its end: nothing
            assert tail_deletes(sr, index.schema, fmt, {"zz": 0, "a": 99}, tail, s.index._resolve) == ([], {})
            break
        else:
            raise AssertionError("no generation holds session a")
    finally:
        s.close()
