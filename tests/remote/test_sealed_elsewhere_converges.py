"""Writes on another machine after a seal or a forget here converge
(test27 V3, V14).  Real ``mem`` processes on two stores, a folder remote
and a fresh clone; the library path on a folder and on moto's S3.

V3: A seals a key and pushes; B, not pulled yet, writes a newer plain value
and pushes.  A's pull used to receive B's value without a ref (a plain write
to a sealed key), A's gc deleted it, A's push removed it from the remote and
B's next push put it back.  Now A's pull seals B's value here (the vault's
public recipient needs no passphrase) and writes its withdrawal record: B's
next pull drops its plain copy, and no plain copy reaches the remote again.

V14: A forgets a key and pushes; on B (not pulled) the person writes a new
value and then the forgotten one back.  The merge used to empty that later
``user_stated`` write with the older tombstone, and the key fell back to the
value the person had replaced.  Now a ``user_stated`` version recorded after
every forget of its value stays, as ``mem remember`` allows on one machine.
"""

from __future__ import annotations

import json

from objstore import scan_store

OLD = "internal endpoint is gopher-vault-7788.example"
NEW = "internal endpoint moved to gopher-vault-9900.example"
KEY = "project/x/api-endpoint"


def _two(tmp_path, mem, key: str, value: str, *, vault: bool):
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    if vault:
        (tmp_path / "pp").write_text("correct horse battery staple\n")
        mem("vault", "init", "--passphrase-file", str(tmp_path / "pp"), env=ea)
    mem("remember", key, value, env=ea)
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    return ea, eb, a, b, r


def _sealed_current(mem, tmp_path, env) -> str:
    out = mem("sealed", "show", KEY, "--passphrase-file", str(tmp_path / "pp"), "--raw", env=env)
    return out.stdout.strip()


def test_a_value_written_elsewhere_after_a_seal_is_sealed_here_and_leaves_every_plain_copy(tmp_path, mem):
    ea, eb, a, b, r = _two(tmp_path, mem, KEY, OLD, vault=True)
    mem("seal", KEY, env=ea)
    mem("push", env=ea)
    mem("remember", KEY, NEW, env=eb)          # B had not pulled the seal
    mem("push", env=eb)
    pulled = mem("pull", env=ea)
    assert "1 plain value written elsewhere to a key sealed here, sealed here" in pulled.stdout + pulled.stderr
    assert _sealed_current(mem, tmp_path, ea) == NEW       # the newer value is current, sealed
    mem("gc", "--prune=now", env=ea)
    assert _sealed_current(mem, tmp_path, ea) == NEW       # gc kept it (sealed: nothing plain to delete)
    mem("push", env=ea)
    assert scan_store(a, [b"gopher-vault"]) == []
    assert mem("scan", "gopher-vault", env=ea).exit_code == 0   # found nowhere: the remote read back, decrypted
    # B's next pull drops its plain copy; its pushes never send it again
    mem("pull", env=eb)
    assert mem("get", KEY, env=eb, exit_code=None).exit_code == 4
    mem("remember", "project/x/other", "b writes something", env=eb)
    mem("push", env=eb)
    mem("gc", "--prune=now", env=eb)
    assert scan_store(b, [b"gopher-vault"]) == []
    assert mem("scan", "gopher-vault", env=eb).exit_code == 0
    # a fresh clone agrees: no plain value of the key; A still answers the sealed NEW
    ed = {"MEM_HOME": str(tmp_path / "d")}
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=ed)
    assert mem("get", KEY, env=ed, exit_code=None).exit_code == 4
    assert json.loads(mem("get", "project/x/other", "--json", env=ed).stdout)["body"] == "b writes something"
    assert scan_store(tmp_path / "d", [b"gopher-vault"]) == []
    mem("pull", env=ea)
    assert _sealed_current(mem, tmp_path, ea) == NEW
    assert mem("get", KEY, env=ea, exit_code=None).exit_code == 6   # sealed here, as before
    assert "0 unreachable" in mem("fsck", env=ea).stdout


def test_an_agent_value_written_elsewhere_does_not_overrule_the_sealed_user_value(tmp_path, mem):
    """B's agent write is a review proposal there (it would overrule the
    person); a proposal of a plain value to a key sealed here is refused as a
    plain write here is: decided here, so B drops it and the remote's copy
    goes with A's push."""
    ea, eb, a, b, r = _two(tmp_path, mem, KEY, OLD, vault=True)
    mem("seal", KEY, env=ea)
    mem("push", env=ea)
    mem("remember", KEY, NEW, "--trust", "agent_observed", env=eb)
    mem("push", env=eb)
    pulled = mem("pull", env=ea)
    assert "1 plain value written elsewhere to a key sealed here refused and withdrawn" \
        in pulled.stdout + pulled.stderr
    assert mem("queue", "list", "--json", env=ea).json == []
    assert _sealed_current(mem, tmp_path, ea) == OLD
    mem("push", env=ea)
    mem("pull", env=eb)
    assert mem("get", KEY, env=eb, exit_code=None).exit_code == 4
    assert mem("queue", "list", "--json", env=eb).json == []
    mem("gc", "--prune=now", env=eb)
    mem("gc", "--prune=now", env=ea)
    # (B keeps its own proposal's object in its queue reflog, as for any item decided elsewhere)
    assert scan_store(a, [b"gopher-vault"]) == []
    assert mem("scan", "gopher-vault", env=ea).exit_code == 0   # the remote too (read back, decrypted)
    mem("push", env=eb)
    assert mem("scan", "gopher-vault", env=ea).exit_code == 0   # B's push does not send it again


def test_a_person_writing_a_forgotten_value_back_elsewhere_keeps_it_through_sync(tmp_path, mem):
    """V14: the sync rule is the local rule."""
    key = "project/q/host"
    ea, eb, a, b, r = _two(tmp_path, mem, key, "bastion is heron-7.corp", vault=False)
    mem("forget", key, "--yes", env=ea)
    mem("push", env=ea)
    mem("remember", key, "new bastion is osprey-9.corp", env=eb)
    mem("remember", key, "bastion is heron-7.corp", env=eb)     # the person sets it back, after the forget
    mem("push", env=eb)
    mem("pull", env=ea)
    for env in (ea, eb):
        assert json.loads(mem("get", key, "--json", env=env).stdout)["body"] == "bastion is heron-7.corp"
    ec = {"MEM_HOME": str(tmp_path / "c")}
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=ec)
    assert json.loads(mem("get", key, "--json", env=ec).stdout)["body"] == "bastion is heron-7.corp"
    # the version the forget named (written before it) stays emptied everywhere
    log = json.loads(mem("log", key, "--json", env=ec).stdout)
    assert [v["body"] for v in log] == ["bastion is heron-7.corp", "new bastion is osprey-9.corp", ""], log


def test_a_forgotten_value_written_back_below_user_stated_elsewhere_is_still_emptied(tmp_path, mem):
    """The exception is the person's: an agent's copy written after the
    forget is emptied as before (``mem remember`` would refuse it here)."""
    key = "project/q/host"
    ea, eb, a, b, r = _two(tmp_path, mem, key, "bastion is heron-7.corp", vault=False)
    mem("forget", key, "--yes", env=ea)
    mem("push", env=ea)
    mem("remember", key, "bastion is heron-7.corp", "--trust", "agent_observed", env=eb, exit_code=None)
    mem("push", env=eb)
    mem("pull", env=ea)
    assert mem("scan", "heron-7", env=ea).exit_code == 0


def test_library_value_written_elsewhere_is_sealed_on_folder_and_s3(machines):
    from objstore import remember
    from objstore.vault.chains import current_sealed, sealed_versions
    from objstore.vault.identity import init_vault, open_identity
    from objstore.vault.sealed import open_text, seal_key
    a = machines("a")
    init_vault(a.store, "correct horse battery staple", work_factor=10)
    remember(a.store, KEY, OLD)
    a.push()
    b = machines("b", clone_from=a)
    seal_key(a.store, KEY)
    a.push()
    remember(b.store, KEY, NEW)
    b.push()
    res = a.pull()
    assert res.sealed_here == 1
    cur = current_sealed(sealed_versions(a.store, KEY))
    assert open_text(open_identity(a.store, "correct horse battery staple"), cur) == NEW
    a.push()
    b.pull()
    assert b.store.refs.read(f"facts/{KEY}") is None
    b.push()
    c = machines("c", clone_from=a)
    assert c.store.refs.read(f"facts/{KEY}") is None
