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
