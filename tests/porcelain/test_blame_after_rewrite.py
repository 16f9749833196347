"""``mem blame KEY`` after ``mem forget KEY@vN`` (which rewrites the key's
history: every later version is stored again under a new id, and the
reflog is replaced by one ``zero -> new head`` entry) attributed the
current value to the forget ("command forget: forget", moved at the
forget's time), session 19's tester W3.  Now the rewrite is never the
command that wrote a value: blame says the history was rewritten and when
(text ``rewritten``, ``--json`` ``history_rewritten_at``), and a value
written after the rewrite keeps its own command.  Since session 21 a forget
keeps the reflog's entries on the rewritten ids (never a removed one), so
blame still names the command that wrote a value before the rewrite."""

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
    old_ids = {v["id"] for v in mem("log", KEY, "--json").json}
    mem("forget", f"{KEY}@v2", "--yes")
    lines = _reflog_file(store_path).read_text().splitlines()
    assert lines[-1].startswith("0" * 64) and lines[-1].endswith("forget: history rewritten")
    rewrite_ms = int(lines[-1].split(" ")[2])

    b = mem("blame", KEY, "--json").json
    log = mem("log", KEY, "--json").json
    [cur] = [v for v in log if v["current"]]
    assert (b["version"], b["id"], b["versions"]) == (3, cur["id"], 3)   # the current history, new id
    assert b["history_rewritten_at"] == rewrite_ms
    # session 21 (mend21): the forget kept the entries, so the writer is still named, at its own time
    assert b["command"] == "remember" and b["moved_at"] == before["moved_at"] != rewrite_ms
    new_ids = {v["id"] for v in log}
    named = {x for ln in lines for x in ln.split(" ")[:2]} - {"0" * 64}
    assert named <= new_ids and not named & (old_ids - new_ids)   # no entry names a removed id
    t = mem("blame", KEY).stdout
    assert "command   remember" in t and "command   forget" not in t
    assert "rewritten " in t and "history was rewritten" in t

    mem("remember", KEY, "Postgres 17 on 5435")                      # a value after the rewrite is its own
    b = mem("blame", KEY, "--json").json
    assert (b["version"], b["command"], b["history_rewritten_at"]) == (4, "remember", rewrite_ms)


def test_blame_after_a_forget_of_the_current_version(mem, store_path):
    mem("remember", KEY, "tabs")
    first = mem("blame", KEY, "--json").json
    mem("remember", KEY, "spaces")
    mem("forget", f"{KEY}@v2", "--yes")
    b = mem("blame", KEY, "--json").json
    assert b["version"] == 1 and isinstance(b["history_rewritten_at"], int)
    assert (b["command"], b["moved_at"]) == ("remember", first["moved_at"])   # kept (session 21)
    assert mem("get", KEY).stdout.strip() == "tabs"


def test_a_seal_still_starts_the_reflog_afresh(mem, store_path):
    """A seal (``vault.sealed``) and a pull drop the reflog: the command of a
    value written before them is not known (never the rewrite's)."""
    mem("remember", KEY, "tabs")
    mem("remember", KEY, "spaces")
    p = _reflog_file(store_path)
    old, new, ms, _cmd = p.read_text().splitlines()[-1].split(" ", 3)
    p.write_text(f"{'0' * 64} {new} {ms} seal: history rewritten\n")    # as a seal leaves it
    b = mem("blame", KEY, "--json").json
    assert b["command"] == "" and b["history_rewritten_at"] == int(ms)
    assert "written before the history was rewritten" in mem("blame", KEY).stdout


def test_a_reflog_forget_wrote_before_session_20_reads_as_a_rewrite(mem, store_path):
    mem("remember", KEY, "tabs")
    mem("remember", KEY, "spaces")
    mem("forget", f"{KEY}@v1", "--yes")
    p = _reflog_file(store_path)
    old, new, ms, _cmd = p.read_text().split(" ", 3)
    p.write_text(f"{old} {new} {ms} forget: forget\n")                   # as an older mem wrote it
    b = json.loads(mem("blame", KEY, "--json").stdout)
    assert b["command"] == "" and b["history_rewritten_at"] == int(ms)
