"""seal15: ``mem seal`` does not seal a version a forget emptied (the sealed
chain has a gap in its place, which fsck allows), and ``mem unseal`` rebuilt
the plain chain from the sealed versions alone: the forgotten v1's place was
dropped, the plain root was numbered 2 and fsck said CORRUPT (exit 13), in
this store and in every clone of it.  Now unseal puts a forgotten
placeholder in every gap, so the numbering is unchanged."""

from __future__ import annotations

from objstore.core.objects import Fact


def test_seal_and_unseal_keep_a_forgotten_versions_place(mem, store_path, pwfile, tmp_path):
    key = "user/test/db"
    for v in (1, 2, 3):
        mem("remember", key, f"value {v}")
    mem("forget", f"{key}@v1", "--yes")
    mem("vault", "init", "--passphrase-file", str(pwfile), input="")
    mem("seal", key)
    mem("fsck")
    mem("unseal", key, "--passphrase-file", str(pwfile))
    r = mem("fsck", exit_code=None)
    assert r.exit_code == 0, r.stdout + r.stderr
    d = mem("diff", f"{key}@v1", exit_code=None)
    assert "forgotten" in d.stdout + d.stderr, d.stdout + d.stderr
    assert mem("get", key).stdout.strip() == "value 3"
    log = mem("log", key).stdout
    assert "value 1" not in log
    from objstore.core.store import Store
    s = Store.open(store_path)
    chain, oid = [], s.refs.read(f"facts/{key}")
    while oid:
        f = s.get(oid, Fact)
        chain.append((f.version, bool(f.forgotten), f.body))
        oid = f.parent
    assert chain == [(3, False, "value 3"), (2, False, "value 2"), (1, True, "")]
    # seal again, then unseal again: the same
    mem("seal", key)
    mem("unseal", key, "--passphrase-file", str(pwfile))
    assert mem("fsck", exit_code=None).exit_code == 0
    # what a push carries is whole too: a clone of the store passes fsck and keeps the place
    remote, rkey = tmp_path / "remote", tmp_path / "sync.key"
    remote.mkdir()
    mem("remote", "add", "origin", str(remote))
    mem("push")
    mem("remote", "key", "export", "-o", str(rkey))
    c = ["--home", str(tmp_path / "clone")]
    mem(*c, "clone", str(remote), "--key", str(rkey))
    assert mem(*c, "fsck", exit_code=None).exit_code == 0
    d = mem(*c, "diff", f"{key}@v1", exit_code=None)
    assert "forgotten" in d.stdout + d.stderr, d.stdout + d.stderr
    assert mem(*c, "get", key).stdout.strip() == "value 3"
