"""A seal follows the value to the other machines (test26 V11): ``mem seal
KEY`` on A removed the plaintext on A and, after a push, on the remote, but
B (a clone) kept its plain copy on pull, B's next push uploaded it again, a
new clone got the key as plain, and A's pull took the plaintext object back.
Now the seal writes a withdrawal record per plain version (a tombstone whose
32 bytes hash only the version's metadata, never the value:
``tombstones.withdrawal_digest``), which travels with the tombstones.  Real
``mem`` processes on three stores and a folder remote; the library path on
S3 (moto)."""

from __future__ import annotations

import json

from objstore import scan_store

VALUE = "wifi is okapi-lantern-889"
NEEDLE = b"okapi-lantern"


def _homes(tmp_path, mem):
    a, b, r = tmp_path / "a", tmp_path / "b", tmp_path / "remote"
    r.mkdir()
    ea, eb = {"MEM_HOME": str(a)}, {"MEM_HOME": str(b)}
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("vault", "init", "--passphrase-file", str(pp), env=ea)
    mem("remember", "user/wifi", VALUE, env=ea)
    mem("remember", "user/editor", "vim, with 4-space tabs", env=ea)
    mem("remote", "add", "origin", str(r), env=ea)
    mem("push", env=ea)
    mem("remote", "key", "export", "-o", str(tmp_path / "k.key"), env=ea)
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env=eb)
    assert json.loads(mem("get", "user/wifi", "--json", env=eb).stdout)["body"] == VALUE
    return ea, eb, a, b, r


def test_a_seal_empties_every_other_copy_and_none_comes_back(tmp_path, mem):
    ea, eb, a, b, r = _homes(tmp_path, mem)
    out = mem("seal", "user/wifi", env=ea)
    assert "every other machine syncing with this store still holds the plain value" in out.stderr, out.stderr
    mem("gc", "--prune=now", env=ea)
    mem("push", env=ea)
    # B's pull drops its plain copy; its next push sends nothing of it
    mem("pull", env=eb)
    assert mem("get", "user/wifi", env=eb, exit_code=None).exit_code == 4
    mem("remember", "project/x/other", "b writes something", env=eb)
    mem("push", env=eb)
    mem("gc", "--prune=now", env=eb)
    assert scan_store(b, [NEEDLE]) == []
    assert scan_store(r, [NEEDLE]) == []          # (sync-key encrypted: also read decrypted below)
    assert mem("scan", "okapi-lantern", env=eb).exit_code == 0   # found nowhere, the remote read back too
    # a new clone never gets it
    c = tmp_path / "c"
    mem("clone", str(r), "--key", str(tmp_path / "k.key"), env={"MEM_HOME": str(c)})
    assert mem("get", "user/wifi", env={"MEM_HOME": str(c)}, exit_code=None).exit_code == 4
    assert scan_store(c, [NEEDLE]) == []
    assert json.loads(mem("get", "user/editor", "--json", env={"MEM_HOME": str(c)}).stdout)["body"] \
        == "vim, with 4-space tabs"
    # A takes nothing back, and its value is still sealed
    mem("pull", env=ea)
    assert scan_store(a, [NEEDLE]) == []
    assert "0 unreachable" in mem("fsck", env=ea).stdout
    assert mem("sealed", "list", env=ea).stdout.count("user/wifi") == 1
    # the record holds no hash of the value: no tombstone of B or C holds value_digest(VALUE)
    from objstore.core.objects import value_digest
    from objstore.core.store import Store
    from objstore.memory.tombstones import SEAL_WITHDRAW, all_tombstones
    for home in (a, b, c):
        ts = all_tombstones(Store(home))
        assert [t.reason for t in ts] == [SEAL_WITHDRAW]
        assert all(t.value_sha256 != value_digest(VALUE) for t in ts)


def test_b_pushing_before_it_pulled_the_seal_is_emptied_on_arrival(tmp_path, mem):
    """B wrote a newer version offline (the seal did not see it); its push
    pulls first and empties only the version A sealed; A's pull seals B's
    value there and withdraws it (session 27, test27 V3:
    test_sealed_elsewhere_converges.py), so no plaintext stays on A."""
    ea, eb, a, b, r = _homes(tmp_path, mem)
    mem("remember", "user/wifi", "wifi moved to heron-5g", env=eb)
    mem("seal", "user/wifi", env=ea)
    mem("push", env=ea)
    mem("push", env=eb)
    log = json.loads(mem("log", "user/wifi", "--json", env=eb).stdout)
    assert [v["body"] for v in log] == ["wifi moved to heron-5g", ""], log   # newest first: v2 kept, v1 emptied
    mem("gc", "--prune=now", env=eb)
    assert scan_store(b, [NEEDLE]) == []
    mem("pull", env=ea)
    mem("gc", "--prune=now", env=ea)
    assert scan_store(a, [NEEDLE]) == []


def test_unseal_then_push_keeps_the_plain_value_everywhere(tmp_path, mem):
    """``mem unseal`` marks the versions it restores (``unsealed:<ms>``): the
    earlier seal's record does not take them, here or on B; a seal made
    after the unseal withdraws them again."""
    ea, eb, a, b, r = _homes(tmp_path, mem)
    mem("seal", "user/wifi", env=ea)
    mem("push", env=ea)
    mem("pull", env=eb)
    r_un = mem("unseal", "user/wifi", "--passphrase-file", str(tmp_path / "pp"), env=ea, exit_code=None)
    assert r_un.exit_code == 0, r_un.stderr
    mem("push", env=ea)
    mem("pull", env=eb)
    assert json.loads(mem("get", "user/wifi", "--json", env=ea).stdout)["body"] == VALUE
    assert json.loads(mem("get", "user/wifi", "--json", env=eb).stdout)["body"] == VALUE
    assert mem("seal", "user/wifi", "--json", env=ea).json["other_machines"] == ["origin"]
    mem("push", env=ea)
    mem("pull", env=eb)
    assert mem("get", "user/wifi", env=eb, exit_code=None).exit_code == 4
    mem("gc", "--prune=now", env=eb)
    assert scan_store(b, [NEEDLE]) == []


def test_library_seal_travels_on_folder_and_s3(machines):
    """The library path, on a folder and on moto's S3: B's pull empties its
    copy, A's push never sends it, B's push never sends it back."""
    from objstore import remember
    from objstore.vault.identity import init_vault
    from objstore.vault.sealed import seal_key
    a = machines("a")
    init_vault(a.store, "correct horse battery staple", work_factor=10)
    remember(a.store, "user/wifi", VALUE)
    a.push()
    b = machines("b", clone_from=a)
    seal_key(a.store, "user/wifi")
    a.push()
    b.pull()
    assert b.store.refs.read("facts/user/wifi") is None
    remember(b.store, "project/x/other", "b writes something")
    b.push()
    a.pull()
    assert a.store.refs.read("facts/user/wifi") is None and a.store.refs.read("sealed/user/wifi") is not None
    c = machines("c", clone_from=a)
    assert c.store.refs.read("facts/user/wifi") is None
    assert c.store.refs.read("facts/project/x/other") is not None


def test_the_withdrawal_record_is_the_one_docs_format_md_shows():
    """docs/format.md, "Seal withdrawal records": the digest and frame of
    the example, byte for byte, and a different value gives the same
    record (it holds nothing of the value)."""
    import blake3

    from objstore.core.codec import encode
    from objstore.core.objects import Fact
    from objstore.memory.tombstones import withdrawal_digest, withdrawal_tombstone

    def fact(body: str) -> Fact:
        return Fact(key="user/wifi", kind="user", body=body, version=1, parent=None, valid_from=1772000000000,
                    recorded_at=1772000000000, trust="user_stated", sensitivity="private", owner="user")
    d = withdrawal_digest(fact(VALUE))
    assert d.hex() == "475c65fbbf6cb4afffba2ad82fcfd7e03e8ef56e990b350a1f4102a6d29e3bda"
    assert withdrawal_digest(fact("1234")) == d
    frame = encode(withdrawal_tombstone(fact(VALUE), 1772000100000))
    assert len(frame) == 103
    assert blake3.blake3(frame).hexdigest() == "ce07f3a5a058cf2d991ddaca5dc584d5667c610c03cb4045c1f8a63b30a4ee1a"
