"""test38 T3: ``mem recall`` listed an older derived fact ("flake8") first,
unmarked, beside the newer memory.md line that replaces it ("The linter is
ruff.").  Now the fact comes after the file and names it in
``updated_later``.  Real ``mem`` processes."""

from __future__ import annotations

import json
import time


def _keys(mem, query):
    hits = json.loads(mem("recall", query, "--project", "acme", "--json").stdout)["hits"]
    return [h.get("key") for h in hits if h["kind"] == "fact"], {h.get("key"): h for h in hits}


def test_recall_never_lists_the_stale_fact_before_the_newer_memory_file_line(mem):
    mem("remember", "project/acme/linter", "flake8", "--trust", "derived")
    mem("remember", "project/acme/db-port", "5432", "--trust", "agent_observed")
    time.sleep(0.05)
    mem("memory", "add", "memory", "The linter is ruff.", "--project", "acme")
    mem("memory", "add", "memory", "The db port is 6543.", "--project", "acme")
    for query, key in (("which linter", "project/acme/linter"), ("linter", "project/acme/linter"),
                       ("db port", "project/acme/db-port")):
        keys, by = _keys(mem, query)
        assert "project/acme/memory/memory.md" in keys and key in keys, (query, keys)
        assert keys.index(key) > keys.index("project/acme/memory/memory.md"), (query, keys)
        assert (by[key]["updated_later"] or {}).get("key", "").startswith("project/acme/memory/"), by[key]


def test_recall_keeps_a_fact_the_file_line_agrees_with_in_place(mem):
    mem("remember", "project/acme/linter", "ruff", "--trust", "derived")
    time.sleep(0.05)
    mem("memory", "add", "memory", "The linter is ruff.", "--project", "acme")
    keys, by = _keys(mem, "linter")
    assert by["project/acme/linter"]["updated_later"] is None, by
