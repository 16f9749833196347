"""``mem search`` / ``mem recall`` whose only hit is an older version of a
key whose current value was lost to damage printed nothing and said
nothing (session 13, lane fix13).  They still never serve the older value
as current, and now warn on stderr, as ``keys`` and ``context`` do, naming
the key (``facts.current_noting_lost``)."""

from __future__ import annotations

from pathlib import Path

WARNING = "warning: 1 key whose current value was lost to damage skipped (user/indent)"


def _lose_head(mem, store_path: Path) -> None:
    head = mem("log", "user/indent", "--json").json[0]["id"]
    (store_path / "objects" / head[:2] / head[2:]).write_bytes(b"garbage")
    mem("fsck", "--repair", exit_code=13)


def test_search_and_recall_warn_of_a_lost_current_value(mem, store_path, tmp_path):
    mem("remember", "user/indent", "indent with tabs")
    mem("remember", "user/indent", "indent with four spaces")
    mem("remember", "user/indent", "indent with two spaces")
    mem("remember", "user/shell", "fish")
    assert "four spaces" not in mem("search", "four").stdout     # an older version resolves to the current one
    _lose_head(mem, store_path)
    for args in (["search", "four", "spaces"], ["search", "tabs", "--json"],
                 ["recall", "indent spaces", "--all-projects"], ["recall", "tabs", "--all-projects", "--json"]):
        r = mem(*args)
        assert "indent with" not in r.stdout, (args, r.stdout)
        assert WARNING in r.stderr, (args, r.stderr)
    r = mem("search", "fish")                           # a sound key: no warning
    assert "user/shell" in r.stdout and "warning" not in r.stderr
    mem("revert", "user/indent")                        # the person keeps the older value: served, no warning
    r = mem("search", "four", "spaces")
    assert "four spaces" in r.stdout and "warning" not in r.stderr
