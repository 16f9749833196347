"""A ref file that does not hold an id (issue 21 re-attack, item 2's area): reading
and writing the healthy part goes on, fsck names the ref, and fsck --repair restores
it from its reflog (or removes it when nothing names a sound object)."""

from __future__ import annotations

import json


def test_one_damaged_ref_does_not_stop_the_store_and_repair_restores_it(mem, store_path, tmp_path):
    mem("remember", "user/editor", "helix")
    mem("remember", "user/editor", "vim")
    mem("remember", "user/shell", "fish")
    t = tmp_path / "s1.jsonl"
    t.write_text(json.dumps({"type": "user", "uuid": "u1", "sessionId": "s1", "cwd": "/p",
                             "timestamp": "2026-01-05T10:00:00Z",
                             "message": {"role": "user", "content": "the quokka plan"}}) + "\n")
    mem("import", "claude-code", str(t))
    (store_path / "refs" / "facts" / "user" / "editor").write_text("zzzz\n")
    (store_path / "refs" / "sessions" / "s1").write_text("not an id\n")
    (store_path / "refs" / "facts" / "user" / "orphan").write_text("garbage\n")   # no reflog: dropped
    # reading the healthy part goes on, with a warning
    assert mem("get", "user/shell").stdout.strip() == "fish"
    r = mem("context")
    assert "user/shell" in r.stdout and "damaged ref" in r.stderr
    r = mem("sessions")
    assert "damaged ref" in r.stderr
    mem("remember", "user/pager", "less")                      # writing goes on
    r = mem("fsck", exit_code=13)
    assert "ref facts/user/editor: does not hold an object id" in r.stdout + r.stderr
    r = mem("fsck", "--repair")
    assert "restored facts/user/editor from its reflog" in r.stdout
    assert "restored sessions/s1 from its reflog" in r.stdout
    assert "removed facts/user/orphan" in r.stdout
    assert "ok:" in mem("fsck").stdout
    assert mem("get", "user/editor").stdout.strip() == "vim"
    assert "v1" in mem("log", "user/editor").stdout
    assert "quokka" in mem("show", "s1").stdout
    assert list((store_path / "quarantine").rglob("ref-facts%2Fuser%2Feditor"))
