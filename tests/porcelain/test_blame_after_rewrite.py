"""``mem blame KEY`` after ``mem forget KEY@vN`` (which rewrites the key's
history: every later version is stored again under a new id, and the
reflog is replaced by one ``zero -> new head`` entry) attributed the
current value to the forget ("command forget: forget", moved at the
forget's time), session 19's tester W3.  Now the rewrite is never the
command that wrote a value: blame says the history was rewritten and when
(text ``rewritten``, ``--json`` ``history_rewritten_at``), and a value
written after the rewrite keeps its own command."""

from __future__ import annotations

import json

KEY = "project/api/db"


def _reflog_file(store_path):
    return store_path / "logs" / "refs" / "facts" / "project" / "api" / "db"


def test_blame_after_a_forget_of_an_older_version(mem, store_path):
    for v in ("Postgres 14 on 5432", "Postgres 15 on 5433", "Postgres 16 on 5434"):
        mem("remember", KEY, v)
    before = mem("blame", KEY, "--json").json
    assert before["command"] == "remember" and before["history_rewritten_at"] is None
    mem("forget", f"{KEY}@v2", "--yes")
    [line] = _reflog_file(store_path).read_text().splitlines()     # the rewrite replaced the reflog
    assert line.startswith("0" * 64) and line.endswith("forget: history rewritten")
    rewrite_ms = int(line.split(" ")[2])

    b = mem("blame", KEY, "--json").json
    log = mem("log", KEY, "--json").json
    [cur] = [v for v in log if v["current"]]
    assert (b["version"], b["id"], b["versions"]) == (3, cur["id"], 3)   # the current history, new id
    assert b["history_rewritten_at"] == rewrite_ms
    assert "forget" not in b["command"] and b["moved_at"] != rewrite_ms   # not attributed to the forget
    t = mem("blame", KEY).stdout
    assert "command   forget" not in t and "written before the history was rewritten" in t
    assert "rewritten " in t and "history was rewritten" in t

    mem("remember", KEY, "Postgres 17 on 5435")                      # a value after the rewrite is its own
    b = mem("blame", KEY, "--json").json
    assert (b["version"], b["command"], b["history_rewritten_at"]) == (4, "remember", rewrite_ms)


def test_blame_after_a_forget_of_the_current_version(mem, store_path):
    mem("remember", KEY, "tabs")
    mem("remember", KEY, "spaces")
    mem("forget", f"{KEY}@v2", "--yes")
    b = mem("blame", KEY, "--json").json
    assert b["version"] == 1 and b["command"] == "" and isinstance(b["history_rewritten_at"], int)
    assert mem("get", KEY).stdout.strip() == "tabs"


def test_a_reflog_forget_wrote_before_session_20_reads_as_a_rewrite(mem, store_path):
    mem("remember", KEY, "tabs")
    mem("remember", KEY, "spaces")
    mem("forget", f"{KEY}@v1", "--yes")
    p = _reflog_file(store_path)
    old, new, ms, _cmd = p.read_text().split(" ", 3)
    p.write_text(f"{old} {new} {ms} forget: forget\n")                   # as an older mem wrote it
    b = json.loads(mem("blame", KEY, "--json").stdout)
    assert b["command"] == "" and b["history_rewritten_at"] == int(ms)
