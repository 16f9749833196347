"""test32 X16: ``forget --match TEXT`` of a text only a queued agent
proposal holds dropped the proposal but wrote no text tombstone, so the
agent wrote the same value straight back (under a new key, or queued
again).  It now writes the text rule, as a forget that found the text in a
fact or turn does, and the rule travels: a clone that pulls it refuses the
agent's write too.  Real ``mem`` processes on two stores and a folder
remote."""

from __future__ import annotations

from objstore import scan_store

TEXT = "secret-bastion-qq9.corp"


def test_forget_of_a_queued_text_keeps_it_from_coming_back(tmp_path, mem):
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    agent_a, agent_b = {**ea, "MEM_AGENT": "codex"}, {**eb, "MEM_AGENT": "codex"}
    mem("remember", "project/api/host", "bastion-1.corp", env=ea)
    q = mem("remember", "project/api/host", TEXT, env=agent_a)
    assert "queued" in q.stdout + q.stderr, q.stdout + q.stderr
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    out = mem("forget", "--match", "secret-bastion-qq9", "--yes", env=ea).stdout
    assert "dropped 1 queued proposal" in out and "text rule" in out, out
    # the agent may not write it back: as a new key's value, nor queued again
    for key in ("project/api/host2", "project/api/host"):
        w = mem("remember", key, TEXT, env=agent_a, exit_code=None)
        assert w.exit_code == 6 and "forgotten" in w.stderr, (key, w.exit_code, w.stdout, w.stderr)
    mem("get", "project/api/host2", env=ea, exit_code=4)
    assert TEXT not in mem("queue", "list", env=ea).stdout
    assert mem("get", "project/api/host", env=ea).stdout.strip() == "bastion-1.corp"
    # the rule travels: the clone that pulls it refuses the agent's write too
    mem("push", env=ea)
    mem("pull", env=eb)
    w = mem("remember", "project/api/host3", TEXT, env=agent_b, exit_code=None)
    assert w.exit_code == 6 and "forgotten" in w.stderr, (w.exit_code, w.stdout, w.stderr)
    mem("gc", "--prune=now", env=ea)
    assert scan_store(a, [b"bastion-qq9"]) == []
    assert TEXT not in mem("queue", "list", env=eb).stdout
    mem("gc", "--prune=now", env=eb)
    assert scan_store(b, [b"bastion-qq9"]) == []
    # and the remote: a third machine cloning it now finds no trace
    c = tmp_path / "c"
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env={"MEM_HOME": str(c)})
    assert scan_store(c, [b"bastion-qq9"]) == [] and scan_store(r, [b"bastion-qq9"]) == []


def test_the_person_may_still_state_it(tmp_path, mem):
    """The rule stops a lower-trust writer; the person's own write stands."""
    ea = {"MEM_HOME": str(tmp_path / "a")}
    mem("remember", "project/api/host", "bastion-1.corp", env=ea)
    mem("remember", "project/api/host", TEXT, env={**ea, "MEM_AGENT": "codex"})
    mem("forget", "--match", "secret-bastion-qq9", "--yes", env=ea)
    mem("remember", "project/api/host", TEXT, env=ea)
    assert mem("get", "project/api/host", env=ea).stdout.strip() == TEXT
