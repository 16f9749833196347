"""test36b T8: after a pull applied another machine's forget (or seal), the
puller's ``logs/audit`` kept the forgotten version's full object id, which,
hashed against a guess list (the object is canonical CBOR of fields the
version record gives), gave a 4-digit PIN back in 0.1 s.  The machine that
forgot it had the id replaced by ``forgotten``; now the pull does the same.
Real ``mem`` processes on two stores and a folder remote."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("encrypt", [True, False])
def test_a_pulled_forget_takes_the_versions_id_out_of_the_audit_log(tmp_path, mem, encrypt):
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    mem("remember", "user/garage-code", "3391", env=ea)
    mem("remote", "add", "origin", str(r), *([] if encrypt else ["--no-encrypt"]), env=ea)
    mem("push", env=ea)
    if encrypt:
        mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
        mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    else:
        mem("clone", str(r), env=eb)
    (vid,) = [v["id"] for v in json.loads(mem("log", "user/garage-code", "--json", env=eb).stdout)]
    assert vid in (b / "logs" / "audit").read_text()
    mem("forget", "user/garage-code", "--yes", env=ea)
    mem("gc", "--prune=now", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    mem("gc", "--prune=now", env=eb)
    assert mem("get", "user/garage-code", env=eb, exit_code=None).exit_code != 0
    for f in (b / "logs").rglob("*"):
        assert not f.is_file() or vid not in f.read_text(errors="replace"), f
