"""gate6: small findings, each reproduced first with real ``mem`` processes."""

from __future__ import annotations

import json


def test_search_and_recall_agree_on_a_query_with_no_searchable_word(mem):
    """'mem search "!!!"' exited 0 (no hits) where 'mem recall "!!!"' exits 2:
    both refuse it with the same message; a query with a word still searches."""
    mem("remember", "user/a", "hello world")
    for q in ("!!!", '"', "..."):
        s = mem("search", q, exit_code=2)
        r = mem("recall", q, exit_code=2)
        assert "no searchable word" in s.stderr and "no searchable word" in r.stderr
        assert s.stderr.splitlines()[0] == r.stderr.splitlines()[0]
    mem("search", "!!!", "--json", exit_code=2)
    hits = mem("search", "!!! hello", "--json").json
    assert [h["key"] for h in hits] == ["user/a"]
    # scan for punctuation alone still scans the objects (the index can hold no such term)
    r = mem("scan", "!!!", "--json", exit_code=None)
    assert r.exit_code in (0, 1) and "not searchable" not in r.stdout
