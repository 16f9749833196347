"""test37 T13: a sealed value written again as a plain fact under another
key ("open the gate with 7731-0042-9915", by an agent or the person, CLI or
MCP) was stored, injected and pushed in the clear, while a captured turn
saying the same was stored withheld (the store's seal rules).  Now a plain
write holding a sealed value is refused (exit 6), naming the sealed key,
never the value; the key's own sealed write and an unrelated value pass.
Real ``mem`` processes and a real vault."""

from __future__ import annotations


def sealed_store(mem, tmp_path, key: str, value: str) -> str:
    """A store at ``tmp_path/store`` with a vault and ``key`` sealed holding ``value``; its path."""
    home = str(tmp_path / "store")
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery staple\n")
    mem("--home", home, "vault", "init", "--passphrase-file", str(pp))
    mem("--home", home, "remember", key, "-", "--sensitivity", "secret", input=value + "\n")
    return home


def test_a_plain_write_holding_a_sealed_value_is_refused_by_anyone(mem, tmp_path):
    home = sealed_store(mem, tmp_path, "project/acme/gate-code", "the gate code is 7731-0042-9915")
    for env in ({"MEM_AGENT": "codex"}, {}):
        for key, body in (("project/acme/gate-note", "open the gate with 7731-0042-9915"),
                          ("project/acme/gate-note2", "gate: ７７３１-0042-9915")):
            r = mem("--home", home, "remember", key, body, env=env, exit_code=6)
            assert "sealed value of project/acme/gate-code" in r.stderr and "7731" not in r.stderr, r.stderr
    mem("--home", home, "remember", "project/acme/gate-note", "open the gate with the code in the vault")
    mem("--home", home, "remember", "project/acme/gate-note3", "7731-0042-9915", "--sensitivity", "secret",
        input=None)
    assert "7731" not in mem("--home", home, "context", "--project", "acme").stdout
