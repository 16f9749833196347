"""``mem seal KEY`` of a key whose plain value a push already sent to a
remote said nothing of it (session 19's tester, W4): the remote kept the
plaintext while the user believed it sealed.  Now seal names each remote
that holds it and the push that purges it there, as forget does (one
helper, ``cmds._common.note_remotes_holding``); ``--json`` lists them."""

from __future__ import annotations

from objstore import scan_store

VALUE = "the staging db answers on port 6543 behind wombat-gate"


def _vault(mem, tmp_path) -> None:
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("vault", "init", "--passphrase-file", str(pp))


def test_seal_names_the_remotes_that_hold_the_plain_value(mem, tmp_path, store_path):
    pushed, other = tmp_path / "pushed", tmp_path / "other"
    pushed.mkdir()
    other.mkdir()
    mem("remember", "project/api/gate", VALUE)
    mem("remote", "add", "origin", str(pushed), "--no-encrypt")
    mem("remote", "add", "spare", str(other), "--no-encrypt")
    mem("push", "origin")
    _vault(mem, tmp_path)
    r = mem("seal", "project/api/gate")
    assert "remote origin held the plain value" in r.stderr and "'mem push origin'" in r.stderr, r.stderr
    assert "spare" not in r.stderr                       # never pushed to: it holds nothing
    # the command it names does purge it there
    assert mem("scan", VALUE, exit_code=1).stdout.startswith("remote origin")
    mem("push", "origin")
    mem("scan", VALUE)                                   # found nowhere: exit 0
    assert scan_store(store_path, [VALUE.encode()]) == []


def test_seal_json_lists_them_and_a_key_never_pushed_names_none(mem, tmp_path):
    remote = tmp_path / "remote"
    remote.mkdir()
    mem("remember", "project/api/gate", VALUE)
    mem("remote", "add", "origin", str(remote), "--no-encrypt")
    mem("push", "origin")
    mem("remember", "project/api/late", "written after the push " + VALUE)
    _vault(mem, tmp_path)
    assert mem("seal", "project/api/gate", "--json").json["remotes_holding"] == ["origin"]
    r = mem("seal", "project/api/late", "--json")
    assert r.json["remotes_holding"] == [] and "holds" not in r.stderr
