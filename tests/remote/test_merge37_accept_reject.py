"""A proposal accepted on one machine and rejected on the other (test37
T14): the accept is the person's word, so the ``rejected`` tombstone the
other machine wrote never empties the accepted ``user_stated`` version — not
at the first sync, and not at a later one that merges divergent versions of
the key (its rewrite once resumed the rejection as a forget: the stale value
came back as current on both machines).  Real ``mem`` processes on two
stores and a folder remote."""

from __future__ import annotations

import json

from tests.remote._machines import cross_sync, two_machines

KEY = "project/q/db-port"
OLD, NEW = "the db port is 5432", "the db port is 6543"


def _body(mem, env):
    return json.loads(mem("get", KEY, "--json", env=env).stdout)["body"]


def test_an_accept_survives_a_rejection_and_a_later_merge(tmp_path, mem):
    ea, eb, _a, _b = two_machines(tmp_path, mem, [["remember", "project/q/base", "base"]])
    mem("remember", KEY, OLD, env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("remember", KEY, NEW, env={**eb, "MEM_AGENT": "codex"}, exit_code=None)   # queued on B
    mem("push", env=eb)
    mem("pull", env=ea)
    item = mem("queue", "list", "--plain", env=ea).stdout.splitlines()[0].split("\t")[0]
    assert "wrote " + KEY in mem("queue", "accept", item, env=eb).stdout
    assert "rejected" in mem("queue", "reject", item, env=ea).stdout
    mem("push", env=eb)
    mem("push", env=ea)
    mem("pull", env=eb)
    assert _body(mem, ea) == _body(mem, eb) == NEW
    # a later sync that merges divergent versions of the key (a backfilled note on each machine)
    mem("remember", KEY, "the db port was 5000 in 2025", "--valid-from", "2026-01-01T00:00:00Z", env=ea)
    mem("remember", KEY, "the db port was 4000 in 2024", "--valid-from", "2026-01-02T00:00:00Z", env=eb)
    cross_sync(mem, ea, eb)
    assert _body(mem, ea) == _body(mem, eb) == NEW
    for env in (ea, eb):
        bodies = [v["body"] for v in json.loads(mem("log", KEY, "--json", env=env).stdout)]
        assert NEW in bodies and all(bodies), bodies   # no version emptied
    # the rejection still refuses the value below user_stated
    out = mem("remember", KEY, "the db port is 7777", env={**ea, "MEM_AGENT": "codex"}, exit_code=None)
    assert _body(mem, ea) == NEW, out.stdout
