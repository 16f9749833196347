"""fresh43 F7: after a damaged ``seal-rules`` was mended the documented way
(``mem sealed rebuild-rules``), the rules of values ``mem forget KEY``
withheld were gone (they cannot be rebuilt: the value is gone), and the
rebuild said only "seal rules … written": the person could not learn that
a forgotten value quoted in a later turn is now stored in the clear.  Now
the rebuild names each forgotten key left with no rule, and what to do;
a rebuild of a sound file names none.  Real ``mem`` processes."""

from __future__ import annotations

import json

PERSON = {"MEM_AGENT": "0"}
VALUE = "beta-host-9922"


def _store(mem, tmp_path):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/home/alarm", "sky-4419-blue", "--sensitivity", "secret", env=PERSON)
    mem(*h, "remember", "project/web/host", VALUE, env=PERSON)
    mem(*h, "remember", "project/web/host", "delta-host-1", env=PERSON)
    mem(*h, "forget", "project/web/host", "--yes", env=PERSON)
    assert b"forgotten:project/web/host" in (home / "seal-rules").read_bytes()
    return home, h, pp


def test_rebuild_names_the_forgotten_keys_whose_rules_were_lost(mem, tmp_path):
    home, h, pp = _store(mem, tmp_path)
    rules = home / "seal-rules"
    rules.write_bytes(rules.read_bytes()[:20])          # cut short: a full disk, a sync tool
    mem(*h, "remember", "project/web/x", "delta-1", env=PERSON, exit_code=13)
    r = mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON)
    assert "seal rules of 1 sealed key written" in r.stdout, r.stdout
    assert "1 key forgotten with 'mem forget KEY' now has no rule" in r.stderr, r.stderr
    assert "project/web/host" in r.stderr and "mem forget --match VALUE" in r.stderr, r.stderr
    rules.write_bytes(rules.read_bytes()[:20])
    r = mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), "--json", env=PERSON)
    assert json.loads(r.stdout)["forgotten_unruled"] == ["project/web/host"], r.stdout


def test_rebuild_of_a_sound_file_names_none(mem, tmp_path):
    home, h, pp = _store(mem, tmp_path)
    r = mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), "--json", env=PERSON)
    assert json.loads(r.stdout)["forgotten_unruled"] == [], r.stdout
    assert b"forgotten:project/web/host" in (home / "seal-rules").read_bytes()   # a parsing line is kept
