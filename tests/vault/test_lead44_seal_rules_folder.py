"""fresh44 F14: a folder in place of ``seal-rules`` (a sync tool, a restore): ``mem seal`` started, crashed half
way ("internal error") and left the key both sealed and plain; ``fsck --repair``, ``seal`` again and ``sealed
rebuild-rules`` all crashed the same way.  Now the seal refuses before any change and every writer of the rules
says exit 13 "move it out of the way"; once moved, ``rebuild-rules`` writes it and the seal works.  Real ``mem``
processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_a_folder_for_the_seal_rules_stops_a_seal_before_it_starts(mem, tmp_path):
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    a = tmp_path / "a"
    h = ["--home", str(a)]
    mem(*h, "vault", "init", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "remember", "user/tok", "tok-abcdefgh-12345678", "--sensitivity", "secret", env=PERSON)
    mem(*h, "remember", "project/web/deploy", "deploy-key-zq-88412", env=PERSON)
    (a / "seal-rules").unlink()
    (a / "seal-rules").mkdir()
    for args in (["seal", "project/web/deploy"], ["sealed", "rebuild-rules", "--passphrase-file", str(pp)]):
        r = mem(*h, *args, exit_code=13, env=PERSON)
        assert "seal-rules is a folder" in r.stderr and "move it out of the way" in r.stderr, (args, r.stderr)
        assert "internal error" not in r.stderr
    assert mem(*h, "get", "project/web/deploy", env=PERSON).stdout.strip() == "deploy-key-zq-88412"
    assert not (a / "refs" / "sealed" / "project" / "web" / "deploy").exists()
    assert "both sealed" not in mem(*h, "fsck", exit_code=None, env=PERSON).stdout
    (a / "seal-rules").rename(a / "seal-rules.bad")
    mem(*h, "sealed", "rebuild-rules", "--passphrase-file", str(pp), env=PERSON)
    mem(*h, "seal", "project/web/deploy", env=PERSON)
    mem(*h, "get", "project/web/deploy", exit_code=6, env=PERSON)   # sealed now
