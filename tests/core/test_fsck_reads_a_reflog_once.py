"""``mem fsck`` reads each fact ref's reflog once (session 31's review:
its set-back, end and gap checks read it three times; a fact's reflog may
be its lines of ``logs/packed-facts``, a scan of the whole file each).
The reads are counted on a real store through the real ``Reflog.read``;
the findings are the same (a set-back ref is still named)."""

from __future__ import annotations

from collections import Counter

from objstore.core.fsck import fsck
from objstore.core.reflog import Reflog
from objstore.memory.facts import remember


def test_each_fact_reflog_is_read_once(store, monkeypatch):
    for v in (1, 2, 3):
        remember(store, "project/api/port", f"port 900{v}")
    remember(store, "user/editor", "helix")
    reads: Counter = Counter()
    real = Reflog.read

    def counted(self, ref):
        reads[ref] += 1
        return real(self, ref)
    monkeypatch.setattr(Reflog, "read", counted)
    assert fsck(store).ok
    assert reads["facts/project/api/port"] == 1 and reads["facts/user/editor"] == 1, reads
    old = store.reflog.read("facts/project/api/port")[-2].new   # set back: still named
    store.refs.path("facts/project/api/port").write_text(old + "\n")
    rep = fsck(store)
    assert any("set back to an older version" in p for p in rep.problems), rep.problems
