"""seal15: ``mem seal`` does not seal a version a forget emptied (the sealed
chain has a gap in its place, which fsck allows), and ``mem unseal`` rebuilt
the plain chain from the sealed versions alone: the forgotten v1's place was
dropped, the plain root was numbered 2 and fsck said CORRUPT (exit 13), in
this store and in every clone of it.  Now unseal puts a forgotten
placeholder in every gap, so the numbering is unchanged."""

from __future__ import annotations

from tests.conftest import fact_chain


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
    assert fact_chain(store_path, key) == [(3, False, "value 3"), (2, False, "value 2"), (1, True, "")]
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


def test_seal_and_unseal_keep_the_forgotten_newest_versions_place(mem, store_path, pwfile):
    """fix16b: a forget of the *newest* version left no gap below a sealed
    version, so seal kept nothing of it and unseal gave back a chain ending
    at v2: 'mem log' lost the forgotten v3 and the next write was numbered 3
    again.  Seal now keeps that place as a forgotten stub."""
    key = "user/test/db"
    for v in (1, 2, 3):
        mem("remember", key, f"value {v}")
    mem("forget", f"{key}@v3", "--yes")
    mem("vault", "init", "--passphrase-file", str(pwfile), input="")
    out = mem("seal", key).stdout
    assert "1 version encrypted" not in out and "2 versions encrypted" in out and "forgotten v3" in out, out
    log = mem("log", key).stdout
    assert "v3" in log and "forgotten" in log, log
    shown = mem("sealed", "show", key, "--all", "--passphrase-file", str(pwfile)).stdout
    assert "(forgotten)" in shown and "value 2" in shown and "value 3" not in shown, shown
    assert mem("sealed", "show", key, "--passphrase-file", str(pwfile)).stdout.strip() == "value 2"
    mem("fsck")
    mem("unseal", key, "--passphrase-file", str(pwfile))
    assert mem("fsck", exit_code=None).exit_code == 0
    assert fact_chain(store_path, key) == [(3, True, ""), (2, False, "value 2"), (1, False, "value 1")]
    log = mem("log", key).stdout
    assert "v3" in log and "forgotten at" in log and "value 3" not in log, log
    assert mem("get", key).stdout.strip() == "value 2"
    # the numbering goes on above the forgotten place, sealed or plain
    mem("seal", key)
    mem("remember", key, "value 4", "--sensitivity", "secret")
    assert "v4" in mem("log", key).stdout
    mem("unseal", key, "--passphrase-file", str(pwfile))
    assert fact_chain(store_path, key) == [(4, False, "value 4"), (3, True, ""), (2, False, "value 2"),
                                       (1, False, "value 1")]
    assert mem("fsck", exit_code=None).exit_code == 0


def test_forget_of_one_version_of_a_sealed_key_says_it_is_sealed(mem, store_path, pwfile):
    """test16b B3: ``mem forget KEY@vN`` of a sealed key said "no key KEY";
    it says the key is sealed (exit 4) and how to forget it, and keeps it."""
    key = "user/bank/note"
    mem("remember", key, "note v1 mole-cedar")
    mem("vault", "init", "--passphrase-file", str(pwfile), input="")
    mem("seal", key)
    r = mem("forget", f"{key}@v1", "--yes", exit_code=4)
    assert "is sealed" in r.stderr and f"mem forget {key}" in r.stderr and "no key" not in r.stderr, r.stderr
    assert key in mem("sealed", "list").stdout
