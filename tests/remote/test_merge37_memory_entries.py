"""A memory file edited on two machines is merged entry by entry at a sync
(``objstore.remote.memmerge``): test37 T15 (a ``forget --match`` of one
entry reaching a machine that had added another: the other entry stays, in
a new version, as a local forget keeps it) and T10 (an entry added on each
machine: both stay; an entry removed on one machine while the other added
one: it stays removed).  Real ``mem`` processes on two stores and a folder
remote."""

from __future__ import annotations

import json

from objstore import scan_store

from tests.remote._machines import cross_sync, two_machines

KEY = "user/memory/memory.md"
BASE = "Deploys happen on Tuesdays."


def _pair(tmp_path, mem, *entries):
    return two_machines(tmp_path, mem, [["memory", "add", "memory", e] for e in entries])


def _entries(mem, env):
    body = json.loads(mem("get", KEY, "--json", env=env).stdout)["body"]
    return [e.strip() for e in body.split("\n§\n")]


def test_a_forget_match_arriving_keeps_the_other_machines_new_entry(tmp_path, mem):
    secret = "The staging bastion is bastion-plum-7712."
    ea, eb, a, b = _pair(tmp_path, mem, BASE, secret)
    mem("memory", "add", "memory", "Use feature flags for every release.", env=eb)
    mem("forget", "--match", "bastion-plum-7712", "--yes", env=ea)
    mem("push", env=ea)
    out = mem("pull", env=eb)
    assert "1 memory file merged entry by entry" in out.stdout, out.stdout
    want = [BASE, "Use feature flags for every release."]
    assert _entries(mem, eb) == want
    mem("push", env=eb)
    mem("pull", env=ea)
    assert _entries(mem, ea) == want
    for env, home in ((ea, a), (eb, b)):
        mem("gc", "--prune=now", env=env)
        assert scan_store(home, [b"bastion-plum"]) == []
        assert "0 problems" in mem("fsck", env=env).stdout
    # converged: one more round writes nothing new
    mem("push", env=ea)
    mem("pull", env=eb)
    assert mem("log", KEY, "--json", env=ea).stdout == mem("log", KEY, "--json", env=eb).stdout


def test_an_entry_added_on_each_machine_keeps_both_and_a_removal_stays(tmp_path, mem):
    ea, eb, _a, _b = _pair(tmp_path, mem, BASE)
    mem("memory", "add", "memory", "The staging db is reset every night.", env=ea)
    mem("memory", "add", "memory", "Never deploy on Fridays.", env=eb)
    cross_sync(mem, ea, eb)
    both = [BASE, "The staging db is reset every night.", "Never deploy on Fridays."]
    assert _entries(mem, ea) == _entries(mem, eb) == both
    assert len(mem("memory", "journal", env=ea).stdout.strip().splitlines()) == 3   # every edit's record
    mem("memory", "remove", "memory", "Never deploy on Fridays.", env=ea)
    mem("memory", "add", "memory", "Use squash merges.", env=eb)
    cross_sync(mem, ea, eb)
    want = [BASE, "The staging db is reset every night.", "Use squash merges."]
    assert _entries(mem, ea) == _entries(mem, eb) == want
    mem("push", env=ea)
    mem("pull", env=eb)
    assert mem("log", KEY, "--json", env=ea).stdout == mem("log", KEY, "--json", env=eb).stdout
