"""test37 T7: ``forget KEY`` drops the key's pending review-queue proposals;
its preview (CLI text, ``--json``, the MCP ``forget`` tool) counts and names
them, and a confirm given for a preview does not cover a proposal queued
after it."""

from __future__ import annotations

import json

import pytest

from objstore import Caller, MemoryTools, queue_items, remember
from objstore.core.errors import ChangedSincePreview

AGENT = {"CLAUDECODE": "1"}


def test_the_cli_preview_counts_and_names_the_proposals_forget_drops(mem, store_path):
    mem("remember", "project/api/db", "Postgres 16")
    queued = mem("remember", "project/api/db", "MariaDB 11 on db-quokka-88", "--json", env=AGENT).stdout
    iid = json.loads(queued)["queued"]
    text = mem("forget", "project/api/db", "--dry-run").stdout
    assert "and delete 1 proposal for it (queued or decided)" in text, text
    assert f"proposal {iid[:12]} (queued or decided: deleted)" in text, text
    assert json.loads(mem("forget", "project/api/db", "--dry-run", "--json").stdout)["queue_items"] == [iid]
    done = mem("forget", "project/api/db", "--yes", "--json").stdout
    assert json.loads(done)["queue_items"] == [iid]
    assert "empty" in mem("queue", "list").stdout   # what the preview named is what went


def test_the_mcp_preview_counts_them_and_its_token_covers_only_those(store):
    remember(store, "project/api/db", "Postgres 16")
    first = remember(store, "project/api/db", "MariaDB 11 on db-quokka-88", trust="agent_observed", owner="codex")
    assert first.queued
    tools, owner = MemoryTools(store), Caller("me", "owner")
    pre = tools.call(owner, "forget", {"target": "project/api/db"})
    assert pre["preview"]["queue_items"] == 1 and pre["preview"]["queue_item_ids"] == [first.queued]
    # a proposal queued after the preview was not approved: the token forgets nothing
    later = remember(store, "project/api/db", "SQLite 3 on db-wombat-42", trust="agent_observed", owner="codex")
    assert later.queued and later.queued != first.queued
    with pytest.raises(ChangedSincePreview):
        tools.call(owner, "forget", {"target": "project/api/db", "confirm": pre["confirm"]})
    assert {i.id for i in queue_items(store)} == {first.queued, later.queued}
    pre = tools.call(owner, "forget", {"target": "project/api/db"})
    assert pre["preview"]["queue_items"] == 2
    done = tools.call(owner, "forget", {"target": "project/api/db", "confirm": pre["confirm"]})
    assert done["done"] and list(queue_items(store)) == []
