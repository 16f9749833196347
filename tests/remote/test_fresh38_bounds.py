"""fresh38: inputs without bounds.  F23 a ``--snapshot`` prefix matching two
snapshots restored the oldest (exit 0); F21 a 500-character remote name
written into remotes.json by hand ended every ``mem status`` in "internal
error"; F9 ``mem sealed import KEY /dev/zero`` read 10 GB in 7 s and a FIFO
blocked forever; F17 ``mem mcp keys mint --expires-days inf`` was an
internal error.  Real ``mem`` processes on real stores and folder remotes."""

from __future__ import annotations

import json
import os


def test_an_ambiguous_snapshot_prefix_is_refused_and_restores_nothing(mem, tmp_path):
    a, r = tmp_path / "a", tmp_path / "remote"
    r.mkdir()
    mem("--home", str(a), "remember", "project/api/db", "Postgres 15")
    mem("--home", str(a), "remote", "add", "usb", str(r), "--no-encrypt")
    mem("--home", str(a), "backup", "usb")
    mem("--home", str(a), "remember", "project/api/db", "Postgres 17 NEW")
    mem("--home", str(a), "backup", "usb")
    names = [s["name"] for s in json.loads(mem("--home", str(a), "backup", "usb", "--list", "--json").stdout)]
    assert len(names) == 2 and names[0][:3] == names[1][:3]
    out = mem("--home", str(tmp_path / "b"), "restore", str(r), "--snapshot", names[0][:3], exit_code=4)
    assert "matches 2 snapshots" in out.stderr and not (tmp_path / "b").exists()
    mem("--home", str(tmp_path / "c"), "restore", str(r), "--snapshot", names[1])
    assert mem("--home", str(tmp_path / "c"), "get", "project/api/db").stdout.strip() == "Postgres 17 NEW"


def test_a_remote_name_no_remote_add_takes_is_damage_not_an_internal_error(mem, tmp_path):
    home, r = tmp_path / "s", tmp_path / "remote"
    r.mkdir()
    mem("--home", str(home), "remember", "project/a/b", "c")
    (home / "remotes.json").write_text(json.dumps({"x" * 500: {"url": str(r), "encrypt": True, "endpoint": None}}))
    for args in (["status"], ["push", "x" * 500], ["status"]):
        out = mem("--home", str(home), *args, exit_code=13)
        assert "the name of remote #1 is not a remote name" in out.stderr and "internal error" not in out.stderr


def test_sealed_import_reads_no_device_fifo_or_huge_input(mem, tmp_path):
    home = tmp_path / "s"
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("--home", str(home), "vault", "init", "--passphrase-file", str(pp))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for f in ("/dev/zero", str(fifo)):
        out = mem("--home", str(home), "sealed", "import", "user/z", f, "--passphrase-file", str(pp), exit_code=2,
                  timeout=60)
        assert "is not a regular file" in out.stderr
    big = tmp_path / "big.age"
    big.write_bytes(b"age-encryption.org/v1\n" + b"x" * (1 << 20))
    out = mem("--home", str(home), "sealed", "import", "user/z", str(big), "--passphrase-file", str(pp), exit_code=2)
    assert "over 1,048,576 bytes" in out.stderr
    assert "user/z" not in mem("--home", str(home), "sealed", "list").stdout


def test_an_infinite_key_lifetime_is_refused(mem, tmp_path):
    home = tmp_path / "s"
    mem("--home", str(home), "remember", "project/a/b", "c")
    for days in ("inf", "1e308", "nan", "40000"):
        out = mem("--home", str(home), "mcp", "keys", "mint", "--name", "k1", "--role", "agent",
                  "--expires-days", days, exit_code=2)
        assert "at most 36,525" in out.stderr and "internal error" not in out.stderr
    mem("--home", str(home), "mcp", "keys", "mint", "--name", "k1", "--role", "agent", "--expires-days", "30")
