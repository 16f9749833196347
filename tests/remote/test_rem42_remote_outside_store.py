"""fresh42 F15: a folder remote that is the store, inside it or holding it
was accepted (push's own hint proposed one), and ``mem nuke`` then deleted
the "backup" with the store.  Now ``remote add`` refuses it (exit 2) and a
push or backup to one added before is refused, nothing written.
fresh42 F16: ``mem export -o FILE`` and ``mem remote key export -o FILE``
replaced any existing file, a folder remote's manifest included (plain
memory in an encrypted remote).  Now an existing file is refused without
--force (exit 2) and a path inside a folder remote always is."""

from __future__ import annotations

import json

PERSON = {"MEM_AGENT": "0"}


def test_a_remote_inside_the_store_is_refused(mem, tmp_path):
    home = tmp_path / "store"
    env = {**PERSON, "MEM_HOME": str(home)}
    mem("remember", "user/editor", "vim", env=env)
    for url in (home, home / "objects"):
        r = mem("remote", "add", "bk", str(url), env=env, exit_code=2)
        assert "a remote must be outside the store" in r.stderr, r.stderr
    assert not (home / "remotes.json").exists() or "bk" not in json.loads((home / "remotes.json").read_text())
    (home / "inside").mkdir()
    (home / "remotes.json").write_text(json.dumps({"bk": {"url": str(home / "inside"), "endpoint": None,
                                                          "encrypt": True}}))   # added by an older mem
    for args in (("push", "bk"), ("backup", "bk")):
        r = mem(*args, env=env, exit_code=2)
        assert "inside the store" in r.stderr, r.stderr
    assert list((home / "inside").iterdir()) == []
    (tmp_path / "usb").mkdir()
    mem("remote", "add", "usb", str(tmp_path / "usb"), env=env)
    mem("push", "usb", env=env)


def test_export_never_replaces_a_file_without_force(mem, tmp_path):
    home, remote = tmp_path / "store", tmp_path / "usb"
    remote.mkdir()
    env = {**PERSON, "MEM_HOME": str(home)}
    mem("remember", "user/editor", "vim with four-space tabs", env=env)
    mem("remote", "add", "origin", str(remote), env=env)
    mem("push", env=env)
    manifest = (remote / "manifest").read_bytes()
    notes = tmp_path / "notes.md"
    notes.write_text("my notes\n")
    for args in (("export", "-o", str(notes)), ("remote", "key", "export", "-o", str(notes))):
        r = mem(*args, env=env, exit_code=2)
        assert "exists; nothing was written (--force replaces it)" in r.stderr, r.stderr
        assert notes.read_text() == "my notes\n"
    for force in ((), ("--force",)):
        r = mem("export", "-o", str(remote / "manifest"), *force, env=env, exit_code=2)
        assert "inside the folder of remote origin" in r.stderr, r.stderr
        r = mem("export", "-o", str(remote / "new.jsonl"), *force, env=env, exit_code=2)
        assert "inside the folder of remote origin" in r.stderr, r.stderr
    assert (remote / "manifest").read_bytes() == manifest
    assert not (remote / "new.jsonl").exists()
    mem("export", "-o", str(notes), "--force", env=env)
    assert "vim with four-space tabs" in notes.read_text()
    mem("remote", "key", "export", "-o", str(notes), "--force", env=env)
    assert notes.read_text().startswith("AGE-SECRET-KEY-1") or "AGE-SECRET-KEY-1" in notes.read_text()
    mem("pull", env=env)
