"""test39b B8: the person's number fact ("5432" under ``db-port``) stayed
first and unmarked in ``mem recall`` and ``mem context`` after later
memory.md lines "DB port: 6543 since the move" / "DB port: 6543": the
capitalised "DB" read as a name value, so the line's subject lacked the
key's word "db".  And the mark quoted the whole memory.md, not the line
that replaced the value.  A line naming another port, or an unrelated
number, marks nothing.  Real ``mem`` processes."""

from __future__ import annotations

import json
import time

MARK = "MAY BE OUT OF DATE: a memory-file line written later"
FILE = "project/acme/memory/memory.md"


def _line(block: str, key: str) -> str:
    return next(x for x in block.splitlines() if x.startswith(f"- {key} "))


def _hits(mem, query):
    hits = json.loads(mem("recall", query, "--project", "acme", "--json").stdout)["hits"]
    return [h.get("key") for h in hits if h["kind"] == "fact"], {h.get("key"): h for h in hits}


def test_a_persons_number_fact_a_later_memory_line_replaces_is_marked_and_served_after_it(mem):
    mem("remember", "project/acme/db-port", "5432")   # the person's own, user_stated
    mem("remember", "project/acme/linter", "flake8", env={"MEM_AGENT": "claude"})
    time.sleep(0.05)
    for line in ("The linter is ruff.", "DB port: 6543 since the move", "DB port: 6543"):
        mem("memory", "add", "memory", line, "--project", "acme")
    block = mem("context", "--project", "acme").stdout
    assert MARK in _line(block, "project/acme/db-port"), block
    assert MARK in _line(block, "project/acme/linter"), block
    for query, key, said in (("db port", "project/acme/db-port", "DB port: 6543"),
                             ("linter", "project/acme/linter", "The linter is ruff.")):
        keys, by = _hits(mem, query)
        assert FILE in keys and key in keys, (query, keys)
        assert keys.index(key) > keys.index(FILE), (query, keys)
        later = by[key]["updated_later"] or {}
        assert later.get("key") == FILE, by[key]
        # the line that replaced the value, not the whole file
        assert later["text"].startswith(said) and "§" not in later["text"] and "\n" not in later["text"], later


def test_a_line_of_another_port_or_an_unrelated_number_marks_nothing(mem):
    mem("remember", "project/acme/db-port", "5432")
    mem("remember", "project/acme/cache-port", "6380")
    mem("remember", "project/acme/workers", "4")
    time.sleep(0.05)
    for line in ("Redis port: 6379", "DB host: db-2.internal", "We have 12 services in prod.", "Port 8080 is the api."):
        mem("memory", "add", "memory", line, "--project", "acme")
    block = mem("context", "--project", "acme").stdout
    for key in ("db-port", "cache-port", "workers"):
        assert MARK not in _line(block, f"project/acme/{key}"), block
    keys, by = _hits(mem, "db port")
    assert by["project/acme/db-port"]["updated_later"] is None, by["project/acme/db-port"]
