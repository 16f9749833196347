"""pid38 keyed a captured prompt's stored id with the store's hash key, but a
clone or a restore made a key of its own: a transcript read by the origin
and by its clone (a second machine catching up on the same files, a merge of
the session) stored each of its prompts twice, under two ids.  A push to an
encrypted remote now carries the key sealed to the sync key
(``hashkey/<tag>``, never in the clear) and a clone or restore takes it.
Real ``mem`` processes, real hook runs, a folder remote."""

from __future__ import annotations

from pathlib import Path

from objstore.core.hashkey import KEY_FILE, load_key
from tests.capture.test_pid38_prompt_alias import _mem, _roles, _session


def _remote_bytes(remote: Path) -> bytes:
    return b"".join(p.read_bytes() for p in remote.rglob("*") if p.is_file())


def _origin(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    a, r = tmp_path / "A", tmp_path / "usb"
    r.mkdir()
    _mem(a, "init")
    t = _session(tmp_path, a)
    _mem(a, "import", "claude-code", str(t))
    _mem(a, "remote", "add", "usb", str(r))
    _mem(a, "backup", "usb")
    _mem(a, "remote", "key", "export", "-o", str(tmp_path / "k.key"))
    return a, r, t, tmp_path / "k.key"


def test_a_clone_keys_the_prompts_it_reads_as_its_origin_did(tmp_path):
    a, r, t, k = _origin(tmp_path)
    b = tmp_path / "B"
    _mem(b, "clone", str(r), "--key", str(k))
    _mem(b, "import", "claude-code", str(t))          # the clone reads the transcript its origin read
    got = _roles(b)
    assert sorted(role for role, _src in got) == ["assistant", "assistant", "user", "user"], got
    assert got == _roles(a)
    key = load_key(a)
    assert key is not None and load_key(b) == key
    assert oct((b / KEY_FILE).stat().st_mode & 0o777) == "0o600"
    blob = _remote_bytes(r)
    assert key.hex().encode() not in blob and key not in blob and b"mem-hash-key" not in blob   # sealed only
    assert any(p.parent.name == "hashkey" for p in r.rglob("*") if p.is_file())
    _mem(b, "push", "origin")                           # and nothing comes back twice to the origin
    _mem(a, "pull", "usb")
    assert sorted(role for role, _src in _roles(a)) == ["assistant", "assistant", "user", "user"]


def test_a_restore_keeps_the_backed_up_stores_key(tmp_path):
    a, r, t, k = _origin(tmp_path)
    c = tmp_path / "C"
    _mem(c, "restore", str(r), "--key", str(k))
    _mem(c, "import", "claude-code", str(t))
    assert _roles(c) == _roles(a)
    assert load_key(c) == load_key(a)


def test_a_clone_sharing_the_key_keeps_its_origins_digests_on_the_remote(tmp_path, mem):
    """The digests file's name on a remote comes from the hash key: a clone
    that took its origin's key writes to the origin's file.  Its push keeps
    the pairs there it lacks, so a forget its origin pushed meanwhile still
    reaches a third machine by value (``remote.digests``, test34 T13)."""
    a, b, c, r = (tmp_path / n for n in ("a", "b", "c", "remote"))
    r.mkdir()
    ea, eb, ec = ({"MEM_HOME": str(x)} for x in (a, b, c))
    mem("remember", "user/locker", "orchid-lantern-5521", env=ea)
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    assert load_key(b) == load_key(a)
    mem("remember", "user/b-note", "quartz-meadow-8812", env=eb)
    mem("forget", "user/b-note", "--yes", env=eb)        # B has digests of its own
    mem("forget", "user/locker", "--yes", env=ea)
    mem("push", env=ea)                                   # A's pair on the remote
    mem("push", env=eb)                                   # B pushes its file to the same name
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=ec)
    w = mem("remember", "user/locker", "orchid-lantern-5521", env={**ec, "MEM_AGENT": "codex"}, exit_code=6)
    assert "forgotten" in w.stderr
    mem("remember", "user/b-note", "quartz-meadow-8812", env={**ec, "MEM_AGENT": "codex"}, exit_code=6)
