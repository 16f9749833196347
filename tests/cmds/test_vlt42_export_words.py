"""test41 T32: ``mem export --guard-passphrase-file`` with a short
passphrase said "the vault passphrase must have …" (the store may have no
vault; it is the guard's), and an import whose passphrase file has a BOM
or a trailing space said only "wrong passphrase".  Real ``mem`` processes."""

from __future__ import annotations

PERSON = {"MEM_AGENT": "0"}


def test_the_guard_passphrase_is_called_the_guards(mem, tmp_path):
    a = str(tmp_path / "a")
    mem("--home", a, "remember", "project/p/tok", "wombat-cedar-6612-anchor", env=PERSON)
    mem("--home", a, "forget", "project/p/tok", "--yes", env=PERSON)
    (tmp_path / "short").write_text("short\n")
    r = mem("--home", a, "export", "-o", str(tmp_path / "x.jsonl"), "--guard-passphrase-file",
            str(tmp_path / "short"), exit_code=2, env=PERSON)
    assert "the guard passphrase must have at least 12 characters" in r.stderr and "vault" not in r.stderr, r.stderr
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("--home", a, "export", "-o", str(tmp_path / "g.jsonl"), "--guard-passphrase-file", str(pp), env=PERSON)
    (tmp_path / "bom").write_bytes("\ufeffcorrect horse battery staple\n".encode())
    r = mem("--home", str(tmp_path / "b"), "import", "jsonl", str(tmp_path / "g.jsonl"), "--guard-passphrase-file",
            str(tmp_path / "bom"), exit_code=12, env=PERSON)
    assert "starts with a byte-order mark" in r.stderr, r.stderr
