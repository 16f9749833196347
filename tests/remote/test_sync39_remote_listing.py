"""sync39: what the CLI says about a remote.  fresh38 F1 ``mem status``
said "up to date" after the remote's URL was changed by hand in
remotes.json; F16 ``mem backup --list`` on a remote whose ``mem-remote``
file is gone said "no snapshots yet"; F25 there was no way to list a
remote's snapshots on a new machine (no store) before restoring; test37b
T19.9 ``mem restore`` told a store that never had a vault to put its
vault back.  Real ``mem`` processes on real stores and folder remotes."""

from __future__ import annotations

import json


def test_status_compares_with_the_remote_remotes_json_names_now(mem, tmp_path):
    home, r1, r2 = tmp_path / "s", tmp_path / "r1", tmp_path / "r2"
    r1.mkdir()
    r2.mkdir()
    mem("--home", str(home), "remember", "project/a/db", "Postgres 16")
    mem("--home", str(home), "remote", "add", "usb", str(r1), "--no-encrypt")
    mem("--home", str(home), "push", "usb")
    assert "up to date" in mem("--home", str(home), "status").stdout
    d = json.loads((home / "remotes.json").read_text())
    d["usb"]["url"] = str(r2)                          # edited by hand: an empty remote now
    (home / "remotes.json").write_text(json.dumps(d))
    out = mem("--home", str(home), "status").stdout
    assert "up to date" not in out and "not synced since its URL changed" in out and "mem push usb" in out
    st = json.loads(mem("--home", str(home), "status", "--json").stdout)
    assert st["remotes"][0]["synced"] is False and st["remotes"][0]["to_send"] >= 1
    mem("--home", str(home), "push", "usb")
    assert "up to date" in mem("--home", str(home), "status").stdout
    assert (r2 / "manifest").is_file()


def test_status_reads_another_spelling_of_the_same_folder_as_the_same_remote(mem, tmp_path):
    """test39b B7: "/x/" for "/x" (or /tmp/../x, file:///x) read as "URL changed"."""
    home, r = tmp_path / "s", tmp_path / "r"
    r.mkdir()
    mem("--home", str(home), "remember", "project/a/db", "Postgres 16")
    mem("--home", str(home), "remote", "add", "usb", str(r), "--no-encrypt")
    mem("--home", str(home), "push", "usb")
    for spelling in (f"{r}/", f"{tmp_path}/../{tmp_path.name}/r", f"file://{r}"):
        d = json.loads((home / "remotes.json").read_text())
        d["usb"]["url"] = spelling
        (home / "remotes.json").write_text(json.dumps(d))
        out = mem("--home", str(home), "status").stdout
        assert "up to date" in out and "URL changed" not in out, (spelling, out)


def test_backup_list_of_a_remote_without_its_descriptor_says_damage_not_no_snapshots(mem, tmp_path):
    home, r = tmp_path / "s", tmp_path / "r"
    r.mkdir()
    mem("--home", str(home), "remember", "project/a/db", "Postgres 16")
    mem("--home", str(home), "remote", "add", "usb", str(r))
    mem("--home", str(home), "backup", "usb")
    (r / "mem-remote").unlink()
    for args in (["backup", "usb", "--list"], ["pull", "usb"]):
        out = mem("--home", str(home), *args, exit_code=13)
        assert "mem-remote file (the descriptor) is missing" in out.stderr and "no snapshots" not in out.stderr
    mem("--home", str(home), "push", "usb")             # writes the descriptor again
    assert len(json.loads(mem("--home", str(home), "backup", "usb", "--list", "--json").stdout)) == 1


def test_backup_list_url_reads_a_remote_with_no_store(mem, tmp_path):
    home, r, new = tmp_path / "s", tmp_path / "r", tmp_path / "new"
    r.mkdir()
    mem("--home", str(home), "remember", "project/a/db", "Postgres 16")
    mem("--home", str(home), "remote", "add", "usb", str(r))
    mem("--home", str(home), "backup", "usb")
    mem("--home", str(home), "remote", "key", "export", "-o", str(tmp_path / "k.key"))
    out = mem("--home", str(new), "backup", "--list", str(r), exit_code=12)
    assert "encrypted and no sync key was given" in out.stderr and "--key FILE" in out.stderr
    got = json.loads(mem("--home", str(new), "backup", "--list", str(r), "--key", str(tmp_path / "k.key"),
                         "--json").stdout)
    want = json.loads(mem("--home", str(home), "backup", "usb", "--list", "--json").stdout)
    assert got == want and len(got) == 1 and not new.exists()
    (tmp_path / "empty").mkdir()
    out = mem("--home", str(new), "backup", "--list", str(tmp_path / "empty"), exit_code=4)
    assert "no mem remote at" in out.stderr
    mem("--home", str(home), "backup", "usb", "--key", str(tmp_path / "k.key"), exit_code=2)


def _plain_remote(mem, tmp_path, then: str):
    """A store ``s`` holding one key, with the unencrypted folder remote ``usb`` at ``r``, after ``mem THEN usb``
    (``backup`` or ``push``); returns ``(home, r)``."""
    home, r = tmp_path / "s", tmp_path / "r"
    r.mkdir()
    mem("--home", str(home), "remember", "project/a/db", "Postgres 16")
    mem("--home", str(home), "remote", "add", "usb", str(r), "--no-encrypt")
    mem("--home", str(home), then, "usb")
    return home, r


def test_restore_says_nothing_of_a_vault_the_store_never_had(mem, tmp_path):
    _home, r = _plain_remote(mem, tmp_path, "backup")
    out = mem("--home", str(tmp_path / "new"), "restore", str(r))
    assert "restored snapshot" in out.stdout and "vault" not in out.stderr and "sealed" not in out.stderr
    got = json.loads(mem("--home", str(tmp_path / "new2"), "restore", str(r), "--json").stdout)
    assert got["snapshot_sealed"] == 0


def test_backup_list_url_of_a_remote_without_snapshots_names_a_command_that_works(mem, tmp_path):
    """test39b B16: the hint said 'mem backup URL', which backup (a remote NAME) refuses."""
    home, r = _plain_remote(mem, tmp_path, "push")
    out = mem("--home", str(tmp_path / "new"), "backup", "--list", str(r))
    assert f"mem remote add NAME {r}, then mem backup NAME" in out.stderr, out.stderr
    assert "make one with: mem backup usb" in mem("--home", str(home), "backup", "usb", "--list").stderr
