"""Lane fix18b (tester finding U4): a credential typed as an MCP key's
``--namespace``, as a setting's name, or as a word click refuses (an extra
argument, a choice) is refused with exit 2 and never echoed nor written
(the one name rule, ``objstore.core.redact.check_name``; click's own
messages through the value rule).  Real ``mem`` processes; the token is fake."""

from __future__ import annotations

from tests.hooks._util import files_holding

GH = "ghp_" + "Q9w2E3r4T5y6U7i8O9p0AaSsDdFfGgHhJjK9"


def test_mint_refuses_a_namespace_that_holds_a_credential_without_echo(mem, store_path):
    mem("init")
    r = mem("mcp", "keys", "mint", "--name", "ci", "--role", "agent", "--namespace", f"project/{GH}", exit_code=2)
    assert "the namespace holds a credential" in r.stderr and "Q9w2" not in r.stdout + r.stderr, r.stderr
    r = mem("mcp", "keys", "mint", "--name", "ci", "--role", "agent", "--namespace", f"user/notes/{GH}/x",
            "--json", exit_code=2)
    assert "Q9w2" not in r.stdout + r.stderr
    assert "Q9w2" not in mem("mcp", "keys", "list").stdout
    assert files_holding(store_path, "Q9w2") == []
    r = mem("mcp", "keys", "mint", "--name", "ci", "--role", "agent", "--namespace", "project/api")
    assert r.stdout.startswith("memk_"), r.stdout                          # a sound namespace still mints
    assert "project/api" in mem("mcp", "keys", "list").stdout


def test_config_never_echoes_a_credential_typed_as_a_name_or_an_extra_word(mem, store_path):
    mem("init")
    for args in (("config", GH, "x"), ("config", GH), ("config", "set", "decay.days", GH),
                 ("config", "--json", GH, "1"), ("mcp", "keys", "mint", "--name", "ci", "--role", GH)):
        r = mem(*args, exit_code=2)
        assert "Q9w2" not in r.stdout + r.stderr, (args, r.stderr)
        assert r.stderr.strip(), args                                    # still says what is wrong
    r = mem("config", "decay.dayz", "3", exit_code=2)
    assert "unknown setting 'decay.dayz'" in r.stderr and "decay.days" in r.stderr   # a typo is still shown
    assert files_holding(store_path, "Q9w2") == []
