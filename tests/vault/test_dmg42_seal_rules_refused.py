"""fresh41 F6: a damaged ``seal-rules`` (random bytes, a folder) refuses
every write (exit 13), yet ``mem fsck`` said "ok: 0 problems" (a warning
that sealed values "are stored in the clear") and ``mem doctor`` "no
problem found".  Now both call it an error that stops every write and
capture (fsck exit 13, doctor exit 1), naming the rebuild; a missing file
(writes go on) stays a warning.  Real ``mem`` processes on a real store."""

from __future__ import annotations

import json
import os

import pytest

PERSON = {"MEM_AGENT": "0"}


@pytest.mark.parametrize("damage", ["bytes", "folder"])
def test_a_seal_rules_file_that_refuses_every_write_is_an_error_in_fsck_and_doctor(mem, tmp_path, damage):
    home = tmp_path / "s"
    h = ["--home", str(home)]
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/wifi", "okapi-quetzal-5521", "--sensitivity", "secret", env=PERSON)
    rules = home / "seal-rules"
    if damage == "bytes":
        rules.write_bytes(os.urandom(64).replace(b"\n", b"x"))
    else:
        rules.unlink()
        rules.mkdir()
    mem(*h, "remember", "project/api/x", "vv", env=PERSON, exit_code=13)
    r = mem(*h, "fsck", exit_code=13)
    assert "error: seal-rules " in r.stdout and "every write and every captured turn is refused" in r.stdout, r.stdout
    assert "mem sealed rebuild-rules" in r.stdout and "mem fsck --repair" not in r.stderr, r.stderr
    doc = json.loads(mem(*h, "doctor", "--json", exit_code=1).stdout)
    (seal,) = [f for f in doc["findings"] if f["check"] == "seal"]
    assert seal["severity"] == "error" and "refused" in seal["message"], seal
    mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON) if damage == "bytes" else None
    if damage == "folder":
        os.rmdir(rules)
        r = mem(*h, "fsck", exit_code=13)   # missing while a key is sealed: writes stop too (test43 T11)
        assert "error: seal-rules is missing while 1 key is sealed" in r.stdout, r.stdout
        mem(*h, "remember", "project/api/x", "vv", env=PERSON, exit_code=13)
        mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON)
    assert "seal-rules" not in mem(*h, "fsck").stdout
    mem(*h, "remember", "project/api/x", "vv", env=PERSON)
