"""A sealed key whose ref was set back to an older version (a synced
folder's older copy; test41 T24): ``mem sealed export`` wrote the older
secret's age file silently, ``mem sealed list`` said nothing.  Now export
of the current version refuses (exit 13, nothing written, the repair
named), ``--version N`` writes that version with a warning, and list marks
the key and says it on stderr (``--json``: its ``set_back`` field).  Real
``mem`` processes on a real vault store."""

from __future__ import annotations

from tests._setback import set_back

KEY = "user/tok"


def test_sealed_export_refuses_and_list_marks_a_set_back_sealed_key(mem, store_path, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse pass set42\n")
    mem("vault", "init", "--passphrase-file", str(pp))
    set_back(mem, store_path, tmp_path, KEY, ("tok-oldvalue-12345678", "tok-newvalue-87654321"), keep=1,
             ns="sealed", extra=("--sensitivity", "secret"))
    out = tmp_path / "tok.age"
    out.write_bytes(b"kept")
    r = mem("sealed", "export", KEY, "-o", str(out), exit_code=13)
    assert "set back" in r.stderr and "nothing was written" in r.stderr and "mem fsck --repair" in r.stderr, r.stderr
    assert out.read_bytes() == b"kept"
    r = mem("sealed", "export", KEY, "--version", "1", "-o", str(out))
    assert "set back" in r.stderr and out.read_bytes() != b"kept"

    r = mem("sealed", "list")
    assert f"{KEY}  v1/1  sealed" in r.stdout and "SET BACK: newer v2 is stored" in r.stdout, r.stdout
    assert "set back" in r.stderr
    doc = mem("sealed", "list", "--json").json
    assert doc[0]["set_back"]["version"] == 1 and doc[0]["set_back"]["newer_version"] == 2

    mem("fsck", "--repair")
    mem("sealed", "export", KEY, "-o", str(out))
    r = mem("sealed", "list")
    assert f"{KEY}  v2/2  sealed" in r.stdout and "SET BACK" not in r.stdout and not r.stderr
    assert "set_back" not in mem("sealed", "list", "--json").json[0]
