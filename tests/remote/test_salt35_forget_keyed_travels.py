"""A forget still reaches the other machine now that tombstones hold a
keyed digest (``memory.tombdigests``: test34 T13): an encrypted remote
carries the digests sealed to the sync key (``remote.digests``), so B's
pull forgets the value, refuses an agent's write of it, and nothing on the
remote or in B's export gives the PIN back; an unencrypted remote carries
no digests, and B's pull still empties the forgotten version (the forget's
version record).  Real ``mem`` processes, folder remotes."""

from __future__ import annotations

import json
from pathlib import Path

from objstore.core.objects import value_digest

PIN = "2580"
LONG = "orchid-lantern-5521"


def _pins(blob: str) -> list[str]:
    return [p for p in (f"{i:04d}" for i in range(10000)) if value_digest(p).hex() in blob]


def _remote_text(remote: Path) -> str:
    return " ".join(p.read_bytes().hex() for p in remote.rglob("*") if p.is_file())


def _machines(tmp_path, mem, *extra: str):
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    mem("remember", "user/garage-code", PIN, env=ea)
    mem("remember", "user/locker", LONG, env=ea)
    mem("remote", "add", "origin", str(r), *extra, env=ea)
    mem("push", env=ea)
    if extra:
        mem("clone", str(r), env=eb)      # (the remote's descriptor says it is not encrypted)
    else:
        mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
        mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    assert json.loads(mem("get", "user/locker", "--json", env=eb).stdout)["body"] == LONG
    for key in ("user/garage-code", "user/locker"):
        mem("forget", key, "--yes", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    return ea, eb, r


def test_a_forget_travels_by_an_encrypted_remote_and_gives_no_pin_back(tmp_path, mem):
    ea, eb, r = _machines(tmp_path, mem)
    for env in (ea, eb):
        mem("get", "user/garage-code", env=env, exit_code=4)
        mem("get", "user/locker", env=env, exit_code=4)
        assert "found nowhere" in mem("scan", LONG, env=env, exit_code=None).stdout
    # B holds the digests now: an agent's write of the forgotten values is refused there too
    w = mem("remember", "user/locker", LONG, env={**eb, "MEM_AGENT": "codex"}, exit_code=6)
    assert "forgotten" in w.stderr
    mem("remember", "user/garage-code", PIN, env={**eb, "MEM_AGENT": "codex"}, exit_code=6)
    # B's push does not bring them back to A
    mem("push", env=eb)
    mem("pull", env=ea)
    mem("get", "user/locker", env=ea, exit_code=4)
    out = tmp_path / "b.jsonl"
    mem("export", "-o", str(out), env=eb)
    assert _pins(out.read_text() + _remote_text(r)) == []


def test_an_unencrypted_remote_carries_no_digest_and_the_forget_still_empties_the_version(tmp_path, mem):
    ea, eb, r = _machines(tmp_path, mem, "--no-encrypt")
    assert not (r / "digests").exists()
    assert _pins(_remote_text(r)) == []        # the remote is in the clear: its tombstones give nothing
    for env in (ea, eb):
        mem("get", "user/garage-code", env=env, exit_code=4)
        mem("get", "user/locker", env=env, exit_code=4)
    mem("push", env=eb)
    mem("pull", env=ea)
    mem("get", "user/locker", env=ea, exit_code=4)
    assert "found nowhere" in mem("scan", LONG, env=eb, exit_code=None).stdout
