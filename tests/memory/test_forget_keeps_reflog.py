"""Session 21 (mend21): a forget of some of a key's versions keeps the key's
reflog (``rewrite.kept_history``), on the rewritten ids, so ``mem blame``
still names the command that wrote an earlier value; an entry naming any
id outside the chain after the rewrite (a removed version, another chain's
object) goes, so no line names a removed id and nothing stays reachable
through it.  Real store on disk."""

from __future__ import annotations

from objstore.core.refs import fact_ref
from objstore.memory import facts
from objstore.memory.forget import forget
from objstore.memory.opening import open_store

KEY = "project/p/db"


def test_kept_entries_name_only_the_chain_after_the_rewrite(store_path):
    with open_store(store_path, create=True) as s:
        for v in ("Postgres 14 on 5432", "Postgres 15 on 5433", "Postgres 16 on 5434"):
            facts.remember(s, KEY, v, command="remember")
        other = facts.remember(s, "project/p/other", "an unrelated value", command="import").version.id
        old = facts.versions(s, KEY)
        with s.lock("t"):   # another chain's id in the key's reflog (a reset to it, say)
            s.reflog.append(fact_ref(KEY), old[0].id, other, 5, "odd move")
        forget(s, what=f"{KEY}@v2")
        new = facts.versions(s, KEY)
        log = s.reflog.read(fact_ref(KEY))
        named = {x for e in log for x in (e.old, e.new) if x}
        assert named <= {v.id for v in new}
        assert not named & ({old[0].id, old[1].id, other})
        assert [e.command for e in log] == ["remember", "remember", "remember", "forget: history rewritten"]
        assert [e.new for e in log[:3]] == [new[2].id, new[1].id, new[0].id]
        assert new[1].fact.forgotten and new[2].id == old[2].id
